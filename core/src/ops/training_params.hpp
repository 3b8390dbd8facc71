// The input and output layout of ONNX's optimizer ops (ai.onnx.preview.training Adagrad, Adam,
// Momentum), shared by their setup (ops/training.cpp) and their CPU kernels
// (backends/cpu/kernels/training.cpp).
//
// Inputs: R (the learning rate, a floating-point scalar), T (the update count, an INT64 scalar),
// then n optimized tensors X1..Xn, their gradients G1..Gn and, per state, n state tensors (Adagrad:
// H, the accumulated squared gradient; Adam: V then H, the averaged gradient and squared gradient;
// Momentum: V, the velocity). Outputs: X1_new..Xn_new, then the new states in the inputs' order.
#pragma once

#include "ir/op.hpp"
#include "popart/error.hpp"

namespace popart {
namespace ops {

constexpr int kTrainR = 0;
constexpr int kTrainT = 1;
constexpr int kTrainFirstX = 2;

/// The state tensors each optimized tensor has: Adagrad 1 (H), Adam 2 (V, H), Momentum 1 (V).
inline int trainingStates(OpKind k) {
  switch (k) {
    case OpKind::Adagrad:
    case OpKind::Momentum:
      return 1;
    case OpKind::Adam:
      return 2;
    default:
      break;
  }
  throw internal_error("trainingStates: {} is not an optimizer op of the training domain", opDef(k).type);
}

/// How many tensors the op optimizes (the setup checks that the inputs are 2 + n·(2 + states)).
inline int trainingTensors(const Op& op) {
  return (op.numInputs() - kTrainFirstX) / (2 + trainingStates(op.kind()));
}

/// The input of X_i (k = 0), G_i (k = 1) or state s of tensor i (k = 2 + s).
inline int trainingInput(const Op& op, int k, int i) {
  return kTrainFirstX + k * trainingTensors(op) + i;
}

/// The output of X_i_new (k = 0) or of state s of tensor i (k = 1 + s).
inline int trainingOutput(const Op& op, int k, int i) {
  return k * trainingTensors(op) + i;
}

}  // namespace ops
}  // namespace popart
