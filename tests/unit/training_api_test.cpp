// The pre-1.2 losses API (NllLoss / L1Loss / IdentityLoss objects, Sum reduction, labels from
// InputShapeInfo, several losses summed), gradient clipping by norm (ClipNormSettings) and the
// running statistics of BatchNormalization in training, against closed forms and the equivalent
// builder-made losses.
#include <cmath>

#include "common/test_util.hpp"
#include "onnx.pb.h"
#include "popart/adam.hpp"
#include "popart/op/identity.hpp"
#include "popart/op/l1.hpp"
#include "popart/op/nll.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

using test::expectError;

/// A softmax classifier without a loss: x [4, 3] -> probs [4, 5]; weight "w" [3, 5].
struct Classifier {
  std::string proto;
  TensorId x, probs;
};

Classifier classifier() {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 3}), "x");
  const auto w0 = test::randomFloats(15, 7);
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo(DataType::FLOAT, {3, 5})), "w");
  const TensorId probs = ai.softmax({ai.matmul({x, w})}, 1);
  b->addOutputTensor(probs);
  return {b->getModelProto(), x, probs};
}

std::map<TensorId, NDArray> classifierInputs(const Classifier& c, const TensorId& labelId) {
  std::map<TensorId, NDArray> in;
  in.emplace(c.x, NDArray::fromVector(test::randomFloats(12, 8), {4, 3}));
  in.emplace(labelId, NDArray::fromVector(std::vector<int32_t>{0, 4, 2, 1}, {4}));
  return in;
}

/// Trains `s` for `steps` runs; returns the weight and the losses.
std::vector<float> trainAndReadW(TrainingSession& s, std::map<TensorId, NDArray> in, int steps, const TensorId& lossId,
                                 std::vector<float>* losses = nullptr) {
  s.prepareDevice();
  s.weightsFromHost();
  auto out = s.initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(out));
  for (int i = 0; i < steps; ++i) {
    s.run(io);
    if (losses && out.count(lossId)) losses->push_back(out.at(lossId).dataAs<float>()[0]);
  }
  s.weightsToHost();
  std::vector<float> w(15);
  WeightsIO wio;
  wio.insert("w", MutableVoidData(w.data(), TensorInfo(DataType::FLOAT, {3, 5})));
  s.readWeights(wio);
  return w;
}

TEST(LegacyLosses, NllLossObjectMatchesTheBuilderLossWithSumReduction) {
  const Classifier c = classifier();
  InputShapeInfo isi;
  isi.add("labels", TensorInfo(DataType::INT32, {4}));
  NllLoss nll(c.probs, "labels", "loss");
  EXPECT_EQ(nll.getReductionType(), ReductionType::Sum);
  std::vector<Loss*> losses{&nll};
  const ConstSGD sgd(0.1f);
  auto legacy = TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {"loss"}), losses, sgd, test::cpu(), isi);
  std::vector<float> legacyLosses;
  const auto wLegacy = trainAndReadW(*legacy, classifierInputs(c, "labels"), 5, "loss", &legacyLosses);

  // The same with a builder-made nllloss (Sum).
  auto b = Builder::createFromOnnxModel(c.proto);
  const TensorId label = b->addInputTensor(TensorInfo(DataType::INT32, {4}), "labels");
  const TensorId l = b->aiGraphcoreOpset1().nllloss({c.probs, label}, ReductionType::Sum);
  auto modern = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {l}), l, sgd, test::cpu());
  std::vector<float> modernLosses;
  const auto wModern = trainAndReadW(*modern, classifierInputs(c, label), 5, l, &modernLosses);

  ASSERT_EQ(legacyLosses.size(), 5u);
  for (size_t i = 0; i < wLegacy.size(); ++i) EXPECT_FLOAT_EQ(wLegacy[i], wModern[i]) << i;
  for (size_t i = 0; i < legacyLosses.size(); ++i) EXPECT_FLOAT_EQ(legacyLosses[i], modernLosses[i]) << i;
  EXPECT_LT(legacyLosses.back(), legacyLosses.front());
}

TEST(ExportInferenceModel, TrainedWeightsWithoutTheLossLabelsOrOptimizerState) {
  const Classifier c = classifier();
  auto b = Builder::createFromOnnxModel(c.proto);
  const TensorId label = b->addInputTensor(TensorInfo(DataType::INT32, {4}), "labels");
  const TensorId l = b->aiGraphcoreOpset1().nllloss({c.probs, label}, ReductionType::Sum);
  b->addOutputTensor(l);
  const SGD sgd({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.9f, false}}});
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {l}), l, sgd, test::cpu());
  const auto w = trainAndReadW(*s, classifierInputs(c, label), 3, l);

  // modelToHost keeps everything (to resume training); exportInferenceModel only what the user's
  // outputs need.
  auto checkpoint = Builder::createFromOnnxModel(s->modelToHostBytes());
  EXPECT_EQ(checkpoint->getOutputTensorIds(), (std::vector<TensorId>{c.probs, l}));
  const std::string bytes = s->exportInferenceModelBytes();
  auto exported = Builder::createFromOnnxModel(bytes);
  EXPECT_EQ(exported->getOutputTensorIds(), (std::vector<TensorId>{c.probs}));
  EXPECT_EQ(exported->getInputTensorIds(), (std::vector<TensorId>{c.x, "w"}));  // no labels, no Accl___w
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  ASSERT_EQ(m.graph().node_size(), 2);  // MatMul, Softmax: no Nll
  EXPECT_EQ(m.graph().node(1).op_type(), "Softmax");
  EXPECT_EQ(m.graph().initializer_size(), 1);
  // It runs as it is, with the trained weights.
  const auto in = classifierInputs(c, label);
  const auto probs = test::runOnce(bytes, {{c.x, in.at(c.x)}}, {c.probs}).at(c.probs).toVector<float>();
  const auto xv = in.at(c.x).toVector<float>();
  for (int n = 0; n < 4; ++n) {
    std::vector<double> z(5, 0.0);
    double sum = 0;
    for (int k = 0; k < 5; ++k) {
      for (int i = 0; i < 3; ++i)
        z[static_cast<size_t>(k)] += xv[static_cast<size_t>(n * 3 + i)] * w[static_cast<size_t>(i * 5 + k)];
      sum += std::exp(z[static_cast<size_t>(k)]);
    }
    for (int k = 0; k < 5; ++k)
      EXPECT_NEAR(probs[static_cast<size_t>(n * 5 + k)], std::exp(z[static_cast<size_t>(k)]) / sum, 1e-5)
          << n << " " << k;
  }
  // A model whose only output is the loss has nothing to export.
  auto only = Builder::create();
  const TensorId x2 = only->addInputTensor(TensorInfo(DataType::FLOAT, {4, 3}), "x");
  const std::vector<float> w2(3, 0.5f);
  const TensorId wt = only->addInitializedInputTensor(ConstVoidData(w2.data(), TensorInfo(DataType::FLOAT, {3})), "w");
  const TensorId l2 = only->aiGraphcoreOpset1().l1loss({only->aiOnnxOpset13().mul({x2, wt})}, 0.1f);
  only->addOutputTensor(l2);
  auto s2 = TrainingSession::createFromOnnxModel(only->getModelProto(), DataFlow(1, {l2}), l2, sgd, test::cpu());
  s2->prepareDevice();
  expectError([&] { s2->exportInferenceModelBytes(); },
              {"exportInferenceModel: the model has no output besides the loss '" + l2 + "'"});
}

TEST(LegacyLosses, BraceListAndInferenceSessionReturnsTheLoss) {
  const Classifier c = classifier();
  InputShapeInfo isi;
  isi.add("labels", TensorInfo(DataType::INT32, {4}));
  NllLoss nll(c.probs, "labels", "loss");
  auto inf = InferenceSession::createFromOnnxModel(c.proto, DataFlow(1, {"loss", c.probs}), test::cpu(), {&nll}, isi);
  inf->prepareDevice();
  auto out = inf->initAnchorArrays();
  auto in = classifierInputs(c, "labels");
  StepIO io(arrayRefs(in), arrayRefs(out));
  inf->run(io);
  const float* p = out.at(c.probs).dataAs<float>();
  const int32_t labels[4] = {0, 4, 2, 1};
  double expected = 0;
  for (int n = 0; n < 4; ++n) expected -= std::log(static_cast<double>(p[n * 5 + labels[n]]));
  EXPECT_NEAR(out.at("loss").dataAs<float>()[0], expected, 1e-5 * expected);
  // `{}` still selects the InputShapeInfo form.
  auto plain = InferenceSession::createFromOnnxModel(c.proto, DataFlow(1, {c.probs}), test::cpu(), {});
  EXPECT_FALSE(plain->hasInfo("loss"));
}

/// w [2], x = [1, -2]: L1Loss(w * x, lambda) (Sum) has gradient lambda * sign(w x) * x.
TEST(LegacyLosses, L1AndIdentityLossesAreSummed) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), "x");
  const std::vector<float> w0{0.5f, 0.25f};
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo(DataType::FLOAT, {2})), "w");
  const TensorId y = ai.mul({x, w});
  b->addOutputTensor(y);
  L1Loss l1(y, "l1", 0.5f);
  IdentityLoss id(y, "idl");  // Sum: gradient x
  const float lr = 0.125f;
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {"l1", "idl", "finalLoss"}), {&l1, &id},
                                                ConstSGD(lr), test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto out = s->initAnchorArrays();
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(std::vector<float>{1.0f, -2.0f}, {2}));
  StepIO io(arrayRefs(in), arrayRefs(out));
  s->run(io);
  // w x = [0.5, -0.5]: l1 = 0.5 * (0.5 + 0.5), idl = 0.5 - 0.5.
  EXPECT_FLOAT_EQ(out.at("l1").dataAs<float>()[0], 0.5f);
  EXPECT_FLOAT_EQ(out.at("idl").dataAs<float>()[0], 0.0f);
  EXPECT_FLOAT_EQ(out.at("finalLoss").dataAs<float>()[0], 0.5f);
  s->weightsToHost();
  std::vector<float> w1(2);
  WeightsIO wio;
  wio.insert("w", MutableVoidData(w1.data(), TensorInfo(DataType::FLOAT, {2})));
  s->readWeights(wio);
  // d/dw: lambda sign(w x) x from the L1 loss plus x from the identity loss.
  const float g0 = 0.5f * 1.0f * 1.0f + 1.0f;     // lambda sign(0.5) 1 + 1
  const float g1 = 0.5f * -1.0f * -2.0f + -2.0f;  // lambda sign(-0.5) (-2) + (-2)
  EXPECT_FLOAT_EQ(w1[0], w0[0] - lr * g0);
  EXPECT_FLOAT_EQ(w1[1], w0[1] - lr * g1);
}

TEST(LegacyLosses, Errors) {
  const Classifier c = classifier();
  NllLoss nll(c.probs, "labels", "loss");
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {"loss"}), {&nll}, ConstSGD(0.1f), test::cpu());
      },
      {"The input 'labels' of the Nll loss 'loss' is not a tensor of the model",
       "InputShapeInfo::add(\"labels\", TensorInfo(...))"});
  InputShapeInfo isi;
  isi.add("labels", TensorInfo(DataType::INT32, {4}));
  NllLoss clash(c.probs, "labels", c.x);
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {c.x}), {&clash}, ConstSGD(0.1f), test::cpu(), isi);
      },
      {"The output 'x' of the Nll loss 'x' is already a tensor of the model"});
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {c.probs}), std::vector<Loss*>{}, ConstSGD(0.1f),
                                             test::cpu());
      },
      {"the list of losses is empty"});
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {c.probs}), std::vector<Loss*>{nullptr},
                                             ConstSGD(0.1f), test::cpu());
      },
      {"Loss 0 of the list of losses is null"});
  // A non-scalar (NoReduction) loss cannot be trained on.
  NllLoss perSample(c.probs, "labels", "loss", 0, ReductionType::NoReduction);
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(c.proto, DataFlow(1, {"loss"}), {&perSample}, ConstSGD(0.1f), test::cpu(),
                                             isi);
      },
      {"Loss tensor, 'loss', must be a scalar tensor"});
}

// ---------------------------------------------------------------- gradient clipping

/// loss = sum(a * xa) + sum(b * xb) (identityloss Sum): the gradients are xa and xb.
struct ClipModel {
  std::string proto;
  TensorId loss;
  std::map<TensorId, NDArray> inputs;
};

const std::vector<float> kXa{3.0f, 0.0f, 4.0f}, kXb{0.0f, 12.0f};  // norms 5, 12; together 13
const std::vector<float> kA0{1.0f, 2.0f, 3.0f}, kB0{-1.0f, 0.5f};

ClipModel clipModel() {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId xa = b->addInputTensor(TensorInfo(DataType::FLOAT, {3}), "xa");
  const TensorId xb = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), "xb");
  const TensorId a = b->addInitializedInputTensor(ConstVoidData(kA0.data(), TensorInfo(DataType::FLOAT, {3})), "a");
  const TensorId bw = b->addInitializedInputTensor(ConstVoidData(kB0.data(), TensorInfo(DataType::FLOAT, {2})), "b");
  const TensorId s = ai.concat({ai.mul({a, xa}), ai.mul({bw, xb})}, 0);
  const TensorId loss = b->aiGraphcoreOpset1().identityloss({s}, ReductionType::Sum);
  ClipModel m{b->getModelProto(), loss, {}};
  m.inputs.emplace(xa, NDArray::fromVector(kXa, {3}));
  m.inputs.emplace(xb, NDArray::fromVector(kXb, {2}));
  return m;
}

/// A training session on clipModel() after one step with `opt`, its weights copied to the host.
std::unique_ptr<TrainingSession> clipModelStep(const Optimizer& opt) {
  ClipModel m = clipModel();
  auto s = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, opt, test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(m.inputs), arrayRefs(out));
  s->run(io);
  s->weightsToHost();
  return s;
}

/// The weights a and b of a clipModel() session (after weightsToHost).
std::pair<std::vector<float>, std::vector<float>> readClipWeights(Session& s) {
  std::vector<float> a(3), b(2);
  WeightsIO wio;
  wio.insert("a", MutableVoidData(a.data(), TensorInfo(DataType::FLOAT, {3})));
  wio.insert("b", MutableVoidData(b.data(), TensorInfo(DataType::FLOAT, {2})));
  s.readWeights(wio);
  return {a, b};
}

/// One step; returns the weights a and b after it.
std::pair<std::vector<float>, std::vector<float>> clipStep(const Optimizer& opt) {
  return readClipWeights(*clipModelStep(opt));
}

void expectSgdStep(const std::pair<std::vector<float>, std::vector<float>>& w, float lr, float fa, float fb) {
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(w.first[i], kA0[i] - lr * fa * kXa[i], 1e-6f) << "a[" << i << "]";
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(w.second[i], kB0[i] - lr * fb * kXb[i], 1e-6f) << "b[" << i << "]";
}

TEST(ClipNorm, AllWeightsAsOneGroup) {
  const float lr = 0.01f;
  // Global norm 13 > 6.5: the gradients are halved.
  expectSgdStep(clipStep(SGD({{"defaultLearningRate", {lr, true}}}, {ClipNormSettings::clipAllWeights(6.5f)})), lr,
                0.5f, 0.5f);
  // Norm below the maximum: unchanged.
  expectSgdStep(clipStep(SGD({{"defaultLearningRate", {lr, true}}}, {ClipNormSettings::clipAllWeights(20.0f)})), lr,
                1.0f, 1.0f);
}

TEST(ClipNorm, SeparateGroupsAndLossScaling) {
  const float lr = 0.01f;
  const std::vector<ClipNormSettings> groups{ClipNormSettings({"a"}, 2.5f), ClipNormSettings({"b"}, 24.0f)};
  // a: norm 5 -> factor 0.5; b: norm 12 < 24 -> 1. Loss scaling (const or not) does not change it.
  expectSgdStep(clipStep(SGD({{"defaultLearningRate", {lr, true}}}, groups)), lr, 0.5f, 1.0f);
  expectSgdStep(clipStep(SGD({{"defaultLearningRate", {lr, true}}, {"lossScaling", {64.0f, true}}}, groups)), lr, 0.5f,
                1.0f);
  expectSgdStep(clipStep(SGD({{"defaultLearningRate", {lr, true}}, {"lossScaling", {8.0f, false}}}, groups)), lr, 0.5f,
                1.0f);
  // Only `a` clipped.
  expectSgdStep(clipStep(SGD({{"defaultLearningRate", {lr, true}}}, {ClipNormSettings({"a"}, 1.0f)})), lr, 0.2f, 1.0f);
}

TEST(ClipNorm, AdamSeesTheClippedGradient) {
  // Adam's first step moves each weight by lr * g / (|g| + eps') ~ lr sign(g) whatever the scale,
  // so compare the first moment instead: Accl1___a = (1 - beta1) * clipped gradient.
  Adam adam({{"defaultLearningRate", {0.01f, true}}, {"defaultBeta1", {0.5f, true}}}, AdamMode::Adam,
            WeightDecayMode::Decay, DataType::UNDEFINED, DataType::FLOAT, DataType::FLOAT,
            {ClipNormSettings::clipAllWeights(1.3f)});
  auto s = clipModelStep(adam);
  std::vector<float> m1(3);
  WeightsIO wio;
  wio.insert("Accl1___a", MutableVoidData(m1.data(), TensorInfo(DataType::FLOAT, {3})));
  s->readWeights(wio);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(m1[i], 0.5f * 0.1f * kXa[i], 1e-6f) << i;
}

TEST(ClipNorm, Errors) {
  const std::map<std::string, std::pair<float, bool>> lr{{"defaultLearningRate", {0.1f, true}}};
  expectError([&] { clipStep(SGD(lr, {ClipNormSettings({"nope"}, 1.0f)})); },
              {"ClipNormSettings 0: 'nope' is not a trainable weight of the model that leads to the loss"});
  expectError(
      [&] {
        clipStep(SGD(lr, {ClipNormSettings({"a"}, 1.0f), ClipNormSettings({"a", "b"}, 1.0f)}));
      },
      {"the weight 'a' is in more than one group"});
  expectError([&] { clipStep(SGD(lr, {ClipNormSettings({"a"}, 0.0f)})); },
              {"ClipNormSettings 0: the maximum norm must be positive"});
}

/// clipModel() with gradient accumulation over 2 micro-batches (x, then 3x): the accumulated
/// gradient is 4x (norm 52 together). Runs `steps` steps and returns a and b.
std::pair<std::vector<float>, std::vector<float>> clipAccumulatedSteps(const Optimizer& opt, int steps) {
  ClipModel m = clipModel();
  SessionOptions o;
  o.enableGradientAccumulation = true;
  o.accumulationFactor = 2;
  auto s = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, opt, test::cpu(), {}, o);
  s->prepareDevice();
  s->weightsFromHost();
  std::vector<float> xa(kXa), xb(kXb);
  for (float v : kXa) xa.push_back(3.0f * v);
  for (float v : kXb) xb.push_back(3.0f * v);
  std::map<TensorId, NDArray> in{{"xa", NDArray::fromVector(xa, {2, 3})}, {"xb", NDArray::fromVector(xb, {2, 2})}};
  auto out = s->initAnchorArrays();
  for (int i = 0; i < steps; ++i) {
    StepIO io(arrayRefs(in), arrayRefs(out));
    s->run(io);
  }
  s->weightsToHost();
  return readClipWeights(*s);
}

TEST(ClipNorm, WithGradientAccumulationClipsTheAccumulatedGradient) {
  const float lr = 0.01f;
  // Norm 52 of the sum 4x, clipped to 13: the update is lr * x. (Clipping each micro-batch would
  // give 13 -> x, then 39 -> x: 2x.)
  expectSgdStep(
      clipAccumulatedSteps(SGD({{"defaultLearningRate", {lr, true}}}, {ClipNormSettings::clipAllWeights(13.0f)}), 1),
      lr, 1.0f, 1.0f);
  // Two steps: the accumulator starts again on each (b, unclipped in practice, moves by 4x twice).
  expectSgdStep(clipAccumulatedSteps(SGD({{"defaultLearningRate", {lr, true}}}, {ClipNormSettings({"b"}, 1000.0f)}), 2),
                lr, 8.0f, 8.0f);
  // Momentum 0.9 (SGD1, the velocity reads the clipped sum on the last micro-batch): x, then
  // 0.9x + x: 2.9x over two steps.
  expectSgdStep(clipAccumulatedSteps(SGD({{"defaultLearningRate", {lr, true}}, {"defaultMomentum", {0.9f, true}}},
                                         {ClipNormSettings::clipAllWeights(13.0f)}),
                                     2),
                lr, 2.9f, 2.9f);
}

// ---------------------------------------------------------------- BatchNormalization

/// x [4, 2, 3] -> BatchNormalization (training_mode 1, momentum 0.75) -> identityloss(y * w).
/// After each step the mean / var weights hold the running statistics.
TEST(BatchNormTraining, RunningStatisticsAreWrittenBack) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset15();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 2, 3}), "x");
  const std::vector<float> one{1.0f, 1.0f}, zero{0.0f, 0.0f}, var0{1.0f, 2.0f}, mean0{0.5f, -0.5f};
  const TensorInfo c(DataType::FLOAT, {2});
  const TensorId scale = b->addInitializedInputTensor(ConstVoidData(one.data(), c), "scale");
  const TensorId bias = b->addInitializedInputTensor(ConstVoidData(zero.data(), c), "bias");
  const TensorId mean = b->addInitializedInputTensor(ConstVoidData(mean0.data(), c), "mean");
  const TensorId var = b->addInitializedInputTensor(ConstVoidData(var0.data(), c), "var");
  const auto outs = ai.batchnormalization({x, scale, bias, mean, var}, 3, 1e-5f, 0.75f, 1);
  const auto wv = test::randomFloats(24, 3);
  const TensorId w =
      b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo(DataType::FLOAT, {4, 2, 3})), "w");
  const TensorId loss = b->aiGraphcoreOpset1().identityloss({ai.mul({outs[0], w})}, ReductionType::Sum);
  const auto xv = test::randomFloats(24, 4, -2.0f, 3.0f);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(xv, {4, 2, 3}));
  auto s =
      TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {loss}), loss, ConstSGD(0.01f), test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(out));
  double bm[2] = {0, 0}, bv[2] = {0, 0};
  for (int ch = 0; ch < 2; ++ch) {
    for (int n = 0; n < 4; ++n) {
      for (int i = 0; i < 3; ++i) bm[ch] += xv[static_cast<size_t>((n * 2 + ch) * 3 + i)] / 12.0;
    }
    for (int n = 0; n < 4; ++n) {
      for (int i = 0; i < 3; ++i) {
        const double d = xv[static_cast<size_t>((n * 2 + ch) * 3 + i)] - bm[ch];
        bv[ch] += d * d / 12.0;
      }
    }
  }
  std::vector<double> em{mean0[0], mean0[1]}, ev{var0[0], var0[1]};
  for (int step = 0; step < 2; ++step) {
    s->run(io);
    for (int ch = 0; ch < 2; ++ch) {
      em[static_cast<size_t>(ch)] = 0.75 * em[static_cast<size_t>(ch)] + 0.25 * bm[ch];
      ev[static_cast<size_t>(ch)] = 0.75 * ev[static_cast<size_t>(ch)] + 0.25 * bv[ch];
    }
  }
  s->weightsToHost();
  std::vector<float> m1(2), v1(2);
  WeightsIO wio;
  wio.insert("mean", MutableVoidData(m1.data(), c));
  wio.insert("var", MutableVoidData(v1.data(), c));
  s->readWeights(wio);
  for (size_t ch = 0; ch < 2; ++ch) {
    EXPECT_NEAR(m1[ch], em[ch], 1e-5) << ch;
    EXPECT_NEAR(v1[ch], ev[ch], 1e-5) << ch;
  }
  // ... and modelToHost carries them to an inference session.
  const std::string trained = s->modelToHostBytes();
  auto inf = InferenceSession::createFromOnnxModel(trained, DataFlow(1, {loss}), test::cpu());
  std::vector<float> m2(2);
  WeightsIO wio2;
  wio2.insert("mean", MutableVoidData(m2.data(), c));
  inf->prepareDevice();
  inf->readWeights(wio2);
  EXPECT_FLOAT_EQ(m2[0], m1[0]);
}

}  // namespace
}  // namespace popart
