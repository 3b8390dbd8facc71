#include "backends/cpu/winograd.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/gemm.hpp"
#include "common/checked_size.hpp"
#include "common/thread_pool.hpp"

namespace popart {
namespace cpu {

Winograd23::Winograd23(int64_t C, int64_t M, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t padTop,
                       int64_t padLeft)
    : C_(C), M_(M), H_(H), W_(W), OH_(OH), OW_(OW), PT_(padTop), PL_(padLeft) {
  TH_ = (OH + 1) / 2;
  TW_ = (OW + 1) / 2;
  T_ = TH_ * TW_;
}

int64_t Winograd23::scratchFloats(int64_t images) const {
  // V [16][C][images T] + products [16][M][images T]; the transforms' row buffers are per thread.
  return checkedProduct({16, C_ + M_, T_, images});
}

int64_t Winograd23::imagesPerRun(int64_t n, int64_t maxFloats) const {
  const int64_t perImage = std::max<int64_t>(16 * (C_ + M_) * T_, 1);
  return std::max<int64_t>(1, std::min(n, maxFloats / perImage));
}

namespace {

/// A per-thread work buffer of at least n floats (the transforms run on the kernels' thread pool;
/// each thread keeps its own rows).
float* threadWork(size_t n) {
  thread_local std::vector<float> buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

/// U[(i, j), m, c] = (G g G^T)[i, j] for each 3x3 filter g = filter(m, c), G = [[1, 0, 0],
/// [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]]. Eight consecutive input channels at a time, one per
/// lane of a GCC / Clang vector (two v128 in wasm, one ymm with AVX2): the filters are transposed
/// into g[tap][lane], the arithmetic runs on whole vectors and each of the 16 outputs is one store
/// of 8 channels. Same operations in the same order as one filter at a time: bit-identical results.
typedef float Lanes8 __attribute__((vector_size(32)));

template <typename Filter>
void transformFilters(int64_t M, int64_t C, float* u, Filter filter) {
  constexpr int kLanes = 8;
  const int64_t MC = M * C;
  const Lanes8 half = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t c0 = 0; c0 < C; c0 += kLanes) {
      const int n = static_cast<int>(std::min<int64_t>(kLanes, C - c0));
      // Transposed through memory: inserting lanes at run-time indices is slow in wasm.
      float gt[9][kLanes] = {};
      for (int l = 0; l < n; ++l) {
        float f[9];
        filter(m, c0 + l, f);
        for (int k = 0; k < 9; ++k) gt[k][l] = f[k];
      }
      Lanes8 g[9];
      std::memcpy(g, gt, sizeof(g));
      Lanes8 t[4][3];
      for (int j = 0; j < 3; ++j) {
        t[0][j] = g[j];
        t[1][j] = half * (g[j] + g[3 + j] + g[6 + j]);
        t[2][j] = half * (g[j] - g[3 + j] + g[6 + j]);
        t[3][j] = g[6 + j];
      }
      for (int i = 0; i < 4; ++i) {
        const Lanes8 r[4] = {t[i][0], half * (t[i][0] + t[i][1] + t[i][2]), half * (t[i][0] - t[i][1] + t[i][2]),
                             t[i][2]};
        for (int j = 0; j < 4; ++j) {
          float* dst = u + (i * 4 + j) * MC + m * C + c0;
          std::memcpy(dst, &r[j], n == kLanes ? sizeof(Lanes8) : static_cast<size_t>(n) * sizeof(float));
        }
      }
    }
  }
}

}  // namespace

void Winograd23::transformWeights(const float* w, float* u) const {
  transformFilters(M_, C_, u, [&](int64_t m, int64_t c, float* g) { std::memcpy(g, w + (m * C_ + c) * 9, 36); });
}

void Winograd23::transformFlippedWeights(const float* w, float* u) const {
  transformFilters(M_, C_, u, [&](int64_t m, int64_t c, float* g) {
    const float* f = w + (c * M_ + m) * 9;
    for (int k = 0; k < 9; ++k) g[k] = f[8 - k];
  });
}

void Winograd23::inputTransform(const float* x, int64_t images, int64_t xStride, float* V) const {
  const int64_t wp = 2 * TW_ + 2;  // padded input columns covered by the tiles
  const int64_t LT = images * T_;
  // V = B^T d B per 4x4 tile, B^T = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]]; one task per
  // (image, channel).
  parallelFor(images * C_, [&](int64_t ic) {
    float* rows = threadWork(static_cast<size_t>(8 * wp));  // 4 padded input rows, 4 transformed
    float* cols = rows + 4 * wp;
    const int64_t img = ic / C_, c = ic % C_;
    const float* xc = x + img * xStride + c * H_ * W_;
    for (int64_t ty = 0; ty < TH_; ++ty) {
      for (int r = 0; r < 4; ++r) {
        float* row = rows + r * wp;
        const int64_t ih = 2 * ty - PT_ + r;
        std::fill(row, row + wp, 0.0f);
        if (ih < 0 || ih >= H_) continue;
        const int64_t lo = std::max<int64_t>(0, PL_), hi = std::min<int64_t>(wp, PL_ + W_);
        if (hi > lo) std::memcpy(row + lo, xc + ih * W_ + (lo - PL_), static_cast<size_t>(hi - lo) * sizeof(float));
      }
      // Column transform over the 4 rows: contiguous, so it vectorises.
      const float* r0 = rows;
      const float* r1 = rows + wp;
      const float* r2 = rows + 2 * wp;
      const float* r3 = rows + 3 * wp;
      float* t0 = cols;
      float* t1 = cols + wp;
      float* t2 = cols + 2 * wp;
      float* t3 = cols + 3 * wp;
      for (int64_t j = 0; j < wp; ++j) {
        t0[j] = r0[j] - r2[j];
        t1[j] = r1[j] + r2[j];
        t2[j] = r2[j] - r1[j];
        t3[j] = r1[j] - r3[j];
      }
      // Row transform: tile tx covers columns 2tx..2tx+3 (stride-2 reads, which the compiler
      // deinterleaves with permutes).
      for (int i = 0; i < 4; ++i) {
        float* v0 = V + ((i * 4 + 0) * C_ + c) * LT + img * T_ + ty * TW_;
        float* v1 = V + ((i * 4 + 1) * C_ + c) * LT + img * T_ + ty * TW_;
        float* v2 = V + ((i * 4 + 2) * C_ + c) * LT + img * T_ + ty * TW_;
        float* v3 = V + ((i * 4 + 3) * C_ + c) * LT + img * T_ + ty * TW_;
        const float* t = cols + i * wp;
        for (int64_t tx = 0; tx < TW_; ++tx) {
          const float a = t[2 * tx], b = t[2 * tx + 1], cc = t[2 * tx + 2], d = t[2 * tx + 3];
          v0[tx] = a - cc;
          v1[tx] = b + cc;
          v2[tx] = cc - b;
          v3[tx] = b - d;
        }
      }
    }
  });
}

void Winograd23::run(const float* x, const float* u, const float* bias, float* y, float* scratch, int64_t images,
                     int64_t xStride, int64_t yStride) const {
  const int64_t LT = images * T_;  // tiles of all images: the GEMMs' width
  float* V = scratch;
  float* P = V + 16 * C_ * LT;
  inputTransform(x, images, xStride, V);

  // ---- 16 products: P[xi] (M x LT) = U[xi] (M x C) * V[xi] (C x LT), one task each
  parallelFor(16, [&](int64_t xi) {
    gemm(false, false, M_, LT, C_, 1.0f, u + xi * M_ * C_, C_, V + xi * C_ * LT, LT, 0.0f, P + xi * M_ * LT, LT);
  });

  // ---- output transform: Y = A^T P A, A^T = [[1,1,1,0],[0,1,-1,-1]]; one task per (image, m)
  parallelFor(images * M_, [&](int64_t im) {
    float* ybuf = threadWork(static_cast<size_t>(4 * TW_));
    const int64_t img = im / M_, m = im % M_;
    const float b = bias ? bias[m] : 0.0f;
    float* ym = y + img * yStride + m * OH_ * OW_;
    for (int64_t ty = 0; ty < TH_; ++ty) {
      const float* p[16];
      for (int xi = 0; xi < 16; ++xi) p[xi] = P + (xi * M_ + m) * LT + img * T_ + ty * TW_;
      float* y00 = ybuf;
      float* y01 = ybuf + TW_;
      float* y10 = ybuf + 2 * TW_;
      float* y11 = ybuf + 3 * TW_;
      for (int64_t tx = 0; tx < TW_; ++tx) {
        float s[4], d[4];
        for (int j = 0; j < 4; ++j) {
          s[j] = p[j][tx] + p[4 + j][tx] + p[8 + j][tx];
          d[j] = p[4 + j][tx] - p[8 + j][tx] - p[12 + j][tx];
        }
        y00[tx] = s[0] + s[1] + s[2] + b;
        y01[tx] = s[1] - s[2] - s[3] + b;
        y10[tx] = d[0] + d[1] + d[2] + b;
        y11[tx] = d[1] - d[2] - d[3] + b;
      }
      for (int a = 0; a < 2; ++a) {
        const int64_t oh = 2 * ty + a;
        if (oh >= OH_) break;
        float* yr = ym + oh * OW_;
        const float* q0 = a ? y10 : y00;
        const float* q1 = a ? y11 : y01;
        const int64_t full = OW_ / 2;
        for (int64_t tx = 0; tx < full; ++tx) {
          yr[2 * tx] = q0[tx];
          yr[2 * tx + 1] = q1[tx];
        }
        if (OW_ & 1) yr[OW_ - 1] = q0[full];
      }
    }
  });
}

void Winograd23::weightGrad(const float* x, const float* dy, float* du, float* scratch, int64_t images, int64_t xStride,
                            int64_t dyStride, bool accumulate) const {
  const int64_t LT = images * T_;
  float* V = scratch;
  float* Z = V + 16 * C_ * LT;
  inputTransform(x, images, xStride, V);
  // Z = A dY A^T per 2x2 output tile (the adjoint of the output transform; outside the output,
  // dY is 0), A = [[1,0],[1,1],[1,-1],[0,-1]].
  for (int64_t im = 0; im < images * M_; ++im) {
    const int64_t img = im / M_, m = im % M_;
    const float* dym = dy + img * dyStride + m * OH_ * OW_;
    for (int64_t ty = 0; ty < TH_; ++ty) {
      const int64_t oh = 2 * ty;
      const bool row1 = oh + 1 < OH_;
      float* z[16];
      for (int xi = 0; xi < 16; ++xi) z[xi] = Z + (xi * M_ + m) * LT + img * T_ + ty * TW_;
      for (int64_t tx = 0; tx < TW_; ++tx) {
        const int64_t ow = 2 * tx;
        const bool col1 = ow + 1 < OW_;
        const float d00 = dym[oh * OW_ + ow], d01 = col1 ? dym[oh * OW_ + ow + 1] : 0.0f;
        const float d10 = row1 ? dym[(oh + 1) * OW_ + ow] : 0.0f;
        const float d11 = row1 && col1 ? dym[(oh + 1) * OW_ + ow + 1] : 0.0f;
        const float t[4][2] = {{d00, d01}, {d00 + d10, d01 + d11}, {d00 - d10, d01 - d11}, {-d10, -d11}};
        for (int i = 0; i < 4; ++i) {
          z[i * 4 + 0][tx] = t[i][0];
          z[i * 4 + 1][tx] = t[i][0] + t[i][1];
          z[i * 4 + 2][tx] = t[i][0] - t[i][1];
          z[i * 4 + 3][tx] = -t[i][1];
        }
      }
    }
  }
  // dU[xi] (M x C) (+)= Z[xi] (M x LT) V[xi]^T
  for (int xi = 0; xi < 16; ++xi)
    gemm(false, true, M_, C_, LT, 1.0f, Z + xi * M_ * LT, LT, V + xi * C_ * LT, LT, accumulate ? 1.0f : 0.0f,
         du + xi * M_ * C_, C_);
}

void Winograd23::finishWeightGrad(const float* du, float* dw) const {
  // dW = G^T dU G, the adjoint of U = G g G^T.
  for (int64_t m = 0; m < M_; ++m) {
    for (int64_t c = 0; c < C_; ++c) {
      float u[4][4];
      for (int xi = 0; xi < 16; ++xi) u[xi / 4][xi % 4] = du[(xi * M_ + m) * C_ + c];
      float sg[3][4];
      for (int j = 0; j < 4; ++j) {
        sg[0][j] = u[0][j] + 0.5f * (u[1][j] + u[2][j]);
        sg[1][j] = 0.5f * (u[1][j] - u[2][j]);
        sg[2][j] = 0.5f * (u[1][j] + u[2][j]) + u[3][j];
      }
      float* g = dw + (m * C_ + c) * 9;
      for (int a = 0; a < 3; ++a) {
        g[a * 3 + 0] = sg[a][0] + 0.5f * (sg[a][1] + sg[a][2]);
        g[a * 3 + 1] = 0.5f * (sg[a][1] - sg[a][2]);
        g[a * 3 + 2] = 0.5f * (sg[a][1] + sg[a][2]) + sg[a][3];
      }
    }
  }
}

}  // namespace cpu
}  // namespace popart
