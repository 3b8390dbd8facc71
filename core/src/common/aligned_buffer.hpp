// A 64-byte aligned byte buffer, zero-initialised unless asked not to be (a buffer that is about
// to be overwritten whole: zeroing it first would touch every fresh page twice).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "popart/error.hpp"

namespace popart {

/// 64-byte aligned memory for `bytes` (rounded up to 64; std::free releases it), zero-filled, or
/// with only the rounding padding zeroed when `zero` is false. Throws popart::error naming `what`
/// when the allocation fails (sizes over the memory limit are refused before this: checked_size.hpp).
inline unsigned char* allocateAligned(size_t bytes, bool zero, const char* what = "a buffer") {
  const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  auto* p = rounded >= bytes ? static_cast<unsigned char*>(std::aligned_alloc(64, rounded)) : nullptr;
  if (!p) throw memory_allocation_err("out of host memory allocating {} bytes for {}", bytes, what);
  if (zero) {
    std::memset(p, 0, rounded);
  } else if (rounded > bytes) {
    std::memset(p + bytes, 0, rounded - bytes);  // the padding only
  }
  return p;
}

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes, bool zero = true) { resize(bytes, zero); }
  void resize(size_t bytes, bool zero = true) {
    data_.reset(allocateAligned(bytes, zero));
    size_ = bytes;
  }
  unsigned char* data() { return data_.get(); }
  const unsigned char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char[], Free> data_;
  size_t size_ = 0;
};

}  // namespace popart
