// VirtualGraphMode::Auto (auto_virtual_graph.hpp). The algorithm is PopART's AutoVirtualGraph
// transform, written anew:
//  1. Regions. Each consumer of a data stream (streams in id order) starts a region; an op joins
//     the region of the op that first fed it; an op fed from two regions starts a region of its
//     own (unless the region it was in is still just that op, costless: then it moves over); an op
//     no stream reaches starts a region when it is visited. Regions are thus numbered in
//     topological order of their first op, the streams' consumers first.
//  2. Split points. Visiting a region's ops in topological order, an op after which none of the
//     region's ops is waiting for it (all of the region's data meets in it) is a split point,
//     remembered with the region's cost up to and including it.
//  3. Budgets. IPU i (1-based) may hold ops up to i/n of the total cost. The regions are placed
//     in order: a region that would go over the budget of an IPU but the last is split at the
//     split point whose cost is nearest the budget left (the next IPU takes the ops after it);
//     without such a point it is placed whole and the next region starts the next IPU. A region
//     with no cost stays on the current IPU. Fewer than n - 1 splits is an error.
// The cost of an op (PopART's costFn): the bytes of the weights and constants it reads (twice
// with gradient accumulation: each has an accumulator), and when training the bytes of its inputs
// and outputs its gradient ops read (the activations that stay live until the backward pass).
#include "passes/auto_virtual_graph.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "ir/ir.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"

namespace popart {
namespace passes {
namespace {

/// A region of the graph grown from one op (PopART's Subgraph).
struct Region {
  explicit Region(OpId first) : waiting{first} {}
  float cost = 0.0f;
  /// Ops fed by the region and not visited yet.
  std::set<OpId> waiting;
  /// Split points: the region's cost up to the op -> the op (the first op at an equal cost).
  std::map<float, OpId> splitPoints;
  /// The split points chosen: the ops after them go to the next IPU.
  std::set<OpId> cuts;
  int64_t ipu = 0;
  bool wasSplit = false;

  /// Takes the split point whose cost is nearest `target` among the two around it (the lower one
  /// only when strictly nearer); none when every point costs less than `target`.
  bool takeSplit(float target, OpId& op) {
    auto hi = splitPoints.lower_bound(target);
    if (hi == splitPoints.end()) return false;
    auto best = hi;
    if (hi != splitPoints.begin()) {
      auto lo = std::prev(hi);
      if (target - lo->first < hi->first - target) best = lo;
    }
    op = best->second;
    splitPoints.erase(best);
    return true;
  }
};

int64_t bytesOf(const Tensor* t) {
  return t->info.dataType() == DataType::STRING ? 0 : t->info.nbytes();
}

bool isWeightLike(const Op& op, int i) {
  const Tensor* t = op.input(i);
  if (t->kind != TensorKind::Variable && t->kind != TensorKind::Const) return false;
  // A constant whose value gives an output shape (Reshape's shape, Slice's starts ...) is an
  // attribute of the op in PopART, not a tensor it reads.
  return t->kind == TensorKind::Variable || i >= 32 || (op.def().shapeInputsMask & (1u << i)) == 0;
}

/// PopART's costFn. `gradOps`: the gradient ops the training graph made for `op`.
float opCost(const Op& op, const std::vector<Op*>& gradOps, float weightFactor) {
  float total = 0.0f;
  std::set<int> inSeen, outSeen;
  std::set<const Tensor*> weights;
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i) || !isWeightLike(op, i)) continue;
    if (weights.insert(op.input(i)).second) total += weightFactor * static_cast<float>(bytesOf(op.input(i)));
    inSeen.insert(i);
  }
  std::set<const Tensor*> readByGrads;
  for (const Op* g : gradOps)
    for (const Tensor* t : g->inputs())
      if (t) readByGrads.insert(t);
  for (int i = 0; i < op.numInputs(); ++i)
    if (op.hasInput(i) && readByGrads.count(op.input(i)) && inSeen.insert(i).second)
      total += static_cast<float>(bytesOf(op.input(i)));
  for (int o = 0; o < op.numOutputs(); ++o)
    if (op.hasOutput(o) && readByGrads.count(op.output(o)) && outSeen.insert(o).second)
      total += static_cast<float>(bytesOf(op.output(o)));
  return total;
}

/// 3: budgets. Each region goes to the IPU being filled; a region that would pass IPU i's budget
/// (i / ipus of the total cost) is cut at its split point nearest the budget. PopART's error when
/// fewer than ipus - 1 splits are found.
void assignIpus(std::vector<Region>& regions, int64_t ipus, float totalCost, const Graph& g) {
  // `ipu` counts the splits made so far (= the IPU being filled).
  float placedCost = 0.0f;
  int64_t ipu = 0;
  size_t r = 0;
  for (int64_t i = 1; i <= ipus; ++i) {
    const bool last = i == ipus;
    const float budget = static_cast<float>(i) / static_cast<float>(ipus) * totalCost;
    while (r < regions.size()) {
      Region& region = regions[r];
      const bool over = region.cost + placedCost > budget && region.cost > 0.0f;
      bool splitAtEnd = (region.cost + placedCost) - budget == 0.0f;
      if (over && !last) {
        OpId at = -1;
        if (region.takeSplit(budget - placedCost, at)) {
          region.cuts.insert(at);
          logging::transform::info("[AutoVirtualGraph]   Split node: {}", g.ops().at(at)->describe());
          if (!region.wasSplit) region.ipu = ipu;
          region.wasSplit = true;
          ++ipu;
          break;
        }
        splitAtEnd = true;  // no split point: the region ends this IPU
      }
      placedCost += region.cost;
      ++r;
      if (!region.wasSplit) region.ipu = ipu;
      if (splitAtEnd && !last && r != regions.size()) {
        ++ipu;
        break;
      }
    }
  }
  if (ipu != ipus - 1)
    throw error("[AutoVirtualGraph] Couldn't find enough splits for {} IPUs. Only found {}", ipus, ipu);
}

}  // namespace

AutoVirtualGraph::AutoVirtualGraph(Ir& ir, int64_t numIpus) : ir_(ir) {
  const SessionOptions& o = ir.options();
  if (o.virtualGraphMode != VirtualGraphMode::Auto) return;
  const int64_t perReplica = numIpus / std::max<int64_t>(o.getReplicationFactor(), 1);
  if (perReplica < 2 || ir.mainGraph().numOps() == 0) return;
  ipus_ = perReplica;
  forward_ = ir.mainGraph().topologicalOrder();
  // Training: the provisional id is the op's index, which its gradient ops copy (GradCtx) and so
  // name their forward op. (Auto places every op itself: PopART overwrites the user's ids.)
  if (ir.isTraining())
    for (size_t k = 0; k < forward_.size(); ++k)
      forward_[k]->attrs.set(sVirtualGraphAttribute, static_cast<int64_t>(k));
}

void AutoVirtualGraph::apply() {
  if (!active()) return;
  Graph& g = ir_.mainGraph();
  const SessionOptions& o = ir_.options();
  logging::transform::info("[AutoVirtualGraph] Auto virtual graph with {} IPUs", ipus_);

  // The forward ops still in the graph, and each one's gradient ops (by provisional id).
  std::set<const Op*> live;
  for (const auto& kv : g.ops()) live.insert(kv.second.get());
  std::vector<Op*> fwd;
  std::map<const Op*, size_t> tagOf;
  for (size_t k = 0; k < forward_.size(); ++k) {
    if (!live.count(forward_[k])) continue;
    fwd.push_back(forward_[k]);
    tagOf[forward_[k]] = k;
  }
  std::map<size_t, std::vector<Op*>> gradOps;
  if (ir_.isTraining()) {
    for (const auto& kv : g.ops()) {
      Op* op = kv.second.get();
      if (tagOf.count(op) || !op->attrs.has(sVirtualGraphAttribute)) continue;
      const int64_t tag = op->attrs.getInt(sVirtualGraphAttribute);
      if (tag >= 0 && static_cast<size_t>(tag) < forward_.size()) gradOps[static_cast<size_t>(tag)].push_back(op);
    }
  }
  const std::set<const Op*> isFwd(fwd.begin(), fwd.end());

  // 1 and 2: regions and split points.
  std::vector<Region> regions;
  std::map<OpId, size_t> regionOf;
  auto startRegion = [&](OpId first) {
    regionOf.insert({first, regions.size()});  // an op already placed keeps its region
    regions.emplace_back(first);
  };
  for (const Tensor* t : g.tensorsOfKind(TensorKind::Stream)) {
    std::vector<const Op*> readers;
    for (const Op* c : t->consumers)
      if (isFwd.count(c)) readers.push_back(c);
    std::sort(readers.begin(), readers.end(), [](const Op* a, const Op* b) { return a->id() < b->id(); });
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    for (const Op* c : readers) startRegion(c->id());
  }
  const float weightFactor = o.enableGradientAccumulation ? 2.0f : 1.0f;
  float totalCost = 0.0f;
  for (const Op* op : fwd) {
    const float cost = opCost(*op, gradOps[tagOf.at(op)], weightFactor);
    totalCost += cost;
    auto found = regionOf.find(op->id());
    if (found == regionOf.end()) {
      startRegion(op->id());
      found = regionOf.find(op->id());
    }
    const size_t r = found->second;
    regions[r].cost += cost;
    if (regions[r].waiting.erase(op->id()) && regions[r].waiting.empty()) {
      regions[r].splitPoints.insert({regions[r].cost, op->id()});
      logging::transform::trace("[AutoVirtualGraph] Split point in region {}: {} (cost {})", r, op->describe(),
                                regions[r].cost);
    }
    for (const Tensor* t : op->outputs()) {
      if (!t) continue;
      for (const Op* c : t->consumers) {
        if (!isFwd.count(c)) continue;
        auto [it, inserted] = regionOf.insert({c->id(), r});
        if (inserted || it->second == r) {
          regions[r].waiting.insert(c->id());
          continue;
        }
        Region& other = regions[it->second];
        if (other.waiting.size() == 1 && other.cost == 0.0f) {
          other.waiting.erase(c->id());  // a costless region of just this op: it moves here
          regions[r].waiting.insert(c->id());
          it->second = r;
        } else {
          it->second = regions.size();  // fed from two regions: a region of its own
          regions.emplace_back(c->id());
        }
      }
    }
  }
  logging::transform::trace("[AutoVirtualGraph] {} region(s), total cost {}", regions.size(), totalCost);

  assignIpus(regions, ipus_, totalCost, g);

  // The ids: a region's ops in topological order, the next IPU after each cut.
  std::map<size_t, int64_t> finalIpu;
  for (Op* op : fwd) {
    Region& region = regions[regionOf.at(op->id())];
    finalIpu[tagOf.at(op)] = region.ipu;
    if (region.cuts.erase(op->id())) ++region.ipu;
  }
  for (Op* op : fwd) op->attrs.set(sVirtualGraphAttribute, finalIpu.at(tagOf.at(op)));
  for (auto& [tag, ops] : gradOps)
    for (Op* op : ops) op->attrs.set(sVirtualGraphAttribute, finalIpu.count(tag) ? finalIpu.at(tag) : 0);

  if (o.enablePipelining) {
    // PopART's Pipeline transform: without pipeline stages, a stage per virtual graph.
    int64_t maxStage = -1;
    for (const Op* op : fwd) maxStage = std::max(maxStage, op->attrs.getInt(sPipelineStageAttribute, -1));
    checkPipelineDepth(ir_, maxStage >= 0 ? maxStage + 1 : ipus_);
  }
}

void AutoVirtualGraph::placeRemaining() {
  if (!active()) return;
  const std::vector<Op*>& sched = ir_.schedule();
  std::map<const Op*, size_t> index;
  for (size_t i = 0; i < sched.size(); ++i) index[sched[i]] = i;
  auto placed = [](const Op* op) { return op->attrs.has(sVirtualGraphAttribute); };
  auto ipuOf = [](const Op* op) { return op->attrs.getInt(sVirtualGraphAttribute); };
  for (Op* op : sched) {
    if (placed(op)) continue;
    int64_t ipu = -1;
    // A weight update: where the weight is read (its first placed reader in the schedule).
    for (const Tensor* t : op->inputs()) {
      if (!t || t->kind != TensorKind::Variable || ipu >= 0) continue;
      const Op* first = nullptr;
      for (const Op* c : t->consumers)
        if (c != op && placed(c) && index.count(c) && (!first || index.at(c) < index.at(first))) first = c;
      if (first) ipu = ipuOf(first);
    }
    if (ipu < 0) {
      for (const Tensor* t : op->inputs())
        if (t && t->producer && placed(t->producer)) ipu = std::max(ipu, ipuOf(t->producer));
    }
    if (ipu < 0) {
      for (const Tensor* t : op->outputs()) {
        if (!t) continue;
        for (const Op* c : t->consumers)
          if (placed(c) && ipu < 0) ipu = ipuOf(c);
      }
    }
    op->attrs.set(sVirtualGraphAttribute, std::max<int64_t>(ipu, 0));
  }
}

}  // namespace passes
}  // namespace popart
