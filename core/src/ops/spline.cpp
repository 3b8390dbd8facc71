// PopART's spline convolution ops (ai.graphcore): SplineBasis (the B-spline basis of each edge's
// pseudo-coordinates and the index of the weight each basis product selects) and SplineWeighting
// (the basis-weighted sum of the selected weights applied to each edge's input). As
// torch_spline_conv's spline_basis / spline_weighting; PopART has no gradient for either.
#include "ops/spline_params.hpp"

#include "ir/op_def.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {
namespace {

void requireRankNamed(const Op& op, int i, int rank, const char* what, const char* name) {
  if (op.inInfo(i).rank() != rank)
    throw error("{}: {} tensor is not a {}-D tensor. {} tensor rank = {}.", op.type(), what, rank, name,
                op.inInfo(i).rank());
}

bool isSplineIndexType(DataType t) {
  return t == DataType::INT32 || t == DataType::INT64;
}

}  // namespace

SplineBasisParams splineBasisParams(const Op& op) {
  requireRankNamed(op, 0, 2, "pseudo", "Pseudo");
  requireRankNamed(op, 1, 1, "kernelSize", "KernelSize");
  requireRankNamed(op, 2, 1, "isOpenSpline", "isOpenSpline");
  requireFloat(op, 0);
  if (!isSplineIndexType(op.inType(1)))
    throw error("input 1 ('{}', kernelSize) must be INT32 (PopART's type; INT64 is read too), but it is {}",
                op.input(1)->id, op.inInfo(1).toString());
  requireType(op, 2, {DataType::UINT8, DataType::BOOL});
  SplineBasisParams p;
  p.edges = op.inShape(0)[0];
  p.dims = op.inShape(0)[1];
  p.degree = op.attrs.getInt("degree", 0);  // PopART's reading of a node without the attribute
  if (p.degree < 0 || p.degree > 3)
    throw error("SplineBasisOp degree = {} is not valid: must be between 0 and 3.", p.degree);
  for (int i = 1; i <= 2; ++i)
    if (op.inShape(i)[0] != p.dims)
      throw error("input {} ('{}') must have one value per pseudo-coordinate dimension ([{}]), but it is {}", i,
                  op.input(i)->id, p.dims, op.inInfo(i).toString());
  p.splines = 1;
  for (int64_t d = 0; d < p.dims; ++d) {
    p.splines *= p.degree + 1;
    if (p.splines > (int64_t{1} << 31))
      throw error("(degree + 1)^D = {}^{} basis functions per edge is too many", p.degree + 1, p.dims);
  }
  return p;
}

SplineWeightingParams splineWeightingParams(const Op& op) {
  requireRankNamed(op, 0, 2, "input", "Input");
  requireRankNamed(op, 1, 3, "weight", "Weight");
  requireRankNamed(op, 2, 2, "basis", "Basis");
  requireRankNamed(op, 3, 2, "weightIndex", "weightIndex");
  requireFloat(op, 0);
  const char* names[] = {"input", "weight", "basis"};
  for (int i = 1; i <= 2; ++i)
    if (op.inType(i) != op.inType(0))
      throw error(
          "{}: The input and {} tensors have different data types. The input tensor data type = {}. The {} tensor "
          "data type = {}.",
          op.type(), names[i], op.inInfo(0).data_type_lcase(), names[i], op.inInfo(i).data_type_lcase());
  if (!isSplineIndexType(op.inType(3)))
    throw error("input 3 ('{}', weightIndex) must be INT32 (PopART's type; INT64 is read too), but it is {}",
                op.input(3)->id, op.inInfo(3).toString());
  SplineWeightingParams p;
  p.edges = op.inShape(0)[0];
  p.inChannels = op.inShape(0)[1];
  p.kernels = op.inShape(1)[0];
  p.outChannels = op.inShape(1)[2];
  p.splines = op.inShape(2)[1];
  if (op.inShape(1)[1] != p.inChannels)
    throw error("weight {} must be [K, {}, Mout] to match the input's {} channels", op.inInfo(1).toString(),
                p.inChannels, p.inChannels);
  if (op.inShape(2)[0] != p.edges)
    throw error("basis {} must have one row per edge of the input ({})", op.inInfo(2).toString(), p.edges);
  if (op.inShape(3) != op.inShape(2))
    throw error("weightIndex {} must have the basis's shape {}", op.inInfo(3).toString(), op.inShape(2));
  return p;
}

}  // namespace ops

namespace {

void setupSplineBasis(Op& op) {
  const ops::SplineBasisParams p = ops::splineBasisParams(op);
  ops::setOutput(op, 0, op.inType(0), {p.edges, p.splines});
  ops::setOutput(op, 1, op.inType(1), {p.edges, p.splines});  // kernelSize's type, as PopART
}

void setupSplineWeighting(Op& op) {
  const ops::SplineWeightingParams p = ops::splineWeightingParams(op);
  ops::setOutput(op, 0, op.inType(0), {p.edges, p.outChannels});
}

}  // namespace

void define_GcSplineBasis(OpDef& d) {
  d.setup = setupSplineBasis;
}
void define_GcSplineWeighting(OpDef& d) {
  d.setup = setupSplineWeighting;
}

}  // namespace popart
