#include "onnx/external_data.hpp"

#include <sys/stat.h>
#include <map>
#include <set>

#include "onnx/model_io.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {

std::string externalDataPath(const std::string& location, const std::string& baseDir) {
  if (!location.empty() && location[0] == '/') return location;
  if (baseDir.empty()) return location;  // PopART: relative to the working directory
  return baseDir + "/" + location;
}

std::string externalLocation(const onnx::TensorProto& tp) {
  if (tp.data_location() != onnx::TensorProto::EXTERNAL) return "";
  for (const auto& kv : tp.external_data()) {
    if (kv.key() == "location") return kv.value();
  }
  return "";
}

ExternalDataRef externalDataRef(const onnx::TensorProto& tp) {
  ExternalDataRef r;
  for (const auto& kv : tp.external_data()) {
    try {
      if (kv.key() == "location") r.location = kv.value();
      if (kv.key() == "offset") r.offset = std::stoll(kv.value());
      if (kv.key() == "length") r.length = std::stoll(kv.value());
    } catch (const std::exception&) {
      throw error("tensor '{}': external data {} '{}' is not a number", tp.name(), kv.key(), kv.value());
    }
  }
  if (r.location.empty()) throw error("tensor '{}' has external data without a location", tp.name());
  return r;
}

namespace {

bool parentDirectoryExists(const std::string& fn) {
  const auto slash = fn.find_last_of('/');
  if (slash == std::string::npos) return true;  // the working directory
  const std::string dir = slash == 0 ? "/" : fn.substr(0, slash);
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

namespace {

/// Checks every id, then hands the concatenated data to `write`, then (only if it succeeded)
/// marks the initializers EXTERNAL at `location`: a failure leaves the model untouched.
void externalize(onnx::ModelProto& model, const std::vector<std::string>& ids, const std::string& location,
                 const std::string& baseDir, const std::function<void(const std::string&)>& write) {
  auto* g = model.mutable_graph();
  std::map<std::string, onnx::TensorProto*> byName;
  for (auto& t : *g->mutable_initializer()) byName.emplace(t.name(), &t);

  std::set<std::string> seen;
  std::vector<std::pair<onnx::TensorProto*, int64_t>> todo;
  std::string bytes;
  for (const auto& id : ids) {
    auto it = byName.find(id);
    if (it == byName.end()) throw error("Tensor '{}' is not an initializer", id);
    onnx::TensorProto& tp = *it->second;
    if (tp.data_location() == onnx::TensorProto::EXTERNAL)
      throw error("Tensor '{}' already has an external data_location", id);
    if (!seen.insert(id).second) throw error("Tensor '{}' is listed twice in saveInitializersExternally", id);
    if (tp.data_type() == onnx::TensorProto::STRING)
      throw error("Tensor '{}' is a STRING tensor: ONNX external data holds only fixed-size elements", id);
    const TensorData d = tensorFromProto(tp, baseDir);
    const int64_t n = d.info().nbytes();
    if (n == 0) throw error("Tensor '{}' has no data to save externally", id);
    bytes.append(static_cast<const char*>(d.data()), static_cast<size_t>(n));
    todo.emplace_back(&tp, n);
  }
  write(bytes);

  int64_t offset = 0;
  for (auto& td : todo) {
    onnx::TensorProto& tp = *td.first;
    tp.clear_raw_data();
    tp.clear_float_data();
    tp.clear_int32_data();
    tp.clear_int64_data();
    tp.clear_double_data();
    tp.clear_uint64_data();
    tp.clear_external_data();
    tp.set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&tp](const char* k, const std::string& v) {
      auto* e = tp.add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("length", std::to_string(td.second));
    add("offset", std::to_string(offset));
    offset += td.second;
  }
}

}  // namespace

void saveInitializersExternally(onnx::ModelProto& model, const std::vector<std::string>& ids, const std::string& fn,
                                const std::string& baseDir) {
  if (fn.empty()) throw error("saveInitializersExternally: the file name is empty");
  if (!parentDirectoryExists(fn))
    throw error("Cannot save tensor data externally to the file '{}': its parent directory does not exist", fn);
  externalize(model, ids, fn, baseDir, [&fn](const std::string& bytes) {
    if (isExistingFile(fn))
      logging::info("Saving tensor data to file {}, but it already exists. Its contents will be overwritten", fn);
    writeFileAtomically(fn, bytes);
  });
}

std::string initializersToExternalData(onnx::ModelProto& model, const std::vector<std::string>& ids,
                                       const std::string& location, const std::string& baseDir) {
  if (location.empty()) throw error("saveInitializersExternally: the file name is empty");
  std::string out;
  externalize(model, ids, location, baseDir, [&out](const std::string& bytes) { out = bytes; });
  return out;
}

}  // namespace popart

namespace popart {
namespace {

/// Every EXTERNAL TensorProto of `g`, in order: initializers, tensor attributes of its nodes, and
/// the same in its subgraphs (the mutable accessors are only called where the field is set, so
/// the walk changes nothing).
void collectExternal(onnx::GraphProto& g, std::vector<onnx::TensorProto*>& out) {
  auto add = [&out](onnx::TensorProto& t) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) out.push_back(&t);
  };
  for (auto& t : *g.mutable_initializer()) add(t);
  for (auto& n : *g.mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t()) add(*a.mutable_t());
      for (auto& t : *a.mutable_tensors()) add(t);
      if (a.has_g()) collectExternal(*a.mutable_g(), out);
      for (auto& sub : *a.mutable_graphs()) collectExternal(sub, out);
    }
  }
}

std::vector<onnx::TensorProto*> externalTensors(onnx::ModelProto& model) {
  std::vector<onnx::TensorProto*> out;
  if (model.has_graph()) collectExternal(*model.mutable_graph(), out);
  return out;
}

}  // namespace

std::vector<std::string> externalDataLocations(onnx::ModelProto& model) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const onnx::TensorProto* tp : externalTensors(model)) {
    const std::string loc = externalLocation(*tp);
    if (!loc.empty() && seen.insert(loc).second) out.push_back(loc);
  }
  return out;
}

void inlineExternalData(onnx::ModelProto& model, const std::map<std::string, std::string>& files) {
  // Every tensor's range is checked before any changes: all or nothing.
  std::vector<std::pair<onnx::TensorProto*, std::string>> data;
  for (onnx::TensorProto* tp : externalTensors(model)) {
    ExternalDataRef r = externalDataRef(*tp);
    auto file = files.find(r.location);
    if (file == files.end())
      throw error("tensor '{}' stores its data in the external file {}, but it doesn't exist or is not accessible",
                  tp->name(), r.location);
    const int64_t size = static_cast<int64_t>(file->second.size());
    // Without a length the tensor's own bytes are read, as tensorFromProto reads them (ONNX's
    // helper reads the rest of the file, which is the same for a file of one tensor).
    if (r.length < 0) r.length = protoTensorInfo(*tp).nbytes();
    if (r.offset < 0 || r.length < 0 || r.offset > size || r.length > size - r.offset)
      throw error("tensor '{}': external data file '{}' is truncated (offset {}, length {}, {} bytes)", tp->name(),
                  r.location, r.offset, r.length, size);
    data.emplace_back(tp, file->second.substr(static_cast<size_t>(r.offset), static_cast<size_t>(r.length)));
  }
  for (auto& [tp, bytes] : data) {
    // What the tensor's dtype and shape need is checked where its data is read (tensorFromProto).
    tp->set_raw_data(std::move(bytes));
    tp->clear_external_data();
    tp->set_data_location(onnx::TensorProto::DEFAULT);
  }
}

}  // namespace popart
