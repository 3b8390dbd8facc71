// describeModel / toJson (popart/describe.hpp) on small models: input shapes from InputShapeInfo,
// an op the runtime does not know, corrupt input, If subgraphs, synthetic node names, statistics
// and histograms worked out by hand, attribute values, and the JSON document's keys. The zoo's
// models are compared with onnx + NumPy references in tests/zoo/zoo_describe_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/test_util.hpp"
#include "onnx.pb.h"
#include "popart/describe.hpp"
#include "popart/popart.hpp"

namespace popart {
namespace {

using nlohmann::json;
using test::expectError;

onnx::ValueInfoProto* addValueInfo(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                                   const std::string& name, int type, const std::vector<int64_t>& dims) {
  auto* vi = list->Add();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  return vi;
}

onnx::NodeProto* addNode(onnx::GraphProto* g, const std::string& type, const std::string& name,
                         const std::vector<std::string>& ins, const std::vector<std::string>& outs) {
  auto* n = g->add_node();
  n->set_op_type(type);
  n->set_name(name);
  for (const auto& i : ins) n->add_input(i);
  for (const auto& o : outs) n->add_output(o);
  return n;
}

onnx::ModelProto newModel(int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("describe_test");
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

std::string bytes(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

const TensorDescription& tensor(const GraphDescription& g, const std::string& name) {
  for (const auto& t : g.tensors) {
    if (t.name == name) return t;
  }
  throw error("no tensor '{}' in the description", name);
}

std::vector<int64_t> dims(const TensorDescription& t) {
  std::vector<int64_t> v;
  for (const auto& d : t.shape.value()) v.push_back(d.value);
  return v;
}

/// x [2, 3] @ w [3, 4] -> Relu -> y, made with the Builder; then its batch made symbolic ("batch").
std::string symbolicBatchModel() {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  std::vector<float> w(12, 0.5f);
  const TensorId wid = b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo("FLOAT", {3, 4})), "w");
  const TensorId y = ai.relu({ai.matmul({x, wid})}, "y");
  b->addOutputTensor(y);
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(b->getModelProto()));
  auto* d0 =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  d0->clear_dim_value();
  d0->set_dim_param("batch");
  auto* o0 =
      m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  o0->clear_dim_value();
  o0->set_dim_param("batch");
  m.mutable_graph()->clear_value_info();
  return bytes(m);
}

TEST(Describe, SymbolicBatchWithoutInputShapes) {
  const std::string model = symbolicBatchModel();
  const ModelDescription d = describeModel(model);
  EXPECT_FALSE(d.shapeInferenceOk);
  EXPECT_NE(d.shapeInferenceMessage.find("Input tensor 'x' must be specified in InputShapeInfo"), std::string::npos)
      << d.shapeInferenceMessage;
  const auto& x = tensor(d.graph, "x");
  EXPECT_EQ(x.kind, TensorRole::Input);
  EXPECT_EQ(x.shapeSource, ShapeSource::File);
  ASSERT_EQ(x.shape->size(), 2u);
  EXPECT_EQ((*x.shape)[0].param, "batch");
  EXPECT_EQ((*x.shape)[1].value, 3);
  EXPECT_FALSE(x.elements.has_value());
  const auto& y = tensor(d.graph, d.graph.outputs[0]);
  EXPECT_EQ(y.shapeSource, ShapeSource::File);
  EXPECT_EQ((*y.shape)[0].param, "batch");
  // The MatMul's output: nothing in the file, nothing inferred.
  const auto& mm = tensor(d.graph, d.graph.nodes[0].outputs[0]);
  EXPECT_EQ(mm.shapeSource, ShapeSource::Unknown);
  EXPECT_FALSE(mm.shape.has_value());
  EXPECT_EQ(json::parse(toJson(d))["tensors"][0]["shape"], json::parse(R"(["batch", 3])"));
  // The import registered the weights before it stopped at x.
  EXPECT_EQ(tensor(d.graph, "w").shapeSource, ShapeSource::Inferred);
  EXPECT_EQ(d.parameterCount, 12);
  EXPECT_EQ(d.parameterBytes, 48);
}

TEST(Describe, SymbolicBatchWithInputShapes) {
  const std::string model = symbolicBatchModel();
  for (DataType t : {DataType::FLOAT, DataType::UNDEFINED}) {  // UNDEFINED: the model's type
    InputShapeInfo isi;
    isi.add("x", TensorInfo(t, {5, 3}));
    const ModelDescription d = describeModel(model, isi);
    EXPECT_TRUE(d.shapeInferenceOk) << d.shapeInferenceMessage;
    for (const auto& tensorDesc : d.graph.tensors) {
      EXPECT_EQ(tensorDesc.shapeSource, ShapeSource::Inferred) << tensorDesc.name;
      EXPECT_EQ(tensorDesc.dtype, "FLOAT") << tensorDesc.name;
    }
    EXPECT_EQ(dims(tensor(d.graph, "x")), (std::vector<int64_t>{5, 3}));
    const auto& y = tensor(d.graph, d.graph.outputs[0]);
    EXPECT_EQ(dims(y), (std::vector<int64_t>{5, 4}));
    EXPECT_EQ(y.kind, TensorRole::Output);
    EXPECT_EQ(y.elements.value(), 20);
    EXPECT_EQ(y.bytes.value(), 80);
  }
  InputShapeInfo bad;
  bad.add("x", TensorInfo(DataType::FLOAT, {5, 7}));  // 7 != 3: MatMul's shape error, reported
  const ModelDescription d = describeModel(model, bad);
  EXPECT_FALSE(d.shapeInferenceOk);
  EXPECT_NE(d.shapeInferenceMessage.find("MatMul"), std::string::npos) << d.shapeInferenceMessage;
  EXPECT_EQ(dims(tensor(d.graph, "x")), (std::vector<int64_t>{5, 7}));
}

TEST(Describe, UnknownOpIsReportedNotThrown) {
  onnx::ModelProto m = newModel();
  auto* g = m.mutable_graph();
  addValueInfo(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  addNode(g, "Relu", "first", {"x"}, {"r"});
  addNode(g, "MyCustomOp", "custom1", {"r"}, {"c"});
  addNode(g, "Relu", "", {"c"}, {"y"});
  addValueInfo(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  const ModelDescription d = describeModel(bytes(m));
  EXPECT_FALSE(d.shapeInferenceOk);
  EXPECT_NE(d.shapeInferenceMessage.find("MyCustomOp"), std::string::npos) << d.shapeInferenceMessage;
  EXPECT_NE(d.shapeInferenceMessage.find("custom1"), std::string::npos) << d.shapeInferenceMessage;
  ASSERT_EQ(d.graph.nodes.size(), 3u);
  EXPECT_EQ(d.graph.nodes[1].opType, "MyCustomOp");
  EXPECT_EQ(d.graph.nodes[2].name, "Relu_2");
  // Before the unknown op: the runtime's shapes; after it: the file's, or nothing.
  EXPECT_EQ(tensor(d.graph, "r").shapeSource, ShapeSource::Inferred);
  EXPECT_EQ(dims(tensor(d.graph, "r")), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensor(d.graph, "c").shapeSource, ShapeSource::Unknown);
  EXPECT_EQ(tensor(d.graph, "y").shapeSource, ShapeSource::File);
  EXPECT_EQ(tensor(d.graph, "c").producer, "custom1");
  EXPECT_EQ(tensor(d.graph, "c").consumers, std::vector<std::string>{"Relu_2"});
}

TEST(Describe, CorruptInputThrows) {
  expectError([] { describeModel(std::string("\x08\x01\x12\x04junk\xff\xff\xff", 12)); },
              {"Failed to load a ModelProto"});
  expectError([] { describeModel(""); }, {"Failed to load a ModelProto"});
  const std::string path = std::string(POPART_TEST_TMPDIR) + "/describe_not_onnx.txt";
  {
    std::ofstream f(path);
    f << "this is a text file, not an ONNX model\n";
  }
  expectError([&] { describeModel(path); }, {"Failed to load a ModelProto from the file", "describe_not_onnx.txt"});
  expectError([] { describeModel("/no/such/model.onnx"); }, {"There is no file at that path"});
  // An initializer whose bytes do not match its shape is a corrupt file too.
  onnx::ModelProto m = newModel();
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_raw_data(std::string(12, '\0'));
  addNode(m.mutable_graph(), "Relu", "r", {"w"}, {"y"});
  addValueInfo(m.mutable_graph()->mutable_output(), "y", onnx::TensorProto::FLOAT, {4});
  expectError([&] { describeModel(bytes(m)); }, {"Invalid initializer 'w'", "12 bytes of raw data"});
  expectError([] { describeModel(symbolicBatchModel(), {}, DescribeOptions{0}); }, {"histogramBins must be between 1"});
}

TEST(Describe, SyntheticNodeNamesAreUnique) {
  onnx::ModelProto m = newModel();
  auto* g = m.mutable_graph();
  addValueInfo(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {4});
  addNode(g, "Relu", "", {"x"}, {"a"});        // Relu_0 is taken (next node): Relu_0_1
  addNode(g, "Relu", "Relu_0", {"a"}, {"b"});  // unique: kept
  addNode(g, "Relu", "dup", {"b"}, {"c"});     // repeated: Relu_2, Relu_3
  addNode(g, "Relu", "dup", {"c"}, {"d"});
  addNode(g, "Relu", "", {"d"}, {"y"});
  addValueInfo(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {4});
  const ModelDescription d = describeModel(bytes(m));
  std::vector<std::string> names;
  for (const auto& n : d.graph.nodes) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Relu_0_1", "Relu_0", "Relu_2", "Relu_3", "Relu_4"}));
  EXPECT_TRUE(d.shapeInferenceOk) << d.shapeInferenceMessage;
  EXPECT_EQ(tensor(d.graph, "a").producer, "Relu_0_1");
  EXPECT_EQ(tensor(d.graph, "a").consumers, std::vector<std::string>{"Relu_0"});
  EXPECT_EQ(d.opHistogram, (std::vector<std::pair<std::string, int64_t>>{{"Relu", 5}}));
}

TEST(Describe, IfSubgraphs) {
  onnx::ModelProto m = newModel(13);
  auto* g = m.mutable_graph();
  addValueInfo(g->mutable_input(), "cond", onnx::TensorProto::BOOL, {});
  addValueInfo(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  auto* n = addNode(g, "If", "if", {"cond"}, {"y"});
  auto branch = [&](const char* attr, const char* op, const char* out) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(std::string(attr) + "_graph");
    addNode(b, op, "", {"x"}, {out});  // reads x of the outer graph
    addValueInfo(b->mutable_output(), out, onnx::TensorProto::FLOAT, {});
    b->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  };
  branch("then_branch", "Neg", "t");
  branch("else_branch", "Abs", "e");
  addValueInfo(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  const ModelDescription d = describeModel(bytes(m));
  EXPECT_TRUE(d.shapeInferenceOk) << d.shapeInferenceMessage;
  ASSERT_EQ(d.graph.nodes.size(), 1u);
  const NodeDescription& ifNode = d.graph.nodes[0];
  ASSERT_EQ(ifNode.subgraphs.size(), 2u);
  EXPECT_EQ(ifNode.subgraphs[0].name, "then_branch_graph");
  EXPECT_EQ(ifNode.subgraphs[1].nodes[0].opType, "Abs");
  EXPECT_EQ(ifNode.subgraphs[1].nodes[0].name, "Abs_0");
  EXPECT_EQ(ifNode.subgraphs[1].nodes[0].inputs, std::vector<std::string>{"x"});
  // The body's tensors: its own (x is the outer graph's), with the runtime's shapes.
  ASSERT_EQ(ifNode.subgraphs[0].tensors.size(), 1u);
  const TensorDescription& t = ifNode.subgraphs[0].tensors[0];
  EXPECT_EQ(t.name, "t");
  EXPECT_EQ(t.kind, TensorRole::Output);
  EXPECT_EQ(t.shapeSource, ShapeSource::Inferred);
  EXPECT_EQ(dims(t), (std::vector<int64_t>{2, 3}));
  // The If node reads x through its bodies.
  EXPECT_EQ(tensor(d.graph, "x").consumers, std::vector<std::string>{"if"});
  const json j = json::parse(toJson(d));
  EXPECT_EQ(j["nodes"][0]["attributes"][0]["value"], json::parse(R"({"graph": "then_branch_graph", "nodes": 1})"));
  EXPECT_EQ(j["nodes"][0]["subgraphs"][1]["tensors"][0]["shape"], json::parse("[2, 3]"));
}

TEST(Describe, LoopSubgraph) {
  // y = x + 1 + 1 + 1 (a Loop of 3 trips carrying x), made with the Builder's subgraph builder.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2}), "x");
  const int64_t three = 3;
  const float oneValue = 1.0f;
  const TensorId trips = b->addInitializedInputTensor(ConstVoidData(&three, TensorInfo("INT64", {})), "trips");
  Builder& body = b->createSubgraphBuilder();
  auto bai = body.aiOnnxOpset11();
  body.addInputTensor(TensorInfo("INT64", {}), "i");
  const TensorId cond = body.addInputTensor(TensorInfo("BOOL", {}), "cond_in");
  const TensorId v = body.addInputTensor(TensorInfo("FLOAT", {2}), "v");
  const TensorId one = bai.constant(ConstVoidData(&oneValue, TensorInfo("FLOAT", {})), "one");
  body.addOutputTensor(bai.identity({cond}));
  body.addOutputTensor(bai.add({v, one}));
  const TensorId y = ai.loop({trips, "", x}, 1, body)[0];
  b->addOutputTensor(y);
  const ModelDescription d = describeModel(b->getModelProto());
  EXPECT_TRUE(d.shapeInferenceOk) << d.shapeInferenceMessage;
  const NodeDescription* loop = nullptr;
  for (const auto& n : d.graph.nodes) {
    if (n.opType == "Loop") loop = &n;
  }
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->subgraphs.size(), 1u);
  const GraphDescription& sg = loop->subgraphs[0];
  EXPECT_EQ(sg.inputs.size(), 3u);
  EXPECT_EQ(sg.nodes.size(), 3u);
  const TensorDescription& c = tensor(sg, sg.nodes[0].outputs[0]);  // the Constant
  EXPECT_EQ(c.kind, TensorRole::Constant);
  ASSERT_TRUE(c.stats.has_value());
  EXPECT_EQ(c.stats->max.value(), 1.0);
  EXPECT_EQ(dims(tensor(d.graph, y)), (std::vector<int64_t>{2}));
  EXPECT_EQ(tensor(d.graph, y).shapeSource, ShapeSource::Inferred);
}

TEST(Describe, StatisticsAndHistogram) {
  onnx::ModelProto m = newModel();
  auto* g = m.mutable_graph();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto* w = g->add_initializer();  // typed field (float_data), not raw_data
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(8);
  for (float f : {0.0f, 1.0f, 2.0f, nan, inf, -1.0f, 3.0f, -0.0f}) w->add_float_data(f);
  auto* h = g->add_initializer();  // FLOAT16 raw bits: 1.5, -2, 1.5
  h->set_name("h");
  h->set_data_type(onnx::TensorProto::FLOAT16);
  h->add_dims(3);
  const uint16_t hb[3] = {0x3E00, 0xC000, 0x3E00};
  h->set_raw_data(std::string(reinterpret_cast<const char*>(hb), 6));
  auto* c = addNode(g, "Constant", "c", {}, {"k"});
  auto* a = c->add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (int i = 0; i < 4; ++i) a->add_floats(2.5f);  // all equal: range 2.0 .. 3.0
  auto* leaky = addNode(g, "LeakyRelu", "lr", {"w"}, {"y"});
  auto* alpha = leaky->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(0.1f);
  addNode(g, "Add", "add", {"h", "h"}, {"z"});
  addValueInfo(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {8});
  addValueInfo(g->mutable_output(), "z", onnx::TensorProto::FLOAT16, {3});
  addValueInfo(g->mutable_output(), "k", onnx::TensorProto::FLOAT, {4});

  const ModelDescription d = describeModel(bytes(m), {}, DescribeOptions{4});
  EXPECT_TRUE(d.shapeInferenceOk) << d.shapeInferenceMessage;
  const TensorStats& s = tensor(d.graph, "w").stats.value();
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.zeros, 2);  // 0 and -0
  EXPECT_EQ(s.nans, 1);
  EXPECT_EQ(s.infs, 1);
  EXPECT_EQ(s.min.value(), -1.0);
  EXPECT_EQ(s.max.value(), 3.0);
  EXPECT_DOUBLE_EQ(s.mean.value(), 5.0 / 6.0);
  const double mean = 5.0 / 6.0;
  double var = 0;
  for (double v : {0.0, 1.0, 2.0, -1.0, 3.0, 0.0}) var += (v - mean) * (v - mean);
  EXPECT_DOUBLE_EQ(s.std.value(), std::sqrt(var / 6));
  EXPECT_EQ(s.histMin, -1.0);
  EXPECT_EQ(s.histMax, 3.0);
  // edges -1 0 1 2 3: -1 | 0 0 | 1 | 2 3 (the last bin is closed)
  EXPECT_EQ(s.histogram, (std::vector<int64_t>{1, 2, 1, 2}));

  const TensorStats& hs = tensor(d.graph, "h").stats.value();
  EXPECT_EQ(hs.min.value(), -2.0);
  EXPECT_EQ(hs.max.value(), 1.5);
  EXPECT_EQ(hs.histogram, (std::vector<int64_t>{1, 0, 0, 2}));
  EXPECT_EQ(tensor(d.graph, "h").bytes.value(), 6);

  const TensorDescription& k = tensor(d.graph, "k");
  EXPECT_EQ(k.kind, TensorRole::Output);  // a graph output before a constant
  const TensorStats& ks = k.stats.value();
  EXPECT_EQ(ks.std.value(), 0.0);
  EXPECT_EQ(ks.histMin, 2.0);
  EXPECT_EQ(ks.histMax, 3.0);
  EXPECT_EQ(ks.histogram, (std::vector<int64_t>{0, 0, 4, 0}));
  EXPECT_EQ(tensor(d.graph, "y").stats, std::nullopt);

  const json j = json::parse(toJson(d));
  EXPECT_EQ(j["nodes"][1]["attributes"][0], json::parse(R"({"name": "alpha", "type": "FLOAT", "value": 0.1})"));
  EXPECT_EQ(j["nodes"][0]["attributes"][0]["value"], json::parse("[2.5, 2.5, 2.5, 2.5]"));
  EXPECT_EQ(j["tensors"][0]["stats"]["histogram"], json::parse(R"({"min": -1.0, "max": 3.0, "counts": [1, 2, 1, 2]})"));
  EXPECT_EQ(j["parameterCount"], 11);
  EXPECT_EQ(j["parameterBytes"], 38);
}

TEST(Describe, TensorAttributesAndJsonKeys) {
  onnx::ModelProto m = newModel();
  auto* g = m.mutable_graph();
  auto* c = addNode(g, "Constant", "", {}, {"k"});
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(2);
  t->add_int64_data(4);
  t->add_int64_data(-7);
  addValueInfo(g->mutable_output(), "k", onnx::TensorProto::INT64, {2});
  const std::string model = bytes(m);
  const json j = json::parse(toJson(describeModel(model)));
  std::vector<std::string> keys;  // in the document's order
  const auto ordered = nlohmann::ordered_json::parse(toJson(describeModel(model)));
  for (auto it = ordered.begin(); it != ordered.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"irVersion",
                                            "producerName",
                                            "producerVersion",
                                            "graphName",
                                            "docString",
                                            "graphDocString",
                                            "domain",
                                            "modelVersion",
                                            "metadataProps",
                                            "modelBytes",
                                            "opsets",
                                            "inputs",
                                            "outputs",
                                            "parameterCount",
                                            "parameterBytes",
                                            "optimizerStateCount",
                                            "optimizerStateBytes",
                                            "opHistogram",
                                            "shapeInference",
                                            "nodes",
                                            "tensors"}));
  EXPECT_EQ(j["modelBytes"], model.size());
  EXPECT_EQ(j["opsets"], json::parse(R"([{"domain": "ai.onnx", "version": 13}])"));
  EXPECT_EQ(j["nodes"][0], json::parse(R"({"name": "Constant_0", "opType": "Constant", "domain": "ai.onnx", "opset": 13,
      "attributes": [{"name": "value", "type": "TENSOR",
                      "value": {"dtype": "INT64", "shape": [2], "elements": 2, "values": [4, -7]}}],
      "inputs": [], "outputs": ["k"], "docString": "", "supported": true, "implicitInputs": []})"));
  const json& k = j["tensors"][0];
  EXPECT_EQ(k["name"], "k");
  EXPECT_EQ(k["kind"], "output");
  EXPECT_EQ(k["dtype"], "INT64");
  EXPECT_EQ(k["shape"], json::parse("[2]"));
  EXPECT_EQ(k["shapeSource"], "inferred");
  EXPECT_EQ(k["elements"], 2);
  EXPECT_EQ(k["bytes"], 16);
  EXPECT_EQ(k["producer"], "Constant_0");
  EXPECT_EQ(k["consumers"], json::array());
  EXPECT_EQ(k["stats"]["count"], 2);
  EXPECT_EQ(k["stats"]["min"], -7.0);
  EXPECT_EQ(k["stats"]["histogram"]["counts"].size(), 32u);
}

/// A model with what a viewer shows besides the graph: metadata, doc strings, an If whose then
/// branch holds a Loop reading a graph input only inside it, a Constant weight, optimizer state
/// and an op no runtime knows.
onnx::ModelProto viewerModel() {
  onnx::ModelProto m = newModel(13);
  m.set_doc_string("model doc");
  m.set_domain("org.example");
  m.set_model_version(7);
  auto* p = m.add_metadata_props();
  p->set_key("author");
  p->set_value("me");
  p = m.add_metadata_props();
  p->set_key("license");
  p->set_value("MIT");
  auto* g = m.mutable_graph();
  g->set_doc_string("graph doc");
  addValueInfo(g->mutable_input(), "cond", onnx::TensorProto::BOOL, {});
  addValueInfo(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {2});
  addValueInfo(g->mutable_input(), "z", onnx::TensorProto::FLOAT, {2});
  // A Constant weight [2, 3] (6 floats) and optimizer state (an Accl___ initializer of 4 floats).
  auto* c = addNode(g, "Constant", "cw", {}, {"cw_out"});
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(2);
  a->mutable_t()->add_dims(3);
  for (int i = 0; i < 6; ++i) a->mutable_t()->add_float_data(static_cast<float>(i) * 0.5f);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  for (float v : {1.5f, -2.0f}) w->add_float_data(v);
  auto* accl = g->add_initializer();
  accl->set_name("Accl___w");
  accl->set_data_type(onnx::TensorProto::FLOAT);
  accl->add_dims(4);
  for (int i = 0; i < 4; ++i) accl->add_float_data(0.0f);
  auto* ifn = addNode(g, "If", "if", {"cond"}, {"y"});
  ifn->set_doc_string("choose");
  auto* then = ifn->add_attribute();
  then->set_name("then_branch");
  then->set_type(onnx::AttributeProto::GRAPH);
  auto* tb = then->mutable_g();
  tb->set_name("then");
  tb->set_doc_string("then doc");
  // then: a Loop of 2 trips adding z (an outer input read only here) to a carried copy of x.
  auto* trips = addNode(tb, "Constant", "trips", {}, {"trips_out"});
  auto* ta = trips->add_attribute();
  ta->set_name("value_int");
  ta->set_type(onnx::AttributeProto::INT);
  ta->set_i(2);
  auto* loop = addNode(tb, "Loop", "loop", {"trips_out", "", "x"}, {"t"});
  auto* body = loop->add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  auto* lb = body->mutable_g();
  lb->set_name("loop_body");
  addValueInfo(lb->mutable_input(), "i", onnx::TensorProto::INT64, {});
  addValueInfo(lb->mutable_input(), "cin", onnx::TensorProto::BOOL, {});
  addValueInfo(lb->mutable_input(), "v", onnx::TensorProto::FLOAT, {2});
  addNode(lb, "Identity", "keep", {"cin"}, {"cout"});
  addNode(lb, "Add", "add", {"v", "z"}, {"vout"});
  addValueInfo(lb->mutable_output(), "cout", onnx::TensorProto::BOOL, {});
  addValueInfo(lb->mutable_output(), "vout", onnx::TensorProto::FLOAT, {2});
  addValueInfo(tb->mutable_output(), "t", onnx::TensorProto::FLOAT, {2});
  auto* els = ifn->add_attribute();
  els->set_name("else_branch");
  els->set_type(onnx::AttributeProto::GRAPH);
  auto* eb = els->mutable_g();
  eb->set_name("else");
  addNode(eb, "Neg", "neg", {"x"}, {"e"});
  addValueInfo(eb->mutable_output(), "e", onnx::TensorProto::FLOAT, {2});
  auto* custom = addNode(g, "Foo", "custom", {"y"}, {"f"});
  custom->set_domain("com.example");
  auto* o = m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  addNode(g, "Mul", "mul", {"y", "w"}, {"out"});
  addValueInfo(g->mutable_output(), "out", onnx::TensorProto::FLOAT, {2});
  addValueInfo(g->mutable_output(), "f", onnx::TensorProto::FLOAT, {2});
  return m;
}

const NodeDescription& node(const GraphDescription& g, const std::string& name) {
  for (const auto& n : g.nodes) {
    if (n.name == name) return n;
  }
  throw error("no node '{}' in the description", name);
}

TEST(Describe, MetadataDocStringsSupportAndImplicitInputs) {
  const ModelDescription d = describeModel(bytes(viewerModel()));
  EXPECT_EQ(d.docString, "model doc");
  EXPECT_EQ(d.graph.docString, "graph doc");
  EXPECT_EQ(d.domain, "org.example");
  EXPECT_EQ(d.modelVersion, 7);
  EXPECT_EQ(d.metadataProps, (std::vector<std::pair<std::string, std::string>>{{"author", "me"}, {"license", "MIT"}}));
  // Parameters: w (2) and the Constant weight (6 floats); Accl___w is optimizer state.
  EXPECT_EQ(d.parameterCount, 8);
  EXPECT_EQ(d.parameterBytes, 32);
  EXPECT_EQ(d.optimizerStateCount, 4);
  EXPECT_EQ(d.optimizerStateBytes, 16);
  const NodeDescription& ifNode = node(d.graph, "if");
  EXPECT_EQ(ifNode.docString, "choose");
  EXPECT_TRUE(ifNode.supported);
  EXPECT_FALSE(node(d.graph, "custom").supported);
  EXPECT_TRUE(node(d.graph, "mul").supported);
  // x and z are read only inside the bodies (z two levels down).
  EXPECT_EQ(ifNode.implicitInputs, (std::vector<std::string>{"x", "z"}));
  EXPECT_TRUE(node(d.graph, "mul").implicitInputs.empty());
  EXPECT_EQ(tensor(d.graph, "z").consumers, std::vector<std::string>{"if"});
  // Bodies at every depth, each naming its attribute.
  ASSERT_EQ(ifNode.subgraphs.size(), 2u);
  const GraphDescription& then = ifNode.subgraphs[0];
  EXPECT_EQ(then.attribute, "then_branch");
  EXPECT_EQ(then.docString, "then doc");
  EXPECT_EQ(ifNode.subgraphs[1].attribute, "else_branch");
  const NodeDescription& loop = node(then, "loop");
  EXPECT_EQ(loop.implicitInputs, std::vector<std::string>{"z"});
  ASSERT_EQ(loop.subgraphs.size(), 1u);
  EXPECT_EQ(loop.subgraphs[0].attribute, "body");
  EXPECT_EQ(loop.subgraphs[0].nodes.size(), 2u);
  EXPECT_EQ(node(loop.subgraphs[0], "add").inputs, (std::vector<std::string>{"v", "z"}));
  const json j = json::parse(toJson(d));
  EXPECT_EQ(j["metadataProps"],
            json::parse(R"([{"key": "author", "value": "me"}, {"key": "license", "value": "MIT"}])"));
  EXPECT_EQ(j["graphDocString"], "graph doc");
  EXPECT_EQ(j["optimizerStateCount"], 4);
  const json& jif = j["nodes"][1];
  EXPECT_EQ(jif["name"], "if");
  EXPECT_EQ(jif["implicitInputs"], json::parse(R"(["x", "z"])"));
  EXPECT_EQ(jif["subgraphs"][0]["attribute"], "then_branch");
  EXPECT_EQ(jif["subgraphs"][0]["nodes"][1]["subgraphs"][0]["nodes"][1]["name"], "add");
  EXPECT_EQ(j["nodes"][2]["supported"], false);
}

TEST(Describe, TensorValueOfInitializersAndConstants) {
  const std::string m = bytes(viewerModel());
  const StoredTensorValue w = tensorValue(m, "w");
  EXPECT_EQ(w.dtype, "FLOAT");
  EXPECT_EQ(w.shape, std::vector<int64_t>{2});
  ASSERT_EQ(w.bytes.size(), 8u);
  float wv[2];
  std::memcpy(wv, w.bytes.data(), 8);
  EXPECT_EQ(wv[0], 1.5f);
  EXPECT_EQ(wv[1], -2.0f);
  const StoredTensorValue c = tensorValue(m, "cw_out");  // a Constant's TENSOR value
  EXPECT_EQ(c.shape, (std::vector<int64_t>{2, 3}));
  float cv[6];
  std::memcpy(cv, c.bytes.data(), 24);
  EXPECT_EQ(cv[5], 2.5f);
  const StoredTensorValue t = tensorValue(m, "trips_out");  // value_int, inside the then branch
  EXPECT_EQ(t.dtype, "INT64");
  EXPECT_TRUE(t.shape.empty());
  int64_t tv = 0;
  std::memcpy(&tv, t.bytes.data(), 8);
  EXPECT_EQ(tv, 2);
  expectError([&] { tensorValue(m, "x"); }, {"stores no value for tensor 'x'"});
  expectError([&] { tensorValue(m, "nothing"); }, {"'nothing'"});
}

}  // namespace
}  // namespace popart
