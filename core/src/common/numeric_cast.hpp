// Arithmetic with a defined result for every value: floating-point to integer conversion
// (a plain static_cast of a value outside the integer type's range, or of NaN, is undefined
// behaviour) and integer + - * that wrap around.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

namespace popart {

namespace detail {
constexpr double pow2(int n) {
  double r = 1.0;
  for (int i = 0; i < n; ++i) r *= 2.0;
  return r;
}
}  // namespace detail

/// `v` truncated toward zero and saturated to I's range; NaN gives 0.
template <typename I, typename F>
I saturatingCast(F v) {
  static_assert(std::is_integral_v<I> && std::is_floating_point_v<F>, "float -> integer only");
  if (std::isnan(v)) return I(0);
  // The bounds are 0 or powers of two, exact in double: -2^(bits-1) and 2^(bits-1) (signed) or 0
  // and 2^bits (unsigned). Every value strictly between them truncates to a value of I.
  constexpr double hi = detail::pow2(std::numeric_limits<I>::digits);
  constexpr double lo = std::is_signed_v<I> ? -hi : 0.0;
  const double x = static_cast<double>(v);
  if (x <= lo) return std::numeric_limits<I>::min();
  if (x >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

/// `v` as the numeric type T: a floating-point T by a plain conversion, an integer T by
/// saturatingCast (an out-of-range value or NaN has a defined result).
template <typename T, typename F>
T numericCast(F v) {
  if constexpr (std::is_integral_v<T>) {
    return saturatingCast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// Integer + - * wrap around (two's complement), as in every ONNX runtime: a signed overflow is
// undefined behaviour in C++, and so is a uint16 product once it is promoted to int. The
// arithmetic is done in an unsigned type at least as wide as unsigned int. Floating-point
// values use the plain operators.
template <typename T, typename Op>
T wrapping(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<std::common_type_t<T, unsigned>>;
    return static_cast<T>(op(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return op(a, b);
  }
}
template <typename T>
T wrapAdd(T a, T b) {
  return wrapping(a, b, [](auto x, auto y) { return x + y; });
}
template <typename T>
T wrapSub(T a, T b) {
  return wrapping(a, b, [](auto x, auto y) { return x - y; });
}
template <typename T>
T wrapMul(T a, T b) {
  return wrapping(a, b, [](auto x, auto y) { return x * y; });
}
/// -x; the most negative integer is its own negation; a floating-point 0 becomes -0 (IEEE
/// negation, as NumPy and PyTorch).
template <typename T>
T wrapNeg(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return -x;
  } else {
    return wrapSub(T(0), x);
  }
}

}  // namespace popart
