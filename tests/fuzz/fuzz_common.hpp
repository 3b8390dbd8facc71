// What both libFuzzer harnesses share: the allocation budget, the rule that bad input may only
// raise popart::error, and one deterministic run of a prepared session.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <string>

#include "popart/popart.hpp"

namespace popart {
namespace fuzz {

/// The memory limit (popart/memorylimit.hpp) the harnesses run under. scripts/fuzz.sh gives
/// libFuzzer a matching -malloc_limit_mb, so one allocation that escapes the limit's checks is
/// reported as a bug instead of being refused with popart::memory_allocation_err.
constexpr int64_t kMemoryBudget = int64_t{256} << 20;
/// An input array larger than this is not fed: the run is skipped (the session was created and
/// prepared, which is what such a model tests).
constexpr int64_t kMaxInputBytes = int64_t{1} << 20;

/// A session whose activations, weights and constants add up to more than this is prepared but
/// not run: the sanitizers make big convolutions and matrix products slow (a run could pass the
/// time-out without any bug), and small shapes reach the same code.
constexpr int64_t kMaxRunBytes = int64_t{16} << 20;

/// A run of more micro-batches (batchesPerStep x accumulationFactor x replicas) than this is not
/// made: a step of 1000 x 1000 micro-batches of a graph with no stream input (so no input bytes to
/// bound it) runs for minutes under the sanitizers; a few micro-batches reach the same code.
constexpr int64_t kMaxRunMicroBatches = 64;

/// Sets the budget and silences the logs (shape-inference warnings would flood the output).
void init();

/// POPART_FUZZ_VERBOSE=1: each stage's popart::error and the sizes of each session go to stderr
/// (to see what a seed or a replayed input does).
bool verbose();

/// Reports a bug the way libFuzzer records it (a crash with the message on stderr).
[[noreturn]] void fail(const char* stage, const std::string& what);

/// Runs `f`: returns true when it completes, false when it throws popart::error (or a subclass),
/// which is how bad input must fail. Any other exception is a bug.
template <typename F>
bool guarded(const char* stage, F&& f) {
  try {
    f();
    return true;
  } catch (const popart::error& e) {
    if (verbose()) std::fprintf(stderr, "popart-fuzz: %s: popart::error: %s\n", stage, e.what());
    return false;
  } catch (const std::exception& e) {
    fail(stage, std::string("an exception that is not a popart::error: ") + e.what());
  } catch (...) {
    fail(stage, "an exception of a type that is not std::exception");
  }
}

/// initAnchorArrays, then one run with deterministic small values for every stream input.
/// Returns false (without running) when an input array would be over kMaxInputBytes, the
/// session's memory over kMaxRunBytes or the step over kMaxRunMicroBatches.
/// Throws what the session throws.
bool runWithSmallInputs(Session& session);

}  // namespace fuzz
}  // namespace popart
