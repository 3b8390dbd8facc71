// The training tests' harness: models whose inputs, weights and scalar loss a test adds, run by
// inference sessions (the loss at given weights) and training sessions with a zero learning
// rate (autodiff's gradients), and autodiff checked against central finite differences.
#pragma once

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace test {

inline int64_t elems(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

struct Model {
  std::string proto;
  TensorId loss;
  std::vector<TensorId> weights;
  std::map<TensorId, NDArray> inputs;
};

/// A model whose inputs (with their values), weights and scalar loss are added by the test
/// (with the initial values of the inputs and weights kept in `values`).
class ModelBuilder {
 public:
  ModelBuilder() : b(Builder::create()) {}
  TensorId input(const Shape& s, uint32_t seed, double lo = -1.0, double hi = 1.0) {
    const TensorId id = b->addInputTensor(TensorInfo(DataType::DOUBLE, s));
    inputs.emplace(id, NDArray::fromVector(randomDoubles(static_cast<size_t>(elems(s)), seed, lo, hi), s));
    values[id] = inputs.at(id).toVector<double>();
    return id;
  }
  TensorId weight(const Shape& s, uint32_t seed, double lo = -1.0, double hi = 1.0) {
    const auto v = randomDoubles(static_cast<size_t>(elems(s)), seed, lo, hi);
    const TensorId id = b->addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo(DataType::DOUBLE, s)));
    weights.push_back(id);
    values[id] = v;
    return id;
  }
  TensorId intInput(const std::vector<int32_t>& v, const Shape& s) {
    const TensorId id = b->addInputTensor(TensorInfo(DataType::INT32, s));
    inputs.emplace(id, NDArray::fromVector(v, s));
    return id;
  }
  /// sum(t * c) for a random input c of t's shape: a loss whose gradient of t is c. `ai` is the
  /// model's ai.onnx opset builder.
  template <typename AI>
  TensorId weightedSum(AI& ai, const TensorId& t, const Shape& s, uint32_t seed) {
    const TensorId c = input(s, seed);
    return b->aiGraphcoreOpset1().identityloss({ai.mul({t, c})}, ReductionType::Sum);
  }
  Model finish(const TensorId& loss) {
    b->addOutputTensor(loss);
    return Model{b->getModelProto(), loss, weights, inputs};
  }
  std::unique_ptr<Builder> b;
  std::vector<TensorId> weights;
  std::map<TensorId, NDArray> inputs;
  std::map<TensorId, std::vector<double>> values;
  /// Inputs whose gradient the harness does not anchor (those the ops give none: a condition,
  /// BatchNormalization's statistics, CastLike's type source).
  std::set<TensorId> noGrad;
};

/// The loss with the weights set to `w` (an inference session on the same model).
inline double evalLoss(const Model& m, const std::map<TensorId, std::vector<double>>& w) {
  SessionOptions o;
  o.constantWeights = false;
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), test::cpu(), {}, o);
  s->prepareDevice();
  WeightsIO io;
  std::map<TensorId, std::vector<double>> copy = w;
  for (auto& kv : copy) io.insert(kv.first, MutableVoidData(kv.second.data(), s->getInfo(kv.first)));
  s->writeWeights(io);
  s->weightsFromHost();
  auto anchors = s->initAnchorArrays();
  auto in = m.inputs;
  StepIO stepio(arrayRefs(in), arrayRefs(anchors));
  s->run(stepio);
  return anchors.at(m.loss).dataAs<double>()[0];
}

/// Runs a training session whose update does nothing (lr 0) once; returns its anchors (the
/// loss, Gradient___w of every weight, and `extra`).
inline std::map<TensorId, NDArray> trainingAnchors(const Model& m, const std::vector<TensorId>& extra = {}) {
  std::vector<TensorId> anchors{m.loss};
  for (const auto& w : m.weights) anchors.push_back(std::string(reservedGradientPrefix()) + w);
  anchors.insert(anchors.end(), extra.begin(), extra.end());
  SGD sgd({{"defaultLearningRate", {0.0f, false}}});
  auto s = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, anchors), m.loss, sgd, test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto out = s->initAnchorArrays();
  auto in = m.inputs;
  StepIO stepio(arrayRefs(in), arrayRefs(out));
  s->run(stepio);
  return out;
}

/// Gradient___w as doubles (FLOAT or DOUBLE).
inline std::vector<double> gradOf(std::map<TensorId, NDArray>& anchors, const TensorId& w) {
  const NDArray& a = anchors.at(std::string(reservedGradientPrefix()) + w);
  if (a.info().dataType() == DataType::FLOAT) {
    const auto v = a.toVector<float>();
    return std::vector<double>(v.begin(), v.end());
  }
  return a.toVector<double>();
}

inline std::map<TensorId, std::vector<double>> initialWeights(const ModelBuilder& mb) {
  std::map<TensorId, std::vector<double>> w;
  for (const auto& id : mb.weights) w[id] = mb.values.at(id);
  return w;
}

/// The DOUBLE inputs of a model (the ones a finite difference can perturb).
inline std::vector<TensorId> doubleInputs(const Model& m) {
  std::vector<TensorId> ids;
  for (const auto& kv : m.inputs) {
    if (kv.second.info().dataType() == DataType::DOUBLE) ids.push_back(kv.first);
  }
  return ids;
}

/// Runs `s` (an inference session of `m` whose only anchor is the loss) on `in`.
inline double runLoss(InferenceSession& s, const Model& m, std::map<TensorId, NDArray> in) {
  auto anchors = s.initAnchorArrays();
  StepIO stepio(arrayRefs(in), arrayRefs(anchors));
  s.run(stepio);
  return anchors.at(m.loss).dataAs<double>()[0];
}

/// Compares autodiff's gradient of every weight element with a central difference and, with
/// `inputs`, the gradient of every DOUBLE input too (anchored as `Gradient___<input>`, as PopART's
/// op tests do; the difference reruns one inference session).
inline void checkGradients(ModelBuilder& mb, const TensorId& loss, double h = 1e-5, double tol = 1e-6,
                           bool inputs = true) {
  const Model m = mb.finish(loss);
  std::vector<TensorId> ins;
  for (const auto& id : inputs ? doubleInputs(m) : std::vector<TensorId>{}) {
    if (!mb.noGrad.count(id)) ins.push_back(id);
  }
  std::vector<TensorId> extra;
  for (const auto& id : ins) extra.push_back(std::string(reservedGradientPrefix()) + id);
  auto anchors = trainingAnchors(m, extra);
  const double l = anchors.at(m.loss).dataAs<double>()[0];
  const auto w0 = initialWeights(mb);
  EXPECT_NEAR(l, evalLoss(m, w0), 1e-12 * (1 + std::fabs(l)));
  for (const auto& id : m.weights) {
    const auto g = gradOf(anchors, id);
    ASSERT_EQ(g.size(), w0.at(id).size()) << id;
    for (size_t i = 0; i < g.size(); ++i) {
      auto wp = w0, wm = w0;
      wp[id][i] += h;
      wm[id][i] -= h;
      const double fd = (evalLoss(m, wp) - evalLoss(m, wm)) / (2 * h);
      EXPECT_NEAR(g[i], fd, tol * (1 + std::fabs(fd))) << "d loss / d " << id << "[" << i << "]";
    }
  }
  if (ins.empty()) return;
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  for (const auto& id : ins) {
    const auto g = gradOf(anchors, id);
    const std::vector<double> x0 = m.inputs.at(id).toVector<double>();
    const Shape shape = m.inputs.at(id).info().shape();
    ASSERT_EQ(g.size(), x0.size()) << id;
    for (size_t i = 0; i < g.size(); ++i) {
      auto in = m.inputs;
      std::vector<double> x = x0;
      x[i] = x0[i] + h;
      in[id] = NDArray::fromVector(x, shape);
      const double lp = runLoss(*s, m, in);
      x[i] = x0[i] - h;
      in[id] = NDArray::fromVector(x, shape);
      const double lm = runLoss(*s, m, in);
      const double fd = (lp - lm) / (2 * h);
      EXPECT_NEAR(g[i], fd, tol * (1 + std::fabs(fd))) << "d loss / d input " << id << "[" << i << "]";
    }
  }
}

}  // namespace test
}  // namespace popart
