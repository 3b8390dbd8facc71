// libFuzzer harness: the model importer, session creation, prepareDevice and one run.
//
// The input is the bytes of a serialized ONNX ModelProto (seeds: the reference zoo and the ONNX
// backend test models, gathered by scripts/fuzz.sh). The anchors are the graph's outputs; the
// batches per step (1 or 2) and the anchor return type (All, Final, EveryN, Sum) come from a hash
// of the bytes, so every seed keeps one setting. Every stream input gets small deterministic
// values. When the run succeeds, the model has a FLOAT output and a FLOAT initializer, an L1 loss
// on that output trains one SGD step, which drives autodiff and the grad kernels.
//
// Bad input may only raise popart::error (fuzz_common.hpp); anything else - a crash, a sanitizer
// report, another exception, an allocation over the budget, a time-out - is a bug.
#include <functional>

#include "fuzz_common.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"

using namespace popart;

namespace {

/// The graph outputs (or, with none, the last node's outputs), at most 8.
std::vector<TensorId> anchorIds(const onnx::ModelProto& m) {
  std::vector<TensorId> ids;
  auto add = [&](const std::string& id) {
    if (!id.empty() && ids.size() < 8 && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  for (const auto& o : m.graph().output()) add(o.name());
  if (ids.empty() && m.graph().node_size() > 0) {
    for (const auto& o : m.graph().node(m.graph().node_size() - 1).output()) add(o);
  }
  return ids;
}

bool hasFloatInitializer(const onnx::ModelProto& m) {
  for (const auto& t : m.graph().initializer()) {
    if (t.data_type() == onnx::TensorProto::FLOAT) return true;
  }
  return false;
}

/// One SGD step on lambda * |out| (an L1 loss appended with the Builder).
void trainOneStep(const std::string& bytes, const TensorId& out) {
  std::unique_ptr<Builder> b;
  TensorId loss;
  if (!fuzz::guarded("Builder::createFromOnnxModel (training)", [&] {
        b = Builder::createFromOnnxModel(bytes);
        loss = b->aiGraphcoreOpset1().l1loss({out}, 0.1f, ReductionType::Sum);
        b->addOutputTensor(loss);
      }))
    return;
  const std::string model = b->getModelProto();
  std::unique_ptr<TrainingSession> s;
  if (!fuzz::guarded("TrainingSession::createFromOnnxModel", [&] {
        s = TrainingSession::createFromOnnxModel(model, DataFlow(1, {loss}), loss, ConstSGD(0.01f),
                                                 DeviceManager::createDeviceManager().createCpuDevice());
      }))
    return;
  if (!fuzz::guarded("TrainingSession::prepareDevice", [&] {
        s->prepareDevice();
        s->weightsFromHost();
      }))
    return;
  fuzz::guarded("TrainingSession::run", [&] {
    fuzz::runWithSmallInputs(*s);
    s->weightsToHost();
  });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::init();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // createFromOnnxModel also takes a file path: bytes that name an existing file are no model.
  if (isExistingFile(bytes)) return 0;

  onnx::ModelProto m;
  const bool parsed = m.ParseFromString(bytes) && m.has_graph();
  const std::vector<TensorId> ids = parsed ? anchorIds(m) : std::vector<TensorId>{};
  const size_t h = std::hash<std::string>()(bytes);
  const int bps = 1 + static_cast<int>(h & 1);
  static const char* const kArts[] = {"All", "Final", "EveryN", "Sum"};
  const std::string art = kArts[(h >> 1) % 4];
  AnchorReturnTypeMap arts;
  for (const auto& id : ids) arts.emplace(id, art == "EveryN" ? AnchorReturnType(art, bps) : AnchorReturnType(art));

  // Half the inputs run on the IPU model (the CPU's kernels plus the tile / memory / cycle model
  // and its reports), half on the CPU device.
  const bool ipu = ((h >> 3) & 1) != 0;
  auto& dm = DeviceManager::createDeviceManager();
  std::unique_ptr<InferenceSession> s;
  if (!fuzz::guarded("InferenceSession::createFromOnnxModel", [&] {
        s = InferenceSession::createFromOnnxModel(bytes, DataFlow(bps, arts),
                                                  ipu ? dm.createIpuModelDevice() : dm.createCpuDevice());
      }))
    return 0;
  if (!fuzz::guarded("prepareDevice", [&] { s->prepareDevice(); })) return 0;
  bool ran = false;
  fuzz::guarded("run", [&] {
    ran = fuzz::runWithSmallInputs(*s);
    if (ipu) {
      s->getSummaryReport(false);
      s->getGraphReport(true);
    }
    s->getExecutionReport();
    s->modelToHostBytes();
  });
  if (!ran || !hasFloatInitializer(m)) return 0;
  TensorId floatOut;
  for (const auto& id : ids) {
    if (floatOut.empty() && s->hasInfo(id) && s->getInfo(id).dataType() == DataType::FLOAT) floatOut = id;
  }
  s.reset();
  if (!floatOut.empty()) trainOneStep(bytes, floatOut);
  return 0;
}
