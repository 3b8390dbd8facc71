// Session, InferenceSession: creation (IR preparation), device preparation, the step loop with
// anchor return types, weight transfer and model export.
#include "popart/session.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "backends/backend.hpp"
#include "backends/ipu_model/ipu_model.hpp"
#include "backends/ipu_model/report_text.hpp"
#include "backends/report_files.hpp"
#include "common/checked_size.hpp"
#include "distributed/process_group.hpp"
#include "ir/ir.hpp"
#include "ir/runtime_info.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"
#include "ops/collectives.hpp"
#include "ops/op_util.hpp"
#include "optimizers/training_graph.hpp"
#include "passes/prepare.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/version.hpp"
#include "session/engine_options.hpp"
#include "session/executable_file.hpp"
#include "session/external_weights.hpp"
#include "session/ir_json.hpp"
#include "session/losses.hpp"
#include "session/replica_weights.hpp"
#include "session/replicated_executable.hpp"
#include "session/report_json.hpp"

namespace popart {

// Session's constructor and destructor are in runtime_plans.cpp, where Session::RunTimePlans (a
// member's pointee) is complete.

ReplicaWeights& Session::replicaWeights() const {
  if (!replicaWeights_) replicaWeights_ = std::make_unique<ReplicaWeights>(ir());
  return *replicaWeights_;
}

void Session::checkPrepared(const char* what) const {
  if (!isPrepared()) throw error("Session::prepareDevice() must be called before Session::{}() is called.", what);
  ir();  // planned at run time: an error until the first run has made a plan
}

const DataFlow& Session::getDataFlow() const {
  return ir_ ? ir_->dataFlow() : runTimeDataFlow();
}
const SessionOptions& Session::getSessionOptions() const {
  return ir_ ? ir_->options() : runTimeOptions();
}

void Session::prepareDevice(bool loadEngine) {
  if (isPrepared()) {
    logging::session::warn("prepareDevice called twice; the device is already prepared");
    return;
  }
  const SessionOptions& opts = getSessionOptions();
  const int total = opts.compilationProgressTotal;
  if (opts.compilationProgressLogger) opts.compilationProgressLogger(total / 2, total);  // the IR is ready
  if (runTime_) {
    // Each run plans (or finds in the cache) what its inputs need.
    prepared_ = true;
    if (opts.compilationProgressLogger) opts.compilationProgressLogger(total, total);
    logging::session::info("Shapes are known only at run time: each run is planned for its inputs");
    if (loadEngine) loadEngineAndConnectStreams();
    return;
  }
  compileIr();
  if (opts.compilationProgressLogger) opts.compilationProgressLogger(total, total);  // compiled
  logging::session::info("Graph compiled");
  writeAutoReports();
  if (loadEngine) loadEngineAndConnectStreams();
}

void Session::compileIr() {
  try {
    executable_ = compileReplicas();
  } catch (const OutOfMemoryException& e) {
    // The graph does not fit the IPU's tiles: the exception also carries the graph report of what
    // did not fit (the backend, a layer below the reports, leaves it to the session).
    if (!e.getGraphReport().empty() || device_->getType() == DeviceType::Cpu) throw;
    throw OutOfMemoryException(e.what(), e.getSummaryReport(), e.getProfilePath(),
                               graphReportJson(ipu_model::modelCompilation(ir(), *device_), false));
  }
  executable_->setRandomSeed(randomSeed_);
  // Weights start out as in the model; a training session still requires weightsFromHost().
  loadWeights();
}

std::unique_ptr<Executable> Session::compileReplicas() {
  const SessionOptions& o = ir().options();
  const int64_t rf = o.getReplicationFactor();
  // Replicas that sum across each other (training's gradients, ReplicatedAllReduce ops) each need
  // their own executable (the sums are between the program's phases); other inference replicas
  // run one after another on one executable.
  bool sums = ir().isTraining();
  for (const Op* op : ir().schedule()) sums = sums || ops::acrossReplicas(*op);
  const bool distributed = o.enableDistributedReplicatedGraphs && sums;
  if (!sums || (rf <= 1 && !distributed)) return backend_->compile(ir());
  distributed::ProcessGroup* processes = distributed ? joinProcesses() : nullptr;
  std::vector<std::unique_ptr<Executable>> replicas;
  for (int64_t r = 0; r < rf; ++r) replicas.push_back(backend_->compile(ir()));
  logging::session::info("Replicated training: {} replicas of the graph in this process{}", rf,
                         processes ? format(", {} in all", o.globalReplicationFactor) : "");
  return std::make_unique<ReplicatedExecutable>(std::move(replicas), processes,
                                                distributed ? o.globalReplicaOffset : 0);
}

distributed::ProcessGroup* Session::joinProcesses() {
  if (processes_) return processes_;
  distributed::ProcessGroup& w = distributed::world();
  const SessionOptions& o = ir().options();
  // Each process says what it runs: its replicas, then the hashes of what all must share.
  const auto parts = distributedAgreement(ir(), *device_);
  std::ostringstream mine;
  mine << o.globalReplicaOffset << ' ' << o.getReplicationFactor() << ' ' << o.globalReplicationFactor;
  for (const auto& p : parts) {
    mine << ' ' << p.second;
    logging::session::debug("Distributed session: {} hash to {}", p.first, p.second);
  }
  const std::vector<std::string> all = w.allGatherStrings(mine.str());
  struct Proc {
    int64_t offset = 0, local = 0, global = 0;
    std::vector<std::string> hashes;
  };
  std::vector<Proc> procs;
  for (const std::string& line : all) {
    std::istringstream in(line);
    Proc p;
    in >> p.offset >> p.local >> p.global;
    std::string h;
    while (in >> h) p.hashes.push_back(h);
    if (p.hashes.size() != parts.size()) throw error("a process of the distributed session sent unreadable settings");
    procs.push_back(std::move(p));
  }
  auto listOf = [](const std::vector<int>& ranks) {
    std::ostringstream os;
    for (size_t i = 0; i < ranks.size(); ++i) os << (i ? ", " : "") << ranks[i];
    return os.str();
  };
  // The replicas: every process's [offset, offset + local) tile [0, globalReplicationFactor).
  std::vector<std::pair<int64_t, int>> byOffset;
  std::ostringstream layout;
  int64_t total = 0;
  for (size_t r = 0; r < procs.size(); ++r) {
    byOffset.emplace_back(procs[r].offset, static_cast<int>(r));
    total += procs[r].local;
    layout << (r ? ", " : "") << "process " << r << ": replicas " << procs[r].offset << " to "
           << procs[r].offset + procs[r].local - 1 << " of " << procs[r].global;
  }
  std::sort(byOffset.begin(), byOffset.end());
  int64_t next = 0;
  bool tiled = true;
  for (const auto& [offset, r] : byOffset) {
    tiled = tiled && offset == next && procs[static_cast<size_t>(r)].global == o.globalReplicationFactor;
    next = offset + procs[static_cast<size_t>(r)].local;
  }
  if (!tiled || total != o.globalReplicationFactor)
    throw error(
        "The {} processes of this distributed session do not hold the globalReplicationFactor ({}) replicas once each "
        "({}): give each process globalReplicaOffset = the replicas of the processes before it "
        "(popdist.popart.configureSessionOptions does)",
        procs.size(), o.globalReplicationFactor, layout.str());
  // The model and settings: the same on every process (checked at prepare, not by a wrong sum).
  for (size_t k = 0; k < parts.size(); ++k) {
    std::vector<int> differ;
    for (size_t r = 1; r < procs.size(); ++r) {
      if (procs[r].hashes[k] != procs[0].hashes[k]) differ.push_back(static_cast<int>(r));
    }
    if (differ.empty()) continue;
    if (k + 1 == parts.size()) {  // the weights: broadcastWeights aligns them
      logging::session::warn(
          "Distributed session: {} on process(es) {} differ from process 0's; call broadcastWeights() to start "
          "every process from the same ones",
          parts[k].first, listOf(differ));
      continue;
    }
    throw error(
        "The processes of this distributed session differ in {}: process(es) {} differ from process 0. Every "
        "process must build the same model with the same settings",
        parts[k].first, listOf(differ));
  }
  processes_ = &w;
  return processes_;
}

void Session::broadcastWeights(int rootRank) {
  checkPrepared("broadcastWeights");
  if (!ir().options().enableDistributedReplicatedGraphs)
    throw error(
        "broadcastWeights needs a distributed session (SessionOptions.enableDistributedReplicatedGraphs, one "
        "process per rank of an MPI launch)");
  distributed::ProcessGroup& w = processes_ ? *processes_ : distributed::world();
  if (rootRank < 0 || rootRank >= w.size())
    throw error("broadcastWeights: rootRank {} is not a process of this session (ranks 0 to {})", rootRank,
                w.size() - 1);
  weightsToHost();
  Graph& g = ir().mainGraph();
  std::vector<distributed::Buffer> buffers;
  for (const TensorId& id : hostWeightIds()) {
    Tensor* t = g.tensor(id);
    if (!t || !t->data || t->info.dataType() == DataType::STRING) continue;
    TensorData& d = t->hostData();
    buffers.push_back({d.data(), d.info().dataType(), d.info().nelms()});
  }
  w.broadcast(buffers, rootRank);
  loadWeights();
  logging::session::info("broadcastWeights: {} tensors from process {}", buffers.size(), rootRank);
}

void Session::compileAndExport(const std::string& filename) {
  writeExecutableFile(filename, exportExecutable());
  logging::session::info("Saved the PopART executable to {}", filename);
}

std::string Session::compileAndExportToBytes() {
  return executableBytes(exportExecutable());
}

ExecutableFile Session::exportExecutable() {
  if (!executable_) prepareDevice(false);
  ExecutableFile f;
  f.hash = planHash(ir(), *device_);
  f.version = core::versionString();
  f.device = toString(device_->getType());
  weightsToHost();  // the device's current values
  const Graph& g = ir().mainGraph();
  for (const TensorId& id : hostWeightIds()) {
    const Tensor& t = g.getTensor(id);
    if (!t.data || t.info.dataType() == DataType::STRING) continue;
    // The host's value: every group of a grouped weight, the whole of a sharded tensor.
    const TensorData& d = t.hostData();
    ExecutableFile::Weight& w = f.weights[id];
    w.dtype = d.info().data_type();
    w.shape = d.info().shape();
    const char* p = static_cast<const char*>(d.data());
    w.bytes.assign(p, p + d.nbytes());
  }
  return f;
}

void Session::loadExecutableFromFile(const std::string& filename) {
  checkNotPrepared();  // before reading the file
  importExecutable(readExecutableFile(filename), filename);
}

void Session::loadExecutableFromBytes(const std::string& bytes) {
  checkNotPrepared();
  importExecutable(executableFromBytes(bytes, "The buffer given to loadExecutable"), "the buffer given");
}

void Session::checkNotPrepared() const {
  if (executable_)
    throw error("loadExecutable must be called before prepareDevice: this session's device is already prepared");
}

void Session::importExecutable(const ExecutableFile& f, const std::string& source) {
  const std::string hash = planHash(ir(), *device_);
  if (f.hash != hash)
    throw error(
        "The executable in {} was prepared for another model, options or device (its hash {}, this session's {}; "
        "written for a {} device by {})",
        source, f.hash, hash, f.device, f.version);
  // Every weight is checked before any is taken: a file that does not fit changes nothing.
  Graph& g = ir().mainGraph();
  for (const auto& [id, w] : f.weights) {
    const Tensor* t = g.tensor(id);
    const TensorInfo* info = t && t->data ? &t->hostData().info() : nullptr;
    if (!info || info->data_type() != w.dtype || info->shape() != w.shape ||
        static_cast<int64_t>(w.bytes.size()) != info->nbytes())
      throw error("The executable in {} has weight '{}' as {} {}, which this session does not have", source, id,
                  w.dtype, TensorInfo(dataTypeFromString(w.dtype), w.shape).toString());
  }
  logging::session::info("Loading serialized PopART executable from {}", source);
  for (const auto& [id, w] : f.weights) {
    TensorData& d = g.tensor(id)->hostData();
    d = TensorData(d.info(), w.bytes.data());
  }
}

void Session::loadEngineAndConnectStreams() {
  if (!isPrepared())
    throw error("loadEngineAndConnectStreams: there is no compiled engine; call prepareDevice() first");
  engineLoaded_ = true;
  logging::session::info("Engine loaded");
}

void Session::weightsFromHost() {
  if (runTime_ && prepared_ && !executable_) {  // planned at run time, no run yet: the model's weights
    weightsFromHostCalled_ = true;
    return;
  }
  checkPrepared("weightsFromHost");
  loadWeights();
  weightsFromHostCalled_ = true;
}

void Session::loadWeights() {
  replicaWeights().fromHost();
  executable_->weightsFromHost();
  if (auto* together = dynamic_cast<ReplicatedExecutable*>(executable_.get()))
    replicaWeights().loadReplicas(together->replicaExecutables());
}

void Session::weightsToHost() {
  if (runTime_ && prepared_ && !executable_) return;  // planned at run time, no run yet
  if (!executable_)
    throw error(
        "Devicex::prepare() must be called before Devicex::weightsToHost(const "
        "std::map<TensorId, MutableVoidData> &) is called.");
  executable_->weightsToHost();
  if (const auto* together = dynamic_cast<const ReplicatedExecutable*>(executable_.get()))
    replicaWeights().readReplicas(together->replicaExecutables(), processes_);
  replicaWeights().toHost();
  afterWeightsToHost();
}

std::vector<TensorId> Session::hostWeightIds() const {
  std::vector<TensorId> ids = ir().initializerIds();
  if (!ir().isTraining()) return ids;
  const std::set<TensorId> model(ids.begin(), ids.end());
  for (const auto& kv : ir().mainGraph().tensors()) {
    const Tensor& t = *kv.second;
    if (t.kind == TensorKind::Variable && t.data && isOptimizerStateTensorId(t.id) && !model.count(t.id))
      ids.push_back(t.id);
  }
  return ids;
}

namespace {

/// A weight's host buffer for readWeights / writeWeights (`what`) holds its host value: the whole
/// of a sharded tensor (Tensor::hostData).
void checkWeightBuffer(const char* what, const Tensor& t, const MutableVoidData& buf) {
  const TensorInfo& host = t.hostData().info();
  if (buf.info.nelms() != host.nelms() || buf.info.dataType() != host.dataType())
    throw error("{}: the buffer for '{}' is {} but the weight is {}{}", what, t.id, buf.info.toString(),
                host.toString(),
                t.shardReplicas ? format(" (sharded over {} replicas on the device)", t.shardReplicas) : "");
}

}  // namespace

void Session::readWeights(const IWeightsIO& weights) {
  const Graph& g = ir().mainGraph();
  for (const auto& id : hostWeightIds()) {
    if (!weights.contains(id)) continue;
    const Tensor* t = g.tensor(id);
    if (!t || !t->data) continue;
    MutableVoidData dst = weights.weight(id);
    if (t->variableSettings) {
      replicaWeights().read(*t, dst);
      continue;
    }
    checkWeightBuffer("readWeights", *t, dst);
    std::memcpy(dst.data, t->hostData().data(), static_cast<size_t>(t->hostData().nbytes()));
  }
}

void Session::writeWeights(const IWeightsIO& weights) {
  if (!ir().isTraining() && ir().options().constantWeights)
    throw error(
        "Cannot call writeWeights when constantWeights is set. Set `constantWeights` to False in the "
        "`SessionOption`s when initialising the session to enable this behaviour.");
  Graph& g = ir().mainGraph();
  for (const auto& id : hostWeightIds()) {
    if (!weights.contains(id)) continue;
    Tensor* t = g.tensor(id);
    if (!t || !t->data) continue;
    if (t->kind != TensorKind::Variable)
      throw error("writeWeights: '{}' is a constant of the model ({}), not a weight that can be written", id,
                  t->info.toString());
    MutableVoidData src = weights.weight(id);
    if (t->variableSettings) {
      replicaWeights().write(*t, src);
      continue;
    }
    checkWeightBuffer("writeWeights", *t, src);
    std::memcpy(t->hostData().data(), src.data, static_cast<size_t>(t->hostData().nbytes()));
  }
}

const StepIOSpec& Session::stepIOSpec() const {
  if (!stepIOSpec_) stepIOSpec_ = std::make_unique<StepIOSpec>(makeStepIOSpec());
  return *stepIOSpec_;
}

StepIOSpec Session::makeStepIOSpec() const {
  const SessionOptions& o = ir().options();
  const int64_t bps = ir().dataFlow().batchesPerStep();
  const int64_t af = o.getAccumulationFactor();
  const int64_t rf = o.getReplicationFactor();
  // Element counts are checked int64 products: a step too large to count is an error naming the
  // tensor and the factors, never a wrapped size.
  auto entry = [](const TensorId& id, const TensorInfo& info, int64_t n, std::string factors, const char* what) {
    if (n < 0) throw error("The step's {} '{}' has more elements than a 64-bit count holds: {}", what, id, factors);
    return StepIOSpec::Entry{id, info, n, std::move(factors)};
  };
  if (checkedProduct({bps, af, rf}) < 0)
    throw error("batchesPerStep ({}) * accumulationFactor ({}) * replicationFactor ({}) overflows a 64-bit count", bps,
                af, rf);
  StepIOSpec spec;
  const Graph& g = ir().mainGraph();
  // PopART's Builder lists every initialized input among the graph inputs too, so its scripts may
  // pass a weight's data in the StepIO: accepted, not read (the weight is the initializer).
  spec.initializerInputs.assign(ir().initializerIds().begin(), ir().initializerIds().end());
  for (const auto& id : ir().streamInputIds()) {
    const Tensor* t = g.tensor(id);
    // An input nothing computed reads (pruned, or without consumers) need not be given, as in
    // PopART, whose IR drops it; the executable does not read it.
    if (!t || (t->consumers.empty() && !ir().dataFlow().isAnchored(id))) {
      spec.unusedInputs.push_back(id);
      continue;
    }
    // A Broadcast input gives all replicas one micro-batch: no replica factor (PopART's rule).
    const bool bc = t->replicatedStreamMode == ReplicatedStreamMode::Broadcast;
    const int64_t irf = bc ? 1 : rf;
    std::ostringstream f;
    f << "batchesPerStep (" << bps << ") * accumulationFactor (" << af << ") * replicationFactor (" << irf
      << (bc ? ": a Broadcast input" : "") << ") * elements per micro-batch (" << t->info.nelms() << ", shape "
      << t->info.shape() << ")";
    spec.inputs.push_back(entry(id, t->info, checkedProduct({t->info.nelms(), bps, af, irf}), f.str(), "input"));
  }
  for (const auto& id : ir().dataFlow().anchors()) {
    const Tensor& t = g.getTensor(id);
    const AnchorReturnType& art = ir().dataFlow().art(id);
    int64_t n = -1;
    std::ostringstream f;
    f << "anchor return type " << art.str() << ": ";
    switch (art.id()) {
      case AnchorReturnTypeId::All:
        n = checkedProduct({bps, af, rf, t.info.nelms()});
        f << "batchesPerStep (" << bps << ") * accumulationFactor (" << af << ") * ";
        break;
      case AnchorReturnTypeId::EveryN:
        n = checkedProduct({bps * af / art.rp(), rf, t.info.nelms()});  // bps * af checked above
        f << "batchesPerStep (" << bps << ") * accumulationFactor (" << af << ") / returnPeriod (" << art.rp()
          << ") * ";
        break;
      default:
        n = checkedProduct({rf, t.info.nelms()});
        break;
    }
    f << "replicationFactor (" << rf << ") * elements per value (" << t.info.nelms() << ", shape " << t.info.shape()
      << ")";
    spec.outputs.push_back(entry(id, t.info, n, f.str(), "anchor"));
  }
  return spec;
}

Shape Session::getAnchorShape(const TensorId& id) const {
  const AnchorReturnType& art = ir().dataFlow().art(id);
  const SessionOptions& o = ir().options();
  const int64_t bps = ir().dataFlow().batchesPerStep();
  const int64_t af = o.getAccumulationFactor();
  const int64_t rf = o.getReplicationFactor();
  Shape prefix;
  switch (art.id()) {
    case AnchorReturnTypeId::All:
      prefix = {bps, af, rf};
      break;
    case AnchorReturnTypeId::EveryN:
      prefix = {bps / art.rp(), af, rf};
      break;
    case AnchorReturnTypeId::Final:
    case AnchorReturnTypeId::Sum:
      prefix = {rf};
      break;
  }
  Shape s;
  for (auto d : prefix) {
    if (d != 1) s.push_back(d);
  }
  const Shape& t = ir().mainGraph().getTensor(id).info.shape();
  s.insert(s.end(), t.begin(), t.end());
  return s;
}

std::map<TensorId, TensorInfo> Session::getAnchorArrayInfos() const {
  if (!ir_) return runTimeAnchorPlaceholders();
  std::map<TensorId, TensorInfo> m;
  std::set<TensorId> elements;  // a sequence or optional anchor's: the run gives their arrays
  for (const auto& kv : ir().structAnchors()) elements.insert(kv.second.elements.begin(), kv.second.elements.end());
  for (const auto& e : stepIOSpec().outputs) {
    if (elements.count(e.id)) continue;
    const TensorInfo& info = e.info;
    const int64_t elemBytes =
        info.dataType() == DataType::STRING ? static_cast<int64_t>(sizeof(std::string)) : info.getDataTypeSize();
    const int64_t bytes = checkedProduct({e.expectedNelms, elemBytes});
    if (!allocationFits(bytes))
      throwOverMemoryLimit(bytes, format("The array for anchor '{}' ({} elements of {}; {})", e.id, e.expectedNelms,
                                         info.data_type(), e.factors));
    m.emplace(e.id, TensorInfo(info.dataType(), getAnchorShape(e.id)));
  }
  return m;
}

std::map<TensorId, NDArray> Session::initAnchorArrays() const {
  std::map<TensorId, NDArray> m;
  for (const auto& kv : getAnchorArrayInfos()) m.emplace(kv.first, NDArray(kv.second));
  return m;
}

namespace {

/// Copies a tensor's elements between host buffers (strings element by element).
void copyElements(void* dst, const void* src, const TensorInfo& info) {
  if (info.dataType() == DataType::STRING) {
    const auto* s = static_cast<const std::string*>(src);
    std::copy(s, s + info.nelms(), static_cast<std::string*>(dst));
  } else if (info.nbytes() > 0) {
    std::memcpy(dst, src, static_cast<size_t>(info.nbytes()));
  }
}

void addInto(void* acc, const void* v, DataType t, int64_t n) {
  if (!addElements(acc, v, t, n))
    throw error("anchor return type Sum is not supported for {} tensors", dataTypeToString(t));
}

/// The kernels read BOOL elements as C++ bools, for which a byte other than 0 or 1 is undefined
/// behaviour; the user's arrays are read in place, so they are checked rather than fixed.
/// INT64 values for an INT32 input, each within INT32's range (else an error naming the input).
std::vector<int32_t> narrowInt64(const int64_t* v, int64_t n, const TensorId& id) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] < std::numeric_limits<int32_t>::min() || v[i] > std::numeric_limits<int32_t>::max())
      throw error(
          "Input '{}' is given as INT64 data for an INT32 input, and its value {} (element {}) does not fit INT32", id,
          v[i], i);
    out[static_cast<size_t>(i)] = static_cast<int32_t>(v[i]);
  }
  return out;
}

void checkBools(const void* data, int64_t n, const TensorId& id) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] > 1)
      throw error("input '{}' is BOOL, but its element {} holds the byte {}: BOOL elements must be 0 or 1", id, i,
                  static_cast<int>(p[i]));
  }
}

}  // namespace

void Session::run(IStepIO& userStepio, const std::string& debugName) {
  if (runTime_) {
    if (!prepared_) throw error("Session::prepareDevice() must be called before Session::run() is called.");
    selectRunTimePlan(userStepio);
  }
  checkPrepared("run");
  const std::unique_ptr<IStepIO> elementStepio = elementStepIO(userStepio);
  IStepIO& stepio = elementStepio ? *elementStepio : userStepio;
  if (runTime_) {  // the anchors' arrays take this run's shapes
    for (const auto& e : stepIOSpec().outputs)
      stepio.prepareOutput(e.id, TensorInfo(e.info.dataType(), getAnchorShape(e.id)));
  }
  if (!device_->canRun()) throw error("Offline IPU device is not configured for execution");
  if (ir().isTraining() && !weightsFromHostCalled_ && !ir().initializerIds().empty())
    throw error(
        "Must call weightsFromHost before run as the model has initializers and the session has been "
        "created in training mode");
  if (!engineLoaded_) loadEngineAndConnectStreams();
  const StepIOSpec& spec = stepIOSpec();
  const SessionOptions& o = ir().options();
  // syntheticDataMode: no host streams (PopART's): the inputs are generated once, the StepIO is
  // neither read nor written.
  const bool synthetic = o.syntheticDataMode != SyntheticDataMode::Off;
  // Checked on every run: a StepIO's arrays may change between runs (and a new StepIO may reuse
  // an old one's address), and the check is cheap next to a step.
  if (!synthetic && stepio.runtimeAssertsEnabled()) stepio.assertNumElements(spec);
  const int64_t bps = ir().dataFlow().batchesPerStep();
  const int64_t af = o.getAccumulationFactor();
  const int64_t rf = o.getReplicationFactor();
  const Graph& g = ir().mainGraph();

  std::set<TensorId> broadcast;
  for (const auto& e : spec.inputs) {
    if (g.getTensor(e.id).replicatedStreamMode == ReplicatedStreamMode::Broadcast) broadcast.insert(e.id);
  }
  bool grouped = false;
  for (const auto& id : ir().initializerIds()) grouped = grouped || replicaWeights().grouped(id);
  // Sum anchors accumulate over the step, per replica.
  std::map<TensorId, std::vector<TensorData>> sums;
  for (const auto& e : spec.outputs) {
    if (ir().dataFlow().art(e.id).id() == AnchorReturnTypeId::Sum)
      sums[e.id].assign(static_cast<size_t>(rf), TensorData(e.info));
  }
  const auto started = std::chrono::steady_clock::now();
  // Replicated training runs the replicas together (session/replicated_executable.hpp): each
  // replica's inputs are copied and completed first, then every replica runs, then the anchors
  // are read replica by replica. Otherwise each replica runs as soon as its inputs are there.
  auto* together = dynamic_cast<ReplicatedExecutable*>(executable_.get());
  std::vector<std::map<TensorId, std::vector<char>>> staged(together ? static_cast<size_t>(rf) : 0);
  // INT64 data for an INT32 input (NumPy's default integer array, as PopART's scripts feed
  // labels) is converted value by value; the buffers live until the replica has run.
  std::vector<std::vector<int32_t>> narrowed;
  auto feed = [&](int64_t r) {
    if (together) together->selectReplica(static_cast<int>(r));
    if (synthetic) {
      for (const auto& kv : syntheticInputs(spec)) executable_->setInput(kv.first, kv.second.data());
      return;
    }
    for (const auto& e : spec.inputs) {
      const int64_t n = e.info.nelms();
      // A Broadcast input: replica 0 reads the micro-batch, the others run with the same.
      if (broadcast.count(e.id) && r > 0) {
        if (together) executable_->setInput(e.id, staged[0].at(e.id).data());
        continue;
      }
      ConstVoidData d = stepio.in(e.id, n, false, false);
      if (d.info.nelms() != n)
        throw error("The StepIO returned {} elements for input '{}', but one micro-batch is {} elements ({})",
                    d.info.nelms(), e.id, n, e.info.toString());
      if (d.info.dataType() == DataType::INT64 && e.info.dataType() == DataType::INT32) {
        narrowed.push_back(narrowInt64(static_cast<const int64_t*>(d.data), n, e.id));
        d.data = narrowed.back().data();
        d.info = TensorInfo(DataType::INT32, d.info.shape());
      }
      if (d.info.dataType() != e.info.dataType())
        throw error("The StepIO returned {} data for input '{}', but the model expects {}", d.info.data_type(), e.id,
                    e.info.toString());
      if (e.info.dataType() == DataType::BOOL) checkBools(d.data, n, e.id);
      if (together) {
        std::vector<char>& copy = staged[static_cast<size_t>(r)][e.id];
        copy.assign(static_cast<const char*>(d.data), static_cast<const char*>(d.data) + e.info.nbytes());
        d.data = copy.data();
      }
      executable_->setInput(e.id, d.data);
    }
    // Replicas with an executable each hold their groups' values (loadWeights).
    if (grouped && !together) replicaWeights().selectReplica(*executable_, static_cast<unsigned>(r));
  };
  auto completeInputs = [&](int64_t r) {
    if (synthetic) return;
    for (const auto& e : spec.inputs) {
      if (!broadcast.count(e.id) || r == rf - 1) stepio.inComplete(e.id, e.info.nelms(), false);
    }
  };
  int64_t micro = 0;
  const int64_t totalMicro = bps * af;
  auto collect = [&](int64_t r) {
    if (together) together->selectReplica(static_cast<int>(r));
    if (synthetic) return;
    for (const auto& e : spec.outputs) {
      const AnchorReturnType& art = ir().dataFlow().art(e.id);
      const int64_t n = e.info.nelms();
      bool write = false;
      switch (art.id()) {
        case AnchorReturnTypeId::All:
          write = true;
          break;
        case AnchorReturnTypeId::EveryN:
          write = (micro + 1) % art.rp() == 0;
          break;
        case AnchorReturnTypeId::Final:
          write = micro == totalMicro - 1;
          break;
        case AnchorReturnTypeId::Sum:
          addInto(sums[e.id][static_cast<size_t>(r)].data(), executable_->tensorData(e.id), e.info.dataType(), n);
          break;
      }
      if (!write) continue;
      MutableVoidData out = stepio.out(e.id, n);
      if (out.info.nelms() != n || out.info.dataType() != e.info.dataType())
        throw error("The StepIO gave a {} buffer for anchor '{}', which needs {} ({} elements)", out.info.toString(),
                    e.id, e.info.toString(), n);
      copyElements(out.data, executable_->tensorData(e.id), e.info);
      stepio.outComplete(e.id);
    }
  };
  for (int64_t b = 0; b < bps; ++b) {
    for (int64_t a = 0; a < af; ++a, ++micro) {
      if (together) {
        for (int64_t r = 0; r < rf; ++r) {
          feed(r);
          completeInputs(r);
        }
        narrowed.clear();
        together->executeReplicas(a == af - 1);
        for (int64_t r = 0; r < rf; ++r) collect(r);
        continue;
      }
      for (int64_t r = 0; r < rf; ++r) {
        feed(r);
        executable_->execute();
        completeInputs(r);
        narrowed.clear();
        collect(r);
      }
    }
  }
  for (auto& kv : sums) {
    if (synthetic) break;
    const TensorInfo& info = g.getTensor(kv.first).info;
    for (auto& acc : kv.second) {
      MutableVoidData out = stepio.out(kv.first, info.nelms());
      copyElements(out.data, acc.data(), info);  // an empty anchor has no buffer to copy into
      stepio.outComplete(kv.first);
    }
  }
  if (!debugName.empty()) logging::session::debug("run '{}' done", debugName);

  // The profile: the IPU model's cycles for this run, or the host time on a profiled CPU.
  if (const report::Compilation* c = executable_->compilation()) {
    lastRun_ = ipu_model::modelRun(*c, bps, af);
  } else {
    lastRun_ = report::Run{};
    lastRun_.microBatches = totalMicro;
    lastRun_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  lastRun_.name = debugName;
  hasRun_ = true;
  if (executable_->compilation() || profilingEnabled(o)) {
    if (runs_.size() == kMaxProfiledRuns) {
      runs_.pop_front();
      logging::session::warn(
          "the profile keeps the last {} runs: call getExecutionReport / getSummaryReport "
          "(resetProfile) to collect them",
          kMaxProfiledRuns);
    }
    runs_.push_back(lastRun_);
    writeAutoReports();
  }
}

const std::map<TensorId, std::vector<char>>& Session::syntheticInputs(const StepIOSpec& spec) {
  if (!syntheticInputs_.empty() || spec.inputs.empty()) return syntheticInputs_;
  const SyntheticDataMode mode = ir().options().syntheticDataMode;
  for (const auto& e : spec.inputs) {
    // As PopART: float values, a fresh default-seeded generator per input, cast to its type.
    if (e.info.dataType() == DataType::STRING)
      throw error("syntheticDataMode cannot generate input '{}' of type STRING: use real data (SyntheticDataMode.Off)",
                  e.id);
    std::vector<float> v(static_cast<size_t>(e.info.nelms()), 0.0f);
    std::mt19937 gen;
    if (mode == SyntheticDataMode::RandomNormal) {
      std::normal_distribution<float> d(0.0f, 1.0f);
      for (float& x : v) x = d(gen);
    } else if (mode == SyntheticDataMode::RandomUniform) {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      for (float& x : v) x = d(gen);
    }
    const TensorData data = TensorData(TensorInfo(DataType::FLOAT, e.info.shape()), v.data()).castTo(e.info.dataType());
    const char* bytes = static_cast<const char*>(data.data());
    syntheticInputs_[e.id].assign(bytes, bytes + e.info.nbytes());
  }
  logging::session::info("syntheticDataMode: {} input(s) generated; the StepIO is not used", syntheticInputs_.size());
  return syntheticInputs_;
}

std::string Session::saveModelBytes(bool writeExternalData) {
  const onnx::ModelProto m = modelWithHostWeights(writeExternalData, true);
  std::string bytes;
  if (!m.SerializeToString(&bytes)) throw error("modelToHost: the model could not be serialized");
  return bytes;
}

onnx::ModelProto Session::modelWithHostWeights(bool writeExternalData, bool optimizerState) {
  if (!ir_) return runTimeModel();  // planned at run time, not run yet: the model as given
  weightsToHost();
  onnx::ModelProto m = ir().model();
  const Graph& g = ir().mainGraph();
  for (auto& tp : *m.mutable_graph()->mutable_initializer()) {
    const Tensor* t = g.tensor(tp.name());
    const bool current = t && t->data && (t->kind == TensorKind::Variable || ir().isStrippedInitializer(tp.name()));
    // A grouped weight (VariableSettings) is saved with every group's value, as it was given.
    const TensorData* value = current ? &t->hostData() : nullptr;
    if (writeExternalData && tp.data_location() == onnx::TensorProto::EXTERNAL) {
      // PopART: an externally stored initializer stays external, its file updated in place.
      writeExternalInitializer(tp, value, externalLocations_, modelBaseDir_);
    } else if (current) {
      tensorToProto(*value, &tp, protoValuesOf(tp));  // in the form the model gave it
    }
  }
  if (!optimizerState) return m;
  // The optimizer state, as extra initializers (PopART's modelToHost does the same).
  const size_t nModel = ir().initializerIds().size();
  const std::vector<TensorId> ids = hostWeightIds();
  for (size_t i = nModel; i < ids.size(); ++i) {
    onnx::TensorProto* tp = m.mutable_graph()->add_initializer();
    tp->set_name(ids[i]);
    tensorToProto(g.getTensor(ids[i]).hostData(), tp, ProtoValues::Typed);  // as PopART: float_data, int32_data
  }
  return m;
}

std::string Session::exportInferenceModelBytes() {
  onnx::ModelProto m = modelWithHostWeights(false, false);
  for (auto& tp : *m.mutable_graph()->mutable_initializer()) {
    if (tp.data_location() == onnx::TensorProto::EXTERNAL) {  // current values inline
      const Tensor* t = ir().mainGraph().tensor(tp.name());
      const TensorData d = t && t->data ? t->hostData() : tensorFromProto(tp, modelBaseDir_);
      tp.clear_external_data();
      tp.set_data_location(onnx::TensorProto::DEFAULT);
      tensorToProto(d, &tp, ProtoValues::Raw);
    }
  }
  auto* outs = m.mutable_graph()->mutable_output();
  if (!lossId_.empty()) {
    for (int i = outs->size() - 1; i >= 0; --i) {
      if (outs->Get(i).name() == lossId_) outs->DeleteSubrange(i, 1);
    }
    if (outs->empty())
      throw error(
          "exportInferenceModel: the model has no output besides the loss '{}' (mark the tensors to keep as "
          "outputs, Builder.addOutputTensor, before making the session)",
          lossId_);
  }
  pruneToOutputs(*m.mutable_graph());
  std::string bytes;
  if (!m.SerializeToString(&bytes)) throw error("exportInferenceModel: the model could not be serialized");
  return bytes;
}

void Session::exportInferenceModel(const std::string& fn) {
  writeFileAtomically(fn, exportInferenceModelBytes());
}

void Session::modelToHost(const std::string& fn) {
  if (processes_ && processes_->rank() != 0) {  // every process holds the same weights
    weightsToHost();
    logging::session::info("modelToHost: process 0 of the distributed session writes {}", fn);
    return;
  }
  writeFileAtomically(fn, saveModelBytes(true));
}

std::string Session::modelToHostBytes() {
  return saveModelBytes();
}

void Session::resetHostWeights(const std::string& modelProtoOrFilename, bool ignoreMissing) {
  if (!ir().isTraining() && ir().options().constantWeights)
    throw error("Cannot call resetHostWeights when constantWeights is set");
  const onnx::ModelProto m = loadModel(modelProtoOrFilename);
  const std::string base = modelBaseDir(modelProtoOrFilename);
  Graph& g = ir().mainGraph();
  // Check everything first, so that a bad model changes nothing.
  std::vector<std::pair<Tensor*, TensorData>> updates;
  for (const auto& tp : m.graph().initializer()) {
    Tensor* t = g.tensor(tp.name());
    if (!t || !t->data) {
      if (ignoreMissing) continue;
      throw error("resetWeights, no tensor '{}' in tensors", tp.name());
    }
    TensorData d = tensorFromProto(tp, base);
    const TensorInfo& hostInfo = t->hostData().info();  // grouped: every group; sharded: the whole
    if (d.info() != hostInfo)
      throw error("resetHostWeights: '{}' is {} in the model given, but {} in the session", tp.name(),
                  d.info().toString(), hostInfo.toString());
    if (t->kind != TensorKind::Variable) continue;  // constants of the graph stay as compiled
    updates.emplace_back(t, std::move(d));
  }
  for (auto& u : updates) u.first->hostData() = std::move(u.second);
}

TensorInfo Session::getInfo(const TensorId& id) const {
  const Tensor* t = ir().mainGraph().tensor(id);
  if (t) return t->info;
  if (const TensorInfo* p = ir().prunedTensorInfo(id)) return *p;
  throw error("getInfo: no tensor '{}' in the session's IR", id);
}

bool Session::hasInfo(const TensorId& id) const {
  if (!ir_) return false;  // planned at run time, not run yet
  return ir().mainGraph().hasTensor(id) || ir().prunedTensorInfo(id);
}

std::vector<TensorId> Session::getAllTensorIds() const {
  std::vector<TensorId> v;
  for (const auto& kv : ir().mainGraph().tensors()) v.push_back(kv.first);
  return v;
}

void Session::checkReportable() const {
  if (!executable_) throw error("Session must have been prepared before a report can be fetched");
  // Poplar's sentence last: PopART's users (and its tests) match the end of the message.
  if (!executable_->compilation() && !profilingEnabled(ir().options()))
    throw poplar_error(
        "The IPU model and offline IPU devices report memory and cycles; on the CPU device set the engine option "
        "autoReport.all or debug.instrument to \"true\" for the host time per op. Profiling is disabled for current "
        "device type.");
}

std::string Session::getSummaryReport(bool resetProfile) const {
  checkReportable();
  std::string text;
  if (const report::Compilation* c = executable_->compilation()) {
    auto it = ir().options().reportOptions.find("showExecutionSteps");
    const bool steps = it != ir().options().reportOptions.end() && it->second == "true";
    text = ipu_model::summaryText({*c, {{runs_.begin(), runs_.end()}, 0, {}}}, steps);
  } else {
    text = executable_->summary();
  }
  if (resetProfile) runs_.clear();
  return text;
}

report::Report Session::getReport() const {
  checkReportable();
  report::Report r;
  if (const report::Compilation* c = executable_->compilation()) r.compilation = *c;
  r.execution.runs.assign(runs_.begin(), runs_.end());
  for (const report::Run& run : runs_) r.execution.totalCycles += run.cycles;
  r.execution.hostOps = executable_->hostOps();
  return r;
}

std::string Session::getReportJson(bool useCbor) const {
  return report::reportJson(getReport(), useCbor);
}

std::string Session::serializeIr(IrSerializationFormat format) const {
  if (format != IrSerializationFormat::JSON)
    throw error("Unsupported IrSerializationFormat {}: JSON is the only format", static_cast<int>(format));
  return irToJson(ir());
}

std::string Session::getGraphReport(bool useCbor) const {
  checkReportable();
  const report::Compilation* c = executable_->compilation();
  return graphReportJson(c ? *c : report::Compilation{}, useCbor);
}

std::string Session::getExecutionReport(bool useCbor, bool resetProfile) {
  if (!executable_) throw error("Session must have been prepared before a report can be fetched");
  if (!executable_->compilation() && !profilingEnabled(ir().options())) return noProfileJson(useCbor);
  const std::string s = executionReportJson(getReport(), useCbor);
  if (resetProfile) runs_.clear();
  return s;
}

uint64_t Session::getCycleCount(const std::string& id) const {
  if (!hasRun_) throw error("Must call run before getCycleCount.");
  const SessionOptions& o = ir().options();
  if (!o.instrumentWithHardwareCycleCounter)
    throw error("SessionOption 'instrumentWithHardwareCycleCounter' must be set to true in order to measure cycles.");
  const report::Compilation* c = executable_->compilation();
  if (!c)
    throw error("getCycleCount: the {} device has no cycle counter (the IPU model counts cycles)",
                toString(device_->getType()));
  const bool outer = o.hardwareInstrumentations.count(Instrumentation::Outer) != 0;
  const bool inner = o.hardwareInstrumentations.count(Instrumentation::Inner) != 0;
  if (id.empty() && outer) return static_cast<uint64_t>(lastRun_.cycles);
  const std::string prefix = "inner_ipu_";
  if (inner && id.rfind(prefix, 0) == 0) {
    const std::string n = id.substr(prefix.size());
    const bool digits = !n.empty() && n.size() < 6 && n.find_first_not_of("0123456789") == std::string::npos;
    const size_t ipu = digits ? std::stoul(n) : c->cycles.perIpu.size();
    if (ipu < c->cycles.perIpu.size() && c->cycles.perMicroBatch > 0) {
      // IPU i's share of the run: its part of each micro-batch's program.
      const double share = static_cast<double>(c->cycles.perIpu[ipu]) / static_cast<double>(c->cycles.perMicroBatch);
      return static_cast<uint64_t>(share * static_cast<double>(lastRun_.cycles));
    }
  }
  throw error(
      "Invalid id for cycle counter, '{}'. Make sure you have set SessionOption::hardwareInstrumentations correctly.",
      id);
}

std::string Session::writeAutoReports() const {
  const std::string dir = autoReportDirectory(ir().options(), name_);
  if (dir.empty() || !executable_) return "";
  const std::filesystem::path d(dir);
  writeReportFile((d / "summary.txt").string(), getSummaryReport(false));
  if (executable_->compilation()) writeReportFile((d / "graph.json").string(), getGraphReport(false));
  writeReportFile((d / "execution.json").string(), executionReportJson(getReport(), false));
  return dir;
}

void Session::setRandomSeed(uint64_t seed) {
  // PopART: a session with no random behaviour warns and does nothing, prepared or not.
  if (!drawsRandomNumbers(ir().mainGraph()) && !ir().options().enableStochasticRounding) {
    logging::session::warn("Trying to set the random seed, but this session has no random behaviour. Doing nothing.");
    return;
  }
  if (!executable_)
    throw error("Devicex::prepare() must be called before Devicex::setRandomSeedFromHost(uint64_t) is called.");
  randomSeed_ = seed;
  executable_->setRandomSeed(seed);
}

SessionMemoryStats Session::getMemoryStats() const {
  checkPrepared("getMemoryStats");
  return executable_->memoryStats();
}

// ---------------------------------------------------------------- InferenceSession

InferenceSession::InferenceSession(std::string name, std::shared_ptr<DeviceInfo> device)
    : Session(std::move(name), std::move(device)) {}

void Session::createIr(const std::string& model, const std::vector<Loss*>* losses, const DataFlow& dataFlow,
                       const InputShapeInfo& inputShapeInfo, const SessionOptions& userOptions,
                       const Patterns& patterns, const TensorId& loss, const Optimizer* optimizer) {
  validateEngineOptions(userOptions.engineOptions);
  // PopART's progress logger starts at (0, total) as the session is made.
  if (userOptions.compilationProgressLogger)
    userOptions.compilationProgressLogger(0, userOptions.compilationProgressTotal);
  onnx::ModelProto proto = loadModel(model);
  TensorId lossId = loss;
  if (losses) {
    const TensorId sum = appendLosses(proto, *losses, inputShapeInfo, optimizer != nullptr);
    if (optimizer) lossId = sum;
  }
  backend_ = createBackend(*device_);
  IrBundle b;
  b.model = &proto;
  b.modelBaseDir = modelBaseDir(model);
  modelBaseDir_ = b.modelBaseDir;
  b.inputShapeInfo = inputShapeInfo;
  b.dataFlow = dataFlow;
  b.options = userOptions;
  b.patterns = patterns;
  b.sessionName = name_;
  b.mode = optimizer ? ExecutionMode::Training : ExecutionMode::Inference;
  b.evaluator = &backend_->constEvaluator();
  b.loss = lossId;
  lossId_ = lossId;
  b.optimizer = optimizer;
  b.numIpus = device_->getNumIpus();
  if (device_->getType() == DeviceType::Cpu && !optimizer) {
    // The CPU device runs what only a run's shapes or values fix: planned per run instead.
    try {
      passes::prepare(*ir_, b);
    } catch (const RunTimeInfoNeeded& need) {
      startRunTimePlanning(b, need);
      return;
    }
  } else {
    passes::prepare(*ir_, b);
  }
  if (dataFlow.batchSize() > 0) {
    // poponnx's DataFlow(batchesPerStep, batchSize, ...): the input shapes decide the batch size.
    for (const auto& id : ir().streamInputIds()) {
      const Tensor* t = ir().mainGraph().tensor(id);
      if (t && t->info.rank() > 0 && t->info.dim(0) != dataFlow.batchSize())
        logging::session::warn(
            "DataFlow batchSize {} (poponnx's form) differs from the first dimension of input '{}' ({}); the "
            "input's shape is used",
            dataFlow.batchSize(), id, t->info.toString());
    }
  }
}

std::unique_ptr<InferenceSession> InferenceSession::createFromOnnxModel(
    const std::string& model, const DataFlow& dataFlow, std::shared_ptr<DeviceInfo> deviceInfo,
    const InputShapeInfo& inputShapeInfo, const SessionOptions& userOptions, const Patterns& patterns,
    const std::string& name) {
  if (!deviceInfo) throw error("Must pass a valid deviceInfo to InferenceSession::createFromOnnxModel");
  std::unique_ptr<InferenceSession> s(new InferenceSession(name, deviceInfo));
  s->createIr(model, nullptr, dataFlow, inputShapeInfo, userOptions, patterns, "", nullptr);
  return s;
}

std::unique_ptr<InferenceSession> InferenceSession::createWithLosses(
    const std::string& model, const DataFlow& dataFlow, std::shared_ptr<DeviceInfo> deviceInfo,
    const std::vector<Loss*>& losses, const InputShapeInfo& inputShapeInfo, const SessionOptions& userOptions,
    const Patterns& patterns, const std::string& name) {
  if (!deviceInfo) throw error("Must pass a valid deviceInfo to InferenceSession::createFromOnnxModel");
  std::unique_ptr<InferenceSession> s(new InferenceSession(name, deviceInfo));
  s->createIr(model, &losses, dataFlow, inputShapeInfo, userOptions, patterns, "", nullptr);
  return s;
}

// ---------------------------------------------------------------- TrainingSession

TrainingSession::TrainingSession(std::string name, std::shared_ptr<DeviceInfo> device)
    : Session(std::move(name), std::move(device)) {}

std::unique_ptr<TrainingSession> TrainingSession::createFromOnnxModel(
    const std::string& model, const DataFlow& dataFlow, const TensorId& loss, const Optimizer& optimizer,
    std::shared_ptr<DeviceInfo> deviceInfo, const InputShapeInfo& inputShapeInfo, const SessionOptions& userOptions,
    const Patterns& patterns, const std::string& name) {
  if (!deviceInfo) throw error("Must pass a valid deviceInfo to TrainingSession::createFromOnnxModel");
  std::unique_ptr<TrainingSession> s(new TrainingSession(name, deviceInfo));
  s->optimizer_ = optimizer.clone();
  s->optimizer_->setFactorsFromOptions(userOptions);
  s->createIr(model, nullptr, dataFlow, inputShapeInfo, userOptions, patterns, loss, s->optimizer_.get());
  s->optimizerTensorIds_ = updateOptimizerTensors(*s->ir_, *s->optimizer_);
  return s;
}

std::unique_ptr<TrainingSession> TrainingSession::createWithLosses(
    const std::string& model, const DataFlow& dataFlow, const std::vector<Loss*>& losses, const Optimizer& optimizer,
    std::shared_ptr<DeviceInfo> deviceInfo, const InputShapeInfo& inputShapeInfo, const SessionOptions& userOptions,
    const Patterns& patterns, const std::string& name) {
  if (!deviceInfo) throw error("Must pass a valid deviceInfo to TrainingSession::createFromOnnxModel");
  std::unique_ptr<TrainingSession> s(new TrainingSession(name, deviceInfo));
  s->optimizer_ = optimizer.clone();
  s->optimizer_->setFactorsFromOptions(userOptions);
  s->createIr(model, &losses, dataFlow, inputShapeInfo, userOptions, patterns, "", s->optimizer_.get());
  s->optimizerTensorIds_ = updateOptimizerTensors(*s->ir_, *s->optimizer_);
  return s;
}

void TrainingSession::updateOptimizer(const Optimizer* optimizer) {
  if (!optimizer) throw error("updateOptimizer: the optimizer is null");
  std::unique_ptr<Optimizer> next = optimizer->clone();
  next->setFactorsFromOptions(ir().options());
  optimizer_->validReplacement(*next);
  optimizerTensorIds_ = updateOptimizerTensors(ir(), *next);
  optimizer_ = std::move(next);
}

void TrainingSession::optimizerFromHost() {
  // Before prepareDevice the host values are all there is: prepareDevice copies them.
  if (executable_) executable_->tensorsFromHost(optimizerTensorIds_);
}

void TrainingSession::updateOptimizerFromHost(const Optimizer* optimizer) {
  updateOptimizer(optimizer);
  optimizerFromHost();
}

void TrainingSession::afterWeightsToHost() {
  // The device's copies may be older than the host's (updateOptimizer without
  // optimizerFromHost): the host keeps the current optimizer's values.
  updateOptimizerTensors(ir(), *optimizer_);
}

}  // namespace popart
