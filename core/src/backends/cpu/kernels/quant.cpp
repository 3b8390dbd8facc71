// CPU kernels of the quant family. Integer products accumulate exactly in 32 bits (wrapping as
// the specification allows); requantization rounds half to even and saturates.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/quant_params.hpp"
#include "ops/window.hpp"

namespace popart {
namespace cpu {
namespace {

/// Element i of slot `slot` (element type t) as double.
double readDouble(const RunState& s, int slot, DataType t, int64_t i) {
  return dispatchNumeric(t, [&](auto tag) {
    using T = decltype(tag);
    return static_cast<double>(static_cast<compute_t<T>>(inPtr<T>(s, slot)[i]));
  });
}

/// Element i of an int8 / uint8 / int32 slot as int32 (0 when the slot is absent).
int32_t readInt(const RunState& s, int slot, DataType t, int64_t i) {
  if (slot < 0) return 0;
  switch (t) {
    case DataType::UINT8:
      return inPtr<uint8_t>(s, slot)[i];
    case DataType::INT8:
      return inPtr<int8_t>(s, slot)[i];
    case DataType::INT32:
      return inPtr<int32_t>(s, slot)[i];
    default:
      break;
  }
  throw internal_error("quantized element type {} is not 8- or 32-bit integer", dataTypeToString(t));
}

/// round-half-to-even(v) + zp, saturated to [lo, hi] (NaN gives lo).
template <typename C>
int64_t quantizeValue(C v, int64_t zp, int64_t lo, int64_t hi) {
  C r = std::nearbyint(v) + static_cast<C>(zp);
  if (!(r >= static_cast<C>(lo))) return lo;
  if (r > static_cast<C>(hi)) return hi;
  return static_cast<int64_t>(r);
}

/// f(Q{}) for the 8-bit quantized types.
template <typename F>
auto dispatchQuant(DataType t, F&& f) {
  if (t == DataType::INT8) return f(int8_t{});
  if (t == DataType::UINT8) return f(uint8_t{});
  throw error("element type {} is not a quantized type (INT8, UINT8)", dataTypeToString(t));
}

/// C[M, N] (+)= A[M, K] * B[K, N] in 32-bit integers (wrapping), row-major, contiguous.
void gemmInt32(int64_t M, int64_t N, int64_t K, const int32_t* A, const int32_t* B, int32_t* C) {
  for (int64_t i = 0; i < M; ++i) {
    // unsigned arithmetic wraps without undefined behaviour (uint32_t may alias int32_t)
    uint32_t* c = reinterpret_cast<uint32_t*>(C + i * N);
    std::fill(c, c + N, 0u);
    for (int64_t k = 0; k < K; ++k) {
      const uint32_t a = static_cast<uint32_t>(A[i * K + k]);
      if (a == 0) continue;
      const int32_t* b = B + k * N;
      for (int64_t j = 0; j < N; ++j) c[j] += a * static_cast<uint32_t>(b[j]);
    }
  }
}

/// out[i] = x[i] - zp[broadcast i], as int32 (zp absent: 0).
struct ZeroPointPlan {
  BroadcastPlan plan;
  int64_t n = 0;
};

ZeroPointPlan zeroPointPlan(const Shape& x, const Shape& zp) {
  ZeroPointPlan p;
  p.plan = makeBroadcastPlan(x, {x, zp});
  p.n = TensorInfo(DataType::UINT8, x).nelms();
  return p;
}

void subtractZeroPoint(const RunState& s, int xs, DataType xt, int zps, const ZeroPointPlan& p, int32_t* out) {
  if (p.n == 0) return;
  dispatchQuant(xt, [&](auto tag) {
    using Q = decltype(tag);
    const Q* x = inPtr<Q>(s, xs);
    if (zps < 0) {
      for (int64_t i = 0; i < p.n; ++i) out[i] = x[i];
      return 0;
    }
    const Q* z = inPtr<Q>(s, zps);
    forEachRun<2>(p.plan, [&](int64_t o, const int64_t* off, int64_t len, const int64_t* st) {
      for (int64_t j = 0; j < len; ++j)
        out[o + j] = static_cast<int32_t>(x[off[0] + j * st[0]]) - static_cast<int32_t>(z[off[1] + j * st[1]]);
    });
    return 0;
  });
}

/// Batched integer matrix product with numpy broadcasting of the batch dimensions.
struct IntMatMul : BatchedMatMul {
  int64_t aN = 0, bN = 0, outN = 0;

  IntMatMul(const Shape& a0, const Shape& b0)
      : BatchedMatMul(batchedMatMul(a0, b0)),
        aN(TensorInfo(DataType::UINT8, a0).nelms()),
        bN(TensorInfo(DataType::UINT8, b0).nelms()),
        outN(nb * M * N) {}

  void run(const int32_t* A, const int32_t* B, int32_t* C) const {
    for (size_t i = 0; i < offA.size(); ++i)
      gemmInt32(M, N, K, A + offA[i] * M * K, B + offB[i] * K * N, C + static_cast<int64_t>(i) * M * N);
  }
};

/// Integer convolution of zero-point-corrected int32 data (im2col + integer GEMM).
struct IntConv {
  int64_t N = 0, C = 0, M = 0, G = 1, Cg = 0, Mg = 0;
  std::vector<int64_t> in, out, k, s, d, pb;
  int64_t inSize = 1, outSize = 1, kSize = 1;

  IntConv(const Op& op, int xi, int wi) {
    const Shape& x = op.inShape(xi);
    const Shape& w = op.inShape(wi);
    N = x[0];
    C = x[1];
    M = w[0];
    G = op.attrs.getInt("group", 1);
    Cg = C / G;
    Mg = M / G;
    const std::vector<int64_t> kernel(w.begin() + 2, w.end());
    const ops::Window win = ops::computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), kernel, false, true);
    in = win.inSpatial;
    out = win.outSpatial;
    k = kernel;
    s = win.strides;
    d = win.dilations;
    pb = win.padBegin;
    for (size_t i = 0; i < in.size(); ++i) {
      inSize *= in[i];
      outSize *= out[i];
      kSize *= k[i];
    }
  }

  int64_t colElems() const { return Cg * kSize * outSize; }

  /// col[(c, kernel pos), out pos] for image n, group g of xq ([N, C, in...]); padding is 0.
  void im2col(const int32_t* xq, int64_t n, int64_t g, int32_t* col) const {
    const size_t r = in.size();
    std::vector<int64_t> kidx(r), oidx(r);
    const int32_t* x = xq + (n * C + g * Cg) * inSize;
    for (int64_t kk = 0; kk < kSize; ++kk) {
      int64_t rem = kk;
      for (size_t i = r; i-- > 0;) {
        kidx[i] = rem % k[i];
        rem /= k[i];
      }
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t o = 0; o < outSize; ++o) {
        int64_t inOff = 0, stride = 1;
        bool inside = true;
        for (size_t i = r; i-- > 0;) {
          const int64_t p = oidx[i] * s[i] - pb[i] + kidx[i] * d[i];
          if (p < 0 || p >= in[i]) inside = false;
          inOff += p * stride;
          stride *= in[i];
        }
        for (int64_t c = 0; c < Cg; ++c) col[(c * kSize + kk) * outSize + o] = inside ? x[c * inSize + inOff] : 0;
        for (size_t i = r; i-- > 0;) {  // odometer over output positions
          if (++oidx[i] < out[i]) break;
          oidx[i] = 0;
        }
      }
    }
  }

  /// acc[n, m, out pos] for every image and output channel (int32, wrapping).
  void run(const int32_t* xq, const int32_t* wq, int32_t* col, int32_t* acc) const {
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t g = 0; g < G; ++g) {
        im2col(xq, n, g, col);
        gemmInt32(Mg, outSize, Cg * kSize, wq + g * Mg * Cg * kSize, col, acc + (n * M + g * Mg) * outSize);
      }
    }
  }
};

/// Weights minus their per-tensor or per-output-channel zero point, as int32.
void weightsMinusZeroPoint(const RunState& s, int ws, DataType wt, int zps, int64_t M, int64_t per, bool perChannel,
                           int32_t* out) {
  dispatchQuant(wt, [&](auto tag) {
    using Q = decltype(tag);
    const Q* w = inPtr<Q>(s, ws);
    for (int64_t m = 0; m < M; ++m) {
      const int32_t z = readInt(s, zps, wt, perChannel ? m : 0);
      for (int64_t i = 0; i < per; ++i) out[m * per + i] = static_cast<int32_t>(w[m * per + i]) - z;
    }
    return 0;
  });
}

// Scratch offsets are computed in int64 (size_t is 32 bits in WebAssembly); the program checks the
// total against the memory limit.
int64_t alignUp(int64_t n) {
  return (n + 63) / 64 * 64;
}

}  // namespace

// ------------------------------------------------------------------ QuantizeLinear

KernelFn makeCpuKernel_QuantizeLinear(const Op& op, KernelContext& kc) {
  const ops::QuantLayout l = ops::quantLayout(op, 1, 2);
  const int x = kc.in(0), sc = kc.in(1), zp = kc.in(2), y = kc.out(0);
  const DataType st = op.inType(1), zt = op.hasInput(2) ? op.inType(2) : DataType::UINT8;
  const DataType yt = op.outInfo(0).dataType();
  const int64_t lo = ops::quantMin(yt), hi = ops::quantMax(yt);
  return dispatchNumeric(op.inType(0), [&](auto xtag) -> KernelFn {
    using TX = decltype(xtag);
    // float inputs divide in float (as the reference does), int32 and double inputs in double
    using C = std::conditional_t<std::is_same_v<compute_t<TX>, float>, float, double>;
    return dispatchQuant(yt, [&](auto qtag) -> KernelFn {
      using Q = decltype(qtag);
      return [=](const RunState& s) {
        const TX* in = inPtr<TX>(s, x);
        Q* out = outPtr<Q>(s, y);
        for (int64_t a = 0; a < l.len; ++a) {
          const C scale = static_cast<C>(readDouble(s, sc, st, l.perAxis ? a : 0));
          const int64_t z = readInt(s, zp, zt, l.perAxis ? a : 0);
          for (int64_t o = 0; o < l.outer; ++o) {
            const int64_t base = (o * l.len + a) * l.inner;
            for (int64_t i = 0; i < l.inner; ++i) {
              const C v = static_cast<C>(static_cast<compute_t<TX>>(in[base + i])) / scale;
              out[base + i] = static_cast<Q>(quantizeValue<C>(v, z, lo, hi));
            }
          }
        }
      };
    });
  });
}

// ------------------------------------------------------------------ DequantizeLinear

KernelFn makeCpuKernel_DequantizeLinear(const Op& op, KernelContext& kc) {
  const ops::QuantLayout l = ops::quantLayout(op, 1, 2);
  const int x = kc.in(0), sc = kc.in(1), zp = kc.in(2), y = kc.out(0);
  const DataType xt = op.inType(0), st = op.inType(1);
  return dispatchFloat(op.outInfo(0).dataType(), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return dispatchNumeric(xt, [&](auto xtag) -> KernelFn {
      using X = decltype(xtag);
      if constexpr (!std::is_integral_v<X>) {
        throw internal_error("DequantizeLinear of {}", dataTypeToString(xt));
      } else {
        return [=](const RunState& s) {
          const X* in = inPtr<X>(s, x);
          T* out = outPtr<T>(s, y);
          for (int64_t a = 0; a < l.len; ++a) {
            const double scale = readDouble(s, sc, st, l.perAxis ? a : 0);
            const int64_t z = readInt(s, zp, xt, l.perAxis ? a : 0);
            for (int64_t o = 0; o < l.outer; ++o) {
              const int64_t base = (o * l.len + a) * l.inner;
              for (int64_t i = 0; i < l.inner; ++i) {
                const double v = static_cast<double>(static_cast<int64_t>(in[base + i]) - z) * scale;
                out[base + i] = static_cast<T>(static_cast<compute_t<T>>(v));
              }
            }
          }
        };
      }
    });
  });
}

// ------------------------------------------------------------------ DynamicQuantizeLinear

KernelFn makeCpuKernel_DynamicQuantizeLinear(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const int x = kc.in(0), y = kc.out(0), ys = kc.out(1), yz = kc.out(2);
  return [=](const RunState& s) {
    const float* in = inPtr<float>(s, x);
    // The range always includes 0 (so that 0 is exact); NaNs are ignored.
    float mn = 0.0f, mx = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      mn = std::min(mn, in[i]);
      mx = std::max(mx, in[i]);
    }
    const float scale = (mx - mn) / 255.0f;
    const int64_t zp = scale != 0.0f ? quantizeValue<float>((0.0f - mn) / scale, 0, 0, 255) : 0;
    if (y >= 0) {
      uint8_t* out = outPtr<uint8_t>(s, y);
      for (int64_t i = 0; i < n; ++i)
        out[i] = scale != 0.0f ? static_cast<uint8_t>(quantizeValue<float>(in[i] / scale, zp, 0, 255))
                               : static_cast<uint8_t>(zp);
    }
    if (ys >= 0) *outPtr<float>(s, ys) = scale;
    if (yz >= 0) *outPtr<uint8_t>(s, yz) = static_cast<uint8_t>(zp);
  };
}

// ------------------------------------------------------------------ MatMulInteger, QLinearMatMul

KernelFn makeCpuKernel_MatMulInteger(const Op& op, KernelContext& kc) {
  const Shape& a = op.inShape(0);
  const Shape& b = op.inShape(1);
  const IntMatMul mm(a, b);
  const ZeroPointPlan pa = zeroPointPlan(a, op.hasInput(2) ? ops::matmulParamShape(op, 2, 0, true) : Shape{});
  const ZeroPointPlan pb = zeroPointPlan(b, op.hasInput(3) ? ops::matmulParamShape(op, 3, 1, false) : Shape{});
  const int64_t bOff = alignUp(mm.aN * 4);
  kc.needScratch(bOff + mm.bN * 4);
  const int as = kc.in(0), bs = kc.in(1), az = kc.in(2), bz = kc.in(3), y = kc.out(0);
  const DataType at = op.inType(0), bt = op.inType(1);
  return [=](const RunState& s) {
    int32_t* aq = reinterpret_cast<int32_t*>(s.scratch);
    int32_t* bq = reinterpret_cast<int32_t*>(s.scratch + bOff);
    subtractZeroPoint(s, as, at, az, pa, aq);
    subtractZeroPoint(s, bs, bt, bz, pb, bq);
    mm.run(aq, bq, outPtr<int32_t>(s, y));
  };
}

KernelFn makeCpuKernel_QLinearMatMul(const Op& op, KernelContext& kc) {
  const Shape& a = op.inShape(0);
  const Shape& b = op.inShape(3);
  const Shape& out = op.outInfo(0).shape();
  const IntMatMul mm(a, b);
  const Shape aps = ops::matmulParamShape(op, 1, 0, true), bps = ops::matmulParamShape(op, 4, 3, false);
  const ZeroPointPlan pa = zeroPointPlan(a, aps), pb = zeroPointPlan(b, bps);
  const BroadcastPlan scalePlan = makeBroadcastPlan(out, {aps, bps});
  const int64_t bOff = alignUp(mm.aN * 4);
  const int64_t cOff = bOff + alignUp(mm.bN * 4);
  kc.needScratch(cOff + mm.outN * 4);
  const int as = kc.in(0), asc = kc.in(1), az = kc.in(2), bs = kc.in(3), bsc = kc.in(4), bz = kc.in(5);
  const int ysc = kc.in(6), yz = kc.in(7), y = kc.out(0);
  const DataType at = op.inType(0), bt = op.inType(3), yt = op.inType(7);
  const DataType ast = op.inType(1), bst = op.inType(4), yst = op.inType(6);
  const int64_t lo = ops::quantMin(yt), hi = ops::quantMax(yt);
  return dispatchQuant(yt, [&](auto tag) -> KernelFn {
    using Q = decltype(tag);
    return [=](const RunState& s) {
      int32_t* aq = reinterpret_cast<int32_t*>(s.scratch);
      int32_t* bq = reinterpret_cast<int32_t*>(s.scratch + bOff);
      int32_t* acc = reinterpret_cast<int32_t*>(s.scratch + cOff);
      subtractZeroPoint(s, as, at, az, pa, aq);
      subtractZeroPoint(s, bs, bt, bz, pb, bq);
      mm.run(aq, bq, acc);
      const float ysv = static_cast<float>(readDouble(s, ysc, yst, 0));
      const int64_t yzv = readInt(s, yz, yt, 0);
      Q* o = outPtr<Q>(s, y);
      forEachRun<2>(scalePlan, [&](int64_t base, const int64_t* off, int64_t len, const int64_t* st) {
        for (int64_t j = 0; j < len; ++j) {
          // the multiplier in float, as the reference computes it; the product in double
          const float mult = static_cast<float>(readDouble(s, asc, ast, off[0] + j * st[0])) *
                             static_cast<float>(readDouble(s, bsc, bst, off[1] + j * st[1])) / ysv;
          const double v = static_cast<double>(acc[base + j]) * static_cast<double>(mult);
          o[base + j] = static_cast<Q>(quantizeValue<double>(v, yzv, lo, hi));
        }
      });
    };
  });
}

// ------------------------------------------------------------------ ConvInteger, QLinearConv

KernelFn makeCpuKernel_ConvInteger(const Op& op, KernelContext& kc) {
  const IntConv cv(op, 0, 1);
  const Shape& x = op.inShape(0);
  const int64_t xn = op.inInfo(0).nelms(), wn = op.inInfo(1).nelms();
  const ZeroPointPlan px = zeroPointPlan(x, Shape{});
  const bool perChannel = op.hasInput(3) && op.inInfo(3).nelms() != 1;
  const int64_t wOff = alignUp(xn * 4);
  const int64_t colOff = wOff + alignUp(wn * 4);
  kc.needScratch(colOff + cv.colElems() * 4);
  const int xs = kc.in(0), ws = kc.in(1), xz = kc.in(2), wz = kc.in(3), y = kc.out(0);
  const DataType xt = op.inType(0), wt = op.inType(1);
  return [=](const RunState& s) {
    int32_t* xq = reinterpret_cast<int32_t*>(s.scratch);
    int32_t* wq = reinterpret_cast<int32_t*>(s.scratch + wOff);
    int32_t* col = reinterpret_cast<int32_t*>(s.scratch + colOff);
    subtractZeroPoint(s, xs, xt, xz, px, xq);
    weightsMinusZeroPoint(s, ws, wt, wz, cv.M, cv.M ? wn / cv.M : 0, perChannel, wq);
    cv.run(xq, wq, col, outPtr<int32_t>(s, y));
  };
}

KernelFn makeCpuKernel_QLinearConv(const Op& op, KernelContext& kc) {
  const IntConv cv(op, 0, 3);
  const Shape& x = op.inShape(0);
  const int64_t xn = op.inInfo(0).nelms(), wn = op.inInfo(3).nelms(), yn = op.outInfo(0).nelms();
  const ZeroPointPlan px = zeroPointPlan(x, Shape{});
  const bool zpPerChannel = op.inInfo(5).nelms() != 1, scalePerChannel = op.inInfo(4).nelms() != 1;
  const int64_t wOff = alignUp(xn * 4);
  const int64_t colOff = wOff + alignUp(wn * 4);
  const int64_t accOff = colOff + alignUp(cv.colElems() * 4);
  kc.needScratch(accOff + yn * 4);
  const int xs = kc.in(0), xsc = kc.in(1), xz = kc.in(2), ws = kc.in(3), wsc = kc.in(4), wz = kc.in(5);
  const int ysc = kc.in(6), yz = kc.in(7), bias = kc.in(8), y = kc.out(0);
  const DataType xt = op.inType(0), wt = op.inType(3), yt = op.inType(7);
  const DataType xst = op.inType(1), wst = op.inType(4), yst = op.inType(6);
  const int64_t lo = ops::quantMin(yt), hi = ops::quantMax(yt);
  return dispatchQuant(yt, [&](auto tag) -> KernelFn {
    using Q = decltype(tag);
    return [=](const RunState& s) {
      int32_t* xq = reinterpret_cast<int32_t*>(s.scratch);
      int32_t* wq = reinterpret_cast<int32_t*>(s.scratch + wOff);
      int32_t* col = reinterpret_cast<int32_t*>(s.scratch + colOff);
      int32_t* acc = reinterpret_cast<int32_t*>(s.scratch + accOff);
      subtractZeroPoint(s, xs, xt, xz, px, xq);
      weightsMinusZeroPoint(s, ws, wt, wz, cv.M, cv.M ? wn / cv.M : 0, zpPerChannel, wq);
      cv.run(xq, wq, col, acc);
      const float xsv = static_cast<float>(readDouble(s, xsc, xst, 0));
      const float ysv = static_cast<float>(readDouble(s, ysc, yst, 0));
      const int64_t yzv = readInt(s, yz, yt, 0);
      const int32_t* b = bias >= 0 ? inPtr<int32_t>(s, bias) : nullptr;
      Q* o = outPtr<Q>(s, y);
      for (int64_t n = 0; n < cv.N; ++n) {
        for (int64_t m = 0; m < cv.M; ++m) {
          // the multiplier in float, as the reference computes it; the product in double
          const float mult = xsv * static_cast<float>(readDouble(s, wsc, wst, scalePerChannel ? m : 0)) / ysv;
          const uint32_t bm = b ? static_cast<uint32_t>(b[m]) : 0u;
          const int64_t base = (n * cv.M + m) * cv.outSize;
          for (int64_t i = 0; i < cv.outSize; ++i) {
            const auto a = static_cast<int32_t>(static_cast<uint32_t>(acc[base + i]) + bm);
            const double v = static_cast<double>(a) * static_cast<double>(mult);
            o[base + i] = static_cast<Q>(quantizeValue<double>(v, yzv, lo, hi));
          }
        }
      }
    };
  });
}

}  // namespace cpu
}  // namespace popart
