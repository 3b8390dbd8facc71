// The IPU-model backend: a model runs with the CPU backend's kernels (the same outputs as the CPU
// device), lowered for an emulated IPU target (popart/devicemanager.hpp: IpuTargetInfo). The
// tile mapping, memory and cycle modelling build on this (docs/ipu-model.md says what exists).
#pragma once

#include <memory>

#include "backends/backend.hpp"
#include "backends/cpu/cpu_backend.hpp"

namespace popart {
namespace ipu_model {

class IpuModelBackend : public Backend {
 public:
  explicit IpuModelBackend(const DeviceInfo& device);
  std::unique_ptr<Executable> compile(Ir& ir) override;
  const ConstEvaluator& constEvaluator() const override { return hostConstEvaluator(); }

 private:
  const DeviceInfo& device_;
  cpu::CpuBackend cpu_;
};

}  // namespace ipu_model
}  // namespace popart
