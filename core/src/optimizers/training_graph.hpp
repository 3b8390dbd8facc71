// The training graph: the backward pass of the loss and one weight-update op per trainable
// weight (ops/optim.hpp), with the optimizer state tensors (PopART's reserved names: Accl___w,
// Accl1___w, Accl2___w, Accl3___w, Step___w, Accum___w) and the non-const hyper-parameters.
//
// Hyper-parameters: a const value is baked into its update op (an attribute); a non-const one is
// a scalar Variable tensor (DOUBLE for DOUBLE weights, else FLOAT) that the update op reads on
// every run, named as in PopART:
// "<name>___default___<weight type>" for the weights without specific values (shared by them),
// "<name>___specific___<weight id>" otherwise. The names are the compound scalars of SGD
// (scaledLearningRate0, weightDecayScaleFactor0, scaledLearningRate1, dampeningScaleFactor1,
// scaledMomentum1, scaledWeightDecay1, scaledLearningRate2, dampeningScaleFactor2,
// scaledMomentum2), and for Adam learningRate, weightDecay, adamBeta1, adamBeta2, adamEps,
// maxWeightNorm, adamGradientScaling, lossScaling; for Adaptive learningRate, weightDecay,
// adaptiveAlpha, adaptiveMomentum, adaptiveEps, adaptiveGradientScaling. A non-const loss
// scaling is also the seed of the backward pass, "lossScaling_<loss type>". The values are
// computed in double from the optimizer's (float) values, as optimizer_math does.
//
// Gradient accumulation adds the INT64 Variable "accumulationCounter___" (the micro-batch within
// the step) and its AccumulationCounterIncrement op, run after every update.
#pragma once

#include <vector>

#include "popart/names.hpp"

namespace popart {

/// The gradient-accumulation step counter (a Variable) the updates and automatic loss scaling read.
inline constexpr const char* kAccumulationCounterId = "accumulationCounter___";

class Graph;
class Ir;
class Optimizer;
class Tensor;
class TensorInfo;

/// The model's own tensor `id` when it is an optimizer state saved by modelToHost (an initializer
/// nothing reads, of type and shape `info`): it becomes the state Variable with its saved value,
/// as PopART resumes from such a checkpoint. nullptr when the model has no tensor `id`; another
/// tensor of that name is an error ("The <what> '<id>' (info) clashes with a tensor of the model").
Tensor* savedStateTensor(Graph& g, const TensorId& id, const TensorInfo& info, const char* what);

/// Adds autodiff's backward pass and the optimizer's updates to the main graph of `ir`. The
/// optimizer's factors (setFactorsFromOptions) must be set.
void addTrainingGraph(Ir& ir, const TensorId& loss, const Optimizer& optimizer);

/// Writes the values `optimizer` gives the non-const hyper-parameter tensors into their host
/// data; returns their ids (to copy to the device). `optimizer` must be a valid replacement of
/// the one the graph was built with.
std::vector<TensorId> updateOptimizerTensors(Ir& ir, const Optimizer& optimizer);

/// True for the ids of optimizer state tensors (Accum___, Accl___, Accl1___, Accl2___, Accl3___,
/// Step___ prefixes) and of automatic loss scaling's state (lossScaleUpdateFactor,
/// LossScaleUpdate_counter; Accum___autoLossScaleStats has the prefix).
bool isOptimizerStateTensorId(const TensorId& id);

}  // namespace popart
