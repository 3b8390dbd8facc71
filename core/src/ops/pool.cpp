// Pooling: MaxPool (with optional indices), AveragePool, GlobalAveragePool, GlobalMaxPool.
#include "ops/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/window.hpp"

namespace popart {
namespace {

using namespace ops;

void setupPool(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  if (x.size() < 3) throw error("input X must have rank >= 3 ([N, C, spatial...]), got {}", x);
  const auto kernel = op.attrs.getInts("kernel_shape");
  const bool ceil = op.attrs.getInt("ceil_mode", 0) != 0;
  const bool allowDil = op.kind() == OpKind::MaxPool && op.opset() >= 10;
  const Window w = computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), kernel, ceil, allowDil);
  Shape out{x[0], x[1]};
  out.insert(out.end(), w.outSpatial.begin(), w.outSpatial.end());
  setOutput(op, 0, op.inType(0), out);
  setOutput(op, 1, DataType::INT64, out);  // MaxPool indices
}

void setupGlobalPool(Op& op) {
  requireFloat(op, 0);
  Shape s = op.inShape(0);
  if (s.size() < 3) throw error("input X must have rank >= 3 ([N, C, spatial...]), got {}", s);
  for (size_t i = 2; i < s.size(); ++i) s[i] = 1;
  setOutput(op, 0, op.inType(0), s);
}

}  // namespace

void define_MaxPool(OpDef& d) {
  d.maxOutputs = 2;
  d.setup = setupPool;
}
void define_AveragePool(OpDef& d) {
  d.setup = setupPool;
}
void define_GlobalAveragePool(OpDef& d) {
  d.setup = setupGlobalPool;
}
void define_GlobalMaxPool(OpDef& d) {
  d.setup = setupGlobalPool;
}

}  // namespace popart
