// The version functions (popart/version.hpp): the values come from CMake as compile definitions
// on this file only (core/CMakeLists.txt), so a new commit recompiles one file.
#include "popart/version.hpp"

#ifndef POPART_VERSION_MAJOR
#error "POPART_VERSION_MAJOR is set by core/CMakeLists.txt"
#endif

#define POPART_STR2(x) #x
#define POPART_STR(x) POPART_STR2(x)

namespace popart {
namespace core {

const char* versionString() {
  return POPART_STR(POPART_VERSION_MAJOR) "." POPART_STR(POPART_VERSION_MINOR) "." POPART_STR(POPART_VERSION_PATCH);
}

VersionNumber versionNumber() {
  return VersionNumber{POPART_VERSION_MAJOR, POPART_VERSION_MINOR, POPART_VERSION_PATCH};
}

const char* packageHash() {
  return POPART_PACKAGE_HASH;
}

}  // namespace core
}  // namespace popart
