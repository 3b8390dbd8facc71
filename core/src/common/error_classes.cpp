// PopART's exception classes as the bindings raise them: one list for Python and JS.
#include "popart/error.hpp"

namespace popart {

const std::vector<ErrorClass>& errorClasses() {
  static const std::vector<ErrorClass> classes = {
      {"popart_exception", "",
       "An error of the runtime (popart::error): bad input, a call in the wrong order, an unsupported feature."},
      {"popart_internal_exception", "popart_exception", "A broken invariant of the runtime (a bug)."},
      {"popart_runtime_error", "popart_exception", "An error raised while a session runs."},
      {"OutOfMemoryException", "popart_exception",
       "The device cannot hold the graph, or an allocation is over the memory limit."},
      {"poplar_exception", "",
       "The errors PopART passes on from Poplar: an unknown engine option, a profile asked of a device that keeps "
       "none, a run that reached an abort op (poplar_runtime_error)."},
      {"poplar_runtime_error", "poplar_exception",
       "A run that reached an aiGraphcore.abort op (\"Abort Program ...\")."},
      {"poplibs_exception", "",
       "PopART's class for errors from Poplibs (poputil::poplibs_error). This runtime has no Poplibs: nothing raises "
       "it; it exists for scripts that catch it."},
  };
  return classes;
}

const char* errorClassOf(const std::exception& e) {
  // Most derived first: an OutOfMemoryException is a memory_allocation_err is an error.
  if (dynamic_cast<const memory_allocation_err*>(&e)) return "OutOfMemoryException";
  if (dynamic_cast<const internal_error*>(&e)) return "popart_internal_exception";
  if (dynamic_cast<const poplar_runtime_error*>(&e)) return "poplar_runtime_error";
  if (dynamic_cast<const poplar_error*>(&e)) return "poplar_exception";
  if (dynamic_cast<const runtime_error*>(&e)) return "popart_runtime_error";
  return "popart_exception";
}

}  // namespace popart
