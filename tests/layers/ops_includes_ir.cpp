// Must compile: a layer probe (tests/CMakeLists.txt), the control for the two that must not. The
// ops layer sees the IR below it.
#include "ir/graph.hpp"
#include "ir/op_def.hpp"

int popartLayerProbe() {
  return static_cast<int>(popart::OpKind::N);
}
