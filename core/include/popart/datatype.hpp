// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file datatype.hpp
/// Element types (PopART's `DataType`) and their names.

#include <cstdint>
#include <string>

#include "popart/half.hpp"

namespace popart {

enum class DataType {
  UINT8 = 0,
  INT8,
  UINT16,
  INT16,
  INT32,
  INT64,
  UINT32,
  UINT64,
  BOOL,
  FLOAT,
  FLOAT16,
  BFLOAT16,
  FLOAT8_143,
  FLOAT8_152,
  DOUBLE,
  COMPLEX64,
  COMPLEX128,
  STRING,
  UNDEFINED,
};

/// "FLOAT", "INT32", ... (PopART's type strings).
const std::string& dataTypeToString(DataType t);
/// "float32", "int32", ... (numpy-style, PopART's `data_type_lcase`).
const std::string& dataTypeToLcaseString(DataType t);
/// Parses a PopART type string ("FLOAT", case-insensitive) or a numpy-style name ("float32").
/// Throws popart::error naming the valid strings.
DataType dataTypeFromString(const std::string& s);
/// Bytes per element (0 for STRING and UNDEFINED).
int64_t dataTypeSize(DataType t);
/// Bytes between consecutive elements in host memory: dataTypeSize, or sizeof(std::string) for
/// STRING (string tensors are arrays of std::string on the host).
inline int64_t elementStride(DataType t) {
  return t == DataType::STRING ? static_cast<int64_t>(sizeof(std::string)) : dataTypeSize(t);
}
/// ONNX TensorProto.DataType value for a DataType, and back. Unknown values throw.
int onnxDataType(DataType t);
DataType dataTypeFromOnnx(int onnxType);
bool isFloatingPoint(DataType t);
bool isInteger(DataType t);
bool isSignedInteger(DataType t);

/// Maps a C++ element type to its DataType (`getDataType<float>() == DataType::FLOAT`).
template <typename T>
DataType getDataType();
// clang-format off
template <> inline DataType getDataType<uint8_t>() { return DataType::UINT8; }
template <> inline DataType getDataType<int8_t>() { return DataType::INT8; }
template <> inline DataType getDataType<uint16_t>() { return DataType::UINT16; }
template <> inline DataType getDataType<int16_t>() { return DataType::INT16; }
template <> inline DataType getDataType<int32_t>() { return DataType::INT32; }
template <> inline DataType getDataType<int64_t>() { return DataType::INT64; }
template <> inline DataType getDataType<uint32_t>() { return DataType::UINT32; }
template <> inline DataType getDataType<uint64_t>() { return DataType::UINT64; }
template <> inline DataType getDataType<bool>() { return DataType::BOOL; }
template <> inline DataType getDataType<float>() { return DataType::FLOAT; }
template <> inline DataType getDataType<double>() { return DataType::DOUBLE; }
template <> inline DataType getDataType<float16_t>() { return DataType::FLOAT16; }
template <> inline DataType getDataType<bfloat16_t>() { return DataType::BFLOAT16; }
template <> inline DataType getDataType<std::string>() { return DataType::STRING; }
// clang-format on

}  // namespace popart
