// The IPU model (ipu_model.hpp). The order of the work: place every op on an IPU (and pipeline
// stage), map every tensor onto tiles, sweep the schedule for each tile's peak of live
// activations, then cost every op as one bulk-synchronous superstep (sync, exchange, compute).
#include "backends/ipu_model/ipu_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/checked_size.hpp"
#include "ir/ir.hpp"
#include "ir/placement.hpp"
#include "onnx.pb.h"
#include "ops/collectives.hpp"
#include "ops/op_util.hpp"
#include "ops/training_params.hpp"
#include "passes/execution_phases.hpp"
#include "patterns/inplace.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"

namespace popart {
namespace ipu_model {
namespace {

using report::MemoryCategory;

int64_t ceilDiv(int64_t a, int64_t b) {
  return b <= 0 ? 0 : (a + b - 1) / b;
}

/// Ops whose work is multiply-accumulates on the AMP units: cost from their MACs.
bool isContraction(const std::string& type) {
  static const std::set<std::string> k = {"MatMul",       "Gemm",           "Conv",          "ConvTranspose",
                                          "ConvDataGrad", "ConvWeightGrad", "LSTM",          "GRU",
                                          "RNN",          "MatMulInteger",  "QLinearMatMul", "ConvInteger",
                                          "QLinearConv",  "Einsum",         "MultiConv",     "SplineWeighting"};
  return k.count(type) != 0;
}

/// The optimizer's weight-update ops (they write the weight and its state).
bool isWeightUpdate(const Op& op) {
  return op.def().family == "optim" || op.type() == "SGDVarUpdate";
}

/// Vector-op cost per element, in worker instructions (transcendentals are library calls).
int elementCost(const Op& op) {
  static const std::set<std::string> transcendental = {
      "Exp",         "Log",      "Tanh",      "Sigmoid",     "Erf",
      "Gelu",        "GeluErf",  "GeluGrad",  "Swish",       "Softmax",
      "LogSoftmax",  "Pow",      "Sin",       "Cos",         "Tan",
      "Asin",        "Acos",     "Atan",      "Sinh",        "Cosh",
      "Asinh",       "Acosh",    "Atanh",     "Softplus",    "Elu",
      "Selu",        "Celu",     "Mish",      "SoftmaxGrad", "LogSoftmaxGrad",
      "SigmoidGrad", "TanhGrad", "HardSwish", "Softsign",    "ThresholdedRelu"};
  const std::string& f = op.def().family;
  const SessionOptions& o = op.graph().ir().options();
  // Softmax without its max-reduction and subtraction (enableNonStableSoftmax).
  if (op.type() == "Softmax" && o.enableNonStableSoftmax) return 6;
  // The stable statistics take a second pass over the data (enableStableNorm).
  if (o.enableStableNorm && (op.type() == "BatchNormalization" || op.type() == "InstanceNormalization" ||
                             op.kind() == OpKind::GcGroupNormalization || op.kind() == OpKind::GcBatchNormalization))
    return 10;
  if (transcendental.count(op.type())) return 8;
  if (op.type() == "Sqrt" || op.type() == "Reciprocal" || op.type() == "Div") return 4;
  if (f == "norm" || f == "grad_nn") return 8;
  if (f == "losses" || f == "random") return 4;
  if (isWeightUpdate(op)) return std::max(2, op.numInputs());
  return 1;
}

bool isDataMovement(const Op& op) {
  const std::string& f = op.def().family;
  return f == "shape" || f == "tensor" || f == "gather" || f == "controlflow" || f == "strings" || f == "dynamic";
}

/// FLOPs of an op (2 per multiply-accumulate for contractions).
int64_t opFlops(const Op& op) {
  auto nel = [](const Tensor* t) { return t ? t->info.nelms() : 0; };
  const std::string& ty = op.type();
  const Tensor* out = op.hasOutput(0) ? op.output(0) : nullptr;
  int64_t macs = 0;
  if ((ty == "MatMul" || ty == "MatMulInteger" || ty == "QLinearMatMul") && op.hasInput(0)) {
    const Shape& a = op.inShape(0);
    macs = checkedProduct({nel(out), a.empty() ? 1 : a.back()});
  } else if (ty == "Gemm" && op.hasInput(0)) {
    const Shape& a = op.inShape(0);
    const int64_t kdim = a.size() == 2 ? (op.attrs.getInt("transA", 0) ? a[0] : a[1]) : 1;
    macs = checkedProduct({nel(out), kdim});
  } else if ((ty == "Conv" || ty == "ConvInteger" || ty == "QLinearConv" || ty == "ConvDataGrad") && op.hasInput(1)) {
    // Conv: out x (C/g x kernel); ConvDataGrad (gradOut, W): gradOut x (C/g x kernel).
    const Tensor* w = op.input(ty == "QLinearConv" ? 3 : 1);
    const Shape& ws = w->info.shape();
    int64_t perOut = 1;
    for (size_t i = 1; i < ws.size(); ++i) perOut = checkedProduct({perOut, ws[i]});
    macs = checkedProduct({ty == "ConvDataGrad" ? nel(op.input(0)) : nel(out), perOut});
  } else if (ty == "ConvTranspose" && op.hasInput(1)) {
    const Shape& ws = op.inShape(1);
    int64_t perIn = 1;
    for (size_t i = 1; i < ws.size(); ++i) perIn = checkedProduct({perIn, ws[i]});
    macs = checkedProduct({nel(op.input(0)), perIn});
  } else if (ty == "ConvWeightGrad" && out) {
    const Shape& ws = out->info.shape();
    int64_t perOut = 1;
    for (size_t i = 1; i < ws.size(); ++i) perOut = checkedProduct({perOut, ws[i]});
    macs = checkedProduct({nel(op.input(0)), perOut});
  } else if (op.kind() == OpKind::GcMultiConv) {
    // The sum of its convolutions': each output x (C/g x kernel), from x_i, w_i at inputs 3i, 3i+1.
    for (int i = 0; i < op.numOutputs(); ++i) {
      if (!op.hasOutput(i) || !op.hasInput(3 * i + 1)) continue;
      const Shape& ws = op.inShape(3 * i + 1);
      int64_t perOut = 1;
      for (size_t d = 1; d < ws.size(); ++d) perOut = checkedProduct({perOut, ws[d]});
      const int64_t m = checkedProduct({nel(op.output(i)), perOut});
      if (m < 0 || macs < 0 || !checkedAdd(macs, m, &macs)) macs = -1;
    }
  } else if (op.kind() == OpKind::GcLstm) {  // PopART's LSTM: every step multiplies [x, h] by W
    const Shape& x = op.inShape(0);
    macs = checkedProduct({x[0], x[1], nel(op.input(1))});
  } else if ((ty == "LSTM" || ty == "GRU" || ty == "RNN") && op.hasInput(2)) {
    const Shape& x = op.inShape(0);
    const int64_t steps = x.size() >= 2 ? checkedProduct({x[0], x[1]}) : 1;
    macs = checkedProduct({steps, nel(op.input(1)) + nel(op.input(2))});
  } else if (ty == "Einsum") {
    int64_t in = 0;
    for (const Tensor* t : op.inputs()) in = std::max(in, nel(t));
    macs = std::max(in, nel(out));
  }
  if (op.kind() == OpKind::GcCtc || op.kind() == OpKind::GcCtcGrad) {
    // The alpha (and for the gradient beta) recursion: T x N x (2S + 1) log-sum-exps.
    const Shape& lp = op.inShape(0);
    const int64_t states = 2 * op.inShape(1)[1] + 1;
    return checkedProduct({lp[0], lp[1], states, op.kind() == OpKind::GcCtc ? 16 : 32});
  }
  if (op.kind() == OpKind::GcSplineWeighting && op.hasInput(2)) {
    // Each edge: S weight matrices [Min, Mout] applied to its input, scaled by the basis.
    macs =
        checkedProduct({op.inShape(2)[0], op.inShape(2)[1], nel(op.input(1)) / std::max<int64_t>(op.inShape(1)[0], 1)});
  }
  if (op.kind() == OpKind::GcSplineBasis && out) {
    // Each basis product: D pieces (a cubic at most) and the weight index.
    return checkedProduct({nel(out), op.inShape(0)[1], 8});
  }
  if (op.kind() == OpKind::RoiAlign || op.kind() == OpKind::RoiAlignGrad) {
    // Each output bin (each gradient bin): ratio^2 samples (4 when adaptive: box-dependent) of four
    // bilinear corners, a multiply-add each.
    const int64_t r = op.attrs.getInt("sampling_ratio", 0);
    const int64_t bins = nel(op.kind() == OpKind::RoiAlign ? out : op.input(0));
    return checkedProduct({bins, r > 0 ? r * r : 4, 4, 2});
  }
  if (op.kind() == OpKind::GridSample) {
    // Each output: its grid point's coordinates and padding, then a multiply-add per tap (1 nearest,
    // 4 bilinear, 16 bicubic).
    const std::string mode = op.attrs.getString("mode", "bilinear");
    const int64_t taps = mode == "nearest" ? 1 : mode == "bicubic" ? 16 : 4;
    return checkedProduct({nel(out), 2 * taps + 8});
  }
  if (op.kind() == OpKind::TfIdfVectorizer && op.hasInput(0)) {
    // Each position: a pool lookup per item of each n-gram, for each skip (one for 1-grams).
    const int64_t n = op.attrs.getInt("max_gram_length"), skips = op.attrs.getInt("max_skip_count") + 1;
    return checkedProduct({nel(op.input(0)), n == 1 ? 1 : skips, n, 8});
  }
  if (op.kind() == OpKind::GcCtcBeamSearchDecoder) {
    // Each step extends every kept beam by every class and merges equal prefixes.
    const Shape& lp = op.inShape(0);
    return checkedProduct({lp[0], lp[1], lp[2], op.attrs.getInt("beam_width", 100), 8});
  }
  if (op.kind() == OpKind::Histogram && op.hasInput(0)) {
    // Automatic loss scaling: per element its absolute value, a compare per level and a count.
    return checkedProduct({nel(op.input(0)), static_cast<int64_t>(op.attrs.getFloats("levels").size()) + 2});
  }
  if (op.kind() == OpKind::LossScaleUpdate) return 16;  // compare the two counts, scale, clip: scalars
  if (op.kind() == OpKind::Adagrad || op.kind() == OpKind::Adam || op.kind() == OpKind::Momentum) {
    // ONNX's optimizer steps, per element of every optimized tensor: the regularized gradient and
    // the state updates (2 to 3 each), and for Adagrad / Adam a square root and a division (4 each).
    const int cost = op.kind() == OpKind::Adam ? 16 : op.kind() == OpKind::Adagrad ? 12 : 6;
    int64_t elems = 0;
    for (int i = 0; i < ops::trainingTensors(op); ++i) elems += nel(op.input(ops::trainingInput(op, 0, i)));
    return checkedProduct({elems, cost});
  }
  if (isContraction(ty)) return checkedProduct({2, macs});
  if (isDataMovement(op) || op.def().view != ViewKind::None) return 0;
  int64_t elems = nel(out);
  for (const Tensor* t : op.inputs()) elems = std::max(elems, nel(t));
  return checkedProduct({elems, elementCost(op)});
}

/// The layout of a tensor on one IPU's `tiles` tiles (docs/ipu-model.md, "Tile mapping"):
/// n = ceil(bytes / minBytesPerTile) tiles (1 .. tiles); whole rows (the first dimension) per
/// tile when there are at least n rows, else elements; a tensor over every tile starts at tile 0,
/// smaller ones at the IPU's cursor, which advances by n (deterministic, balanced).
report::TileMapping mapTensor(const TensorInfo& info, int ipu, int64_t tiles, int64_t& cursor,
                              const ModelConstants& k) {
  report::TileMapping m;
  m.ipu = ipu;
  const int64_t bytes = info.dataType() == DataType::STRING ? 0 : info.nbytes();
  const int64_t n = std::clamp<int64_t>(ceilDiv(bytes, k.minBytesPerTile), 1, tiles);
  if (n == tiles) {
    m.firstTile = 0;
  } else {
    m.firstTile = cursor % (tiles - n + 1);
    cursor = (cursor + n) % tiles;
  }
  m.bytesPerTile.assign(static_cast<size_t>(n), 0);
  const Shape& s = info.shape();
  const int64_t rows = s.empty() ? 1 : s[0];
  const int64_t elemBytes = info.dataType() == DataType::STRING ? 0 : info.getDataTypeSize();
  if (rows >= n && rows > 0) {
    const int64_t rowBytes = bytes / rows;
    for (int64_t t = 0; t < n; ++t)
      m.bytesPerTile[static_cast<size_t>(t)] = (rows / n + (t < rows % n ? 1 : 0)) * rowBytes;
  } else {
    const int64_t nel = info.nelms();
    const int64_t per = ceilDiv(nel, n);
    int64_t left = nel;
    for (int64_t t = 0; t < n; ++t) {
      const int64_t e = std::min(per, left);
      m.bytesPerTile[static_cast<size_t>(t)] = e * elemBytes;
      left -= e;
    }
  }
  return m;
}

bool sameLayout(const report::TileMapping& a, const report::TileMapping& b) {
  return a.ipu == b.ipu && a.firstTile == b.firstTile && a.bytesPerTile.size() == b.bytesPerTile.size();
}

std::string kindName(TensorKind k) {
  switch (k) {
    case TensorKind::Stream:
      return "stream";
    case TensorKind::Variable:
      return "variable";
    case TensorKind::Const:
      return "constant";
    case TensorKind::ActGrad:
      break;
  }
  return "activation";
}

class Modeller {
 public:
  Modeller(const Ir& ir, const DeviceInfo& device, const ModelConstants& k)
      : ir_(ir),
        device_(device),
        target_(device.getTarget()),
        k_(k),
        sched_(ir.schedule()),
        plans_(sched_.size()),
        planned_(sched_.size(), 0) {}

  report::Compilation run() {
    fillTarget();
    placeOps();
    mapTensors();
    streamingMemory();
    memory();
    phaseMemory();
    cycles();
    attribute();
    c_.schedule = ir_.scheduleText();
    return std::move(c_);
  }

 private:
  // ---------------------------------------------------------------- target
  void fillTarget() {
    report::Target& t = c_.target;
    t.type = toString(device_.getType());  // "IpuModel", "OfflineIpu" or "Sim"
    t.architecture = target_.version;
    t.product = target_.product;
    t.numIpus = device_.getNumIpus();
    t.tilesPerIpu = device_.getTilesPerIPU();
    t.numTiles = static_cast<int64_t>(t.numIpus) * t.tilesPerIpu;
    t.bytesPerTile = target_.bytesPerTile;
    t.totalMemory = t.numTiles * t.bytesPerTile;
    t.clockHz = target_.clockHz;
    t.workerContexts = target_.workerContexts;
    const int64_t rf = ir_.options().getReplicationFactor();
    if (t.numIpus % rf != 0)
      throw error("The device has {} IPU(s), which the replication factor {} does not divide", t.numIpus, rf);
    ipusPerReplica_ = static_cast<int>(t.numIpus / rf);
    replicas_ = static_cast<int>(rf);
    t.replicas = replicas_;
  }

  // ---------------------------------------------------------------- placement
  void placeOps() {
    const SessionOptions& o = ir_.options();
    const VirtualGraphMode mode = o.virtualGraphMode;
    if (mode == VirtualGraphMode::Off && ipusPerReplica_ > 1)
      throw error(
          "The device has {} IPU(s) per replica but virtualGraphMode is Off: place the ops with virtualGraphMode "
          "Manual (Builder.virtualGraph) or Auto, or replicate the graph (replicatedGraphCount = numIPUs)",
          ipusPerReplica_);
    std::set<std::string> modelNodes;
    for (const auto& n : ir_.model().graph().node())
      if (!n.name().empty()) modelNodes.insert(n.name());
    ipuOf_.assign(sched_.size(), 0);
    stageOf_.assign(sched_.size(), -1);
    for (size_t i = 0; i < sched_.size(); ++i) index_[sched_[i]] = static_cast<int>(i);

    if (mode == VirtualGraphMode::Manual) {
      bool any = false;
      for (const Op* op : sched_) any = any || op->attrs.has(sVirtualGraphAttribute);
      if (!any)
        throw error("virtualGraphMode is Manual but no op has a virtualGraph annotation (Builder.virtualGraph)");
    }
    phased_ = phasedExecution(o);
    if (mode == VirtualGraphMode::Manual || (mode == VirtualGraphMode::Auto && ipusPerReplica_ > 1) || phased_) {
      // Manual: the user's annotations; Auto and ExecutionPhases: the ids the AutoVirtualGraph and
      // execution-phase passes wrote (passes/auto_virtual_graph.hpp, passes/execution_phases.hpp)
      // on every op.
      for (size_t i = 0; i < sched_.size(); ++i)
        ipuOf_[i] = annotatedIpu(i, mode == VirtualGraphMode::Manual && modelNodes.count(sched_[i]->name()));
    }
    phaseOf_.assign(sched_.size(), -1);
    if (phased_)
      for (size_t i = 0; i < sched_.size(); ++i) phaseOf_[i] = static_cast<int>(executionPhaseOf(*sched_[i]));

    c_.pipelined = o.enablePipelining;
    if (c_.pipelined) {
      if (ipusPerReplica_ < 2)
        throw error(
            "Pipelining requires more than 1 IPU and the 'virtualGraphMode' session option to not be "
            "VirtualGraphMode::Off. (The device has {} IPU(s) per replica.)",
            ipusPerReplica_);
      for (size_t i = 0; i < sched_.size(); ++i) {
        const Op* op = sched_[i];
        if (op->attrs.has(sPipelineStageAttribute)) {
          const int64_t s = op->attrs.getInt(sPipelineStageAttribute);
          if (s < 0 || s > 1023) throw error("{} has pipelineStage {}: stages are 0 .. 1023", op->describe(), s);
          stageOf_[i] = static_cast<int>(s);
        } else {
          stageOf_[i] = ipuOf_[i];  // PopART: without annotations, a pipeline stage per IPU
        }
      }
      int maxStage = 0;
      for (int s : stageOf_) maxStage = std::max(maxStage, s);
      checkPipelineDepth(ir_, maxStage + 1);
    }
  }

  /// The IPU of the op at schedule index i from its virtual graph annotation; `required`: an op
  /// of the model under Manual placement, which must have one.
  int annotatedIpu(size_t i, bool required) {
    const Op* op = sched_[i];
    if (!op->attrs.has(sVirtualGraphAttribute)) {
      if (required)
        throw error("{} has no virtualGraph annotation: virtualGraphMode Manual needs one on every op of the model",
                    op->describe());
      return inheritedIpu(i);
    }
    const int64_t v = op->attrs.getInt(sVirtualGraphAttribute);
    if (phased_ && (v < 0 || v >= ipusPerReplica_))  // PopART's Devicex check (phase % stages)
      throw error("{} has been assigned to an invalid virtual graph {}. numIPUs = {}.", op->describe(), v,
                  ipusPerReplica_);
    if (v < 0 || v >= ipusPerReplica_)
      throw error("{} has virtualGraph {}, but the device has {} IPU(s) per replica (0 .. {})", op->describe(), v,
                  ipusPerReplica_, ipusPerReplica_ - 1);
    return static_cast<int>(v);
  }

  /// An op the IR added (gradients, updates) without an annotation: the IPU of the weight it
  /// updates or reads, else the latest IPU among its inputs' producers, else IPU 0.
  int inheritedIpu(size_t i) {
    const Op* op = sched_[i];
    int best = -1;
    for (const Tensor* t : op->inputs()) {
      if (!t) continue;
      if (t->kind == TensorKind::Variable) {
        for (const Op* c : t->consumers) {
          auto it = index_.find(c);
          if (it != index_.end() && static_cast<size_t>(it->second) < i) return ipuOf_[static_cast<size_t>(it->second)];
        }
      }
      if (t->producer) {
        auto it = index_.find(t->producer);
        if (it != index_.end() && static_cast<size_t>(it->second) < i)
          best = std::max(best, ipuOf_[static_cast<size_t>(it->second)]);
      }
    }
    return std::max(best, 0);
  }

  // ---------------------------------------------------------------- tensors
  int tensorIpu(const Tensor* t) {
    if (t->producer) {
      auto it = index_.find(t->producer);
      if (it != index_.end()) return ipuOf_[static_cast<size_t>(it->second)];
    }
    for (const Op* c : t->consumers) {  // streams, weights, constants: their first reader's IPU
      auto it = index_.find(c);
      if (it != index_.end()) return ipuOf_[static_cast<size_t>(it->second)];
    }
    return 0;
  }

  void addTensor(const Tensor* t) {
    if (tensorIndex_.count(t)) return;
    const Tensor* src = aliasSource(t);
    if (src) addTensor(src);
    report::Tensor r;
    r.id = t->id;
    r.dtype = dataTypeToString(t->info.dataType());
    r.shape = t->info.shape();
    r.bytes = t->info.dataType() == DataType::STRING ? 0 : t->info.nbytes();
    // The model's initializers are the device's variables (weights), whether or not this session
    // trains them; other constants (folded, made by the IR) are constants.
    const bool weight = t->kind == TensorKind::Variable || (t->kind == TensorKind::Const && initializers_.count(t->id));
    r.kind = weight ? "variable" : kindName(t->kind);
    r.category = weight                         ? MemoryCategory::Variable
                 : t->kind == TensorKind::Const ? MemoryCategory::Constant
                                                : MemoryCategory::Activation;
    if (src) {
      const report::Tensor& root = c_.tensors[tensorIndex_.at(src)];
      r.view = true;
      r.category = root.category;
      r.mapping = root.mapping;
    } else {
      const int ipu = tensorIpu(t);
      r.mapping = mapTensor(t->info, ipu, device_.getTilesPerIPU(), cursor_[ipu], k_);
    }
    tensorIndex_[t] = c_.tensors.size();
    c_.tensors.push_back(std::move(r));
    irTensors_.push_back(t);
  }

  void mapTensors() {
    initializers_.insert(ir_.initializerIds().begin(), ir_.initializerIds().end());
    // Weights and constants first (they stay for the whole program), then streams and
    // activations in schedule order; a view takes its source's mapping.
    for (const Op* op : sched_)
      for (const Tensor* t : op->inputs())
        if (t && (t->kind == TensorKind::Variable || t->kind == TensorKind::Const)) addTensor(t);
    for (const Op* op : sched_) {
      for (const Tensor* t : op->inputs())
        if (t) addTensor(t);
      for (const Tensor* t : op->outputs())
        if (t) addTensor(t);
    }
    for (const TensorId& id : ir_.dataFlow().anchors())
      if (const Tensor* t = ir_.mainGraph().tensor(id)) addTensor(t);

    // Liveness (schedule indices), views extending their root's.
    const int n = static_cast<int>(sched_.size());
    const int lastIndex = std::max(n - 1, 0);
    std::vector<int> first(c_.tensors.size(), n), last(c_.tensors.size(), -1);
    auto root = [&](size_t ti) {
      const Tensor* t = irTensors_[ti];
      while (const Tensor* s = aliasSource(t)) t = s;
      return tensorIndex_.at(t);
    };
    for (int i = 0; i < n; ++i) {
      const Op* op = sched_[static_cast<size_t>(i)];
      for (const Tensor* t : op->outputs()) {
        if (!t) continue;
        const size_t ti = tensorIndex_.at(t), r = root(ti);
        for (size_t x : {ti, r}) {
          first[x] = std::min(first[x], i);
          last[x] = std::max(last[x], i);
        }
      }
      for (const Tensor* t : op->inputs()) {
        if (!t) continue;
        const size_t ti = tensorIndex_.at(t), r = root(ti);
        for (size_t x : {ti, r}) {
          if (irTensors_[x]->kind == TensorKind::Stream) first[x] = std::min(first[x], 0);
          last[x] = std::max(last[x], i);
        }
      }
    }
    for (const TensorId& id : ir_.dataFlow().anchors()) {
      if (const Tensor* t = ir_.mainGraph().tensor(id)) {
        const size_t ti = tensorIndex_.at(t);
        last[ti] = last[root(ti)] = lastIndex;
      }
    }
    for (size_t ti = 0; ti < c_.tensors.size(); ++ti) {
      report::Tensor& r = c_.tensors[ti];
      if (r.category != MemoryCategory::Activation) {
        r.liveFrom = 0;
        r.liveTo = lastIndex;
      } else {
        r.liveFrom = std::min(first[ti], last[ti] < 0 ? lastIndex : last[ti]);
        r.liveTo = std::max(last[ti], r.liveFrom);
      }
    }
  }

  // ---------------------------------------------------------------- streaming memory
  /// A span of schedule indices (inclusive) during which a tensor is in its IPU's tiles.
  struct LiveInterval {
    size_t tensor;
    int from, to;
  };

  bool isStreamed(size_t ti) const { return ti < streamed_.size() && streamed_[ti]; }

  /// Phased execution: which tensors live in streaming memory (passes::isOffChip; anchors stay on
  /// chip), their spans in tile memory (from the first to the last use in each phase that uses
  /// them) and each phase's loads and stores (docs/ipu-model.md, "Execution phases").
  void streamingMemory() {
    if (!phased_) return;
    int phases = 0;
    for (int p : phaseOf_) phases = std::max(phases, p + 1);
    c_.phases.assign(static_cast<size_t>(phases), {});
    for (int p = 0; p < phases; ++p) c_.phases[static_cast<size_t>(p)].phase = p;
    for (size_t i = 0; i < sched_.size(); ++i) c_.phases[static_cast<size_t>(std::max(phaseOf_[i], 0))].ipu = ipuOf_[i];
    streamed_.assign(c_.tensors.size(), 0);
    for (size_t ti = 0; ti < c_.tensors.size(); ++ti) {
      const Tensor* t = irTensors_[ti];
      if (c_.tensors[ti].view || ir_.dataFlow().isAnchored(t->id) || !passes::isOffChip(ir_, *t)) continue;
      streamed_[ti] = 1;
      streamTensor(ti);
    }
  }

  /// The phases that use tensor `ti` (streamingMemory): its spans and its traffic. A phase on
  /// another IPU than the tensor's gets it by an inter-IPU copy (costed with the op that reads
  /// it), not from streaming memory.
  void streamTensor(size_t ti) {
    const Tensor* t = irTensors_[ti];
    std::map<int, std::pair<int, int>> uses;  // phase -> first, last schedule index
    std::set<int> modifiedIn;
    auto use = [&](const Op* op) {
      auto it = index_.find(op);
      if (it == index_.end()) return;
      const int i = it->second, p = phaseOf_[static_cast<size_t>(i)];
      auto u = uses.try_emplace(p, i, i).first;
      u->second = {std::min(u->second.first, i), std::max(u->second.second, i)};
      if (isWeightUpdate(*op)) modifiedIn.insert(p);
    };
    if (t->producer) use(t->producer);
    for (const Op* c : t->consumers) use(c);
    const int producedIn =
        t->producer && index_.count(t->producer) ? phaseOf_[static_cast<size_t>(index_.at(t->producer))] : -1;
    const int64_t bytes = c_.tensors[ti].bytes;
    const int ipu = c_.tensors[ti].mapping.ipu;
    auto here = [&](int p) { return c_.phases[static_cast<size_t>(p)].ipu == ipu; };
    bool readLater = false;  // in a later phase on its own IPU
    for (const auto& u : uses) readLater = readLater || (u.first != producedIn && here(u.first));
    for (const auto& [p, span] : uses) {
      if (!here(p) && p != producedIn) continue;
      (t->kind == TensorKind::ActGrad ? streamedActivations_ : streamedVariables_)
          .push_back({ti, span.first, span.second});
      report::Phase& ph = c_.phases[static_cast<size_t>(p)];
      if (p != producedIn) ph.remoteLoadBytes += bytes;
      if ((p == producedIn && readLater) || modifiedIn.count(p)) ph.remoteStoreBytes += bytes;
    }
  }

  /// The activations' spans in tile memory: producer to last reader, or per phase when streamed.
  std::vector<LiveInterval> activationIntervals() const {
    std::vector<LiveInterval> iv = streamedActivations_;
    for (size_t ti = 0; ti < c_.tensors.size(); ++ti) {
      const report::Tensor& r = c_.tensors[ti];
      if (!r.view && r.category == MemoryCategory::Activation && !isStreamed(ti))
        iv.push_back({ti, r.liveFrom, r.liveTo});
    }
    return iv;
  }

  /// Each tile's peak of the tensors of `iv` live at once, over the schedule indices from .. to
  /// (the spans clipped to them).
  std::vector<int64_t> sweepPeaks(const std::vector<LiveInterval>& iv, int from, int to) const {
    const size_t span = static_cast<size_t>(std::max(to - from + 1, 1));
    std::vector<std::vector<size_t>> starts(span), ends(span);
    for (const LiveInterval& l : iv) {
      if (l.to < from || l.from > to) continue;
      starts[static_cast<size_t>(std::clamp(l.from, from, to) - from)].push_back(l.tensor);
      ends[static_cast<size_t>(std::clamp(l.to, from, to) - from)].push_back(l.tensor);
    }
    std::vector<int64_t> live(static_cast<size_t>(ipusPerReplica_) * static_cast<size_t>(device_.getTilesPerIPU()), 0);
    std::vector<int64_t> peak(live.size(), 0);
    // (A mapping covers consecutive tiles: plain loops over pointers, which the compiler
    // vectorises.)
    for (size_t i = 0; i < span; ++i) {
      for (size_t ti : starts[i]) {
        const report::TileMapping& m = c_.tensors[ti].mapping;
        const int64_t* __restrict b = m.bytesPerTile.data();
        int64_t* __restrict lv = live.data() + globalTile(m.ipu, m.firstTile);
        int64_t* __restrict pk = peak.data() + globalTile(m.ipu, m.firstTile);
        for (size_t k = 0, nk = m.bytesPerTile.size(); k < nk; ++k) {
          lv[k] += b[k];
          pk[k] = std::max(pk[k], lv[k]);
        }
      }
      for (size_t ti : ends[i]) {
        const report::TileMapping& m = c_.tensors[ti].mapping;
        const int64_t* __restrict b = m.bytesPerTile.data();
        int64_t* __restrict lv = live.data() + globalTile(m.ipu, m.firstTile);
        for (size_t k = 0, nk = m.bytesPerTile.size(); k < nk; ++k) lv[k] -= b[k];
      }
    }
    return peak;
  }

  /// Each phase's tensor memory on its IPU: the resident weights and constants plus the peak of
  /// the activations and streamed tensors live during the phase's ops.
  void phaseMemory() {
    std::vector<LiveInterval> all = activationIntervals();
    all.insert(all.end(), streamedVariables_.begin(), streamedVariables_.end());
    const int64_t tilesPerIpu = device_.getTilesPerIPU();
    for (report::Phase& ph : c_.phases) {
      int from = -1, to = -1;
      for (size_t i = 0; i < sched_.size(); ++i) {
        if (phaseOf_[i] != ph.phase) continue;
        from = from < 0 ? static_cast<int>(i) : from;
        to = static_cast<int>(i);
      }
      if (from < 0) continue;
      const std::vector<int64_t> peak = sweepPeaks(all, from, to);
      for (int64_t g = globalTile(ph.ipu, 0), e = g + tilesPerIpu; g < e; ++g) {
        const int64_t b = peak[static_cast<size_t>(g)] + resident_[static_cast<size_t>(g)];
        ph.tensorBytes += b;
        ph.maxTileBytes = std::max(ph.maxTileBytes, b);
      }
    }
  }

  // ---------------------------------------------------------------- memory
  int64_t globalTile(int ipu, int64_t tile) const {
    return static_cast<int64_t>(ipu) * device_.getTilesPerIPU() + tile;
  }

  void memory() {
    const int64_t tilesPerIpu = device_.getTilesPerIPU();
    const int64_t tiles = static_cast<int64_t>(ipusPerReplica_) * tilesPerIpu;
    const size_t nc = static_cast<size_t>(MemoryCategory::N);
    std::vector<std::vector<int64_t>> by(nc, std::vector<int64_t>(static_cast<size_t>(tiles), 0));
    auto cat = [&](MemoryCategory m) -> std::vector<int64_t>& { return by[static_cast<size_t>(m)]; };

    // Variables and constants: always there (but those in streaming memory).
    for (size_t ti = 0; ti < c_.tensors.size(); ++ti) {
      const report::Tensor& r = c_.tensors[ti];
      if (r.view || r.category == MemoryCategory::Activation || isStreamed(ti)) continue;
      for (size_t k = 0; k < r.mapping.bytesPerTile.size(); ++k)
        cat(r.category)[static_cast<size_t>(
            globalTile(r.mapping.ipu, r.mapping.firstTile + static_cast<int64_t>(k)))] += r.mapping.bytesPerTile[k];
    }
    resident_ = cat(MemoryCategory::Variable);
    for (int64_t g = 0; g < tiles; ++g)
      resident_[static_cast<size_t>(g)] += cat(MemoryCategory::Constant)[static_cast<size_t>(g)];
    // Activations: each tile's peak over the schedule (outputs are allocated while the op's
    // inputs are still live; buffers are freed after their last reader). Tensors in streaming
    // memory: only from their first to their last use in each phase that uses them.
    const int last = std::max(static_cast<int>(sched_.size()) - 1, 0);
    cat(MemoryCategory::Activation) = sweepPeaks(activationIntervals(), 0, last);
    const std::vector<int64_t> streamed = sweepPeaks(streamedVariables_, 0, last);
    for (int64_t g = 0; g < tiles; ++g)
      cat(MemoryCategory::Variable)[static_cast<size_t>(g)] += streamed[static_cast<size_t>(g)];
    // Code, vertex state and exchange buffers per op (on the tiles it computes on). Code: each
    // vertex type once per tile that runs it (`hasCode[type][tile]`: one map lookup per op, not
    // per tile).
    const bool code = device_.getCompileIPUCode();
    std::map<std::string, std::vector<char>> hasCode;
    std::vector<int64_t>& codeBytes = cat(MemoryCategory::Code);
    std::vector<int64_t>& vertexBytes = cat(MemoryCategory::VertexState);
    std::vector<int64_t>& exchangeBytes = cat(MemoryCategory::Exchange);
    std::vector<int64_t> supersteps(static_cast<size_t>(ipusPerReplica_), 0);
    for (size_t i = 0; i < sched_.size(); ++i) {
      const OpPlan& p = plan(i);
      if (p.view) continue;
      const Op* op = sched_[i];
      ++supersteps[static_cast<size_t>(p.ipu)];
      const int64_t recvPerTile = std::min(ceilDiv(p.exchangeBytes, p.numTiles), k_.maxExchangeBufferBytes);
      const int64_t vertex = k_.vertexStateBytes + k_.vertexStateBytesPerOperand * (op->numInputs() + op->numOutputs());
      const int64_t codePerTile = isContraction(op->type()) ? k_.codeBytesContraction : k_.codeBytesOther;
      std::vector<char>* typeOn = nullptr;
      if (code) {
        typeOn = &hasCode[op->type()];
        if (typeOn->empty()) typeOn->assign(static_cast<size_t>(tiles), 0);
      }
      const int64_t g0 = globalTile(p.ipu, p.firstTile);
      int64_t* __restrict vb = vertexBytes.data() + g0;
      int64_t* __restrict xb = exchangeBytes.data() + g0;
      for (int64_t t = 0; t < p.numTiles; ++t) {
        vb[t] += vertex;
        xb[t] = std::max(xb[t], recvPerTile);
      }
      if (typeOn) {
        char* __restrict on = typeOn->data() + g0;
        int64_t* __restrict cb = codeBytes.data() + g0;
        for (int64_t t = 0; t < p.numTiles; ++t) {
          cb[t] += on[t] ? 0 : codePerTile;
          on[t] = 1;
        }
      }
    }
    if (code) {
      for (int64_t g = 0; g < tiles; ++g)
        codeBytes[static_cast<size_t>(g)] +=
            k_.controlBytesPerSuperstep * supersteps[static_cast<size_t>(g / tilesPerIpu)];
    }
    // Replicas hold the same program: the per-tile figures repeat for each.
    report::Memory& mem = c_.memory;
    mem.byCategoryByTile.assign(nc, {});
    for (size_t cI = 0; cI < nc; ++cI) {
      auto& v = mem.byCategoryByTile[cI];
      v.reserve(static_cast<size_t>(tiles * replicas_));
      for (int r = 0; r < replicas_; ++r) v.insert(v.end(), by[cI].begin(), by[cI].end());
    }
    const size_t all = static_cast<size_t>(tiles * replicas_);
    mem.byTileTotal.assign(all, 0);
    for (size_t g = 0; g < all; ++g) {
      for (size_t cI = 0; cI < nc; ++cI) mem.byTileTotal[g] += mem.byCategoryByTile[cI][g];
      mem.total += mem.byTileTotal[g];
      if (mem.byTileTotal[g] > mem.maxTileBytes) {
        mem.maxTileBytes = mem.byTileTotal[g];
        mem.maxTile = static_cast<int64_t>(g);
      }
      if (mem.byTileTotal[g] > target_.bytesPerTile) mem.outOfMemoryTiles.push_back(static_cast<int64_t>(g));
    }
  }

  // ---------------------------------------------------------------- cycles
  struct OpPlan {
    bool view = false;
    int ipu = 0;
    int64_t firstTile = 0, numTiles = 1;
    int64_t exchangeBytes = 0;                                 // from other tiles of the same IPU
    std::vector<std::pair<const Tensor*, int>> fromOtherIpus;  // tensor, source IPU
  };

  /// Which tiles an op computes on and what it must receive (memoised).
  const OpPlan& plan(size_t i) {
    if (planned_[i]) return plans_[i];
    OpPlan p;
    const Op* op = sched_[i];
    p.ipu = ipuOf_[i];
    p.view = op->def().view == ViewKind::Reshape && op->hasOutput(0) && aliasSource(op->output(0)) != nullptr;
    // The op spreads over the tiles of its largest operand (its output, or an input for
    // reductions and contractions with a small result).
    const report::Tensor* widest = nullptr;
    auto consider = [&](const Tensor* t) {
      if (!t) return;
      const report::Tensor& r = c_.tensors[tensorIndex_.at(t)];
      if (r.mapping.ipu != p.ipu) return;
      if (!widest || r.mapping.bytesPerTile.size() > widest->mapping.bytesPerTile.size()) widest = &r;
    };
    if (op->hasOutput(0)) consider(op->output(0));
    for (const Tensor* t : op->inputs()) consider(t);
    if (widest) {
      p.firstTile = widest->mapping.firstTile;
      p.numTiles = static_cast<int64_t>(widest->mapping.bytesPerTile.size());
    }
    const report::Tensor* out = op->hasOutput(0) ? &c_.tensors[tensorIndex_.at(op->output(0))] : nullptr;
    const bool contraction = isContraction(op->type());
    // A contraction keeps its largest input where it is (the weights, mapped by rows over the
    // tiles: "stationary") and moves the others to the ceil(sqrt(n)) tiles of each block row,
    // then reduces the partial sums of the output the same way (docs/ipu-model.md, "Exchange").
    const int64_t fan = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(p.numTiles))));
    const Tensor* stationary = nullptr;
    if (contraction) {
      for (const Tensor* t : op->inputs())
        if (t && (!stationary || t->info.nbytes() >= stationary->info.nbytes())) stationary = t;
      if (out) p.exchangeBytes += checkedProduct({out->bytes, fan - 1});
    }
    std::set<const Tensor*> seen;
    for (const Tensor* t : op->inputs()) {
      if (!t || !seen.insert(t).second) continue;
      const report::Tensor& r = c_.tensors[tensorIndex_.at(t)];
      if (r.mapping.ipu != p.ipu) p.fromOtherIpus.push_back({t, r.mapping.ipu});
      if (p.view) continue;
      int64_t bytes = 0;
      if (contraction && t == stationary) {
        // In place when it spans the op's tiles, else laid out once.
        const bool inPlace = r.mapping.ipu == p.ipu && r.mapping.firstTile == p.firstTile &&
                             static_cast<int64_t>(r.mapping.bytesPerTile.size()) == p.numTiles;
        bytes = inPlace ? 0 : r.bytes;
      } else if (contraction) {
        bytes = checkedProduct({r.bytes, fan});
      } else if (out && sameLayout(r.mapping, out->mapping) && t->info.nelms() == op->outInfo(0).nelms()) {
        bytes = 0;  // elementwise on the same tiles
      } else if (out && t->info.nelms() < op->outInfo(0).nelms()) {
        bytes = std::min(checkedProduct({r.bytes, p.numTiles}), out->bytes);  // broadcast
      } else if (r.mapping.ipu == p.ipu && r.mapping.firstTile == p.firstTile &&
                 static_cast<int64_t>(r.mapping.bytesPerTile.size()) == p.numTiles && out) {
        bytes = std::min(r.bytes, checkedProduct({out->bytes, p.numTiles}));  // a reduction: partials
      } else {
        bytes = r.bytes;  // rearranged
      }
      p.exchangeBytes += bytes;
    }
    planned_[i] = 1;
    plans_[i] = std::move(p);
    return plans_[i];
  }

  int flopsPerTileCycle(DataType t) const {
    switch (t) {
      case DataType::FLOAT16:
      case DataType::BFLOAT16:
        return target_.flopsPerTileCycleHalf;
      case DataType::FLOAT8_143:
      case DataType::FLOAT8_152:
        return target_.flopsPerTileCycleFp8 > 0 ? target_.flopsPerTileCycleFp8 : target_.flopsPerTileCycleHalf;
      default:
        return target_.flopsPerTileCycleFloat;
    }
  }

  /// The FLOPs of a Call: its callee's ops' (nested calls included).
  static int64_t calleeFlops(const Op& call) {
    int64_t f = 0;
    for (const Op* op : call.subgraphs.at(0)->topologicalOrder())
      f += op->kind() == OpKind::GcCall ? calleeFlops(*op) : opFlops(*op);
    return f;
  }

  /// The compute cycles of `op` over `numTiles` tiles. A Call costs its callee: each of the
  /// callee's ops on the call's tiles, with a compute set (and its sync) each.
  int64_t computeCycles(const Op& op, int64_t numTiles) const {
    const int workers = std::max(1, target_.workerContexts);
    if (op.kind() == OpKind::GcCall) {
      int64_t c = 0;
      for (const Op* inner : op.subgraphs.at(0)->topologicalOrder())
        c += computeCycles(*inner, numTiles) + k_.computeSetOverheadCycles + target_.syncCycles;
      return c;
    }
    if (op.def().view != ViewKind::None) return 0;
    const int64_t flops = opFlops(op);
    const DataType dt = op.hasInput(0) ? op.inType(0) : DataType::FLOAT;
    if (isContraction(op.type())) {
      const double perTile = static_cast<double>(flops) / static_cast<double>(numTiles);
      return static_cast<int64_t>(std::ceil(perTile / (flopsPerTileCycle(dt) * k_.ampEfficiency)));
    }
    if (isDataMovement(op)) {
      int64_t bytes = 0;
      for (const Tensor* t : op.outputs())
        if (t && t->info.dataType() != DataType::STRING) bytes += t->info.nbytes();
      return ceilDiv(ceilDiv(bytes, numTiles), k_.copyBytesPerTileCycle);
    }
    // Each of the tile's workers takes 1/workers of its elements; a worker issues one
    // instruction every `workers` cycles (the barrel), each on one vector of elements.
    const int64_t elemBytes = std::max<int64_t>(1, TensorInfo(dt, Shape{}).getDataTypeSize());
    const int64_t vec = std::max<int64_t>(1, k_.vectorBytes / elemBytes);
    const int64_t perTile = ceilDiv(flops, numTiles);
    return workers * ceilDiv(ceilDiv(perTile, workers), vec);
  }

  // ---------------------------------------------------------------- ONNX nodes
  /// Whether `op` is a forward op of the model (not autodiff's, not an optimizer's).
  static bool isForward(const Op* op) {
    const std::string& n = op->name();
    return !op->def().sideEffect && n.find("/grad/") == std::string::npos && n.rfind(reservedGradientPrefix(), 0) != 0;
  }

  /// The weight an optimizer op updates: "<weight>/<Op>" naming a variable, else the variable
  /// input 0 of an op with a side effect; nullptr for other ops.
  static const Tensor* updatedWeight(const Op* op) {
    const std::string& n = op->name();
    const size_t slash = n.rfind('/');
    if (slash != std::string::npos && slash > 0) {
      const Tensor* w = op->graph().tensor(n.substr(0, slash));
      if (w && w->kind == TensorKind::Variable) return w;
    }
    if (op->def().sideEffect && op->hasInput(0) && op->input(0)->kind == TensorKind::Variable) return op->input(0);
    return nullptr;
  }

  /// The ONNX node `op` belongs to (report::Op::node): memoised, depth-bounded.
  std::string onnxNode(const Op* op, int depth = 0) {
    auto hit = node_.find(op);
    if (hit != node_.end()) return hit->second;
    const std::string& n = op->name();
    std::string node = n;
    const size_t grad = n.find("/grad/");
    if (grad != std::string::npos) {
      node = n.substr(0, grad);
    } else if (n.rfind(reservedGradientPrefix(), 0) == 0) {
      const std::string fwd = n.substr(std::string(reservedGradientPrefix()).size());
      const Tensor* t = op->graph().tensor(fwd);
      node = t && t->producer && t->producer != op && depth < 8 ? onnxNode(t->producer, depth + 1) : fwd;
    } else if (const Tensor* w = updatedWeight(op)) {
      // The first forward reader of the weight in the schedule.
      const Op* first = nullptr;
      for (const Op* c : w->consumers) {
        auto it = index_.find(c);
        if (!isForward(c) || it == index_.end()) continue;
        if (!first || it->second < index_.at(first)) first = c;
      }
      node = first && depth < 8 ? onnxNode(first, depth + 1) : w->id;
    }
    node_[op] = node;
    return node;
  }

  /// Each op's id, ONNX node, inputs and outputs; each tensor's producing op.
  void attribute() {
    for (size_t i = 0; i < sched_.size(); ++i) {
      c_.ops[i].id = sched_[i]->id();
      c_.ops[i].node = onnxNode(sched_[i]);
      for (const Tensor* t : sched_[i]->inputs()) c_.ops[i].inputs.push_back(t ? t->id : TensorId());
      for (const Tensor* t : sched_[i]->outputs()) {
        if (t) c_.ops[i].outputs.push_back(t->id);
      }
    }
    for (size_t k = 0; k < c_.tensors.size(); ++k) {
      const Op* p = irTensors_[k]->producer;
      if (p && index_.count(p)) c_.tensors[k].producer = p->id();
    }
  }

  void cycles() {
    const double linkBytesPerCycle = target_.ipuLinksPerIpu * target_.ipuLinkBytesPerSec / target_.clockHz;
    const double hostBytesPerCycle = target_.hostBytesPerSec / target_.clockHz;
    report::Cycles& cy = c_.cycles;
    cy.perIpu.assign(static_cast<size_t>(ipusPerReplica_), 0);
    std::set<std::pair<const Tensor*, int>> copied;  // (tensor, destination IPU)
    int maxStage = -1;
    for (int s : stageOf_) maxStage = std::max(maxStage, s);
    if (c_.pipelined) cy.stageCycles.assign(static_cast<size_t>(maxStage + 1), 0);

    for (size_t i = 0; i < sched_.size(); ++i) {
      const Op* op = sched_[i];
      const OpPlan& p = plan(i);
      report::Op r;
      r.name = op->name();
      r.type = op->type();
      r.ipu = p.ipu;
      r.pipelineStage = stageOf_[i];
      r.executionPhase = phaseOf_[i];
      r.firstTile = p.firstTile;
      r.numTiles = p.numTiles;
      // Inputs on another IPU: copied over IPU-Links once per (tensor, IPU), a superstep each.
      int64_t copyCycles = 0;
      for (const auto& [t, from] : p.fromOtherIpus) {
        if (!copied.insert({t, p.ipu}).second) continue;
        const int64_t b = t->info.dataType() == DataType::STRING ? 0 : t->info.nbytes();
        copyCycles += target_.syncCycles + static_cast<int64_t>(std::ceil(static_cast<double>(b) / linkBytesPerCycle));
      }
      cy.interIpuCopies += copyCycles;
      if (!p.view) {
        r.flops = opFlops(*op);
        r.exchangeBytes = p.exchangeBytes;
        r.syncCycles = target_.syncCycles;
        r.exchangeCycles = ceilDiv(ceilDiv(p.exchangeBytes, p.numTiles), target_.exchangeBytesPerTileCycle);
        r.computeCycles = computeCycles(*op, p.numTiles) + k_.computeSetOverheadCycles;
        if (op->kind() == OpKind::GcCall) r.flops = calleeFlops(*op);
        r.cycles = r.syncCycles + r.exchangeCycles + r.computeCycles;
      }
      r.cycles += copyCycles;
      r.exchangeCycles += copyCycles;
      if (ops::acrossReplicas(*op)) {
        const int64_t sum = replicaAllReduceCycles(*op);
        r.cycles += sum;
        r.exchangeCycles += sum;
        cy.replicaAllReduce += sum;
      }
      cy.perMicroBatch += r.cycles;
      cy.perIpu[static_cast<size_t>(p.ipu)] += r.cycles;
      if (c_.pipelined) cy.stageCycles[static_cast<size_t>(std::max(r.pipelineStage, 0))] += r.cycles;
      if (r.executionPhase >= 0) c_.phases[static_cast<size_t>(r.executionPhase)].cycles += r.cycles;
      c_.ops.push_back(std::move(r));
    }
    streamingCycles(hostBytesPerCycle);
    // Host transfers per micro-batch: the inputs in, the anchors returned at every micro-batch
    // out (Final / Sum / EveryN anchors are counted at every micro-batch too: an upper bound).
    int64_t in = 0, out = 0;
    for (const TensorId& id : ir_.streamInputIds())
      if (const Tensor* t = ir_.mainGraph().tensor(id))
        if (t->info.dataType() != DataType::STRING) in += t->info.nbytes();
    for (const TensorId& id : ir_.dataFlow().anchors())
      if (const Tensor* t = ir_.mainGraph().tensor(id))
        if (t->info.dataType() != DataType::STRING) out += t->info.nbytes();
    cy.hostToDevicePerMicroBatch = transferCycles(in, hostBytesPerCycle);
    cy.deviceToHostPerMicroBatch = transferCycles(out, hostBytesPerCycle);
  }

  /// A collective between replicas (the training graph's GradientAllReduce, the Builder's
  /// replicated collectives) over each group of k replicas (all of the session's, every process's,
  /// unless the op names a group): a ring over the IPU-Links among the group's replicas in one
  /// chassis, f (r - 1) / r x bytes at half the IPU's links' bandwidth (the ring's two directions),
  /// then between the group's C chassis over their gateway links, f (C - 1) / C x bytes (each IPU
  /// sends its 1 / r share at 1 / r of the chassis' gateway), a sync each. f = 2 for an all-reduce
  /// (a reduce-scatter then an all-gather), 1 for a reduce-scatter or an all-gather (of its output).
  int64_t replicaAllReduceCycles(const Op& op) const {
    const ops::Collective c = ops::collectiveOf(op);
    const int64_t k = c.grouping.getGroupSize();
    if (k <= 1 || c.op == CollectiveOperator::Local) return 0;
    int64_t bytes = 0;
    double f = 2.0;
    if (c.kind == ops::Collective::Kind::AllGather) {
      bytes = op.outInfo(0).nbytes();
      f = 1.0;
    } else {
      for (int i = 0; i < op.numInputs(); ++i)
        if (op.hasInput(i)) bytes += op.inInfo(i).nbytes();
      if (c.kind == ops::Collective::Kind::ReduceScatter) f = 1.0;
    }
    // The group's replicas within one chassis: consecutive ones fill it, strided ones (Orthogonal)
    // are `stride` replicas apart.
    const int64_t perChassis = std::max<int64_t>(1, target_.ipusPerChassis / std::max(1, ipusPerReplica_));
    const int64_t stride = c.grouping.getStride();
    const int64_t r = std::max<int64_t>(1, std::min(k, perChassis / stride)), chassis = (k + r - 1) / r;
    const double linkBytesPerSec = target_.ipuLinksPerIpu * target_.ipuLinkBytesPerSec / 2;
    double seconds = 0;
    int64_t syncs = 0;
    if (r > 1) {
      seconds += f * static_cast<double>(r - 1) / static_cast<double>(r) * static_cast<double>(bytes) / linkBytesPerSec;
      ++syncs;
    }
    if (chassis > 1) {
      seconds += f * static_cast<double>(chassis - 1) / static_cast<double>(chassis) * static_cast<double>(bytes) /
                 target_.gatewayBytesPerSec;
      ++syncs;
    }
    const int64_t cycles = syncs * target_.syncCycles + static_cast<int64_t>(std::ceil(seconds * target_.clockHz));
    // Gradient accumulation sums the accumulators once per step, and a sharded update gathers its
    // shards once per step: per micro-batch, its share.
    if (op.attrs.getInt("stepEnd", 0) || op.attrs.getInt("oncePerStep", 0))
      return ceilDiv(cycles, std::max<int64_t>(1, ir_.options().getAccumulationFactor()));
    return cycles;
  }

  /// A transfer of `bytes` at `bytesPerCycle`, after a sync; 0 for no bytes.
  int64_t transferCycles(int64_t bytes, double bytesPerCycle) const {
    if (bytes == 0) return 0;
    return target_.syncCycles + static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / bytesPerCycle));
  }

  /// Each phase's loads from and stores to streaming memory, over the host link's bandwidth (the
  /// streaming memory sits behind the IPU's host / gateway link): part of the program's cycles.
  void streamingCycles(double bytesPerCycle) {
    report::Cycles& cy = c_.cycles;
    for (report::Phase& ph : c_.phases) {
      ph.remoteCycles =
          transferCycles(ph.remoteLoadBytes, bytesPerCycle) + transferCycles(ph.remoteStoreBytes, bytesPerCycle);
      ph.cycles += ph.remoteCycles;
      cy.streamingMemory += ph.remoteCycles;
      cy.perMicroBatch += ph.remoteCycles;
      cy.perIpu[static_cast<size_t>(ph.ipu)] += ph.remoteCycles;
    }
  }

  const Ir& ir_;
  const DeviceInfo& device_;
  const IpuTargetInfo& target_;
  ModelConstants k_;
  const std::vector<Op*>& sched_;
  report::Compilation c_;
  int ipusPerReplica_ = 1, replicas_ = 1;
  std::vector<int> ipuOf_, stageOf_, phaseOf_;  // phaseOf_: -1 without phased execution
  bool phased_ = false;
  std::vector<char> streamed_;  // per report tensor: in streaming memory
  std::vector<LiveInterval> streamedActivations_, streamedVariables_;
  std::vector<int64_t> resident_;  // per tile: the weights and constants always in tile memory
  std::unordered_map<const Op*, int> index_;
  std::unordered_map<const Tensor*, size_t> tensorIndex_;
  std::unordered_set<TensorId> initializers_;  // Ir::initializerIds, for lookups
  std::vector<const Tensor*> irTensors_;
  std::unordered_map<const Op*, std::string> node_;  // onnxNode memo
  std::map<int, int64_t> cursor_;
  std::vector<OpPlan> plans_;  // plan(i), made on first use
  std::vector<char> planned_;
};

}  // namespace

report::Compilation modelCompilation(const Ir& ir, const DeviceInfo& device, const ModelConstants& k) {
  return Modeller(ir, device, k).run();
}

report::Run modelRun(const report::Compilation& c, int64_t batches, int64_t microBatchesPerBatch) {
  report::Run run;
  const report::Cycles& cy = c.cycles;
  const int64_t io = cy.hostToDevicePerMicroBatch + cy.deviceToHostPerMicroBatch;
  run.microBatches = batches * microBatchesPerBatch;
  if (c.pipelined && !cy.stageCycles.empty()) {
    // Pipeline cycle j (0 .. N + S - 2) runs the stages s with 0 <= j - s < N in parallel; it
    // takes its slowest active stage plus a sync. The first S - 1 are the fill, the last S - 1
    // the drain (docs/ipu-model.md, "Pipelining").
    const int64_t n = run.microBatches, s = static_cast<int64_t>(cy.stageCycles.size());
    const int64_t sync = c.ops.empty() ? 0 : c.ops.front().syncCycles;
    for (int64_t j = 0; j < n + s - 1; ++j) {
      int64_t slowest = 0;
      for (int64_t st = 0; st < s; ++st)
        if (j - st >= 0 && j - st < n) slowest = std::max(slowest, cy.stageCycles[static_cast<size_t>(st)]);
      const int64_t t = slowest + sync;
      if (j < s - 1)
        run.pipelineFillCycles += t;
      else if (j >= n)
        run.pipelineDrainCycles += t;
      else
        run.pipelineSteadyCycles += t;
    }
    run.cycles = run.pipelineFillCycles + run.pipelineSteadyCycles + run.pipelineDrainCycles + run.microBatches * io;
    // The batches share the step's pipeline: each gets an equal share of it.
    for (int64_t b = 0; b < batches; ++b) run.steps.push_back({batches > 0 ? run.cycles / batches : 0});
  } else {
    for (int64_t b = 0; b < batches; ++b) run.steps.push_back({microBatchesPerBatch * (cy.perMicroBatch + io)});
    for (const report::Step& st : run.steps) run.cycles += st.cycles;
  }
  run.seconds = c.target.clockHz > 0 ? static_cast<double>(run.cycles) / c.target.clockHz : 0;
  return run;
}

}  // namespace ipu_model
}  // namespace popart
