// The aiGraphcore indexing ops (dynamicslice / update / add / zero, sequenceslice, scatterreduce
// and groupedscatterreduce, groupedgather, bucketize, sort, reducemedian, packedDataBlock) built
// with the typed AiGraphcoreOpset1 methods, run on the CPU device and compared with references
// computed here in double precision; the errors PopART raises. Gradients are in
// graphcore_index_grad_test.cpp.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;

std::vector<double> iota(const Shape& s, double start = 0.0) {
  std::vector<double> v(static_cast<size_t>(test::numElements(s)));
  std::iota(v.begin(), v.end(), start);
  return v;
}

/// Row-major multi-index helpers for the references.
std::vector<int64_t> strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}
std::vector<int64_t> unravel(int64_t k, const Shape& s) {
  std::vector<int64_t> p(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    p[d] = k % s[d];
    k /= s[d];
  }
  return p;
}
int64_t ravel(const std::vector<int64_t>& p, const Shape& s) {
  const auto st = strides(s);
  int64_t o = 0;
  for (size_t d = 0; d < p.size(); ++d) o += p[d] * st[d];
  return o;
}

/// A model under construction: inputs with their values, then run once.
struct Net : test::Net {
  AiGraphcoreOpset1 gc = b->aiGraphcoreOpset1();
};

/// The Builder only warns when a node's shapes cannot be inferred (as PopART's); the session
/// creation reports the error. Expects making `make`'s output a session to fail with `fragments`.
/// The node is added to a copy of `b`'s model, so that each case meets only its own error.
void expectModelError(Builder& b, const std::function<TensorId(AiGraphcoreOpset1&)>& make,
                      const std::vector<std::string>& fragments) {
  expectError(
      [&] {
        auto copy = Builder::createFromOnnxModel(b.getModelProto());
        auto gc = copy->aiGraphcoreOpset1();
        const TensorId y = make(gc);
        copy->addOutputTensor(y);
        InferenceSession::createFromOnnxModel(copy->getModelProto(), DataFlow(1, {y}), test::cpu());
      },
      fragments);
}

void expectEq(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    else
      EXPECT_DOUBLE_EQ(got[i], want[i]) << "at " << i;
  }
}

/// Reference of a dynamic slice: per sliced axis the start (0 past the end) and a wrap.
std::vector<int64_t> fullPos(const std::vector<int64_t>& slicePos, const Shape& full, const std::vector<int64_t>& axes,
                             const std::vector<int64_t>& offsets) {
  auto p = slicePos;
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(axes[i]);
    const int64_t start = offsets[i] < 0 || offsets[i] >= full[a] ? 0 : offsets[i];
    p[a] = (start + slicePos[a]) % full[a];
  }
  return p;
}

// ------------------------------------------------------------------ dynamic slices

TEST(GraphcoreIndexOps, DynamicSliceOneAndSeveralAxesWithWrapAndOutOfRangeOffsets) {
  struct Case {
    Shape full;
    std::vector<int64_t> axes, sizes, offsets;
  };
  const std::vector<Case> cases{
      {{5, 12, 7}, {1}, {3}, {6}},        {{3, 5, 11, 7}, {0, 3}, {2, 4}, {1, 3}},
      {{5, 12, 7}, {1}, {3}, {10}},        // wraps: rows 10, 11, 0
      {{5, 12, 7}, {1}, {3}, {12}},        // past the end: 0
      {{4, 6}, {-1, 0}, {6, 1}, {4, 3}},   // a whole axis from an offset wraps to a rotation
      {{2, 3, 4}, {2, 1}, {2, 2}, {3, 2}}  // both wrap
  };
  for (const auto& c : cases) {
    Net g;
    const auto data = iota(c.full, 1.0);
    const TensorId x = g.in(data, c.full);
    std::vector<uint32_t> off(c.offsets.begin(), c.offsets.end());
    const TensorId o = g.in(off, {static_cast<int64_t>(off.size())});
    const TensorId y = g.gc.dynamicslice({x, o}, c.axes, c.sizes, true);
    Shape slice = c.full;
    std::vector<int64_t> axes;
    for (size_t i = 0; i < c.axes.size(); ++i) {
      const int64_t a = c.axes[i] < 0 ? c.axes[i] + static_cast<int64_t>(c.full.size()) : c.axes[i];
      axes.push_back(a);
      slice[static_cast<size_t>(a)] = c.sizes[i];
    }
    EXPECT_EQ(g.b->getTensorShape(y), slice);
    auto out = g.run({y});
    std::vector<double> want;
    for (int64_t k = 0; k < test::numElements(slice); ++k)
      want.push_back(data[static_cast<size_t>(ravel(fullPos(unravel(k, slice), c.full, axes, c.offsets), c.full))]);
    expectEq(out.at(y).toVector<double>(), want);
  }
}

TEST(GraphcoreIndexOps, DynamicSliceReadsInt32AndScalarOffsetsAndIgnoresTheSliceInput) {
  Net g;
  const auto data = iota({4, 3});
  const TensorId x = g.in(data, {4, 3});
  const TensorId neg = g.in(std::vector<int32_t>{-1}, {1});  // unsigned: past the end, so 0
  const TensorId two = g.in(std::vector<uint32_t>{2}, {});   // a scalar offset for one axis
  const TensorId into = g.in(std::vector<double>(6, 7.0), {2, 3});
  const TensorId a = g.gc.dynamicslice({x, neg}, {0}, {2});
  const TensorId b = g.gc.dynamicslice({x, two, into}, {0}, {2});
  auto out = g.run({a, b});
  expectEq(out.at(a).toVector<double>(), {0, 1, 2, 3, 4, 5});
  expectEq(out.at(b).toVector<double>(), {6, 7, 8, 9, 10, 11});
}

TEST(GraphcoreIndexOps, DynamicUpdateAddZeroWriteTheRegionOnly) {
  const Shape full{5, 12, 7};
  Net g;
  const auto data = iota(full);
  const auto upd = iota({3, 4, 5}, 1000.0);
  const TensorId x = g.in(data, full);
  const TensorId u = g.in(upd, {3, 4, 5});
  const TensorId o = g.in(std::vector<uint32_t>{1, 10, 4}, {3});  // axis 1 wraps (10, 11, 0, 1), axis 2 too
  const std::vector<int64_t> axes{0, 1, 2}, sizes{3, 4, 5};
  const TensorId up = g.gc.dynamicupdate({x, o, u}, axes, sizes, true);
  const TensorId add = g.gc.dynamicadd({x, o, u}, axes, sizes);
  const TensorId zero = g.gc.dynamiczero({x, o}, axes, sizes);
  auto out = g.run({up, add, zero});
  std::vector<double> wUp = data, wAdd = data, wZero = data;
  for (int64_t k = 0; k < test::numElements({3, 4, 5}); ++k) {
    const int64_t f = ravel(fullPos(unravel(k, {3, 4, 5}), full, axes, {1, 10, 4}), full);
    wUp[static_cast<size_t>(f)] = upd[static_cast<size_t>(k)];
    wAdd[static_cast<size_t>(f)] += upd[static_cast<size_t>(k)];
    wZero[static_cast<size_t>(f)] = 0;
  }
  expectEq(out.at(up).toVector<double>(), wUp);
  expectEq(out.at(add).toVector<double>(), wAdd);
  expectEq(out.at(zero).toVector<double>(), wZero);
}

TEST(GraphcoreIndexOps, DynamicUpdateChainFillsATensorAndTakesASliceWithoutItsUnitDimension) {
  // PopART's test: slices [4, 7] written into a [3, 4, 7] tensor along axis 0, size 1.
  Net g;
  std::vector<TensorId> parts;
  TensorId t = g.in(std::vector<float>(3 * 4 * 7, -1.0f), {3, 4, 7});
  for (uint32_t i = 0; i < 3; ++i) {
    const TensorId s = g.in(std::vector<float>(28, static_cast<float>(i + 1)), {4, 7});
    const TensorId o = g.in(std::vector<uint32_t>{i}, {1});
    t = g.gc.dynamicupdate({t, o, s}, {0}, {1}, true);
    EXPECT_EQ(g.b->getTensorShape(t), (Shape{3, 4, 7}));
  }
  auto out = g.run({t});
  const auto v = out.at(t).toVector<float>();
  for (size_t k = 0; k < v.size(); ++k) EXPECT_EQ(v[k], static_cast<float>(k / 28 + 1)) << k;
}

TEST(GraphcoreIndexOps, DynamicOpsErrors) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId x = b->addInputTensor(TensorInfo("FLOAT", {4, 6}));
  const TensorId o = b->addInputTensor(TensorInfo("UINT32", {1}));
  const TensorId o2 = b->addInputTensor(TensorInfo("UINT32", {2}));
  const TensorId of = b->addInputTensor(TensorInfo("FLOAT", {1}));
  const TensorId s = b->addInputTensor(TensorInfo("FLOAT", {4, 5}));
  const TensorId si = b->addInputTensor(TensorInfo("INT32", {4, 2}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicslice({x, o}, {2}, {1});
                   },
                   {"axes 2 is out of range for a tensor of rank 2"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicslice({x, o}, {1}, {7});
                   },
                   {"sizes[0] = 7 is out of range for axis 1 of size 6"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicslice({x, o}, {1}, {2, 3});
                   },
                   {"axes [1] and sizes [2 3] must have the same length"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicslice({x, o2}, {1}, {2});
                   },
                   {"one value per sliced axis (1 values for axes [1])"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicslice({x, of}, {1}, {2});
                   },
                   {"must be one of UINT32, INT32, UINT64, INT64"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicupdate({x, o, s}, {1}, {2});
                   },
                   {"the slice", "must have shape [4 2]"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicadd({x, o, si}, {1}, {2});
                   },
                   {"must have the same element type"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicslice({x, o, s, s}, {1}, {2});
                   },
                   {"invalid number of inputs"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.dynamicslice({x, o}, {0, 0}, {1, 1});
                   },
                   {"repeats axis 0"});
}

// ------------------------------------------------------------------ sequenceslice

TEST(GraphcoreIndexOps, SequenceSliceCopiesRowsAndZeroesUnusedRows) {
  struct Case {
    Shape src, dst;
    std::vector<uint32_t> n, so, d;
  };
  const std::vector<Case> cases{{{6, 6}, {3, 6}, {1, 1, 1}, {0, 2, 4}, {0, 1, 2}},
                                {{6, 6}, {3, 6}, {1, 2}, {0, 4}, {2, 0}},
                                {{6, 6}, {4, 6}, {1, 1}, {0, 3}, {0, 2}},
                                {{6, 2}, {4, 2}, {3, 2}, {4, 5}, {3, 0}}};  // clipped at both ends
  for (bool zeroUnused : {false, true}) {
    for (const auto& c : cases) {
      Net g;
      const auto src = iota(c.src, 10.0);
      const std::vector<double> dst(static_cast<size_t>(test::numElements(c.dst)), -5.0);
      const Shape k{static_cast<int64_t>(c.n.size())};
      const TensorId y = g.gc.sequenceslice(
          {g.in(src, c.src), g.in(dst, c.dst), g.in(c.n, k), g.in(c.so, k), g.in(c.d, k)}, zeroUnused);
      auto out = g.run({y});
      const int64_t row = c.src[1];
      std::vector<double> want = dst;
      std::vector<bool> written(static_cast<size_t>(c.dst[0]), false);
      for (size_t i = 0; i < c.n.size(); ++i) {
        for (int64_t r = 0; r < c.n[i]; ++r) {
          const int64_t s = c.so[i] + r, d = c.d[i] + r;
          if (s >= c.src[0] || d >= c.dst[0]) break;
          for (int64_t e = 0; e < row; ++e)
            want[static_cast<size_t>(d * row + e)] = src[static_cast<size_t>(s * row + e)];
          written[static_cast<size_t>(d)] = true;
        }
      }
      for (int64_t d = 0; d < c.dst[0] && zeroUnused; ++d) {
        if (!written[static_cast<size_t>(d)]) std::fill(want.begin() + d * row, want.begin() + (d + 1) * row, 0.0);
      }
      expectEq(out.at(y).toVector<double>(), want);
    }
  }
}

TEST(GraphcoreIndexOps, SequenceSliceErrors) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId s = b->addInputTensor(TensorInfo("FLOAT", {6, 6}));
  const TensorId d = b->addInputTensor(TensorInfo("FLOAT", {3, 5}));
  const TensorId d2 = b->addInputTensor(TensorInfo("FLOAT", {3, 6}));
  const TensorId n = b->addInputTensor(TensorInfo("UINT32", {2}));
  const TensorId n3 = b->addInputTensor(TensorInfo("UINT32", {3}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.sequenceslice({s, d, n, n, n});
                   },
                   {"the same shape after the first (sequence) dimension"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.sequenceslice({s, d2, n, n3, n});
                   },
                   {"must hold as many values", "sourceOffset"});
}

// ------------------------------------------------------------------ scatterreduce

enum class Red { Sum, Max, Min, Mul, None };

/// torch.scatter_reduce over `iter` positions (index of the data's shape, or a vector along the
/// axis): include_self with initial values; without them 0 (1 for Mul), Max/Min untouched 0.
std::vector<double> scatterRef(const std::vector<double>& data, const Shape& dataShape, const std::vector<int64_t>& idx,
                               bool vector, int64_t axis, int64_t axisSize, Red r, const std::vector<double>* initial) {
  Shape out = dataShape;
  out[static_cast<size_t>(axis)] = axisSize;
  const size_t n = static_cast<size_t>(test::numElements(out));
  std::vector<double> y(n, r == Red::Mul ? 1.0 : 0.0);
  std::vector<bool> touched(n, false);
  if (initial) y = *initial;
  for (int64_t k = 0; k < test::numElements(dataShape); ++k) {
    auto p = unravel(k, dataShape);
    const int64_t v = vector ? idx[static_cast<size_t>(p[static_cast<size_t>(axis)])] : idx[static_cast<size_t>(k)];
    if (v < 0 || v >= axisSize) continue;
    p[static_cast<size_t>(axis)] = v;
    const auto t = static_cast<size_t>(ravel(p, out));
    const double x = data[static_cast<size_t>(k)];
    const bool first = !touched[t] && !initial;
    switch (r) {
      case Red::Sum:
        y[t] += x;
        break;
      case Red::Mul:
        y[t] *= x;
        break;
      case Red::Max:
        y[t] = first ? x : std::max(y[t], x);
        break;
      case Red::Min:
        y[t] = first ? x : std::min(y[t], x);
        break;
      case Red::None:
        y[t] = x;
        break;
    }
    touched[t] = true;
  }
  return y;
}

ScatterReduction toPopart(Red r) {
  return static_cast<ScatterReduction>(static_cast<int>(r));
}

TEST(GraphcoreIndexOps, ScatterReduceEveryReductionBroadcastAndVectorIndicesWithAndWithoutInitialValues) {
  const Shape data{6, 3, 4};
  const auto x = test::randomDoubles(static_cast<size_t>(test::numElements(data)), 7, -2.0, 2.0);
  for (int64_t axis : {0, 1, -1}) {
    const int64_t a = axis < 0 ? axis + 3 : axis;
    const int64_t len = data[static_cast<size_t>(a)], axisSize = 3;
    std::vector<int64_t> vec;
    for (int64_t i = 0; i < len; ++i) vec.push_back((i * 5 + 1) % axisSize);
    vec[0] = axisSize + 2;  // out of range: skipped
    std::vector<int64_t> full(static_cast<size_t>(test::numElements(data)));
    for (size_t k = 0; k < full.size(); ++k)
      full[k] = static_cast<int64_t>((k * 7 + 3) % (axisSize + 1));  // 3: skipped
    Shape out = data;
    out[static_cast<size_t>(a)] = axisSize;
    const auto init = test::randomDoubles(static_cast<size_t>(test::numElements(out)), 11, -2.0, 2.0);
    for (Red r : {Red::Sum, Red::Max, Red::Min, Red::Mul, Red::None}) {
      for (bool vector : {false, true}) {
        for (bool withInitial : {false, true}) {
          Net g;
          const TensorId xi = g.in(x, data);
          std::vector<uint32_t> iv;
          for (auto v : vector ? vec : full) iv.push_back(static_cast<uint32_t>(v));
          const TensorId ii = g.in(iv, vector ? Shape{len} : data);
          std::vector<TensorId> args{xi, ii};
          if (withInitial) args.push_back(g.in(init, out));
          const TensorId y = g.gc.scatterreduce(args, axisSize, axis, toPopart(r));
          EXPECT_EQ(g.b->getTensorShape(y), out);
          auto res = g.run({y});
          expectEq(res.at(y).toVector<double>(),
                   scatterRef(x, data, vector ? vec : full, vector, a, axisSize, r, withInitial ? &init : nullptr));
        }
      }
    }
  }
}

TEST(GraphcoreIndexOps, ScatterReduceTorchScatterCases) {
  // torch_scatter's first case: empty positions are 0 (1 for mul); FLOAT and INT32 data.
  const std::vector<double> src{1, 3, 2, 4, 5, 6};
  const std::vector<uint32_t> index{0, 1, 0, 1, 1, 3};
  const std::map<Red, std::vector<double>> want{
      {Red::Sum, {3, 12, 0, 6}}, {Red::Mul, {2, 60, 1, 6}}, {Red::Min, {1, 3, 0, 6}}, {Red::Max, {2, 5, 0, 6}}};
  for (const auto& kv : want) {
    Net g;
    const TensorId y = g.gc.scatterreduce({g.in(src, {6}), g.in(index, {6})}, 4, -1, toPopart(kv.first));
    expectEq(g.run({y}).at(y).toVector<double>(), kv.second);
    Net gi;
    const std::vector<int32_t> srci(src.begin(), src.end());
    const TensorId yi = gi.gc.scatterreduce({gi.in(srci, {6}), gi.in(index, {6})}, 4, 0, toPopart(kv.first));
    const auto vi = gi.run({yi}).at(yi).toVector<int32_t>();
    expectEq(std::vector<double>(vi.begin(), vi.end()), kv.second);
  }
}

TEST(GraphcoreIndexOps, GroupedScatterReduceScattersEachGroupOnItsOwn) {
  const Shape data{2, 4, 3};
  const auto x = test::randomDoubles(24, 3);
  const std::vector<uint32_t> idx{2, 1, 0, 1, 0, 1, 0, 2, 1, 1, 2, 2,   // group 0 [4, 3]
                                  0, 1, 2, 1, 0, 1, 1, 2, 0, 2, 2, 1};  // group 1
  for (Red r : {Red::Sum, Red::Max, Red::Mul}) {
    Net g;
    const TensorId y = g.gc.groupedscatterreduce({g.in(x, data), g.in(idx, data)}, 3, 1, toPopart(r), 2);
    const auto got = g.run({y}).at(y).toVector<double>();
    ASSERT_EQ(got.size(), 18u);
    for (int grp = 0; grp < 2; ++grp) {
      const std::vector<double> xg(x.begin() + grp * 12, x.begin() + grp * 12 + 12);
      const std::vector<int64_t> ig(idx.begin() + grp * 12, idx.begin() + grp * 12 + 12);
      const auto w = scatterRef(xg, {4, 3}, ig, false, 0, 3, r, nullptr);
      expectEq(std::vector<double>(got.begin() + grp * 9, got.begin() + grp * 9 + 9), w);
    }
  }
}

TEST(GraphcoreIndexOps, ScatterReduceWithoutIndexBroadcastFollowsTheIndicesShape) {
  // enable_index_broadcast = 0: indices [6, 1] against data [6, 3] read only data[:, 0:1].
  Net g;
  const auto x = iota({6, 3}, 1.0);
  const TensorId y = g.gc.scatterreduce({g.in(x, {6, 3}), g.in(std::vector<uint32_t>{0, 1, 1, 3, 2, 0}, {6, 1})}, 5, 0,
                                        ScatterReduction::Sum, false);
  EXPECT_EQ(g.b->getTensorShape(y), (Shape{5, 1}));
  expectEq(g.run({y}).at(y).toVector<double>(), {1 + 16, 4 + 7, 13, 10, 0});
}

TEST(GraphcoreIndexOps, ScatterReduceErrorsInPopartsWords) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId s = b->addInputTensor(TensorInfo("FLOAT", {2, 3, 4}));
  const TensorId i = b->addInputTensor(TensorInfo("UINT32", {2, 3, 4}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.scatterreduce({s, i}, 5, 4);
                   },
                   {"axis = 4 is outside the acceptable range [-3, 2]"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.scatterreduce({s, i}, 0);
                   },
                   {"axis_size = 0 is not valid: must be > 0."});
  const TensorId src = b->addInputTensor(TensorInfo("FLOAT", {6, 3}));
  const TensorId bad = b->addInputTensor(TensorInfo("UINT32", {6, 2}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.scatterreduce({src, bad}, 5, 0);
                   },
                   {"Failed to expand 'indices' shape [6 2] to match 'src' shape [6 3] using reduction axis = 0."});
  const TensorId s2 = b->addInputTensor(TensorInfo("FLOAT", {3, 4}));
  const TensorId rank3 = b->addInputTensor(TensorInfo("UINT32", {3, 4, 1}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.scatterreduce({s2, rank3}, 5, 0);
                   },
                   {"Invalid rank for indices input. Indices rank 3 must be <= data input rank 2."});
  const TensorId s3 = b->addInputTensor(TensorInfo("FLOAT", {6, 3, 5}));
  const TensorId part = b->addInputTensor(TensorInfo("UINT32", {1, 3, 5}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.scatterreduce({s3, part}, 5, 0);
                   },
                   {"Partial broadcasting of indices is not currently supported"});
  const TensorId fi = b->addInputTensor(TensorInfo("FLOAT", {2, 3, 4}));
  expectModelError(*b, [&](AiGraphcoreOpset1& gx) { return gx.scatterreduce({s, fi}, 5); }, {"must be one of UINT8"});
  const TensorId init = b->addInputTensor(TensorInfo("FLOAT", {2, 3, 4}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.scatterreduce({s, i, init}, 5);
                   },
                   {"initial values [2 3 4] must have the output's shape [2 3 5]"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.groupedscatterreduce({s, i}, 5, 0, ScatterReduction::Sum, 2);
                   },
                   {"is the group dimension"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.groupedscatterreduce({s, i}, 5, 1, ScatterReduction::Sum, 3);
                   },
                   {"must have group_size (3) as their first dimension"});
  expectError(
      [&] {
        gc.callMethod("scatterreduce", {s, i}, {{"axis_size", int64_t{5}}, {"reduction", std::string("Mean")}});
      },
      {"Invalid ScatterReduction 'Mean'"});
}

// ------------------------------------------------------------------ groupedgather

TEST(GraphcoreIndexOps, GroupedGatherGathersEachGroupAtItsIndices) {
  const Shape data{2, 3, 5, 2};
  const auto x = iota(data);
  const std::vector<int32_t> idx{4, 0, -1, 2, 2, 1};  // [2, 3]: group 0 {4, 0, -1}, group 1 {2, 2, 1}
  Net g;
  const TensorId y = g.gc.groupedgather({g.in(x, data), g.in(idx, {2, 3})}, 2, 2);
  EXPECT_EQ(g.b->getTensorShape(y), (Shape{2, 3, 3, 2}));
  const auto got = g.run({y}).at(y).toVector<double>();
  std::vector<double> want;
  for (int64_t grp = 0; grp < 2; ++grp)
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t j = 0; j < 3; ++j) {
        int64_t v = idx[static_cast<size_t>(grp * 3 + j)];
        if (v < 0) v += 5;
        for (int64_t e = 0; e < 2; ++e) want.push_back(x[static_cast<size_t>(ravel({grp, a, v, e}, data))]);
      }
  expectEq(got, want);
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId d = b->addInputTensor(TensorInfo("FLOAT", {2, 3}));
  const TensorId i = b->addInputTensor(TensorInfo("INT32", {2, 1}));
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.groupedgather({d, i}, 0, 2);
                   },
                   {"axis 0 is the group dimension"});
  expectModelError(*b,
                   [&](AiGraphcoreOpset1& gx) {
                     return gx.groupedgather({d, i}, 1, 3);
                   },
                   {"must have group_size (3) as their first dimension"});
}

// ------------------------------------------------------------------ bucketize, sort, reducemedian

/// torch.bucketize (a binary search, as the boundaries are sorted).
int32_t bucketRef(double v, const std::vector<double>& b, bool right) {
  if (std::isnan(v)) return static_cast<int32_t>(b.size());
  const auto it = right ? std::upper_bound(b.begin(), b.end(), v) : std::lower_bound(b.begin(), b.end(), v);
  return static_cast<int32_t>(it - b.begin());
}

TEST(GraphcoreIndexOps, BucketizeMatchesTorchOnSortedBoundariesAndPopartOnUnsortedOnes) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x{3, 6, 9, 3, 6, 10, -1, 0, 1, 8, 9, 140, nan, inf, -inf, 2.5};
  const std::vector<double> bounds{0.9, 1, 2, 2, 3, 3, 4, 4.1, 9, 9};
  for (bool right : {false, true}) {
    Net g;
    const TensorId y = g.gc.bucketize({g.in(x, {4, 4}), g.in(bounds, {10})}, right);
    const auto got = g.run({y}).at(y).toVector<int32_t>();
    for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(got[k], bucketRef(x[k], bounds, right)) << x[k] << " " << right;
  }
  // PopART's test with unsorted boundaries [1, 2, 3, 6, 4, 5]: torch's binary search, which
  // PopART's scan from the top matches for these values.
  Net g;
  const std::vector<int32_t> v{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const TensorId y = g.gc.bucketize({g.in(v, {9}), g.in(std::vector<int32_t>{1, 2, 3, 6, 4, 5}, {6})}, false);
  const auto got = g.run({y}).at(y).toVector<int32_t>();
  EXPECT_EQ(got, (std::vector<int32_t>{0, 1, 2, 3, 3, 3, 6, 6, 6}));
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId i = b->addInputTensor(TensorInfo("FLOAT", {3}));
  const TensorId b2 = b->addInputTensor(TensorInfo("FLOAT", {2, 2}));
  const TensorId bi = b->addInputTensor(TensorInfo("INT32", {2}));
  expectModelError(*b, [&](AiGraphcoreOpset1& gx) { return gx.bucketize({i, b2}); }, {"non-empty 1-D tensor"});
  expectModelError(*b, [&](AiGraphcoreOpset1& gx) { return gx.bucketize({i, bi}); }, {"same element type"});
}

TEST(GraphcoreIndexOps, SortAscendingDescendingStableWithNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> x{3, 1, nan, 2, 1, 5, /**/ 0, -1, 4, 4, 2, -3};
  for (bool descending : {false, true}) {
    Net g;
    const auto outs = g.gc.sort({g.in(x, {2, 6})}, 1, descending, true);
    ASSERT_EQ(outs.size(), 2u);
    auto res = g.run(outs);
    const auto vals = res.at(outs[0]).toVector<double>();
    const auto idx = res.at(outs[1]).toVector<int64_t>();
    for (int r = 0; r < 2; ++r) {
      std::vector<int64_t> order(6);
      std::iota(order.begin(), order.end(), 0);
      auto val = [&](int64_t i) { return x[static_cast<size_t>(r * 6 + i)]; };
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        const double va = val(a), vb = val(b);
        if (std::isnan(va) || std::isnan(vb))
          return descending ? std::isnan(va) && !std::isnan(vb) : !std::isnan(va) && std::isnan(vb);
        return descending ? va > vb : va < vb;
      });
      for (size_t k = 0; k < 6; ++k) {
        EXPECT_EQ(idx[r * 6 + k], order[k]) << r << " " << k << " " << descending;
        const double w = val(order[k]);
        if (std::isnan(w))
          EXPECT_TRUE(std::isnan(vals[r * 6 + k]));
        else
          EXPECT_EQ(vals[r * 6 + k], w);
      }
    }
  }
}

TEST(GraphcoreIndexOps, ReduceMedianValuesAndIndicesOverAxes) {
  const Shape s{3, 5, 4};
  const auto x = test::randomDoubles(60, 21, -3.0, 3.0);
  const std::vector<nonstd::optional<std::vector<int64_t>>> axesCases{
      nonstd::nullopt,          std::vector<int64_t>{},       std::vector<int64_t>{1}, std::vector<int64_t>{0, 2},
      std::vector<int64_t>{-1}, std::vector<int64_t>{2, 0, 1}};
  for (const auto& axesOpt : axesCases) {
    for (bool keep : {false, true}) {
      Net g;
      const auto outs = g.gc.reducemedian({g.in(x, s)}, axesOpt, keep);
      auto res = g.run(outs);
      std::vector<int64_t> axes;
      if (!axesOpt) axes = {0, 1, 2};
      for (auto a : axesOpt.value_or(std::vector<int64_t>{})) axes.push_back(a < 0 ? a + 3 : a);
      std::sort(axes.begin(), axes.end());
      Shape kept, red, outShape;
      for (int64_t d = 0; d < 3; ++d) {
        const bool r = std::find(axes.begin(), axes.end(), d) != axes.end();
        (r ? red : kept).push_back(s[static_cast<size_t>(d)]);
        if (!r || keep) outShape.push_back(r ? 1 : s[static_cast<size_t>(d)]);
      }
      EXPECT_EQ(g.b->getTensorShape(outs[0]), outShape);
      EXPECT_EQ(g.b->getTensorShape(outs[1]), outShape);
      const auto vals = res.at(outs[0]).toVector<double>();
      const auto idx = res.at(outs[1]).toVector<int32_t>();
      ASSERT_EQ(vals.size(), static_cast<size_t>(test::numElements(kept)));
      for (int64_t m = 0; m < test::numElements(kept); ++m) {
        const auto kp = unravel(m, kept);
        std::vector<std::pair<double, int64_t>> block;
        for (int64_t j = 0; j < test::numElements(red); ++j) {
          const auto rp = unravel(j, red);
          std::vector<int64_t> p(3);
          size_t ki = 0, ri = 0;
          for (int64_t d = 0; d < 3; ++d)
            p[static_cast<size_t>(d)] = std::find(axes.begin(), axes.end(), d) != axes.end() ? rp[ri++] : kp[ki++];
          block.push_back({x[static_cast<size_t>(ravel(p, s))], j});
        }
        std::sort(block.begin(), block.end());
        const auto med = block[(block.size() - 1) / 2];
        EXPECT_EQ(vals[static_cast<size_t>(m)], med.first);
        EXPECT_EQ(idx[static_cast<size_t>(m)], med.second);
      }
    }
  }
  // PopART's example: the median of 0..14 over both axes is 7, at 7.
  Net g;
  const auto outs = g.gc.reducemedian({g.in(iota({3, 5}), {3, 5})});
  auto res = g.run(outs);
  expectEq(res.at(outs[0]).toVector<double>(), {7});
  EXPECT_EQ(res.at(outs[1]).toVector<int32_t>(), std::vector<int32_t>{7});
  EXPECT_EQ(g.b->getTensorShape(outs[0]), (Shape{1, 1}));
}

// ------------------------------------------------------------------ packedDataBlock

TEST(GraphcoreIndexOps, PackedDataBlockUnpacksCallsTheCallbackAndPacks) {
  const std::vector<int64_t> lengths{3, 5, 7, 4, 6, 2};
  std::vector<uint32_t> lens, offs;
  int64_t total = 0;
  for (auto l : lengths) {
    offs.push_back(static_cast<uint32_t>(total));
    lens.push_back(static_cast<uint32_t>(l));
    total += l;
  }
  const int64_t maxLen = 10, width = 5;
  const auto data = test::randomDoubles(static_cast<size_t>(total * width), 5);
  for (int64_t batch : {1, 2, 3}) {
    Net g;
    const TensorId d = g.in(data, {total, width});
    const TensorId l = g.in(lens, {6});
    const TensorId o = g.in(offs, {6});
    Builder& sub = g.b->createSubgraphBuilder();
    const TensorId si = sub.addUntypedInputTensor();
    auto sai = sub.aiOnnxOpset11();
    const TensorId out = sai.matmul({si, sai.transpose({si}, {0, 2, 1})});
    sub.addOutputTensor(out);
    const TensorId y = g.gc.packedDataBlock({d, o, l, o, l}, {maxLen}, total, batch, sub);
    EXPECT_EQ(g.b->getTensorShape(y), (Shape{total, maxLen}));
    const auto got = g.run({y}).at(y).toVector<double>();
    // Reference: sequence s unpacked to [maxLen, width] (zero-padded), times its transpose; its
    // first length rows packed at its offset.
    std::vector<double> want(static_cast<size_t>(total * maxLen), 0.0);
    for (size_t s = 0; s < lengths.size(); ++s) {
      for (int64_t r = 0; r < lengths[s]; ++r) {
        for (int64_t c = 0; c < maxLen; ++c) {
          double acc = 0;
          for (int64_t e = 0; e < width && c < lengths[s]; ++e)
            acc += data[static_cast<size_t>((offs[s] + r) * width + e)] *
                   data[static_cast<size_t>((offs[s] + c) * width + e)];
          want[static_cast<size_t>((offs[s] + r) * maxLen + c)] = acc;
        }
      }
    }
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12) << "batch " << batch << " at " << k;
  }
}

TEST(GraphcoreIndexOps, PackedDataBlockErrors) {
  auto b = Builder::create();
  auto gc = b->aiGraphcoreOpset1();
  const TensorId d = b->addInputTensor(TensorInfo("FLOAT", {10, 4}));
  const TensorId n = b->addInputTensor(TensorInfo("UINT32", {3}));
  Builder& sub = b->createSubgraphBuilder();
  sub.addOutputTensor(sub.aiOnnxOpset11().relu({sub.addUntypedInputTensor()}));
  const TensorId y = gc.packedDataBlock({d, n, n, n, n}, {5, 6}, 10, 1, sub);
  b->addOutputTensor(y);
  expectError([&] { test::runOnce(b->getModelProto(), {}, {y}); },
              {"maxSequenceLengths [5 6] must hold one length per data input (1)"});
  expectError(
      [&] {
        gc.callMethod("packedDataBlock", {d, n, n, n, n},
                      {{"maxSequenceLengths", std::vector<int64_t>{5}},
                       {"resultSize", int64_t{10}},
                       {"callbackBatchSize", int64_t{1}}});
      },
      {"missing required attribute 'callback'"});
  expectError(
      [&] {
        gc.callMethod("packedDataBlock", {d, n, n, n, n},
                      {{"maxSequenceLengths", std::vector<int64_t>{5}},
                       {"resultSize", int64_t{10}},
                       {"callbackBatchSize", int64_t{1}},
                       {"callback", std::string("f")}});
      },
      {"callback must be a Builder (a subgraph)"});
}

}  // namespace
}  // namespace popart
