// popart._popart: the pybind11 extension behind the `popart` Python package (python/popart/).
// It marshals Python values to the core's types and back; every behaviour and message is the
// core's. C++ exceptions become PopART's Python exception classes carrying the same message.
#include "py_common.hpp"

namespace py = pybind11;

namespace {

/// PopART's exception classes, created once (the module keeps them alive for the process).
PyObject* gPopartException = nullptr;
PyObject* gInternalException = nullptr;
PyObject* gRuntimeError = nullptr;
PyObject* gOutOfMemory = nullptr;
PyObject* gPoplarException = nullptr;

PyObject* newException(py::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string full = std::string("popart.") + name;
  PyObject* e = PyErr_NewExceptionWithDoc(full.c_str(), doc, base, nullptr);
  if (!e) throw py::error_already_set();
  m.add_object(name, py::handle(e));  // the module holds a reference; gX keeps the one made here
  return e;
}

}  // namespace

PYBIND11_MODULE(_popart, m) {
  m.doc() = "PopART's Python API over the popart-runtime core (CPU and IPU-model devices).";
  gPopartException = newException(m, "popart_exception", PyExc_RuntimeError,
                                  "An error of the runtime (popart::error): bad input, a call in the wrong order, an "
                                  "unsupported feature. The message is in args[0].");
  gInternalException =
      newException(m, "popart_internal_exception", gPopartException, "A broken invariant of the runtime (a bug).");
  gRuntimeError = newException(m, "popart_runtime_error", gPopartException, "An error raised while a session runs.");
  gOutOfMemory = newException(m, "OutOfMemoryException", gPopartException,
                              "The device cannot hold the graph, or an allocation is over the memory limit.");
  gPoplarException = newException(m, "poplar_exception", PyExc_RuntimeError,
                                  "Poplar's errors; this runtime has no Poplar, so nothing raises it (kept so that "
                                  "`except popart.poplar_exception` works).");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const popart::memory_allocation_err& e) {
      PyErr_SetString(gOutOfMemory, e.what());
    } catch (const popart::internal_error& e) {
      PyErr_SetString(gInternalException, e.what());
    } catch (const popart::runtime_error& e) {
      PyErr_SetString(gRuntimeError, e.what());
    } catch (const popart::error& e) {
      PyErr_SetString(gPopartException, e.what());
    }
  });
  popart::py_bind::bindValues(m);
  popart::py_bind::bindBuilder(m);
  popart::py_bind::bindSession(m);
}
