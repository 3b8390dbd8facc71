// Convolution geometry and im2col, shared by the Conv kernel (conv.cpp) and its gradient
// kernels (grad_nn.cpp).
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/op.hpp"
#include "ops/window.hpp"

namespace popart {
namespace cpu {

struct ConvGeom {
  int64_t N, C, M, G, Cg, Mg;
  std::vector<int64_t> in, out, k, s, d, pb;  // spatial
  int64_t inSize, outSize, kSize;             // products over spatial dims
};

/// The geometry of a convolution of X `x` with weights `w` under `op`'s attributes (group,
/// strides, pads / auto_pad, dilations): the forward Conv and its gradient ops share it.
inline ConvGeom convGeom(const Op& op, const Shape& x, const Shape& w) {
  ConvGeom g;
  g.N = x[0];
  g.C = x[1];
  g.M = w[0];
  g.G = op.attrs.getInt("group", 1);
  g.Cg = g.C / g.G;
  g.Mg = g.M / g.G;
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  const ops::Window win = ops::computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), kernel, false, true);
  g.in = win.inSpatial;
  g.out = win.outSpatial;
  g.k = kernel;
  g.s = win.strides;
  g.d = win.dilations;
  g.pb = win.padBegin;
  g.inSize = g.outSize = g.kSize = 1;
  for (size_t i = 0; i < g.in.size(); ++i) {
    g.inSize *= g.in[i];
    g.outSize *= g.out[i];
    g.kSize *= g.k[i];
  }
  return g;
}

/// The output columns [lo, hi) of a row whose input column ow * SW + off lies inside [0, W),
/// within [0, OW).
struct ColumnRange {
  int64_t lo, hi;
};
inline ColumnRange insideColumns(int64_t off, int64_t SW, int64_t W, int64_t OW) {
  const int64_t lo = std::min<int64_t>(off >= 0 ? 0 : (-off + SW - 1) / SW, OW);
  return {lo, std::max(std::min<int64_t>((W - off + SW - 1) / SW, OW), lo)};
}

// col[(c, kh, kw), p - p0] for the output positions p in [p0, p0 + np) of one image and one
// group (2-D), row stride np: a column chunk small enough to stay in cache for the GEMM.
template <typename T>
inline void im2col2dRange(const T* x, T* col, const ConvGeom& g, int64_t p0, int64_t np, int64_t ldcol = -1) {
  if (ldcol < 0) ldcol = np;
  const int64_t H = g.in[0], W = g.in[1], OW = g.out[1];
  const int64_t KH = g.k[0], KW = g.k[1], SH = g.s[0], SW = g.s[1], DH = g.d[0], DW = g.d[1];
  const int64_t PH = g.pb[0], PW = g.pb[1];
  for (int64_t c = 0; c < g.Cg; ++c) {
    const T* xc = x + c * H * W;
    for (int64_t kh = 0; kh < KH; ++kh) {
      for (int64_t kw = 0; kw < KW; ++kw) {
        T* row = col + ((c * KH + kh) * KW + kw) * ldcol;
        const int64_t off = kw * DW - PW;
        const auto [owLo0, owHi0] = insideColumns(off, SW, W, OW);
        int64_t p = p0;
        while (p < p0 + np) {
          const int64_t oh = p / OW, ow0 = p % OW;
          const int64_t ow1 = std::min<int64_t>(OW, ow0 + (p0 + np - p));
          T* r = row + (p - p0) - ow0;  // r[ow] is the entry of (oh, ow)
          const int64_t ih = oh * SH - PH + kh * DH;
          if (ih < 0 || ih >= H) {
            for (int64_t ow = ow0; ow < ow1; ++ow) r[ow] = T(0);
          } else {
            const T* xr = xc + ih * W;
            const int64_t lo = std::max(ow0, owLo0), hi = std::min(ow1, owHi0);
            for (int64_t ow = ow0; ow < std::min(lo, ow1); ++ow) r[ow] = T(0);
            if (SW == 1) {
              const T* src = xr + off;
              for (int64_t ow = lo; ow < hi; ++ow) r[ow] = src[ow];
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) r[ow] = xr[ow * SW + off];
            }
            for (int64_t ow = std::max(hi, ow0); ow < ow1; ++ow) r[ow] = T(0);
          }
          p += ow1 - ow0;
        }
      }
    }
  }
}

// col[(c, kh, kw), (oh, ow)] for one image and one group (2-D): all its output positions.
template <typename T>
inline void im2col2d(const T* x, T* col, const ConvGeom& g, int64_t ldcol = -1) {
  im2col2dRange(x, col, g, 0, g.outSize, ldcol);
}

/// Output positions per column chunk: the chunk's im2col block stays around 256 KiB.
inline int64_t convChunk(const ConvGeom& g) {
  const int64_t K = g.Cg * g.kSize;
  int64_t nc = (256 * 1024 / 4) / std::max<int64_t>(K, 1);
  nc = std::max<int64_t>(64, nc / 16 * 16);
  return std::min(nc, g.outSize);
}

/// The im2col correspondence in any spatial rank: f(j, in) for each element j of the columns
/// (row c * kSize + kernel position, column the output position), in that order, with `in` the
/// offset of its input element in the group's input, or -1 where it falls in the padding.
template <typename F>
inline void forEachIm2colNd(const ConvGeom& g, F f) {
  const size_t r = g.in.size();
  std::vector<int64_t> kidx(r), oidx(r);
  for (int64_t c = 0; c < g.Cg; ++c) {
    for (int64_t kk = 0; kk < g.kSize; ++kk) {
      int64_t rem = kk;
      for (size_t i = r; i-- > 0;) {
        kidx[i] = rem % g.k[i];
        rem /= g.k[i];
      }
      const int64_t row = (c * g.kSize + kk) * g.outSize;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t o = 0; o < g.outSize; ++o) {
        int64_t inOff = 0, stride = 1;
        bool inside = true;
        for (size_t i = r; i-- > 0;) {
          const int64_t p = oidx[i] * g.s[i] - g.pb[i] + kidx[i] * g.d[i];
          if (p < 0 || p >= g.in[i]) inside = false;
          inOff += p * stride;
          stride *= g.in[i];
        }
        f(row + o, inside ? c * g.inSize + inOff : int64_t{-1});
        for (size_t i = r; i-- > 0;) {
          if (++oidx[i] < g.out[i]) break;
          oidx[i] = 0;
        }
      }
    }
  }
}

// Any spatial rank.
template <typename T>
inline void im2colNd(const T* x, T* col, const ConvGeom& g) {
  forEachIm2colNd(g, [&](int64_t j, int64_t in) { col[j] = in >= 0 ? x[in] : T(0); });
}

}  // namespace cpu
}  // namespace popart
