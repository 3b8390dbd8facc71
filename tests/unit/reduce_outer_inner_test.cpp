// ReduceSum / ReduceMean in FLOAT over outer and inner axes around kept middle axes (the bias
// gradients of Conv and Gemm: N, H, W of NCHW; N of [N, C]) take a dedicated path; checked
// against double sums, with and without keepdims.
#include "common/test_util.hpp"

namespace popart {
namespace {

struct OuterInnerCase {
  Shape shape;
  std::vector<int64_t> axes;
};

TEST(ReduceOuterInner, SumAndMeanMatchDoubleSums) {
  const std::vector<OuterInnerCase> cases = {{{3, 5, 4, 6}, {0, 2, 3}},  // rows of 24
                                             {{2, 3, 5}, {0, 2}},        // short rows
                                             {{7, 9}, {0}},              // no inner axes
                                             {{4, 1, 3, 2}, {0, 1, 3}},  // a size-1 reduced axis
                                             {{2, 3, 1, 11}, {3}}};      // no outer axes
  for (const auto& c : cases) {
    for (int keep = 0; keep < 2; ++keep) {
      const size_t n = static_cast<size_t>(TensorInfo(DataType::FLOAT, c.shape).nelms());
      const auto x = test::randomFloats(n, 7);
      auto b = Builder::create();
      auto ai = b->aiOnnxOpset13();
      const auto xi = b->addInputTensor(TensorInfo(DataType::FLOAT, c.shape), "x");
      const auto axes =
          ai.constant(ConstVoidData(c.axes.data(), TensorInfo(DataType::INT64, {static_cast<int64_t>(c.axes.size())})));
      const auto sum = ai.reducesum({xi, axes}, keep);
      const auto mean = ai.reducemean({xi}, c.axes, keep);
      b->addOutputTensor(sum);
      b->addOutputTensor(mean);
      auto out = test::runOnce(b->getModelProto(), {{"x", NDArray::fromVector(x, c.shape)}}, {sum, mean});
      // Reference: every element adds to the output indexed by its kept coordinates.
      Shape kept = c.shape;
      for (auto a : c.axes) kept[static_cast<size_t>(a)] = 1;
      std::vector<double> ref(static_cast<size_t>(TensorInfo(DataType::FLOAT, kept).nelms()), 0.0);
      std::vector<int64_t> idx(c.shape.size(), 0);
      for (size_t i = 0; i < n; ++i) {
        int64_t o = 0;
        for (size_t d = 0; d < c.shape.size(); ++d) o = o * kept[d] + (kept[d] == 1 ? 0 : idx[d]);
        ref[static_cast<size_t>(o)] += x[i];
        for (size_t d = c.shape.size(); d-- > 0;) {
          if (++idx[d] < c.shape[d]) break;
          idx[d] = 0;
        }
      }
      const double count = static_cast<double>(n) / static_cast<double>(ref.size());
      const auto s = out.at(sum).toVector<float>(), m = out.at(mean).toVector<float>();
      ASSERT_EQ(s.size(), ref.size());
      for (size_t i = 0; i < ref.size(); ++i) {
        EXPECT_NEAR(s[i], ref[i], 1e-5 * (1 + std::fabs(ref[i]))) << "sum " << i;
        EXPECT_NEAR(m[i], ref[i] / count, 1e-6 * (1 + std::fabs(ref[i]))) << "mean " << i;
      }
      EXPECT_EQ(out.at(sum).shape().size(), keep ? c.shape.size() : c.shape.size() - c.axes.size());
    }
  }
}

}  // namespace
}  // namespace popart
