// Optimizer value classes (OptimizerValue, OptimizerValueMap, SGD, Adam, Adaptive): defaults,
// keys, value checks, insertSpecific, the updateOptimizerFromHost replacement rules, compound
// scalars, state tensor names; and the double-precision reference steps of optimizer_math
// against closed forms.
#include <cmath>

#include "common/test_util.hpp"
#include "optimizers/optimizer_math.hpp"

namespace popart {
namespace {

using test::expectError;
using Params = std::map<std::string, std::pair<float, bool>>;
namespace om = optimizer_math;

void expectValue(const OptimizerValue& v, float val, bool isConst) {
  EXPECT_FLOAT_EQ(v.val(), val);
  EXPECT_EQ(v.isConst(), isConst);
}

// Runs `steps` reference steps with a constant gradient on a one-element weight.
double sgdAfter(const om::SGDHyper& h, double w0, double g, int steps) {
  om::Vec w{w0};
  om::SGDState s;
  for (int i = 0; i < steps; ++i) om::sgdStep(w, {g}, s, h);
  return w[0];
}

// ---------------------------------------------------------------- OptimizerValue(Map)

TEST(OptimizerValue, ConstructorsAndEquality) {
  expectValue(OptimizerValue(), 0.0f, false);
  expectValue(OptimizerValue(0.5f), 0.5f, true);
  expectValue(OptimizerValue(0.5f, false), 0.5f, false);
  expectValue(OptimizerValue(std::make_pair(0.25f, true)), 0.25f, true);
  EXPECT_EQ(OptimizerValue(1.0f, true), OptimizerValue(1.0f, true));
  EXPECT_NE(OptimizerValue(1.0f, true), OptimizerValue(2.0f, true));
  EXPECT_NE(OptimizerValue(1.0f, true), OptimizerValue(1.0f, false));
  // Non-const values are the same graph input whatever their current value.
  EXPECT_EQ(OptimizerValue(1.0f, false), OptimizerValue(2.0f, false));
}

TEST(OptimizerValue, ValidReplacement) {
  OptimizerValue(1.0f, true).validReplacement({1.0f, true});
  OptimizerValue(1.0f, false).validReplacement({3.0f, false});
  expectError(
      [] {
        OptimizerValue(1.0f, true).validReplacement({1.0f, false});
      },
      {"Can not replace a constant value with a non constant value."});
  expectError(
      [] {
        OptimizerValue(1.0f, false).validReplacement({1.0f, true});
      },
      {"Can not replace a constant value with a non constant value."});
  expectError(
      [] {
        OptimizerValue(1.0f, true).validReplacement({2.0f, true});
      },
      {"Values are constant but do not match."});
}

TEST(OptimizerValueMap, DefaultAndSpecifics) {
  OptimizerValueMap m({0.1f, true});
  expectValue(m.getDefault(), 0.1f, true);
  expectValue(m.get("w"), 0.1f, true);
  EXPECT_FALSE(m.hasSpecific());
  EXPECT_FALSE(m.hasSpecific("w"));
  m.insertSpecific("w", {0.3f, false});
  EXPECT_TRUE(m.hasSpecific());
  EXPECT_TRUE(m.hasSpecific("w"));
  EXPECT_FALSE(m.hasSpecific("v"));
  expectValue(m.get("w"), 0.3f, false);
  expectValue(m.get("v"), 0.1f, true);
  EXPECT_EQ(m.getSpecifics().size(), 1u);
  expectError(
      [&] {
        m.insertSpecific("w", {0.5f, false});
      },
      {"Attempt to insert specific value for optimization Tensor w", "already a specific value"});
}

TEST(OptimizerValueMap, ValidReplacement) {
  OptimizerValueMap a({0.1f, true});
  a.insertSpecific("w", {0.3f, false});
  OptimizerValueMap same({0.1f, true});
  same.insertSpecific("w", {0.7f, false});
  a.validReplacement(same);

  OptimizerValueMap none({0.1f, true});
  expectError([&] { a.validReplacement(none); }, {"different number of specific tensors"});
  OptimizerValueMap other({0.1f, true});
  other.insertSpecific("v", {0.3f, false});
  expectError([&] { a.validReplacement(other); }, {"Could not find tensor w"});
  OptimizerValueMap constSpecific({0.1f, true});
  constSpecific.insertSpecific("w", {0.3f, true});
  expectError([&] { a.validReplacement(constSpecific); },
              {"tensor w", "Can not replace a constant value with a non constant value."});
  OptimizerValueMap otherDefault({0.2f, true});
  otherDefault.insertSpecific("w", {0.3f, false});
  expectError([&] { a.validReplacement(otherDefault); }, {"Default value", "Values are constant but do not match."});
}

TEST(OptimizerNames, ReservedPrefixesAndLossScalingId) {
  EXPECT_STREQ(reservedGradientPrefix(), "Gradient___");
  EXPECT_STREQ(reservedAcclPrefix(), "Accl___");
  EXPECT_STREQ(reservedAccl1Prefix(), "Accl1___");
  EXPECT_STREQ(reservedAccl2Prefix(), "Accl2___");
  EXPECT_STREQ(reservedAccl3Prefix(), "Accl3___");
  EXPECT_STREQ(reservedAccumPrefix(), "Accum___");
  EXPECT_STREQ(reservedStepPrefix(), "Step___");
  EXPECT_STREQ(reservedUpdatedVarPrefix(), "UpdatedVar___");
  EXPECT_STREQ(reservedLossScalingPrefix(), "lossScaling_");
  EXPECT_EQ(Optimizer::getLossScalingTensorId(DataType::FLOAT), "lossScaling_FLOAT");
  EXPECT_EQ(Optimizer::getLossScalingTensorId(DataType::FLOAT16), "lossScaling_FLOAT16");
}

TEST(OptimizerClipNorm, Settings) {
  ClipNormSettings a({"w0", "w1"}, 2.0f);
  EXPECT_EQ(a.getMode(), ClipNormSettings::Mode::ClipSpecifiedWeights);
  EXPECT_EQ(a.getWeightIds(), (std::vector<TensorId>{"w0", "w1"}));
  EXPECT_FLOAT_EQ(a.getMaxNorm(), 2.0f);
  EXPECT_EQ(a, ClipNormSettings::clipWeights({"w0", "w1"}, 2.0f));
  EXPECT_NE(a, ClipNormSettings({"w0"}, 2.0f));
  EXPECT_NE(a, ClipNormSettings({"w0", "w1"}, 3.0f));
  auto all = ClipNormSettings::clipAllWeights(1.0f);
  EXPECT_EQ(all.getMode(), ClipNormSettings::Mode::ClipAllWeights);
  EXPECT_TRUE(all.getWeightIds().empty());
  EXPECT_NE(all, ClipNormSettings({}, 1.0f));

  SGD sgd(Params{}, {a, all});
  ASSERT_EQ(sgd.getClipNormSettings().size(), 2u);
  EXPECT_EQ(sgd.getClipNormSettings()[1], all);
}

TEST(OptimizerFactors, FromSessionOptions) {
  SGD sgd(Params{});
  EXPECT_FALSE(sgd.gradientAccumulationEnabled());
  EXPECT_EQ(sgd.getReplicatedGraphCount(), 1);
  EXPECT_EQ(sgd.getAccumulationFactor(), 1);
  SessionOptions opts;
  opts.enableGradientAccumulation = true;
  opts.accumulationFactor = 4;
  opts.enableReplicatedGraphs = true;
  opts.replicatedGraphCount = 2;
  opts.accumulationAndReplicationReductionType = ReductionType::Mean;
  sgd.setFactorsFromOptions(opts);
  EXPECT_TRUE(sgd.gradientAccumulationEnabled());
  EXPECT_EQ(sgd.getAccumulationFactor(), 4);
  EXPECT_EQ(sgd.getReplicatedGraphCount(), 2);
  EXPECT_TRUE(sgd.meanReductionEnabled());
  EXPECT_TRUE(sgd.postMeanAccumulationEnabled());
  opts.meanAccumulationAndReplicationReductionStrategy = MeanReductionStrategy::Running;
  sgd.setFactorsFromOptions(opts);
  EXPECT_FALSE(sgd.postMeanAccumulationEnabled());
}

// ---------------------------------------------------------------- SGD

TEST(SGD, Defaults) {
  SGD sgd(Params{});
  EXPECT_EQ(sgd.type(), OptimizerType::SGD);
  EXPECT_EQ(sgd.type_s(), "SGD");
  expectValue(sgd.learningRates().getDefault(), 0.1f, true);
  expectValue(sgd.weightDecays().getDefault(), 0.0f, true);
  expectValue(sgd.momentums().getDefault(), 0.0f, true);
  expectValue(sgd.dampenings().getDefault(), 0.0f, true);
  expectValue(sgd.velocityScalings().getDefault(), 1.0f, true);
  expectValue(sgd.nesterov().getDefault(), 0.0f, true);
  expectValue(sgd.lossScaling(), 1.0f, true);
  EXPECT_EQ(sgd.getSGDAccumulatorAndMomentum(), SGDAccumulatorAndMomentum::Combined);
  EXPECT_EQ(sgd.getSGDAccumType(), DataType::UNDEFINED);
  EXPECT_EQ(sgd.getSGD2Accl1Type(), DataType::UNDEFINED);
  EXPECT_FALSE(sgd.hasSpecific());
  EXPECT_TRUE(sgd.getClipNormSettings().empty());

  SGD custom({{"defaultLearningRate", {0.02f, false}}, {"defaultMomentum", {0.6f, true}}, {"lossScaling", {8, true}}});
  expectValue(custom.learningRates().getDefault(), 0.02f, false);
  expectValue(custom.momentums().getDefault(), 0.6f, true);
  expectValue(custom.lossScaling(), 8.0f, true);
  expectValue(custom.dampenings().getDefault(), 0.0f, true);

  auto fromMap = SGD::fromDefaultMap({{"defaultWeightDecay", {0.01f, false}}});
  expectValue(fromMap.weightDecays().getDefault(), 0.01f, false);
  expectValue(fromMap.learningRates().getDefault(), 0.1f, true);
}

TEST(SGD, InvalidKey) {
  expectError(
      [] {
        SGD({{"defaultLearningRat", {0.1f, true}}});
      },
      {"Invalid SGD key, defaultLearningRat, the allowed keys are ( defaultLearningRate defaultWeightDecay "
       "defaultMomentum defaultDampening defaultVelocityScaling lossScaling nesterov )"});
  expectError([] { SGD::fromDefaultMap({{"momentum", {0.1f, true}}}); }, {"Invalid SGD key, momentum"});
}

TEST(SGD, ValueChecks) {
  expectError(
      [] {
        SGD({{"defaultLearningRate", {0.0f, true}}});
      },
      {"Constant, zero learning rate in SGD, bailing as this might be a user error."});
  SGD nonConstZero({{"defaultLearningRate", {0.0f, false}}});  // allowed: set later from the host
  expectValue(nonConstZero.learningRates().getDefault(), 0.0f, false);
  expectError([] { SGD({{"defaultLearningRate", {-0.1f, false}}}); }, {"Negative learning rate (-0.1) in SGD"});
  expectError([] { SGD({{"defaultWeightDecay", {-1.0f, true}}}); }, {"Negative weight decay (-1) in SGD"});
  expectError([] { SGD({{"defaultMomentum", {-0.5f, true}}}); }, {"Negative momentum (-0.5) in SGD"});
  expectError([] { SGD({{"defaultDampening", {-0.5f, true}}}); }, {"Negative dampening (-0.5) in SGD"});
  expectError(
      [] {
        SGD({{"defaultVelocityScaling", {0.0f, true}}});
      },
      {"Non-positive velocity scaling (0) in SGD is not supported"});
  expectError([] { SGD({{"defaultVelocityScaling", {-2.0f, true}}}); }, {"Non-positive velocity scaling (-2)"});
  expectError(
      [] {
        SGD({{"nesterov", {1, true}}, {"defaultMomentum", {0.9f, true}}, {"defaultDampening", {0.1f, true}}});
      },
      {"nesterov", "dampening (0.1)", "must be zero"});
  SGD nesterovOk({{"nesterov", {1, true}}, {"defaultMomentum", {0.9f, true}}});
  EXPECT_TRUE(nesterovOk.enableNesterov("w"));
  expectError([] { SGD({{"lossScaling", {0.0f, false}}}); }, {"Loss scaling cannot be 0"});
  expectError([] { SGD(Params{}, {}, SGDAccumulatorAndMomentum::Separate, DataType::INT32); },
              {"SGD accumType must be FLOAT, FLOAT16 or UNDEFINED", "INT32"});
}

TEST(SGD, InsertSpecific) {
  SGD sgd({{"defaultMomentum", {0.7f, true}}, {"defaultLearningRate", {0.5f, false}}});
  sgd.insertSpecific("w", {{"learningRate", {0.2f, false}}, {"dampening", {0.1f, true}}});
  EXPECT_TRUE(sgd.hasSpecific());
  EXPECT_TRUE(sgd.hasSpecific("w"));
  EXPECT_FALSE(sgd.hasSpecific("v"));
  expectValue(sgd.learningRates().get("w"), 0.2f, false);
  expectValue(sgd.dampenings().get("w"), 0.1f, true);
  // Missing keys take the optimizer's current defaults, not PopART's unset values.
  expectValue(sgd.momentums().get("w"), 0.7f, true);
  expectValue(sgd.weightDecays().get("w"), 0.0f, true);
  expectValue(sgd.velocityScalings().get("w"), 1.0f, true);
  expectValue(sgd.nesterov().get("w"), 0.0f, true);
  expectValue(sgd.learningRates().get("v"), 0.5f, false);

  expectError(
      [&] {
        sgd.insertSpecific("w", {{"learningRate", {0.3f, false}}});
      },
      {"Attempt to insert specific value for optimization Tensor w"});
  expectError(
      [&] {
        sgd.insertSpecific("u", {{"defaultLearningRate", {0.3f, false}}});
      },
      {"Invalid key defaultLearningRate in SGD::insertSpecific. Permitted keys are ( learningRate weightDecay "
       "momentum dampening velocityScaling nesterov )"});
  // A rejected insert leaves nothing behind.
  expectError([&] { sgd.insertSpecific("u", {{"weightDecay", {-1.0f, true}}}); }, {"Negative weight decay"});
  EXPECT_FALSE(sgd.hasSpecific("u"));
  expectError(
      [&] {
        sgd.insertSpecific("u", {{"learningRate", {0.0f, true}}});
      },
      {"Constant, zero learning rate in SGD"});
  sgd.insertSpecific("u", 0.3f, 0.01f, 0.0f, 0.0f, 2.0f);
  expectValue(sgd.velocityScalings().get("u"), 2.0f, true);
  EXPECT_FALSE(sgd.hasMomentum("u"));
  EXPECT_TRUE(sgd.hasMomentum("v"));

  const SGD::WeightValues wv = sgd.getWeightValues("w");
  expectValue(wv.learningRate, 0.2f, false);
  expectValue(wv.dampening, 0.1f, true);
  expectValue(wv.momentum, 0.7f, true);
  expectValue(wv.lossScaling, 1.0f, true);
  EXPECT_FALSE(wv.nesterov);
}

TEST(SGD, ConstSGDAndClone) {
  ConstSGD c(0.05f, 0.001f, 4.0f);
  expectValue(c.learningRates().getDefault(), 0.05f, true);
  expectValue(c.weightDecays().getDefault(), 0.001f, true);
  expectValue(c.lossScaling(), 4.0f, true);
  expectValue(c.momentums().getDefault(), 0.0f, true);
  expectValue(c.velocityScalings().getDefault(), 1.0f, true);
  expectError([] { ConstSGD(0.0f); }, {"Constant, zero learning rate in SGD"});

  std::unique_ptr<Optimizer> copy = c.clone();
  EXPECT_EQ(copy->type(), OptimizerType::SGD);
  expectValue(copy->lossScaling(), 4.0f, true);
  c.validReplacement(*copy);
}

TEST(SGD, VelocityAndStateTensors) {
  SGD sgd0(Params{});
  EXPECT_FALSE(sgd0.hasMomentum("w"));
  EXPECT_FALSE(sgd0.requiresVelocity("w"));
  EXPECT_TRUE(sgd0.getStateTensorIds("w").empty());
  SessionOptions accum;
  accum.enableGradientAccumulation = true;
  accum.accumulationFactor = 3;
  sgd0.setFactorsFromOptions(accum);
  EXPECT_EQ(sgd0.getStateTensorIds("w"), (std::vector<TensorId>{"Accum___w"}));

  SGD nonConstZero({{"defaultMomentum", {0.0f, false}}});
  EXPECT_TRUE(nonConstZero.hasMomentum("w"));

  SGD combined({{"defaultMomentum", {0.9f, true}}});
  EXPECT_TRUE(combined.requiresVelocity("w"));
  EXPECT_FALSE(combined.enableNesterov("w"));
  EXPECT_EQ(combined.getStateTensorIds("w"), (std::vector<TensorId>{"Accl___w"}));
  combined.setFactorsFromOptions(accum);
  EXPECT_EQ(combined.getStateTensorIds("w"), (std::vector<TensorId>{"Accl___w"}));

  SGD separate({{"defaultMomentum", {0.9f, true}}}, {}, SGDAccumulatorAndMomentum::Separate);
  EXPECT_EQ(separate.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w"}));
  separate.setFactorsFromOptions(accum);
  EXPECT_EQ(separate.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w", "Accum___w"}));
}

TEST(SGD, CompoundScalars) {
  SGD sgd({{"defaultLearningRate", {0.1f, true}},
           {"defaultWeightDecay", {0.01f, true}},
           {"defaultMomentum", {0.9f, true}},
           {"defaultDampening", {0.2f, true}},
           {"defaultVelocityScaling", {4.0f, true}},
           {"lossScaling", {8.0f, true}}});
  // SGD0 scalars: lr(1-dm)/ls and 1 - lr(1-dm)wd.
  expectValue(sgd.scaledLearningRate0("w"), 0.1f * 0.8f / 8.0f, true);
  expectValue(sgd.weightDecayScaleFactor0("w"), 1.0f - 0.1f * 0.8f * 0.01f, true);
  expectValue(sgd.scaledWeightDecay1("w"), 0.8f * 0.01f * 4.0f, true);
  expectValue(sgd.dampeningScaleFactor1("w"), 0.8f * 4.0f / 8.0f, true);
  expectValue(sgd.scaledLearningRate1("w"), 0.1f / 4.0f, true);
  expectValue(sgd.scaledMomentum1("w"), 0.9f, true);
  expectValue(sgd.dampeningScaleFactor2("w"), 0.8f * 4.0f / 8.0f, true);
  expectValue(sgd.scaledLearningRate2("w"), 0.1f / 4.0f, true);
  expectValue(sgd.scaledMomentum2("w"), 0.9f, true);
  expectValue(sgd.nesterovGradScaleFactor1("w"), 4.0f, true);
  // ndsf·dpsf = 1/ls.
  EXPECT_FLOAT_EQ(sgd.nesterovDampeningScaleFactor1("w").val() * sgd.dampeningScaleFactor1("w").val(), 1.0f / 8.0f);
  EXPECT_FLOAT_EQ(sgd.nesterovDampeningScaleFactor2("w").val() * sgd.dampeningScaleFactor2("w").val(), 1.0f / 8.0f);

  // Gradient accumulation (mean, Post) and replication: both divide by af; SGD1 carries no rf, as
  // the velocity sees gradients already summed over the replicas.
  SessionOptions opts;
  opts.enableGradientAccumulation = true;
  opts.accumulationFactor = 2;
  opts.enableReplicatedGraphs = true;
  opts.replicatedGraphCount = 4;
  opts.accumulationAndReplicationReductionType = ReductionType::Mean;
  sgd.setFactorsFromOptions(opts);
  EXPECT_EQ(sgd.sgd1ReplicationFactor(), 1);
  EXPECT_EQ(sgd.meanAccumulationFactor(), 2);
  expectValue(sgd.dampeningScaleFactor1("w"), 0.8f * 4.0f / (8.0f * 2.0f), true);
  expectValue(sgd.scaledLearningRate1("w"), 0.1f / 4.0f, true);
  expectValue(sgd.scaledMomentum1("w"), 0.9f, true);
  expectValue(sgd.dampeningScaleFactor2("w"), 0.8f * 4.0f / (8.0f * 2.0f), true);
  expectValue(sgd.scaledLearningRate0("w"), 0.1f * 0.8f / (8.0f * 2.0f), true);

  // A compound scalar is const only if all its parts are.
  SGD mixed({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.9f, true}}});
  EXPECT_FALSE(mixed.scaledLearningRate0("w").isConst());
  EXPECT_TRUE(mixed.weightDecayScaleFactor0("w").isConst() == false);
  EXPECT_TRUE(mixed.scaledWeightDecay1("w").isConst());
  EXPECT_TRUE(mixed.scaledMomentum1("w").isConst());
  EXPECT_FALSE(mixed.scaledLearningRate2("w").isConst());
  SGD nonConstLs({{"lossScaling", {2.0f, false}}});
  EXPECT_FALSE(nonConstLs.dampeningScaleFactor1("w").isConst());
  EXPECT_TRUE(nonConstLs.weightDecayScaleFactor0("w").isConst());
}

// ---------------------------------------------------------------- replacement rules

TEST(OptimizerReplacement, TypeMustMatch) {
  SGD sgd(Params{});
  Adam adam(Params{});
  Adaptive adaptive(Params{});
  expectError([&] { sgd.validReplacement(adam); },
              {"New optimizer is not a valid replacement.",
               "Can not replace optimizer of type SGD with new optimizer of type Adam"});
  expectError([&] { adam.validReplacement(adaptive); },
              {"Can not replace optimizer of type Adam with new optimizer of type Adaptive"});
  try {
    sgd.validReplacement(adam);
  } catch (const optimizer_replacement_error& e) {
    const error& asError = e;  // a subclass of popart::error
    EXPECT_NE(std::string(asError.what()).find("type SGD"), std::string::npos);
  }
}

TEST(OptimizerReplacement, ConstAndNonConstValues) {
  SGD base({{"defaultLearningRate", {0.1f, false}}, {"defaultWeightDecay", {0.01f, true}}});
  base.validReplacement(SGD({{"defaultLearningRate", {0.5f, false}}, {"defaultWeightDecay", {0.01f, true}}}));
  expectError(
      [&] {
        base.validReplacement(SGD({{"defaultLearningRate", {0.1f, true}}, {"defaultWeightDecay", {0.01f, true}}}));
      },
      {"learning rates", "Can not replace a constant value with a non constant value."});
  expectError(
      [&] {
        base.validReplacement(SGD({{"defaultLearningRate", {0.1f, false}}, {"defaultWeightDecay", {0.02f, true}}}));
      },
      {"weight decays", "Values are constant but do not match."});
  expectError(
      [&] {
        base.validReplacement(SGD({{"defaultLearningRate", {0.1f, false}},
                                   {"defaultWeightDecay", {0.01f, true}},
                                   {"lossScaling", {2.0f, true}}}));
      },
      {"loss scaling", "Values are constant but do not match."});
  expectError(
      [&] {
        base.validReplacement(SGD({{"defaultLearningRate", {0.1f, false}},
                                   {"defaultWeightDecay", {0.01f, true}},
                                   {"defaultVelocityScaling", {2.0f, true}}}));
      },
      {"velocity scalings", "Values are constant but do not match."});
}

TEST(OptimizerReplacement, SpecificOverridesMustBeIdentical) {
  SGD a({{"defaultLearningRate", {0.1f, false}}});
  a.insertSpecific("w", {{"learningRate", {0.2f, false}}});
  SGD sameIds({{"defaultLearningRate", {0.3f, false}}});
  sameIds.insertSpecific("w", {{"learningRate", {0.9f, false}}});
  a.validReplacement(sameIds);
  SGD noSpecific({{"defaultLearningRate", {0.1f, false}}});
  expectError([&] { a.validReplacement(noSpecific); }, {"different number of specific tensors"});
  SGD otherId({{"defaultLearningRate", {0.1f, false}}});
  otherId.insertSpecific("v", {{"learningRate", {0.2f, false}}});
  expectError([&] { a.validReplacement(otherId); }, {"Could not find tensor w"});
}

TEST(OptimizerReplacement, ClipNormSettingsMustBeIdentical) {
  SGD a(Params{}, {ClipNormSettings({"w"}, 1.0f)});
  a.validReplacement(SGD(Params{}, {ClipNormSettings({"w"}, 1.0f)}));
  expectError([&] { a.validReplacement(SGD(Params{})); }, {"Clip norm settings do not match"});
  expectError([&] { a.validReplacement(SGD(Params{}, {ClipNormSettings({"w"}, 2.0f)})); },
              {"Clip norm settings at index 0 do not match."});
}

TEST(OptimizerReplacement, SGDRules) {
  // Dampening is not compared.
  SGD damp({{"defaultMomentum", {0.9f, true}}, {"defaultDampening", {0.1f, true}}});
  damp.validReplacement(SGD({{"defaultMomentum", {0.9f, true}}, {"defaultDampening", {0.5f, true}}}));
  // With a velocity tensor the accumulator mode must match...
  SGD combined({{"defaultMomentum", {0.9f, false}}});
  SGD separate({{"defaultMomentum", {0.9f, false}}}, {}, SGDAccumulatorAndMomentum::Separate);
  expectError([&] { combined.validReplacement(separate); },
              {"SGDAccumulatorAndMomentum::Combined", "SGDAccumulatorAndMomentum::Separate"});
  // ...and for Separate the accum / accl1 types.
  SGD separateHalf({{"defaultMomentum", {0.9f, false}}}, {}, SGDAccumulatorAndMomentum::Separate, DataType::FLOAT16);
  expectError([&] { separate.validReplacement(separateHalf); }, {"accumType", "FLOAT16"});
  SGD separateHalfAccl1({{"defaultMomentum", {0.9f, false}}}, {}, SGDAccumulatorAndMomentum::Separate,
                        DataType::UNDEFINED, DataType::FLOAT16);
  expectError([&] { separate.validReplacement(separateHalfAccl1); }, {"accl1Type", "FLOAT16"});
  // Without a velocity tensor neither matters.
  SGD(Params{}).validReplacement(SGD(Params{}, {}, SGDAccumulatorAndMomentum::Separate, DataType::FLOAT16));
  // Momentum const-ness / value decides the velocity tensor, so it is caught as a value mismatch.
  expectError(
      [] {
        SGD(Params{}).validReplacement(SGD({{"defaultMomentum", {0.9f, true}}}));
      },
      {"momentums", "Values are constant but do not match."});
  expectError([] { SGD(Params{}).validReplacement(SGD({{"nesterov", {1.0f, true}}})); }, {"nesterov"});
}

TEST(OptimizerReplacement, AdamAndAdaptiveRules) {
  Adam adam(Params{});
  adam.validReplacement(Adam(Params{}));
  expectError([&] { adam.validReplacement(Adam(Params{}, AdamMode::Lamb)); }, {"AdamMode::Adam", "AdamMode::Lamb"});
  expectError([&] { adam.validReplacement(Adam(Params{}, AdamMode::Adam, WeightDecayMode::L2Regularization)); },
              {"WeightDecayMode::Decay", "WeightDecayMode::L2Regularization"});
  expectError(
      [&] {
        adam.validReplacement(Adam({{"defaultBeta2", {0.99f, true}}}));
      },
      {"beta2s", "Values are constant but do not match."});
  expectError(
      [&] {
        adam.validReplacement(Adam({{"maxWeightNorm", {1.0f, false}}}));
      },
      {"max weight norms", "Can not replace a constant value with a non constant value."});

  Adaptive adaptive(Params{});
  adaptive.validReplacement(Adaptive(Params{}));
  expectError([&] { adaptive.validReplacement(Adaptive(Params{}, AdaptiveMode::AdaGrad)); },
              {"AdaptiveMode::RMSProp", "AdaptiveMode::AdaGrad"});
  expectError(
      [&] {
        adaptive.validReplacement(Adaptive({{"defaultAlpha", {0.9f, true}}}));
      },
      {"alphas", "Values are constant but do not match."});
  expectError(
      [&] {
        adaptive.validReplacement(Adaptive(Params{}, AdaptiveMode::RMSProp, WeightDecayMode::Decay, DataType::UNDEFINED,
                                           DataType::FLOAT, DataType::FLOAT, DataType::UNDEFINED, true));
      },
      {"rmspropTFVariant"});
}

// ---------------------------------------------------------------- Adam

TEST(Adam, DefaultsKeysAndChecks) {
  Adam adam(Params{});
  EXPECT_EQ(adam.type(), OptimizerType::Adam);
  EXPECT_EQ(adam.type_s(), "Adam");
  expectValue(adam.learningRates().getDefault(), 0.1f, true);
  expectValue(adam.weightDecays().getDefault(), 0.0f, true);
  expectValue(adam.beta1s().getDefault(), 0.9f, true);
  expectValue(adam.beta2s().getDefault(), 0.999f, true);  // not beta1 (PopART's Python bug)
  expectValue(adam.epss().getDefault(), 1e-6f, true);
  expectValue(adam.maxWeightNorms().getDefault(), 10.0f, true);
  expectValue(adam.lossScaling(), 1.0f, true);
  EXPECT_EQ(adam.getMode(), AdamMode::Adam);
  EXPECT_EQ(adam.getWeightDecayMode(), WeightDecayMode::Decay);
  EXPECT_EQ(adam.getAccumType(), DataType::UNDEFINED);
  EXPECT_EQ(adam.getAccl1Type(), DataType::FLOAT);
  EXPECT_EQ(adam.getAccl2Type(), DataType::FLOAT);
  EXPECT_FALSE(adam.useScaledOptimizerState());

  Adam explicitValues({0.01f, false}, 0.1f, 0.8f, 0.99f, 1e-5f, 4.0f, AdamMode::Lamb, WeightDecayMode::L2Regularization,
                      DataType::FLOAT, DataType::FLOAT16, DataType::FLOAT16);
  expectValue(explicitValues.learningRates().getDefault(), 0.01f, false);
  expectValue(explicitValues.maxWeightNorms().getDefault(), 10.0f, true);
  EXPECT_TRUE(explicitValues.isLamb());

  expectError(
      [] {
        Adam({{"defaultMomentum", {0.9f, true}}});
      },
      {"Invalid Adam key, defaultMomentum, the allowed keys are ( defaultLearningRate defaultWeightDecay "
       "defaultBeta1 defaultBeta2 defaultEps lossScaling maxWeightNorm )"});
  expectError(
      [] {
        Adam({{"defaultLearningRate", {0.0f, true}}});
      },
      {"Constant, zero learning rate in Adam, bailing as this might be a user error."});
  Adam nonConstZero({{"defaultLearningRate", {0.0f, false}}});
  expectError([] { Adam({{"defaultLearningRate", {-1.0f, true}}}); }, {"Negative learning rate (-1) in Adam"});
  expectError([] { Adam({{"defaultWeightDecay", {-1.0f, true}}}); }, {"Negative weight decay (-1) in Adam"});
  expectError([] { Adam({{"defaultBeta1", {-0.1f, true}}}); }, {"Negative beta1 (-0.1) in Adam"});
  expectError([] { Adam({{"defaultBeta2", {-0.1f, true}}}); }, {"Negative beta2 (-0.1) in Adam"});
  expectError([] { Adam({{"defaultEps", {0.0f, true}}}); }, {"Non-positive eps (0) in Adam is not supported"});
  expectError([] { Adam({{"maxWeightNorm", {-1.0f, true}}}); }, {"Negative max weight norm (-1) in Adam"});
  expectError([] { Adam({{"lossScaling", {0.0f, true}}}); }, {"Loss scaling cannot be 0"});
  expectError([] { Adam(Params{}, AdamMode::Adam, WeightDecayMode::Decay, DataType::INT8); },
              {"Adam accumType must be FLOAT, FLOAT16 or UNDEFINED"});
}

TEST(Adam, InsertSpecificAndState) {
  Adam adam({{"defaultBeta1", {0.8f, true}}}, AdamMode::AdamNoBias);
  adam.insertSpecific("w", {{"learningRate", {0.01f, false}}, {"beta2", {0.9f, true}}, {"maxWeightNorm", {2, true}}});
  EXPECT_TRUE(adam.hasSpecific("w"));
  EXPECT_FALSE(adam.hasSpecific("v"));
  expectValue(adam.learningRates().get("w"), 0.01f, false);
  expectValue(adam.beta1s().get("w"), 0.8f, true);
  expectValue(adam.beta2s().get("w"), 0.9f, true);
  expectValue(adam.maxWeightNorms().get("w"), 2.0f, true);
  expectError(
      [&] {
        adam.insertSpecific("w", {{"eps", {1e-3f, true}}});
      },
      {"Attempt to insert specific value for optimization Tensor w"});
  expectError(
      [&] {
        adam.insertSpecific("v", {{"momentum", {0.9f, true}}});
      },
      {"Invalid key momentum in Adam::insertSpecific. Permitted keys are ( learningRate weightDecay beta1 "
       "beta2 eps maxWeightNorm )"});
  expectError([&] { adam.insertSpecific("v", {{"eps", {-1.0f, true}}}); }, {"Non-positive eps (-1) in Adam"});
  EXPECT_FALSE(adam.hasSpecific("v"));
  adam.insertSpecific("v", 0.2f, 0.0f, 0.5f, 0.5f, 1e-4f);
  expectValue(adam.maxWeightNorms().get("v"), 10.0f, true);

  // NoBias modes keep no step counter.
  EXPECT_FALSE(adam.hasStepCounter());
  EXPECT_EQ(adam.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w", "Accl2___w"}));
  Adam biased(Params{});
  EXPECT_EQ(biased.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w", "Accl2___w", "Step___w"}));
  SessionOptions accum;
  accum.enableGradientAccumulation = true;
  accum.accumulationFactor = 2;
  biased.setFactorsFromOptions(accum);
  EXPECT_EQ(biased.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w", "Accl2___w", "Step___w", "Accum___w"}));
  expectValue(biased.gradientScaling("w"), 1.0f, true);
  accum.accumulationAndReplicationReductionType = ReductionType::Mean;
  biased.setFactorsFromOptions(accum);
  expectValue(biased.gradientScaling("w"), 0.5f, true);
}

// ---------------------------------------------------------------- Adaptive

TEST(Adaptive, DefaultsKeysAndChecks) {
  Adaptive a(Params{});
  EXPECT_EQ(a.type(), OptimizerType::Adaptive);
  EXPECT_EQ(a.type_s(), "Adaptive");
  expectValue(a.learningRates().getDefault(), 0.01f, true);
  expectValue(a.weightDecays().getDefault(), 0.0f, true);
  expectValue(a.alphas().getDefault(), 0.99f, true);
  expectValue(a.momentums().getDefault(), 0.0f, true);
  expectValue(a.epss().getDefault(), 1e-6f, true);
  expectValue(a.lossScaling(), 1.0f, true);
  EXPECT_EQ(a.getMode(), AdaptiveMode::RMSProp);
  EXPECT_EQ(a.getWeightDecayMode(), WeightDecayMode::Decay);
  EXPECT_FALSE(a.getRmspropTFVariant());
  EXPECT_EQ(a.getAccl1Type(), DataType::FLOAT);
  EXPECT_EQ(a.getAccl3Type(), DataType::UNDEFINED);

  expectError(
      [] {
        Adaptive({{"defaultBeta1", {0.9f, true}}});
      },
      {"Invalid Adaptive key, defaultBeta1, the allowed keys are ( defaultLearningRate defaultWeightDecay "
       "defaultAlpha defaultMomentum defaultEps lossScaling )"});
  expectError([] { Adaptive({{"defaultLearningRate", {0.0f, true}}}); }, {"Constant, zero learning rate in Adaptive"});
  expectError([] { Adaptive({{"defaultWeightDecay", {-1.0f, true}}}); }, {"Negative weight decay (-1) in Adaptive"});
  expectError([] { Adaptive({{"defaultAlpha", {-1.0f, true}}}); }, {"Negative alpha (-1) in Adaptive"});
  expectError([] { Adaptive({{"defaultMomentum", {-2.0f, true}}}); }, {"Negative momentum (-2) in Adaptive"});
  expectError([] { Adaptive({{"defaultEps", {0.0f, true}}}); }, {"Non-positive eps (0) in Adaptive"});
  // The TF variant is TensorFlow's RMSProp: PopART refuses it with the other modes.
  for (AdaptiveMode mode : {AdaptiveMode::AdaGrad, AdaptiveMode::AdaDelta}) {
    expectError(
        [mode] {
          Adaptive(Params{}, mode, WeightDecayMode::Decay, DataType::UNDEFINED, DataType::FLOAT, DataType::FLOAT,
                   DataType::UNDEFINED, true);
        },
        {"The rmspropTFVariant parameter is only valid with the RMSProp and CenteredRMSProp optimizers."});
  }
  EXPECT_TRUE(Adaptive(Params{}, AdaptiveMode::CenteredRMSProp, WeightDecayMode::Decay, DataType::UNDEFINED,
                       DataType::FLOAT, DataType::FLOAT, DataType::UNDEFINED, true)
                  .getRmspropTFVariant());
}

TEST(Adaptive, InsertSpecificAndState) {
  Adaptive a({{"defaultMomentum", {0.5f, true}}}, AdaptiveMode::CenteredRMSProp);
  a.insertSpecific("w", {{"alpha", {0.9f, false}}, {"momentum", {0.0f, true}}});
  expectValue(a.alphas().get("w"), 0.9f, false);
  expectValue(a.momentums().get("w"), 0.0f, true);
  expectValue(a.epss().get("w"), 1e-6f, true);
  expectError([&] { a.insertSpecific("w", {{"eps", {1e-3f, true}}}); }, {"Attempt to insert specific value"});
  expectError(
      [&] {
        a.insertSpecific("v", {{"beta1", {0.9f, true}}});
      },
      {"Invalid key beta1 in Adaptive::insertSpecific. Permitted keys are ( learningRate weightDecay alpha "
       "momentum eps )"});
  EXPECT_TRUE(a.hasMomentum("v"));
  EXPECT_FALSE(a.hasMomentum("w"));
  EXPECT_EQ(a.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w", "Accl2___w"}));
  EXPECT_EQ(a.getStateTensorIds("v"), (std::vector<TensorId>{"Accl1___v", "Accl2___v", "Accl3___v"}));
  Adaptive adaGrad(Params{}, AdaptiveMode::AdaGrad);
  EXPECT_EQ(adaGrad.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w"}));
  Adaptive adaDelta({{"defaultMomentum", {0.0f, false}}}, AdaptiveMode::AdaDelta);
  EXPECT_EQ(adaDelta.getStateTensorIds("w"), (std::vector<TensorId>{"Accl1___w", "Accl2___w", "Accl3___w"}));
}

// ---------------------------------------------------------------- SGD reference steps

TEST(SGDMath, MomentumOneClosedForm) {
  // mm = 1, lr = 0.25, g = +1, dm = 0: v = 1, 2, 3, so w = w0 - 6·lr; nesterov adds g + mm·v each
  // step (2, 3, 4): w0 - 9·lr.
  for (auto mode : {SGDAccumulatorAndMomentum::Combined, SGDAccumulatorAndMomentum::Separate}) {
    SGD sgd({{"defaultLearningRate", {0.25f, true}}, {"defaultMomentum", {1.0f, true}}}, {}, mode);
    const om::SGDHyper h = om::sgdHyper(sgd, "w");
    EXPECT_TRUE(h.withVelocity());
    EXPECT_DOUBLE_EQ(sgdAfter(h, 2.0, 1.0, 3), 2.0 - 6 * 0.25);
    SGD nest({{"defaultLearningRate", {0.25f, true}}, {"defaultMomentum", {1.0f, true}}, {"nesterov", {1, true}}}, {},
             mode);
    const om::SGDHyper hn = om::sgdHyper(nest, "w");
    EXPECT_TRUE(hn.nesterov);
    EXPECT_DOUBLE_EQ(sgdAfter(hn, 2.0, 1.0, 3), 2.0 - 9 * 0.25);
  }
}

TEST(SGDMath, WorkedExample) {
  // mm = 0.9, dm = 0.1, lr = 0.1, g = 1: v = 0.9, 1.71, 2.439, so w = w0 - 0.5049.
  for (auto mode : {SGDAccumulatorAndMomentum::Combined, SGDAccumulatorAndMomentum::Separate}) {
    om::SGDHyper h;
    h.lr = 0.1;
    h.mm = 0.9;
    h.dm = 0.1;
    h.accMm = mode;
    EXPECT_NEAR(sgdAfter(h, 1.0, 1.0, 3), 1.0 - 0.5049, 1e-12);
    om::Vec w{1.0};
    om::SGDState s;
    om::sgdStep(w, {1.0}, s, h);
    // Separate stores v; Combined stores mm·v (+ the zero wd term) for the next step.
    EXPECT_NEAR(s.v[0], mode == SGDAccumulatorAndMomentum::Separate ? 0.9 : 0.81, 1e-12);
  }
}

TEST(SGDMath, NoMomentumMatchesCompoundScalars) {
  // SGD0: w <- w·wdsf0 - slr0·g, with dampening scaling the step and loss scaling undone.
  SGD sgd({{"defaultLearningRate", {0.5f, true}},
           {"defaultWeightDecay", {0.1f, true}},
           {"defaultDampening", {0.2f, true}},
           {"lossScaling", {4.0f, true}}});
  const om::SGDHyper h = om::sgdHyper(sgd, "w");
  EXPECT_FALSE(h.withVelocity());
  om::Vec w{1.0, -2.0};
  const om::Vec g{4.0, 8.0};  // loss-scaled: the true gradient is {1, 2}
  om::SGDState s;
  om::sgdStep(w, g, s, h);
  EXPECT_TRUE(s.v.empty());
  const double wdsf0 = sgd.weightDecayScaleFactor0("w").val(), slr0 = sgd.scaledLearningRate0("w").val();
  EXPECT_NEAR(w[0], 1.0 * wdsf0 - slr0 * 4.0, 1e-6);
  EXPECT_NEAR(w[1], -2.0 * wdsf0 - slr0 * 8.0, 1e-6);
  EXPECT_NEAR(w[0], 1.0 - 0.5 * 0.8 * (1.0 + 0.1 * 1.0), 1e-6);
  // A non-const zero momentum still keeps a velocity; the result is the same.
  om::SGDHyper hv = h;
  hv.momentumIsTensor = true;
  om::Vec wv{1.0, -2.0};
  om::sgdStep(wv, g, s, hv);
  EXPECT_EQ(s.v.size(), 2u);
  EXPECT_NEAR(wv[0], w[0], 1e-12);
  EXPECT_NEAR(wv[1], w[1], 1e-12);
}

TEST(SGDMath, WeightDecayLossAndVelocityScaling) {
  // v <- mm·v + (1-dm)·(g/ls + wd·w); w <- w - lr·v, step by step against the plain formula.
  const double lr = 0.05, wd = 0.01, mm = 0.8, dm = 0.25, ls = 16.0;
  const std::vector<double> gs{1.0, -0.5, 2.0, 0.25};
  double wRef = 0.7, vRef = 0.0;
  for (double g : gs) {
    vRef = mm * vRef + (1 - dm) * (g + wd * wRef);
    wRef -= lr * vRef;
  }
  for (auto mode : {SGDAccumulatorAndMomentum::Combined, SGDAccumulatorAndMomentum::Separate}) {
    for (double vs : {1.0, 8.0}) {
      om::SGDHyper h;
      h.lr = lr;
      h.wd = wd;
      h.mm = mm;
      h.dm = dm;
      h.ls = ls;
      h.vs = vs;
      h.accMm = mode;
      om::Vec w{0.7};
      om::SGDState s;
      for (double g : gs) om::sgdStep(w, {g * ls}, s, h);
      EXPECT_NEAR(w[0], wRef, 1e-12) << "vs " << vs;
    }
  }
  // Separate stores vs·v.
  om::SGDHyper h;
  h.mm = 0.5;
  h.vs = 8.0;
  h.accMm = SGDAccumulatorAndMomentum::Separate;
  om::Vec w{0.0};
  om::SGDState s;
  om::sgdStep(w, {1.0}, s, h);
  EXPECT_DOUBLE_EQ(s.v[0], 8.0);
  EXPECT_DOUBLE_EQ(w[0], -0.1);
}

TEST(SGDMath, CombinedLagsMomentumChangesButNotLearningRate) {
  om::SGDHyper h;
  h.lr = 0.1;
  h.mm = 0.9;
  h.wd = 0.1;
  om::SGDHyper hs = h;
  hs.accMm = SGDAccumulatorAndMomentum::Separate;
  om::Vec wc{1.0}, ws{1.0};
  om::SGDState sc, ss;
  om::sgdStep(wc, {1.0}, sc, h);
  om::sgdStep(ws, {1.0}, ss, hs);
  EXPECT_NEAR(wc[0], ws[0], 1e-12);

  // A learning-rate change is exact in both.
  om::SGDHyper h2 = h, hs2 = hs;
  h2.lr = hs2.lr = 0.3;
  {
    om::Vec a = wc, b = ws;
    om::SGDState sa = sc, sb = ss;
    om::sgdStep(a, {1.0}, sa, h2);
    om::sgdStep(b, {1.0}, sb, hs2);
    EXPECT_NEAR(a[0], b[0], 1e-12);
  }
  // A momentum change reaches Combined one step late: its step-2 velocity still uses mm = 0.9.
  h2 = h;
  hs2 = hs;
  h2.mm = hs2.mm = 0.1;
  om::Vec a = wc, b = ws;
  om::SGDState sa = sc, sb = ss;
  om::sgdStep(a, {1.0}, sa, h2);
  om::sgdStep(b, {1.0}, sb, hs2);
  EXPECT_GT(std::abs(a[0] - b[0]), 1e-3);
  om::Vec lagged = ws;
  om::SGDState sl = ss;
  om::sgdStep(lagged, {1.0}, sl, hs);  // Separate with the old momentum
  EXPECT_NEAR(a[0], lagged[0], 1e-12);
}

// ---------------------------------------------------------------- Adam reference steps

TEST(AdamMath, FirstStepWithBiasCorrection) {
  // m^ = g and v^ = g² at t = 1, so w1 = w0 - lr·g/(|g| + eps).
  Adam adam({{"defaultLearningRate", {0.01f, true}}});
  const om::AdamHyper h = om::adamHyper(adam, "w");
  const om::Vec g{0.5, -2.0, 3.0, 0.0};
  om::Vec w{1.0, 1.0, 1.0, 1.0};
  om::AdamState s;
  om::adamStep(w, g, s, h);
  EXPECT_EQ(s.t, 1);
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(w[i], 1.0 - h.lr * g[i] / (std::abs(g[i]) + h.eps), 1e-9) << i;
    EXPECT_NEAR(w[i], 1.0 - 0.01 * (g[i] > 0 ? 1 : g[i] < 0 ? -1 : 0), 1e-6) << i;
  }
  // A constant gradient keeps m^ = g, v^ = g²: every step moves by the same amount.
  om::adamStep(w, g, s, h);
  om::adamStep(w, g, s, h);
  EXPECT_EQ(s.t, 3);
  EXPECT_NEAR(w[1], 1.0 + 3 * h.lr * 2.0 / (2.0 + h.eps), 1e-9);
}

TEST(AdamMath, ModesAndWeightDecay) {
  const double g = 2.0, w0 = 1.5;
  om::AdamHyper h;
  h.lr = 0.1;
  h.b1 = 0.9;
  h.b2 = 0.999;
  h.eps = 1e-6;
  auto step = [&](const om::AdamHyper& hh, double gg) {
    om::Vec w{w0};
    om::AdamState s;
    om::adamStep(w, {gg}, s, hh);
    return w[0];
  };
  h.mode = AdamMode::AdamNoBias;
  EXPECT_NEAR(step(h, g), w0 - h.lr * (0.1 * g) / (std::sqrt(0.001 * g * g) + h.eps), 1e-12);
  h.mode = AdamMode::AdaMax;  // v = max(0, |g|), m^ = g, u = m^/(v + eps)
  EXPECT_NEAR(step(h, g), w0 - h.lr * g / (g + h.eps), 1e-12);
  // Loss scaling is undone first.
  h.mode = AdamMode::Adam;
  h.ls = 64.0;
  EXPECT_NEAR(step(h, g * 64.0), w0 - h.lr * g / (g + h.eps), 1e-12);
  h.ls = 1.0;
  // Decay (AdamW) adds wd·w to the update; L2Regularization adds it to the gradient.
  h.wd = 0.5;
  EXPECT_NEAR(step(h, g), w0 - h.lr * (g / (g + h.eps) + 0.5 * w0), 1e-12);
  h.decayMode = WeightDecayMode::L2Regularization;
  const double s = g + 0.5 * w0;
  EXPECT_NEAR(step(h, g), w0 - h.lr * s / (s + h.eps), 1e-12);
}

TEST(AdamMath, LambTrustRatio) {
  om::AdamHyper h;
  h.lr = 0.1;
  h.mode = AdamMode::Lamb;
  om::Vec w{3.0, 4.0};  // |w| = 5
  om::AdamState s;
  om::adamStep(w, {1.0, -1.0}, s, h);
  const double u = 1.0 / (1.0 + h.eps);
  const double ratio = 5.0 / (std::sqrt(2.0) * u);
  EXPECT_NEAR(w[0], 3.0 - ratio * h.lr * u, 1e-12);
  EXPECT_NEAR(w[1], 4.0 + ratio * h.lr * u, 1e-12);
  // The weight norm is clipped at maxWeightNorm.
  h.mwn = 2.0;
  w = {3.0, 4.0};
  s = {};
  om::adamStep(w, {1.0, -1.0}, s, h);
  EXPECT_NEAR(w[0], 3.0 - 2.0 / std::sqrt(2.0) * h.lr, 1e-9);
  // A zero weight gives a trust ratio of 1.
  w = {0.0, 0.0};
  s = {};
  om::adamStep(w, {1.0, -1.0}, s, h);
  EXPECT_NEAR(w[0], -h.lr * u, 1e-12);
  // LambNoBias: no bias correction, same ratio rule.
  h.mode = AdamMode::LambNoBias;
  h.mwn = 10.0;
  w = {3.0, 4.0};
  s = {};
  om::adamStep(w, {1.0, -1.0}, s, h);
  const double unb = 0.1 / (std::sqrt(0.001) + h.eps);
  EXPECT_NEAR(w[0], 3.0 - 5.0 / (std::sqrt(2.0) * unb) * h.lr * unb, 1e-12);
}

// ---------------------------------------------------------------- Adaptive reference steps

TEST(AdaptiveMath, AdaGradClosedForm) {
  // v1 = k·g² after k steps, so each step moves by lr·g/(sqrt(k)·|g| + eps).
  Adaptive a({{"defaultLearningRate", {0.1f, true}}}, AdaptiveMode::AdaGrad);
  const om::AdaptiveHyper h = om::adaptiveHyper(a, "w");
  EXPECT_EQ(h.mode, AdaptiveMode::AdaGrad);
  const double g = 0.5;
  om::Vec w{1.0};
  om::AdaptiveState s;
  double expect = 1.0;
  for (int k = 1; k <= 4; ++k) {
    om::adaptiveStep(w, {g}, s, h);
    expect -= h.lr * g / (std::sqrt(k) * g + h.eps);
  }
  EXPECT_NEAR(w[0], expect, 1e-12);
  EXPECT_NEAR(s.v1[0], 4 * g * g, 1e-12);
  EXPECT_NEAR(w[0], 1.0 - 0.1 * (1 + 1 / std::sqrt(2.0) + 1 / std::sqrt(3.0) + 0.5), 1e-5);
}

TEST(AdaptiveMath, RMSPropClosedFormAndTFVariant) {
  // v1 = (1 - a^k)·g² after k steps.
  om::AdaptiveHyper h;
  h.lr = 0.01;
  h.alpha = 0.9;
  h.eps = 1e-3;
  const double g = -2.0;
  om::Vec w{0.0};
  om::AdaptiveState s;
  double expect = 0.0;
  for (int k = 1; k <= 3; ++k) {
    om::adaptiveStep(w, {g}, s, h);
    const double v1 = (1 - std::pow(0.9, k)) * g * g;
    expect -= h.lr * g / (std::sqrt(v1) + h.eps);
  }
  EXPECT_NEAR(w[0], expect, 1e-12);
  // TF variant: v1 starts at 1 (TensorFlow's RMSProp), eps inside the square root.
  h.tfVariant = true;
  w = {0.0};
  s = {};
  om::adaptiveStep(w, {g}, s, h);
  EXPECT_NEAR(s.v1[0], 0.9 + 0.1 * g * g, 1e-12);
  EXPECT_NEAR(w[0], -h.lr * g / std::sqrt(0.9 + 0.1 * g * g + h.eps), 1e-12);
  // CenteredRMSProp's mean gradient still starts at 0: x = g / sqrt(v1 - v2² + eps).
  h.mode = AdaptiveMode::CenteredRMSProp;
  w = {0.0};
  s = {};
  om::adaptiveStep(w, {g}, s, h);
  EXPECT_NEAR(s.v2[0], 0.1 * g, 1e-12);
  EXPECT_NEAR(w[0], -h.lr * g / std::sqrt(0.9 + 0.1 * g * g - 0.01 * g * g + h.eps), 1e-12);
}

TEST(AdaptiveMath, CenteredRMSPropAndAdaDeltaFirstStep) {
  om::AdaptiveHyper h;
  h.lr = 0.1;
  h.alpha = 0.9;
  h.eps = 1e-4;
  const double g = 3.0;
  h.mode = AdaptiveMode::CenteredRMSProp;  // v1 - v2² = a(1-a)g²
  om::Vec w{1.0};
  om::AdaptiveState s;
  om::adaptiveStep(w, {g}, s, h);
  EXPECT_NEAR(s.v2[0], 0.1 * g, 1e-12);
  EXPECT_NEAR(w[0], 1.0 - h.lr * g / (std::sqrt(0.9 * 0.1) * g + h.eps), 1e-12);

  h.mode = AdaptiveMode::AdaDelta;  // x = g·sqrt(v2 + eps)/sqrt(v1 + eps), then v2 = (1-a)x²
  w = {1.0};
  s = {};
  om::adaptiveStep(w, {g}, s, h);
  const double x = g * std::sqrt(h.eps) / std::sqrt(0.1 * g * g + h.eps);
  EXPECT_NEAR(w[0], 1.0 - h.lr * x, 1e-12);
  EXPECT_NEAR(s.v2[0], 0.1 * x * x, 1e-15);
}

TEST(AdaptiveMath, MomentumWeightDecayAndTFVariant) {
  // alpha = 0: v1 = g², x = g/(|g| + eps) every step; v3 = x, 1.5x, 1.75x with m = 0.5.
  om::AdaptiveHyper h;
  h.lr = 0.1;
  h.alpha = 0.0;
  h.mm = 0.5;
  const double g = 1.0, x = g / (g + h.eps);
  om::Vec w{0.0};
  om::AdaptiveState s;
  for (int k = 0; k < 3; ++k) om::adaptiveStep(w, {g}, s, h);
  EXPECT_NEAR(w[0], -h.lr * x * (1 + 1.5 + 1.75), 1e-12);
  EXPECT_NEAR(s.v3[0], 1.75 * x, 1e-12);

  // Decay: w -= lr·(v3 + wd·w); L2: wd·w joins the gradient.
  h.wd = 0.2;
  w = {2.0};
  s = {};
  om::adaptiveStep(w, {g}, s, h);
  EXPECT_NEAR(w[0], 2.0 - h.lr * (x + 0.2 * 2.0), 1e-12);
  h.decayMode = WeightDecayMode::L2Regularization;
  w = {2.0};
  s = {};
  om::adaptiveStep(w, {g}, s, h);
  const double sg = g + 0.2 * 2.0;
  EXPECT_NEAR(w[0], 2.0 - h.lr * sg / (sg + h.eps), 1e-12);

  // TF variant with momentum folds lr into v3, and weight decay is not scaled by lr.
  h.decayMode = WeightDecayMode::Decay;
  h.tfVariant = true;
  w = {2.0};
  s = {};
  om::adaptiveStep(w, {g}, s, h);
  const double xt = g / std::sqrt(g * g + h.eps);
  EXPECT_NEAR(s.v3[0], h.lr * xt, 1e-12);
  EXPECT_NEAR(w[0], 2.0 - (h.lr * xt + 0.2 * 2.0), 1e-12);
  // Without momentum the TF variant only moves eps.
  h.mm = 0.0;
  w = {2.0};
  s = {};
  om::adaptiveStep(w, {g}, s, h);
  EXPECT_TRUE(s.v3.empty());
  EXPECT_NEAR(w[0], 2.0 - h.lr * (xt + 0.2 * 2.0), 1e-12);
}

}  // namespace
}  // namespace popart
