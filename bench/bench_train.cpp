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
  bench::Timing timing;
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
      else if (a == "--input-name")
        inId = v;
      else if (a == "--output-name")
        outId = v;
      else if (!timing.parse(a, v))
        throw popart::error("unknown argument {}", a);
    }
    const auto t0 = Clock::now();
    auto builder = popart::Builder::createFromOnnxModel(model);
    std::vector<int32_t> labels = bench::readRaw<int32_t>(labelsPath);
    const int64_t batch = static_cast<int64_t>(labels.size());
    const auto label = builder->addInputTensor(popart::TensorInfo(popart::DataType::INT32, {batch}), "label");
    // The head's Softmax in the model's own ONNX opset (a model exported in training mode is opset 15).
    const auto probs = head == "probs"                        ? outId
                       : builder->getOnnxOpsetVersion() >= 15 ? builder->aiOnnxOpset15().softmax({outId}, 1)
                                                              : builder->aiOnnxOpset13().softmax({outId}, 1);
    const auto loss = builder->aiGraphcoreOpset1().nllloss({probs, label}, popart::ReductionType::Mean);
    builder->addOutputTensor(loss);
    const popart::SGD sgd({{"defaultLearningRate", {lr, true}}, {"defaultMomentum", {momentum, true}}});
    auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
    popart::SessionOptions opts;
    if (report) opts.engineOptions["debug.instrument"] = "true";  // the CPU's summary: host time per op
    auto session = popart::TrainingSession::createFromOnnxModel(builder->getModelProto(), popart::DataFlow(1, {loss}),
                                                                loss, sgd, device, popart::InputShapeInfo(), opts);
    const auto t1 = Clock::now();
    session->prepareDevice();
    session->weightsFromHost();
    const auto t2 = Clock::now();

    std::vector<float> x = bench::readInput(*session, inId, input);
    popart::NDArrayWrapper<float> xw(x.data(), session->getInfo(inId).shape());
    popart::NDArrayWrapper<int32_t> yw(labels.data(), {batch});
    auto anchors = session->initAnchorArrays();
    std::map<popart::TensorId, popart::IArray&> inMap{{inId, xw}, {label, yw}};
    popart::StepIO stepio(inMap, popart::arrayRefs(anchors));
    double firstLoss = 0;
    const bench::Samples r = bench::timeRuns(
        timing, [&] { session->run(stepio); }, [&] { firstLoss = anchors.at(loss).dataAs<float>()[0]; });
    const double lastLoss = anchors.at(loss).dataAs<float>()[0];
    if (report) std::cerr << session->getSummaryReport();
    const auto mem = session->getMemoryStats();
    std::printf(
        "{\"load_ms\": %.3f, \"prepare_ms\": %.3f, \"first_loss\": %.7g, \"last_loss\": %.7g, "
        "\"peak_rss_kb\": %ld, \"arena_bytes\": %lld, \"weight_bytes\": %lld, ",
        ms(t0, t1), ms(t1, t2), firstLoss, lastLoss, bench::peakRssKb(),
        static_cast<long long>(mem.activationArenaBytes), static_cast<long long>(mem.weightBytes));
    bench::printTimings(r);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
