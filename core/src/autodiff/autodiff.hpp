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

#include "ir/attributes.hpp"
#include "ir/graph.hpp"
#include "ir/op.hpp"

namespace popart {

class Ir;

/// Adds ops and constants to a graph, naming them `<prefix>/<OpType>:<n>`: the toolkit of grad
/// rules and of the training transforms (gradient clipping).
class GraphEditor {
 public:
  GraphEditor(Graph& graph, std::string prefix) : graph_(graph), prefix_(std::move(prefix)) {}

  /// Adds an op computing from `inputs` (nullptr: an absent optional input); returns its outputs.
  /// ONNX ops are created at `opset` (the forms grad rules use: ReduceSum with an axes input, ...).
  std::vector<Tensor*> add(OpKind kind, const std::vector<Tensor*>& inputs, const Attributes& attrs = {},
                           int numOutputs = 1, int opset = 13);
  Tensor* add1(OpKind kind, const std::vector<Tensor*>& inputs, const Attributes& attrs = {}, int opset = 13);
  /// A constant of `type` filled with `value`.
  Tensor* constant(double value, DataType type, const Shape& shape = {});
  Tensor* constInts(const std::vector<int64_t>& v);
  /// `g` summed over the dimensions numpy broadcasting added or stretched, reshaped to `shape`.
  Tensor* reduceTo(Tensor* g, const Shape& shape);
  /// `g` reshaped (a view) to `shape`.
  Tensor* reshape(Tensor* g, const Shape& shape);
  Graph& graph() { return graph_; }

 private:
  Graph& graph_;
  std::string prefix_;
  int counter_ = 0;
};

class GradCtx : public GraphEditor {
 public:
  GradCtx(Graph& graph, const Op& op, std::vector<Tensor*> outGrads, std::vector<bool> needsInGrad);

  const Op& op() const { return op_; }
  Tensor* in(int i) const { return op_.input(i); }
  Tensor* out(int i) const { return op_.output(i); }
  /// The gradient of output i (nullptr when that output does not lead to the loss).
  Tensor* outGrad(int i) const;
  /// Whether input i needs a gradient (a trainable weight leads to it).
  bool needsInGrad(int i) const;
  /// The gradient of input i (autodiff sums several contributions). Ignored when not needed.
  void setInGrad(int i, Tensor* g);
  const std::map<int, Tensor*>& inGrads() const { return inGrads_; }

 private:
  const Op& op_;
  std::vector<Tensor*> outGrads_;
  std::vector<bool> needsInGrad_;
  std::map<int, Tensor*> inGrads_;
};

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
