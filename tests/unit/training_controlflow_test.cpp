// If, Loop and Scan gradients (the body copied into the graph, Loop and Scan unrolled, then
// differentiated) against central finite differences in double precision: loop-carried values,
// scan outputs, scan directions and axes, tensors the bodies read from the parent graph.
#include <cmath>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using namespace test;

template <typename T>
TensorId constIn(Builder& b, const std::vector<T>& v, const Shape& s) {
  return b.aiOnnxOpset14().constant(ConstVoidData(v.data(), TensorInfo(getDataType<T>(), s)));
}

TensorId boolInput(ModelBuilder& mb, bool v) {
  const TensorId id = mb.b->addInputTensor(TensorInfo(DataType::BOOL, {}));
  NDArray a(DataType::BOOL, {});
  *static_cast<uint8_t*>(a.data()) = v ? 1 : 0;
  mb.inputs.emplace(id, a);
  return id;
}

TEST(TrainingControlFlow, IfWithARuntimeAndAConstantCondition) {
  for (bool runtime : {true, false}) {
    for (bool cond : {true, false}) {
      ModelBuilder mb;
      auto ai = mb.b->aiOnnxOpset14();
      const auto x = mb.input({3}, 1), w = mb.input({3}, 2);
      const uint8_t cv = cond ? 1 : 0;
      const auto c = runtime ? boolInput(mb, cond) : ai.constant(ConstVoidData(&cv, TensorInfo(DataType::BOOL, {})));
      Builder& thenB = mb.b->createSubgraphBuilder();
      auto tai = thenB.aiOnnxOpset14();
      thenB.addInputTensorFromParentGraph(x);
      thenB.addInputTensorFromParentGraph(w);
      thenB.addOutputTensor(tai.mul({x, tai.sin({w})}));
      Builder& elseB = mb.b->createSubgraphBuilder();
      auto eai = elseB.aiOnnxOpset14();
      elseB.addInputTensorFromParentGraph(x);
      elseB.addOutputTensor(eai.sub({eai.mul({x, x}), constIn<double>(elseB, {1.5}, {})}));
      const auto y = ai.logical_if({c}, 1, elseB, thenB)[0];
      checkGradients(mb, mb.weightedSum(ai, y, {3}, 3));
    }
  }
}

TEST(TrainingControlFlow, LoopCarriedValuesAndScanOutputs) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto x = mb.input({2}, 10), v0 = mb.input({2}, 11);
  const auto trips = constIn<int64_t>(*mb.b, {3}, {});
  Builder& body = mb.b->createSubgraphBuilder();
  auto bai = body.aiOnnxOpset14();
  const auto i = body.addInputTensor(TensorInfo(DataType::INT64, {}), "i");
  const auto condIn = body.addInputTensor(TensorInfo(DataType::BOOL, {}), "cond_in");
  const auto v = body.addInputTensor(TensorInfo(DataType::DOUBLE, {2}), "v");
  body.addInputTensorFromParentGraph(x);
  // v' = v * x + i, scan output tanh(v')
  const auto iv = bai.cast({i}, "DOUBLE");
  const auto next = bai.add({bai.mul({v, x}), iv});
  body.addOutputTensor(bai.identity({condIn}));
  body.addOutputTensor(next);
  body.addOutputTensor(bai.tanh({next}));
  const auto outs = ai.loop({trips, "", v0}, 2, body);
  checkGradients(mb, ai.add({mb.weightedSum(ai, outs[0], {2}, 12), mb.weightedSum(ai, outs[1], {3, 2}, 13)}));
}

TEST(TrainingControlFlow, ScanStatesDirectionsAndAxes) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto s0 = mb.input({2}, 20);
  const auto xs = mb.input({4, 2}, 21);  // scanned along axis 0, reversed
  const auto zs = mb.input({2, 4}, 22);  // scanned along axis 1
  const auto w = mb.input({2}, 23);
  Builder& body = mb.b->createSubgraphBuilder();
  auto bai = body.aiOnnxOpset14();
  const auto s = body.addInputTensor(TensorInfo(DataType::DOUBLE, {2}), "s");
  const auto xt = body.addInputTensor(TensorInfo(DataType::DOUBLE, {2}), "xt");
  const auto zt = body.addInputTensor(TensorInfo(DataType::DOUBLE, {2}), "zt");
  body.addInputTensorFromParentGraph(w);
  const auto next = bai.add({bai.mul({s, bai.sin({xt})}), bai.mul({zt, w})});
  body.addOutputTensor(next);
  body.addOutputTensor(bai.mul({next, next}));
  const auto outs = ai.scan({s0, xs, zs}, 2, body, 2, {0, 1}, {1, 0}, {1}, {1});  // scan output [2, 4], reversed
  checkGradients(mb, ai.add({mb.weightedSum(ai, outs[0], {2}, 24), mb.weightedSum(ai, outs[1], {2, 4}, 25)}));
}

TEST(TrainingControlFlow, ComputedLoopConditionIsRefused) {
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const auto v0 = mb.input({2}, 30);
  const auto trips = constIn<int64_t>(*mb.b, {3}, {});
  Builder& body = mb.b->createSubgraphBuilder();
  auto bai = body.aiOnnxOpset14();
  body.addInputTensor(TensorInfo(DataType::INT64, {}), "i");
  body.addInputTensor(TensorInfo(DataType::BOOL, {}), "cond_in");
  const auto v = body.addInputTensor(TensorInfo(DataType::DOUBLE, {2}), "v");
  const auto next = bai.mul({v, v});
  const auto axes = constIn<int64_t>(body, {0}, {1});
  body.addOutputTensor(bai.less({bai.reducesum({next, axes}, 0), constIn<double>(body, {100.0}, {})}));
  body.addOutputTensor(next);
  const auto out = ai.loop({trips, "", v0}, 1, body)[0];
  const Model m = mb.finish(mb.b->aiGraphcoreOpset1().identityloss({out}, ReductionType::Sum));
  expectError([&] { trainingAnchors(m, {std::string(reservedGradientPrefix()) + v0}); },
              {"the gradient of a Loop whose body computes its condition is not supported"});
}

}  // namespace
}  // namespace popart
