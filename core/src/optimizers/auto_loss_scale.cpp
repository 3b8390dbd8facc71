// Automatic loss scaling: PopART's AutomaticLossScale transform (and its PreAutomaticLossScale
// check of toTrackTensors) on this runtime's training graph. See auto_loss_scale.hpp.
#include "optimizers/auto_loss_scale.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include "autodiff/autodiff.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/optim.hpp"
#include "optimizers/training_graph.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/optimizer.hpp"

namespace popart {
namespace {

constexpr const char* kFactorId = "lossScaleUpdateFactor";
constexpr const char* kPeriodCounterId = "LossScaleUpdate_counter";
constexpr const char* kStatsAccumName = "autoLossScaleStats";
/// The largest FLOAT16: the tracked gradients' range (PopART's getLevels).
constexpr float kHalfMax = 65504.0f;

const AutomaticLossScalingSettings& settings(const Ir& ir) {
  return ir.options().automaticLossScalingSettings;
}

/// PopART's view-changing ops, and those its AllNonViewChangingGradientTensors skips as unable to
/// overflow (concatenations, slices, gathers and their gradients).
bool changesNoValues(const Op& op) {
  if (op.def().view != ViewKind::None) return true;
  switch (op.kind()) {
    case OpKind::Transpose:
    case OpKind::Concat:
    case OpKind::Slice:
    case OpKind::GcSlice:
    case OpKind::SliceGrad:
    case OpKind::Gather:
    case OpKind::GatherGrad:
      return true;
    default:
      return false;
  }
}

bool isConvOrMatMul(const Op& op) {
  switch (op.kind()) {
    case OpKind::MatMul:
    case OpKind::Gemm:
    case OpKind::Conv:
    case OpKind::ConvTranspose:
    case OpKind::ConvDataGrad:
    case OpKind::ConvWeightGrad:
    case OpKind::GcMultiConv:
      return true;
    default:
      return false;
  }
}

bool allOutputsHalf(const Op& op) {
  for (const Tensor* t : op.outputs()) {
    if (t && t->info.dataType() != DataType::FLOAT16) return false;
  }
  return true;
}

bool readsVariable(const Op& op) {
  for (const Tensor* t : op.inputs()) {
    if (t && t->kind == TensorKind::Variable) return true;
  }
  return false;
}

bool hasReaders(const Op& op) {
  for (const Tensor* t : op.outputs()) {
    if (t && !t->consumers.empty()) return true;
  }
  return false;
}

/// The gradients whose histograms steer the loss scale.
std::vector<Tensor*> trackedGradients(const Ir& ir, const BackwardResult& bwd) {
  const AutomaticLossScalingSettings& s = settings(ir);
  std::vector<Tensor*> tracked;
  if (s.gradientTensorTrackingMethod == GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors) {
    for (const TensorId& id : autoLossScaleTrackedIds(ir)) {
      auto it = bwd.requestedGrads.find(id);
      if (it == bwd.requestedGrads.end())
        throw error(
            "[AutomaticLossScale transform] The tensor '{}' of 'automaticLossScalingSettings.toTrackTensors' has no "
            "gradient: it does not lead to the loss through differentiable ops, or it is not floating point",
            id);
      Tensor* g = it->second;
      if (g->info.dataType() != DataType::FLOAT16)  // PopART's getLevels
        throw error("[AutomaticLossScale transform] Unsupported data type {} for to-track tensor '{}'",
                    dataTypeToString(g->info.dataType()), g->id);
      if (std::find(tracked.begin(), tracked.end(), g) == tracked.end()) tracked.push_back(g);
    }
    return tracked;
  }
  const bool convAndMatMul = s.gradientTensorTrackingMethod == GradientTensorTrackingMethod::ConvAndMatmulGradients;
  for (Op* op : bwd.ops) {
    const bool produces = convAndMatMul
                              ? isConvOrMatMul(*op)
                              : !changesNoValues(*op) && allOutputsHalf(*op) && !readsVariable(*op) && hasReaders(*op);
    if (!produces) continue;
    for (Tensor* t : op->outputs()) {
      if (t && t->info.dataType() == DataType::FLOAT16) tracked.push_back(t);
    }
  }
  if (tracked.empty())
    throw error("[AutomaticLossScale transform] No tracked gradient tensors of type fp16 were found.");
  return tracked;
}

/// Adds an op of `kind` named `name` reading `inputs`, with one output `outId` (made unique).
Tensor* addOp1(Graph& g, OpKind kind, const std::string& name, const std::vector<Tensor*>& inputs,
               const TensorId& outId, const Attributes& attrs = {}) {
  Op& op = g.addOp(opDef(kind), name, 13);
  op.attrs = attrs;
  for (size_t i = 0; i < inputs.size(); ++i) op.connectInput(static_cast<int>(i), inputs[i]);
  Tensor& out = g.addTensor(g.uniqueTensorId(outId), TensorKind::ActGrad, TensorInfo());
  op.connectOutput(0, &out);
  op.setup();
  return &out;
}

Tensor* cast(Graph& g, Tensor* t, DataType to, const TensorId& outId) {
  if (t->info.dataType() == to) return t;
  Attributes a;
  a.set("to", int64_t(onnxDataType(to)));
  return addOp1(g, OpKind::Cast, outId, {t}, outId, a);
}

/// Consumers of `from` other than `except` read `to` instead.
void rewire(Tensor* from, Tensor* to, const Op* except) {
  const std::vector<Op*> consumers = from->consumers;
  for (Op* c : consumers) {
    if (c == except) continue;
    for (int i = 0; i < c->numInputs(); ++i) {
      if (c->hasInput(i) && c->input(i) == from) c->connectInput(i, to);
    }
  }
}

/// A zero-filled (or `value`-filled) Variable `id`; a Variable of the same type and shape the
/// model already has (a checkpoint made by modelToHost) is kept with its value, as PopART does.
Tensor& stateVariable(Graph& g, const TensorId& id, const TensorInfo& info, double value) {
  if (Tensor* t = savedStateTensor(g, id, info, "automatic loss scaling tensor")) return *t;
  Tensor& t = g.addTensor(id, TensorKind::Variable, info);
  t.data = TensorData(TensorInfo(DataType::DOUBLE, {}), &value).castTo(info.dataType());
  if (info.nelms() != 1) {
    const std::vector<double> v(static_cast<size_t>(info.nelms()), value);
    t.data = TensorData(TensorInfo(DataType::DOUBLE, info.shape()), v.data()).castTo(info.dataType());
  }
  return t;
}

/// The name of the compound scalar of an update op that holds 1 / lossScaling.
const char* inverseScaleName(const Op& op) {
  switch (op.kind()) {
    case OpKind::SGDVarUpdate: {
      const int64_t mode = op.attrs.getInt("mode", 0);
      return mode == 0 ? "scaledLearningRate0" : mode == 1 ? "dampeningScaleFactor1" : "dampeningScaleFactor2";
    }
    case OpKind::AdamVarUpdate:
      return "adamGradientScaling";
    case OpKind::AdaptiveVarUpdate:
      return "adaptiveGradientScaling";
    default:
      return nullptr;
  }
}

/// The input of `op` holding hyper-parameter `name` (-1 when it is baked in).
int scalarInput(const Op& op, const std::string& name) {
  const auto& names = optim::scalarNames(op);
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return -1;
  const int i = optim::firstScalarInput(op.kind()) + static_cast<int>(it - names.begin());
  return op.hasInput(i) ? i : -1;
}

}  // namespace

std::vector<TensorId> autoLossScaleTrackedIds(const Ir& ir) {
  const AutomaticLossScalingSettings& s = settings(ir);
  if (!s.enabled) return {};
  const bool user = s.gradientTensorTrackingMethod == GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors;
  // PopART's messages; an empty list is "unset" here (PopART's optional list).
  if (!s.toTrackTensors.empty() && !user)
    throw error(
        "[AutomaticLossScale transform] toTrackTensors has been set, but gradientTensorTrackingMethod has not been set "
        "to 'GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors'.");
  if (!user) return {};
  if (s.toTrackTensors.empty())
    throw error(
        "[AutomaticLossScale transform] gradientTensorTrackingMethod set to "
        "'GradientTensorTrackingMethod::GradientsOfUserSpecifiedTensors' but 'toTrackTensors' has not been set");
  std::vector<TensorId> ids, missing;
  for (const TensorId& id : s.toTrackTensors) {
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      logging::ir::warn(
          "[PreAutomaticLossScale] Tensor {} has been added more than once to the list of 'toTrackTensors'. Please "
          "consider removing the duplicates.",
          id);
      continue;
    }
    if (!ir.mainGraph().hasTensor(id)) {
      logging::ir::err(
          "[PreAutomaticLossScale] Tensor {}, which was added to the 'automaticLossScalingSettings.toTrackTensors' "
          "list, does not exist in the model.",
          id);
      missing.push_back(id);
      continue;
    }
    ids.push_back(id);
  }
  if (!missing.empty()) {
    std::ostringstream m;
    for (size_t i = 0; i < missing.size(); ++i) m << (i ? ", '" : "'") << missing[i] << "'";
    throw error(
        "[PreAutomaticLossScale] Some of the tensors in the 'automaticLossScalingSettings.toTrackTensors' list do not "
        "exist in the model. Please look at the error log. (Not in the model: {}.)",
        m.str());
  }
  return ids;
}

bool isAutoLossScaleStateTensorId(const TensorId& id) {
  return id == kFactorId || id == kPeriodCounterId;
}

void checkAutomaticLossScalingWithoutUpdates(const Ir& ir, const BackwardResult& bwd) {
  if (!settings(ir).enabled) return;
  trackedGradients(ir, bwd);
  logging::ir::warn("Automatic loss scaling: no weight update to scale, the loss scale stays fixed");
}

void addAutomaticLossScaling(Ir& ir, const BackwardResult& bwd, const Optimizer& opt) {
  const AutomaticLossScalingSettings& s = settings(ir);
  if (!s.enabled) return;
  Graph& g = ir.mainGraph();
  const std::vector<Tensor*> tracked = trackedGradients(ir, bwd);

  // The statistics: one histogram per tracked gradient (only on the steps that update), summed,
  // as FLOAT counts.
  Tensor* periodCounter =
      s.updatePeriod > 1 ? &stateVariable(g, kPeriodCounterId, TensorInfo(DataType::INT32, {}), 0.0) : nullptr;
  Attributes hist;
  hist.set("levels", std::vector<float>{kHalfMax * s.binEdgeLocation});
  hist.set("absoluteOfInput", int64_t(1));
  hist.set("updatePeriod", int64_t(s.updatePeriod));
  hist.set(sSchedulePriority, std::numeric_limits<float>::max());  // PopART's: the highest (as its IR shows)
  std::vector<Tensor*> counts;
  for (Tensor* t : tracked) {
    logging::ir::debug("Collecting statistics for tensor '{}' for control of loss-scale value.", t->id);
    std::vector<Tensor*> in{t};
    if (periodCounter) in.push_back(periodCounter);
    counts.push_back(addOp1(g, OpKind::Histogram, t->id + "/Histogram", in, t->id + "_statistics", hist));
  }
  Tensor* summed = addOp1(g, OpKind::Sum, "summedHistograms", counts, "summedHistograms");
  Tensor* stats = cast(g, summed, DataType::FLOAT, "summedCastedHistograms");
  // Replicas: every replica counts its own gradients; the counts are summed over the replicas (a
  // ReplicatedAllReduce) so that all of them move the loss scale alike and stay identical.
  if (ir.options().getGlobalReplicationFactor() > 1)
    stats = addOp1(g, OpKind::GcReplicatedAllReduce, "replicaSummedHistograms", {stats}, "replicaSummedHistograms");

  // The loss scale: lossScaling x factor, wherever the optimizer's loss scaling was read.
  Tensor* ls = nullptr;
  for (DataType t : {DataType::FLOAT16, DataType::FLOAT, DataType::DOUBLE, DataType::BFLOAT16}) {
    if (Tensor* c = g.tensor(Optimizer::getLossScalingTensorId(t)); c && c->kind == TensorKind::Variable) ls = c;
  }
  if (!ls) throw error("[AutomaticLossScale transform] Unable to find any loss scale tensor in graph ''");
  Tensor& factor = stateVariable(g, kFactorId, ls->info, 1.0);
  Tensor* finalLs = addOp1(g, OpKind::Mul, "finalLossScale", {ls, &factor}, "finalLossScale");
  rewire(ls, finalLs, finalLs->producer);

  // The weight updates: their 1 / lossScaling compound scalars divided by the factor, and Adam's
  // loss scaling (scaled optimizer state) multiplied by it.
  std::vector<Op*> updates;
  std::vector<Tensor*> inverse, adamScales;
  bool halfWeights = false;
  for (const auto& kv : g.ops()) {
    Op& op = *kv.second;
    if (!optim::isVarUpdate(op.kind())) continue;
    updates.push_back(&op);
    halfWeights = halfWeights || op.inType(optim::kWeight) == DataType::FLOAT16;
    const char* invName = inverseScaleName(op);
    if (!invName) throw internal_error("automatic loss scaling does not know the update {}", op.describe());
    const int inv = scalarInput(op, invName);
    if (inv < 0) throw internal_error("the update {} has no non-const inverse loss scale input", op.describe());
    if (std::find(inverse.begin(), inverse.end(), op.input(inv)) == inverse.end()) inverse.push_back(op.input(inv));
    const int adamLs = op.kind() == OpKind::AdamVarUpdate ? scalarInput(op, "lossScaling") : -1;
    if (adamLs >= 0 && std::find(adamScales.begin(), adamScales.end(), op.input(adamLs)) == adamScales.end())
      adamScales.push_back(op.input(adamLs));
  }
  std::map<DataType, Tensor*> factorAs{{factor.info.dataType(), &factor}};
  auto factorOf = [&](DataType t) {
    Tensor*& f = factorAs[t];
    if (!f) f = cast(g, &factor, t, "lossScaleUpdateFactor_cast");
    return f;
  };
  for (size_t i = 0; i < inverse.size(); ++i) {
    Tensor* t = inverse[i];
    Tensor* out = addOp1(g, OpKind::Div, "finalInverseLossScale_" + std::to_string(i),
                         {t, factorOf(t->info.dataType())}, "finalInverseLossScale_" + std::to_string(i));
    rewire(t, out, out->producer);
  }
  for (Tensor* t : adamScales) {
    Tensor* out =
        addOp1(g, OpKind::Mul, t->id + "/finalLossScale", {t, factorOf(t->info.dataType())}, t->id + "_final");
    rewire(t, out, out->producer);
  }

  // The update of the factor, after every reader of it.
  Op& update = g.addOp(opDef(OpKind::LossScaleUpdate), "LossScaleUpdate", 1);
  update.attrs.set("thresholdUpperCountProportion", s.thresholdUpperCountProportion);
  update.attrs.set("updatePeriod", int64_t(s.updatePeriod));
  update.attrs.set("clipOutput", int64_t(ls->info.dataType() == DataType::FLOAT16 || halfWeights ? 1 : 0));
  update.connectInput(optim::kAlsFactor, &factor);
  update.connectInput(optim::kAlsLossScaling, ls);
  update.connectInput(optim::kAlsStatistics, stats);
  const int64_t af = opt.gradientAccumulationEnabled() ? opt.getAccumulationFactor() : 1;
  if (af > 1) {
    Tensor* counter = g.tensor(kAccumulationCounterId);
    if (!counter) throw internal_error("gradient accumulation without the counter '{}'", kAccumulationCounterId);
    update.attrs.set("accumulationFactor", af);
    update.connectInput(optim::kAlsStatsAccum,
                        &stateVariable(g, std::string(reservedAccumPrefix()) + kStatsAccumName, stats->info, 0.0));
    update.connectInput(optim::kAlsCounter, counter);
  }
  if (periodCounter) update.connectInput(optim::kAlsPeriodCounter, periodCounter);
  update.setup();
  for (Op* c : factor.consumers) {
    if (c != &update) update.after.push_back(c);
  }
  if (periodCounter) {
    for (Op* c : periodCounter->consumers) {
      if (c != &update) update.after.push_back(c);
    }
  }
  // The accumulation counter advances after it, as after the weight updates.
  for (const auto& kv : g.ops()) {
    if (kv.second->kind() == OpKind::AccumulationCounterIncrement) kv.second->after.push_back(&update);
  }
  logging::ir::info(
      "Automatic loss scaling: {} tracked gradients, {} inverse loss scale tensors over {} weight updates, update "
      "every {} step(s)",
      tracked.size(), inverse.size(), updates.size(), s.updatePeriod);
}

}  // namespace popart
