// Direct 2-D float convolutions of stride 1 for small images (cnn_small's 5x5 layers), one table
// per instruction-set copy (isa.hpp; conv_direct.cpp).
//
// An image's C input planes are copied into zero-padded planes of Hp x Wp (Wp = OW + (KW - 1) DW,
// Hp = OH + (KH - 1) DH); on that grid every kernel position (kh, kw) is one offset,
// kh DH Wp + kw DW, from output position p = oh Wp + ow, so the output is computed on the wide
// grid (OH x Wp, the last Wp - OW columns of each row unused) as long contiguous vectors:
// register blocks of output channels x vectors of positions, each input vector read once per
// block of channels and each weight broadcast. No im2col matrix.
#pragma once

#include <cstdint>

#include "backends/cpu/isa.hpp"

namespace popart {
namespace cpu {

/// A stride-1 2-D convolution of one group (plain numbers: the copies share no code). Input C
/// planes of H x W, output M planes of OH x OW, kernel KH x KW, dilations DH, DW; the input's
/// row ih lands on padded row ih + PH (column iw on iw + PW), which may be negative (rows cut).
/// Derived by directConvGeom (conv.cpp): Hp, Wp, the padded plane's stride PS (Hp x Wp plus room
/// for the last vector's reads), and Pw, the wide output positions rounded up to whole blocks.
struct DirectConvGeom {
  int64_t C = 0, M = 0, H = 0, W = 0, OH = 0, OW = 0, KH = 0, KW = 0, DH = 1, DW = 1, PH = 0, PW = 0;
  int64_t Hp = 0, Wp = 0, PS = 0, Pw = 0;
  /// Images per batch of weightGrad's scratch.
  int64_t batch = 1;
};

struct DirectConvKernels {
  /// The positions of one register block (Pw is a multiple of it).
  int64_t blockPositions;
  /// One image: y (M planes of OH x OW) = conv(x, w [M, C, KH, KW]) + bias (may be null).
  /// `scratch`: C x PS + M x Pw floats.
  void (*forward)(const float* x, const float* w, const float* bias, float* y, const DirectConvGeom& g, float* scratch);
  /// dw [M, C, KH, KW] = the weight gradient summed over `images` images of x (C planes of H x W
  /// each) and dy (M planes of OH x OW each). `scratch`: batch x (C x PS + M x Pw) floats.
  void (*weightGrad)(const float* x, const float* dy, int64_t images, float* dw, const DirectConvGeom& g,
                     float* scratch);
};

POPART_ISA_DECLARE(DirectConvKernels, kDirectConv)

}  // namespace cpu
}  // namespace popart
