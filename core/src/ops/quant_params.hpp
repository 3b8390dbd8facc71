// Quantization parameters shared by the quant family's shape inference and its CPU kernels:
// per-tensor / per-axis scales and zero points, and the broadcast shapes of MatMul-side ones.
#pragma once

#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// The layout of a QuantizeLinear / DequantizeLinear parameter (scale, zero point) over x:
/// x is [outer, len, inner] around the quantization axis; `perAxis` false means one value.
struct QuantLayout {
  bool perAxis = false;
  int64_t outer = 1, len = 1, inner = 1;
};

/// Checks the scale (input `scaleIdx`) and optional zero point (input `zpIdx`) against x
/// (input 0) and the op's `axis` attribute; returns the layout.
QuantLayout quantLayout(const Op& op, int scaleIdx, int zpIdx);

/// The shape as which a MatMul operand's quantization parameter (input `paramIdx`) broadcasts
/// against the operand (input `operandIdx`): {} for one value, [M, 1] for a per-row vector of
/// A, [N] for a per-column vector of B, else the parameter's own shape, which must broadcast to
/// the operand with size 1 along the reduced dimension (K).
Shape matmulParamShape(const Op& op, int paramIdx, int operandIdx, bool isA);

/// Output shape of a MatMul (numpy semantics) of shapes a and b; errors name the op's terms.
Shape matmulOutShape(const Shape& a, const Shape& b);

/// Quantized int8 / uint8 range.
inline int64_t quantMin(DataType t) {
  return t == DataType::INT8 ? -128 : 0;
}
inline int64_t quantMax(DataType t) {
  return t == DataType::INT8 ? 127 : 255;
}

}  // namespace ops
}  // namespace popart
