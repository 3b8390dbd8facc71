// CPU kernels of the reduction family.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/sum.hpp"
#include "common/checked_size.hpp"
#include "common/numeric_cast.hpp"
#include "ops/op_util.hpp"
#include "ops/reduce_axes.hpp"

namespace popart {
namespace cpu {
namespace {

enum class Red { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/// The reductions that sum a term per element (x, |x| or x^2) and finish on the sum: their FLOAT
/// paths sum through sum.hpp.
bool sumsTerms(Red red) {
  return red == Red::Sum || red == Red::Mean || red == Red::LogSum || red == Red::L1 || red == Red::L2 ||
         red == Red::SumSquare;
}

/// g(term) with the term function of a summing reduction, a generic lambda of float or double.
template <typename G>
auto withTerm(Red red, G g) {
  switch (red) {
    case Red::L1:
      return g([](auto v) { return v < 0 ? -v : v; });
    case Red::L2:
    case Red::SumSquare:
      return g([](auto v) { return v * v; });
    default:
      return g([](auto v) { return v; });
  }
}

// Reduced axes that form one contiguous block [a0, a1) reduce as (outer, len, inner).
bool contiguousBlock(const std::vector<int64_t>& axes, const Shape& in, int64_t* outer, int64_t* len, int64_t* inner) {
  if (axes.empty()) return false;
  std::vector<int64_t> s = axes;
  std::sort(s.begin(), s.end());
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] != s[i - 1] + 1) return false;
  }
  *outer = *len = *inner = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i) {
    const int64_t d = in[static_cast<size_t>(i)];
    if (i < s.front())
      *outer *= d;
    else if (i <= s.back())
      *len *= d;
    else
      *inner *= d;
  }
  return true;
}

// The input seen as [outer, kept, inner] with the outer and inner dims reduced (either may be
// empty, size 1) and the kept dims contiguous in the middle: bias gradients (N, H, W of NCHW),
// batch sums of [N, C].
bool outerInnerBlock(const std::vector<int64_t>& axes, const Shape& in, int64_t* outer, int64_t* kept, int64_t* inner) {
  std::vector<bool> red(in.size(), false);
  for (auto a : axes) red[static_cast<size_t>(a)] = true;
  size_t k0 = 0, k1 = in.size();
  while (k0 < in.size() && (red[k0] || in[k0] == 1)) ++k0;
  while (k1 > k0 && (red[k1 - 1] || in[k1 - 1] == 1)) --k1;
  *outer = *kept = *inner = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    if (i >= k0 && i < k1 && red[i] && in[i] != 1) return false;  // a reduced dim among the kept ones
    (i < k0 ? *outer : i < k1 ? *kept : *inner) *= in[i];
  }
  return true;
}

template <typename Acc>
Acc reduceInit(Red red) {
  if (red == Red::Max)
    return std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::lowest();
  if (red == Red::Min)
    return std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::max();
  if (red == Red::Prod) return 1;
  return 0;
}

template <typename Acc>
inline void reduceStep(Red red, Acc& a, Acc v, double mx) {
  switch (red) {
    case Red::Sum:
    case Red::Mean:
    case Red::LogSum:
      a = wrapAdd(a, v);  // integers wrap around, as Add does
      break;
    case Red::Max:
      a = (v > a || v != v) ? v : a;
      break;
    case Red::Min:
      a = (v < a || v != v) ? v : a;
      break;
    case Red::Prod:
      a = wrapMul(a, v);
      break;
    case Red::L1:
      a = wrapAdd(a, v < 0 ? wrapNeg(v) : v);
      break;
    case Red::L2:
    case Red::SumSquare:
      a = wrapAdd(a, wrapMul(v, v));
      break;
    case Red::LogSumExp:
      a += static_cast<Acc>(std::exp(static_cast<double>(v) - mx));
      break;
  }
}

template <typename T, typename Acc>
T reduceFinish(Red red, Acc a, int64_t count, double mx) {
  using CT = compute_t<T>;
  double r = static_cast<double>(a);
  switch (red) {
    case Red::Mean:
      r = count ? r / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
      break;
    case Red::L2:
      r = std::sqrt(r);
      break;
    case Red::LogSum:
      r = std::log(r);
      break;
    case Red::LogSumExp:
      r = std::log(r) + mx;
      break;
    default:
      if constexpr (!std::is_floating_point_v<Acc>) return static_cast<T>(a);
      break;
  }
  // An integer result of log(0), a mean of nothing (NaN) or an out-of-range value saturates.
  return static_cast<T>(numericCast<CT>(r));
}

KernelFn reduceKernel(const Op& op, KernelContext& kc, Red red) {
  const Shape& in = op.inShape(0);
  const auto axes = ops::reduceAxes(op);
  Shape kept = in;  // the output with reduced dims kept as 1
  int64_t count = 1;
  for (auto a : axes) {
    count *= in[static_cast<size_t>(a)];
    kept[static_cast<size_t>(a)] = 1;
  }
  const int64_t nOut = TensorInfo(DataType::FLOAT, kept).nelms();
  const int x = kc.in(0), y = kc.out(0);
  int64_t outer = 0, len = 0, inner = 0;
  // No axis reduced (ops/reduce_axes.hpp): each output reduces its one element, x for Sum, Mean,
  // Max, Min, Prod, LogSumExp (a copy), |x|, x², log x for the others (PopART's reference for
  // axes = [] is numpy's reduction over axis=()).
  const bool identity = red == Red::Sum || red == Red::Mean || red == Red::Max || red == Red::Min || red == Red::Prod ||
                        red == Red::LogSumExp;
  if (axes.empty() && identity) {
    const size_t bytes = static_cast<size_t>(op.inInfo(0).nbytes());
    return [=](const RunState& s) { std::memcpy(s.slots[y], s.slots[x], bytes); };
  }
  const bool block = !axes.empty() && contiguousBlock(axes, in, &outer, &len, &inner);
  // Accumulators (and LogSumExp maxima) live in scratch memory.
  kc.needScratch(checkedProduct({nOut, 2 * static_cast<int64_t>(sizeof(double))}));
  const BroadcastPlan p = makeBroadcastPlan(in, {kept});
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    using Acc = std::conditional_t<std::is_floating_point_v<CT>, double, CT>;
    if constexpr (std::is_same_v<T, float>) {
      if (block && inner == 1 && sumsTerms(red)) {
        // Each output sums the terms of one contiguous row (sum.hpp: float lanes, double blocks).
        return withTerm(red, [=](auto term) -> KernelFn {
          return [=](const RunState& s) {
            const float* X = inPtr<float>(s, x);
            float* Y = outPtr<float>(s, y);
            for (int64_t o = 0; o < outer; ++o)
              Y[o] = reduceFinish<float, double>(red, sumFloats(X + o * len, len, term), count, 0);
          };
        });
      }
    }
    if (block && inner == 1) {
      // Each output reduces one contiguous row.
      return [=](const RunState& s) {
        const T* X = inPtr<T>(s, x);
        T* Y = outPtr<T>(s, y);
        for (int64_t o = 0; o < outer; ++o) {
          const T* row = X + o * len;
          double mx = 0;
          if (red == Red::LogSumExp) {
            mx = -std::numeric_limits<double>::infinity();
            for (int64_t j = 0; j < len; ++j) mx = std::max(mx, static_cast<double>(static_cast<CT>(row[j])));
          }
          Acc a = reduceInit<Acc>(red);
          for (int64_t j = 0; j < len; ++j) reduceStep<Acc>(red, a, static_cast<Acc>(static_cast<CT>(row[j])), mx);
          Y[o] = reduceFinish<T, Acc>(red, a, count, mx);
        }
      };
    }
    int64_t ro = 0, rk = 0, ri = 0;
    if constexpr (std::is_same_v<T, float>) {
      if (sumsTerms(red) && !axes.empty() && outerInnerBlock(axes, in, &ro, &rk, &ri)) {
        // Sums over [outer, kept, inner] into double accumulators per kept element: rows of
        // `inner` through sumFloats, or (short rows) their terms added in double; without inner
        // axes, whole kept-wide rows added at once.
        return withTerm(red, [=](auto term) -> KernelFn {
          return [=](const RunState& s) {
            const float* X = inPtr<float>(s, x);
            float* Y = outPtr<float>(s, y);
            double* acc = reinterpret_cast<double*>(s.scratch);
            std::fill(acc, acc + rk, 0.0);
            for (int64_t o = 0; o < ro; ++o) {
              const float* xo = X + o * rk * ri;
              if (ri == 1) {
                for (int64_t k = 0; k < rk; ++k) acc[k] += term(static_cast<double>(xo[k]));
              } else if (ri < kSumLanes) {
                for (int64_t k = 0; k < rk; ++k) {
                  double t = 0;
                  for (int64_t j = 0; j < ri; ++j) t += term(static_cast<double>(xo[k * ri + j]));
                  acc[k] += t;
                }
              } else {
                for (int64_t k = 0; k < rk; ++k) acc[k] += sumFloats(xo + k * ri, ri, term);
              }
            }
            for (int64_t k = 0; k < rk; ++k) Y[k] = reduceFinish<float, double>(red, acc[k], count, 0);
          };
        });
      }
    }
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      Acc* acc = reinterpret_cast<Acc*>(s.scratch);
      double* mx = reinterpret_cast<double*>(s.scratch + static_cast<size_t>(nOut) * sizeof(double));
      std::fill(acc, acc + nOut, reduceInit<Acc>(red));
      std::fill(mx, mx + nOut, red == Red::LogSumExp ? -std::numeric_limits<double>::infinity() : 0.0);
      if (red == Red::LogSumExp) {
        forEachRun<1>(p, [&](int64_t o, const int64_t* off, int64_t n, const int64_t* st) {
          for (int64_t j = 0; j < n; ++j) {
            double& m = mx[off[0] + j * st[0]];
            m = std::max(m, static_cast<double>(static_cast<CT>(X[o + j])));
          }
        });
      }
      forEachRun<1>(p, [&](int64_t o, const int64_t* off, int64_t n, const int64_t* st) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t k = off[0] + j * st[0];
          reduceStep<Acc>(red, acc[k], static_cast<Acc>(static_cast<CT>(X[o + j])), mx[k]);
        }
      });
      for (int64_t i = 0; i < nOut; ++i) Y[i] = reduceFinish<T, Acc>(red, acc[i], count, mx[i]);
    };
  });
}

KernelFn argKernel(const Op& op, KernelContext& kc, bool isMax) {
  const Shape& in = op.inShape(0);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(in.size()));
  const bool last = op.attrs.getInt("select_last_index", 0) != 0;
  int64_t outer = 1, len = in[static_cast<size_t>(axis)], inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < in.size(); ++i) inner *= in[i];
  const int x = kc.in(0), y = kc.out(0);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      int32_t* Y = outPtr<int32_t>(s, y);  // INT32, as PopART's (ops/reduce.cpp)
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* p = X + o * len * inner + i;
          int64_t best = 0;
          CT bv = static_cast<CT>(p[0]);
          for (int64_t k = 1; k < len; ++k) {
            const CT v = static_cast<CT>(p[k * inner]);
            const bool better = isMax ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
            if (better) {
              bv = v;
              best = k;
            }
          }
          Y[o * inner + i] = static_cast<int32_t>(best);
        }
      }
    };
  });
}

}  // namespace

// clang-format off
KernelFn makeCpuKernel_ReduceSum(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::Sum); }
KernelFn makeCpuKernel_ReduceMean(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::Mean); }
KernelFn makeCpuKernel_ReduceMax(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::Max); }
KernelFn makeCpuKernel_ReduceMin(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::Min); }
KernelFn makeCpuKernel_ReduceProd(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::Prod); }
KernelFn makeCpuKernel_ReduceL1(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::L1); }
KernelFn makeCpuKernel_ReduceL2(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::L2); }
KernelFn makeCpuKernel_ReduceLogSum(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::LogSum); }
KernelFn makeCpuKernel_ReduceLogSumExp(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::LogSumExp); }
KernelFn makeCpuKernel_ReduceSumSquare(const Op& op, KernelContext& kc) { return reduceKernel(op, kc, Red::SumSquare); }
KernelFn makeCpuKernel_ArgMax(const Op& op, KernelContext& kc) { return argKernel(op, kc, true); }
KernelFn makeCpuKernel_ArgMin(const Op& op, KernelContext& kc) { return argKernel(op, kc, false); }
// clang-format on

}  // namespace cpu
}  // namespace popart
