// Sequences and optional values (docs/architecture.md, "Sequences and optional values"): the
// sequence ops with constant and run-time positions, sequence and optional inputs and anchors
// through StepIO, Loop carrying a sequence and Loop with per-iteration shapes (unrolled), If and
// SequenceMap, the plan cache per length, errors, and the IPU model's static-shape error.
// References are computed here in double from the same data.
#include "common/onnx_proto.hpp"
#include "common/test_util.hpp"
#include "onnx.pb.h"

namespace popart {
namespace {

using test::expectError;

namespace seqtest {

onnx::ModelProto model(int opset = 17) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

/// A tensor type: `dims` entries < 0 are symbolic; no dims at all with `ranked` false: unranked.
void tensorType(onnx::TypeProto* t, int elem, const std::vector<int64_t>& dims, bool ranked = true) {
  auto* tt = t->mutable_tensor_type();
  tt->set_elem_type(elem);
  if (!ranked) return;
  auto* s = tt->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) {
      s->add_dim()->set_dim_param("N" + std::to_string(s->dim_size()));
    } else {
      s->add_dim()->set_dim_value(d);
    }
  }
}
void tensorInfo(onnx::ValueInfoProto* vi, const std::string& name, int elem, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  tensorType(vi->mutable_type(), elem, dims);
}
/// A sequence of unranked tensors of `elem`.
void sequenceInfo(onnx::ValueInfoProto* vi, const std::string& name, int elem) {
  vi->set_name(name);
  tensorType(vi->mutable_type()->mutable_sequence_type()->mutable_elem_type(), elem, {}, false);
}
void optionalInfo(onnx::ValueInfoProto* vi, const std::string& name, int elem, bool ofSequence) {
  vi->set_name(name);
  auto* e = vi->mutable_type()->mutable_optional_type()->mutable_elem_type();
  if (ofSequence) e = e->mutable_sequence_type()->mutable_elem_type();
  tensorType(e, elem, {}, false);
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& type, const std::vector<std::string>& in,
                      const std::vector<std::string>& out) {
  return test::addNode(g, type, in, out);
}
using test::graphAttr;
using test::intAttr;
void constantNode(onnx::GraphProto* g, const std::string& out, const std::vector<int64_t>& v, bool scalar) {
  auto* n = node(g, "Constant", {}, {out});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) a->mutable_t()->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) a->mutable_t()->add_int64_data(x);
}

std::string bytes(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

std::vector<float> ramp(int64_t n, float start) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + static_cast<float>(i);
  return v;
}

/// seq = SequenceConstruct(a, b, c) of constants-free inputs, then Insert d at 1, Erase the last,
/// At pos (a model input), Length, ConcatFromSequence (axis 0, and new_axis), and the sequence
/// itself anchored.
std::string sequenceOpsModel() {
  onnx::ModelProto m = model();
  auto* g = m.mutable_graph();
  for (const char* x : {"a", "b", "c", "d"}) tensorInfo(g->add_input(), x, onnx::TensorProto::FLOAT, {2, 3});
  tensorInfo(g->add_input(), "pos", onnx::TensorProto::INT64, {});
  node(g, "SequenceConstruct", {"a", "b", "c"}, {"s0"});
  constantNode(g, "one", {1}, true);
  node(g, "SequenceInsert", {"s0", "d", "one"}, {"s1"});  // a d b c
  node(g, "SequenceErase", {"s1"}, {"s2"});               // a d b
  node(g, "SequenceAt", {"s2", "pos"}, {"at"});
  node(g, "SequenceLength", {"s2"}, {"len"});
  intAttr(node(g, "ConcatFromSequence", {"s2"}, {"cat"}), "axis", 0);
  auto* stack = node(g, "ConcatFromSequence", {"s2"}, {"stack"});
  intAttr(stack, "axis", -1);
  intAttr(stack, "new_axis", 1);
  tensorInfo(g->add_output(), "at", onnx::TensorProto::FLOAT, {2, 3});
  tensorInfo(g->add_output(), "len", onnx::TensorProto::INT64, {});
  tensorInfo(g->add_output(), "cat", onnx::TensorProto::FLOAT, {6, 3});
  tensorInfo(g->add_output(), "stack", onnx::TensorProto::FLOAT, {2, 3, 3});
  sequenceInfo(g->add_output(), "s2", onnx::TensorProto::FLOAT);
  return bytes(m);
}

TEST(Sequences, SequenceOpsWithARunTimePosition) {
  auto s = InferenceSession::createFromOnnxModel(
      sequenceOpsModel(), DataFlow(1, std::vector<TensorId>{"at", "len", "cat", "stack", "s2"}), test::cpu());
  s->prepareDevice();
  std::map<TensorId, std::vector<float>> x{
      {"a", ramp(6, 0)}, {"b", ramp(6, 10)}, {"c", ramp(6, 20)}, {"d", ramp(6, 30)}};
  const std::vector<std::string> order{"a", "d", "b"};
  auto anchors = s->initAnchorArrays();
  EXPECT_EQ(anchors.count("s2"), 0u);  // a sequence anchor's arrays come with the run
  for (int64_t pos : {0, 2, -1, 1, 0}) {
    std::map<TensorId, NDArray> in;
    for (const auto& kv : x) in.emplace(kv.first, NDArray::fromVector(kv.second, {2, 3}));
    in.emplace("pos", NDArray::fromVector(std::vector<int64_t>{pos}, {}));
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    const std::string& picked = order[static_cast<size_t>(pos < 0 ? pos + 3 : pos)];
    EXPECT_EQ(anchors.at("at").toVector<float>(), x[picked]);
    EXPECT_EQ(anchors.at("len").toVector<int64_t>(), std::vector<int64_t>{3});
    std::vector<float> cat;
    for (const auto& id : order) cat.insert(cat.end(), x[id].begin(), x[id].end());
    EXPECT_EQ(anchors.at("cat").toVector<float>(), cat);
    ASSERT_EQ(anchors.at("stack").shape(), (Shape{2, 3, 3}));
    const std::vector<float> st = anchors.at("stack").toVector<float>();
    for (size_t e = 0; e < 6; ++e) {
      for (size_t k = 0; k < 3; ++k) EXPECT_EQ(st[e * 3 + k], x[order[k]][e]);
    }
    const auto& seq = io.outputElements("s2");
    ASSERT_EQ(seq.size(), 3u);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(seq[k].toVector<float>(), x[order[k]]);
  }
  const auto st = s->getRunTimePlanStats();
  EXPECT_EQ(st.runTimeConstants, (std::vector<TensorId>{"pos"}));
  EXPECT_EQ(st.plansBuilt, 4);  // one per position value: 0, 2, -1, 1
  EXPECT_EQ(st.plansReused, 1);
}

/// A sequence input: y = ConcatFromSequence(x, axis 0), n = SequenceLength(x), and x itself.
std::string sequenceInputModel() {
  onnx::ModelProto m = model();
  auto* g = m.mutable_graph();
  sequenceInfo(g->add_input(), "x", onnx::TensorProto::FLOAT);
  intAttr(node(g, "ConcatFromSequence", {"x"}, {"y"}), "axis", 0);
  node(g, "SequenceLength", {"x"}, {"n"});
  node(g, "Identity", {"x"}, {"same"});
  tensorInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {-1, 2});
  tensorInfo(g->add_output(), "n", onnx::TensorProto::INT64, {});
  sequenceInfo(g->add_output(), "same", onnx::TensorProto::FLOAT);
  return bytes(m);
}

TEST(Sequences, SequenceInputOfChangingLengthAndShapes) {
  auto s = InferenceSession::createFromOnnxModel(sequenceInputModel(),
                                                 DataFlow(1, std::vector<TensorId>{"y", "n", "same"}), test::cpu());
  EXPECT_TRUE(s->getRunTimePlanStats().runTimeShapes);
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  const std::vector<std::vector<int64_t>> runs{{1, 3}, {2, 2, 1}, {1, 3}, {}, {4}};
  for (const auto& rows : runs) {
    std::vector<NDArray> parts;
    std::vector<float> want;
    float start = 0;
    for (int64_t r : rows) {
      parts.push_back(NDArray::fromVector(ramp(r * 2, start), {r, 2}));
      const auto v = ramp(r * 2, start);
      want.insert(want.end(), v.begin(), v.end());
      start += 100;
    }
    std::vector<IArray*> ptrs;
    for (auto& p : parts) ptrs.push_back(&p);
    std::map<TensorId, NDArray> none;
    StepIO io(arrayRefs(none), arrayRefs(anchors));
    io.setInputElements("x", ptrs);
    if (rows.empty()) {
      // ConcatFromSequence of an empty sequence: an error, and the session keeps working.
      expectError([&] { s->run(io); }, {"ConcatFromSequence", "is empty"});
      continue;
    }
    s->run(io);
    EXPECT_EQ(anchors.at("y").toVector<float>(), want);
    EXPECT_EQ(anchors.at("n").toVector<int64_t>(), std::vector<int64_t>{static_cast<int64_t>(rows.size())});
    const auto& same = io.outputElements("same");
    ASSERT_EQ(same.size(), rows.size());
    for (size_t k = 0; k < rows.size(); ++k) EXPECT_EQ(same[k].shape(), (Shape{rows[k], 2}));
  }
  const auto st = s->getRunTimePlanStats();
  EXPECT_EQ(st.plansBuilt, 3);  // [1 3], [2 2 1], [4]; the empty one failed to plan
  EXPECT_EQ(st.plansReused, 1);
}

TEST(Sequences, SplitToSequenceSizes) {
  // x [5, 2]: split by a scalar 2 (sizes 2, 2, 1), by [1, 4], and into rows without keepdims.
  onnx::ModelProto m = model();
  auto* g = m.mutable_graph();
  tensorInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {5, 2});
  constantNode(g, "two", {2}, true);
  constantNode(g, "sizes", {1, 4}, false);
  node(g, "SplitToSequence", {"x", "two"}, {"s2"});
  node(g, "SplitToSequence", {"x", "sizes"}, {"s14"});
  intAttr(node(g, "SplitToSequence", {"x"}, {"rows"}), "keepdims", 0);
  for (const char* o : {"s2", "s14", "rows"}) sequenceInfo(g->add_output(), o, onnx::TensorProto::FLOAT);
  auto s = InferenceSession::createFromOnnxModel(bytes(m), DataFlow(1, std::vector<TensorId>{"s2", "s14", "rows"}),
                                                 test::cpu());
  EXPECT_FALSE(s->getRunTimePlanStats().runTimeShapes);  // everything is known: a static plan
  s->prepareDevice();
  const std::vector<float> x = ramp(10, 1);
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(x, {5, 2}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  auto check = [&](const TensorId& id, const std::vector<Shape>& shapes) {
    const auto& parts = io.outputElements(id);
    ASSERT_EQ(parts.size(), shapes.size()) << id;
    size_t at = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      EXPECT_EQ(parts[k].shape(), shapes[k]) << id << " " << k;
      const std::vector<float> v = parts[k].toVector<float>();
      EXPECT_EQ(v, std::vector<float>(x.begin() + static_cast<long>(at), x.begin() + static_cast<long>(at + v.size())));
      at += v.size();
    }
  };
  check("s2", {{2, 2}, {2, 2}, {1, 2}});
  check("s14", {{1, 2}, {4, 2}});
  check("rows", {{2}, {2}, {2}, {2}, {2}});
}

/// An optional input (a tensor): has = OptionalHasElement(o), v = OptionalGetElement(o).
std::string optionalModel(bool get) {
  onnx::ModelProto m = model(16);
  auto* g = m.mutable_graph();
  optionalInfo(g->add_input(), "o", onnx::TensorProto::FLOAT, false);
  node(g, "OptionalHasElement", {"o"}, {"has"});
  tensorInfo(g->add_output(), "has", onnx::TensorProto::BOOL, {});
  if (get) {
    node(g, "OptionalGetElement", {"o"}, {"v"});
    tensorInfo(g->add_output(), "v", onnx::TensorProto::FLOAT, {-1});
  }
  node(g, "Identity", {"o"}, {"same"});
  optionalInfo(g->add_output(), "same", onnx::TensorProto::FLOAT, false);
  return bytes(m);
}

TEST(Sequences, OptionalInputPresentOrNone) {
  auto s = InferenceSession::createFromOnnxModel(optionalModel(false),
                                                 DataFlow(1, std::vector<TensorId>{"has", "same"}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  for (bool present : {true, false, true}) {
    std::map<TensorId, NDArray> in;
    if (present) in.emplace("o", NDArray::fromVector(ramp(3, 1), {3}));  // an optional tensor: an ordinary array
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    EXPECT_EQ(anchors.at("has").toVector<bool>(), std::vector<bool>{present});
    EXPECT_EQ(io.outputPresent("same"), present);
    ASSERT_EQ(io.outputElements("same").size(), present ? 1u : 0u);
    if (present) {
      EXPECT_EQ(io.outputElements("same")[0].toVector<float>(), ramp(3, 1));
    }
  }
  EXPECT_EQ(s->getRunTimePlanStats().plansBuilt, 2);

  // OptionalGetElement of None: the run's error, and the session keeps working.
  auto g = InferenceSession::createFromOnnxModel(optionalModel(true), DataFlow(1, std::vector<TensorId>{"has", "v"}),
                                                 test::cpu());
  g->prepareDevice();
  auto ga = g->initAnchorArrays();
  std::map<TensorId, NDArray> none, some;
  some.emplace("o", NDArray::fromVector(ramp(2, 5), {2}));
  StepIO noneIo(arrayRefs(none), arrayRefs(ga));
  expectError([&] { g->run(noneIo); }, {"OptionalGetElement", "'o' holds no value (it is None)"});
  StepIO someIo(arrayRefs(some), arrayRefs(ga));
  g->run(someIo);
  EXPECT_EQ(ga.at("v").toVector<float>(), ramp(2, 5));
}

/// Loop(M, cond, seq) whose body inserts x[0 : i + 1] into the carried sequence (as ONNX's
/// test_loop13_seq), and scans out x[i : i + 1] (a Slice shaped by the iteration: test_loop11).
std::string loopModel() {
  onnx::ModelProto m = model(13);
  auto* g = m.mutable_graph();
  tensorInfo(g->add_input(), "M", onnx::TensorProto::INT64, {});
  tensorInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {5});
  auto* c = node(g, "Constant", {}, {"true"});
  auto* t = c->add_attribute();
  t->set_name("value");
  t->set_type(onnx::AttributeProto::TENSOR);
  t->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
  t->mutable_t()->add_int32_data(1);
  node(g, "SequenceEmpty", {}, {"empty"});
  auto* loop = node(g, "Loop", {"M", "true", "empty"}, {"seq", "scan"});
  auto* body = graphAttr(loop, "body");
  tensorInfo(body->add_input(), "i", onnx::TensorProto::INT64, {});
  tensorInfo(body->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  sequenceInfo(body->add_input(), "seq_in", onnx::TensorProto::FLOAT);
  node(body, "Identity", {"cond_in"}, {"cond_out"});
  constantNode(body, "one", {1}, true);
  constantNode(body, "zero", {0}, false);
  constantNode(body, "ax", {0}, false);
  node(body, "Add", {"i", "one"}, {"end"});
  node(body, "Unsqueeze", {"end", "ax"}, {"end1"});
  node(body, "Unsqueeze", {"i", "ax"}, {"start1"});
  node(body, "Slice", {"x", "zero", "end1"}, {"prefix"});
  node(body, "SequenceInsert", {"seq_in", "prefix"}, {"seq_out"});
  node(body, "Slice", {"x", "start1", "end1"}, {"one_elem"});
  tensorInfo(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  sequenceInfo(body->add_output(), "seq_out", onnx::TensorProto::FLOAT);
  tensorInfo(body->add_output(), "one_elem", onnx::TensorProto::FLOAT, {1});
  sequenceInfo(g->add_output(), "seq", onnx::TensorProto::FLOAT);
  tensorInfo(g->add_output(), "scan", onnx::TensorProto::FLOAT, {-1, 1});
  return bytes(m);
}

TEST(Sequences, LoopCarryingASequenceIsUnrolledPerTripCount) {
  auto s = InferenceSession::createFromOnnxModel(loopModel(), DataFlow(1, std::vector<TensorId>{"seq", "scan"}),
                                                 test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  const std::vector<float> x{2, 3, 5, 7, 11};
  for (int64_t m : {3, 1, 5, 3}) {
    std::map<TensorId, NDArray> in;
    in.emplace("M", NDArray::fromVector(std::vector<int64_t>{m}, {}));
    in.emplace("x", NDArray::fromVector(x, {5}));
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    const auto& seq = io.outputElements("seq");
    ASSERT_EQ(seq.size(), static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i)
      EXPECT_EQ(seq[static_cast<size_t>(i)].toVector<float>(), std::vector<float>(x.begin(), x.begin() + i + 1));
    EXPECT_EQ(anchors.at("scan").shape(), (Shape{m, 1}));
    EXPECT_EQ(anchors.at("scan").toVector<float>(), std::vector<float>(x.begin(), x.begin() + m));
  }
  const auto st = s->getRunTimePlanStats();
  EXPECT_EQ(st.runTimeConstants, (std::vector<TensorId>{"M"}));
  EXPECT_EQ(st.plansBuilt, 3);
  EXPECT_EQ(st.plansReused, 1);
}

TEST(Sequences, IfAndSequenceMap) {
  // y = If(c): then SequenceConstruct(a, b), else SequenceConstruct(b); z = SequenceMap(y, k) with
  // body Mul(elem, k).
  onnx::ModelProto m = model();
  auto* g = m.mutable_graph();
  tensorInfo(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  tensorInfo(g->add_input(), "a", onnx::TensorProto::FLOAT, {2});
  tensorInfo(g->add_input(), "b", onnx::TensorProto::FLOAT, {3});
  tensorInfo(g->add_input(), "k", onnx::TensorProto::FLOAT, {1});
  auto* iff = node(g, "If", {"c"}, {"y"});
  auto* then = graphAttr(iff, "then_branch");
  node(then, "SequenceConstruct", {"a", "b"}, {"ab"});
  sequenceInfo(then->add_output(), "ab", onnx::TensorProto::FLOAT);
  auto* els = graphAttr(iff, "else_branch");
  node(els, "SequenceConstruct", {"b"}, {"bb"});
  sequenceInfo(els->add_output(), "bb", onnx::TensorProto::FLOAT);
  auto* map = node(g, "SequenceMap", {"y", "k"}, {"z"});
  auto* body = graphAttr(map, "body");
  tensorInfo(body->add_input(), "e", onnx::TensorProto::FLOAT, {-1});
  tensorInfo(body->add_input(), "kk", onnx::TensorProto::FLOAT, {1});
  node(body, "Mul", {"e", "kk"}, {"scaled"});
  tensorInfo(body->add_output(), "scaled", onnx::TensorProto::FLOAT, {-1});
  sequenceInfo(g->add_output(), "z", onnx::TensorProto::FLOAT);
  auto s = InferenceSession::createFromOnnxModel(bytes(m), DataFlow(1, std::vector<TensorId>{"z"}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  const std::vector<float> a{1, 2}, b{3, 4, 5};
  for (bool c : {true, false}) {
    std::map<TensorId, NDArray> in;
    NDArray cond(DataType::BOOL, {});
    *static_cast<bool*>(cond.data()) = c;
    in.emplace("c", std::move(cond));
    in.emplace("a", NDArray::fromVector(a, {2}));
    in.emplace("b", NDArray::fromVector(b, {3}));
    in.emplace("k", NDArray::fromVector(std::vector<float>{-2}, {1}));
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    const auto& z = io.outputElements("z");
    std::vector<std::vector<float>> want;
    if (c) want.push_back({-2, -4});
    want.push_back({-6, -8, -10});
    ASSERT_EQ(z.size(), want.size());
    for (size_t k = 0; k < z.size(); ++k) EXPECT_EQ(z[k].toVector<float>(), want[k]);
  }
}

TEST(Sequences, BuiltWithTheBuilder) {
  // parts = SplitToSequence(x [3, 4]) (rows [1, 4]); more = SequenceInsert(parts, t) ; at =
  // SequenceAt(more, -1) (t); stacked = ConcatFromSequence(more, axis 0, new_axis) [4, 1, 4]; n =
  // SequenceLength(more); `more` anchored as a sequence.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {3, 4}), "x");
  const TensorId t = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 4}), "t");
  const TensorId parts = ai.splittosequence({x});
  const TensorId more = ai.sequenceinsert({parts, t});
  const int64_t minusOne = -1;
  const TensorId last = ai.constant(ConstVoidData(&minusOne, TensorInfo(DataType::INT64, {})), "last");
  const TensorId at = ai.sequenceat({more, last});
  const TensorId stacked = ai.concatfromsequence({more}, 0, 1);
  const TensorId n = ai.sequencelength({more});
  for (const auto& o : {at, stacked, n, more}) b->addOutputTensor(o);
  auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {at, stacked, n, more}), test::cpu());
  s->prepareDevice();
  std::map<TensorId, NDArray> in;
  const std::vector<float> xv = ramp(12, 0), tv{-1, -2, -3, -4};
  in.emplace(x, NDArray::fromVector(xv, {3, 4}));
  in.emplace(t, NDArray::fromVector(tv, {1, 4}));
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  s->run(io);
  EXPECT_EQ(anchors.at(at).toVector<float>(), tv);
  EXPECT_EQ(anchors.at(n).toVector<int64_t>(), std::vector<int64_t>{4});
  ASSERT_EQ(anchors.at(stacked).shape(), (Shape{4, 1, 4}));
  std::vector<float> all = xv;
  all.insert(all.end(), tv.begin(), tv.end());
  EXPECT_EQ(anchors.at(stacked).toVector<float>(), all);
  ASSERT_EQ(io.outputElements(more).size(), 4u);
  EXPECT_EQ(io.outputElements(more)[1].toVector<float>(), std::vector<float>(xv.begin() + 4, xv.begin() + 8));
}

TEST(Sequences, ErrorsNameTheNodeAndTheValue) {
  // A position out of range: the node, the position and the range.
  auto s =
      InferenceSession::createFromOnnxModel(sequenceOpsModel(), DataFlow(1, std::vector<TensorId>{"at"}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, NDArray> in;
  for (const char* id : {"a", "b", "c", "d"}) in.emplace(id, NDArray::fromVector(ramp(6, 0), {2, 3}));
  in.emplace("pos", NDArray::fromVector(std::vector<int64_t>{3}, {}));
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  expectError([&] { s->run(io); }, {"SequenceAt", "position 3 is out of range [-3, 2] for a sequence of 3 tensors"});
  // A sequence input given as an array, and a tensor op reading a sequence.
  auto q =
      InferenceSession::createFromOnnxModel(sequenceInputModel(), DataFlow(1, std::vector<TensorId>{"y"}), test::cpu());
  q->prepareDevice();
  auto qa = q->initAnchorArrays();
  std::map<TensorId, NDArray> flat;
  flat.emplace("x", NDArray::fromVector(ramp(4, 0), {2, 2}));
  StepIO flatIo(arrayRefs(flat), arrayRefs(qa));
  expectError([&] { q->run(flatIo); }, {"no tensors for input 'x', a sequence: give a list of arrays"});
  onnx::ModelProto m = model();
  auto* g = m.mutable_graph();
  sequenceInfo(g->add_input(), "x", onnx::TensorProto::FLOAT);
  node(g, "Relu", {"x"}, {"y"});
  tensorInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  auto r = InferenceSession::createFromOnnxModel(bytes(m), DataFlow(1, std::vector<TensorId>{"y"}), test::cpu());
  r->prepareDevice();
  auto ra = r->initAnchorArrays();
  NDArray e = NDArray::fromVector(ramp(2, 0), {2});
  std::map<TensorId, NDArray> noArrays;
  StepIO rio(arrayRefs(noArrays), arrayRefs(ra));
  rio.setInputElements("x", {&e});
  expectError([&] { r->run(rio); }, {"input 0 ('x') is a sequence, but Relu takes tensors"});
}

TEST(Sequences, ASplitIntoTooManyTensorsIsAnError) {
  onnx::ModelProto m = model();
  auto* g = m.mutable_graph();
  tensorInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {int64_t(1) << 40});
  node(g, "SplitToSequence", {"x"}, {"s"});
  node(g, "SequenceLength", {"s"}, {"n"});
  tensorInfo(g->add_output(), "n", onnx::TensorProto::INT64, {});
  expectError(
      [&] { InferenceSession::createFromOnnxModel(bytes(m), DataFlow(1, std::vector<TensorId>{"n"}), test::cpu()); },
      {"SplitToSequence", "would make 1099511627776 tensors, more than a sequence may hold here (100000)"});
}

TEST(Sequences, TheIpuModelNeedsStaticLengths) {
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(sequenceInputModel(), DataFlow(1, std::vector<TensorId>{"y"}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"Input tensor 'x' is a sequence", "known only when it is given", "This runtime needs static shapes"});
}

}  // namespace seqtest
}  // namespace
}  // namespace popart
