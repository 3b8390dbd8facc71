// The float vector of an instruction-set copy (isa.hpp) as GCC / Clang vector extensions, for the
// copies' loops that the compiler should not have to discover: 16 lanes for AVX-512, 8 for AVX2,
// 4 for baseline x86-64 and WebAssembly SIMD128. Include it only from the files of
// POPART_ISA_SOURCES. Move vectors with memcpy (unaligned) and never pass them to or return them
// from a function that is not inlined (the calling convention of a copy without wide registers).
#pragma once

#include <cstdint>

#include "backends/cpu/isa.hpp"

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
#if defined(__clang__)
#define POPART_ISA_UNROLL _Pragma("unroll")
#else
#define POPART_ISA_UNROLL _Pragma("GCC unroll 16")
#endif
