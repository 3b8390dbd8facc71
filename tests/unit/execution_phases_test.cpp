// Phased execution (VirtualGraphMode::ExecutionPhases, passes/execution_phases.hpp): PopART's
// option and annotation checks, the phases of the backward ops (2 * phases - 2 - p) and the
// schedule running the phases in order, training on the CPU identical to unphased training, and
// the IPU model: ops on IPU phase % stages, weights in streaming memory (OffChip) in tile memory
// only during their phase (a model over one IPU's memory fits), streaming loads in the cycles.
#include <cmath>
#include <cstring>

#include "common/test_util.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

using test::dm;
using test::expectError;

/// x [rows, width] -> `layers` x MatMul by a weight "w<k>" [width, width] (node "mm<k>") -> L1
/// loss; `annotate(b, out, k)` places layer k's node (the loss with the last layer).
struct PhChain {
  std::string proto;
  TensorId x, y, loss;
};
using PhAnnotate = std::function<void(Builder&, const TensorId&, int)>;

PhChain phChain(int layers, int64_t rows, int64_t width, const PhAnnotate& annotate = nullptr) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  PhChain c;
  c.x = b->addInputTensor(TensorInfo(DataType::FLOAT, {rows, width}), "x");
  TensorId h = c.x;
  for (int k = 0; k < layers; ++k) {
    const auto w0 = test::randomFloats(static_cast<size_t>(width * width), 30 + static_cast<uint32_t>(k), -0.2f, 0.2f);
    const TensorId w = b->addInitializedInputTensor(
        ConstVoidData(w0.data(), TensorInfo(DataType::FLOAT, {width, width})), "w" + std::to_string(k));
    h = ai.matmul({h, w}, "mm" + std::to_string(k));
    if (annotate) annotate(*b, h, k);
  }
  c.y = h;
  c.loss = b->aiGraphcoreOpset1().l1loss({h}, 0.1f);
  if (annotate) annotate(*b, c.loss, layers - 1);
  b->addOutputTensor(c.y);
  c.proto = b->getModelProto();
  return c;
}

/// Layer k in execution phase phaseOf(k).
PhAnnotate phPhases(const std::function<int64_t(int)>& phaseOf) {
  return [phaseOf](Builder& b, const TensorId& t, int k) { b.executionPhase(t, phaseOf(k)); };
}

SessionOptions phased(int phases, int stages = 2) {
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::ExecutionPhases;
  o.executionPhaseSettings.phases = phases;
  o.executionPhaseSettings.stages = stages;
  return o;
}

std::shared_ptr<DeviceInfo> phIpus(int ipus, int tiles) {
  return dm().createIpuModelDevice({{"numIPUs", std::to_string(ipus)}, {"tilesPerIPU", std::to_string(tiles)}});
}

std::unique_ptr<TrainingSession> phTraining(const PhChain& c, std::shared_ptr<DeviceInfo> d, const SessionOptions& o) {
  const SGD sgd(std::map<std::string, std::pair<float, bool>>{{"defaultLearningRate", {0.05f, true}},
                                                              {"defaultMomentum", {0.5f, true}}});
  auto s = TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, std::vector<TensorId>{c.loss, c.y}), c.loss, sgd,
                                                std::move(d), InputShapeInfo(), o);
  s->prepareDevice();
  s->weightsFromHost();
  return s;
}

/// Three steps on the same input; the losses, then every weight, concatenated.
std::vector<float> phTrain(TrainingSession& s, const PhChain& c, int layers) {
  const TensorInfo xi = s.getInfo(c.x);
  std::map<TensorId, NDArray> in;
  in.emplace(c.x, NDArray::fromVector(test::randomFloats(static_cast<size_t>(xi.nelms()), 9), xi.shape()));
  auto out = s.initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(out));
  std::vector<float> got;
  for (int i = 0; i < 3; ++i) {
    s.run(io);
    got.push_back(out.at(c.loss).dataAs<float>()[0]);
  }
  s.weightsToHost();
  for (int k = 0; k < layers; ++k) {
    const TensorInfo wi = s.getInfo("w" + std::to_string(k));
    std::vector<float> w(static_cast<size_t>(wi.nelms()));
    WeightsIO wio;
    wio.insert("w" + std::to_string(k), MutableVoidData(w.data(), wi));
    s.readWeights(wio);
    got.insert(got.end(), w.begin(), w.end());
  }
  return got;
}

// ---------------------------------------------------------------- PopART's checks

TEST(ExecutionPhases, PhasesWithoutExecutionPhasesModeIsPopartsError) {
  const PhChain c = phChain(2, 2, 4);
  SessionOptions o;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  o.executionPhaseSettings.phases = 2;
  expectError([&] { phTraining(c, test::cpu(), o); },
              {"> 1 execution phases requires VirtualGraphMode::ExecutionPhases"});
}

TEST(ExecutionPhases, PhaseAnnotationBeyondThePhasesIsPopartsError) {
  const PhChain c = phChain(2, 2, 4, phPhases([](int k) { return k == 1 ? 5 : 0; }));
  expectError([&] { phTraining(c, test::cpu(), phased(4)); },
              {"[StreamingMemory] Maximum phase is 3, but op MatMul 'mm1", "has phase 5."});
}

TEST(ExecutionPhases, VirtualGraphOtherThanThePhasesIsPopartsError) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), "x");
  const TensorId y = ai.relu({x}, "r");
  b->executionPhase(y, 1);
  b->virtualGraph(y, 0);
  b->addOutputTensor(y);
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu(), InputShapeInfo(),
                                              phased(2));
      },
      {"[StreamingMemory] Op Relu 'r", "inconsistent execution phase 1 and virtual graph ID 0"});
}

TEST(ExecutionPhases, DeviceWithFewerIpusThanStagesIsPopartsError) {
  const PhChain c = phChain(2, 2, 4, phPhases([](int k) { return k; }));
  expectError([&] { phTraining(c, phIpus(1, 4), phased(2)); },
              {"has been assigned to an invalid virtual graph 1. numIPUs = 1."});
}

TEST(ExecutionPhases, OnePhaseOnlyWarnsAndRunsUnphased) {
  const PhChain c = phChain(2, 2, 4, phPhases([](int k) { return k; }));
  auto s = phTraining(c, phIpus(1, 4), phased(1));  // PopART: a warning, phased execution off
  for (const report::Op& op : s->getReport().compilation.ops) EXPECT_EQ(op.executionPhase, -1) << op.name;
  EXPECT_TRUE(s->getReport().compilation.phases.empty());
  for (const Op* op : s->getIr().schedule()) EXPECT_FALSE(op->attrs.has(sExecutionPhaseAttribute)) << op->describe();
}

// ---------------------------------------------------------------- placement and schedule

TEST(ExecutionPhases, BackwardOpsMirrorTheirForwardPhaseAndPhasesRunInOrder) {
  const int layers = 3;
  const PhChain c = phChain(layers, 2, 4, phPhases([](int k) { return k; }));
  auto s = phTraining(c, test::cpu(), phased(layers));
  const std::vector<Op*>& sched = s->getIr().schedule();
  int64_t last = 0;
  for (const Op* op : sched) {
    const int64_t p = op->attrs.getInt(sExecutionPhaseAttribute, -1);
    ASSERT_GE(p, 0) << op->describe();
    EXPECT_GE(p, last) << op->describe() << ": the phases run one after another";
    EXPECT_EQ(op->attrs.getInt(sVirtualGraphAttribute, -1), p % 2) << op->describe();
    last = p;
    // PopART: the backward op of a forward op in phase k runs in phase 2 * 3 - 2 - k.
    for (int k = 0; k < layers; ++k) {
      const std::string fwd = "mm" + std::to_string(k);
      if (op->name().rfind(fwd, 0) != 0) continue;
      EXPECT_EQ(p, op->name().find("/grad") != std::string::npos ? 4 - k : k) << op->describe();
    }
  }
  EXPECT_EQ(last, 4);  // the weight updates of layer 0 end the step
}

TEST(ExecutionPhases, UnannotatedOpsAreSplitByWeightBytes) {
  // PopART's greedy split: 4 equal weights over 2 phases, two layers each.
  const PhChain c = phChain(4, 2, 8);
  auto s = InferenceSession::createFromOnnxModel(c.proto, DataFlow(1, {c.y}), test::cpu(), InputShapeInfo(), phased(2));
  std::map<std::string, int64_t> phaseOf;
  for (const Op* op : s->getIr().schedule())
    if (op->type() == "MatMul") phaseOf[op->name().substr(0, 3)] = op->attrs.getInt(sExecutionPhaseAttribute, -1);
  EXPECT_EQ(phaseOf, (std::map<std::string, int64_t>{{"mm0", 0}, {"mm1", 0}, {"mm2", 1}, {"mm3", 1}}));
}

TEST(ExecutionPhases, PhasedTrainingOnTheCpuEqualsUnphased) {
  const int layers = 4;
  const PhChain c = phChain(layers, 3, 6, phPhases([](int k) { return k; }));
  auto plain = phTraining(c, test::cpu(), SessionOptions());
  auto ph = phTraining(c, test::cpu(), phased(layers));
  auto model = phTraining(c, phIpus(2, 16), phased(layers));
  const std::vector<float> want = phTrain(*plain, c, layers);
  const std::vector<float> got = phTrain(*ph, c, layers), gotModel = phTrain(*model, c, layers);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(gotModel.data(), want.data(), want.size() * sizeof(float)), 0);
  EXPECT_NE(want[0], want[2]);  // it trained
}

// ---------------------------------------------------------------- the IPU model

/// The IPU model's report of `layers` MatMuls with [512, 512] FLOAT weights (1 MiB each) on two
/// IPUs of 4 tiles (624 KiB each): unphased, half the layers per IPU (Manual); phased, a layer
/// per phase, its weight OffChip unless `onChip`.
report::Compilation phLayers(int layers, bool phasedRun, bool onChip = false) {
  const PhAnnotate manual = [layers](Builder& b, const TensorId& t, int k) { b.virtualGraph(t, 2 * k / layers); };
  const PhChain c = phChain(layers, 4, 512, phasedRun ? phPhases([](int k) { return k; }) : manual);
  SessionOptions o = phased(layers);
  o.constantWeights = false;  // weights are variables (PopART never streams constants)
  if (!phasedRun) {
    o.virtualGraphMode = VirtualGraphMode::Manual;
    o.executionPhaseSettings.phases = 0;
  }
  if (!onChip) o.weightTensorLocationSettings.location.storage = TensorStorage::OffChip;
  auto s = InferenceSession::createFromOnnxModel(c.proto, DataFlow(1, {c.y}), phIpus(2, 4), InputShapeInfo(), o);
  s->prepareDevice();
  return s->getReport().compilation;
}

/// The fullest tile of each IPU.
std::vector<int64_t> phIpuPeaks(const report::Compilation& c) {
  std::vector<int64_t> peak(static_cast<size_t>(c.target.numIpus), 0);
  for (size_t g = 0; g < c.memory.byTileTotal.size(); ++g) {
    int64_t& p = peak[g / static_cast<size_t>(c.target.tilesPerIpu)];
    p = std::max(p, c.memory.byTileTotal[g]);
  }
  return peak;
}

TEST(ExecutionPhases, OffChipWeightsFitWhereUnphasedWeightsDoNot) {
  const int layers = 6;  // 3 MiB of weights per IPU unphased: 768 KiB on each of its 4 tiles
  const report::Compilation plain = phLayers(layers, false);
  const report::Compilation onChip = phLayers(layers, true, true);
  const report::Compilation ph = phLayers(layers, true);
  EXPECT_FALSE(plain.memory.outOfMemoryTiles.empty());
  EXPECT_FALSE(onChip.memory.outOfMemoryTiles.empty());  // phases alone keep every weight in its IPU
  EXPECT_TRUE(ph.memory.outOfMemoryTiles.empty());
  // The weights in tile memory at once: one layer's (1 MiB over 4 tiles) instead of three.
  const int64_t perTile = 512 * 512 * 4 / 4;
  for (int64_t peak : phIpuPeaks(ph)) EXPECT_LT(peak, 2 * perTile);
  for (int64_t peak : phIpuPeaks(plain)) EXPECT_GE(peak, 3 * perTile);
  ASSERT_EQ(ph.phases.size(), static_cast<size_t>(layers));
  for (const report::Phase& p : ph.phases) {
    EXPECT_EQ(p.ipu, p.phase % 2);
    EXPECT_GE(p.maxTileBytes, perTile);
    EXPECT_LT(p.maxTileBytes, 2 * perTile);
  }
  for (const report::Op& op : ph.ops) EXPECT_EQ(op.ipu, op.executionPhase % 2) << op.name;
}

TEST(ExecutionPhases, StreamingLoadsAreInTheCycles) {
  const int layers = 4;
  const report::Compilation onChip = phLayers(layers, true, true);
  const report::Compilation ph = phLayers(layers, true);
  const IpuTargetInfo& t = phIpus(2, 4)->getTarget();
  // Each phase loads its 1 MiB weight (inference: nothing is stored) at the host link's bandwidth.
  const int64_t load =
      t.syncCycles + static_cast<int64_t>(std::ceil(512.0 * 512 * 4 / (t.hostBytesPerSec / t.clockHz)));
  int64_t streaming = 0;
  for (const report::Phase& p : ph.phases) {
    EXPECT_EQ(p.remoteLoadBytes, 512 * 512 * 4) << p.phase;
    EXPECT_EQ(p.remoteStoreBytes, 0) << p.phase;
    EXPECT_EQ(p.remoteCycles, load) << p.phase;
    streaming += p.remoteCycles;
  }
  EXPECT_EQ(ph.cycles.streamingMemory, streaming);
  EXPECT_EQ(onChip.cycles.streamingMemory, 0);
  EXPECT_EQ(ph.cycles.perMicroBatch, onChip.cycles.perMicroBatch + streaming);
  int64_t phaseSum = 0;
  for (const report::Phase& p : ph.phases) phaseSum += p.cycles;
  EXPECT_EQ(phaseSum, ph.cycles.perMicroBatch);
}

TEST(ExecutionPhases, TrainingStoresUpdatedWeightsAndTheSummaryShowsPhases) {
  const int layers = 2;
  const PhChain c = phChain(layers, 4, 64, phPhases([](int k) { return k; }));
  SessionOptions o = phased(layers);
  o.weightTensorLocationSettings.location.storage = TensorStorage::OffChip;
  auto s = phTraining(c, phIpus(2, 16), o);
  const report::Compilation r = s->getReport().compilation;
  ASSERT_EQ(r.phases.size(), 3u);  // forward 0, 1; backward 1 (layer 1), 2 (layer 0)
  // Layer k's weight: loaded in its forward phase and again for its gradient and update in
  // phase 2 - k, where it is stored back.
  const int64_t w = 64 * 64 * 4;
  EXPECT_EQ(r.phases[0].remoteLoadBytes, w);
  EXPECT_EQ(r.phases[1].remoteLoadBytes, w);  // w1 once: its forward and backward share phase 1
  EXPECT_EQ(r.phases[1].remoteStoreBytes, w);
  EXPECT_EQ(r.phases[2].remoteLoadBytes, w);
  EXPECT_EQ(r.phases[2].remoteStoreBytes, w);
  const std::string summary = s->getSummaryReport();
  EXPECT_NE(summary.find("Streaming memory:"), std::string::npos) << summary;
  EXPECT_NE(summary.find("Phase 2:"), std::string::npos) << summary;
}

TEST(ExecutionPhases, OffChipActivationReadTwoPhasesLaterIsStoredAndLoaded) {
  // a = x @ w0 (phase 0, IPU 0); b = a @ w1 (phase 1, IPU 1: a arrives by an IPU copy);
  // y = (b @ w2) + a (phase 2, IPU 0: a comes back from streaming memory).
  auto bld = Builder::create();
  auto ai = bld->aiOnnxOpset11();
  const TensorId x = bld->addInputTensor(TensorInfo(DataType::FLOAT, {8, 16}), "x");
  auto weight = [&](int k) {
    const auto v = test::randomFloats(16 * 16, 50 + static_cast<uint32_t>(k));
    return bld->addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo(DataType::FLOAT, {16, 16})),
                                          "w" + std::to_string(k));
  };
  const TensorId a = ai.matmul({x, weight(0)}, "mm0");
  const TensorId b = ai.matmul({a, weight(1)}, "mm1");
  const TensorId c = ai.matmul({b, weight(2)}, "mm2");
  const TensorId y = ai.add({c, a}, "skip");
  bld->executionPhase(a, 0);
  bld->executionPhase(b, 1);
  bld->executionPhase(c, 2);
  bld->executionPhase(y, 2);
  bld->addOutputTensor(y);
  SessionOptions o = phased(3);
  o.activationTensorLocationSettings.location.storage = TensorStorage::OffChip;
  auto s =
      InferenceSession::createFromOnnxModel(bld->getModelProto(), DataFlow(1, {y}), phIpus(2, 4), InputShapeInfo(), o);
  s->prepareDevice();
  const report::Compilation r = s->getReport().compilation;
  ASSERT_EQ(r.phases.size(), 3u);
  const int64_t bytes = 8 * 16 * 4;  // a
  EXPECT_EQ(r.phases[0].remoteStoreBytes, bytes);
  EXPECT_EQ(r.phases[0].remoteLoadBytes, 0);
  EXPECT_EQ(r.phases[1].remoteLoadBytes + r.phases[1].remoteStoreBytes, 0);  // b goes to IPU 0 by a copy
  EXPECT_EQ(r.phases[2].remoteLoadBytes, bytes);
  EXPECT_EQ(r.phases[2].remoteStoreBytes, 0);
  EXPECT_GT(r.cycles.interIpuCopies, 0);
}

}  // namespace
}  // namespace popart
