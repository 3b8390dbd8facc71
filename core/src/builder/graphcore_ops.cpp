// aiGraphcore (AiGraphcoreOpset1) as data: one row per method with its op type, input count and
// attributes (name, type, default), in the order of the C++ method's parameters. The typed C++
// methods, AiGraphcoreOpset1::call and the JS / Python faces all build nodes from this table.
#include <cmath>

#include "popart/builder.hpp"
#include "popart/error.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

OpAttrInfo req(const char* name, const char* type, const char* doc) {
  OpAttrInfo a;
  a.name = name;
  a.type = type;
  a.required = true;
  a.doc = doc;
  return a;
}
OpAttrInfo opt(const char* name, const char* type, OptionValue dflt, const char* doc, const char* enumName = "") {
  OpAttrInfo a;
  a.name = name;
  a.type = type;
  a.enumName = enumName;
  a.hasDefault = true;
  a.defaultValue = std::move(dflt);
  a.doc = doc;
  return a;
}
OpAttrInfo maybe(const char* name, const char* type, const char* doc) {
  OpAttrInfo a;
  a.name = name;
  a.type = type;
  a.doc = doc;
  return a;
}
OpAttrInfo reduction() {
  return opt("reduction", "enum", std::string("Mean"), "How the loss is reduced over its elements.", "ReductionType");
}

/// A row of the table: one output, inputs given as a list ("args").
GraphcoreOpInfo row(const char* method, const char* type, int minInputs, int maxInputs, std::vector<OpAttrInfo> attrs,
                    const char* doc) {
  GraphcoreOpInfo o;
  o.method = method;
  o.opType = type;
  o.minInputs = minInputs;
  o.maxInputs = maxInputs;
  o.attrs = std::move(attrs);
  o.doc = doc;
  return o;
}
/// A row whose method returns the list of its `n` outputs.
[[maybe_unused]] GraphcoreOpInfo multi(GraphcoreOpInfo o, int n) {
  o.numOutputs = n;
  o.returnsList = true;
  return o;
}
/// A row whose method takes one input id, not a list (PopART's reshape).
GraphcoreOpInfo single(GraphcoreOpInfo o) {
  o.inputsForm = "arg";
  return o;
}
GraphcoreOpInfo unary(const char* method, const char* type, const char* doc) {
  return row(method, type, 1, 1, {}, doc);
}
GraphcoreOpInfo binary(const char* method, const char* type, const char* doc) {
  return row(method, type, 2, 2, {}, doc);
}
/// The attributes of the dynamic slices: axes, sizes (and noOverlap).
std::vector<OpAttrInfo> dynamicAttrs(bool noOverlap) {
  std::vector<OpAttrInfo> a{req("axes", "ints", "The sliced axes."),
                            req("sizes", "ints", "The size of the slice along each of the axes.")};
  if (noOverlap)
    a.push_back(opt("noOverlap", "int", int64_t{0},
                    "1: the slices of one tensor never overlap (cheaper gradients; PopART's gradients are wrong "
                    "when they do)."));
  return a;
}
std::vector<OpAttrInfo> scatterAttrs(bool grouped) {
  std::vector<OpAttrInfo> a{req("axis_size", "int", "The size of the output along the axis."),
                            opt("axis", "int", int64_t{-1}, "The axis scattered along."),
                            opt("reduction", "enum", std::string("Sum"),
                                "How values scattered to one position combine.", "ScatterReduction")};
  if (grouped) a.push_back(opt("group_size", "int", int64_t{1}, "The size of the leading group dimension."));
  a.push_back(opt("enable_index_broadcast", "int", int64_t{1},
                  "1: indices of the data's shape, or a vector along the axis applied to every other position; 0: the "
                  "indices as they are (the output follows their shape)."));
  return a;
}

const std::vector<GraphcoreOpInfo> kOps{
    row("nllloss", "Nll", 2, 2,
        {reduction(), maybe("ignoreIndex", "int", "Labels equal to it add nothing to the loss."),
         opt("inputIsLogProbability", "bool", false, "The probabilities are given as log-probabilities.")},
        "Negative log likelihood of {probs [N.., C], label [N..] (INT32)}."),
    row("l1loss", "L1", 1, 1, {req("lambda", "float", "The weight of the loss."), reduction()},
        "lambda * |x|, reduced."),
    row("identityloss", "IdentityLoss", 1, 1, {reduction()}, "The input itself, reduced."),
    row("scale", "Scale", 1, 1, {req("scale", "float", "The factor.")}, "x * scale."),
    row("scaledadd", "ScaledAdd", 2, 2,
        {opt("scale0", "float", 1.0, "The factor of the first input."),
         opt("scale1", "float", 1.0, "The factor of the second input.")},
        "scale0 * a + scale1 * b."),
    row("subsample", "Subsample", 1, 1, {req("strides", "ints", "The stride of each dimension.")},
        "Every strides[d]-th element along each dimension d."),
    single(row("reshape", "Reshape", 1, 1, {req("shape", "ints", "The new shape.")}, "The input with a new shape.")),
    unary("gelu", "Gelu", "Gaussian error linear unit."),
    unary("swish", "Swish", "x * sigmoid(x)."),
    unary("detach", "Detach", "The input, with no gradient flowing back through it."),
    unary("nop", "Nop", "The input (an op that patterns do not remove)."),
    unary("expm1", "Expm1", "exp(x) - 1."),
    unary("log1p", "Log1p", "log(1 + x)."),
    unary("round", "Round", "Round half to even."),
    binary("atan2", "Atan2", "atan2(a, b)."),
    binary("fmod", "Fmod", "The remainder of a / b with the sign of a."),
    binary("remainder", "Remainder", "The remainder of a / b with the sign of b."),
    // ---- run-time slices, sequences, scatter reductions and ordering (ops/dynamic.cpp,
    // ops/scatterreduce.cpp, ops/sort.cpp)
    row("dynamicslice", "DynamicSlice", 2, 3, dynamicAttrs(true),
        "The slice of {tensor, offset(, slice)} at the run-time offset (one per axis; past the end of an axis it "
        "reads 0, and slices wrap around)."),
    row("dynamicupdate", "DynamicUpdate", 3, 3, dynamicAttrs(true),
        "{tensor, offset, slice}: the tensor with the slice written at the run-time offset."),
    row("dynamiczero", "DynamicZero", 2, 2, dynamicAttrs(false),
        "{tensor, offset}: the tensor with the slice at the run-time offset zeroed."),
    row("dynamicadd", "DynamicAdd", 3, 3, dynamicAttrs(false),
        "{tensor, offset, slice}: the tensor with the slice added at the run-time offset."),
    row("sequenceslice", "SequenceSlice", 5, 5,
        {opt("zeroUnused", "int", int64_t{0}, "1: destination rows no sequence writes are zeroed.")},
        "{source, destination, N, sourceOffset, destinationOffset}: the destination with N[i] rows of the source "
        "from sourceOffset[i] copied to destinationOffset[i]."),
    row("packedDataBlock", "PackedDataBlock", 5, -1,
        {req("maxSequenceLengths", "ints", "The padded sequence length of each data input."),
         req("resultSize", "int", "The rows of the packed result."),
         req("callbackBatchSize", "int", "How many sequences each call of the callback gets."),
         req("callback", "graph", "The subgraph applied to each batch of unpacked sequences.")},
        "{data, offsets, lengths for each data input, resultOffsets, resultLengths}: packed sequences unpacked, "
        "mapped by the callback and packed again."),
    row("scatterreduce", "ScatterReduce", 2, 3, scatterAttrs(false),
        "{data, indices(, initial values)}: data scattered along the axis to the indices and reduced."),
    row("groupedscatterreduce", "ScatterReduce", 2, 3, scatterAttrs(true),
        "scatterreduce of each group of a leading group dimension."),
    row("groupedgather", "GroupedGather", 2, 2,
        {opt("axis", "int", int64_t{0}, "The axis gathered from (not 0, the group dimension)."),
         opt("group_size", "int", int64_t{1}, "The size of the leading group dimension.")},
        "{data [G, ...], indices [G, ...]}: each group's data gathered at its indices."),
    row("bucketize", "Bucketize", 2, 2, {opt("right", "int", int64_t{0}, "1: buckets are closed on the left.")},
        "{input, boundaries (1-D, sorted)}: the bucket index of each input (INT32), as torch.bucketize."),
    multi(row("sort", "Sort", 1, 1,
              {opt("axis", "int", int64_t{-1}, "The axis sorted along."),
               opt("descending", "int", int64_t{0}, "1: largest first."),
               opt("stable", "int", int64_t{0}, "1: equal values keep their order.")},
              "[values, indices (INT64)] of the input sorted along the axis."),
          2),
    multi(row("reducemedian", "ReduceMedian", 1, 1,
              {maybe("axes", "ints", "The reduced axes (all when not given)."),
               opt("keepdims", "int", int64_t{1}, "1: reduced axes stay, with size 1.")},
              "[values, indices (INT32)]: the lower median over the axes and where it is among the reduced "
              "elements."),
          2),
};

const GraphcoreOpInfo& findOp(const std::string& method) {
  for (const auto& o : kOps) {
    if (o.method == method) return o;
  }
  std::string all;
  for (const auto& o : kOps) all += (all.empty() ? "" : ", ") + o.method;
  throw error("aiGraphcore has no op '{}' (it has {})", method, all);
}

/// An attribute value as the node's ONNX attribute (checked against its type).
any attributeFor(const GraphcoreOpInfo& op, const OpAttrInfo& a, const OptionValue& v) {
  const std::string what = op.method + " " + a.name;
  if (a.type == "float") {
    double d = 0;
    if (const auto* x = std::get_if<double>(&v))
      d = *x;
    else if (const auto* i = std::get_if<int64_t>(&v))
      d = static_cast<double>(*i);
    else
      throw error("{} must be a number, got {} {}", what, optionValueKind(v), optionValueToString(v));
    if (!std::isfinite(d)) throw error("{} must be a finite number, got {}", what, d);
    return static_cast<float>(d);
  }
  if (a.type == "int") {
    if (const auto* i = std::get_if<int64_t>(&v)) return *i;
    if (const auto* b = std::get_if<bool>(&v)) return static_cast<int64_t>(*b);
    throw error("{} must be an integer, got {} {}", what, optionValueKind(v), optionValueToString(v));
  }
  if (a.type == "bool") {
    if (const auto* b = std::get_if<bool>(&v)) return static_cast<int64_t>(*b);
    throw error("{} must be a boolean, got {} {}", what, optionValueKind(v), optionValueToString(v));
  }
  if (a.type == "ints") {
    if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) return *l;
    if (const auto* d = std::get_if<std::vector<double>>(&v); d && d->empty()) return std::vector<int64_t>{};
    throw error("{} must be a list of integers, got {} {}", what, optionValueKind(v), optionValueToString(v));
  }
  if (a.type == "floats") {
    std::vector<float> out;
    if (const auto* d = std::get_if<std::vector<double>>(&v)) {
      for (double x : *d) out.push_back(static_cast<float>(x));
    } else if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) {
      for (int64_t x : *l) out.push_back(static_cast<float>(x));
    } else {
      throw error("{} must be a list of numbers, got {} {}", what, optionValueKind(v), optionValueToString(v));
    }
    return out;
  }
  if (a.type == "string") {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    throw error("{} must be a string, got {} {}", what, optionValueKind(v), optionValueToString(v));
  }
  if (a.type == "strings") {
    if (const auto* l = std::get_if<std::vector<std::string>>(&v)) return *l;
    if (const auto* s = std::get_if<std::string>(&v)) return std::vector<std::string>{*s};
    if (const auto* d = std::get_if<std::vector<double>>(&v); d && d->empty()) return std::vector<std::string>{};
    throw error("{} must be a list of strings, got {} {}", what, optionValueKind(v), optionValueToString(v));
  }
  if (a.type == "enum") {
    const auto* s = std::get_if<std::string>(&v);
    if (!s)
      throw error("{} must be a {} name, got {} {}", what, a.enumName, optionValueKind(v), optionValueToString(v));
    const int i = detail::enumValueFromName(a.enumName.c_str(), *s);
    return detail::enumValueName(a.enumName.c_str(), i);  // the canonical spelling
  }
  throw internal_error("aiGraphcore {}: unknown attribute type {}", op.method, a.type);
}

}  // namespace

const std::vector<GraphcoreOpInfo>& graphcoreOpList() {
  return kOps;
}

std::vector<TensorId> AiGraphcoreOpset1::callMethod(const std::string& method, const std::vector<TensorId>& args,
                                                    const std::map<std::string, OptionValue>& attrs,
                                                    const DebugContext& debugContext) {
  return callMethod(method, args, attrs, {}, debugContext);
}

std::vector<TensorId> AiGraphcoreOpset1::callMethod(const std::string& method, const std::vector<TensorId>& args,
                                                    const std::map<std::string, OptionValue>& attrs,
                                                    const std::map<std::string, const Builder*>& graphs,
                                                    const DebugContext& debugContext) {
  const GraphcoreOpInfo& info = findOp(method);
  auto attrInfo = [&](const std::string& name) -> const OpAttrInfo* {
    for (const auto& a : info.attrs) {
      if (a.name == name) return &a;
    }
    return nullptr;
  };
  for (const auto& kv : attrs) {
    const OpAttrInfo* a = attrInfo(kv.first);
    if (!a) throw error("aiGraphcore.{} has no attribute '{}'", method, kv.first);
    if (a->type == "graph")
      throw error("aiGraphcore.{} {} must be a Builder (a subgraph), got {} {}", method, kv.first,
                  optionValueKind(kv.second), optionValueToString(kv.second));
  }
  for (const auto& kv : graphs) {
    const OpAttrInfo* a = attrInfo(kv.first);
    if (!a) throw error("aiGraphcore.{} has no attribute '{}'", method, kv.first);
    if (a->type != "graph") throw error("aiGraphcore.{} {} is not a subgraph attribute", method, kv.first);
    if (!kv.second) throw error("aiGraphcore.{} {}: the subgraph Builder is missing", method, kv.first);
  }
  std::map<std::string, any> out;
  for (const auto& a : info.attrs) {
    if (a.type == "graph") {
      auto g = graphs.find(a.name);
      if (g != graphs.end())
        out[a.name] = g->second;
      else if (a.required)
        throw error("aiGraphcore.{}: missing required attribute '{}'", method, a.name);
      continue;
    }
    auto it = attrs.find(a.name);
    if (it != attrs.end()) {
      out[a.name] = attributeFor(info, a, it->second);
    } else if (a.required) {
      throw error("aiGraphcore.{}: missing required attribute '{}'", method, a.name);
    } else if (a.hasDefault) {
      out[a.name] = attributeFor(info, a, a.defaultValue);
    }
  }
  int64_t numOutputs = info.numOutputs;
  if (!info.numOutputsFrom.empty()) {
    auto it = out.find(info.numOutputsFrom);
    const int64_t* n = it == out.end() ? nullptr : std::any_cast<int64_t>(&it->second);
    if (!n || *n < 0 || *n > 1 << 20)
      throw error("aiGraphcore.{}: {} must be a number of outputs (0 or more)", method, info.numOutputsFrom);
    numOutputs = *n;
  }
  return op(info.opType.c_str(), args, static_cast<unsigned>(numOutputs), out, debugContext, info.minInputs,
            info.maxInputs);
}

}  // namespace popart
