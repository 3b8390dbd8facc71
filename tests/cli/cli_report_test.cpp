// `popart report` (native/popart_cli.cpp), run as a process: the summary on stdout, the graph
// report (JSON and CBOR) and the execution report written, the defaults (file names, whole chip),
// several IPUs, a dynamic input fixed with --shape, and bad input: each a clear message and a
// non-zero exit, never a crash. The zoo's mlp (tests/zoo/make_zoo.py in POPART_ZOO_DIR) is the real
// model; the error cases use small Builder models written to POPART_TEST_TMPDIR.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.hpp"
#include "onnx.pb.h"
#include "popart/popart.hpp"

namespace popart {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// A fresh directory for one test.
std::string tmpDir(const std::string& name) {
  const fs::path d = fs::path(POPART_TEST_TMPDIR) / "cli_report" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

using cli_test::Result;
using cli_test::zooModel;

/// Runs `popart report ARGS` in `cwd`.
Result report(const std::string& args, const std::string& cwd = ".") {
  return cli_test::runCli("report " + args, cwd);
}

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

/// x [rows, cols] @ w [cols, cols] (weight "w", random), written to `path`; the input's first
/// dimension is the dim_param "batch" when `dynamicBatch`.
void writeMatMulModel(const std::string& path, int64_t rows, int64_t cols, bool dynamicBatch = false) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {rows, cols}), "x");
  std::vector<float> w(static_cast<size_t>(cols * cols), 0.01f);
  const TensorId wi = b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo("FLOAT", {cols, cols})), "w");
  b->addOutputTensor(ai.matmul({x, wi}, "mm"));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(b->getModelProto()));
  if (dynamicBatch) {
    auto* d =
        m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
    d->clear_dim_value();
    d->set_dim_param("batch");
  }
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
}

TEST(CliReport, ZooMlpOnAFullIpu2) {
  const std::string dir = tmpDir("mlp");
  const Result r = report(zooModel("mlp") + " --device ipu2 --tiles 1472 --run --json " + dir + "/g.json --cbor " +
                          dir + "/g.cbor --execution-json " + dir + "/e.json --document " + dir + "/d.json");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* s : {"Target:", "Tiles per IPU:", "1,472", "Memory Usage:", "Tiles out of memory:", "Execution:",
                        "Cycles per micro-batch:", "graph report: ", "execution report: "})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  const json g = json::parse(readFile(dir + "/g.json"));
  ASSERT_TRUE(g["memory"]["byTile"]["total"].is_array());
  EXPECT_EQ(g["memory"]["byTile"]["total"].size(), 1472u);
  EXPECT_EQ(json::from_cbor(readFile(dir + "/g.cbor")), g);
  const json e = json::parse(readFile(dir + "/e.json"));
  ASSERT_EQ(e["runs"].size(), 1u) << e.dump();
  EXPECT_EQ(e["runs"][0]["name"], "run");
  EXPECT_GT(e["simulation"]["cycles"].get<int64_t>(), 0);
  // The one document (Python's and JS's getReport()): the graph and execution reports as its halves.
  const json d = json::parse(readFile(dir + "/d.json"));
  EXPECT_EQ(d, json({{"compilation", g}, {"execution", e}}));
}

TEST(CliReport, SchemaIsTheCoresTable) {
  const Result r = report("--schema");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(json::parse(r.out), json::parse(report::schemaJson()));
}

TEST(CliReport, DefaultsWholeChipAndFileNames) {
  const std::string dir = tmpDir("defaults");
  const Result r = report(zooModel("mlp") + " --device ipu1 --show-steps", dir);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Program (one micro-batch):"), std::string::npos) << r.output;
  const json g = json::parse(readFile(dir + "/mlp.report.json"));
  EXPECT_EQ(g["memory"]["byTile"]["total"].size(), 1216u);  // ipu1's whole chip
  const json e = json::parse(readFile(dir + "/mlp.execution.json"));
  EXPECT_EQ(e["runs"].size(), 0u);  // no --run
}

TEST(CliReport, SeveralIpusAndBatchesPerStep) {
  const std::string dir = tmpDir("ipus");
  const Result r = report(zooModel("mlp") + " --tiles 16 --num-ipus 2 --batches-per-step 3 --run --json " + dir +
                          "/g.json --execution-json " + dir + "/e.json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("IPU 1:"), std::string::npos) << r.output;
  EXPECT_EQ(json::parse(readFile(dir + "/g.json"))["memory"]["byTile"]["total"].size(), 32u);
  const json e = json::parse(readFile(dir + "/e.json"));
  ASSERT_EQ(e["runs"].size(), 1u);
  EXPECT_EQ(e["runs"][0]["microBatches"], 3);
}

TEST(CliReport, VirtualGraphAnnotationsPlaceOpsManually) {
  // Two MatMuls annotated for IPUs 1 and 0 (against the schedule's order, which Auto would not do).
  const std::string dir = tmpDir("manual");
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 4}), "x");
  std::vector<float> w(16, 0.5f);
  const TensorId wi = b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo("FLOAT", {4, 4})), "w");
  const TensorId a = ai.matmul({x, wi}, "first");
  b->virtualGraph(a, 1);
  const TensorId y = ai.matmul({a, wi}, "second");
  b->virtualGraph(y, 0);
  b->addOutputTensor(y);
  std::ofstream(dir + "/vg.onnx", std::ios::binary) << b->getModelProto();
  const Result r = report("vg.onnx --num-ipus 2 --tiles 4 --run", dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const json g = json::parse(readFile(dir + "/vg.report.json"));
  std::map<std::string, int> ipuOf;  // the second node is named "second_1" (names are unique)
  for (const json& op : g["ops"]) ipuOf[op["name"].get<std::string>().substr(0, 5)] = op["ipu"].get<int>();
  EXPECT_EQ(ipuOf["first"], 1) << g["ops"].dump();
  EXPECT_EQ(ipuOf["secon"], 0) << g["ops"].dump();
  EXPECT_NE(r.output.find("Inter-IPU copies:"), std::string::npos) << r.output;
  // On one IPU (virtualGraphMode Off) the annotations are not used.
  const Result one = report("vg.onnx --num-ipus 1", dir);
  EXPECT_EQ(one.status, 0) << one.output;
}

TEST(CliReport, DynamicInputFixedWithShape) {
  const std::string dir = tmpDir("dynamic");
  writeMatMulModel(dir + "/dyn.onnx", 4, 8, true);
  const Result bad = report("dyn.onnx", dir);
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_NE(bad.output.find("error: input 'x' has the shape [batch, 8]: give it with --shape x=d0,d1,..."),
            std::string::npos)
      << bad.output;
  const Result r = report("dyn.onnx --shape x=5,8 --run", dir);
  ASSERT_EQ(r.status, 0) << r.output;
  const json g = json::parse(readFile(dir + "/dyn.report.json"));
  bool found = false;
  for (const json& t : g["tensors"])
    if (t["id"] == "x") found = t["shape"] == json::array({5, 8});
  EXPECT_TRUE(found) << g["tensors"].dump();
}

TEST(CliReport, OutOfMemoryOnAnOfflineIpu) {
  const std::string dir = tmpDir("oom");
  writeMatMulModel(dir + "/big.onnx", 2, 1024);  // a 4 MiB weight on 4 tiles of 624 KiB
  const Result r = report("big.onnx --offline --tiles 4", dir);
  EXPECT_EQ(r.status, 3) << r.output;
  for (const char* s : {"Out of memory: Cannot fit all variable data", "Memory Usage:", "Tiles out of memory:", "'w'"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  EXPECT_FALSE(fs::exists(dir + "/big.report.json"));
  // The IPU model compiles it anyway and says it does not fit.
  const Result m = report("big.onnx --tiles 4", dir);
  EXPECT_EQ(m.status, 0) << m.output;
  EXPECT_NE(m.output.find("does not fit: 4 tile(s)"), std::string::npos) << m.output;
  // The whole chip holds it.
  EXPECT_EQ(report("big.onnx --offline", dir).status, 0);
}

TEST(CliReport, BadInputIsAClearErrorNotACrash) {
  const std::string dir = tmpDir("errors");
  writeMatMulModel(dir + "/small.onnx", 2, 4);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"small.onnx --device ipu3", "unknown device 'ipu3' for --device: the IPU versions are ipu1, ipu2, ipu21"},
      {"small.onnx --device ipu1 --tiles 1472", "--tiles must be from 1 to 1216 (the tiles of an ipu1), got 1472"},
      {"small.onnx --tiles 0", "--tiles wants an integer >= 1 (got '0')"},
      {"small.onnx --tiles many", "--tiles wants an integer >= 1 (got 'many')"},
      {"small.onnx --num-ipus", "--num-ipus needs a value"},
      {"missing.onnx", "model file 'missing.onnx' not found"},
      {"small.onnx --offline --run", "--run needs the IPU model"},
      {"small.onnx --shape y=1,2", "--shape: the model has no input 'y'"},
      {"small.onnx --json " + dir + "/no/such/dir/g.json", "cannot write '"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = report(args, dir);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("error: " + message), std::string::npos) << args << "\n" << r.output;
  }
  const Result u = report("small.onnx --tile 4", dir);
  EXPECT_EQ(u.status, 2) << u.output;
  EXPECT_NE(u.output.find("unknown option '--tile'"), std::string::npos) << u.output;
  EXPECT_NE(u.output.find("usage: popart"), std::string::npos) << u.output;
  std::ofstream(dir + "/garbage.onnx") << "not a model";
  const Result g = report("garbage.onnx", dir);
  EXPECT_EQ(g.status, 1) << g.output;
  EXPECT_NE(g.output.find("error: "), std::string::npos) << g.output;
}

}  // namespace
}  // namespace popart
