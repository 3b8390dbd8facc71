// CPU kernels of the collectives family (replication factor 1: copies, when not aliased).
#include <cstring>

#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {
KernelFn makeCpuKernel_GcReplicatedAllReduce(const Op& op, KernelContext& kc) {
  return copyKernel(op, kc);
}
KernelFn makeCpuKernel_GcReplicatedReduceScatter(const Op& op, KernelContext& kc) {
  return copyKernel(op, kc);
}

}  // namespace cpu
}  // namespace popart
