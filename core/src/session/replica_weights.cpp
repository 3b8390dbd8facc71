// ReplicaWeights: VariableSettings at the session's replication factor (replica_weights.hpp).
#include "session/replica_weights.hpp"

#include <cstring>

#include "backends/backend.hpp"
#include "ir/ir.hpp"
#include "popart/error.hpp"
#include "popart/variablesettings.hpp"

namespace popart {
namespace {

/// The bytes of value `i` of a tensor holding values of `info` one after another.
const char* slice(const TensorData& d, const TensorInfo& info, int64_t i) {
  return static_cast<const char*>(d.data()) + i * info.nbytes();
}

}  // namespace

ReplicaWeights::ReplicaWeights(Ir& ir)
    : replicas_(static_cast<unsigned>(ir.options().getReplicationFactor())),
      global_(static_cast<unsigned>(ir.options().getGlobalReplicationFactor())),
      offset_(ir.options().enableDistributedReplicatedGraphs ? static_cast<unsigned>(ir.options().globalReplicaOffset)
                                                             : 0u),
      ir_(ir) {
  for (const auto& kv : ir.mainGraph().tensors()) {
    const Tensor& t = *kv.second;
    if (t.groupData) {
      device_.emplace(t.id, *t.groupData);
      loaded_[t.id] = 0;
    }
    if (t.shardedData) sharded_.push_back(t.id);
  }
}

void ReplicaWeights::fromHost() {
  for (auto& kv : device_) {
    Tensor& t = ir_.mainGraph().getTensor(kv.first);
    kv.second = *t.groupData;
    std::memcpy(t.data->data(), slice(kv.second, t.info, 0), static_cast<size_t>(t.info.nbytes()));
    loaded_[kv.first] = 0;
  }
  // A sharded tensor's host value may have been written: replica 0's shard of it.
  for (const TensorId& id : sharded_) {
    Tensor& t = ir_.mainGraph().getTensor(id);
    t.data = shardOf(*t.shardedData, t.shardReplicas, 0);
  }
}

void ReplicaWeights::toHost() {
  // The staged values are the device's: inference does not change them, and replicated training
  // reads them back first (readReplicas).
  for (auto& kv : device_) ir_.mainGraph().getTensor(kv.first).groupData = kv.second;
}

void ReplicaWeights::loadReplicas(const std::vector<Executable*>& replicas) {
  if (device_.empty() && sharded_.empty()) return;
  if (replicas.size() != replicas_)
    throw internal_error("{} replica executables for {} replicas", replicas.size(), replicas_);
  // Sharded tensors: replica r holds shard r of its domain (consecutive replicas of this process).
  for (unsigned r = 1; r < replicas_ && !sharded_.empty(); ++r) {
    for (const TensorId& id : sharded_) {
      Tensor& t = ir_.mainGraph().getTensor(id);
      t.data = shardOf(*t.shardedData, t.shardReplicas, r % t.shardReplicas);
    }
    replicas[r]->tensorsFromHost(sharded_);
  }
  for (const TensorId& id : sharded_) {
    Tensor& t = ir_.mainGraph().getTensor(id);
    t.data = shardOf(*t.shardedData, t.shardReplicas, 0);
  }
  if (device_.empty()) return;
  std::vector<TensorId> ids;
  for (const auto& kv : device_) ids.push_back(kv.first);
  for (unsigned r = 0; r < replicas_; ++r) {
    for (auto& kv : device_) {
      Tensor& t = ir_.mainGraph().getTensor(kv.first);
      const unsigned g = t.variableSettings->getReplicaGrouping(global_).getGroupAt(offset_ + r);
      std::memcpy(t.data->data(), slice(kv.second, t.info, g), static_cast<size_t>(t.info.nbytes()));
    }
    replicas[r]->tensorsFromHost(ids);
  }
  // The host copies hold group 0's values again, as after fromHost.
  for (auto& kv : device_) {
    Tensor& t = ir_.mainGraph().getTensor(kv.first);
    std::memcpy(t.data->data(), slice(kv.second, t.info, 0), static_cast<size_t>(t.info.nbytes()));
    loaded_[kv.first] = 0;
  }
}

void ReplicaWeights::readReplicas(const std::vector<Executable*>& replicas, distributed::ProcessGroup* processes) {
  for (const TensorId& id : sharded_) {
    Tensor& t = ir_.mainGraph().getTensor(id);
    if (replicas.size() < static_cast<size_t>(t.shardReplicas))
      throw internal_error("'{}' is sharded over {} replicas, {} have an executable", id, t.shardReplicas,
                           replicas.size());
    for (int64_t i = 0; i < t.shardReplicas; ++i)
      unshardInto(*t.shardedData, replicas[static_cast<size_t>(i)]->tensorData(id), t.shardReplicas, i);
  }
  for (auto& kv : device_) {
    Tensor& t = ir_.mainGraph().getTensor(kv.first);
    const ReplicaGrouping grouping = t.variableSettings->getReplicaGrouping(global_);
    for (unsigned g = 0; g < grouping.getNumGroups(); ++g) {
      // The group's first replica (a global index) holds its value; in a distributed session the
      // process that runs it gives it to the others (the rest of the row is zeros: a bitwise or).
      const unsigned r = grouping.getReplicaAt(g);
      char* row = const_cast<char*>(slice(kv.second, t.info, g));
      if (r >= offset_ && r - offset_ < replicas.size()) {
        std::memcpy(row, replicas[r - offset_]->tensorData(t.id), static_cast<size_t>(t.info.nbytes()));
      } else if (processes) {
        std::memset(row, 0, static_cast<size_t>(t.info.nbytes()));
      } else {
        throw internal_error("replica {} of {} has no executable", r, replicas.size());
      }
    }
    if (processes)
      processes->allReduce({{kv.second.data(), kv.second.info().dataType(), kv.second.info().nelms()}},
                           distributed::ReduceOp::BitOr);
  }
}

void ReplicaWeights::selectReplica(Executable& exe, unsigned replica) {
  std::vector<TensorId> changed;
  for (auto& kv : device_) {
    Tensor& t = ir_.mainGraph().getTensor(kv.first);
    const unsigned g = t.variableSettings->getReplicaGrouping(global_).getGroupAt(offset_ + replica);
    if (loaded_[kv.first] == g) continue;
    std::memcpy(t.data->data(), slice(kv.second, t.info, g), static_cast<size_t>(t.info.nbytes()));
    loaded_[kv.first] = g;
    changed.push_back(kv.first);
  }
  if (!changed.empty()) exe.tensorsFromHost(changed);
}

namespace {

/// Which stored value (group) each returned value comes from.
std::vector<unsigned> returnedGroups(const Tensor& t, unsigned replicas, const char* what) {
  const VariableSettings vs = t.variableSettings ? *t.variableSettings : VariableSettings();
  const ReplicaGrouping g = vs.getReplicaGrouping(replicas);
  if (vs.getRetrievalMode() == VariableRetrievalMode::AllReduceReplicas && g.getGroupSize() > 1)
    throw error(
        "{}: weight '{}' has VariableRetrievalMode AllReduceReplicas, which is not supported (PopART does not "
        "support it either): use OnePerGroup or AllReplicas",
        what, t.id);
  std::vector<unsigned> out;
  if (vs.getRetrievalMode() == VariableRetrievalMode::AllReplicas) {
    for (unsigned r = 0; r < replicas; ++r) out.push_back(g.getGroupAt(r));
  } else {
    for (unsigned i = 0; i < g.getNumGroups(); ++i) out.push_back(i);
  }
  return out;
}

void checkBuffer(const Tensor& t, const MutableVoidData& buf, size_t values, const char* what) {
  const int64_t want = static_cast<int64_t>(values) * t.info.nelms();
  if (buf.info.nelms() != want || buf.info.dataType() != t.info.dataType()) {
    Shape s = t.info.shape();
    if (values > 1) s.insert(s.begin(), static_cast<int64_t>(values));
    throw error(
        "{}: the buffer for '{}' is {} but the weight is {} {} ({} value{} of {} as its VariableSettings return)", what,
        t.id, buf.info.toString(), t.info.data_type(), s, values, values == 1 ? "" : "s", t.info.shape());
  }
}

}  // namespace

void ReplicaWeights::read(const Tensor& t, const MutableVoidData& dst) const {
  const auto groups = returnedGroups(t, global_, "readWeights");
  checkBuffer(t, dst, groups.size(), "readWeights");
  const TensorData& host = t.hostData();
  const size_t n = static_cast<size_t>(t.info.nbytes());
  for (size_t i = 0; i < groups.size(); ++i)
    std::memcpy(static_cast<char*>(dst.data) + i * n, slice(host, t.info, t.groupData ? groups[i] : 0), n);
}

void ReplicaWeights::write(Tensor& t, const MutableVoidData& src) {
  const auto groups = returnedGroups(t, global_, "writeWeights");
  checkBuffer(t, src, groups.size(), "writeWeights");
  const size_t n = static_cast<size_t>(t.info.nbytes());
  TensorData& host = t.hostData();
  std::vector<bool> done(t.groupData ? host.info().shape()[0] : 1, false);
  for (size_t i = 0; i < groups.size(); ++i) {
    const unsigned g = t.groupData ? groups[i] : 0;
    if (done[g]) continue;  // AllReplicas: a group takes its first replica's value
    done[g] = true;
    std::memcpy(static_cast<char*>(host.data()) + g * n, static_cast<const char*>(src.data) + i * n, n);
  }
}

}  // namespace popart
