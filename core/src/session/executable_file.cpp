// The prepared session on disk (session/executable_file.hpp). The file: 8 magic bytes, then one
// CBOR document {format, hash, version, device, weights: {id: {dtype, shape, data}}}
// (nlohmann::json's CBOR with binary strings).
#include "session/executable_file.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ir/ir.hpp"
#include "optimizers/training_graph.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/reflection.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/version.hpp"
#include "session/ir_json.hpp"

namespace popart {
namespace {

constexpr char kMagic[8] = {'P', 'O', 'P', 'A', 'R', 'T', 'X', '1'};
constexpr int kFormat = 1;

/// 64-bit FNV-1a over bytes, 8 at a time for long runs (the weights): fast enough that hashing a
/// model costs little next to preparing it.
class Hasher {
 public:
  void add(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, b + i, 8);
      h_ = (h_ ^ w) * 0x100000001b3ULL;
      h_ ^= h_ >> 29;
    }
    for (; i < n; ++i) h_ = (h_ ^ b[i]) * 0x100000001b3ULL;
    add64(n);
  }
  void add(const std::string& s) { add(s.data(), s.size()); }
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  void add64(uint64_t v) { h_ = (h_ ^ v) * 0x100000001b3ULL; }
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

void addGraphData(Hasher& h, const Graph& g) {
  for (const auto& kv : g.tensors()) {
    const Tensor& t = *kv.second;
    // Constants only: kernels precompute from them; weights change as they train.
    if (!t.data || t.kind != TensorKind::Const) continue;
    h.add(t.id);
    if (t.info.dataType() == DataType::STRING) continue;
    h.add(t.data->data(), static_cast<size_t>(t.info.nbytes()));
  }
  for (const auto& kv : g.ops()) {
    // Tensor attributes (the optimizer's constant hyper-parameters, Constant values): the IR's
    // JSON names only their type.
    for (const auto& [name, value] : kv.second->attrs.all()) {
      const auto* t = std::get_if<TensorData>(&value);
      if (!t || t->info().dataType() == DataType::STRING) continue;
      h.add(kv.second->name() + "." + name);
      h.add(t->data(), static_cast<size_t>(t->info().nbytes()));
    }
    for (const Graph* sg : kv.second->subgraphs) addGraphData(h, *sg);
  }
}

}  // namespace

std::string planHash(const Ir& ir, const DeviceInfo& device) {
  Hasher h;
  h.add(irToJson(ir));
  for (const auto& opt : SessionOptions::list()) {
    h.add(opt.name);
    h.add(optionValueToString(ir.options().get(opt.name)));
  }
  h.add(toString(device.getType()));
  for (const auto& kv : device.getOptions()) {
    h.add(kv.first);
    h.add(kv.second);
  }
  for (const auto& id : ir.dataFlow().anchors()) h.add(id + ":" + ir.dataFlow().art(id).str());
  h.add(std::to_string(ir.dataFlow().batchesPerStep()));
  addGraphData(h, ir.mainGraph());
  return h.hex();
}

std::vector<std::pair<std::string, std::string>> distributedAgreement(const Ir& ir, const DeviceInfo& device) {
  std::vector<std::pair<std::string, std::string>> parts;
  Hasher model;
  model.add(irToJson(ir));
  addGraphData(model, ir.mainGraph());
  parts.emplace_back("the model (the prepared graph, its shapes and constants, the optimizer)", model.hex());
  Hasher options;
  for (const auto& opt : SessionOptions::list()) {
    // Each process has its own offset (and may run its own number of local replicas).
    if (opt.name == "globalReplicaOffset" || opt.name == "replicatedGraphCount" || opt.name == "enableReplicatedGraphs")
      continue;
    options.add(opt.name);
    options.add(optionValueToString(ir.options().get(opt.name)));
  }
  parts.emplace_back("the session options", options.hex());
  Hasher flow;
  for (const auto& id : ir.dataFlow().anchors()) flow.add(id + ":" + ir.dataFlow().art(id).str());
  flow.add(std::to_string(ir.dataFlow().batchesPerStep()));
  parts.emplace_back("the data flow (anchors, batchesPerStep)", flow.hex());
  Hasher dev;
  dev.add(toString(device.getType()));
  for (const auto& kv : device.getOptions()) {
    dev.add(kv.first);
    dev.add(kv.second);
  }
  parts.emplace_back("the device", dev.hex());
  // Variables: the model's weights and the optimizer's state (broadcastWeights aligns them), and
  // the optimizer's hyper-parameters (learning rates, ...), which must agree.
  const std::vector<TensorId> init = ir.initializerIds();
  const std::set<TensorId> weightIds(init.begin(), init.end());
  Hasher hyper, weights;
  for (const auto& kv : ir.mainGraph().tensors()) {
    const Tensor& t = *kv.second;
    if (!t.data || t.kind != TensorKind::Variable || t.info.dataType() == DataType::STRING) continue;
    Hasher& h = weightIds.count(t.id) || isOptimizerStateTensorId(t.id) ? weights : hyper;
    h.add(t.id);
    h.add(t.data->data(), static_cast<size_t>(t.info.nbytes()));
  }
  parts.emplace_back("the optimizer's values (learning rates, ...)", hyper.hex());
  parts.emplace_back("the weights' values", weights.hex());
  return parts;
}

std::string executableBytes(const ExecutableFile& f) {
  using nlohmann::json;
  json doc;
  doc["format"] = kFormat;
  doc["hash"] = f.hash;
  doc["version"] = f.version;
  doc["device"] = f.device;
  json weights = json::object();
  for (const auto& [id, w] : f.weights)
    weights[id] = {{"dtype", w.dtype},
                   {"shape", w.shape},
                   {"data", json::binary(std::vector<std::uint8_t>(w.bytes.begin(), w.bytes.end()))}};
  doc["weights"] = std::move(weights);
  const std::vector<std::uint8_t> body = json::to_cbor(doc);
  std::string bytes(kMagic, sizeof kMagic);
  bytes.append(reinterpret_cast<const char*>(body.data()), body.size());
  return bytes;
}

void writeExecutableFile(const std::string& path, const ExecutableFile& f) {
  const std::string bytes = executableBytes(f);
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (!os) throw error("Could not open file {} to write the executable", tmp);
    os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!os) throw error("Could not write the executable to {}", tmp);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw error("Could not write the executable to {}", path);
  }
}

ExecutableFile executableFromBytes(const std::string& bytes, const std::string& what) {
  using nlohmann::json;
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw error("{} is not an executable written by Session::compileAndExport or engine caching", what);
  ExecutableFile f;
  try {
    const json doc = json::from_cbor(bytes.begin() + sizeof kMagic, bytes.end());
    if (doc.at("format").get<int>() != kFormat)
      throw error("{} is an executable of format {}; this runtime reads format {}", what, doc.at("format").get<int>(),
                  kFormat);
    f.hash = doc.at("hash").get<std::string>();
    f.version = doc.at("version").get<std::string>();
    f.device = doc.at("device").get<std::string>();
    for (const auto& [id, w] : doc.at("weights").items()) {
      ExecutableFile::Weight& out = f.weights[id];
      out.dtype = w.at("dtype").get<std::string>();
      out.shape = w.at("shape").get<std::vector<int64_t>>();
      const auto& bin = w.at("data").get_binary();
      out.bytes.assign(bin.begin(), bin.end());
    }
  } catch (const json::exception& e) {
    throw error("{} is not a readable executable: {}", what, e.what());
  }
  return f;
}

ExecutableFile readExecutableFile(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  if (!is) throw error("Could not open file {}", path);
  const std::string bytes((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  return executableFromBytes(bytes, path);
}

}  // namespace popart
