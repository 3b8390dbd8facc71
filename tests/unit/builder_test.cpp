// The Builder: PopART's naming rules, attributes, scopes, introspection, and running what it builds.
#include "common/test_util.hpp"
#include "onnx.pb.h"

namespace popart {
namespace {

using test::expectError;

TEST(Builder, TensorNamingRules) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto in0 = b->addInputTensor(TensorInfo("FLOAT", {2}));
  auto in1 = b->addInputTensor("FLOAT", {2});
  EXPECT_EQ(in0, "input");
  EXPECT_EQ(in1, "input/1");
  std::vector<float> v{1, 2};
  EXPECT_EQ(b->addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo("FLOAT", {2}))), "init_input");
  auto s0 = ai.add({in0, in1});
  auto s1 = ai.add({in0, in1});
  EXPECT_EQ(s0, "Add:0");
  EXPECT_EQ(s1, "Add:0/1");
  EXPECT_EQ(ai.relu({s0}, "myrelu"), "myrelu:0");
  b->pushNameScope("enc");
  b->pushNameScope("layer1");
  EXPECT_EQ(ai.relu({s0}), "enc/layer1/Relu:0");
  EXPECT_EQ(b->getNameScope("x"), "enc/layer1/x");
  b->popNameScope();
  b->popNameScope();
  expectError([&] { b->popNameScope(); }, {"no name scope"});
  auto outs = ai.split({b->addInputTensor("FLOAT", {4})}, 2, 0, {2, 2});
  EXPECT_EQ(outs, (std::vector<TensorId>{"Split:0", "Split:1"}));
}

TEST(Builder, ShapeInferenceAndIntrospection) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto x = b->addInputTensor(TensorInfo("FLOAT", {1, 3, 8, 8}), "x");
  std::vector<float> wv(16 * 3 * 3 * 3, 0.5f);
  auto w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo("FLOAT", {16, 3, 3, 3})), "w");
  auto c = ai.conv({x, w}, {1, 1}, 1, {3, 3}, {1, 1, 1, 1}, {2, 2});
  EXPECT_EQ(b->getTensorShape(c), (Shape{1, 16, 4, 4}));
  auto f = ai.flatten({c});
  EXPECT_EQ(b->getTensorShape(f), (Shape{1, 256}));
  std::vector<int64_t> shp{4, 64};
  auto s = ai.constant(ConstVoidData(shp.data(), TensorInfo("INT64", {2})));
  auto r = ai.reshape({f, s});
  EXPECT_EQ(b->getTensorShape(r), (Shape{4, 64}));  // needs the constant's value
  EXPECT_EQ(b->getTensorDtypeString(r), "float32");
  EXPECT_EQ(b->getTensorDataType(ai.shape({r})), DataType::INT64);
  EXPECT_TRUE(b->isInitializer(w));
  EXPECT_FALSE(b->isInitializer(x));
  b->addOutputTensor(r);
  EXPECT_EQ(b->getInputTensorIds(), (std::vector<TensorId>{"x", "w"}));
  EXPECT_EQ(b->getOutputTensorIds(), (std::vector<TensorId>{r}));
  EXPECT_EQ(b->getTrainableTensorIds(), (std::vector<TensorId>{"w"}));
  EXPECT_EQ(b->getValueTensorIds().size(), 5u);
  EXPECT_NE(b->getModelProto(true).find("Conv"), std::string::npos);
  EXPECT_EQ(b->getOnnxOpsetVersion(), 11);
}

// The Builder's shape inference is ONNX's, as PopART's Builder runs it: the logical ops do not
// check their inputs' types there (a session does), and Subsample's shape is floor(d / stride)
// there (PopART's inference function) while the op outputs ceil(d / stride) elements.
TEST(Builder, ShapeInferenceIsAsLenientAsPopARTs) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 1, 3}), "x");
  const TensorId y = b->addInputTensor(TensorInfo("FLOAT", {4, 1}), "y");
  for (const TensorId& o : {ai.logical_and({x, y}), ai.logical_or({x, y}), ai.logical_xor({x, y})}) {
    EXPECT_EQ(b->getTensorShape(o), (Shape{2, 4, 3}));
    EXPECT_EQ(b->getTensorDataType(o), DataType::BOOL);
  }
  const TensorId n = ai.logical_not({x});
  EXPECT_EQ(b->getTensorShape(n), (Shape{2, 1, 3}));
  b->addOutputTensor(n);
  test::expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {n}), test::cpu()); },
                    {"input 0 ('x') must be one of BOOL, but it is FLOAT [2 1 3]"});

  auto b2 = Builder::create();
  const TensorId in = b2->addInputTensor(TensorInfo("FLOAT", {10, 9, 8, 7}), "in");
  const TensorId sub = b2->aiGraphcoreOpset1().subsample({in}, {2, 3, 4, 5});
  EXPECT_EQ(b2->getTensorShape(sub), (Shape{5, 3, 2, 1}));
  b2->addOutputTensor(sub);
  std::vector<float> v(10 * 9 * 8 * 7, 1.0f);
  const auto out = test::runOnce(b2->getModelProto(), {{in, NDArray::fromVector(v, {10, 9, 8, 7})}}, {sub});
  EXPECT_EQ(out.at(sub).shape(), (Shape{5, 3, 2, 2}));
}

TEST(Builder, NodeAttributes) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto x = b->addInputTensor("FLOAT", {2});
  auto y = ai.relu({x});
  b->addNodeAttribute("test", int64_t(3), {y});
  expectError([&] { b->addNodeAttribute("test", int64_t(4), {y}); }, {"Node already has attribute test."});
  EXPECT_TRUE(b->nodeHasAttribute("test", {y}));
  EXPECT_EQ(b->getInt64NodeAttribute("test", {y}), 3);
  b->addNodeAttribute("f", 1.5f, {y});
  b->addNodeAttribute("fs", std::vector<float>{1, 2}, {y});
  b->addNodeAttribute("is", std::vector<int64_t>{1, 2}, {y});
  b->addNodeAttribute("s", "hello", {y});
  b->addNodeAttribute("ss", std::vector<std::string>{"a", "b"}, {y});
  EXPECT_FLOAT_EQ(b->getFloatNodeAttribute("f", {y}), 1.5f);
  EXPECT_EQ(b->getFloatVectorNodeAttribute("fs", {y}), (std::vector<float>{1, 2}));
  EXPECT_EQ(b->getInt64VectorNodeAttribute("is", {y}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(b->getStringNodeAttribute("s", {y}), "hello");
  EXPECT_EQ(b->getStringVectorNodeAttribute("ss", {y}), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(b->getAllNodeAttributeNames({y}).size(), 6u);
  expectError([&] { b->getInt64NodeAttribute("test1", {y}); }, {"Node does not have an attribute test1."});
  expectError([&] { b->getStringNodeAttribute("f", {y}); }, {"is not a string"});
  b->removeNodeAttribute("test", {y});
  EXPECT_FALSE(b->nodeHasAttribute("test", {y}));
  expectError([&] { b->removeNodeAttribute("test", {y}); }, {"Cannot remove attribute test as it does not exist."});
  expectError([&] { b->nodeHasAttribute("x", {"nope"}); }, {"Could not find a node with outputs nope"});
}

TEST(Builder, IpuAnnotationsAreNodeAttributes) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto x = b->addInputTensor("FLOAT", {2});
  auto y = ai.relu({x});
  b->virtualGraph(y, 1);
  b->pipelineStage(y, 2);
  EXPECT_EQ(b->getVirtualGraph(y), 1);
  EXPECT_EQ(b->getPipelineStage(y), 2);
  expectError([&] { b->getExecutionPhase(y); }, {"Node does not have an attribute __execution_phase."});
  expectError([&] { b->getExecutionPhase(); }, {"Execution phase not set in current scope."});
  // The set forms: the node making all of these outputs (TopK's values and indices).
  const auto topk = ai.topk({y, test::constant<int64_t>(ai, {1}, {1})}, 0);
  const std::set<TensorId> both(topk.begin(), topk.end());
  b->virtualGraph(both, 4);
  b->pipelineStage(both, 5);
  b->executionPhase(both, 6);
  EXPECT_EQ(b->getVirtualGraph(both), 4);
  EXPECT_EQ(b->getPipelineStage(both), 5);
  EXPECT_EQ(b->getExecutionPhase(both), 6);
  EXPECT_EQ(b->getExecutionPhase(topk[1]), 6);
  expectError([&] { b->getVirtualGraph({topk[0], y}); }, {"Could not find a node with outputs"});
  b->setExecutionPhase(7);
  EXPECT_EQ(b->getExecutionPhase(), 7);
  b->clearAttribute(sExecutionPhaseAttribute);
  b->setVirtualGraph(3);  // scoped: every node added now gets it
  auto z = ai.sigmoid({y});
  b->clearAttribute(sVirtualGraphAttribute);
  EXPECT_EQ(b->getInt64NodeAttribute(sVirtualGraphAttribute, {z}), 3);
  auto u = ai.tanh({z});
  EXPECT_FALSE(b->nodeHasAttribute(sVirtualGraphAttribute, {u}));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(b->getModelProto()));
  bool seen = false;
  for (const auto& a : m.graph().node(0).attribute()) seen = seen || a.name() == "__ipu_number";
  EXPECT_TRUE(seen);
  expectError([&] { b->setSerializeMatMul({y}, "diagonal"); }, {"Unsupported mat mul serialization mode 'diagonal'"});
  expectError([&] { b->setAvailableMemoryProportion(y, 1.5f); }, {"availableMemoryProportion must be in (0,1]"});
  // Annotated models still run on the CPU.
  b->addOutputTensor(u);
  NDArray in = NDArray::fromVector(std::vector<float>{0, 1}, {2});
  auto out = test::runOnce(b->getModelProto(), {{x, in}}, {u});
  EXPECT_NEAR(out.at(u).dataAs<float>()[0], std::tanh(0.5f), 1e-6);
}

// setEnableConvDithering: Conv only, 0 or 1, PopART's messages; the attribute is PopART's and the
// convolution's result is unchanged.
TEST(Builder, EnableConvDithering) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto x = b->addInputTensor("FLOAT", {1, 1, 3, 3});
  const std::vector<float> wv(4, 0.5f);
  auto w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo("FLOAT", {1, 1, 2, 2})));
  auto c = ai.conv({x, w}, {1, 1}, 1, {2, 2}, {0, 0, 0, 0}, {1, 1});
  auto r = ai.relu({c});
  expectError([&] { b->setEnableConvDithering(r, 1); },
              {"Builder::setEnableConvDithering should only be called on convolutions but was given: Relu"});
  expectError([&] { b->setEnableConvDithering(c, 44); }, {"enableConvDithering must be a bool value"});
  b->setEnableConvDithering(c, 1);
  b->setEnableConvDithering(c, 0);  // set again: replaces
  EXPECT_EQ(b->getInt64NodeAttribute(sEnableConvDitheringAttribute, {c}), 0);
  b->addOutputTensor(r);
  NDArray in = NDArray::fromVector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  auto out = test::runOnce(b->getModelProto(), {{x, in}}, {r});
  EXPECT_EQ(out.at(r).toVector<float>(), (std::vector<float>{6, 8, 12, 14}));
}

TEST(Builder, GraphcoreOps) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto gc = b->aiGraphcoreOpset1();
  auto probs = b->addInputTensor("FLOAT", {2, 4});
  auto label = b->addInputTensor("INT32", {2});
  auto sm = ai.softmax({probs});
  auto nll = gc.nllloss({sm, label}, ReductionType::Sum);
  auto l1 = gc.l1loss({probs}, 0.5f, ReductionType::Mean);
  auto id = gc.identityloss({probs}, ReductionType::NoReduction);
  auto sc = gc.scale({probs}, 3.0f);
  EXPECT_EQ(b->getTensorShape(nll), Shape{});
  EXPECT_EQ(b->getTensorShape(id), (Shape{2, 4}));
  std::vector<float> p{1, 2, 3, 4, -1, 0, 1, 0};
  std::vector<int32_t> l{3, 0};
  std::map<TensorId, NDArray> in;
  in.emplace(probs, NDArray::fromVector(p, {2, 4}));
  in.emplace(label, NDArray::fromVector(l, {2}));
  auto out = test::runOnce(b->getModelProto(), in, {nll, l1, sc});
  double ref = 0;
  for (int r = 0; r < 2; ++r) {
    double mx = -1e9, sum = 0;
    for (int c = 0; c < 4; ++c) mx = std::max<double>(mx, p[r * 4 + c]);
    for (int c = 0; c < 4; ++c) sum += std::exp(p[r * 4 + c] - mx);
    ref += -(p[r * 4 + l[r]] - mx - std::log(sum));
  }
  EXPECT_NEAR(out.at(nll).dataAs<float>()[0], ref, 1e-5);
  EXPECT_NEAR(out.at(l1).dataAs<float>()[0], 0.5 * 12 / 8, 1e-6);
  EXPECT_FLOAT_EQ(out.at(sc).dataAs<float>()[3], 12.0f);
  // Label shape errors follow PopART's message.
  auto bad = b->addInputTensor("INT32", {2, 5});
  auto badNll = gc.nllloss({sm, bad});
  expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {badNll}), test::cpu()); },
              {"The label tensor (INT32   [2 5]) must have shape [2] to match all but the final dimension of the "
               "probabilities tensor"});
}

TEST(Builder, CustomOpKnownToTheRuntimeRuns) {
  auto b = Builder::create();
  b->aiOnnxOpset11();
  auto x = b->addInputTensor("FLOAT", {3});
  auto y = b->customOp(OperatorIdentifier("ai.onnx", "Neg", 11), 11, {x}, 1, {}, "neg")[0];
  NDArray in = NDArray::fromVector(std::vector<float>{1, -2, 3}, {3});
  auto out = test::runOnce(b->getModelProto(), {{x, in}}, {y});
  EXPECT_FLOAT_EQ(out.at(y).dataAs<float>()[1], 2.0f);
}

TEST(Builder, RoundTripThroughCreateFromOnnxModel) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto x = b->addInputTensor("FLOAT", {2, 2}, "x");
  auto y = ai.transpose({x}, {1, 0});
  b->addOutputTensor(y);
  auto b2 = Builder::createFromOnnxModel(b->getModelProto());
  EXPECT_EQ(b2->getTensorShape(y), (Shape{2, 2}));
  auto ai2 = b2->aiOnnxOpset11();
  auto z = ai2.neg({y});
  EXPECT_EQ(z, "Neg:0");
  b2->addOutputTensor(z);
  NDArray in = NDArray::fromVector(std::vector<float>{1, 2, 3, 4}, {2, 2});
  auto out = test::runOnce(b2->getModelProto(), {{x, in}}, {z});
  EXPECT_FLOAT_EQ(out.at(z).dataAs<float>()[1], -3.0f);
  const std::string path = std::string(POPART_TEST_TMPDIR) + "_builder.onnx";
  b2->saveModelProto(path);
  auto b3 = Builder::createFromOnnxModel(path);
  EXPECT_EQ(b3->getOutputTensorIds().size(), 2u);
}

TEST(Builder, AllOpsetsConstructible) {
  // Every aiOnnxOpsetN exists and fixes the model's opset.
  for (int v = 6; v <= 17; ++v) {
    auto b = Builder::create();
    switch (v) {
      case 6:
        b->aiOnnxOpset6();
        break;
      case 7:
        b->aiOnnxOpset7();
        break;
      case 8:
        b->aiOnnxOpset8();
        break;
      case 9:
        b->aiOnnxOpset9();
        break;
      case 10:
        b->aiOnnxOpset10();
        break;
      case 11:
        b->aiOnnxOpset11();
        break;
      case 12:
        b->aiOnnxOpset12();
        break;
      case 13:
        b->aiOnnxOpset13();
        break;
      case 14:
        b->aiOnnxOpset14();
        break;
      case 15:
        b->aiOnnxOpset15();
        break;
      case 16:
        b->aiOnnxOpset16();
        break;
      case 17:
        b->aiOnnxOpset17();
        break;
    }
    EXPECT_EQ(b->getOnnxOpsetVersion(), v);
  }
}

}  // namespace
}  // namespace popart
