// PopDist's calls (popart/popdist.hpp): the launch's POPDIST_* variables, else the MPI launch.
#include "popart/popdist.hpp"

#include <cstdlib>
#include <string>

#include "distributed/process_group.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/sessionoptions.hpp"

namespace popdist {
namespace {

/// A POPDIST_* variable as a count >= `least`; `fallback` when unset; an error naming it when it
/// is not a number.
int64_t popdistVar(const char* name, int64_t fallback, int64_t least = 1) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  if (!end || *end != '\0' || n < least) throw ::popart::error("{}='{}' must be an integer >= {}", name, v, least);
  return static_cast<int64_t>(n);
}

}  // namespace

bool isDistributionAvailable() {
  return ::popart::distributed::distributionAvailable();
}

bool isPopdistEnvSet() {
  return std::getenv("POPDIST_NUM_TOTAL_REPLICAS") != nullptr || ::popart::distributed::launchInfo().launched;
}

void init() {
  // A process started on its own has nobody to meet: MPI starts only under a launcher.
  if (::popart::distributed::launchInfo().launched) ::popart::distributed::world();
}

int64_t getInstanceIndex() {
  return ::popart::distributed::launchInfo().rank;
}

int64_t getNumInstances() {
  return ::popart::distributed::launchInfo().size;
}

int64_t getNumLocalReplicas() {
  return popdistVar("POPDIST_NUM_LOCAL_REPLICAS", 1);
}

int64_t getNumTotalReplicas() {
  return popdistVar("POPDIST_NUM_TOTAL_REPLICAS", getNumLocalReplicas() * getNumInstances());
}

int64_t getReplicaIndexOffset() {
  // poprun gives every instance the same number of replicas (POPDIST_UNIFORM_REPLICAS_PER_INSTANCE).
  return popdistVar("POPDIST_REPLICA_INDEX_OFFSET", getInstanceIndex() * getNumLocalReplicas(), 0);
}

int64_t getNumIpusPerReplica() {
  return popdistVar("POPDIST_NUM_IPUS_PER_REPLICA", 1);
}

namespace popart {

void configureSessionOptions(::popart::SessionOptions& options) {
  const int64_t local = getNumLocalReplicas(), total = getNumTotalReplicas();
  options.replicatedGraphCount = local;
  options.enableReplicatedGraphs = local > 1;
  options.enableDistributedReplicatedGraphs = getNumInstances() > 1;
  options.globalReplicationFactor = total;
  options.globalReplicaOffset = getReplicaIndexOffset();
  ::popart::logging::session::info("popdist: instance {} of {}, replicas {} to {} of {}", getInstanceIndex(),
                                   getNumInstances(), options.globalReplicaOffset,
                                   options.globalReplicaOffset + local - 1, total);
}

std::shared_ptr<::popart::DeviceInfo> getDevice(int64_t ipusPerReplica) {
  if (ipusPerReplica < 1) throw ::popart::error("getDevice: ipusPerReplica ({}) must be at least 1", ipusPerReplica);
  return ::popart::DeviceManager::createDeviceManager().createCpuDevice();
}

}  // namespace popart
}  // namespace popdist
