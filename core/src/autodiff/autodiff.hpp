// Autodiff: the backward pass of a loss, built from the grad rules of the op families.
//
// A grad rule (`OpDef::grad`, set in the family's define_X) receives a GradCtx for one forward op
// and adds the ops computing the gradients of its inputs from the gradients of its outputs. Rules
// compose forward ops where that is numerically fine (Mul, MatMul, ReduceSum, ...) and use the
// dedicated internal grad ops of ops/grad.cpp where composition is slow or wrong.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/graph_editor.hpp"

namespace popart {

class Ir;

struct BackwardResult {
  /// Trainable weight id -> its gradient `Gradient___<id>` (weights that lead to the loss).
  std::map<TensorId, Tensor*> weightGrads;
  /// Tensor id -> its gradient, for the tensors whose gradient the DataFlow anchors
  /// (`Gradient___<id>`) and that lead to the loss through differentiable ops.
  std::map<TensorId, Tensor*> anchoredGrads;
  /// Tensor id -> its gradient, for the `requested` ids of buildBackward that lead to the loss.
  std::map<TensorId, Tensor*> requestedGrads;
  /// Every op added by the backward pass.
  std::vector<Op*> ops;
};

/// Adds the backward pass of the scalar `loss` to the main graph. The loss gradient is seeded
/// with `lossScaling`. As in PopART, any floating-point tensor on a path to the loss has a
/// gradient `Gradient___<id>` (graph inputs, activations, constants and weights alike); only those
/// needed are built: the trainable weights' (for their updates) and those the DataFlow anchors,
/// with the ops on the paths from them to the loss. Gradients of tensors read by several ops are
/// summed; an op that passes no gradient to an input (Detach, an integer input) adds nothing.
/// Throws PopART's errors for a loss that is not in the graph or not a scalar. `requested`: ids
/// whose gradients are wanted too (automatic loss scaling's toTrackTensors).
BackwardResult buildBackward(Ir& ir, const TensorId& loss, float lossScaling,
                             const std::vector<TensorId>& requested = {});

}  // namespace popart
