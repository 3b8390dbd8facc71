// The IPU-model backend (ipu_model_backend.hpp).
#include "backends/ipu_model/ipu_model_backend.hpp"

#include <filesystem>

#include "backends/ipu_model/ipu_model.hpp"
#include "backends/ipu_model/report_text.hpp"
#include "backends/report_files.hpp"
#include "ir/ir.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace ipu_model {
namespace {

/// The CPU executable (absent on offline devices) plus the IPU model's layout of the program.
class IpuModelExecutable : public Executable {
 public:
  IpuModelExecutable(report::Compilation c, std::unique_ptr<Executable> cpu)
      : compilation_(std::move(c)), cpu_(std::move(cpu)) {}

  void weightsFromHost() override {
    if (cpu_) cpu_->weightsFromHost();
  }
  void weightsToHost() override {
    if (cpu_) cpu_->weightsToHost();
  }
  void tensorsFromHost(const std::vector<TensorId>& ids) override {
    if (cpu_) cpu_->tensorsFromHost(ids);
  }
  void setInput(const TensorId& id, const void* data) override { live().setInput(id, data); }
  void execute() override { live().execute(); }
  std::vector<const Op*> reductions() const override { return live().reductions(); }
  void executePhase(size_t k) override { live().executePhase(k); }
  const void* tensorData(const TensorId& id) const override { return live().tensorData(id); }
  void setRandomSeed(uint64_t seed) override {
    if (cpu_) cpu_->setRandomSeed(seed);
  }
  SessionMemoryStats memoryStats() const override { return cpu_ ? cpu_->memoryStats() : SessionMemoryStats{}; }
  std::string summary() const override { return summaryText({compilation_, {}}, false); }
  const report::Compilation* compilation() const override { return &compilation_; }
  bool canExecute() const override { return cpu_ != nullptr; }

 private:
  Executable& live() const {
    if (!cpu_) throw error("Offline IPU device is not configured for execution");
    return *cpu_;
  }
  report::Compilation compilation_;
  std::unique_ptr<Executable> cpu_;
};

}  // namespace

IpuModelBackend::IpuModelBackend(const DeviceInfo& device) : device_(device) {}

std::unique_ptr<Executable> IpuModelBackend::compile(Ir& ir) {
  const IpuTargetInfo& t = device_.getTarget();
  logging::devicex::info("Compiling for {} ({}): {} IPU(s) x {} tiles", toString(device_.getType()), t.version,
                         device_.getNumIpus(), device_.getTilesPerIPU());
  report::Compilation c = modelCompilation(ir, device_);
  if (!c.memory.outOfMemoryTiles.empty()) {
    const auto& eo = ir.options().engineOptions;
    auto it = eo.find("debug.allowOutOfMemory");
    const bool offline = device_.getType() == DeviceType::OfflineIpu;
    const bool allow = it != eo.end() ? it->second == "true" : !offline;
    const std::string msg = outOfMemoryMessage(c);
    if (!allow) {
      // With autoReport.all the summary is also written where the session's reports go, and the
      // exception's getProfilePath() names it.
      const std::string summary = summaryText({c, {}}, false);
      std::string path;
      const std::string dir = autoReportDirectory(ir.options(), ir.sessionName());
      if (!dir.empty()) {
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(dir, ec);
        path = ((ec ? std::filesystem::path(dir) : abs) / "summary.txt").string();
        try {
          writeReportFile(path, summary);
        } catch (const error& e) {
          logging::devicex::warn("the out-of-memory summary was not written: {}", e.what());
          path.clear();
        }
      }
      throw OutOfMemoryException(msg, summary, path);
    }
    logging::devicex::warn("{} (the IPU model compiles and runs anyway)", msg);
  }
  std::unique_ptr<Executable> cpu;
  if (device_.canRun()) cpu = cpu_.compile(ir);
  return std::make_unique<IpuModelExecutable>(std::move(c), std::move(cpu));
}

}  // namespace ipu_model
}  // namespace popart
