// What a collective op across replicas does (ops/collectives.cpp): the phases of the CPU program
// end at it, the replicas' driver carries it out (session/replicated_executable.hpp) and the IPU
// model prices its exchange (backends/ipu_model).
#pragma once

#include <cstdint>

#include "popart/op/collectives/collectives.hpp"
#include "popart/replicagrouping.hpp"

namespace popart {

class Op;

namespace ops {

/// One collective: what it computes, over which groups of the session's global replicas.
struct Collective {
  enum class Kind {
    AllReduce,      ///< every replica of a group gets the group's combination of its input
    ReduceScatter,  ///< the replica at position i of its group gets shard i of that combination
    AllGather,      ///< every replica of a group gets its members' inputs, concatenated by position
  };
  Kind kind = Kind::AllReduce;
  CollectiveOperator op = CollectiveOperator::Add;
  ReplicaGrouping grouping{1};
  /// A factor applied after the combination (GradientAllReduce: 1 / replicas for a mean).
  double scale = 1.0;
};

/// Whether `op` exchanges values between replicas (GradientAllReduce; ReplicatedAllReduce,
/// ReplicatedReduceScatter and ReplicatedAllGather at a global replication factor above 1): the
/// program's phases end at it and it is never a view of its input.
bool acrossReplicas(const Op& op);

/// Whether `op` is one of the collective ops (those above, at any replication factor).
bool isCollective(const Op& op);

/// True where a collective leaves each replica its input's bytes (a view of its input): a group
/// of one replica (but SquareAdd squares), or an all-reduce with the Local operator.
bool collectiveIsIdentity(const Op& op);

/// The collective `op` (one of the ops acrossReplicas names, or one of those ops at replication
/// factor 1) carries out, over the session's global replication factor.
Collective collectiveOf(const Op& op);

}  // namespace ops
}  // namespace popart
