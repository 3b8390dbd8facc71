// Weight updates: one in-place update op per trainable weight (ops/optim.hpp), scheduled after
// every other reader of the weight (forward and backward), with its optimizer state as Variable
// tensors and its non-const hyper-parameters as scalar Variable tensors.
#include "optimizers/training_graph.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "autodiff/autodiff.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/optim.hpp"
#include "optimizers/auto_loss_scale.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/clipnormsettings.hpp"
#include "popart/commgroup.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/op/collectives/collectives.hpp"
#include "popart/sgd.hpp"

namespace popart {

Tensor* savedStateTensor(Graph& g, const TensorId& id, const TensorInfo& info, const char* what) {
  Tensor* t = g.tensor(id);
  if (!t) return nullptr;
  // The import makes an integer initializer (a counter) a constant: nothing of the model reads
  // it, so it becomes the state it was saved as.
  if (t->kind == TensorKind::Const && t->info == info && t->data && t->consumers.empty() && !t->producer)
    t->kind = TensorKind::Variable;
  if (t->kind == TensorKind::Variable && t->info == info && t->data && t->consumers.empty() && !t->producer) return t;
  throw error("The {} '{}' ({}) clashes with a tensor of the model ({})", what, id, info.toString(),
              t->info.toString());
}

namespace {

TensorData scalarData(double v, DataType t) {
  return TensorData(TensorInfo(DataType::DOUBLE, {}), &v).castTo(t);
}

DataType orWeightType(DataType requested, const Tensor& w) {
  return requested == DataType::UNDEFINED ? w.info.dataType() : requested;
}

int sgdMode(const SGD& sgd, const TensorId& w) {
  if (!sgd.hasMomentum(w)) return 0;
  return sgd.getSGDAccumulatorAndMomentum() == SGDAccumulatorAndMomentum::Combined ? 1 : 2;
}

/// A hyper-parameter of one update op: its value (computed in double from the optimizer's
/// values, as optimizer_math does) and whether it is baked in.
struct ScalarValue {
  double value;
  bool isConst;
};

double d(const OptimizerValue& v) {
  return static_cast<double>(v.val());
}

/// The hyper-parameter values of an update op of kind `k` (and `mode`) for weight `w`, in the
/// order of optim::scalarNames. Const-ness is that of the optimizer's compound scalars.
std::vector<ScalarValue> scalarValues(const Optimizer& opt, OpKind k, int mode, const TensorId& w) {
  switch (k) {
    case OpKind::SGDVarUpdate: {
      if (opt.type() != OptimizerType::SGD) break;
      const auto& sgd = static_cast<const SGD&>(opt);
      const SGD::WeightValues v = sgd.getWeightValues(w);
      const double lr = d(v.learningRate), wd = d(v.weightDecay), mm = d(v.momentum), dm = d(v.dampening);
      const double vs = d(v.velocityScaling), ls = d(v.lossScaling);
      const double af = static_cast<double>(sgd.meanAccumulationFactor());
      const double rf = static_cast<double>(sgd.sgd1ReplicationFactor());
      const double gs = 1.0 / (ls * af);
      const double swd1 = (1.0 - dm) * wd * vs;
      if (mode == 0)
        return {{lr * (1.0 - dm) * gs, sgd.scaledLearningRate0(w).isConst()},
                {1.0 - lr * (1.0 - dm) * wd, sgd.weightDecayScaleFactor0(w).isConst()}};
      if (mode == 1)
        return {{lr / (vs * rf), sgd.scaledLearningRate1(w).isConst()},
                {(1.0 - dm) * vs * rf * gs, sgd.dampeningScaleFactor1(w).isConst()},
                {mm / rf, sgd.scaledMomentum1(w).isConst()},
                {swd1, sgd.scaledWeightDecay1(w).isConst()}};
      return {{lr / vs, sgd.scaledLearningRate2(w).isConst()},
              {(1.0 - dm) * vs * gs, sgd.dampeningScaleFactor2(w).isConst()},
              {mm, sgd.scaledMomentum2(w).isConst()},
              {swd1, sgd.scaledWeightDecay1(w).isConst()}};
    }
    case OpKind::AdamVarUpdate: {
      if (opt.type() != OptimizerType::Adam) break;
      const auto& adam = static_cast<const Adam&>(opt);
      const Adam::WeightValues v = adam.getWeightValues(w);
      const double af = adam.postMeanAccumulationEnabled() ? static_cast<double>(adam.getAccumulationFactor()) : 1.0;
      auto sv = [](const OptimizerValue& x) { return ScalarValue{d(x), x.isConst()}; };
      return {sv(v.learningRate),
              sv(v.weightDecay),
              sv(v.beta1),
              sv(v.beta2),
              sv(v.eps),
              sv(v.maxWeightNorm),
              {1.0 / (d(v.lossScaling) * af), adam.gradientScaling(w).isConst()},
              sv(v.lossScaling)};
    }
    case OpKind::AdaptiveVarUpdate: {
      if (opt.type() != OptimizerType::Adaptive) break;
      const auto& ada = static_cast<const Adaptive&>(opt);
      const Adaptive::WeightValues v = ada.getWeightValues(w);
      const double af = ada.postMeanAccumulationEnabled() ? static_cast<double>(ada.getAccumulationFactor()) : 1.0;
      auto sv = [](const OptimizerValue& x) { return ScalarValue{d(x), x.isConst()}; };
      return {sv(v.learningRate), sv(v.weightDecay), sv(v.alpha),
              sv(v.momentum),     sv(v.eps),         {1.0 / (d(v.lossScaling) * af), ada.gradientScaling(w).isConst()}};
    }
    default:
      break;
  }
  throw internal_error("the {} optimizer does not match the update op {}", opt.type_s(), opDef(k).type);
}

/// The type of the hyper-parameter tensors of a weight: its own, FLOAT for 16-bit weights.
DataType scalarType(const Tensor& w) {
  return w.info.dataType() == DataType::DOUBLE ? DataType::DOUBLE : DataType::FLOAT;
}

/// Builds the update ops of one training graph.
class UpdateBuilder {
 public:
  UpdateBuilder(Graph& g, const Optimizer& opt) : g_(g), opt_(opt) {}

  /// Replicated tensor sharding (shardedWeights): w's update runs on this replica's shard of w
  /// (a ReplicatedReduceScatter Local over the `replicas` consecutive replicas of its sharding
  /// domain), its optimizer state held in shards; `grad` is then the gradient's shard.
  void shard(const TensorId& w, int64_t replicas) { shards_[w] = replicas; }
  int64_t shards(const TensorId& w) const {
    auto it = shards_.find(w);
    return it == shards_.end() ? 0 : it->second;
  }

  void add(Tensor& w, Tensor& grad) {
    target_ = &w;
    shardCount_ = shards(w.id);
    if (shardCount_) target_ = shardOfWeight(w, grad);
    switch (opt_.type()) {
      case OptimizerType::SGD:
        addSGD(static_cast<const SGD&>(opt_), w, grad);
        break;
      case OptimizerType::Adam:
        addAdam(static_cast<const Adam&>(opt_), w, grad);
        break;
      case OptimizerType::Adaptive:
        addAdaptive(static_cast<const Adaptive&>(opt_), w, grad);
        break;
      default:
        throw error("The {} optimizer is not supported by this runtime's training", opt_.type_s());
    }
    if (shardCount_) gatherIntoWeight(w);
    target_ = nullptr;
    shardCount_ = 0;
  }

  /// Gradient clipping with gradient accumulation: the accumulator Accum___w takes the
  /// micro-batches' gradients in a GradAccumulate op (PopART's AccumulateOp) ahead of the update,
  /// so that the clipping sees the whole accumulated gradient; w's update then reads the clipped
  /// accumulator on the last micro-batch (preAccumulated). Returns the accumulator and the op.
  std::pair<Tensor*, Op*> accumulate(Tensor& w, Tensor& grad) {
    shardCount_ = shards(w.id);  // a sharded update's gradient is a shard: so is its accumulator
    Tensor& acc = state(reservedAccumPrefix(), w, orWeightType(accumType(), w));
    shardCount_ = 0;
    preAccumulated_[w.id] = acc.id;
    Op& op = g_.addOp(opDef(OpKind::GradAccumulate), w.id + "/Accumulate", 1);
    op.attrs.set("accumulationFactor", opt_.getAccumulationFactor());
    op.attrs.set("runningMean", int64_t(runningMean() ? 1 : 0));
    op.connectInput(optim::kGaAccum, &acc);
    op.connectInput(optim::kGaGrad, &grad);
    op.connectInput(optim::kGaCounter, &counter());
    op.setup();
    updates_.push_back(&op);  // before the counter moves on
    return {&acc, &op};
  }

  /// Whether w's update accumulates the micro-batches' gradients into its optimizer state (SGD's
  /// Combined velocity without nesterov) rather than into an accumulator.
  bool accumulatesIntoState(const TensorId& w) const {
    if (opt_.type() != OptimizerType::SGD) return false;
    const auto& sgd = static_cast<const SGD&>(opt_);
    return sgdMode(sgd, w) == 1 && !sgd.enableNesterov(w);
  }

  /// Whether accumulate() made w's accumulator.
  bool accumulated(const TensorId& w) const { return preAccumulated_.count(w) != 0; }

  /// With gradient accumulation: the counter increment, after every update.
  void finish() {
    if (!counter_) return;
    Op& op = g_.addOp(opDef(OpKind::AccumulationCounterIncrement), "AccumulationCounterIncrement", 1);
    op.attrs.set("accumulationFactor", opt_.getAccumulationFactor());
    op.connectInput(0, counter_);
    op.setup();
    op.after = updates_;
  }

 private:
  /// A zero-initialised Variable state tensor `prefix + w`, or the model's saved one (resumed).
  /// With replicated tensor sharding a state shaped like w is held in shards (Tensor::shardedData).
  Tensor& state(const char* prefix, const Tensor& w, DataType type, const Shape& shape) {
    const TensorId id = prefix + w.id;
    const TensorInfo info(type, shape);
    stateIds_.push_back(id);
    Tensor* t = savedStateTensor(g_, id, info, "optimizer state tensor");
    if (t) {
      resumed_.insert(t);
    } else {
      t = &g_.addTensor(id, TensorKind::Variable, info);
      t->data = TensorData(info);
    }
    if (shardCount_ && shape == w.info.shape() && std::string(prefix) != reservedStepPrefix()) {
      t->info = TensorInfo(type, {(info.nelms() + shardCount_ - 1) / shardCount_});
      t->shardReplicas = shardCount_;
      t->shardedData = std::move(*t->data);
      t->data = shardOf(*t->shardedData, shardCount_, 0);
    }
    return *t;
  }
  /// A state's start value (the whole of it, shaped like w).
  static void setStart(Tensor& t, TensorData whole) {
    if (t.shardReplicas) {
      t.data = shardOf(whole, t.shardReplicas, 0);
      t.shardedData = std::move(whole);
    } else {
      t.data = std::move(whole);
    }
  }
  /// Whether state() took a saved value (its start value is not to be recomputed).
  bool resumed(const Tensor& t) const { return resumed_.count(&t) != 0; }
  Tensor& state(const char* prefix, const Tensor& w, DataType type) { return state(prefix, w, type, w.info.shape()); }

  Op& newOp(OpKind k, Tensor& w, Tensor& grad, int mode) {
    Op& op = g_.addOp(opDef(k), w.id + "/" + opDef(k).type, 1);
    op.attrs.set("mode", int64_t(mode));
    op.connectInput(optim::kWeight, target_ ? target_ : &w);
    op.connectInput(optim::kGrad, &grad);
    stateIds_.clear();
    return op;
  }

  bool runningMean() const { return opt_.meanReductionEnabled() && !opt_.postMeanAccumulationEnabled(); }

  /// The micro-batch counter of gradient accumulation, made on first use.
  Tensor& counter() {
    if (!counter_) {
      if (g_.hasTensor(kAccumulationCounterId))
        throw error("The tensor '{}' clashes with a tensor of the model", kAccumulationCounterId);
      counter_ = &g_.addTensor(kAccumulationCounterId, TensorKind::Variable, TensorInfo(DataType::INT64, {}));
      counter_->data = TensorData::scalarInt64(0);
    }
    return *counter_;
  }

  /// The optimizer's accumulator type (UNDEFINED: the weight's).
  DataType accumType() const {
    switch (opt_.type()) {
      case OptimizerType::SGD:
        return static_cast<const SGD&>(opt_).getSGDAccumType();
      case OptimizerType::Adam:
        return static_cast<const Adam&>(opt_).getAccumType();
      case OptimizerType::Adaptive:
        return static_cast<const Adaptive&>(opt_).getAccumType();
      default:
        return DataType::UNDEFINED;
    }
  }

  /// Gradient accumulation: the counter and, if `accumulator`, Accum___w (unless accumulate()
  /// made it: the gradient is the accumulator then).
  void connectAccumulation(Op& op, const Tensor& w, bool accumulator) {
    if (!opt_.gradientAccumulationEnabled()) return;
    op.attrs.set("accumulationFactor", opt_.getAccumulationFactor());
    op.attrs.set("runningMean", int64_t(runningMean() ? 1 : 0));
    op.connectInput(optim::kCounter, &counter());
    auto pre = preAccumulated_.find(w.id);
    if (pre != preAccumulated_.end()) {
      op.attrs.set("preAccumulated", int64_t(1));
      stateIds_.push_back(pre->second);
      return;
    }
    if (accumulator) op.connectInput(optim::kAccum, &state(reservedAccumPrefix(), w, orWeightType(accumType(), w)));
  }

  /// The hyper-parameters: const values as attributes, the others as scalar tensors.
  void connectScalars(Op& op, const Tensor& w) {
    const auto& names = optim::scalarNames(op);
    const auto values = scalarValues(opt_, op.kind(), static_cast<int>(op.attrs.getInt("mode", 0)), w.id);
    const int first = optim::firstScalarInput(op.kind());
    for (size_t k = 0; k < names.size(); ++k) {
      if (values[k].isConst) {
        op.attrs.set(names[k], scalarData(values[k].value, DataType::DOUBLE));
        continue;
      }
      const TensorId id = opt_.hasSpecific(w.id) ? names[k] + "___specific___" + w.id
                                                 : names[k] + "___default___" + dataTypeToString(w.info.dataType());
      Tensor* t = g_.tensor(id);
      if (!t) {
        t = &g_.addTensor(id, TensorKind::Variable, TensorInfo(scalarType(w), {}));
        t->data = scalarData(values[k].value, scalarType(w));
        scalarIds_.insert(id);
      } else if (!scalarIds_.count(id)) {
        throw error("The optimizer tensor '{}' clashes with a tensor of the model", id);
      }
      op.connectInput(first + static_cast<int>(k), t);
    }
  }

  /// Runs setup, orders the op after every other reader of the weight and checks that the state
  /// tensors made are the optimizer's.
  void done(Op& op, const Tensor& w) {
    op.setup();
    for (Op* c : (target_ ? target_ : &w)->consumers) {
      if (c != &op) op.after.push_back(c);
    }
    updates_.push_back(&op);
    std::vector<TensorId> expected = opt_.getStateTensorIds(w.id), made = stateIds_;
    std::sort(expected.begin(), expected.end());
    std::sort(made.begin(), made.end());
    if (expected != made)
      throw internal_error("the update of '{}' made {} state tensors, but the {} optimizer lists {}", w.id, made.size(),
                           opt_.type_s(), expected.size());
  }

  void addSGD(const SGD& sgd, Tensor& w, Tensor& grad) {
    const int mode = sgdMode(sgd, w.id);
    const bool nesterov = mode != 0 && sgd.enableNesterov(w.id);
    Op& op = newOp(OpKind::SGDVarUpdate, w, grad, mode);
    op.attrs.set("nesterov", int64_t(nesterov ? 1 : 0));
    // SGD1 accumulates into its velocity; it keeps the raw sum only for nesterov.
    connectAccumulation(op, w, mode != 1 || nesterov);
    if (mode == 1) {
      // The Combined velocity holds mm·v + (1-dm)·wd·vs·w between steps; v starts at 0.
      Tensor& v = state(reservedAcclPrefix(), w, w.info.dataType());
      const SGD::WeightValues h = sgd.getWeightValues(w.id);
      const double f = (1.0 - static_cast<double>(h.dampening.val())) * static_cast<double>(h.weightDecay.val()) *
                       static_cast<double>(h.velocityScaling.val());
      if (f != 0.0 && w.data && !resumed(v)) {
        std::vector<double> w0 = w.data->toDouble();
        for (double& x : w0) x *= f;
        setStart(v, TensorData(TensorInfo(DataType::DOUBLE, w.info.shape()), w0.data()).castTo(w.info.dataType()));
      }
      op.connectInput(optim::kState0, &v);
    } else if (mode == 2) {
      op.connectInput(optim::kState0, &state(reservedAccl1Prefix(), w, orWeightType(sgd.getSGD2Accl1Type(), w)));
    }
    connectScalars(op, w);
    done(op, w);
  }

  void addAdam(const Adam& adam, Tensor& w, Tensor& grad) {
    Op& op = newOp(OpKind::AdamVarUpdate, w, grad, static_cast<int>(adam.getMode()));
    op.attrs.set("decayMode", int64_t(adam.getWeightDecayMode() == WeightDecayMode::L2Regularization ? 1 : 0));
    op.attrs.set("scaledOptimizerState", int64_t(adam.useScaledOptimizerState() ? 1 : 0));
    connectAccumulation(op, w, true);
    op.connectInput(optim::kState0, &state(reservedAccl1Prefix(), w, orWeightType(adam.getAccl1Type(), w)));
    op.connectInput(optim::kState0 + 1, &state(reservedAccl2Prefix(), w, orWeightType(adam.getAccl2Type(), w)));
    if (adam.hasStepCounter())
      op.connectInput(optim::kState0 + 2, &state(reservedStepPrefix(), w, DataType::FLOAT, {}));
    connectScalars(op, w);
    done(op, w);
  }

  void addAdaptive(const Adaptive& ada, Tensor& w, Tensor& grad) {
    const AdaptiveMode mode = ada.getMode();
    Op& op = newOp(OpKind::AdaptiveVarUpdate, w, grad, static_cast<int>(mode));
    op.attrs.set("decayMode", int64_t(ada.getWeightDecayMode() == WeightDecayMode::L2Regularization ? 1 : 0));
    op.attrs.set("tfVariant", int64_t(ada.getRmspropTFVariant() ? 1 : 0));
    connectAccumulation(op, w, true);
    Tensor& accl1 = state(reservedAccl1Prefix(), w, orWeightType(ada.getAccl1Type(), w));
    if (ada.getRmspropTFVariant() && !resumed(accl1)) {
      // TensorFlow's RMSProp starts its mean square at 1, not 0 (PopART's AdaptiveDecompose).
      const std::vector<double> ones(static_cast<size_t>(w.info.nelms()), 1.0);
      setStart(accl1,
               TensorData(TensorInfo(DataType::DOUBLE, w.info.shape()), ones.data()).castTo(accl1.info.dataType()));
    }
    op.connectInput(optim::kState0, &accl1);
    if (mode == AdaptiveMode::CenteredRMSProp || mode == AdaptiveMode::AdaDelta)
      op.connectInput(optim::kState0 + 1, &state(reservedAccl2Prefix(), w, orWeightType(ada.getAccl2Type(), w)));
    if (ada.hasMomentum(w.id))
      op.connectInput(optim::kState0 + 2, &state(reservedAccl3Prefix(), w, orWeightType(ada.getAccl3Type(), w)));
    connectScalars(op, w);
    done(op, w);
  }

  Graph& g_;
  const Optimizer& opt_;
  Tensor* counter_ = nullptr;
  std::vector<Op*> updates_;
  std::vector<TensorId> stateIds_;
  std::set<TensorId> scalarIds_;
  std::map<TensorId, TensorId> preAccumulated_;  // weight -> its accumulate()d Accum___w
  std::set<const Tensor*> resumed_;              // state tensors the model saved
  std::map<TensorId, int64_t> shards_;           // sharded weights -> their sharding domain's size
  Tensor* target_ = nullptr;                     // what the update being built writes (w or its shard)
  int64_t shardCount_ = 0;                       // its sharding domain's size (0: not sharded)

  /// This replica's shard of w: a ReplicatedReduceScatter with the Local operator (each replica
  /// keeps its own part) over the consecutive replicas of w's sharding domain, after the gradient.
  Tensor* shardOfWeight(Tensor& w, Tensor& grad) {
    GraphEditor e(g_, w.id + "/Shard");
    Attributes a;
    a.set("__collectiveOperator", static_cast<int64_t>(CollectiveOperator::Local));
    a.set("commGroup", std::vector<int64_t>{static_cast<int64_t>(CommGroupType::Consecutive), shardCount_});
    a.set("oncePerStep", int64_t{1});
    Tensor* shard = e.add1(OpKind::GcReplicatedReduceScatter, {&w}, a);
    if (grad.producer) shard->producer->after.push_back(grad.producer);
    return shard;
  }

  /// The updated shards gathered (ReplicatedAllGather over the sharding domain), their padding cut,
  /// back into w (CopyVarUpdate, after every other reader of w).
  void gatherIntoWeight(Tensor& w) {
    Op* update = updates_.back();
    GraphEditor e(g_, w.id + "/Gather");
    Attributes a;
    a.set("commGroup", std::vector<int64_t>{static_cast<int64_t>(CommGroupType::Consecutive), shardCount_});
    a.set("oncePerStep", int64_t{1});
    Tensor* all = e.add1(OpKind::GcReplicatedAllGather, {target_}, a);
    all->producer->after.push_back(update);
    const int64_t n = w.info.nelms();
    if (all->info.nelms() != n) all = e.slice(all, 0, 0, n);
    Tensor* value = e.reshape(all, w.info.shape());
    Op& copy = g_.addOp(opDef(OpKind::CopyVarUpdate), w.id + "/CopyVarUpdate", 1);
    copy.connectInput(0, &w);
    copy.connectInput(1, value);
    copy.setup();
    for (Op* c : w.consumers) {
      if (c != &copy) copy.after.push_back(c);
    }
    updates_.push_back(&copy);
  }
};

/// A non-const loss scaling: the seed of the backward pass becomes the Variable
/// "lossScaling_<type>", so that updateOptimizerFromHost can change it.
void makeLossScalingTensor(Graph& g, const TensorId& loss, const Optimizer& opt) {
  if (opt.lossScaling().isConst()) return;
  Tensor* seed = g.tensor(loss + "/grad/seed");
  if (!seed || seed->kind != TensorKind::Const || seed->producer)
    throw internal_error("the seed of the backward pass of '{}' was not found", loss);
  const TensorId id = Optimizer::getLossScalingTensorId(seed->info.dataType());
  if (g.hasTensor(id)) throw error("The loss scaling tensor '{}' clashes with a tensor of the model", id);
  Tensor& t = g.addTensor(id, TensorKind::Variable, seed->info);
  t.data = scalarData(opt.getLossScalingVal(), seed->info.dataType());
  const std::vector<Op*> consumers = seed->consumers;
  for (Op* op : consumers) {
    for (int i = 0; i < op->numInputs(); ++i) {
      if (op->input(i) == seed) op->connectInput(i, &t);
    }
  }
  g.removeTensor(seed->id);
}

/// BatchNormalization in training mode (training_mode = 1, or the pre-14 form with its running
/// statistics outputs) writes its running mean and variance back into its mean / var inputs when
/// those are weights, as PopART does: a CopyVarUpdate after every reader of each.
void addRunningStatisticsUpdates(Graph& g) {
  std::vector<Op*> bns;
  for (const auto& kv : g.ops()) {
    Op& op = *kv.second;
    if (op.kind() != OpKind::BatchNormalization && op.kind() != OpKind::GcBatchNormalization) continue;
    const bool training = op.opset() >= 14 ? op.attrs.getInt("training_mode", 0) != 0 : op.numOutputs() > 1;
    if (training) bns.push_back(&op);
  }
  int n = 0;
  for (Op* bn : bns) {
    for (int i : {1, 2}) {
      Tensor* var = bn->input(2 + i);
      if (!bn->hasOutput(i) || var->kind != TensorKind::Variable) continue;
      Op& op = g.addOp(opDef(OpKind::CopyVarUpdate), var->id + "/CopyVarUpdate", 1);
      op.connectInput(0, var);
      op.connectInput(1, bn->output(i));
      op.setup();
      for (Op* c : var->consumers) {
        if (c != &op) op.after.push_back(c);
      }
      ++n;
    }
  }
  if (n) logging::ir::info("BatchNormalization: {} running statistics written back after each step", n);
}

/// The Variable loss scaling tensor of a non-const loss scaling (makeLossScalingTensor).
Tensor* lossScalingTensor(Graph& g) {
  for (DataType t : {DataType::FLOAT, DataType::FLOAT16, DataType::DOUBLE, DataType::BFLOAT16}) {
    if (Tensor* ls = g.tensor(Optimizer::getLossScalingTensorId(t))) return ls;
  }
  throw internal_error("the loss scaling tensor was not found");
}

/// Gradient clipping by global norm (ClipNormSettings, PopART's ClipWeightGradientsByNorm): for
/// each group the gradients the updates consume are multiplied by maxNorm / max(norm, maxNorm),
/// with `norm` the L2 norm of the group's gradients without loss scaling. The Gradient___w
/// tensors keep the unclipped values. With gradient accumulation the clipping acts on the
/// accumulated gradients (the sum, or the mean with a mean reduction), on the last micro-batch.
void addGradientClipping(Graph& g, const Optimizer& opt, std::map<TensorId, Tensor*>& grads, UpdateBuilder& updates) {
  const auto& settings = opt.getClipNormSettings();
  if (settings.empty()) return;
  std::set<TensorId> clipped;
  for (size_t k = 0; k < settings.size(); ++k) {
    const ClipNormSettings& s = settings[k];
    std::vector<TensorId> ids;
    if (s.getMode() == ClipNormSettings::Mode::ClipAllWeights) {
      for (const auto& kv : grads) ids.push_back(kv.first);
    } else {
      ids = s.getWeightIds();
    }
    if (ids.empty()) throw error("ClipNormSettings {} names no weights", k);
    if (!(s.getMaxNorm() > 0.0f))
      throw error("ClipNormSettings {}: the maximum norm must be positive, not {}", k, s.getMaxNorm());
    GraphEditor e(g, "ClipNorm" + std::to_string(k));
    std::vector<Tensor*> squares;
    std::map<TensorId, Op*> accumulateOps;
    // A reader of an accumulator runs after the micro-batch's accumulation.
    auto afterAccumulation = [&](Tensor* read, const TensorId& id) {
      auto a = accumulateOps.find(id);
      if (a != accumulateOps.end()) read->producer->after.push_back(a->second);
    };
    DataType type = DataType::UNDEFINED;
    for (const TensorId& id : ids) {
      auto it = grads.find(id);
      if (it == grads.end())
        throw error("ClipNormSettings {}: '{}' is not a trainable weight of the model that leads to the loss", k, id);
      if (!clipped.insert(id).second) throw error("ClipNormSettings: the weight '{}' is in more than one group", id);
      if (opt.gradientAccumulationEnabled() && !updates.accumulated(id)) {
        const auto acc = updates.accumulate(g.getTensor(id), *it->second);
        it->second = acc.first;
        accumulateOps[id] = acc.second;
      }
      const DataType t = it->second->info.dataType();
      if (type == DataType::UNDEFINED) type = t;
      if (t != type)
        throw error("ClipNormSettings {}: the gradients of one group must have one type, but '{}' is {} and others {}",
                    k, id, dataTypeToString(t), dataTypeToString(type));
      Attributes a;
      a.set("keepdims", int64_t(0));
      squares.push_back(e.add1(OpKind::ReduceSumSquare, {it->second}, a));
      afterAccumulation(squares.back(), id);
      if (const int64_t shards = updates.shards(id)) {
        // A sharded update's gradient is this replica's shard: its sum of squares over the shards.
        Attributes r;
        r.set("__collectiveOperator", static_cast<int64_t>(CollectiveOperator::Add));
        r.set("commGroup", std::vector<int64_t>{static_cast<int64_t>(CommGroupType::Consecutive), shards});
        if (opt.gradientAccumulationEnabled()) r.set("stepEnd", int64_t{1});
        squares.back() = e.add1(OpKind::GcReplicatedAllReduce, {squares.back()}, r);
      }
    }
    Tensor* total = squares.size() == 1 ? squares[0] : e.add1(OpKind::Sum, squares);
    Tensor* norm = e.add1(OpKind::Sqrt, {total});
    // The gradients carry the loss scaling: compare their norm with maxNorm * lossScaling.
    Tensor* ls = opt.lossScaling().isConst() ? nullptr : lossScalingTensor(g);
    Tensor* limit = e.constant(
        static_cast<double>(s.getMaxNorm()) * (ls ? 1.0 : static_cast<double>(opt.getLossScalingVal())), type);
    if (ls) {
      if (ls->info.dataType() != type) {
        Attributes a;
        a.set("to", int64_t(onnxDataType(type)));
        ls = e.add1(OpKind::Cast, {ls}, a);
      }
      limit = e.add1(OpKind::Mul, {limit, ls});
    }
    Tensor* factor = e.add1(OpKind::Div, {limit, e.add1(OpKind::Max, {norm, limit})});
    for (const TensorId& id : ids) {
      grads[id] = e.add1(OpKind::Mul, {grads[id], factor});
      afterAccumulation(grads[id], id);
    }
  }
  logging::ir::info("Gradient clipping: {} groups, {} weights", settings.size(), clipped.size());
}

/// Replicated tensor sharding of w's update (SessionOptions' optimizer-state or weight
/// TensorLocation with replicatedTensorSharding On, w at least minElementsForReplicatedTensorSharding
/// elements): the size of its sharding domain (consecutive replicas of this process), 0 when its
/// update is not sharded.
int64_t shardingOf(const SessionOptions& o, const Tensor& w) {
  const int64_t local = o.getReplicationFactor(), global = o.getGlobalReplicationFactor();
  const TensorLocationSettings* which = nullptr;
  for (const TensorLocationSettings* s : {&o.optimizerStateTensorLocationSettings, &o.weightTensorLocationSettings}) {
    if (s->location.replicatedTensorSharding == ReplicatedTensorSharding::On &&
        w.info.nelms() >= s->minElementsForReplicatedTensorSharding) {
      which = s;
      break;
    }
  }
  if (!which || local <= 1) return 0;
  // Weights grouped by VariableSettings keep their updates whole.
  if (w.variableSettings && w.variableSettings->getReplicaGrouping(static_cast<unsigned>(global)).getNumGroups() > 1)
    return 0;
  const CommGroup& d = which->location.shardingDomain;
  int64_t k = 0;
  if (d.type == CommGroupType::All) {
    if (global > local)
      throw error(
          "Replicated tensor sharding of '{}' over all {} replicas of a distributed session is not supported (each "
          "process holds whole tensors): set the TensorLocation's shardingDomain to CommGroup(Consecutive, {}), the "
          "replicas of one process",
          w.id, global, local);
    k = local;
  } else if (d.type == CommGroupType::Consecutive) {
    k = d.replicaGroupSize;
    if (k < 1 || local % k != 0)
      throw error(
          "The replicated tensor sharding domain of '{}', CommGroup(Consecutive, {}), must split this process's {} "
          "replicas into groups of equal size",
          w.id, k, local);
  } else if (d.type == CommGroupType::None) {
    return 0;
  } else {
    throw error(
        "Replicated tensor sharding of '{}' over CommGroup({}, {}) is not supported: the sharding domain is All or "
        "Consecutive replicas",
        w.id, commGroupTypeName(d.type), d.replicaGroupSize);
  }
  return k > 1 ? k : 0;
}

/// The gradient of a weight whose update is sharded over `k` consecutive replicas: this replica's
/// shard of the sum over every replica (a ReplicatedReduceScatter over its sharding domain, then,
/// with several domains, a ReplicatedAllReduce among the replicas holding the same shard), the mean
/// with ReductionType::Mean. `stepEnd`: the accumulators' sum, once per step.
Tensor* shardedGradient(Graph& g, const Optimizer& opt, Tensor* grad, int64_t k, bool stepEnd,
                        const std::vector<Op*>& accumulations) {
  const int64_t global = g.ir().options().getGlobalReplicationFactor();
  GraphEditor e(g, grad->id + "/ReduceScatter");
  auto collective = [&](OpKind kind, Tensor* in, CommGroupType type, int64_t size) {
    Attributes a;
    a.set("__collectiveOperator", static_cast<int64_t>(CollectiveOperator::Add));
    a.set("commGroup", std::vector<int64_t>{static_cast<int64_t>(type), size});
    if (stepEnd) a.set("stepEnd", int64_t{1});
    Tensor* out = e.add1(kind, {in}, a);
    if (stepEnd) out->producer->after.insert(out->producer->after.end(), accumulations.begin(), accumulations.end());
    return out;
  };
  Tensor* s = collective(OpKind::GcReplicatedReduceScatter, grad, CommGroupType::Consecutive, k);
  if (global > k) s = collective(OpKind::GcReplicatedAllReduce, s, CommGroupType::Orthogonal, global / k);
  if (opt.meanReductionEnabled()) {
    Attributes a;
    a.set("scale", 1.0f / static_cast<float>(global));
    s = e.add1(OpKind::GcScale, {s}, a);
  }
  return s;
}

/// The size of the gradient buckets whose sums between processes overlap the backward pass.
constexpr int64_t kOverlapBucketBytes = int64_t{4} << 20;

/// Replicated training: a GradientAllReduce takes the weights' gradients and gives their sum over
/// the replicas that share the weights (the mean with ReductionType::Mean), which clipping and the
/// updates then read, so those replicas apply the same update: all replicas, or for weights grouped
/// by VariableSettings the replicas of each group (one GradientAllReduce per grouping). With
/// gradient accumulation the micro-batches' gradients are accumulated first (Accum___w) and the
/// accumulators are summed once per step, on the last micro-batch (attribute stepEnd: the
/// replicas' driver skips the others), which the updates then read (PopART's AccumReduce).
std::vector<Op*> reduceAcrossReplicas(Graph& g, const Optimizer& opt, std::map<TensorId, Tensor*>& grads,
                                      UpdateBuilder& updates) {
  const int64_t rf = opt.getReplicatedGraphCount();
  // With gradient accumulation the accumulators are summed (once per step); SGD's Combined velocity
  // takes each micro-batch's gradient itself, so those gradients are summed every micro-batch.
  std::vector<Op*> accumulations;
  if (opt.gradientAccumulationEnabled()) {
    for (auto& kv : grads) {
      if (updates.accumulatesIntoState(kv.first)) continue;
      const auto acc = updates.accumulate(g.getTensor(kv.first), *kv.second);
      kv.second = acc.first;
      accumulations.push_back(acc.second);
    }
  }
  // The weights by the CommGroup of the replicas sharing them ([type, size]; all: [0, 0]); those
  // whose updates are sharded take their gradient's shard instead.
  const SessionOptions& o = g.ir().options();
  std::map<std::vector<int64_t>, std::vector<TensorId>> byGroup;
  int64_t sharded = 0;
  for (auto& kv : grads) {
    const Tensor& w = g.getTensor(kv.first);
    if (const int64_t k = shardingOf(o, w)) {
      updates.shard(w.id, k);
      kv.second = shardedGradient(g, opt, kv.second, k, updates.accumulated(w.id), accumulations);
      ++sharded;
      continue;
    }
    CommGroup group;
    if (w.variableSettings) group = CommGroup(w.variableSettings->getReplicaGrouping(static_cast<unsigned>(rf)));
    // A weight of each replica's own (groups of one replica): each replica updates it alone.
    if (group.type == CommGroupType::None) continue;
    byGroup[{static_cast<int64_t>(group.type), group.type == CommGroupType::All ? 0 : group.replicaGroupSize,
             updates.accumulated(kv.first) ? 1 : 0}]
        .push_back(kv.first);
  }
  // Between processes the sum overlaps the rest of the backward pass: the gradients go in buckets
  // of about kOverlapBucketBytes in the order the backward pass makes them, each bucket's sum
  // scheduled as soon as its gradients are there (scheduleRank 0: first of the ready ops), so the
  // replicas' driver can send it while the backward pass goes on. In one process the replicas run
  // in turn, so one sum (one phase cut) is cheapest.
  if (sharded)
    logging::ir::info("Replicated tensor sharding: the updates and optimizer state of {} weights are sharded", sharded);
  const bool overlap = o.enableDistributedReplicatedGraphs && o.getGlobalReplicationFactor() > o.getReplicationFactor();
  auto madeAt = [&](const TensorId& id) {
    const Tensor* t = grads.at(id);
    return t->producer ? t->producer->id() : OpId{-1};
  };
  std::vector<std::pair<std::vector<int64_t>, std::vector<TensorId>>> buckets;
  for (auto& [key, ids] : byGroup) {
    if (!overlap) {
      buckets.emplace_back(key, ids);
      continue;
    }
    std::stable_sort(ids.begin(), ids.end(),
                     [&](const TensorId& a, const TensorId& b) { return madeAt(a) < madeAt(b); });
    int64_t bytes = 0;
    for (const TensorId& id : ids) {
      const int64_t n = grads.at(id)->info.nbytes();
      if (bytes == 0 || bytes + n > kOverlapBucketBytes) {
        buckets.emplace_back(key, std::vector<TensorId>{});
        bytes = 0;
      }
      buckets.back().second.push_back(id);
      bytes += n;
    }
  }
  std::vector<Op*> sums;
  for (const auto& [key, ids] : buckets) {
    const std::vector<int64_t> group{key[0], key[1]};
    const bool stepEnd = key[2] != 0;
    const int64_t size = group[0] == static_cast<int64_t>(CommGroupType::All) ? rf : group[1];
    std::vector<Tensor*> ins;
    for (const TensorId& id : ids) ins.push_back(grads.at(id));
    Attributes a;
    a.set("scale", opt.meanReductionEnabled() ? 1.0f / static_cast<float>(size) : 1.0f);
    a.set("replicas", size);
    if (group[0] != static_cast<int64_t>(CommGroupType::All)) a.set("commGroup", group);
    if (stepEnd) a.set("stepEnd", int64_t{1});
    GraphEditor e(g, "GradientAllReduce");
    const std::vector<Tensor*> outs = e.add(OpKind::GradAllReduce, ins, a, static_cast<int>(ins.size()));
    // The accumulators are read after this micro-batch's accumulation.
    Op* sum = outs.front()->producer;
    if (stepEnd) sum->after.insert(sum->after.end(), accumulations.begin(), accumulations.end());
    if (overlap && !stepEnd) sum->scheduleRank = 0;  // first of the ready ops: as soon as its gradients are in
    sums.push_back(sum);
    for (size_t i = 0; i < ids.size(); ++i) grads[ids[i]] = outs[i];
    logging::ir::info("Replicated training: the gradients of {} weights are summed over {} replicas{}{}", ids.size(),
                      size, opt.meanReductionEnabled() ? " (mean)" : "",
                      stepEnd ? ", their accumulators once per step" : "");
  }
  return sums;
}

}  // namespace

void addTrainingGraph(Ir& ir, const TensorId& loss, const Optimizer& optimizer) {
  const BackwardResult bwd = buildBackward(ir, loss, optimizer.lossScaling().val(), autoLossScaleTrackedIds(ir));
  Graph& g = ir.mainGraph();
  // The anchored gradients carry the loss scaling too, as PopART's do.
  if (!bwd.weightGrads.empty() || !bwd.anchoredGrads.empty()) makeLossScalingTensor(g, loss, optimizer);
  if (bwd.weightGrads.empty()) {
    // PopART trains such a model too: the forward pass (and any anchored gradient) runs and
    // nothing is updated.
    logging::ir::warn("No trainable weight leads to the loss '{}': the session runs and updates nothing", loss);
    checkAutomaticLossScalingWithoutUpdates(ir, bwd);
    return;
  }
  std::map<TensorId, Tensor*> grads = bwd.weightGrads;
  UpdateBuilder b(g, optimizer);
  std::vector<Op*> sums;
  if (optimizer.getReplicatedGraphCount() > 1) sums = reduceAcrossReplicas(g, optimizer, grads, b);
  addGradientClipping(g, optimizer, grads, b);
  for (const auto& kv : grads) b.add(g.getTensor(kv.first), *kv.second);
  addRunningStatisticsUpdates(g);
  b.finish();
  addAutomaticLossScaling(ir, bwd, optimizer);
  // Several sums (buckets): whatever reads a sum (clipping, the updates) comes after the last, in
  // the program's last phase, by when the replicas' driver has every sum in.
  if (sums.size() > 1) {
    for (Op* sum : sums) {
      for (int i = 0; i < sum->numOutputs(); ++i) {
        for (Op* c : sum->output(i)->consumers) c->after.insert(c->after.end(), sums.begin(), sums.end());
      }
    }
  }
  logging::ir::info("Training graph: {} weight updates ({})", bwd.weightGrads.size(), optimizer.type_s());
}

std::vector<TensorId> updateOptimizerTensors(Ir& ir, const Optimizer& optimizer) {
  Graph& g = ir.mainGraph();
  std::set<TensorId> ids;
  for (const auto& kv : g.ops()) {
    const Op& op = *kv.second;
    if (!optim::isVarUpdate(op.kind())) continue;
    const TensorId& w = op.input(optim::kWeight)->id;
    const auto values = scalarValues(optimizer, op.kind(), static_cast<int>(op.attrs.getInt("mode", 0)), w);
    const int first = optim::firstScalarInput(op.kind());
    for (size_t k = 0; k < values.size(); ++k) {
      Tensor* t = op.hasInput(first + static_cast<int>(k)) ? op.input(first + static_cast<int>(k)) : nullptr;
      // Automatic loss scaling reads the scalar through its factor (finalInverseLossScale_<i>).
      while (t && t->kind != TensorKind::Variable && t->producer && t->producer->hasInput(0)) t = t->producer->input(0);
      if (!t || t->kind != TensorKind::Variable) continue;
      t->data = scalarData(values[k].value, t->info.dataType());
      ids.insert(t->id);
    }
  }
  for (DataType t : {DataType::FLOAT, DataType::FLOAT16, DataType::DOUBLE, DataType::BFLOAT16}) {
    Tensor* ls = g.tensor(Optimizer::getLossScalingTensorId(t));
    if (!ls || ls->kind != TensorKind::Variable) continue;
    ls->data = scalarData(optimizer.getLossScalingVal(), t);
    ids.insert(ls->id);
  }
  return {ids.begin(), ids.end()};
}

bool isOptimizerStateTensorId(const TensorId& id) {
  if (isAutoLossScaleStateTensorId(id)) return true;
  for (const char* p : {reservedAccumPrefix(), reservedAcclPrefix(), reservedAccl1Prefix(), reservedAccl2Prefix(),
                        reservedAccl3Prefix(), reservedStepPrefix()}) {
    if (id.rfind(p, 0) == 0) return true;
  }
  return false;
}

}  // namespace popart
