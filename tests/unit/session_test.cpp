// Sessions: anchor return types and shapes, StepIO layout, weights transfer, model export.
#include <cmath>
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
  // The instruction-set copy of the kernels the session runs (POPART_CPU_ISA chooses).
  EXPECT_NE(p->getSummaryReport().find("Kernels: "), std::string::npos);
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

TEST(SessionOptionsActing, CompilationProgressLoggerReachesTheTotal) {
  const ScaleModel m = scaleModel();
  std::vector<std::pair<int, int>> calls;
  SessionOptions opts;
  opts.compilationProgressTotal = 40;
  opts.setCallback("compilationProgressLogger", [&](int p, int t) { calls.emplace_back(p, t); });
  EXPECT_EQ(opts.get("compilationProgressLogger"), OptionValue(true));
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), {}, opts);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::make_pair(0, 40));
  s->prepareDevice();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[1], std::make_pair(20, 40));
  EXPECT_EQ(calls[2], std::make_pair(40, 40));
  // The table gives whether it is set; false clears it; anything else is the kind error.
  opts.set("compilationProgressLogger", false);
  EXPECT_FALSE(opts.compilationProgressLogger);
  expectError([&] { opts.set("compilationProgressLogger", int64_t{3}); },
              {"SessionOptions.compilationProgressLogger must be a function (progress, total)"});
  expectError([&] { opts.setCallback("enableOutlining", [](int, int) {}); },
              {"SessionOptions.enableOutlining is a bool option, not a function"});
}

TEST(SessionOptionsActing, ConstantFoldingOfMultipleConsumers) {
  // c = Constant + Constant read by Mul and Sub: folded by default; with the option off it stays
  // an Add (PopART's option), and the results do not change.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {3}), "x");
  const TensorId c =
      ai.add({test::constant<float>(ai, {1, 2, 3}, {3}), test::constant<float>(ai, {0.5f, 0.5f, 0.5f}, {3})}, "cexpr");
  const TensorId y = ai.sub({ai.mul({x, c}), c});
  b->addOutputTensor(y);
  std::map<TensorId, std::vector<float>> results;
  for (bool fold : {true, false}) {
    SessionOptions opts;
    opts.enableConstantFoldingOfMultipleConsumers = fold;
    auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu(), {}, opts);
    const std::string ir = s->serializeIr(IrSerializationFormat::JSON);
    EXPECT_EQ(ir.find("\"type\":\"Add\"") != std::string::npos, !fold) << ir;
    const auto out = test::runOnce(b->getModelProto(), {{x, NDArray::fromVector<float>({1, -2, 4}, {3})}}, {y}, opts);
    results[fold ? "fold" : "keep"] = out.at(y).toVector<float>();
  }
  EXPECT_EQ(results["fold"], (std::vector<float>{0.0f, -7.5f, 10.5f}));
  EXPECT_EQ(results["fold"], results["keep"]);
}

// syntheticDataMode: no host data in or out. Off trains on the StepIO's x; Zeros feeds zeros (the
// gradient is 0, the weights stay) and leaves the anchor as the user filled it; RandomNormal feeds
// the same N(0, 1) values in every session.
TEST(SessionOptionsActing, SyntheticDataMode) {
  auto train = [](SyntheticDataMode mode, std::vector<float> data, std::vector<float>* anchor) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset11();
    const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {4}), "x");
    std::vector<float> ones(4, 1.0f);
    const TensorId w = b->addInitializedInputTensor(ConstVoidData(ones.data(), TensorInfo(DataType::FLOAT, {4})), "w");
    const TensorId y = ai.mul({x, w});
    const TensorId loss = b->aiGraphcoreOpset1().l1loss({y}, 1.0f, ReductionType::Sum);
    SessionOptions opts;
    opts.syntheticDataMode = mode;
    auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), loss, ConstSGD(0.5f),
                                                  test::cpu(), {}, opts);
    s->prepareDevice();
    s->weightsFromHost();
    std::map<TensorId, NDArray> in, out;
    const Shape shape{static_cast<int64_t>(data.size())};
    in.emplace(x, NDArray::fromVector(data, shape));
    out.emplace(y, NDArray::fromVector(std::vector<float>(4, 7.0f), {4}));
    StepIO io(arrayRefs(in), arrayRefs(out));
    s->run(io);
    *anchor = out.at(y).toVector<float>();
    s->weightsToHost();
    std::vector<float> wv(4);
    WeightsIO wio;
    wio.insert(w, MutableVoidData(wv.data(), TensorInfo(DataType::FLOAT, {4})));
    s->readWeights(wio);
    return wv;
  };
  std::vector<float> anchor;
  EXPECT_EQ(train(SyntheticDataMode::Off, {1, -2, 3, -4}, &anchor), (std::vector<float>{0.5f, 0.0f, -0.5f, -1.0f}));
  EXPECT_EQ(anchor, (std::vector<float>{1, -2, 3, -4}));
  // A wrong-sized input is never read when the data is synthetic.
  EXPECT_EQ(train(SyntheticDataMode::Zeros, {0}, &anchor), std::vector<float>(4, 1.0f));
  EXPECT_EQ(anchor, std::vector<float>(4, 7.0f));
  const auto w1 = train(SyntheticDataMode::RandomNormal, {0}, &anchor);
  EXPECT_EQ(train(SyntheticDataMode::RandomNormal, {0}, &anchor), w1);
  EXPECT_NE(w1, std::vector<float>(4, 1.0f));
}

// enableNonStableSoftmax: exp without the row's maximum subtracted, so exp(100) overflows float
// and the row is NaN, as PopART's non-stable softmax; small rows are the same either way.
TEST(SessionOptionsActing, NonStableSoftmax) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2, 3}), "x");
  const TensorId y = ai.softmax({x}, 1);
  b->addOutputTensor(y);
  const std::vector<float> xs{100, 101, 99, 1, 2, 3};
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), sum = e1 + e2 + e3;
  for (bool nonStable : {false, true}) {
    SessionOptions opts;
    opts.enableNonStableSoftmax = nonStable;
    const auto out =
        test::runOnce(b->getModelProto(), {{x, NDArray::fromVector(xs, {2, 3})}}, {y}, opts).at(y).toVector<float>();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(std::isnan(out[static_cast<size_t>(i)]), nonStable) << i;
    test::expectNear(std::vector<float>(out.begin() + 3, out.end()), {e1 / sum, e2 / sum, e3 / sum}, 1e-6);
  }
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
