// BuilderImpl: ModelProto construction, PopART's tensor naming, attribute handling and shape
// inference with the op families' rules (the same code the importer uses).
#include "builder/builder_impl.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/debug_info.hpp"
#include "ir/ir.hpp"
#include "onnx/attributes_io.hpp"
#include "onnx/model_io.hpp"
#include "passes/node_inference.hpp"
#include "popart/builder.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace {

constexpr int kIrVersion = 8;
/// More outputs than any op has; a count from a binding (JS `numOutputs`) beyond it is a mistake,
/// and naming 4 billion outputs would take the Builder hours.
constexpr unsigned kMaxNodeOutputs = 1u << 16;

void setAttr(onnx::AttributeProto* a, const std::string& name, const any& v) {
  a->set_name(name);
  using AP = onnx::AttributeProto;
  auto ints = [&](const auto& vec) {
    a->set_type(AP::INTS);
    for (auto x : vec) a->add_ints(static_cast<int64_t>(x));
  };
  if (auto* i64 = std::any_cast<int64_t>(&v)) {
    a->set_type(AP::INT);
    a->set_i(*i64);
  } else if (auto* i32 = std::any_cast<int>(&v)) {
    a->set_type(AP::INT);
    a->set_i(*i32);
  } else if (auto* u32 = std::any_cast<unsigned>(&v)) {
    a->set_type(AP::INT);
    a->set_i(*u32);
  } else if (auto* b = std::any_cast<bool>(&v)) {
    a->set_type(AP::INT);
    a->set_i(*b ? 1 : 0);
  } else if (auto* f = std::any_cast<float>(&v)) {
    a->set_type(AP::FLOAT);
    a->set_f(*f);
  } else if (auto* d = std::any_cast<double>(&v)) {
    a->set_type(AP::FLOAT);
    a->set_f(static_cast<float>(*d));
  } else if (auto* s = std::any_cast<std::string>(&v)) {
    a->set_type(AP::STRING);
    a->set_s(*s);
  } else if (auto* cs = std::any_cast<const char*>(&v)) {
    a->set_type(AP::STRING);
    a->set_s(*cs);
  } else if (auto* vi = std::any_cast<std::vector<int64_t>>(&v)) {
    ints(*vi);
  } else if (auto* vi32 = std::any_cast<std::vector<int>>(&v)) {
    ints(*vi32);
  } else if (auto* vf = std::any_cast<std::vector<float>>(&v)) {
    a->set_type(AP::FLOATS);
    for (auto x : *vf) a->add_floats(x);
  } else if (auto* vd = std::any_cast<std::vector<double>>(&v)) {
    a->set_type(AP::FLOATS);
    for (auto x : *vd) a->add_floats(static_cast<float>(x));
  } else if (auto* vs = std::any_cast<std::vector<std::string>>(&v)) {
    a->set_type(AP::STRINGS);
    for (const auto& x : *vs) a->add_strings(x);
  } else if (auto* t = std::any_cast<ConstVoidData>(&v)) {
    a->set_type(AP::TENSOR);
    tensorToProto(TensorData(t->info, t->data), a->mutable_t(), ProtoValues::Typed);  // as PopART's Builder
  } else if (auto* g = std::any_cast<const Builder*>(&v)) {
    a->set_type(AP::GRAPH);
    *a->mutable_g() = (*g)->impl().model().graph();
  } else {
    throw error(
        "attribute '{}' has a value type the Builder cannot store (use int64_t, float, std::string, "
        "or std::vector of them)",
        name);
  }
}

}  // namespace

BuilderImpl::BuilderImpl(BuilderImpl* parent) : parent_(parent) {
  model_.set_ir_version(kIrVersion);
  model_.set_producer_name("popart-runtime");
  model_.mutable_graph()->set_name(parent ? "subgraph" : "BuilderGraph");
}

BuilderImpl::~BuilderImpl() = default;

void BuilderImpl::loadModelProto(const std::string& modelProtoOrFilename) {
  model_ = loadModel(modelProtoOrFilename);
  const auto& g = model_.graph();
  for (const auto& t : g.initializer()) {
    ids_.insert(t.name());
    try {
      TensorData d = tensorFromProto(t, modelBaseDir(modelProtoOrFilename));
      recordInfo(t.name(), d.info());
      values_[t.name()] = std::move(d);
    } catch (const error&) {
    }
  }
  for (const auto& vi : g.input()) {
    ids_.insert(vi.name());
    bool ok = false;
    const TensorInfo info = infoFromValueInfo(vi, &ok, nullptr);
    if (ok) recordInfo(vi.name(), info);
  }
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) ids_.insert(o);
  }
  for (const auto& vi : g.value_info()) {
    bool ok = false;
    const TensorInfo info = infoFromValueInfo(vi, &ok, nullptr);
    if (ok) recordInfo(vi.name(), info);
  }
  for (const auto& vi : g.output()) {
    bool ok = false;
    const TensorInfo info = infoFromValueInfo(vi, &ok, nullptr);
    if (ok) recordInfo(vi.name(), info);
  }
  nodeCounter_ = g.node_size();
}

void BuilderImpl::addOpsetRequirement(const std::string& domainIn, int version) {
  const std::string domain = domainIn == "ai.onnx" ? "" : domainIn;
  for (const auto& o : model_.opset_import()) {
    if (o.domain() == domain) {
      if (o.version() != version) {
        // PopART names the accessor: "Invalid opset 'aiOnnxOpset9' selected. ..."
        const std::string d = domainIn.empty() ? "ai.onnx" : domainIn;
        const std::string accessor = d == "ai.onnx"        ? "aiOnnxOpset"
                                     : d == "ai.graphcore" ? "aiGraphcoreOpset"
                                     : d == "ai.onnx.ml"   ? "aiOnnxMlOpset"
                                                           : d + " opset ";
        throw error("Invalid opset '{}{}' selected. Opset for domain {} already defined as {}", accessor, version, d,
                    o.version());
      }
      return;
    }
  }
  auto* o = model_.add_opset_import();
  o->set_domain(domain);
  o->set_version(version);
}

int BuilderImpl::getOpsetVersion(const std::string& domainIn) const {
  const std::string domain = domainIn == "ai.onnx" ? "" : domainIn;
  for (const auto& o : model_.opset_import()) {
    if (o.domain() == domain) return static_cast<int>(o.version());
  }
  return 0;
}

TensorId BuilderImpl::nextId(const std::string& name, int index) {
  std::string base;
  for (const auto& s : nameScopes) base += s + sNameDelimiter;
  base += name;
  if (index >= 0) base += ":" + std::to_string(index);
  TensorId id = base;
  for (int i = 1; knows(id); ++i) id = base + sNameDelimiter + std::to_string(i);
  ids_.insert(id);
  return id;
}

bool BuilderImpl::knows(const TensorId& id) const {
  return ids_.count(id) != 0 || (parent_ && parent_->knows(id));
}

void BuilderImpl::recordInfo(const TensorId& id, const TensorInfo& info) {
  infos_[id] = info;
}

const TensorInfo* BuilderImpl::info(const TensorId& id) const {
  auto it = infos_.find(id);
  if (it != infos_.end()) return &it->second;
  return parent_ ? parent_->info(id) : nullptr;
}

TensorId BuilderImpl::addInputTensor(const TensorInfo& info, const DebugContext& dc) {
  const TensorId id = nextId(dc.empty() ? "input" : dc.getPathName(), -1);
  auto* vi = model_.mutable_graph()->add_input();
  vi->set_name(id);
  setValueInfoType(info, vi);
  recordInfo(id, info);
  recordTensorDebugInfo("addInputTensor", dc, id);
  return id;
}

TensorId BuilderImpl::addUntypedInputTensor(const DebugContext& dc) {
  if (!parent_) throw error("Can not add untyped tensors to the top-level graph.");
  const TensorId id = nextId(dc.empty() ? "input" : dc.getPathName(), -1);
  model_.mutable_graph()->add_input()->set_name(id);
  return id;
}

void BuilderImpl::addInputTensorFromParentGraph(const TensorId& id) {
  if (!parent_ || !parent_->knows(id))
    throw error("addInputTensorFromParentGraph: '{}' is not a tensor of the parent graph", id);
  if (ids_.count(id)) throw error("addInputTensorFromParentGraph: '{}' is already an input of this graph", id);
  auto* vi = model_.mutable_graph()->add_input();
  vi->set_name(id);
  if (const TensorInfo* i = parent_->info(id)) {
    setValueInfoType(*i, vi);
    recordInfo(id, *i);
  }
  ids_.insert(id);
  parentNamedInputs_.insert(id);
}

TensorId BuilderImpl::addInitializedInputTensor(const ConstVoidData& data, const DebugContext& dc) {
  if (!data.data && data.info.nelms() != 0) throw error("addInitializedInputTensor: the data pointer is null");
  const TensorId id = nextId(dc.empty() ? "init_input" : dc.getPathName(), -1);
  auto* g = model_.mutable_graph();
  auto* vi = g->add_input();
  vi->set_name(id);
  setValueInfoType(data.info, vi);
  auto* tp = g->add_initializer();
  tp->set_name(id);
  TensorData d(data.info, data.data);
  tensorToProto(d, tp, ProtoValues::Typed);  // PopART's Builder: float_data, int32_data, ...
  recordInfo(id, data.info);
  values_[id] = std::move(d);
  recordTensorDebugInfo("addInitializedInputTensor", dc, id);
  return id;
}

void BuilderImpl::setInputSetting(const char* name, const TensorId& id, const std::string& value) {
  setModelProperty(std::string(name) + ":" + id, value);
}

void BuilderImpl::setModelProperty(const std::string& key, const std::string& value) {
  for (auto& p : *model_.mutable_metadata_props()) {
    if (p.key() == key) {
      p.set_value(value);
      return;
    }
  }
  auto* p = model_.add_metadata_props();
  p->set_key(key);
  p->set_value(value);
}

void BuilderImpl::addOutputTensor(const TensorId& id) {
  if (!knows(id)) throw error("addOutputTensor: '{}' is not a tensor of this graph", id);
  auto* vi = model_.mutable_graph()->add_output();
  vi->set_name(id);
  if (const TensorInfo* i = info(id)) setValueInfoType(*i, vi);
}

void BuilderImpl::checkInputs(const std::string& type, const std::vector<TensorId>& inputs, int minIn,
                              int maxIn) const {
  const int n = static_cast<int>(inputs.size());
  if (n < minIn || (maxIn >= 0 && n > maxIn)) {
    // PopART's wording: "Abs has invalid number of inputs 0. Must be between 1..1".
    if (maxIn < 0) throw error("{} has invalid number of inputs {}. Must be at least {}", type, n, minIn);
    throw error("{} has invalid number of inputs {}. Must be between {}..{}", type, n, minIn, maxIn);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].empty() && !knows(inputs[i]))
      throw error("Builder: input {} of {} is '{}', which is not a tensor of this graph (unknown tensor id)", i, type,
                  inputs[i]);
  }
}

namespace {

std::vector<int64_t> intsAttr(const std::map<std::string, any>& attrs, const char* name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return {};
  if (const auto* v = std::any_cast<std::vector<int64_t>>(&it->second)) return *v;
  return {};
}

}  // namespace

void BuilderImpl::verifyWindowParameters(const std::string& domain, const std::string& type,
                                         const std::vector<TensorId>& inputs,
                                         const std::map<std::string, any>& attrs) const {
  if ((domain != "ai.onnx" && !domain.empty()) || inputs.empty()) return;
  const TensorInfo* x = info(inputs[0]);
  if (!x || !x->isSet()) return;
  const size_t rank = static_cast<size_t>(x->rank());
  if (type == "Pad") {
    if (!attrs.count("pads")) return;  // opset 11 on: an input
    const auto p = intsAttr(attrs, "pads");
    if (p.size() != 2 * rank)
      throw error("Padding vector (length {}) doesn't contain 2 entries per input dimension {}", p.size(), rank);
    return;
  }
  const bool conv = type == "Conv";
  if (!conv && type != "AveragePool" && type != "MaxPool") return;
  std::vector<int64_t> kernel = intsAttr(attrs, "kernel_shape");
  if (conv && inputs.size() > 1) {
    const TensorInfo* w = info(inputs[1]);
    if (!w || !w->isSet() || w->rank() < 3) return;
    const std::vector<int64_t> fromWeight(w->shape().begin() + 2, w->shape().end());
    if (attrs.count("kernel_shape") && kernel != fromWeight)
      throw error("kernel_shape, {}, does not match inferred shape from weight input '{}', {}", kernel, inputs[1],
                  fromWeight);
    kernel = fromWeight;
  }
  if (rank < 3) throw error("Input tensor has no spatial dimensions");
  const size_t n = rank - 2;
  std::vector<int64_t> strides = intsAttr(attrs, "strides"), pads = intsAttr(attrs, "pads"),
                       dilations = intsAttr(attrs, "dilations");
  if (!strides.empty() && strides.size() != n)
    throw error("Length of strides vector {} != number of spatial dimensions {}", strides.size(), n);
  if (!pads.empty() && pads.size() != 2 * n)
    throw error("Padding vector (length {}) does not have 2 values for each spatial dimension {}", pads.size(), n);
  if (!dilations.empty() && dilations.size() != n)
    throw error("Length of dilations vector {} != number of spatial dimensions {}", dilations.size(), n);
  if (kernel.size() != n) return;  // the op's own checks say what is wrong
  strides.resize(n, 1);
  pads.resize(2 * n, 0);
  dilations.resize(n, 1);
  std::string autoPad = "NOTSET";
  if (auto it = attrs.find("auto_pad"); it != attrs.end()) {
    if (const auto* s = std::any_cast<std::string>(&it->second)) autoPad = s->empty() ? "NOTSET" : *s;
  }
  bool ceilMode = false;
  if (auto it = attrs.find("ceil_mode"); it != attrs.end()) {
    if (const auto* c = std::any_cast<int64_t>(&it->second)) ceilMode = *c != 0;
  }
  std::vector<int64_t> out(n);
  bool negative = false;
  for (size_t i = 0; i < n; ++i) {
    // Values the op's own checks refuse (a zero stride, sizes that overflow) are left to them.
    int64_t span = 0, padded = 0;
    if (strides[i] <= 0 || dilations[i] <= 0 || kernel[i] <= 0 ||
        __builtin_mul_overflow(dilations[i], kernel[i] - 1, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_add_overflow(x->shape()[i + 2], pads[i], &padded) ||
        __builtin_add_overflow(padded, pads[i + n], &padded))
      return;
    const int64_t in = x->shape()[i + 2];
    const double s = static_cast<double>(strides[i]);
    if (autoPad == "VALID")
      out[i] = static_cast<int64_t>(std::ceil(static_cast<double>(in - span + 1) / s));
    else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
      out[i] = static_cast<int64_t>(std::ceil(static_cast<double>(in) / s));
    else {
      const double v = (static_cast<double>(padded) - static_cast<double>(span)) / s;
      out[i] = static_cast<int64_t>(ceilMode ? std::ceil(v) : std::floor(v)) + 1;
    }
    negative = negative || out[i] < 0;
  }
  if (negative) throw error("Window parameter values combine to give invalid spatial output shape: {}", out);
}

std::vector<TensorId> BuilderImpl::op(const std::string& domain, int version, const std::string& type,
                                      const std::vector<TensorId>& inputs, unsigned numOutputs,
                                      const std::map<std::string, any>& attributes, const DebugContext& dc,
                                      int minInputs, int maxInputs, const std::vector<TensorId>* explicitOutputs) {
  checkInputs(type, inputs, minInputs, maxInputs);
  const size_t requested = explicitOutputs ? explicitOutputs->size() : numOutputs;
  if (requested > kMaxNodeOutputs)
    throw error("{} has an invalid number of outputs {}. Must be at most {}", type, requested, kMaxNodeOutputs);
  if (const OpDef* def = findOpDef(domain, type)) {
    const int n = explicitOutputs ? static_cast<int>(explicitOutputs->size()) : static_cast<int>(numOutputs);
    if (n < def->minOutputs || (def->maxOutputs >= 0 && n > def->maxOutputs)) {
      if (def->maxOutputs < 0)
        throw error("{} has an invalid number of outputs {}. Must be at least {}", type, n, def->minOutputs);
      throw error("{} has an invalid number of outputs {}. Must be between {}..{}", type, n, def->minOutputs,
                  def->maxOutputs);
    }
  }
  if (explicitOutputs) {
    for (const auto& o : *explicitOutputs) {
      if (knows(o)) throw error("Builder: {} output '{}' is already defined", type, o);
    }
  }
  // A subgraph's nodes are read at the model's opsets: the model imports what the subgraph uses.
  for (const auto& kv : attributes) {
    if (const auto* g = std::any_cast<const Builder*>(&kv.second)) {
      for (const auto& o : (*g)->impl().model().opset_import())
        addOpsetRequirement(o.domain(), static_cast<int>(o.version()));
    }
  }
  auto* node = model_.mutable_graph()->add_node();
  node->set_op_type(type);
  if (domain != "ai.onnx" && !domain.empty()) node->set_domain(domain);
  std::string base;
  for (const auto& s : nameScopes) base += s + sNameDelimiter;
  base += dc.empty() ? type : dc.getPathName();
  node->set_name(base + (nodeCounter_ ? "_" + std::to_string(nodeCounter_) : ""));
  ++nodeCounter_;
  for (const auto& in : inputs) node->add_input(in);
  std::vector<TensorId> outs;
  if (explicitOutputs) {
    for (const auto& o : *explicitOutputs) {
      ids_.insert(o);
      outs.push_back(o);
    }
  } else {
    for (unsigned i = 0; i < numOutputs; ++i)
      outs.push_back(nextId(dc.empty() ? type : dc.getPathName(), static_cast<int>(i)));
  }
  for (const auto& o : outs) node->add_output(o);
  try {
    for (const auto& kv : attributes) setAttr(node->add_attribute(), kv.first, kv.second);
    for (const auto& kv : scopedAttributes) {
      if (!attributes.count(kv.first)) setAttr(node->add_attribute(), kv.first, kv.second);
    }
  } catch (...) {
    model_.mutable_graph()->mutable_node()->RemoveLast();
    for (const auto& o : outs) ids_.erase(o);
    throw;
  }
  recordDebugInfo(*node, domain, version, dc, inputs, outs);
  inferShapes(*node, domain, version);
  // PopART's line (scripts look for "Adding ai.onnx.Abs"): the op's identifier, then the node.
  logging::builder::trace("Adding {}.{}:{} node '{}' ({} -> {})", domain.empty() ? "ai.onnx" : domain, type, version,
                          node->name(), inputs, outs);
  return outs;
}

void BuilderImpl::recordDebugInfo(onnx::NodeProto& node, const std::string& domain, int version, const DebugContext& dc,
                                  const std::vector<TensorId>& inputs, const std::vector<TensorId>& outputs) {
  if (!debuginfo::recording()) return;
  std::map<std::string, std::string> attrs;
  const Attributes nodeAttrs = attributesFromNode(node);
  for (const auto& kv : nodeAttrs.all()) {
    if (kv.first.rfind("__", 0) != 0) attrs[kv.first] = attrValueText(kv.second);
  }
  const std::string dom = domain.empty() ? std::string(Domain::ai_onnx) : domain;
  const int64_t id = debuginfo::add("popartbuilder", dc.getPathName(), dc.parentId(),
                                    {{"category", std::string("op")},
                                     {"api", node.op_type()},
                                     {"opid", dom + "." + node.op_type() + ":" + std::to_string(version)},
                                     {"inputs", inputs},
                                     {"outputs", outputs},
                                     {"attributes", attrs}});
  // PopART's attribute: the IR's op records this context as its parent.
  auto* a = node.add_attribute();
  a->set_name(sDebugInfoId);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(id);
}

void BuilderImpl::recordTensorDebugInfo(const char* api, const DebugContext& dc, const TensorId& id) {
  debuginfo::add(
      "popartbuilder", dc.getPathName(), dc.parentId(),
      {{"category", std::string("tensor")}, {"api", std::string(api)}, {"outputs", std::vector<TensorId>{id}}});
}

void BuilderImpl::inferShapes(const onnx::NodeProto& node, const std::string& domain, int version) {
  auto infoOf = [this](const TensorId& id) { return info(id); };
  auto valueOf = [this](const TensorId& id) -> const TensorData* {
    for (const BuilderImpl* p = this; p; p = p->parent_) {
      auto v = p->values_.find(id);
      if (v != p->values_.end()) return &v->second;
      if (p->parentNamedInputs_.count(id)) return nullptr;  // bound by the caller, not the parent's value
    }
    return nullptr;
  };
  std::map<std::string, int> opsets;
  for (const BuilderImpl* p = this; p; p = p->parent_) {
    for (const auto& o : p->model_.opset_import()) opsets.emplace(o.domain(), static_cast<int>(o.version()));
  }
  passes::NodeInference r;
  try {
    if (!passes::inferNode(node, domain, version, infoOf, valueOf, &hostConstEvaluator(), r, opsets)) return;
  } catch (const error& e) {
    logging::builder::warn("Shape inference failed for node '{}' ({}): {}", node.name(), node.op_type(), e.what());
    return;
  }
  for (int i = 0; i < node.output_size(); ++i) {
    const auto k = static_cast<size_t>(i);
    if (node.output(i).empty()) continue;
    if (r.outInfos[k].isSet()) recordInfo(node.output(i), r.outInfos[k]);
    if (r.folded) values_[node.output(i)] = std::move(r.values[k]);
  }
}

onnx::NodeProto& BuilderImpl::findNode(const std::set<TensorId>& outs) {
  for (auto& n : *model_.mutable_graph()->mutable_node()) {
    std::set<TensorId> have(n.output().begin(), n.output().end());
    bool all = !outs.empty();
    for (const auto& o : outs) all = all && have.count(o);
    if (all) return n;
  }
  std::string list;
  for (const auto& o : outs) list += (list.empty() ? "" : ", ") + o;
  throw error("Could not find a node with outputs {}", list);
}

void BuilderImpl::addNodeAttribute(const std::string& name, const any& value, const std::set<TensorId>& outs) {
  onnx::NodeProto& n = findNode(outs);
  for (const auto& a : n.attribute()) {
    if (a.name() == name) throw error("Node already has attribute {}.", name);
  }
  setAttr(n.add_attribute(), name, value);
}

bool BuilderImpl::nodeHasAttribute(const std::string& name, const std::set<TensorId>& outs) {
  for (const auto& a : findNode(outs).attribute()) {
    if (a.name() == name) return true;
  }
  return false;
}

const onnx::AttributeProto& BuilderImpl::getNodeAttribute(const std::string& name, const std::set<TensorId>& outs) {
  for (const auto& a : findNode(outs).attribute()) {
    if (a.name() == name) return a;
  }
  throw error("Node does not have an attribute {}.", name);
}

void BuilderImpl::removeNodeAttribute(const std::string& name, const std::set<TensorId>& outs) {
  onnx::NodeProto& n = findNode(outs);
  auto* attrs = n.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i) {
    if (attrs->Get(i).name() == name) {
      attrs->erase(attrs->begin() + i);
      return;
    }
  }
  throw error("Cannot remove attribute {} as it does not exist.", name);  // PopART's words
}

void BuilderImpl::setNodeAttribute(const std::string& name, const any& value, const std::set<TensorId>& outs) {
  onnx::NodeProto& n = findNode(outs);
  auto* attrs = n.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i) {
    if (attrs->Get(i).name() == name) {
      attrs->erase(attrs->begin() + i);
      break;
    }
  }
  setAttr(n.add_attribute(), name, value);
}

std::vector<std::string> BuilderImpl::getAllNodeAttributeNames(const std::set<TensorId>& outs) {
  std::vector<std::string> v;
  for (const auto& a : findNode(outs).attribute()) v.push_back(a.name());
  return v;
}

std::string BuilderImpl::serialize() const {
  std::string s;
  if (!model_.SerializeToString(&s)) throw error("the Builder's model could not be serialized");
  return s;
}

std::string BuilderImpl::humanReadable() const {
  std::ostringstream os;
  const auto& g = model_.graph();
  os << "graph " << g.name() << " (ir_version " << model_.ir_version() << ")\n";
  for (const auto& o : model_.opset_import())
    os << "  opset " << (o.domain().empty() ? "ai.onnx" : o.domain()) << " " << o.version() << "\n";
  for (const auto& vi : g.input()) {
    const TensorInfo* i = info(vi.name());
    os << "  input " << vi.name() << (i ? " " + i->toString() : "")
       << (isInitializer(vi.name()) ? " (initializer)" : "") << "\n";
  }
  for (const auto& n : g.node()) {
    os << "  " << n.name() << ": " << n.op_type() << "(";
    for (int i = 0; i < n.input_size(); ++i) os << (i ? ", " : "") << n.input(i);
    os << ") -> ";
    for (int i = 0; i < n.output_size(); ++i) os << (i ? ", " : "") << n.output(i);
    os << "\n";
  }
  for (const auto& vi : g.output()) os << "  output " << vi.name() << "\n";
  return os.str();
}

bool BuilderImpl::isInitializer(const TensorId& id) const {
  for (const auto& t : model_.graph().initializer()) {
    if (t.name() == id) return true;
  }
  return false;
}

std::vector<TensorId> BuilderImpl::inputIds() const {
  std::vector<TensorId> v;
  for (const auto& vi : model_.graph().input()) v.push_back(vi.name());
  for (const auto& t : model_.graph().initializer()) {
    if (std::find(v.begin(), v.end(), t.name()) == v.end()) v.push_back(t.name());
  }
  return v;
}

std::vector<TensorId> BuilderImpl::outputIds() const {
  std::vector<TensorId> v;
  for (const auto& vi : model_.graph().output()) v.push_back(vi.name());
  return v;
}

std::vector<TensorId> BuilderImpl::valueIds() const {
  std::vector<TensorId> v;
  for (const auto& n : model_.graph().node()) {
    for (const auto& o : n.output()) {
      if (!o.empty()) v.push_back(o);
    }
  }
  return v;
}

std::vector<TensorId> BuilderImpl::trainableIds() const {
  std::vector<TensorId> v;
  for (const auto& t : model_.graph().initializer()) {
    if (isFloatingPoint(dataTypeFromOnnx(t.data_type()))) v.push_back(t.name());
  }
  return v;
}

}  // namespace popart
