// Must NOT compile: a layer probe (tests/CMakeLists.txt). The ops layer sits below autodiff, so
// its sources cannot see autodiff's headers; the test passes when the compiler says so.
#include "autodiff/autodiff.hpp"
