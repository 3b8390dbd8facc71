// The CPU kernel interface. A kernel factory (`makeCpuKernel_<Op>`) inspects the op once, at
// compile time, and returns a function that runs it on the buffers of a RunState.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <type_traits>
#include <utility>

#include "common/checked_size.hpp"
#include "ir/op.hpp"
#include "popart/error.hpp"

namespace popart {
namespace cpu {

/// What a running kernel sees: one pointer per buffer slot, shared scratch memory, the RNG.
struct RunState {
  void* const* slots = nullptr;
  unsigned char* scratch = nullptr;
  std::mt19937_64* rng = nullptr;
};

/// A kernel ready to run: any callable taking the RunState, held by shared ownership (copies run
/// the same callable). Unlike std::function it keeps no type_info per callable: std::function's
/// target_type() kept the mangled name of each of the ~1,300 kernel lambdas, about half a
/// megabyte of the WebAssembly module.
class KernelFn {
 public:
  KernelFn() = default;
  KernelFn(std::nullptr_t) {}  // implicit, as std::function's: the empty kernel
  template <typename F, typename D = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<D, KernelFn> && std::is_invocable_v<D&, const RunState&>>>
  KernelFn(F&& f)  // implicit, as std::function's
      : state_(static_cast<void*>(new D(std::forward<F>(f))), &destroy<D>), run_(&call<D>) {}
  void operator()(const RunState& s) const { run_(state_.get(), s); }
  explicit operator bool() const { return run_ != nullptr; }

 private:
  template <typename D>
  static void destroy(void* p) {
    delete static_cast<D*>(p);
  }
  template <typename D>
  static void call(void* p, const RunState& s) {
    (*static_cast<D*>(p))(s);
  }
  std::shared_ptr<void> state_;  // one control-block type for every callable
  void (*run_)(void*, const RunState&) = nullptr;
};

/// What a kernel factory may ask for at compile time.
class KernelContext {
 public:
  virtual ~KernelContext() = default;
  /// The slot of input i (-1 when the optional input is absent).
  virtual int in(int i) const = 0;
  /// The slot of output i (-1 when the optional output is absent).
  virtual int out(int i) const = 0;
  /// Scratch memory the kernel needs while running (shared by all kernels), computed in int64
  /// (size_t is 32 bits in WebAssembly); < 0 stands for a size that overflowed. The program
  /// checks the largest request against the memory limit.
  virtual void needScratch(int64_t bytes) = 0;
};

/// Scratch layout sizes in needScratch's convention (-1 an overflowed size, which stays -1): `n`
/// rounded up to 64 bytes, and the sum of two sizes.
inline int64_t scratchAlign(int64_t n) {
  constexpr int64_t kAlign = 64;
  int64_t r = 0;
  return n < 0 || !checkedAdd(n, kAlign - 1, &r) ? -1 : r / kAlign * kAlign;
}
inline int64_t scratchSum(int64_t a, int64_t b) {
  int64_t r = 0;
  return a < 0 || b < 0 || !checkedAdd(a, b, &r) ? -1 : r;
}

template <typename T>
inline const T* inPtr(const RunState& s, int slot) {
  return static_cast<const T*>(s.slots[slot]);
}
template <typename T>
inline T* outPtr(const RunState& s, int slot) {
  return static_cast<T*>(s.slots[slot]);
}

/// Bytes per element of input i.
inline size_t elemSize(const Op& op, int i) {
  return static_cast<size_t>(dataTypeSize(op.inType(i)));
}

/// For kernels that move bytes of numeric types only.
inline void checkNotString(const Op& op) {
  for (int i = 0; i < op.numInputs(); ++i) {
    if (op.hasInput(i) && op.inType(i) == DataType::STRING)
      throw error("{}: STRING tensors are not supported by this kernel", op.describe());
  }
}

using KernelFactory = KernelFn (*)(const Op& op, KernelContext& kc);

/// Output 0 = input 0, byte for byte (nothing when the planner aliased them): identities,
/// reshapes, copies.
KernelFn copyKernel(const Op& op, KernelContext& kc);

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
