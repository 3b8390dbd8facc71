// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file replicagrouping.hpp
/// `ReplicaGrouping` (PopART 3.x): `numReplicas` replicas split into groups of `groupSize`
/// replicas `stride` apart. Group g holds replicas
/// `g % stride + (g / stride) * stride * groupSize + i * stride`, i = 0 .. groupSize - 1, so
/// stride 1 gives consecutive groups ({0, 1}, {2, 3}) and stride numReplicas / groupSize
/// orthogonal ones ({0, 2}, {1, 3}). A value type; copies are independent.

#include <string>
#include <vector>

namespace popart {

class ReplicaGrouping {
 public:
  /// One group of all `numReplicas` replicas.
  explicit ReplicaGrouping(unsigned numReplicas);
  /// Throws popart::error unless numReplicas, stride and groupSize are >= 1 and numReplicas is
  /// a multiple of stride * groupSize.
  ReplicaGrouping(unsigned numReplicas, unsigned stride, unsigned groupSize);

  unsigned getNumReplicas() const { return numReplicas_; }
  unsigned getStride() const { return stride_; }
  unsigned getGroupSize() const { return groupSize_; }
  unsigned getNumGroups() const { return numReplicas_ / groupSize_; }
  /// The group replica `replica` is in.
  unsigned getGroupAt(unsigned replica) const;
  /// The position of `replica` in its group.
  unsigned getIndexInGroupAt(unsigned replica) const;
  /// Replica `index` of group `group` (index 0: the group's representative, its lowest replica).
  unsigned getReplicaAt(unsigned group, unsigned index = 0) const;
  /// Every replica of group `group`, ascending.
  std::vector<unsigned> getReplicasAt(unsigned group) const;
  /// The grouping whose groups take one replica from each of this one's groups.
  ReplicaGrouping getTranspose() const;
  /// "ReplicaGrouping(numReplicas=4, stride=1, groupSize=2)".
  std::string str() const;

  bool operator==(const ReplicaGrouping& o) const {
    return numReplicas_ == o.numReplicas_ && stride_ == o.stride_ && groupSize_ == o.groupSize_;
  }
  bool operator!=(const ReplicaGrouping& o) const { return !(*this == o); }

 private:
  unsigned numReplicas_;
  unsigned stride_;
  unsigned groupSize_;
};

}  // namespace popart
