// The prepare pipeline (passes/prepare.hpp).
#include "passes/prepare.hpp"

#include "optimizers/training_graph.hpp"
#include "passes/dot_checks.hpp"
#include "patterns/patterns_apply.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace passes {

void prepare(Ir& ir, const IrBundle& b) {
  ir.load(b);
  dotCheckpoint(ir, "Fwd0");
  if (ir.isTraining()) {
    if (!b.optimizer) throw internal_error("a training Ir needs an optimizer");
    addTrainingGraph(ir, b.loss, *b.optimizer);
    dotCheckpoint(ir, "Bwd0");
  }
  ir.validateAnchors();
  applyPatterns(ir);
  // The patterns run once, after autodiff, and there is no inplacing pass: the forward graph
  // after its patterns (Fwd1) and the graph before inplacing (PreAlias) are this one.
  dotCheckpoint(ir, "Fwd1");
  dotCheckpoint(ir, "PreAlias");
  ir.prune();
  ir.updateSchedule();
  dotCheckpoint(ir, "Final");
  logging::ir::info("Ir prepared: {} ops, {} tensors", ir.mainGraph().numOps(), ir.mainGraph().tensors().size());
}

}  // namespace passes
}  // namespace popart
