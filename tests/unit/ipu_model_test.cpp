// IPU-model and offline IPU devices: options and their errors, the target figures (against the
// public peak figures of docs/ipu-model.md), and the same outputs and training as the CPU device.
#include "common/test_util.hpp"

namespace popart {
namespace {

using test::dm;
using test::expectError;

TEST(IpuModelDevice, DefaultsArePopArts) {
  auto d = dm().createIpuModelDevice();
  EXPECT_EQ(d->getType(), DeviceType::IpuModel);
  EXPECT_EQ(d->getNumIpus(), 1);
  EXPECT_EQ(d->getTilesPerIPU(), 4);
  EXPECT_EQ(d->getVersion(), "ipu2");
  EXPECT_EQ(d->getNumWorkerContexts(), 6);
  EXPECT_TRUE(d->getCompileIPUCode());
  EXPECT_TRUE(d->canRun());
  EXPECT_EQ(d->getTarget().tilesPerIpu, 1472);
}

TEST(IpuModelDevice, OptionsAsStrings) {
  auto d = dm().createIpuModelDevice(
      {{"numIPUs", "2"}, {"tilesPerIPU", "1216"}, {"ipuVersion", "ipu1"}, {"compileIPUCode", "false"}});
  EXPECT_EQ(d->getNumIpus(), 2);
  EXPECT_EQ(d->getTilesPerIPU(), 1216);
  EXPECT_EQ(d->getVersion(), "ipu1");
  EXPECT_FALSE(d->getCompileIPUCode());
  EXPECT_EQ(dm().createIpuModelDevice({{"compileIPUCode", "1"}, {"ipuVersion", "ipu21"}})->getVersion(), "ipu21");
}

TEST(IpuModelDevice, BadOptionsNameTheKey) {
  expectError(
      [] {
        dm().createIpuModelDevice({{"tiles", "4"}});
      },
      {"Invalid option `tiles' passed to DevicexManager::createHostDevice for device type IpuModel", "numIPUs",
       "tilesPerIPU", "compileIPUCode", "ipuVersion"});
  expectError(
      [] {
        dm().createIpuModelDevice({{"tilesPerIPU", "0"}});
      },
      {"option 'tilesPerIPU' must be an integer from 1 to 1472", "got '0'"});
  expectError([] { dm().createIpuModelDevice({{"tilesPerIPU", "1473"}}); }, {"from 1 to 1472 (the tiles of an ipu2)"});
  expectError(
      [] {
        dm().createIpuModelDevice({{"tilesPerIPU", "1472"}, {"ipuVersion", "ipu1"}});
      },
      {"from 1 to 1216 (the tiles of an ipu1)", "got '1472'"});
  expectError([] { dm().createIpuModelDevice({{"tilesPerIPU", "4x"}}); }, {"'tilesPerIPU'", "got '4x'"});
  expectError([] { dm().createIpuModelDevice({{"numIPUs", "0"}}); }, {"option 'numIPUs'", "got '0'"});
  expectError(
      [] {
        dm().createIpuModelDevice({{"ipuVersion", "ipu3"}});
      },
      {"option 'ipuVersion' must be one of ipu1, ipu2, ipu21 (got 'ipu3')"});
  expectError(
      [] {
        dm().createIpuModelDevice({{"compileIPUCode", "yes please"}});
      },
      {"option 'compileIPUCode' must be true or false"});
}

TEST(IpuModelDevice, TargetsMatchPublicPeakFigures) {
  auto peak = [](const std::string& v, int flopsPerCycle) {
    const IpuTargetInfo& t = ipuTarget(v);
    return t.tilesPerIpu * static_cast<double>(flopsPerCycle) * t.clockHz / 1e12;  // TFLOP/s
  };
  const IpuTargetInfo& ipu1 = ipuTarget("ipu1");
  const IpuTargetInfo& ipu2 = ipuTarget("ipu2");
  const IpuTargetInfo& ipu21 = ipuTarget("ipu21");
  EXPECT_NEAR(peak("ipu1", ipu1.flopsPerTileCycleFloat), 31.1, 0.3);
  EXPECT_NEAR(peak("ipu1", ipu1.flopsPerTileCycleHalf), 124.5, 1.0);
  EXPECT_NEAR(peak("ipu2", ipu2.flopsPerTileCycleFloat), 62.5, 0.5);
  EXPECT_NEAR(peak("ipu2", ipu2.flopsPerTileCycleHalf), 250.0, 2.0);
  EXPECT_NEAR(peak("ipu21", ipu21.flopsPerTileCycleHalf), 280.0, 2.0);
  EXPECT_NEAR(peak("ipu21", ipu21.flopsPerTileCycleFp8), 560.0, 4.0);
  EXPECT_EQ(ipu1.bytesPerTile, 256 * 1024);
  EXPECT_EQ(ipu2.bytesPerTile, 624 * 1024);
  // ~900 MB of In-Processor-Memory on a GC200.
  EXPECT_NEAR(static_cast<double>(ipu2.tilesPerIpu * ipu2.bytesPerTile) / 1e6, 940.6, 1.0);
  EXPECT_NEAR(ipu2.ipuLinksPerIpu * ipu2.ipuLinkBytesPerSec / 1e9, 320.0, 1e-9);
  expectError([] { ipuTarget("gc200"); }, {"Unknown IPU version 'gc200' (known: ipu1, ipu2, ipu21)"});
  expectError([] { dm().createCpuDevice()->getTarget(); }, {"The CPU device has no IPU target"});
}

TEST(OfflineIpuDevice, CompilesButDoesNotRun) {
  auto d = dm().createOfflineIPUDevice({{"ipuVersion", "ipu2"}, {"syncPattern", "SinglePipeline"}});
  EXPECT_EQ(d->getType(), DeviceType::OfflineIpu);
  EXPECT_EQ(d->getTilesPerIPU(), 1472);  // the whole chip by default
  EXPECT_FALSE(d->canRun());
  expectError(
      [] {
        dm().createOfflineIPUDevice({{"syncPattern", "Sometimes"}});
      },
      {"option 'syncPattern' must be one of Full, SinglePipeline, ReplicaAndLadder"});
  expectError([] { dm().createOfflineIPUDevice({{"gatewayMode", "2"}}); }, {"option 'gatewayMode'"});

  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2}));
  const TensorId y = ai.relu({x});
  b->addOutputTensor(y);
  auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), d);
  s->prepareDevice();
  const std::string summary = s->getSummaryReport();
  const size_t at = summary.find("Tiles per IPU:");
  ASSERT_NE(at, std::string::npos) << summary;
  EXPECT_NE(summary.substr(at, summary.find('\n', at) - at).find("1,472"), std::string::npos) << summary;
  std::map<TensorId, NDArray> ins;
  ins.emplace(x, NDArray::fromVector(std::vector<float>{-1, 2}, {2}));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  expectError([&] { s->run(io); }, {"Offline IPU device is not configured for execution"});
}

/// A small CNN: Conv + Relu, GlobalAveragePool, a MatMul head; weights "w" and "g".
struct Cnn {
  std::string proto;
  TensorId x, y;
};

Cnn cnn() {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  Cnn m;
  m.x = b->addInputTensor(TensorInfo("FLOAT", {2, 3, 8, 8}), "x");
  auto w = test::randomFloats(4 * 3 * 3 * 3, 1, -0.5f, 0.5f);
  const TensorId wi = b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo("FLOAT", {4, 3, 3, 3})), "w");
  auto c = ai.relu({ai.conv({m.x, wi}, {1, 1}, 1, {3, 3}, {1, 1, 1, 1})});
  auto p = ai.globalaveragepool({c});
  auto f = ai.flatten({p});
  auto g = test::randomFloats(4 * 5, 2, -0.5f, 0.5f);
  const TensorId gi = b->addInitializedInputTensor(ConstVoidData(g.data(), TensorInfo("FLOAT", {4, 5})), "g");
  m.y = ai.matmul({f, gi});
  b->addOutputTensor(m.y);
  m.proto = b->getModelProto();
  return m;
}

std::vector<float> infer(const Cnn& m, std::shared_ptr<DeviceInfo> device) {
  std::map<TensorId, NDArray> ins;
  ins.emplace(m.x, NDArray::fromVector(test::randomFloats(2 * 3 * 8 * 8, 3), {2, 3, 8, 8}));
  return test::runOnce(m.proto, ins, {m.y}, {}, 1, std::move(device)).at(m.y).toVector<float>();
}

TEST(IpuModelDevice, SameOutputsAsTheCpuDevice) {
  const Cnn m = cnn();
  const auto cpu = infer(m, dm().createCpuDevice());
  const auto ipu = infer(m, dm().createIpuModelDevice({{"tilesPerIPU", "1472"}}));
  EXPECT_EQ(cpu, ipu);  // the same kernels: bit for bit
}

// createSimDevice: PopART's shape (1 IPU of 4 tiles by default, numIPUs / tilesPerIPU), run by
// the IPU model; the report's target says "Sim".
TEST(SimDevice, IsShapedAsPopArtsAndRunsOnTheIpuModel) {
  auto d = dm().createSimDevice();
  EXPECT_EQ(d->getType(), DeviceType::Sim);
  EXPECT_EQ(d->getNumIpus(), 1);
  EXPECT_EQ(d->getTilesPerIPU(), 4);
  EXPECT_TRUE(d->canRun());
  auto two = dm().createSimDevice({{"numIPUs", "2"}, {"tilesPerIPU", "8"}});
  EXPECT_EQ(two->getNumIpus(), 2);
  EXPECT_EQ(two->getTilesPerIPU(), 8);
  expectError(
      [] {
        dm().createSimDevice({{"ipuVersion", "ipu2"}});
      },
      {"Invalid option `ipuVersion' passed to DevicexManager::createHostDevice for device type Sim"});
  expectError([] { dm().createSimDevice({{"numIPUs", "many"}}); }, {"createSimDevice: option 'numIPUs'"});

  const Cnn m = cnn();
  EXPECT_EQ(infer(m, dm().createCpuDevice()), infer(m, dm().createSimDevice()));
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), dm().createSimDevice());
  s->prepareDevice();
  EXPECT_NE(s->getSummaryReport().find("Sim"), std::string::npos) << s->getSummaryReport();
}

TEST(IpuModelDevice, TrainsToTheCpuDevicesWeights) {
  const Cnn m = cnn();
  auto train = [&](std::shared_ptr<DeviceInfo> device) {
    auto b = Builder::createFromOnnxModel(m.proto);
    const TensorId loss = b->aiGraphcoreOpset1().l1loss({m.y}, 0.1f);
    auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(2, {loss}), loss, ConstSGD(0.05f),
                                                  std::move(device));
    s->prepareDevice();
    s->weightsFromHost();
    std::map<TensorId, NDArray> ins;
    ins.emplace(m.x, NDArray::fromVector(test::randomFloats(2 * 2 * 3 * 8 * 8, 4), {2, 2, 3, 8, 8}));
    auto out = s->initAnchorArrays();
    StepIO io(arrayRefs(ins), arrayRefs(out));
    s->run(io);
    std::vector<float> w(4 * 3 * 3 * 3), g(4 * 5);
    WeightsIO wio;
    wio.insert("w", MutableVoidData(w.data(), TensorInfo("FLOAT", {4, 3, 3, 3})));
    wio.insert("g", MutableVoidData(g.data(), TensorInfo("FLOAT", {4, 5})));
    s->weightsToHost();
    s->readWeights(wio);
    w.insert(w.end(), g.begin(), g.end());
    return w;
  };
  const auto cpu = train(dm().createCpuDevice());
  const auto ipu = train(dm().createIpuModelDevice({{"tilesPerIPU", "1472"}}));
  EXPECT_EQ(cpu, ipu);
  EXPECT_NE(cpu[0], test::randomFloats(4 * 3 * 3 * 3, 1, -0.5f, 0.5f)[0]);  // the step changed the weights
}

}  // namespace
}  // namespace popart
