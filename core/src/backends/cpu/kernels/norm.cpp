// CPU kernels of the normalization family (and Dropout).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/half_via_float.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/bn_geom.hpp"
#include "backends/cpu/kernels/dropout.hpp"
#include "backends/cpu/kernels/sum.hpp"
#include "common/checked_size.hpp"
#include "ir/ir.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {

// The parameters and statistics may have their own floating-point type (FLOAT with FLOAT16 X, as
// PopART allows): they are read and written through their types, X and Y computed in X's.
/// The statistics' algorithm of PopART's normalizations (BatchNormalization, InstanceNormalization,
/// GroupNormalization): SessionOptions::enableStableNorm, off by default as in PopART (sum.hpp's
/// meanVar). ONNX's LayerNormalization, which PopART does not have, keeps the two-pass form.
static bool stableNorm(const Op& op) {
  return op.graph().ir().options().enableStableNorm;
}

KernelFn makeCpuKernel_BatchNormalization(const Op& op, KernelContext& kc) {
  const BnGeom geom = bnGeom(op.inShape(0), op.inShape(1));
  const int64_t N = geom.N, C = geom.C, S = geom.S;
  const double eps = op.attrs.getFloat("epsilon", 1e-5f);
  const double momentum = op.attrs.getFloat("momentum", 0.9f);
  const bool training = op.opset() >= 14 ? op.attrs.getInt("training_mode", 0) != 0 : op.numOutputs() > 1;
  const bool stable = stableNorm(op);
  // Graphcore's BatchNormalization updates the running variance with the unbiased batch variance
  // (N - 1 as the population size, as PyTorch); Y is normalised with the biased one either way.
  const int64_t count = N * S;
  const double unbias = op.kind() == OpKind::GcBatchNormalization && count > 1
                            ? static_cast<double>(count) / static_cast<double>(count - 1)
                            : 1.0;
  const int x = kc.in(0), sc = kc.in(1), bi = kc.in(2), mn = kc.in(3), vr = kc.in(4);
  const int y = kc.out(0), rm = kc.out(1), rv = kc.out(2), sm = kc.out(3), sv = kc.out(4);
  const LoadFn ldSc = floatLoader(op.inType(1)), ldBi = floatLoader(op.inType(2));
  const LoadFn ldMn = floatLoader(op.inType(3)), ldVr = floatLoader(op.inType(4));
  StoreFn stOut[5] = {};
  for (int i = 1; i < 5; ++i) {
    if (op.hasOutput(i)) stOut[i] = floatStorer(op.outInfo(i).dataType());
  }
  const StoreFn stRm = stOut[1], stRv = stOut[2], stSm = stOut[3], stSv = stOut[4];
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      for (int64_t c = 0; c < C; ++c) {
        double mean = ldMn(s.slots[mn], c);
        double var = ldVr(s.slots[vr], c);
        if (training) {
          const MeanVar mv = meanVar(X + c * S, N, S, C * S, stable);
          const double bm = mv.mean, bv = mv.var;
          if (rm >= 0) stRm(s.slots[rm], c, momentum * mean + (1 - momentum) * bm);
          if (rv >= 0) stRv(s.slots[rv], c, momentum * var + (1 - momentum) * bv * unbias);
          if (sm >= 0) stSm(s.slots[sm], c, bm);
          if (sv >= 0) stSv(s.slots[sv], c, bv);
          mean = bm;
          var = bv;
        }
        const double a = ldSc(s.slots[sc], c) / std::sqrt(var + eps);
        const double b = ldBi(s.slots[bi], c) - a * mean;
        using CT = compute_t<T>;
        const CT af = static_cast<CT>(a), bf = static_cast<CT>(b);
        for (int64_t n = 0; n < N; ++n) {
          const T* p = X + (n * C + c) * S;
          T* q = Y + (n * C + c) * S;
          for (int64_t i = 0; i < S; ++i) q[i] = static_cast<T>(af * static_cast<CT>(p[i]) + bf);
        }
      }
    };
  });
}

namespace {
/// FLOAT scale / bias of 16-bit data (ops' requireParamType): the kernel runs on float copies.
bool mixedParams(const Op& op, int first, int last) {
  for (int i = first; i <= last; ++i) {
    if (op.hasInput(i) && op.inType(i) != op.inType(0)) return true;
  }
  return false;
}
}  // namespace

KernelFn makeCpuKernel_InstanceNormalization(const Op& op, KernelContext& kc) {
  if (mixedParams(op, 1, 2)) return viaFloat(op, kc, &makeCpuKernel_InstanceNormalization);
  const Shape& xs = op.inShape(0);
  const int64_t N = xs[0], C = xs[1];
  int64_t S = 1;
  for (size_t i = 2; i < xs.size(); ++i) S *= xs[i];
  const double eps = op.attrs.getFloat("epsilon", 1e-5f);
  const bool stable = stableNorm(op);
  const int x = kc.in(0), sc = kc.in(1), bi = kc.in(2), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t c = 0; c < C; ++c) {
          const T* p = X + (n * C + c) * S;
          T* q = Y + (n * C + c) * S;
          const MeanVar mv = meanVar(p, 1, S, S, stable);
          const double mean = mv.mean, inv = 1.0 / std::sqrt(mv.var + eps);
          const double a = static_cast<double>(static_cast<CT>(inPtr<T>(s, sc)[c])) * inv;
          const double b = static_cast<double>(static_cast<CT>(inPtr<T>(s, bi)[c])) - a * mean;
          for (int64_t i = 0; i < S; ++i) q[i] = static_cast<T>(a * static_cast<double>(static_cast<CT>(p[i])) + b);
        }
      }
    };
  });
}

namespace {

/// MeanVarianceNormalization's layout: X's dimensions with the size-1 ones dropped and runs of
/// reduced (or kept) ones merged; a group is one combination of the kept indices.
struct MvnGeom {
  std::vector<int64_t> size, groupStride;  // groupStride 0 for a reduced dimension
  bool lastReduced = false;
  int64_t groups = 1, count = 1, n = 0;
};

MvnGeom mvnGeom(const Op& op) {
  const Shape& x = op.inShape(0);
  const auto axes = ops::normalizeAxes(op.attrs.getInts("axes", {0, 2, 3}), op.inInfo(0).rank());
  MvnGeom g;
  std::vector<bool> reduced;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool r = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (x[d] == 1) continue;
    if (!g.size.empty() && reduced.back() == r) {
      g.size.back() *= x[d];
    } else {
      g.size.push_back(x[d]);
      reduced.push_back(r);
    }
  }
  if (g.size.empty()) {
    g.size.push_back(1);
    reduced.push_back(false);
  }
  g.groupStride.assign(g.size.size(), 0);
  for (size_t d = g.size.size(); d-- > 0;) {
    if (reduced[d]) {
      g.count *= g.size[d];
    } else {
      g.groupStride[d] = g.groups;
      g.groups *= g.size[d];
    }
  }
  g.lastReduced = reduced.back();
  g.n = op.inInfo(0).nelms();
  return g;
}

/// f(offset, group) for each run of X along its last merged dimension (a run shares its group
/// when that dimension is reduced, else its elements are consecutive groups).
template <typename F>
void mvnRuns(const MvnGeom& g, F f) {
  const size_t outer = g.size.size() - 1;
  std::vector<int64_t> idx(outer, 0);
  const int64_t len = g.size.back();
  int64_t group = 0;
  for (int64_t off = 0; off < g.n; off += len) {
    f(off, group);
    for (size_t d = outer; d-- > 0;) {  // next run
      group += g.groupStride[d];
      if (++idx[d] < g.size[d]) break;
      group -= g.groupStride[d] * g.size[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

KernelFn makeCpuKernel_MeanVarianceNormalization(const Op& op, KernelContext& kc) {
  const MvnGeom g = mvnGeom(op);
  const int x = kc.in(0), y = kc.out(0);
  kc.needScratch(checkedProduct({g.groups, 2, static_cast<int64_t>(sizeof(double))}));
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      if (g.n == 0) return;
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      double* mean = reinterpret_cast<double*>(s.scratch);
      double* scale = mean + g.groups;  // the squared deviations' sum, then 1 / (sd + 1e-9)
      std::fill(mean, mean + 2 * g.groups, 0.0);
      const int64_t len = g.size.back();
      const int64_t step = g.lastReduced ? 0 : 1;
      auto at = [&](int64_t i) { return static_cast<double>(static_cast<CT>(X[i])); };
      mvnRuns(g, [&](int64_t off, int64_t grp) {
        for (int64_t i = 0; i < len; ++i) mean[grp + i * step] += at(off + i);
      });
      for (int64_t k = 0; k < g.groups; ++k) mean[k] /= static_cast<double>(g.count);
      mvnRuns(g, [&](int64_t off, int64_t grp) {
        for (int64_t i = 0; i < len; ++i) {
          const double d = at(off + i) - mean[grp + i * step];
          scale[grp + i * step] += d * d;
        }
      });
      // ONNX's definition: the epsilon 1e-9 is added to the standard deviation.
      for (int64_t k = 0; k < g.groups; ++k)
        scale[k] = 1.0 / (std::sqrt(scale[k] / static_cast<double>(g.count)) + 1e-9);
      mvnRuns(g, [&](int64_t off, int64_t grp) {
        for (int64_t i = 0; i < len; ++i) {
          const int64_t k = grp + i * step;
          Y[off + i] = static_cast<T>(static_cast<CT>((at(off + i) - mean[k]) * scale[k]));
        }
      });
    };
  });
}

KernelFn makeCpuKernel_LayerNormalization(const Op& op, KernelContext& kc) {
  if (mixedParams(op, 1, 2)) return viaFloat(op, kc, &makeCpuKernel_LayerNormalization);
  const Shape& xs = op.inShape(0);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(xs.size()));
  int64_t outer = 1, len = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(xs.size()); ++i) (i < axis ? outer : len) *= xs[static_cast<size_t>(i)];
  const Shape norm(xs.begin() + axis, xs.end());
  const bool scaleFull = op.inInfo(1).nelms() == len;
  const bool biasFull = op.hasInput(2) && op.inInfo(2).nelms() == len;
  if (!scaleFull || (op.hasInput(2) && !biasFull))
    throw error("{}: LayerNormalization with broadcast scale/bias shapes is not supported here", op.describe());
  const double eps = op.attrs.getFloat("epsilon", 1e-5f);
  const int x = kc.in(0), sc = kc.in(1), bi = kc.in(2), y = kc.out(0), mo = kc.out(1), io = kc.out(2);
  const DataType statType = op.hasOutput(1) ? op.outInfo(1).dataType() : DataType::FLOAT;
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      const T* G = inPtr<T>(s, sc);
      const T* B = bi >= 0 ? inPtr<T>(s, bi) : nullptr;
      T* Y = outPtr<T>(s, y);
      for (int64_t o = 0; o < outer; ++o) {
        const T* p = X + o * len;
        T* q = Y + o * len;
        const MeanVar mv = meanVar(p, 1, len, len);
        const CT mean = static_cast<CT>(mv.mean);
        const CT inv = static_cast<CT>(1.0 / std::sqrt(mv.var + eps));
        for (int64_t i = 0; i < len; ++i) {
          CT v = (static_cast<CT>(p[i]) - mean) * inv * static_cast<CT>(G[i]);
          if (B) v += static_cast<CT>(B[i]);
          q[i] = static_cast<T>(v);
        }
        auto store = [&](int slot, double v) {
          if (slot < 0) return;
          dispatchFloat(statType, [&](auto st) {
            using S = decltype(st);
            outPtr<S>(s, slot)[o] = static_cast<S>(static_cast<compute_t<S>>(v));
            return 0;
          });
        };
        store(mo, static_cast<double>(mean));
        store(io, static_cast<double>(inv));
      }
    };
  });
}

KernelFn makeCpuKernel_Dropout(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const int x = kc.in(0), y = kc.out(0), mask = kc.out(1);
  const DropoutRatio dropout{op.opset() < 12 ? op.attrs.getFloat("ratio", 0.5f) : 0.5,
                             (op.opset() < 7 && op.attrs.getInt("is_test", 0) == 0) ||
                                 op.attrs.getInt("training", 0) != 0,  // Dropout 7-11 in a TrainingSession
                             kc.in(1), op.hasInput(1) ? op.inType(1) : DataType::FLOAT, kc.in(2)};
  const bool maskBool = op.opset() >= 10;
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      const double ratio = dropout.get(s);
      if (ratio == 0.0) {
        if (X != Y) std::memcpy(static_cast<void*>(Y), X, static_cast<size_t>(n) * sizeof(T));
        if (mask >= 0) {
          if (maskBool)
            std::fill(outPtr<bool>(s, mask), outPtr<bool>(s, mask) + n, true);
          else
            std::fill(outPtr<T>(s, mask), outPtr<T>(s, mask) + n, static_cast<T>(CT(1)));
        }
        return;
      }
      std::bernoulli_distribution keep(1.0 - ratio);
      const CT scale = static_cast<CT>(1.0 / (1.0 - ratio));
      for (int64_t i = 0; i < n; ++i) {
        const bool k = keep(*s.rng);
        Y[i] = static_cast<T>(k ? static_cast<CT>(X[i]) * scale : CT(0));
        if (mask >= 0) {
          if (maskBool)
            outPtr<bool>(s, mask)[i] = k;
          else
            outPtr<T>(s, mask)[i] = static_cast<T>(CT(k ? 1 : 0));
        }
      }
    };
  });
}

// Graphcore's GroupNormalization: each sample's channels in `groups` consecutive blocks (torch's
// GroupNorm; PopART's default, groupNormStridedChannelGrouping off), each block of C / G * S
// elements normalised by its mean and biased variance; mean and invStdDev per (n, g), n-major.
KernelFn makeCpuKernel_GcGroupNormalization(const Op& op, KernelContext& kc) {
  const Shape& xs = op.inShape(0);
  const int64_t N = xs[0], C = xs[1], G = op.attrs.getInt("num_groups");
  const int64_t S = C == 0 || N == 0 ? 0 : op.inInfo(0).nelms() / (N * C);
  const int64_t perGroup = (C / G) * S;
  const double eps = op.attrs.getFloat("epsilon", 1e-5f);
  const bool stable = stableNorm(op);
  const int x = kc.in(0), sc = kc.in(1), bi = kc.in(2), y = kc.out(0), mo = kc.out(1), io = kc.out(2);
  const LoadFn ldSc = floatLoader(op.inType(1)), ldBi = floatLoader(op.inType(2));
  const StoreFn stStat = floatStorer(op.inType(0));
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t g = 0; g < G; ++g) {
          const int64_t base = (n * G + g) * perGroup;
          const MeanVar mv = meanVar(X + base, 1, perGroup, perGroup, stable);
          const double inv = 1.0 / std::sqrt(mv.var + eps);
          if (mo >= 0) stStat(s.slots[mo], n * G + g, mv.mean);
          if (io >= 0) stStat(s.slots[io], n * G + g, inv);
          for (int64_t c = g * (C / G); c < (g + 1) * (C / G); ++c) {
            const double a = ldSc(s.slots[sc], c) * inv;
            const double b = ldBi(s.slots[bi], c) - a * mv.mean;
            const T* p = X + (n * C + c) * S;
            T* q = Y + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i)
              q[i] = static_cast<T>(static_cast<CT>(a * static_cast<double>(static_cast<CT>(p[i])) + b));
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_GcBatchNormalization(const Op& op, KernelContext& kc) {
  return makeCpuKernel_BatchNormalization(op, kc);
}

}  // namespace cpu
}  // namespace popart
