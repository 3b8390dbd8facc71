#include "session/report_json.hpp"

#include <nlohmann/json.hpp>

namespace popart {
namespace {

using nlohmann::json;

std::string dump(const json& j, bool cbor) {
  // Names come from the model, whose strings need not be UTF-8: invalid bytes become U+FFFD.
  if (!cbor) return j.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::vector<std::uint8_t> b = json::to_cbor(j);
  return std::string(b.begin(), b.end());
}

// The serializers below write exactly the keys of report::schema() (the table at the end of this
// file); tests/unit/report_schema_test.cpp walks real documents against the table both ways.

json target(const report::Target& t) {
  return {{"type", t.type},
          {"architecture", t.architecture},
          {"product", t.product},
          {"numIPUs", t.numIpus},
          {"tilesPerIPU", t.tilesPerIpu},
          {"numTiles", t.numTiles},
          {"replicas", t.replicas},
          {"bytesPerTile", t.bytesPerTile},
          {"totalMemory", t.totalMemory},
          {"clockFrequency", t.clockHz},
          {"workerContexts", t.workerContexts}};
}

json graphJson(const report::Compilation& c) {
  json j;
  j["target"] = target(c.target);
  int64_t computeSets = 0;
  for (const auto& op : c.ops) computeSets += op.computeCycles > 0 ? 1 : 0;
  j["graph"] = {{"numOps", c.ops.size()},
                {"numTensors", c.tensors.size()},
                {"numComputeSets", computeSets},
                {"pipelined", c.pipelined}};
  json byTile = json::object(), byCategory = json::object();
  byTile["total"] = c.memory.byTileTotal;
  for (int k = 0; k < static_cast<int>(report::MemoryCategory::N); ++k) {
    const char* name = report::memoryCategoryName(static_cast<report::MemoryCategory>(k));
    const auto idx = static_cast<size_t>(k);
    const std::vector<int64_t> none;
    const std::vector<int64_t>& tiles = idx < c.memory.byCategoryByTile.size() ? c.memory.byCategoryByTile[idx] : none;
    byTile[name] = tiles;
    int64_t sum = 0;
    for (int64_t b : tiles) sum += b;
    byCategory[name] = sum;
  }
  j["memory"] = {{"total", c.memory.total},     {"byTile", byTile},
                 {"byCategory", byCategory},    {"maxTileBytes", c.memory.maxTileBytes},
                 {"maxTile", c.memory.maxTile}, {"outOfMemoryTiles", c.memory.outOfMemoryTiles}};
  json ops = json::array();
  for (const report::Op& op : c.ops)
    ops.push_back({{"id", op.id},
                   {"name", op.name},
                   {"node", op.node},
                   {"inputs", op.inputs},
                   {"outputs", op.outputs},
                   {"type", op.type},
                   {"ipu", op.ipu},
                   {"pipelineStage", op.pipelineStage},
                   {"executionPhase", op.executionPhase},
                   {"flops", op.flops},
                   {"exchangeBytes", op.exchangeBytes},
                   {"cycles", op.cycles},
                   {"computeCycles", op.computeCycles},
                   {"exchangeCycles", op.exchangeCycles},
                   {"syncCycles", op.syncCycles},
                   {"firstTile", op.firstTile},
                   {"numTiles", op.numTiles}});
  j["ops"] = std::move(ops);
  json tensors = json::array();
  for (const report::Tensor& t : c.tensors)
    tensors.push_back({{"id", t.id},
                       {"dtype", t.dtype},
                       {"shape", t.shape},
                       {"bytes", t.bytes},
                       {"kind", t.kind},
                       {"category", report::memoryCategoryName(t.category)},
                       {"view", t.view},
                       {"ipu", t.mapping.ipu},
                       {"firstTile", t.mapping.firstTile},
                       {"bytesPerTile", t.mapping.bytesPerTile},
                       {"liveFrom", t.liveFrom},
                       {"liveTo", t.liveTo},
                       {"producer", t.producer}});
  j["tensors"] = std::move(tensors);
  const report::Cycles& cy = c.cycles;
  j["cycles"] = {{"perMicroBatch", cy.perMicroBatch},
                 {"interIpuCopies", cy.interIpuCopies},
                 {"replicaAllReduce", cy.replicaAllReduce},
                 {"hostToDevicePerMicroBatch", cy.hostToDevicePerMicroBatch},
                 {"deviceToHostPerMicroBatch", cy.deviceToHostPerMicroBatch},
                 {"perIpu", cy.perIpu},
                 {"stageCycles", cy.stageCycles},
                 {"streamingMemory", cy.streamingMemory}};
  json phases = json::array();
  for (const report::Phase& ph : c.phases)
    phases.push_back({{"phase", ph.phase},
                      {"ipu", ph.ipu},
                      {"cycles", ph.cycles},
                      {"remoteLoadBytes", ph.remoteLoadBytes},
                      {"remoteStoreBytes", ph.remoteStoreBytes},
                      {"remoteCycles", ph.remoteCycles},
                      {"tensorBytes", ph.tensorBytes},
                      {"maxTileBytes", ph.maxTileBytes}});
  j["phases"] = std::move(phases);
  return j;
}

json executionJson(const report::Report& r) {
  const report::Compilation& c = r.compilation;
  json j;
  j["profilerMode"] = c.target.type.empty() ? "CPU" : "IPU_MODEL";
  json runs = json::array();
  int64_t total = 0, micro = 0;
  for (const report::Run& run : r.execution.runs) {
    json steps = json::array();
    for (const report::Step& s : run.steps) steps.push_back({{"cycles", s.cycles}});
    json jr = {{"name", run.name},
               {"microBatches", run.microBatches},
               {"cycles", run.cycles},
               {"seconds", run.seconds},
               {"steps", steps}};
    if (c.pipelined)
      jr["pipeline"] = {
          {"fill", run.pipelineFillCycles}, {"steady", run.pipelineSteadyCycles}, {"drain", run.pipelineDrainCycles}};
    runs.push_back(std::move(jr));
    total += run.cycles;
    micro += run.microBatches;
  }
  j["runs"] = std::move(runs);
  if (!r.execution.hostOps.empty()) {
    // The CPU device: measured host time per op (totals since prepareDevice).
    json ops = json::array();
    for (const report::HostOp& o : r.execution.hostOps)
      ops.push_back({{"name", o.name}, {"type", o.type}, {"calls", o.calls}, {"seconds", o.seconds}});
    j["hostOps"] = std::move(ops);
  }
  if (!c.target.type.empty()) {
    // Poplar's simulation block: the total, and each program step (an op of the micro-batch
    // program) with its cycles summed over every micro-batch executed.
    json steps = json::array();
    for (const report::Op& op : c.ops)
      steps.push_back({{"name", op.name}, {"type", op.type}, {"ipu", op.ipu}, {"cycles", op.cycles * micro}});
    j["simulation"] = {{"cycles", total}, {"steps", std::move(steps)}};
  }
  return j;
}

}  // namespace

std::string graphReportJson(const report::Compilation& c, bool cbor) {
  return dump(graphJson(c), cbor);
}

std::string executionReportJson(const report::Report& r, bool cbor) {
  return dump(executionJson(r), cbor);
}

std::string noProfileJson(bool cbor) {
  return dump(json{{"profilerMode", "NONE"}}, cbor);
}

namespace report {

std::string reportJson(const Report& r, bool cbor) {
  return dump(json{{"compilation", graphJson(r.compilation)}, {"execution", executionJson(r)}}, cbor);
}

const std::vector<SchemaField>& schema() {
  static const std::vector<SchemaField> fields = [] {
    std::vector<SchemaField> f;
    const auto add = [&f](const char* path, const char* type, const char* doc, bool optional = false) {
      f.push_back({path, type, optional, doc});
    };
    const auto categories = [&f](const std::string& parent, const std::string& type, const std::string& doc) {
      for (int k = 0; k < static_cast<int>(MemoryCategory::N); ++k) {
        const std::string name = memoryCategoryName(static_cast<MemoryCategory>(k));
        f.push_back({parent + "." + name, type, false, doc + " '" + name + "'."});
      }
    };
    // ---- compilation: the graph report (getGraphReport).
    add("compilation", "object", "The graph report (getGraphReport): the target, the graph, memory, ops, tensors.");
    add("compilation.target", "object", "The machine compiled for.");
    add("compilation.target.type", "string", "\"IpuModel\", \"OfflineIpu\" or \"Sim\" (\"\" on the CPU device).");
    add("compilation.target.architecture", "string", "\"ipu1\", \"ipu2\" or \"ipu21\".");
    add("compilation.target.product", "string", "The chip's product name.");
    add("compilation.target.numIPUs", "int", "IPUs of the device (every replica's).");
    add("compilation.target.tilesPerIPU", "int", "Tiles of each IPU.");
    add("compilation.target.numTiles", "int", "numIPUs x tilesPerIPU.");
    add("compilation.target.replicas", "int", "Replicated graphs: each holds numIPUs / replicas IPUs.");
    add("compilation.target.bytesPerTile", "int", "Memory of one tile in bytes.");
    add("compilation.target.totalMemory", "int", "numTiles x bytesPerTile.");
    add("compilation.target.clockFrequency", "float", "The tile clock in Hz.");
    add("compilation.target.workerContexts", "int", "Worker threads of a tile.");
    add("compilation.graph", "object", "Counts of the compiled program.");
    add("compilation.graph.numOps", "int", "Ops of the schedule.");
    add("compilation.graph.numTensors", "int", "Tensors of the program.");
    add("compilation.graph.numComputeSets", "int", "Ops with compute cycles.");
    add("compilation.graph.pipelined", "bool", "The program is pipelined (enablePipelining).");
    add("compilation.memory", "object", "Memory of every tile.");
    add("compilation.memory.total", "int", "Bytes over every tile.");
    add("compilation.memory.byTile", "object", "Bytes per global tile (tile t is on IPU t / tilesPerIPU).");
    add("compilation.memory.byTile.total", "int[]", "Every category's bytes, one entry per tile.");
    categories("compilation.memory.byTile", "int[]", "One entry per tile: the bytes of category");
    add("compilation.memory.byCategory", "object", "Bytes per memory category over every tile.");
    categories("compilation.memory.byCategory", "int", "The bytes of category");
    add("compilation.memory.maxTileBytes", "int", "The bytes of the fullest tile.");
    add("compilation.memory.maxTile", "int", "The fullest tile.");
    add("compilation.memory.outOfMemoryTiles", "int[]", "Tiles over the target's bytesPerTile.");
    add("compilation.ops", "object[]", "The ops in schedule order with their cycle estimates.");
    add("compilation.ops[].id", "int", "The IR's op id: unique in the report, stable for a model and its options.");
    add("compilation.ops[].name", "string", "The node name given in the model (or made by the IR).");
    add("compilation.ops[].node", "string",
        "The ONNX node the op belongs to: a forward op its own name, its gradient ops the forward node, a "
        "weight's optimizer ops the first forward node reading the weight.");
    add("compilation.ops[].inputs", "string[]", "The tensors it reads (\"\" for an absent optional input).");
    add("compilation.ops[].outputs", "string[]", "The tensors it writes.");
    add("compilation.ops[].type", "string", "The op type (\"MatMul\").");
    add("compilation.ops[].ipu", "int", "The IPU the op runs on.");
    add("compilation.ops[].pipelineStage", "int", "Its pipeline stage; -1: not pipelined.");
    add("compilation.ops[].executionPhase", "int", "Its execution phase; -1: no phased execution.");
    add("compilation.ops[].flops", "int", "Floating-point operations.");
    add("compilation.ops[].exchangeBytes", "int", "Bytes received from other tiles (or IPUs) before the compute.");
    add("compilation.ops[].cycles", "int", "syncCycles + exchangeCycles + computeCycles.");
    add("compilation.ops[].computeCycles", "int", "Cycles of the compute.");
    add("compilation.ops[].exchangeCycles", "int", "Cycles of the exchange.");
    add("compilation.ops[].syncCycles", "int", "Cycles of the synchronisation.");
    add("compilation.ops[].firstTile", "int", "The first tile of its IPU the op computes on.");
    add("compilation.ops[].numTiles", "int", "Tiles the op computes on.");
    add("compilation.tensors", "object[]", "The tensors of the program and where they live.");
    add("compilation.tensors[].id", "string", "The tensor id.");
    add("compilation.tensors[].dtype", "string", "Its data type (\"FLOAT\").");
    add("compilation.tensors[].shape", "int[]", "Its shape.");
    add("compilation.tensors[].bytes", "int", "Its bytes (a view's are its root's).");
    add("compilation.tensors[].kind", "string",
        "\"variable\", \"constant\", \"stream\" (a model input) or \"activation\".");
    add("compilation.tensors[].category", "string", "Its memory category (memoryCategories).");
    add("compilation.tensors[].view", "bool", "Aliases another tensor (a reshape): no bytes of its own.");
    add("compilation.tensors[].ipu", "int", "The IPU it lives on.");
    add("compilation.tensors[].firstTile", "int", "The first tile of that IPU holding it.");
    add("compilation.tensors[].bytesPerTile", "int[]", "bytesPerTile[k]: its bytes on tile firstTile + k.");
    add("compilation.tensors[].liveFrom", "int", "Schedule index of its producer (0 for weights).");
    add("compilation.tensors[].liveTo", "int", "Schedule index of its last reader (the last op for weights).");
    add("compilation.tensors[].producer", "int",
        "The id of the op that writes it (compilation.ops[].id); -1 for none.");
    add("compilation.cycles", "object", "The cycle model of one micro-batch and of the host transfers.");
    add("compilation.cycles.perMicroBatch", "int", "The program: every op and the inter-IPU copies.");
    add("compilation.cycles.interIpuCopies", "int", "Part of perMicroBatch: copies over IPU-Links.");
    add("compilation.cycles.replicaAllReduce", "int",
        "Part of perMicroBatch: replicated training's gradient sum over the replicas (IPU-Links within a chassis, "
        "gateway links between chassis).");
    add("compilation.cycles.hostToDevicePerMicroBatch", "int", "Host to device transfers.");
    add("compilation.cycles.deviceToHostPerMicroBatch", "int", "Device to host transfers.");
    add("compilation.cycles.perIpu", "int[]", "Each IPU's share of perMicroBatch.");
    add("compilation.cycles.stageCycles", "int[]",
        "Pipelining: per stage, the cycles of its ops (and its outgoing copy) per micro-batch.");
    add("compilation.cycles.streamingMemory", "int",
        "Part of perMicroBatch: phased execution's loads from and stores to streaming memory.");
    add("compilation.phases", "object[]", "Phased execution: each execution phase (empty otherwise).");
    add("compilation.phases[].phase", "int", "The phase.");
    add("compilation.phases[].ipu", "int", "The IPU its ops run on (phase % stages).");
    add("compilation.phases[].cycles", "int", "Its ops, copies and streaming-memory transfers per micro-batch.");
    add("compilation.phases[].remoteLoadBytes", "int", "Streamed tensors loaded into tile memory for the phase.");
    add("compilation.phases[].remoteStoreBytes", "int",
        "Streamed tensors written back (updated weights, activations read in a later phase).");
    add("compilation.phases[].remoteCycles", "int", "The loads and stores, in cycles.");
    add("compilation.phases[].tensorBytes", "int",
        "Its IPU's tensor memory during the phase (sum of the tiles' peaks).");
    add("compilation.phases[].maxTileBytes", "int", "The fullest tile's tensor memory during the phase.");
    // ---- execution: the execution report (getExecutionReport).
    add("execution", "object", "The execution report (getExecutionReport): the runs since the last reset.");
    add("execution.profilerMode", "string", "\"IPU_MODEL\", or \"CPU\" (the CPU device with profiling on).");
    add("execution.runs", "object[]", "The runs since the last resetProfile.");
    add("execution.runs[].name", "string", "The debugName given to run().");
    add("execution.runs[].microBatches", "int", "Micro-batches executed.");
    add("execution.runs[].cycles", "int", "Cycles of the run (micro-batches, host transfers and syncs).");
    add("execution.runs[].seconds", "float", "cycles at the target's clock (host time on the CPU device).");
    add("execution.runs[].steps", "object[]", "One entry per batch.");
    add("execution.runs[].steps[].cycles", "int", "Cycles of the batch.");
    add("execution.runs[].pipeline", "object", "Pipelined runs: fill, steady state and drain.", true);
    add("execution.runs[].pipeline.fill", "int", "The first micro-batch through every stage, in cycles.");
    add("execution.runs[].pipeline.steady", "int", "The steady state, in cycles.");
    add("execution.runs[].pipeline.drain", "int", "The drain, in cycles.");
    add("execution.hostOps", "object[]",
        "The CPU device with profiling on: the measured host time per scheduled op since prepareDevice.", true);
    add("execution.hostOps[].name", "string", "The op's name.");
    add("execution.hostOps[].type", "string", "The op type.");
    add("execution.hostOps[].calls", "int", "Micro-batches executed.");
    add("execution.hostOps[].seconds", "float", "Host time over those calls.");
    add("execution.simulation", "object", "IPU devices: the simulated cycles (Poplar's simulation block).", true);
    add("execution.simulation.cycles", "int", "Cycles of every run reported.");
    add("execution.simulation.steps", "object[]", "Each program step (an op) with its cycles over every micro-batch.");
    add("execution.simulation.steps[].name", "string", "The op's name.");
    add("execution.simulation.steps[].type", "string", "The op type.");
    add("execution.simulation.steps[].ipu", "int", "The IPU it runs on.");
    add("execution.simulation.steps[].cycles", "int", "Its cycles summed over every micro-batch executed.");
    return f;
  }();
  return fields;
}

std::string schemaJson() {
  json a = json::array();
  for (const SchemaField& f : schema())
    a.push_back({{"path", f.path}, {"type", f.type}, {"optional", f.optional}, {"doc", f.doc}});
  return a.dump();
}

}  // namespace report
}  // namespace popart
