// The IPU model's layout, memory, cycles and reports (docs/ipu-model.md): out of memory on the
// default 4 tiles, the per-tile totals against the memory plan, cycles linear in batchesPerStep
// and under the target's peak, two IPUs and their copies, pipelining's fill / steady / drain, the
// JSON / CBOR reports, autoReport files, and PopART's report and cycle-counter errors.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::dm;

using nlohmann::json;
using test::expectError;

std::shared_ptr<DeviceInfo> ipuModel(int tiles, int ipus = 1, const std::string& version = "ipu2") {
  return dm().createIpuModelDevice(
      {{"tilesPerIPU", std::to_string(tiles)}, {"numIPUs", std::to_string(ipus)}, {"ipuVersion", version}});
}

/// y = Relu(x @ w1) @ w2: x [rows, k], w1 [k, h] named "w1", w2 [h, n] named "w2".
struct Mlp {
  std::string proto;
  TensorId x, h, y;
};
Mlp mlp(int64_t rows, int64_t k, int64_t hidden, int64_t n, const std::string& dtype = "FLOAT",
        const std::vector<int64_t>& ipus = {}, const std::vector<int64_t>& stages = {}) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  Mlp m;
  m.x = b->addInputTensor(TensorInfo(dtype, {rows, k}), "x");
  auto init = [&](int64_t r, int64_t c, uint32_t seed, const std::string& name) {
    auto v = test::randomFloats(static_cast<size_t>(r * c), seed, -0.1f, 0.1f);
    if (dtype == "FLOAT16") {
      std::vector<float16_t> hv(v.begin(), v.end());
      return b->addInitializedInputTensor(ConstVoidData(hv.data(), TensorInfo(dtype, {r, c})), name);
    }
    return b->addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo(dtype, {r, c})), name);
  };
  const TensorId w1 = init(k, hidden, 1, "w1");
  const TensorId w2 = init(hidden, n, 2, "w2");
  const TensorId mm1 = ai.matmul({m.x, w1}, "mm1");
  m.h = ai.relu({mm1}, "relu");
  m.y = ai.matmul({m.h, w2}, "mm2");
  if (!ipus.empty()) {
    b->virtualGraph(mm1, ipus[0]);
    b->virtualGraph(m.h, ipus[1]);
    b->virtualGraph(m.y, ipus[2]);
  }
  if (!stages.empty()) {
    b->pipelineStage(mm1, stages[0]);
    b->pipelineStage(m.h, stages[1]);
    b->pipelineStage(m.y, stages[2]);
  }
  b->addOutputTensor(m.y);
  m.proto = b->getModelProto();
  return m;
}

std::unique_ptr<InferenceSession> session(const Mlp& m, std::shared_ptr<DeviceInfo> d, int bps = 1,
                                          const SessionOptions& o = {}) {
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(bps, {m.y}), std::move(d), InputShapeInfo(), o);
  s->prepareDevice();
  return s;
}

void runMlp(InferenceSession& s, const Mlp& m, const std::string& name = "") {
  const TensorInfo xi = s.getInfo(m.x);
  const int64_t bps = s.getDataFlow().batchesPerStep();
  Shape shape = xi.shape();
  if (bps > 1) shape.insert(shape.begin(), bps);
  const size_t n = static_cast<size_t>(xi.nelms() * bps);
  std::map<TensorId, NDArray> ins;
  ins.emplace(m.x, NDArray::fromVector(test::randomFloats(n, 7), shape));
  auto out = s.initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  s.run(io, name);
}

int64_t sum(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{0});
}

const report::Op& opNamed(const report::Compilation& c, const std::string& name) {
  for (const auto& op : c.ops)  // the Builder names nodes "<debug name>_<n>" after the first
    if (op.name == name || op.name.rfind(name + "_", 0) == 0) return op;
  throw std::runtime_error("no op " + name);
}

// ---------------------------------------------------------------- memory

TEST(IpuModelMemory, WeightsOverFourTilesAreOutOfMemoryButFitTheChip) {
  const Mlp m = mlp(4, 1024, 1024, 16);  // w1: 4 MiB, over 4 tiles x 624 KiB
  auto small = session(m, ipuModel(4));  // the IPU model prepares and runs anyway (a warning)
  const report::Report r = small->getReport();
  EXPECT_EQ(r.compilation.target.numTiles, 4);
  EXPECT_EQ(r.compilation.memory.outOfMemoryTiles.size(), 4u);
  EXPECT_GT(r.compilation.memory.maxTileBytes, 624 * 1024);
  runMlp(*small, m);
  const std::string summary = small->getSummaryReport();
  EXPECT_NE(summary.find("Tiles out of memory:"), std::string::npos) << summary;
  EXPECT_NE(summary.find("4 (worst: tile"), std::string::npos) << summary;

  auto full = session(m, ipuModel(1472));
  EXPECT_TRUE(full->getReport().compilation.memory.outOfMemoryTiles.empty());
  EXPECT_NE(full->getSummaryReport().find("Tiles out of memory:     none"), std::string::npos);
}

TEST(IpuModelMemory, OfflineDeviceThrowsOutOfMemoryNamingTheLargestTensor) {
  const Mlp m = mlp(4, 1024, 1024, 16);
  auto d = dm().createOfflineIPUDevice({{"tilesPerIPU", "4"}});
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), d);
  try {
    s->prepareDevice();
    ADD_FAILURE() << "prepareDevice did not throw";
  } catch (const OutOfMemoryException& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Out of memory: Cannot fit all variable data onto one or more tiles"), std::string::npos);
    EXPECT_NE(msg.find("'w1' (variable, FLOAT 4,194,304 bytes)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("of 638,976"), std::string::npos) << msg;
    EXPECT_NE(e.getSummaryReport().find("Memory Usage:"), std::string::npos);
    EXPECT_NE(e.getSummaryReport().find("Tiles out of memory:"), std::string::npos);
    EXPECT_EQ(e.getProfilePath(), "");  // no autoReport
    // The graph report of what did not fit: every tile's memory, the 4 over capacity marked.
    const auto g = nlohmann::json::parse(e.getGraphReport());
    EXPECT_EQ(g["memory"]["outOfMemoryTiles"].size(), 4u);
    EXPECT_EQ(g["memory"]["byTile"]["total"].size(), 4u);
    EXPECT_EQ(g["target"]["type"], "OfflineIpu");
  }
  // The IPU model refuses too when the user asks it to.
  SessionOptions o;
  o.engineOptions["debug.allowOutOfMemory"] = "false";
  auto s2 = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), ipuModel(4), InputShapeInfo(), o);
  EXPECT_THROW(s2->prepareDevice(), OutOfMemoryException);
  // And an offline device may be told to compile anyway.
  o.engineOptions["debug.allowOutOfMemory"] = "true";
  auto s3 = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), d, InputShapeInfo(), o);
  s3->prepareDevice();
  EXPECT_FALSE(s3->getReport().compilation.memory.outOfMemoryTiles.empty());
  // With autoReport.all the summary is written and the exception names it.
  SessionOptions a;
  a.engineOptions["autoReport.all"] = "true";
  a.engineOptions["autoReport.directory"] = std::string(POPART_TEST_TMPDIR) + "/oom_report";
  auto s4 = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), d, InputShapeInfo(), a, Patterns(),
                                                  "oom_session");
  try {
    s4->prepareDevice();
    ADD_FAILURE() << "prepareDevice did not throw";
  } catch (const OutOfMemoryException& e) {
    EXPECT_NE(e.getProfilePath().find("oom_report/oom_session/summary.txt"), std::string::npos) << e.getProfilePath();
    std::ifstream f(e.getProfilePath());
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, e.getSummaryReport());
  }
}

TEST(IpuModelMemory, TileTotalsAddUpToTheMemoryPlan) {
  const Mlp m = mlp(8, 300, 200, 10);
  auto s = session(m, ipuModel(64));
  const report::Compilation c = s->getReport().compilation;
  const SessionMemoryStats st = s->getMemoryStats();
  const auto& by = c.memory.byCategoryByTile;
  // Inference: the weights are constants of the CPU program and variables on the IPU (they can be
  // written); together they are the same bytes.
  EXPECT_EQ(sum(by[static_cast<size_t>(report::MemoryCategory::Variable)]) +
                sum(by[static_cast<size_t>(report::MemoryCategory::Constant)]),
            st.weightBytes + st.constantBytes);
  EXPECT_EQ(sum(by[static_cast<size_t>(report::MemoryCategory::Variable)]), (300 * 200 + 200 * 10) * 4);
  int64_t activations = 0;
  std::vector<int64_t> mappedActs(64, 0);
  for (const auto& t : c.tensors) {
    EXPECT_EQ(static_cast<int64_t>(t.mapping.bytesPerTile.size()) + t.mapping.firstTile <= 64, true) << t.id;
    if (t.view) continue;
    EXPECT_EQ(sum(t.mapping.bytesPerTile), t.bytes) << t.id;  // every byte of a tensor on some tile
    if (t.kind == "activation") {
      activations += t.bytes;
      for (size_t k = 0; k < t.mapping.bytesPerTile.size(); ++k)
        mappedActs[static_cast<size_t>(t.mapping.firstTile) + k] += t.mapping.bytesPerTile[k];
    }
  }
  EXPECT_EQ(activations, st.activationTotalBytes);
  // A tile's activation peak is at most all the activations mapped to it, and the totals add up.
  const auto& peak = by[static_cast<size_t>(report::MemoryCategory::Activation)];
  for (size_t t = 0; t < 64; ++t) EXPECT_LE(peak[t], mappedActs[t] + 64 * 1024) << t;  // + stream inputs
  EXPECT_EQ(sum(c.memory.byTileTotal), c.memory.total);
  int64_t cats = 0;
  for (const auto& v : by) cats += sum(v);
  EXPECT_EQ(cats, c.memory.total);
  // Weights are spread by rows over the tiles: w1 (300 rows x 800 bytes) covers many tiles.
  for (const auto& t : c.tensors)
    if (t.id == "w1") {
      EXPECT_EQ(t.mapping.bytesPerTile.size(), 64u);
    }
}

TEST(IpuModelMemory, MappingIsDeterministic) {
  const Mlp m = mlp(8, 64, 32, 10);
  const std::string a = session(m, ipuModel(16))->getGraphReport();
  const std::string b = session(m, ipuModel(16))->getGraphReport();
  EXPECT_EQ(a, b);
}

// ---------------------------------------------------------------- cycles

TEST(IpuModelCycles, LinearInBatchesPerStep) {
  const Mlp m = mlp(4, 64, 64, 8);
  auto one = session(m, ipuModel(1472), 1);
  auto three = session(m, ipuModel(1472), 3);
  runMlp(*one, m);
  runMlp(*three, m);
  const int64_t c1 = one->getReport().execution.runs.at(0).cycles;
  const int64_t c3 = three->getReport().execution.runs.at(0).cycles;
  EXPECT_GT(c1, 0);
  EXPECT_EQ(c3, 3 * c1);
  EXPECT_EQ(three->getReport().execution.runs.at(0).steps.size(), 3u);
}

TEST(IpuModelCycles, MonotoneInMatMulSize) {
  int64_t previous = 0;
  for (int64_t n : {32, 64, 128, 256, 512}) {
    const Mlp m = mlp(n, n, n, 4);
    auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), dm().createOfflineIPUDevice());
    s->prepareDevice();
    const int64_t c = opNamed(s->getReport().compilation, "mm1").cycles;
    EXPECT_GT(c, previous) << n;
    previous = c;
  }
}

TEST(IpuModelCycles, LargeMatMulIsARealisticFractionOfPeak) {
  for (const std::string dtype : {"FLOAT", "FLOAT16"}) {
    const int64_t n = 2048;
    const Mlp m = mlp(n, n, n, 4, dtype);
    auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), dm().createOfflineIPUDevice());
    s->prepareDevice();
    const report::Compilation c = s->getReport().compilation;
    const report::Op& op = opNamed(c, "mm1");
    EXPECT_EQ(op.flops, 2 * n * n * n);
    const double seconds = static_cast<double>(op.cycles) / c.target.clockHz;
    const double tflops = static_cast<double>(op.flops) / seconds / 1e12;
    const double peak = dtype == "FLOAT" ? 62.5 : 250.0;  // GC200's public figures
    EXPECT_LT(tflops, peak) << dtype;
    EXPECT_GT(tflops, 0.4 * peak) << dtype;
  }
}

TEST(IpuModelCycles, TwoIpusAddTheirCyclesAndTheCopy) {
  const Mlp m = mlp(4, 256, 256, 8, "FLOAT", {0, 1, 1});
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  auto s = session(m, ipuModel(64, 2), 1, o);
  const report::Compilation c = s->getReport().compilation;
  EXPECT_EQ(opNamed(c, "mm1").ipu, 0);
  EXPECT_EQ(opNamed(c, "relu").ipu, 1);
  ASSERT_EQ(c.cycles.perIpu.size(), 2u);
  // One copy: mm1's output [4, 256] FLOAT from IPU 0 to IPU 1 over the IPU-Links.
  const IpuTargetInfo& t = ipuTarget("ipu2");
  const double linkBytesPerCycle = t.ipuLinksPerIpu * t.ipuLinkBytesPerSec / t.clockHz;
  const int64_t copy = t.syncCycles + static_cast<int64_t>(std::ceil(4 * 256 * 4 / linkBytesPerCycle));
  EXPECT_EQ(c.cycles.interIpuCopies, copy);
  EXPECT_EQ(c.cycles.perIpu[0] + c.cycles.perIpu[1], c.cycles.perMicroBatch);
  int64_t ipu0 = 0, ipu1 = 0;
  for (const auto& op : c.ops) (op.ipu == 0 ? ipu0 : ipu1) += op.cycles;
  EXPECT_EQ(ipu0 + ipu1, c.cycles.perMicroBatch);
  // Each IPU's memory on its own tiles: w1 on IPU 0's, w2 on IPU 1's.
  for (const auto& tensor : c.tensors) {
    if (tensor.id == "w1") {
      EXPECT_EQ(tensor.mapping.ipu, 0);
    }
    if (tensor.id == "w2") {
      EXPECT_EQ(tensor.mapping.ipu, 1);
    }
  }
  EXPECT_EQ(c.memory.byTileTotal.size(), 128u);
  runMlp(*s, m);  // the outputs are the CPU's (the kernels are)

  // The cycle counters: the whole device and each IPU.
  o.instrumentWithHardwareCycleCounter = true;
  o.hardwareInstrumentations = {Instrumentation::Outer, Instrumentation::Inner};
  auto counted = session(m, ipuModel(64, 2), 2, o);
  expectError([&] { counted->getCycleCount(); }, {"Must call run before getCycleCount"});
  runMlp(*counted, m);
  const report::Run run = counted->getReport().execution.runs.at(0);
  EXPECT_EQ(counted->getCycleCount(), static_cast<uint64_t>(run.cycles));
  EXPECT_GT(counted->getCycleCount("inner_ipu_0"), 0u);
  EXPECT_LE(counted->getCycleCount("inner_ipu_0") + counted->getCycleCount("inner_ipu_1"),
            static_cast<uint64_t>(run.cycles));
  expectError([&] { counted->getCycleCount("inner_ipu_2"); },
              {"Invalid id for cycle counter, 'inner_ipu_2'. Make sure you have set "
               "SessionOption::hardwareInstrumentations correctly."});
  expectError([&] { s->getCycleCount(); }, {"SessionOption 'instrumentWithHardwareCycleCounter' must be"});
}

TEST(IpuModelCycles, CycleCounterNeedsTheOption) {
  const Mlp m = mlp(4, 16, 16, 4);
  auto s = session(m, ipuModel(16));
  runMlp(*s, m);
  expectError([&] { s->getCycleCount(); }, {"SessionOption 'instrumentWithHardwareCycleCounter' must be"});
  SessionOptions o;
  o.instrumentWithHardwareCycleCounter = true;  // Outer only: no inner ids
  auto s2 = session(m, ipuModel(16), 1, o);
  runMlp(*s2, m);
  EXPECT_GT(s2->getCycleCount(""), 0u);
  expectError([&] { s2->getCycleCount("inner_ipu_0"); }, {"Invalid id for cycle counter, 'inner_ipu_0'"});
}

TEST(IpuModelCycles, ManualPlacementErrorsNameTheOp) {
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  const Mlp outOfRange = mlp(4, 16, 16, 4, "FLOAT", {0, 1, 2});
  auto s = InferenceSession::createFromOnnxModel(outOfRange.proto, DataFlow(1, {outOfRange.y}), ipuModel(4, 2),
                                                 InputShapeInfo(), o);
  expectError([&] { s->prepareDevice(); }, {"node 'mm2_2'", "has virtualGraph 2", "2 IPU(s) per replica (0 .. 1)"});
  const Mlp none = mlp(4, 16, 16, 4);
  auto s2 =
      InferenceSession::createFromOnnxModel(none.proto, DataFlow(1, {none.y}), ipuModel(4, 2), InputShapeInfo(), o);
  expectError([&] { s2->prepareDevice(); }, {"virtualGraphMode is Manual but no op has a virtualGraph annotation"});
  auto s3 = InferenceSession::createFromOnnxModel(none.proto, DataFlow(1, {none.y}), ipuModel(4, 2));
  expectError([&] { s3->prepareDevice(); }, {"2 IPU(s) per replica but virtualGraphMode is Off"});
}

TEST(IpuModelCycles, AutoSplitBalancesMemory) {
  const Mlp m = mlp(4, 512, 512, 512);  // w1 and w2 the same size
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Auto;
  auto s = session(m, ipuModel(64, 2), 1, o);
  const report::Compilation c = s->getReport().compilation;
  EXPECT_EQ(opNamed(c, "mm1").ipu, 0);
  EXPECT_EQ(opNamed(c, "mm2").ipu, 1);
  const auto& vars = c.memory.byCategoryByTile[static_cast<size_t>(report::MemoryCategory::Variable)];
  const int64_t ipu0 = std::accumulate(vars.begin(), vars.begin() + 64, int64_t{0});
  const int64_t ipu1 = std::accumulate(vars.begin() + 64, vars.end(), int64_t{0});
  EXPECT_EQ(ipu0, ipu1);
}

TEST(IpuModelCycles, PipelineFillSteadyDrainFollowTheFormula) {
  const Mlp m = mlp(4, 128, 128, 8, "FLOAT", {0, 1, 1}, {0, 1, 1});
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  o.enablePipelining = true;
  const int bps = 5;
  auto s = session(m, ipuModel(64, 2), bps, o);
  runMlp(*s, m, "pipelined");
  const report::Report r = s->getReport();
  const report::Compilation& c = r.compilation;
  ASSERT_TRUE(c.pipelined);
  ASSERT_EQ(c.cycles.stageCycles.size(), 2u);
  const int64_t t0 = c.cycles.stageCycles[0], t1 = c.cycles.stageCycles[1], sync = ipuTarget("ipu2").syncCycles;
  const report::Run& run = r.execution.runs.at(0);
  // docs/ipu-model.md: N micro-batches over S stages take N + S - 1 pipeline cycles, each its
  // slowest active stage plus a sync: fill t0, steady (N - 1) max(t0, t1), drain t1.
  EXPECT_EQ(run.pipelineFillCycles, t0 + sync);
  EXPECT_EQ(run.pipelineSteadyCycles, (bps - 1) * (std::max(t0, t1) + sync));
  EXPECT_EQ(run.pipelineDrainCycles, t1 + sync);
  const int64_t io = c.cycles.hostToDevicePerMicroBatch + c.cycles.deviceToHostPerMicroBatch;
  EXPECT_EQ(run.cycles, run.pipelineFillCycles + run.pipelineSteadyCycles + run.pipelineDrainCycles + bps * io);
  // Faster than the same program without pipelining.
  EXPECT_LT(run.cycles, bps * (c.cycles.perMicroBatch + io));
  EXPECT_NE(s->getSummaryReport().find("fill "), std::string::npos);
}

// ---------------------------------------------------------------- reports

TEST(IpuModelReports, GraphReportSchemaAndCbor) {
  const Mlp m = mlp(4, 64, 32, 8);
  auto s = session(m, ipuModel(16));
  const json g = json::parse(s->getGraphReport());
  EXPECT_EQ(g["memory"]["byTile"]["total"].size(), 16u);
  for (const char* k : {"variables", "constants", "activations", "code", "vertexState", "exchange"})
    EXPECT_EQ(g["memory"]["byTile"][k].size(), 16u) << k;
  EXPECT_EQ(g["target"]["architecture"], "ipu2");
  EXPECT_EQ(g["target"]["totalMemory"], 16 * 624 * 1024);
  ASSERT_TRUE(g["ops"].is_array());
  EXPECT_EQ(g["ops"][0]["name"], "mm1");
  for (const char* k :
       {"type", "ipu", "flops", "cycles", "computeCycles", "exchangeCycles", "syncCycles", "firstTile", "numTiles"})
    EXPECT_TRUE(g["ops"][0].contains(k)) << k;
  bool sawW1 = false;
  for (const auto& t : g["tensors"]) {
    for (const char* k : {"id", "dtype", "shape", "bytes", "kind", "category", "ipu", "firstTile", "bytesPerTile",
                          "liveFrom", "liveTo"})
      EXPECT_TRUE(t.contains(k)) << k;
    if (t["id"] == "w1") {
      sawW1 = true;
      EXPECT_EQ(t["category"], "variables");
    }
  }
  EXPECT_TRUE(sawW1);
  const std::string cbor = s->getGraphReport(true);
  EXPECT_EQ(json::from_cbor(std::vector<uint8_t>(cbor.begin(), cbor.end())), g);
}

TEST(IpuModelReports, ExecutionReportRunsAndReset) {
  const Mlp m = mlp(4, 64, 32, 8);
  auto s = session(m, ipuModel(16), 2);
  runMlp(*s, m, "first");
  runMlp(*s, m, "second");
  const json e = json::parse(s->getExecutionReport(false, false));
  ASSERT_EQ(e["runs"].size(), 2u);
  EXPECT_EQ(e["runs"][0]["name"], "first");
  EXPECT_EQ(e["runs"][1]["name"], "second");
  EXPECT_EQ(e["runs"][0]["steps"].size(), 2u);
  const int64_t total = e["runs"][0]["cycles"].get<int64_t>() + e["runs"][1]["cycles"].get<int64_t>();
  EXPECT_EQ(e["simulation"]["cycles"].get<int64_t>(), total);
  ASSERT_FALSE(e["simulation"]["steps"].empty());
  EXPECT_TRUE(e["simulation"]["steps"][0].contains("cycles"));
  const std::string cbor = s->getExecutionReport(true, false);
  EXPECT_EQ(json::from_cbor(std::vector<uint8_t>(cbor.begin(), cbor.end())), e);
  // resetProfile (the default) forgets the runs after reporting them.
  EXPECT_EQ(json::parse(s->getExecutionReport())["runs"].size(), 2u);
  EXPECT_EQ(json::parse(s->getExecutionReport())["runs"].size(), 0u);
  runMlp(*s, m, "third");
  const report::Report r = s->getReport();
  EXPECT_EQ(r.compilation.target.totalMemory, 16 * 624 * 1024);
  EXPECT_EQ(r.compilation.target.architecture, "ipu2");
  ASSERT_EQ(r.execution.runs.size(), 1u);
  EXPECT_EQ(r.execution.runs[0].name, "third");
  EXPECT_NEAR(r.execution.runs[0].seconds, static_cast<double>(r.execution.runs[0].cycles) / 1.33e9, 1e-12);
}

TEST(IpuModelReports, SummaryLayout) {
  const Mlp m = mlp(4, 64, 32, 8);
  SessionOptions o;
  o.reportOptions["showExecutionSteps"] = "true";
  auto s = session(m, ipuModel(16, 1, "ipu1"), 1, o);
  runMlp(*s, m, "named");
  const std::string text = s->getSummaryReport();
  for (const char* k : {"Target:",
                        "Number of IPUs:",
                        "Tiles per IPU:",
                        "Memory per tile:",
                        "256.0 KB",
                        "Clock:",
                        "1600.0 MHz",
                        "Graph:",
                        "Number of ops:",
                        "Number of compute sets:",
                        "Memory Usage:",
                        "variables:",
                        "activations:",
                        "code:",
                        "By tile:",
                        "Maximum:",
                        "Histogram",
                        "Execution:",
                        "Cycles per micro-batch:",
                        "named:",
                        "Top ops by cycles",
                        "Program (one micro-batch):",
                        "0: mm1 (MatMul) IPU 0"})
    EXPECT_NE(text.find(k), std::string::npos) << k << "\n" << text;
}

TEST(IpuModelReports, AutoReportWritesTheReports) {
  const std::string dir = std::string(POPART_TEST_TMPDIR) + "/autoreport";
  std::filesystem::remove_all(dir);
  const Mlp m = mlp(4, 16, 16, 4);
  SessionOptions o;
  o.engineOptions["autoReport.all"] = "true";
  o.engineOptions["autoReport.directory"] = dir;
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), ipuModel(8), InputShapeInfo(), o,
                                                 Patterns(), "my_session");
  s->prepareDevice();
  const std::string base = dir + "/my_session/";
  for (const char* f : {"summary.txt", "graph.json", "execution.json"})
    EXPECT_TRUE(std::filesystem::exists(base + f)) << f;
  runMlp(*s, m, "step_one");
  std::ifstream in(base + "execution.json");
  const json e = json::parse(in);
  ASSERT_EQ(e["runs"].size(), 1u);
  EXPECT_EQ(e["runs"][0]["name"], "step_one");
}

TEST(IpuModelReports, AutoReportGoesThroughTheFileWriter) {
  // The WebAssembly module has no file system: its JS layer installs a writer (Node's fs).
  struct RestoreWriter {
    ~RestoreWriter() { report::setFileWriter({}); }  // the file system again, whatever happens
  } restore;
  std::map<std::string, std::string> written;
  report::setFileWriter([&](const std::string& path, const std::string& bytes) { written[path] = bytes; });
  const Mlp m = mlp(4, 16, 16, 4);
  SessionOptions o;
  o.engineOptions["autoReport.all"] = "true";
  o.engineOptions["autoReport.directory"] = "not/on/disk";
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), ipuModel(8), InputShapeInfo(), o);
  s->prepareDevice();
  const std::string base = (std::filesystem::path("not/on/disk") / "inference").string();
  for (const char* f : {"summary.txt", "graph.json", "execution.json"})
    EXPECT_EQ(written.count((std::filesystem::path(base) / f).string()), 1u) << f;
  EXPECT_FALSE(std::filesystem::exists("not/on/disk"));
  EXPECT_EQ(json::parse(written.at((std::filesystem::path(base) / "graph.json").string())),
            json::parse(s->getGraphReport()));
  // A writer's error is prepareDevice's / run's.
  report::setFileWriter([](const std::string& path, const std::string&) { throw error("cannot write '{}'", path); });
  auto s2 = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), ipuModel(8), InputShapeInfo(), o);
  expectError([&] { s2->prepareDevice(); }, {"cannot write '", "summary.txt'"});
}

TEST(IpuModelReports, CpuDeviceAndCallOrderErrors) {
  const Mlp m = mlp(4, 16, 16, 4);
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  for (auto f : std::vector<std::function<void()>>{[&] { s->getSummaryReport(); }, [&] { s->getGraphReport(); },
                                                   [&] { s->getExecutionReport(); }, [&] { s->getReport(); }})
    expectError(f, {"Session must have been prepared before a report can be fetched"});
  s->prepareDevice();
  expectError([&] { s->getSummaryReport(); }, {"Profiling is disabled for current device type."});
  expectError([&] { s->getGraphReport(); }, {"Profiling is disabled for current device type."});
  EXPECT_EQ(json::parse(s->getExecutionReport()), json({{"profilerMode", "NONE"}}));
  runMlp(*s, m);
  expectError([&] { s->getCycleCount(); }, {"SessionOption 'instrumentWithHardwareCycleCounter' must be"});
  // With profiling on, the CPU reports host time per op and the runs.
  SessionOptions o;
  o.engineOptions["autoReport.all"] = "true";
  o.engineOptions["autoReport.directory"] = std::string(POPART_TEST_TMPDIR) + "/cpu_autoreport";
  auto p = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), InputShapeInfo(), o);
  p->prepareDevice();
  runMlp(*p, m, "cpu_run");
  EXPECT_NE(p->getSummaryReport(false).find("Device: CPU"), std::string::npos);
  const json e = json::parse(p->getExecutionReport());
  EXPECT_EQ(e["runs"][0]["name"], "cpu_run");
  EXPECT_GT(e["runs"][0]["seconds"].get<double>(), 0.0);
  // The measured host time of every scheduled op: inside the run's time, one call per micro-batch.
  ASSERT_TRUE(e.contains("hostOps"));
  const report::Report r = p->getReport();
  ASSERT_EQ(e["hostOps"].size(), r.execution.hostOps.size());
  ASSERT_GE(r.execution.hostOps.size(), 2u);
  double sum = 0;
  std::set<std::string> types;
  for (const report::HostOp& op : r.execution.hostOps) {
    EXPECT_FALSE(op.name.empty());
    EXPECT_EQ(op.calls, 1);
    EXPECT_GE(op.seconds, 0.0);
    sum += op.seconds;
    types.insert(op.type);
  }
  EXPECT_LE(sum, e["runs"][0]["seconds"].get<double>());
  EXPECT_TRUE(types.count("MatMul") || types.count("Gemm")) << e["hostOps"].dump();
}

TEST(IpuModelReports, TrainingOnTwoIpusPlacesTheBackwardPass) {
  const Mlp m = mlp(4, 32, 32, 4, "FLOAT", {0, 1, 1});
  auto b = Builder::createFromOnnxModel(m.proto);
  const TensorId loss = b->aiGraphcoreOpset1().l1loss({m.y}, 0.1f);
  b->virtualGraph(loss, 1);
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {loss}), loss, ConstSGD(0.05f),
                                                ipuModel(64, 2), InputShapeInfo(), o);
  s->prepareDevice();
  const report::Compilation c = s->getReport().compilation;
  // w1's update runs where w1 lives (IPU 0), w2's on IPU 1.
  int updates0 = 0, updates1 = 0;
  for (const auto& op : c.ops) {
    if (op.type != "SGDVarUpdate") continue;
    (op.ipu == 0 ? updates0 : updates1)++;
  }
  EXPECT_EQ(updates0, 1);
  EXPECT_EQ(updates1, 1);
  EXPECT_GT(c.cycles.interIpuCopies, 0);
}

TEST(IpuModelReport, OpIdsNodesAndTensorProducers) {
  // Training: forward ops, their gradients, the gradient sums and the weight updates.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {4, 8}), "x");
  auto w1v = test::randomFloats(64, 1, -0.1f, 0.1f), w2v = test::randomFloats(64, 2, -0.1f, 0.1f);
  const TensorId w1 = b->addInitializedInputTensor(ConstVoidData(w1v.data(), TensorInfo("FLOAT", {8, 8})), "w1");
  const TensorId w2 = b->addInitializedInputTensor(ConstVoidData(w2v.data(), TensorInfo("FLOAT", {8, 8})), "w2");
  const TensorId h = ai.relu({ai.matmul({x, w1}, "mm1")}, "relu");
  const TensorId loss = b->aiGraphcoreOpset1().l1loss({ai.matmul({h, w2}, "mm2")}, 0.1f, ReductionType::Sum, "loss");
  b->addOutputTensor(loss);
  SGD sgd({{"defaultLearningRate", {0.01f, false}}, {"defaultMomentum", {0.9f, false}}});
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {loss}), loss, sgd, ipuModel(64));
  s->prepareDevice();
  const report::Report r = s->getReport();
  const report::Compilation& c = r.compilation;
  std::set<int64_t> ids;
  std::set<std::string> forward;
  for (const auto& op : c.ops) {
    EXPECT_TRUE(ids.insert(op.id).second) << "repeated id " << op.id;
    if (op.node == op.name) forward.insert(op.name);
  }
  int grads = 0, updates = 0;
  for (const auto& op : c.ops) {
    if (op.name.find("/grad/") != std::string::npos || op.name.rfind(reservedGradientPrefix(), 0) == 0) {
      ++grads;
      EXPECT_TRUE(forward.count(op.node)) << op.name << " -> " << op.node;
    }
    if (op.type.find("VarUpdate") != std::string::npos) {
      ++updates;
      // w1's update belongs to mm1 (the first forward op that reads w1), w2's to mm2.
      const std::string fwd = op.name.rfind("w1", 0) == 0 ? "mm1" : "mm2";
      EXPECT_EQ(op.node.rfind(fwd, 0), 0u) << op.name << " -> " << op.node;
    }
  }
  EXPECT_GE(grads, 4);
  EXPECT_EQ(updates, 2);
  // Each tensor's producer is an op of the report that lists it among its outputs' writers.
  std::map<int64_t, size_t> stepOf;
  for (size_t i = 0; i < c.ops.size(); ++i) stepOf[c.ops[i].id] = i;
  int produced = 0;
  for (const auto& t : c.tensors) {
    if (t.kind == "variable" || t.kind == "stream") {
      EXPECT_EQ(t.producer, -1) << t.id;
      continue;
    }
    if (t.producer < 0) continue;
    ++produced;
    ASSERT_TRUE(stepOf.count(t.producer)) << t.id;
    const auto& outs = c.ops[stepOf.at(t.producer)].outputs;
    if (!t.view) {
      EXPECT_NE(std::find(outs.begin(), outs.end(), t.id), outs.end()) << t.id;
    }
    if (!t.view && t.kind == "activation") {
      EXPECT_EQ(t.liveFrom, static_cast<int>(stepOf.at(t.producer))) << t.id;
    }
  }
  EXPECT_GT(produced, 4);
  const json j = json::parse(s->getGraphReport());
  EXPECT_EQ(j["ops"][0]["id"], c.ops[0].id);
  EXPECT_EQ(j["ops"][0]["node"], c.ops[0].node);
  EXPECT_EQ(j["ops"][0]["inputs"].get<std::vector<std::string>>(), c.ops[0].inputs);
  // The first MatMul reads x and w1.
  const report::Op& mm1 = opNamed(c, "mm1");
  EXPECT_EQ(mm1.inputs, (std::vector<TensorId>{x, w1}));
  EXPECT_TRUE(j["tensors"][0].contains("producer"));
}

}  // namespace
}  // namespace popart
