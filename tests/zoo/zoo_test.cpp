// The reference zoo (tests/zoo/make_zoo.py): every model, imported with InferenceSession on the
// CPU device, matches PyTorch's output within 1e-4 absolute; on the IPU model (a whole ipu2,
// 1,472 tiles) it prepares, is laid out on every tile, and gives the CPU device's output bit for
// bit (the IPU model runs the CPU kernels).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "popart/popart.hpp"

namespace popart {
namespace {

std::string zooDir() {
  const char* env = std::getenv("POPART_ZOO_DIR");
  return env ? env : POPART_ZOO_DIR;
}

std::vector<float> readFloats(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw error("cannot open '{}': build the zoo with tests/zoo/make_zoo.py {}", path, zooDir());
  const auto n = static_cast<size_t>(f.tellg()) / 4;
  f.seekg(0);
  std::vector<float> v(n);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * 4));
  return v;
}

class Zoo : public ::testing::TestWithParam<std::string> {};

TEST_P(Zoo, MatchesPyTorch) {
  const std::string base = zooDir() + "/" + GetParam();
  const std::vector<float> x = readFloats(base + ".input.bin");
  const std::vector<float> ref = readFloats(base + ".output.bin");
  auto device = DeviceManager::createDeviceManager().createCpuDevice();
  auto session = InferenceSession::createFromOnnxModel(base + ".onnx", DataFlow(1, {"output"}), device);
  session->prepareDevice();
  const TensorInfo inInfo = session->getInfo("input");
  ASSERT_EQ(static_cast<size_t>(inInfo.nelms()), x.size());
  NDArray in = NDArray::fromVector(x, inInfo.shape());
  std::map<TensorId, NDArray> ins;
  ins.emplace("input", std::move(in));
  auto anchors = session->initAnchorArrays();
  StepIO stepio(arrayRefs(ins), arrayRefs(anchors));
  for (int rep = 0; rep < 2; ++rep) {  // a second run must give the same answer (no stale state)
    session->run(stepio);
    const NDArray& y = anchors.at("output");
    ASSERT_EQ(y.nelms(), ref.size());
    const float* p = y.dataAs<float>();
    double maxDiff = 0;
    for (size_t i = 0; i < ref.size(); ++i) maxDiff = std::max(maxDiff, std::abs(static_cast<double>(p[i]) - ref[i]));
    EXPECT_LE(maxDiff, 1e-4) << GetParam() << ": max |ours - PyTorch| = " << maxDiff;
  }
}

/// The model's output for the zoo's input on `device`, and its session.
std::vector<float> runOn(const std::string& base, std::shared_ptr<DeviceInfo> device,
                         std::unique_ptr<InferenceSession>& session) {
  session = InferenceSession::createFromOnnxModel(base + ".onnx", DataFlow(1, {"output"}), std::move(device));
  session->prepareDevice();
  std::map<TensorId, NDArray> ins;
  ins.emplace("input", NDArray::fromVector(readFloats(base + ".input.bin"), session->getInfo("input").shape()));
  auto anchors = session->initAnchorArrays();
  StepIO stepio(arrayRefs(ins), arrayRefs(anchors));
  session->run(stepio, "zoo");
  return anchors.at("output").toVector<float>();
}

TEST_P(Zoo, IpuModelGivesTheCpuOutputs) {
  const std::string base = zooDir() + "/" + GetParam();
  std::unique_ptr<InferenceSession> cpu, ipu;
  const std::vector<float> yCpu = runOn(base, DeviceManager::createDeviceManager().createCpuDevice(), cpu);
  const std::vector<float> yIpu =
      runOn(base, DeviceManager::createDeviceManager().createIpuModelDevice({{"tilesPerIPU", "1472"}}), ipu);
  ASSERT_EQ(yCpu.size(), yIpu.size());
  EXPECT_TRUE(yCpu == yIpu) << GetParam() << ": the IPU model's output differs from the CPU device's";
  const report::Report r = ipu->getReport();
  EXPECT_EQ(r.compilation.memory.byTileTotal.size(), 1472u);
  EXPECT_GT(r.compilation.memory.total, 0);
  EXPECT_GT(r.compilation.cycles.perMicroBatch, 0);
  ASSERT_EQ(r.execution.runs.size(), 1u);
  EXPECT_EQ(r.execution.runs[0].name, "zoo");
}

INSTANTIATE_TEST_SUITE_P(ReferenceModels, Zoo,
                         ::testing::Values("mlp", "cnn_small", "alexnet", "resnet18", "mobilenet_v2", "squeezenet1_0",
                                           "transformer_layer", "transformer_layer_opset17"));

}  // namespace
}  // namespace popart
