// Scan's geometry and If's branches, shared by shape inference, grad rules and the kernel.
#pragma once

#include <vector>

#include "ir/graph.hpp"

namespace popart {

class GradCtx;

/// PackedDataBlock's grad rule (ops/controlflow.cpp): differentiated through its decomposition, as
/// the control-flow ops are.
void gradPackedDataBlock(GradCtx& c);

/// If: the attribute naming a branch left out because it does not import for these inputs and
/// the known condition takes the other (0 then_branch, 1 else_branch), and its error.
inline constexpr const char* kIfLeftOutBranch = "__left_out_branch";
inline constexpr const char* kIfLeftOutError = "__left_out_branch_error";

/// If `op`'s subgraph for condition `cond`: op.subgraphs holds both branches, or only the one a
/// known condition takes (the other left out); a left-out branch is its import error.
const Graph& ifBranch(const Op& op, bool cond);

namespace ops {

struct ScanParams {
  bool batched = false;  ///< opset 8: inputs carry a leading batch dimension
  int64_t batch = 1;
  int numStates = 0, numScanInputs = 0, numScanOutputs = 0;
  int firstScanInput = 0;
  int64_t length = 0;                                                 ///< iterations
  std::vector<int64_t> inDirections, outDirections, inAxes, outAxes;  ///< inAxes include the batch dim
  /// PopART's Scan (a body whose scan inputs declare no shape, as PopART's Builder makes them with
  /// addUntypedInputTensor): a rank-1 scan input gives slices of shape [1], not scalars, and a scan
  /// output concatenates the iterations' outputs along its axis (shape[axis] · length) instead of
  /// stacking them on a new axis (ONNX). Both lay the elements out in the same order.
  bool popartShapes = false;
  std::vector<bool> outConcat;  ///< per scan output: concatenated (popartShapes and rank >= 1)
};

/// True when the body of Scan `op` declares none of its scan inputs' shapes (PopART's form).
bool scanBodyUntyped(const Op& op, int numStates, int numScanInputs);

/// Needs op.subgraphs[0] (the body) imported.
ScanParams scanParams(const Op& op);

}  // namespace ops
}  // namespace popart
