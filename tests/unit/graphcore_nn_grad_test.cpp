// Gradients of the aiGraphcore NN ops (groupnormalization, multiconv) and ONNX RoiAlign against
// central finite differences in DOUBLE.
#include "common/training_harness.hpp"

namespace popart {
namespace {

using namespace test;

TEST(GraphcoreNnGrad, GroupNormalizationXScaleBias) {
  for (int64_t groups : {1, 2, 4}) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto x = mb.weight({2, 4, 3, 2}, 1, -2.0, 2.0);
    const auto g = mb.weight({4}, 2, 0.5, 1.5);
    const auto b = mb.weight({4}, 3);
    const auto y = gc.groupnormalization({x, g, b}, groups, 0.1f)[0];
    checkGradients(mb, mb.weightedSum(ai, y, {2, 4, 3, 2}, 4));
  }
}

TEST(GraphcoreNnGrad, GroupNormalizationStatisticsAreNotDifferentiable) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.weight({2, 4, 3}, 1);
  const auto g = mb.weight({4}, 2), b = mb.weight({4}, 3);
  const auto outs = gc.groupnormalization({x, g, b}, 2);
  const Model m = mb.finish(ai.add({mb.weightedSum(ai, outs[0], {2, 4, 3}, 4), mb.weightedSum(ai, outs[1], {4}, 5)}));
  expectError([&] { trainingAnchors(m); }, {"GroupNormalization", "only the normalized output"});
}

}  // namespace
}  // namespace popart
