// The debug-info recorder (common/debug_info.hpp) and PopART's functions over it
// (popart/debugcontext.hpp).
#include "common/debug_info.hpp"

#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

#include "popart/debugcontext.hpp"
#include "popart/error.hpp"

namespace popart {
namespace debuginfo {
namespace {

struct Context {
  int64_t id;
  int64_t parentId;
  std::string layer;
  size_t name;  ///< index into the string table
  Fields fields;
};

struct Recorder {
  std::string filename;
  std::vector<Context> contexts;  ///< by id: contexts[id - 1] (Poplar's ids start at 1)
  /// Indices into `contexts` in the order they are written: as Poplar streams a context when its
  /// DebugInfo is destroyed, a nested context comes before the one it is under. Contexts still
  /// open at close follow, in creation order.
  std::vector<size_t> written;
  std::vector<bool> open;
  std::vector<std::string> strings;
  std::map<std::string, size_t> stringIndex;

  size_t intern(const std::string& s) {
    auto it = stringIndex.find(s);
    if (it != stringIndex.end()) return it->second;
    strings.push_back(s);
    return stringIndex[s] = strings.size() - 1;
  }
};

std::mutex& mu() {
  static std::mutex m;
  return m;
}
std::unique_ptr<Recorder>& rec() {
  static std::unique_ptr<Recorder> r;
  return r;
}

void jsonString(std::ostream& os, const std::string& s) {
  os << '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        os << "\\\"";
        break;
      case '\\':
        os << "\\\\";
        break;
      case '\n':
        os << "\\n";
        break;
      case '\r':
        os << "\\r";
        break;
      case '\t':
        os << "\\t";
        break;
      default:
        if (c < 0x20) {
          static const char* hex = "0123456789abcdef";
          os << "\\u00" << hex[c >> 4] << hex[c & 15];
        } else {
          os << static_cast<char>(c);
        }
    }
  }
  os << '"';
}

void jsonValue(std::ostream& os, const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    jsonString(os, *s);
  } else if (const auto* l = std::get_if<std::vector<std::string>>(&v)) {
    os << '[';
    for (size_t i = 0; i < l->size(); ++i) {
      if (i) os << ',';
      jsonString(os, (*l)[i]);
    }
    os << ']';
  } else {
    const auto& m = std::get<std::map<std::string, std::string>>(v);
    os << '{';
    bool first = true;
    for (const auto& kv : m) {
      if (!first) os << ',';
      first = false;
      jsonString(os, kv.first);
      os << ':';
      jsonString(os, kv.second);
    }
    os << '}';
  }
}

/// The context of id `id`, or nullptr.
Context* find(int64_t id) {
  if (!rec() || id < 1 || id > static_cast<int64_t>(rec()->contexts.size())) return nullptr;
  return &rec()->contexts[static_cast<size_t>(id - 1)];
}

std::string toJson(const Recorder& r) {
  std::vector<size_t> order = r.written;
  for (size_t i = 0; i < r.contexts.size(); ++i) {
    if (r.open[i]) order.push_back(i);
  }
  std::ostringstream os;
  os << "{\"contexts\":[";
  for (size_t i = 0; i < order.size(); ++i) {
    const Context& c = r.contexts[order[i]];
    if (i) os << ',';
    os << "{\"id\":" << c.id;
    if (c.parentId >= 1) os << ",\"parentId\":" << c.parentId;
    os << ",\"layer\":";
    jsonString(os, c.layer);
    os << ",\"name\":" << c.name;
    for (const auto& f : c.fields) {
      os << ',';
      jsonString(os, f.first);
      os << ':';
      jsonValue(os, f.second);
    }
    os << '}';
  }
  os << "],\"stringTable\":[";
  for (size_t i = 0; i < r.strings.size(); ++i) {
    if (i) os << ',';
    jsonString(os, r.strings[i]);
  }
  os << "]}\n";
  return os.str();
}

}  // namespace

bool recording() {
  std::lock_guard<std::mutex> l(mu());
  return rec() != nullptr;
}

int64_t add(const std::string& layer, const std::string& name, int64_t parentId, Fields fields, bool keepOpen) {
  std::lock_guard<std::mutex> l(mu());
  if (!rec()) return -1;
  Recorder& r = *rec();
  const auto id = static_cast<int64_t>(r.contexts.size()) + 1;
  r.contexts.push_back({id, parentId < id ? parentId : -1, layer, r.intern(name), std::move(fields)});
  r.open.push_back(keepOpen);
  if (!keepOpen) r.written.push_back(r.contexts.size() - 1);
  return id;
}

void finish(int64_t id) {
  std::lock_guard<std::mutex> l(mu());
  if (!find(id)) return;
  const auto i = static_cast<size_t>(id - 1);
  if (!rec()->open[i]) return;
  rec()->open[i] = false;
  rec()->written.push_back(i);
}

void setValue(int64_t id, const std::string& key, Value value) {
  std::lock_guard<std::mutex> l(mu());
  Context* c = find(id);
  if (!c) return;
  Fields& f = c->fields;
  for (auto& kv : f) {
    if (kv.first == key) {
      kv.second = std::move(value);
      return;
    }
  }
  f.emplace_back(key, std::move(value));
}

int64_t parentOf(int64_t id) {
  std::lock_guard<std::mutex> l(mu());
  const Context* c = find(id);
  return c ? c->parentId : -1;
}

void open(const std::string& filename, const std::string& format) {
  if (format != "json")
    throw error("initializePoplarDebugInfo: unsupported format '{}': this runtime writes \"json\"", format);
  std::lock_guard<std::mutex> l(mu());
  if (rec()) throw error("initializePoplarDebugInfo: debug info is already being recorded (to '{}')", rec()->filename);
  if (!filename.empty()) {
    std::ofstream probe(filename, std::ios::app);  // fail now, not at close, for a bad path
    if (!probe) throw error("initializePoplarDebugInfo: cannot write '{}'", filename);
  }
  rec() = std::make_unique<Recorder>();
  rec()->filename = filename;
}

std::string close() {
  std::unique_ptr<Recorder> r;
  {
    std::lock_guard<std::mutex> l(mu());
    if (!rec()) throw error("closePoplarDebugInfo: initializePoplarDebugInfo was not called");
    r = std::move(rec());
  }
  std::string text = toJson(*r);
  if (!r->filename.empty()) {
    std::ofstream f(r->filename, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw error("closePoplarDebugInfo: cannot write '{}'", r->filename);
  }
  return text;
}

}  // namespace debuginfo

void initializePoplarDebugInfo(const std::string& filename, const std::string& format) {
  debuginfo::open(filename, format);
}

void closePoplarDebugInfo() {
  debuginfo::close();
}

std::string closePoplarDebugInfoToString() {
  return debuginfo::close();
}

DebugInfo::DebugInfo(const DebugContext& debugContext, const std::string& layer)
    : id_(debuginfo::add(layer, debugContext.getPathName(), debugContext.parentId(), {}, true)) {}

DebugInfo::~DebugInfo() {
  debuginfo::finish(id_);  // (ids are per recording: one from an earlier recording only moves a context in the file)
}

void DebugInfo::setValue(const std::string& name, const std::string& value) {
  debuginfo::setValue(id_, name, value);
}

}  // namespace popart
