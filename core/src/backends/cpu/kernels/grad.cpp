// CPU kernels of the internal training ops: gradient ops and weight updates.
#include <algorithm>
#include <cmath>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/gc_nll.hpp"
#include "backends/cpu/kernels/optim_util.hpp"
#include "backends/cpu/kernels/vec_math.hpp"
#include "ops/losses.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {
namespace {

/// dx[i] = f(dy[i], y[i]) over same-shaped tensors.
template <typename F>
KernelFn activationGrad(const Op& op, KernelContext& kc, F f) {
  const int64_t n = op.inInfo(0).nelms();
  const int dy = kc.in(0), y = kc.in(1), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const T* Y = inPtr<T>(s, y);
      T* DX = outPtr<T>(s, dx);
      for (int64_t i = 0; i < n; ++i) DX[i] = static_cast<T>(f(static_cast<CT>(DY[i]), static_cast<CT>(Y[i])));
    };
  });
}

/// Softmax-family gradients along `axis`: g(dy row, y row) -> dx row (strided by `inner`).
KernelFn softmaxGrad(const Op& op, KernelContext& kc, bool logSoftmax) {
  const Shape& s = op.inShape(1);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(s.size()));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  const int64_t len = s.empty() ? 1 : s[static_cast<size_t>(axis)];
  const int dy = kc.in(0), y = kc.in(1), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& st) {
      const T* DY = inPtr<T>(st, dy);
      const T* Y = inPtr<T>(st, y);
      T* DX = outPtr<T>(st, dx);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
          const int64_t base = o * len * inner + in;
          double acc = 0;
          for (int64_t k = 0; k < len; ++k) {
            const int64_t i = base + k * inner;
            const double g = static_cast<CT>(DY[i]);
            acc += logSoftmax ? g : g * static_cast<double>(static_cast<CT>(Y[i]));
          }
          for (int64_t k = 0; k < len; ++k) {
            const int64_t i = base + k * inner;
            const double g = static_cast<CT>(DY[i]), yv = static_cast<CT>(Y[i]);
            DX[i] = static_cast<T>(static_cast<CT>(logSoftmax ? g - std::exp(yv) * acc : yv * (g - acc)));
          }
        }
      }
    };
  });
}

/// The loss gradient for element i: the incoming gradient (a scalar for Sum / Mean, one per
/// element for NoReduction), divided by the element count for Mean.
template <typename T>
double lossGradAt(const T* dl, bool perElement, int64_t i) {
  return static_cast<double>(static_cast<compute_t<T>>(perElement ? dl[i] : dl[0]));
}

/// The gradient of an elementwise loss weight·sum(l(x)): dx[i] = dl'(x[i]) · weight · the
/// incoming gradient (lossGradAt), with the weight divided by the element count for Mean.
template <typename F>
KernelFn elementwiseLossGrad(const Op& op, KernelContext& kc, double weight, F derivative) {
  const int64_t n = op.inInfo(0).nelms();
  const ReductionType red = ops::lossReduction(op);
  const double scale = red == ReductionType::Mean ? weight / static_cast<double>(std::max<int64_t>(n, 1)) : weight;
  const bool perElement = red == ReductionType::NoReduction;
  const int x = kc.in(0), dl = kc.in(1), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      const T* DL = inPtr<T>(s, dl);
      T* DX = outPtr<T>(s, dx);
      for (int64_t i = 0; i < n; ++i) {
        const double d = derivative(static_cast<double>(static_cast<CT>(X[i])));
        DX[i] = static_cast<T>(static_cast<CT>(d * scale * lossGradAt(DL, perElement, i)));
      }
    };
  });
}

}  // namespace

KernelFn makeCpuKernel_ReluGrad(const Op& op, KernelContext& kc) {
  return activationGrad(op, kc, [](auto g, auto y) { return y > 0 ? g : decltype(g)(0); });
}
KernelFn makeCpuKernel_SigmoidGrad(const Op& op, KernelContext& kc) {
  return activationGrad(op, kc, [](auto g, auto y) { return g * y * (decltype(g)(1) - y); });
}
KernelFn makeCpuKernel_TanhGrad(const Op& op, KernelContext& kc) {
  return activationGrad(op, kc, [](auto g, auto y) { return g * (decltype(g)(1) - y * y); });
}
KernelFn makeCpuKernel_SoftmaxGrad(const Op& op, KernelContext& kc) {
  return softmaxGrad(op, kc, false);
}
KernelFn makeCpuKernel_LogSoftmaxGrad(const Op& op, KernelContext& kc) {
  return softmaxGrad(op, kc, true);
}

KernelFn makeCpuKernel_GcNllGrad(const Op& op, KernelContext& kc) {
  const GcNllArgs a(op, kc);
  const bool perSample = a.red == ReductionType::NoReduction;
  const int p = kc.in(0), dl = kc.in(2), dp = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    constexpr double eps = GcNllArgs::eps<T>();
    return [=](const RunState& s) {
      const T* P = inPtr<T>(s, p);
      const T* DL = inPtr<T>(s, dl);
      T* DP = outPtr<T>(s, dp);
      std::fill(DP, DP + a.S * a.C, static_cast<T>(CT(0)));
      const double scale = a.gradScale(s);
      a.forEachLabelled(s, [&](int64_t i, int64_t c) {
        const double g = lossGradAt(DL, perSample, i) * scale;
        const double v = static_cast<CT>(P[i * a.C + c]);
        const double d = a.logProb ? -g : (v > eps ? -g / v : 0.0);
        DP[i * a.C + c] = static_cast<T>(static_cast<CT>(d));
      });
    };
  });
}

KernelFn makeCpuKernel_GcL1Grad(const Op& op, KernelContext& kc) {
  const double lambda = op.attrs.getFloat("lambda");
  return elementwiseLossGrad(op, kc, lambda, [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); });
}

KernelFn makeCpuKernel_GcIdentityLossGrad(const Op& op, KernelContext& kc) {
  if (ops::isFloatType(op.inType(0))) return elementwiseLossGrad(op, kc, 1.0, [](double) { return 1.0; });
  // An integer loss (PopART differentiates it: the gradient has the loss's type): the incoming
  // gradient, spread (Sum, NoReduction) or divided by the element count (Mean, truncated).
  const int64_t n = op.inInfo(0).nelms();
  const ReductionType red = ops::lossReduction(op);
  const bool perElement = red == ReductionType::NoReduction;
  const int64_t div = red == ReductionType::Mean ? std::max<int64_t>(n, 1) : 1;
  const int dl = kc.in(1), dx = kc.out(0);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* DL = inPtr<T>(s, dl);
      T* DX = outPtr<T>(s, dx);
      for (int64_t i = 0; i < n; ++i) DX[i] = static_cast<T>((perElement ? DL[i] : DL[0]) / static_cast<T>(div));
    };
  });
}

// SGD with the compound scalars of popart/sgd.hpp (the reference: optimizers/optimizer_math):
//   SGD0: w <- w·wdsf0 - slr0·g
//   SGD1: v += dpsf1·g (every micro-batch: v is also the accumulator); on the update micro-batch
//         w -= slr1·v (nesterov: slr1·(dpsf1·g + swd1·w + smm1·v)), then v <- smm1·v + swd1·w,
//         so that changes of mm, dm and wd take effect one step late
//   SGD2: v <- smm2·v + dpsf2·g + swd1·w; w -= slr2·v (nesterov: slr2·(dpsf2·g + swd1·w + smm2·v))
// With gradient accumulation, g is the accumulator Accum___w, which is zeroed after the update
// (preAccumulated: g is a GradAccumulate's accumulator, read on the last micro-batch only).
KernelFn makeCpuKernel_SGDVarUpdate(const Op& op, KernelContext& kc) {
  using namespace optim;
  const int64_t n = op.inInfo(popart::optim::kWeight).nelms();
  const int64_t mode = op.attrs.getInt("mode", 0);
  const bool nesterov = op.attrs.getInt("nesterov", 0) != 0;
  const FBuf w = fbuf(op, kc, popart::optim::kWeight), g = fbuf(op, kc, popart::optim::kGrad);
  const FBuf v = fbuf(op, kc, popart::optim::kState0);
  const Accumulation acc = accumulation(op, kc);
  const std::vector<Scalar> sc = scalars(op, kc);
  const bool fused = w.type == DataType::FLOAT && g.type == DataType::FLOAT && v.present() && v.type == DataType::FLOAT;
  return [=](const RunState& s) {
    double W[kBlock], G[kBlock], V[kBlock];
    const double slr = sc[0].get(s);
    if (mode == 0) {
      if (acc.accum.present()) acc.accumulate(s, g, n);
      if (!acc.isLast(s)) return;
      const FBuf& gr = acc.accum.present() ? acc.accum : g;
      const double wdsf0 = sc[1].get(s);
      for (int64_t off = 0; off < n; off += kBlock) {
        const int64_t m = std::min(kBlock, n - off);
        w.load(s, off, m, W);
        gr.load(s, off, m, G);
        for (int64_t i = 0; i < m; ++i) W[i] = W[i] * wdsf0 - slr * G[i];
        w.store(s, off, m, W);
      }
      if (acc.accum.present()) acc.accum.zero(s, n);
      return;
    }
    const double dpsf = sc[1].get(s), smm = sc[2].get(s), swd = sc[3].get(s);
    if (mode == 1 && !acc.accum.present() && !acc.enabled() && fused) {
      // FLOAT SGD1 without accumulation: one pass in float arithmetic (as PopART's IPU code and
      // PyTorch compute it) on the instruction-set copy (vec_math.hpp); the other paths compute
      // in double.
      vecKernels().sgd1(static_cast<float*>(s.slots[w.slot]), static_cast<float*>(s.slots[v.slot]),
                        static_cast<const float*>(s.slots[g.slot]), n, static_cast<float>(dpsf),
                        static_cast<float>(slr), static_cast<float>(smm), static_cast<float>(swd), nesterov);
      return;
    }
    if (mode == 1 && acc.preAccumulated && !acc.isLast(s)) return;  // g is whole on the last one only
    if (mode == 1) {
      // The running mean divides each micro-batch's contribution by the factor (an accumulated
      // gradient is the mean already).
      const double contrib = acc.runningMean && !acc.preAccumulated ? dpsf / static_cast<double>(acc.factor) : dpsf;
      for (int64_t off = 0; off < n; off += kBlock) {
        const int64_t m = std::min(kBlock, n - off);
        v.load(s, off, m, V);
        g.load(s, off, m, G);
        for (int64_t i = 0; i < m; ++i) V[i] += contrib * G[i];
        v.store(s, off, m, V);
      }
    }
    if (acc.accum.present()) acc.accumulate(s, g, n);
    if (!acc.isLast(s)) return;
    const FBuf& gr = acc.accum.present() ? acc.accum : g;
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      w.load(s, off, m, W);
      v.load(s, off, m, V);
      if (mode == 2 || nesterov) gr.load(s, off, m, G);
      for (int64_t i = 0; i < m; ++i) {
        if (mode == 2) V[i] = smm * V[i] + dpsf * G[i] + swd * W[i];
        const double upd = nesterov ? dpsf * G[i] + swd * W[i] + smm * V[i] : V[i];
        W[i] -= slr * upd;
        if (mode == 1) V[i] = smm * V[i] + swd * W[i];
      }
      w.store(s, off, m, W);
      v.store(s, off, m, V);
    }
    if (acc.accum.present()) acc.accum.zero(s, n);
  };
}

}  // namespace cpu
}  // namespace popart
