// ONNX GridSample (opset 16, PyTorch's torch.nn.functional.grid_sample): X [N, C, H, W] sampled at
// the normalized (x, y) points of grid [N, outH, outW, 2]. No gradient rule yet
// (tests/unit/grad_coverage_test.cpp lists it).
#include "ops/gridsample_params.hpp"

#include "ir/op_def.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {

GridSampleParams gridSampleParams(const Op& op) {
  using P = GridSampleParams;
  P p;
  const std::string mode = op.attrs.getString("mode", "bilinear");
  if (mode == "bilinear")
    p.mode = P::Mode::Bilinear;
  else if (mode == "nearest")
    p.mode = P::Mode::Nearest;
  else if (mode == "bicubic")
    p.mode = P::Mode::Bicubic;
  else
    throw error("mode '{}' is not supported: 'bilinear', 'nearest' or 'bicubic'", mode);
  const std::string padding = op.attrs.getString("padding_mode", "zeros");
  if (padding == "zeros")
    p.padding = P::Padding::Zeros;
  else if (padding == "border")
    p.padding = P::Padding::Border;
  else if (padding == "reflection")
    p.padding = P::Padding::Reflection;
  else
    throw error("padding_mode '{}' is not supported: 'zeros', 'border' or 'reflection'", padding);
  const int64_t ac = op.attrs.getInt("align_corners", 0);
  if (ac != 0 && ac != 1) throw error("align_corners = {} must be 0 or 1", ac);
  p.alignCorners = ac == 1;

  const TensorInfo& x = op.inInfo(0);
  const TensorInfo& grid = op.inInfo(1);
  if (!isFloatType(x.dataType()))
    throw error("X {} must be a floating-point tensor (FLOAT, FLOAT16, BFLOAT16 or DOUBLE)", x.toString());
  if (!isFloatType(grid.dataType()))
    throw error("grid {} must be a floating-point tensor (FLOAT, FLOAT16, BFLOAT16 or DOUBLE)", grid.toString());
  if (x.rank() != 4) throw error("X {} must be 4-D: [N, C, H, W] (GridSample-16 samples 2-D images)", x.toString());
  const Shape& g = grid.shape();
  if (g.size() != 4 || g[3] != 2 || g[0] != x.shape()[0])
    throw error("grid {} must be [N, H_out, W_out, 2] with X's N = {} (X is {})", grid.toString(), x.shape()[0],
                x.toString());
  p.batch = x.shape()[0];
  p.channels = x.shape()[1];
  p.height = x.shape()[2];
  p.width = x.shape()[3];
  p.outH = g[1];
  p.outW = g[2];
  if ((p.height == 0 || p.width == 0) && p.batch * p.outH * p.outW > 0)
    throw error("X {} must have non-empty spatial dimensions (H and W) to sample from", x.toString());
  return p;
}

}  // namespace ops

namespace {

void setupGridSample(Op& op) {
  const ops::GridSampleParams p = ops::gridSampleParams(op);
  ops::setOutput(op, 0, op.inType(0), {p.batch, p.channels, p.outH, p.outW});
}

}  // namespace

void define_GridSample(OpDef& d) {
  d.setup = setupGridSample;
}

}  // namespace popart
