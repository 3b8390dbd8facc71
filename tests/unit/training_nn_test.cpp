// Training of convolutional and transformer ops: every grad rule of conv.cpp, pool.cpp, norm.cpp,
// gather.cpp and the shape / elementwise / activation additions (down to the pass-through rules of
// Identity, Nop, graphcore Reshape, Scale and CastLike) checked against central finite
// differences in double precision, the conv gradients of a larger convolution against a naive
// reference, Dropout's mask, and small FLOAT CNNs that train with SGD.
#include <cmath>
#include <functional>
#include <random>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using namespace test;

// ------------------------------------------------------------------ convolution

TEST(TrainingNn, Conv2dStridesPadsDilationsGroupsBias) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.weight({2, 4, 6, 5}, 1);
  const auto w = mb.weight({6, 2, 3, 2}, 2);
  const auto bias = mb.weight({6}, 3);
  const auto y = ai.conv({x, w, bias}, {1, 2}, 2, {}, {1, 0, 2, 1}, {2, 1});  // [2, 6, 4, 4]
  checkGradients(mb, mb.weightedSum(ai, y, {2, 6, 4, 4}, 4));
}

TEST(TrainingNn, Conv1dPointwiseDepthwiseSameUpper3d) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  // 1-D, stride 2
  const auto x1 = mb.weight({2, 3, 7}, 10), w1 = mb.weight({4, 3, 3}, 11);
  const auto y1 = ai.conv({x1, w1}, {}, 1, {}, {1, 1}, {2});  // [2, 4, 4]
  // pointwise (1x1, the GEMM path)
  const auto x2 = mb.weight({1, 4, 3, 3}, 12), w2 = mb.weight({5, 4, 1, 1}, 13);
  const auto y2 = ai.conv({x2, w2}, {}, 1, {}, {}, {});  // [1, 5, 3, 3]
  // depthwise 3x3, stride 2, auto_pad SAME_UPPER
  const auto x3 = mb.weight({1, 3, 5, 5}, 14), w3 = mb.weight({3, 1, 3, 3}, 15), b3 = mb.weight({3}, 16);
  const auto y3 = ai.conv({x3, w3, b3}, {}, 3, {}, {}, {2, 2});  // [1, 3, 3, 3]
  mb.b->addNodeAttribute("auto_pad", std::string("SAME_UPPER"), {y3});
  // 3-D
  const auto x4 = mb.weight({1, 2, 3, 3, 3}, 17), w4 = mb.weight({2, 2, 2, 2, 2}, 18);
  const auto y4 = ai.conv({x4, w4}, {}, 1, {}, {}, {});  // [1, 2, 2, 2, 2]
  const auto loss = ai.sum({mb.weightedSum(ai, y1, {2, 4, 4}, 19), mb.weightedSum(ai, y2, {1, 5, 3, 3}, 20),
                            mb.weightedSum(ai, y3, {1, 3, 3, 3}, 21), mb.weightedSum(ai, y4, {1, 2, 2, 2, 2}, 22)});
  (void)gc;
  checkGradients(mb, loss);
}

struct ConvCfg {
  int64_t N, C, H, W, M, G, K;
  std::vector<int64_t> strides, pads, dilations;
};

/// The output and the gradients of sum(conv(x, w, b) * c) from a training session against a
/// naive reference.
template <typename T>
void convAgainstReference(const ConvCfg& k, double tol) {
  const int64_t Cg = k.C / k.G, Mg = k.M / k.G;
  const int64_t OH = (k.H + k.pads[0] + k.pads[2] - ((k.K - 1) * k.dilations[0] + 1)) / k.strides[0] + 1;
  const int64_t OW = (k.W + k.pads[1] + k.pads[3] - ((k.K - 1) * k.dilations[1] + 1)) / k.strides[1] + 1;
  const Shape xs{k.N, k.C, k.H, k.W}, ws{k.M, Cg, k.K, k.K}, ys{k.N, k.M, OH, OW};
  auto toT = [](const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); };
  const auto xv = toT(randomDoubles(static_cast<size_t>(elems(xs)), 31));
  const auto wv = toT(randomDoubles(static_cast<size_t>(elems(ws)), 32));
  const auto bv = toT(randomDoubles(static_cast<size_t>(k.M), 33));
  const auto cv = toT(randomDoubles(static_cast<size_t>(elems(ys)), 34));
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const DataType dt = getDataType<T>();
  const auto x = b->addInitializedInputTensor(ConstVoidData(xv.data(), TensorInfo(dt, xs)));
  const auto w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo(dt, ws)));
  const auto bias = b->addInitializedInputTensor(ConstVoidData(bv.data(), TensorInfo(dt, {k.M})));
  const auto c = b->addInputTensor(TensorInfo(dt, ys));
  const auto y = ai.conv({x, w, bias}, k.dilations, k.G, {}, k.pads, k.strides);
  const auto loss = b->aiGraphcoreOpset1().identityloss({ai.mul({y, c})}, ReductionType::Sum);
  b->addOutputTensor(loss);
  Model m{b->getModelProto(), loss, {x, w, bias}, {}};
  m.inputs.emplace(c, NDArray::fromVector(cv, ys));
  auto anchors = trainingAnchors(m, {y});
  const auto dx = gradOf(anchors, x), dw = gradOf(anchors, w), db = gradOf(anchors, bias);
  const auto fy = asDoubles(anchors.at(y));
  std::vector<double> rx(xv.size(), 0.0), rw(wv.size(), 0.0), rb(bv.size(), 0.0), ry(cv.size(), 0.0);
  for (int64_t n = 0; n < k.N; ++n) {
    for (int64_t mo = 0; mo < k.M; ++mo) {
      const int64_t g = mo / Mg;
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          const size_t yi = static_cast<size_t>(((n * k.M + mo) * OH + oh) * OW + ow);
          const double cval = cv[yi];
          rb[static_cast<size_t>(mo)] += cval;
          ry[yi] += static_cast<double>(bv[static_cast<size_t>(mo)]);
          for (int64_t cg = 0; cg < Cg; ++cg) {
            for (int64_t kh = 0; kh < k.K; ++kh) {
              const int64_t ih = oh * k.strides[0] - k.pads[0] + kh * k.dilations[0];
              if (ih < 0 || ih >= k.H) continue;
              for (int64_t kw = 0; kw < k.K; ++kw) {
                const int64_t iw = ow * k.strides[1] - k.pads[1] + kw * k.dilations[1];
                if (iw < 0 || iw >= k.W) continue;
                const size_t xi = static_cast<size_t>(((n * k.C + g * Cg + cg) * k.H + ih) * k.W + iw);
                const size_t wi = static_cast<size_t>(((mo * Cg + cg) * k.K + kh) * k.K + kw);
                rx[xi] += cval * static_cast<double>(wv[wi]);
                rw[wi] += cval * static_cast<double>(xv[xi]);
                ry[yi] += static_cast<double>(xv[xi]) * static_cast<double>(wv[wi]);
              }
            }
          }
        }
      }
    }
  }
  auto compare = [&](const std::vector<double>& got, const std::vector<double>& ref, const char* what) {
    ASSERT_EQ(got.size(), ref.size()) << what;
    double maxErr = 0, maxRef = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      maxErr = std::max(maxErr, std::fabs(got[i] - ref[i]));
      maxRef = std::max(maxRef, std::fabs(ref[i]));
    }
    EXPECT_LE(maxErr, tol * (1 + maxRef)) << what;
  };
  compare(fy, ry, "Y");
  compare(dx, rx, "dX");
  compare(dw, rw, "dW");
  compare(db, rb, "dB");
}

TEST(TrainingNn, ConvGradientsOfLargerConvolutionsMatchReference) {
  // 1024 output positions over K = 72 columns: two column chunks; dilation 2.
  const ConvCfg a{2, 16, 32, 32, 6, 2, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}};
  // stride 2 along W (strided col2im), 1152 positions.
  const ConvCfg b{1, 8, 48, 48, 4, 1, 3, {1, 2}, {1, 1, 1, 1}, {1, 1}};
  // 8 images of 10x10 with K = 576: chunks of 448 batch positions span and split images (in
  // DOUBLE; FLOAT takes the Winograd gradients: 3x3, stride 1, 800 positions).
  const ConvCfg c{8, 64, 10, 10, 8, 1, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}};
  // Winograd gradients with uneven pads (top 0, left 2, bottom 2, right 0), and with an odd
  // output size (partial tiles).
  const ConvCfg d{4, 8, 14, 14, 16, 1, 3, {1, 1}, {0, 2, 2, 0}, {1, 1}};
  const ConvCfg e{4, 8, 15, 15, 8, 1, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}};
  convAgainstReference<double>(a, 1e-12);
  convAgainstReference<double>(b, 1e-12);
  convAgainstReference<double>(c, 1e-12);
  convAgainstReference<double>(d, 1e-12);
  convAgainstReference<double>(e, 1e-12);
  convAgainstReference<float>(a, 2e-5);
  convAgainstReference<float>(b, 2e-5);
  convAgainstReference<float>(c, 2e-5);
  convAgainstReference<float>(d, 2e-5);
  convAgainstReference<float>(e, 2e-5);
}

TEST(TrainingNn, DirectConvolutionsOnEachInstructionSet) {
  // FLOAT, stride 1, one group, few products per output (conv_direct_plan.hpp): the Conv,
  // ConvDataGrad and ConvWeightGrad of the direct kernels. ctest kernels_isa_<copy> runs this with
  // each instruction-set copy. cnn_small's two layers (one channel in; six in, sixteen out):
  convAgainstReference<float>({3, 1, 28, 28, 6, 1, 5, {1, 1}, {2, 2, 2, 2}, {1, 1}}, 2e-5);
  convAgainstReference<float>({4, 6, 14, 14, 16, 1, 5, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 2e-5);
  // uneven pads (top 0, left 2, bottom 1, right 0), dilation 2 x 1, 13 outputs (a partial block)
  convAgainstReference<float>({2, 3, 9, 11, 13, 1, 3, {1, 1}, {0, 2, 1, 0}, {2, 1}}, 2e-5);
  // pads larger than the kernel's reach: the data gradient's padding is negative (rows cut)
  convAgainstReference<float>({2, 5, 7, 6, 7, 1, 2, {1, 1}, {2, 0, 1, 2}, {1, 1}}, 2e-5);
  // 40 outputs from 12 channels of 5x5 (300 products), odd image count over the tasks
  convAgainstReference<float>({3, 12, 12, 12, 40, 1, 5, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 2e-5);
  // depthwise, outputs at most 28 wide (the direct depthwise kernel): 3x3, and 5x5 dilated 1 x 2
  // with uneven pads
  convAgainstReference<float>({2, 8, 9, 7, 8, 8, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 2e-5);
  convAgainstReference<float>({3, 6, 12, 10, 6, 6, 5, {1, 1}, {2, 0, 1, 3}, {1, 2}}, 2e-5);
  // depthwise with strides (the row kernels of conv_depthwise.cpp, on each copy too): 2 x 2,
  // 3 x 2 with uneven pads, 2 x 1 dilated
  convAgainstReference<float>({2, 8, 13, 11, 8, 8, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}}, 2e-5);
  convAgainstReference<float>({2, 4, 10, 12, 4, 4, 3, {3, 2}, {1, 0, 1, 2}, {1, 1}}, 2e-5);
  convAgainstReference<float>({1, 5, 11, 9, 5, 5, 3, {2, 1}, {2, 2, 2, 2}, {2, 2}}, 2e-5);
}

// ------------------------------------------------------------------ pooling

TEST(TrainingNn, MaxPoolPadsStridesDilationsCeilMode) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.weight({2, 3, 6, 7}, 40);
  const auto y = ai.maxpool({x}, 1, {3, 2}, 1, {1, 2}, {1, 0, 1, 1}, 0, {2, 2})[0];  // [2, 3, 4, 4]
  const auto x2 = mb.weight({1, 2, 4, 6}, 41);
  const auto y2 = ai.maxpool({x2}, 1, {2, 2}, 0, {}, {}, 0, {2, 2})[0];  // [1, 2, 2, 3]
  checkGradients(mb, ai.sum({mb.weightedSum(ai, y, {2, 3, 4, 4}, 42), mb.weightedSum(ai, y2, {1, 2, 2, 3}, 43)}));
}

TEST(TrainingNn, AveragePoolCountIncludePadAndCeilMode) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.weight({1, 2, 5, 6}, 50);
  // count_include_pad 0 and 1 over the same window; ceil_mode adds a partial last window
  const auto y0 = ai.averagepool({x}, {3, 3}, 1, 0, {1, 1, 0, 1}, {2, 2});  // [1, 2, 3, 4]
  const auto y1 = ai.averagepool({x}, {3, 3}, 1, 1, {1, 1, 0, 1}, {2, 2});
  checkGradients(mb, ai.sum({mb.weightedSum(ai, y0, {1, 2, 3, 4}, 51), mb.weightedSum(ai, y1, {1, 2, 3, 4}, 52)}));
}

TEST(TrainingNn, GlobalAverageAndMaxPool) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.weight({2, 3, 3, 4}, 60);
  const auto ga = ai.globalaveragepool({x});
  const auto gm = ai.globalmaxpool({x});
  checkGradients(mb, ai.sum({mb.weightedSum(ai, ga, {2, 3, 1, 1}, 61), mb.weightedSum(ai, gm, {2, 3, 1, 1}, 62)}));
}

// ------------------------------------------------------------------ normalization

TEST(TrainingNn, BatchNormTrainingModeUsesBatchStatistics) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.weight({3, 2, 2, 3}, 70);
  const auto scale = mb.weight({2}, 71, 0.5, 1.5), bias = mb.weight({2}, 72);
  const auto mean = mb.input({2}, 73), var = mb.input({2}, 74, 0.5, 1.5);
  mb.noGrad = {mean, var};
  const auto outs = ai.batchnormalization({x, scale, bias, mean, var}, 5, 1e-5f, 0.9f);
  checkGradients(mb, mb.weightedSum(ai, outs[0], {3, 2, 2, 3}, 75));
}

TEST(TrainingNn, BatchNormTrainingModeAttributeOpset15) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset15();
  const auto x = mb.weight({4, 3, 2}, 76);
  const auto scale = mb.weight({3}, 77, 0.5, 1.5), bias = mb.weight({3}, 78);
  const auto mean = mb.input({3}, 79), var = mb.input({3}, 80, 0.5, 1.5);
  mb.noGrad = {mean, var};
  const auto outs = ai.batchnormalization({x, scale, bias, mean, var}, 1, 1e-3f, 0.9f, 1);
  checkGradients(mb, mb.weightedSum(ai, outs[0], {4, 3, 2}, 81));
}

TEST(TrainingNn, BatchNormInferenceModeUsesTheGivenStatistics) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.weight({2, 3, 2, 2}, 82);
  const auto scale = mb.weight({3}, 83, 0.5, 1.5), bias = mb.weight({3}, 84);
  const auto mean = mb.input({3}, 85), var = mb.input({3}, 86, 0.5, 1.5);
  mb.noGrad = {mean, var};
  const auto y = ai.batchnormalization({x, scale, bias, mean, var}, 1)[0];
  checkGradients(mb, mb.weightedSum(ai, y, {2, 3, 2, 2}, 87));
}

TEST(TrainingNn, LayerNormalizationOverOneAndTwoAxes) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset17();
  const auto x = mb.weight({2, 3, 4}, 90);
  const auto g1 = mb.weight({4}, 91, 0.5, 1.5), b1 = mb.weight({4}, 92);
  const auto y1 = ai.layernormalization({x, g1, b1}, 1, -1, 1e-5f)[0];
  const auto g2 = mb.weight({3, 4}, 93, 0.5, 1.5);
  const auto y2 = ai.layernormalization({x, g2}, 1, 1, 1e-3f)[0];  // no bias
  checkGradients(mb, ai.sum({mb.weightedSum(ai, y1, {2, 3, 4}, 94), mb.weightedSum(ai, y2, {2, 3, 4}, 95)}));
}

// ------------------------------------------------------------------ gather, shape ops

TEST(TrainingNn, GatherScatterAddsRepeatedAndNegativeIndices) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto table = mb.weight({5, 3}, 100);
  const auto idx = mb.intInput({0, 3, 3, 4, 1, 0}, {2, 3});
  const auto e = ai.gather({table, idx}, 0);  // [2, 3, 3]
  const auto data = mb.weight({2, 4}, 101);
  const auto idx2 = mb.intInput({-1, 2, 2}, {3});
  const auto e2 = ai.gather({data, idx2}, 1);  // [2, 3]
  checkGradients(mb, ai.sum({mb.weightedSum(ai, e, {2, 3, 3}, 102), mb.weightedSum(ai, e2, {2, 3}, 103)}));
}

TEST(TrainingNn, ConcatSliceSplitSqueezeExpandPad) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto a = mb.weight({2, 3}, 110), w = mb.weight({2, 2}, 111), c = mb.weight({3, 1}, 112);
  const auto cat = ai.concat({a, w}, 1);  // [2, 5]
  const auto sl = ai.slice({cat, constant<int64_t>(ai, {0, 4}, {2}), constant<int64_t>(ai, {2, 0}, {2}),
                            constant<int64_t>(ai, {0, 1}, {2}), constant<int64_t>(ai, {1, -2}, {2})});  // [2, 2]
  const auto sl2 = ai.slice({cat, constant<int64_t>(ai, {1}, {1}), constant<int64_t>(ai, {5}, {1}),
                             constant<int64_t>(ai, {1}, {1}), constant<int64_t>(ai, {3}, {1})});  // [2, 2]
  const auto parts = ai.split({cat, constant<int64_t>(ai, {2, 3}, {2})}, 2, 1);                   // [2, 2], [2, 3]
  const auto u = ai.unsqueeze({sl, constant<int64_t>(ai, {0}, {1})});                             // [1, 2, 2]
  const auto sq = ai.squeeze({u, constant<int64_t>(ai, {0}, {1})});                               // [2, 2]
  const auto e = ai.expand({c, constant<int64_t>(ai, {2, 3, 4}, {3})});                           // [2, 3, 4]
  const auto p = ai.pad({a, constant<int64_t>(ai, {1, 0, 0, -1}, {4})});                          // [3, 2]
  const auto loss = ai.sum({mb.weightedSum(ai, sq, {2, 2}, 113), mb.weightedSum(ai, sl2, {2, 2}, 114),
                            mb.weightedSum(ai, parts[1], {2, 3}, 115), mb.weightedSum(ai, e, {2, 3, 4}, 116),
                            mb.weightedSum(ai, p, {3, 2}, 117)});
  checkGradients(mb, loss);
}

TEST(TrainingNn, WherePowErfGeluCast) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.input({3, 4}, 120);
  mb.noGrad = {x};  // only read by the comparison
  const auto cond = ai.greater({x, constant<double>(ai, {0.0}, {})});
  const auto w1 = mb.weight({3, 4}, 121), w2 = mb.weight({4}, 122);
  const auto wh = ai.where({cond, w1, w2});
  const auto base = mb.weight({3, 4}, 123, 0.5, 1.5), ex = mb.weight({1, 4}, 124);
  const auto p1 = ai.pow({base, ex});
  const auto p2 = ai.pow({base, mb.intInput({3}, {1})});  // an INT32 exponent
  const auto er = ai.erf({w1});
  const auto ge = gc.gelu({ai.mul({w1, constant<double>(ai, {2.0}, {})})});
  const auto ca = ai.cast({w2}, "DOUBLE");
  const auto loss = ai.sum({mb.weightedSum(ai, wh, {3, 4}, 125), mb.weightedSum(ai, p1, {3, 4}, 126),
                            mb.weightedSum(ai, p2, {3, 4}, 127), mb.weightedSum(ai, er, {3, 4}, 128),
                            mb.weightedSum(ai, ge, {3, 4}, 129), mb.weightedSum(ai, ca, {4}, 130)});
  checkGradients(mb, loss);
}

TEST(TrainingNn, CastThroughFloatAndBack) {
  // Linear in w: the finite difference is exact but for FLOAT rounding, hence the large step.
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto w = mb.weight({5}, 131);
  const auto back = ai.cast({ai.cast({w}, "FLOAT")}, "DOUBLE");
  checkGradients(mb, mb.weightedSum(ai, back, {5}, 132), 1e-2, 1e-4);
}

TEST(TrainingNn, DetachStopsTheGradient) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto w = mb.weight({4}, 133);
  const auto y = ai.mul({mb.b->aiGraphcoreOpset1().detach({w}), w});  // d/dw = detach(w) = w
  const auto loss = mb.b->aiGraphcoreOpset1().identityloss({y}, ReductionType::Sum);
  const Model m = mb.finish(loss);
  auto anchors = trainingAnchors(m);
  const auto g = gradOf(anchors, w);
  const auto& w0 = mb.values.at(w);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_DOUBLE_EQ(g[i], w0[i]);
}

// The pass-through rules: Identity, graphcore Nop and Reshape (gradView), CastLike (gradCast),
// graphcore Scale. Each loss multiplies the op's output by the weight again, so a rule that drops,
// scales or reshapes the gradient wrongly changes d loss / d w.

TEST(TrainingNn, IdentityPassesTheGradient) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto w = mb.weight({2, 3}, 134);
  checkGradients(mb, mb.weightedSum(ai, ai.mul({ai.identity({w}), w}), {2, 3}, 135));
}

TEST(TrainingNn, NopPassesTheGradient) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto w = mb.weight({2, 3}, 136);
  checkGradients(mb, mb.weightedSum(ai, ai.mul({mb.b->aiGraphcoreOpset1().nop({w}), w}), {2, 3}, 137));
}

TEST(TrainingNn, GraphcoreReshapeReshapesTheGradientBack) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto w = mb.weight({2, 3}, 138);
  const auto r = mb.b->aiGraphcoreOpset1().reshape({w}, {3, 2});
  const auto v = mb.weight({3, 2}, 139);
  checkGradients(mb, mb.weightedSum(ai, ai.mul({r, v}), {3, 2}, 144));
}

TEST(TrainingNn, ScaleScalesTheGradient) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto w = mb.weight({2, 3}, 145);
  checkGradients(mb, mb.weightedSum(ai, ai.mul({mb.b->aiGraphcoreOpset1().scale({w}, -2.5f), w}), {2, 3}, 146));
}

TEST(TrainingNn, CastLikeSameTypeAndThroughFloat) {
  {
    ModelBuilder mb;  // DOUBLE like DOUBLE: the gradient passes as it is
    auto ai = mb.b->aiOnnxOpset15();
    const auto w = mb.weight({4}, 147);
    const auto like = mb.input({1}, 148);
    mb.noGrad = {like};  // only its type is read
    checkGradients(mb, mb.weightedSum(ai, ai.mul({ai.castlike({w, like}), w}), {4}, 149));
  }
  {
    // DOUBLE like FLOAT and back like DOUBLE: the gradient is cast back to DOUBLE. Linear in w
    // with FLOAT rounding in between, hence the large step (as CastThroughFloatAndBack).
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset15();
    const auto w = mb.weight({5}, 190);
    const float one = 1.0f;
    const double three = 3.0;
    const auto likeFloat = ai.constant(ConstVoidData(&one, TensorInfo(DataType::FLOAT, {})));
    const auto back = ai.castlike({ai.castlike({w, likeFloat}), w});
    const auto y = ai.mul({back, ai.constant(ConstVoidData(&three, TensorInfo(DataType::DOUBLE, {})))});
    checkGradients(mb, mb.weightedSum(ai, y, {5}, 191), 1e-2, 1e-4);
  }
}

// ------------------------------------------------------------------ dropout

TEST(TrainingNn, DropoutInferenceFormsAreTheIdentity) {
  {
    ModelBuilder mb;  // no training_mode input: the identity
    auto ai = mb.b->aiOnnxOpset13();
    const auto w = mb.weight({2, 3}, 140);
    const auto d = ai.dropout({w, constant<double>(ai, {0.5}, {})}, 1)[0];
    checkGradients(mb, mb.weightedSum(ai, ai.mul({d, w}), {2, 3}, 141));
  }
  {
    ModelBuilder mb;  // training with ratio 0: the identity
    auto ai = mb.b->aiOnnxOpset13();
    const auto w = mb.weight({2, 3}, 142);
    const bool t = true;
    const auto train = ai.constant(ConstVoidData(&t, TensorInfo(DataType::BOOL, {})));
    const auto d = ai.dropout({w, constant<double>(ai, {0.0}, {}), train}, 2)[0];
    checkGradients(mb, mb.weightedSum(ai, d, {2, 3}, 143));
  }
}

TEST(TrainingNn, DropoutInTrainingAppliesTheForwardMask) {
  for (int outputs : {1, 2}) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    const Shape s{8, 16};
    const auto w = mb.weight(s, 150);
    const bool t = true;
    const auto train = ai.constant(ConstVoidData(&t, TensorInfo(DataType::BOOL, {})));
    const auto outs = ai.dropout({w, constant<double>(ai, {0.25}, {}), train}, static_cast<unsigned>(outputs));
    const auto c = mb.input(s, 151);
    const auto loss = mb.b->aiGraphcoreOpset1().identityloss({ai.mul({outs[0], c})}, ReductionType::Sum);
    const Model m = mb.finish(loss);
    std::vector<TensorId> extra{outs[0]};
    if (outputs == 2) extra.push_back(outs[1]);
    auto anchors = trainingAnchors(m, extra);
    const auto g = gradOf(anchors, w);
    const auto y = anchors.at(outs[0]).toVector<double>();
    const auto& cv = mb.values.at(c);
    const auto& w0 = mb.values.at(w);
    int dropped = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      const bool kept = y[i] != 0.0;
      dropped += kept ? 0 : 1;
      if (kept) {
        EXPECT_NEAR(y[i], w0[i] / 0.75, 1e-12);
      }
      EXPECT_NEAR(g[i], kept ? cv[i] / 0.75 : 0.0, 1e-12) << i;
      if (outputs == 2) {
        EXPECT_EQ(anchors.at(outs[1]).dataAs<bool>()[i], kept) << i;
      }
    }
    EXPECT_GT(dropped, 10);
    EXPECT_LT(dropped, 60);
  }
}

// ------------------------------------------------------------------ composite models

TEST(TrainingNn, EmbeddingLayerNormAttentionGelu) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset17();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto table = mb.weight({6, 4}, 160);
  const auto idx = mb.intInput({1, 5, 2, 2, 0, 3}, {2, 3});
  const auto h = ai.gather({table, idx}, 0);  // [2, 3, 4]
  const auto g = mb.weight({4}, 161, 0.5, 1.5), b = mb.weight({4}, 162);
  const auto ln = ai.layernormalization({h, g, b}, 1, -1, 1e-5f)[0];
  const auto wq = mb.weight({4, 4}, 163), wk = mb.weight({4, 4}, 164);
  const auto q = ai.matmul({ln, wq}), k = ai.matmul({ln, wk});
  const auto sc = ai.matmul({q, ai.transpose({k}, {0, 2, 1})});  // [2, 3, 3]
  const auto p = ai.softmax({sc}, -1);
  const auto o = gc.gelu({ai.add({ai.matmul({p, ln}), h})});
  checkGradients(mb, mb.weightedSum(ai, o, {2, 3, 4}, 165));
}

/// Runs `steps` SGD steps of a FLOAT model on one batch; returns the loss of every step.
std::vector<float> trainFloat(const std::string& proto, const TensorId& loss, std::map<TensorId, NDArray> inputs,
                              float lr, int steps) {
  SGD sgd({{"defaultLearningRate", {lr, true}}});
  auto s = TrainingSession::createFromOnnxModel(proto, DataFlow(1, {loss}), loss, sgd, test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(inputs), arrayRefs(anchors));
  std::vector<float> losses;
  for (int i = 0; i < steps; ++i) {
    s->run(io);
    losses.push_back(anchors.at(loss).dataAs<float>()[0]);
  }
  return losses;
}

TensorId floatWeight(Builder& b, const Shape& s, uint32_t seed, float scale) {
  auto v = test::randomFloats(static_cast<size_t>(elems(s)), seed, -scale, scale);
  return b.addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo(DataType::FLOAT, s)));
}

TEST(TrainingNn, SmallCnnTrains) {
  // Conv -> Relu -> MaxPool -> Flatten -> Gemm -> Softmax -> Nll
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const int64_t N = 8;
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {N, 1, 8, 8}));
  const auto label = b->addInputTensor(TensorInfo(DataType::INT32, {N}));
  const auto w1 = floatWeight(*b, {4, 1, 3, 3}, 170, 0.5f), b1 = floatWeight(*b, {4}, 171, 0.1f);
  const auto w2 = floatWeight(*b, {64, 3}, 172, 0.2f), b2 = floatWeight(*b, {3}, 173, 0.1f);
  const auto c = ai.relu({ai.conv({x, w1, b1}, {}, 1, {}, {1, 1, 1, 1}, {})});
  const auto mp = ai.maxpool({c}, 1, {2, 2}, 0, {}, {}, 0, {2, 2})[0];
  const auto logits = ai.gemm({ai.flatten({mp}, 1), w2, b2});
  const auto loss = b->aiGraphcoreOpset1().nllloss({ai.softmax({logits}, 1), label}, ReductionType::Mean);
  b->addOutputTensor(loss);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(test::randomFloats(static_cast<size_t>(N * 64), 174), {N, 1, 8, 8}));
  in.emplace(label, NDArray::fromVector(std::vector<int32_t>{0, 1, 2, 0, 1, 2, 0, 1}, {N}));
  const auto losses = trainFloat(b->getModelProto(), loss, in, 0.2f, 20);
  for (float l : losses) EXPECT_TRUE(std::isfinite(l));
  EXPECT_LT(losses.back(), 0.6f * losses.front()) << losses.front() << " -> " << losses.back();
  int decreasing = 0;
  for (size_t i = 1; i < losses.size(); ++i) decreasing += losses[i] < losses[i - 1] ? 1 : 0;
  EXPECT_GE(decreasing, 15);
}

TEST(TrainingNn, CnnWithBatchNormAndGlobalAveragePoolTrains) {
  // Conv -> BatchNorm (training) -> Relu -> AveragePool -> GlobalAveragePool -> Flatten -> Gemm -> Softmax -> Nll
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const int64_t N = 6;
  const auto x = b->addInputTensor(TensorInfo(DataType::FLOAT, {N, 2, 6, 6}));
  const auto label = b->addInputTensor(TensorInfo(DataType::INT32, {N}));
  const auto w1 = floatWeight(*b, {8, 2, 3, 3}, 180, 0.5f);
  const std::vector<float> ones(8, 1.0f), zeros(8, 0.0f);
  const auto scale = b->addInitializedInputTensor(ConstVoidData(ones.data(), TensorInfo(DataType::FLOAT, {8})));
  const auto bias = b->addInitializedInputTensor(ConstVoidData(zeros.data(), TensorInfo(DataType::FLOAT, {8})));
  const auto mean = b->addInitializedInputTensor(ConstVoidData(zeros.data(), TensorInfo(DataType::FLOAT, {8})));
  const auto var = b->addInitializedInputTensor(ConstVoidData(ones.data(), TensorInfo(DataType::FLOAT, {8})));
  const auto w2 = floatWeight(*b, {8, 3}, 181, 0.3f);
  const auto c = ai.conv({x, w1}, {}, 1, {}, {1, 1, 1, 1}, {});
  const auto bn = ai.batchnormalization({c, scale, bias, mean, var}, 5)[0];
  const auto ap = ai.averagepool({ai.relu({bn})}, {2, 2}, 0, 0, {}, {2, 2});
  const auto logits = ai.matmul({ai.flatten({ai.globalaveragepool({ap})}, 1), w2});
  const auto loss = b->aiGraphcoreOpset1().nllloss({ai.softmax({logits}, 1), label}, ReductionType::Mean);
  b->addOutputTensor(loss);
  std::map<TensorId, NDArray> in;
  in.emplace(x, NDArray::fromVector(test::randomFloats(static_cast<size_t>(N * 72), 182), {N, 2, 6, 6}));
  in.emplace(label, NDArray::fromVector(std::vector<int32_t>{0, 1, 2, 2, 1, 0}, {N}));
  const auto losses = trainFloat(b->getModelProto(), loss, in, 0.5f, 20);
  for (float l : losses) EXPECT_TRUE(std::isfinite(l));
  EXPECT_LT(losses.back(), 0.8f * losses.front()) << losses.front() << " -> " << losses.back();
}

TEST(TrainingNn, GradRuleErrors) {
  // Pad in reflect mode has no gradient here
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const float w0[3] = {1, 2, 3};
  const auto w = b->addInitializedInputTensor(ConstVoidData(w0, TensorInfo(DataType::FLOAT, {3})));
  const auto p = ai.pad({w, constant<int64_t>(ai, {1, 1}, {2})}, "reflect");
  const auto l = b->aiGraphcoreOpset1().identityloss({p}, ReductionType::Sum);
  b->addOutputTensor(l);
  const SGD sgd({{"defaultLearningRate", {0.1f, true}}});
  test::expectError(
      [&] { TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {l}), l, sgd, test::cpu()); },
      {"while building the gradient of", "Pad in 'reflect' mode is not supported"});
}

}  // namespace
}  // namespace popart
