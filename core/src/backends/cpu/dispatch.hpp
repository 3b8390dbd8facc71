// Element-type dispatch for kernels.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/element_type.hpp"
#include "popart/error.hpp"
#include "popart/tensorinfo.hpp"

namespace popart {
namespace cpu {

inline constexpr const char* kNumericOnly = "element type {} is not supported by this kernel (numeric types only)";

/// f(T{}) for the floating-point types.
template <typename F>
auto dispatchFloat(DataType t, F&& f) {
  return visitElementType<ElementTypes::Float>(
      t, std::forward<F>(f), "element type {} is not supported by this kernel (floating-point types only)");
}

/// f(T{}) for FLOAT and DOUBLE (kernels built on gemm); for the 16-bit floating-point types, which
/// their ops reject at setup, an empty result (KernelFn()).
template <typename F>
auto dispatchFloatOrDouble(DataType t, F&& f) {
  return dispatchFloat(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      return f(tag);
    else
      return decltype(f(float{})){};
  });
}

/// f(T{}) for every numeric type (not BOOL).
template <typename F>
auto dispatchNumeric(DataType t, F&& f) {
  return visitElementType<ElementTypes::Numeric>(t, std::forward<F>(f), kNumericOnly);
}

/// f(T{}) for numeric types and BOOL.
template <typename F>
auto dispatchAll(DataType t, F&& f) {
  return visitElementType<ElementTypes::NumericAndBool>(t, std::forward<F>(f), kNumericOnly);
}

/// f(std::integral_constant<size_t, bytes>) by element size (for data movement).
template <typename F>
auto dispatchBySize(DataType t, F&& f) {
  switch (dataTypeSize(t)) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      break;
  }
  throw error("element type {} cannot be moved by this kernel", dataTypeToString(t));
}

}  // namespace cpu
}  // namespace popart
