// CPU kernels of the internal gradient ops of the convolutional and transformer ops.
//
// Conv: the data gradient is W_g^T dY_g (a GEMM) scattered back by col2im, the weight gradient
// dY_g im2col(X_g)^T accumulated over the images; both reuse the forward kernel's geometry and
// im2col (conv_im2col.hpp). In 2-D they work on chunks of the positions of all images together,
// so that small images share wide GEMMs. Pooling, normalization, gather and slice gradients are
// direct loops that accumulate in double where they reduce.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/gemm.hpp"
#include "backends/cpu/half_via_float.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/bn_geom.hpp"
#include "backends/cpu/kernels/conv_direct_plan.hpp"
#include "backends/cpu/kernels/conv_im2col.hpp"
#include "backends/cpu/kernels/dropout.hpp"
#include "backends/cpu/kernels/pool_max.hpp"
#include "backends/cpu/winograd.hpp"
#include "common/checked_size.hpp"
#include "ops/op_util.hpp"
#include "ops/window.hpp"

namespace popart {
namespace cpu {
namespace {

// ---------------------------------------------------------------- convolution

/// x[c, ih, iw] += col[(c, kh, kw), p - p0] for the output positions p in [p0, p0 + np) of one
/// image and one group (2-D), col rows ldcol apart (default np): the adjoint of im2col2dRange.
template <typename T>
void col2im2dRange(const T* col, T* x, const ConvGeom& g, int64_t p0, int64_t np, int64_t ldcol = -1) {
  if (ldcol < 0) ldcol = np;
  const int64_t H = g.in[0], W = g.in[1], OW = g.out[1];
  const int64_t KH = g.k[0], KW = g.k[1], SH = g.s[0], SW = g.s[1], DH = g.d[0], DW = g.d[1];
  const int64_t PH = g.pb[0], PW = g.pb[1];
  for (int64_t c = 0; c < g.Cg; ++c) {
    T* xc = x + c * H * W;
    for (int64_t kh = 0; kh < KH; ++kh) {
      for (int64_t kw = 0; kw < KW; ++kw) {
        const T* row = col + ((c * KH + kh) * KW + kw) * ldcol;
        const int64_t off = kw * DW - PW;
        const auto [owLo0, owHi0] = insideColumns(off, SW, W, OW);
        int64_t p = p0;
        while (p < p0 + np) {
          const int64_t oh = p / OW, ow0 = p % OW;
          const int64_t ow1 = std::min<int64_t>(OW, ow0 + (p0 + np - p));
          const int64_t ih = oh * SH - PH + kh * DH;
          if (ih >= 0 && ih < H) {
            T* xr = xc + ih * W;
            const T* r = row + (p - p0);  // r[ow - ow0] is the entry of (oh, ow)
            const int64_t lo = std::max(ow0, owLo0), hi = std::min(ow1, owHi0);
            if (SW == 1) {
              for (int64_t ow = lo; ow < hi; ++ow) xr[ow + off] += r[ow - ow0];
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) xr[ow * SW + off] += r[ow - ow0];
            }
          }
          p += ow1 - ow0;
        }
      }
    }
  }
}

/// The adjoint of im2colNd (any spatial rank): x += col2im(col).
template <typename T>
void col2imNd(const T* col, T* x, const ConvGeom& g) {
  forEachIm2colNd(g, [&](int64_t j, int64_t in) {
    if (in >= 0) x[in] += col[j];
  });
}

bool isPointwise(const ConvGeom& g) {
  for (size_t i = 0; i < g.k.size(); ++i) {
    if (g.k[i] != 1 || g.s[i] != 1 || g.pb[i] != 0 || g.in[i] != g.out[i]) return false;
  }
  return true;
}

void requireConvType(const Op& op) {
  if (op.inType(0) != DataType::FLOAT && op.inType(0) != DataType::DOUBLE)
    throw error("{} supports FLOAT and DOUBLE here, not {}", op.type(), op.inInfo(0).data_type());
}

/// 2-D gradients work on chunks of the positions of all images together (N * P of them): at
/// least 256 per chunk (about 1 MiB of im2col columns, more for deep K) so that the GEMMs are
/// wide and small images (7x7, 14x14) share one GEMM instead of one thin GEMM each.
int64_t batchChunk(const ConvGeom& g) {
  const int64_t K = std::max<int64_t>(g.Cg * g.kSize, 1);
  const int64_t nq = std::max<int64_t>(256, (256 * 1024) / K) / 16 * 16;
  return std::min(nq, g.N * g.outSize);
}

/// How a conv gradient runs as GEMMs when not by Winograd: a pointwise conv needs no im2col; in
/// 2-D, chunks of nc positions of all images; otherwise image by image over all P positions.
/// Asks for the scratch: K x nc im2col columns and, in 2-D, an Mg x nc chunk of dY.
struct ConvGradGemm {
  bool pointwise, twoD;
  int64_t K, P, nc;
  ConvGradGemm(const Op& op, const ConvGeom& g, KernelContext& kc)
      : pointwise(isPointwise(g)),
        twoD(g.in.size() == 2 && !pointwise),
        K(g.Cg * g.kSize),
        P(g.outSize),
        nc(twoD ? batchChunk(g) : P) {
    const int64_t elem = dataTypeSize(op.inType(0));
    if (!pointwise) kc.needScratch(checkedProduct({K + (twoD ? g.Mg : 0), nc, elem}));
  }
};

/// Calls f(n, p, q, len) for each run of positions p..p+len of image n inside the chunk of
/// batch positions [q0, q0 + nq); q is the run's offset within the chunk.
template <typename F>
void forEachImageRun(int64_t P, int64_t q0, int64_t nq, F f) {
  for (int64_t q = q0; q < q0 + nq;) {
    const int64_t n = q / P, p = q % P, len = std::min(P - p, q0 + nq - q);
    f(n, p, q - q0, len);
    q += len;
  }
}

/// dyc[m, q] = dY[n, grp * Mg + m, p] over the chunk's runs: the chunk's rows of dY, contiguous.
template <typename T>
void gatherRows(const T* DY, const ConvGeom& g, int64_t grp, int64_t q0, int64_t nq, T* dyc) {
  const int64_t P = g.outSize;
  forEachImageRun(P, q0, nq, [&](int64_t n, int64_t p, int64_t q, int64_t len) {
    for (int64_t m = 0; m < g.Mg; ++m)
      std::memcpy(dyc + m * nq + q, DY + (n * g.M + grp * g.Mg + m) * P + p, static_cast<size_t>(len) * sizeof(T));
  });
}

// ---------------------------------------------------------------- pooling

struct PoolGradGeom {
  int64_t NC = 0;
  ops::Window w;
  int64_t inSize = 1, outSize = 1, kSize = 1;
};

PoolGradGeom poolGradGeom(const Op& op, const Shape& x) {
  PoolGradGeom g;
  g.NC = x[0] * x[1];
  g.w = ops::computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), op.attrs.getInts("kernel_shape"),
                           op.attrs.getInt("ceil_mode", 0) != 0, true);
  for (auto d : g.w.inSpatial) g.inSize *= d;
  for (auto d : g.w.outSpatial) g.outSize *= d;
  for (auto d : g.w.kernel) g.kSize *= d;
  return g;
}

/// Calls f(output index, offsets of the window's positions inside the input, count of the
/// positions inside the explicitly padded input) for every output position of one plane.
template <typename F>
void forEachWindow(const PoolGradGeom& g, F f) {
  const auto& w = g.w;
  const size_t r = w.inSpatial.size();
  std::vector<int64_t> o(r, 0), k(r, 0), offs;
  offs.reserve(static_cast<size_t>(g.kSize));
  for (int64_t oi = 0; oi < g.outSize; ++oi) {
    offs.clear();
    int64_t padCount = 0;
    std::fill(k.begin(), k.end(), 0);
    for (int64_t ki = 0; ki < g.kSize; ++ki) {
      int64_t off = 0, stride = 1;
      bool inside = true, inPadded = true;
      for (size_t i = r; i-- > 0;) {
        const int64_t p = o[i] * w.strides[i] - w.padBegin[i] + k[i] * w.dilations[i];
        if (p < 0 || p >= w.inSpatial[i]) inside = false;
        if (p < -w.padBegin[i] || p >= w.inSpatial[i] + w.padEnd[i]) inPadded = false;
        off += p * stride;
        stride *= w.inSpatial[i];
      }
      if (inPadded) ++padCount;
      if (inside) offs.push_back(off);
      for (size_t i = r; i-- > 0;) {
        if (++k[i] < w.kernel[i]) break;
        k[i] = 0;
      }
    }
    f(oi, offs, padCount);
    for (size_t i = r; i-- > 0;) {
      if (++o[i] < w.outSpatial[i]) break;
      o[i] = 0;
    }
  }
}

/// MaxPoolGrad over 2-D planes (double, or dilated windows; float is pool_max.cpp's): each window's first maximum (the
/// forward's index output) takes the window's gradient. One output row at a time: for each kernel offset (kh, kw) in
/// scan order, the strided input row is copied to a contiguous buffer and compared against the row's running maxima (a
/// vectorisable loop; the per-window order of comparisons is unchanged).
template <typename T>
KernelFn maxPoolGrad2d(const PoolGradGeom& g, KernelContext& kc, int dy, int x, int dx) {
  struct Geom {
    int64_t H, W, OH, OW, KH, KW, SH, SW, DH, DW, PH, PW, NC, inSize, outSize;
  };
  const auto& w = g.w;
  const Geom geom{w.inSpatial[0], w.inSpatial[1], w.outSpatial[0], w.outSpatial[1], w.kernel[0],   w.kernel[1],
                  w.strides[0],   w.strides[1],   w.dilations[0],  w.dilations[1],  w.padBegin[0], w.padBegin[1],
                  g.NC,           g.inSize,       g.outSize};
  // Per kernel column: the output columns whose input column is inside the image.
  std::vector<int64_t> owLo(static_cast<size_t>(geom.KW)), owHi(static_cast<size_t>(geom.KW));
  for (int64_t kw = 0; kw < geom.KW; ++kw) {
    const int64_t off = kw * geom.DW - geom.PW;
    const ColumnRange cols = insideColumns(off, geom.SW, geom.W, geom.OW);
    owLo[static_cast<size_t>(kw)] = cols.lo;
    owHi[static_cast<size_t>(kw)] = cols.hi;
  }
  kc.needScratch(checkedProduct({geom.OW, static_cast<int64_t>(2 * sizeof(T) + sizeof(int64_t))}));
  return [=](const RunState& s) {
    const Geom q = geom;  // a local copy: stores through `best` cannot alias it
    const T* DY = inPtr<T>(s, dy);
    const T* X = inPtr<T>(s, x);
    T* DX = outPtr<T>(s, dx);
    T* bv = reinterpret_cast<T*>(s.scratch);
    T* row = bv + q.OW;
    int64_t* best = reinterpret_cast<int64_t*>(row + q.OW);
    std::fill(DX, DX + q.NC * q.inSize, T(0));
    for (int64_t nc = 0; nc < q.NC; ++nc) {
      const T* xc = X + nc * q.inSize;
      const T* dyc = DY + nc * q.outSize;
      T* dxc = DX + nc * q.inSize;
      for (int64_t oh = 0; oh < q.OH; ++oh) {
        std::fill(best, best + q.OW, int64_t{-1});
        for (int64_t kh = 0; kh < q.KH; ++kh) {
          const int64_t ih = oh * q.SH - q.PH + kh * q.DH;
          if (ih < 0 || ih >= q.H) continue;
          for (int64_t kw = 0; kw < q.KW; ++kw) {
            const int64_t lo = owLo[static_cast<size_t>(kw)], hi = owHi[static_cast<size_t>(kw)];
            const int64_t base = ih * q.W + kw * q.DW - q.PW;  // input offset of output column 0
            const int64_t sw = q.SW;
            const T* src = xc + base;
            for (int64_t ow = lo; ow < hi; ++ow) row[ow] = src[ow * sw];
            for (int64_t ow = lo; ow < hi; ++ow) {
              const bool take = (best[ow] < 0) | (row[ow] > bv[ow]);
              bv[ow] = take ? row[ow] : bv[ow];
              best[ow] = take ? base + ow * sw : best[ow];
            }
          }
        }
        for (int64_t ow = 0; ow < q.OW; ++ow) {
          if (best[ow] >= 0) dxc[best[ow]] += dyc[oh * q.OW + ow];
        }
      }
    }
  };
}

// ---------------------------------------------------------------- helpers

template <typename T>
inline double ld(const T* p, int64_t i) {
  return static_cast<double>(static_cast<compute_t<T>>(p[i]));
}
template <typename T>
inline T st(double v) {
  return static_cast<T>(static_cast<compute_t<T>>(v));
}

}  // namespace

/// FLOAT 3x3 stride-1 undilated ungrouped convolutions with enough output positions over the
/// batch take Winograd for their gradients (as the forward kernel does for trained weights).
bool winogradGradients(const Op& op, const ConvGeom& g) {
  return g.in.size() == 2 && g.k[0] == 3 && g.k[1] == 3 && g.s[0] == 1 && g.s[1] == 1 && g.d[0] == 1 && g.d[1] == 1 &&
         g.G == 1 && g.C >= 8 && g.M >= 8 && op.inType(0) == DataType::FLOAT &&
         g.N * g.outSize >= kWinogradMinPositions && std::getenv("POPART_NO_WINOGRAD") == nullptr;
}

/// A Winograd gradient kernel's plan: images per run() and the scratch (run()'s, then 16 M C
/// floats at `extra` for the transformed weights or their gradient).
struct WinogradPlan {
  std::shared_ptr<Winograd23> wg;
  int64_t imgs = 1;
  int64_t extra = 0;
};

WinogradPlan planWinograd(std::shared_ptr<Winograd23> wg, const ConvGeom& g, KernelContext& kc) {
  WinogradPlan p;
  p.imgs = wg->imagesPerRun(g.N);
  p.extra = wg->scratchFloats(p.imgs);
  p.wg = std::move(wg);
  kc.needScratch(checkedProduct({p.extra + 16 * g.M * g.C, static_cast<int64_t>(sizeof(float))}));
  return p;
}

/// The weight gradient through Winograd: dU = sum over tiles of (A dY A^T) (B^T x B), batched
/// over images, then dW = G^T dU G.
KernelFn winogradWeightGrad(const ConvGeom& g, KernelContext& kc, int dy, int x, int dw) {
  const WinogradPlan p = planWinograd(
      std::make_shared<Winograd23>(g.C, g.M, g.in[0], g.in[1], g.out[0], g.out[1], g.pb[0], g.pb[1]), g, kc);
  const int64_t dyElems = g.M * g.outSize, xElems = g.C * g.inSize;
  return [=](const RunState& s) {
    float* scr = reinterpret_cast<float*>(s.scratch);
    const float* DY = inPtr<float>(s, dy);
    const float* X = inPtr<float>(s, x);
    for (int64_t n = 0; n < g.N; n += p.imgs)
      p.wg->weightGrad(X + n * xElems, DY + n * dyElems, scr + p.extra, scr, std::min(p.imgs, g.N - n), xElems, dyElems,
                       n > 0);
    p.wg->finishWeightGrad(scr + p.extra, outPtr<float>(s, dw));
  };
}

/// The data gradient of a 3x3 stride-1 convolution is a 3x3 convolution of dY with the weights
/// rotated and transposed (pads 2 - p): Winograd, as in the forward kernel.
KernelFn winogradDataGrad(const ConvGeom& g, KernelContext& kc, int dy, int w, int dx) {
  const WinogradPlan p = planWinograd(
      std::make_shared<Winograd23>(g.M, g.C, g.out[0], g.out[1], g.in[0], g.in[1], 2 - g.pb[0], 2 - g.pb[1]), g, kc);
  const int64_t dyElems = g.M * g.outSize, dxElems = g.C * g.inSize;
  return [=](const RunState& s) {
    float* scr = reinterpret_cast<float*>(s.scratch);
    p.wg->transformFlippedWeights(inPtr<float>(s, w), scr + p.extra);
    const float* DY = inPtr<float>(s, dy);
    float* DX = outPtr<float>(s, dx);
    for (int64_t n = 0; n < g.N; n += p.imgs)
      p.wg->run(DY + n * dyElems, scr + p.extra, nullptr, DX + n * dxElems, scr, std::min(p.imgs, g.N - n), dyElems,
                dxElems);
  };
}

KernelFn makeCpuKernel_ConvDataGrad(const Op& op, KernelContext& kc) {
  if (hasHalfFloat(op)) return viaFloat(op, kc, &makeCpuKernel_ConvDataGrad);
  requireConvType(op);
  const ConvGeom g = convGeom(op, op.attrs.getInts("x_shape"), op.inShape(1));
  if (winogradGradients(op, g) && g.pb[0] <= 2 && g.pb[1] <= 2)
    return winogradDataGrad(g, kc, kc.in(0), kc.in(1), kc.out(0));
  if (op.inType(0) == DataType::FLOAT && directDataGradApplies(g))
    return directConvDataGrad(g, kc, kc.in(0), kc.in(1), kc.out(0));
  const ConvGradGemm plan(op, g, kc);
  const bool pointwise = plan.pointwise, twoD = plan.twoD;
  const int64_t K = plan.K, P = plan.P, nc = plan.nc;
  const int dy = kc.in(0), w = kc.in(1), dx = kc.out(0);
  return dispatchFloatOrDouble(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const T* Wt = inPtr<T>(s, w);
      T* DX = outPtr<T>(s, dx);
      T* col = reinterpret_cast<T*>(s.scratch);
      if (twoD) {  // chunks of all images' positions: col = W_g^T dY_g, scattered back by col2im
        T* dyc = col + K * nc;
        std::fill(DX, DX + g.N * g.C * g.inSize, T(0));
        for (int64_t grp = 0; grp < g.G; ++grp) {
          const T* wg = Wt + grp * g.Mg * K;
          for (int64_t q0 = 0; q0 < g.N * P; q0 += nc) {
            const int64_t nq = std::min(nc, g.N * P - q0);
            gatherRows(DY, g, grp, q0, nq, dyc);
            gemm(true, false, K, nq, g.Mg, T(1), wg, K, dyc, nq, T(0), col, nq);
            forEachImageRun(P, q0, nq, [&](int64_t n, int64_t p, int64_t q, int64_t len) {
              col2im2dRange(col + q, DX + (n * g.C + grp * g.Cg) * g.inSize, g, p, len, nq);
            });
          }
        }
        return;
      }
      for (int64_t n = 0; n < g.N; ++n) {
        for (int64_t grp = 0; grp < g.G; ++grp) {
          const T* dyg = DY + (n * g.M + grp * g.Mg) * P;
          const T* wg = Wt + grp * g.Mg * K;
          T* dxg = DX + (n * g.C + grp * g.Cg) * g.inSize;
          if (pointwise) {  // dX_g = W_g^T dY_g
            gemm(true, false, K, P, g.Mg, T(1), wg, K, dyg, P, T(0), dxg, P);
            continue;
          }
          std::fill(dxg, dxg + g.Cg * g.inSize, T(0));
          gemm(true, false, K, P, g.Mg, T(1), wg, K, dyg, P, T(0), col, P);
          col2imNd(col, dxg, g);
        }
      }
    };
  });
}

KernelFn makeCpuKernel_ConvWeightGrad(const Op& op, KernelContext& kc) {
  if (hasHalfFloat(op)) return viaFloat(op, kc, &makeCpuKernel_ConvWeightGrad);
  requireConvType(op);
  const ConvGeom g = convGeom(op, op.inShape(1), op.attrs.getInts("w_shape"));
  if (winogradGradients(op, g)) return winogradWeightGrad(g, kc, kc.in(0), kc.in(1), kc.out(0));
  if (op.inType(0) == DataType::FLOAT && directConvApplies(g))
    return directConvWeightGrad(g, kc, kc.in(0), kc.in(1), kc.out(0));
  const ConvGradGemm plan(op, g, kc);
  const bool pointwise = plan.pointwise, twoD = plan.twoD;
  const int64_t K = plan.K, P = plan.P, nc = plan.nc;
  const int dy = kc.in(0), x = kc.in(1), dw = kc.out(0);
  return dispatchFloatOrDouble(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const T* X = inPtr<T>(s, x);
      T* DW = outPtr<T>(s, dw);
      T* col = reinterpret_cast<T*>(s.scratch);
      std::fill(DW, DW + g.M * K, T(0));
      for (int64_t grp = 0; grp < g.G; ++grp) {
        T* dwg = DW + grp * g.Mg * K;
        if (twoD) {  // chunks of all images' positions: dW_g += dY_g im2col(X_g)^T
          T* dyc = col + K * nc;
          for (int64_t q0 = 0; q0 < g.N * P; q0 += nc) {
            const int64_t nq = std::min(nc, g.N * P - q0);
            gatherRows(DY, g, grp, q0, nq, dyc);
            forEachImageRun(P, q0, nq, [&](int64_t n, int64_t p, int64_t q, int64_t len) {
              im2col2dRange(X + (n * g.C + grp * g.Cg) * g.inSize, col + q, g, p, len, nq);
            });
            gemm(false, true, g.Mg, K, nq, T(1), dyc, nq, col, nq, T(1), dwg, K);
          }
          continue;
        }
        for (int64_t n = 0; n < g.N; ++n) {
          const T* dyg = DY + (n * g.M + grp * g.Mg) * P;
          const T* xg = X + (n * g.C + grp * g.Cg) * g.inSize;
          if (pointwise) {  // dW_g += dY_g X_g^T
            gemm(false, true, g.Mg, K, P, T(1), dyg, P, xg, P, T(1), dwg, K);
            continue;
          }
          im2colNd(xg, col, g);
          gemm(false, true, g.Mg, K, P, T(1), dyg, P, col, P, T(1), dwg, K);
        }
      }
    };
  });
}

KernelFn makeCpuKernel_MaxPoolGrad(const Op& op, KernelContext& kc) {
  const PoolGradGeom g = poolGradGeom(op, op.inShape(1));
  const int dy = kc.in(0), x = kc.in(1), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>) {
      const auto& w = g.w;
      if (w.inSpatial.size() == 2 && w.dilations[0] == 1 && w.dilations[1] == 1 && g.inSize < (int64_t{1} << 31)) {
        const MaxPool2dGeom mg = maxPool2dGeom(g.NC, w);
        kc.needScratch(checkedProduct({mg.OW, int64_t{8}}));
        return [=](const RunState& s) {
          poolKernels().maxPoolGrad2d(inPtr<float>(s, x), inPtr<float>(s, dy), outPtr<float>(s, dx), mg, s.scratch);
        };
      }
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (g.w.inSpatial.size() == 2) return maxPoolGrad2d<T>(g, kc, dy, x, dx);
    }
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const T* X = inPtr<T>(s, x);
      T* DX = outPtr<T>(s, dx);
      std::vector<double> acc(static_cast<size_t>(g.inSize));
      for (int64_t nc = 0; nc < g.NC; ++nc) {
        const T* xc = X + nc * g.inSize;
        const T* dyc = DY + nc * g.outSize;
        std::fill(acc.begin(), acc.end(), 0.0);
        // The first maximum of each window (the forward's index output) takes the gradient.
        forEachWindow(g, [&](int64_t oi, const std::vector<int64_t>& offs, int64_t) {
          int64_t best = -1;
          double bv = 0;
          for (int64_t off : offs) {
            const double v = ld(xc, off);
            if (best < 0 || v > bv) {
              best = off;
              bv = v;
            }
          }
          if (best >= 0) acc[static_cast<size_t>(best)] += ld(dyc, oi);
        });
        T* dxc = DX + nc * g.inSize;
        for (int64_t i = 0; i < g.inSize; ++i) dxc[i] = st<T>(acc[static_cast<size_t>(i)]);
      }
    };
  });
}

KernelFn makeCpuKernel_AveragePoolGrad(const Op& op, KernelContext& kc) {
  const PoolGradGeom g = poolGradGeom(op, op.attrs.getInts("x_shape"));
  const bool countPad = op.attrs.getInt("count_include_pad", 0) != 0;
  const int dy = kc.in(0), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      T* DX = outPtr<T>(s, dx);
      std::vector<double> acc(static_cast<size_t>(g.inSize));
      for (int64_t nc = 0; nc < g.NC; ++nc) {
        const T* dyc = DY + nc * g.outSize;
        std::fill(acc.begin(), acc.end(), 0.0);
        // Each output is the mean over its window: the inside positions, divided by their
        // count or (count_include_pad) by the count of positions inside the explicit pads.
        forEachWindow(g, [&](int64_t oi, const std::vector<int64_t>& offs, int64_t padCount) {
          const int64_t div = countPad ? padCount : static_cast<int64_t>(offs.size());
          if (div == 0) return;
          const double v = ld(dyc, oi) / static_cast<double>(div);
          for (int64_t off : offs) acc[static_cast<size_t>(off)] += v;
        });
        T* dxc = DX + nc * g.inSize;
        for (int64_t i = 0; i < g.inSize; ++i) dxc[i] = st<T>(acc[static_cast<size_t>(i)]);
      }
    };
  });
}

// BatchNormalization, y = scale (x - mean) / sqrt(var + eps) + B, per channel c over (N, spatial).
//   dB = sum dy, dScale = sum dy xhat.
//   With fixed statistics (inference):      dx = scale inv dy.
//   With batch statistics (training mode):  dx = scale inv / m (m dy - dB - xhat dScale), m = N * S.
KernelFn makeCpuKernel_BatchNormGrad(const Op& op, KernelContext& kc) {
  const BnGeom geom = bnGeom(op.inShape(1), op.inShape(2));
  const int64_t N = geom.N, C = geom.C, S = geom.S;
  const double eps = op.attrs.getFloat("epsilon", 1e-5f);
  const bool training = op.attrs.getInt("training", 1) != 0;
  const int dy = kc.in(0), x = kc.in(1), sc = kc.in(2), mn = kc.in(3), vr = kc.in(4);
  const int dx = kc.out(0), dsc = kc.out(1), db = kc.out(2);
  // scale, mean and var may be of another floating-point type than X (and dScale, dB of scale's).
  const LoadFn ldSc = floatLoader(op.inType(2)), ldMn = floatLoader(op.inType(3)), ldVr = floatLoader(op.inType(4));
  const StoreFn stDsc = op.hasOutput(1) ? floatStorer(op.outInfo(1).dataType()) : nullptr;
  const StoreFn stDb = op.hasOutput(2) ? floatStorer(op.outInfo(2).dataType()) : nullptr;
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const T* X = inPtr<T>(s, x);
      const double cnt = static_cast<double>(N * S);
      for (int64_t c = 0; c < C; ++c) {
        double mean = ldMn(s.slots[mn], c), var = ldVr(s.slots[vr], c);
        if (training) {
          double sum = 0, sq = 0;
          for (int64_t n = 0; n < N; ++n) {
            for (int64_t i = 0; i < S; ++i) sum += ld(X, (n * C + c) * S + i);
          }
          mean = cnt > 0 ? sum / cnt : 0.0;
          for (int64_t n = 0; n < N; ++n) {
            for (int64_t i = 0; i < S; ++i) {
              const double d = ld(X, (n * C + c) * S + i) - mean;
              sq += d * d;
            }
          }
          var = cnt > 0 ? sq / cnt : 0.0;
        }
        const double inv = 1.0 / std::sqrt(var + eps);
        double sumDy = 0, sumDyXhat = 0;
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t i = 0; i < S; ++i) {
            const int64_t k = (n * C + c) * S + i;
            const double g = ld(DY, k);
            sumDy += g;
            sumDyXhat += g * (ld(X, k) - mean) * inv;
          }
        }
        if (dsc >= 0) stDsc(s.slots[dsc], c, sumDyXhat);
        if (db >= 0) stDb(s.slots[db], c, sumDy);
        const double a = ldSc(s.slots[sc], c) * inv;
        T* DX = outPtr<T>(s, dx);
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t i = 0; i < S; ++i) {
            const int64_t k = (n * C + c) * S + i;
            const double g = ld(DY, k);
            if (training) {
              const double xhat = (ld(X, k) - mean) * inv;
              DX[k] = st<T>(a * (g - (sumDy + xhat * sumDyXhat) / cnt));
            } else {
              DX[k] = st<T>(a * g);
            }
          }
        }
      }
    };
  });
}

// LayerNormalization over the trailing dims from `axis`, per row of `len` elements:
//   xhat = (x - mean) inv, y = scale xhat + bias;
//   dScale = sum over rows dy xhat, dBias = sum over rows dy,
//   dx = inv (g - mean(g) - xhat mean(g xhat)) with g = dy scale.
KernelFn makeCpuKernel_LayerNormGrad(const Op& op, KernelContext& kc) {
  // A FLOAT scale of 16-bit X (mixed precision): float copies.
  if (op.inType(2) != op.inType(1)) return viaFloat(op, kc, &makeCpuKernel_LayerNormGrad);
  const Shape& xs = op.inShape(1);
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(xs.size()));
  int64_t outer = 1, len = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(xs.size()); ++i) (i < axis ? outer : len) *= xs[static_cast<size_t>(i)];
  const double eps = op.attrs.getFloat("epsilon", 1e-5f);
  const int dy = kc.in(0), x = kc.in(1), sc = kc.in(2), dx = kc.out(0), dsc = kc.out(1), db = kc.out(2);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const T* X = inPtr<T>(s, x);
      const T* G = inPtr<T>(s, sc);
      T* DX = outPtr<T>(s, dx);
      std::vector<double> accScale(static_cast<size_t>(len), 0.0), accBias(static_cast<size_t>(len), 0.0);
      std::vector<double> xhat(static_cast<size_t>(len)), gs(static_cast<size_t>(len));
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t base = o * len;
        double sum = 0;
        for (int64_t i = 0; i < len; ++i) sum += ld(X, base + i);
        const double mean = len ? sum / static_cast<double>(len) : 0.0;
        double sq = 0;
        for (int64_t i = 0; i < len; ++i) {
          const double d = ld(X, base + i) - mean;
          sq += d * d;
        }
        const double inv = 1.0 / std::sqrt((len ? sq / static_cast<double>(len) : 0.0) + eps);
        double meanG = 0, meanGX = 0;
        for (int64_t i = 0; i < len; ++i) {
          const size_t u = static_cast<size_t>(i);
          const double g = ld(DY, base + i);
          xhat[u] = (ld(X, base + i) - mean) * inv;
          gs[u] = g * ld(G, i);
          accScale[u] += g * xhat[u];
          accBias[u] += g;
          meanG += gs[u];
          meanGX += gs[u] * xhat[u];
        }
        if (len) {
          meanG /= static_cast<double>(len);
          meanGX /= static_cast<double>(len);
        }
        for (int64_t i = 0; i < len; ++i) {
          const size_t u = static_cast<size_t>(i);
          DX[base + i] = st<T>(inv * (gs[u] - meanG - xhat[u] * meanGX));
        }
      }
      for (int64_t i = 0; i < len; ++i) {
        if (dsc >= 0) outPtr<T>(s, dsc)[i] = st<T>(accScale[static_cast<size_t>(i)]);
        if (db >= 0) outPtr<T>(s, db)[i] = st<T>(accBias[static_cast<size_t>(i)]);
      }
    };
  });
}

// Gather along `axis`: dData[.., idx[j], ..] += dY[.., j, ..] (repeated indices add up).
KernelFn makeCpuKernel_GatherGrad(const Op& op, KernelContext& kc) {
  const Shape data = op.attrs.getInts("data_shape");
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= data[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < data.size(); ++i) inner *= data[i];
  const int64_t n = data[static_cast<size_t>(axis)], nIdx = op.inInfo(1).nelms(), total = outer * n * inner;
  const DataType it = op.inType(1);
  const std::string where = op.describe();
  const int dy = kc.in(0), idx = kc.in(1), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const void* I = s.slots[idx];
      T* DX = outPtr<T>(s, dx);
      std::fill(DX, DX + total, static_cast<T>(CT(0)));
      for (int64_t j = 0; j < nIdx; ++j) {
        int64_t k = indexAt(I, it, j);
        if (k < -n || k >= n) throw error("{}: index {} is out of range for a dimension of size {}", where, k, n);
        if (k < 0) k += n;
        for (int64_t o = 0; o < outer; ++o) {
          const T* src = DY + (o * nIdx + j) * inner;
          T* dst = DX + (o * n + k) * inner;
          for (int64_t i = 0; i < inner; ++i)
            dst[i] = static_cast<T>(static_cast<CT>(dst[i]) + static_cast<CT>(src[i]));
        }
      }
    };
  });
}

// Slice: dX is zero but at the sliced positions starts + i * steps, which take dY.
KernelFn makeCpuKernel_SliceGrad(const Op& op, KernelContext& kc) {
  const Shape xs = op.attrs.getInts("x_shape");
  const std::vector<int64_t> starts = op.attrs.getInts("starts"), steps = op.attrs.getInts("steps");
  const Shape& ys = op.inShape(0);
  const size_t r = xs.size();
  std::vector<int64_t> xstride(r, 1);
  for (size_t i = r; i-- > 1;) xstride[i - 1] = xstride[i] * xs[i];
  const int64_t total = op.outInfo(0).nelms(), n = op.inInfo(0).nelms();
  const int64_t last = r ? ys[r - 1] : 1;
  const int dy = kc.in(0), dx = kc.out(0);
  return dispatchBySize(op.inType(0), [&](auto tag) -> KernelFn {
    using U = decltype(tag);  // the elements are moved, not computed
    return [=](const RunState& s) {
      const U* DY = inPtr<U>(s, dy);
      U* DX = outPtr<U>(s, dx);
      std::memset(static_cast<void*>(DX), 0, static_cast<size_t>(total) * sizeof(U));
      if (n == 0) return;
      if (r == 0) {
        DX[0] = DY[0];
        return;
      }
      std::vector<int64_t> pos(r, 0);
      const int64_t lastStep = steps[r - 1] * xstride[r - 1];
      for (int64_t k = 0; k < n; k += last) {
        int64_t off = 0;
        for (size_t i = 0; i < r; ++i) off += (starts[i] + pos[i] * steps[i]) * xstride[i];
        for (int64_t j = 0; j < last; ++j) DX[off + j * lastStep] = DY[k + j];
        for (size_t i = r - 1; i-- > 0;) {
          if (++pos[i] < ys[i]) break;
          pos[i] = 0;
        }
      }
    };
  });
}

// Graphcore's Gelu (tanh form): y = x/2 (1 + t), t = tanh(u), u = sqrt(2/pi) (x + 0.044715 x^3);
// dy/dx = (1 + t)/2 + x/2 (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2).
KernelFn makeCpuKernel_GeluGrad(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const int dy = kc.in(0), x = kc.in(1), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      const T* X = inPtr<T>(s, x);
      T* DX = outPtr<T>(s, dx);
      const CT k = static_cast<CT>(0.7978845608028654), c = static_cast<CT>(0.044715);
      for (int64_t i = 0; i < n; ++i) {
        const CT v = static_cast<CT>(X[i]);
        const CT t = std::tanh(k * (v + c * v * v * v));
        const CT d = CT(0.5) * (CT(1) + t) + CT(0.5) * v * (CT(1) - t * t) * k * (CT(1) + CT(3) * c * v * v);
        DX[i] = static_cast<T>(static_cast<CT>(DY[i]) * d);
      }
    };
  });
}

// Dropout: the forward kernel's decision again (training and a non-zero ratio drop elements and
// scale the kept ones by 1 / (1 - ratio); otherwise the op is the identity), with its mask.
KernelFn makeCpuKernel_DropoutGrad(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const DropoutRatio dropout{op.attrs.getFloat("ratio", 0.5f), op.attrs.getInt("training", 0) != 0, kc.in(2),
                             op.hasInput(2) ? op.inType(2) : DataType::FLOAT, kc.in(3)};
  const DataType maskType = op.inType(1);
  const int dy = kc.in(0), mask = kc.in(1), dx = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* DY = inPtr<T>(s, dy);
      T* DX = outPtr<T>(s, dx);
      const double ratio = dropout.get(s);
      if (ratio == 0.0) {
        if (DX != DY) std::memcpy(static_cast<void*>(DX), DY, static_cast<size_t>(n) * sizeof(T));
        return;
      }
      const CT scale = static_cast<CT>(1.0 / (1.0 - ratio));
      auto kept = [&](int64_t i) -> bool {
        if (maskType == DataType::BOOL) return inPtr<bool>(s, mask)[i];
        return dispatchFloat(maskType, [&](auto mt) {
          using M = decltype(mt);
          return static_cast<compute_t<M>>(inPtr<M>(s, mask)[i]) != 0;
        });
      };
      for (int64_t i = 0; i < n; ++i) DX[i] = static_cast<T>(kept(i) ? static_cast<CT>(DY[i]) * scale : CT(0));
    };
  });
}

}  // namespace cpu
}  // namespace popart
