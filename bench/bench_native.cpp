// popart_bench: times one model on the native CPU device and prints one JSON line.
//   popart_bench MODEL.onnx INPUT.bin [--reference OUT.bin] [--warmup W] [--target-ms T]
//                [--min-runs A] [--max-runs B] [--input-name input] [--output-name output]
//   popart_bench train ...   one training step instead (bench_train.cpp)
//   popart_bench replan MODEL.onnx --shapes ...   run-time planning's cost (bench_replan.cpp)
//   popart_bench ipu-model --zoo DIR ...   the IPU model vs the CPU device on the zoo, and the
//                                          IPU estimates (bench_ipu_model.cpp)
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
int ipuModelMain(int argc, char** argv);
int replanMain(int argc, char** argv);

using bench::Clock;
using bench::ms;

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "train") return trainMain(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "ipu-model") return ipuModelMain(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "replan") return replanMain(argc - 1, argv + 1);
  if (argc < 3) {
    std::cerr << "usage: popart_bench MODEL.onnx INPUT.bin [--reference OUT.bin] [--warmup W] [--target-ms T] "
                 "[--min-runs A] [--max-runs B]\n";
    return 2;
  }
  const std::string model = argv[1], input = argv[2];
  std::string reference, inId = "input", outId = "output";
  bench::Timing timing;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--reference")
      reference = v;
    else if (a == "--input-name")
      inId = v;
    else if (a == "--output-name")
      outId = v;
    else if (!timing.parse(a, v)) {
      std::cerr << "error: unknown argument " << a << "\n";
      return 2;
    }
  }
  try {
    const auto t0 = Clock::now();
    auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
    auto session = popart::InferenceSession::createFromOnnxModel(model, popart::DataFlow(1, {outId}), device);
    const auto t1 = Clock::now();
    session->prepareDevice();
    const auto t2 = Clock::now();
    std::vector<float> x = bench::readInput(*session, inId, input);
    popart::NDArrayWrapper<float> xw(x.data(), session->getInfo(inId).shape());
    auto anchors = session->initAnchorArrays();
    std::map<popart::TensorId, popart::IArray&> inMap{{inId, xw}};
    popart::StepIO stepio(inMap, popart::arrayRefs(anchors));
    double maxErr = -1;
    const bench::Samples r = bench::timeRuns(
        timing, [&] { session->run(stepio); },
        [&] {
          if (reference.empty()) return;
          const auto ref = bench::readRaw<float>(reference);
          const float* y = anchors.at(outId).dataAs<float>();
          maxErr = 0;
          for (size_t i = 0; i < ref.size(); ++i)
            maxErr = std::max(maxErr, std::abs(static_cast<double>(y[i]) - ref[i]));
        });
    const auto mem = session->getMemoryStats();
    std::printf(
        "{\"load_ms\": %.3f, \"prepare_ms\": %.3f, \"max_abs_err\": %.3g, \"peak_rss_kb\": %ld, "
        "\"arena_bytes\": %lld, ",
        ms(t0, t1), ms(t1, t2), maxErr, bench::peakRssKb(), static_cast<long long>(mem.activationArenaBytes));
    bench::printTimings(r);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
