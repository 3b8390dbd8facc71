// Trains a small CNN on the handwritten digits that Debian's python3-sklearn ships (1,797 8x8
// images, sklearn/datasets/data/digits.csv.gz: 64 pixel values 0..16, then the label) with a
// TrainingSession, prints the loss of every step, then evaluates the trained weights with an
// InferenceSession made from modelToHost's model and reports the training accuracy.
//
//   example_train_digits [--csv PATH] [--epochs N] [--optimizer sgd|adam] [--min-accuracy A]
//
// One step (one `run`) is one epoch: batchesPerStep = 56 batches of 32 shuffled images, one
// weight update per batch. Exits with 1 if the accuracy is below --min-accuracy (default 0.95).
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "popart/adam.hpp"
#include "popart/popart.hpp"
#include "popart/sgd.hpp"

namespace {

constexpr int64_t kBatch = 32;
constexpr int kClasses = 10;

struct Digits {
  std::vector<float> pixels;  // [n, 64], scaled to [0, 1]
  std::vector<int32_t> labels;
  size_t size() const { return labels.size(); }
};

Digits readDigits(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw popart::error("cannot open '{}' (install python3-sklearn: scripts/setup.sh)", path);
  Digits d;
  std::vector<char> buf(4096);
  while (gzgets(f, buf.data(), static_cast<int>(buf.size()))) {
    std::stringstream line(buf.data());
    std::vector<float> v;
    std::string field;
    while (std::getline(line, field, ',')) v.push_back(std::stof(field));
    if (v.empty()) continue;
    if (v.size() != 65) {
      gzclose(f);
      throw popart::error("'{}': line {} has {} values, expected 64 pixels and a label", path, d.size() + 1, v.size());
    }
    for (int i = 0; i < 64; ++i) d.pixels.push_back(v[static_cast<size_t>(i)] / 16.0f);
    d.labels.push_back(static_cast<int32_t>(v[64]));
  }
  gzclose(f);
  if (d.size() == 0) throw popart::error("'{}' holds no images", path);
  return d;
}

/// A He-uniform initialised weight (seeded).
popart::TensorId weight(popart::Builder& b, const popart::Shape& shape, int64_t fanIn, std::mt19937& rng,
                        const std::string& name) {
  const float limit = std::sqrt(6.0f / static_cast<float>(fanIn));
  std::uniform_real_distribution<float> dist(-limit, limit);
  std::vector<float> v(static_cast<size_t>(popart::TensorInfo(popart::DataType::FLOAT, shape).nelms()));
  for (auto& x : v) x = dist(rng);
  return b.addInitializedInputTensor(popart::ConstVoidData(v.data(), {popart::DataType::FLOAT, shape}), name);
}

popart::TensorId bias(popart::Builder& b, int64_t n, const std::string& name) {
  std::vector<float> v(static_cast<size_t>(n), 0.0f);
  return b.addInitializedInputTensor(popart::ConstVoidData(v.data(), {popart::DataType::FLOAT, {n}}), name);
}

/// Shuffled batches: `images` [n, 64] and `labels` [n] for the sample order `idx` (n = idx.size()).
void gather(const Digits& d, const std::vector<size_t>& idx, std::vector<float>& images, std::vector<int32_t>& labels) {
  images.resize(idx.size() * 64);
  labels.resize(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    std::copy_n(d.pixels.begin() + static_cast<std::ptrdiff_t>(idx[i] * 64), 64,
                images.begin() + static_cast<std::ptrdiff_t>(i * 64));
    labels[i] = d.labels[idx[i]];
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz", optName = "sgd";
  int epochs = 8;
  double minAccuracy = 0.95;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--csv")
      csv = v;
    else if (a == "--epochs")
      epochs = std::stoi(v);
    else if (a == "--optimizer")
      optName = v;
    else if (a == "--min-accuracy")
      minAccuracy = std::stod(v);
    else {
      std::cerr << "usage: example_train_digits [--csv PATH] [--epochs N] [--optimizer sgd|adam] [--min-accuracy A]\n";
      return 2;
    }
  }
  try {
    const Digits data = readDigits(csv);
    const int64_t batchesPerEpoch = static_cast<int64_t>(data.size()) / kBatch;
    std::cout << "digits: " << data.size() << " images from " << csv << "; " << batchesPerEpoch << " batches of "
              << kBatch << " per step\n";

    // conv 3x3 (16) - relu - maxpool 2 - conv 3x3 (32) - relu - maxpool 2 - gemm 128x64 - relu -
    // gemm 64x10 - softmax - nllloss (mean).
    auto builder = popart::Builder::create();
    auto ai = builder->aiOnnxOpset13();
    std::mt19937 rng(20261123);
    const auto x = builder->addInputTensor(popart::TensorInfo(popart::DataType::FLOAT, {kBatch, 1, 8, 8}), "image");
    const auto label = builder->addInputTensor(popart::TensorInfo(popart::DataType::INT32, {kBatch}), "label");
    auto h = ai.conv({x, weight(*builder, {16, 1, 3, 3}, 9, rng, "conv1.w"), bias(*builder, 16, "conv1.b")}, {1, 1}, 1,
                     {3, 3}, {1, 1, 1, 1});
    h = ai.maxpool({ai.relu({h})}, 1, {2, 2}, 0, {}, {}, 0, {2, 2})[0];  // [32, 16, 4, 4]
    h = ai.conv({h, weight(*builder, {32, 16, 3, 3}, 144, rng, "conv2.w"), bias(*builder, 32, "conv2.b")}, {1, 1}, 1,
                {3, 3}, {1, 1, 1, 1});
    h = ai.flatten({ai.maxpool({ai.relu({h})}, 1, {2, 2}, 0, {}, {}, 0, {2, 2})[0]}, 1);  // [32, 128]
    h = ai.relu({ai.gemm({h, weight(*builder, {128, 64}, 128, rng, "fc1.w"), bias(*builder, 64, "fc1.b")})});
    const auto logits =
        ai.gemm({h, weight(*builder, {64, kClasses}, 64, rng, "fc2.w"), bias(*builder, kClasses, "fc2.b")});
    const auto probs = ai.softmax({logits}, 1);
    const auto loss = builder->aiGraphcoreOpset1().nllloss({probs, label}, popart::ReductionType::Mean);
    builder->addOutputTensor(probs);

    std::unique_ptr<popart::Optimizer> optimizer;
    if (optName == "sgd")
      optimizer = std::make_unique<popart::SGD>(std::map<std::string, std::pair<float, bool>>{
          {"defaultLearningRate", {0.05f, true}}, {"defaultMomentum", {0.9f, true}}});
    else if (optName == "adam")
      optimizer = std::make_unique<popart::Adam>(
          std::map<std::string, std::pair<float, bool>>{{"defaultLearningRate", {0.003f, true}}});
    else
      throw popart::error("unknown optimizer '{}' (sgd or adam)", optName);

    auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
    auto training = popart::TrainingSession::createFromOnnxModel(
        builder->getModelProto(), popart::DataFlow(batchesPerEpoch, {{loss, popart::AnchorReturnType("All")}}), loss,
        *optimizer, device);
    training->prepareDevice();
    training->weightsFromHost();

    std::vector<size_t> order(data.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::vector<float> images;
    std::vector<int32_t> labels;
    auto anchors = training->initAnchorArrays();
    for (int step = 0; step < epochs; ++step) {
      std::shuffle(order.begin(), order.end(), rng);
      gather(data, std::vector<size_t>(order.begin(), order.begin() + batchesPerEpoch * kBatch), images, labels);
      popart::NDArrayWrapper<float> xs(images.data(), {batchesPerEpoch, kBatch, 1, 8, 8});
      popart::NDArrayWrapper<int32_t> ys(labels.data(), {batchesPerEpoch, kBatch});
      std::map<popart::TensorId, popart::IArray&> inputs{{x, xs}, {label, ys}};
      popart::StepIO stepio(inputs, popart::arrayRefs(anchors));
      training->run(stepio);
      const float* l = anchors.at(loss).dataAs<float>();
      const double mean = std::accumulate(l, l + batchesPerEpoch, 0.0) / static_cast<double>(batchesPerEpoch);
      std::printf("step %2d  loss %.4f (first batch %.4f, last batch %.4f)\n", step + 1, mean, l[0],
                  l[batchesPerEpoch - 1]);
    }

    // Evaluation: the trained model (modelToHost) in an InferenceSession over every image, the
    // last batch padded with the first images.
    const std::string trained = training->modelToHostBytes();
    const int64_t evalBatches = (static_cast<int64_t>(data.size()) + kBatch - 1) / kBatch;
    auto inference = popart::InferenceSession::createFromOnnxModel(
        trained, popart::DataFlow(evalBatches, {{probs, popart::AnchorReturnType("All")}}), device);
    inference->prepareDevice();
    std::vector<size_t> all(static_cast<size_t>(evalBatches * kBatch));
    for (size_t i = 0; i < all.size(); ++i) all[i] = i % data.size();
    gather(data, all, images, labels);
    popart::NDArrayWrapper<float> xs(images.data(), {evalBatches, kBatch, 1, 8, 8});
    popart::NDArrayWrapper<int32_t> ys(labels.data(), {evalBatches, kBatch});
    std::map<popart::TensorId, popart::IArray&> inputs{{x, xs}, {label, ys}};
    auto out = inference->initAnchorArrays();
    popart::StepIO stepio(inputs, popart::arrayRefs(out));
    inference->run(stepio);
    const float* p = out.at(probs).dataAs<float>();
    size_t correct = 0;
    for (size_t i = 0; i < data.size(); ++i) {
      const float* row = p + i * kClasses;
      if (std::max_element(row, row + kClasses) - row == data.labels[i]) ++correct;
    }
    const double accuracy = static_cast<double>(correct) / static_cast<double>(data.size());
    std::printf("training accuracy %.2f%% (%zu of %zu)\n", 100.0 * accuracy, correct, data.size());
    if (accuracy < minAccuracy) {
      std::printf("FAILED: below %.2f%%\n", 100.0 * minAccuracy);
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
