// Embind bindings: the C++ API exposed to the JS package (wasm/js/). Marshalling only (JS values
// <-> C++ objects); every behaviour and every error message comes from the core. Each entry point
// turns a C++ exception into a JS Error carrying the same message, after the C++ exception is freed,
// so the module keeps working.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "popart/describe.hpp"
#include "popart/opmanager.hpp"
#include "popart/popart.hpp"
#include "popart/threads.hpp"
#include "popart/version.hpp"

using emscripten::val;

// report::Report to JSON with the structs' own field names, so Session.getReport() in JS mirrors
// the C++ struct (popart/report.hpp) field for field: a field added there is listed here too (and
// in index.d.ts's Report). The graph and execution reports (getGraphReport / getExecutionReport)
// are the core's own documents, with PopART's key names.
namespace popart {
namespace report {

void to_json(nlohmann::json& j, MemoryCategory c) {
  j = memoryCategoryName(c);
}
void from_json(const nlohmann::json& j, MemoryCategory& c) {
  for (int k = 0; k < static_cast<int>(MemoryCategory::N); ++k)
    if (j == memoryCategoryName(static_cast<MemoryCategory>(k))) c = static_cast<MemoryCategory>(k);
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Target, type, architecture, product, numIpus, tilesPerIpu, numTiles, replicas,
                                   bytesPerTile, totalMemory, clockHz, workerContexts)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TileMapping, ipu, firstTile, bytesPerTile)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Tensor, id, dtype, shape, bytes, kind, category, mapping, liveFrom, liveTo, view)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Op, name, type, ipu, pipelineStage, flops, exchangeBytes, computeCycles,
                                   exchangeCycles, syncCycles, cycles, firstTile, numTiles)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Memory, byCategoryByTile, byTileTotal, total, maxTileBytes, maxTile,
                                   outOfMemoryTiles)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Cycles, perMicroBatch, interIpuCopies, hostToDevicePerMicroBatch,
                                   deviceToHostPerMicroBatch, stageCycles, perIpu)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Compilation, target, memory, cycles, ops, tensors, pipelined, schedule)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Step, cycles)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Run, name, microBatches, cycles, pipelineFillCycles, pipelineSteadyCycles,
                                   pipelineDrainCycles, steps, seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HostOp, name, type, calls, seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Execution, runs, totalCycles, hostOps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Report, compilation, execution)

}  // namespace report
}  // namespace popart

namespace popart {
namespace wasm {
namespace {

/// The last failed call, taken by the JS layer (takeError) right after each call: the message and
/// the exception's own fields (OutOfMemoryException's summary report). No exception ever crosses
/// into JS: a JS throw through wasm frames would skip C++ destructors (leaking what they own), so
/// errors are reported through this slot instead.
struct LastError {
  std::string message;
  std::string summaryReport;  ///< OutOfMemoryException::getSummaryReport()
  std::string profilePath;    ///< OutOfMemoryException::getProfilePath()
  bool outOfMemory = false;
};
LastError& lastError() {
  static LastError e;
  return e;
}
bool& hasError() {
  static bool h = false;
  return h;
}

template <class F>
auto guarded(F&& f) -> decltype(f()) {
  using R = decltype(f());
  try {
    return f();
  } catch (const std::bad_alloc&) {
    lastError().message =
        format("out of memory: the WebAssembly module could not allocate more memory (heap {} bytes; memory limit {})",
               emscripten_get_heap_size(), describeMemoryLimit());
  } catch (const OutOfMemoryException& e) {
    lastError().message = e.what();
    lastError().summaryReport = e.getSummaryReport();
    lastError().profilePath = e.getProfilePath();
    lastError().outOfMemory = true;
  } catch (const std::exception& e) {
    lastError().message = e.what();
  } catch (...) {
    lastError().message = "unknown C++ exception";
  }
  hasError() = true;
  if constexpr (std::is_same_v<R, val>) {
    return val::undefined();
  } else if constexpr (!std::is_void_v<R>) {
    return R{};
  }
}

/// null, or {message, summaryReport?, profilePath?}: the JS layer throws an Error with these fields.
val takeError() {
  if (!hasError()) return val::null();
  hasError() = false;
  val e = val::object();
  e.set("message", lastError().message);
  if (lastError().outOfMemory) {
    e.set("summaryReport", lastError().summaryReport);
    e.set("profilePath", lastError().profilePath);
  }
  lastError() = LastError{};
  return e;
}

// ---------------------------------------------------------------- conversions

bool isUndef(const val& v) {
  return v.isUndefined() || v.isNull();
}

std::string typeOf(const val& v) {
  return v.typeOf().as<std::string>();
}

std::vector<std::string> toStrings(const val& arr) {
  std::vector<std::string> out;
  if (isUndef(arr)) return out;
  const auto n = arr["length"].as<unsigned>();
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.push_back(arr[i].as<std::string>());
  return out;
}

/// How a JS value reads in an error message: 2.5, NaN, the string "3", undefined, an object, ...
std::string describe(const val& v) {
  const std::string t = typeOf(v);
  if (t == "number") return val::global("String")(v).as<std::string>();
  if (t == "bigint") return val::global("String")(v).as<std::string>() + "n";
  if (t == "string") return "the string \"" + v.as<std::string>() + "\"";
  if (v.isNull()) return "null";
  if (t == "undefined" || t == "boolean") return val::global("String")(v).as<std::string>() + " (" + t + ")";
  if (val::global("Array").call<bool>("isArray", v)) return "an Array";
  return t == "object" ? "an object" : "a " + t;
}

/// Every integer argument from JS comes through here: a Number with an integral value (at most
/// 2^53 in magnitude) or a BigInt, within [lo, hi]. Anything else (a fraction, NaN, Infinity, a
/// string, undefined, ...) is an error naming `what`: nothing is truncated or coerced.
int64_t toInt(const val& v, const std::string& what, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) {
  const std::string t = typeOf(v);
  bool ok = false;
  int64_t r = 0;
  if (t == "number") {
    const double d = v.as<double>();
    ok = std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= 9007199254740992.0;
    if (ok) r = static_cast<int64_t>(d);
  } else if (t == "bigint") {
    const std::string s = val::global("String")(v).as<std::string>();
    errno = 0;
    char* end = nullptr;
    const long long x = std::strtoll(s.c_str(), &end, 10);
    if (errno == ERANGE) throw error("{} must be an integer from {} to {}, got {}", what, lo, hi, describe(v));
    ok = end && *end == '\0';
    r = x;
  }
  if (!ok) throw error("{} must be an integer, got {}", what, describe(v));
  if (r < lo || r > hi) throw error("{} must be an integer from {} to {}, got {}", what, lo, hi, r);
  return r;
}

int toInt32(const val& v, const std::string& what, int lo = INT32_MIN) {
  return static_cast<int>(toInt(v, what, lo, INT32_MAX));
}

/// An Array (or TypedArray) of integers; element i is named `what[i]` in errors.
std::vector<int64_t> toInts(const val& arr, const std::string& what) {
  std::vector<int64_t> out;
  if (isUndef(arr)) return out;
  if (!val::global("Array").call<bool>("isArray", arr) && !val::global("ArrayBuffer").call<bool>("isView", arr))
    throw error("{} must be an Array of integers, got {}", what, describe(arr));
  const auto n = arr["length"].as<unsigned>();
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.push_back(toInt(arr[i], what + "[" + std::to_string(i) + "]"));
  return out;
}

/// A finite Number (no coercion from strings or undefined).
float toFloat(const val& v, const std::string& what) {
  if (typeOf(v) == "number" && std::isfinite(v.as<double>())) return v.as<float>();
  throw error("{} must be a finite number, got {}", what, describe(v));
}

std::vector<float> toFloats(const val& arr) {
  std::vector<float> out;
  const auto n = arr["length"].as<unsigned>();
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.push_back(arr[i].as<float>());
  return out;
}

val jsStrings(const std::vector<std::string>& v) {
  val a = val::array();
  for (std::size_t i = 0; i < v.size(); ++i) a.set(i, v[i]);
  return a;
}

val jsShape(const Shape& s) {
  val a = val::array();
  for (std::size_t i = 0; i < s.size(); ++i) a.set(i, static_cast<double>(s[i]));
  return a;
}

/// Bytes of a Uint8Array (or any TypedArray / ArrayBuffer view) with one TypedArray.set.
std::string bytesFrom(const val& src) {
  val u8 = val::global("Uint8Array").new_(src["buffer"], src["byteOffset"], src["byteLength"]);
  const auto n = u8["length"].as<std::size_t>();
  std::string buf(n, '\0');
  if (n) val(emscripten::typed_memory_view(n, reinterpret_cast<unsigned char*>(&buf[0]))).call<void>("set", u8);
  return buf;
}

/// A new Uint8Array holding a copy of `bytes`.
val u8Copy(const void* bytes, std::size_t n) {
  val view(emscripten::typed_memory_view(n, static_cast<const unsigned char*>(bytes)));
  return val::global("Uint8Array").new_(view);  // copies out of the wasm heap
}

/// A report from the core: JSON text as a string, CBOR bytes as a Uint8Array.
val reportJs(const std::string& s, bool cbor) {
  return cbor ? u8Copy(s.data(), s.size()) : val(s);
}

/// Installs `fn(path, bytes: Uint8Array) -> null | message` (index.mjs: Node's fs, or nothing
/// written in a browser) as the writer of autoReport's files; undefined restores the core's.
void setFileWriter(const val& fn) {
  guarded([&] {
    if (isUndef(fn)) {
      report::setFileWriter({});
      return;
    }
    report::setFileWriter([fn](const std::string& path, const std::string& bytes) {
      const val failed = fn(path, u8Copy(bytes.data(), bytes.size()));
      if (!isUndef(failed)) throw error(failed.as<std::string>());
    });
  });
}

/// Copies `n` bytes from the wasm heap into the JS TypedArray `dst` (byte-wise view of it).
void copyToJs(const val& dst, const void* src, std::size_t n) {
  val u8 = val::global("Uint8Array").new_(dst["buffer"], dst["byteOffset"], dst["byteLength"]);
  if (u8["length"].as<std::size_t>() != n)
    throw error("internal: destination holds {} bytes, {} expected", u8["length"].as<std::size_t>(), n);
  if (n) u8.call<void>("set", val(emscripten::typed_memory_view(n, static_cast<const unsigned char*>(src))));
}

/// Copies the JS TypedArray `src` into `n` bytes at `dst`.
void copyFromJs(void* dst, std::size_t n, const val& src) {
  val u8 = val::global("Uint8Array").new_(src["buffer"], src["byteOffset"], src["byteLength"]);
  if (u8["length"].as<std::size_t>() != n)
    throw error("internal: source holds {} bytes, {} expected", u8["length"].as<std::size_t>(), n);
  if (n) val(emscripten::typed_memory_view(n, static_cast<unsigned char*>(dst))).call<void>("set", u8);
}

/// {data: TypedArray | string[], shape: number[], dtype: 'FLOAT'} -> NDArray (the JS layer has
/// already checked that the data's length matches the shape).
NDArray ndarrayFrom(const val& nd) {
  NDArray a(TensorInfo(nd["dtype"].as<std::string>(), toInts(nd["shape"], "NDArray shape")));
  if (a.info().dataType() == DataType::STRING) {
    auto* s = a.dataAs<std::string>();
    const auto strs = toStrings(nd["data"]);
    for (std::size_t i = 0; i < strs.size() && i < a.nelms(); ++i) s[i] = strs[i];
  } else {
    copyFromJs(a.data(), static_cast<std::size_t>(a.info().nbytes()), nd["data"]);
  }
  return a;
}

val infoJs(const TensorInfo& info) {
  val o = val::object();
  o.set("dtype", info.data_type());
  o.set("shape", jsShape(info.shape()));
  return o;
}

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

// ---------------------------------------------------------------- reflection (the core's tables)

/// A JS value as an OptionValue, by the kind of the option it goes to (`type` from the core's
/// table): booleans, numbers (integral ones as integers), strings, BigInts, arrays of those, and
/// plain objects as maps of strings. The core checks the kinds and ranges.
OptionValue optionValueFrom(const val& v, const std::string& type, const std::string& what) {
  const std::string t = typeOf(v);
  if (type == "intss") {  // one array of integers per group (multiconv's per-convolution lists)
    if (!val::global("Array").call<bool>("isArray", v)) throw error("{} must be an array of integer arrays", what);
    std::vector<std::vector<int64_t>> out;
    const auto n = v["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      if (!val::global("Array").call<bool>("isArray", v[i]))
        throw error("{}[{}] must be an array of integers (got {})", what, i, typeOf(v[i]));
      out.push_back(toInts(v[i], what + "[" + std::to_string(i) + "]"));
    }
    return out;
  }
  if (type == "map") {
    if (t != "object" || val::global("Array").call<bool>("isArray", v))
      throw error("{} must be an object of strings (got {})", what, t);
    std::map<std::string, std::string> m;
    for (const auto& k : toStrings(val::global("Object").call<val>("keys", v)))
      m[k] = val::global("String")(v[k]).as<std::string>();
    return m;
  }
  if (val::global("Array").call<bool>("isArray", v)) {
    const auto n = v["length"].as<unsigned>();
    bool allStrings = n > 0, allInts = true;
    for (unsigned i = 0; i < n; ++i) {
      const std::string et = typeOf(v[i]);
      if (et != "string") allStrings = false;
      if (et == "bigint") continue;
      if (et != "number" || !val::global("Number").call<bool>("isInteger", v[i])) allInts = false;
    }
    if (allStrings || type == "strings" || type == "enums") return toStrings(v);
    if (type == "ints" && n > 0) {  // booleans as 0 / 1 (multiconv's enableConvDithering)
      bool allBools = true;
      for (unsigned i = 0; i < n; ++i) allBools = allBools && typeOf(v[i]) == "boolean";
      if (allBools) {
        std::vector<int64_t> r;
        for (unsigned i = 0; i < n; ++i) r.push_back(v[i].as<bool>() ? 1 : 0);
        return r;
      }
    }
    if (allInts) return toInts(v, what);
    std::vector<double> d;
    for (unsigned i = 0; i < n; ++i) {
      if (typeOf(v[i]) != "number") throw error("{}[{}] must be a number (got {})", what, i, typeOf(v[i]));
      d.push_back(v[i].as<double>());
    }
    return d;
  }
  if (t == "boolean") return v.as<bool>();
  if (t == "string") return v.as<std::string>();
  if (t == "bigint") return toInt(v, what);
  if (t == "number") {
    const double d = v.as<double>();
    if (val::global("Number").call<bool>("isSafeInteger", v)) return static_cast<int64_t>(d);
    return d;
  }
  throw error("{} cannot be set from a JavaScript {}", what, t);
}

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
      o.set(name, optionValueFrom(v, info->type, "SessionOptions." + name));
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

void checkSessionOptions(const val& spec) {
  guarded([&] { sessionOptionsFrom(spec); });
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

/// The names of report::MemoryCategory, in its order.
val memoryCategories() {
  val a = val::array();
  for (int k = 0; k < static_cast<int>(report::MemoryCategory::N); ++k)
    a.set(k, std::string(report::memoryCategoryName(static_cast<report::MemoryCategory>(k))));
  return a;
}

/// The IPU generations the devices model (the core's ipuTargetList: public figures of the chips).
val ipuTargetsJs() {
  val a = val::array();
  const auto& list = ipuTargetList();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const IpuTargetInfo& t = list[i];
    val o = val::object();
    o.set("version", t.version);
    o.set("product", t.product);
    o.set("tilesPerIpu", t.tilesPerIpu);
    o.set("bytesPerTile", static_cast<double>(t.bytesPerTile));
    o.set("clockHz", t.clockHz);
    o.set("workerContexts", t.workerContexts);
    o.set("ipuLinksPerIpu", t.ipuLinksPerIpu);
    a.set(i, o);
  }
  return a;
}

/// {EnumName: [value names]} of every public enum.
/// {reservedGradientPrefix: "Gradient___", ...}: PopART's reserved name parts (popart/names.hpp).
val reservedPrefixesJs() {
  val o = val::object();
  for (const auto& [name, value] : reservedPrefixList()) o.set(name, value);
  return o;
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

/// [{domain, type, version}]: the ops this runtime runs (popart/opmanager.hpp).
val supportedOperationsJs(bool includeInternal) {
  return jsArrayOf(OpManager::getSupportedOperations(includeInternal), [](const OperatorIdentifier& o) {
    val e = val::object();
    e.set("domain", o.domain);
    e.set("type", o.type);
    e.set("version", o.version);
    return e;
  });
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

/// {type: 'cpu' | 'ipuModel' | 'offlineIpu' | 'sim', options: {...}}
std::shared_ptr<DeviceInfo> deviceFrom(const val& spec) {
  auto& dm = DeviceManager::createDeviceManager();
  const auto type = spec["type"].as<std::string>();
  std::map<std::string, std::string> opts;
  val o = spec["options"];
  if (!isUndef(o)) {
    for (const auto& k : toStrings(val::global("Object").call<val>("keys", o)))
      opts[k] = val::global("String")(o[k]).as<std::string>();
  }
  if (type == "cpu") return dm.createCpuDevice();
  if (type == "ipuModel") return dm.createIpuModelDevice(opts);
  if (type == "offlineIpu") return dm.createOfflineIPUDevice(opts);
  if (type == "sim") return dm.createSimDevice(opts);
  throw error("Unknown device type '{}' (expected cpu, ipuModel, offlineIpu or sim)", type);
}

/// A session's device: the spec, or (none given) the core's default for `form`.
std::shared_ptr<DeviceInfo> sessionDeviceFrom(const val& spec, const std::string& form) {
  return isUndef(spec) ? defaultSessionDevice(form) : deviceFrom(spec);
}

val deviceInfoJs(const DeviceInfo& d) {
  val o = val::object();
  static const std::map<DeviceType, std::string> types{{DeviceType::Cpu, "cpu"},
                                                       {DeviceType::IpuModel, "ipuModel"},
                                                       {DeviceType::OfflineIpu, "offlineIpu"},
                                                       {DeviceType::Sim, "sim"},
                                                       {DeviceType::Ipu, "ipu"}};
  o.set("type", types.at(d.getType()));
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

/// {key: [value, isConst]} -> the map the optimizer constructors take.
std::map<std::string, std::pair<float, bool>> optimizerParams(const val& o) {
  std::map<std::string, std::pair<float, bool>> m;
  if (isUndef(o)) return m;
  for (const auto& k : toStrings(val::global("Object").call<val>("keys", o))) {
    val v = o[k];
    m[k] = {toFloat(v[0], "optimizer value '" + k + "'"), v[1].as<bool>()};
  }
  return m;
}

template <typename Opt>
void insertSpecifics(Opt& opt, const val& spec) {
  val sp = spec["specific"];
  if (isUndef(sp)) return;
  for (const auto& id : toStrings(val::global("Object").call<val>("keys", sp)))
    opt.insertSpecific(id, optimizerParams(sp[id]));
}

/// [{weights: [ids], maxNorm} | {allWeights: true, maxNorm}] -> ClipNormSettings.
std::vector<ClipNormSettings> clipNormsFrom(const val& arr) {
  std::vector<ClipNormSettings> out;
  if (isUndef(arr)) return out;
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

/// {type: 'SGD' | 'ConstSGD' | 'Adam' | 'Adaptive', params, specific, mode, weightDecayMode,
///  clipNormSettings, ...}
std::unique_ptr<Optimizer> optimizerFrom(const val& spec) {
  const auto type = spec["type"].as<std::string>();
  if (type == "ConstSGD") {
    val p = spec["params"];
    return std::make_unique<ConstSGD>(
        toFloat(p["learningRate"], "ConstSGD learningRate"), toFloat(p["weightDecay"], "ConstSGD weightDecay"),
        toFloat(p["lossScaling"], "ConstSGD lossScaling"), clipNormsFrom(spec["clipNormSettings"]));
  }
  if (type == "SGD") {
    const auto am =
        enumFrom(spec["accumulatorAndMomentum"], SGDAccumulatorAndMomentum::Combined, "SGD accumulatorAndMomentum");
    // SGD(learningRate): poponnx's / early PopART's form (a non-const learning rate).
    auto o = isUndef(spec["learningRate"])
                 ? std::make_unique<SGD>(optimizerParams(spec["params"]), clipNormsFrom(spec["clipNormSettings"]), am)
                 : std::make_unique<SGD>(spec["learningRate"].as<double>());
    insertSpecifics(*o, spec);
    return o;
  }
  const auto wdm = enumFrom(spec["weightDecayMode"], WeightDecayMode::Decay, type + " weightDecayMode");
  if (type == "Adam") {
    auto o = std::make_unique<Adam>(optimizerParams(spec["params"]),
                                    enumFrom(spec["mode"], AdamMode::Adam, "Adam mode"), wdm, DataType::UNDEFINED,
                                    DataType::FLOAT, DataType::FLOAT, clipNormsFrom(spec["clipNormSettings"]));
    insertSpecifics(*o, spec);
    return o;
  }
  if (type == "Adaptive") {
    const bool tf = !isUndef(spec["rmspropTFVariant"]) && spec["rmspropTFVariant"].as<bool>();
    auto o = std::make_unique<Adaptive>(optimizerParams(spec["params"]),
                                        enumFrom(spec["mode"], AdaptiveMode::RMSProp, "Adaptive mode"), wdm,
                                        DataType::UNDEFINED, DataType::FLOAT, DataType::FLOAT, DataType::UNDEFINED, tf);
    insertSpecifics(*o, spec);
    return o;
  }
  throw error("Unknown optimizer type '{}' (expected SGD, ConstSGD, Adam or Adaptive)", type);
}

void checkOptimizer(const val& spec) {
  guarded([&] { optimizerFrom(spec); });
}

// ---------------------------------------------------------------- losses (pre-1.2 API)

/// [{type: 'Nll' | 'L1' | 'IdentityLoss', inputs, output, reduction, ignoreIndex?,
///   inputIsLogProbability?, lambda?}] -> the loss objects.
std::vector<std::unique_ptr<Loss>> lossesFrom(const val& arr) {
  std::vector<std::unique_ptr<Loss>> out;
  const auto n = arr["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    val l = arr[i];
    const auto type = l["type"].as<std::string>();
    const auto in = toStrings(l["inputs"]);
    const auto output = l["output"].as<std::string>();
    const ReductionType r = reductionTypeFromString(l["reduction"].as<std::string>());
    if (type == "Nll" && in.size() == 2) {
      if (isUndef(l["ignoreIndex"]))
        out.push_back(std::make_unique<NllLoss>(in[0], in[1], output, r));
      else
        out.push_back(std::make_unique<NllLoss>(in[0], in[1], output, toInt32(l["ignoreIndex"], "NllLoss ignoreIndex"),
                                                r, l["inputIsLogProbability"].as<bool>()));
    } else if (type == "L1" && in.size() == 1) {
      out.push_back(std::make_unique<L1Loss>(in[0], output, toFloat(l["lambda"], "L1Loss lambda"), r));
    } else if (type == "IdentityLoss" && in.size() == 1) {
      out.push_back(std::make_unique<IdentityLoss>(in[0], output, r));
    } else {
      throw error("Unknown loss {} '{}' with {} inputs", i, type, in.size());
    }
  }
  return out;
}

std::vector<Loss*> rawLosses(const std::vector<std::unique_ptr<Loss>>& v) {
  std::vector<Loss*> out;
  for (const auto& l : v) out.push_back(l.get());
  return out;
}

// ---------------------------------------------------------------- Builder

/// Owns a top-level Builder, or points into one for subgraph builders (the parent owns those).
class BuilderJs {
 public:
  explicit BuilderJs(std::shared_ptr<Builder> root) : root_(std::move(root)), b_(root_.get()) {}
  BuilderJs(std::shared_ptr<Builder> root, Builder* sub) : root_(std::move(root)), b_(sub) {}

  static BuilderJs* create() { return new BuilderJs(std::shared_ptr<Builder>(Builder::create())); }
  static BuilderJs* createFromOnnxModel(const val& bytes) {
    return guarded(
        [&] { return new BuilderJs(std::shared_ptr<Builder>(Builder::createFromOnnxModel(bytesFrom(bytes)))); });
  }

  BuilderJs* createSubgraphBuilder() {
    return guarded([&] { return new BuilderJs(root_, &b_->createSubgraphBuilder()); });
  }
  void setGraphName(const std::string& n) {
    guarded([&] { b_->setGraphName(n); });
  }

  std::string addInputTensor(const std::string& dtype, const val& shape, const std::string& name) {
    return guarded([&] { return b_->addInputTensor(dtype, toInts(shape, "addInputTensor shape"), name); });
  }
  std::string addUntypedInputTensor(const std::string& name) {
    return guarded([&] { return b_->addUntypedInputTensor(name); });
  }
  void addInputTensorFromParentGraph(const std::string& id) {
    guarded([&] { b_->addInputTensorFromParentGraph(id); });
  }
  std::string addInitializedInputTensor(const val& nd, const std::string& name) {
    return guarded([&] {
      NDArray a = ndarrayFrom(nd);
      return b_->addInitializedInputTensor(ConstVoidData(a.data(), a.info()), name);
    });
  }
  void addOutputTensor(const std::string& id) {
    guarded([&] { b_->addOutputTensor(id); });
  }

  int getOnnxOpsetVersion() {
    return guarded([&] { return b_->getOnnxOpsetVersion(); });
  }
  void useOpset(const std::string& domain, int version) {
    guarded([&] { b_->useOpset(domain, version); });
  }

  /// attrs: [[name, type, value], ...] with type i | f | s | ints | floats | strings | t | g | dtype
  val op(const std::string& domain, const val& versionJs, const std::string& type, const val& inputs,
         const val& numOutputsJs, const val& attrs, const std::string& name, int minInputs, int maxInputs) {
    return guarded([&] {
      const int version = toInt32(versionJs, type + " opset version", 1);
      const auto numOutputs = static_cast<unsigned>(toInt32(numOutputsJs, type + " numOutputs", 0));
      std::map<std::string, any> a;
      std::vector<NDArray> tensors;  // keeps tensor attribute data alive until the node is added
      tensors.reserve(attrs["length"].as<unsigned>());
      for (unsigned i = 0; i < attrs["length"].as<unsigned>(); ++i) {
        val e = attrs[i];
        const auto n = e[0].as<std::string>();
        const auto t = e[1].as<std::string>();
        val v = e[2];
        const std::string what = type + " attribute '" + n + "'";
        if (t == "i")
          a[n] = typeOf(v) == "boolean" ? int64_t{v.as<bool>()} : toInt(v, what);
        else if (t == "f")
          a[n] = v.as<float>();
        else if (t == "s")
          a[n] = v.as<std::string>();
        else if (t == "ints")
          a[n] = toInts(v, what);
        else if (t == "floats")
          a[n] = toFloats(v);
        else if (t == "strings")
          a[n] = toStrings(v);
        else if (t == "dtype")
          a[n] = static_cast<int64_t>(onnxDataType(dataTypeFromString(v.as<std::string>())));
        else if (t == "t") {
          tensors.push_back(ndarrayFrom(v));
          a[n] = ConstVoidData(tensors.back().data(), tensors.back().info());
        } else if (t == "g") {
          a[n] = static_cast<const Builder*>(v.as<BuilderJs*>(emscripten::allow_raw_pointers())->b_);
        } else {
          throw error("internal: attribute '{}' has unknown type code '{}'", n, t);
        }
      }
      return jsStrings(
          b_->opsetOp(domain, version, type, toStrings(inputs), numOutputs, a, name, minInputs, maxInputs));
    });
  }

  /// aiGraphcore.<name>(args, params): params hold the attributes by name (marshalled by the
  /// types of the core's table) and the debugContext.
  val graphcore(const std::string& name, const val& args, const val& p) {
    return guarded([&] {
      std::map<std::string, OptionValue> attrs;
      std::map<std::string, const Builder*> graphs;
      for (const auto& op : graphcoreOpList()) {
        if (op.method != name) continue;
        for (const auto& a : op.attrs) {
          if (isUndef(p[a.name])) continue;
          if (a.type == "graph")  // the JS layer passes the subgraph Builder's handle
            graphs[a.name] = p[a.name].as<BuilderJs*>(emscripten::allow_raw_pointers())->b_;
          else
            attrs[a.name] = optionValueFrom(p[a.name], a.type, "aiGraphcore." + name + " " + a.name);
        }
      }
      const std::string dn = isUndef(p["debugContext"]) ? std::string() : p["debugContext"].as<std::string>();
      for (const auto& op : graphcoreOpList()) {
        if (op.method != name || op.inputsForm != "groups") continue;
        if (!val::global("Array").call<bool>("isArray", args))
          throw error("aiGraphcore.{} args must be an array of input arrays ([[x0, w0(, b0)], ...])", name);
        std::vector<std::vector<TensorId>> groups;
        const auto n = args["length"].as<unsigned>();
        for (unsigned i = 0; i < n; ++i) {
          if (!val::global("Array").call<bool>("isArray", args[i]))
            throw error("aiGraphcore.{} args[{}] must be an array of tensor ids", name, i);
          groups.push_back(toStrings(args[i]));
        }
        return jsStrings(b_->aiGraphcoreOpset1().callGroupsMethod(name, groups, attrs, dn));
      }
      return jsStrings(b_->aiGraphcoreOpset1().callMethod(name, toStrings(args), attrs, graphs, dn));
    });
  }

  val getModelProto(bool humanReadable) {
    return guarded([&] {
      const std::string s = b_->getModelProto(humanReadable);
      return u8Copy(s.data(), s.size());
    });
  }

  /// saveInitializersExternally without a file system: the data file's bytes (index.mjs writes
  /// them with Node's fs; a browser keeps them).
  val saveInitializersExternallyToBytes(const val& ids, const std::string& location) {
    return guarded([&] {
      const std::string s = b_->saveInitializersExternallyToBytes(toStrings(ids), location);
      return u8Copy(s.data(), s.size());
    });
  }

  val getTensorShape(const std::string& id) {
    return guarded([&] { return jsShape(b_->getTensorShape(id)); });
  }
  std::string getTensorDtypeString(const std::string& id) {
    return guarded([&] { return b_->getTensorDtypeString(id); });
  }
  bool isInitializer(const std::string& id) {
    return guarded([&] { return b_->isInitializer(id); });
  }
  val getInputTensorIds() {
    return guarded([&] { return jsStrings(b_->getInputTensorIds()); });
  }
  val getOutputTensorIds() {
    return guarded([&] { return jsStrings(b_->getOutputTensorIds()); });
  }
  val getValueTensorIds() {
    return guarded([&] { return jsStrings(b_->getValueTensorIds()); });
  }
  val getTrainableTensorIds() {
    return guarded([&] { return jsStrings(b_->getTrainableTensorIds()); });
  }
  void pushNameScope(const std::string& s) {
    guarded([&] { b_->pushNameScope(s); });
  }
  void popNameScope() {
    guarded([&] { b_->popNameScope(); });
  }
  std::string getNameScope(const std::string& s) {
    return guarded([&] { return b_->getNameScope(s); });
  }

  void addNodeAttribute(const std::string& name, const std::string& type, const val& v, const val& outs) {
    guarded([&] {
      const auto o = toStrings(outs);
      const std::set<TensorId> ids(o.begin(), o.end());
      const std::string what = "addNodeAttribute '" + name + "'";
      if (type == "i")
        b_->addNodeAttribute(name, toInt(v, what), ids);
      else if (type == "f")
        b_->addNodeAttribute(name, v.as<float>(), ids);
      else if (type == "s")
        b_->addNodeAttribute(name, v.as<std::string>(), ids);
      else if (type == "ints")
        b_->addNodeAttribute(name, toInts(v, what), ids);
      else if (type == "floats")
        b_->addNodeAttribute(name, toFloats(v), ids);
      else if (type == "strings")
        b_->addNodeAttribute(name, toStrings(v), ids);
      else
        throw error("addNodeAttribute: unknown attribute type '{}'", type);
    });
  }
  bool nodeHasAttribute(const std::string& name, const val& outs) {
    return guarded([&] {
      const auto o = toStrings(outs);
      return b_->nodeHasAttribute(name, std::set<TensorId>(o.begin(), o.end()));
    });
  }
  val getAllNodeAttributeNames(const val& outs) {
    return guarded([&] {
      const auto o = toStrings(outs);
      return jsStrings(b_->getAllNodeAttributeNames(std::set<TensorId>(o.begin(), o.end())));
    });
  }
  void virtualGraph(const val& outs, const val& v) {
    guarded([&] {
      const auto o = toStrings(outs);
      b_->virtualGraph(std::set<TensorId>(o.begin(), o.end()), toInt(v, "virtualGraph value"));
    });
  }
  void pipelineStage(const val& outs, const val& v) {
    guarded([&] {
      const auto o = toStrings(outs);
      b_->pipelineStage(std::set<TensorId>(o.begin(), o.end()), toInt(v, "pipelineStage value"));
    });
  }
  /// `v`: a RecomputeType name ("Recompute") or its number.
  void recomputeOutputInBackwardPass(const std::string& id, const val& v) {
    guarded([&] {
      if (typeOf(v) == "string")
        b_->recomputeOutputInBackwardPass(id, enumFromString<RecomputeType>(v.as<std::string>()));
      else
        b_->recomputeOutputInBackwardPass(id, toInt(v, "recomputeOutputInBackwardPass value"));
    });
  }
  val checkpointOutput(const val& ids) {
    return guarded([&] { return jsStrings(b_->checkpointOutput(toStrings(ids))); });
  }
  /// The node's virtual graph / pipeline stage (`id` a string), or the current scope's (undefined).
  double getVirtualGraph(const val& id) {
    return guarded([&] {
      return static_cast<double>(id.isUndefined() ? b_->getVirtualGraph() : b_->getVirtualGraph(id.as<std::string>()));
    });
  }
  double getPipelineStage(const val& id) {
    return guarded([&] {
      return static_cast<double>(id.isUndefined() ? b_->getPipelineStage()
                                                  : b_->getPipelineStage(id.as<std::string>()));
    });
  }
  bool hasVirtualGraph() { return b_->hasVirtualGraph(); }
  bool hasPipelineStage() { return b_->hasPipelineStage(); }
  bool hasExecutionPhase() { return b_->hasExecutionPhase(); }
  void setAvailableMemoryProportion(const std::string& id, float v) {
    guarded([&] { b_->setAvailableMemoryProportion(id, v); });
  }
  void setPartialsType(const std::string& id, const std::string& t) {
    guarded([&] { b_->setPartialsType(id, t); });
  }
  void excludePatterns(const std::string& id, const val& names) {
    guarded([&] { b_->excludePatterns(id, toStrings(names)); });
  }

 private:
  std::shared_ptr<Builder> root_;
  Builder* b_;
};

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
  void run(const val& inputs, const val& anchors, const std::string& debugName) {
    guarded([&] { withStepIO(inputs, anchors, [&](IStepIO& io) { s_->run(io, debugName); }); });
  }

  /// A StepIO over copies of `inputs` and buffers for `anchors` (shaped by the main session), given
  /// to `step`; the buffers are then copied into the JS arrays.
  template <typename F>
  void withStepIO(const val& inputs, const val& anchors, F&& step) {
    {
      std::map<TensorId, NDArray> in, out;
      for (const auto& id : toStrings(val::global("Object").call<val>("keys", inputs)))
        in.emplace(id, ndarrayFrom(inputs[id]));
      const auto outIds = toStrings(val::global("Object").call<val>("keys", anchors));
      for (const auto& id : outIds) {
        // An array of the wrong size gets the core's element-count error, as natively.
        Shape shape = s_->getAnchorShape(id);
        const auto n = anchors[id]["length"].as<double>();
        if (n != static_cast<double>(TensorInfo(DataType::FLOAT, shape).nelms())) shape = {static_cast<int64_t>(n)};
        out.emplace(id, NDArray(s_->getInfo(id).dataType(), shape));
      }
      std::map<TensorId, IArray&> inRefs, outRefs;
      for (auto& kv : in) inRefs.emplace(kv.first, kv.second);
      for (auto& kv : out) outRefs.emplace(kv.first, kv.second);
      StepIO io(inRefs, outRefs);
      step(io);
      for (const auto& id : outIds) {
        NDArray& a = out.at(id);
        if (a.info().dataType() == DataType::STRING) {
          val dst = anchors[id];
          const auto* s = a.dataAs<std::string>();
          for (std::size_t i = 0; i < a.nelms(); ++i) dst.set(i, s[i]);
        } else {
          copyToJs(anchors[id], a.data(), static_cast<std::size_t>(a.info().nbytes()));
        }
      }
    }
  }

  /// weights: {id: TypedArray} filled with the host copy of each weight.
  void readWeights(const val& weights) {
    guarded([&] {
      const auto ids = toStrings(val::global("Object").call<val>("keys", weights));
      std::map<TensorId, NDArray> bufs;
      WeightsIO io;
      for (const auto& id : ids) {
        auto& a = bufs.emplace(id, NDArray(s_->getInfo(id))).first->second;
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
  /// report::Report as a plain object with the struct's field names (its JSON, parsed).
  val getReport() {
    return guarded([&] { return val::global("JSON").call<val>("parse", nlohmann::json(s_->getReport()).dump()); });
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
  val getMemoryStats() {
    return guarded([&] {
      const auto m = s_->getMemoryStats();
      val o = val::object();
      o.set("weightBytes", static_cast<double>(m.weightBytes));
      o.set("activationArenaBytes", static_cast<double>(m.activationArenaBytes));
      return o;
    });
  }

 private:
  std::unique_ptr<Session> owned_;
  std::unique_ptr<LegacySession> legacy_;
  Session* s_;
};

// ---------------------------------------------------------------- GraphTransformer

/// popart::GraphTransformer over model bytes (a browser has no file paths; index.mjs reads a
/// path with Node's fs and writes external data files).
class GraphTransformerJs {
 public:
  static GraphTransformerJs* create(const val& bytes) {
    return guarded([&] { return new GraphTransformerJs(bytesFrom(bytes)); });
  }
  val getModelProto() {
    return guarded([&] {
      const std::string s = g_.getModelProto();
      return u8Copy(s.data(), s.size());
    });
  }
  /// One of the element type conversions (or removeUnusedInputs / prepareNodesForTraining /
  /// convertAllFixedPointInitializersToConstants) by its C++ name.
  void transform(const std::string& name, bool clip) {
    guarded([&] {
      using GT = GraphTransformer;
      static const std::map<std::string, void (GT::*)()> methods{
          {"removeUnusedInputs", &GT::removeUnusedInputs},
          {"prepareNodesForTraining", &GT::prepareNodesForTraining},
          {"convertFloatsToHalfs", &GT::convertFloatsToHalfs},
          {"convertUINT8ToINT32", &GT::convertUINT8ToINT32},
          {"convertUINT16ToINT32", &GT::convertUINT16ToINT32},
          {"convertINT8ToINT32", &GT::convertINT8ToINT32},
          {"convertINT16ToINT32", &GT::convertINT16ToINT32},
          {"convertDoublesToFloats", &GT::convertDoublesToFloats},
          {"convertDoublesToHalfs", &GT::convertDoublesToHalfs},
          {"convertBFloats16ToFloat32", &GT::convertBFloats16ToFloat32},
          {"convertAllFixedPointInitializersToConstants", &GT::convertAllFixedPointInitializersToConstants},
      };
      if (name == "convertINT64ToINT32") return g_.convertINT64ToINT32(clip);
      auto it = methods.find(name);
      if (it == methods.end()) throw error("GraphTransformer has no method '{}'", name);
      (g_.*(it->second))();
    });
  }
  void convertInitializersToConstants(const val& ids) {
    guarded([&] { g_.convertInitializersToConstants(toStrings(ids)); });
  }
  val saveInitializersExternallyToBytes(const val& ids, const std::string& location) {
    return guarded([&] {
      const std::string s = g_.saveInitializersExternallyToBytes(toStrings(ids), location);
      return u8Copy(s.data(), s.size());
    });
  }

 private:
  explicit GraphTransformerJs(const std::string& bytes) : g_(bytes) {}
  GraphTransformer g_;
};

}  // namespace
}  // namespace wasm
}  // namespace popart

EMSCRIPTEN_BINDINGS(popart) {
  using namespace emscripten;
  using popart::wasm::BuilderJs;
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
  function("checkSessionOptions", &w::checkSessionOptions);
  function("checkDevice", &w::checkDevice);
  function("acquireDevice", &w::acquireDevice);
  function("checkOptimizer", &w::checkOptimizer);
  function("setLogLevel", &w::setLogLevel);
  function("getLogLevel", &w::getLogLevel);
  function("heapInUse", &w::heapInUse);
  function("setNumThreads", &w::setNumThreads);
  function("setModuleMaximumMemory", &w::setModuleMaximumMemory);
  function("setMemoryLimit", &w::setMemoryLimitJs);
  function("getMemoryLimit", &w::getMemoryLimitJs);
  function("sessionOptionsDefaults", &w::sessionOptionsDefaults);
  function("sessionOptionsList", &w::sessionOptionsList);
  function("enums", &w::enumsJs);
  function("reservedPrefixes", &w::reservedPrefixesJs);
  function("versionInfo", &w::versionInfoJs);
  function("getSupportedOperations", &w::supportedOperationsJs);
  function("memoryCategories", &w::memoryCategories);
  function("ipuTargets", &w::ipuTargetsJs);
  function("optimizerParams", &w::optimizerParamsJs);
  function("patternList", &w::patternListJs);
  function("graphcoreOps", &w::graphcoreOpsJs);
  function("enumerateDevices", &w::enumerateDevices);
  function("getNumThreads", &w::getNumThreads);
  function("describeModel", &w::describeModelJs);

  class_<BuilderJs>("BuilderHandle")
      .class_function("create", &BuilderJs::create, allow_raw_pointers())
      .class_function("createFromOnnxModel", &BuilderJs::createFromOnnxModel, allow_raw_pointers())
      .function("createSubgraphBuilder", &BuilderJs::createSubgraphBuilder, allow_raw_pointers())
      .function("setGraphName", &BuilderJs::setGraphName)
      .function("addInputTensor", &BuilderJs::addInputTensor)
      .function("addUntypedInputTensor", &BuilderJs::addUntypedInputTensor)
      .function("addInputTensorFromParentGraph", &BuilderJs::addInputTensorFromParentGraph)
      .function("addInitializedInputTensor", &BuilderJs::addInitializedInputTensor)
      .function("addOutputTensor", &BuilderJs::addOutputTensor)
      .function("useOpset", &BuilderJs::useOpset)
      .function("getOnnxOpsetVersion", &BuilderJs::getOnnxOpsetVersion)
      .function("op", &BuilderJs::op)
      .function("graphcore", &BuilderJs::graphcore)
      .function("getModelProto", &BuilderJs::getModelProto)
      .function("saveInitializersExternallyToBytes", &BuilderJs::saveInitializersExternallyToBytes)
      .function("getTensorShape", &BuilderJs::getTensorShape)
      .function("getTensorDtypeString", &BuilderJs::getTensorDtypeString)
      .function("isInitializer", &BuilderJs::isInitializer)
      .function("getInputTensorIds", &BuilderJs::getInputTensorIds)
      .function("getOutputTensorIds", &BuilderJs::getOutputTensorIds)
      .function("getValueTensorIds", &BuilderJs::getValueTensorIds)
      .function("getTrainableTensorIds", &BuilderJs::getTrainableTensorIds)
      .function("pushNameScope", &BuilderJs::pushNameScope)
      .function("popNameScope", &BuilderJs::popNameScope)
      .function("getNameScope", &BuilderJs::getNameScope)
      .function("addNodeAttribute", &BuilderJs::addNodeAttribute)
      .function("nodeHasAttribute", &BuilderJs::nodeHasAttribute)
      .function("getAllNodeAttributeNames", &BuilderJs::getAllNodeAttributeNames)
      .function("virtualGraph", &BuilderJs::virtualGraph)
      .function("pipelineStage", &BuilderJs::pipelineStage)
      .function("recomputeOutputInBackwardPass", &BuilderJs::recomputeOutputInBackwardPass)
      .function("checkpointOutput", &BuilderJs::checkpointOutput)
      .function("getVirtualGraph", &BuilderJs::getVirtualGraph)
      .function("getPipelineStage", &BuilderJs::getPipelineStage)
      .function("hasVirtualGraph", &BuilderJs::hasVirtualGraph)
      .function("hasPipelineStage", &BuilderJs::hasPipelineStage)
      .function("hasExecutionPhase", &BuilderJs::hasExecutionPhase)
      .function("setAvailableMemoryProportion", &BuilderJs::setAvailableMemoryProportion)
      .function("setPartialsType", &BuilderJs::setPartialsType)
      .function("excludePatterns", &BuilderJs::excludePatterns);

  class_<GraphTransformerJs>("GraphTransformerHandle")
      .class_function("create", &GraphTransformerJs::create, allow_raw_pointers())
      .function("getModelProto", &GraphTransformerJs::getModelProto)
      .function("transform", &GraphTransformerJs::transform)
      .function("convertInitializersToConstants", &GraphTransformerJs::convertInitializersToConstants)
      .function("saveInitializersExternallyToBytes", &GraphTransformerJs::saveInitializersExternallyToBytes);

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
      .function("getMemoryStats", &SessionJs::getMemoryStats);
}
