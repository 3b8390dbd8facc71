// One optimizer step for one weight tensor, on the host, in double precision: the reference the
// training kernels are tested against, and the specification of the state each optimizer keeps.
//
// Every step takes g as the backward pass makes it: scaled by the loss scaling ls and summed over
// the micro-batches (and replicas) of one step; it divides by ls·af itself. af is the accumulation
// factor when the optimizer takes the mean over micro-batches (Optimizer::postMeanAccumulationEnabled),
// else 1. Weights, gradients and state are flat vectors of one weight's elements (norms, as in Lamb,
// are over the whole vector). Empty state vectors mean "not yet created": they start at zero (SGD1:
// see sgdInitialState).
#pragma once

#include <cstdint>
#include <vector>

#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace optimizer_math {

using Vec = std::vector<double>;

// ---------------------------------------------------------------- SGD

/// The hyper-parameters of one weight (SGD::getWeightValues plus the options factors).
struct SGDHyper {
  double lr = 0.1, wd = 0.0, mm = 0.0, dm = 0.0, vs = 1.0, ls = 1.0, af = 1.0;
  bool nesterov = false;  ///< used only with momentum (PopART: nesterov != 0 and mm > 0)
  /// Momentum is a non-const OptimizerValue: a velocity is kept even while mm == 0.
  bool momentumIsTensor = false;
  SGDAccumulatorAndMomentum accMm = SGDAccumulatorAndMomentum::Combined;
  /// SGD1 / SGD2 (a velocity is kept) rather than SGD0.
  bool withVelocity() const { return momentumIsTensor || mm != 0.0; }
};

/// The state of one weight: the velocity, stored ×vs. SGD1 (Combined): "Accl___<w>", which holds
/// mm·v + (1-dm)·wd·vs·w between steps. SGD2 (Separate): "Accl1___<w>". SGD0: unused.
struct SGDState {
  Vec v;
};

/// The values `opt` gives weight `weightId`, with af from its options factors.
SGDHyper sgdHyper(const SGD& opt, const TensorId& weightId);

/// The state before the first step: SGD1 v = (1-dm)·wd·vs·w0 (the velocity starts at 0, plus the
/// pre-computed weight-decay term); SGD2 zeros; SGD0 empty.
SGDState sgdInitialState(const Vec& w0, const SGDHyper& h);

/// One step (an empty state is first set to sgdInitialState(w)):
///   SGD0:  w <- w·(1 - lr·(1-dm)·wd) - lr·(1-dm)/(ls·af)·g
///   SGD1:  v += (1-dm)·vs/(ls·af)·g
///          w -= lr/vs·v                                  (nesterov: lr/vs·(vs·(g/(ls·af) + wd·w) + mm·v))
///          v <- mm·v + (1-dm)·wd·vs·w                    (with the new w: the next step's mm, dm, wd lag)
///   SGD2:  v <- mm·v + (1-dm)·vs·(g/(ls·af) + wd·w)
///          w -= lr/vs·v                                  (nesterov as above)
void sgdStep(Vec& w, const Vec& g, SGDState& state, const SGDHyper& h);

// ---------------------------------------------------------------- Adam

struct AdamHyper {
  double lr = 0.1, wd = 0.0, b1 = 0.9, b2 = 0.999, eps = 1e-6, mwn = 10.0, ls = 1.0, af = 1.0;
  AdamMode mode = AdamMode::Adam;
  WeightDecayMode decayMode = WeightDecayMode::Decay;
};

/// m: "Accl1___<w>", v: "Accl2___<w>", t: "Step___<w>" (the steps done; PopART keeps it only in
/// the bias-corrected modes).
struct AdamState {
  Vec m, v;
  int64_t t = 0;
};

AdamHyper adamHyper(const Adam& opt, const TensorId& weightId);

/// One step (see adam.hpp): t += 1 first, so the first step uses t = 1.
void adamStep(Vec& w, const Vec& g, AdamState& state, const AdamHyper& h);

// ---------------------------------------------------------------- Adaptive

struct AdaptiveHyper {
  double lr = 0.01, wd = 0.0, alpha = 0.99, mm = 0.0, eps = 1e-6, ls = 1.0, af = 1.0;
  AdaptiveMode mode = AdaptiveMode::RMSProp;
  WeightDecayMode decayMode = WeightDecayMode::Decay;
  bool tfVariant = false;
  /// Momentum is a non-const OptimizerValue: "Accl3___<w>" is kept even while mm == 0.
  bool momentumIsTensor = false;
  bool withMomentum() const { return momentumIsTensor || mm > 0.0; }
};

/// v1: "Accl1___<w>", v2: "Accl2___<w>" (CenteredRMSProp: mean gradient; AdaDelta: mean squared
/// update), v3: "Accl3___<w>" (momentum). An empty v1 starts at 0, or at 1 in the TF variant.
struct AdaptiveState {
  Vec v1, v2, v3;
};

AdaptiveHyper adaptiveHyper(const Adaptive& opt, const TensorId& weightId);

/// One step (see adaptive.hpp).
void adaptiveStep(Vec& w, const Vec& g, AdaptiveState& state, const AdaptiveHyper& h);

}  // namespace optimizer_math
}  // namespace popart
