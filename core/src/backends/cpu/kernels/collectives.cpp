// CPU kernels of the collectives family (replication factor 1: copies, when not aliased).
#include <cstring>
#include <vector>

#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {
KernelFn makeCpuKernel_GcReplicatedAllReduce(const Op& op, KernelContext& kc) {
  return copyKernel(op, kc);
}
KernelFn makeCpuKernel_GcReplicatedReduceScatter(const Op& op, KernelContext& kc) {
  return copyKernel(op, kc);
}

/// GradientAllReduce: each gradient copied to its output, which the replicas' driver sums across
/// the replicas once every replica has run up to here (the program's phases end at this op).
KernelFn makeCpuKernel_GradAllReduce(const Op& op, KernelContext& kc) {
  struct Copy {
    int in, out;
    size_t bytes;
  };
  std::vector<Copy> copies;
  for (int i = 0; i < op.numInputs(); ++i)
    copies.push_back({kc.in(i), kc.out(i), static_cast<size_t>(op.inInfo(i).nbytes())});
  return [copies](const RunState& s) {
    for (const Copy& c : copies) {
      if (s.slots[c.out] != s.slots[c.in] && c.bytes) std::memcpy(s.slots[c.out], s.slots[c.in], c.bytes);
    }
  };
}

}  // namespace cpu
}  // namespace popart
