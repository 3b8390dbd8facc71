// Sessions: anchor return types and shapes, StepIO layout, weights transfer, model export.
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;

// y = x * w + 1 with w a weight [2] = {2, 3}.
struct ScaleModel {
  std::string proto;
  TensorId x, w, y;
};

ScaleModel scaleModel() {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset11();
  ScaleModel m;
  m.x = builder->addInputTensor(TensorInfo("FLOAT", {2}), "x");
  std::vector<float> w{2.0f, 3.0f};
  m.w = builder->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo("FLOAT", {2})), "w");
  float one = 1.0f;
  auto c = ai.constant(ConstVoidData(&one, TensorInfo("FLOAT", {})));
  m.y = ai.add({ai.mul({m.x, m.w}), c});
  builder->addOutputTensor(m.y);
  m.proto = builder->getModelProto();
  return m;
}

std::map<TensorId, NDArray> runWith(InferenceSession& s, const TensorId& x, std::vector<float> xs, const Shape& shape) {
  NDArray in = NDArray::fromVector(xs, shape);
  std::map<TensorId, NDArray> ins;
  ins.emplace(x, std::move(in));
  auto out = s.initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  s.run(io);
  return out;
}

TEST(Anchors, AllEveryNFinalSumShapesAndValues) {
  const ScaleModel m = scaleModel();
  // x per batch b is [b, b+1]; y = [2b+1, 3b+4].
  const int bps = 4;
  std::vector<float> xs;
  for (int b = 0; b < bps; ++b) {
    xs.push_back(static_cast<float>(b));
    xs.push_back(static_cast<float>(b + 1));
  }
  for (const std::string art : {"All", "EveryN", "Final", "Sum"}) {
    const AnchorReturnType t = art == "EveryN" ? AnchorReturnType("EVERYN", 2) : AnchorReturnType(art);
    auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(bps, {{m.y, t}}), test::cpu());
    s->prepareDevice();
    auto out = runWith(*s, m.x, xs, {bps, 2});
    const NDArray& y = out.at(m.y);
    const float* p = y.dataAs<float>();
    if (art == "All") {
      EXPECT_EQ(y.shape(), (Shape{4, 2}));
      for (int b = 0; b < bps; ++b) {
        EXPECT_FLOAT_EQ(p[2 * b], 2.0f * b + 1);
        EXPECT_FLOAT_EQ(p[2 * b + 1], 3.0f * (b + 1) + 1);
      }
    } else if (art == "EveryN") {
      EXPECT_EQ(y.shape(), (Shape{2, 2}));  // batches 1 and 3
      EXPECT_FLOAT_EQ(p[0], 3.0f);
      EXPECT_FLOAT_EQ(p[2], 7.0f);
    } else if (art == "Final") {
      EXPECT_EQ(y.shape(), (Shape{2}));
      EXPECT_FLOAT_EQ(p[0], 7.0f);
      EXPECT_FLOAT_EQ(p[1], 13.0f);
    } else {
      EXPECT_EQ(y.shape(), (Shape{2}));
      EXPECT_FLOAT_EQ(p[0], 1 + 3 + 5 + 7);
      EXPECT_FLOAT_EQ(p[1], 4 + 7 + 10 + 13);
    }
  }
}

TEST(Anchors, InputsMayOmitSizeOnePrefix) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  s->prepareDevice();
  EXPECT_EQ(s->getAnchorShape(m.y), (Shape{2}));
  auto out = runWith(*s, m.x, {1, 1}, {2});  // no [1] prefix
  EXPECT_FLOAT_EQ(out.at(m.y).dataAs<float>()[1], 4.0f);
  auto out2 = runWith(*s, m.x, {1, 1}, {1, 2});  // with the prefix
  EXPECT_FLOAT_EQ(out2.at(m.y).dataAs<float>()[1], 4.0f);
}

TEST(Anchors, AnyTensorCanBeAnchored) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(2, {m.y, m.w, m.x}), test::cpu());
  s->prepareDevice();
  auto out = runWith(*s, m.x, {1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(out.at(m.w).shape(), (Shape{2, 2}));
  EXPECT_FLOAT_EQ(out.at(m.w).dataAs<float>()[3], 3.0f);
  EXPECT_FLOAT_EQ(out.at(m.x).dataAs<float>()[3], 4.0f);
}

TEST(Anchors, RunsRepeatAndStepIOWraps) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  s->prepareDevice();
  NDArray in = NDArray::fromVector(std::vector<float>{1, 1}, {2});
  std::map<TensorId, NDArray> ins;
  ins.emplace(m.x, in);
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  for (int i = 0; i < 3; ++i) {
    ins.at(m.x).dataAs<float>()[0] = static_cast<float>(i);
    s->run(io);
    EXPECT_FLOAT_EQ(out.at(m.y).dataAs<float>()[0], 2.0f * i + 1);
  }
}

TEST(Weights, ConstantWeightsForbidWriting) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  s->prepareDevice();
  std::vector<float> w(2);
  WeightsIO io;
  io.insert(m.w, MutableVoidData(w.data(), TensorInfo("FLOAT", {2})));
  expectError([&] { s->writeWeights(io); }, {"Cannot call writeWeights when constantWeights is set"});
  expectError([&] { s->resetHostWeights(m.proto); }, {"Cannot call resetHostWeights when constantWeights is set"});
  // Reading works.
  s->weightsToHost();
  s->readWeights(io);
  EXPECT_FLOAT_EQ(w[1], 3.0f);
}

TEST(Weights, WriteReadResetAndExport) {
  const ScaleModel m = scaleModel();
  SessionOptions o;
  o.constantWeights = false;
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), {}, o);
  s->prepareDevice();
  EXPECT_FLOAT_EQ(runWith(*s, m.x, {1, 1}, {2}).at(m.y).dataAs<float>()[0], 3.0f);
  std::vector<float> w{10.0f, 20.0f};
  WeightsIO io;
  io.insert(m.w, MutableVoidData(w.data(), TensorInfo("FLOAT", {2})));
  s->writeWeights(io);
  s->weightsFromHost();
  EXPECT_FLOAT_EQ(runWith(*s, m.x, {1, 1}, {2}).at(m.y).dataAs<float>()[1], 21.0f);

  // modelToHost writes a model whose weights are the current ones.
  const std::string path = std::string(POPART_TEST_TMPDIR) + "_weights.onnx";
  s->modelToHost(path);
  auto s2 = InferenceSession::createFromOnnxModel(path, DataFlow(1, {m.y}), test::cpu());
  s2->prepareDevice();
  EXPECT_FLOAT_EQ(runWith(*s2, m.x, {1, 1}, {2}).at(m.y).dataAs<float>()[1], 21.0f);

  // resetHostWeights restores the original model's weights.
  s->resetHostWeights(m.proto);
  s->weightsFromHost();
  EXPECT_FLOAT_EQ(runWith(*s, m.x, {1, 1}, {2}).at(m.y).dataAs<float>()[1], 4.0f);
  std::vector<float> back(2);
  WeightsIO rio;
  rio.insert(m.w, MutableVoidData(back.data(), TensorInfo("FLOAT", {2})));
  s->weightsToHost();
  s->readWeights(rio);
  EXPECT_FLOAT_EQ(back[0], 2.0f);
  std::remove(path.c_str());
}

// compileAndExport / loadExecutable, through a file and through bytes (the JS API in a browser):
// the weights at export time come back; another model's plan is refused and changes nothing.
TEST(Weights, CompileAndExportThenLoadExecutable) {
  const ScaleModel m = scaleModel();
  SessionOptions o;
  o.constantWeights = false;
  auto make = [&] { return InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), {}, o); };
  auto s = make();
  s->prepareDevice();
  std::vector<float> w{10.0f, 20.0f};
  WeightsIO io;
  io.insert(m.w, MutableVoidData(w.data(), TensorInfo("FLOAT", {2})));
  s->writeWeights(io);
  s->weightsFromHost();
  const std::string path = std::string(POPART_TEST_TMPDIR) + "/exported/plan.popart";
  s->compileAndExport(path);
  const std::string bytes = s->compileAndExportToBytes();
  for (bool fromFile : {true, false}) {
    auto t = make();
    if (fromFile) {
      t->loadExecutableFromFile(path);
    } else {
      t->loadExecutableFromBytes(bytes);
    }
    t->prepareDevice();
    EXPECT_FLOAT_EQ(runWith(*t, m.x, {1, 1}, {2}).at(m.y).dataAs<float>()[1], 21.0f) << fromFile;
    expectError([&] { t->loadExecutableFromBytes(bytes); }, {"must be called before prepareDevice"});
  }
  // Another model (other weights' shape): refused, naming both hashes; its weights unchanged.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2}), "x");
  std::vector<float> v{5.0f, 6.0f};
  const TensorId y = ai.mul({x, b->addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo("FLOAT", {2})), "w")});
  b->addOutputTensor(y);
  auto other = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu(), {}, o);
  expectError([&] { other->loadExecutableFromBytes(bytes); },
              {"was prepared for another model, options or device", "this session's"});
  other->prepareDevice();
  EXPECT_FLOAT_EQ(runWith(*other, x, {1, 1}, {2}).at(y).dataAs<float>()[1], 6.0f);
  expectError([&] { make()->loadExecutableFromBytes("not a plan"); },
              {"The buffer given to loadExecutable is not an executable written by Session::compileAndExport"});
  expectError([&] { make()->loadExecutableFromBytes(bytes.substr(0, bytes.size() / 2)); },
              {"The buffer given to loadExecutable is not a readable executable"});
  std::remove(path.c_str());
}

TEST(Weights, ResetHostWeightsUnknownTensor) {
  const ScaleModel m = scaleModel();
  auto b = Builder::create();
  b->aiOnnxOpset11();
  std::vector<float> v{1, 2};
  b->addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo("FLOAT", {2})), "other");
  SessionOptions o;
  o.constantWeights = false;
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), {}, o);
  s->prepareDevice();
  expectError([&] { s->resetHostWeights(b->getModelProto()); }, {"resetWeights, no tensor 'other' in tensors"});
  EXPECT_NO_THROW(s->resetHostWeights(b->getModelProto(), true));
}

TEST(Weights, ModelToHostIsAtomicOnFailure) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  s->prepareDevice();
  expectError([&] { s->modelToHost("/no/such/dir/out.onnx"); }, {"Cannot write '/no/such/dir/out.onnx'"});
  // An existing file is replaced whole or left untouched.
  const std::string path = std::string(POPART_TEST_TMPDIR) + "_keep.onnx";
  std::ofstream(path) << "previous";
  s->modelToHost(path);
  std::ifstream f(path, std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(content, "previous");
  EXPECT_NO_THROW(InferenceSession::createFromOnnxModel(path, DataFlow(1, {m.y}), test::cpu()));
  std::remove(path.c_str());
}

TEST(SessionInfo, GetInfoAndIds) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  EXPECT_EQ(s->getInfo(m.y), TensorInfo("FLOAT", {2}));
  EXPECT_TRUE(s->hasInfo(m.x));
  EXPECT_FALSE(s->hasInfo("nope"));
  expectError([&] { s->getInfo("nope"); }, {"no tensor 'nope'"});
  s->prepareDevice();
  // The CPU device reports only when profiling is on (PopART's message otherwise).
  expectError([&] { s->getSummaryReport(); }, {"Profiling is disabled for current device type."});
  SessionOptions o;
  o.engineOptions["debug.instrument"] = "true";
  auto p = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), InputShapeInfo(), o);
  p->prepareDevice();
  EXPECT_NE(p->getSummaryReport().find("Device: CPU"), std::string::npos);
}

TEST(SessionInfo, SerializeIrIsPopARTsJson) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  const auto ir = nlohmann::ordered_json::parse(s->serializeIr(IrSerializationFormat::JSON));
  ASSERT_EQ(ir.size(), 1u);
  ASSERT_EQ(ir.begin().key(), "maingraph");
  const auto& ops = ir["maingraph"];
  ASSERT_EQ(ops.size(), 2u);  // the constant is an initializer of the IR, not an op
  EXPECT_EQ(ops[0]["type"], "Mul");
  EXPECT_EQ(ops[0]["domain"], "ai.onnx");
  EXPECT_EQ(ops[0]["version"], "11");
  EXPECT_EQ(ops[0]["inputs"][0]["name"], m.x);
  EXPECT_EQ(ops[0]["inputs"][0]["shape"], "[2]");
  EXPECT_EQ(ops[0]["inputs"][0]["type"], "FLOAT");
  EXPECT_EQ(ops[0]["inputs"][1]["index"], "1");
  // The InPlace pattern (on by default, as in PopART) lets the Add overwrite the Mul's output.
  EXPECT_EQ(ops[1]["type"], "AddLhsInplace");
  EXPECT_EQ(ops[1]["inputs"][0]["name"], ops[0]["outputs"][0]["name"]);
  EXPECT_EQ(ops[1]["outputs"][0]["name"], m.y);
  EXPECT_TRUE(ops[1]["attributes"].is_object());
  expectError([&] { s->serializeIr(static_cast<IrSerializationFormat>(3)); }, {"IrSerializationFormat"});
}

TEST(SessionInfo, StepIOCallback) {
  const ScaleModel m = scaleModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(3, {m.y}), test::cpu());
  s->prepareDevice();
  std::vector<float> xin{1, 2};
  std::vector<std::vector<float>> outs;
  std::vector<float> buf(2);
  int inCalls = 0;
  StepIOCallback cb(
      [&](TensorId, bool) {
        ++inCalls;
        return ConstVoidData(xin.data(), TensorInfo("FLOAT", {2}));
      },
      [](TensorId) {}, [&](TensorId) { return MutableVoidData(buf.data(), TensorInfo("FLOAT", {2})); },
      [&](TensorId) { outs.push_back(buf); });
  s->run(cb);
  EXPECT_EQ(inCalls, 3);
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_FLOAT_EQ(outs[2][1], 7.0f);
}

}  // namespace
}  // namespace popart
