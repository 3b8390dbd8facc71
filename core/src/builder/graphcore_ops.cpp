// aiGraphcore (AiGraphcoreOpset1) as data: one row per method with its op type, input count and
// attributes (name, type, default), in the order of the C++ method's parameters. The typed C++
// methods, AiGraphcoreOpset1::call and the JS / Python faces all build nodes from this table.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "builder/builder_impl.hpp"
#include "onnx.pb.h"
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

/// `a`, written into the node as attribute `onnx` (PopART's snake_case names).
OpAttrInfo as(OpAttrInfo a, const char* onnx) {
  a.onnxName = onnx;
  return a;
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
/// A row whose method returns the list of its outputs, as many as the integer attribute `attr`.
GraphcoreOpInfo numOutputsFrom(GraphcoreOpInfo o, const char* attr) {
  o.numOutputsFrom = attr;
  o.returnsList = true;
  return o;
}
/// A row whose method takes one input id, not a list (PopART's reshape).
GraphcoreOpInfo single(GraphcoreOpInfo o) {
  o.inputsForm = "arg";
  return o;
}
/// A row whose method has no outputs (abort).
GraphcoreOpInfo noOutputs(GraphcoreOpInfo o) {
  o.numOutputs = 0;
  return o;
}
/// A row whose PopART Python method defaults `args` to an empty list (abort, the bitwise ops).
GraphcoreOpInfo argsOptional(GraphcoreOpInfo o) {
  o.argsOptional = true;
  return o;
}
/// A row whose method takes one list of ids per group, each of `minIds` to `maxIds` ids, and
/// returns one output per group (multiconv's [[x0, w0(, b0)], ...]).
GraphcoreOpInfo groups(GraphcoreOpInfo o, int minIds, int maxIds) {
  o.inputsForm = "groups";
  o.minGroupInputs = minIds;
  o.maxGroupInputs = maxIds;
  o.returnsList = true;
  return o;
}
/// A row whose method takes no inputs (init).
GraphcoreOpInfo noInputs(GraphcoreOpInfo o) {
  o.inputsForm = "none";
  return o;
}
OpAttrInfo reqEnum(const char* name, const char* enumName, const char* doc) {
  OpAttrInfo a = req(name, "enum", doc);
  a.enumName = enumName;
  return a;
}
/// `commGroup`: [CommGroupType, replicaGroupSize] (PopART's CommGroup), optional.
OpAttrInfo commGroup() {
  return maybe("commGroup", "ints",
               "The replica group: [CommGroupType (0 All, 1 Consecutive, 2 Orthogonal, 3 "
               "Ungrouped), replicaGroupSize]; none: all replicas.");
}
/// `collectiveOperator`: PopART's CollectiveOperator (node attribute `__collectiveOperator`), optional.
OpAttrInfo collectiveOperator() {
  OpAttrInfo a = maybe("collectiveOperator", "enum",
                       "How the replicas' values combine: Add (none: Add), Mean, Mul, Min, Max, LogicalAnd, "
                       "LogicalOr, SquareAdd or Local.");
  a.enumName = "CollectiveOperator";
  a.onnxName = "__collectiveOperator";
  return a;
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

std::vector<OpAttrInfo> ctcAttrs() {
  OpAttrInfo out =
      opt("outDataType", "dtype", std::string("UNDEFINED"), "The loss's type (UNDEFINED: the type of logProbs).");
  out.onnxDataTypeNumber = true;
  return {reduction(), opt("blank", "int", int64_t{0}, "The blank class."), out,
          opt("zeroInfinity", "bool", false, "Infinite losses (no possible alignment) and their gradients are 0.")};
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
    row("scaledadd", "ScaledAdd", 2, 4,
        {opt("scale0", "float", 1.0, "The factor of the first input."),
         opt("scale1", "float", 1.0, "The factor of the second input.")},
        "scale0 * a + scale1 * b; optional inputs 3 and 4 (one-element tensors) replace scale0 / scale1."),
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
    numOutputsFrom(row("call", "Call", 0, -1,
                       {req("num_outputs", "int", "How many outputs the callee has."),
                        req("callee", "graph", "The subgraph called (a Builder from createSubgraphBuilder).")},
                       "The callee subgraph applied to args (one per callee input, in order): its outputs."),
                   "num_outputs"),
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
    // ---- recurrent and CTC ops (ops/rnn.cpp, ops/ctc.cpp)
    multi(row("lstm", "LSTM", 2, 5,
              {as(opt("outputFullSequence", "int", int64_t{1},
                      "1: the output is every step's hidden state [seq, batch, hidden]; 0: the last one "
                      "[batch, hidden]."),
                  "output_full_sequence")},
              "[output, cell_state] of PopART's LSTM of {X [seq, batch, input], weights [4, input + hidden, "
              "hidden], bias [4, hidden], initialState [2, batch, hidden], sequence lengths [batch]} (the last "
              "three optional; gates forget, input, candidate, output)."),
          2),
    row("ctcloss", "Ctc", 4, 4, ctcAttrs(),
        "The CTC loss of {logProbs [T, N, C], targets [N, S], inputLengths [N], targetLengths [N]} (integer "
        "targets and lengths: UINT32 in PopART); Mean divides each sample's loss by its target length, then "
        "averages."),
    multi(row("_ctcloss", "Ctc", 4, 4, ctcAttrs(),
              "[loss, each sample's loss gradient w.r.t. logProbs [T, N, C]]: ctcloss with PopART's second output."),
          2),
    multi(
        row("ctcbeamsearchdecoder", "CtcBeamSearchDecoder", 2, 2,
            {opt("blank", "int", int64_t{0}, "The blank class."),
             as(opt("beamWidth", "int", int64_t{100}, "How many prefixes are kept after each step."), "beam_width"),
             as(opt("topPaths", "int", int64_t{1}, "How many of the best label sequences are returned."), "top_paths")},
            "[labelProbs [N, topPaths] (log probabilities), labelLengths [N, topPaths] (UINT32), decodedLabels "
            "[N, topPaths, T] (UINT32, 0 past each length)]: a CTC prefix beam search of {logProbs [T, N, C], "
            "dataLengths [N]}."),
        3),
    // ---- elementwise, rearrangement, utility and collective ops of PopART's aiGraphcore opset 1
    unary("nearbyint", "NearbyInt", "Round half to even."),
    unary("geluerf", "GeluErf", "x * Phi(x): the exact GELU, with the normal CDF Phi through erf."),
    row("incrementmod", "IncrementMod", 1, 1,
        {req("increment", "float", "Added to x."), req("modulus", "float", "The divisor of the remainder (not 0).")},
        "fmod(x + increment, modulus), in x's type."),
    argsOptional(unary("bitwisenot", "BitwiseNot", "~x, bitwise (integer tensors).")),
    argsOptional(binary("bitwiseand", "BitwiseAnd", "a & b, bitwise (integer tensors).")),
    argsOptional(binary("bitwiseor", "BitwiseOr", "a | b, bitwise (integer tensors).")),
    argsOptional(binary("bitwisexor", "BitwiseXor", "a ^ b, bitwise (integer tensors).")),
    argsOptional(binary("bitwisexnor", "BitwiseXnor", "~(a ^ b), bitwise (integer tensors).")),
    row("reverse", "Reverse", 1, 1, {req("dimensions", "ints", "The dimensions to reverse (none: the identity).")},
        "The input flipped along the given dimensions."),
    row("depthtospace", "DepthToSpace", 1, 1,
        {req("blocksize", "int", "The block size B: [N, C, H, W] becomes [N, C / B^2, H B, W B]."),
         opt("mode", "string", std::string("DCR"), "\"DCR\" (depth-column-row) or \"CRD\" (column-row-depth).")},
        "Moves blocks of channels into the spatial dimensions (ONNX DepthToSpace 11 from any opset)."),
    row("slice", "Slice", 1, 1,
        {req("ends", "ints", "Where each slice ends (exclusive)."), req("starts", "ints", "Where each slice starts."),
         opt("axes", "ints", std::vector<int64_t>{}, "The axes sliced (none: the first len(starts) axes).")},
        "A slice with its bounds as attributes."),
    noInputs(row("init", "Init", 0, 0,
                 {req("shape", "ints", "The shape of the new tensor."),
                  req("data_type", "dtype", "Its element type (a DataType or its name)."),
                  reqEnum("init_type", "InitType", "NoInit (any values; zeros here) or Zero."),
                  maybe("batch_axis", "int", "The axis batches are split along (-1: none).")},
                 "A new tensor of the given shape and type.")),
    row("printtensor", "PrintTensor", 1, 1,
        {opt("print_gradient", "int", int64_t(1), "Also print the gradient (1) or not (0)."),
         opt("title", "string", std::string(""), "The title printed before the values (none: the tensor's id).")},
        "The input, printed as \"title: {values}\" (to the log destination) each time it is computed."),
    noOutputs(argsOptional(row("abort", "Abort", 0, 1, {},
                               "Stops the run with an error (poplar_runtime_error \"Abort Program ...\"): "
                               "always, or when its one input (a condition) is nonzero."))),
    row("normalize_image", "NormalizeImage", 3, 3,
        {opt("scale", "float", 1.0, "The factor of the image values (not 0).")},
        "((image * scale) - offsets) * scales of {image [..., 3] (UINT8, FLOAT16 or FLOAT), offsets [3], scales [3]}, "
        "padded to 4 channels with zeros (UINT8 gives FLOAT16)."),
    row("shapeddropout", "ShapedDropout", 1, 1,
        {req("shape", "ints", "The shape of the dropout mask (it broadcasts to the input's)."),
         opt("ratio", "float", 0.5, "The probability of dropping, in [0, 1).")},
        "Dropout with one draw per element of a mask of the given shape, broadcast over the input (training only)."),
    row("copyvarupdate", "CopyVarUpdate", 2, 2, {},
        "{variable, updater}: the variable takes the updater's value; returns the updated value."),
    row("tensorremap", "TensorRemap", 1, 2,
        {opt("remap_type", "int", int64_t(0), "TensorRemapType: 0 FwdBwdReverse, 1 Fwd, 2 Bwd.")},
        "The input (an IPU layout change; the identity in value)."),
    row("replicatedallreduce", "ReplicatedAllReduce", 1, 1, {collectiveOperator(), commGroup()},
        "The input combined over the replicas of this replica's group (the sum by default); every replica of "
        "the group gets the result."),
    row("replicatedreducescatter", "ReplicatedReduceScatter", 1, 1, {collectiveOperator(), commGroup()},
        "The input, flattened and padded with zeros to a multiple of the group's size k, combined over the "
        "replicas of the group (the sum by default); the replica at position i of its group gets elements "
        "[i * ceil(n / k), (i + 1) * ceil(n / k))."),
    row("replicatedallgather", "ReplicatedAllGather", 1, 1, {commGroup()},
        "The inputs of the replicas of this replica's group, flattened and concatenated in the group's order "
        "([k * n]; the gradient of replicatedreducescatter). PopART has the op (customOp) but no Builder method."),
    // ---- normalization and convolution (ops/norm.cpp, ops/conv.cpp)
    multi(row("groupnormalization", "GroupNormalization", 3, 3,
              {req("num_groups", "int", "The number of channel groups G (it divides C)."),
               opt("epsilon", "float", 1e-5, "Added to the variance.")},
              "[Y, mean [N * G], invStdDev [N * G]] of {X [N, C, ...], scale [C], bias [C]} normalised over each "
              "group of C / G consecutive channels of each sample (torch.nn.GroupNorm)."),
          3),
    groups(row("multiconv", "MultiConv", 2, -1,
               {opt("dilations", "intss", std::vector<std::vector<int64_t>>{},
                    "Each convolution's kernel dilations (one per spatial dimension; [] for all: 1)."),
                opt("inDilations", "intss", std::vector<std::vector<int64_t>>{},
                    "Each convolution's input dilations (zeros inserted between input elements; [] for all: 1)."),
                opt("pads", "intss", std::vector<std::vector<int64_t>>{},
                    "Each convolution's pads (begins, then ends, per spatial dimension; [] for all: 0)."),
                opt("outPads", "intss", std::vector<std::vector<int64_t>>{},
                    "Each convolution's output padding (zeros added around its output; [] for all: 0)."),
                opt("strides", "intss", std::vector<std::vector<int64_t>>{},
                    "Each convolution's strides (one per spatial dimension; [] for all: 1)."),
                as(opt("availableMemoryProportions", "floats", std::vector<double>{},
                       "Each convolution's available memory proportion, in (0, 1] (an IPU planning hint)."),
                   sAvailMemAttribute),
                as(opt("partialsTypes", "strings", std::vector<std::string>{},
                       "Each convolution's partials type, \"float\" or \"half\" (an IPU planning hint)."),
                   sPartialsTypeAttribute),
                maybe("planType", "string", "\"parallel\" or \"serial\" (an IPU planning hint)."),
                maybe("perConvReservedTiles", "int", "Tiles reserved per convolution (an IPU planning hint)."),
                maybe("cycleBackOff", "float", "The cycle back-off proportion, in [0, 1) (an IPU planning hint)."),
                as(opt("enableConvDithering", "ints", std::vector<int64_t>{},
                       "Each convolution's tile-placement dithering, 0 or 1 (an IPU planning hint)."),
                   sEnableConvDitheringAttribute)},
               "One output per convolution of [[x0, w0(, b0)], [x1, w1(, b1)], ...]: each x [N, C, spatial...] "
               "convolved with its w [M, C / group, kernel...] (group = C / w[1]) and biased by b [M] (PopART's "
               "multiconv: the convolutions run in parallel on the IPU, and are independent)."),
           2, 3),
    numOutputsFrom(row("batchnormalization", "BatchNormalization", 5, 5,
                       {req("num_outputs", "int",
                            "1 (inference) or 5 (training: running mean / var, saved "
                            "mean / var)."),
                        opt("epsilon", "float", 1e-5, "Added to the variance."),
                        opt("momentum", "float", 0.9, "The running statistics' momentum.")},
                       "BatchNormalization of {X, scale, B, mean, var} whose running variance uses the unbiased "
                       "batch variance (N - 1, as PyTorch)."),
                   "num_outputs"),
    // ---- spline convolution (ops/spline.cpp)
    multi(row("splinebasis", "SplineBasis", 3, 3, {req("degree", "int", "The B-spline degree, 0 to 3.")},
              "[basis [E, S], weightIndex [E, S] (INT32)] of {pseudo [E, D], kernelSize [D] (INT32), isOpenSpline "
              "[D] (UINT8)}: the products of the open / closed B-spline pieces of each edge's pseudo-coordinates "
              "and the index of the weight each selects, S = (degree + 1)^D (torch_spline_conv's spline_basis)."),
          2),
    row("splineweighting", "SplineWeighting", 4, 4, {},
        "{input [E, Min], weight [K, Min, Mout], basis [E, S], weightIndex [E, S]} -> [E, Mout]: "
        "sum over s of basis[e, s] * input[e] @ weight[weightIndex[e, s]] (torch_spline_conv's spline_weighting)."),
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
    // An integer is read as Python's truth value (PopART's pybind11 bool arguments accept 0 / 1).
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<int64_t>(*i != 0);
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
  if (a.type == "dtype") {  // stored as PopART's DataType number (this runtime's numbering too)
    if (const auto* i = std::get_if<int64_t>(&v)) {
      if (*i < 0 || *i > static_cast<int64_t>(DataType::UNDEFINED))
        throw error("{} must be a DataType, got {}", what, *i);
      if (a.onnxDataTypeNumber) {
        const DataType t = static_cast<DataType>(*i);
        return static_cast<int64_t>(t == DataType::UNDEFINED ? 0 : onnxDataType(t));
      }
      return *i;
    }
    if (const auto* n = std::get_if<std::string>(&v)) {
      try {
        const DataType t = dataTypeFromString(*n);
        if (a.onnxDataTypeNumber) return static_cast<int64_t>(t == DataType::UNDEFINED ? 0 : onnxDataType(t));
        return static_cast<int64_t>(t);
      } catch (const error& e) {
        throw error("{}: {}", what, e.what());
      }
    }
    throw error("{} must be a DataType or its name, got {} {}", what, optionValueKind(v), optionValueToString(v));
  }
  if (a.type == "enum") {
    if (const auto* i = std::get_if<int64_t>(&v)) {  // the value's number, as PopART's C++ API takes it
      const auto& values = enumInfo(a.enumName).values;
      if (*i < 0 || *i >= static_cast<int64_t>(values.size()))
        throw error("{} must be a {} (0 to {}), got {}", what, a.enumName, values.size() - 1, *i);
      return values[static_cast<size_t>(*i)];
    }
    const auto* s = std::get_if<std::string>(&v);
    if (!s)
      throw error("{} must be a {} name, got {} {}", what, a.enumName, optionValueKind(v), optionValueToString(v));
    const int i = detail::enumValueFromName(a.enumName.c_str(), *s);
    return detail::enumValueName(a.enumName.c_str(), i);  // the canonical spelling
  }
  throw internal_error("aiGraphcore {}: unknown attribute type {}", op.method, a.type);
}

/// A list-of-lists attribute of a "groups" method (one list per group).
std::vector<std::vector<int64_t>> perGroupInts(const GraphcoreOpInfo& op, const std::string& name,
                                               const std::map<std::string, OptionValue>& attrs) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return {};
  if (const auto* l = std::get_if<std::vector<std::vector<int64_t>>>(&it->second)) return *l;
  // An empty list reaches the core as whatever kind the binding read it as.
  if (const auto* e = std::get_if<std::vector<int64_t>>(&it->second); e && e->empty()) return {};
  if (const auto* e = std::get_if<std::vector<double>>(&it->second); e && e->empty()) return {};
  throw error("{} {} must be a list of integer lists (one per convolution), got {} {}", op.method, name,
              optionValueKind(it->second), optionValueToString(it->second));
}

/// PopART's multiconv (AiGraphcoreOpset1::multiconv): checks the groups and the per-convolution
/// lists as PopART's Builder does (its sentences), then writes one MultiConv node whose inputs are
/// the groups flattened (x, w, b or "" per convolution) and whose window attributes are the
/// convolutions' lists concatenated, with numConvs (MultiConvBaseOp splits them back).
std::map<std::string, any> multiConvAttributes(const GraphcoreOpInfo& info, BuilderImpl& impl,
                                               const std::vector<std::vector<TensorId>>& tensors,
                                               const std::map<std::string, OptionValue>& attrs,
                                               const DebugContext& dc) {
  const size_t numConvs = tensors.size();
  if (numConvs < 1)
    throw error("MultiConvOp '{}' has no input tensors. Provide at least one set of inputs", dc.getPathName());
  for (const auto& t : tensors) {
    if (t.size() < 2)
      throw error("Each convolution of MultiConvOp '{}' must have at least two inputs - data and weights",
                  dc.getPathName());
    if (t.size() > 3)
      throw error("Each convolution of MultiConvOp '{}' can have at most three inputs - data, weights, and bias",
                  dc.getPathName());
  }
  auto checkSets = [&](size_t n, const char* param) {
    if (n != 0 && n != numConvs)
      throw error("For MultiConvOp '{}', number of {} parameter sets ({}) does not match the number of input sets ({})",
                  dc.getPathName(), param, n, numConvs);
  };
  const char* windowNames[] = {"dilations", "inDilations", "pads", "outPads", "strides"};
  std::map<std::string, std::vector<std::vector<int64_t>>> window;
  for (const char* n : windowNames) {
    window[n] = perGroupInts(info, n, attrs);
    checkSets(window[n].size(), n);
  }
  std::map<std::string, any> out;
  auto flatOf = [&](const char* name) -> std::optional<any> {
    const OpAttrInfo* a = nullptr;
    for (const auto& x : info.attrs) {
      if (x.name == name) a = &x;
    }
    auto it = attrs.find(name);
    if (!a || it == attrs.end()) return std::nullopt;
    return attributeFor(info, *a, it->second);
  };
  std::vector<float> memory;
  if (auto v = flatOf("availableMemoryProportions")) memory = std::any_cast<std::vector<float>>(*v);
  std::vector<std::string> partials;
  if (auto v = flatOf("partialsTypes")) partials = std::any_cast<std::vector<std::string>>(*v);
  std::vector<int64_t> dithering;
  if (auto v = flatOf("enableConvDithering")) dithering = std::any_cast<std::vector<int64_t>>(*v);
  checkSets(memory.size(), "availableMemoryProportions");
  checkSets(partials.size(), "partialsTypes");
  checkSets(dithering.size(), "enableConvDithering");
  // PopART's MultiConvOptions checks, when the op is created.
  for (auto& p : partials) {
    std::string lower;
    for (char ch : p) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower != "float" && lower != "half") throw error("Bad partialsType '{}'", lower);
  }
  for (float m : memory) {
    if (m > 1.0f || m <= 0.0f) throw error("availableMemoryProportion must be in (0,1]");
  }
  // PopART's verifyWindowParameters for each convolution whose data shape is known.
  for (size_t i = 0; i < numConvs; ++i) {
    const TensorInfo* x = impl.info(tensors[i][0]);
    if (!x) continue;
    if (x->rank() < 3) throw error("Input tensor has no spatial dimensions");
    const size_t n = static_cast<size_t>(x->rank()) - 2;
    auto param = [&](const char* name) {
      const auto& l = window[name];
      return l.empty() ? std::vector<int64_t>{} : l[i];
    };
    if (!param("strides").empty() && param("strides").size() != n)
      throw error("Length of strides vector {} != number of spatial dimensions {}", param("strides").size(), n);
    if (!param("pads").empty() && param("pads").size() != 2 * n)
      throw error("Padding vector (length {}) does not have 2 values for each spatial dimension {}",
                  param("pads").size(), n);
    if (!param("outPads").empty() && param("outPads").size() != 2 * n)
      throw error("Output padding vector (length {}) does not have 2 values for each spatial dimension {}",
                  param("outPads").size(), n);
    if (!param("dilations").empty() && param("dilations").size() != n)
      throw error("Length of dilations vector {} != number of spatial dimensions {}", param("dilations").size(), n);
    if (!param("inDilations").empty() && param("inDilations").size() != n)
      throw error("Length of inDilations vector {} != number of spatial dimensions {}", param("inDilations").size(), n);
  }
  // The lists are concatenated into the node: one convolution without its list while another has
  // one cannot be split back (PopART's MultiConvBaseOp then fails with this sentence).
  const char* words[] = {"dilation", "dilation", "pad", "pad", "stride"};
  for (size_t k = 0; k < 5; ++k) {
    const auto& l = window[windowNames[k]];
    const auto other = std::find_if(l.begin(), l.end(), [](const std::vector<int64_t>& v) { return !v.empty(); });
    for (size_t i = 0; i < l.size() && other != l.end(); ++i) {
      if (l[i].empty())
        throw error(
            "Unexpected number of {} parameters for convolution op '{}': {} of convolution {} has none while "
            "convolution {} has {} (the lists are concatenated into the node: give every convolution its "
            "own, or none)",
            words[k], dc.getPathName(), windowNames[k], i, other - l.begin(), *other);
    }
  }
  for (const char* n : windowNames) {
    std::vector<int64_t> flat;
    for (const auto& l : window[n]) flat.insert(flat.end(), l.begin(), l.end());
    if (!flat.empty()) out[n] = flat;
  }
  if (auto v = flatOf("planType")) out["planType"] = *v;
  if (auto v = flatOf("perConvReservedTiles")) out["perConvReservedTiles"] = *v;
  if (auto v = flatOf("cycleBackOff")) out["cycleBackOff"] = *v;
  if (!memory.empty()) out[sAvailMemAttribute] = memory;
  if (!partials.empty()) out[sPartialsTypeAttribute] = partials;
  if (!dithering.empty()) out[sEnableConvDitheringAttribute] = dithering;
  out["numConvs"] = static_cast<int64_t>(numConvs);
  return out;
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
  if (info.inputsForm == "groups")
    throw error(
        "aiGraphcore.{} takes its inputs as one list per group ([[x0, w0(, b0)], [x1, w1(, b1)], ...]): "
        "AiGraphcoreOpset1::{} or callGroupsMethod",
        method, method);
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
      out[a.onnxName.empty() ? a.name : a.onnxName] = attributeFor(info, a, it->second);
    } else if (a.required) {
      throw error("aiGraphcore.{}: missing required attribute '{}'", method, a.name);
    } else if (a.hasDefault) {
      out[a.onnxName.empty() ? a.name : a.onnxName] = attributeFor(info, a, a.defaultValue);
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
  if (info.opType == "Call") {
    // PopART checks the call against its callee when the node is built.
    const auto& callee = graphs.at("callee")->impl().model().graph();
    auto check = [&](int64_t callSize, int64_t sgSize, const char* dir) {
      if (callSize != sgSize)
        throw error("For CallOp '{}', number of {}s ({}) does not match that of the callee subgraph ({})",
                    debugContext.getPathName(), dir, callSize, sgSize);
    };
    check(static_cast<int64_t>(args.size()), callee.input_size(), "input");
    check(numOutputs, callee.output_size(), "output");
  }
  return op(info.opType.c_str(), args, static_cast<unsigned>(numOutputs), out, debugContext, info.minInputs,
            info.maxInputs);
}

std::vector<TensorId> AiGraphcoreOpset1::callGroupsMethod(const std::string& method,
                                                          const std::vector<std::vector<TensorId>>& groups,
                                                          const std::map<std::string, OptionValue>& attrs,
                                                          const DebugContext& debugContext) {
  const GraphcoreOpInfo& info = findOp(method);
  if (info.inputsForm != "groups")
    throw error("aiGraphcore.{} takes a list of input ids, not a list of groups: callMethod", method);
  for (const auto& kv : attrs) {
    if (std::none_of(info.attrs.begin(), info.attrs.end(), [&](const OpAttrInfo& a) { return a.name == kv.first; }))
      throw error("aiGraphcore.{} has no attribute '{}'", method, kv.first);
  }
  const std::map<std::string, any> out = multiConvAttributes(info, *impl_, groups, attrs, debugContext);
  std::vector<TensorId> flat;
  for (const auto& g : groups) {
    flat.insert(flat.end(), g.begin(), g.end());
    for (size_t k = g.size(); k < static_cast<size_t>(info.maxGroupInputs); ++k) flat.emplace_back();
  }
  return op(info.opType.c_str(), flat, static_cast<unsigned>(groups.size()), out, debugContext, info.minInputs,
            info.maxInputs);
}

}  // namespace popart
