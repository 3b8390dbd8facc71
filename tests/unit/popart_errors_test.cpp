// PopART's errors for the same mistakes: the exception type (popart::error) and PopART's sentence
// first (users match with startswith / `in`), then this runtime's context (the node, the
// tensors and shapes): Conv and pooling parameters, LSTM / GRU / RNN attributes, the ONNX
// features PopART refuses at its opsets (random seeds, non-constant Clip bounds, pooling's
// count_include_pad / dilations, BatchNormalization's shapes and inference mode), pipelining
// depth, automatic loss scaling options, an input whose declared dims overflow, Reduce axes,
// Transpose / Reshape / Tile / Expand / broadcasting / variadic (opset < 8) shapes. A context added
// by a layer the error passed through keeps the inner sentence as contextual_error::message().
#include <algorithm>
#include <set>

#include "common/test_util.hpp"
#include "popart/error_context.hpp"

namespace popart {
namespace {

/// Expects `f` to throw popart::error whose message starts with `prefix` and holds `fragments`.
void expectStarts(const std::function<void()>& f, const std::string& prefix,
                  const std::vector<std::string>& fragments = {}) {
  try {
    f();
  } catch (const internal_error& e) {
    ADD_FAILURE() << "threw an internal error: " << e.what();
    return;
  } catch (const error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << "message: " << msg << "\nshould start with: " << prefix;
    for (const auto& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "message: " << msg << "\nmissing: " << frag;
    return;
  }
  ADD_FAILURE() << "did not throw; expected: " << prefix;
}

/// One node of `type` (ai.onnx opset 11) named "n" on inputs of the given shapes; the session's
/// setup error.
void nodeError(const std::string& type, const std::vector<Shape>& shapes, const std::map<std::string, any>& attrs,
               const std::string& prefix, const std::vector<std::string>& fragments, int numOutputs = 1) {
  auto b = Builder::create();
  b->aiOnnxOpset11();
  std::vector<TensorId> ins;
  for (size_t i = 0; i < shapes.size(); ++i)
    ins.push_back(shapes[i].empty() ? "" : b->addInputTensor(TensorInfo("FLOAT", shapes[i]), "in" + std::to_string(i)));
  const auto outs = b->customOp(OperatorIdentifier("ai.onnx", type, 11), 11, ins, numOutputs, attrs, "n");
  b->addOutputTensor(outs[0]);
  expectStarts([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {outs[0]}), test::cpu()); },
               prefix, fragments);
}

/// The contextual_error of one-node session (as nodeError), for message() / what() checks.
contextual_error nodeContextualError(const std::string& type, const std::vector<Shape>& shapes,
                                     const std::map<std::string, any>& attrs, int opset = 11) {
  auto b = Builder::create();
  std::vector<TensorId> ins;
  for (size_t i = 0; i < shapes.size(); ++i)
    ins.push_back(b->addInputTensor(TensorInfo("FLOAT", shapes[i]), "in" + std::to_string(i)));
  const auto outs = b->customOp(OperatorIdentifier("ai.onnx", type, opset), opset, ins, 1, attrs, "n");
  b->addOutputTensor(outs[0]);
  try {
    InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {outs[0]}), test::cpu());
  } catch (const contextual_error& e) {
    return e;
  }
  ADD_FAILURE() << type << ": no contextual_error";
  return contextual_error("", "");
}

TEST(PopartErrors, ContextIsKeptApartFromPopartsSentence) {
  const auto e = nodeContextualError("ReduceSum", {{4, 5}}, {{"axes", std::vector<int64_t>{2}}});
  EXPECT_EQ(e.message(), "Axis 2 is out of acceptable range [-2, 1]");
  const std::string what = e.what();
  EXPECT_EQ(what.rfind(e.message(), 0), 0u) << what;
  EXPECT_NE(what.find("(while inferring shapes for node 'n' (ReduceSum, opset 11, input 'in0' FLOAT [4 5])"),
            std::string::npos)
      << what;
  EXPECT_EQ(ownMessage(e), e.message());
  EXPECT_EQ(ownMessage(error("plain")), "plain");
  // Wrapped twice (a context around a context): the innermost sentence stays.
  const contextual_error twice = withContext(e, "outer: {}", e.what());
  EXPECT_EQ(twice.message(), e.message());
}

TEST(PopartErrors, ShapeMessages) {
  EXPECT_EQ(nodeContextualError("ReduceMax", {{3}}, {{"axes", std::vector<int64_t>{-2}}}).message(),
            "Axis -2 is out of acceptable range [-1, 0]");
  EXPECT_EQ(nodeContextualError("Transpose", {{1, 3, 2}}, {{"perm", std::vector<int64_t>{1, 0}}}).message(),
            "Rank of permutation tensor [1 0], rank 2 must be equal to rank of input tensor, shape [1 3 2], rank 3.");
  nodeError("Add", {{10, 10}, {10, 5}}, {}, "np broadcasting failed on 'Op(n (ai.onnx.Add:11), inputs=[in0, in1]",
            {"frames [10, 10] and [10, 5] are not aligned", "input 1 ('in1') with shape [10 5]"});
  EXPECT_EQ(nodeContextualError("Mean", {{2, 3}, {3}}, {}, 7)
                .message()
                .rfind("Inputs to ai.onnx.Mean:6 do not all the same type & shape, with opid.version = 6", 0),
            0u);
}

TEST(PopartErrors, ConvParameters) {
  const std::vector<Shape> xw{{1, 4, 5, 5}, {6, 2, 3, 3}};
  nodeError("Conv", xw, {{"group", int64_t{0}}}, "group attribute in n must be greater than zero",
            {"while inferring shapes for node 'n' (Conv, opset 11, input 'in0' FLOAT [1 4 5 5]"});
  nodeError("Conv", xw, {{"group", int64_t{1}}},
            "Invalid value for group (1) in n. number of input channels (4) / group (1) should be equal to the weight "
            "inputs second dimension (2)",
            {"node 'n'"});
  nodeError("Conv", xw, {{"group", int64_t{2}}, {"strides", std::vector<int64_t>{1, 1, 1}}},
            "Unexpected number of stride parameters for convolution op 'n'", {"strides [1 1 1] must have 2 entries"});
  nodeError("Conv", xw, {{"group", int64_t{2}}, {"pads", std::vector<int64_t>{1, 1}}},
            "Unexpected number of pad parameters for convolution op 'n'", {"pads [1 1] must have 4 entries"});
  nodeError("Conv", xw, {{"group", int64_t{2}}, {"dilations", std::vector<int64_t>{2}}},
            "Unexpected number of dilation parameters for convolution op 'n'", {"input 'in1' FLOAT [6 2 3 3]"});
}

TEST(PopartErrors, PoolingKernelShape) {
  for (const std::string type : {"MaxPool", "AveragePool"}) {
    nodeError(type, {{1, 2, 6, 6}}, {{"kernel_shape", std::vector<int64_t>{2}}},
              "invalid kernel_shape, not same rank as the tensor operated on",
              {"kernel_shape [2] must have 2 entries", "node 'n' (" + type});
  }
}

TEST(PopartErrors, RecurrentAttributes) {
  // X [seq 2, batch 3, input 4]; hidden 5.
  nodeError("LSTM", {{2, 3, 4}, {1, 20, 4}, {1, 20, 5}}, {{"hidden_size", int64_t{6}}},
            "LSTMOp hidden_size attribute, 6, does not match calculated hidden size, 5.", {"node 'n' (LSTM"});
  for (const std::string type : {"GRU", "RNN"}) {
    const int64_t g = type == "GRU" ? 3 : 1;
    nodeError(type, {{2, 3, 4}, {1, 5 * g, 4}, {1, 5 * g, 5}}, {{"hidden_size", int64_t{7}}},
              "hidden_size attribute passed to Op(n (ai.onnx." + type +
                  ":11), inputs=[in0, in1, in2], outputs=[n:0]) (7) does not match hidden size calculated from "
                  "recurrenceWeights tensor (5).",
              {"node 'n' (" + type});
  }
  auto seqLens = [](const Shape& s, const std::string& prefix) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset11();
    const TensorId x = b->addInputTensor("FLOAT", {2, 3, 4}), w = b->addInputTensor("FLOAT", {1, 20, 4});
    const TensorId r = b->addInputTensor("FLOAT", {1, 20, 5}), sl = b->addInputTensor("INT32", s, "lens");
    const TensorId y = ai.lstm({x, w, r, "", sl}, 3, {}, {}, {}, {}, "forward", {}, 0, "mylstm")[0];
    b->addOutputTensor(y);
    expectStarts([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                 prefix, {"mylstm", "lens"});
  };
  seqLens({3, 1}, "Invalid rank for sequence length tensor : 2 != 1");
  seqLens({2}, "Incorect sequence len shape : [2] != [3]");
}

// ---------------------------------------------------------------- ONNX features PopART refuses
// At the ai.onnx opsets PopART imports (up to 11), its refusals apply; later opsets follow ONNX.

/// The error of an InferenceSession on `b`'s model anchoring `out`.
void sessionStarts(Builder& b, const TensorId& out, const std::string& prefix,
                   const std::vector<std::string>& fragments = {}) {
  b.addOutputTensor(out);
  expectStarts([&] { InferenceSession::createFromOnnxModel(b.getModelProto(), DataFlow(1, {out}), test::cpu()); },
               prefix, fragments);
}

// PopART refuses some ONNX features at its opsets that this runtime computes as ONNX specifies
// (docs/python-api.md): they run here; only what ONNX refuses too gets PopART's text.

TEST(PopartErrors, RandomOpsTakeASeedAndDoubleAsOnnx) {
  auto seededOnce = [](DataType t) {
    auto b = Builder::create();
    const TensorId u = b->aiOnnxOpset11().randomuniform({8}, static_cast<int64_t>(onnxDataType(t)), 1.0f, 0.0f, 5.0f);
    b->addOutputTensor(u);
    return test::runOnce(b->getModelProto(), {}, {u}).begin()->second;
  };
  EXPECT_EQ(seededOnce(DataType::FLOAT).toVector<float>(), seededOnce(DataType::FLOAT).toVector<float>());
  EXPECT_EQ(seededOnce(DataType::DOUBLE).info().dataType(), DataType::DOUBLE);
  // Without dtype the output has the input's type, which must be floating-point.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  sessionStarts(*b, ai.randomnormallike({b->addInputTensor("INT32", {3}, "i")}),
                "ai.onnx.RandomNormalLike:11 : Unsupported data type requested: INT32", {"input 'i' INT32 [3]"});
}

TEST(PopartErrors, ClipBoundsMayBeInputs) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor("FLOAT", {4}, "x");
  const TensorId lo = b->addInputTensor("FLOAT", {}, "lo");
  std::vector<float> hi{0.5f};
  const TensorId y = ai.clip({x, lo, ai.constant(ConstVoidData(hi.data(), TensorInfo("FLOAT", Shape{})))});
  b->addOutputTensor(y);
  const std::vector<float> xv{-3, -0.5f, 0.25f, 2};
  const auto out = test::runOnce(
      b->getModelProto(),
      {{x, NDArray::fromVector(xv, {4})}, {lo, NDArray::fromVector(std::vector<float>{-1.0f}, Shape{})}}, {y});
  EXPECT_EQ(out.at(y).toVector<float>(), (std::vector<float>{-1, -0.5f, 0.25f, 0.5f}));
}

TEST(PopartErrors, MaxPoolDilationsAsOnnx) {
  auto b = Builder::create();
  const TensorId in = b->addInputTensor("FLOAT", {1, 1, 4, 4}, "x");
  const TensorId y = b->aiOnnxOpset11().maxpool({in}, 1, {2, 2}, 0, {2, 2}, {}, 0, {})[0];
  b->addOutputTensor(y);
  std::vector<float> v(16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7) % 16);
  const auto out = test::runOnce(b->getModelProto(), {{in, NDArray::fromVector(v, {1, 1, 4, 4})}}, {y});
  // Window {r, r+2} x {c, c+2} for r, c in {0, 1}.
  std::vector<float> want;
  for (size_t r = 0; r < 2; ++r) {
    for (size_t c = 0; c < 2; ++c)
      want.push_back(std::max({v[r * 4 + c], v[r * 4 + c + 2], v[(r + 2) * 4 + c], v[(r + 2) * 4 + c + 2]}));
  }
  EXPECT_EQ(out.at(y).toVector<float>(), want);
}

TEST(PopartErrors, BatchNormShapes) {
  const std::map<std::string, any> none;
  const char* names[] = {"scale", "B", "mean", "var"};
  for (size_t i = 0; i < 4; ++i) {
    std::vector<Shape> shapes{{2, 2, 2, 2}, {2}, {2}, {2}, {2}};
    shapes[i + 1] = {1};
    nodeError("BatchNormalization", shapes, none,
              std::string("expected shape of batch norm input tensor ") + names[i] +
                  " ([1]) to be [2] to match dimension 1 of X ([2 2 2 2])",
              {"input " + std::to_string(i + 1) + " ('in" + std::to_string(i + 1) + "')"});
  }
}

/// One recurrent node (opset 11, X [1 1 1], hidden 1) with `attrs`: the session's error.
void recurrentError(const std::string& type, const std::map<std::string, any>& attrs, const std::string& prefix,
                    const std::vector<std::string>& fragments = {}) {
  const int64_t g = type == "LSTM" ? 4 : (type == "GRU" ? 3 : 1);
  nodeError(type, {{1, 1, 1}, {1, g, 1}, {1, g, 1}}, attrs, prefix, fragments);
}

TEST(PopartErrors, RecurrentActivationCounts) {
  using Strings = std::vector<std::string>;
  const std::string rnn = "Op n(ai.onnx.RNN:11), inputs=[in0, in1, in2]";
  recurrentError("RNN", {{"activations", Strings{"Tanh", "Tanh"}}}, rnn + " only supports 1 activation, 2 were");
  recurrentError("LSTM", {{"activations", Strings(4, "Tanh")}},
                 "Too many activations (4) specified. Number of activations should be 1 or 3.");
}

/// x -> Sin (stage / IPU 0) -> Exp (stage / IPU 1) -> y; `stages` false: only virtualGraph set.
struct TwoStage {
  std::string proto;
  TensorId x, y;
};
TwoStage twoStage(bool stages, bool allOnIpu0 = false) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  TwoStage m;
  m.x = b->addInputTensor("FLOAT", {4});
  const TensorId s = ai.sin({m.x});
  b->virtualGraph(s, 0);
  if (stages) b->pipelineStage(s, 0);
  m.y = ai.exp({s});
  b->virtualGraph(m.y, allOnIpu0 ? 0 : 1);
  if (stages) b->pipelineStage(m.y, allOnIpu0 ? 0 : 1);
  b->addOutputTensor(m.y);
  m.proto = b->getModelProto();
  return m;
}

SessionOptions pipelined(VirtualGraphMode mode = VirtualGraphMode::Manual) {
  SessionOptions o;
  o.enablePipelining = true;
  o.virtualGraphMode = mode;
  return o;
}

std::shared_ptr<DeviceInfo> twoIpus() {
  return DeviceManager::createDeviceManager().createIpuModelDevice({{"numIPUs", "2"}, {"tilesPerIPU", "4"}});
}

TEST(PopartErrors, Pipelining) {
  const TwoStage m = twoStage(true);
  const std::string needs =
      "Pipelining requires more than 1 IPU and the 'virtualGraphMode' session option to not be "
      "VirtualGraphMode::Off.";
  expectStarts(
      [&] {
        InferenceSession::createFromOnnxModel(m.proto, DataFlow(4, {m.y}), twoIpus(), {},
                                              pipelined(VirtualGraphMode::Off));
      },
      needs);
  const TwoStage one = twoStage(true, true);
  expectStarts(
      [&] { InferenceSession::createFromOnnxModel(one.proto, DataFlow(4, {one.y}), twoIpus(), {}, pipelined()); },
      needs, {"virtual graph 0"});
  // Inference: 2 stages need batchesPerStep >= 2; without pipelineStage, a stage per virtual graph.
  for (bool stages : {true, false}) {
    const TwoStage t = twoStage(stages);
    expectStarts(
        [&] { InferenceSession::createFromOnnxModel(t.proto, DataFlow(1, {t.y}), twoIpus(), {}, pipelined()); },
        "For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages (2)",
        {"batchesPerStep is 1"});
    InferenceSession::createFromOnnxModel(t.proto, DataFlow(2, {t.y}), twoIpus(), {}, pipelined());  // enough
  }
  // Auto placement: PopART's AutoVirtualGraph splits the graph over the 2 IPUs when the session
  // is made, and the Pipeline transform's depth check follows. Sin -> Exp has no weights to
  // balance: no split point.
  expectStarts(
      [&] {
        InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}), twoIpus(), {},
                                              pipelined(VirtualGraphMode::Auto));
      },
      "[AutoVirtualGraph] Couldn't find enough splits for 2 IPUs. Only found 0");
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor("FLOAT", {4});
  const std::vector<float> w0{1, 2, 3, 4};
  TensorId y = x;
  for (int i = 0; i < 2; ++i)
    y = ai.mul({y, b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo("FLOAT", {4})))});
  b->addOutputTensor(y);
  const std::string weighted = b->getModelProto();
  expectStarts(
      [&] {
        InferenceSession::createFromOnnxModel(weighted, DataFlow(1, {y}), twoIpus(), {},
                                              pipelined(VirtualGraphMode::Auto));
      },
      "For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages (2)");
  InferenceSession::createFromOnnxModel(weighted, DataFlow(2, {y}), twoIpus(), {}, pipelined(VirtualGraphMode::Auto))
      ->prepareDevice();
}

// PopART's pipeline-stage checks: every op has a stage or none has; a stage's ops share one
// virtual graph. They come before the depth check (batchesPerStep 1 would fail it here).
TEST(PopartErrors, PipelineStages) {
  auto model = [](std::vector<int64_t> vgraphs, std::vector<int64_t> stages) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset11();
    TensorId t = b->addInputTensor("FLOAT", {4});
    for (size_t i = 0; i < vgraphs.size(); ++i) {
      t = ai.exp({t}, "e" + std::to_string(i));
      b->virtualGraph(t, vgraphs[i]);
      if (stages[i] >= 0) b->pipelineStage(t, stages[i]);
    }
    b->addOutputTensor(t);
    return std::make_pair(b->getModelProto(), t);
  };
  // (pairs, not structured bindings: a C++17 lambda cannot capture those)
  const auto split = model({0, 0, 1}, {0, 1, 1});
  expectStarts(
      [&] {
        InferenceSession::createFromOnnxModel(split.first, DataFlow(1, {split.second}), twoIpus(), {}, pipelined());
      },
      "Ops [Exp 'e1_1' Exp 'e2_2'] have the same pipeline stage 1, but different virtual graph ids [0 1]. All ops with "
      "the same pipeline stage must also have the same virtual graph id");
  const auto some = model({0, 1, 1}, {0, -1, 1});
  expectStarts(
      [&] {
        InferenceSession::createFromOnnxModel(some.first, DataFlow(1, {some.second}), twoIpus(), {}, pipelined());
      },
      "Only some ops have had their pipeline stage set. Ops missing the pipeline stage:\n  Exp 'e1_1'");
  const auto good = model({0, 1, 1}, {0, 1, 1});
  InferenceSession::createFromOnnxModel(good.first, DataFlow(2, {good.second}), twoIpus(), {}, pipelined());
}

/// loss = sum(sin(x) * w) with a weight w on stage / IPU 0 and the sum on stage / IPU 1.
struct TrainModel {
  std::string proto;
  TensorId loss;
};
TrainModel trainModel() {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor("FLOAT", {4});
  const std::vector<float> w0{1, 2, 3, 4};
  const TensorId w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo("FLOAT", {4})));
  const TensorId sx = ai.sin({x});
  const TensorId p = ai.mul({sx, w});
  for (const TensorId& t : {sx, p}) {
    b->virtualGraph(t, 0);
    b->pipelineStage(t, 0);
  }
  const TensorId loss = b->aiGraphcoreOpset1().identityloss({p}, ReductionType::Sum);
  b->virtualGraph(loss, 1);
  b->pipelineStage(loss, 1);
  return {b->getModelProto(), loss};
}

// createImplicitPipeliningFwdOnlyProgram needs implicit pipelining with gradient accumulation.
TEST(PopartErrors, ImplicitPipeliningFwdOnlyProgram) {
  const TrainModel m = trainModel();
  SessionOptions o = pipelined();
  o.createImplicitPipeliningFwdOnlyProgram = true;
  o.enableGradientAccumulation = true;
  o.accumulationFactor = 4;
  auto make = [&] {
    TrainingSession::createFromOnnxModel(m.proto, DataFlow(8, {m.loss}), m.loss, ConstSGD(0.1f), twoIpus(), {}, o);
  };
  const std::string start = "Implicit pipelining forward-only program is not supported ";
  o.enablePipelining = false;
  expectStarts(make, start + "without implicit pipelining.");
  o.enablePipelining = true;
  o.enableExplicitIR(true);
  expectStarts(make, start + "with explicit pipelining.");
  o.enableExplicitIR(false);
  o.enableGradientAccumulation = false;
  o.accumulationFactor = 1;
  expectStarts(make, start + "without gradient accumulation.");
  o.enableGradientAccumulation = true;
  o.accumulationFactor = 4;
  make();  // accepted (no effect here)
}

TEST(PopartErrors, PipeliningTrainingDepth) {
  const TrainModel m = trainModel();
  // Training: 2 forward stages and 1 backward one more = 3.
  expectStarts(
      [&] {
        TrainingSession::createFromOnnxModel(m.proto, DataFlow(2, {m.loss}), m.loss, ConstSGD(0.1f), twoIpus(), {},
                                             pipelined());
      },
      "For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages (3)");
  SessionOptions ga = pipelined();
  ga.enableGradientAccumulation = true;
  ga.accumulationFactor = 2;
  expectStarts(
      [&] {
        TrainingSession::createFromOnnxModel(m.proto, DataFlow(8, {m.loss}), m.loss, ConstSGD(0.1f), twoIpus(), {}, ga);
      },
      "For pipelining, depth (gradient accumulation factor) must equal at least the number of pipeline "
      "stages (3)",
      {"accumulationFactor is 2"});
}

TEST(PopartErrors, AutomaticLossScalingOptions) {
  const TrainModel m = trainModel();
  SessionOptions o;
  o.automaticLossScalingSettings.enabled = true;
  expectStarts([&] { InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), test::cpu(), {}, o); },
               "[AutomaticLossScale transform] Only compatible when doing training");
  expectStarts(
      [&] {
        TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, ConstSGD(0.1f, 0.0f, 8.0f),
                                             test::cpu(), {}, o);
      },
      "[AutomaticLossScale transform] The optimizer must have non-const loss scaling");
  const SGD nonConst({{"defaultLearningRate", {0.1f, true}}, {"lossScaling", {8.0f, false}}});
  o.automaticLossScalingSettings.binEdgeLocation = 1.5f;
  expectStarts(
      [&] {
        TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, nonConst, test::cpu(), {}, o);
      },
      "[AutomaticLossScale transform] Out of range value for 'binEdgeLocation'. The current value is 1.5, but "
      "it should be in the range [0, 1].");
  o.automaticLossScalingSettings.binEdgeLocation = 0.5f;
  o.automaticLossScalingSettings.thresholdUpperCountProportion = -0.25f;
  expectStarts(
      [&] {
        TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, nonConst, test::cpu(), {}, o);
      },
      "Out of range value for 'thresholdUpperCountProportion'. The current value is -0.25, but it should be in "
      "the range [0, 1].");
  expectStarts([] { SGD({{"lossScaling", {0.0f, true}}}); }, "Loss scaling cannot be 0");
}

TEST(PopartErrors, InputDimsThatOverflowNameTheInput) {
  auto b = Builder::create();
  expectStarts(
      [&] {
        b->addInputTensor("FLOAT", {4294967296, 4294967296}, "big");
      },
      "Invalid shape [4294967296 4294967296]", {"element count overflows", "the input 'big' declared FLOAT"});
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

TEST(PopartErrors, ExceptionClassesOfTheBindings) {
  // One list for Python and JS: bases first, each base a class of the list.
  std::set<std::string> seen;
  for (const auto& c : errorClasses()) {
    if (*c.base) {
      EXPECT_TRUE(seen.count(c.base)) << c.name << " before its base " << c.base;
    }
    EXPECT_TRUE(seen.insert(c.name).second) << c.name;
    EXPECT_GT(std::string(c.doc).size(), 10u) << c.name;
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_STREQ(errorClassOf(error("x")), "popart_exception");
  EXPECT_STREQ(errorClassOf(internal_error("x")), "popart_internal_exception");
  EXPECT_STREQ(errorClassOf(runtime_error("x")), "popart_runtime_error");
  EXPECT_STREQ(errorClassOf(memory_allocation_err("x")), "OutOfMemoryException");
  EXPECT_STREQ(errorClassOf(OutOfMemoryException("x", "summary")), "OutOfMemoryException");
  EXPECT_STREQ(errorClassOf(poplar_error("x")), "poplar_exception");
  EXPECT_STREQ(errorClassOf(poplar_runtime_error("x")), "poplar_runtime_error");
  EXPECT_STREQ(errorClassOf(pattern_error("x")), "popart_exception");
  EXPECT_STREQ(errorClassOf(std::out_of_range("x")), "popart_exception");
}

}  // namespace
}  // namespace popart
