// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file variablesettings.hpp
/// `VariableSettings` (PopART's): how a weight is shared among graph replicas, and how its values
/// come back to the host. Replicas in one group hold the same value; different groups may hold
/// different ones. With more than one group the weight's host value (the Builder's init value,
/// readWeights / writeWeights buffers, the saved ONNX initializer) has an outer dimension of one
/// entry per group (OnePerGroup) or per replica (AllReplicas); with one group it has none.
/// Builder::addInitializedInputTensor(initData, settings) stores the settings in the model (see
/// docs/python-api.md, "Replicas"), where the session reads them.

#include <cstdint>
#include <string>
#include <vector>

#include "popart/commgroup.hpp"
#include "popart/names.hpp"
#include "popart/replicagrouping.hpp"

namespace popart {

/// How a grouped weight is returned to the host (PopART's values).
enum class VariableRetrievalMode {
  OnePerGroup = 0,    ///< one value per group: the group's first replica's
  AllReduceReplicas,  ///< as OnePerGroup, all-reduced in the group (unsupported in PopART too)
  AllReplicas,        ///< one value per replica
  N
};

class VariableSettings {
 public:
  /// [All, 0], OnePerGroup: every replica shares the weight (the default of a weight).
  VariableSettings() = default;
  explicit VariableSettings(CommGroup sharedVariableDomain);
  explicit VariableSettings(VariableRetrievalMode retrievalMode);
  VariableSettings(CommGroup sharedVariableDomain, VariableRetrievalMode retrievalMode);
  /// A grouping: the settings then hold for its number of replicas only.
  explicit VariableSettings(const ReplicaGrouping& grouping,
                            VariableRetrievalMode retrievalMode = VariableRetrievalMode::OnePerGroup);

  /// Throws popart::error for a group type that needs a size but has none, or a value outside
  /// the enums (PopART: "VariableSettings had N errors!").
  void verify() const;

  /// The CommGroup (for a grouping: its CommGroup; popart::error when it has none).
  CommGroup getSharedVariableDomain() const;
  VariableRetrievalMode getRetrievalMode() const { return retrievalMode_; }
  /// The groups at `numReplicas` replicas (popart::error when the settings do not divide them).
  ReplicaGrouping getReplicaGrouping(unsigned numReplicas) const;

  /// Values the host sees at `replicaCount` replicas: groups (OnePerGroup, AllReduceReplicas) or
  /// replicas (AllReplicas).
  unsigned numReplicasReturningVariable(unsigned replicaCount) const;
  unsigned getGroupCount(unsigned replicaCount) const;
  /// Replicas between two members of a group.
  unsigned getStride(unsigned replicaCount) const;
  /// Replicas per group.
  unsigned getRealGroupSize(unsigned replicaCount) const;
  /// The first (lowest) replica of `group` (the replica count is only needed for a grouping;
  /// PopART's one-argument form).
  unsigned getGroupRepresentative(unsigned group, unsigned replicaCount = 0) const;
  /// The per-replica shape of a host value of shape `fullShape`: without the outer group
  /// dimension when there is more than one group (PopART's error when it does not match).
  Shape shapeOnReplica(const Shape& fullShape, unsigned replicaCount, const TensorId& name) const;
  /// The host shape of a per-replica shape: [groups] + shape with more than one group.
  Shape shapeOnHost(const Shape& replicaShape, unsigned replicaCount) const;
  /// The groups' replicas: groups(r)[g] lists group g's replicas.
  std::vector<std::vector<int64_t>> groups(unsigned replicaCount) const;

  bool operator==(const VariableSettings& o) const;
  bool operator!=(const VariableSettings& o) const { return !(*this == o); }

  /// "VariableSettings(CommGroup(type=All, replicaGroupSize=0), OnePerGroup)".
  std::string str() const;
  /// The form stored in a model ("type=Consecutive;size=2;mode=OnePerGroup", or
  /// "numReplicas=4;stride=1;groupSize=2;mode=..." for a grouping), and back (popart::error for
  /// text that is not such a form).
  std::string serialize() const;
  static VariableSettings deserialize(const std::string& text);

 private:
  bool hasGrouping_ = false;
  CommGroup commGroup_;
  ReplicaGrouping grouping_{1};
  VariableRetrievalMode retrievalMode_ = VariableRetrievalMode::OnePerGroup;
};

/// "OnePerGroup", "AllReduceReplicas", "AllReplicas".
const std::string& variableRetrievalModeName(VariableRetrievalMode m);

}  // namespace popart
