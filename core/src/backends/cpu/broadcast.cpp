#include "backends/cpu/broadcast.hpp"

#include <algorithm>
#include <cstring>

#include "popart/tensorinfo.hpp"

namespace popart {
namespace cpu {

int64_t BroadcastPlan::outer() const {
  int64_t n = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) n *= dims[i];
  return n;
}

bool BroadcastPlan::allContiguous() const {
  if (dims.size() != 1) return false;
  for (const auto& s : strides) {
    if (s[0] != 1) return false;
  }
  return true;
}

BroadcastPlan makeBroadcastPlan(const Shape& out, const std::vector<Shape>& ins) {
  const size_t r = out.size();
  const size_t n = ins.size();
  // Per input: strides aligned to the output's rank, 0 on broadcast dimensions.
  std::vector<std::vector<int64_t>> st(n, std::vector<int64_t>(r, 0));
  for (size_t k = 0; k < n; ++k) {
    const Shape& s = ins[k];
    const size_t off = r - s.size();
    // An empty input is never read (the output is empty too); its other dimensions may be too big
    // for a stride ([0, 2^63 - 1, 4] has no elements).
    if (std::find(s.begin(), s.end(), 0) != s.end()) continue;
    int64_t stride = 1;
    for (size_t i = s.size(); i-- > 0;) {
      st[k][i + off] = s[i] == 1 ? 0 : stride;
      stride *= s[i];
    }
  }
  BroadcastPlan p;
  p.strides.assign(n, {});
  for (size_t i = 0; i < r; ++i) {
    if (out[i] == 1) continue;  // size-1 output dims carry nothing
    if (!p.dims.empty()) {
      // Merge with the previous kept dim when every input stays affine across both.
      bool merge = true;
      for (size_t k = 0; k < n; ++k) {
        if (p.strides[k].back() != st[k][i] * out[i]) merge = false;
      }
      if (merge) {
        p.dims.back() *= out[i];
        for (size_t k = 0; k < n; ++k) p.strides[k].back() = st[k][i];
        continue;
      }
    }
    p.dims.push_back(out[i]);
    for (size_t k = 0; k < n; ++k) p.strides[k].push_back(st[k][i]);
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    for (size_t k = 0; k < n; ++k) p.strides[k].push_back(0);
  }
  // An empty output (a zero dimension) has nothing to visit.
  for (auto d : out) {
    if (d == 0) {
      p.dims.assign(1, 0);
      for (size_t k = 0; k < n; ++k) p.strides[k].assign(1, 0);
    }
  }
  return p;
}

void forEachRunPtr(const BroadcastPlan& p, size_t n, RunFn run, void* ctx) {
  const size_t r = p.dims.size();
  const int64_t inner = p.inner();
  int64_t innerStride[kMaxRunInputs] = {};
  int64_t off[kMaxRunInputs] = {};
  for (size_t k = 0; k < n; ++k) innerStride[k] = p.strides[k][r - 1];
  std::vector<int64_t> idx(r, 0);
  const int64_t outer = p.outer();
  for (int64_t o = 0; o < outer; ++o) {
    run(ctx, o * inner, off, inner, innerStride);
    // odometer over dims [0, r-1)
    for (size_t d = r - 1; d-- > 0;) {
      if (++idx[d] < p.dims[d]) {
        for (size_t k = 0; k < n; ++k) off[k] += p.strides[k][d];
        break;
      }
      for (size_t k = 0; k < n; ++k) off[k] -= p.strides[k][d] * (p.dims[d] - 1);
      idx[d] = 0;
    }
  }
}

void broadcastCopy(const void* in, const Shape& inShape, void* out, const Shape& outShape, size_t bytes) {
  const BroadcastPlan p = makeBroadcastPlan(outShape, {inShape});
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  forEachRun<1>(p, [&](int64_t o, const int64_t* off, int64_t len, const int64_t* is) {
    if (is[0] == 1) {
      std::memcpy(dst + o * static_cast<int64_t>(bytes), src + off[0] * static_cast<int64_t>(bytes),
                  static_cast<size_t>(len) * bytes);
    } else {
      for (int64_t i = 0; i < len; ++i)
        std::memcpy(dst + (o + i) * static_cast<int64_t>(bytes), src + off[0] * static_cast<int64_t>(bytes), bytes);
    }
  });
}

BatchedMatMul batchedMatMul(Shape a, Shape b) {
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  BatchedMatMul m;
  m.M = a[a.size() - 2];
  m.K = a.back();
  m.N = b.back();
  const Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  const Shape batch = npOut(batchA, batchB);
  for (auto d : batch) m.nb *= d;
  const BroadcastPlan p = makeBroadcastPlan(batch.empty() ? Shape{1} : batch,
                                            {batchA.empty() ? Shape{1} : batchA, batchB.empty() ? Shape{1} : batchB});
  forEachRun<2>(p, [&](int64_t, const int64_t* off, int64_t len, const int64_t* st) {
    for (int64_t j = 0; j < len; ++j) {
      m.offA.push_back(off[0] + j * st[0]);
      m.offB.push_back(off[1] + j * st[1]);
    }
  });
  return m;
}

}  // namespace cpu
}  // namespace popart
