// Matrix products: MatMul (numpy semantics, batched, 1-D operands) and Gemm.
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
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

namespace {

/// `t` with its last two dimensions swapped.
Tensor* swapLast2(GradCtx& c, Tensor* t) {
  const int64_t r = static_cast<int64_t>(t->info.shape().size());
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) perm[static_cast<size_t>(i)] = i;
  std::swap(perm[static_cast<size_t>(r - 1)], perm[static_cast<size_t>(r - 2)]);
  Attributes a;
  a.set("perm", perm);
  return c.add1(OpKind::Transpose, {t}, a);
}

// C = A B (numpy matmul): dA = dC B^T, dB = A^T dC, each summed over broadcast batch dimensions.
// A 1-D operand is promoted as the forward op does (A [K] -> [1 K], B [K] -> [K 1]); dC is seen with
// the promoted output shape (the removed 1 put back), and each gradient is squeezed back to its
// operand's shape.
void gradMatMul(GradCtx& c) {
  const Shape& sa = c.in(0)->info.shape();
  const Shape& sb = c.in(1)->info.shape();
  Tensor* a = c.in(0);
  Tensor* b = c.in(1);
  Tensor* g = c.outGrad(0);
  if (sa.size() == 1 || sb.size() == 1) {
    const Shape pa = sa.size() == 1 ? Shape{1, sa[0]} : sa;
    const Shape pb = sb.size() == 1 ? Shape{sb[0], 1} : sb;
    Shape out = npOut(Shape(pa.begin(), pa.end() - 2), Shape(pb.begin(), pb.end() - 2));
    out.push_back(pa[pa.size() - 2]);
    out.push_back(pb.back());
    if (sa.size() == 1) a = c.reshape(a, pa);
    if (sb.size() == 1) b = c.reshape(b, pb);
    g = c.reshape(g, out);
  }
  // reduceTo sums over the broadcast batch dimensions to the (promoted) operand's shape; a promoted
  // operand's gradient is then reshaped (same elements) to its own 1-D shape.
  if (c.needsInGrad(0)) {
    Tensor* da = c.reduceTo(c.add1(OpKind::MatMul, {g, swapLast2(c, b)}), a->info.shape());
    c.setInGrad(0, sa.size() == 1 ? c.reshape(da, sa) : da);
  }
  if (c.needsInGrad(1)) {
    Tensor* db = c.reduceTo(c.add1(OpKind::MatMul, {swapLast2(c, a), g}), b->info.shape());
    c.setInGrad(1, sb.size() == 1 ? c.reshape(db, sb) : db);
  }
}

Tensor* gemm(GradCtx& c, Tensor* a, Tensor* b, int64_t transA, int64_t transB, float alpha) {
  Attributes at;
  at.set("transA", transA);
  at.set("transB", transB);
  at.set("alpha", alpha);
  return c.add1(OpKind::Gemm, {a, b}, at);
}

// Y = alpha A' B' + beta C with A' = A or A^T (transA), B' = B or B^T (transB).
void gradGemm(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  const int64_t tA = c.op().attrs.getInt("transA", 0), tB = c.op().attrs.getInt("transB", 0);
  const float alpha = c.op().attrs.getFloat("alpha", 1.0f), beta = c.op().attrs.getFloat("beta", 1.0f);
  Tensor* A = c.in(0);
  Tensor* B = c.in(1);
  if (c.needsInGrad(0)) c.setInGrad(0, tA ? gemm(c, B, g, tB, 1, alpha) : gemm(c, g, B, 0, tB ? 0 : 1, alpha));
  if (c.needsInGrad(1)) c.setInGrad(1, tB ? gemm(c, g, A, 1, tA, alpha) : gemm(c, A, g, tA ? 0 : 1, 0, alpha));
  if (c.op().hasInput(2) && c.needsInGrad(2)) {
    Tensor* d = c.reduceTo(g, c.in(2)->info.shape());
    if (beta != 1.0f) {
      Attributes a;
      a.set("scale", beta);
      d = c.add1(OpKind::GcScale, {d}, a);
    }
    c.setInGrad(2, d);
  }
}

}  // namespace

void define_MatMul(OpDef& d) {
  d.setup = setupMatMul;
  d.grad = gradMatMul;
}
void define_Gemm(OpDef& d) {
  d.setup = setupGemm;
  d.grad = gradGemm;
}

}  // namespace popart
