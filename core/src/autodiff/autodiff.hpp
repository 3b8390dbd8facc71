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
  /// Every op added by the backward pass.
  std::vector<Op*> ops;
};

/// Adds the backward pass of the scalar `loss` to the main graph. The loss gradient is seeded
/// with `lossScaling`. Every tensor on a path from a trainable weight to the loss gets its
/// gradient `Gradient___<id>`; gradients of tensors with several consumers are summed.
BackwardResult buildBackward(Ir& ir, const TensorId& loss, float lossScaling);

}  // namespace popart
