// Binary broadcasting kernel builder shared by elementwise families.
#pragma once

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {

/// out[i] = f(a[ia], b[ib]) with numpy broadcasting; A and B element types, O output type.
template <typename A, typename B, typename O, typename F>
KernelFn binaryKernel2(const Op& op, KernelContext& kc, F f) {
  const Shape out = op.outInfo(0).shape();
  Shape bShape = op.inShape(1);
  if (op.attrs.has("__bshape")) bShape = op.attrs.getInts("__bshape");  // legacy (opset < 7) broadcast
  const BroadcastPlan p = makeBroadcastPlan(out, {op.inShape(0), bShape});
  const int a = kc.in(0), b = kc.in(1), o = kc.out(0);
  using CA = compute_t<A>;
  using CB = compute_t<B>;
  return [=](const RunState& s) {
    const A* ap = inPtr<A>(s, a);
    const B* bp = inPtr<B>(s, b);
    O* op_ = outPtr<O>(s, o);
    forEachRun<2>(p, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
      const A* x = ap + off[0];
      const B* y = bp + off[1];
      O* z = op_ + oo;
      if (st[0] == 1 && st[1] == 1) {
        for (int64_t j = 0; j < len; ++j) z[j] = static_cast<O>(f(static_cast<CA>(x[j]), static_cast<CB>(y[j])));
      } else if (st[0] == 1 && st[1] == 0) {
        const CB yv = static_cast<CB>(y[0]);
        for (int64_t j = 0; j < len; ++j) z[j] = static_cast<O>(f(static_cast<CA>(x[j]), yv));
      } else if (st[0] == 0 && st[1] == 1) {
        const CA xv = static_cast<CA>(x[0]);
        for (int64_t j = 0; j < len; ++j) z[j] = static_cast<O>(f(xv, static_cast<CB>(y[j])));
      } else {
        for (int64_t j = 0; j < len; ++j)
          z[j] = static_cast<O>(f(static_cast<CA>(x[j * st[0]]), static_cast<CB>(y[j * st[1]])));
      }
    });
  };
}

/// Same-type inputs.
template <typename T, typename O, typename F>
KernelFn binaryKernel(const Op& op, KernelContext& kc, F f) {
  return binaryKernel2<T, T, O>(op, kc, f);
}

}  // namespace cpu
}  // namespace popart
