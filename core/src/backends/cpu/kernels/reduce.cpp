// CPU kernels of the reduction family.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/op_util.hpp"
#include "ops/reduce_axes.hpp"

namespace popart {
namespace cpu {
namespace {

enum class Red { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

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
  // Traverse the input; the output is read with stride 0 on reduced dims.
  const BroadcastPlan p = makeBroadcastPlan(in, {kept});
  const int x = kc.in(0), y = kc.out(0);
  if (red == Red::LogSumExp) kc.needScratch(static_cast<size_t>(nOut) * sizeof(double));
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    using Acc = std::conditional_t<std::is_floating_point_v<CT>, double, CT>;
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      T* Y = outPtr<T>(s, y);
      std::vector<Acc> acc(static_cast<size_t>(nOut));
      Acc init = 0;
      if (red == Red::Max) init = std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::lowest();
      if (red == Red::Min) init = std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::max();
      if (red == Red::Prod) init = 1;
      std::fill(acc.begin(), acc.end(), init);
      std::vector<double> mx;
      if (red == Red::LogSumExp) {
        mx.assign(static_cast<size_t>(nOut), -std::numeric_limits<double>::infinity());
        forEachRun<1>(p, [&](int64_t o, const int64_t* off, int64_t len, const int64_t* st) {
          for (int64_t j = 0; j < len; ++j) {
            double& m = mx[static_cast<size_t>(off[0] + j * st[0])];
            m = std::max(m, static_cast<double>(static_cast<CT>(X[o + j])));
          }
        });
      }
      forEachRun<1>(p, [&](int64_t o, const int64_t* off, int64_t len, const int64_t* st) {
        for (int64_t j = 0; j < len; ++j) {
          const size_t k = static_cast<size_t>(off[0] + j * st[0]);
          const Acc v = static_cast<Acc>(static_cast<CT>(X[o + j]));
          Acc& a = acc[k];
          switch (red) {
            case Red::Sum: case Red::Mean: case Red::LogSum: a += v; break;
            case Red::Max: a = (v > a || v != v) ? v : a; break;
            case Red::Min: a = (v < a || v != v) ? v : a; break;
            case Red::Prod: a *= v; break;
            case Red::L1: a += v < 0 ? -v : v; break;
            case Red::L2: case Red::SumSquare: a += v * v; break;
            case Red::LogSumExp:
              a += static_cast<Acc>(std::exp(static_cast<double>(v) - mx[k]));
              break;
          }
        }
      });
      for (int64_t i = 0; i < nOut; ++i) {
        Acc a = acc[static_cast<size_t>(i)];
        double r = static_cast<double>(a);
        switch (red) {
          case Red::Mean: r = count ? r / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN(); break;
          case Red::L2: r = std::sqrt(r); break;
          case Red::LogSum: r = std::log(r); break;
          case Red::LogSumExp: r = std::log(r) + mx[static_cast<size_t>(i)]; break;
          default: break;
        }
        if constexpr (std::is_floating_point_v<Acc>) {
          Y[i] = static_cast<T>(static_cast<CT>(r));
        } else {
          Y[i] = (red == Red::Mean || red == Red::L2 || red == Red::LogSum || red == Red::LogSumExp)
                     ? static_cast<T>(r)
                     : static_cast<T>(a);
        }
      }
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
      int64_t* Y = outPtr<int64_t>(s, y);
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
          Y[o * inner + i] = best;
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
