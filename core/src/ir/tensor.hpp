// A tensor of the IR: an edge between ops, an input stream, a weight or a constant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/tensor_data.hpp"
#include "popart/dataflow.hpp"
#include "popart/names.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/variablesettings.hpp"

namespace popart {

class Op;
class Graph;

/// PopART's TensorType.
enum class TensorKind {
  Stream,    ///< fed from the host each batch (a model input)
  Variable,  ///< a weight: host data, copied to the device, may be trained or written
  Const,     ///< a constant: host data baked into the executable
  ActGrad,   ///< produced by an op
};

const char* tensorKindName(TensorKind k);

class Tensor {
 public:
  Tensor(TensorId id_, TensorKind kind_, const TensorInfo& info_, Graph& graph_)
      : id(std::move(id_)), kind(kind_), info(info_), graph(&graph_) {}

  TensorId id;
  TensorKind kind;
  TensorInfo info;
  Graph* graph;
  Op* producer = nullptr;
  std::vector<Op*> consumers;
  /// Host data for Variable and Const tensors.
  std::optional<TensorData> data;
  /// Set on Stream tensors of the main graph: index among the model's inputs.
  int streamIndex = -1;
  /// A stream input's replicated stream mode (Builder InputSettings).
  ReplicatedStreamMode replicatedStreamMode = ReplicatedStreamMode::Replicate;
  /// A weight's VariableSettings (Builder addInitializedInputTensor with settings), if given.
  std::optional<VariableSettings> variableSettings;
  /// A weight with more than one replica group: the host value of every group, [groups] + the
  /// per-replica shape (`data` then stages the group a replica runs with; see
  /// session/replica_weights.hpp).
  std::optional<TensorData> groupData;
  /// Replicated tensor sharding (optimizer state, optimizers/training_graph.cpp): the whole value
  /// the host sees, in its own shape; `info` and `data` are then one replica's shard,
  /// [ceil(n / shardReplicas)] with zeros past the end (`data` stages the shard of a replica; see
  /// session/replica_weights.hpp).
  std::optional<TensorData> shardedData;
  /// The replicas a sharded tensor is split over (its sharding domain's size); 0: not sharded.
  int64_t shardReplicas = 0;

  /// The value the host reads and writes: every group's (groupData), the whole of a sharded
  /// tensor (shardedData), else `data`.
  TensorData& hostData() { return groupData ? *groupData : shardedData ? *shardedData : *data; }
  const TensorData& hostData() const { return groupData ? *groupData : shardedData ? *shardedData : *data; }
  bool hasData() const { return data.has_value(); }
  bool isConst() const { return kind == TensorKind::Const; }
  /// A constant or weight whose value is known while the IR is built.
  bool hasHostValue() const { return data.has_value(); }
  void removeConsumer(const Op* op);
};

}  // namespace popart
