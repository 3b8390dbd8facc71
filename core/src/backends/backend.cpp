// The backend of each device type, and the host's constant folding.
#include "backends/backend.hpp"

#include <cstdlib>
#include "backends/cpu/cpu_backend.hpp"
#include "backends/ipu_model/ipu_model_backend.hpp"

#include "popart/error.hpp"

namespace popart {

std::unique_ptr<Backend> createBackend(const DeviceInfo& device) {
  switch (device.getType()) {
    case DeviceType::Cpu:
      return std::make_unique<cpu::CpuBackend>();
    case DeviceType::IpuModel:
    case DeviceType::OfflineIpu:
    case DeviceType::Sim:  // Graphcore's simulator needs Poplar: the IPU model stands in for it
      return std::make_unique<ipu_model::IpuModelBackend>(device);
    default:
      break;
  }
  throw error("No backend for {} devices in this build", toString(device.getType()));
}

bool profilingEnabled(const SessionOptions& options) {
  for (const char* key : {"autoReport.all", "debug.instrument"}) {
    auto it = options.engineOptions.find(key);
    if (it != options.engineOptions.end() && it->second == "true") return true;
  }
  const char* env = std::getenv("POPART_PROFILE");
  return env && std::string(env) == "1";
}

const ConstEvaluator& hostConstEvaluator() {
  static const cpu::CpuConstEvaluator evaluator;
  return evaluator;
}

}  // namespace popart
