// VirtualGraphMode::Auto: PopART's AutoVirtualGraph transform. The forward ops are split over
// the IPUs of a replica by their cost (the bytes of the weights they read and, when training, of
// the activations their gradient ops read), at the points where a branch of the graph collapses
// into one op; the split is written as each op's virtual graph id (`__ipu_number`), which the
// gradient ops inherit from their forward op (docs/ipu-model.md, "Placement").
#pragma once

#include <cstdint>
#include <vector>

namespace popart {

class Ir;
class Op;

namespace passes {

/// Used by passes::prepare in three steps, around the training graph:
///   AutoVirtualGraph avg(ir, numIpus);  // after Ir::load: remembers the forward ops
///   addTrainingGraph(...);               // gradient ops copy their forward op's annotation
///   avg.apply();                         // the split, PopART's errors, the pipelining depth
///   ...patterns, prune, schedule...
///   avg.placeRemaining();                // ops the IR added on its own (gradient sums, updates)
/// Nothing happens unless virtualGraphMode is Auto and a replica has more than one IPU.
class AutoVirtualGraph {
 public:
  /// `numIpus`: the device's IPUs (a replica has numIpus / replication factor of them). When
  /// training, tags every forward op with its index as a provisional `__ipu_number` so that the
  /// training graph's gradient ops carry it (the cost needs to know what they read).
  AutoVirtualGraph(Ir& ir, int64_t numIpus);

  /// Splits the forward ops, sets the `__ipu_number` of every tagged op, and checks the
  /// pipelining depth when pipelining. Throws PopART's "[AutoVirtualGraph] Couldn't find enough
  /// splits for {} IPUs. Only found {}" when the graph has too few split points.
  void apply();

  /// After the final schedule: every op still without an `__ipu_number` takes the IPU of the
  /// weight it updates (that weight's first reader's), else the latest IPU among the producers of
  /// its inputs, else the IPU of its first consumer, else 0.
  void placeRemaining();

  /// Whether the pass applies to this session (Auto mode, more than one IPU per replica).
  bool active() const { return ipus_ > 1; }
  int64_t ipusPerReplica() const { return ipus_; }

 private:
  Ir& ir_;
  int64_t ipus_ = 0;
  /// The forward ops in topological order (index = provisional tag when training).
  std::vector<Op*> forward_;
};

}  // namespace passes
}  // namespace popart
