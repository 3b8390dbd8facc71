// Graphcore's replicated collectives: ReplicatedAllReduce and ReplicatedReduceScatter. At
// replication factor 1 (the only one they support yet) they are views: the input itself, and the
// input flattened (the one shard of a single replica).
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
/// `__collectiveCommGroup` node attribute) is checked, and the replication factor must be 1.
void checkCollective(const Op& op) {
  for (const char* name : {"commGroup", "__collectiveCommGroup"}) {
    if (!op.attrs.has(name)) continue;
    const auto g = op.attrs.getInts(name);
    if (g.size() != 2 || g[0] < 0 || g[0] > 3 || g[1] < 0)
      throw error(
          "{} {} must be [CommGroupType (0: All, 1: Consecutive, 2: Orthogonal, 3: Ungrouped), "
          "replicaGroupSize >= 0]",
          name, g);
  }
  const int64_t rf = op.graph().ir().options().getReplicationFactor();
  if (rf > 1)
    throw error("{} across {} replicas is not supported yet by this runtime (replication factor 1 only)", op.type(),
                rf);
  if (op.inType(0) == DataType::STRING) throw error("{} cannot reduce STRING tensors", op.type());
}

void setupAllReduce(Op& op) {
  checkCollective(op);
  setupSameAsInput0(op);
}

void setupReduceScatter(Op& op) {
  checkCollective(op);
  setOutput(op, 0, op.inType(0), {op.inInfo(0).nelms()});
}

// ---------------------------------------------------------------- grad rules

/// AllReduce at replication factor 1: the gradient passes through.
void gradAllReduce(GradCtx& c) {
  c.setInGrad(0, c.outGrad(0));
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
  d.view = ViewKind::Reshape;
  d.grad = gradAllReduce;
}
void define_GcReplicatedReduceScatter(OpDef& d) {
  d.setup = setupReduceScatter;
  d.view = ViewKind::Reshape;
  d.grad = gradReduceScatter;
}

}  // namespace popart
