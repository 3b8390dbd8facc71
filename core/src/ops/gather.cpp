// Gather.
#include "ops/op_def.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

void setupGather(Op& op) {
  requireType(op, 1, {DataType::INT32, DataType::INT64});
  const Shape& data = op.inShape(0);
  if (data.empty()) throw error("Gather data must have rank >= 1");
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  Shape out(data.begin(), data.begin() + axis);
  const Shape& idx = op.inShape(1);
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  if (const TensorData* d = op.inData(1)) {
    const int64_t n = data[static_cast<size_t>(axis)];
    for (auto i : d->toInt64()) {
      if (i < -n || i >= n) throw error("index {} is out of range for axis {} of size {}", i, axis, n);
    }
  }
  setOutput(op, 0, op.inType(0), out);
}

}  // namespace

void define_Gather(OpDef& d) {
  d.minInputs = d.maxInputs = 2;
  d.setup = setupGather;
}

}  // namespace popart
