#include "session/engine_options.hpp"

#include <cstdlib>

#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {

const std::vector<EngineOptionDef>& engineOptionDefs() {
  static const std::vector<EngineOptionDef> defs{
      {"debug.instrument", "bool", true, "Host time per op in the summary report (also POPART_PROFILE=1)."},
      {"autoReport.all", "bool", true,
       "Profiling on: the reports (summary.txt, graph.json, execution.json) written after prepareDevice and each run; "
       "on the CPU device, host time per op."},
      {"autoReport.directory", "string", true, "Where autoReport.all writes: <directory>/<session name>/ (default .)."},
      {"autoReport.outputGraphProfile", "bool", false, "Poplar: write the graph profile."},
      {"autoReport.outputExecutionProfile", "bool", false, "Poplar: write the execution profile."},
      {"autoReport.outputArchive", "bool", false, "Poplar: write the profile archive."},
      {"autoReport.outputLoweredVars", "bool", false, "Poplar: write the lowered variables."},
      {"autoReport.outputDebugInfo", "bool", false, "Poplar: write the debug information."},
      {"autoReport.executionProfileProgramRunCount", "int", false, "Poplar: program runs to profile."},
      {"autoReport.streamAtEachRun", "bool", false, "Poplar: stream the profile at each run."},
      {"debug.allowOutOfMemory", "bool", true,
       "IPU devices: compile a graph that does not fit tile memory (default: true on the IPU model, false offline)."},
      {"debug.instrumentCompute", "bool", false, "Poplar: instrument compute sets."},
      {"debug.instrumentExternalExchange", "bool", false, "Poplar: instrument host exchanges."},
      {"debug.instrumentControlFlow", "bool", false, "Poplar: instrument control flow."},
      {"debug.computeInstrumentationLevel", "string", false, "Poplar: granularity of compute instrumentation."},
      {"debug.outputAllSymbols", "bool", false, "Poplar: keep every symbol in the executable."},
      {"debug.retainDebugInformation", "bool", false, "Poplar: keep debug information."},
      {"debug.verify", "bool", false, "Poplar: verify the compiled program."},
      {"debug.floatPointOpException", "bool", false, "Poplar: the IPU's floating-point operation exceptions."},
      {"debug.nanOverflowException", "bool", false, "Poplar: the IPU's NaN-on-overflow exception."},
      {"debug.supervisorStackSizeInBytes", "int", false, "Poplar: supervisor stack size."},
      {"debug.workerStackSizeInBytes", "int", false, "Poplar: worker stack size."},
      {"opt.enableMultiAccessCopies", "bool", false, "Poplar: multi-access copies."},
      {"opt.internalExchangeOptimisationTarget", "string", false, "Poplar: exchange code optimisation target."},
      {"opt.maxCompilationThreads", "int", false, "Poplar: compilation threads."},
      {"opt.useAutoloader", "bool", false, "Poplar: load code on demand."},
      {"profiler.format", "string", false, "Poplar: profile format."},
      {"profiler.includeFlopEstimates", "bool", false, "Poplar: FLOP estimates in the profile."},
      {"profiler.programs", "string", false, "Poplar: programs to profile."},
      {"profiler.replicaToProfile", "int", false, "Poplar: the replica to profile."},
      {"target.syncReplicasIndependently", "bool", false, "Poplar: replicas synchronise independently."},
      {"target.deterministicWorkers", "string", false, "Poplar: deterministic worker scheduling."},
      {"target.hostSyncTimeout", "int", false, "Poplar: host synchronisation timeout."},
      {"exchange.streamBufferOverlap", "string", false, "Poplar: stream buffer overlap."},
      {"exchange.enablePrefetch", "bool", false, "Poplar: prefetch host streams."},
  };
  return defs;
}

void validateEngineOptions(const std::map<std::string, std::string>& options) {
  for (const auto& kv : options) {
    const EngineOptionDef* def = nullptr;
    for (const auto& d : engineOptionDefs()) {
      if (kv.first == d.key) def = &d;
    }
    if (!def) throw poplar_error("Unrecognised option '{}'", kv.first);
    const std::string kind = def->values;
    const std::string& v = kv.second;
    if (kind == "bool" && v != "true" && v != "false")
      throw error("Invalid value '{}' for engine option '{}': expected 'true' or 'false'", v, kv.first);
    if (kind == "int") {
      char* end = nullptr;
      std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0')
        throw error("Invalid value '{}' for engine option '{}': expected an integer", v, kv.first);
    }
    if (!def->acted)
      logging::session::warn("engine option '{}' is accepted for compatibility but has no effect on this device",
                             kv.first);
  }
}

}  // namespace popart
