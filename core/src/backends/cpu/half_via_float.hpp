// 16-bit floating-point tensors through a FLOAT kernel: the CPU's emulation of the IPU's half
// arithmetic for kernels built on the float GEMM (convolutions and their gradients). Inputs are
// widened to float, the FLOAT kernel computes (accumulating in float, as the IPU's AMP units do
// with float partials), and the outputs are rounded to half (round to nearest even) when stored.
#pragma once

#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {

/// True when an input or output of `op` is FLOAT16 or BFLOAT16.
bool hasHalfFloat(const Op& op);

/// The kernel `factory` makes for a copy of `op` whose FLOAT16 / BFLOAT16 inputs and outputs are
/// FLOAT (constant inputs converted once), wrapped so that it reads and writes the op's own
/// 16-bit buffers: each run widens those inputs into scratch, runs the FLOAT kernel there and
/// rounds its outputs back. Other inputs and outputs (indices, ...) are passed through.
KernelFn viaFloat(const Op& op, KernelContext& kc, KernelFactory factory);

}  // namespace cpu
}  // namespace popart
