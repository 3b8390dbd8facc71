// Recomputation: the annotation (autoRecomputation) and the clones (passes/recompute.hpp).
#include "passes/recompute.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ir/ir.hpp"
#include "ir/placement.hpp"
#include "popart/builder.hpp"  // RecomputeType
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/optimizer.hpp"

namespace popart {
namespace recompute {
namespace {

RecomputeType typeOf(const Op& op) {
  return static_cast<RecomputeType>(op.attrs.getInt(sRecomputeOutputAttribute, 0));
}
void setType(Op& op, RecomputeType t) {
  op.attrs.set(sRecomputeOutputAttribute, static_cast<int64_t>(t));
}
bool userMarked(const Op& op) {
  return typeOf(op) != RecomputeType::Undefined;
}

/// Whether running the op a second time gives the same outputs and does nothing else: no side
/// effect, no random draw (the ops that are not foldable), no subgraph.
bool canRecompute(const Op& op) {
  return !op.def().sideEffect && op.def().foldable && op.subgraphs.empty();
}

/// PopART's Op::isNorm: the normalizations, whose outputs are large and cheap to recompute.
bool isNorm(const Op& op) {
  switch (op.kind()) {
    case OpKind::BatchNormalization:
    case OpKind::GcBatchNormalization:
    case OpKind::GcGroupNormalization:
    case OpKind::InstanceNormalization:
    case OpKind::LayerNormalization:
      return true;
    default:
      return false;
  }
}

int64_t memOfOutputs(const Op& op) {
  int64_t m = 0;
  for (const Tensor* t : op.outputs()) {
    if (t) m += t->info.nbytes();
  }
  return m;
}

/// The forward ops: those on a path to the loss (the op producing it included), in schedule order.
struct Forward {
  std::vector<Op*> order;
  std::set<const Op*> ops;
  Op* lossOp = nullptr;
};

Forward forwardOps(const Graph& g, const TensorId& loss) {
  Forward f;
  const Tensor* lt = g.tensor(loss);
  if (!lt || !lt->producer) return f;
  f.lossOp = lt->producer;
  std::vector<const Op*> work{lt->producer};
  f.ops.insert(lt->producer);
  while (!work.empty()) {
    const Op* op = work.back();
    work.pop_back();
    for (const Tensor* t : op->inputs()) {
      if (t && t->producer && f.ops.insert(t->producer).second) work.push_back(t->producer);
    }
  }
  for (Op* op : g.topologicalOrder()) {
    if (f.ops.count(op)) f.order.push_back(op);
  }
  return f;
}

/// Intervals [begin, end) covering 0 .. n - 1 whose sizes decrease from about
/// 0.75 * (sqrt(2n) - 1) to 1 (PopART's getDecreasingIntervals): Standard keeps one live set
/// per interval, so checkpoints are sparse early in the forward pass and dense near the loss.
std::vector<std::pair<int, int>> decreasingIntervals(int n) {
  if (n <= 1) return {{0, n}};
  int k = static_cast<int>(std::sqrt(2.0 * static_cast<double>(n))) - 1;
  k = static_cast<int>(static_cast<float>(k) * 0.75f);
  std::vector<std::pair<int, int>> v;
  int begin = 0;
  for (int size = k; size > 0 && begin + size <= n; --size) {
    v.push_back({begin, begin + size});
    begin += size;
  }
  for (; begin < n; ++begin) v.push_back({begin, begin + 1});
  return v;
}

/// Standard: the forward schedule is cut into decreasing intervals; in each, the live set (the
/// ops whose outputs a later forward op still reads, and the op just run) of the lowest memory is
/// checkpointed. The other forward ops are recomputed.
void annotateStandard(const Forward& f) {
  const int n = static_cast<int>(f.order.size());
  if (n == 0) return;
  std::map<const Op*, int> pos;
  for (int i = 0; i < n; ++i) pos[f.order[static_cast<size_t>(i)]] = i;
  // lastUse[j]: the position of the last forward reader of op j's outputs (j when none).
  std::vector<int> lastUse(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) {
    int last = j;
    for (const Tensor* t : f.order[static_cast<size_t>(j)]->outputs()) {
      if (!t) continue;
      for (const Op* c : t->consumers) {
        auto it = pos.find(c);
        if (it != pos.end()) last = std::max(last, it->second);
      }
    }
    lastUse[static_cast<size_t>(j)] = last;
  }
  auto liveSet = [&](int i) {
    std::vector<const Op*> s;
    for (int j = 0; j < i; ++j) {
      if (lastUse[static_cast<size_t>(j)] > i) s.push_back(f.order[static_cast<size_t>(j)]);
    }
    s.push_back(f.order[static_cast<size_t>(i)]);
    return s;
  };
  std::set<const Op*> checkpoints;
  for (const auto& [begin, end] : decreasingIntervals(n)) {
    int best = begin;
    int64_t lowest = std::numeric_limits<int64_t>::max();
    for (int i = begin; i < end; ++i) {
      int64_t mem = 0;
      for (const Op* op : liveSet(i)) mem += memOfOutputs(*op);
      if (mem < lowest) {
        lowest = mem;
        best = i;
      }
    }
    for (const Op* op : liveSet(best)) checkpoints.insert(op);
  }
  for (Op* op : f.order) {
    if (!checkpoints.count(op) && !userMarked(*op) && canRecompute(*op)) setType(*op, RecomputeType::Recompute);
  }
}

/// NormOnly: the forward normalizations are recomputed, every other op is a checkpoint.
void annotateNormOnly(Graph& g, const Forward& f) {
  for (const auto& kv : g.ops()) {
    Op& op = *kv.second;
    if (userMarked(op)) continue;
    const bool recompute = f.ops.count(&op) && isNorm(op) && canRecompute(op);
    setType(op, recompute ? RecomputeType::Recompute : RecomputeType::Checkpoint);
  }
}

/// RecomputeAll: every forward op is recomputed, then the ops between the last checkpoints and
/// the loss are checkpoints again (recomputing them would run them twice in a row for nothing).
void annotateRecomputeAll(const Forward& f) {
  for (Op* op : f.order) {
    if (!userMarked(*op) && canRecompute(*op)) setType(*op, RecomputeType::Recompute);
  }
  if (!f.lossOp) return;
  std::vector<Op*> work;
  auto pushProducers = [&](const Op* op) {
    for (const Tensor* t : op->inputs()) {
      if (t && t->producer) work.push_back(t->producer);
    }
  };
  pushProducers(f.lossOp);
  while (!work.empty()) {
    Op* op = work.back();
    work.pop_back();
    if (typeOf(*op) != RecomputeType::Recompute) continue;
    setType(*op, RecomputeType::Checkpoint);
    pushProducers(op);
  }
}

/// The pipeline stage of an op: its pipelineStage annotation, else its virtual graph (a stage per
/// IPU, as the IPU model places them), else -1.
int64_t stageOf(const Op& op) {
  if (op.attrs.has(sPipelineStageAttribute)) return op.attrs.getInt(sPipelineStageAttribute);
  if (op.attrs.has(sVirtualGraphAttribute)) return op.attrs.getInt(sVirtualGraphAttribute);
  return -1;
}

/// Pipelining: every forward op is recomputed except those whose outputs are copied to a later
/// stage. With `finalStage` (RecomputationType::Pipeline: PopART's setFinalFwdStageRecomputation),
/// the ops of the loss's stage downstream of its topologically last checkpoints (user
/// checkpoints, or the tensors copied in from the previous stage) are checkpoints again.
void annotatePipeline(const Forward& f, bool finalStage) {
  for (Op* op : f.order) {
    if (userMarked(*op) || !canRecompute(*op)) continue;
    bool copied = false;
    for (const Tensor* t : op->outputs()) {
      if (!t) continue;
      for (const Op* c : t->consumers) copied = copied || (f.ops.count(c) && stageOf(*c) != stageOf(*op));
    }
    setType(*op, copied ? RecomputeType::Checkpoint : RecomputeType::Recompute);
  }
  if (!finalStage || !f.lossOp) return;
  const int64_t last = stageOf(*f.lossOp);
  auto inLast = [&](const Op* op) { return f.ops.count(op) && stageOf(*op) == last; };
  // Frontier items: ops of the last stage, or a tensor copied in (its copy, a checkpoint).
  std::map<const Op*, std::set<const void*>> paths;  // the items upstream of an op in the stage
  std::vector<const void*> frontier;
  std::set<const void*> copies;
  for (Op* op : f.order) {
    if (!inLast(op)) continue;
    std::set<const void*>& path = paths[op];
    for (const Tensor* t : op->inputs()) {
      if (!t || !t->producer || !f.ops.count(t->producer) || stageOf(*t->producer) == last) continue;
      if (copies.insert(t).second) frontier.push_back(t);
      path.insert(t);
    }
    path.insert(op);
    for (const Tensor* t : op->outputs()) {
      if (!t) continue;
      for (const Op* c : t->consumers) {
        if (inLast(c)) paths[c].insert(path.begin(), path.end());
      }
    }
    if (typeOf(*op) == RecomputeType::Checkpoint) {
      frontier.erase(std::remove_if(frontier.begin(), frontier.end(), [&](const void* x) { return path.count(x); }),
                     frontier.end());
      frontier.push_back(op);
    }
  }
  // Everything of the stage downstream of the frontier becomes a checkpoint.
  std::set<const void*> visited(frontier.begin(), frontier.end());
  std::vector<const Op*> work;
  for (const void* x : frontier) {
    if (copies.count(x)) {
      for (const Op* c : static_cast<const Tensor*>(x)->consumers) {
        if (inLast(c) && visited.insert(c).second) work.push_back(c);
      }
    } else {
      work.push_back(static_cast<const Op*>(x));
    }
  }
  while (!work.empty()) {
    Op* op = const_cast<Op*>(work.back());
    work.pop_back();
    setType(*op, RecomputeType::Checkpoint);
    for (const Tensor* t : op->outputs()) {
      if (!t) continue;
      for (const Op* c : t->consumers) {
        if (inLast(c) && visited.insert(c).second) work.push_back(c);
      }
    }
  }
}

/// The tensors that start the backward pass: the loss gradient's seed (a constant, or the loss
/// scaling Variable when the loss scaling is not const).
std::vector<const Tensor*> backwardSeeds(const Graph& g, const TensorId& loss) {
  std::vector<const Tensor*> seeds;
  const Tensor* lt = g.tensor(loss);
  if (const Tensor* s = g.tensor(loss + "/grad/seed")) seeds.push_back(s);
  if (lt) {
    if (const Tensor* s = g.tensor(Optimizer::getLossScalingTensorId(lt->info.dataType()))) seeds.push_back(s);
  }
  return seeds;
}

/// The backward pass. `dependOnLossGrad` (L): the backward ops that depend on the loss gradient
/// (descendants of its seed). `all` (B): those of L and the ops feeding them (parts of gradients
/// computed from forward tensors only, such as a transposed activation).
struct BackwardOps {
  std::set<const Op*> dependOnLossGrad, all;
};

BackwardOps backwardOps(const Graph& g, const Forward& f, const TensorId& loss, const std::vector<Op*>& order) {
  BackwardOps b;
  std::set<const Op*>& lset = b.dependOnLossGrad;
  std::vector<const Tensor*> work = backwardSeeds(g, loss);
  if (work.empty()) {  // no seed found: every op that is not forward counts
    for (Op* op : order) {
      if (!f.ops.count(op)) lset.insert(op);
    }
  }
  while (!work.empty()) {
    const Tensor* t = work.back();
    work.pop_back();
    for (const Op* c : t->consumers) {
      if (f.ops.count(c) || !lset.insert(c).second) continue;
      for (const Tensor* out : c->outputs()) {
        if (out) work.push_back(out);
      }
    }
  }
  std::vector<const Op*> up(lset.begin(), lset.end());
  b.all = lset;
  while (!up.empty()) {
    const Op* op = up.back();
    up.pop_back();
    for (const Tensor* t : op->inputs()) {
      if (t && t->producer && !f.ops.count(t->producer) && b.all.insert(t->producer).second) up.push_back(t->producer);
    }
  }
  return b;
}

/// Orders each clone: after the backward op (of L) that came just before the first op of L it
/// feeds (directly or through other clones and backward ops) in the schedule without clones
/// (`order0`), and before any update of a weight it reads.
void scheduleClones(Graph& g, const Forward& f, const std::set<const Op*>& lset, const std::vector<Op*>& order0,
                    const std::vector<Op*>& clones) {
  std::map<const Op*, int> pos0;
  for (size_t i = 0; i < order0.size(); ++i) pos0[order0[i]] = static_cast<int>(i);
  constexpr int kNever = std::numeric_limits<int>::max();
  std::map<const Op*, int> target;  // the first position in order0 the op's outputs are needed by
  {
    const std::vector<Op*> order1 = g.topologicalOrder();
    for (auto it = order1.rbegin(); it != order1.rend(); ++it) {
      const Op* op = *it;
      int p = lset.count(op) ? pos0.at(op) : kNever;
      for (const Tensor* t : op->outputs()) {
        if (!t) continue;
        for (const Op* c : t->consumers) p = std::min(p, target.count(c) ? target.at(c) : kNever);
      }
      target[op] = p;
    }
  }
  std::vector<std::pair<int, Op*>> lseq;
  for (const Op* op : lset) lseq.push_back({pos0.at(op), const_cast<Op*>(op)});
  std::sort(lseq.begin(), lseq.end());
  for (Op* c : clones) {
    int p = target.at(c);
    std::vector<Op*> updates;
    for (const Tensor* t : c->inputs()) {
      if (!t || t->kind != TensorKind::Variable) continue;
      for (Op* u : t->consumers) {
        if (u->def().sideEffect && pos0.count(u)) {
          updates.push_back(u);
          p = std::min(p, pos0.at(u));
        }
      }
    }
    auto it =
        std::lower_bound(lseq.begin(), lseq.end(), p, [](const std::pair<int, Op*>& a, int v) { return a.first < v; });
    Op* anchor = it == lseq.begin() ? f.lossOp : std::prev(it)->second;
    if (anchor) c->after.push_back(anchor);
    // Once released, the clone runs before the ops created after the one that needs it (else the
    // backward ops ready meanwhile, such as transposed weights, would all run first).
    if (p != kNever) c->scheduleRank = order0[static_cast<size_t>(p)]->id();
    for (Op* u : updates) u->after.push_back(c);
  }
}

}  // namespace
}  // namespace recompute

void annotateRecomputation(Ir& ir, const TensorId& loss) {
  using namespace recompute;
  const SessionOptions& o = ir.options();
  const RecomputationType type = o.autoRecomputation;
  if (type == RecomputationType::None) return;
  Graph& g = ir.mainGraph();
  const Forward f = forwardOps(g, loss);
  if (o.enablePipelining) {
    logging::ir::info("Auto-annotating ops for recomputation: {} with pipelining", static_cast<int>(type));
    annotatePipeline(f, type == RecomputationType::Pipeline);
    return;
  }
  switch (type) {
    case RecomputationType::Standard:
      annotateStandard(f);
      break;
    case RecomputationType::NormOnly:
      annotateNormOnly(g, f);
      break;
    case RecomputationType::RecomputeAll:
      annotateRecomputeAll(f);
      break;
    case RecomputationType::Pipeline:
      // PopART's message (its RecomputationType::Pipeline needs pipelining).
      throw error("Invalid RecomputationType::Pipeline in autoAnnotate when using implicit pipelining.");
    default:
      throw error("Invalid RecomputationType in autoAnnotate");
  }
}

int applyRecomputation(Ir& ir, const TensorId& loss) {
  using namespace recompute;
  Graph& g = ir.mainGraph();
  const Forward f = forwardOps(g, loss);
  std::set<const Op*> recomputed;
  for (Op* op : f.order) {
    if (typeOf(*op) != RecomputeType::Recompute) continue;
    if (canRecompute(*op))
      recomputed.insert(op);
    else
      logging::ir::warn(
          "{} is marked Recompute but is kept: it has a side effect, draws random values or has "
          "subgraphs",
          op->describe());
  }
  if (recomputed.empty()) return 0;

  const std::vector<Op*> order0 = g.topologicalOrder();

  const BackwardOps bw = backwardOps(g, f, loss, order0);

  std::set<TensorId> kept(ir.dataFlow().anchors().begin(), ir.dataFlow().anchors().end());
  kept.insert(g.outputIds.begin(), g.outputIds.end());
  auto needsClone = [&](const Tensor* t) {
    return t && t->producer && recomputed.count(t->producer) && !kept.count(t->id);
  };

  std::map<const Op*, Op*> cloneOf;
  std::vector<Op*> clones;
  std::function<Tensor*(Tensor*)> cloneOut;
  std::function<Op*(Op*)> cloneOp = [&](Op* fwd) -> Op* {
    auto it = cloneOf.find(fwd);
    if (it != cloneOf.end()) return it->second;
    Op& c = g.addOp(fwd->def(), fwd->name() + "/recompute", fwd->opset());
    c.attrs = fwd->attrs;
    c.attrs.erase(sPipelineStageAttribute);  // it runs with the backward pass
    toBackwardPhase(ir.options(), c.attrs);
    setType(c, RecomputeType::Recomputed);
    c.numFormalInputs = fwd->numFormalInputs;
    for (int i = 0; i < fwd->numInputs(); ++i) {
      Tensor* t = fwd->hasInput(i) ? fwd->input(i) : nullptr;
      c.connectInput(i, needsClone(t) ? cloneOut(t) : t);
    }
    for (int o = 0; o < fwd->numOutputs(); ++o) {
      Tensor* t = fwd->hasOutput(o) ? fwd->output(o) : nullptr;
      c.connectOutput(o,
                      t ? &g.addTensor(g.uniqueTensorId(t->id + "/recompute"), TensorKind::ActGrad, t->info) : nullptr);
    }
    c.setup();
    cloneOf[fwd] = &c;
    clones.push_back(&c);
    return &c;
  };
  cloneOut = [&](Tensor* t) -> Tensor* {
    Op* c = cloneOp(t->producer);
    for (int o = 0; o < t->producer->numOutputs(); ++o) {
      if (t->producer->hasOutput(o) && t->producer->output(o) == t) return c->output(o);
    }
    throw internal_error("recompute: '{}' is not an output of its producer", t->id);
  };

  // The backward readers read the clones.
  for (Op* op : order0) {
    if (!bw.all.count(op)) continue;
    for (int i = 0; i < op->numInputs(); ++i) {
      Tensor* t = op->hasInput(i) ? op->input(i) : nullptr;
      if (needsClone(t)) op->connectInput(i, cloneOut(t));
    }
  }
  if (clones.empty()) return 0;

  scheduleClones(g, f, bw.dependOnLossGrad, order0, clones);
  logging::ir::info("Recomputation: {} forward ops recomputed in the backward pass ({} marked Recompute)",
                    clones.size(), recomputed.size());
  return static_cast<int>(clones.size());
}

}  // namespace popart
