// Recomputation (passes/recompute.hpp): autoRecomputation's annotation of the forward ops, the
// clones the backward pass reads instead of the forward activations and where the schedule runs
// them, training bit-identical to no recomputation, the smaller memory plan and IPU model
// activation memory (and the IPU model's extra cycles), PopART's errors.
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/test_util.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

using test::expectError;

constexpr int64_t kRcRows = 32, kRcCols = 128;

/// x [kRcRows, kRcCols] -> `layers` x (Mul by a weight "w<k>", Tanh) -> L1 loss, a user checkpoint
/// after every `ckptEvery` layers but the last (none for 0).
struct RcChain {
  std::string proto;
  TensorId x, loss;
};

RcChain rcChain(int layers, int ckptEvery) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  RcChain c;
  c.x = b->addInputTensor(TensorInfo(DataType::FLOAT, {kRcRows, kRcCols}), "x");
  TensorId h = c.x;
  for (int k = 0; k < layers; ++k) {
    const auto w0 = test::randomFloats(kRcCols, 100 + static_cast<uint32_t>(k), 0.9f, 1.1f);
    const TensorId w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo(DataType::FLOAT, {kRcCols})),
                                                    "w" + std::to_string(k));
    h = ai.tanh({ai.mul({h, w}, "mul" + std::to_string(k))}, "tanh" + std::to_string(k));
    if (ckptEvery > 0 && (k + 1) % ckptEvery == 0 && k + 1 < layers) h = b->checkpointOutput({h}).at(0);
  }
  c.loss = b->aiGraphcoreOpset1().l1loss({h}, 0.1f);
  c.proto = b->getModelProto();
  return c;
}

SGD rcSgd() {
  return SGD(std::map<std::string, std::pair<float, bool>>{{"defaultLearningRate", {0.05f, true}},
                                                           {"defaultMomentum", {0.5f, true}}});
}

struct RcRun {
  std::unique_ptr<TrainingSession> session;
  std::vector<float> losses, weights;  // the weights of every layer, concatenated
};

RcRun rcTrain(const RcChain& c, RecomputationType type, int layers, std::shared_ptr<DeviceInfo> device = nullptr) {
  SessionOptions o;
  o.autoRecomputation = type;
  RcRun r;
  r.session = TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {c.loss}), c.loss, rcSgd(),
                                                   device ? device : test::cpu(), InputShapeInfo(), o);
  TrainingSession& s = *r.session;
  s.prepareDevice();
  s.weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace(c.x, NDArray::fromVector(test::randomFloats(kRcRows * kRcCols, 5), {kRcRows, kRcCols}));
  auto out = s.initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(out));
  for (int i = 0; i < 3; ++i) {
    s.run(io);
    r.losses.push_back(out.at(c.loss).dataAs<float>()[0]);
  }
  s.weightsToHost();
  r.weights.assign(static_cast<size_t>(layers * kRcCols), 0.f);
  WeightsIO wio;
  for (int k = 0; k < layers; ++k)
    wio.insert("w" + std::to_string(k),
               MutableVoidData(r.weights.data() + k * kRcCols, TensorInfo(DataType::FLOAT, {kRcCols})));
  s.readWeights(wio);
  return r;
}

/// The Builder's node name of an op ("tanh3" for "tanh3_7").
std::string rcNode(const std::string& name) {
  const auto u = name.rfind('_');
  return u != std::string::npos && name.find_first_not_of("0123456789", u + 1) == std::string::npos ? name.substr(0, u)
                                                                                                    : name;
}

int64_t rcMark(const Op& op) {
  return op.attrs.getInt(sRecomputeOutputAttribute, 0);
}

TEST(Recompute, RecomputeAllClonesTheLayersBeforeTheLastCheckpoint) {
  const int layers = 12;
  const RcChain c = rcChain(layers, 4);
  const RcRun none = rcTrain(c, RecomputationType::None, layers);
  const RcRun all = rcTrain(c, RecomputationType::RecomputeAll, layers);

  // Bit-identical training.
  ASSERT_EQ(none.losses.size(), all.losses.size());
  EXPECT_EQ(std::memcmp(none.losses.data(), all.losses.data(), none.losses.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(none.weights.data(), all.weights.data(), none.weights.size() * sizeof(float)), 0);
  const auto w0 = test::randomFloats(kRcCols, 100, 0.9f, 1.1f);
  EXPECT_NE(std::memcmp(w0.data(), all.weights.data(), w0.size() * sizeof(float)), 0);  // it trained

  const Ir& ir = all.session->getIr();
  const std::vector<Op*>& sched = ir.schedule();
  std::map<const Op*, size_t> pos;
  for (size_t i = 0; i < sched.size(); ++i) pos[sched[i]] = i;
  const Op* lossOp = ir.mainGraph().getTensor(c.loss).producer;
  ASSERT_NE(lossOp, nullptr);
  EXPECT_EQ(rcMark(*lossOp), static_cast<int64_t>(RecomputeType::Recompute));  // PopART leaves it
  int clones = 0;
  for (const Op* op : sched) {
    const std::string node = rcNode(op->name());
    const bool isClone = node.size() > 10 && node.compare(node.size() - 10, 10, "/recompute") == 0;
    if (isClone) {
      ++clones;
      EXPECT_EQ(rcMark(*op), static_cast<int64_t>(RecomputeType::Recomputed));
      // A clone runs in the backward pass.
      EXPECT_GT(pos.at(op), pos.at(lossOp)) << op->name();
      continue;
    }
    if (node.rfind("mul", 0) != 0 && node.rfind("tanh", 0) != 0) continue;
    if (node.find('/') != std::string::npos) continue;  // a gradient op
    const int k = std::stoi(node.substr(node[0] == 'm' ? 3 : 4));
    EXPECT_EQ(rcMark(*op), static_cast<int64_t>(k < 8 ? RecomputeType::Recompute : RecomputeType::Checkpoint))
        << op->name();
    if (k < 8) {
      // The outputs of a recomputed op are read by forward ops only.
      for (const Tensor* t : op->outputs()) {
        for (const Op* reader : t->consumers) EXPECT_LT(pos.at(reader), pos.at(lossOp)) << reader->name();
      }
    }
  }
  EXPECT_EQ(clones, 16);  // Mul and Tanh of layers 0 .. 7

  // The memory plan: at least four activations fewer at the peak.
  const int64_t act = kRcRows * kRcCols * 4;
  EXPECT_LE(all.session->getMemoryStats().activationArenaBytes,
            none.session->getMemoryStats().activationArenaBytes - 4 * act);
}

TEST(Recompute, StandardAndNormOnlyAnnotations) {
  // A 24-layer chain: 49 forward ops, PopART's decreasing intervals of sizes 6, 5, 4, 3, 2, 1 then
  // one op each; every live set is one activation (the op just run), so each interval keeps its
  // first op and recomputes the others: 15 ops, all in the first 21.
  const int layers = 24;
  const RcChain c = rcChain(layers, 0);
  const RcRun none = rcTrain(c, RecomputationType::None, layers);
  const RcRun standard = rcTrain(c, RecomputationType::Standard, layers);
  EXPECT_EQ(std::memcmp(none.weights.data(), standard.weights.data(), none.weights.size() * sizeof(float)), 0);
  const std::set<int> firsts{0, 6, 11, 15, 18, 20};
  int recomputed = 0;
  for (const auto& kv : standard.session->getIr().mainGraph().ops()) {
    const Op& op = *kv.second;
    const std::string node = rcNode(op.name());
    if (node.find('/') != std::string::npos || (node.rfind("mul", 0) != 0 && node.rfind("tanh", 0) != 0)) continue;
    const int k = std::stoi(node.substr(node[0] == 'm' ? 3 : 4));
    const int index = 2 * k + (node[0] == 't' ? 1 : 0);
    const bool want = index < 21 && !firsts.count(index);
    EXPECT_EQ(rcMark(op) == static_cast<int64_t>(RecomputeType::Recompute), want) << op.name();
    recomputed += want ? 1 : 0;
  }
  EXPECT_EQ(recomputed, 15);
  EXPECT_LT(standard.session->getMemoryStats().activationArenaBytes,
            none.session->getMemoryStats().activationArenaBytes);

  // NormOnly: no normalization here, so every op is a checkpoint and nothing is cloned.
  const RcRun norm = rcTrain(rcChain(4, 0), RecomputationType::NormOnly, 4);
  for (const auto& kv : norm.session->getIr().mainGraph().ops())
    EXPECT_EQ(rcMark(*kv.second), static_cast<int64_t>(RecomputeType::Checkpoint)) << kv.second->name();
}

TEST(Recompute, IpuModelShowsLessActivationMemoryAndMoreCycles) {
  const int layers = 12;
  const RcChain c = rcChain(layers, 4);
  auto report = [&](RecomputationType t) {
    const RcRun r = rcTrain(c, t, layers, test::dm().createIpuModelDevice({{"tilesPerIPU", "32"}}));
    return nlohmann::json::parse(r.session->getReportJson()).at("compilation");
  };
  const auto none = report(RecomputationType::None), all = report(RecomputationType::RecomputeAll);
  EXPECT_LT(all["memory"]["byCategory"]["activations"].get<int64_t>(),
            none["memory"]["byCategory"]["activations"].get<int64_t>());
  EXPECT_GT(all["cycles"]["perMicroBatch"].get<int64_t>(), none["cycles"]["perMicroBatch"].get<int64_t>());
}

TEST(Recompute, PopartErrors) {
  const RcChain c = rcChain(2, 0);
  SessionOptions o;
  o.autoRecomputation = RecomputationType::Pipeline;
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {c.loss}), c.loss, ConstSGD(0.1f), test::cpu(),
                                             InputShapeInfo(), o);
      },
      {"Invalid RecomputationType::Pipeline in autoAnnotate when using implicit pipelining."});

  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {4}), "x");
  TensorId r, y;
  r = ai.relu({x});
  b->virtualGraph(r, 0);
  b->recomputeOutputInBackwardPass(r);
  y = ai.relu({r});
  b->virtualGraph(y, 1);
  SessionOptions p;
  p.enablePipelining = true;
  p.virtualGraphMode = VirtualGraphMode::Manual;
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(4, {y}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "2"}, {"tilesPerIPU", "4"}}),
                                              InputShapeInfo(), p);
      },
      {"When pipelining is enabled, user annotation for recomputation is not allowed"});
}

}  // namespace
}  // namespace popart
