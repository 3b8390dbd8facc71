// VirtualGraphMode::Auto: PopART's AutoVirtualGraph split (passes/auto_virtual_graph.hpp), as
// serializeIr (Python's _serializeIr) shows it in each op's __ipu_number. The expected splits
// follow PopART's documented algorithm: regions grown from each input's consumers, a new region
// where two meet, IPU i filled up to i/n of the total weight bytes, splitting a region at the op
// nearest the budget. Also: PopART's error when there are too few split points, gradient ops on
// their forward op's IPU, the IPU model's report following the split, and unchanged results.
#include <nlohmann/json.hpp>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;

std::shared_ptr<DeviceInfo> autoIpus(int ipus, int tiles = 16) {
  return test::dm().createIpuModelDevice({{"numIPUs", std::to_string(ipus)}, {"tilesPerIPU", std::to_string(tiles)}});
}

SessionOptions autoOptions() {
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Auto;
  return o;
}

/// Every op of the main graph (serializeIr): name -> its __ipu_number, -1 when absent.
std::map<std::string, int64_t> avgIpus(const Session& s) {
  const auto ir = nlohmann::json::parse(s.serializeIr(IrSerializationFormat::JSON));
  std::map<std::string, int64_t> r;
  for (const auto& op : ir.at("maingraph")) {
    const auto& a = op.at("attributes");
    r[op.at("name").get<std::string>()] =
        a.contains("__ipu_number") ? std::stoll(a.at("__ipu_number").get<std::string>()) : -1;
  }
  return r;
}

/// The IPU of the op the Builder named `base` (it appends "_<n>" to every name but the first).
int64_t ipuOfNode(const std::map<std::string, int64_t>& ipus, const std::string& base) {
  for (const auto& [name, ipu] : ipus) {
    if (name == base) return ipu;
    const std::string rest = name.rfind(base + "_", 0) == 0 ? name.substr(base.size() + 1) : "";
    if (!rest.empty() && rest.find_first_not_of("0123456789") == std::string::npos) return ipu;
  }
  throw std::runtime_error("no op named " + base);
}

TensorId avgWeight(Builder& b, int64_t rows, int64_t cols, uint32_t seed, const std::string& name) {
  const auto v = test::randomFloats(static_cast<size_t>(rows * cols), seed, -0.5f, 0.5f);
  return b.addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo(DataType::FLOAT, {rows, cols})), name);
}

/// PopART's picture: A (from x0) -> C, B (from x1); D = C + B -> E. Every MatMul has an 8x8 weight
/// (256 bytes), the Add none: regions {A, C} (512), {B} (256), {D, E} (256).
struct Branches {
  std::string proto;
  TensorId x0, x1, y;
};
Branches avgBranches() {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  Branches m;
  m.x0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 8}), "x0");
  m.x1 = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 8}), "x1");
  const TensorId a = ai.matmul({m.x0, avgWeight(*b, 8, 8, 1, "wA")}, "A");
  const TensorId c = ai.matmul({a, avgWeight(*b, 8, 8, 2, "wC")}, "C");
  const TensorId bb = ai.matmul({m.x1, avgWeight(*b, 8, 8, 3, "wB")}, "B");
  const TensorId d = ai.add({c, bb}, "D");
  m.y = ai.matmul({d, avgWeight(*b, 8, 8, 4, "wE")}, "E");
  b->addOutputTensor(m.y);
  m.proto = b->getModelProto();
  return m;
}

std::map<TensorId, NDArray> avgBranchInputs(const Branches& m) {
  std::map<TensorId, NDArray> in;
  in.emplace(m.x0, NDArray::fromVector(test::randomFloats(32, 11), {4, 8}));
  in.emplace(m.x1, NDArray::fromVector(test::randomFloats(32, 12), {4, 8}));
  return in;
}

TEST(AutoVirtualGraph, TwoBranchesOnTwoIpus) {
  const Branches m = avgBranches();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), autoIpus(2), {}, autoOptions());
  // Total 1024 bytes, IPU 0's budget 512: the first region exactly (a split at its end).
  const auto ipu = avgIpus(*s);
  EXPECT_EQ(ipuOfNode(ipu, "A"), 0);
  EXPECT_EQ(ipuOfNode(ipu, "C"), 0);
  EXPECT_EQ(ipuOfNode(ipu, "B"), 1);
  EXPECT_EQ(ipuOfNode(ipu, "D"), 1);
  EXPECT_EQ(ipuOfNode(ipu, "E"), 1);
  // The IPU model's report places the ops and their weights the same way.
  s->prepareDevice();
  const report::Compilation c = s->getReport().compilation;
  for (const auto& op : c.ops) EXPECT_EQ(op.ipu, ipu.at(op.name)) << op.name;
  const std::map<std::string, int> weightIpu{{"wA", 0}, {"wC", 0}, {"wB", 1}, {"wE", 1}};
  for (const auto& t : c.tensors) {
    auto it = weightIpu.find(t.id);
    EXPECT_EQ(t.mapping.ipu, it == weightIpu.end() ? t.mapping.ipu : it->second) << t.id;
  }
}

TEST(AutoVirtualGraph, TwoBranchesOnFourIpus) {
  const Branches m = avgBranches();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), autoIpus(4), {}, autoOptions());
  // Budgets 256, 512, 768: {A, C} split after A, then {B}, then {D, E}.
  const auto ipu = avgIpus(*s);
  EXPECT_EQ(ipuOfNode(ipu, "A"), 0);
  EXPECT_EQ(ipuOfNode(ipu, "C"), 1);
  EXPECT_EQ(ipuOfNode(ipu, "B"), 2);
  EXPECT_EQ(ipuOfNode(ipu, "D"), 3);
  EXPECT_EQ(ipuOfNode(ipu, "E"), 3);
}

TEST(AutoVirtualGraph, ResultsUnchanged) {
  const Branches m = avgBranches();
  auto run = [&](std::shared_ptr<DeviceInfo> d, const SessionOptions& o) {
    auto in = avgBranchInputs(m);
    auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), std::move(d), {}, o);
    s->prepareDevice();
    auto out = s->initAnchorArrays();
    StepIO io(arrayRefs(in), arrayRefs(out));
    s->run(io);
    return out.at(m.y).toVector<float>();
  };
  const auto ref = run(test::cpu(), {});
  for (int ipus : {2, 4}) EXPECT_EQ(run(autoIpus(ipus), autoOptions()), ref) << ipus << " IPUs";
}

/// x -> mm1 -> relu1 -> mm2 -> relu2 -> ... -> mm<n>: weights [k, k] scaled by `sizes` rows.
struct Chain {
  std::string proto;
  TensorId x, y;
};
Chain avgChain(const std::vector<int64_t>& sizes) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  Chain m;
  int64_t k = sizes.at(0);
  m.x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2, k}), "x");
  TensorId t = m.x;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t n = i + 1 < sizes.size() ? sizes[i + 1] : 4;
    const std::string id = std::to_string(i + 1);
    t = ai.matmul({t, avgWeight(*b, k, n, static_cast<uint32_t>(i + 1), "w" + id)}, "mm" + id);
    if (i + 1 < sizes.size()) t = ai.relu({t}, "relu" + id);
    k = n;
  }
  m.y = t;
  b->addOutputTensor(m.y);
  m.proto = b->getModelProto();
  return m;
}

TEST(AutoVirtualGraph, ChainOnFourIpus) {
  // Four weights of 16 x 16 floats: the budgets fall on mm1, mm2, mm3; a cut op stays on its
  // IPU and the Relu after it goes to the next.
  const Chain m = avgChain({16, 16, 16, 16});
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), autoIpus(4), {}, autoOptions());
  const auto ipu = avgIpus(*s);
  EXPECT_EQ(ipuOfNode(ipu, "mm1"), 0);
  EXPECT_EQ(ipuOfNode(ipu, "relu1"), 1);
  EXPECT_EQ(ipuOfNode(ipu, "mm2"), 1);
  EXPECT_EQ(ipuOfNode(ipu, "relu2"), 2);
  EXPECT_EQ(ipuOfNode(ipu, "mm3"), 2);
  EXPECT_EQ(ipuOfNode(ipu, "relu3"), 3);
  EXPECT_EQ(ipuOfNode(ipu, "mm4"), 3);
}

TEST(AutoVirtualGraph, ChainSplitsByBytesNotByOps) {
  // w1 8x8, w2 8x8, w3 8x16, w4 16x4: 256, 256, 512, 256 bytes = 1280; IPU 0's budget is 640 and
  // the nearest split point mm2 (512, 128 below) rather than mm3 (1024, 384 above): three ops on
  // IPU 0 (mm1, relu1, mm2), four on IPU 1.
  const Chain m = avgChain({8, 8, 8, 16});
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), autoIpus(2), {}, autoOptions());
  const auto ipu = avgIpus(*s);
  EXPECT_EQ(ipuOfNode(ipu, "mm1"), 0);
  EXPECT_EQ(ipuOfNode(ipu, "mm2"), 0);
  EXPECT_EQ(ipuOfNode(ipu, "mm3"), 1);
  EXPECT_EQ(ipuOfNode(ipu, "mm4"), 1);
}

TEST(AutoVirtualGraph, TooFewSplitsIsPopartsError) {
  // One weighted op: one split point, so two IPUs at most.
  const Chain one = avgChain({8});
  expectError(
      [&] { InferenceSession::createFromOnnxModel(one.proto, DataFlow(1, {one.y}), autoIpus(4), {}, autoOptions()); },
      {"[AutoVirtualGraph] Couldn't find enough splits for 4 IPUs. Only found 1"});
  InferenceSession::createFromOnnxModel(one.proto, DataFlow(1, {one.y}), autoIpus(2), {}, autoOptions());
  // No weights at all: nothing to balance, no split.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {4}), "x");
  const TensorId y = ai.exp({ai.sin({x})});
  b->addOutputTensor(y);
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), autoIpus(2), {}, autoOptions());
      },
      {"[AutoVirtualGraph] Couldn't find enough splits for 2 IPUs. Only found 0"});
  // Replication: 4 IPUs, 2 replicas of 2 IPUs each.
  SessionOptions rep = autoOptions();
  rep.enableReplicatedGraphs = true;
  rep.replicatedGraphCount = 2;
  InferenceSession::createFromOnnxModel(one.proto, DataFlow(1, {one.y}), autoIpus(4), {}, rep);
}

TEST(AutoVirtualGraph, OffOneIpuAndOtherModesWriteNoIds) {
  const Branches m = avgBranches();
  auto one = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), autoIpus(1), {}, autoOptions());
  for (const auto& [name, ipu] : avgIpus(*one)) EXPECT_EQ(ipu, -1) << name;
  SessionOptions rep = autoOptions();  // 2 IPUs, 2 replicas: one IPU per replica
  rep.enableReplicatedGraphs = true;
  rep.replicatedGraphCount = 2;
  auto r = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), autoIpus(2), {}, rep);
  for (const auto& [name, ipu] : avgIpus(*r)) EXPECT_EQ(ipu, -1) << name;
  auto cpu = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), {}, autoOptions());
  for (const auto& [name, ipu] : avgIpus(*cpu)) EXPECT_EQ(ipu, -1) << name;
}

/// x [1, 64] -> mm1 (w1 64x64) -> relu -> mm2 (w2 64x64) -> L1 loss.
struct AvgTrain {
  std::string proto;
  TensorId x, loss;
};
AvgTrain avgTrainModel() {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  AvgTrain m;
  m.x = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 64}), "x");
  const TensorId h = ai.relu({ai.matmul({m.x, avgWeight(*b, 64, 64, 5, "w1")}, "mm1")}, "relu");
  const TensorId y = ai.matmul({h, avgWeight(*b, 64, 64, 6, "w2")}, "mm2");
  m.loss = b->aiGraphcoreOpset1().l1loss({y}, 0.1f, ReductionType::Sum, "loss");
  b->addOutputTensor(m.loss);
  m.proto = b->getModelProto();
  return m;
}

TEST(AutoVirtualGraph, TrainingGradientOpsFollowTheirForwardOp) {
  const AvgTrain m = avgTrainModel();
  ConstSGD sgd(0.1f);
  auto s =
      TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, sgd, autoIpus(2), {}, autoOptions());
  const auto ipu = avgIpus(*s);
  // The weights (16 KiB each) dominate the cost (plus the 256-byte activations the backward
  // pass reads): one MatMul per IPU.
  EXPECT_EQ(ipuOfNode(ipu, "mm1"), 0);
  EXPECT_EQ(ipuOfNode(ipu, "mm2"), 1);
  int grads = 0;
  for (const auto& [name, id] : ipu) {
    EXPECT_GE(id, 0) << name << " has no __ipu_number";
    const size_t g = name.find("/grad");
    if (g == std::string::npos || !ipu.count(name.substr(0, g))) continue;
    EXPECT_EQ(id, ipu.at(name.substr(0, g))) << name;  // "<forward op>/grad/..."
    ++grads;
  }
  EXPECT_GE(grads, 4);
  // The weight updates go where their weight is read.
  int updates = 0;
  const auto ir = nlohmann::json::parse(s->serializeIr(IrSerializationFormat::JSON));
  for (const auto& op : ir.at("maingraph")) {
    if (op.at("type").get<std::string>().find("VarUpdate") == std::string::npos) continue;
    const std::string w = op.at("inputs").at(0).at("name");
    EXPECT_EQ(ipu.at(op.at("name")), w == "w1" ? 0 : 1) << w;
    ++updates;
  }
  EXPECT_EQ(updates, 2);
  // The IPU model's report follows the ids.
  s->prepareDevice();
  for (const auto& op : s->getReport().compilation.ops) EXPECT_EQ(op.ipu, ipu.at(op.name)) << op.name;
}

TEST(AutoVirtualGraph, TrainingResultsUnchanged) {
  const AvgTrain m = avgTrainModel();
  auto train = [&](std::shared_ptr<DeviceInfo> d, const SessionOptions& o) {
    ConstSGD sgd(0.1f);
    auto s = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, sgd, std::move(d), {}, o);
    s->prepareDevice();
    s->weightsFromHost();
    std::map<TensorId, NDArray> in;
    in.emplace(m.x, NDArray::fromVector(test::randomFloats(64, 21), {1, 64}));
    auto out = s->initAnchorArrays();
    StepIO io(arrayRefs(in), arrayRefs(out));
    for (int i = 0; i < 3; ++i) s->run(io);
    s->weightsToHost();
    std::vector<float> w1(64 * 64), w2(64 * 64);
    WeightsIO wio;
    wio.insert("w1", MutableVoidData(w1.data(), TensorInfo(DataType::FLOAT, {64, 64})));
    wio.insert("w2", MutableVoidData(w2.data(), TensorInfo(DataType::FLOAT, {64, 64})));
    s->readWeights(wio);
    w1.insert(w1.end(), w2.begin(), w2.end());
    w1.push_back(out.at(m.loss).toVector<float>().at(0));
    return w1;
  };
  EXPECT_EQ(train(autoIpus(2), autoOptions()), train(test::cpu(), {}));
}

TEST(AutoVirtualGraph, PipeliningDepthAtSessionCreation) {
  // PopART's Pipeline transform: with Auto, a stage per IPU, checked when the session is made.
  const Chain m = avgChain({8, 8});
  SessionOptions o = autoOptions();
  o.enablePipelining = true;
  expectError([&] { InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), autoIpus(2), {}, o); },
              {"For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages (2)"});
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(2, {m.y}), autoIpus(2), {}, o);
  s->prepareDevice();
  EXPECT_TRUE(s->getReport().compilation.pipelined);
}

}  // namespace
}  // namespace popart
