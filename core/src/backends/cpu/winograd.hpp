// Winograd F(2x2, 3x3) convolution for 3x3, stride-1, undilated, ungrouped FLOAT convolutions:
// 2.25x fewer multiplications than direct / im2col, with the 16 per-frequency products done by
// the packed GEMM. Accurate to ~1e-6 relative in float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace popart {
namespace cpu {

class Winograd23 {
 public:
  /// Geometry: C input channels, M output channels, input HxW, output OHxOW, padding (top, left).
  Winograd23(int64_t C, int64_t M, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t padTop, int64_t padLeft);

  /// Scratch floats needed by run().
  size_t scratchFloats() const;
  /// Transforms weights [M, C, 3, 3] into U [16][M][C] (size 16 * M * C).
  void transformWeights(const float* w, float* u) const;
  /// One image: x [C, H, W] -> y [M, OH, OW] (+ bias[M] if given), using transformed weights u.
  void run(const float* x, const float* u, const float* bias, float* y, float* scratch) const;

 private:
  int64_t C_, M_, H_, W_, OH_, OW_, PT_, PL_;
  int64_t TH_, TW_, T_;  // tiles down, across, total
};

}  // namespace cpu
}  // namespace popart
