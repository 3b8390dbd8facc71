// Element-type dispatch for kernels.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "backends/cpu/kernel.hpp"
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

/// Element i of a floating-point tensor, as double; and its store. For small tensors that may
/// have another type than the data they go with (BatchNormalization's FLOAT scale and statistics
/// of FLOAT16 data, as PopART allows).
using LoadFn = double (*)(const void* p, int64_t i);
using StoreFn = void (*)(void* p, int64_t i, double v);
inline LoadFn floatLoader(DataType t) {
  return dispatchFloat(t, [](auto tag) -> LoadFn {
    return [](const void* p, int64_t i) {
      using T = decltype(tag);
      return static_cast<double>(static_cast<compute_t<T>>(static_cast<const T*>(p)[i]));
    };
  });
}
inline StoreFn floatStorer(DataType t) {
  return dispatchFloat(t, [](auto tag) -> StoreFn {
    return [](void* p, int64_t i, double v) {
      using T = decltype(tag);
      static_cast<T*>(p)[i] = static_cast<T>(static_cast<compute_t<T>>(v));
    };
  });
}

/// The index types of Gather, GatherElements, Scatter, ScatterElements and their gradients:
/// INT32, INT64 (ONNX) and UINT32 (PopART accepts it too).
inline bool isIndexType(DataType t) {
  return t == DataType::INT32 || t == DataType::INT64 || t == DataType::UINT32;
}

/// Element k of an index tensor of type t (isIndexType).
inline int64_t indexAt(const void* p, DataType t, int64_t k) {
  switch (t) {
    case DataType::INT64:
      return static_cast<const int64_t*>(p)[k];
    case DataType::UINT32:
      return static_cast<int64_t>(static_cast<const uint32_t*>(p)[k]);
    default:
      return static_cast<const int32_t*>(p)[k];
  }
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
