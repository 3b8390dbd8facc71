// popart::GraphTransformer and ONNX external data on save. Each element type conversion is checked
// on a small model: the types of inputs, outputs, initializers, Constant values and Cast's `to`
// change, the values are converted as the IEEE 754 / C++ definitions say (expected bits written
// from the definition), and the converted model still runs and matches a double reference.
// External data: the file's bytes, offsets and lengths, the reloaded model's outputs, the errors.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>

#include "common/test_util.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"
#include "popart/graphtransformer.hpp"

namespace popart {
namespace {

// ------------------------------------------------------------------ model helpers

onnx::ModelProto blankModel() {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  m.mutable_graph()->set_name("g");
  return m;
}

void addValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int type,
              const std::vector<int64_t>& shape) {
  auto* vi = list->Add();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (auto d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

template <typename T>
onnx::TensorProto rawTensor(const std::string& name, int type, const std::vector<T>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  t.add_dims(static_cast<int64_t>(v.size()));
  t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)));
  return t;
}

onnx::NodeProto* addNode(onnx::GraphProto* g, const std::string& type, const std::vector<std::string>& in,
                         const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(type);
  n->set_name(type + "_" + out);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

template <typename T>
void addConstant(onnx::GraphProto* g, const std::string& out, int type, const std::vector<T>& v) {
  auto* a = addNode(g, "Constant", {}, out)->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = rawTensor(out, type, v);
}

void addCast(onnx::GraphProto* g, const std::string& in, const std::string& out, int to) {
  auto* a = addNode(g, "Cast", {in}, out)->add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(to);
}

std::string serialize(const onnx::ModelProto& m) {
  std::string s;
  EXPECT_TRUE(m.SerializeToString(&s));
  return s;
}

onnx::ModelProto parse(const std::string& s) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(s));
  return m;
}

const onnx::TensorProto& initializer(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return t;
  }
  throw error("test: no initializer {}", name);
}

const onnx::NodeProto& nodeOf(const onnx::ModelProto& m, const std::string& type) {
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == type) return n;
  }
  throw error("test: no {} node", type);
}

int elemType(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& list, const std::string& name) {
  for (const auto& vi : list) {
    if (vi.name() == name) return vi.type().tensor_type().elem_type();
  }
  return -1;
}

template <typename T>
std::vector<T> rawValues(const onnx::TensorProto& t) {
  EXPECT_TRUE(t.has_raw_data()) << t.name();
  std::vector<T> v(t.raw_data().size() / sizeof(T));
  std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(T));
  return v;
}

/// Values of a tensor PopART's transforms write in the ONNX typed fields (int32_data, float_data).
template <typename T>
std::vector<T> typedValues(const onnx::TensorProto& t) {
  EXPECT_FALSE(t.has_raw_data()) << t.name();
  const TensorData d = tensorFromProto(t);
  const T* p = static_cast<const T*>(d.data());
  return std::vector<T>(p, p + d.info().nelms());
}

// ------------------------------------------------------------------ float -> half

/// out = x + w + c + Cast(i, FLOAT): x FLOAT input, w FLOAT initializer, c FLOAT Constant, i INT32.
/// The values exercise round to nearest even, overflow to infinity and subnormals.
const std::vector<float> kW = {1.0f, 0.1f, 2049.0f, 2051.0f, -2.5f, 1e-8f, 3e-8f, 1.0f / 3.0f};
// IEEE binary16 of kW rounded to nearest even: 1 = 0x3c00; 0.1 = 0x2e66; 2049 is a tie between
// 2048 and 2050 -> 2048 (even, 0x6800); 2051 ties 2050/2052 -> 2052 (0x6802); -2.5 = 0xc100;
// 1e-8 is below half the smallest subnormal (2^-25) -> +0; 3e-8 above it -> 2^-24 (0x0001);
// 1/3 -> 0x3555.
const std::vector<uint16_t> kWHalf = {0x3c00, 0x2e66, 0x6800, 0x6802, 0xc100, 0x0000, 0x0001, 0x3555};
const std::vector<float> kC = {65519.0f, 65520.0f, -70000.0f, 0.5f, 0.25f, -1.0f, 2.0f, 4.0f};
// 65519 -> 65504 (0x7bff, the largest half); 65520 (halfway to 2^16) -> +inf; -70000 -> -inf.
const std::vector<uint16_t> kCHalf = {0x7bff, 0x7c00, 0xfc00, 0x3800, 0x3400, 0xbc00, 0x4000, 0x4400};

std::string floatModel() {
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addValue(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {8});
  addValue(g->mutable_input(), "i", onnx::TensorProto::INT32, {8});
  *g->add_initializer() = rawTensor("w", onnx::TensorProto::FLOAT, kW);
  addConstant(g, "c", onnx::TensorProto::FLOAT, std::vector<float>{0.5f, 0.25f, -1.0f, 2.0f, 4.0f, 1.5f, 3.0f, 8.0f});
  addNode(g, "Add", {"x", "w"}, "xw");
  addNode(g, "Add", {"xw", "c"}, "xwc");
  addCast(g, "i", "ci", onnx::TensorProto::FLOAT);
  addNode(g, "Add", {"xwc", "ci"}, "out");
  addValue(g->mutable_output(), "out", onnx::TensorProto::FLOAT, {8});
  addValue(g->mutable_value_info(), "xw", onnx::TensorProto::FLOAT, {8});
  return serialize(m);
}

TEST(GraphTransformer, FloatsToHalfsRewritesTypesValuesAndCast) {
  GraphTransformer gt(floatModel());
  gt.convertFloatsToHalfs();
  const auto m = parse(gt.getModelProto());
  const auto& g = m.graph();
  EXPECT_EQ(elemType(g.input(), "x"), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(elemType(g.input(), "i"), onnx::TensorProto::INT32);  // other types untouched
  EXPECT_EQ(elemType(g.output(), "out"), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(elemType(g.value_info(), "xw"), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(initializer(m, "w").data_type(), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(rawValues<uint16_t>(initializer(m, "w")), kWHalf);
  const auto& c = nodeOf(m, "Constant").attribute(0).t();
  EXPECT_EQ(c.data_type(), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(rawValues<uint16_t>(c),
            (std::vector<uint16_t>{0x3800, 0x3400, 0xbc00, 0x4000, 0x4400, 0x3e00, 0x4200, 0x4800}));
  EXPECT_EQ(nodeOf(m, "Cast").attribute(0).i(), onnx::TensorProto::FLOAT16);

  // The converted model runs in float16 and matches the double reference (fp16 tolerance).
  const std::vector<float> x = {0.5f, -0.25f, 1.0f, 3.0f, 0.125f, 1.0f, 2.0f, -0.75f};
  const std::vector<int32_t> i = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float16_t> xh;
  for (float v : x) xh.push_back(float16_t(v));
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(xh, {8}));
  in.emplace("i", NDArray::fromVector(i, {8}));
  const auto out = test::runOnce(gt.getModelProto(), in, {"out"});
  ASSERT_EQ(out.at("out").dataType(), DataType::FLOAT16);
  const auto y = out.at("out").toVector<float16_t>();
  const std::vector<double> cv = {0.5, 0.25, -1.0, 2.0, 4.0, 1.5, 3.0, 8.0};
  for (size_t k = 0; k < 8; ++k) {
    const double ref = double(x[k]) + double(kW[k]) + cv[k] + i[k];
    EXPECT_NEAR(static_cast<float>(y[k]), ref, 2e-3 * std::fabs(ref) + 1e-3) << k;
  }
}

TEST(GraphTransformer, FloatsToHalfsOverflowAndTiesInAConstant) {
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addConstant(g, "c", onnx::TensorProto::FLOAT, kC);
  addNode(g, "Identity", {"c"}, "out");
  addValue(g->mutable_output(), "out", onnx::TensorProto::FLOAT, {8});
  GraphTransformer gt(serialize(m));
  gt.convertFloatsToHalfs();
  const auto h = parse(gt.getModelProto());
  EXPECT_EQ(rawValues<uint16_t>(nodeOf(h, "Constant").attribute(0).t()), kCHalf);
}

TEST(GraphTransformer, FloatsToHalfsInsideSubgraphs) {
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addValue(g->mutable_input(), "cond", onnx::TensorProto::BOOL, {});
  auto* n = addNode(g, "If", {"cond"}, "out");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* sg = a->mutable_g();
    sg->set_name(branch);
    addConstant(sg, std::string(branch) + "_c", onnx::TensorProto::FLOAT, std::vector<float>{0.1f});
    addValue(sg->mutable_output(), std::string(branch) + "_c", onnx::TensorProto::FLOAT, {1});
  }
  addValue(g->mutable_output(), "out", onnx::TensorProto::FLOAT, {1});
  GraphTransformer gt(serialize(m));
  gt.convertFloatsToHalfs();
  const auto h = parse(gt.getModelProto());
  for (const auto& a : h.graph().node(0).attribute()) {
    EXPECT_EQ(a.g().output(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT16);
    EXPECT_EQ(rawValues<uint16_t>(a.g().node(0).attribute(0).t()), std::vector<uint16_t>{0x2e66});
  }
}

// ------------------------------------------------------------------ double -> half / float

TEST(GraphTransformer, DoublesToHalfsRoundsOnceFromTheDouble) {
  // 1 + 2^-11 + 2^-40 lies just above the tie between 1 and 1 + 2^-10: rounded directly it is
  // 1 + 2^-10 (0x3c01); through float (which drops the 2^-40) it would tie to even, 1 (0x3c00).
  const std::vector<double> w = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 0.1, -2.5, 1e300};
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addValue(g->mutable_input(), "x", onnx::TensorProto::DOUBLE, {4});
  *g->add_initializer() = rawTensor("w", onnx::TensorProto::DOUBLE, w);
  addNode(g, "Mul", {"x", "w"}, "out");
  addValue(g->mutable_output(), "out", onnx::TensorProto::DOUBLE, {4});
  GraphTransformer gt(serialize(m));
  gt.convertDoublesToHalfs();
  const auto h = parse(gt.getModelProto());
  EXPECT_EQ(elemType(h.graph().input(), "x"), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(elemType(h.graph().output(), "out"), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(rawValues<uint16_t>(initializer(h, "w")), (std::vector<uint16_t>{0x3c01, 0x2e66, 0xc100, 0x7c00}));
}

TEST(GraphTransformer, DoublesToFloatsRunsAndMatches) {
  const std::vector<double> w = {0.1, -1.0 / 3.0, 1e-50, 3.0e38};
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addValue(g->mutable_input(), "x", onnx::TensorProto::DOUBLE, {4});
  *g->add_initializer() = rawTensor("w", onnx::TensorProto::DOUBLE, w);
  addConstant(g, "c", onnx::TensorProto::DOUBLE, std::vector<double>{1.0, 2.0, 3.0, 0.0});
  addNode(g, "Add", {"x", "w"}, "xw");
  addNode(g, "Add", {"xw", "c"}, "out");
  addValue(g->mutable_output(), "out", onnx::TensorProto::DOUBLE, {4});
  GraphTransformer gt(serialize(m));
  gt.convertDoublesToFloats();
  const auto h = parse(gt.getModelProto());
  EXPECT_EQ(elemType(h.graph().input(), "x"), onnx::TensorProto::FLOAT);
  EXPECT_EQ(nodeOf(h, "Constant").attribute(0).t().data_type(), onnx::TensorProto::FLOAT);
  const auto wf = typedValues<float>(initializer(h, "w"));
  for (size_t k = 0; k < w.size(); ++k) EXPECT_EQ(wf[k], static_cast<float>(w[k])) << k;  // nearest float
  EXPECT_EQ(wf[2], 0.0f);                                                                 // below float's range

  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}, {4}));
  const auto y = test::runOnce(gt.getModelProto(), in, {"out"}).at("out").toVector<float>();
  const std::vector<double> c = {1.0, 2.0, 3.0, 0.0}, x = {1, 2, 3, 4};
  for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(y[k], x[k] + w[k] + c[k], 1e-6 * std::fabs(x[k] + w[k] + c[k])) << k;
}

TEST(GraphTransformer, BFloats16ToFloat32IsExact) {
  // bfloat16 is float's upper 16 bits: 0x3f80 = 1, 0xc040 = -3, 0x3e4d = 0x3e4d0000 = 0.2001953125.
  auto m = blankModel();
  auto* g = m.mutable_graph();
  *g->add_initializer() = rawTensor("w", onnx::TensorProto::BFLOAT16, std::vector<uint16_t>{0x3f80, 0xc040, 0x3e4d});
  addValue(g->mutable_input(), "w", onnx::TensorProto::BFLOAT16, {3});
  addNode(g, "Identity", {"w"}, "out");
  addValue(g->mutable_output(), "out", onnx::TensorProto::BFLOAT16, {3});
  GraphTransformer gt(serialize(m));
  gt.convertBFloats16ToFloat32();
  const auto h = parse(gt.getModelProto());
  EXPECT_EQ(elemType(h.graph().output(), "out"), onnx::TensorProto::FLOAT);
  EXPECT_EQ(typedValues<float>(initializer(h, "w")), (std::vector<float>{1.0f, -3.0f, 0.2001953125f}));
  const auto y = test::runOnce(gt.getModelProto(), {}, {"out"}).at("out").toVector<float>();
  EXPECT_EQ(y, (std::vector<float>{1.0f, -3.0f, 0.2001953125f}));
}

// ------------------------------------------------------------------ integers -> int32

/// out = x + w (+ Cast(x) for the Cast check), x an input and w an initializer of `type`.
template <typename T>
void checkIntToInt32(int type, const std::vector<T>& w, const std::function<void(GraphTransformer&)>& convert) {
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addValue(g->mutable_input(), "x", type, {4});
  *g->add_initializer() = rawTensor("w", type, w);
  addNode(g, "Add", {"x", "w"}, "xw");
  addValue(g->mutable_input(), "f", onnx::TensorProto::FLOAT, {4});
  addCast(g, "f", "fc", type);
  addNode(g, "Add", {"xw", "fc"}, "out");
  addValue(g->mutable_output(), "out", type, {4});
  GraphTransformer gt(serialize(m));
  convert(gt);
  const auto h = parse(gt.getModelProto());
  EXPECT_EQ(elemType(h.graph().input(), "x"), onnx::TensorProto::INT32);
  EXPECT_EQ(elemType(h.graph().output(), "out"), onnx::TensorProto::INT32);
  EXPECT_EQ(nodeOf(h, "Cast").attribute(0).i(), onnx::TensorProto::INT32);
  const auto wi = typedValues<int32_t>(initializer(h, "w"));
  for (size_t k = 0; k < w.size(); ++k) EXPECT_EQ(wi[k], static_cast<int64_t>(w[k])) << k;

  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(std::vector<int32_t>{1, -2, 3, 100000}, {4}));
  in.emplace("f", NDArray::fromVector(std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f}, {4}));
  const auto y = test::runOnce(gt.getModelProto(), in, {"out"}).at("out").toVector<int32_t>();
  const std::vector<int64_t> x = {1, -2, 3, 100000}, f = {0, 1, 2, 3};
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(y[k], x[k] + static_cast<int64_t>(w[k]) + f[k]) << k;
}

TEST(GraphTransformer, SmallIntegersToInt32) {
  checkIntToInt32<uint8_t>(onnx::TensorProto::UINT8, {0, 1, 200, 255},
                           [](GraphTransformer& g) { g.convertUINT8ToINT32(); });
  checkIntToInt32<uint16_t>(onnx::TensorProto::UINT16, {0, 7, 40000, 65535},
                            [](GraphTransformer& g) { g.convertUINT16ToINT32(); });
  checkIntToInt32<int8_t>(onnx::TensorProto::INT8, {-128, -1, 5, 127},
                          [](GraphTransformer& g) { g.convertINT8ToINT32(); });
  checkIntToInt32<int16_t>(onnx::TensorProto::INT16, {-32768, -1, 9, 32767},
                           [](GraphTransformer& g) { g.convertINT16ToINT32(); });
}

TEST(GraphTransformer, Int64ToInt32InRange) {
  checkIntToInt32<int64_t>(onnx::TensorProto::INT64, {-2147483648LL, -1, 3, 2147483647LL - 200000},
                           [](GraphTransformer& g) { g.convertINT64ToINT32(); });
}

std::string int64Model(const std::vector<int64_t>& w) {
  auto m = blankModel();
  auto* g = m.mutable_graph();
  *g->add_initializer() = rawTensor("w", onnx::TensorProto::INT64, w);
  addConstant(g, "c", onnx::TensorProto::INT64, std::vector<int64_t>{5, -5, 1LL << 40});
  addNode(g, "Add", {"w", "c"}, "out");
  addValue(g->mutable_output(), "out", onnx::TensorProto::INT64, {3});
  return serialize(m);
}

TEST(GraphTransformer, Int64OutOfRangeIsAnErrorOrClipped) {
  const std::string model = int64Model({3000000000LL, -3000000000LL, 7});
  GraphTransformer gt(model);
  test::expectError(
      [&] { gt.convertINT64ToINT32(); },
      {"In convertINT64TensorToINT32, cannot cast int64 to int32: number is too large", "'clip'", "'w'", "3000000000"});
  EXPECT_EQ(gt.getModelProto(), model);  // a failed conversion leaves the model as it was
  gt.convertINT64ToINT32(true);
  const auto h = parse(gt.getModelProto());
  EXPECT_EQ(typedValues<int32_t>(initializer(h, "w")), (std::vector<int32_t>{2147483647, -2147483647 - 1, 7}));
  EXPECT_EQ(typedValues<int32_t>(nodeOf(h, "Constant").attribute(0).t()), (std::vector<int32_t>{5, -5, 2147483647}));
  EXPECT_EQ(elemType(h.graph().output(), "out"), onnx::TensorProto::INT32);
}

// ------------------------------------------------------------------ structure

/// out = (x + a) * b with a, b FLOAT initializers listed as inputs, k an INT64 initializer and
/// `unused` an input no node reads.
std::string structureModel() {
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addValue(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {3});
  addValue(g->mutable_input(), "a", onnx::TensorProto::FLOAT, {3});
  addValue(g->mutable_input(), "b", onnx::TensorProto::FLOAT, {3});
  addValue(g->mutable_input(), "k", onnx::TensorProto::INT64, {1});
  addValue(g->mutable_input(), "unused", onnx::TensorProto::FLOAT, {2});
  *g->add_initializer() = rawTensor("a", onnx::TensorProto::FLOAT, std::vector<float>{1.0f, 2.0f, 3.0f});
  *g->add_initializer() = rawTensor("b", onnx::TensorProto::FLOAT, std::vector<float>{0.5f, -1.0f, 4.0f});
  *g->add_initializer() = rawTensor("k", onnx::TensorProto::INT64, std::vector<int64_t>{2});
  *g->add_initializer() = rawTensor("unused", onnx::TensorProto::FLOAT, std::vector<float>{9.0f, 9.0f});
  addNode(g, "Add", {"x", "a"}, "xa");
  addNode(g, "Mul", {"xa", "b"}, "xab");
  addNode(g, "Cast", {"k"}, "kf")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("to");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(onnx::TensorProto::FLOAT);
    return a;
  }());
  addNode(g, "Add", {"xab", "kf"}, "out");
  addValue(g->mutable_output(), "out", onnx::TensorProto::FLOAT, {3});
  return serialize(m);
}

std::vector<float> runStructure(const std::string& model) {
  std::map<TensorId, NDArray> in;
  in.emplace("x", NDArray::fromVector(std::vector<float>{1.0f, 1.0f, -2.0f}, {3}));
  return test::runOnce(model, in, {"out"}).at("out").toVector<float>();
}
// (x + a) * b + k for x = [1, 1, -2]: [2 * 0.5 + 2, 3 * -1 + 2, 1 * 4 + 2].
const std::vector<float> kStructureOut = {3.0f, -1.0f, 6.0f};

bool hasName(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& l, const std::string& n) {
  for (const auto& v : l) {
    if (v.name() == n) return true;
  }
  return false;
}
bool hasInit(const onnx::ModelProto& m, const std::string& n) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == n) return true;
  }
  return false;
}

TEST(GraphTransformer, InitializersToConstants) {
  GraphTransformer gt(structureModel());
  test::expectError(
      [&] {
        gt.convertInitializersToConstants({"a", "nope"});
      },
      {"TensorId nope not in the model initalizers"});
  gt.convertInitializersToConstants({"b", "a"});
  const auto h = parse(gt.getModelProto());
  // The Constants come first, in the order asked, named and producing the initializer's name.
  ASSERT_GE(h.graph().node_size(), 2);
  EXPECT_EQ(h.graph().node(0).op_type(), "Constant");
  EXPECT_EQ(h.graph().node(0).output(0), "b");
  EXPECT_EQ(h.graph().node(0).name(), "b");
  EXPECT_EQ(h.graph().node(1).output(0), "a");
  EXPECT_EQ(rawValues<float>(h.graph().node(1).attribute(0).t()), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_FALSE(hasInit(h, "a"));
  EXPECT_FALSE(hasName(h.graph().input(), "a"));
  EXPECT_FALSE(hasName(h.graph().input(), "b"));
  EXPECT_TRUE(hasInit(h, "k"));
  EXPECT_EQ(runStructure(gt.getModelProto()), kStructureOut);
}

TEST(GraphTransformer, AllFixedPointInitializersToConstants) {
  GraphTransformer gt(structureModel());
  gt.convertAllFixedPointInitializersToConstants();
  const auto h = parse(gt.getModelProto());
  EXPECT_FALSE(hasInit(h, "k"));
  EXPECT_EQ(h.graph().node(0).output(0), "k");
  EXPECT_TRUE(hasInit(h, "a"));  // floating point: kept
  EXPECT_TRUE(hasInit(h, "b"));
  EXPECT_EQ(runStructure(gt.getModelProto()), kStructureOut);
}

TEST(GraphTransformer, RemoveUnusedInputs) {
  GraphTransformer gt(structureModel());
  gt.removeUnusedInputs();
  const auto h = parse(gt.getModelProto());
  EXPECT_FALSE(hasName(h.graph().input(), "unused"));
  EXPECT_FALSE(hasInit(h, "unused"));
  for (const char* n : {"x", "a", "b", "k"}) EXPECT_TRUE(hasName(h.graph().input(), n)) << n;
  EXPECT_EQ(h.graph().initializer_size(), 3);
  EXPECT_EQ(runStructure(gt.getModelProto()), kStructureOut);
}

TEST(GraphTransformer, PrepareNodesForTrainingGivesBatchNormFiveOutputs) {
  auto m = blankModel();
  auto* g = m.mutable_graph();
  addValue(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {1, 2, 2, 2});
  for (const char* n : {"s", "bias", "mean", "var"}) {
    *g->add_initializer() = rawTensor(n, onnx::TensorProto::FLOAT, std::vector<float>{1.0f, 1.0f});
  }
  addNode(g, "BatchNormalization", {"x", "s", "bias", "mean", "var"}, "y")->set_name("bn");
  addValue(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {1, 2, 2, 2});
  GraphTransformer gt(serialize(m));
  gt.prepareNodesForTraining();
  const auto h = parse(gt.getModelProto());
  const auto& bn = h.graph().node(0);
  ASSERT_EQ(bn.output_size(), 5);
  EXPECT_EQ(bn.output(0), "y");
  for (int i = 1; i < 5; ++i)
    EXPECT_EQ(bn.output(i).rfind("BatchNormalization_bn_oi" + std::to_string(i) + "_", 0), 0u);
}

TEST(GraphTransformer, BadModelIsAClearError) {
  test::expectError([] { GraphTransformer gt("/no/such/model.onnx"); }, {"/no/such/model.onnx"});
}

// ------------------------------------------------------------------ external data

std::string tempDir() {
  char tmpl[] = "/tmp/popart_gt_XXXXXX";
  const char* d = ::mkdtemp(tmpl);
  if (!d) throw error("test: mkdtemp failed");
  return d;
}

std::string fileBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::map<std::string, std::string> externalInfo(const onnx::TensorProto& t) {
  std::map<std::string, std::string> r;
  for (const auto& kv : t.external_data()) r[kv.key()] = kv.value();
  return r;
}

TEST(ExternalData, BuilderSavesInitializersAndTheModelReloads) {
  const std::vector<float> d1 = {1.0f, -1.0f, 6.0f};
  const std::vector<uint16_t> d2 = {0x4700, 0x4400};  // float16 7 and 4
  auto b = Builder::create();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {3}));
  const TensorId i1 = b->addInitializedInputTensor(ConstVoidData(d1.data(), TensorInfo(DataType::FLOAT, {3})));
  const TensorId i2 = b->addInitializedInputTensor(ConstVoidData(d2.data(), TensorInfo(DataType::FLOAT16, {2})));
  auto ai = b->aiOnnxOpset13();
  const TensorId y = ai.add({x, i1});
  const TensorId h = ai.cast({i2}, "FLOAT");
  b->addOutputTensor(y);
  b->addOutputTensor(h);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(std::vector<float>{0.5f, 0.25f, -2.0f}, {3}));
  const auto before = test::runOnce(b->getModelProto(), in, {y, h});

  const std::string dir = tempDir();
  const std::string data = dir + "/tensors.bin", model = dir + "/model.onnx";
  b->saveInitializersExternally({i1, i2}, data);
  // The file holds the data concatenated in the order given: 3 floats then 2 halves.
  const std::string bytes = fileBytes(data);
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(std::memcmp(bytes.data(), d1.data(), 12), 0);
  EXPECT_EQ(std::memcmp(bytes.data() + 12, d2.data(), 4), 0);
  const auto m = parse(b->getModelProto());
  const auto& t1 = initializer(m, i1);
  EXPECT_EQ(t1.data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_FALSE(t1.has_raw_data());
  EXPECT_EQ(externalInfo(t1),
            (std::map<std::string, std::string>{{"location", data}, {"offset", "0"}, {"length", "12"}}));
  EXPECT_EQ(externalInfo(initializer(m, i2)),
            (std::map<std::string, std::string>{{"location", data}, {"offset", "12"}, {"length", "4"}}));

  // Reloaded from its file and from bytes (the location is absolute): the same outputs.
  b->saveModelProto(model);
  for (const std::string& src : {model, b->getModelProto()}) {
    const auto after = test::runOnce(src, in, {y, h});
    EXPECT_EQ(after.at(y).toVector<float>(), before.at(y).toVector<float>());
    EXPECT_EQ(after.at(h).toVector<float>(), (std::vector<float>{7.0f, 4.0f}));
  }

  // Errors, PopART's texts.
  test::expectError([&] { b->saveInitializersExternally({i1}, dir + "/other.bin"); },
                    {"Tensor '" + i1 + "' already has an external data_location"});
  test::expectError([&] { b->saveInitializersExternally({y}, dir + "/other.bin"); },
                    {"Tensor '" + y + "' is not an initializer"});
  test::expectError([&] { b->saveInitializersExternally({i1}, dir + "/missing/t.bin"); },
                    {"parent directory does not exist", dir + "/missing/t.bin"});
  struct stat st {};
  EXPECT_NE(::stat((dir + "/other.bin").c_str(), &st), 0);  // nothing written by a failed call
  std::remove(data.c_str());
  std::remove(model.c_str());
  ::rmdir(dir.c_str());
}

TEST(ExternalData, GraphTransformerSavesRelativeToTheModel) {
  const std::string dir = tempDir();
  GraphTransformer gt(structureModel());
  gt.saveInitializersExternally({"b", "a"}, dir + "/w.bin");
  const std::string bytes = fileBytes(dir + "/w.bin");
  const std::vector<float> expect = {0.5f, -1.0f, 4.0f, 1.0f, 2.0f, 3.0f};  // b then a
  ASSERT_EQ(bytes.size(), 24u);
  EXPECT_EQ(std::memcmp(bytes.data(), expect.data(), 24), 0);
  // A relative location, ONNX's convention: resolved against the model file's directory.
  auto m = parse(gt.getModelProto());
  for (auto& t : *m.mutable_graph()->mutable_initializer()) {
    for (auto& kv : *t.mutable_external_data()) {
      if (kv.key() == "location") kv.set_value("w.bin");
    }
  }
  {
    std::ofstream f(dir + "/m.onnx", std::ios::binary);
    f << serialize(m);
  }
  EXPECT_EQ(runStructure(dir + "/m.onnx"), kStructureOut);
  // A transformer made from that file reads the data back (here: to convert it to float16).
  GraphTransformer gt2(dir + "/m.onnx");
  gt2.convertFloatsToHalfs();
  const auto h = parse(gt2.getModelProto());
  EXPECT_EQ(rawValues<uint16_t>(initializer(h, "b")), (std::vector<uint16_t>{0x3800, 0xbc00, 0x4400}));
  test::expectError([&] { gt.saveInitializersExternally({"zzz"}, dir + "/w2.bin"); },
                    {"Tensor 'zzz' is not an initializer"});
  for (const char* f : {"/w.bin", "/m.onnx"}) std::remove((dir + f).c_str());
  ::rmdir(dir.c_str());
}

// The JS module's way in Node and a browser's: the files the model names, their bytes given back
// and put inline; a missing file or a short one names the tensor, and leaves the model as it was.
TEST(ExternalData, InlineExternalDataIsTheInverseOfSavingToBytes) {
  GraphTransformer gt(structureModel());
  const std::string data = gt.saveInitializersExternallyToBytes({"b", "a"}, "w.bin");
  EXPECT_EQ(gt.externalDataLocations(), (std::vector<std::string>{"w.bin"}));
  test::expectError([&] { gt.inlineExternalData({}); },
                    {"tensor 'a' stores its data in the external file w.bin, but it doesn't exist"});
  test::expectError(
      [&] {
        gt.inlineExternalData({{"w.bin", data.substr(0, 20)}});
      },
      {"external data file 'w.bin' is truncated (offset 12, length 12, 20 bytes)"});
  EXPECT_EQ(gt.externalDataLocations(), (std::vector<std::string>{"w.bin"}));  // unchanged by the errors
  gt.inlineExternalData({{"w.bin", data}});
  EXPECT_TRUE(gt.externalDataLocations().empty());
  EXPECT_EQ(runStructure(gt.getModelProto()), kStructureOut);
  EXPECT_EQ(rawValues<float>(initializer(parse(gt.getModelProto()), "a")), (std::vector<float>{1.0f, 2.0f, 3.0f}));

  // Without `length` entries (optional in ONNX) each tensor takes its own bytes at its offset, as
  // a session reading the file does: two tensors in one file stay apart.
  GraphTransformer gt2(structureModel());
  const std::string data2 = gt2.saveInitializersExternallyToBytes({"b", "a"}, "w.bin");
  onnx::ModelProto m = parse(gt2.getModelProto());
  for (auto& t : *m.mutable_graph()->mutable_initializer()) {
    auto* kvs = t.mutable_external_data();
    for (int i = kvs->size() - 1; i >= 0; --i) {
      if (kvs->Get(i).key() == "length") kvs->DeleteSubrange(i, 1);
    }
  }
  GraphTransformer gt3(serialize(m));
  gt3.inlineExternalData({{"w.bin", data2}});
  EXPECT_EQ(runStructure(gt3.getModelProto()), kStructureOut);
  EXPECT_EQ(rawValues<float>(initializer(parse(gt3.getModelProto()), "a")), (std::vector<float>{1.0f, 2.0f, 3.0f}));
}

/// loss = sum(a * x) (identityloss Sum) with a [3] stored externally: one SGD step (lr 0.5)
/// gives a - 0.5 * x; modelToHost writes that into the external file, which stays external.
TEST(ExternalData, ModelToHostWritesBackAndLocationsMove) {
  const std::vector<float> a0 = {1.0f, 2.0f, 3.0f}, x = {2.0f, -4.0f, 6.0f};
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId xi = b->addInputTensor(TensorInfo(DataType::FLOAT, {3}), "x");
  const TensorId a = b->addInitializedInputTensor(ConstVoidData(a0.data(), TensorInfo(DataType::FLOAT, {3})), "a");
  const TensorId loss = b->aiGraphcoreOpset1().identityloss({ai.mul({a, xi})}, ReductionType::Sum);
  const std::string dir = tempDir();
  const std::string w0 = dir + "/w0.bin", w1 = dir + "/w1.bin";
  b->saveInitializersExternally({a}, w0);

  auto s =
      TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {loss}), loss, ConstSGD(0.5f), test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  std::map<TensorId, NDArray> in;
  in.emplace(xi, NDArray::fromVector(x, {3}));
  auto out = s->initAnchorArrays();
  StepIO io(arrayRefs(in), arrayRefs(out));
  s->run(io);
  std::vector<float> expect(3);
  for (size_t i = 0; i < 3; ++i) expect[i] = a0[i] - 0.5f * x[i];

  s->modelToHost(dir + "/m.onnx");
  std::string bytes = fileBytes(w0);
  ASSERT_EQ(bytes.size(), 12u);
  std::vector<float> saved(3);
  std::memcpy(saved.data(), bytes.data(), 12);
  EXPECT_EQ(saved, expect);
  const auto m = parse(fileBytes(dir + "/m.onnx"));
  EXPECT_EQ(initializer(m, a).data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(externalInfo(initializer(m, a)).at("location"), w0);
  // modelToHostBytes keeps every weight inline.
  EXPECT_EQ(rawValues<float>(initializer(parse(s->modelToHostBytes()), a)), expect);

  // Errors, PopART's texts; then a move to w1 and a second step written there.
  test::expectError([&] { s->updateExternallySavedTensorLocations(dir + "/nope.bin", w1); },
                    {"but file '" + dir + "/nope.bin' does not exist"});
  test::expectError([&] { s->updateExternallySavedTensorLocations(w0, w0); }, {"already exists"});
  s->updateExternallySavedTensorLocations(w0, w1);
  test::expectError([&] { s->updateExternallySavedTensorLocations(w0, dir + "/w2.bin"); },
                    {"No ONNX model initializers have external location set to '" + w0 + "'"});
  EXPECT_EQ(fileBytes(w1), bytes);
  s->run(io);
  s->modelToHost(dir + "/m.onnx");
  std::memcpy(saved.data(), fileBytes(w1).data(), 12);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(saved[i], expect[i] - 0.5f * x[i]) << i;
  EXPECT_EQ(fileBytes(w0), bytes);  // the old file is left as it was
  EXPECT_EQ(externalInfo(initializer(parse(fileBytes(dir + "/m.onnx")), a)).at("location"), w1);
  // The saved model and its data file reload: the session made from it starts from the new values.
  auto s2 = InferenceSession::createFromOnnxModel(dir + "/m.onnx", DataFlow(1, {loss}), test::cpu());
  s2->prepareDevice();
  auto out2 = s2->initAnchorArrays();
  StepIO io2(arrayRefs(in), arrayRefs(out2));
  s2->run(io2);
  double ref = 0;
  for (size_t i = 0; i < 3; ++i) ref += double(saved[i]) * x[i];
  EXPECT_NEAR(out2.at(loss).toVector<float>()[0], ref, 1e-5);
  for (const char* f : {"/w0.bin", "/w1.bin", "/m.onnx"}) std::remove((dir + f).c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace popart
