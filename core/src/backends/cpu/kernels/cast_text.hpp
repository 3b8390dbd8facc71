// Cast and CastLike to and from STRING (kernels/shape.cpp): numbers as text and text as numbers.
//
// To STRING: a floating-point value is written with the fewest significant digits that read back
// as the same value of its type (FLOAT: at most 9, DOUBLE: 17), in NumPy's layout, which made
// ONNX's test data (`str(np.float32(x))`): positional with at least one decimal
// ("0.9767611", "100000.0", "-0.0") when 1e-4 <= |x| < 1e16, else scientific with a two-digit
// exponent at least ("1e-05", "1.5e+20"); NaN and the infinities are ONNX's literals "NaN", "INF"
// and "-INF". Integers are written in decimal, booleans as "True" / "False" (NumPy's).
// From STRING: ONNX's forms, plain or scientific ("3.14", "1e-5", "1E8"), and "NaN", "INF",
// "+INF", "-INF" in any case; surrounding white space is ignored. A text that is not a number is an
// error naming the element. Integer types read integers exactly and truncate other numbers,
// saturating at the type's range (NaN gives 0); BOOL is true for a non-zero number or "true".
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include "common/numeric_cast.hpp"
#include "common/strings.hpp"
#include "popart/half.hpp"

namespace popart {
namespace cpu {
namespace cast_text {

/// Whether the text `s` reads back as `v` in T (a floating-point type).
template <class T>
bool readsBackAs(const char* s, T v) {
  if constexpr (std::is_same_v<T, double>) {
    return std::strtod(s, nullptr) == v;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::strtof(s, nullptr) == v;
  } else {
    return static_cast<float>(T(std::strtof(s, nullptr))) == static_cast<float>(v);
  }
}

/// The shortest text of a floating-point value (see the file comment).
template <class T>
std::string formatFloat(T v) {
  const double d = static_cast<double>(static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(v));
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "INF" : "-INF";
  if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
  // The fewest significant digits that read back (17 always do for a double).
  char buf[48];
  for (int p = 1;; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    if (p >= 17 || readsBackAs<T>(buf, v)) break;
  }
  // buf is "[-]d[.ddd]e[+-]xx": its digits and decimal exponent.
  std::string digits;
  const char* c = buf;
  const bool negative = *c == '-';
  if (negative) ++c;
  for (; *c && *c != 'e'; ++c) {
    if (*c != '.') digits += *c;
  }
  const int exp10 = std::atoi(c + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  const double a = std::fabs(d);
  if (a >= 1e-4 && a < 1e16) {
    if (exp10 >= 0) {
      const size_t intDigits = static_cast<size_t>(exp10) + 1;
      if (digits.size() <= intDigits) {
        out += digits + std::string(intDigits - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, intDigits) + "." + digits.substr(intDigits);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char e[16];
  std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  return out + e;
}

/// The text of a value of any numeric type or BOOL.
template <class T>
std::string format(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    return formatFloat(v);
  }
}

/// Whether only white space is left at `end`.
inline bool onlySpaceLeft(const char* end) {
  while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r') ++end;
  return *end == '\0';
}

/// Reads `s` as a T; false when it is not a number.
template <class T>
bool parse(const std::string& s, T& out) {
  const char* p = s.c_str();
  char* end = nullptr;
  if constexpr (std::is_same_v<T, bool>) {
    const std::string word = asciiLower(s);
    if (word == "true" || word == "false") {
      out = word == "true";
      return true;
    }
    const double v = std::strtod(p, &end);
    if (end == p || !onlySpaceLeft(end)) return false;
    out = v != 0.0;
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    // Integers exactly (INT64 beyond 2^53 too), saturated to T's range; other numbers truncated.
    if constexpr (std::is_signed_v<T>) {
      const long long v = std::strtoll(p, &end, 10);  // LLONG_MIN / LLONG_MAX when out of range
      if (end != p && onlySpaceLeft(end)) {
        out = static_cast<T>(std::clamp<long long>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
        return true;
      }
    } else {
      const unsigned long long v = std::strtoull(p, &end, 10);  // ULLONG_MAX when out of range
      if (end != p && onlySpaceLeft(end) && s.find('-') == std::string::npos) {
        out = static_cast<T>(std::min<unsigned long long>(v, std::numeric_limits<T>::max()));
        return true;
      }
    }
    const double v = std::strtod(p, &end);
    if (end == p || !onlySpaceLeft(end)) return false;
    out = std::isnan(v) ? T(0) : saturatingCast<T>(v);
    return true;
  } else if constexpr (std::is_same_v<T, double>) {
    out = std::strtod(p, &end);
    return end != p && onlySpaceLeft(end);
  } else {
    const float v = std::strtof(p, &end);
    out = T(v);
    return end != p && onlySpaceLeft(end);
  }
}

}  // namespace cast_text
}  // namespace cpu
}  // namespace popart
