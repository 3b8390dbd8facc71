// Issue 20 §1: VariableSettings / CommGroup / ReplicaGrouping (PopART's replica-group rules, and
// grouped weights at this runtime's inference replicas), InputSettings with Broadcast streams,
// getSupportedOperationsDefinition / getUnsupportedOperations, and the debug-info recording.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/test_util.hpp"
#include "popart/opmanager.hpp"
#include "popart/variablesettings.hpp"

namespace popart {
namespace {

using test::expectError;

std::vector<std::vector<int64_t>> groupsOf(const CommGroup& g, unsigned n) {
  return VariableSettings(g).groups(n);
}

TEST(Replicas, CommGroupsAsPopArtsUserGuide) {
  // The tables of PopART's user guide ("Grouping graph replicas"), 16 replicas, group size 4.
  EXPECT_EQ(groupsOf(CommGroup(CommGroupType::Consecutive, 4), 16)[1], (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(groupsOf(CommGroup(CommGroupType::Orthogonal, 4), 16)[0], (std::vector<int64_t>{0, 4, 8, 12}));
  EXPECT_EQ(groupsOf(CommGroup(CommGroupType::Orthogonal, 4), 16)[3], (std::vector<int64_t>{3, 7, 11, 15}));
  EXPECT_EQ(groupsOf(CommGroup(CommGroupType::None, 0), 16).size(), 16u);
  EXPECT_EQ(groupsOf(CommGroup(), 16).size(), 1u);
  // Every replica is in exactly the group getGroupAt names, at the index getIndexInGroupAt names.
  for (const auto& g : {ReplicaGrouping(12, 1, 3), ReplicaGrouping(12, 4, 3), ReplicaGrouping(12, 2, 3)}) {
    std::vector<int> seen(12, 0);
    for (unsigned grp = 0; grp < g.getNumGroups(); ++grp) {
      const auto members = g.getReplicasAt(grp);
      for (unsigned i = 0; i < members.size(); ++i) {
        EXPECT_EQ(g.getGroupAt(members[i]), grp) << g.str();
        EXPECT_EQ(g.getIndexInGroupAt(members[i]), i) << g.str();
        ++seen[members[i]];
      }
    }
    for (int s : seen) EXPECT_EQ(s, 1) << g.str();
  }
  EXPECT_EQ(ReplicaGrouping(8, 1, 2).getTranspose(), ReplicaGrouping(8, 2, 4));
  EXPECT_EQ(CommGroup(ReplicaGrouping(8, 4, 2)), CommGroup(CommGroupType::Orthogonal, 2));
  expectError([] { ReplicaGrouping(6, 1, 4); }, {"numReplicas (6) must be a multiple of stride (1) * groupSize (4)"});
}

TEST(Replicas, VariableSettingsReturnShapes) {
  // PopART's example: a [2, 3, 4] weight, 4 replicas, Consecutive groups of 2.
  const CommGroup cg(CommGroupType::Consecutive, 2);
  const VariableSettings one(cg, VariableRetrievalMode::OnePerGroup), all(cg, VariableRetrievalMode::AllReplicas);
  EXPECT_EQ(one.getGroupCount(4), 2u);
  EXPECT_EQ(one.numReplicasReturningVariable(4), 2u);
  EXPECT_EQ(all.numReplicasReturningVariable(4), 4u);
  EXPECT_EQ(one.shapeOnHost({2, 3, 4}, 4), (Shape{2, 2, 3, 4}));
  EXPECT_EQ(one.shapeOnReplica({2, 2, 3, 4}, 4, "w"), (Shape{2, 3, 4}));
  EXPECT_EQ(VariableSettings().shapeOnHost({2, 3}, 4), (Shape{2, 3}));  // one group: no outer dimension
  EXPECT_EQ(one.getGroupRepresentative(1), 2u);
  EXPECT_EQ(VariableSettings(CommGroup(CommGroupType::Orthogonal, 2)).getGroupRepresentative(1), 1u);
  EXPECT_EQ(one.getRealGroupSize(4), 2u);
  EXPECT_EQ(VariableSettings(CommGroup(CommGroupType::Orthogonal, 2)).getStride(4), 2u);
  expectError(
      [&] {
        one.shapeOnReplica({3, 2, 3, 4}, 4, "w");
      },
      {"Return mismatch with possibly appended outer dimension (3) of Tensor: \"w\". should match numGroups: 2"});
  expectError([] { VariableSettings(CommGroup(CommGroupType::Consecutive, 0)); }, {"VariableSettings had 1 errors!"});
  expectError([&] { one.getGroupCount(3); }, {"replication factor 3 is not a multiple of the replica group size 2"});
  EXPECT_EQ(VariableSettings::deserialize(all.serialize()), all);
  const VariableSettings byGrouping(ReplicaGrouping(4, 2, 2), VariableRetrievalMode::AllReplicas);
  EXPECT_EQ(VariableSettings::deserialize(byGrouping.serialize()), byGrouping);
}

/// y = x * w, w [3] grouped by `vs` (init [groups, 3] when there is more than one group).
std::string groupedMul(const VariableSettings& vs, const std::vector<float>& init, const Shape& initShape, TensorId* x,
                       TensorId* w, TensorId* y) {
  auto b = Builder::create();
  *x = b->addInputTensor("FLOAT", {3}, "x");
  *w = b->addInitializedInputTensor(ConstVoidData(init.data(), TensorInfo(DataType::FLOAT, initShape)), vs, "w");
  *y = b->aiOnnxOpset11().mul({*x, *w});
  b->addOutputTensor(*y);
  return b->getModelProto();
}

SessionOptions replicas(int64_t n) {
  SessionOptions o;
  o.enableReplicatedGraphs = true;
  o.replicatedGraphCount = n;
  o.constantWeights = false;
  return o;
}

struct GroupedRun {
  std::unique_ptr<InferenceSession> s;
  TensorId x, w, y;
};

GroupedRun makeGrouped(const VariableSettings& vs, const std::vector<float>& init, const Shape& shape, int64_t r) {
  GroupedRun g;
  const std::string proto = groupedMul(vs, init, shape, &g.x, &g.w, &g.y);
  g.s = InferenceSession::createFromOnnxModel(proto, DataFlow(1, {g.y}), test::cpu(), InputShapeInfo(), replicas(r));
  g.s->prepareDevice();
  return g;
}

std::vector<float> runGrouped(GroupedRun& g, const std::vector<float>& xs, int64_t r) {
  std::map<TensorId, NDArray> in{{g.x, NDArray::fromVector(xs, {r, 3})}};
  auto out = g.s->initAnchorArrays();
  EXPECT_EQ(out.at(g.y).info().shape(), (Shape{r, 3}));
  StepIO io(arrayRefs(in), arrayRefs(out));
  g.s->run(io);
  const float* p = static_cast<const float*>(out.at(g.y).data());
  return std::vector<float>(p, p + r * 3);
}

/// y[r] = x[r] * w[group of replica r], in double.
void expectPerGroup(const std::vector<float>& y, const std::vector<float>& xs, const std::vector<float>& w,
                    const ReplicaGrouping& grouping) {
  for (unsigned r = 0; r < grouping.getNumReplicas(); ++r) {
    const unsigned g = grouping.getGroupAt(r);
    for (int i = 0; i < 3; ++i)
      EXPECT_FLOAT_EQ(y[r * 3 + i], static_cast<float>(double(xs[r * 3 + i]) * w[g * 3 + i])) << "replica " << r;
  }
}

TEST(Replicas, GroupedWeightsRunPerGroupAtInferenceReplicas) {
  const std::vector<float> w = test::randomFloats(6, 1), xs = test::randomFloats(12, 2);
  for (CommGroupType t : {CommGroupType::Consecutive, CommGroupType::Orthogonal}) {
    const VariableSettings vs(CommGroup(t, 2), VariableRetrievalMode::OnePerGroup);
    GroupedRun g = makeGrouped(vs, w, {2, 3}, 4);
    EXPECT_EQ(g.s->getInfo(g.w).shape(), (Shape{3}));  // the per-replica shape
    expectPerGroup(runGrouped(g, xs, 4), xs, w, vs.getReplicaGrouping(4));

    // readWeights: one value per group (OnePerGroup), exactly the init value.
    NDArray back(DataType::FLOAT, {2, 3});
    WeightsIO rd;
    rd.insert(g.w, {back.data(), back.info()});
    g.s->weightsToHost();
    g.s->readWeights(rd);
    EXPECT_EQ(std::vector<float>(static_cast<float*>(back.data()), static_cast<float*>(back.data()) + 6), w);

    // writeWeights takes effect at weightsFromHost (PopART's host/device split).
    const std::vector<float> w2 = test::randomFloats(6, 3);
    NDArray src = NDArray::fromVector(w2, {2, 3});
    WeightsIO wr;
    wr.insert(g.w, {src.data(), src.info()});
    g.s->writeWeights(wr);
    expectPerGroup(runGrouped(g, xs, 4), xs, w, vs.getReplicaGrouping(4));
    g.s->weightsFromHost();
    expectPerGroup(runGrouped(g, xs, 4), xs, w2, vs.getReplicaGrouping(4));

    // modelToHost keeps every group's value: a session of the saved model runs the same.
    const std::string saved = g.s->modelToHostBytes();
    auto s2 =
        InferenceSession::createFromOnnxModel(saved, DataFlow(1, {g.y}), test::cpu(), InputShapeInfo(), replicas(4));
    s2->prepareDevice();
    GroupedRun g2{std::move(s2), g.x, g.w, g.y};
    expectPerGroup(runGrouped(g2, xs, 4), xs, w2, vs.getReplicaGrouping(4));
  }
}

TEST(Replicas, AllReplicasRetrievalAndBufferErrors) {
  const std::vector<float> w = test::randomFloats(6, 4);
  const VariableSettings vs(CommGroup(CommGroupType::Consecutive, 2), VariableRetrievalMode::AllReplicas);
  GroupedRun g = makeGrouped(vs, w, {2, 3}, 4);
  NDArray back(DataType::FLOAT, {4, 3});
  WeightsIO rd;
  rd.insert(g.w, {back.data(), back.info()});
  g.s->readWeights(rd);
  const float* p = static_cast<const float*>(back.data());
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 3; ++i) EXPECT_EQ(p[r * 3 + i], w[(r / 2) * 3 + i]) << r;
  NDArray small(DataType::FLOAT, {2, 3});
  WeightsIO bad;
  bad.insert(g.w, {small.data(), small.info()});
  expectError([&] { g.s->readWeights(bad); }, {"readWeights: the buffer for 'w'", "FLOAT [4 3]", "4 values of [3]"});
}

TEST(Replicas, GroupShapeErrorsAtSessionCreation) {
  TensorId x, w, y;
  const std::vector<float> init(9, 1.0f);
  const std::string proto =
      groupedMul(VariableSettings(CommGroup(CommGroupType::Consecutive, 2)), init, {3, 3}, &x, &w, &y);
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(proto, DataFlow(1, {y}), test::cpu(), InputShapeInfo(), replicas(4));
      },
      {"Return mismatch with possibly appended outer dimension (3) of Tensor: \"w\". should match numGroups: 2",
       "weight 'w', at replication factor 4"});
  // At replication factor 1 a Consecutive group of 2 cannot exist.
  expectError([&] { InferenceSession::createFromOnnxModel(proto, DataFlow(1, {y}), test::cpu()); },
              {"replication factor 1 is not a multiple of the replica group size 2"});
}

TEST(Replicas, OneGroupIsAnOrdinaryWeight) {
  // CommGroup All at replication 1 (and 2): no group dimension, results as without settings.
  const std::vector<float> w = test::randomFloats(3, 5), xs = test::randomFloats(6, 6);
  GroupedRun g = makeGrouped(VariableSettings(), w, {3}, 2);
  const std::vector<float> y = runGrouped(g, xs, 2);
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(y[r * 3 + i], xs[r * 3 + i] * w[i]);
}

TEST(Replicas, BroadcastInputFeedsEveryReplica) {
  auto b = Builder::create();
  const TensorId x =
      b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), InputSettings(ReplicatedStreamMode::Broadcast), "x");
  const TensorId z = b->addInputTensor("FLOAT", {2}, InputSettings(TileSet::IO, ExchangeStrategy::OverlapLoops), "z");
  const TensorId y = b->aiOnnxOpset11().add({x, z});
  b->addOutputTensor(y);
  const int64_t r = 3, bps = 2;
  SessionOptions o = replicas(r);
  auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(static_cast<int>(bps), {y}), test::cpu(),
                                                 InputShapeInfo(), o);
  s->prepareDevice();
  const std::vector<float> xs = test::randomFloats(4, 7), zs = test::randomFloats(12, 8);
  std::map<TensorId, NDArray> in{{x, NDArray::fromVector(xs, {bps, 2})}, {z, NDArray::fromVector(zs, {bps, r, 2})}};
  auto out = s->initAnchorArrays();
  ASSERT_EQ(out.at(y).info().shape(), (Shape{bps, r, 2}));
  StepIO io(arrayRefs(in), arrayRefs(out));
  s->run(io);
  const float* p = static_cast<const float*>(out.at(y).data());
  for (int64_t bi = 0; bi < bps; ++bi)
    for (int64_t ri = 0; ri < r; ++ri)
      for (int i = 0; i < 2; ++i) EXPECT_FLOAT_EQ(p[(bi * r + ri) * 2 + i], xs[bi * 2 + i] + zs[(bi * r + ri) * 2 + i]);
  // A Broadcast input given a replica dimension has the wrong element count.
  std::map<TensorId, NDArray> wrong{{x, NDArray::fromVector(zs, {bps, r, 2})},
                                    {z, NDArray::fromVector(zs, {bps, r, 2})}};
  StepIO bad(arrayRefs(wrong), arrayRefs(out));
  expectError([&] { s->run(bad); }, {"Broadcast input"});
}

TEST(Replicas, SupportedOperationsDefinitionComesFromTheTables) {
  const OpDefinitions defs = OpManager::getSupportedOperationsDefinition(false);
  EXPECT_EQ(defs.size(), OpManager::getSupportedOperations(false).size());
  const OpDefinition* reshape = nullptr;
  const OpDefinition* conv = nullptr;
  for (const auto& kv : defs) {
    if (kv.first.type == "Reshape") reshape = &kv.second;
    if (kv.first.type == "Conv") conv = &kv.second;
    EXPECT_NE(kv.first.domain, "internal");
  }
  ASSERT_TRUE(reshape && conv);
  ASSERT_EQ(reshape->inputs.size(), 2u);
  EXPECT_EQ(reshape->inputs[1].name, "shape");
  EXPECT_TRUE(reshape->inputs[1].constant);  // from the op list: its value decides the shape
  EXPECT_FALSE(reshape->inputs[0].constant);
  EXPECT_EQ(reshape->inputs[1].supportedTensors, (OpDefinition::DataTypes{DataType::INT64}));
  EXPECT_EQ(conv->attributes.count("strides"), 1u);
  EXPECT_EQ(conv->attributes.at("strides").supportedValuesRegex, "*");
  EXPECT_GT(OpManager::getSupportedOperationsDefinition(true).size(), defs.size());
}

TEST(Replicas, UnsupportedOperationsAreTheSchemasMinusTheOpList) {
  for (int opset : {9, 11, 13}) {
    std::set<std::string> u;
    for (const auto& o : OpManager::getUnsupportedOperations(opset)) {
      EXPECT_EQ(o.domain, Domain::ai_onnx);
      EXPECT_LE(o.version, opset) << o.type;  // the schema version in force at that opset
      u.insert(o.type);
    }
    for (const auto& o : OpManager::getSupportedOperations(false)) {
      if (o.domain == Domain::ai_onnx && o.version <= opset) {
        EXPECT_EQ(u.count(o.type), 0u) << o.type << " " << opset;
      }
    }
  }
  // Ops of a later opset only are not ops of opset 9 at all.
  for (const auto& o : OpManager::getUnsupportedOperations(9)) EXPECT_NE(o.type, "GridSample");
  expectError([] { OpManager::getUnsupportedOperations(0); }, {"opsetVersion must be at least 1"});
}

TEST(Replicas, DebugInfoRecordsBuilderAndIrOps) {
  const std::string fn = ::testing::TempDir() + "replicas_debug.json";
  std::remove(fn.c_str());
  initializePoplarDebugInfo(fn, "json");
  expectError([&] { initializePoplarDebugInfo(fn); }, {"already being recorded"});
  TensorId y;
  {
    auto b = Builder::create();
    const TensorId x = b->addInputTensor("FLOAT", {2}, "data");
    y = b->aiOnnxOpset11().relu({x}, "myrelu");
    b->addOutputTensor(y);
    auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu());
    DebugInfo di(DebugContext("mine"), "unit_test");
    di.setValue("arg", "42");
  }
  const std::string text = closePoplarDebugInfoToString();
  std::ifstream f(fn);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), text);
  const auto j = nlohmann::json::parse(text);
  const auto& strings = j.at("stringTable");
  int builderRelu = -1, irRelu = -1, parent = -2, mine = 0;
  for (const auto& c : j.at("contexts")) {
    const std::string name = strings.at(c.at("name").get<size_t>());
    if (c.at("layer") == "popartbuilder" && name == "myrelu") {
      builderRelu = c.at("id");
      EXPECT_EQ(c.at("opid"), "ai.onnx.Relu:11");
      EXPECT_EQ(c.at("outputs"), nlohmann::json::array({y}));
    }
    if (c.at("layer") == "popart" && c.at("category") == "op") {
      irRelu = c.at("id");
      parent = c.value("parentId", -1);
    }
    if (c.at("layer") == "unit_test" && name == "mine") mine = c.at("arg") == "42";
  }
  EXPECT_GE(builderRelu, 0);
  EXPECT_GT(irRelu, builderRelu);
  EXPECT_EQ(parent, builderRelu);
  EXPECT_EQ(mine, 1);
  expectError([] { closePoplarDebugInfo(); }, {"initializePoplarDebugInfo was not called"});
  expectError([] { initializePoplarDebugInfo("x.cbor", "cbor"); }, {"unsupported format 'cbor'"});
}

// Poplar writes a DebugInfo when it is destroyed: a context made under another (while the outer
// DebugInfo lives) comes first in the file. Ids count from 1 in each recording.
TEST(Replicas, DebugInfoWrittenWhenItEnds) {
  initializePoplarDebugInfo("", "json");
  {
    DebugInfo outer(DebugContext(), "unit_test");
    outer.setValue("arg", "42");
    DebugInfo inner(DebugContext(outer, "inner"), "unit_test");
    inner.setValue("arg", "123");
  }
  const auto j = nlohmann::json::parse(closePoplarDebugInfoToString());
  const auto& contexts = j.at("contexts");
  ASSERT_EQ(contexts.size(), 2u);
  EXPECT_EQ(contexts[0].at("arg"), "123");
  EXPECT_EQ(contexts[0].at("parentId"), 1);
  EXPECT_EQ(j.at("stringTable").at(contexts[0].at("name").get<size_t>()), "inner");
  EXPECT_EQ(contexts[1].at("id"), 1);
  EXPECT_EQ(contexts[1].at("arg"), "42");
  EXPECT_FALSE(contexts[1].contains("parentId"));
}

}  // namespace
}  // namespace popart
