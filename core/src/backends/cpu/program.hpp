// A compiled graph: one buffer slot per tensor (streams / graph inputs, constants, weights,
// arena buffers, views aliasing them, string arrays), a liveness-based arena plan, and one kernel
// per scheduled op. The main graph's executable wraps one; control-flow kernels compile their
// subgraphs into their own.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/kernel.hpp"
#include "common/aligned_buffer.hpp"
#include "ir/graph.hpp"
#include "passes/memory_plan.hpp"
#include "popart/report.hpp"
#include "popart/session.hpp"

namespace popart {
namespace cpu {

class Program {
 public:
  /// Compiles `schedule` (ops of `graph`). `keepAlive` tensors (anchors, graph outputs) keep
  /// their buffers valid until run() returns.
  Program(const Graph& graph, const std::vector<Op*>& schedule, const std::vector<const Tensor*>& keepAlive,
          bool profile);
  /// A subgraph's program: its topological order, keeping its outputs alive.
  static std::shared_ptr<Program> forSubgraph(const Graph& graph);

  /// The slot of a tensor (-1 if the program has none).
  int slot(const TensorId& id) const;
  void setPtr(int slot, const void* p) { ptrs_[static_cast<size_t>(slot)] = const_cast<void*>(p); }
  void* ptr(int slot) const { return ptrs_[static_cast<size_t>(slot)]; }
  /// Runs every kernel once (views are re-pointed at their roots first).
  void run(std::mt19937_64& rng);
  /// The ops that end every phase but the last, in schedule order: GradientAllReduce, whose
  /// outputs replicated training sums across the replicas between two phases, and the user's
  /// ReplicatedAllReduce ops when there are several replicas.
  std::vector<const Op*> reductions() const;
  size_t numPhases() const { return phaseEnds_.size(); }
  /// Runs phase k of reductions().size() + 1: the kernels after reduction k - 1, up to and
  /// including reduction k (phase 0 re-points the views first). run() runs them all.
  void runPhase(std::mt19937_64& rng, size_t k);
  /// SessionOptions::enableFloatingPointChecks: after each kernel, its floating-point outputs
  /// are scanned and the first NaN or infinity is an error naming the op and the tensor.
  void setFloatingPointChecks(bool on) { fpChecks_ = on; }

  /// Weight slots (Variable tensors) and their device buffers.
  std::map<int, AlignedBuffer>& weights() { return weights_; }
  const Tensor& slotTensor(int s) const { return *slots_[static_cast<size_t>(s)].tensor; }
  const SessionMemoryStats& stats() const { return stats_; }
  size_t numKernels() const { return steps_.size(); }
  size_t scratchBytes() const { return scratch_.size(); }
  std::string profileText(int64_t runs) const;
  /// With profiling: every step's op and its measured time over `runs` micro-batches.
  std::vector<report::HostOp> hostOps(int64_t runs) const;
  double lastRunUs() const { return lastRunUs_; }

 private:
  enum class SlotKind { Stream, Const, Weight, Arena, Alias, Strings };
  struct Slot {
    SlotKind kind;
    const Tensor* tensor;
    int root = -1;
  };
  struct ScratchNeed {
    int64_t bytes = 0;  // < 0: overflowed
    const Op* op = nullptr;
  };
  /// Throws memory_allocation_err when the program's buffers do not fit the memory limit.
  void checkMemory(const ArenaPlan& plan, const ScratchNeed& scratch) const;
  int addSlot(const Tensor* t, SlotKind k);
  int slotFor(const Tensor* t);
  void build(const std::vector<Op*>& schedule, const std::vector<const Tensor*>& keepAlive);

  std::vector<Slot> slots_;
  std::map<const Tensor*, int> slotOf_;
  std::map<TensorId, int> slotById_;
  std::vector<void*> ptrs_;
  std::vector<int> aliasOrder_;
  std::map<int, AlignedBuffer> weights_;
  std::map<int, std::vector<std::string>> strings_;
  AlignedBuffer arena_, scratch_;
  std::vector<KernelFn> steps_;
  std::vector<const Op*> stepOps_;
  std::vector<size_t> phaseEnds_;  ///< the end (exclusive) of each phase's steps
  SessionMemoryStats stats_;
  bool profile_ = false;
  bool fpChecks_ = false;
  void checkFloatingPoint(const Op& op) const;
  std::vector<double> opUs_;
  double lastRunUs_ = 0;
};

}  // namespace cpu
}  // namespace popart
