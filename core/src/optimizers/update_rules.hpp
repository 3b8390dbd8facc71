// The per-element formulas the optimizers share, in double precision: the host reference steps
// (optimizers/optimizer_math.cpp), the weight-update kernels of training sessions
// (backends/cpu/kernels/optim.cpp) and the kernels of ONNX's ai.onnx.preview.training ops Adagrad,
// Adam and Momentum (backends/cpu/kernels/training.cpp) compute with them, so that one formula is
// written once. Each keeps the order of its operations (the results are bit-identical wherever it
// replaced an inline expression).
#pragma once

#include <cmath>

namespace popart {
namespace update_rules {

/// The gradient of loss + c/2·|w|² (L2 regularization; ONNX's norm_coefficient): g + c·w.
inline double l2Regularized(double g, double w, double c) {
  return g + c * w;
}

/// AdaGrad's accumulated squared gradient: h + g².
inline double accumulateSquare(double h, double g) {
  return h + g * g;
}

/// An exponential moving average of x: beta·avg + (1 - beta)·x (Adam's first moment).
inline double movingAverage(double avg, double x, double beta) {
  return beta * avg + (1.0 - beta) * x;
}

/// An exponential moving average of x²: beta·avg + (1 - beta)·x·x (Adam's second moment,
/// RMSProp's mean square).
inline double movingAverageOfSquare(double avg, double x, double beta) {
  return beta * avg + (1.0 - beta) * x * x;
}

/// A direction scaled by the root of its mean square h: g / (√h + ε) (AdaGrad, RMSProp, Adam).
inline double rmsScaled(double g, double h, double eps) {
  return g / (std::sqrt(h) + eps);
}

/// The heavy-ball velocity: momentum·v + scale·g (SGD with momentum: scale = 1 - dampening;
/// ONNX's Momentum: alpha·V + beta·G).
inline double velocity(double v, double g, double momentum, double scale) {
  return momentum * v + scale * g;
}

/// Nesterov's direction from the gradient and the new velocity: g + momentum·v.
inline double nesterovDirection(double g, double v, double momentum) {
  return g + momentum * v;
}

}  // namespace update_rules
}  // namespace popart
