// Helpers of the weight-update kernels (SGD in kernels/grad.cpp, Adam and Adaptive in
// kernels/optim.cpp): tensors of any floating-point type read and written in blocks of doubles
// (the updates compute in double, whatever the weight and state types; the one exception is
// FLOAT SGD with momentum and no accumulation, fused into one float pass in grad.cpp),
// hyper-parameters that are constants or scalar tensors, and gradient accumulation. Input
// layout: ops/optim.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/kernel.hpp"
#include "ops/optim.hpp"
#include "popart/half.hpp"

namespace popart {
namespace cpu {
namespace optim {

/// Elements per block: the kernels keep a few blocks of doubles on the stack.
constexpr int64_t kBlock = 256;

/// A floating-point tensor of the op (absent: slot -1).
struct FBuf {
  int slot = -1;
  DataType type = DataType::UNDEFINED;

  bool present() const { return slot >= 0; }

  void load(const RunState& s, int64_t off, int64_t n, double* out) const {
    const void* p = s.slots[slot];
    switch (type) {
      case DataType::FLOAT:
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<const float*>(p)[off + i];
        break;
      case DataType::DOUBLE:
        std::memcpy(out, static_cast<const double*>(p) + off, static_cast<size_t>(n) * sizeof(double));
        break;
      case DataType::FLOAT16:
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(static_cast<const float16_t*>(p)[off + i]);
        break;
      case DataType::BFLOAT16:
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(static_cast<const bfloat16_t*>(p)[off + i]);
        break;
      default:
        break;
    }
  }

  void store(const RunState& s, int64_t off, int64_t n, const double* in) const {
    void* p = s.slots[slot];
    switch (type) {
      case DataType::FLOAT:
        for (int64_t i = 0; i < n; ++i) static_cast<float*>(p)[off + i] = static_cast<float>(in[i]);
        break;
      case DataType::DOUBLE:
        std::memcpy(static_cast<double*>(p) + off, in, static_cast<size_t>(n) * sizeof(double));
        break;
      case DataType::FLOAT16:
        for (int64_t i = 0; i < n; ++i) static_cast<float16_t*>(p)[off + i] = float16_t(static_cast<float>(in[i]));
        break;
      case DataType::BFLOAT16:
        for (int64_t i = 0; i < n; ++i) static_cast<bfloat16_t*>(p)[off + i] = bfloat16_t(static_cast<float>(in[i]));
        break;
      default:
        break;
    }
  }

  /// Element 0 (scalar states such as Step___w).
  double get(const RunState& s) const {
    double v = 0;
    load(s, 0, 1, &v);
    return v;
  }
  void set(const RunState& s, double v) const { store(s, 0, 1, &v); }

  /// Sets n elements to zero (all-zero bits are 0.0 in every floating-point type).
  void zero(const RunState& s, int64_t n) const {
    std::memset(s.slots[slot], 0, static_cast<size_t>(n) * dataTypeSize(type));
  }
};

inline FBuf fbuf(const Op& op, KernelContext& kc, int input) {
  FBuf b;
  if (!op.hasInput(input)) return b;
  b.slot = kc.in(input);
  b.type = op.inType(input);
  return b;
}

/// A hyper-parameter: a constant (the op attribute of its name) or its scalar tensor, read on
/// every run so that updateOptimizerFromHost takes effect at the next step.
struct Scalar {
  FBuf tensor;
  double value = 0;
  double get(const RunState& s) const { return tensor.present() ? tensor.get(s) : value; }
};

/// The op's hyper-parameters in the order of popart::optim::scalarNames(op).
inline std::vector<Scalar> scalars(const Op& op, KernelContext& kc) {
  const auto& names = popart::optim::scalarNames(op);
  const int first = popart::optim::firstScalarInput(op.kind());
  std::vector<Scalar> v(names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    const int i = first + static_cast<int>(k);
    if (op.hasInput(i)) {
      v[k].tensor = fbuf(op, kc, i);
    } else {
      v[k].value = op.attrs.getTensor(names[k]).getDouble(0);
    }
  }
  return v;
}

/// Gradient accumulation of one update op: the counter (the micro-batch within the step, advanced
/// by AccumulationCounterIncrement after every update op) and the accumulator.
struct Accumulation {
  FBuf accum;
  int counterSlot = -1;
  int64_t factor = 1;
  bool runningMean = false;
  bool preAccumulated = false;  // the gradient input already is the accumulated gradient

  bool enabled() const { return counterSlot >= 0; }
  /// The micro-batch index within the current accumulation (0 without accumulation).
  int64_t index(const RunState& s) const {
    return enabled() ? *static_cast<const int64_t*>(s.slots[counterSlot]) % factor : 0;
  }
  /// True on the micro-batch that applies the update (every one without accumulation).
  bool isLast(const RunState& s) const { return index(s) == factor - 1; }
  /// Accum += g (Sum / Post mean), or the running mean Accum += (g - Accum)/(k + 1).
  void accumulate(const RunState& s, const FBuf& g, int64_t n) const {
    const double k = static_cast<double>(index(s));
    double a[kBlock], gb[kBlock];
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      accum.load(s, off, m, a);
      g.load(s, off, m, gb);
      for (int64_t i = 0; i < m; ++i) a[i] = runningMean ? a[i] + (gb[i] - a[i]) / (k + 1.0) : a[i] + gb[i];
      accum.store(s, off, m, a);
    }
  }
};

inline Accumulation accumulation(const Op& op, KernelContext& kc) {
  Accumulation a;
  a.accum = fbuf(op, kc, popart::optim::kAccum);
  if (op.hasInput(popart::optim::kCounter)) a.counterSlot = kc.in(popart::optim::kCounter);
  a.factor = op.attrs.getInt("accumulationFactor", 1);
  a.runningMean = op.attrs.getInt("runningMean", 0) != 0;
  a.preAccumulated = op.attrs.getInt("preAccumulated", 0) != 0;
  if (!a.enabled()) a.factor = 1;
  return a;
}

}  // namespace optim
}  // namespace cpu
}  // namespace popart
