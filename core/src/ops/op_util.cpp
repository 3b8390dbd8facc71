#include "ops/op_util.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "ir/ir.hpp"
#include "ir/tensor.hpp"

namespace popart {
namespace ops {

int64_t normalizeAxis(int64_t axis, int64_t rank, const char* what) {
  // A scalar has no axis: its callers index the shape with the result.
  if (rank <= 0) throw error("{} {} is out of range for a tensor of rank 0 (a scalar has no axes)", what, axis);
  if (axis < -rank || axis >= rank)
    throw error("{} {} is out of range for a tensor of rank {} (valid: {} to {})", what, axis, rank, -rank, rank - 1);
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normalizeAxes(const std::vector<int64_t>& axes, int64_t rank, const char* what) {
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  for (auto a : axes) {
    const int64_t n = normalizeAxis(a, rank, what);
    if (!seen.insert(n).second) throw error("{} {} repeats axis {}", what, axes, a);
    out.push_back(n);
  }
  return out;
}

std::vector<int64_t> normalizeReduceAxes(const std::vector<int64_t>& axes, int64_t rank) {
  for (auto a : axes)
    if (a < -rank || a > rank - 1) throw error("Axis {} is out of acceptable range [{}, {}]", a, -rank, rank - 1);
  return normalizeAxes(axes, rank, "axes");
}

void setOutput(Op& op, int i, DataType t, const Shape& s) {
  if (op.hasOutput(i)) op.outInfo(i) = TensorInfo(t, s);
}

bool isFloatType(DataType t) {
  return t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::DOUBLE || t == DataType::BFLOAT16;
}

void requireFloat(const Op& op, int i) {
  if (!isFloatType(op.inType(i)))
    throw error("input {} ('{}') must be a floating-point tensor (FLOAT, FLOAT16, DOUBLE), but it is {}", i,
                op.input(i)->id, op.inInfo(i).toString());
}

void requireType(const Op& op, int i, std::initializer_list<DataType> allowed) {
  for (DataType t : allowed) {
    if (op.inType(i) == t) return;
  }
  std::string names;
  for (DataType t : allowed) names += (names.empty() ? "" : ", ") + dataTypeToString(t);
  throw error("input {} ('{}') must be one of {}, but it is {}", i, op.input(i)->id, names, op.inInfo(i).toString());
}

void requireSameType(const Op& op, int a, int b) {
  if (op.inType(a) != op.inType(b))
    throw error("inputs {} ('{}', {}) and {} ('{}', {}) must have the same element type", a, op.input(a)->id,
                op.inInfo(a).toString(), b, op.input(b)->id, op.inInfo(b).toString());
}

DataType broadcastType(const Op& op, int a, int b, bool fp16ScalarMix) {
  const TensorInfo& ia = op.inInfo(a);
  const TensorInfo& ib = op.inInfo(b);
  if (ia.dataType() == ib.dataType()) return ia.dataType();
  auto halfOrFloatScalar = [](const TensorInfo& i) {
    return i.dataType() == DataType::FLOAT16 || (i.dataType() == DataType::FLOAT && i.nelms() == 1);
  };
  if (fp16ScalarMix && halfOrFloatScalar(ia) && halfOrFloatScalar(ib)) return DataType::FLOAT16;
  throw error("np broadcasting failed, incompatible types {} and {} (shapes {} and {})", ia.data_type(), ib.data_type(),
              ia.shape(), ib.shape());
}

void requireParamType(const Op& op, int i, int x) {
  const DataType t = op.inType(i), xt = op.inType(x);
  if (t == xt || (t == DataType::FLOAT && (xt == DataType::FLOAT16 || xt == DataType::BFLOAT16))) return;
  throw error("input {} ('{}') must be {} (the type of input {} '{}'){}, but it is {}", i, op.input(i)->id,
              dataTypeToString(xt), x, op.input(x)->id,
              xt == DataType::FLOAT16 || xt == DataType::BFLOAT16 ? " or FLOAT" : "", op.inInfo(i).toString());
}

void requireRank(const Op& op, int i, int r, bool atLeast) {
  const int have = op.inInfo(i).rank();
  if (atLeast ? have < r : have != r)
    throw error("input {} ('{}') must have rank {}{}, but it is {}", i, op.input(i)->id, atLeast ? ">= " : "", r,
                op.inInfo(i).toString());
}

std::string commaList(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string popartInfo(const TensorInfo& info) {
  std::string t = info.data_type();
  if (t.size() < 8) t.resize(8, ' ');
  return t + format("{}", info.shape());
}

std::string popartDebugName(const Op& op) {
  auto ids = [](const std::vector<Tensor*>& ts) {
    std::string s;
    for (const Tensor* t : ts) {
      if (!t) continue;
      s += (s.empty() ? "" : ", ") + t->id;
    }
    return s;
  };
  return format("Op({} ({}), inputs=[{}], outputs=[{}])", op.name(), popartOpid(op), ids(op.inputs()),
                ids(op.outputs()));
}

std::string popartOpid(const Op& op) {
  return format("{}.{}:{}", op.domain(), op.type(), op.opset());
}

std::string popartNodeName(const Op& op) {
  const std::string& name = op.name();
  const size_t scope = name.rfind('/');
  const std::string last = scope == std::string::npos ? name : name.substr(scope + 1);
  const std::string& type = op.type();
  if (last == type) return "";
  const bool numbered = last.size() > type.size() + 1 && last.compare(0, type.size(), type) == 0 &&
                        last[type.size()] == '_' &&
                        std::all_of(last.begin() + static_cast<std::ptrdiff_t>(type.size()) + 1, last.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
  return numbered ? "" : name;
}

std::string popartCreatorName(const Op& op, const std::vector<int>& inputs) {
  std::string ids;
  for (int i : inputs) {
    if (op.hasInput(i)) ids += (ids.empty() ? "" : ", ") + op.input(i)->id;
  }
  return format("Op {}({}), inputs=[{}]", popartNodeName(op), popartOpid(op), ids);
}

bool popartOnnxOpset(const Op& op) {
  return op.domain() == "ai.onnx" && op.opset() <= 11;
}

Shape broadcastInputs(const Op& op, const std::vector<int>& inputs) {
  Shape s;
  bool first = true;
  for (int i : inputs) {
    if (!op.hasInput(i)) continue;
    if (first) {
      s = op.inShape(i);
      first = false;
      continue;
    }
    try {
      s = npOut(s, op.inShape(i));
    } catch (const error&) {
      // PopART's npOut message (shapes as "[10, 10]"), then which input it is.
      throw error(
          "np broadcasting failed on '{}', frames {} and {} are not aligned (input {} ('{}') with shape {} does not "
          "broadcast with shape {}, numpy rules)",
          popartDebugName(op), commaList(s), commaList(op.inShape(i)), i, op.input(i)->id, op.inShape(i), s);
    }
  }
  return s;
}

std::vector<int64_t> intsFromInputOrAttr(const Op& op, int i, const char* attr, const char* what,
                                         const std::vector<int64_t>& dflt) {
  if (op.hasInput(i)) return op.requireInData(i, what).toInt64();
  return op.attrs.getInts(attr, dflt);
}

void setupSameAsInput0(Op& op) {
  setOutput(op, 0, op.inInfo(0));
}

}  // namespace ops
}  // namespace popart
