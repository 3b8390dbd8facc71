// CPU kernels of the gather/scatter family (GatherElements, GatherND, ScatterElements, Scatter,
// ScatterND) and TopK. (Gather itself is in shape.cpp.)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/strided.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {
namespace {

int64_t wrapIndex(int64_t i, int64_t n, const std::string& where) {
  if (i < -n || i >= n) throw error("{}: index {} is out of range for a dimension of size {}", where, i, n);
  return i < 0 ? i + n : i;
}

enum class ScatterNdReduction { None, Add, Mul, Max, Min };

ScatterNdReduction reduction(const Op& op) {
  const std::string r = op.attrs.getString("reduction", "none");
  if (r == "add") return ScatterNdReduction::Add;
  if (r == "mul") return ScatterNdReduction::Mul;
  if (r == "max") return ScatterNdReduction::Max;
  if (r == "min") return ScatterNdReduction::Min;
  return ScatterNdReduction::None;
}

template <typename T>
void apply(ScatterNdReduction r, T& dst, T v) {
  using C = compute_t<T>;
  switch (r) {
    case ScatterNdReduction::None:
      dst = v;
      break;
    case ScatterNdReduction::Add:
      dst = static_cast<T>(static_cast<C>(dst) + static_cast<C>(v));
      break;
    case ScatterNdReduction::Mul:
      dst = static_cast<T>(static_cast<C>(dst) * static_cast<C>(v));
      break;
    case ScatterNdReduction::Max:
      dst = static_cast<C>(v) > static_cast<C>(dst) ? v : dst;
      break;
    case ScatterNdReduction::Min:
      dst = static_cast<C>(v) < static_cast<C>(dst) ? v : dst;
      break;
  }
}

/// A gather kernel: forEachCopy(indices, where, copy) calls copy(to, from, count) for each run of
/// `count` elements copied from x[from..] to y[to..].
template <typename F>
KernelFn gatherKernel(const Op& op, KernelContext& kc, F forEachCopy) {
  const size_t elem = static_cast<size_t>(dataTypeSize(op.inType(0)));
  const int x = kc.in(0), ix = kc.in(1), y = kc.out(0);
  const std::string where = op.describe();
  return [=](const RunState& s) {
    const auto* src = static_cast<const unsigned char*>(s.slots[x]);
    auto* dst = static_cast<unsigned char*>(s.slots[y]);
    forEachCopy(s.slots[ix], where, [&](int64_t to, int64_t from, int64_t count) {
      std::memcpy(dst + static_cast<size_t>(to) * elem, src + static_cast<size_t>(from) * elem,
                  static_cast<size_t>(count) * elem);
    });
  };
}

/// A scatter kernel: y = x, then each update u[k] combined into y[o] by the op's reduction for
/// the (o, k) pairs that forEachUpdate(indices, where, f) passes to f.
template <typename F>
KernelFn scatterKernel(const Op& op, KernelContext& kc, F forEachUpdate) {
  const ScatterNdReduction red = reduction(op);
  const size_t bytes = static_cast<size_t>(op.inInfo(0).nbytes());
  const int x = kc.in(0), ix = kc.in(1), up = kc.in(2), y = kc.out(0);
  const std::string where = op.describe();
  return dispatchAll(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      if (s.slots[y] != s.slots[x]) std::memcpy(s.slots[y], s.slots[x], bytes);
      T* out = outPtr<T>(s, y);
      const T* u = inPtr<T>(s, up);
      forEachUpdate(s.slots[ix], where, [&](int64_t o, int64_t k) { apply(red, out[o], u[k]); });
    };
  });
}

/// For every element of `idxShape` (row-major), the offset it addresses in a tensor of shape
/// `dataShape` with dimension `axis` replaced by the index value: f(flat element, offset).
template <typename F>
void forEachAxisIndex(const Shape& idxShape, const Shape& dataShape, int64_t axis, const void* idx, DataType it,
                      const std::string& where, F f) {
  const auto ds = rowMajorStrides(dataShape);
  const size_t r = idxShape.size();
  int64_t n = 1;
  for (auto d : idxShape) n *= d;
  std::vector<int64_t> pos(r, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < r; ++d) {
      const int64_t p = static_cast<int64_t>(d) == axis ? wrapIndex(indexAt(idx, it, k), dataShape[d], where) : pos[d];
      off += p * ds[d];
    }
    f(k, off);
    for (size_t d = r; d-- > 0;) {
      if (++pos[d] < idxShape[d]) break;
      pos[d] = 0;
    }
  }
}

}  // namespace

KernelFn makeCpuKernel_GatherElements(const Op& op, KernelContext& kc) {
  const Shape data = op.inShape(0), idx = op.inShape(1);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  const DataType it = op.inType(1);
  return gatherKernel(op, kc, [=](const void* indices, const std::string& where, auto copy) {
    forEachAxisIndex(idx, data, axis, indices, it, where, [&](int64_t k, int64_t off) { copy(k, off, 1); });
  });
}

KernelFn makeCpuKernel_ScatterElements(const Op& op, KernelContext& kc) {
  const Shape data = op.inShape(0), idx = op.inShape(1);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  const DataType it = op.inType(1);
  return scatterKernel(op, kc, [=](const void* indices, const std::string& where, auto f) {
    forEachAxisIndex(idx, data, axis, indices, it, where, [&](int64_t k, int64_t off) { f(off, k); });
  });
}

KernelFn makeCpuKernel_Scatter(const Op& op, KernelContext& kc) {
  return makeCpuKernel_ScatterElements(op, kc);
}

namespace {

/// GatherND / ScatterND geometry.
struct NdGeom {
  int64_t batches = 1, tuples = 1, k = 0, slice = 1, dataBatch = 1;
  std::vector<int64_t> dims, strides;  // the indexed data dims and their strides (in slices)

  /// The offset (in slices) that the index tuple tup[0..k) addresses.
  int64_t offset(const int64_t* tup, const std::string& where) const {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j)
      off += wrapIndex(tup[j], dims[static_cast<size_t>(j)], where) * strides[static_cast<size_t>(j)];
    return off;
  }
};

NdGeom ndGeom(const Shape& data, const Shape& idx, int64_t b) {
  NdGeom g;
  g.k = idx.back();
  for (int64_t i = 0; i < b; ++i) g.batches *= idx[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(b); i + 1 < idx.size(); ++i) g.tuples *= idx[i];
  for (size_t i = static_cast<size_t>(b + g.k); i < data.size(); ++i) g.slice *= data[i];
  for (size_t i = static_cast<size_t>(b); i < data.size(); ++i) g.dataBatch *= data[i];
  g.dims.assign(data.begin() + b, data.begin() + b + g.k);
  g.strides.assign(static_cast<size_t>(g.k), 1);
  for (int64_t i = g.k - 1; i > 0; --i)
    g.strides[static_cast<size_t>(i - 1)] = g.strides[static_cast<size_t>(i)] * g.dims[static_cast<size_t>(i)];
  return g;
}

}  // namespace

KernelFn makeCpuKernel_GatherND(const Op& op, KernelContext& kc) {
  const NdGeom g = ndGeom(op.inShape(0), op.inShape(1), op.attrs.getInt("batch_dims", 0));
  return gatherKernel(op, kc, [=](const void* indices, const std::string& where, auto copy) {
    const auto* idx = static_cast<const int64_t*>(indices);
    for (int64_t b = 0; b < g.batches; ++b) {
      for (int64_t t = 0; t < g.tuples; ++t) {
        const int64_t off = g.offset(idx + (b * g.tuples + t) * g.k, where);
        copy((b * g.tuples + t) * g.slice, b * g.dataBatch + off * g.slice, g.slice);
      }
    }
  });
}

KernelFn makeCpuKernel_ScatterND(const Op& op, KernelContext& kc) {
  const NdGeom g = ndGeom(op.inShape(0), op.inShape(1), 0);
  return scatterKernel(op, kc, [=](const void* indices, const std::string& where, auto f) {
    const auto* idx = static_cast<const int64_t*>(indices);
    for (int64_t t = 0; t < g.tuples; ++t) {
      const int64_t off = g.offset(idx + t * g.k, where);
      for (int64_t e = 0; e < g.slice; ++e) f(off * g.slice + e, t * g.slice + e);
    }
  });
}

KernelFn makeCpuKernel_Compress(const Op& op, KernelContext& kc) {
  const auto cond = op.requireInData(1, "the condition").toInt64();
  const Shape& in = op.inShape(0);
  const size_t elem = static_cast<size_t>(dataTypeSize(op.inType(0)));
  int64_t outer = 1, len = op.inInfo(0).nelms(), inner = 1;
  if (op.attrs.has("axis")) {
    const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis"), static_cast<int64_t>(in.size()));
    len = in[static_cast<size_t>(axis)];
    for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(axis) + 1; i < in.size(); ++i) inner *= in[i];
  }
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < std::min<int64_t>(len, static_cast<int64_t>(cond.size())); ++i) {
    if (cond[static_cast<size_t>(i)]) keep.push_back(i);
  }
  const int x = kc.in(0), y = kc.out(0);
  return [=](const RunState& s) {
    const auto* src = static_cast<const unsigned char*>(s.slots[x]);
    auto* dst = static_cast<unsigned char*>(s.slots[y]);
    const size_t blk = static_cast<size_t>(inner) * elem;
    size_t o = 0;
    for (int64_t a = 0; a < outer; ++a) {
      for (int64_t k : keep) {
        std::memcpy(dst + o, src + static_cast<size_t>(a * len + k) * blk, blk);
        o += blk;
      }
    }
  };
}

KernelFn makeCpuKernel_TopK(const Op& op, KernelContext& kc) {
  const Shape& in = op.inShape(0);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(in.size()));
  const int64_t k = op.outInfo(0).shape()[static_cast<size_t>(axis)];
  const bool largest = op.attrs.getInt("largest", 1) != 0;
  int64_t outer = 1, len = in[static_cast<size_t>(axis)], inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < in.size(); ++i) inner *= in[i];
  const int x = kc.in(0), yv = kc.out(0), yi = kc.out(1);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* V = yv >= 0 ? outPtr<T>(s, yv) : nullptr;
      int64_t* I = yi >= 0 ? outPtr<int64_t>(s, yi) : nullptr;
      std::vector<int64_t> order(static_cast<size_t>(len));
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in_ = 0; in_ < inner; ++in_) {
          const T* p = X + o * len * inner + in_;
          std::iota(order.begin(), order.end(), 0);
          // Ties keep the lower index first (ONNX's rule).
          auto better = [&](int64_t a, int64_t b) {
            const C va = static_cast<C>(p[a * inner]), vb = static_cast<C>(p[b * inner]);
            if (va != vb) return largest ? va > vb : va < vb;
            return a < b;
          };
          std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
          for (int64_t j = 0; j < k; ++j) {
            const int64_t dst = (o * k + j) * inner + in_;
            if (V) V[dst] = p[order[static_cast<size_t>(j)] * inner];
            if (I) I[dst] = order[static_cast<size_t>(j)];
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_Gather(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const Shape& data = op.inShape(0);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  int64_t outer = 1, inner = 1;
  const int64_t n = data[static_cast<size_t>(axis)];
  for (int64_t i = 0; i < axis; ++i) outer *= data[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < data.size(); ++i) inner *= data[i];
  const int64_t nIdx = op.inInfo(1).nelms();
  const size_t elem = elemSize(op, 0);
  const DataType it = op.inType(1);
  const int x = kc.in(0), ix = kc.in(1), y = kc.out(0);
  const std::string where = op.describe();
  return [=](const RunState& s) {
    const auto* src = static_cast<const unsigned char*>(s.slots[x]);
    auto* dst = static_cast<unsigned char*>(s.slots[y]);
    const size_t blk = static_cast<size_t>(inner) * elem;
    for (int64_t k = 0; k < nIdx; ++k) {
      int64_t i = indexAt(s.slots[ix], it, k);
      if (i < 0) i += n;
      if (i < 0 || i >= n) throw error("{}: index {} is out of range for axis {} of size {}", where, i, axis, n);
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(dst + static_cast<size_t>(o * nIdx + k) * blk, src + static_cast<size_t>(o * n + i) * blk, blk);
    }
  };
}

}  // namespace cpu
}  // namespace popart
