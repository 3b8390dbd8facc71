// The collectives between replicas (ops/collectives.hpp) carried out on the host between the
// phases of the local replicas' programs: the replicas of one group combine in replica order (the
// same result on every run and in every process), then across processes through a
// distributed::ProcessGroup when the session is distributed.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/backend.hpp"
#include "distributed/process_group.hpp"

namespace popart {

class Op;

/// Carries out collective `op` (an op ops::acrossReplicas names) between `replicas`, the
/// executables of this process's replicas (global replica indices `firstReplica` on), each having
/// run up to `op`. `processes`: the other processes of a distributed session (nullptr: none);
/// every process makes the same calls in the same order.
void exchangeAcrossReplicas(const Op& op, const std::vector<Executable*>& replicas, int64_t firstReplica,
                            distributed::ProcessGroup* processes);

/// A gradient sum whose part between the processes is under way (startAllReduce): replica 0's
/// outputs hold this process's sum until completeExchange.
struct PendingExchange {
  const Op* op = nullptr;
  std::vector<distributed::Buffer> sums;
  int64_t ticket = 0;
  double scale = 1.0;
};

/// Starts a gradient sum over every replica (a GradientAllReduce of one group) of a distributed
/// session: the local sum now, the sum between the processes on their own (overlapping the
/// replicas' next phases). False (nothing done) for any other collective.
bool startExchange(const Op& op, const std::vector<Executable*>& replicas, distributed::ProcessGroup& processes,
                   PendingExchange& pending);
/// Waits for a started sum, scales it and gives it to every replica.
void completeExchange(const PendingExchange& pending, const std::vector<Executable*>& replicas,
                      distributed::ProcessGroup& processes);

}  // namespace popart
