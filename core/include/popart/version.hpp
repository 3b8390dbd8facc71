// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file version.hpp
/// The library's version and the source it was built from (PopART's `popart::core` version
/// functions; Python's popart.versionString() / versionNumber() / packageHash(), JS's
/// popart.versionString() / versionNumber() / packageHash()).

#include <cstdint>

namespace popart {
namespace core {

/// major.minor.point of this runtime (the CMake project version).
struct VersionNumber {
  uint32_t major = 0;
  uint32_t minor = 0;
  uint32_t point = 0;
};

/// "major.minor.point", e.g. "0.1.0". A static string.
const char* versionString();
/// The same as numbers.
VersionNumber versionNumber();
/// The short git commit hash of the source tree at configure time, or "unknown" outside a git
/// checkout. A static string.
const char* packageHash();

}  // namespace core
}  // namespace popart
