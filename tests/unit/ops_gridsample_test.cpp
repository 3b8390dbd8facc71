// ONNX GridSample (opset 16) built with aiOnnxOpset16().gridsample and run on the CPU device:
// small cases worked by hand, every mode x padding_mode x align_corners against a table computed
// by PyTorch (grid points inside and outside [-1, 1]), the element types, and the errors.
#include <cmath>
#include <limits>

#include "common/test_util.hpp"
#include "popart/half.hpp"

namespace popart {
namespace {

using test::expectError;
using test::expectNear;

using GsNet = test::Net;

/// Y of GridSample over FLOAT X [xs] and grid [gs], as doubles.
std::vector<double> gsSample(const std::vector<float>& x, const Shape& xs, const std::vector<float>& grid,
                             const Shape& gs, const std::string& mode, const std::string& padding, int64_t align) {
  GsNet n;
  const TensorId xi = n.in(x, xs), gi = n.in(grid, gs);
  const NDArray y = n.runOne(n.b->aiOnnxOpset16().gridsample({xi, gi}, align, mode, padding));
  EXPECT_EQ(y.shape(), (Shape{xs[0], xs[1], gs[1], gs[2]}));
  const auto v = y.toVector<float>();
  return {v.begin(), v.end()};
}

TEST(GridSample, HandWorkedCases) {
  // X = [[1, 2], [3, 4]]. With align_corners the grid's -1 / 1 are the corner pixels' centres.
  const std::vector<float> x{1, 2, 3, 4};
  const Shape xs{1, 1, 2, 2};
  auto one = [&](float gx, float gy, const std::string& mode, const std::string& pad, int64_t ac) {
    return gsSample(x, xs, {gx, gy}, {1, 1, 1, 2}, mode, pad, ac).at(0);
  };
  EXPECT_DOUBLE_EQ(one(-1, -1, "bilinear", "zeros", 1), 1.0);
  EXPECT_DOUBLE_EQ(one(1, 1, "bilinear", "zeros", 1), 4.0);
  EXPECT_DOUBLE_EQ(one(0, 0, "bilinear", "zeros", 1), 2.5);   // the mean of the four
  EXPECT_DOUBLE_EQ(one(1, -1, "bilinear", "zeros", 1), 2.0);  // x is the first grid value
  // Without align_corners -1 / 1 are the outer edges: (-1, -1) is pixel (-0.5, -0.5), a quarter of
  // X[0][0] with zeros padding, X[0][0] itself with border padding and reflection (it reflects to
  // -0.5 + 0.5 = 0 after the clamp).
  EXPECT_DOUBLE_EQ(one(-1, -1, "bilinear", "zeros", 0), 0.25);
  EXPECT_DOUBLE_EQ(one(-1, -1, "bilinear", "border", 0), 1.0);
  EXPECT_DOUBLE_EQ(one(-1, -1, "bilinear", "reflection", 0), 1.0);
  EXPECT_DOUBLE_EQ(one(0, 0, "bilinear", "zeros", 0), 2.5);
  // Outside: x = 2 with align_corners is pixel 1.5: zeros reads half of the row's last pixel,
  // border the last pixel, reflection pixel 0.5 (reflected by 1).
  EXPECT_DOUBLE_EQ(one(2, -1, "bilinear", "zeros", 1), 1.0);
  EXPECT_DOUBLE_EQ(one(2, -1, "bilinear", "border", 1), 2.0);
  EXPECT_DOUBLE_EQ(one(2, -1, "bilinear", "reflection", 1), 1.5);
  // Far away: x = 9 with align_corners is pixel 5, reflected by 1 then 0 then 1 ...: 5 -> 1.
  EXPECT_DOUBLE_EQ(one(9, -1, "bilinear", "reflection", 1), 2.0);
  EXPECT_DOUBLE_EQ(one(-9, 1, "bilinear", "border", 0), 3.0);
  EXPECT_DOUBLE_EQ(one(-9, 1, "bilinear", "zeros", 0), 0.0);
  // Nearest rounds half to even (std::nearbyint): (0, 0) with align_corners is pixel (0.5, 0.5).
  EXPECT_DOUBLE_EQ(one(0, 0, "nearest", "zeros", 1), 1.0);
  EXPECT_DOUBLE_EQ(one(0.5f, -1, "nearest", "zeros", 1), 2.0);  // pixel 0.75 -> 1
  // Without align_corners, grid 1 is pixel 1.5: rounds to 2, outside a 2-pixel row (zeros: 0).
  EXPECT_DOUBLE_EQ(one(1, -1, "nearest", "zeros", 0), 0.0);
  EXPECT_DOUBLE_EQ(one(1, -1, "nearest", "border", 0), 2.0);

  // Half to even on a 4-pixel row without align_corners: grid 0 is pixel 1.5 -> 2, grid -0.5 is
  // 0.5 -> 0, grid 0.5 is 2.5 -> 2.
  const std::vector<float> row{10, 11, 12, 13};
  EXPECT_EQ(gsSample(row, {1, 1, 1, 4}, {0, 0, -0.5f, 0, 0.5f, 0}, {1, 1, 3, 2}, "nearest", "zeros", 0),
            (std::vector<double>{12, 10, 12}));

  // Keys' bicubic (A = -0.75) on the ramp X[w] = w of a 5-pixel row with align_corners: grid 0 is
  // pixel 2 (the pixel itself), grid 0.1 pixel 2.2, whose taps 1 .. 4 weigh -0.096, 0.92, 0.2 and
  // -0.024: -0.096 + 1.84 + 0.6 - 0.096 = 2.248 (with A = -0.75 the kernel does not reproduce a ramp).
  const std::vector<float> ramp{0, 1, 2, 3, 4};
  expectNear(gsSample(ramp, {1, 1, 1, 5}, {0, 0, 0.1f, 0}, {1, 1, 2, 2}, "bicubic", "zeros", 1), {2.0, 2.248}, 1e-6,
             "bicubic ramp");
  // Its weights at t = 0.5: -0.09375, 0.59375, 0.59375, -0.09375 (A = -0.75). Pixel 0.5 of the ramp
  // with zeros padding reads 0 at tap -1: 0.59375 * 0 + 0.59375 * 1 - 0.09375 * 2 = 0.40625; border
  // padding reads X[0] = 0 there too, and reflection X[1] = 1: 0.3125.
  expectNear(gsSample(ramp, {1, 1, 1, 5}, {-0.75f, 0}, {1, 1, 1, 2}, "bicubic", "zeros", 1), {0.40625}, 1e-6,
             "bicubic zeros");
  expectNear(gsSample(ramp, {1, 1, 1, 5}, {-0.75f, 0}, {1, 1, 1, 2}, "bicubic", "border", 1), {0.40625}, 1e-6,
             "bicubic border");
  expectNear(gsSample(ramp, {1, 1, 1, 5}, {-0.75f, 0}, {1, 1, 1, 2}, "bicubic", "reflection", 1), {0.3125}, 1e-6,
             "bicubic reflection");
}

// The PyTorch table: X [1, 2, 3, 4] with X.flatten()[i] = ((37 i) mod 23) / 4 - 2.5, grid
// [1, 2, 4, 2] of the points below, Y [1, 2, 2, 4] (channel 0 then channel 1), made in double with
//   torch.nn.functional.grid_sample(X, grid, mode=mode, padding_mode=padding_mode,
//                                   align_corners=bool(align_corners))
// and printed with "%.10g" (torch 2, CPU).
const std::vector<float> kGsGrid{-1.0f, -1.0f, 0.0f,    1.0f,    0.625f, -0.375f, 1.25f, 0.125f,
                                 -1.5f, 2.75f, -3.375f, -1.125f, 0.5f,   -0.875f, 5.5f,  -2.25f};

struct GsTorchCase {
  const char* mode;
  const char* padding;
  int64_t align;
  std::vector<double> y;
};

const std::vector<GsTorchCase>& gsTorchTable() {
  static const std::vector<GsTorchCase> t = {
      {"bilinear",
       "zeros",
       0,
       {-0.625, -0.4375, 0.58203125, 0, 0, 0, 0.34375, 0, -0.1875, 0.4375, -0.09375, 0, 0, 0, -0.4296875, 0}},
      {"bilinear",
       "zeros",
       1,
       {-2.5, -0.875, 0.271484375, -0.4296875, 0, 0, -0.2421875, 0, -0.75, 0.875, 1.078125, 0.21484375, 0, 0, 0.25, 0}},
      {"bilinear",
       "border",
       0,
       {-2.5, -0.875, 0.58203125, -0.53125, 2.5, -2.5, 0.5, 2.25, -0.75, 0.875, -0.09375, 0.140625, -1.5, -0.75, -0.625,
        -1.75}},
      {"bilinear",
       "border",
       1,
       {-2.5, -0.875, 0.271484375, -0.6875, 2.5, -2.5, -0.2421875, 2.25, -0.75, 0.875, 1.078125, 0.34375, -1.5, -0.75,
        0.25, -1.75}},
      {"bilinear",
       "reflection",
       0,
       {-2.5, -0.875, 0.58203125, -0.53125, -0.75, 1.375, 0.5, -0.015625, -0.75, 0.875, -0.09375, 0.140625, 1, -1.1875,
        -0.625, 0.65625}},
      {"bilinear",
       "reflection",
       1,
       {-2.5, -0.875, 0.271484375, -0.11328125, -0.328125, 0.279296875, -0.2421875, 0.234375, -0.75, 0.875, 1.078125,
        1.1875, 1.421875, -0.171875, 0.25, 1.625}},
      {"nearest", "zeros", 0, {-2.5, -2, 2.25, 0, 0, 0, -1.25, 0, -0.75, -0.25, -1.75, 0, 0, 0, 0.5, 0}},
      {"nearest", "zeros", 1, {-2.5, -2, 1.25, -1, 0, 0, -1.25, 0, -0.75, -0.25, 3, 0.75, 0, 0, 0.5, 0}},
      {"nearest",
       "border",
       0,
       {-2.5, -2, 2.25, -1, 2.5, -2.5, -1.25, 2.25, -0.75, -0.25, -1.75, 0.75, -1.5, -0.75, 0.5, -1.75}},
      {"nearest",
       "border",
       1,
       {-2.5, -2, 1.25, -1, 2.5, -2.5, -1.25, 2.25, -0.75, -0.25, 3, 0.75, -1.5, -0.75, 0.5, -1.75}},
      {"nearest",
       "reflection",
       0,
       {-2.5, -2, 2.25, -1, -2.5, 2.25, -1.25, 1.25, -0.75, -0.25, -1.75, 0.75, -0.75, -1.75, 0.5, 3}},
      {"nearest",
       "reflection",
       1,
       {-2.5, -2, 1.25, -1, 1, -1.25, -1.25, 1.25, -0.75, -0.25, 3, 0.75, 2.75, 0.5, 0.5, 3}},
      {"bicubic",
       "zeros",
       0,
       {-0.9567871094, -0.7927246094, 0.7838873267, 0, 0, 0, 0.3693990707, 0, -0.5192871094, 0.7224121094,
        -0.07886695862, 0, 0, 0, -1.070269108, 0}},
      {"bicubic",
       "zeros",
       1,
       {-2.5, -1.4140625, 0.5769866183, -0.8345124125, -0.02269363403, 0, -0.4575753212, 0, -0.75, 1.4140625, 1.6640912,
        0.1111683249, 0.01627349854, 0, 0.04375457764, 0}},
      {"bicubic",
       "border",
       0,
       {-3.113037109, -1.499755859, 0.547506392, -0.8924713135, 2.5, -2.62588501, 0.2708878517, 2.25, -1.363037109,
        1.429443359, 0.1208326221, 0.4500732422, -1.5, -0.8758850098, -1.172601223, -1.75}},
      {"bicubic",
       "border",
       1,
       {-2.5, -1.4140625, 0.5720021352, -1.198571861, 2.579101562, -2.679443359, -0.4796767235, 2.25, -0.75, 1.4140625,
        1.702944137, 0.3426513672, -1.623046875, -0.9294433594, 0.1170725822, -1.75}},
      {"bicubic",
       "reflection",
       0,
       {-3.827148438, -1.585449219, 0.547506392, -0.8924713135, -0.4640808105, 1.659125328, 0.2626266479, 0.1417655945,
        -2.077148438, 1.444824219, 0.1208326221, 0.4500732422, 1.285919189, -1.754740715, -1.325630188, 1.171611786}},
      {"bicubic",
       "reflection",
       1,
       {-2.5, -1.4140625, 0.4959902763, -0.2302742004, -0.072681427, 0.3179793358, -0.4947814941, 0.5837402344, -0.75,
        1.4140625, 1.31711179, 1.334543705, 1.730224609, -0.7415913939, -0.1850013733, 2.098602295}},
  };
  return t;
}

std::vector<double> gsTorchX() {
  std::vector<double> x;
  for (int i = 0; i < 24; ++i) x.push_back(static_cast<double>((i * 37) % 23) / 4.0 - 2.5);
  return x;
}

TEST(GridSample, EveryModePaddingAndAlignmentMatchesPyTorch) {
  const auto xd = gsTorchX();
  const std::vector<float> xf(xd.begin(), xd.end());
  ASSERT_EQ(gsTorchTable().size(), 18u);
  for (const GsTorchCase& c : gsTorchTable()) {
    const std::string what = std::string(c.mode) + " " + c.padding + " align_corners=" + std::to_string(c.align);
    expectNear(gsSample(xf, {1, 2, 3, 4}, kGsGrid, {1, 2, 4, 2}, c.mode, c.padding, c.align), c.y, 1e-6, what);
  }
}

TEST(GridSample, DoubleFloat16AndMixedGridTypes) {
  const auto xd = gsTorchX();
  const std::vector<double> gd(kGsGrid.begin(), kGsGrid.end());
  std::vector<float16_t> xh, gh;
  for (double v : xd) xh.push_back(float16_t(static_cast<float>(v)));  // exact: quarters
  for (float v : kGsGrid) gh.push_back(float16_t(v));                  // exact: eighths
  for (const GsTorchCase& c : gsTorchTable()) {
    const std::string what = std::string(c.mode) + " " + c.padding + " align_corners=" + std::to_string(c.align);
    {  // DOUBLE X and grid: the table to its printed precision
      GsNet n;
      const TensorId x = n.in(xd, {1, 2, 3, 4}), g = n.in(gd, {1, 2, 4, 2});
      const NDArray y = n.runOne(n.b->aiOnnxOpset16().gridsample({x, g}, c.align, c.mode, c.padding));
      ASSERT_EQ(y.dataType(), DataType::DOUBLE);
      expectNear(y.toVector<double>(), c.y, 1e-9, what + " (DOUBLE)");
    }
    {  // FLOAT16 X with a FLOAT16 grid: rounded once to half
      GsNet n;
      const TensorId x = n.in(xh, {1, 2, 3, 4}), g = n.in(gh, {1, 2, 4, 2});
      const NDArray y = n.runOne(n.b->aiOnnxOpset16().gridsample({x, g}, c.align, c.mode, c.padding));
      ASSERT_EQ(y.dataType(), DataType::FLOAT16);
      std::vector<double> got;
      for (float16_t v : y.toVector<float16_t>()) got.push_back(static_cast<float>(v));
      expectNear(got, c.y, 1e-3, what + " (FLOAT16)");
    }
    {  // DOUBLE X with a FLOAT grid (ONNX's T1 and T2 are separate types): Y is DOUBLE
      GsNet n;
      const TensorId x = n.in(xd, {1, 2, 3, 4}), g = n.in(kGsGrid, {1, 2, 4, 2});
      const NDArray y = n.runOne(n.b->aiOnnxOpset16().gridsample({x, g}, c.align, c.mode, c.padding));
      ASSERT_EQ(y.dataType(), DataType::DOUBLE);
      expectNear(y.toVector<double>(), c.y, 1e-9, what + " (DOUBLE X, FLOAT grid)");
    }
  }
}

TEST(GridSample, BatchesChannelsAndNonFiniteGridValues) {
  // Two batches, each with its own grid; three channels share each grid point's taps.
  const Shape xs{2, 3, 2, 3};
  std::vector<float> x(36);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // Batch 0: the centre of pixel (1, 2) and a NaN; batch 1: pixel (0, 0) and +inf in x.
  const std::vector<float> grid{1, 1, nan, 0, -1, -1, inf, -1};
  for (const char* pad : {"zeros", "border", "reflection"}) {
    const auto y = gsSample(x, xs, grid, {2, 1, 2, 2}, "bilinear", pad, 1);
    ASSERT_EQ(y.size(), 12u);
    for (int c = 0; c < 3; ++c) {
      EXPECT_DOUBLE_EQ(y[static_cast<size_t>(2 * c)], 6.0 * c + 5) << pad;
      EXPECT_TRUE(std::isnan(y[static_cast<size_t>(2 * c + 1)])) << pad;
      EXPECT_DOUBLE_EQ(y[static_cast<size_t>(6 + 2 * c)], 18 + 6.0 * c) << pad;
      const double far = y[static_cast<size_t>(6 + 2 * c + 1)];
      // An infinite coordinate: outside (zeros), the row's last pixel (border), no reflection (NaN).
      if (std::string(pad) == "zeros") {
        EXPECT_DOUBLE_EQ(far, 0.0);
      } else if (std::string(pad) == "border") {
        EXPECT_DOUBLE_EQ(far, 18 + 6.0 * c + 2);
      } else {
        EXPECT_TRUE(std::isnan(far));
      }
    }
  }
  // An empty output grid gives an empty Y.
  EXPECT_TRUE(gsSample(x, xs, {}, {2, 0, 4, 2}, "bicubic", "border", 0).empty());
}

TEST(GridSample, Errors) {
  auto sessionError = [](const Shape& xs, const Shape& gs, const std::string& mode, const std::string& pad,
                         int64_t align, const std::vector<std::string>& fragments, DataType xt = DataType::FLOAT) {
    auto b = Builder::create();
    const auto x = b->addInputTensor(TensorInfo(xt, xs));
    const auto g = b->addInputTensor(TensorInfo(DataType::FLOAT, gs));
    const auto y = b->aiOnnxOpset16().gridsample({x, g}, align, mode, pad);
    b->addOutputTensor(y);
    expectError([&] { InferenceSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, {y}), test::cpu()); },
                fragments);
  };
  const Shape xs{1, 2, 3, 4}, gs{1, 5, 6, 2};
  sessionError(xs, gs, "linear", "zeros", 0,
               {"GridSample", "mode 'linear' is not supported: 'bilinear', 'nearest' or 'bicubic'"});
  sessionError(xs, gs, "bilinear", "reflect", 0,
               {"GridSample", "padding_mode 'reflect' is not supported: 'zeros', 'border' or 'reflection'"});
  sessionError(xs, gs, "bilinear", "zeros", 2, {"GridSample", "align_corners = 2 must be 0 or 1"});
  sessionError(xs, {1, 5, 6, 3}, "bilinear", "zeros", 0, {"grid", "[1 5 6 3]", "must be [N, H_out, W_out, 2]"});
  sessionError(xs, {2, 5, 6, 2}, "bilinear", "zeros", 0, {"must be [N, H_out, W_out, 2] with X's N = 1"});
  sessionError(xs, {5, 6, 2}, "bilinear", "zeros", 0, {"must be [N, H_out, W_out, 2]"});
  sessionError({1, 2, 3, 4, 5}, gs, "bilinear", "zeros", 0, {"X", "must be 4-D: [N, C, H, W]"});
  sessionError(xs, gs, "bilinear", "zeros", 0, {"X", "INT32", "must be a floating-point tensor"}, DataType::INT32);
  sessionError({1, 2, 0, 4}, gs, "bilinear", "zeros", 0, {"must have non-empty spatial dimensions"});
}

}  // namespace
}  // namespace popart
