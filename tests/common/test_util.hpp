// Helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "popart/popart.hpp"

namespace popart {
namespace test {

/// Expects `f` to throw popart::error (or a subclass) whose message contains every fragment.
inline void expectError(const std::function<void()>& f, const std::vector<std::string>& fragments) {
  try {
    f();
  } catch (const popart::error& e) {
    const std::string msg = e.what();
    for (const auto& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "message: " << msg << "\nmissing: " << frag;
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-popart exception: " << e.what();
    return;
  }
  ADD_FAILURE() << "did not throw; expected an error containing: " << (fragments.empty() ? "" : fragments[0]);
}

/// A CPU device.
inline std::shared_ptr<DeviceInfo> cpu() {
  return DeviceManager::createDeviceManager().createCpuDevice();
}

/// Runs a model once (batchesPerStep `bps`) with float inputs on `device` (nullptr: a CPU
/// device); returns every anchor.
std::map<TensorId, NDArray> runOnce(const std::string& model, const std::map<TensorId, NDArray>& inputs,
                                    const std::vector<TensorId>& anchors, const SessionOptions& opts = {}, int bps = 1,
                                    std::shared_ptr<DeviceInfo> device = nullptr);

/// A model under construction and its inputs' values: add inputs with in(), then run() it once.
struct Net {
  std::unique_ptr<Builder> b = Builder::create();
  std::map<TensorId, NDArray> inputs;

  /// An input of `v`'s type and shape `s`, fed `v`.
  template <typename T>
  TensorId in(const std::vector<T>& v, const Shape& s) {
    const TensorId id = b->addInputTensor(TensorInfo(getDataType<T>(), s));
    inputs.emplace(id, NDArray::fromVector(v, s));
    return id;
  }
  /// Marks `outs` as outputs and runs once on the CPU: every output.
  std::map<TensorId, NDArray> run(const std::vector<TensorId>& outs, const SessionOptions& o = {}) {
    for (const auto& t : outs) b->addOutputTensor(t);
    return runOnce(b->getModelProto(), inputs, outs, o);
  }
  /// run() of one output, its value.
  NDArray runOne(const TensorId& y) { return run({y}).at(y); }
};

/// The number of elements of a shape (1 for a scalar).
inline int64_t numElements(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

/// Deterministic pseudo-random floats in [lo, hi).
std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);
/// y = Relu(x) (opset 11) with x a FLOAT input named "x" of `shape`.
struct ReluModel {
  std::string proto;
  TensorId x, y;
};
ReluModel reluModel(const Shape& shape);

/// The same in double precision.
std::vector<double> randomDoubles(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0);

/// Element-wise |got - want| <= relTol * (1 + |want|); a failure names `what` and the index.
template <typename G>
void expectNear(const std::vector<G>& got, const std::vector<double>& want, double relTol,
                const std::string& what = "") {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], relTol * (1.0 + std::fabs(want[i]))) << what << " at " << i;
}

/// The values of a FLOAT, FLOAT16, DOUBLE, INT32, INT64 or BOOL array as doubles.
std::vector<double> asDoubles(const NDArray& a);

/// A Constant node of `ai`'s opset holding `v` with shape `s`.
template <typename T, typename Opset>
TensorId constant(Opset& ai, const std::vector<T>& v, const Shape& s) {
  return ai.constant(ConstVoidData(v.data(), TensorInfo(getDataType<T>(), s)));
}

inline double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

inline DeviceManager& dm() {
  return DeviceManager::createDeviceManager();
}

}  // namespace test
}  // namespace popart
