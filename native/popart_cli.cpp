// `popart`: the native command line.
//   popart demo [--zoo DIR]        build a graph with the Builder, import a real model, run both
//   popart info MODEL [--json]     inputs, outputs (inferred shapes), opsets, parameters and ops of
//                                  an ONNX model (popart::describeModel); --json: the whole description
//   popart run MODEL [options]     run inference on the CPU device and report outputs and timing
//   popart report MODEL [options]  compile for an IPU model (or an offline IPU): the summary report,
//                                  the graph and execution reports (memory per tile, cycles)
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
#include "popart/describe.hpp"
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
               "       popart info MODEL.onnx [--json]\n"
               "       popart run MODEL.onnx [--input NAME=FILE.bin]... [--reference FILE.bin] [--bps N]\n"
               "                             [--iterations N] [--shape NAME=d0,d1,...]\n"
               "       popart report MODEL.onnx [--device ipu1|ipu2|ipu21] [--offline] [--tiles N] [--num-ipus N]\n"
               "                                [--bps N] [--shape NAME=d0,d1,...] [--run] [--show-steps]\n"
               "                                [--json FILE] [--execution-json FILE] [--cbor FILE]\n"
               "                                [--document FILE]\n"
               "       popart report --schema\n"
               "       popart ops\n"
               "\n"
               "report: compiles MODEL for an IPU model of --tiles tiles per IPU (default: the whole chip of\n"
               "  --device, default ipu2), or with --offline for an offline IPU (compiles like hardware, never\n"
               "  runs), prints the summary report and writes the graph report (--json, default\n"
               "  <MODEL name>.report.json in the current directory; --cbor also writes it as CBOR) and the\n"
               "  execution report (--execution-json, default <MODEL name>.execution.json); --document also\n"
               "  writes the one report document getReport() returns in Python and JS ({compilation: the\n"
               "  graph report, execution: the execution report}). --run first runs\n"
               "  one step on deterministic inputs (uniform in [-1, 1), seed 7) so that the execution report\n"
               "  has a run. --num-ipus N > 1 splits the model over N IPUs (virtualGraphMode Manual when the\n"
               "  model has virtualGraph annotations, else Auto). --bps (or --batches-per-step) sets\n"
               "  batchesPerStep; --shape fixes a dynamic input shape; --show-steps lists the program.\n"
               "  Exit status: 0 done, 1 error, 2 bad usage, 3 out of tile memory on an offline IPU.\n"
               "  --schema prints every key of the report document as JSON ([{path, type, optional, doc}],\n"
               "  the core's table; scripts/gen_js_types.mjs --report-schema reads it).\n";
  return 2;
}

/// An integer option value >= lo, or an error naming the flag.
int64_t intArg(const std::string& flag, const std::string& v, int64_t lo) {
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || n < lo) throw popart::error("{} wants an integer >= {} (got '{}')", flag, lo, v);
  return n;
}

/// `--shape NAME=d0,d1,...` into `shapes`, with the element type the model declares for NAME
/// (FLOAT if it declares none).
void addShapeArg(popart::InputShapeInfo& shapes, const std::string& kv, const onnx::ModelProto& m) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos) throw popart::error("--shape wants NAME=d0,d1,... (got '{}')", kv);
  const std::string name = kv.substr(0, eq);
  popart::Shape s;
  std::stringstream ss(kv.substr(eq + 1));
  std::string d;
  while (std::getline(ss, d, ',')) s.push_back(intArg("--shape " + name, d, 0));
  popart::DataType dt = popart::DataType::FLOAT;
  bool found = false;
  for (const auto& vi : m.graph().input()) {
    if (vi.name() != name) continue;
    found = true;
    if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0)
      dt = popart::dataTypeFromOnnx(vi.type().tensor_type().elem_type());
  }
  if (!found) throw popart::error("--shape: the model has no input '{}'", name);
  shapes.add(name, popart::TensorInfo(dt, s));
}

/// Every model input (not an initializer) with a dynamic dimension must be in `shapes`: an error
/// that names the input and the flag otherwise.
void checkDynamicInputs(const onnx::ModelProto& m, const popart::InputShapeInfo& shapes) {
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  for (const auto& vi : m.graph().input()) {
    if (inits.count(vi.name()) || shapes.has(vi.name())) continue;
    bool ok = false;
    std::string txt;
    popart::infoFromValueInfo(vi, &ok, &txt);
    if (!ok)
      throw popart::error("input '{}' has the shape {}: give it with --shape {}=d0,d1,...", vi.name(), txt, vi.name());
  }
}

/// One step's inputs for `session`: each of the model's inputs that is not an initializer, shaped
/// [bps] + its shape when bps > 1. FLOAT inputs come from `given`, else are uniform in [-1, 1)
/// (seed 7: the same values on every call); other types are zeros.
std::map<std::string, popart::NDArray> stepInputs(const popart::Session& session, const onnx::ModelProto& m, int bps,
                                                  const std::map<std::string, std::vector<float>>& given, bool quiet) {
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::map<std::string, popart::NDArray> in;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const auto& vi : m.graph().input()) {
    if (inits.count(vi.name())) continue;
    const popart::TensorInfo info = session.getInfo(vi.name());
    popart::Shape s = info.shape();
    if (bps > 1) s.insert(s.begin(), bps);
    popart::NDArray a(info.dataType(), s);
    auto it = given.find(vi.name());
    if (info.dataType() != popart::DataType::FLOAT) {
      // Non-float inputs: zeros.
    } else if (it != given.end()) {
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
  return in;
}

/// "FLOAT [1 3 224 224]", symbolic dimensions by name, unknown ones as '?'.
std::string describedShape(const popart::TensorDescription& t) {
  std::string s = t.dtype.empty() ? "?" : t.dtype;
  if (!t.shape) return s + " [?]";
  s += " [";
  for (size_t i = 0; i < t.shape->size(); ++i) {
    const auto& d = (*t.shape)[i];
    s += (i ? " " : "") + (d.known() ? std::to_string(d.value) : d.param.empty() ? "?" : d.param);
  }
  return s + "]";
}

/// `popart info MODEL [--json]`: the core's describeModel, as text or as its JSON document.
int cmdInfo(const std::string& path, bool json) {
  const popart::ModelDescription d = popart::describeModel(path);
  if (json) {
    std::cout << popart::toJson(d) << "\n";
    return 0;
  }
  const auto& g = d.graph;
  std::cout << "model " << path << " (ir_version " << d.irVersion << ", producer '" << d.producerName
            << (d.producerVersion.empty() ? "" : " " + d.producerVersion) << "', " << d.modelBytes << " bytes)\n";
  for (const auto& o : d.opsets) std::cout << "  opset " << o.first << " " << o.second << "\n";
  std::map<std::string, const popart::TensorDescription*> tensors;
  size_t initializers = 0;
  for (const auto& t : g.tensors) {
    tensors[t.name] = &t;
    initializers += t.kind == popart::TensorRole::Initializer ? 1 : 0;
  }
  for (const auto& id : g.inputs) std::cout << "  input  " << id << " " << describedShape(*tensors.at(id)) << "\n";
  for (const auto& id : g.outputs) {
    const auto& t = *tensors.at(id);
    std::cout << "  output " << id << " " << describedShape(t) << " (" << popart::shapeSourceName(t.shapeSource)
              << ")\n";
  }
  std::cout << "  " << g.nodes.size() << " nodes, " << initializers << " initializers (" << d.parameterCount
            << " parameters, " << d.parameterBytes << " bytes)\n  ops:";
  for (const auto& kv : d.opHistogram) std::cout << " " << kv.first << " x" << kv.second;
  std::cout << "\n";
  if (d.shapeInferenceOk) {
    std::cout << "  shape inference: ok\n";
  } else {
    std::cout << "  shape inference: failed: " << d.shapeInferenceMessage << "\n";
  }
  return 0;
}

struct RunResult {
  std::map<popart::TensorId, popart::NDArray> anchors;
  double prepareMs = 0, createMs = 0, medianMs = 0;
  popart::SessionMemoryStats mem;
};

RunResult runModel(const std::string& model, const onnx::ModelProto& m,
                   const std::map<std::string, std::vector<float>>& inputs, const popart::InputShapeInfo& shapes,
                   int bps, int iterations, bool quiet) {
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
  std::map<std::string, popart::NDArray> in = stepInputs(*session, m, bps, inputs, quiet);
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
  std::vector<std::string> shapeArgs;
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
      shapeArgs.push_back(next());
    } else if (a == "--reference") {
      reference = next();
    } else if (a == "--bps") {
      bps = static_cast<int>(intArg(a, next(), 1));
    } else if (a == "--iterations") {
      iterations = static_cast<int>(intArg(a, next(), 1));
    } else {
      return usage();
    }
  }
  const onnx::ModelProto m = popart::loadModel(model);
  popart::InputShapeInfo shapes;
  for (const std::string& kv : shapeArgs) addShapeArg(shapes, kv, m);
  checkDynamicInputs(m, shapes);
  std::map<std::string, std::vector<float>> inputs;
  for (const auto& kv : files) {
    std::ifstream f(kv.second, std::ios::binary | std::ios::ate);
    if (!f) throw popart::error("cannot open '{}'", kv.second);
    inputs[kv.first] = readFloats(kv.second, static_cast<int64_t>(f.tellg()) / 4);
  }
  RunResult r = runModel(model, m, inputs, shapes, bps, iterations, false);
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

/// Writes `bytes` to `path`, or throws naming it.
void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw popart::error("cannot write '{}'", path);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw popart::error("cannot write '{}'", path);
}

/// "dir/resnet18.onnx" -> "resnet18".
std::string modelStem(const std::string& path) {
  std::string s = path.substr(path.find_last_of('/') + 1);
  const auto dot = s.rfind('.');
  if (dot != std::string::npos && dot > 0) s.resize(dot);
  return s.empty() ? "model" : s;
}

bool hasVirtualGraphAnnotations(const onnx::ModelProto& m) {
  for (const auto& n : m.graph().node())
    for (const auto& a : n.attribute())
      if (a.name() == popart::sVirtualGraphAttribute) return true;
  return false;
}

/// `popart report MODEL [options]` (usage() has the options).
int cmdReport(int argc, char** argv) {
  if (argc == 1 && std::string(argv[0]) == "--schema") {
    std::cout << popart::report::schemaJson() << "\n";
    return 0;
  }
  if (argc < 1 || std::string(argv[0]).rfind("--", 0) == 0) return usage();
  const std::string model = argv[0];
  std::string version = "ipu2", jsonPath, executionPath, cborPath, documentPath;
  std::vector<std::string> shapeArgs;
  bool offline = false, runOnce = false, showSteps = false;
  int64_t tiles = 0, ipus = 1, bps = 1;  // tiles 0: the whole chip
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw popart::error("{} needs a value", a);
      return argv[++i];
    };
    if (a == "--offline") {
      offline = true;
    } else if (a == "--run") {
      runOnce = true;
    } else if (a == "--show-steps") {
      showSteps = true;
    } else if (a == "--device") {
      version = next();
    } else if (a == "--tiles") {
      tiles = intArg(a, next(), 1);
    } else if (a == "--num-ipus") {
      ipus = intArg(a, next(), 1);
    } else if (a == "--bps" || a == "--batches-per-step") {
      bps = intArg(a, next(), 1);
    } else if (a == "--shape") {
      shapeArgs.push_back(next());
    } else if (a == "--json") {
      jsonPath = next();
    } else if (a == "--execution-json") {
      executionPath = next();
    } else if (a == "--cbor") {
      cborPath = next();
    } else if (a == "--document") {
      documentPath = next();
    } else {
      std::cerr << "popart report: unknown option '" << a << "'\n";
      return usage();
    }
  }

  // The device, checked here so that the messages name the CLI's flags.
  const popart::IpuTargetInfo* target = nullptr;
  std::string known;
  for (const popart::IpuTargetInfo& t : popart::ipuTargetList()) {
    if (t.version == version) target = &t;
    known += (known.empty() ? "" : ", ") + t.version;
  }
  if (!target)
    throw popart::error(
        "unknown device '{}' for --device: the IPU versions are {} (--offline for an offline IPU; `popart run` runs "
        "on the CPU device)",
        version, known);
  if (tiles == 0) tiles = target->tilesPerIpu;
  if (tiles > target->tilesPerIpu)
    throw popart::error("--tiles must be from 1 to {} (the tiles of an {}), got {}", target->tilesPerIpu, version,
                        tiles);
  if (offline && runOnce)
    throw popart::error("--run needs the IPU model: an offline IPU compiles but never runs (drop --offline or --run)");
  if (!popart::isExistingFile(model)) throw popart::error("model file '{}' not found", model);

  const onnx::ModelProto m = popart::loadModel(model);
  popart::InputShapeInfo shapes;
  for (const std::string& kv : shapeArgs) addShapeArg(shapes, kv, m);
  checkDynamicInputs(m, shapes);
  const std::map<std::string, std::string> deviceOptions{
      {"numIPUs", std::to_string(ipus)}, {"tilesPerIPU", std::to_string(tiles)}, {"ipuVersion", version}};
  auto& dm = popart::DeviceManager::createDeviceManager();
  auto device = offline ? dm.createOfflineIPUDevice(deviceOptions) : dm.createIpuModelDevice(deviceOptions);
  popart::SessionOptions options;
  if (ipus > 1)
    options.virtualGraphMode =
        hasVirtualGraphAnnotations(m) ? popart::VirtualGraphMode::Manual : popart::VirtualGraphMode::Auto;
  if (showSteps) options.reportOptions["showExecutionSteps"] = "true";
  std::vector<popart::TensorId> outIds;
  for (const auto& o : m.graph().output()) outIds.push_back(o.name());
  auto session = popart::InferenceSession::createFromOnnxModel(
      model, popart::DataFlow(static_cast<int>(bps), outIds, popart::AnchorReturnType("All")), device, shapes, options);
  std::cout << "popart report: " << model << " on " << (offline ? "an offline IPU" : "the IPU model") << " (" << version
            << ", " << ipus << " IPU(s) x " << tiles << " tiles)\n\n";
  try {
    session->prepareDevice();
  } catch (const popart::OutOfMemoryException& e) {
    std::cout << e.getSummaryReport();
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
  if (runOnce) {
    std::map<std::string, popart::NDArray> in = stepInputs(*session, m, static_cast<int>(bps), {}, true);
    auto anchors = session->initAnchorArrays();
    popart::StepIO stepio(popart::arrayRefs(in), popart::arrayRefs(anchors));
    session->run(stepio, "run");
  }
  std::cout << session->getSummaryReport(false);
  const popart::report::Memory& mem = session->getReport().compilation.memory;

  const std::string stem = modelStem(model);
  if (jsonPath.empty()) jsonPath = stem + ".report.json";
  if (executionPath.empty()) executionPath = stem + ".execution.json";
  writeFile(jsonPath, session->getGraphReport(false));
  std::cout << "\ngraph report: " << jsonPath << "\n";
  if (!cborPath.empty()) {
    writeFile(cborPath, session->getGraphReport(true));
    std::cout << "graph report (CBOR): " << cborPath << "\n";
  }
  if (!documentPath.empty()) {  // before the execution report, which forgets the runs
    writeFile(documentPath, session->getReportJson(false));
    std::cout << "report document: " << documentPath << "\n";
  }
  writeFile(executionPath, session->getExecutionReport(false, true));
  std::cout << "execution report: " << executionPath << (runOnce ? " (1 run)" : " (no run: --run adds one)") << "\n";
  if (!mem.outOfMemoryTiles.empty())
    std::cout << "does not fit: " << mem.outOfMemoryTiles.size()
              << " tile(s) over their memory (the IPU model compiles and runs anyway; an offline IPU refuses it)\n";
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
    cmdInfo(base + ".onnx", false);
    const auto mm = popart::loadModel(base + ".onnx");
    bool okShape;
    const auto inInfo = popart::infoFromValueInfo(mm.graph().input(0), &okShape, nullptr);
    std::map<std::string, std::vector<float>> inputs{
        {mm.graph().input(0).name(), readFloats(base + ".input.bin", inInfo.nelms())}};
    RunResult r = runModel(base + ".onnx", mm, inputs, {}, 1, 10, true);
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
    if (cmd == "info" && argc == 3) return cmdInfo(argv[2], false);
    if (cmd == "info" && argc == 4 && std::string(argv[3]) == "--json") return cmdInfo(argv[2], true);
    if (cmd == "info" && argc == 4 && std::string(argv[2]) == "--json") return cmdInfo(argv[3], true);
    if (cmd == "run") return cmdRun(argc - 2, argv + 2);
    if (cmd == "report") return cmdReport(argc - 2, argv + 2);
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
