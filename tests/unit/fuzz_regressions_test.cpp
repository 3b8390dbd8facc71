// Regressions found by the libFuzzer harnesses (tests/fuzz, scripts/fuzz.sh): each test is the
// smallest form of an input that crashed, hung or tripped a sanitizer. This file also runs under
// ASan + UBSan, where the undefined behaviour these fixed would fail it.
#include <cstring>
#include <limits>

#include "common/attributes.hpp"
#include "common/onnx_proto.hpp"
#include "common/test_util.hpp"
#include "onnx.pb.h"

namespace popart {
namespace {

using test::expectError;

template <typename T>
std::vector<T> values(const NDArray& a) {
  const T* p = a.dataAs<T>();
  return std::vector<T>(p, p + a.nelms());
}

// Pow of an integer base read its double result back with a plain cast: 0 ** -1 (inf) and
// 2 ** 100 were undefined behaviour. Results past the type's range now saturate.
TEST(FuzzRegressions, IntegerPowSaturates) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  const TensorId x = builder->addInputTensor(TensorInfo("INT64", {4}), "x");
  const TensorId e = builder->addInputTensor(TensorInfo("FLOAT", {4}), "e");
  const TensorId y = ai.pow({x, e}, "Pow_mixed");
  const TensorId xi = builder->addInputTensor(TensorInfo("INT32", {2}), "xi");
  const TensorId ei = builder->addInputTensor(TensorInfo("INT32", {2}), "ei");
  const TensorId yi = ai.pow({xi, ei}, "Pow_int");
  builder->addOutputTensor(y);
  builder->addOutputTensor(yi);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector<int64_t>({0, 2, 10, -10}, {4}));
  in.emplace(e, NDArray::fromVector<float>({-1.0f, 100.0f, 30.0f, 31.0f}, {4}));
  in.emplace(xi, NDArray::fromVector<int32_t>({2, 3}, {2}));
  in.emplace(ei, NDArray::fromVector<int32_t>({40, 2}, {2}));
  auto out = test::runOnce(builder->getModelProto(), in, {y, yi});
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(values<int64_t>(out.at(y)), (std::vector<int64_t>{kMax, kMax, kMax, kMin}));
  EXPECT_EQ(values<int32_t>(out.at(yi)), (std::vector<int32_t>{std::numeric_limits<int32_t>::max(), 9}));
}

// Cast of a finite float outside the target integer type (1e10 to INT32, -1.25 to UINT8) was
// undefined behaviour; it saturates now (NaN and inf still give 0).
TEST(FuzzRegressions, CastSaturates) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  const TensorId x = builder->addInputTensor(TensorInfo("FLOAT", {5}), "x");
  const TensorId i32 = ai.cast({x}, "INT32");
  const TensorId u8 = ai.cast({x}, "UINT8");
  builder->addOutputTensor(i32);
  builder->addOutputTensor(u8);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector<float>({1e10f, -1e10f, -1.25f, 300.0f, std::nanf("")}, {5}));
  auto out = test::runOnce(builder->getModelProto(), in, {i32, u8});
  EXPECT_EQ(values<int32_t>(out.at(i32)), (std::vector<int32_t>{std::numeric_limits<int32_t>::max(),
                                                                std::numeric_limits<int32_t>::min(), -1, 300, 0}));
  EXPECT_EQ(values<uint8_t>(out.at(u8)), (std::vector<uint8_t>{255, 0, 0, 255, 0}));
}

// Integer reductions cast log(0) = -inf (ReduceLogSum of zeros) and the NaN mean of an empty
// axis with a plain cast; they saturate now.
TEST(FuzzRegressions, IntegerReductionsSaturate) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  const TensorId x = builder->addInputTensor(TensorInfo("UINT8", {2, 3}), "x");
  const TensorId logsum = ai.reducelogsum({x}, {1}, 0);
  const TensorId e = builder->addInputTensor(TensorInfo("INT32", {2, 0}), "e");
  const TensorId mean = ai.reducemean({e}, {1}, 0);
  builder->addOutputTensor(logsum);
  builder->addOutputTensor(mean);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector<uint8_t>({0, 0, 0, 1, 2, 3}, {2, 3}));
  in.emplace(e, NDArray(DataType::INT32, {2, 0}));
  auto out = test::runOnce(builder->getModelProto(), in, {logsum, mean});
  EXPECT_EQ(values<uint8_t>(out.at(logsum)), (std::vector<uint8_t>{0, 1}));  // log(0) = -inf -> 0; log(6)
  EXPECT_EQ(values<int32_t>(out.at(mean)), (std::vector<int32_t>{0, 0}));    // NaN -> 0
}

// A Sum anchor of a tensor with no elements copied its (empty) sum with memcpy into the null
// buffer of an empty array.
TEST(FuzzRegressions, EmptySumAnchor) {
  const test::ReluModel m = test::reluModel({2, 0});
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(2, {{m.y, AnchorReturnType("Sum")}}), test::cpu());
  s->prepareDevice();
  std::map<TensorId, NDArray> in;
  in.emplace(m.x, NDArray(DataType::FLOAT, {2, 2, 0}));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(out));
  s->run(io);
  EXPECT_EQ(out.at(m.y).nelms(), 0u);
}

// An empty FLOAT16 initializer written in PopART's packed int32_data form called memcpy with
// null pointers (undefined behaviour, even for zero bytes). It round-trips as an empty tensor now.
TEST(FuzzRegressions, EmptyHalfInitializer) {
  auto builder = Builder::create();
  const TensorId w = builder->addInitializedInputTensor(ConstVoidData(nullptr, TensorInfo("FLOAT16", {0, 3})), "w");
  builder->addOutputTensor(builder->aiOnnxOpset13().identity({w}));
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(builder->getModelProto()));
  ASSERT_EQ(proto.graph().initializer_size(), 1);
  EXPECT_EQ(proto.graph().initializer(0).int32_data_size(), 0);
  auto s = InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1, {w}), test::cpu());
  s->prepareDevice();
  auto out = s->initAnchorArrays();
  StepIO io({}, arrayRefs(out));
  s->run(io);
  EXPECT_EQ(out.at(w).nelms(), 0u);
}

// A JS caller's numOutputs of 4294967295 made the Builder name four billion outputs (hours).
TEST(FuzzRegressions, BuilderRefusesAbsurdOutputCounts) {
  auto builder = Builder::create();
  const TensorId x = builder->addInputTensor(TensorInfo("FLOAT", {2}), "x");
  expectError(
      [&] {
        builder->customOp({"custom.domain", "Thing", 1}, 1, {x}, 0xFFFFFFFFu, {});
      },
      {"Thing has an invalid number of outputs 4294967295", "Must be at most 65536"});
  expectError([&] { builder->opsetOp("", 13, "Split", {x}, 100000, {}, DebugContext("Split_many"), 1, 2); },
              {"Split has an invalid number of outputs 100000"});
  // The builder still works.
  const auto outs = builder->customOp({"custom.domain", "Thing", 1}, 1, {x}, 2, {});
  EXPECT_EQ(outs.size(), 2u);
}

// InputShapeInfo accepted the type UNDEFINED for a stream input, whose arrays then had no bytes.
TEST(FuzzRegressions, InputShapeInfoNeedsAType) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  const TensorId x = builder->addInputTensor(TensorInfo("FLOAT", {2}), "x");
  builder->addOutputTensor(ai.relu({x}));
  InputShapeInfo isi;
  isi.add(x, TensorInfo("UNDEFINED", {2}));
  expectError(
      [&] { InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1, {x}), test::cpu(), isi); },
      {"InputShapeInfo gives input tensor 'x' the type UNDEFINED"});
}

// Integer Add, Sub, Mul, Neg, Abs, Div and Mod overflowed (signed overflow is undefined
// behaviour; INT64_MIN / -1 traps on x86). Integer arithmetic wraps around now, as in other
// ONNX runtimes.
TEST(FuzzRegressions, IntegerArithmeticWraps) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  const TensorId a = builder->addInputTensor(TensorInfo("INT64", {3}), "a");
  const TensorId b = builder->addInputTensor(TensorInfo("INT64", {3}), "b");
  const std::vector<TensorId> outs{ai.add({a, b}), ai.sub({a, b}), ai.mul({a, b}), ai.div({a, b}),
                                   ai.mod({a, b}), ai.neg({a}),    ai.abs({a})};
  for (const auto& o : outs) builder->addOutputTensor(o);
  std::map<TensorId, NDArray> in;
  in.emplace(a, NDArray::fromVector<int64_t>({kMax, kMin, 7}, {3}));
  in.emplace(b, NDArray::fromVector<int64_t>({1, -1, 2}, {3}));
  auto out = test::runOnce(builder->getModelProto(), in, outs);
  EXPECT_EQ(values<int64_t>(out.at(outs[0])), (std::vector<int64_t>{kMin, kMax, 9}));          // add
  EXPECT_EQ(values<int64_t>(out.at(outs[1])), (std::vector<int64_t>{kMax - 1, kMin + 1, 5}));  // sub
  EXPECT_EQ(values<int64_t>(out.at(outs[2])), (std::vector<int64_t>{kMax, kMin, 14}));         // mul
  EXPECT_EQ(values<int64_t>(out.at(outs[3])), (std::vector<int64_t>{kMax, kMin, 3}));          // div: kMin / -1
  EXPECT_EQ(values<int64_t>(out.at(outs[4])), (std::vector<int64_t>{0, 0, 1}));                // mod: kMin % -1
  EXPECT_EQ(values<int64_t>(out.at(outs[5])), (std::vector<int64_t>{-kMax, kMin, -7}));        // neg
  EXPECT_EQ(values<int64_t>(out.at(outs[6])), (std::vector<int64_t>{kMax, kMin, 7}));          // abs
}

// A scalar passed normalizeAxis with axis 0 (as if it had one axis); Split and ArgMax then read
// dimension 0 of an empty shape.
TEST(FuzzRegressions, AxisOfAScalar) {
  for (const char* op : {"Split", "ArgMax"}) {
    auto builder = Builder::create();
    auto ai = builder->aiOnnxOpset13();
    const TensorId x = builder->addInputTensor(TensorInfo("FLOAT", {}), "x");
    const TensorId y =
        std::string(op) == "Split" ? ai.split({x}, 1, 0, "Split_scalar")[0] : ai.argmax({x}, 0, 1, 0, "ArgMax_scalar");
    builder->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                {std::string(op) + "_scalar", "axis 0 is out of range for a tensor of rank 0"});
  }
}

// Small ONNX models written directly (the Builder checks what these tests feed the importer).

/// A model at ai.onnx `opset` with an empty graph "g".
onnx::ModelProto modelAt(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

/// A FLOAT value of the given dims (the shape is present even for a scalar).
void floatValue(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tt->mutable_shape();
  for (auto d : dims) shape->add_dim()->set_dim_value(d);
}

using test::addNode;
using test::graphAttr;
using test::intAttr;

std::string bytesOf(const onnx::ModelProto& m) {
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

/// y = Scan(x) with the body y_t = Identity(x_t) and the given attributes.
std::string scanModel(int opset, const std::vector<int64_t>& inShape, int64_t numScanInputs,
                      const std::vector<int64_t>& scanInputAxes) {
  onnx::ModelProto m = modelAt(opset);
  auto* g = m.mutable_graph();
  floatValue(g->add_input(), "x", inShape);
  g->add_output()->set_name("y");
  std::vector<std::string> inputs{"x"};
  if (opset < 9) inputs.insert(inputs.begin(), "");  // sequence_lens
  auto* n = addNode(g, "Scan", inputs, {"y"}, "Scan_fuzz");
  intAttr(n, "num_scan_inputs", numScanInputs);
  if (!scanInputAxes.empty()) {
    auto* axes = n->add_attribute();
    axes->set_name("scan_input_axes");
    axes->set_type(onnx::AttributeProto::INTS);
    for (auto v : scanInputAxes) axes->add_ints(v);
  }
  auto* body = graphAttr(n, "body");
  body->add_input()->set_name("xt");
  body->add_output()->set_name("yt");
  addNode(body, "Identity", {"xt"}, {"yt"});
  return bytesOf(m);
}

// Scan's num_scan_inputs sized a vector (a negative count threw std::length_error), its
// scan_input_axes were read with at() (std::out_of_range), and an opset-8 input without a batch
// dimension was erased from an empty shape.
TEST(FuzzRegressions, ScanAttributes) {
  auto create = [](const std::string& model) {
    InferenceSession::createFromOnnxModel(model, DataFlow(1, {"y"}), test::cpu());
  };
  expectError(
      [&] {
        create(scanModel(11, {3, 2}, -1, {}));
      },
      {"Scan_fuzz", "num_scan_inputs = -1 must be between 1 and the number of inputs (1)"});
  expectError(
      [&] {
        create(scanModel(11, {3, 2}, 1, {0, 1}));
      },
      {"Scan_fuzz", "scan_input_axes [0 1] must have 1 entries (num_scan_inputs)"});
  expectError([&] { create(scanModel(8, {}, 1, {})); },
              {"Scan_fuzz", "input 1 ('x') must have a batch dimension (Scan opset 8), got FLOAT []"});
  // The well-formed node still runs.
  auto s = InferenceSession::createFromOnnxModel(scanModel(11, {3, 2}, 1, {}), DataFlow(1, {"y"}), test::cpu());
  s->prepareDevice();
}

// An opset-8 Scan whose state had another batch size than its scan input ([1, 2] and [4, 3, 2])
// read and wrote the state for 4 batch elements: a heap overflow (the test command's fuzz run).
TEST(FuzzRegressions, ScanBatchMismatch) {
  auto model = [](int64_t stateBatch) {
    onnx::ModelProto m = modelAt(8);
    auto* g = m.mutable_graph();
    floatValue(g->add_input(), "initial", {stateBatch, 2});
    floatValue(g->add_input(), "x", {4, 3, 2});
    g->add_output()->set_name("y");
    g->add_output()->set_name("z");
    auto* n = addNode(g, "Scan", {"", "initial", "x"}, {"y", "z"}, "Scan_batch");
    intAttr(n, "num_scan_inputs", 1);
    auto* body = graphAttr(n, "body");
    floatValue(body->add_input(), "sum_in", {2});
    floatValue(body->add_input(), "next", {2});
    body->add_output()->set_name("sum_out");
    body->add_output()->set_name("scan_out");
    addNode(body, "Add", {"sum_in", "next"}, {"sum_out"});
    addNode(body, "Identity", {"sum_out"}, {"scan_out"});
    return bytesOf(m);
  };
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(model(1), DataFlow(1, std::vector<TensorId>{"y", "z"}), test::cpu());
      },
      {"Scan_batch", "input 1 ('initial') is FLOAT [1 2]",
       "Scan (opset 8) inputs after sequence_lens must all start with the batch dimension 4"});
  // With matching batches it runs: each batch element's state sums its 3 steps.
  auto s = InferenceSession::createFromOnnxModel(model(4), DataFlow(1, {"y"}), test::cpu());
  s->prepareDevice();
  std::vector<float> init(8, 0.0f), x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  std::map<TensorId, NDArray> ins;
  ins.emplace("initial", NDArray::fromVector(init, {4, 2}));
  ins.emplace("x", NDArray::fromVector(x, {4, 3, 2}));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(ins), arrayRefs(out));
  s->run(io);
  const auto y = out.at("y").toVector<float>();
  ASSERT_EQ(y.size(), 8u);
  EXPECT_EQ(y[0], 0.0f + 2 + 4);     // batch 0, element 0: x[0][t][0] for t = 0..2
  EXPECT_EQ(y[7], 19.0f + 21 + 23);  // batch 3, element 1
}

// BOOL bytes other than 0 and 1 (raw_data 0x07 in a model, 7 in a user's array) were read as C++
// bools, which is undefined behaviour: the model's are made 0/1 at import, the user's are refused.
TEST(FuzzRegressions, BoolBytes) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  const uint8_t raw[3] = {7, 0, 255};
  const TensorId w = builder->addInitializedInputTensor(ConstVoidData(raw, TensorInfo("BOOL", {3})), "w");
  const TensorId x = builder->addInputTensor(TensorInfo("BOOL", {3}), "x");
  const TensorId y = ai.logical_and({ai.logical_not({w}), x});
  builder->addOutputTensor(y);
  auto s = InferenceSession::createFromOnnxModel(builder->getModelProto(), DataFlow(1, {y}), test::cpu());
  s->prepareDevice();
  auto run = [&](std::vector<uint8_t> xs) {
    std::map<TensorId, NDArray> in;
    NDArray a(DataType::BOOL, {3});
    std::memcpy(a.data(), xs.data(), 3);
    in.emplace(x, std::move(a));
    auto out = s->initAnchorArrays();
    StepIO io(arrayRefs(in), arrayRefs(out));
    s->run(io);
    const auto* p = static_cast<const uint8_t*>(out.at(y).data());
    return std::vector<uint8_t>(p, p + 3);
  };
  EXPECT_EQ(run({1, 1, 1}), (std::vector<uint8_t>{0, 1, 0}));
  expectError(
      [&] {
        run({1, 2, 1});
      },
      {"input 'x' is BOOL, but its element 1 holds the byte 2: BOOL elements must be 0 or 1"});
}

// Shape arithmetic on attribute and constant values near the 64-bit edges (found by reading the
// code the fuzzer pointed at): window sizes with a dilation of 2^62 overflowed, Range's element
// count and Resize's output dimensions were int64 casts of inf / NaN, Subsample's ceil division
// overflowed for a stride near 2^63.
TEST(FuzzRegressions, ShapeArithmeticAtTheEdges) {
  const int64_t big = int64_t{1} << 62;
  auto create = [](Builder& b, const TensorId& y) {
    b.addOutputTensor(y);
    auto s = InferenceSession::createFromOnnxModel(b.getModelProto(), DataFlow(1, {y}), test::cpu());
    s->prepareDevice();
  };
  {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {1, 1, 5, 5}), "x");
    const std::vector<float> wv(9, 1.0f);
    const TensorId w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo("FLOAT", {1, 1, 3, 3})), "w");
    const TensorId y = ai.conv({x, w}, {big, 1}, 1, {}, {}, {}, "Conv_dilated");
    expectError([&] { create(*b, y); }, {"Conv_dilated", "overflow a 64-bit size"});
  }
  {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const float start = 0, limit = std::numeric_limits<float>::infinity(), delta = 1;
    const TensorId y = ai.range({ai.constant(ConstVoidData(&start, TensorInfo("FLOAT", {}))),
                                 ai.constant(ConstVoidData(&limit, TensorInfo("FLOAT", {}))),
                                 ai.constant(ConstVoidData(&delta, TensorInfo("FLOAT", {})))},
                                "Range_inf");
    expectError([&] { create(*b, y); }, {"Range_inf", "Range from 0 to inf by 1 has inf elements"});
  }
  {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {1, 1, 2, 2}), "x");
    const float sc[4] = {1, 1, std::nanf(""), 2};
    const TensorId scales = ai.constant(ConstVoidData(sc, TensorInfo("FLOAT", {4})));
    const TensorId y = ai.resize({x, "", scales}, "asymmetric", -0.75f, 0, 0.0f, "nearest", "floor", "Resize_nan");
    expectError([&] { create(*b, y); }, {"Resize_nan", "must be positive and finite"});
  }
  {
    auto b = Builder::create();
    const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {5}), "x");
    const TensorId y = b->aiGraphcoreOpset1().subsample({x}, {std::numeric_limits<int64_t>::max()});
    b->addOutputTensor(y);
    std::map<TensorId, NDArray> in;
    in.emplace(x, NDArray::fromVector<float>({1, 2, 3, 4, 5}, {5}));
    auto out = test::runOnce(b->getModelProto(), in, {y});
    EXPECT_EQ(values<float>(out.at(y)), (std::vector<float>{1}));
  }
}

// Reshape multiplied its target dimensions unchecked (a shape [648518346341351425, 2359298]
// overflowed); the Builder could add internal ops (NllGrad of a scalar read the last dimension of
// an empty shape), which only autodiff makes, with its input checks.
TEST(FuzzRegressions, ReshapeProductAndInternalOps) {
  {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2}), "x");
    const std::vector<int64_t> dims{648518346341351425, 2359298};
    const TensorId shape = ai.constant(ConstVoidData(dims.data(), TensorInfo("INT64", {2})));
    const TensorId y = ai.reshape({x, shape}, "Reshape_huge");
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                {"Reshape_huge", "has more elements than a 64-bit count holds"});
  }
  {
    auto b = Builder::create();
    const TensorId p = b->addInputTensor(TensorInfo("FLOAT", {}), "p");
    const TensorId l = b->addInputTensor(TensorInfo("INT32", {}), "l");
    const TensorId g = b->addInputTensor(TensorInfo("FLOAT", {}), "g");
    const TensorId y = b->customOp({"internal", "NllGrad", 1}, 1, {p, l, g}, 1, {})[0];
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                {"Unknown op", "'NllGrad' in domain 'internal'"});
  }
}

// Integer reductions and CumSum accumulated with plain + and *: the sum of squares of 4.1e18
// overflowed int64 (found by the Builder harness in the test command's run). They wrap around
// now, as integer Add and Mul do.
TEST(FuzzRegressions, IntegerAccumulatorsWrap) {
  auto builder = Builder::create();
  auto ai = builder->aiOnnxOpset13();
  const TensorId x = builder->addInputTensor(TensorInfo("INT64", {2}), "x");
  const TensorId ss = ai.reducesumsquare({x}, {}, 0);
  const TensorId sum = ai.reducesum({x}, 0);
  const TensorId prod = ai.reduceprod({x}, {}, 0);
  const TensorId l1 = ai.reducel1({x}, {}, 0);
  std::vector<int64_t> axis0{0};
  const TensorId axis = ai.constant(ConstVoidData(axis0.data(), TensorInfo("INT64", {1})));
  const TensorId cs = ai.cumsum({x, axis});
  for (const auto& t : {ss, sum, prod, l1, cs}) builder->addOutputTensor(t);
  constexpr int64_t big = 4135239956706307458, kMin = std::numeric_limits<int64_t>::min();
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector<int64_t>({big, kMin}, {2}));
  auto out = test::runOnce(builder->getModelProto(), in, {ss, sum, prod, l1, cs});
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  const uint64_t ub = static_cast<uint64_t>(big), um = static_cast<uint64_t>(kMin);
  EXPECT_EQ(values<int64_t>(out.at(ss))[0], wrap(ub * ub + um * um));
  EXPECT_EQ(values<int64_t>(out.at(sum))[0], wrap(ub + um));
  EXPECT_EQ(values<int64_t>(out.at(prod))[0], wrap(ub * um));
  EXPECT_EQ(values<int64_t>(out.at(l1))[0], wrap(ub + um));  // |INT64_MIN| wraps to itself
  EXPECT_EQ(values<int64_t>(out.at(cs)), (std::vector<int64_t>{big, wrap(ub + um)}));
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

// The Builder's shape inference (lenient about And / Or / Xor / Not input types, as PopART's)
// evaluated Xor of a UINT8 constant holding 2 by reading its bytes as bool: undefined behaviour
// (the Builder fuzzer under UBSan). The logical kernels now refuse non-BOOL inputs; the Builder
// keeps the node and the session names the mistake.
TEST(FuzzRegressions, LogicalOpsOfNonBoolConstants) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId c = test::constant<uint8_t>(ai, {2, 0, 1}, {3});
  const TensorId x = ai.logical_xor({c, c});
  const TensorId n = ai.logical_not({c});
  b->addOutputTensor(x);
  b->addOutputTensor(n);
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, std::vector<TensorId>{x, n}),
                                              test::cpu());
      },
      {"Xor"});
}

TEST(FuzzRegressions, BroadcastOfAnEmptyTensorWithAHugeDimension) {
  // [0, 2^63 - 1, 4] has no elements, but its strides overflowed int64 (UBSan, the Builder fuzzer).
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {0, std::numeric_limits<int64_t>::max(), 4}));
  const TensorId y = ai.mul({x, test::constant<float>(ai, {1, 2, 3, 4}, {4})});
  b->addOutputTensor(y);
  auto out = test::runOnce(b->getModelProto(), {{x, NDArray(DataType::FLOAT, {0, 1, 4})}}, {y});
  (void)out;
}

TEST(FuzzRegressions, AFloatAttributeOutsideInt64IsNotAnInteger) {
  // TopK's k as a FLOAT -inf: the whole-number check cast it to int64 first (UBSan, the Builder
  // fuzzer). Values outside int64's range (and NaN) are the type error they are.
  Attributes a;
  a.set("k", 3.0f);
  EXPECT_EQ(a.getInt("k"), 3);
  for (float v : {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 1e30f, 2.5f}) {
    a.set("k", v);
    expectError([&] { a.getInt("k"); }, {"attribute 'k' must be INT, but it is FLOAT"});
  }
  a.set("k", -9223372036854775808.0f);
  EXPECT_EQ(a.getInt("k"), std::numeric_limits<int64_t>::min());
}

TEST(FuzzRegressions, TileAndPadSizesThatOverflowAreErrors) {
  // Tile of [4] by 7881131596834564449 multiplied past int64 (UBSan, the model fuzzer); Pad's
  // new size added past it. Both are now the shape errors they are.
  const int64_t huge = 7881131596834564449;
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2, 4}));
  const TensorId reps = test::constant<int64_t>(ai, {1, huge}, {2});
  const TensorId y = ai.tile({x, reps});
  b->addOutputTensor(y);
  expectError(
      [&] {
        test::runOnce(b->getModelProto(), {{x, NDArray(DataType::FLOAT, {2, 4})}}, {y});
      },
      {"repeats", "larger than a 64-bit count holds"});

  auto b2 = Builder::create();
  auto ai2 = b2->aiOnnxOpset13();
  const TensorId x2 = b2->addInputTensor(TensorInfo(DataType::FLOAT, {2, 4}));
  const TensorId pads = test::constant<int64_t>(ai2, {0, std::numeric_limits<int64_t>::max(), 0, 1}, {4});
  const TensorId y2 = ai2.pad({x2, pads});
  b2->addOutputTensor(y2);
  expectError(
      [&] {
        test::runOnce(b2->getModelProto(), {{x2, NDArray(DataType::FLOAT, {2, 4})}}, {y2});
      },
      {"pads", "larger than a 64-bit count holds"});
}

TEST(FuzzRegressions, AnIntegerLossCannotStartFromAnInfiniteLossScaling) {
  // The Builder fuzzer: an INT32 loss trained with a loss scaling of inf cast inf to int32 (undefined
  // behaviour) for the gradient's seed; it is an error naming the type and the value.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}));
  const TensorId w = b->addInitializedInputTensor(
      ConstVoidData(std::vector<float>{1.0f, 2.0f}.data(), TensorInfo(DataType::FLOAT, {2})), "w");
  const TensorId loss = ai.cast({ai.reducesum({ai.mul({x, w})}, 0)}, "INT32");
  b->addOutputTensor(loss);
  const SGD sgd(
      {{"defaultLearningRate", {0.1f, true}}, {"lossScaling", {std::numeric_limits<float>::infinity(), true}}});
  expectError(
      [&] { TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {loss}), loss, sgd, test::cpu()); },
      {"A gradient of INT32 tensors cannot hold inf"});
}

}  // namespace
}  // namespace popart
