// ONNX RoiAlign (opset 10 and 16; PopART imports opset 10) and its gradient op RoiAlignGrad
// (PopART's RoiAlignGradOp: the data's gradient; the boxes and batch indices get none).
#include "ops/roialign_params.hpp"

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {

RoiAlignParams roiAlignParams(const Op& op) {
  const bool grad = op.kind() == OpKind::RoiAlignGrad;
  const int xi = grad ? 3 : 0;
  // PopART's words for the ranks.
  if (op.inInfo(xi).rank() != 4) throw error("The size of input data must be 4 (X is [N, C, H, W])");
  if (op.inInfo(1).rank() != 2) throw error("The size of input rois must be 2 (rois is [num_rois, 4])");
  if (op.inInfo(2).rank() != 1) throw error("The size of input batch_index must be 1 (batch_indices is [num_rois])");
  requireFloat(op, xi);
  if (op.inType(1) != op.inType(xi))
    throw error("rois ({}) must have X's type {}", op.inInfo(1).toString(), dataTypeToString(op.inType(xi)));
  requireType(op, 2, {DataType::INT64, DataType::INT32});
  RoiAlignParams p;
  const Shape& x = op.inShape(xi);
  p.batch = x[0];
  p.channels = x[1];
  p.height = x[2];
  p.width = x[3];
  p.rois = op.inShape(1)[0];
  if (op.inShape(1)[1] != 4)
    throw error("rois {} must be [num_rois, 4]: (x1, y1, x2, y2) per box", op.inInfo(1).toString());
  if (op.inShape(2)[0] != p.rois)
    throw error("batch_indices {} must have one index per box of rois ({})", op.inInfo(2).toString(), p.rois);
  // ONNX's defaults (PopART's importer reads a missing output size as 7 and sampling ratio as 1;
  // its Builder, like this one, always writes them).
  p.outH = op.attrs.getInt("output_height", 1);
  p.outW = op.attrs.getInt("output_width", 1);
  p.samplingRatio = op.attrs.getInt("sampling_ratio", 0);
  p.spatialScale = op.attrs.getFloat("spatial_scale", 1.0f);
  if (p.outH < 1 || p.outW < 1)
    throw error("output_height = {} and output_width = {} must be positive", p.outH, p.outW);
  if (p.samplingRatio < 0)
    throw error("sampling_ratio = {} must be >= 0 (0: adaptive, ceil(roi size / output size))", p.samplingRatio);
  const std::string mode = op.attrs.getString("mode", "avg");
  if (mode != "avg" && mode != "max") throw error("mode '{}' is not supported: 'avg' or 'max'", mode);
  p.max = mode == "max";
  const std::string ctm = op.attrs.getString("coordinate_transformation_mode",
                                             grad || op.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    throw error("coordinate_transformation_mode '{}' is not supported: 'half_pixel' or 'output_half_pixel'", ctm);
  p.halfPixel = ctm == "half_pixel";
  if (grad && op.inShape(0) != Shape{p.rois, p.channels, p.outH, p.outW})
    throw internal_error("RoiAlignGrad: the output gradient has shape {}, expected [{}, {}, {}, {}]", op.inShape(0),
                         p.rois, p.channels, p.outH, p.outW);
  return p;
}

}  // namespace ops

namespace {

void setupRoiAlign(Op& op) {
  const ops::RoiAlignParams p = ops::roiAlignParams(op);
  ops::setOutput(op, 0, op.inType(0), {p.rois, p.channels, p.outH, p.outW});
}

void setupRoiAlignGrad(Op& op) {
  ops::roiAlignParams(op);
  ops::setOutput(op, 0, op.inType(0), op.inShape(3));
}

/// X's gradient: each output's gradient spread back over the bilinear corners of its samples
/// (RoiAlignGrad, every attribute explicit). The boxes and indices get none, as in PopART.
void gradRoiAlign(GradCtx& c) {
  if (!c.outGrad(0) || !c.needsInGrad(0)) return;
  const Op& op = c.op();
  const ops::RoiAlignParams p = ops::roiAlignParams(op);
  if (p.max)
    throw error("RoiAlign with mode 'max' has no gradient here (PopART's RoiAlign and its gradient are 'avg' only)");
  Attributes a;
  a.set("output_height", p.outH);
  a.set("output_width", p.outW);
  a.set("sampling_ratio", p.samplingRatio);
  a.set("spatial_scale", static_cast<float>(p.spatialScale));
  a.set("mode", std::string("avg"));
  a.set("coordinate_transformation_mode", std::string(p.halfPixel ? "half_pixel" : "output_half_pixel"));
  c.setInGrad(0, c.add1(OpKind::RoiAlignGrad, {c.outGrad(0), c.in(1), c.in(2), c.in(0)}, a));
}

}  // namespace

void define_RoiAlign(OpDef& d) {
  d.setup = setupRoiAlign;
  d.grad = gradRoiAlign;
}
void define_RoiAlignGrad(OpDef& d) {
  d.setup = setupRoiAlignGrad;
}

}  // namespace popart
