// Replicated training in one process (PopART's enableReplicatedGraphs + replicatedGraphCount):
// one compiled program per local replica, run in lock-step over the phases their
// GradientAllReduce cuts (optimizers/training_graph.cpp adds one op taking every weight's
// gradient). A micro-batch runs phase 0 on every replica, sums the gradients over the replicas
// (replica order, then across processes when the session is distributed), gives every replica the
// sum (times 1 / replicas for a mean reduction), then runs the last phase (the weight updates) on
// every replica. All replicas start from the same weights and apply the same update, so they stay
// identical; weights are read back from replica 0.
//
// Replicas run one after another; the kernels of each spread over the thread pool. This needs no
// thread per replica, so it runs the same natively and in WebAssembly, and the sums are
// deterministic.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "distributed/process_group.hpp"
#include "session/replica_exchange.hpp"

namespace popart {

class ReplicatedExecutable final : public Executable {
 public:
  /// `replicas`: the local replicas' executables (of one IR), at least one. `processes`: the
  /// other processes of a distributed session (nullptr: this process alone), and this process's
  /// first global replica index (PopART's globalReplicaOffset), which seeds its random ops.
  ReplicatedExecutable(std::vector<std::unique_ptr<Executable>> replicas, distributed::ProcessGroup* processes,
                       int64_t globalReplicaOffset);

  int numReplicas() const { return static_cast<int>(replicas_.size()); }
  /// The local replicas' executables, in replica order.
  std::vector<Executable*> replicaExecutables() const;
  /// setInput and tensorData address local replica `r` from now on.
  void selectReplica(int r);
  /// One micro-batch on every replica, the collectives carried out between the phases;
  /// `stepEnd`: the step's last micro-batch (gradient accumulation sums the accumulators only then).
  void executeReplicas(bool stepEnd = true);

  void weightsFromHost() override;
  void weightsToHost() override;
  void tensorsFromHost(const std::vector<TensorId>& ids) override;
  void setInput(const TensorId& id, const void* data) override;
  /// Replicas only run together: executeReplicas().
  void execute() override;
  const void* tensorData(const TensorId& id) const override;
  /// Replica r's random ops take a seed derived from `seed` and its global replica index (PopART
  /// seeds each replica differently).
  void setRandomSeed(uint64_t seed) override;
  /// Every replica's buffers (the weights and activations of each).
  SessionMemoryStats memoryStats() const override;
  /// The replicas, the time the gradient sums took, and replica 0's summary.
  std::string summary() const override;
  const report::Compilation* compilation() const override { return replicas_[0]->compilation(); }
  std::vector<report::HostOp> hostOps() const override { return replicas_[0]->hostOps(); }
  bool canExecute() const override { return replicas_[0]->canExecute(); }

 private:
  /// Carries out `op` (a collective across replicas) between the replicas, or starts it (a
  /// gradient sum between processes, completed before the last phase).
  void reduce(const Op& op, bool stepEnd);
  /// Waits for the sums under way and gives them to every replica.
  void completePending();

  /// The processes, timing what the exchanges spend between them.
  struct TimedProcesses final : distributed::ProcessGroup {
    explicit TimedProcesses(distributed::ProcessGroup* p) : inner(p) {}
    int rank() const override { return inner->rank(); }
    int size() const override { return inner->size(); }
    void allReduce(const std::vector<distributed::Buffer>& b, distributed::ReduceOp op) override;
    void broadcast(const std::vector<distributed::Buffer>& b, int root) override { inner->broadcast(b, root); }
    std::vector<uint64_t> allGather(const std::vector<uint64_t>& v) override { return inner->allGather(v); }
    std::vector<std::string> allGatherStrings(const std::string& s) override { return inner->allGatherStrings(s); }
    distributed::ProcessGroup* inner;
    double seconds = 0;
  };

  std::vector<std::unique_ptr<Executable>> replicas_;
  std::vector<PendingExchange> pending_;  ///< gradient sums between the processes under way
  std::vector<const Op*> cuts_;           ///< the ops the replicas' programs' phases end at (replica 0's)
  distributed::ProcessGroup* processes_;
  TimedProcesses timedProcesses_;
  int64_t globalReplicaOffset_;
  int selected_ = 0;
  int64_t reductions_ = 0;
  double localSeconds_ = 0, processSeconds_ = 0;  ///< time summing, in and between processes
};

}  // namespace popart
