#include "passes/memory_plan.hpp"

#include <algorithm>
#include <numeric>

#include "common/checked_size.hpp"

namespace popart {

ArenaPlan planArena(const std::vector<LiveRange>& ranges, int64_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(ranges.size(), 0);
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ranges[a].bytes > ranges[b].bytes; });
  struct Placed {
    int64_t off, end;
    int first, last;
  };
  std::vector<Placed> placed;
  placed.reserve(ranges.size());
  for (size_t idx : order) {
    const LiveRange& r = ranges[idx];
    int64_t size = 0, end = 0;
    if (r.bytes < 0 || !checkedAdd(std::max<int64_t>(r.bytes, 1), alignment - 1, &size) ||
        !checkedAdd(plan.totalBytes, r.bytes, &plan.totalBytes)) {
      plan.arenaBytes = plan.totalBytes = -1;  // the sizes overflow int64: the caller reports it
      return plan;
    }
    size = size / alignment * alignment;
    // Candidate gaps between buffers alive at the same time, sorted by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (const auto& p : placed) {
      if (p.first <= r.last && r.first <= p.last) busy.push_back({p.off, p.end});
    }
    std::sort(busy.begin(), busy.end());
    int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
    for (const auto& b : busy) {
      if (b.first - cursor >= size && b.first - cursor < bestGap) {
        best = cursor;
        bestGap = b.first - cursor;
      }
      cursor = std::max(cursor, b.second);
    }
    if (best < 0) best = cursor;
    if (!checkedAdd(best, size, &end)) {
      plan.arenaBytes = plan.totalBytes = -1;
      return plan;
    }
    plan.offsets[idx] = best;
    placed.push_back({best, end, r.first, r.last});
    plan.arenaBytes = std::max(plan.arenaBytes, end);
  }
  return plan;
}

}  // namespace popart
