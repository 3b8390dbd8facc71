// Element-type dispatch for kernels.
#pragma once

#include <cstdint>

#include "popart/error.hpp"
#include "popart/half.hpp"
#include "popart/tensorinfo.hpp"

namespace popart {
namespace cpu {

/// f(T{}) for the floating-point types.
template <typename F>
auto dispatchFloat(DataType t, F&& f) {
  switch (t) {
    case DataType::FLOAT:
      return f(float{});
    case DataType::DOUBLE:
      return f(double{});
    case DataType::FLOAT16:
      return f(float16_t{});
    case DataType::BFLOAT16:
      return f(bfloat16_t{});
    default:
      break;
  }
  throw error("element type {} is not supported by this kernel (floating-point types only)", dataTypeToString(t));
}

/// f(T{}) for every numeric type (not BOOL).
template <typename F>
auto dispatchNumeric(DataType t, F&& f) {
  switch (t) {
    case DataType::FLOAT:
      return f(float{});
    case DataType::DOUBLE:
      return f(double{});
    case DataType::FLOAT16:
      return f(float16_t{});
    case DataType::BFLOAT16:
      return f(bfloat16_t{});
    case DataType::INT8:
      return f(int8_t{});
    case DataType::INT16:
      return f(int16_t{});
    case DataType::INT32:
      return f(int32_t{});
    case DataType::INT64:
      return f(int64_t{});
    case DataType::UINT8:
      return f(uint8_t{});
    case DataType::UINT16:
      return f(uint16_t{});
    case DataType::UINT32:
      return f(uint32_t{});
    case DataType::UINT64:
      return f(uint64_t{});
    default:
      break;
  }
  throw error("element type {} is not supported by this kernel (numeric types only)", dataTypeToString(t));
}

/// f(T{}) for numeric types and BOOL.
template <typename F>
auto dispatchAll(DataType t, F&& f) {
  if (t == DataType::BOOL) return f(bool{});
  return dispatchNumeric(t, std::forward<F>(f));
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
