// A 64-byte aligned byte buffer, zero-initialised unless asked not to be (a buffer that is about
// to be overwritten whole: zeroing it first would touch every fresh page twice).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "popart/error.hpp"

namespace popart {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes, bool zero = true) { resize(bytes, zero); }
  void resize(size_t bytes, bool zero = true) {
    const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    auto* p = static_cast<unsigned char*>(std::aligned_alloc(64, rounded));
    if (!p) throw error("out of host memory allocating {} bytes", bytes);
    if (zero) std::memset(p, 0, rounded);
    data_.reset(p);
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
