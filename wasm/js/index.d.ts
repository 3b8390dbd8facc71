// TypeScript declarations of the popart JS API (wasm/js/index.mjs). See docs/js-api.md.

export type DataTypeName =
  | 'FLOAT' | 'DOUBLE' | 'FLOAT16' | 'BFLOAT16' | 'INT8' | 'UINT8' | 'BOOL' | 'INT16' | 'UINT16'
  | 'INT32' | 'UINT32' | 'INT64' | 'UINT64' | 'STRING';
export type TensorId = string;
export type Shape = number[];
export type TypedArray =
  | Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array
  | Uint32Array | BigInt64Array | BigUint64Array;
/** Model bytes, or (Node only) a file path. */
export type ModelSource = Uint8Array | ArrayBuffer | string;

/** The TypedArray class used for each data type (FLOAT16/BFLOAT16 are raw Uint16 bits). */
export const TYPED_ARRAYS: Record<DataTypeName, unknown>;

/** A dense row-major array: the unit of data exchange. */
export class NDArray {
  constructor(data: TypedArray | number[] | string[], shape?: Shape, dtype?: DataTypeName);
  static zeros(shape: Shape, dtype?: DataTypeName): NDArray;
  readonly dtype: DataTypeName;
  readonly shape: Shape;
  readonly data: TypedArray | string[];
  readonly size: number;
}

export type ArrayLike = NDArray | TypedArray | number[] | string[] | { data: TypedArray | number[]; shape: Shape; dtype?: DataTypeName };

export interface TensorInfo {
  data_type(): DataTypeName;
  data_type_lcase(): string;
  readonly dtype: DataTypeName;
  shape(): Shape;
  rank(): number;
  nelms(): number;
  nbytes(): number;
  dim(i: number): number;
  toString(): string;
}

export interface AnchorReturnType {
  readonly art: 'All' | 'Final' | 'EveryN' | 'Sum';
  readonly period?: number;
  id(): string;
  rp(): number;
}

export interface DataFlow {
  batchesPerStep(): number;
  /** The batchSize of poponnx's DataFlow(bps, batchSize, ids, art) (not used); 0 for the other forms. */
  batchSize(): number;
  anchors(): TensorId[];
  nAnchors(): number;
  isAnchored(id: TensorId): boolean;
  art(id: TensorId): AnchorReturnType;
}

export interface InputShapeInfo {
  add(id: TensorId, info: TensorInfo | { dtype: DataTypeName; shape: Shape }): void;
  get(id: TensorId): TensorInfo;
  has(id: TensorId): boolean;
}

export interface Patterns {
  enablePattern(name: string, enabled: boolean): Patterns;
  isPatternEnabled(name: string): boolean | undefined;
  inplaceEnabled: boolean;
}

/** The public enums (value names, as the core's table gives them). */
// BEGIN generated: enum types (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
export type VirtualGraphMode = 'Off' | 'Manual' | 'Auto' | 'ExecutionPhases';
export type RecomputationType = 'None' | 'Standard' | 'NormOnly' | 'RecomputeAll' | 'Pipeline';
export type MergeVarUpdateType = 'None' | 'All' | 'AutoLoose' | 'AutoTight';
export type SyntheticDataMode = 'Off' | 'Zeros' | 'RandomNormal' | 'RandomUniform';
export type Instrumentation = 'Outer' | 'Inner';
export type SubgraphCopyingStrategy = 'OnEnterAndExit' | 'JustInTime';
export type DotCheck = 'Fwd0' | 'Fwd1' | 'Bwd0' | 'PreAlias' | 'MainLoops' | 'Final' | 'All';
export type TensorStorage = 'OnChip' | 'OffChip';
export type ReplicatedTensorSharding = 'Off' | 'On';
export type ExecutionPhaseIOSchedule = 'Preload' | 'OnDemand';
export type ExecutionPhaseSchedule = 'Interleaving' | 'Batch' | 'BatchClusteredIO';
export type BatchSerializationBatchSchedule = 'Scheduler' | 'Isomorphic' | 'OverlapOnIo' | 'OverlapOnCompute';
export type BatchSerializationTransformContext = 'Fwd' | 'Bwd';
export type BatchSerializationMethod = 'UnrollDynamic' | 'UnrollStatic' | 'Loop';
export type AccumulateOuterFragmentSchedule = 'Scheduler' | 'Serial' | 'OverlapCycleOptimized' | 'OverlapMemoryOptimized';
export type GradientTensorTrackingMethod = 'AllNonViewChangingGradientTensors' | 'ConvAndMatmulGradients' | 'GradientsOfUserSpecifiedTensors';
export type AutodiffStitchStrategy = 'RecomputeMinimal' | 'RecomputeAllNonInputs' | 'AddFwdOutputs' | 'SafeAddFwdOutputs';
export type ReductionType = 'Sum' | 'Mean' | 'NoReduction';
export type MeanReductionStrategy = 'Running' | 'Post' | 'PostAndLoss';
export type AnchorReturnTypeId = 'Final' | 'EveryN' | 'All' | 'Sum';
export type TileSet = 'Compute' | 'IO';
export type ExchangeStrategy = 'JustInTime' | 'OverlapInnerLoop' | 'OverlapLoops' | 'OverlapStep';
export type PatternsLevel = 'NoPatterns' | 'Minimal' | 'Default' | 'All';
export type AdamMode = 'Adam' | 'AdamNoBias' | 'AdaMax' | 'Lamb' | 'LambNoBias';
export type AdaptiveMode = 'AdaGrad' | 'RMSProp' | 'CenteredRMSProp' | 'AdaDelta';
export type WeightDecayMode = 'Decay' | 'L2Regularization';
export type SGDAccumulatorAndMomentum = 'Combined' | 'Separate';
export type OptimizerReductionType = 'None' | 'GradReduce' | 'AcclReduce' | 'AccumReduce';
export type DeviceType = 'IpuModel' | 'Cpu' | 'Ipu' | 'OfflineIpu' | 'Sim';
export type DeviceConnectionType = 'Always' | 'OnDemand' | 'Never';
export type SyncPattern = 'Full' | 'SinglePipeline' | 'ReplicaAndLadder';
export type ScatterReduction = 'Sum' | 'Max' | 'Min' | 'Mul' | 'None';
export type InitType = 'NoInit' | 'Zero';
export type RecomputeType = 'Undefined' | 'Checkpoint' | 'Recompute' | 'Recomputed';
export type DeviceSelectionCriterion = 'First' | 'Random';
export type IrSerializationFormat = 'JSON';
export type CommGroupType = 'All' | 'Consecutive' | 'Orthogonal' | 'Ungrouped';
export type CollectiveOperator = 'Add' | 'Mean' | 'Mul' | 'Min' | 'Max' | 'LogicalAnd' | 'LogicalOr' | 'SquareAdd' | 'Local';
export type VariableRetrievalMode = 'OnePerGroup' | 'AllReduceReplicas' | 'AllReplicas';
export type ReplicatedStreamMode = 'Replicate' | 'Broadcast';
// END generated: enum types

/** PopART's replica groups (the rules are the core's; docs/js-api.md). */
export interface ReplicaGrouping {
  numReplicas: number; stride: number; groupSize: number;
  getNumReplicas(): number; getStride(): number; getGroupSize(): number; getNumGroups(): number;
  getReplicasAt(group: number): number[];
}
export interface CommGroup {
  type: CommGroupType;
  replicaGroupSize: number;
  toReplicaGrouping(numReplicas: number): ReplicaGrouping;
}
export interface VariableSettings {
  getSharedVariableDomain(): CommGroup;
  getRetrievalMode(): VariableRetrievalMode;
  getGroupCount(replicaCount: number): number;
  numReplicasReturningVariable(replicaCount: number): number;
  getStride(replicaCount: number): number;
  getRealGroupSize(replicaCount: number): number;
  groups(replicaCount: number): number[][];
  getReplicaGrouping(replicaCount: number): ReplicaGrouping;
}
/** A stream input's settings: only the replicated stream mode acts. */
export interface InputSettings {
  replicatedStreamMode?: ReplicatedStreamMode; tileSet?: TileSet; exchangeStrategy?: ExchangeStrategy;
  setReplicatedStreamMode(m: ReplicatedStreamMode): void;
  setTileSet(t: TileSet): void;
  setExchangeStrategy(e: ExchangeStrategy): void;
}
/** getSupportedOperationsDefinition's entries. */
export interface OpDefinition {
  domain: string; type: string; version: number;
  inputs: Array<{ name: string; supportedTensors: DataTypeName[]; constant: boolean }>;
  outputs: Array<{ name: string; supportedTensors: DataTypeName[] }>;
  attributes: Record<string, { supportedValuesRegex: string }>;
}

/** PopART's SessionOptions field names; unknown names are an error at session creation. */
export interface SessionOptionsFields {
  // BEGIN generated: SessionOptions fields (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
  /** Accumulate accumulationFactor micro-batches per weight update (training). Default: false. */
  enableGradientAccumulation?: boolean;
  /** Micro-batches per weight update when gradient accumulation is enabled. Default: 1. */
  accumulationFactor?: number;
  /** Data-parallel local replicas. Default: false. */
  enableReplicatedGraphs?: boolean;
  /** The number of local replicas. Default: 1. */
  replicatedGraphCount?: number;
  /** Replication over several processes. Default: false. */
  enableDistributedReplicatedGraphs?: boolean;
  /** Replicas over all processes. Default: 1. */
  globalReplicationFactor?: number;
  /** This process's first replica. Default: 0. */
  globalReplicaOffset?: number;
  /** Sum or Mean of the gradients over accumulation and replicas. Default: "Sum". */
  accumulationAndReplicationReductionType?: ReductionType;
  /** When a Mean reduction divides: Post or Running. Default: "Post". */
  meanAccumulationAndReplicationReductionStrategy?: MeanReductionStrategy;
  /** Op placement on IPUs: Off, Manual (annotations), Auto, ExecutionPhases. Default: "Off". */
  virtualGraphMode?: VirtualGraphMode;
  /** Auto placement: the share of the graph on each IPU. Default: []. */
  virtualGraphSplitRatios?: number[];
  /** Pipeline the virtual graphs (needs virtualGraphMode other than Off). Default: false. */
  enablePipelining?: boolean;
  executionPhaseSettings?: {
    /** Execution phases (0: off). Default: 0. */
    phases?: number;
    /** Stages per phase. Default: 2. */
    stages?: number;
    /** When weights of a phase are loaded. Default: "Preload". */
    weightIOSchedule?: ExecutionPhaseIOSchedule;
    /** When activations of a phase are loaded. Default: "Preload". */
    activationIOSchedule?: ExecutionPhaseIOSchedule;
    /** When optimizer state of a phase is loaded. Default: "OnDemand". */
    optimizerStateIOSchedule?: ExecutionPhaseIOSchedule;
    /** When accumulators of a phase are loaded. Default: "Preload". */
    accumulatorIOSchedule?: ExecutionPhaseIOSchedule;
    /** How execution phases are scheduled. Default: "Interleaving". */
    schedule?: ExecutionPhaseSchedule;
  };
  batchSerializationSettings?: {
    /** Split ops along the batch dimension into this many parts (0: off). Default: 0. */
    factor?: number;
    /** Concatenate batches where the IPU changes. Default: true. */
    concatOnVirtualGraphChange?: boolean;
    /** Concatenate batches where the phase changes. Default: true. */
    concatOnExecutionPhaseChange?: boolean;
    /** Concatenate batches where the stage changes. Default: true. */
    concatOnPipelineStageChange?: boolean;
    /** Where batch serialization applies. Default: "Fwd". */
    transformContext?: BatchSerializationTransformContext;
    /** How batches are serialized. Default: "UnrollDynamic". */
    method?: BatchSerializationMethod;
    /** How serialized batches are scheduled. Default: "Isomorphic". */
    batchSchedule?: BatchSerializationBatchSchedule;
  };
  accumulateOuterFragmentSettings?: {
    /** How the accumulate outer fragment is scheduled. Default: "Serial". */
    schedule?: AccumulateOuterFragmentSchedule;
    /** IPUs left out of the outer fragment schedule. Default: []. */
    excludedVirtualGraphs?: number[];
  };
  /** Which activations are recomputed in the backward pass. Default: "None". */
  autoRecomputation?: RecomputationType;
  /** Recompute with cloned ops rather than implicitly. Default: false. */
  explicitRecomputation?: boolean;
  /** Extract repeated subgraphs into shared functions. Default: true. */
  enableOutlining?: boolean;
  /** Outlining: count the copies of outlined sections in the cost model. Default: true. */
  enableOutliningCopyCostPruning?: boolean;
  /** Outlining: let Poplar create the tensors of loop-carried inputs. Default: false. */
  useLoopCandidateCreator?: boolean;
  /** Fold a constant expression read by more than one op (false: it stays an op, computed at run time). Default: true. */
  enableConstantFoldingOfMultipleConsumers?: boolean;
  /** Assert at run time that the log2 scale of the FLOAT8 pow2-scaled ops is in [-32, 32). Default: true. */
  throwIfLog2ScaleTensorNotInRange?: boolean;
  /** The smallest subgraph worth outlining. Default: 1. */
  outlineThreshold?: number;
  /** The cost of breaking a sequence when outlining. Default: 10000. */
  outlineSequenceBreakCost?: number;
  /** When subgraph inputs and outputs are copied. Default: "OnEnterAndExit". */
  subgraphCopyingStrategy?: SubgraphCopyingStrategy;
  autodiffSettings?: {
    /** How backward graphs get the forward values they need. Default: "RecomputeAllNonInputs". */
    stitchStrategy?: AutodiffStitchStrategy;
  };
  /** Pipelining with explicit IR (deprecated in PopART). Default: false. */
  explicitPipelining?: boolean;
  /** A forward-only program for implicit pipelining (deprecated). Default: false. */
  createImplicitPipeliningFwdOnlyProgram?: boolean;
  /** Inference pipelining: stash every tensor crossing stages. Default: false. */
  stashAllTensorsInferencePipeline?: boolean;
  /** Inference: weights are constants (resetHostWeights and writeWeights are refused). Default: true. */
  constantWeights?: boolean;
  /** Stochastic rounding of float results. Default: false. */
  enableStochasticRounding?: boolean;
  /** The first NaN or infinity an op produces is an error naming the op. Default: false. */
  enableFloatingPointChecks?: boolean;
  /** Softmax without subtracting the maximum. Default: false. */
  enableNonStableSoftmax?: boolean;
  /** Two-pass mean and variance in normalizations. Default: false. */
  enableStableNorm?: boolean;
  /** Partials type of matmuls: "float" or "half". Default: "". */
  partialsTypeMatMuls?: string;
  /** Plan matmuls as fully connected layers. Default: true. */
  enableFullyConnectedPass?: boolean;
  /** Allow serialized matmuls. Default: true. */
  enableSerializedMatmuls?: boolean;
  /** Decompose gradient sums into additions. Default: false. */
  decomposeGradSum?: boolean;
  /** Alias buffers instead of copying where possible. Default: false. */
  aliasZeroCopy?: boolean;
  /** Schedule weight updates as late as possible. Default: true. */
  delayVarUpdates?: boolean;
  /** With delayVarUpdates: schedule gradient consumers that are not weight updates early. Default: false. */
  scheduleNonWeightUpdateGradientConsumersEarly?: boolean;
  /** Explicit main loops in the IR. Default: false. */
  enableExplicitMainLoops?: boolean;
  /** Host copies as ops in the IR. Default: false. */
  useHostCopyOps?: boolean;
  /** An op version the runtime does not know is an error. Default: true. */
  strictOpVersions?: boolean;
  /** How weight updates are merged. Default: "None". */
  mergeVarUpdate?: MergeVarUpdateType;
  /** Memory threshold for merged weight updates (bytes). Default: 1000000. */
  mergeVarUpdateMemThreshold?: number;
  /** Memory threshold at the peak for AutoLoose merging (bytes). Default: 8000. */
  looseThresholdAtPeak?: number;
  automaticLossScalingSettings?: {
    /** Dynamic loss scaling (needs a non-const lossScaling). Default: false. */
    enabled?: boolean;
    /** Automatic loss scaling: the tensors to track. Default: []. */
    toTrackTensors?: string[];
    /** Automatic loss scaling: histogram bin edge. Default: 0.125. */
    binEdgeLocation?: number;
    /** Automatic loss scaling: the share of gradients allowed in the upper bin. Default: 1.0000000116860974e-7. */
    thresholdUpperCountProportion?: number;
    /** Automatic loss scaling: steps between updates. Default: 1. */
    updatePeriod?: number;
    /** Automatic loss scaling: tracked gradients. Default: "AllNonViewChangingGradientTensors". */
    gradientTensorTrackingMethod?: GradientTensorTrackingMethod;
  };
  /** An fp32 loss scale tensor in fp16 models. Default: false. */
  ensureFp32LossScaleTensor?: boolean;
  /** GroupNorm's fast strided channel grouping (IPU only). Default: false. */
  groupNormStridedChannelGrouping?: boolean;
  /** Cast INT64/UINT64 to 32 bits when lowering to Poplar. Default: true. */
  enableSupportedDataTypeCasting?: boolean;
  /** Check the graph for ambiguous in-place updates. Default: false. */
  enableInplaceAmbiguityChecking?: boolean;
  replicatedCollectivesSettings?: {
    /** Schedule mergeable collectives next to each other. Default: false. */
    prepareScheduleForMergingCollectives?: boolean;
    /** Merge all-reduces that can run together. Default: false. */
    mergeAllReduceCollectives?: boolean;
  };
  /** PopART's internal switch for RNG state management. Default: false. */
  _enableRngStateManagement?: boolean;
  /** Allow the device RNG state to be read and written from the host. Default: false. */
  enableLoadAndOffloadRNGState?: boolean;
  /** Generated data instead of host streams: Off, Zeros, RandomNormal, RandomUniform. Default: "Off". */
  syntheticDataMode?: SyntheticDataMode;
  /** Prefetch input streams. Default: true. */
  enablePrefetchDatastreams?: boolean;
  /** Stream buffering depth. Default: 1. */
  defaultBufferingDepth?: number;
  /** Stream buffering depth per tensor. Default: {}. */
  bufferingDepthMap?: Record<string, number>;
  /** Re-lay out anchors on the host. Default: true. */
  rearrangeAnchorsOnHost?: boolean;
  /** Re-lay out input streams on the host. Default: false. */
  rearrangeStreamsOnHost?: boolean;
  /** Do not stream gradient accumulators to the host. Default: false. */
  disableGradAccumulationTensorStreams?: boolean;
  /** Do not stream optimizer state to the host. Default: false. */
  disableOptimizerStateTensorStreams?: boolean;
  /** IO tiles for overlapped exchange. Default: 0. */
  numIOTiles?: number;
  /** Group the host streams at the start and end of a step. Default: false. */
  groupHostSync?: boolean;
  /** Merge remote and host IO operations. Default: true. */
  enableMergeExchange?: boolean;
  /** Named buffers the host may update between runs. Default: []. */
  updatableNamedBuffers?: string[];
  /** Deprecated alias of defaultBufferingDepth. Default: 1. */
  defaultPrefetchBufferingDepth?: number;
  /** Deprecated alias of bufferingDepthMap. Default: {}. */
  prefetchBufferingDepthMap?: Record<string, number>;
  activationTensorLocationSettings?: {
    location?: {
      /** Activations: OnChip or OffChip (no effect here: tensors live in host memory). Default: "OnChip". */
      storage?: TensorStorage;
      /** Activations: the tiles loads go through (no effect here). Default: "Compute". */
      loadTileSet?: TileSet;
      /** Activations: the tiles that store them (no effect here). Default: "Compute". */
      storageTileSet?: TileSet;
      /** Activations: sharded over replicas (no effect here). Default: "Off". */
      replicatedTensorSharding?: ReplicatedTensorSharding;
      /** Activations: the replicas a sharded tensor is split over (no effect here: not sharded). Default: [0,0]. */
      shardingDomain?: CommGroup | [number, number];
    };
    /** Activations: smallest tensor stored off chip. Default: 2. */
    minElementsForOffChip?: number;
    /** Activations: smallest tensor sharded over replicas. Default: 8192. */
    minElementsForReplicatedTensorSharding?: number;
  };
  weightTensorLocationSettings?: {
    location?: {
      /** Weights: OnChip or OffChip (no effect here: tensors live in host memory). Default: "OnChip". */
      storage?: TensorStorage;
      /** Weights: the tiles loads go through (no effect here). Default: "Compute". */
      loadTileSet?: TileSet;
      /** Weights: the tiles that store them (no effect here). Default: "Compute". */
      storageTileSet?: TileSet;
      /** Weights: On shards the update of each weight of at least minElementsForReplicatedTensorSharding elements (and its optimizer state) over the replicas in replicated training; the weight itself stays whole here. Default: "Off". */
      replicatedTensorSharding?: ReplicatedTensorSharding;
      /** Weights: the replicas a sharded tensor is split over (a CommGroup: All, or Consecutive groups). Default: [0,0]. */
      shardingDomain?: CommGroup | [number, number];
    };
    /** Weights: smallest tensor stored off chip. Default: 2. */
    minElementsForOffChip?: number;
    /** Weights: smallest tensor sharded over replicas. Default: 8192. */
    minElementsForReplicatedTensorSharding?: number;
  };
  optimizerStateTensorLocationSettings?: {
    location?: {
      /** Optimizer state: OnChip or OffChip (no effect here: tensors live in host memory). Default: "OnChip". */
      storage?: TensorStorage;
      /** Optimizer state: the tiles loads go through (no effect here). Default: "Compute". */
      loadTileSet?: TileSet;
      /** Optimizer state: the tiles that store them (no effect here). Default: "Compute". */
      storageTileSet?: TileSet;
      /** Optimizer state: On splits the optimizer state of each weight of at least minElementsForReplicatedTensorSharding elements over the replicas in replicated training; each replica updates its shard. Default: "Off". */
      replicatedTensorSharding?: ReplicatedTensorSharding;
      /** Optimizer state: the replicas a sharded tensor is split over (a CommGroup: All, or Consecutive groups). Default: [0,0]. */
      shardingDomain?: CommGroup | [number, number];
    };
    /** Optimizer state: smallest tensor stored off chip. Default: 2. */
    minElementsForOffChip?: number;
    /** Optimizer state: smallest tensor sharded over replicas. Default: 8192. */
    minElementsForReplicatedTensorSharding?: number;
  };
  accumulatorTensorLocationSettings?: {
    location?: {
      /** Accumulators: OnChip or OffChip (no effect here: tensors live in host memory). Default: "OnChip". */
      storage?: TensorStorage;
      /** Accumulators: the tiles loads go through (no effect here). Default: "Compute". */
      loadTileSet?: TileSet;
      /** Accumulators: the tiles that store them (no effect here). Default: "Compute". */
      storageTileSet?: TileSet;
      /** Accumulators: sharded over replicas (no effect here: accumulators stay whole). Default: "Off". */
      replicatedTensorSharding?: ReplicatedTensorSharding;
      /** Accumulators: the replicas a sharded tensor is split over (no effect here: not sharded). Default: [0,0]. */
      shardingDomain?: CommGroup | [number, number];
    };
    /** Accumulators: smallest tensor stored off chip. Default: 2. */
    minElementsForOffChip?: number;
    /** Accumulators: smallest tensor sharded over replicas. Default: 8192. */
    minElementsForReplicatedTensorSharding?: number;
  };
  /** Count cycles for getCycleCount. Default: false. */
  instrumentWithHardwareCycleCounter?: boolean;
  /** Where cycles are counted: Outer, Inner. Default: ["Outer"]. */
  hardwareInstrumentations?: Instrumentation[];
  /** Cache compiled executables in cachePath. Default: false. */
  enableEngineCaching?: boolean;
  /** Where executables are cached. Default: "session_cache". */
  cachePath?: string;
  /** Cache the variables with the executable. Default: true. */
  enableVariablesCaching?: boolean;
  /** false: build the graph but do not compile it. Default: true. */
  compileEngine?: boolean;
  /** Directory for logs and .dot files. Default: "". */
  logDir?: string;
  /** Where .dot graphs are written: Fwd0, Fwd1, Bwd0, PreAlias, MainLoops, Final, All. Default: []. */
  dotChecks?: string[];
  /** First op written to .dot graphs. Default: 0. */
  firstDotOp?: number;
  /** Last op written to .dot graphs. Default: 10000. */
  finalDotOp?: number;
  /** Op names in .dot graphs. Default: false. */
  dotOpNames?: boolean;
  /** One .dot/PDF per subgraph. Default: true. */
  separateCallOpPdfs?: boolean;
  /** Export the Poplar computation graph. Default: false. */
  exportPoplarComputationGraph?: boolean;
  /** Export the Poplar vertex graph. Default: false. */
  exportPoplarVertexGraph?: boolean;
  /** Check the IR's aliasing against the lowered Poplar tensors. Default: false. */
  opxAliasChecking?: boolean;
  /** Check the IR's modifications against the lowered Poplar tensors. Default: false. */
  opxModifyChecking?: boolean;
  /** Progress ticks until compilation completes. Default: 100. */
  compilationProgressTotal?: number;
  /** A function (progress, total) told how far preparation is: (0, total) at session creation, (total, total) once prepareDevice has compiled. Default: false. */
  compilationProgressLogger?: ((progress: number, total: number) => void) | false;
  /** Scheduler time limit (seconds). Default: 1000000000. */
  timeLimitScheduler?: number;
  /** Scheduler swap limit. Default: 1000000000. */
  swapLimitScheduler?: number;
  /** Scheduler tie breaker: greedy, fifo or random. Default: "greedy". */
  kahnTieBreaker?: string;
  /** Directory the scheduler's Poprithms graphs are written to. Default: "". */
  serializedPoprithmsShiftGraphsDir?: string;
  /** Deprecated alias of serializedPoprithmsShiftGraphsDir. Default: "". */
  serializedPoprithmsAnnealGraphsDir?: string;
  /** Largest graph the scheduler's transitive closure pass runs on. Default: 100000. */
  transitiveClosureOptimizationThreshold?: number;
  developerSettings?: {
    /** Smallest share of time a logged scope takes. Default: 1. */
    timePartitionLoggerThresholdPercentage?: number;
  };
  experimentalSettings?: {
    /** Spread host-transferable tensors over tiles by offset. Default: false. */
    createHostTransferableTensorWithOffset?: boolean;
  };
  /** Engine options (see engineOptionDefs; unknown keys: "Unrecognised option 'x'"). Default: {}. */
  engineOptions?: Record<string, string>;
  /** Convolution planning options. Default: {}. */
  convolutionOptions?: Record<string, string>;
  /** LSTM options. Default: {}. */
  lstmOptions?: Record<string, string>;
  /** Matmul planning options. Default: {}. */
  matmulOptions?: Record<string, string>;
  /** Report options (e.g. showExecutionSteps). Default: {}. */
  reportOptions?: Record<string, string>;
  /** Collective communication options. Default: {}. */
  gclOptions?: Record<string, string>;
  /** Tensor location per tensor id. Default: {}. */
  tensorLocationSettingsOverride?: Record<string, string>;
  /** Custom codelet files added to the Poplar graph. Default: []. */
  customCodelets?: string[];
  /** Compile flags of custom codelets (e.g. "-g"). Default: "". */
  customCodeletCompileFlags?: string;
  // END generated: SessionOptions fields
}

export interface DeviceInfo {
  readonly type: 'cpu' | 'ipuModel' | 'offlineIpu' | 'sim';
  readonly id: number;
  readonly version: string;
  readonly numIpus: number;
  readonly tilesPerIPU: number;
  readonly description: string;
}

/** An integer argument: an integer Number or a BigInt (2.5, NaN or '3' is an error naming it). */
export type Int = number | bigint;

export interface DeviceManager {
  createCpuDevice(): DeviceInfo;
  createIpuModelDevice(options?: Record<string, string | number | boolean>): DeviceInfo;
  createOfflineIPUDevice(options?: Record<string, string | number | boolean>): DeviceInfo;
  createSimDevice(options?: Record<string, string | number | boolean>): DeviceInfo;
  /** Hardware IPUs (none in this build): the core's errors, as natively. */
  acquireAvailableDevice(numIpus?: number): DeviceInfo;
  acquireDeviceById(id: number): DeviceInfo;
  enumerateDevices(): DeviceInfo[];
}

/**
 * `builder.aiOnnxOpsetN`: one method per ONNX op of that opset, generated from the ONNX schemas
 * with the C++ signature: (inputs, [numOutputs for variadic-output ops], required attributes,
 * optional attributes (alphabetical), debugContext). Multi-output ops return TensorId[].
 * `constant(value: ArrayLike, debugContext?)` takes no inputs.
 */
export interface AiOnnxOpset {
  getOpsetVersion(): number;
  [op: string]: ((...args: any[]) => TensorId | TensorId[]) | (() => number);
}

export type ReductionName = 'Sum' | 'Mean' | 'NoReduction';

export interface AiGraphcoreOpset1 {
  getOpsetVersion(): number;
  /** The core's table of these methods (op type, inputs, attributes with types and defaults). */
  readonly ops: ReadonlyArray<{ method: string; opType: string; minInputs: number; maxInputs: number; doc: string;
                                attrs: ReadonlyArray<{ name: string; type: string; enumName: string; required: boolean; default?: unknown; doc: string }> }>;
  // BEGIN generated: aiGraphcore methods (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
  /** Negative log likelihood of {probs [N.., C], label [N..] (INT32)}. (Nll; reduction = "Mean", inputIsLogProbability = false) */
  nllloss(args: TensorId[], reduction?: ReductionType, ignoreIndex?: number, inputIsLogProbability?: boolean, debugContext?: string): TensorId;
  /** lambda * |x|, reduced. (L1; reduction = "Mean") */
  l1loss(args: TensorId[], lambda: number, reduction?: ReductionType, debugContext?: string): TensorId;
  /** The input itself, reduced. (IdentityLoss; reduction = "Mean") */
  identityloss(args: TensorId[], reduction?: ReductionType, debugContext?: string): TensorId;
  /** x * scale. (Scale) */
  scale(args: TensorId[], scale: number, debugContext?: string): TensorId;
  /** scale0 * a + scale1 * b; optional inputs 3 and 4 (one-element tensors) replace scale0 / scale1. (ScaledAdd; scale0 = 1, scale1 = 1) */
  scaledadd(args: TensorId[], scale0?: number, scale1?: number, debugContext?: string): TensorId;
  /** Every strides[d]-th element along each dimension d. (Subsample) */
  subsample(args: TensorId[], strides: number[], debugContext?: string): TensorId;
  /** The input with a new shape. (Reshape) */
  reshape(arg: TensorId | TensorId[], shape: number[], debugContext?: string): TensorId;
  /** Gaussian error linear unit. (Gelu) */
  gelu(args: TensorId[], debugContext?: string): TensorId;
  /** x * sigmoid(x). (Swish) */
  swish(args: TensorId[], debugContext?: string): TensorId;
  /** The input, with no gradient flowing back through it. (Detach) */
  detach(args: TensorId[], debugContext?: string): TensorId;
  /** The input (an op that patterns do not remove). (Nop) */
  nop(args: TensorId[], debugContext?: string): TensorId;
  /** exp(x) - 1. (Expm1) */
  expm1(args: TensorId[], debugContext?: string): TensorId;
  /** log(1 + x). (Log1p) */
  log1p(args: TensorId[], debugContext?: string): TensorId;
  /** Round half to even. (Round) */
  round(args: TensorId[], debugContext?: string): TensorId;
  /** atan2(a, b). (Atan2) */
  atan2(args: TensorId[], debugContext?: string): TensorId;
  /** The remainder of a / b with the sign of a. (Fmod) */
  fmod(args: TensorId[], debugContext?: string): TensorId;
  /** The remainder of a / b with the sign of b. (Remainder) */
  remainder(args: TensorId[], debugContext?: string): TensorId;
  /** The slice of {tensor, offset(, slice)} at the run-time offset (one per axis; past the end of an axis it reads 0, and slices wrap around). (DynamicSlice; noOverlap = 0) */
  dynamicslice(args: TensorId[], axes: number[], sizes: number[], noOverlap?: number, debugContext?: string): TensorId;
  /** {tensor, offset, slice}: the tensor with the slice written at the run-time offset. (DynamicUpdate; noOverlap = 0) */
  dynamicupdate(args: TensorId[], axes: number[], sizes: number[], noOverlap?: number, debugContext?: string): TensorId;
  /** {tensor, offset}: the tensor with the slice at the run-time offset zeroed. (DynamicZero) */
  dynamiczero(args: TensorId[], axes: number[], sizes: number[], debugContext?: string): TensorId;
  /** {tensor, offset, slice}: the tensor with the slice added at the run-time offset. (DynamicAdd) */
  dynamicadd(args: TensorId[], axes: number[], sizes: number[], debugContext?: string): TensorId;
  /** {source, destination, N, sourceOffset, destinationOffset}: the destination with N[i] rows of the source from sourceOffset[i] copied to destinationOffset[i]. (SequenceSlice; zeroUnused = 0) */
  sequenceslice(args: TensorId[], zeroUnused?: number, debugContext?: string): TensorId;
  /** {data, offsets, lengths for each data input, resultOffsets, resultLengths}: packed sequences unpacked, mapped by the callback and packed again. (PackedDataBlock) */
  packedDataBlock(args: TensorId[], maxSequenceLengths: number[], resultSize: number, callbackBatchSize: number, callback: Builder, debugContext?: string): TensorId;
  /** The callee subgraph applied to args (one per callee input, in order): its outputs. (Call) */
  call(args?: TensorId[], num_outputs: number, callee: Builder, debugContext?: string): TensorId[];
  /** {data, indices(, initial values)}: data scattered along the axis to the indices and reduced. (ScatterReduce; axis = -1, reduction = "Sum", enable_index_broadcast = 1) */
  scatterreduce(args: TensorId[], axis_size: number, axis?: number, reduction?: ScatterReduction, enable_index_broadcast?: number, debugContext?: string): TensorId;
  /** scatterreduce of each group of a leading group dimension. (ScatterReduce; axis = -1, reduction = "Sum", group_size = 1, enable_index_broadcast = 1) */
  groupedscatterreduce(args: TensorId[], axis_size: number, axis?: number, reduction?: ScatterReduction, group_size?: number, enable_index_broadcast?: number, debugContext?: string): TensorId;
  /** {data [G, ...], indices [G, ...]}: each group's data gathered at its indices. (GroupedGather; axis = 0, group_size = 1) */
  groupedgather(args: TensorId[], axis?: number, group_size?: number, debugContext?: string): TensorId;
  /** {input, boundaries (1-D, sorted)}: the bucket index of each input (INT32), as torch.bucketize. (Bucketize; right = 0) */
  bucketize(args: TensorId[], right?: number, debugContext?: string): TensorId;
  /** [values, indices (INT64)] of the input sorted along the axis. (Sort; axis = -1, descending = 0, stable = 0) */
  sort(args: TensorId[], axis?: number, descending?: number, stable?: number, debugContext?: string): TensorId[];
  /** [values, indices (INT32)]: the lower median over the axes and where it is among the reduced elements. (ReduceMedian; keepdims = 1) */
  reducemedian(args: TensorId[], axes?: number[], keepdims?: number, debugContext?: string): TensorId[];
  /** [output, cell_state] of PopART's LSTM of {X [seq, batch, input], weights [4, input + hidden, hidden], bias [4, hidden], initialState [2, batch, hidden], sequence lengths [batch]} (the last three optional; gates forget, input, candidate, output). (LSTM; outputFullSequence = 1) */
  lstm(args: TensorId[], outputFullSequence?: number, debugContext?: string): TensorId[];
  /** The CTC loss of {logProbs [T, N, C], targets [N, S], inputLengths [N], targetLengths [N]} (integer targets and lengths: UINT32 in PopART); Mean divides each sample's loss by its target length, then averages. (Ctc; reduction = "Mean", blank = 0, outDataType = "UNDEFINED", zeroInfinity = false) */
  ctcloss(args: TensorId[], reduction?: ReductionType, blank?: number, outDataType?: string | number, zeroInfinity?: boolean, debugContext?: string): TensorId;
  /** [loss, each sample's loss gradient w.r.t. logProbs [T, N, C]]: ctcloss with PopART's second output. (Ctc; reduction = "Mean", blank = 0, outDataType = "UNDEFINED", zeroInfinity = false) */
  _ctcloss(args: TensorId[], reduction?: ReductionType, blank?: number, outDataType?: string | number, zeroInfinity?: boolean, debugContext?: string): TensorId[];
  /** [labelProbs [N, topPaths] (log probabilities), labelLengths [N, topPaths] (UINT32), decodedLabels [N, topPaths, T] (UINT32, 0 past each length)]: a CTC prefix beam search of {logProbs [T, N, C], dataLengths [N]}. (CtcBeamSearchDecoder; blank = 0, beamWidth = 100, topPaths = 1) */
  ctcbeamsearchdecoder(args: TensorId[], blank?: number, beamWidth?: number, topPaths?: number, debugContext?: string): TensorId[];
  /** Round half to even. (NearbyInt) */
  nearbyint(args: TensorId[], debugContext?: string): TensorId;
  /** x * Phi(x): the exact GELU, with the normal CDF Phi through erf. (GeluErf) */
  geluerf(args: TensorId[], debugContext?: string): TensorId;
  /** fmod(x + increment, modulus), in x's type. (IncrementMod) */
  incrementmod(args: TensorId[], increment: number, modulus: number, debugContext?: string): TensorId;
  /** ~x, bitwise (integer tensors). (BitwiseNot) */
  bitwisenot(args?: TensorId[], debugContext?: string): TensorId;
  /** a & b, bitwise (integer tensors). (BitwiseAnd) */
  bitwiseand(args?: TensorId[], debugContext?: string): TensorId;
  /** a | b, bitwise (integer tensors). (BitwiseOr) */
  bitwiseor(args?: TensorId[], debugContext?: string): TensorId;
  /** a ^ b, bitwise (integer tensors). (BitwiseXor) */
  bitwisexor(args?: TensorId[], debugContext?: string): TensorId;
  /** ~(a ^ b), bitwise (integer tensors). (BitwiseXnor) */
  bitwisexnor(args?: TensorId[], debugContext?: string): TensorId;
  /** The input flipped along the given dimensions. (Reverse) */
  reverse(args: TensorId[], dimensions: number[], debugContext?: string): TensorId;
  /** Moves blocks of channels into the spatial dimensions (ONNX DepthToSpace 11 from any opset). (DepthToSpace; mode = "DCR") */
  depthtospace(args: TensorId[], blocksize: number, mode?: string, debugContext?: string): TensorId;
  /** A slice with its bounds as attributes. (Slice; axes = []) */
  slice(args: TensorId[], ends: number[], starts: number[], axes?: number[], debugContext?: string): TensorId;
  /** A new tensor of the given shape and type. (Init) */
  init(shape: number[], data_type: string | number, init_type: InitType, batch_axis?: number, debugContext?: string): TensorId;
  /** The input, printed as "title: {values}" (to the log destination) each time it is computed. (PrintTensor; print_gradient = 1, title = "") */
  printtensor(args: TensorId[], print_gradient?: number, title?: string, debugContext?: string): TensorId;
  /** Stops the run with an error (poplar_runtime_error "Abort Program ..."): always, or when its one input (a condition) is nonzero. (Abort) */
  abort(args?: TensorId[], debugContext?: string): void;
  /** ((image * scale) - offsets) * scales of {image [..., 3] (UINT8, FLOAT16 or FLOAT), offsets [3], scales [3]}, padded to 4 channels with zeros (UINT8 gives FLOAT16). (NormalizeImage; scale = 1) */
  normalize_image(args: TensorId[], scale?: number, debugContext?: string): TensorId;
  /** Dropout with one draw per element of a mask of the given shape, broadcast over the input (training only). (ShapedDropout; ratio = 0.5) */
  shapeddropout(args: TensorId[], shape: number[], ratio?: number, debugContext?: string): TensorId;
  /** {variable, updater}: the variable takes the updater's value; returns the updated value. (CopyVarUpdate) */
  copyvarupdate(args: TensorId[], debugContext?: string): TensorId;
  /** The input (an IPU layout change; the identity in value). (TensorRemap; remap_type = 0) */
  tensorremap(args: TensorId[], remap_type?: number, debugContext?: string): TensorId;
  /** The input combined over the replicas of this replica's group (the sum by default); every replica of the group gets the result. (ReplicatedAllReduce) */
  replicatedallreduce(args: TensorId[], collectiveOperator?: CollectiveOperator, commGroup?: number[], debugContext?: string): TensorId;
  /** The input, flattened and padded with zeros to a multiple of the group's size k, combined over the replicas of the group (the sum by default); the replica at position i of its group gets elements [i * ceil(n / k), (i + 1) * ceil(n / k)). (ReplicatedReduceScatter) */
  replicatedreducescatter(args: TensorId[], collectiveOperator?: CollectiveOperator, commGroup?: number[], debugContext?: string): TensorId;
  /** The inputs of the replicas of this replica's group, flattened and concatenated in the group's order ([k * n]; the gradient of replicatedreducescatter). PopART has the op (customOp) but no Builder method. (ReplicatedAllGather) */
  replicatedallgather(args: TensorId[], commGroup?: number[], debugContext?: string): TensorId;
  /** [Y, mean [N * G], invStdDev [N * G]] of {X [N, C, ...], scale [C], bias [C]} normalised over each group of C / G consecutive channels of each sample (torch.nn.GroupNorm). (GroupNormalization; epsilon = 0.00001) */
  groupnormalization(args: TensorId[], num_groups: number, epsilon?: number, debugContext?: string): TensorId[];
  /** One output per convolution of [[x0, w0(, b0)], [x1, w1(, b1)], ...]: each x [N, C, spatial...] convolved with its w [M, C / group, kernel...] (group = C / w[1]) and biased by b [M] (PopART's multiconv: the convolutions run in parallel on the IPU, and are independent). (MultiConv; dilations = [], inDilations = [], pads = [], outPads = [], strides = [], availableMemoryProportions = [], partialsTypes = [], enableConvDithering = []) */
  multiconv(args: TensorId[][], dilations?: number[][], inDilations?: number[][], pads?: number[][], outPads?: number[][], strides?: number[][], availableMemoryProportions?: number[], partialsTypes?: string[], planType?: string, perConvReservedTiles?: number, cycleBackOff?: number, enableConvDithering?: number[], debugContext?: string): TensorId[];
  /** BatchNormalization of {X, scale, B, mean, var} whose running variance uses the unbiased batch variance (N - 1, as PyTorch). (BatchNormalization; epsilon = 0.00001, momentum = 0.9) */
  batchnormalization(args: TensorId[], num_outputs: number, epsilon?: number, momentum?: number, debugContext?: string): TensorId[];
  /** [basis [E, S], weightIndex [E, S] (INT32)] of {pseudo [E, D], kernelSize [D] (INT32), isOpenSpline [D] (UINT8)}: the products of the open / closed B-spline pieces of each edge's pseudo-coordinates and the index of the weight each selects, S = (degree + 1)^D (torch_spline_conv's spline_basis). (SplineBasis) */
  splinebasis(args: TensorId[], degree: number, debugContext?: string): TensorId[];
  /** {input [E, Min], weight [K, Min, Mout], basis [E, S], weightIndex [E, S]} -> [E, Mout]: sum over s of basis[e, s] * input[e] @ weight[weightIndex[e, s]] (torch_spline_conv's spline_weighting). (SplineWeighting) */
  splineweighting(args: TensorId[], debugContext?: string): TensorId;
  // END generated: aiGraphcore methods
}

export interface Disposable {
  /** Frees the wasm-side object; further calls throw "... has been disposed". Idempotent. */
  dispose(): void;
}

export interface Builder extends Disposable {
  readonly aiOnnx: AiOnnxOpset;
  /** poponnx's builder.add(a, b): the same as aiOnnx.add([a, b]). */
  add(a: TensorId, b: TensorId): TensorId;
  add(inputs: [TensorId, TensorId]): TensorId;
  aiOnnxOpset(version: number): AiOnnxOpset;
  readonly aiOnnxOpset6: AiOnnxOpset;
  readonly aiOnnxOpset7: AiOnnxOpset;
  readonly aiOnnxOpset8: AiOnnxOpset;
  readonly aiOnnxOpset9: AiOnnxOpset;
  readonly aiOnnxOpset10: AiOnnxOpset;
  readonly aiOnnxOpset11: AiOnnxOpset;
  readonly aiOnnxOpset12: AiOnnxOpset;
  readonly aiOnnxOpset13: AiOnnxOpset;
  readonly aiOnnxOpset14: AiOnnxOpset;
  readonly aiOnnxOpset15: AiOnnxOpset;
  readonly aiOnnxOpset16: AiOnnxOpset;
  readonly aiOnnxOpset17: AiOnnxOpset;
  readonly aiGraphcore: AiGraphcoreOpset1;
  readonly aiGraphcoreOpset1: AiGraphcoreOpset1;
  createSubgraphBuilder(): Builder;
  setGraphName(name: string): void;
  /** Writes the replication factor the grouped weights (VariableSettings) are laid out for into the model. */
  embedReplicationFactor(replicationFactor: number): void;
  addInputTensor(info: TensorInfo, debugContext?: string): TensorId;
  addInputTensor(dtype: DataTypeName, shape: Int[], debugContext?: string): TensorId;
  addInputTensor(info: TensorInfo, settings: InputSettings, debugContext?: string): TensorId;
  addInputTensor(dtype: DataTypeName, shape: Int[], settings: InputSettings, debugContext?: string): TensorId;
  addUntypedInputTensor(debugContext?: string): TensorId;
  addInputTensorFromParentGraph(id: TensorId): void;
  addInitializedInputTensor(array: ArrayLike, debugContext?: string): TensorId;
  /** A weight grouped over replicas: one value per group in the outer dimension when there are several. */
  addInitializedInputTensor(array: ArrayLike, variableSettings: VariableSettings, debugContext?: string): TensorId;
  addOutputTensor(id: TensorId): void;
  customOp(opName: string, opVersion: number, domain: string, inputs: TensorId[],
           attributes?: Record<string, number | string | number[] | string[]>, numOutputs?: number, name?: string): TensorId[];
  getModelProto(humanReadable?: boolean): Uint8Array;
  /** Node only: writes the model (temporary file + rename). */
  saveModelProto(path: string): void;
  /** PopART's: moves the initializers' data to the file `fileName` (ONNX external data; Node only). */
  saveInitializersExternally(ids: TensorId[], fileName: string): void;
  /** As saveInitializersExternally, without a file system: returns the data file's bytes (the model names `location`). */
  saveInitializersExternallyToBytes(ids: TensorId[], location: string): Uint8Array;
  getTensorShape(id: TensorId): Shape;
  getTensorDtypeString(id: TensorId): string;
  isInitializer(id: TensorId): boolean;
  getInputTensorIds(): TensorId[];
  getOutputTensorIds(): TensorId[];
  getValueTensorIds(): TensorId[];
  getTrainableTensorIds(): TensorId[];
  pushNameScope(name: string): void;
  popNameScope(): void;
  getNameScope(name?: string): string;
  /** Runs fn inside the name scope (PopART's `with builder.nameScope(...)`). */
  nameScope<T>(name: string, fn: () => T): T;
  addNodeAttribute(name: string, value: number | string | number[] | string[], outputIds: TensorId[]): void;
  nodeHasAttribute(name: string, outputIds: TensorId[]): boolean;
  getAllNodeAttributeNames(outputIds: TensorId[]): string[];
  /** PopART's typed getters of a node attribute (the node making outputIds); a missing one or
   * another type is the core's error. */
  getInt64NodeAttribute(name: string, outputIds: TensorId | Iterable<TensorId>): number;
  getInt64VectorNodeAttribute(name: string, outputIds: TensorId | Iterable<TensorId>): number[];
  getFloatNodeAttribute(name: string, outputIds: TensorId | Iterable<TensorId>): number;
  getFloatVectorNodeAttribute(name: string, outputIds: TensorId | Iterable<TensorId>): number[];
  getStringNodeAttribute(name: string, outputIds: TensorId | Iterable<TensorId>): string;
  getStringVectorNodeAttribute(name: string, outputIds: TensorId | Iterable<TensorId>): string[];
  removeNodeAttribute(name: string, outputIds: TensorId | Iterable<TensorId>): void;
  virtualGraph(ids: TensorId | TensorId[], value?: number): void;
  /** Runs fn with every node it makes on virtual graph `value` (PopART's `with builder.virtualGraph(value):`). */
  virtualGraph<T>(value: number, fn: () => T): T;
  pipelineStage(ids: TensorId | TensorId[], value: number): void;
  pipelineStage<T>(value: number, fn: () => T): T;
  /** The nodes' execution phase (`__execution_phase`; phased execution, virtualGraphMode 'ExecutionPhases'). */
  executionPhase(ids: TensorId | TensorId[], value?: number): void;
  executionPhase<T>(value: number, fn: () => T): T;
  /** Runs fn with every node it makes at this schedule priority. */
  schedulePriority<T>(value: number, fn: () => T): T;
  /** PopART's `with builder.commGroup(type, size):` — the collectives made in fn act over that replica group. */
  commGroup<T>(type: CommGroupType | number, groupSize: number, fn: () => T): T;
  /** recomputeOutput(value, fn): fn's nodes get the RecomputeType; recomputeOutput(ids, value): as recomputeOutputInBackwardPass. */
  recomputeOutput<T>(value: RecomputeType | number, fn: () => T): T;
  recomputeOutput(ids: TensorId | TensorId[], value?: RecomputeType | number): void;
  /** Marks nodes' outputs with a RecomputeType (name or number; default 'Recompute'). */
  recomputeOutputInBackwardPass(ids: TensorId | TensorId[], value?: RecomputeType | number): void;
  /** An Identity of each tensor marked RecomputeType Checkpoint; their ids. */
  checkpointOutput(ids: TensorId[]): TensorId[];
  /** Whether a scoped virtual graph / pipeline stage / execution phase is set. */
  hasVirtualGraph(): boolean;
  hasPipelineStage(): boolean;
  hasExecutionPhase(): boolean;
  /** The node's virtual graph / pipeline stage / execution phase (an id, or a Set / array of the
   * node's outputs); without ids, the current scope's. */
  getVirtualGraph(ids?: TensorId | Iterable<TensorId>): number;
  getPipelineStage(ids?: TensorId | Iterable<TensorId>): number;
  getExecutionPhase(ids?: TensorId | Iterable<TensorId>): number;
  setAvailableMemoryProportion(id: TensorId, proportion: number): void;
  setPartialsType(id: TensorId, type: string): void;
  /** Poplar's convolution dithering for a Conv (1 / true on, 0 / false off); kept on the node, no effect on results here. */
  setEnableConvDithering(id: TensorId, value: number | boolean): void;
  /** PopART's inplacing priorities ({ExpInplace: 10}); kept on the node, no effect on a run here. */
  setInplacePreferences(id: TensorId, prefs: Record<string, number>): void;
  excludePatterns(id: TensorId, names: string[]): void;
}

/** PopART's GraphTransformer: ONNX-level rewrites of a model (bytes; a path in Node). */
export interface GraphTransformer {
  getModelProto(): Uint8Array;
  removeUnusedInputs(): void;
  prepareNodesForTraining(): void;
  convertFloatsToHalfs(): void;
  convertUINT8ToINT32(): void;
  convertUINT16ToINT32(): void;
  convertINT8ToINT32(): void;
  convertINT16ToINT32(): void;
  /** Values outside int32 are an error, or clipped with clip = true. */
  convertINT64ToINT32(clip?: boolean): void;
  convertDoublesToFloats(): void;
  convertDoublesToHalfs(): void;
  convertBFloats16ToFloat32(): void;
  convertInitializersToConstants(ids: TensorId[]): void;
  convertAllFixedPointInitializersToConstants(): void;
  /** Node only: writes the data file. */
  saveInitializersExternally(ids: TensorId[], fileName: string): void;
  saveInitializersExternallyToBytes(ids: TensorId[], location: string): Uint8Array;
  /** The files the model's externally stored tensors name (each once). Not PopART's. */
  externalDataLocations(): string[];
  /** Puts the external tensors' data inline from {location: bytes} (the inverse of
   * saveInitializersExternallyToBytes). Not PopART's. */
  inlineExternalData(files: Record<string, Uint8Array>): void;
  dispose(): void;
}

export interface BuilderConstructor {
  new (model?: ModelSource | { modelProtoOrFilename?: ModelSource; opsets?: Record<string, number> },
       opsets?: Record<string, number>): Builder;
  create(): Builder;
  createFromOnnxModel(model: ModelSource): Builder;
}

/** A step's input: a tensor; a sequence (an Array of tensors); an optional value (a tensor or a
 * sequence, or null for None). */
export type StepInput = ArrayLike | Array<NDArray | TypedArray | { data: TypedArray | number[]; shape: Shape; dtype?: DataTypeName }> | null;
/** An anchor after a run: a tensor; a sequence anchor's Array of NDArrays; an optional one's value or null. */
export type StepOutput = NDArray | TypedArray | NDArray[] | null;

export interface PyStepIO {
  inputs: Record<TensorId, StepInput>;
  outputs: Record<TensorId, StepOutput>;
}

export interface Session extends Disposable {
  prepareDevice(loadEngine?: boolean): void;
  loadEngineAndConnectStreams(): void;
  weightsFromHost(): void;
  weightsToHost(): void;
  readWeights(weights: Record<TensorId, TypedArray | NDArray>): void;
  writeWeights(weights: Record<TensorId, ArrayLike>): void;
  /** Node: writes the model to `path` (temporary file + rename); without a path, returns the bytes. */
  modelToHost(path?: string): void | Uint8Array;
  modelToHostBytes(): Uint8Array;
  /** The model for inference with the current weights: a training session's loss output and what only it needed (labels, the loss nodes) removed; no optimizer state. Node: written to `path`; without one, the bytes. */
  exportInferenceModel(path?: string): void | Uint8Array;
  /** Prepares the device if needed; the plan's hash and the weights to `path` (Node), or returned as bytes. */
  compileAndExport(path?: string): void | Uint8Array;
  /** Before prepareDevice: a compileAndExport file (Node) or its bytes, for this model, options and device. */
  loadExecutable(fileOrBytes: string | Uint8Array | ArrayBuffer): void;
  resetHostWeights(model: ModelSource, ignoreWeightsInModelWithoutCorrespondingHostWeight?: boolean): void;
  getInfo(id: TensorId): TensorInfo;
  hasInfo(id: TensorId): boolean;
  getAllTensorIds(): TensorId[];
  getAnchorShape(id: TensorId): Shape;
  initAnchorArrays(): Record<TensorId, NDArray>;
  run(stepio: PyStepIO, debugName?: string): void;
  /**
   * Poplar's text summary on an IPU device (IPU model, offline IPU); on the CPU device only with
   * profiling on (engine option autoReport.all or debug.instrument = "true"), else the core's
   * "Profiling is disabled for current device type.". resetProfile forgets the runs reported.
   */
  getSummaryReport(resetProfile?: boolean): string;
  /** The IR as PopART's JSON text ({"maingraph": [ops], "<subgraph>": [ops]}); also _serializeIr. */
  serializeIr(format?: 'JSON'): string;
  _serializeIr(format?: 'JSON'): string;
  /**
   * The profile as one plain object, the core's report document (the same as Python's getReport()):
   * {compilation: getGraphReport()'s document, execution: getExecutionReport()'s} without resetting
   * the runs; popart.reportSchema() lists its keys.
   */
  getReport(): Report;
  /**
   * The graph report (target, memory by tile and category, ops, tensors with their tile mapping):
   * JSON text, or with useCbor the same document as CBOR bytes.
   */
  getGraphReport(useCbor?: false): string;
  getGraphReport(useCbor: true): Uint8Array;
  getGraphReport(useCbor?: boolean): string | Uint8Array;
  /**
   * The execution report (`runs[i].name`, `simulation.cycles`, `simulation.steps[i].cycles`): JSON
   * text or CBOR bytes; `{"profilerMode":"NONE"}` on the CPU device without profiling.
   * resetProfile (default true) forgets the runs reported.
   */
  getExecutionReport(useCbor?: false, resetProfile?: boolean): string;
  getExecutionReport(useCbor: true, resetProfile?: boolean): Uint8Array;
  getExecutionReport(useCbor?: boolean, resetProfile?: boolean): string | Uint8Array;
  /**
   * The IPU model's cycles of the last run: id "" (default) the whole device, "inner_ipu_<i>" IPU i.
   * Needs SessionOptions instrumentWithHardwareCycleCounter (and hardwareInstrumentations Inner
   * for the per-IPU ids) and a run; otherwise the core's error.
   */
  getCycleCount(id?: string): number;
  setRandomSeed(seed: Int): void;
  isPrepared(): boolean;
  /** The session's device (the CPU device when it was made without one). */
  getDevice(): DeviceInfo;
  /** The core's SessionMemoryStats::fields(), in bytes. */
  getMemoryStats(): { activationArenaBytes: number; activationTotalBytes: number; weightBytes: number; constantBytes: number };
  /**
   * Plans of a session whose shapes are known only at run time (the CPU device: symbolic input
   * dimensions, shape-giving inputs fed at run time). Each run puts its anchors' arrays of the
   * run's shapes into the PyStepIO's outputs (an NDArray takes the new data and shape).
   */
  getRunTimePlanStats(): { runTimeShapes: boolean; plansBuilt: number; plansReused: number; plansCached: number; runTimeConstants: string[] };
}

/** An IPU generation the IPU model emulates (the core's IpuTargetInfo, as its ipuTargetJson writes it). */
export interface IpuTarget {
  /** "ipu1", "ipu2", "ipu21" (the devices' ipuVersion option). */
  version: string;
  /** The chip and its card. */
  product: string;
  tilesPerIpu: number;
  /** In-Processor-Memory (SRAM) per tile. */
  bytesPerTile: number;
  clockHz: number;
  /** FLOAT multiply-accumulate throughput per tile and cycle (2 FLOPs per MAC). */
  flopsPerTileCycleFloat: number;
  flopsPerTileCycleHalf: number;
  /** 0: no FP8. */
  flopsPerTileCycleFp8: number;
  /** Hardware threads per tile. */
  workerContexts: number;
  exchangeBytesPerTileCycle: number;
  ipuLinksPerIpu: number;
  /** One link, one direction. */
  ipuLinkBytesPerSec: number;
  /** PCIe to the host, one direction. */
  hostBytesPerSec: number;
  /** A global (bulk-synchronous) sync, per superstep. */
  syncCycles: number;
}

/** Memory category names (popart.memoryCategories), the keys of memory.byTile and memory.byCategory. */
// BEGIN generated: memory categories (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
export type MemoryCategoryName = 'variables' | 'constants' | 'activations' | 'code' | 'vertexState' | 'exchange';
// END generated: memory categories

// The report document's types (Session.getReport()) are generated into report-types.d.ts.
import type { Report } from './report-types.js';
export * from './report-types.js';

/**
 * An OutOfMemoryException from the core (prepareDevice on an offline IPU, or on the IPU model with
 * engine option debug.allowOutOfMemory = "false"): the message names the worst tiles and their
 * largest tensors; summaryReport is the whole summary report.
 */
export interface OutOfMemoryError extends Error {
  summaryReport: string;
  /** Where autoReport wrote the summary ("" when it did not): OutOfMemoryException::getProfilePath(). */
  profilePath: string;
  /** The graph report (JSON) of what did not fit: OutOfMemoryException::getGraphReport(). */
  graphReport: string;
}

/**
 * PopART's keyword arguments, as one object (alone, or after the model: Python's
 * `InferenceSession(model, dataFeed=df)` is `new InferenceSession(model, { dataFeed: df })`).
 * Unknown names, or a name given twice, are errors.
 */
export interface SessionArgs {
  fnModel: ModelSource;
  dataFlow?: DataFlow;
  /** The older name of dataFlow (poponnx, PopART before 1.0). */
  dataFeed?: DataFlow;
  /** Left out: the CPU device (logged as a warning). */
  deviceInfo?: DeviceInfo;
  /** Pre-1.2: losses appended to the model (their values can be anchored). */
  losses?: Loss[];
  inputShapeInfo?: InputShapeInfo;
  userOptions?: SessionOptionsFields;
  patterns?: Patterns | string | string[];
}

export interface InferenceSessionConstructor {
  new (args: SessionArgs): Session;
  new (model: ModelSource, args: Omit<SessionArgs, 'fnModel'>): Session;
  /** Without a deviceInfo (poponnx's `InferenceSession(model, dataFeed)`): the CPU device, logged. */
  new (model: ModelSource, dataFlow: DataFlow, deviceInfo?: DeviceInfo, inputShapeInfo?: InputShapeInfo,
       userOptions?: SessionOptionsFields, patterns?: Patterns | string | string[]): Session;
  /** Pre-1.2 form with losses. */
  new (model: ModelSource, dataFlow: DataFlow, deviceInfo: DeviceInfo, losses: Loss[], inputShapeInfo?: InputShapeInfo,
       userOptions?: SessionOptionsFields, patterns?: Patterns | string | string[]): Session;
  createFromOnnxModel(...args: ConstructorParameters<InferenceSessionConstructor>): Session;
}

/** An optimizer value: a number (constant), PopART's [value, isConst] tuple, or {value, isConst}. */
/** An instance of a settings class (TensorLocationSettings, ...): its fields, as SessionOptions'
 * nested objects take them. */
export type SettingsValue = Record<string, unknown>;

export type OptimizerValueLike = number | [number, boolean] | { value: number; isConst?: boolean };

export interface Optimizer {
  /** 'SGD', 'Adam' or 'Adaptive' (ConstSGD is an SGD). */
  type(): 'SGD' | 'Adam' | 'Adaptive';
  /** Weight-specific values, keys as in the constructor (e.g. learningRate, momentum). */
  insertSpecific(weightId: TensorId, values: Record<string, OptimizerValueLike>): this;
}

/** A pre-1.2 loss object (reduction defaults to 'Sum', as that API did). */
export interface Loss {
  output(): TensorId;
}

export interface ClipNormSettings {}

export interface TrainingSessionArgs extends SessionArgs {
  /** The id of a scalar loss tensor of the model (or, pre-1.2, an array of losses). */
  loss?: TensorId | Loss[];
  /** Pre-1.2: losses appended to the model; training minimises their sum. */
  losses?: Loss[];
  optimizer: Optimizer;
}

export interface TrainingSession extends Session {
  /** Replaces the non-const optimizer values and writes them to the device; the next run uses them. */
  updateOptimizerFromHost(optimizer: Optimizer): void;
  /** Pre-1.2 API: host half of updateOptimizerFromHost. */
  updateOptimizer(optimizer: Optimizer): void;
  /** Pre-1.2 API: device half of updateOptimizerFromHost. */
  optimizerFromHost(): void;
  /** Ids of the tensors holding non-const hyper-parameters (e.g. "scaledLearningRate0___default___FLOAT"). */
  getOptimizerTensorIds(): TensorId[];
}

export interface TrainingSessionConstructor {
  new (args: TrainingSessionArgs): TrainingSession;
  new (model: ModelSource, args: Omit<TrainingSessionArgs, 'fnModel'>): TrainingSession;
  new (model: ModelSource, dataFlow: DataFlow, loss: TensorId | Loss[], optimizer: Optimizer, deviceInfo?: DeviceInfo,
       inputShapeInfo?: InputShapeInfo, userOptions?: SessionOptionsFields,
       patterns?: Patterns | string | string[]): TrainingSession;
  createFromOnnxModel(...args: ConstructorParameters<TrainingSessionConstructor>): TrainingSession;
}

/**
 * poponnx's Session (2018-19): a thin, deprecated layer over the modern sessions. With losses and an
 * optimizer it trains; each call's PyStepIO holds the inputs and anchors of that program.
 */
export interface LegacySession extends Session {
  /** One step of TrainingSession.run (needs losses and an optimizer). */
  train(stepio: PyStepIO): void;
  /** The forward pass and the losses, without weight updates (needs losses). */
  evaluate(stepio: PyStepIO): void;
  /** The forward pass only (anchors that are losses or reserved ids such as Gradient___w are dropped). */
  infer(stepio: PyStepIO): void;
  updateOptimizer(optimizer: Optimizer): void;
  optimizerFromHost(): void;
  /** With an optimizer: the ids of the tensors holding its non-const hyper-parameters. */
  getOptimizerTensorIds(): TensorId[];
}

export interface LegacySessionArgs extends SessionArgs {
  optimizer?: Optimizer;
}

/** Session(...) or new Session(...). */
export interface LegacySessionFactory {
  /** Session(model, dataFeed[, losses[, optimizer]]); an InputShapeInfo, DeviceInfo or Patterns may follow. */
  (model: ModelSource, dataFeed: DataFlow, ...rest: Array<Loss[] | Optimizer | InputShapeInfo | DeviceInfo | Patterns>): LegacySession;
  (args: LegacySessionArgs): LegacySession;
  new (model: ModelSource, dataFeed: DataFlow, ...rest: Array<Loss[] | Optimizer | InputShapeInfo | DeviceInfo | Patterns>): LegacySession;
  new (args: LegacySessionArgs): LegacySession;
}

export type LogLevelName = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERR' | 'CRITICAL' | 'OFF';

export interface Logger {
  setLevel(level: LogLevelName | string): void;
  getLevel(): string;
}

/** One dimension of a described shape: a number, a symbolic name (dim_param), or null (unknown). */
export type DescribedDim = number | string | null;

/** Statistics of a numeric initializer or Constant output, in double precision over the finite values. */
export interface TensorStats {
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** Population standard deviation. */
  std: number | null;
  zeros: number;
  nans: number;
  infs: number;
  /** numpy.histogram(finite values, bins, range=(min, max)); null when there is no finite value. */
  histogram: { min: number; max: number; counts: number[] } | null;
}

export interface TensorDescription {
  name: string;
  kind: 'input' | 'initializer' | 'constant' | 'activation' | 'output';
  dtype: DataTypeName | null;
  /** null when even the rank is unknown. */
  shape: DescribedDim[] | null;
  /** 'inferred': the runtime's own shape inference; 'file': what the model file says. */
  shapeSource: 'inferred' | 'file' | 'unknown';
  elements: number | null;
  bytes: number | null;
  /** Name of the producing node, '' for none. */
  producer: string;
  consumers: string[];
  stats: TensorStats | null;
}

/** A TENSOR attribute's summary (values when it has at most 16 elements). */
export interface TensorSummary { dtype: string; shape: number[]; elements: number; values?: number[] | string[] }

export interface AttributeDescription {
  name: string;
  /** The ONNX AttributeType name: 'INT', 'FLOATS', 'TENSOR', 'GRAPH', ... */
  type: string;
  value: number | string | number[] | string[] | TensorSummary | TensorSummary[] | { graph: string; nodes: number }
         | { graph: string; nodes: number }[] | null;
}

export interface NodeDescription {
  /** Unique in its graph: the ONNX name, or `<opType>_<index>` when that is empty or repeated. */
  name: string;
  opType: string;
  domain: string;
  opset: number;
  attributes: AttributeDescription[];
  inputs: string[];
  outputs: string[];
  /** The node's doc_string ('' when none). */
  docString: string;
  /** Whether this runtime implements the op at the model's opset of its domain. */
  supported: boolean;
  /** Outer-scope tensors its subgraph bodies read (any depth) that are not among `inputs`, sorted. */
  implicitInputs: string[];
  /** The bodies of GRAPH / GRAPHS attributes (If, Loop, Scan), in attribute order, at every depth. */
  subgraphs?: GraphDescription[];
}

export interface GraphDescription {
  name: string;
  /** The GRAPH / GRAPHS attribute a subgraph is the value of ('then_branch', 'body'); '' for the main graph. */
  attribute: string;
  docString: string;
  inputs: string[];
  outputs: string[];
  nodes: NodeDescription[];
  tensors: TensorDescription[];
}

/** popart.describeModel's result (the core's toJson of popart::ModelDescription). */
export interface ModelDescription {
  irVersion: number;
  producerName: string;
  producerVersion: string;
  graphName: string;
  docString: string;
  /** The main graph's doc_string. */
  graphDocString: string;
  domain: string;
  modelVersion: number;
  /** The model's metadata_props, in file order. */
  metadataProps: { key: string; value: string }[];
  modelBytes: number;
  opsets: { domain: string; version: number }[];
  /** Graph inputs that are not initializers. */
  inputs: string[];
  outputs: string[];
  /** The main graph's initializers and numeric Constant outputs, optimizer state excluded. */
  parameterCount: number;
  parameterBytes: number;
  /** Initializers that are optimizer state (reserved prefixes such as 'Accl___'). */
  optimizerStateCount: number;
  optimizerStateBytes: number;
  /** Nodes per op type, most frequent first. */
  opHistogram: Record<string, number>;
  /** ok false: the runtime's error (an unknown op, a shape error, ...); tensors keep the file's shapes. */
  shapeInference: { ok: boolean; message: string };
  nodes: NodeDescription[];
  tensors: TensorDescription[];
}

export interface DescribeOptions {
  /** Input shapes that override the model's (as InputShapeInfo does for sessions); dtype defaults to the model's. */
  inputShapes?: Record<TensorId, { dtype?: DataTypeName | string; shape: Int[] } | TensorInfo> | InputShapeInfo;
  /** Bins of each histogram (1 to 65536). Default: 32. */
  histogramBins?: Int;
}

export interface Popart {
  TensorInfo: new (dtype: DataTypeName | NDArray | TypedArray, shape?: Int[]) => TensorInfo;
  NDArray: typeof NDArray;
  AnchorReturnType: ((art: string, period?: Int) => AnchorReturnType) & (new (art: string, period?: Int) => AnchorReturnType) & {
    /** poponnx's enum spelling: AnchorReturnType('All'), ('Final'), ('Sum'). */
    readonly ALL: AnchorReturnType;
    readonly FINAL: AnchorReturnType;
    readonly SUM: AnchorReturnType;
    /** AnchorReturnType('EveryN', period). */
    EVERYN(period: Int): AnchorReturnType;
  };
  DataFlow: {
    new (batchesPerStep?: Int, anchors?: Record<TensorId, AnchorReturnType | string>): DataFlow;
    new (batchesPerStep: Int, anchors: TensorId[], art?: AnchorReturnType | string): DataFlow;
    /** poponnx's form: batchSize is not used (the input shapes give it); logged as deprecated. */
    new (batchesPerStep: Int, batchSize: Int, anchors: TensorId[], art?: AnchorReturnType | string): DataFlow;
  };
  InputShapeInfo: new () => InputShapeInfo;
  Patterns: (new (levelOrNames?: 'NoPatterns' | 'Minimal' | 'Default' | 'All' | string[]) => Patterns) & {
    create(names: string[]): Patterns;
    getAllPatternNames(): string[];
    /** Every pattern: default state, whether this runtime rewrites the IR for it, and what it does. */
    list(): ReadonlyArray<{ name: string; defaultState: 'Mandatory' | 'On' | 'Off'; rewrite: boolean; doc: string }>;
  };
  /** Every field with the core's default (map options such as engineOptions as empty objects), then `fields`. */
  SessionOptions: {
    new (fields?: SessionOptionsFields): SessionOptionsFields;
    /** Every field: name (dotted for nested settings), type, enum, default and documentation. */
    list(): ReadonlyArray<{ name: string; type: string; enumName: string; default: unknown; doc: string }>;
  };
  DeviceManager: () => DeviceManager;
  Builder: BuilderConstructor;
  GraphTransformer: new (modelProtoOrFilename: ModelSource) => GraphTransformer;
  InferenceSession: InferenceSessionConstructor;
  TrainingSession: TrainingSessionConstructor;
  /** poponnx's Session (deprecated): train / evaluate / infer. */
  Session: LegacySessionFactory;
  Optimizer: abstract new (...args: never[]) => Optimizer;
  Loss: abstract new (...args: never[]) => Loss;
  // BEGIN generated: optimizer and loss constructors (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
  /** Stochastic gradient descent with momentum, dampening, weight decay, velocity scaling and nesterov. */
  SGD: {
    /** poponnx's and early PopART's form: a learning rate that is not const (updateOptimizer can change it); every other value at its default. */
    new (learningRate: number): Optimizer;
    /** Defaults: values = {}, clip_norm_settings = [], accumulatorAndMomentum = "Combined", accumType = "UNDEFINED", accl1Type = "UNDEFINED", debugContext = "sgd". */
    new (values?: Record<string, OptimizerValueLike>, clip_norm_settings?: ClipNormSettings[], accumulatorAndMomentum?: SGDAccumulatorAndMomentum, accumType?: DataTypeName, accl1Type?: DataTypeName, debugContext?: string): Optimizer;
  };
  /** SGD with a constant learning rate, weight decay and loss scaling (deprecated in PopART: use SGD). */
  ConstSGD: {
    /** Defaults: weight_decay = 0, loss_scaling = 1, clip_norm_settings = []. */
    new (learning_rate: number, weight_decay?: number, loss_scaling?: number, clip_norm_settings?: ClipNormSettings[]): Optimizer;
  };
  /** Adam, AdamNoBias, AdaMax, Lamb and LambNoBias (by mode). */
  Adam: {
    /** Defaults: values = {}, mode = "Adam", weight_decay_mode = "Decay", accum_type = "UNDEFINED", accl1_type = "FLOAT", accl2_type = "FLOAT", clip_norm_settings = [], scaled_optimizer_state = false, debugContext = "adam". */
    new (values?: Record<string, OptimizerValueLike>, mode?: AdamMode, weight_decay_mode?: WeightDecayMode, accum_type?: DataTypeName, accl1_type?: DataTypeName, accl2_type?: DataTypeName, clip_norm_settings?: ClipNormSettings[], scaled_optimizer_state?: boolean, debugContext?: string): Optimizer;
  };
  /** AdaGrad, RMSProp, CenteredRMSProp and AdaDelta (by mode). */
  Adaptive: {
    /** Defaults: values = {}, mode = "RMSProp", weight_decay_mode = "Decay", accum_type = "UNDEFINED", accl1_type = "FLOAT", accl2_type = "FLOAT", accl3_type = "UNDEFINED", rmsprop_tf_variant = false, debugContext = "adaptive". */
    new (values?: Record<string, OptimizerValueLike>, mode?: AdaptiveMode, weight_decay_mode?: WeightDecayMode, accum_type?: DataTypeName, accl1_type?: DataTypeName, accl2_type?: DataTypeName, accl3_type?: DataTypeName, rmsprop_tf_variant?: boolean, debugContext?: string): Optimizer;
  };
  /** Pre-1.2 loss object: negative log likelihood. */
  NllLoss: {
    /** Defaults: reduction = "Sum". */
    new (probs: TensorId, label: TensorId, output: TensorId, reduction?: ReductionType): Loss;
    /** Defaults: ignoreIndex = null, reduction = "Sum", inputIsLogProbability = false. */
    new (probs: TensorId, label: TensorId, output: TensorId, ignoreIndex?: number | null, reduction?: ReductionType, inputIsLogProbability?: boolean): Loss;
  };
  /** Pre-1.2 loss object: lambda * |input|, reduced. */
  L1Loss: {
    /** Defaults: reduction = "Sum". */
    new (input: TensorId, output: TensorId, lambda: number, reduction?: ReductionType): Loss;
  };
  /** Pre-1.2 loss object: the input itself, reduced. */
  IdentityLoss: {
    /** Defaults: reduction = "Sum". */
    new (input: TensorId, output: TensorId, reduction?: ReductionType): Loss;
  };
  // END generated: optimizer and loss constructors
  /** Gradient clipping: the gradients of the group are scaled by maxNorm / max(norm, maxNorm). */
  ClipNormSettings: (new (weightIds: TensorId[], maxNorm: number) => ClipNormSettings) & {
    clipWeights(weightIds: TensorId[], maxNorm: number): ClipNormSettings;
    clipAllWeights(maxNorm: number): ClipNormSettings;
  };
  PyStepIO: new (inputs: Record<TensorId, StepInput>, outputs: Record<TensorId, StepOutput>) => PyStepIO;
  /** The model (bytes, or a file path in Node) as data: nodes, tensors with the runtime's inferred
   *  types and shapes, initializer statistics. Throws for unreadable or corrupt models. */
  describeModel(model: Uint8Array | ArrayBuffer | string, options?: DescribeOptions): ModelDescription;
  /** The stored value of an initializer or a Constant's output (main graph first, then subgraphs),
   *  with its name; FLOAT16 / BFLOAT16 as raw 16-bit patterns. Throws when the model stores none. */
  tensorValue(model: Uint8Array | ArrayBuffer | string, name: string): NDArray & { name: string };
  StepIO: new (inputs: Record<TensorId, StepInput>, outputs: Record<TensorId, StepOutput>) => PyStepIO;
  /** The public enums as objects of their value names (popart.VirtualGraphMode.Manual === 'Manual'). */
  // BEGIN generated: settings classes (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
  /** PopART's ExecutionPhaseSettings(phases, stages, weightIOSchedule, activationIOSchedule, optimizerStateIOSchedule, accumulatorIOSchedule, schedule): defaults from the options table (SessionOptions.executionPhaseSettings). */
  ExecutionPhaseSettings: {
    new (phases?: number, stages?: number, weightIOSchedule?: ExecutionPhaseIOSchedule, activationIOSchedule?: ExecutionPhaseIOSchedule, optimizerStateIOSchedule?: ExecutionPhaseIOSchedule, accumulatorIOSchedule?: ExecutionPhaseIOSchedule, schedule?: ExecutionPhaseSchedule): SettingsValue;
    new (fields: { phases?: number; stages?: number; weightIOSchedule?: ExecutionPhaseIOSchedule; activationIOSchedule?: ExecutionPhaseIOSchedule; optimizerStateIOSchedule?: ExecutionPhaseIOSchedule; accumulatorIOSchedule?: ExecutionPhaseIOSchedule; schedule?: ExecutionPhaseSchedule }): SettingsValue;
    fields(): string[];
  };
  /** PopART's BatchSerializationSettings(factor, concatOnVirtualGraphChange, concatOnExecutionPhaseChange, concatOnPipelineStageChange, transformContext, method, batchSchedule): defaults from the options table (SessionOptions.batchSerializationSettings). */
  BatchSerializationSettings: {
    new (factor?: number, concatOnVirtualGraphChange?: boolean, concatOnExecutionPhaseChange?: boolean, concatOnPipelineStageChange?: boolean, transformContext?: BatchSerializationTransformContext, method?: BatchSerializationMethod, batchSchedule?: BatchSerializationBatchSchedule): SettingsValue;
    new (fields: { factor?: number; concatOnVirtualGraphChange?: boolean; concatOnExecutionPhaseChange?: boolean; concatOnPipelineStageChange?: boolean; transformContext?: BatchSerializationTransformContext; method?: BatchSerializationMethod; batchSchedule?: BatchSerializationBatchSchedule }): SettingsValue;
    fields(): string[];
  };
  /** PopART's AccumulateOuterFragmentSettings(schedule, excludedVirtualGraphs): defaults from the options table (SessionOptions.accumulateOuterFragmentSettings). */
  AccumulateOuterFragmentSettings: {
    new (schedule?: AccumulateOuterFragmentSchedule, excludedVirtualGraphs?: number[]): SettingsValue;
    new (fields: { schedule?: AccumulateOuterFragmentSchedule; excludedVirtualGraphs?: number[] }): SettingsValue;
    fields(): string[];
  };
  /** PopART's AutodiffSettings(stitchStrategy): defaults from the options table (SessionOptions.autodiffSettings). */
  AutodiffSettings: {
    new (stitchStrategy?: AutodiffStitchStrategy): SettingsValue;
    new (fields: { stitchStrategy?: AutodiffStitchStrategy }): SettingsValue;
    fields(): string[];
  };
  /** PopART's AutomaticLossScalingSettings(enabled, toTrackTensors, binEdgeLocation, thresholdUpperCountProportion, updatePeriod, gradientTensorTrackingMethod): defaults from the options table (SessionOptions.automaticLossScalingSettings). */
  AutomaticLossScalingSettings: {
    new (enabled?: boolean, toTrackTensors?: string[], binEdgeLocation?: number, thresholdUpperCountProportion?: number, updatePeriod?: number, gradientTensorTrackingMethod?: GradientTensorTrackingMethod): SettingsValue;
    new (fields: { enabled?: boolean; toTrackTensors?: string[]; binEdgeLocation?: number; thresholdUpperCountProportion?: number; updatePeriod?: number; gradientTensorTrackingMethod?: GradientTensorTrackingMethod }): SettingsValue;
    fields(): string[];
  };
  /** PopART's ReplicatedCollectivesSettings(prepareScheduleForMergingCollectives, mergeAllReduceCollectives): defaults from the options table (SessionOptions.replicatedCollectivesSettings). */
  ReplicatedCollectivesSettings: {
    new (prepareScheduleForMergingCollectives?: boolean, mergeAllReduceCollectives?: boolean): SettingsValue;
    new (fields: { prepareScheduleForMergingCollectives?: boolean; mergeAllReduceCollectives?: boolean }): SettingsValue;
    fields(): string[];
  };
  /** PopART's TensorLocationSettings(location, minElementsForOffChip, minElementsForReplicatedTensorSharding): defaults from the options table (SessionOptions.activationTensorLocationSettings). */
  TensorLocationSettings: {
    new (location?: SettingsValue | TensorStorage, minElementsForOffChip?: number, minElementsForReplicatedTensorSharding?: number): SettingsValue;
    new (fields: { location?: SettingsValue | TensorStorage; minElementsForOffChip?: number; minElementsForReplicatedTensorSharding?: number; storage?: SettingsValue | TensorStorage }): SettingsValue;
    fields(): string[];
  };
  /** PopART's TensorLocation(storage, loadTileSet, storageTileSet, replicatedTensorSharding, shardingDomain): defaults from the options table (SessionOptions.activationTensorLocationSettings.location). */
  TensorLocation: {
    new (storage?: TensorStorage): SettingsValue;
    new (storage?: TensorStorage, replicatedTensorSharding?: ReplicatedTensorSharding): SettingsValue;
    new (storage?: TensorStorage, replicatedTensorSharding?: ReplicatedTensorSharding, shardingDomain?: CommGroup | [number, number]): SettingsValue;
    new (storage?: TensorStorage, loadTileSet?: TileSet, storageTileSet?: TileSet, replicatedTensorSharding?: ReplicatedTensorSharding, shardingDomain?: CommGroup | [number, number]): SettingsValue;
    new (fields: { storage?: TensorStorage; loadTileSet?: TileSet; storageTileSet?: TileSet; replicatedTensorSharding?: ReplicatedTensorSharding; shardingDomain?: CommGroup | [number, number] }): SettingsValue;
    fields(): string[];
  };
  /** PopART's DeveloperSettings(timePartitionLoggerThresholdPercentage): defaults from the options table (SessionOptions.developerSettings). */
  DeveloperSettings: {
    new (timePartitionLoggerThresholdPercentage?: number): SettingsValue;
    new (fields: { timePartitionLoggerThresholdPercentage?: number }): SettingsValue;
    fields(): string[];
  };
  /** PopART's ExperimentalSettings(createHostTransferableTensorWithOffset): defaults from the options table (SessionOptions.experimentalSettings). */
  ExperimentalSettings: {
    new (createHostTransferableTensorWithOffset?: boolean): SettingsValue;
    new (fields: { createHostTransferableTensorWithOffset?: boolean }): SettingsValue;
    fields(): string[];
  };
  // END generated: settings classes
  // BEGIN generated: enum objects (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
  VirtualGraphMode: { Off: 'Off'; Manual: 'Manual'; Auto: 'Auto'; ExecutionPhases: 'ExecutionPhases' };
  RecomputationType: { None: 'None'; Standard: 'Standard'; NormOnly: 'NormOnly'; RecomputeAll: 'RecomputeAll'; Pipeline: 'Pipeline' };
  MergeVarUpdateType: { None: 'None'; All: 'All'; AutoLoose: 'AutoLoose'; AutoTight: 'AutoTight' };
  SyntheticDataMode: { Off: 'Off'; Zeros: 'Zeros'; RandomNormal: 'RandomNormal'; RandomUniform: 'RandomUniform' };
  Instrumentation: { Outer: 'Outer'; Inner: 'Inner' };
  SubgraphCopyingStrategy: { OnEnterAndExit: 'OnEnterAndExit'; JustInTime: 'JustInTime' };
  DotCheck: { Fwd0: 'Fwd0'; Fwd1: 'Fwd1'; Bwd0: 'Bwd0'; PreAlias: 'PreAlias'; MainLoops: 'MainLoops'; Final: 'Final'; All: 'All' };
  TensorStorage: { OnChip: 'OnChip'; OffChip: 'OffChip' };
  ReplicatedTensorSharding: { Off: 'Off'; On: 'On' };
  ExecutionPhaseIOSchedule: { Preload: 'Preload'; OnDemand: 'OnDemand' };
  ExecutionPhaseSchedule: { Interleaving: 'Interleaving'; Batch: 'Batch'; BatchClusteredIO: 'BatchClusteredIO' };
  BatchSerializationBatchSchedule: { Scheduler: 'Scheduler'; Isomorphic: 'Isomorphic'; OverlapOnIo: 'OverlapOnIo'; OverlapOnCompute: 'OverlapOnCompute' };
  BatchSerializationTransformContext: { Fwd: 'Fwd'; Bwd: 'Bwd' };
  BatchSerializationMethod: { UnrollDynamic: 'UnrollDynamic'; UnrollStatic: 'UnrollStatic'; Loop: 'Loop' };
  AccumulateOuterFragmentSchedule: { Scheduler: 'Scheduler'; Serial: 'Serial'; OverlapCycleOptimized: 'OverlapCycleOptimized'; OverlapMemoryOptimized: 'OverlapMemoryOptimized' };
  GradientTensorTrackingMethod: { AllNonViewChangingGradientTensors: 'AllNonViewChangingGradientTensors'; ConvAndMatmulGradients: 'ConvAndMatmulGradients'; GradientsOfUserSpecifiedTensors: 'GradientsOfUserSpecifiedTensors' };
  AutodiffStitchStrategy: { RecomputeMinimal: 'RecomputeMinimal'; RecomputeAllNonInputs: 'RecomputeAllNonInputs'; AddFwdOutputs: 'AddFwdOutputs'; SafeAddFwdOutputs: 'SafeAddFwdOutputs' };
  ReductionType: { Sum: 'Sum'; Mean: 'Mean'; NoReduction: 'NoReduction' };
  MeanReductionStrategy: { Running: 'Running'; Post: 'Post'; PostAndLoss: 'PostAndLoss' };
  AnchorReturnTypeId: { Final: 'Final'; EveryN: 'EveryN'; All: 'All'; Sum: 'Sum' };
  TileSet: { Compute: 'Compute'; IO: 'IO' };
  ExchangeStrategy: { JustInTime: 'JustInTime'; OverlapInnerLoop: 'OverlapInnerLoop'; OverlapLoops: 'OverlapLoops'; OverlapStep: 'OverlapStep' };
  PatternsLevel: { NoPatterns: 'NoPatterns'; Minimal: 'Minimal'; Default: 'Default'; All: 'All' };
  AdamMode: { Adam: 'Adam'; AdamNoBias: 'AdamNoBias'; AdaMax: 'AdaMax'; Lamb: 'Lamb'; LambNoBias: 'LambNoBias' };
  AdaptiveMode: { AdaGrad: 'AdaGrad'; RMSProp: 'RMSProp'; CenteredRMSProp: 'CenteredRMSProp'; AdaDelta: 'AdaDelta' };
  WeightDecayMode: { Decay: 'Decay'; L2Regularization: 'L2Regularization' };
  SGDAccumulatorAndMomentum: { Combined: 'Combined'; Separate: 'Separate' };
  OptimizerReductionType: { None: 'None'; GradReduce: 'GradReduce'; AcclReduce: 'AcclReduce'; AccumReduce: 'AccumReduce' };
  DeviceType: { IpuModel: 'IpuModel'; Cpu: 'Cpu'; Ipu: 'Ipu'; OfflineIpu: 'OfflineIpu'; Sim: 'Sim' };
  DeviceConnectionType: { Always: 'Always'; OnDemand: 'OnDemand'; Never: 'Never' };
  SyncPattern: { Full: 'Full'; SinglePipeline: 'SinglePipeline'; ReplicaAndLadder: 'ReplicaAndLadder' };
  ScatterReduction: { Sum: 'Sum'; Max: 'Max'; Min: 'Min'; Mul: 'Mul'; None: 'None' };
  InitType: { NoInit: 'NoInit'; Zero: 'Zero' };
  RecomputeType: { Undefined: 'Undefined'; Checkpoint: 'Checkpoint'; Recompute: 'Recompute'; Recomputed: 'Recomputed' };
  DeviceSelectionCriterion: { First: 'First'; Random: 'Random' };
  IrSerializationFormat: { JSON: 'JSON' };
  CommGroupType: { All: 'All'; Consecutive: 'Consecutive'; Orthogonal: 'Orthogonal'; Ungrouped: 'Ungrouped' };
  CollectiveOperator: { Add: 'Add'; Mean: 'Mean'; Mul: 'Mul'; Min: 'Min'; Max: 'Max'; LogicalAnd: 'LogicalAnd'; LogicalOr: 'LogicalOr'; SquareAdd: 'SquareAdd'; Local: 'Local' };
  VariableRetrievalMode: { OnePerGroup: 'OnePerGroup'; AllReduceReplicas: 'AllReduceReplicas'; AllReplicas: 'AllReplicas' };
  ReplicatedStreamMode: { Replicate: 'Replicate'; Broadcast: 'Broadcast' };
  // END generated: enum objects
  ReplicaGrouping: new (numReplicas: number, stride?: number, groupSize?: number) => ReplicaGrouping;
  CommGroup: new (type?: CommGroupType, replicaGroupSize?: number) => CommGroup;
  VariableSettings: {
    new (domain?: CommGroup | ReplicaGrouping | [CommGroupType, number], retrievalMode?: VariableRetrievalMode): VariableSettings;
    new (retrievalMode: VariableRetrievalMode): VariableSettings;
  };
  InputSettings: {
    new (replicatedStreamMode: ReplicatedStreamMode): InputSettings;
    new (tileSet?: TileSet, exchangeStrategy?: ExchangeStrategy): InputSettings;
  };
  /** The ops getSupportedOperations lists with their inputs, outputs and attributes. */
  getSupportedOperationsDefinition(includeInternal: boolean): OpDefinition[];
  /** The ai.onnx op types of that opset this runtime does not implement. */
  /** The ai.onnx ops of that opset this runtime does not implement, with their schema version there. */
  getUnsupportedOperations(opsetVersion: number): Array<{ domain: string; type: string; version: number }>;
  /** Starts recording debug contexts (Builder and IR ops). */
  initializePoplarDebugInfo(filename?: string, format?: 'json'): void;
  /** Stops recording: the JSON text (also written to the file given, in Node). */
  closePoplarDebugInfo(): string;
  /** {EnumName: [value names]} of every public enum. */
  enumValues: Record<string, string[]>;
  /** This runtime's version ("major.minor.point"), as numbers, and the git commit it was built from. */
  versionString(): string;
  versionNumber(): [number, number, number];
  packageHash(): string;
  /** The opsets a Builder uses unless told otherwise (PopART's: 10, 1, 1). */
  defaultAiOnnxOpset: number;
  defaultAiOnnxMlOpset: number;
  defaultAiGraphcoreOpset: number;
  /** Every op this runtime runs: domain, type and the earliest opset of its domain it is implemented at. */
  getSupportedOperations(includeInternal: boolean): Array<{ domain: string; type: string; version: number }>;
  /** PopART's reserved tensor-name parts (reservedGradientPrefix() === 'Gradient___', reservedRestoredPrefix(), ...;
   *  the core's list in popart/names.hpp). */
  [reservedPrefix: `reserved${string}Prefix` | `hostReduce${string}Prefix` | 'anchorSumPrefix' | 'cycleCountPrefix']:
    () => string;
  /** The reports' memory categories (the keys of compilation.memory.byTile besides 'total'), in the core's order. */
  memoryCategories: readonly MemoryCategoryName[];
  // BEGIN generated: exception classes (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
  /** An error of the runtime (popart::error): bad input, a call in the wrong order, an unsupported feature. */
  popart_exception: { new (message?: string): Error; prototype: Error; readonly doc: string };
  /** A broken invariant of the runtime (a bug). A subclass of popart_exception. */
  popart_internal_exception: { new (message?: string): Error; prototype: Error; readonly doc: string };
  /** An error raised while a session runs. A subclass of popart_exception. */
  popart_runtime_error: { new (message?: string): Error; prototype: Error; readonly doc: string };
  /** The device cannot hold the graph, or an allocation is over the memory limit. A subclass of popart_exception. */
  OutOfMemoryException: { new (message?: string): OutOfMemoryError; prototype: OutOfMemoryError; readonly doc: string };
  /** The errors PopART passes on from Poplar: an unknown engine option, a profile asked of a device that keeps none, a run that reached an abort op (poplar_runtime_error). */
  poplar_exception: { new (message?: string): Error; prototype: Error; readonly doc: string };
  /** A run that reached an aiGraphcore.abort op ("Abort Program ..."). A subclass of poplar_exception. */
  poplar_runtime_error: { new (message?: string): Error; prototype: Error; readonly doc: string };
  /** PopART's class for errors from Poplibs (poputil::poplibs_error). This runtime has no Poplibs: nothing raises it; it exists for scripts that catch it. */
  poplibs_exception: { new (message?: string): Error; prototype: Error; readonly doc: string };
  // END generated: exception classes
  /**
   * Every key of the report document getReport() returns, parents first (the core's
   * report::schema()): path ("[]" for an array's elements: 'compilation.ops[].name'), type
   * ('object', 'object[]', 'string', 'int', 'float', 'bool', 'int[]'), optional, doc.
   */
  reportSchema(): Array<{ path: string; type: 'object' | 'object[]' | 'string' | 'int' | 'float' | 'bool' | 'int[]';
                          optional: boolean; doc: string }>;
  /** The IPU generations the IPU-model and offline devices model (the core's ipuTargetList). */
  ipuTargets(): IpuTarget[];
  /** Every optimizer hyper-parameter key with its default (SGD({...}), Adam({...}), Adaptive({...}), insertSpecific). */
  optimizerParams(): Array<{ optimizer: 'SGD' | 'Adam' | 'Adaptive'; key: string; default: number; isConst: boolean; doc: string }>;
  /** The optimizer and loss constructors (SGD ... IdentityLoss take these arguments, positionally, as PopART's Python). */
  factoryList(): Array<{
    name: string; family: 'optimizer' | 'loss'; base: string; doc: string;
    signatures: Array<{ doc: string; args: Array<{ name: string; kind: string; enumName: string; required: boolean;
                                                  default?: unknown; doc: string }> }>;
  }>;
  /** The settings classes (TensorLocationSettings, ExecutionPhaseSettings, ...): option paths, fields in PopART's
   * constructor order, positional forms, keyword aliases. */
  settingsStructList(): Array<{
    name: string; paths: string[]; fields: string[]; fieldStructs: string[]; forms: string[][];
    keywordAliases: Record<string, string>;
  }>;
  getLogger(module?: string): Logger;
  /** Where the core's log lines go: 'stderr', 'stdout', or a function called with each line
   * (PopART's format: `<time> popart:<module> <pid>.<tid> <letter>: message`; printtensor's text as
   * it is, level INFO, module 'op') in place of the streams. */
  setLogDestination(dest: 'stderr' | 'stdout' | ((line: string, level: LogLevelName, module: string) => void)): void;
  /** Bytes allocated on the wasm heap (for leak checks). */
  heapInUse(): number;
  /** Threads the kernels use, the caller's included (at most MAX_THREADS with the pthread build, 1 otherwise). */
  setNumThreads(n: number): void;
  getNumThreads(): number;
  /**
   * The memory limit (bytes) every buffer sized from a model or a user's value is checked against
   * before it is allocated: tensors, constant folding results, a session's activations, weights
   * and scratch memory, anchor arrays. Default: the module's maximum memory (2 GiB, or
   * `createPopart({ maximumMemory })`); 0 restores it. Errors name the largest tensors.
   */
  setMemoryLimit(bytes: number): void;
  getMemoryLimit(): number;
  /** The raw Emscripten module (advanced use). */
  module: unknown;
}

/** The most threads the pthread build (popart_wasm_mt) runs. */
export const MAX_THREADS: number;
/** The range of createPopart's `maximumMemory` (32 MiB .. 2 GiB). */
export const MIN_MAXIMUM_MEMORY: number;
export const MAX_MAXIMUM_MEMORY: number;
export interface CreateOptions {
  /** Kernel threads (default 1). More than 1 loads the pthread build; browsers need a cross-origin isolated page. */
  threads?: number;
  /**
   * The module's maximum memory in bytes (MIN_MAXIMUM_MEMORY .. MAX_MAXIMUM_MEMORY; default the
   * compiled-in 2 GiB): a page can cap what a model may take; the memory limit follows it.
   */
  maximumMemory?: number;
  /** Passed to Emscripten, e.g. locateFile. */
  [emscriptenOption: string]: unknown;
}
/** Instantiates the WebAssembly module (the pthread build when `threads` > 1). */
export function createPopart(options?: CreateOptions): Promise<Popart>;
export default createPopart;
