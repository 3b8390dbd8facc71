// Cast and CastLike to and from STRING (backends/cpu/kernels/cast_text.hpp): the text of numbers
// against NumPy's str() forms written here, text read as numbers, and the error for text that is
// not a number.
#include <cmath>
#include <limits>

#include "common/test_util.hpp"

namespace popart {
namespace {

using test::expectError;

TEST(CastString, NumbersAreWrittenWithTheirShortestDigits) {
  test::Net net;
  auto ai = net.b->aiOnnxOpset13();
  const std::vector<float> f{0.9767611f,
                             0.6048455f,
                             0.039187793f,
                             1.0f,
                             100000.0f,
                             123456789.0f,
                             1e16f,
                             1e-5f,
                             -0.0f,
                             1.5e20f,
                             -2.5f,
                             0.0001f,
                             std::nanf(""),
                             std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()};
  const TensorId tf = net.in(f, {static_cast<int64_t>(f.size())});
  const TensorId td = net.in(std::vector<double>{0.1, 1.0 / 3.0}, {2});
  const TensorId ti = net.in(std::vector<int64_t>{-9007199254740993, 42}, {2});
  const bool bools[2] = {true, false};
  const TensorId tb = net.b->addInputTensor(TensorInfo(DataType::BOOL, Shape{2}));
  net.inputs.emplace(tb, NDArray::fromData(bools, {2}));
  const TensorId sf = ai.cast({tf}, "STRING"), sd = ai.cast({td}, "STRING"), si = ai.cast({ti}, "STRING");
  const TensorId sb = ai.cast({tb}, "STRING");
  const auto got = net.run({sf, sd, si, sb});
  EXPECT_EQ(got.at(sf).toVector<std::string>(),
            (std::vector<std::string>{"0.9767611", "0.6048455", "0.039187793", "1.0", "100000.0", "123456790.0",
                                      "1e+16", "1e-05", "-0.0", "1.5e+20", "-2.5", "1e-04", "NaN", "INF", "-INF"}));
  EXPECT_EQ(got.at(sd).toVector<std::string>(), (std::vector<std::string>{"0.1", "0.3333333333333333"}));
  EXPECT_EQ(got.at(si).toVector<std::string>(), (std::vector<std::string>{"-9007199254740993", "42"}));
  EXPECT_EQ(got.at(sb).toVector<std::string>(), (std::vector<std::string>{"True", "False"}));
}

TEST(CastString, TextIsReadAsNumbers) {
  test::Net net;
  auto ai = net.b->aiOnnxOpset15();
  const std::vector<std::string> s{"0.47892547", "NaN", "INF", "+INF", "-INF", "inf", "1E8", " 3.5 ", "-1e-5", "100.7"};
  const TensorId ts = net.in(s, {static_cast<int64_t>(s.size())});
  const TensorId ti = net.in(std::vector<std::string>{"9007199254740993", "-7", "100.7", "1e30"}, {4});
  const TensorId like = net.in(std::vector<double>{0.0}, {1});
  const TensorId yf = ai.cast({ts}, "FLOAT");
  const TensorId yd = ai.castlike({ts, like});
  const TensorId yi = ai.cast({ti}, "INT64");
  const TensorId yu = ai.cast({ti}, "INT8");
  const auto got = net.run({yf, yd, yi, yu});
  const auto f = got.at(yf).toVector<float>();
  EXPECT_FLOAT_EQ(f[0], 0.47892547f);
  EXPECT_TRUE(std::isnan(f[1]));
  EXPECT_EQ(f[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(f[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(f[4], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(f[5], std::numeric_limits<float>::infinity());
  EXPECT_EQ(f[6], 1e8f);
  EXPECT_EQ(f[7], 3.5f);
  EXPECT_EQ(f[8], -1e-5f);
  const auto d = got.at(yd).toVector<double>();
  EXPECT_EQ(d[0], 0.47892547);
  EXPECT_EQ(d[9], 100.7);
  EXPECT_EQ(got.at(yi).toVector<int64_t>(), (std::vector<int64_t>{9007199254740993, -7, 100, INT64_MAX}));
  EXPECT_EQ(got.at(yu).toVector<int8_t>(), (std::vector<int8_t>{127, -7, 100, 127}));
}

TEST(CastString, TextThatIsNotANumberIsAnError) {
  test::Net net;
  auto ai = net.b->aiOnnxOpset13();
  const TensorId ts = net.in(std::vector<std::string>{"1.5", "Hello World!"}, {2});
  const TensorId y = ai.cast({ts}, "FLOAT");
  expectError([&] { net.run({y}); }, {"element 1 of the input is 'Hello World!', which is not a number"});
}

}  // namespace
}  // namespace popart
