// The CPU backend: kernels on preallocated buffers, in schedule order.
#pragma once

#include "backends/backend.hpp"
#include "ir/ir.hpp"

namespace popart {
namespace cpu {

/// Constant folding with the CPU kernels.
class CpuConstEvaluator : public ConstEvaluator {
 public:
  std::vector<TensorData> evaluate(const Op& op) const override;
};

class CpuBackend : public Backend {
 public:
  std::unique_ptr<Executable> compile(Ir& ir) override;
  /// The host's evaluator (hostConstEvaluator(): the CPU kernels, no state of its own).
  const ConstEvaluator& constEvaluator() const override { return hostConstEvaluator(); }
};

}  // namespace cpu
}  // namespace popart
