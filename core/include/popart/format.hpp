// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file format.hpp
/// A small `{}`-placeholder formatter used by errors and logging
/// (`popart::error("tensor {} has shape {}", id, shape)`). Each `{}` takes the next argument,
/// written with `operator<<`; `{{` and `}}` are literal braces. Vectors print as `[a b c]`.

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace popart {

/// Writes a vector as `[a b c]` (PopART's shape notation).
template <typename T>
std::ostream& operator<<(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) os << ' ';
    os << v[i];
  }
  return os << ']';
}

namespace detail {

inline void formatTail(std::ostringstream& os, const char* f) {
  for (; *f; ++f) {
    if ((f[0] == '{' && f[1] == '{') || (f[0] == '}' && f[1] == '}')) ++f;
    os << *f;
  }
}

template <typename T, typename... Rest>
void formatTail(std::ostringstream& os, const char* f, const T& v, const Rest&... rest) {
  for (; *f; ++f) {
    if (f[0] == '{' && f[1] == '{') {
      os << '{';
      ++f;
    } else if (f[0] == '}' && f[1] == '}') {
      os << '}';
      ++f;
    } else if (f[0] == '{' && f[1] == '}') {
      os << v;
      formatTail(os, f + 2, rest...);
      return;
    } else {
      os << *f;
    }
  }
  // More arguments than placeholders: append them, so nothing is silently lost.
  os << ' ' << v;
  ((os << ' ' << rest), ...);
}

}  // namespace detail

/// Formats `fmt` with `{}` placeholders. With no arguments the text is returned unchanged.
template <typename... Args>
std::string format(const std::string& fmt, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return fmt;
  } else {
    std::ostringstream os;
    detail::formatTail(os, fmt.c_str(), args...);
    return os.str();
  }
}

}  // namespace popart
