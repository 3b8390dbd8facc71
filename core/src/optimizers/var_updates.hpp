// The training graph: the backward pass of the loss and one weight-update op per trainable
// weight, with the optimizer state tensors (PopART's reserved names: Accl___w, ...).
#pragma once

#include "popart/names.hpp"

namespace popart {

class Ir;
class Optimizer;

/// Adds autodiff's backward pass and the optimizer's updates to the main graph of `ir`.
void addTrainingGraph(Ir& ir, const TensorId& loss, const Optimizer& optimizer);

}  // namespace popart
