#include "backends/cpu/kernels/elementwise_util.hpp"

namespace popart {
namespace cpu {

std::shared_ptr<const BinaryPlan> makeBinaryPlan(const Op& op, KernelContext& kc) {
  Shape bShape = op.inShape(1);
  if (op.attrs.has("__bshape")) bShape = op.attrs.getInts("__bshape");  // legacy (opset < 7) broadcast
  auto g = std::make_shared<BinaryPlan>();
  g->plan = makeBroadcastPlan(op.outInfo(0).shape(), {op.inShape(0), bShape});
  g->a = kc.in(0);
  g->b = kc.in(1);
  g->out = kc.out(0);
  return g;
}

}  // namespace cpu
}  // namespace popart
