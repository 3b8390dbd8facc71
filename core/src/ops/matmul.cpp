// Matrix products: MatMul (numpy semantics, batched, 1-D operands) and Gemm.
#include "ops/op_def.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

void setupMatMul(Op& op) {
  requireSameType(op, 0, 1);
  if (op.inType(0) == DataType::BOOL || op.inType(0) == DataType::STRING)
    throw error("MatMul needs numeric inputs, got {}", op.inInfo(0).toString());
  Shape a = op.inShape(0), b = op.inShape(1);
  if (a.empty() || b.empty()) throw error("MatMul inputs must have rank >= 1, got {} and {}", a, b);
  const bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec) a.insert(a.begin(), 1);
  if (bVec) b.push_back(1);
  const int64_t k = a.back();
  if (b[b.size() - 2] != k)
    throw error(
        "MatMul inner dimensions differ: {} x {} (the last dimension of the first input must equal the "
        "second-to-last of the second)",
        op.inShape(0), op.inShape(1));
  const Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  Shape out;
  try {
    out = npOut(batchA, batchB);
  } catch (const error&) {
    throw error("MatMul batch dimensions {} and {} do not broadcast", batchA, batchB);
  }
  if (!aVec) out.push_back(a[a.size() - 2]);
  if (!bVec) out.push_back(b.back());
  setOutput(op, 0, op.inType(0), out);
}

void setupGemm(Op& op) {
  requireSameType(op, 0, 1);
  const Shape& a = op.inShape(0);
  const Shape& b = op.inShape(1);
  if (a.size() != 2 || b.size() != 2) throw error("Gemm inputs A and B must be matrices, got {} and {}", a, b);
  const bool ta = op.attrs.getInt("transA", 0) != 0;
  const bool tb = op.attrs.getInt("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (ka != kb) throw error("Gemm inner dimensions differ: A {} (transA={}) and B {} (transB={})", a, ta, b, tb);
  if (op.hasInput(2)) {
    requireSameType(op, 0, 2);
    const Shape& c = op.inShape(2);
    Shape bc;
    try {
      bc = npOut({m, n}, c);
    } catch (const error&) {
      bc = {};
    }
    if (bc != Shape{m, n}) throw error("Gemm input C with shape {} does not broadcast to [{} {}]", c, m, n);
  } else if (op.opset() < 11) {
    throw error("Gemm before opset 11 needs input C");
  }
  setOutput(op, 0, op.inType(0), {m, n});
}

}  // namespace

void define_MatMul(OpDef& d) {
  d.minInputs = d.maxInputs = 2;
  d.setup = setupMatMul;
}
void define_Gemm(OpDef& d) {
  d.minInputs = 2;
  d.maxInputs = 3;
  d.setup = setupGemm;
}

}  // namespace popart
