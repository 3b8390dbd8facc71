// CPU kernels of the Adam and Adaptive weight updates, of the gradient-accumulation counter and of
// automatic loss scaling (Histogram, LossScaleUpdate).
// The equations are those of popart/adam.hpp and popart/adaptive.hpp, computed in double like the
// reference steps of optimizers/optimizer_math.cpp, with the same per-element formulas
// (optimizers/update_rules.hpp). Input layout: ops/optim.hpp.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/optim_util.hpp"
#include "optimizers/update_rules.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"

namespace popart {
namespace cpu {

using namespace optim;
namespace layout = popart::optim;

// Adam, AdamNoBias, AdaMax, Lamb, LambNoBias. With scaledOptimizerState, m is stored ×ls and v
// ×ls² (AdaMax: ×ls): the same update, another range for the stored values.
KernelFn makeCpuKernel_AdamVarUpdate(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(layout::kWeight).nelms();
  const auto mode = static_cast<AdamMode>(op.attrs.getInt("mode", 0));
  const bool l2 = static_cast<WeightDecayMode>(op.attrs.getInt("decayMode", 0)) == WeightDecayMode::L2Regularization;
  const bool scaled = op.attrs.getInt("scaledOptimizerState", 0) != 0;
  const bool adaMax = mode == AdamMode::AdaMax;
  const bool lamb = mode == AdamMode::Lamb || mode == AdamMode::LambNoBias;
  const bool correctM = mode == AdamMode::Adam || mode == AdamMode::Lamb || adaMax;
  const bool correctV = mode == AdamMode::Adam || mode == AdamMode::Lamb;
  const FBuf w = fbuf(op, kc, layout::kWeight), g = fbuf(op, kc, layout::kGrad);
  const FBuf mb = fbuf(op, kc, layout::kState0), vb = fbuf(op, kc, layout::kState0 + 1);
  const FBuf step = fbuf(op, kc, layout::kState0 + 2);
  const Accumulation acc = accumulation(op, kc);
  const std::vector<Scalar> sc = scalars(op, kc);
  return [=](const RunState& s) {
    if (acc.accum.present()) acc.accumulate(s, g, n);
    if (!acc.isLast(s)) return;
    const FBuf& gr = acc.accum.present() ? acc.accum : g;
    const double lr = sc[0].get(s), wd = sc[1].get(s), b1 = sc[2].get(s), b2 = sc[3].get(s);
    const double eps = sc[4].get(s), mwn = sc[5].get(s), gs = sc[6].get(s);
    const double ls = scaled ? sc[7].get(s) : 1.0;
    const double mScale = ls, vScale = adaMax ? ls : ls * ls;
    double t = 1.0;
    if (step.present()) {
      t = step.get(s) + 1.0;
      step.set(s, t);
    }
    const double c1 = correctM ? 1.0 - std::pow(b1, t) : 1.0;
    const double c2 = correctV ? 1.0 - std::pow(b2, t) : 1.0;
    double W[kBlock], G[kBlock], M[kBlock], V[kBlock];
    auto update = [&](int64_t i) {
      const double mhat = M[i] / c1, vhat = V[i] / c2;
      return mhat / ((adaMax ? vhat : std::sqrt(vhat)) + eps) + (l2 ? 0.0 : wd * W[i]);
    };
    double wn2 = 0.0, un2 = 0.0;
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      w.load(s, off, m, W);
      gr.load(s, off, m, G);
      mb.load(s, off, m, M);
      vb.load(s, off, m, V);
      for (int64_t i = 0; i < m; ++i) {
        double sg = G[i] * gs;
        if (l2) sg = update_rules::l2Regularized(sg, W[i], wd);
        M[i] = update_rules::movingAverage(M[i] / mScale, sg, b1);
        const double v = V[i] / vScale;
        V[i] = adaMax ? std::max(b2 * v, std::abs(sg)) : update_rules::movingAverageOfSquare(v, sg, b2);
        const double u = update(i);
        if (lamb) {
          wn2 += W[i] * W[i];
          un2 += u * u;
        } else {
          W[i] -= lr * u;
        }
      }
      if (!lamb) w.store(s, off, m, W);
      for (int64_t i = 0; i < m; ++i) {
        M[i] *= mScale;
        V[i] *= vScale;
      }
      mb.store(s, off, m, M);
      vb.store(s, off, m, V);
    }
    if (lamb) {
      // The trust ratio needs the norms over the whole weight: a second pass applies the update.
      const double r1 = std::min(std::sqrt(wn2), mwn), r2 = std::sqrt(un2);
      const double ratio = (r1 != 0.0 && r2 != 0.0 && mwn != 0.0) ? r1 / r2 : 1.0;
      for (int64_t off = 0; off < n; off += kBlock) {
        const int64_t m = std::min(kBlock, n - off);
        w.load(s, off, m, W);
        mb.load(s, off, m, M);
        vb.load(s, off, m, V);
        for (int64_t i = 0; i < m; ++i) {
          M[i] /= mScale;
          V[i] /= vScale;
          W[i] -= ratio * lr * update(i);
        }
        w.store(s, off, m, W);
      }
    }
    if (acc.accum.present()) acc.accum.zero(s, n);
  };
}

// AdaGrad, RMSProp, CenteredRMSProp, AdaDelta, with or without momentum, and the TF variant.
KernelFn makeCpuKernel_AdaptiveVarUpdate(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(layout::kWeight).nelms();
  const auto mode = static_cast<AdaptiveMode>(op.attrs.getInt("mode", 0));
  const bool l2 = static_cast<WeightDecayMode>(op.attrs.getInt("decayMode", 0)) == WeightDecayMode::L2Regularization;
  const bool tf = op.attrs.getInt("tfVariant", 0) != 0;
  const bool adaGrad = mode == AdaptiveMode::AdaGrad;
  const bool centered = mode == AdaptiveMode::CenteredRMSProp;
  const bool adaDelta = mode == AdaptiveMode::AdaDelta;
  const FBuf w = fbuf(op, kc, layout::kWeight), g = fbuf(op, kc, layout::kGrad);
  const FBuf b1 = fbuf(op, kc, layout::kState0), b2 = fbuf(op, kc, layout::kState0 + 1);
  const FBuf b3 = fbuf(op, kc, layout::kState0 + 2);
  if ((centered || adaDelta) && !b2.present())
    throw error("{}: {} needs its second accumulator", op.describe(), centered ? "CenteredRMSProp" : "AdaDelta");
  const bool momentum = b3.present();
  const Accumulation acc = accumulation(op, kc);
  const std::vector<Scalar> sc = scalars(op, kc);
  return [=](const RunState& s) {
    if (acc.accum.present()) acc.accumulate(s, g, n);
    if (!acc.isLast(s)) return;
    const FBuf& gr = acc.accum.present() ? acc.accum : g;
    const double lr = sc[0].get(s), wd = sc[1].get(s), a = sc[2].get(s), mm = sc[3].get(s);
    const double eps = sc[4].get(s), gs = sc[5].get(s);
    const double wdd = l2 ? 0.0 : wd;
    double W[kBlock], G[kBlock], V1[kBlock], V2[kBlock], V3[kBlock];
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      w.load(s, off, m, W);
      gr.load(s, off, m, G);
      b1.load(s, off, m, V1);
      if (centered || adaDelta) b2.load(s, off, m, V2);
      if (momentum) b3.load(s, off, m, V3);
      for (int64_t i = 0; i < m; ++i) {
        double sg = G[i] * gs;
        if (l2) sg = update_rules::l2Regularized(sg, W[i], wd);
        V1[i] = adaGrad ? update_rules::accumulateSquare(V1[i], sg) : update_rules::movingAverageOfSquare(V1[i], sg, a);
        double x = 0.0;
        if (adaDelta) {
          x = sg * std::sqrt(V2[i] + eps) / std::sqrt(V1[i] + eps);
          V2[i] = a * V2[i] + (1.0 - a) * x * x;
        } else {
          double var = V1[i];
          if (centered) {
            V2[i] = a * V2[i] + (1.0 - a) * sg;
            var = V1[i] - V2[i] * V2[i];
          }
          x = tf ? sg / std::sqrt(var + eps) : update_rules::rmsScaled(sg, var, eps);
        }
        if (!momentum) {
          W[i] -= lr * (x + wdd * W[i]);
        } else if (tf) {
          V3[i] = mm * V3[i] + lr * x;  // TF folds lr into the momentum buffer
          W[i] -= V3[i] + wdd * W[i];
        } else {
          V3[i] = mm * V3[i] + x;
          W[i] -= lr * (V3[i] + wdd * W[i]);
        }
      }
      w.store(s, off, m, W);
      b1.store(s, off, m, V1);
      if (centered || adaDelta) b2.store(s, off, m, V2);
      if (momentum) b3.store(s, off, m, V3);
    }
    if (acc.accum.present()) acc.accum.zero(s, n);
  };
}

KernelFn makeCpuKernel_CopyVarUpdate(const Op& op, KernelContext& kc) {
  const int var = kc.in(0), value = kc.in(1);
  const size_t bytes = static_cast<size_t>(op.inInfo(0).nbytes());
  return [=](const RunState& s) { std::memcpy(s.slots[var], s.slots[value], bytes); };
}

KernelFn makeCpuKernel_GradAccumulate(const Op& op, KernelContext& kc) {
  const FBuf a = fbuf(op, kc, layout::kGaAccum), g = fbuf(op, kc, layout::kGaGrad);
  const int counter = kc.in(layout::kGaCounter);
  const int64_t factor = std::max<int64_t>(1, op.attrs.getInt("accumulationFactor", 1));
  const bool running = op.attrs.getInt("runningMean", 0) != 0;
  const int64_t n = op.inInfo(layout::kGaAccum).nelms();
  return [=](const RunState& s) {
    const int64_t k = *static_cast<const int64_t*>(s.slots[counter]) % factor;
    double A[kBlock], G[kBlock];
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      g.load(s, off, m, G);
      if (k > 0) {
        a.load(s, off, m, A);
        for (int64_t i = 0; i < m; ++i)
          G[i] = running ? A[i] + (G[i] - A[i]) / static_cast<double>(k + 1) : A[i] + G[i];
      }
      a.store(s, off, m, G);
    }
  };
}

KernelFn makeCpuKernel_AccumulationCounterIncrement(const Op& op, KernelContext& kc) {
  const int c = kc.in(0);
  const int64_t factor = std::max<int64_t>(1, op.attrs.getInt("accumulationFactor", 1));
  return [=](const RunState& s) {
    auto* p = static_cast<int64_t*>(s.slots[c]);
    *p = (*p + 1) % factor;
  };
}

// Histogram: a count per bin; the bin of x is the number of levels <= x (NaN: the last bin, as
// above every level: overflowed values count as large ones). Zeros on the steps the period
// counter skips.
KernelFn makeCpuKernel_Histogram(const Op& op, KernelContext& kc) {
  const std::vector<float> levels = op.attrs.getFloats("levels");
  const bool absolute = op.attrs.getInt("absoluteOfInput", 0) != 0;
  const int64_t n = op.inInfo(0).nelms();
  const int x = kc.in(0), y = kc.out(0);
  const bool half = op.inType(0) == DataType::FLOAT16;
  const int gate = op.hasInput(1) ? kc.in(1) : -1;
  const int64_t period = std::max<int64_t>(1, op.attrs.getInt("updatePeriod", 1));
  return [=](const RunState& s) {
    auto* counts = outPtr<uint32_t>(s, y);
    std::fill(counts, counts + levels.size() + 1, 0u);
    if (gate >= 0 && *inPtr<int32_t>(s, gate) % period != 0) return;  // a step without update
    for (int64_t i = 0; i < n; ++i) {
      float v = half ? static_cast<float>(inPtr<float16_t>(s, x)[i]) : inPtr<float>(s, x)[i];
      if (absolute) v = std::fabs(v);
      size_t bin = levels.size();
      if (!std::isnan(v)) bin = static_cast<size_t>(std::upper_bound(levels.begin(), levels.end(), v) - levels.begin());
      ++counts[bin];
    }
  };
}

// LossScaleUpdate (PopART's rule): with u and l the upper and lower counts and t the threshold,
// the factor is halved when u > l * t / (1 - t) (in float), doubled otherwise, then clipped at
// 2^15 / lossScaling when "clipOutput". With gradient accumulation the counts of the step's
// micro-batches are summed first and the update runs on the last one; with updatePeriod P only
// the steps 0, P, 2P, ... update.
KernelFn makeCpuKernel_LossScaleUpdate(const Op& op, KernelContext& kc) {
  using namespace layout;
  const float t = op.attrs.getFloat("thresholdUpperCountProportion");
  const float f = t / (1.0f - t);
  const int64_t period = std::max<int64_t>(1, op.attrs.getInt("updatePeriod", 1));
  const int64_t af = std::max<int64_t>(1, op.attrs.getInt("accumulationFactor", 1));
  const bool clip = op.attrs.getInt("clipOutput", 0) != 0;
  const FBuf factor = fbuf(op, kc, kAlsFactor), ls = fbuf(op, kc, kAlsLossScaling);
  const int stats = kc.in(kAlsStatistics);
  const int accum = op.hasInput(kAlsStatsAccum) ? kc.in(kAlsStatsAccum) : -1;
  const int counter = op.hasInput(kAlsCounter) ? kc.in(kAlsCounter) : -1;
  const int periodCounter = op.hasInput(kAlsPeriodCounter) ? kc.in(kAlsPeriodCounter) : -1;
  const bool halfFactor = op.inType(kAlsFactor) == DataType::FLOAT16;
  return [=](const RunState& s) {
    const float* st = inPtr<float>(s, stats);
    float lower = st[0], upper = st[1];
    if (accum >= 0) {
      auto* a = outPtr<float>(s, accum);
      a[0] += lower;
      a[1] += upper;
      if (*inPtr<int64_t>(s, counter) % af != af - 1) return;  // not the step's last micro-batch
      lower = a[0];
      upper = a[1];
      a[0] = a[1] = 0.0f;
    }
    if (periodCounter >= 0) {
      auto* c = outPtr<int32_t>(s, periodCounter);
      const bool update = *c % period == 0;
      *c = static_cast<int32_t>((*c + 1) % period);
      if (!update) return;
    }
    const bool down = upper > lower * f;
    if (halfFactor) {
      // The factor's own arithmetic (FLOAT16): exact, as it is a power of two times 2 or 0.5.
      auto* p = outPtr<float16_t>(s, factor.slot);
      float v = static_cast<float>(*p) * (down ? 0.5f : 2.0f);
      if (clip) v = std::min(v, static_cast<float>(float16_t(32768.0f / static_cast<float>(ls.get(s)))));
      *p = float16_t(v);
    } else {
      auto* p = outPtr<float>(s, factor.slot);
      float v = *p * (down ? 0.5f : 2.0f);
      if (clip) v = std::min(v, 32768.0f / static_cast<float>(ls.get(s)));
      *p = v;
    }
  };
}

}  // namespace cpu
}  // namespace popart
