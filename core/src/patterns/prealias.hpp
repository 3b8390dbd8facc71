// PopART's pre-alias patterns that rewrite the IR here (docs/patterns.md lists each one).
#pragma once

#include <map>
#include <string>

namespace popart {

class Ir;

/// Applies the enabled pre-alias patterns to the main graph, in PopART's order, until none
/// applies any more (a fixed point). Returns how often each pattern rewrote the graph.
std::map<std::string, int> applyPreAliasPatterns(Ir& ir);

}  // namespace popart
