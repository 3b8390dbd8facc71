// Graphcore's replicated collectives: ReplicatedAllReduce, ReplicatedReduceScatter and
// ReplicatedAllGather (PopART's ops: a CollectiveOperator and a replica group, CommGroup). Where
// the group is one replica they are views: the input itself, or the input flattened (a single
// replica's one shard). Otherwise they exchange values between replicas: the program's phases
// end at them and the replicas' driver carries them out (session/replicated_executable.hpp).
// GradientAllReduce is the training graph's sum of the weights' gradients
// (optimizers/training_graph.cpp).
#include "ops/collectives.hpp"

#include <vector>

#include "common/strings.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "popart/commgroup.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace ops {
namespace {

bool isCollectiveKind(OpKind k) {
  return k == OpKind::GcReplicatedAllReduce || k == OpKind::GcReplicatedReduceScatter ||
         k == OpKind::GcReplicatedAllGather || k == OpKind::GradAllReduce;
}

/// The node's CollectiveOperator: PopART writes its number, this runtime's Builder its name.
CollectiveOperator operatorOf(const Op& op) {
  const auto it = op.attrs.all().find("__collectiveOperator");
  if (it == op.attrs.all().end()) return CollectiveOperator::Add;
  int v = -1;
  if (const auto* i = std::get_if<int64_t>(&it->second)) {
    if (*i < 0 || *i >= static_cast<int64_t>(CollectiveOperator::N))
      throw error("{}: __collectiveOperator {} is not a CollectiveOperator (0 to {})", op.describe(), *i,
                  static_cast<int>(CollectiveOperator::N) - 1);
    v = static_cast<int>(*i);
  } else if (const auto* s = std::get_if<std::string>(&it->second)) {
    v = detail::enumValueFromName("CollectiveOperator", *s);
  } else {
    throw error("{}: __collectiveOperator must be a CollectiveOperator number or name", op.describe());
  }
  return static_cast<CollectiveOperator>(v);
}

/// The node's replica group ([CommGroupType, replicaGroupSize]: the Builder's `commGroup`
/// argument, its `commGroup` context's `__collectiveCommGroup`), all replicas when none.
CommGroup commGroupOf(const Op& op) {
  CommGroup g;
  for (const char* name : {"commGroup", "__collectiveCommGroup"}) {
    if (!op.attrs.has(name)) continue;
    const auto v = op.attrs.getInts(name);
    if (v.size() != 2 || v[0] < 0 || v[0] >= static_cast<int64_t>(CommGroupType::N) || v[1] < 0 ||
        v[1] > (int64_t{1} << 31))
      throw error(
          "{}: {} {} must be [CommGroupType (0: All, 1: Consecutive, 2: Orthogonal, 3: Ungrouped), "
          "replicaGroupSize from 0 to 2^31]",
          op.describe(), name, v);
    g = CommGroup(static_cast<CommGroupType>(v[0]), static_cast<unsigned>(v[1]));
  }
  return g;
}

int64_t globalReplicas(const Op& op) {
  return op.graph().ir().options().getGlobalReplicationFactor();
}

bool isArithmetic(DataType t) {
  return t == DataType::FLOAT || t == DataType::DOUBLE || t == DataType::FLOAT16 || t == DataType::BFLOAT16 ||
         t == DataType::INT32 || t == DataType::INT64;
}

/// The checks every collective makes: its group fits the replication factor, its operator suits
/// the input's type, and an exchange between replicas happens in the main graph.
void checkCollective(const Op& op) {
  const Collective c = collectiveOf(op);
  const DataType t = op.inType(0);
  if (t == DataType::STRING) throw error("{} cannot exchange STRING tensors", op.describe());
  const bool logical = c.op == CollectiveOperator::LogicalAnd || c.op == CollectiveOperator::LogicalOr;
  if (c.kind != Collective::Kind::AllGather && c.op != CollectiveOperator::Local) {
    if (logical && t != DataType::BOOL)
      throw error("{}: CollectiveOperator {} takes BOOL tensors, not {}", op.describe(), enumToString(c.op),
                  dataTypeToString(t));
    if (c.op == CollectiveOperator::Mean && !isFloatingPoint(t))
      throw error("{}: CollectiveOperator Mean takes floating-point tensors, not {}", op.describe(),
                  dataTypeToString(t));
    if (!logical && !isArithmetic(t))
      throw error("{}: CollectiveOperator {} takes FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT32 or INT64 tensors, not {}",
                  op.describe(), enumToString(c.op), dataTypeToString(t));
  }
  if (acrossReplicas(op) && &op.graph() != &op.graph().ir().mainGraph())
    throw error("{} across {} replicas inside a subgraph is not supported yet by this runtime (the main graph only)",
                op.describe(), globalReplicas(op));
}

void setupAllReduce(Op& op) {
  checkCollective(op);
  setupSameAsInput0(op);
}

/// [ceil(n / k)] for a group of k replicas (PopART's ReplicatedReduceScatterOp).
void setupReduceScatter(Op& op) {
  checkCollective(op);
  const int64_t k = collectiveOf(op).grouping.getGroupSize();
  setOutput(op, 0, op.inType(0), {(op.inInfo(0).nelms() + k - 1) / k});
}

/// [k * n] for a group of k replicas (PopART's ReplicatedAllGatherOp).
void setupAllGather(Op& op) {
  checkCollective(op);
  const int64_t k = collectiveOf(op).grouping.getGroupSize();
  setOutput(op, 0, op.inType(0), {k * op.inInfo(0).nelms()});
}

/// GradientAllReduce: output i is input i (a weight's gradient), which the replicas' driver then
/// sums over the replicas (session/replicated_executable.hpp). Attribute `scale`: the factor
/// applied after the sum (1 / replicas for ReductionType::Mean); `commGroup`: the replicas that
/// share the weights (VariableSettings), all by default.
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

// ---------------------------------------------------------------- grad rules

/// The same group and `which` operator for a gradient collective.
Attributes gradAttrs(const Op& op, CollectiveOperator which) {
  Attributes a;
  for (const char* name : {"commGroup", "__collectiveCommGroup"}) {
    if (op.attrs.has(name)) a.set(name, op.attrs.getInts(name));
  }
  a.set("__collectiveOperator", static_cast<int64_t>(which));
  return a;
}

[[noreturn]] void noGradient(const Op& op, CollectiveOperator which) {
  throw error(
      "The gradient of {} with CollectiveOperator {} over more than one replica is not supported (Add, Mean "
      "and Local are)",
      op.describe(), enumToString(which));
}

/// AllReduce: every replica of the group gets the group's sum, so each input's gradient is the
/// sum of the group's output gradients (an all-reduce of them; Mean: their mean). A group of one
/// replica passes it through.
void gradAllReduce(GradCtx& c) {
  const Collective k = collectiveOf(c.op());
  if (collectiveIsIdentity(c.op())) return c.setInGrad(0, c.outGrad(0));
  if (k.op != CollectiveOperator::Add && k.op != CollectiveOperator::Mean) noGradient(c.op(), k.op);
  c.setInGrad(0, c.add1(OpKind::GcReplicatedAllReduce, {c.outGrad(0)}, gradAttrs(c.op(), k.op)));
}

/// ReduceScatter: shard i of the group's sum went to the group's replica i, so an input's gradient
/// is every shard's gradient gathered in position order (an all-gather), without the padding,
/// in the input's shape (Mean: divided by the group's size).
void gradReduceScatter(GradCtx& c) {
  const Collective k = collectiveOf(c.op());
  const Shape& shape = c.in(0)->info.shape();
  if (collectiveIsIdentity(c.op())) return c.setInGrad(0, c.reshape(c.outGrad(0), shape));
  if (k.op != CollectiveOperator::Add && k.op != CollectiveOperator::Mean) noGradient(c.op(), k.op);
  Tensor* g = c.add1(OpKind::GcReplicatedAllGather, {c.outGrad(0)}, gradAttrs(c.op(), CollectiveOperator::Add));
  const int64_t n = c.in(0)->info.nelms();
  if (g->info.nelms() != n) g = c.slice(g, 0, 0, n);
  if (k.op == CollectiveOperator::Mean) {
    Attributes a;
    a.set("scale", 1.0f / static_cast<float>(k.grouping.getGroupSize()));
    g = c.add1(OpKind::GcScale, {g}, a);
  }
  c.setInGrad(0, c.reshape(g, shape));
}

/// AllGather: the replica at position i's input is shard i of every group member's output, so its
/// gradient is the sum of those shards (a reduce-scatter of the output gradient).
void gradAllGather(GradCtx& c) {
  const Shape& shape = c.in(0)->info.shape();
  if (collectiveIsIdentity(c.op())) return c.setInGrad(0, c.reshape(c.outGrad(0), shape));
  Tensor* g = c.add1(OpKind::GcReplicatedReduceScatter, {c.outGrad(0)}, gradAttrs(c.op(), CollectiveOperator::Add));
  c.setInGrad(0, c.reshape(g, shape));
}

}  // namespace

bool isCollective(const Op& op) {
  return isCollectiveKind(op.kind());
}

bool collectiveIsIdentity(const Op& op) {
  if (op.kind() == OpKind::GradAllReduce) return false;
  const Collective c = collectiveOf(op);
  if (c.kind == Collective::Kind::AllReduce && c.op == CollectiveOperator::Local) return true;
  return c.grouping.getGroupSize() == 1 && c.op != CollectiveOperator::SquareAdd;
}

bool acrossReplicas(const Op& op) {
  if (op.kind() == OpKind::GradAllReduce) return true;
  return isCollectiveKind(op.kind()) && globalReplicas(op) > 1 && !collectiveIsIdentity(op);
}

Collective collectiveOf(const Op& op) {
  if (!isCollectiveKind(op.kind())) throw internal_error("{} is not a collective", op.describe());
  Collective c;
  const int64_t replicas = globalReplicas(op);
  if (replicas < 1 || replicas > (int64_t{1} << 31))
    throw error("{}: the replication factor {} is out of range", op.describe(), replicas);
  const CommGroup group = commGroupOf(op);
  try {
    c.grouping = group.toReplicaGrouping(static_cast<unsigned>(replicas));
  } catch (const error& e) {
    throw error("{}: {}", op.describe(), e.what());
  }
  switch (op.kind()) {
    case OpKind::GcReplicatedReduceScatter:
      c.kind = Collective::Kind::ReduceScatter;
      c.op = operatorOf(op);
      break;
    case OpKind::GcReplicatedAllGather:
      c.kind = Collective::Kind::AllGather;
      break;
    case OpKind::GradAllReduce:
      c.scale = static_cast<double>(op.attrs.getFloat("scale", 1.0f));
      break;
    default:
      c.op = operatorOf(op);
      break;
  }
  return c;
}

}  // namespace ops

void define_GradAllReduce(OpDef& d) {
  d.setup = ops::setupGradAllReduce;
}

void define_GcReplicatedAllReduce(OpDef& d) {
  d.setup = ops::setupAllReduce;
  d.foldable = false;  // with several replicas its value is not its input's
  d.view = ViewKind::Reshape;
  d.grad = ops::gradAllReduce;
}
void define_GcReplicatedReduceScatter(OpDef& d) {
  d.setup = ops::setupReduceScatter;
  d.foldable = false;
  d.view = ViewKind::Reshape;
  d.grad = ops::gradReduceScatter;
}
void define_GcReplicatedAllGather(OpDef& d) {
  d.setup = ops::setupAllGather;
  d.foldable = false;
  d.view = ViewKind::Reshape;
  d.grad = ops::gradAllGather;
}

}  // namespace popart
