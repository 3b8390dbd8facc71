// Sizes that cannot wrap and allocations that cannot run away (issue 9): element counts and byte
// sizes are checked 64-bit products, every buffer sized from a model or a user's value is compared
// with the memory limit (popart/memorylimit.hpp) before it is allocated, and the errors name the
// tensor, the shape and the factors. After each error a good model still runs.
#include <fstream>
#include <tuple>
#include <vector>

#include "common/checked_size.hpp"
#include "common/test_util.hpp"
#include "onnx.pb.h"
#include "passes/memory_plan.hpp"
#include "popart/logsink.hpp"

namespace popart {
namespace {

using test::expectError;

/// Restores the default memory limit when a test ends.
struct LimitGuard {
  explicit LimitGuard(int64_t bytes) { setMemoryLimit(bytes); }
  ~LimitGuard() { setMemoryLimit(0); }
};

/// A small model that must keep working after every error: y = a + b.
void expectGoodModelRuns() {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset11();
  const TensorId a = builder->addInputTensor(TensorInfo("FLOAT", {2, 3}));
  const TensorId b = builder->addInputTensor(TensorInfo("FLOAT", {2, 3}));
  const TensorId y = ai.add({a, b});
  builder->addOutputTensor(y);
  std::map<TensorId, NDArray> in;
  in.emplace(a, NDArray::fromData(std::vector<float>{1, 2, 3, 4, 5, 6}.data(), {2, 3}));
  in.emplace(b, NDArray::fromData(std::vector<float>{10, 20, 30, 40, 50, 60}.data(), {2, 3}));
  auto out = test::runOnce(builder->getModelProto(), in, {y});
  const float* p = static_cast<const float*>(out.at(y).data());
  EXPECT_EQ(p[0], 11.0f);
  EXPECT_EQ(p[5], 66.0f);
}

TEST(CheckedSize, Products) {
  EXPECT_EQ(checkedProduct({2, 3, 4}), 24);
  EXPECT_EQ(checkedProduct({}), 1);
  EXPECT_EQ(checkedProduct({int64_t{1} << 32, int64_t{1} << 32}), -1);
  EXPECT_EQ(checkedProduct({int64_t{1} << 31, int64_t{1} << 31}), int64_t{1} << 62);
  EXPECT_EQ(checkedProduct(Shape{int64_t{1} << 40, 0, int64_t{1} << 40}), 0);
  EXPECT_EQ(checkedProduct(Shape{int64_t{1} << 40, int64_t{1} << 40, 0}), -1);  // overflows before the 0
  EXPECT_EQ(checkedProduct(Shape{0, int64_t{1} << 40}), 0);
  EXPECT_EQ(checkedProduct({-1, 2}), -1);
  EXPECT_EQ(formatBytes(4294967360), "4.00 GiB (4294967360 bytes)");
  EXPECT_EQ(formatBytes(100), "100 bytes");
}

TEST(CheckedSize, ShapeProductsOverflow) {
  // [2^32, 2^32] has 2^64 elements: nelms used to wrap to 0.
  expectError(
      [] {
        TensorInfo("FLOAT", {4294967296, 4294967296});
      },
      {"Invalid shape [4294967296 4294967296]", "element count overflows a 64-bit integer"});
  // 2^62 elements fit, but not 2^62 * 4 bytes.
  expectError(
      [] {
        TensorInfo("FLOAT", {int64_t{1} << 31, int64_t{1} << 31});
      },
      {"Invalid shape [2147483648 2147483648]", "FLOAT", "needs more bytes than a 64-bit size holds"});
  TensorInfo ok("INT8", {int64_t{1} << 31, int64_t{1} << 31});
  EXPECT_EQ(ok.nelms(), int64_t{1} << 62);
  TensorInfo t("INT8", {2, 3});
  expectError([&] { t.set(DataType::DOUBLE, {int64_t{1} << 31, int64_t{1} << 31}); }, {"needs more bytes"});
  EXPECT_EQ(t.nelms(), 6);  // a failed set() leaves the info as it was
  EXPECT_EQ(t.dataType(), DataType::INT8);
}

/// An ONNX model y = Identity(x) whose input x is declared with `dims`.
std::string identityModel(const std::vector<int64_t>& dims) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type("Identity");
  n->add_input("x");
  n->add_output("y");
  for (const char* name : {"x", "y"}) {
    auto* vi = name[0] == 'x' ? g->add_input() : g->add_output();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

TEST(CheckedSize, ModelWithHugeDeclaredDims) {
  // Declared dims whose product overflows: the input is named, with its shape.
  expectError(
      [] {
        InferenceSession::createFromOnnxModel(identityModel({4294967296, 4294967296}), DataFlow(1, {"y"}), test::cpu());
      },
      {"tensor 'x' is declared FLOAT [4294967296, 4294967296]", "element count overflows"});
  expectGoodModelRuns();
}

TEST(MemoryLimit, Setting) {
  const int64_t platform = getPlatformMemoryLimit();
  EXPECT_GT(platform, int64_t{1} << 28);
  {
    LimitGuard g(int64_t{1} << 20);
    EXPECT_EQ(getMemoryLimit(), int64_t{1} << 20);
    EXPECT_EQ(memoryLimitSource(), "set by setMemoryLimit");
  }
  EXPECT_EQ(getMemoryLimit(), std::min(platform, getMemoryLimit()));
  setMemoryLimit(std::numeric_limits<int64_t>::max());  // clamped to what the platform gives
  EXPECT_EQ(getMemoryLimit(), platform);
  setMemoryLimit(0);
  expectError([] { setMemoryLimit(-5); }, {"setMemoryLimit: the limit must be >= 0 bytes"});
}

/// Expand of a [1] input to `dims`, then ReduceSum: a tiny input grows a huge intermediate.
std::string expandSumModel(const std::vector<int64_t>& dims, TensorId* x, TensorId* y) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  *x = builder->addInputTensor(TensorInfo("FLOAT", {1}), "x");
  const TensorId shape =
      ai.constant(ConstVoidData(dims.data(), TensorInfo("INT64", {static_cast<int64_t>(dims.size())})), "shape");
  const TensorId big = ai.expand({*x, shape}, "Expand_big");
  *y = ai.reducesum({big}, 0, 0, "Sum");
  builder->addOutputTensor(*y);
  return builder->getModelProto();
}

TEST(MemoryLimit, PrepareRefusesAGraphOverTheLimit) {
  // The wasm defect: a 4 GiB intermediate (32768 x 32768 floats) in a module that can address
  // 2 GiB. Here the limit plays the module's maximum memory.
  TensorId x, y;
  const std::string model = expandSumModel({32768, 32768}, &x, &y);
  LimitGuard g(int64_t{2} << 30);
  auto s = InferenceSession::createFromOnnxModel(model, DataFlow(1, {y}), test::cpu());
  try {
    s->prepareDevice();
    FAIL() << "prepareDevice did not throw";
  } catch (const memory_allocation_err& e) {
    const std::string msg = e.what();
    for (const char* frag :
         {"prepareDevice: the graph needs", "more than the memory limit of 2.00 GiB (2147483648 bytes)",
          "set by setMemoryLimit", "Largest tensors:", "FLOAT [32768 32768] 4.00 GiB (4294967296 bytes) (activation",
          "Expand_big"})
      EXPECT_NE(msg.find(frag), std::string::npos) << msg << "\nmissing: " << frag;
  }
  EXPECT_FALSE(s->isPrepared());
  expectError([&] { s->getMemoryStats(); }, {"must be called before"});
  expectGoodModelRuns();
}

TEST(MemoryLimit, BigStreamedInputOverTheLimit) {
  // A Builder input of FLOAT [65536, 65536] (16 GiB): the output buffer cannot be planned.
  const test::ReluModel m = test::reluModel({65536, 65536});
  LimitGuard g(int64_t{2} << 30);
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu());
  expectError([&] { s->prepareDevice(); }, {"16.00 GiB", "'" + m.y + "' FLOAT [65536 65536]"});
  expectGoodModelRuns();
}

TEST(MemoryLimit, ConstantFoldingOverTheLimit) {
  // Expand of a constant folds at import: the folded value is refused before it is allocated.
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  std::vector<float> one{1.0f};
  std::vector<int64_t> dims{65536, 65536};
  const TensorId c = ai.constant(ConstVoidData(one.data(), TensorInfo("FLOAT", {1})), "one");
  const TensorId shape = ai.constant(ConstVoidData(dims.data(), TensorInfo("INT64", {2})), "shape");
  const TensorId big = ai.expand({c, shape}, "Expand_const");
  const TensorId y = ai.reducesum({big}, 0);
  builder->addOutputTensor(y);
  LimitGuard g(int64_t{1} << 30);
  expectError(
      [&] { InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1, {y}), test::cpu()); },
      {"Expand_const", "a FLOAT [65536 65536] tensor needs 16.00 GiB", "more than the memory limit of 1.00 GiB"});
  expectGoodModelRuns();
}

TEST(MemoryLimit, AnchorArraysNameTheAnchorAndFactors) {
  // batchesPerStep = 1e9 used to allocate until the process was killed.
  const test::ReluModel m = test::reluModel({4, 8});
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1000000000, {{m.y, AnchorReturnType("All")}}),
                                                 test::cpu());
  s->prepareDevice();
  LimitGuard g(int64_t{1} << 30);
  try {
    s->initAnchorArrays();
    FAIL() << "initAnchorArrays did not throw";
  } catch (const memory_allocation_err& e) {
    const std::string msg = e.what();
    for (const std::string& frag : std::vector<std::string>{
             "The array for anchor '" + m.y + "'", "32000000000 elements of FLOAT", "anchor return type All",
             "batchesPerStep (1000000000) * accumulationFactor (1) * replicationFactor (1) * elements per value (32, "
             "shape [4 8])",
             "119.21 GiB", "more than the memory limit of 1.00 GiB"})
      EXPECT_NE(msg.find(frag), std::string::npos) << msg << "\nmissing: " << frag;
  }
  expectError([&] { s->getAnchorArrayInfos(); }, {"The array for anchor"});
  // The public NDArray checks its size too.
  expectError([] { NDArray(DataType::FLOAT, {1 << 20, 1 << 20}); }, {"an array of FLOAT [1048576 1048576]"});
  expectGoodModelRuns();
}

TEST(MemoryLimit, StepElementCountsThatOverflow) {
  {  // an input of 2^51 elements in each of 2^30 batches
    auto builder = Builder::create();
    auto ai = builder->aiOnnxOpset11();
    const TensorId x = builder->addInputTensor(TensorInfo("INT8", {int64_t{1} << 31, int64_t{1} << 20}), "x");
    const TensorId y = ai.identity({x});
    builder->addOutputTensor(y);
    auto s = InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1 << 30, {y}), test::cpu());
    expectError([&] { s->getAnchorArrayInfos(); }, {"The step's input 'x' has more elements than a 64-bit count holds",
                                                    "batchesPerStep (1073741824)", "shape [2147483648 1048576]"});
  }
  {  // a small input, an anchor of 2^51 elements
    TensorId x, y;
    const std::string model = expandSumModel({int64_t{1} << 31, int64_t{1} << 20}, &x, &y);
    auto s = InferenceSession::createFromOnnxModel(model, DataFlow(1 << 30, {"Expand_big:0"}), test::cpu());
    expectError([&] { s->getAnchorArrayInfos(); },
                {"The step's anchor 'Expand_big:0' has more elements than a 64-bit count holds",
                 "anchor return type All: batchesPerStep (1073741824)"});
  }
}

TEST(MemoryLimit, ArenaPlanOverflowIsReported) {
  const int64_t huge = std::numeric_limits<int64_t>::max() / 2;
  const ArenaPlan p = planArena({{huge, 0, 1}, {huge, 0, 1}, {huge, 0, 1}});
  EXPECT_EQ(p.arenaBytes, -1);
}

TEST(Logging, SecondDestinationFileIsUsed) {
  const std::string a = std::string(POPART_TEST_TMPDIR) + "_log_a.txt";
  const std::string b = std::string(POPART_TEST_TMPDIR) + "_log_b.txt";
  std::remove(a.c_str());
  std::remove(b.c_str());
  getLogger().setLevel("INFO");
  logging::setLogDestination(a);
  logging::log(logging::Module::popart, logging::Level::Info, "first message");
  logging::setLogDestination(b);  // used to keep writing to stderr: the first file stayed open
  logging::log(logging::Module::popart, logging::Level::Info, "second message");
  logging::setLogDestination(a);  // and back
  logging::log(logging::Module::popart, logging::Level::Info, "third message");
  expectError([] { logging::setLogDestination("/no/such/dir/log.txt"); }, {"cannot open '/no/such/dir/log.txt'"});
  logging::log(logging::Module::popart, logging::Level::Info, "fourth message");  // still to a
  logging::setLogDestination("stderr");
  getLogger().setLevel("OFF");
  auto read = [](const std::string& p) {
    std::ifstream f(p);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  const std::string ta = read(a), tb = read(b);
  EXPECT_NE(ta.find("first message"), std::string::npos);
  EXPECT_NE(ta.find("third message"), std::string::npos);
  EXPECT_NE(ta.find("fourth message"), std::string::npos);
  EXPECT_EQ(ta.find("second message"), std::string::npos);
  EXPECT_NE(tb.find("second message"), std::string::npos);
  EXPECT_EQ(tb.find("first message"), std::string::npos);
}

TEST(Logging, ALineSinkTakesEachLineInPlaceOfTheStream) {
  std::vector<std::tuple<logging::Level, logging::Module, std::string>> got;
  const std::string stream = std::string(POPART_TEST_TMPDIR) + "_log_sink.txt";
  std::remove(stream.c_str());
  logging::setLogDestination(stream);  // the lines that go to the stream, read back below
  logging::setLineSink([&](logging::Level l, logging::Module m, const std::string& line) {
    got.emplace_back(l, m, line);
    // No deadlock (no lock held) and no recursion: the sink's own line goes to the stream.
    logging::log(logging::Module::ir, logging::Level::Info, "from the sink");
  });
  getLogger().setLevel("INFO");
  logging::log(logging::Module::session, logging::Level::Warn, "a warning");
  logging::print("printed: 1 2 3");
  logging::setLineSink(nullptr);
  logging::log(logging::Module::session, logging::Level::Warn, "to the stream again");
  getLogger().setLevel("OFF");
  logging::setLogDestination("stderr");
  std::ifstream f(stream);
  const std::string streamed((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(streamed.find("I: from the sink"), std::string::npos);
  EXPECT_NE(streamed.find("W: to the stream again"), std::string::npos);
  EXPECT_EQ(streamed.find("a warning"), std::string::npos);
  ASSERT_EQ(got.size(), 2u);  // the warning and the print
  EXPECT_EQ(std::get<0>(got[0]), logging::Level::Warn);
  EXPECT_EQ(std::get<1>(got[0]), logging::Module::session);
  EXPECT_NE(std::get<2>(got[0]).find(" popart:session "), std::string::npos);
  EXPECT_NE(std::get<2>(got[0]).find(" W: a warning"), std::string::npos);
  EXPECT_EQ(std::get<2>(got[0]).find('\n'), std::string::npos);
  bool printed = false;
  for (const auto& g : got)
    printed = printed || (std::get<2>(g) == "printed: 1 2 3" && std::get<1>(g) == logging::Module::op);
  EXPECT_TRUE(printed);
  for (const auto& g : got) EXPECT_EQ(std::get<2>(g).find("to the stream again"), std::string::npos);
}

// ---------------------------------------------------------------- options accepted and ignored

TEST(FloatingPointChecks, NameTheFirstOpAndTensor) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset11();
  const TensorId x = builder->addInputTensor(TensorInfo("FLOAT", {4}), "x");
  const TensorId l = ai.log({x}, "TheLog");     // log(0) = -Inf, log(-1) = NaN
  const TensorId y = ai.mul({l, l}, "TheMul");  // would propagate it
  builder->addOutputTensor(y);
  std::vector<float> ok{1, 2, 3, 4}, bad{1, 2, -1, 4};
  for (bool checks : {false, true}) {
    SessionOptions o;
    o.enableFloatingPointChecks = checks;
    auto s = InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1, {y}), test::cpu(),
                                                   InputShapeInfo(), o);
    s->prepareDevice();
    auto anchors = s->initAnchorArrays();
    NDArrayWrapper<float> good(ok.data(), {4});
    std::map<TensorId, IArray&> in{{x, good}};
    StepIO io(in, arrayRefs(anchors));
    s->run(io);  // finite values pass either way
    NDArrayWrapper<float> nan(bad.data(), {4});
    std::map<TensorId, IArray&> in2{{x, nan}};
    StepIO io2(in2, arrayRefs(anchors));
    if (!checks) {
      s->run(io2);  // NaN flows through unchecked
      EXPECT_TRUE(std::isnan(static_cast<const float*>(anchors.at(y).data())[2]));
    } else {
      expectError([&] { s->run(io2); }, {"Floating-point check (enableFloatingPointChecks)", "TheLog", "produced NaN",
                                         "output '" + l + "' FLOAT [4] at element 2"});
      s->run(io);  // the session keeps working
    }
  }
}

TEST(EngineOptions, UnknownKeysAndBadValues) {
  const test::ReluModel m = test::reluModel({4});
  auto make = [&](const std::map<std::string, std::string>& eo) {
    SessionOptions o;
    o.engineOptions = eo;
    return InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), test::cpu(), InputShapeInfo(), o);
  };
  expectError([&] { make({{"x", "1"}}); }, {"Unrecognised option 'x'"});
  expectError(
      [&] {
        make({{"debug.instrument", "yes"}});
      },
      {"Invalid value 'yes' for engine option 'debug.instrument': expected 'true' or 'false'"});
  expectError([&] { make({{"opt.maxCompilationThreads", "many"}}); }, {"expected an integer"});
  EXPECT_NO_THROW(make({{"debug.instrument", "true"}, {"autoReport.all", "false"}, {"target.hostSyncTimeout", "30"}}));
}

// ---------------------------------------------------------------- PopART parity

TEST(PopArtParity, LossTensorInfoWithoutAnchor) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  std::vector<float> w0(6, 0.5f);
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo("FLOAT", {3, 2})), "w");
  const TensorId m = ai.matmul({x, w});
  const TensorId l = b->aiGraphcoreOpset1().l1loss({m}, 0.1f);
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {m}), l, ConstSGD(0.1f), test::cpu());
  const TensorInfo info = s->getInfo(l);  // not anchored: PopART answers anyway
  EXPECT_EQ(info.dataType(), DataType::FLOAT);
  EXPECT_EQ(info.rank(), 0);
}

TEST(PopArtParity, TrainingWithoutTrainableWeights) {
  // PopART's export_test: a model with no trainable tensor trains (nothing to update) and
  // modelToHost writes the input bytes back unchanged.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 2}), "x");
  std::vector<float> c0{6, 6, 6, 6};
  const TensorId c = ai.constant(ConstVoidData(c0.data(), TensorInfo("FLOAT", {2, 2})), "six");
  const TensorId y = ai.add({x, c});
  const TensorId l = b->aiGraphcoreOpset1().identityloss({y});
  const std::string proto = b->getModelProto();
  auto s = TrainingSession::createFromOnnxModel(proto, DataFlow(1, {y}), l, ConstSGD(0.1f), test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto anchors = s->initAnchorArrays();
  std::vector<float> xv{1, 2, 3, 4};
  NDArrayWrapper<float> xa(xv.data(), {2, 2});
  std::map<TensorId, IArray&> in{{x, xa}};
  StepIO io(in, arrayRefs(anchors));
  s->run(io);
  const float* out = static_cast<const float*>(anchors.at(y).data());
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{7, 8, 9, 10}));
  EXPECT_EQ(s->modelToHostBytes(), proto);
}

TEST(PopArtParity, BuilderOutputAndInputCounts) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 1, 3}), "x");
  std::vector<float> wv(4 * 3, 0.1f), rv(4 * 4, 0.1f);
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo("FLOAT", {1, 4, 3})));
  const TensorId r = b->addInitializedInputTensor(ConstVoidData(rv.data(), TensorInfo("FLOAT", {1, 4, 4})));
  expectError(
      [&] {
        ai.rnn({x, w, r}, 3, {}, {}, {"Tanh"}, {}, "forward", 4);
      },
      {"RNN has an invalid number of outputs 3. Must be between"});
  EXPECT_EQ(ai.rnn({x, w, r}, 2, {}, {}, {"Tanh"}, {}, "forward", 4).size(), 2u);
  expectError([&] { ai.abs({}); }, {"Abs has invalid number of inputs 0. Must be between 1..1"});
}

}  // namespace
}  // namespace popart
