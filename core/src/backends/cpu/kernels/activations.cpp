// CPU kernels of the activations family.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/activation_fn.hpp"
#include "backends/cpu/kernels/elementwise_util.hpp"
#include "backends/cpu/kernels/sum.hpp"
#include "backends/cpu/kernels/vec_math.hpp"
#include "common/checked_size.hpp"
#include "ir/ir.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {
namespace {

/// Applies an Activation to FLOAT with Eigen where it vectorises, else elementwise.
KernelFn activation(const Op& op, KernelContext& kc, const Activation& act) {
  if (op.inType(0) == DataType::FLOAT) {
    const int x = kc.in(0), y = kc.out(0);
    const int64_t n = op.inInfo(0).nelms();
    return [=](const RunState& s) { applyActivation(act, inPtr<float>(s, x), outPtr<float>(s, y), n); };
  }
  return numericUnary(op, kc, [act](auto v) { return act.scalar(v); });
}

// Softmax family: for opset < 13 the input is coerced to 2-D [prod(d[:axis]), prod(d[axis:])];
// from 13 the op works along one axis.
enum class SoftKind { Softmax, LogSoftmax, Hardmax };

KernelFn softmaxKernel(const Op& op, KernelContext& kc, SoftKind kind) {
  const Shape& in = op.inShape(0);
  const int64_t r = static_cast<int64_t>(in.size());
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", op.opset() >= 13 ? -1 : 1), r);
  int64_t outer = 1, len = 1, inner = 1;
  if (op.opset() >= 13) {
    for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
    len = r ? in[static_cast<size_t>(axis)] : 1;
    for (int64_t i = axis + 1; i < r; ++i) inner *= in[static_cast<size_t>(i)];
  } else {
    for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
    for (int64_t i = axis; i < r; ++i) len *= in[static_cast<size_t>(i)];
  }
  const int x = kc.in(0), y = kc.out(0);
  // enableNonStableSoftmax: exp(x) without subtracting the row's maximum first (faster on an
  // IPU; overflows to inf / NaN for inputs above ~88 in float, as PopART's does).
  const bool nonStable = kind == SoftKind::Softmax && op.graph().ir().options().enableNonStableSoftmax;
  if (inner != 1) kc.needScratch(checkedProduct({len, 2 * static_cast<int64_t>(sizeof(double))}));
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* a = inPtr<T>(s, x);
      T* b = outPtr<T>(s, y);
      C* row = reinterpret_cast<C*>(s.scratch);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in_ = 0; in_ < inner; ++in_) {
          const T* src = a + o * len * inner + in_;
          T* dst = b + o * len * inner + in_;
          C local[1];
          C* v = inner == 1 ? nullptr : row;
          auto get = [&](int64_t i) -> C { return static_cast<C>(src[i * inner]); };
          (void)local;
          if (kind == SoftKind::Hardmax) {
            int64_t best = 0;
            for (int64_t i = 1; i < len; ++i) {
              if (get(i) > get(best)) best = i;
            }
            for (int64_t i = 0; i < len; ++i) dst[i * inner] = static_cast<T>(i == best ? 1 : 0);
            continue;
          }
          C mx = nonStable ? C(0) : -std::numeric_limits<C>::infinity();
          if (!nonStable)
            for (int64_t i = 0; i < len; ++i) mx = std::max(mx, get(i));
          C sum = 0;  // of the exponentials, through sum.hpp (rows can be long)
          if (v) {
            for (int64_t i = 0; i < len; ++i) v[i] = std::exp(get(i) - mx);
            sum = static_cast<C>(sumOf(v, len));
          } else if constexpr (std::is_same_v<T, float>) {
            vecKernels().expShifted(src, mx, dst, len);
            sum = static_cast<C>(sumFloats(dst, len, [](float e) { return e; }));
          } else {
            double total = 0;
            for (int64_t i = 0; i < len; ++i) {
              const C e = std::exp(get(i) - mx);
              dst[i] = static_cast<T>(e);
              total += static_cast<double>(e);
            }
            sum = static_cast<C>(total);
          }
          if (kind == SoftKind::LogSoftmax) {
            // (x - max) - log(sum): mx + log(sum) first would round away the small differences of
            // large inputs (x = 10000 + k: float's spacing there is 1e-3).
            const C logSum = std::log(sum);
            for (int64_t i = 0; i < len; ++i) dst[i * inner] = static_cast<T>((get(i) - mx) - logSum);
          } else if (v) {
            const C inv = C(1) / sum;
            for (int64_t i = 0; i < len; ++i) dst[i * inner] = static_cast<T>(v[i] * inv);
          } else {
            const C inv = C(1) / sum;
            for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(static_cast<C>(dst[i]) * inv);
          }
        }
      }
    };
  });
}

}  // namespace

KernelFn makeCpuKernel_Relu(const Op& op, KernelContext& kc) {
  return activation(op, kc, Activation::relu());
}
KernelFn makeCpuKernel_LeakyRelu(const Op& op, KernelContext& kc) {
  return activation(op, kc, Activation::leakyRelu(op.attrs.getFloat("alpha", 0.01f)));
}
KernelFn makeCpuKernel_Elu(const Op& op, KernelContext& kc) {
  const double alpha = op.attrs.getFloat("alpha", 1.0f);
  return numericUnary(op, kc, [alpha](auto x) { return x > 0 ? x : static_cast<decltype(x)>(alpha * std::expm1(x)); });
}
KernelFn makeCpuKernel_Selu(const Op& op, KernelContext& kc) {
  const double alpha = op.attrs.getFloat("alpha", 1.67326319217681884765625f);
  const double gamma = op.attrs.getFloat("gamma", 1.05070102214813232421875f);
  return numericUnary(
      op, kc, [=](auto x) { return static_cast<decltype(x)>(x > 0 ? gamma * x : gamma * alpha * std::expm1(x)); });
}
KernelFn makeCpuKernel_Celu(const Op& op, KernelContext& kc) {
  const double alpha = op.attrs.getFloat("alpha", 1.0f);
  return numericUnary(op, kc, [=](auto x) {
    using T = decltype(x);
    return static_cast<T>(std::max<double>(0, x) + std::min<double>(0, alpha * std::expm1(x / alpha)));
  });
}
KernelFn makeCpuKernel_Sigmoid(const Op& op, KernelContext& kc) {
  return activation(op, kc, Activation::sigmoid());
}
KernelFn makeCpuKernel_HardSigmoid(const Op& op, KernelContext& kc) {
  const double alpha = op.attrs.getFloat("alpha", 0.2f), beta = op.attrs.getFloat("beta", 0.5f);
  return numericUnary(op, kc,
                      [=](auto x) { return static_cast<decltype(x)>(std::max(0.0, std::min(1.0, alpha * x + beta))); });
}
KernelFn makeCpuKernel_HardSwish(const Op& op, KernelContext& kc) {
  return numericUnary(op, kc,
                      [](auto x) { return static_cast<decltype(x)>(x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5))); });
}
KernelFn makeCpuKernel_Tanh(const Op& op, KernelContext& kc) {
  return activation(op, kc, Activation::tanh());
}
KernelFn makeCpuKernel_Softplus(const Op& op, KernelContext& kc) {
  return numericUnary(op, kc, [](auto x) {
    using T = decltype(x);
    return static_cast<T>(x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)));
  });
}
KernelFn makeCpuKernel_Softsign(const Op& op, KernelContext& kc) {
  return numericUnary(op, kc, [](auto x) { return x / (1 + (x < 0 ? -x : x)); });
}
KernelFn makeCpuKernel_ThresholdedRelu(const Op& op, KernelContext& kc) {
  const double alpha = op.attrs.getFloat("alpha", 1.0f);
  return numericUnary(op, kc, [=](auto x) { return x > alpha ? x : decltype(x)(0); });
}
KernelFn makeCpuKernel_GcGelu(const Op& op, KernelContext& kc) {
  return activation(op, kc, Activation::gelu());
}
KernelFn makeCpuKernel_GcSwish(const Op& op, KernelContext& kc) {
  return numericUnary(op, kc, [](auto x) { return static_cast<decltype(x)>(x / (1 + std::exp(-x))); });
}
/// GeluErf: the exact GELU, x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))), evaluated in double.
KernelFn makeCpuKernel_GcGeluErf(const Op& op, KernelContext& kc) {
  return numericUnary(op, kc, [](auto x) {
    const double v = static_cast<double>(x);
    return static_cast<decltype(x)>(0.5 * v * (1.0 + std::erf(v * 0.7071067811865476)));
  });
}

KernelFn makeCpuKernel_Shrink(const Op& op, KernelContext& kc) {
  const double bias = op.attrs.getFloat("bias", 0.0f), lambd = op.attrs.getFloat("lambd", 0.5f);
  return numericUnary(op, kc, [=](auto x) {
    using T = decltype(x);
    const double v = static_cast<double>(x);
    return static_cast<T>(v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0));
  });
}

KernelFn makeCpuKernel_PRelu(const Op& op, KernelContext& kc) {
  return dispatchNumeric(op.inType(0), [&](auto tag) {
    using T = decltype(tag);
    return binaryKernel<T, T>(op, kc, [](auto x, auto slope) { return x < 0 ? x * slope : x; });
  });
}

KernelFn makeCpuKernel_Clip(const Op& op, KernelContext& kc) {
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    const int x = kc.in(0), y = kc.out(0), lo = kc.in(1), hi = kc.in(2);
    const int64_t n = op.inInfo(0).nelms();
    C fixedLo = std::numeric_limits<C>::lowest(), fixedHi = std::numeric_limits<C>::max();
    if constexpr (std::is_floating_point_v<C>) {
      fixedLo = -std::numeric_limits<C>::infinity();
      fixedHi = std::numeric_limits<C>::infinity();
    }
    if (op.opset() < 11) {
      fixedLo = static_cast<C>(op.attrs.getFloat("min", -std::numeric_limits<float>::max()));
      fixedHi = static_cast<C>(op.attrs.getFloat("max", std::numeric_limits<float>::max()));
    }
    const bool f32 = std::is_same_v<T, float>;
    return [=](const RunState& s) {
      C l = fixedLo, h = fixedHi;
      if (lo >= 0) l = static_cast<C>(*inPtr<T>(s, lo));
      if (hi >= 0) h = static_cast<C>(*inPtr<T>(s, hi));
      const T* a = inPtr<T>(s, x);
      T* b = outPtr<T>(s, y);
      if constexpr (f32) {
        applyActivation(Activation::clip(l, h), a, b, n);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const C v = static_cast<C>(a[i]);
          b[i] = static_cast<T>(v < l ? l : (v > h ? h : v));
        }
      }
    };
  });
}

KernelFn makeCpuKernel_Softmax(const Op& op, KernelContext& kc) {
  return softmaxKernel(op, kc, SoftKind::Softmax);
}
KernelFn makeCpuKernel_LogSoftmax(const Op& op, KernelContext& kc) {
  return softmaxKernel(op, kc, SoftKind::LogSoftmax);
}
KernelFn makeCpuKernel_Hardmax(const Op& op, KernelContext& kc) {
  return softmaxKernel(op, kc, SoftKind::Hardmax);
}

}  // namespace cpu
}  // namespace popart
