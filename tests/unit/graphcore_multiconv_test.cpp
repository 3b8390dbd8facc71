// aiGraphcore multiconv: values against a convolution computed here in double from its
// definition (groups, strides, pads, dilations, input dilations, output padding), the shapes the
// Builder infers, the ONNX node PopART writes (and its import, trimmed bias included), PopART's
// errors, gradients against central finite differences in DOUBLE, and the IPU model's cost.
#include <cmath>

#include "common/test_util.hpp"
#include "common/training_harness.hpp"
#include "onnx.pb.h"
#include "popart/report.hpp"

namespace popart {
namespace {

using test::expectError;

std::vector<float> values(const Shape& s, uint32_t seed) {
  return test::randomFloats(static_cast<size_t>(test::numElements(s)), seed);
}

/// One convolution's parameters (empty: the defaults).
struct ConvParams {
  std::vector<int64_t> strides, pads, dilations, inDilations, outPads;
};

/// The convolution of x [N, C, s...] by w [M, C / g, k...] (+ b [M]) in double, by its definition:
/// x dilated by inDilations and zero-padded, the kernel dilated, every strides-th window, then
/// outPads zeros around the result.
std::vector<double> convRef(const std::vector<float>& x, const Shape& xs, const std::vector<float>& w, const Shape& ws,
                            const std::vector<float>* b, ConvParams p, Shape& outShape) {
  const size_t n = xs.size() - 2;
  auto dflt = [](std::vector<int64_t>& v, size_t len, int64_t d) {
    if (v.empty()) v.assign(len, d);
  };
  dflt(p.strides, n, 1);
  dflt(p.dilations, n, 1);
  dflt(p.inDilations, n, 1);
  dflt(p.pads, 2 * n, 0);
  dflt(p.outPads, 2 * n, 0);
  const int64_t N = xs[0], C = xs[1], M = ws[0], Cg = ws[1], G = C / Cg, Mg = M / G;
  Shape conv{N, M}, out{N, M};
  for (size_t d = 0; d < n; ++d) {
    const int64_t dil = (xs[d + 2] - 1) * p.inDilations[d] + 1;
    const int64_t o = (dil + p.pads[d] + p.pads[d + n] - ((ws[d + 2] - 1) * p.dilations[d] + 1)) / p.strides[d] + 1;
    conv.push_back(o);
    out.push_back(o + p.outPads[d] + p.outPads[d + n]);
  }
  outShape = out;
  std::vector<double> y(static_cast<size_t>(test::numElements(out)), 0.0);
  const int64_t convSpatial = test::numElements(Shape(conv.begin() + 2, conv.end()));
  const int64_t kSpatial = test::numElements(Shape(ws.begin() + 2, ws.end()));
  std::vector<int64_t> o(n), k(n);
  for (int64_t nn = 0; nn < N; ++nn) {
    for (int64_t m = 0; m < M; ++m) {
      const int64_t g = m / Mg;
      for (int64_t oi = 0; oi < convSpatial; ++oi) {
        int64_t r = oi;
        for (size_t d = n; d-- > 0;) {
          o[d] = r % conv[d + 2];
          r /= conv[d + 2];
        }
        double acc = b ? (*b)[static_cast<size_t>(m)] : 0.0;
        for (int64_t c = 0; c < Cg; ++c) {
          for (int64_t ki = 0; ki < kSpatial; ++ki) {
            int64_t kr = ki;
            for (size_t d = n; d-- > 0;) {
              k[d] = kr % ws[d + 2];
              kr /= ws[d + 2];
            }
            int64_t xoff = (nn * C + g * Cg + c), woff = m * Cg + c;
            bool inside = true;
            for (size_t d = 0; d < n; ++d) {
              const int64_t pos = o[d] * p.strides[d] + k[d] * p.dilations[d] - p.pads[d];  // in the dilated input
              if (pos < 0 || pos % p.inDilations[d] != 0 || pos / p.inDilations[d] >= xs[d + 2]) inside = false;
              xoff = xoff * xs[d + 2] + (inside ? pos / p.inDilations[d] : 0);
              woff = woff * ws[d + 2] + k[d];
            }
            if (inside) acc += static_cast<double>(x[static_cast<size_t>(xoff)]) * w[static_cast<size_t>(woff)];
          }
        }
        int64_t yoff = nn * M + m;
        for (size_t d = 0; d < n; ++d) yoff = yoff * out[d + 2] + o[d] + p.outPads[d];
        y[static_cast<size_t>(yoff)] = acc;
      }
    }
  }
  return y;
}

struct Conv {
  Shape xs, ws;
  bool bias;
  ConvParams p;
};

/// Builds multiconv of `convs` with every per-convolution list given (or none when all are
/// defaults) and checks each output against convRef.
void checkMultiConv(const std::vector<Conv>& convs, bool giveLists = true) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  std::map<TensorId, NDArray> feeds;
  MultiConvInputs tensors;
  MultiConvStrides strides;
  MultiConvPads pads, outPads;
  MultiConvDilations dilations, inDilations;
  std::vector<std::vector<double>> want;
  std::vector<Shape> shapes;
  uint32_t seed = 1;
  for (const Conv& c : convs) {
    const auto xv = values(c.xs, seed++), wv = values(c.ws, seed++), bv = values({c.ws[0]}, seed++);
    const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, c.xs));
    const TensorId w = b->addInitializedInputTensor(ConstVoidData(wv.data(), TensorInfo(DataType::FLOAT, c.ws)));
    feeds.emplace(x, NDArray::fromVector(xv, c.xs));
    std::vector<TensorId> t{x, w};
    if (c.bias) {
      const TensorId bi = b->addInputTensor(TensorInfo(DataType::FLOAT, {c.ws[0]}));
      feeds.emplace(bi, NDArray::fromVector(bv, {c.ws[0]}));
      t.push_back(bi);
    }
    tensors.push_back(t);
    strides.push_back(c.p.strides);
    pads.push_back(c.p.pads);
    outPads.push_back(c.p.outPads);
    dilations.push_back(c.p.dilations);
    inDilations.push_back(c.p.inDilations);
    Shape s;
    want.push_back(convRef(xv, c.xs, wv, c.ws, c.bias ? &bv : nullptr, c.p, s));
    shapes.push_back(s);
  }
  if (!giveLists) strides = pads = outPads = dilations = inDilations = {};
  const auto outs = gc.multiconv(tensors, dilations, inDilations, pads, outPads, strides);
  ASSERT_EQ(outs.size(), convs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_EQ(b->getTensorShape(outs[i]), shapes[i]) << i;
    b->addOutputTensor(outs[i]);
  }
  auto r = test::runOnce(b->getModelProto(), feeds, outs);
  for (size_t i = 0; i < outs.size(); ++i) {
    ASSERT_EQ(r.at(outs[i]).shape(), shapes[i]) << i;
    const auto got = r.at(outs[i]).toVector<float>();
    ASSERT_EQ(got.size(), want[i].size());
    for (size_t e = 0; e < got.size(); ++e)
      EXPECT_NEAR(got[e], want[i][e], 1e-5 * (1 + std::abs(want[i][e]))) << "conv " << i << " element " << e;
  }
}

TEST(GraphcoreMultiConv, TwoConvolutionsWithTheirOwnWindows) {
  checkMultiConv({{{1, 6, 5, 5}, {9, 6, 3, 3}, false, {{1, 1}, {2, 2, 2, 2}, {1, 1}, {}, {}}},
                  {{2, 3, 7, 6}, {4, 3, 2, 2}, true, {{2, 1}, {0, 1, 1, 0}, {2, 2}, {}, {}}}});
}

TEST(GraphcoreMultiConv, DefaultsAndMixedRanks) {
  checkMultiConv({{{1, 6, 4, 4}, {9, 6, 3, 3}, false, {}}, {{2, 3, 5, 5}, {4, 3, 2, 2}, false, {}}}, false);
  checkMultiConv({{{2, 2, 9}, {3, 2, 3}, true, {{2}, {1, 2}, {2}, {}, {}}},
                  {{1, 2, 4, 3, 5}, {2, 2, 2, 1, 3}, false, {{1, 1, 2}, {1, 0, 0, 0, 1, 1}, {1, 1, 1}, {}, {}}},
                  {{1, 4, 6, 6}, {4, 2, 3, 3}, true, {{1, 1}, {0, 0, 0, 0}, {1, 1}, {}, {}}}});  // group 2
}

TEST(GraphcoreMultiConv, GroupedAndDepthwise) {
  checkMultiConv({{{2, 4, 6, 6}, {4, 1, 3, 3}, true, {{1, 1}, {1, 1, 1, 1}, {}, {}, {}}},     // depthwise
                  {{1, 6, 5, 5}, {9, 2, 3, 3}, false, {{2, 2}, {1, 1, 1, 1}, {}, {}, {}}}});  // 3 groups
}

TEST(GraphcoreMultiConv, InputDilationsAndOutputPadding) {
  checkMultiConv({{{1, 2, 4, 3}, {3, 2, 2, 2}, true, {{1, 1}, {1, 0, 0, 1}, {1, 1}, {2, 3}, {1, 0, 2, 1}}},
                  {{2, 3, 5}, {2, 3, 3}, false, {{2}, {0, 0}, {2}, {2}, {0, 3}}}});
}

TEST(GraphcoreMultiConv, OneConvolutionEqualsConv) {
  checkMultiConv({{{2, 3, 8, 8}, {5, 3, 3, 3}, true, {{2, 2}, {1, 1, 1, 1}, {1, 1}, {}, {}}}});
}

/// The node PopART's builder writes: inputs x, w, b ("" without bias) per convolution, the lists
/// concatenated, numConvs, and the IPU hints under PopART's attribute names.
TEST(GraphcoreMultiConv, OnnxNodeAsPopartWritesIt) {
  auto b = Builder::create();
  const TensorId x0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 2, 5, 5}));
  const TensorId w0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {3, 2, 3, 3}));
  const TensorId x1 = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 2, 7}));
  const TensorId w1 = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 2, 2}));
  const TensorId b1 = b->addInputTensor(TensorInfo(DataType::FLOAT, {4}));
  const auto outs = b->aiGraphcoreOpset1().multiconv({{x0, w0}, {x1, w1, b1}}, {{1, 1}, {2}}, {},
                                                     {{1, 1, 1, 1}, {0, 1}}, {}, {{2, 2}, {1}}, {0.5f, 0.25f},
                                                     {"float", "HALF"}, std::string("serial"), 8, 0.3f, {1, 0});
  EXPECT_EQ(b->getTensorShape(outs[0]), (Shape{1, 3, 3, 3}));
  EXPECT_EQ(b->getTensorShape(outs[1]), (Shape{1, 4, 6}));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(b->getModelProto()));
  const onnx::NodeProto& n = m.graph().node(0);
  EXPECT_EQ(n.op_type(), "MultiConv");
  EXPECT_EQ(n.domain(), "ai.graphcore");
  ASSERT_EQ(n.input_size(), 6);
  EXPECT_EQ(n.input(2), "");
  EXPECT_EQ(n.input(5), b1);
  std::map<std::string, const onnx::AttributeProto*> a;
  for (const auto& at : n.attribute()) a[at.name()] = &at;
  ASSERT_TRUE(a.count("numConvs"));
  EXPECT_EQ(a["numConvs"]->i(), 2);
  auto ints = [&](const char* k) { return std::vector<int64_t>(a.at(k)->ints().begin(), a.at(k)->ints().end()); };
  EXPECT_EQ(ints("dilations"), (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(ints("pads"), (std::vector<int64_t>{1, 1, 1, 1, 0, 1}));
  EXPECT_EQ(ints("strides"), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(a.count("inDilations") + a.count("outPads"), 0u);  // empty lists are not written
  EXPECT_EQ(ints(sEnableConvDitheringAttribute), (std::vector<int64_t>{1, 0}));
  ASSERT_EQ(a.at(sAvailMemAttribute)->floats_size(), 2);
  EXPECT_FLOAT_EQ(a.at(sAvailMemAttribute)->floats(1), 0.25f);
  ASSERT_EQ(a.at(sPartialsTypeAttribute)->strings_size(), 2);
  EXPECT_EQ(a.at(sPartialsTypeAttribute)->strings(1), "HALF");
  EXPECT_EQ(a.at("planType")->s(), "serial");
  EXPECT_EQ(a.at("perConvReservedTiles")->i(), 8);
  EXPECT_FLOAT_EQ(a.at("cycleBackOff")->f(), 0.3f);
}

/// A MultiConv node written by another tool: the last convolution's absent bias left out (5
/// inputs for 2 convolutions); the IPU hints do not change the values.
TEST(GraphcoreMultiConv, ImportsANodeWithTheLastBiasLeftOut) {
  auto b = Builder::create();
  const Shape xs0{1, 2, 4, 4}, ws0{2, 2, 3, 3}, xs1{1, 1, 5}, ws1{2, 1, 2};
  const auto xv0 = values(xs0, 1), wv0 = values(ws0, 2), bv0 = values({2}, 3), xv1 = values(xs1, 4),
             wv1 = values(ws1, 5);
  std::map<TensorId, NDArray> feeds;
  auto in = [&](const std::vector<float>& v, const Shape& s) {
    const TensorId id = b->addInputTensor(TensorInfo(DataType::FLOAT, s));
    feeds.emplace(id, NDArray::fromVector(v, s));
    return id;
  };
  const TensorId x0 = in(xv0, xs0), w0 = in(wv0, ws0), b0 = in(bv0, {2}), x1 = in(xv1, xs1), w1 = in(wv1, ws1);
  const auto outs = b->customOp(OperatorIdentifier("ai.graphcore", "MultiConv", 1), 1, {x0, w0, b0, x1, w1}, 2,
                                {{"numConvs", int64_t{2}},
                                 {"pads", std::vector<int64_t>{1, 1, 1, 1, 0, 0}},
                                 {"__partials_type", std::vector<std::string>{"half", "half"}}});
  for (const auto& o : outs) b->addOutputTensor(o);
  auto r = test::runOnce(b->getModelProto(), feeds, outs);
  Shape s0, s1;
  const auto want0 = convRef(xv0, xs0, wv0, ws0, &bv0, {{}, {1, 1, 1, 1}, {}, {}, {}}, s0);
  const auto want1 = convRef(xv1, xs1, wv1, ws1, nullptr, {}, s1);
  EXPECT_EQ(r.at(outs[0]).shape(), s0);
  EXPECT_EQ(r.at(outs[1]).shape(), s1);
  const auto g0 = r.at(outs[0]).toVector<float>(), g1 = r.at(outs[1]).toVector<float>();
  for (size_t i = 0; i < g0.size(); ++i) EXPECT_NEAR(g0[i], want0[i], 1e-5) << i;
  for (size_t i = 0; i < g1.size(); ++i) EXPECT_NEAR(g1[i], want1[i], 1e-5) << i;
}

TEST(GraphcoreMultiConv, PopartErrors) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId d0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 2, 4, 4}));
  const TensorId f0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {10, 2, 3, 3}));
  expectError(
      [&] {
        gc.multiconv({{d0, f0}, {d0, f0}}, {{1, 1}, {2, 2, 2}});
      },
      {"Length of dilations vector 3 != number of spatial dimensions 2"});
  expectError(
      [&] {
        gc.multiconv({{d0, f0}, {d0, f0}}, {{1, 1}, {2, 2}, {3, 3}});
      },
      {"For MultiConvOp", "number of dilations parameter sets (3) does not match the number of input sets (2)"});
  expectError([&] { gc.multiconv({{d0}, {d0, f0}}); }, {"must have at least two inputs - data and weights"});
  expectError(
      [&] {
        gc.multiconv({{d0, f0, d0, f0}, {d0, f0}});
      },
      {"can have at most three inputs - data, weights, and bias"});
  expectError([&] { gc.multiconv({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, DebugContext("mc")); },
              {"MultiConvOp 'mc' has no input tensors. Provide at least one set of inputs"});
  expectError(
      [&] {
        gc.multiconv({{d0, f0}}, {}, {}, {{1, 1}});
      },
      {"Padding vector (length 2) does not have 2 values for each spatial dimension 2"});
  expectError(
      [&] {
        gc.multiconv({{d0, f0}}, {}, {}, {}, {}, {{1}});
      },
      {"Length of strides vector 1 != number of spatial dimensions 2"});
  expectError(
      [&] {
        gc.multiconv({{d0, f0}}, {}, {}, {}, {}, {}, {0.5f, 0.5f});
      },
      {"number of availableMemoryProportions parameter sets (2) does not match the number of input sets (1)"});
  expectError(
      [&] {
        gc.multiconv({{d0, f0}}, {}, {}, {}, {}, {}, {1.5f});
      },
      {"availableMemoryProportion must be in (0,1]"});
  expectError([&] { gc.multiconv({{d0, f0}}, {}, {}, {}, {}, {}, {}, {"double"}); }, {"Bad partialsType 'double'"});
  // PopART concatenates the lists: one convolution without its list while another has one
  // cannot be split back.
  expectError(
      [&] {
        gc.multiconv({{d0, f0}, {d0, f0}}, {}, {}, {}, {}, {{2, 2}, {}});
      },
      {"Unexpected number of stride parameters for convolution op", "convolution 1 has none"});
  // The generic entry point refuses a flat list for a groups method.
  expectError([&] { gc.callMethod("multiconv", {d0, f0}); }, {"one list per group"});
}

/// Shape inference's errors, with the node, when the session is created.
void expectSessionError(Builder& b, const std::vector<TensorId>& outs, const std::vector<std::string>& words) {
  for (const auto& o : outs) b.addOutputTensor(o);
  expectError([&] { InferenceSession::createFromOnnxModel(b.getModelProto(), DataFlow(1, outs), test::cpu()); }, words);
}

TEST(GraphcoreMultiConv, ShapeInferenceErrors) {
  {  // A window larger than the padded input.
    auto b = Builder::create();
    const TensorId d0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 2, 4, 4}));
    const TensorId big = b->addInputTensor(TensorInfo(DataType::FLOAT, {10, 2, 5, 5}));
    expectSessionError(*b, b->aiGraphcoreOpset1().multiconv({{d0, big}}),
                       {"Window parameter values combine to give invalid spatial output shape", "MultiConv"});
  }
  {  // Group count: C must be a multiple of W[1].
    auto b = Builder::create();
    const TensorId d0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 2, 4, 4}));
    const TensorId f3 = b->addInputTensor(TensorInfo(DataType::FLOAT, {4, 3, 1, 1}));
    expectSessionError(*b, b->aiGraphcoreOpset1().multiconv({{d0, f3}}), {"not a multiple of W's second dimension"});
  }
}

TEST(GraphcoreMultiConv, ImportedListsThatDoNotUnpack) {
  auto b = Builder::create();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 2, 4, 4}));
  const TensorId w = b->addInputTensor(TensorInfo(DataType::FLOAT, {3, 2, 3, 3}));
  const auto outs = b->customOp(OperatorIdentifier("ai.graphcore", "MultiConv", 1), 1, {x, w, "", x, w, ""}, 2,
                                {{"numConvs", int64_t{2}}, {"strides", std::vector<int64_t>{1, 1, 1}}});
  expectSessionError(
      *b, outs, {"Unexpected number of stride parameters for convolution op", "strides [1 1 1] must have 4 entries"});
}

// ---------------------------------------------------------------- gradients

TEST(GraphcoreMultiConvGrad, DataWeightsAndBiasOfEachConvolution) {
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x0 = mb.weight({2, 4, 5, 4}, 1), w0 = mb.weight({6, 2, 3, 2}, 2), b0 = mb.weight({6}, 3);
  const auto x1 = mb.weight({1, 2, 7}, 4), w1 = mb.weight({3, 2, 3}, 5);
  const auto outs =
      gc.multiconv({{x0, w0, b0}, {x1, w1}}, {{1, 2}, {2}}, {}, {{1, 0, 1, 1}, {1, 2}}, {}, {{2, 1}, {1}});
  ASSERT_EQ(mb.b->getTensorShape(outs[0]), (Shape{2, 6, 3, 3}));
  const auto l0 = mb.weightedSum(ai, outs[0], {2, 6, 3, 3}, 6);
  const auto l1 = mb.weightedSum(ai, outs[1], mb.b->getTensorShape(outs[1]), 7);
  test::checkGradients(mb, ai.add({l0, l1}));
}

TEST(GraphcoreMultiConvGrad, InputDilationsAndOutputPadding) {
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.weight({1, 2, 3, 4}, 1), w = mb.weight({3, 2, 2, 2}, 2), bias = mb.weight({3}, 3);
  const auto outs = gc.multiconv({{x, w, bias}}, {{1, 2}}, {{2, 3}}, {{1, 0, 0, 1}}, {{0, 1, 2, 0}}, {{1, 2}});
  const Shape s = mb.b->getTensorShape(outs[0]);
  test::checkGradients(mb, mb.weightedSum(ai, outs[0], s, 4));
}

TEST(GraphcoreMultiConvGrad, OnlyTheUsedOutputsGetGradients) {
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x0 = mb.weight({1, 2, 4, 4}, 1), w0 = mb.weight({2, 2, 3, 3}, 2);
  const auto x1 = mb.weight({1, 2, 4, 4}, 3), w1 = mb.weight({2, 2, 3, 3}, 4);
  const auto outs = gc.multiconv({{x0, w0}, {x1, w1}});
  // The second convolution's output is unused: x1 and w1 reach the loss only through sums.
  const auto rest = ai.add({gc.identityloss({x1}, ReductionType::Sum), gc.identityloss({w1}, ReductionType::Sum)});
  test::checkGradients(mb, ai.add({mb.weightedSum(ai, outs[0], {1, 2, 2, 2}, 5), rest}));
}

// ---------------------------------------------------------------- IPU model

TEST(GraphcoreMultiConv, IpuModelCostsTheSumOfTheConvolutions) {
  auto b = Builder::create();
  const TensorId x0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {2, 8, 16, 16}));
  const TensorId w0 = b->addInputTensor(TensorInfo(DataType::FLOAT, {16, 8, 3, 3}));
  const TensorId x1 = b->addInputTensor(TensorInfo(DataType::FLOAT, {1, 4, 10}));
  const TensorId w1 = b->addInputTensor(TensorInfo(DataType::FLOAT, {6, 2, 3}));
  const auto outs = b->aiGraphcoreOpset1().multiconv({{x0, w0}, {x1, w1}}, {}, {}, {{1, 1, 1, 1}, {0, 0}});
  for (const auto& o : outs) b->addOutputTensor(o);
  auto s = InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, outs),
                                                 DeviceManager::createDeviceManager().createOfflineIPUDevice());
  s->prepareDevice();
  const report::Compilation c = s->getReport().compilation;
  const report::Op* mc = nullptr;
  for (const auto& op : c.ops)
    if (op.type == "MultiConv") mc = &op;
  ASSERT_NE(mc, nullptr);
  // 2 FLOPs per multiply-accumulate: out0 [2, 16, 16, 16] x (8 x 3 x 3), out1 [1, 6, 8] x (2 x 3).
  EXPECT_EQ(mc->flops, 2 * (2 * 16 * 16 * 16 * 8 * 9 + 1 * 6 * 8 * 2 * 3));
  EXPECT_GT(mc->computeCycles, 0);
}

}  // namespace
}  // namespace popart
