// ONNX MeanVarianceNormalization (opset 9 / 13) against a double-precision reference over several
// axes sets and element types, and MaxPool of INT8 / UINT8 (opset 12) against the same pooling of
// the values as FLOAT (values and indices), with the errors of both.
#include <algorithm>
#include <cmath>
#include <map>

#include "common/test_util.hpp"
#include "popart/half.hpp"

namespace popart {
namespace {

using test::expectError;
using test::expectNear;

/// (x - mean) / (sqrt(variance) + 1e-9) over `axes` (ONNX's definition), in double.
std::vector<double> mvnReference(const std::vector<double>& x, const Shape& s, std::vector<int64_t> axes) {
  const int64_t rank = static_cast<int64_t>(s.size());
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  auto keyOf = [&](int64_t i) {  // the element's index with the reduced axes zeroed
    int64_t key = 0, stride = 1;
    for (int64_t d = rank; d-- > 0;) {
      const int64_t at = i % s[static_cast<size_t>(d)];
      i /= s[static_cast<size_t>(d)];
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) key += at * stride;
      stride *= s[static_cast<size_t>(d)];
    }
    return key;
  };
  const int64_t n = static_cast<int64_t>(x.size());
  std::map<int64_t, std::vector<int64_t>> groups;
  for (int64_t i = 0; i < n; ++i) groups[keyOf(i)].push_back(i);
  std::vector<double> y(x.size());
  for (const auto& [key, members] : groups) {
    double mean = 0, var = 0;
    for (int64_t i : members) mean += x[static_cast<size_t>(i)];
    mean /= static_cast<double>(members.size());
    for (int64_t i : members) var += (x[static_cast<size_t>(i)] - mean) * (x[static_cast<size_t>(i)] - mean);
    const double sd = std::sqrt(var / static_cast<double>(members.size()));
    for (int64_t i : members) y[static_cast<size_t>(i)] = (x[static_cast<size_t>(i)] - mean) / (sd + 1e-9);
  }
  return y;
}

TEST(MeanVarianceNormalization, AgainstReference) {
  struct Case {
    Shape s;
    std::vector<int64_t> axes;  // empty: the default [0, 2, 3]
  };
  const std::vector<Case> cases{{{2, 3, 4, 5}, {}},     {{3, 2, 1, 6}, {}},           {{2, 3, 4}, {1}},
                                {{2, 3, 4}, {-1}},      {{2, 3, 4}, {0, 2}},          {{4, 5}, {0, 1}},
                                {{2, 3, 4, 5}, {1, 3}}, {{2, 1, 3, 1, 4}, {0, 3, 4}}, {{6}, {0}}};
  uint32_t seed = 500;
  for (const auto& c : cases) {
    const int64_t n = test::numElements(c.s);
    const auto xd = test::randomDoubles(static_cast<size_t>(n), seed++, -3, 5);
    const std::vector<double> want = mvnReference(xd, c.s, c.axes.empty() ? std::vector<int64_t>{0, 2, 3} : c.axes);
    const std::string what = "shape " + std::to_string(c.s.size()) + "-D, " + std::to_string(c.axes.size()) + " axes";
    for (int opset : {9, 13}) {
      {
        test::Net net;
        const TensorId x = net.in(xd, c.s);
        const TensorId y = opset == 9 ? net.b->aiOnnxOpset9().meanvariancenormalization({x}, c.axes)
                                      : net.b->aiOnnxOpset13().meanvariancenormalization({x}, c.axes);
        expectNear(net.runOne(y).toVector<double>(), want, 1e-12, what + " DOUBLE");
      }
      {
        test::Net net;
        const std::vector<float> xf(xd.begin(), xd.end());
        const TensorId x = net.in(xf, c.s);
        const TensorId y = net.b->aiOnnxOpset13().meanvariancenormalization({x}, c.axes);
        expectNear(net.runOne(y).toVector<float>(),
                   mvnReference({xf.begin(), xf.end()}, c.s, c.axes.empty() ? std::vector<int64_t>{0, 2, 3} : c.axes),
                   1e-6, what + " FLOAT");
      }
    }
  }
  // FLOAT16: the statistics in double, the result rounded once.
  const Shape s{2, 3, 2, 2};
  const auto xd = test::randomDoubles(24, 520, -2, 2);
  std::vector<float16_t> xh;
  for (double v : xd) xh.push_back(float16_t(static_cast<float>(v)));
  std::vector<double> xr;
  for (auto v : xh) xr.push_back(static_cast<float>(v));
  test::Net net;
  const TensorId y = net.b->aiOnnxOpset13().meanvariancenormalization({net.in(xh, s)});
  std::vector<double> got;
  for (auto v : net.runOne(y).toVector<float16_t>()) got.push_back(static_cast<float>(v));
  expectNear(got, mvnReference(xr, s, {0, 2, 3}), 1e-3, "FLOAT16");
}

TEST(MeanVarianceNormalization, ConstantGroupsGiveZero) {
  // A group of equal values has variance 0: (x - mean) = 0 and the epsilon keeps it finite.
  test::Net net;
  const TensorId y = net.b->aiOnnxOpset13().meanvariancenormalization(
      {net.in(std::vector<float>{2, 2, 2, 2, 1, 3, 1, 3}, {2, 4})}, {1});
  EXPECT_EQ(net.runOne(y).toVector<float>(), (std::vector<float>{0, 0, 0, 0, -1, 1, -1, 1}));
}

TEST(MeanVarianceNormalization, Errors) {
  auto sessionError = [](const Shape& s, DataType t, const std::vector<int64_t>& axes,
                         const std::vector<std::string>& fragments, int opset = 13) {
    auto b = Builder::create();
    const TensorId x = b->addInputTensor(TensorInfo(t, s));
    const TensorId y = opset == 9 ? b->aiOnnxOpset9().meanvariancenormalization({x}, axes)
                                  : b->aiOnnxOpset13().meanvariancenormalization({x}, axes);
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  sessionError({2, 3, 4, 5}, DataType::INT32, {}, {"MeanVarianceNormalization", "must be a floating-point tensor"});
  sessionError({2, 3, 4}, DataType::FLOAT, {}, {"the default axes [0, 2, 3] need X of rank >= 4, got [2 3 4]"});
  sessionError({2, 3, 4}, DataType::FLOAT, {0, 3}, {"axes 3 is out of range for a tensor of rank 3"});
  sessionError({2, 3, 4}, DataType::FLOAT, {1, -2}, {"repeats axis -2"});
  sessionError({2, 3, 4, 5}, DataType::BFLOAT16, {}, {"BFLOAT16", "from opset 13"}, 9);
}

/// MaxPool (opset 12) of `x` with the given window: values and indices.
template <typename T>
std::pair<NDArray, NDArray> maxPoolRun(const std::vector<T>& x, const Shape& s, const std::vector<int64_t>& kernel,
                                       const std::vector<int64_t>& pads, const std::vector<int64_t>& strides,
                                       const std::vector<int64_t>& dilations, int64_t ceil, int64_t storageOrder) {
  test::Net net;
  const auto ys =
      net.b->aiOnnxOpset12().maxpool({net.in(x, s)}, 2, kernel, ceil, dilations, pads, storageOrder, strides);
  const auto out = net.run(ys);
  return {out.at(ys[0]), out.at(ys[1])};
}

TEST(MaxPoolInteger, MatchesFloatPooling) {
  // INT8 and UINT8 pool exactly as FLOAT does on the same values (which are exact in float).
  struct Case {
    Shape s;
    std::vector<int64_t> kernel, pads, strides, dilations;
    int64_t ceil, storageOrder;
  };
  const std::vector<Case> cases{{{1, 1, 5, 5}, {5, 5}, {2, 2, 2, 2}, {}, {}, 0, 0},  // ONNX's maxpool_2d_uint8 shape
                                {{2, 3, 6, 7}, {3, 2}, {1, 0, 1, 1}, {2, 2}, {}, 1, 0},
                                {{1, 2, 7, 6}, {2, 2}, {}, {1, 2}, {2, 2}, 0, 1},
                                {{2, 2, 9}, {3}, {1, 1}, {2}, {}, 0, 0},
                                {{1, 1, 3, 4, 4}, {2, 2, 2}, {}, {1, 1, 1}, {}, 0, 0}};
  uint32_t seed = 600;
  for (const auto& c : cases) {
    const size_t n = static_cast<size_t>(test::numElements(c.s));
    const auto r = test::randomFloats(n, seed++, 0, 1);
    std::vector<uint8_t> u;
    std::vector<int8_t> i8;
    std::vector<float> fu, fi;
    for (float v : r) {
      u.push_back(static_cast<uint8_t>(v * 255));
      i8.push_back(static_cast<int8_t>(static_cast<int>(v * 255) - 128));
      fu.push_back(u.back());
      fi.push_back(i8.back());
    }
    const auto [wu, wui] = maxPoolRun(fu, c.s, c.kernel, c.pads, c.strides, c.dilations, c.ceil, c.storageOrder);
    const auto [gu, gui] = maxPoolRun(u, c.s, c.kernel, c.pads, c.strides, c.dilations, c.ceil, c.storageOrder);
    EXPECT_EQ(gu.dataType(), DataType::UINT8);
    EXPECT_EQ(gu.shape(), wu.shape());
    const auto gv = gu.toVector<uint8_t>();
    EXPECT_EQ(std::vector<float>(gv.begin(), gv.end()), wu.toVector<float>());
    EXPECT_EQ(gui.toVector<int64_t>(), wui.toVector<int64_t>());
    const auto [wi, wii] = maxPoolRun(fi, c.s, c.kernel, c.pads, c.strides, c.dilations, c.ceil, c.storageOrder);
    const auto [gi, gii] = maxPoolRun(i8, c.s, c.kernel, c.pads, c.strides, c.dilations, c.ceil, c.storageOrder);
    EXPECT_EQ(gi.dataType(), DataType::INT8);
    const auto giv = gi.toVector<int8_t>();
    EXPECT_EQ(std::vector<float>(giv.begin(), giv.end()), wi.toVector<float>());
    EXPECT_EQ(gii.toVector<int64_t>(), wii.toVector<int64_t>());
  }
  // By hand: INT8's -128 is a value like any other (a window of -128s gives -128).
  test::Net net;
  const TensorId y = net.b->aiOnnxOpset12().maxpool({net.in(std::vector<int8_t>{-128, -128, 5, -7}, {1, 1, 4})}, 1, {2},
                                                    0, {}, {}, 0, {2})[0];
  EXPECT_EQ(net.runOne(y).toVector<int8_t>(), (std::vector<int8_t>{-128, 5}));
}

TEST(MaxPoolInteger, Errors) {
  auto sessionError = [](DataType t, int opset, bool average, const std::vector<std::string>& fragments) {
    auto b = Builder::create();
    const TensorId x = b->addInputTensor(TensorInfo(t, {1, 1, 4, 4}));
    TensorId y;
    if (average)
      y = b->aiOnnxOpset12().averagepool({x}, {2, 2});
    else if (opset == 11)
      y = b->aiOnnxOpset11().maxpool({x}, 1, {2, 2})[0];
    else
      y = b->aiOnnxOpset12().maxpool({x}, 1, {2, 2})[0];
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  sessionError(DataType::UINT8, 11, false, {"MaxPool", "UINT8, which MaxPool takes from opset 12"});
  sessionError(DataType::INT32, 12, false,
               {"must be a floating-point tensor", "from opset 12, INT8 or UINT8", "INT32"});
  sessionError(DataType::UINT8, 12, true, {"AveragePool", "must be a floating-point tensor"});
}

}  // namespace
}  // namespace popart
