// The processes of a distributed session (PopART's enableDistributedReplicatedGraphs, launched by
// poprun / mpirun): each process runs its local replicas (session/replicated_executable.hpp) and
// the processes sum the replicas' gradients through a ProcessGroup. The interface is the few
// collectives replicated training needs; an implementation is a distributed engine's (Open MPI),
// not a transport of this project's own.
#pragma once

#include <cstdint>
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

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  /// This process's index, and the number of processes.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Each buffer becomes the element-wise sum of that buffer over every process (each process
  /// makes the same calls, with the same types and sizes, in the same order).
  virtual void allReduceSum(const std::vector<Buffer>& buffers) = 0;
  /// Each buffer takes process `root`'s bytes.
  virtual void broadcast(const std::vector<Buffer>& buffers, int root) = 0;
};

}  // namespace distributed
}  // namespace popart
