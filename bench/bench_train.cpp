// popart_bench train: times one training step (forward + loss + backward + SGD update) of a model
// on the native CPU device and prints one JSON line.
//   popart_bench train MODEL.onnx INPUT.bin LABELS.bin [--head probs|logits] [--lr LR]
//                [--momentum M] [--warmup W] [--target-ms T] [--min-runs A] [--max-runs B]
//                [--input-name input] [--output-name output] [--report]
// INPUT.bin holds one batch (raw float32, the model input's shape), LABELS.bin its int32 class
// labels. The loss is nllloss (Mean) over the output, after a Softmax when --head logits. Each
// run is one step (batchesPerStep 1): one weight update. --report prints the session's summary
// (per-op times with POPART_PROFILE=1) to stderr.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "popart/popart.hpp"
#include "popart/sgd.hpp"

using bench::Clock;
using bench::ms;

int trainMain(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: popart_bench train MODEL.onnx INPUT.bin LABELS.bin [--head probs|logits] [--lr LR] "
                 "[--momentum M] [--warmup W] [--target-ms T] [--min-runs A] [--max-runs B] [--report]\n";
    return 2;
  }
  const std::string model = argv[1], input = argv[2], labelsPath = argv[3];
  std::string head = "logits", inId = "input", outId = "output";
  float lr = 0.01f, momentum = 0.9f;
  int warmup = 3, minRuns = 5, maxRuns = 200;
  double targetMs = 1500;
  bool report = false;
  try {
    for (int i = 4; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--report") {
        report = true;
        continue;
      }
      if (i + 1 >= argc) throw popart::error("{} needs a value", a);
      const std::string v = argv[++i];
      if (a == "--head")
        head = v;
      else if (a == "--lr")
        lr = std::stof(v);
      else if (a == "--momentum")
        momentum = std::stof(v);
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
      else
        throw popart::error("unknown argument {}", a);
    }
    const auto t0 = Clock::now();
    auto builder = popart::Builder::createFromOnnxModel(model);
    std::vector<int32_t> labels = bench::readRaw<int32_t>(labelsPath);
    const int64_t batch = static_cast<int64_t>(labels.size());
    const auto label = builder->addInputTensor(popart::TensorInfo(popart::DataType::INT32, {batch}), "label");
    const auto probs = head == "probs" ? outId : builder->aiOnnxOpset13().softmax({outId}, 1);
    const auto loss = builder->aiGraphcoreOpset1().nllloss({probs, label}, popart::ReductionType::Mean);
    builder->addOutputTensor(loss);
    const popart::SGD sgd({{"defaultLearningRate", {lr, true}}, {"defaultMomentum", {momentum, true}}});
    auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
    auto session = popart::TrainingSession::createFromOnnxModel(builder->getModelProto(), popart::DataFlow(1, {loss}),
                                                                loss, sgd, device);
    const auto t1 = Clock::now();
    session->prepareDevice();
    session->weightsFromHost();
    const auto t2 = Clock::now();

    const popart::TensorInfo info = session->getInfo(inId);
    std::vector<float> x = bench::readRaw<float>(input);
    if (static_cast<int64_t>(x.size()) != info.nelms())
      throw popart::error("input file has {} values, {} needs {}", x.size(), info.toString(), info.nelms());
    popart::NDArrayWrapper<float> xw(x.data(), info.shape());
    popart::NDArrayWrapper<int32_t> yw(labels.data(), {batch});
    auto anchors = session->initAnchorArrays();
    std::map<popart::TensorId, popart::IArray&> inMap{{inId, xw}, {label, yw}};
    popart::StepIO stepio(inMap, popart::arrayRefs(anchors));
    auto r0 = Clock::now();
    session->run(stepio);
    const double firstRun = ms(r0, Clock::now());
    const double firstLoss = anchors.at(loss).dataAs<float>()[0];
    double warm = firstRun;
    for (int i = 1; i < warmup; ++i) {
      r0 = Clock::now();
      session->run(stepio);
      warm = ms(r0, Clock::now());
    }
    const int runs = std::max(minRuns, std::min(maxRuns, static_cast<int>(std::ceil(targetMs / std::max(warm, 0.01)))));
    std::vector<double> t, cpu;
    for (int i = 0; i < runs; ++i) {
      const double c0 = bench::cpuMs();
      r0 = Clock::now();
      session->run(stepio);
      t.push_back(ms(r0, Clock::now()));
      cpu.push_back(bench::cpuMs() - c0);
    }
    const double lastLoss = anchors.at(loss).dataAs<float>()[0];
    if (report) std::cerr << session->getSummaryReport();
    const auto mem = session->getMemoryStats();
    std::printf(
        "{\"median_ms\": %.6f, \"median_cpu_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"runs\": %d, \"load_ms\": "
        "%.3f, "
        "\"prepare_ms\": %.3f, \"first_run_ms\": %.3f, \"first_loss\": %.7g, \"last_loss\": %.7g, "
        "\"peak_rss_kb\": %ld, \"arena_bytes\": %lld, \"weight_bytes\": %lld, ",
        bench::median(t), bench::median(cpu), *std::min_element(t.begin(), t.end()),
        *std::max_element(t.begin(), t.end()), runs, ms(t0, t1), ms(t1, t2), firstRun, firstLoss, lastLoss,
        bench::peakRssKb(), static_cast<long long>(mem.activationArenaBytes), static_cast<long long>(mem.weightBytes));
    bench::printSamples(t);
    std::printf(", ");
    bench::printSamples(cpu, "cpu_samples_ms");
    std::printf("}\n");
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
