// Kernels that precompute from an input (Gemm's transposed B, Winograd's transformed 3x3 conv
// weights) must do so only for constants: a weight's device value changes (training,
// writeWeights + weightsFromHost), and the forward pass has to see the new value.
#include "common/test_util.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

struct Model {
  std::string proto;
  TensorId x, xc, w, wc, y, yc;
  std::vector<float> w0, wc0;
  std::map<TensorId, NDArray> inputs;
};

/// y = Gemm(x [16, 12], w [10, 12], transB) and yc = Conv(xc [1, 8, 6, 6], wc [8, 8, 3, 3], pad 1):
/// shapes that take the pre-transposed Gemm and the Winograd paths for constants.
Model makeModel() {
  Model m;
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  m.x = b->addInputTensor(TensorInfo(DataType::FLOAT, {16, 12}));
  m.xc = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 8, 6, 6}));
  m.w0 = test::randomFloats(10 * 12, 1);
  m.wc0 = test::randomFloats(8 * 8 * 9, 2);
  m.w = b->addInitializedInputTensor(ConstVoidData(m.w0.data(), TensorInfo(DataType::FLOAT, {10, 12})));
  m.wc = b->addInitializedInputTensor(ConstVoidData(m.wc0.data(), TensorInfo(DataType::FLOAT, {8, 8, 3, 3})));
  m.y = ai.gemm({m.x, m.w}, 1.0f, 1.0f, 0, 1);
  m.yc = ai.conv({m.xc, m.wc}, {1, 1}, 1, {3, 3}, {1, 1, 1, 1});
  b->addOutputTensor(m.y);
  b->addOutputTensor(m.yc);
  m.proto = b->getModelProto();
  m.inputs.emplace(m.x, NDArray::fromVector(test::randomFloats(16 * 12, 3), {16, 12}));
  m.inputs.emplace(m.xc, NDArray::fromVector(test::randomFloats(8 * 36, 4), {1, 8, 6, 6}));
  return m;
}

void expectScaled(const NDArray& a, const NDArray& b, float factor, const char* what) {
  const auto va = a.toVector<float>(), vb = b.toVector<float>();
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(vb[i], factor * va[i], 1e-5f * (1 + std::fabs(vb[i]))) << what;
}

TEST(WeightsOnDevice, WrittenWeightsReachGemmAndWinogradConv) {
  Model m = makeModel();
  SessionOptions opts;
  opts.constantWeights = false;
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, std::vector<TensorId>{m.y, m.yc}), test::cpu(),
                                                 {}, opts);
  s->prepareDevice();
  auto first = s->initAnchorArrays();
  auto second = s->initAnchorArrays();
  StepIO io1(arrayRefs(m.inputs), arrayRefs(first));
  s->run(io1);
  // Doubled weights double both outputs.
  std::vector<float> w2 = m.w0, wc2 = m.wc0;
  for (auto& v : w2) v *= 2;
  for (auto& v : wc2) v *= 2;
  WeightsIO wio;
  wio.insert(m.w, MutableVoidData(w2.data(), s->getInfo(m.w)));
  wio.insert(m.wc, MutableVoidData(wc2.data(), s->getInfo(m.wc)));
  s->writeWeights(wio);
  s->weightsFromHost();
  StepIO io2(arrayRefs(m.inputs), arrayRefs(second));
  s->run(io2);
  expectScaled(first.at(m.y), second.at(m.y), 2.0f, "Gemm");
  expectScaled(first.at(m.yc), second.at(m.yc), 2.0f, "Conv");
}

TEST(WeightsOnDevice, TrainedWeightsReachGemmAndWinogradConv) {
  // SGD0 with weight decay only (zero gradient): every step scales the weights by 1 - lr·wd.
  Model m = makeModel();
  auto b = Builder::createFromOnnxModel(m.proto);
  auto ai = b->aiOnnxOpset13();
  const TensorId zero = ai.mul({ai.add({b->aiGraphcoreOpset1().identityloss({m.y}, ReductionType::Sum),
                                        b->aiGraphcoreOpset1().identityloss({m.yc}, ReductionType::Sum)}),
                                ai.constant(ConstVoidData(std::vector<float>{0.0f}.data(), {DataType::FLOAT, {}}))});
  b->addOutputTensor(zero);
  const SGD sgd({{"defaultLearningRate", {0.5f, true}}, {"defaultWeightDecay", {1.0f, true}}});
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, std::vector<TensorId>{m.y, m.yc}), zero,
                                                sgd, test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto first = s->initAnchorArrays();
  auto second = s->initAnchorArrays();
  StepIO io1(arrayRefs(m.inputs), arrayRefs(first));
  s->run(io1);  // forward with w0, then w <- 0.5 w0
  StepIO io2(arrayRefs(m.inputs), arrayRefs(second));
  s->run(io2);
  expectScaled(first.at(m.y), second.at(m.y), 0.5f, "Gemm");
  expectScaled(first.at(m.yc), second.at(m.yc), 0.5f, "Conv");
}

}  // namespace
}  // namespace popart
