// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file session.hpp
/// Sessions: `InferenceSession` runs a model forward; `TrainingSession` (training.hpp side of
/// this header) adds a loss, autodiff and an optimizer. The IR is fully prepared by the
/// `createFromOnnxModel` factories (import, shape inference, patterns, schedule, memory plan),
/// so graph errors surface there; `prepareDevice` lowers it onto the device; `run` executes one
/// step of `batchesPerStep` batches.

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/istepio.hpp"
#include "popart/ndarraywrapper.hpp"
#include "popart/op/loss.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/report.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/stepio.hpp"
#include "popart/tensorinfo.hpp"

namespace onnx {
class ModelProto;
}

namespace popart {

class Ir;
struct IrBundle;
class Executable;
class ReplicaWeights;
namespace distributed {
class ProcessGroup;
}
struct ExecutableFile;
class Backend;
class LegacySession;

/// The device of the forms that take no deviceInfo (poponnx's `InferenceSession(model, dataFeed)`,
/// `Session(...)`): a CPU device, with a warning naming `form` in the log ("session" module).
std::shared_ptr<DeviceInfo> defaultSessionDevice(const std::string& form);

/// Memory the prepared session uses, in bytes.
struct SessionMemoryStats {
  int64_t activationArenaBytes = 0;  ///< the planned buffer shared by activations (peak)
  int64_t activationTotalBytes = 0;  ///< what activations would need without buffer reuse
  int64_t weightBytes = 0;           ///< weights and optimizer state on the device
  int64_t constantBytes = 0;         ///< constants baked into the executable
  /// Every field by name: the bindings marshal this list, so a field added here reaches JS and
  /// Python.
  std::vector<std::pair<const char*, int64_t>> fields() const {
    return {{"activationArenaBytes", activationArenaBytes},
            {"activationTotalBytes", activationTotalBytes},
            {"weightBytes", weightBytes},
            {"constantBytes", constantBytes}};
  }
};

class Session {
 public:
  virtual ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// poponnx's single Session (2018-19): `Session::createFromOnnxModel(model, dataFeed, losses,
  /// &optimizer)` then `train` / `evaluate` / `infer`. Deprecated (logged): a thin layer over
  /// InferenceSession and TrainingSession, see LegacySession. `deviceInfo` null: a CPU device
  /// (defaultSessionDevice).
  static std::unique_ptr<LegacySession> createFromOnnxModel(const std::string& model, const DataFlow& dataFlow,
                                                            const std::vector<Loss*>& losses = {},
                                                            const Optimizer* optimizer = nullptr,
                                                            std::shared_ptr<DeviceInfo> deviceInfo = nullptr,
                                                            const InputShapeInfo& inputShapeInfo = InputShapeInfo(),
                                                            const SessionOptions& userOptions = SessionOptions(),
                                                            const Patterns& patterns = Patterns());

  /// Lowers the IR onto the device. With loadEngine (default) the engine is also loaded.
  void prepareDevice(bool loadEngine = true);
  /// Loads the engine; `run` does this lazily if needed. Throws before prepareDevice.
  void loadEngineAndConnectStreams();
  /// Copies host weights (and optimizer state) to the device.
  void weightsFromHost();
  /// Copies device weights back to the host copies.
  void weightsToHost();
  /// Copies host weights into the user's buffers (call weightsToHost first for fresh values).
  /// Training sessions also read their optimizer state tensors (e.g. "Accl___w").
  void readWeights(const IWeightsIO& weights);
  /// Writes the user's buffers into the host weights (and optimizer state); weightsFromHost must
  /// follow.
  void writeWeights(const IWeightsIO& weights);
  /// A distributed training session (enableDistributedReplicatedGraphs, one process per rank of
  /// an MPI launch): every process takes the weights and optimizer state of process `rootRank`,
  /// on the host and the device (PopART's Session::broadcastWeights). Each process must call it.
  void broadcastWeights(int rootRank = 0);
  /// Runs one step: batchesPerStep batches (each accumulationFactor micro-batches). In training,
  /// each batch ends with one weight update (gradients of its micro-batches accumulated).
  void run(IStepIO& stepio, const std::string& debugName = "");
  /// weightsToHost, then writes an ONNX model holding the current weights to `fn`. A training
  /// session adds its optimizer state (Accl___w, Accl1___w, Accl2___w, Accl3___w, Step___w,
  /// Accum___w) as extra initializers, which resetHostWeights reads back. The file is written to
  /// a temporary name and renamed: a failure never leaves a half-written model. In a
  /// distributed session only process 0 writes the file (every process holds the same weights).
  /// Initializers the model stores as ONNX external data stay external (PopART's behaviour):
  /// their current values are written into their external files, at their offsets.
  void modelToHost(const std::string& fn);
  /// The same model as serialized ModelProto bytes (every initializer inline).
  std::string modelToHostBytes();
  /// The model for inference with the current weights (weightsToHost first): a training
  /// session's loss is no longer an output, and the nodes, inputs (labels) and initializers that
  /// only the dropped outputs needed are removed; no optimizer state. Written to `fn` through a
  /// temporary file (initializers inline). modelToHost keeps everything to resume training.
  void exportInferenceModel(const std::string& fn);
  /// exportInferenceModel's model as serialized ModelProto bytes.
  std::string exportInferenceModelBytes();
  /// The initializers stored externally in the file `fromLocation` are moved to the new file
  /// `toLocation` (a copy of the data, same offsets); later modelToHost calls write there.
  /// Errors (PopART's): `toLocation` exists, `fromLocation` does not, or no initializer is
  /// stored there.
  void updateExternallySavedTensorLocations(const std::string& fromLocation, const std::string& toLocation);
  /// Loads initializers from an ONNX model (bytes or path) into the host weights;
  /// weightsFromHost must follow.
  void resetHostWeights(const std::string& modelProtoOrFilename,
                        bool ignoreWeightsInModelWithoutCorrespondingHostWeight = false);

  /// Shape and type of any tensor in the IR.
  TensorInfo getInfo(const TensorId& id) const;
  bool hasInfo(const TensorId& id) const;
  std::vector<TensorId> getAllTensorIds() const;
  /// Arrays shaped for each anchor by the All/EveryN/Final/Sum rules (the C++ face of
  /// PopART's Python `initAnchorArrays`).
  std::map<TensorId, NDArray> initAnchorArrays() const;
  /// The shape of the array an anchor is returned in.
  Shape getAnchorShape(const TensorId& id) const;
  /// Type and shape of each anchor's array (what initAnchorArrays allocates). Throws
  /// popart::memory_allocation_err naming the anchor and its factors (batchesPerStep,
  /// accumulation and replication factors, shape) when an array is over the memory limit
  /// (popart/memorylimit.hpp).
  std::map<TensorId, TensorInfo> getAnchorArrayInfos() const;

  /// Poplar's text summary on an IPU device (IPU model, offline IPU): the target, the graph, the
  /// memory by category and by tile (tiles out of memory), and the execution (cycles per
  /// micro-batch, the runs, the top ops); reportOptions {"showExecutionSteps": "true"} adds the
  /// program. On the CPU device: the host time per op when profiling is on (engine option
  /// autoReport.all or debug.instrument = "true"), else PopART's error "Profiling is disabled for
  /// current device type.". resetProfile forgets the runs reported so far.
  std::string getSummaryReport(bool resetProfile = true) const;
  /// The profile as a C++ object: `compilation` (target, memory, ops, tensors) and `execution`
  /// (the runs since the last reset). IPU devices; the CPU device with profiling on (runs only).
  report::Report getReport() const;
  /// The profile as one document, JSON text (or CBOR bytes): {"compilation": getGraphReport's
  /// document, "execution": getExecutionReport's (the runs are not reset)}, the keys of
  /// report::schema(). What the Python and JS getReport() return. Throws as getReport().
  std::string getReportJson(bool useCbor = false) const;
  /// The graph report as JSON (or CBOR bytes): the schema in docs/ipu-model.md, with PopART's
  /// `memory.byTile.total` (one entry per tile).
  std::string getGraphReport(bool useCbor = false) const;
  /// The IR as PopART's JSON (Python `_serializeIr`): {"maingraph": [ops in schedule order], then
  /// each called subgraph by id}; each op {"type", "version", "domain", "name", "inputs": [{"name",
  /// "shape", "type", "index"}], "outputs": [...], "attributes": {...}}, every value a string. The
  /// IR is that of the session as built: after patterns, the backward pass and the optimizer's
  /// updates in training; no prepareDevice needed.
  std::string serializeIr(IrSerializationFormat format = IrSerializationFormat::JSON) const;
  /// The execution report as JSON (or CBOR bytes): `runs[i].name` (the run's debugName),
  /// `simulation.cycles`, `simulation.steps[i].cycles`. The CPU device without profiling:
  /// {"profilerMode":"NONE"}. resetProfile forgets the runs reported.
  std::string getExecutionReport(bool useCbor = false, bool resetProfile = true);
  /// The IPU model's cycles of the last run: `id` "" for the whole device, "inner_ipu_<i>" for
  /// IPU i (SessionOptions::hardwareInstrumentations with Inner). Needs
  /// instrumentWithHardwareCycleCounter and a run.
  uint64_t getCycleCount(const std::string& id = "") const;
  void setRandomSeed(uint64_t seed);
  uint64_t getRandomSeed() const { return randomSeed_; }

  /// Prepares the device (when not done yet) and writes the session to `filename`: the hash of
  /// its prepared plan and the current weights (PopART writes its Poplar executable and tensor
  /// data). Parent directories are made.
  void compileAndExport(const std::string& filename);
  /// compileAndExport's file as bytes (the JS API in a browser, which has no file system).
  std::string compileAndExportToBytes();
  /// Before prepareDevice: takes a file of compileAndExport for this session's model, options and
  /// device (another is an error naming both hashes); the weights start as the file has them.
  void loadExecutableFromFile(const std::string& filename);
  /// loadExecutableFromFile from the file's bytes.
  void loadExecutableFromBytes(const std::string& bytes);

  const DataFlow& getDataFlow() const;
  const SessionOptions& getSessionOptions() const;
  const std::string& getName() const { return name_; }
  std::shared_ptr<DeviceInfo> getDevice() const { return device_; }
  SessionMemoryStats getMemoryStats() const;
  bool isPrepared() const { return executable_ != nullptr || (runTime_ && prepared_); }

  /// An inference session on the CPU device whose shapes are not all known when the model is
  /// compiled (a model input with a symbolic dimension InputShapeInfo does not give, a
  /// shape-giving input such as Reshape's shape fed at run time) plans each run from its inputs'
  /// shapes and values, and keeps the last kMaxRunTimePlans plans (docs/architecture.md, "Static
  /// and run-time planning"). Its plans so far:
  struct RunTimePlanStats {
    bool runTimeShapes = false;              ///< false: the one static plan prepareDevice makes
    int64_t plansBuilt = 0;                  ///< plans made for runs (each a re-plan after the first)
    int64_t plansReused = 0;                 ///< runs that found their plan in the cache
    int64_t plansCached = 0;                 ///< plans held now
    std::vector<TensorId> runTimeConstants;  ///< inputs whose values give shapes (a plan per value)
  };
  RunTimePlanStats getRunTimePlanStats() const;
  static constexpr size_t kMaxRunTimePlans = 8;
  /// The IR (internal type; for tools and tests): the last run's plan when shapes are known only
  /// at run time (an error before its first run).
  const Ir& getIr() const { return ir(); }
  Ir& getIr() { return ir(); }

 protected:
  Session(std::string name, std::shared_ptr<DeviceInfo> device);
  void checkPrepared(const char* what) const;
  ExecutableFile exportExecutable();
  void checkNotPrepared() const;
  void importExecutable(const ExecutableFile& f, const std::string& source);
  /// What a StepIO must hold for one step: fixed once the IR is prepared (at construction), so
  /// computed on the first call and kept.
  const StepIOSpec& stepIOSpec() const;
  StepIOSpec makeStepIOSpec() const;
  /// The model with the current weights; `writeExternalData`: externally stored initializers
  /// stay external, their values written into their files (modelToHost(fn)).
  std::string saveModelBytes(bool writeExternalData = false);
  /// The model with the current weights; `optimizerState`: the training state as extra
  /// initializers (modelToHost's).
  onnx::ModelProto modelWithHostWeights(bool writeExternalData, bool optimizerState);
  /// The host tensors readWeights / writeWeights / modelToHost transfer: the model's
  /// initializers, then the optimizer state.
  std::vector<TensorId> hostWeightIds() const;
  /// Called after weightsToHost (which copies every device variable back): a training session
  /// restores the host values of its optimizer's hyper-parameters.
  virtual void afterWeightsToHost() {}
  /// Imports `model` (bytes or path; `losses`, pre-1.2 API, appended) and prepares the IR.
  /// Training: `loss` is the loss tensor ("" with losses: their sum) and `optimizer` is set.
  void createIr(const std::string& model, const std::vector<Loss*>* losses, const DataFlow& dataFlow,
                const InputShapeInfo& inputShapeInfo, const SessionOptions& userOptions, const Patterns& patterns,
                const TensorId& loss, const Optimizer* optimizer);

  /// The prepared IR. A session planned at run time has one after its first run (its last run's
  /// plan); before, this is an error saying so.
  Ir& ir() const;
  /// Compiles ir_ for the device into executable_ and loads the weights.
  void compileIr();
  /// The backend's executable for ir_, or for replicated training one per local replica
  /// (session/replicated_executable.hpp).
  std::unique_ptr<Executable> compileReplicas();
  /// The host's weights to the device: every replica's, each with its groups' values
  /// (VariableSettings).
  void loadWeights();
  /// A distributed session: the processes (MPI), checked to run the same model and options and
  /// to hold globalReplicationFactor replicas between them; nullptr otherwise.
  distributed::ProcessGroup* joinProcesses();
  distributed::ProcessGroup* processes_ = nullptr;
  /// Run-time planning (session/runtime_plans.cpp).
  struct RunTimePlans;
  std::unique_ptr<RunTimePlans> runTime_;
  bool prepared_ = false;
  /// After an import that needs a run's shapes or values (`need`), on the CPU device: keeps the
  /// model and the settings (`b`, its model taken from the half-loaded ir_) for the runs' plans.
  void startRunTimePlanning(const IrBundle& b, const std::exception& need);
  /// Makes ir_ / executable_ the plan for this step's inputs (built, or taken from the cache) and
  /// sizes the anchors' arrays.
  void selectRunTimePlan(IStepIO& io);
  /// For a plan with sequence or optional inputs or anchors: the StepIO a run uses, which serves
  /// their tensors from (and to) the arrays `io` gives for them; nullptr otherwise.
  std::unique_ptr<IStepIO> elementStepIO(IStepIO& io);
  /// Before the first run of a session planned at run time: the settings, the model as given and
  /// placeholder anchors (the model's declared types, unknown dimensions 0).
  const DataFlow& runTimeDataFlow() const;
  const SessionOptions& runTimeOptions() const;
  onnx::ModelProto runTimeModel() const;
  std::map<TensorId, TensorInfo> runTimeAnchorPlaceholders() const;

  std::string name_;
  std::shared_ptr<DeviceInfo> device_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Ir> ir_;
  /// The training loss (or the sum of the losses given), "" for inference.
  TensorId lossId_;
  std::unique_ptr<Executable> executable_;
  /// Weights with VariableSettings at this replication factor (session/replica_weights.hpp).
  ReplicaWeights& replicaWeights() const;
  mutable std::unique_ptr<ReplicaWeights> replicaWeights_;
  mutable std::unique_ptr<StepIOSpec> stepIOSpec_;
  bool engineLoaded_ = false;
  bool weightsFromHostCalled_ = false;
  /// Runs since the last resetProfile (IPU devices, or the CPU with profiling on); the most recent
  /// kMaxProfiledRuns are kept.
  static constexpr size_t kMaxProfiledRuns = 10000;
  mutable std::deque<report::Run> runs_;
  bool hasRun_ = false;
  report::Run lastRun_;
  /// After prepareDevice and each run with autoReport.all: writes the reports to
  /// <autoReport.directory or .>/<session name>/. Returns the directory ("" when not enabled).
  std::string writeAutoReports() const;
  void checkReportable() const;
  uint64_t randomSeed_ = 0;
  /// The directory of a model loaded from a path ("" for bytes): its external data's base.
  std::string modelBaseDir_;
  /// updateExternallySavedTensorLocations: the model's external data location -> the current one.
  std::map<std::string, std::string> externalLocations_;
  /// syntheticDataMode: each input's generated micro-batch (made on the first run), in its type.
  std::map<TensorId, std::vector<char>> syntheticInputs_;
  const std::map<TensorId, std::vector<char>>& syntheticInputs(const StepIOSpec& spec);
};

class InferenceSession : public Session {
 public:
  /// `model`: serialized ONNX ModelProto bytes, or the path of an ONNX file.
  static std::unique_ptr<InferenceSession> createFromOnnxModel(const std::string& model, const DataFlow& dataFlow,
                                                               std::shared_ptr<DeviceInfo> deviceInfo,
                                                               const InputShapeInfo& inputShapeInfo = InputShapeInfo(),
                                                               const SessionOptions& userOptions = SessionOptions(),
                                                               const Patterns& patterns = Patterns(),
                                                               const std::string& name = "inference");
  /// Pre-1.2 form: the losses (popart/op/loss.hpp) are appended to the model and run with the
  /// forward pass, so their values can be anchored. A loss input the model lacks (the labels)
  /// must be given in `inputShapeInfo`.
  /// (A template only so that a `{}` argument still selects the InputShapeInfo form; `{&loss}`
  /// works.)
  template <typename Losses = std::vector<Loss*>,
            typename = std::enable_if_t<std::is_same<Losses, std::vector<Loss*>>::value>>
  static std::unique_ptr<InferenceSession> createFromOnnxModel(
      const std::string& model, const DataFlow& dataFlow, std::shared_ptr<DeviceInfo> deviceInfo, const Losses& losses,
      const InputShapeInfo& inputShapeInfo = InputShapeInfo(), const SessionOptions& userOptions = SessionOptions(),
      const Patterns& patterns = Patterns(), const std::string& name = "inference") {
    return createWithLosses(model, dataFlow, std::move(deviceInfo), losses, inputShapeInfo, userOptions, patterns,
                            name);
  }
  /// poponnx's form without a device, `InferenceSession("alexnet.onnx", dataFeed)`: runs on a CPU
  /// device (defaultSessionDevice logs a warning).
  static std::unique_ptr<InferenceSession> createFromOnnxModel(const std::string& model, const DataFlow& dataFlow);

 private:
  InferenceSession(std::string name, std::shared_ptr<DeviceInfo> device);
  static std::unique_ptr<InferenceSession> createWithLosses(const std::string& model, const DataFlow& dataFlow,
                                                            std::shared_ptr<DeviceInfo> deviceInfo,
                                                            const std::vector<Loss*>& losses,
                                                            const InputShapeInfo& inputShapeInfo,
                                                            const SessionOptions& userOptions, const Patterns& patterns,
                                                            const std::string& name);
};

class TrainingSession : public Session {
 public:
  /// `loss`: the id of a scalar tensor of the model (e.g. made with aiGraphcore().l1loss).
  /// Autodiff adds the backward pass; `optimizer` (copied) adds one update per trainable weight
  /// (the model's floating-point initializers). `weightsFromHost()` must precede `run`.
  static std::unique_ptr<TrainingSession> createFromOnnxModel(const std::string& model, const DataFlow& dataFlow,
                                                              const TensorId& loss, const Optimizer& optimizer,
                                                              std::shared_ptr<DeviceInfo> deviceInfo,
                                                              const InputShapeInfo& inputShapeInfo = InputShapeInfo(),
                                                              const SessionOptions& userOptions = SessionOptions(),
                                                              const Patterns& patterns = Patterns(),
                                                              const std::string& name = "training");
  /// Pre-1.2 form (the seeds' `losses=[NllLoss(...)]`): the losses (popart/op/loss.hpp, Sum
  /// reduction by default) are appended to the model and training minimises their sum. A loss
  /// input the model lacks (the labels) must be given in `inputShapeInfo`.
  /// (A template only so that a `{}` argument is not ambiguous; `{&loss}` works.)
  template <typename Losses = std::vector<Loss*>,
            typename = std::enable_if_t<std::is_same<Losses, std::vector<Loss*>>::value>>
  static std::unique_ptr<TrainingSession> createFromOnnxModel(const std::string& model, const DataFlow& dataFlow,
                                                              const Losses& losses, const Optimizer& optimizer,
                                                              std::shared_ptr<DeviceInfo> deviceInfo,
                                                              const InputShapeInfo& inputShapeInfo = InputShapeInfo(),
                                                              const SessionOptions& userOptions = SessionOptions(),
                                                              const Patterns& patterns = Patterns(),
                                                              const std::string& name = "training") {
    return createWithLosses(model, dataFlow, losses, optimizer, std::move(deviceInfo), inputShapeInfo, userOptions,
                            patterns, name);
  }
  /// poponnx's form without a device, `TrainingSession(model, dataFeed=, losses=, optimizer=,
  /// inputShapeInfo=)`: runs on a CPU device (defaultSessionDevice logs a warning).
  template <typename Losses = std::vector<Loss*>,
            typename = std::enable_if_t<std::is_same<Losses, std::vector<Loss*>>::value>>
  static std::unique_ptr<TrainingSession> createFromOnnxModel(const std::string& model, const DataFlow& dataFlow,
                                                              const Losses& losses, const Optimizer& optimizer,
                                                              const InputShapeInfo& inputShapeInfo = InputShapeInfo()) {
    return createWithLosses(model, dataFlow, losses, optimizer,
                            defaultSessionDevice("TrainingSession(model, dataFeed, losses, optimizer)"), inputShapeInfo,
                            SessionOptions(), Patterns(), "training");
  }

  /// The optimizer in use (the one given at creation, or the latest updateOptimizer(FromHost)).
  const Optimizer& getOptimizer() const { return *optimizer_; }

  /// Replaces the optimizer's values and writes them to the device at once: the next run uses
  /// them. `optimizer` (copied) must be a valid replacement of the current one
  /// (Optimizer::validReplacement: same type, clip norms, const-ness, const values, specific
  /// weights, ...), else an optimizer_replacement_error is thrown and nothing changes. Only
  /// non-const values change. Combined SGD (SGD1) applies changes of momentum, dampening and
  /// weight decay one step late (see popart/sgd.hpp). Before prepareDevice, the values are kept
  /// on the host and prepareDevice uses them.
  void updateOptimizerFromHost(const Optimizer* optimizer);
  /// Pre-1.2 API, first half of updateOptimizerFromHost: validates `optimizer` and replaces the
  /// host values; the device keeps the previous ones until optimizerFromHost().
  void updateOptimizer(const Optimizer* optimizer);
  /// Pre-1.2 API, second half: copies the host values of the optimizer's non-const
  /// hyper-parameters to the device.
  void optimizerFromHost();
  /// Ids of the tensors holding non-const hyper-parameters (e.g.
  /// "scaledLearningRate0___default___FLOAT", "lossScaling_FLOAT"); see updateOptimizerFromHost.
  const std::vector<TensorId>& getOptimizerTensorIds() const { return optimizerTensorIds_; }

 protected:
  void afterWeightsToHost() override;

 private:
  TrainingSession(std::string name, std::shared_ptr<DeviceInfo> device);
  static std::unique_ptr<TrainingSession> createWithLosses(const std::string& model, const DataFlow& dataFlow,
                                                           const std::vector<Loss*>& losses, const Optimizer& optimizer,
                                                           std::shared_ptr<DeviceInfo> deviceInfo,
                                                           const InputShapeInfo& inputShapeInfo,
                                                           const SessionOptions& userOptions, const Patterns& patterns,
                                                           const std::string& name);
  std::unique_ptr<Optimizer> optimizer_;
  std::vector<TensorId> optimizerTensorIds_;
};

/// poponnx's one Session class (2018-19), for code written against it, made by
/// Session::createFromOnnxModel. It is a thin layer over the modern sessions: session() is a
/// TrainingSession when an optimizer was given, else an InferenceSession (with the losses, if any).
/// - train(stepio): TrainingSession::run (one step of batchesPerStep weight updates);
/// - evaluate(stepio): the forward pass and the losses, without updates;
/// - infer(stepio): the forward pass only.
/// When session() is not already that program, evaluate and infer run a forward-only
/// InferenceSession made and prepared on first use (with the losses for evaluate), which takes a
/// copy of session()'s current weights before each call. Its anchors are the DataFlow's, less the
/// ids with a reserved prefix (Gradient___...) and, for infer, the losses' outputs. Each call's
/// StepIO holds the inputs and anchors of that program. A call the session cannot do (train
/// without an optimizer, evaluate without losses) is an error naming the form that can.
class LegacySession {
 public:
  ~LegacySession();
  LegacySession(const LegacySession&) = delete;
  LegacySession& operator=(const LegacySession&) = delete;

  void prepareDevice();
  void weightsFromHost();
  void weightsToHost();
  /// With an optimizer only (else an error).
  void optimizerFromHost();
  void updateOptimizer(const Optimizer* optimizer);
  void train(IStepIO& stepio);
  void evaluate(IStepIO& stepio);
  void infer(IStepIO& stepio);
  void modelToHost(const std::string& fn) { main_->modelToHost(fn); }
  std::map<TensorId, NDArray> initAnchorArrays() const { return main_->initAnchorArrays(); }
  TensorInfo getInfo(const TensorId& id) const { return main_->getInfo(id); }
  /// The session made for the arguments (owned by this object).
  Session& session() { return *main_; }
  const Session& session() const { return *main_; }
  bool hasLosses() const { return !losses_.empty(); }
  bool hasOptimizer() const;

 private:
  friend class Session;
  LegacySession() = default;
  /// The forward-only session of evaluate (withLosses) or infer, made on first use, with
  /// session()'s current weights.
  InferenceSession& forwardSession(bool withLosses, const char* call);

  std::unique_ptr<Session> main_;
  std::unique_ptr<InferenceSession> evaluator_, inferrer_;
  std::vector<std::unique_ptr<Loss>> losses_;
  std::string model_;
  DataFlow dataFlow_;
  InputShapeInfo inputShapeInfo_;
  SessionOptions options_;
  Patterns patterns_;
};

}  // namespace popart
