// Embind bindings: the C++ API exposed to the JS package (wasm/js/). Marshalling only (JS values
// <-> C++ objects); every behaviour and every error message comes from the core. Each entry point
// turns a C++ exception into a JS Error carrying the same message, after the C++ exception is freed,
// so the module keeps working.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/threading.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "js_values.hpp"
#include "popart/describe.hpp"
#include "popart/logsink.hpp"
#include "popart/opmanager.hpp"
#include "popart/popart.hpp"
#include "popart/threads.hpp"
#include "popart/version.hpp"

using emscripten::val;

namespace popart {
namespace wasm {
namespace {
// ---------------------------------------------------------------- value objects

val tensorInfo(const std::string& dtype, const val& shape) {
  return guarded([&] {
    TensorInfo info(dtype, toInts(shape, "TensorInfo shape"));
    val o = infoJs(info);
    o.set("nelms", static_cast<double>(info.nelms()));
    o.set("nbytes", static_cast<double>(info.nbytes()));
    o.set("rank", static_cast<double>(info.rank()));
    return o;
  });
}

AnchorReturnType artFrom(const val& spec) {
  const auto s = spec["art"].as<std::string>();
  if (!isUndef(spec["period"])) return AnchorReturnType(s, toInt32(spec["period"], "AnchorReturnType return period"));
  return AnchorReturnType(s);
}

/// {batchesPerStep, anchors: {id: {art, period?}}}, or poponnx's form {batchesPerStep, batchSize,
/// anchorIds: [ids], art: {art, period?}} (DataFlow(bps, batchSize, anchors, art)).
DataFlow dataFlowFrom(const val& spec) {
  const int bps = toInt32(spec["batchesPerStep"], "DataFlow batchesPerStep");
  if (!isUndef(spec["batchSize"]))
    return DataFlow(bps, toInt32(spec["batchSize"], "DataFlow batchSize"), toStrings(spec["anchorIds"]),
                    artFrom(spec["art"]));
  AnchorReturnTypeMap m;
  val anchors = spec["anchors"];
  if (!isUndef(anchors)) {
    for (const auto& id : toStrings(val::global("Object").call<val>("keys", anchors)))
      m.emplace(id, artFrom(anchors[id]));
  }
  return DataFlow(bps, m);
}

/// The canonical name of the return type ("All", "EveryN", ...), after the core's checks.
std::string checkAnchorReturnType(const val& spec) {
  return guarded([&] { return artFrom(spec).str(); });
}
void checkDataFlow(const val& spec) {
  guarded([&] { dataFlowFrom(spec); });
}

/// An enum value by name (the core's table and message), or `dflt` when the value is absent.
template <typename E>
E enumFrom(const val& v, E dflt, const std::string& what) {
  if (isUndef(v)) return dflt;
  if (typeOf(v) != "string")
    throw error("{} must be a {} name (a string), got {}", what, EnumTraits<E>::name(), typeOf(v));
  return enumFromString<E>(v.as<std::string>());
}

/// {level: 'Default'} or {names: [...]}, then enable: {name: bool}, inplace: bool
Patterns patternsFrom(const val& spec) {
  if (isUndef(spec)) return Patterns();
  Patterns p;
  if (!isUndef(spec["names"])) {
    p = Patterns(toStrings(spec["names"]));
  } else if (!isUndef(spec["level"])) {
    p = Patterns(enumFrom(spec["level"], PatternsLevel::Default, "Patterns level"));
  }
  val enable = spec["enable"];
  if (!isUndef(enable)) {
    for (const auto& n : toStrings(val::global("Object").call<val>("keys", enable)))
      p.enablePattern(n, enable[n].as<bool>());
  }
  if (!isUndef(spec["inplace"])) p.enableInPlace(spec["inplace"].as<bool>());
  return p;
}

/// Whether the Patterns `spec` enables `name` (the core's answer for levels and lists alike).
bool patternEnabled(const val& spec, const std::string& name) {
  return guarded([&] { return patternsFrom(spec).isPatternEnabled(name); });
}

void checkPatterns(const val& spec) {
  guarded([&] { patternsFrom(spec); });
}
val allPatternNames() {
  return jsStrings(Patterns::getAllPatternNames());
}

/// {id: {dtype?, shape}} -> InputShapeInfo; `what` names the argument in errors. A missing dtype
/// is UNDEFINED (describeModel takes the model's type; InputShapeInfo._spec() always has one).
InputShapeInfo inputShapeInfoFrom(const val& spec, const std::string& what = "InputShapeInfo") {
  InputShapeInfo isi;
  if (isUndef(spec)) return isi;
  for (const auto& id : toStrings(val::global("Object").call<val>("keys", spec))) {
    const val e = spec[id];
    const std::string name = what + " '" + id + "'";
    if (isUndef(e) || typeOf(e) != "object") throw error("{} must be {{dtype?, shape}}, got {}", name, describe(e));
    const DataType t = isUndef(e["dtype"]) ? DataType::UNDEFINED : dataTypeFromString(e["dtype"].as<std::string>());
    isi.add(id, TensorInfo(t, toInts(e["shape"], name + " shape")));
  }
  return isi;
}

/// describeModel(bytes, {id: {dtype?, shape}}, histogramBins): the core's JSON text (index.mjs
/// parses it).
std::string describeModelJs(const val& model, const val& shapes, const val& bins) {
  return guarded([&] {
    const InputShapeInfo isi = inputShapeInfoFrom(shapes, "describeModel inputShapes");
    DescribeOptions o;
    if (!isUndef(bins)) o.histogramBins = toInt32(bins, "describeModel histogramBins", 1);
    return toJson(describeModel(bytesFrom(model), isi, o));
  });
}

/// tensorValue(bytes, name): {name, dtype, shape, bytes: Uint8Array (row-major, little-endian) or
/// strings: string[]} (index.mjs makes the NDArray).
val tensorValueJs(const val& model, const std::string& name) {
  return guarded([&] {
    const StoredTensorValue v = tensorValue(bytesFrom(model), name);
    val o = val::object();
    o.set("name", v.name);
    o.set("dtype", v.dtype);
    o.set("shape", jsShape(v.shape));
    if (v.dtype == "STRING") {
      o.set("strings", jsStrings(v.strings));
    } else {
      o.set("bytes", u8Copy(v.bytes.data(), v.bytes.size()));
    }
    return o;
  });
}

// ---------------------------------------------------------------- reflection (the core's tables)

val jsFromOptionValue(const OptionValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return val(*b);
  if (const auto* i = std::get_if<int64_t>(&v)) return val(static_cast<double>(*i));
  if (const auto* d = std::get_if<double>(&v)) return val(*d);
  if (const auto* s = std::get_if<std::string>(&v)) return val(*s);
  val a = val::array();
  if (const auto* li = std::get_if<std::vector<int64_t>>(&v))
    for (std::size_t k = 0; k < li->size(); ++k) a.set(k, static_cast<double>((*li)[k]));
  if (const auto* ld = std::get_if<std::vector<double>>(&v))
    for (std::size_t k = 0; k < ld->size(); ++k) a.set(k, (*ld)[k]);
  if (const auto* ls = std::get_if<std::vector<std::string>>(&v))
    for (std::size_t k = 0; k < ls->size(); ++k) a.set(k, (*ls)[k]);
  if (const auto* ll = std::get_if<std::vector<std::vector<int64_t>>>(&v)) {
    for (std::size_t k = 0; k < ll->size(); ++k) {
      val inner = val::array();
      for (std::size_t j = 0; j < (*ll)[k].size(); ++j) inner.set(j, static_cast<double>((*ll)[k][j]));
      a.set(k, inner);
    }
  }
  if (const auto* m = std::get_if<std::map<std::string, std::string>>(&v)) {
    val o = val::object();
    for (const auto& kv : *m) o.set(kv.first, kv.second);
    return o;
  }
  return a;
}

const OptionInfo* findOption(const std::string& name) {
  for (const auto& o : SessionOptions::list()) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

/// Sets every field of the (possibly nested) object `obj` on `o`: `{executionPhaseSettings:
/// {phases: 2}}` is "executionPhaseSettings.phases".
void setOptionsFrom(SessionOptions& o, const val& obj, const std::string& prefix) {
  for (const auto& k : toStrings(val::global("Object").call<val>("keys", obj))) {
    val v = obj[k];
    if (isUndef(v)) continue;
    const std::string name = prefix + k;
    if (const OptionInfo* info = findOption(name)) {
      if (info->type == "callback" && typeOf(v) == "function") {
        // compilationProgressLogger: the JS layer wrapped it so that it never throws into C++.
        o.setCallback(name, [v](int progress, int total) { v(progress, total); });
        continue;
      }
      // A JS SessionOptions holds every field: only those that differ from the default are set
      // (a deprecated alias left alone neither warns nor overwrites what its new name was given).
      OptionValue value = optionValueFrom(v, info->type, "SessionOptions." + name);
      if (!(value == info->defaultValue)) o.set(name, value);
      continue;
    }
    bool nested = false;
    for (const auto& info : SessionOptions::list()) nested = nested || info.name.rfind(name + ".", 0) == 0;
    if (!nested) throw error("SessionOptions has no option '{}'", name);
    if (typeOf(v) != "object") throw error("SessionOptions.{} must be an object of settings", name);
    setOptionsFrom(o, v, name + ".");
  }
}

/// A plain object of SessionOptions fields; unknown names are an error naming the field.
SessionOptions sessionOptionsFrom(const val& spec) {
  SessionOptions o;
  if (!isUndef(spec)) setOptionsFrom(o, spec, "");
  return o;
}

/// Every field with its default, nested settings as nested objects (the JS SessionOptions starts
/// from this).
val sessionOptionsDefaults() {
  return guarded([&] {
    val o = val::object();
    for (const auto& info : SessionOptions::list()) {
      val target = o;
      std::string rest = info.name;
      for (size_t dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
        const std::string part = rest.substr(0, dot);
        if (isUndef(target[part])) target.set(part, val::object());
        target = target[part];
        rest = rest.substr(dot + 1);
      }
      target.set(rest, jsFromOptionValue(info.defaultValue));
    }
    return o;
  });
}

/// A JS array of `f(element)` for each element of `v`.
template <typename T, typename F>
val jsArrayOf(const std::vector<T>& v, F f) {
  val a = val::array();
  for (std::size_t i = 0; i < v.size(); ++i) a.set(i, f(v[i]));
  return a;
}

/// [{name, type, enumName, default, doc}] of every SessionOptions field (docs, forms, tests).
val sessionOptionsList() {
  return guarded([&] {
    return jsArrayOf(SessionOptions::list(), [](const OptionInfo& o) {
      val e = val::object();
      e.set("name", o.name);
      e.set("type", o.type);
      e.set("enumName", o.enumName);
      e.set("default", jsFromOptionValue(o.defaultValue));
      e.set("doc", o.doc);
      return e;
    });
  });
}

/// [{name, paths, fields, fieldStructs, forms, keywordAliases}] of every settings struct
/// (TensorLocationSettings, ...): options.mjs makes its classes from it.
val settingsStructListJs() {
  return guarded([&] {
    return jsArrayOf(settingsStructList(), [](const SettingsStructInfo& s) {
      val e = val::object();
      e.set("name", s.name);
      e.set("paths", jsStrings(s.paths));
      e.set("fields", jsStrings(s.fields));
      e.set("fieldStructs", jsStrings(s.fieldStructs));
      e.set("forms", jsArrayOf(s.forms, [](const std::vector<std::string>& f) { return jsStrings(f); }));
      val aliases = val::object();
      for (const auto& [k, v] : s.keywordAliases) aliases.set(k, v);
      e.set("keywordAliases", aliases);
      return e;
    });
  });
}

/// [{field, fieldStruct}] a settings call sets (the core's bindSettingsArguments): options.mjs's
/// settings classes bind their arguments with it.
val bindSettingsArgumentsJs(const std::string& name, int positional, val keywords) {
  return guarded([&] {
    return jsArrayOf(bindSettingsArguments(name, static_cast<size_t>(std::max(positional, 0)), toStrings(keywords)),
                     [](const SettingsArgument& a) {
                       val e = val::object();
                       e.set("field", a.field);
                       e.set("fieldStruct", a.fieldStruct);
                       return e;
                     });
  });
}

/// The names of report::MemoryCategory, in its order.
val memoryCategories() {
  val a = val::array();
  for (int k = 0; k < static_cast<int>(report::MemoryCategory::N); ++k)
    a.set(k, std::string(report::memoryCategoryName(static_cast<report::MemoryCategory>(k))));
  return a;
}

/// [{path, type, optional, doc}]: every key of the report document (report::schema()).
val reportSchemaJs() {
  return val::global("JSON").call<val>("parse", report::schemaJson());
}

/// The IPU generations the devices model: the core's ipuTargetList, each row as the core's
/// ipuTargetJson writes it (the same objects as Python's ipuTargetList()).
val ipuTargetsJs() {
  val a = val::array();
  const auto& list = ipuTargetList();
  for (std::size_t i = 0; i < list.size(); ++i)
    a.set(i, val::global("JSON").call<val>("parse", ipuTargetJson(list[i])));
  return a;
}

/// {EnumName: [value names]} of every public enum.
/// {reservedGradientPrefix: "Gradient___", ...}: PopART's reserved name parts (popart/names.hpp).
val reservedPrefixesJs() {
  val o = val::object();
  for (const auto& [name, value] : reservedPrefixList()) o.set(name, value);
  return o;
}

/// [{name, base, doc}, ...]: the exception classes (popart::errorClasses()), bases first.
val errorClassesJs() {
  val a = val::array();
  for (const auto& c : errorClasses()) {
    val o = val::object();
    o.set("name", std::string(c.name));
    o.set("base", std::string(c.base));
    o.set("doc", std::string(c.doc));
    a.call<void>("push", o);
  }
  return a;
}

/// {versionString, versionNumber: [major, minor, point], packageHash, defaultAiOnnxOpset,
/// defaultAiOnnxMlOpset, defaultAiGraphcoreOpset} (popart/version.hpp, popart/names.hpp).
val versionInfoJs() {
  val o = val::object();
  o.set("versionString", std::string(core::versionString()));
  const auto v = core::versionNumber();
  val n = val::array();
  n.set(0, v.major);
  n.set(1, v.minor);
  n.set(2, v.point);
  o.set("versionNumber", n);
  o.set("packageHash", std::string(core::packageHash()));
  o.set("defaultAiOnnxOpset", static_cast<double>(defaultAiOnnxOpset));
  o.set("defaultAiOnnxMlOpset", static_cast<double>(defaultAiOnnxMlOpset));
  o.set("defaultAiGraphcoreOpset", static_cast<double>(defaultAiGraphcoreOpset));
  return o;
}

/// [{domain, type, version}] of OperatorIdentifiers.
val jsOperatorIds(const std::vector<OperatorIdentifier>& ids) {
  return jsArrayOf(ids, [](const OperatorIdentifier& o) {
    val e = val::object();
    e.set("domain", o.domain);
    e.set("type", o.type);
    e.set("version", o.version);
    return e;
  });
}

/// The ops this runtime runs (popart/opmanager.hpp).
val supportedOperationsJs(bool includeInternal) {
  return jsOperatorIds(OpManager::getSupportedOperations(includeInternal));
}

/// [{domain, type, version, inputs: [{name, supportedTensors, constant}], outputs: [{name,
/// supportedTensors}], attributes: {name: {supportedValuesRegex}}}] (OpManager's definitions).
val supportedOperationsDefinitionJs(bool includeInternal) {
  return guarded([&] {
    val out = val::array();
    for (const auto& kv : OpManager::getSupportedOperationsDefinition(includeInternal)) {
      val e = val::object();
      e.set("domain", kv.first.domain);
      e.set("type", kv.first.type);
      e.set("version", kv.first.version);
      auto types = [](const OpDefinition::DataTypes& ts) {
        std::vector<std::string> names;
        for (DataType t : ts) names.push_back(dataTypeToString(t));
        return jsStrings(names);
      };
      val ins = val::array();
      for (const auto& i : kv.second.inputs) {
        val o = val::object();
        o.set("name", i.name);
        o.set("supportedTensors", types(i.supportedTensors));
        o.set("constant", i.constant);
        ins.call<void>("push", o);
      }
      val outs = val::array();
      for (const auto& i : kv.second.outputs) {
        val o = val::object();
        o.set("name", i.name);
        o.set("supportedTensors", types(i.supportedTensors));
        outs.call<void>("push", o);
      }
      val attrs = val::object();
      for (const auto& a : kv.second.attributes) {
        val o = val::object();
        o.set("supportedValuesRegex", a.second.supportedValuesRegex);
        attrs.set(a.first, o);
      }
      e.set("inputs", ins);
      e.set("outputs", outs);
      e.set("attributes", attrs);
      out.call<void>("push", e);
    }
    return out;
  });
}

val unsupportedOperationsJs(int opsetVersion) {
  return guarded([&] { return jsOperatorIds(OpManager::getUnsupportedOperations(opsetVersion)); });
}

/// What the JS VariableSettings' getters return at `replicaCount` replicas (the core's rules);
/// with replicaCount 0 only the CommGroup (the settings are checked either way).
val variableSettingsInfoJs(const val& settings, int replicaCount) {
  return guarded([&] {
    const VariableSettings vs = variableSettingsFrom(settings);  // checks the settings (verify)
    val o = val::object();
    const CommGroup cg = vs.getSharedVariableDomain();
    o.set("commGroupType", enumToString(cg.type));
    o.set("replicaGroupSize", cg.replicaGroupSize);
    if (replicaCount < 1) return o;  // only the check and the CommGroup
    const auto r = static_cast<unsigned>(replicaCount);
    o.set("groupCount", vs.getGroupCount(r));
    o.set("numReplicasReturningVariable", vs.numReplicasReturningVariable(r));
    o.set("stride", vs.getStride(r));
    o.set("realGroupSize", vs.getRealGroupSize(r));
    val groups = val::array();
    for (const auto& g : vs.groups(r)) {
      val members = val::array();
      for (auto m : g) members.call<void>("push", static_cast<double>(m));
      groups.call<void>("push", members);
    }
    o.set("groups", groups);
    return o;
  });
}

/// Recording debug info in the module: no file system, so the JS side writes the file (Node).
void initializePoplarDebugInfoJs(const std::string& format) {
  guarded([&] { initializePoplarDebugInfo("", format); });
}
std::string closePoplarDebugInfoJs() {
  return guarded([&] { return closePoplarDebugInfoToString(); });
}

val enumsJs() {
  return guarded([&] {
    val o = val::object();
    for (const auto& e : allEnums()) o.set(e.name, jsStrings(e.values));
    return o;
  });
}

/// [{method, opType, minInputs, maxInputs, numOutputs, numOutputsFrom, returnsList, inputsForm,
/// argsOptional, attrs: [{name, type, enumName, required, default?, doc}], doc}] of every aiGraphcore method
/// (index.mjs builds aiGraphcore from it).
val graphcoreOpsJs() {
  return guarded([&] {
    return jsArrayOf(graphcoreOpList(), [](const GraphcoreOpInfo& op) {
      val e = val::object();
      e.set("method", op.method);
      e.set("opType", op.opType);
      e.set("minInputs", op.minInputs);
      e.set("maxInputs", op.maxInputs);
      e.set("numOutputs", op.numOutputs);
      e.set("numOutputsFrom", op.numOutputsFrom);
      e.set("returnsList", op.returnsList);
      e.set("inputsForm", op.inputsForm);
      e.set("argsOptional", op.argsOptional);
      e.set("minGroupInputs", op.minGroupInputs);
      e.set("maxGroupInputs", op.maxGroupInputs);
      e.set("doc", op.doc);
      e.set("attrs", jsArrayOf(op.attrs, [](const OpAttrInfo& at) {
              val x = val::object();
              x.set("name", at.name);
              x.set("type", at.type);
              x.set("enumName", at.enumName);
              x.set("required", at.required);
              if (at.hasDefault) x.set("default", jsFromOptionValue(at.defaultValue));
              x.set("doc", at.doc);
              return x;
            }));
      return e;
    });
  });
}

/// [{name, defaultState, rewrite, doc}] of every pattern name (popart/reflection.hpp).
val patternListJs() {
  return guarded([&] {
    return jsArrayOf(patternList(), [](const PatternInfo& p) {
      val e = val::object();
      e.set("name", p.name);
      e.set("defaultState", p.defaultState);
      e.set("rewrite", p.rewrite);
      e.set("doc", p.doc);
      return e;
    });
  });
}

/// A default of the constructors' table as a JS value (None: null, a map: an object).
val factoryValueJs(const FactoryValue& v) {
  if (std::holds_alternative<bool>(v)) return val(std::get<bool>(v));
  if (std::holds_alternative<int64_t>(v)) return val(static_cast<double>(std::get<int64_t>(v)));
  if (std::holds_alternative<double>(v)) return val(std::get<double>(v));
  if (std::holds_alternative<std::string>(v)) return val(std::get<std::string>(v));
  if (std::holds_alternative<FactoryValueMap>(v)) {
    val o = val::object();
    for (const auto& [k, p] : std::get<FactoryValueMap>(v)) {
      val pair = val::array();
      pair.call<void>("push", p.first, p.second);
      o.set(k, pair);
    }
    return o;
  }
  if (std::holds_alternative<std::vector<ClipNormSettings>>(v)) return val::array();
  return val::null();
}

/// [{name, family, base, doc, signatures: [{doc, args: [{name, kind, enumName, required, default?, doc}]}]}]:
/// the optimizer and loss constructors (optimizers.mjs builds its classes from it).
val factoryListJs() {
  return guarded([&] {
    return jsArrayOf(factoryList(), [](const FactoryInfo& f) {
      val e = val::object();
      e.set("name", f.name);
      e.set("family", f.family);
      e.set("base", f.base);
      e.set("doc", f.doc);
      e.set("signatures", jsArrayOf(f.signatures, [](const FactorySignature& s) {
              val sig = val::object();
              sig.set("doc", s.doc);
              sig.set("args", jsArrayOf(s.args, [](const FactoryArgInfo& a) {
                        val o = val::object();
                        o.set("name", a.name);
                        o.set("kind", a.kind);
                        o.set("enumName", a.enumName);
                        o.set("required", !a.defaultValue);
                        if (a.defaultValue) o.set("default", factoryValueJs(*a.defaultValue));
                        o.set("doc", a.doc);
                        return o;
                      }));
              return sig;
            }));
      return e;
    });
  });
}

/// [{optimizer, key, default, isConst, doc}] of every optimizer hyper-parameter.
val optimizerParamsJs() {
  return guarded([&] {
    return jsArrayOf(optimizerParamList(), [](const OptimizerParamInfo& p) {
      val e = val::object();
      e.set("optimizer", p.optimizer);
      e.set("key", p.key);
      e.set("default", p.defaultValue);
      e.set("isConst", p.defaultIsConst);
      e.set("doc", p.doc);
      return e;
    });
  });
}

/// The JS name of a device type: the core's DeviceType name with a lower-case first letter
/// ('cpu', 'ipuModel', 'offlineIpu', 'sim', 'ipu').
std::string deviceTypeJs(DeviceType t) {
  std::string n = enumToString(t);
  n[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(n[0])));
  return n;
}

/// {type: 'cpu' | 'ipuModel' | 'offlineIpu' | 'sim', options: {...}}: the core's createDevice.
std::shared_ptr<DeviceInfo> deviceFrom(const val& spec) {
  const auto type = spec["type"].as<std::string>();
  std::map<std::string, std::string> opts;
  val o = spec["options"];
  if (!isUndef(o)) {
    for (const auto& k : toStrings(val::global("Object").call<val>("keys", o)))
      opts[k] = val::global("String")(o[k]).as<std::string>();
  }
  std::string names;
  for (const std::string& v : enumInfo(EnumTraits<DeviceType>::name()).values) {
    const auto t = enumFromString<DeviceType>(v);
    if (deviceTypeJs(t) == type) return DeviceManager::createDeviceManager().createDevice(t, opts);
    names += (names.empty() ? "" : ", ") + deviceTypeJs(t);
  }
  throw error("Unknown device type '{}' (expected one of {})", type, names);
}

/// A session's device: the spec, or (none given) the core's default for `form`.
std::shared_ptr<DeviceInfo> sessionDeviceFrom(const val& spec, const std::string& form) {
  return isUndef(spec) ? defaultSessionDevice(form) : deviceFrom(spec);
}

val deviceInfoJs(const DeviceInfo& d) {
  val o = val::object();
  o.set("type", deviceTypeJs(d.getType()));
  val opts = val::object();
  for (const auto& kv : d.getOptions()) opts.set(kv.first, kv.second);
  o.set("options", opts);
  o.set("id", d.getId());
  o.set("version", d.getVersion());
  o.set("numIpus", d.getNumIpus());
  o.set("tilesPerIPU", d.getTilesPerIPU());
  o.set("description", d.toString());
  return o;
}

val checkDevice(const val& spec) {
  return guarded([&] { return deviceInfoJs(*deviceFrom(spec)); });
}

/// DeviceManager().acquireAvailableDevice(numIpus) / acquireDeviceById(id): the core's device, or
/// its error (this build sees no hardware IPUs).
val acquireDevice(const std::string& how, const val& n) {
  return guarded([&] {
    auto& dm = DeviceManager::createDeviceManager();
    return deviceInfoJs(how == "byId" ? *dm.acquireDeviceById(toInt32(n, "acquireDeviceById id"))
                                      : *dm.acquireAvailableDevice(toInt32(n, "acquireAvailableDevice numIpus")));
  });
}

void setNumThreads(int n) {
  guarded([&] { popart::setNumThreads(n); });
}
int getNumThreads() {
  return popart::getNumThreads();
}

void setLogLevel(const std::string& module, const std::string& level) {
  guarded([&] {
    const logging::Level l = logging::levelFromString(level);
    if (module.empty()) {
      logging::setLogLevel(l);
      return;
    }
    logging::setLogLevel(logging::moduleFromString(module), l);
  });
}

std::string getLogLevel(const std::string& module) {
  return guarded([&] { return logging::levelToString(logging::getLogLevel(logging::moduleFromString(module))); });
}

/// The JS log destination: "stderr", "stdout" (Node: the process's streams; browsers: the console),
/// or a function(line, level, module) called with each line. A line logged on a pool thread (the
/// pthreads module) waits for the next line logged on the calling thread, which cannot be
/// interrupted to run JS; the JS wrapper keeps a throwing function from unwinding the core.
struct JsLogSink {
  static val& fn() {
    static val f = val::undefined();
    return f;
  }
  struct Pending {
    logging::Level level;
    logging::Module module;
    std::string line;
  };
  static std::vector<Pending>& pending() {
    static std::vector<Pending> p;
    return p;
  }
  static std::mutex& mu() {
    static std::mutex m;
    return m;
  }
  static void call(logging::Level l, logging::Module m, const std::string& line) {
    fn()(line, logging::levelToString(l), logging::moduleToString(m));
  }
  static void sink(logging::Level l, logging::Module m, const std::string& line) {
#ifdef __EMSCRIPTEN_PTHREADS__
    if (!emscripten_is_main_runtime_thread()) {
      std::lock_guard<std::mutex> lock(mu());
      pending().push_back({l, m, line});
      return;
    }
#endif
    std::vector<Pending> earlier;
    {
      std::lock_guard<std::mutex> lock(mu());
      earlier.swap(pending());
    }
    for (const auto& p : earlier) call(p.level, p.module, p.line);
    call(l, m, line);
  }
};

void setLogDestination(val dest) {
  guarded([&] {
    if (dest.typeOf().as<std::string>() == "function") {
      JsLogSink::fn() = dest;
      logging::setLineSink(&JsLogSink::sink);
      return;
    }
    if (dest.typeOf().as<std::string>() != "string")
      throw error("setLogDestination: the destination must be 'stderr', 'stdout' or a function");
    const std::string d = dest.as<std::string>();
    if (d != "stderr" && d != "stdout")
      throw error("setLogDestination: '{}' is not a destination here: use 'stderr', 'stdout' or a function", d);
    logging::setLogDestination(d);  // also ends a function destination
    JsLogSink::fn() = val::undefined();
  });
}

double heapInUse() {
  return static_cast<double>(mallinfo().uordblks);
}

/// createPopart({ maximumMemory }): the module's memory was made with this maximum (below the
/// compiled-in one); the core's limit follows it.
void setModuleMaximumMemory(double bytes) {
  guarded([&] { lowerPlatformMemoryLimit(static_cast<int64_t>(bytes)); });
}
void setMemoryLimitJs(double bytes) {
  guarded([&] {
    if (!(bytes >= 0) || bytes != static_cast<double>(static_cast<int64_t>(bytes)))
      throw error("setMemoryLimit: expected a whole number of bytes >= 0 (0 restores the default), got {}", bytes);
    setMemoryLimit(static_cast<int64_t>(bytes));
  });
}
double getMemoryLimitJs() {
  return static_cast<double>(getMemoryLimit());
}

// Hardware devices: the core's list (empty: this build has no IPU).
val enumerateDevices() {
  return guarded([&] {
    val a = val::array();
    const auto devs = DeviceManager::createDeviceManager().enumerateDevices();
    for (std::size_t i = 0; i < devs.size(); ++i) a.set(i, deviceInfoJs(*devs[i]));
    return a;
  });
}

// ---------------------------------------------------------------- optimizers

/// An optimizer's hyper-parameter map from JS: {key: number (const) | [value, isConst] |
/// {value, isConst}}.
FactoryValueMap optimizerParams(const val& o, const std::string& what) {
  FactoryValueMap m;
  if (isUndef(o)) return m;
  if (typeOf(o) != "object" || o.isNull() || val::global("Array").call<bool>("isArray", o))
    throw error("{}: expected {{key: value}}, got {}", what, describe(o));
  for (const auto& k : toStrings(val::global("Object").call<val>("keys", o))) {
    val v = o[k];
    const auto t = typeOf(v);
    const auto number = [&](const val& x) { return toFloat(x, format("{}: value '{}'", what, k)); };
    if (t == "number") {
      m[k] = {number(v), true};
    } else if (val::global("Array").call<bool>("isArray", v) && v["length"].as<unsigned>() == 2 &&
               typeOf(v[0]) == "number" && typeOf(v[1]) == "boolean") {
      m[k] = {number(v[0]), v[1].as<bool>()};
    } else if (t == "object" && !v.isNull() && typeOf(v["value"]) == "number" &&
               (isUndef(v["isConst"]) || typeOf(v["isConst"]) == "boolean")) {
      m[k] = {number(v["value"]), isUndef(v["isConst"]) || v["isConst"].as<bool>()};
    } else {
      throw error("{}: value '{}' must be a number, [value, isConst] or {{value, isConst}}, got {}", what, k,
                  describe(v));
    }
  }
  return m;
}

/// [{weights: [ids], maxNorm} | {allWeights: true, maxNorm}] -> ClipNormSettings.
std::vector<ClipNormSettings> clipNormsFrom(const val& arr) {
  std::vector<ClipNormSettings> out;
  const auto n = arr["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    val c = arr[i];
    const float maxNorm = toFloat(c["maxNorm"], "ClipNormSettings maxNorm");
    if (!isUndef(c["allWeights"]) && c["allWeights"].as<bool>())
      out.push_back(ClipNormSettings::clipAllWeights(maxNorm));
    else
      out.emplace_back(toStrings(c["weights"]), maxNorm);
  }
  return out;
}

/// A JS argument of an optimizer or loss constructor as the core's FactoryValue, whatever the
/// argument (the core matches it to the constructor's table): integers and other numbers apart,
/// an array of ClipNormSettings specs ({maxNorm, ...}, as optimizers.mjs passes them) the list,
/// another plain object the hyper-parameter map.
FactoryValue factoryValueFrom(const val& v, const std::string& factory) {
  const auto t = v.typeOf().as<std::string>();
  if (isUndef(v) || v.isNull()) return std::monostate{};
  if (t == "boolean") return v.as<bool>();
  if (t == "string") return v.as<std::string>();
  if (t == "number") {
    const double d = v.as<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9007199254740992.0) return static_cast<int64_t>(d);
    return d;
  }
  if (val::global("Array").call<bool>("isArray", v)) {
    const auto n = v["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i)
      if (v[i].typeOf().as<std::string>() != "object" || v[i].isNull() || isUndef(v[i]["maxNorm"]))
        return UnsupportedFactoryValue{"[" + val::global("String")(v).as<std::string>() + "]"};
    return clipNormsFrom(v);
  }
  if (t == "object") return optimizerParams(v, factory);
  return UnsupportedFactoryValue{val::global("String")(v).as<std::string>()};
}

/// {factory: 'SGD' | ... | 'NllLoss' | ..., args: [...]}: a call of the core's constructor.
FactoryArguments factoryArgumentsFrom(const val& spec) {
  const auto name = spec["factory"].as<std::string>();
  std::vector<FactoryValue> args;
  const auto n = spec["args"]["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) args.push_back(factoryValueFrom(spec["args"][i], name));
  while (!args.empty() && std::holds_alternative<std::monostate>(args.back())) args.pop_back();  // trailing undefined
  return bindFactoryArguments(name, args, {});
}

/// {factory, args, specific: {weightId: {key: value}}} -> the optimizer.
std::unique_ptr<Optimizer> optimizerFrom(const val& spec) {
  auto o = makeOptimizer(factoryArgumentsFrom(spec));
  val sp = spec["specific"];
  if (!isUndef(sp)) {
    for (const auto& id : toStrings(val::global("Object").call<val>("keys", sp)))
      o->insertSpecific(id, optimizerParams(sp[id], "insertSpecific"));
  }
  return o;
}

/// Checks an optimizer spec; its type ("SGD", "Adam", "Adaptive": ConstSGD is an SGD).
std::string checkOptimizer(const val& spec) {
  return guarded([&] { return optimizerFrom(spec)->type_s(); });
}

// ---------------------------------------------------------------- losses (pre-1.2 API)

/// Checks a loss spec ({factory, args}); the id of the loss tensor it adds.
std::string checkLoss(const val& spec) {
  return guarded([&] { return makeLoss(factoryArgumentsFrom(spec))->output(); });
}

/// [{factory: 'NllLoss' | 'L1Loss' | 'IdentityLoss', args}] -> the loss objects.
std::vector<std::unique_ptr<Loss>> lossesFrom(const val& arr) {
  std::vector<std::unique_ptr<Loss>> out;
  const auto n = arr["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) out.push_back(makeLoss(factoryArgumentsFrom(arr[i])));
  return out;
}

std::vector<Loss*> rawLosses(const std::vector<std::unique_ptr<Loss>>& v) {
  std::vector<Loss*> out;
  for (const auto& l : v) out.push_back(l.get());
  return out;
}

// ---------------------------------------------------------------- sessions

/// A session, or poponnx's Session (LegacySession): then s_ is its main session, and
/// train / evaluate / infer run through it.
class SessionJs {
 public:
  explicit SessionJs(std::unique_ptr<Session> s) : owned_(std::move(s)), s_(owned_.get()) {}
  explicit SessionJs(std::unique_ptr<LegacySession> s) : legacy_(std::move(s)), s_(&legacy_->session()) {}

  static SessionJs* createInference(const val& model, const val& dataFlow, const val& device, const val& isi,
                                    const val& options, const val& patterns, const val& losses) {
    return guarded([&] {
      const auto dev = sessionDeviceFrom(device, "InferenceSession(model, dataFeed)");
      if (!isUndef(losses)) {
        const auto owned = lossesFrom(losses);
        return new SessionJs(InferenceSession::createFromOnnxModel(
            bytesFrom(model), dataFlowFrom(dataFlow), dev, rawLosses(owned), inputShapeInfoFrom(isi),
            sessionOptionsFrom(options), patternsFrom(patterns)));
      }
      return new SessionJs(InferenceSession::createFromOnnxModel(bytesFrom(model), dataFlowFrom(dataFlow), dev,
                                                                 inputShapeInfoFrom(isi), sessionOptionsFrom(options),
                                                                 patternsFrom(patterns)));
    });
  }

  /// `loss`: the loss tensor id, or an array of pre-1.2 loss specs (lossesFrom).
  static SessionJs* createTraining(const val& model, const val& dataFlow, const val& loss, const val& optimizer,
                                   const val& device, const val& isi, const val& options, const val& patterns) {
    return guarded([&] {
      const auto opt = optimizerFrom(optimizer);
      const auto dev = sessionDeviceFrom(device, "TrainingSession(model, dataFeed, losses, optimizer)");
      if (typeOf(loss) != "string") {
        const auto owned = lossesFrom(loss);
        return new SessionJs(TrainingSession::createFromOnnxModel(bytesFrom(model), dataFlowFrom(dataFlow),
                                                                  rawLosses(owned), *opt, dev, inputShapeInfoFrom(isi),
                                                                  sessionOptionsFrom(options), patternsFrom(patterns)));
      }
      return new SessionJs(TrainingSession::createFromOnnxModel(
          bytesFrom(model), dataFlowFrom(dataFlow), loss.as<std::string>(), *opt, dev, inputShapeInfoFrom(isi),
          sessionOptionsFrom(options), patternsFrom(patterns)));
    });
  }

  /// poponnx's Session(model, dataFeed, losses?, optimizer?): Session::createFromOnnxModel.
  static SessionJs* createLegacy(const val& model, const val& dataFlow, const val& losses, const val& optimizer,
                                 const val& device, const val& isi, const val& options, const val& patterns) {
    return guarded([&] {
      const auto owned = isUndef(losses) ? std::vector<std::unique_ptr<Loss>>{} : lossesFrom(losses);
      const auto opt = isUndef(optimizer) ? nullptr : optimizerFrom(optimizer);
      return new SessionJs(Session::createFromOnnxModel(bytesFrom(model), dataFlowFrom(dataFlow), rawLosses(owned),
                                                        opt.get(), isUndef(device) ? nullptr : deviceFrom(device),
                                                        inputShapeInfoFrom(isi), sessionOptionsFrom(options),
                                                        patternsFrom(patterns)));
    });
  }

  /// The legacy Session's train / evaluate / infer ("train" | "evaluate" | "infer"), marshalled as run.
  void legacyStep(const std::string& mode, const val& inputs, const val& anchors) {
    guarded([&] {
      if (!legacy_) throw error("{} is a method of poponnx's Session only; use run()", mode);
      withStepIO(inputs, anchors, [&](IStepIO& io) {
        if (mode == "train")
          legacy_->train(io);
        else if (mode == "evaluate")
          legacy_->evaluate(io);
        else
          legacy_->infer(io);
      });
    });
  }

  void prepareDevice(bool loadEngine) {
    guarded([&] { s_->prepareDevice(loadEngine); });
  }

  // Training only (the JS TrainingSession calls these).
  TrainingSession& training() {
    auto* t = dynamic_cast<TrainingSession*>(s_);
    if (!t) throw error("This is not a TrainingSession");
    return *t;
  }
  void updateOptimizerFromHost(const val& optimizer) {
    guarded([&] {
      const auto opt = optimizerFrom(optimizer);
      training().updateOptimizerFromHost(opt.get());
    });
  }
  void updateOptimizer(const val& optimizer) {
    guarded([&] {
      const auto opt = optimizerFrom(optimizer);
      if (legacy_)
        legacy_->updateOptimizer(opt.get());
      else
        training().updateOptimizer(opt.get());
    });
  }
  void optimizerFromHost() {
    guarded([&] {
      if (legacy_)
        legacy_->optimizerFromHost();
      else
        training().optimizerFromHost();
    });
  }
  val getOptimizerTensorIds() {
    return guarded([&] { return jsStrings(training().getOptimizerTensorIds()); });
  }
  void loadEngineAndConnectStreams() {
    guarded([&] { s_->loadEngineAndConnectStreams(); });
  }
  void weightsFromHost() {
    guarded([&] { s_->weightsFromHost(); });
  }
  void weightsToHost() {
    guarded([&] { s_->weightsToHost(); });
  }

  /// inputs: {id: {data, shape, dtype}}; anchors: {id: TypedArray} filled in place (the JS layer
  /// sized them with getAnchorShape / getInfo).
  val run(const val& inputs, const val& anchors, const std::string& debugName) {
    return guarded([&] { return withStepIO(inputs, anchors, [&](IStepIO& io) { s_->run(io, debugName); }); });
  }

  /// {dtype, shape, bytes | strings}: an array of a run, for JS (values.mjs valuesOf).
  static val arrayValue(const NDArray& a) {
    val o = val::object();
    o.set("dtype", dataTypeToString(a.dataType()));
    o.set("shape", jsShape(a.shape()));
    if (a.isString()) {
      const auto* p = a.dataAs<std::string>();
      o.set("strings", jsStrings(std::vector<std::string>(p, p + a.nelms())));
    } else {
      o.set("bytes", u8Copy(a.data(), static_cast<std::size_t>(a.info().nbytes())));
    }
    return o;
  }

  /// A StepIO over copies of `inputs` and buffers for `anchors` (shaped by the main session), given
  /// to `step`; the buffers are then copied into the JS arrays. A session planned at run time
  /// sizes its anchors per run: every anchor comes back as {dtype, shape, bytes | strings} (the
  /// JS session puts the run's arrays into the PyStepIO); otherwise undefined.
  template <typename F>
  val withStepIO(const val& inputs, const val& anchors, F&& step) {
    std::map<TensorId, NDArray> in, out;
    std::map<TensorId, std::vector<NDArray>> elementsIn;  // sequence and optional inputs: {elements: [...]}
    for (const auto& id : toStrings(val::global("Object").call<val>("keys", inputs))) {
      const val v = inputs[id];
      if (!isUndef(v["elements"])) {
        auto& e = elementsIn[id];
        const int n = v["elements"]["length"].as<int>();
        for (int i = 0; i < n; ++i) e.push_back(ndarrayFrom(v["elements"][i]));
        continue;
      }
      in.emplace(id, ndarrayFrom(v));
    }
    const auto outIds = toStrings(val::global("Object").call<val>("keys", anchors));
    const bool runTime = s_->getRunTimePlanStats().runTimeShapes;
    const std::map<TensorId, TensorInfo> infos = runTime ? s_->getAnchorArrayInfos() : std::map<TensorId, TensorInfo>{};
    for (const auto& id : outIds) {
      if (runTime) {  // resized by the run (StepIO::prepareOutput); an unknown id is the core's error
        auto it = infos.find(id);
        out.emplace(id, NDArray(it != infos.end() ? it->second : TensorInfo(DataType::FLOAT, {0})));
        continue;
      }
      // An array of the wrong size gets the core's element-count error, as natively.
      Shape shape = s_->getAnchorShape(id);
      const auto n = anchors[id]["length"].as<double>();
      if (n != static_cast<double>(TensorInfo(DataType::FLOAT, shape).nelms())) shape = {static_cast<int64_t>(n)};
      out.emplace(id, NDArray(s_->getInfo(id).dataType(), shape));
    }
    std::map<TensorId, IArray&> inRefs, outRefs;
    for (auto& kv : in) inRefs.emplace(kv.first, kv.second);
    for (auto& kv : out) outRefs.emplace(kv.first, kv.second);
    /// Records the sequence and optional anchors a run returns.
    struct ElementsStepIO : StepIO {
      using StepIO::StepIO;
      std::map<TensorId, ValueKind> kinds;
      std::vector<IArray*> prepareOutputElements(const TensorId& id, ValueKind kind, bool present,
                                                 const std::vector<TensorInfo>& infos) override {
        kinds[id] = kind;
        return StepIO::prepareOutputElements(id, kind, present, infos);
      }
    };
    ElementsStepIO io(inRefs, outRefs);
    for (auto& [id, arrays] : elementsIn) {
      std::vector<IArray*> ptrs;
      for (auto& a : arrays) ptrs.push_back(&a);
      io.setInputElements(id, ptrs);
    }
    step(io);
    // syntheticDataMode: no host streams, so nothing reaches the anchors (as natively).
    if (s_->getSessionOptions().syntheticDataMode != SyntheticDataMode::Off) return val::undefined();
    val shaped = runTime || !io.kinds.empty() ? val::object() : val::undefined();
    // A sequence or optional anchor: {kind, present, elements: [{dtype, shape, bytes | strings}]}.
    for (const auto& [id, kind] : io.kinds) {
      val o = val::object();
      o.set("kind", kind == ValueKind::Sequence         ? "sequence"
                    : kind == ValueKind::OptionalTensor ? "optionalTensor"
                                                        : "optionalSequence");
      o.set("present", io.outputPresent(id));
      val elements = val::array();
      for (const NDArray& a : io.outputElements(id)) elements.call<void>("push", arrayValue(a));
      o.set("elements", elements);
      shaped.set(id, o);
    }
    for (const auto& id : outIds) {
      NDArray& a = out.at(id);
      const std::size_t bytes = static_cast<std::size_t>(a.info().nbytes());
      if (io.kinds.count(id)) continue;  // a placeholder given for a sequence or optional anchor
      if (runTime) {
        shaped.set(id, arrayValue(a));
      } else if (a.isString()) {
        val dst = anchors[id];
        const auto* p = a.dataAs<std::string>();
        for (std::size_t i = 0; i < a.nelms(); ++i) dst.set(i, p[i]);
      } else {
        copyToJs(anchors[id], a.data(), bytes);
      }
    }
    return shaped;
  }

  /// weights: {id: TypedArray} filled with the host copy of each weight.
  void readWeights(const val& weights) {
    guarded([&] {
      const auto ids = toStrings(val::global("Object").call<val>("keys", weights));
      std::map<TensorId, NDArray> bufs;
      WeightsIO io;
      for (const auto& id : ids) {
        // Sized from the caller's array: a grouped weight (VariableSettings) returns several values.
        const TensorInfo info = s_->getInfo(id);
        const val arr = weights[id];
        const Shape shape =
            isUndef(arr["length"]) ? info.shape() : Shape{toInt(arr["length"], "readWeights array length", 0)};
        auto& a = bufs.emplace(id, NDArray(TensorInfo(info.dataType(), shape))).first->second;
        io.insert(id, MutableVoidData(a.data(), a.info()));
      }
      s_->readWeights(io);
      for (const auto& id : ids)
        copyToJs(weights[id], bufs.at(id).data(), static_cast<std::size_t>(bufs.at(id).info().nbytes()));
    });
  }

  /// weights: {id: {data, shape, dtype}}
  void writeWeights(const val& weights) {
    guarded([&] {
      std::map<TensorId, NDArray> bufs;
      WeightsIO io;
      for (const auto& id : toStrings(val::global("Object").call<val>("keys", weights))) {
        auto& a = bufs.emplace(id, ndarrayFrom(weights[id])).first->second;
        io.insert(id, MutableVoidData(a.data(), a.info()));
      }
      s_->writeWeights(io);
    });
  }

  val modelToHostBytes() {
    return guarded([&] {
      const std::string s = s_->modelToHostBytes();
      return u8Copy(s.data(), s.size());
    });
  }
  val exportInferenceModelBytes() {
    return guarded([&] {
      const std::string s = s_->exportInferenceModelBytes();
      return u8Copy(s.data(), s.size());
    });
  }
  /// Session::compileAndExport's file as bytes; loadExecutable takes them back (sessions.mjs
  /// writes and reads the file in Node).
  val compileAndExportToBytes() {
    return guarded([&] {
      const std::string s = s_->compileAndExportToBytes();
      return u8Copy(s.data(), s.size());
    });
  }
  void loadExecutableFromBytes(const val& bytes) {
    guarded([&] { s_->loadExecutableFromBytes(bytesFrom(bytes)); });
  }
  void resetHostWeights(const val& model, bool ignoreMissing) {
    guarded([&] { s_->resetHostWeights(bytesFrom(model), ignoreMissing); });
  }

  val getInfo(const std::string& id) {
    return guarded([&] { return infoJs(s_->getInfo(id)); });
  }
  bool hasInfo(const std::string& id) {
    return guarded([&] { return s_->hasInfo(id); });
  }
  val getAllTensorIds() {
    return guarded([&] { return jsStrings(s_->getAllTensorIds()); });
  }
  val getAnchorShape(const std::string& id) {
    return guarded([&] { return jsShape(s_->getAnchorShape(id)); });
  }
  val anchorIds() {
    return guarded([&] { return jsStrings(s_->getDataFlow().anchors()); });
  }
  /// {id: {dtype, shape}} of each anchor's array, checked against the memory limit (the error
  /// names the anchor and its factors).
  val anchorArrayInfos() {
    return guarded([&] {
      val o = val::object();
      for (const auto& kv : s_->getAnchorArrayInfos()) o.set(kv.first, infoJs(kv.second));
      return o;
    });
  }
  std::string getSummaryReport(bool reset) {
    return guarded([&] { return s_->getSummaryReport(reset); });
  }
  /// PopART's _serializeIr: the JSON text of Session::serializeIr (`format` an
  /// IrSerializationFormat name).
  std::string serializeIr(const std::string& format) {
    return guarded([&] { return s_->serializeIr(enumFromString<IrSerializationFormat>(format)); });
  }
  /// The core's report document (Session::getReportJson, the keys of report::schema()), parsed.
  val getReport() {
    return guarded([&] { return val::global("JSON").call<val>("parse", s_->getReportJson(false)); });
  }
  /// JSON text, or a Uint8Array of CBOR bytes.
  val getGraphReport(bool cbor) {
    return guarded([&] { return reportJs(s_->getGraphReport(cbor), cbor); });
  }
  val getExecutionReport(bool cbor, bool reset) {
    return guarded([&] { return reportJs(s_->getExecutionReport(cbor, reset), cbor); });
  }
  double getCycleCount(const std::string& id) {
    return guarded([&] { return static_cast<double>(s_->getCycleCount(id)); });
  }
  void setRandomSeed(const val& seed) {
    guarded([&] { s_->setRandomSeed(static_cast<uint64_t>(toInt(seed, "setRandomSeed seed", 0))); });
  }
  bool isPrepared() { return s_->isPrepared(); }
  val getDevice() {
    return guarded([&] { return deviceInfoJs(*s_->getDevice()); });
  }
  /// Session::getRunTimePlanStats: {runTimeShapes, plansBuilt, plansReused, plansCached, runTimeConstants}.
  val getRunTimePlanStats() {
    return guarded([&] {
      const Session::RunTimePlanStats st = s_->getRunTimePlanStats();
      val o = val::object();
      o.set("runTimeShapes", st.runTimeShapes);
      o.set("plansBuilt", static_cast<double>(st.plansBuilt));
      o.set("plansReused", static_cast<double>(st.plansReused));
      o.set("plansCached", static_cast<double>(st.plansCached));
      o.set("runTimeConstants", jsStrings(st.runTimeConstants));
      return o;
    });
  }
  val getMemoryStats() {
    return guarded([&] {
      const auto m = s_->getMemoryStats();
      val o = val::object();
      for (const auto& [name, bytes] : m.fields()) o.set(name, static_cast<double>(bytes));
      return o;
    });
  }

 private:
  std::unique_ptr<Session> owned_;
  std::unique_ptr<LegacySession> legacy_;
  Session* s_;
};

}  // namespace
}  // namespace wasm
}  // namespace popart

EMSCRIPTEN_BINDINGS(popart) {
  using namespace emscripten;
  using popart::wasm::SessionJs;
  namespace w = popart::wasm;
  function("takeError", &w::takeError);
  function("setFileWriter", &w::setFileWriter);
  function("tensorInfo", &w::tensorInfo);
  function("checkAnchorReturnType", &w::checkAnchorReturnType);
  function("checkDataFlow", &w::checkDataFlow);
  function("checkPatterns", &w::checkPatterns);
  function("patternEnabled", &w::patternEnabled);
  function("allPatternNames", &w::allPatternNames);
  function("checkDevice", &w::checkDevice);
  function("acquireDevice", &w::acquireDevice);
  function("checkOptimizer", &w::checkOptimizer);
  function("checkLoss", &w::checkLoss);
  function("factoryList", &w::factoryListJs);
  function("setLogLevel", &w::setLogLevel);
  function("getLogLevel", &w::getLogLevel);
  function("setLogDestination", &w::setLogDestination);
  function("heapInUse", &w::heapInUse);
  function("setNumThreads", &w::setNumThreads);
  function("setModuleMaximumMemory", &w::setModuleMaximumMemory);
  function("setMemoryLimit", &w::setMemoryLimitJs);
  function("getMemoryLimit", &w::getMemoryLimitJs);
  function("sessionOptionsDefaults", &w::sessionOptionsDefaults);
  function("sessionOptionsList", &w::sessionOptionsList);
  function("settingsStructList", &w::settingsStructListJs);
  function("bindSettingsArguments", &w::bindSettingsArgumentsJs);
  function("enums", &w::enumsJs);
  function("reservedPrefixes", &w::reservedPrefixesJs);
  function("errorClasses", &w::errorClassesJs);
  function("versionInfo", &w::versionInfoJs);
  function("getSupportedOperations", &w::supportedOperationsJs);
  function("getSupportedOperationsDefinition", &w::supportedOperationsDefinitionJs);
  function("getUnsupportedOperations", &w::unsupportedOperationsJs);
  function("variableSettingsInfo", &w::variableSettingsInfoJs);
  function("initializePoplarDebugInfo", &w::initializePoplarDebugInfoJs);
  function("closePoplarDebugInfo", &w::closePoplarDebugInfoJs);
  function("memoryCategories", &w::memoryCategories);
  function("reportSchema", &w::reportSchemaJs);
  function("ipuTargets", &w::ipuTargetsJs);
  function("optimizerParams", &w::optimizerParamsJs);
  function("patternList", &w::patternListJs);
  function("graphcoreOps", &w::graphcoreOpsJs);
  function("enumerateDevices", &w::enumerateDevices);
  function("getNumThreads", &w::getNumThreads);
  function("describeModel", &w::describeModelJs);
  function("tensorValue", &w::tensorValueJs);

  class_<SessionJs>("SessionHandle")
      .class_function("createInference", &SessionJs::createInference, allow_raw_pointers())
      .class_function("createTraining", &SessionJs::createTraining, allow_raw_pointers())
      .class_function("createLegacy", &SessionJs::createLegacy, allow_raw_pointers())
      .function("legacyStep", &SessionJs::legacyStep)
      .function("prepareDevice", &SessionJs::prepareDevice)
      .function("updateOptimizerFromHost", &SessionJs::updateOptimizerFromHost)
      .function("updateOptimizer", &SessionJs::updateOptimizer)
      .function("optimizerFromHost", &SessionJs::optimizerFromHost)
      .function("getOptimizerTensorIds", &SessionJs::getOptimizerTensorIds)
      .function("loadEngineAndConnectStreams", &SessionJs::loadEngineAndConnectStreams)
      .function("weightsFromHost", &SessionJs::weightsFromHost)
      .function("weightsToHost", &SessionJs::weightsToHost)
      .function("run", &SessionJs::run)
      .function("readWeights", &SessionJs::readWeights)
      .function("writeWeights", &SessionJs::writeWeights)
      .function("modelToHostBytes", &SessionJs::modelToHostBytes)
      .function("exportInferenceModelBytes", &SessionJs::exportInferenceModelBytes)
      .function("compileAndExportToBytes", &SessionJs::compileAndExportToBytes)
      .function("loadExecutableFromBytes", &SessionJs::loadExecutableFromBytes)
      .function("resetHostWeights", &SessionJs::resetHostWeights)
      .function("getInfo", &SessionJs::getInfo)
      .function("hasInfo", &SessionJs::hasInfo)
      .function("getAllTensorIds", &SessionJs::getAllTensorIds)
      .function("getAnchorShape", &SessionJs::getAnchorShape)
      .function("anchorIds", &SessionJs::anchorIds)
      .function("anchorArrayInfos", &SessionJs::anchorArrayInfos)
      .function("getSummaryReport", &SessionJs::getSummaryReport)
      .function("serializeIr", &SessionJs::serializeIr)
      .function("getReport", &SessionJs::getReport)
      .function("getGraphReport", &SessionJs::getGraphReport)
      .function("getExecutionReport", &SessionJs::getExecutionReport)
      .function("getCycleCount", &SessionJs::getCycleCount)
      .function("setRandomSeed", &SessionJs::setRandomSeed)
      .function("isPrepared", &SessionJs::isPrepared)
      .function("getDevice", &SessionJs::getDevice)
      .function("getMemoryStats", &SessionJs::getMemoryStats)
      .function("getRunTimePlanStats", &SessionJs::getRunTimePlanStats);
}
