// Shared by the binding files (bindings.cpp, builder_js.cpp): the error slot every entry point
// reports through (guarded: no C++ exception crosses into JS), and the conversions between JS
// values and the core's types. Marshalling only.
#pragma once

#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "popart/popart.hpp"
#include "popart/reflection.hpp"
#include "popart/variablesettings.hpp"

namespace popart {
namespace wasm {

using emscripten::val;

/// The last failed call, taken by the JS layer (takeError) right after each call: the message and
/// the exception's own fields (OutOfMemoryException's summary report). No exception ever crosses
/// into JS: a JS throw through wasm frames would skip C++ destructors (leaking what they own), so
/// errors are reported through this slot instead.
struct LastError {
  std::string message;
  std::string errorClass;     ///< the exception's class in popart::errorClasses()
  std::string summaryReport;  ///< OutOfMemoryException::getSummaryReport()
  std::string profilePath;    ///< OutOfMemoryException::getProfilePath()
  std::string graphReport;    ///< OutOfMemoryException::getGraphReport()
  bool outOfMemory = false;
};
inline LastError& lastError() {
  static LastError e;
  return e;
}
inline bool& hasError() {
  static bool h = false;
  return h;
}

template <class F>
inline auto guarded(F&& f) -> decltype(f()) {
  using R = decltype(f());
  try {
    return f();
  } catch (const std::bad_alloc&) {
    lastError().errorClass = "OutOfMemoryException";
    lastError().message =
        format("out of memory: the WebAssembly module could not allocate more memory (heap {} bytes; memory limit {})",
               emscripten_get_heap_size(), describeMemoryLimit());
  } catch (const OutOfMemoryException& e) {
    lastError().errorClass = errorClassOf(e);
    lastError().message = e.what();
    lastError().summaryReport = e.getSummaryReport();
    lastError().profilePath = e.getProfilePath();
    lastError().graphReport = e.getGraphReport();
    lastError().outOfMemory = true;
  } catch (const std::exception& e) {
    lastError().errorClass = errorClassOf(e);
    lastError().message = e.what();
  } catch (...) {
    lastError().errorClass = "popart_exception";
    lastError().message = "unknown C++ exception";
  }
  hasError() = true;
  if constexpr (std::is_same_v<R, val>) {
    return val::undefined();
  } else if constexpr (!std::is_void_v<R>) {
    return R{};
  }
}

/// null, or {message, errorClass, summaryReport?, profilePath?, graphReport?}: the JS layer throws an instance of
/// the class `errorClass` (popart.popart_exception, ...) with these fields.
inline val takeError() {
  if (!hasError()) return val::null();
  hasError() = false;
  val e = val::object();
  e.set("message", lastError().message);
  e.set("errorClass", lastError().errorClass);
  if (lastError().outOfMemory) {
    e.set("summaryReport", lastError().summaryReport);
    e.set("profilePath", lastError().profilePath);
    e.set("graphReport", lastError().graphReport);
  }
  lastError() = LastError{};
  return e;
}

// ---------------------------------------------------------------- conversions

inline bool isUndef(const val& v) {
  return v.isUndefined() || v.isNull();
}

inline std::string typeOf(const val& v) {
  return v.typeOf().as<std::string>();
}

inline std::vector<std::string> toStrings(const val& arr) {
  std::vector<std::string> out;
  if (isUndef(arr)) return out;
  const auto n = arr["length"].as<unsigned>();
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.push_back(arr[i].as<std::string>());
  return out;
}

/// A JS array of tensor ids as the set the Builder's node lookups take (the node making them all).
inline std::set<std::string> toIdSet(const val& arr) {
  const auto v = toStrings(arr);
  return {v.begin(), v.end()};
}

/// How a JS value reads in an error message: 2.5, NaN, the string "3", undefined, an object, ...
inline std::string describe(const val& v) {
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
inline int64_t toInt(const val& v, const std::string& what, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) {
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

inline int toInt32(const val& v, const std::string& what, int lo = INT32_MIN) {
  return static_cast<int>(toInt(v, what, lo, INT32_MAX));
}

/// An Array (or TypedArray) of integers; element i is named `what[i]` in errors.
inline std::vector<int64_t> toInts(const val& arr, const std::string& what) {
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
inline float toFloat(const val& v, const std::string& what) {
  if (typeOf(v) == "number" && std::isfinite(v.as<double>())) return v.as<float>();
  throw error("{} must be a finite number, got {}", what, describe(v));
}

inline std::vector<float> toFloats(const val& arr) {
  std::vector<float> out;
  const auto n = arr["length"].as<unsigned>();
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.push_back(arr[i].as<float>());
  return out;
}

inline val jsStrings(const std::vector<std::string>& v) {
  val a = val::array();
  for (std::size_t i = 0; i < v.size(); ++i) a.set(i, v[i]);
  return a;
}

inline val jsShape(const Shape& s) {
  val a = val::array();
  for (std::size_t i = 0; i < s.size(); ++i) a.set(i, static_cast<double>(s[i]));
  return a;
}

/// Bytes of a Uint8Array (or any TypedArray / ArrayBuffer view) with one TypedArray.set.
inline std::string bytesFrom(const val& src) {
  val u8 = val::global("Uint8Array").new_(src["buffer"], src["byteOffset"], src["byteLength"]);
  const auto n = u8["length"].as<std::size_t>();
  std::string buf(n, '\0');
  if (n) val(emscripten::typed_memory_view(n, reinterpret_cast<unsigned char*>(&buf[0]))).call<void>("set", u8);
  return buf;
}

/// A new Uint8Array holding a copy of `bytes`.
inline val u8Copy(const void* bytes, std::size_t n) {
  val view(emscripten::typed_memory_view(n, static_cast<const unsigned char*>(bytes)));
  return val::global("Uint8Array").new_(view);  // copies out of the wasm heap
}

/// A report from the core: JSON text as a string, CBOR bytes as a Uint8Array.
inline val reportJs(const std::string& s, bool cbor) {
  return cbor ? u8Copy(s.data(), s.size()) : val(s);
}

/// Installs `fn(path, bytes: Uint8Array) -> null | message` (index.mjs: Node's fs, or nothing
/// written in a browser) as the writer of autoReport's files; undefined restores the core's.
inline void setFileWriter(const val& fn) {
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
inline void copyToJs(const val& dst, const void* src, std::size_t n) {
  val u8 = val::global("Uint8Array").new_(dst["buffer"], dst["byteOffset"], dst["byteLength"]);
  if (u8["length"].as<std::size_t>() != n)
    throw error("internal: destination holds {} bytes, {} expected", u8["length"].as<std::size_t>(), n);
  if (n) u8.call<void>("set", val(emscripten::typed_memory_view(n, static_cast<const unsigned char*>(src))));
}

/// Copies the JS TypedArray `src` into `n` bytes at `dst`.
inline void copyFromJs(void* dst, std::size_t n, const val& src) {
  val u8 = val::global("Uint8Array").new_(src["buffer"], src["byteOffset"], src["byteLength"]);
  if (u8["length"].as<std::size_t>() != n)
    throw error("internal: source holds {} bytes, {} expected", u8["length"].as<std::size_t>(), n);
  if (n) val(emscripten::typed_memory_view(n, static_cast<unsigned char*>(dst))).call<void>("set", u8);
}

/// {data: TypedArray | string[], shape: number[], dtype: 'FLOAT'} -> NDArray (the JS layer has
/// already checked that the data's length matches the shape).
inline NDArray ndarrayFrom(const val& nd) {
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

/// The enum value named by a JS string (or the number of a value), checked by the core's table.
template <typename E>
E enumFromJs(const val& v, const std::string& what) {
  if (typeOf(v) == "number") {
    const auto n = static_cast<int64_t>(enumInfo(EnumTraits<E>::name()).values.size());
    return static_cast<E>(toInt(v, what, 0, n - 1));
  }
  if (typeOf(v) != "string") throw error("{}: a {} name is expected, got {}", what, EnumTraits<E>::name(), describe(v));
  return enumFromString<E>(v.as<std::string>());
}

/// VariableSettings from JS: {commGroup: {type, replicaGroupSize} | [type, size], retrievalMode}
/// or {replicaGrouping: {numReplicas, stride, groupSize}, retrievalMode} (the JS VariableSettings).
inline VariableSettings variableSettingsFrom(const val& v) {
  const VariableRetrievalMode mode = isUndef(v["retrievalMode"])
                                         ? VariableRetrievalMode::OnePerGroup
                                         : enumFromJs<VariableRetrievalMode>(v["retrievalMode"], "retrievalMode");
  const val g = v["replicaGrouping"];
  if (!isUndef(g))
    return VariableSettings(
        ReplicaGrouping(static_cast<unsigned>(toInt(g["numReplicas"], "numReplicas", 1, UINT32_MAX)),
                        static_cast<unsigned>(toInt(g["stride"], "stride", 1, UINT32_MAX)),
                        static_cast<unsigned>(toInt(g["groupSize"], "groupSize", 1, UINT32_MAX))),
        mode);
  const val c = v["commGroup"];
  if (isUndef(c)) return VariableSettings(mode);
  const bool list = val::global("Array").call<bool>("isArray", c);
  const val type = list ? c[0] : c["type"];
  const val size = list ? c[1] : c["replicaGroupSize"];
  return VariableSettings(
      CommGroup(enumFromJs<CommGroupType>(type, "CommGroup type"),
                static_cast<unsigned>(isUndef(size) ? 0 : toInt(size, "replicaGroupSize", 0, UINT32_MAX))),
      mode);
}

/// InputSettings from JS: {replicatedStreamMode, tileSet, exchangeStrategy} (each optional).
inline InputSettings inputSettingsFrom(const val& v) {
  InputSettings s;
  if (!isUndef(v["replicatedStreamMode"]))
    s.setReplicatedStreamMode(enumFromJs<ReplicatedStreamMode>(v["replicatedStreamMode"], "replicatedStreamMode"));
  if (!isUndef(v["tileSet"])) s.setTileSet(enumFromJs<TileSet>(v["tileSet"], "tileSet"));
  if (!isUndef(v["exchangeStrategy"]))
    s.setExchangeStrategy(enumFromJs<ExchangeStrategy>(v["exchangeStrategy"], "exchangeStrategy"));
  return s;
}

inline val infoJs(const TensorInfo& info) {
  val o = val::object();
  o.set("dtype", info.data_type());
  o.set("shape", jsShape(info.shape()));
  return o;
}

/// A JS value as an OptionValue, by the kind of the option it goes to (`type` from the core's
/// table): booleans, numbers (integral ones as integers), strings, BigInts, arrays of those, and
/// plain objects as maps of strings. The core checks the kinds and ranges.
inline OptionValue optionValueFrom(const val& v, const std::string& type, const std::string& what) {
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
  if (type == "commGroup" && t == "object" && !val::global("Array").call<bool>("isArray", v)) {
    // A CommGroup ({type: a CommGroupType name or number, replicaGroupSize}): PopART's pair.
    const val groupType = v["type"];
    const int64_t k = isUndef(v["replicaGroupSize"]) ? 0 : toInt(v["replicaGroupSize"], what + ".replicaGroupSize");
    return std::vector<int64_t>{
        isUndef(groupType) ? 0 : static_cast<int64_t>(enumFromJs<CommGroupType>(groupType, what + ".type")), k};
  }
  if (type == "map" || type == "intmap") {
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

}  // namespace wasm
}  // namespace popart
