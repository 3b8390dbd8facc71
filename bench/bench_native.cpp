// popart_bench: times one model on the native CPU device and prints one JSON line.
//   popart_bench MODEL.onnx INPUT.bin [--reference OUT.bin] [--warmup W] [--target-ms T]
//                [--min-runs A] [--max-runs B] [--input-name input] [--output-name output]
//   popart_bench train ...   one training step instead (bench_train.cpp)
// The input is raw float32; the session anchors the named output.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "popart/popart.hpp"

int trainMain(int argc, char** argv);

using bench::Clock;
using bench::ms;

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "train") return trainMain(argc - 1, argv + 1);
  if (argc < 3) {
    std::cerr << "usage: popart_bench MODEL.onnx INPUT.bin [--reference OUT.bin] [--warmup W] [--target-ms T] "
                 "[--min-runs A] [--max-runs B]\n";
    return 2;
  }
  const std::string model = argv[1], input = argv[2];
  std::string reference, inId = "input", outId = "output";
  int warmup = 3, minRuns = 5, maxRuns = 200;
  double targetMs = 1500;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--reference")
      reference = v;
    else if (a == "--warmup")
      warmup = std::stoi(v);
    else if (a == "--target-ms")
      targetMs = std::stod(v);
    else if (a == "--min-runs")
      minRuns = std::stoi(v);
    else if (a == "--max-runs")
      maxRuns = std::stoi(v);
    else if (a == "--input-name")
      inId = v;
    else if (a == "--output-name")
      outId = v;
  }
  try {
    const auto t0 = Clock::now();
    auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
    auto session = popart::InferenceSession::createFromOnnxModel(model, popart::DataFlow(1, {outId}), device);
    const auto t1 = Clock::now();
    session->prepareDevice();
    const auto t2 = Clock::now();
    const popart::TensorInfo info = session->getInfo(inId);
    std::vector<float> x = bench::readRaw<float>(input);
    if (static_cast<int64_t>(x.size()) != info.nelms())
      throw popart::error("input file has {} values, {} needs {}", x.size(), info.toString(), info.nelms());
    popart::NDArrayWrapper<float> xw(x.data(), info.shape());
    auto anchors = session->initAnchorArrays();
    std::map<popart::TensorId, popart::IArray&> inMap{{inId, xw}};
    popart::StepIO stepio(inMap, popart::arrayRefs(anchors));
    auto r0 = Clock::now();
    session->run(stepio);
    const double firstRun = ms(r0, Clock::now());
    double warm = firstRun;
    for (int i = 1; i < warmup; ++i) {
      r0 = Clock::now();
      session->run(stepio);
      warm = ms(r0, Clock::now());
    }
    double maxErr = -1;
    if (!reference.empty()) {
      const auto ref = bench::readRaw<float>(reference);
      const float* y = anchors.at(outId).dataAs<float>();
      maxErr = 0;
      for (size_t i = 0; i < ref.size(); ++i) maxErr = std::max(maxErr, std::abs(static_cast<double>(y[i]) - ref[i]));
    }
    const int runs = std::max(minRuns, std::min(maxRuns, static_cast<int>(std::ceil(targetMs / std::max(warm, 0.01)))));
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
      r0 = Clock::now();
      session->run(stepio);
      t.push_back(ms(r0, Clock::now()));
    }
    const auto mem = session->getMemoryStats();
    std::printf(
        "{\"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"runs\": %d, \"load_ms\": %.3f, "
        "\"prepare_ms\": %.3f, \"first_run_ms\": %.3f, \"max_abs_err\": %.3g, \"peak_rss_kb\": %ld, "
        "\"arena_bytes\": %lld, ",
        bench::median(t), *std::min_element(t.begin(), t.end()), *std::max_element(t.begin(), t.end()), runs,
        ms(t0, t1), ms(t1, t2), firstRun, maxErr, bench::peakRssKb(), static_cast<long long>(mem.activationArenaBytes));
    bench::printSamples(t);
    std::printf("}\n");
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
