// Strided copies: the engine of Transpose, Slice, Pad and friends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace popart {
namespace cpu {

/// dst (contiguous, shape `dims`) [i0, i1, ...] = src[sum_k i_k * srcStrides[k]] (strides in
/// elements, may be negative or zero). Elements are `elem` bytes.
void stridedCopy(const void* src, const std::vector<int64_t>& srcStrides, void* dst, const std::vector<int64_t>& dims,
                 size_t elem);

/// Row-major strides of a shape, in elements.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape);

}  // namespace cpu
}  // namespace popart
