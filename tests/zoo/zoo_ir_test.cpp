// What the runtime makes of the reference zoo (tests/zoo/make_zoo.py), checked so that a silent
// regression fails a test even when the outputs stay right:
//  - the op-type histogram of each model's IR after patterns (a fused activation counts as
//    "Conv+Relu"), with constant weights and with Variable weights (the zoo's Identity ops read
//    initializers: folded away in the first case, removed by identity removal in the second), so
//    FuseActivation, FuseLayerNorm or identity removal no longer firing changes it;
//  - the CPU algorithm of every Conv (backends/cpu/kernels/conv_algorithm.hpp, the function the
//    kernel itself branches on): Winograd, the depthwise kernels or the 1x1 GEMM no longer chosen;
//  - resnet18's activation arena: buffer reuse by liveness (ir/memory_plan) keeps it small.
// The first two are golden data in tests/zoo/zoo_ir_golden.txt; see kUpdateHint to regenerate it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/conv_algorithm.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "popart/popart.hpp"

namespace popart {
namespace {

const char* const kGoldenPath = POPART_SOURCE_DIR "/tests/zoo/zoo_ir_golden.txt";
const char* const kUpdateHint =
    "If the change is intended (a new or changed pattern, a new conv algorithm or threshold, a re-exported zoo), "
    "regenerate the golden file with\n"
    "  POPART_UPDATE_GOLDEN=1 POPART_ZOO_DIR=<zoo> build/native/tests/popart_zoo_ir_tests "
    "--gtest_filter=ZooIrGolden.Update\n"
    "and review `git diff tests/zoo/zoo_ir_golden.txt` before committing it.";

/// The zoo's models (make_zoo.py's MODELS; the seed documents' exports are not part of it).
const std::vector<std::string> kModels = {
    "mlp",          "cnn_small",     "alexnet",           "resnet18",
    "mobilenet_v2", "squeezenet1_0", "transformer_layer", "transformer_layer_opset17"};

std::string zooDir() {
  const char* env = std::getenv("POPART_ZOO_DIR");
  return env ? env : POPART_ZOO_DIR;
}

/// An inference session on a zoo model. With `constantWeights` false the weights are Variables
/// (writable), so the ops reading them are not folded away at import.
std::unique_ptr<InferenceSession> session(const std::string& model, bool constantWeights = true,
                                          const Patterns& patterns = Patterns()) {
  const std::string path = zooDir() + "/" + model + ".onnx";
  if (!std::ifstream(path))
    throw error("cannot open '{}': build the zoo with tests/zoo/make_zoo.py {}", path, zooDir());
  SessionOptions opts;
  opts.constantWeights = constantWeights;
  return InferenceSession::createFromOnnxModel(path, DataFlow(1, {"output"}),
                                               DeviceManager::createDeviceManager().createCpuDevice(), InputShapeInfo(),
                                               opts, patterns);
}

using Histogram = std::map<std::string, int>;                          ///< op type (+ fused activation) -> count
using ConvChoices = std::vector<std::pair<std::string, std::string>>;  ///< Conv name, algorithm

/// The op types of the IR after patterns; "Conv+Relu" is a Conv with a fused Relu.
Histogram histogram(const std::string& model, bool constantWeights) {
  auto s = session(model, constantWeights);
  Histogram h;
  for (const auto& kv : s->getIr().mainGraph().ops()) {
    const Op& op = *kv.second;
    ++h[op.attrs.has("__act") ? op.type() + "+" + op.attrs.getString("__act") : op.type()];
  }
  return h;
}

/// Each Conv's CPU algorithm, in schedule order: what makeCpuKernel_Conv will run.
ConvChoices convAlgorithms(const std::string& model) {
  auto s = session(model);
  ConvChoices c;
  for (const Op* op : s->getIr().schedule()) {
    if (op->type() == "Conv") c.emplace_back(op->name(), cpu::convAlgorithmName(cpu::chooseConvAlgorithm(*op)));
  }
  return c;
}

/// What the golden file records of one model.
struct Facts {
  Histogram ops;      ///< "op TYPE COUNT": the default options (constant weights)
  Histogram varOps;   ///< "varop TYPE COUNT": constantWeights = false
  ConvChoices convs;  ///< "conv NAME ALGORITHM"
};

/// The golden file: "model NAME" then its "op", "varop" and "conv" lines; '#' starts a comment.
std::map<std::string, Facts> readGolden() {
  std::ifstream in(kGoldenPath);
  if (!in) throw error("cannot read the golden file {}", kGoldenPath);
  std::map<std::string, Facts> golden;
  Facts* cur = nullptr;
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string tag, a, b;
    ss >> tag >> a;
    if (tag == "model" && !a.empty()) {
      cur = &golden[a];
      continue;
    }
    ss >> b;
    if (!cur || b.empty() || (tag != "op" && tag != "varop" && tag != "conv"))
      throw error(
          "{}:{}: cannot read '{}' (expected 'model NAME', 'op TYPE COUNT', 'varop TYPE COUNT' or "
          "'conv NAME ALGORITHM')",
          kGoldenPath, lineNo, line);
    if (tag == "conv")
      cur->convs.emplace_back(a, b);
    else
      (tag == "op" ? cur->ops : cur->varOps)[a] = std::stoi(b);
  }
  return golden;
}

const Facts& goldenOf(const std::string& model) {
  static const std::map<std::string, Facts> golden = readGolden();
  auto it = golden.find(model);
  if (it == golden.end()) throw error("{} has no section 'model {}'.\n{}", kGoldenPath, model, kUpdateHint);
  return it->second;
}

/// "  TYPE: golden G, now N" for every count that differs.
std::string histogramDiff(const Histogram& golden, const Histogram& now) {
  std::ostringstream diff;
  Histogram all = golden;
  all.insert(now.begin(), now.end());
  for (const auto& kv : all) {
    const int g = golden.count(kv.first) ? golden.at(kv.first) : 0;
    const int n = now.count(kv.first) ? now.at(kv.first) : 0;
    if (g != n) diff << "  " << kv.first << ": golden " << g << ", now " << n << "\n";
  }
  return diff.str();
}

class ZooIr : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooIr, OpHistogramAfterPatterns) {
  const std::string diff = histogramDiff(goldenOf(GetParam()).ops, histogram(GetParam(), true));
  EXPECT_TRUE(diff.empty()) << GetParam()
                            << ": the op types after patterns (activation and layer-norm fusion, folding) differ "
                               "from the 'op' lines of "
                            << kGoldenPath << ":\n"
                            << diff << kUpdateHint;
}

// The zoo's Identity ops all read initializers: with constant weights folding removes them, with
// Variable weights only identity removal does.
TEST_P(ZooIr, OpHistogramWithVariableWeights) {
  const std::string diff = histogramDiff(goldenOf(GetParam()).varOps, histogram(GetParam(), false));
  EXPECT_TRUE(diff.empty()) << GetParam()
                            << ": with constantWeights = false, the op types after patterns (identity removal, "
                               "activation and layer-norm fusion) differ from the 'varop' lines of "
                            << kGoldenPath << ":\n"
                            << diff << kUpdateHint;
}

TEST_P(ZooIr, ConvAlgorithmPerLayer) {
  ASSERT_EQ(std::getenv("POPART_NO_WINOGRAD"), nullptr) << "POPART_NO_WINOGRAD changes the algorithms: unset it";
  const ConvChoices now = convAlgorithms(GetParam());
  const ConvChoices& golden = goldenOf(GetParam()).convs;
  std::ostringstream diff;
  for (size_t i = 0; i < std::max(golden.size(), now.size()); ++i) {
    const std::string g = i < golden.size() ? golden[i].first + " " + golden[i].second : "(none)";
    const std::string c = i < now.size() ? now[i].first + " " + now[i].second : "(none)";
    if (g != c) diff << "  Conv #" << i << ": golden " << g << ", now " << c << "\n";
  }
  EXPECT_TRUE(diff.str().empty()) << GetParam()
                                  << ": the CPU conv algorithms (cpu::chooseConvAlgorithm) differ from the 'conv' "
                                     "lines of "
                                  << kGoldenPath << ":\n"
                                  << diff.str() << kUpdateHint;
}

INSTANTIATE_TEST_SUITE_P(ReferenceModels, ZooIr, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(ZooIrGolden, CoversExactlyTheZoo) {
  std::vector<std::string> inFile;
  for (const auto& kv : readGolden()) inFile.push_back(kv.first);
  std::vector<std::string> models = kModels;
  std::sort(models.begin(), models.end());
  EXPECT_EQ(inFile, models) << kGoldenPath << " must have one section per zoo model.\n" << kUpdateHint;
}

/// Rewrites the golden file from the current build (only with POPART_UPDATE_GOLDEN=1).
TEST(ZooIrGolden, Update) {
  if (!std::getenv("POPART_UPDATE_GOLDEN")) GTEST_SKIP() << "set POPART_UPDATE_GOLDEN=1 to rewrite " << kGoldenPath;
  ASSERT_EQ(std::getenv("POPART_NO_WINOGRAD"), nullptr) << "POPART_NO_WINOGRAD changes the algorithms: unset it";
  std::ostringstream out;
  out << "# The reference zoo's IR after InferenceSession creation (patterns applied), checked by\n"
         "# tests/zoo/zoo_ir_test.cpp. Per model: 'op' the op-type histogram (TYPE+ACT: an activation fused\n"
         "# into its producer), 'varop' the same with constantWeights = false (weights are Variables, so\n"
         "# identities on them are not folded), 'conv' the CPU algorithm of each Conv in schedule order\n"
         "# (cpu::chooseConvAlgorithm).\n"
         "# Written by: POPART_UPDATE_GOLDEN=1 popart_zoo_ir_tests --gtest_filter=ZooIrGolden.Update\n";
  for (const auto& model : kModels) {
    out << "\nmodel " << model << "\n";
    for (const auto& kv : histogram(model, true)) out << "op " << kv.first << " " << kv.second << "\n";
    for (const auto& kv : histogram(model, false)) out << "varop " << kv.first << " " << kv.second << "\n";
    for (const auto& c : convAlgorithms(model)) out << "conv " << c.first << " " << c.second << "\n";
  }
  std::ofstream(kGoldenPath) << out.str();
  GTEST_SKIP() << "rewrote " << kGoldenPath << ": review the diff";
}

// ---------------------------------------------------------------- buffer reuse

TEST(ZooMemory, Resnet18ActivationArenaReusesBuffers) {
  auto s = session("resnet18");
  s->prepareDevice();
  const SessionMemoryStats m = s->getMemoryStats();
  int64_t largest = 0;
  for (const auto& kv : s->getIr().mainGraph().tensors()) {
    if (kv.second->kind == TensorKind::ActGrad) largest = std::max(largest, kv.second->info.nbytes());
  }
  // The largest activation is conv1's output, [1, 64, 112, 112] FLOAT (3,211,264 bytes); the
  // MaxPool that reads it writes [1, 64, 56, 56] (802,816 bytes, a quarter), so both are alive at
  // once and any valid plan needs at least 1.25x the largest activation (less would mean two live
  // buffers overlap). Today's plan reaches exactly that peak: 4,014,080 bytes.
  ASSERT_EQ(largest, 64 * 112 * 112 * 4);
  const int64_t peak = largest + largest / 4;
  EXPECT_GE(m.activationArenaBytes, peak) << "the arena is smaller than two buffers that are alive together";
  // The bound: the peak plus 5% (alignment, a schedule change that keeps a small tensor alive a
  // little longer). A plan that stops sharing a buffer that could be shared exceeds it.
  EXPECT_LE(m.activationArenaBytes, peak + peak / 20)
      << "activation arena " << m.activationArenaBytes << " bytes, largest activation " << largest
      << ": buffer reuse (ir/memory_plan.cpp, the liveness in backends/cpu/program.cpp) got worse";
  // Reuse happens: without InPlace the 13.75 MB of activations (no reuse) share an arena of
  // about 4 MB.
  Patterns noInplace;
  noInplace.enableInPlace(false);
  auto plain = session("resnet18", true, noInplace);
  plain->prepareDevice();
  const SessionMemoryStats p = plain->getMemoryStats();
  EXPECT_GE(p.activationTotalBytes, 3 * p.activationArenaBytes)
      << "activations " << p.activationTotalBytes << " bytes, arena " << p.activationArenaBytes;
  // InPlace (on by default) lets each residual Add (+ Relu) overwrite an input: those outputs get
  // no buffer of their own (10.74 MB of buffers instead of 13.75 MB); the peak stays conv1's.
  EXPECT_LT(m.activationTotalBytes, p.activationTotalBytes - 2 * 1000 * 1000);
  EXPECT_EQ(m.activationArenaBytes, p.activationArenaBytes);
}

}  // namespace
}  // namespace popart
