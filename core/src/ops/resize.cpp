// Resize and Upsample.
#include <cmath>

#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/resize_params.hpp"

namespace popart {
namespace ops {

ResizeParams resizeParams(const Op& op) {
  ResizeParams p;
  const Shape& in = op.inShape(0);
  const size_t r = in.size();
  const bool upsample = op.kind() == OpKind::Upsample;
  p.mode = op.attrs.getString("mode", "nearest");
  if (p.mode != "nearest" && p.mode != "linear" && p.mode != "cubic" && p.mode != "bilinear")
    throw error("mode '{}' is not nearest, linear or cubic", p.mode);
  if (p.mode == "bilinear") p.mode = "linear";
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (upsample && op.opset() < 9) {
    for (float f : op.attrs.getFloats("scales")) scales.push_back(f);
  } else if (upsample || op.opset() < 11) {
    scales = op.requireInData(1, "the scales").toDouble();
  } else {
    if (op.hasInput(1) && op.inInfo(1).nelms() > 0) {
      const auto roi = op.requireInData(1, "the roi").toDouble();
      if (roi.size() != 2 * r) throw error("roi must hold {} values (start and end per dimension)", 2 * r);
      p.roiStart.assign(roi.begin(), roi.begin() + static_cast<long>(r));
      p.roiEnd.assign(roi.begin() + static_cast<long>(r), roi.end());
    }
    if (op.hasInput(2) && op.inInfo(2).nelms() > 0) scales = op.requireInData(2, "the scales").toDouble();
    if (op.hasInput(3) && op.inInfo(3).nelms() > 0) sizes = op.requireInData(3, "the output sizes").toInt64();
    if (scales.empty() == sizes.empty()) throw error("exactly one of scales and sizes must be given");
    p.coordMode = op.attrs.getString("coordinate_transformation_mode", "half_pixel");
    p.nearestMode = op.attrs.getString("nearest_mode", "round_prefer_floor");
    p.cubicA = op.attrs.getFloat("cubic_coeff_a", -0.75f);
    p.excludeOutside = op.attrs.getInt("exclude_outside", 0) != 0;
    p.extrapolation = op.attrs.getFloat("extrapolation_value", 0.0f);
  }
  if (upsample) {
    p.coordMode = "asymmetric";
    p.nearestMode = "floor";
  } else if (op.opset() < 11) {
    // PopART reads Resize-10's (non-standard) nearest_mode and coordinate_transformation_mode
    // attributes; its default nearest mode "pytorch" is Resize-10's asymmetric floor.
    p.coordMode = op.attrs.getString("coordinate_transformation_mode", "half_pixel");
    p.nearestMode = op.attrs.getString("nearest_mode", "pytorch");
  }
  static const char* nearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "pytorch"};
  bool knownNearest = false;
  for (const char* m : nearestModes) knownNearest = knownNearest || p.nearestMode == m;
  if (!knownNearest)
    throw error("nearest_mode '{}' is not round_prefer_floor, round_prefer_ceil, floor, ceil or pytorch",
                p.nearestMode);
  if (!sizes.empty()) {
    if (sizes.size() != r) throw error("sizes {} must have {} entries", sizes, r);
    p.outShape = sizes;
    for (size_t i = 0; i < r; ++i)
      p.scales.push_back(in[i] ? static_cast<double>(sizes[i]) / static_cast<double>(in[i]) : 1.0);
  } else {
    if (scales.size() != r) throw error("scales must have {} entries, got {}", r, scales.size());
    p.scales = scales;
    for (size_t i = 0; i < r; ++i) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i])) throw error("scales {} must be positive and finite", scales);
      // In float, as PopART's ResizeOp (the scales are float): 6 x 0.8333333f is 5, not 4.9999998.
      const double d = std::floor(static_cast<double>(static_cast<float>(in[i]) * static_cast<float>(scales[i])));
      if (!(d < 9.2e18))  // the int64 cast of a larger value is undefined
        throw error("scales {} make dimension {} of {} hold {} elements, more than a 64-bit count holds", scales, i, in,
                    d);
      p.outShape.push_back(static_cast<int64_t>(d));
    }
  }
  static const char* modes[] = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  bool known = false;
  for (const char* m : modes) known = known || p.coordMode == m;
  if (!known) throw error("coordinate_transformation_mode '{}' is not supported", p.coordMode);
  if (p.coordMode == "tf_crop_and_resize" && p.roiStart.empty()) throw error("tf_crop_and_resize needs roi");
  return p;
}

}  // namespace ops

namespace {

void setupResize(Op& op) {
  if (op.inType(0) == DataType::STRING || op.inType(0) == DataType::BOOL)
    throw error("input 0 must be numeric, got {}", op.inInfo(0).toString());
  ops::setOutput(op, 0, op.inType(0), ops::resizeParams(op).outShape);
}

}  // namespace

void define_Resize(OpDef& d) {
  d.setup = setupResize;
  d.shapeInputsMask = 0xe;
}
void define_Upsample(OpDef& d) {
  d.setup = setupResize;
  d.shapeInputsMask = 2;
}

}  // namespace popart
