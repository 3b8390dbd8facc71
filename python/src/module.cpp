// popart._popart: the pybind11 extension behind the `popart` Python package (python/popart/).
// It marshals Python values to the core's types and back; every behaviour and message is the
// core's. C++ exceptions become PopART's Python exception classes carrying the same message.
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "popart/error_context.hpp"
#include "py_common.hpp"
#include "python_docs.gen.hpp"

namespace py = pybind11;

namespace {

/// PopART's exception classes (popart::errorClasses()), by name, created once (the module keeps
/// them alive for the process).
std::map<std::string, PyObject*> gExceptions;

PyObject* newException(py::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string full = std::string("popart.") + name;
  PyObject* e = PyErr_NewExceptionWithDoc(full.c_str(), doc, base, nullptr);
  if (!e) throw py::error_already_set();
  m.add_object(name, py::handle(e));  // the module holds a reference; gX keeps the one made here
  return e;
}

const char* cppDoc(const std::string& key) {
  for (const auto& d : popart::py_bind::kCppDocs)
    if (key == d.key) return d.doc;
  return nullptr;
}

/// Appends the public headers' `///` comments (python_docs.gen.hpp) to the docstrings of the
/// bound methods, after pybind11's signature line, and gives undocumented classes theirs.
void addCppDocs(py::module_& m) {
  static const std::map<std::string, std::vector<std::string>> classes{
      {"_Session", {"Session", "TrainingSession", "InferenceSession", "LegacySession"}},
      {"_Builder", {"Builder"}},
      {"GraphTransformer", {"GraphTransformer"}},
      {"_SessionOptions", {"SessionOptions"}},
      {"TensorInfo", {"TensorInfo"}},
      {"DataFlow", {"DataFlow"}},
      {"AnchorReturnType", {"AnchorReturnType"}},
      {"InputShapeInfo", {"InputShapeInfo"}},
      {"Patterns", {"Patterns"}},
      {"DeviceInfo", {"DeviceInfo"}},
      {"DeviceManager", {"DeviceManager"}},
      {"Optimizer", {"Optimizer"}},
      {"SGD", {"SGD", "Optimizer"}},
      {"ConstSGD", {"ConstSGD", "SGD", "Optimizer"}},
      {"Adam", {"Adam", "Optimizer"}},
      {"Adaptive", {"Adaptive", "Optimizer"}},
      {"OptimizerValue", {"OptimizerValue"}},
      {"OptimizerValueMap", {"OptimizerValueMap"}},
      {"ClipNormSettings", {"ClipNormSettings"}},
      {"Logger", {"Logger"}},
      {"IStepIO", {"IStepIO"}},
  };
  for (const auto& kv : classes) {
    py::object cls = m.attr(kv.first.c_str());
    for (py::handle n : py::reinterpret_steal<py::list>(PyObject_Dir(cls.ptr()))) {
      const auto name = n.cast<std::string>();
      if (name.rfind("_", 0) == 0) continue;
      py::object f = cls.attr(name.c_str());
      if (PyInstanceMethod_Check(f.ptr()))
        f = py::reinterpret_borrow<py::object>(PyInstanceMethod_GET_FUNCTION(f.ptr()));
      if (!PyCFunction_Check(f.ptr())) continue;
      for (const auto& cpp : kv.second) {
        const char* doc = cppDoc(cpp + "." + name);
        if (!doc) continue;
        auto* fo = reinterpret_cast<PyCFunctionObject*>(f.ptr());
        const char* old = fo->m_ml->ml_doc;
        if (old && std::strstr(old, doc)) break;  // inherited: already there
        const std::string s = std::string(old ? old : "") + "\n\n" + doc;
        fo->m_ml->ml_doc = strdup(s.c_str());  // pybind11 strdup'ed the old one and frees this one
        std::free(const_cast<char*>(old));
        break;
      }
    }
    const char* cdoc = cppDoc(kv.second.front());
    if (cdoc && (!py::hasattr(cls, "__doc__") || cls.attr("__doc__").is_none())) cls.attr("__doc__") = cdoc;
  }
  py::dict all;
  for (const auto& d : popart::py_bind::kCppDocs) all[d.key] = d.doc;
  m.attr("_cppDocs") = all;
}

// args[0] (and str()) is the error's own sentence: PopART's message where PopART has one, as PopART's
// scripts compare it with ==, startswith, endswith. When the core added context around it (the
// node, the gradient being built, the step), the whole text is the attribute `fullMessage` and a
// note (PEP 678), which tracebacks print under the message.
void setError(PyObject* type, const popart::error& e) {
  const std::string full = e.what();
  const std::string own = popart::ownMessage(e);
  if (own.empty() || own == full) {
    PyErr_SetString(type, full.c_str());
    return;
  }
  py::object exc = py::reinterpret_borrow<py::object>(type)(own);
  exc.attr("fullMessage") = full;
  if (py::hasattr(exc, "add_note")) exc.attr("add_note")(full);
  PyErr_SetObject(type, exc.ptr());
}

}  // namespace

PYBIND11_MODULE(_popart, m) {
  m.doc() = "PopART's Python API over the popart-runtime core (CPU and IPU-model devices).";
  for (const auto& c : popart::errorClasses())
    gExceptions[c.name] = newException(m, c.name, *c.base ? gExceptions.at(c.base) : PyExc_RuntimeError, c.doc);
  m.def("_errorClasses", [] {
    py::list l;
    for (const auto& c : popart::errorClasses()) l.append(py::make_tuple(c.name, c.base, c.doc));
    return l;
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const popart::OutOfMemoryException& e) {
      // The exception object carries the core's summary report and profile path.
      PyObject* type = gExceptions.at(popart::errorClassOf(e));
      py::object exc = py::reinterpret_borrow<py::object>(type)(e.what());
      exc.attr("_summaryReport") = e.getSummaryReport();
      exc.attr("_profilePath") = e.getProfilePath();
      exc.attr("_graphReport") = e.getGraphReport();
      PyErr_SetObject(type, exc.ptr());
    } catch (const popart::error& e) {
      setError(gExceptions.at(popart::errorClassOf(e)), e);
    }
  });
  popart::py_bind::bindValues(m);
  popart::py_bind::bindReplicas(m);
  popart::py_bind::bindBuilder(m);
  popart::py_bind::bindGraphTransformer(m);
  popart::py_bind::bindSession(m);
  addCppDocs(m);
}
