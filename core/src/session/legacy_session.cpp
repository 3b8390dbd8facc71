// The poponnx-era forms: Session::createFromOnnxModel + LegacySession (train / evaluate / infer over
// the modern sessions), the sessions made without a device, and the CPU device they default to.
#include <set>

#include "ir/ir.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/session.hpp"

namespace popart {

std::shared_ptr<DeviceInfo> defaultSessionDevice(const std::string& form) {
  logging::session::warn(
      "{} was given no deviceInfo (poponnx's form): the session runs on "
      "DeviceManager::createDeviceManager().createCpuDevice(). Pass a deviceInfo to choose the device.",
      form);
  return DeviceManager::createDeviceManager().createCpuDevice();
}

std::unique_ptr<InferenceSession> InferenceSession::createFromOnnxModel(const std::string& model,
                                                                        const DataFlow& dataFlow) {
  return createFromOnnxModel(model, dataFlow, defaultSessionDevice("InferenceSession(model, dataFeed)"));
}

std::unique_ptr<LegacySession> Session::createFromOnnxModel(
    const std::string& model, const DataFlow& dataFlow, const std::vector<Loss*>& losses, const Optimizer* optimizer,
    std::shared_ptr<DeviceInfo> deviceInfo, const InputShapeInfo& inputShapeInfo, const SessionOptions& userOptions,
    const Patterns& patterns) {
  logging::session::warn(
      "Session(model, dataFeed, losses, optimizer) is poponnx's API and is deprecated: it runs as a "
      "{} (train = TrainingSession::run; evaluate and infer run a forward-only InferenceSession). Use "
      "InferenceSession / TrainingSession.",
      optimizer ? "TrainingSession" : "InferenceSession");
  if (optimizer && losses.empty())
    throw error(
        "Session(model, dataFeed, losses, optimizer): an optimizer needs losses to minimise, but the list of losses "
        "is empty. Give at least one loss (e.g. L1Loss(\"out\", \"l1LossVal\", 0.1)), or use "
        "TrainingSession::createFromOnnxModel(model, dataFlow, loss, optimizer, deviceInfo) with a loss tensor of the "
        "model.");
  std::unique_ptr<LegacySession> s(new LegacySession());
  for (size_t i = 0; i < losses.size(); ++i) {
    if (!losses[i]) throw error("Session(model, dataFeed, losses, ...): losses[{}] is null", i);
    s->losses_.push_back(losses[i]->clone());
  }
  if (!deviceInfo) deviceInfo = defaultSessionDevice("Session(model, dataFeed, ...)");
  if (optimizer) {
    s->main_ = TrainingSession::createFromOnnxModel(model, dataFlow, losses, *optimizer, deviceInfo, inputShapeInfo,
                                                    userOptions, patterns);
  } else if (!losses.empty()) {
    s->main_ = InferenceSession::createFromOnnxModel(model, dataFlow, deviceInfo, losses, inputShapeInfo, userOptions,
                                                     patterns);
  } else {
    s->main_ =
        InferenceSession::createFromOnnxModel(model, dataFlow, deviceInfo, inputShapeInfo, userOptions, patterns);
  }
  s->model_ = model;
  s->dataFlow_ = dataFlow;
  s->inputShapeInfo_ = inputShapeInfo;
  s->options_ = userOptions;
  s->patterns_ = patterns;
  return s;
}

LegacySession::~LegacySession() = default;

bool LegacySession::hasOptimizer() const {
  return dynamic_cast<const TrainingSession*>(main_.get()) != nullptr;
}

void LegacySession::prepareDevice() {
  main_->prepareDevice();
}
void LegacySession::weightsFromHost() {
  main_->weightsFromHost();
}
void LegacySession::weightsToHost() {
  main_->weightsToHost();
}

void LegacySession::optimizerFromHost() {
  auto* t = dynamic_cast<TrainingSession*>(main_.get());
  if (!t)
    throw error(
        "Session.optimizerFromHost: this Session has no optimizer; create it with Session(model, dataFeed, losses, "
        "optimizer) to train");
  t->optimizerFromHost();
}

void LegacySession::updateOptimizer(const Optimizer* optimizer) {
  auto* t = dynamic_cast<TrainingSession*>(main_.get());
  if (!t)
    throw error(
        "Session.updateOptimizer: this Session has no optimizer; create it with Session(model, dataFeed, losses, "
        "optimizer) to train");
  t->updateOptimizer(optimizer);
}

void LegacySession::train(IStepIO& stepio) {
  if (!hasOptimizer())
    throw error(
        "Session.train: this Session was created without {}, so it cannot train. Create it with Session(model, "
        "dataFeed, losses, optimizer), or use TrainingSession.",
        losses_.empty() ? "losses and an optimizer" : "an optimizer");
  main_->run(stepio);
}

void LegacySession::evaluate(IStepIO& stepio) {
  if (losses_.empty())
    throw error(
        "Session.evaluate: this Session has no losses to evaluate. Create it with Session(model, dataFeed, losses[, "
        "optimizer]), or use infer() for the forward pass alone.");
  if (!hasOptimizer()) {
    main_->run(stepio);  // the InferenceSession with the losses is exactly evaluate's program
    return;
  }
  forwardSession(true, "evaluate").run(stepio);
}

void LegacySession::infer(IStepIO& stepio) {
  if (losses_.empty()) {
    main_->run(stepio);
    return;
  }
  forwardSession(false, "infer").run(stepio);
}

InferenceSession& LegacySession::forwardSession(bool withLosses, const char* call) {
  if (!main_->isPrepared())
    throw error("Session.{} was called before prepareDevice(). Call prepareDevice() on the session first.", call);
  std::unique_ptr<InferenceSession>& fwd = withLosses ? evaluator_ : inferrer_;
  if (!fwd) {
    std::set<TensorId> lossOutputs;
    for (const auto& l : losses_) lossOutputs.insert(l->output());
    AnchorReturnTypeMap anchors;
    std::string dropped;
    for (const auto& kv : dataFlow_.getAnchorReturnTypeMap()) {
      const bool reserved = kv.first.find("___") != std::string::npos;
      if (reserved || (!withLosses && lossOutputs.count(kv.first))) {
        dropped += (dropped.empty() ? "'" : ", '") + kv.first + "'";
        continue;
      }
      anchors.emplace(kv.first, kv.second);
    }
    if (anchors.empty())
      throw error(
          "Session.{}: none of the DataFlow's anchors ({}) is computed by the {}; anchor a tensor of the model to "
          "{}",
          call, dropped, withLosses ? "forward pass and the losses" : "forward pass alone (without the losses)", call);
    SessionOptions opts = options_;
    opts.constantWeights = false;  // takes the main session's weights before each call
    const DataFlow df(dataFlow_.batchesPerStep(), anchors);
    std::vector<Loss*> losses;
    for (const auto& l : losses_) losses.push_back(l.get());
    logging::session::info("Session.{}: making its forward-only InferenceSession (anchors dropped: {})", call,
                           dropped.empty() ? "none" : dropped);
    fwd = withLosses ? InferenceSession::createFromOnnxModel(model_, df, main_->getDevice(), losses, inputShapeInfo_,
                                                             opts, patterns_, call)
                     : InferenceSession::createFromOnnxModel(model_, df, main_->getDevice(), inputShapeInfo_, opts,
                                                             patterns_, call);
    fwd->prepareDevice();
  }
  // The main session's current weights (training changes them on the device).
  main_->weightsToHost();
  std::map<TensorId, NDArray> buffers;
  WeightsIO io;
  const Graph& g = fwd->getIr().mainGraph();
  for (const auto& id : fwd->getIr().initializerIds()) {
    const Tensor* t = g.tensor(id);
    if (!t || !t->data || t->kind != TensorKind::Variable || !main_->hasInfo(id)) continue;
    NDArray& a = buffers.emplace(id, NDArray(t->info)).first->second;
    io.insert(id, MutableVoidData(a.data(), a.info()));
  }
  main_->readWeights(io);
  fwd->writeWeights(io);
  fwd->weightsFromHost();
  return *fwd;
}

}  // namespace popart
