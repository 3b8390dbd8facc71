// Anchored gradients, as PopART gives them: `Gradient___<id>` of any floating-point tensor with a
// differentiable path to the loss (graph inputs, activations, constants, weights), summed over the
// ops that read it, none through Detach; PopART's errors for a gradient that cannot exist (no path
// to the loss, an integer tensor, an inference session) and for a loss that is not a scalar. Only
// the gradients a session needs are built.
#include <cmath>

#include "common/test_util.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"

namespace popart {
namespace {

using test::expectError;
using test::expectNear;

std::string grad(const TensorId& id) {
  return std::string(reservedGradientPrefix()) + id;
}

struct Trained {
  std::map<TensorId, NDArray> anchors;
  std::unique_ptr<TrainingSession> session;
};

/// One step of a TrainingSession (SGD, learning rate `lr`) anchoring `anchors`.
Trained train(const std::string& proto, const TensorId& loss, const std::vector<TensorId>& anchors,
              std::map<TensorId, NDArray> inputs, float lr = 0.1f, float lossScaling = 1.0f) {
  Trained r;
  SGD sgd({{"defaultLearningRate", {lr, true}}, {"lossScaling", {lossScaling, true}}});
  r.session = TrainingSession::createFromOnnxModel(proto, DataFlow(1, anchors), loss, sgd, test::cpu());
  r.session->prepareDevice();
  r.session->weightsFromHost();
  r.anchors = r.session->initAnchorArrays();
  StepIO io(arrayRefs(inputs), arrayRefs(r.anchors));
  r.session->run(io);
  return r;
}

std::vector<float> vals(const Trained& r, const TensorId& id) {
  return r.anchors.at(id).toVector<float>();
}

// x (input) -> a = x * w -> b = a * x -> loss = sum(b): the gradient of x sums two paths.
struct SharedInput {
  std::string proto;
  TensorId x, w, a, b, loss;
  std::vector<float> xv{0.5f, -1.5f, 2.0f}, wv{3.0f, -2.0f, 0.25f};
};

SharedInput sharedInput() {
  SharedInput m;
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  m.x = b->addInputTensor(TensorInfo(DataType::FLOAT, {3}), "x");
  m.w = b->addInitializedInputTensor(ConstVoidData(m.wv.data(), TensorInfo(DataType::FLOAT, {3})), "w");
  m.a = ai.mul({m.x, m.w}, "a");
  m.b = ai.mul({m.a, m.x}, "b");
  m.loss = b->aiGraphcoreOpset1().identityloss({m.b}, ReductionType::Sum, "loss");
  b->addOutputTensor(m.loss);
  m.proto = b->getModelProto();
  return m;
}

TEST(AnchoredGradients, InputAndActivationGradientsWithSummedPaths) {
  const SharedInput m = sharedInput();
  std::map<TensorId, NDArray> in;
  in.emplace(m.x, NDArray::fromVector(m.xv, {3}));
  const Trained r = train(m.proto, m.loss, {m.loss, grad(m.x), grad(m.a), grad(m.b), grad(m.w), grad(m.loss)}, in);
  // loss = sum(w x^2): d/dx = 2 w x (x feeds both Muls), d/da = x, d/db = 1, d/dw = x^2.
  std::vector<double> dx, da, dw;
  for (size_t i = 0; i < 3; ++i) {
    dx.push_back(2.0 * m.wv[i] * m.xv[i]);
    da.push_back(m.xv[i]);
    dw.push_back(static_cast<double>(m.xv[i]) * m.xv[i]);
  }
  expectNear(vals(r, grad(m.x)), dx, 1e-05);
  expectNear(vals(r, grad(m.a)), da, 1e-05);
  expectNear(vals(r, grad(m.b)), {1, 1, 1}, 1e-05);
  expectNear(vals(r, grad(m.w)), dw, 1e-05);
  expectNear(vals(r, grad(m.loss)), {1}, 1e-05);
  EXPECT_EQ(r.anchors.at(grad(m.loss)).info().shape(), Shape{});
}

TEST(AnchoredGradients, CarryTheLossScaling) {
  const SharedInput m = sharedInput();
  std::map<TensorId, NDArray> in;
  in.emplace(m.x, NDArray::fromVector(m.xv, {3}));
  const Trained r = train(m.proto, m.loss, {grad(m.x), grad(m.loss)}, in, 0.1f, 8.0f);
  std::vector<double> dx;
  for (size_t i = 0; i < 3; ++i) dx.push_back(8.0 * 2.0 * m.wv[i] * m.xv[i]);
  expectNear(vals(r, grad(m.x)), dx, 1e-05);
  expectNear(vals(r, grad(m.loss)), {8}, 1e-05);
}

TEST(AnchoredGradients, OnlyWhatIsNeededIsBuilt) {
  const SharedInput m = sharedInput();
  std::map<TensorId, NDArray> in;
  in.emplace(m.x, NDArray::fromVector(m.xv, {3}));
  auto countOps = [](const Trained& r) { return r.session->getIr().mainGraph().numOps(); };
  auto hasTensor = [](const Trained& r, const TensorId& id) { return r.session->getIr().mainGraph().hasTensor(id); };
  // Without gradient anchors, only w's gradient (for its update) is built: d/dw = a' x.
  const Trained plain = train(m.proto, m.loss, {m.loss}, in);
  EXPECT_FALSE(hasTensor(plain, grad(m.x)));
  EXPECT_FALSE(hasTensor(plain, grad(m.a)) && hasTensor(plain, grad(m.x)));
  // Anchoring x's gradient adds the ops of x's two paths, and nothing else changes.
  const Trained withX = train(m.proto, m.loss, {m.loss, grad(m.x)}, in);
  EXPECT_TRUE(hasTensor(withX, grad(m.x)));
  EXPECT_GT(countOps(withX), countOps(plain));
  EXPECT_EQ(vals(plain, m.loss), vals(withX, m.loss));
}

TEST(AnchoredGradients, DetachPassesNoGradient) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  auto gc = b->aiGraphcoreOpset1();
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), "x");
  const auto y = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), "y");
  // loss = sum(x * detach(x)) + sum(detach(y)): d/dx = detach(x) = x (one path), y has none.
  const auto loss = ai.add({gc.identityloss({ai.mul({x, gc.detach({x})})}, ReductionType::Sum),
                            gc.identityloss({gc.detach({y})}, ReductionType::Sum)},
                           "loss");
  b->addOutputTensor(loss);
  const std::string proto = b->getModelProto();
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(std::vector<float>{3.0f, -2.0f}, {2}));
  in.emplace(y, NDArray::fromVector(std::vector<float>{1.0f, 1.0f}, {2}));
  const Trained r = train(proto, loss, {grad(x)}, in);
  expectNear(vals(r, grad(x)), {3, -2}, 1e-05);
  expectError([&] { train(proto, loss, {grad(y)}, in); },
              {"Anchor tensor `Gradient___y' not in Ir Tensors.", "Interestingly, `y' IS in tensors.",
               "its gradient is zero and never computed."});
}

TEST(AnchoredGradients, ErrorsForGradientsThatCannotExist) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2}), "x");
  const auto idx = b->addInputTensor(TensorInfo(DataType::INT32, {2}), "idx");
  const auto side = ai.exp({x}, "side");  // does not lead to the loss
  const auto g = ai.gather({x, idx}, 0, "g");
  const auto loss = b->aiGraphcoreOpset1().identityloss({g}, ReductionType::Sum, "loss");
  b->addOutputTensor(loss);
  b->addOutputTensor(side);
  const std::string proto = b->getModelProto();
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(std::vector<float>{1.0f, 2.0f}, {2}));
  in.emplace(idx, NDArray::fromVector(std::vector<int32_t>{1, 1}, {2}));
  // Gather's data gets its gradient (both picks land on x[1])...
  expectNear(vals(train(proto, loss, {grad(x)}, in), grad(x)), {0, 2}, 1e-05);
  // ...its integer indices and a tensor off the path to the loss have none: PopART's message.
  for (const TensorId& t : {idx, side})
    expectError(
        [&] {
          train(proto, loss, {side, grad(t)}, in);
        },
        {"Anchor tensor `" + grad(t) + "' not in Ir Tensors.", "Interestingly, `" + t + "' IS in tensors.",
         "Note that not all tensors can have their gradients anchored"});
  // A tensor that does not exist at all.
  expectError([&] { train(proto, loss, {grad("nope")}, in); }, {"Anchor tensor `Gradient___nope' not in Ir Tensors."});
  // An inference session computes no gradient.
  expectError(
      [&] {
        auto s = InferenceSession::createFromOnnxModel(proto, DataFlow(1, std::vector<TensorId>{loss, grad(x)}),
                                                       test::cpu());
        s->prepareDevice();
      },
      {"Anchor tensor `Gradient___x' not in Ir Tensors.", "Interestingly, `x' IS in tensors."});
}

TEST(AnchoredGradients, LossMustBeAScalar) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  auto gc = b->aiGraphcoreOpset1();
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2, 3}), "x");
  const auto perSample = gc.l1loss({x}, 0.5f, ReductionType::NoReduction, "perSample");
  // One element in a [1, 1] tensor is a scalar for PopART (nelms == 1).
  const std::vector<int64_t> axes{0, 1};
  const auto one =
      ai.reducesum({perSample, ai.constant(ConstVoidData(axes.data(), TensorInfo(DataType::INT64, {2})))}, 1, 0, "one");
  b->addOutputTensor(one);
  const std::string proto = b->getModelProto();
  std::map<TensorId, NDArray> in;
  const std::vector<float> xv{1, -2, 3, -4, 5, -6};
  in.emplace(x, NDArray::fromVector(xv, {2, 3}));
  // A NoReduction loss is an intermediate here: d/dx of sum(0.5 |x|) = 0.5 sign(x).
  const Trained r = train(proto, one, {one, grad(x), grad(perSample)}, in);
  EXPECT_EQ(r.anchors.at(one).info().shape(), (Shape{1, 1}));
  expectNear(vals(r, one), {10.5}, 1e-05);
  expectNear(vals(r, grad(x)), {0.5, -0.5, 0.5, -0.5, 0.5, -0.5}, 1e-05);
  expectNear(vals(r, grad(perSample)), {1, 1, 1, 1, 1, 1}, 1e-05);
  // As the loss itself, PopART refuses it.
  expectError([&] { train(proto, perSample, {perSample}, in); },
              {"Loss tensor, '" + perSample + "', must be a scalar tensor"});
  expectError([&] { train(proto, "nope", {perSample}, in); },
              {"Could not find loss tensor 'nope' in main graph tensors"});
}

}  // namespace
}  // namespace popart
