// aiGraphcore.call (subgraphs from createSubgraphBuilder): values against references computed here
// in double precision (typed, untyped and parent-scope callee inputs, a callee called twice,
// nested calls), the ONNX round trip, gradients through the callee against central finite
// differences in DOUBLE, random ops in a callee drawing once for the forward and backward pass,
// PopART's errors and the IPU model's cost of a call.
#include <cmath>

#include "common/training_harness.hpp"
#include "onnx.pb.h"

namespace popart {
namespace {

using test::expectError;
using test::expectNear;

NDArray doubles(const std::vector<double>& v, const Shape& s) {
  return NDArray::fromVector(v, s);
}

std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t n, int64_t k,
                           int64_t m) {
  std::vector<double> c(static_cast<size_t>(n * m), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      for (int64_t t = 0; t < k; ++t)
        c[static_cast<size_t>(i * m + j)] += a[static_cast<size_t>(i * k + t)] * b[static_cast<size_t>(t * m + j)];
  return c;
}

/// sg(a, b, c) = [(a + b) @ c, tanh(a)] with typed or untyped inputs.
Builder& addMulSubgraph(Builder& parent, bool typed, const Shape& s) {
  Builder& sg = parent.createSubgraphBuilder();
  const TensorInfo info(DataType::DOUBLE, s);
  const TensorId a = typed ? sg.addInputTensor(info) : sg.addUntypedInputTensor();
  const TensorId b = typed ? sg.addInputTensor(info) : sg.addUntypedInputTensor();
  const TensorId c = typed ? sg.addInputTensor(info) : sg.addUntypedInputTensor();
  auto ai = sg.aiOnnxOpset11();
  sg.addOutputTensor(ai.matmul({ai.add({a, b}), c}));
  sg.addOutputTensor(ai.tanh({a}));
  return sg;
}

TEST(GraphcoreCall, TwoOutputsTypedAndUntypedInputsCalledTwice) {
  const Shape s{3, 3};
  const auto a = test::randomDoubles(9, 1), b = test::randomDoubles(9, 2), c = test::randomDoubles(9, 3);
  for (bool typed : {true, false}) {
    auto bld = Builder::create();
    const TensorInfo info(DataType::DOUBLE, s);
    const TensorId ia = bld->addInputTensor(info), ib = bld->addInputTensor(info), ic = bld->addInputTensor(info);
    Builder& sg = addMulSubgraph(*bld, typed, s);
    auto gc = bld->aiGraphcoreOpset1();
    const auto first = gc.call({ia, ib, ic}, 2, sg);
    ASSERT_EQ(first.size(), 2u);
    EXPECT_EQ(bld->getTensorShape(first[0]), s);
    EXPECT_EQ(bld->getTensorDtypeString(first[1]), "float64");
    // The same callee again, on the first call's output: ((a + b) @ c + b) @ c.
    const auto second = gc.call({first[0], ib, ic}, 2, sg);
    for (const auto& t : {first[0], first[1], second[0], second[1]}) bld->addOutputTensor(t);
    const auto res =
        test::runOnce(bld->getModelProto(), {{ia, doubles(a, s)}, {ib, doubles(b, s)}, {ic, doubles(c, s)}},
                      {first[0], first[1], second[0], second[1]});
    std::vector<double> apb(9), t(9);
    for (size_t i = 0; i < 9; ++i) {
      apb[i] = a[i] + b[i];
      t[i] = std::tanh(a[i]);
    }
    const auto y0 = matmul(apb, c, 3, 3, 3);
    std::vector<double> y0pb(9), t0(9);
    for (size_t i = 0; i < 9; ++i) {
      y0pb[i] = y0[i] + b[i];
      t0[i] = std::tanh(y0[i]);
    }
    expectNear(res.at(first[0]).toVector<double>(), y0, 1e-12);
    expectNear(res.at(first[1]).toVector<double>(), t, 1e-12);
    expectNear(res.at(second[0]).toVector<double>(), matmul(y0pb, c, 3, 3, 3), 1e-12);
    expectNear(res.at(second[1]).toVector<double>(), t0, 1e-12);
  }
}

/// sg1(x, y) = Call(sg0, [x * y]) + y with sg0(z) = 2 z - sin(z); sg0 also reads the parent's p.
TEST(GraphcoreCall, NestedCallsAndParentScopeTensors) {
  const Shape s{4};
  const auto x = test::randomDoubles(4, 4), y = test::randomDoubles(4, 5), p = test::randomDoubles(4, 6);
  auto bld = Builder::create();
  const TensorInfo info(DataType::DOUBLE, s);
  const TensorId ix = bld->addInputTensor(info), iy = bld->addInputTensor(info), ip = bld->addInputTensor(info);
  Builder& sg1 = bld->createSubgraphBuilder();
  const TensorId sx = sg1.addUntypedInputTensor(), sy = sg1.addUntypedInputTensor();
  Builder& sg0 = sg1.createSubgraphBuilder();
  const TensorId z = sg0.addUntypedInputTensor();
  sg0.addInputTensorFromParentGraph(ip);
  auto a0 = sg0.aiOnnxOpset11();
  sg0.addOutputTensor(a0.add({a0.sub({a0.add({z, z}), a0.sin({z})}), ip}));
  auto a1 = sg1.aiOnnxOpset11();
  // sg0's second input is named after the main graph's ip (PopART's addInputTensorFromParentGraph):
  // the call binds it like any input.
  const TensorId inner = sg1.aiGraphcoreOpset1().call({a1.mul({sx, sy}), ip}, 1, sg0)[0];
  sg1.addOutputTensor(a1.add({inner, sy}));
  const TensorId out = bld->aiGraphcoreOpset1().call({ix, iy}, 1, sg1)[0];
  bld->addOutputTensor(out);
  const auto res =
      test::runOnce(bld->getModelProto(), {{ix, doubles(x, s)}, {iy, doubles(y, s)}, {ip, doubles(p, s)}}, {out});
  std::vector<double> want(4);
  for (size_t i = 0; i < 4; ++i) {
    const double zz = x[i] * y[i];
    want[i] = 2 * zz - std::sin(zz) + p[i] + y[i];
  }
  expectNear(res.at(out).toVector<double>(), want, 1e-12);
}

TEST(GraphcoreCall, OnnxRoundTrip) {
  const Shape s{2, 2};
  auto bld = Builder::create();
  const TensorInfo info(DataType::DOUBLE, s);
  const TensorId ia = bld->addInputTensor(info), ib = bld->addInputTensor(info), ic = bld->addInputTensor(info);
  Builder& sg = addMulSubgraph(*bld, false, s);
  const auto outs = bld->aiGraphcoreOpset1().call({ia, ib, ic}, 2, sg);
  bld->addOutputTensor(outs[0]);
  const std::string proto = bld->getModelProto();
  // As PopART writes it: an ai.graphcore Call node with num_outputs and the GRAPH attribute callee.
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(proto));
  const onnx::NodeProto* call = nullptr;
  for (const auto& n : m.graph().node())
    if (n.op_type() == "Call") call = &n;
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->domain(), "ai.graphcore");
  bool sawCallee = false, sawNum = false;
  for (const auto& a : call->attribute()) {
    if (a.name() == "callee") {
      sawCallee = a.type() == onnx::AttributeProto::GRAPH && a.g().input_size() == 3 && a.g().output_size() == 2;
    }
    if (a.name() == "num_outputs") sawNum = a.i() == 2;
  }
  EXPECT_TRUE(sawCallee);
  EXPECT_TRUE(sawNum);
  // Loaded back into a Builder and saved again: the same node, the same values.
  auto again = Builder::createFromOnnxModel(proto);
  const std::string proto2 = again->getModelProto();
  const auto a = test::randomDoubles(4, 7), b = test::randomDoubles(4, 8), c = test::randomDoubles(4, 9);
  const std::map<TensorId, NDArray> in{{ia, doubles(a, s)}, {ib, doubles(b, s)}, {ic, doubles(c, s)}};
  const auto r1 = test::runOnce(proto, in, {outs[0]});
  const auto r2 = test::runOnce(proto2, in, {outs[0]});
  std::vector<double> apb(4);
  for (size_t i = 0; i < 4; ++i) apb[i] = a[i] + b[i];
  expectNear(r1.at(outs[0]).toVector<double>(), matmul(apb, c, 2, 2, 2), 1e-12);
  expectNear(r2.at(outs[0]).toVector<double>(), r1.at(outs[0]).toVector<double>(), 0);
}

TEST(GraphcoreCall, GradientsThroughTheCallee) {
  // A weight passed as an argument, a weight the callee reads from the parent, and the inputs
  // (anchored as Gradient___<input>), through a callee called twice.
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset11();
  const auto x = mb.input({2, 3}, 11);
  const auto w = mb.weight({3, 3}, 12);
  const auto v = mb.weight({3}, 13);
  Builder& sg = mb.b->createSubgraphBuilder();
  const TensorId sx = sg.addUntypedInputTensor(), sw = sg.addUntypedInputTensor();
  sg.addInputTensorFromParentGraph(v);
  auto sai = sg.aiOnnxOpset11();
  sg.addOutputTensor(sai.tanh({sai.add({sai.matmul({sx, sw}), v})}));
  auto gc = mb.b->aiGraphcoreOpset1();
  const TensorId h = gc.call({x, w, v}, 1, sg)[0];
  const TensorId y = gc.call({h, w, v}, 1, sg)[0];
  test::checkGradients(mb, mb.weightedSum(ai, y, {2, 3}, 14));
}

TEST(GraphcoreCall, GradientsThroughNestedCalls) {
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset11();
  const auto x = mb.input({4}, 21);
  const auto w = mb.weight({4}, 22);
  Builder& outer = mb.b->createSubgraphBuilder();
  const TensorId ox = outer.addUntypedInputTensor(), ow = outer.addUntypedInputTensor();
  Builder& inner = outer.createSubgraphBuilder();
  const TensorId iz = inner.addUntypedInputTensor();
  inner.addInputTensorFromParentGraph(ow);  // a tensor of the outer callee
  auto iai = inner.aiOnnxOpset11();
  inner.addOutputTensor(iai.mul({iai.sin({iz}), ow}));
  auto oai = outer.aiOnnxOpset11();
  const TensorId r = outer.aiGraphcoreOpset1().call({oai.mul({ox, ow}), ow}, 1, inner)[0];
  outer.addOutputTensor(oai.add({r, ox}));
  const TensorId y = mb.b->aiGraphcoreOpset1().call({x, w}, 1, outer)[0];
  test::checkGradients(mb, mb.weightedSum(ai, y, {4}, 23));
}

TEST(GraphcoreCall, TrainingUpdatesAWeightUsedInTheCallee) {
  // SGD with lr 0.1 on loss = sum(call(x, w)) with callee x * w: w' = w - 0.1 * x.
  auto bld = Builder::create();
  const Shape s{3};
  const std::vector<float> x{1.0f, -2.0f, 0.5f}, w0{0.25f, 0.5f, -1.0f};
  const TensorId ix = bld->addInputTensor(TensorInfo(DataType::FLOAT, s));
  const TensorId w = bld->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo(DataType::FLOAT, s)));
  Builder& sg = bld->createSubgraphBuilder();
  const TensorId a = sg.addUntypedInputTensor(), b = sg.addUntypedInputTensor();
  sg.addOutputTensor(sg.aiOnnxOpset11().mul({a, b}));
  const TensorId y = bld->aiGraphcoreOpset1().call({ix, w}, 1, sg)[0];
  const TensorId loss = bld->aiGraphcoreOpset1().identityloss({y}, ReductionType::Sum);
  const std::string gx = std::string(reservedGradientPrefix()) + ix;
  auto session = TrainingSession::createFromOnnxModel(
      bld->getModelProto(), DataFlow(1, std::vector<TensorId>{loss, gx}), loss, ConstSGD(0.1f), test::cpu());
  session->prepareDevice();
  session->weightsFromHost();
  std::vector<float> lossOut(1), gxOut(3);
  NDArrayWrapper<float> xIn(const_cast<float*>(x.data()), s), lossW(lossOut.data(), Shape{}), gxW(gxOut.data(), s);
  std::map<TensorId, IArray&> ins{{ix, xIn}}, outs{{loss, lossW}, {gx, gxW}};
  StepIO io(ins, outs);
  session->run(io);
  std::vector<float> wOut(3);
  WeightsIO wio;
  wio.insert(w, MutableVoidData(wOut.data(), TensorInfo(DataType::FLOAT, s)));
  session->weightsToHost();
  session->readWeights(wio);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(wOut[i], w0[i] - 0.1f * x[i], 1e-6f) << i;
    EXPECT_NEAR(gxOut[i], w0[i], 1e-6f) << i;  // d loss / d x = w (before the update)
  }
  EXPECT_NEAR(lossOut[0], x[0] * w0[0] + x[1] * w0[1] + x[2] * w0[2], 1e-6f);
}

TEST(GraphcoreCall, RandomOpsInCalleesDrawOnceForForwardAndBackward) {
  // A Dropout inside a callee called twice, trained for 2 batches: each call's gradient is
  // dropped where its output is (the backward pass reads the forward mask, not a second draw),
  // the two calls and the two batches draw different masks. With a callee drawing random numbers
  // the training IR has no Call left (it is inlined); inference keeps it.
  const int64_t n = 64, bps = 2;
  auto bld = Builder::create();
  const TensorId x = bld->addInputTensor(TensorInfo(DataType::FLOAT, {n}));
  Builder& sg = bld->createSubgraphBuilder();
  const TensorId sx = sg.addUntypedInputTensor();
  sg.addOutputTensor(sg.aiOnnxOpset10().dropout({sx}, 1, 0.5f)[0]);
  auto gc = bld->aiGraphcoreOpset1();
  auto ai = bld->aiOnnxOpset10();
  const TensorId a0 = gc.scale({x}, 0.5f), a1 = gc.scale({x}, 0.25f);
  const TensorId y0 = gc.call({a0}, 1, sg)[0], y1 = gc.call({a1}, 1, sg)[0];
  const TensorId loss = gc.identityloss({ai.add({y0, y1})}, ReductionType::Sum);
  const std::string g0 = std::string(reservedGradientPrefix()) + a0, g1 = std::string(reservedGradientPrefix()) + a1;
  auto session = TrainingSession::createFromOnnxModel(
      bld->getModelProto(), DataFlow(bps, std::vector<TensorId>{y0, y1, g0, g1}), loss, ConstSGD(0.1f), test::cpu());
  session->prepareDevice();
  session->weightsFromHost();
  session->setRandomSeed(7);
  std::vector<float> xs(static_cast<size_t>(n * bps), 1.0f);
  std::map<TensorId, std::vector<float>> out;
  for (const auto& id : {y0, y1, g0, g1}) out[id].resize(static_cast<size_t>(n * bps));
  NDArrayWrapper<float> xIn(xs.data(), Shape{bps, n});
  std::vector<NDArrayWrapper<float>> wrappers;
  wrappers.reserve(4);
  std::map<TensorId, IArray&> ins{{x, xIn}}, outs;
  for (auto& [id, v] : out) outs.emplace(id, wrappers.emplace_back(v.data(), Shape{bps, n}));
  StepIO io(ins, outs);
  session->run(io);
  const auto dropped = [&](const TensorId& id, int64_t step) {
    std::vector<bool> d;
    for (int64_t i = 0; i < n; ++i) d.push_back(out[id][static_cast<size_t>(step * n + i)] == 0.0f);
    return d;
  };
  for (int64_t step = 0; step < bps; ++step) {
    EXPECT_EQ(dropped(y0, step), dropped(g0, step)) << "call 0, batch " << step;
    EXPECT_EQ(dropped(y1, step), dropped(g1, step)) << "call 1, batch " << step;
    EXPECT_NE(dropped(y0, step), dropped(y1, step)) << "batch " << step;
    for (int64_t i = 0; i < n; ++i) {  // kept elements scaled by 1 / (1 - ratio)
      if (!dropped(y0, step)[static_cast<size_t>(i)]) {
        EXPECT_FLOAT_EQ(out[y0][static_cast<size_t>(step * n + i)], 1.0f) << i;
      }
    }
  }
  EXPECT_NE(dropped(y0, 0), dropped(y0, 1));
  EXPECT_EQ(session->serializeIr().find("\"type\":\"Call\""), std::string::npos);
  EXPECT_NE(session->serializeIr().find("\"type\":\"Dropout\""), std::string::npos);

  bld->addOutputTensor(y0);
  auto inference = InferenceSession::createFromOnnxModel(bld->getModelProto(), DataFlow(1, {y0}), test::cpu());
  inference->prepareDevice();
  EXPECT_NE(inference->serializeIr().find("\"type\":\"Call\""), std::string::npos);
}

TEST(GraphcoreCall, PopArtErrors) {
  auto bld = Builder::create();
  const TensorInfo info(DataType::FLOAT, {2});
  const TensorId a = bld->addInputTensor(info), b = bld->addInputTensor(info);
  Builder& sg = bld->createSubgraphBuilder();
  const TensorId s0 = sg.addInputTensor(info);
  sg.addOutputTensor(sg.aiOnnxOpset11().neg({s0}));
  auto gc = bld->aiGraphcoreOpset1();
  expectError(
      [&] {
        gc.call({a, b}, 1, sg, DebugContext("two"));
      },
      {"For CallOp '", "number of inputs (2) does not match that of the callee subgraph (1)"});
  expectError([&] { gc.call({a}, 2, sg); }, {"number of outputs (2) does not match that of the callee subgraph (1)"});
  // A typed callee input must match its argument (the session's shape inference says so).
  const TensorId i3 = bld->addInputTensor(TensorInfo(DataType::FLOAT, {3}));
  const TensorId y = gc.call({i3}, 1, sg)[0];
  bld->addOutputTensor(y);
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(bld->getModelProto(), DataFlow(1, {y}), test::cpu())->prepareDevice();
      },
      {"does not match the callee's input", "FLOAT [3]"});
}

TEST(GraphcoreCall, IpuModelCostsTheCallee) {
  // The call's FLOPs are its callee's (2 n^3 per matmul, nested calls included) and its cycles
  // grow with the work inside.
  int64_t previous = 0;
  for (int64_t n : {16, 64, 256}) {
    auto bld = Builder::create();
    const TensorInfo info(DataType::FLOAT, {n, n});
    const TensorId a = bld->addInputTensor(info), b = bld->addInputTensor(info);
    Builder& outer = bld->createSubgraphBuilder();
    const TensorId oa = outer.addUntypedInputTensor(), ob = outer.addUntypedInputTensor();
    Builder& inner = outer.createSubgraphBuilder();
    const TensorId ia = inner.addUntypedInputTensor(), ib = inner.addUntypedInputTensor();
    inner.addOutputTensor(inner.aiOnnxOpset11().matmul({ia, ib}));
    const TensorId m = outer.aiGraphcoreOpset1().call({oa, ob}, 1, inner)[0];
    outer.addOutputTensor(outer.aiOnnxOpset11().matmul({m, ob}));
    const TensorId y = bld->aiGraphcoreOpset1().call({a, b}, 1, outer, DebugContext("theCall"))[0];
    bld->addOutputTensor(y);
    auto s = InferenceSession::createFromOnnxModel(bld->getModelProto(), DataFlow(1, {y}),
                                                   DeviceManager::createDeviceManager().createOfflineIPUDevice());
    s->prepareDevice();
    const report::Compilation c = s->getReport().compilation;
    const report::Op* call = nullptr;
    for (const auto& op : c.ops)
      if (op.type == "Call") call = &op;
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->flops, 2 * 2 * n * n * n) << n;
    EXPECT_GT(call->computeCycles, previous) << n;
    previous = call->computeCycles;
  }
}

}  // namespace
}  // namespace popart
