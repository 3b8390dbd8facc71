// Names PopART programs use (issue 20 §1): reserved prefixes, versions, default opsets,
// RecomputeType and the Builder's checkpointOutput / has* scopes, TensorLocationSettings.
#include <regex>
#include <set>

#include "common/test_util.hpp"
#include "popart/version.hpp"

namespace popart {
namespace {

using test::expectError;

TEST(ApiNames, ReservedPrefixesArePopArts) {
  // Values from PopART's tensornames.hpp.
  EXPECT_STREQ(reservedGradientPrefix(), "Gradient___");
  EXPECT_STREQ(reservedRestoredPrefix(), "Restored___");
  EXPECT_STREQ(reservedStashedPrefix(), "Stashed___");
  EXPECT_STREQ(reservedLossScalingPrefix(), "lossScaling_");
  EXPECT_STREQ(reservedDefaultAdamBeta1Prefix(), "adamBeta1___default___");
  static_assert(reservedAccl3Prefix()[5] == '_', "constexpr as PopART's");
  std::set<std::string> names, values;
  for (const auto& [n, v] : reservedPrefixList()) {
    EXPECT_TRUE(names.insert(n).second) << n;
    EXPECT_TRUE(values.insert(v).second) << v;
  }
  EXPECT_GE(names.size(), 60u);
  EXPECT_EQ(names.count("reservedRemoteArgPrefix"), 1u);
}

TEST(ApiNames, VersionAndDefaultOpsets) {
  const std::string v = core::versionString();
  EXPECT_TRUE(std::regex_match(v, std::regex(R"(\d+\.\d+\.\d+)"))) << v;
  const auto n = core::versionNumber();
  EXPECT_EQ(v, std::to_string(n.major) + "." + std::to_string(n.minor) + "." + std::to_string(n.point));
  const std::string h = core::packageHash();
  EXPECT_TRUE(h == "unknown" || std::regex_match(h, std::regex("[0-9a-f]{7,40}"))) << h;
  EXPECT_EQ(defaultAiOnnxOpset, 10);
  EXPECT_EQ(defaultAiOnnxMlOpset, 1);
  EXPECT_EQ(defaultAiGraphcoreOpset, 1);
}

TEST(ApiNames, EnumsInTheTable) {
  EXPECT_EQ(enumInfo("RecomputeType").values,
            (std::vector<std::string>{"Undefined", "Checkpoint", "Recompute", "Recomputed"}));
  EXPECT_EQ(enumFromString<DeviceSelectionCriterion>("Random"), DeviceSelectionCriterion::Random);
  EXPECT_EQ(enumToString(IrSerializationFormat::JSON), "JSON");
  EXPECT_EQ(static_cast<int>(RecomputeType::Recompute), 2);  // PopART's number, stored in the model
}

TEST(ApiNames, RecomputeAndCheckpointOutput) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto x = b->addInputTensor("FLOAT", {3}, "x");
  auto r = ai.relu({x});
  b->recomputeOutputInBackwardPass(r);
  EXPECT_EQ(b->getInt64NodeAttribute(sRecomputeOutputAttribute, {r}), 2);
  expectError([&] { b->recomputeOutputInBackwardPass(r, int64_t{9}); }, {"9 is not a RecomputeType"});
  const auto c = b->checkpointOutput({r});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(b->getInt64NodeAttribute(sRecomputeOutputAttribute, {c[0]}),
            static_cast<int64_t>(RecomputeType::Checkpoint));
  EXPECT_EQ(b->getTensorShape(c[0]), (Shape{3}));
  b->addOutputTensor(c[0]);
  // The checkpoint is an identity: the session returns relu(x).
  NDArray in = NDArray::fromVector(std::vector<float>{-1.f, 0.5f, 2.f}, {3});
  auto out = test::runOnce(b->getModelProto(), {{x, in}}, {c[0]});
  const float* y = out.at(c[0]).dataAs<float>();
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{0.f, 0.5f, 2.f}));
}

TEST(ApiNames, InplacePreferencesAreKeptOnTheNode) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor("FLOAT", {2});
  const TensorId e = ai.exp({x});
  b->setInplacePreferences(e, {{"ExpInplace", 100.0f}});
  b->setInplacePreferences(e, {{"ExpInplace", 10.0f}, {"IdentityInplace", -1.0f}});  // replaces
  EXPECT_EQ(b->getStringVectorNodeAttribute("__inplace_op_names", {e}),
            (std::vector<std::string>{"ExpInplace", "IdentityInplace"}));
  EXPECT_EQ(b->getFloatVectorNodeAttribute("__inplace_op_priorities", {e}), (std::vector<float>{10.0f, -1.0f}));
}

TEST(ApiNames, HasScopedAnnotations) {
  auto b = Builder::create();
  EXPECT_FALSE(b->hasVirtualGraph());
  EXPECT_FALSE(b->hasPipelineStage());
  b->setVirtualGraph(1);
  b->setPipelineStage(0);
  EXPECT_TRUE(b->hasVirtualGraph());
  EXPECT_TRUE(b->hasPipelineStage());
  EXPECT_FALSE(b->hasExecutionPhase());
  b->clearAttribute(sVirtualGraphAttribute);
  EXPECT_FALSE(b->hasVirtualGraph());
}

TEST(ApiNames, TensorLocationSettingsAsPopArt) {
  SessionOptions o;
  EXPECT_EQ(o.weightTensorLocationSettings.location.storage, TensorStorage::OnChip);
  o.weightTensorLocationSettings = TensorLocationSettings(TensorStorage::OffChip, 0);
  EXPECT_EQ(std::get<std::string>(o.get("weightTensorLocationSettings.location.storage")), "OffChip");
  EXPECT_EQ(std::get<int64_t>(o.get("weightTensorLocationSettings.minElementsForOffChip")), 0);
  o.set("activationTensorLocationSettings.location.replicatedTensorSharding", std::string("On"));
  EXPECT_EQ(o.activationTensorLocationSettings.location.replicatedTensorSharding, ReplicatedTensorSharding::On);
  o.set("defaultPrefetchBufferingDepth", int64_t{4});  // PopART's deprecated name
  EXPECT_EQ(o.defaultBufferingDepth, 4);
  o.set("groupHostSync", true);
  EXPECT_TRUE(o.groupHostSync);
  expectError([&] { o.set("experimentalSettings.noSuchThing", true); },
              {"SessionOptions has no option 'experimentalSettings.noSuchThing'"});
}

TEST(ApiNames, SupportedOperations) {
  const auto pub = OpManager::getSupportedOperations(false);
  const auto all = OpManager::getSupportedOperations(true);
  EXPECT_GT(all.size(), pub.size());
  bool relu = false, gelu = false;
  for (const auto& o : pub) {
    EXPECT_NE(o.domain, "internal") << o.type;
    relu = relu || (o.domain == "ai.onnx" && o.type == "Relu");
    gelu = gelu || (o.domain == "ai.graphcore" && o.type == "Gelu");
  }
  EXPECT_TRUE(relu && gelu);
}

}  // namespace
}  // namespace popart
