// ONNX's ai.onnx.preview.training ops (Adagrad, Adam, Momentum, Gradient): graphs built with the
// Builder (customOp for the training domain), run by an InferenceSession, compared with
// double-precision references of ONNX's pseudo code (and analytic gradients) written here.
#include <cmath>
#include <limits>

#include "common/test_util.hpp"
#include "onnx.pb.h"

namespace popart {
namespace {

using test::expectError;
using test::expectNear;

const char* const kTraining = "ai.onnx.preview.training";

OperatorIdentifier trainingOp(const char* type) {
  return OperatorIdentifier(kTraining, type, 1);
}

/// The optimized tensors of a test: X, G and the states of two tensors of shapes [3] and [2, 2].
struct Groups {
  std::vector<std::vector<double>> x, g, s0, s1;
  std::vector<Shape> shapes{{3}, {2, 2}};
};

Groups groups(uint32_t seed) {
  Groups gr;
  for (size_t i = 0; i < gr.shapes.size(); ++i) {
    const size_t n = static_cast<size_t>(test::numElements(gr.shapes[i]));
    gr.x.push_back(test::randomDoubles(n, seed + 10 * static_cast<uint32_t>(i)));
    gr.g.push_back(test::randomDoubles(n, seed + 10 * static_cast<uint32_t>(i) + 1));
    gr.s0.push_back(test::randomDoubles(n, seed + 10 * static_cast<uint32_t>(i) + 2, 0.0, 1.0));
    gr.s1.push_back(test::randomDoubles(n, seed + 10 * static_cast<uint32_t>(i) + 3, 0.0, 1.0));
  }
  return gr;
}

template <typename T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

/// Runs `type` over the groups (states: how many of s0, s1 it takes) with R and T in DOUBLE
/// precision tensors of type T; returns the outputs in order.
template <typename T>
std::vector<std::vector<double>> runStep(const char* type, const Groups& gr, int states, double r, int64_t t,
                                         const std::map<std::string, any>& attrs) {
  test::Net net;
  std::vector<TensorId> ins{net.in(std::vector<T>{static_cast<T>(r)}, {}), net.in(std::vector<int64_t>{t}, {})};
  const std::vector<const std::vector<std::vector<double>>*> all{&gr.x, &gr.g, &gr.s0, &gr.s1};
  for (int k = 0; k < 2 + states; ++k) {
    for (size_t i = 0; i < gr.shapes.size(); ++i) ins.push_back(net.in(as<T>((*all[k])[i]), gr.shapes[i]));
  }
  const auto outs =
      net.b->customOp(trainingOp(type), 1, ins, static_cast<unsigned>((1 + states) * gr.shapes.size()), attrs, type);
  const auto got = net.run(outs);
  std::vector<std::vector<double>> v;
  for (const TensorId& o : outs) {
    const auto w = got.at(o).template toVector<T>();
    v.emplace_back(w.begin(), w.end());
  }
  return v;
}

double f32(float v) {
  return static_cast<double>(v);  // an attribute as the node holds it
}

// ------------------------------------------------------------------ Adagrad

TEST(TrainingOps, AdagradMatchesOnnxPseudoCode) {
  const Groups gr = groups(1);
  const float decay = 0.1f, eps = 1e-5f, nc = 0.01f;
  const double r = 0.3;
  const int64_t t = 3;
  const std::map<std::string, any> attrs{{"decay_factor", decay}, {"epsilon", eps}, {"norm_coefficient", nc}};
  const auto gotF = runStep<float>("Adagrad", gr, 1, r, t, attrs);
  const auto gotD = runStep<double>("Adagrad", gr, 1, r, t, attrs);
  const double lr = r / (1.0 + static_cast<double>(t) * f32(decay));
  for (size_t i = 0; i < gr.shapes.size(); ++i) {
    std::vector<double> x(gr.x[i].size()), h(x.size());
    for (size_t j = 0; j < x.size(); ++j) {
      const double g = f32(nc) * gr.x[i][j] + gr.g[i][j];
      h[j] = gr.s0[i][j] + g * g;
      x[j] = gr.x[i][j] - lr * g / (std::sqrt(h[j]) + f32(eps));
    }
    expectNear(gotD[i], x, 1e-12, "Adagrad X_new (DOUBLE)");
    expectNear(gotD[2 + i], h, 1e-12, "Adagrad H_new (DOUBLE)");
    expectNear(gotF[i], x, 1e-5, "Adagrad X_new (FLOAT)");
    expectNear(gotF[2 + i], h, 1e-5, "Adagrad H_new (FLOAT)");
  }
}

// ------------------------------------------------------------------ Adam

TEST(TrainingOps, AdamMatchesOnnxPseudoCodeWithAndWithoutBiasCorrection) {
  const Groups gr = groups(2);
  const float alpha = 0.85f, beta = 0.95f, eps = 1e-4f, nc = 0.02f, post = 0.01f;
  const double r = 0.05;
  const std::map<std::string, any> attrs{
      {"alpha", alpha}, {"beta", beta}, {"epsilon", eps}, {"norm_coefficient", nc}, {"norm_coefficient_post", post}};
  for (int64_t t : {int64_t(0), int64_t(4)}) {
    const auto got = runStep<double>("Adam", gr, 2, r, t, attrs);
    const double ra = t > 0 ? r * std::sqrt(1.0 - std::pow(f32(beta), static_cast<double>(t))) /
                                  (1.0 - std::pow(f32(alpha), static_cast<double>(t)))
                            : r;
    for (size_t i = 0; i < gr.shapes.size(); ++i) {
      std::vector<double> x(gr.x[i].size()), v(x.size()), h(x.size());
      for (size_t j = 0; j < x.size(); ++j) {
        const double g = f32(nc) * gr.x[i][j] + gr.g[i][j];
        v[j] = f32(alpha) * gr.s0[i][j] + (1.0 - f32(alpha)) * g;
        h[j] = f32(beta) * gr.s1[i][j] + (1.0 - f32(beta)) * g * g;
        x[j] = (1.0 - f32(post)) * (gr.x[i][j] - ra * v[j] / (std::sqrt(h[j]) + f32(eps)));
      }
      expectNear(got[i], x, 1e-12, "Adam X_new");
      expectNear(got[2 + i], v, 1e-12, "Adam V_new");
      expectNear(got[4 + i], h, 1e-12, "Adam H_new");
    }
  }
}

TEST(TrainingOps, AdamDefaultsAreOnnxs) {
  const Groups gr = groups(3);
  const auto got = runStep<double>("Adam", gr, 2, 0.1, 1, {});
  const double ra = 0.1 * std::sqrt(1.0 - f32(0.999f)) / (1.0 - f32(0.9f));
  const double g = gr.g[0][0];
  const double v = f32(0.9f) * gr.s0[0][0] + (1.0 - f32(0.9f)) * g;
  const double h = f32(0.999f) * gr.s1[0][0] + (1.0 - f32(0.999f)) * g * g;
  EXPECT_NEAR(got[0][0], gr.x[0][0] - ra * v / (std::sqrt(h) + f32(1e-6f)), 1e-12);
}

// ------------------------------------------------------------------ Momentum

TEST(TrainingOps, MomentumStandardAndNesterovMatchOnnxPseudoCode) {
  const Groups gr = groups(4);
  const float alpha = 0.9f, beta = 0.7f, nc = 0.05f;
  const double r = 0.2;
  for (const std::string mode : {"standard", "nesterov"}) {
    for (int64_t t : {int64_t(0), int64_t(2)}) {
      const std::map<std::string, any> attrs{
          {"alpha", alpha}, {"beta", beta}, {"norm_coefficient", nc}, {"mode", mode}};
      const auto got = runStep<float>("Momentum", gr, 1, r, t, attrs);
      const double b = t > 0 ? f32(beta) : 1.0;  // the first update takes the whole gradient
      for (size_t i = 0; i < gr.shapes.size(); ++i) {
        std::vector<double> x(gr.x[i].size()), v(x.size());
        for (size_t j = 0; j < x.size(); ++j) {
          // The inputs as the FLOAT tensors hold them.
          const double x0 = static_cast<float>(gr.x[i][j]), g0 = static_cast<float>(gr.g[i][j]);
          const double v0 = static_cast<float>(gr.s0[i][j]);
          const double g = f32(nc) * x0 + g0;
          v[j] = f32(alpha) * v0 + b * g;
          x[j] = x0 - static_cast<double>(static_cast<float>(r)) * (mode == "nesterov" ? g + f32(alpha) * v[j] : v[j]);
        }
        expectNear(got[i], x, 1e-6, "Momentum X_new " + mode);
        expectNear(got[2 + i], v, 1e-6, "Momentum V_new " + mode);
      }
    }
  }
}

// ------------------------------------------------------------------ errors

TEST(TrainingOps, ErrorsNameTheInputsAndAttributes) {
  auto build = [](const char* type, int groupsOf, DataType tType, const Shape& gShape, unsigned numOutputs,
                  const std::map<std::string, any>& attrs) {
    test::Net net;
    std::vector<TensorId> ins{net.in(std::vector<float>{0.1f}, {})};
    if (tType == DataType::INT64) {
      ins.push_back(net.in(std::vector<int64_t>{1}, {}));
    } else {
      ins.push_back(net.in(std::vector<float>{1.0f}, {}));
    }
    ins.push_back(net.in(std::vector<float>{1, 2, 3}, {3}));
    ins.push_back(net.in(std::vector<float>(static_cast<size_t>(test::numElements(gShape)), 1.0f), gShape));
    for (int k = 2; k < groupsOf; ++k) ins.push_back(net.in(std::vector<float>{0, 0, 0}, {3}));
    const auto outs = net.b->customOp(trainingOp(type), 1, ins, numOutputs, attrs, type);
    net.run(outs);
  };
  const std::map<std::string, any> mm{
      {"alpha", 0.9f}, {"beta", 1.0f}, {"norm_coefficient", 0.0f}, {"mode", std::string("standard")}};
  expectError([&] { build("Adagrad", 2, DataType::INT64, {3}, 2, {}); }, {"Adagrad takes R, T", "X, G, H", "4 inputs"});
  expectError([&] { build("Adagrad", 3, DataType::FLOAT, {3}, 2, {}); }, {"update count T", "INT64 scalar"});
  expectError([&] { build("Adagrad", 3, DataType::INT64, {2}, 2, {}); }, {"G1 (input 3", "type and shape of X1"});
  expectError([&] { build("Adagrad", 3, DataType::INT64, {3}, 1, {}); },
              {"Adagrad of 1 tensor(s) has 2 outputs", "X_new, H_new"});
  expectError([&] { build("Adam", 4, DataType::INT64, {3}, 3, {{"epsilon", -1.0f}}); }, {"epsilon"});
  expectError([&] { build("Momentum", 3, DataType::INT64, {3}, 2, {{"alpha", 0.9f}}); }, {"beta"});
  auto bad = mm;
  bad["mode"] = std::string("heavy-ball");
  expectError([&] { build("Momentum", 3, DataType::INT64, {3}, 2, bad); },
              {"'heavy-ball'", "'standard' or 'nesterov'"});
}

TEST(TrainingOps, ImporterAcceptsOnlyOpsetOneOfTheTrainingDomain) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* o = m.add_opset_import();
  o->set_domain(kTraining);
  o->set_version(2);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  auto* out = g->add_output();
  out->CopyFrom(*in);
  out->set_name("y");
  std::string bytes;
  m.SerializeToString(&bytes);
  expectError(
      [&] {
        test::runOnce(bytes, {{"x", NDArray::fromVector(std::vector<float>{1, -1}, {2})}}, {"y"});
      },
      {"ai.onnx.preview.training opset 2", "supports only 1"});
}

// ------------------------------------------------------------------ Gradient

/// Gradient of `y` with respect to `xs` (and `zs`), with `values` (default: the named tensors).
std::vector<TensorId> gradient(Builder& b, const TensorId& y, const std::vector<TensorId>& xs,
                               const std::vector<TensorId>& zs = {}, std::vector<TensorId> values = {}) {
  if (values.empty()) {
    values = xs;
    values.insert(values.end(), zs.begin(), zs.end());
  }
  std::map<std::string, any> attrs{{"xs", xs}, {"y", y}};
  if (!zs.empty()) attrs["zs"] = zs;
  return b.customOp(trainingOp("Gradient"), 1, values, static_cast<unsigned>(xs.size()), attrs, "grad");
}

TEST(TrainingOps, GradientOfAddAndMulIsTheAnalyticGradient) {
  // d = (a + b) * a: dd/da = 2a + b, dd/db = a (ONNX's test_gradient_of_add_and_mul, on vectors).
  test::Net net;
  auto ai = net.b->aiOnnxOpset13();
  const std::vector<double> a{1.5, -2.0, 0.25}, bv{0.5, 3.0, -1.0};
  const TensorId ta = net.in(a, {3}), tb = net.in(bv, {3});
  const TensorId c = ai.add({ta, tb});
  const TensorId d = ai.mul({c, ta});
  const auto g = gradient(*net.b, d, {ta, tb});
  const auto got = net.run({d, g[0], g[1]});
  std::vector<double> da, db;
  for (size_t i = 0; i < a.size(); ++i) {
    da.push_back(2 * a[i] + bv[i]);
    db.push_back(a[i]);
  }
  expectNear(got.at(g[0]).toVector<double>(), da, 1e-15, "dd/da");
  expectNear(got.at(g[1]).toVector<double>(), db, 1e-15, "dd/db");
}

TEST(TrainingOps, GradientAtOtherValuesCopiesTheForwardOps) {
  // y = Sum(Tanh(x) * w) (non-scalar y: the gradient of the sum of its elements), at x1 != x.
  test::Net net;
  auto ai = net.b->aiOnnxOpset13();
  const std::vector<double> x{0.1, -0.7, 1.2, 0.4}, x1{-0.3, 0.8, 0.0, 2.0}, w{2.0, -1.0, 0.5, 3.0};
  const TensorId tx = net.in(x, {2, 2}), tx1 = net.in(x1, {2, 2}), tw = net.in(w, {2, 2});
  const TensorId y = ai.mul({ai.tanh({tx}), tw});
  // dy/dw with zs = [x] (held at x1); dy/dx at x1 with w as given.
  const auto g = gradient(*net.b, y, {tx, tw}, {}, {tx1, tw});
  const auto got = net.run({y, g[0], g[1]});
  std::vector<double> dx, dw;
  for (size_t i = 0; i < x.size(); ++i) {
    const double th = std::tanh(x1[i]);
    dx.push_back(w[i] * (1.0 - th * th));
    dw.push_back(th);
  }
  expectNear(got.at(g[0]).toVector<double>(), dx, 1e-14, "dy/dx at x1");
  expectNear(got.at(g[1]).toVector<double>(), dw, 1e-14, "dy/dw at x1");
}

TEST(TrainingOps, GradientOfConstantsAndOfUnusedInputs) {
  // x is an initializer (a constant in inference): the ops from it to y are not folded away.
  // u does not reach y: its gradient is zeros. z is held constant (zs).
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const std::vector<float> xv{1.0f, 2.0f, -3.0f};
  const TensorId x = b->addInitializedInputTensor(ConstVoidData(xv.data(), TensorInfo(DataType::FLOAT, Shape{3})));
  const TensorId u = b->addInputTensor(TensorInfo(DataType::FLOAT, Shape{2}));
  const TensorId z = b->addInputTensor(TensorInfo(DataType::FLOAT, Shape{3}));
  const TensorId y = ai.reducesum({ai.mul({ai.mul({x, x}), z})}, 0);
  const auto g = gradient(*b, y, {x, u}, {z});
  b->addOutputTensor(g[0]);
  b->addOutputTensor(g[1]);
  const std::vector<float> zv{0.5f, -1.0f, 2.0f};
  const auto got = test::runOnce(
      b->getModelProto(), {{u, NDArray::fromVector(std::vector<float>{7, 8}, {2})}, {z, NDArray::fromVector(zv, {3})}},
      {g[0], g[1]});
  std::vector<double> dx;
  for (size_t i = 0; i < 3; ++i) dx.push_back(2.0 * xv[i] * zv[i]);
  expectNear(got.at(g[0]).toVector<float>(), dx, 1e-6, "dy/dx");
  expectNear(got.at(g[1]).toVector<float>(), {0.0, 0.0}, 0.0, "dy/du");
}

TEST(TrainingOps, GradientErrorsNameTheNode) {
  auto build = [](const std::function<void(test::Net&, const TensorId&, const TensorId&)>& f) {
    test::Net net;
    auto ai = net.b->aiOnnxOpset13();
    const TensorId x = net.in(std::vector<float>{1, 2}, {2});
    f(net, x, ai.relu({x}));
  };
  expectError(
      [&] {
        build([](test::Net& net, const TensorId& x, const TensorId&) { net.run(gradient(*net.b, "nowhere", {x})); });
      },
      {"node 'grad", "(Gradient, domain ai.onnx.preview.training", "'y' names 'nowhere'", "not a tensor"});
  expectError(
      [&] {
        build([](test::Net& net, const TensorId& x, const TensorId& y) {
          net.run(net.b->customOp(trainingOp("Gradient"), 1, {x, x}, 1,
                                  {{"xs", std::vector<std::string>{x}}, {"y", std::string(y)}}, "grad"));
        });
      },
      {"one input per name of 'xs' then of 'zs' (1 inputs), but the node has 2"});
  expectError(
      [&] {
        build([](test::Net& net, const TensorId& x, const TensorId& y) {
          const TensorId i = net.in(std::vector<int32_t>{1, 2}, {2});
          net.run(gradient(*net.b, y, {i}, {x}));
        });
      },
      {"must be a floating-point tensor to have a gradient", "INT32"});
}

}  // namespace
}  // namespace popart
