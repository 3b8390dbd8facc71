// The IR's own steps: ONNX import (initializers, inputs, nodes with shape inference and constant
// folding), anchor validation, pruning and scheduling. passes/prepare.cpp runs them in order with
// the training graph and the patterns between.
#include "ir/ir.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "ir/placement.hpp"
#include "ir/runtime_info.hpp"
#include "onnx.pb.h"
#include "onnx/attributes_io.hpp"
#include "onnx/model_io.hpp"
#include "popart/builder.hpp"  // RecomputeType
#include "popart/error.hpp"
#include "popart/error_context.hpp"
#include "popart/logging.hpp"
#include "popart/optimizer.hpp"
#include "popart/reflection.hpp"

namespace popart {

namespace {
constexpr int kMinOnnxOpset = 1;
constexpr int kMaxOnnxOpset = 17;

const onnx::AttributeProto* findAttribute(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

/// A node as the placement errors name it: "Type 'name'".
std::string nodeName(const onnx::NodeProto& n) {
  return n.op_type() + " '" + n.name() + "'";
}

/// An integer annotation of the node (virtual graph, pipeline stage), -1 when absent.
int64_t annotation(const onnx::NodeProto& n, const char* name) {
  const onnx::AttributeProto* a = findAttribute(n, name);
  return a ? a->i() : -1;
}

/// PopART's check for VirtualGraphMode::Manual: every op of the main graph placed, or none
/// (Constant nodes become tensors and are not counted).
void checkManualPlacement(const onnx::GraphProto& g) {
  std::map<int64_t, int> count;
  std::vector<const onnx::NodeProto*> unplaced;
  for (const auto& n : g.node()) {
    if (n.op_type() == "Constant") continue;
    const onnx::AttributeProto* a = findAttribute(n, sVirtualGraphAttribute);
    ++count[a ? a->i() : -1];
    if (!a) unplaced.push_back(&n);
  }
  if (unplaced.empty() || count.size() < 2) return;
  std::ostringstream m;
  m << "Either all Ops in the main graph must have their virtual graph ids set, or none must. Op count per virtual "
       "graph id\n";
  for (const auto& kv : count) m << "  " << kv.first << " : " << kv.second << "\n";
  m << "Ops with no virtual graph id :  \n";
  for (const auto* n : unplaced) m << "  " << nodeName(*n) << "\n";
  throw error(m.str());
}

/// PopART's pipeline-stage checks of a manually placed model: every op has a stage or none has
/// (then the virtual graphs are the stages), and the ops of a stage share one virtual graph.
void checkPipelineStages(const onnx::GraphProto& g) {
  std::map<int64_t, std::vector<const onnx::NodeProto*>> byStage;
  for (const auto& n : g.node()) {
    if (n.op_type() == "Constant") continue;  // a tensor, not an op
    byStage[annotation(n, sPipelineStageAttribute)].push_back(&n);
  }
  auto unset = byStage.find(-1);
  if (unset != byStage.end() && byStage.size() > 1) {
    std::ostringstream m;
    m << "Only some ops have had their pipeline stage set. Ops missing the pipeline stage:";
    for (const auto* n : unset->second) m << "\n  " << nodeName(*n);
    throw error(m.str());
  }
  if (unset != byStage.end()) return;
  for (const auto& [stage, nodes] : byStage) {
    std::set<int64_t> vgraphs;
    for (const auto* n : nodes) vgraphs.insert(annotation(*n, sVirtualGraphAttribute));
    if (vgraphs.size() < 2) continue;
    std::vector<std::string> names;
    for (const auto* n : nodes) names.push_back(nodeName(*n));
    throw error(
        "Ops {} have the same pipeline stage {}, but different virtual graph ids {}. All ops with the same pipeline "
        "stage must also have the same virtual graph id",
        names, stage, std::vector<int64_t>(vgraphs.begin(), vgraphs.end()));
  }
}

/// PopART's execution-phase checks (Ir::verifyExecutionPhaseSettings, the StreamingMemory
/// transform's phase range and placement consistency), on the model's annotations.
void checkExecutionPhases(const onnx::GraphProto& g, const SessionOptions& o) {
  const ExecutionPhaseSettings& s = o.executionPhaseSettings;
  if (s.phases > 1 && o.virtualGraphMode != VirtualGraphMode::ExecutionPhases)
    throw error("> 1 execution phases requires VirtualGraphMode::ExecutionPhases");
  if ((o.virtualGraphMode == VirtualGraphMode::ExecutionPhases && s.phases == 0) || s.phases == 1)
    logging::ir::warn(
        "Phased execution was enabled but only {} phases were defined. Phased execution only works with >=2 phases. "
        "Disabling.",
        s.phases);
  if (!phasedExecution(o)) return;
  if (s.stages < 1) throw error("executionPhaseSettings.stages must be at least 1 (it is {})", s.stages);
  for (const auto& n : g.node()) {
    if (!findAttribute(n, sExecutionPhaseAttribute)) continue;
    const int64_t phase = annotation(n, sExecutionPhaseAttribute), vgraph = annotation(n, sVirtualGraphAttribute);
    if (phase < 0 || phase >= s.phases)
      throw error("[StreamingMemory] Maximum phase is {}, but op {} has phase {}.", s.phases - 1, nodeName(n), phase);
    if (vgraph >= 0 && phase % s.stages != vgraph % s.stages)
      throw error("[StreamingMemory] Op {} inconsistent execution phase {} and virtual graph ID {}", nodeName(n), phase,
                  vgraph);
  }
}

/// PopART refuses recomputation chosen both ways (autoRecomputation and a node annotation).
void checkRecomputeMix(const onnx::GraphProto& g, const SessionOptions& o) {
  if (o.autoRecomputation == RecomputationType::None) return;
  for (const auto& n : g.node()) {
    const onnx::AttributeProto* a = findAttribute(n, sRecomputeOutputAttribute);
    if (a && a->i() == static_cast<int64_t>(RecomputeType::Recompute))
      throw error("A mixture of auto and manual recomputaion is not supported");
  }
}

/// PopART's Pipeline transform refuses the Builder's Recompute marks under (implicit) pipelining.
void checkPipelinedRecompute(const onnx::GraphProto& g, const SessionOptions& o) {
  if (!o.enablePipelining) return;
  for (const auto& n : g.node()) {
    const onnx::AttributeProto* a = findAttribute(n, sRecomputeOutputAttribute);
    if (a && a->i() == static_cast<int64_t>(RecomputeType::Recompute))
      throw error("When pipelining is enabled, user annotation for recomputation is not allowed");
  }
}
}  // namespace

Ir::Ir() = default;
Ir::~Ir() = default;

int Ir::opsetVersion(const std::string& domain) const {
  auto it = opsets_.find(canonicalDomain(domain));
  return it == opsets_.end() ? 0 : it->second;
}

bool Ir::isInitializer(const TensorId& id) const {
  return std::find(initializerIds_.begin(), initializerIds_.end(), id) != initializerIds_.end();
}

void Ir::load(const IrBundle& b) {
  if (!b.model) throw internal_error("Ir::load without a model");
  mode_ = b.mode;
  dataFlow_ = b.dataFlow;
  options_ = b.options;
  patterns_ = b.patterns;
  sessionName_ = b.sessionName;
  evaluator_ = b.evaluator;
  model_ = std::make_unique<onnx::ModelProto>(std::move(*b.model));
  main_ = std::make_unique<Graph>(*this, "");

  if (mode_ == ExecutionMode::Inference && dataFlow_.nAnchors() == 0)
    throw error("User must specify an anchor tensor when doing inference.");
  if (options_.enableGradientAccumulation && mode_ != ExecutionMode::Training)
    throw error("Gradient Accumulation only available when training.");
  if (!options_.enableGradientAccumulation && options_.accumulationFactor > 1)
    throw error(
        "enableGradientAccumulation is false, but accumulationFactor > 1. Either enable gradient "
        "accumulation, or set the accumulation factor to 1");
  if (options_.enableGradientAccumulation && options_.accumulationFactor < 1)
    throw error("accumulationFactor must be >= 1 (it is {})", options_.accumulationFactor);
  if (options_.enableReplicatedGraphs && options_.replicatedGraphCount < 1)
    throw error("replicatedGraphCount must be >= 1 (it is {})", options_.replicatedGraphCount);
  if (options_.enableDistributedReplicatedGraphs) {  // PopART's checks, in its order
    const int64_t global = options_.globalReplicationFactor, offset = options_.globalReplicaOffset;
    if (global < 1) throw error("Invalid globalReplicationFactor value: {}, must be greater or equal than 1", global);
    if (offset < 0) throw error("Invalid globalReplicaOffset value: {}, must be greater or equal than 0", offset);
    if (offset > global)
      throw error("Global replica offset: {}, is larger than global replication factor: {}", offset, global);
    if (options_.enableReplicatedGraphs) {
      if (options_.replicatedGraphCount == 1)
        throw error("Local replicated graphs enabled but replication factor is 1");
      if (options_.replicatedGraphCount > global)
        throw error("Invalid local replication factor: {}, larger than global replication factor: {}",
                    options_.replicatedGraphCount, global);
    }
    // This runtime's own, which PopART leaves to Poplar: the process's replicas fit in the whole.
    if (offset + options_.getReplicationFactor() > global)
      throw error(
          "globalReplicaOffset ({}) + the local replicas ({}) exceed globalReplicationFactor ({}): this process's "
          "replicas must be some of the global ones",
          offset, options_.getReplicationFactor(), global);
  }
  if (options_.enablePipelining && options_.virtualGraphMode == VirtualGraphMode::Off)
    throw error(
        "Pipelining requires more than 1 IPU and the 'virtualGraphMode' session option to not be "
        "VirtualGraphMode::Off.");
  patterns_.ensureAllMandatoryPreAliasPatternsAreEnabled();

  importModel(b);
  verifySettings(b);
  // After the pipelining checks (their depth errors come first, as in PopART).
  if (options_.virtualGraphMode == VirtualGraphMode::Manual) checkManualPlacement(model_->graph());
}

void checkPipelineDepth(const Ir& ir, int64_t forwardStages) {
  // PopART: the backward pass adds a stage per forward stage but the last (2F - 1 in training).
  const int64_t stages = ir.isTraining() ? 2 * forwardStages - 1 : forwardStages;
  const SessionOptions& o = ir.options();
  if (o.enableGradientAccumulation) {
    if (o.accumulationFactor < stages)
      throw error(
          "For pipelining, depth (gradient accumulation factor) must equal at least the number of pipeline stages "
          "({}). (accumulationFactor is {}; {} forward stage(s){}.)",
          stages, o.accumulationFactor, forwardStages, ir.isTraining() ? " and their backward stages" : "");
  } else if (ir.dataFlow().batchesPerStep() < stages) {
    throw error(
        "For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages ({}). "
        "(batchesPerStep is {}; {} forward stage(s){}.)",
        stages, ir.dataFlow().batchesPerStep(), forwardStages, ir.isTraining() ? " and their backward stages" : "");
  }
}

void Ir::verifySettings(const IrBundle& b) const {
  if (options_.createImplicitPipeliningFwdOnlyProgram) {  // PopART's checks, in its order
    if (!options_.enablePipelining)
      throw error("Implicit pipelining forward-only program is not supported without implicit pipelining.");
    if (options_.enableExplicitMainLoops && options_.useHostCopyOps)
      throw error("Implicit pipelining forward-only program is not supported with explicit pipelining.");
    if (!options_.enableGradientAccumulation)
      throw error("Implicit pipelining forward-only program is not supported without gradient accumulation.");
  }
  const AutomaticLossScalingSettings& als = options_.automaticLossScalingSettings;
  if (als.enabled) {  // PopART's AutomaticLossScale transform's checks, in its order
    if (mode_ != ExecutionMode::Training)
      throw error("[AutomaticLossScale transform] Only compatible when doing training");
    if (b.optimizer && b.optimizer->lossScaling().isConst()) {
      const std::string sentence = "[AutomaticLossScale transform] The optimizer must have non-const loss scaling";
      throw contextual_error(format("{} (its lossScaling {} is const)", sentence, b.optimizer->lossScaling().val()),
                             sentence);
    }
    if (options_.enablePipelining && !options_.enableGradientAccumulation)
      throw error(
          "[AutomaticLossScale transform] Automatic loss scaling is not currently supported when the "
          "'enablePipelining' SessionOption is set to 'true', but the 'enableGradientAccumulation' SessionOption is "
          "set to 'false'");
    if (!(als.binEdgeLocation >= 0 && als.binEdgeLocation <= 1))
      throw error(
          "[AutomaticLossScale transform] Out of range value for 'binEdgeLocation'. The current value is {}, but it "
          "should be in the range [0, 1].",
          als.binEdgeLocation);
    if (!(als.thresholdUpperCountProportion >= 0 && als.thresholdUpperCountProportion <= 1))
      throw error(  // PopART's LossScaleUpdateOpx message (no transform prefix)
          "Out of range value for 'thresholdUpperCountProportion'. The current value is {}, but it should be in the "
          "range [0, 1].",
          als.thresholdUpperCountProportion);
    if (als.updatePeriod < 1)
      throw error(
          "[AutomaticLossScale transform] Out of range value for 'updatePeriod'. The current value is {}, but it "
          "should be at least 1.",
          als.updatePeriod);
  }
  checkExecutionPhases(model_->graph(), options_);
  if (mode_ == ExecutionMode::Training) checkRecomputeMix(model_->graph(), options_);
  checkPipelinedRecompute(model_->graph(), options_);
  if (!options_.enablePipelining || options_.virtualGraphMode != VirtualGraphMode::Manual) return;
  // Manual placement: the stages are known from the annotations (Auto: the AutoVirtualGraph pass
  // splits the graph after autodiff and checks the depth there, passes/auto_virtual_graph.hpp).
  int64_t maxStage = -1, maxVGraph = -1;
  for (const auto& n : model_->graph().node()) {
    for (const auto& a : n.attribute()) {
      if (a.name() == sPipelineStageAttribute) maxStage = std::max<int64_t>(maxStage, a.i());
      if (a.name() == sVirtualGraphAttribute) maxVGraph = std::max<int64_t>(maxVGraph, a.i());
    }
  }
  if (maxVGraph + 1 == 1)
    throw error(
        "Pipelining requires more than 1 IPU and the 'virtualGraphMode' session option to not be "
        "VirtualGraphMode::Off. (Every op of the model is on virtual graph 0.)");
  if (maxVGraph < 0) return;  // no annotation: the IPU model reports it
  checkPipelineStages(model_->graph());
  checkPipelineDepth(*this, maxStage >= 0 ? maxStage + 1 : maxVGraph + 1);
}

void Ir::importModel(const IrBundle& b) {
  const auto& m = *model_;
  for (const auto& o : m.opset_import()) opsets_[canonicalDomain(o.domain())] = static_cast<int>(o.version());
  if (m.opset_import_size() == 0) opsets_[Domain::ai_onnx] = 1;  // IR version < 3
  const int onnxOpset = opsetVersion(Domain::ai_onnx);
  if (opsets_.count(Domain::ai_onnx) && (onnxOpset < kMinOnnxOpset || onnxOpset > kMaxOnnxOpset))
    throw error(
        "Unsupported opset: the model imports ai.onnx opset {}, and this runtime supports ai.onnx "
        "opsets {} to {}",
        onnxOpset, kMinOnnxOpset, kMaxOnnxOpset);
  const int gcOpset = opsetVersion(Domain::ai_graphcore);
  if (opsets_.count(Domain::ai_graphcore) && gcOpset != 1)
    throw error("Unsupported opset: the model imports ai.graphcore opset {}, and this runtime supports only 1",
                gcOpset);

  const int trainingOpset = opsetVersion(kPreviewTrainingDomain);
  if (opsets_.count(kPreviewTrainingDomain) && trainingOpset != 1)
    throw error("Unsupported opset: the model imports {} opset {}, and this runtime supports only 1",
                kPreviewTrainingDomain, trainingOpset);

  registerInitializers(b);
  registerInputs(b);
  importNodes(m.graph(), *main_);
  for (const auto& o : m.graph().output()) main_->outputIds.push_back(o.name());
  anchorStructValues();
}

const std::string* Ir::inputSetting(const char* name, const TensorId& id) const {
  const std::string key = std::string(name) + ":" + id;
  for (const auto& p : model_->metadata_props()) {
    if (p.key() == key) return &p.value();
  }
  return nullptr;
}

void Ir::registerInitializers(const IrBundle& b) {
  auto& g = *model_->mutable_graph();
  // With constantWeights (the default) an inference session may not change weights, so they
  // are constants and can be folded. Training sessions and constantWeights=false keep
  // floating-point initializers as weights; integer ones (shapes, indices) are never trained.
  const bool weightsAreConst = mode_ == ExecutionMode::Inference && options_.constantWeights;
  for (auto& tp : *g.mutable_initializer()) {
    // Big weights: the tensor takes the proto's bytes (no copy); exports refill the proto from it.
    const bool big = tp.has_raw_data() && tp.raw_data().size() > 4096;
    TensorData d;
    try {
      d = big ? takeTensorFromProto(tp, b.modelBaseDir) : tensorFromProto(tp, b.modelBaseDir);
    } catch (const error& e) {
      throw error("Invalid initializer '{}': {}", tp.name(), e.what());
    }
    // VariableSettings (Builder::addInitializedInputTensor): with more than one replica group
    // the initializer holds one value per group, [groups] + the per-replica shape.
    std::optional<VariableSettings> settings;
    unsigned groups = 1;
    TensorInfo replicaInfo = d.info();
    if (const std::string* text = inputSetting(sVariableSettings, tp.name())) {
      try {
        // Groups are over every replica of the session (every process's, when distributed).
        const auto replicas = static_cast<unsigned>(options_.getGlobalReplicationFactor());
        settings = VariableSettings::deserialize(*text);
        groups = settings->getGroupCount(replicas);
        replicaInfo = TensorInfo(d.info().dataType(), settings->shapeOnReplica(d.info().shape(), replicas, tp.name()));
      } catch (const error& e) {
        std::string embedded;
        for (const auto& p : model_->metadata_props()) {
          if (p.key() == "__replication_factor" && p.value() != std::to_string(options_.getGlobalReplicationFactor()))
            embedded =
                format("; the model was built for replication factor {} (Builder.embedReplicationFactor)", p.value());
        }
        throw error("{} (the VariableSettings of weight '{}', at replication factor {}{})", e.what(), tp.name(),
                    options_.getGlobalReplicationFactor(), embedded);
      }
    }
    const bool trainableType = isFloatingPoint(d.info().dataType());
    // Replicas of different groups run with different values: a grouped weight is never a
    // constant folded into the graph.
    const TensorKind kind = groups > 1
                                ? TensorKind::Variable
                                : ((weightsAreConst || !trainableType) ? TensorKind::Const : TensorKind::Variable);
    if (main_->hasTensor(tp.name())) throw error("Invalid ONNX model: initializer '{}' is defined twice", tp.name());
    Tensor& t = main_->addTensor(tp.name(), kind, replicaInfo);
    t.variableSettings = settings;
    if (groups > 1) {
      t.data = TensorData(replicaInfo, d.data());  // group 0 until a replica selects its own
      t.groupData = std::move(d);
    } else {
      t.data = std::move(d);
    }
    initializerIds_.push_back(tp.name());
    if (big) stripped_.insert(tp.name());
  }
}

void Ir::registerInputs(const IrBundle& b) {
  const auto& g = model_->graph();
  for (const auto& vi : g.input()) {
    if (main_->hasTensor(vi.name())) continue;  // an input with an initializer is a weight
    if (vi.type().has_sequence_type() || vi.type().has_optional_type())
      throw RunTimeInfoNeeded(
          format("Input tensor '{}' is {}: how many tensors it holds, and their shapes, are known only when it is "
                 "given. This runtime needs static shapes.",
                 vi.name(), vi.type().has_sequence_type() ? "a sequence" : "an optional value"),
          RunTimeInfoNeeded::Kind::InputShape, vi.name());
    TensorInfo info;
    if (b.inputShapeInfo.has(vi.name())) {
      info = b.inputShapeInfo.get(vi.name());
      if (!info.isSet())
        throw error("InputShapeInfo gives input tensor '{}' the type UNDEFINED: a stream input needs a data type",
                    vi.name());
    } else {
      bool ok = false;
      std::string shapeText, unknown;
      info = infoFromValueInfo(vi, &ok, &shapeText, &unknown);
      if (!ok && !unknown.empty())
        throw RunTimeInfoNeeded(format("Input tensor '{}' must be specified in InputShapeInfo, as it has shape {}, "
                                       "which uses an unknown value '{}'.",
                                       vi.name(), shapeText, unknown),
                                RunTimeInfoNeeded::Kind::InputShape, vi.name());
      if (!ok)
        throw error("Input tensor '{}' must be specified in InputShapeInfo, as it has shape {}", vi.name(), shapeText);
    }
    Tensor& t = main_->addTensor(vi.name(), TensorKind::Stream, info);
    t.streamIndex = static_cast<int>(streamIds_.size());
    if (const std::string* mode = inputSetting(sReplicatedStreamMode, vi.name())) {
      try {
        t.replicatedStreamMode = enumFromString<ReplicatedStreamMode>(*mode);
      } catch (const error& e) {
        throw error("{} (the replicated stream mode of input '{}')", e.what(), vi.name());
      }
    }
    streamIds_.push_back(vi.name());
    main_->inputIds.push_back(vi.name());
  }
  for (const auto& kv : b.inputShapeInfo.getInfos()) {
    if (!main_->hasTensor(kv.first))
      logging::ir::warn("InputShapeInfo names '{}', which is not an input of the model", kv.first);
  }
}

void Ir::importNodes(const onnx::GraphProto& g, Graph& graph) {
  // ONNX requires nodes in topological order, but some writers do not comply: sort stably.
  std::map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto& o : g.node(i).output()) {
      if (!o.empty()) producer[o] = i;
    }
  }
  std::vector<int> state(static_cast<size_t>(g.node_size()), 0);  // 0 new, 1 visiting, 2 done
  std::vector<int> order;
  std::function<void(int)> visit = [&](int i) {
    if (state[static_cast<size_t>(i)] == 2) return;
    if (state[static_cast<size_t>(i)] == 1)
      throw error("Invalid ONNX model: node '{}' ({}) is part of a cycle", g.node(i).name(), g.node(i).op_type());
    state[static_cast<size_t>(i)] = 1;
    for (const auto& in : g.node(i).input()) {
      auto it = producer.find(in);
      if (it != producer.end() && it->second != i) visit(it->second);
    }
    state[static_cast<size_t>(i)] = 2;
    order.push_back(i);
  };
  for (int i = 0; i < g.node_size(); ++i) visit(i);
  // The ops ONNX's Gradient nodes differentiate stay ops (passes/gradient_op.hpp): folded into
  // constants, they would leave no path from the tensors of 'xs' to 'y'.
  for (const auto& n : g.node()) {
    if (n.op_type() != "Gradient" || canonicalDomain(n.domain()) != kPreviewTrainingDomain) continue;
    std::set<std::string> sources;
    for (const char* attr : {"xs", "zs"}) {
      if (const onnx::AttributeProto* a = findAttribute(n, attr))
        sources.insert(a->strings().begin(), a->strings().end());
    }
    const onnx::AttributeProto* y = findAttribute(n, "y");
    std::vector<std::string> work;
    if (y) work.push_back(y->s());
    std::set<int> seen;
    while (!work.empty()) {
      const std::string t = work.back();
      work.pop_back();
      auto it = producer.find(t);
      if (sources.count(t) || it == producer.end() || !seen.insert(it->second).second) continue;
      for (const auto& o : g.node(it->second).output()) keepUnfolded_.insert(o);
      for (const auto& in : g.node(it->second).input()) work.push_back(in);
    }
  }
  // The consumers of this graph's tensors (a subgraph imported meanwhile counts its own).
  std::map<std::string, int> consumers;
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) ++consumers[in];
  }
  std::swap(consumers, importConsumers_);
  for (int i : order) importNode(g.node(i), graph);
  std::swap(consumers, importConsumers_);
}

void Ir::importNode(const onnx::NodeProto& node, Graph& graph) {
  const std::string domain = canonicalDomain(node.domain());
  const int opset = opsetVersion(domain);
  const std::string name = node.name().empty() ? node.op_type() + "_" + std::to_string(nodeCounter_) : node.name();
  ++nodeCounter_;
  if (importStructured(node, graph, name)) return;
  const OpDef* def = findOpDef(domain, node.op_type());
  if (domain == "ai.onnx" && node.op_type() == "Constant") {
    for (const auto& a : node.attribute()) {
      if (a.name() == "sparse_value") throw error("The Constant op attribute 'sparse_value' is not supported.");
    }
  }
  if (!def) {
    throw error(
        "Unknown op: node '{}' has op type '{}' in domain '{}' (opset {}), which this runtime does "
        "not support",
        name, node.op_type(), domain, opset);
  }
  if (opset == 0)
    throw error("Invalid ONNX model: node '{}' ({}) uses domain '{}', which the model does not import", name,
                node.op_type(), domain);
  if (opset < def->sinceOpset)
    throw error(
        "Unsupported opset: node '{}' ({}) is only supported from {} opset {}, but the model imports "
        "opset {}",
        name, node.op_type(), domain, def->sinceOpset, opset);

  const int nIn = checkArity(node, name, opset, def->minInputs, def->maxInputs, def->minOutputs, def->maxOutputs);
  const int nOut = node.output_size();

  const std::string missing = patterns_.disabledLoweringPattern(node.op_type(), -1);
  if (!missing.empty())
    throw error(
        "node '{}' ({}) needs PopART's pattern {}, which the session's Patterns disable. This op should have been "
        "removed by pattern {}",
        name, node.op_type(), missing, missing);
  Op& op = graph.addOp(*def, name, opset);
  op.numFormalInputs = nIn;
  try {
    op.attrs = attributesFromNode(node);
  } catch (const error& e) {
    throw withContext(e, "{}: {}", op.describe(), e.what());
  }
  // PopART drops in a TrainingSession whatever the opset (its DropoutOp replaces Dropout 6 to
  // 11, and only inference makes it the identity); ONNX's Dropout 7 to 11 alone never would.
  if (op.kind() == OpKind::Dropout && opset >= 7 && opset < 12 && mode_ == ExecutionMode::Training)
    op.attrs.set("training", int64_t(1));
  for (int i = 0; i < nIn; ++i) {
    const std::string& in = node.input(i);
    if (in.empty()) {
      op.connectInput(i, nullptr);
      continue;
    }
    Tensor* t = resolveTensor(graph, in);
    if (!t)
      throw error("{}: input '{}' is not a graph input, an initializer or the output of an earlier node", op.describe(),
                  in);
    op.connectInput(i, t);
  }
  for (int i = 0; i < nOut; ++i) {
    const std::string& out = node.output(i);
    if (out.empty()) {
      op.connectOutput(i, nullptr);
      continue;
    }
    if (graph.hasTensor(out))
      throw error("Invalid ONNX model: tensor '{}' is produced twice (second time by {})", out, op.describe());
    op.connectOutput(i, &graph.addTensor(out, TensorKind::ActGrad, TensorInfo()));
  }
  const size_t subgraphsBefore = subgraphs_.size();
  try {
    op.setup();
  } catch (const RunTimeInfoNeeded&) {
    // A Loop whose body needs the iteration count to shape its values is unrolled when its trip
    // count and condition are known (as they are in a plan made at run time).
    if (op.kind() != OpKind::Loop) throw;
    std::vector<Tensor*> outs = op.outputs();
    graph.removeOp(&op);
    for (Tensor* t : outs) {
      if (t) graph.removeTensor(t->id);
    }
    subgraphs_.resize(subgraphsBefore);
    if (!unrollLoopIfBounded(node, graph, name)) throw;
    return;
  }
  tryFold(op);
}

int Ir::checkArity(const onnx::NodeProto& node, const std::string& name, int opset, int minIn, int maxIn, int minOut,
                   int maxOut) {
  auto range = [](int lo, int hi) {
    return lo == hi ? std::to_string(lo) : hi < 0 ? "at least " + std::to_string(lo) : format("{} to {}", lo, hi);
  };
  int nIn = node.input_size();
  while (nIn > 0 && node.input(nIn - 1).empty()) --nIn;  // trailing absent optionals
  if (nIn < minIn || (maxIn >= 0 && nIn > maxIn))
    throw error("node '{}' ({}, opset {}) has {} inputs, but {} takes {}", name, node.op_type(), opset, nIn,
                node.op_type(), range(minIn, maxIn));
  const int nOut = node.output_size();
  if (nOut < minOut || (maxOut >= 0 && nOut > maxOut))
    throw error("node '{}' ({}, opset {}) has {} outputs, but {} produces {}", name, node.op_type(), opset, nOut,
                node.op_type(), range(minOut, maxOut));
  return nIn;
}

Tensor* Ir::resolveTensor(Graph& g, const TensorId& id) {
  if (Tensor* t = g.tensor(id)) return t;
  if (!g.parent || !g.owner) return nullptr;
  Tensor* outer = resolveTensor(*g.parent, id);
  if (!outer) return nullptr;
  if (outer->kind == TensorKind::Const && outer->data) {
    Tensor& local = g.addTensor(id, TensorKind::Const, outer->info);
    local.data = outer->data;
    return &local;
  }
  Tensor& local = g.addTensor(id, TensorKind::Stream, outer->info);
  g.implicitInputIds.push_back(id);
  g.owner->connectInput(g.owner->numInputs(), outer);
  return &local;
}

Graph& Ir::importSubgraph(Op& owner, const std::string& attr, const std::vector<TensorInfo>& inputInfos) {
  const GraphProtoPtr gp = owner.attrs.getGraph(attr);
  subgraphs_.push_back(std::make_unique<Graph>(*this, owner.name() + "/" + attr));
  Graph& g = *subgraphs_.back();
  g.parent = &owner.graph();
  g.owner = &owner;
  g.protoName = gp->name();
  for (const auto& tp : gp->initializer()) {
    TensorData d = tensorFromProto(tp);
    Tensor& t = g.addTensor(tp.name(), TensorKind::Const, d.info());
    t.data = std::move(d);
  }
  for (int i = 0; i < gp->input_size(); ++i) {
    const auto& vi = gp->input(i);
    if (g.hasTensor(vi.name())) continue;
    // Inputs beyond those the op binds (all of an If branch's; a Loop / Scan body's after its
    // formal ones) name tensors of the enclosing graphs, as PopART's addInputTensorFromParentGraph
    // writes them: they are read from there.
    if (static_cast<size_t>(i) >= inputInfos.size()) continue;
    TensorInfo info;
    if (static_cast<size_t>(i) < inputInfos.size() && inputInfos[static_cast<size_t>(i)].isSet()) {
      info = inputInfos[static_cast<size_t>(i)];
    } else {
      bool ok = false;
      std::string text;
      info = infoFromValueInfo(vi, &ok, &text);
      if (!ok)
        throw error("input '{}' of the {} subgraph has an unknown shape {} that its op cannot infer", vi.name(), attr,
                    text);
    }
    g.addTensor(vi.name(), TensorKind::Stream, info);
    g.inputIds.push_back(vi.name());
  }
  importNodes(*gp, g);
  for (const auto& o : gp->output()) {
    if (!resolveTensor(g, o.name()))
      throw error("output '{}' of the {} subgraph is not produced inside it", o.name(), attr);
    g.outputIds.push_back(o.name());
  }
  owner.subgraphs.push_back(&g);
  return g;
}

bool Ir::tryFold(Op& op) {
  const OpDef& def = op.def();
  if (!def.foldable || !evaluator_) return false;
  // PopART's ConstExprUtil::isComputable: an op with an anchored output is not folded. In training
  // this keeps the path from a constant to the loss, so the gradient of a Constant-produced tensor
  // (Gradient___Constant:0) can be anchored.
  if (isTraining() && !def.foldFromShapesOnly && op.numInputs() > 0) {
    for (Tensor* t : op.outputs()) {
      if (t && dataFlow_.isAnchored(t->id)) return false;
    }
  }
  if (!def.foldFromShapesOnly) {
    for (Tensor* t : op.inputs()) {
      if (t && t->kind != TensorKind::Const) return false;
    }
    for (Tensor* t : op.outputs()) {
      if (t && keepUnfolded_.count(t->id)) return false;
    }
    // enableConstantFoldingOfMultipleConsumers = false: a constant expression read by more than
    // one node stays an op (computed at run time) instead of becoming a stored constant.
    if (!options_.enableConstantFoldingOfMultipleConsumers) {
      for (Tensor* t : op.outputs()) {
        auto it = t ? importConsumers_.find(t->id) : importConsumers_.end();
        if (it != importConsumers_.end() && it->second > 1) return false;
      }
    }
  }
  std::vector<TensorData> results;
  try {
    results = evaluator_->evaluate(op);
  } catch (const internal_error&) {
    throw;
  } catch (const error& e) {
    throw withContext(e, "while evaluating the constant {}: {}", op.describeWithInputs(), e.what());
  }
  if (static_cast<int>(results.size()) != op.numOutputs())
    throw internal_error("constant folding {} returned {} values", op.describe(), results.size());
  std::vector<Tensor*> outs = op.outputs();
  op.graph().removeOp(&op);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i]) continue;
    outs[i]->kind = TensorKind::Const;
    outs[i]->info = results[i].info();
    outs[i]->data = std::move(results[i]);
  }
  return true;
}

void Ir::validateAnchors() const {
  for (const auto& id : dataFlow_.anchors()) {
    if (main_->hasTensor(id)) continue;
    // PopART's message. A gradient exists only for a floating-point tensor with a differentiable
    // path to the loss of a training session (autodiff/autodiff.hpp).
    std::string hint;
    const std::string prefix = reservedGradientPrefix();
    if (id.rfind(prefix, 0) == 0) {
      const TensorId nonGrad = id.substr(prefix.size());
      if (main_->hasTensor(nonGrad) || prunedInfos_.count(nonGrad))
        hint = "\nInterestingly, `" + nonGrad +
               "' IS in tensors.\nNote that not all tensors can have their gradients anchored:\nif an activation "
               "tensor does not lead to the loss,\nits gradient is zero and never computed.";
    }
    throw error("Anchor tensor `{}' not in Ir Tensors. {}", id, hint);
  }
}

void Ir::prune() {
  // Keep ops that contribute to an anchor (and, in training, to the loss and weight updates).
  std::set<const Op*> needed;
  std::vector<const Tensor*> work;
  for (const auto& id : dataFlow_.anchors()) work.push_back(&main_->getTensor(id));
  for (const auto& kv : main_->ops()) {
    if (kv.second->def().sideEffect) needed.insert(kv.second.get());  // weight updates, etc.
  }
  for (const Op* op : needed) {
    for (const Tensor* t : op->inputs()) {
      if (t) work.push_back(t);
    }
  }
  while (!work.empty()) {
    const Tensor* t = work.back();
    work.pop_back();
    if (t->producer && needed.insert(t->producer).second) {
      for (const Tensor* in : t->producer->inputs()) {
        if (in) work.push_back(in);
      }
    }
  }
  std::vector<Op*> remove;
  for (const auto& kv : main_->ops()) {
    if (!needed.count(kv.second.get())) remove.push_back(kv.second.get());
  }
  if (!remove.empty()) logging::ir::debug("Pruning {} ops that no anchor depends on", remove.size());
  const size_t before = main_->numOps();
  for (Op* op : remove) {
    std::vector<Tensor*> outs = op->outputs();
    main_->removeOp(op);
    for (Tensor* t : outs) {
      if (t && t->consumers.empty() && !dataFlow_.isAnchored(t->id)) {
        prunedInfos_[t->id] = t->info;  // getInfo still answers for it (e.g. a loss nobody anchors)
        main_->removeTensor(t->id);
      }
    }
  }
  if (before > 0 && main_->numOps() == 0) {
    bool anyComputed = false;
    for (const auto& id : dataFlow_.anchors()) {
      const Tensor& t = main_->getTensor(id);
      if (t.kind == TensorKind::Const && !isInitializer(id)) anyComputed = true;
    }
    if (!anyComputed) throw error("All operations in the main graph were pruned, nothing to compute");
  }
}

void Ir::updateSchedule() {
  schedule_ = main_->topologicalOrder();
}

std::string Ir::scheduleText() const {
  std::ostringstream os;
  for (const Op* op : schedule_) {
    os << op->describe() << ":";
    for (const Tensor* t : op->inputs()) os << ' ' << (t ? t->id : std::string("-"));
    os << " ->";
    for (const Tensor* t : op->outputs()) {
      if (t) os << ' ' << t->id << ' ' << t->info;
    }
    os << '\n';
  }
  return os.str();
}

}  // namespace popart
