// Graphviz .dot files of the IR at PopART's checkpoints (SessionOptions::dotChecks, logDir,
// firstDotOp / finalDotOp / dotOpNames / separateCallOpPdfs, and the POPART_DOT_CHECKS
// environment variable, colon-separated). docs/session-options.md lists where each checkpoint
// falls in this runtime's pipeline.
#pragma once

#include <set>
#include <string>

namespace popart {

class Ir;

namespace passes {

/// The checkpoints asked for: the options' dotChecks and POPART_DOT_CHECKS, upper-cased.
std::set<std::string> dotChecks(const Ir& ir);

/// Writes `<logDir>/<check>_<graph>.dot` (graph "r" for the main graph, a subgraph's name, or
/// "all" when separateCallOpPdfs is off) when `check` (or ALL) was asked for.
void dotCheckpoint(const Ir& ir, const std::string& check);

}  // namespace passes
}  // namespace popart
