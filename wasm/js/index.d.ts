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

/** PopART's SessionOptions field names; unknown names are an error at session creation. */
export interface SessionOptionsFields {
  enableGradientAccumulation?: boolean;
  accumulationFactor?: number;
  enableReplicatedGraphs?: boolean;
  replicatedGraphCount?: number;
  enablePipelining?: boolean;
  virtualGraphMode?: 'Off' | 'Manual' | 'Auto' | 'ExecutionPhases';
  constantWeights?: boolean;
  enableOutlining?: boolean;
  enableStochasticRounding?: boolean;
  enableFloatingPointChecks?: boolean;
  enableNonStableSoftmax?: boolean;
  enableStableNorm?: boolean;
  partialsTypeMatMuls?: string;
  strictOpVersions?: boolean;
  engineOptions?: Record<string, string>;
  reportOptions?: Record<string, string>;
  [field: string]: unknown;
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
  nllloss(args: TensorId[], reduction?: ReductionName, ignoreIndex?: number, inputIsLogProbability?: boolean, debugContext?: string): TensorId;
  l1loss(args: TensorId[], lambda: number, reduction?: ReductionName, debugContext?: string): TensorId;
  identityloss(args: TensorId[], reduction?: ReductionName, debugContext?: string): TensorId;
  scale(args: TensorId[], scale: number, debugContext?: string): TensorId;
  scaledadd(args: TensorId[], scale0?: number, scale1?: number, debugContext?: string): TensorId;
  subsample(args: TensorId[], strides: number[], debugContext?: string): TensorId;
  reshape(args: TensorId[], shape: number[], debugContext?: string): TensorId;
  gelu(args: TensorId[], debugContext?: string): TensorId;
  swish(args: TensorId[], debugContext?: string): TensorId;
  detach(args: TensorId[], debugContext?: string): TensorId;
  nop(args: TensorId[], debugContext?: string): TensorId;
  expm1(args: TensorId[], debugContext?: string): TensorId;
  log1p(args: TensorId[], debugContext?: string): TensorId;
  atan2(args: TensorId[], debugContext?: string): TensorId;
  fmod(args: TensorId[], debugContext?: string): TensorId;
  remainder(args: TensorId[], debugContext?: string): TensorId;
  round(args: TensorId[], debugContext?: string): TensorId;
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
  addInputTensor(info: TensorInfo, debugContext?: string): TensorId;
  addInputTensor(dtype: DataTypeName, shape: Int[], debugContext?: string): TensorId;
  addUntypedInputTensor(debugContext?: string): TensorId;
  addInputTensorFromParentGraph(id: TensorId): void;
  addInitializedInputTensor(array: ArrayLike, debugContext?: string): TensorId;
  addOutputTensor(id: TensorId): void;
  customOp(opName: string, opVersion: number, domain: string, inputs: TensorId[],
           attributes?: Record<string, number | string | number[] | string[]>, numOutputs?: number, name?: string): TensorId[];
  getModelProto(humanReadable?: boolean): Uint8Array;
  /** Node only: writes the model (temporary file + rename). */
  saveModelProto(path: string): void;
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
  virtualGraph(ids: TensorId | TensorId[], value?: number): void;
  pipelineStage(ids: TensorId | TensorId[], value: number): void;
  recomputeOutputInBackwardPass(id: TensorId, value?: number): void;
  setAvailableMemoryProportion(id: TensorId, proportion: number): void;
  setPartialsType(id: TensorId, type: string): void;
  excludePatterns(id: TensorId, names: string[]): void;
}

export interface BuilderConstructor {
  new (model?: ModelSource | { modelProtoOrFilename?: ModelSource; opsets?: Record<string, number> },
       opsets?: Record<string, number>): Builder;
  create(): Builder;
  createFromOnnxModel(model: ModelSource): Builder;
}

export interface PyStepIO {
  inputs: Record<TensorId, ArrayLike>;
  outputs: Record<TensorId, NDArray | TypedArray>;
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
  resetHostWeights(model: ModelSource, ignoreWeightsInModelWithoutCorrespondingHostWeight?: boolean): void;
  getInfo(id: TensorId): TensorInfo;
  hasInfo(id: TensorId): boolean;
  getAllTensorIds(): TensorId[];
  getAnchorShape(id: TensorId): Shape;
  initAnchorArrays(): Record<TensorId, NDArray>;
  run(stepio: PyStepIO, debugName?: string): void;
  getSummaryReport(resetProfile?: boolean): string;
  setRandomSeed(seed: Int): void;
  isPrepared(): boolean;
  /** The session's device (the CPU device when it was made without one). */
  getDevice(): DeviceInfo;
  getMemoryStats(): { weightBytes: number; activationArenaBytes: number };
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

export interface Logger {
  setLevel(level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERR' | 'CRITICAL' | 'OFF' | string): void;
  getLevel(): string;
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
  };
  PatternsLevel: { NoPatterns: 'NoPatterns'; Minimal: 'Minimal'; Default: 'Default'; All: 'All' };
  /** Every field with the core's default (map options such as engineOptions as empty objects), then `fields`. */
  SessionOptions: new (fields?: SessionOptionsFields) => SessionOptionsFields;
  DeviceManager: () => DeviceManager;
  Builder: BuilderConstructor;
  InferenceSession: InferenceSessionConstructor;
  TrainingSession: TrainingSessionConstructor;
  /** poponnx's Session (deprecated): train / evaluate / infer. */
  Session: LegacySessionFactory;
  Optimizer: abstract new (...args: never[]) => Optimizer;
  /** SGD({defaultLearningRate, defaultMomentum, defaultDampening, defaultVelocityScaling, defaultWeightDecay,
   *  lossScaling, nesterov, ...}, clipNormSettings (must be empty), 'Combined' | 'Separate'). */
  SGD: {
    new (values?: Record<string, OptimizerValueLike>, clipNormSettings?: ClipNormSettings[],
         accumulatorAndMomentum?: 'Combined' | 'Separate'): Optimizer;
    /** poponnx's / early PopART's SGD(learningRate): a non-constant learning rate, other values at their defaults. */
    new (learningRate: number): Optimizer;
  };
  ConstSGD: new (learningRate: number, weightDecay?: number, lossScaling?: number,
                 clipNormSettings?: ClipNormSettings[]) => Optimizer;
  Adam: new (values?: Record<string, OptimizerValueLike>,
             mode?: 'Adam' | 'AdamNoBias' | 'AdaMax' | 'Lamb' | 'LambNoBias',
             weightDecayMode?: 'Decay' | 'L2Regularization', clipNormSettings?: ClipNormSettings[]) => Optimizer;
  /** Gradient clipping: the gradients of the group are scaled by maxNorm / max(norm, maxNorm). */
  ClipNormSettings: (new (weightIds: TensorId[], maxNorm: number) => ClipNormSettings) & {
    clipWeights(weightIds: TensorId[], maxNorm: number): ClipNormSettings;
    clipAllWeights(maxNorm: number): ClipNormSettings;
  };
  NllLoss: new (probs: TensorId, label: TensorId, output: TensorId,
                reductionOrIgnoreIndex?: 'Sum' | 'Mean' | 'NoReduction' | number,
                reduction?: 'Sum' | 'Mean' | 'NoReduction', inputIsLogProbability?: boolean) => Loss;
  L1Loss: new (input: TensorId, output: TensorId, lambda: number, reduction?: 'Sum' | 'Mean' | 'NoReduction') => Loss;
  IdentityLoss: new (input: TensorId, output: TensorId, reduction?: 'Sum' | 'Mean' | 'NoReduction') => Loss;
  Adaptive: new (values?: Record<string, OptimizerValueLike>,
                 mode?: 'AdaGrad' | 'RMSProp' | 'CenteredRMSProp' | 'AdaDelta',
                 weightDecayMode?: 'Decay' | 'L2Regularization', rmspropTFVariant?: boolean) => Optimizer;
  PyStepIO: new (inputs: Record<TensorId, ArrayLike>, outputs: Record<TensorId, NDArray | TypedArray>) => PyStepIO;
  StepIO: new (inputs: Record<TensorId, ArrayLike>, outputs: Record<TensorId, NDArray | TypedArray>) => PyStepIO;
  ReductionType: { Sum: 'Sum'; Mean: 'Mean'; NoReduction: 'NoReduction' };
  getLogger(module?: string): Logger;
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
