// The prepare pipeline (passes/prepare.hpp).
#include "passes/prepare.hpp"

#include "common/debug_info.hpp"
#include "ir/ir.hpp"
#include "optimizers/training_graph.hpp"
#include "passes/auto_virtual_graph.hpp"
#include "passes/dot_checks.hpp"
#include "passes/execution_phases.hpp"
#include "passes/gradient_op.hpp"
#include "passes/inline_calls.hpp"
#include "passes/recompute.hpp"
#include "patterns/inplace.hpp"
#include "patterns/patterns_apply.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace passes {
namespace {

/// With initializePoplarDebugInfo open: one context per op of the prepared IR (layer "popart",
/// PopART's fields), under the Builder's context of the node it came from (`__debug_info_id`).
void recordDebugInfo(const Ir& ir) {
  std::vector<const Graph*> graphs{&ir.mainGraph()};
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    for (const Op* op : graphs[gi]->topologicalOrder()) {
      std::map<std::string, std::string> attrs;
      int64_t parent = -1;
      for (const auto& kv : op->attrs.all()) {
        if (kv.first == sDebugInfoId) {
          if (const auto* i = std::get_if<int64_t>(&kv.second)) parent = *i;
        } else if (kv.first.rfind("__", 0) != 0) {
          attrs[kv.first] = attrValueText(kv.second);
        }
      }
      std::vector<TensorId> ins, outs;
      for (const Tensor* t : op->inputs()) ins.push_back(t ? t->id : "");
      for (const Tensor* t : op->outputs()) outs.push_back(t ? t->id : "");
      debuginfo::add("popart", op->name(), parent,
                     {{"category", std::string("op")},
                      {"opid", op->domain() + "." + op->type() + ":" + std::to_string(op->opset())},
                      {"graph", graphs[gi] == &ir.mainGraph() ? std::string("main") : std::string("subgraph")},
                      {"inputs", ins},
                      {"outputs", outs},
                      {"attributes", attrs}});
      for (const Graph* sub : op->subgraphs) graphs.push_back(sub);
    }
  }
}

}  // namespace

void prepare(Ir& ir, const IrBundle& b) {
  ir.load(b);
  // ONNX's Gradient nodes: their backward passes, built before anything else sees the graph.
  expandGradientOps(ir);
  // Training: Calls whose callees draw random numbers become their callees' ops, so that their
  // gradients read the forward pass's draws (passes/inline_calls.hpp).
  inlineCallsDrawingRandomNumbers(ir);
  // Phased execution: the forward ops' phases, before the gradient ops mirror them.
  assignForwardPhases(ir);
  dotCheckpoint(ir, "Fwd0");
  // VirtualGraphMode::Auto: PopART splits the forward graph before the backward pass, whose ops
  // take their forward op's virtual graph.
  AutoVirtualGraph autoVirtualGraph(ir, b.numIpus);
  if (ir.isTraining()) {
    if (!b.optimizer) throw internal_error("a training Ir needs an optimizer");
    addTrainingGraph(ir, b.loss, *b.optimizer);
    dotCheckpoint(ir, "Bwd0");
  }
  autoVirtualGraph.apply();
  ir.validateAnchors();
  applyPatterns(ir);
  // The patterns run once, after autodiff: the graph after them (Fwd1) is the one before
  // in-placing (PreAlias).
  dotCheckpoint(ir, "Fwd1");
  dotCheckpoint(ir, "PreAlias");
  ir.prune();
  if (ir.isTraining()) {
    // On the pruned graph: the forward ops get their RecomputeType, and those marked Recompute
    // are cloned into the backward pass (passes/recompute.hpp).
    annotateRecomputation(ir, b.loss);
    applyRecomputation(ir, b.loss);
  }
  placeRemainingPhases(ir);
  ir.updateSchedule();
  // After the schedule: in-placing needs to know which readers of a buffer run last.
  if (applyInplace(ir) > 0) ir.updateSchedule();
  autoVirtualGraph.placeRemaining();
  dotCheckpoint(ir, "Final");
  if (debuginfo::recording()) recordDebugInfo(ir);
  logging::ir::info("Ir prepared: {} ops, {} tensors", ir.mainGraph().numOps(), ir.mainGraph().tensors().size());
}

}  // namespace passes
}  // namespace popart
