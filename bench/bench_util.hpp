// Helpers shared by popart_bench's inference (bench_native.cpp) and training (bench_train.cpp)
// modes.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "popart/error.hpp"
#include "popart/session.hpp"

namespace bench {

using Clock = std::chrono::steady_clock;

inline double ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// CPU time of the process in milliseconds (less sensitive than wall time to other load).
inline double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

/// Raw little-endian values of type T.
template <typename T>
std::vector<T> readRaw(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw popart::error("cannot open '{}'", path);
  std::vector<T> v(static_cast<size_t>(f.tellg()) / sizeof(T));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  return v;
}

/// The raw float32 file `path` as the input `id` of `session`, its element count checked.
inline std::vector<float> readInput(const popart::Session& session, const popart::TensorId& id,
                                    const std::string& path) {
  const popart::TensorInfo info = session.getInfo(id);
  std::vector<float> x = readRaw<float>(path);
  if (static_cast<int64_t>(x.size()) != info.nelms())
    throw popart::error("input file has {} values, {} needs {}", x.size(), info.toString(), info.nelms());
  return x;
}

/// Peak resident set (VmHWM) in KiB, -1 if unknown.
inline long peakRssKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

/// Median of the samples.
inline double median(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

/// The timing options both modes take.
struct Timing {
  int warmup = 3, minRuns = 5, maxRuns = 200;
  double targetMs = 1500;
  /// Takes --warmup, --target-ms, --min-runs and --max-runs; false for any other flag.
  bool parse(const std::string& flag, const std::string& value) {
    if (flag == "--warmup")
      warmup = std::stoi(value);
    else if (flag == "--target-ms")
      targetMs = std::stod(value);
    else if (flag == "--min-runs")
      minRuns = std::stoi(value);
    else if (flag == "--max-runs")
      maxRuns = std::stoi(value);
    else
      return false;
    return true;
  }
};

struct Samples {
  double firstRunMs = 0;
  std::vector<double> wallMs, cpuMs;  // the timed runs
};

/// Runs `step` once (the first, cold run; then `afterFirst`), warmup - 1 more times, then as
/// many timed runs as fit in about targetMs (within [minRuns, maxRuns]).
template <typename Step, typename AfterFirst>
Samples timeRuns(const Timing& t, Step step, AfterFirst afterFirst) {
  Samples r;
  auto t0 = Clock::now();
  step();
  r.firstRunMs = ms(t0, Clock::now());
  afterFirst();
  double warm = r.firstRunMs;
  for (int i = 1; i < t.warmup; ++i) {
    t0 = Clock::now();
    step();
    warm = ms(t0, Clock::now());
  }
  const int runs =
      std::max(t.minRuns, std::min(t.maxRuns, static_cast<int>(std::ceil(t.targetMs / std::max(warm, 0.01)))));
  for (int i = 0; i < runs; ++i) {
    const double c0 = cpuMs();
    t0 = Clock::now();
    step();
    r.wallMs.push_back(ms(t0, Clock::now()));
    r.cpuMs.push_back(cpuMs() - c0);
  }
  return r;
}

/// Prints `"NAME": [...]` (no braces).
inline void printSamples(const std::vector<double>& t, const char* name) {
  std::printf("\"%s\": [", name);
  for (size_t i = 0; i < t.size(); ++i) std::printf("%s%.6f", i ? ", " : "", t[i]);
  std::printf("]");
}

/// Prints the timing fields every mode reports, `"median_ms": ..., ..., "cpu_samples_ms": [...]`,
/// and closes the JSON object and the line.
inline void printTimings(const Samples& r) {
  const auto& t = r.wallMs;
  std::printf(
      "\"median_ms\": %.6f, \"median_cpu_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"runs\": %zu, "
      "\"first_run_ms\": %.3f, ",
      median(t), median(r.cpuMs), *std::min_element(t.begin(), t.end()), *std::max_element(t.begin(), t.end()),
      t.size(), r.firstRunMs);
  printSamples(t, "samples_ms");
  std::printf(", ");
  printSamples(r.cpuMs, "cpu_samples_ms");
  std::printf("}\n");
}

}  // namespace bench
