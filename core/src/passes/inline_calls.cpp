// Calls whose callees draw random numbers, inlined for training (passes/inline_calls.hpp).
#include "passes/inline_calls.hpp"

#include "ir/ir.hpp"
#include "ir/placement.hpp"
#include "ops/graph_editor.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace {

/// Whether `g`'s ops are plain ops and Calls of such graphs (what GraphEditor::inlineGraph copies).
bool inlinable(const Graph& g) {
  for (const auto& kv : g.ops()) {
    const Op& op = *kv.second;
    if (op.subgraphs.empty()) continue;
    if (op.kind() != OpKind::GcCall || !inlinable(*op.subgraphs.at(0))) return false;
  }
  return true;
}

/// Adds the callee's ops with the Call's placement, named after the Call.
class CallInliner : public GraphEditor {
 public:
  explicit CallInliner(const Op& call) : GraphEditor(call.graph(), call.name()) { copyPlacement(call, placement_); }
};

void inlineCall(Op& call) {
  Graph& g = call.graph();
  CallInliner e(call);
  std::vector<Tensor*> args;
  for (int i = 0; i < call.numFormalInputs; ++i) args.push_back(call.input(i));
  const std::vector<Tensor*> outs = e.inlineGraph(*call.subgraphs.at(0), args, call.describe());
  // The Call's outputs keep their ids: an Identity from each body output writes them.
  std::vector<Tensor*> callOuts(call.outputs().begin(), call.outputs().end());
  const std::string name = call.name();
  Attributes placement;
  copyPlacement(call, placement);
  g.removeOp(&call);
  for (size_t o = 0; o < callOuts.size(); ++o) {
    if (!callOuts[o]) continue;
    Op& id = g.addOp(opDef(OpKind::Identity), name + "/output", 13);
    id.attrs = placement;
    id.connectInput(0, outs.at(o));
    id.connectOutput(0, callOuts[o]);
    id.setup();
  }
}

}  // namespace

int inlineCallsDrawingRandomNumbers(Ir& ir) {
  if (!ir.isTraining()) return 0;
  Graph& g = ir.mainGraph();
  int n = 0;
  for (Op* op : g.topologicalOrder()) {
    if (op->kind() != OpKind::GcCall) continue;
    const Graph& callee = *op->subgraphs.at(0);
    if (!drawsRandomNumbers(callee) || !inlinable(callee)) continue;
    logging::ir::debug(
        "Inlining {}: its callee draws random numbers, and its gradient must read the forward pass's draws",
        op->describe());
    inlineCall(*op);
    ++n;
  }
  if (n > 0) logging::ir::info("{} Call(s) whose callees draw random numbers inlined for training", n);
  return n;
}

}  // namespace popart
