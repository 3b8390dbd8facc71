#include "backends/cpu/strided.hpp"

#include <cstring>

namespace popart {
namespace cpu {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

namespace {

template <typename T>
void copyTyped(const T* src, const std::vector<int64_t>& st, T* dst, const std::vector<int64_t>& dims) {
  const size_t r = dims.size();
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  for (auto d : dims) {
    if (d == 0) return;
  }
  const int64_t inner = dims[r - 1], is = st[r - 1];
  int64_t outer = 1;
  for (size_t i = 0; i + 1 < r; ++i) outer *= dims[i];
  std::vector<int64_t> idx(r, 0);
  int64_t off = 0;
  for (int64_t o = 0; o < outer; ++o) {
    const T* s = src + off;
    T* d = dst + o * inner;
    if (is == 1) {
      std::memcpy(static_cast<void*>(d), s, static_cast<size_t>(inner) * sizeof(T));
    } else {
      for (int64_t j = 0; j < inner; ++j) d[j] = s[j * is];
    }
    for (size_t k = r - 1; k-- > 0;) {
      if (++idx[k] < dims[k]) {
        off += st[k];
        break;
      }
      off -= st[k] * (dims[k] - 1);
      idx[k] = 0;
    }
  }
}

}  // namespace

void stridedCopy(const void* src, const std::vector<int64_t>& srcStrides, void* dst, const std::vector<int64_t>& dimsIn,
                 size_t elem) {
  // Drop size-1 dims and merge dims that are contiguous in both source and destination.
  std::vector<int64_t> dims, st;
  for (size_t i = 0; i < dimsIn.size(); ++i) {
    if (dimsIn[i] == 1) continue;
    if (!dims.empty() && st.back() == srcStrides[i] * dimsIn[i]) {
      dims.back() *= dimsIn[i];
      st.back() = srcStrides[i];
      continue;
    }
    dims.push_back(dimsIn[i]);
    st.push_back(srcStrides[i]);
  }
  for (auto d : dimsIn) {
    if (d == 0) return;
  }
  if (dims.empty()) {
    dims.push_back(1);
    st.push_back(1);
  }
  switch (elem) {
    case 1:
      copyTyped(static_cast<const uint8_t*>(src), st, static_cast<uint8_t*>(dst), dims);
      break;
    case 2:
      copyTyped(static_cast<const uint16_t*>(src), st, static_cast<uint16_t*>(dst), dims);
      break;
    case 4:
      copyTyped(static_cast<const uint32_t*>(src), st, static_cast<uint32_t*>(dst), dims);
      break;
    case 8:
      copyTyped(static_cast<const uint64_t*>(src), st, static_cast<uint64_t*>(dst), dims);
      break;
    default: {
      // Any element size: copy element by element through a byte view.
      std::vector<int64_t> idx(dims.size(), 0);
      int64_t total = 1;
      for (auto d : dims) total *= d;
      const auto* s = static_cast<const unsigned char*>(src);
      auto* d = static_cast<unsigned char*>(dst);
      for (int64_t o = 0; o < total; ++o) {
        int64_t off = 0;
        for (size_t k = 0; k < dims.size(); ++k) off += idx[k] * st[k];
        std::memcpy(d + o * static_cast<int64_t>(elem), s + off * static_cast<int64_t>(elem), elem);
        for (size_t k = dims.size(); k-- > 0;) {
          if (++idx[k] < dims[k]) break;
          idx[k] = 0;
        }
      }
    }
  }
}

}  // namespace cpu
}  // namespace popart
