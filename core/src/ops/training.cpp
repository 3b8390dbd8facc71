// ONNX's ai.onnx.preview.training domain (opset 1): the optimizer steps Adagrad, Adam and Momentum,
// pure functions of their inputs (layout: ops/training_params.hpp), and Gradient, whose outputs
// the prepare pipeline computes by the backward pass of the forward ops it names
// (passes/gradient_op.hpp).
#include <set>
#include <string>

#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/training_params.hpp"

namespace popart {
namespace {

/// The name of input group k of an optimizer op (0: X, 1: G, then its states).
const char* groupName(OpKind kind, int k) {
  if (k < 2) return k == 0 ? "X" : "G";
  if (kind == OpKind::Adagrad) return "H";
  if (kind == OpKind::Momentum) return "V";
  return k == 2 ? "V" : "H";
}

/// The input groups ("X, G, H" for Adagrad) or the output groups ("X_new, H_new").
std::string groupList(OpKind kind, bool outputs) {
  std::string s;
  for (int k = 0; k < 2 + ops::trainingStates(kind); ++k) {
    if (outputs && k == 1) continue;
    s += (s.empty() ? "" : ", ") + std::string(groupName(kind, k)) + (outputs ? "_new" : "");
  }
  return s;
}

void setupOptimizerStep(Op& op) {
  const int states = ops::trainingStates(op.kind());
  const int per = 2 + states;
  const int groupInputs = op.numInputs() - ops::kTrainFirstX;
  if (groupInputs < per || groupInputs % per != 0)
    throw error(
        "{} takes R, T, then the tensors {} of each optimized tensor, one group after the other (2 + {}n inputs for n "
        "tensors), but the node has {} inputs",
        op.type(), groupList(op.kind(), false), per, op.numInputs());
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i)) throw error("input {} of {} is empty: every input is required", i, op.type());
  }
  const int n = ops::trainingTensors(op);
  if (op.numOutputs() != n * (1 + states))
    throw error("{} of {} tensor(s) has {} outputs ({} of each tensor, one group after the other), but the node has {}",
                op.type(), n, n * (1 + states), groupList(op.kind(), true), op.numOutputs());
  if (!ops::isFloatType(op.inType(ops::kTrainR)) || op.inInfo(ops::kTrainR).nelms() != 1)
    throw error("the learning rate R (input 0, '{}') must be a floating-point scalar, but it is {}",
                op.input(ops::kTrainR)->id, op.inInfo(ops::kTrainR).toString());
  if (op.inType(ops::kTrainT) != DataType::INT64 || op.inInfo(ops::kTrainT).nelms() != 1)
    throw error("the update count T (input 1, '{}') must be an INT64 scalar, but it is {}", op.input(ops::kTrainT)->id,
                op.inInfo(ops::kTrainT).toString());
  for (int i = 0; i < n; ++i) {
    const int xi = ops::trainingInput(op, 0, i);
    const TensorInfo& x = op.inInfo(xi);
    if (!ops::isFloatType(x.dataType()))
      throw error("the optimized tensor X{} (input {}, '{}') must be floating-point, but it is {}", i + 1, xi,
                  op.input(xi)->id, x.toString());
    for (int k = 1; k < per; ++k) {
      const int j = ops::trainingInput(op, k, i);
      const char* name = groupName(op.kind(), k);
      if (op.inInfo(j).dataType() != x.dataType() || op.inShape(j) != x.shape())
        throw error("{}{} (input {}, '{}', {}) must have the type and shape of X{} ('{}', {})", name, i + 1, j,
                    op.input(j)->id, op.inInfo(j).toString(), i + 1, op.input(xi)->id, x.toString());
    }
    for (int k = 0; k <= states; ++k) {
      ops::setOutput(op, ops::trainingOutput(op, k, i), op.inInfo(k == 0 ? xi : ops::trainingInput(op, 1 + k, i)));
    }
  }
}

void setupAdagrad(Op& op) {
  setupOptimizerStep(op);
  if (op.attrs.getFloat("epsilon", 1e-6f) < 0.0f) throw error("attribute 'epsilon' must not be negative");
}

void setupAdam(Op& op) {
  setupOptimizerStep(op);
  if (op.attrs.getFloat("epsilon", 1e-6f) < 0.0f) throw error("attribute 'epsilon' must not be negative");
  (void)op.attrs.getFloat("alpha", 0.9f);
  (void)op.attrs.getFloat("beta", 0.999f);
  (void)op.attrs.getFloat("norm_coefficient", 0.0f);
  (void)op.attrs.getFloat("norm_coefficient_post", 0.0f);
}

void setupMomentum(Op& op) {
  setupOptimizerStep(op);
  // Required by ONNX: a missing one is an error naming it.
  (void)op.attrs.getFloat("alpha");
  (void)op.attrs.getFloat("beta");
  (void)op.attrs.getFloat("norm_coefficient");
  const std::string mode = op.attrs.getString("mode");
  if (mode != "standard" && mode != "nesterov")
    throw error("attribute 'mode' is '{}', but Momentum's mode is 'standard' or 'nesterov'", mode);
}

// Gradient(xs, zs, y): one input per name of xs then zs (the values at which the gradient is taken),
// one output per name of xs (dy/dx, shaped like x). The tensors xs, zs and y name are looked up,
// and the gradient built, when the session is prepared (passes/gradient_op.cpp).
void setupGradient(Op& op) {
  const std::vector<std::string> xs = op.attrs.getStrings("xs");
  const std::vector<std::string> zs = op.attrs.getStrings("zs", {});
  const std::string y = op.attrs.getString("y");
  if (xs.empty()) throw error("attribute 'xs' is empty: name at least one tensor to differentiate with respect to");
  std::set<std::string> seen;
  for (const auto* names : {&xs, &zs}) {
    for (const std::string& s : *names) {
      if (!seen.insert(s).second) throw error("'{}' is named twice in attributes 'xs' and 'zs'", s);
    }
  }
  const size_t nIn = xs.size() + zs.size();
  if (static_cast<size_t>(op.numInputs()) != nIn)
    throw error("Gradient takes one input per name of 'xs' then of 'zs' ({} inputs), but the node has {}", nIn,
                op.numInputs());
  if (static_cast<size_t>(op.numOutputs()) > xs.size())
    throw error("Gradient gives one output per name of 'xs' ({}), but the node has {} outputs", xs.size(),
                op.numOutputs());
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i))
      throw error("input {} (the value of '{}') is empty", i,
                  static_cast<size_t>(i) < xs.size() ? xs[i] : zs[i - xs.size()]);
  }
  for (int i = 0; i < op.numOutputs(); ++i) {
    if (!ops::isFloatType(op.inType(i)))
      throw error("'{}' (xs[{}], input '{}') must be a floating-point tensor to have a gradient, but it is {}",
                  xs[static_cast<size_t>(i)], i, op.input(i)->id, op.inInfo(i).toString());
    ops::setOutput(op, i, op.inInfo(i));
  }
  if (y.empty()) throw error("attribute 'y' is empty: name the tensor to differentiate");
}

}  // namespace

void define_Adagrad(OpDef& d) {
  d.setup = setupAdagrad;
}
void define_Adam(OpDef& d) {
  d.setup = setupAdam;
}
void define_Momentum(OpDef& d) {
  d.setup = setupMomentum;
}
void define_Gradient(OpDef& d) {
  d.setup = setupGradient;
  // Its outputs are built from the graph around it when the session is prepared.
  d.foldable = false;
}

}  // namespace popart
