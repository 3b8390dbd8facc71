// The graph-editing toolkit of grad rules (OpDef::grad receives a GradCtx) and of the training
// transforms (optimizers/training_graph.cpp: weight updates, gradient clipping). Autodiff
// (autodiff/autodiff.hpp) drives the grad rules; the ops layer defines them, so this lives here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/attributes.hpp"
#include "ir/graph.hpp"
#include "ir/op.hpp"

namespace popart {

/// A floating-point tensor of `info` filled with `value` (throws for other types: gradients are
/// floating-point only).
TensorData filledGradData(double value, const TensorInfo& info);

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
  /// A constant of zeros of any type (padding and index grids too, not only gradients).
  Tensor* zeros(const TensorInfo& info);
  /// Entries [begin, end) of `x` along `axis` (a Slice).
  Tensor* slice(Tensor* x, int64_t axis, int64_t begin, int64_t end);
  /// `g` summed over the dimensions numpy broadcasting added or stretched, reshaped to `shape`.
  Tensor* reduceTo(Tensor* g, const Shape& shape);
  /// `g` reshaped (a view) to `shape`.
  Tensor* reshape(Tensor* g, const Shape& shape);
  /// Copies the ops of the subgraph `body` in: `inputs` bind its inputs, the outer tensors it reads
  /// keep their ids (or, for a nested body, are looked up in `outer`, its parent's bindings), its
  /// constants are copied. Calls inside it are inlined too; other control flow is an error naming
  /// `what` (the op whose body it is). Returns the tensors of its outputs.
  std::vector<Tensor*> inlineGraph(const Graph& body, const std::vector<Tensor*>& inputs, const std::string& what,
                                   const std::map<TensorId, Tensor*>* outer = nullptr);
  Graph& graph() { return graph_; }
  /// The ops added so far, in order (a mark for backprop()).
  size_t numAdded() const { return added_.size(); }

  /// Reverse mode through the ops this editor added since `mark` (a forward computation composed
  /// of ops with grad rules): `seeds` pairs tensors computed there with their gradients
  /// (nullptr gradients are skipped); returns the gradient of each `wrt` tensor (nullptr where
  /// none reaches it). Grad rules of ops without a cheaper form use it to differentiate their
  /// decomposition (RNN / LSTM / GRU unrolled, If / Loop / Scan inlined).
  std::vector<Tensor*> backprop(size_t mark, const std::vector<std::pair<Tensor*, Tensor*>>& seeds,
                                const std::vector<Tensor*>& wrt);
  /// The same through `ops` (a forward computation in topological order, of ops with grad rules,
  /// added by anyone): ONNX's Gradient op differentiates the model's own ops this way.
  std::vector<Tensor*> backprop(const std::vector<Op*>& ops, const std::vector<std::pair<Tensor*, Tensor*>>& seeds,
                                const std::vector<Tensor*>& wrt);

 protected:
  /// Placement annotations (virtualGraph, pipelineStage) every added op gets.
  Attributes placement_;

 private:
  Graph& graph_;
  std::string prefix_;
  int counter_ = 0;
  std::vector<Op*> added_;
};

class GradCtx : public GraphEditor {
 public:
  GradCtx(Graph& graph, const Op& op, std::vector<Tensor*> outGrads, std::vector<bool> needsInGrad);

  const Op& op() const { return op_; }
  Tensor* in(int i) const { return op_.input(i); }
  Tensor* out(int i) const { return op_.output(i); }
  /// The gradient of output i (nullptr when that output does not lead to the loss).
  Tensor* outGrad(int i) const;
  /// Whether input i needs a gradient (it is, or is reached from, a trainable weight or a tensor
  /// whose gradient is anchored).
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

}  // namespace popart
