// Sizes in one place: element counts, byte sizes and offsets are int64 products checked for
// overflow, and every allocation sized from a model or a user's value is compared with the
// memory limit (popart/memorylimit.hpp) before it is made. size_t is 32 bits in WebAssembly, so a
// size becomes a size_t only through allocationSize(), after these checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "popart/names.hpp"

namespace popart {

/// *out = a * b; false when the product overflows int64 (*out is then unspecified).
inline bool checkedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
/// *out = a + b; false on int64 overflow.
inline bool checkedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
/// The product of non-negative factors, or -1 when it overflows int64.
int64_t checkedProduct(std::initializer_list<int64_t> factors);
/// The element count of `shape`, or -1 when it overflows int64.
int64_t checkedProduct(const Shape& shape);

/// "4.00 GiB (4294967360 bytes)".
std::string formatBytes(int64_t bytes);
/// Where the memory limit in force comes from ("the machine's physical memory", ...).
std::string memoryLimitSource();

/// Whether a buffer of `bytes` may be allocated: 0 <= bytes <= the memory limit (and fits a
/// size_t). `bytes` < 0 stands for an overflowed size.
bool allocationFits(int64_t bytes);
/// Throws popart::memory_allocation_err for a buffer `what` (e.g. "the anchor array for 'y'")
/// of `bytes` that does not fit.
[[noreturn]] void throwOverMemoryLimit(int64_t bytes, const std::string& what);

/// `bytes` as a size_t, or the memory-limit error; `what` is a string or a callable returning
/// one (built only when the error is thrown).
template <typename What>
size_t allocationSize(int64_t bytes, What&& what) {
  if (allocationFits(bytes)) return static_cast<size_t>(bytes);
  if constexpr (std::is_invocable_v<What>) {
    throwOverMemoryLimit(bytes, what());
  } else {
    throwOverMemoryLimit(bytes, what);
  }
}

}  // namespace popart
