// Training with random ops in called subgraphs: each Call (aiGraphcore.call) whose callee draws
// random numbers (Dropout, RandomUniform, ...; through nested Calls too) is replaced by a copy of
// the callee's ops in the main graph before autodiff. A Call's gradient is computed from a copy of
// its body that the backward pass runs again; a random op there would draw a second time, so the
// backward pass's dropout mask would not be the forward pass's. Inlined, the forward ops are
// differentiated directly: the gradient reads the forward mask, and two calls of one subgraph
// draw independently (as PopART's seed modifiers make them). The Call's output ids are kept
// (anchors name them). A callee holding other control flow (If, Loop, Scan) stays a Call.
#pragma once

namespace popart {

class Ir;

/// Returns the number of Calls inlined (none outside training).
int inlineCallsDrawingRandomNumbers(Ir& ir);

}  // namespace popart
