// CPU kernel of Resize / Upsample: per-axis taps (index, weight) computed once, then each output
// element sums the product of its axes' taps (1 tap nearest, 2 linear, 4 cubic per resized axis).
#include <cmath>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/strided.hpp"
#include "ops/resize_params.hpp"

namespace popart {
namespace cpu {
namespace {

struct Tap {
  int64_t index;
  double weight;
};

struct AxisTaps {
  std::vector<std::vector<Tap>> taps;  // per output index
  std::vector<bool> outside;           // tf_crop_and_resize: the coordinate is outside the input
};

// The coordinate in the input of output index x, as ONNX's reference implementation computes it
// (onnx/backend/test/case/node/resize.py): the "resized length" of pytorch_half_pixel,
// align_corners and tf_crop_and_resize is scale · input length, not rounded (it differs from the
// output length when the scales do not divide the input), and pytorch_half_pixel maps a resized
// length of 1 to -0.5.
double originalCoord(const ops::ResizeParams& p, size_t axis, int64_t x, int64_t inLen) {
  const double scale = p.scales[axis];
  const double xr = static_cast<double>(x);
  const double resized = scale * static_cast<double>(inLen);
  const std::string& m = p.coordMode;
  if (m == "half_pixel") return (xr + 0.5) / scale - 0.5;
  if (m == "pytorch_half_pixel") return resized == 1.0 ? -0.5 : (xr + 0.5) / scale - 0.5;
  if (m == "align_corners") return resized == 1.0 ? 0.0 : xr * static_cast<double>(inLen - 1) / (resized - 1.0);
  if (m == "asymmetric") return xr / scale;
  if (m == "tf_half_pixel_for_nn") return (xr + 0.5) / scale;
  // tf_crop_and_resize
  const double s = p.roiStart[axis], e = p.roiEnd[axis], last = static_cast<double>(inLen - 1);
  return resized == 1.0 ? 0.5 * (s + e) * last : s * last + xr * (e - s) * last / (resized - 1.0);
}

int64_t nearestIndex(const std::string& mode, double x) {
  if (mode == "floor" || mode == "pytorch") return static_cast<int64_t>(std::floor(x));
  if (mode == "ceil") return static_cast<int64_t>(std::ceil(x));
  const double f = std::floor(x);
  if (x - f == 0.5) return static_cast<int64_t>(mode == "round_prefer_ceil" ? f + 1 : f);
  return static_cast<int64_t>(std::round(x));
}

double cubicWeight(double d, double a) {  // d = distance in [0, 2)
  d = std::abs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

AxisTaps axisTaps(const ops::ResizeParams& p, size_t axis, int64_t inLen, int64_t outLen) {
  AxisTaps t;
  t.taps.resize(static_cast<size_t>(outLen));
  t.outside.assign(static_cast<size_t>(outLen), false);
  auto clampIdx = [&](int64_t i) { return std::min<int64_t>(std::max<int64_t>(i, 0), inLen - 1); };
  for (int64_t o = 0; o < outLen; ++o) {
    auto& taps = t.taps[static_cast<size_t>(o)];
    if (inLen == outLen && p.scales[axis] == 1.0 && p.coordMode != "tf_crop_and_resize") {
      taps.push_back({o, 1.0});
      continue;
    }
    const bool pytorchNearest = p.mode == "nearest" && p.nearestMode == "pytorch";
    const double x = pytorchNearest ? static_cast<double>(o) / p.scales[axis] : originalCoord(p, axis, o, inLen);
    if (p.coordMode == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(inLen - 1))) {
      t.outside[static_cast<size_t>(o)] = true;
      continue;
    }
    if (p.mode == "nearest") {
      taps.push_back({clampIdx(nearestIndex(p.nearestMode, x)), 1.0});
    } else if (p.mode == "linear") {
      const double xc = std::min(std::max(x, 0.0), static_cast<double>(inLen - 1));
      const int64_t i0 = static_cast<int64_t>(std::floor(xc));
      const int64_t i1 = std::min(i0 + 1, inLen - 1);
      const double f = xc - static_cast<double>(i0);
      taps.push_back({i0, 1 - f});
      if (f > 0) taps.push_back({i1, f});
    } else {  // cubic
      const int64_t i0 = static_cast<int64_t>(std::floor(x));
      const double f = x - static_cast<double>(i0);
      double sum = 0;
      for (int64_t k = -1; k <= 2; ++k) {
        const int64_t i = i0 + k;
        double w = cubicWeight(static_cast<double>(k) - f, p.cubicA);
        if (p.excludeOutside && (i < 0 || i >= inLen)) w = 0;
        taps.push_back({clampIdx(i), w});
        sum += w;
      }
      if (p.excludeOutside && sum != 0) {
        for (auto& tp : taps) tp.weight /= sum;
      }
    }
  }
  return t;
}

}  // namespace

KernelFn resizeKernel(const Op& op, KernelContext& kc) {
  const ops::ResizeParams p = ops::resizeParams(op);
  const Shape in = op.inShape(0), out = p.outShape;
  const size_t r = in.size();
  std::vector<AxisTaps> axes;
  for (size_t a = 0; a < r; ++a) axes.push_back(axisTaps(p, a, in[a], out[a]));
  const auto inStrides = rowMajorStrides(in);
  const int64_t n = TensorInfo(op.inType(0), out).nelms();
  const int x = kc.in(0), y = kc.out(0);
  const double extrap = p.extrapolation;
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      std::vector<int64_t> pos(r, 0);
      std::vector<size_t> k(r, 0);
      for (int64_t o = 0; o < n; ++o) {
        bool outside = false;
        for (size_t a = 0; a < r; ++a) outside = outside || axes[a].outside[static_cast<size_t>(pos[a])];
        double acc = 0;
        if (!outside) {
          // Cartesian product of the axes' taps.
          std::fill(k.begin(), k.end(), 0);
          while (true) {
            double w = 1;
            int64_t off = 0;
            for (size_t a = 0; a < r; ++a) {
              const Tap& t = axes[a].taps[static_cast<size_t>(pos[a])][k[a]];
              w *= t.weight;
              off += t.index * inStrides[a];
            }
            acc += w * static_cast<double>(static_cast<C>(X[off]));
            size_t a = r;
            while (a-- > 0) {
              if (++k[a] < axes[a].taps[static_cast<size_t>(pos[a])].size()) break;
              k[a] = 0;
            }
            if (a == static_cast<size_t>(-1)) break;
          }
        } else {
          acc = extrap;
        }
        if constexpr (std::is_integral_v<C>) {
          Y[o] = static_cast<T>(std::nearbyint(acc));
        } else {
          Y[o] = static_cast<T>(static_cast<C>(acc));
        }
        for (size_t a = r; a-- > 0;) {
          if (++pos[a] < out[a]) break;
          pos[a] = 0;
        }
      }
    };
  });
}

KernelFn makeCpuKernel_Resize(const Op& op, KernelContext& kc) {
  return resizeKernel(op, kc);
}
KernelFn makeCpuKernel_Upsample(const Op& op, KernelContext& kc) {
  return resizeKernel(op, kc);
}

}  // namespace cpu
}  // namespace popart
