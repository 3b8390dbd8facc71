// Host reference steps of SGD, Adam and Adaptive in double precision.
#include "optimizers/optimizer_math.hpp"

#include <algorithm>
#include <cmath>

#include "optimizers/update_rules.hpp"
#include "popart/error.hpp"

namespace popart {
namespace optimizer_math {

namespace {

void checkSizes(const char* what, const Vec& w, const Vec& g) {
  if (w.size() != g.size()) {
    throw internal_error("{}: the weight has {} elements but the gradient {}", what, w.size(), g.size());
  }
}

// Sizes an empty state vector to n zeros; a non-empty one must already have n elements.
void ensure(const char* what, Vec& s, size_t n, double initial = 0.0) {
  if (s.empty()) s.assign(n, initial);
  if (s.size() != n) throw internal_error("{}: state has {} elements, the weight {}", what, s.size(), n);
}

double norm(const Vec& x) {
  double s = 0.0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}

double meanAccumulationFactor(const Optimizer& opt) {
  return opt.postMeanAccumulationEnabled() ? static_cast<double>(opt.getAccumulationFactor()) : 1.0;
}

}  // namespace

// ---------------------------------------------------------------- SGD

SGDHyper sgdHyper(const SGD& opt, const TensorId& weightId) {
  const SGD::WeightValues v = opt.getWeightValues(weightId);
  SGDHyper h;
  h.lr = v.learningRate.val();
  h.wd = v.weightDecay.val();
  h.mm = v.momentum.val();
  h.dm = v.dampening.val();
  h.vs = v.velocityScaling.val();
  h.ls = v.lossScaling.val();
  h.af = meanAccumulationFactor(opt);
  h.nesterov = v.nesterov;
  h.momentumIsTensor = !v.momentum.isConst();
  h.accMm = opt.getSGDAccumulatorAndMomentum();
  return h;
}

SGDState sgdInitialState(const Vec& w0, const SGDHyper& h) {
  SGDState s;
  if (!h.withVelocity()) return s;
  s.v.assign(w0.size(), 0.0);
  if (h.accMm == SGDAccumulatorAndMomentum::Combined) {
    for (size_t i = 0; i < w0.size(); ++i) s.v[i] = (1.0 - h.dm) * h.wd * h.vs * w0[i];
  }
  return s;
}

void sgdStep(Vec& w, const Vec& g, SGDState& state, const SGDHyper& h) {
  checkSizes("sgdStep", w, g);
  const double gs = 1.0 / (h.ls * h.af);  // un-scales the gradient
  if (!h.withVelocity()) {
    const double wdsf0 = 1.0 - h.lr * (1.0 - h.dm) * h.wd;
    const double slr0 = h.lr * (1.0 - h.dm) * gs;
    for (size_t i = 0; i < w.size(); ++i) w[i] = w[i] * wdsf0 - slr0 * g[i];
    return;
  }
  if (state.v.empty()) state = sgdInitialState(w, h);
  ensure("sgdStep", state.v, w.size());
  Vec& v = state.v;
  const bool nesterov = h.nesterov && h.mm > 0.0;
  for (size_t i = 0; i < w.size(); ++i) {
    const double gr = update_rules::l2Regularized(gs * g[i], w[i], h.wd);  // un-scaled, with weight decay
    if (h.accMm == SGDAccumulatorAndMomentum::Combined) {
      v[i] += (1.0 - h.dm) * h.vs * gs * g[i];
    } else {
      v[i] = update_rules::velocity(v[i], gr, h.mm, (1.0 - h.dm) * h.vs);
    }
    const double update = nesterov ? update_rules::nesterovDirection(h.vs * gr, v[i], h.mm) : v[i];
    w[i] -= h.lr / h.vs * update;
    if (h.accMm == SGDAccumulatorAndMomentum::Combined) {
      v[i] = h.mm * v[i] + (1.0 - h.dm) * h.wd * h.vs * w[i];
    }
  }
}

// ---------------------------------------------------------------- Adam

AdamHyper adamHyper(const Adam& opt, const TensorId& weightId) {
  const Adam::WeightValues v = opt.getWeightValues(weightId);
  AdamHyper h;
  h.lr = v.learningRate.val();
  h.wd = v.weightDecay.val();
  h.b1 = v.beta1.val();
  h.b2 = v.beta2.val();
  h.eps = v.eps.val();
  h.mwn = v.maxWeightNorm.val();
  h.ls = v.lossScaling.val();
  h.af = meanAccumulationFactor(opt);
  h.mode = opt.getMode();
  h.decayMode = opt.getWeightDecayMode();
  return h;
}

void adamStep(Vec& w, const Vec& g, AdamState& state, const AdamHyper& h) {
  checkSizes("adamStep", w, g);
  ensure("adamStep", state.m, w.size());
  ensure("adamStep", state.v, w.size());
  state.t += 1;
  const double t = static_cast<double>(state.t);
  const bool adaMax = h.mode == AdamMode::AdaMax;
  const bool correctM = h.mode == AdamMode::Adam || h.mode == AdamMode::Lamb || adaMax;
  const bool correctV = h.mode == AdamMode::Adam || h.mode == AdamMode::Lamb;
  const double c1 = correctM ? 1.0 - std::pow(h.b1, t) : 1.0;
  const double c2 = correctV ? 1.0 - std::pow(h.b2, t) : 1.0;
  const bool l2 = h.decayMode == WeightDecayMode::L2Regularization;

  Vec u(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    double s = g[i] / (h.ls * h.af);
    if (l2) s = update_rules::l2Regularized(s, w[i], h.wd);
    state.m[i] = update_rules::movingAverage(state.m[i], s, h.b1);
    state.v[i] =
        adaMax ? std::max(h.b2 * state.v[i], std::abs(s)) : update_rules::movingAverageOfSquare(state.v[i], s, h.b2);
    const double mhat = state.m[i] / c1;
    const double vhat = state.v[i] / c2;
    u[i] = mhat / ((adaMax ? vhat : std::sqrt(vhat)) + h.eps);
    if (!l2) u[i] += h.wd * w[i];
  }

  double ratio = 1.0;
  if (h.mode == AdamMode::Lamb || h.mode == AdamMode::LambNoBias) {
    const double r1 = std::min(norm(w), h.mwn);
    const double r2 = norm(u);
    if (r1 != 0.0 && r2 != 0.0 && h.mwn != 0.0) ratio = r1 / r2;
  }
  for (size_t i = 0; i < w.size(); ++i) w[i] -= ratio * h.lr * u[i];
}

// ---------------------------------------------------------------- Adaptive

AdaptiveHyper adaptiveHyper(const Adaptive& opt, const TensorId& weightId) {
  const Adaptive::WeightValues v = opt.getWeightValues(weightId);
  AdaptiveHyper h;
  h.lr = v.learningRate.val();
  h.wd = v.weightDecay.val();
  h.alpha = v.alpha.val();
  h.mm = v.momentum.val();
  h.eps = v.eps.val();
  h.ls = v.lossScaling.val();
  h.af = meanAccumulationFactor(opt);
  h.mode = opt.getMode();
  h.decayMode = opt.getWeightDecayMode();
  h.tfVariant = opt.getRmspropTFVariant();
  h.momentumIsTensor = !v.momentum.isConst();
  return h;
}

void adaptiveStep(Vec& w, const Vec& g, AdaptiveState& state, const AdaptiveHyper& h) {
  checkSizes("adaptiveStep", w, g);
  const size_t n = w.size();
  ensure("adaptiveStep", state.v1, n, h.tfVariant ? 1.0 : 0.0);  // TensorFlow's RMSProp starts v1 at 1
  const bool centered = h.mode == AdaptiveMode::CenteredRMSProp;
  const bool adaDelta = h.mode == AdaptiveMode::AdaDelta;
  if (centered || adaDelta) ensure("adaptiveStep", state.v2, n);
  const bool momentum = h.withMomentum();
  if (momentum) ensure("adaptiveStep", state.v3, n);
  const bool l2 = h.decayMode == WeightDecayMode::L2Regularization;
  const double a = h.alpha;

  for (size_t i = 0; i < n; ++i) {
    double s = g[i] / (h.ls * h.af);
    if (l2) s = update_rules::l2Regularized(s, w[i], h.wd);

    double& v1 = state.v1[i];
    v1 = h.mode == AdaptiveMode::AdaGrad ? update_rules::accumulateSquare(v1, s)
                                         : update_rules::movingAverageOfSquare(v1, s, a);

    double x = 0.0;
    if (adaDelta) {
      double& v2 = state.v2[i];
      x = s * std::sqrt(v2 + h.eps) / std::sqrt(v1 + h.eps);
      v2 = a * v2 + (1.0 - a) * x * x;
    } else {
      double var = v1;
      if (centered) {
        double& v2 = state.v2[i];
        v2 = a * v2 + (1.0 - a) * s;
        var = v1 - v2 * v2;
      }
      x = h.tfVariant ? s / std::sqrt(var + h.eps) : update_rules::rmsScaled(s, var, h.eps);
    }

    const double wd = l2 ? 0.0 : h.wd;
    if (!momentum) {
      w[i] -= h.lr * (x + wd * w[i]);
    } else if (h.tfVariant) {
      // TF RMSProp folds lr into the momentum buffer; weight decay is then not scaled by lr.
      double& v3 = state.v3[i];
      v3 = h.mm * v3 + h.lr * x;
      w[i] -= v3 + wd * w[i];
    } else {
      double& v3 = state.v3[i];
      v3 = h.mm * v3 + x;
      w[i] -= h.lr * (v3 + wd * w[i]);
    }
  }
}

}  // namespace optimizer_math
}  // namespace popart
