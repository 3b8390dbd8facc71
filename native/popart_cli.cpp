// `popart`: the native command line.
//   popart demo [--zoo DIR]        build a graph with the Builder, import a real model, run both
//   popart info MODEL              inputs, outputs, opsets and ops of an ONNX model
//   popart run MODEL [options]     run inference on the CPU device and report outputs and timing
//   popart ops                     the ONNX ops this runtime supports
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include "ir/op_def.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"
#include "popart/popart.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::vector<float> readFloats(const std::string& path, int64_t n) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw popart::error("cannot open '{}'", path);
  std::vector<float> v(static_cast<size_t>(n));
  f.read(reinterpret_cast<char*>(v.data()), n * 4);
  if (f.gcount() != n * 4) throw popart::error("'{}' holds fewer than {} float32 values", path, n);
  return v;
}

std::string shapeStr(const popart::Shape& s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? "," : "") << s[i];
  return os.str() + ']';
}

int usage() {
  std::cerr << "usage: popart demo [--zoo DIR]\n"
               "       popart info MODEL.onnx\n"
               "       popart run MODEL.onnx [--input NAME=FILE.bin]... [--reference FILE.bin] [--bps N]\n"
               "                             [--iterations N] [--shape NAME=d0,d1,...]\n"
               "       popart ops\n";
  return 2;
}

int cmdInfo(const std::string& path) {
  const onnx::ModelProto m = popart::loadModel(path);
  const auto& g = m.graph();
  std::cout << "model " << path << " (ir_version " << m.ir_version() << ", producer '" << m.producer_name() << "')\n";
  for (const auto& o : m.opset_import())
    std::cout << "  opset " << (o.domain().empty() ? "ai.onnx" : o.domain()) << " " << o.version() << "\n";
  std::set<std::string> inits;
  int64_t params = 0;
  for (const auto& t : g.initializer()) {
    inits.insert(t.name());
    int64_t n = 1;
    for (auto d : t.dims()) n *= d;
    params += n;
  }
  for (const auto& vi : g.input()) {
    if (inits.count(vi.name())) continue;
    bool ok;
    std::string txt;
    const auto info = popart::infoFromValueInfo(vi, &ok, &txt);
    std::cout << "  input  " << vi.name() << " " << (ok ? info.toString() : txt) << "\n";
  }
  for (const auto& vi : g.output()) {
    bool ok;
    std::string txt;
    const auto info = popart::infoFromValueInfo(vi, &ok, &txt);
    std::cout << "  output " << vi.name() << " " << (ok ? info.toString() : txt) << "\n";
  }
  std::map<std::string, int> ops;
  for (const auto& n : g.node()) ops[n.op_type()]++;
  std::cout << "  " << g.node_size() << " nodes, " << g.initializer_size() << " initializers (" << params
            << " parameters)\n  ops:";
  for (const auto& kv : ops) std::cout << " " << kv.first << "x" << kv.second;
  std::cout << "\n";
  return 0;
}

struct RunResult {
  std::map<popart::TensorId, popart::NDArray> anchors;
  double prepareMs = 0, createMs = 0, medianMs = 0;
  popart::SessionMemoryStats mem;
};

RunResult runModel(const std::string& model, std::map<std::string, std::vector<float>> inputs,
                   const popart::InputShapeInfo& shapes, int bps, int iterations, bool quiet) {
  const onnx::ModelProto m = popart::loadModel(model);
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::vector<popart::TensorId> outIds;
  for (const auto& o : m.graph().output()) outIds.push_back(o.name());
  auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
  RunResult r;
  auto t0 = Clock::now();
  auto session = popart::InferenceSession::createFromOnnxModel(
      model, popart::DataFlow(bps, outIds, popart::AnchorReturnType("All")), device, shapes);
  r.createMs = msSince(t0);
  t0 = Clock::now();
  session->prepareDevice();
  r.prepareMs = msSince(t0);
  r.mem = session->getMemoryStats();
  std::map<std::string, popart::NDArray> in;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const auto& vi : m.graph().input()) {
    if (inits.count(vi.name())) continue;
    const popart::TensorInfo info = session->getInfo(vi.name());
    popart::Shape s = info.shape();
    if (bps > 1) s.insert(s.begin(), bps);
    popart::NDArray a(info.dataType(), s);
    auto it = inputs.find(vi.name());
    if (info.dataType() != popart::DataType::FLOAT) {
      // Non-float inputs: zeros unless given (as float values, converted).
    } else if (it != inputs.end()) {
      if (static_cast<int64_t>(it->second.size()) != static_cast<int64_t>(a.nelms()))
        throw popart::error("input '{}' needs {} values, the file has {}", vi.name(), a.nelms(), it->second.size());
      std::memcpy(a.data(), it->second.data(), a.nelms() * 4);
    } else {
      float* p = a.dataAs<float>();
      for (size_t i = 0; i < a.nelms(); ++i) p[i] = dist(rng);
      if (!quiet) std::cout << "  (input '" << vi.name() << "' is random uniform in [-1, 1))\n";
    }
    in.emplace(vi.name(), std::move(a));
  }
  r.anchors = session->initAnchorArrays();
  popart::StepIO stepio(popart::arrayRefs(in), popart::arrayRefs(r.anchors));
  std::vector<double> times;
  for (int i = 0; i < std::max(iterations, 1); ++i) {
    t0 = Clock::now();
    session->run(stepio);
    times.push_back(msSince(t0));
  }
  std::sort(times.begin(), times.end());
  r.medianMs = times[times.size() / 2];
  if (std::getenv("POPART_PROFILE")) std::cout << session->getSummaryReport();
  return r;
}

double maxAbsDiff(const float* a, const float* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

int cmdRun(int argc, char** argv) {
  if (argc < 1) return usage();
  const std::string model = argv[0];
  std::map<std::string, std::string> files;
  popart::InputShapeInfo shapes;
  std::string reference;
  int bps = 1, iterations = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw popart::error("{} needs a value", a);
      return argv[++i];
    };
    if (a == "--input") {
      const std::string kv = next();
      const auto eq = kv.find('=');
      if (eq == std::string::npos) throw popart::error("--input wants NAME=FILE.bin");
      files[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else if (a == "--shape") {
      const std::string kv = next();
      const auto eq = kv.find('=');
      if (eq == std::string::npos) throw popart::error("--shape wants NAME=d0,d1,...");
      popart::Shape s;
      std::stringstream ss(kv.substr(eq + 1));
      std::string d;
      while (std::getline(ss, d, ',')) s.push_back(std::stoll(d));
      shapes.add(kv.substr(0, eq), popart::TensorInfo(popart::DataType::FLOAT, s));
    } else if (a == "--reference") {
      reference = next();
    } else if (a == "--bps") {
      bps = std::stoi(next());
    } else if (a == "--iterations") {
      iterations = std::stoi(next());
    } else {
      return usage();
    }
  }
  std::map<std::string, std::vector<float>> inputs;
  for (const auto& kv : files) {
    std::ifstream f(kv.second, std::ios::binary | std::ios::ate);
    if (!f) throw popart::error("cannot open '{}'", kv.second);
    inputs[kv.first] = readFloats(kv.second, static_cast<int64_t>(f.tellg()) / 4);
  }
  RunResult r = runModel(model, inputs, shapes, bps, iterations, false);
  std::cout << "session created in " << r.createMs << " ms, device prepared in " << r.prepareMs << " ms\n"
            << "activation memory " << r.mem.activationArenaBytes / 1024 << " KiB ("
            << r.mem.activationTotalBytes / 1024 << " KiB without reuse), constants " << r.mem.constantBytes / 1024
            << " KiB\n"
            << "run (" << bps << " batch(es)): median " << r.medianMs << " ms over " << iterations << " run(s)\n";
  for (auto& kv : r.anchors) {
    std::cout << "output " << kv.first << " " << kv.second.info();
    if (kv.second.dataType() == popart::DataType::FLOAT) {
      const float* p = kv.second.dataAs<float>();
      double sum = 0;
      for (size_t i = 0; i < kv.second.nelms(); ++i) sum += p[i];
      std::cout << " sum " << sum;
      if (!reference.empty()) {
        const auto ref = readFloats(reference, static_cast<int64_t>(kv.second.nelms()));
        std::cout << " max |diff| vs reference " << maxAbsDiff(p, ref.data(), ref.size());
      }
    }
    std::cout << "\n";
  }
  return 0;
}

int cmdOps() {
  for (const auto& d : popart::allOpDefs()) {
    if (d.domain == "internal") continue;
    std::cout << d.domain << " " << d.type
              << (d.sinceOpset > 1 ? " (from opset " + std::to_string(d.sinceOpset) + ")" : "") << "\n";
  }
  return 0;
}

// The main job: what this runtime does, end to end, on the CPU device.
int cmdDemo(const std::string& zoo) {
  std::cout << "== 1. Build a graph with the Builder (ai.onnx opset 11) ==\n";
  auto builder = popart::Builder::create();
  auto aiOnnx = builder->aiOnnxOpset11();
  auto x = builder->addInputTensor(popart::TensorInfo{"FLOAT", {2, 3}}, "x");
  std::vector<float> wv{1, 2, 3, 4, 5, 6};
  auto w = builder->addInitializedInputTensor(popart::ConstVoidData(wv.data(), {"FLOAT", {3, 2}}), "w");
  auto y = aiOnnx.matmul({x, w});
  auto z = aiOnnx.relu({aiOnnx.sub({y, aiOnnx.constant(popart::ConstVoidData(wv.data(), {"FLOAT", {}}), "one")})});
  auto p = aiOnnx.softmax({z}, 1);
  builder->addOutputTensor(p);
  std::cout << builder->getModelProto(true);
  std::cout << "shape of " << p << ": " << shapeStr(builder->getTensorShape(p)) << "\n";

  auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
  const int bps = 2;
  auto session = popart::InferenceSession::createFromOnnxModel(
      builder->getModelProto(),
      popart::DataFlow(bps, {{z, popart::AnchorReturnType("All")}, {p, popart::AnchorReturnType("Final")}}), device);
  session->prepareDevice();
  std::vector<float> xv{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};  // two batches of [2, 3]
  popart::NDArrayWrapper<float> xa(xv.data(), {bps, 2, 3});
  auto anchors = session->initAnchorArrays();
  std::map<popart::TensorId, popart::IArray&> ins{{x, xa}};
  popart::StepIO stepio(ins, popart::arrayRefs(anchors));
  session->run(stepio);
  const float* zo = anchors.at(z).dataAs<float>();
  std::cout << "ran " << bps << " batches; anchor " << z << " (All) has shape " << shapeStr(anchors.at(z).shape())
            << ": ";
  for (size_t i = 0; i < anchors.at(z).nelms(); ++i) std::cout << zo[i] << ' ';
  std::cout << "\nanchor " << p << " (Final) has shape " << shapeStr(anchors.at(p).shape()) << "\n";
  // relu(x @ w - 1) for the second batch's first row [0 0 1] is [4 5].
  const bool ok1 = zo[4] == 4.0f && zo[5] == 5.0f;
  std::cout << (ok1 ? "builder graph: OK\n" : "builder graph: WRONG RESULT\n");

  std::cout << "\n== 2. Import real models exported by PyTorch and compare with PyTorch's outputs ==\n";
  bool ok2 = true;
  int found = 0;
  for (const char* name : {"mlp", "resnet18"}) {
    const std::string base = zoo + "/" + name;
    if (!popart::isExistingFile(base + ".onnx")) {
      std::cout << base << ".onnx not found (run tests/zoo/make_zoo.py " << zoo << ")\n";
      continue;
    }
    ++found;
    std::cout << "-- " << name << "\n";
    cmdInfo(base + ".onnx");
    const auto mm = popart::loadModel(base + ".onnx");
    bool okShape;
    const auto inInfo = popart::infoFromValueInfo(mm.graph().input(0), &okShape, nullptr);
    std::map<std::string, std::vector<float>> inputs{
        {mm.graph().input(0).name(), readFloats(base + ".input.bin", inInfo.nelms())}};
    RunResult r = runModel(base + ".onnx", inputs, {}, 1, 10, true);
    const popart::NDArray& out = r.anchors.begin()->second;
    const auto ref = readFloats(base + ".output.bin", static_cast<int64_t>(out.nelms()));
    const double diff = maxAbsDiff(out.dataAs<float>(), ref.data(), ref.size());
    std::cout << "session created in " << std::fixed << std::setprecision(1) << r.createMs << " ms, prepared in "
              << r.prepareMs << " ms; inference median " << std::setprecision(3) << r.medianMs << " ms; activations "
              << r.mem.activationArenaBytes / 1024 << " KiB (" << r.mem.activationTotalBytes / 1024
              << " KiB without buffer reuse)\n";
    std::cout << "output " << out.info() << ": max |ours - PyTorch| = " << std::scientific << std::setprecision(2)
              << diff << std::defaultfloat << (diff <= 1e-4 ? "  OK" : "  MISMATCH") << "\n";
    ok2 = ok2 && diff <= 1e-4;
  }
  if (!found) ok2 = false;
  std::cout << "\n" << (ok1 && ok2 ? "demo: all OK" : "demo: FAILED") << "\n";
  return ok1 && ok2 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  try {
    if (cmd == "info" && argc == 3) return cmdInfo(argv[2]);
    if (cmd == "run") return cmdRun(argc - 2, argv + 2);
    if (cmd == "ops") return cmdOps();
    if (cmd == "demo") {
      std::string zoo = "build/zoo";
      if (argc == 4 && std::string(argv[2]) == "--zoo") zoo = argv[3];
      return cmdDemo(zoo);
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return usage();
}
