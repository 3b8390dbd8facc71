// Host-side tensor contents: initializers, constants, folded values, weights on the host.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/element_type.hpp"
#include "popart/error.hpp"
#include "popart/tensorinfo.hpp"

namespace popart {

/// Makes each of `n` BOOL bytes 0 or 1: a byte from a model or a user (raw_data 0x07) read as a
/// C++ bool would be undefined behaviour.
void normalizeBools(unsigned char* p, int64_t n);

/// acc[i] += v[i] over `n` elements of type `t` (the 16-bit float formats added in float); false
/// (nothing changed) for a type that does not add (BOOL, STRING, ...): the caller says why.
bool addElements(void* acc, const void* v, DataType t, int64_t n);
/// p[i] *= factor over `n` elements of a floating-point type `t` (false for other types).
bool scaleElements(void* p, DataType t, int64_t n, double factor);

/// An owning buffer holding one tensor's elements (or strings for STRING): 64-byte aligned when
/// allocated here, at least 8-byte aligned (every element type's alignment) when adopted from a
/// string. Copies are deep.
class TensorData;
/// Shard `index` of `shards` of `whole`'s elements (replicated tensor sharding): [ceil(n / shards)]
/// elements from index x ceil(n / shards) on, zeros past the end.
TensorData shardOf(const TensorData& whole, int64_t shards, int64_t index);
/// The inverse into `whole`: shard `index`'s elements that lie within it.
void unshardInto(TensorData& whole, const void* shard, int64_t shards, int64_t index);

class TensorData {
 public:
  TensorData() = default;
  /// Zero-filled storage for `info`.
  explicit TensorData(const TensorInfo& info);
  /// Copies info.nbytes() bytes from `src` (zeros when `src` is null); BOOL bytes become 0 or 1.
  TensorData(const TensorInfo& info, const void* src);
  /// Takes over `bytes` (exactly info.nbytes() of a numeric type) as the storage without copying
  /// them, when their address is 8-byte aligned; copies them otherwise. BOOL bytes become 0 or 1. Big initializers come
  /// this way out of the parsed ModelProto: one copy of the weights in memory, not two.
  static TensorData adopt(const TensorInfo& info, std::unique_ptr<std::string> bytes);
  TensorData(const TensorData& o);
  TensorData& operator=(const TensorData& o);
  TensorData(TensorData&&) noexcept = default;
  TensorData& operator=(TensorData&&) noexcept = default;

  template <typename T>
  static TensorData fromVector(const std::vector<T>& v, const Shape& shape) {
    return TensorData(TensorInfo(getDataType<T>(), shape), v.data());
  }
  static TensorData scalarInt64(int64_t v) { return TensorData(TensorInfo(DataType::INT64, {}), &v); }

  const TensorInfo& info() const { return info_; }
  /// The elements: raw bytes, or an array of std::string for STRING.
  void* data() { return isString() ? static_cast<void*>(strings_.data()) : bytes_.get(); }
  const void* data() const { return isString() ? static_cast<const void*>(strings_.data()) : bytes_.get(); }
  bool isString() const { return info_.dataType() == DataType::STRING; }
  int64_t nbytes() const { return info_.nbytes(); }
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(bytes_.get());
  }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(bytes_.get());
  }
  std::vector<std::string>& strings() { return strings_; }
  const std::vector<std::string>& strings() const { return strings_; }
  bool empty() const { return !bytes_ && strings_.empty() && info_.nelms() != 0; }

  /// Elements of an integer or boolean tensor as int64 (throws for other types).
  std::vector<int64_t> toInt64() const;
  /// Elements of any numeric tensor as double.
  std::vector<double> toDouble() const;
  /// Element i of any numeric tensor as double.
  double getDouble(int64_t i) const;
  /// Same contents reinterpreted with another shape (same element count).
  TensorData reshaped(const Shape& s) const;
  /// Converts to another element type (numeric types only).
  TensorData castTo(DataType t) const;

 private:
  struct Free {
    Free() noexcept : adopted(false) {}
    explicit Free(bool a) noexcept : adopted(a) {}
    void operator()(unsigned char* p) const;
    bool adopted;  // the bytes belong to adopted_
  };
  void allocate(bool zero = true);
  TensorInfo info_;
  std::unique_ptr<std::string> adopted_;
  std::unique_ptr<unsigned char[], Free> bytes_;
  std::vector<std::string> strings_;
};

/// Calls f(T*) with the tensor's element pointer typed by its DataType (numeric types).
/// Usage: visitNumeric(info.dataType(), [&](auto tag) { using T = decltype(tag); ... });
template <typename F>
auto visitNumeric(DataType t, F&& f) {
  return visitElementType<ElementTypes::NumericAndBool>(t, std::forward<F>(f), "data type {} is not supported here");
}

}  // namespace popart
