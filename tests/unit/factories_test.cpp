// The optimizer and loss constructors as data (popart/factories.hpp): the table the Python and JS
// constructors, the stub and the .d.ts come from, overload matching, defaults and PopART's
// TypeError wording.
#include "popart/factories.hpp"
#include "common/test_util.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

using test::expectError;
using Kw = std::vector<std::pair<std::string, FactoryValue>>;

std::unique_ptr<Optimizer> optimizer(const std::string& name, const std::vector<FactoryValue>& args,
                                     const Kw& kw = {}) {
  return makeOptimizer(bindFactoryArguments(name, args, kw));
}
std::unique_ptr<Loss> loss(const std::string& name, const std::vector<FactoryValue>& args, const Kw& kw = {}) {
  return makeLoss(bindFactoryArguments(name, args, kw));
}

TEST(Factories, TableNamesEveryConstructorWithPopartsArgumentOrder) {
  std::vector<std::string> names;
  for (const auto& f : factoryList()) names.push_back(f.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"SGD", "ConstSGD", "Adam", "Adaptive", "NllLoss", "L1Loss", "IdentityLoss"}));
  // PopART's Python keyword order (python/popart.cpp): Adam's clip_norm_settings is its 7th.
  const auto& adam = factoryInfo("Adam").signatures.at(0).args;
  std::vector<std::string> adamArgs;
  for (const auto& a : adam) adamArgs.push_back(a.name);
  EXPECT_EQ(adamArgs,
            (std::vector<std::string>{"values", "mode", "weight_decay_mode", "accum_type", "accl1_type", "accl2_type",
                                      "clip_norm_settings", "scaled_optimizer_state", "debugContext"}));
  EXPECT_EQ(factoryInfo("ConstSGD").base, "SGD");
  expectError([] { factoryInfo("Adamax"); }, {"Unknown optimizer or loss constructor 'Adamax'", "SGD, ConstSGD"});
}

TEST(Factories, EveryDefaultIsOfItsArgumentsKind) {
  // A call naming every argument, each default given explicitly, takes the defaults through the kind
  // check and selects this overload (the others lack one of its names).
  for (const auto& f : factoryList()) {
    for (const auto& s : f.signatures) {
      Kw kw;
      for (const auto& a : s.args) {
        if (a.defaultValue)
          kw.emplace_back(a.name, *a.defaultValue);
        else if (a.kind == "float")
          kw.emplace_back(a.name, 0.5);
        else if (a.kind == "tensor")
          kw.emplace_back(a.name, std::string("t"));
        else
          FAIL() << f.name << "." << a.name << ": a required argument of kind " << a.kind;
      }
      const auto args = bindFactoryArguments(f.name, {}, kw);
      EXPECT_EQ(args.signature, &s) << f.name;
      EXPECT_EQ(args.values.size(), s.args.size()) << f.name;
      if (f.family == "optimizer")
        EXPECT_TRUE(makeOptimizer(args)) << f.name;
      else
        EXPECT_TRUE(makeLoss(args)) << f.name;
    }
  }
}

TEST(Factories, DefaultsAreTheConstructorsDefaults) {
  const auto adam = optimizer("Adam", {});
  const auto& a = dynamic_cast<const Adam&>(*adam);
  const Adam direct(std::map<std::string, std::pair<float, bool>>{});
  EXPECT_EQ(a.getMode(), direct.getMode());
  EXPECT_EQ(a.getWeightDecayMode(), direct.getWeightDecayMode());
  EXPECT_EQ(a.getAccumType(), direct.getAccumType());
  EXPECT_EQ(a.getAccl1Type(), DataType::FLOAT);
  EXPECT_EQ(a.getAccl2Type(), DataType::FLOAT);
  EXPECT_FALSE(a.useScaledOptimizerState());
  EXPECT_EQ(a.getDebugContext().getPathName(), "adam");

  const auto ada = optimizer("Adaptive", {});
  const auto& d = dynamic_cast<const Adaptive&>(*ada);
  EXPECT_EQ(d.getMode(), AdaptiveMode::RMSProp);
  EXPECT_EQ(d.getAccl3Type(), DataType::UNDEFINED);
  EXPECT_FALSE(d.getRmspropTFVariant());

  const auto sgd = optimizer("SGD", {});
  EXPECT_EQ(dynamic_cast<const SGD&>(*sgd).getSGDAccumulatorAndMomentum(), SGDAccumulatorAndMomentum::Combined);
  EXPECT_EQ(sgd->type_s(), "SGD");
  const auto c = optimizer("ConstSGD", {0.25});
  EXPECT_EQ(c->type_s(), "SGD");
  EXPECT_NE(dynamic_cast<const ConstSGD*>(c.get()), nullptr);
  EXPECT_TRUE(dynamic_cast<const SGD&>(*c).learningRates().getDefault().isConst());
  EXPECT_FLOAT_EQ(c->getLossScalingVal(), 1.0f);
}

TEST(Factories, PositionalAndKeywordArgumentsReachTheConstructor) {
  const auto adam =
      optimizer("Adam", {FactoryValueMap{{"defaultLearningRate", {0.02f, false}}}, std::string("Lamb")},
                {{"accl1_type", std::string("FLOAT16")},
                 {"clip_norm_settings", std::vector<ClipNormSettings>{ClipNormSettings::clipAllWeights(2)}},
                 {"scaled_optimizer_state", true}});
  const auto& a = dynamic_cast<const Adam&>(*adam);
  EXPECT_EQ(a.getMode(), AdamMode::Lamb);
  EXPECT_EQ(a.getAccl1Type(), DataType::FLOAT16);
  EXPECT_TRUE(a.useScaledOptimizerState());
  EXPECT_FLOAT_EQ(a.learningRates().getDefault().val(), 0.02f);
  EXPECT_FALSE(a.learningRates().getDefault().isConst());
  ASSERT_EQ(a.getClipNormSettings().size(), 1u);
  EXPECT_FLOAT_EQ(a.getClipNormSettings()[0].getMaxNorm(), 2.0f);

  // None for an argument with a default (JS's undefined in the middle of a call) is the default.
  const auto ada = optimizer("Adaptive", {FactoryValueMap{}, std::monostate{}, std::string("L2Regularization")});
  EXPECT_EQ(dynamic_cast<const Adaptive&>(*ada).getMode(), AdaptiveMode::RMSProp);
  EXPECT_EQ(dynamic_cast<const Adaptive&>(*ada).getWeightDecayMode(), WeightDecayMode::L2Regularization);
  // An integer where a float is taken.
  EXPECT_FLOAT_EQ(optimizer("ConstSGD", {int64_t{1}}, {{"loss_scaling", int64_t{4}}})->getLossScalingVal(), 4.0f);
}

TEST(Factories, OverloadsPickedByTheirArguments) {
  // SGD(learningRate): early PopART's form, a learning rate that is not const.
  const auto early = optimizer("SGD", {0.125});
  EXPECT_FALSE(dynamic_cast<const SGD&>(*early).learningRates().getDefault().isConst());
  EXPECT_FLOAT_EQ(dynamic_cast<const SGD&>(*early).learningRates().getDefault().val(), 0.125f);
  // NllLoss(probs, label, output, reduction) and NllLoss(probs, label, output, ignoreIndex, ...).
  const auto byName = loss("NllLoss", {std::string("p"), std::string("l"), std::string("o"), std::string("Mean")});
  EXPECT_EQ(byName->getReductionType(), ReductionType::Mean);
  EXPECT_FALSE(dynamic_cast<const NllLoss&>(*byName).hasIgnoreIndex());
  const auto ignoring =
      loss("NllLoss", {std::string("p"), std::string("l"), std::string("o"), int64_t{3}, std::string("Sum"), true});
  const auto& nll = dynamic_cast<const NllLoss&>(*ignoring);
  EXPECT_TRUE(nll.hasIgnoreIndex());
  EXPECT_EQ(nll.getIgnoreIndex(), 3);
  EXPECT_TRUE(nll.inputIsLogProbability());
  const auto kw =
      loss("NllLoss", {std::string("p"), std::string("l"), std::string("o")}, {{"inputIsLogProbability", true}});
  EXPECT_TRUE(dynamic_cast<const NllLoss&>(*kw).inputIsLogProbability());
  const auto l1 = loss("L1Loss", {std::string("x"), std::string("out"), 0.1});
  EXPECT_EQ(l1->output(), "out");
  EXPECT_EQ(l1->opType(), "L1");
  EXPECT_EQ(loss("IdentityLoss", {std::string("x"), std::string("y")})->getReductionType(), ReductionType::Sum);
}

TEST(Factories, CallsThatFitNoOverloadSayWhatIsSupported) {
  // pybind11's words, every overload listed, then the call.
  expectError([] { optimizer("Adam", {0.01}); },
              {"Adam(): incompatible constructor arguments. The following argument types are supported:",
               "    1. Adam(values: dict = {}, mode: AdamMode = 'Adam', weight_decay_mode: WeightDecayMode = 'Decay'",
               "clip_norm_settings: List[ClipNormSettings] = []", "Invoked with: 0.01"});
  expectError(
      [] {
        loss("NllLoss", {std::string("p"), std::string("l")});
      },
      {"1. NllLoss(probs: str, label: str, output: str, reduction: ReductionType = 'Sum')",
       "2. NllLoss(probs: str, label: str, output: str, ignoreIndex: Optional[int] = None", "Invoked with: 'p', 'l'"});
  expectError([] { optimizer("SGD", {0.1, std::vector<ClipNormSettings>{}}); }, {"1. SGD(learningRate: float)"});
  expectError([] { optimizer("ConstSGD", {0.1}, {{"momentum", 0.9}}); }, {"Invoked with: 0.1, momentum=0.9"});
  expectError([] { optimizer("ConstSGD", {0.1}, {{"learning_rate", 0.2}}); }, {"incompatible constructor arguments"});
  expectError([] { optimizer("Adam", {UnsupportedFactoryValue{"<object>"}}); }, {"Invoked with: <object>"});
  expectError([] { optimizer("Adam", {true}); }, {"Invoked with: True"});
  // A family mix-up.
  expectError([] { makeLoss(bindFactoryArguments("SGD", {}, {})); }, {"SGD is not a loss"});
}

TEST(Factories, TheConstructorsOwnErrorsPassThrough) {
  expectError([] { optimizer("Adam", {FactoryValueMap{}, std::string("Adamish")}); }, {"Invalid AdamMode 'Adamish'"});
  expectError(
      [] {
        optimizer("SGD", {FactoryValueMap{{"defaultBeta1", {0.9f, true}}}});
      },
      {"Invalid SGD key, defaultBeta1"});
  expectError([] { optimizer("Adam", {FactoryValueMap{}}, {{"accum_type", std::string("STRING")}}); }, {"STRING"});
  expectError(
      [] {
        loss("NllLoss", {std::string("p"), std::string("l"), std::string("o"), int64_t{1} << 40});
      },
      {"NllLoss ignoreIndex 1099511627776 is not an int32"});
}

TEST(Factories, SignaturesReadAsPython) {
  const auto& f = factoryInfo("ConstSGD");
  EXPECT_EQ(factorySignatureToString(f, f.signatures.at(0)),
            "ConstSGD(learning_rate: float, weight_decay: float = 0.0, loss_scaling: float = 1.0, clip_norm_settings: "
            "List[ClipNormSettings] = [])");
  EXPECT_EQ(factoryValueToString(FactoryValueMap{{"defaultMomentum", {0.5f, true}}}),
            "{'defaultMomentum': (0.5, True)}");
  EXPECT_EQ(factoryValueToString(1e-7), "1e-07");
}

}  // namespace
}  // namespace popart
