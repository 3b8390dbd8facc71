// Scan's geometry, shared by shape inference and the kernel.
#pragma once

#include <vector>

#include "ir/graph.hpp"

namespace popart {
namespace ops {

struct ScanParams {
  bool batched = false;  ///< opset 8: inputs carry a leading batch dimension
  int64_t batch = 1;
  int numStates = 0, numScanInputs = 0, numScanOutputs = 0;
  int firstScanInput = 0;
  int64_t length = 0;                                                 ///< iterations
  std::vector<int64_t> inDirections, outDirections, inAxes, outAxes;  ///< inAxes include the batch dim
};

/// Needs op.subgraphs[0] (the body) imported.
ScanParams scanParams(const Op& op);

}  // namespace ops
}  // namespace popart
