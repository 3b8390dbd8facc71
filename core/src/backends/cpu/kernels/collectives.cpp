// CPU kernels of the collectives family (replication factor 1: copies, when not aliased).
#include <cstring>

#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {
namespace {

KernelFn copyKernel(const Op& op, KernelContext& kc) {
  const int x = kc.in(0), y = kc.out(0);
  const size_t bytes = static_cast<size_t>(op.inInfo(0).nbytes());
  return [=](const RunState& s) {
    if (s.slots[x] != s.slots[y]) std::memcpy(s.slots[y], s.slots[x], bytes);
  };
}

}  // namespace

KernelFn makeCpuKernel_GcReplicatedAllReduce(const Op& op, KernelContext& kc) {
  return copyKernel(op, kc);
}
KernelFn makeCpuKernel_GcReplicatedReduceScatter(const Op& op, KernelContext& kc) {
  return copyKernel(op, kc);
}

}  // namespace cpu
}  // namespace popart
