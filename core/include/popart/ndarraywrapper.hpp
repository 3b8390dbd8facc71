// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file ndarraywrapper.hpp
/// `NDArrayWrapper<T>`: a non-owning n-d view of user memory (for StepIO and WeightsIO), and
/// `NDArray`: an owning array (what `Session::initAnchorArrays()` returns).

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "popart/error.hpp"
#include "popart/half.hpp"
#include "popart/iarray.hpp"

namespace popart {

template <typename T>
class NDArrayWrapper : public IArray {
 public:
  /// Wraps `d` (not owned; it must outlive the wrapper) with `info`'s shape. The element type
  /// must match T.
  NDArrayWrapper(T* d, const TensorInfo& info) : data_(d), info_(info) {
    if (info.dataType() != getDataType<T>())
      throw error("NDArrayWrapper: TensorInfo type {} does not match the element type {}", info.data_type(),
                  dataTypeToString(getDataType<T>()));
  }
  NDArrayWrapper(T* d, const Shape& shape) : data_(d), info_(getDataType<T>(), shape) {}
  NDArrayWrapper(const NDArrayWrapper&) = default;
  NDArrayWrapper& operator=(const NDArrayWrapper&) = default;

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  void* data() override { return data_; }
  DataType dataType() const override { return info_.dataType(); }
  std::size_t rank() const override { return info_.shape().size(); }
  int64_t dim(std::size_t i) const override { return info_.shape().at(i); }
  std::size_t nelms() const override { return static_cast<std::size_t>(info_.nelms()); }
  const Shape shape() const override { return info_.shape(); }
  const TensorInfo& info() const { return info_; }

 private:
  T* data_;
  TensorInfo info_;
};

namespace detail {
/// The bytes an NDArray of `info` holds, checked against the memory limit.
std::size_t ndarrayBytes(const TensorInfo& info);
}  // namespace detail

/// An owning n-d array of any element type.
class NDArray : public IArray {
 public:
  NDArray() = default;
  /// Zero-filled storage for `info`; throws popart::memory_allocation_err when it is over the
  /// memory limit (popart/memorylimit.hpp).
  explicit NDArray(const TensorInfo& info) : info_(info), bytes_(detail::ndarrayBytes(info), 0) {
    if (info.dataType() == DataType::STRING) strings_.resize(static_cast<std::size_t>(info.nelms()));
  }
  NDArray(DataType t, const Shape& s) : NDArray(TensorInfo(t, s)) {}
  /// Copies `n` elements of T into a new array of shape `s`.
  template <typename T>
  static NDArray fromData(const T* src, const Shape& s) {
    NDArray a(getDataType<T>(), s);
    if (a.nelms()) std::memcpy(a.bytes_.data(), src, a.bytes_.size());
    return a;
  }
  template <typename T>
  static NDArray fromVector(const std::vector<T>& v, const Shape& s) {
    NDArray a(getDataType<T>(), s);
    if (static_cast<std::size_t>(a.info_.nelms()) != v.size())
      throw error("NDArray::fromVector: {} values for shape {}", v.size(), s);
    if constexpr (std::is_same_v<T, std::string>) {
      a.strings_ = v;
    } else if (!v.empty()) {
      std::memcpy(a.bytes_.data(), v.data(), a.bytes_.size());
    }
    return a;
  }

  /// The elements (an array of std::string for STRING).
  void* data() override { return isString() ? static_cast<void*>(strings_.data()) : bytes_.data(); }
  const void* data() const { return isString() ? static_cast<const void*>(strings_.data()) : bytes_.data(); }
  DataType dataType() const override { return info_.dataType(); }
  std::size_t rank() const override { return info_.shape().size(); }
  int64_t dim(std::size_t i) const override { return info_.shape().at(i); }
  std::size_t nelms() const override { return static_cast<std::size_t>(info_.nelms()); }
  const Shape shape() const override { return info_.shape(); }
  const TensorInfo& info() const { return info_; }
  bool isString() const { return info_.dataType() == DataType::STRING; }
  /// Zero-filled storage for `info` in place of the old (checked against the memory limit).
  bool resize(const TensorInfo& info) override {
    *this = NDArray(info);
    return true;
  }

  /// Typed access; throws if T does not match the element type.
  template <typename T>
  T* dataAs() {
    check<T>();
    return reinterpret_cast<T*>(data());
  }
  template <typename T>
  const T* dataAs() const {
    check<T>();
    return reinterpret_cast<const T*>(data());
  }
  template <typename T>
  std::vector<T> toVector() const {
    const T* p = dataAs<T>();
    return std::vector<T>(p, p + nelms());
  }

 private:
  template <typename T>
  void check() const {
    if (getDataType<T>() != info_.dataType())
      throw error("NDArray holds {} elements, not {}", info_.data_type(), dataTypeToString(getDataType<T>()));
  }
  TensorInfo info_;
  std::vector<unsigned char> bytes_;
  std::vector<std::string> strings_;
};

}  // namespace popart
