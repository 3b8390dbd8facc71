// Sequences and optional values (docs/architecture.md, "Sequences and optional values"). A plan
// knows how many tensors a sequence holds and whether an optional holds one: the lengths and
// positions come from constants, or from a run's inputs when the CPU device plans at run time. So
// the importer keeps sequence and optional values as lists of tensor names (Graph::structValues)
// and turns the ops on them into the tensor ops they amount to: SequenceAt is an Identity of one
// tensor, ConcatFromSequence a Concat, SplitToSequence Slices, SequenceMap its body once per
// element, an If giving a sequence its taken branch, a Loop carrying one its body once per
// iteration. A value the plan does not know (a position computed at run time) is asked for as
// RunTimeInfoNeeded, as a shape-giving input is.
#include <set>

#include "ir/ir.hpp"
#include "ir/runtime_info.hpp"
#include "onnx.pb.h"
#include "onnx/attributes_io.hpp"
#include "onnx/model_io.hpp"
#include "popart/error.hpp"
#include "popart/error_context.hpp"

namespace popart {

std::string StructValue::typeName() const {
  if (kind == Kind::Sequence) return "a sequence";
  return ofSequence ? "an optional sequence" : "an optional tensor";
}

namespace {

/// Unrolling a Loop stops here: a bound past it is almost surely a condition-only loop.
constexpr int64_t kMaxUnrolledIterations = 10000;
/// The most tensors a sequence made by SplitToSequence may hold (each is a node of the plan).
constexpr int64_t kMaxSequenceLength = 100000;

bool isStructType(const onnx::TypeProto& t) {
  return t.has_sequence_type() || t.has_optional_type();
}

/// An ai.onnx node with INT attributes.
onnx::NodeProto makeNode(const std::string& type, const std::string& name, const std::vector<TensorId>& inputs,
                         const TensorId& output, const std::vector<std::pair<std::string, int64_t>>& intAttrs = {}) {
  onnx::NodeProto n;
  n.set_op_type(type);
  n.set_name(name);
  for (const auto& i : inputs) n.add_input(i);
  n.add_output(output);
  for (const auto& [k, v] : intAttrs) {
    auto* a = n.add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  return n;
}

/// Renames every name `m` maps in `g` and the graphs nested in it (ONNX names are unique across
/// scopes, so a nested graph reads an outer name only as that name).
void renameIn(onnx::GraphProto& g, const std::map<std::string, std::string>& m) {
  auto re = [&](std::string* s) {
    auto it = m.find(*s);
    if (it != m.end()) *s = it->second;
  };
  for (auto& n : *g.mutable_node()) {
    for (auto& i : *n.mutable_input()) re(&i);
    for (auto& o : *n.mutable_output()) re(&o);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) renameIn(*a.mutable_g(), m);
      for (auto& sg : *a.mutable_graphs()) renameIn(sg, m);
    }
  }
  for (auto& o : *g.mutable_output()) re(o.mutable_name());
}

/// An op on sequence / optional values: its arity and earliest ai.onnx opset (oplist/ops_structured.def).
struct StructOp {
  int minIn, maxIn, minOut, maxOut, since;
};
const std::map<std::string, StructOp>& structOps() {
  static const std::map<std::string, StructOp> ops{
#define POPART_STRUCTURED_OP(type, minIn, maxIn, minOut, maxOut, since) {type, {minIn, maxIn, minOut, maxOut, since}},
#include "oplist/ops_structured.def"
#undef POPART_STRUCTURED_OP
  };
  return ops;
}

/// Whether a subgraph's output `i` is a sequence or optional value: declared so, or made by an
/// op that makes one.
bool graphOutputIsStruct(const onnx::GraphProto& g, int i) {
  const auto& o = g.output(i);
  if (isStructType(o.type())) return true;
  static const std::set<std::string> makers{"SequenceEmpty",   "SequenceConstruct", "SequenceInsert", "SequenceErase",
                                            "SplitToSequence", "SequenceMap",       "Optional"};
  for (const auto& n : g.node()) {
    for (const auto& out : n.output()) {
      if (out == o.name()) return makers.count(n.op_type()) != 0;
    }
  }
  return false;
}

}  // namespace

/// Imports the nodes on sequence and optional values of one graph (a friend of Ir).
class StructImporter {
 public:
  StructImporter(Ir& ir, Graph& graph, const onnx::NodeProto& node, std::string name)
      : ir_(ir), g_(graph), node_(node), name_(std::move(name)) {}

  const StructValue* find(const std::string& id) const {
    for (const Graph* p = &g_; p; p = p->parent) {
      auto it = p->structValues.find(id);
      if (it != p->structValues.end()) return &it->second;
      if (p->hasTensor(id)) return nullptr;
    }
    return nullptr;
  }
  bool readsStruct() const {
    for (const auto& in : node_.input()) {
      if (!in.empty() && find(in)) return true;
    }
    return false;
  }

  std::string describe() const {
    return format("node '{}' ({}, opset {})", name_, node_.op_type(), ir_.opsetVersion(Domain::ai_onnx));
  }

  bool hasInput(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }

  const StructValue& structIn(int i, const char* what) const {
    if (!hasInput(i)) throw error("input {} ({}) is missing", i, what);
    const StructValue* v = find(node_.input(i));
    if (!v) {
      if (!ir_.resolveTensor(g_, node_.input(i)))
        throw error("input '{}' is not a graph input, an initializer or the output of an earlier node", node_.input(i));
      throw error("input {} ('{}') must be {}, but it is a tensor", i, node_.input(i), what);
    }
    return *v;
  }
  const StructValue& sequenceIn(int i) const {
    const StructValue& v = structIn(i, "a sequence");
    if (!v.isSequence())
      throw error("input {} ('{}') must be a sequence, but it is {}", i, node_.input(i), v.typeName());
    return v;
  }
  Tensor& tensorIn(int i, const char* what) const {
    if (!hasInput(i)) throw error("input {} ({}) is missing", i, what);
    if (const StructValue* v = find(node_.input(i)))
      throw error("input {} ('{}', {}) must be a tensor, but it is {}", i, node_.input(i), what, v->typeName());
    Tensor* t = ir_.resolveTensor(g_, node_.input(i));
    if (!t)
      throw error("input '{}' is not a graph input, an initializer or the output of an earlier node", node_.input(i));
    return *t;
  }
  /// Input `i`'s value, which the plan needs (a position, a size, a trip count, a condition).
  const TensorData& knownValue(int i, const char* what) const {
    Tensor& t = tensorIn(i, what);
    if (!t.data) {
      const RunTimeInfoNeeded need = valueNeeded(i, t, what);
      throw RunTimeInfoNeeded(format("{}: {}", describe(), need.what()), need);
    }
    return *t.data;
  }
  int64_t intValue(int i, const char* what) const {
    const Tensor& t = tensorIn(i, what);
    if (!isInteger(t.info.dataType()) || t.info.nelms() != 1)
      throw error("input {} ('{}', {}) must be an integer scalar, but it is {}", i, t.id, what, t.info.toString());
    return knownValue(i, what).toInt64()[0];
  }
  bool boolValue(int i, const char* what) const {
    const Tensor& t = tensorIn(i, what);
    if (t.info.nelms() != 1) throw error("'{}' ({}) must hold one value, but it is {}", t.id, what, t.info.toString());
    return knownValue(i, what).getDouble(0) != 0;
  }
  /// The node's attributes (the project's reading: a missing or ill-typed one is an error naming it).
  Attributes attrs() const { return attributesFromNode(node_); }

  /// A fresh name of this graph (no tensor or value has it yet).
  std::string fresh(const std::string& base) {
    std::string id = base;
    for (int k = 1; g_.hasTensor(id) || g_.structValues.count(id) || taken_.count(id); ++k)
      id = base + "/" + std::to_string(k);
    taken_.insert(id);
    return id;
  }
  TensorId constant(const TensorData& d, const std::string& base) {
    const TensorId id = fresh(base);
    Tensor& t = g_.addTensor(id, TensorKind::Const, d.info());
    t.data = d;
    return id;
  }
  /// Output `i`'s name, checked to be new.
  const std::string& claimOutput(int i) const {
    const std::string& out = node_.output(i);
    if (g_.hasTensor(out) || g_.structValues.count(out))
      throw error("Invalid ONNX model: '{}' is produced twice (second time by {})", out, describe());
    return out;
  }
  void defineOutput(int i, StructValue v) {
    if (node_.output(i).empty()) return;
    g_.structValues.emplace(claimOutput(i), std::move(v));
  }
  /// Output `i` as the constant `d`.
  void constantOutput(int i, const TensorData& d) {
    g_.addTensor(claimOutput(i), TensorKind::Const, d.info()).data = d;
  }
  /// An ai.onnx node of this graph, imported as the model's own would be.
  void emit(const std::string& type, const std::vector<TensorId>& inputs, const TensorId& output,
            const std::vector<std::pair<std::string, int64_t>>& intAttrs = {}) {
    ir_.importNode(makeNode(type, fresh(name_ + "/" + type), inputs, output, intAttrs), g_);
  }
  /// `parts` concatenated along `axis` as `output`; with `newAxis`, each first gets a dimension of
  /// 1 there (stacked).
  void concat(std::vector<TensorId> parts, int64_t axis, bool newAxis, const TensorId& output) {
    if (newAxis) {
      for (auto& p : parts) {
        const Shape s0 = ir_.resolveTensor(g_, p)->info.shape();
        const int64_t r = static_cast<int64_t>(s0.size());
        if (axis < -r - 1 || axis > r)
          throw error("axis {} is out of range for tensors of rank {} with new_axis", axis, r);
        Shape s = s0;
        s.insert(s.begin() + (axis < 0 ? axis + r + 1 : axis), 1);
        p = reshaped(p, s, name_ + "/" + p + "/stacked");
      }
    }
    emit("Concat", parts, output, {{"axis", axis}});
  }
  /// `output` (a name of the node) as a tensor equal to `id`.
  void outputTensor(int i, const TensorId& id) {
    if (node_.output_size() <= i || node_.output(i).empty()) return;
    emit("Identity", {id}, node_.output(i));
  }
  void outputValue(int i, const TensorId& id) {
    if (node_.output_size() <= i || node_.output(i).empty()) return;
    if (const StructValue* v = find(id)) {
      defineOutput(i, *v);
    } else {
      outputTensor(i, id);
    }
  }
  /// A tensor of `shape` with `id`'s data (a Reshape, or `id` itself when the shape is its own).
  TensorId reshaped(const TensorId& id, const Shape& shape, const std::string& base) {
    const Tensor* t = ir_.resolveTensor(g_, id);
    if (t->info.shape() == shape) return id;
    const TensorId out = fresh(base);
    emit("Reshape",
         {id, constant(TensorData::fromVector<int64_t>(shape, {static_cast<int64_t>(shape.size())}), out + "/shape")},
         out);
    return out;
  }

  /// Imports `body` into this graph with its inputs bound to `bound` (names of this graph); the
  /// names it defines get `prefix`. Returns the names of its outputs.
  std::vector<std::string> inlineGraph(const onnx::GraphProto& body, const std::vector<std::string>& bound,
                                       const std::string& prefix) {
    onnx::GraphProto b = body;
    std::map<std::string, std::string> names;
    for (int i = 0; i < b.input_size() && static_cast<size_t>(i) < bound.size(); ++i)
      names[b.input(i).name()] = bound[static_cast<size_t>(i)];
    for (const auto& tp : b.initializer()) {
      TensorData d = tensorFromProto(tp);
      names[tp.name()] = constant(d, prefix + tp.name());
    }
    for (const auto& n : b.node()) {
      for (const auto& o : n.output()) {
        if (!o.empty()) names[o] = fresh(prefix + o);
      }
    }
    renameIn(b, names);
    for (auto& n : *b.mutable_node()) n.set_name(prefix + (n.name().empty() ? n.op_type() : n.name()));
    ir_.importNodes(b, g_);
    std::vector<std::string> outs;
    for (const auto& o : b.output()) {
      if (!find(o.name()) && !ir_.resolveTensor(g_, o.name()))
        throw error("output '{}' of the subgraph is not produced inside it", o.name());
      outs.push_back(o.name());
    }
    return outs;
  }

  /// Runs `f`, adding the node to an error's message (RunTimeInfoNeeded keeps its own).
  template <typename F>
  void withNodeContext(F&& f) {
    try {
      f();
    } catch (const internal_error&) {
      throw;
    } catch (const RunTimeInfoNeeded&) {
      throw;
    } catch (const error& e) {
      throw withContext(e, "{}: {}", describe(), e.what());
    }
  }

  void run();
  void sequenceMap();
  void inlineIf();
  bool unrollLoop(bool mustUnroll);

 private:
  Ir& ir_;
  Graph& g_;
  const onnx::NodeProto& node_;
  std::string name_;
  std::set<std::string> taken_;
};

void StructImporter::run() {
  const std::string& type = node_.op_type();
  const int opset = ir_.opsetVersion(Domain::ai_onnx);
  if (auto it = structOps().find(type); it != structOps().end() && opset < it->second.since)
    throw error("Unsupported opset: {} is only supported from ai.onnx opset {}, but the model imports opset {}",
                describe(), it->second.since, opset);
  auto position = [&](int i, int64_t n, bool insert) {
    const int64_t p = intValue(i, "the position");
    const int64_t hi = insert ? n : n - 1;
    if (p < -n || p > hi)
      throw error("position {} is out of range [{}, {}] for a sequence of {} tensors", p, -n, hi, n);
    return p < 0 ? p + n : p;
  };
  if (type == "SequenceEmpty") {
    StructValue v;
    v.elemType = dataTypeFromOnnx(static_cast<int>(attrs().getInt("dtype", onnxDataType(DataType::FLOAT))));
    defineOutput(0, std::move(v));
  } else if (type == "SequenceConstruct") {
    StructValue v;
    for (int i = 0; i < node_.input_size(); ++i) {
      Tensor& t = tensorIn(i, "an element");
      if (v.elemType != DataType::UNDEFINED && t.info.dataType() != v.elemType)
        throw error("the tensors of a sequence must have one type, but input {} ('{}') is {} and input 0 is {}", i,
                    t.id, t.info.data_type(), dataTypeToString(v.elemType));
      v.elemType = t.info.dataType();
      v.tensors.push_back(t.id);
    }
    defineOutput(0, std::move(v));
  } else if (type == "SequenceInsert") {
    StructValue v = sequenceIn(0);
    Tensor& t = tensorIn(1, "the tensor to insert");
    if (v.elemType != DataType::UNDEFINED && t.info.dataType() != v.elemType)
      throw error("the sequence holds {} tensors, but the tensor to insert ('{}') is {}", dataTypeToString(v.elemType),
                  t.id, t.info.toString());
    const int64_t n = static_cast<int64_t>(v.tensors.size());
    const int64_t p = hasInput(2) ? position(2, n, true) : n;
    v.tensors.insert(v.tensors.begin() + p, t.id);
    v.elemType = t.info.dataType();
    defineOutput(0, std::move(v));
  } else if (type == "SequenceErase") {
    StructValue v = sequenceIn(0);
    const int64_t n = static_cast<int64_t>(v.tensors.size());
    if (n == 0) throw error("cannot erase from an empty sequence ('{}')", node_.input(0));
    const int64_t p = hasInput(1) ? position(1, n, false) : n - 1;
    v.tensors.erase(v.tensors.begin() + p);
    defineOutput(0, std::move(v));
  } else if (type == "SequenceAt") {
    const StructValue& v = sequenceIn(0);
    const int64_t n = static_cast<int64_t>(v.tensors.size());
    outputTensor(0, v.tensors[static_cast<size_t>(position(1, n, false))]);
  } else if (type == "SequenceLength") {
    constantOutput(0, TensorData::scalarInt64(static_cast<int64_t>(sequenceIn(0).tensors.size())));
  } else if (type == "SplitToSequence") {
    Tensor& x = tensorIn(0, "the tensor to split");
    const Shape shape = x.info.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    const Attributes a = attrs();
    int64_t axis = a.getInt("axis", 0);
    const int64_t keepdims = a.getInt("keepdims", 1);
    if (axis < -rank || axis >= rank) throw error("axis {} is out of range for '{}' {}", axis, x.id, x.info.toString());
    if (axis < 0) axis += rank;
    const int64_t dim = shape[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    bool squeeze = false;
    auto checkPieces = [&](int64_t pieces) {
      if (pieces > kMaxSequenceLength)
        throw error("splitting axis {} of '{}' {} would make {} tensors, more than a sequence may hold here ({})", axis,
                    x.id, x.info.toString(), pieces, kMaxSequenceLength);
    };
    if (!hasInput(1)) {
      checkPieces(dim);
      sizes.assign(static_cast<size_t>(dim), 1);
      squeeze = keepdims == 0;
    } else {
      Tensor& s = tensorIn(1, "the split");
      if (!isInteger(s.info.dataType()) || s.info.rank() > 1)
        throw error("split must be an integer scalar or 1-D tensor, but '{}' is {}", s.id, s.info.toString());
      const std::vector<int64_t> v = knownValue(1, "the split").toInt64();
      if (s.info.rank() == 0) {
        if (v[0] <= 0) throw error("split {} must be positive", v[0]);
        checkPieces(dim / v[0] + (dim % v[0] != 0));
        for (int64_t at = 0; at < dim; at += v[0]) sizes.push_back(std::min(v[0], dim - at));
      } else {
        int64_t sum = 0;
        for (int64_t k : v) {
          if (k < 0) throw error("split {} has a negative size", v);
          sum += k;
        }
        if (sum != dim)
          throw error("split {} adds up to {}, but axis {} of '{}' {} has {}", v, sum, axis, x.id, x.info.toString(),
                      dim);
        sizes = v;
      }
    }
    StructValue seq;
    seq.elemType = x.info.dataType();
    int64_t at = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      const TensorId part = fresh(name_ + "/" + std::to_string(k));
      auto c = [&](int64_t v, const char* what) {
        return constant(TensorData::fromVector<int64_t>({v}, {1}), part + "/" + what);
      };
      emit("Slice", {x.id, c(at, "start"), c(at + sizes[k], "end"), c(axis, "axis")}, part);
      at += sizes[k];
      Shape s = shape;
      if (squeeze) {
        s.erase(s.begin() + axis);
      } else {
        s[static_cast<size_t>(axis)] = sizes[k];
      }
      seq.tensors.push_back(reshaped(part, s, part + "/squeezed"));
    }
    defineOutput(0, std::move(seq));
  } else if (type == "ConcatFromSequence") {
    const StructValue& v = sequenceIn(0);
    const Attributes a = attrs();
    const int64_t axis = a.getInt("axis"), newAxis = a.getInt("new_axis", 0);
    if (v.tensors.empty()) throw error("the sequence '{}' is empty: there is nothing to concatenate", node_.input(0));
    concat(v.tensors, axis, newAxis != 0, node_.output(0));
  } else if (type == "SequenceMap") {
    sequenceMap();
  } else if (type == "Optional") {
    StructValue v;
    v.kind = StructValue::Kind::Optional;
    if (hasInput(0)) {
      v.present = true;
      if (const StructValue* s = find(node_.input(0))) {
        if (!s->isSequence()) throw error("an optional of {} is not supported", s->typeName());
        v.ofSequence = true;
        v.elemType = s->elemType;
        v.tensors = s->tensors;
      } else {
        Tensor& t = tensorIn(0, "the value");
        v.elemType = t.info.dataType();
        v.tensors.push_back(t.id);
      }
    } else {
      const onnx::AttributeProto* typeAttr = nullptr;
      for (const auto& a : node_.attribute()) {
        if (a.name() == "type") typeAttr = &a;
      }
      if (!typeAttr || !typeAttr->has_tp()) throw error("an Optional without an input needs the attribute 'type'");
      v.ofSequence = typeAttr->tp().has_sequence_type();
      v.elemType = elemTypeOf(typeAttr->tp());
    }
    defineOutput(0, std::move(v));
  } else if (type == "OptionalHasElement" || type == "OptionalGetElement") {
    const bool get = type == "OptionalGetElement";
    const StructValue* v = hasInput(0) ? find(node_.input(0)) : nullptr;
    if (hasInput(0) && !v) tensorIn(0, "the value");  // a tensor: it is its own element (opset 18)
    const bool present = hasInput(0) && (!v || v->isSequence() || v->present);
    if (!get) {
      const uint8_t b = present ? 1 : 0;
      constantOutput(0, TensorData(TensorInfo(DataType::BOOL, {}), &b));
    } else if (!present) {
      throw error("the optional '{}' holds no value (it is None)", hasInput(0) ? node_.input(0) : "");
    } else if (!v) {
      outputTensor(0, node_.input(0));
    } else if (v->isSequence() || v->ofSequence) {
      StructValue s;
      s.elemType = v->elemType;
      s.tensors = v->tensors;
      defineOutput(0, std::move(s));
    } else {
      outputTensor(0, v->tensors.at(0));
    }
  } else if (type == "Identity") {
    defineOutput(0, *find(node_.input(0)));
  } else if (type == "If") {
    inlineIf();
  } else if (type == "Loop") {
    unrollLoop(true);
  } else {
    for (int i = 0; i < node_.input_size(); ++i) {
      if (const StructValue* v = hasInput(i) ? find(node_.input(i)) : nullptr)
        throw error("input {} ('{}') is {}, but {} takes tensors", i, node_.input(i), v->typeName(), type);
    }
  }
}

void StructImporter::sequenceMap() {
  const GraphProtoPtr body = attrs().getGraph("body");
  const StructValue& first = sequenceIn(0);
  const size_t n = first.tensors.size();
  std::vector<const StructValue*> ins;
  for (int i = 0; i < node_.input_size(); ++i) {
    const StructValue* v = hasInput(i) ? find(node_.input(i)) : nullptr;
    if (v && !v->isSequence())
      throw error("input {} ('{}') is {}: SequenceMap takes sequences and tensors", i, node_.input(i), v->typeName());
    if (v && v->tensors.size() != n)
      throw error("the sequences must have one length, but input {} ('{}') holds {} tensors and input 0 {}", i,
                  node_.input(i), v->tensors.size(), n);
    if (!v) tensorIn(i, "an input of the body");
    ins.push_back(v);
  }
  const int nOut = node_.output_size();
  if (body->output_size() != nOut) throw error("the body has {} outputs, and the node {}", body->output_size(), nOut);
  std::vector<StructValue> outs(static_cast<size_t>(nOut));
  for (int j = 0; j < nOut; ++j) {
    outs[static_cast<size_t>(j)].elemType = elemTypeOf(body->output(j).type());
  }
  for (size_t k = 0; k < n; ++k) {
    std::vector<std::string> bound;
    for (int i = 0; i < node_.input_size(); ++i)
      bound.push_back(ins[static_cast<size_t>(i)] ? ins[static_cast<size_t>(i)]->tensors[k] : node_.input(i));
    const auto results = inlineGraph(*body, bound, name_ + "/" + std::to_string(k) + "/");
    for (int j = 0; j < nOut; ++j) {
      const std::string& r = results[static_cast<size_t>(j)];
      if (const StructValue* v = find(r))
        throw error("body output {} ('{}') is {}: a sequence of them is not supported", j, r, v->typeName());
      const Tensor* t = ir_.resolveTensor(g_, r);
      outs[static_cast<size_t>(j)].elemType = t->info.dataType();
      outs[static_cast<size_t>(j)].tensors.push_back(r);
    }
  }
  for (int j = 0; j < nOut; ++j) defineOutput(j, std::move(outs[static_cast<size_t>(j)]));
}

void StructImporter::inlineIf() {
  const bool c = boolValue(0, "the condition (a branch gives a sequence or optional value, so it is inlined)");
  const char* attr = c ? "then_branch" : "else_branch";
  const GraphProtoPtr branch = attrs().getGraph(attr);
  if (branch->output_size() != node_.output_size())
    throw error("the {} has {} outputs, and the node {}", attr, branch->output_size(), node_.output_size());
  const auto results = inlineGraph(*branch, {}, name_ + "/" + attr + "/");
  for (int i = 0; i < node_.output_size(); ++i) outputValue(i, results[static_cast<size_t>(i)]);
}

bool StructImporter::unrollLoop(bool mustUnroll) {
  const GraphProtoPtr body = attrs().getGraph("body");
  const int nCarried = node_.input_size() - 2;
  const int nScan = body->output_size() - 1 - nCarried;
  if (nCarried < 0 || nScan < 0)
    throw error("the body has {} outputs, fewer than 1 + {} loop-carried values", body->output_size(),
                std::max(nCarried, 0));
  if (node_.output_size() > nCarried + nScan)
    throw error("the node has {} outputs, but the body gives {} loop-carried values and {} scan outputs",
                node_.output_size(), nCarried, nScan);
  if (!hasInput(0) && !hasInput(1)) {
    if (mustUnroll)
      throw error(
          "the Loop has neither a trip count nor a condition, and it carries a sequence or optional value, so "
          "it is unrolled: it needs a bound");
    return false;
  }
  const int64_t m = hasInput(0) ? intValue(0, "the trip count (the Loop is unrolled)") : kMaxUnrolledIterations;
  bool go = !hasInput(1) || boolValue(1, "the condition (the Loop is unrolled)");
  TensorId condId =
      hasInput(1) ? node_.input(1) : constant(TensorData(TensorInfo(DataType::BOOL, {}), "\1"), name_ + "/cond");
  std::vector<std::string> carried(node_.input().begin() + 2, node_.input().end());
  std::vector<std::vector<std::string>> scans(static_cast<size_t>(nScan));
  int64_t i = 0;
  for (; i < m && go; ++i) {
    if (i >= kMaxUnrolledIterations)
      throw error("the Loop runs {} iterations or more without its condition turning false: too many to unroll",
                  kMaxUnrolledIterations);
    std::vector<std::string> bound{constant(TensorData::scalarInt64(i), name_ + "/iteration " + std::to_string(i)),
                                   condId};
    bound.insert(bound.end(), carried.begin(), carried.end());
    const auto outs = inlineGraph(*body, bound, name_ + "/" + std::to_string(i) + "/");
    if (find(outs[0])) throw error("the body's condition output '{}' is not a tensor", outs[0]);
    Tensor* c = ir_.resolveTensor(g_, outs[0]);
    if (!c->data)
      throw error(
          "the Loop is unrolled (it {}), so its condition must be known after each iteration, but the body "
          "computes '{}' at run time (iteration {})",
          mustUnroll ? "carries a sequence or optional value" : "shapes values by the iteration count", outs[0], i);
    go = c->data->getDouble(0) != 0;
    condId = outs[0];
    for (int k = 0; k < nCarried; ++k) carried[static_cast<size_t>(k)] = outs[static_cast<size_t>(1 + k)];
    for (int k = 0; k < nScan; ++k)
      scans[static_cast<size_t>(k)].push_back(outs[static_cast<size_t>(1 + nCarried + k)]);
  }
  for (int k = 0; k < nCarried && k < node_.output_size(); ++k) outputValue(k, carried[static_cast<size_t>(k)]);
  for (int k = 0; k < nScan && nCarried + k < node_.output_size(); ++k) {
    const int o = nCarried + k;
    if (node_.output(o).empty()) continue;
    const auto& parts = scans[static_cast<size_t>(k)];
    if (parts.empty()) {
      // No iteration: an empty tensor of the body's declared type and shape.
      const auto& tt = body->output(1 + nCarried + k).type().tensor_type();
      Shape s{0};
      for (const auto& d : tt.shape().dim()) s.push_back(d.has_dim_value() ? d.dim_value() : 0);
      const TensorData empty(TensorInfo(tt.elem_type() ? dataTypeFromOnnx(tt.elem_type()) : DataType::FLOAT, s));
      outputTensor(o, constant(empty, name_ + "/no iterations"));
      continue;
    }
    for (const auto& p : parts) {
      if (find(p)) throw error("scan output {} ('{}') is not a tensor", k, p);
    }
    concat(parts, 0, true, node_.output(o));
  }
  return true;
}

bool Ir::importStructured(const onnx::NodeProto& node, Graph& graph, const std::string& name) {
  if (canonicalDomain(node.domain()) != Domain::ai_onnx) return false;
  StructImporter s(*this, graph, node, name);
  const std::string& type = node.op_type();
  auto op = structOps().find(type);
  bool structured = op != structOps().end() || s.readsStruct();
  if (!structured && (type == "If" || type == "Loop")) {  // a branch or body gives a sequence / optional
    for (const auto& a : node.attribute()) {
      if (!a.has_g()) continue;
      for (int i = 0; i < a.g().output_size(); ++i) structured = structured || graphOutputIsStruct(a.g(), i);
    }
  }
  if (!structured) return false;
  if (op != structOps().end()) {
    const StructOp& o = op->second;
    checkArity(node, name, opsetVersion(Domain::ai_onnx), o.minIn, o.maxIn, o.minOut, o.maxOut);
  }
  s.withNodeContext([&] { s.run(); });
  return true;
}

bool Ir::unrollLoopIfBounded(const onnx::NodeProto& node, Graph& graph, const std::string& name) {
  StructImporter s(*this, graph, node, name);
  bool unrolled = false;
  s.withNodeContext([&] { unrolled = s.unrollLoop(false); });
  return unrolled;
}

void Ir::anchorStructValues() {
  std::map<TensorId, AnchorReturnType> anchors;
  bool changed = false;
  for (const auto& id : dataFlow_.anchors()) {
    auto it = main_->structValues.find(id);
    if (it == main_->structValues.end()) {
      anchors.emplace(id, dataFlow_.art(id));
      continue;
    }
    changed = true;
    StructAnchor sa;
    sa.value = it->second;
    for (size_t i = 0; i < sa.value.tensors.size(); ++i) {
      const TensorId e = main_->uniqueTensorId(elementTensorId(id, i));
      importNode(makeNode("Identity", id + "/anchor " + std::to_string(i), {sa.value.tensors[i]}, e), *main_);
      sa.elements.push_back(e);
      anchors.emplace(e, dataFlow_.art(id));
    }
    structAnchors_.emplace(id, std::move(sa));
  }
  if (changed) {
    const int bps = dataFlow_.batchesPerStep();
    dataFlow_ = DataFlow(bps, anchors);
  }
  auto& outs = main_->outputIds;
  std::vector<TensorId> expanded;
  for (const auto& o : outs) {
    auto it = structAnchors_.find(o);
    if (it == structAnchors_.end()) {
      if (!main_->structValues.count(o)) expanded.push_back(o);
      continue;
    }
    expanded.insert(expanded.end(), it->second.elements.begin(), it->second.elements.end());
  }
  outs = expanded;
}

}  // namespace popart
