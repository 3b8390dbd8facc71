// Placement annotations (ir/placement.hpp).
#include "ir/placement.hpp"

#include <algorithm>

#include "ir/op.hpp"

namespace popart {

void copyPlacement(const Op& from, Attributes& to) {
  for (const char* k : kPlacementAttributes)
    if (from.attrs.has(k)) to.set(k, from.attrs.getInt(k));
}

bool phasedExecution(const SessionOptions& o) {
  return o.virtualGraphMode == VirtualGraphMode::ExecutionPhases && o.executionPhaseSettings.phases > 1;
}

int64_t executionPhaseOf(const Op& op) {
  return op.attrs.getInt(sExecutionPhaseAttribute, -1);
}

void setExecutionPhase(const SessionOptions& o, Attributes& a, int64_t phase) {
  a.set(sExecutionPhaseAttribute, phase);
  a.set(sVirtualGraphAttribute, phase % std::max<int64_t>(1, o.executionPhaseSettings.stages));
}

void toBackwardPhase(const SessionOptions& o, Attributes& a) {
  if (!phasedExecution(o) || !a.has(sExecutionPhaseAttribute)) return;
  setExecutionPhase(o, a, 2 * int64_t{o.executionPhaseSettings.phases} - 2 - a.getInt(sExecutionPhaseAttribute));
}

}  // namespace popart
