// The prepare pipeline (passes/prepare.hpp).
#include "passes/prepare.hpp"

#include "optimizers/training_graph.hpp"
#include "passes/dot_checks.hpp"
#include "patterns/inplace.hpp"
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
  // The patterns run once, after autodiff: the graph after them (Fwd1) is the one before
  // in-placing (PreAlias).
  dotCheckpoint(ir, "Fwd1");
  dotCheckpoint(ir, "PreAlias");
  ir.prune();
  ir.updateSchedule();
  // After the schedule: in-placing needs to know which readers of a buffer run last.
  if (applyInplace(ir) > 0) ir.updateSchedule();
  dotCheckpoint(ir, "Final");
  logging::ir::info("Ir prepared: {} ops, {} tensors", ir.mainGraph().numOps(), ir.mainGraph().tensors().size());
}

}  // namespace passes
}  // namespace popart
