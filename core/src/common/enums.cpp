// The public enums' value names: one table (popart/reflection.hpp). A static_assert ties each
// row to its enum's value count where the enum has an N sentinel, so adding a value without a
// name fails the build.

#include "common/strings.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/builder.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/op/collectives/collectives.hpp"
#include "popart/op/init.hpp"
#include "popart/op/loss.hpp"
#include "popart/op/scatterreduce.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/reflection.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/sgd.hpp"
#include "popart/variablesettings.hpp"

namespace popart {
namespace {

template <typename E>
constexpr int count() {
  return static_cast<int>(E::N);
}

static_assert(count<VirtualGraphMode>() == 4);
static_assert(count<RecomputationType>() == 5);
static_assert(count<MergeVarUpdateType>() == 4);
static_assert(count<SyntheticDataMode>() == 4);
static_assert(count<Instrumentation>() == 2);
static_assert(count<SubgraphCopyingStrategy>() == 2);
static_assert(count<DotCheck>() == 7);
static_assert(count<TensorStorage>() == 2);
static_assert(count<ExecutionPhaseIOSchedule>() == 2);
static_assert(count<ExecutionPhaseSchedule>() == 3);
static_assert(count<BatchSerializationBatchSchedule>() == 4);
static_assert(count<BatchSerializationTransformContext>() == 2);
static_assert(count<BatchSerializationMethod>() == 3);
static_assert(count<ReductionType>() == 3);
static_assert(count<InitType>() == 2);
static_assert(count<MeanReductionStrategy>() == 3);
static_assert(count<ExchangeStrategy>() == 4);
static_assert(count<ScatterReduction>() == 5);
static_assert(count<RecomputeType>() == 4);
static_assert(count<AutodiffStitchStrategy>() == 4);
static_assert(count<CommGroupType>() == 4);
static_assert(count<CollectiveOperator>() == 9);
static_assert(count<VariableRetrievalMode>() == 3);
static_assert(count<ReplicatedStreamMode>() == 2);
// Enums without a sentinel: their last value.
static_assert(static_cast<int>(ReplicatedTensorSharding::On) == 1);
static_assert(static_cast<int>(AccumulateOuterFragmentSchedule::OverlapMemoryOptimized) == 3);
static_assert(static_cast<int>(GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors) == 2);
static_assert(static_cast<int>(AnchorReturnTypeId::Sum) == 3);
static_assert(static_cast<int>(TileSet::IO) == 1);
static_assert(static_cast<int>(PatternsLevel::All) == 3);
static_assert(static_cast<int>(AdamMode::LambNoBias) == 4);
static_assert(static_cast<int>(AdaptiveMode::AdaDelta) == 3);
static_assert(static_cast<int>(WeightDecayMode::L2Regularization) == 1);
static_assert(static_cast<int>(SGDAccumulatorAndMomentum::Separate) == 1);
static_assert(static_cast<int>(OptimizerReductionType::AccumReduce) == 3);
static_assert(static_cast<int>(DeviceType::Sim) == 4);
static_assert(static_cast<int>(DeviceConnectionType::Never) == 2);
static_assert(static_cast<int>(SyncPattern::ReplicaAndLadder) == 2);
static_assert(static_cast<int>(DeviceSelectionCriterion::Random) == 1);
static_assert(static_cast<int>(IrSerializationFormat::JSON) == 0);

const std::vector<EnumInfo> kEnums{
    {"VirtualGraphMode", {"Off", "Manual", "Auto", "ExecutionPhases"}, "How ops are placed on IPUs."},
    {"RecomputationType",
     {"None", "Standard", "NormOnly", "RecomputeAll", "Pipeline"},
     "Which activations are recomputed in the backward pass."},
    {"MergeVarUpdateType", {"None", "All", "AutoLoose", "AutoTight"}, "How weight updates are merged."},
    {"SyntheticDataMode",
     {"Off", "Zeros", "RandomNormal", "RandomUniform"},
     "Host data streams replaced by generated data."},
    {"Instrumentation", {"Outer", "Inner"}, "Where the hardware cycle counter is read."},
    {"SubgraphCopyingStrategy", {"OnEnterAndExit", "JustInTime"}, "When subgraph inputs and outputs are copied."},
    {"DotCheck", {"Fwd0", "Fwd1", "Bwd0", "PreAlias", "MainLoops", "Final", "All"}, "Where .dot graphs are written."},
    {"TensorStorage", {"OnChip", "OffChip"}, "Where a class of tensors lives."},
    {"ReplicatedTensorSharding", {"Off", "On"}, "Whether tensors are sharded over replicas."},
    {"ExecutionPhaseIOSchedule", {"Preload", "OnDemand"}, "When tensors of an execution phase are loaded."},
    {"ExecutionPhaseSchedule", {"Interleaving", "Batch", "BatchClusteredIO"}, "How execution phases are scheduled."},
    {"BatchSerializationBatchSchedule",
     {"Scheduler", "Isomorphic", "OverlapOnIo", "OverlapOnCompute"},
     "How serialized batches are scheduled."},
    {"BatchSerializationTransformContext", {"Fwd", "Bwd"}, "Where batch serialization applies."},
    {"BatchSerializationMethod", {"UnrollDynamic", "UnrollStatic", "Loop"}, "How batches are serialized."},
    {"AccumulateOuterFragmentSchedule",
     {"Scheduler", "Serial", "OverlapCycleOptimized", "OverlapMemoryOptimized"},
     "How the accumulate outer fragment is scheduled."},
    {"GradientTensorTrackingMethod",
     {"AllNonViewChangingGradientTensors", "ConvAndMatmulGradients", "GradientsOfUserSpecifiedTensors"},
     "Which gradients automatic loss scaling tracks."},
    {"AutodiffStitchStrategy",
     {"RecomputeMinimal", "RecomputeAllNonInputs", "AddFwdOutputs", "SafeAddFwdOutputs"},
     "How a backward graph gets the forward values it needs."},
    {"ReductionType", {"Sum", "Mean", "NoReduction"}, "How a loss (or accumulated gradients) is reduced."},
    {"MeanReductionStrategy", {"Running", "Post", "PostAndLoss"}, "When a mean reduction divides."},
    {"AnchorReturnTypeId", {"Final", "EveryN", "All", "Sum"}, "Which values of an anchor a step returns."},
    {"TileSet", {"Compute", "IO"}, "The tiles an anchor is streamed through."},
    {"ExchangeStrategy",
     {"JustInTime", "OverlapInnerLoop", "OverlapLoops", "OverlapStep"},
     "How anchor streams overlap compute."},
    {"PatternsLevel", {"NoPatterns", "Minimal", "Default", "All"}, "A preset of graph rewrites."},
    {"AdamMode", {"Adam", "AdamNoBias", "AdaMax", "Lamb", "LambNoBias"}, "The Adam family member."},
    {"AdaptiveMode", {"AdaGrad", "RMSProp", "CenteredRMSProp", "AdaDelta"}, "The adaptive optimizer."},
    {"WeightDecayMode", {"Decay", "L2Regularization"}, "How weight decay is applied."},
    {"SGDAccumulatorAndMomentum", {"Combined", "Separate"}, "How SGD with momentum stores its state."},
    {"OptimizerReductionType",
     {"None", "GradReduce", "AcclReduce", "AccumReduce"},
     "Where replicas' gradients are summed."},
    {"DeviceType", {"IpuModel", "Cpu", "Ipu", "OfflineIpu", "Sim"}, "The kind of a device."},
    {"DeviceConnectionType", {"Always", "OnDemand", "Never"}, "When a device is attached."},
    {"SyncPattern", {"Full", "SinglePipeline", "ReplicaAndLadder"}, "How IPUs synchronise."},
    {"ScatterReduction",
     {"Sum", "Max", "Min", "Mul", "None"},
     "How scatterreduce combines the values scattered to one position (None: the last one)."},
    {"InitType", {"NoInit", "Zero"}, "How aiGraphcore.init fills its tensor."},
    {"RecomputeType",
     {"Undefined", "Checkpoint", "Recompute", "Recomputed"},
     "How recomputation treats an op's outputs (Builder.recomputeOutputInBackwardPass)."},
    {"DeviceSelectionCriterion", {"First", "Random"}, "Which of the matching devices acquireAvailableDevice takes."},
    {"IrSerializationFormat", {"JSON"}, "The format of Session._serializeIr."},
    {"CommGroupType",
     {"All", "Consecutive", "Orthogonal", "Ungrouped"},
     "How replicas are grouped (CommGroup; C++ names Ungrouped CommGroupType::None)."},
    {"CollectiveOperator",
     {"Add", "Mean", "Mul", "Min", "Max", "LogicalAnd", "LogicalOr", "SquareAdd", "Local"},
     "How replicatedallreduce / replicatedreducescatter combine the replicas' values."},
    {"VariableRetrievalMode",
     {"OnePerGroup", "AllReduceReplicas", "AllReplicas"},
     "How a grouped weight returns to the host (VariableSettings)."},
    {"ReplicatedStreamMode",
     {"Replicate", "Broadcast"},
     "How an input stream feeds the replicas (InputSettings): one micro-batch each, or one for all."},
};

}  // namespace

const std::vector<EnumInfo>& allEnums() {
  return kEnums;
}

const EnumInfo& enumInfo(const std::string& name) {
  for (const auto& e : kEnums) {
    if (e.name == name) return e;
  }
  throw error("Unknown enum '{}'", name);
}

namespace detail {

const std::string& enumValueName(const char* enumName, int v) {
  const EnumInfo& e = enumInfo(enumName);
  if (v < 0 || v >= static_cast<int>(e.values.size()))
    throw internal_error("value {} is out of range for enum {}", v, enumName);
  return e.values[static_cast<size_t>(v)];
}

int enumValueFromName(const char* enumName, const std::string& s) {
  const EnumInfo& e = enumInfo(enumName);
  for (size_t i = 0; i < e.values.size(); ++i) {
    if (e.values[i] == s) return static_cast<int>(i);
  }
  for (size_t i = 0; i < e.values.size(); ++i) {
    if (asciiLower(e.values[i]) == asciiLower(s)) return static_cast<int>(i);
  }
  std::string all;
  for (size_t i = 0; i < e.values.size(); ++i) all += (i ? ", " : "") + e.values[i];
  throw error("Invalid {} '{}'; expected one of {}", enumName, s, all);
}

}  // namespace detail
}  // namespace popart
