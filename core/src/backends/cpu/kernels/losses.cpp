// CPU kernels of Graphcore's losses (forward).
#include <algorithm>
#include <cmath>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/losses.hpp"

namespace popart {
namespace cpu {
namespace {

template <typename T>
void reduceInto(const std::vector<double>& v, ReductionType r, double divisor, T* out) {
  if (r == ReductionType::NoReduction) {
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(static_cast<compute_t<T>>(v[i]));
    return;
  }
  double sum = 0;
  for (double x : v) sum += x;
  if (r == ReductionType::Mean) sum = divisor > 0 ? sum / divisor : 0.0;
  out[0] = static_cast<T>(static_cast<compute_t<T>>(sum));
}

}  // namespace

KernelFn makeCpuKernel_GcNll(const Op& op, KernelContext& kc) {
  const Shape& probs = op.inShape(0);
  const int64_t C = probs.back();
  const int64_t S = C ? op.inInfo(0).nelms() / C : 0;
  const ReductionType red = ops::lossReduction(op);
  const bool hasIgnore = op.attrs.has("ignoreIndex");
  const int64_t ignore = op.attrs.getInt("ignoreIndex", -1);
  const bool logProb = op.attrs.getInt("inputIsLogProbability", 0) != 0;
  const DataType lt = op.inType(1);
  const int p = kc.in(0), l = kc.in(1), y = kc.out(0);
  const std::string where = op.describe();
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    const double eps = std::is_same_v<T, float16_t> ? 6.104e-5 : 1e-7;
    return [=](const RunState& s) {
      const T* P = inPtr<T>(s, p);
      std::vector<double> loss(static_cast<size_t>(S));
      int64_t counted = 0;
      for (int64_t i = 0; i < S; ++i) {
        int64_t label = lt == DataType::INT64    ? inPtr<int64_t>(s, l)[i]
                        : lt == DataType::UINT32 ? static_cast<int64_t>(inPtr<uint32_t>(s, l)[i])
                                                 : inPtr<int32_t>(s, l)[i];
        if (hasIgnore && label == ignore) {
          loss[static_cast<size_t>(i)] = 0;
          continue;
        }
        if (label < 0 || label >= C)
          throw error("{}: label {} of sample {} is out of range for {} classes", where, label, i, C);
        const double v = static_cast<double>(static_cast<compute_t<T>>(P[i * C + label]));
        loss[static_cast<size_t>(i)] = logProb ? -v : -std::log(std::max(v, eps));
        ++counted;
      }
      reduceInto(loss, red, static_cast<double>(counted), outPtr<T>(s, y));
    };
  });
}

KernelFn makeCpuKernel_GcL1(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const double lambda = op.attrs.getFloat("lambda");
  const ReductionType red = ops::lossReduction(op);
  const int x = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      std::vector<double> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = lambda * std::abs(static_cast<double>(static_cast<compute_t<T>>(X[i])));
      reduceInto(v, red, static_cast<double>(n), outPtr<T>(s, y));
    };
  });
}

KernelFn makeCpuKernel_GcIdentityLoss(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const ReductionType red = ops::lossReduction(op);
  const int x = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      std::vector<double> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>(static_cast<compute_t<T>>(X[i]));
      reduceInto(v, red, static_cast<double>(n), outPtr<T>(s, y));
    };
  });
}

}  // namespace cpu
}  // namespace popart
