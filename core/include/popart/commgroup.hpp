// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file commgroup.hpp
/// `CommGroup` and `CommGroupType` (PopART's): a group type and a replica group size, the
/// older way of naming a `ReplicaGrouping` (collectives, VariableSettings).

#include <string>

#include "popart/replicagrouping.hpp"

namespace popart {

/// PopART's values. Python and JS name `None` "Ungrouped" (`None` is reserved in Python).
enum class CommGroupType {
  All = 0,      ///< all replicas are one group; the group size is ignored
  Consecutive,  ///< groups of replicaGroupSize adjacent replicas: {0 .. k-1}, {k .. 2k-1}, ...
  Orthogonal,   ///< groups of replicaGroupSize replicas numReplicas / k apart: {0, m, 2m, ..}, ...
  None,         ///< each replica is its own group; the group size is ignored
  N
};

class CommGroup {
 public:
  /// [All, 0].
  CommGroup() = default;
  CommGroup(CommGroupType type_, unsigned groupSize) : type(type_), replicaGroupSize(groupSize) {}
  /// The CommGroup of a grouping (Consecutive for stride 1, Orthogonal when the stride is the
  /// number of groups; other strides have no CommGroup: popart::error).
  explicit CommGroup(const ReplicaGrouping& grouping);

  /// The grouping at `numReplicas` replicas. Throws popart::error when the type needs a size and
  /// has none, or numReplicas is not a multiple of it.
  ReplicaGrouping toReplicaGrouping(unsigned numReplicas) const;

  bool operator==(const CommGroup& o) const { return type == o.type && replicaGroupSize == o.replicaGroupSize; }
  bool operator!=(const CommGroup& o) const { return !(*this == o); }

  CommGroupType type = CommGroupType::All;
  unsigned replicaGroupSize = 0;
};

/// "All", "Consecutive", "Orthogonal", "Ungrouped".
const std::string& commGroupTypeName(CommGroupType t);
/// "CommGroup(type=Consecutive, replicaGroupSize=2)".
std::string toString(const CommGroup& g);

}  // namespace popart
