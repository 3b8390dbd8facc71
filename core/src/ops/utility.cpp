// Graphcore's utility ops: Init (a new tensor), PrintTensor (shows a tensor, passes it on), Abort
// (stops a run), TensorRemap (a layout change: the identity here) and CopyVarUpdate (writes a
// variable).
#include <algorithm>
#include <string>
#include <variant>

#include "ir/graph.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "popart/op/init.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

using namespace ops;

/// Init(shape, data_type, init_type, [batch_axis]): data_type is PopART's DataType number (the
/// Builder writes it so; the numbering is this runtime's too), init_type an InitType name or number.
void setupInit(Op& op) {
  const Shape shape = op.attrs.getInts("shape");
  for (auto d : shape) {
    if (d < 0) throw error("shape {} must not have negative dimensions", shape);
  }
  const int64_t dt = op.attrs.getInt("data_type");
  const DataType t = static_cast<DataType>(dt);
  if (dt < 0 || dt >= static_cast<int64_t>(DataType::UNDEFINED) || t == DataType::STRING || t == DataType::COMPLEX64 ||
      t == DataType::COMPLEX128 || t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152)
    throw error("data_type {} is not a numeric or BOOL DataType",
                dt >= 0 && dt <= static_cast<int64_t>(DataType::UNDEFINED) ? dataTypeToString(t) : std::to_string(dt));
  const AttrValue& it = op.attrs.all().count("init_type") ? op.attrs.all().at("init_type") : AttrValue(int64_t(-1));
  if (const auto* s = std::get_if<std::string>(&it)) {
    enumFromString<InitType>(*s);
  } else {
    const int64_t v = op.attrs.getInt("init_type");
    if (v < 0 || v >= static_cast<int64_t>(InitType::N))
      throw error("init_type {} is not an InitType (0: NoInit, 1: Zero)", v);
  }
  if (op.attrs.has("batch_axis")) {
    const int64_t a = op.attrs.getInt("batch_axis");
    const int64_t r = static_cast<int64_t>(shape.size());
    if (a < -1 || a >= r)
      throw error("batch_axis {} is out of range for the shape {} (-1 for none, or 0 to {})", a, shape, r - 1);
  }
  setOutput(op, 0, t, shape);
}

/// PrintTensor(x; print_gradient, title): y = x; prints "title: values" when it runs.
void setupPrintTensor(Op& op) {
  if (op.inType(0) == DataType::STRING) throw error("PrintTensor cannot print STRING tensors");
  op.attrs.getInt("print_gradient", 1);
  op.attrs.getString("title", "");
  setupSameAsInput0(op);
}

/// Abort([condition]): no outputs; the condition, when given, holds one value.
void setupAbort(Op& op) {
  if (!op.hasInput(0)) return;
  if (op.inType(0) == DataType::STRING || op.inInfo(0).nelms() != 1)
    throw error("the condition '{}' must hold one numeric or BOOL value, got {}", op.input(0)->id,
                op.inInfo(0).toString());
}

/// TensorRemap(x, [reference]; remap_type): x itself (a layout change on the IPU).
void setupTensorRemap(Op& op) {
  const int64_t r = op.attrs.getInt("remap_type", 0);
  if (r < 0 || r > 2) throw error("remap_type {} is not a TensorRemapType (0: FwdBwdReverse, 1: Fwd, 2: Bwd)", r);
  setupSameAsInput0(op);
}

/// CopyVarUpdate(var, updater): var := updater when it runs, after the readers of var that come
/// before it in the model; the output is the updated value. (That var is a variable, not a
/// constant, is checked by the kernel: the Builder's shape inference sees initializers as values.)
void setupGcCopyVarUpdate(Op& op) {
  Tensor* var = op.input(0);
  if (op.inInfo(0) != op.inInfo(1))
    throw error("the variable '{}' ({}) cannot take the value of '{}' ({})", var->id, op.inInfo(0).toString(),
                op.input(1)->id, op.inInfo(1).toString());
  if (op.hasOutput(0) && op.output(0)->consumers.empty()) {
    for (Op* c : var->consumers) {
      if (c != &op && std::find(op.after.begin(), op.after.end(), c) == op.after.end()) op.after.push_back(c);
    }
  }
  setupSameAsInput0(op);
}

// ---------------------------------------------------------------- grad rules

/// PrintTensor: the gradient passes through a PrintTensor of its own when print_gradient is set,
/// titled "<title>_gradient", or the gradient's id (Gradient___<x>) without a title.
void gradPrintTensor(GradCtx& c) {
  const Op& op = c.op();
  if (op.attrs.getInt("print_gradient", 1) == 0) {
    c.setInGrad(0, c.outGrad(0));
    return;
  }
  const std::string title = op.attrs.getString("title", "");
  Attributes a;
  a.set("print_gradient", int64_t(0));
  a.set("title", title.empty() ? std::string(reservedGradientPrefix()) + c.in(0)->id : title + "_gradient");
  c.setInGrad(0, c.add1(OpKind::GcPrintTensor, {c.outGrad(0)}, a));
}

/// TensorRemap: the identity.
void gradIdentity(GradCtx& c) {
  c.setInGrad(0, c.outGrad(0));
}

}  // namespace

void define_GcInit(OpDef& d) {
  d.setup = setupInit;
  d.foldable = false;
}
void define_GcPrintTensor(OpDef& d) {
  d.setup = setupPrintTensor;
  d.foldable = false;
  d.sideEffect = true;
  d.grad = gradPrintTensor;
}
void define_GcAbort(OpDef& d) {
  d.setup = setupAbort;
  d.foldable = false;
  d.sideEffect = true;
}
void define_GcTensorRemap(OpDef& d) {
  d.setup = setupTensorRemap;
  d.view = ViewKind::Reshape;
  d.grad = gradIdentity;
}
void define_GcCopyVarUpdate(OpDef& d) {
  d.setup = setupGcCopyVarUpdate;
  d.foldable = false;
  d.sideEffect = true;
}

}  // namespace popart
