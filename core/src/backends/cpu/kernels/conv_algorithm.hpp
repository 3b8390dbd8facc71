// The CPU Conv kernel's choice of algorithm as a query: makeCpuKernel_Conv branches on
// chooseConvAlgorithm, so what this returns for an op is what its kernel runs (tests check the
// choice per layer of the reference models: tests/zoo/zoo_ir_test.cpp).
#pragma once

namespace popart {

class Op;

namespace cpu {

enum class ConvAlgorithm {
  Winograd,           ///< F(2x2, 3x3): FLOAT 3x3 stride-1 undilated ungrouped, >= 8 channels in and out
  DepthwiseDirect,    ///< FLOAT depthwise stride 1, outputs <= 28 wide: the wide grid (conv_direct_plan.hpp)
  Depthwise3x3,       ///< FLOAT depthwise 3x3, stride 1 or 2 in both dims, undilated: row kernel
  DepthwisePadded,    ///< other FLOAT undilated depthwise with column stride 1 or 2: padded planes
  Depthwise,          ///< other FLOAT depthwise 2-D: direct accumulation
  Direct,             ///< FLOAT 2-D stride 1, one group, small images and K (conv_direct_plan.hpp)
  BatchedIm2colGemm,  ///< FLOAT 2-D, several small images: im2col of a batch of images, one GEMM
  PointwiseGemm,      ///< 1x1, stride 1, unpadded: GEMM on the input directly
  Im2colGemm,         ///< everything else: im2col (in column chunks for FLOAT 2-D) + GEMM
};

/// A short stable name: "winograd", "depthwise_3x3", "depthwise_padded", "depthwise", "direct", "depthwise_direct",
/// "im2col_gemm_batched", "gemm_pointwise", "im2col_gemm".
const char* convAlgorithmName(ConvAlgorithm a);

/// The algorithm the CPU kernel runs for `op`, a Conv whose setup is done (input shapes and, for
/// Winograd, whether the weights are constant are known). FLOAT and DOUBLE convolutions; the
/// POPART_NO_WINOGRAD environment variable turns Winograd off.
ConvAlgorithm chooseConvAlgorithm(const Op& op);

}  // namespace cpu
}  // namespace popart
