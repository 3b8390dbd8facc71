// Accuracy of the kernels that sum many terms (issue 9, item 3: ReduceSum of 2^28 ones gave
// 2^27): the Reduce family on its three paths (contiguous rows, [outer, kept, inner], the generic
// broadcast plan), GlobalAveragePool and large AveragePool windows, the normalizations'
// statistics, Softmax's row sums, CumSum and a bias gradient, each checked against double
// precision references. Inputs are large (a million elements and up; 2^28 for ReduceSum) and
// include values with a large common offset (1e4 + noise), which a float accumulator over a long
// run cannot add.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/test_util.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A fast deterministic generator (splitmix64) for inputs of up to 2^28 elements.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// In [0, 1), with 24 random bits.
  float unit() { return static_cast<float>(next() >> 40) * 0x1p-24f; }
  /// In [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * unit(); }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t s_;
};

/// The kinds of input data.
enum class Data {
  Mixed,   ///< uniform in [-1, 1): mixed signs, sums that cancel
  Offset,  ///< 1e4 + uniform in [-1, 1): no cancellation, but long float sums lose the noise
  Unit,    ///< uniform in [0, 1)
  Wide,    ///< random signs, magnitudes from 1e-3 to 1e3
};

std::vector<float> makeData(size_t n, Data kind, uint64_t seed, float offset = 1e4f) {
  Rng r(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    switch (kind) {
      case Data::Mixed:
        x = r.uniform(-1.0f, 1.0f);
        break;
      case Data::Offset:
        x = offset + r.uniform(-1.0f, 1.0f);
        break;
      case Data::Unit:
        x = r.unit();
        break;
      case Data::Wide:
        x = (r.unit() < 0.5f ? -1.0f : 1.0f) * std::pow(10.0f, r.uniform(-3.0f, 3.0f));
        break;
    }
  }
  return v;
}

const char* dataName(Data d) {
  switch (d) {
    case Data::Mixed:
      return "mixed";
    case Data::Offset:
      return "offset";
    case Data::Unit:
      return "unit";
    case Data::Wide:
      return "wide";
  }
  return "?";
}

std::string shapeString(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

int64_t elems(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

/// An inference session over a Builder-made model whose float inputs stay in the caller's
/// vectors (no copies of large arrays beyond the session's own).
class Runner {
 public:
  Runner(const std::string& proto, const std::vector<TensorId>& anchors, const SessionOptions& options = {}) {
    session_ = InferenceSession::createFromOnnxModel(proto, DataFlow(1, anchors, AnchorReturnType("All")), test::cpu(),
                                                     InputShapeInfo(), options);
    session_->prepareDevice();
    out_ = session_->initAnchorArrays();
  }
  /// Runs once with `inputs` (id -> data, of the model's input shapes).
  std::map<TensorId, NDArray>& run(const std::map<TensorId, std::vector<float>*>& inputs) {
    std::vector<NDArrayWrapper<float>> wraps;
    wraps.reserve(inputs.size());
    std::map<TensorId, IArray&> in;
    for (const auto& kv : inputs) {
      wraps.emplace_back(kv.second->data(), session_->getInfo(kv.first));
      in.emplace(kv.first, wraps.back());
    }
    StepIO io(in, arrayRefs(out_));
    session_->run(io);
    return out_;
  }

 private:
  std::unique_ptr<InferenceSession> session_;
  std::map<TensorId, NDArray> out_;
};

/// |got - want| <= rtol |want| + atol, reported with the relative error.
void expectClose(double got, double want, double rtol, double atol, const std::string& what) {
  const double err = std::fabs(got - want);
  EXPECT_LE(err, rtol * std::fabs(want) + atol)
      << what << ": got " << got << ", want " << want << " (relative error " << err / std::fabs(want) << ")";
}

// ---------------------------------------------------------------- 2^28 elements

TEST(ReductionAccuracy, ReduceSumAndMeanOf2To28Floats) {
  const int64_t n = int64_t(1) << 28;  // 1 GiB of floats
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {n}), "x");
  const std::vector<int64_t> axis0{0};
  const TensorId axes = ai.constant(ConstVoidData(axis0.data(), TensorInfo(DataType::INT64, {1})));
  const TensorId sum = ai.reducesum({x, axes}, 0), mean = ai.reducemean({x}, {0}, 0);
  b->addOutputTensor(sum);
  b->addOutputTensor(mean);
  Runner r(b->getModelProto(), {sum, mean});

  std::vector<float> v(static_cast<size_t>(n), 1.0f);
  {
    auto& out = r.run({{x, &v}});
    EXPECT_EQ(out.at(sum).dataAs<float>()[0], 268435456.0f);  // 2^28, exact
    EXPECT_EQ(out.at(mean).dataAs<float>()[0], 1.0f);
  }
  Rng rng(28);
  double ref = 0;
  for (auto& e : v) {
    e = rng.unit();
    ref += e;
  }
  auto& out = r.run({{x, &v}});
  // The float results are within a float rounding or so of the double sums.
  expectClose(out.at(sum).dataAs<float>()[0], ref, 2e-7, 0, "ReduceSum of 2^28 values in [0, 1)");
  expectClose(out.at(mean).dataAs<float>()[0], ref / static_cast<double>(n), 2e-7, 0,
              "ReduceMean of 2^28 values in [0, 1)");
}

// ---------------------------------------------------------------- the Reduce family

struct ReduceCase {
  Shape shape;
  std::vector<int64_t> axes;  ///< sorted, not empty
  Data data;
  int64_t keepdims = 1;
};

/// Every Reduce op that sums over `c.axes`, against double sums.
void checkReduceCase(const ReduceCase& c, uint64_t seed) {
  const std::string where =
      "shape " + shapeString(c.shape) + " axes " + shapeString(c.axes) + " data " + dataName(c.data);
  SCOPED_TRACE(where);
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, c.shape), "x");
  const TensorId axes =
      ai.constant(ConstVoidData(c.axes.data(), TensorInfo(DataType::INT64, {static_cast<int64_t>(c.axes.size())})));
  const bool positive = c.data == Data::Offset || c.data == Data::Unit;
  std::vector<TensorId> outs{ai.reducesum({x, axes}, c.keepdims),         ai.reducemean({x}, c.axes, c.keepdims),
                             ai.reducesumsquare({x}, c.axes, c.keepdims), ai.reducel1({x}, c.axes, c.keepdims),
                             ai.reducel2({x}, c.axes, c.keepdims),        ai.reducelogsumexp({x}, c.axes, c.keepdims)};
  if (positive) outs.push_back(ai.reducelogsum({x}, c.axes, c.keepdims));
  for (const auto& o : outs) b->addOutputTensor(o);
  Runner r(b->getModelProto(), outs);
  auto v = makeData(static_cast<size_t>(elems(c.shape)), c.data, seed);
  auto& out = r.run({{x, &v}});

  // References: each element goes to the output indexed by its kept coordinates.
  Shape kept = c.shape;
  for (auto a : c.axes) kept[static_cast<size_t>(a)] = 1;
  const size_t nOut = static_cast<size_t>(elems(kept));
  const double count = static_cast<double>(v.size()) / static_cast<double>(nOut);
  std::vector<int64_t> ostride(c.shape.size(), 0);  // output offset per input coordinate
  for (int64_t d = static_cast<int64_t>(c.shape.size()) - 1, st = 1; d >= 0; --d) {
    const size_t u = static_cast<size_t>(d);
    if (kept[u] != 1) ostride[u] = st;
    st *= kept[u];
  }
  auto forEach = [&](auto f) {
    std::vector<int64_t> idx(c.shape.size(), 0);
    int64_t o = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      f(static_cast<size_t>(o), static_cast<double>(v[i]));
      for (size_t d = c.shape.size(); d-- > 0;) {
        o += ostride[d];
        if (++idx[d] < c.shape[d]) break;
        o -= ostride[d] * idx[d];
        idx[d] = 0;
      }
    }
  };
  std::vector<double> sum(nOut, 0.0), sumAbs(nOut, 0.0), sumSq(nOut, 0.0), mx(nOut, -kInf), sumExp(nOut, 0.0);
  forEach([&](size_t o, double e) {
    sum[o] += e;
    sumAbs[o] += std::fabs(e);
    sumSq[o] += e * e;
    mx[o] = std::max(mx[o], e);
  });
  forEach([&](size_t o, double e) { sumExp[o] += std::exp(e - mx[o]); });

  const char* names[] = {"ReduceSum", "ReduceMean",      "ReduceSumSquare", "ReduceL1",
                         "ReduceL2",  "ReduceLogSumExp", "ReduceLogSum"};
  for (size_t k = 0; k < outs.size(); ++k) {
    const NDArray& a = out.at(outs[k]);
    ASSERT_EQ(a.nelms(), nOut) << names[k];
    EXPECT_EQ(a.rank(), c.keepdims ? c.shape.size() : c.shape.size() - c.axes.size()) << names[k];
    const float* got = a.dataAs<float>();
    for (size_t o = 0; o < nOut; ++o) {
      const std::string what = std::string(names[k]) + " output " + std::to_string(o);
      // A float rounding or so of the result, with room for the cancellation in sums of mixed
      // signs: a few float roundings (4e-7) of the sum of the magnitudes.
      switch (k) {
        case 0:
          expectClose(got[o], sum[o], 1e-6, 4e-7 * sumAbs[o], what);
          break;
        case 1:
          expectClose(got[o], sum[o] / count, 1e-6, 4e-7 * sumAbs[o] / count, what);
          break;
        case 2:
          expectClose(got[o], sumSq[o], 1e-6, 0, what);
          break;
        case 3:
          expectClose(got[o], sumAbs[o], 1e-6, 0, what);
          break;
        case 4:
          expectClose(got[o], std::sqrt(sumSq[o]), 1e-6, 0, what);
          break;
        case 5:
          expectClose(got[o], mx[o] + std::log(sumExp[o]), 1e-6, 1e-6, what);
          break;
        default:
          expectClose(got[o], std::log(sum[o]), 1e-6, 1e-6, what);
          break;
      }
      if (::testing::Test::HasFailure()) return;  // one report per case is enough
    }
  }
}

TEST(ReductionAccuracy, ReduceFamilyOnLargeInputs) {
  // Each path of the Reduce kernels, over up to 2^21 terms per output.
  const std::vector<ReduceCase> cases = {
      {{3, 1 << 20}, {1}, Data::Offset, 0},         // contiguous rows
      {{2048, 1024}, {0, 1}, Data::Offset, 1},      // all axes: one contiguous row of 2^21
      {{2, 3, 512, 512}, {0, 2, 3}, Data::Offset},  // [outer, kept, inner] with long inner rows
      {{1 << 20, 3}, {0}, Data::Offset, 0},         // [outer, kept] (inner 1): Gemm bias sums
      {{4, 4096, 64}, {1}, Data::Offset},           // a reduced axis between kept ones: the generic path
      {{3, 1 << 20}, {1}, Data::Mixed, 0},          // the same paths with other data
      {{2, 3, 512, 512}, {0, 2, 3}, Data::Wide},    // magnitudes 1e-3 .. 1e3, random signs
      {{1 << 20, 3}, {0}, Data::Unit, 0},           // values in [0, 1)
  };
  uint64_t seed = 100;
  for (const auto& c : cases) checkReduceCase(c, ++seed);
}

TEST(ReductionAccuracy, ReduceFamilyPropertyRandomShapesAndAxes) {
  // Random shapes of up to four million elements, random axis subsets, random data (half of it
  // with the large offset) and keepdims.
  Rng rng(2024);
  const Data kinds[] = {Data::Offset, Data::Mixed, Data::Offset, Data::Unit, Data::Offset, Data::Wide};
  for (int t = 0; t < 24; ++t) {
    ReduceCase c;
    const int64_t rank = 1 + rng.below(4);
    // 2^10 .. 2^22 elements: the dims, in a random order, take random shares of the bits; each
    // dim is between half of and its power of two.
    int64_t bits = 10 + rng.below(13);
    std::vector<int64_t> order(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) order[static_cast<size_t>(d)] = d;
    for (int64_t d = rank - 1; d > 0; --d)
      std::swap(order[static_cast<size_t>(d)], order[static_cast<size_t>(rng.below(d + 1))]);
    c.shape.assign(static_cast<size_t>(rank), 1);
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t e = i + 1 == rank ? bits : rng.below(bits + 1);
      bits -= e;
      const int64_t p2 = int64_t(1) << e;
      c.shape[static_cast<size_t>(order[static_cast<size_t>(i)])] = p2 - rng.below(p2 / 2 + 1) + (p2 == 1 ? 1 : 0);
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (rng.below(2)) c.axes.push_back(d);
    }
    if (c.axes.empty()) c.axes.push_back(rng.below(rank));
    c.data = kinds[rng.below(6)];
    c.keepdims = rng.below(2);
    if (std::getenv("POPART_TEST_VERBOSE"))
      std::printf("case %d: %s axes %s %s\n", t, shapeString(c.shape).c_str(), shapeString(c.axes).c_str(),
                  dataName(c.data));
    checkReduceCase(c, 1000 + static_cast<uint64_t>(t));
  }
}

// ---------------------------------------------------------------- pooling

TEST(ReductionAccuracy, GlobalAveragePoolOnLargePlanes) {
  struct Case {
    Shape shape;
    Data data;
  };
  const std::vector<Case> cases = {{{2, 3, 1024, 1024}, Data::Offset},
                                   {{1, 2, 1000, 999}, Data::Mixed},
                                   {{1, 2, 4096, 512}, Data::Unit},
                                   {{4, 8, 7, 7}, Data::Offset},
                                   {{2, 2, 64, 64, 64}, Data::Offset}};
  uint64_t seed = 300;
  for (const auto& c : cases) {
    SCOPED_TRACE("shape " + shapeString(c.shape) + " data " + dataName(c.data));
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, c.shape), "x");
    const TensorId y = ai.globalaveragepool({x});
    b->addOutputTensor(y);
    Runner r(b->getModelProto(), {y});
    auto v = makeData(static_cast<size_t>(elems(c.shape)), c.data, ++seed);
    auto& out = r.run({{x, &v}});
    const int64_t planes = c.shape[0] * c.shape[1], sp = elems(c.shape) / planes;
    const float* got = out.at(y).dataAs<float>();
    for (int64_t p = 0; p < planes; ++p) {
      double sum = 0, sumAbs = 0;
      for (int64_t i = 0; i < sp; ++i) {
        sum += v[static_cast<size_t>(p * sp + i)];
        sumAbs += std::fabs(v[static_cast<size_t>(p * sp + i)]);
      }
      const double n = static_cast<double>(sp);
      expectClose(got[p], sum / n, 1e-6, 4e-7 * sumAbs / n, "plane " + std::to_string(p));
    }
  }
}

TEST(ReductionAccuracy, AveragePoolWithLargeWindows) {
  // [1, 2, 1024, 1024]: one 1024 x 1024 window per plane, and 512 x 512 windows at stride 512.
  const Shape shape{1, 2, 1024, 1024};
  auto v = makeData(static_cast<size_t>(elems(shape)), Data::Offset, 400);
  for (const int64_t k : {1024, 512}) {
    SCOPED_TRACE("window " + std::to_string(k));
    auto b = Builder::create();
    auto ai = b->aiOnnxOpset13();
    const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, shape), "x");
    const TensorId y = ai.averagepool({x}, {k, k}, 0, 0, {}, {k, k});
    b->addOutputTensor(y);
    Runner r(b->getModelProto(), {y});
    auto& out = r.run({{x, &v}});
    const int64_t ow = 1024 / k;
    const float* got = out.at(y).dataAs<float>();
    for (int64_t c = 0; c < 2; ++c) {
      for (int64_t oh = 0; oh < ow; ++oh) {
        for (int64_t oc = 0; oc < ow; ++oc) {
          double sum = 0;
          for (int64_t h = oh * k; h < (oh + 1) * k; ++h) {
            for (int64_t w = oc * k; w < (oc + 1) * k; ++w) sum += v[static_cast<size_t>((c * 1024 + h) * 1024 + w)];
          }
          expectClose(got[(c * ow + oh) * ow + oc], sum / static_cast<double>(k * k), 1e-6, 0,
                      "window " + std::to_string(oh) + "," + std::to_string(oc) + " of plane " + std::to_string(c));
        }
      }
    }
  }
}

// ---------------------------------------------------------------- normalizations

/// The double reference of normalizing `len` values at x + p * stride for p < planes.
struct Stats {
  double mean = 0, var = 0;
};
Stats stats(const std::vector<float>& x, size_t at, int64_t planes, int64_t len, int64_t stride) {
  Stats s;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < len; ++i) s.mean += x[at + static_cast<size_t>(p * stride + i)];
  }
  const double n = static_cast<double>(planes * len);
  s.mean /= n;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < len; ++i) {
      const double d = x[at + static_cast<size_t>(p * stride + i)] - s.mean;
      s.var += d * d;
    }
  }
  s.var /= n;
  return s;
}

/// The error a float normalization (x - mean) * inv makes inherently: the mean (or the bias
/// -mean * inv) rounded to float, a few float roundings of |mean| times inv, and a few roundings
/// of the result.
double normTolerance(double mean, double inv, double y) {
  const double u = 0x1p-24;
  return 4 * u * std::fabs(mean) * inv + 8 * u * std::fabs(y) + 1e-6;
}

TEST(ReductionAccuracy, LayerNormalizationOverLongRows) {
  const int64_t rows = 3, len = 1 << 20;
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset17();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {rows, len}), "x");
  const TensorId g = b->addInputTensor(TensorInfo(DataType::FLOAT, {len}), "g");
  const TensorId bias = b->addInputTensor(TensorInfo(DataType::FLOAT, {len}), "b");
  const auto outs = ai.layernormalization({x, g, bias}, 3, -1, 1e-5f);
  for (const auto& o : outs) b->addOutputTensor(o);
  Runner r(b->getModelProto(), outs);
  auto xv = makeData(static_cast<size_t>(rows * len), Data::Offset, 500, 100.0f);
  auto gv = makeData(static_cast<size_t>(len), Data::Unit, 501),
       bv = makeData(static_cast<size_t>(len), Data::Mixed, 502);
  auto& out = r.run({{x, &xv}, {g, &gv}, {bias, &bv}});
  const float* y = out.at(outs[0]).dataAs<float>();
  for (int64_t o = 0; o < rows; ++o) {
    const Stats s = stats(xv, static_cast<size_t>(o * len), 1, len, len);
    const double inv = 1.0 / std::sqrt(s.var + 1e-5);
    expectClose(out.at(outs[1]).dataAs<float>()[o], s.mean, 2e-7, 0, "mean of row " + std::to_string(o));
    expectClose(out.at(outs[2]).dataAs<float>()[o], inv, 1e-6, 0, "inverse std of row " + std::to_string(o));
    for (int64_t i = 0; i < len; ++i) {
      const size_t k = static_cast<size_t>(o * len + i);
      const double want = (xv[k] - s.mean) * inv * gv[static_cast<size_t>(i)] + bv[static_cast<size_t>(i)];
      const double tol = normTolerance(s.mean, inv * gv[static_cast<size_t>(i)], want);
      if (std::fabs(y[k] - want) > tol) {
        ADD_FAILURE() << "row " << o << " element " << i << ": got " << y[k] << ", want " << want << " (tolerance "
                      << tol << ")";
        return;
      }
    }
  }
}

TEST(ReductionAccuracy, InstanceAndBatchNormalizationStatistics) {
  const Shape shape{4, 3, 512, 512};
  const int64_t N = shape[0], C = shape[1], S = shape[2] * shape[3];
  auto xv = makeData(static_cast<size_t>(elems(shape)), Data::Offset, 600, 100.0f);
  std::vector<float> scale{0.5f, 1.0f, 2.0f}, bias{0.25f, -1.0f, 3.0f}, mean0{0, 0, 0}, var0{1, 1, 1};
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset15();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, shape), "x");
  const TensorInfo ci(DataType::FLOAT, {C});
  const TensorId sc = b->addInputTensor(ci, "scale"), bi = b->addInputTensor(ci, "bias");
  const TensorId mn = b->addInputTensor(ci, "mean"), vr = b->addInputTensor(ci, "var");
  const TensorId in = ai.instancenormalization({x, sc, bi}, 1e-5f);
  // Training mode with momentum 0: the running statistics are the batch's.
  const auto bn = ai.batchnormalization({x, sc, bi, mn, vr}, 3, 1e-5f, 0.0f, 1);
  std::vector<TensorId> outs{in, bn[0], bn[1], bn[2]};
  for (const auto& o : outs) b->addOutputTensor(o);
  // The accurate statistics are PopART's enableStableNorm (two passes, the mean first).
  SessionOptions stable;
  stable.enableStableNorm = true;
  Runner r(b->getModelProto(), outs, stable);
  auto& out = r.run({{x, &xv}, {sc, &scale}, {bi, &bias}, {mn, &mean0}, {vr, &var0}});
  const float* yin = out.at(in).dataAs<float>();
  const float* ybn = out.at(bn[0]).dataAs<float>();
  auto checkPlane = [&](const float* y, size_t at, const Stats& s, int64_t c, const std::string& what) {
    const double a = scale[static_cast<size_t>(c)] / std::sqrt(s.var + 1e-5);
    for (int64_t i = 0; i < S; ++i) {
      const double want = (xv[at + static_cast<size_t>(i)] - s.mean) * a + bias[static_cast<size_t>(c)];
      const double tol = normTolerance(s.mean, std::fabs(a), want);
      if (std::fabs(y[at + static_cast<size_t>(i)] - want) > tol) {
        ADD_FAILURE() << what << " element " << i << ": got " << y[at + static_cast<size_t>(i)] << ", want " << want;
        return;
      }
    }
  };
  for (int64_t c = 0; c < C; ++c) {
    const Stats s = stats(xv, static_cast<size_t>(c * S), N, S, C * S);
    expectClose(out.at(bn[1]).dataAs<float>()[c], s.mean, 2e-7, 0, "BatchNorm mean of channel " + std::to_string(c));
    expectClose(out.at(bn[2]).dataAs<float>()[c], s.var, 1e-6, 0, "BatchNorm variance of channel " + std::to_string(c));
    for (int64_t n = 0; n < N; ++n) {
      const size_t at = static_cast<size_t>((n * C + c) * S);
      checkPlane(ybn, at, s, c, "BatchNorm plane " + std::to_string(n * C + c));
      checkPlane(yin, at, stats(xv, at, 1, S, S), c, "InstanceNorm plane " + std::to_string(n * C + c));
    }
  }
  // PopART's default (enableStableNorm off) takes E[x^2] - E[x]^2: on data offset by 6 standard
  // deviations its variance is off by more than the two-pass one's.
  Runner fast(b->getModelProto(), outs);
  auto& outFast = fast.run({{x, &xv}, {sc, &scale}, {bi, &bias}, {mn, &mean0}, {vr, &var0}});
  double errStable = 0, errFast = 0;
  for (int64_t c = 0; c < C; ++c) {
    const Stats s = stats(xv, static_cast<size_t>(c * S), N, S, C * S);
    errStable = std::max(errStable, std::fabs(out.at(bn[2]).dataAs<float>()[c] - s.var) / s.var);
    errFast = std::max(errFast, std::fabs(outFast.at(bn[2]).dataAs<float>()[c] - s.var) / s.var);
  }
  EXPECT_LT(errFast, 1e-3);
  EXPECT_GT(errFast, errStable);
}

// ---------------------------------------------------------------- Softmax, CumSum

TEST(ReductionAccuracy, SoftmaxAndLogSoftmaxOverLongRows) {
  const int64_t rows = 2, len = 1 << 22;
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {rows, len}), "x");
  const TensorId sm = ai.softmax({x}, -1), lsm = ai.logsoftmax({x}, -1);
  // Along a leading axis too (the strided path): [len / 64, 64] over axis 0.
  const TensorId x2 = b->addInputTensor(TensorInfo(DataType::FLOAT, {len / 64, 64}), "x2");
  const TensorId sm2 = ai.softmax({x2}, 0);
  for (const auto& o : {sm, lsm, sm2}) b->addOutputTensor(o);
  Runner r(b->getModelProto(), {sm, lsm, sm2});
  auto xv = makeData(static_cast<size_t>(rows * len), Data::Mixed, 700);
  auto x2v = makeData(static_cast<size_t>(len), Data::Mixed, 701);
  auto& out = r.run({{x, &xv}, {x2, &x2v}});
  const float* ys = out.at(sm).dataAs<float>();
  const float* yl = out.at(lsm).dataAs<float>();
  for (int64_t o = 0; o < rows; ++o) {
    const size_t at = static_cast<size_t>(o * len);
    double mx = -kInf, sum = 0;
    for (int64_t i = 0; i < len; ++i) mx = std::max<double>(mx, xv[at + static_cast<size_t>(i)]);
    for (int64_t i = 0; i < len; ++i) sum += std::exp(xv[at + static_cast<size_t>(i)] - mx);
    const double lse = mx + std::log(sum);
    for (int64_t i = 0; i < len; i += 997) {  // a sample of each row
      const double e = xv[at + static_cast<size_t>(i)];
      expectClose(ys[at + static_cast<size_t>(i)], std::exp(e - lse), 1e-6, 0, "Softmax " + std::to_string(i));
      expectClose(yl[at + static_cast<size_t>(i)], e - lse, 0, 1e-6 * (1 + std::fabs(lse)), "LogSoftmax");
      if (::testing::Test::HasFailure()) return;
    }
  }
  const float* y2 = out.at(sm2).dataAs<float>();
  for (int64_t c = 0; c < 64; c += 7) {
    double mx = -kInf, sum = 0;
    for (int64_t i = 0; i < len / 64; ++i) mx = std::max<double>(mx, x2v[static_cast<size_t>(i * 64 + c)]);
    for (int64_t i = 0; i < len / 64; ++i) sum += std::exp(x2v[static_cast<size_t>(i * 64 + c)] - mx);
    for (int64_t i = 0; i < len / 64; i += 101) {
      const size_t k = static_cast<size_t>(i * 64 + c);
      expectClose(y2[k], std::exp(x2v[k] - mx) / sum, 1e-6, 0, "Softmax along axis 0, column " + std::to_string(c));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(ReductionAccuracy, CumSumOfManyOnes) {
  // Past 2^24, where a float running sum of ones stops.
  const int64_t n = (int64_t(1) << 24) + (int64_t(1) << 20);
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, {n}), "x");
  const std::vector<int64_t> axis{0};
  const TensorId ax = ai.constant(ConstVoidData(axis.data(), TensorInfo(DataType::INT64, Shape{})));
  const TensorId y = ai.cumsum({x, ax});
  b->addOutputTensor(y);
  Runner r(b->getModelProto(), {y});
  std::vector<float> v(static_cast<size_t>(n), 1.0f);
  const float* got = r.run({{x, &v}}).at(y).dataAs<float>();
  // Each prefix sum i + 1 rounded to float once.
  for (int64_t i = 0; i < n; i += 4093) ASSERT_EQ(got[i], static_cast<float>(i + 1)) << "at " << i;
  EXPECT_EQ(got[n - 1], static_cast<float>(n));
}

// ---------------------------------------------------------------- training

TEST(ReductionAccuracy, BiasGradientOverManyPositions) {
  // loss = sum((x + bias) * c) with bias [1, C, 1, 1]: the bias gradient sums c over N, H and W
  // (the ReduceSum autodiff adds for the broadcast, as for a Conv bias).
  const Shape shape{2, 4, 1024, 1024};
  const int64_t N = shape[0], C = shape[1], S = shape[2] * shape[3];
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const TensorId x = b->addInputTensor(TensorInfo(DataType::FLOAT, shape), "x");
  const TensorId cin = b->addInputTensor(TensorInfo(DataType::FLOAT, shape), "c");
  const std::vector<float> zero(static_cast<size_t>(C), 0.0f);
  const TensorId bias =
      b->addInitializedInputTensor(ConstVoidData(zero.data(), TensorInfo(DataType::FLOAT, {1, C, 1, 1})), "bias");
  const TensorId loss = b->aiGraphcoreOpset1().identityloss({ai.mul({ai.add({x, bias}), cin})}, ReductionType::Sum);
  b->addOutputTensor(loss);
  const TensorId grad = std::string(reservedGradientPrefix()) + bias;
  SGD sgd({{"defaultLearningRate", {0.0f, false}}});
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, std::vector<TensorId>{loss, grad}),
                                                loss, sgd, test::cpu());
  s->prepareDevice();
  s->weightsFromHost();
  auto out = s->initAnchorArrays();
  auto xv = makeData(static_cast<size_t>(elems(shape)), Data::Mixed, 800);
  auto cv = makeData(static_cast<size_t>(elems(shape)), Data::Offset, 801);
  NDArrayWrapper<float> xw(xv.data(), shape), cw(cv.data(), shape);
  std::map<TensorId, IArray&> in{{x, xw}, {cin, cw}};
  StepIO io(in, arrayRefs(out));
  s->run(io);
  const float* g = out.at(grad).dataAs<float>();
  for (int64_t c = 0; c < C; ++c) {
    double want = 0;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t i = 0; i < S; ++i) want += cv[static_cast<size_t>((n * C + c) * S + i)];
    }
    expectClose(g[c], want, 1e-6, 0, "bias gradient of channel " + std::to_string(c));
  }
}

}  // namespace
}  // namespace popart
