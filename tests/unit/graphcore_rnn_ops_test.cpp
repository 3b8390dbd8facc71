// PopART's aiGraphcore lstm, ctcloss and ctcbeamsearchdecoder built with the typed
// AiGraphcoreOpset1 methods, run on the CPU device and compared with references computed here in
// double precision (an LSTM cell in Poplar's gate order, the CTC loss and decoder by enumerating
// every alignment); gradients against central finite differences in DOUBLE; PopART's errors.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using test::expectError;
using test::ModelBuilder;
using test::sigmoid;

/// PopART's LSTM in double: W [4, I + H, H] with gates forget, input, candidate, output.
struct LstmRef {
  std::vector<double> out, h, c;  // out [S, N, H]
};
LstmRef lstmRef(const std::vector<double>& X, const std::vector<double>& W, const std::vector<double>& B,
                const std::vector<double>& init, int64_t S, int64_t N, int64_t I, int64_t H,
                const std::vector<int64_t>& lens = {}) {
  LstmRef r;
  r.out.assign(static_cast<size_t>(S * N * H), 0.0);
  r.h.assign(static_cast<size_t>(N * H), 0.0);
  r.c.assign(static_cast<size_t>(N * H), 0.0);
  if (!init.empty()) {
    std::copy(init.begin(), init.begin() + N * H, r.h.begin());
    std::copy(init.begin() + N * H, init.end(), r.c.begin());
  }
  const int64_t K = I + H;
  for (int64_t t = 0; t < S; ++t) {
    const auto hPrev = r.h;
    for (int64_t b = 0; b < N; ++b) {
      if (!lens.empty() && t >= lens[static_cast<size_t>(b)]) continue;
      for (int64_t j = 0; j < H; ++j) {
        double pre[4];
        for (int64_t g = 0; g < 4; ++g) {
          double v = B.empty() ? 0.0 : B[static_cast<size_t>(g * H + j)];
          for (int64_t k = 0; k < I; ++k)
            v += X[static_cast<size_t>((t * N + b) * I + k)] * W[static_cast<size_t>((g * K + k) * H + j)];
          for (int64_t k = 0; k < H; ++k)
            v += hPrev[static_cast<size_t>(b * H + k)] * W[static_cast<size_t>((g * K + I + k) * H + j)];
          pre[g] = v;
        }
        double& c = r.c[static_cast<size_t>(b * H + j)];
        c = sigmoid(pre[0]) * c + sigmoid(pre[1]) * std::tanh(pre[2]);
        r.h[static_cast<size_t>(b * H + j)] = sigmoid(pre[3]) * std::tanh(c);
        r.out[static_cast<size_t>((t * N + b) * H + j)] = r.h[static_cast<size_t>(b * H + j)];
      }
    }
  }
  return r;
}

void expectAbsNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

std::map<TensorId, NDArray> run(ModelBuilder& mb, const std::vector<TensorId>& outs) {
  for (const auto& o : outs) mb.b->addOutputTensor(o);
  return test::runOnce(mb.b->getModelProto(), mb.inputs, outs);
}

TensorId uints(ModelBuilder& mb, const std::vector<uint32_t>& v, const Shape& s) {
  const TensorId id = mb.b->addInputTensor(TensorInfo(DataType::UINT32, s));
  mb.inputs.emplace(id, NDArray::fromVector(v, s));
  return id;
}

// ------------------------------------------------------------------ lstm

TEST(GraphcoreRnnOps, LstmFullSequenceAndLastStepWithBiasAndInitialState) {
  const int64_t S = 4, N = 2, I = 3, H = 5;
  for (int64_t full : {1, 0}) {
    for (int inputs : {2, 3, 4}) {
      ModelBuilder mb;
      auto gc = mb.b->aiGraphcoreOpset1();
      const auto x = mb.input({S, N, I}, 1);
      const auto w = mb.input({4, I + H, H}, 2, -0.7, 0.7);
      const auto bias = mb.input({4, H}, 3);
      const auto init = mb.input({2, N, H}, 4);
      std::vector<TensorId> args{x, w, bias, init};
      args.resize(static_cast<size_t>(inputs));
      const auto outs = gc.lstm(args, full);
      ASSERT_EQ(outs.size(), 2u);
      EXPECT_EQ(mb.b->getTensorShape(outs[0]), (full ? Shape{S, N, H} : Shape{N, H}));
      EXPECT_EQ(mb.b->getTensorShape(outs[1]), (Shape{N, H}));
      auto res = run(mb, outs);
      const LstmRef r = lstmRef(mb.values[x], mb.values[w], inputs > 2 ? mb.values[bias] : std::vector<double>{},
                                inputs > 3 ? mb.values[init] : std::vector<double>{}, S, N, I, H);
      expectAbsNear(res.at(outs[0]).toVector<double>(), full ? r.out : r.h, 1e-12);
      expectAbsNear(res.at(outs[1]).toVector<double>(), r.c, 1e-12);
    }
  }
}

TEST(GraphcoreRnnOps, LstmSequenceLengthsStopEachSample) {
  const int64_t S = 5, N = 3, I = 2, H = 3;
  ModelBuilder mb;
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.input({S, N, I}, 5);
  const auto w = mb.input({4, I + H, H}, 6);
  const auto bias = mb.input({4, H}, 7);
  const auto init = mb.input({2, N, H}, 8);
  const auto lens = mb.intInput({5, 2, 0}, {N});
  const auto outs = gc.lstm({x, w, bias, init, lens});
  auto res = run(mb, outs);
  const LstmRef r = lstmRef(mb.values[x], mb.values[w], mb.values[bias], mb.values[init], S, N, I, H, {5, 2, 0});
  expectAbsNear(res.at(outs[0]).toVector<double>(), r.out, 1e-12);
  expectAbsNear(res.at(outs[1]).toVector<double>(), r.c, 1e-12);
}

TEST(GraphcoreRnnOps, LstmFloatMatchesTheDoubleReference) {
  const int64_t S = 3, N = 2, I = 4, H = 3;
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const auto xv = test::randomFloats(static_cast<size_t>(S * N * I), 9);
  const auto wv = test::randomFloats(static_cast<size_t>(4 * (I + H) * H), 10);
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {S, N, I}));
  const auto w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo(DataType::FLOAT, {4, I + H, H})));
  const auto outs = gc.lstm({x, w});
  b->addOutputTensor(outs[0]);
  auto res = test::runOnce(b->getModelProto(), {{x, NDArray::fromVector(xv, {S, N, I})}}, {outs[0]});
  const LstmRef r =
      lstmRef(std::vector<double>(xv.begin(), xv.end()), std::vector<double>(wv.begin(), wv.end()), {}, {}, S, N, I, H);
  const auto got = res.at(outs[0]).toVector<float>();
  expectAbsNear(std::vector<double>(got.begin(), got.end()), r.out, 1e-5);
}

TEST(GraphcoreRnnOps, LstmBadShapesNameTheInput) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 2, 3}));
  const auto w = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 7, 5}));  // I + H = 8
  const auto outs = gc.lstm({x, w});
  b->addOutputTensor(outs[0]);
  expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {outs[0]}), test::cpu()); },
              {"Bad weights shape [4 7 5]", "should be [4 8 5]"});
}

TEST(GraphcoreRnnOps, LstmGradientsOfEveryInputAgainstFiniteDifferences) {
  const int64_t S = 3, N = 2, I = 2, H = 3;
  for (int64_t full : {1, 0}) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto x = mb.input({S, N, I}, 11);
    const auto w = mb.weight({4, I + H, H}, 12);
    const auto bias = mb.weight({4, H}, 13);
    const auto init = mb.weight({2, N, H}, 14);
    const auto outs = gc.lstm({x, w, bias, init}, full);
    const auto l0 = mb.weightedSum(ai, outs[0], full ? Shape{S, N, H} : Shape{N, H}, 15);
    const auto l1 = mb.weightedSum(ai, outs[1], {N, H}, 16);
    test::checkGradients(mb, ai.sum({l0, l1}));
  }
}

// ------------------------------------------------------------------ ctcloss

/// -log p(target | logProbs[:T, n]) by summing over every alignment (C^T paths).
double ctcBrute(const std::vector<double>& lp, int64_t N, int64_t C, int64_t n, int64_t T,
                const std::vector<int64_t>& target, int64_t blank) {
  double total = 0;
  std::vector<int64_t> path(static_cast<size_t>(T), 0);
  while (true) {
    std::vector<int64_t> collapsed;
    int64_t prev = -1;
    double logp = 0;
    for (int64_t t = 0; t < T; ++t) {
      const int64_t c = path[static_cast<size_t>(t)];
      logp += lp[static_cast<size_t>((t * N + n) * C + c)];
      if (c != blank && c != prev) collapsed.push_back(c);
      prev = c;
    }
    if (collapsed == target) total += std::exp(logp);
    int64_t k = 0;
    while (k < T && ++path[static_cast<size_t>(k)] == C) path[static_cast<size_t>(k++)] = 0;
    if (k == T) break;
  }
  return -std::log(total);
}

std::vector<double> logSoftmaxRows(std::vector<double> v, int64_t C) {
  for (size_t r = 0; r < v.size() / static_cast<size_t>(C); ++r) {
    double m = -1e300, s = 0;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, v[r * static_cast<size_t>(C) + static_cast<size_t>(c)]);
    for (int64_t c = 0; c < C; ++c) s += std::exp(v[r * static_cast<size_t>(C) + static_cast<size_t>(c)] - m);
    for (int64_t c = 0; c < C; ++c) v[r * static_cast<size_t>(C) + static_cast<size_t>(c)] -= m + std::log(s);
  }
  return v;
}

TEST(GraphcoreRnnOps, CtcLossEveryReductionAgainstEnumeratedAlignments) {
  const int64_t T = 5, N = 3, C = 4, S = 3;
  const std::vector<uint32_t> targets{1, 2, 2, 3, 1, 0, 2, 0, 0};
  const std::vector<uint32_t> inLens{5, 4, 3}, tgtLens{3, 2, 0};
  for (int64_t blank : {0, 3}) {
    for (auto red : {ReductionType::NoReduction, ReductionType::Sum, ReductionType::Mean}) {
      ModelBuilder mb;
      auto gc = mb.b->aiGraphcoreOpset1();
      std::vector<uint32_t> tg = targets;
      if (blank == 3) std::replace(tg.begin(), tg.end(), 3u, 0u);  // no target is the blank
      const auto lp = mb.input({T, N, C}, 20, -2.0, 0.0);
      const auto loss = gc.ctcloss({lp, uints(mb, tg, {N, S}), uints(mb, inLens, {N}), uints(mb, tgtLens, {N})}, red,
                                   static_cast<unsigned>(blank));
      auto res = run(mb, {loss});
      std::vector<double> per;
      double sum = 0, mean = 0;
      for (int64_t n = 0; n < N; ++n) {
        std::vector<int64_t> t;
        for (uint32_t i = 0; i < tgtLens[static_cast<size_t>(n)]; ++i) t.push_back(tg[static_cast<size_t>(n * S + i)]);
        const double l = ctcBrute(mb.values[lp], N, C, n, inLens[static_cast<size_t>(n)], t, blank);
        per.push_back(l);
        sum += l;
        mean += l / std::max<double>(1.0, static_cast<double>(t.size())) / static_cast<double>(N);
      }
      const auto got = res.at(loss).toVector<double>();
      if (red == ReductionType::NoReduction)
        expectAbsNear(got, per, 1e-10);
      else
        expectAbsNear(got, {red == ReductionType::Sum ? sum : mean}, 1e-10);
    }
  }
}

TEST(GraphcoreRnnOps, CtcLossImpossibleAlignmentIsInfiniteOrZeroWithZeroInfinity) {
  for (bool zeroInf : {false, true}) {
    ModelBuilder mb;
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto lp = mb.input({2, 1, 3}, 21, -2.0, 0.0);
    // "1 1" needs a blank between the repeats: 3 steps; only 2 are given.
    const auto loss = gc.ctcloss({lp, uints(mb, {1, 1}, {1, 2}), uints(mb, {2}, {1}), uints(mb, {2}, {1})},
                                 ReductionType::NoReduction, 0, "UNDEFINED", zeroInf);
    auto res = run(mb, {loss});
    const double l = res.at(loss).toVector<double>()[0];
    if (zeroInf)
      EXPECT_EQ(l, 0.0);
    else
      EXPECT_TRUE(std::isinf(l) && l > 0);
  }
}

TEST(GraphcoreRnnOps, CtcLossGradientAgainstFiniteDifferences) {
  const int64_t T = 4, N = 2, C = 3, S = 2;
  for (auto red : {ReductionType::Sum, ReductionType::Mean, ReductionType::NoReduction}) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto logits = mb.weight({T, N, C}, 22);
    const auto raw = mb.weight({T, N, C}, 23, -1.5, -0.2);  // log-probabilities not from a softmax
    const auto lp = ai.add({ai.logsoftmax({logits}, 2), raw});
    auto loss = gc.ctcloss({lp, uints(mb, {1, 2, 2, 0}, {N, S}), uints(mb, {4, 3}, {N}), uints(mb, {2, 1}, {N})}, red);
    if (red == ReductionType::NoReduction) loss = mb.weightedSum(ai, loss, {N}, 24);
    test::checkGradients(mb, loss);
  }
}

TEST(GraphcoreRnnOps, CtcLossSecondOutputIsEachSamplesGradient) {
  // PopART's _ctcloss: [loss, d(per-sample loss) / d logProbs]; compared with the gradient of the
  // NoReduction loss weighted by ones (a training session's anchor).
  const int64_t T = 3, N = 2, C = 3;
  ModelBuilder mb;
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto lp = mb.weight({T, N, C}, 25, -2.0, 0.0);
  const auto tg = uints(mb, {1, 2, 2, 0}, {N, 2});
  const auto il = uints(mb, {3, 3}, {N});
  const auto tl = uints(mb, {2, 1}, {N});
  const auto outs = gc._ctcloss({lp, tg, il, tl}, ReductionType::Sum);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(mb.b->getTensorShape(outs[1]), (Shape{T, N, C}));
  mb.b->addOutputTensor(outs[1]);
  const test::Model m = mb.finish(outs[0]);
  auto anchors = test::trainingAnchors(m, {outs[1]});
  expectAbsNear(anchors.at(outs[1]).toVector<double>(), test::gradOf(anchors, lp), 1e-12);
}

TEST(GraphcoreRnnOps, CtcLossOutDataTypeAndErrors) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const auto lp = b->addInputTensor(TensorInfo(DataType::FLOAT16, {4, 2, 5}));
  const auto tg = b->addInputTensor(TensorInfo(DataType::UINT32, {2, 3}));
  const auto il = b->addInputTensor(TensorInfo(DataType::UINT32, {2}));
  const auto tl = b->addInputTensor(TensorInfo(DataType::UINT32, {2}));
  const auto loss = gc.ctcloss({lp, tg, il, tl}, ReductionType::Mean, 0, "FLOAT");
  EXPECT_EQ(b->getTensorDataType(loss), DataType::FLOAT);
  EXPECT_EQ(b->getTensorShape(loss), Shape{});
  auto session = [&](const TensorId& y) {
    b->addOutputTensor(y);
    InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu());
  };
  const auto badTargets = b->addInputTensor(TensorInfo(DataType::UINT32, {3, 3}));
  expectError(
      [&] {
        session(gc.ctcloss({lp, badTargets, il, tl}));
      },
      {"Unsupported shape for input 1", "'targets' tensor of rank 2"});
}

// ------------------------------------------------------------------ ctcbeamsearchdecoder

/// Every label sequence's probability (summed over its alignments), best first.
std::vector<std::pair<double, std::vector<int64_t>>> decodeBrute(const std::vector<double>& lp, int64_t N, int64_t C,
                                                                 int64_t n, int64_t T, int64_t blank) {
  std::map<std::vector<int64_t>, double> probs;
  std::vector<int64_t> path(static_cast<size_t>(T), 0);
  while (true) {
    std::vector<int64_t> collapsed;
    int64_t prev = -1;
    double logp = 0;
    for (int64_t t = 0; t < T; ++t) {
      const int64_t c = path[static_cast<size_t>(t)];
      logp += lp[static_cast<size_t>((t * N + n) * C + c)];
      if (c != blank && c != prev) collapsed.push_back(c);
      prev = c;
    }
    probs[collapsed] += std::exp(logp);
    int64_t k = 0;
    while (k < T && ++path[static_cast<size_t>(k)] == C) path[static_cast<size_t>(k++)] = 0;
    if (k == T || T == 0) break;
  }
  std::vector<std::pair<double, std::vector<int64_t>>> out;
  for (auto& kv : probs) out.emplace_back(std::log(kv.second), kv.first);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

TEST(GraphcoreRnnOps, CtcBeamSearchWideBeamIsExact) {
  const int64_t T = 5, N = 2, C = 3, top = 3;
  for (int64_t blank : {0, 2}) {
    ModelBuilder mb;
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto raw = mb.input({T, N, C}, 30, -2.0, 2.0);
    const std::vector<double> lpv = logSoftmaxRows(mb.values[raw], C);
    mb.inputs[raw] = NDArray::fromVector(lpv, {T, N, C});
    const std::vector<uint32_t> lens{5, 3};
    // Every prefix of at most T labels over 2 non-blank classes: 63 < 100, so no beam is dropped.
    const auto outs = gc.ctcbeamsearchdecoder({raw, uints(mb, lens, {N})}, static_cast<unsigned>(blank), 100, top);
    ASSERT_EQ(outs.size(), 3u);
    EXPECT_EQ(mb.b->getTensorDataType(outs[1]), DataType::UINT32);
    EXPECT_EQ(mb.b->getTensorShape(outs[2]), (Shape{N, top, T}));
    auto res = run(mb, outs);
    const auto probs = res.at(outs[0]).toVector<double>();
    const auto lengths = res.at(outs[1]).toVector<uint32_t>();
    const auto labels = res.at(outs[2]).toVector<uint32_t>();
    for (int64_t n = 0; n < N; ++n) {
      const auto want = decodeBrute(lpv, N, C, n, lens[static_cast<size_t>(n)], blank);
      for (int64_t k = 0; k < top; ++k) {
        const auto& w = want[static_cast<size_t>(k)];
        const size_t o = static_cast<size_t>(n * top + k);
        EXPECT_NEAR(probs[o], w.first, 1e-10) << n << " " << k;
        ASSERT_EQ(lengths[o], w.second.size()) << n << " " << k;
        for (size_t t = 0; t < static_cast<size_t>(T); ++t)
          EXPECT_EQ(static_cast<int64_t>(labels[o * static_cast<size_t>(T) + t]), t < w.second.size() ? w.second[t] : 0)
              << n << " " << k;
      }
    }
  }
}

TEST(GraphcoreRnnOps, CtcBeamSearchErrors) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const auto lp = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 2, 5}));
  const auto dl = b->addInputTensor(TensorInfo(DataType::UINT32, {3}));
  const auto outs = gc.ctcbeamsearchdecoder({lp, dl});
  b->addOutputTensor(outs[0]);
  expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {outs[0]}), test::cpu()); },
              {"Unsupported shape for input 1", "'data lengths' tensor of shape [2]"});
}

}  // namespace
}  // namespace popart
