// Patterns: every name in patternList() is a name Patterns accepts, and each pattern that says it
// rewrites the IR does so when enabled (op types counted through serializeIr, as Python's
// _serializeIr shows them), leaves it alone when disabled, and changes no result.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "common/test_util.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "popart/half.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

/// The op types of the main graph in schedule order, as serializeIr (Python _serializeIr) shows
/// them ("ReluInplace" once InPlace made Relu in-place).
std::vector<std::string> irTypes(const Session& s) {
  std::vector<std::string> types;
  const auto ir = nlohmann::ordered_json::parse(s.serializeIr(IrSerializationFormat::JSON));
  for (const auto& op : ir.at("maingraph")) types.push_back(op.at("type").get<std::string>());
  return types;
}

struct Ran {
  std::multiset<std::string> ops;  ///< the op types (serializeIr)
  std::vector<std::string> order;  ///< the same in schedule order
  std::vector<float> y;            ///< the first anchor's values
  std::vector<std::vector<float>> anchors;
  SessionMemoryStats mem;
};

/// Prepares and runs `model` with `patterns` (x filled with random values in [-1, 1)); returns the
/// IR's op types, the anchors' values and the memory stats.
Ran runWith(const std::string& model, const TensorId& x, const Shape& xShape, const std::vector<TensorId>& anchors,
            const Patterns& patterns) {
  auto s = InferenceSession::createFromOnnxModel(model, DataFlow(1, anchors), test::cpu(), InputShapeInfo(),
                                                 SessionOptions(), patterns);
  s->prepareDevice();
  int64_t n = 1;
  for (auto d : xShape) n *= d;
  std::map<TensorId, NDArray> ins;
  ins.emplace(x, NDArray::fromVector(test::randomFloats(static_cast<size_t>(n), 7), xShape));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  s->run(io);
  Ran r;
  r.order = irTypes(*s);
  r.ops = std::multiset<std::string>(r.order.begin(), r.order.end());
  for (const auto& a : anchors) r.anchors.push_back(out.at(a).toVector<float>());
  r.y = r.anchors.at(0);
  r.mem = s->getMemoryStats();
  return r;
}

Ran runWith(const std::string& model, const TensorId& x, const Shape& xShape, const TensorId& y,
            const Patterns& patterns) {
  return runWith(model, x, xShape, std::vector<TensorId>{y}, patterns);
}

/// The default patterns without InPlace: the pre-alias tests count op types without "Inplace".
Patterns noInplace() {
  Patterns p;
  p.enableInPlace(false);
  return p;
}

Patterns without(const std::string& name) {
  Patterns p = noInplace();
  p.enablePattern(name, false);
  return p;
}

void expectSame(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5f) << "at " << i;
}

void expectBitIdentical(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "at " << i;
}

std::vector<float> inputValues(const Shape& shape) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return test::randomFloats(static_cast<size_t>(n), 7);  // what runWith feeds
}

using Types = std::multiset<std::string>;

TEST(Patterns, ListMatchesTheNamesPatternsAccepts) {
  const auto& list = patternList();
  std::set<std::string> listed;
  for (const auto& p : list) {
    EXPECT_TRUE(listed.insert(p.name).second) << p.name << " listed twice";
    EXPECT_FALSE(p.doc.empty()) << p.name;
    EXPECT_NO_THROW(Patterns().isPatternEnabled(p.name)) << p.name;
    const bool mandatory = p.defaultState == "Mandatory";
    EXPECT_EQ(Patterns::isMandatory(p.name), mandatory) << p.name;
    EXPECT_EQ(Patterns::isDefaultEnabled(p.name), p.defaultState != "Off") << p.name;
    EXPECT_EQ(Patterns(PatternsLevel::Default).isPatternEnabled(p.name), p.defaultState != "Off") << p.name;
  }
  for (const auto& name : Patterns::getAllPatternNames()) EXPECT_TRUE(listed.count(name)) << name;
  // The rewrites this runtime has; a new one must get a test below.
  std::set<std::string> rewrites;
  for (const auto& p : list) {
    if (p.rewrite) rewrites.insert(p.name);
  }
  EXPECT_EQ(rewrites, (std::set<std::string>{
                          "PreUniRepl", "PostNRepl", "SoftmaxGradDirect", "NlllWithSoftmaxGradDirect", "OpToIdentity",
                          "SplitOp", "SumToAdd", "PadSum", "NegativeOneScale", "UpsampleToResize",
                          "TransposeToIdentityOrReshapePattern", "ExpandCast", "InPlace", "FuseActivation",
                          "FuseLayerNorm", "RandomNormalLikeOpPattern", "RandomUniformLikeOpPattern"}));
}

TEST(Patterns, RandomLikeOpsBecomePlainOnes) {
  for (const bool normal : {true, false}) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset11();
    const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 5}), "x");
    const TensorId y = normal ? ai.randomnormallike({x}, nonstd::nullopt, 3.0f, 0.5f)
                              : ai.randomuniformlike({x}, nonstd::nullopt, 4.0f, 2.0f);
    b->addOutputTensor(y);
    const Ran r = runWith(b->getModelProto(), x, {2, 5}, y, Patterns());
    EXPECT_EQ(r.ops, (std::multiset<std::string>{normal ? "RandomNormal" : "RandomUniform"}));
    ASSERT_EQ(r.y.size(), 10u);
    for (float v : r.y) {
      if (!normal) {
        EXPECT_TRUE(v >= 2.0f && v < 4.0f) << v;  // uniform in [low, high)
      }
    }
    EXPECT_NE(r.y.front(), r.y.back());
  }
}

TEST(Patterns, FuseActivationFoldsReluIntoConv) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {1, 2, 5, 5}), "x");
  auto w = test::randomFloats(3 * 2 * 3 * 3, 3);
  const TensorId wi = b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo("FLOAT", {3, 2, 3, 3})), "w");
  const TensorId y = ai.relu({ai.conv({x, wi}, {1, 1}, 1, {3, 3}, {1, 1, 1, 1})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran fused = runWith(model, x, {1, 2, 5, 5}, y, noInplace());
  const Ran plain = runWith(model, x, {1, 2, 5, 5}, y, without("FuseActivation"));
  EXPECT_EQ(fused.ops.count("Relu"), 0u);
  EXPECT_EQ(fused.ops.count("Conv"), 1u);
  EXPECT_EQ(plain.ops.count("Relu"), 1u);
  EXPECT_EQ(fused.ops.size() + 1, plain.ops.size());
  expectSame(fused.y, plain.y);
  bool anyNegative = false;
  for (float v : plain.y) anyNegative |= v < 0;
  EXPECT_FALSE(anyNegative);
}

TEST(Patterns, FuseLayerNormMakesOneOp) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {3, 8}), "x");
  auto scalar = [&](float v) { return ai.constant(ConstVoidData(&v, TensorInfo("FLOAT", {}))); };
  std::vector<float> gamma = test::randomFloats(8, 11, 0.5f, 1.5f), beta = test::randomFloats(8, 12);
  const TensorId g = b->addInitializedInputTensor(ConstVoidData(gamma.data(), TensorInfo("FLOAT", {8})), "gamma");
  const TensorId be = b->addInitializedInputTensor(ConstVoidData(beta.data(), TensorInfo("FLOAT", {8})), "beta");
  const TensorId mean = ai.reducemean({x}, {-1}, 1);
  const TensorId d = ai.sub({x, mean});
  const TensorId var = ai.reducemean({ai.pow({d, scalar(2.0f)})}, {-1}, 1);
  const TensorId normed = ai.div({d, ai.sqrt({ai.add({var, scalar(1e-5f)})})});
  const TensorId y = ai.add({ai.mul({normed, g}), be});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran fused = runWith(model, x, {3, 8}, y, noInplace());
  const Ran plain = runWith(model, x, {3, 8}, y, without("FuseLayerNorm"));
  EXPECT_EQ(fused.ops.count("LayerNormalization"), 1u);
  EXPECT_EQ(fused.ops.count("ReduceMean"), 0u);
  EXPECT_EQ(plain.ops.count("LayerNormalization"), 0u);
  EXPECT_EQ(plain.ops.count("ReduceMean"), 2u);
  expectSame(fused.y, plain.y);
}

TEST(Patterns, PostNReplRemovesIdentity) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {4}), "x");
  const TensorId y = ai.neg({ai.identity({ai.abs({x})})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {4}, y, noInplace());
  const Ran kept = runWith(model, x, {4}, y, without("PostNRepl"));
  EXPECT_EQ(dflt.ops, (Types{"Abs", "Neg"}));
  EXPECT_EQ(kept.ops, (Types{"Abs", "Identity", "Neg"}));
  expectSame(dflt.y, kept.y);
  const auto xs = inputValues({4});
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_FLOAT_EQ(dflt.y[i], -std::fabs(xs[i]));
}

TEST(Patterns, MinimalLevelRunsNoOptionalRewrite) {
  Patterns minimal(PatternsLevel::Minimal);
  for (const auto& p : patternList()) {
    if (p.defaultState != "Mandatory") {
      EXPECT_FALSE(minimal.isPatternEnabled(p.name)) << p.name;
    }
  }
}

// ---------------------------------------------------------------- PopART's pre-alias patterns

TEST(Patterns, TransposeUndoingATransposeGoes) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3, 4}), "x");
  const TensorId y = ai.neg({ai.transpose({ai.transpose({x}, {2, 0, 1})}, {1, 2, 0})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {2, 3, 4}, y, noInplace());
  const Ran kept = runWith(model, x, {2, 3, 4}, y, without("TransposeToIdentityOrReshapePattern"));
  const Ran identity = runWith(model, x, {2, 3, 4}, y, without("PostNRepl"));
  EXPECT_EQ(dflt.ops, (Types{"Neg"}));
  EXPECT_EQ(kept.ops, (Types{"Transpose", "Transpose", "Neg"}));
  EXPECT_EQ(identity.ops, (Types{"Identity", "Neg"}));
  const auto xs = inputValues({2, 3, 4});
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(dflt.y[i], -xs[i]);
  expectBitIdentical(dflt.y, kept.y);
  expectBitIdentical(identity.y, kept.y);
}

TEST(Patterns, TransposeUndoingATransposeThroughAnUnsqueezingReshapeIsAReshape) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  const std::vector<int64_t> shape{3, 1, 2};
  const TensorId s = ai.constant(ConstVoidData(shape.data(), TensorInfo("INT64", {3})));
  const TensorId r = ai.reshape({ai.transpose({x}, {1, 0}), s});
  const TensorId y = ai.neg({ai.transpose({r}, {2, 1, 0})});  // [2, 1, 3]: x reshaped
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {2, 3}, y, noInplace());
  const Ran kept = runWith(model, x, {2, 3}, y, without("TransposeToIdentityOrReshapePattern"));
  EXPECT_EQ(dflt.ops, (Types{"Reshape", "Neg"}));
  EXPECT_EQ(kept.ops, (Types{"Transpose", "Reshape", "Transpose", "Neg"}));
  const auto xs = inputValues({2, 3});
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(dflt.y[i], -xs[i]);
  expectBitIdentical(dflt.y, kept.y);
}

TEST(Patterns, OpToIdentityThenPostNReplRemoveAnIdentityTranspose) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  const TensorId y = ai.neg({ai.transpose({ai.abs({x})}, {0, 1})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {2, 3}, y, noInplace());
  const Ran kept = runWith(model, x, {2, 3}, y, without("OpToIdentity"));
  const Ran identity = runWith(model, x, {2, 3}, y, without("PostNRepl"));
  EXPECT_EQ(dflt.ops, (Types{"Abs", "Neg"}));
  EXPECT_EQ(kept.ops, (Types{"Abs", "Transpose", "Neg"}));
  EXPECT_EQ(identity.ops, (Types{"Abs", "Identity", "Neg"}));
  expectBitIdentical(dflt.y, kept.y);
  expectBitIdentical(identity.y, kept.y);
}

TEST(Patterns, PreUniReplRemovesAOneInputSumAndAZeroPad) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  const TensorId y = ai.neg({ai.pad({ai.sum({ai.abs({x})})}, {0, 0, 0, 0})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  Patterns none = noInplace();
  none.enablePattern("PreUniRepl", false).enablePattern("PostNRepl", false).enablePattern("OpToIdentity", false);
  Patterns onlyPreUniRepl = none;
  onlyPreUniRepl.enablePattern("PreUniRepl", true);
  Patterns onlyOpToIdentity = none;
  onlyOpToIdentity.enablePattern("OpToIdentity", true);
  const Ran kept = runWith(model, x, {2, 3}, y, none);
  const Ran pre = runWith(model, x, {2, 3}, y, onlyPreUniRepl);
  const Ran toIdentity = runWith(model, x, {2, 3}, y, onlyOpToIdentity);
  const Ran dflt = runWith(model, x, {2, 3}, y, noInplace());
  EXPECT_EQ(kept.ops, (Types{"Abs", "Sum", "Pad", "Neg"}));
  EXPECT_EQ(pre.ops, (Types{"Abs", "Neg"}));
  EXPECT_EQ(toIdentity.ops, (Types{"Abs", "Identity", "Identity", "Neg"}));
  EXPECT_EQ(dflt.ops, (Types{"Abs", "Neg"}));
  for (const Ran* r : {&pre, &toIdentity, &dflt}) expectBitIdentical(r->y, kept.y);
}

TEST(Patterns, SumToAddMakesATwoInputSumAnAdd) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  const TensorId two = ai.sum({ai.abs({x}), ai.exp({x})});
  const TensorId y = ai.sum({two, ai.neg({x}), ai.sin({x})});  // three inputs: stays a Sum
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {2, 3}, y, noInplace());
  const Ran kept = runWith(model, x, {2, 3}, y, without("SumToAdd"));
  EXPECT_EQ(dflt.ops, (Types{"Abs", "Exp", "Add", "Neg", "Sin", "Sum"}));
  EXPECT_EQ(kept.ops, (Types{"Abs", "Exp", "Sum", "Neg", "Sin", "Sum"}));
  const auto xs = inputValues({2, 3});
  for (size_t i = 0; i < xs.size(); ++i) {
    const double v = std::fabs(xs[i]) + std::exp(double(xs[i])) - xs[i] + std::sin(double(xs[i]));
    EXPECT_NEAR(dflt.y[i], v, 1e-5);
  }
  expectBitIdentical(dflt.y, kept.y);
}

TEST(Patterns, NegativeOneScaleMakesScaleByMinusOneANeg) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {5}), "x");
  const TensorId y = gc.scale({gc.scale({x}, -1.0f)}, 2.0f);
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {5}, y, noInplace());
  const Ran kept = runWith(model, x, {5}, y, without("NegativeOneScale"));
  EXPECT_EQ(dflt.ops, (Types{"Neg", "Scale"}));
  EXPECT_EQ(kept.ops, (Types{"Scale", "Scale"}));
  const auto xs = inputValues({5});
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(dflt.y[i], -2.0f * xs[i]);
  expectBitIdentical(dflt.y, kept.y);
}

TEST(Patterns, ExcludePatternsKeepsOneNodeAsItIs) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {5}), "x");
  const TensorId a = gc.scale({x}, -1.0f);
  const TensorId y = gc.scale({a}, -1.0f);
  b->excludePatterns(a, {"NegativeOneScale"});
  b->addOutputTensor(y);
  const Ran r = runWith(b->getModelProto(), x, {5}, y, noInplace());
  EXPECT_EQ(r.order, (std::vector<std::string>{"Scale", "Neg"}));
  expectBitIdentical(r.y, inputValues({5}));
}

TEST(Patterns, SplitOpMakesOneSlicePerOutputRead) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {6, 4}), "x");
  const auto parts = ai.split({x}, 3, 0, {1, 2, 3});
  const TensorId y = ai.concat({ai.neg({parts[2]}), ai.abs({parts[0]})}, 0);  // parts[1] is not read
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {6, 4}, y, noInplace());
  const Ran kept = runWith(model, x, {6, 4}, y, without("SplitOp"));
  EXPECT_EQ(dflt.ops, (Types{"Slice", "Slice", "Neg", "Abs", "Concat"}));
  EXPECT_EQ(kept.ops, (Types{"Split", "Neg", "Abs", "Concat"}));
  const auto xs = inputValues({6, 4});
  ASSERT_EQ(dflt.y.size(), 16u);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(dflt.y[i], -xs[12 + i]);           // rows 3..5, negated
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(dflt.y[12 + i], std::fabs(xs[i]));  // row 0
  expectBitIdentical(dflt.y, kept.y);
}

TEST(Patterns, PadSumMakesASumOfDisjointPadsAConcat) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  // abs(x) in columns 0..2, exp(x) in columns 4..6, zeros in column 3.
  const TensorId y = ai.sum({ai.pad({ai.abs({x})}, {0, 0, 0, 4}), ai.pad({ai.exp({x})}, {0, 4, 0, 0})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {2, 3}, y, noInplace());
  const Ran kept = runWith(model, x, {2, 3}, y, without("PadSum"));
  // The first piece needs no padding (PreUniRepl removes its zero Pad); the second is padded by
  // the one-column gap.
  EXPECT_EQ(dflt.ops, (Types{"Abs", "Exp", "Pad", "Concat"}));
  EXPECT_EQ(kept.ops, (Types{"Abs", "Exp", "Pad", "Pad", "Add"}));
  const auto xs = inputValues({2, 3});
  ASSERT_EQ(dflt.y.size(), 14u);
  for (size_t r = 0; r < 2; ++r) {
    for (size_t c = 0; c < 3; ++c) {
      EXPECT_EQ(dflt.y[r * 7 + c], std::fabs(xs[r * 3 + c]));
      EXPECT_FLOAT_EQ(dflt.y[r * 7 + 4 + c], std::exp(xs[r * 3 + c]));
    }
    EXPECT_EQ(dflt.y[r * 7 + 3], 0.0f);
  }
  expectBitIdentical(dflt.y, kept.y);
}

TEST(Patterns, UpsampleToResizeComputesTheSame) {
  for (const char* mode : {"nearest", "linear"}) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset9();
    const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {1, 1, 2, 3}), "x");
    const std::vector<float> scales{1.0f, 1.0f, 2.0f, 1.5f};
    const TensorId sc = ai.constant(ConstVoidData(scales.data(), TensorInfo("FLOAT", {4})));
    const TensorId y = ai.upsample({x, sc}, mode);
    b->addOutputTensor(y);
    const std::string model = b->getModelProto();

    const Ran dflt = runWith(model, x, {1, 1, 2, 3}, y, noInplace());
    const Ran kept = runWith(model, x, {1, 1, 2, 3}, y, without("UpsampleToResize"));
    EXPECT_EQ(dflt.ops, (Types{"Resize"})) << mode;
    EXPECT_EQ(kept.ops, (Types{"Upsample"})) << mode;
    ASSERT_EQ(dflt.y.size(), 4u * 4u) << mode;
    expectBitIdentical(dflt.y, kept.y);
    if (std::string(mode) == "nearest") {  // output (r, c) reads input (floor(r / 2), floor(c / 1.5))
      const auto xs = inputValues({1, 1, 2, 3});
      for (size_t r = 0; r < 4; ++r) {
        for (size_t c = 0; c < 4; ++c)
          EXPECT_EQ(dflt.y[r * 4 + c], xs[(r / 2) * 3 + static_cast<size_t>(std::floor(double(c) / 1.5))]);
      }
    }
  }
}

TEST(Patterns, ExpandCastCastsBeforeExpanding) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset9();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {1, 3}), "x");
  const std::vector<int64_t> shape{4, 3};
  const TensorId s = ai.constant(ConstVoidData(shape.data(), TensorInfo("INT64", {2})));
  const TensorId h = ai.cast({ai.expand({ai.abs({x}), s})}, "FLOAT16");
  const TensorId y = ai.cast({h}, "FLOAT");
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {1, 3}, y, noInplace());
  const Ran kept = runWith(model, x, {1, 3}, y, without("ExpandCast"));
  // Both casts move before the Expand, one after the other.
  EXPECT_EQ(dflt.order, (std::vector<std::string>{"Abs", "Cast", "Cast", "Expand"}));
  EXPECT_EQ(kept.order, (std::vector<std::string>{"Abs", "Expand", "Cast", "Cast"}));
  const auto xs = inputValues({1, 3});
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(dflt.y[i], static_cast<float>(float16_t(std::fabs(xs[i % 3]))));
  expectBitIdentical(dflt.y, kept.y);
}

// ---------------------------------------------------------------- InPlace

TEST(Patterns, InPlaceOverwritesBuffersNobodyReadsLater) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {1024}), "x");
  const TensorId y = ai.sigmoid({ai.relu({ai.exp({x})})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran inplace = runWith(model, x, {1024}, y, Patterns());
  const Ran plain = runWith(model, x, {1024}, y, noInplace());
  // Exp reads the input stream (never overwritten); Relu and Sigmoid overwrite Exp's output.
  EXPECT_EQ(inplace.order, (std::vector<std::string>{"Exp", "ReluInplace", "SigmoidInplace"}));
  EXPECT_EQ(plain.order, (std::vector<std::string>{"Exp", "Relu", "Sigmoid"}));
  expectBitIdentical(inplace.y, plain.y);
  // One 4 KiB buffer for the three activations instead of two (reused by liveness).
  EXPECT_EQ(inplace.mem.activationArenaBytes, 4096);
  EXPECT_EQ(plain.mem.activationArenaBytes, 2 * 4096);
  const auto xs = inputValues({1024});
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_NEAR(inplace.y[i], 1.0 / (1.0 + std::exp(-std::exp(double(xs[i])))), 1e-6);
}

TEST(Patterns, InPlaceLeavesAnInputALaterOpReads) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {64}), "x");
  const TensorId a = ai.exp({x});
  const TensorId y = ai.add({ai.relu({a}), a});  // Relu may not overwrite a: the Add reads it after
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran inplace = runWith(model, x, {64}, y, Patterns());
  const Ran plain = runWith(model, x, {64}, y, noInplace());
  EXPECT_EQ(inplace.order, (std::vector<std::string>{"Exp", "Relu", "AddLhsInplace"}));
  expectBitIdentical(inplace.y, plain.y);
  const auto xs = inputValues({64});
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_FLOAT_EQ(inplace.y[i], 2.0f * std::exp(xs[i]));
}

TEST(Patterns, InPlaceLeavesAnchorsAlone) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {16}), "x");
  const TensorId a = ai.exp({x});
  const TensorId y = ai.sigmoid({ai.relu({a})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran r = runWith(model, x, {16}, {y, a}, Patterns());
  EXPECT_EQ(r.order, (std::vector<std::string>{"Exp", "Relu", "SigmoidInplace"}));  // a is anchored
  const auto xs = inputValues({16});
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_FLOAT_EQ(r.anchors[1][i], std::exp(xs[i]));
    EXPECT_NEAR(r.anchors[0][i], 1.0 / (1.0 + std::exp(-std::exp(double(xs[i])))), 1e-6);
  }
}

TEST(Patterns, InplacePreferencesChooseAndVeto) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {8}), "x");
  const TensorId s = ai.add({ai.exp({x}), ai.abs({x})});
  const TensorId y = ai.sigmoid({s});                        // (a Relu would be fused into the Add)
  b->setInplacePreferences(s, {{"AddRhsInplace", 20.0f}});   // overwrite Abs's output, not Exp's
  b->setInplacePreferences(y, {{"SigmoidInplace", -1.0f}});  // a priority <= 0 vetoes
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran r = runWith(model, x, {8}, y, Patterns());
  EXPECT_EQ(r.ops, (Types{"Exp", "Abs", "AddRhsInplace", "Sigmoid"}));
  expectBitIdentical(r.y, runWith(model, x, {8}, y, noInplace()).y);
  Patterns excluded;
  const Ran dflt = runWith(model, x, {8}, y, excluded.enablePattern("InPlace", false));
  EXPECT_EQ(dflt.ops, (Types{"Exp", "Abs", "Add", "Sigmoid"}));
}

// PopART lowers some ops and gradients only through a (mandatory) pattern: with it disabled and
// runtime asserts off, training that needs such a gradient fails with PopART's sentence at its end,
// as does a forward op that needs one; the default patterns train and run.
TEST(Patterns, DisabledGradientPatternFailsAsInPopART) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {4}), "x");
  std::vector<float> wv{0.5f, 1.0f, 1.5f, 2.0f};
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo("FLOAT", {4})), "w");
  const TensorId y = ai.cos({ai.sub({x, w})});
  const TensorId loss = b->aiGraphcoreOpset1().l1loss({y}, 0.1f);
  const std::string model = b->getModelProto();
  auto train = [&](const Patterns& p) {
    TrainingSession::createFromOnnxModel(model, DataFlow(1, {loss}), loss, ConstSGD(0.1f), test::cpu(), {}, {}, p);
  };
  train(Patterns());
  Patterns noCos({"SubtractArg1GradOp"});
  noCos.enableRuntimeAsserts(false);
  test::expectError([&] { train(noCos); }, {"with respect to input 0 needs PopART's pattern CosGradOp",
                                            "This op should have been removed by pattern CosGradOp"});
  Patterns noSub({"CosGradOp"});
  noSub.enableRuntimeAsserts(false);
  test::expectError([&] { train(noSub); }, {"This op should have been removed by pattern SubtractArg1GradOp"});
  // Only the gradients needed: x is a stream input, so Sub's input 0 needs no pattern.
  train(Patterns({"CosGradOp", "SubtractArg1GradOp"}).enableRuntimeAsserts(false));

  auto c = Builder::create();
  const TensorId cx = c->addInputTensor(TensorInfo("FLOAT", {4}), "x");
  const TensorId cy = c->aiOnnxOpset11().cosh({cx});
  Patterns none(PatternsLevel::NoPatterns);
  test::expectError(
      [&] { InferenceSession::createFromOnnxModel(c->getModelProto(), DataFlow(1, {cy}), test::cpu(), {}, {}, none); },
      {"This op should have been removed by pattern CoshOp"});
}

// ---------------------------------------------------------------- Softmax then Nll

struct SoftmaxNll {
  Types ops;
  std::vector<float> loss, dLogits;
};

/// Trains one step of Nll(Softmax(x · w)) (x [4, 3] times `spread`, labels {0, 4, 2, 4}, the last
/// one ignored) and returns the IR's op types with the loss and the gradient of the logits.
SoftmaxNll softmaxNll(const Patterns& p, float spread, ReductionType red) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {4, 3}), "x");
  const TensorId label = b->addInputTensor(TensorInfo("INT32", {4}), "label");
  std::vector<float> wv = test::randomFloats(15, 3);
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo("FLOAT", {3, 5})), "w");
  const TensorId logits = ai.matmul({x, w});
  const TensorId probs = ai.softmax({logits}, -1);
  const TensorId loss = b->aiGraphcoreOpset1().nllloss({probs, label}, red, 3);
  const TensorId gl = std::string(reservedGradientPrefix()) + logits;
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, std::vector<TensorId>{loss, gl}), loss,
                                                ConstSGD(0.1f), test::cpu(), {}, {}, p);
  s->prepareDevice();
  s->weightsFromHost();
  std::vector<float> xv = test::randomFloats(12, 5);
  for (float& v : xv) v *= spread;
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(xv, {4, 3}));
  in.emplace(label, NDArray::fromVector(std::vector<int32_t>{0, 4, 2, 3}, {4}));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(out));
  s->run(io);
  const std::vector<std::string> order = irTypes(*s);
  SoftmaxNll r;
  r.ops = Types(order.begin(), order.end());
  r.loss = out.at(loss).toVector<float>();
  r.dLogits = out.at(gl).toVector<float>();
  return r;
}

/// The same in double: the loss (probabilities clamped at 1e-7 as PopART's Nll) and the exact
/// gradient (p - onehot(label)) * dLoss, 0 for the ignored sample.
SoftmaxNll softmaxNllReference(float spread, ReductionType red) {
  const std::vector<float> w = test::randomFloats(15, 3);
  std::vector<float> x = test::randomFloats(12, 5);
  const int label[4] = {0, 4, 2, 3};
  SoftmaxNll r;
  const double scale = red == ReductionType::Mean ? 1.0 / 3.0 : 1.0;  // three samples counted
  double total = 0;
  for (int i = 0; i < 4; ++i) {
    double z[5], mx = -1e300, sum = 0;
    for (int c = 0; c < 5; ++c) {
      z[c] = 0;
      for (int k = 0; k < 3; ++k) z[c] += double(x[size_t(i * 3 + k)] * spread) * double(w[size_t(k * 5 + c)]);
      mx = std::max(mx, z[c]);
    }
    for (double v : z) sum += std::exp(v - mx);
    const bool ignored = label[i] == 3;
    const double l = ignored ? 0.0 : -std::log(std::max(std::exp(z[label[i]] - mx) / sum, 1e-7));
    total += l;
    if (red == ReductionType::NoReduction) r.loss.push_back(float(l));
    for (int c = 0; c < 5; ++c) {
      const double pc = std::exp(z[c] - mx) / sum;
      r.dLogits.push_back(ignored ? 0.0f : float(scale * (c == label[i] ? pc - 1.0 : pc)));
    }
  }
  if (red != ReductionType::NoReduction) r.loss.push_back(float(total * scale));
  return r;
}

void expectClose(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  std::vector<double> w(want.begin(), want.end());
  test::expectNear(got, w, 1e-5, what);
}

TEST(Patterns, SoftmaxGradDirectAndNlllWithSoftmaxGradDirectFuseSoftmaxAndNll) {
  for (ReductionType red : {ReductionType::Mean, ReductionType::Sum}) {
    const SoftmaxNll want = softmaxNllReference(1.0f, red);
    const SoftmaxNll fused = softmaxNll(noInplace(), 1.0f, red);
    EXPECT_EQ(fused.ops.count("NlllWithSoftmaxGradDirect"), 1u);
    for (const char* gone : {"Nll", "NllGrad", "SoftmaxGrad", "SoftmaxGradDirect"})
      EXPECT_EQ(fused.ops.count(gone), 0u);
    expectClose(fused.loss, want.loss, "fused loss");
    expectClose(fused.dLogits, want.dLogits, "fused dLogits");

    const SoftmaxNll direct = softmaxNll(without("NlllWithSoftmaxGradDirect"), 1.0f, red);
    EXPECT_EQ(direct.ops.count("SoftmaxGradDirect"), 1u);
    EXPECT_EQ(direct.ops.count("Nll"), 1u);
    EXPECT_EQ(direct.ops.count("NllGrad"), 0u);
    expectClose(direct.loss, want.loss, "direct loss");
    expectClose(direct.dLogits, want.dLogits, "direct dLogits");

    const SoftmaxNll apart = softmaxNll(without("SoftmaxGradDirect"), 1.0f, red);
    EXPECT_EQ(apart.ops.count("NllGrad"), 1u);
    EXPECT_EQ(apart.ops.count("SoftmaxGrad"), 1u);
    EXPECT_EQ(apart.ops.count("NlllWithSoftmaxGradDirect"), 0u);  // it needs SoftmaxGradDirect first
    expectClose(apart.dLogits, want.dLogits, "NllGrad then SoftmaxGrad");
  }
}

TEST(Patterns, SoftmaxGradDirectIsExactWhereTheLabelledProbabilityUnderflows) {
  // Logits 60 times wider: some labelled probabilities fall below Nll's clamp (1e-7), where
  // NllGrad's -1/p is cut to 0, but (p - 1) is still right.
  const SoftmaxNll want = softmaxNllReference(60.0f, ReductionType::Sum);
  const SoftmaxNll fused = softmaxNll(noInplace(), 60.0f, ReductionType::Sum);
  expectClose(fused.dLogits, want.dLogits, "fused dLogits");
  const SoftmaxNll apart = softmaxNll(without("SoftmaxGradDirect"), 60.0f, ReductionType::Sum);
  double worst = 0;
  for (size_t i = 0; i < want.dLogits.size(); ++i)
    worst = std::max(worst, double(std::fabs(apart.dLogits[i] - want.dLogits[i])));
  EXPECT_GT(worst, 0.5) << "the reference case should have an underflowing labelled probability";
}

}  // namespace
}  // namespace popart
