// PopART's connectionist temporal classification ops (ai.graphcore): the CTC loss (Ctc, with its
// gradient op CtcGrad) and the CTC beam search decoder.
#include "ops/ctc_params.hpp"

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/losses.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {
namespace {

bool isIntegerIndexType(DataType t) {
  return t == DataType::UINT32 || t == DataType::INT32 || t == DataType::INT64;
}

void requireLengths(const Op& op, int i, const char* what, int64_t batch) {
  if (op.inShape(i) != Shape{batch})
    throw error("Unsupported shape for input {} (expected a '{}' tensor of shape [{}], got {}).", i, what, batch,
                op.inShape(i));
  if (!isIntegerIndexType(op.inType(i)))
    throw error("Unsupported data type for input {} (expected a '{}' tensor of type UINT32, got {}).", i, what,
                dataTypeToString(op.inType(i)));
}

void requireLogProbs(const Op& op) {
  if (op.inShape(0).size() != 3)
    throw error(
        "Unsupported shape for input 0 (expected a 'logarithmized probabilities' tensor of rank 3, got a tensor with "
        "shape {}).",
        op.inShape(0));
  if (!isFloatType(op.inType(0)))
    throw error(
        "Unsupported data type for input 0 (expected a 'logarithmized probabilities' tensor comprised of floating "
        "point data, got {}).",
        dataTypeToString(op.inType(0)));
}

}  // namespace

CtcParams ctcParams(const Op& op) {
  CtcParams p;
  requireLogProbs(op);
  const Shape& lp = op.inShape(0);
  p.maxTime = lp[0];
  p.batch = lp[1];
  p.classes = lp[2];
  const Shape& tg = op.inShape(1);
  if (tg.size() != 2 || tg[0] != p.batch)
    throw error(
        "Unsupported shape for input 1 (expected a 'targets' tensor of rank 2 with the size of the first dimension "
        "being {} to match the size of the second dimension of the 'logarithmized probabilities' tensor, got {}).",
        p.batch, tg);
  if (!isIntegerIndexType(op.inType(1)))
    throw error("Unsupported data type for input 1 (expected a 'targets' tensor of type UINT32, got {}).",
                dataTypeToString(op.inType(1)));
  p.maxTarget = tg[1];
  requireLengths(op, 2, "input lengths", p.batch);
  requireLengths(op, 3, "target lengths", p.batch);
  p.blank = op.attrs.getInt("blank", 0);
  if (p.blank < 0 || p.blank >= p.classes)
    throw error("blank ({}) must be a class of the 'logarithmized probabilities' tensor (0 to {})", p.blank,
                p.classes - 1);
  p.reduction = lossReduction(op);
  p.zeroInfinity = op.attrs.getInt("zeroInfinity", 0) != 0;
  p.outType = op.inType(0);
  const int64_t out = op.attrs.getInt("outDataType", 0);  // an ONNX TensorProto type, as PopART writes it
  if (out != 0) {
    p.outType = dataTypeFromOnnx(static_cast<int>(out));
    if (!isFloatType(p.outType))
      throw error("Unsupported data type for output 0 (expected a floating point type, got {}).",
                  dataTypeToString(p.outType));
  }
  return p;
}

CtcDecoderParams ctcDecoderParams(const Op& op) {
  CtcDecoderParams p;
  requireLogProbs(op);
  const Shape& lp = op.inShape(0);
  p.maxTime = lp[0];
  p.batch = lp[1];
  p.classes = lp[2];
  requireLengths(op, 1, "data lengths", p.batch);
  p.blank = op.attrs.getInt("blank", 0);
  p.beamWidth = op.attrs.getInt("beam_width", 100);
  p.topPaths = op.attrs.getInt("top_paths", 1);
  if (p.blank < 0 || p.blank >= p.classes)
    throw error("blank ({}) must be a class of the 'logarithmized probabilities' tensor (0 to {})", p.blank,
                p.classes - 1);
  if (p.beamWidth < 1) throw error("beam_width must be at least 1, got {}", p.beamWidth);
  if (p.topPaths < 1 || p.topPaths > p.beamWidth)
    throw error("top_paths must be between 1 and beam_width ({}), got {}", p.beamWidth, p.topPaths);
  return p;
}

}  // namespace ops

namespace {

void setupCtc(Op& op) {
  const ops::CtcParams p = ops::ctcParams(op);
  ops::setOutput(op, 0, p.outType, p.reduction == ReductionType::NoReduction ? Shape{p.batch} : Shape{});
  // PopART's second output (_ctcloss): each sample's loss gradient w.r.t. the log-probabilities.
  ops::setOutput(op, 1, p.outType, {p.maxTime, p.batch, p.classes});
}

void setupCtcGrad(Op& op) {
  const ops::CtcParams p = ops::ctcParams(op);
  const Shape lossShape = p.reduction == ReductionType::NoReduction ? Shape{p.batch} : Shape{};
  if (op.inShape(4) != lossShape)
    throw internal_error("CtcGrad: the loss gradient has shape {}, expected {}", op.inShape(4), lossShape);
  ops::setOutput(op, 0, op.inType(0), op.inShape(0));
}

/// The log-probabilities' gradient: CtcGrad recomputes the forward-backward pass (exact for any
/// log-probabilities, not only log-softmax outputs).
void gradCtc(GradCtx& c) {
  if (!c.outGrad(0)) return;
  Tensor* g = c.add1(OpKind::GcCtcGrad, {c.in(0), c.in(1), c.in(2), c.in(3), c.outGrad(0)}, c.op().attrs);
  c.setInGrad(0, g);
}

void setupCtcBeamSearchDecoder(Op& op) {
  const ops::CtcDecoderParams p = ops::ctcDecoderParams(op);
  ops::setOutput(op, 0, op.inType(0), {p.batch, p.topPaths});
  ops::setOutput(op, 1, DataType::UINT32, {p.batch, p.topPaths});
  ops::setOutput(op, 2, DataType::UINT32, {p.batch, p.topPaths, p.maxTime});
}

}  // namespace

void define_GcCtc(OpDef& d) {
  d.setup = setupCtc;
  d.grad = gradCtc;
}
void define_GcCtcGrad(OpDef& d) {
  d.setup = setupCtcGrad;
}
void define_GcCtcBeamSearchDecoder(OpDef& d) {
  d.setup = setupCtcBeamSearchDecoder;
}

}  // namespace popart
