// The README's C++ example: build `a + b` with the Builder and run it on the CPU device with
// batchesPerStep = 4, returning every batch's output.
#include <iostream>
#include <vector>

#include "popart/popart.hpp"

int main() {
  auto builder = popart::Builder::create();
  auto aiOnnx = builder->aiOnnxOpset11();
  popart::TensorInfo info{"FLOAT", std::vector<int64_t>{2, 3}};
  auto a = builder->addInputTensor(info);
  auto b = builder->addInputTensor(info);
  auto o = aiOnnx.add({a, b});
  builder->addOutputTensor(o);

  const int batchesPerStep = 4;
  auto dataFlow = popart::DataFlow(batchesPerStep, {{o, popart::AnchorReturnType("All")}});
  auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
  auto session = popart::InferenceSession::createFromOnnxModel(builder->getModelProto(), dataFlow, device);
  session->prepareDevice();

  // Inputs are [batchesPerStep] + [2, 3].
  std::vector<float> dataA(4 * 6), dataB(4 * 6);
  for (size_t i = 0; i < dataA.size(); ++i) {
    dataA[i] = static_cast<float>(i);
    dataB[i] = 100.0f;
  }
  popart::NDArrayWrapper<float> wa(dataA.data(), {4, 2, 3});
  popart::NDArrayWrapper<float> wb(dataB.data(), {4, 2, 3});
  auto anchors = session->initAnchorArrays();  // {o: NDArray of shape [4, 2, 3]}
  std::map<popart::TensorId, popart::IArray&> inputs{{a, wa}, {b, wb}};
  popart::StepIO stepio(inputs, popart::arrayRefs(anchors));
  session->run(stepio);

  const float* y = anchors.at(o).dataAs<float>();
  std::cout << o << " " << anchors.at(o).info() << ": " << y[0] << " " << y[1] << " ... " << y[23] << "\n";
  return y[23] == 123.0f ? 0 : 1;
}
