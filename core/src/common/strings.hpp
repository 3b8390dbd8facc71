// ASCII case conversion for names (dtype, enum, pattern and logger names, string-op text).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>

namespace popart {

inline std::string asciiUpper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

inline std::string asciiLower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace popart
