// Value classes of the Python module: TensorInfo, AnchorReturnType, DataFlow, InputShapeInfo,
// SessionOptions (through the core's option table), Patterns, devices, optimizers, the pre-1.2
// loss objects, logging and the core's tables. Marshalling only.
#include <sstream>

#include "popart/opmanager.hpp"
#include "popart/threads.hpp"
#include "popart/version.hpp"
#include "py_common.hpp"

namespace popart {
namespace py_bind {

using namespace pybind11::literals;  // NOLINT: "name"_a keywords

namespace {

Shape toShape(py::handle h, const std::string& what) {
  Shape s;
  if (py::isinstance<py::str>(h) || !py::isinstance<py::iterable>(h))
    throw error("{} must be a list of integers, got {}", what, py::repr(h).cast<std::string>());
  for (py::handle e : py::reinterpret_borrow<py::iterable>(h)) {
    if (py::isinstance<py::bool_>(e) || !(py::isinstance<py::int_>(e) || py::hasattr(e, "__index__")))
      throw error("{} must be a list of integers; element {} is {}", what, s.size(), py::repr(e).cast<std::string>());
    s.push_back(e.cast<int64_t>());
  }
  return s;
}

/// {key: (value, isConst)} -> the optimizer constructors' map. PopART requires tuples.
std::map<std::string, std::pair<float, bool>> optimizerMap(const py::dict& d, const std::string& what) {
  std::map<std::string, std::pair<float, bool>> m;
  for (auto kv : d) {
    const auto key = py::str(kv.first).cast<std::string>();
    if (!py::isinstance<py::tuple>(kv.second) || py::len(kv.second) != 2)
      throw error("A value in the optimizer map must be a py::tuple (value, isConst): {}['{}'] is {}", what, key,
                  py::repr(kv.second).cast<std::string>());
    auto t = py::reinterpret_borrow<py::tuple>(kv.second);
    if (!py::isinstance<py::bool_>(t[1]))
      throw error("{}['{}']: isConst must be a bool, got {}", what, key, py::repr(t[1]).cast<std::string>());
    m[key] = {t[0].cast<float>(), t[1].cast<bool>()};
  }
  return m;
}

/// A Python argument of an optimizer or loss constructor as the core's FactoryValue, whatever the
/// argument: enum members and NumPy dtypes become their names, a dict the hyper-parameter map, a
/// list of ClipNormSettings the list. The core matches the values to the constructor's table.
FactoryValue factoryValue(py::handle h, const std::string& factory) {
  if (h.is_none()) return std::monostate{};
  if (py::isinstance<py::bool_>(h)) return h.cast<bool>();
  if (py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (!py::isinstance<py::type>(h) && py::hasattr(h, "name") && py::hasattr(h, "value") &&
      py::isinstance<py::str>(h.attr("name")))
    return h.attr("name").cast<std::string>();  // a member of a popart enum (DataType too)
  if (py::isinstance<py::float_>(h)) return h.cast<double>();
  if (py::isinstance<py::int_>(h) || (py::hasattr(h, "__index__") && !py::isinstance<py::type>(h)))
    return h.cast<int64_t>();
  if (py::isinstance<py::dict>(h)) return optimizerMap(py::reinterpret_borrow<py::dict>(h), factory);
  if (py::isinstance<py::dtype>(h) || py::isinstance<py::type>(h)) {
    try {
      return dataTypeToString(toDataType(h, factory));
    } catch (const error&) {
    }
  } else if (py::hasattr(h, "__float__")) {
    return h.cast<double>();  // np.float32 ...
  } else if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    std::vector<ClipNormSettings> clips;
    for (py::handle e : py::reinterpret_borrow<py::iterable>(h)) {
      if (!py::isinstance<ClipNormSettings>(e)) return UnsupportedFactoryValue{py::repr(h).cast<std::string>()};
      clips.push_back(e.cast<ClipNormSettings>());
    }
    return clips;
  }
  return UnsupportedFactoryValue{py::repr(h).cast<std::string>()};
}

/// A call of the core's constructor `name` (popart/factories.hpp) with Python's arguments; a
/// call that fits none of its overloads is a TypeError, as pybind11 raises.
FactoryArguments factoryArguments(const std::string& name, const py::args& args, const py::kwargs& kwargs) {
  std::vector<FactoryValue> positional;
  for (py::handle a : args) positional.push_back(factoryValue(a, name));
  std::vector<std::pair<std::string, FactoryValue>> keywords;
  for (auto kv : kwargs) keywords.emplace_back(py::str(kv.first).cast<std::string>(), factoryValue(kv.second, name));
  try {
    return bindFactoryArguments(name, positional, keywords);
  } catch (const error& e) {
    throw py::type_error(e.what());
  }
}

/// py::init of the class T for the core's constructor T::name: the table decides the arguments.
template <typename T>
auto factoryInit(const std::string& name) {
  return py::init([name](const py::args& args, const py::kwargs& kwargs) {
    const FactoryArguments a = factoryArguments(name, args, kwargs);
    std::unique_ptr<T> out;
    if constexpr (std::is_base_of_v<Optimizer, T>) {
      auto o = makeOptimizer(a);
      if (dynamic_cast<T*>(o.get())) out.reset(static_cast<T*>(o.release()));
    } else {
      auto l = makeLoss(a);
      if (dynamic_cast<T*>(l.get())) out.reset(static_cast<T*>(l.release()));
    }
    if (!out) throw internal_error("the core's {} constructor made another class", name);
    return out;
  });
}

/// The class docstring: the table's doc and every overload.
std::string factoryDoc(const std::string& name) {
  const FactoryInfo& f = factoryInfo(name);
  std::string doc = f.doc;
  for (const auto& s : f.signatures)
    doc += "\n\n" + factorySignatureToString(f, s) + (s.doc.empty() ? "" : ": " + s.doc);
  return doc;
}

std::map<std::string, std::string> deviceOptions(const py::dict& d) {
  std::map<std::string, std::string> m;
  for (auto kv : d) {
    py::handle v = kv.second;
    m[py::str(kv.first).cast<std::string>()] =
        py::isinstance<py::bool_>(v) ? (v.cast<bool>() ? "true" : "false") : py::str(v).cast<std::string>();
  }
  return m;
}

/// The core's ipuTargetJson as a dict (the same object as JS's ipuTargets() rows).
py::dict targetDict(const IpuTargetInfo& t) {
  return py::module_::import("json").attr("loads")(ipuTargetJson(t));
}

py::object optionalDevice(std::shared_ptr<DeviceInfo> d) {
  if (!d) return py::none();
  return py::cast(std::move(d));
}

}  // namespace

void bindValues(py::module_& m) {
  // ------------------------------------------------------------------ the core's tables
  m.def("_enums", [] {
    py::dict d;
    for (const auto& e : allEnums()) d[py::str(e.name)] = py::make_tuple(e.values, e.doc);
    return d;
  });
  m.def("_dataTypes", [] {
    std::vector<std::string> v;
    for (int t = 0; t <= static_cast<int>(DataType::UNDEFINED); ++t)
      v.push_back(dataTypeToString(static_cast<DataType>(t)));
    return v;
  });
  m.def("_sessionOptionsList", [] {
    py::list l;
    for (const auto& o : SessionOptions::list())
      l.append(py::make_tuple(o.name, o.type, o.enumName, pyFromOptionValue(o.defaultValue), o.doc));
    return l;
  });
  // The settings structs: class names, option paths, fields and forms (python/popart/options.py).
  m.def("_settingsStructList", [] {
    py::list l;
    for (const auto& s : settingsStructList())
      l.append(py::dict("name"_a = s.name, "paths"_a = s.paths, "fields"_a = s.fields,
                        "fieldStructs"_a = s.fieldStructs, "forms"_a = s.forms, "keywordAliases"_a = s.keywordAliases));
    return l;
  });
  // The fields a settings call sets (the core's rule); too many positional values is a TypeError,
  // an unknown keyword an AttributeError.
  m.def("_bindSettingsArguments",
        [](const std::string& name, size_t positional, const std::vector<std::string>& keywords) {
          py::list l;
          try {
            for (const auto& a : bindSettingsArguments(name, positional, keywords))
              l.append(py::make_tuple(a.field, a.fieldStruct));
          } catch (const error& e) {
            if (keywords.empty()) throw py::type_error(e.what());
            throw py::attribute_error(e.what());
          }
          return l;
        });
  m.def("_optimizerParams", [] {
    py::list l;
    for (const auto& p : optimizerParamList())
      l.append(py::make_tuple(p.optimizer, p.key, p.defaultValue, p.defaultIsConst, p.doc));
    return l;
  });
  // [{path, type, optional, doc}]: every key of the report document (report::schema()).
  m.def("_reportSchemaJson", [] { return report::schemaJson(); });
  m.def("_patternList", [] {
    py::list l;
    for (const auto& p : patternList()) l.append(py::make_tuple(p.name, p.defaultState, p.rewrite, p.doc));
    return l;
  });
  m.def("_graphcoreOps", [] {
    py::list l;
    for (const auto& op : graphcoreOpList()) {
      py::list attrs;
      for (const auto& a : op.attrs)
        attrs.append(py::make_tuple(a.name, a.type, a.enumName, a.required, a.hasDefault,
                                    a.hasDefault ? pyFromOptionValue(a.defaultValue) : py::none(), a.doc));
      l.append(py::make_tuple(op.method, op.opType, op.minInputs, op.maxInputs, attrs, op.doc, op.numOutputs,
                              op.numOutputsFrom, op.returnsList, op.inputsForm, op.argsOptional));
    }
    return l;
  });

  // ------------------------------------------------------------------ TensorInfo
  py::class_<TensorInfo>(m, "TensorInfo", "A tensor's element type and shape.")
      .def(py::init([](py::object dtype, py::object shape) {
             if (py::isinstance<py::array>(dtype) && shape.is_none()) {
               auto a = py::reinterpret_borrow<py::array>(dtype);
               return TensorInfo(dataTypeOf(a.dtype(), "TensorInfo array"), Shape(a.shape(), a.shape() + a.ndim()));
             }
             if (shape.is_none()) throw error("TensorInfo(dtype, shape): the shape is missing");
             return TensorInfo(toDataType(dtype, "TensorInfo data type"), toShape(shape, "TensorInfo shape"));
           }),
           py::arg("dataType"), py::arg("shape") = py::none(),
           "TensorInfo(\"FLOAT\", [1, 2]), TensorInfo(np.float32, [1, 2]) or TensorInfo(ndarray).")
      .def("shape", [](const TensorInfo& t) { return t.shape(); })
      .def("rank", &TensorInfo::rank)
      .def("nelms", &TensorInfo::nelms)
      .def("nbytes", &TensorInfo::nbytes)
      .def("dim", &TensorInfo::dim)
      .def("data_type", &TensorInfo::data_type, "\"FLOAT\", \"INT32\", ...")
      .def("data_type_lcase", &TensorInfo::data_type_lcase, "\"float32\", \"int32\", ...")
      .def("__eq__", [](const TensorInfo& a, const TensorInfo& b) { return a == b; })
      .def("__ne__", [](const TensorInfo& a, const TensorInfo& b) { return a != b; })
      .def("__str__", &TensorInfo::toString)
      .def("__repr__", [](const TensorInfo& t) { return "TensorInfo(" + t.toString() + ")"; });

  // ------------------------------------------------------------------ DataFlow
  py::class_<AnchorReturnType>(m, "AnchorReturnType",
                               "How an anchor is returned: \"All\", \"EveryN\" (with a period), \"Final\" or \"Sum\".")
      .def(py::init([](const std::string& s, py::object rp, py::object tileSet, py::object exchange) {
             const auto ts = tileSet.is_none() ? TileSet::Compute : toEnum<TileSet>(tileSet, "tileSet");
             const auto es = exchange.is_none() ? ExchangeStrategy::JustInTime
                                                : toEnum<ExchangeStrategy>(exchange, "exchangeStrategy");
             if (rp.is_none()) return AnchorReturnType(s, ts, es);
             return AnchorReturnType(s, rp.cast<int>(), ts, es);
           }),
           py::arg("anchorReturnTypeString"), py::arg("returnPeriod") = py::none(), py::arg("tileSet") = py::none(),
           py::arg("exchangeStrategy") = py::none())
      .def("id", [](const AnchorReturnType& a) { return pyEnum("AnchorReturnTypeId", enumToString(a.id())); })
      .def("rp", &AnchorReturnType::rp)
      .def("str", &AnchorReturnType::str)
      .def("tileSet", [](const AnchorReturnType& a) { return pyEnum("TileSet", enumToString(a.tileSet())); })
      .def("exchangeStrategy",
           [](const AnchorReturnType& a) { return pyEnum("ExchangeStrategy", enumToString(a.exchangeStrategy())); })
      .def("__repr__", [](const AnchorReturnType& a) { return "AnchorReturnType(\"" + a.str() + "\")"; });

  py::class_<DataFlow>(m, "DataFlow", "Batches per step and the anchors (tensors returned to the host).")
      .def(py::init<>())
      .def(py::init([](int bps, py::object anchors, py::object art) {
             if (anchors.is_none()) return DataFlow(bps);
             if (py::isinstance<py::dict>(anchors)) {
               if (!art.is_none())
                 throw error("DataFlow(batchesPerStep, {id: AnchorReturnType}) takes no third argument");
               AnchorReturnTypeMap am;
               for (auto kv : py::reinterpret_borrow<py::dict>(anchors))
                 am.emplace(kv.first.cast<std::string>(), kv.second.cast<AnchorReturnType>());
               return DataFlow(bps, am);
             }
             const auto ids = toStrings(anchors, "DataFlow anchor ids");
             return art.is_none() ? DataFlow(bps, ids) : DataFlow(bps, ids, art.cast<AnchorReturnType>());
           }),
           py::arg("batchesPerStep"), py::arg("anchorTensors") = py::none(), py::arg("anchorReturnType") = py::none(),
           "DataFlow(bps, {id: AnchorReturnType}) or DataFlow(bps, [ids], AnchorReturnType(\"All\")).")
      .def(py::init([](int bps, int batchSize, py::object ids, const AnchorReturnType& art) {
             return DataFlow(bps, batchSize, toStrings(ids, "DataFlow anchor ids"), art);
           }),
           py::arg("batchesPerStep"), py::arg("batchSize"), py::arg("anchorIds"), py::arg("anchorReturnType"),
           "poponnx's DataFlow(batchesPerStep, batchSize, [ids], art); batchSize is not used.")
      .def("batchesPerStep", &DataFlow::batchesPerStep)
      .def("anchors", &DataFlow::anchors)
      .def("art", &DataFlow::art)
      .def("isAnchored", &DataFlow::isAnchored)
      .def("nAnchors", &DataFlow::nAnchors)
      .def("setBatchesPerStep", &DataFlow::setBatchesPerStep);

  py::class_<InputShapeInfo>(m, "InputShapeInfo", "Per-input TensorInfo overrides; they win over the model's shapes.")
      .def(py::init<>())
      .def("add", &InputShapeInfo::add)
      .def("get", &InputShapeInfo::get)
      .def("has", &InputShapeInfo::has);

  // ------------------------------------------------------------------ SessionOptions (the table)
  py::class_<SessionOptions>(m, "_SessionOptions")
      .def(py::init<>())
      .def("set",
           [](SessionOptions& o, const std::string& name, py::handle v) {
             for (const auto& info : SessionOptions::list()) {
               if (info.name == name) return o.set(name, optionValueFrom(v, info.type, "SessionOptions." + name));
             }
             o.set(name, optionValueFrom(v, "", name));  // the core's "no option" error
           })
      .def("get", [](const SessionOptions& o, const std::string& name) { return pyFromOptionValue(o.get(name)); })
      .def("setCallback",
           [](SessionOptions& o, const std::string& name, py::function fn) {
             // The session copies its options (and so this function) without the GIL: the Python
             // function lives in a shared holder that takes the GIL to call and to release it.
             std::shared_ptr<py::function> held(new py::function(std::move(fn)), [](py::function* f) {
               py::gil_scoped_acquire gil;
               delete f;
             });
             o.setCallback(name, [held, name](int progress, int total) {
               py::gil_scoped_acquire gil;
               try {
                 (*held)(progress, total);
               } catch (py::error_already_set& e) {
                 throw error("SessionOptions.{}({}, {}) raised {}", name, progress, total, e.what());
               }
             });
           })
      .def("enableExplicitIR", &SessionOptions::enableExplicitIR)
      .def("getAccumulationFactor", &SessionOptions::getAccumulationFactor)
      .def("getReplicationFactor", &SessionOptions::getReplicationFactor)
      .def("getGlobalReplicationFactor", &SessionOptions::getGlobalReplicationFactor)
      .def("__copy__", [](const SessionOptions& o) { return SessionOptions(o); });

  // ------------------------------------------------------------------ Patterns
  py::class_<Patterns>(m, "Patterns", "The graph rewrites a session applies, by level or by name.")
      .def(py::init([](py::object arg) {
             if (arg.is_none()) return Patterns();
             if (py::isinstance<py::list>(arg) || py::isinstance<py::tuple>(arg))
               return Patterns(toStrings(arg, "Patterns names"));
             return Patterns(toEnum<PatternsLevel>(arg, "Patterns level"));
           }),
           py::arg("patterns") = py::none())
      .def_static("create", [](py::object names) { return Patterns(toStrings(names, "Patterns names")); })
      .def_static("getAllPatternNames", &Patterns::getAllPatternNames)
      .def("isPatternEnabled", &Patterns::isPatternEnabled)
      .def("enablePattern", &Patterns::enablePattern, py::return_value_policy::reference_internal)
      .def("getEnabledPatternNames", &Patterns::getEnabledPatternNames)
      .def("enableRuntimeAsserts", &Patterns::enableRuntimeAsserts, py::return_value_policy::reference_internal)
      .def_property_readonly("runtimeAssertsOn", &Patterns::getRuntimeAssertsOn)
      .def("level", [](const Patterns& p) { return pyEnum("PatternsLevel", enumToString(p.level())); })
      .def_property("InPlace", &Patterns::isInPlaceEnabled, &Patterns::enableInPlace)
      .def_property("UpdateInplacePrioritiesForIpu", &Patterns::isUpdateInplacePrioritiesForIpuEnabled,
                    &Patterns::enableUpdateInplacePrioritiesForIpu)
      .def_property("PreUniRepl", &Patterns::isPreUniReplEnabled, &Patterns::enablePreUniRepl)
      .def_property("PostNRepl", &Patterns::isPostNReplEnabled, &Patterns::enablePostNRepl)
      .def_property("SoftMaxGradDirect", &Patterns::isSoftmaxGradDirectEnabled, &Patterns::enableSoftmaxGradDirect)
      .def_property("NlllWithSoftMaxGradDirect", &Patterns::isNlllWithSoftmaxGradDirectEnabled,
                    &Patterns::enableNlllWithSoftmaxGradDirect)
      .def_property("SoftmaxGradDirect", &Patterns::isSoftmaxGradDirectEnabled, &Patterns::enableSoftmaxGradDirect)
      .def_property("NlllWithSoftmaxGradDirect", &Patterns::isNlllWithSoftmaxGradDirectEnabled,
                    &Patterns::enableNlllWithSoftmaxGradDirect)
      .def_property("OpToIdentity", &Patterns::isOpToIdentityEnabled, &Patterns::enableOpToIdentity)
      .def_property("SubtractArg1GradOp", &Patterns::isSubtractArg1GradOpEnabled, &Patterns::enableSubtractArg1GradOp)
      .def_property("MulArgGradOp", &Patterns::isMulArgGradOpEnabled, &Patterns::enableMulArgGradOp)
      .def_property("MatMulOp", &Patterns::isMatMulOpEnabled, &Patterns::enableMatMulOp)
      .def_property("MatMulLhsGradOp", &Patterns::isMatMulLhsGradOpEnabled, &Patterns::enableMatMulLhsGradOp)
      .def_property("MatMulRhsGradOp", &Patterns::isMatMulRhsGradOpEnabled, &Patterns::enableMatMulRhsGradOp)
      .def("__repr__", [](const Patterns& p) {
        std::ostringstream os;
        os << p;
        return os.str();
      });

  // ------------------------------------------------------------------ devices
  py::class_<DeviceInfo, std::shared_ptr<DeviceInfo>>(m, "DeviceInfo", "A device a session runs on.")
      .def_property_readonly("type",
                             [](const DeviceInfo& d) { return pyEnum("DeviceType", enumToString(d.getType())); })
      .def_property_readonly(
          "connectionType",
          [](const DeviceInfo& d) { return pyEnum("DeviceConnectionType", enumToString(d.getConnectionType())); })
      .def_property_readonly("version", &DeviceInfo::getVersion)
      .def_property_readonly("ipuVersion", &DeviceInfo::getIpuVersion)
      .def_property_readonly("id", &DeviceInfo::getId)
      .def_property_readonly("numIpus", &DeviceInfo::getNumIpus)
      .def_property_readonly("tilesPerIPU", &DeviceInfo::getTilesPerIPU)
      .def_property_readonly("tilesPerIpu", &DeviceInfo::getTilesPerIpu)
      .def_property_readonly("driverIds", &DeviceInfo::getDriverIds)
      .def_property_readonly("numWorkerContexts", &DeviceInfo::getNumWorkerContexts)
      .def_property_readonly("isAttached", &DeviceInfo::isAttached)
      .def_property_readonly("options", &DeviceInfo::getOptions)
      .def_property_readonly("compileIPUCode", &DeviceInfo::getCompileIPUCode)
      .def_property_readonly("canRun", &DeviceInfo::canRun)
      .def_property_readonly("target", [](const DeviceInfo& d) { return targetDict(d.getTarget()); })
      .def("attach", &DeviceInfo::attach)
      .def("detach", &DeviceInfo::detach)
      .def("tryAttachUntilTimeout", &DeviceInfo::tryAttachUntilTimeout)
      .def("__enter__", [](std::shared_ptr<DeviceInfo> d) { return d; })
      .def("__exit__", [](DeviceInfo& d, py::args) { d.detach(); })
      .def("__str__", &DeviceInfo::toString)
      .def("__repr__", [](const DeviceInfo& d) { return "<popart.DeviceInfo " + d.toString() + ">"; });

  using DM = DeviceManager;
  py::class_<DM, std::unique_ptr<DM, py::nodelete>>(m, "DeviceManager", "The process-wide device manager.")
      .def(py::init([] { return std::unique_ptr<DM, py::nodelete>(&DM::createDeviceManager()); }))
      .def("createCpuDevice", &DM::createCpuDevice)
      .def(
          "createIpuModelDevice", [](DM& dm, const py::dict& o) { return dm.createIpuModelDevice(deviceOptions(o)); },
          py::arg("options") = py::dict())
      .def(
          "createSimDevice", [](DM& dm, const py::dict& o) { return dm.createSimDevice(deviceOptions(o)); },
          py::arg("options") = py::dict())
      .def(
          "createOfflineIPUDevice",
          [](DM& dm, const py::dict& o) { return dm.createOfflineIPUDevice(deviceOptions(o)); },
          py::arg("options") = py::dict())
      .def(
          "enumerateDevices",
          [](DM& dm, py::object pattern, int numIpus, py::object type, py::object conn, int tiles) {
            return dm.enumerateDevices(toEnum<SyncPattern>(pattern, "pattern"), numIpus,
                                       toEnum<DeviceType>(type, "deviceType"),
                                       toEnum<DeviceConnectionType>(conn, "connectionType"), tiles);
          },
          py::arg("pattern") = "Full", py::arg("numIpus") = 1, py::arg("deviceType") = "Ipu",
          py::arg("connectionType") = "Always", py::arg("tilesPerIPU") = 0)
      .def(
          "acquireAvailableDevice",
          [](DM& dm, int numIpus, int tiles, py::object pattern, py::object conn, py::object sel) {
            return dm.acquireAvailableDevice(numIpus, tiles, toEnum<SyncPattern>(pattern, "pattern"),
                                             toEnum<DeviceConnectionType>(conn, "connectionType"),
                                             toEnum<DeviceSelectionCriterion>(sel, "selectionCriterion"));
          },
          py::arg("numIpus") = 1, py::arg("tilesPerIpu") = 0, py::arg("pattern") = "Full",
          py::arg("connectionType") = "Always", py::arg("selectionCriterion") = "First")
      .def(
          "tryAcquireAvailableDevice",
          [](DM& dm, int numIpus, int tiles, py::object pattern, py::object conn, py::object sel) {
            return optionalDevice(
                dm.tryAcquireAvailableDevice(numIpus, tiles, toEnum<SyncPattern>(pattern, "pattern"),
                                             toEnum<DeviceConnectionType>(conn, "connectionType"),
                                             toEnum<DeviceSelectionCriterion>(sel, "selectionCriterion")));
          },
          py::arg("numIpus") = 1, py::arg("tilesPerIpu") = 0, py::arg("pattern") = "Full",
          py::arg("connectionType") = "Always", py::arg("selectionCriterion") = "First")
      .def(
          "acquireDeviceById",
          [](DM& dm, int id, py::object pattern, py::object conn) {
            return dm.acquireDeviceById(id, toEnum<SyncPattern>(pattern, "pattern"),
                                        toEnum<DeviceConnectionType>(conn, "connectionType"));
          },
          py::arg("id"), py::arg("pattern") = "Full", py::arg("connectionType") = "Always")
      .def(
          "tryAcquireDeviceById",
          [](DM& dm, int id, py::object pattern, py::object conn) {
            return optionalDevice(dm.tryAcquireDeviceById(id, toEnum<SyncPattern>(pattern, "pattern"),
                                                          toEnum<DeviceConnectionType>(conn, "connectionType")));
          },
          py::arg("id"), py::arg("pattern") = "Full", py::arg("connectionType") = "Always")
      .def("setOnDemandAttachTimeout", &DM::setOnDemandAttachTimeout);

  m.def("ipuTargetList", [] {
    py::list l;
    for (const auto& t : ipuTargetList()) l.append(targetDict(t));
    return l;
  });
  m.def("ipuTarget", [](const std::string& v) { return targetDict(ipuTarget(v)); });

  // ------------------------------------------------------------------ optimizers
  py::class_<OptimizerValue>(m, "OptimizerValue")
      .def(py::init<float, bool>(), py::arg("val") = 0.0f, py::arg("isConst") = true)
      .def("val", &OptimizerValue::val)
      .def("isConst", &OptimizerValue::isConst)
      .def("__repr__", [](const OptimizerValue& v) {
        return format("OptimizerValue({}, {})", v.val(), v.isConst() ? "True" : "False");
      });
  py::class_<OptimizerValueMap>(m, "OptimizerValueMap")
      .def("getDefault", &OptimizerValueMap::getDefault)
      .def("get", &OptimizerValueMap::get)
      .def("hasSpecific", [](const OptimizerValueMap& o, const std::string& id) { return o.hasSpecific(id); });

  py::class_<ClipNormSettings>(m, "ClipNormSettings", "Gradient clipping by global norm over a group of weights.")
      .def(py::init([](py::object ids, float maxNorm) {
             return ClipNormSettings(toStrings(ids, "ClipNormSettings weightIds"), maxNorm);
           }),
           py::arg("weightIds"), py::arg("maxNorm"))
      .def_static("clipWeights",
                  [](py::object ids, float maxNorm) {
                    return ClipNormSettings::clipWeights(toStrings(ids, "ClipNormSettings weightIds"), maxNorm);
                  })
      .def_static("clipAllWeights", &ClipNormSettings::clipAllWeights)
      .def_property_readonly("weightIds", &ClipNormSettings::getWeightIds)
      .def_property_readonly("maxNorm", &ClipNormSettings::getMaxNorm);

  py::class_<Optimizer>(m, "Optimizer")
      .def("type_s", &Optimizer::type_s)
      .def("getLossScalingVal", &Optimizer::getLossScalingVal)
      .def("lossScaling", &Optimizer::lossScaling)
      .def("getClipNormSettings", &Optimizer::getClipNormSettings)
      .def("insertSpecific", [](Optimizer& o, const std::string& id, const py::dict& d) {
        o.insertSpecific(id, optimizerMap(d, o.type_s()));
      });

  py::class_<SGD, Optimizer>(m, "SGD", factoryDoc("SGD").c_str())
      .def(factoryInit<SGD>("SGD"))
      .def("learningRates", &SGD::learningRates)
      .def("weightDecays", &SGD::weightDecays)
      .def("momentums", &SGD::momentums)
      .def("dampenings", &SGD::dampenings)
      .def("velocityScalings", &SGD::velocityScalings)
      .def("nesterov", &SGD::nesterov)
      .def("hasSpecific", [](const SGD& o, const std::string& id) { return o.hasSpecific(id); });

  py::class_<ConstSGD, SGD>(m, "ConstSGD", factoryDoc("ConstSGD").c_str()).def(factoryInit<ConstSGD>("ConstSGD"));

  py::class_<Adam, Optimizer>(m, "Adam", factoryDoc("Adam").c_str())
      .def(factoryInit<Adam>("Adam"))
      .def("learningRates", &Adam::learningRates)
      .def("weightDecays", &Adam::weightDecays)
      .def("beta1s", &Adam::beta1s)
      .def("beta2s", &Adam::beta2s)
      .def("epss", &Adam::epss)
      .def("maxWeightNorms", &Adam::maxWeightNorms);

  py::class_<Adaptive, Optimizer>(m, "Adaptive", factoryDoc("Adaptive").c_str())
      .def(factoryInit<Adaptive>("Adaptive"))
      .def("learningRates", &Adaptive::learningRates)
      .def("weightDecays", &Adaptive::weightDecays)
      .def("alphas", &Adaptive::alphas)
      .def("momentums", &Adaptive::momentums)
      .def("epss", &Adaptive::epss);

  // ------------------------------------------------------------------ pre-1.2 losses
  py::class_<Loss>(m, "Loss")
      .def("getInputs", &Loss::getInputs)
      .def("output", &Loss::output)
      .def("getReductionType",
           [](const Loss& l) { return pyEnum("ReductionType", enumToString(l.getReductionType())); });
  py::class_<NllLoss, Loss>(m, "NllLoss", factoryDoc("NllLoss").c_str()).def(factoryInit<NllLoss>("NllLoss"));
  py::class_<L1Loss, Loss>(m, "L1Loss", factoryDoc("L1Loss").c_str()).def(factoryInit<L1Loss>("L1Loss"));
  py::class_<IdentityLoss, Loss>(m, "IdentityLoss", factoryDoc("IdentityLoss").c_str())
      .def(factoryInit<IdentityLoss>("IdentityLoss"));

  // ------------------------------------------------------------------ logging, prefixes, threads
  py::class_<Logger>(m, "Logger")
      .def("setLevel", &Logger::setLevel)
      .def("debug", &Logger::debug)
      .def("info", &Logger::info)
      .def("warn", &Logger::warn)
      .def("error", &Logger::error)
      .def("critical", &Logger::critical)
      .def("name", &Logger::name);
  m.def("getLogger", &getLogger, py::arg("name") = "all", "A logger of a module (\"all\": every module).");
  m.def("_getLogLevel", [](const std::string& module) {
    return logging::levelToString(logging::getLogLevel(logging::moduleFromString(module)));
  });
  m.def("_setLogDestination", &logging::setLogDestination);
  py::class_<OperatorIdentifier>(m, "OperatorIdentifier")
      .def(py::init<const std::string&, const std::string&, int>(), py::arg("domain"), py::arg("type"),
           py::arg("version"))
      .def_readonly("domain", &OperatorIdentifier::domain)
      .def_readonly("type", &OperatorIdentifier::type)
      .def_readonly("version", &OperatorIdentifier::version)
      .def("__eq__", [](const OperatorIdentifier& a, const OperatorIdentifier& b) { return a == b; })
      .def("__hash__",
           [](const OperatorIdentifier& a) { return py::hash(py::make_tuple(a.domain, a.type, a.version)); })
      .def("__repr__", [](const OperatorIdentifier& a) {
        return "OperatorIdentifier(" + a.domain + ", " + a.type + ", " + std::to_string(a.version) + ")";
      });
  // The optimizer and loss constructors' table (the stub's signatures come from it).
  m.def("_factoryList", [] {
    py::list l;
    for (const auto& f : factoryList()) {
      py::list sigs;
      for (const auto& sig : f.signatures) {
        py::list args;
        for (const auto& a : sig.args) {
          py::dict d("name"_a = a.name, "kind"_a = a.kind, "enumName"_a = a.enumName, "doc"_a = a.doc,
                     "required"_a = !a.defaultValue);
          if (a.defaultValue) d["default"] = factoryValueToString(*a.defaultValue);
          args.append(d);
        }
        sigs.append(py::dict("args"_a = args, "doc"_a = sig.doc));
      }
      l.append(py::dict("name"_a = f.name, "family"_a = f.family, "base"_a = f.base, "doc"_a = f.doc,
                        "signatures"_a = sigs));
    }
    return l;
  });
  m.def("getSupportedOperations", &OpManager::getSupportedOperations, py::arg("includeInternal"));
  // PopART's reserved name parts, one function each, from the core's list.
  m.def("_reservedPrefixList", [] { return reservedPrefixList(); });
  for (const auto& [name, value] : reservedPrefixList()) {
    const std::string v = value;
    m.def(name.c_str(), [v] { return v; });
  }
  m.attr("defaultAiOnnxOpset") = defaultAiOnnxOpset;
  m.attr("defaultAiOnnxMlOpset") = defaultAiOnnxMlOpset;
  m.attr("defaultAiGraphcoreOpset") = defaultAiGraphcoreOpset;
  m.def("versionString", [] { return std::string(core::versionString()); });
  m.def("versionNumber", [] {
    const auto v = core::versionNumber();
    return py::make_tuple(v.major, v.minor, v.point);
  });
  m.def("packageHash", [] { return std::string(core::packageHash()); });
  m.def("setNumThreads", &setNumThreads, "Threads the kernels may use (POPART_NUM_THREADS).");
  m.def("getNumThreads", &getNumThreads);
  m.def("setMemoryLimit", &setMemoryLimit, "Bytes any one allocation sized from a model may take (0: default).");
  m.def("getMemoryLimit", &getMemoryLimit);
}

}  // namespace py_bind
}  // namespace popart
