// The weight-update ops of the optimizers (SGDVarUpdate, AdamVarUpdate, AdaptiveVarUpdate) and
// the gradient-accumulation counter: their input layout, shared by the training-graph builder
// (optimizers/training_graph.cpp), the op definitions (ops/grad.cpp, ops/optim.cpp) and the CPU
// kernels.
//
// An update op has no outputs: it changes the weight and its optimizer state in place. Inputs:
//
//   0 kWeight    the weight w (a Variable)
//   1 kGrad      its gradient Gradient___w, as the backward pass makes it (scaled by the loss scaling)
//   2 kAccum     gradient accumulation: the accumulator Accum___w (optional; SGD1 without nesterov
//                accumulates into its velocity instead)
//   3 kCounter   gradient accumulation: the micro-batch counter (INT64 scalar; its presence turns
//                accumulation on)
//   4 kState0..  the optimizer state, per op below (an absent optional state is a nullptr)
//   then         the hyper-parameter scalars, in the order of scalarNames(op)
//
// A hyper-parameter scalar is either const, stored as the op attribute of the same name (a DOUBLE
// scalar tensor value, baked in at compile time), or non-const: a scalar Variable tensor (DOUBLE
// for DOUBLE weights, else FLOAT) read by the kernel on every run. Its id is PopART's:
// "<name>___default___<weight type>" (shared by the weights without specific values), or
// "<name>___specific___<weight id>". updateOptimizerFromHost rewrites those tensors.
//
// Attributes: "accumulationFactor" (micro-batches per update) and "runningMean" (1: the
// accumulator keeps the running mean, SessionOptions::meanAccumulationAndReplicationReductionStrategy
// Running) with gradient accumulation; "preAccumulated" (1: kGrad is already the accumulated
// gradient, made by a GradAccumulate op, as gradient clipping needs the whole accumulated gradient
// before any update: the op has no kAccum and only acts on the last micro-batch); "mode" and
// per-optimizer flags (see below).
#pragma once

#include <string>
#include <vector>

#include "ir/op_def.hpp"

namespace popart {

class Op;

namespace optim {

constexpr int kWeight = 0;
constexpr int kGrad = 1;
constexpr int kAccum = 2;
constexpr int kCounter = 3;
constexpr int kState0 = 4;

/// SGDVarUpdate, attribute "mode": 0 = SGD0 (no velocity), 1 = SGD1 (Combined: the velocity
/// Accl___w at kState0 also accumulates), 2 = SGD2 (Separate: velocity Accl1___w at kState0).
/// Attribute "nesterov" (0/1). Scalars from kState0 + 1:
///   SGD0: scaledLearningRate0, weightDecayScaleFactor0
///   SGD1: scaledLearningRate1, dampeningScaleFactor1, scaledMomentum1, scaledWeightDecay1
///   SGD2: scaledLearningRate2, dampeningScaleFactor2, scaledMomentum2, scaledWeightDecay1
/// (the compound scalars of popart/sgd.hpp).
constexpr int kSgdFirstScalar = kState0 + 1;

/// AdamVarUpdate: Accl1___w (m), Accl2___w (v), Step___w (t, a FLOAT scalar; bias-corrected modes
/// only). Attributes "mode" (AdamMode), "decayMode" (WeightDecayMode), "scaledOptimizerState".
/// Scalars: learningRate, weightDecay, adamBeta1, adamBeta2, adamEps, maxWeightNorm,
/// adamGradientScaling (1/(ls·af)), lossScaling.
constexpr int kAdamFirstScalar = kState0 + 3;

/// AdaptiveVarUpdate: Accl1___w (v1), Accl2___w (v2: CenteredRMSProp, AdaDelta), Accl3___w
/// (v3: momentum). Attributes "mode" (AdaptiveMode), "decayMode", "tfVariant". Scalars:
/// learningRate, weightDecay, adaptiveAlpha, adaptiveMomentum, adaptiveEps,
/// adaptiveGradientScaling (1/(ls·af)).
constexpr int kAdaptiveFirstScalar = kState0 + 3;

/// Automatic loss scaling (optimizers/auto_loss_scale.hpp). Histogram(x): UINT32 counts of the
/// elements of x (|x| with attribute "absoluteOfInput") in the bins split by the ascending
/// attribute "levels" (FLOATs): bin 0 below levels[0], bin i in [levels[i-1], levels[i]), the last
/// at or above the last level (NaN and infinities included). Its optional input 1 is the update
/// period counter (INT32, attribute "updatePeriod"): on the steps that do not update the loss scale
/// (counter % updatePeriod != 0) the counts are zeros and nothing is counted, as PopART skips the op.
/// LossScaleUpdate has no outputs: it changes the loss-scale update factor (and its counters) in
/// place. Its inputs:
constexpr int kAlsFactor = 0;         ///< lossScaleUpdateFactor (a FLOAT or FLOAT16 scalar Variable)
constexpr int kAlsLossScaling = 1;    ///< the optimizer's loss scaling (clipping reads it)
constexpr int kAlsStatistics = 2;     ///< the summed histograms, FLOAT [2] (lower, upper counts)
constexpr int kAlsStatsAccum = 3;     ///< gradient accumulation: Accum___autoLossScaleStats, FLOAT [2]
constexpr int kAlsCounter = 4;        ///< gradient accumulation: the micro-batch counter (INT64)
constexpr int kAlsPeriodCounter = 5;  ///< updatePeriod > 1: the step within the period (INT32)
/// Attributes: "thresholdUpperCountProportion" (float), "updatePeriod", "accumulationFactor",
/// "clipOutput" (1: the factor stays <= 2^15 / loss scaling, so the final loss scale fits FLOAT16).

/// GradAccumulate (PopART's AccumulateOp; type "Accumulate") has no outputs and writes its
/// accumulator in place: inputs kGaAccum (a Variable Accum___w), kGaGrad (the micro-batch's
/// gradient), kGaCounter (the micro-batch counter, INT64). On micro-batch 0 of a step the
/// accumulator takes the gradient; later it adds it (or, with attribute "runningMean", keeps the
/// running mean). Attribute "accumulationFactor".
constexpr int kGaAccum = 0;
constexpr int kGaGrad = 1;
constexpr int kGaCounter = 2;

/// True for SGDVarUpdate, AdamVarUpdate and AdaptiveVarUpdate.
bool isVarUpdate(OpKind k);
/// The index of the first hyper-parameter input of an update op.
int firstScalarInput(OpKind k);
/// The hyper-parameter names of an update op of kind `k` (`mode`: its "mode" attribute).
const std::vector<std::string>& scalarNames(OpKind k, int mode);
/// The same for an op.
const std::vector<std::string>& scalarNames(const Op& op);

/// Shape and type checks shared by the update ops: w floating point; the gradient and
/// accumulator shaped like w; the states in [kState0, firstScalar) shaped like w, except those
/// in `scalarStates` (indices), which are scalars; the counter INT64 and the hyper-parameters
/// FLOAT scalars.
void setupVarUpdate(Op& op, const std::vector<int>& scalarStates = {});

}  // namespace optim
}  // namespace popart
