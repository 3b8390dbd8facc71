// OpKind -> kernel factory, from the op list.
#include <array>

#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {

#define POPART_OP(E, T, D, F, ...) KernelFn makeCpuKernel_##E(const Op& op, KernelContext& kc);
#include "oplist/ops.def"
#undef POPART_OP

KernelFactory kernelFactory(OpKind k) {
  static const std::array<KernelFactory, static_cast<size_t>(OpKind::N)> table{
#define POPART_OP(E, T, D, F, ...) &makeCpuKernel_##E,
#include "oplist/ops.def"
#undef POPART_OP
  };
  return table.at(static_cast<size_t>(k));
}

}  // namespace cpu
}  // namespace popart
