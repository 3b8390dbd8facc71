// Phased execution's placement (passes/execution_phases.hpp).
#include "passes/execution_phases.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/ir.hpp"
#include "ir/placement.hpp"
#include "optimizers/training_graph.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace passes {
namespace {

/// PopART's cost of an op for the split: the bytes of the weights and constants it reads.
double phaseSplitCost(const Op& op) {
  double bytes = 0;
  for (const Tensor* t : op.inputs())
    if (t && (t->kind == TensorKind::Variable || t->kind == TensorKind::Const) &&
        t->info.dataType() != DataType::STRING)
      bytes += static_cast<double>(t->info.nbytes());
  return bytes;
}

/// The latest phase among the producers of the op's inputs, -1 when none has one.
int64_t latestProducerPhase(const Op& op) {
  int64_t p = -1;
  for (const Tensor* t : op.inputs())
    if (t && t->producer) p = std::max(p, executionPhaseOf(*t->producer));
  return p;
}

/// Raises the op's phase to its producers' latest (an op never runs before its inputs exist).
void sanitizePhase(const SessionOptions& o, Op& op) {
  const int64_t p = latestProducerPhase(op);
  if (p > executionPhaseOf(op)) setExecutionPhase(o, op.attrs, p);
}

/// The phase an op the IR added inherits (placeRemainingPhases), -1 when it cannot tell yet.
int64_t inheritedPhase(const Op& op) {
  int64_t p = latestProducerPhase(op);
  if (p >= 0) return p;
  for (const Tensor* t : op.inputs())
    for (const Op* c : t ? t->consumers : std::vector<Op*>{})
      if (c != &op) p = std::max(p, executionPhaseOf(*c));
  if (p >= 0) return p;
  for (const Tensor* t : op.outputs())
    for (const Op* c : t ? t->consumers : std::vector<Op*>{})
      if (executionPhaseOf(*c) >= 0) p = p < 0 ? executionPhaseOf(*c) : std::min(p, executionPhaseOf(*c));
  return p;
}

/// One sweep of placeRemainingPhases: the ops still without a phase after it.
std::vector<Op*> inheritPhases(const SessionOptions& o, const std::vector<Op*>& order, bool& changed) {
  std::vector<Op*> missing;
  for (Op* op : order) {
    if (op->attrs.has(sExecutionPhaseAttribute)) continue;
    const int64_t p = inheritedPhase(*op);
    if (p < 0) {
      missing.push_back(op);
      continue;
    }
    setExecutionPhase(o, op->attrs, p);
    changed = true;
  }
  return missing;
}

std::string describeAll(const std::vector<Op*>& ops) {
  std::string s;
  for (const Op* op : ops) s += (s.empty() ? "" : ", ") + op->describe();
  return s;
}

}  // namespace

void assignForwardPhases(Ir& ir) {
  const SessionOptions& o = ir.options();
  if (!phasedExecution(o)) {
    // PopART's Ir::verifyExecutionPhaseSettings: without phased execution no op keeps a phase.
    for (const auto& kv : ir.mainGraph().ops()) kv.second->attrs.erase(sExecutionPhaseAttribute);
    return;
  }
  const std::vector<Op*> order = ir.mainGraph().topologicalOrder();
  double total = 0;
  for (const Op* op : order) total += phaseSplitCost(*op);
  const int64_t phases = o.executionPhaseSettings.phases;
  const double perPhase = total / static_cast<double>(phases);
  int64_t phase = 0;
  double cost = 0;
  for (Op* op : order) {
    const double c = phaseSplitCost(*op);
    if (cost > 0 && cost + c > perPhase && phase < phases - 1) {
      ++phase;
      cost = 0;
    }
    cost += c;
    const int64_t mine = op->attrs.has(sExecutionPhaseAttribute) ? executionPhaseOf(*op) : phase;
    setExecutionPhase(o, op->attrs, mine);
    sanitizePhase(o, *op);
  }
}

void placeRemainingPhases(Ir& ir) {
  const SessionOptions& o = ir.options();
  if (!phasedExecution(o)) return;
  const std::vector<Op*> order = ir.mainGraph().topologicalOrder();
  bool changed = true;
  while (changed) {
    changed = false;
    const std::vector<Op*> missing = inheritPhases(o, order, changed);
    if (!changed && !missing.empty())
      throw error("[StreamingMemory] Could not determine execution phase for {}", describeAll(missing));
  }
  for (Op* op : ir.mainGraph().topologicalOrder()) sanitizePhase(o, *op);
}

bool isOffChip(const Ir& ir, const Tensor& t) {
  const SessionOptions& o = ir.options();
  if (!phasedExecution(o)) return false;
  const TensorLocationSettings* s = nullptr;
  if (t.kind == TensorKind::ActGrad)
    s = &o.activationTensorLocationSettings;
  else if (t.kind != TensorKind::Variable)
    return false;  // constants and streamed inputs
  else if (t.id.rfind(reservedAccumPrefix(), 0) == 0)
    s = &o.accumulatorTensorLocationSettings;
  else if (isOptimizerStateTensorId(t.id))
    s = &o.optimizerStateTensorLocationSettings;
  else
    s = &o.weightTensorLocationSettings;
  return s->location.storage == TensorStorage::OffChip && t.info.nelms() >= s->minElementsForOffChip;
}

}  // namespace passes
}  // namespace popart
