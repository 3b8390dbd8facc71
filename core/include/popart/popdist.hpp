/// \file popdist.hpp
/// PopDist's calls as PopART scripts make them (`popdist` / `popdist.popart` in Python): where
/// this process stands in a distributed launch (poprun, or mpirun directly) and the session
/// options and device for it. Values come from the POPDIST_* variables a poprun launch sets and,
/// where they are absent, from the MPI launch (rank and size); a process started on its own is
/// instance 0 of 1 with one replica.
#pragma once

#include <cstdint>
#include <memory>

namespace popart {
class DeviceInfo;
struct SessionOptions;
}  // namespace popart

namespace popdist {

/// Whether this build can distribute a session over processes (built with Open MPI; not the
/// WebAssembly module). This runtime's own call.
bool isDistributionAvailable();
/// Whether the process was started by poprun (POPDIST_NUM_TOTAL_REPLICAS set) or by an MPI
/// launcher.
bool isPopdistEnvSet();
/// Starts MPI for this process when it was started by a launcher (the processes of the launch
/// meet). Sessions do this themselves when they need it; calling it early reports a broken launch
/// before any model is built.
void init();
/// This process's index among the launch's processes (its MPI rank), and their number.
int64_t getInstanceIndex();
int64_t getNumInstances();
/// Replicas this process runs (POPDIST_NUM_LOCAL_REPLICAS, else 1).
int64_t getNumLocalReplicas();
/// Replicas of the whole launch (POPDIST_NUM_TOTAL_REPLICAS, else local replicas x instances).
int64_t getNumTotalReplicas();
/// The global index of this process's first replica (POPDIST_REPLICA_INDEX_OFFSET, else
/// instance index x local replicas).
int64_t getReplicaIndexOffset();
/// IPUs per replica (POPDIST_NUM_IPUS_PER_REPLICA, else 1).
int64_t getNumIpusPerReplica();

namespace popart {
/// Sets what a distributed session needs from the launch: replicatedGraphCount (and
/// enableReplicatedGraphs when above 1), enableDistributedReplicatedGraphs (more than one
/// instance), globalReplicationFactor, globalReplicaOffset.
void configureSessionOptions(::popart::SessionOptions& options);
/// The device for this process's replicas: this build has no IPUs, so the CPU device (an IPU
/// model device of getNumLocalReplicas() x ipusPerReplica IPUs can be made with the
/// DeviceManager instead).
std::shared_ptr<::popart::DeviceInfo> getDevice(int64_t ipusPerReplica = 1);
}  // namespace popart

}  // namespace popdist
