// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file iarray.hpp
/// `IArray`: the interface StepIO and WeightsIO use to see a user's n-d array.

#include <cstddef>

#include "popart/tensorinfo.hpp"

namespace popart {

class IArray {
 public:
  virtual ~IArray() = default;
  virtual void* data() = 0;
  virtual DataType dataType() const = 0;
  virtual std::size_t rank() const = 0;
  virtual int64_t dim(std::size_t index) const = 0;
  virtual std::size_t nelms() const = 0;
  virtual const Shape shape() const = 0;
  /// Makes the array hold `info` (its old contents are not kept), for an anchor whose shape a
  /// session planned at run time gives per run; false when the array cannot change (a view of
  /// memory it does not own).
  virtual bool resize(const TensorInfo& info) {
    (void)info;
    return false;
  }
};

}  // namespace popart
