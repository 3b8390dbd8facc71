// CPU kernels of the pooling family.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/pool_max.hpp"
#include "backends/cpu/kernels/sum.hpp"
#include "common/checked_size.hpp"
#include "ops/window.hpp"

namespace popart {
namespace cpu {
namespace {

struct PoolGeom {
  int64_t NC;
  ops::Window w;
  int64_t inSize = 1, outSize = 1;
};

PoolGeom poolGeom(const Op& op) {
  const Shape& x = op.inShape(0);
  PoolGeom g;
  g.NC = x[0] * x[1];
  const bool ceil = op.attrs.getInt("ceil_mode", 0) != 0;
  g.w = ops::computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), op.attrs.getInts("kernel_shape"), ceil,
                           true);
  for (auto d : g.w.inSpatial) g.inSize *= d;
  for (auto d : g.w.outSpatial) g.outSize *= d;
  return g;
}

enum class PoolKind { Max, Avg };

template <typename T>
void poolNd(const T* x, T* y, int64_t* idx, const PoolGeom& g, PoolKind kind, bool countPad, bool colMajor) {
  using C = compute_t<T>;
  const auto& w = g.w;
  const size_t r = w.inSpatial.size();
  std::vector<int64_t> o(r, 0), k(r, 0);
  int64_t kSize = 1;
  for (auto v : w.kernel) kSize *= v;
  for (int64_t nc = 0; nc < g.NC; ++nc) {
    const T* xc = x + nc * g.inSize;
    std::fill(o.begin(), o.end(), 0);
    for (int64_t oi = 0; oi < g.outSize; ++oi) {
      C best =
          std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
      int64_t bestAt = -1;
      double sum = 0;  // windows can be large (a kernel the size of the input)
      int64_t count = 0, padCount = 0;
      std::fill(k.begin(), k.end(), 0);
      for (int64_t ki = 0; ki < kSize; ++ki) {
        int64_t off = 0, stride = 1, colOff = 0, colStride = 1;
        bool inside = true, inPadded = true;
        for (size_t i = r; i-- > 0;) {
          const int64_t p = o[i] * w.strides[i] - w.padBegin[i] + k[i] * w.dilations[i];
          if (p < 0 || p >= w.inSpatial[i]) inside = false;
          if (p < -w.padBegin[i] || p >= w.inSpatial[i] + w.padEnd[i]) inPadded = false;
          off += p * stride;
          stride *= w.inSpatial[i];
        }
        if (colMajor && inside) {
          for (size_t i = 0; i < r; ++i) {
            const int64_t p = o[i] * w.strides[i] - w.padBegin[i] + k[i] * w.dilations[i];
            colOff += p * colStride;
            colStride *= w.inSpatial[i];
          }
        }
        if (inPadded) ++padCount;
        if (inside) {
          const C v = static_cast<C>(xc[off]);
          if (kind == PoolKind::Max) {
            if (v > best || bestAt < 0) {
              best = v;
              bestAt = colMajor ? colOff : off;
            }
          } else {
            sum += static_cast<double>(v);
            ++count;
          }
        }
        for (size_t i = r; i-- > 0;) {  // next kernel position
          if (++k[i] < w.kernel[i]) break;
          k[i] = 0;
        }
      }
      if (kind == PoolKind::Max) {
        y[nc * g.outSize + oi] = static_cast<T>(best);
        if (idx) idx[nc * g.outSize + oi] = nc * g.inSize + (bestAt < 0 ? 0 : bestAt);
      } else {
        const int64_t div = countPad ? padCount : count;
        y[nc * g.outSize + oi] = static_cast<T>(static_cast<C>(div ? sum / static_cast<double>(div) : 0.0));
      }
      for (size_t i = r; i-- > 0;) {  // next output position
        if (++o[i] < w.outSpatial[i]) break;
        o[i] = 0;
      }
    }
  }
}

// Fast path: 2-D float max pooling without dilation or indices (pool_max.cpp), whose scratch
// holds a padded row.
int64_t maxPool2dScratch(const PoolGeom& g) {
  const auto& w = g.w;
  const int64_t WP = (w.outSpatial[1] - 1) * w.strides[1] + w.kernel[1] + 1;
  return checkedProduct({WP, static_cast<int64_t>(sizeof(float))});
}

}  // namespace

const PoolKernels& poolKernels() {
  static const PoolKernels& k = POPART_ISA_PICK(kPool);
  return k;
}

MaxPool2dGeom maxPool2dGeom(int64_t NC, const ops::Window& w) {
  return {NC,          w.inSpatial[0], w.inSpatial[1], w.outSpatial[0], w.outSpatial[1], w.kernel[0],
          w.kernel[1], w.strides[0],   w.strides[1],   w.padBegin[0],   w.padBegin[1]};
}

std::vector<std::pair<std::string, const PoolKernels*>> runnablePoolKernels() {
  return runnableIsaTables<PoolKernels>(POPART_ISA_ALL(kPool));
}

namespace {

KernelFn poolKernel(const Op& op, KernelContext& kc, PoolKind kind) {
  const PoolGeom g = poolGeom(op);
  const bool countPad = op.attrs.getInt("count_include_pad", 0) != 0;
  const bool colMajor = op.attrs.getInt("storage_order", 0) != 0;
  const int x = kc.in(0), y = kc.out(0), idx = kc.out(1);
  bool fast2d = kind == PoolKind::Max && idx < 0 && g.w.inSpatial.size() == 2 && op.inType(0) == DataType::FLOAT;
  for (auto d : g.w.dilations) fast2d = fast2d && d == 1;
  if (fast2d) kc.needScratch(maxPool2dScratch(g));
  const MaxPool2dGeom mg = fast2d ? maxPool2dGeom(g.NC, g.w) : MaxPool2dGeom{};
  auto make = [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      if constexpr (std::is_same_v<T, float>) {
        if (fast2d) {
          poolKernels().maxPool2d(inPtr<float>(s, x), outPtr<float>(s, y), mg, reinterpret_cast<float*>(s.scratch));
          return;
        }
      }
      poolNd<T>(inPtr<T>(s, x), outPtr<T>(s, y), idx >= 0 ? outPtr<int64_t>(s, idx) : nullptr, g, kind, countPad,
                colMajor);
    };
  };
  // MaxPool takes INT8 / UINT8 from opset 12 (ops/pool.cpp); compared exactly in their own type.
  if (op.inType(0) == DataType::INT8) return make(int8_t{});
  if (op.inType(0) == DataType::UINT8) return make(uint8_t{});
  return dispatchFloat(op.inType(0), make);
}

KernelFn globalPool(const Op& op, KernelContext& kc, PoolKind kind) {
  const Shape& in = op.inShape(0);
  const int64_t nc = in[0] * in[1];
  int64_t sp = 1;
  for (size_t i = 2; i < in.size(); ++i) sp *= in[i];
  const int x = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* a = inPtr<T>(s, x);
      T* b = outPtr<T>(s, y);
      for (int64_t i = 0; i < nc; ++i) {
        const T* p = a + i * sp;
        if (kind == PoolKind::Avg) {
          b[i] = static_cast<T>(static_cast<C>(sumOf(p, sp) / static_cast<double>(sp)));
        } else {
          C m = -std::numeric_limits<C>::infinity();
          for (int64_t j = 0; j < sp; ++j) m = std::max(m, static_cast<C>(p[j]));
          b[i] = static_cast<T>(m);
        }
      }
    };
  });
}

}  // namespace

KernelFn makeCpuKernel_MaxPool(const Op& op, KernelContext& kc) {
  return poolKernel(op, kc, PoolKind::Max);
}
KernelFn makeCpuKernel_AveragePool(const Op& op, KernelContext& kc) {
  return poolKernel(op, kc, PoolKind::Avg);
}
KernelFn makeCpuKernel_GlobalAveragePool(const Op& op, KernelContext& kc) {
  return globalPool(op, kc, PoolKind::Avg);
}
KernelFn makeCpuKernel_GlobalMaxPool(const Op& op, KernelContext& kc) {
  return globalPool(op, kc, PoolKind::Max);
}

}  // namespace cpu
}  // namespace popart
