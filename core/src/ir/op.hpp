// An op of the IR: one node of a Graph, with its definition, attributes and tensors.
#pragma once

#include <string>
#include <vector>

#include "common/attributes.hpp"
#include "ir/op_def.hpp"
#include "ir/tensor.hpp"

namespace popart {

class Graph;

class Op {
 public:
  Op(const OpDef& def, Graph& graph, OpId id, std::string name, int opset);

  const OpDef& def() const { return *def_; }
  OpKind kind() const { return def_->kind; }
  const std::string& type() const { return def_->type; }
  const std::string& domain() const { return def_->domain; }
  /// The opset version of the op's domain in the model (selects attribute/input forms).
  int opset() const { return opset_; }
  OpId id() const { return id_; }
  const std::string& name() const { return name_; }
  Graph& graph() const { return *graph_; }

  Attributes attrs;
  /// Subgraphs of control-flow ops (If: then, else; Loop / Scan: body), owned by the Ir.
  std::vector<Graph*> subgraphs;
  /// Inputs the op had in the model; control-flow ops append their subgraphs' outer reads.
  int numFormalInputs = -1;
  /// Scheduling constraints besides data: this op runs after these (e.g. a weight update after
  /// every reader of the weight).
  std::vector<Op*> after;
  /// The schedule's ready queue takes the ready op of the lowest (rank, id), the rank being the op's
  /// id unless this is set (recomputation's clones take the rank of the op that needs them).
  OpId scheduleRank = -1;

  // ---- inputs (an absent optional input is a nullptr)
  int numInputs() const { return static_cast<int>(inputs_.size()); }
  bool hasInput(int i) const { return i >= 0 && i < numInputs() && inputs_[static_cast<size_t>(i)]; }
  Tensor* input(int i) const;
  const TensorInfo& inInfo(int i) const { return input(i)->info; }
  const Shape& inShape(int i) const { return input(i)->info.shape(); }
  DataType inType(int i) const { return input(i)->info.dataType(); }
  const std::vector<Tensor*>& inputs() const { return inputs_; }
  /// Host value of input i when it is known while building (constant or weight), else nullptr.
  const TensorData* inData(int i) const;
  /// Host value of input i when it is a constant, else nullptr. Kernels that precompute from an
  /// input (transposed or transformed weights) must use this: a weight's host value is only its
  /// initial value once it is trained or written (writeWeights + weightsFromHost).
  const TensorData* inConstData(int i) const;
  /// Host value of input i; throws naming the input when it is not known ("what" says why it
  /// is needed, e.g. "the target shape").
  const TensorData& requireInData(int i, const char* what) const;

  // ---- outputs
  int numOutputs() const { return static_cast<int>(outputs_.size()); }
  bool hasOutput(int i) const { return i >= 0 && i < numOutputs() && outputs_[static_cast<size_t>(i)]; }
  Tensor* output(int i) const;
  TensorInfo& outInfo(int i) const { return output(i)->info; }
  const std::vector<Tensor*>& outputs() const { return outputs_; }

  /// "node 'Conv_3' (Conv, opset 11)"
  std::string describe() const;
  /// describe() plus every input's id, type and shape.
  std::string describeWithInputs() const;

  /// Runs the definition's setup (attribute checks and shape/type inference); errors get the
  /// node's context: "while inferring shapes for node 'Conv_3' (Conv, opset 11, ...): ...".
  void setup();

  // Graph edits (keep producer/consumer links consistent).
  void connectInput(int i, Tensor* t);
  void disconnectInput(int i);
  void disconnectAllInputs();
  void connectOutput(int i, Tensor* t);

  /// For patterns: inputs/outputs as placed by the importer.
  std::vector<Tensor*>& mutableInputs() { return inputs_; }

 private:
  const OpDef* def_;
  Graph* graph_;
  OpId id_;
  std::string name_;
  int opset_;
  std::vector<Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
};

}  // namespace popart
