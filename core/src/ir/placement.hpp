// The placement annotations of an op (virtual graph, pipeline stage, execution phase) and
// PopART's execution-phase rules: phased execution is on with VirtualGraphMode::ExecutionPhases
// and more than one phase; phase p runs on virtual graph p % stages; the backward op of a forward
// op in phase p runs in phase 2 * phases - 2 - p (docs/ipu-model.md, "Execution phases").
#pragma once

#include <cstdint>

#include "common/attributes.hpp"
#include "popart/names.hpp"
#include "popart/sessionoptions.hpp"

namespace popart {

class Op;

/// The annotations that place an op, in the order PopART's IR lists them.
inline constexpr const char* kPlacementAttributes[] = {sVirtualGraphAttribute, sPipelineStageAttribute,
                                                       sExecutionPhaseAttribute};

/// Sets on `to` every placement annotation `from` has.
void copyPlacement(const Op& from, Attributes& to);

/// Whether the options ask for phased execution (ExecutionPhases mode and phases > 1).
bool phasedExecution(const SessionOptions& o);

/// The op's execution phase, -1 without one.
int64_t executionPhaseOf(const Op& op);

/// Sets the execution phase `phase` on `a` with its virtual graph, phase % stages.
void setExecutionPhase(const SessionOptions& o, Attributes& a, int64_t phase);

/// With phased execution, moves an op's annotations (copied from its forward op) to the backward
/// pass: phase p becomes 2 * phases - 2 - p, on that phase's virtual graph. Else does nothing.
void toBackwardPhase(const SessionOptions& o, Attributes& a);

}  // namespace popart
