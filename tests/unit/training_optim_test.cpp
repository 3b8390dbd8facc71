// Training with every optimizer against the double-precision reference steps of
// optimizers/optimizer_math: SGD (SGD0 / SGD1 with its lag / SGD2, nesterov), the Adam family and
// Adaptive; non-const hyper-parameters changed with updateOptimizerFromHost (and the legacy
// updateOptimizer + optimizerFromHost pair) and its errors; gradient accumulation (Sum, Mean Post,
// Mean Running); the optimizer state in modelToHost and resetHostWeights.
//
// The model: loss = identityloss(Sum)(w1·w1·x1 + w2·w2·x2), all of shape [3], so that
// dL/dwk = 2·wk·xk changes with the weights. Each micro-batch feeds other x values.
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <sstream>

#include "common/tensor_data.hpp"
#include "common/test_util.hpp"
#include "onnx.pb.h"
#include "optimizers/optimizer_math.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

using test::expectError;
using test::expectNear;
using Vec = std::vector<double>;
namespace om = optimizer_math;

const std::vector<TensorId> kWeights{"w1", "w2"};

Vec initialWeight(const TensorId& id) {
  return id == "w1" ? Vec{0.5, -1.25, 2.0} : Vec{1.5, 0.375, -0.75};
}

/// x of input `in` ("x1" or "x2") in global micro-batch `micro`.
Vec xValue(const TensorId& in, int64_t micro) {
  const Vec base = in == "x1" ? Vec{1.0, 0.5, -0.25} : Vec{-0.75, 1.25, 0.5};
  Vec v(base);
  for (double& x : v) x *= 1.0 + 0.25 * static_cast<double>(micro % 5);
  return v;
}

TensorData toData(const Vec& v, DataType t, const Shape& s) {
  return TensorData(TensorInfo(DataType::DOUBLE, s), v.data()).castTo(t);
}

std::string quadModel(DataType t) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorInfo info(t, {3});
  const auto x1 = b->addInputTensor(info, "x1");
  const auto x2 = b->addInputTensor(info, "x2");
  const TensorData d1 = toData(initialWeight("w1"), t, {3}), d2 = toData(initialWeight("w2"), t, {3});
  const auto w1 = b->addInitializedInputTensor(ConstVoidData(d1.data(), info), "w1");
  const auto w2 = b->addInitializedInputTensor(ConstVoidData(d2.data(), info), "w2");
  const auto y = ai.add({ai.mul({ai.mul({w1, w1}), x1}), ai.mul({ai.mul({w2, w2}), x2})});
  const auto l = b->aiGraphcoreOpset1().identityloss({y}, ReductionType::Sum, "loss");
  b->addOutputTensor(l);
  return b->getModelProto();
}

/// A training session on the quad model, fed by xValue.
class Trainer {
 public:
  Trainer(DataType t, const Optimizer& opt, const SessionOptions& opts = {}, int bps = 1,
          const std::vector<TensorId>& anchors = {"loss:0"})
      : type_(t), opts_(opts), bps_(bps) {
    s_ = TrainingSession::createFromOnnxModel(quadModel(t), DataFlow(bps, anchors), "loss:0", opt, test::cpu(), {},
                                              opts);
    s_->prepareDevice();
    s_->weightsFromHost();
  }

  /// One run: batchesPerStep · accumulationFactor micro-batches.
  void step() {
    const int64_t af = opts_.getAccumulationFactor();
    const int64_t n = bps_ * af;
    Shape shape;
    if (bps_ > 1) shape.push_back(bps_);
    if (af > 1) shape.push_back(af);
    shape.push_back(3);
    std::map<TensorId, NDArray> in;
    for (const TensorId x : {"x1", "x2"}) {
      Vec all;
      for (int64_t m = 0; m < n; ++m) {
        const Vec v = xValue(x, micro_ + m);
        all.insert(all.end(), v.begin(), v.end());
      }
      const TensorData d = toData(all, type_, shape);
      NDArray a(d.info());
      std::memcpy(a.data(), d.data(), static_cast<size_t>(d.nbytes()));
      in.emplace(x, std::move(a));
    }
    anchors_ = s_->initAnchorArrays();
    StepIO io(arrayRefs(in), arrayRefs(anchors_));
    s_->run(io);
    micro_ += n;
  }

  /// The device value of a weight or optimizer state tensor.
  Vec read(const TensorId& id) {
    s_->weightsToHost();
    const TensorInfo info = s_->getInfo(id);
    TensorData d(info);
    WeightsIO io;
    io.insert(id, MutableVoidData(d.data(), info));
    s_->readWeights(io);
    return d.toDouble();
  }

  /// Skips the inputs of `n` micro-batches.
  void skip(int64_t n) { micro_ += n; }

  TrainingSession& session() { return *s_; }
  const std::map<TensorId, NDArray>& anchors() const { return anchors_; }

 private:
  DataType type_;
  SessionOptions opts_;
  int bps_;
  int64_t micro_ = 0;
  std::unique_ptr<TrainingSession> s_;
  std::map<TensorId, NDArray> anchors_;
};

/// The same training on the host with optimizer_math.
class Reference {
 public:
  explicit Reference(const SessionOptions& opts = {}, int bps = 1) : opts_(opts), bps_(bps) {
    for (const auto& id : kWeights) w[id] = initialWeight(id);
  }

  /// One run with optimizer `o` (its values as the session has them for this run).
  void step(const Optimizer& o) {
    std::unique_ptr<Optimizer> opt = o.clone();
    opt->setFactorsFromOptions(opts_);
    const int64_t af = opts_.getAccumulationFactor();
    const bool running = opts_.enableGradientAccumulation &&
                         opts_.accumulationAndReplicationReductionType == ReductionType::Mean &&
                         opts_.meanAccumulationAndReplicationReductionStrategy == MeanReductionStrategy::Running;
    const double ls = opt->getLossScalingVal();
    for (int b = 0; b < bps_; ++b) {
      for (const auto& id : kWeights) {
        // The backward pass: ls · dL/dw, summed over the micro-batches (the running mean: averaged).
        Vec g(3, 0.0);
        for (int64_t a = 0; a < af; ++a) {
          const Vec x = xValue(id == "w1" ? "x1" : "x2", micro_ + a);
          for (size_t i = 0; i < 3; ++i) g[i] += ls * 2.0 * w[id][i] * x[i];
        }
        if (running)
          for (double& v : g) v /= static_cast<double>(af);
        switch (opt->type()) {
          case OptimizerType::SGD:
            om::sgdStep(w[id], g, sgd[id], om::sgdHyper(static_cast<const SGD&>(*opt), id));
            break;
          case OptimizerType::Adam:
            om::adamStep(w[id], g, adam[id], om::adamHyper(static_cast<const Adam&>(*opt), id));
            break;
          case OptimizerType::Adaptive:
            om::adaptiveStep(w[id], g, adaptive[id], om::adaptiveHyper(static_cast<const Adaptive&>(*opt), id));
            break;
          default:
            FAIL();
        }
      }
      micro_ += af;
    }
  }

  std::map<TensorId, Vec> w;
  std::map<TensorId, om::SGDState> sgd;
  std::map<TensorId, om::AdamState> adam;
  std::map<TensorId, om::AdaptiveState> adaptive;

 private:
  SessionOptions opts_;
  int bps_;
  int64_t micro_ = 0;
};

/// `steps` runs of the session and of the reference with optimizer `o`.
void stepBoth(Trainer& tr, Reference& ref, const Optimizer& o, int steps = 1) {
  for (int i = 0; i < steps; ++i) {
    tr.step();
    ref.step(o);
  }
}

void expectWeights(Trainer& t, const Reference& r, double tol, const std::string& what) {
  for (const auto& id : kWeights) expectNear(t.read(id), r.w.at(id), tol, what + " " + id);
}

/// Trains `steps` runs with optimizers[i] (the first creates the session, the others replace it
/// through updateOptimizerFromHost before their run) and compares with the reference after
/// every run.
void checkAgainstReference(DataType t, const std::vector<std::shared_ptr<Optimizer>>& optimizers, double tol,
                           const SessionOptions& opts = {}, int bps = 1, const std::string& what = "") {
  Trainer tr(t, *optimizers.front(), opts, bps);
  Reference ref(opts, bps);
  for (size_t i = 0; i < optimizers.size(); ++i) {
    if (i > 0) tr.session().updateOptimizerFromHost(optimizers[i].get());
    stepBoth(tr, ref, *optimizers[i]);
    expectWeights(tr, ref, tol, what + " step " + std::to_string(i + 1));
  }
}

/// The same optimizer for `n` runs.
std::vector<std::shared_ptr<Optimizer>> times(int n, const std::shared_ptr<Optimizer>& o) {
  return std::vector<std::shared_ptr<Optimizer>>(static_cast<size_t>(n), o);
}

using SgdMap = std::map<std::string, std::pair<float, bool>>;

std::shared_ptr<Optimizer> sgd(const SgdMap& m, SGDAccumulatorAndMomentum a = SGDAccumulatorAndMomentum::Combined) {
  return std::make_shared<SGD>(m, std::vector<ClipNormSettings>{}, a);
}

// ------------------------------------------------------------------ SGD

TEST(OptimSGD, ConstModesMatchTheReference) {
  for (auto acc : {SGDAccumulatorAndMomentum::Combined, SGDAccumulatorAndMomentum::Separate}) {
    const std::vector<SgdMap> maps{
        {{"defaultLearningRate", {0.05f, true}}, {"defaultWeightDecay", {0.1f, true}}},
        {{"defaultLearningRate", {0.05f, true}}, {"defaultDampening", {0.3f, true}}, {"lossScaling", {4.0f, true}}},
        {{"defaultLearningRate", {0.05f, true}},
         {"defaultMomentum", {0.9f, true}},
         {"defaultDampening", {0.2f, true}},
         {"defaultWeightDecay", {0.1f, true}},
         {"defaultVelocityScaling", {2.0f, true}},
         {"lossScaling", {8.0f, true}}},
        {{"defaultLearningRate", {0.05f, true}},
         {"defaultMomentum", {0.7f, true}},
         {"defaultWeightDecay", {0.1f, true}},
         {"nesterov", {1.0f, true}}},
    };
    for (size_t k = 0; k < maps.size(); ++k) {
      std::vector<std::shared_ptr<Optimizer>> v{sgd(maps[k], acc), sgd(maps[k], acc), sgd(maps[k], acc)};
      checkAgainstReference(DataType::DOUBLE, v, 1e-12, {}, 1, "double case " + std::to_string(k));
      checkAgainstReference(DataType::FLOAT, v, 2e-5, {}, 1, "float case " + std::to_string(k));
    }
  }
}

TEST(OptimSGD, NonConstLearningRateTakesEffectAtTheNextRun) {
  auto o1 = sgd({{"defaultLearningRate", {0.1f, false}}});
  auto o2 = sgd({{"defaultLearningRate", {0.5f, false}}});
  auto o3 = sgd({{"defaultLearningRate", {0.0f, false}}});  // a non-const zero is allowed
  checkAgainstReference(DataType::DOUBLE, {o1, o2, o3, o1}, 1e-12);
  Trainer tr(DataType::FLOAT, *o1);
  // Both SGD0 scalars depend on lr: both are tensors.
  const auto& ids = tr.session().getOptimizerTensorIds();
  EXPECT_EQ(ids, (std::vector<TensorId>{"scaledLearningRate0___default___FLOAT",
                                        "weightDecayScaleFactor0___default___FLOAT"}));
  EXPECT_EQ(tr.session().getInfo(ids[0]), TensorInfo(DataType::FLOAT, {}));
}

TEST(OptimSGD, CombinedLagsMomentumDampeningAndWeightDecay) {
  // SGD1 applies changes of mm, dm and wd one step late; lr, vs and ls changes are exact.
  auto make = [](float lr, float mm, float dm, float wd, float vs, float ls,
                 SGDAccumulatorAndMomentum a = SGDAccumulatorAndMomentum::Combined) {
    return sgd({{"defaultLearningRate", {lr, false}},
                {"defaultMomentum", {mm, false}},
                {"defaultDampening", {dm, false}},
                {"defaultWeightDecay", {wd, false}},
                {"defaultVelocityScaling", {vs, false}},
                {"lossScaling", {ls, false}}},
               a);
  };
  const std::vector<std::shared_ptr<Optimizer>> v{
      make(0.1f, 0.9f, 0.1f, 0.01f, 1.0f, 1.0f), make(0.05f, 0.5f, 0.3f, 0.2f, 2.0f, 4.0f),
      make(0.2f, 0.0f, 0.0f, 0.0f, 0.5f, 2.0f), make(0.1f, 0.8f, 0.5f, 0.1f, 1.0f, 1.0f)};
  checkAgainstReference(DataType::DOUBLE, v, 1e-12);
  // The lag is real: Separate SGD with the same values (no lag) ends elsewhere.
  Trainer tr(DataType::DOUBLE, *v[0]);
  Reference separate;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) tr.session().updateOptimizerFromHost(v[i].get());
    tr.step();
    const auto* o = static_cast<const SGD*>(v[i].get());
    separate.step(*make(o->learningRates().getDefault().val(), o->momentums().getDefault().val(),
                        o->dampenings().getDefault().val(), o->weightDecays().getDefault().val(),
                        o->velocityScalings().getDefault().val(), o->getLossScalingVal(),
                        SGDAccumulatorAndMomentum::Separate));
  }
  EXPECT_GT(std::fabs(tr.read("w1")[2] - separate.w["w1"][2]), 1e-4);
  // The tensors of the non-const compound scalars, and the loss scaling seed.
  std::set<TensorId> ids(tr.session().getOptimizerTensorIds().begin(), tr.session().getOptimizerTensorIds().end());
  EXPECT_EQ(ids, (std::set<TensorId>{"scaledLearningRate1___default___DOUBLE",
                                     "dampeningScaleFactor1___default___DOUBLE", "scaledMomentum1___default___DOUBLE",
                                     "scaledWeightDecay1___default___DOUBLE", "lossScaling_DOUBLE"}));
}

TEST(OptimSGD, SeparateChangesAreExact) {
  auto make = [](float lr, float mm, float dm, float wd) {
    return sgd({{"defaultLearningRate", {lr, false}},
                {"defaultMomentum", {mm, false}},
                {"defaultDampening", {dm, false}},
                {"defaultWeightDecay", {wd, false}}},
               SGDAccumulatorAndMomentum::Separate);
  };
  checkAgainstReference(DataType::DOUBLE,
                        {make(0.1f, 0.9f, 0.1f, 0.01f), make(0.05f, 0.5f, 0.3f, 0.2f), make(0.2f, 0.0f, 0.0f, 0.0f)},
                        1e-12);
  auto nesterov = [](float lr, float mm) {
    return sgd({{"defaultLearningRate", {lr, false}}, {"defaultMomentum", {mm, false}}, {"nesterov", {1.0f, true}}},
               SGDAccumulatorAndMomentum::Separate);
  };
  // nesterov is decided when the graph is built (mm > 0 then).
  checkAgainstReference(DataType::DOUBLE, {nesterov(0.1f, 0.9f), nesterov(0.05f, 0.5f), nesterov(0.2f, 0.8f)}, 1e-12);
}

TEST(OptimSGD, WeightSpecificValues) {
  auto make = [](float lr, float lr2, float mm2) {
    auto o = std::make_shared<SGD>(SgdMap{{"defaultLearningRate", {lr, false}}, {"defaultMomentum", {0.5f, true}}});
    o->insertSpecific("w2", {{"learningRate", {lr2, false}}, {"momentum", {mm2, false}}});
    return o;
  };
  checkAgainstReference(DataType::DOUBLE, {make(0.1f, 0.3f, 0.9f), make(0.2f, 0.05f, 0.1f), make(0.1f, 0.1f, 0.0f)},
                        1e-12);
  Trainer tr(DataType::FLOAT, *make(0.1f, 0.3f, 0.9f));
  std::set<TensorId> ids(tr.session().getOptimizerTensorIds().begin(), tr.session().getOptimizerTensorIds().end());
  EXPECT_EQ(ids, (std::set<TensorId>{"scaledLearningRate1___default___FLOAT", "scaledLearningRate1___specific___w2",
                                     "scaledMomentum1___specific___w2"}));
  // Const compound scalars are baked into the update ops: no tensors.
  EXPECT_FALSE(tr.session().hasInfo("dampeningScaleFactor1___default___FLOAT"));
  EXPECT_FALSE(tr.session().hasInfo("scaledMomentum1___default___FLOAT"));
}

TEST(OptimSGD, LegacyUpdateOptimizerThenOptimizerFromHost) {
  auto o1 = sgd({{"defaultLearningRate", {0.1f, false}}});
  auto o2 = sgd({{"defaultLearningRate", {0.4f, false}}});
  Trainer tr(DataType::DOUBLE, *o1);
  Reference ref;
  stepBoth(tr, ref, *o1);
  // updateOptimizer alone changes the host values only: the device keeps lr 0.1, also through a
  // weightsToHost (read) in between.
  tr.session().updateOptimizer(o2.get());
  expectWeights(tr, ref, 1e-12, "after updateOptimizer");
  stepBoth(tr, ref, *o1);
  expectWeights(tr, ref, 1e-12, "run before optimizerFromHost");
  tr.session().optimizerFromHost();
  stepBoth(tr, ref, *o2);
  expectWeights(tr, ref, 1e-12, "run after optimizerFromHost");
  // weightsFromHost also sends the host values (lr 0.4).
  tr.session().weightsFromHost();
  stepBoth(tr, ref, *o2);
  expectWeights(tr, ref, 1e-12, "after weightsFromHost");
}

TEST(OptimSGD, UpdateBeforePrepareDevice) {
  auto o1 = sgd({{"defaultLearningRate", {0.1f, false}}});
  auto o2 = sgd({{"defaultLearningRate", {0.3f, false}}});
  auto s = TrainingSession::createFromOnnxModel(quadModel(DataType::DOUBLE), DataFlow(1, {"loss:0"}), "loss:0", *o1,
                                                test::cpu());
  s->updateOptimizerFromHost(o2.get());
  EXPECT_FLOAT_EQ(static_cast<const SGD&>(s->getOptimizer()).learningRates().getDefault().val(), 0.3f);
  s->prepareDevice();
  s->weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace("x1", NDArray::fromVector(xValue("x1", 0), {3}));
  in.emplace("x2", NDArray::fromVector(xValue("x2", 0), {3}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  Reference ref;
  ref.step(*o2);
  s->weightsToHost();
  Vec w1(3);
  WeightsIO wio;
  wio.insert("w1", MutableVoidData(w1.data(), TensorInfo(DataType::DOUBLE, {3})));
  s->readWeights(wio);
  expectNear(w1, ref.w["w1"], 1e-12, "w1");
}

TEST(OptimSGD, ScaledLearningRateCanBeAnchored) {
  // As in PopART's tests: the non-const scalar tensor is an anchor like any other.
  auto o1 = sgd({{"defaultLearningRate", {0.5f, false}}, {"defaultDampening", {0.5f, true}}});
  Trainer tr(DataType::FLOAT, *o1, {}, 1, {"scaledLearningRate0___default___FLOAT"});
  tr.step();
  EXPECT_FLOAT_EQ(tr.anchors().at("scaledLearningRate0___default___FLOAT").dataAs<float>()[0], 0.25f);
  auto o2 = sgd({{"defaultLearningRate", {1.0f, false}}, {"defaultDampening", {0.5f, true}}});
  tr.session().updateOptimizerFromHost(o2.get());
  tr.step();
  EXPECT_FLOAT_EQ(tr.anchors().at("scaledLearningRate0___default___FLOAT").dataAs<float>()[0], 0.5f);
}

// ------------------------------------------------------------------ errors

TEST(OptimErrors, UpdateOptimizerFromHostMismatches) {
  auto base = sgd({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.9f, true}}});
  Trainer tr(DataType::FLOAT, *base);
  auto& s = tr.session();
  const Adam adam({{"defaultLearningRate", {0.1f, false}}});
  expectError([&] { s.updateOptimizerFromHost(&adam); }, {"New optimizer is not a valid replacement.",
                                                          "Can not replace optimizer of type SGD with new optimizer "
                                                          "of type Adam"});
  auto constLr = sgd({{"defaultLearningRate", {0.1f, true}}, {"defaultMomentum", {0.9f, true}}});
  expectError([&] { s.updateOptimizerFromHost(constLr.get()); },
              {"Problem with learning rates", "Can not replace a constant value with a non constant value."});
  auto otherMomentum = sgd({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.8f, true}}});
  expectError([&] { s.updateOptimizerFromHost(otherMomentum.get()); },
              {"Problem with momentums", "Values are constant but do not match."});
  auto noVelocity = sgd({{"defaultLearningRate", {0.1f, false}}});
  expectError([&] { s.updateOptimizerFromHost(noVelocity.get()); }, {"Problem with momentums"});
  auto separate = sgd({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.9f, true}}},
                      SGDAccumulatorAndMomentum::Separate);
  expectError([&] { s.updateOptimizerFromHost(separate.get()); },
              {"this has SGDAccumulatorAndMomentum::Combined, but other has SGDAccumulatorAndMomentum::Separate"});
  auto specific = std::make_shared<SGD>(*static_cast<SGD*>(base.get()));
  specific->insertSpecific("w1", {{"learningRate", {0.2f, false}}});
  expectError([&] { s.updateOptimizerFromHost(specific.get()); },
              {"different number of specific tensors (1 instead of 0)"});
  const SGD clipped({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.9f, true}}},
                    {ClipNormSettings::clipAllWeights(1.0f)});
  expectError([&] { s.updateOptimizerFromHost(&clipped); }, {"Clip norm settings do not match"});
  expectError([&] { s.updateOptimizerFromHost(nullptr); }, {"the optimizer is null"});
  expectError([&] { s.updateOptimizer(&adam); }, {"Can not replace optimizer of type SGD"});
  // Nothing changed: training goes on with the first optimizer.
  Reference ref;
  stepBoth(tr, ref, *base);
  expectWeights(tr, ref, 2e-5, "after the failed replacements");
}

TEST(OptimErrors, AdamAndAdaptiveMismatches) {
  const Adam a1({{"defaultLearningRate", {0.1f, false}}}, AdamMode::Adam);
  Trainer tr(DataType::FLOAT, a1);
  const Adam lamb({{"defaultLearningRate", {0.1f, false}}}, AdamMode::Lamb);
  expectError([&] { tr.session().updateOptimizerFromHost(&lamb); },
              {"New optimizer is not a valid replacement.", "this has AdamMode::Adam, but other has AdamMode::Lamb"});
  const Adam l2({{"defaultLearningRate", {0.1f, false}}}, AdamMode::Adam, WeightDecayMode::L2Regularization);
  expectError([&] { tr.session().updateOptimizerFromHost(&l2); }, {"WeightDecayMode::L2Regularization"});
  const Adam b1({{"defaultLearningRate", {0.1f, false}}, {"defaultBeta1", {0.8f, true}}}, AdamMode::Adam);
  expectError([&] { tr.session().updateOptimizerFromHost(&b1); }, {"Values are constant but do not match."});

  const Adaptive r1({{"defaultLearningRate", {0.1f, false}}}, AdaptiveMode::RMSProp);
  Trainer tr2(DataType::FLOAT, r1);
  const Adaptive ada({{"defaultLearningRate", {0.1f, false}}}, AdaptiveMode::AdaGrad);
  expectError([&] { tr2.session().updateOptimizerFromHost(&ada); }, {"New optimizer is not a valid replacement."});
}

TEST(OptimErrors, ConstZeroLearningRateAndUnsupportedSettings) {
  expectError(
      [] {
        SGD({{"defaultLearningRate", {0.0f, true}}});
      },
      {"Constant, zero learning rate in SGD, bailing as this might be a user error."});
  expectError([] { Adam({{"defaultLearningRate", {0.0f, true}}}); }, {"Constant, zero learning rate in Adam"});
  expectError([] { ConstSGD(0.0f); }, {"Constant, zero learning rate in SGD"});
  // A non-const zero learning rate trains nothing.
  Trainer tr(DataType::FLOAT, *sgd({{"defaultLearningRate", {0.0f, false}}, {"defaultMomentum", {0.9f, true}}}));
  tr.step();
  tr.step();
  expectNear(tr.read("w1"), initialWeight("w1"), 0.0, "w1");
  // Clipping (training_api_test.cpp) does not combine with gradient accumulation here.
}

// ------------------------------------------------------------------ Adam

std::shared_ptr<Optimizer> adam(AdamMode mode, WeightDecayMode wdm, float lr, float wd, float b1, float b2,
                                DataType stateType = DataType::UNDEFINED, bool nonConst = true, float ls = 1.0f,
                                bool scaledState = false) {
  return std::make_shared<Adam>(OptimizerValue(lr, !nonConst), OptimizerValue(wd, !nonConst),
                                OptimizerValue(b1, !nonConst), OptimizerValue(b2, !nonConst),
                                OptimizerValue(1e-3f, !nonConst), OptimizerValue(ls, !nonConst),
                                OptimizerValue(2.0f, !nonConst), mode, wdm, stateType, stateType, stateType,
                                std::vector<ClipNormSettings>{}, scaledState);
}

const std::vector<AdamMode> kAdamModes{AdamMode::Adam, AdamMode::AdamNoBias, AdamMode::AdaMax, AdamMode::Lamb,
                                       AdamMode::LambNoBias};

TEST(OptimAdam, EveryModeMatchesTheReference) {
  for (AdamMode mode : kAdamModes) {
    for (WeightDecayMode wdm : {WeightDecayMode::Decay, WeightDecayMode::L2Regularization}) {
      std::ostringstream what;
      what << mode << " " << wdm;
      // const values, double weights and state: the reference to rounding
      checkAgainstReference(DataType::DOUBLE,
                            times(3, adam(mode, wdm, 0.05f, 0.1f, 0.9f, 0.99f, DataType::UNDEFINED, false)), 1e-12, {},
                            1, what.str() + " const");
      // non-const values changing every step, loss scaling included
      checkAgainstReference(DataType::DOUBLE,
                            {adam(mode, wdm, 0.05f, 0.1f, 0.9f, 0.99f, DataType::UNDEFINED, true, 1.0f),
                             adam(mode, wdm, 0.02f, 0.2f, 0.8f, 0.9f, DataType::UNDEFINED, true, 4.0f),
                             adam(mode, wdm, 0.1f, 0.0f, 0.5f, 0.999f, DataType::UNDEFINED, true, 2.0f)},
                            1e-12, {}, 1, what.str() + " non-const");
      // float weights with FLOAT and FLOAT16 state
      checkAgainstReference(DataType::FLOAT, times(3, adam(mode, wdm, 0.05f, 0.1f, 0.9f, 0.99f, DataType::FLOAT)), 2e-5,
                            {}, 1, what.str() + " float");
      checkAgainstReference(DataType::FLOAT, times(3, adam(mode, wdm, 0.05f, 0.1f, 0.9f, 0.99f, DataType::FLOAT16)),
                            5e-3, {}, 1, what.str() + " half state");
    }
  }
}

TEST(OptimAdam, StateTensorsMatchTheReference) {
  auto o = adam(AdamMode::Adam, WeightDecayMode::Decay, 0.05f, 0.1f, 0.9f, 0.99f);
  Trainer tr(DataType::DOUBLE, *o);
  Reference ref;
  stepBoth(tr, ref, *o, 3);
  expectNear(tr.read("Accl1___w1"), ref.adam["w1"].m, 1e-12, "m");
  expectNear(tr.read("Accl2___w1"), ref.adam["w1"].v, 1e-12, "v");
  EXPECT_EQ(tr.read("Step___w2"), Vec{3.0});
  EXPECT_EQ(tr.session().getInfo("Step___w2"), TensorInfo(DataType::FLOAT, {}));
  EXPECT_FALSE(tr.session().hasInfo("Accum___w1"));
  auto noBias = adam(AdamMode::AdamNoBias, WeightDecayMode::Decay, 0.05f, 0.1f, 0.9f, 0.99f);
  Trainer tr2(DataType::DOUBLE, *noBias);
  EXPECT_FALSE(tr2.session().hasInfo("Step___w1"));
  std::set<TensorId> ids(tr2.session().getOptimizerTensorIds().begin(), tr2.session().getOptimizerTensorIds().end());
  EXPECT_EQ(ids,
            (std::set<TensorId>{
                "learningRate___default___DOUBLE", "weightDecay___default___DOUBLE", "adamBeta1___default___DOUBLE",
                "adamBeta2___default___DOUBLE", "adamEps___default___DOUBLE", "maxWeightNorm___default___DOUBLE",
                "adamGradientScaling___default___DOUBLE", "lossScaling___default___DOUBLE", "lossScaling_DOUBLE"}));
}

TEST(OptimAdam, ScaledOptimizerState) {
  // m and v are kept ×ls and ×ls²: the same weights, and the stored moments scaled.
  auto o = adam(AdamMode::Adam, WeightDecayMode::L2Regularization, 0.05f, 0.1f, 0.9f, 0.99f, DataType::UNDEFINED, false,
                8.0f, true);
  checkAgainstReference(DataType::DOUBLE, {o, o, o}, 1e-12);
  Trainer tr(DataType::DOUBLE, *o);
  Reference ref;
  stepBoth(tr, ref, *o);
  Vec m = ref.adam["w1"].m, v = ref.adam["w1"].v;
  for (double& x : m) x *= 8.0;
  for (double& x : v) x *= 64.0;
  expectNear(tr.read("Accl1___w1"), m, 1e-12, "scaled m");
  expectNear(tr.read("Accl2___w1"), v, 1e-12, "scaled v");
}

TEST(OptimAdam, WeightSpecificValues) {
  auto make = [](float lr, float b1) {
    auto o = std::make_shared<Adam>(std::map<std::string, std::pair<float, bool>>{{"defaultLearningRate", {lr, false}}},
                                    AdamMode::Lamb, WeightDecayMode::Decay, DataType::UNDEFINED, DataType::UNDEFINED,
                                    DataType::UNDEFINED);
    o->insertSpecific("w2",
                      {{"learningRate", {2 * lr, false}}, {"beta1", {b1, false}}, {"maxWeightNorm", {0.5f, true}}});
    return o;
  };
  checkAgainstReference(DataType::DOUBLE, {make(0.05f, 0.5f), make(0.1f, 0.7f), make(0.02f, 0.9f)}, 1e-12);
}

// ------------------------------------------------------------------ Adaptive

std::shared_ptr<Optimizer> adaptive(AdaptiveMode mode, WeightDecayMode wdm, bool tf, float lr, float wd, float alpha,
                                    float mm, bool mmConst, DataType stateType = DataType::UNDEFINED, float ls = 1.0f) {
  return std::make_shared<Adaptive>(OptimizerValue(lr, false), OptimizerValue(wd, true), OptimizerValue(alpha, false),
                                    OptimizerValue(mm, mmConst), OptimizerValue(1e-3f, true), OptimizerValue(ls, false),
                                    mode, wdm, stateType, stateType, stateType, stateType, tf);
}

TEST(OptimAdaptive, EveryModeMatchesTheReference) {
  for (AdaptiveMode mode :
       {AdaptiveMode::AdaGrad, AdaptiveMode::RMSProp, AdaptiveMode::CenteredRMSProp, AdaptiveMode::AdaDelta}) {
    for (WeightDecayMode wdm : {WeightDecayMode::Decay, WeightDecayMode::L2Regularization}) {
      for (bool tf : {false, true}) {
        if (tf && mode != AdaptiveMode::RMSProp && mode != AdaptiveMode::CenteredRMSProp) continue;
        for (int m = 0; m < 3; ++m) {  // no momentum, const momentum, non-const momentum
          std::ostringstream what;
          what << mode << " " << wdm << " tf " << tf << " momentum case " << m;
          const bool mmConst = m < 2;
          const float mm1 = m == 0 ? 0.0f : 0.5f, mm2 = m == 2 ? 0.8f : mm1;
          checkAgainstReference(DataType::DOUBLE,
                                {adaptive(mode, wdm, tf, 0.05f, 0.1f, 0.9f, mm1, mmConst),
                                 adaptive(mode, wdm, tf, 0.02f, 0.1f, 0.8f, mm2, mmConst, DataType::UNDEFINED, 4.0f),
                                 adaptive(mode, wdm, tf, 0.1f, 0.1f, 0.99f, mm1, mmConst)},
                                1e-12, {}, 1, what.str());
          checkAgainstReference(DataType::FLOAT,
                                times(3, adaptive(mode, wdm, tf, 0.05f, 0.1f, 0.9f, mm1, mmConst, DataType::FLOAT)),
                                2e-5, {}, 1, what.str() + " float");
        }
      }
    }
  }
}

TEST(OptimAdaptive, StateTensors) {
  auto o = adaptive(AdaptiveMode::CenteredRMSProp, WeightDecayMode::Decay, false, 0.05f, 0.1f, 0.9f, 0.5f, true);
  Trainer tr(DataType::DOUBLE, *o);
  Reference ref;
  stepBoth(tr, ref, *o, 3);
  expectNear(tr.read("Accl1___w2"), ref.adaptive["w2"].v1, 1e-12, "v1");
  expectNear(tr.read("Accl2___w2"), ref.adaptive["w2"].v2, 1e-12, "v2");
  expectNear(tr.read("Accl3___w2"), ref.adaptive["w2"].v3, 1e-12, "v3");
  auto plain = adaptive(AdaptiveMode::RMSProp, WeightDecayMode::Decay, false, 0.05f, 0.1f, 0.9f, 0.0f, true);
  Trainer tr2(DataType::FLOAT, *plain);
  EXPECT_TRUE(tr2.session().hasInfo("Accl1___w1"));
  EXPECT_FALSE(tr2.session().hasInfo("Accl2___w1"));
  EXPECT_FALSE(tr2.session().hasInfo("Accl3___w1"));
  // Default accl1 type FLOAT; accl3 UNDEFINED = the weight's type.
  const Adaptive dflt({{"defaultMomentum", {0.5f, true}}});
  Trainer tr3(DataType::DOUBLE, dflt);
  EXPECT_EQ(tr3.session().getInfo("Accl1___w1"), TensorInfo(DataType::FLOAT, {3}));
  EXPECT_EQ(tr3.session().getInfo("Accl3___w1"), TensorInfo(DataType::DOUBLE, {3}));
}

// ------------------------------------------------------------------ gradient accumulation

SessionOptions accumulation(int64_t af, ReductionType red = ReductionType::Sum,
                            MeanReductionStrategy strat = MeanReductionStrategy::Post) {
  SessionOptions o;
  o.enableGradientAccumulation = true;
  o.accumulationFactor = af;
  o.accumulationAndReplicationReductionType = red;
  o.meanAccumulationAndReplicationReductionStrategy = strat;
  return o;
}

TEST(OptimAccumulation, EveryOptimizerAndReduction) {
  const std::vector<std::pair<std::string, std::shared_ptr<Optimizer>>> opts{
      {"SGD0", sgd({{"defaultLearningRate", {0.05f, false}}, {"defaultWeightDecay", {0.1f, true}}})},
      {"SGD1", sgd({{"defaultLearningRate", {0.05f, false}},
                    {"defaultMomentum", {0.9f, false}},
                    {"defaultDampening", {0.2f, true}},
                    {"defaultWeightDecay", {0.1f, false}},
                    {"lossScaling", {4.0f, false}}})},
      {"SGD1 nesterov",
       sgd({{"defaultLearningRate", {0.05f, false}}, {"defaultMomentum", {0.9f, true}}, {"nesterov", {1.0f, true}}})},
      {"SGD2", sgd({{"defaultLearningRate", {0.05f, false}},
                    {"defaultMomentum", {0.9f, true}},
                    {"defaultWeightDecay", {0.1f, true}}},
                   SGDAccumulatorAndMomentum::Separate)},
      {"SGD2 nesterov",
       sgd({{"defaultLearningRate", {0.05f, false}}, {"defaultMomentum", {0.9f, true}}, {"nesterov", {1.0f, true}}},
           SGDAccumulatorAndMomentum::Separate)},
      {"Adam", adam(AdamMode::Adam, WeightDecayMode::Decay, 0.05f, 0.1f, 0.9f, 0.99f)},
      {"Lamb", adam(AdamMode::Lamb, WeightDecayMode::L2Regularization, 0.05f, 0.1f, 0.9f, 0.99f)},
      {"RMSProp",
       adaptive(AdaptiveMode::CenteredRMSProp, WeightDecayMode::Decay, false, 0.05f, 0.1f, 0.9f, 0.5f, true)},
  };
  const std::vector<std::pair<std::string, SessionOptions>> reductions{
      {"Sum", accumulation(3)},
      {"Mean Post", accumulation(3, ReductionType::Mean, MeanReductionStrategy::Post)},
      {"Mean Running", accumulation(3, ReductionType::Mean, MeanReductionStrategy::Running)},
      {"af 1", accumulation(1)},
  };
  for (const auto& o : opts) {
    for (const auto& r : reductions) {
      for (int bps : {1, 2}) {
        const std::string what = o.first + " " + r.first + " bps " + std::to_string(bps);
        checkAgainstReference(DataType::DOUBLE, {o.second, o.second, o.second}, 1e-12, r.second, bps, what);
      }
    }
  }
}

TEST(OptimAccumulation, AccumulatorIsZeroAfterEachUpdate) {
  auto o = sgd({{"defaultLearningRate", {0.05f, true}}, {"defaultMomentum", {0.9f, true}}},
               SGDAccumulatorAndMomentum::Separate);
  Trainer tr(DataType::FLOAT, *o, accumulation(4), 2, {"loss:0", "Gradient___w1"});
  tr.step();
  EXPECT_EQ(tr.read("Accum___w1"), Vec(3, 0.0));
  EXPECT_EQ(tr.session().getInfo("Accum___w1"), TensorInfo(DataType::FLOAT, {3}));
  // Gradient anchors still hold every micro-batch's gradient.
  EXPECT_EQ(tr.anchors().at("Gradient___w1").nelms(), size_t{2 * 4 * 3});
  // SGD1 accumulates into its velocity: no Accum___w.
  Trainer tr1(DataType::FLOAT, *sgd({{"defaultLearningRate", {0.05f, true}}, {"defaultMomentum", {0.9f, true}}}),
              accumulation(4));
  EXPECT_FALSE(tr1.session().hasInfo("Accum___w1"));
  EXPECT_TRUE(tr1.session().hasInfo("Accl___w1"));
}

TEST(OptimAccumulation, NonConstValuesChangeBetweenRuns) {
  auto make = [](float lr, float mm) {
    return sgd({{"defaultLearningRate", {lr, false}},
                {"defaultMomentum", {mm, false}},
                {"defaultWeightDecay", {0.1f, false}}});
  };
  checkAgainstReference(DataType::DOUBLE, {make(0.05f, 0.9f), make(0.1f, 0.5f), make(0.02f, 0.7f)}, 1e-12,
                        accumulation(2, ReductionType::Mean), 2);
}

// ------------------------------------------------------------------ modelToHost

TEST(OptimModelToHost, StateTensorsAreExtraInitializers) {
  auto o = adam(AdamMode::Adam, WeightDecayMode::Decay, 0.05f, 0.1f, 0.9f, 0.99f);
  Trainer tr(DataType::DOUBLE, *o, accumulation(2));
  tr.step();
  tr.step();
  const std::string bytes = tr.session().modelToHostBytes();
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& tp : m.graph().initializer()) inits[tp.name()] = &tp;
  for (const std::string id : {"w1", "w2", "Accl1___w1", "Accl2___w1", "Step___w1", "Accum___w1", "Accl1___w2",
                               "Accl2___w2", "Step___w2", "Accum___w2"})
    EXPECT_TRUE(inits.count(id)) << id;
  EXPECT_FALSE(inits.count("learningRate___default___DOUBLE"));
  EXPECT_FALSE(inits.count("accumulationCounter___"));
  EXPECT_EQ(inits.size(), size_t{10});

  // A fresh session of the original model, reset from the saved bytes, continues exactly as the
  // first one does.
  Trainer resumed(DataType::DOUBLE, *o, accumulation(2));
  resumed.session().resetHostWeights(bytes);
  resumed.session().weightsFromHost();
  resumed.skip(4);  // the micro-batches the first session has seen
  resumed.step();
  tr.step();
  for (const std::string id : {"w1", "w2", "Accl1___w1", "Accl2___w2", "Step___w1", "Accum___w1"})
    expectNear(resumed.read(id), tr.read(id), 0.0, id);
  EXPECT_EQ(resumed.read("Step___w1"), Vec{3.0});
}

TEST(OptimModelToHost, ResetHostWeightsRestoresTheState) {
  auto o = sgd({{"defaultLearningRate", {0.05f, false}},
                {"defaultMomentum", {0.9f, true}},
                {"defaultWeightDecay", {0.1f, true}}});
  Trainer tr(DataType::FLOAT, *o);
  tr.step();
  const std::string afterOne = tr.session().modelToHostBytes();
  const Vec w1 = tr.read("w1"), v1 = tr.read("Accl___w1");
  tr.step();
  tr.step();
  EXPECT_NE(tr.read("w1"), w1);
  tr.session().resetHostWeights(afterOne);
  tr.session().weightsFromHost();
  EXPECT_EQ(tr.read("w1"), w1);
  EXPECT_EQ(tr.read("Accl___w1"), v1);
  // An inference session of the original model ignores the extra initializers when asked to.
  SessionOptions io;
  io.constantWeights = false;
  auto inf =
      InferenceSession::createFromOnnxModel(quadModel(DataType::FLOAT), DataFlow(1, {"loss:0"}), test::cpu(), {}, io);
  expectError([&] { inf->resetHostWeights(afterOne); }, {"resetWeights, no tensor 'Accl___w1' in tensors"});
  inf->resetHostWeights(afterOne, true);
}

}  // namespace
}  // namespace popart
