// The IPU-model backend: a model runs with the CPU backend's kernels (the same outputs as the CPU
// device) and is laid out on an emulated IPU target by the IPU model (ipu_model.hpp): tile
// mapping, memory per tile, cycles. Offline IPUs compile (the same model) but never run.
#pragma once

#include <memory>

#include "backends/backend.hpp"
#include "backends/cpu/cpu_backend.hpp"

namespace popart {
namespace ipu_model {

class IpuModelBackend : public Backend {
 public:
  explicit IpuModelBackend(const DeviceInfo& device);
  /// Models the program; over tile memory, throws OutOfMemoryException on an offline IPU or with
  /// the engine option debug.allowOutOfMemory = "false", else logs a warning and goes on.
  std::unique_ptr<Executable> compile(Ir& ir) override;
  const ConstEvaluator& constEvaluator() const override { return hostConstEvaluator(); }

 private:
  const DeviceInfo& device_;
  cpu::CpuBackend cpu_;
};

}  // namespace ipu_model
}  // namespace popart
