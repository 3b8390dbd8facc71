// Automatic loss scaling (SessionOptions::automaticLossScalingSettings), PopART's
// AutomaticLossScale transform: the loss scale follows the gradients' distribution over the
// FLOAT16 range.
//
// The graph it adds to the training graph, with PopART's tensor names:
//   - per tracked gradient g: Histogram(|g|) -> "<g>_statistics" (UINT32 [2]: the elements below
//     and at or above binEdgeLocation x 65504, the largest FLOAT16; zeros on the steps that do
//     not update);
//   - their Sum "summedHistograms", cast to FLOAT "summedCastedHistograms";
//   - the Variable "lossScaleUpdateFactor" (the loss scale's type, 1 at the start);
//     "finalLossScale" = lossScaling x factor replaces the optimizer's loss scaling wherever the
//     backward pass (and gradient clipping) reads it; each compound scalar of the weight updates
//     that holds 1 / lossScaling is divided by the factor ("finalInverseLossScale_<i>"), so the
//     updates are those of the unscaled gradients;
//   - LossScaleUpdate, run after every reader of the factor: halves the factor when the upper
//     count exceeds thresholdUpperCountProportion of all counts, doubles it otherwise (clipped so
//     that finalLossScale stays <= 2^15 when the loss scale or a weight is FLOAT16). With gradient
//     accumulation the counts of the step's micro-batches are summed in
//     "Accum___autoLossScaleStats" and the update runs once per step; with updatePeriod P it runs
//     on steps 0, P, 2P, ... ("LossScaleUpdate_counter").
// The tracked gradients (gradientTensorTrackingMethod): the FLOAT16 outputs of the backward pass's
// ops that change values (not views, concatenations, slices or gathers), read no Variable and have
// readers (AllNonViewChangingGradientTensors); those of its MatMul / Gemm / Conv ops
// (ConvAndMatmulGradients); or Gradient___<id> of each of toTrackTensors
// (GradientsOfUserSpecifiedTensors).
#pragma once

#include <vector>

#include "popart/names.hpp"

namespace popart {

class Ir;
class Optimizer;
struct BackwardResult;

/// Before autodiff: checks toTrackTensors against the tracking method and the model (PopART's
/// PreAutomaticLossScale) and returns the ids whose gradients autodiff must build (those of
/// toTrackTensors for GradientsOfUserSpecifiedTensors, else none). Empty when ALS is off.
std::vector<TensorId> autoLossScaleTrackedIds(const Ir& ir);

/// Adds automatic loss scaling to a training graph whose backward pass is `bwd` and whose weight
/// updates (and accumulation counter) are built. No-op when ALS is off.
void addAutomaticLossScaling(Ir& ir, const BackwardResult& bwd, const Optimizer& optimizer);

/// A training graph with no weight update: PopART's transform still looks for gradients to track
/// and fails when there are none ("No tracked gradient tensors of type fp16 were found."); with
/// some, nothing is scaled (no update reads the loss scale) and a warning says so. No-op when ALS
/// is off.
void checkAutomaticLossScalingWithoutUpdates(const Ir& ir, const BackwardResult& bwd);

/// The ids of the state ALS keeps between steps besides Accum___autoLossScaleStats: the factor and
/// the update period counter (session weights, as in PopART's model proto).
bool isAutoLossScaleStateTensorId(const TensorId& id);

}  // namespace popart
