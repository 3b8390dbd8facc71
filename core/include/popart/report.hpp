// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file report.hpp
/// The profile of a session on the IPU model (or an offline IPU): where each tensor lives on the
/// tiles, the memory of every tile, the estimated cycles of every op, and the runs. This is what
/// `Session::getReport()` returns. Its one document (JSON or CBOR), what every face of the runtime
/// reads: `reportJson` = {"compilation": the graph report (`getGraphReport`), "execution": the
/// execution report (`getExecutionReport`)}, every key listed in `schema()` (docs/ipu-model.md,
/// "Report schema"). `getSummaryReport` prints the profile in Poplar's layout.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "popart/names.hpp"

namespace popart {
namespace report {

/// The machine compiled for.
struct Target {
  std::string type;          ///< "IpuModel", "OfflineIpu" or "Sim"
  std::string architecture;  ///< "ipu1", "ipu2", "ipu21"
  std::string product;
  int numIpus = 0;
  int tilesPerIpu = 0;
  int64_t numTiles = 0;  ///< numIpus x tilesPerIpu
  int replicas = 1;      ///< replicated graphs: each holds numIpus / replicas IPUs
  int64_t bytesPerTile = 0;
  int64_t totalMemory = 0;  ///< numTiles x bytesPerTile
  double clockHz = 0;
  int workerContexts = 0;
};

/// Where a tensor lives: `numTiles` consecutive tiles of IPU `ipu` from `firstTile` (a tile index
/// within the IPU), `bytesPerTile[k]` on tile firstTile + k.
struct TileMapping {
  int ipu = 0;
  int64_t firstTile = 0;
  std::vector<int64_t> bytesPerTile;
};

/// Memory categories (Poplar's report groups memory the same way).
enum class MemoryCategory { Variable, Constant, Activation, Code, VertexState, Exchange, N };
const char* memoryCategoryName(MemoryCategory c);  ///< "variables", "constants", ...

struct Tensor {
  TensorId id;
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  std::string kind;  ///< "variable", "constant", "stream" (a model input), "activation"
  MemoryCategory category = MemoryCategory::Activation;
  TileMapping mapping;
  /// Activations: the schedule indices of the producer and the last reader (inclusive); the
  /// whole program for variables and constants (0, numOps - 1). A view's bytes are its root's.
  int liveFrom = 0;
  int liveTo = 0;
  bool view = false;      ///< aliases another tensor (a reshape): no bytes of its own
  int64_t producer = -1;  ///< the `Op::id` of the op that writes it in the schedule; -1 for none
};

struct Op {
  int64_t id = 0;    ///< the IR's op id: unique in the report, stable for a given model and options
  std::string name;  ///< the node name given in the model (or made by the IR)
  /// The ONNX node the op belongs to: a forward op its own name; autodiff's ops for a forward op
  /// ("<node>/grad/...") and the sum of a tensor's gradients ("Gradient___<t>") the node of the
  /// forward op; a weight's optimizer ops the first forward op that reads the weight.
  std::string node;
  std::string type;
  std::vector<TensorId> inputs;   ///< the tensors it reads ("" for an absent optional input)
  std::vector<TensorId> outputs;  ///< the tensors it writes
  int ipu = 0;
  int pipelineStage = -1;   ///< -1: not pipelined
  int executionPhase = -1;  ///< -1: no phased execution
  int64_t flops = 0;
  int64_t exchangeBytes = 0;  ///< bytes received from other tiles (or IPUs) before the compute
  int64_t computeCycles = 0;
  int64_t exchangeCycles = 0;
  int64_t syncCycles = 0;
  int64_t cycles = 0;  ///< sync + exchange + compute
  int64_t firstTile = 0;
  int64_t numTiles = 0;
};

/// Memory of every tile: `byTile[c][t]` is category c's bytes on global tile t (IPU t /
/// tilesPerIpu); activations count their peak over the schedule on that tile.
struct Memory {
  std::vector<std::vector<int64_t>> byCategoryByTile;  ///< [MemoryCategory][tile]
  std::vector<int64_t> byTileTotal;                    ///< sum over the categories
  int64_t total = 0;
  int64_t maxTileBytes = 0;
  int64_t maxTile = 0;
  std::vector<int64_t> outOfMemoryTiles;  ///< tiles over the target's bytesPerTile
};

/// The cycle model of one micro-batch (one execution of the program) and of the host transfers.
struct Cycles {
  int64_t perMicroBatch = 0;   ///< the program (every op, inter-IPU copies)
  int64_t interIpuCopies = 0;  ///< part of perMicroBatch: copies over IPU-Links
  int64_t hostToDevicePerMicroBatch = 0;
  int64_t deviceToHostPerMicroBatch = 0;
  /// Pipelining: per stage, the cycles of its ops (plus its outgoing copy) per micro-batch.
  std::vector<int64_t> stageCycles;
  /// One IPU's share of perMicroBatch, per IPU.
  std::vector<int64_t> perIpu;
  /// Part of perMicroBatch: phased execution's loads from and stores to streaming memory.
  int64_t streamingMemory = 0;
  /// Part of perMicroBatch: replicated training's gradient sum over the replicas (IPU-Links within
  /// a chassis, the gateway links between chassis).
  int64_t replicaAllReduce = 0;
};

/// One execution phase (phased execution: VirtualGraphMode::ExecutionPhases).
struct Phase {
  int phase = 0;
  int ipu = 0;                   ///< the IPU its ops run on (phase % stages)
  int64_t cycles = 0;            ///< its ops, copies and streaming-memory transfers per micro-batch
  int64_t remoteLoadBytes = 0;   ///< streamed tensors loaded into tile memory for the phase
  int64_t remoteStoreBytes = 0;  ///< streamed tensors written back (updated weights, activations read later)
  int64_t remoteCycles = 0;      ///< the loads and stores, in cycles
  int64_t tensorBytes = 0;       ///< its IPU's tensor memory during the phase: the sum of each tile's peak
  int64_t maxTileBytes = 0;      ///< the fullest tile's tensor memory during the phase
};

struct Compilation {
  Target target;
  Memory memory;
  Cycles cycles;
  std::vector<Op> ops;  ///< in schedule order
  std::vector<Tensor> tensors;
  bool pipelined = false;
  std::vector<Phase> phases;  ///< phased execution only
  std::string schedule;       ///< the program listing (Ir::scheduleText)
};

/// One `run` of the session.
struct Step {
  int64_t cycles = 0;  ///< one batch: its micro-batches, host transfers and syncs
};
struct Run {
  std::string name;  ///< the debugName given to run()
  int64_t microBatches = 0;
  int64_t cycles = 0;
  /// Pipelined runs: the fill (first micro-batch through every stage), the steady state and the
  /// drain, in cycles (sum = the run's program cycles).
  int64_t pipelineFillCycles = 0, pipelineSteadyCycles = 0, pipelineDrainCycles = 0;
  std::vector<Step> steps;
  double seconds = 0;  ///< cycles at the target's clock
};

/// The CPU device with profiling on (engine option debug.instrument or autoReport.all): the
/// measured host time of one scheduled op, summed over every micro-batch run since prepareDevice.
struct HostOp {
  std::string name;  ///< the op's name (the node name given in the model, or made by the IR)
  std::string type;
  int64_t calls = 0;  ///< micro-batches executed
  double seconds = 0;
};

struct Execution {
  std::vector<Run> runs;
  int64_t totalCycles = 0;
  std::vector<HostOp> hostOps;  ///< CPU device, profiled: schedule order; empty on the IPU model
};

struct Report {
  Compilation compilation;
  Execution execution;
};

/// The report document of `r` as JSON text, or CBOR bytes with `cbor`: {"compilation": the graph
/// report, "execution": the execution report}, the keys of `schema()` (PopART's key names).
/// Session::getReportJson and the JS and Python getReport() return it; the graph and execution
/// reports (getGraphReport, getExecutionReport, the CLI's and autoReport's files) are its halves.
std::string reportJson(const Report& r, bool cbor = false);

/// One key of the report document. `path` names it from the root, "[]" standing for the elements
/// of an array ("compilation.ops[].name"); `type` is "object", "object[]", "string", "int",
/// "float", "bool", "int[]" or "string[]"; an `optional` key (and what it holds) is present only in some
/// documents (pipelined runs, the CPU device's host ops, IPU devices' simulation block).
struct SchemaField {
  std::string path;
  std::string type;
  bool optional = false;
  std::string doc;
};
/// Every key of the report document, parents before their children: the table the serializer is
/// checked against (tests/unit/report_schema_test.cpp) and that generates the JS `Report` types
/// (scripts/gen_js_types.mjs) and the Python stubs (python/gen_stubs.py).
const std::vector<SchemaField>& schema();
/// schema() as a JSON array of {path, type, optional, doc} (the bindings' `reportSchema()`).
std::string schemaJson();

/// Writes one file of the engine option autoReport.all: `path` is <autoReport.directory>/<session
/// name>/<file> (summary.txt, graph.json, execution.json), `bytes` its contents. The writer creates
/// the directory and throws popart::error when it cannot write. The default writes to the file
/// system; the WebAssembly module, which has no file system of its own, installs one that writes
/// through Node's `fs` (and, in a browser, writes nothing: the reports are read through the API).
using FileWriter = std::function<void(const std::string& path, const std::string& bytes)>;
/// Replaces the writer of every session of the process; an empty function restores the default.
void setFileWriter(FileWriter writer);

}  // namespace report
}  // namespace popart
