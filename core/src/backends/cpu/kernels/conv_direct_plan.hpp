// Where the direct stride-1 convolution kernels (conv_direct.hpp) run, and the CPU kernels of
// Conv, ConvDataGrad and ConvWeightGrad built on them (conv.cpp and grad_nn.cpp call these).
#pragma once

#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/activation_fn.hpp"
#include "backends/cpu/kernels/conv_im2col.hpp"

namespace popart {
namespace cpu {

/// Whether a FLOAT convolution of geometry `g` runs the direct kernels: 2-D, one group, stride 1,
/// 2 to 128 kernel positions, at most 512 products per output (C x KH x KW; more is the GEMM's
/// ground) and an image's padded planes within 256 KiB. ConvDataGrad asks the same of the
/// transposed convolution (M channels in, C out).
bool directConvApplies(const ConvGeom& g);
bool directDataGradApplies(const ConvGeom& g);
/// Whether a FLOAT depthwise convolution (one channel per group, M = C) runs the direct
/// depthwise kernel: 2-D, stride 1, 2 to 128 kernel positions, outputs at most 28 wide (narrow
/// rows fill few lanes of the row-wise kernels; the wide grid's vectors span rows).
bool directDepthwiseApplies(const ConvGeom& g);

/// y = conv(x, w) + b (b < 0: no bias), then `act`; images spread over the thread pool.
KernelFn directConvForward(const ConvGeom& g, KernelContext& kc, int x, int w, int b, int y, Activation act);
/// The depthwise convolution: images x channel ranges over the thread pool.
KernelFn directDepthwiseForward(const ConvGeom& g, KernelContext& kc, int x, int w, int b, int y, Activation act);
/// dx = the transposed convolution of dy with w (flipped, channels swapped).
KernelFn directConvDataGrad(const ConvGeom& g, KernelContext& kc, int dy, int w, int dx);
/// dw = sum over the images of dy correlated with x.
KernelFn directConvWeightGrad(const ConvGeom& g, KernelContext& kc, int dy, int x, int dw);

}  // namespace cpu
}  // namespace popart
