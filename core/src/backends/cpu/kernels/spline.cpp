// CPU kernels of the spline family: SplineBasis (torch_spline_conv's open / closed B-spline basis
// of degree 0..3 over D pseudo-coordinate dimensions) and SplineWeighting (the basis-weighted sum
// of the selected weight matrices applied to each edge's input, accumulated in double).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/spline_params.hpp"

namespace popart {
namespace cpu {
namespace {

/// The uniform B-spline of `degree` at the fractional position v in [0, 1): the piece that
/// weights the (v's knot + k)-th control point.
double bsplinePiece(int64_t degree, double v, int64_t k) {
  switch (degree) {
    case 1:
      return k == 0 ? 1.0 - v : v;
    case 2:
      if (k == 0) return 0.5 * (1.0 - v) * (1.0 - v);
      if (k == 1) return -v * v + v + 0.5;
      return 0.5 * v * v;
    case 3:
      if (k == 0) return (1.0 - v) * (1.0 - v) * (1.0 - v) / 6.0;
      if (k == 1) return (3.0 * v * v * v - 6.0 * v * v + 4.0) / 6.0;
      if (k == 2) return (-3.0 * v * v * v + 3.0 * v * v + 3.0 * v + 1.0) / 6.0;
      return v * v * v / 6.0;
    default:
      return 1.0;  // degree 0: the box function
  }
}

template <typename T, typename I>
void splineBasis(const ops::SplineBasisParams& p, const T* pseudo, const I* kernelSize, const void* openSpline,
                 DataType openType, T* basis, I* weightIndex) {
  auto isOpen = [&](int64_t d) {
    return openType == DataType::BOOL ? static_cast<const bool*>(openSpline)[d]
                                      : static_cast<const uint8_t*>(openSpline)[d] != 0;
  };
  for (int64_t d = 0; d < p.dims; ++d)
    if (kernelSize[d] <= 0) throw error("SplineBasis: kernelSize[{}] = {} must be positive", d, kernelSize[d]);
  using C = compute_t<T>;
  for (int64_t e = 0; e < p.edges; ++e) {
    for (int64_t s = 0; s < p.splines; ++s) {
      int64_t k = s, wi = 0, offset = 1;
      double b = 1.0;
      for (int64_t d = 0; d < p.dims; ++d) {
        const int64_t kMod = k % (p.degree + 1);
        k /= p.degree + 1;
        const int64_t ks = static_cast<int64_t>(kernelSize[d]);
        // The position on the knot grid (an open spline has `degree` fewer segments), computed in
        // the data's precision as torch_spline_conv and Poplar do, so the knot (its integer part)
        // is theirs.
        C v = static_cast<C>(pseudo[e * p.dims + d]) * static_cast<C>(ks - (isOpen(d) ? p.degree : 0));
        if (!(std::abs(static_cast<double>(v)) < 9.0e15))  // NaN, infinities, beyond exact integers
          throw error("SplineBasis: pseudo[{}, {}] = {} gives the knot position {}, which is not a finite position", e,
                      d, static_cast<double>(static_cast<C>(pseudo[e * p.dims + d])), static_cast<double>(v));
        wi += ((static_cast<int64_t>(v) + kMod) % ks) * offset;
        offset *= ks;
        v -= std::floor(v);
        b *= bsplinePiece(p.degree, static_cast<double>(v), kMod);
      }
      basis[e * p.splines + s] = static_cast<T>(static_cast<C>(b));
      weightIndex[e * p.splines + s] = static_cast<I>(wi);
    }
  }
}

template <typename I>
KernelFn splineBasisKernel(const Op& op, KernelContext& kc, const ops::SplineBasisParams& p) {
  const int pseudo = kc.in(0), ks = kc.in(1), open = kc.in(2), basis = kc.out(0), index = kc.out(1);
  const DataType openType = op.inType(2);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      // Both outputs come from one pass: an output the graph does not use is computed into a local.
      std::vector<T> b(basis < 0 ? static_cast<size_t>(p.edges * p.splines) : 0);
      std::vector<I> w(index < 0 ? static_cast<size_t>(p.edges * p.splines) : 0);
      splineBasis<T, I>(p, inPtr<T>(s, pseudo), inPtr<I>(s, ks), s.slots[open], openType,
                        basis < 0 ? b.data() : outPtr<T>(s, basis), index < 0 ? w.data() : outPtr<I>(s, index));
    };
  });
}

template <typename T, typename I>
void splineWeighting(const ops::SplineWeightingParams& p, const T* x, const T* w, const T* basis, const I* index,
                     T* out) {
  std::vector<double> acc(static_cast<size_t>(p.outChannels));
  for (int64_t e = 0; e < p.edges; ++e) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t s = 0; s < p.splines; ++s) {
      const double b = static_cast<double>(static_cast<compute_t<T>>(basis[e * p.splines + s]));
      const int64_t k = static_cast<int64_t>(index[e * p.splines + s]);
      if (k < 0 || k >= p.kernels)
        throw error("SplineWeighting: weightIndex[{}, {}] = {} is not a kernel of the weight (0 to {})", e, s, k,
                    p.kernels - 1);
      const T* wk = w + k * p.inChannels * p.outChannels;
      for (int64_t i = 0; i < p.inChannels; ++i) {
        const double xb = b * static_cast<double>(static_cast<compute_t<T>>(x[e * p.inChannels + i]));
        const T* row = wk + i * p.outChannels;
        for (int64_t o = 0; o < p.outChannels; ++o)
          acc[static_cast<size_t>(o)] += xb * static_cast<double>(static_cast<compute_t<T>>(row[o]));
      }
    }
    for (int64_t o = 0; o < p.outChannels; ++o)
      out[e * p.outChannels + o] = static_cast<T>(static_cast<compute_t<T>>(acc[static_cast<size_t>(o)]));
  }
}

template <typename I>
KernelFn splineWeightingKernel(const Op& op, KernelContext& kc, const ops::SplineWeightingParams& p) {
  const int x = kc.in(0), w = kc.in(1), basis = kc.in(2), index = kc.in(3), out = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      splineWeighting<T, I>(p, inPtr<T>(s, x), inPtr<T>(s, w), inPtr<T>(s, basis), inPtr<I>(s, index),
                            outPtr<T>(s, out));
    };
  });
}

}  // namespace

KernelFn makeCpuKernel_GcSplineBasis(const Op& op, KernelContext& kc) {
  const ops::SplineBasisParams p = ops::splineBasisParams(op);
  if (op.inType(1) == DataType::INT64) return splineBasisKernel<int64_t>(op, kc, p);
  return splineBasisKernel<int32_t>(op, kc, p);
}

KernelFn makeCpuKernel_GcSplineWeighting(const Op& op, KernelContext& kc) {
  const ops::SplineWeightingParams p = ops::splineWeightingParams(op);
  if (op.inType(3) == DataType::INT64) return splineWeightingKernel<int64_t>(op, kc, p);
  return splineWeightingKernel<int32_t>(op, kc, p);
}

}  // namespace cpu
}  // namespace popart
