// The bad-input table: every case gives a popart::error naming what the user wrote, never an
// abort (this file also runs under ASan + UBSan).
#include <fstream>

#include "common/test_util.hpp"
#include "onnx.pb.h"

namespace popart {
namespace {

using test::expectError;

struct AddModel {
  std::string proto;
  TensorId a, b, out;
};

AddModel addModel() {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset11();
  AddModel m;
  m.a = builder->addInputTensor(TensorInfo("FLOAT", {2, 3}), "a");
  m.b = builder->addInputTensor(TensorInfo("FLOAT", {2, 3}), "b");
  m.out = ai.add({m.a, m.b});
  builder->addOutputTensor(m.out);
  m.proto = builder->getModelProto();
  return m;
}

std::unique_ptr<InferenceSession> session(const std::string& proto, const DataFlow& df) {
  return InferenceSession::createFromOnnxModel(proto, df, test::cpu());
}

TEST(BadModel, CorruptBytes) {
  std::string junk(200, '\0');
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>((i * 7919) % 251);
  expectError([&] { session(junk, DataFlow(1, {"y"})); }, {"Failed to load a ModelProto", "corrupt or truncated"});
}

TEST(BadModel, TruncatedBytes) {
  const AddModel m = addModel();
  for (size_t cut : {m.proto.size() / 2, m.proto.size() - 3, size_t(5)}) {
    expectError([&] { session(m.proto.substr(0, cut), DataFlow(1, {m.out})); }, {"ModelProto"});
  }
}

TEST(BadModel, EmptyString) {
  expectError([&] { session("", DataFlow(1, {"y"})); }, {"Failed to load a ModelProto"});
}

TEST(BadModel, PathDoesNotExist) {
  expectError([&] { session("/no/such/dir/model.onnx", DataFlow(1, {"y"})); },
              {"Failed to load a ModelProto from the string '/no/such/dir/model.onnx'",
               "Check that it is either a valid path to an existing onnx model file, or is a valid onnx ModelProto "
               "string."});
}

TEST(BadModel, FileWithGarbage) {
  const std::string path = std::string(POPART_TEST_TMPDIR) + "_garbage.onnx";
  std::ofstream(path) << "this is not a model";
  expectError([&] { session(path, DataFlow(1, {"y"})); }, {"the file '" + path + "'", "not a valid serialized"});
}

TEST(BadModel, UnknownOpNamesNodeOpDomainOpset) {
  auto builder = Builder::create();
  builder->aiOnnxOpset11();
  auto x = builder->addInputTensor(TensorInfo("FLOAT", {4}));
  auto y = builder->customOp(OperatorIdentifier("com.acme", "FrobnicateOp", 3), 3, {x}, 1, {}, "frob")[0];
  builder->addOutputTensor(y);
  expectError([&] { session(builder->getModelProto(), DataFlow(1, {y})); },
              {"Unknown op", "'frob", "FrobnicateOp", "com.acme", "opset 3"});
}

TEST(BadModel, UnknownOnnxOp) {
  auto builder = Builder::create();
  builder->aiOnnxOpset11();
  auto x = builder->addInputTensor(TensorInfo("FLOAT", {4}));
  auto y = builder->customOp(OperatorIdentifier("ai.onnx", "NoSuchOnnxOp", 11), 11, {x}, 1, {}, "n")[0];
  expectError([&] { session(builder->getModelProto(), DataFlow(1, {y})); },
              {"Unknown op", "NoSuchOnnxOp", "ai.onnx", "opset 11"});
}

TEST(BadModel, UnsupportedOpset) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(addModel().proto));
  m.mutable_opset_import(0)->set_version(99);
  std::string bytes;
  m.SerializeToString(&bytes);
  expectError([&] { session(bytes, DataFlow(1, {"Add:0"})); }, {"Unsupported opset", "opset 99", "1 to 17"});
}

TEST(BadModel, OpNewerThanOpset) {
  // LayerNormalization exists from opset 17.
  auto builder = Builder::create();
  builder->aiOnnxOpset13();
  auto x = builder->addInputTensor(TensorInfo("FLOAT", {2, 4}));
  auto s = builder->addInputTensor(TensorInfo("FLOAT", {4}));
  auto y = builder->customOp(OperatorIdentifier("ai.onnx", "LayerNormalization", 13), 13, {x, s}, 1, {}, "ln")[0];
  expectError([&] { session(builder->getModelProto(), DataFlow(1, {y})); },
              {"Unsupported opset", "LayerNormalization", "opset 17", "opset 13"});
}

TEST(BadModel, MissingRequiredAttribute) {
  auto builder = Builder::create();
  builder->aiOnnxOpset11();
  auto x = builder->addInputTensor(TensorInfo("FLOAT", {2, 2}));
  // Concat needs `axis` from opset 4.
  auto y = builder->customOp(OperatorIdentifier("ai.onnx", "Concat", 11), 11, {x, x}, 1, {}, "cat")[0];
  expectError([&] { session(builder->getModelProto(), DataFlow(1, {y})); },
              {"node 'cat", "(Concat, opset 11", "required attribute 'axis' is missing"});
}

TEST(BadModel, IllTypedAttribute) {
  auto builder = Builder::create();
  builder->aiOnnxOpset11();
  auto x = builder->addInputTensor(TensorInfo("FLOAT", {2, 3}));
  auto y = builder->customOp(OperatorIdentifier("ai.onnx", "Transpose", 11), 11, {x}, 1, {{"perm", std::string("1,0")}},
                             "tr")[0];
  expectError([&] { session(builder->getModelProto(), DataFlow(1, {y})); },
              {"node 'tr", "Transpose", "attribute 'perm' must be INTS, but it is STRING"});
}

TEST(BadModel, ShapeMismatchNamesNodeAndShapes) {
  auto builder = Builder::create();
  builder->aiOnnxOpset11();
  auto a = builder->addInputTensor(TensorInfo("FLOAT", {2, 3}), "a");
  auto b = builder->addInputTensor(TensorInfo("FLOAT", {4}), "b");
  auto y = builder->customOp(OperatorIdentifier("ai.onnx", "Add", 11), 11, {a, b}, 1, {}, "add")[0];
  expectError([&] { session(builder->getModelProto(), DataFlow(1, {y})); },
              {"while inferring shapes for node 'add", "(Add, opset 11", "input 'a' FLOAT [2 3]", "[4]"});
}

TEST(BadModel, WrongInputCountInModel) {
  auto builder = Builder::create();
  builder->aiOnnxOpset11();
  auto a = builder->addInputTensor(TensorInfo("FLOAT", {2}));
  auto y = builder->customOp(OperatorIdentifier("ai.onnx", "Add", 11), 11, {a, a, a}, 1, {}, "add3")[0];
  expectError([&] { session(builder->getModelProto(), DataFlow(1, {y})); }, {"'add3", "has 3 inputs", "Add takes 2"});
}

TEST(BadModel, DynamicInputShapeNeedsInputShapeInfo) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(addModel().proto));
  auto* dim =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  dim->set_dim_param("batch");
  std::string bytes;
  m.SerializeToString(&bytes);
  // The IPU model (PopART's rule: shapes fixed when the model is compiled); the CPU device plans
  // such inputs at run time (runtime_shapes_test.cpp).
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(bytes, DataFlow(1, {"Add:0"}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"Input tensor 'a' must be specified in InputShapeInfo, as it has shape [batch, 3], which uses an "
       "unknown value 'batch'."});
  EXPECT_TRUE(session(bytes, DataFlow(1, {"Add:0"}))->getRunTimePlanStats().runTimeShapes);
  // With InputShapeInfo it works.
  InputShapeInfo isi;
  isi.add("a", TensorInfo("FLOAT", {2, 3}));
  EXPECT_NO_THROW(InferenceSession::createFromOnnxModel(bytes, DataFlow(1, {"Add:0"}), test::cpu(), isi));
}

TEST(BadBuilder, WrongInputCount) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset11();
  auto a = builder->addInputTensor(TensorInfo("FLOAT", {2}));
  expectError([&] { ai.add({a}); }, {"Add has invalid number of inputs 1. Must be between 2..2"});
  expectError([&] { ai.relu({a, a}); }, {"Relu has invalid number of inputs 2. Must be between 1..1"});
  expectError([&] { ai.concat({}, 0); }, {"Concat has invalid number of inputs 0. Must be at least 1"});
}

TEST(BadBuilder, UnknownTensorId) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset11();
  auto a = builder->addInputTensor(TensorInfo("FLOAT", {2}));
  expectError([&] { ai.add({a, "no_such_tensor"}); }, {"input 1 of Add is 'no_such_tensor'", "unknown tensor id"});
  expectError([&] { builder->addOutputTensor("nope"); }, {"'nope' is not a tensor"});
  expectError([&] { builder->getTensorShape("nope"); }, {"nope is not an input or output tensor. Must be one of"});
}

TEST(BadBuilder, OpsetFixedOnce) {
  auto builder = Builder::create();
  builder->aiOnnxOpset11();
  expectError([&] { builder->aiOnnxOpset9(); },
              {"Invalid opset 'aiOnnxOpset9' selected. Opset for domain ai.onnx already defined as 11"});
}

TEST(BadStepIO, MissingInput) {
  const AddModel m = addModel();
  auto s = session(m.proto, DataFlow(1, {m.out}));
  s->prepareDevice();
  std::vector<float> a(6, 1.0f);
  NDArrayWrapper<float> wa(a.data(), {2, 3});
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, IArray&> in{{m.a, wa}};
  StepIO io(in, arrayRefs(anchors));
  expectError([&] { s->run(io); }, {"no input for tensor 'b'", "FLOAT [2 3]", "'a', 'b'"});
}

TEST(BadStepIO, WrongElementCountListsFactors) {
  const AddModel m = addModel();
  auto s = session(m.proto, DataFlow(2, {m.out}));
  s->prepareDevice();
  std::vector<float> a(12, 1.0f), b(6, 1.0f);
  NDArrayWrapper<float> wa(a.data(), {2, 2, 3}), wb(b.data(), {2, 3});
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, IArray&> in{{m.a, wa}, {m.b, wb}};
  StepIO io(in, arrayRefs(anchors));
  expectError([&] { s->run(io); },
              {"Unexpected number of input elements for Tensor b. Expected 12, but received 6",
               "batchesPerStep (2) * accumulationFactor (1) * replicationFactor (1) * elements per micro-batch (6"});
}

TEST(BadStepIO, InputNotAModelInput) {
  const AddModel m = addModel();
  auto s = session(m.proto, DataFlow(1, {m.out}));
  s->prepareDevice();
  std::vector<float> a(6, 1.0f);
  NDArrayWrapper<float> wa(a.data(), {2, 3}), wb(a.data(), {2, 3}), wc(a.data(), {2, 3});
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, IArray&> in{{m.a, wa}, {m.b, wb}, {"c", wc}};
  StepIO io(in, arrayRefs(anchors));
  expectError([&] { s->run(io); },
              {"The tensor 'c' has been provided as one of the inputs to the stepIO, but it is not registered as one "
               "of the inputs to the model"});
}

// PopART's Builder lists initialized inputs among the graph inputs, so its scripts may pass a
// weight's data in the StepIO: accepted and not read, the initializer is the weight.
TEST(BadStepIO, AnInitializersDataIsNotRead) {
  auto b = Builder::create();
  const TensorId x = b->addInputTensor("FLOAT", {2});
  const std::vector<float> wv{2.0f, 3.0f};
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo("FLOAT", {2})), "w");
  const TensorId y = b->aiOnnxOpset13().mul({x, w});
  b->addOutputTensor(y);
  auto s = session(b->getModelProto(), DataFlow(1, {y}));
  s->prepareDevice();
  std::vector<float> xv{1.0f, 1.0f}, other{100.0f, 100.0f};
  NDArrayWrapper<float> wx(xv.data(), {2}), ww(other.data(), {2});
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, IArray&> in{{x, wx}, {w, ww}};
  StepIO io(in, arrayRefs(anchors));
  s->run(io);
  EXPECT_EQ(anchors.at(y).toVector<float>(), wv);
}

TEST(BadStepIO, WrongInputType) {
  const AddModel m = addModel();
  auto s = session(m.proto, DataFlow(1, {m.out}));
  s->prepareDevice();
  std::vector<double> a(6, 1.0);
  std::vector<float> b(6, 1.0f);
  NDArrayWrapper<double> wa(a.data(), {2, 3});
  NDArrayWrapper<float> wb(b.data(), {2, 3});
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, IArray&> in{{m.a, wa}, {m.b, wb}};
  StepIO io(in, arrayRefs(anchors));
  expectError([&] { s->run(io); }, {"Input 'a' is given as DOUBLE data, but the model expects FLOAT"});
}

TEST(BadStepIO, AnchorArrayWrongSize) {
  const AddModel m = addModel();
  auto s = session(m.proto, DataFlow(2, {m.out}));
  s->prepareDevice();
  std::vector<float> a(12, 1.0f), y(6);
  NDArrayWrapper<float> wa(a.data(), {2, 2, 3}), wb(a.data(), {2, 2, 3}), wy(y.data(), {2, 3});
  std::map<TensorId, IArray&> in{{m.a, wa}, {m.b, wb}}, out{{m.out, wy}};
  StepIO io(in, out);
  expectError([&] { s->run(io); },
              {"Unexpected number of output elements for anchor Add:0. Expected 12, but received 6"});
}

TEST(BadSession, AnchorNotInGraph) {
  const AddModel m = addModel();
  expectError([&] { session(m.proto, DataFlow(1, {"nonexistent"})); },
              {"Anchor tensor `nonexistent' not in Ir Tensors."});
  expectError([&] { session(m.proto, DataFlow(1, {"Gradient___a"})); }, {"not in Ir Tensors", "gradient"});
}

TEST(BadSession, NoAnchorsForInference) {
  const AddModel m = addModel();
  expectError([&] { session(m.proto, DataFlow(1)); }, {"User must specify an anchor tensor when doing inference."});
}

TEST(BadSession, RunBeforePrepareDevice) {
  const AddModel m = addModel();
  auto s = session(m.proto, DataFlow(1, {m.out}));
  std::vector<float> a(6, 1.0f);
  NDArrayWrapper<float> wa(a.data(), {2, 3}), wb(a.data(), {2, 3});
  auto anchors = s->initAnchorArrays();  // works before prepareDevice
  std::map<TensorId, IArray&> in{{m.a, wa}, {m.b, wb}};
  StepIO io(in, arrayRefs(anchors));
  expectError([&] { s->run(io); }, {"Session::prepareDevice() must be called before Session::run() is called."});
  expectError([&] { s->getSummaryReport(); }, {"Session must have been prepared before a report can be fetched"});
  EXPECT_NO_THROW(s->setRandomSeed(1));  // no random behaviour: PopART warns and does nothing
  expectError([&] { s->modelToHost(std::string(POPART_TEST_TMPDIR) + "_x.onnx"); },
              {"Devicex::prepare() must be called"});
  // After preparing, the same StepIO runs.
  s->prepareDevice();
  EXPECT_NO_THROW(s->run(io));
  EXPECT_FLOAT_EQ(anchors.at(m.out).dataAs<float>()[5], 2.0f);
}

TEST(BadSession, NullDevice) {
  const AddModel m = addModel();
  expectError([&] { InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.out}), nullptr); },
              {"Must pass a valid deviceInfo"});
}

TEST(BadSession, GradientAccumulationOptions) {
  const AddModel m = addModel();
  SessionOptions o;
  o.accumulationFactor = 4;
  expectError([&] { InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.out}), test::cpu(), {}, o); },
              {"enableGradientAccumulation is false, but accumulationFactor > 1."});
  o.enableGradientAccumulation = true;
  expectError([&] { InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.out}), test::cpu(), {}, o); },
              {"Gradient Accumulation only available when training."});
}

TEST(BadSession, NonConstantShapeInput) {
  // Reshape whose target shape comes from a model input: the IPU model needs static shapes (the
  // CPU device plans it at run time: runtime_shapes_test.cpp).
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset11();
  auto x = builder->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  auto shp = builder->addInputTensor(TensorInfo("INT64", {1}), "shp");
  auto y = ai.reshape({x, shp}, "r");
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1, {y}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"node 'r", "input 1 ('shp') gives the target shape", "must be known when the model is compiled"});
}

}  // namespace
}  // namespace popart
