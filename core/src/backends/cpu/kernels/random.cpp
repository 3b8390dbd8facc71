// CPU kernels of the random family. Values come from a 64-bit Mersenne Twister turned into
// doubles by hand (not by <random>'s distributions) so that a seed gives the same values with
// every standard library.
#include <cmath>
#include <cstring>
#include <memory>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"

namespace popart {
namespace cpu {
namespace {

/// The op's own generator when it has a `seed` attribute (it advances from run to run), else
/// nullptr: the session's generator is used.
std::shared_ptr<std::mt19937_64> seededGenerator(const Op& op) {
  if (!op.attrs.has("seed")) return nullptr;
  const float seed = op.attrs.getFloat("seed");
  uint32_t bits = 0;
  std::memcpy(&bits, &seed, sizeof bits);
  return std::make_shared<std::mt19937_64>(bits);
}

/// Uniform in [0, 1) with 53 random bits.
double uniform01(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;
}

/// Standard normal (Box-Muller; one value per two uniforms).
double normal01(std::mt19937_64& g) {
  const double u1 = 1.0 - uniform01(g), u2 = uniform01(g);  // u1 in (0, 1]
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// out[i] = draw(generator) for every element of output 0 (floating-point types).
template <typename Draw>
KernelFn fillKernel(const Op& op, KernelContext& kc, Draw draw) {
  const int64_t n = op.outInfo(0).nelms();
  const auto own = seededGenerator(op);
  const int y = kc.out(0);
  return dispatchFloat(op.outInfo(0).dataType(), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      std::mt19937_64& g = own ? *own : *s.rng;
      T* out = outPtr<T>(s, y);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(static_cast<compute_t<T>>(draw(g)));
    };
  });
}

KernelFn uniformKernel(const Op& op, KernelContext& kc) {
  const double lo = op.attrs.getFloat("low", 0.0f), hi = op.attrs.getFloat("high", 1.0f);
  return fillKernel(op, kc, [lo, hi](std::mt19937_64& g) { return lo + (hi - lo) * uniform01(g); });
}

KernelFn normalKernel(const Op& op, KernelContext& kc) {
  const double mean = op.attrs.getFloat("mean", 0.0f), scale = op.attrs.getFloat("scale", 1.0f);
  return fillKernel(op, kc, [mean, scale](std::mt19937_64& g) { return mean + scale * normal01(g); });
}

}  // namespace

KernelFn makeCpuKernel_Bernoulli(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const auto own = seededGenerator(op);
  const int x = kc.in(0), y = kc.out(0);
  const DataType it = op.inType(0);
  return dispatchAll(op.outInfo(0).dataType(), [&](auto otag) -> KernelFn {
    using O = decltype(otag);
    return dispatchFloat(it, [&](auto itag) -> KernelFn {
      using I = decltype(itag);
      return [=](const RunState& s) {
        std::mt19937_64& g = own ? *own : *s.rng;
        const I* p = inPtr<I>(s, x);
        O* out = outPtr<O>(s, y);
        for (int64_t i = 0; i < n; ++i) {
          // a draw in [0, 1) is below p with probability p: p = 0 gives 0, p = 1 gives 1
          const bool one = uniform01(g) < static_cast<double>(static_cast<compute_t<I>>(p[i]));
          if constexpr (std::is_same_v<O, bool>) {
            out[i] = one;
          } else {
            out[i] = static_cast<O>(static_cast<compute_t<O>>(one ? 1 : 0));
          }
        }
      };
    });
  });
}

KernelFn makeCpuKernel_RandomUniform(const Op& op, KernelContext& kc) {
  return uniformKernel(op, kc);
}
KernelFn makeCpuKernel_RandomNormal(const Op& op, KernelContext& kc) {
  return normalKernel(op, kc);
}
KernelFn makeCpuKernel_RandomUniformLike(const Op& op, KernelContext& kc) {
  return uniformKernel(op, kc);
}
KernelFn makeCpuKernel_RandomNormalLike(const Op& op, KernelContext& kc) {
  return normalKernel(op, kc);
}

/// ShapedDropout: one draw per mask element from the session's generator (as Dropout), the mask
/// broadcast over x. Inference sessions (and ratio 0) copy x, with a mask of ones.
KernelFn makeCpuKernel_GcShapedDropout(const Op& op, KernelContext& kc) {
  const double ratio = op.attrs.getFloat("ratio", 0.5f);
  const bool drop = op.graph().ir().isTraining() && ratio > 0.0;
  const Shape& xs = op.inShape(0);
  const Shape ms = op.attrs.getInts("shape");
  int64_t nm = 1;
  for (auto d : ms) nm *= d;
  const int64_t n = op.inInfo(0).nelms();
  const int x = kc.in(0), y = kc.out(0), maskOut = kc.out(1);
  if (maskOut < 0) kc.needScratch(nm * static_cast<int64_t>(dataTypeSize(op.inType(0))));
  const auto plan = std::make_shared<const BroadcastPlan>(makeBroadcastPlan(xs, {xs, ms}));
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      T* M = maskOut >= 0 ? outPtr<T>(s, maskOut) : reinterpret_cast<T*>(s.scratch);
      const CT kept = drop ? static_cast<CT>(1.0 / (1.0 - ratio)) : CT(1);
      for (int64_t i = 0; i < nm; ++i) M[i] = static_cast<T>(!drop || uniform01(*s.rng) >= ratio ? kept : CT(0));
      if (!drop) {
        if (X != Y) std::memcpy(static_cast<void*>(Y), X, static_cast<size_t>(n) * sizeof(T));
        return;
      }
      forEachRun<2>(*plan, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
        for (int64_t j = 0; j < len; ++j)
          Y[oo + j] = static_cast<T>(static_cast<CT>(X[off[0] + j * st[0]]) * static_cast<CT>(M[off[1] + j * st[1]]));
      });
    };
  });
}

}  // namespace cpu
}  // namespace popart
