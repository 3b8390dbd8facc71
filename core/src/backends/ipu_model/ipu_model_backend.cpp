// The IPU-model backend (ipu_model_backend.hpp).
#include "backends/ipu_model/ipu_model_backend.hpp"

#include <sstream>

#include "popart/logging.hpp"

namespace popart {
namespace ipu_model {
namespace {

/// The CPU executable, described as the emulated target.
class IpuModelExecutable : public Executable {
 public:
  IpuModelExecutable(const DeviceInfo& device, std::unique_ptr<Executable> cpu)
      : device_(device), cpu_(std::move(cpu)) {}

  void weightsFromHost() override { cpu_->weightsFromHost(); }
  void weightsToHost() override { cpu_->weightsToHost(); }
  void tensorsFromHost(const std::vector<TensorId>& ids) override { cpu_->tensorsFromHost(ids); }
  void setInput(const TensorId& id, const void* data) override { cpu_->setInput(id, data); }
  void execute() override { cpu_->execute(); }
  const void* tensorData(const TensorId& id) const override { return cpu_->tensorData(id); }
  void setRandomSeed(uint64_t seed) override { cpu_->setRandomSeed(seed); }
  SessionMemoryStats memoryStats() const override { return cpu_->memoryStats(); }

  std::string summary() const override {
    const IpuTargetInfo& t = device_.getTarget();
    const int64_t tiles = static_cast<int64_t>(device_.getNumIpus()) * device_.getTilesPerIPU();
    std::ostringstream os;
    os << "Target:\n"
       << "  Device:                 " << toString(device_.getType()) << " (" << t.version << ", " << t.product << ")\n"
       << "  Number of IPUs:         " << device_.getNumIpus() << "\n"
       << "  Tiles per IPU:          " << device_.getTilesPerIPU() << " of " << t.tilesPerIpu << "\n"
       << "  Total tiles:            " << tiles << "\n"
       << "  Memory per tile:        " << t.bytesPerTile << " bytes\n"
       << "  Total memory:           " << tiles * t.bytesPerTile << " bytes\n"
       << "  Clock:                  " << t.clockHz / 1e9 << " GHz\n"
       << "  Worker contexts:        " << t.workerContexts << " per tile\n\n"
       << cpu_->summary();
    return os.str();
  }

 private:
  const DeviceInfo& device_;
  std::unique_ptr<Executable> cpu_;
};

}  // namespace

IpuModelBackend::IpuModelBackend(const DeviceInfo& device) : device_(device) {}

std::unique_ptr<Executable> IpuModelBackend::compile(Ir& ir) {
  const IpuTargetInfo& t = device_.getTarget();
  logging::devicex::info("Compiling for {} ({}): {} IPU(s) x {} tiles", toString(device_.getType()), t.version,
                         device_.getNumIpus(), device_.getTilesPerIPU());
  return std::make_unique<IpuModelExecutable>(device_, cpu_.compile(ir));
}

}  // namespace ipu_model
}  // namespace popart
