// The grad rules of the elementwise, activation and reduction families against central finite
// differences in double precision: each model's loss is sum(op(inputs) * c) for a random input c,
// and the harness checks the gradient of every input (anchored `Gradient___<input>`).
#include <cmath>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using namespace test;

/// Each unary op over inputs drawn from [lo, hi): sum(op(x) * c) summed over the ops.
template <typename F>
void checkUnary(double lo, double hi, F op, const Shape& s = {2, 3}) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.input(s, 1, lo, hi);
  checkGradients(mb, mb.weightedSum(ai, op(ai, gc, x), s, 2));
}

TEST(GradRules, Trigonometric) {
  checkUnary(-1.2, 1.2, [](auto& ai, auto&, auto x) { return ai.sin({x}); });
  checkUnary(-1.2, 1.2, [](auto& ai, auto&, auto x) { return ai.cos({x}); });
  checkUnary(-1.2, 1.2, [](auto& ai, auto&, auto x) { return ai.tan({x}); });
  checkUnary(-0.9, 0.9, [](auto& ai, auto&, auto x) { return ai.asin({x}); });
  checkUnary(-0.9, 0.9, [](auto& ai, auto&, auto x) { return ai.acos({x}); });
  checkUnary(-3, 3, [](auto& ai, auto&, auto x) { return ai.atan({x}); });
}

TEST(GradRules, Hyperbolic) {
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.sinh({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.cosh({x}); });
  checkUnary(-3, 3, [](auto& ai, auto&, auto x) { return ai.asinh({x}); });
  checkUnary(1.2, 3, [](auto& ai, auto&, auto x) { return ai.acosh({x}); });
  checkUnary(-0.9, 0.9, [](auto& ai, auto&, auto x) { return ai.atanh({x}); });
}

TEST(GradRules, OtherUnary) {
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.abs({x}); });
  checkUnary(0.5, 2, [](auto& ai, auto&, auto x) { return ai.reciprocal({x}); });
  checkUnary(-2, 2, [](auto&, auto& gc, auto x) { return gc.expm1({x}); });
  checkUnary(-0.5, 2, [](auto&, auto& gc, auto x) { return gc.log1p({x}); });
  // piecewise constant: a zero gradient (away from the steps)
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.floor({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.ceil({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.round({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.sign({x}); });
  checkUnary(-2, 2, [](auto&, auto& gc, auto x) { return gc.round({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.hardmax({x}); });
}

TEST(GradRules, Activations) {
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.leakyrelu({x}, 0.3f); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.elu({x}, 0.7f); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.selu({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.celu({x}, 1.5f); });
  checkUnary(-4, 4, [](auto& ai, auto&, auto x) { return ai.hardsigmoid({x}, 0.3f, 0.4f); });
  checkUnary(-4, 4, [](auto& ai, auto&, auto x) { return ai.hardswish({x}); }, {4, 5});
  checkUnary(-3, 3, [](auto& ai, auto&, auto x) { return ai.softplus({x}); });
  checkUnary(-3, 3, [](auto& ai, auto&, auto x) { return ai.softsign({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.thresholdedrelu({x}, 0.4f); });
  checkUnary(-3, 3, [](auto&, auto& gc, auto x) { return gc.swish({x}); });
  checkUnary(-2, 2, [](auto& ai, auto&, auto x) { return ai.shrink({x}, 0.3f, 0.6f); });
}

TEST(GradRules, ClipWithTensorBoundsAndPRelu) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({3, 4}, 3, -2, 2);
  const auto lo = mb.input({}, 4, -1.0, -0.5), hi = mb.input({}, 5, 0.5, 1.0);
  const auto y = ai.clip({x, lo, hi});
  const auto slope = mb.input({4}, 6);
  const auto p = ai.prelu({x, slope});
  checkGradients(mb, ai.add({mb.weightedSum(ai, y, {3, 4}, 7), mb.weightedSum(ai, p, {3, 4}, 8)}));
}

TEST(GradRules, Binary) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto a = mb.input({2, 3}, 10, 0.5, 4), b = mb.input({3}, 11, 0.6, 1.5), nb = mb.input({2, 1}, 12, -1.5, -0.6);
  const auto y = mb.input({2, 3}, 13, -2, 2), x = mb.input({2, 3}, 14, 0.5, 2);
  const auto terms = std::vector<TensorId>{
      mb.weightedSum(ai, ai.mod({a, b}, 1), {2, 3}, 20),
      mb.weightedSum(ai, gc.fmod({a, nb}), {2, 3}, 21),
      mb.weightedSum(ai, gc.remainder({a, nb}), {2, 3}, 22),
      mb.weightedSum(ai, gc.atan2({y, x}), {2, 3}, 23),
      mb.weightedSum(ai, ai.max({a, b, y}), {2, 3}, 24),
      mb.weightedSum(ai, ai.min({a, nb, y}), {2, 3}, 25),
      mb.weightedSum(ai, ai.mean({a, b, nb}), {2, 3}, 26),
      mb.weightedSum(ai, gc.scaledadd({a, y}, 0.5f, -2.0f), {2, 3}, 27),
      // fmod=0 on floats (PopART's Mod: the divisor's sign, np.mod) and ScaledAdd's tensor scales.
      mb.weightedSum(ai, ai.mod({a, nb}, 0), {2, 3}, 28),
      mb.weightedSum(ai, gc.scaledadd({a, y, mb.input({1}, 15, 0.5, 1.5), mb.input({1}, 16, -2, -1)}), {2, 3}, 29),
  };
  checkGradients(mb, ai.sum(terms));
}

// MatMul with 1-D operands (NumPy / ONNX: A [K] is promoted to [1 K], B [K] to [K 1], and the
// added 1 removed from the result), batched on the other operand: each operand's gradient.
TEST(GradRules, MatMulWithOneDimensionalOperands) {
  const std::vector<std::pair<Shape, Shape>> cases{{{3}, {3}},         {{3}, {3, 2}},    {{2, 3}, {3}},
                                                   {{3}, {4, 3, 2}},   {{2, 2, 3}, {3}}, {{1}, {4, 2, 1, 3}},
                                                   {{1, 4, 3, 2}, {2}}};
  for (const auto& [sa, sb] : cases) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset14();
    const auto a = mb.input(sa, 30), b = mb.input(sb, 31);
    Shape out = npOut(sa.size() > 2 ? Shape(sa.begin(), sa.end() - 2) : Shape{},
                      sb.size() > 2 ? Shape(sb.begin(), sb.end() - 2) : Shape{});
    if (sa.size() > 1) out.push_back(sa[sa.size() - 2]);
    if (sb.size() > 1) out.push_back(sb.back());
    checkGradients(mb, mb.weightedSum(ai, ai.matmul({a, b}), out, 32));
  }
}

TEST(GradRules, Reductions) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.input({2, 3, 4}, 30, 0.2, 1.5);
  const auto s = mb.input({2, 3, 4}, 31, -1, 1);
  const std::vector<int64_t> ax{1};
  const std::vector<int64_t> ax02{0, 2};
  const auto terms = std::vector<TensorId>{
      mb.weightedSum(ai, ai.reducemax({s}, ax, 1), {2, 1, 4}, 40),
      mb.weightedSum(ai, ai.reducemin({s}, ax02, 0), {3}, 41),
      mb.weightedSum(ai, ai.reduceprod({s}, ax, 0), {2, 4}, 42),
      mb.weightedSum(ai, ai.reducel1({s}, ax02, 1), {1, 3, 1}, 43),
      mb.weightedSum(ai, ai.reducel2({s}, ax, 0), {2, 4}, 44),
      mb.weightedSum(ai, ai.reducelogsum({x}, ax, 0), {2, 4}, 45),
      mb.weightedSum(ai, ai.reducelogsumexp({s}, {}, 0), {}, 46),
      mb.weightedSum(ai, ai.reducesumsquare({s}, ax02, 0), {3}, 47),
  };
  checkGradients(mb, ai.sum(terms));
}

TEST(GradRules, ReduceProdWithZeros) {
  // Groups with no zero, one zero and two zeros: the products of the other elements, exactly.
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  const auto x = mb.input({3, 3}, 50);
  mb.inputs.at(x) = NDArray::fromVector(std::vector<double>{0.5, 2, -3, 0, 4, 1.5, 0, 0, 7}, {3, 3});
  const std::vector<int64_t> ax{1};
  const auto p = ai.reduceprod({x}, ax, 0);
  const auto loss = mb.b->aiGraphcoreOpset1().identityloss({p}, ReductionType::Sum);
  const Model m = mb.finish(loss);
  auto anchors = trainingAnchors(m, {std::string(reservedGradientPrefix()) + x});
  const auto g = gradOf(anchors, x);
  const std::vector<double> want{-6, -1.5, 1, 6, 0, 0, 0, 0, 0};
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_DOUBLE_EQ(g[i], want[i]) << i;
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

using namespace test;

TensorId boolsOf(Builder& b, const std::vector<uint8_t>& v) {
  return b.aiOnnxOpset14().constant(
      ConstVoidData(v.data(), TensorInfo(DataType::BOOL, {static_cast<int64_t>(v.size())})));
}

TEST(GradRules, TileSubsampleCompressTrilu) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.input({2, 3}, 60);
  const auto t = ai.tile({x, constant<int64_t>(ai, {3, 2}, {2})});    // [6, 6]
  const auto s = gc.subsample({t}, {4, 2});                           // [2, 3]
  const auto c0 = ai.compress({x, boolsOf(*mb.b, {1, 0, 1})}, 1);     // [2, 2]
  const auto c1 = ai.compress({x, boolsOf(*mb.b, {0, 1, 1, 0, 1})});  // [3]
  const auto m = mb.input({4, 4}, 61);
  const auto lower = ai.trilu({m, constant<int64_t>(ai, {1}, {})}, 0);
  const auto upper = ai.trilu({m}, 1);
  checkGradients(mb, ai.sum({mb.weightedSum(ai, t, {6, 6}, 62), mb.weightedSum(ai, s, {2, 3}, 63),
                             mb.weightedSum(ai, c0, {2, 2}, 64), mb.weightedSum(ai, c1, {3}, 65),
                             mb.weightedSum(ai, lower, {4, 4}, 66), mb.weightedSum(ai, upper, {4, 4}, 67)}));
}

TEST(GradRules, GatherAndScatterFamilies) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({3, 4}, 70);
  // repeated indices: their gradients add up
  const auto ge = ai.gatherelements({x, constant<int64_t>(ai, {0, 2, 2, 1, 1, 1, 0, 2}, {2, 4})}, 0);
  const auto gn = ai.gathernd({x, constant<int64_t>(ai, {2, 1, 0, 2, 2, 1}, {3, 2})});  // [3]
  const auto gr = ai.gathernd({x, constant<int64_t>(ai, {1, 1}, {2, 1})});              // rows: [2, 4]
  const auto upd = mb.input({2, 2}, 71);
  const auto se = ai.scatterelements({x, constant<int64_t>(ai, {1, 3, 0, 2}, {2, 2}), upd}, 1);
  const auto upd2 = mb.input({2}, 72);
  const auto sn = ai.scatternd({x, constant<int64_t>(ai, {0, 1, 2, 3}, {2, 2}), upd2});
  const auto tk = ai.topk({x, constant<int64_t>(ai, {2}, {1})}, 1);  // values along the last axis
  checkGradients(mb, ai.sum({mb.weightedSum(ai, ge, {2, 4}, 73), mb.weightedSum(ai, gn, {3}, 74),
                             mb.weightedSum(ai, gr, {2, 4}, 75), mb.weightedSum(ai, se, {3, 4}, 76),
                             mb.weightedSum(ai, sn, {3, 4}, 77), mb.weightedSum(ai, tk[0], {3, 2}, 78)}));
}

TEST(GradRules, CumSumDepthSpaceOneHot) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({2, 5}, 80);
  const auto axis = constant<int64_t>(ai, {1}, {});
  const auto terms = std::vector<TensorId>{
      mb.weightedSum(ai, ai.cumsum({x, axis}), {2, 5}, 81),
      mb.weightedSum(ai, ai.cumsum({x, axis}, 1, 0), {2, 5}, 82),
      mb.weightedSum(ai, ai.cumsum({x, axis}, 0, 1), {2, 5}, 83),
      mb.weightedSum(ai, ai.cumsum({x, axis}, 1, 1), {2, 5}, 84),
  };
  const auto y = mb.input({1, 8, 2, 3}, 85);
  const auto dcr = ai.depthtospace({y}, 2, "DCR");  // [1, 2, 4, 6]
  const auto crd = ai.depthtospace({y}, 2, "CRD");
  const auto s2d = ai.spacetodepth({dcr}, 2);  // back to [1, 8, 2, 3]
  const auto values = mb.input({2}, 86);
  const auto oh = ai.onehot({constant<int64_t>(ai, {0, 3, 1}, {3}), constant<int64_t>(ai, {4}, {}), values}, 0);
  auto all = terms;
  all.push_back(mb.weightedSum(ai, crd, {1, 2, 4, 6}, 87));
  all.push_back(mb.weightedSum(ai, s2d, {1, 8, 2, 3}, 88));
  all.push_back(mb.weightedSum(ai, oh, {4, 3}, 89));
  checkGradients(mb, ai.sum(all));
}

TEST(GradRules, ReverseSequenceMaxUnpoolLRN) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({4, 2, 3}, 90);
  const auto rs = ai.reversesequence({x, constant<int64_t>(ai, {3, 1}, {2})}, 1, 0);
  const auto p = mb.input({1, 1, 2, 2}, 91);
  const auto idx = constant<int64_t>(ai, {0, 3, 9, 14}, {1, 1, 2, 2});
  const auto up = ai.maxunpool({p, idx}, {2, 2}, {}, {2, 2});  // [1, 1, 4, 4]
  const auto cropped = ai.maxunpool({p, idx, constant<int64_t>(ai, {1, 1, 3, 3}, {4})}, {2, 2}, {}, {2, 2});
  const auto l = mb.input({2, 5, 2, 2}, 92);
  const auto lrn4 = ai.lrn({l}, 4, 0.3f, 0.6f, 1.5f);
  const auto lrn3 = ai.lrn({l}, 3, 0.5f, 0.75f, 2.0f);
  checkGradients(mb, ai.sum({mb.weightedSum(ai, rs, {4, 2, 3}, 93), mb.weightedSum(ai, up, {1, 1, 4, 4}, 94),
                             mb.weightedSum(ai, cropped, {1, 1, 3, 3}, 95), mb.weightedSum(ai, lrn4, {2, 5, 2, 2}, 96),
                             mb.weightedSum(ai, lrn3, {2, 5, 2, 2}, 97)}));
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

using namespace test;

TensorId int64s(Builder& b, const std::vector<int64_t>& v, const Shape& s) {
  return b.aiOnnxOpset14().constant(ConstVoidData(v.data(), TensorInfo(DataType::INT64, s)));
}

TEST(GradRules, OnnxLossesWithWeightsAndIgnoreIndex) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({3, 4, 2}, 100);  // [N, C, d]
  const auto lp = ai.logsoftmax({x}, 1);
  const auto target = int64s(*mb.b, {0, 3, 2, 2, 1, 0}, {3, 2});
  const auto w = mb.input({4}, 101, 0.5, 1.5);
  const auto l1 = ai.negativeloglikelihoodloss({lp, target, w}, 2, "mean");
  const auto l2 = ai.negativeloglikelihoodloss({lp, target}, {}, "sum");
  const auto l3 = ai.negativeloglikelihoodloss({lp, target, w}, 0, "none");  // [3, 2]
  const auto sce = ai.softmaxcrossentropyloss({x, target, w}, 2, 3, "mean");
  const auto sceNone = ai.softmaxcrossentropyloss({x, target}, 1, {}, "none");
  checkGradients(mb, ai.sum({l1, l2, mb.weightedSum(ai, l3, {3, 2}, 102), sce[0],
                             mb.weightedSum(ai, sce[1], {3, 4, 2}, 103), mb.weightedSum(ai, sceNone[0], {3, 2}, 104)}));
}

TEST(GradRules, InstanceNormalization) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({2, 3, 2, 3}, 110);
  const auto scale = mb.input({3}, 111), bias = mb.input({3}, 112);
  const auto y = ai.instancenormalization({x, scale, bias}, 1e-3f);
  checkGradients(mb, mb.weightedSum(ai, y, {2, 3, 2, 3}, 113));
}

TEST(GradRules, MeanVarianceNormalization) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({2, 3, 2, 3}, 114);
  const auto y = ai.meanvariancenormalization({x});            // the default axes [0, 2, 3]
  const auto y1 = ai.meanvariancenormalization({x}, {1, -1});  // other axes
  checkGradients(mb, ai.add({mb.weightedSum(ai, y, {2, 3, 2, 3}, 115), mb.weightedSum(ai, y1, {2, 3, 2, 3}, 116)}));
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

using namespace test;

TEST(GradRules, ConvTranspose) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  // 2-D: strides, pads, dilations, output_padding, groups, bias
  const auto x = mb.input({2, 4, 3, 3}, 120);
  const auto w = mb.input({4, 3, 3, 2}, 121);  // [C, M / group, k...], group 2: M = 6
  const auto b = mb.input({6}, 122);
  const auto y = ai.convtranspose({x, w, b}, {2, 1}, 2, {}, {1, 0}, {}, {1, 0, 0, 1}, {2, 2});
  // 1-D, plain
  const auto x1 = mb.input({1, 2, 4}, 123), w1 = mb.input({2, 3, 3}, 124);
  const auto y1 = ai.convtranspose({x1, w1});
  const auto loss = ai.sum({mb.weightedSum(ai, y, {2, 6, 9, 5}, 125), mb.weightedSum(ai, y1, {1, 3, 6}, 126)});
  checkGradients(mb, loss);
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

using namespace test;

TensorId floats(Builder& b, const std::vector<float>& v) {
  return b.aiOnnxOpset14().constant(
      ConstVoidData(v.data(), TensorInfo(DataType::FLOAT, {static_cast<int64_t>(v.size())})));
}

TEST(GradRules, ResizeEveryMode) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({1, 2, 3, 4}, 130);
  const TensorId noRoi = "";
  const auto scales = floats(*mb.b, {1, 1, 1.5f, 0.75f});
  const std::vector<int64_t> sz{1, 2, 5, 7};
  const auto sizes = ai.constant(ConstVoidData(sz.data(), TensorInfo(DataType::INT64, {4})));
  const auto lin = ai.resize({x, noRoi, scales}, "half_pixel", -0.75f, 0, 0.0f, "linear");  // [1, 2, 4, 3]
  const auto cub = ai.resize({x, noRoi, "", sizes}, "align_corners", -0.5f, 0, 0.0f, "cubic");
  const auto cubEx = ai.resize({x, noRoi, scales}, "pytorch_half_pixel", -0.75f, 1, 0.0f, "cubic");
  const auto near = ai.resize({x, noRoi, "", sizes}, "asymmetric", -0.75f, 0, 0.0f, "nearest", "ceil");
  const auto roi = floats(*mb.b, {0, 0, 0.2f, 0.1f, 1, 1, 0.9f, 1.2f});
  const auto crop = ai.resize({x, roi, "", sizes}, "tf_crop_and_resize", -0.75f, 0, 0.5f, "linear");
  checkGradients(mb, ai.sum({mb.weightedSum(ai, lin, {1, 2, 4, 3}, 131), mb.weightedSum(ai, cub, {1, 2, 5, 7}, 132),
                             mb.weightedSum(ai, cubEx, {1, 2, 4, 3}, 133), mb.weightedSum(ai, near, {1, 2, 5, 7}, 134),
                             mb.weightedSum(ai, crop, {1, 2, 5, 7}, 135)}));
}

TEST(GradRules, UpsampleOpset9) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset9();
  const auto x = mb.input({1, 1, 2, 3}, 140);
  const std::vector<float> sc{1, 1, 2, 1.5f};
  const auto scales = ai.constant(ConstVoidData(sc.data(), TensorInfo(DataType::FLOAT, {4})));
  const auto up = ai.upsample({x, scales}, "linear");  // [1, 1, 4, 4]
  checkGradients(mb, mb.weightedSum(ai, up, {1, 1, 4, 4}, 141));
}

}  // namespace
}  // namespace popart

namespace popart {
namespace {

using namespace test;

TEST(GradRules, EinsumAndDet) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto a = mb.input({2, 3}, 150), b = mb.input({3, 4}, 151), v = mb.input({4}, 152);
  const auto e1 = ai.einsum({a, b}, "ij,jk->ik");
  const auto e2 = ai.einsum({a, b, v}, "ij,jk,k->i");
  const auto e3 = ai.einsum({a}, "ij->");      // a label only one operand sums
  const auto e4 = ai.einsum({a, b}, "ij,jk");  // implicit output: ik
  const auto m = mb.input({2, 3, 3}, 153);
  const auto d = ai.det({m});
  checkGradients(mb, ai.sum({mb.weightedSum(ai, e1, {2, 4}, 154), mb.weightedSum(ai, e2, {2}, 155), e3,
                             mb.weightedSum(ai, e4, {2, 4}, 156), mb.weightedSum(ai, d, {2}, 157)}));
}

TEST(GradRules, DftEveryForm) {
  // Real and complex inputs, forward and inverse, onesided, dft_length cutting and padding the
  // signal, a signal axis other than 1 (rank 4) and a negative axis.
  struct Case {
    Shape x;
    int64_t axis, inverse, onesided, length;  // length 0: no dft_length input
  };
  const std::vector<Case> cases{{{2, 6, 1}, 1, 0, 0, 0}, {{2, 6, 1}, 1, 0, 1, 0},    {{2, 5, 2}, 1, 1, 0, 0},
                                {{2, 5, 2}, 1, 0, 1, 0}, {{2, 6, 2}, 1, 0, 0, 4},    {{2, 6, 1}, 1, 0, 1, 8},
                                {{2, 6, 2}, 1, 1, 0, 9}, {{2, 3, 4, 2}, 2, 0, 0, 0}, {{2, 3, 4, 1}, -2, 0, 1, 0}};
  uint32_t seed = 160;
  for (const Case& k : cases) {
    std::string xs;
    for (int64_t d : k.x) xs += std::to_string(d) + " ";
    SCOPED_TRACE("x [" + xs + "] axis " + std::to_string(k.axis) + " inverse " + std::to_string(k.inverse) +
                 " onesided " + std::to_string(k.onesided) + " dft_length " + std::to_string(k.length));
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset17();
    const auto x = mb.input(k.x, seed++);
    std::vector<TensorId> args{x};
    if (k.length > 0) args.push_back(ai.constant(ConstVoidData(&k.length, TensorInfo(DataType::INT64, {}))));
    const auto y = ai.dft(args, k.axis, k.inverse, k.onesided);
    checkGradients(mb, mb.weightedSum(ai, y, mb.b->getTensorShape(y), seed++));
  }
}

TEST(GradRules, StftWithAndWithoutWindow) {
  // A real signal with a window (a weight: its gradient is checked too), onesided; a complex
  // signal with frame_length and no window, two-sided; frames that overlap (step < length).
  for (int complexIn = 0; complexIn < 2; ++complexIn) {
    SCOPED_TRACE(complexIn ? "complex, no window" : "real, window");
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset17();
    const auto x = mb.input({2, 13, complexIn ? 2 : 1}, 170);
    const int64_t step = complexIn ? 2 : 3, frame = complexIn ? 4 : 5;
    const auto stepId = ai.constant(ConstVoidData(&step, TensorInfo(DataType::INT64, {})));
    std::vector<TensorId> args{x, stepId};
    if (complexIn) {
      args.push_back("");
      args.push_back(ai.constant(ConstVoidData(&frame, TensorInfo(DataType::INT64, {}))));
    } else {
      args.push_back(mb.weight({frame}, 171, 0.2, 1.0));
    }
    const auto y = ai.stft(args, complexIn ? 0 : 1);
    checkGradients(mb, mb.weightedSum(ai, y, mb.b->getTensorShape(y), 172));
  }
}

TEST(GradRules, DetOfSingularMatrices) {
  // d det / dA is the cofactor matrix, also where A is singular (rank n - 1, rows 0 and 1
  // dependent): the reference computes it from the 2x2 minors.
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({3, 3}, 160);
  const std::vector<double> av{1, 2, 3, 2, 4, 6, 0, 1, 1};
  mb.inputs.at(x) = NDArray::fromVector(av, {3, 3});
  const Model mdl = mb.finish(mb.b->aiGraphcoreOpset1().identityloss({ai.det({x})}, ReductionType::Sum));
  auto anchors = trainingAnchors(mdl, {std::string(reservedGradientPrefix()) + x});
  const auto g = gradOf(anchors, x);
  auto at = [&](int r, int c) { return av[static_cast<size_t>(r * 3 + c)]; };
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      std::vector<double> minor;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          if (r != i && c != j) minor.push_back(at(r, c));
      const double cof = ((i + j) % 2 ? -1 : 1) * (minor[0] * minor[3] - minor[1] * minor[2]);
      EXPECT_NEAR(g[static_cast<size_t>(i * 3 + j)], cof, 1e-12) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace popart
