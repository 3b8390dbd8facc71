// popart_bench replan MODEL.onnx --shapes 1x3x224x224,1x3x320x320,... [--input-name input]
//                    [--output-name output] [--runs N]
// Run-time planning's cost (docs/architecture.md, "Static and run-time planning"): one session of
// a model whose input has symbolic dimensions, run at each shape in turn. For each shape: the first
// run (it plans: import, compile, weights) and the median of N runs on the cached plan; then the
// shapes again in turn, each run switching plans (the median per shape). The input is the same deterministic pattern
// the ONNX Runtime side (bench/run_replan_bench.mjs) feeds. Prints one JSON line.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "popart/popart.hpp"

using bench::Clock;
using bench::ms;

namespace {

std::vector<popart::Shape> parseShapes(const std::string& text) {
  std::vector<popart::Shape> out;
  std::stringstream all(text);
  std::string one;
  while (std::getline(all, one, ',')) {
    popart::Shape s;
    std::stringstream dims(one);
    std::string d;
    while (std::getline(dims, d, 'x')) s.push_back(std::stoll(d));
    out.push_back(s);
  }
  return out;
}

std::string shapeText(const popart::Shape& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

}  // namespace

int replanMain(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: popart_bench replan MODEL.onnx --shapes AxBxC,... [--input-name I] [--output-name O] "
                 "[--runs N]\n";
    return 2;
  }
  const std::string model = argv[1];
  std::string inId = "input", outId = "output", shapesText;
  int runs = 20;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--shapes")
      shapesText = v;
    else if (a == "--input-name")
      inId = v;
    else if (a == "--output-name")
      outId = v;
    else if (a == "--runs")
      runs = std::stoi(v);
    else {
      std::cerr << "error: unknown argument " << a << "\n";
      return 2;
    }
  }
  try {
    const std::vector<popart::Shape> shapes = parseShapes(shapesText);
    const auto t0 = Clock::now();
    auto session = popart::InferenceSession::createFromOnnxModel(
        model, popart::DataFlow(1, {outId}), popart::DeviceManager::createDeviceManager().createCpuDevice());
    const auto t1 = Clock::now();
    session->prepareDevice();
    const auto t2 = Clock::now();
    auto anchors = session->initAnchorArrays();
    std::vector<popart::NDArray> inputs;
    for (const auto& s : shapes) {
      popart::NDArray a(popart::DataType::FLOAT, s);
      float* p = a.dataAs<float>();
      for (size_t i = 0; i < a.nelms(); ++i) p[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)));
      inputs.push_back(std::move(a));
    }
    auto runAt = [&](size_t k) {
      std::map<popart::TensorId, popart::IArray&> in{{inId, inputs[k]}};
      popart::StepIO io(in, popart::arrayRefs(anchors));
      const auto a = Clock::now();
      session->run(io);
      return ms(a, Clock::now());
    };
    std::vector<double> planMs, runMs;
    for (size_t k = 0; k < shapes.size(); ++k) {
      planMs.push_back(runAt(k));
      std::vector<double> t;
      for (int r = 0; r < runs; ++r) t.push_back(runAt(k));
      runMs.push_back(bench::median(t));
    }
    std::vector<std::vector<double>> switched(shapes.size());
    for (int r = 0; r < runs; ++r) {
      for (size_t k = 0; k < shapes.size(); ++k) switched[k].push_back(runAt(k));
    }
    const auto st = session->getRunTimePlanStats();
    std::printf("{\"create_ms\": %.3f, \"prepare_ms\": %.3f, \"plans_built\": %lld, \"plans_reused\": %lld, ",
                ms(t0, t1), ms(t1, t2), static_cast<long long>(st.plansBuilt), static_cast<long long>(st.plansReused));
    std::printf("\"peak_rss_kb\": %ld, \"shapes\": [", bench::peakRssKb());
    for (size_t k = 0; k < shapes.size(); ++k)
      std::printf("%s{\"shape\": \"%s\", \"first_run_ms\": %.4f, \"run_ms\": %.4f, \"switch_ms\": %.4f}", k ? ", " : "",
                  shapeText(shapes[k]).c_str(), planMs[k], runMs[k], bench::median(switched[k]));
    std::printf("]}\n");
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
