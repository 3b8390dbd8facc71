// Must NOT compile: a layer probe (tests/CMakeLists.txt). The Builder sits below the backends: its
// shape inference goes through passes/node_inference.hpp and ir's ConstEvaluator, never the CPU
// backend.
#include "backends/cpu/cpu_backend.hpp"
