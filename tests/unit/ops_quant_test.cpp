// Quantization, signal-processing and random ops: graphs built with the Builder, run by an
// InferenceSession, compared with integer / double-precision references written here.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::constant;
using test::expectError;

constexpr double kPi = 3.14159265358979323846;

template <typename T>
std::vector<T> randomInts(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

/// Builds with `make` (which adds inputs and returns the output), runs once, returns output 0.
NDArray runGraph(const std::function<TensorId(Builder&, AiOnnxOpset17&)>& make,
                 const std::map<TensorId, NDArray>& inputs = {}) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const TensorId y = make(*b, ai);
  b->addOutputTensor(y);
  return test::runOnce(b->getModelProto(), inputs, {y}).at(y);
}

int64_t roundHalfEven(double v) {
  return static_cast<int64_t>(std::nearbyint(v));
}

// ------------------------------------------------------------------ quantization

TEST(QuantOps, QuantizeDequantizePerAxisRoundsHalfToEvenAndSaturates) {
  // x [2, 3, 2] quantized along axis 1 to int8 with scales {0.5, 2, 0.1} and zero points {1, -3, 0}.
  const std::vector<float> x{0.25f, 0.75f, -1.25f, 100.0f, 30.0f, 5.0f, -3.0f, 1.0f, -1000.0f, 7.0f, 0.05f, 0.15f};
  const std::vector<float> scale{0.5f, 2.0f, 0.1f};
  const std::vector<int8_t> zp{1, -3, 0};
  std::vector<int8_t> want(12);
  for (int i = 0; i < 12; ++i) {
    const int c = (i / 2) % 3;
    const float q = x[static_cast<size_t>(i)] / scale[static_cast<size_t>(c)];  // the division is in float
    want[static_cast<size_t>(i)] =
        static_cast<int8_t>(std::clamp<int64_t>(roundHalfEven(q) + zp[static_cast<size_t>(c)], -128, 127));
  }
  EXPECT_EQ(want[0], 1);     // 0.25 / 0.5 = 0.5 -> 0 (ties to even), + 1
  EXPECT_EQ(want[1], 3);     // 1.5 -> 2, + 1
  EXPECT_EQ(want[9], 1);     // 3.5 -> 4, - 3
  EXPECT_EQ(want[4], 127);   // 300 saturates
  EXPECT_EQ(want[8], -128);  // -503 saturates

  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const TensorId xi = b->addInputTensor(TensorInfo("FLOAT", {2, 3, 2}), "x");
  const TensorId s = constant(ai, scale, {3}), z = constant(ai, zp, {3});
  const TensorId q = ai.quantizelinear({xi, s, z}, 1);
  const TensorId d = ai.dequantizelinear({q, s, z}, -2);
  EXPECT_EQ(b->getTensorDataType(q), DataType::INT8);
  b->addOutputTensor(q);
  b->addOutputTensor(d);
  auto out = test::runOnce(b->getModelProto(), {{xi, NDArray::fromVector(x, {2, 3, 2})}}, {q, d});
  EXPECT_EQ(out.at(q).toVector<int8_t>(), want);
  const std::vector<float> deq = out.at(d).toVector<float>();
  for (int i = 0; i < 12; ++i) {
    const int c = (i / 2) % 3;
    const double ref = (static_cast<double>(want[static_cast<size_t>(i)]) - zp[static_cast<size_t>(c)]) *
                       scale[static_cast<size_t>(c)];
    EXPECT_FLOAT_EQ(deq[static_cast<size_t>(i)], static_cast<float>(ref)) << i;
  }
}

TEST(QuantOps, QuantizeWithoutZeroPointIsUint8AndDequantizeInt32) {
  const NDArray q = runGraph([](Builder& b, AiOnnxOpset17& ai) {
    const TensorId x = constant(ai, std::vector<float>{-1.0f, 0.0f, 1.0f, 2.5f, 3.5f, 600.0f}, {6});
    return ai.quantizelinear({x, constant(ai, std::vector<float>{1.0f}, {})});
  });
  EXPECT_EQ(q.toVector<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 2, 4, 255}));
  const NDArray d = runGraph([](Builder& b, AiOnnxOpset17& ai) {
    const TensorId x = constant(ai, std::vector<int32_t>{-2000000000, 7, 2000000000}, {3});
    return ai.dequantizelinear({x, constant(ai, std::vector<float>{0.5f}, {})});
  });
  EXPECT_EQ(d.toVector<float>(), (std::vector<float>{-1.0e9f, 3.5f, 1.0e9f}));
}

TEST(QuantOps, DynamicQuantizeLinear) {
  // The ONNX example: range [-3, 2] -> scale 5 / 255, zero point round(3 / scale) = 153.
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {6}), "x");
  const auto outs = ai.dynamicquantizelinear({x});
  ASSERT_EQ(outs.size(), 3u);
  for (const auto& o : outs) b->addOutputTensor(o);
  const std::vector<float> xv{0.0f, 2.0f, -3.0f, -2.5f, 1.34f, 0.5f};
  auto out = test::runOnce(b->getModelProto(), {{x, NDArray::fromVector(xv, {6})}}, outs);
  EXPECT_EQ(out.at(outs[0]).toVector<uint8_t>(), (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
  EXPECT_FLOAT_EQ(out.at(outs[1]).toVector<float>()[0], 5.0f / 255.0f);
  EXPECT_EQ(out.at(outs[2]).toVector<uint8_t>()[0], 153);
}

TEST(QuantOps, MatMulIntegerBatchedWithPerRowAndPerColumnZeroPoints) {
  const int64_t B = 2, M = 3, K = 5, N = 4;
  const auto a = randomInts<uint8_t>(static_cast<size_t>(B * M * K), 1, 0, 255);
  const auto w = randomInts<int8_t>(static_cast<size_t>(K * N), 2, -128, 127);
  const auto azp = randomInts<uint8_t>(static_cast<size_t>(M), 3, 0, 255);
  const auto bzp = randomInts<int8_t>(static_cast<size_t>(N), 4, -128, 127);
  // A is fed at run time (the session's program runs the kernel; constant inputs would fold)
  const NDArray y = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        const TensorId ai8 = b.addInputTensor(TensorInfo("UINT8", {B, M, K}), "a");
        return ai.matmulinteger({ai8, constant(ai, w, {K, N}), constant(ai, azp, {M}), constant(ai, bzp, {N})});
      },
      {{"a", NDArray::fromVector(a, {B, M, K})}});
  ASSERT_EQ(y.shape(), (Shape{B, M, N}));
  const auto got = y.toVector<int32_t>();
  for (int64_t bi = 0; bi < B; ++bi) {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        int64_t ref = 0;
        for (int64_t k = 0; k < K; ++k)
          ref += (int64_t{a[static_cast<size_t>((bi * M + i) * K + k)]} - azp[static_cast<size_t>(i)]) *
                 (int64_t{w[static_cast<size_t>(k * N + j)]} - bzp[static_cast<size_t>(j)]);
        EXPECT_EQ(got[static_cast<size_t>((bi * M + i) * N + j)], ref);
      }
    }
  }
}

/// Direct integer convolution (2-D, groups, strides, pads, dilations), zero-point corrected;
/// padding contributes 0.
std::vector<int64_t> convRef(const std::vector<int32_t>& x, const Shape& xs, const std::vector<int32_t>& w,
                             const Shape& ws, int64_t group, int64_t stride, int64_t pad, int64_t dh, int64_t dw,
                             Shape& ys) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], M = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3];
  const int64_t OH = (H + 2 * pad - (KH - 1) * dh - 1) / stride + 1,
                OW = (W + 2 * pad - (KW - 1) * dw - 1) / stride + 1;
  ys = {N, M, OH, OW};
  std::vector<int64_t> y(static_cast<size_t>(N * M * OH * OW), 0);
  const int64_t Mg = M / group;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t acc = 0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t ih = oh * stride - pad + kh * dh, iw = ow * stride - pad + kw * dw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const int64_t ci = (m / Mg) * Cg + c;
                acc += int64_t{x[static_cast<size_t>(((n * C + ci) * H + ih) * W + iw)]} *
                       w[static_cast<size_t>(((m * Cg + c) * KH + kh) * KW + kw)];
              }
          y[static_cast<size_t>(((n * M + m) * OH + oh) * OW + ow)] = acc;
        }
  return y;
}

TEST(QuantOps, ConvIntegerGroupedStridedPaddedDilatedPerChannelZeroPoint) {
  const Shape xs{2, 4, 7, 6}, ws{6, 2, 3, 2};
  const auto x = randomInts<uint8_t>(2 * 4 * 7 * 6, 5, 0, 255);
  const auto w = randomInts<int8_t>(6 * 2 * 3 * 2, 6, -128, 127);
  const uint8_t xzp = 17;
  const auto wzp = randomInts<int8_t>(6, 7, -10, 10);
  const NDArray y = runGraph([&](Builder& b, AiOnnxOpset17& ai) {
    return ai.convinteger(
        {constant(ai, x, xs), constant(ai, w, ws), constant(ai, std::vector<uint8_t>{xzp}, {}), constant(ai, wzp, {6})},
        {2, 1}, 2, {}, {1, 1, 1, 1}, {2, 2});
  });
  std::vector<int32_t> xq(x.size()), wq(w.size());
  for (size_t i = 0; i < x.size(); ++i) xq[i] = int32_t{x[i]} - xzp;
  for (size_t i = 0; i < w.size(); ++i) wq[i] = int32_t{w[i]} - wzp[i / 12];
  Shape ys;
  const auto ref = convRef(xq, xs, wq, ws, 2, 2, 1, 2, 1, ys);
  ASSERT_EQ(y.shape(), ys);
  const auto got = y.toVector<int32_t>();
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(got[i], ref[i]) << i;
}

TEST(QuantOps, QLinearMatMulAndQLinearConvRequantize) {
  // QLinearMatMul: int8 x uint8 -> uint8; the multiplier a_scale * b_scale / y_scale is a float.
  const int64_t M = 4, K = 6, N = 3;
  const auto a = randomInts<int8_t>(M * K, 8, -128, 127);
  const auto w = randomInts<uint8_t>(K * N, 9, 0, 255);
  const float as = 0.02f, bs = 0.013f, ys = 0.9f;
  const int8_t az = -4;
  const uint8_t bz = 130, yz = 120;
  const NDArray y = runGraph([&](Builder& b, AiOnnxOpset17& ai) {
    return ai.qlinearmatmul({constant(ai, a, {M, K}), constant(ai, std::vector<float>{as}, {}),
                             constant(ai, std::vector<int8_t>{az}, {}), constant(ai, w, {K, N}),
                             constant(ai, std::vector<float>{bs}, {}), constant(ai, std::vector<uint8_t>{bz}, {}),
                             constant(ai, std::vector<float>{ys}, {}), constant(ai, std::vector<uint8_t>{yz}, {})});
  });
  const auto got = y.toVector<uint8_t>();
  const double mult = static_cast<double>(as * bs / ys);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      int64_t acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (int64_t{a[static_cast<size_t>(i * K + k)]} - az) * (int64_t{w[static_cast<size_t>(k * N + j)]} - bz);
      const int64_t ref = std::clamp<int64_t>(roundHalfEven(static_cast<double>(acc) * mult) + yz, 0, 255);
      EXPECT_EQ(got[static_cast<size_t>(i * N + j)], ref) << i << "," << j;
    }
  }

  // QLinearConv with a per-channel weight scale and an int32 bias.
  const Shape xs{1, 2, 5, 5}, wsh{3, 2, 3, 3};
  const auto x = randomInts<uint8_t>(50, 10, 0, 255);
  const auto cw = randomInts<int8_t>(54, 11, -128, 127);
  const std::vector<float> wscale{0.01f, 0.02f, 0.005f};
  const std::vector<int32_t> bias{1000, -2000, 0};
  const float xsc = 0.05f, ysc = 0.5f;
  const NDArray yc = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        return ai.qlinearconv(
            {b.addInputTensor(TensorInfo("UINT8", xs), "x"), constant(ai, std::vector<float>{xsc}, {}),
             constant(ai, std::vector<uint8_t>{128}, {}), constant(ai, cw, wsh), constant(ai, wscale, {3}),
             constant(ai, std::vector<int8_t>{0, 0, 0}, {3}), constant(ai, std::vector<float>{ysc}, {}),
             constant(ai, std::vector<int8_t>{-5}, {}), constant(ai, bias, {3})},
            {}, 1, {}, {1, 1, 1, 1}, {});
      },
      {{"x", NDArray::fromVector(x, xs)}});
  ASSERT_EQ(yc.shape(), (Shape{1, 3, 5, 5}));
  std::vector<int32_t> xq(x.size()), wq(cw.begin(), cw.end());
  for (size_t i = 0; i < x.size(); ++i) xq[i] = int32_t{x[i]} - 128;
  Shape ysh;
  const auto acc = convRef(xq, xs, wq, wsh, 1, 1, 1, 1, 1, ysh);
  const auto gotc = yc.toVector<int8_t>();
  for (size_t i = 0; i < acc.size(); ++i) {
    const size_t m = i / 25;
    const double mul = static_cast<double>(xsc * wscale[m] / ysc);
    const int64_t ref = std::clamp<int64_t>(roundHalfEven(static_cast<double>(acc[i] + bias[m]) * mul) - 5, -128, 127);
    EXPECT_EQ(gotc[i], ref) << i;
  }
}

TEST(QuantOps, BadInputsNameTheNode) {
  // a per-axis scale whose length is not the axis' size
  expectError(
      [] {
        runGraph([](Builder& b, AiOnnxOpset17& ai) {
          const TensorId x = b.addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
          return ai.quantizelinear({x, constant(ai, std::vector<float>{1, 2}, {2})}, 1, {"quant"});
        });
      },
      {"node 'quant", "QuantizeLinear, opset 17", "per-axis scale FLOAT [2] must have 3 elements"});
  // float data into an integer convolution
  expectError(
      [] {
        runGraph([](Builder& b, AiOnnxOpset17& ai) {
          const TensorId x = b.addInputTensor(TensorInfo("FLOAT", {1, 1, 3, 3}), "x");
          const TensorId w = constant(ai, std::vector<uint8_t>{1, 1, 1, 1}, {1, 1, 2, 2});
          return ai.convinteger({x, w}, {}, 1, {}, {}, {}, {"convint"});
        });
      },
      {"node 'convint", "ConvInteger", "input 0 ('x') must be one of UINT8, INT8"});
  // mismatched inner dimensions
  expectError(
      [] {
        runGraph([](Builder& b, AiOnnxOpset17& ai) {
          return ai.matmulinteger(
              {constant(ai, std::vector<uint8_t>(6), {2, 3}), constant(ai, std::vector<uint8_t>(8), {4, 2})}, {"mmi"});
        });
      },
      {"node 'mmi", "MatMulInteger", "inner dimensions differ"});
}

// ------------------------------------------------------------------ signal processing

TEST(SignalOps, WindowsMatchTheCosineSums) {
  struct Case {
    const char* name;
    double a0, a1, a2;
  };
  for (const Case c :
       {Case{"hann", 0.5, 0.5, 0.0}, Case{"hamming", 25.0 / 46, 21.0 / 46, 0.0}, Case{"blackman", 0.42, 0.5, 0.08}}) {
    for (int64_t periodic : {0, 1}) {
      const int64_t size = 11;
      const NDArray w = runGraph([&](Builder& b, AiOnnxOpset17& ai) {
        const TensorId n = constant(ai, std::vector<int64_t>{size}, {});
        const std::string k = c.name;
        if (k == "hann") return ai.hannwindow({n}, 11 /* DOUBLE */, periodic);
        if (k == "hamming") return ai.hammingwindow({n}, 11, periodic);
        return ai.blackmanwindow({n}, 11, periodic);
      });
      ASSERT_EQ(w.shape(), (Shape{size}));
      const auto got = w.toVector<double>();
      const double N = static_cast<double>(periodic ? size : size - 1);
      for (int64_t i = 0; i < size; ++i) {
        const double x = 2 * kPi * static_cast<double>(i) / N;
        EXPECT_NEAR(got[static_cast<size_t>(i)], c.a0 - c.a1 * std::cos(x) + c.a2 * std::cos(2 * x), 1e-12)
            << c.name << " periodic=" << periodic << " i=" << i;
      }
    }
  }
}

/// Direct complex DFT in double.
std::vector<std::complex<double>> dftRef(const std::vector<std::complex<double>>& x, int64_t n, bool inverse) {
  std::vector<std::complex<double>> X(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    std::complex<double> s = 0;
    for (int64_t t = 0; t < n && t < static_cast<int64_t>(x.size()); ++t)
      s += x[static_cast<size_t>(t)] *
           std::polar(1.0, (inverse ? 2 : -2) * kPi * static_cast<double>(k * t) / static_cast<double>(n));
    X[static_cast<size_t>(k)] = inverse ? s / static_cast<double>(n) : s;
  }
  return X;
}

TEST(SignalOps, DftRealComplexOnesidedInversePaddedAndTruncated) {
  // real input [2, 12, 3, 1] along axis 1, onesided, dft_length 15 (zero padding; not a power of 2)
  const auto xr = test::randomFloats(2 * 12 * 3, 12);
  const NDArray y = runGraph([&](Builder& b, AiOnnxOpset17& ai) {
    return ai.dft({constant(ai, xr, {2, 12, 3, 1}), constant(ai, std::vector<int64_t>{15}, {})}, 1, 0, 1);
  });
  ASSERT_EQ(y.shape(), (Shape{2, 8, 3, 2}));
  const auto got = y.toVector<float>();
  for (int64_t bi = 0; bi < 2; ++bi) {
    for (int64_t j = 0; j < 3; ++j) {
      std::vector<std::complex<double>> line;
      for (int64_t t = 0; t < 12; ++t) line.emplace_back(xr[static_cast<size_t>((bi * 12 + t) * 3 + j)], 0.0);
      const auto X = dftRef(line, 15, false);
      for (int64_t k = 0; k < 8; ++k) {
        const size_t o = static_cast<size_t>(((bi * 8 + k) * 3 + j) * 2);
        EXPECT_NEAR(got[o], X[static_cast<size_t>(k)].real(), 1e-5);
        EXPECT_NEAR(got[o + 1], X[static_cast<size_t>(k)].imag(), 1e-5);
      }
    }
  }
  // complex input [1, 3, 20, 2] along axis 2, inverse, dft_length 16 (truncation; radix-2 path)
  const auto xc = test::randomFloats(3 * 20 * 2, 13);
  const NDArray z = runGraph([&](Builder& b, AiOnnxOpset17& ai) {
    return ai.dft({constant(ai, xc, {1, 3, 20, 2}), constant(ai, std::vector<int32_t>{16}, {})}, 2, 1, 0);
  });
  ASSERT_EQ(z.shape(), (Shape{1, 3, 16, 2}));
  const auto gz = z.toVector<float>();
  for (int64_t r = 0; r < 3; ++r) {
    std::vector<std::complex<double>> line;
    for (int64_t t = 0; t < 20; ++t)
      line.emplace_back(xc[static_cast<size_t>((r * 20 + t) * 2)], xc[static_cast<size_t>((r * 20 + t) * 2 + 1)]);
    const auto X = dftRef(line, 16, true);
    for (int64_t k = 0; k < 16; ++k) {
      EXPECT_NEAR(gz[static_cast<size_t>((r * 16 + k) * 2)], X[static_cast<size_t>(k)].real(), 1e-6);
      EXPECT_NEAR(gz[static_cast<size_t>((r * 16 + k) * 2 + 1)], X[static_cast<size_t>(k)].imag(), 1e-6);
    }
  }
}

TEST(SignalOps, StftWithHannWindowMatchesFramedDft) {
  const int64_t L = 50, step = 7, n = 12;
  const auto sig = test::randomFloats(2 * L, 14);
  const NDArray y = runGraph([&](Builder& b, AiOnnxOpset17& ai) {
    const TensorId win = ai.hannwindow({constant(ai, std::vector<int64_t>{n}, {})});
    return ai.stft({constant(ai, sig, {2, L, 1}), constant(ai, std::vector<int64_t>{step}, {}), win,
                    constant(ai, std::vector<int64_t>{n}, {})});
  });
  const int64_t frames = (L - n) / step + 1, bins = n / 2 + 1;
  ASSERT_EQ(y.shape(), (Shape{2, frames, bins, 2}));
  const auto got = y.toVector<float>();
  for (int64_t bi = 0; bi < 2; ++bi) {
    for (int64_t f = 0; f < frames; ++f) {
      std::vector<std::complex<double>> frame;
      for (int64_t t = 0; t < n; ++t) {
        const double w = 0.5 - 0.5 * std::cos(2 * kPi * static_cast<double>(t) / static_cast<double>(n));
        frame.emplace_back(sig[static_cast<size_t>(bi * L + f * step + t)] * w, 0.0);
      }
      const auto X = dftRef(frame, n, false);
      for (int64_t k = 0; k < bins; ++k) {
        const size_t o = static_cast<size_t>(((bi * frames + f) * bins + k) * 2);
        EXPECT_NEAR(got[o], X[static_cast<size_t>(k)].real(), 1e-5);
        EXPECT_NEAR(got[o + 1], X[static_cast<size_t>(k)].imag(), 1e-5);
      }
    }
  }
}

TEST(SignalOps, MelWeightMatrixTriangles) {
  const int64_t bins = 5, dft = 64;
  const int64_t rate = 16000;
  const float lo = 100.0f, hi = 7000.0f;
  const NDArray y = runGraph([&](Builder& b, AiOnnxOpset17& ai) {
    return ai.melweightmatrix({constant(ai, std::vector<int64_t>{bins}, {}),
                               constant(ai, std::vector<int64_t>{dft}, {}),
                               constant(ai, std::vector<int64_t>{rate}, {}), constant(ai, std::vector<float>{lo}, {}),
                               constant(ai, std::vector<float>{hi}, {})});
  });
  const int64_t spec = dft / 2 + 1;
  ASSERT_EQ(y.shape(), (Shape{spec, bins}));
  // The ONNX reference: bins + 2 mel points spaced by (high - low) / (bins + 2), mapped to DFT bins.
  auto mel = [](double f) { return 2595.0 * std::log10(1.0 + f / 700.0); };
  const double step = (mel(hi) - mel(lo)) / static_cast<double>(bins + 2);
  std::vector<int64_t> e;
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + mel(lo)) / 2595.0) - 1.0);
    e.push_back(static_cast<int64_t>(std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate))));
  }
  std::vector<double> ref(static_cast<size_t>(spec * bins), 0.0);
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t l = e[static_cast<size_t>(i)], c = e[static_cast<size_t>(i + 1)], h = e[static_cast<size_t>(i + 2)];
    ASSERT_LT(l, c);  // these parameters give proper triangles
    for (int64_t j = l; j <= c; ++j) ref[static_cast<size_t>(j * bins + i)] = double(j - l) / double(c - l);
    for (int64_t j = c; j < h; ++j) ref[static_cast<size_t>(j * bins + i)] = double(h - j) / double(h - c);
  }
  const auto got = y.toVector<float>();
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_FLOAT_EQ(got[i], static_cast<float>(ref[i])) << i;
}

/// The session the IPU model makes of `make`'s graph: static shapes, as PopART's.
void ipuModelSession(const std::function<TensorId(Builder&, AiOnnxOpset17&)>& make) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const TensorId y = make(*b, ai);
  b->addOutputTensor(y);
  InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}),
                                        test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
}

TEST(SignalOps, ShapeGivingInputsAreKnownAtRunTimeOnTheCpu) {
  const auto dftOfN = [](Builder& b, AiOnnxOpset17& ai) {
    const TensorId n = b.addInputTensor(TensorInfo("INT64", {}), "n");
    return ai.dft({constant(ai, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {1, 8, 1}), n}, 1, 0, 0, {"dft"});
  };
  // The IPU model: the DFT length must be known when the model is compiled (PopART's rule).
  expectError([&] { ipuModelSession(dftOfN); }, {"node 'dft", "DFT, opset 17", "input 1 ('n') gives the DFT length",
                                                 "must be known when the model is compiled"});
  // The CPU device plans the run for the length it is given: the same as a constant length.
  std::map<TensorId, NDArray> in;
  in.emplace("n", NDArray::fromVector(std::vector<int64_t>{4}, {}));
  const NDArray fed = runGraph(dftOfN, in);
  const NDArray folded = runGraph([](Builder& b, AiOnnxOpset17& ai) {
    return ai.dft({constant(ai, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {1, 8, 1}),
                   constant(ai, std::vector<int64_t>{4}, {})},
                  1, 0, 0, {"dft"});
  });
  EXPECT_EQ(fed.shape(), (Shape{1, 4, 2}));
  EXPECT_EQ(fed.toVector<float>(), folded.toVector<float>());
  // a complex signal cannot have a onesided STFT
  expectError(
      [] {
        runGraph([](Builder& b, AiOnnxOpset17& ai) {
          return ai.stft({constant(ai, std::vector<float>(32), {1, 16, 2}), constant(ai, std::vector<int64_t>{4}, {}),
                          "", constant(ai, std::vector<int64_t>{8}, {})},
                         1, {"stft"});
        });
      },
      {"node 'stft", "STFT", "onesided=1 needs a real signal"});
  // Range whose limit is cast from a model input (the expanded window functions): on the IPU
  // model the error names that input; the CPU takes its value from the run.
  const auto rangeOfSize = [](Builder& b, AiOnnxOpset17& ai) {
    const TensorId size = b.addInputTensor(TensorInfo("INT32", {}), "size");
    const TensorId limit = ai.cast({size}, "FLOAT");
    return ai.range({constant(ai, std::vector<float>{0}, {}), limit, constant(ai, std::vector<float>{1.5f}, {})});
  };
  expectError([&] { ipuModelSession(rangeOfSize); },
              {"Range", "the range limit", "computed at run time from model input ('size')",
               "must be known when the model is compiled"});
  std::map<TensorId, NDArray> size;
  size.emplace("size", NDArray::fromVector(std::vector<int32_t>{4}, {}));
  EXPECT_EQ(runGraph(rangeOfSize, size).toVector<float>(), (std::vector<float>{0.0f, 1.5f, 3.0f}));
  // ... and with that input constant, the window is folded
  const NDArray r = runGraph([](Builder& b, AiOnnxOpset17& ai) {
    const TensorId limit = ai.cast({constant(ai, std::vector<int32_t>{4}, {})}, "FLOAT");
    return ai.range({constant(ai, std::vector<float>{0}, {}), limit, constant(ai, std::vector<float>{1.5f}, {})});
  });
  EXPECT_EQ(r.toVector<float>(), (std::vector<float>{0.0f, 1.5f, 3.0f}));
}

// ------------------------------------------------------------------ random numbers

TEST(SignalRandomOps, BernoulliWithCertainProbabilities) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const TensorId p = b->addInputTensor(TensorInfo("FLOAT", {8}), "p");
  const TensorId y = ai.bernoulli({p}, 9 /* BOOL */, 3.0f);
  const TensorId z = ai.bernoulli({p});
  b->addOutputTensor(y);
  b->addOutputTensor(z);
  const std::vector<float> pv{0, 1, 1, 0, 0, 0, 1, 1};
  auto out = test::runOnce(b->getModelProto(), {{p, NDArray::fromVector(pv, {8})}}, {y, z});
  const bool* yb = out.at(y).dataAs<bool>();
  const auto zf = out.at(z).toVector<float>();
  for (size_t i = 0; i < pv.size(); ++i) {
    EXPECT_EQ(yb[i], pv[i] == 1.0f) << i;
    EXPECT_EQ(zf[i], pv[i]) << i;
  }
}

// ONNX's backend tests of Bernoulli and of Dropout in training mode expect one draw of NumPy's
// random stream, which no other generator reproduces (they stay in known_failures.txt): the ops'
// distributions are checked here instead.
TEST(SignalRandomOps, BernoulliDistribution) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  constexpr int64_t n = 200000;
  const TensorId p = b->addInputTensor(TensorInfo("FLOAT", {n}), "p");
  const TensorId y = ai.bernoulli({p}, nonstd::optional<int64_t>(), 5.0f);
  b->addOutputTensor(y);
  std::vector<float> pv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pv[static_cast<size_t>(i)] = i % 2 ? 0.3f : 0.8f;  // two probabilities
  const auto yv = test::runOnce(b->getModelProto(), {{p, NDArray::fromVector(pv, {n})}}, {y}).at(y).toVector<float>();
  double ones[2] = {0, 0};
  for (int64_t i = 0; i < n; ++i) {
    const float v = yv[static_cast<size_t>(i)];
    ASSERT_TRUE(v == 0.0f || v == 1.0f) << i;
    ones[i % 2] += v;
  }
  // Mean p, variance p (1 - p): each mean within 5 standard errors of p.
  for (int k = 0; k < 2; ++k) {
    const double prob = k ? 0.3 : 0.8, m = ones[k] / (n / 2);
    EXPECT_NEAR(m, prob, 5 * std::sqrt(prob * (1 - prob) / (n / 2))) << prob;
    EXPECT_NEAR(m * (1 - m), prob * (1 - prob), 0.01) << prob;
  }
}

TEST(SignalRandomOps, TrainingModeDropoutMaskAndScale) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  constexpr int64_t n = 100000;
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {n}), "x");
  const TensorId ratio = constant(ai, std::vector<float>{0.75f}, {});
  NDArray train(DataType::BOOL, {});
  *static_cast<bool*>(train.data()) = true;
  const TensorId mode = b->addInputTensor(TensorInfo("BOOL", {}), "training_mode");
  const auto outs = ai.dropout({x, ratio, mode}, 2, int64_t(3));
  for (const auto& o : outs) b->addOutputTensor(o);
  std::vector<float> xv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xv[static_cast<size_t>(i)] = 1.0f + static_cast<float>(i % 7);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(xv, {n}));
  in.emplace(mode, std::move(train));
  auto out = test::runOnce(b->getModelProto(), in, outs);
  const auto y = out.at(outs[0]).toVector<float>();
  const bool* mask = out.at(outs[1]).dataAs<bool>();
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    // A kept element is scaled by 1 / (1 - ratio); a dropped one is 0; the mask says which.
    EXPECT_FLOAT_EQ(y[k], mask[k] ? xv[k] * 4.0f : 0.0f) << i;
    kept += mask[k];
  }
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
}

TEST(SignalRandomOps, SeededRandomUniformAndNormal) {
  auto make = [](float seed) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset17();
    const TensorId u = ai.randomuniform({4000}, 1, 3.0f, -1.0f, seed);
    const TensorId n = ai.randomnormallike({u}, {}, 2.0f, 0.5f, seed);
    b->addOutputTensor(u);
    b->addOutputTensor(n);
    return std::make_pair(b->getModelProto(), std::vector<TensorId>{u, n});
  };
  const auto m1 = make(7.0f), m2 = make(7.0f), m3 = make(8.0f);
  auto o1 = test::runOnce(m1.first, {}, m1.second);
  auto o2 = test::runOnce(m2.first, {}, m2.second);
  auto o3 = test::runOnce(m3.first, {}, m3.second);
  const auto u1 = o1.at(m1.second[0]).toVector<float>();
  const auto n1 = o1.at(m1.second[1]).toVector<float>();
  EXPECT_EQ(u1, o2.at(m2.second[0]).toVector<float>());  // same seed, same values
  EXPECT_EQ(n1, o2.at(m2.second[1]).toVector<float>());
  EXPECT_NE(u1, o3.at(m3.second[0]).toVector<float>());
  double su = 0, sn = 0, sn2 = 0;
  for (float v : u1) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 3.0f);
    su += v;
  }
  for (float v : n1) {
    sn += v;
    sn2 += double(v) * v;
  }
  const double cnt = static_cast<double>(u1.size());
  EXPECT_NEAR(su / cnt, 1.0, 0.1);
  EXPECT_NEAR(sn / cnt, 2.0, 0.05);
  EXPECT_NEAR(std::sqrt(sn2 / cnt - (sn / cnt) * (sn / cnt)), 0.5, 0.05);
}

}  // namespace
}  // namespace popart
