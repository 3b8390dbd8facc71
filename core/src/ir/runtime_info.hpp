// An import error that a run's values or shapes would resolve (docs/architecture.md, "Static and
// run-time planning"): a shape-giving input (Reshape's shape, Range's bounds, ...) that is not
// known when the model is compiled, or a model input whose shape uses a symbolic dimension that
// InputShapeInfo does not give. The message is PopART's (the IPU model and offline devices report
// it as is); a CPU session catches it and plans at run time instead.
#pragma once

#include <string>
#include <utility>

#include "popart/error_context.hpp"
#include "popart/names.hpp"

namespace popart {

class RunTimeInfoNeeded : public contextual_error {
 public:
  enum class Kind {
    Value,       ///< `tensor`'s value gives a shape, and it is computed at run time
    InputShape,  ///< model input `tensor`'s shape has a dimension only a run gives
  };
  RunTimeInfoNeeded(const std::string& what, Kind kind, TensorId tensor)
      : contextual_error(what, what), kind_(kind), tensor_(std::move(tensor)) {}
  /// The same need, with the context (the node) added to the message.
  RunTimeInfoNeeded(const std::string& what, const RunTimeInfoNeeded& inner)
      : contextual_error(what, inner.message()), kind_(inner.kind_), tensor_(inner.tensor_) {}
  /// The same need, in another message (`message`: the op's own, `what` with the context).
  RunTimeInfoNeeded(const std::string& what, const std::string& message, const RunTimeInfoNeeded& inner)
      : contextual_error(what, message), kind_(inner.kind_), tensor_(inner.tensor_) {}
  Kind kind() const { return kind_; }
  const TensorId& tensor() const { return tensor_; }

 private:
  Kind kind_;
  TensorId tensor_;
};

class Tensor;

/// PopART's message for input `input` of a node, tensor `t`, whose value gives `what` but is
/// computed at run time (Op::requireInData; the sequence ops' positions and sizes).
RunTimeInfoNeeded valueNeeded(int input, const Tensor& t, const std::string& what);

}  // namespace popart
