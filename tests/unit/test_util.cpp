#include "common/test_util.hpp"

#include <random>

namespace popart {
namespace test {

std::map<TensorId, NDArray> runOnce(const std::string& model, const std::map<TensorId, NDArray>& inputs,
                                    const std::vector<TensorId>& anchors, const SessionOptions& opts, int bps,
                                    std::shared_ptr<DeviceInfo> device) {
  auto session =
      InferenceSession::createFromOnnxModel(model, DataFlow(bps, anchors, AnchorReturnType("All")),
                                            device ? std::move(device) : test::cpu(), InputShapeInfo(), opts);
  session->prepareDevice();
  auto out = session->initAnchorArrays();
  std::map<TensorId, NDArray> in = inputs;
  StepIO stepio(arrayRefs(in), arrayRefs(out));
  session->run(stepio);
  return out;
}

namespace {
template <typename T>
std::vector<T> uniformReals(size_t n, uint32_t seed, T lo, T hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
}  // namespace

std::vector<float> randomFloats(size_t n, uint32_t seed, float lo, float hi) {
  return uniformReals(n, seed, lo, hi);
}

std::vector<double> randomDoubles(size_t n, uint32_t seed, double lo, double hi) {
  return uniformReals(n, seed, lo, hi);
}

ReluModel reluModel(const Shape& shape) {
  auto builder = Builder::create();
  ReluModel m;
  m.x = builder->addInputTensor(TensorInfo(DataType::FLOAT, shape), "x");
  m.y = builder->aiOnnxOpset11().relu({m.x});
  builder->addOutputTensor(m.y);
  m.proto = builder->getModelProto();
  return m;
}

std::vector<double> asDoubles(const NDArray& a) {
  switch (a.info().dataType()) {
    case DataType::FLOAT: {
      const auto v = a.toVector<float>();
      return {v.begin(), v.end()};
    }
    case DataType::FLOAT16: {
      std::vector<double> out;
      for (auto h : a.toVector<float16_t>()) out.push_back(static_cast<float>(h));
      return out;
    }
    case DataType::DOUBLE:
      return a.toVector<double>();
    case DataType::INT32: {
      const auto v = a.toVector<int32_t>();
      return {v.begin(), v.end()};
    }
    case DataType::INT64: {
      const auto v = a.toVector<int64_t>();
      return {v.begin(), v.end()};
    }
    case DataType::BOOL: {
      const auto v = a.toVector<bool>();
      return {v.begin(), v.end()};
    }
    default:
      throw error("asDoubles: {}", a.info().toString());
  }
}

}  // namespace test
}  // namespace popart
