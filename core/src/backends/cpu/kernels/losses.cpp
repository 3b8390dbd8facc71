// CPU kernels of Graphcore's losses (forward).
#include <algorithm>
#include <cmath>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/gc_nll.hpp"
#include "common/checked_size.hpp"
#include "ops/losses.hpp"

namespace popart {
namespace cpu {
namespace {

template <typename T>
void reduceInto(const std::vector<double>& v, ReductionType r, double divisor, T* out) {
  if (r == ReductionType::NoReduction) {
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(static_cast<compute_t<T>>(v[i]));
    return;
  }
  double sum = 0;
  for (double x : v) sum += x;
  if (r == ReductionType::Mean) sum = divisor > 0 ? sum / divisor : 0.0;
  out[0] = static_cast<T>(static_cast<compute_t<T>>(sum));
}

/// A loss of one term per element, term(x[i]), reduced by the op's reduction.
template <typename F>
KernelFn elementwiseLoss(const Op& op, KernelContext& kc, F term) {
  const int64_t n = op.inInfo(0).nelms();
  const ReductionType red = ops::lossReduction(op);
  const int x = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      std::vector<double> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = term(static_cast<double>(static_cast<compute_t<T>>(X[i])));
      reduceInto(v, red, static_cast<double>(n), outPtr<T>(s, y));
    };
  });
}

// ONNX NegativeLogLikelihoodLoss on log-probabilities lp [N, C, D] (D = product of the extra
// dims) with targets [N, D], optional weights [C], reduction mean / sum / none.
template <typename T>
void onnxNll(const T* lp, const void* target, bool t64, const T* w, int64_t N, int64_t C, int64_t D, bool hasIgnore,
             int64_t ignore, const std::string& red, T* out, const std::string& where) {
  using CT = compute_t<T>;
  double sum = 0, wsum = 0;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t d = 0; d < D; ++d) {
      const int64_t t =
          t64 ? static_cast<const int64_t*>(target)[n * D + d] : static_cast<const int32_t*>(target)[n * D + d];
      double l = 0, wt = 0;
      if (!(hasIgnore && t == ignore)) {
        if (t < 0 || t >= C) throw error("{}: target {} is out of range for {} classes", where, t, C);
        wt = w ? static_cast<double>(static_cast<CT>(w[t])) : 1.0;
        l = -wt * static_cast<double>(static_cast<CT>(lp[(n * C + t) * D + d]));
      }
      if (red == "none") out[n * D + d] = static_cast<T>(static_cast<CT>(l));
      sum += l;
      wsum += wt;
    }
  }
  if (red == "sum") out[0] = static_cast<T>(static_cast<CT>(sum));
  if (red == "mean") out[0] = static_cast<T>(static_cast<CT>(wsum != 0 ? sum / wsum : 0.0));
}

KernelFn onnxLossKernel(const Op& op, KernelContext& kc, bool softmax) {
  const Shape& x = op.inShape(0);
  const int64_t N = x[0], C = x[1];
  const int64_t D = N * C != 0 ? op.inInfo(0).nelms() / (N * C) : 0;
  const std::string red = op.attrs.getString("reduction", "mean");
  const bool hasIgnore = op.attrs.has("ignore_index");
  const int64_t ignore = op.attrs.getInt("ignore_index", 0);
  const bool t64 = op.inType(1) == DataType::INT64;
  const int xi = kc.in(0), ti = kc.in(1), wi = kc.in(2), yo = kc.out(0), lpo = kc.out(1);
  const std::string where = op.describe();
  if (softmax && lpo < 0) kc.needScratch(checkedProduct({op.inInfo(0).nelms(), 8}));
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, xi);
      const T* W = wi >= 0 ? inPtr<T>(s, wi) : nullptr;
      const T* lp = X;
      if (softmax) {
        T* L = lpo >= 0 ? outPtr<T>(s, lpo) : reinterpret_cast<T*>(s.scratch);
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t d = 0; d < D; ++d) {
            double mx = -1e300, sum = 0;
            for (int64_t c = 0; c < C; ++c)
              mx = std::max(mx, static_cast<double>(static_cast<CT>(X[(n * C + c) * D + d])));
            for (int64_t c = 0; c < C; ++c)
              sum += std::exp(static_cast<double>(static_cast<CT>(X[(n * C + c) * D + d])) - mx);
            const double lse = mx + std::log(sum);
            for (int64_t c = 0; c < C; ++c)
              L[(n * C + c) * D + d] =
                  static_cast<T>(static_cast<CT>(static_cast<double>(static_cast<CT>(X[(n * C + c) * D + d])) - lse));
          }
        }
        lp = L;
      }
      onnxNll<T>(lp, s.slots[ti], t64, W, N, C, D, hasIgnore, ignore, red, outPtr<T>(s, yo), where);
    };
  });
}

}  // namespace

KernelFn makeCpuKernel_NegativeLogLikelihoodLoss(const Op& op, KernelContext& kc) {
  return onnxLossKernel(op, kc, false);
}
KernelFn makeCpuKernel_SoftmaxCrossEntropyLoss(const Op& op, KernelContext& kc) {
  return onnxLossKernel(op, kc, true);
}

namespace {

/// PopART's Nll of the probabilities P (or log-probabilities) into `out`, reduced by the op's
/// reduction (Mean over the samples not ignored).
template <typename T>
void nllLoss(const GcNllArgs& a, const RunState& s, const T* P, T* out) {
  std::vector<double> loss(static_cast<size_t>(a.S));  // 0 for the ignored samples
  int64_t counted = 0;
  a.forEachLabelled(s, [&](int64_t i, int64_t c) {
    const double v = static_cast<double>(static_cast<compute_t<T>>(P[i * a.C + c]));
    loss[static_cast<size_t>(i)] = a.logProb ? -v : -std::log(std::max(v, GcNllArgs::eps<T>()));
    ++counted;
  });
  reduceInto(loss, a.red, static_cast<double>(counted), out);
}

/// The gradient of Nll(Softmax(x)) by x, from the softmax's output P: for each sample i not
/// ignored, dLoss_i * scale * (P[i, :] - onehot(label_i)) (scale 1 / samples counted for Mean);
/// 0 for the ignored ones. Unlike NllGrad then SoftmaxGrad, it never divides by P.
template <typename T>
void softmaxNllGrad(const GcNllArgs& a, const RunState& s, const T* P, const T* DL, T* DX) {
  using CT = compute_t<T>;
  std::fill(DX, DX + a.S * a.C, static_cast<T>(CT(0)));
  const double scale = a.gradScale(s);
  const bool perSample = a.red == ReductionType::NoReduction;
  a.forEachLabelled(s, [&](int64_t i, int64_t label) {
    const double g = static_cast<double>(static_cast<CT>(perSample ? DL[i] : DL[0])) * scale;
    for (int64_t c = 0; c < a.C; ++c) {
      const double p = static_cast<CT>(P[i * a.C + c]);
      DX[i * a.C + c] = static_cast<T>(static_cast<CT>(g * (c == label ? p - 1.0 : p)));
    }
  });
}

}  // namespace

KernelFn makeCpuKernel_GcNll(const Op& op, KernelContext& kc) {
  const GcNllArgs a(op, kc);
  const int p = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) { nllLoss(a, s, inPtr<T>(s, p), outPtr<T>(s, y)); };
  });
}

KernelFn makeCpuKernel_SoftmaxGradDirect(const Op& op, KernelContext& kc) {
  const GcNllArgs a(op, kc);
  const int p = kc.in(0), dl = kc.in(2), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) { softmaxNllGrad(a, s, inPtr<T>(s, p), inPtr<T>(s, dl), outPtr<T>(s, dx)); };
  });
}

KernelFn makeCpuKernel_NlllWithSoftmaxGradDirect(const Op& op, KernelContext& kc) {
  const GcNllArgs a(op, kc);
  const int p = kc.in(0), dl = kc.in(2), y = kc.out(0), dx = kc.out(1);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* P = inPtr<T>(s, p);
      nllLoss(a, s, P, outPtr<T>(s, y));
      softmaxNllGrad(a, s, P, inPtr<T>(s, dl), outPtr<T>(s, dx));
    };
  });
}

KernelFn makeCpuKernel_GcL1(const Op& op, KernelContext& kc) {
  const double lambda = op.attrs.getFloat("lambda");
  return elementwiseLoss(op, kc, [lambda](double v) { return lambda * std::abs(v); });
}

KernelFn makeCpuKernel_GcIdentityLoss(const Op& op, KernelContext& kc) {
  return elementwiseLoss(op, kc, [](double v) { return v; });
}

}  // namespace cpu
}  // namespace popart
