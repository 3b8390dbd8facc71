// Graph rewrites applied while a session prepares its IR.
#pragma once

namespace popart {

class Ir;

/// Applies the enabled patterns (and, for inference, the CPU-friendly fusions) to the main graph.
void applyPatterns(Ir& ir);

}  // namespace popart
