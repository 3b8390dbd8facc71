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
using test::expectNear;

/// Deterministic values in [lo, hi).
std::vector<float> uniformValues(const Shape& s, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(static_cast<size_t>(test::numElements(s)));
  uint32_t x = seed * 2654435761u + 12345u;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = lo + (hi - lo) * static_cast<float>((x >> 8) & 0xFFFF) / 65536.0f;
  }
  return v;
}

struct NnNet : test::Net {
  AiGraphcoreOpset1 gc = b->aiGraphcoreOpset1();
};

std::vector<double> asDouble(const NDArray& a) {
  const auto v = a.toVector<float>();
  return std::vector<double>(v.begin(), v.end());
}

// ---------------------------------------------------------------- groupnormalization

/// torch.nn.GroupNorm in double: [y, mean [N * G], invStdDev [N * G]].
std::vector<std::vector<double>> groupNormRef(const std::vector<float>& x, const Shape& s, const std::vector<float>& g,
                                              const std::vector<float>& b, int64_t G, double eps) {
  const int64_t N = s[0], C = s[1], S = test::numElements(s) / (N * C), per = C / G * S;
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
    NnNet n;
    const int64_t C = k.s[1];
    const auto xv = uniformValues(k.s, 1, -2.0f, 3.0f), gv = uniformValues({C}, 2, 0.5f, 1.5f),
               bv = uniformValues({C}, 3);
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
    NnNet n;
    const auto xv = uniformValues({2, 4, 3}, 4);
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

// ---------------------------------------------------------------- splinebasis / splineweighting

/// The uniform (cardinal) B-spline of degree n on [0, n + 1], by the Cox-de Boor recursion.
double cardinalBSpline(int n, double x) {
  if (n == 0) return x >= 0.0 && x < 1.0 ? 1.0 : 0.0;
  return (x * cardinalBSpline(n - 1, x) + (n + 1 - x) * cardinalBSpline(n - 1, x - 1.0)) / n;
}

/// torch_spline_conv's basis from the definition: in each dimension the position
/// u = pseudo * (kernelSize - degree * isOpen) lies in knot interval floor(u); the (degree + 1)
/// control points from there on (mod kernelSize) get the B-spline weights B(u - floor(u) + degree - k);
/// the S = (degree + 1)^D products run over every choice of k per dimension (dimension 0 fastest).
void splineBasisRef(const std::vector<float>& pseudo, int64_t E, const std::vector<int32_t>& ks,
                    const std::vector<uint8_t>& open, int degree, std::vector<double>& basis,
                    std::vector<int32_t>& index) {
  const int64_t D = static_cast<int64_t>(ks.size());
  int64_t S = 1;
  for (int64_t d = 0; d < D; ++d) S *= degree + 1;
  basis.assign(static_cast<size_t>(E * S), 0.0);
  index.assign(static_cast<size_t>(E * S), 0);
  for (int64_t e = 0; e < E; ++e) {
    for (int64_t s = 0; s < S; ++s) {
      double b = 1.0;
      int64_t wi = 0, stride = 1, rest = s;
      for (int64_t d = 0; d < D; ++d) {
        const int64_t k = rest % (degree + 1);
        rest /= degree + 1;
        const float u = pseudo[static_cast<size_t>(e * D + d)] *
                        static_cast<float>(ks[static_cast<size_t>(d)] - (open[static_cast<size_t>(d)] ? degree : 0));
        const double knot = std::floor(static_cast<double>(u));
        b *= cardinalBSpline(degree, static_cast<double>(u) - knot + degree - static_cast<double>(k));
        wi += ((static_cast<int64_t>(knot) + k) % ks[static_cast<size_t>(d)]) * stride;
        stride *= ks[static_cast<size_t>(d)];
      }
      basis[static_cast<size_t>(e * S + s)] = b;
      index[static_cast<size_t>(e * S + s)] = static_cast<int32_t>(wi);
    }
  }
}

TEST(GraphcoreNnOps, SplineBasisMatchesTheBSplineDefinition) {
  struct Case {
    int degree;
    std::vector<int32_t> ks;
    std::vector<uint8_t> open;
  };
  for (const Case& k :
       {Case{1, {5}, {1}}, Case{1, {5}, {0}}, Case{2, {4, 6}, {1, 0}}, Case{2, {7}, {0}}, Case{3, {5, 4}, {1, 1}},
        Case{3, {6, 5}, {0, 0}}, Case{1, {3, 4, 5}, {1, 0, 1}}, Case{0, {4, 3}, {1, 0}}}) {
    const int64_t E = 9, D = static_cast<int64_t>(k.ks.size());
    auto pv = uniformValues({E, D}, 11 + static_cast<uint32_t>(k.degree), 0.0f, 1.0f);
    pv[0] = 0.0f;  // the ends of the pseudo-coordinate range
    pv[static_cast<size_t>(D)] = 1.0f;
    NnNet n;
    const auto pseudo = n.in(pv, {E, D});
    const auto ks = n.in(k.ks, {D});
    const auto open = n.in(k.open, {D});
    const auto outs = n.gc.splinebasis({pseudo, ks, open}, k.degree);
    ASSERT_EQ(outs.size(), 2u);
    auto r = n.run(outs);
    std::vector<double> wantB;
    std::vector<int32_t> wantI;
    splineBasisRef(pv, E, k.ks, k.open, k.degree, wantB, wantI);
    const int64_t S = static_cast<int64_t>(wantB.size()) / E;
    EXPECT_EQ(r.at(outs[0]).shape(), (Shape{E, S}));
    EXPECT_EQ(r.at(outs[1]).info().dataType(), DataType::INT32);
    expectNear(asDouble(r.at(outs[0])), wantB, 1e-5, "basis");
    EXPECT_EQ(r.at(outs[1]).toVector<int32_t>(), wantI) << "degree " << k.degree;
    // Each edge's basis is a partition of unity.
    const auto got = asDouble(r.at(outs[0]));
    for (int64_t e = 0; e < E; ++e) {
      double sum = 0;
      for (int64_t s = 0; s < S; ++s) sum += got[static_cast<size_t>(e * S + s)];
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
}

/// out[e] = sum_s basis[e, s] * input[e] @ weight[weightIndex[e, s]], in double.
std::vector<double> splineWeightingRef(const std::vector<float>& x, const std::vector<float>& w,
                                       const std::vector<double>& basis, const std::vector<int32_t>& index, int64_t E,
                                       int64_t Min, int64_t Mout, int64_t S) {
  std::vector<double> out(static_cast<size_t>(E * Mout), 0.0);
  for (int64_t e = 0; e < E; ++e)
    for (int64_t s = 0; s < S; ++s) {
      const int64_t k = index[static_cast<size_t>(e * S + s)];
      for (int64_t o = 0; o < Mout; ++o) {
        double dot = 0;
        for (int64_t i = 0; i < Min; ++i)
          dot += static_cast<double>(x[static_cast<size_t>(e * Min + i)]) *
                 static_cast<double>(w[static_cast<size_t>((k * Min + i) * Mout + o)]);
        out[static_cast<size_t>(e * Mout + o)] += basis[static_cast<size_t>(e * S + s)] * dot;
      }
    }
  return out;
}

TEST(GraphcoreNnOps, SplineWeightingMatchesItsDefinition) {
  const int64_t E = 7, Min = 3, Mout = 4, K = 6, S = 4;
  const auto xv = uniformValues({E, Min}, 21), wv = uniformValues({K, Min, Mout}, 22),
             bv = uniformValues({E, S}, 23, 0.0f, 1.0f);
  std::vector<int32_t> iv(static_cast<size_t>(E * S));
  for (size_t i = 0; i < iv.size(); ++i) iv[i] = static_cast<int32_t>((i * 5 + 1) % K);
  NnNet n;
  const auto x = n.in(xv, {E, Min}), w = n.in(wv, {K, Min, Mout}), b = n.in(bv, {E, S}), idx = n.in(iv, {E, S});
  const auto y = n.gc.splineweighting({x, w, b, idx});
  auto r = n.run({y});
  EXPECT_EQ(r.at(y).shape(), (Shape{E, Mout}));
  const std::vector<double> bd(bv.begin(), bv.end());
  expectNear(asDouble(r.at(y)), splineWeightingRef(xv, wv, bd, iv, E, Min, Mout, S), 1e-5, "splineweighting");
}

TEST(GraphcoreNnOps, SplineConvolutionChainsBasisAndWeighting) {
  // A spline convolution's message: splineweighting of the basis splinebasis computed.
  const int64_t E = 5, D = 2, Min = 2, Mout = 3;
  const std::vector<int32_t> ksv{3, 4};
  const std::vector<uint8_t> openv{1, 0};
  const int64_t K = 12;
  const auto pv = uniformValues({E, D}, 31, 0.0f, 1.0f), xv = uniformValues({E, Min}, 32),
             wv = uniformValues({K, Min, Mout}, 33);
  NnNet n;
  const auto pseudo = n.in(pv, {E, D}), ks = n.in(ksv, {D}), open = n.in(openv, {D});
  const auto x = n.in(xv, {E, Min}), w = n.in(wv, {K, Min, Mout});
  const auto bw = n.gc.splinebasis({pseudo, ks, open}, 2);
  const auto y = n.gc.splineweighting({x, w, bw[0], bw[1]});
  auto r = n.run({y});
  std::vector<double> basis;
  std::vector<int32_t> index;
  splineBasisRef(pv, E, ksv, openv, 2, basis, index);
  expectNear(asDouble(r.at(y)), splineWeightingRef(xv, wv, basis, index, E, Min, Mout, 9), 1e-5, "conv");
}

TEST(GraphcoreNnOps, SplineOpsErrors) {
  auto sessionError = [](const std::function<TensorId(Builder&)>& make, const std::vector<std::string>& fragments) {
    auto b = Builder::create();
    const TensorId y = make(*b);
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  auto basisInputs = [](Builder& b, const Shape& pseudo) {
    return std::vector<TensorId>{b.addInputTensor(TensorInfo(DataType::FLOAT, pseudo)),
                                 b.addInputTensor(TensorInfo(DataType::INT32, {2})),
                                 b.addInputTensor(TensorInfo(DataType::UINT8, {2}))};
  };
  sessionError(
      [&](Builder& b) {
        return b.aiGraphcoreOpset1().splinebasis(basisInputs(b, {4, 2}), 4)[0];
      },
      {"SplineBasisOp degree = 4 is not valid: must be between 0 and 3."});
  sessionError(
      [&](Builder& b) {
        return b.aiGraphcoreOpset1().splinebasis(basisInputs(b, {4, 2, 1}), 1)[0];
      },
      {"pseudo tensor is not a 2-D tensor. Pseudo tensor rank = 3."});
  sessionError(
      [&](Builder& b) {
        return b.aiGraphcoreOpset1().splinebasis(basisInputs(b, {4, 3}), 1)[0];
      },
      {"one value per pseudo-coordinate dimension ([3])"});
  sessionError(
      [](Builder& b) {
        const auto x = b.addInputTensor(TensorInfo(DataType::FLOAT, {4, 2}));
        const auto w = b.addInputTensor(TensorInfo(DataType::FLOAT16, {3, 2, 5}));
        const auto bb = b.addInputTensor(TensorInfo(DataType::FLOAT, {4, 2}));
        const auto i = b.addInputTensor(TensorInfo(DataType::INT32, {4, 2}));
        return b.aiGraphcoreOpset1().splineweighting({x, w, bb, i});
      },
      {"The input and weight tensors have different data types", "float16"});
  sessionError(
      [](Builder& b) {
        const auto x = b.addInputTensor(TensorInfo(DataType::FLOAT, {4, 2}));
        const auto w = b.addInputTensor(TensorInfo(DataType::FLOAT, {3, 2}));
        const auto bb = b.addInputTensor(TensorInfo(DataType::FLOAT, {4, 2}));
        const auto i = b.addInputTensor(TensorInfo(DataType::INT32, {4, 2}));
        return b.aiGraphcoreOpset1().splineweighting({x, w, bb, i});
      },
      {"weight tensor is not a 3-D tensor. Weight tensor rank = 2."});
  // A pseudo-coordinate that is not finite is an error when the op runs.
  {
    NnNet m;
    const auto pm = m.in(std::vector<float>{0.5f, std::nanf("")}, {1, 2});
    const auto km = m.in(std::vector<int32_t>{3, 3}, {2}), om = m.in(std::vector<uint8_t>{1, 1}, {2});
    const auto outs = m.gc.splinebasis({pm, km, om}, 1);
    expectError([&] { m.run({outs[0]}); }, {"SplineBasis: pseudo[0, 1] = nan", "not a finite position"});
  }
  // A weight index past the weight's kernels is an error when the op runs.
  NnNet n;
  const auto x = n.in(uniformValues({2, 2}, 1), {2, 2}), w = n.in(uniformValues({3, 2, 2}, 2), {3, 2, 2});
  const auto bb = n.in(uniformValues({2, 1}, 3), {2, 1}), i = n.in(std::vector<int32_t>{0, 3}, {2, 1});
  const auto y = n.gc.splineweighting({x, w, bb, i});
  expectError([&] { n.run({y}); }, {"weightIndex[1, 0] = 3 is not a kernel of the weight (0 to 2)"});
}

// ---------------------------------------------------------------- RoiAlign

/// X's value at the continuous position (y, x) as torchvision's roi_align reads it: 0 beyond one
/// pixel outside the plane, else the bilinear interpolation of the position clamped into it.
double bilinearRef(const std::vector<float>& plane, int64_t H, int64_t W, double y, double x) {
  if (y < -1.0 || y > H || x < -1.0 || x > W) return 0.0;
  y = std::min(std::max(y, 0.0), static_cast<double>(H - 1));
  x = std::min(std::max(x, 0.0), static_cast<double>(W - 1));
  const int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
  const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
  const double ly = y - y0, lx = x - x0;
  auto v = [&](int64_t a, int64_t b) { return static_cast<double>(plane[static_cast<size_t>(a * W + b)]); };
  return (1 - ly) * ((1 - lx) * v(y0, x0) + lx * v(y0, x1)) + ly * ((1 - lx) * v(y1, x0) + lx * v(y1, x1));
}

/// RoiAlign from ONNX's definition in double. `half` is half_pixel (opset 16's default), else
/// output_half_pixel (opset 10: boxes of at least 1 x 1). `max` takes the largest sample value
/// (ONNX's max mode on each corner's weighted value is checked apart, with one sample per bin).
std::vector<double> roiAlignRef(const std::vector<float>& X, const Shape& xs, const std::vector<float>& rois,
                                const std::vector<int64_t>& batch, int64_t oh, int64_t ow, int64_t ratio, double scale,
                                bool half) {
  const int64_t C = xs[1], H = xs[2], W = xs[3], R = static_cast<int64_t>(batch.size());
  std::vector<double> out;
  for (int64_t r = 0; r < R; ++r) {
    const double off = half ? 0.5 : 0.0;
    const double x1 = rois[static_cast<size_t>(4 * r)] * scale - off,
                 y1 = rois[static_cast<size_t>(4 * r + 1)] * scale - off;
    double w = rois[static_cast<size_t>(4 * r + 2)] * scale - off - x1,
           h = rois[static_cast<size_t>(4 * r + 3)] * scale - off - y1;
    if (!half) {
      w = std::max(w, 1.0);
      h = std::max(h, 1.0);
    }
    const int64_t gh = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(h / oh));
    const int64_t gw = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(w / ow));
    for (int64_t c = 0; c < C; ++c) {
      const std::vector<float> plane(X.begin() + (batch[static_cast<size_t>(r)] * C + c) * H * W,
                                     X.begin() + (batch[static_cast<size_t>(r)] * C + c + 1) * H * W);
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double sum = 0;
          for (int64_t a = 0; a < gh; ++a)
            for (int64_t b = 0; b < gw; ++b)
              sum += bilinearRef(plane, H, W, y1 + (i + (a + 0.5) / gh) * h / oh, x1 + (j + (b + 0.5) / gw) * w / ow);
          out.push_back(sum / std::max<int64_t>(gh * gw, 1));
        }
    }
  }
  return out;
}

TEST(GraphcoreNnOps, RoiAlignMatchesItsDefinition) {
  const Shape xs{2, 3, 6, 7};
  const auto xv = uniformValues(xs, 41, -2.0f, 2.0f);
  // Boxes inside, partly outside, smaller than a pixel, and reversed (clamped to 1 x 1 at opset 10).
  const std::vector<float> rois{0.5f, 1.0f, 4.5f, 5.0f, -2.0f, -1.5f, 3.0f, 2.0f, 2.2f, 2.4f,
                                2.6f, 2.5f, 6.0f, 4.0f, 12.0f, 11.0f, 3.0f, 3.0f, 1.0f, 2.0f};
  const std::vector<int64_t> batch{0, 1, 1, 0, 1};
  struct Case {
    int opset;
    int64_t oh, ow, ratio;
    float scale;
    bool int32;
  };
  for (const Case& k : {Case{10, 3, 2, 2, 1.0f, false}, Case{10, 2, 3, 0, 0.5f, true}, Case{16, 3, 3, 2, 1.0f, false},
                        Case{16, 2, 2, 0, 0.75f, false}, Case{11, 4, 4, 1, 1.0f, true}}) {
    NnNet n;
    const auto x = n.in(xv, xs), r = n.in(rois, {5, 4});
    TensorId bi;
    if (k.int32)
      bi = n.in(std::vector<int32_t>(batch.begin(), batch.end()), {5});
    else
      bi = n.in(batch, {5});
    TensorId y;
    if (k.opset == 16)
      y = n.b->aiOnnxOpset16().roialign({x, r, bi}, "half_pixel", "avg", k.oh, k.ow, k.ratio, k.scale);
    else if (k.opset == 11)
      y = n.b->aiOnnxOpset11().roialign({x, r, bi}, "avg", k.oh, k.ow, k.ratio, k.scale);
    else
      y = n.b->aiOnnxOpset10().roialign({x, r, bi}, "avg", k.oh, k.ow, k.ratio, k.scale);
    auto res = n.run({y});
    EXPECT_EQ(res.at(y).shape(), (Shape{5, 3, k.oh, k.ow}));
    expectNear(asDouble(res.at(y)), roiAlignRef(xv, xs, rois, batch, k.oh, k.ow, k.ratio, k.scale, k.opset == 16), 1e-5,
               "roialign");
  }
}

TEST(GraphcoreNnOps, RoiAlignMaxModeIsOnnxs) {
  // ONNX's max: per sample the largest of the four weighted corners, then the largest sample.
  const Shape xs{1, 2, 5, 5};
  const auto xv = uniformValues(xs, 51, 0.0f, 3.0f);
  const std::vector<float> rois{0.3f, 0.6f, 3.7f, 4.1f, 1.0f, 0.0f, 2.5f, 3.5f};
  NnNet n;
  const auto x = n.in(xv, xs), r = n.in(rois, {2, 4}), bi = n.in(std::vector<int64_t>{0, 0}, {2});
  const auto y = n.b->aiOnnxOpset10().roialign({x, r, bi}, "max", 2, 2, 2, 1.0f);
  auto res = n.run({y});
  std::vector<double> want;
  for (int64_t ri = 0; ri < 2; ++ri) {
    const double x1 = rois[static_cast<size_t>(4 * ri)], y1 = rois[static_cast<size_t>(4 * ri + 1)];
    const double w = std::max(rois[static_cast<size_t>(4 * ri + 2)] - x1, 1.0);
    const double h = std::max(rois[static_cast<size_t>(4 * ri + 3)] - y1, 1.0);
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          double m = -1e300;
          for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
              const double yy = y1 + (i + (a + 0.5) / 2) * h / 2, xx = x1 + (j + (b + 0.5) / 2) * w / 2;
              const int64_t y0 = static_cast<int64_t>(yy), x0 = static_cast<int64_t>(xx);
              const double ly = yy - y0, lx = xx - x0;
              auto v = [&](int64_t p, int64_t q) {
                return static_cast<double>(xv[static_cast<size_t>((c * 5 + p) * 5 + q)]);
              };
              m = std::max({m, (1 - ly) * (1 - lx) * v(y0, x0), (1 - ly) * lx * v(y0, x0 + 1),
                            ly * (1 - lx) * v(y0 + 1, x0), ly * lx * v(y0 + 1, x0 + 1)});
            }
          want.push_back(m);
        }
  }
  expectNear(asDouble(res.at(y)), want, 1e-5, "roialign max");
}

TEST(GraphcoreNnOps, RoiAlignErrors) {
  auto sessionError = [](const Shape& xs, const Shape& rs, const Shape& bs, const std::string& mode, int64_t ratio,
                         const std::vector<std::string>& fragments) {
    auto b = Builder::create();
    const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, xs));
    const auto r = b->addInputTensor(TensorInfo(DataType::FLOAT, rs));
    const auto bi = b->addInputTensor(TensorInfo(DataType::INT64, bs));
    const auto y = b->aiOnnxOpset10().roialign({x, r, bi}, mode, 2, 2, ratio, 1.0f);
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  sessionError({2, 3, 4}, {1, 4}, {1}, "avg", 1, {"RoiAlign", "The size of input data must be 4"});
  sessionError({1, 3, 4, 4}, {4}, {1}, "avg", 1, {"The size of input rois must be 2"});
  sessionError({1, 3, 4, 4}, {2, 4}, {2, 1}, "avg", 1, {"The size of input batch_index must be 1"});
  sessionError({1, 3, 4, 4}, {2, 5}, {2}, "avg", 1, {"must be [num_rois, 4]"});
  sessionError({1, 3, 4, 4}, {2, 4}, {3}, "avg", 1, {"one index per box"});
  sessionError({1, 3, 4, 4}, {2, 4}, {2}, "mean", 1, {"mode 'mean' is not supported"});
  sessionError({1, 3, 4, 4}, {2, 4}, {2}, "avg", -1, {"sampling_ratio = -1 must be >= 0"});
  // A batch index outside X's batch is an error when the op runs.
  NnNet n;
  const auto x = n.in(uniformValues({2, 1, 3, 3}, 1), {2, 1, 3, 3}), r = n.in(std::vector<float>{0, 0, 1, 1}, {1, 4});
  const auto bi = n.in(std::vector<int64_t>{2}, {1});
  const auto y = n.b->aiOnnxOpset10().roialign({x, r, bi}, "avg", 1, 1, 1, 1.0f);
  expectError([&] { n.run({y}); }, {"batch_indices[0] = 2 is not a batch of X (0 to 1)"});
  // Boxes that are not finite, or whose adaptive sampling grid would not fit in memory.
  for (float bad : {std::nanf(""), 1e30f}) {
    NnNet m;
    const auto xm = m.in(uniformValues({1, 1, 3, 3}, 1), {1, 1, 3, 3}),
               rm = m.in(std::vector<float>{0, 0, bad, 1}, {1, 4});
    const auto bm = m.in(std::vector<int64_t>{0}, {1});
    const auto ym = m.b->aiOnnxOpset10().roialign({xm, rm, bm}, "avg", 2, 2, 0, 1.0f);
    expectError([&] { m.run({ym}); }, {"RoiAlign: box 0", std::isnan(bad) ? "is not finite" : "set sampling_ratio"});
  }
}

}  // namespace
}  // namespace popart
