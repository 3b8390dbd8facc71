// CPU kernels of the collectives family. Where a collective exchanges values between replicas
// (ops::acrossReplicas) the program's phase ends at it and the replicas' driver writes its output
// (session/replicated_executable.cpp); its kernel does nothing. Otherwise the op is one replica's
// collective: its input (a view, or a copy), or its square for SquareAdd.
#include <cstring>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/collectives.hpp"

namespace popart {
namespace cpu {
namespace {

template <typename T>
KernelFn squareKernel(int x, int y, int64_t n) {
  return [=](const RunState& s) {
    const T* a = static_cast<const T*>(s.slots[x]);
    T* b = static_cast<T*>(s.slots[y]);
    for (int64_t i = 0; i < n; ++i) {
      const auto v = static_cast<typename Compute<T>::type>(a[i]);
      b[i] = static_cast<T>(v * v);
    }
  };
}

/// One replica's collective (a group of one replica, or replication factor 1).
KernelFn singleReplica(const Op& op, KernelContext& kc) {
  if (ops::acrossReplicas(op)) return [](const RunState&) {};
  if (ops::collectiveOf(op).op != CollectiveOperator::SquareAdd) return copyKernel(op, kc);
  const int x = kc.in(0), y = kc.out(0);
  const int64_t n = op.inInfo(0).nelms();
  return dispatchNumeric(op.inType(0), [&](auto tag) { return squareKernel<decltype(tag)>(x, y, n); });
}

}  // namespace

KernelFn makeCpuKernel_GcReplicatedAllReduce(const Op& op, KernelContext& kc) {
  return singleReplica(op, kc);
}
KernelFn makeCpuKernel_GcReplicatedReduceScatter(const Op& op, KernelContext& kc) {
  return singleReplica(op, kc);
}
KernelFn makeCpuKernel_GcReplicatedAllGather(const Op& op, KernelContext& kc) {
  return singleReplica(op, kc);
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
