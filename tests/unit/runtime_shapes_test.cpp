// Run-time planning on the CPU device (docs/architecture.md, "Static and run-time planning"):
// symbolic input dimensions and shape-giving inputs fed at run time, one session run at several
// sizes against each size's reference, the plan cache (counted by getRunTimePlanStats), and the
// IPU model keeping PopART's static-shape errors.
#include "common/onnx_proto.hpp"
#include "common/test_util.hpp"
#include "onnx.pb.h"

namespace popart {
namespace {

using test::expectError;

/// A graph input or output: `dims` entries < 0 are the symbolic dimension "N".
void valueInfo(onnx::ValueInfoProto* vi, const std::string& name, int elem, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* s = tt->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) {
      s->add_dim()->set_dim_param("N");
    } else {
      s->add_dim()->set_dim_value(d);
    }
  }
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& type, const std::vector<std::string>& in,
                      const std::vector<std::string>& out) {
  return test::addNode(g, type, in, out, type + "_" + std::to_string(g->node_size() + 1));
}

std::string serialize(const onnx::ModelProto& m) {
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

onnx::ModelProto model13() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  return m;
}

/// y = Relu(x) * w over x [N, 4] with a weight w [4]; z = ReduceSum(x, axis 0) [4].
std::string symbolicBatchModel() {
  onnx::ModelProto m = model13();
  auto* g = m.mutable_graph();
  g->set_name("g");
  valueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {-1, 4});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  for (float v : {1.0f, -2.0f, 0.5f, 3.0f}) w->add_float_data(v);
  node(g, "Relu", {"x"}, {"r"});
  node(g, "Mul", {"r", "w"}, {"y"});
  auto* keep = node(g, "ReduceSum", {"x", "axes"}, {"z"})->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  auto* axes = g->add_initializer();
  axes->set_name("axes");
  axes->set_data_type(onnx::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(0);
  valueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {-1, 4});
  valueInfo(g->add_output(), "z", onnx::TensorProto::FLOAT, {4});
  return serialize(m);
}

/// y = Reshape(x [2, 6], shape), the shape a model input.
std::string reshapeModel() {
  onnx::ModelProto m = model13();
  auto* g = m.mutable_graph();
  g->set_name("g");
  valueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 6});
  valueInfo(g->add_input(), "shape", onnx::TensorProto::INT64, {2});
  node(g, "Reshape", {"x", "shape"}, {"y"});
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return serialize(m);
}

std::vector<float> iota(size_t n, float start = -3.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + 0.5f * static_cast<float>(i);
  return v;
}

TEST(RunTimeShapes, SymbolicBatchRunsAtEverySize) {
  auto s = InferenceSession::createFromOnnxModel(symbolicBatchModel(), DataFlow(1, std::vector<TensorId>{"y", "z"}),
                                                 test::cpu());
  EXPECT_TRUE(s->getRunTimePlanStats().runTimeShapes);
  s->prepareDevice();
  // Placeholders before the first run: the declared types, unknown dimensions 0.
  auto anchors = s->initAnchorArrays();
  EXPECT_EQ(anchors.at("y").shape(), (Shape{0, 4}));
  const float w[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  for (int64_t n : {1, 3, 5, 1, 3}) {
    const std::vector<float> x = iota(static_cast<size_t>(n * 4));
    std::map<TensorId, NDArray> in;
    in.emplace("x", NDArray::fromVector(x, {n, 4}));
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    ASSERT_EQ(anchors.at("y").shape(), (Shape{n, 4}));
    ASSERT_EQ(anchors.at("z").shape(), (Shape{4}));
    const std::vector<float> y = anchors.at("y").toVector<float>();
    const std::vector<float> z = anchors.at("z").toVector<float>();
    for (int64_t i = 0; i < n * 4; ++i)
      EXPECT_FLOAT_EQ(y[static_cast<size_t>(i)], std::max(0.0f, x[static_cast<size_t>(i)]) * w[i % 4]);
    for (int64_t c = 0; c < 4; ++c) {
      double sum = 0;
      for (int64_t r = 0; r < n; ++r) sum += x[static_cast<size_t>(r * 4 + c)];
      EXPECT_NEAR(z[static_cast<size_t>(c)], sum, 1e-5);
    }
    // After a run, the session's shapes are the run's.
    EXPECT_EQ(s->getAnchorShape("y"), (Shape{n, 4}));
    EXPECT_EQ(s->initAnchorArrays().at("y").shape(), (Shape{n, 4}));
  }
  const auto st = s->getRunTimePlanStats();
  EXPECT_EQ(st.plansBuilt, 3);
  EXPECT_EQ(st.plansReused, 2);
  EXPECT_EQ(st.plansCached, 3);
  EXPECT_TRUE(st.runTimeConstants.empty());
}

TEST(RunTimeShapes, ShapeGivingInputFedAtRunTime) {
  auto s = InferenceSession::createFromOnnxModel(reshapeModel(), DataFlow(1, std::vector<TensorId>{"y"}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  const std::vector<float> x = iota(12);
  for (const Shape& target : {Shape{3, 4}, Shape{4, 3}, Shape{12, 1}, Shape{3, 4}}) {
    std::map<TensorId, NDArray> in;
    in.emplace("x", NDArray::fromVector(x, {2, 6}));
    in.emplace("shape", NDArray::fromVector(std::vector<int64_t>(target), {2}));
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    EXPECT_EQ(anchors.at("y").shape(), target);
    EXPECT_EQ(anchors.at("y").toVector<float>(), x);
  }
  const auto st = s->getRunTimePlanStats();
  EXPECT_EQ(st.plansBuilt, 3);
  EXPECT_EQ(st.plansReused, 1);
  EXPECT_EQ(st.runTimeConstants, (std::vector<TensorId>{"shape"}));
}

TEST(RunTimeShapes, PlanCacheStaysBoundedOverManyRuns) {
  auto s =
      InferenceSession::createFromOnnxModel(symbolicBatchModel(), DataFlow(1, std::vector<TensorId>{"y"}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  std::map<int64_t, std::map<TensorId, NDArray>> inputs;
  for (int64_t n = 1; n <= 12; ++n)
    inputs[n].emplace("x", NDArray::fromVector(iota(static_cast<size_t>(n * 4)), {n, 4}));
  // 1,000 runs of two alternating sizes: two plans, reused.
  for (int i = 0; i < 1000; ++i) {
    StepIO io(arrayRefs(inputs.at(i % 2 ? 2 : 7)), arrayRefs(anchors));
    s->run(io);
  }
  auto st = s->getRunTimePlanStats();
  EXPECT_EQ(st.plansBuilt, 2);
  EXPECT_EQ(st.plansReused, 998);
  // Twelve sizes: the least recently used plans are dropped.
  for (int64_t n = 1; n <= 12; ++n) {
    StepIO io(arrayRefs(inputs.at(n)), arrayRefs(anchors));
    s->run(io);
    EXPECT_EQ(anchors.at("y").shape(), (Shape{n, 4}));
  }
  st = s->getRunTimePlanStats();
  EXPECT_EQ(st.plansCached, static_cast<int64_t>(Session::kMaxRunTimePlans));
  EXPECT_EQ(st.plansBuilt, 12);  // 2 and 7 were still cached
}

TEST(RunTimeShapes, BatchesPerStepSplitsTheLeadingDimension) {
  auto s =
      InferenceSession::createFromOnnxModel(symbolicBatchModel(), DataFlow(2, std::vector<TensorId>{"y"}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, NDArray> in;
  const std::vector<float> x = iota(2 * 3 * 4);
  in.emplace("x", NDArray::fromVector(x, {2, 3, 4}));
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  EXPECT_EQ(anchors.at("y").shape(), (Shape{2, 3, 4}));
  EXPECT_FLOAT_EQ(anchors.at("y").toVector<float>()[23], x[23] * 3.0f);
}

TEST(RunTimeShapes, ErrorsNameTheInput) {
  auto s = InferenceSession::createFromOnnxModel(reshapeModel(), DataFlow(1, std::vector<TensorId>{"y"}), test::cpu());
  expectError([&] { s->getInfo("y"); }, {"plans its shapes at run time", "has not run yet"});
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  // A shape the data does not fit: Reshape's own error, and the session keeps working.
  std::map<TensorId, NDArray> bad;
  bad.emplace("x", NDArray::fromVector(iota(12), {2, 6}));
  bad.emplace("shape", NDArray::fromVector(std::vector<int64_t>{5, 5}, {2}));
  StepIO badIo(arrayRefs(bad), arrayRefs(anchors));
  expectError([&] { s->run(badIo); }, {"Reshape"});
  std::map<TensorId, NDArray> missing;
  missing.emplace("x", NDArray::fromVector(iota(12), {2, 6}));
  StepIO missingIo(arrayRefs(missing), arrayRefs(anchors));
  expectError([&] { s->run(missingIo); }, {"no input for tensor 'shape'", "known only at run time"});
  std::map<TensorId, NDArray> good;
  good.emplace("x", NDArray::fromVector(iota(12), {2, 6}));
  good.emplace("shape", NDArray::fromVector(std::vector<int64_t>{6, 2}, {2}));
  StepIO goodIo(arrayRefs(good), arrayRefs(anchors));
  s->run(goodIo);
  EXPECT_EQ(anchors.at("y").shape(), (Shape{6, 2}));
  // An anchor array that cannot be resized.
  std::vector<float> buf(12);
  NDArrayWrapper<float> fixed(buf.data(), Shape{3, 4});
  std::map<TensorId, IArray&> out{{"y", fixed}};
  StepIO fixedIo(arrayRefs(good), out);
  expectError([&] { s->run(fixedIo); }, {"Anchor 'y' is FLOAT [6 2]", "cannot be resized"});
}

/// Silero VAD's pattern: y = If(sr == 16000, Relu(Reshape(x, [4, 128])), Reshape(x, [3, 100])) with
/// x [1, 512]: the else branch does not import for x's shape. `srConstant`: sr is an initializer.
std::string ifModel(bool srConstant) {
  onnx::ModelProto m = model13();
  auto* g = m.mutable_graph();
  g->set_name("g");
  valueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 512});
  auto int64s = [](onnx::TensorProto* t, const std::string& name, const std::vector<int64_t>& v, bool scalar) {
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t e : v) t->add_int64_data(e);
  };
  if (srConstant) {
    int64s(g->add_initializer(), "sr", {16000}, true);
  } else {
    valueInfo(g->add_input(), "sr", onnx::TensorProto::INT64, {});
  }
  int64s(g->add_initializer(), "rate", {16000}, true);
  node(g, "Equal", {"sr", "rate"}, {"cond"});
  auto* n = node(g, "If", {"cond"}, {"y"});
  auto branch = [&](const char* attr, const std::vector<int64_t>& shape, bool relu) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(attr);
    const std::string sh = std::string(attr) + "_shape";
    int64s(b->add_initializer(), sh, shape, false);
    node(b, "Reshape", {"x", sh}, {relu ? std::string(attr) + "_r" : std::string(attr) + "_y"});
    if (relu) node(b, "Relu", {std::string(attr) + "_r"}, {std::string(attr) + "_y"});
    auto* out = b->add_output();
    out->set_name(std::string(attr) + "_y");
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  };
  branch("then_branch", {4, 128}, true);
  branch("else_branch", {3, 100}, false);
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return serialize(m);
}

TEST(RunTimeShapes, IfBranchThatDoesNotImportIsDeferredToTheRunThatTakesIt) {
  const std::vector<float> x = iota(512);
  std::vector<float> relu(x);
  for (float& v : relu) v = std::max(v, 0.0f);
  // The condition comes from an input: the CPU device plans per value of sr.
  auto s = InferenceSession::createFromOnnxModel(ifModel(false), DataFlow(1, std::vector<TensorId>{"y"}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  auto run = [&](int64_t sr) {
    std::map<TensorId, NDArray> in;
    in.emplace("x", NDArray::fromVector(x, {1, 512}));
    in.emplace("sr", NDArray::fromVector(std::vector<int64_t>{sr}, {}));
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
  };
  run(16000);
  EXPECT_EQ(anchors.at("y").shape(), (Shape{4, 128}));
  EXPECT_EQ(anchors.at("y").toVector<float>(), relu);
  EXPECT_EQ(s->getRunTimePlanStats().runTimeConstants, (std::vector<TensorId>{"sr"}));
  // The run that takes the else branch: its error, naming the branch and the condition.
  expectError([&] { run(8000); }, {"else_branch (taken when the condition 'cond' is false)",
                                   "does not import for these inputs", "[3 100]"});
  run(16000);  // the session keeps working
  EXPECT_EQ(anchors.at("y").toVector<float>(), relu);
  // The IPU model: an import error naming the branch and the condition.
  expectError(
      [] {
        InferenceSession::createFromOnnxModel(ifModel(false), DataFlow(1, std::vector<TensorId>{"y"}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"else_branch (taken when the condition 'cond' is false) does not import for these inputs",
       "known only at run time"});
  // A condition known when the model is compiled: the other branch is left out on any device.
  auto c = InferenceSession::createFromOnnxModel(ifModel(true), DataFlow(1, std::vector<TensorId>{"y"}),
                                                 test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
  EXPECT_FALSE(c->getRunTimePlanStats().runTimeShapes);
  c->prepareDevice();
  auto out = c->initAnchorArrays();
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(x, {1, 512}));
  StepIO io(arrayRefs(in), arrayRefs(out));
  c->run(io);
  EXPECT_EQ(out.at("y").toVector<float>(), relu);
}

TEST(RunTimeShapes, NonZeroIsFoldedOrPlannedPerValue) {
  // A constant input: folded at import on any device (NumPy's nonzero, stacked).
  test::Net n;
  auto ai = n.b->aiOnnxOpset13();
  const TensorId c = n.b->aiOnnxOpset13().constant(
      ConstVoidData(std::vector<float>{0, 2, 0, -1, 0, 3}.data(), TensorInfo("FLOAT", {2, 3})), "c");
  const NDArray folded = n.runOne(ai.nonzero({c}));
  EXPECT_EQ(folded.shape(), (Shape{2, 3}));
  EXPECT_EQ(folded.toVector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1, 0, 2}));
  // A model input: the IPU model's static rule; the CPU device plans per value.
  test::Net fed;
  const TensorId x = fed.in(std::vector<int32_t>{0, 0, 5, 0, 7, 0, 0, 1}, {2, 2, 2});
  const TensorId y = fed.b->aiOnnxOpset13().nonzero({x});
  fed.b->addOutputTensor(y);
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(fed.b->getModelProto(), DataFlow(1, {y}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"NonZero", "output size depends on them", "must be known when the model is compiled"});
  const NDArray got = fed.runOne(y);
  EXPECT_EQ(got.shape(), (Shape{3, 3}));
  // elements 2, 4, 7 of [2 2 2]: (0,1,0), (1,0,0), (1,1,1)
  EXPECT_EQ(got.toVector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1, 0, 1, 0, 0, 1}));
}

TEST(RunTimeShapes, IpuModelKeepsStaticShapes) {
  // PopART's rule on IPU devices: shapes are fixed when the model is compiled.
  expectError(
      [] {
        InferenceSession::createFromOnnxModel(symbolicBatchModel(), DataFlow(1, std::vector<TensorId>{"y"}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"Input tensor 'x' must be specified in InputShapeInfo, as it has shape [N, 4], which uses an unknown value "
       "'N'."});
  expectError(
      [] {
        InferenceSession::createFromOnnxModel(reshapeModel(), DataFlow(1, std::vector<TensorId>{"y"}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"input 1 ('shape') gives the target shape", "must be known when the model is compiled"});
}

}  // namespace
}  // namespace popart
