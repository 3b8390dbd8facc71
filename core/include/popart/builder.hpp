// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file builder.hpp
/// `Builder`: builds an ONNX model without a third-party framework. Ops are added through
/// per-opset builders (`aiOnnxOpset6()` .. `aiOnnxOpset17()`, `aiGraphcoreOpset1()`), whose
/// methods are generated from the ONNX schemas for every op this runtime supports.
///
/// Tensor ids follow PopART's rules: an op's outputs are `<scope>/<name>:<i>` where name is
/// the DebugContext name or the op type, inputs are `input`, initializers `init_input`; a taken
/// id gets `/1`, `/2`, ... appended.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "popart/builder.gen.hpp"
#include "popart/commgroup.hpp"
#include "popart/dataflow.hpp"
#include "popart/debugcontext.hpp"
#include "popart/domainopset.hpp"
#include "popart/names.hpp"
#include "popart/op/collectives/collectives.hpp"
#include "popart/op/loss.hpp"
#include "popart/op/scatterreduce.hpp"
#include "popart/reflection.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/variablesettings.hpp"
#include "popart/voiddata.hpp"

namespace popart {

/// How an op's outputs are treated by recomputation (PopART's values).
enum class RecomputeType { Undefined = 0, Checkpoint, Recompute, Recomputed, N };

class BuilderImpl;
class Builder;

/// Graphcore's custom ops (domain ai.graphcore, version 1).
class AiGraphcoreOpset1 : public DomainOpSet {
 public:
  explicit AiGraphcoreOpset1(BuilderImpl* impl) : DomainOpSet(impl, Domain::ai_graphcore, 1) {}

  /// Any method by name with its attributes by name (graphcoreOpList() in popart/reflection.hpp
  /// lists them with their types, defaults and outputs): what the typed methods below and the
  /// bindings call. Returns every output id (none for a method without outputs). Unknown methods
  /// or attributes, missing required ones and values of the wrong kind are errors naming them.
  std::vector<TensorId> callMethod(const std::string& method, const std::vector<TensorId>& args,
                                   const std::map<std::string, OptionValue>& attributes = {},
                                   const DebugContext& debugContext = {});
  /// The same with the subgraph attributes (type "graph", as packedDataBlock's callback) by name;
  /// the node gets a copy of each Builder's graph.
  std::vector<TensorId> callMethod(const std::string& method, const std::vector<TensorId>& args,
                                   const std::map<std::string, OptionValue>& attributes,
                                   const std::map<std::string, const Builder*>& graphs,
                                   const DebugContext& debugContext = {});

  /// The same for a method whose inputs are groups of ids (inputsForm "groups": multiconv), one
  /// list per group; returns one output per group.
  std::vector<TensorId> callGroupsMethod(const std::string& method, const std::vector<std::vector<TensorId>>& groups,
                                         const std::map<std::string, OptionValue>& attributes = {},
                                         const DebugContext& debugContext = {});

  /// Negative log likelihood of `args = {probs [N.., C], label [N..] (INT32)}`.
  TensorId nllloss(const std::vector<TensorId>& args, ReductionType reduction = ReductionType::Mean,
                   const nonstd::optional<int>& ignoreIndex = nonstd::nullopt, bool inputIsLogProbability = false,
                   const DebugContext& debugContext = {});
  /// lambda * |x|, reduced.
  TensorId l1loss(const std::vector<TensorId>& args, float lambda, ReductionType reduction = ReductionType::Mean,
                  const DebugContext& debugContext = {});
  /// The input itself, reduced.
  TensorId identityloss(const std::vector<TensorId>& args, ReductionType reduction = ReductionType::Mean,
                        const DebugContext& debugContext = {});
  /// x * scale.
  TensorId scale(const std::vector<TensorId>& args, float scale, const DebugContext& debugContext = {});
  /// scale0 * a + scale1 * b.
  TensorId scaledadd(const std::vector<TensorId>& args, float scale0 = 1.0f, float scale1 = 1.0f,
                     const DebugContext& debugContext = {});
  TensorId gelu(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId swish(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId detach(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId nop(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId subsample(const std::vector<TensorId>& args, const std::vector<int64_t>& strides,
                     const DebugContext& debugContext = {});
  TensorId expm1(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId log1p(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId atan2(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId fmod(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId remainder(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId round(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId reshape(const std::vector<TensorId>& args, const Shape& shape, const DebugContext& debugContext = {});

  // ---- run-time slices, sequences, scatter reductions and ordering
  /// The slice of `args = {tensor, offset(, slice)}` at the run-time offset (UINT32, one value per
  /// axis). An offset at or past the end of an axis reads from 0, and a slice running past the
  /// end wraps around (as Poplar's dynamicSlice).
  TensorId dynamicslice(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                        const std::vector<int64_t>& sizes, bool noOverlap = false,
                        const DebugContext& debugContext = {});
  /// `args = {tensor, offset, slice}`: the tensor with the slice written at the offset.
  TensorId dynamicupdate(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                         const std::vector<int64_t>& sizes, bool noOverlap = false,
                         const DebugContext& debugContext = {});
  /// `args = {tensor, offset}`: the tensor with the slice at the offset zeroed.
  TensorId dynamiczero(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                       const std::vector<int64_t>& sizes, const DebugContext& debugContext = {});
  /// `args = {tensor, offset, slice}`: the tensor with the slice added at the offset.
  TensorId dynamicadd(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                      const std::vector<int64_t>& sizes, const DebugContext& debugContext = {});
  /// `args = {source, destination, N, sourceOffset, destinationOffset}`: the destination with
  /// N[i] rows of the source from sourceOffset[i] copied to destinationOffset[i].
  TensorId sequenceslice(const std::vector<TensorId>& args, bool zeroUnused = false,
                         const DebugContext& debugContext = {});
  /// `args = {data, offsets, lengths (for each data input), resultOffsets, resultLengths}`: each
  /// data input's packed sequences unpacked to [callbackBatchSize, maxSequenceLengths[i], ...],
  /// mapped by `callback` (a subgraph Builder; the node keeps a copy of its graph) and packed into
  /// a result of `resultSize` rows.
  TensorId packedDataBlock(const std::vector<TensorId>& args, const std::vector<int64_t>& maxSequenceLengths,
                           int64_t resultSize, int64_t callbackBatchSize, const Builder& callback,
                           const DebugContext& debugContext = {});
  /// The `callee` subgraph (a Builder from `createSubgraphBuilder`; the node keeps a copy of its
  /// graph) applied to `args`, one per callee input in order. `num_outputs` must be the callee's
  /// number of outputs. Returns the output ids. Differentiable (through the callee).
  std::vector<TensorId> call(const std::vector<TensorId>& args, unsigned num_outputs, const Builder& callee,
                             const DebugContext& debugContext = {});
  /// `args = {data, indices(, initial values)}`: data scattered along `axis` to the indices and
  /// reduced into an output with `axis_size` positions along the axis.
  TensorId scatterreduce(const std::vector<TensorId>& args, int64_t axis_size, int64_t axis = -1,
                         ScatterReduction reduction = ScatterReduction::Sum, bool enable_index_broadcast = true,
                         const DebugContext& debugContext = {});
  /// scatterreduce of each group of a leading group dimension of size `group_size`.
  TensorId groupedscatterreduce(const std::vector<TensorId>& args, int64_t axis_size, int64_t axis = -1,
                                ScatterReduction reduction = ScatterReduction::Sum, int64_t group_size = 1,
                                bool enable_index_broadcast = true, const DebugContext& debugContext = {});
  /// `args = {data [G, ...], indices [G, ...]}`: each group's data gathered at its indices along
  /// `axis` (not 0, the group dimension).
  TensorId groupedgather(const std::vector<TensorId>& args, int64_t axis = 0, int64_t group_size = 1,
                         const DebugContext& debugContext = {});
  /// `args = {input, boundaries}`: the bucket of each input among the sorted boundaries (INT32).
  TensorId bucketize(const std::vector<TensorId>& args, bool right = false, const DebugContext& debugContext = {});
  /// [values, indices (INT64)] of the input sorted along `axis`.
  std::vector<TensorId> sort(const std::vector<TensorId>& args, int64_t axis = -1, bool descending = false,
                             bool stable = false, const DebugContext& debugContext = {});
  /// [values, indices (INT32)]: the lower median over `axes` (every axis when not given).
  std::vector<TensorId> reducemedian(const std::vector<TensorId>& args,
                                     const nonstd::optional<std::vector<int64_t>>& axes = nonstd::nullopt,
                                     bool keepdims = true, const DebugContext& debugContext = {});
  /// [output, cell_state] of PopART's LSTM of `args = {X [seq, batch, input], weights [4, input +
  /// hidden, hidden], (bias [4, hidden], (initialState [2, batch, hidden], (sequence lengths)))}`;
  /// gates forget, input, candidate, output. output is [seq, batch, hidden] with
  /// `outputFullSequence`, else the last step's [batch, hidden].
  std::vector<TensorId> lstm(const std::vector<TensorId>& args, int64_t outputFullSequence = 1,
                             const DebugContext& debugContext = {});
  /// The CTC loss of `args = {logProbs [T, N, C], targets [N, S], inputLengths [N], targetLengths
  /// [N]}` (UINT32 targets and lengths in PopART; INT32 / INT64 are read too). Mean divides each
  /// sample's loss by max(its target length, 1), then averages over the batch (torch's mean).
  /// `outDataType`: the loss's type ("UNDEFINED": that of logProbs).
  TensorId ctcloss(const std::vector<TensorId>& args, ReductionType reduction = ReductionType::Mean, unsigned blank = 0,
                   const std::string& outDataType = "UNDEFINED", bool zeroInfinity = false,
                   const DebugContext& debugContext = {});
  /// ctcloss with PopART's second output: [loss, each sample's loss gradient w.r.t. logProbs].
  std::vector<TensorId> _ctcloss(const std::vector<TensorId>& args, ReductionType reduction = ReductionType::Mean,
                                 unsigned blank = 0, const std::string& outDataType = "UNDEFINED",
                                 bool zeroInfinity = false, const DebugContext& debugContext = {});
  /// [labelProbs [N, topPaths], labelLengths [N, topPaths] (UINT32), decodedLabels [N, topPaths, T]
  /// (UINT32)]: the CTC prefix beam search of `args = {logProbs [T, N, C], dataLengths [N]}`.
  std::vector<TensorId> ctcbeamsearchdecoder(const std::vector<TensorId>& args, unsigned blank = 0,
                                             unsigned beamWidth = 100, unsigned topPaths = 1,
                                             const DebugContext& debugContext = {});
  /// Round half to even.
  TensorId nearbyint(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  /// x * Phi(x): the exact (erf) GELU.
  TensorId geluerf(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  /// fmod(x + increment, modulus), in x's type.
  TensorId incrementmod(const std::vector<TensorId>& args, float increment, float modulus,
                        const DebugContext& debugContext = {});
  /// Bitwise ops of integer tensors: ~x; a & b, a | b, a ^ b, ~(a ^ b) (numpy broadcasting).
  TensorId bitwisenot(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId bitwiseand(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId bitwiseor(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId bitwisexor(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  TensorId bitwisexnor(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  /// The input flipped along `dimensions`.
  TensorId reverse(const std::vector<TensorId>& args, const std::vector<int64_t>& dimensions,
                   const DebugContext& debugContext = {});
  /// ONNX DepthToSpace (opset 11, `mode` "DCR" or "CRD") from any opset.
  TensorId depthtospace(const std::vector<TensorId>& args, int64_t blocksize, const std::string& mode = "DCR",
                        const DebugContext& debugContext = {});
  /// A slice with its bounds as attributes (PopART's order: ends before starts).
  TensorId slice(const std::vector<TensorId>& args, const std::vector<int64_t>& ends,
                 const std::vector<int64_t>& starts, const std::vector<int64_t>& axes = {},
                 const DebugContext& debugContext = {});
  /// A new tensor: `data_type` is a DataType number (static_cast<int64_t>(DataType::FLOAT)),
  /// `init_type` an InitType number (popart/op/init.hpp); `batch_axis` -1 for none.
  TensorId init(const std::vector<int64_t>& shape, int64_t data_type, int64_t init_type, int64_t batch_axis,
                const DebugContext& debugContext = {});
  TensorId init(const std::vector<int64_t>& shape, int64_t data_type, int64_t init_type,
                const DebugContext& debugContext = {});
  /// The input, printed ("title: {values}", to the log destination) each time it is computed; the
  /// gradient too with `print_gradient` = 1. PopART's parameter order (debugContext before title).
  TensorId printtensor(const std::vector<TensorId>& args, int64_t print_gradient = 1,
                       const DebugContext& debugContext = {}, const std::string& title = {});
  /// Stops the run (poplar_runtime_error "Abort Program ..."): always with no input, else when
  /// `args[0]` (one value) is nonzero.
  void abort(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  /// ((image * scale) - offsets) * scales of {image [..., 3], offsets [3], scales [3]}, padded to 4
  /// channels with zeros.
  TensorId normalize_image(const std::vector<TensorId>& args, float scale = 1.0f,
                           const DebugContext& debugContext = {});
  /// Dropout with a mask of `shape` (broadcast to the input), in training sessions.
  TensorId shapeddropout(const std::vector<TensorId>& args, const std::vector<int64_t>& shape, float ratio = 0.5f,
                         const DebugContext& debugContext = {});
  /// `args = {variable, updater}`: the variable takes the updater's value; returns the updated value.
  TensorId copyvarupdate(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
  /// The input (an IPU layout change); `remap_type` 0 FwdBwdReverse, 1 Fwd, 2 Bwd.
  TensorId tensorremap(const std::vector<TensorId>& args, int64_t remap_type = 0,
                       const DebugContext& debugContext = {});
  /// Collectives over the replicas of this replica's group (`commGroup`; none: all replicas),
  /// combined by `collectiveOperator` (none: Add). replicatedallreduce: every replica of the group
  /// gets the result; replicatedreducescatter: the input flattened and padded to a multiple of the
  /// group's size k, the replica at position i of its group gets shard i ([ceil(n / k)]).
  TensorId replicatedallreduce(const std::vector<TensorId>& args,
                               const nonstd::optional<CollectiveOperator>& collectiveOperator = nonstd::nullopt,
                               const nonstd::optional<CommGroup>& commGroup = nonstd::nullopt,
                               const DebugContext& debugContext = {});
  TensorId replicatedreducescatter(const std::vector<TensorId>& args,
                                   const nonstd::optional<CollectiveOperator>& collectiveOperator = nonstd::nullopt,
                                   const nonstd::optional<CommGroup>& commGroup = nonstd::nullopt,
                                   const DebugContext& debugContext = {});
  /// [Y, mean [N * G], invStdDev [N * G]] of `args = {X [N, C, ...], scale [C], bias [C]}`
  /// normalised over each group of C / `num_groups` consecutive channels of each sample.
  std::vector<TensorId> groupnormalization(const std::vector<TensorId>& args, int64_t num_groups,
                                           float epsilon = 1e-05f, const DebugContext& debugContext = {});
  /// Several independent convolutions in one node (PopART's multiconv: {A0, A1} =
  /// multiconv({{X0, W0, B0}, {X1, W1}}) computes A0 = conv({X0, W0, B0}), A1 = conv({X1, W1})).
  /// Each per-convolution list is empty (the defaults) or holds one entry per convolution; the
  /// group count of each is C / W[1]. The IPU planning hints (available memory, partials type,
  /// plan type, reserved tiles, cycle back-off, dithering) are written into the node and do not
  /// change the values. Returns one output per convolution.
  std::vector<TensorId> multiconv(const MultiConvInputs& tensors, const MultiConvDilations& dilations = {},
                                  const MultiConvDilations& inDilations = {}, const MultiConvPads& pads = {},
                                  const MultiConvPads& outPads = {}, const MultiConvStrides& strides = {},
                                  const std::vector<float>& availableMemoryProportions = {},
                                  const std::vector<std::string>& partialsTypes = {},
                                  const nonstd::optional<std::string>& planType = nonstd::nullopt,
                                  const nonstd::optional<int>& perConvReservedTiles = nonstd::nullopt,
                                  const nonstd::optional<float>& cycleBackOff = nonstd::nullopt,
                                  const std::vector<int64_t>& enableConvDithering = {},
                                  const DebugContext& debugContext = {});
  /// BatchNormalization whose running variance uses the unbiased batch variance (as PyTorch):
  /// `num_outputs` 1 (inference) or 5 (training).
  std::vector<TensorId> batchnormalization(const std::vector<TensorId>& args, unsigned num_outputs,
                                           float epsilon = 1e-05f, float momentum = 0.9f,
                                           const DebugContext& debugContext = {});
  /// [basis [E, S], weightIndex [E, S]] of `args = {pseudo [E, D], kernelSize [D] (INT32),
  /// isOpenSpline [D] (UINT8)}`: the B-spline basis of `degree` (0 to 3), S = (degree + 1)^D
  /// (torch_spline_conv's spline_basis). No gradient (as PopART).
  std::vector<TensorId> splinebasis(const std::vector<TensorId>& args, int64_t degree,
                                    const DebugContext& debugContext = {});
  /// [E, Mout] of `args = {input [E, Min], weight [K, Min, Mout], basis [E, S], weightIndex [E, S]}`:
  /// sum over s of basis[e, s] * input[e] @ weight[weightIndex[e, s]] (torch_spline_conv's
  /// spline_weighting). No gradient (as PopART).
  TensorId splineweighting(const std::vector<TensorId>& args, const DebugContext& debugContext = {});
};

class Builder {
 public:
  ~Builder();
  /// An empty model.
  static std::unique_ptr<Builder> create();
  /// Starts from an existing model: serialized ModelProto bytes or a file path.
  static std::unique_ptr<Builder> createFromOnnxModel(const std::string& modelProtoOrFilename);

  /// A builder for a subgraph (If/Loop/Scan bodies), owned by this builder.
  Builder& createSubgraphBuilder();
  void setGraphName(const std::string& name);
  /// PopART's: writes the replication factor the model is built for into it (metadata_props
  /// "__replication_factor"; absent: 1), the one its grouped weights' values are laid out for
  /// (VariableSettings). A session at another replication factor says so when it loads them.
  void embedReplicationFactor(int replicationFactor);

  // ------------------------------------------------------------------ tensors
  TensorId addInputTensor(const TensorInfo& info, const DebugContext& debugContext = {});
  TensorId addInputTensor(const std::string& dataType, const Shape& shape, const DebugContext& debugContext = {});
  /// An input with PopART's InputSettings (popart/dataflow.hpp): a Broadcast input gives every
  /// replica the same micro-batch (its host array has no replica dimension). The settings are
  /// kept in the model (metadata_props "__replicated_stream_mode:<id>", "__tile_set:<id>",
  /// "__exchange_strategy:<id>"; defaults are not written).
  TensorId addInputTensor(const TensorInfo& info, const InputSettings& settings, const DebugContext& debugContext = {});
  TensorId addInputTensor(const std::string& dataType, const Shape& shape, const InputSettings& settings,
                          const DebugContext& debugContext = {});
  /// An input of unknown type and shape (subgraphs only).
  TensorId addUntypedInputTensor(const DebugContext& debugContext = {});
  /// PopART's: adds an input to this subgraph under the id of a parent graph's tensor (typed as
  /// that tensor when the parent knows it). A `call` binds it, in order, like any other input
  /// (the argument may be another tensor); in If branches and beyond the formal inputs of a
  /// Loop / Scan body it reads the enclosing graph's tensor of that id.
  void addInputTensorFromParentGraph(const TensorId& id);
  /// A weight: an input with an initializer (copied from `initData`).
  TensorId addInitializedInputTensor(const ConstVoidData& initData, const DebugContext& debugContext = {});
  /// A weight shared among replicas as `variableSettings` say (popart/variablesettings.hpp). With
  /// more than one replica group at the session's replication factor, `initData` holds one value
  /// per group: shape [groups] + the weight's shape (checked when a session loads the model, with
  /// PopART's error; the Builder does not know the replication factor, so it records, and infers
  /// from, the shape given). The settings are kept in the model (metadata_props
  /// "__variable_settings:<id>").
  TensorId addInitializedInputTensor(const ConstVoidData& initData, const VariableSettings& variableSettings,
                                     const DebugContext& debugContext = {});
  /// Marks an ONNX graph output (an output is not an anchor: DataFlow selects anchors).
  void addOutputTensor(const TensorId& id);
  /// poponnx's `builder.add(a, b)`: an ai.onnx Add in the model's ai.onnx opset (PopART's default,
  /// 10, if none is chosen yet); the same as `aiOnnxOpsetN().add({a, b})`.
  TensorId add(const TensorId& a, const TensorId& b, const DebugContext& debugContext = {});

  // ------------------------------------------------------------------ op builders
  AiOnnxOpset6 aiOnnxOpset6() { return AiOnnxOpset6(impl_.get()); }
  AiOnnxOpset7 aiOnnxOpset7() { return AiOnnxOpset7(impl_.get()); }
  AiOnnxOpset8 aiOnnxOpset8() { return AiOnnxOpset8(impl_.get()); }
  AiOnnxOpset9 aiOnnxOpset9() { return AiOnnxOpset9(impl_.get()); }
  AiOnnxOpset10 aiOnnxOpset10() { return AiOnnxOpset10(impl_.get()); }
  AiOnnxOpset11 aiOnnxOpset11() { return AiOnnxOpset11(impl_.get()); }
  AiOnnxOpset12 aiOnnxOpset12() { return AiOnnxOpset12(impl_.get()); }
  AiOnnxOpset13 aiOnnxOpset13() { return AiOnnxOpset13(impl_.get()); }
  AiOnnxOpset14 aiOnnxOpset14() { return AiOnnxOpset14(impl_.get()); }
  AiOnnxOpset15 aiOnnxOpset15() { return AiOnnxOpset15(impl_.get()); }
  AiOnnxOpset16 aiOnnxOpset16() { return AiOnnxOpset16(impl_.get()); }
  AiOnnxOpset17 aiOnnxOpset17() { return AiOnnxOpset17(impl_.get()); }
  AiGraphcoreOpset1 aiGraphcoreOpset1() { return AiGraphcoreOpset1(impl_.get()); }

  /// Any op of any domain. An op the runtime does not know is kept in the model; a session
  /// created from it fails with an error naming the op.
  std::vector<TensorId> customOp(const OperatorIdentifier& opid, int opsetVersion, const std::vector<TensorId>& inputs,
                                 unsigned numOutputs, const std::map<std::string, any>& attributes,
                                 const DebugContext& debugContext = {});
  void customOp(const OperatorIdentifier& opid, int opsetVersion, const std::vector<TensorId>& inputs,
                const std::vector<TensorId>& outputs, const std::map<std::string, any>& attributes,
                const DebugContext& debugContext = {});

  /// The generic form behind the aiOnnxOpsetN / aiGraphcoreOpset1 methods, for language
  /// bindings (the JS Builder): `useOpset` registers `domain` at `version` (an error if the model
  /// already uses another version of it), `opsetOp` adds an `opType` node after checking the input
  /// count against [minInputs, maxInputs] (-1: any) exactly as the generated methods do.
  void useOpset(const std::string& domain, int version);
  std::vector<TensorId> opsetOp(const std::string& domain, int version, const std::string& opType,
                                const std::vector<TensorId>& inputs, unsigned numOutputs,
                                const std::map<std::string, any>& attributes, const DebugContext& debugContext,
                                int minInputs, int maxInputs);

  // ------------------------------------------------------------------ node attributes
  // The node is the one producing every id in `nodeOutputNames`.
  void addNodeAttribute(const std::string& name, int64_t value, const std::set<TensorId>& nodeOutputNames);
  void addNodeAttribute(const std::string& name, const std::vector<int64_t>& value,
                        const std::set<TensorId>& nodeOutputNames);
  void addNodeAttribute(const std::string& name, float value, const std::set<TensorId>& nodeOutputNames);
  void addNodeAttribute(const std::string& name, const std::vector<float>& value,
                        const std::set<TensorId>& nodeOutputNames);
  void addNodeAttribute(const std::string& name, const std::string& value, const std::set<TensorId>& nodeOutputNames);
  void addNodeAttribute(const std::string& name, const char* value, const std::set<TensorId>& nodeOutputNames);
  void addNodeAttribute(const std::string& name, const std::vector<std::string>& value,
                        const std::set<TensorId>& nodeOutputNames);
  bool nodeHasAttribute(const std::string& name, const std::set<TensorId>& nodeOutputNames);
  int64_t getInt64NodeAttribute(const std::string& name, const std::set<TensorId>& nodeOutputNames);
  std::vector<int64_t> getInt64VectorNodeAttribute(const std::string& name, const std::set<TensorId>& nodeOutputNames);
  float getFloatNodeAttribute(const std::string& name, const std::set<TensorId>& nodeOutputNames);
  std::vector<float> getFloatVectorNodeAttribute(const std::string& name, const std::set<TensorId>& nodeOutputNames);
  std::string getStringNodeAttribute(const std::string& name, const std::set<TensorId>& nodeOutputNames);
  std::vector<std::string> getStringVectorNodeAttribute(const std::string& name,
                                                        const std::set<TensorId>& nodeOutputNames);
  void removeNodeAttribute(const std::string& name, const std::set<TensorId>& nodeOutputNames);
  std::vector<std::string> getAllNodeAttributeNames(const std::set<TensorId>& nodeOutputNames);

  // ------------------------------------------------------------------ scoped attributes
  /// Attributes added to every node created while set (what Python's context managers do).
  void setAttribute(const std::string& name, any value);
  any getAttribute(const std::string& name) const;
  bool hasAttribute(const std::string& name) const;
  void clearAttribute(const std::string& name);

  /// IPU annotations, stored as node attributes (`__ipu_number`, `__pipeline_stage`, ...).
  void virtualGraph(const TensorId& nodeOutputName, int64_t value = 0);
  void virtualGraph(const std::set<TensorId>& nodeOutputNames, int64_t value = 0);
  /// The virtual graph / pipeline stage / execution phase of the node making `nodeOutputName`
  /// (or all of `nodeOutputNames`): PopART's "Node ... does not have attribute ..." error when the
  /// node has none.
  int64_t getVirtualGraph(const TensorId& nodeOutputName);
  int64_t getVirtualGraph(const std::set<TensorId>& nodeOutputNames);
  void pipelineStage(const TensorId& nodeOutputName, int64_t value);
  void pipelineStage(const std::set<TensorId>& nodeOutputNames, int64_t value);
  int64_t getPipelineStage(const TensorId& nodeOutputName);
  int64_t getPipelineStage(const std::set<TensorId>& nodeOutputNames);
  void executionPhase(const TensorId& nodeOutputName, int64_t value = 0);
  void executionPhase(const std::set<TensorId>& nodeOutputNames, int64_t value = 0);
  int64_t getExecutionPhase(const TensorId& nodeOutputName);
  int64_t getExecutionPhase(const std::set<TensorId>& nodeOutputNames);
  /// Marks the node's outputs for recomputation (PopART's RecomputeType; stored as its number in
  /// the `__recompute_output_in_backward_pass` attribute).
  void recomputeOutputInBackwardPass(const TensorId& nodeOutputName, RecomputeType value = RecomputeType::Recompute);
  void recomputeOutputInBackwardPass(const std::set<TensorId>& nodeOutputNames,
                                     RecomputeType value = RecomputeType::Recompute);
  /// The same with the attribute's number (what the bindings pass).
  void recomputeOutputInBackwardPass(const TensorId& nodeOutputName, int64_t value);
  /// An Identity of each tensor, marked RecomputeType::Checkpoint (kept, not recomputed) and
  /// excluded from the PreUniRepl and PostNRepl patterns (which would remove it); returns the
  /// identities' ids, in order.
  std::vector<TensorId> checkpointOutput(const std::vector<TensorId>& nodeOutputNames);
  void setAvailableMemoryProportion(const TensorId& nodeOutputName, float proportion);
  void setPartialsType(const TensorId& nodeOutputName, const std::string& partialsType);
  /// Poplar's convolution dithering for the Conv producing `nodeOutputName` (1 on, 0 off), kept
  /// on the node as PopART writes it (`__enable_conv_dithering`). It spreads a convolution's tile
  /// placement in Poplar's code; this runtime's arithmetic and IPU model do not depend on it.
  void setEnableConvDithering(const TensorId& nodeOutputName, int64_t value);
  /// PopART's inplacing priorities of the node ({"ExpInplace": 10.0, ...}), kept on the node as
  /// PopART writes them (`__inplace_op_names`, `__inplace_op_priorities`). This runtime has no
  /// inplacing pass (its memory planner reuses buffers instead), so they do not change a run.
  void setInplacePreferences(const TensorId& nodeOutputName, const std::map<std::string, float>& prefs);
  void setSerializeMatMul(const std::set<TensorId>& nodeOutputNames, const std::string& mode, int64_t factor = 0,
                          bool keepPrecision = false);
  void excludePatterns(const TensorId& nodeOutputName, const std::vector<std::string>& patternNames);
  /// Scoped versions (used by Python-style context managers).
  void setVirtualGraph(int64_t value) { setAttribute(sVirtualGraphAttribute, value); }
  void setPipelineStage(int64_t value) { setAttribute(sPipelineStageAttribute, value); }
  void setExecutionPhase(int64_t value) { setAttribute(sExecutionPhaseAttribute, value); }
  /// Whether a scoped virtual graph / pipeline stage / execution phase is set (nodes created now
  /// get it).
  bool hasVirtualGraph() const { return hasAttribute(sVirtualGraphAttribute); }
  bool hasPipelineStage() const { return hasAttribute(sPipelineStageAttribute); }
  bool hasExecutionPhase() const { return hasAttribute(sExecutionPhaseAttribute); }
  /// The scoped virtual graph / pipeline stage / execution phase (PopART's errors "Virtual graph
  /// not set in current scope." / "Pipeline stage not set in current scope." / "Execution phase
  /// not set in current scope." outside such a scope).
  int64_t getVirtualGraph() const;
  int64_t getPipelineStage() const;
  int64_t getExecutionPhase() const;

  // ------------------------------------------------------------------ name scopes
  void pushNameScope(const std::string& name);
  void popNameScope();
  /// The current scope prefix joined with `name` ("scope1/scope2/name").
  std::string getNameScope(const std::string& name = "") const;

  // ------------------------------------------------------------------ introspection
  /// The serialized ModelProto.
  std::string getModelProto(bool humanReadable = false) const;
  void saveModelProto(const std::string& fn);
  /// Moves the named initializers' data to the file `fn` (ONNX external data: location `fn` as
  /// given, offset, length; the data of all of them concatenated). getModelProto / saveModelProto
  /// then refer to it. Errors: an id that is not an initializer, or is already external, a parent
  /// directory of `fn` that does not exist.
  void saveInitializersExternally(const std::vector<TensorId>& ids, const std::string& fn);
  /// As saveInitializersExternally, but the data file's bytes are returned instead of written
  /// (the browser has no file system). Not in PopART.
  std::string saveInitializersExternallyToBytes(const std::vector<TensorId>& ids, const std::string& location);
  /// Inputs and initializers, in creation order.
  std::vector<TensorId> getInputTensorIds() const;
  std::vector<TensorId> getOutputTensorIds() const;
  /// Tensors produced by nodes (and their inferred value_info).
  std::vector<TensorId> getValueTensorIds() const;
  std::vector<TensorId> getTrainableTensorIds() const;
  bool hasValueInfo(const TensorId& id) const;
  Shape getTensorShape(const TensorId& id);
  std::string getTensorDtypeString(const TensorId& id);
  DataType getTensorDataType(const TensorId& id);
  bool isInitializer(const TensorId& id) const;
  /// The ai.onnx opset the model uses (fixed by the first aiOnnxOpsetN call).
  int getOnnxOpsetVersion() const;

  BuilderImpl& impl() { return *impl_; }
  const BuilderImpl& impl() const { return *impl_; }
  Builder* getParent() const { return parent_; }

 private:
  Builder();
  std::unique_ptr<BuilderImpl> impl_;
  std::vector<std::unique_ptr<Builder>> children_;
  Builder* parent_ = nullptr;
};

}  // namespace popart
