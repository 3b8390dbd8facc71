// CPU kernels of the scatterreduce family: ScatterReduce (PopART's strategies: the output starts
// from the initial values, or from 0 / 1 / -inf / +inf for Sum and None / Mul / Max / Min; Max and
// Min without initial values leave 0 where nothing was scattered), its gradient, GroupedGather and
// its gradient.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/op_util.hpp"
#include "ops/scatterreduce_params.hpp"

namespace popart {
namespace cpu {
namespace {

using ops::ScatterRed;

/// Element k of an integer index tensor as int64 (UINT64 past INT64_MAX becomes negative: out of
/// range for every reader).
int64_t intIndexAt(const void* p, DataType t, int64_t k) {
  switch (t) {
    case DataType::UINT8:
      return static_cast<const uint8_t*>(p)[k];
    case DataType::INT8:
      return static_cast<const int8_t*>(p)[k];
    case DataType::UINT16:
      return static_cast<const uint16_t*>(p)[k];
    case DataType::INT16:
      return static_cast<const int16_t*>(p)[k];
    case DataType::UINT32:
      return static_cast<const uint32_t*>(p)[k];
    case DataType::INT32:
      return static_cast<const int32_t*>(p)[k];
    case DataType::UINT64:
      return static_cast<int64_t>(static_cast<const uint64_t*>(p)[k]);
    case DataType::INT64:
      return static_cast<const int64_t*>(p)[k];
    default:
      break;
  }
  throw internal_error("indexAt: {} is not an integer type", dataTypeToString(t));
}

template <typename T>
compute_t<T> initialValue(ScatterRed r) {
  using C = compute_t<T>;
  switch (r) {
    case ScatterRed::Mul:
      return C(1);
    case ScatterRed::Max:
      return std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                  : std::numeric_limits<C>::lowest();
    case ScatterRed::Min:
      return std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max();
    default:
      return C(0);
  }
}

const ops::ScatterGeom geomOf(const Op& op) {
  const Shape* initial = op.hasInput(2) ? &op.inShape(2) : nullptr;
  return ops::scatterGeom(op.attrs, op.inShape(0), op.inShape(1), initial);
}

}  // namespace

KernelFn makeCpuKernel_GcScatterReduce(const Op& op, KernelContext& kc) {
  auto g = std::make_shared<const ops::ScatterGeom>(geomOf(op));
  const bool hasInitial = op.hasInput(2);
  const DataType it = op.inType(1);
  const int64_t n = op.outInfo(0).nelms();
  const int64_t axisStride = g->outStrides[static_cast<size_t>(g->axis)];
  const int x = kc.in(0), ix = kc.in(1), init = hasInitial ? kc.in(2) : -1, y = kc.out(0);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      T* out = outPtr<T>(s, y);
      const T* data = inPtr<T>(s, x);
      if (hasInitial) {
        if (s.slots[y] != s.slots[init]) std::memcpy(out, s.slots[init], static_cast<size_t>(n) * sizeof(T));
      } else {
        std::fill(out, out + n, static_cast<T>(initialValue<T>(g->reduction)));
      }
      const bool maskUntouched = !hasInitial && (g->reduction == ScatterRed::Max || g->reduction == ScatterRed::Min);
      std::vector<bool> touched(maskUntouched ? static_cast<size_t>(n) : 0, false);
      ops::forEachScatter(*g, [&](int64_t d, int64_t i, int64_t o) {
        const int64_t v = intIndexAt(s.slots[ix], it, i);
        if (v < 0 || v >= g->axisSize) return;
        const int64_t t = o + v * axisStride;
        const C a = static_cast<C>(out[t]), b = static_cast<C>(data[d]);
        switch (g->reduction) {
          case ScatterRed::Sum:
            out[t] = static_cast<T>(a + b);
            break;
          case ScatterRed::Mul:
            out[t] = static_cast<T>(a * b);
            break;
          case ScatterRed::Max:
            out[t] = b > a ? data[d] : out[t];
            break;
          case ScatterRed::Min:
            out[t] = b < a ? data[d] : out[t];
            break;
          case ScatterRed::None:
            out[t] = data[d];
            break;
        }
        if (maskUntouched) touched[static_cast<size_t>(t)] = true;
      });
      for (size_t k = 0; k < touched.size(); ++k) {
        if (!touched[k]) out[k] = T(0);
      }
    };
  });
}

KernelFn makeCpuKernel_GcScatterReduceGrad(const Op& op, KernelContext& kc) {
  const Shape data = op.attrs.getInts("data_shape");
  const Shape* initialShape = op.hasInput(4) ? &op.inShape(4) : nullptr;
  auto g = std::make_shared<const ops::ScatterGeom>(ops::scatterGeom(op.attrs, data, op.inShape(1), initialShape));
  const DataType it = op.inType(1);
  const int64_t nData = op.outInfo(0).nelms(), nOut = op.inInfo(0).nelms();
  const int64_t axisStride = g->outStrides[static_cast<size_t>(g->axis)];
  const int gi = kc.in(0), ix = kc.in(1), x = kc.in(2), fwd = kc.in(3), init = op.hasInput(4) ? kc.in(4) : -1;
  const int gd = kc.out(0), ginit = op.hasOutput(1) ? kc.out(1) : -1;
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* grad = inPtr<T>(s, gi);
      const T* xs = inPtr<T>(s, x);
      const T* out = inPtr<T>(s, fwd);
      T* gData = outPtr<T>(s, gd);
      std::fill(gData, gData + nData, T(0));
      const ScatterRed r = g->reduction;
      ops::forEachScatter(*g, [&](int64_t d, int64_t i, int64_t o) {
        const int64_t v = intIndexAt(s.slots[ix], it, i);
        if (v < 0 || v >= g->axisSize) return;
        const int64_t t = o + v * axisStride;
        const C gr = static_cast<C>(grad[t]);
        if (r == ScatterRed::Max || r == ScatterRed::Min)
          gData[d] = static_cast<T>(static_cast<C>(xs[d]) == static_cast<C>(out[t]) ? gr : C(0));
        else if (r == ScatterRed::Mul)
          gData[d] = static_cast<T>(gr * static_cast<C>(out[t]) / static_cast<C>(xs[d]));
        else
          gData[d] = grad[t];
      });
      if (ginit < 0) return;
      T* gInit = outPtr<T>(s, ginit);
      const T* iv = inPtr<T>(s, init);
      for (int64_t k = 0; k < nOut; ++k) {
        const C gr = static_cast<C>(grad[k]);
        if (r == ScatterRed::Max || r == ScatterRed::Min)
          gInit[k] = static_cast<T>(static_cast<C>(out[k]) == static_cast<C>(iv[k]) ? gr : C(0));
        else if (r == ScatterRed::Mul)
          gInit[k] = static_cast<T>(gr * static_cast<C>(out[k]) / static_cast<C>(iv[k]));
        else
          gInit[k] = grad[k];
      }
      if (r != ScatterRed::None) return;
      ops::forEachScatter(*g, [&](int64_t, int64_t i, int64_t o) {
        const int64_t v = intIndexAt(s.slots[ix], it, i);
        if (v >= 0 && v < g->axisSize) gInit[o + v * axisStride] = T(0);
      });
    };
  });
}

namespace {

/// GroupedGather geometry: data [G, outer..., len, inner...], indices [G, nIdx...].
struct GatherGeom {
  int64_t groups = 1, outer = 1, len = 1, inner = 1, nIdx = 1;
};

GatherGeom gatherGeom(const Shape& data, const Shape& idx, int64_t axis) {
  GatherGeom g;
  g.groups = data[0];
  for (int64_t d = 1; d < static_cast<int64_t>(data.size()); ++d) {
    if (d < axis) g.outer *= data[static_cast<size_t>(d)];
    if (d > axis) g.inner *= data[static_cast<size_t>(d)];
  }
  g.len = data[static_cast<size_t>(axis)];
  for (size_t d = 1; d < idx.size(); ++d) g.nIdx *= idx[d];
  return g;
}

/// f(dataRow, outRow) for every gathered row of `inner` elements (negative indices count from the
/// end; others out of range are an error, as Gather's).
template <typename F>
void forEachGathered(const GatherGeom& g, const void* idx, DataType t, const std::string& where, F f) {
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    for (int64_t a = 0; a < g.outer; ++a) {
      for (int64_t j = 0; j < g.nIdx; ++j) {
        int64_t v = intIndexAt(idx, t, grp * g.nIdx + j);
        if (v < -g.len || v >= g.len)
          throw error("{}: index {} is out of range for a dimension of size {}", where, v, g.len);
        if (v < 0) v += g.len;
        f(((grp * g.outer + a) * g.len + v) * g.inner, ((grp * g.outer + a) * g.nIdx + j) * g.inner);
      }
    }
  }
}

}  // namespace

KernelFn makeCpuKernel_GcGroupedGather(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 0), op.inInfo(0).rank());
  const GatherGeom g = gatherGeom(op.inShape(0), op.inShape(1), axis);
  const size_t rowBytes = elemSize(op, 0) * static_cast<size_t>(g.inner);
  const size_t elem = elemSize(op, 0);
  const DataType t = op.inType(1);
  const std::string where = op.describe();
  const int x = kc.in(0), ix = kc.in(1), y = kc.out(0);
  return [=](const RunState& s) {
    const auto* in = static_cast<const unsigned char*>(s.slots[x]);
    auto* out = static_cast<unsigned char*>(s.slots[y]);
    forEachGathered(g, s.slots[ix], t, where, [&](int64_t from, int64_t to) {
      std::memcpy(out + static_cast<size_t>(to) * elem, in + static_cast<size_t>(from) * elem, rowBytes);
    });
  };
}

KernelFn makeCpuKernel_GcGroupedGatherGrad(const Op& op, KernelContext& kc) {
  const Shape data = op.attrs.getInts("data_shape");
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  const GatherGeom g = gatherGeom(data, op.inShape(1), axis);
  const int64_t n = op.outInfo(0).nelms();
  const DataType t = op.inType(1);
  const std::string where = op.describe();
  const int gi = kc.in(0), ix = kc.in(1), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* grad = inPtr<T>(s, gi);
      T* out = outPtr<T>(s, y);
      std::fill(out, out + n, T(0));
      forEachGathered(g, s.slots[ix], t, where, [&](int64_t to, int64_t from) {
        for (int64_t e = 0; e < g.inner; ++e)
          out[to + e] = static_cast<T>(static_cast<C>(out[to + e]) + static_cast<C>(grad[from + e]));
      });
    };
  });
}

}  // namespace cpu
}  // namespace popart
