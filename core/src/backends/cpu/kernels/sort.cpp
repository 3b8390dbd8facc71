// CPU kernels of the sort family: Sort, ReduceMedian (and its gradient) and Bucketize. NaN sorts
// after every number (before, descending), as torch.sort; ties keep their input order.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/strided.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {
namespace {

template <typename C>
bool isNan(C v) {
  if constexpr (std::is_floating_point_v<C>)
    return std::isnan(v);
  else
    return false;
}

/// a before b in ascending order with NaN last.
template <typename C>
bool lessNanLast(C a, C b) {
  if (isNan(a)) return false;
  if (isNan(b)) return true;
  return a < b;
}

/// The elements of one tensor seen as [outer, len, inner] around `axis`.
struct Lines {
  int64_t outer = 1, len = 1, inner = 1;
  Lines(const Shape& s, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
      if (d < axis) outer *= s[static_cast<size_t>(d)];
      if (d > axis) inner *= s[static_cast<size_t>(d)];
    }
    len = s.empty() ? 1 : s[static_cast<size_t>(axis)];
  }
};

/// The offsets of a reduction: `kept[m]` where output m's block starts, `block[j]` the offset of
/// the block's element j (row-major over the reduced axes, in increasing axis order).
struct Blocks {
  std::vector<int64_t> kept, block;
  Blocks(const Shape& in, const std::vector<int64_t>& axes) {
    const auto strides = rowMajorStrides(in);
    Shape keptDims, keptStrides, redDims, redStrides;
    for (size_t d = 0; d < in.size(); ++d) {
      const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
      (reduced ? redDims : keptDims).push_back(in[d]);
      (reduced ? redStrides : keptStrides).push_back(strides[d]);
    }
    kept = offsets(keptDims, keptStrides);
    block = offsets(redDims, redStrides);
  }
  static std::vector<int64_t> offsets(const Shape& dims, const Shape& strides) {
    int64_t n = 1;
    for (auto d : dims) n *= d;
    std::vector<int64_t> out(static_cast<size_t>(n), 0);
    std::vector<int64_t> pos(dims.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t o = 0;
      for (size_t d = 0; d < dims.size(); ++d) o += pos[d] * strides[d];
      out[static_cast<size_t>(k)] = o;
      for (size_t d = dims.size(); d-- > 0;) {
        if (++pos[d] < dims[d]) break;
        pos[d] = 0;
      }
    }
    return out;
  }
};

/// ReduceMedian's axes (the attribute is absent: every axis), as ops/sort.cpp reads them.
std::vector<int64_t> medianAxes(const Op& op, int64_t rank) {
  std::vector<int64_t> axes;
  if (!op.attrs.has("axes")) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    return axes;
  }
  axes = ops::normalizeAxes(op.attrs.getInts("axes"), rank, "axes");
  std::sort(axes.begin(), axes.end());
  return axes;
}

}  // namespace

KernelFn makeCpuKernel_GcSort(const Op& op, KernelContext& kc) {
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", -1), op.inInfo(0).rank());
  const Lines l(op.inShape(0), axis);
  const bool descending = op.attrs.getInt("descending", 0) != 0;
  const int x = kc.in(0), y = kc.out(0), yi = kc.out(1);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, x);
      T* out = y >= 0 ? outPtr<T>(s, y) : nullptr;
      int64_t* idx = yi >= 0 ? outPtr<int64_t>(s, yi) : nullptr;
      std::vector<int64_t> order(static_cast<size_t>(l.len));
      for (int64_t o = 0; o < l.outer; ++o) {
        for (int64_t i = 0; i < l.inner; ++i) {
          const int64_t base = o * l.len * l.inner + i;
          std::iota(order.begin(), order.end(), 0);
          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            const C va = static_cast<C>(in[base + a * l.inner]), vb = static_cast<C>(in[base + b * l.inner]);
            if (!descending) return lessNanLast(va, vb);
            return (isNan(va) && !isNan(vb)) || (!isNan(va) && !isNan(vb) && vb < va);
          });
          for (int64_t k = 0; k < l.len; ++k) {
            if (out) out[base + k * l.inner] = in[base + order[static_cast<size_t>(k)] * l.inner];
            if (idx) idx[base + k * l.inner] = order[static_cast<size_t>(k)];
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_GcReduceMedian(const Op& op, KernelContext& kc) {
  auto b = std::make_shared<const Blocks>(op.inShape(0), medianAxes(op, op.inInfo(0).rank()));
  const int x = kc.in(0), y = kc.out(0), yi = kc.out(1);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, x);
      T* out = y >= 0 ? outPtr<T>(s, y) : nullptr;
      int32_t* idx = yi >= 0 ? outPtr<int32_t>(s, yi) : nullptr;
      const size_t n = b->block.size();
      std::vector<int64_t> order(n);
      for (size_t m = 0; m < b->kept.size(); ++m) {
        const int64_t base = b->kept[m];
        std::iota(order.begin(), order.end(), 0);
        const auto mid = order.begin() + static_cast<int64_t>((n - 1) / 2);
        // The lower median; among equal values the first in the block.
        std::nth_element(order.begin(), mid, order.end(), [&](int64_t p, int64_t q) {
          const C vp = static_cast<C>(in[base + b->block[static_cast<size_t>(p)]]);
          const C vq = static_cast<C>(in[base + b->block[static_cast<size_t>(q)]]);
          if (lessNanLast(vp, vq)) return true;
          if (lessNanLast(vq, vp)) return false;
          return p < q;
        });
        if (out) out[m] = in[base + b->block[static_cast<size_t>(*mid)]];
        if (idx) idx[m] = static_cast<int32_t>(*mid);
      }
    };
  });
}

KernelFn makeCpuKernel_GcReduceMedianGrad(const Op& op, KernelContext& kc) {
  const Shape data = op.attrs.getInts("data_shape");
  auto b = std::make_shared<const Blocks>(data, medianAxes(op, static_cast<int64_t>(data.size())));
  const int64_t n = op.outInfo(0).nelms();
  const int64_t blockSize = static_cast<int64_t>(b->block.size());
  const int g = kc.in(0), ix = kc.in(1), y = kc.out(0);
  // Any numeric type: an integer ReduceMedian under an integer loss has an integer gradient.
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* grad = inPtr<T>(s, g);
      const int32_t* idx = inPtr<int32_t>(s, ix);
      T* out = outPtr<T>(s, y);
      std::fill(out, out + n, T(0));
      for (size_t m = 0; m < b->kept.size(); ++m) {
        const int64_t j = idx[m];
        if (j >= 0 && j < blockSize) out[b->kept[m] + b->block[static_cast<size_t>(j)]] = grad[m];
      }
    };
  });
}

/// PopART's bucketize (its Poplar program, which for sorted boundaries is torch.bucketize): with
/// `right`, the smallest i in [1, n) with b[i-1] <= x < b[i], else 0 if x < b[0], else n; without,
/// b[i-1] < x <= b[i] and x <= b[0]. NaN is n.
KernelFn makeCpuKernel_GcBucketize(const Op& op, KernelContext& kc) {
  const int64_t count = op.inInfo(0).nelms(), nb = op.inInfo(1).nelms();
  const bool right = op.attrs.getInt("right", 0) != 0;
  const int x = kc.in(0), bd = kc.in(1), y = kc.out(0);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, x);
      const T* b = inPtr<T>(s, bd);
      int32_t* out = outPtr<int32_t>(s, y);
      for (int64_t k = 0; k < count; ++k) {
        const C v = static_cast<C>(in[k]);
        const bool first = right ? v < static_cast<C>(b[0]) : v <= static_cast<C>(b[0]);
        int64_t bucket = first ? 0 : nb;
        for (int64_t i = 1; i < nb; ++i) {
          const C lo = static_cast<C>(b[i - 1]), hi = static_cast<C>(b[i]);
          if (right ? (lo <= v && v < hi) : (lo < v && v <= hi)) {
            bucket = i;
            break;
          }
        }
        out[k] = static_cast<int32_t>(bucket);
      }
    };
  });
}

}  // namespace cpu
}  // namespace popart
