// Automatic loss scaling (SessionOptions::automaticLossScalingSettings) as PopART documents it:
// the loss scale doubles after each step whose tracked FLOAT16 gradients stay below the bin edge
// (binEdgeLocation x 65504), halves after a step where the upper bin's share exceeds
// thresholdUpperCountProportion, is clipped at 2^15 for a FLOAT16 loss scale, runs once per step
// with gradient accumulation and every updatePeriod steps; the weights are those of training with
// the loss scale fixed; PopART's errors for the settings it refuses.
//
// The model: loss = identityloss(Sum)(x · W), x FLOAT16 [2, 3] (input), W FLOAT16 [3, 2], so that
// dL/dW[i][j] = x[0][i] + x[1][i] and the loss gradient is the loss scale itself.
#include <cmath>
#include <cstring>

#include "common/tensor_data.hpp"
#include "common/test_util.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

using Vec = std::vector<double>;

const Vec kW0{0.5, -0.25, 1.0, 0.75, -1.5, 0.125};

std::string model(DataType t = DataType::FLOAT16) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const auto x = b->addInputTensor(TensorInfo(t, {2, 3}), "x");
  const TensorData w0 = TensorData(TensorInfo(DataType::DOUBLE, {3, 2}), kW0.data()).castTo(t);
  const auto w = b->addInitializedInputTensor(ConstVoidData(w0.data(), w0.info()), "W");
  const auto y = ai.matmul({x, w}, "y");
  const auto l = b->aiGraphcoreOpset1().identityloss({y}, ReductionType::Sum, "loss");
  b->addOutputTensor(l);
  return b->getModelProto();
}

SessionOptions alsOptions(float binEdge = 1.0f, int period = 1) {
  SessionOptions o;
  o.automaticLossScalingSettings.enabled = true;
  o.automaticLossScalingSettings.binEdgeLocation = binEdge;
  o.automaticLossScalingSettings.updatePeriod = period;
  return o;
}

SGD sgd(float ls, bool lsConst = false) {
  return SGD({{"defaultLearningRate", {0.0625f, true}}, {"lossScaling", {ls, lsConst}}});
}

struct AlsRun {
  std::unique_ptr<TrainingSession> s;
  std::map<TensorId, NDArray> anchors;
  int64_t af = 1;

  /// `xs`: the value of x in each micro-batch (all 0.5 when empty).
  AlsRun(const Optimizer& opt, const SessionOptions& o, int bps, const std::vector<TensorId>& anchorIds,
         DataType t = DataType::FLOAT16, const Vec& xs = {})
      : af(o.getAccumulationFactor()) {
    s = TrainingSession::createFromOnnxModel(model(t), DataFlow(bps, anchorIds), "loss:0", opt, test::cpu(), {}, o);
    s->prepareDevice();
    s->weightsFromHost();
    // x = 0.5 by default: the gradients of W are then 1.0 times the loss scale.
    const int64_t n = bps * af;
    Shape shape;
    if (bps > 1) shape.push_back(bps);
    if (af > 1) shape.push_back(af);
    shape.insert(shape.end(), {2, 3});
    Vec xv(static_cast<size_t>(n * 6), 0.5);
    for (size_t m = 0; m < xs.size(); ++m) std::fill(xv.begin() + 6 * m, xv.begin() + 6 * (m + 1), xs[m]);
    const TensorData xd = TensorData(TensorInfo(DataType::DOUBLE, shape), xv.data()).castTo(t);
    NDArray x(xd.info());
    std::memcpy(x.data(), xd.data(), static_cast<size_t>(xd.nbytes()));
    std::map<TensorId, NDArray> in;
    in.emplace("x", std::move(x));
    anchors = s->initAnchorArrays();
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
  }

  Vec anchor(const TensorId& id) const {
    const NDArray& a = anchors.at(id);
    return TensorData(a.info(), a.data()).toDouble();
  }

  Vec weight(const TensorId& id) {
    s->weightsToHost();
    const TensorInfo info = s->getInfo(id);
    TensorData d(info);
    WeightsIO io;
    io.insert(id, MutableVoidData(d.data(), info));
    s->readWeights(io);
    return d.toDouble();
  }
};

/// 2^k for k in [from, from + n), each repeated `each` times.
Vec powers(double start, double factor, int n, int each = 1) {
  Vec v;
  double x = start;
  for (int k = 0; k < n; ++k, x *= factor) v.insert(v.end(), static_cast<size_t>(each), x);
  return v;
}

TEST(AutoLossScale, DoublesWhileGradientsStaySmallUpToTheFloat16Clip) {
  // Bin edge at 65504: no gradient reaches it, so the scale doubles after every step until
  // 2^15 (the clip of a FLOAT16 loss scale: 32768 / lossScaling).
  AlsRun r(sgd(1.0f), alsOptions(1.0f), 18, {"finalLossScale"});
  Vec expected = powers(1.0, 2.0, 16);
  expected.insert(expected.end(), {32768.0, 32768.0});
  EXPECT_EQ(r.anchor("finalLossScale"), expected);
  EXPECT_EQ(r.weight("lossScaleUpdateFactor"), Vec{32768.0});
}

TEST(AutoLossScale, HalvesWhenTheUpperBinHoldsMoreThanTheThreshold) {
  // Bin edge 0: every element is in the upper bin.
  AlsRun r(sgd(1024.0f), alsOptions(0.0f), 5, {"finalLossScale", "summedCastedHistograms"});
  EXPECT_EQ(r.anchor("finalLossScale"), powers(1024.0, 0.5, 5));
  // Tracked: the loss gradient (Gradient of y, 4 elements) and x^T · dY (dW, 6 elements).
  const Vec stats = r.anchor("summedCastedHistograms");
  for (size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(stats[2 * k], 0.0);
    EXPECT_EQ(stats[2 * k + 1], 10.0);
  }
}

TEST(AutoLossScale, SettlesAroundTheBinEdgeAndLeavesTheWeightsOfAFixedScale) {
  // Edge 0.125 x 65504 = 8188: the gradients (= the loss scale) cross it at 8192.
  const int bps = 7;
  AlsRun r(sgd(1024.0f), alsOptions(0.125f), bps, {"finalLossScale"});
  EXPECT_EQ(r.anchor("finalLossScale"), (Vec{1024, 2048, 4096, 8192, 4096, 8192, 4096}));
  // The same steps with the loss scale fixed at 1 (powers of two scale FLOAT16 exactly).
  AlsRun fixed(sgd(1.0f, true), SessionOptions(), bps, {"loss:0"});
  EXPECT_EQ(r.weight("W"), fixed.weight("W"));
  Vec ref = kW0;  // W -= lr · 1.0 per step, rounded to FLOAT16 each step
  for (int k = 0; k < bps; ++k) {
    for (double& w : ref) w = static_cast<float>(float16_t(static_cast<float>(w - 0.0625)));
  }
  EXPECT_EQ(r.weight("W"), ref);
}

TEST(AutoLossScale, EveryOptimizerUpdatesAsWithAFixedScale) {
  // SGD with momentum (Combined and Separate), Adam, Adaptive: the inverse loss scale each update
  // applies follows the factor, so the weights are those of a fixed loss scale of 1.
  using Params = std::map<std::string, std::pair<float, bool>>;
  auto params = [](Params m, float ls, bool lsConst) {
    m["lossScaling"] = {ls, lsConst};
    return m;
  };
  const Params sgdm{{"defaultLearningRate", {0.0625f, true}}, {"defaultMomentum", {0.5f, true}}};
  const Params lr{{"defaultLearningRate", {0.0625f, true}}};
  std::vector<std::pair<std::unique_ptr<Optimizer>, std::unique_ptr<Optimizer>>> cases;
  for (auto mm : {SGDAccumulatorAndMomentum::Combined, SGDAccumulatorAndMomentum::Separate})
    cases.emplace_back(std::make_unique<SGD>(params(sgdm, 256.0f, false), std::vector<ClipNormSettings>{}, mm),
                       std::make_unique<SGD>(params(sgdm, 1.0f, true), std::vector<ClipNormSettings>{}, mm));
  cases.emplace_back(std::make_unique<Adam>(params(lr, 256.0f, false)), std::make_unique<Adam>(params(lr, 1.0f, true)));
  cases.emplace_back(std::make_unique<Adaptive>(params(lr, 256.0f, false)),
                     std::make_unique<Adaptive>(params(lr, 1.0f, true)));
  for (auto& c : cases) {
    SCOPED_TRACE(c.first->type_s());
    AlsRun r(*c.first, alsOptions(0.125f), 6, {"finalLossScale"});
    EXPECT_EQ(r.anchor("finalLossScale"), (Vec{256, 512, 1024, 2048, 4096, 8192}));
    AlsRun fixed(*c.second, SessionOptions(), 6, {"loss:0"});
    EXPECT_EQ(r.weight("W"), fixed.weight("W"));
    EXPECT_NE(r.weight("W"), kW0);
  }
}

TEST(AutoLossScale, OncePerStepWithGradientAccumulation) {
  SessionOptions o = alsOptions(1.0f);
  o.enableGradientAccumulation = true;
  o.accumulationFactor = 3;
  AlsRun r(sgd(4.0f), o, 4, {"finalLossScale", "summedCastedHistograms"});
  EXPECT_EQ(r.anchor("finalLossScale"), powers(4.0, 2.0, 4, 3));
  EXPECT_EQ(r.weight(std::string(reservedAccumPrefix()) + "autoLossScaleStats"), (Vec{0.0, 0.0}));
}

TEST(AutoLossScale, TheCountsOfTheStepsMicroBatchesAreSummed) {
  // dW = 4096 (x[0][i] + x[1][i]): micro-batch 0 (x = 0.25) has its 6 elements below the edge
  // 8188, micro-batch 1 (x = 1) its 6 above: the step's upper share is 1/2. Alone, micro-batch 0
  // would double the scale and micro-batch 1 halve it at either threshold.
  SessionOptions o = alsOptions(0.125f);
  o.enableGradientAccumulation = true;
  o.accumulationFactor = 2;
  o.automaticLossScalingSettings.gradientTensorTrackingMethod =
      GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors;
  o.automaticLossScalingSettings.toTrackTensors = {"W"};
  for (const auto& [threshold, factor] : {std::pair<float, double>{0.75f, 2.0}, {0.4f, 0.5}}) {
    o.automaticLossScalingSettings.thresholdUpperCountProportion = threshold;
    AlsRun r(sgd(4096.0f), o, 1, {"summedCastedHistograms"}, DataType::FLOAT16, {0.25, 1.0});
    EXPECT_EQ(r.anchor("summedCastedHistograms"), (Vec{6, 0, 0, 6}));
    EXPECT_EQ(r.weight("lossScaleUpdateFactor"), Vec{factor}) << "threshold " << threshold;
  }
}

TEST(AutoLossScale, ReplicasSumTheirCountsAndMoveTheScaleAlike) {
  // 2 replicas: replica 0's gradients (x = 0.5: 1 x the scale) stay below the bin edge (8188),
  // replica 1's (x = 8: 16 x the scale) pass it while the scale is 512 or more. The counts are
  // summed over the replicas, so both halve then (alone, replica 0 would double every step):
  // 1024, 512, 256, 512, 256 on both.
  SessionOptions o = alsOptions(0.125f);
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = 2;
  constexpr int kSteps = 5;
  auto s = TrainingSession::createFromOnnxModel(model(), DataFlow(kSteps, {"finalLossScale"}), "loss:0", sgd(1024.0f),
                                                test::cpu(), {}, o);
  s->prepareDevice();
  s->weightsFromHost();
  Vec xv;
  for (int step = 0; step < kSteps; ++step)
    for (double x : {0.5, 8.0}) xv.insert(xv.end(), 6, x);
  const TensorData xd =
      TensorData(TensorInfo(DataType::DOUBLE, {kSteps, 2, 2, 3}), xv.data()).castTo(DataType::FLOAT16);
  NDArray x(xd.info());
  std::memcpy(x.data(), xd.data(), static_cast<size_t>(xd.nbytes()));
  std::map<TensorId, NDArray> in;
  in.emplace("x", std::move(x));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  const NDArray& a = anchors.at("finalLossScale");
  EXPECT_EQ(TensorData(a.info(), a.data()).toDouble(), (Vec{1024, 1024, 512, 512, 256, 256, 512, 512, 256, 256}));
}

TEST(AutoLossScale, EveryUpdatePeriodSteps) {
  AlsRun r(sgd(1.0f), alsOptions(1.0f, 3), 7, {"finalLossScale", "summedCastedHistograms"});
  EXPECT_EQ(r.anchor("finalLossScale"), (Vec{1, 2, 2, 2, 4, 4, 4}));
  // The histograms count (10 tracked elements, all below the edge) on the updating steps only.
  EXPECT_EQ(r.anchor("summedCastedHistograms"), (Vec{10, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 10, 0}));
  EXPECT_EQ(r.weight("LossScaleUpdate_counter"), Vec{1.0});  // the step within the period
}

TEST(AutoLossScale, UserSpecifiedTensors) {
  SessionOptions o = alsOptions(0.0f);
  o.automaticLossScalingSettings.gradientTensorTrackingMethod =
      GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors;
  o.automaticLossScalingSettings.toTrackTensors = {"W"};
  AlsRun r(sgd(8.0f), o, 2, {"finalLossScale", "summedCastedHistograms"});
  EXPECT_EQ(r.anchor("summedCastedHistograms"), (Vec{0, 6, 0, 6}));  // dW only
  EXPECT_EQ(r.anchor("finalLossScale"), (Vec{8, 4}));
}

TEST(AutoLossScale, ConvAndMatmulGradients) {
  SessionOptions o = alsOptions(0.0f);
  o.automaticLossScalingSettings.gradientTensorTrackingMethod = GradientTensorTrackingMethod::ConvAndMatmulGradients;
  AlsRun r(sgd(8.0f), o, 2, {"summedCastedHistograms"});
  EXPECT_EQ(r.anchor("summedCastedHistograms"), (Vec{0, 6, 0, 6}));  // the MatMul giving dW, not dY
}

TEST(AutoLossScale, Errors) {
  auto make = [](const SessionOptions& o, DataType t = DataType::FLOAT16) {
    return [o, t] { AlsRun r(sgd(2.0f), o, 1, {"loss:0"}, t); };
  };
  SessionOptions o = alsOptions();
  test::expectError(make(o, DataType::FLOAT),
                    {"[AutomaticLossScale transform] No tracked gradient tensors of type fp16 were found."});
  o.automaticLossScalingSettings.toTrackTensors = {"W"};
  test::expectError(make(o), {"[AutomaticLossScale transform] toTrackTensors has been set, but "
                              "gradientTensorTrackingMethod has not been set to "
                              "'GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors'."});
  o.automaticLossScalingSettings.gradientTensorTrackingMethod =
      GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors;
  test::expectError(make(o, DataType::FLOAT),
                    {"[AutomaticLossScale transform] Unsupported data type FLOAT for to-track tensor 'Gradient___W'"});
  o.automaticLossScalingSettings.toTrackTensors = {"W", "nope"};
  test::expectError(make(o), {"[PreAutomaticLossScale] Some of the tensors in the "
                              "'automaticLossScalingSettings.toTrackTensors' list do not exist in the model.",
                              "'nope'"});
  o.automaticLossScalingSettings.toTrackTensors = {};
  test::expectError(make(o), {"gradientTensorTrackingMethod set to "
                              "'GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors' but 'toTrackTensors' "
                              "has not been set"});
  o = alsOptions();
  o.enablePipelining = true;
  o.virtualGraphMode = VirtualGraphMode::Manual;
  test::expectError(make(o), {"[AutomaticLossScale transform] Automatic loss scaling is not currently supported when "
                              "the 'enablePipelining' SessionOption is set to 'true', but the "
                              "'enableGradientAccumulation' SessionOption is set to 'false'"});
  o = alsOptions();
  o.automaticLossScalingSettings.updatePeriod = 0;
  test::expectError(make(o), {"Out of range value for 'updatePeriod'"});

  // No weight: PopART's transform still looks for fp16 gradients to track.
  auto noWeights = [](DataType t) {
    auto b = Builder::create();
    const TensorId x = b->addInputTensor(TensorInfo(t, Shape{2, 2}));
    const TensorId loss = b->aiGraphcoreOpset1().identityloss({b->aiOnnxOpset11().relu({x})});
    return [proto = b->getModelProto(), loss] {
      TrainingSession::createFromOnnxModel(proto, DataFlow(1, {loss}), loss, sgd(2.0f), test::cpu(), {}, alsOptions());
    };
  };
  test::expectError(noWeights(DataType::FLOAT),
                    {"[AutomaticLossScale transform] No tracked gradient tensors of type fp16 were found."});
}

}  // namespace
}  // namespace popart
