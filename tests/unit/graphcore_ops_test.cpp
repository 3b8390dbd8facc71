// Graphcore's (ai.graphcore) elementwise, rearrangement, utility and collective ops through
// aiGraphcoreOpset1: values against references computed here in double precision, the gradients
// against central finite differences in DOUBLE, and the errors they raise.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using test::asDoubles;
using test::expectError;
using test::expectNear;

/// A model under construction (Graphcore ops at hand) and its input values: build, then run().
struct Graph1 : test::Net {
  AiGraphcoreOpset1 gc = b->aiGraphcoreOpset1();
};

/// The error of a session on the model `make` builds: setup errors come before any input is read,
/// so the inputs need no values. (The Builder's own shape inference only warns.)
void expectModelError(const std::function<TensorId(Graph1&)>& make, const std::vector<std::string>& parts) {
  Graph1 g;
  const TensorId out = make(g);
  expectError([&] { g.run({out}); }, parts);
}

TensorId floatInput(Graph1& g, const Shape& s, const char* type = "FLOAT") {
  return g.b->addInputTensor(TensorInfo(type, s));
}

// ------------------------------------------------------------------ elementwise

TEST(GraphcoreOps, BitwiseOpsOfIntegers) {
  Graph1 g;
  const std::vector<int32_t> a{5, -6, 0x0f0f, -1, 123456, 7};
  const std::vector<int32_t> b{3, 12, 0x00ff};  // broadcast along the rows
  const auto ai = g.in(a, {2, 3}), bi = g.in(b, {3});
  const std::vector<uint8_t> u{0, 1, 0xf0, 0xff};
  const auto ui = g.in(u, {4});
  const auto n = g.gc.bitwisenot({ai}), an = g.gc.bitwiseand({ai, bi}), o = g.gc.bitwiseor({ai, bi}),
             x = g.gc.bitwisexor({ai, bi}), xn = g.gc.bitwisexnor({ai, bi}), un = g.gc.bitwisenot({ui});
  auto out = g.run({n, an, o, x, xn, un});
  for (size_t i = 0; i < a.size(); ++i) {
    const int32_t p = a[i], q = b[i % 3];
    EXPECT_EQ(out.at(n).toVector<int32_t>()[i], ~p);
    EXPECT_EQ(out.at(an).toVector<int32_t>()[i], p & q);
    EXPECT_EQ(out.at(o).toVector<int32_t>()[i], p | q);
    EXPECT_EQ(out.at(x).toVector<int32_t>()[i], p ^ q);
    EXPECT_EQ(out.at(xn).toVector<int32_t>()[i], ~(p ^ q));
  }
  EXPECT_EQ(out.at(un).toVector<uint8_t>(), (std::vector<uint8_t>{0xff, 0xfe, 0x0f, 0x00}));

  expectModelError([](Graph1& e) { return e.gc.bitwisenot({floatInput(e, {2})}); },
                   {"must be an integer tensor", "FLOAT"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.bitwiseand({floatInput(e, {2}, "INT32"), floatInput(e, {2}, "INT64")});
      },
      {"INT64"});
  Graph1 e;
  expectError([&] { e.gc.bitwiseor({floatInput(e, {2}, "INT32")}); }, {"BitwiseOr", "inputs"});
}

TEST(GraphcoreOps, ScaleAndScaledAddOfIntegersSaturate) {
  // An integer result out of the type's range saturates (a plain cast is undefined behaviour; found
  // by the Builder fuzzer under UBSan).
  Graph1 g;
  const std::vector<int64_t> a{3, -3, 1}, b{1, 1, 0};
  const auto ai = g.in(a, {3}), bi = g.in(b, {3});
  const auto s = g.gc.scale({ai}, 1e19f), sa = g.gc.scaledadd({ai, bi}, 4e18f, 1.0f);
  auto out = g.run({s, sa});
  const int64_t hi = std::numeric_limits<int64_t>::max(), lo = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(out.at(s).toVector<int64_t>(), (std::vector<int64_t>{hi, lo, hi}));
  EXPECT_EQ(out.at(sa).toVector<int64_t>(),
            (std::vector<int64_t>{hi, lo, static_cast<int64_t>(static_cast<double>(4e18f))}));
}

TEST(GraphcoreOps, RoundNearbyIntAndIncrementMod) {
  Graph1 g;
  const std::vector<float> x{0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 3.49f, -3.51f, 6.0f};
  const auto xi = g.in(x, {8});
  const std::vector<int32_t> ii{5, -5, 10, 1, 2};
  const std::vector<uint32_t> uu{5, static_cast<uint32_t>(-5), 10, 1, 2};
  const auto ni = g.in(ii, {5}), nu = g.in(uu, {5});
  const auto nb = g.gc.nearbyint({xi}), rd = g.gc.round({xi});
  const auto mf = g.gc.incrementmod({xi}, 3.0f, 4.0f), mi = g.gc.incrementmod({ni}, 3.0f, 4.0f),
             mu = g.gc.incrementmod({nu}, 3.0f, 4.0f);
  auto out = g.run({nb, rd, mf, mi, mu});
  std::vector<double> wn, wr, wf;
  for (float v : x) {
    wn.push_back(std::nearbyint(static_cast<double>(v)));  // half to even
    wr.push_back(std::round(static_cast<double>(v)));      // half away from zero (Poplar's ROUND)
    wf.push_back(std::fmod(static_cast<double>(v) + 3.0, 4.0));
  }
  expectNear(asDoubles(out.at(nb)), wn, 0);
  expectNear(asDoubles(out.at(rd)), wr, 0);
  expectNear(asDoubles(out.at(mf)), wf, 1e-06);
  // PopART's test reference: np.fmod(x + 3, 4) in the input's type.
  EXPECT_EQ(out.at(mi).toVector<int32_t>(), (std::vector<int32_t>{0, -2, 1, 0, 1}));
  EXPECT_EQ(out.at(mu).toVector<uint32_t>(), (std::vector<uint32_t>{0, 2, 1, 0, 1}));

  expectModelError([](Graph1& e) { return e.gc.incrementmod({floatInput(e, {2})}, 1.0f, 0.0f); },
                   {"modulus must not be 0"});
  expectModelError([](Graph1& e) { return e.gc.nearbyint({floatInput(e, {2}, "INT32")}); }, {"INT32"});
}

TEST(GraphcoreOps, GeluErfSwishFmodRemainderInDouble) {
  Graph1 g;
  const auto x = test::randomDoubles(12, 1, -4.0, 4.0);
  auto y = test::randomDoubles(12, 2, 0.5, 2.0);
  for (size_t i = 0; i < y.size(); i += 2) y[i] = -y[i];
  const auto xi = g.in(x, {3, 4}), yi = g.in(y, {3, 4});
  const auto ge = g.gc.geluerf({xi}), sw = g.gc.swish({xi}), fm = g.gc.fmod({xi, yi}), rm = g.gc.remainder({xi, yi});
  auto out = g.run({ge, sw, fm, rm});
  std::vector<double> wg, ws, wf, wr;
  for (size_t i = 0; i < x.size(); ++i) {
    wg.push_back(x[i] * 0.5 * (1 + std::erf(x[i] / std::sqrt(2.0))));
    ws.push_back(x[i] / (1 + std::exp(-x[i])));
    wf.push_back(std::fmod(x[i], y[i]));
    wr.push_back(x[i] - std::floor(x[i] / y[i]) * y[i]);  // Python's %: the sign of the divisor
  }
  expectNear(asDoubles(out.at(ge)), wg, 1e-14);
  expectNear(asDoubles(out.at(sw)), ws, 1e-14);
  expectNear(asDoubles(out.at(fm)), wf, 1e-14);
  expectNear(asDoubles(out.at(rm)), wr, 1e-14);
}

// ------------------------------------------------------------------ rearrangement

TEST(GraphcoreOps, ReverseDepthToSpaceSliceSubsample) {
  Graph1 g;
  std::vector<float> x(2 * 8 * 2 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const auto xi = g.in(x, {2, 8, 2, 3});
  const auto rv = g.gc.reverse({xi}, {0, 3}), none = g.gc.reverse({xi}, {});
  const auto dcr = g.gc.depthtospace({xi}, 2, "DCR"), crd = g.gc.depthtospace({xi}, 2, "CRD");
  const auto sl = g.gc.slice({xi}, {-1, 3}, {1, 1}, {1, 3});  // ends, starts, axes
  const auto ss = g.gc.subsample({xi}, {1, 3, 1, 2});
  auto out = g.run({rv, none, dcr, crd, sl, ss});
  auto at = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return x[static_cast<size_t>(((n * 8 + c) * 2 + h) * 3 + w)];
  };
  std::vector<double> wrv, wdcr, wcrd, wsl, wss;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 0; w < 3; ++w) wrv.push_back(at(1 - n, c, h, 2 - w));
  // DepthToSpace, B = 2: [2, 8, 2, 3] -> [2, 2, 4, 6].
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t h = 0; h < 4; ++h)
        for (int64_t w = 0; w < 6; ++w) {
          const int64_t bh = h % 2, bw = w % 2;
          wdcr.push_back(at(n, (bh * 2 + bw) * 2 + c, h / 2, w / 2));
          wcrd.push_back(at(n, c * 4 + bh * 2 + bw, h / 2, w / 2));
        }
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 1; c < 7; ++c)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 1; w < 3; ++w) wsl.push_back(at(n, c, h, w));
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 8; c += 3)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 0; w < 3; w += 2) wss.push_back(at(n, c, h, w));
  expectNear(asDoubles(out.at(rv)), wrv, 0);
  expectNear(asDoubles(out.at(none)), std::vector<double>(x.begin(), x.end()), 0);
  EXPECT_EQ(out.at(dcr).info().shape(), (Shape{2, 2, 4, 6}));
  expectNear(asDoubles(out.at(dcr)), wdcr, 0);
  expectNear(asDoubles(out.at(crd)), wcrd, 0);
  EXPECT_EQ(out.at(sl).info().shape(), (Shape{2, 6, 2, 2}));
  expectNear(asDoubles(out.at(sl)), wsl, 0);
  EXPECT_EQ(out.at(ss).info().shape(), (Shape{2, 3, 2, 2}));
  expectNear(asDoubles(out.at(ss)), wss, 0);

  expectModelError(
      [](Graph1& e) {
        return e.gc.subsample({floatInput(e, {4, 4})}, {4, 0});
      },
      {"Strides invalid. 0 stride at index 1"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.depthtospace({floatInput(e, {2, 6, 2, 2})}, 4);
      },
      {"not divisible by blocksize^2"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.depthtospace({floatInput(e, {2, 8, 2, 2})}, 2, "RCD");
      },
      {"mode 'RCD' is not DCR or CRD"});
  // PopART's ReverseOp messages: dimensions are non-negative, below the rank, distinct.
  expectModelError(
      [](Graph1& e) {
        return e.gc.reverse({floatInput(e, {2, 3})}, {2});
      },
      {"invalid dimension '2' for input tensor of rank 2"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.reverse({floatInput(e, {2, 3})}, {-1});
      },
      {"invalid dimension '-1'. Only positive dimensions are supported"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.reverse({floatInput(e, {2, 3})}, {1, 1});
      },
      {"Dimension 1 appears multiple times in the list of dimensions of ReverseOp"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.slice({floatInput(e, {2, 3})}, {1, 2}, {0});
      },
      {"starts [0] and ends [1 2] must have the same length"});
}

TEST(GraphcoreOps, NormalizeImage) {
  const std::vector<uint8_t> img{0, 255, 17, 128, 64, 3};
  const std::vector<float> imgf{0.f, 255.f, 17.f, 128.f, 64.f, 3.f};
  const std::vector<float16_t> off16{float16_t(1.0f), float16_t(2.0f), float16_t(3.0f)},
      sc16{float16_t(4.0f), float16_t(5.0f), float16_t(6.0f)};
  const std::vector<float> off{1, 2, 3}, sc{4, 5, 6};
  const float scale = 1.0f / 255;
  Graph1 g;
  const auto i8 = g.in(img, {1, 2, 3}), o16 = g.in(off16, {3}), s16 = g.in(sc16, {3});
  const auto i32 = g.in(imgf, {2, 3}), o32 = g.in(off, {3}), s32 = g.in(sc, {3});
  const auto y16 = g.gc.normalize_image({i8, o16, s16}, scale), y32 = g.gc.normalize_image({i32, o32, s32}, scale);
  auto out = g.run({y16, y32});
  std::vector<double> want;
  for (size_t p = 0; p < 2; ++p) {
    for (size_t c = 0; c < 3; ++c) want.push_back((imgf[p * 3 + c] * static_cast<double>(scale) - off[c]) * sc[c]);
    want.push_back(0.0);
  }
  EXPECT_EQ(out.at(y16).info(), TensorInfo("FLOAT16", {1, 2, 4}));
  EXPECT_EQ(out.at(y32).info(), TensorInfo("FLOAT", {2, 4}));
  expectNear(asDoubles(out.at(y16)), want, 2e-3);
  expectNear(asDoubles(out.at(y32)), want, 1e-6);

  auto image = [](const Shape& s, const char* offType, float k) {
    return [=](Graph1& e) {
      return e.gc.normalize_image({floatInput(e, s), floatInput(e, {3}, offType), floatInput(e, {3})}, k);
    };
  };
  expectModelError(image({2, 4}, "FLOAT", 1.0f), {"requires the inner dimension to be 3"});
  expectModelError(image({2, 3}, "FLOAT", 0.0f), {"scale should be greater than 0"});
  expectModelError(image({2, 3}, "FLOAT16", 1.0f), {"offsets", "must hold 3 FLOAT values"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.normalize_image({floatInput(e, {2, 3}, "INT32"), floatInput(e, {3}), floatInput(e, {3})});
      },
      {"INT32"});
}

// ------------------------------------------------------------------ utility

TEST(GraphcoreOps, InitTensorRemapAndCollectives) {
  Graph1 g;
  const auto z = g.gc.init({2, 3}, static_cast<int64_t>(DataType::INT32), static_cast<int64_t>(InitType::Zero));
  const auto z2 = g.gc.init({4}, static_cast<int64_t>(DataType::FLOAT16), static_cast<int64_t>(InitType::NoInit), 0);
  const std::vector<float> x{1, -2, 3, -4, 5, -6};
  const auto xi = g.in(x, {2, 3});
  const auto rm = g.gc.tensorremap({xi}), ar = g.gc.replicatedallreduce({xi}),
             rs = g.gc.replicatedreducescatter({xi}, nonstd::nullopt, CommGroup(CommGroupType::Consecutive, 1)),
             sq = g.gc.replicatedallreduce({xi}, CollectiveOperator::SquareAdd);
  auto out = g.run({z, z2, rm, ar, rs, sq});
  EXPECT_EQ(out.at(z).info(), TensorInfo("INT32", {2, 3}));
  EXPECT_EQ(out.at(z).toVector<int32_t>(), std::vector<int32_t>(6, 0));
  EXPECT_EQ(out.at(z2).info(), TensorInfo("FLOAT16", {4}));
  expectNear(asDoubles(out.at(z2)), std::vector<double>(4, 0.0), 0);
  const std::vector<double> xd(x.begin(), x.end());
  expectNear(asDoubles(out.at(rm)), xd, 0);
  expectNear(asDoubles(out.at(ar)), xd, 0);
  EXPECT_EQ(out.at(rs).info().shape(), (Shape{6}));
  expectNear(asDoubles(out.at(rs)), xd, 0);
  expectNear(asDoubles(out.at(sq)), {1, 4, 9, 16, 25, 36}, 0);  // one replica's sum of squares

  Graph1 e;
  expectError([&] { e.gc.init({2}, 99, 0); }, {"init data_type must be a DataType, got 99"});
  expectError([&] { e.gc.init({2}, static_cast<int64_t>(DataType::FLOAT), 2); }, {"InitType"});
  expectError(
      [&] {
        e.gc.callMethod(
            "init", {},
            {{"shape", std::vector<int64_t>{2}}, {"data_type", std::string("F")}, {"init_type", std::string("Zero")}});
      },
      {"init data_type: Unknown data type 'F'"});
  expectModelError([](Graph1& m) { return m.gc.init({2}, static_cast<int64_t>(DataType::STRING), 0); },
                   {"STRING", "numeric or BOOL"});
  expectModelError(
      [](Graph1& m) {
        return m.gc.init({2, 3}, static_cast<int64_t>(DataType::FLOAT), 0, 2);
      },
      {"batch_axis 2"});
  expectModelError([](Graph1& m) { return m.gc.tensorremap({floatInput(m, {2})}, 3); }, {"remap_type 3"});
  expectModelError(
      [](Graph1& m) {
        return m.gc.callMethod("replicatedallreduce", {floatInput(m, {2})},
                               {{"commGroup", std::vector<int64_t>{1}}})[0];
      },
      {"commGroup [1] must be [CommGroupType"});
  expectModelError(
      [](Graph1& m) {
        return m.gc.replicatedallreduce({floatInput(m, {2})}, nonstd::nullopt,
                                        CommGroup(CommGroupType::Consecutive, 0));
      },
      {"Attempting to use 0 as a CommGroupSize"});
  expectModelError(
      [](Graph1& m) { return m.gc.replicatedallreduce({floatInput(m, {2})}, CollectiveOperator::LogicalOr); },
      {"CollectiveOperator LogicalOr takes BOOL tensors, not FLOAT"});
  expectError(
      [&] {
        e.gc.callMethod("replicatedallreduce", {"x"}, {{"collectiveOperator", std::string("Sub")}});
      },
      {"CollectiveOperator"});
  // Replicas exchanging values: ReplicatedTraining.Collectives*.
}

/// Sends logging::print's lines to a file while alive.
struct CapturePrints {
  std::string path = ::testing::TempDir() + "graphcore_ops_print.txt";
  CapturePrints() {
    std::remove(path.c_str());
    logging::setLogDestination(path);
  }
  ~CapturePrints() { logging::setLogDestination("stderr"); }
  std::string text() const {
    logging::flush();
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
};

TEST(GraphcoreOps, PrintTensorPrintsAndPassesItsInputOn) {
  CapturePrints cap;
  Graph1 g;
  const std::vector<float> x{1, 2.5f, -3, 4};
  const std::vector<int32_t> big(1200, 7);
  const auto xi = g.in(x, {2, 2}), bi = g.in(big, {1200});
  auto ai = g.b->aiOnnxOpset11();
  const auto p = g.gc.printtensor({xi}, 1, {}, "mine");
  const auto q = g.gc.printtensor({ai.add({p, p})});
  const auto r = g.gc.printtensor({bi});
  auto out = g.run({q, r});
  expectNear(asDoubles(out.at(q)), {2, 5, -6, 8}, 0);
  const std::string text = cap.text();
  EXPECT_NE(text.find("mine: {{1,2.5},{-3,4}}\n"), std::string::npos) << text;
  // Without a title, the input's id; big tensors are summarised.
  EXPECT_NE(text.find(": {{2,5},{-6,8}}\n"), std::string::npos) << text;
  EXPECT_NE(text.find(bi + ": {7,7,7,...,7,7,7}\n"), std::string::npos) << text;
}

TEST(GraphcoreOps, AbortRaisesPoplarRuntimeError) {
  {
    Graph1 g;
    const std::vector<float> x{1, 2};
    const auto xi = g.in(x, {2});
    const auto y = g.b->aiOnnxOpset11().abs({xi});
    g.gc.abort({});
    bool thrown = false;
    try {
      g.run({y});
    } catch (const poplar_runtime_error& e) {
      thrown = true;
      EXPECT_EQ(std::string(e.what()).rfind("Abort Program", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("unconditional"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(thrown);
  }
  for (float c : {0.0f, 1.0f}) {
    Graph1 g;
    const std::vector<float> x{c};
    const auto xi = g.in(x, {1});
    const auto y = g.b->aiOnnxOpset11().abs({xi});
    g.gc.abort({y});
    if (c == 0.0f) {
      EXPECT_EQ(g.run({y}).at(y).toVector<float>(), std::vector<float>{0.0f});
    } else {
      bool thrown = false;
      try {
        g.run({y});
      } catch (const poplar_runtime_error& e) {
        thrown = true;
        EXPECT_NE(std::string(e.what()).find("the condition '" + y + "'"), std::string::npos) << e.what();
      }
      EXPECT_TRUE(thrown);
    }
  }
  expectModelError(
      [](Graph1& e) {
        const auto t = floatInput(e, {2});
        e.gc.abort({t});
        return t;
      },
      {"must hold one numeric or BOOL value"});
}

// ------------------------------------------------------------------ training

/// A training session (SGD with learning rate `lr`) of `proto`, prepared, with weights on device.
std::unique_ptr<TrainingSession> trainer(const std::string& proto, const std::vector<TensorId>& anchors,
                                         const TensorId& loss, float lr = 0.0f) {
  SGD sgd({{"defaultLearningRate", {lr, false}}});
  auto s = TrainingSession::createFromOnnxModel(proto, DataFlow(1, anchors), loss, sgd, test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  return s;
}

TEST(GraphcoreOps, CopyVarUpdateWritesTheVariableEachRun) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset11();
  auto gc = b->aiGraphcoreOpset1();
  const std::vector<float> w0{0.5f, -0.25f}, zero{0.0f}, one{1.0f};
  const auto x = b->addInputTensor(TensorInfo("FLOAT", {2}));
  const auto w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo("FLOAT", {2})));
  const auto loss = gc.l1loss({ai.mul({x, w})}, 0.1f);
  const auto counter = b->addInitializedInputTensor(ConstVoidData(zero.data(), TensorInfo("FLOAT", {1})));
  const auto added = ai.add({counter, ai.constant(ConstVoidData(one.data(), TensorInfo("FLOAT", {1})))});
  const auto alias = gc.copyvarupdate({counter, added});
  b->addOutputTensor(loss);
  auto s = trainer(b->getModelProto(), {loss, added, alias}, loss, 0.01f);
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, NDArray> in{{x, NDArray::fromVector(std::vector<float>{1, 1}, {2})}};
  StepIO io(arrayRefs(in), arrayRefs(anchors));
  for (int i = 0; i < 4; ++i) {
    s->run(io);
    EXPECT_EQ(anchors.at(added).toVector<float>()[0], static_cast<float>(i + 1));
    EXPECT_EQ(anchors.at(alias).toVector<float>()[0], static_cast<float>(i + 1));
  }

  // A constant (an inference session with constantWeights) cannot be written.
  auto c = Builder::create();
  const auto cv = c->addInitializedInputTensor(ConstVoidData(zero.data(), TensorInfo("FLOAT", {1})));
  const auto ci = c->addInputTensor(TensorInfo("FLOAT", {1}));
  const auto u = c->aiGraphcoreOpset1().copyvarupdate({cv, ci});
  c->addOutputTensor(u);
  expectError(
      [&] {
        test::runOnce(c->getModelProto(), {{ci, NDArray::fromVector(zero, {1})}}, {u});
      },
      {"is not a variable", "constantWeights = false"});
  SessionOptions o;
  o.constantWeights = false;
  EXPECT_EQ(test::runOnce(c->getModelProto(), {{ci, NDArray::fromVector(one, {1})}}, {u}, o).at(u).toVector<float>(),
            one);
}

TEST(GraphcoreOps, ShapedDropoutDropsWholeRowsInTrainingOnly) {
  const int64_t rows = 64, cols = 3;
  const float ratio = 0.25f;
  const std::vector<float> w0(static_cast<size_t>(rows * cols), 2.0f);
  auto make = [&](TensorId* w, TensorId* y) {
    auto b = Builder::create();
    auto gc = b->aiGraphcoreOpset1();
    *w = b->addInitializedInputTensor(ConstVoidData(w0.data(), TensorInfo("FLOAT", {rows, cols})));
    *y = gc.shapeddropout({*w}, {rows, 1}, ratio);
    const auto l = gc.identityloss({*y}, ReductionType::Sum);
    b->addOutputTensor(l);
    return std::make_pair(b->getModelProto(), l);
  };
  TensorId w, y;
  const auto [proto, loss] = make(&w, &y);
  // Inference: the identity.
  SessionOptions o;
  const auto inf = test::runOnce(proto, {}, {y}, o);
  expectNear(asDoubles(inf.at(y)), std::vector<double>(w0.begin(), w0.end()), 0);
  // Training: each row is dropped (0) or kept and scaled by 1 / (1 - ratio), and the gradient
  // applies the same mask.
  const TensorId gw = std::string(reservedGradientPrefix()) + w;
  auto s = trainer(proto, {y, gw}, loss);
  auto run = [&](uint64_t seed) {
    s->setRandomSeed(seed);
    auto anchors = s->initAnchorArrays();
    std::map<TensorId, NDArray> in;
    StepIO io(arrayRefs(in), arrayRefs(anchors));
    s->run(io);
    return std::make_pair(asDoubles(anchors.at(y)), asDoubles(anchors.at(gw)));
  };
  const auto [out, grad] = run(8);
  int dropped = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const double m = grad[static_cast<size_t>(r * cols)];
    EXPECT_TRUE(m == 0.0 || std::fabs(m - 1.0 / (1.0 - ratio)) < 1e-6) << m;
    dropped += m == 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      EXPECT_EQ(grad[static_cast<size_t>(r * cols + c)], m);
      EXPECT_NEAR(out[static_cast<size_t>(r * cols + c)], 2.0 * m, 1e-6);
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, rows / 2);
  EXPECT_EQ(run(8).first, out);  // seeded like Dropout: the same seed, the same mask

  expectModelError(
      [](Graph1& e) {
        return e.gc.shapeddropout({floatInput(e, {2, 2})}, {4, 4});
      },
      {"ShapedDropout: incompatible input tensor and dropout shape"});
  expectModelError(
      [](Graph1& e) {
        return e.gc.shapeddropout({floatInput(e, {2, 2})}, {2, 1}, 1.5f);
      },
      {"ratio value 1.5 is not valid. Please use a value in the interval [0,1)"});
}

TEST(GraphcoreOps, BatchNormalizationUsesTheUnbiasedRunningVariance) {
  const int64_t N = 4, C = 2, S = 3;
  const auto x = test::randomDoubles(static_cast<size_t>(N * C * S), 5, -2.0, 2.0);
  const std::vector<double> scale{1.5, 0.5}, bias{0.1, -0.2}, mean{0.3, -0.1}, var{1.2, 0.8};
  Graph1 g;
  const auto xi = g.in(x, {N, C, S});
  auto c = [&](const std::vector<double>& v) { return g.in(v, {C}); };
  const auto outs = g.gc.batchnormalization({xi, c(scale), c(bias), c(mean), c(var)}, 5, 1e-5f, 0.9f);
  ASSERT_EQ(outs.size(), 5u);
  auto out = g.run(outs);
  for (int64_t ch = 0; ch < C; ++ch) {
    double m = 0, v = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) m += x[static_cast<size_t>((n * C + ch) * S + s)];
    m /= N * S;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) v += std::pow(x[static_cast<size_t>((n * C + ch) * S + s)] - m, 2);
    const double biased = v / (N * S), unbiased = v / (N * S - 1);
    const size_t k = static_cast<size_t>(ch);
    const double mom = 0.9f;  // the attribute is a float
    EXPECT_NEAR(asDoubles(out.at(outs[1]))[k], mom * mean[k] + (1 - mom) * m, 1e-12);
    EXPECT_NEAR(asDoubles(out.at(outs[2]))[k], mom * var[k] + (1 - mom) * unbiased, 1e-12);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t s = 0; s < S; ++s) {
        const size_t i = static_cast<size_t>((n * C + ch) * S + s);
        EXPECT_NEAR(asDoubles(out.at(outs[0]))[i], scale[k] * (x[i] - m) / std::sqrt(biased + 1e-5) + bias[k], 1e-6);
      }
    }
  }
}

// Gradients against central finite differences (DOUBLE).

TEST(GraphcoreOpsAutodiff, ElementwiseAndActivations) {
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto w = mb.weight({2, 3}, 11, -2.0, 2.0);
  const auto v = mb.weight({2, 3}, 12, 0.6, 1.4);
  const auto a = gc.geluerf({w}), s = gc.swish({w});
  const std::vector<double> three{3.0};
  const auto f = gc.fmod({ai.mul({w, ai.constant(ConstVoidData(three.data(), TensorInfo(DataType::DOUBLE, {1})))}), v});
  const auto r = gc.remainder({w, ai.neg({v})});
  const auto rounded = ai.mul({gc.round({w}), gc.nearbyint({w})});
  const auto sum = ai.sum({a, s, f, r, rounded});
  test::checkGradients(mb, mb.weightedSum(ai, sum, {2, 3}, 13));
}

TEST(GraphcoreOpsAutodiff, Rearrangements) {
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto w = mb.weight({1, 8, 2, 3}, 21);
  const auto d1 = gc.depthtospace({w}, 2, "DCR");
  const auto d2 = ai.depthtospace({w}, 2, "CRD");
  const auto s2d = ai.spacetodepth({gc.reverse({d1}, {1, 3})}, 2);  // back to [1, 8, 2, 3]
  const auto sl = gc.slice({s2d}, {7, 3}, {1, 1}, {1, 3});          // [1, 6, 2, 2]
  const auto sub = gc.subsample({d2}, {1, 2, 3, 2});                // [1, 1, 2, 3]
  const auto rm = gc.tensorremap({gc.replicatedallreduce({sl})});
  const auto flat = gc.replicatedreducescatter({rm});  // [24]
  const auto l1 = mb.weightedSum(ai, flat, {24}, 22);
  const auto l2 = mb.weightedSum(ai, sub, {1, 1, 2, 3}, 23);
  test::checkGradients(mb, ai.add({l1, l2}));
}

TEST(GraphcoreOpsAutodiff, PrintTensorAndBatchNormalization) {
  CapturePrints cap;
  test::ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.input({3, 2, 2}, 31);
  const auto w = mb.weight({2}, 32, 0.5, 1.5);
  const auto b = mb.weight({2}, 33);
  const auto p = gc.printtensor({w}, 1, {}, "scale");
  const std::vector<double> mean{0.0, 0.0}, var{1.0, 1.0};
  const auto m = mb.b->addInitializedInputTensor(ConstVoidData(mean.data(), TensorInfo(DataType::DOUBLE, {2})));
  const auto v = mb.b->addInitializedInputTensor(ConstVoidData(var.data(), TensorInfo(DataType::DOUBLE, {2})));
  const auto y = gc.batchnormalization({x, p, gc.printtensor({b}, 0), m, v}, 5)[0];
  test::checkGradients(mb, mb.weightedSum(ai, y, {3, 2, 2}, 34));
  const std::string text = cap.text();
  EXPECT_NE(text.find("scale: {"), std::string::npos);
  EXPECT_NE(text.find("scale_gradient: {"), std::string::npos);
}

TEST(GraphcoreOps, TheIpuModelRunsAndCostsThem) {
  // The IPU model reuses the CPU kernels: ops with no inputs (Init), no outputs (Abort), views
  // (TensorRemap, collectives) and random ones (ShapedDropout) are mapped, costed and run.
  CapturePrints cap;
  Graph1 g;
  const std::vector<float> x{0, 1, 2, 3, 4, 5};
  const auto xi = g.in(x, {2, 3});
  auto ai = g.b->aiOnnxOpset11();
  const auto z = g.gc.init({2, 3}, static_cast<int64_t>(DataType::FLOAT), 1);
  const auto y = g.gc.geluerf({g.gc.shapeddropout({ai.add({xi, z})}, {2, 1})});
  const auto r = g.gc.replicatedreducescatter({g.gc.tensorremap({g.gc.printtensor({g.gc.swish({y})})})});
  g.gc.abort({ai.reducemax({g.gc.nearbyint({ai.neg({ai.abs({y})})})}, std::vector<int64_t>{}, 0)});
  for (const auto& t : std::vector<TensorId>{r}) g.b->addOutputTensor(t);
  SessionOptions o;
  auto s = InferenceSession::createFromOnnxModel(g.b->getModelProto(), DataFlow(1, {r}),
                                                 DeviceManager::createDeviceManager().createIpuModelDevice(), {}, o);
  s->prepareDevice();
  auto anchors = s->initAnchorArrays();
  StepIO io(arrayRefs(g.inputs), arrayRefs(anchors));
  s->run(io);
  std::vector<double> want;
  for (float v : x) {
    const double ge = v * 0.5 * (1 + std::erf(v / std::sqrt(2.0)));
    want.push_back(ge / (1 + std::exp(-ge)));
  }
  expectNear(asDoubles(anchors.at(r)), want, 1e-6);
  EXPECT_FALSE(s->getSummaryReport().empty());
}

// ------------------------------------------------------------------ import

TEST(GraphcoreOps, ImportsPopartNodesWithIntegerAttributes) {
  // A node as PopART writes it: init_type as a number, the collectives' __collectiveCommGroup.
  auto b = Builder::create();
  const auto x = b->addInputTensor(TensorInfo("FLOAT", {2}));
  const auto i = b->customOp({"ai.graphcore", "Init", 1}, 1, {}, 1,
                             {{"shape", std::vector<int64_t>{2}},
                              {"data_type", static_cast<int64_t>(DataType::FLOAT)},
                              {"init_type", int64_t(1)},
                              {"batch_axis", int64_t(-1)}})[0];
  const auto r = b->customOp({"ai.graphcore", "ReplicatedAllReduce", 1}, 1, {x}, 1,
                             {{"__collectiveCommGroup", std::vector<int64_t>{0, 1}}})[0];
  const auto s = b->aiOnnxOpset11().add({i, r});
  b->addOutputTensor(s);
  const auto out = test::runOnce(b->getModelProto(), {{x, NDArray::fromVector(std::vector<float>{1, 2}, {2})}}, {s});
  EXPECT_EQ(out.at(s).toVector<float>(), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace popart
