#include "backends/ipu_model/report_text.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace popart {
namespace report {

const char* memoryCategoryName(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::Variable:
      return "variables";
    case MemoryCategory::Constant:
      return "constants";
    case MemoryCategory::Activation:
      return "activations";
    case MemoryCategory::Code:
      return "code";
    case MemoryCategory::VertexState:
      return "vertexState";
    case MemoryCategory::Exchange:
      return "exchange";
    case MemoryCategory::N:
      break;
  }
  return "?";
}

}  // namespace report

namespace ipu_model {
namespace {

/// "1,234,567"
std::string grouped(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return v < 0 ? "-" + out : out;
}

/// "1.5 MB (1,572,864 B)"
std::string bytesText(int64_t b) {
  char buf[64];
  const double d = static_cast<double>(b);
  if (b >= 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f MB", d / (1024.0 * 1024.0));
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KB", d / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
  return std::string(buf) + " (" + grouped(b) + " B)";
}

std::string line(const std::string& label, const std::string& value, int indent = 2) {
  std::string s(static_cast<size_t>(indent), ' ');
  s += label + ":";
  if (s.size() < 28) s.resize(28, ' ');
  return s + " " + value + "\n";
}

void target(std::ostream& os, const report::Target& t) {
  os << "Target:\n"
     << line("Device", t.type + " (" + t.architecture + ", " + t.product + ")")
     << line("Number of IPUs", std::to_string(t.numIpus));
  if (t.replicas > 1)
    os << line("Replicas", std::to_string(t.replicas) + " of " + std::to_string(t.numIpus / t.replicas) +
                               " IPU(s) each, the same program and layout");
  os << line("Tiles per IPU", grouped(t.tilesPerIpu)) << line("Total tiles", grouped(t.numTiles))
     << line("Memory per tile", bytesText(t.bytesPerTile)) << line("Total memory", bytesText(t.totalMemory));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MHz", t.clockHz / 1e6);
  os << line("Clock", buf) << line("Worker contexts", std::to_string(t.workerContexts) + " per tile") << "\n";
}

void memory(std::ostream& os, const report::Compilation& c) {
  const report::Memory& m = c.memory;
  const int64_t tiles = static_cast<int64_t>(m.byTileTotal.size());
  os << "Memory Usage:\n" << line("Total", bytesText(m.total));
  for (size_t k = 0; k < m.byCategoryByTile.size(); ++k) {
    const auto& v = m.byCategoryByTile[k];
    os << line(report::memoryCategoryName(static_cast<report::MemoryCategory>(k)),
               bytesText(std::accumulate(v.begin(), v.end(), int64_t{0})), 4);
  }
  if (tiles == 0) return;
  const int64_t minTile = std::min_element(m.byTileTotal.begin(), m.byTileTotal.end()) - m.byTileTotal.begin();
  os << "  By tile:\n"
     << line("Maximum", bytesText(m.maxTileBytes) + " on tile " + std::to_string(m.maxTile), 4)
     << line("Mean", bytesText(m.total / tiles), 4)
     << line("Minimum", bytesText(m.byTileTotal[static_cast<size_t>(minTile)]) + " on tile " + std::to_string(minTile),
             4);
  // A histogram of the tiles' fill, in tenths of a tile's memory (over 100%: out of memory).
  const int64_t cap = c.target.bytesPerTile;
  std::vector<int64_t> bins(11, 0);
  for (int64_t b : m.byTileTotal) bins[static_cast<size_t>(std::min<int64_t>(10, cap > 0 ? b * 10 / cap : 10))]++;
  os << "  Histogram (tiles by fill of their " << bytesText(cap) << "):\n";
  const int64_t most = *std::max_element(bins.begin(), bins.end());
  for (size_t k = 0; k < bins.size(); ++k) {
    if (bins[k] == 0) continue;
    char label[32];
    if (k < 10)
      std::snprintf(label, sizeof label, "%3zu%% - %3zu%%", k * 10, k * 10 + 10);
    else
      std::snprintf(label, sizeof label, " over 100%%");
    const int bar = most > 0 ? static_cast<int>(40 * bins[k] / most) : 0;
    os << "    " << label << " | " << std::string(static_cast<size_t>(std::max(bar, 1)), '#') << " " << bins[k] << "\n";
  }
  if (m.outOfMemoryTiles.empty()) {
    os << line("Tiles out of memory", "none", 4);
  } else {
    const int64_t worst = m.maxTile;
    os << line("Tiles out of memory",
               grouped(static_cast<int64_t>(m.outOfMemoryTiles.size())) + " (worst: tile " + std::to_string(worst) +
                   ", " + grouped(m.maxTileBytes) + " of " + grouped(cap) + " bytes, over by " +
                   grouped(m.maxTileBytes - cap) + ")",
               4);
  }
  os << "\n";
}

/// Phased execution: each phase's IPU, cycles, streaming-memory traffic and tensor memory.
void phases(std::ostream& os, const report::Compilation& c) {
  if (c.phases.empty()) return;
  os << line("Streaming memory", grouped(c.cycles.streamingMemory) + " cycles per micro-batch", 4);
  for (const report::Phase& ph : c.phases)
    os << line("Phase " + std::to_string(ph.phase),
               "IPU " + std::to_string(ph.ipu) + ", " + grouped(ph.cycles) + " cycles (streaming " +
                   grouped(ph.remoteCycles) + ": " + grouped(ph.remoteLoadBytes) + " bytes loaded, " +
                   grouped(ph.remoteStoreBytes) + " stored), tensors " + grouped(ph.tensorBytes) +
                   " bytes, fullest tile " + grouped(ph.maxTileBytes),
               4);
}

void execution(std::ostream& os, const report::Report& r, bool steps) {
  const report::Compilation& c = r.compilation;
  const report::Cycles& cy = c.cycles;
  os << "Execution:\n"
     << line("Cycles per micro-batch", grouped(cy.perMicroBatch))
     << line("Host transfers", grouped(cy.hostToDevicePerMicroBatch) + " in, " + grouped(cy.deviceToHostPerMicroBatch) +
                                   " out (cycles per micro-batch)");
  if (cy.perIpu.size() > 1) {
    for (size_t i = 0; i < cy.perIpu.size(); ++i) os << line("IPU " + std::to_string(i), grouped(cy.perIpu[i]), 4);
    os << line("Inter-IPU copies", grouped(cy.interIpuCopies), 4);
  }
  if (cy.replicaAllReduce)
    os << line("Gradient sum over replicas", grouped(cy.replicaAllReduce) + " (of the cycles per micro-batch)", 4);
  if (c.pipelined) {
    for (size_t s = 0; s < cy.stageCycles.size(); ++s)
      os << line("Pipeline stage " + std::to_string(s), grouped(cy.stageCycles[s]), 4);
  }
  phases(os, c);
  int64_t total = 0;
  for (const report::Run& run : r.execution.runs) total += run.cycles;
  os << line("Runs", std::to_string(r.execution.runs.size()) + " (" + grouped(total) + " cycles)");
  for (const report::Run& run : r.execution.runs) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f ms", run.seconds * 1e3);
    os << line(run.name.empty() ? "(unnamed)" : run.name,
               grouped(run.cycles) + " cycles, " + grouped(run.microBatches) + " micro-batches, " + secs, 4);
    if (c.pipelined)
      os << line("pipeline",
                 "fill " + grouped(run.pipelineFillCycles) + ", steady " + grouped(run.pipelineSteadyCycles) +
                     ", drain " + grouped(run.pipelineDrainCycles),
                 6);
  }
  std::vector<size_t> order(c.ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return c.ops[a].cycles > c.ops[b].cycles; });
  os << "  Top ops by cycles (per micro-batch):\n";
  for (size_t k = 0; k < order.size() && k < 10; ++k) {
    const report::Op& op = c.ops[order[k]];
    char pct[16];
    std::snprintf(
        pct, sizeof pct, "%5.1f%%",
        cy.perMicroBatch > 0 ? 100.0 * static_cast<double>(op.cycles) / static_cast<double>(cy.perMicroBatch) : 0.0);
    os << "    " << pct << "  " << grouped(op.cycles) << "  " << op.name << " (" << op.type << ", IPU " << op.ipu
       << ", " << op.numTiles << " tiles)\n";
  }
  if (steps) {
    os << "\nProgram (one micro-batch):\n";
    for (size_t i = 0; i < c.ops.size(); ++i) {
      const report::Op& op = c.ops[i];
      os << "  " << i << ": " << op.name << " (" << op.type << ") IPU " << op.ipu;
      if (op.pipelineStage >= 0) os << " stage " << op.pipelineStage;
      if (op.executionPhase >= 0) os << " phase " << op.executionPhase;
      os << " tiles " << op.firstTile << ".." << op.firstTile + op.numTiles - 1 << ": sync " << op.syncCycles
         << ", exchange " << op.exchangeCycles << ", compute " << op.computeCycles << " cycles\n";
    }
  }
}

}  // namespace

std::string summaryText(const report::Report& r, bool showExecutionSteps) {
  const report::Compilation& c = r.compilation;
  std::ostringstream os;
  target(os, c.target);
  int64_t views = 0;
  for (const auto& t : c.tensors) views += t.view ? 1 : 0;
  int64_t computeSets = 0;
  for (const auto& op : c.ops) computeSets += op.computeCycles > 0 ? 1 : 0;
  os << "Graph:\n"
     << line("Number of ops", grouped(static_cast<int64_t>(c.ops.size())))
     << line("Number of tensors", grouped(static_cast<int64_t>(c.tensors.size())) + " (" + grouped(views) + " views)")
     << line("Number of compute sets", grouped(computeSets)) << "\n";
  memory(os, c);
  execution(os, r, showExecutionSteps);
  return os.str();
}

std::string outOfMemoryMessage(const report::Compilation& c) {
  const report::Memory& m = c.memory;
  const int64_t cap = c.target.bytesPerTile;
  std::vector<int64_t> worst = m.outOfMemoryTiles;
  std::stable_sort(worst.begin(), worst.end(), [&](int64_t a, int64_t b) {
    return m.byTileTotal[static_cast<size_t>(a)] > m.byTileTotal[static_cast<size_t>(b)];
  });
  std::ostringstream os;
  os << "Out of memory: Cannot fit all variable data onto one or more tiles. " << worst.size() << " of "
     << m.byTileTotal.size() << " tiles are over their " << grouped(cap) << " bytes (" << c.target.architecture << ", "
     << c.target.tilesPerIpu << " tiles per IPU). Worst tiles:";
  const int64_t tilesPerIpu = std::max(1, c.target.tilesPerIpu);
  for (size_t k = 0; k < worst.size() && k < 3; ++k) {
    const int64_t g = worst[k];
    os << "\n  tile " << g << " (IPU " << g / tilesPerIpu << "): " << grouped(m.byTileTotal[static_cast<size_t>(g)])
       << " bytes of " << grouped(cap);
    // The largest tensors on it (a replica's tiles repeat the first replica's).
    const int64_t local = g % std::max<int64_t>(1, c.target.numTiles / std::max(1, c.target.replicas));
    std::vector<std::pair<int64_t, const report::Tensor*>> on;
    for (const report::Tensor& t : c.tensors) {
      if (t.view) continue;
      const int64_t first = static_cast<int64_t>(t.mapping.ipu) * tilesPerIpu + t.mapping.firstTile;
      const int64_t k2 = local - first;
      if (k2 >= 0 && k2 < static_cast<int64_t>(t.mapping.bytesPerTile.size()) &&
          t.mapping.bytesPerTile[static_cast<size_t>(k2)] > 0)
        on.push_back({t.mapping.bytesPerTile[static_cast<size_t>(k2)], &t});
    }
    std::stable_sort(on.begin(), on.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t j = 0; j < on.size() && j < 3; ++j)
      os << "\n    '" << on[j].second->id << "' (" << on[j].second->kind << ", " << on[j].second->dtype << " "
         << grouped(on[j].second->bytes) << " bytes): " << grouped(on[j].first) << " bytes on this tile";
  }
  os << "\nUse more tiles (tilesPerIPU, up to " << c.target.architecture
     << "'s full chip) or more IPUs, or the engine option debug.allowOutOfMemory = true to compile anyway.";
  return os.str();
}

}  // namespace ipu_model
}  // namespace popart
