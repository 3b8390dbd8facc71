#include "common/tensor_data.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/aligned_buffer.hpp"
#include "common/checked_size.hpp"
#include "popart/error.hpp"

namespace popart {

void TensorData::Free::operator()(unsigned char* p) const {
  if (!adopted) std::free(p);
}

void normalizeBools(unsigned char* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] != 0;
}

TensorData TensorData::adopt(const TensorInfo& info, std::unique_ptr<std::string> bytes) {
  if (!bytes || info.dataType() == DataType::STRING || static_cast<int64_t>(bytes->size()) != info.nbytes())
    throw internal_error("TensorData::adopt: {} bytes for {}", bytes ? bytes->size() : 0, info.toString());
  auto* p = reinterpret_cast<unsigned char*>(&(*bytes)[0]);
  if (info.nbytes() == 0 || reinterpret_cast<uintptr_t>(p) % 8 != 0) return TensorData(info, p);
  if (info.dataType() == DataType::BOOL) normalizeBools(p, info.nelms());
  TensorData d;
  d.info_ = info;
  d.adopted_ = std::move(bytes);
  d.bytes_ = std::unique_ptr<unsigned char[], Free>(p, Free{true});
  return d;
}

void TensorData::allocate(bool zero) {
  if (info_.dataType() == DataType::STRING) {
    const int64_t bytes = checkedProduct({info_.nelms(), static_cast<int64_t>(sizeof(std::string))});
    strings_.assign(allocationSize(bytes, [&] { return "a " + info_.toString() + " tensor"; }) / sizeof(std::string),
                    std::string());
    return;
  }
  const size_t n = allocationSize(info_.nbytes(), [&] { return "a " + info_.toString() + " tensor"; });
  bytes_.reset(allocateAligned(n, zero, "a tensor"));
}

TensorData::TensorData(const TensorInfo& info) : info_(info) {
  allocate();
}

TensorData::TensorData(const TensorInfo& info, const void* src) : info_(info) {
  allocate(info.dataType() == DataType::STRING || info.nbytes() == 0 || !src);
  if (info.dataType() == DataType::STRING && src) {
    const auto* s = static_cast<const std::string*>(src);
    std::copy(s, s + info.nelms(), strings_.begin());
    return;
  }
  if (info_.nbytes() > 0 && src) {
    std::memcpy(bytes_.get(), src, static_cast<size_t>(info_.nbytes()));
    if (info_.dataType() == DataType::BOOL) normalizeBools(bytes_.get(), info_.nelms());
  }
}

TensorData::TensorData(const TensorData& o) : info_(o.info_), strings_(o.strings_) {
  if (o.bytes_) {
    allocate(false);
    if (info_.nbytes() > 0) std::memcpy(bytes_.get(), o.bytes_.get(), static_cast<size_t>(info_.nbytes()));
  }
}

TensorData& TensorData::operator=(const TensorData& o) {
  if (this != &o) {
    TensorData c(o);
    *this = std::move(c);
  }
  return *this;
}

std::vector<int64_t> TensorData::toInt64() const {
  const DataType t = info_.dataType();
  if (!isInteger(t) && t != DataType::BOOL) throw error("expected an integer tensor, got {}", info_.toString());
  std::vector<int64_t> v(static_cast<size_t>(info_.nelms()));
  visitNumeric(t, [&](auto tag) {
    using T = decltype(tag);
    const T* p = as<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(p[i]);
  });
  return v;
}

std::vector<double> TensorData::toDouble() const {
  std::vector<double> v(static_cast<size_t>(info_.nelms()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = getDouble(static_cast<int64_t>(i));
  return v;
}

double TensorData::getDouble(int64_t i) const {
  if (i < 0 || i >= info_.nelms()) throw internal_error("TensorData::getDouble index {} out of range", i);
  return visitNumeric(info_.dataType(), [&](auto tag) -> double {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
      return static_cast<double>(static_cast<float>(as<T>()[i]));
    } else {
      return static_cast<double>(as<T>()[i]);
    }
  });
}

TensorData TensorData::reshaped(const Shape& s) const {
  TensorInfo ni(info_.dataType(), s);
  if (ni.nelms() != info_.nelms())
    throw internal_error("TensorData::reshaped: {} elements cannot take shape {}", info_.nelms(), s);
  TensorData d(*this);
  d.info_ = ni;
  return d;
}

TensorData TensorData::castTo(DataType t) const {
  TensorData out(TensorInfo(t, info_.shape()));
  const int64_t n = info_.nelms();
  visitNumeric(info_.dataType(), [&](auto stag) {
    using S = decltype(stag);
    visitNumeric(t, [&](auto dtag) {
      using D = decltype(dtag);
      const S* s = as<S>();
      D* d = out.as<D>();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<S, float16_t> || std::is_same_v<S, bfloat16_t>) {
          d[i] = static_cast<D>(static_cast<float>(s[i]));
        } else if constexpr (std::is_same_v<D, float16_t> || std::is_same_v<D, bfloat16_t>) {
          d[i] = D(static_cast<float>(s[i]));
        } else {
          d[i] = static_cast<D>(s[i]);
        }
      }
    });
  });
  return out;
}

namespace {
template <typename T, typename A = T>
void addTyped(void* acc, const void* v, int64_t n) {
  T* a = static_cast<T*>(acc);
  const T* b = static_cast<const T*>(v);
  for (int64_t i = 0; i < n; ++i) a[i] = T(static_cast<A>(a[i]) + static_cast<A>(b[i]));
}
template <typename T>
void scaleTyped(void* p, int64_t n, double factor) {
  T* a = static_cast<T*>(p);
  for (int64_t i = 0; i < n; ++i) a[i] = T(static_cast<double>(static_cast<float>(a[i])) * factor);
}
}  // namespace

bool addElements(void* acc, const void* v, DataType t, int64_t n) {
  switch (t) {
    case DataType::FLOAT:
      return addTyped<float>(acc, v, n), true;
    case DataType::DOUBLE:
      return addTyped<double>(acc, v, n), true;
    case DataType::INT32:
      return addTyped<int32_t>(acc, v, n), true;
    case DataType::INT64:
      return addTyped<int64_t>(acc, v, n), true;
    case DataType::FLOAT16:
      return addTyped<float16_t, float>(acc, v, n), true;
    case DataType::BFLOAT16:
      return addTyped<bfloat16_t, float>(acc, v, n), true;
    default:
      return false;
  }
}

bool scaleElements(void* p, DataType t, int64_t n, double factor) {
  switch (t) {
    case DataType::FLOAT: {
      float* a = static_cast<float*>(p);
      const float f = static_cast<float>(factor);
      for (int64_t i = 0; i < n; ++i) a[i] *= f;
      return true;
    }
    case DataType::DOUBLE: {
      double* a = static_cast<double*>(p);
      for (int64_t i = 0; i < n; ++i) a[i] *= factor;
      return true;
    }
    case DataType::FLOAT16:
      return scaleTyped<float16_t>(p, n, factor), true;
    case DataType::BFLOAT16:
      return scaleTyped<bfloat16_t>(p, n, factor), true;
    default:
      return false;
  }
}

TensorData shardOf(const TensorData& whole, int64_t shards, int64_t index) {
  const TensorInfo& info = whole.info();
  if (shards < 1 || index < 0 || index >= shards || info.dataType() == DataType::STRING)
    throw internal_error("shard {} of {} of {}", index, shards, info.toString());
  const int64_t n = info.nelms(), s = (n + shards - 1) / shards, es = dataTypeSize(info.dataType());
  TensorData out(TensorInfo(info.dataType(), {s}));  // zeros
  const int64_t from = index * s, take = std::max<int64_t>(0, std::min(s, n - from));
  if (take) std::memcpy(out.data(), static_cast<const char*>(whole.data()) + from * es, static_cast<size_t>(take * es));
  return out;
}

void unshardInto(TensorData& whole, const void* shard, int64_t shards, int64_t index) {
  const TensorInfo& info = whole.info();
  if (shards < 1 || index < 0 || index >= shards || info.dataType() == DataType::STRING)
    throw internal_error("shard {} of {} of {}", index, shards, info.toString());
  const int64_t n = info.nelms(), s = (n + shards - 1) / shards, es = dataTypeSize(info.dataType());
  const int64_t from = index * s, take = std::max<int64_t>(0, std::min(s, n - from));
  if (take) std::memcpy(static_cast<char*>(whole.data()) + from * es, shard, static_cast<size_t>(take * es));
}

}  // namespace popart
