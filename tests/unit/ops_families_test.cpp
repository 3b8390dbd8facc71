// One Builder-made graph per op family (elementwise, activations, matmul, conv, pool, norm, reduce,
// shape, gather, tensor, losses, resize, strings, control flow), run by an InferenceSession and
// compared with references computed here in double precision. The ONNX conformance suite covers
// the attribute corners; these tests pin that each family is reachable through aiOnnxOpsetN.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::constant;
using test::expectError;
using test::expectNear;

std::vector<float> ramp(size_t n, float start = -1.0f, float step = 0.25f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

/// Builds with `make` (inputs are added by it), runs once with `inputs`, returns the outputs.
std::map<TensorId, NDArray> runGraph(const std::function<std::vector<TensorId>(Builder&, AiOnnxOpset17&)>& make,
                                     const std::map<TensorId, NDArray>& inputs) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const auto outs = make(*b, ai);
  for (const auto& o : outs) b->addOutputTensor(o);
  return test::runOnce(b->getModelProto(), inputs, outs);
}

TEST(OpFamilies, ElementwiseAndActivations) {
  const auto x = ramp(8), y = ramp(8, 2.0f, -0.5f);
  TensorId a, m, h, g;
  auto out = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        const auto xi = b.addInputTensor(TensorInfo("FLOAT", {2, 4}), "x");
        const auto yi = b.addInputTensor(TensorInfo("FLOAT", {2, 4}), "y");
        a = ai.add({ai.mul({xi, yi}), ai.sqrt({ai.abs({yi})})});
        m = ai.where({ai.greater({xi, yi}), xi, yi});
        h = ai.hardswish({xi});
        g = ai.softmax({xi}, 1);
        return std::vector<TensorId>{a, m, h, g};
      },
      {{"x", NDArray::fromVector(x, {2, 4})}, {"y", NDArray::fromVector(y, {2, 4})}});
  std::vector<double> wa, wm, wh, wg(8);
  for (size_t i = 0; i < 8; ++i) {
    const double xd = x[i], yd = y[i];
    wa.push_back(xd * yd + std::sqrt(std::fabs(yd)));
    wm.push_back(std::max(xd, yd));
    wh.push_back(xd * std::clamp(xd / 6 + 0.5, 0.0, 1.0));
  }
  for (size_t r = 0; r < 2; ++r) {
    double s = 0;
    for (size_t c = 0; c < 4; ++c) s += std::exp(static_cast<double>(x[r * 4 + c]));
    for (size_t c = 0; c < 4; ++c) wg[r * 4 + c] = std::exp(static_cast<double>(x[r * 4 + c])) / s;
  }
  expectNear(out.at(a).toVector<float>(), wa, 1e-05);
  expectNear(out.at(m).toVector<float>(), wm, 1e-05);
  expectNear(out.at(h).toVector<float>(), wh, 1e-05);
  expectNear(out.at(g).toVector<float>(), wg, 1e-05);
}

TEST(OpFamilies, MatMulGemmAndReduce) {
  const auto x = ramp(6), w = ramp(12, 0.5f, -0.1f);
  TensorId mm, gm, rs, rm;
  auto out = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        const auto xi = b.addInputTensor(TensorInfo("FLOAT", {2, 3}), "x");
        const auto wi = constant(ai, w, {3, 4});
        mm = ai.matmul({xi, wi});
        gm = ai.gemm({wi, xi}, 0.5f, 1.0f, 1, 1);  // 0.5 * w^T x^T: [4, 2]
        rs = ai.reducesum({mm, constant(ai, std::vector<int64_t>{1}, {1})}, 0);
        rm = ai.reducemax({mm}, {0}, 1);
        return std::vector<TensorId>{mm, gm, rs, rm};
      },
      {{"x", NDArray::fromVector(x, {2, 3})}});
  std::vector<double> wmm(8, 0.0), wgm(8), wrs(2, 0.0), wrm(4, -1e30);
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 4; ++j) {
      for (size_t k = 0; k < 3; ++k) wmm[i * 4 + j] += static_cast<double>(x[i * 3 + k]) * w[k * 4 + j];
      wgm[j * 2 + i] = 0.5 * wmm[i * 4 + j];
      wrs[i] += wmm[i * 4 + j];
      wrm[j] = std::max(wrm[j], wmm[i * 4 + j]);
    }
  expectNear(out.at(mm).toVector<float>(), wmm, 1e-05);
  expectNear(out.at(gm).toVector<float>(), wgm, 1e-05);
  expectNear(out.at(rs).toVector<float>(), wrs, 1e-05);
  expectNear(out.at(rm).toVector<float>(), wrm, 1e-05);
  EXPECT_EQ(out.at(rm).shape(), (Shape{1, 4}));
}

TEST(OpFamilies, ConvPoolAndNorm) {
  // x [1, 1, 4, 4], w [2, 1, 3, 3], pads 1: conv -> [1, 2, 4, 4]; maxpool 2x2 -> [1, 2, 2, 2];
  // instance norm over each channel.
  const auto x = ramp(16, -2.0f, 0.3f), w = ramp(18, 1.0f, -0.1f);
  TensorId c, p, n;
  auto out = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        const auto xi = b.addInputTensor(TensorInfo("FLOAT", {1, 1, 4, 4}), "x");
        c = ai.conv({xi, constant(ai, w, {2, 1, 3, 3})}, {}, 1, {3, 3}, {1, 1, 1, 1});
        p = ai.maxpool({c}, 1, {2, 2}, 0, {}, {}, 0, {2, 2})[0];
        n = ai.instancenormalization(
            {p, constant(ai, std::vector<float>{1, 2}, {2}), constant(ai, std::vector<float>{0, 0.5f}, {2})}, 1e-5f);
        return std::vector<TensorId>{c, p, n};
      },
      {{"x", NDArray::fromVector(x, {1, 1, 4, 4})}});
  std::vector<double> wc(32, 0.0), wp(8, -1e30), wn(8);
  for (int o = 0; o < 2; ++o)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        for (int ki = 0; ki < 3; ++ki)
          for (int kj = 0; kj < 3; ++kj) {
            const int yi = i + ki - 1, xj = j + kj - 1;
            if (yi < 0 || yi >= 4 || xj < 0 || xj >= 4) continue;
            wc[static_cast<size_t>(o * 16 + i * 4 + j)] +=
                static_cast<double>(x[static_cast<size_t>(yi * 4 + xj)]) * w[static_cast<size_t>(o * 9 + ki * 3 + kj)];
          }
  for (int o = 0; o < 2; ++o)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        auto& dst = wp[static_cast<size_t>(o * 4 + (i / 2) * 2 + j / 2)];
        dst = std::max(dst, wc[static_cast<size_t>(o * 16 + i * 4 + j)]);
      }
  for (int o = 0; o < 2; ++o) {
    double mean = 0, var = 0;
    for (int k = 0; k < 4; ++k) mean += wp[static_cast<size_t>(o * 4 + k)] / 4;
    for (int k = 0; k < 4; ++k) var += std::pow(wp[static_cast<size_t>(o * 4 + k)] - mean, 2) / 4;
    for (int k = 0; k < 4; ++k)
      wn[static_cast<size_t>(o * 4 + k)] =
          (o + 1) * (wp[static_cast<size_t>(o * 4 + k)] - mean) / std::sqrt(var + 1e-5) + 0.5 * o;
  }
  expectNear(out.at(c).toVector<float>(), wc, 1e-05);
  expectNear(out.at(p).toVector<float>(), wp, 1e-05);
  expectNear(out.at(n).toVector<float>(), wn, 1e-4);
}

TEST(OpFamilies, ShapeGatherAndTensor) {
  const auto x = ramp(12);
  TensorId t, s, ge, sn, tk, cs, tr, oh;
  auto out = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        const auto xi = b.addInputTensor(TensorInfo("FLOAT", {3, 4}), "x");
        t = ai.transpose({ai.reshape({xi, constant(ai, std::vector<int64_t>{4, 3}, {2})})});  // [3, 4]
        s = ai.slice({xi, constant(ai, std::vector<int64_t>{1}, {1}), constant(ai, std::vector<int64_t>{3}, {1}),
                      constant(ai, std::vector<int64_t>{1}, {1})});  // columns 1..2
        ge = ai.gatherelements({xi, constant(ai, std::vector<int64_t>{2, 0, 1, 1}, {1, 4})}, 0);
        sn = ai.scatternd(
            {xi, constant(ai, std::vector<int64_t>{1}, {1, 1}), constant(ai, std::vector<float>{9, 9, 9, 9}, {1, 4})});
        tk = ai.topk({xi, constant(ai, std::vector<int64_t>{2}, {1})}, 1, 1, 1)[0];
        cs = ai.cumsum({xi, constant(ai, std::vector<int64_t>{1}, {})});
        tr = ai.trilu({xi}, 0);  // lower triangle
        oh = ai.onehot({constant(ai, std::vector<int64_t>{0, 2}, {2}), constant(ai, std::vector<int64_t>{3}, {}),
                        constant(ai, std::vector<float>{0, 1}, {2})});
        return std::vector<TensorId>{t, s, ge, sn, tk, cs, tr, oh};
      },
      {{"x", NDArray::fromVector(x, {3, 4})}});
  auto X = [&](size_t r, size_t c) { return static_cast<double>(x[r * 4 + c]); };
  std::vector<double> wt, ws, wge, wsn, wtk, wcs, wtr;
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 4; ++c) wt.push_back(x[c * 3 + r]);
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 1; c < 3; ++c) ws.push_back(X(r, c));
  const size_t gi[4] = {2, 0, 1, 1};
  for (size_t c = 0; c < 4; ++c) wge.push_back(X(gi[c], c));
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 4; ++c) wsn.push_back(r == 1 ? 9.0 : X(r, c));
  for (size_t r = 0; r < 3; ++r) {
    wtk.push_back(X(r, 3));  // the ramp grows along each row
    wtk.push_back(X(r, 2));
    double acc = 0;
    for (size_t c = 0; c < 4; ++c) {
      acc += X(r, c);
      wcs.push_back(acc);
      wtr.push_back(c <= r ? X(r, c) : 0.0);
    }
  }
  expectNear(out.at(t).toVector<float>(), wt, 1e-05);
  expectNear(out.at(s).toVector<float>(), ws, 1e-05);
  expectNear(out.at(ge).toVector<float>(), wge, 1e-05);
  expectNear(out.at(sn).toVector<float>(), wsn, 1e-05);
  expectNear(out.at(tk).toVector<float>(), wtk, 1e-05);
  expectNear(out.at(cs).toVector<float>(), wcs, 1e-05);
  expectNear(out.at(tr).toVector<float>(), wtr, 1e-05);
  expectNear(out.at(oh).toVector<float>(), {1, 0, 0, 0, 0, 1}, 1e-05);
}

TEST(OpFamilies, LossesAndResize) {
  // NegativeLogLikelihoodLoss (mean) of log-probabilities; SoftmaxCrossEntropyLoss (sum);
  // Resize nearest x2.
  const std::vector<float> logits{0.1f, 1.2f, -0.3f, 2.0f, 0.0f, 0.5f};
  const std::vector<int64_t> labels{1, 0};
  TensorId nll, sce, rz;
  auto out = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        const auto li = b.addInputTensor(TensorInfo("FLOAT", {2, 3}), "logits");
        const auto lab = b.addInputTensor(TensorInfo("INT64", {2}), "labels");
        nll = ai.negativeloglikelihoodloss({ai.logsoftmax({li}, 1), lab});
        sce = ai.softmaxcrossentropyloss({li, lab}, 1, {}, "sum")[0];
        const auto small = b.addInputTensor(TensorInfo("FLOAT", {1, 1, 2, 2}), "small");
        rz = ai.resize({small, "", constant(ai, std::vector<float>{1, 1, 2, 2}, {4})}, "asymmetric", -0.75f, 0, 0.0f,
                       "nearest", "floor");
        return std::vector<TensorId>{nll, sce, rz};
      },
      {{"logits", NDArray::fromVector(logits, {2, 3})},
       {"labels", NDArray::fromVector(labels, {2})},
       {"small", NDArray::fromVector(std::vector<float>{1, 2, 3, 4}, {1, 1, 2, 2})}});
  double total = 0;
  for (size_t r = 0; r < 2; ++r) {
    double s = 0;
    for (size_t c = 0; c < 3; ++c) s += std::exp(static_cast<double>(logits[r * 3 + c]));
    total += -(logits[r * 3 + static_cast<size_t>(labels[r])] - std::log(s));
  }
  expectNear(out.at(nll).toVector<float>(), {total / 2}, 1e-05);
  expectNear(out.at(sce).toVector<float>(), {total}, 1e-05);
  expectNear(out.at(rz).toVector<float>(), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 1e-05);
}

TEST(OpFamilies, StringNormalizer) {
  // The output size depends on the strings (stopwords), so they must be constant.
  const std::vector<std::string> words{"The", "quick", "brown", "fox"};
  TensorId y;
  auto out = runGraph(
      [&](Builder& b, AiOnnxOpset17& ai) {
        const auto xi = ai.constant(ConstVoidData(words.data(), TensorInfo("STRING", {4})));
        y = ai.stringnormalizer({xi}, "UPPER", 0, "", {"the"});
        return std::vector<TensorId>{y};
      },
      {});
  EXPECT_EQ(out.at(y).toVector<std::string>(), (std::vector<std::string>{"QUICK", "BROWN", "FOX"}));
}

TEST(OpFamilies, IfWithSubgraphBuilders) {
  // y = cond ? x * 2 : x - 1, both branches reading x from the parent graph.
  for (bool cond : {true, false}) {
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset17();
    const auto x = b->addInputTensor(TensorInfo("FLOAT", {3}), "x");
    const auto c = b->addInputTensor(TensorInfo("BOOL", {}), "cond");
    Builder& thenB = b->createSubgraphBuilder();
    auto tai = thenB.aiOnnxOpset17();
    thenB.addInputTensorFromParentGraph(x);
    thenB.addOutputTensor(tai.mul({x, constant(tai, std::vector<float>{2}, {})}));
    Builder& elseB = b->createSubgraphBuilder();
    auto eai = elseB.aiOnnxOpset17();
    elseB.addInputTensorFromParentGraph(x);
    elseB.addOutputTensor(eai.sub({x, constant(eai, std::vector<float>{1}, {})}));
    const auto y = ai.logical_if({c}, 1, elseB, thenB)[0];
    b->addOutputTensor(y);
    const std::vector<float> xv{1, 2, 3};
    NDArray condArray(DataType::BOOL, {});
    *static_cast<uint8_t*>(condArray.data()) = cond ? 1 : 0;
    auto out = test::runOnce(b->getModelProto(), {{"x", NDArray::fromVector(xv, {3})}, {"cond", condArray}}, {y});
    expectNear(out.at(y).toVector<float>(), cond ? std::vector<double>{2, 4, 6} : std::vector<double>{0, 1, 2}, 1e-05);
  }
}

TEST(OpFamilies, ErrorsNameTheNode) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const auto x = b->addInputTensor(TensorInfo("FLOAT", {3, 4}), "x");
  const auto y = ai.gatherelements({x, constant(ai, std::vector<int64_t>{0, 1}, {2})}, 0, "ge");
  b->addOutputTensor(y);
  expectError(
      [&] {
        test::runOnce(b->getModelProto(), {{"x", NDArray(DataType::FLOAT, {3, 4})}}, {y});
      },
      {"node 'ge", "GatherElements"});
}

}  // namespace
}  // namespace popart
