// The op list as C++: OpKind, OpDef (what the IR knows about an op type) and lookup.
#pragma once

#include <string>
#include <vector>

namespace popart {

class Op;
class GradCtx;

enum class OpKind {
#define POPART_OP(E, T, D, F, ...) E,
#include "oplist/ops.def"
#undef POPART_OP
  N
};

/// How an op's output 0 relates to its input 0 in memory.
enum class ViewKind {
  None,     ///< a fresh buffer
  Reshape,  ///< the same bytes, another shape (Reshape, Flatten, Squeeze, Identity, ...)
};

/// ONNX's domain of the training ops (Adagrad, Adam, Momentum, Gradient), op list domain `training`.
inline constexpr const char* kPreviewTrainingDomain = "ai.onnx.preview.training";

struct OpDef {
  OpKind kind = OpKind::N;
  std::string type;    ///< ONNX op_type
  std::string domain;  ///< "ai.onnx", "ai.graphcore", "ai.onnx.preview.training", "internal"
  std::string family;  ///< ops/<family>.cpp defines it, backends/cpu/kernels/<family>.cpp runs it
  // From the op list (oplist/ops.def), not set by the family's define_X:
  int minInputs = 1;
  int maxInputs = 1;  ///< -1: variadic
  int minOutputs = 1;
  int maxOutputs = 1;  ///< -1: variadic
  int sinceOpset = 1;  ///< the earliest opset of its domain this runtime implements
  /// Parses/validates attributes and sets every output's TensorInfo from the inputs.
  void (*setup)(Op& op) = nullptr;
  /// May be evaluated at import when every input is constant.
  bool foldable = true;
  /// Folds from input shapes alone (Shape, Size), whatever the inputs' kinds.
  bool foldFromShapesOnly = false;
  ViewKind view = ViewKind::None;
  /// Has an effect besides its outputs (weight updates): never pruned.
  bool sideEffect = false;
  /// Inputs (by index) whose values, not just shapes, determine output shapes.
  unsigned shapeInputsMask = 0;
  /// The grad rule (autodiff/autodiff.hpp): adds the ops computing the gradients of the inputs
  /// from those of the outputs. nullptr: not differentiable in this runtime.
  void (*grad)(GradCtx& ctx) = nullptr;
};

/// The definition of an op kind.
const OpDef& opDef(OpKind k);
/// The definition of an ONNX op type in a domain ("" or "ai.onnx" for ONNX), or nullptr.
const OpDef* findOpDef(const std::string& domain, const std::string& type);
/// Every registered definition, in op-list order.
const std::vector<OpDef>& allOpDefs();
/// "ai.onnx" for "", else the domain itself.
std::string canonicalDomain(const std::string& domain);

}  // namespace popart
