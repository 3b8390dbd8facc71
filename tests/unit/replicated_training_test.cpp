// Replicated training in one process (session/replicated_executable.hpp): each replica runs its own
// micro-batch, the gradients are summed over the replicas (or averaged with ReductionType::Mean)
// before the update, and every replica applies it. References: the closed form of one SGD step on
// the summed gradient, in double; gradient accumulation over the same micro-batches.
#include <cmath>

#include "common/test_util.hpp"

namespace popart {
namespace {
namespace replicated {

using test::asDoubles;
using test::expectError;
using test::expectNear;

constexpr int64_t kIn = 3, kOut = 2, kRows = 2;

/// loss = sum |x W| (l1loss, Sum) with W [3, 2]: dloss/dW = x^T sign(x W).
std::string model(const std::vector<float>& w0) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {kRows, kIn}), "x");
  const auto w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo(DataType::FLOAT, {kIn, kOut})), "w");
  const auto l = b->aiGraphcoreOpset1().l1loss({ai.matmul({x, w})}, 1.0f, ReductionType::Sum, "loss");
  b->addOutputTensor(l);
  return b->getModelProto();
}

std::vector<float> weights0() {
  return {0.5f, -0.25f, 0.75f, 1.0f, -0.5f, 0.125f};
}

/// `n` micro-batches of x, deterministic and with no x W near 0 (sign is stable).
std::vector<float> inputs(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n * kRows * kIn));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i) + 0.3) * 2.0);
  return v;
}

/// W after one SGD step (lr) on the sum over `n` micro-batches of dloss/dW (divided by n if mean).
std::vector<double> reference(const std::vector<float>& xs, int64_t n, double lr, bool mean) {
  const std::vector<float> w = weights0();
  std::vector<double> grad(w.size(), 0.0);
  for (int64_t m = 0; m < n; ++m) {
    const float* x = xs.data() + m * kRows * kIn;
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t o = 0; o < kOut; ++o) {
        double y = 0;
        for (int64_t i = 0; i < kIn; ++i) y += double(x[r * kIn + i]) * w[static_cast<size_t>(i * kOut + o)];
        const double s = y > 0 ? 1.0 : -1.0;
        for (int64_t i = 0; i < kIn; ++i) grad[static_cast<size_t>(i * kOut + o)] += double(x[r * kIn + i]) * s;
      }
    }
  }
  std::vector<double> out(w.size());
  for (size_t k = 0; k < w.size(); ++k) out[k] = w[k] - lr * grad[k] / (mean ? double(n) : 1.0);
  return out;
}

struct Result {
  std::vector<float> w;
  NDArray loss;
  std::string summary;  ///< the session's summary report
};

Result train(int64_t replicas, int64_t accumulation, bool mean, const std::vector<float>& xs) {
  SessionOptions o;
  if (replicas > 1) {
    o.enableReplicatedGraphs = true;
    o.replicatedGraphCount = replicas;
  }
  if (accumulation > 1) {
    o.enableGradientAccumulation = true;
    o.accumulationFactor = accumulation;
  }
  if (mean) o.accumulationAndReplicationReductionType = ReductionType::Mean;
  o.engineOptions["debug.instrument"] = "true";  // the summary report on the CPU device
  const SGD sgd({{"defaultLearningRate", {0.1f, true}}});
  auto s = TrainingSession::createFromOnnxModel(model(weights0()), DataFlow(1, {"loss:0"}), "loss:0", sgd, test::cpu(),
                                                InputShapeInfo(), o);
  s->prepareDevice();
  s->weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(xs, {accumulation, replicas, kRows, kIn}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  s->weightsToHost();
  Result r;
  r.w.assign(static_cast<size_t>(kIn * kOut), 0.0f);
  WeightsIO wio;
  wio.insert("w", MutableVoidData(r.w.data(), TensorInfo(DataType::FLOAT, {kIn, kOut})));
  s->readWeights(wio);
  r.loss = anchors.at("loss:0");
  r.summary = s->getSummaryReport();
  return r;
}

void expectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
}

TEST(ReplicatedTraining, FourReplicasTakeOneStepOnTheSummedGradient) {
  const auto xs = inputs(4);
  const Result r = train(4, 1, false, xs);
  expectNear(r.w, reference(xs, 4, 0.1, false));
  // The loss anchor has the replica dimension: each replica's own micro-batch.
  EXPECT_EQ(r.loss.info().shape(), (Shape{4}));
  for (int64_t m = 0; m < 4; ++m) {
    double want = 0;
    const std::vector<float> w = weights0();
    for (int64_t row = 0; row < kRows; ++row) {
      for (int64_t o = 0; o < kOut; ++o) {
        double y = 0;
        for (int64_t i = 0; i < kIn; ++i)
          y += double(xs[static_cast<size_t>((m * kRows + row) * kIn + i)]) * w[static_cast<size_t>(i * kOut + o)];
        want += std::fabs(y);
      }
    }
    EXPECT_NEAR(r.loss.dataAs<float>()[m], want, 1e-5) << "replica " << m;
  }
}

TEST(ReplicatedTraining, MeanReductionDividesByReplicasAndAccumulation) {
  const auto xs = inputs(4);
  expectNear(train(4, 1, true, xs).w, reference(xs, 4, 0.1, true));
  expectNear(train(2, 2, true, xs).w, reference(xs, 4, 0.1, true));
  expectNear(train(2, 2, false, xs).w, reference(xs, 4, 0.1, false));
}

TEST(ReplicatedTraining, ReplicasEqualAccumulationOverTheSameMicroBatches) {
  const auto xs = inputs(4);
  const Result rep = train(4, 1, false, xs), acc = train(1, 4, false, xs);
  for (size_t i = 0; i < rep.w.size(); ++i) EXPECT_NEAR(rep.w[i], acc.w[i], 1e-6) << "element " << i;
}

TEST(ReplicatedTraining, AccumulatorsAreSummedOncePerStep) {
  // 2 replicas x 3 micro-batches: the accumulators are summed on the last micro-batch only (one
  // exchange in the step), and the step equals 6 accumulated micro-batches.
  const auto xs = inputs(6);
  const Result r = train(2, 3, false, xs);
  EXPECT_NE(r.summary.find("Exchanges between replicas (gradient sums, collectives): 1,"), std::string::npos)
      << r.summary;
  expectNear(r.w, reference(xs, 6, 0.1, false));
}

TEST(ReplicatedTraining, WrongInputSizeListsEveryFactor) {
  SessionOptions o;
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = 2;
  auto s = TrainingSession::createFromOnnxModel(model(weights0()), DataFlow(1, {"loss:0"}), "loss:0", ConstSGD(0.1f),
                                                test::cpu(), InputShapeInfo(), o);
  s->prepareDevice();
  s->weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(inputs(1), {kRows, kIn}));  // one replica's worth
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  expectError([&] { s->run(io); }, {"Unexpected number of input elements for Tensor x", "replicationFactor (2)"});
}

TEST(ReplicatedTraining, ReplicatedAllReduceSumsOverTheReplicas) {
  // Inference, 2 replicas: y = ReplicatedAllReduce(x) is x0 + x1 on both; x itself (anchored too)
  // keeps each replica's value (the op is not a view of its input across replicas).
  SessionOptions o;
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = 2;
  auto b = Builder::create();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), "x");
  const TensorId x2 = b->aiOnnxOpset13().mul({x, x});
  const TensorId y = b->aiGraphcoreOpset1().replicatedallreduce({x2});
  b->addOutputTensor(y);
  const auto out =
      test::runOnce(b->getModelProto(), {{x, NDArray::fromVector<float>({1, 2, 3, 4}, {2, 2})}}, {y, x2}, o);
  const float* py = out.at(y).dataAs<float>();
  const float* px = out.at(x2).dataAs<float>();
  EXPECT_EQ(std::vector<float>(py, py + 4), (std::vector<float>{10, 20, 10, 20}));
  EXPECT_EQ(std::vector<float>(px, px + 4), (std::vector<float>{1, 4, 9, 16}));

  // Training: loss_r = sum(AllReduce(w * x_r)) = w (x0 + x1); the gradient of the all-reduce's
  // input is the sum of every replica's output gradient (2), so the summed gradient of w is
  // 2 (x0 + x1), the derivative of the replicas' total loss 2 w (x0 + x1).
  auto t = Builder::create();
  const float w0 = 0.5f;
  const TensorId tx = t->addInputTensor(TensorInfo(DataType::FLOAT, {1}), "x");
  const TensorId w = t->addInitializedInputTensor(ConstVoidData(&w0, TensorInfo(DataType::FLOAT, {1})), "w");
  const TensorId r = t->aiGraphcoreOpset1().replicatedallreduce({t->aiOnnxOpset13().mul({w, tx})});
  const TensorId loss = t->aiGraphcoreOpset1().identityloss({r}, ReductionType::Sum);
  auto s = TrainingSession::createFromOnnxModel(t->getModelProto(), DataFlow(1, {loss}), loss, ConstSGD(0.1f),
                                                test::cpu(), InputShapeInfo(), o);
  s->prepareDevice();
  s->weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace(tx, NDArray::fromVector<float>({3, 5}, {2, 1}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  EXPECT_EQ(std::vector<float>(anchors.at(loss).dataAs<float>(), anchors.at(loss).dataAs<float>() + 2),
            (std::vector<float>{4, 4}));  // each replica's loss: 0.5 x (3 + 5)
  s->weightsToHost();
  float got = 0;
  WeightsIO wio;
  wio.insert(w, MutableVoidData(&got, TensorInfo(DataType::FLOAT, {1})));
  s->readWeights(wio);
  EXPECT_FLOAT_EQ(got, 0.5f - 0.1f * 2 * (3 + 5));
}

TEST(ReplicatedTraining, CollectivesCombineOverReplicaGroups) {
  // Inference, 4 replicas, x_r [6] = (j - 2.5) (r + 1): each collective against a double reference
  // over its groups. Consecutive 2: {0, 1}, {2, 3}; Orthogonal 2: {0, 2}, {1, 3} (position: r / 2).
  constexpr int R = 4, N = 6;
  SessionOptions o;
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = R;
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {N}), "x");
  const CommGroup consecutive(CommGroupType::Consecutive, 2), orthogonal(CommGroupType::Orthogonal, 2);
  const TensorId sum = gc.replicatedallreduce({x});
  const TensorId max = gc.replicatedallreduce({x}, CollectiveOperator::Max, consecutive);
  const TensorId mean = gc.replicatedallreduce({x}, CollectiveOperator::Mean, orthogonal);
  const TensorId mul = gc.replicatedallreduce({x}, CollectiveOperator::Mul, consecutive);
  const TensorId sq = gc.replicatedallreduce({x}, CollectiveOperator::SquareAdd);
  const TensorId scatter = gc.replicatedreducescatter({x});  // [2] of the sum padded to 8
  const TensorId local = gc.replicatedreducescatter({x}, CollectiveOperator::Local, consecutive);  // [3]
  const TensorId minScatter = gc.replicatedreducescatter({x}, CollectiveOperator::Min, orthogonal);
  const TensorId positive = ai.greater({x, test::constant(ai, std::vector<float>{0}, {})});
  const TensorId all = gc.replicatedallreduce({positive}, CollectiveOperator::LogicalAnd);
  const TensorId any = gc.replicatedallreduce({positive}, CollectiveOperator::LogicalOr, orthogonal);
  std::vector<float> xs;
  auto xv = [](int r, int j) { return (j - 2.5) * (r + 1); };
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < N; ++j) xs.push_back(static_cast<float>(xv(r, j)));
  const auto out = test::runOnce(b->getModelProto(), {{x, NDArray::fromVector<float>(xs, {R, N})}},
                                 {sum, max, mean, mul, sq, scatter, local, minScatter, all, any}, o);
  auto values = [&](const TensorId& id) { return asDoubles(out.at(id)); };
  EXPECT_EQ(out.at(scatter).info().shape(), (Shape{R, 2}));
  EXPECT_EQ(out.at(local).info().shape(), (Shape{R, 3}));
  std::vector<double> eSum, eMax, eMean, eMul, eSq, eScatter, eLocal, eMin, eAll, eAny;
  for (int r = 0; r < R; ++r) {
    const int c0 = r / 2 * 2, o0 = r % 2;  // the first replica of r's Consecutive / Orthogonal group
    for (int j = 0; j < N; ++j) {
      double s = 0, q = 0;
      bool a = true;
      for (int k = 0; k < R; ++k) {
        s += xv(k, j);
        q += xv(k, j) * xv(k, j);
        a = a && xv(k, j) > 0;
      }
      eSum.push_back(s);
      eSq.push_back(q);
      eMax.push_back(std::max(xv(c0, j), xv(c0 + 1, j)));
      eMul.push_back(xv(c0, j) * xv(c0 + 1, j));
      eMean.push_back((xv(o0, j) + xv(o0 + 2, j)) / 2);
      eAll.push_back(a);
      eAny.push_back(xv(o0, j) > 0 || xv(o0 + 2, j) > 0);
    }
    for (int j = 2 * r; j < 2 * r + 2; ++j) eScatter.push_back(j < N ? eSum[static_cast<size_t>(j)] : 0.0);
    for (int j = 3 * (r % 2); j < 3 * (r % 2) + 3; ++j) eLocal.push_back(xv(r, j));
    for (int j = 3 * (r / 2); j < 3 * (r / 2) + 3; ++j) eMin.push_back(std::min(xv(o0, j), xv(o0 + 2, j)));
  }
  expectNear(values(sum), eSum, 1e-5);
  expectNear(values(max), eMax, 0);
  expectNear(values(mean), eMean, 1e-6);
  expectNear(values(mul), eMul, 1e-5);
  expectNear(values(sq), eSq, 1e-4);
  expectNear(values(scatter), eScatter, 1e-5);
  expectNear(values(local), eLocal, 0);
  expectNear(values(minScatter), eMin, 0);
  expectNear(values(all), eAll, 0);
  expectNear(values(any), eAny, 0);
}

TEST(ReplicatedTraining, ReduceScatterGradientIsAnAllGather) {
  // loss_r = sum(c * ReduceScatter(w * x_r)) over 2 replicas, [5] padded to [6]: replica i's shard
  // is elements 3i .. 3i + 2 of sum_r w x_r. d total / dw = (sum_r x_r) * c gathered by shard,
  // which the replicas' all-gather of the output gradient gives; the gradients are then summed.
  SessionOptions o;
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = 2;
  auto t = Builder::create();
  const std::vector<float> w0{0.5f, -1, 2, 0.25f, 1}, c{1, 2, 3};
  const TensorId tx = t->addInputTensor(TensorInfo(DataType::FLOAT, {5}), "x");
  const TensorId w = t->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo(DataType::FLOAT, {5})), "w");
  const TensorId rs = t->aiGraphcoreOpset1().replicatedreducescatter({t->aiOnnxOpset13().mul({w, tx})});
  const TensorId cc = t->aiOnnxOpset13().constant(ConstVoidData(c.data(), TensorInfo(DataType::FLOAT, {3})));
  const TensorId loss = t->aiGraphcoreOpset1().identityloss({t->aiOnnxOpset13().mul({rs, cc})}, ReductionType::Sum);
  auto s = TrainingSession::createFromOnnxModel(t->getModelProto(), DataFlow(1, {loss}), loss, ConstSGD(0.1f),
                                                test::cpu(), InputShapeInfo(), o);
  s->prepareDevice();
  s->weightsFromHost();
  const std::vector<float> xs{1, 2, 3, 4, 5, -1, 0.5f, 2, -2, 3};
  std::map<TensorId, NDArray> in;
  in.emplace(tx, NDArray::fromVector<float>(xs, {2, 5}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  std::vector<double> expectLoss(2, 0.0);
  for (int j = 0; j < 5; ++j) expectLoss[static_cast<size_t>(j / 3)] += c[j % 3] * w0[j] * (xs[j] + xs[5 + j]);
  expectNear(asDoubles(anchors.at(loss)), expectLoss, 1e-5);
  s->weightsToHost();
  std::vector<float> got(5);
  WeightsIO wio;
  wio.insert(w, MutableVoidData(got.data(), TensorInfo(DataType::FLOAT, {5})));
  s->readWeights(wio);
  std::vector<double> want;
  for (int j = 0; j < 5; ++j) want.push_back(w0[j] - 0.1 * c[j % 3] * (xs[j] + xs[5 + j]));
  expectNear(std::vector<double>(got.begin(), got.end()), want, 1e-6);
}

TEST(ReplicatedTraining, GroupedWeightsSumOverTheirGroup) {
  // 4 replicas, w grouped by VariableSettings: the replicas of a group share one value and sum only
  // their gradients (loss_r = sum |x_r W|); Ungrouped: each replica trains its own value alone.
  auto check = [](const CommGroup& group) {
    const ReplicaGrouping grouping = group.toReplicaGrouping(4);
    const int groups = static_cast<int>(grouping.getNumGroups()), n = kIn * kOut;
    SessionOptions o;
    o.enableReplicatedGraphs = true;
    o.replicatedGraphCount = 4;
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    std::vector<float> values;
    for (int g = 0; g < groups; ++g)
      for (float v : weights0()) values.push_back(v * (1.0f - 0.6f * static_cast<float>(g)));
    const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {kRows, kIn}), "x");
    const auto w = b->addInitializedInputTensor(
        ConstVoidData(values.data(), TensorInfo(DataType::FLOAT, {groups, kIn, kOut})), VariableSettings(group), "w");
    const auto l = b->aiGraphcoreOpset1().l1loss({ai.matmul({x, w})}, 1.0f, ReductionType::Sum, "loss");
    b->addOutputTensor(l);
    auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {l}), l, ConstSGD(0.1f), test::cpu(),
                                                  InputShapeInfo(), o);
    s->prepareDevice();
    s->weightsFromHost();
    const std::vector<float> xs = inputs(4);
    std::map<TensorId, NDArray> in;
    in.emplace(x, NDArray::fromVector<float>(xs, {4, kRows, kIn}));
    auto anchors = s->initAnchorArrays();
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    s->weightsToHost();
    std::vector<float> got(static_cast<size_t>(groups * n));
    WeightsIO wio;
    wio.insert(w, MutableVoidData(got.data(), TensorInfo(DataType::FLOAT, {groups, kIn, kOut})));
    s->readWeights(wio);
    for (int g = 0; g < groups; ++g) {
      // Group g: W_g - lr * sum over its replicas' micro-batches of x^T sign(x W_g).
      const float* wg = values.data() + g * n;
      std::vector<double> want(wg, wg + n);
      for (unsigned r : grouping.getReplicasAt(static_cast<unsigned>(g))) {
        for (int row = 0; row < kRows; ++row) {
          const float* xr = xs.data() + (static_cast<int>(r) * kRows + row) * kIn;
          for (int j = 0; j < kOut; ++j) {
            double y = 0;
            for (int i = 0; i < kIn; ++i) y += xr[i] * wg[i * kOut + j];
            for (int i = 0; i < kIn; ++i) want[static_cast<size_t>(i * kOut + j)] -= 0.1 * xr[i] * (y > 0 ? 1 : -1);
          }
        }
      }
      expectNear(std::vector<double>(got.begin() + g * n, got.begin() + (g + 1) * n), want, 1e-5,
                 toString(group) + " group " + std::to_string(g));
    }
  };
  check(CommGroup(CommGroupType::Consecutive, 2));  // {0, 1}, {2, 3}
  check(CommGroup(CommGroupType::Orthogonal, 2));   // {0, 2}, {1, 3}
  check(CommGroup(CommGroupType::None, 0));         // each replica alone
}

TEST(ReplicatedTraining, MemoryStatsCountEveryReplica) {
  auto stats = [](int64_t replicas) {
    SessionOptions o;
    o.enableReplicatedGraphs = replicas > 1;
    o.replicatedGraphCount = replicas;
    auto s = TrainingSession::createFromOnnxModel(model(weights0()), DataFlow(1, {"loss:0"}), "loss:0", ConstSGD(0.1f),
                                                  test::cpu(), InputShapeInfo(), o);
    s->prepareDevice();
    return s->getMemoryStats();
  };
  EXPECT_EQ(stats(3).weightBytes, 3 * stats(1).weightBytes);
}

TEST(ReplicatedTraining, TheIpuModelCostsTheGradientSum) {
  // R replicas of a one-IPU graph on R IPUs: the sum of W's gradient (24 bytes) over IPU-Links
  // within a chassis of 4 IPU-M2000 IPUs, and over the gateway between chassis beyond 4 replicas.
  auto cycles = [](int64_t replicas) {
    SessionOptions o;
    o.enableReplicatedGraphs = true;
    o.replicatedGraphCount = replicas;
    auto device = DeviceManager::createDeviceManager().createIpuModelDevice(
        {{"numIPUs", std::to_string(replicas)}, {"tilesPerIPU", "16"}});
    auto s = TrainingSession::createFromOnnxModel(model(weights0()), DataFlow(1, {"loss:0"}), "loss:0", ConstSGD(0.1f),
                                                  device, InputShapeInfo(), o);
    s->prepareDevice();
    const report::Compilation c = s->getReport().compilation;
    int64_t opCycles = -1;
    for (const auto& op : c.ops) {
      if (op.type == "GradientAllReduce") opCycles = op.exchangeCycles;
    }
    EXPECT_GE(opCycles, c.cycles.replicaAllReduce);
    return c.cycles.replicaAllReduce;
  };
  const IpuTargetInfo& t = ipuTarget("ipu2");
  const double bytes = kIn * kOut * 4, link = t.ipuLinksPerIpu * t.ipuLinkBytesPerSec / 2;
  EXPECT_EQ(cycles(2), t.syncCycles + static_cast<int64_t>(std::ceil(2.0 * 1 / 2 * bytes / link * t.clockHz)));
  // 8 replicas: rings of 4 in each of 2 chassis, then the 2 chassis over the gateway.
  EXPECT_EQ(cycles(8), 2 * t.syncCycles +
                           static_cast<int64_t>(std::ceil(
                               (2.0 * 3 / 4 * bytes / link + 2.0 * 1 / 2 * bytes / t.gatewayBytesPerSec) * t.clockHz)));
}

/// Two steps of SGD with momentum (and weight decay: the velocity starts at f x W) on 4 replicas,
/// the optimizer state sharded or not; returns W and the velocity the host reads, and its device
/// shape.
struct MomentumResult {
  std::vector<float> w, velocity;
  Shape deviceShape;
};
MomentumResult trainWithMomentum(bool sharded, int64_t accumulation) {
  SessionOptions o;
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = 4;
  if (accumulation > 1) {
    o.enableGradientAccumulation = true;
    o.accumulationFactor = accumulation;
  }
  if (sharded) {
    o.optimizerStateTensorLocationSettings.location.replicatedTensorSharding = ReplicatedTensorSharding::On;
    o.optimizerStateTensorLocationSettings.minElementsForReplicatedTensorSharding = 4;
  }
  const SGD sgd({{"defaultLearningRate", {0.1f, true}},
                 {"defaultMomentum", {0.9f, true}},
                 {"defaultWeightDecay", {0.05f, true}}});
  auto s = TrainingSession::createFromOnnxModel(model(weights0()), DataFlow(1, {"loss:0"}), "loss:0", sgd, test::cpu(),
                                                InputShapeInfo(), o);
  s->prepareDevice();
  s->weightsFromHost();
  const auto xs = inputs(4 * accumulation * 2);
  for (int step = 0; step < 2; ++step) {
    const std::vector<float> x(xs.begin() + step * 4 * accumulation * kRows * kIn,
                               xs.begin() + (step + 1) * 4 * accumulation * kRows * kIn);
    std::map<TensorId, NDArray> in;
    in.emplace("x", NDArray::fromVector(x, {accumulation, 4, kRows, kIn}));
    auto anchors = s->initAnchorArrays();
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
  }
  s->weightsToHost();
  MomentumResult r;
  r.w.assign(static_cast<size_t>(kIn * kOut), 0.0f);
  r.velocity = r.w;
  WeightsIO wio;
  wio.insert("w", MutableVoidData(r.w.data(), TensorInfo(DataType::FLOAT, {kIn, kOut})));
  wio.insert("Accl___w", MutableVoidData(r.velocity.data(), TensorInfo(DataType::FLOAT, {kIn, kOut})));
  s->readWeights(wio);
  r.deviceShape = s->getInfo("Accl___w").shape();
  return r;
}

TEST(ReplicatedTraining, ShardedOptimizerStateUpdatesAShardOnEachReplica) {
  // W has 6 elements: each of the 4 replicas holds 2 of the velocity (the last replica's are
  // padding), updates its part of W and the replicas gather W back: the same training as with the
  // whole state on every replica, and the host reads the whole velocity.
  for (int64_t accumulation : {1, 3}) {
    const MomentumResult whole = trainWithMomentum(false, accumulation);
    const MomentumResult sharded = trainWithMomentum(true, accumulation);
    EXPECT_EQ(whole.deviceShape, (Shape{kIn, kOut}));
    EXPECT_EQ(sharded.deviceShape, (Shape{2}));
    for (size_t i = 0; i < whole.w.size(); ++i) {
      EXPECT_NEAR(sharded.w[i], whole.w[i], 1e-6) << "W element " << i << ", accumulation " << accumulation;
      EXPECT_NEAR(sharded.velocity[i], whole.velocity[i], 1e-6) << "velocity element " << i;
    }
    EXPECT_NE(whole.velocity, std::vector<float>(whole.w.size(), 0.0f));
  }
}

TEST(ReplicatedTraining, ShardingDomainsPopartDoesNotSupportAreErrors) {
  SessionOptions o;
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = 4;
  o.optimizerStateTensorLocationSettings.location =
      TensorLocation(TensorStorage::OnChip, ReplicatedTensorSharding::On, CommGroup(CommGroupType::Orthogonal, 2));
  o.optimizerStateTensorLocationSettings.minElementsForReplicatedTensorSharding = 1;
  const SGD sgd({{"defaultLearningRate", {0.1f, true}}, {"defaultMomentum", {0.9f, true}}});
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(model(weights0()), DataFlow(1, {"loss:0"}), "loss:0", sgd, test::cpu(),
                                             InputShapeInfo(), o);
      },
      {"CommGroup(Orthogonal, 2) is not supported", "sharding domain is All or Consecutive replicas"});
}

}  // namespace replicated
}  // namespace
}  // namespace popart
