// Patterns: every name in patternList() is a name Patterns accepts, and each pattern that says it
// rewrites the IR does so when enabled, leaves it alone when disabled, and changes no result.
#include <algorithm>
#include <set>

#include "common/test_util.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

std::multiset<std::string> opTypes(const Session& s) {
  std::multiset<std::string> types;
  for (const auto& kv : s.getIr().mainGraph().ops()) types.insert(kv.second->type());
  return types;
}

struct Ran {
  std::multiset<std::string> ops;
  std::vector<float> y;
};

/// Prepares and runs `model` with `patterns`; returns the IR's op types and the output.
Ran runWith(const std::string& model, const TensorId& x, const Shape& xShape, const TensorId& y,
            const Patterns& patterns) {
  auto s = InferenceSession::createFromOnnxModel(model, DataFlow(1, {y}), test::cpu(), InputShapeInfo(),
                                                 SessionOptions(), patterns);
  s->prepareDevice();
  int64_t n = 1;
  for (auto d : xShape) n *= d;
  std::map<TensorId, NDArray> ins;
  ins.emplace(x, NDArray::fromVector(test::randomFloats(static_cast<size_t>(n), 7), xShape));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  s->run(io);
  return {opTypes(*s), out.at(y).toVector<float>()};
}

Patterns without(const std::string& name) {
  Patterns p;
  p.enablePattern(name, false);
  return p;
}

void expectSame(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5f) << "at " << i;
}

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
  EXPECT_EQ(rewrites, (std::set<std::string>{"PreUniRepl", "OpToIdentity", "FuseActivation", "FuseLayerNorm",
                                             "RandomNormalLikeOpPattern", "RandomUniformLikeOpPattern"}));
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

  const Ran fused = runWith(model, x, {1, 2, 5, 5}, y, Patterns());
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

  const Ran fused = runWith(model, x, {3, 8}, y, Patterns());
  const Ran plain = runWith(model, x, {3, 8}, y, without("FuseLayerNorm"));
  EXPECT_EQ(fused.ops.count("LayerNormalization"), 1u);
  EXPECT_EQ(fused.ops.count("ReduceMean"), 0u);
  EXPECT_EQ(plain.ops.count("LayerNormalization"), 0u);
  EXPECT_EQ(plain.ops.count("ReduceMean"), 2u);
  expectSame(fused.y, plain.y);
}

TEST(Patterns, IdentityRemovalNeedsPreUniReplOrOpToIdentity) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {4}), "x");
  const TensorId y = ai.neg({ai.identity({ai.abs({x})})});
  b->addOutputTensor(y);
  const std::string model = b->getModelProto();

  const Ran dflt = runWith(model, x, {4}, y, Patterns());
  Patterns neither;
  neither.enablePattern("PreUniRepl", false).enablePattern("OpToIdentity", false);
  const Ran kept = runWith(model, x, {4}, y, neither);
  Patterns onlyOne = neither;
  onlyOne.enablePattern("OpToIdentity", true);
  const Ran one = runWith(model, x, {4}, y, onlyOne);
  EXPECT_EQ(dflt.ops.count("Identity"), 0u);
  EXPECT_EQ(one.ops.count("Identity"), 0u);
  EXPECT_EQ(kept.ops.count("Identity"), 1u);
  expectSame(dflt.y, kept.y);
}

TEST(Patterns, MinimalLevelRunsNoOptionalRewrite) {
  Patterns minimal(PatternsLevel::Minimal);
  for (const auto& p : patternList()) {
    if (p.defaultState != "Mandatory") {
      EXPECT_FALSE(minimal.isPatternEnabled(p.name)) << p.name;
    }
  }
}

}  // namespace
}  // namespace popart
