// Accurate sums of long runs of elements: the one summation routine of the CPU kernels that
// reduce (the Reduce family, pooling averages, normalization statistics, Softmax).
//
// One float accumulator that adds n terms in turn loses precision as it grows (adding ones, it
// stops at 2^24), and so do a few float partial sums over a long run (eight of them stop at
// 2^27). A serial chain of double additions is accurate but does not vectorise. So FLOAT data is
// added in kSumLanes float lanes, which vectorise, over blocks of kSumBlock elements, and the
// blocks' sums are added in double (blocked summation, as in blocked BLAS dot products and
// NumPy's pairwise sum): each lane adds at most kSumBlock / kSumLanes = 128 terms, so the error
// is that of a short float sum per block, whatever the run's length. Other element types add
// their terms in double.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {

inline constexpr int kSumLanes = 16;
inline constexpr int64_t kSumBlock = 2048;

/// The sum of f(x[i]) for i in [0, n); f maps a float to a float (a term: v, |v|, v * v, ...)
/// and is inlined into the vectorised loop.
template <typename F>
inline double sumFloats(const float* x, int64_t n, F f) {
  double total = 0;
  for (int64_t b = 0; b < n; b += kSumBlock) {
    const float* p = x + b;
    const int64_t m = std::min(kSumBlock, n - b);
    float lo[kSumLanes / 2] = {}, hi[kSumLanes / 2] = {};  // 2 AVX or 4 SIMD128 registers
    int64_t j = 0;
    for (; j + kSumLanes <= m; j += kSumLanes) {
      for (int k = 0; k < kSumLanes / 2; ++k) lo[k] += f(p[j + k]);
      for (int k = 0; k < kSumLanes / 2; ++k) hi[k] += f(p[j + kSumLanes / 2 + k]);
    }
    double tail = 0;  // fewer than kSumLanes terms (a whole short row), in double at no cost
    for (; j < m; ++j) tail += static_cast<double>(f(p[j]));
    static_assert(kSumLanes == 16, "the lanes are added pairwise below");
    for (int k = 0; k < 8; ++k) lo[k] += hi[k];
    float q[4];
    for (int k = 0; k < 4; ++k) q[k] = lo[k] + lo[k + 4];
    total += static_cast<double>((q[0] + q[2]) + (q[1] + q[3])) + tail;
  }
  return total;
}

/// The sum of f(v) over the n elements v of x in their compute type: FLOAT through sumFloats (f
/// gets and returns floats), the other types in double (f gets and returns doubles). f is
/// typically a generic lambda, such as [](auto v) { return v * v; }.
template <typename T, typename F>
inline double sumOf(const T* x, int64_t n, F f) {
  if constexpr (std::is_same_v<T, float>) {
    return sumFloats(x, n, f);
  } else {
    double total = 0;
    for (int64_t i = 0; i < n; ++i) total += f(static_cast<double>(static_cast<compute_t<T>>(x[i])));
    return total;
  }
}

template <typename T>
inline double sumOf(const T* x, int64_t n) {
  return sumOf(x, n, [](auto v) { return v; });
}

struct MeanVar {
  double mean = 0, var = 0;  ///< the population variance
};

/// The mean and variance of `planes` runs of `len` elements, `stride` elements apart (one run:
/// LayerNormalization's rows, InstanceNormalization's planes; N runs: a BatchNormalization
/// channel), in two passes. The deviations are taken from the mean rounded to the data's type
/// (so that FLOAT stays in float lanes), m, and the rounding is taken out exactly:
/// sum (x - m)^2 = sum (x - mean)^2 + count (mean - m)^2. A count of 0 gives NaNs.
///
/// stable = false is PopART's default (SessionOptions::enableStableNorm off): the variance as
/// E[x^2] - E[x]^2 from the sums of x and x^2, which loses precision when the mean is large
/// next to the deviation.
template <typename T>
MeanVar meanVar(const T* x, int64_t planes, int64_t len, int64_t stride, bool stable = true) {
  const double count = static_cast<double>(planes * len);
  double sum = 0;
  for (int64_t p = 0; p < planes; ++p) sum += sumOf(x + p * stride, len);
  MeanVar r;
  r.mean = sum / count;
  if (!stable) {
    double sq = 0;
    for (int64_t p = 0; p < planes; ++p) sq += sumOf(x + p * stride, len, [](auto v) { return v * v; });
    r.var = std::max(sq / count - r.mean * r.mean, 0.0);
    return r;
  }
  using M = std::conditional_t<std::is_same_v<T, float>, float, double>;
  const M m = static_cast<M>(r.mean);
  double sq = 0;
  for (int64_t p = 0; p < planes; ++p) {
    sq += sumOf(x + p * stride, len, [m](auto v) {
      const auto d = v - static_cast<decltype(v)>(m);
      return d * d;
    });
  }
  const double dm = r.mean - static_cast<double>(m);
  r.var = std::max(sq / count - dm * dm, 0.0);  // (std::max keeps a NaN first argument)
  return r;
}

}  // namespace cpu
}  // namespace popart
