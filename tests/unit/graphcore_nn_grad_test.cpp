// Gradients of the aiGraphcore NN ops (groupnormalization, multiconv) and ONNX RoiAlign against
// central finite differences in DOUBLE; the spline ops have none (as PopART).
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

/// A DOUBLE input with given values that the harness does not differentiate (RoiAlign's boxes).
TensorId fixedInput(ModelBuilder& mb, const std::vector<double>& v, const Shape& s) {
  const TensorId id = mb.b->addInputTensor(TensorInfo(DataType::DOUBLE, s));
  mb.inputs.emplace(id, NDArray::fromVector(v, s));
  mb.noGrad.insert(id);
  return id;
}

TEST(GraphcoreNnGrad, RoiAlignX) {
  // Overlapping boxes, one partly outside X, adaptive and fixed sampling, both coordinate modes;
  // X as a weight and as an input (anchored as Gradient___X, as PopART's test reads it).
  for (int opset : {10, 16}) {
    for (int64_t ratio : {0, 2}) {
      for (bool xIsInput : {false, true}) {
        ModelBuilder mb;
        const Shape xs{2, 2, 5, 6};
        const auto x = xIsInput ? mb.input(xs, 1, -2.0, 2.0) : mb.weight(xs, 1, -2.0, 2.0);
        const auto r = fixedInput(mb, {0.5, 0.2, 4.1, 3.3, -1.0, 1.5, 2.5, 6.5, 1.0, 1.0, 5.5, 4.0}, {3, 4});
        const auto bi = mb.intInput({1, 0, 1}, {3});
        if (opset == 16) {
          auto ai = mb.b->aiOnnxOpset16();
          const auto y = ai.roialign({x, r, bi}, "half_pixel", "avg", 2, 3, ratio, 0.9f);
          checkGradients(mb, mb.weightedSum(ai, y, {3, 2, 2, 3}, 4));
        } else {
          auto ai = mb.b->aiOnnxOpset10();
          const auto y = ai.roialign({x, r, bi}, "avg", 2, 3, ratio, 0.9f);
          checkGradients(mb, mb.weightedSum(ai, y, {3, 2, 2, 3}, 4));
        }
      }
    }
  }
}

TEST(GraphcoreNnGrad, RoiAlignMaxModeHasNoGradient) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset10();
  const auto x = mb.weight({1, 1, 4, 4}, 1);
  const auto r = fixedInput(mb, {0, 0, 3, 3}, {1, 4});
  const auto bi = mb.intInput({0}, {1});
  const auto y = ai.roialign({x, r, bi}, "max", 2, 2, 2, 1.0f);
  const Model m = mb.finish(mb.weightedSum(ai, y, {1, 1, 2, 2}, 2));
  expectError([&] { trainingAnchors(m); }, {"RoiAlign", "mode 'max' has no gradient"});
}

TEST(GraphcoreNnGrad, SplineOpsHaveNoGradient) {
  // PopART gives neither spline op a gradient: training through one names it.
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.weight({3, 2}, 1);
  const auto w = mb.weight({4, 2, 2}, 2);
  const auto basis = mb.input({3, 2}, 3, 0.0, 1.0);
  const auto idx = mb.intInput({0, 1, 2, 3, 1, 2}, {3, 2});
  const auto y = gc.splineweighting({x, w, basis, idx});
  const Model m = mb.finish(mb.weightedSum(ai, y, {3, 2}, 4));
  expectError([&] { trainingAnchors(m); }, {"SplineWeighting"});
}

}  // namespace
}  // namespace popart
