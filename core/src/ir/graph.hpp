// A graph: ops and the tensors between them. The Ir owns a main graph (and, later, subgraphs).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/op.hpp"
#include "ir/tensor.hpp"

namespace popart {

class Ir;

/// A sequence or optional value of the model being imported (docs/architecture.md, "Sequences and
/// optional values"). Such values exist only while a plan is made: their lengths and presence are
/// the plan's (known constants, or a run's when planned at run time), so the ops that make and read
/// them become the tensor ops they amount to (an element read is an Identity, a concatenation a
/// Concat) and the tensors of a sequence are ordinary tensors of the graph.
struct StructValue {
  enum class Kind { Sequence, Optional };
  Kind kind = Kind::Sequence;
  /// The element type (an empty sequence's or an absent optional's, as declared).
  DataType elemType = DataType::UNDEFINED;
  /// A sequence's tensors in order; an optional tensor's value (none or one).
  std::vector<TensorId> tensors;
  /// An optional sequence: whether it holds one, and which (in `tensors`).
  bool ofSequence = false;
  bool present = false;
  bool isSequence() const { return kind == Kind::Sequence; }
  /// "sequence", "optional tensor", "optional sequence" (for messages).
  std::string typeName() const;
};

/// The name of tensor `i` of sequence or optional value `id` where it is a model input or an
/// anchor of a plan ("<id>[<i>]").
inline TensorId elementTensorId(const TensorId& id, size_t i) {
  return id + "[" + std::to_string(i) + "]";
}

class Graph {
 public:
  Graph(Ir& ir, GraphId id) : ir_(&ir), id_(std::move(id)) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Ir& ir() const { return *ir_; }
  const GraphId& id() const { return id_; }

  // ---- tensors
  bool hasTensor(const TensorId& id) const { return tensors_.count(id) != 0; }
  Tensor* tensor(const TensorId& id) const;     ///< nullptr if absent
  Tensor& getTensor(const TensorId& id) const;  ///< throws if absent
  Tensor& addTensor(const TensorId& id, TensorKind kind, const TensorInfo& info);
  void removeTensor(const TensorId& id);
  /// A fresh id starting with `base` (base itself if free).
  TensorId uniqueTensorId(const std::string& base) const;
  std::vector<Tensor*> tensorsOfKind(TensorKind k) const;
  const std::map<TensorId, std::unique_ptr<Tensor>>& tensors() const { return tensors_; }

  // ---- ops
  Op& addOp(const OpDef& def, const std::string& name, int opset);
  void removeOp(Op* op);  ///< disconnects it first
  const std::map<OpId, std::unique_ptr<Op>>& ops() const { return ops_; }
  size_t numOps() const { return ops_.size(); }

  /// Topological order: of the ready ops, the one of the lowest Op::scheduleRank (its id unless
  /// set), ties broken by op id (= import order); `Op::after` constraints count as inputs.
  std::vector<Op*> topologicalOrder() const;

  std::vector<TensorId> inputIds;   ///< graph inputs (streams for the main graph)
  std::vector<TensorId> outputIds;  ///< graph outputs
  /// Subgraphs: tensors of enclosing graphs read here (same id as outside; the owning op takes
  /// the outer tensor as an extra input). Constants are copied in instead.
  std::vector<TensorId> implicitInputIds;
  Graph* parent = nullptr;  ///< the enclosing graph (subgraphs only)
  Op* owner = nullptr;      ///< the op whose attribute this subgraph is (subgraphs only)
  std::string protoName;    ///< the GraphProto's name (subgraphs; PopART keys its IR JSON by it)
  /// Sequence and optional values by name (while the graph is imported).
  std::map<std::string, StructValue> structValues;

 private:
  Ir* ir_;
  GraphId id_;
  std::map<TensorId, std::unique_ptr<Tensor>> tensors_;
  std::map<OpId, std::unique_ptr<Op>> ops_;
  OpId nextOpId_ = 0;
};

/// Whether the graph draws random numbers (PopART's Ir::getRequiresRandomSeed): the random ops,
/// Dropout where it drops, and, through control flow, those of subgraphs.
bool drawsRandomNumbers(const Graph& g);

}  // namespace popart
