// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file sessionoptions.hpp
/// `SessionOptions`: PopART's session control options, with PopART's names and defaults.
/// Options that only matter on IPU hardware are accepted and kept, so PopART programs compile
/// and run; the CPU and IPU-model devices use the ones that affect them.

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "popart/commgroup.hpp"
#include "popart/dataflow.hpp"
#include "popart/names.hpp"
#include "popart/op/loss.hpp"
#include "popart/reflection.hpp"

namespace popart {

/// The format of `Session::serializeIr` (PopART's IrSerializationFormat).
enum class IrSerializationFormat { JSON = 0 };

enum class VirtualGraphMode { Off = 0, Manual, Auto, ExecutionPhases, N };
enum class RecomputationType { None = 0, Standard, NormOnly, RecomputeAll, Pipeline, N };
enum class MergeVarUpdateType { None = 0, All, AutoLoose, AutoTight, N };
enum class SyntheticDataMode { Off = 0, Zeros, RandomNormal, RandomUniform, N };
enum class Instrumentation { Outer = 0, Inner, N };
enum class SubgraphCopyingStrategy { OnEnterAndExit = 0, JustInTime, N };
enum class DotCheck { Fwd0 = 0, Fwd1, Bwd0, PreAlias, MainLoops, Final, All, N };
enum class TensorStorage { OnChip = 0, OffChip, N };
enum class ReplicatedTensorSharding { Off = 0, On = 1 };
enum class ExecutionPhaseIOSchedule { Preload = 0, OnDemand, N };
enum class ExecutionPhaseSchedule { Interleaving = 0, Batch, BatchClusteredIO, N };
enum class BatchSerializationBatchSchedule { Scheduler = 0, Isomorphic, OverlapOnIo, OverlapOnCompute, N };
enum class BatchSerializationTransformContext { Fwd = 0, Bwd, N };
enum class BatchSerializationMethod { UnrollDynamic = 0, UnrollStatic, Loop, N };
enum class AccumulateOuterFragmentSchedule { Scheduler = 0, Serial, OverlapCycleOptimized, OverlapMemoryOptimized };
enum class GradientTensorTrackingMethod {
  AllNonViewChangingGradientTensors = 0,
  ConvAndMatmulGradients,
  GradientsOfUserSpecifiedTensors
};
/// How a backward graph gets the forward values it needs (PopART's autodiff setting).
enum class AutodiffStitchStrategy { RecomputeMinimal = 0, RecomputeAllNonInputs, AddFwdOutputs, SafeAddFwdOutputs, N };

/// Where a class of tensors lives (PopART's TensorLocation). The CPU and IPU-model devices keep
/// every tensor in host memory; the IPU model's memory report reads `storage`. In replicated
/// training, `replicatedTensorSharding` On for the optimizer state (or the weights) splits each
/// large enough weight's optimizer state over the replicas of `shardingDomain` (all of them by
/// default): each replica updates its shard (docs/distributed.md).
struct TensorLocation {
  TensorLocation() = default;
  TensorLocation(TensorStorage storage_) : storage(storage_) {}  // NOLINT: implicit as PopART's
  TensorLocation(TensorStorage storage_, ReplicatedTensorSharding rts)
      : storage(storage_), replicatedTensorSharding(rts) {}
  TensorLocation(TensorStorage storage_, ReplicatedTensorSharding rts, CommGroup shardingDomain_)
      : storage(storage_), replicatedTensorSharding(rts), shardingDomain(shardingDomain_) {}
  TensorLocation(TensorStorage storage_, TileSet loadTileSet_, TileSet storageTileSet_, ReplicatedTensorSharding rts)
      : storage(storage_), loadTileSet(loadTileSet_), storageTileSet(storageTileSet_), replicatedTensorSharding(rts) {}
  TensorLocation(TensorStorage storage_, TileSet loadTileSet_, TileSet storageTileSet_, ReplicatedTensorSharding rts,
                 CommGroup shardingDomain_)
      : storage(storage_),
        loadTileSet(loadTileSet_),
        storageTileSet(storageTileSet_),
        replicatedTensorSharding(rts),
        shardingDomain(shardingDomain_) {}

  TensorStorage storage = TensorStorage::OnChip;
  TileSet loadTileSet = TileSet::Compute;
  TileSet storageTileSet = TileSet::Compute;
  ReplicatedTensorSharding replicatedTensorSharding = ReplicatedTensorSharding::Off;
  /// The replicas a sharded tensor is split over (PopART's: All, or Consecutive groups).
  CommGroup shardingDomain;
};

/// The location policy of a class of tensors (activations, weights, optimizer state,
/// accumulators), PopART's TensorLocationSettings.
struct TensorLocationSettings {
  TensorLocationSettings() = default;
  TensorLocationSettings(TensorLocation location_, int minElementsForOffChip_ = 2,  // NOLINT: implicit
                         int minElementsForReplicatedTensorSharding_ = 8192)
      : location(location_),
        minElementsForOffChip(minElementsForOffChip_),
        minElementsForReplicatedTensorSharding(minElementsForReplicatedTensorSharding_) {}
  TensorLocationSettings(TensorStorage storage_, int minElementsForOffChip_ = 2,  // NOLINT: implicit
                         int minElementsForReplicatedTensorSharding_ = 8192)
      : TensorLocationSettings(TensorLocation(storage_), minElementsForOffChip_,
                               minElementsForReplicatedTensorSharding_) {}

  TensorLocation location;
  int minElementsForOffChip = 2;
  int minElementsForReplicatedTensorSharding = 8192;
};

/// Replicated collectives (PopART's ReplicatedCollectivesSettings).
struct ReplicatedCollectivesSettings {
  bool prepareScheduleForMergingCollectives = false;
  bool mergeAllReduceCollectives = false;
};

/// The autodiff transform's settings (PopART's AutodiffSettings).
struct AutodiffSettings {
  AutodiffStitchStrategy stitchStrategy = AutodiffStitchStrategy::RecomputeAllNonInputs;
};

/// PopART's developer settings.
struct DeveloperSettings {
  double timePartitionLoggerThresholdPercentage = 1.0;
};

/// PopART's experimental settings.
struct ExperimentalSettings {
  bool createHostTransferableTensorWithOffset = false;
};

struct ExecutionPhaseSettings {
  int phases = 0;
  int stages = 2;
  ExecutionPhaseIOSchedule weightIOSchedule = ExecutionPhaseIOSchedule::Preload;
  ExecutionPhaseIOSchedule activationIOSchedule = ExecutionPhaseIOSchedule::Preload;
  ExecutionPhaseIOSchedule optimizerStateIOSchedule = ExecutionPhaseIOSchedule::OnDemand;
  ExecutionPhaseIOSchedule accumulatorIOSchedule = ExecutionPhaseIOSchedule::Preload;
  ExecutionPhaseSchedule schedule = ExecutionPhaseSchedule::Interleaving;
};

struct BatchSerializationSettings {
  int factor = 0;
  bool concatOnVirtualGraphChange = true;
  bool concatOnExecutionPhaseChange = true;
  bool concatOnPipelineStageChange = true;
  BatchSerializationTransformContext transformContext = BatchSerializationTransformContext::Fwd;
  BatchSerializationMethod method = BatchSerializationMethod::UnrollDynamic;
  BatchSerializationBatchSchedule batchSchedule = BatchSerializationBatchSchedule::Isomorphic;
};

struct AccumulateOuterFragmentSettings {
  AccumulateOuterFragmentSchedule schedule = AccumulateOuterFragmentSchedule::Serial;
  std::vector<int> excludedVirtualGraphs;
};

struct AutomaticLossScalingSettings {
  bool enabled = false;
  float binEdgeLocation = 0.125f;
  float thresholdUpperCountProportion = 1e-7f;
  int updatePeriod = 1;
  GradientTensorTrackingMethod gradientTensorTrackingMethod =
      GradientTensorTrackingMethod::AllNonViewChangingGradientTensors;
  std::vector<TensorId> toTrackTensors;
};

/// PopART's compilation progress callback: (progress, total).
using CompilationProgressLogger = std::function<void(int, int)>;

struct SessionOptions {
  // Training: gradient accumulation and replication.
  bool enableGradientAccumulation = false;
  int64_t accumulationFactor = 1;
  bool enableReplicatedGraphs = false;
  int64_t replicatedGraphCount = 1;
  bool enableDistributedReplicatedGraphs = false;
  int64_t globalReplicationFactor = 1;
  int64_t globalReplicaOffset = 0;
  ReductionType accumulationAndReplicationReductionType = ReductionType::Sum;
  MeanReductionStrategy meanAccumulationAndReplicationReductionStrategy = MeanReductionStrategy::Post;

  // Model parallelism.
  VirtualGraphMode virtualGraphMode = VirtualGraphMode::Off;
  std::vector<float> virtualGraphSplitRatios;
  bool enablePipelining = false;
  ExecutionPhaseSettings executionPhaseSettings;
  BatchSerializationSettings batchSerializationSettings;
  AccumulateOuterFragmentSettings accumulateOuterFragmentSettings;

  // Recomputation and outlining.
  RecomputationType autoRecomputation = RecomputationType::None;
  bool explicitRecomputation = false;
  bool enableOutlining = true;
  bool enableOutliningCopyCostPruning = true;
  bool useLoopCandidateCreator = false;
  bool enableConstantFoldingOfMultipleConsumers = true;
  bool throwIfLog2ScaleTensorNotInRange = true;
  float outlineThreshold = 1.0f;
  float outlineSequenceBreakCost = 10000.0f;
  SubgraphCopyingStrategy subgraphCopyingStrategy = SubgraphCopyingStrategy::OnEnterAndExit;
  AutodiffSettings autodiffSettings;
  bool explicitPipelining = false;
  bool createImplicitPipeliningFwdOnlyProgram = false;
  bool stashAllTensorsInferencePipeline = false;

  // Weights and numerics.
  bool constantWeights = true;
  bool enableStochasticRounding = false;
  bool enableFloatingPointChecks = false;
  bool enableNonStableSoftmax = false;
  bool enableStableNorm = false;
  std::string partialsTypeMatMuls;
  bool enableFullyConnectedPass = true;
  bool enableSerializedMatmuls = true;
  bool decomposeGradSum = false;
  bool aliasZeroCopy = false;
  bool delayVarUpdates = true;
  bool scheduleNonWeightUpdateGradientConsumersEarly = false;
  bool enableExplicitMainLoops = false;
  bool useHostCopyOps = false;
  bool strictOpVersions = true;
  MergeVarUpdateType mergeVarUpdate = MergeVarUpdateType::None;
  int64_t mergeVarUpdateMemThreshold = 1000000;
  int64_t looseThresholdAtPeak = 8000;
  AutomaticLossScalingSettings automaticLossScalingSettings;
  bool ensureFp32LossScaleTensor = false;
  bool groupNormStridedChannelGrouping = false;
  bool enableSupportedDataTypeCasting = true;
  bool enableInplaceAmbiguityChecking = false;
  ReplicatedCollectivesSettings replicatedCollectivesSettings;
  bool _enableRngStateManagement = false;
  bool enableLoadAndOffloadRNGState = false;

  // Streams and data.
  SyntheticDataMode syntheticDataMode = SyntheticDataMode::Off;
  bool enablePrefetchDatastreams = true;
  int defaultBufferingDepth = 1;
  std::map<TensorId, unsigned> bufferingDepthMap;
  bool rearrangeAnchorsOnHost = true;
  bool rearrangeStreamsOnHost = false;
  bool disableGradAccumulationTensorStreams = false;
  bool disableOptimizerStateTensorStreams = false;
  int numIOTiles = 0;
  bool groupHostSync = false;
  bool enableMergeExchange = true;
  std::vector<TensorId> updatableNamedBuffers;

  // Tensor locations.
  TensorLocationSettings activationTensorLocationSettings;
  TensorLocationSettings weightTensorLocationSettings;
  TensorLocationSettings optimizerStateTensorLocationSettings;
  TensorLocationSettings accumulatorTensorLocationSettings;

  // Instrumentation, reports, caching and debugging.
  bool instrumentWithHardwareCycleCounter = false;
  std::set<Instrumentation> hardwareInstrumentations{Instrumentation::Outer};
  bool enableEngineCaching = false;
  std::string cachePath = "session_cache";
  bool enableVariablesCaching = true;
  bool compileEngine = true;
  std::string logDir;
  std::set<std::string> dotChecks;
  int firstDotOp = 0;
  int finalDotOp = 10000;
  bool dotOpNames = false;
  bool separateCallOpPdfs = true;
  bool exportPoplarComputationGraph = false;
  bool exportPoplarVertexGraph = false;
  bool opxAliasChecking = false;
  bool opxModifyChecking = false;
  int compilationProgressTotal = 100;
  /// PopART's compilation progress callback, called with (progress, compilationProgressTotal):
  /// (0, total) when the session is created, then as prepareDevice prepares and compiles, ending
  /// with (total, total). Bindings set it with setCallback (Python / JS: assign a function).
  CompilationProgressLogger compilationProgressLogger;
  double timeLimitScheduler = 1e9;
  int64_t swapLimitScheduler = 1000000000;
  std::string kahnTieBreaker = "greedy";
  std::string serializedPoprithmsShiftGraphsDir;
  uint64_t transitiveClosureOptimizationThreshold = 100000;
  DeveloperSettings developerSettings;
  ExperimentalSettings experimentalSettings;

  // Options passed to the backend (Poplar's on hardware; the IPU model reads some of them).
  std::map<std::string, std::string> engineOptions;
  std::map<std::string, std::string> convolutionOptions;
  std::map<std::string, std::string> lstmOptions;
  std::map<std::string, std::string> matmulOptions;
  std::map<std::string, std::string> reportOptions;
  std::map<std::string, std::string> gclOptions;
  std::map<std::string, std::string> tensorLocationSettingsOverride;
  std::vector<std::string> customCodelets;
  std::string customCodeletCompileFlags;

  /// Sets enableExplicitMainLoops, useHostCopyOps and explicitRecomputation together.
  void enableExplicitIR(bool enable) {
    enableExplicitMainLoops = enable;
    useHostCopyOps = enable;
    explicitRecomputation = enable;
  }
  /// accumulationFactor if gradient accumulation is enabled, else 1.
  int64_t getAccumulationFactor() const { return enableGradientAccumulation ? accumulationFactor : 1; }
  /// replicatedGraphCount if replication is enabled, else 1.
  int64_t getReplicationFactor() const { return enableReplicatedGraphs ? replicatedGraphCount : 1; }
  int64_t getGlobalReplicationFactor() const {
    return enableDistributedReplicatedGraphs ? globalReplicationFactor : getReplicationFactor();
  }

  /// Sets a field by name: PopART's field names, dotted for nested settings
  /// ("executionPhaseSettings.phases"); enums by value name ("Manual"). An unknown name is
  /// "SessionOptions has no option 'x'"; a value of the wrong kind names the field and the kind
  /// expected. Bindings set options through this.
  void set(const std::string& name, const OptionValue& value);
  /// Sets a field of kind "callback" (compilationProgressLogger) to `fn` (empty: none); the
  /// table's set/get of such a field take / give a bool (set or not; false clears it).
  void setCallback(const std::string& name, CompilationProgressLogger fn);
  /// A field's value by name (enums as their value names).
  OptionValue get(const std::string& name) const;
  /// Every field: name, type, default and documentation (popart/reflection.hpp).
  static const std::vector<OptionInfo>& list();
};

}  // namespace popart
