// The IPU model's reports as text: Poplar's summary layout (Target, Graph, Memory Usage,
// Execution) and the out-of-memory message.
#pragma once

#include <string>

#include "popart/report.hpp"

namespace popart {
namespace ipu_model {

/// Session::getSummaryReport on an IPU device. `showExecutionSteps` adds the program listing
/// (reportOptions {"showExecutionSteps": "true"}).
std::string summaryText(const report::Report& r, bool showExecutionSteps);

/// "Out of memory: Cannot fit all variable data onto one or more tiles", then the worst tiles
/// (bytes against capacity) and the largest tensors on them by the model's names.
std::string outOfMemoryMessage(const report::Compilation& c);

}  // namespace ipu_model
}  // namespace popart
