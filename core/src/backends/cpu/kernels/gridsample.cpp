// CPU kernel of GridSample (ONNX opset 16), computed as torch.nn.functional.grid_sample does:
// - a grid value g becomes the pixel coordinate ((g + 1) / 2) (size - 1) with align_corners,
//   else ((g + 1) size - 1) / 2;
// - bilinear and nearest apply the padding to that coordinate (border: clamp to [0, size - 1];
//   reflection: reflect by the borders, the corner centres with align_corners, else the outer
//   edges, until it is inside, then clamp), then sample it (nearest: std::nearbyint, half to
//   even); taps outside the image read 0;
// - bicubic (Keys, A = -0.75) takes the 4 x 4 taps around the unpadded coordinate and pads each
//   tap's integer coordinate (PyTorch's; ONNX's reference clamps / reflects the coordinate first,
//   which differs within a pixel of a border);
// - a NaN grid value gives NaN; an infinite one reads 0 with zeros padding, the edge with border
//   padding, and NaN with reflection padding.
// Each grid point's taps (offsets and weights) are computed once and applied to every channel;
// the sums are in double.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/gridsample_params.hpp"

namespace popart {
namespace cpu {
namespace gridsample_kernel {

using Params = ops::GridSampleParams;

/// The taps of one grid point: offsets in an H x W plane and their weights (at most 4 x 4).
struct Taps {
  int64_t offset[16] = {};
  double weight[16] = {};
  int count = 0;
  bool nan = false;  ///< the output is NaN (a NaN grid value, or an infinite one reflected)
};

double unnormalize(double g, int64_t size, bool alignCorners) {
  const double s = static_cast<double>(size);
  return alignCorners ? (g + 1.0) / 2.0 * (s - 1.0) : ((g + 1.0) * s - 1.0) / 2.0;
}

double clipCoord(double x, int64_t size) {
  return std::min(static_cast<double>(size - 1), std::max(x, 0.0));
}

/// x reflected by the borders lo and hi (lo < hi) until it lies in [lo, hi].
double reflectCoord(double x, double lo, double hi) {
  const double span = hi - lo;
  const double in = std::abs(x - lo);
  const double extra = std::fmod(in, span);
  const bool odd = std::fmod(std::floor(in / span), 2.0) != 0.0;
  return odd ? hi - extra : lo + extra;
}

/// The padding of a (finite) coordinate: border clamps it into the image, reflection reflects it
/// by the borders (the corner centres with align_corners, else the outer edges) and then clamps.
double padCoord(double x, int64_t size, const Params& p) {
  if (p.padding == Params::Padding::Border) return clipCoord(x, size);
  if (p.padding == Params::Padding::Reflection) {
    if (p.alignCorners) {
      x = size > 1 ? reflectCoord(x, 0.0, static_cast<double>(size - 1)) : 0.0;
    } else {
      x = reflectCoord(x, -0.5, static_cast<double>(size) - 0.5);
    }
    return clipCoord(x, size);
  }
  return x;
}

/// A (padded) integer tap coordinate inside [0, size)?
bool inside(double i, int64_t size) {
  return i >= 0.0 && i < static_cast<double>(size);
}

/// Keys' cubic convolution weights (A = -0.75) of the taps at distances t + 1, t, 1 - t, 2 - t.
void cubicWeights(double t, double w[4]) {
  constexpr double A = -0.75;
  auto inner = [](double d) { return ((A + 2.0) * d - (A + 3.0)) * d * d + 1.0; };        // |d| <= 1
  auto outer = [](double d) { return ((A * d - 5.0 * A) * d + 8.0 * A) * d - 4.0 * A; };  // 1 < |d| < 2
  w[0] = outer(t + 1.0);
  w[1] = inner(t);
  w[2] = inner(1.0 - t);
  w[3] = outer(2.0 - t);
}

Taps taps(const Params& p, double gx, double gy) {
  Taps t;
  if (std::isnan(gx) || std::isnan(gy)) {
    t.nan = true;
    return t;
  }
  double x = unnormalize(gx, p.width, p.alignCorners);
  double y = unnormalize(gy, p.height, p.alignCorners);
  if (!std::isfinite(x) || !std::isfinite(y)) {
    // Zeros: outside every tap (no taps). Border: the edge. Reflection: no defined reflection.
    if (p.padding == Params::Padding::Reflection) t.nan = true;
    if (p.padding != Params::Padding::Border) return t;
    x = clipCoord(x, p.width);
    y = clipCoord(y, p.height);
  }
  auto add = [&](double iy, double ix, double w) {
    if (inside(iy, p.height) && inside(ix, p.width)) {
      t.offset[t.count] = static_cast<int64_t>(iy) * p.width + static_cast<int64_t>(ix);
      t.weight[t.count] = w;
      ++t.count;
    }
  };
  if (p.mode == Params::Mode::Bicubic) {
    const double x0 = std::floor(x), y0 = std::floor(y);
    double wx[4], wy[4];
    cubicWeights(x - x0, wx);
    cubicWeights(y - y0, wy);
    for (int i = 0; i < 4; ++i) {
      // Each tap padded on its own; a reflected integer stays an integer.
      const double iy = std::trunc(padCoord(y0 - 1.0 + i, p.height, p));
      for (int j = 0; j < 4; ++j) add(iy, std::trunc(padCoord(x0 - 1.0 + j, p.width, p)), wy[i] * wx[j]);
    }
    return t;
  }
  x = padCoord(x, p.width, p);
  y = padCoord(y, p.height, p);
  if (p.mode == Params::Mode::Nearest) {
    add(std::nearbyint(y), std::nearbyint(x), 1.0);
    return t;
  }
  const double x0 = std::floor(x), y0 = std::floor(y);
  const double tx = x - x0, ty = y - y0;
  add(y0, x0, (1.0 - ty) * (1.0 - tx));
  add(y0, x0 + 1.0, (1.0 - ty) * tx);
  add(y0 + 1.0, x0, ty * (1.0 - tx));
  add(y0 + 1.0, x0 + 1.0, ty * tx);
  return t;
}

template <typename T>
void gridSample(const Params& p, int xSlot, int gridSlot, LoadFn gridAt, int ySlot, const RunState& s) {
  const T* x = inPtr<T>(s, xSlot);
  const void* grid = s.slots[gridSlot];
  T* y = outPtr<T>(s, ySlot);
  const int64_t plane = p.height * p.width, points = p.outH * p.outW;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t o = 0; o < points; ++o) {
      const int64_t g = 2 * (n * points + o);
      const Taps t = taps(p, gridAt(grid, g), gridAt(grid, g + 1));
      for (int64_t c = 0; c < p.channels; ++c) {
        const T* xc = x + (n * p.channels + c) * plane;
        double acc = t.nan ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        for (int k = 0; k < t.count; ++k)
          acc += t.weight[k] * static_cast<double>(static_cast<compute_t<T>>(xc[t.offset[k]]));
        y[(n * p.channels + c) * points + o] = static_cast<T>(static_cast<compute_t<T>>(acc));
      }
    }
  }
}

}  // namespace gridsample_kernel

KernelFn makeCpuKernel_GridSample(const Op& op, KernelContext& kc) {
  const ops::GridSampleParams p = ops::gridSampleParams(op);
  const int xSlot = kc.in(0), gridSlot = kc.in(1), ySlot = kc.out(0);
  const LoadFn gridAt = floatLoader(op.inType(1));
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) { gridsample_kernel::gridSample<T>(p, xSlot, gridSlot, gridAt, ySlot, s); };
  });
}

}  // namespace cpu
}  // namespace popart
