// The Builder handle of the Python module (popart._popart._Builder). popart/builder.py gives it
// PopART's Python face (aiOnnx / aiOnnxOpsetN / aiGraphcore from the generated op table and the
// core's Graphcore op table, context managers); this file only converts values.
#include <memory>
#include <set>

#include "py_common.hpp"

namespace popart {
namespace py_bind {

namespace {

std::set<TensorId> idSet(py::handle h, const std::string& what) {
  if (py::isinstance<py::str>(h)) return {h.cast<std::string>()};
  const auto v = toStrings(h, what);
  return std::set<TensorId>(v.begin(), v.end());
}

std::string bytesOrPath(py::handle h, const std::string& what) {
  if (py::isinstance<py::bytes>(h) || py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::hasattr(h, "__fspath__")) return py::str(h.attr("__fspath__")()).cast<std::string>();
  throw error("{} must be ONNX ModelProto bytes or a file path, got {}", what,
              py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>());
}

bool allOf(const py::list& l, bool (*pred)(py::handle)) {
  for (py::handle e : l)
    if (!pred(e)) return false;
  return true;
}
bool isIntLike(py::handle e) {
  return py::isinstance<py::int_>(e);
}
bool isNumber(py::handle e) {
  return py::isinstance<py::int_>(e) || py::isinstance<py::float_>(e);
}
bool isStr(py::handle e) {
  return py::isinstance<py::str>(e);
}

/// Owns a top-level Builder, or points into one (subgraph builders are owned by their parent).
class PyBuilder {
 public:
  explicit PyBuilder(std::shared_ptr<Builder> root) : root_(std::move(root)), b_(root_.get()) {}
  PyBuilder(std::shared_ptr<Builder> root, Builder* sub) : root_(std::move(root)), b_(sub) {}
  Builder& b() { return *b_; }

 private:
  std::shared_ptr<Builder> root_;
  Builder* b_;
};

/// An attribute of an aiOnnx method, by the type code of the generated table: i, f, s, ints,
/// floats, strings, dtype (Cast's "to"), t (a tensor: ndarray), g (a subgraph Builder).
any onnxAttribute(const std::string& op, const std::string& n, const std::string& t, py::handle v,
                  std::vector<py::array>& keep) {
  const std::string what = op + " attribute '" + n + "'";
  try {
    if (t == "i") return py::isinstance<py::bool_>(v) ? int64_t{v.cast<bool>()} : v.cast<int64_t>();
    if (t == "f") return v.cast<float>();
    if (t == "s") return v.cast<std::string>();
    if (t == "ints") return v.cast<std::vector<int64_t>>();
    if (t == "floats") return v.cast<std::vector<float>>();
    if (t == "strings") return toStrings(v, what);
    if (t == "dtype") return static_cast<int64_t>(onnxDataType(toDataType(v, what)));
    if (t == "t") {
      keep.push_back(py::module_::import("numpy").attr("ascontiguousarray")(v).cast<py::array>());
      ArrayRef a(keep.back(), what, false);
      return ConstVoidData(a.data(), a.info());
    }
    if (t == "g") return static_cast<const Builder*>(&v.attr("_impl").cast<PyBuilder&>().b());
  } catch (const py::cast_error&) {
    // A TypeError, as pybind11 raises for an argument of the wrong type (popart/builder.py words it).
    throw py::type_error(popart::format("{} must be {}, got {}", what,
                                        t == "i"        ? "an integer"
                                        : t == "f"      ? "a number"
                                        : t == "s"      ? "a string"
                                        : t == "ints"   ? "a list of integers"
                                        : t == "floats" ? "a list of numbers"
                                                        : "a Builder",
                                        py::repr(v).cast<std::string>()));
  }
  throw error("internal: attribute '{}' has unknown type code '{}'", n, t);
}

}  // namespace

void bindBuilder(py::module_& m) {
  py::class_<PyBuilder>(m, "_Builder")
      .def(py::init([](py::object model) {
             if (model.is_none()) return std::make_unique<PyBuilder>(std::shared_ptr<Builder>(Builder::create()));
             return std::make_unique<PyBuilder>(
                 std::shared_ptr<Builder>(Builder::createFromOnnxModel(bytesOrPath(model, "modelProtoOrFilename"))));
           }),
           py::arg("modelProtoOrFilename") = py::none())
      .def(
          "createSubgraphBuilder",
          [](PyBuilder& self) {
            // The child shares ownership of the root, so it outlives a dropped parent handle.
            return PyBuilder(std::shared_ptr<Builder>(), &self.b().createSubgraphBuilder());
          },
          py::keep_alive<0, 1>())
      .def("setGraphName", [](PyBuilder& s, const std::string& n) { s.b().setGraphName(n); })
      .def("embedReplicationFactor", [](PyBuilder& s, int n) { s.b().embedReplicationFactor(n); })
      .def("addInputTensor",
           [](PyBuilder& s, py::object a, py::object shape, const std::string& dc, py::object settings) {
             const bool with = !settings.is_none();
             const InputSettings is = with ? settings.cast<InputSettings>() : InputSettings();
             if (py::isinstance<TensorInfo>(a))
               return with ? s.b().addInputTensor(a.cast<TensorInfo>(), is, dc)
                           : s.b().addInputTensor(a.cast<TensorInfo>(), dc);
             if (shape.is_none()) throw error("addInputTensor(dtype, shape): the shape is missing");
             const std::string dt = dataTypeToString(toDataType(a, "addInputTensor data type"));
             const auto sh = shape.cast<std::vector<int64_t>>();
             return with ? s.b().addInputTensor(dt, sh, is, dc) : s.b().addInputTensor(dt, sh, dc);
           })
      .def("addUntypedInputTensor", [](PyBuilder& s, const std::string& dc) { return s.b().addUntypedInputTensor(dc); })
      .def("addInputTensorFromParentGraph",
           [](PyBuilder& s, const std::string& id) { s.b().addInputTensorFromParentGraph(id); })
      .def("addInitializedInputTensor",
           [](PyBuilder& s, py::object arr, const std::string& dc, py::object settings) {
             py::array a = py::module_::import("numpy").attr("ascontiguousarray")(arr);
             ArrayRef r(a, "addInitializedInputTensor", false);
             if (settings.is_none()) return s.b().addInitializedInputTensor(ConstVoidData(r.data(), r.info()), dc);
             return s.b().addInitializedInputTensor(ConstVoidData(r.data(), r.info()),
                                                    settings.cast<VariableSettings>(), dc);
           })
      .def("addOutputTensor", [](PyBuilder& s, const std::string& id) { s.b().addOutputTensor(id); })
      .def("useOpset", [](PyBuilder& s, const std::string& d, int v) { s.b().useOpset(d, v); })
      .def("getOnnxOpsetVersion", [](PyBuilder& s) { return s.b().getOnnxOpsetVersion(); })
      .def("op",
           [](PyBuilder& s, const std::string& domain, int version, const std::string& type, py::object inputs,
              unsigned numOutputs, const py::list& attrs, const std::string& name, int minIn, int maxIn) {
             std::map<std::string, any> a;
             std::vector<py::array> keep;  // tensor attribute data, alive until the node is added
             for (py::handle e : attrs) {
               auto t = e.cast<py::tuple>();
               const auto n = t[0].cast<std::string>();
               a[n] = onnxAttribute(type, n, t[1].cast<std::string>(), t[2], keep);
             }
             return s.b().opsetOp(domain, version, type, toStrings(inputs, type + " inputs"), numOutputs, a, name,
                                  minIn, maxIn);
           })
      .def("graphcore",
           [](PyBuilder& s, const std::string& method, py::object args, const py::dict& params, const std::string& dc) {
             std::map<std::string, OptionValue> attrs;
             std::map<std::string, const Builder*> graphs;
             for (const auto& op : graphcoreOpList()) {
               if (op.method != method) continue;
               for (const auto& at : op.attrs) {
                 if (!params.contains(at.name) || params[py::str(at.name)].is_none()) continue;
                 const std::string what = "aiGraphcore." + method + " " + at.name;
                 py::object v = params[py::str(at.name)];
                 if (at.type == "graph") {
                   if (!py::hasattr(v, "_impl") || !py::isinstance<PyBuilder>(v.attr("_impl")))
                     throw error("{} must be a popart.Builder (a subgraph), got {}", what,
                                 py::repr(v).cast<std::string>());
                   graphs[at.name] = &v.attr("_impl").cast<PyBuilder&>().b();
                 } else {
                   attrs[at.name] = optionValueFrom(v, at.type, what);
                 }
               }
             }
             const GraphcoreOpInfo* info = nullptr;
             for (const auto& op : graphcoreOpList()) {
               if (op.method == method) info = &op;
             }
             if (info && info->inputsForm == "groups") {  // [[x0, w0(, b0)], ...]
               if (!py::isinstance<py::list>(args) && !py::isinstance<py::tuple>(args))
                 throw error("aiGraphcore.{} args must be a list of input lists, got {}", method,
                             py::repr(args).cast<std::string>());
               std::vector<std::vector<TensorId>> groups;
               for (py::handle g : py::reinterpret_borrow<py::iterable>(args))
                 groups.push_back(toStrings(g, method + " args[" + std::to_string(groups.size()) + "]"));
               return s.b().aiGraphcoreOpset1().callGroupsMethod(method, groups, attrs, dc);
             }
             return s.b().aiGraphcoreOpset1().callMethod(method, toStrings(args, method + " args"), attrs, graphs, dc);
           })
      .def("customOp",
           [](PyBuilder& s, const std::string& opName, int opVersion, const std::string& domain, py::object inputs,
              const py::dict& attributes, unsigned numOutputs, const std::string& name) {
             std::map<std::string, any> a;
             for (auto kv : attributes) {
               const auto n = kv.first.cast<std::string>();
               py::handle v = kv.second;
               if (py::isinstance<py::bool_>(v) || py::isinstance<py::int_>(v))
                 a[n] = v.cast<int64_t>();
               else if (py::isinstance<py::float_>(v))
                 a[n] = v.cast<float>();
               else if (py::isinstance<py::str>(v))
                 a[n] = v.cast<std::string>();
               else if (py::isinstance<py::list>(v) && allOf(v.cast<py::list>(), isIntLike))
                 a[n] = v.cast<std::vector<int64_t>>();
               else if (py::isinstance<py::list>(v) && allOf(v.cast<py::list>(), isNumber))
                 a[n] = v.cast<std::vector<float>>();
               else if (py::isinstance<py::list>(v) && allOf(v.cast<py::list>(), isStr))
                 a[n] = v.cast<std::vector<std::string>>();
               else
                 throw error("customOp attribute '{}': unsupported value {}", n, py::repr(v).cast<std::string>());
             }
             return s.b().customOp(OperatorIdentifier(domain, opName, opVersion), opVersion,
                                   toStrings(inputs, "customOp inputs"), numOutputs, a, name);
           })
      .def("getModelProto",
           [](PyBuilder& s, bool humanReadable) { return py::bytes(s.b().getModelProto(humanReadable)); })
      .def("saveModelProto", [](PyBuilder& s, const std::string& fn) { s.b().saveModelProto(fn); })
      .def("saveInitializersExternally", [](PyBuilder& s, const std::vector<std::string>& ids,
                                            const std::string& fn) { s.b().saveInitializersExternally(ids, fn); })
      .def("getInputTensorIds", [](PyBuilder& s) { return s.b().getInputTensorIds(); })
      .def("getOutputTensorIds", [](PyBuilder& s) { return s.b().getOutputTensorIds(); })
      .def("getValueTensorIds", [](PyBuilder& s) { return s.b().getValueTensorIds(); })
      .def("getTrainableTensorIds", [](PyBuilder& s) { return s.b().getTrainableTensorIds(); })
      .def("hasValueInfo", [](PyBuilder& s, const std::string& id) { return s.b().hasValueInfo(id); })
      .def("getTensorShape", [](PyBuilder& s, const std::string& id) { return s.b().getTensorShape(id); })
      .def("getTensorDtypeString", [](PyBuilder& s, const std::string& id) { return s.b().getTensorDtypeString(id); })
      .def("isInitializer", [](PyBuilder& s, const std::string& id) { return s.b().isInitializer(id); })
      .def("pushNameScope", [](PyBuilder& s, const std::string& n) { s.b().pushNameScope(n); })
      .def("popNameScope", [](PyBuilder& s) { s.b().popNameScope(); })
      .def("getNameScope", [](PyBuilder& s, const std::string& n) { return s.b().getNameScope(n); })
      .def("addNodeAttribute",
           [](PyBuilder& s, const std::string& name, py::object v, py::object outs) {
             const auto ids = idSet(outs, "addNodeAttribute nodeOutputNames");
             if (py::isinstance<py::bool_>(v) || py::isinstance<py::int_>(v))
               s.b().addNodeAttribute(name, v.cast<int64_t>(), ids);
             else if (py::isinstance<py::float_>(v))
               s.b().addNodeAttribute(name, v.cast<float>(), ids);
             else if (py::isinstance<py::str>(v))
               s.b().addNodeAttribute(name, v.cast<std::string>(), ids);
             else if (py::isinstance<py::list>(v) && allOf(v.cast<py::list>(), isIntLike))
               s.b().addNodeAttribute(name, v.cast<std::vector<int64_t>>(), ids);
             else if (py::isinstance<py::list>(v) && allOf(v.cast<py::list>(), isNumber))
               s.b().addNodeAttribute(name, v.cast<std::vector<float>>(), ids);
             else if (py::isinstance<py::list>(v) && allOf(v.cast<py::list>(), isStr))
               s.b().addNodeAttribute(name, v.cast<std::vector<std::string>>(), ids);
             else
               throw error(
                   "addNodeAttribute '{}': the value must be an int, float, str or a list of one of these, "
                   "got {}",
                   name, py::repr(v).cast<std::string>());
           })
      .def("nodeHasAttribute",
           [](PyBuilder& s, const std::string& n, py::object o) { return s.b().nodeHasAttribute(n, idSet(o, "ids")); })
      .def("getInt64NodeAttribute", [](PyBuilder& s, const std::string& n,
                                       py::object o) { return s.b().getInt64NodeAttribute(n, idSet(o, "ids")); })
      .def("getInt64VectorNodeAttribute",
           [](PyBuilder& s, const std::string& n, py::object o) {
             return s.b().getInt64VectorNodeAttribute(n, idSet(o, "ids"));
           })
      .def("getFloatNodeAttribute", [](PyBuilder& s, const std::string& n,
                                       py::object o) { return s.b().getFloatNodeAttribute(n, idSet(o, "ids")); })
      .def("getFloatVectorNodeAttribute",
           [](PyBuilder& s, const std::string& n, py::object o) {
             return s.b().getFloatVectorNodeAttribute(n, idSet(o, "ids"));
           })
      .def("getStringNodeAttribute", [](PyBuilder& s, const std::string& n,
                                        py::object o) { return s.b().getStringNodeAttribute(n, idSet(o, "ids")); })
      .def("getStringVectorNodeAttribute",
           [](PyBuilder& s, const std::string& n, py::object o) {
             return s.b().getStringVectorNodeAttribute(n, idSet(o, "ids"));
           })
      .def("removeNodeAttribute",
           [](PyBuilder& s, const std::string& n, py::object o) { s.b().removeNodeAttribute(n, idSet(o, "ids")); })
      .def("getAllNodeAttributeNames",
           [](PyBuilder& s, py::object o) { return s.b().getAllNodeAttributeNames(idSet(o, "ids")); })
      // A scoped attribute: an integer (virtualGraph, ...) or a list of integers (commGroup).
      .def("setAttributeInt",
           [](PyBuilder& s, const std::string& n, py::object v) {
             if (py::isinstance<py::sequence>(v))
               s.b().setAttribute(n, any(v.cast<std::vector<int64_t>>()));
             else
               s.b().setAttribute(n, any(v.cast<int64_t>()));
           })
      .def("getAttributeInt",
           [](PyBuilder& s, const std::string& n) -> py::object {
             if (!s.b().hasAttribute(n)) return py::none();
             const any a = s.b().getAttribute(n);
             if (const auto* v = std::any_cast<std::vector<int64_t>>(&a)) return py::cast(*v);
             return py::int_(std::any_cast<int64_t>(a));
           })
      .def("clearAttribute", [](PyBuilder& s, const std::string& n) { s.b().clearAttribute(n); })
      .def("virtualGraph",
           [](PyBuilder& s, py::object o, int64_t v) { s.b().virtualGraph(idSet(o, "virtualGraph ids"), v); })
      .def("getVirtualGraph", [](PyBuilder& s, const std::string& id) { return s.b().getVirtualGraph(id); })
      .def("getVirtualGraph",  // PopART's set form: the node that makes all of these outputs
           [](PyBuilder& s, py::object o) { return s.b().getVirtualGraph(idSet(o, "getVirtualGraph ids")); })
      .def("getVirtualGraph", [](PyBuilder& s) { return s.b().getVirtualGraph(); })
      .def("pipelineStage",
           [](PyBuilder& s, py::object o, int64_t v) { s.b().pipelineStage(idSet(o, "pipelineStage ids"), v); })
      .def("getPipelineStage", [](PyBuilder& s, const std::string& id) { return s.b().getPipelineStage(id); })
      .def("getPipelineStage",
           [](PyBuilder& s, py::object o) { return s.b().getPipelineStage(idSet(o, "getPipelineStage ids")); })
      .def("getPipelineStage", [](PyBuilder& s) { return s.b().getPipelineStage(); })
      .def("executionPhase",
           [](PyBuilder& s, py::object o, int64_t v) { s.b().executionPhase(idSet(o, "executionPhase ids"), v); })
      .def("getExecutionPhase", [](PyBuilder& s, const std::string& id) { return s.b().getExecutionPhase(id); })
      .def("getExecutionPhase",
           [](PyBuilder& s, py::object o) { return s.b().getExecutionPhase(idSet(o, "getExecutionPhase ids")); })
      .def("getExecutionPhase", [](PyBuilder& s) { return s.b().getExecutionPhase(); })
      .def("recomputeOutputInBackwardPass",
           [](PyBuilder& s, py::object o, py::object v) {
             const auto t = toEnum<RecomputeType>(v, "recomputeOutputInBackwardPass value");
             for (const auto& id : idSet(o, "recomputeOutputInBackwardPass ids"))
               s.b().recomputeOutputInBackwardPass(id, t);
           })
      .def("checkpointOutput",
           [](PyBuilder& s, py::object o) { return s.b().checkpointOutput(toStrings(o, "checkpointOutput ids")); })
      .def("hasVirtualGraph", [](PyBuilder& s) { return s.b().hasVirtualGraph(); })
      .def("hasPipelineStage", [](PyBuilder& s) { return s.b().hasPipelineStage(); })
      .def("hasExecutionPhase", [](PyBuilder& s) { return s.b().hasExecutionPhase(); })
      .def("setAvailableMemoryProportion",
           [](PyBuilder& s, py::object o, float p) {
             for (const auto& id : idSet(o, "setAvailableMemoryProportion ids"))
               s.b().setAvailableMemoryProportion(id, p);
           })
      .def("setInplacePreferences",
           [](PyBuilder& s, const std::string& id, const std::map<std::string, float>& prefs) {
             s.b().setInplacePreferences(id, prefs);
           })
      .def("setEnableConvDithering",  // an int, as PopART's (True / False are ints in Python)
           [](PyBuilder& s, const std::string& id, int64_t v) { s.b().setEnableConvDithering(id, v); })
      .def("setPartialsType",
           [](PyBuilder& s, const std::string& id, const std::string& t) { s.b().setPartialsType(id, t); })
      .def("setSerializeMatMul",
           [](PyBuilder& s, py::object o, const std::string& mode, int64_t factor, bool keep) {
             s.b().setSerializeMatMul(idSet(o, "setSerializeMatMul ids"), mode, factor, keep);
           })
      .def("excludePatterns", [](PyBuilder& s, const std::string& id, py::object names) {
        s.b().excludePatterns(id, toStrings(names, "excludePatterns patternNames"));
      });
}

}  // namespace py_bind
}  // namespace popart
