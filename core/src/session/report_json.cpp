#include "session/report_json.hpp"

#include <nlohmann/json.hpp>

namespace popart {
namespace {

using nlohmann::json;

std::string dump(const json& j, bool cbor) {
  if (!cbor) return j.dump();
  const std::vector<std::uint8_t> b = json::to_cbor(j);
  return std::string(b.begin(), b.end());
}

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

}  // namespace

std::string graphReportJson(const report::Compilation& c, bool cbor) {
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
  for (size_t k = 0; k < c.memory.byCategoryByTile.size(); ++k) {
    const char* name = report::memoryCategoryName(static_cast<report::MemoryCategory>(k));
    byTile[name] = c.memory.byCategoryByTile[k];
    int64_t sum = 0;
    for (int64_t b : c.memory.byCategoryByTile[k]) sum += b;
    byCategory[name] = sum;
  }
  j["memory"] = {{"total", c.memory.total},     {"byTile", byTile},
                 {"byCategory", byCategory},    {"maxTileBytes", c.memory.maxTileBytes},
                 {"maxTile", c.memory.maxTile}, {"outOfMemoryTiles", c.memory.outOfMemoryTiles}};
  json ops = json::array();
  for (const report::Op& op : c.ops)
    ops.push_back({{"name", op.name},
                   {"type", op.type},
                   {"ipu", op.ipu},
                   {"pipelineStage", op.pipelineStage},
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
                       {"liveTo", t.liveTo}});
  j["tensors"] = std::move(tensors);
  const report::Cycles& cy = c.cycles;
  j["cycles"] = {{"perMicroBatch", cy.perMicroBatch},
                 {"interIpuCopies", cy.interIpuCopies},
                 {"hostToDevicePerMicroBatch", cy.hostToDevicePerMicroBatch},
                 {"deviceToHostPerMicroBatch", cy.deviceToHostPerMicroBatch},
                 {"perIpu", cy.perIpu},
                 {"stageCycles", cy.stageCycles}};
  return dump(j, cbor);
}

std::string executionReportJson(const report::Report& r, bool cbor) {
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
  return dump(j, cbor);
}

std::string noProfileJson(bool cbor) {
  return dump(json{{"profilerMode", "NONE"}}, cbor);
}

}  // namespace popart
