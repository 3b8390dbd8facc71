// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file tensorinfo.hpp
/// `TensorInfo`: a tensor's element type and shape.

#include <iosfwd>
#include <string>
#include <vector>

#include "popart/datatype.hpp"
#include "popart/names.hpp"

namespace popart {

class TensorInfo {
 public:
  TensorInfo() = default;
  TensorInfo(DataType t, const Shape& s);
  /// `TensorInfo("FLOAT", {1, 2, 3})`; the type string is case-insensitive.
  TensorInfo(const std::string& dataType, const Shape& s);
  TensorInfo(const char* dataType, const Shape& s) : TensorInfo(std::string(dataType), s) {}

  /// Throws popart::error for a negative dimension, or when the element count or the byte size
  /// overflows a 64-bit integer (the message gives the type and the shape; callers add the
  /// tensor's name).
  void set(DataType t, const Shape& s);
  void set(DataType t) { set(t, shape_); }
  void set(const Shape& s) { set(dataType_, s); }

  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  /// Number of elements (1 for a scalar); never overflows (checked by set()).
  int64_t nelms() const { return nelms_; }
  int64_t nbytes() const;
  /// Dimension i; negative i counts from the end. Throws for an out-of-range i.
  int64_t dim(int i) const;
  DataType dataType() const { return dataType_; }
  /// "FLOAT", "INT32", ...
  const std::string& data_type() const;
  /// "float32", "int32", ...
  const std::string& data_type_lcase() const;
  bool isSet() const { return dataType_ != DataType::UNDEFINED; }
  int64_t getDataTypeSize() const { return dataTypeSize(dataType_); }
  /// "FLOAT [1 2 3]"
  std::string toString() const;
  void append(std::ostream& os) const;

  bool operator==(const TensorInfo& o) const { return dataType_ == o.dataType_ && shape_ == o.shape_; }
  bool operator!=(const TensorInfo& o) const { return !(*this == o); }

 private:
  DataType dataType_ = DataType::UNDEFINED;
  Shape shape_;
  int64_t nelms_ = 1;
};

std::ostream& operator<<(std::ostream& os, const TensorInfo& info);
std::ostream& operator<<(std::ostream& os, DataType t);

/// Numpy-style broadcast of two shapes; throws popart::error if they are incompatible.
Shape npOut(const Shape& a, const Shape& b);

}  // namespace popart
