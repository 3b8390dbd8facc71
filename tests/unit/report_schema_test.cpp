// The report document (report::reportJson, Session::getReportJson: what Python's and JS's
// getReport() return) against the core's table report::schema(): every key of real documents (a
// pipelined run on two IPUs of the IPU model, the CPU device with profiling on, phased execution
// on two IPUs) is in the table with its type, every key of the table is in some document, and
// every object carries all of its required keys. A key added to the serializer or to the table alone fails here.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/test_util.hpp"
#include "popart/report.hpp"

namespace popart {
namespace {

using nlohmann::json;

/// y = Relu(x @ w1) @ w2 with the ops on `ipus` and in `stages` when given.
std::string mlp(const std::vector<int64_t>& ipus, const std::vector<int64_t>& stages, TensorId& x, TensorId& y) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  x = b->addInputTensor(TensorInfo("FLOAT", {4, 32}), "x");
  const auto w1v = test::randomFloats(32 * 16, 1, -0.1f, 0.1f);
  const auto w2v = test::randomFloats(16 * 8, 2, -0.1f, 0.1f);
  const TensorId w1 = b->addInitializedInputTensor(ConstVoidData(w1v.data(), TensorInfo("FLOAT", {32, 16})), "w1");
  const TensorId w2 = b->addInitializedInputTensor(ConstVoidData(w2v.data(), TensorInfo("FLOAT", {16, 8})), "w2");
  const TensorId mm1 = ai.matmul({x, w1}, "mm1");
  const TensorId h = ai.relu({mm1}, "relu");
  y = ai.matmul({h, w2}, "mm2");
  const std::vector<TensorId> outs{mm1, h, y};
  for (size_t i = 0; i < ipus.size(); ++i) b->virtualGraph(outs[i], ipus[i]);
  for (size_t i = 0; i < stages.size(); ++i) b->pipelineStage(outs[i], stages[i]);
  b->addOutputTensor(y);
  return b->getModelProto();
}

/// The report document of a prepared session after one run of `bps` batches named "r".
json document(const std::string& proto, const TensorId& x, const TensorId& y, std::shared_ptr<DeviceInfo> device,
              const SessionOptions& o, int bps) {
  auto s = InferenceSession::createFromOnnxModel(proto, DataFlow(bps, {y}), std::move(device), InputShapeInfo(), o);
  s->prepareDevice();
  std::map<TensorId, NDArray> ins;
  ins.emplace(x, NDArray::fromVector(test::randomFloats(static_cast<size_t>(bps * 4 * 32), 7),
                                     bps > 1 ? Shape{bps, 4, 32} : Shape{4, 32}));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  s->run(io, "r");
  const json text = json::parse(s->getReportJson());
  // The CBOR form is the same document.
  const std::string cbor = s->getReportJson(true);
  EXPECT_EQ(json::from_cbor(std::vector<uint8_t>(cbor.begin(), cbor.end())), text);
  // Its halves are the graph and execution reports (the runs not reset by getReportJson).
  EXPECT_EQ(text.at("compilation"), json::parse(s->getGraphReport()));
  EXPECT_EQ(text.at("execution"), json::parse(s->getExecutionReport(false, false)));
  return text;
}

bool hasType(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "object[]")
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_object(); });
  if (type == "string") return v.is_string();
  if (type == "int") return v.is_number_integer();
  if (type == "float") return v.is_number();
  if (type == "bool") return v.is_boolean();
  if (type == "int[]")
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number_integer(); });
  if (type == "string[]")
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); });
  ADD_FAILURE() << "unknown schema type " << type;
  return false;
}

struct Walk {
  std::map<std::string, const report::SchemaField*> table;
  std::set<std::string> seen;

  Walk() {
    for (const report::SchemaField& f : report::schema()) {
      EXPECT_TRUE(table.emplace(f.path, &f).second) << "listed twice: " << f.path;
      const size_t dot = f.path.rfind('.');
      if (dot != std::string::npos) {
        std::string parent = f.path.substr(0, dot);
        if (parent.size() > 2 && parent.compare(parent.size() - 2, 2, "[]") == 0) parent.resize(parent.size() - 2);
        EXPECT_TRUE(table.count(parent)) << f.path << ": its parent " << parent << " is not listed before it";
      }
      EXPECT_FALSE(f.doc.empty()) << f.path;
    }
  }

  /// Checks the object `o` at `path` ("" the root; "compilation.ops[]" an array's element).
  void object(const json& o, const std::string& path) {
    const std::string prefix = path.empty() ? "" : path + ".";
    for (const auto& [key, value] : o.items()) {
      const std::string p = prefix + key;
      const auto it = table.find(p);
      if (it == table.end()) {
        ADD_FAILURE() << "the document has " << p << ", the table report::schema() does not";
        continue;
      }
      seen.insert(p);
      EXPECT_TRUE(hasType(value, it->second->type))
          << p << " is " << value.type_name() << ", the table says " << it->second->type;
      if (value.is_object()) object(value, p);
      if (it->second->type == "object[]")
        for (const json& e : value) object(e, p + "[]");
    }
    // Every required child of this object is there.
    for (const auto& [p, f] : table) {
      if (f->optional || p.size() <= prefix.size() || p.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string rest = p.substr(prefix.size());
      if (rest.find('.') != std::string::npos) continue;
      EXPECT_TRUE(o.contains(rest)) << "the document has no " << p << " (required in the table)";
    }
  }
};

TEST(ReportSchema, EveryKeyOfRealDocumentsIsInTheTableAndBack) {
  Walk w;
  TensorId x, y;
  // Two IPUs of the IPU model, pipelined: the graph report, the runs with their pipeline and the
  // simulation block.
  const std::string pipelined = mlp({0, 1, 1}, {0, 1, 1}, x, y);
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  o.enablePipelining = true;
  const json ipu = document(
      pipelined, x, y,
      DeviceManager::createDeviceManager().createIpuModelDevice({{"tilesPerIPU", "16"}, {"numIPUs", "2"}}), o, 3);
  w.object(ipu, "");
  EXPECT_EQ(ipu.at("execution").at("runs").at(0).at("name"), "r");
  EXPECT_EQ(ipu.at("compilation").at("target").at("numIPUs"), 2);
  EXPECT_EQ(ipu.at("compilation").at("memory").at("byTile").at("total").size(), 32u);
  // The CPU device with profiling on: the runs and the host time per op.
  const std::string plain = mlp({}, {}, x, y);
  SessionOptions p;
  p.engineOptions["debug.instrument"] = "true";
  const json cpu = document(plain, x, y, DeviceManager::createDeviceManager().createCpuDevice(), p, 1);
  w.object(cpu, "");
  EXPECT_EQ(cpu.at("execution").at("profilerMode"), "CPU");
  EXPECT_FALSE(cpu.at("execution").at("hostOps").empty());
  // Phased execution on two IPUs: the phases.
  SessionOptions ph;
  ph.virtualGraphMode = VirtualGraphMode::ExecutionPhases;
  ph.executionPhaseSettings.phases = 2;
  const json phased = document(
      plain, x, y, DeviceManager::createDeviceManager().createIpuModelDevice({{"tilesPerIPU", "16"}, {"numIPUs", "2"}}),
      ph, 1);
  w.object(phased, "");
  EXPECT_EQ(phased.at("compilation").at("phases").size(), 2u);
  // Every key of the table appears in one of them.
  for (const report::SchemaField& f : report::schema())
    EXPECT_TRUE(w.seen.count(f.path)) << "the table report::schema() has " << f.path << ", no document does";
}

TEST(ReportSchema, NamesThatAreNotUtf8BecomeReplacementCharacters) {
  // A model's names need not be UTF-8 (found by the model fuzzer): the JSON documents replace
  // the invalid bytes with U+FFFD instead of failing.
  auto b = Builder::create();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  const TensorId y = b->aiOnnxOpset11().relu({x}, std::string("relu\xCF"));
  b->addOutputTensor(y);
  auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}),
                                                 DeviceManager::createDeviceManager().createIpuModelDevice());
  s->prepareDevice();
  std::map<TensorId, NDArray> ins;
  ins.emplace(x, NDArray::fromVector(test::randomFloats(6, 3), Shape{2, 3}));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  s->run(io);
  const std::string replaced = "relu\xEF\xBF\xBD";
  for (const std::string& doc :
       {s->getGraphReport(), s->getExecutionReport(false, false), s->getReportJson(), s->serializeIr()}) {
    EXPECT_NO_THROW(json::parse(doc));
    EXPECT_NE(doc.find(replaced), std::string::npos) << doc.substr(0, 200);
  }
}

TEST(ReportSchema, SchemaJsonListsTheTable) {
  const json a = json::parse(report::schemaJson());
  ASSERT_EQ(a.size(), report::schema().size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at("path"), report::schema()[i].path);
    EXPECT_EQ(a[i].at("type"), report::schema()[i].type);
    EXPECT_EQ(a[i].at("optional"), report::schema()[i].optional);
    EXPECT_EQ(a[i].at("doc"), report::schema()[i].doc);
  }
}

}  // namespace
}  // namespace popart
