// Binary broadcasting kernel builder shared by elementwise families.
#pragma once

#include <memory>
#include <type_traits>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"

// Marks a loop that should stay scalar: clang otherwise vectorises, interleaves and versions it.
#if defined(__clang__)
#define POPART_SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
#else
#define POPART_SCALAR_LOOP
#endif

namespace popart {
namespace cpu {

/// Element types whose elementwise kernels get dedicated contiguous and broadcast loops, which the
/// compiler vectorises. The other types (small index, mask and shape arithmetic in models) share
/// one scalar strided loop: vectorised loop forms for a dozen element types and ~40 ops were code
/// size in the WebAssembly module and no speed where it matters.
template <typename T>
constexpr bool kFastElementwise = std::is_same_v<T, float>;

/// out[i] = f(in[i]) for n elements (in may equal out), through the compute type: a vectorisable
/// loop for the fast types, a scalar one for the others.
template <typename T, typename O, typename F>
inline void mapElements(const T* in, O* out, int64_t n, F f) {
  using C = compute_t<T>;
  if constexpr (kFastElementwise<T>) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<O>(f(static_cast<C>(in[i])));
  } else {
    POPART_SCALAR_LOOP
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<O>(f(static_cast<C>(in[i])));
  }
}

/// y = f(x) elementwise (mapElements) for a numeric input 0 and an output 0 of its type.
template <typename F>
KernelFn numericUnary(const Op& op, KernelContext& kc, F f) {
  const int x = kc.in(0), y = kc.out(0);
  const int64_t n = op.inInfo(0).nelms();
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) { mapElements(inPtr<T>(s, x), outPtr<T>(s, y), n, f); };
  });
}

/// The element-type-independent part of a binary kernel: slots and the broadcast plan, built once
/// per op (not once per element type) and shared by the kernel's copies.
struct BinaryPlan {
  BroadcastPlan plan;
  int a = -1, b = -1, out = -1;
};
std::shared_ptr<const BinaryPlan> makeBinaryPlan(const Op& op, KernelContext& kc);

/// out[i] = f(a[ia], b[ib]) with numpy broadcasting; A and B element types, O output type.
template <typename A, typename B, typename O, typename F>
KernelFn binaryKernel2(const Op& op, KernelContext& kc, F f) {
  using CA = compute_t<A>;
  using CB = compute_t<B>;
  return [g = makeBinaryPlan(op, kc), f](const RunState& s) {
    const A* ap = inPtr<A>(s, g->a);
    const B* bp = inPtr<B>(s, g->b);
    O* op_ = outPtr<O>(s, g->out);
    forEachRun<2>(g->plan, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
      const A* x = ap + off[0];
      const B* y = bp + off[1];
      O* z = op_ + oo;
      if constexpr (kFastElementwise<A> && kFastElementwise<B>) {
        if (st[0] == 1 && st[1] == 1) {
          for (int64_t j = 0; j < len; ++j) z[j] = static_cast<O>(f(static_cast<CA>(x[j]), static_cast<CB>(y[j])));
          return;
        }
        if (st[0] == 1 && st[1] == 0) {
          const CB yv = static_cast<CB>(y[0]);
          for (int64_t j = 0; j < len; ++j) z[j] = static_cast<O>(f(static_cast<CA>(x[j]), yv));
          return;
        }
        if (st[0] == 0 && st[1] == 1) {
          const CA xv = static_cast<CA>(x[0]);
          for (int64_t j = 0; j < len; ++j) z[j] = static_cast<O>(f(xv, static_cast<CB>(y[j])));
          return;
        }
      }
      const int64_t s0 = st[0], s1 = st[1];
      POPART_SCALAR_LOOP
      for (int64_t j = 0; j < len; ++j)
        z[j] = static_cast<O>(f(static_cast<CA>(x[j * s0]), static_cast<CB>(y[j * s1])));
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
