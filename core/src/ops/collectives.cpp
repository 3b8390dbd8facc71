// Graphcore's replicated collectives: ReplicatedAllReduce and ReplicatedReduceScatter. At
// replication factor 1 they are views: the input itself, and the input flattened (the one shard of
// a single replica). With several replicas ReplicatedAllReduce sums its input over every replica
// (all of them: CommGroup All), in the main graph: the program's phases end at it and the replicas'
// driver sums its output (session/replicated_executable.hpp). ReplicatedReduceScatter stays at
// replication factor 1.
#include <vector>

#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

/// The replica group ([CommGroupType, replicaGroupSize], PopART's `commGroup` argument or its
/// `__collectiveCommGroup` node attribute) is checked; with several replicas only an all-reduce
/// over all of them (group All, or one group of every replica), in the main graph, is supported.
void checkCollective(const Op& op, bool acrossReplicas) {
  const int64_t rf = op.graph().ir().options().getGlobalReplicationFactor();
  for (const char* name : {"commGroup", "__collectiveCommGroup"}) {
    if (!op.attrs.has(name)) continue;
    const auto g = op.attrs.getInts(name);
    if (g.size() != 2 || g[0] < 0 || g[0] > 3 || g[1] < 0)
      throw error(
          "{} {} must be [CommGroupType (0: All, 1: Consecutive, 2: Orthogonal, 3: Ungrouped), "
          "replicaGroupSize >= 0]",
          name, g);
    const bool everyReplica = g[0] == 0 || ((g[0] == 1 || g[0] == 2) && g[1] == rf);
    if (rf > 1 && !everyReplica)
      throw error(
          "{} over the replica group {} of {} replicas is not supported yet by this runtime (groups of "
          "every replica only)",
          op.type(), g, rf);
  }
  if (rf > 1 && !acrossReplicas)
    throw error("{} across {} replicas is not supported yet by this runtime (replication factor 1 only)", op.type(),
                rf);
  if (rf > 1 && &op.graph() != &op.graph().ir().mainGraph())
    throw error("{} across {} replicas inside a subgraph is not supported yet by this runtime (the main graph only)",
                op.type(), rf);
  if (op.inType(0) == DataType::STRING) throw error("{} cannot reduce STRING tensors", op.type());
}

void setupAllReduce(Op& op) {
  checkCollective(op, true);
  setupSameAsInput0(op);
}

void setupReduceScatter(Op& op) {
  checkCollective(op, false);
  setOutput(op, 0, op.inType(0), {op.inInfo(0).nelms()});
}

// ---------------------------------------------------------------- grad rules

/// AllReduce: every replica's output is the sum of every replica's input, so each input's gradient
/// is the sum of every replica's output gradient (an all-reduce of it); at replication factor 1 it
/// passes through.
void gradAllReduce(GradCtx& c) {
  if (c.op().graph().ir().options().getGlobalReplicationFactor() <= 1) return c.setInGrad(0, c.outGrad(0));
  Attributes a;
  for (const char* name : {"commGroup", "__collectiveCommGroup"}) {
    if (c.op().attrs.has(name)) a.set(name, c.op().attrs.getInts(name));
  }
  c.setInGrad(0, c.add1(OpKind::GcReplicatedAllReduce, {c.outGrad(0)}, a));
}

/// ReduceScatter at replication factor 1: the gradient (an all-gather) reshaped back.
void gradReduceScatter(GradCtx& c) {
  c.setInGrad(0, c.reshape(c.outGrad(0), c.in(0)->info.shape()));
}

/// GradientAllReduce: output i is input i (a weight's gradient), which the replicas' driver then
/// sums over every replica (session/replicated_executable.hpp). Attribute `scale`: the factor
/// applied after the sum (1 / replicas for ReductionType::Mean).
void setupGradAllReduce(Op& op) {
  if (op.numInputs() != op.numOutputs())
    throw internal_error("{} has {} inputs but {} outputs", op.describe(), op.numInputs(), op.numOutputs());
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!isFloatingPoint(op.inType(i)))
      throw error("{}: the gradient '{}' is {}, not a floating-point tensor", op.describe(), op.input(i)->id,
                  op.inInfo(i).toString());
    setOutput(op, i, op.inInfo(i));
  }
}

}  // namespace

void define_GradAllReduce(OpDef& d) {
  d.setup = setupGradAllReduce;
}

void define_GcReplicatedAllReduce(OpDef& d) {
  d.setup = setupAllReduce;
  d.foldable = false;  // with several replicas its value is not its input's
  d.view = ViewKind::Reshape;
  d.grad = gradAllReduce;
}
void define_GcReplicatedReduceScatter(OpDef& d) {
  d.setup = setupReduceScatter;
  d.view = ViewKind::Reshape;
  d.grad = gradReduceScatter;
}

}  // namespace popart
