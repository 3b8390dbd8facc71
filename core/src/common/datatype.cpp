// Data type names, sizes and the ONNX mapping.
#include <array>

#include "common/strings.hpp"
#include "popart/datatype.hpp"
#include "popart/error.hpp"

namespace popart {
namespace {

struct TypeRow {
  DataType type;
  const char* name;
  const char* lcase;
  int64_t size;
  int onnx;  // TensorProto.DataType
};

// clang-format off
const std::array<TypeRow, 19> kTypes{{
    {DataType::UINT8, "UINT8", "uint8", 1, 2},
    {DataType::INT8, "INT8", "int8", 1, 3},
    {DataType::UINT16, "UINT16", "uint16", 2, 4},
    {DataType::INT16, "INT16", "int16", 2, 5},
    {DataType::INT32, "INT32", "int32", 4, 6},
    {DataType::INT64, "INT64", "int64", 8, 7},
    {DataType::UINT32, "UINT32", "uint32", 4, 12},
    {DataType::UINT64, "UINT64", "uint64", 8, 13},
    {DataType::BOOL, "BOOL", "bool", 1, 9},
    {DataType::FLOAT, "FLOAT", "float32", 4, 1},
    {DataType::FLOAT16, "FLOAT16", "float16", 2, 10},
    {DataType::BFLOAT16, "BFLOAT16", "bfloat16", 2, 16},
    {DataType::FLOAT8_143, "FLOAT8_143", "float8_143", 1, -1},
    {DataType::FLOAT8_152, "FLOAT8_152", "float8_152", 1, -2},
    {DataType::DOUBLE, "DOUBLE", "float64", 8, 11},
    {DataType::COMPLEX64, "COMPLEX64", "complex64", 8, 14},
    {DataType::COMPLEX128, "COMPLEX128", "complex128", 16, 15},
    {DataType::STRING, "STRING", "string", 0, 8},
    {DataType::UNDEFINED, "UNDEFINED", "undefined", 0, 0},
}};
// clang-format on

const TypeRow& row(DataType t) {
  const auto i = static_cast<size_t>(t);
  if (i >= kTypes.size()) throw internal_error("invalid DataType value {}", static_cast<int>(t));
  return kTypes[i];
}

/// A name column of kTypes as strings, one per row.
std::array<std::string, kTypes.size()> column(const char* TypeRow::*name) {
  std::array<std::string, kTypes.size()> a;
  for (size_t i = 0; i < kTypes.size(); ++i) a[i] = kTypes[i].*name;
  return a;
}

}  // namespace

const std::string& dataTypeToString(DataType t) {
  static const auto names = column(&TypeRow::name);
  return names[static_cast<size_t>(row(t).type)];
}

const std::string& dataTypeToLcaseString(DataType t) {
  static const auto names = column(&TypeRow::lcase);
  return names[static_cast<size_t>(row(t).type)];
}

DataType dataTypeFromString(const std::string& s) {
  const std::string u = asciiUpper(s);
  for (const auto& r : kTypes) {
    if (u == r.name || u == asciiUpper(r.lcase)) return r.type;
  }
  if (u == "FLOAT32") return DataType::FLOAT;
  if (u == "FLOAT64") return DataType::DOUBLE;
  if (u == "HALF") return DataType::FLOAT16;
  std::string valid;
  for (const auto& r : kTypes) valid += std::string(valid.empty() ? "" : ", ") + r.name;
  throw error("Unknown data type '{}'; expected one of {}", s, valid);
}

int64_t dataTypeSize(DataType t) {
  return row(t).size;
}

int onnxDataType(DataType t) {
  const int v = row(t).onnx;
  if (v < 0) throw error("Data type {} has no ONNX equivalent", row(t).name);
  return v;
}

DataType dataTypeFromOnnx(int onnxType) {
  for (const auto& r : kTypes) {
    if (r.onnx == onnxType) return r.type;
  }
  throw error("Unsupported ONNX tensor data type {}", onnxType);
}

bool isFloatingPoint(DataType t) {
  return t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::DOUBLE || t == DataType::BFLOAT16 ||
         t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152;
}

bool isInteger(DataType t) {
  switch (t) {
    case DataType::UINT8:
    case DataType::INT8:
    case DataType::UINT16:
    case DataType::INT16:
    case DataType::INT32:
    case DataType::INT64:
    case DataType::UINT32:
    case DataType::UINT64:
      return true;
    default:
      return false;
  }
}

bool isSignedInteger(DataType t) {
  return t == DataType::INT8 || t == DataType::INT16 || t == DataType::INT32 || t == DataType::INT64;
}

}  // namespace popart
