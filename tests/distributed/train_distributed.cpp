// The C++ face of distributed training (docs/distributed.md), run by ctest under mpirun:
//   train_distributed --out DIR            one process of an mpirun launch (options from popdist):
//                                          trains, then writes DIR/rank<r>.bin (w1 then w2, FLOAT)
//   train_distributed --check DIR --ranks N --replicas R
//                                          one process with R local replicas (no MPI) trains the
//                                          same steps and compares with the N files (1e-6)
// Global replica g of step s gets micro-batch data(s, g), so any split of the replicas over
// processes sees the same data.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "popart/builder.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/ndarraywrapper.hpp"
#include "popart/popdist.hpp"
#include "popart/session.hpp"
#include "popart/sgd.hpp"
#include "popart/stepio.hpp"

using namespace popart;

namespace {

constexpr int kSteps = 3, kRows = 2, kIn = 4, kHidden = 3, kOut = 2;

float value(int64_t i, double a, double b) {
  return static_cast<float>(std::sin(a * static_cast<double>(i) + b));
}

std::string model(TensorId* x, TensorId* w1, TensorId* w2, TensorId* loss) {
  auto b = Builder::create();
  auto ai = b->aiOnnxOpset13();
  *x = b->addInputTensor(TensorInfo(DataType::FLOAT, {kRows, kIn}), "x");
  std::vector<float> a(kIn * kHidden), c(kHidden * kOut);
  for (size_t i = 0; i < a.size(); ++i) a[i] = value(static_cast<int64_t>(i), 1.3, 0.2);
  for (size_t i = 0; i < c.size(); ++i) c[i] = value(static_cast<int64_t>(i), 0.9, 0.5);
  *w1 = b->addInitializedInputTensor(ConstVoidData(a.data(), TensorInfo(DataType::FLOAT, {kIn, kHidden})), "w1");
  *w2 = b->addInitializedInputTensor(ConstVoidData(c.data(), TensorInfo(DataType::FLOAT, {kHidden, kOut})), "w2");
  const TensorId y = ai.matmul({ai.tanh({ai.matmul({*x, *w1})}), *w2});
  *loss = b->aiGraphcoreOpset1().l1loss({y}, 1.0f, ReductionType::Sum);
  return b->getModelProto();
}

/// Trains kSteps steps on replicas [offset, offset + local) of `total`; returns w1 then w2.
std::vector<float> train(SessionOptions options, int64_t offset, int64_t local, int64_t total) {
  TensorId x, w1, w2, loss;
  const std::string proto = model(&x, &w1, &w2, &loss);
  const SGD sgd({{"defaultLearningRate", {0.05f, true}}, {"defaultMomentum", {0.9f, true}}});
  auto s = TrainingSession::createFromOnnxModel(proto, DataFlow(1, {loss}), loss, sgd,
                                                DeviceManager::createDeviceManager().createCpuDevice(),
                                                InputShapeInfo(), options);
  s->prepareDevice();
  s->weightsFromHost();
  auto anchors = s->initAnchorArrays();
  std::map<TensorId, IArray&> out;
  for (auto& kv : anchors) out.emplace(kv.first, kv.second);
  const int64_t per = kRows * kIn;
  std::vector<float> data(static_cast<size_t>(local * per));
  for (int step = 0; step < kSteps; ++step) {
    for (int64_t r = 0; r < local; ++r) {
      for (int64_t i = 0; i < per; ++i)
        data[static_cast<size_t>(r * per + i)] = 2 * value((step * total + offset + r) * per + i, 0.7, 0.3);
    }
    NDArrayWrapper<float> in(data.data(), local > 1 ? Shape{local, kRows, kIn} : Shape{kRows, kIn});
    std::map<TensorId, IArray&> ins{{x, in}};
    StepIO io(ins, out);
    s->run(io);
  }
  s->weightsToHost();
  std::vector<float> w(kIn * kHidden + kHidden * kOut);
  WeightsIO wio;
  wio.insert(w1, MutableVoidData(w.data(), TensorInfo(DataType::FLOAT, {kIn, kHidden})));
  wio.insert(w2, MutableVoidData(w.data() + kIn * kHidden, TensorInfo(DataType::FLOAT, {kHidden, kOut})));
  s->readWeights(wio);
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, check;
  int ranks = 0, replicas = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--out") out = argv[i + 1];
    if (a == "--check") check = argv[i + 1];
    if (a == "--ranks") ranks = std::atoi(argv[i + 1]);
    if (a == "--replicas") replicas = std::atoi(argv[i + 1]);
  }
  try {
    if (!out.empty()) {
      popdist::init();
      SessionOptions o;
      popdist::popart::configureSessionOptions(o);
      const std::vector<float> w = train(o, o.globalReplicaOffset, o.replicatedGraphCount, o.globalReplicationFactor);
      const std::string path = out + "/rank" + std::to_string(popdist::getInstanceIndex()) + ".bin";
      std::ofstream f(path, std::ios::binary);
      f.write(reinterpret_cast<const char*>(w.data()), static_cast<std::streamsize>(w.size() * sizeof(float)));
      if (!f) throw error("could not write {}", path);
      if (popdist::getInstanceIndex() == 0)
        std::cout << "trained " << kSteps << " steps on " << o.globalReplicationFactor << " replicas over "
                  << popdist::getNumInstances() << " processes\n";
      return 0;
    }
    if (check.empty() || ranks < 1 || replicas < 1) {
      std::cerr << "usage: train_distributed --out DIR | --check DIR --ranks N --replicas R\n";
      return 2;
    }
    SessionOptions o;
    o.enableReplicatedGraphs = replicas > 1;
    o.replicatedGraphCount = replicas;
    const std::vector<float> want = train(o, 0, replicas, replicas);
    for (int r = 0; r < ranks; ++r) {
      std::vector<float> got(want.size());
      const std::string path = check + "/rank" + std::to_string(r) + ".bin";
      std::ifstream f(path, std::ios::binary);
      f.read(reinterpret_cast<char*>(got.data()), static_cast<std::streamsize>(got.size() * sizeof(float)));
      if (!f) throw error("could not read {}", path);
      for (size_t i = 0; i < want.size(); ++i) {
        if (std::fabs(got[i] - want[i]) > 1e-6f) {
          std::cerr << "process " << r << ": weight element " << i << " is " << got[i] << ", one process with "
                    << replicas << " replicas has " << want[i] << "\n";
          return 1;
        }
      }
    }
    std::cout << ranks << " processes reached the weights of one process with " << replicas << " replicas\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "train_distributed: " << e.what() << "\n";
    return 1;
  }
}
