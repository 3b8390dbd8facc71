// Dispatch on a DataType to its C++ element type, shared by host-side tensor code and the kernels.
#pragma once

#include <cstdint>

#include "popart/error.hpp"
#include "popart/half.hpp"
#include "popart/tensorinfo.hpp"

namespace popart {

/// The element types a visitElementType call accepts.
enum class ElementTypes { Float, Numeric, NumericAndBool };

/// f(T{}) for the C++ element type T of `t`, when `t` is one of `types`; any other type throws
/// popart::error(unsupported, the type's name).
template <ElementTypes types, typename F>
auto visitElementType(DataType t, F&& f, const char* unsupported) {
  if constexpr (types == ElementTypes::NumericAndBool) {
    if (t == DataType::BOOL) return f(bool{});
  }
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
  if constexpr (types != ElementTypes::Float) {
    switch (t) {
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
  }
  throw error(unsupported, dataTypeToString(t));
}

}  // namespace popart
