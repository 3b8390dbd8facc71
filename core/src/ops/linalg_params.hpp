// Einsum: the parsed equation shared by shape inference (ops/linalg.cpp) and the CPU kernel
// (backends/cpu/kernels/linalg.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "popart/tensorinfo.hpp"

namespace popart {
namespace ops {

/// An Einsum equation resolved against its operand shapes. Every subscript letter and every
/// dimension covered by an ellipsis is a label; the output's labels come first, in output order,
/// then the summed labels.
struct EinsumPlan {
  std::vector<int64_t> sizes;  ///< per label
  int64_t outRank = 0;         ///< labels [0, outRank) are the output's dimensions
  /// Per operand and label: the element stride of the label in that operand (the sum of the
  /// strides of its dimensions when a subscript repeats, i.e. a diagonal; 0 when the operand
  /// lacks the label or broadcasts it).
  std::vector<std::vector<int64_t>> strides;
  /// Per operand and label: whether the operand's subscripts name the label.
  std::vector<std::vector<bool>> present;
  Shape outShape;
};

/// Parses `equation` ("ij,jk->ik", implicit output, "...", repeated subscripts) for operands of
/// the given shapes; errors say what is wrong with the equation.
EinsumPlan einsumPlan(const std::string& equation, const std::vector<Shape>& operands);

}  // namespace ops
}  // namespace popart
