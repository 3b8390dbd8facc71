// CPU kernels of the tensor family (EyeLike, Trilu, CumSum, DepthToSpace, SpaceToDepth, OneHot,
// Graphcore's Reverse and DepthToSpace).
#include <cstring>
#include <type_traits>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/strided.hpp"
#include "common/numeric_cast.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {
namespace {

int64_t readScalarInt(const RunState& s, int slot, DataType t) {
  return t == DataType::INT64 ? *inPtr<int64_t>(s, slot) : *inPtr<int32_t>(s, slot);
}

/// out = transpose(reshape(in, dims), perm): the engine of DepthToSpace / SpaceToDepth.
KernelFn permuteKernel(const Op& op, KernelContext& kc, const Shape& dims, const std::vector<int64_t>& perm) {
  const auto st = rowMajorStrides(dims);
  std::vector<int64_t> srcStrides, outDims;
  for (auto p : perm) {
    srcStrides.push_back(st[static_cast<size_t>(p)]);
    outDims.push_back(dims[static_cast<size_t>(p)]);
  }
  const size_t elem = static_cast<size_t>(dataTypeSize(op.inType(0)));
  const int x = kc.in(0), y = kc.out(0);
  return [=](const RunState& s) { stridedCopy(s.slots[x], srcStrides, s.slots[y], outDims, elem); };
}

}  // namespace

KernelFn makeCpuKernel_EyeLike(const Op& op, KernelContext& kc) {
  const Shape& sh = op.outInfo(0).shape();
  const int64_t k = op.attrs.getInt("k", 0), rows = sh[0], cols = sh[1];
  const int y = kc.out(0);
  return dispatchAll(op.outInfo(0).dataType(), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      T* out = outPtr<T>(s, y);
      for (int64_t i = 0; i < rows * cols; ++i) out[i] = static_cast<T>(compute_t<T>(0));
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t c = r + k;
        if (c >= 0 && c < cols) out[r * cols + c] = static_cast<T>(compute_t<T>(1));
      }
    };
  });
}

KernelFn makeCpuKernel_Trilu(const Op& op, KernelContext& kc) {
  const Shape& sh = op.inShape(0);
  const int64_t rows = sh[sh.size() - 2], cols = sh.back();
  const int64_t mats = rows * cols != 0 ? op.inInfo(0).nelms() / (rows * cols) : 0;
  const bool upper = op.attrs.getInt("upper", 1) != 0;
  const int x = kc.in(0), ks = kc.in(1), y = kc.out(0);
  const DataType kt = op.hasInput(1) ? op.inType(1) : DataType::INT64;
  return dispatchBySize(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const int64_t k = ks >= 0 ? readScalarInt(s, ks, kt) : 0;
      const T* in = inPtr<T>(s, x);
      T* out = outPtr<T>(s, y);
      for (int64_t m = 0; m < mats; ++m) {
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t c = 0; c < cols; ++c) {
            const int64_t i = (m * rows + r) * cols + c;
            const bool keep = upper ? (c - r >= k) : (c - r <= k);
            out[i] = keep ? in[i] : T(0);
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_CumSum(const Op& op, KernelContext& kc) {
  const Shape in = op.inShape(0);
  const bool exclusive = op.attrs.getInt("exclusive", 0) != 0, reverse = op.attrs.getInt("reverse", 0) != 0;
  const int x = kc.in(0), ax = kc.in(1), y = kc.out(0);
  const DataType at = op.inType(1);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    // Floating-point prefix sums run in double, each rounded once to the output type: a float
    // running sum loses the small terms of a long scan (adding ones, it stops at 2^24).
    using A = std::conditional_t<std::is_floating_point_v<C>, double, C>;
    return [=](const RunState& s) {
      const int64_t axis = ops::normalizeAxis(readScalarInt(s, ax, at), static_cast<int64_t>(in.size()));
      int64_t outer = 1, len = in[static_cast<size_t>(axis)], inner = 1;
      for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
      for (size_t i = static_cast<size_t>(axis) + 1; i < in.size(); ++i) inner *= in[i];
      const T* a = inPtr<T>(s, x);
      T* b = outPtr<T>(s, y);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          A acc = 0;
          for (int64_t j = 0; j < len; ++j) {
            const int64_t k = reverse ? len - 1 - j : j;
            const int64_t off = (o * len + k) * inner + i;
            const A v = static_cast<A>(static_cast<C>(a[off]));
            if (exclusive) {
              b[off] = static_cast<T>(static_cast<C>(acc));
              acc = wrapAdd(acc, v);  // integers wrap around, as Add does
            } else {
              acc = wrapAdd(acc, v);
              b[off] = static_cast<T>(static_cast<C>(acc));
            }
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_DepthToSpace(const Op& op, KernelContext& kc) {
  const Shape& x = op.inShape(0);
  const int64_t b = op.attrs.getInt("blocksize"), N = x[0], C = x[1], H = x[2], W = x[3];
  if (op.attrs.getString("mode", "DCR") == "DCR")
    return permuteKernel(op, kc, {N, b, b, C / (b * b), H, W}, {0, 3, 4, 1, 5, 2});
  return permuteKernel(op, kc, {N, C / (b * b), b, b, H, W}, {0, 1, 4, 2, 5, 3});
}

KernelFn makeCpuKernel_GcDepthToSpace(const Op& op, KernelContext& kc) {
  return makeCpuKernel_DepthToSpace(op, kc);
}

/// Reverse: a strided copy that starts at the last index of each reversed dimension and steps back.
KernelFn makeCpuKernel_GcReverse(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const Shape& x = op.inShape(0);
  const auto dims = ops::normalizeAxes(op.attrs.getInts("dimensions"), static_cast<int64_t>(x.size()), "dimensions");
  std::vector<int64_t> st = rowMajorStrides(x);
  int64_t base = 0;
  for (int64_t d : dims) {
    const size_t i = static_cast<size_t>(d);
    if (x[i] > 0) base += (x[i] - 1) * st[i];
    st[i] = -st[i];
  }
  const size_t elem = static_cast<size_t>(dataTypeSize(op.inType(0)));
  const int in = kc.in(0), y = kc.out(0);
  const bool empty = op.inInfo(0).nelms() == 0;
  return [=](const RunState& s) {
    if (empty) return;
    stridedCopy(static_cast<const unsigned char*>(s.slots[in]) + base * static_cast<int64_t>(elem), st, s.slots[y], x,
                elem);
  };
}

KernelFn makeCpuKernel_SpaceToDepth(const Op& op, KernelContext& kc) {
  const Shape& x = op.inShape(0);
  const int64_t b = op.attrs.getInt("blocksize"), N = x[0], C = x[1], H = x[2], W = x[3];
  return permuteKernel(op, kc, {N, C, H / b, b, W / b, b}, {0, 3, 5, 1, 2, 4});
}

KernelFn makeCpuKernel_OneHot(const Op& op, KernelContext& kc) {
  const Shape& out = op.outInfo(0).shape();
  const int64_t r = static_cast<int64_t>(out.size());
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", -1), r);
  int64_t outer = 1, inner = 1;
  const int64_t depth = out[static_cast<size_t>(axis)];
  for (int64_t i = 0; i < axis; ++i) outer *= out[static_cast<size_t>(i)];
  for (int64_t i = axis + 1; i < r; ++i) inner *= out[static_cast<size_t>(i)];
  const int idx = kc.in(0), vals = kc.in(2), y = kc.out(0);
  const DataType it = op.inType(0);
  return dispatchAll(op.outInfo(0).dataType(), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T off = inPtr<T>(s, vals)[0], on = inPtr<T>(s, vals)[1];
      T* o = outPtr<T>(s, y);
      for (int64_t i = 0; i < outer * depth * inner; ++i) o[i] = off;
      dispatchNumeric(it, [&](auto itag) {
        using I = decltype(itag);
        const I* ind = inPtr<I>(s, idx);
        for (int64_t a = 0; a < outer; ++a) {
          for (int64_t c = 0; c < inner; ++c) {
            auto v = static_cast<int64_t>(static_cast<double>(static_cast<compute_t<I>>(ind[a * inner + c])));
            if (v < 0) v += depth;
            if (v >= 0 && v < depth) o[(a * depth + v) * inner + c] = on;
          }
        }
        return 0;
      });
    };
  });
}

}  // namespace cpu
}  // namespace popart
