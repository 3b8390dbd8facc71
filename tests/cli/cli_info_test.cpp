// `popart info MODEL [--json]` (native/popart_cli.cpp), run as a process: the text summary of
// describeModel (inputs, outputs with the inferred shapes, parameters, the op histogram, the shape
// inference status), --json printing toJson's document, and bad input (a clear message, exit 1).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "onnx.pb.h"
#include "popart/describe.hpp"
#include "popart/popart.hpp"

namespace popart {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cli_test::Result;
using cli_test::zooModel;

Result info(const std::string& args) {
  return cli_test::runCli("info " + args);
}

std::string tmpModel(const std::string& name, const std::string& bytes) {
  fs::create_directories(POPART_TEST_TMPDIR);
  const std::string path = (fs::path(POPART_TEST_TMPDIR) / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(CliInfo, Text) {
  const Result r = info("'" + zooModel("mlp") + "'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  for (const char* part : {"(ir_version ", "producer 'pytorch", "  opset ai.onnx 13\n",
                           "  input  input FLOAT [32 784]\n", "  output output FLOAT [32 10] (inferred)\n",
                           "6 nodes, 6 initializers (669706 parameters, "
                           "2678824 bytes)\n",
                           "  ops: Gemm x3 Relu x2 Softmax x1\n", "  shape inference: ok\n"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << "missing '" << part << "' in\n" << r.out;
  }
}

TEST(CliInfo, Json) {
  const std::string path = zooModel("resnet18");
  const Result r = info("'" + path + "' --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j, json::parse(toJson(describeModel(path))));
  EXPECT_EQ(j["parameterCount"], 11684712);
  EXPECT_EQ(j["opHistogram"]["Conv"], 20);
  EXPECT_TRUE(j["shapeInference"]["ok"]);
  EXPECT_EQ(info("--json '" + path + "'").out, r.out);
}

TEST(CliInfo, UnknownOpAndSymbolicShapes) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  b->addOutputTensor(ai.relu({x}, "r"));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(b->getModelProto()));
  auto* d = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  d->clear_dim_value();
  d->set_dim_param("batch");
  m.mutable_graph()->mutable_node(0)->set_op_type("NotAnOnnxOp");
  std::string bytes;
  m.SerializeToString(&bytes);
  const Result r = info("'" + tmpModel("cli_info_unknown.onnx", bytes) + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("  input  x FLOAT [batch 3]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ops: NotAnOnnxOp x1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shape inference: failed: "), std::string::npos) << r.out;
}

TEST(CliInfo, BadInput) {
  const Result r = info("'" + tmpModel("cli_info_text.onnx", "not a model\n") + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("error: Failed to load a ModelProto from the file"), std::string::npos) << r.err;
  const Result missing = info("/no/such/file.onnx");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("There is no file at that path"), std::string::npos) << missing.err;
  EXPECT_EQ(info("a.onnx --yaml").status, 2);  // usage
}

}  // namespace
}  // namespace popart
