// The aiGraphcore NN ops (groupnormalization, multiconv, splinebasis, splineweighting) and ONNX
// RoiAlign built with the typed methods, run on the CPU device and compared with references
// computed here in double precision from their definitions; the errors they raise. Gradients are
// in graphcore_nn_grad_test.cpp.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

/// Deterministic values in [lo, hi).
std::vector<float> values(const Shape& s, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(static_cast<size_t>(count(s)));
  uint32_t x = seed * 2654435761u + 12345u;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = lo + (hi - lo) * static_cast<float>((x >> 8) & 0xFFFF) / 65536.0f;
  }
  return v;
}

struct Net {
  std::unique_ptr<Builder> b = Builder::create();
  std::map<TensorId, NDArray> inputs;
  AiGraphcoreOpset1 gc = b->aiGraphcoreOpset1();

  template <typename T>
  TensorId in(const std::vector<T>& v, const Shape& s) {
    const TensorId id = b->addInputTensor(TensorInfo(getDataType<T>(), s));
    inputs.emplace(id, NDArray::fromVector(v, s));
    return id;
  }
  std::map<TensorId, NDArray> run(const std::vector<TensorId>& outs) {
    for (const auto& o : outs) b->addOutputTensor(o);
    return test::runOnce(b->getModelProto(), inputs, outs);
  }
};

std::vector<double> asDouble(const NDArray& a) {
  const auto v = a.toVector<float>();
  return std::vector<double>(v.begin(), v.end());
}

void expectNear(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1.0 + std::abs(want[i]))) << what << " " << i;
}

// ---------------------------------------------------------------- groupnormalization

/// torch.nn.GroupNorm in double: [y, mean [N * G], invStdDev [N * G]].
std::vector<std::vector<double>> groupNormRef(const std::vector<float>& x, const Shape& s, const std::vector<float>& g,
                                              const std::vector<float>& b, int64_t G, double eps) {
  const int64_t N = s[0], C = s[1], S = count(s) / (N * C), per = C / G * S;
  std::vector<double> y(x.size()), mean, inv;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < G; ++k) {
      const int64_t base = (n * C + k * (C / G)) * S;
      double m = 0, v = 0;
      for (int64_t i = 0; i < per; ++i) m += x[static_cast<size_t>(base + i)];
      m /= static_cast<double>(per);
      for (int64_t i = 0; i < per; ++i) v += std::pow(x[static_cast<size_t>(base + i)] - m, 2);
      v /= static_cast<double>(per);
      const double is = 1.0 / std::sqrt(v + eps);
      mean.push_back(m);
      inv.push_back(is);
      for (int64_t i = 0; i < per; ++i) {
        const int64_t c = k * (C / G) + i / S;
        y[static_cast<size_t>(base + i)] =
            (x[static_cast<size_t>(base + i)] - m) * is * g[static_cast<size_t>(c)] + b[static_cast<size_t>(c)];
      }
    }
  }
  return {y, mean, inv};
}

TEST(GraphcoreNnOps, GroupNormalizationMatchesTorchGroupNorm) {
  struct Case {
    Shape s;
    int64_t groups;
    float eps;
  };
  for (const Case& k : {Case{{2, 4, 3, 2}, 2, 1e-5f}, Case{{3, 6, 5}, 3, 0.5f}, Case{{2, 6, 2, 2}, 6, 1.0f},
                        Case{{4, 4}, 1, 1e-5f}, Case{{1, 8, 2, 2, 2}, 4, 1e-3f}}) {
    Net n;
    const int64_t C = k.s[1];
    const auto xv = values(k.s, 1, -2.0f, 3.0f), gv = values({C}, 2, 0.5f, 1.5f), bv = values({C}, 3);
    const auto x = n.in(xv, k.s), g = n.in(gv, {C}), b = n.in(bv, {C});
    const auto outs = n.gc.groupnormalization({x, g, b}, k.groups, k.eps);
    ASSERT_EQ(outs.size(), 3u);
    auto r = n.run(outs);
    const auto want = groupNormRef(xv, k.s, gv, bv, k.groups, k.eps);
    EXPECT_EQ(r.at(outs[1]).shape(), (Shape{k.s[0] * k.groups}));
    for (size_t i = 0; i < 3; ++i) expectNear(asDouble(r.at(outs[i])), want[i], 2e-5, "groupnorm");
  }
}

TEST(GraphcoreNnOps, GroupNormalizationDefaultEpsilonAndErrors) {
  {
    Net n;
    const auto xv = values({2, 4, 3}, 4);
    const auto x = n.in(xv, {2, 4, 3});
    const auto g = n.in(std::vector<float>(4, 1.0f), {4}), b = n.in(std::vector<float>(4, 0.0f), {4});
    const auto outs =
        n.b->aiGraphcoreOpset1().callMethod("groupnormalization", {x, g, b}, {{"num_groups", int64_t{2}}});
    auto r = n.run(outs);
    const auto want = groupNormRef(xv, {2, 4, 3}, std::vector<float>(4, 1.0f), std::vector<float>(4, 0.0f), 2, 1e-5);
    expectNear(asDouble(r.at(outs[2])), want[2], 1e-5, "invStdDev");
  }
  // Shapes are checked when the session is made (the Builder only warns, as PopART's).
  auto sessionError = [](const std::function<TensorId(AiGraphcoreOpset1&, const std::vector<TensorId>&)>& make,
                         int64_t scaleLen, const std::vector<std::string>& fragments) {
    auto b = Builder::create();
    const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2, 6, 3}));
    const TensorId g = b->addInputTensor(TensorInfo(DataType::FLOAT, {scaleLen}));
    const TensorId bb = b->addInputTensor(TensorInfo(DataType::FLOAT, {6}));
    auto gc = b->aiGraphcoreOpset1();
    const TensorId y = make(gc, {x, g, bb});
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  sessionError([](AiGraphcoreOpset1& gc, const std::vector<TensorId>& in) { return gc.groupnormalization(in, 4)[0]; },
               6, {"num_groups = 4", "divide the channel count C = 6"});
  sessionError([](AiGraphcoreOpset1& gc, const std::vector<TensorId>& in) { return gc.groupnormalization(in, 3)[0]; },
               4, {"scale", "must have shape [6]"});
  auto b = Builder::create();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {2, 6, 3}));
  auto gc = b->aiGraphcoreOpset1();
  expectError([&] { gc.groupnormalization({x, x}, 3); }, {"GroupNormalization"});
  expectError([&] { gc.callMethod("groupnormalization", {x, x, x}); }, {"missing required attribute 'num_groups'"});
}

}  // namespace
}  // namespace popart
