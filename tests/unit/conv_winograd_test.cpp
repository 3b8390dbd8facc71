// Winograd F(2x2, 3x3) runs several small images through one set of transform GEMMs: a batch of
// images against a double-precision reference, with constant weights (transformed once) and with
// weights that can change (transformed on every run).
#include "common/test_util.hpp"

namespace popart {
namespace {

void checkBatchedConv(int64_t N, int64_t C, int64_t M, int64_t H, bool constantWeights) {
  const Shape xs{N, C, H, H}, ws{M, C, 3, 3};
  const auto x = test::randomFloats(static_cast<size_t>(N * C * H * H), 11);
  const auto w = test::randomFloats(static_cast<size_t>(M * C * 9), 12);
  const auto bias = test::randomFloats(static_cast<size_t>(M), 13);
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  const auto xi = b->addInputTensor(TensorInfo(DataType::FLOAT, xs), "x");
  const auto wi = b->addInitializedInputTensor(ConstVoidData(w.data(), TensorInfo(DataType::FLOAT, ws)));
  const auto bi = b->addInitializedInputTensor(ConstVoidData(bias.data(), TensorInfo(DataType::FLOAT, {M})));
  const auto y = ai.conv({xi, wi, bi}, {1, 1}, 1, {3, 3}, {1, 1, 1, 1});
  b->addOutputTensor(y);
  SessionOptions opts;
  opts.constantWeights = constantWeights;
  auto out = test::runOnce(b->getModelProto(), {{"x", NDArray::fromVector(x, xs)}}, {y}, opts);
  const auto got = out.at(y).toVector<float>();
  ASSERT_EQ(got.size(), static_cast<size_t>(N * M * H * H));
  double maxErr = 0;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t oh = 0; oh < H; ++oh) {
        for (int64_t ow = 0; ow < H; ++ow) {
          double r = bias[static_cast<size_t>(m)];
          for (int64_t c = 0; c < C; ++c) {
            for (int64_t kh = 0; kh < 3; ++kh) {
              for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= H) continue;
                r += static_cast<double>(w[static_cast<size_t>(((m * C + c) * 3 + kh) * 3 + kw)]) *
                     x[static_cast<size_t>(((n * C + c) * H + ih) * H + iw)];
              }
            }
          }
          maxErr = std::max(maxErr, std::fabs(got[static_cast<size_t>(((n * M + m) * H + oh) * H + ow)] - r));
        }
      }
    }
  }
  EXPECT_LE(maxErr, 1e-4) << "N " << N << ", C " << C << ", M " << M << ", " << H << "x" << H
                          << (constantWeights ? ", constant weights" : ", variable weights");
}

TEST(ConvWinograd, BatchedImagesMatchDoubleReference) {
  checkBatchedConv(5, 8, 12, 6, true);    // odd tile count per image (3x3 tiles), all 5 in one run
  checkBatchedConv(3, 16, 8, 7, true);    // odd image size: the last tile row and column are partial
  checkBatchedConv(4, 8, 16, 14, false);  // 784 positions: transformed on every run
}

}  // namespace
}  // namespace popart
