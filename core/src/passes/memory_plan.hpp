// Buffer reuse by liveness: tensors whose lifetimes do not overlap share memory.
#pragma once

#include <cstdint>
#include <vector>

namespace popart {

struct LiveRange {
  int64_t bytes;
  int first;  ///< schedule index of the producer
  int last;   ///< schedule index of the last reader (inclusive)
};

struct ArenaPlan {
  std::vector<int64_t> offsets;  ///< per LiveRange
  int64_t arenaBytes = 0;        ///< the arena size (the peak); -1 when the sizes overflow int64
  int64_t totalBytes = 0;        ///< the sum of all sizes (no reuse); -1 on overflow
};

/// Greedy-by-size offset assignment (as TFLite's arena planner): the largest buffers are placed
/// first at the lowest offset that does not overlap any placed buffer alive at the same time.
/// Offsets are multiples of `alignment`.
ArenaPlan planArena(const std::vector<LiveRange>& ranges, int64_t alignment = 64);

}  // namespace popart
