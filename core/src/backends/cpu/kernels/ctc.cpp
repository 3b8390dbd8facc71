// CPU kernels of the ctc family: the CTC loss (alpha recursion in log space, in double), its
// gradient (alpha and beta: the exact derivative w.r.t. the log-probabilities) and the CTC prefix
// beam search decoder.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/ctc_params.hpp"

namespace popart {
namespace cpu {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double logAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

struct CtcSlots {
  int lp, targets, inLens, tgtLens, lossOrGrad, sampleGrad;
  DataType lpType, targetsType, inLensType, tgtLensType, outType;
};

/// One sample's loss -log p(target | logProbs) and, when `grad` is given, its gradient w.r.t. the
/// sample's log-probabilities ([T, C] with stride `ldT` between steps), scaled by `scale`.
class CtcSample {
 public:
  CtcSample(const ops::CtcParams& p, LoadFn load, const void* lp, int64_t n) : p_(p), load_(load), lp_(lp), n_(n) {}

  double lp(int64_t t, int64_t c) const { return load_(lp_, (t * p_.batch + n_) * p_.classes + c); }

  /// Sets the extended label (blanks around and between the target's labels) and the lengths.
  void setTarget(const std::vector<int64_t>& labels, int64_t inputLength) {
    ext_.assign(1, p_.blank);
    for (int64_t l : labels) {
      ext_.push_back(l);
      ext_.push_back(p_.blank);
    }
    T_ = inputLength;
  }

  /// -log p; alpha_ holds the forward variables (log space).
  double forward() {
    const int64_t L = static_cast<int64_t>(ext_.size());
    alpha_.assign(static_cast<size_t>(std::max<int64_t>(T_, 1) * L), kNegInf);
    if (T_ == 0) return L == 1 ? 0.0 : std::numeric_limits<double>::infinity();
    alpha_[0] = lp(0, ext_[0]);
    if (L > 1) alpha_[1] = lp(0, ext_[1]);
    for (int64_t t = 1; t < T_; ++t) {
      for (int64_t s = 0; s < L; ++s) {
        double a = alpha_[idx(t - 1, s)];
        if (s >= 1) a = logAdd(a, alpha_[idx(t - 1, s - 1)]);
        if (s >= 2 && ext_[s] != p_.blank && ext_[s] != ext_[s - 2]) a = logAdd(a, alpha_[idx(t - 1, s - 2)]);
        alpha_[idx(t, s)] = a == kNegInf ? kNegInf : a + lp(t, ext_[s]);
      }
    }
    double ll = alpha_[idx(T_ - 1, L - 1)];
    if (L > 1) ll = logAdd(ll, alpha_[idx(T_ - 1, L - 2)]);
    return -ll;
  }

  /// Adds scale * d(-log p)/d logProbs[t, n, c] into `g` (the [T, N, C] gradient, as double);
  /// forward() must have run and returned `nll` (finite).
  void backward(double nll, double scale, std::vector<double>& g) {
    if (T_ == 0) return;  // no steps: nothing to differentiate (the empty target's loss is 0)
    const int64_t L = static_cast<int64_t>(ext_.size());
    std::vector<double> beta(static_cast<size_t>(T_ * L), kNegInf);
    beta[idx(T_ - 1, L - 1)] = lp(T_ - 1, ext_[L - 1]);
    if (L > 1) beta[idx(T_ - 1, L - 2)] = lp(T_ - 1, ext_[L - 2]);
    for (int64_t t = T_ - 2; t >= 0; --t) {
      for (int64_t s = 0; s < L; ++s) {
        double b = beta[idx(t + 1, s)];
        if (s + 1 < L) b = logAdd(b, beta[idx(t + 1, s + 1)]);
        if (s + 2 < L && ext_[s] != p_.blank && ext_[s] != ext_[s + 2]) b = logAdd(b, beta[idx(t + 1, s + 2)]);
        beta[idx(t, s)] = b == kNegInf ? kNegInf : b + lp(t, ext_[s]);
      }
    }
    // d log p / d lp[t, c] = sum over s with ext[s] = c of exp(alpha + beta - lp[t, c] - log p).
    for (int64_t t = 0; t < T_; ++t) {
      for (int64_t s = 0; s < L; ++s) {
        const double ab = alpha_[idx(t, s)] + beta[idx(t, s)];
        if (ab == kNegInf) continue;
        const int64_t c = ext_[s];
        g[static_cast<size_t>((t * p_.batch + n_) * p_.classes + c)] -= scale * std::exp(ab - lp(t, c) + nll);
      }
    }
  }

 private:
  size_t idx(int64_t t, int64_t s) const { return static_cast<size_t>(t * static_cast<int64_t>(ext_.size()) + s); }

  const ops::CtcParams& p_;
  LoadFn load_;
  const void* lp_;
  int64_t n_;
  int64_t T_ = 0;
  std::vector<int64_t> ext_;
  std::vector<double> alpha_;
};

/// Each sample's target labels and input length, read from the run's integer inputs.
void readSample(const ops::CtcParams& p, const CtcSlots& sl, const RunState& s, int64_t n, std::vector<int64_t>& labels,
                int64_t& inputLength) {
  const int64_t T = std::clamp<int64_t>(indexAt(s.slots[sl.inLens], sl.inLensType, n), 0, p.maxTime);
  const int64_t L = std::clamp<int64_t>(indexAt(s.slots[sl.tgtLens], sl.tgtLensType, n), 0, p.maxTarget);
  labels.resize(static_cast<size_t>(L));
  for (int64_t i = 0; i < L; ++i) {
    const int64_t c = indexAt(s.slots[sl.targets], sl.targetsType, n * p.maxTarget + i);
    if (c < 0 || c >= p.classes || c == p.blank)
      throw error("ctcloss: target {} of sample {} is {}, not a class other than the blank ({}) in [0, {})", i, n, c,
                  p.blank, p.classes);
    labels[static_cast<size_t>(i)] = c;
  }
  inputLength = T;
}

/// The factor of sample n's loss in the reduced loss.
double reductionScale(const ops::CtcParams& p, int64_t targetLength) {
  if (p.reduction == ReductionType::Mean)
    return 1.0 / (static_cast<double>(std::max<int64_t>(targetLength, 1)) * static_cast<double>(p.batch));
  return 1.0;
}

/// Ctc: the (reduced) loss, and PopART's second output when present (each sample's unreduced
/// gradient, zeroInfinity applied).
void runCtc(const ops::CtcParams& p, const CtcSlots& sl, const RunState& s) {
  const LoadFn load = floatLoader(sl.lpType);
  const StoreFn store = floatStorer(sl.outType);
  std::vector<int64_t> labels;
  std::vector<double> grad;
  if (sl.sampleGrad >= 0) grad.assign(static_cast<size_t>(p.maxTime * p.batch * p.classes), 0.0);
  double total = 0;
  for (int64_t n = 0; n < p.batch; ++n) {
    int64_t T = 0;
    readSample(p, sl, s, n, labels, T);
    CtcSample smp(p, load, s.slots[sl.lp], n);
    smp.setTarget(labels, T);
    double nll = smp.forward();
    const bool inf = std::isinf(nll);
    if (inf && p.zeroInfinity) nll = 0;
    if (!grad.empty() && !inf) smp.backward(nll, 1.0, grad);
    if (p.reduction == ReductionType::NoReduction)
      store(s.slots[sl.lossOrGrad], n, nll);
    else
      total += nll * reductionScale(p, static_cast<int64_t>(labels.size()));
  }
  if (p.reduction != ReductionType::NoReduction) store(s.slots[sl.lossOrGrad], 0, total);
  for (size_t i = 0; i < grad.size(); ++i) store(s.slots[sl.sampleGrad], static_cast<int64_t>(i), grad[i]);
}

/// CtcGrad: dLogProbs = dLoss (per sample, through the reduction) * d(-log p)/dLogProbs.
void runCtcGrad(const ops::CtcParams& p, const CtcSlots& sl, int dLossSlot, DataType dLossType, const RunState& s) {
  const LoadFn load = floatLoader(sl.lpType);
  const LoadFn loadD = floatLoader(dLossType);
  const StoreFn store = floatStorer(sl.lpType);
  std::vector<int64_t> labels;
  std::vector<double> grad(static_cast<size_t>(p.maxTime * p.batch * p.classes), 0.0);
  for (int64_t n = 0; n < p.batch; ++n) {
    int64_t T = 0;
    readSample(p, sl, s, n, labels, T);
    CtcSample smp(p, load, s.slots[sl.lp], n);
    smp.setTarget(labels, T);
    const double nll = smp.forward();
    if (std::isinf(nll)) continue;  // no alignment: torch's zero_infinity gradient (NaN otherwise in torch)
    const double d =
        p.reduction == ReductionType::NoReduction ? loadD(s.slots[dLossSlot], n) : loadD(s.slots[dLossSlot], 0);
    smp.backward(nll, d * reductionScale(p, static_cast<int64_t>(labels.size())), grad);
  }
  for (size_t i = 0; i < grad.size(); ++i) store(s.slots[sl.lossOrGrad], static_cast<int64_t>(i), grad[i]);
}

CtcSlots ctcSlots(const Op& op, KernelContext& kc, const ops::CtcParams& p, bool isGrad) {
  return CtcSlots{kc.in(0),
                  kc.in(1),
                  kc.in(2),
                  kc.in(3),
                  kc.out(0),
                  isGrad ? -1 : kc.out(1),
                  op.inType(0),
                  op.inType(1),
                  op.inType(2),
                  op.inType(3),
                  isGrad ? op.inType(0) : p.outType};
}

// ---- beam search

struct Beam {
  std::vector<uint32_t> prefix;
  double pb = kNegInf, pnb = kNegInf;  ///< log p of the prefix ending in a blank / in its last label
  double total() const { return logAdd(pb, pnb); }
};

/// Higher probability first; equal ones by shorter, then lexicographically smaller prefix (a
/// deterministic order).
bool beamBefore(const Beam& a, const Beam& b) {
  const double ta = a.total(), tb = b.total();
  if (ta != tb) return ta > tb;
  if (a.prefix.size() != b.prefix.size()) return a.prefix.size() < b.prefix.size();
  return a.prefix < b.prefix;
}

/// The prefix beam search of one sample: the `topPaths` most probable label sequences among the
/// `beamWidth` kept after each step, with their log probabilities.
std::vector<Beam> beamSearch(const ops::CtcDecoderParams& p, LoadFn load, const void* lp, int64_t n, int64_t T) {
  auto at = [&](int64_t t, int64_t c) { return load(lp, (t * p.batch + n) * p.classes + c); };
  std::vector<Beam> beams(1);
  beams[0].pb = 0.0;
  for (int64_t t = 0; t < T; ++t) {
    std::map<std::vector<uint32_t>, Beam> next;
    auto entry = [&](const std::vector<uint32_t>& prefix) -> Beam& {
      Beam& b = next[prefix];
      if (b.prefix.size() != prefix.size()) b.prefix = prefix;
      return b;
    };
    const double lblank = at(t, p.blank);
    for (const Beam& b : beams) {
      const double tot = b.total();
      Beam& same = entry(b.prefix);
      same.pb = logAdd(same.pb, tot + lblank);
      if (!b.prefix.empty()) same.pnb = logAdd(same.pnb, b.pnb + at(t, b.prefix.back()));
      for (int64_t c = 0; c < p.classes; ++c) {
        if (c == p.blank) continue;
        std::vector<uint32_t> ext = b.prefix;
        ext.push_back(static_cast<uint32_t>(c));
        Beam& e = entry(ext);
        const bool repeat = !b.prefix.empty() && b.prefix.back() == static_cast<uint32_t>(c);
        e.pnb = logAdd(e.pnb, (repeat ? b.pb : tot) + at(t, c));
      }
    }
    beams.clear();
    for (auto& kv : next) beams.push_back(std::move(kv.second));
    const size_t keep = std::min(beams.size(), static_cast<size_t>(p.beamWidth));
    std::partial_sort(beams.begin(), beams.begin() + static_cast<std::ptrdiff_t>(keep), beams.end(), beamBefore);
    beams.resize(keep);
  }
  std::sort(beams.begin(), beams.end(), beamBefore);
  return beams;
}

}  // namespace

KernelFn makeCpuKernel_GcCtc(const Op& op, KernelContext& kc) {
  const ops::CtcParams p = ops::ctcParams(op);
  const CtcSlots sl = ctcSlots(op, kc, p, false);
  return [=](const RunState& s) { runCtc(p, sl, s); };
}

KernelFn makeCpuKernel_GcCtcGrad(const Op& op, KernelContext& kc) {
  const ops::CtcParams p = ops::ctcParams(op);
  const CtcSlots sl = ctcSlots(op, kc, p, true);
  const int dLoss = kc.in(4);
  const DataType dLossType = op.inType(4);
  return [=](const RunState& s) { runCtcGrad(p, sl, dLoss, dLossType, s); };
}

KernelFn makeCpuKernel_GcCtcBeamSearchDecoder(const Op& op, KernelContext& kc) {
  const ops::CtcDecoderParams p = ops::ctcDecoderParams(op);
  const int lp = kc.in(0), lens = kc.in(1), probs = kc.out(0), lengths = kc.out(1), labels = kc.out(2);
  const DataType lpType = op.inType(0), lensType = op.inType(1);
  return [=](const RunState& s) {
    const LoadFn load = floatLoader(lpType);
    const StoreFn store = floatStorer(lpType);
    for (int64_t n = 0; n < p.batch; ++n) {
      const int64_t T = std::clamp<int64_t>(indexAt(s.slots[lens], lensType, n), 0, p.maxTime);
      const std::vector<Beam> beams = beamSearch(p, load, s.slots[lp], n, T);
      for (int64_t k = 0; k < p.topPaths; ++k) {
        const int64_t o = n * p.topPaths + k;
        const Beam* b = k < static_cast<int64_t>(beams.size()) ? &beams[static_cast<size_t>(k)] : nullptr;
        if (probs >= 0) store(s.slots[probs], o, b ? b->total() : kNegInf);
        if (lengths >= 0) static_cast<uint32_t*>(s.slots[lengths])[o] = b ? static_cast<uint32_t>(b->prefix.size()) : 0;
        if (labels >= 0) {
          uint32_t* dst = static_cast<uint32_t*>(s.slots[labels]) + o * p.maxTime;
          for (int64_t t = 0; t < p.maxTime; ++t)
            dst[t] = b && t < static_cast<int64_t>(b->prefix.size()) ? b->prefix[static_cast<size_t>(t)] : 0;
        }
      }
    }
  };
}

}  // namespace cpu
}  // namespace popart
