// Weights with VariableSettings at the session's replication factor: the device value of each
// replica group, the group each replica runs with, and the host layout readWeights /
// writeWeights / modelToHost use (PopART's VariableRetrievalMode rules). Also the tensors sharded
// over replicas (replicated tensor sharding of optimizer state): each replica's shard loaded from
// and gathered into the whole value the host sees.
#pragma once

#include <map>
#include <vector>

#include "common/tensor_data.hpp"
#include "distributed/process_group.hpp"
#include "popart/names.hpp"
#include "popart/voiddata.hpp"

namespace popart {

class Ir;
class Tensor;
class Executable;

class ReplicaWeights {
 public:
  /// The grouped weights (more than one group) of `ir`.
  explicit ReplicaWeights(Ir& ir);
  /// Stages the host values of every group as the device's (before Executable::weightsFromHost,
  /// which then loads group 0).
  void fromHost();
  /// Device -> host: every group's device value becomes its host value.
  void toHost();
  /// Loads into the executable the values of the groups replica `replica` belongs to.
  void selectReplica(Executable& exe, unsigned replica);
  /// Replicas with an executable each (replicated training, collectives): loads into replicas[r]
  /// the values of the groups replica r belongs to (after their weightsFromHost, which loaded group
  /// 0's).
  void loadReplicas(const std::vector<Executable*>& replicas);
  /// The inverse: each group's device value read from the first replica in that group (the
  /// replicas of a group apply the same updates, so they hold the same value); in a distributed
  /// session (`processes`) the process running that replica gives it to the others.
  void readReplicas(const std::vector<Executable*>& replicas, distributed::ProcessGroup* processes = nullptr);
  bool any() const { return !device_.empty(); }
  /// The weight's host values in `dst`, laid out as its VariableRetrievalMode says:
  /// numReplicasReturningVariable values (one value: no outer dimension).
  void read(const Tensor& t, const MutableVoidData& dst) const;
  /// The inverse of read (AllReplicas: each group takes its first replica's value).
  void write(Tensor& t, const MutableVoidData& src);
  bool grouped(const TensorId& id) const { return device_.count(id) != 0; }

 private:
  unsigned replicas_;  ///< this process's replicas
  unsigned global_;    ///< every process's: VariableSettings group over them
  unsigned offset_;    ///< this process's first replica (globalReplicaOffset)
  Ir& ir_;
  std::map<TensorId, TensorData> device_;  ///< [groups] + shape per grouped weight
  std::map<TensorId, unsigned> loaded_;    ///< the group the executable holds
  std::vector<TensorId> sharded_;          ///< tensors sharded over replicas (Tensor::shardedData)
};

}  // namespace popart
