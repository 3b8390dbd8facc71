#include "patterns/pattern_util.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "ir/graph.hpp"
#include "ir/op_def.hpp"
#include "ir/placement.hpp"
#include "popart/names.hpp"

namespace popart {
namespace patterns {

bool samePlacement(const Op& a, const Op& b) {
  for (const char* k : kPlacementAttributes) {
    if (a.attrs.has(k) != b.attrs.has(k)) return false;
    if (a.attrs.has(k) && a.attrs.getInt(k) != b.attrs.getInt(k)) return false;
  }
  return true;
}

bool isKept(const Ir& ir, const Tensor* t) {
  if (ir.dataFlow().isAnchored(t->id)) return true;
  const auto& outs = t->graph->outputIds;
  return std::find(outs.begin(), outs.end(), t->id) != outs.end();
}

void rewire(Tensor* from, Tensor* to) {
  const std::vector<Op*> consumers = from->consumers;
  for (Op* c : consumers) {
    for (int i = 0; i < c->numInputs(); ++i) {
      if (c->hasInput(i) && c->input(i) == from) c->connectInput(i, to);
    }
  }
}

bool applies(const Ir& ir, const Op& op, const std::string& pattern) {
  if (!ir.patterns().isPatternEnabled(pattern)) return false;
  if (!op.attrs.has(sExcludePatternsAttribute)) return true;
  const auto excluded = op.attrs.getStrings(sExcludePatternsAttribute);
  return std::find(excluded.begin(), excluded.end(), pattern) == excluded.end();
}

Op* soleConsumer(const Tensor* t) {
  if (!t || t->consumers.size() != 1) return nullptr;
  return t->consumers[0];
}

Op& replaceOp(Graph& g, Op* old, OpKind kind, int opset, const Attributes& attrs, const std::vector<Tensor*>& inputs,
              const std::vector<Tensor*>& outputs) {
  const OpDef& def = opDef(kind);
  const std::string name = old->name();
  Attributes merged = attrs;
  for (const auto& kv : old->attrs.all()) {
    if (kv.first.rfind("__", 0) == 0 && !merged.has(kv.first)) merged.set(kv.first, kv.second);
  }
  const std::vector<Tensor*> outs = outputs.empty() ? old->outputs() : outputs;
  const std::vector<Op*> after = old->after;
  const OpId rank = old->scheduleRank;
  std::vector<Op*> followers;  // ops that had to run after the old one follow the new one
  for (const auto& kv : g.ops()) {
    const auto& a = kv.second->after;
    if (std::find(a.begin(), a.end(), old) != a.end()) followers.push_back(kv.second.get());
  }
  g.removeOp(old);
  Op& op = g.addOp(def, name, def.domain == "ai.onnx" ? opset : 1);
  op.attrs = std::move(merged);
  op.after = after;
  op.scheduleRank = rank;
  for (Op* f : followers) f->after.push_back(&op);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]) op.connectInput(static_cast<int>(i), inputs[i]);
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i]) continue;
    if (def.maxOutputs < 0 || static_cast<int>(i) < def.maxOutputs)
      op.connectOutput(static_cast<int>(i), outs[i]);
    else
      g.removeTensor(outs[i]->id);  // an output the new op does not have (read by nobody: checked by the caller)
  }
  op.setup();
  return op;
}

Tensor* addConst(Graph& g, const std::string& base, const TensorData& data) {
  Tensor& t = g.addTensor(g.uniqueTensorId(base), TensorKind::Const, data.info());
  t.data = data;
  return &t;
}

void keepUpdatesAfterReaders(Graph& g) {
  std::map<const Op*, std::vector<Op*>> followers;  // from `after` constraints
  for (const auto& kv : g.ops()) {
    for (Op* first : kv.second->after) followers[first].push_back(kv.second.get());
  }
  for (const auto& kv : g.ops()) {
    Op* update = kv.second.get();
    if (!update->def().sideEffect || !update->hasInput(0) || update->input(0)->kind != TensorKind::Variable) continue;
    // Ops that run after the update (reading what it writes, or ordered after it) stay there.
    std::set<const Op*> later{update};
    std::vector<const Op*> work{update};
    while (!work.empty()) {
      const Op* op = work.back();
      work.pop_back();
      std::vector<Op*> next = followers[op];
      for (const Tensor* t : op->outputs()) {
        if (t) next.insert(next.end(), t->consumers.begin(), t->consumers.end());
      }
      for (Op* n : next) {
        if (later.insert(n).second) work.push_back(n);
      }
    }
    for (Op* c : update->input(0)->consumers) {
      if (later.count(c) || std::find(update->after.begin(), update->after.end(), c) != update->after.end()) continue;
      update->after.push_back(c);
      followers[c].push_back(update);
    }
  }
}

}  // namespace patterns
}  // namespace popart
