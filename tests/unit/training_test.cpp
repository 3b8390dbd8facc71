// Training: autodiff checked against central finite differences in double precision (every op
// with a grad rule), SGD's update equations against closed forms, and the training errors.
#include <cmath>
#include <functional>
#include <random>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using namespace test;

TEST(Autodiff, MatMulAddReluSigmoidTanhMul) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.input({4, 3}, 1);
  const auto w1 = mb.weight({3, 5}, 2), b1 = mb.weight({5}, 3), w2 = mb.weight({5, 2}, 4);
  const auto h = ai.relu({ai.add({ai.matmul({x, w1}), b1})});
  const auto z = ai.sigmoid({ai.matmul({h, w2})});
  const auto t = ai.tanh({ai.mul({z, z})});
  const auto loss = mb.b->aiGraphcoreOpset1().identityloss({t}, ReductionType::Sum);
  checkGradients(mb, loss);
}

TEST(Autodiff, GemmSoftmaxLogReduceMean) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.input({3, 4}, 5);
  const auto w = mb.weight({6, 4}, 6), c = mb.weight({6}, 7), a = mb.weight({3, 4}, 8);
  const auto y = ai.gemm({x, w, c}, 0.7f, 0.3f, 0, 1);           // [3, 6]
  const auto y2 = ai.gemm({a, y}, 1.3f, 1.0f, 1, 0);             // a^T y: [4, 6]
  const auto p = ai.softmax({y2}, 0);                            // along axis 0
  const auto l = ai.reducemean({ai.neg({ai.log({p})})}, {}, 0);  // all axes
  checkGradients(mb, l);
}

TEST(Autodiff, SubDivExpSqrtTransposeReshapeReduceSumSum) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.input({2, 3, 4}, 9);
  const auto w = mb.weight({4, 3}, 10), v = mb.weight({1, 3}, 11, 0.5, 1.5);
  const auto t = ai.transpose({x}, {0, 2, 1});                                                // [2, 4, 3]
  const auto d = ai.div({ai.sub({t, ai.exp({w})}), ai.sqrt({ai.add({ai.mul({v, v}), v})})});  // v > 0
  const std::vector<int64_t> shp{8, 3};
  const auto r = ai.reshape({d, ai.constant(ConstVoidData(shp.data(), TensorInfo(DataType::INT64, {2})))});
  const std::vector<int64_t> axes{0};
  const auto s = ai.reducesum({r, ai.constant(ConstVoidData(axes.data(), TensorInfo(DataType::INT64, {1})))}, 0);
  const auto total = ai.sum({s, s, ai.mul({s, s})});
  checkGradients(mb, mb.b->aiGraphcoreOpset1().identityloss({total}, ReductionType::Mean));
}

TEST(Autodiff, NllOnSoftmaxAndLogSoftmaxWithIgnoreIndex) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.input({5, 3}, 12);
  const auto w = mb.weight({3, 4}, 13);
  const auto label = mb.intInput({0, 3, 2, 1, 3}, {5});
  const auto logits = ai.matmul({x, w});
  const auto l1 = gc.nllloss({ai.softmax({logits}, 1), label}, ReductionType::Mean, 3);
  const auto l2 = gc.nllloss({ai.logsoftmax({logits}, 1), label}, ReductionType::Sum, nonstd::nullopt, true);
  const auto l3 = gc.l1loss({logits}, 0.25f, ReductionType::Mean);
  checkGradients(mb, ai.sum({l1, l2, l3}));
}

TEST(Autodiff, Opset11SoftmaxOverTrailingDimsAndFlatten) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset11();
  const auto x = mb.input({2, 3, 2}, 14);
  const auto w = mb.weight({2, 3, 2}, 15);
  const auto p = ai.softmax({ai.mul({x, w})}, 1);  // over the last two dims together
  const auto f = ai.flatten({ai.mul({p, w})}, 1);
  checkGradients(mb, mb.b->aiGraphcoreOpset1().identityloss({f}, ReductionType::Sum));
}

TEST(Autodiff, SharedWeightGradientsAreSummed) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.input({3}, 16);
  const auto w = mb.weight({3}, 17);
  const auto y = ai.add({ai.mul({x, w}), ai.mul({w, w})});
  checkGradients(mb, mb.b->aiGraphcoreOpset1().identityloss({y}, ReductionType::Sum));
}

// ------------------------------------------------------------------ SGD closed forms

/// w [1] FLOAT, loss = identityloss(Sum)(w * x) with x = 1: the gradient is always 1.
std::string unitGradModel(float w0) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {1}), "x");
  const auto w = b->addInitializedInputTensor(ConstVoidData(&w0, TensorInfo(DataType::FLOAT, {1})), "w");
  const auto l = b->aiGraphcoreOpset1().identityloss({ai.mul({x, w})}, ReductionType::Sum, "loss");
  b->addOutputTensor(l);
  return b->getModelProto();
}

float trainUnitGrad(const SGD& sgd, int runs, int batchesPerStep = 1) {
  auto s = TrainingSession::createFromOnnxModel(unitGradModel(5.0f), DataFlow(batchesPerStep, {"loss:0"}), "loss:0",
                                                sgd, test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace("x",
             NDArray::fromVector(std::vector<float>(static_cast<size_t>(batchesPerStep), 1.0f), {batchesPerStep, 1}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  for (int r = 0; r < runs; ++r) s->run(io);
  s->weightsToHost();
  float w = 0;
  WeightsIO wio;
  wio.insert("w", MutableVoidData(&w, TensorInfo(DataType::FLOAT, {1})));
  s->readWeights(wio);
  return w;
}

TEST(SGDTraining, MomentumClosedForms) {
  const float lr = 0.25f;
  SGD plain({{"defaultLearningRate", {lr, true}}, {"defaultMomentum", {1.0f, true}}});
  EXPECT_FLOAT_EQ(trainUnitGrad(plain, 3), 5.0f - 6 * lr);
  EXPECT_FLOAT_EQ(trainUnitGrad(plain, 1, 3), 5.0f - 6 * lr);  // one run of batchesPerStep 3
  SGD nesterov({{"defaultLearningRate", {lr, true}}, {"defaultMomentum", {1.0f, true}}, {"nesterov", {1.0f, true}}});
  EXPECT_FLOAT_EQ(trainUnitGrad(nesterov, 3), 5.0f - 9 * lr);
  // The worked example of the spec: mm 0.9, dm 0.1, lr 0.1, 3 steps -> w0 - 0.5049.
  SGD damped(
      {{"defaultLearningRate", {0.1f, true}}, {"defaultMomentum", {0.9f, true}}, {"defaultDampening", {0.1f, true}}});
  EXPECT_NEAR(trainUnitGrad(damped, 3), 5.0 - 0.5049, 1e-5);
  // Velocity scaling and loss scaling leave the result unchanged.
  SGD scaled({{"defaultLearningRate", {0.1f, true}},
              {"defaultMomentum", {0.9f, true}},
              {"defaultDampening", {0.1f, true}},
              {"defaultVelocityScaling", {4.0f, true}},
              {"lossScaling", {8.0f, true}}});
  EXPECT_NEAR(trainUnitGrad(scaled, 3), 5.0 - 0.5049, 1e-5);
}

TEST(SGDTraining, NoMomentumWithWeightDecayAndDampening) {
  // SGD0: w <- w (1 - lr (1 - dm) wd) - lr (1 - dm) g / ls
  SGD sgd({{"defaultLearningRate", {0.1f, true}},
           {"defaultWeightDecay", {0.2f, true}},
           {"defaultDampening", {0.5f, true}},
           {"lossScaling", {2.0f, true}}});
  double w = 5.0;
  for (int i = 0; i < 2; ++i) w = w * (1 - 0.1 * 0.5 * 0.2) - 0.1 * 0.5 * 1.0;
  EXPECT_NEAR(trainUnitGrad(sgd, 2), w, 1e-5);
  ConstSGD constSgd(0.5f);
  EXPECT_FLOAT_EQ(trainUnitGrad(constSgd, 2), 5.0f - 2 * 0.5f);
}

TEST(TrainingErrors, LossAndWeightsChecks) {
  const std::string proto = unitGradModel(1.0f);
  const SGD sgd({{"defaultLearningRate", {0.1f, true}}});
  expectError([&] { TrainingSession::createFromOnnxModel(proto, DataFlow(1, {"loss:0"}), "nope", sgd, test::cpu()); },
              {"Could not find loss tensor 'nope' in main graph tensors"});
  // a non-scalar loss
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const float w0[2] = {1, 2};
  const auto w = b->addInitializedInputTensor(ConstVoidData(w0, TensorInfo(DataType::FLOAT, {2})), "w");
  const auto l = b->aiGraphcoreOpset1().identityloss({ai.relu({w})}, ReductionType::NoReduction, "l");
  b->addOutputTensor(l);
  expectError([&] { TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {l}), l, sgd, test::cpu()); },
              {"must be a scalar tensor"});
  // run before weightsFromHost
  auto s = TrainingSession::createFromOnnxModel(proto, DataFlow(1, {"loss:0"}), "loss:0", sgd, test::cpu());
  s->prepareDevice();
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(std::vector<float>{1.0f}, {1}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  expectError([&] { s->run(io); }, {"Must call weightsFromHost before run"});
  // an op without a grad rule on the path to the loss
  auto b2 = Builder::create();
  auto ai2 = b2->aiOnnxOpset13();
  const auto w2 = b2->addInitializedInputTensor(ConstVoidData(w0, TensorInfo(DataType::FLOAT, {2})), "w");
  const auto l2 = b2->aiGraphcoreOpset1().identityloss({ai2.randomuniformlike({w2}, {}, 1.0f, 0.0f, {}, "myrandom")},
                                                       ReductionType::Sum, "l");
  b2->addOutputTensor(l2);
  expectError(
      [&] { TrainingSession::createFromOnnxModel(b2->getModelProto(), DataFlow(1, {l2}), l2, sgd, test::cpu()); },
      {"node 'myrandom", "has no gradient rule"});
}

}  // namespace
}  // namespace popart
