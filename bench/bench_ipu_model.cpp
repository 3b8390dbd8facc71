// popart_bench ipu-model: the IPU model's overhead and estimates on the reference zoo, in one
// process, printed as a Markdown table (bench/RESULTS.md):
//   popart_bench ipu-model --zoo DIR [--models a,b,...] [--prepare-ms T] [--target-ms T]
//                [--warmup W] [--min-runs A] [--max-runs B]
// For each model:
// - prepareDevice time on the CPU device and on the IPU model (ipu2, 1,472 tiles): fresh sessions,
//   the two devices alternating, repeated for about --prepare-ms (3 to 20 times each); medians of
//   the wall time and of the process CPU time (steadier on a loaded machine);
// - run time (one batch, batchesPerStep 1) on each device: bench::timeRuns, medians of the wall
//   and of the process CPU time per run;
// - the IPU model's estimate on offline ipu1 (1,216 tiles) and ipu2 (1,472 tiles) devices (they
//   compile like hardware; debug.allowOutOfMemory = true so a model that does not fit is still
//   reported): cycles per micro-batch (the program, plus the host transfers), the time at the
//   target's clock, the fullest tile and whether every tile fits.
// The input is the zoo's MODEL.input.bin ("input"); the output anchored is "output".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "popart/popart.hpp"

namespace {

using bench::Clock;
using bench::ms;

std::shared_ptr<popart::DeviceInfo> cpuDevice() {
  return popart::DeviceManager::createDeviceManager().createCpuDevice();
}
std::shared_ptr<popart::DeviceInfo> ipuModelDevice() {
  return popart::DeviceManager::createDeviceManager().createIpuModelDevice(
      {{"tilesPerIPU", "1472"}, {"ipuVersion", "ipu2"}});
}

std::unique_ptr<popart::InferenceSession> makeSession(const std::string& model,
                                                      std::shared_ptr<popart::DeviceInfo> device,
                                                      const popart::SessionOptions& o = {}) {
  return popart::InferenceSession::createFromOnnxModel(model, popart::DataFlow(1, {"output"}), std::move(device),
                                                       popart::InputShapeInfo(), o);
}

struct PrepareTimes {
  std::vector<double> wallMs, cpuMs;
};

/// Times prepareDevice of a fresh session: wall and process CPU time.
void timePrepare(const std::string& model, std::shared_ptr<popart::DeviceInfo> device, PrepareTimes& t) {
  auto s = makeSession(model, std::move(device));
  const double c0 = bench::cpuMs();
  const auto t0 = Clock::now();
  s->prepareDevice();
  t.wallMs.push_back(ms(t0, Clock::now()));
  t.cpuMs.push_back(bench::cpuMs() - c0);
}

struct RunTimes {
  double wallMs = 0, cpuMs = 0;
  std::vector<float> output;
};

RunTimes timeRun(const std::string& model, const std::string& inputPath, std::shared_ptr<popart::DeviceInfo> device,
                 const bench::Timing& timing) {
  auto s = makeSession(model, std::move(device));
  s->prepareDevice();
  std::vector<float> x = bench::readInput(*s, "input", inputPath);
  popart::NDArrayWrapper<float> xw(x.data(), s->getInfo("input").shape());
  auto anchors = s->initAnchorArrays();
  std::map<popart::TensorId, popart::IArray&> in{{"input", xw}};
  popart::StepIO stepio(in, popart::arrayRefs(anchors));
  const bench::Samples r = bench::timeRuns(
      timing, [&] { s->run(stepio); }, [] {});
  RunTimes t;
  t.wallMs = bench::median(r.wallMs);
  t.cpuMs = bench::median(r.cpuMs);
  t.output = anchors.at("output").toVector<float>();
  return t;
}

struct Estimate {
  int64_t cycles = 0;  // per micro-batch: program + host transfers
  double us = 0;
  int64_t maxTileBytes = 0, bytesPerTile = 0;
  size_t tilesOver = 0;
};

Estimate estimate(const std::string& model, const std::string& version, int tiles) {
  auto device = popart::DeviceManager::createDeviceManager().createOfflineIPUDevice(
      {{"ipuVersion", version}, {"tilesPerIPU", std::to_string(tiles)}});
  popart::SessionOptions o;
  o.engineOptions["debug.allowOutOfMemory"] = "true";
  auto s = makeSession(model, device, o);
  s->prepareDevice();
  const popart::report::Compilation c = s->getReport().compilation;
  Estimate e;
  e.cycles = c.cycles.perMicroBatch + c.cycles.hostToDevicePerMicroBatch + c.cycles.deviceToHostPerMicroBatch;
  e.us = static_cast<double>(e.cycles) / c.target.clockHz * 1e6;
  e.maxTileBytes = c.memory.maxTileBytes;
  e.bytesPerTile = c.target.bytesPerTile;
  e.tilesOver = c.memory.outOfMemoryTiles.size();
  return e;
}

std::string grouped(int64_t v) {
  std::string s = std::to_string(v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

std::string estimateCells(const Estimate& e) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s | %.1f | %.0f / %.0f KiB | %s", grouped(e.cycles).c_str(), e.us,
                static_cast<double>(e.maxTileBytes) / 1024.0, static_cast<double>(e.bytesPerTile) / 1024.0,
                e.tilesOver == 0 ? "yes" : ("no (" + std::to_string(e.tilesOver) + " tiles over)").c_str());
  return buf;
}

}  // namespace

int ipuModelMain(int argc, char** argv) {
  std::string zoo;
  std::vector<std::string> models = {"mlp",          "cnn_small",     "alexnet",           "resnet18",
                                     "mobilenet_v2", "squeezenet1_0", "transformer_layer", "transformer_layer_opset17"};
  double preparePerModelMs = 2000;
  bench::Timing timing;
  timing.targetMs = 1000;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (i + 1 >= argc) throw popart::error("{} needs a value", a);
      const std::string v = argv[++i];
      if (a == "--zoo") {
        zoo = v;
      } else if (a == "--models") {
        models.clear();
        std::stringstream ss(v);
        std::string m;
        while (std::getline(ss, m, ',')) models.push_back(m);
      } else if (a == "--prepare-ms") {
        preparePerModelMs = std::stod(v);
      } else if (!timing.parse(a, v)) {
        throw popart::error("unknown argument {}", a);
      }
    }
    if (zoo.empty()) throw popart::error("--zoo DIR is required (tests/zoo/make_zoo.py DIR makes it)");

    std::printf(
        "| model | prepare ms CPU / IPU model | prepare ratio (wall) | prepare ratio (CPU time) | run ms CPU / IPU "
        "model | run ratio (wall) | run "
        "ratio (CPU time) | same output | ipu1 cycles / micro-batch | ipu1 us | ipu1 max tile | ipu1 fits | ipu2 "
        "cycles / micro-batch | ipu2 us | ipu2 max tile | ipu2 fits |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);
    for (const std::string& name : models) {
      const std::string model = zoo + "/" + name + ".onnx", input = zoo + "/" + name + ".input.bin";
      // Prepare: fresh sessions, devices alternating, until about preparePerModelMs (3..20 each).
      PrepareTimes pCpu, pIpu;
      const auto t0 = Clock::now();
      for (int k = 0; k < 20; ++k) {
        if (k % 2 == 0) {
          timePrepare(model, cpuDevice(), pCpu);
          timePrepare(model, ipuModelDevice(), pIpu);
        } else {
          timePrepare(model, ipuModelDevice(), pIpu);
          timePrepare(model, cpuDevice(), pCpu);
        }
        if (k >= 2 && ms(t0, Clock::now()) > preparePerModelMs) break;
      }
      const double prepCpu = bench::median(pCpu.wallMs), prepIpu = bench::median(pIpu.wallMs);
      const double prepCpuCpu = bench::median(pCpu.cpuMs), prepIpuCpu = bench::median(pIpu.cpuMs);
      // Run: each device's session timed in turn.
      const RunTimes rCpu = timeRun(model, input, cpuDevice(), timing);
      const RunTimes rIpu = timeRun(model, input, ipuModelDevice(), timing);
      const Estimate e1 = estimate(model, "ipu1", 1216), e2 = estimate(model, "ipu2", 1472);
      std::printf("| %s | %.2f / %.2f | %.2f | %.2f | %.3f / %.3f | %.2f | %.2f | %s | %s | %s |\n", name.c_str(),
                  prepCpu, prepIpu, prepIpu / prepCpu, prepIpuCpu / prepCpuCpu, rCpu.wallMs, rIpu.wallMs,
                  rIpu.wallMs / rCpu.wallMs, rIpu.cpuMs / rCpu.cpuMs,
                  rCpu.output == rIpu.output ? "bit for bit" : "DIFFERENT", estimateCells(e1).c_str(),
                  estimateCells(e2).c_str());
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
