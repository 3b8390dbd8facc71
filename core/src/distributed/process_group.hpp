// The processes of a distributed session (PopART's enableDistributedReplicatedGraphs, launched by
// poprun / mpirun): each process runs its local replicas (session/replicated_executable.hpp) and
// the processes sum the replicas' gradients through a ProcessGroup. The interface is the few
// collectives replicated training needs; an implementation is a distributed engine's (Open MPI),
// not a transport of this project's own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "popart/datatype.hpp"

namespace popart {
namespace distributed {

/// `n` elements of `type` at `data`.
struct Buffer {
  void* data;
  DataType type;
  int64_t n;
};

/// How the processes' values combine. BitOr works on the bytes of any element type (an
/// all-gather: each process fills its part of a zeroed buffer).
enum class ReduceOp { Sum, Prod, Min, Max, LogicalAnd, LogicalOr, BitOr };

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  /// This process's index, and the number of processes.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Each buffer becomes the element-wise combination (`op`) of that buffer over every process
  /// (each process makes the same calls, with the same types and sizes, in the same order).
  /// Arithmetic takes FLOAT, DOUBLE, INT32, INT64, FLOAT16 and BFLOAT16 (the 16-bit floats
  /// combine as floats), the logical operators BOOL, BitOr any type.
  virtual void allReduce(const std::vector<Buffer>& buffers, ReduceOp op = ReduceOp::Sum) = 0;
  /// Starts allReduce(buffers, op) and returns a ticket at once: the reduction runs while the
  /// caller goes on (on the group's own thread where the MPI library allows it), in the order
  /// started. The buffers must stay untouched until finish(ticket). This default runs it now.
  virtual int64_t startAllReduce(const std::vector<Buffer>& buffers, ReduceOp op) {
    allReduce(buffers, op);
    return 0;
  }
  /// Waits for reduction `ticket` and those started before it; throws what one of them threw.
  virtual void finish(int64_t ticket) { (void)ticket; }
  /// Each buffer takes process `root`'s bytes.
  virtual void broadcast(const std::vector<Buffer>& buffers, int root) = 0;
  /// Every process's `mine` (the same number of values on each), in rank order.
  virtual std::vector<uint64_t> allGather(const std::vector<uint64_t>& mine) = 0;
  /// Every process's string, in rank order.
  virtual std::vector<std::string> allGatherStrings(const std::string& mine) = 0;
};

/// Where this process stands in a launch by mpirun / poprun, read from the launcher's
/// environment (OMPI_COMM_WORLD_*, PMIX_RANK, ...) without starting MPI: rank 0 of 1 when the
/// process was started on its own.
struct LaunchInfo {
  int rank = 0;
  int size = 1;
  int localRank = 0;
  bool launched = false;  ///< started by an MPI launcher
};
LaunchInfo launchInfo();

/// Whether this build can distribute a session over processes (native builds with Open MPI).
bool distributionAvailable();

/// The processes started together (MPI_COMM_WORLD), MPI initialised on first use unless the
/// program already did (mpi4py, ...). Throws popart::error when the build has no MPI (the
/// WebAssembly module) or MPI cannot start.
ProcessGroup& world();

/// How long a collective waits for the other processes before it is an error: the environment
/// variable POPART_DISTRIBUTED_TIMEOUT (seconds), 300 by default.
double collectiveTimeoutSeconds();

}  // namespace distributed
}  // namespace popart
