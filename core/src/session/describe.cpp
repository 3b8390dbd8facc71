// describeModel (popart/describe.hpp): the model's structure read from the ModelProto, initializer
// statistics computed from its bytes, then the tensors' types and shapes from the runtime's own
// import (Ir::load: the shape inference and constant folding a session runs, without a device).
// Compiled with -ffp-contract=off (core/CMakeLists.txt): the histogram's bin edges and indices
// are computed with numpy.histogram's exact operations, so the counts match it bin for bin.
#include "popart/describe.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/checked_size.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"
#include "optimizers/training_graph.hpp"
#include "popart/error.hpp"
#include "popart/half.hpp"

namespace popart {

const char* shapeSourceName(ShapeSource s) {
  switch (s) {
    case ShapeSource::Inferred:
      return "inferred";
    case ShapeSource::File:
      return "file";
    case ShapeSource::Unknown:
      break;
  }
  return "unknown";
}

const char* tensorRoleName(TensorRole r) {
  switch (r) {
    case TensorRole::Input:
      return "input";
    case TensorRole::Initializer:
      return "initializer";
    case TensorRole::Output:
      return "output";
    case TensorRole::Constant:
      return "constant";
    case TensorRole::Activation:
      break;
  }
  return "activation";
}

namespace {

constexpr int kMaxHistogramBins = 65536;
constexpr int64_t kMaxSummaryValues = 16;

// ------------------------------------------------------------------ types and sizes

std::string onnxTypeName(int32_t t) {
  if (t == onnx::TensorProto::UNDEFINED || !onnx::TensorProto_DataType_IsValid(t)) return "";
  return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
}

/// Bytes per element of an ONNX type name, or 0 when it has no fixed size (STRING, unknown).
int64_t elementBytes(const std::string& dtype) {
  if (dtype.empty() || dtype == "STRING") return 0;
  onnx::TensorProto_DataType t;
  if (!onnx::TensorProto_DataType_Parse(dtype, &t)) return 0;
  try {
    return dataTypeSize(dataTypeFromOnnx(t));
  } catch (const error&) {
    return 0;  // a type the runtime does not handle (FLOAT8 variants, ...)
  }
}

void setSizes(TensorDescription& t) {
  t.elements.reset();
  t.bytes.reset();
  if (t.dtype.empty() || !t.shape) return;
  Shape dims;
  for (const auto& d : *t.shape) {
    if (!d.known()) return;
    dims.push_back(d.value);
  }
  const int64_t n = checkedProduct(dims);
  if (n < 0) return;
  t.elements = n;
  const int64_t eb = elementBytes(t.dtype);
  int64_t b = 0;
  if (eb > 0 && checkedMul(n, eb, &b)) t.bytes = b;
}

std::vector<DimDescription> knownDims(const std::vector<int64_t>& dims) {
  std::vector<DimDescription> out;
  for (int64_t d : dims) out.push_back(DimDescription{d, ""});
  return out;
}

/// The shortest decimal that reads back as the same float32, as a double (0.1f gives 0.1, not
/// 0.100000001490116).
double shortestFloat(float f) {
  if (!std::isfinite(f)) return static_cast<double>(f);
  char buf[32];
  for (int prec = 6; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, static_cast<double>(f));
    const double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == f) return d;
  }
  return static_cast<double>(f);
}

// ------------------------------------------------------------------ statistics

bool hasStats(int32_t onnxType) {
  switch (onnxType) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      return true;
    default:
      return false;
  }
}

/// Adds block sums (1024 values each, summed plainly) with Neumaier's compensation: the rounding
/// error of a mean over millions of weights stays that of one block (numpy sums pairwise).
class Summer {
 public:
  void add(double x) {
    const double t = sum_ + x;
    comp_ += std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double total() const { return sum_ + comp_; }

 private:
  double sum_ = 0, comp_ = 0;
};

/// numpy.histogram's bin edges for `bins` equal bins over [first, last] (numpy.linspace).
std::vector<double> binEdges(double first, double last, int bins) {
  std::vector<double> e(static_cast<size_t>(bins) + 1);
  const double delta = last - first;
  const double step = delta / bins;
  for (int i = 0; i <= bins; ++i) {
    double y = static_cast<double>(i);
    if (step == 0) {
      y = y / bins;
      y = y * delta;
    } else {
      y = y * step;
    }
    e[static_cast<size_t>(i)] = y + first;
  }
  e[static_cast<size_t>(bins)] = last;
  return e;
}

/// T: an arithmetic type, or float16_t / bfloat16_t (which convert to float).
template <typename T>
TensorStats statsOf(const unsigned char* p, int64_t n, int bins) {
  TensorStats s;
  s.count = n;
  auto at = [&](int64_t i) {
    T v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return static_cast<double>(v);
  };
  // Blocks of 1024 summed plainly, the block sums added with Neumaier's compensation.
  constexpr int64_t kBlock = 1024;
  int64_t finite = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  Summer sum;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    double block = 0;
    for (int64_t i = b; i < e; ++i) {
      const double x = at(i);
      s.zeros += x == 0 ? 1 : 0;
      if (std::isfinite(x)) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        ++finite;
        block += x;
      } else if (std::isnan(x)) {
        ++s.nans;
      } else {
        ++s.infs;
      }
    }
    sum.add(block);
  }
  if (finite == 0) return s;
  const double mean = sum.total() / static_cast<double>(finite);
  s.min = lo;
  s.max = hi;
  s.mean = mean;
  double first = lo, last = hi;
  if (first == last) {
    first = first - 0.5;
    last = last + 0.5;
  }
  const std::vector<double> edges = binEdges(first, last, bins);
  const double norm = bins / (last - first);
  s.histMin = first;
  s.histMax = last;
  s.histogram.assign(static_cast<size_t>(bins), 0);
  Summer sq;
  int64_t* counts = s.histogram.data();
  const double* edge = edges.data();
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    double block = 0;
    for (int64_t i = b; i < e; ++i) {
      const double x = at(i);
      if (!std::isfinite(x)) continue;
      const double d = x - mean;
      block += d * d;
      // numpy.histogram's uniform-bin path, step for step (the clamps only matter when f is NaN:
      // a range wider than DBL_MAX).
      const double f = (x - first) * norm;
      int64_t idx = f >= 0 && f < bins ? static_cast<int64_t>(f) : f >= bins ? bins : 0;
      if (idx == bins) --idx;
      if (x < edge[idx]) --idx;
      if (idx != bins - 1 && x >= edge[idx + 1]) ++idx;
      ++counts[std::min<int64_t>(std::max<int64_t>(idx, 0), bins - 1)];
    }
    sq.add(block);
  }
  s.std = std::sqrt(sq.total() / static_cast<double>(finite));
  return s;
}

/// Statistics of `n` little-endian elements of ONNX type `t` at `p` (hasStats(t)).
TensorStats statsOfBytes(int32_t t, const unsigned char* p, int64_t n, int bins) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return statsOf<float>(p, n, bins);
    case onnx::TensorProto::DOUBLE:
      return statsOf<double>(p, n, bins);
    case onnx::TensorProto::FLOAT16:
      return statsOf<float16_t>(p, n, bins);
    case onnx::TensorProto::BFLOAT16:
      return statsOf<bfloat16_t>(p, n, bins);
    case onnx::TensorProto::INT8:
      return statsOf<int8_t>(p, n, bins);
    case onnx::TensorProto::INT16:
      return statsOf<int16_t>(p, n, bins);
    case onnx::TensorProto::INT32:
      return statsOf<int32_t>(p, n, bins);
    case onnx::TensorProto::INT64:
      return statsOf<int64_t>(p, n, bins);
    case onnx::TensorProto::UINT8:
      return statsOf<uint8_t>(p, n, bins);
    case onnx::TensorProto::UINT16:
      return statsOf<uint16_t>(p, n, bins);
    case onnx::TensorProto::UINT32:
      return statsOf<uint32_t>(p, n, bins);
    case onnx::TensorProto::UINT64:
      return statsOf<uint64_t>(p, n, bins);
    default:
      throw internal_error("statsOfBytes: type {} has no statistics", t);
  }
}

/// Statistics of a TensorProto's values (raw_data read in place; other layouts decoded by
/// tensorFromProto, with its errors). Unset for types without statistics, and for external data
/// when the model came as bytes (the import then reports that).
std::optional<TensorStats> protoStats(const onnx::TensorProto& tp, const std::string& baseDir, int bins) {
  if (!hasStats(tp.data_type())) return std::nullopt;
  if (tp.data_location() == onnx::TensorProto::EXTERNAL && baseDir.empty()) return std::nullopt;
  if (tp.has_raw_data() && tp.data_location() != onnx::TensorProto::EXTERNAL) {
    Shape dims(tp.dims().begin(), tp.dims().end());
    const int64_t n = checkedProduct(dims);
    const int64_t eb = elementBytes(onnxTypeName(tp.data_type()));
    int64_t nb = -1;
    const bool dimsOk = std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
    if (dimsOk && n >= 0 && checkedMul(n, eb, &nb) && nb == static_cast<int64_t>(tp.raw_data().size()))
      return statsOfBytes(tp.data_type(), reinterpret_cast<const unsigned char*>(tp.raw_data().data()), n, bins);
  }
  const TensorData d = tensorFromProto(tp, baseDir);  // throws for data that does not match
  return statsOfBytes(tp.data_type(), static_cast<const unsigned char*>(d.data()), d.info().nelms(), bins);
}

std::optional<TensorStats> checkedInitializerStats(const onnx::TensorProto& tp, const std::string& baseDir, int bins) {
  try {
    for (int64_t d : tp.dims()) {
      if (d < 0) throw error("tensor '{}' has a negative dimension", tp.name());
    }
    return protoStats(tp, baseDir, bins);
  } catch (const internal_error&) {
    throw;
  } catch (const error& e) {
    throw error("Invalid initializer '{}': {}", tp.name(), e.what());
  }
}

// ------------------------------------------------------------------ attributes

TensorSummary tensorSummary(const onnx::TensorProto& tp) {
  TensorSummary s;
  s.dtype = onnxTypeName(tp.data_type());
  s.shape.assign(tp.dims().begin(), tp.dims().end());
  s.elements = checkedProduct(s.shape);
  if (s.elements < 0 || s.elements > kMaxSummaryValues) return s;
  try {
    const TensorData d = tensorFromProto(tp);
    if (d.isString()) {
      s.stringValues = d.strings();
    } else if (d.info().dataType() == DataType::FLOAT) {
      for (int64_t i = 0; i < d.info().nelms(); ++i) s.values.push_back(shortestFloat(d.as<float>()[i]));
    } else {
      s.values = d.toDouble();
    }
    s.hasValues = true;
  } catch (const error&) {
    // values that cannot be decoded: the summary without them (the import reports the error)
  }
  return s;
}

AttributeDescription attributeDescription(const onnx::AttributeProto& a) {
  AttributeDescription d;
  d.name = a.name();
  d.type = onnx::AttributeProto_AttributeType_IsValid(a.type())
               ? onnx::AttributeProto_AttributeType_Name(static_cast<onnx::AttributeProto_AttributeType>(a.type()))
               : "UNDEFINED";
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT:
      d.floats.push_back(shortestFloat(a.f()));
      break;
    case onnx::AttributeProto::INT:
      d.ints.push_back(a.i());
      break;
    case onnx::AttributeProto::STRING:
      d.strings.push_back(a.s());
      break;
    case onnx::AttributeProto::TENSOR:
      d.tensors.push_back(tensorSummary(a.t()));
      break;
    case onnx::AttributeProto::GRAPH:
      d.graphs.push_back(GraphSummary{a.g().name(), a.g().node_size()});
      break;
    case onnx::AttributeProto::FLOATS:
      for (float f : a.floats()) d.floats.push_back(shortestFloat(f));
      break;
    case onnx::AttributeProto::INTS:
      d.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      d.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case onnx::AttributeProto::TENSORS:
      for (const auto& t : a.tensors()) d.tensors.push_back(tensorSummary(t));
      break;
    case onnx::AttributeProto::GRAPHS:
      for (const auto& g : a.graphs()) d.graphs.push_back(GraphSummary{g.name(), g.node_size()});
      break;
    default:
      break;  // sparse tensors, type protos: no value
  }
  return d;
}

// ------------------------------------------------------------------ graphs

/// Names a graph's nodes read that it does not define (outer-scope references), through its
/// subgraphs too.
void freeNames(const onnx::GraphProto& g, std::set<std::string>& out) {
  std::unordered_set<std::string> defined;
  for (const auto& vi : g.input()) defined.insert(vi.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) defined.insert(o);
  }
  std::set<std::string> reads;
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) {
      if (!i.empty()) reads.insert(i);
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) freeNames(a.g(), reads);
      for (const auto& sg : a.graphs()) freeNames(sg, reads);
    }
  }
  for (const auto& o : g.output()) reads.insert(o.name());
  for (const auto& r : reads) {
    if (!defined.count(r)) out.insert(r);
  }
}

/// Type and shape of a ValueInfoProto; false when it says nothing.
bool fileInfo(const onnx::ValueInfoProto& vi, TensorDescription& t) {
  if (!vi.has_type() || !vi.type().has_tensor_type()) return false;
  const auto& tt = vi.type().tensor_type();
  t.dtype = onnxTypeName(tt.elem_type());
  if (tt.has_shape()) {
    std::vector<DimDescription> dims;
    for (const auto& d : tt.shape().dim()) {
      DimDescription dd;
      if (d.has_dim_value() && d.dim_value() >= 0) {
        dd.value = d.dim_value();
      } else if (d.has_dim_param()) {
        dd.param = d.dim_param();
      }
      dims.push_back(dd);
    }
    t.shape = std::move(dims);
  }
  return !t.dtype.empty() || t.shape.has_value();
}

/// What a Constant node's value attribute says about its output: type, shape and statistics.
void constantInfo(const onnx::NodeProto& n, TensorDescription& t, int bins) {
  for (const auto& a : n.attribute()) {
    const std::string& k = a.name();
    if (k == "value" && a.has_t()) {
      t.dtype = onnxTypeName(a.t().data_type());
      t.shape = knownDims({a.t().dims().begin(), a.t().dims().end()});
      try {
        t.stats = protoStats(a.t(), "", bins);
      } catch (const error&) {
        // a value that does not decode: no statistics (the import reports the error)
      }
    } else if (k == "sparse_value" && a.has_sparse_tensor()) {
      t.dtype = onnxTypeName(a.sparse_tensor().values().data_type());
      t.shape = knownDims({a.sparse_tensor().dims().begin(), a.sparse_tensor().dims().end()});
    } else if (k == "value_float" || k == "value_floats") {
      std::vector<float> v =
          k == "value_float" ? std::vector<float>{a.f()} : std::vector<float>(a.floats().begin(), a.floats().end());
      t.dtype = "FLOAT";
      t.shape = k == "value_float" ? knownDims({}) : knownDims({static_cast<int64_t>(v.size())});
      t.stats = statsOf<float>(reinterpret_cast<const unsigned char*>(v.data()), static_cast<int64_t>(v.size()), bins);
    } else if (k == "value_int" || k == "value_ints") {
      std::vector<int64_t> v =
          k == "value_int" ? std::vector<int64_t>{a.i()} : std::vector<int64_t>(a.ints().begin(), a.ints().end());
      t.dtype = "INT64";
      t.shape = k == "value_int" ? knownDims({}) : knownDims({static_cast<int64_t>(v.size())});
      t.stats =
          statsOf<int64_t>(reinterpret_cast<const unsigned char*>(v.data()), static_cast<int64_t>(v.size()), bins);
    } else if (k == "value_string" || k == "value_strings") {
      t.dtype = "STRING";
      t.shape = k == "value_string" ? knownDims({}) : knownDims({a.strings_size()});
    } else {
      continue;
    }
    t.shapeSource = ShapeSource::File;
    return;
  }
}

struct Context {
  std::map<std::string, int64_t> opsets;
  std::string baseDir;
  int bins = 32;
};

std::vector<std::string> nodeNames(const onnx::GraphProto& g) {
  std::unordered_map<std::string, int> count;
  for (const auto& n : g.node()) ++count[n.name()];
  std::unordered_set<std::string> used;
  for (const auto& n : g.node()) {
    if (!n.name().empty() && count[n.name()] == 1) used.insert(n.name());
  }
  std::vector<std::string> names;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (!n.name().empty() && count[n.name()] == 1) {
      names.push_back(n.name());
      continue;
    }
    const std::string base = n.op_type() + "_" + std::to_string(i);
    std::string name = base;
    for (int k = 1; used.count(name); ++k) name = base + "_" + std::to_string(k);
    used.insert(name);
    names.push_back(name);
  }
  return names;
}

GraphDescription describeGraph(const onnx::GraphProto& g, const Context& ctx, const std::string& attribute = "") {
  GraphDescription gd;
  gd.name = g.name();
  gd.attribute = attribute;
  gd.docString = g.doc_string();
  const std::vector<std::string> names = nodeNames(g);

  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  std::unordered_set<std::string> inputs, outputs;
  std::unordered_map<std::string, const onnx::ValueInfoProto*> infos;
  for (const auto& vi : g.value_info()) infos[vi.name()] = &vi;
  for (const auto& vi : g.output()) {
    outputs.insert(vi.name());
    infos[vi.name()] = &vi;
  }
  for (const auto& vi : g.input()) {
    infos[vi.name()] = &vi;
    if (!inits.count(vi.name())) {
      inputs.insert(vi.name());
      gd.inputs.push_back(vi.name());
    }
  }
  for (const auto& vi : g.output()) gd.outputs.push_back(vi.name());

  std::unordered_set<std::string> defined(inputs.begin(), inputs.end());
  for (const auto& kv : inits) defined.insert(kv.first);
  std::unordered_map<std::string, int> producer;  // tensor -> node index
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto& o : g.node(i).output()) {
      if (o.empty()) continue;
      defined.insert(o);
      producer.emplace(o, i);
    }
  }

  // Tensors in order of first mention: inputs, initializers, node inputs / outputs, outputs.
  std::vector<std::string> order;
  std::unordered_map<std::string, size_t> index;
  auto mention = [&](const std::string& id) {
    if (id.empty() || !defined.count(id) || index.count(id)) return;
    index.emplace(id, order.size());
    order.push_back(id);
  };
  for (const auto& vi : g.input()) mention(vi.name());
  for (const auto& t : g.initializer()) mention(t.name());
  std::vector<std::vector<std::string>> consumers;
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) mention(i);
    for (const auto& o : n.output()) mention(o);
  }
  for (const auto& vi : g.output()) mention(vi.name());
  consumers.resize(order.size());

  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    NodeDescription nd;
    nd.name = names[static_cast<size_t>(i)];
    nd.opType = n.op_type();
    nd.domain = canonicalDomain(n.domain());
    auto op = ctx.opsets.find(nd.domain);
    nd.opset = op == ctx.opsets.end() ? 0 : op->second;
    nd.docString = n.doc_string();
    const OpDef* def = findOpDef(nd.domain, nd.opType);
    nd.supported = def && nd.opset > 0 && nd.opset >= def->sinceOpset;
    nd.inputs.assign(n.input().begin(), n.input().end());
    nd.outputs.assign(n.output().begin(), n.output().end());
    std::set<std::string> reads(n.input().begin(), n.input().end());
    std::set<std::string> bodyReads;
    for (const auto& a : n.attribute()) {
      nd.attributes.push_back(attributeDescription(a));
      if (a.type() == onnx::AttributeProto::GRAPH && a.has_g()) {
        freeNames(a.g(), bodyReads);
        nd.subgraphs.push_back(describeGraph(a.g(), ctx, a.name()));
      } else if (a.type() == onnx::AttributeProto::GRAPHS) {
        for (const auto& sg : a.graphs()) {
          freeNames(sg, bodyReads);
          nd.subgraphs.push_back(describeGraph(sg, ctx, a.name()));
        }
      }
    }
    for (const auto& r : bodyReads) {
      if (!reads.count(r)) nd.implicitInputs.push_back(r);
    }
    reads.insert(bodyReads.begin(), bodyReads.end());
    for (const auto& r : reads) {
      auto it = index.find(r);
      if (it != index.end()) consumers[it->second].push_back(nd.name);
    }
    gd.nodes.push_back(std::move(nd));
  }

  for (size_t k = 0; k < order.size(); ++k) {
    const std::string& id = order[k];
    TensorDescription t;
    t.name = id;
    auto init = inits.find(id);
    auto prod = producer.find(id);
    const onnx::NodeProto* pn = prod == producer.end() ? nullptr : &g.node(prod->second);
    const bool isConstant = pn && pn->op_type() == "Constant" && canonicalDomain(pn->domain()) == Domain::ai_onnx;
    t.kind = inputs.count(id)      ? TensorRole::Input
             : init != inits.end() ? TensorRole::Initializer
             : outputs.count(id)   ? TensorRole::Output
             : isConstant          ? TensorRole::Constant
                                   : TensorRole::Activation;
    if (pn) t.producer = names[static_cast<size_t>(prod->second)];
    t.consumers = std::move(consumers[k]);
    if (init != inits.end()) {
      const auto& tp = *init->second;
      t.dtype = onnxTypeName(tp.data_type());
      t.shape = knownDims({tp.dims().begin(), tp.dims().end()});
      t.shapeSource = ShapeSource::File;
      t.stats = checkedInitializerStats(tp, ctx.baseDir, ctx.bins);
    } else if (isConstant) {
      constantInfo(*pn, t, ctx.bins);
    }
    if (t.shapeSource == ShapeSource::Unknown) {
      auto vi = infos.find(id);
      if (vi != infos.end() && fileInfo(*vi->second, t)) t.shapeSource = ShapeSource::File;
    }
    setSizes(t);
    gd.tensors.push_back(std::move(t));
  }
  return gd;
}

// ------------------------------------------------------------------ the runtime's shapes

/// Takes the IR graph's type and shape for every described tensor it holds (and recurses into
/// the subgraphs of the ops that own them). An op whose setup failed has outputs without a type;
/// when only some of them have one, it stopped half-way and none of them is taken.
void applyInferred(GraphDescription& gd, const Graph& graph, bool importFailed) {
  const Op* partial = nullptr;
  if (importFailed && !graph.ops().empty()) {
    const Op* last = graph.ops().rbegin()->second.get();
    for (const Tensor* o : last->outputs()) {
      if (o && !o->info.isSet()) partial = last;
    }
  }
  for (auto& t : gd.tensors) {
    const Tensor* it = graph.tensor(t.name);
    if (!it || !it->info.isSet() || (partial && it->producer == partial)) continue;
    t.dtype = it->info.data_type();
    t.shape = knownDims(it->info.shape());
    t.shapeSource = ShapeSource::Inferred;
    setSizes(t);
  }
  for (auto& nd : gd.nodes) {
    if (nd.subgraphs.empty()) continue;
    const Op* op = nullptr;
    for (const auto& o : nd.outputs) {
      const Tensor* t = o.empty() ? nullptr : graph.tensor(o);
      if (t && t->producer) {
        op = t->producer;
        break;
      }
    }
    if (!op) continue;
    size_t k = 0;
    for (const auto& a : nd.attributes) {
      for (size_t j = 0; j < a.graphs.size() && k < nd.subgraphs.size(); ++j, ++k) {
        const std::string id = op->name() + "/" + a.name;
        for (const Graph* sg : op->subgraphs) {
          if (sg->id() == id) applyInferred(nd.subgraphs[k], *sg, importFailed);
        }
      }
    }
  }
}

int64_t fileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

}  // namespace

ModelDescription describeModel(const std::string& modelPathOrBytes, const InputShapeInfo& inputShapes,
                               const DescribeOptions& options) {
  if (options.histogramBins < 1 || options.histogramBins > kMaxHistogramBins)
    throw error("describeModel: histogramBins must be between 1 and {}, got {}", kMaxHistogramBins,
                options.histogramBins);
  onnx::ModelProto m = loadModel(modelPathOrBytes);
  Context ctx;
  ctx.baseDir = modelBaseDir(modelPathOrBytes);
  ctx.bins = options.histogramBins;

  ModelDescription d;
  d.irVersion = m.ir_version();
  d.producerName = m.producer_name();
  d.producerVersion = m.producer_version();
  d.docString = m.doc_string();
  d.domain = m.domain();
  d.modelVersion = m.model_version();
  for (const auto& p : m.metadata_props()) d.metadataProps.emplace_back(p.key(), p.value());
  d.modelBytes = ctx.baseDir.empty() ? static_cast<int64_t>(modelPathOrBytes.size()) : fileSize(modelPathOrBytes);
  for (const auto& o : m.opset_import()) {
    d.opsets.emplace_back(canonicalDomain(o.domain()), o.version());
    ctx.opsets[canonicalDomain(o.domain())] = o.version();
  }
  if (m.opset_import_size() == 0) ctx.opsets[Domain::ai_onnx] = 1;  // IR version < 3, as the importer

  const auto& g = m.graph();
  for (const auto& t : g.initializer()) {
    Shape dims(t.dims().begin(), t.dims().end());
    const int64_t n = checkedProduct(dims);
    const bool state = isOptimizerStateTensorId(t.name());
    int64_t& count = state ? d.optimizerStateCount : d.parameterCount;
    int64_t& bytes = state ? d.optimizerStateBytes : d.parameterBytes;
    if (n < 0 || !checkedAdd(count, n, &count))
      throw error("Invalid initializer '{}': its element count overflows a 64-bit integer", t.name());
    int64_t b = 0;
    if (!checkedMul(n, elementBytes(onnxTypeName(t.data_type())), &b) || !checkedAdd(bytes, b, &bytes))
      throw error("Invalid initializer '{}': its size in bytes overflows a 64-bit integer", t.name());
  }
  std::map<std::string, int64_t> ops;
  for (const auto& n : g.node()) ++ops[n.op_type()];
  d.opHistogram.assign(ops.begin(), ops.end());
  std::stable_sort(d.opHistogram.begin(), d.opHistogram.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  d.graph = describeGraph(g, ctx);
  // Weights held in Constant nodes count as parameters too (numeric ones whose size is known;
  // the sums are checked as the initializers' are).
  for (const auto& t : d.graph.tensors) {
    if (t.kind != TensorRole::Constant || !t.stats || !t.elements || !t.bytes) continue;
    if (!checkedAdd(d.parameterCount, *t.elements, &d.parameterCount) ||
        !checkedAdd(d.parameterBytes, *t.bytes, &d.parameterBytes))
      throw error("Invalid Constant '{}': the parameter count overflows a 64-bit integer", t.name);
  }

  // The runtime's import, as an inference session makes it (default options: constant weights,
  // so shape computations over initializers fold), every graph output anchored.
  InputShapeInfo isi;
  for (const auto& kv : inputShapes.getInfos()) {
    TensorInfo info = kv.second;
    if (!info.isSet()) {
      for (const auto& vi : g.input()) {
        if (vi.name() == kv.first && vi.type().has_tensor_type()) {
          try {
            info = TensorInfo(dataTypeFromOnnx(vi.type().tensor_type().elem_type()), info.shape());
          } catch (const error&) {
            // an unknown type: the import reports the input
          }
        }
      }
    }
    isi.add(kv.first, info);
  }
  std::vector<TensorId> anchors(d.graph.outputs.begin(), d.graph.outputs.end());
  if (anchors.empty()) anchors.push_back("-");  // the import needs an anchor; it is never validated
  IrBundle bundle;
  bundle.model = &m;
  bundle.modelBaseDir = ctx.baseDir;
  bundle.inputShapeInfo = isi;
  bundle.dataFlow = DataFlow(1, anchors);
  bundle.sessionName = "describe";
  bundle.evaluator = &hostConstEvaluator();
  Ir ir;
  bool failed = false;
  try {
    ir.load(bundle);
    d.shapeInferenceOk = true;
  } catch (const internal_error&) {
    throw;
  } catch (const error& e) {
    failed = true;
    d.shapeInferenceMessage = e.what();
  }
  // Ir::load makes the main graph before anything it can reject, so it is there after a failure.
  applyInferred(d.graph, ir.mainGraph(), failed);
  return d;
}

// ------------------------------------------------------------------ JSON

namespace {

using Json = nlohmann::ordered_json;

Json optNumber(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json statsJson(const TensorStats& s) {
  Json j;
  j["count"] = s.count;
  j["min"] = optNumber(s.min);
  j["max"] = optNumber(s.max);
  j["mean"] = optNumber(s.mean);
  j["std"] = optNumber(s.std);
  j["zeros"] = s.zeros;
  j["nans"] = s.nans;
  j["infs"] = s.infs;
  if (s.histogram.empty()) {
    j["histogram"] = nullptr;
  } else {
    j["histogram"] = Json{{"min", s.histMin}, {"max", s.histMax}, {"counts", s.histogram}};
  }
  return j;
}

Json tensorSummaryJson(const TensorSummary& t) {
  Json j{{"dtype", t.dtype}, {"shape", t.shape}, {"elements", t.elements}};
  if (t.hasValues) {
    if (t.dtype == "STRING") {
      j["values"] = t.stringValues;
    } else {
      j["values"] = t.values;
    }
  }
  return j;
}

Json attributeJson(const AttributeDescription& a) {
  Json j{{"name", a.name}, {"type", a.type}};
  const std::string& t = a.type;
  Json v = nullptr;
  auto graph = [](const GraphSummary& g) { return Json{{"graph", g.name}, {"nodes", g.nodes}}; };
  if (t == "FLOAT" && !a.floats.empty()) {
    v = a.floats[0];
  } else if (t == "INT" && !a.ints.empty()) {
    v = a.ints[0];
  } else if (t == "STRING" && !a.strings.empty()) {
    v = a.strings[0];
  } else if (t == "TENSOR" && !a.tensors.empty()) {
    v = tensorSummaryJson(a.tensors[0]);
  } else if (t == "GRAPH" && !a.graphs.empty()) {
    v = graph(a.graphs[0]);
  } else if (t == "FLOATS") {
    v = a.floats;
  } else if (t == "INTS") {
    v = a.ints;
  } else if (t == "STRINGS") {
    v = a.strings;
  } else if (t == "TENSORS") {
    v = Json::array();
    for (const auto& x : a.tensors) v.push_back(tensorSummaryJson(x));
  } else if (t == "GRAPHS") {
    v = Json::array();
    for (const auto& x : a.graphs) v.push_back(graph(x));
  }
  j["value"] = std::move(v);
  return j;
}

Json tensorJson(const TensorDescription& t) {
  Json j;
  j["name"] = t.name;
  j["kind"] = tensorRoleName(t.kind);
  j["dtype"] = t.dtype.empty() ? Json(nullptr) : Json(t.dtype);
  if (t.shape) {
    Json s = Json::array();
    for (const auto& d : *t.shape)
      s.push_back(d.known() ? Json(d.value) : d.param.empty() ? Json(nullptr) : Json(d.param));
    j["shape"] = std::move(s);
  } else {
    j["shape"] = nullptr;
  }
  j["shapeSource"] = shapeSourceName(t.shapeSource);
  j["elements"] = t.elements ? Json(*t.elements) : Json(nullptr);
  j["bytes"] = t.bytes ? Json(*t.bytes) : Json(nullptr);
  j["producer"] = t.producer;
  j["consumers"] = t.consumers;
  j["stats"] = t.stats ? statsJson(*t.stats) : Json(nullptr);
  return j;
}

Json graphJson(const GraphDescription& g);

Json nodeJson(const NodeDescription& n) {
  Json j;
  j["name"] = n.name;
  j["opType"] = n.opType;
  j["domain"] = n.domain;
  j["opset"] = n.opset;
  Json attrs = Json::array();
  for (const auto& a : n.attributes) attrs.push_back(attributeJson(a));
  j["attributes"] = std::move(attrs);
  j["inputs"] = n.inputs;
  j["outputs"] = n.outputs;
  j["docString"] = n.docString;
  j["supported"] = n.supported;
  j["implicitInputs"] = n.implicitInputs;
  if (!n.subgraphs.empty()) {
    Json subs = Json::array();
    for (const auto& s : n.subgraphs) subs.push_back(graphJson(s));
    j["subgraphs"] = std::move(subs);
  }
  return j;
}

void nodesAndTensors(const GraphDescription& g, Json& j) {
  Json nodes = Json::array();
  for (const auto& n : g.nodes) nodes.push_back(nodeJson(n));
  j["nodes"] = std::move(nodes);
  Json tensors = Json::array();
  for (const auto& t : g.tensors) tensors.push_back(tensorJson(t));
  j["tensors"] = std::move(tensors);
}

Json graphJson(const GraphDescription& g) {
  Json j;
  j["name"] = g.name;
  j["attribute"] = g.attribute;
  j["docString"] = g.docString;
  j["inputs"] = g.inputs;
  j["outputs"] = g.outputs;
  nodesAndTensors(g, j);
  return j;
}

}  // namespace

std::string toJson(const ModelDescription& d) {
  Json j;
  j["irVersion"] = d.irVersion;
  j["producerName"] = d.producerName;
  j["producerVersion"] = d.producerVersion;
  j["graphName"] = d.graph.name;
  j["docString"] = d.docString;
  j["graphDocString"] = d.graph.docString;
  j["domain"] = d.domain;
  j["modelVersion"] = d.modelVersion;
  Json meta = Json::array();
  for (const auto& kv : d.metadataProps) meta.push_back(Json{{"key", kv.first}, {"value", kv.second}});
  j["metadataProps"] = std::move(meta);
  j["modelBytes"] = d.modelBytes;
  Json opsets = Json::array();
  for (const auto& o : d.opsets) opsets.push_back(Json{{"domain", o.first}, {"version", o.second}});
  j["opsets"] = std::move(opsets);
  j["inputs"] = d.graph.inputs;
  j["outputs"] = d.graph.outputs;
  j["parameterCount"] = d.parameterCount;
  j["parameterBytes"] = d.parameterBytes;
  j["optimizerStateCount"] = d.optimizerStateCount;
  j["optimizerStateBytes"] = d.optimizerStateBytes;
  Json hist = Json::object();
  for (const auto& kv : d.opHistogram) hist[kv.first] = kv.second;
  j["opHistogram"] = std::move(hist);
  j["shapeInference"] = Json{{"ok", d.shapeInferenceOk}, {"message", d.shapeInferenceMessage}};
  nodesAndTensors(d.graph, j);
  // Names and strings from a model are bytes: invalid UTF-8 becomes U+FFFD instead of an error.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace popart

// ------------------------------------------------------------------ stored values

namespace popart {
namespace {

/// A Constant node's value as a TensorProto (the forms the importer accepts), or false.
bool constantProto(const onnx::NodeProto& n, onnx::TensorProto& out) {
  for (const auto& a : n.attribute()) {
    const std::string& k = a.name();
    if (k == "value" && a.has_t()) {
      out = a.t();
    } else if (k == "value_float" || k == "value_floats") {
      out.set_data_type(onnx::TensorProto::FLOAT);
      if (k == "value_float") {
        out.add_float_data(a.f());
      } else {
        out.add_dims(a.floats_size());
        out.mutable_float_data()->CopyFrom(a.floats());
      }
    } else if (k == "value_int" || k == "value_ints") {
      out.set_data_type(onnx::TensorProto::INT64);
      if (k == "value_int") {
        out.add_int64_data(a.i());
      } else {
        out.add_dims(a.ints_size());
        out.mutable_int64_data()->CopyFrom(a.ints());
      }
    } else if (k == "value_string" || k == "value_strings") {
      out.set_data_type(onnx::TensorProto::STRING);
      if (k == "value_string") {
        out.add_string_data(a.s());
      } else {
        out.add_dims(a.strings_size());
        out.mutable_string_data()->CopyFrom(a.strings());
      }
    } else {
      continue;
    }
    return true;
  }
  return false;
}

/// The stored value named `name` in `g` or its subgraphs (depth first, g's own first).
const onnx::TensorProto* findStored(const onnx::GraphProto& g, const std::string& name, onnx::TensorProto& scratch) {
  for (const auto& t : g.initializer()) {
    if (t.name() == name) return &t;
  }
  for (const auto& n : g.node()) {
    if (n.op_type() != "Constant" || canonicalDomain(n.domain()) != Domain::ai_onnx) continue;
    for (const auto& o : n.output()) {
      if (o == name && constantProto(n, scratch)) return &scratch;
    }
  }
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      if (a.has_g()) {
        if (const auto* t = findStored(a.g(), name, scratch)) return t;
      }
      for (const auto& sg : a.graphs()) {
        if (const auto* t = findStored(sg, name, scratch)) return t;
      }
    }
  }
  return nullptr;
}

}  // namespace

StoredTensorValue tensorValue(const std::string& modelPathOrBytes, const std::string& name) {
  onnx::ModelProto m = loadModel(modelPathOrBytes);
  onnx::TensorProto scratch;
  const onnx::TensorProto* tp = findStored(m.graph(), name, scratch);
  if (!tp)
    throw error("tensorValue: the model stores no value for tensor '{}' (not an initializer or a Constant's output)",
                name);
  const TensorData data = tensorFromProto(*tp, modelBaseDir(modelPathOrBytes));
  StoredTensorValue v;
  v.name = name;
  v.dtype = onnxTypeName(tp->data_type());
  v.shape = data.info().shape();
  if (data.isString()) {
    v.strings = data.strings();
  } else {
    v.bytes.assign(static_cast<const char*>(data.data()), static_cast<size_t>(data.nbytes()));
  }
  return v;
}

}  // namespace popart
