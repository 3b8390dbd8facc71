// What the instruction-set copies (isa.hpp) share: the float vector of a copy as GCC / Clang
// vector extensions, for the copies' loops that the compiler should not have to discover (16 lanes
// for AVX-512, 8 for AVX2, 4 for baseline x86-64 and WebAssembly SIMD128), and small helpers.
// Include it only from the files of POPART_ISA_SOURCES. Move vectors with memcpy (unaligned) and
// never pass them to or return them from a function that is not inlined (the calling convention
// of a copy without wide registers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cpu/isa.hpp"

#if defined(POPART_ISA_AVX512) || defined(POPART_ISA_AVX2)
#include <immintrin.h>
#endif

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {

#if defined(POPART_ISA_AVX512)
constexpr int kVecLanes = 16;
#elif defined(POPART_ISA_AVX2) || (!defined(POPART_ISA_GENERIC) && defined(__AVX2__) && defined(__FMA__))
constexpr int kVecLanes = 8;
#else
constexpr int kVecLanes = 4;
#endif

typedef float VecF __attribute__((vector_size(kVecLanes * sizeof(float))));
typedef int32_t VecI __attribute__((vector_size(kVecLanes * sizeof(int32_t))));

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart

#define POPART_ISA_INLINE inline __attribute__((always_inline))

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {

/// The output columns [lo, hi) of a row whose input column ow * SW + off lies inside [0, W),
/// within [0, OW) (conv_im2col.hpp's insideColumns, here so that no copy shares it with the rest).
struct Columns {
  int64_t lo, hi;
};
POPART_ISA_INLINE Columns insideColumns(int64_t off, int64_t SW, int64_t W, int64_t OW) {
  const int64_t lo = std::min<int64_t>(off >= 0 ? 0 : (-off + SW - 1) / SW, OW);
  return {lo, std::max(std::min<int64_t>((W - off + SW - 1) / SW, OW), lo)};
}

/// dst[0, n) = src[0, n) for the short rows of small planes (a library memcpy call costs more than
/// the copy there): whole vectors, then the rest under a mask (AVX-512, AVX2; the masked lanes are
/// neither read nor written), or memcpy in the other copies.
POPART_ISA_INLINE void copyFloats(float* dst, const float* src, int64_t n) {
#if defined(POPART_ISA_AVX512)
  for (; n >= 16; n -= 16, dst += 16, src += 16) _mm512_storeu_ps(dst, _mm512_loadu_ps(src));
  if (n > 0) {
    const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
    _mm512_mask_storeu_ps(dst, m, _mm512_maskz_loadu_ps(m, src));
  }
#elif defined(POPART_ISA_AVX2)
  for (; n >= 8; n -= 8, dst += 8, src += 8) _mm256_storeu_ps(dst, _mm256_loadu_ps(src));
  if (n > 0) {
    const __m256i m =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(dst, m, _mm256_maskload_ps(src, m));
  }
#else
  std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
#endif
}

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
#if defined(__clang__)
#define POPART_ISA_UNROLL _Pragma("unroll")
#else
#define POPART_ISA_UNROLL _Pragma("GCC unroll 16")
#endif
