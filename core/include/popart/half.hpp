// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file half.hpp
/// `popart::float16_t`: IEEE 754 binary16 storage with conversions to and from float
/// (round to nearest even). Arithmetic is done in float.

#include <cstdint>
#include <cstring>

namespace popart {

/// Converts float to binary16 bits (round to nearest even; NaN and infinities kept).
inline uint16_t floatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mant = x & 0x7fffffu;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xffu);
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (e <= 0) {                                                 // subnormal or zero
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: fine
  return static_cast<uint16_t>(sign | h);
}

/// Converts binary16 bits to float (exact).
inline float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      x = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// A binary16 value. Converts implicitly to float; constructed from float.
struct float16_t {
  uint16_t bits = 0;
  float16_t() = default;
  float16_t(float f) : bits(floatToHalfBits(f)) {}  // NOLINT: implicit like a built-in type
  static float16_t fromBits(uint16_t b) {
    float16_t h;
    h.bits = b;
    return h;
  }
  operator float() const { return halfBitsToFloat(bits); }  // NOLINT
};
static_assert(sizeof(float16_t) == 2, "float16_t must be 2 bytes");

/// bfloat16 storage (top 16 bits of a float, round to nearest even).
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  bfloat16_t(float f) {  // NOLINT
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((x >> 16) | 0x40u);
    } else {
      x += 0x7fffu + ((x >> 16) & 1u);
      bits = static_cast<uint16_t>(x >> 16);
    }
  }
  operator float() const {  // NOLINT
    uint32_t x = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};

}  // namespace popart
