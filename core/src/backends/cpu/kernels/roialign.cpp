// CPU kernels of the roialign family: RoiAlign (each bin the average, or ONNX's max, of bilinear
// samples on a regular grid, as torchvision.ops.roi_align and ONNX's reference) and RoiAlignGrad
// (the average's adjoint: each output gradient spread over its samples' bilinear corners).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "common/checked_size.hpp"
#include "ops/roialign_params.hpp"

namespace popart {
namespace cpu {
namespace {

/// One bilinear sample: the four corners' offsets in an H x W plane and their weights (all 0 for
/// a sample outside the plane, which still counts in the average).
struct Sample {
  int64_t pos[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
};

Sample bilinear(double y, double x, int64_t H, int64_t W) {
  Sample s;
  if (y < -1.0 || y > static_cast<double>(H) || x < -1.0 || x > static_cast<double>(W)) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= H - 1) {
    y0 = y1 = H - 1;
    y = static_cast<double>(y0);
  }
  if (x0 >= W - 1) {
    x0 = x1 = W - 1;
    x = static_cast<double>(x0);
  }
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0), hy = 1.0 - ly, hx = 1.0 - lx;
  s.pos[0] = y0 * W + x0;
  s.pos[1] = y0 * W + x1;
  s.pos[2] = y1 * W + x0;
  s.pos[3] = y1 * W + x1;
  s.w[0] = hy * hx;
  s.w[1] = hy * lx;
  s.w[2] = ly * hx;
  s.w[3] = ly * lx;
  return s;
}

/// The samples of every bin of one box: samples[bin] with bin = ph * outW + pw, and the count each
/// bin's average divides by.
struct BoxSamples {
  std::vector<std::vector<Sample>> bins;
  double count = 1.0;
};

BoxSamples boxSamples(const ops::RoiAlignParams& p, int64_t r, double x1, double y1, double x2, double y2) {
  if (!std::isfinite(x1) || !std::isfinite(y1) || !std::isfinite(x2) || !std::isfinite(y2))
    throw error("RoiAlign: box {} of rois ({}, {}, {}, {}) is not finite", r, x1, y1, x2, y2);
  const double off = p.halfPixel ? 0.5 : 0.0;
  const double sx = x1 * p.spatialScale - off, sy = y1 * p.spatialScale - off;
  double rw = x2 * p.spatialScale - off - sx, rh = y2 * p.spatialScale - off - sy;
  if (!p.halfPixel) {  // opset 10's (and torchvision's aligned=False) boxes are at least 1 x 1
    rw = std::max(rw, 1.0);
    rh = std::max(rh, 1.0);
  }
  const double bh = rh / static_cast<double>(p.outH), bw = rw / static_cast<double>(p.outW);
  const double ghd =
      p.samplingRatio > 0 ? static_cast<double>(p.samplingRatio) : std::ceil(rh / static_cast<double>(p.outH));
  const double gwd =
      p.samplingRatio > 0 ? static_cast<double>(p.samplingRatio) : std::ceil(rw / static_cast<double>(p.outW));
  // An adaptive grid follows the box's size: refuse boxes whose samples would not fit in memory.
  constexpr double kMaxSamples = double(1 << 22);
  if (std::max(ghd, 0.0) * std::max(gwd, 0.0) * static_cast<double>(p.outH) * static_cast<double>(p.outW) > kMaxSamples)
    throw error(
        "RoiAlign: box {} ({} x {} after spatial_scale) needs {} x {} samples in each of its {} x {} bins: more than "
        "{} in all (set sampling_ratio)",
        r, rw, rh, ghd, gwd, p.outH, p.outW, static_cast<int64_t>(kMaxSamples));
  // (A box of negative size, possible with half_pixel, has a negative grid: no samples, as torchvision.)
  const int64_t gh = static_cast<int64_t>(std::max(ghd, -1.0)), gw = static_cast<int64_t>(std::max(gwd, -1.0));
  BoxSamples b;
  b.count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
  b.bins.resize(static_cast<size_t>(p.outH * p.outW));
  for (int64_t ph = 0; ph < p.outH; ++ph)
    for (int64_t pw = 0; pw < p.outW; ++pw) {
      auto& v = b.bins[static_cast<size_t>(ph * p.outW + pw)];
      for (int64_t iy = 0; iy < gh; ++iy) {
        const double y =
            sy + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
        for (int64_t ix = 0; ix < gw; ++ix) {
          const double x =
              sx + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
          v.push_back(bilinear(y, x, p.height, p.width));
        }
      }
    }
  return b;
}

struct Slots {
  int data, rois, index, out;
  DataType indexType;
};

template <typename T>
double at(const T* p, int64_t i) {
  return static_cast<double>(static_cast<compute_t<T>>(p[i]));
}

int64_t batchOf(const ops::RoiAlignParams& p, const RunState& s, const Slots& sl, int64_t r) {
  const int64_t n = indexAt(s.slots[sl.index], sl.indexType, r);
  if (n < 0 || n >= p.batch)
    throw error("RoiAlign: batch_indices[{}] = {} is not a batch of X (0 to {})", r, n, p.batch - 1);
  return n;
}

template <typename T>
void roiAlign(const ops::RoiAlignParams& p, const Slots& sl, const RunState& s) {
  const T* x = inPtr<T>(s, sl.data);
  const T* rois = inPtr<T>(s, sl.rois);
  T* y = outPtr<T>(s, sl.out);
  const int64_t plane = p.height * p.width, bins = p.outH * p.outW;
  for (int64_t r = 0; r < p.rois; ++r) {
    const int64_t n = batchOf(p, s, sl, r);
    const BoxSamples b =
        boxSamples(p, r, at(rois, 4 * r), at(rois, 4 * r + 1), at(rois, 4 * r + 2), at(rois, 4 * r + 3));
    for (int64_t c = 0; c < p.channels; ++c) {
      const T* xc = x + (n * p.channels + c) * plane;
      for (int64_t bin = 0; bin < bins; ++bin) {
        double acc = 0.0;
        bool first = true;
        for (const Sample& smp : b.bins[static_cast<size_t>(bin)]) {
          if (p.max) {  // ONNX's max: the largest weighted corner over the samples
            double m = smp.w[0] * at(xc, smp.pos[0]);
            for (int k = 1; k < 4; ++k) m = std::max(m, smp.w[k] * at(xc, smp.pos[k]));
            acc = first ? m : std::max(acc, m);
            first = false;
          } else {
            for (int k = 0; k < 4; ++k) acc += smp.w[k] * at(xc, smp.pos[k]);
          }
        }
        y[(r * p.channels + c) * bins + bin] = static_cast<T>(static_cast<compute_t<T>>(p.max ? acc : acc / b.count));
      }
    }
  }
}

template <typename T>
void roiAlignGrad(const ops::RoiAlignParams& p, const Slots& sl, const RunState& s) {
  const T* dy = inPtr<T>(s, sl.data);
  const T* rois = inPtr<T>(s, sl.rois);
  const int64_t plane = p.height * p.width, bins = p.outH * p.outW;
  const int64_t total = p.batch * p.channels * plane;
  double* acc = reinterpret_cast<double*>(s.scratch);  // shared scratch: cleared each run
  std::fill(acc, acc + total, 0.0);
  for (int64_t r = 0; r < p.rois; ++r) {
    const int64_t n = batchOf(p, s, sl, r);
    const BoxSamples b =
        boxSamples(p, r, at(rois, 4 * r), at(rois, 4 * r + 1), at(rois, 4 * r + 2), at(rois, 4 * r + 3));
    for (int64_t c = 0; c < p.channels; ++c) {
      double* gc = acc + (n * p.channels + c) * plane;
      for (int64_t bin = 0; bin < bins; ++bin) {
        const double g = at(dy, (r * p.channels + c) * bins + bin) / b.count;
        for (const Sample& smp : b.bins[static_cast<size_t>(bin)])
          for (int k = 0; k < 4; ++k) gc[smp.pos[k]] += g * smp.w[k];
      }
    }
  }
  T* dx = outPtr<T>(s, sl.out);
  for (int64_t i = 0; i < total; ++i) dx[i] = static_cast<T>(static_cast<compute_t<T>>(acc[i]));
}

}  // namespace

KernelFn makeCpuKernel_RoiAlign(const Op& op, KernelContext& kc) {
  const ops::RoiAlignParams p = ops::roiAlignParams(op);
  const Slots sl{kc.in(0), kc.in(1), kc.in(2), kc.out(0), op.inType(2)};
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) { roiAlign<T>(p, sl, s); };
  });
}

KernelFn makeCpuKernel_RoiAlignGrad(const Op& op, KernelContext& kc) {
  const ops::RoiAlignParams p = ops::roiAlignParams(op);
  if (p.max) throw internal_error("RoiAlignGrad: mode 'max' has no gradient");
  const Slots sl{kc.in(0), kc.in(1), kc.in(2), kc.out(0), op.inType(2)};
  // The sums in double, rounded once at the end (many boxes may overlap one pixel).
  kc.needScratch(checkedProduct({p.batch, p.channels, p.height, p.width, int64_t(sizeof(double))}));
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) { roiAlignGrad<T>(p, sl, s); };
  });
}

}  // namespace cpu
}  // namespace popart
