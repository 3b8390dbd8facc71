#include "ops/window.hpp"

#include "common/checked_size.hpp"
#include "popart/error.hpp"

namespace popart {
namespace ops {
namespace {

/// Window sizes in checked 64-bit arithmetic: attributes near 2^63 (a kernel, stride, dilation or
/// pad from a model) overflow the int64 products and sums.
struct Checked {
  const std::vector<int64_t>& kernel;
  const std::vector<int64_t>& strides;
  const std::vector<int64_t>& dilations;
  [[noreturn]] void overflow() const {
    throw error("the window (kernel {}, strides {}, dilations {}) and the padding overflow a 64-bit size", kernel,
                strides, dilations);
  }
  int64_t mul(int64_t a, int64_t b) const {
    int64_t r;
    if (!checkedMul(a, b, &r)) overflow();
    return r;
  }
  int64_t add(int64_t a, int64_t b) const {
    int64_t r;
    if (!checkedAdd(a, b, &r)) overflow();
    return r;
  }
};

}  // namespace

Window computeWindow(const Op& op, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel, bool ceilMode,
                     bool allowDilations) {
  const size_t n = in.size();
  Window w;
  w.inSpatial = in;
  w.kernel = kernel;
  // PopART's messages for a convolution's or a pooling's parameter lists, then ours.
  const bool conv = op.type() == "Conv" || op.type() == "ConvInteger" || op.type() == "QLinearConv";
  // `word`: PopART's ("stride"), `attr`: the attribute ("strides").
  auto wrongCount = [&](const char* word, const char* attr, const std::vector<int64_t>& v, size_t want) {
    if (conv)
      return error("Unexpected number of {} parameters for convolution op '{}': {} {} must have {} entries", word,
                   op.name(), attr, v, want);
    return error("{} {} must have {} entries", attr, v, want);
  };
  if (kernel.size() != n)
    throw error(
        "invalid kernel_shape, not same rank as the tensor operated on: kernel_shape {} must have {} entries (one per "
        "spatial dimension)",
        kernel, n);
  for (auto k : kernel) {
    if (k <= 0) throw error("kernel_shape {} must be positive", kernel);
  }
  w.strides = op.attrs.getInts("strides", std::vector<int64_t>(n, 1));
  w.dilations = op.attrs.getInts("dilations", std::vector<int64_t>(n, 1));
  if (w.strides.empty()) w.strides.assign(n, 1);
  if (w.dilations.empty()) w.dilations.assign(n, 1);
  if (w.strides.size() != n) throw wrongCount("stride", "strides", w.strides, n);
  if (w.dilations.size() != n) throw wrongCount("dilation", "dilations", w.dilations, n);
  for (size_t i = 0; i < n; ++i) {
    if (w.strides[i] <= 0) throw error("strides {} must be positive", w.strides);
    if (w.dilations[i] <= 0) throw error("dilations {} must be positive", w.dilations);
    if (!allowDilations && w.dilations[i] != 1) throw error("dilations are not supported at this opset");
  }
  std::string autoPad = op.attrs.getString("auto_pad", "NOTSET");
  std::vector<int64_t> pads = op.attrs.getInts("pads", std::vector<int64_t>(2 * n, 0));
  if (pads.empty()) pads.assign(2 * n, 0);
  if (autoPad == "NOTSET" && pads.size() != 2 * n) {
    if (conv) throw wrongCount("pad", "pads", pads, 2 * n);
    throw error("pads {} must have {} entries (begin and end per spatial dimension)", pads, 2 * n);
  }
  w.padBegin.assign(n, 0);
  w.padEnd.assign(n, 0);
  w.outSpatial.assign(n, 0);
  const Checked c{kernel, w.strides, w.dilations};
  for (size_t i = 0; i < n; ++i) {
    const int64_t eff = c.add(c.mul(kernel[i] - 1, w.dilations[i]), 1);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      const int64_t out = in[i] == 0 ? 0 : (in[i] - 1) / w.strides[i] + 1;  // ceil(in / stride)
      const int64_t total = std::max<int64_t>(0, c.add(c.mul(out - 1, w.strides[i]), eff - in[i]));
      const int64_t small = total / 2, big = total - small;
      w.padBegin[i] = autoPad == "SAME_UPPER" ? small : big;
      w.padEnd[i] = autoPad == "SAME_UPPER" ? big : small;
      w.outSpatial[i] = out;
    } else if (autoPad == "VALID" || autoPad == "NOTSET") {
      if (autoPad == "NOTSET") {
        w.padBegin[i] = pads[i];
        w.padEnd[i] = pads[i + n];
        if (pads[i] < 0 || pads[i + n] < 0) throw error("pads {} must be >= 0", pads);
      }
      const int64_t span = c.add(c.add(in[i], w.padBegin[i]), c.add(w.padEnd[i], -eff));
      if (span < 0)
        throw error("the window (kernel {} with dilations {}) is larger than the padded input {}", kernel, w.dilations,
                    in);
      int64_t out = span / w.strides[i] + 1;
      if (ceilMode && span % w.strides[i] != 0) {
        ++out;
        // The last window must start inside the input or its leading padding.
        if (c.mul(out - 1, w.strides[i]) >= c.add(in[i], w.padBegin[i])) --out;
      }
      w.outSpatial[i] = out;
    } else {
      throw error("auto_pad '{}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", autoPad);
    }
  }
  return w;
}

Window computeTransposeWindow(const Op& op, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel) {
  const size_t n = in.size();
  Window w;
  w.inSpatial = in;
  w.kernel = kernel;
  auto ints = [&](const char* name, int64_t dflt) {
    std::vector<int64_t> v = op.attrs.getInts(name, {});
    if (v.empty()) v.assign(n, dflt);
    if (v.size() != n) throw error("{} {} must have {} entries", name, v, n);
    return v;
  };
  w.strides = ints("strides", 1);
  w.dilations = ints("dilations", 1);
  const std::vector<int64_t> outPad = ints("output_padding", 0);
  std::vector<int64_t> pads = op.attrs.getInts("pads", std::vector<int64_t>(2 * n, 0));
  if (pads.empty()) pads.assign(2 * n, 0);
  if (pads.size() != 2 * n) throw error("pads {} must have {} entries", pads, 2 * n);
  for (size_t i = 0; i < n; ++i) {
    if (kernel[i] <= 0) throw error("kernel_shape {} must be positive", kernel);
    if (w.strides[i] <= 0) throw error("strides {} must be positive", w.strides);
    if (w.dilations[i] <= 0) throw error("dilations {} must be positive", w.dilations);
    if (outPad[i] < 0) throw error("output_padding {} must be >= 0", outPad);
    if (pads[i] < 0 || pads[i + n] < 0) throw error("pads {} must be >= 0", pads);
  }
  const Checked c{kernel, w.strides, w.dilations};
  std::vector<int64_t> outShape = op.attrs.getInts("output_shape", {});
  if (outShape.size() > n) outShape.erase(outShape.begin(), outShape.end() - static_cast<long>(n));
  const std::string autoPad = op.attrs.getString("auto_pad", "NOTSET");
  w.padBegin.assign(n, 0);
  w.padEnd.assign(n, 0);
  w.outSpatial.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t full =
        c.add(c.add(c.mul(w.strides[i], in[i] - 1), outPad[i]), c.add(c.mul(kernel[i] - 1, w.dilations[i]), 1));
    if (!outShape.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      const int64_t out = !outShape.empty() ? outShape[i] : c.mul(in[i], w.strides[i]);
      if (out <= 0) throw error("ConvTranspose output dimension {} would be {}", i, out);
      const int64_t total = c.add(full, -out);  // negative: the output is larger than the full one
      if (autoPad == "SAME_UPPER") {
        w.padBegin[i] = total / 2;
        w.padEnd[i] = total - total / 2;
      } else {
        w.padEnd[i] = total / 2;
        w.padBegin[i] = total - total / 2;
      }
      if (autoPad == "NOTSET") {  // output_shape without auto_pad: the larger pad at the end
        w.padBegin[i] = total / 2;
        w.padEnd[i] = total - total / 2;
      }
      w.outSpatial[i] = out;
    } else {
      w.padBegin[i] = pads[i];
      w.padEnd[i] = pads[i + n];
      w.outSpatial[i] = c.add(full, -c.add(pads[i], pads[i + n]));
    }
    if (w.outSpatial[i] <= 0) throw error("ConvTranspose output dimension {} would be {}", i, w.outSpatial[i]);
  }
  return w;
}

}  // namespace ops
}  // namespace popart
