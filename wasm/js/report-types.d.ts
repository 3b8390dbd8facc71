// TypeScript declarations of the report document (Session.getReport(); the core's
// report::schema()), re-exported by index.d.ts. See docs/ipu-model.md.

// BEGIN generated: report types (node scripts/gen_js_types.mjs; checked by tests/js/reflection.test.mjs)
/** Session.getReport(): the core's report document (report::reportJson; the keys of popart.reportSchema()). */
export interface Report {
  /** The graph report (getGraphReport): the target, the graph, memory, ops, tensors. */
  compilation: ReportCompilation;
  /** The execution report (getExecutionReport): the runs since the last reset. */
  execution: ReportExecution;
}
/** The graph report (getGraphReport): the target, the graph, memory, ops, tensors. */
export interface ReportCompilation {
  /** The machine compiled for. */
  target: ReportTarget;
  /** Counts of the compiled program. */
  graph: ReportGraph;
  /** Memory of every tile. */
  memory: ReportMemory;
  /** The ops in schedule order with their cycle estimates. */
  ops: ReportOp[];
  /** The tensors of the program and where they live. */
  tensors: ReportTensor[];
  /** The cycle model of one micro-batch and of the host transfers. */
  cycles: ReportCycles;
  /** Phased execution: each execution phase (empty otherwise). */
  phases: ReportPhase[];
}
/** The machine compiled for. */
export interface ReportTarget {
  /** "IpuModel", "OfflineIpu" or "Sim" ("" on the CPU device). */
  type: string;
  /** "ipu1", "ipu2" or "ipu21". */
  architecture: string;
  /** The chip's product name. */
  product: string;
  /** IPUs of the device (every replica's). */
  numIPUs: number;
  /** Tiles of each IPU. */
  tilesPerIPU: number;
  /** numIPUs x tilesPerIPU. */
  numTiles: number;
  /** Replicated graphs: each holds numIPUs / replicas IPUs. */
  replicas: number;
  /** Memory of one tile in bytes. */
  bytesPerTile: number;
  /** numTiles x bytesPerTile. */
  totalMemory: number;
  /** The tile clock in Hz. */
  clockFrequency: number;
  /** Worker threads of a tile. */
  workerContexts: number;
}
/** Counts of the compiled program. */
export interface ReportGraph {
  /** Ops of the schedule. */
  numOps: number;
  /** Tensors of the program. */
  numTensors: number;
  /** Ops with compute cycles. */
  numComputeSets: number;
  /** The program is pipelined (enablePipelining). */
  pipelined: boolean;
}
/** Memory of every tile. */
export interface ReportMemory {
  /** Bytes over every tile. */
  total: number;
  /** Bytes per global tile (tile t is on IPU t / tilesPerIPU). */
  byTile: ReportByTile;
  /** Bytes per memory category over every tile. */
  byCategory: ReportByCategory;
  /** The bytes of the fullest tile. */
  maxTileBytes: number;
  /** The fullest tile. */
  maxTile: number;
  /** Tiles over the target's bytesPerTile. */
  outOfMemoryTiles: number[];
}
/** Bytes per global tile (tile t is on IPU t / tilesPerIPU). */
export interface ReportByTile {
  /** Every category's bytes, one entry per tile. */
  total: number[];
  /** One entry per tile: the bytes of category 'variables'. */
  variables: number[];
  /** One entry per tile: the bytes of category 'constants'. */
  constants: number[];
  /** One entry per tile: the bytes of category 'activations'. */
  activations: number[];
  /** One entry per tile: the bytes of category 'code'. */
  code: number[];
  /** One entry per tile: the bytes of category 'vertexState'. */
  vertexState: number[];
  /** One entry per tile: the bytes of category 'exchange'. */
  exchange: number[];
}
/** Bytes per memory category over every tile. */
export interface ReportByCategory {
  /** The bytes of category 'variables'. */
  variables: number;
  /** The bytes of category 'constants'. */
  constants: number;
  /** The bytes of category 'activations'. */
  activations: number;
  /** The bytes of category 'code'. */
  code: number;
  /** The bytes of category 'vertexState'. */
  vertexState: number;
  /** The bytes of category 'exchange'. */
  exchange: number;
}
/** The ops in schedule order with their cycle estimates. */
export interface ReportOp {
  /** The IR's op id: unique in the report, stable for a model and its options. */
  id: number;
  /** The node name given in the model (or made by the IR). */
  name: string;
  /** The ONNX node the op belongs to: a forward op its own name, its gradient ops the forward node, a weight's optimizer ops the first forward node reading the weight. */
  node: string;
  /** The tensors it reads ("" for an absent optional input). */
  inputs: string[];
  /** The tensors it writes. */
  outputs: string[];
  /** The op type ("MatMul"). */
  type: string;
  /** The IPU the op runs on. */
  ipu: number;
  /** Its pipeline stage; -1: not pipelined. */
  pipelineStage: number;
  /** Its execution phase; -1: no phased execution. */
  executionPhase: number;
  /** Floating-point operations. */
  flops: number;
  /** Bytes received from other tiles (or IPUs) before the compute. */
  exchangeBytes: number;
  /** syncCycles + exchangeCycles + computeCycles. */
  cycles: number;
  /** Cycles of the compute. */
  computeCycles: number;
  /** Cycles of the exchange. */
  exchangeCycles: number;
  /** Cycles of the synchronisation. */
  syncCycles: number;
  /** The first tile of its IPU the op computes on. */
  firstTile: number;
  /** Tiles the op computes on. */
  numTiles: number;
}
/** The tensors of the program and where they live. */
export interface ReportTensor {
  /** The tensor id. */
  id: string;
  /** Its data type ("FLOAT"). */
  dtype: string;
  /** Its shape. */
  shape: number[];
  /** Its bytes (a view's are its root's). */
  bytes: number;
  /** "variable", "constant", "stream" (a model input) or "activation". */
  kind: string;
  /** Its memory category (memoryCategories). */
  category: string;
  /** Aliases another tensor (a reshape): no bytes of its own. */
  view: boolean;
  /** The IPU it lives on. */
  ipu: number;
  /** The first tile of that IPU holding it. */
  firstTile: number;
  /** bytesPerTile[k]: its bytes on tile firstTile + k. */
  bytesPerTile: number[];
  /** Schedule index of its producer (0 for weights). */
  liveFrom: number;
  /** Schedule index of its last reader (the last op for weights). */
  liveTo: number;
  /** The id of the op that writes it (compilation.ops[].id); -1 for none. */
  producer: number;
}
/** The cycle model of one micro-batch and of the host transfers. */
export interface ReportCycles {
  /** The program: every op and the inter-IPU copies. */
  perMicroBatch: number;
  /** Part of perMicroBatch: copies over IPU-Links. */
  interIpuCopies: number;
  /** Part of perMicroBatch: replicated training's gradient sum over the replicas (IPU-Links within a chassis, gateway links between chassis). */
  replicaAllReduce: number;
  /** Host to device transfers. */
  hostToDevicePerMicroBatch: number;
  /** Device to host transfers. */
  deviceToHostPerMicroBatch: number;
  /** Each IPU's share of perMicroBatch. */
  perIpu: number[];
  /** Pipelining: per stage, the cycles of its ops (and its outgoing copy) per micro-batch. */
  stageCycles: number[];
  /** Part of perMicroBatch: phased execution's loads from and stores to streaming memory. */
  streamingMemory: number;
}
/** Phased execution: each execution phase (empty otherwise). */
export interface ReportPhase {
  /** The phase. */
  phase: number;
  /** The IPU its ops run on (phase % stages). */
  ipu: number;
  /** Its ops, copies and streaming-memory transfers per micro-batch. */
  cycles: number;
  /** Streamed tensors loaded into tile memory for the phase. */
  remoteLoadBytes: number;
  /** Streamed tensors written back (updated weights, activations read in a later phase). */
  remoteStoreBytes: number;
  /** The loads and stores, in cycles. */
  remoteCycles: number;
  /** Its IPU's tensor memory during the phase (sum of the tiles' peaks). */
  tensorBytes: number;
  /** The fullest tile's tensor memory during the phase. */
  maxTileBytes: number;
}
/** The execution report (getExecutionReport): the runs since the last reset. */
export interface ReportExecution {
  /** "IPU_MODEL", or "CPU" (the CPU device with profiling on). */
  profilerMode: string;
  /** The runs since the last resetProfile. */
  runs: ReportRun[];
  /** The CPU device with profiling on: the measured host time per scheduled op since prepareDevice. */
  hostOps?: ReportHostOp[];
  /** IPU devices: the simulated cycles (Poplar's simulation block). */
  simulation?: ReportSimulation;
}
/** The runs since the last resetProfile. */
export interface ReportRun {
  /** The debugName given to run(). */
  name: string;
  /** Micro-batches executed. */
  microBatches: number;
  /** Cycles of the run (micro-batches, host transfers and syncs). */
  cycles: number;
  /** cycles at the target's clock (host time on the CPU device). */
  seconds: number;
  /** One entry per batch. */
  steps: ReportRunStep[];
  /** Pipelined runs: fill, steady state and drain. */
  pipeline?: ReportPipeline;
}
/** One entry per batch. */
export interface ReportRunStep {
  /** Cycles of the batch. */
  cycles: number;
}
/** Pipelined runs: fill, steady state and drain. */
export interface ReportPipeline {
  /** The first micro-batch through every stage, in cycles. */
  fill: number;
  /** The steady state, in cycles. */
  steady: number;
  /** The drain, in cycles. */
  drain: number;
}
/** The CPU device with profiling on: the measured host time per scheduled op since prepareDevice. */
export interface ReportHostOp {
  /** The op's name. */
  name: string;
  /** The op type. */
  type: string;
  /** Micro-batches executed. */
  calls: number;
  /** Host time over those calls. */
  seconds: number;
}
/** IPU devices: the simulated cycles (Poplar's simulation block). */
export interface ReportSimulation {
  /** Cycles of every run reported. */
  cycles: number;
  /** Each program step (an op) with its cycles over every micro-batch. */
  steps: ReportSimulationStep[];
}
/** Each program step (an op) with its cycles over every micro-batch. */
export interface ReportSimulationStep {
  /** The op's name. */
  name: string;
  /** The op type. */
  type: string;
  /** The IPU it runs on. */
  ipu: number;
  /** Its cycles summed over every micro-batch executed. */
  cycles: number;
}
// END generated: report types
