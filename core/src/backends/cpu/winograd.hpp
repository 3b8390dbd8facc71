// Winograd F(2x2, 3x3) convolution for 3x3, stride-1, undilated, ungrouped FLOAT convolutions:
// 2.25x fewer multiplications than direct / im2col, with the 16 per-frequency products done by
// the packed GEMM. Accurate to ~1e-6 relative in float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace popart {
namespace cpu {

/// Weights that change (training) are transformed on every run: below this many output positions
/// (over all images) that costs more than im2col + GEMM.
constexpr int64_t kWinogradMinPositions = 784;

class Winograd23 {
 public:
  /// Geometry: C input channels, M output channels, input HxW, output OHxOW, padding (top, left).
  Winograd23(int64_t C, int64_t M, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t padTop, int64_t padLeft);

  /// Scratch floats needed by run() with up to `images` images at once (-1 when the count
  /// overflows int64).
  int64_t scratchFloats(int64_t images = 1) const;
  /// Transforms weights [M, C, 3, 3] into U [16][M][C] (size 16 * M * C).
  void transformWeights(const float* w, float* u) const;
  /// As transformWeights for the adjoint convolution (the data gradient of a convolution with
  /// weights w [C, M, 3, 3]): w'[m, c] = w[c, m] rotated by 180 degrees.
  void transformFlippedWeights(const float* w, float* u) const;
  /// `images` images: x [images][C, H, W] (images xStride apart) -> y [images][M, OH, OW] (yStride
  /// apart), + bias[M] if given, using transformed weights u. The images' tiles share the 16
  /// GEMMs, so that small images still make wide products.
  void run(const float* x, const float* u, const float* bias, float* y, float* scratch, int64_t images = 1,
           int64_t xStride = 0, int64_t yStride = 0) const;
  /// The weight gradient of the convolution: dU[16][M][C] (+)= the transform-domain gradient of
  /// `images` images, x [C, H, W] and dy [M, OH, OW] each (xStride / dyStride apart); adds to dU
  /// when `accumulate`, else overwrites it. finishWeightGrad turns dU into dW [M, C, 3, 3].
  void weightGrad(const float* x, const float* dy, float* du, float* scratch, int64_t images, int64_t xStride,
                  int64_t dyStride, bool accumulate) const;
  void finishWeightGrad(const float* du, float* dw) const;
  /// Images per run() call that keep the transformed tiles of one call (16 (C + M) floats per
  /// tile) around `maxFloats`; at least 1, at most n.
  int64_t imagesPerRun(int64_t n, int64_t maxFloats = int64_t{1} << 20) const;

 private:
  /// V[16][C][images T] = B^T d B of every input tile (per-thread row buffers; on the kernels'
  /// thread pool).
  void inputTransform(const float* x, int64_t images, int64_t xStride, float* V) const;

  int64_t C_, M_, H_, W_, OH_, OW_, PT_, PL_;
  int64_t TH_, TW_, T_;  // tiles down, across, total
};

}  // namespace cpu
}  // namespace popart
