// Replicas and op-table queries: CommGroup, ReplicaGrouping, VariableSettings, InputSettings,
// getSupportedOperationsDefinition / getUnsupportedOperations, and the debug-info recording.
// Marshalling only: every rule is the core's (popart/variablesettings.hpp, opmanager.hpp,
// debugcontext.hpp).
#include <pybind11/stl.h>

#include "popart/dataflow.hpp"
#include "popart/debugcontext.hpp"
#include "popart/opmanager.hpp"
#include "popart/popdist.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/variablesettings.hpp"
#include "py_common.hpp"

namespace popart {
namespace py_bind {

namespace {

py::list dataTypeList(const OpDefinition::DataTypes& ts) {
  py::list l;
  for (DataType t : ts) l.append(pyEnum("DataType", dataTypeToString(t)));
  return l;
}

CommGroup commGroupFrom(py::handle h) {
  if (py::isinstance<CommGroup>(h)) return h.cast<CommGroup>();
  // PopART's collectives take [type, size] lists too.
  auto v = h.cast<std::vector<py::object>>();
  if (v.size() != 2) throw error("a CommGroup or [CommGroupType, replicaGroupSize] is expected");
  return CommGroup(toEnum<CommGroupType>(v[0], "CommGroup type"), v[1].cast<unsigned>());
}

}  // namespace

void bindReplicas(py::module_& m) {
  py::class_<ReplicaGrouping>(m, "ReplicaGrouping", "Replicas split into groups of groupSize, stride apart.")
      .def(py::init<unsigned>(), py::arg("numReplicas"))
      .def(py::init<unsigned, unsigned, unsigned>(), py::arg("numReplicas"), py::arg("stride"), py::arg("groupSize"))
      .def("getNumReplicas", &ReplicaGrouping::getNumReplicas)
      .def("getStride", &ReplicaGrouping::getStride)
      .def("getGroupSize", &ReplicaGrouping::getGroupSize)
      .def("getNumGroups", &ReplicaGrouping::getNumGroups)
      .def("getGroupAt", &ReplicaGrouping::getGroupAt, py::arg("replica"))
      .def("getIndexInGroupAt", &ReplicaGrouping::getIndexInGroupAt, py::arg("replica"))
      .def("getReplicaAt", &ReplicaGrouping::getReplicaAt, py::arg("group"), py::arg("index") = 0)
      .def("getReplicasAt", &ReplicaGrouping::getReplicasAt, py::arg("group"))
      .def("getTranspose", &ReplicaGrouping::getTranspose)
      .def("str", &ReplicaGrouping::str)
      .def("__repr__", &ReplicaGrouping::str)
      .def("__eq__", [](const ReplicaGrouping& a, const ReplicaGrouping& b) { return a == b; });

  py::class_<CommGroup>(m, "CommGroup", "A replica group type and size (PopART's CommGroup).")
      .def(py::init<>())
      .def(
          py::init([](py::object type, unsigned size) { return CommGroup(toEnum<CommGroupType>(type, "type"), size); }),
          py::arg("type"), py::arg("replicaGroupSize"))
      .def(py::init<const ReplicaGrouping&>(), py::arg("grouping"))
      .def_property(
          "type", [](const CommGroup& g) { return pyEnum("CommGroupType", enumToString(g.type)); },
          [](CommGroup& g, py::object t) { g.type = toEnum<CommGroupType>(t, "type"); })
      .def_readwrite("replicaGroupSize", &CommGroup::replicaGroupSize)
      .def("toReplicaGrouping", &CommGroup::toReplicaGrouping, py::arg("numReplicas"))
      .def("__repr__", [](const CommGroup& g) { return toString(g); })
      .def("__eq__", [](const CommGroup& a, const CommGroup& b) { return a == b; });

  py::class_<VariableSettings>(m, "VariableSettings", "How a weight is shared among replicas (PopART's).")
      .def(py::init<>())
      .def(py::init([](py::object a, py::object mode) {
             const auto m_ = mode.is_none() ? VariableRetrievalMode::OnePerGroup
                                            : toEnum<VariableRetrievalMode>(mode, "retrievalMode");
             if (py::isinstance<ReplicaGrouping>(a)) return VariableSettings(a.cast<ReplicaGrouping>(), m_);
             if (py::isinstance<CommGroup>(a) || py::isinstance<py::list>(a) || py::isinstance<py::tuple>(a))
               return VariableSettings(commGroupFrom(a), m_);
             if (py::hasattr(a, "name") || py::isinstance<py::str>(a)) {  // a VariableRetrievalMode alone
               if (!mode.is_none()) throw error("VariableSettings(retrievalMode) takes no second argument");
               return VariableSettings(toEnum<VariableRetrievalMode>(a, "retrievalMode"));
             }
             // PopART's VariableSettings(numReplicas[, retrievalMode]): one group of them all.
             return VariableSettings(ReplicaGrouping(a.cast<unsigned>()), m_);
           }),
           py::arg("sharedVariableDomain"), py::arg("retrievalMode") = py::none())
      .def("verify", &VariableSettings::verify)
      .def("getSharedVariableDomain", &VariableSettings::getSharedVariableDomain)
      .def(
          "getRetrievalMode",
          [](const VariableSettings& v) { return pyEnum("VariableRetrievalMode", enumToString(v.getRetrievalMode())); })
      .def("getReplicaGrouping", &VariableSettings::getReplicaGrouping, py::arg("numReplicas"))
      .def("numReplicasReturningVariable", &VariableSettings::numReplicasReturningVariable, py::arg("replicaCount"))
      .def("getGroupCount", &VariableSettings::getGroupCount, py::arg("replicaCount"))
      .def("groupCount", &VariableSettings::getGroupCount, py::arg("replicaCount"), "PopART 2.x's name.")
      .def("getStride", &VariableSettings::getStride, py::arg("replicaCount"))
      .def("getRealGroupSize", &VariableSettings::getRealGroupSize, py::arg("replicaCount"))
      .def("getGroupRepresentative", &VariableSettings::getGroupRepresentative, py::arg("group"),
           py::arg("replicaCount") = 0)
      .def("shapeOnReplica", &VariableSettings::shapeOnReplica, py::arg("full_shape"), py::arg("replicaCount"),
           py::arg("name"))
      .def("shapeOnHost", &VariableSettings::shapeOnHost, py::arg("replica_shape"), py::arg("replicaCount"))
      .def("groups", &VariableSettings::groups, py::arg("replicaCount"))
      .def("__repr__", &VariableSettings::str)
      .def("__eq__", [](const VariableSettings& a, const VariableSettings& b) { return a == b; });

  py::class_<InputSettings>(m, "InputSettings", "A stream input's settings (PopART's InputSettings).")
      .def(py::init([](py::object a, py::object b) {
             if (a.is_none()) return InputSettings();
             if (b.is_none() && py::str(py::type::of(a).attr("__name__")).cast<std::string>() == "ReplicatedStreamMode")
               return InputSettings(toEnum<ReplicatedStreamMode>(a, "replicatedStreamMode"));
             return InputSettings(toEnum<TileSet>(a, "tileSet"), b.is_none()
                                                                     ? ExchangeStrategy::JustInTime
                                                                     : toEnum<ExchangeStrategy>(b, "exchangeStrategy"));
           }),
           py::arg("tileSet") = py::none(), py::arg("exchangeStrategy") = py::none())
      .def("tileSet", [](const InputSettings& s) { return pyEnum("TileSet", enumToString(s.tileSet())); })
      .def("exchangeStrategy",
           [](const InputSettings& s) { return pyEnum("ExchangeStrategy", enumToString(s.exchangeStrategy())); })
      .def(
          "replicatedStreamMode",
          [](const InputSettings& s) { return pyEnum("ReplicatedStreamMode", enumToString(s.replicatedStreamMode())); })
      .def("setTileSet", [](InputSettings& s, py::object t) { s.setTileSet(toEnum<TileSet>(t, "tileSet")); })
      .def("setExchangeStrategy",
           [](InputSettings& s, py::object e) {
             s.setExchangeStrategy(toEnum<ExchangeStrategy>(e, "exchangeStrategy"));
           })
      .def("setReplicatedStreamMode", [](InputSettings& s, py::object r) {
        s.setReplicatedStreamMode(toEnum<ReplicatedStreamMode>(r, "replicatedStreamMode"));
      });

  // PopART binds the nested classes under these names.
  py::class_<OpDefinition::Input>(m, "OpDefinition::Input")
      .def_readonly("name", &OpDefinition::Input::name)
      .def_property_readonly("supportedTensors",
                             [](const OpDefinition::Input& i) { return dataTypeList(i.supportedTensors); })
      .def_readonly("constant", &OpDefinition::Input::constant);
  py::class_<OpDefinition::Output>(m, "OpDefinition::Output")
      .def_readonly("name", &OpDefinition::Output::name)
      .def_property_readonly("supportedTensors",
                             [](const OpDefinition::Output& o) { return dataTypeList(o.supportedTensors); });
  py::class_<OpDefinition::Attribute>(m, "OpDefinition::Attribute")
      .def_readonly("supportedValuesRegex", &OpDefinition::Attribute::supportedValuesRegex);
  py::class_<OpDefinition>(m, "OpDefinition")
      .def_readonly("inputs", &OpDefinition::inputs)
      .def_readonly("outputs", &OpDefinition::outputs)
      .def_readonly("attributes", &OpDefinition::attributes);
  m.def(
      "getSupportedOperationsDefinition",
      [](bool includeInternal) {
        py::dict d;
        for (auto& kv : OpManager::getSupportedOperationsDefinition(includeInternal)) d[py::cast(kv.first)] = kv.second;
        return d;
      },
      py::arg("includeInternal"), "{OperatorIdentifier: OpDefinition} of every op this runtime runs.");
  m.def("getUnsupportedOperations", &OpManager::getUnsupportedOperations, py::arg("opsetVersion"),
        "The ai.onnx ops of that opset this runtime does not implement (OperatorIdentifiers).");

  m.def("initializePoplarDebugInfo", &initializePoplarDebugInfo, py::arg("filename"), py::arg("format") = "json");
  m.def("closePoplarDebugInfo", &closePoplarDebugInfo);
  m.def("_closePoplarDebugInfoToString", &closePoplarDebugInfoToString);
  py::class_<DebugContext>(m, "DebugContext", "A name and the recorded DebugInfo it is under.")
      .def(py::init<>())
      .def(py::init<std::string>(), py::arg("name"))
      .def(py::init<const DebugInfo&, std::string>(), py::arg("parentDebugInfo"), py::arg("name") = "")
      .def("getPathName", &DebugContext::getPathName)
      .def("__str__", &DebugContext::getPathName);
  py::implicitly_convertible<std::string, DebugContext>();
  py::class_<DebugInfo>(m, "DebugInfo",
                        "A recorded debug context of a layer (while initializePoplarDebugInfo is open).")
      .def(py::init<const DebugContext&, const std::string&>(), py::arg("debugContext"), py::arg("layer"))
      .def("setValue", &DebugInfo::setValue, py::arg("name"), py::arg("value"))
      .def("getId", &DebugInfo::getId);

  // PopDist (popart/popdist.hpp): the python/popdist package wraps these.
  py::module_ pd = m.def_submodule("_popdist", "PopDist's calls for PopART scripts (popart/popdist.hpp)");
  pd.def("isPopdistEnvSet", &popdist::isPopdistEnvSet);
  pd.def("isDistributionAvailable", &popdist::isDistributionAvailable);
  pd.def("init", &popdist::init);
  pd.def("getInstanceIndex", &popdist::getInstanceIndex);
  pd.def("getNumInstances", &popdist::getNumInstances);
  pd.def("getNumLocalReplicas", &popdist::getNumLocalReplicas);
  pd.def("getNumTotalReplicas", &popdist::getNumTotalReplicas);
  pd.def("getReplicaIndexOffset", &popdist::getReplicaIndexOffset);
  pd.def("getNumIpusPerReplica", &popdist::getNumIpusPerReplica);
  pd.def("configuredOptions", [] {
    // The options configureSessionOptions sets, by name, for the Python SessionOptions.
    SessionOptions o;
    popdist::popart::configureSessionOptions(o);
    py::dict d;
    d["replicatedGraphCount"] = o.replicatedGraphCount;
    d["enableReplicatedGraphs"] = o.enableReplicatedGraphs;
    d["enableDistributedReplicatedGraphs"] = o.enableDistributedReplicatedGraphs;
    d["globalReplicationFactor"] = o.globalReplicationFactor;
    d["globalReplicaOffset"] = o.globalReplicaOffset;
    return d;
  });
  pd.def("getDevice", &popdist::popart::getDevice, py::arg("ipusPerReplica") = 1);
}

}  // namespace py_bind
}  // namespace popart
