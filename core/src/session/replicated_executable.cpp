#include "session/replicated_executable.hpp"

#include <chrono>
#include <cstring>
#include <sstream>

#include "common/tensor_data.hpp"
#include "ir/op.hpp"
#include "ir/tensor.hpp"
#include "popart/error.hpp"
#include "session/replica_exchange.hpp"

namespace popart {

ReplicatedExecutable::ReplicatedExecutable(std::vector<std::unique_ptr<Executable>> replicas,
                                           distributed::ProcessGroup* processes, int64_t globalReplicaOffset)
    : replicas_(std::move(replicas)),
      processes_(processes),
      timedProcesses_(processes),
      globalReplicaOffset_(globalReplicaOffset) {
  if (replicas_.empty()) throw internal_error("a replicated executable needs at least one replica");
  cuts_ = replicas_[0]->reductions();
}

std::vector<Executable*> ReplicatedExecutable::replicaExecutables() const {
  std::vector<Executable*> all;
  for (const auto& r : replicas_) all.push_back(r.get());
  return all;
}

void ReplicatedExecutable::selectReplica(int r) {
  if (r < 0 || r >= numReplicas()) throw internal_error("replica {} of {}", r, numReplicas());
  selected_ = r;
}

void ReplicatedExecutable::executeReplicas(bool stepEnd) {
  try {
    for (size_t k = 0; k <= cuts_.size(); ++k) {
      // The last phase (the updates) reads every sum: those under way come in first.
      if (k == cuts_.size()) completePending();
      for (auto& r : replicas_) r->executePhase(k);
      if (k < cuts_.size()) reduce(*cuts_[k], stepEnd);
    }
  } catch (...) {
    // No sum may still be writing into the replicas' buffers when the error leaves.
    try {
      completePending();
    } catch (...) {
    }
    pending_.clear();
    throw;
  }
}

void ReplicatedExecutable::completePending() {
  if (pending_.empty()) return;
  const auto started = std::chrono::steady_clock::now();
  const std::vector<Executable*> replicas = replicaExecutables();
  std::vector<PendingExchange> pending;
  pending.swap(pending_);
  for (const PendingExchange& p : pending) completeExchange(p, replicas, *processes_);
  processSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void ReplicatedExecutable::reduce(const Op& op, bool stepEnd) {
  // The accumulators' sum (gradient accumulation): once per step; the updates read it only then.
  if (!stepEnd && op.attrs.getInt("stepEnd", 0)) return;
  const auto started = std::chrono::steady_clock::now();
  const std::vector<Executable*> replicas = replicaExecutables();
  // A gradient sum between processes goes on while the replicas run their next phases.
  if (processes_) {
    PendingExchange p;
    if (startExchange(op, replicas, *processes_, p)) {
      pending_.push_back(std::move(p));
      localSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ++reductions_;
      return;
    }
  }
  const double before = timedProcesses_.seconds;
  exchangeAcrossReplicas(op, replicas, globalReplicaOffset_, processes_ ? &timedProcesses_ : nullptr);
  const double between = timedProcesses_.seconds - before;
  localSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() - between;
  processSeconds_ += between;
  ++reductions_;
}

void ReplicatedExecutable::TimedProcesses::allReduce(const std::vector<distributed::Buffer>& b,
                                                     distributed::ReduceOp op) {
  const auto started = std::chrono::steady_clock::now();
  inner->allReduce(b, op);
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void ReplicatedExecutable::weightsFromHost() {
  for (auto& r : replicas_) r->weightsFromHost();
}

void ReplicatedExecutable::weightsToHost() {
  replicas_[0]->weightsToHost();  // every replica holds the same weights
}

void ReplicatedExecutable::tensorsFromHost(const std::vector<TensorId>& ids) {
  for (auto& r : replicas_) r->tensorsFromHost(ids);
}

void ReplicatedExecutable::setInput(const TensorId& id, const void* data) {
  replicas_[static_cast<size_t>(selected_)]->setInput(id, data);
}

void ReplicatedExecutable::execute() {
  throw internal_error("the replicas of a replicated executable run together (executeReplicas)");
}

const void* ReplicatedExecutable::tensorData(const TensorId& id) const {
  return replicas_[static_cast<size_t>(selected_)]->tensorData(id);
}

void ReplicatedExecutable::setRandomSeed(uint64_t seed) {
  for (size_t r = 0; r < replicas_.size(); ++r) {
    // splitmix64 of the seed and the global replica index: distinct streams per replica.
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(globalReplicaOffset_ + static_cast<int64_t>(r));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    replicas_[r]->setRandomSeed(r == 0 && globalReplicaOffset_ == 0 ? seed : z ^ (z >> 31));
  }
}

SessionMemoryStats ReplicatedExecutable::memoryStats() const {
  SessionMemoryStats total;
  for (const auto& r : replicas_) {
    const SessionMemoryStats s = r->memoryStats();
    total.activationArenaBytes += s.activationArenaBytes;
    total.activationTotalBytes += s.activationTotalBytes;
    total.weightBytes += s.weightBytes;
    total.constantBytes += s.constantBytes;
  }
  return total;
}

std::string ReplicatedExecutable::summary() const {
  std::ostringstream os;
  os << "Replicas: " << replicas_.size() << " in this process";
  if (processes_) os << " (process " << processes_->rank() << " of " << processes_->size() << ")";
  os << "\n";
  if (reductions_) {
    const double n = static_cast<double>(reductions_);
    os << "Exchanges between replicas (gradient sums, collectives): " << reductions_ << ", on average "
       << localSeconds_ / n * 1e3 << " ms over this process's replicas";
    if (processes_) os << " + " << processSeconds_ / n * 1e3 << " ms between the processes";
    os << "\n";
  }
  os << "Each replica holds the following\n" << replicas_[0]->summary();
  return os.str();
}

}  // namespace popart
