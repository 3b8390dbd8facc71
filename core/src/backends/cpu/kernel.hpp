// The CPU kernel interface. A kernel factory (`makeCpuKernel_<Op>`) inspects the op once, at
// compile time, and returns a function that runs it on the buffers of a RunState.
#pragma once

#include <cstdint>
#include <functional>
#include <random>

#include "ir/op.hpp"

namespace popart {
namespace cpu {

/// What a running kernel sees: one pointer per buffer slot, shared scratch memory, the RNG.
struct RunState {
  void* const* slots = nullptr;
  unsigned char* scratch = nullptr;
  std::mt19937_64* rng = nullptr;
};

using KernelFn = std::function<void(const RunState&)>;

/// What a kernel factory may ask for at compile time.
class KernelContext {
 public:
  virtual ~KernelContext() = default;
  /// The slot of input i (-1 when the optional input is absent).
  virtual int in(int i) const = 0;
  /// The slot of output i (-1 when the optional output is absent).
  virtual int out(int i) const = 0;
  /// Scratch memory the kernel needs while running (shared by all kernels).
  virtual void needScratch(size_t bytes) = 0;
};

template <typename T>
inline const T* inPtr(const RunState& s, int slot) {
  return static_cast<const T*>(s.slots[slot]);
}
template <typename T>
inline T* outPtr(const RunState& s, int slot) {
  return static_cast<T*>(s.slots[slot]);
}

using KernelFactory = KernelFn (*)(const Op& op, KernelContext& kc);

/// The factory for an op kind (every op of the list has one; the link fails otherwise).
KernelFactory kernelFactory(OpKind k);

/// Arithmetic type for an element type: float for the 16-bit float formats.
template <typename T>
struct Compute {
  using type = T;
};
template <>
struct Compute<float16_t> {
  using type = float;
};
template <>
struct Compute<bfloat16_t> {
  using type = float;
};
template <typename T>
using compute_t = typename Compute<T>::type;

}  // namespace cpu
}  // namespace popart
