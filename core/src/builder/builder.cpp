// The public Builder, DomainOpSet and the Graphcore opset.
#include "popart/builder.hpp"

#include <fstream>

#include "builder/builder_impl.hpp"
#include "onnx/external_data.hpp"
#include "onnx/model_io.hpp"
#include "popart/error.hpp"
#include "popart/patterns.hpp"

namespace popart {

// ---------------------------------------------------------------- DomainOpSet

DomainOpSet::DomainOpSet(BuilderImpl* impl, const std::string& domain, int version)
    : impl_(impl), domain_(domain), version_(version) {
  impl_->addOpsetRequirement(domain, version);
}

std::vector<TensorId> DomainOpSet::op(const char* opType, const std::vector<TensorId>& inputs, unsigned numOutputs,
                                      const std::map<std::string, any>& attributes, const DebugContext& debugContext,
                                      int minInputs, int maxInputs) const {
  impl_->verifyWindowParameters(domain_, opType, inputs, attributes);
  return impl_->op(domain_, version_, opType, inputs, numOutputs, attributes, debugContext, minInputs, maxInputs);
}

// ---------------------------------------------------------------- AiGraphcoreOpset1
// The typed methods go through callMethod(): op types, input counts and attribute names live in one
// table (graphcore_ops.cpp).

TensorId AiGraphcoreOpset1::nllloss(const std::vector<TensorId>& args, ReductionType reduction,
                                    const nonstd::optional<int>& ignoreIndex, bool inputIsLogProbability,
                                    const DebugContext& dc) {
  std::map<std::string, OptionValue> a{{"reduction", enumToString(reduction)},
                                       {"inputIsLogProbability", inputIsLogProbability}};
  if (ignoreIndex) a["ignoreIndex"] = static_cast<int64_t>(*ignoreIndex);
  return callMethod("nllloss", args, a, dc)[0];
}

TensorId AiGraphcoreOpset1::l1loss(const std::vector<TensorId>& args, float lambda, ReductionType reduction,
                                   const DebugContext& dc) {
  return callMethod("l1loss", args, {{"lambda", static_cast<double>(lambda)}, {"reduction", enumToString(reduction)}},
                    dc)[0];
}

TensorId AiGraphcoreOpset1::identityloss(const std::vector<TensorId>& args, ReductionType reduction,
                                         const DebugContext& dc) {
  return callMethod("identityloss", args, {{"reduction", enumToString(reduction)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::scale(const std::vector<TensorId>& args, float s, const DebugContext& dc) {
  return callMethod("scale", args, {{"scale", static_cast<double>(s)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::scaledadd(const std::vector<TensorId>& args, float scale0, float scale1,
                                      const DebugContext& dc) {
  return callMethod("scaledadd", args,
                    {{"scale0", static_cast<double>(scale0)}, {"scale1", static_cast<double>(scale1)}}, dc)[0];
}

#define GC_PLAIN(NAME)                                                                          \
  TensorId AiGraphcoreOpset1::NAME(const std::vector<TensorId>& args, const DebugContext& dc) { \
    return callMethod(#NAME, args, {}, dc)[0];                                                  \
  }
GC_PLAIN(gelu)
GC_PLAIN(swish)
GC_PLAIN(detach)
GC_PLAIN(nop)
GC_PLAIN(expm1)
GC_PLAIN(log1p)
GC_PLAIN(round)
GC_PLAIN(atan2)
GC_PLAIN(fmod)
GC_PLAIN(remainder)
GC_PLAIN(nearbyint)
GC_PLAIN(geluerf)
GC_PLAIN(bitwisenot)
GC_PLAIN(bitwiseand)
GC_PLAIN(bitwiseor)
GC_PLAIN(bitwisexor)
GC_PLAIN(bitwisexnor)
GC_PLAIN(copyvarupdate)
#undef GC_PLAIN

TensorId AiGraphcoreOpset1::incrementmod(const std::vector<TensorId>& args, float increment, float modulus,
                                         const DebugContext& dc) {
  return callMethod("incrementmod", args,
                    {{"increment", static_cast<double>(increment)}, {"modulus", static_cast<double>(modulus)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::reverse(const std::vector<TensorId>& args, const std::vector<int64_t>& dimensions,
                                    const DebugContext& dc) {
  return callMethod("reverse", args, {{"dimensions", dimensions}}, dc)[0];
}

TensorId AiGraphcoreOpset1::depthtospace(const std::vector<TensorId>& args, int64_t blocksize, const std::string& mode,
                                         const DebugContext& dc) {
  return callMethod("depthtospace", args, {{"blocksize", blocksize}, {"mode", mode}}, dc)[0];
}

TensorId AiGraphcoreOpset1::slice(const std::vector<TensorId>& args, const std::vector<int64_t>& ends,
                                  const std::vector<int64_t>& starts, const std::vector<int64_t>& axes,
                                  const DebugContext& dc) {
  return callMethod("slice", args, {{"ends", ends}, {"starts", starts}, {"axes", axes}}, dc)[0];
}

TensorId AiGraphcoreOpset1::init(const std::vector<int64_t>& shape, int64_t data_type, int64_t init_type,
                                 int64_t batch_axis, const DebugContext& dc) {
  return callMethod("init", {},
                    {{"shape", shape}, {"data_type", data_type}, {"init_type", init_type}, {"batch_axis", batch_axis}},
                    dc)[0];
}

TensorId AiGraphcoreOpset1::init(const std::vector<int64_t>& shape, int64_t data_type, int64_t init_type,
                                 const DebugContext& dc) {
  return init(shape, data_type, init_type, -1, dc);
}

TensorId AiGraphcoreOpset1::printtensor(const std::vector<TensorId>& args, int64_t print_gradient,
                                        const DebugContext& dc, const std::string& title) {
  return callMethod("printtensor", args, {{"print_gradient", print_gradient}, {"title", title}}, dc)[0];
}

void AiGraphcoreOpset1::abort(const std::vector<TensorId>& args, const DebugContext& dc) {
  callMethod("abort", args, {}, dc);
}

TensorId AiGraphcoreOpset1::normalize_image(const std::vector<TensorId>& args, float scale, const DebugContext& dc) {
  return callMethod("normalize_image", args, {{"scale", static_cast<double>(scale)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::shapeddropout(const std::vector<TensorId>& args, const std::vector<int64_t>& shape,
                                          float ratio, const DebugContext& dc) {
  return callMethod("shapeddropout", args, {{"shape", shape}, {"ratio", static_cast<double>(ratio)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::tensorremap(const std::vector<TensorId>& args, int64_t remap_type, const DebugContext& dc) {
  return callMethod("tensorremap", args, {{"remap_type", remap_type}}, dc)[0];
}

namespace {
/// The collectives' optional arguments as the method table's attributes.
std::map<std::string, OptionValue> collectiveAttributes(const nonstd::optional<CollectiveOperator>& op,
                                                        const nonstd::optional<CommGroup>& group) {
  std::map<std::string, OptionValue> a;
  if (op) a["collectiveOperator"] = static_cast<int64_t>(*op);
  if (group) a["commGroup"] = std::vector<int64_t>{static_cast<int64_t>(group->type), group->replicaGroupSize};
  return a;
}
}  // namespace

TensorId AiGraphcoreOpset1::replicatedallreduce(const std::vector<TensorId>& args,
                                                const nonstd::optional<CollectiveOperator>& collectiveOperator,
                                                const nonstd::optional<CommGroup>& commGroup, const DebugContext& dc) {
  return callMethod("replicatedallreduce", args, collectiveAttributes(collectiveOperator, commGroup), dc)[0];
}

TensorId AiGraphcoreOpset1::replicatedreducescatter(const std::vector<TensorId>& args,
                                                    const nonstd::optional<CollectiveOperator>& collectiveOperator,
                                                    const nonstd::optional<CommGroup>& commGroup,
                                                    const DebugContext& dc) {
  return callMethod("replicatedreducescatter", args, collectiveAttributes(collectiveOperator, commGroup), dc)[0];
}

std::vector<TensorId> AiGraphcoreOpset1::batchnormalization(const std::vector<TensorId>& args, unsigned num_outputs,
                                                            float epsilon, float momentum, const DebugContext& dc) {
  return callMethod("batchnormalization", args,
                    {{"num_outputs", static_cast<int64_t>(num_outputs)},
                     {"epsilon", static_cast<double>(epsilon)},
                     {"momentum", static_cast<double>(momentum)}},
                    dc);
}

std::vector<TensorId> AiGraphcoreOpset1::groupnormalization(const std::vector<TensorId>& args, int64_t num_groups,
                                                            float epsilon, const DebugContext& dc) {
  return callMethod("groupnormalization", args, {{"num_groups", num_groups}, {"epsilon", static_cast<double>(epsilon)}},
                    dc);
}

std::vector<TensorId> AiGraphcoreOpset1::multiconv(
    const MultiConvInputs& tensors, const MultiConvDilations& dilations, const MultiConvDilations& inDilations,
    const MultiConvPads& pads, const MultiConvPads& outPads, const MultiConvStrides& strides,
    const std::vector<float>& availableMemoryProportions, const std::vector<std::string>& partialsTypes,
    const nonstd::optional<std::string>& planType, const nonstd::optional<int>& perConvReservedTiles,
    const nonstd::optional<float>& cycleBackOff, const std::vector<int64_t>& enableConvDithering,
    const DebugContext& dc) {
  std::map<std::string, OptionValue> a{{"dilations", dilations},
                                       {"inDilations", inDilations},
                                       {"pads", pads},
                                       {"outPads", outPads},
                                       {"strides", strides},
                                       {"partialsTypes", partialsTypes},
                                       {"enableConvDithering", enableConvDithering}};
  a["availableMemoryProportions"] =
      std::vector<double>(availableMemoryProportions.begin(), availableMemoryProportions.end());
  if (planType) a["planType"] = *planType;
  if (perConvReservedTiles) a["perConvReservedTiles"] = static_cast<int64_t>(*perConvReservedTiles);
  if (cycleBackOff) a["cycleBackOff"] = static_cast<double>(*cycleBackOff);
  return callGroupsMethod("multiconv", tensors, a, dc);
}

std::vector<TensorId> AiGraphcoreOpset1::splinebasis(const std::vector<TensorId>& args, int64_t degree,
                                                     const DebugContext& dc) {
  return callMethod("splinebasis", args, {{"degree", degree}}, dc);
}

TensorId AiGraphcoreOpset1::splineweighting(const std::vector<TensorId>& args, const DebugContext& dc) {
  return callMethod("splineweighting", args, {}, dc)[0];
}

TensorId AiGraphcoreOpset1::subsample(const std::vector<TensorId>& args, const std::vector<int64_t>& strides,
                                      const DebugContext& dc) {
  return callMethod("subsample", args, {{"strides", strides}}, dc)[0];
}

TensorId AiGraphcoreOpset1::reshape(const std::vector<TensorId>& args, const Shape& shape, const DebugContext& dc) {
  return callMethod("reshape", args, {{"shape", std::vector<int64_t>(shape.begin(), shape.end())}}, dc)[0];
}

// Run-time slices, sequences, scatter reductions and ordering.

TensorId AiGraphcoreOpset1::dynamicslice(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                                         const std::vector<int64_t>& sizes, bool noOverlap, const DebugContext& dc) {
  return callMethod("dynamicslice", args,
                    {{"axes", axes}, {"sizes", sizes}, {"noOverlap", static_cast<int64_t>(noOverlap)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::dynamicupdate(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                                          const std::vector<int64_t>& sizes, bool noOverlap, const DebugContext& dc) {
  return callMethod("dynamicupdate", args,
                    {{"axes", axes}, {"sizes", sizes}, {"noOverlap", static_cast<int64_t>(noOverlap)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::dynamiczero(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                                        const std::vector<int64_t>& sizes, const DebugContext& dc) {
  return callMethod("dynamiczero", args, {{"axes", axes}, {"sizes", sizes}}, dc)[0];
}

TensorId AiGraphcoreOpset1::dynamicadd(const std::vector<TensorId>& args, const std::vector<int64_t>& axes,
                                       const std::vector<int64_t>& sizes, const DebugContext& dc) {
  return callMethod("dynamicadd", args, {{"axes", axes}, {"sizes", sizes}}, dc)[0];
}

TensorId AiGraphcoreOpset1::sequenceslice(const std::vector<TensorId>& args, bool zeroUnused, const DebugContext& dc) {
  return callMethod("sequenceslice", args, {{"zeroUnused", static_cast<int64_t>(zeroUnused)}}, dc)[0];
}

TensorId AiGraphcoreOpset1::packedDataBlock(const std::vector<TensorId>& args,
                                            const std::vector<int64_t>& maxSequenceLengths, int64_t resultSize,
                                            int64_t callbackBatchSize, const Builder& callback,
                                            const DebugContext& dc) {
  return callMethod("packedDataBlock", args,
                    {{"maxSequenceLengths", maxSequenceLengths},
                     {"resultSize", resultSize},
                     {"callbackBatchSize", callbackBatchSize}},
                    {{"callback", &callback}}, dc)[0];
}

std::vector<TensorId> AiGraphcoreOpset1::call(const std::vector<TensorId>& args, unsigned num_outputs,
                                              const Builder& callee, const DebugContext& dc) {
  return callMethod("call", args, {{"num_outputs", static_cast<int64_t>(num_outputs)}}, {{"callee", &callee}}, dc);
}

TensorId AiGraphcoreOpset1::scatterreduce(const std::vector<TensorId>& args, int64_t axis_size, int64_t axis,
                                          ScatterReduction reduction, bool enable_index_broadcast,
                                          const DebugContext& dc) {
  return callMethod("scatterreduce", args,
                    {{"axis_size", axis_size},
                     {"axis", axis},
                     {"reduction", enumToString(reduction)},
                     {"enable_index_broadcast", static_cast<int64_t>(enable_index_broadcast)}},
                    dc)[0];
}

TensorId AiGraphcoreOpset1::groupedscatterreduce(const std::vector<TensorId>& args, int64_t axis_size, int64_t axis,
                                                 ScatterReduction reduction, int64_t group_size,
                                                 bool enable_index_broadcast, const DebugContext& dc) {
  return callMethod("groupedscatterreduce", args,
                    {{"axis_size", axis_size},
                     {"axis", axis},
                     {"reduction", enumToString(reduction)},
                     {"group_size", group_size},
                     {"enable_index_broadcast", static_cast<int64_t>(enable_index_broadcast)}},
                    dc)[0];
}

TensorId AiGraphcoreOpset1::groupedgather(const std::vector<TensorId>& args, int64_t axis, int64_t group_size,
                                          const DebugContext& dc) {
  return callMethod("groupedgather", args, {{"axis", axis}, {"group_size", group_size}}, dc)[0];
}

TensorId AiGraphcoreOpset1::bucketize(const std::vector<TensorId>& args, bool right, const DebugContext& dc) {
  return callMethod("bucketize", args, {{"right", static_cast<int64_t>(right)}}, dc)[0];
}

std::vector<TensorId> AiGraphcoreOpset1::sort(const std::vector<TensorId>& args, int64_t axis, bool descending,
                                              bool stable, const DebugContext& dc) {
  return callMethod(
      "sort", args,
      {{"axis", axis}, {"descending", static_cast<int64_t>(descending)}, {"stable", static_cast<int64_t>(stable)}}, dc);
}

std::vector<TensorId> AiGraphcoreOpset1::reducemedian(const std::vector<TensorId>& args,
                                                      const nonstd::optional<std::vector<int64_t>>& axes, bool keepdims,
                                                      const DebugContext& dc) {
  std::map<std::string, OptionValue> a{{"keepdims", static_cast<int64_t>(keepdims)}};
  if (axes) a["axes"] = *axes;
  return callMethod("reducemedian", args, a, dc);
}

std::vector<TensorId> AiGraphcoreOpset1::lstm(const std::vector<TensorId>& args, int64_t outputFullSequence,
                                              const DebugContext& dc) {
  return callMethod("lstm", args, {{"outputFullSequence", outputFullSequence}}, dc);
}

namespace {
std::map<std::string, OptionValue> ctcArgs(ReductionType reduction, unsigned blank, const std::string& outDataType,
                                           bool zeroInfinity) {
  return {{"reduction", enumToString(reduction)},
          {"blank", static_cast<int64_t>(blank)},
          {"outDataType", outDataType},
          {"zeroInfinity", zeroInfinity}};
}
}  // namespace

TensorId AiGraphcoreOpset1::ctcloss(const std::vector<TensorId>& args, ReductionType reduction, unsigned blank,
                                    const std::string& outDataType, bool zeroInfinity, const DebugContext& dc) {
  return callMethod("ctcloss", args, ctcArgs(reduction, blank, outDataType, zeroInfinity), dc)[0];
}

std::vector<TensorId> AiGraphcoreOpset1::_ctcloss(const std::vector<TensorId>& args, ReductionType reduction,
                                                  unsigned blank, const std::string& outDataType, bool zeroInfinity,
                                                  const DebugContext& dc) {
  return callMethod("_ctcloss", args, ctcArgs(reduction, blank, outDataType, zeroInfinity), dc);
}

std::vector<TensorId> AiGraphcoreOpset1::ctcbeamsearchdecoder(const std::vector<TensorId>& args, unsigned blank,
                                                              unsigned beamWidth, unsigned topPaths,
                                                              const DebugContext& dc) {
  return callMethod(
      "ctcbeamsearchdecoder", args,
      {{"blank", static_cast<int64_t>(blank)}, {"beamWidth", int64_t{beamWidth}}, {"topPaths", int64_t{topPaths}}}, dc);
}

// ---------------------------------------------------------------- Builder

Builder::Builder() : impl_(std::make_unique<BuilderImpl>()) {}
Builder::~Builder() = default;

std::unique_ptr<Builder> Builder::create() {
  return std::unique_ptr<Builder>(new Builder());
}

std::unique_ptr<Builder> Builder::createFromOnnxModel(const std::string& modelProtoOrFilename) {
  auto b = create();
  b->impl_->loadModelProto(modelProtoOrFilename);
  return b;
}

Builder& Builder::createSubgraphBuilder() {
  std::unique_ptr<Builder> child(new Builder());
  child->impl_ = std::make_unique<BuilderImpl>(impl_.get());
  child->parent_ = this;
  for (const auto& o : impl_->model().opset_import())
    child->impl_->addOpsetRequirement(o.domain(), static_cast<int>(o.version()));
  children_.push_back(std::move(child));
  return *children_.back();
}

void Builder::setGraphName(const std::string& name) {
  impl_->setGraphName(name);
}

void Builder::embedReplicationFactor(int replicationFactor) {
  if (replicationFactor < 1)
    throw error("embedReplicationFactor: the replication factor must be at least 1, got {}", replicationFactor);
  impl_->setModelProperty("__replication_factor", std::to_string(replicationFactor));
}

TensorId Builder::addInputTensor(const TensorInfo& info, const DebugContext& dc) {
  return impl_->addInputTensor(info, dc);
}

TensorId Builder::addInputTensor(const std::string& dataType, const Shape& shape, const DebugContext& dc) {
  TensorInfo info;
  try {
    info = TensorInfo(dataType, shape);
  } catch (const error& e) {  // the message first, then which input it is
    throw error("{} (addInputTensor: the input {}declared {} {})", e.what(),
                dc.empty() ? std::string() : "'" + dc.getPathName() + "' ", dataType, shape);
  }
  return impl_->addInputTensor(info, dc);
}

TensorId Builder::addUntypedInputTensor(const DebugContext& dc) {
  return impl_->addUntypedInputTensor(dc);
}
void Builder::addInputTensorFromParentGraph(const TensorId& id) {
  impl_->addInputTensorFromParentGraph(id);
}

TensorId Builder::addInitializedInputTensor(const ConstVoidData& initData, const DebugContext& dc) {
  return impl_->addInitializedInputTensor(initData, dc);
}

TensorId Builder::addInitializedInputTensor(const ConstVoidData& initData, const VariableSettings& settings,
                                            const DebugContext& dc) {
  settings.verify();
  const TensorId id = impl_->addInitializedInputTensor(initData, dc);
  impl_->setInputSetting(sVariableSettings, id, settings.serialize());
  return id;
}

namespace {
/// Records an input's non-default InputSettings in the model.
void recordInputSettings(BuilderImpl& impl, const TensorId& id, const InputSettings& settings) {
  if (settings.replicatedStreamMode() != ReplicatedStreamMode::Replicate)
    impl.setInputSetting(sReplicatedStreamMode, id, enumToString(settings.replicatedStreamMode()));
  if (settings.tileSet() != TileSet::Compute)
    impl.setInputSetting(sTileSetAttribute, id, enumToString(settings.tileSet()));
  if (settings.exchangeStrategy() != ExchangeStrategy::JustInTime)
    impl.setInputSetting(sExchangeStrategyAttribute, id, enumToString(settings.exchangeStrategy()));
}
}  // namespace

TensorId Builder::addInputTensor(const TensorInfo& info, const InputSettings& settings, const DebugContext& dc) {
  const TensorId id = impl_->addInputTensor(info, dc);
  recordInputSettings(*impl_, id, settings);
  return id;
}

TensorId Builder::addInputTensor(const std::string& dataType, const Shape& shape, const InputSettings& settings,
                                 const DebugContext& dc) {
  const TensorId id = addInputTensor(dataType, shape, dc);
  recordInputSettings(*impl_, id, settings);
  return id;
}

void Builder::addOutputTensor(const TensorId& id) {
  impl_->addOutputTensor(id);
}

std::vector<TensorId> Builder::customOp(const OperatorIdentifier& opid, int opsetVersion,
                                        const std::vector<TensorId>& inputs, unsigned numOutputs,
                                        const std::map<std::string, any>& attributes, const DebugContext& dc) {
  impl_->addOpsetRequirement(opid.domain, opsetVersion);
  return impl_->op(opid.domain, opsetVersion, opid.type, inputs, numOutputs, attributes, dc, 0, -1);
}

void Builder::customOp(const OperatorIdentifier& opid, int opsetVersion, const std::vector<TensorId>& inputs,
                       const std::vector<TensorId>& outputs, const std::map<std::string, any>& attributes,
                       const DebugContext& dc) {
  impl_->addOpsetRequirement(opid.domain, opsetVersion);
  impl_->op(opid.domain, opsetVersion, opid.type, inputs, static_cast<unsigned>(outputs.size()), attributes, dc, 0, -1,
            &outputs);
}

TensorId Builder::add(const TensorId& a, const TensorId& b, const DebugContext& debugContext) {
  const int v = getOnnxOpsetVersion();
  return opsetOp("ai.onnx", v > 0 ? v : static_cast<int>(defaultAiOnnxOpset), "Add", {a, b}, 1, {}, debugContext, 2, 2)
      .at(0);
}

void Builder::useOpset(const std::string& domain, int version) {
  impl_->addOpsetRequirement(domain, version);
}

std::vector<TensorId> Builder::opsetOp(const std::string& domain, int version, const std::string& opType,
                                       const std::vector<TensorId>& inputs, unsigned numOutputs,
                                       const std::map<std::string, any>& attributes, const DebugContext& dc,
                                       int minInputs, int maxInputs) {
  impl_->addOpsetRequirement(domain, version);
  impl_->verifyWindowParameters(domain, opType, inputs, attributes);
  return impl_->op(domain, version, opType, inputs, numOutputs, attributes, dc, minInputs, maxInputs);
}

// ---- node attributes
void Builder::addNodeAttribute(const std::string& n, int64_t v, const std::set<TensorId>& o) {
  impl_->addNodeAttribute(n, v, o);
}
void Builder::addNodeAttribute(const std::string& n, const std::vector<int64_t>& v, const std::set<TensorId>& o) {
  impl_->addNodeAttribute(n, v, o);
}
void Builder::addNodeAttribute(const std::string& n, float v, const std::set<TensorId>& o) {
  impl_->addNodeAttribute(n, v, o);
}
void Builder::addNodeAttribute(const std::string& n, const std::vector<float>& v, const std::set<TensorId>& o) {
  impl_->addNodeAttribute(n, v, o);
}
void Builder::addNodeAttribute(const std::string& n, const std::string& v, const std::set<TensorId>& o) {
  impl_->addNodeAttribute(n, v, o);
}
void Builder::addNodeAttribute(const std::string& n, const char* v, const std::set<TensorId>& o) {
  impl_->addNodeAttribute(n, std::string(v), o);
}
void Builder::addNodeAttribute(const std::string& n, const std::vector<std::string>& v, const std::set<TensorId>& o) {
  impl_->addNodeAttribute(n, v, o);
}
bool Builder::nodeHasAttribute(const std::string& n, const std::set<TensorId>& o) {
  return impl_->nodeHasAttribute(n, o);
}

namespace {
const onnx::AttributeProto& typed(const onnx::AttributeProto& a, onnx::AttributeProto::AttributeType t,
                                  const char* what) {
  if (a.type() != t) throw error("Attribute {} is not {}", a.name(), what);
  return a;
}
}  // namespace

int64_t Builder::getInt64NodeAttribute(const std::string& n, const std::set<TensorId>& o) {
  return typed(impl_->getNodeAttribute(n, o), onnx::AttributeProto::INT, "an int").i();
}
std::vector<int64_t> Builder::getInt64VectorNodeAttribute(const std::string& n, const std::set<TensorId>& o) {
  const auto& a = typed(impl_->getNodeAttribute(n, o), onnx::AttributeProto::INTS, "an int vector");
  return {a.ints().begin(), a.ints().end()};
}
float Builder::getFloatNodeAttribute(const std::string& n, const std::set<TensorId>& o) {
  return typed(impl_->getNodeAttribute(n, o), onnx::AttributeProto::FLOAT, "a float").f();
}
std::vector<float> Builder::getFloatVectorNodeAttribute(const std::string& n, const std::set<TensorId>& o) {
  const auto& a = typed(impl_->getNodeAttribute(n, o), onnx::AttributeProto::FLOATS, "a float vector");
  return {a.floats().begin(), a.floats().end()};
}
std::string Builder::getStringNodeAttribute(const std::string& n, const std::set<TensorId>& o) {
  return typed(impl_->getNodeAttribute(n, o), onnx::AttributeProto::STRING, "a string").s();
}
std::vector<std::string> Builder::getStringVectorNodeAttribute(const std::string& n, const std::set<TensorId>& o) {
  const auto& a = typed(impl_->getNodeAttribute(n, o), onnx::AttributeProto::STRINGS, "a string vector");
  return {a.strings().begin(), a.strings().end()};
}
void Builder::removeNodeAttribute(const std::string& n, const std::set<TensorId>& o) {
  impl_->removeNodeAttribute(n, o);
}
std::vector<std::string> Builder::getAllNodeAttributeNames(const std::set<TensorId>& o) {
  return impl_->getAllNodeAttributeNames(o);
}

// ---- scoped attributes
void Builder::setAttribute(const std::string& name, any value) {
  impl_->scopedAttributes[name] = std::move(value);
}
any Builder::getAttribute(const std::string& name) const {
  auto it = impl_->scopedAttributes.find(name);
  if (it == impl_->scopedAttributes.end()) throw error("Attribute {} is not set", name);
  return it->second;
}
bool Builder::hasAttribute(const std::string& name) const {
  return impl_->scopedAttributes.count(name) != 0;
}
void Builder::clearAttribute(const std::string& name) {
  impl_->scopedAttributes.erase(name);
}

void Builder::virtualGraph(const TensorId& id, int64_t value) {
  virtualGraph(std::set<TensorId>{id}, value);
}
void Builder::virtualGraph(const std::set<TensorId>& ids, int64_t value) {
  impl_->setNodeAttribute(sVirtualGraphAttribute, value, ids);
}
int64_t Builder::getVirtualGraph(const TensorId& id) {
  return getInt64NodeAttribute(sVirtualGraphAttribute, {id});
}
int64_t Builder::getVirtualGraph(const std::set<TensorId>& ids) {
  return getInt64NodeAttribute(sVirtualGraphAttribute, ids);
}
void Builder::pipelineStage(const TensorId& id, int64_t value) {
  pipelineStage(std::set<TensorId>{id}, value);
}
void Builder::pipelineStage(const std::set<TensorId>& ids, int64_t value) {
  impl_->setNodeAttribute(sPipelineStageAttribute, value, ids);
}
namespace {
int64_t scopedInt(const std::map<std::string, any>& scoped, const char* name, const char* what) {
  auto it = scoped.find(name);
  if (it == scoped.end()) throw error("{} not set in current scope.", what);
  if (const auto* v = std::any_cast<int64_t>(&it->second)) return *v;
  if (const auto* v = std::any_cast<int>(&it->second)) return *v;
  throw error("{} of the current scope is not an integer", what);
}
}  // namespace

int64_t Builder::getVirtualGraph() const {
  return scopedInt(impl_->scopedAttributes, sVirtualGraphAttribute, "Virtual graph");
}
int64_t Builder::getPipelineStage() const {
  return scopedInt(impl_->scopedAttributes, sPipelineStageAttribute, "Pipeline stage");
}
int64_t Builder::getExecutionPhase() const {
  return scopedInt(impl_->scopedAttributes, sExecutionPhaseAttribute, "Execution phase");
}
int64_t Builder::getPipelineStage(const TensorId& id) {
  return getInt64NodeAttribute(sPipelineStageAttribute, {id});
}
int64_t Builder::getPipelineStage(const std::set<TensorId>& ids) {
  return getInt64NodeAttribute(sPipelineStageAttribute, ids);
}
void Builder::executionPhase(const TensorId& id, int64_t value) {
  executionPhase(std::set<TensorId>{id}, value);
}
void Builder::executionPhase(const std::set<TensorId>& ids, int64_t value) {
  impl_->setNodeAttribute(sExecutionPhaseAttribute, value, ids);
}
int64_t Builder::getExecutionPhase(const TensorId& id) {
  return getInt64NodeAttribute(sExecutionPhaseAttribute, {id});
}
int64_t Builder::getExecutionPhase(const std::set<TensorId>& ids) {
  return getInt64NodeAttribute(sExecutionPhaseAttribute, ids);
}
void Builder::recomputeOutputInBackwardPass(const TensorId& id, int64_t value) {
  if (value < 0 || value >= static_cast<int64_t>(RecomputeType::N))
    throw error(
        "recomputeOutputInBackwardPass: {} is not a RecomputeType (0 Undefined, 1 Checkpoint, 2 Recompute, "
        "3 Recomputed)",
        value);
  const std::set<TensorId> ids{id};
  impl_->setNodeAttribute(sRecomputeOutputAttribute, value, ids);
}
void Builder::recomputeOutputInBackwardPass(const TensorId& id, RecomputeType value) {
  recomputeOutputInBackwardPass(id, static_cast<int64_t>(value));
}
void Builder::recomputeOutputInBackwardPass(const std::set<TensorId>& ids, RecomputeType value) {
  for (const auto& id : ids) recomputeOutputInBackwardPass(id, static_cast<int64_t>(value));
}
std::vector<TensorId> Builder::checkpointOutput(const std::vector<TensorId>& ids) {
  std::vector<TensorId> out;
  const int v = getOnnxOpsetVersion();
  for (const auto& id : ids) {
    out.push_back(opsetOp("ai.onnx", v > 0 ? v : static_cast<int>(defaultAiOnnxOpset), "Identity", {id}, 1, {},
                          DebugContext("checkpoint"), 1, 1)
                      .at(0));
    recomputeOutputInBackwardPass(out.back(), RecomputeType::Checkpoint);
    // As PopART: the patterns that remove an Identity leave the checkpoint in place.
    addNodeAttribute(sExcludePatternsAttribute, std::vector<std::string>{"PreUniRepl", "PostNRepl"}, {out.back()});
  }
  return out;
}
void Builder::setAvailableMemoryProportion(const TensorId& id, float p) {
  if (p > 1.0f || !(p > 0.0f)) throw error("availableMemoryProportion must be in (0,1]");  // PopART's words
  const std::set<TensorId> ids{id};
  impl_->setNodeAttribute(sAvailMemAttribute, p, ids);
}
void Builder::setInplacePreferences(const TensorId& id, const std::map<std::string, float>& prefs) {
  std::vector<std::string> names;
  std::vector<float> priorities;
  for (const auto& kv : prefs) {
    names.push_back(kv.first);
    priorities.push_back(kv.second);
  }
  const std::set<TensorId> ids{id};
  impl_->setNodeAttribute(sInplaceOpNames, names, ids);
  impl_->setNodeAttribute(sInplaceOpPriorities, priorities, ids);
}
void Builder::setPartialsType(const TensorId& id, const std::string& t) {
  if (t != "FLOAT" && t != "HALF" && t != "float" && t != "half")
    throw error("Partials type must be FLOAT or HALF, got {}", t);
  const std::set<TensorId> ids{id};
  impl_->setNodeAttribute(sPartialsTypeAttribute, t, ids);
}
void Builder::setEnableConvDithering(const TensorId& id, int64_t value) {
  const std::set<TensorId> ids{id};
  const std::string& type = impl_->findNode(ids).op_type();
  if (type != "Conv")
    throw error("Builder::setEnableConvDithering should only be called on convolutions but was given: {}", type);
  if (value != 0 && value != 1) throw error("enableConvDithering must be a bool value");
  impl_->setNodeAttribute(sEnableConvDitheringAttribute, value, ids);
}
void Builder::setSerializeMatMul(const std::set<TensorId>& ids, const std::string& mode, int64_t factor,
                                 bool keepPrecision) {
  if (mode != "input_channels" && mode != "output_channels" && mode != "reducing_dim" && mode != "none")
    throw error(
        "Unsupported mat mul serialization mode '{}'. Supported modes are 'input_channels', "
        "'reducing_dim', 'output_channels' or 'none'",
        mode);
  addNodeAttribute(sSerializeMatMulModeAttribute, mode, ids);
  addNodeAttribute(sSerializeMatMulFactorAttribute, factor, ids);
  addNodeAttribute(sSerializeMatMulPrecisionAttribute, static_cast<int64_t>(keepPrecision), ids);
}
void Builder::excludePatterns(const TensorId& id, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    try {
      Patterns::checkName(n);
    } catch (const pattern_error& e) {
      throw pattern_error("Invalid pattern name '{}' in Op::excludePatterns ({})", n, e.what());
    }
  }
  addNodeAttribute(sExcludePatternsAttribute, names, {id});
}

// ---- name scopes
void Builder::pushNameScope(const std::string& name) {
  impl_->nameScopes.push_back(name);
}
void Builder::popNameScope() {
  if (impl_->nameScopes.empty()) throw error("popNameScope: no name scope to pop");
  impl_->nameScopes.pop_back();
}
std::string Builder::getNameScope(const std::string& name) const {
  std::string s;
  for (const auto& n : impl_->nameScopes) s += n + sNameDelimiter;
  return s + name;
}

// ---- introspection
std::string Builder::getModelProto(bool humanReadable) const {
  return humanReadable ? impl_->humanReadable() : impl_->serialize();
}
void Builder::saveModelProto(const std::string& fn) {
  writeFileAtomically(fn, impl_->serialize());
}
void Builder::saveInitializersExternally(const std::vector<TensorId>& ids, const std::string& fn) {
  popart::saveInitializersExternally(impl_->model(), ids, fn);
}
std::string Builder::saveInitializersExternallyToBytes(const std::vector<TensorId>& ids, const std::string& location) {
  return initializersToExternalData(impl_->model(), ids, location);
}
std::vector<TensorId> Builder::getInputTensorIds() const {
  return impl_->inputIds();
}
std::vector<TensorId> Builder::getOutputTensorIds() const {
  return impl_->outputIds();
}
std::vector<TensorId> Builder::getValueTensorIds() const {
  return impl_->valueIds();
}
std::vector<TensorId> Builder::getTrainableTensorIds() const {
  return impl_->trainableIds();
}
bool Builder::hasValueInfo(const TensorId& id) const {
  return impl_->info(id) != nullptr;
}

Shape Builder::getTensorShape(const TensorId& id) {
  if (!impl_->knows(id)) {
    std::string all;
    for (const auto& v : impl_->inputIds()) all += (all.empty() ? "" : ", ") + v;
    for (const auto& v : impl_->valueIds()) all += (all.empty() ? "" : ", ") + v;
    throw error("{} is not an input or output tensor. Must be one of {}", id, all);
  }
  const TensorInfo* i = impl_->info(id);
  if (!i) throw error("The shape of tensor '{}' could not be inferred", id);
  return i->shape();
}

DataType Builder::getTensorDataType(const TensorId& id) {
  getTensorShape(id);  // same checks
  return impl_->info(id)->dataType();
}

std::string Builder::getTensorDtypeString(const TensorId& id) {
  return dataTypeToLcaseString(getTensorDataType(id));
}

bool Builder::isInitializer(const TensorId& id) const {
  return impl_->isInitializer(id);
}
int Builder::getOnnxOpsetVersion() const {
  return impl_->getOpsetVersion("ai.onnx");
}

}  // namespace popart
