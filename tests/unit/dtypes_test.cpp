// PopART's data types on the CPU device: FLOAT16 (and BFLOAT16) kernels that compute in float and
// round to half on store, PopART's mixed-precision rules, the index types of Gather / Scatter,
// ArgMax's INT32 output, an explicit empty Reduce axes list, BatchNormalization spatial=0.
// References are computed here in double precision from the 16-bit inputs.
#include <cmath>
#include <functional>
#include <numeric>

#include "common/test_util.hpp"
#include "popart/half.hpp"

namespace popart {
namespace {

using test::constant;
using test::expectError;

std::vector<float16_t> toHalf(const std::vector<float>& v) {
  std::vector<float16_t> h;
  for (float x : v) h.push_back(float16_t(x));
  return h;
}

std::vector<double> toDouble(const std::vector<float16_t>& v) {
  std::vector<double> d;
  for (float16_t x : v) d.push_back(static_cast<float>(x));
  return d;
}

/// The values of a FLOAT, DOUBLE or FLOAT16 array as doubles (signs of zero kept).
std::vector<double> halfOrFloat(const NDArray& a) {
  if (a.dataType() == DataType::FLOAT16) return toDouble(a.toVector<float16_t>());
  if (a.dataType() == DataType::DOUBLE) return a.toVector<double>();
  const auto f = a.toVector<float>();
  return {f.begin(), f.end()};
}

std::vector<double> halfOutput(const NDArray& a) {
  EXPECT_EQ(a.dataType(), DataType::FLOAT16);
  return toDouble(a.toVector<float16_t>());
}

/// |got - want| within the rounding of a half store (2^-11 relative) plus what float partials
/// add over `terms` products.
void expectHalfNear(const std::vector<double>& got, const std::vector<double>& want, double scale = 1.0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], std::ldexp(std::fabs(want[i]), -10) + 1e-5 * scale) << "at " << i;
}

/// Creates an inference session of `proto` anchoring `out` (the Builder only warns when shape
/// inference fails; the session raises the error).
void createSession(const std::string& proto, const TensorId& out) {
  InferenceSession::createFromOnnxModel(proto, DataFlow(1, {out}), test::cpu());
}

std::map<TensorId, NDArray> run(const std::function<std::vector<TensorId>(Builder&, AiOnnxOpset13&)>& make,
                                const std::map<TensorId, NDArray>& inputs) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const auto outs = make(*b, ai);
  for (const auto& o : outs) b->addOutputTensor(o);
  return test::runOnce(b->getModelProto(), inputs, outs);
}

/// Direct 2-D convolution in double: x [N, C, H, W], w [M, C/g, kh, kw], symmetric pads.
std::vector<double> convRef(const std::vector<double>& x, const Shape& xs, const std::vector<double>& w,
                            const Shape& ws, const std::vector<double>& bias, int64_t pad, int64_t stride,
                            int64_t group) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], M = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3];
  const int64_t OH = (H + 2 * pad - KH) / stride + 1, OW = (W + 2 * pad - KW) / stride + 1, Mg = M / group;
  std::vector<double> y(static_cast<size_t>(N * M * OH * OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = bias.empty() ? 0.0 : bias[static_cast<size_t>(m)];
          const int64_t g = m / Mg;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t ih = oh * stride - pad + kh, iw = ow * stride - pad + kw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += x[static_cast<size_t>(((n * C + g * Cg + c) * H + ih) * W + iw)] *
                       w[static_cast<size_t>(((m * Cg + c) * KH + kh) * KW + kw)];
              }
          y[static_cast<size_t>(((n * M + m) * OH + oh) * OW + ow)] = acc;
        }
  return y;
}

// ------------------------------------------------------------------ FLOAT16 kernels

TEST(Float16, ConvAlgorithmsComputeInFloatAndRoundOnStore) {
  struct Case {
    Shape xs, ws;
    int64_t pad, stride, group;
    bool constWeights;
  };
  // im2col, Winograd-sized 3x3 stride 1 (constant and streamed weights), strided, grouped,
  // depthwise, pointwise.
  const Case cases[] = {{{1, 3, 6, 6}, {4, 3, 3, 3}, 1, 1, 1, false}, {{2, 8, 8, 8}, {8, 8, 3, 3}, 1, 1, 1, true},
                        {{2, 8, 8, 8}, {8, 8, 3, 3}, 1, 1, 1, false}, {{1, 4, 7, 7}, {6, 2, 3, 3}, 1, 2, 2, true},
                        {{1, 4, 6, 6}, {4, 1, 3, 3}, 1, 1, 4, true},  {{2, 5, 4, 4}, {3, 5, 1, 1}, 0, 1, 1, true}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const auto x = toHalf(test::randomFloats(static_cast<size_t>(TensorInfo("FLOAT", c.xs).nelms()), seed++));
    const auto w = toHalf(test::randomFloats(static_cast<size_t>(TensorInfo("FLOAT", c.ws).nelms()), seed++));
    const auto bias = toHalf(test::randomFloats(static_cast<size_t>(c.ws[0]), seed++));
    TensorId y;
    auto out = run(
        [&](Builder& b, AiOnnxOpset13& ai) {
          const TensorId xi = b.addInputTensor(TensorInfo("FLOAT16", c.xs), "x");
          const TensorId wi =
              c.constWeights ? constant(ai, w, c.ws) : b.addInputTensor(TensorInfo("FLOAT16", c.ws), "w");
          y = ai.conv({xi, wi, constant(ai, bias, {c.ws[0]})}, {}, c.group, {}, std::vector<int64_t>(4, c.pad),
                      {c.stride, c.stride});
          return std::vector<TensorId>{y};
        },
        c.constWeights
            ? std::map<TensorId, NDArray>{{"x", NDArray::fromVector(x, c.xs)}}
            : std::map<TensorId, NDArray>{{"x", NDArray::fromVector(x, c.xs)}, {"w", NDArray::fromVector(w, c.ws)}});
    const auto want = convRef(toDouble(x), c.xs, toDouble(w), c.ws, toDouble(bias), c.pad, c.stride, c.group);
    expectHalfNear(halfOutput(out.at(y)), want, 10.0);
  }
}

TEST(Float16, BFloat16ConvThroughFloat) {
  const Shape xs{1, 2, 5, 5}, ws{3, 2, 3, 3};
  std::vector<bfloat16_t> x, w;
  for (float v : test::randomFloats(50, 7)) x.push_back(bfloat16_t(v));
  for (float v : test::randomFloats(54, 8)) w.push_back(bfloat16_t(v));
  TensorId y;
  auto out = run(
      [&](Builder& b, AiOnnxOpset13& ai) {
        y = ai.conv({b.addInputTensor(TensorInfo("BFLOAT16", xs), "x"), constant(ai, w, ws)});
        return std::vector<TensorId>{y};
      },
      {{"x", NDArray::fromVector(x, xs)}});
  std::vector<double> xd, wd, got;
  for (bfloat16_t v : x) xd.push_back(static_cast<float>(v));
  for (bfloat16_t v : w) wd.push_back(static_cast<float>(v));
  for (bfloat16_t v : out.at(y).toVector<bfloat16_t>()) got.push_back(static_cast<float>(v));
  const auto want = convRef(xd, xs, wd, ws, {}, 0, 1, 1);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], std::ldexp(std::fabs(want[i]), -7) + 1e-5);
}

TEST(Float16, ConvTranspose) {
  const Shape xs{1, 2, 3, 3}, ws{2, 3, 2, 2};
  const auto x = toHalf(test::randomFloats(18, 11)), w = toHalf(test::randomFloats(24, 12));
  TensorId y;
  auto out = run(
      [&](Builder& b, AiOnnxOpset13& ai) {
        y = ai.convtranspose({b.addInputTensor(TensorInfo("FLOAT16", xs), "x"), constant(ai, w, ws)}, {}, 1, {}, {}, {},
                             {}, {2, 2});
        return std::vector<TensorId>{y};
      },
      {{"x", NDArray::fromVector(x, xs)}});
  // y[n, m, 2i + kh, 2j + kw] += x[n, c, i, j] w[c, m, kh, kw] (stride 2, no overlap).
  const auto xd = toDouble(x), wd = toDouble(w);
  std::vector<double> want(3 * 6 * 6, 0.0);
  for (int c = 0; c < 2; ++c)
    for (int m = 0; m < 3; ++m)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          for (int kh = 0; kh < 2; ++kh)
            for (int kw = 0; kw < 2; ++kw)
              want[static_cast<size_t>((m * 6 + 2 * i + kh) * 6 + 2 * j + kw)] +=
                  xd[static_cast<size_t>((c * 3 + i) * 3 + j)] *
                  wd[static_cast<size_t>(((c * 3 + m) * 2 + kh) * 2 + kw)];
  expectHalfNear(halfOutput(out.at(y)), want);
}

// ------------------------------------------------------------------ mixed FLOAT16 / FLOAT

TEST(MixedPrecision, MulByAFloatScalarGivesFloat16) {
  const auto x = toHalf(test::randomFloats(6, 21));
  const std::vector<float> s{2.5f};
  TensorId y1, y2;
  auto out = run(
      [&](Builder& b, AiOnnxOpset13& ai) {
        const TensorId xi = b.addInputTensor(TensorInfo("FLOAT16", {2, 3}), "x");
        const TensorId si = constant(ai, s, {});
        y1 = ai.mul({xi, si});
        y2 = ai.mul({constant(ai, s, {1}), xi});
        return std::vector<TensorId>{y1, y2};
      },
      {{"x", NDArray::fromVector(x, {2, 3})}});
  std::vector<double> want;
  for (double v : toDouble(x)) want.push_back(static_cast<float>(float16_t(static_cast<float>(v * 2.5))));
  EXPECT_EQ(halfOutput(out.at(y1)), want);
  EXPECT_EQ(halfOutput(out.at(y2)), want);
}

TEST(MixedPrecision, OtherMixesRaisePopARTsError) {
  auto build = [](const char* op, const Shape& fs) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId h = b->addInputTensor(TensorInfo("FLOAT16", {2, 3}), "h");
    const TensorId f = b->addInputTensor(TensorInfo("FLOAT", fs), "f");
    const std::string o = op;
    const TensorId y = o == "Add"   ? ai.add({h, f})
                       : o == "Mul" ? ai.mul({h, f})
                       : o == "Sum" ? ai.sum({h, f})
                                    : ai.less({h, f});
    b->addOutputTensor(y);
    createSession(b->getModelProto(), y);
  };
  for (const char* op : {"Add", "Sum", "Less"})
    expectError([&] { build(op, {}); },
                {"np broadcasting failed, incompatible types FLOAT16 and FLOAT (shapes [2 3] and [])"});
  // Mul accepts a FLOAT scalar only, as popops::mul.
  expectError([&] { build("Mul", {2, 3}); }, {"incompatible types FLOAT16 and FLOAT (shapes [2 3] and [2 3])"});
}

// ------------------------------------------------------------------ normalizations

TEST(MixedPrecision, BatchNormFloat16DataWithFloatStatistics) {
  const Shape xs{2, 3, 2, 2};
  const auto x = toHalf(test::randomFloats(24, 31));
  const std::vector<float> scale{1.5f, 0.5f, -1.0f}, bias{0.1f, -0.2f, 0.3f}, mean{0.2f, -0.1f, 0.0f},
      var{2.0f, 0.5f, 1.0f};
  TensorId y;
  auto out = run(
      [&](Builder& b, AiOnnxOpset13& ai) {
        y = ai.batchnormalization({b.addInputTensor(TensorInfo("FLOAT16", xs), "x"), constant(ai, scale, {3}),
                                   constant(ai, bias, {3}), constant(ai, mean, {3}), constant(ai, var, {3})},
                                  1)[0];
        return std::vector<TensorId>{y};
      },
      {{"x", NDArray::fromVector(x, xs)}});
  const auto xd = toDouble(x);
  std::vector<double> want;
  for (size_t i = 0; i < xd.size(); ++i) {
    const size_t c = (i / 4) % 3;
    want.push_back(scale[c] * (xd[i] - mean[c]) / std::sqrt(var[c] + 1e-5) + bias[c]);
  }
  expectHalfNear(halfOutput(out.at(y)), want);
}

TEST(BatchNorm, SpatialZeroNormalizesPerActivation) {
  // Opset 7, spatial = 0: parameters shaped [C, H, W]; training-mode statistics per activation over N.
  const Shape xs{4, 2, 3};
  const auto x = test::randomFloats(24, 41);
  std::vector<float> scale = test::randomFloats(6, 42, 0.5f, 1.5f), bias = test::randomFloats(6, 43), mean(6, 0.0f),
                     var(6, 1.0f);
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset7();
  auto cst = [&](const std::vector<float>& v) {
    return ai.constant(ConstVoidData(v.data(), TensorInfo(DataType::FLOAT, {2, 3})));
  };
  const TensorId xi = b->addInputTensor(TensorInfo("FLOAT", xs), "x");
  const auto outs = ai.batchnormalization({xi, cst(scale), cst(bias), cst(mean), cst(var)}, 5, 1e-5f, 0.9f, 0);
  for (int i = 0; i < 5; ++i) b->addOutputTensor(outs[static_cast<size_t>(i)]);
  auto out = test::runOnce(b->getModelProto(), {{"x", NDArray::fromVector(x, xs)}}, outs);
  ASSERT_EQ(out.at(outs[1]).shape(), (Shape{2, 3}));
  const auto y = out.at(outs[0]).toVector<float>();
  const auto runMean = out.at(outs[1]).toVector<float>();
  for (size_t a = 0; a < 6; ++a) {
    double m = 0, v = 0;
    for (size_t n = 0; n < 4; ++n) m += x[n * 6 + a] / 4.0;
    for (size_t n = 0; n < 4; ++n) v += (x[n * 6 + a] - m) * (x[n * 6 + a] - m) / 4.0;
    EXPECT_NEAR(runMean[a], 0.1 * m, 1e-6);
    for (size_t n = 0; n < 4; ++n)
      EXPECT_NEAR(y[n * 6 + a], scale[a] * (x[n * 6 + a] - m) / std::sqrt(v + 1e-5) + bias[a], 1e-5);
  }
  // Per-channel parameters do not fit spatial = 0.
  expectError(
      [&] {
        auto b2 = Builder::create();
        auto ai2 = b2->aiOnnxOpset7();
        std::vector<float> p(2, 1.0f);
        auto c2 = [&] { return ai2.constant(ConstVoidData(p.data(), TensorInfo(DataType::FLOAT, {2}))); };
        const TensorId out2 = ai2.batchnormalization(
            {b2->addInputTensor(TensorInfo("FLOAT", xs), "x"), c2(), c2(), c2(), c2()}, 1, 1e-5f, 0.9f, 0)[0];
        b2->addOutputTensor(out2);
        createSession(b2->getModelProto(), out2);
      },
      {"expected shape of batch norm input tensor scale ([2]) to be [2 3] to match all but the first dimension of X "
       "([4 2 3])"});
}

TEST(MixedPrecision, LayerNormParamsMustBeTheDataTypeOrFloat) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const std::vector<double> g{1.0, 1.0};
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 2}), "x");
  expectError(
      [&] {
        const TensorId y =
            ai.layernormalization({x, ai.constant(ConstVoidData(g.data(), TensorInfo(DataType::DOUBLE, {2})))}, 1)[0];
        b->addOutputTensor(y);
        createSession(b->getModelProto(), y);
      },
      {"must be FLOAT (the type of input 0 'x')", "DOUBLE [2]"});
}

// ------------------------------------------------------------------ indices, ArgMax, Reduce axes

TEST(IndexTypes, GatherAndScatterTakeInt32Int64AndUint32) {
  const auto data = test::randomFloats(12, 51);
  const std::vector<int64_t> idx{2, 0, 3};
  for (DataType t : {DataType::INT32, DataType::INT64, DataType::UINT32}) {
    TensorId g, ge, se;
    auto out = run(
        [&](Builder& b, AiOnnxOpset13& ai) {
          auto ids = [&](const std::vector<int64_t>& v, const Shape& s) {
            std::vector<int32_t> i32(v.begin(), v.end());
            std::vector<uint32_t> u32(v.begin(), v.end());
            return t == DataType::INT64   ? constant(ai, v, s)
                   : t == DataType::INT32 ? constant(ai, i32, s)
                                          : constant(ai, u32, s);
          };
          const TensorId x = b.addInputTensor(TensorInfo("FLOAT", {3, 4}), "x");
          g = ai.gather({x, ids(idx, {3})}, 1);
          ge = ai.gatherelements({x, ids({1, 0, 2, 2, 0, 1}, {3, 2})}, 1);
          se = ai.scatterelements({x, ids({3, 1, 0}, {3, 1}), constant(ai, std::vector<float>{7, 8, 9}, {3, 1})}, 1);
          return std::vector<TensorId>{g, ge, se};
        },
        {{"x", NDArray::fromVector(data, {3, 4})}});
    const auto gv = out.at(g).toVector<float>(), gev = out.at(ge).toVector<float>(), sev = out.at(se).toVector<float>();
    for (size_t r = 0; r < 3; ++r) {
      for (size_t k = 0; k < 3; ++k) EXPECT_EQ(gv[r * 3 + k], data[r * 4 + static_cast<size_t>(idx[k])]);
    }
    EXPECT_EQ(gev, (std::vector<float>{data[1], data[0], data[6], data[6], data[8], data[9]}));
    std::vector<float> want = data;
    want[3] = 7;
    want[5] = 8;
    want[8] = 9;
    EXPECT_EQ(sev, want) << dataTypeToString(t);
  }
}

TEST(ArgExtrema, GiveInt32AsPopART) {
  const std::vector<float> x{1, 5, 2, 9, 0, 9};
  TensorId mx, mn;
  auto out = run(
      [&](Builder& b, AiOnnxOpset13& ai) {
        const TensorId xi = b.addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
        mx = ai.argmax({xi}, 1, 0, 1);
        mn = ai.argmin({xi}, 0);
        return std::vector<TensorId>{mx, mn};
      },
      {{"x", NDArray::fromVector(x, {2, 3})}});
  EXPECT_EQ(out.at(mx).toVector<int32_t>(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(out.at(mn).shape(), (Shape{1, 3}));
  EXPECT_EQ(out.at(mn).toVector<int32_t>(), (std::vector<int32_t>{0, 1, 0}));
}

TEST(ReduceAxes, AnExplicitEmptyListIsTheIdentity) {
  // The Builder leaves an empty list out (every axis); a model with axes = [] reduces over none.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
  const TensorId all = ai.reducemean({x});
  const TensorId none = ai.reducesumsquare({x}, {}, 0);
  const TensorId none2 = ai.reducemax({x}, {}, 1);
  for (const TensorId& t : {all, none, none2}) b->addOutputTensor(t);
  b->addNodeAttribute("axes", std::vector<int64_t>{}, {none});
  b->addNodeAttribute("axes", std::vector<int64_t>{}, {none2});
  const auto x0 = test::randomFloats(6, 61);
  auto out = test::runOnce(b->getModelProto(), {{"x", NDArray::fromVector(x0, {2, 3})}}, {all, none, none2});
  EXPECT_EQ(out.at(all).shape(), (Shape{1, 1}));
  EXPECT_NEAR(out.at(all).toVector<float>()[0], std::accumulate(x0.begin(), x0.end(), 0.0) / 6.0, 1e-6);
  // Each element reduced on its own (numpy's reduction over axis=()): x² for ReduceSumSquare.
  EXPECT_EQ(out.at(none).shape(), (Shape{2, 3}));
  const auto sq = out.at(none).toVector<float>();
  for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(sq[i], x0[i] * x0[i]);
  EXPECT_EQ(out.at(none2).toVector<float>(), x0);
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

// IEEE negation: Neg(0) is -0 and Abs(-0) is +0 (NumPy, PyTorch), in float, double and half.
TEST(DTypes, NegAndAbsOfZeroKeepIeeeSigns) {
  for (DataType t : {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16}) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId x = b->addInputTensor(TensorInfo(t, {2}), "x");
    const TensorId neg = ai.neg({x}), abs = ai.abs({x});
    b->addOutputTensor(neg);
    b->addOutputTensor(abs);
    const std::vector<float> xs{0.0f, -0.0f};
    NDArray in = t == DataType::FLOAT    ? NDArray::fromVector(xs, {2})
                 : t == DataType::DOUBLE ? NDArray::fromVector(std::vector<double>{0.0, -0.0}, {2})
                                         : NDArray::fromVector(toHalf(xs), {2});
    auto out = test::runOnce(b->getModelProto(), {{x, in}}, {neg, abs});
    auto signs = [&](const TensorId& id) {
      std::vector<bool> s;
      for (double v : halfOrFloat(out.at(id))) s.push_back(std::signbit(v));
      return s;
    };
    EXPECT_EQ(signs(neg), (std::vector<bool>{true, false})) << t;
    EXPECT_EQ(signs(abs), (std::vector<bool>{false, false})) << t;
  }
}

// partialsTypeMatMuls = "half" (or the op's setPartialsType): every product is added to a FLOAT16
// accumulator, rounded each time, as the IPU's half partials; float partials (the default) round
// once at the end. The op's own type wins over the session's.
TEST(DTypes, PartialsTypeMatMulsHalfAccumulates) {
  const int64_t M = 3, K = 300, N = 2;
  const auto a = toHalf(test::randomFloats(static_cast<size_t>(M * K), 11, -4.0f, 4.0f));
  const auto w = toHalf(test::randomFloats(static_cast<size_t>(K * N), 12));
  std::vector<double> halfRef, exact;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      float16_t acc(0.0f);
      double e = 0;
      for (int64_t k = 0; k < K; ++k) {
        const float p = static_cast<float>(a[static_cast<size_t>(m * K + k)]) *
                        static_cast<float>(w[static_cast<size_t>(k * N + n)]);
        acc = float16_t(static_cast<float>(acc) + p);
        e += static_cast<double>(p);
      }
      halfRef.push_back(static_cast<float>(acc));
      exact.push_back(static_cast<float>(float16_t(static_cast<float>(e))));
    }
  }
  auto matmul = [&](const std::string& opPartials, const std::string& sessionPartials) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT16, {M, K}), "x");
    const TensorId y =
        ai.matmul({x, b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo(DataType::FLOAT16, {K, N})))});
    if (!opPartials.empty()) b->setPartialsType(y, opPartials);
    b->addOutputTensor(y);
    SessionOptions opts;
    if (!sessionPartials.empty()) opts.partialsTypeMatMuls = sessionPartials;
    return halfOutput(test::runOnce(b->getModelProto(), {{x, NDArray::fromVector(a, {M, K})}}, {y}, opts).at(y));
  };
  EXPECT_EQ(matmul("", "half"), halfRef);
  EXPECT_EQ(matmul("HALF", ""), halfRef);
  const auto floatPartials = matmul("", "");
  EXPECT_EQ(floatPartials, exact);
  EXPECT_NE(floatPartials, halfRef);
  EXPECT_EQ(matmul("float", "half"), floatPartials);
  expectError([&] { matmul("", "quarter"); }, {"Unable to get partials type from string 'quarter'"});
}

}  // namespace
}  // namespace popart
