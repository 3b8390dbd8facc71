// The older API forms of the seed documents (issue 9, item 4): each works with the seed's meaning
// or fails with an error naming the form and its replacement; nothing is silently reinterpreted.
// SGD(learningRate), poponnx's DataFlow(bps, batchSize, anchors, art), the legacy
// Session::createFromOnnxModel with train / evaluate / infer, sessions without a device, and
// Builder::add. (tests/seeds/seed_examples_test.cpp runs the seeds' own examples.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/test_util.hpp"
#include "popart/popart.hpp"

namespace popart {
namespace {

using test::expectError;

/// x [2] * w [2] (w0 = {0.5, -0.75}) -> "out"; the L1 loss "loss" = 0.1 * sum |out| is added by
/// the sessions.
struct LinearModel {
  std::string proto;
  TensorId out;
};

LinearModel linearModel() {
  auto b = Builder::create();
  const auto x = b->addInputTensor("FLOAT", {2}, "x");
  const std::vector<float> w0{0.5f, -0.75f};
  const auto w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo("FLOAT", {2})), "w");
  const auto out = b->aiOnnxOpset11().mul({x, w});
  b->addOutputTensor(out);
  return {b->getModelProto(), out};
}

std::vector<float> weights(Session& s) {
  s.weightsToHost();
  std::vector<float> w(2);
  WeightsIO io;
  io.insert("w", MutableVoidData(w.data(), TensorInfo("FLOAT", {2})));
  s.readWeights(io);
  return w;
}

// ---------------------------------------------------------------- SGD(learningRate)

TEST(SeedForms, SgdLearningRateIsTheDefaultNonConstLearningRate) {
  const SGD sgd(0.05);
  EXPECT_FLOAT_EQ(sgd.learningRates().getDefault().val(), 0.05f);
  EXPECT_FALSE(sgd.learningRates().getDefault().isConst());  // changeable, as that API streamed it
  EXPECT_EQ(sgd.momentums().getDefault(), SGD::getUnsetMomentum());
  EXPECT_EQ(sgd.weightDecays().getDefault(), SGD::getUnsetWeightDecay());
  EXPECT_EQ(sgd.dampenings().getDefault(), SGD::getUnsetDampening());
  EXPECT_EQ(SGD(3).learningRates().getDefault().val(), 3.0f);
  // `{}` still selects the map form: PopART's defaults.
  const SGD dflt({});
  EXPECT_EQ(dflt.learningRates().getDefault(), SGD::getUnsetLearningRate());

  expectError([] { SGD s(std::nan("")); }, {"SGD(learningRate): the learning rate must be a finite number", "nan"});
  expectError([] { SGD s(std::numeric_limits<double>::infinity()); }, {"SGD(learningRate)", "finite"});
  expectError([] { SGD s(-0.5); }, {"Negative learning rate (-0.5) in SGD"});
  expectError(
      [] {
        SGD s({{"defaultLearningRate", {std::nanf(""), false}}});
      },
      {"The learning rate (nan) in SGD is not a finite number"});
}

TEST(SeedForms, SgdLearningRateTrainsAtThatRateAndCanBeUpdated) {
  const LinearModel m = linearModel();
  L1Loss l1(m.out, "loss", 1.0f);
  auto s = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {"loss"}), std::vector<Loss*>{&l1}, SGD(0.05),
                                                test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(std::vector<float>{1.0f, 2.0f}, {2}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);  // d loss / d w = sign(x w) x = {1, -2}
  std::vector<float> w = weights(*s);
  EXPECT_FLOAT_EQ(w[0], 0.5f - 0.05f * 1.0f);
  EXPECT_FLOAT_EQ(w[1], -0.75f + 0.05f * 2.0f);
  SGD next(0.01);
  s->updateOptimizer(&next);
  s->optimizerFromHost();
  s->run(io);
  w = weights(*s);
  EXPECT_FLOAT_EQ(w[0], 0.45f - 0.01f);
  EXPECT_FLOAT_EQ(w[1], -0.65f + 0.02f);
  // A constant learning rate cannot be replaced by SGD(lr): the const-ness differs.
  auto c = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {"loss"}), std::vector<Loss*>{&l1}, ConstSGD(0.05),
                                                test::cpu());
  expectError([&] { c->updateOptimizer(&next); }, {"constant"});
}

// ---------------------------------------------------------------- DataFlow(bps, batchSize, anchors, art)

TEST(SeedForms, PoponnxDataFlowKeepsItsAnchors) {
  const DataFlow df(500, 4, {"l1LossVal", "out"}, AnchorReturnType("ALL"));
  EXPECT_EQ(df.batchesPerStep(), 500);
  EXPECT_EQ(df.batchSize(), 4);
  EXPECT_EQ(df.anchors(), (std::vector<TensorId>{"l1LossVal", "out"}));
  EXPECT_EQ(df.art("l1LossVal").id(), AnchorReturnTypeId::All);
  const DataFlow every(4, 1, {"out"}, AnchorReturnType("EVERYN", 2));
  EXPECT_EQ(every.art("out").rp(), 2);
  EXPECT_EQ(DataFlow(2, {"out"}).batchSize(), 0);  // the other forms have none
  // batchSize is not part of the DataFlow's meaning (the input shapes decide).
  EXPECT_EQ(df.hash(), DataFlow(500, {"l1LossVal", "out"}, AnchorReturnType("All")).hash());

  expectError([] { DataFlow(500, 0, {"out"}, AnchorReturnType("ALL")); },
              {"DataFlow(batchesPerStep, batchSize, anchors, art) (poponnx's form): batchSize must be greater than "
               "zero, got 0"});
  expectError([] { DataFlow(0, 4, {"out"}, AnchorReturnType("ALL")); }, {"'Batches per step' must be greater"});
  expectError([] { DataFlow(3, 4, {"out"}, AnchorReturnType("EVERYN", 2)); }, {"Return period must be a factor"});
}

TEST(SeedForms, PoponnxDataFlowInASession) {
  const LinearModel m = linearModel();
  auto s =
      InferenceSession::createFromOnnxModel(m.proto, DataFlow(3, 2, {m.out}, AnchorReturnType("ALL")), test::cpu());
  EXPECT_EQ(s->getAnchorShape(m.out), (Shape{3, 2}));
  EXPECT_EQ(s->getDataFlow().batchSize(), 2);
}

// ---------------------------------------------------------------- sessions without a device

TEST(SeedForms, SessionsWithoutADeviceRunOnTheCpu) {
  const LinearModel m = linearModel();
  auto inf = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.out}));
  EXPECT_EQ(inf->getDevice()->getType(), DeviceType::Cpu);
  L1Loss l1(m.out, "loss", 0.1f);
  auto tr =
      TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {"loss"}), std::vector<Loss*>{&l1}, ConstSGD(0.1));
  EXPECT_EQ(tr->getDevice()->getType(), DeviceType::Cpu);
  // An explicit null device is still an error (e.g. a failed tryAcquire), not the CPU.
  expectError([&] { InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.out}), nullptr); },
              {"Must pass a valid deviceInfo"});
  expectError(
      [&] {
        TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {"loss"}), std::vector<Loss*>{&l1}, ConstSGD(0.1),
                                             nullptr);
      },
      {"Must pass a valid deviceInfo"});
}

// ---------------------------------------------------------------- poponnx's Session

TEST(SeedForms, LegacySessionTrainEvaluateInfer) {
  const LinearModel m = linearModel();
  L1Loss l1(m.out, "loss", 0.1f);
  ConstSGD sgd(0.5);
  const DataFlow df(2, 1, {"loss", m.out}, AnchorReturnType("ALL"));
  auto s = Session::createFromOnnxModel(m.proto, df, {&l1}, &sgd);
  ASSERT_TRUE(s->hasOptimizer());
  s->prepareDevice();
  s->weightsFromHost();
  s->optimizerFromHost();

  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(std::vector<float>{1, 2, 1, 2}, {2, 2}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->train(io);  // two steps: w = {0.5, -0.75} - 0.5 * 0.1 * {1, -2} twice
  const std::vector<float> w = weights(s->session());
  EXPECT_FLOAT_EQ(w[0], 0.4f);
  EXPECT_FLOAT_EQ(w[1], -0.55f);

  // evaluate: the forward pass and the loss with the trained weights, no update (twice the same).
  for (int rep = 0; rep < 2; ++rep) {
    auto ev = s->initAnchorArrays();
    StepIO eio(arrayRefs(in), arrayRefs(ev));
    s->evaluate(eio);
    EXPECT_FLOAT_EQ(ev.at("loss").dataAs<float>()[0], 0.1f * (0.4f + 2 * 0.55f));
    EXPECT_FLOAT_EQ(ev.at(m.out).dataAs<float>()[1], 2 * -0.55f);
  }
  EXPECT_EQ(weights(s->session()), w);

  // infer: the forward pass alone; the loss anchor is dropped.
  std::map<TensorId, NDArray> out;
  out.emplace(m.out, NDArray(DataType::FLOAT, {2, 2}));
  StepIO iio(arrayRefs(in), arrayRefs(out));
  s->infer(iio);
  EXPECT_FLOAT_EQ(out.at(m.out).dataAs<float>()[0], 0.4f);
  // ... and a StepIO that still holds the loss is refused by the core's check, naming it.
  auto withLoss = s->initAnchorArrays();
  StepIO bad(arrayRefs(in), arrayRefs(withLoss));
  expectError([&] { s->infer(bad); }, {"'loss' has been provided as one of the outputs"});

  // Training again, then evaluate sees the new weights.
  s->train(io);
  auto ev = s->initAnchorArrays();
  StepIO eio(arrayRefs(in), arrayRefs(ev));
  s->evaluate(eio);
  EXPECT_NEAR(ev.at("loss").dataAs<float>()[0], 0.1f * (0.3f + 2 * 0.35f), 1e-6);
}

TEST(SeedForms, LegacySessionErrorsNameTheForm) {
  const LinearModel m = linearModel();
  L1Loss l1(m.out, "loss", 0.1f);
  ConstSGD sgd(0.5);

  expectError([&] { Session::createFromOnnxModel(m.proto, DataFlow(1, {m.out}), {}, &sgd); },
              {"an optimizer needs losses to minimise", "TrainingSession::createFromOnnxModel"});
  expectError([&] { Session::createFromOnnxModel(m.proto, DataFlow(1, {"loss"}), {nullptr}, &sgd); },
              {"losses[0] is null"});

  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(std::vector<float>{1, 2}, {2}));

  // Inference only: train and evaluate name the form that can.
  auto inf = Session::createFromOnnxModel(m.proto, DataFlow(1, {m.out}));
  inf->prepareDevice();
  auto a = inf->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(a));
  expectError([&] { inf->train(io); },
              {"Session.train", "without losses and an optimizer", "Session(model, dataFeed, losses, optimizer)"});
  expectError([&] { inf->evaluate(io); }, {"Session.evaluate", "no losses", "infer()"});
  expectError([&] { inf->optimizerFromHost(); }, {"Session.optimizerFromHost", "no optimizer"});
  inf->infer(io);  // still works after the errors
  EXPECT_FLOAT_EQ(a.at(m.out).dataAs<float>()[1], -1.5f);

  // Losses without an optimizer: evaluate runs, train names the optimizer.
  auto ev = Session::createFromOnnxModel(m.proto, DataFlow(1, {"loss"}), {&l1});
  ev->prepareDevice();
  auto e = ev->initAnchorArrays();
  StepIO eio(arrayRefs(in), arrayRefs(e));
  expectError([&] { ev->train(eio); }, {"without an optimizer"});
  ev->evaluate(eio);
  EXPECT_FLOAT_EQ(e.at("loss").dataAs<float>()[0], 0.1f * (0.5f + 1.5f));
  // infer has nothing to return when the only anchor is the loss.
  expectError([&] { ev->infer(eio); }, {"Session.infer", "none of the DataFlow's anchors ('loss')", "forward pass"});

  // evaluate / infer before prepareDevice.
  auto tr = Session::createFromOnnxModel(m.proto, DataFlow(1, {"loss", m.out}), {&l1}, &sgd);
  expectError([&] { tr->evaluate(eio); }, {"Session.evaluate was called before prepareDevice()"});
  expectError([&] { tr->infer(eio); }, {"Session.infer was called before prepareDevice()"});
}

// ---------------------------------------------------------------- Builder::add

TEST(SeedForms, BuilderAdd) {
  auto b = Builder::create();
  const auto i1 = b->addInputTensor(TensorInfo("FLOAT", {2}));
  const auto i2 = b->addInputTensor(TensorInfo("FLOAT", {2}));
  EXPECT_EQ(b->add(i1, i2), "Add:0");
  EXPECT_EQ(b->getOnnxOpsetVersion(), 10);  // PopART's default opset
  auto b13 = Builder::create();
  const auto x = b13->addInputTensor(TensorInfo("FLOAT", {2}));
  b13->aiOnnxOpset13().relu({x});
  EXPECT_EQ(b13->add(x, x, "sum"), "sum:0");
  EXPECT_EQ(b13->getOnnxOpsetVersion(), 13);  // the model's opset
  expectError([&] { b13->add(x, "nope"); }, {"nope"});
}

}  // namespace
}  // namespace popart
