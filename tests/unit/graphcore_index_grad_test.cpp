// Gradients of the aiGraphcore indexing ops against central finite differences in DOUBLE
// (dynamicslice / update / add / zero, scatterreduce in every reduction with and without initial
// values, grouped, groupedgather, sort, reducemedian, packedDataBlock), and PopART's noOverlap rules, which differ
// from the true gradient when the promise is broken.
#include <cmath>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using namespace test;

TensorId uintInput(ModelBuilder& mb, const std::vector<uint32_t>& v, const Shape& s) {
  const TensorId id = mb.b->addInputTensor(TensorInfo(DataType::UINT32, s));
  mb.inputs.emplace(id, NDArray::fromVector(v, s));
  return id;
}

TEST(GraphcoreIndexGrad, DynamicSliceUpdateAddZero) {
  for (int64_t noOverlap : {0, 1}) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto w = mb.weight({4, 6, 3}, 1);
    const auto o = uintInput(mb, {3, 4}, {2});  // axis 0 wraps (3, 0), axis 1 wraps (4, 5, 0)
    const auto s = gc.dynamicslice({w, o}, {0, 1}, {2, 3}, noOverlap != 0);
    const auto u = mb.weight({2, 3, 3}, 2);
    const auto base = mb.weight({4, 6, 3}, 3);
    const auto up = gc.dynamicupdate({base, o, u}, {0, 1}, {2, 3}, false);
    const auto v = mb.weight({2, 3, 3}, 4);
    const auto add = gc.dynamicadd({up, o, v}, {0, 1}, {2, 3});
    const auto o2 = uintInput(mb, {1}, {1});
    const auto z = gc.dynamiczero({add, o2}, {2}, {1});
    checkGradients(mb, ai.sum({mb.weightedSum(ai, s, {2, 3, 3}, 5), mb.weightedSum(ai, z, {4, 6, 3}, 6)}));
  }
}

TEST(GraphcoreIndexGrad, DynamicUpdateNoOverlapPassesTheWholeGradientToTheTensor) {
  // PopART: with noOverlap the updated tensor's gradient is the output's, not zeroed where the
  // slice was written (its test_dynamicupdate_overlap_wrong); without, the region gets 0.
  for (bool noOverlap : {false, true}) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto w = mb.weight({10}, 1);
    const auto u = mb.weight({5}, 2);
    const auto o = uintInput(mb, {4}, {1});
    const auto y = gc.dynamicupdate({w, o, u}, {0}, {5}, noOverlap);
    const auto c = mb.input({10}, 3);
    const Model m = mb.finish(gc.identityloss({ai.mul({y, c})}, ReductionType::Sum));
    auto anchors = trainingAnchors(m);
    const auto gw = gradOf(anchors, w);
    const auto gu = gradOf(anchors, u);
    const auto& cw = mb.values.at(c);
    for (size_t i = 0; i < 10; ++i) {
      const bool inRegion = i >= 4 && i < 9;
      EXPECT_DOUBLE_EQ(gw[i], noOverlap || !inRegion ? cw[i] : 0.0) << i;
    }
    for (size_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(gu[i], cw[i + 4]);
  }
}

TEST(GraphcoreIndexGrad, PackedDataBlock) {
  // Two packed streams (the second with a gap and a sequence longer than its maxSequenceLength,
  // whose tail is not read), a callback that reads an outer weight, results packed with lengths
  // shorter than the callback's rows; callback batches of 1, 2 and 4 sequences. The data rows a
  // sequence does not read, and the callback rows no result takes, get no gradient.
  for (int64_t batch : {1, 2, 4}) {
    SCOPED_TRACE("callbackBatchSize " + std::to_string(batch));
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto a = mb.weight({9, 3}, 21);
    const auto aOff = uintInput(mb, {0, 2, 5, 6}, {4});
    const auto aLen = uintInput(mb, {2, 3, 1, 3}, {4});
    const auto b = mb.weight({12, 3}, 22);
    const auto bOff = uintInput(mb, {0, 3, 7, 9}, {4});
    const auto bLen = uintInput(mb, {2, 4, 2, 3}, {4});  // 4 > maxSequenceLength 3: rows 3.. unread
    const auto w = mb.weight({3, 2}, 23);
    const auto rOff = uintInput(mb, {0, 2, 5, 7}, {4});
    const auto rLen = uintInput(mb, {2, 3, 2, 2}, {4});  // sequence 2 takes a padding row too
    Builder& sub = mb.b->createSubgraphBuilder();
    auto sai = sub.aiOnnxOpset13();
    const TensorId sa = sub.addUntypedInputTensor();
    const TensorId sb = sub.addUntypedInputTensor();
    // [batch, 3, 3] -> h = tanh(a * b) @ w -> h + the mean of h over the sequence's rows (the
    // rows mix, so a padding row that read data would change the result) -> [batch, 3, 2]
    const TensorId h = sai.matmul({sai.tanh({sai.mul({sa, sb})}), w});
    sub.addOutputTensor(sai.add({h, sai.reducemean({h}, std::vector<int64_t>{1}, 1)}));
    const auto y = gc.packedDataBlock({a, aOff, aLen, b, bOff, bLen, rOff, rLen}, {3, 3}, 9, batch, sub);
    checkGradients(mb, mb.weightedSum(ai, y, {9, 2}, 24));
  }
}

TEST(GraphcoreIndexGrad, ScatterReduceEveryReductionWithAndWithoutInitialValues) {
  const std::vector<ScatterReduction> reductions{ScatterReduction::Sum, ScatterReduction::Max, ScatterReduction::Min,
                                                 ScatterReduction::Mul, ScatterReduction::None};
  for (auto r : reductions) {
    for (bool initial : {false, true}) {
      for (bool vector : {false, true}) {
        ModelBuilder mb;
        auto ai = mb.b->aiOnnxOpset13();
        auto gc = mb.b->aiGraphcoreOpset1();
        // Distinct data values (no ties for Max / Min), away from 0 (Mul divides by them); None with
        // unique indices so that no value is overwritten.
        const auto x = mb.weight({4, 3}, 7, 0.5, 2.0);
        const bool unique = r == ScatterReduction::None;
        const auto idx =
            vector ? uintInput(mb, unique ? std::vector<uint32_t>{2, 0, 4, 1} : std::vector<uint32_t>{2, 0, 2, 1}, {4})
                   : uintInput(mb,
                               unique ? std::vector<uint32_t>{0, 1, 2, 3, 4, 0, 1, 2, 4, 4, 0, 3}
                                      : std::vector<uint32_t>{0, 1, 2, 1, 0, 1, 0, 2, 4, 3, 2, 1},
                               {4, 3});
        std::vector<TensorId> args{x, idx};
        if (initial) args.push_back(mb.weight({5, 3}, 8, 0.5, 2.0));
        const auto y = gc.scatterreduce(args, 5, 0, r);
        SCOPED_TRACE(enumToString(r) + (initial ? " initial" : "") + (vector ? " vector" : ""));
        checkGradients(mb, mb.weightedSum(ai, y, {5, 3}, 9));
      }
    }
  }
}

TEST(GraphcoreIndexGrad, ScatterReduceMaxMasksTiesAsPopartDoes) {
  // Every tied maximum gets the whole gradient (PopART's mask data == output), not a share.
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const std::vector<double> v{1.0, 3.0, 3.0, 2.0};
  const TensorId x = mb.b->addInitializedInputTensor(ConstVoidData(v.data(), TensorInfo(DataType::DOUBLE, {4})));
  mb.weights.push_back(x);
  const auto idx = uintInput(mb, {0, 0, 0, 1}, {4});
  const auto y = gc.scatterreduce({x, idx}, 2, 0, ScatterReduction::Max);
  const Model m = mb.finish(gc.identityloss(
      {ai.mul(
          {y, ai.constant(ConstVoidData(std::vector<double>{2.0, 5.0}.data(), TensorInfo(DataType::DOUBLE, {2})))})},
      ReductionType::Sum));
  auto anchors = trainingAnchors(m);
  EXPECT_EQ(gradOf(anchors, x), (std::vector<double>{0.0, 2.0, 2.0, 5.0}));
}

TEST(GraphcoreIndexGrad, GroupedScatterReduceAndGroupedGather) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.weight({2, 4, 3}, 11, 0.5, 2.0);
  const auto idx = uintInput(mb, {1, 0, 2, 2, 1, 0, 0, 2, 1, 1, 1, 0, 2, 1, 0, 0, 0, 2, 1, 2, 1, 0, 1, 2}, {2, 4, 3});
  const auto y = gc.groupedscatterreduce({x, idx}, 3, 1, ScatterReduction::Mul, 2);
  const auto d = mb.weight({2, 5, 2}, 12);
  const TensorId gi = mb.b->addInputTensor(TensorInfo(DataType::INT32, {2, 3}));
  mb.inputs.emplace(gi, NDArray::fromVector(std::vector<int32_t>{4, 4, 0, 1, -1, 1}, {2, 3}));
  const auto g = gc.groupedgather({d, gi}, 1, 2);
  checkGradients(mb, ai.sum({mb.weightedSum(ai, y, {2, 3, 3}, 13), mb.weightedSum(ai, g, {2, 3, 2}, 14)}));
}

TEST(GraphcoreIndexGrad, SortAndReduceMedian) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset13();
  auto gc = mb.b->aiGraphcoreOpset1();
  const auto x = mb.weight({3, 5}, 21);
  const auto s = gc.sort({x}, 1, true);
  const auto m = gc.reducemedian({x}, std::vector<int64_t>{0}, false);
  const auto m2 = gc.reducemedian({x});
  checkGradients(mb, ai.sum({mb.weightedSum(ai, s[0], {3, 5}, 22), mb.weightedSum(ai, m[0], {5}, 23),
                             mb.weightedSum(ai, m2[0], {1, 1}, 24)}));
}

TEST(GraphcoreIndexGrad, SequenceSliceStopsTheGradientAsInPopart) {
  // PopART's SequenceSliceOp has no grad ops: w reaches the loss through the slice and through
  // Sin, and its gradient is the Sin path's alone, w cos(w)-weighted as without the slice.
  auto gradient = [](bool withSlice) {
    ModelBuilder mb;
    auto ai = mb.b->aiOnnxOpset13();
    auto gc = mb.b->aiGraphcoreOpset1();
    const auto w = mb.weight({4, 2}, 31);
    const auto d = mb.input({3, 2}, 32);
    const auto n = uintInput(mb, {1}, {1});
    TensorId loss = mb.weightedSum(ai, ai.sin({w}), {4, 2}, 34);
    if (withSlice) loss = ai.add({loss, mb.weightedSum(ai, gc.sequenceslice({w, d, n, n, n}), {3, 2}, 33)});
    auto anchors = trainingAnchors(mb.finish(loss));
    return gradOf(anchors, w);
  };
  const auto g = gradient(true);
  EXPECT_EQ(g, gradient(false));
  EXPECT_EQ(g.size(), 8u);
}

}  // namespace
}  // namespace popart
