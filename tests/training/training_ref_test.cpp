// Training against PyTorch: the zoo's mlp and cnn_small, from the same initial weights and data,
// trained for 10 steps by TrainingSession (SGD with momentum, Adam, AdamW) and by torch.optim
// (tests/training/make_training_refs.py writes the references into POPART_TRAINING_REFS_DIR).
//
// Tolerance: per weight tensor, ||w_ours - w_torch||_2 <= 1e-4 · ||w_torch||_2 (the acceptance
// bar). Because 10 small steps move a weight little compared with its size, the update itself is
// also checked: ||(w_ours - w0) - (w_torch - w0)||_2 <= 1e-3 · ||w_torch - w0||_2. The loss of
// every step matches PyTorch's within 1e-5 relative.
//
// The same steps on the IPU model (1,472 tiles) give the CPU device's losses and weights bit for
// bit (IpuModelTraining): it runs the CPU kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "onnx/model_io.hpp"
#include "popart/adam.hpp"
#include "popart/popart.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

std::string refsDir() {
  const char* env = std::getenv("POPART_TRAINING_REFS_DIR");
  return env ? env : POPART_TRAINING_REFS_DIR;
}

template <typename T>
std::vector<T> readRaw(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw error("cannot open '{}': run tests/training/make_training_refs.py {}", path, refsDir());
  std::vector<T> v(static_cast<size_t>(f.tellg()) / sizeof(T));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  return v;
}

/// key=value lines.
std::map<std::string, std::string> readKeyValues(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw error("cannot open '{}': run tests/training/make_training_refs.py {}", path, refsDir());
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(f, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

/// The initializers of an ONNX file, as float vectors.
std::map<TensorId, std::vector<float>> initializers(const std::string& path) {
  const onnx::ModelProto m = loadModel(path);
  std::map<TensorId, std::vector<float>> w;
  for (const auto& init : m.graph().initializer()) {
    const TensorData d = tensorFromProto(init);
    w[init.name()].assign(d.as<float>(), d.as<float>() + d.info().nelms());
  }
  return w;
}

std::unique_ptr<Optimizer> makeOptimizer(const std::map<std::string, std::string>& c) {
  auto value = [&](const std::string& k) { return std::pair<float, bool>(std::stof(c.at(k)), true); };
  if (c.at("type") == "sgd") {
    return std::make_unique<SGD>(
        std::map<std::string, std::pair<float, bool>>{{"defaultLearningRate", value("lr")},
                                                      {"defaultMomentum", value("momentum")},
                                                      {"defaultDampening", value("dampening")},
                                                      {"defaultWeightDecay", value("weight_decay")}});
  }
  const WeightDecayMode mode =
      c.at("weight_decay_mode") == "L2" ? WeightDecayMode::L2Regularization : WeightDecayMode::Decay;
  return std::make_unique<Adam>(
      std::map<std::string, std::pair<float, bool>>{{"defaultLearningRate", value("lr")},
                                                    {"defaultBeta1", value("beta1")},
                                                    {"defaultBeta2", value("beta2")},
                                                    {"defaultEps", value("eps")},
                                                    {"defaultWeightDecay", value("weight_decay")}},
      AdamMode::Adam, mode);
}

double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

using Case = std::pair<std::string, std::string>;  // (model, optimizer)

/// A training session of a case, prepared with its initial weights, and its run: every step in
/// one run (batchesPerStep = steps, one update per batch).
struct Trained {
  std::unique_ptr<TrainingSession> session;
  TensorId loss;
  std::map<TensorId, NDArray> anchors;
  int steps = 0;
};

Trained train(const Case& c, std::shared_ptr<DeviceInfo> device) {
  const std::string dir = refsDir() + "/" + c.first, opt = c.second;
  const auto modelCfg = readKeyValues(dir + "/model.txt");
  Trained t;
  t.steps = std::stoi(modelCfg.at("steps"));
  const int64_t batch = std::stoll(modelCfg.at("batch"));

  // The loss on top of the imported forward graph.
  auto builder = Builder::createFromOnnxModel(dir + "/model.onnx");
  const TensorId label = builder->addInputTensor(TensorInfo(DataType::INT32, {batch}), "label");
  TensorId probs = "output";
  if (modelCfg.at("head") == "logits") probs = builder->aiOnnxOpset13().softmax({probs}, 1);
  t.loss = builder->aiGraphcoreOpset1().nllloss({probs, label}, ReductionType::Mean);
  builder->addOutputTensor(t.loss);

  const auto optimizer = makeOptimizer(readKeyValues(dir + "/" + opt + ".txt"));
  t.session = TrainingSession::createFromOnnxModel(builder->getModelProto(),
                                                   DataFlow(t.steps, {{t.loss, AnchorReturnType("All")}}), t.loss,
                                                   *optimizer, std::move(device));
  t.session->prepareDevice();
  t.session->weightsFromHost();

  Shape xShape = t.session->getInfo("input").shape();
  xShape.insert(xShape.begin(), t.steps);
  std::map<TensorId, NDArray> inputs;
  inputs.emplace("input", NDArray::fromVector(readRaw<float>(dir + "/x.bin"), xShape));
  inputs.emplace(label, NDArray::fromVector(readRaw<int32_t>(dir + "/labels.bin"), {t.steps, batch}));
  t.anchors = t.session->initAnchorArrays();
  StepIO stepio(arrayRefs(inputs), arrayRefs(t.anchors));
  t.session->run(stepio);
  t.session->weightsToHost();
  return t;
}

/// The trained values of the weights `ids`.
std::map<TensorId, std::vector<float>> readTrained(Session& s, const std::vector<TensorId>& ids) {
  std::map<TensorId, std::vector<float>> w;
  WeightsIO io;
  for (const TensorId& id : ids) {
    w[id].resize(static_cast<size_t>(s.getInfo(id).nelms()));
    io.insert(id, MutableVoidData(w[id].data(), s.getInfo(id)));
  }
  s.readWeights(io);
  return w;
}

class TrainingVsPyTorch : public ::testing::TestWithParam<Case> {};

TEST_P(TrainingVsPyTorch, WeightsAfterTenSteps) {
  const std::string dir = refsDir() + "/" + GetParam().first, opt = GetParam().second;
  Trained t = train(GetParam(), DeviceManager::createDeviceManager().createCpuDevice());

  const auto torchLoss = readRaw<float>(dir + "/" + opt + ".loss.bin");
  ASSERT_EQ(torchLoss.size(), static_cast<size_t>(t.steps));
  const float* ourLoss = t.anchors.at(t.loss).dataAs<float>();
  for (int s = 0; s < t.steps; ++s)
    EXPECT_NEAR(ourLoss[s], torchLoss[s], 1e-5 * std::fabs(torchLoss[s])) << "loss of step " << s;

  const auto w0 = initializers(dir + "/model.onnx");
  const auto wTorch = initializers(dir + "/" + opt + ".final.onnx");
  ASSERT_EQ(w0.size(), wTorch.size());
  for (const auto& kv : wTorch) {
    const TensorId& id = kv.first;
    const std::vector<float>& ref = kv.second;
    const std::vector<float> ours = readTrained(*t.session, {id}).at(id);
    ASSERT_EQ(ours.size(), ref.size()) << id;
    std::vector<double> ref64(ref.size()), diff(ref.size()), step(ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      ref64[i] = ref[i];
      diff[i] = static_cast<double>(ours[i]) - ref[i];
      step[i] = static_cast<double>(ref[i]) - w0.at(id)[i];
    }
    const double relWeight = norm2(diff) / norm2(ref64), relStep = norm2(diff) / norm2(step);
    EXPECT_LE(relWeight, 1e-4) << id << ": ||ours - torch|| / ||torch||";
    EXPECT_LE(relStep, 1e-3) << id << ": ||ours - torch|| / ||torch - w0||";
    std::printf("  %-12s %-10s rel. weight error %.2e, rel. update error %.2e\n", opt.c_str(), id.c_str(), relWeight,
                relStep);
  }
}

INSTANTIATE_TEST_SUITE_P(ZooModels, TrainingVsPyTorch,
                         ::testing::Values(Case{"mlp", "sgd"}, Case{"mlp", "adam"}, Case{"mlp", "adamw"},
                                           Case{"cnn_small", "sgd"}, Case{"cnn_small", "adam"},
                                           Case{"cnn_small", "adamw"}),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.first + "_" + i.param.second; });

// The IPU model runs the CPU kernels: the same ten steps give the CPU device's losses and weights
// bit for bit (docs/ipu-model.md).
class IpuModelTraining : public ::testing::TestWithParam<Case> {};

TEST_P(IpuModelTraining, SameWeightsAsTheCpuDevice) {
  auto& dm = DeviceManager::createDeviceManager();
  Trained cpu = train(GetParam(), dm.createCpuDevice());
  Trained ipu = train(GetParam(), dm.createIpuModelDevice({{"tilesPerIPU", "1472"}}));
  EXPECT_EQ(cpu.anchors.at(cpu.loss).toVector<float>(), ipu.anchors.at(ipu.loss).toVector<float>());
  std::vector<TensorId> ids;
  for (const auto& kv : initializers(refsDir() + "/" + GetParam().first + "/model.onnx")) ids.push_back(kv.first);
  ASSERT_FALSE(ids.empty());
  const auto wCpu = readTrained(*cpu.session, ids), wIpu = readTrained(*ipu.session, ids);
  for (const TensorId& id : ids) EXPECT_EQ(wCpu.at(id), wIpu.at(id)) << id;
  // The IPU model's compilation is there too (1,472 tiles).
  EXPECT_EQ(ipu.session->getReport().compilation.memory.byTileTotal.size(), 1472u);
}

INSTANTIATE_TEST_SUITE_P(ZooModels, IpuModelTraining,
                         ::testing::Values(Case{"mlp", "sgd"}, Case{"cnn_small", "sgd"}, Case{"cnn_small", "adam"}),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.first + "_" + i.param.second; });

}  // namespace
}  // namespace popart
