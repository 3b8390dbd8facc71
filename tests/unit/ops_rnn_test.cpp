// RNN / LSTM / GRU, Einsum / Det and LRN / ReverseSequence / MaxUnpool / Unique against
// double-precision references written here, and their error messages.
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;
using test::randomFloats;
using test::sigmoid;

/// A graph under construction with float inputs fed at run time.
struct RnnGraph {
  std::unique_ptr<Builder> b = Builder::create();
  std::map<TensorId, NDArray> feeds;

  TensorId input(const std::vector<float>& v, const Shape& s) {
    TensorId id = b->addInputTensor(TensorInfo(DataType::FLOAT, s));
    feeds.emplace(id, NDArray::fromVector(v, s));
    return id;
  }
  std::map<TensorId, NDArray> run(const std::vector<TensorId>& outs) {
    for (const auto& o : outs) b->addOutputTensor(o);
    return test::runOnce(b->getModelProto(), feeds, outs);
  }
};

void expectClose(const NDArray& got, const std::vector<double>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.nelms(), want.size()) << what;
  const float* g = got.dataAs<float>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g[i], want[i], tol) << what << " element " << i;
}

// ---------------------------------------------------------------------------------------------
// LSTM, one direction, layout 0, with biases, initial states and peepholes.

TEST(OpsRnn, LstmForwardMatchesDoubleReference) {
  const int64_t S = 3, N = 2, I = 4, H = 3;
  const auto x = randomFloats(S * N * I, 1), w = randomFloats(4 * H * I, 2), r = randomFloats(4 * H * H, 3),
             bias = randomFloats(8 * H, 4), h0 = randomFloats(N * H, 5), c0 = randomFloats(N * H, 6),
             p = randomFloats(3 * H, 7);
  RnnGraph g;
  auto ai = g.b->aiOnnxOpset14();
  const auto outs =
      ai.lstm({g.input(x, {S, N, I}), g.input(w, {1, 4 * H, I}), g.input(r, {1, 4 * H, H}), g.input(bias, {1, 8 * H}),
               "", g.input(h0, {1, N, H}), g.input(c0, {1, N, H}), g.input(p, {1, 3 * H})},
              3, {}, {}, {}, {}, "forward", H);
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(g.b->getTensorShape(outs[0]), (Shape{S, 1, N, H}));
  auto res = g.run(outs);

  std::vector<double> h(h0.begin(), h0.end()), c(c0.begin(), c0.end()), y;
  for (int64_t t = 0; t < S; ++t) {
    std::vector<double> hn(N * H), cn(N * H);
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        double gate[4];
        for (int64_t q = 0; q < 4; ++q) {  // i, o, f, c
          const int64_t row = q * H + j;
          double acc = bias[row] + bias[4 * H + row];
          for (int64_t k = 0; k < I; ++k) acc += double(x[(t * N + b) * I + k]) * w[row * I + k];
          for (int64_t k = 0; k < H; ++k) acc += h[b * H + k] * r[row * H + k];
          gate[q] = acc;
        }
        const double cPrev = c[b * H + j];
        const double iv = sigmoid(gate[0] + p[j] * cPrev), fv = sigmoid(gate[2] + p[2 * H + j] * cPrev);
        const double cNew = fv * cPrev + iv * std::tanh(gate[3]);
        const double ov = sigmoid(gate[1] + p[H + j] * cNew);
        cn[b * H + j] = cNew;
        hn[b * H + j] = ov * std::tanh(cNew);
      }
    }
    h = hn;
    c = cn;
    y.insert(y.end(), h.begin(), h.end());
  }
  expectClose(res.at(outs[0]), y, 1e-5, "Y");
  expectClose(res.at(outs[1]), h, 1e-5, "Y_h");
  expectClose(res.at(outs[2]), c, 1e-5, "Y_c");
}

// ---------------------------------------------------------------------------------------------
// GRU: both linear_before_reset forms, bidirectional, batch-major layout.

std::vector<double> gruReference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& r,
                                 const std::vector<float>& bias, int64_t S, int64_t N, int64_t I, int64_t H, bool lbr,
                                 bool reverse, int64_t dir, std::vector<double>* yAll) {
  const float* W = w.data() + dir * 3 * H * I;
  const float* R = r.data() + dir * 3 * H * H;
  const float* Wb = bias.data() + dir * 6 * H;
  const float* Rb = Wb + 3 * H;
  std::vector<double> h(static_cast<size_t>(N * H), 0.0);
  yAll->assign(static_cast<size_t>(S * N * H), 0.0);
  for (int64_t step = 0; step < S; ++step) {
    const int64_t t = reverse ? S - 1 - step : step;
    std::vector<double> hn(h.size());
    for (int64_t b = 0; b < N; ++b) {
      auto xw = [&](int64_t row) {
        double acc = Wb[row];
        for (int64_t k = 0; k < I; ++k) acc += double(x[(b * S + t) * I + k]) * W[row * I + k];  // layout 1
        return acc;
      };
      auto hr = [&](int64_t row, const std::vector<double>& hv) {
        double acc = 0;
        for (int64_t k = 0; k < H; ++k) acc += hv[static_cast<size_t>(b * H + k)] * R[row * H + k];
        return acc;
      };
      std::vector<double> rh(h.size(), 0.0);
      std::vector<double> z(H), rr(H);
      for (int64_t j = 0; j < H; ++j) {
        z[j] = sigmoid(xw(j) + hr(j, h) + Rb[j]);
        rr[j] = sigmoid(xw(H + j) + hr(H + j, h) + Rb[H + j]);
        rh[b * H + j] = rr[j] * h[b * H + j];
      }
      for (int64_t j = 0; j < H; ++j) {
        const double cand = lbr ? std::tanh(xw(2 * H + j) + rr[j] * (hr(2 * H + j, h) + Rb[2 * H + j]))
                                : std::tanh(xw(2 * H + j) + hr(2 * H + j, rh) + Rb[2 * H + j]);
        hn[b * H + j] = (1 - z[j]) * cand + z[j] * h[b * H + j];
      }
    }
    h = hn;
    for (int64_t b = 0; b < N; ++b)
      for (int64_t j = 0; j < H; ++j) (*yAll)[static_cast<size_t>((t * N + b) * H + j)] = h[b * H + j];
  }
  return h;
}

TEST(OpsRnn, GruBidirectionalBatchMajorMatchesDoubleReference) {
  const int64_t S = 4, N = 2, I = 3, H = 5;
  for (bool lbr : {false, true}) {
    const auto x = randomFloats(N * S * I, 11), w = randomFloats(2 * 3 * H * I, 12),
               r = randomFloats(2 * 3 * H * H, 13), bias = randomFloats(2 * 6 * H, 14);
    RnnGraph g;
    auto ai = g.b->aiOnnxOpset14();
    const auto outs =
        ai.gru({g.input(x, {N, S, I}), g.input(w, {2, 3 * H, I}), g.input(r, {2, 3 * H, H}), g.input(bias, {2, 6 * H})},
               2, {}, {}, {}, {}, "bidirectional", H, /*layout=*/1, lbr ? 1 : 0);
    EXPECT_EQ(g.b->getTensorShape(outs[0]), (Shape{N, S, 2, H}));
    EXPECT_EQ(g.b->getTensorShape(outs[1]), (Shape{N, 2, H}));
    auto res = g.run(outs);
    std::vector<double> yf, yr;
    const auto hf = gruReference(x, w, r, bias, S, N, I, H, lbr, false, 0, &yf);
    const auto hb = gruReference(x, w, r, bias, S, N, I, H, lbr, true, 1, &yr);
    std::vector<double> y(static_cast<size_t>(N * S * 2 * H)), yh(static_cast<size_t>(N * 2 * H));
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        for (int64_t t = 0; t < S; ++t) {
          y[static_cast<size_t>(((b * S + t) * 2 + 0) * H + j)] = yf[static_cast<size_t>((t * N + b) * H + j)];
          y[static_cast<size_t>(((b * S + t) * 2 + 1) * H + j)] = yr[static_cast<size_t>((t * N + b) * H + j)];
        }
        yh[static_cast<size_t>((b * 2 + 0) * H + j)] = hf[static_cast<size_t>(b * H + j)];
        yh[static_cast<size_t>((b * 2 + 1) * H + j)] = hb[static_cast<size_t>(b * H + j)];
      }
    }
    expectClose(res.at(outs[0]), y, 1e-5, lbr ? "Y (linear_before_reset)" : "Y");
    expectClose(res.at(outs[1]), yh, 1e-5, lbr ? "Y_h (linear_before_reset)" : "Y_h");
  }
}

TEST(OpsRnn, GruInDoubleMatchesDoubleReference) {
  const int64_t S = 3, N = 2, I = 4, H = 3;
  const auto x = randomFloats(N * S * I, 15), w = randomFloats(3 * H * I, 16), r = randomFloats(3 * H * H, 17),
             bias = randomFloats(6 * H, 18);
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset14();
  std::map<TensorId, NDArray> feeds;
  auto in = [&](const std::vector<float>& v, const Shape& sh) {
    TensorId id = b->addInputTensor(TensorInfo(DataType::DOUBLE, sh));
    feeds.emplace(id, NDArray::fromVector(std::vector<double>(v.begin(), v.end()), sh));
    return id;
  };
  const auto outs = ai.gru({in(x, {N, S, I}), in(w, {1, 3 * H, I}), in(r, {1, 3 * H, H}), in(bias, {1, 6 * H})}, 2, {},
                           {}, {}, {}, "forward", {}, /*layout=*/1);
  for (const auto& o : outs) b->addOutputTensor(o);
  auto res = test::runOnce(b->getModelProto(), feeds, outs);
  std::vector<double> yAll;
  const auto h = gruReference(x, w, r, bias, S, N, I, H, false, false, 0, &yAll);
  const NDArray& got = res.at(outs[1]);
  ASSERT_EQ(got.nelms(), h.size());
  for (size_t i = 0; i < h.size(); ++i) EXPECT_NEAR(got.dataAs<double>()[i], h[i], 1e-12) << "Y_h element " << i;
}

// ---------------------------------------------------------------------------------------------
// RNN: reverse direction with sequence lengths, Relu activation and clip.

TEST(OpsRnn, RnnReverseWithSequenceLengthsAndClip) {
  const int64_t S = 4, N = 3, I = 2, H = 3;
  const auto x = randomFloats(S * N * I, 21), w = randomFloats(H * I, 22, -2, 2), r = randomFloats(H * H, 23);
  const std::vector<int32_t> lens{4, 2, 0};
  RnnGraph g;
  auto ai = g.b->aiOnnxOpset14();
  auto lensId = g.b->addInputTensor(TensorInfo(DataType::INT32, {N}));
  g.feeds.emplace(lensId, NDArray::fromVector(lens, {N}));
  const float clip = 0.5f;
  const auto outs = ai.rnn({g.input(x, {S, N, I}), g.input(w, {1, H, I}), g.input(r, {1, H, H}), "", lensId}, 2, {}, {},
                           {"Relu"}, clip, "reverse");
  auto res = g.run(outs);
  std::vector<double> y(static_cast<size_t>(S * N * H), 0.0), h(static_cast<size_t>(N * H), 0.0);
  for (int64_t b = 0; b < N; ++b) {
    for (int64_t step = 0; step < lens[static_cast<size_t>(b)]; ++step) {
      const int64_t t = lens[static_cast<size_t>(b)] - 1 - step;
      std::vector<double> hn(H);
      for (int64_t j = 0; j < H; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < I; ++k) acc += double(x[(t * N + b) * I + k]) * w[j * I + k];
        for (int64_t k = 0; k < H; ++k) acc += h[b * H + k] * r[j * H + k];
        acc = std::min<double>(std::max<double>(acc, -clip), clip);
        hn[j] = std::max(acc, 0.0);
      }
      for (int64_t j = 0; j < H; ++j) {
        h[b * H + j] = hn[j];
        y[static_cast<size_t>((t * N + b) * H + j)] = hn[j];
      }
    }
  }
  expectClose(res.at(outs[0]), y, 1e-6, "Y");
  expectClose(res.at(outs[1]), h, 1e-6, "Y_h");
}

TEST(OpsRnn, BadShapesAndAttributesNameTheNode) {
  // Each case builds its own graph: X [2, 1, 3], W and R for `gates` gates of hidden size 3.
  auto check = [](int64_t gates, const std::function<TensorId(AiOnnxOpset14&, const std::vector<TensorId>&)>& add,
                  const std::vector<std::string>& frags) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset14();
    std::vector<TensorId> args{b->addInputTensor("FLOAT", {2, 1, 3}), b->addInputTensor("FLOAT", {1, gates * 3, 3}),
                               b->addInputTensor("FLOAT", {1, gates * 3, 3})};
    expectError(
        [&] {
          const TensorId o = add(ai, args);
          InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {o}), test::cpu());
        },
        frags);
  };
  // hidden_size 5 disagrees with R (4 gates x 3): PopART's message first.
  check(4,
        [](AiOnnxOpset14& ai, const std::vector<TensorId>& a) {
          return ai.lstm(a, 2, {}, {}, {}, {}, "forward", 5, 0, 0, "mylstm")[0];
        },
        {"LSTMOp hidden_size attribute, 5, does not match calculated hidden size, 3.", "mylstm", "[1 12 3]"});
  check(4,
        [](AiOnnxOpset14& ai, const std::vector<TensorId>& a) {
          return ai.lstm(a, 2, {}, {}, {}, {}, "sideways", {}, 0, 0, "lstm2")[0];
        },
        {"lstm2", "direction 'sideways'"});
  check(3,
        [](AiOnnxOpset14& ai, const std::vector<TensorId>& a) {
          return ai.gru(a, 2, {}, {}, {"Sigmoid", "Cosine"}, {}, "forward", {}, 0, 0, "gru1")[0];
        },
        {"gru1", "'Cosine' is not supported"});
  check(1,
        [](AiOnnxOpset14& ai, const std::vector<TensorId>& a) {
          return ai.rnn(a, 2, {}, {}, {"Tanh"}, -1.0f, "forward", {}, 0, "rnn1")[0];
        },
        {"rnn1", "clip must be positive"});
}

// ---------------------------------------------------------------------------------------------
// Einsum and Det.

TEST(OpsLinalg, EinsumMatmulTransposeDiagonalAndImplicitOutput) {
  const auto a = randomFloats(2 * 3 * 4, 31), bm = randomFloats(2 * 4 * 5, 32), sq = randomFloats(3 * 3, 33);
  RnnGraph g;
  auto ai = g.b->aiOnnxOpset14();
  auto A = g.input(a, {2, 3, 4}), B = g.input(bm, {2, 4, 5}), Q = g.input(sq, {3, 3});
  auto mm = ai.einsum({A, B}, "bij,bjk->bik");
  auto mmT = ai.einsum({A, B}, "bij , bjk -> kbi");  // spaces, permuted output
  auto tr = ai.einsum({A}, "bij->jib");
  auto diag = ai.einsum({Q}, "ii->i");
  auto trace = ai.einsum({Q}, "ii");                  // implicit: scalar trace
  auto ell = ai.einsum({A, B}, "...ij,...jk");        // implicit: ...ik
  auto outer = ai.einsum({Q, Q}, "ij,kl->ijkl");      // no contraction
  auto sum3 = ai.einsum({A, A, A}, "bij,bij,bij->");  // three operands
  EXPECT_EQ(g.b->getTensorShape(mmT), (Shape{5, 2, 3}));
  EXPECT_EQ(g.b->getTensorShape(ell), (Shape{2, 3, 5}));
  EXPECT_EQ(g.b->getTensorShape(trace), Shape{});
  auto res = g.run({mm, mmT, tr, diag, trace, ell, outer, sum3});

  std::vector<double> want(2 * 3 * 5), wantT(5 * 2 * 3);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) {
        double acc = 0;
        for (int j = 0; j < 4; ++j) acc += double(a[(b * 3 + i) * 4 + j]) * bm[(b * 4 + j) * 5 + k];
        want[(b * 3 + i) * 5 + k] = acc;
        wantT[(k * 2 + b) * 3 + i] = acc;
      }
  expectClose(res.at(mm), want, 1e-5, "bij,bjk->bik");
  expectClose(res.at(mmT), wantT, 1e-5, "bij,bjk->kbi");
  expectClose(res.at(ell), want, 1e-5, "...ij,...jk");
  std::vector<double> wantTr(4 * 3 * 2);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) wantTr[(j * 3 + i) * 2 + b] = a[(b * 3 + i) * 4 + j];
  expectClose(res.at(tr), wantTr, 0, "bij->jib");
  expectClose(res.at(diag), {sq[0], sq[4], sq[8]}, 0, "ii->i");
  expectClose(res.at(trace), {double(sq[0]) + sq[4] + sq[8]}, 1e-6, "ii");
  std::vector<double> wantOuter;
  for (int i = 0; i < 9; ++i)
    for (int k = 0; k < 9; ++k) wantOuter.push_back(double(sq[i]) * sq[k]);
  expectClose(res.at(outer), wantOuter, 1e-6, "ij,kl->ijkl");
  double cube = 0;
  for (float v : a) cube += double(v) * v * v;
  expectClose(res.at(sum3), {cube}, 1e-5, "bij,bij,bij->");
}

TEST(OpsLinalg, DetOfBatchedMatrices) {
  const std::vector<float> m{2, 1, 0, 1, 3, 1, 0, 1, 4,   // det 18
                             0, 1, 0, 1, 0, 0, 0, 0, 1,   // a row swap: det -1
                             1, 2, 3, 2, 4, 6, 1, 0, 1};  // singular
  RnnGraph g;
  auto ai = g.b->aiOnnxOpset14();
  auto d = ai.det({g.input(m, {3, 3, 3})});
  auto res = g.run({d});
  expectClose(res.at(d), {18, -1, 0}, 1e-5, "Det");
}

TEST(OpsLinalg, BadEinsumEquationsNameTheNode) {
  auto check = [](const std::string& eq, const std::vector<Shape>& shapes, const std::string& frag) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset14();
    std::vector<TensorId> args;
    for (const auto& s : shapes) args.push_back(b->addInputTensor("FLOAT", s));
    expectError(
        [&] {
          auto o = ai.einsum(args, eq, "ein");
          InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {o}), test::cpu());
        },
        {"ein", frag});
  };
  check("ij,jk->ik", {{2, 3}, {4, 5}}, "subscript 'j' has size 4");
  check("ij,jk->il", {{2, 3}, {3, 2}}, "output subscript 'l' does not appear");
  check("ij->", {{2, 3}, {4, 5}}, "has 1 operand term(s), but the node has 2 input(s)");
  check("ijk->i", {{2, 3}}, "input 0 has rank 2, but its term has 3 subscript(s)");
  check("i+j", {{2, 3}}, "unexpected character '+'");
  check("...i,...i", {{2, 3}, {4, 3}}, "do not broadcast");
}

// ---------------------------------------------------------------------------------------------
// LRN, ReverseSequence, MaxUnpool, Unique.

TEST(OpsMisc2, LrnMatchesDoubleReference) {
  const int64_t N = 2, C = 5, HW = 3;
  const auto x = randomFloats(N * C * HW, 41, -3, 3);
  const int64_t size = 4;
  const double alpha = 0.01, beta = 0.6, bias = 1.5;
  RnnGraph g;
  auto ai = g.b->aiOnnxOpset14();
  auto y = ai.lrn({g.input(x, {N, C, HW})}, size, float(alpha), float(beta), float(bias));
  auto res = g.run({y});
  std::vector<double> want;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i) {
        double sq = 0;
        for (int64_t k = std::max<int64_t>(0, c - 1); k <= std::min<int64_t>(C - 1, c + 2); ++k)  // floor 1, ceil 2
          sq += double(x[(n * C + k) * HW + i]) * x[(n * C + k) * HW + i];
        want.push_back(x[(n * C + c) * HW + i] / std::pow(bias + alpha / size * sq, beta));
      }
  expectClose(res.at(y), want, 1e-5, "LRN");
}

TEST(OpsMisc2, ReverseSequenceMaxUnpoolAndUnique) {
  RnnGraph g;
  auto ai = g.b->aiOnnxOpset14();
  // ReverseSequence, batch-major: row b reverses its first lens[b] elements.
  std::vector<float> x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  auto lens = g.b->addInputTensor(TensorInfo(DataType::INT64, {3}));
  g.feeds.emplace(lens, NDArray::fromVector(std::vector<int64_t>{4, 1, 2}, {3}));
  auto rs = ai.reversesequence({g.input(x, {3, 4}), lens}, 0, 1);
  // MaxUnpool of a 2x2 pooled map (kernel 2, stride 2) into 4x4.
  auto pooled = g.input({5, 6, 7, 8}, {1, 1, 2, 2});
  std::vector<int64_t> idx{1, 6, 8, 15};
  auto idxId = g.b->addInitializedInputTensor(ConstVoidData(idx.data(), TensorInfo(DataType::INT64, {1, 1, 2, 2})));
  auto mu = ai.maxunpool({pooled, idxId}, {2, 2}, {}, {2, 2});
  EXPECT_EQ(g.b->getTensorShape(mu), (Shape{1, 1, 4, 4}));
  // Unique of a constant, unsorted and sorted along an axis.
  std::vector<float> u{2, 1, 1, 3, 4, 3};
  auto uc = ai.constant(ConstVoidData(u.data(), TensorInfo(DataType::FLOAT, {6})));
  auto un = ai.unique({uc}, 4, {}, 0);
  std::vector<float> m{1, 0, 0, 1, 0, 0, 2, 3, 4};
  auto mc = ai.constant(ConstVoidData(m.data(), TensorInfo(DataType::FLOAT, {3, 3})));
  auto ua = ai.unique({mc}, 4, int64_t(0), 1);
  EXPECT_EQ(g.b->getTensorShape(ua[0]), (Shape{2, 3}));
  std::vector<TensorId> outs{rs, mu};
  outs.insert(outs.end(), un.begin(), un.end());
  outs.insert(outs.end(), ua.begin(), ua.end());
  auto res = g.run(outs);
  expectClose(res.at(rs), {3, 2, 1, 0, 4, 5, 6, 7, 9, 8, 10, 11}, 0, "ReverseSequence");
  expectClose(res.at(mu), {0, 5, 0, 0, 0, 0, 6, 0, 7, 0, 0, 0, 0, 0, 0, 8}, 0, "MaxUnpool");
  auto ints = [&](const TensorId& id) {
    const NDArray& a = res.at(id);
    return std::vector<int64_t>(a.dataAs<int64_t>(), a.dataAs<int64_t>() + a.nelms());
  };
  expectClose(res.at(un[0]), {2, 1, 3, 4}, 0, "Unique Y");
  EXPECT_EQ(ints(un[1]), (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(ints(un[2]), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(ints(un[3]), (std::vector<int64_t>{1, 2, 2, 1}));
  expectClose(res.at(ua[0]), {1, 0, 0, 2, 3, 4}, 0, "Unique axis Y");
  EXPECT_EQ(ints(ua[1]), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(ints(ua[2]), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(ints(ua[3]), (std::vector<int64_t>{2, 1}));
}

TEST(OpsMisc2, UniqueOfARuntimeInputIsPlannedPerRunOnTheCpu) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset14();
  auto x = b->addInputTensor("FLOAT", {4}, "x");
  auto o = ai.unique({x}, 1, {}, 1, "uniq");
  b->addOutputTensor(o[0]);
  // The IPU model: the output size must be known when the model is compiled.
  expectError(
      [&] {
        InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {o[0]}),
                                              test::dm().createIpuModelDevice({{"numIPUs", "1"}}));
      },
      {"uniq", "output sizes depend on them"});
  // The CPU device: each run's values give the output's size.
  auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {o[0]}), test::cpu());
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  for (const auto& v : {std::vector<float>{3, 1, 3, 2}, std::vector<float>{5, 5, 5, 5}}) {
    std::map<TensorId, NDArray> in;
    in.emplace(x, NDArray::fromVector(v, {4}));
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    std::vector<float> want(v);
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    EXPECT_EQ(anchors.at(o[0]).toVector<float>(), want);
  }
}

}  // namespace
}  // namespace popart
