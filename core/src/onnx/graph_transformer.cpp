// popart::GraphTransformer: ONNX-level rewrites of a model (PopART's class). The element type
// conversions walk the main graph and every subgraph: initializers, tensor attributes, value
// infos and the type attributes that name the converted type.
#include "popart/graphtransformer.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "common/tensor_data.hpp"
#include "onnx/external_data.hpp"
#include "onnx/model_io.hpp"
#include "popart/error.hpp"
#include "popart/half.hpp"

namespace popart {

class GraphTransformerImpl {
 public:
  onnx::ModelProto model;
  std::string baseDir;  // external data of a model loaded from a file is relative to it
};

namespace {

using Converter = std::function<TensorData(const TensorData&, const std::string& name)>;

/// double -> binary16 rounded once: the double is first narrowed to float rounding to odd (exact
/// bits kept as a sticky bit), which float's 13 spare mantissa bits make equal to rounding the
/// double directly (as numpy's astype(float16) does).
uint16_t doubleToHalfBits(double d) {
  if (std::isnan(d)) return floatToHalfBits(static_cast<float>(d));
  if (std::fabs(d) >= 65520.0) return d < 0 ? 0xfc00u : 0x7c00u;  // rounds to infinity
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);  // truncate
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1u;  // odd: "inexact"
    std::memcpy(&f, &bits, 4);
  }
  return floatToHalfBits(f);
}

template <typename From, typename To, typename F>
TensorData mapData(const TensorData& in, DataType to, F f) {
  TensorData out(TensorInfo(to, in.info().shape()));
  const From* src = static_cast<const From*>(in.data());
  To* dst = out.as<To>();
  const int64_t n = in.info().nelms();
  for (int64_t i = 0; i < n; ++i) dst[i] = f(src[i]);
  return out;
}

struct Conversion {
  const char* method;  // for messages
  int from;            // onnx::TensorProto::DataType
  int to;
  Converter convert;
};

class Walker {
 public:
  Walker(const Conversion& c, const std::string& baseDir) : c_(c), baseDir_(baseDir) {}

  void graph(onnx::GraphProto& g) {
    for (auto& t : *g.mutable_initializer()) tensor(t, "initializer");
    for (auto* list : {g.mutable_input(), g.mutable_output(), g.mutable_value_info()}) {
      for (auto& vi : *list) valueInfo(vi);
    }
    for (auto& n : *g.mutable_node()) node(n);
  }

 private:
  void tensor(onnx::TensorProto& t, const char* what) {
    if (t.data_type() != c_.from) return;
    TensorData in;
    try {
      in = tensorFromProto(t, baseDir_);
    } catch (const error& e) {
      throw error("{}: {} '{}': {}", c_.method, what, t.name(), e.what());
    }
    const TensorData out = c_.convert(in, t.name());
    const std::string name = t.name();
    // As PopART: int32_data / float_data, but raw_data for the halves; every other field cleared.
    tensorToProto(out, &t, out.info().dataType() == DataType::FLOAT16 ? ProtoValues::Raw : ProtoValues::Typed);
    t.set_name(name);
  }

  void valueInfo(onnx::ValueInfoProto& vi) {
    if (!vi.has_type() || !vi.type().has_tensor_type()) return;
    auto* tt = vi.mutable_type()->mutable_tensor_type();
    if (tt->elem_type() == c_.from) tt->set_elem_type(c_.to);
  }

  void node(onnx::NodeProto& n) {
    for (auto& a : *n.mutable_attribute()) {
      switch (a.type()) {
        case onnx::AttributeProto::TENSOR:
          tensor(*a.mutable_t(), "tensor attribute");
          break;
        case onnx::AttributeProto::TENSORS:
          for (auto& t : *a.mutable_tensors()) tensor(t, "tensor attribute");
          break;
        case onnx::AttributeProto::GRAPH:
          graph(*a.mutable_g());
          break;
        case onnx::AttributeProto::GRAPHS:
          for (auto& sg : *a.mutable_graphs()) graph(sg);
          break;
        case onnx::AttributeProto::INT:
          // The attributes that name an output element type: Cast's `to`, and `dtype` (RandomNormal,
          // RandomUniform(Like), EyeLike, Multinomial, ...). PopART leaves them, which leaves the
          // converted model's types inconsistent.
          if (((n.op_type() == "Cast" && a.name() == "to") || a.name() == "dtype") && a.i() == c_.from) a.set_i(c_.to);
          break;
        default:
          break;
      }
    }
  }

  const Conversion& c_;
  const std::string& baseDir_;
};

void convertModel(GraphTransformerImpl& impl, const Conversion& c) {
  // Converted on a copy: an error (an int64 out of range) leaves the model as it was.
  onnx::ModelProto copy = impl.model;
  Walker(c, impl.baseDir).graph(*copy.mutable_graph());
  impl.model.Swap(&copy);
}

template <typename From>
Converter toInt32() {
  return [](const TensorData& in, const std::string&) {
    return mapData<From, int32_t>(in, DataType::INT32, [](From v) { return static_cast<int32_t>(v); });
  };
}

}  // namespace

void namesReadBy(const onnx::GraphProto& g, std::set<std::string>& reads) {
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) reads.insert(i);
    for (const auto& a : n.attribute()) {  // subgraphs read outer-scope names implicitly
      if (a.has_g()) namesReadBy(a.g(), reads);
      for (const auto& sg : a.graphs()) namesReadBy(sg, reads);
    }
  }
}

void pruneToOutputs(onnx::GraphProto& g) {
  std::set<std::string> needed;
  for (const auto& o : g.output()) needed.insert(o.name());
  std::vector<bool> keep(static_cast<size_t>(g.node_size()), false);
  for (int i = g.node_size() - 1; i >= 0; --i) {
    const onnx::NodeProto& n = g.node(i);
    if (std::none_of(n.output().begin(), n.output().end(), [&](const std::string& o) { return needed.count(o) > 0; }))
      continue;
    keep[static_cast<size_t>(i)] = true;
    for (const auto& in : n.input()) needed.insert(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) namesReadBy(a.g(), needed);
      for (const auto& sg : a.graphs()) namesReadBy(sg, needed);
    }
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i) {
    if (keep[static_cast<size_t>(i)]) nodes.Add()->Swap(g.mutable_node(i));
  }
  g.mutable_node()->Swap(&nodes);
  auto filter = [&](auto* field) {
    std::remove_reference_t<decltype(*field)> kept;
    for (auto& e : *field) {
      if (needed.count(e.name())) kept.Add()->Swap(&e);
    }
    field->Swap(&kept);
  };
  filter(g.mutable_input());
  filter(g.mutable_initializer());
  filter(g.mutable_value_info());
}

GraphTransformer::GraphTransformer(const std::string& modelProtoOrFilename) : impl_(new GraphTransformerImpl) {
  impl_->model = loadModel(modelProtoOrFilename);
  impl_->baseDir = modelBaseDir(modelProtoOrFilename);
}

GraphTransformer::~GraphTransformer() = default;
GraphTransformer::GraphTransformer(GraphTransformer&&) noexcept = default;
GraphTransformer& GraphTransformer::operator=(GraphTransformer&&) noexcept = default;

std::string GraphTransformer::getModelProto() const {
  std::string s;
  if (!impl_->model.SerializeToString(&s)) throw error("GraphTransformer: the model could not be serialized");
  return s;
}

void GraphTransformer::convertFloatsToHalfs() {
  convertModel(*impl_, {"convertFloatsToHalfs", onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT16,
                        [](const TensorData& in, const std::string&) {
                          return mapData<float, uint16_t>(in, DataType::FLOAT16, floatToHalfBits);
                        }});
}

void GraphTransformer::convertDoublesToHalfs() {
  convertModel(*impl_, {"convertDoublesToHalfs", onnx::TensorProto::DOUBLE, onnx::TensorProto::FLOAT16,
                        [](const TensorData& in, const std::string&) {
                          return mapData<double, uint16_t>(in, DataType::FLOAT16, doubleToHalfBits);
                        }});
}

void GraphTransformer::convertDoublesToFloats() {
  convertModel(*impl_, {"convertDoublesToFloats", onnx::TensorProto::DOUBLE, onnx::TensorProto::FLOAT,
                        [](const TensorData& in, const std::string&) {
                          return mapData<double, float>(in, DataType::FLOAT,
                                                        [](double v) { return static_cast<float>(v); });
                        }});
}

void GraphTransformer::convertBFloats16ToFloat32() {
  convertModel(*impl_, {"convertBFloats16ToFloat32", onnx::TensorProto::BFLOAT16, onnx::TensorProto::FLOAT,
                        [](const TensorData& in, const std::string&) {
                          return mapData<uint16_t, float>(in, DataType::FLOAT, [](uint16_t b) {
                            const uint32_t bits = static_cast<uint32_t>(b) << 16;  // bfloat16: float's top half
                            float f;
                            std::memcpy(&f, &bits, 4);
                            return f;
                          });
                        }});
}

void GraphTransformer::convertUINT8ToINT32() {
  convertModel(*impl_, {"convertUINT8ToINT32", onnx::TensorProto::UINT8, onnx::TensorProto::INT32, toInt32<uint8_t>()});
}
void GraphTransformer::convertUINT16ToINT32() {
  convertModel(*impl_,
               {"convertUINT16ToINT32", onnx::TensorProto::UINT16, onnx::TensorProto::INT32, toInt32<uint16_t>()});
}
void GraphTransformer::convertINT8ToINT32() {
  convertModel(*impl_, {"convertINT8ToINT32", onnx::TensorProto::INT8, onnx::TensorProto::INT32, toInt32<int8_t>()});
}
void GraphTransformer::convertINT16ToINT32() {
  convertModel(*impl_, {"convertINT16ToINT32", onnx::TensorProto::INT16, onnx::TensorProto::INT32, toInt32<int16_t>()});
}

void GraphTransformer::convertINT64ToINT32(bool clip) {
  constexpr int64_t lo = std::numeric_limits<int32_t>::min();
  constexpr int64_t hi = std::numeric_limits<int32_t>::max();
  convertModel(*impl_, {"convertINT64ToINT32", onnx::TensorProto::INT64, onnx::TensorProto::INT32,
                        [clip](const TensorData& in, const std::string& name) {
                          return mapData<int64_t, int32_t>(in, DataType::INT32, [&](int64_t v) {
                            if (v < lo || v > hi) {
                              if (!clip)
                                throw error(
                                    "In convertINT64TensorToINT32, cannot cast int64 to int32: number is too large. "
                                    "If you are sure you want still want to convert your tensor data, you can set "
                                    "'clip' to 'true'. (tensor '{}' holds {})",
                                    name, v);
                              v = v < lo ? lo : hi;
                            }
                            return static_cast<int32_t>(v);
                          });
                        }});
}

void GraphTransformer::convertInitializersToConstants(const std::vector<TensorId>& ids) {
  auto* g = impl_->model.mutable_graph();
  std::map<std::string, int> index;
  for (int i = 0; i < g->initializer_size(); ++i) index.emplace(g->initializer(i).name(), i);
  for (const auto& id : ids) {
    if (!index.count(id)) throw error("TensorId {} not in the model initalizers", id);
  }
  // The Constants come first, so that they precede their consumers.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  std::set<std::string> done;
  for (const auto& id : ids) {
    if (!done.insert(id).second) continue;
    onnx::TensorProto t = g->initializer(index.at(id));
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {  // a Constant holds its data inline
      const TensorData d = tensorFromProto(t, impl_->baseDir);
      tensorToProto(d, &t);
    }
    auto* n = nodes.Add();
    n->set_name(id);
    n->set_op_type("Constant");
    n->set_domain("");
    n->add_output(id);
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = std::move(t);
  }
  for (const auto& n : g->node()) *nodes.Add() = n;
  g->mutable_node()->Swap(&nodes);

  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  for (auto& t : *g->mutable_initializer()) {
    if (!done.count(t.name())) inits.Add()->Swap(&t);
  }
  g->mutable_initializer()->Swap(&inits);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (auto& vi : *g->mutable_input()) {
    if (!done.count(vi.name())) inputs.Add()->Swap(&vi);
  }
  g->mutable_input()->Swap(&inputs);
}

void GraphTransformer::convertAllFixedPointInitializersToConstants() {
  std::vector<TensorId> ids;
  for (const auto& t : impl_->model.graph().initializer()) {
    DataType dt = DataType::UNDEFINED;
    try {
      dt = dataTypeFromOnnx(t.data_type());
    } catch (const error&) {
      continue;
    }
    if (isInteger(dt) || dt == DataType::BOOL) ids.push_back(t.name());  // PopART's "fixed point"
  }
  convertInitializersToConstants(ids);
}

void GraphTransformer::removeUnusedInputs() {
  auto* g = impl_->model.mutable_graph();
  std::set<std::string> consumed;
  namesReadBy(*g, consumed);
  for (const auto& o : g->output()) consumed.insert(o.name());  // an input passed straight out is used
  std::set<std::string> removed;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (auto& vi : *g->mutable_input()) {
    if (consumed.count(vi.name())) {
      inputs.Add()->Swap(&vi);
    } else {
      removed.insert(vi.name());
    }
  }
  if (removed.empty()) return;
  g->mutable_input()->Swap(&inputs);
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  for (auto& t : *g->mutable_initializer()) {
    if (!removed.count(t.name())) inits.Add()->Swap(&t);
  }
  g->mutable_initializer()->Swap(&inits);
}

void GraphTransformer::prepareNodesForTraining() {
  static std::atomic<int> counter{0};  // unique names across transformers, as PopART's
  for (auto& n : *impl_->model.mutable_graph()->mutable_node()) {
    if (n.op_type() != "BatchNormalization") continue;
    for (int i = n.output_size(); i < 5; ++i)
      n.add_output("BatchNormalization_" + n.name() + "_oi" + std::to_string(i) + "_" + std::to_string(counter++));
  }
}

void GraphTransformer::saveInitializersExternally(const std::vector<TensorId>& ids, const std::string& fn) {
  popart::saveInitializersExternally(impl_->model, ids, fn, impl_->baseDir);
}

std::string GraphTransformer::saveInitializersExternallyToBytes(const std::vector<TensorId>& ids,
                                                                const std::string& location) {
  return initializersToExternalData(impl_->model, ids, location, impl_->baseDir);
}

std::vector<std::string> GraphTransformer::externalDataLocations() const {
  return popart::externalDataLocations(impl_->model);
}

void GraphTransformer::inlineExternalData(const std::map<std::string, std::string>& files) {
  popart::inlineExternalData(impl_->model, files);
}

}  // namespace popart
