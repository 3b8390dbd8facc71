// The optimizers' weight-update ops (AdamVarUpdate, AdaptiveVarUpdate; SGDVarUpdate is defined in
// ops/grad.cpp), the gradient-accumulation counter and the ops of automatic loss scaling
// (Histogram, LossScaleUpdate); the input layout of ops/optim.hpp.
#include "ops/optim.hpp"

#include <algorithm>

#include "ir/op_def.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace optim {

bool isVarUpdate(OpKind k) {
  return k == OpKind::SGDVarUpdate || k == OpKind::AdamVarUpdate || k == OpKind::AdaptiveVarUpdate;
}

int firstScalarInput(OpKind k) {
  switch (k) {
    case OpKind::SGDVarUpdate:
      return kSgdFirstScalar;
    case OpKind::AdamVarUpdate:
      return kAdamFirstScalar;
    case OpKind::AdaptiveVarUpdate:
      return kAdaptiveFirstScalar;
    default:
      break;
  }
  throw internal_error("firstScalarInput: {} is not a weight-update op", opDef(k).type);
}

const std::vector<std::string>& scalarNames(OpKind k, int mode) {
  static const std::vector<std::string> sgd0{"scaledLearningRate0", "weightDecayScaleFactor0"};
  static const std::vector<std::string> sgd1{"scaledLearningRate1", "dampeningScaleFactor1", "scaledMomentum1",
                                             "scaledWeightDecay1"};
  static const std::vector<std::string> sgd2{"scaledLearningRate2", "dampeningScaleFactor2", "scaledMomentum2",
                                             "scaledWeightDecay1"};
  static const std::vector<std::string> adam{"learningRate", "weightDecay",   "adamBeta1",           "adamBeta2",
                                             "adamEps",      "maxWeightNorm", "adamGradientScaling", "lossScaling"};
  static const std::vector<std::string> adaptive{"learningRate",     "weightDecay", "adaptiveAlpha",
                                                 "adaptiveMomentum", "adaptiveEps", "adaptiveGradientScaling"};
  switch (k) {
    case OpKind::SGDVarUpdate:
      if (mode == 0) return sgd0;
      if (mode == 1) return sgd1;
      if (mode == 2) return sgd2;
      throw internal_error("SGDVarUpdate: unknown mode {}", mode);
    case OpKind::AdamVarUpdate:
      return adam;
    case OpKind::AdaptiveVarUpdate:
      return adaptive;
    default:
      break;
  }
  throw internal_error("scalarNames: {} is not a weight-update op", opDef(k).type);
}

const std::vector<std::string>& scalarNames(const Op& op) {
  return scalarNames(op.kind(), static_cast<int>(op.attrs.getInt("mode", 0)));
}

void setupVarUpdate(Op& op, const std::vector<int>& scalarStates) {
  ops::requireFloat(op, kWeight);
  const TensorInfo& w = op.inInfo(kWeight);
  auto likeWeight = [&](int i, const char* what) {
    if (!op.hasInput(i)) return;
    ops::requireFloat(op, i);
    if (op.inShape(i) != w.shape())
      throw error("the {} {} must have the shape of the weight {}", what, op.inInfo(i).toString(), w.toString());
  };
  likeWeight(kGrad, "gradient");
  if (op.inType(kGrad) != w.dataType())
    throw error("the gradient {} must have the type of the weight {}", op.inInfo(kGrad).toString(), w.toString());
  likeWeight(kAccum, "accumulator");
  if (op.hasInput(kCounter) && (op.inType(kCounter) != DataType::INT64 || op.inInfo(kCounter).nelms() != 1))
    throw error("the accumulation counter {} must be an INT64 scalar", op.inInfo(kCounter).toString());
  if (op.hasInput(kAccum) && !op.hasInput(kCounter)) throw error("an accumulator needs the accumulation counter input");
  const int first = firstScalarInput(op.kind());
  for (int i = kState0; i < first; ++i) {
    if (!op.hasInput(i)) continue;
    if (std::find(scalarStates.begin(), scalarStates.end(), i) != scalarStates.end()) {
      ops::requireFloat(op, i);
      if (op.inInfo(i).nelms() != 1) throw error("the state input {} must be a scalar", i);
    } else {
      likeWeight(i, "optimizer state");
    }
  }
  const size_t nScalars = scalarNames(op).size();
  for (int i = first; i < op.numInputs(); ++i) {
    if (static_cast<size_t>(i - first) >= nScalars) throw error("unexpected input {}", i);
    if (!op.hasInput(i)) continue;
    if (!ops::isFloatType(op.inType(i)) || op.inInfo(i).nelms() != 1)
      throw error("the hyper-parameter {} must be a floating-point scalar, not {}",
                  scalarNames(op)[static_cast<size_t>(i - first)], op.inInfo(i).toString());
  }
  if (op.attrs.getInt("accumulationFactor", 1) < 1) throw error("accumulationFactor must be >= 1");
}

}  // namespace optim

namespace {

void defineVarUpdate(OpDef& d, int nScalars, void (*setup)(Op&)) {
  // The op list's input count must match the layout of ops/optim.hpp.
  if (d.maxInputs != optim::firstScalarInput(d.kind) + nScalars)
    throw internal_error("{}: the op list gives {} inputs, the layout has {}", d.type, d.maxInputs,
                         optim::firstScalarInput(d.kind) + nScalars);
  d.setup = setup;
  d.foldable = false;
  d.sideEffect = true;
}

void setupAdam(Op& op) {
  optim::setupVarUpdate(op, {optim::kState0 + 2});
  if (!op.hasInput(optim::kState0) || !op.hasInput(optim::kState0 + 1))
    throw error("AdamVarUpdate needs both moments (Accl1, Accl2)");
}

void setupAdaptive(Op& op) {
  optim::setupVarUpdate(op);
  if (!op.hasInput(optim::kState0)) throw error("AdaptiveVarUpdate needs its accumulator Accl1");
}

/// (counter) -> nothing: counter <- (counter + 1) mod accumulationFactor.
void setupCounter(Op& op) {
  if (op.inType(0) != DataType::INT64 || op.inInfo(0).nelms() != 1)
    throw error("the accumulation counter {} must be an INT64 scalar", op.inInfo(0).toString());
  if (op.attrs.getInt("accumulationFactor", 1) < 1) throw error("accumulationFactor must be >= 1");
}

/// GradAccumulate(accum, grad, counter): accum (a Variable) takes or adds grad, in place.
void setupGradAccumulate(Op& op) {
  using namespace optim;
  if (op.input(kGaAccum)->kind != TensorKind::Variable)
    throw internal_error("Accumulate writes '{}', which is not a Variable", op.input(kGaAccum)->id);
  if (op.inShape(kGaAccum) != op.inShape(kGaGrad) || !ops::isFloatType(op.inType(kGaAccum)) ||
      !ops::isFloatType(op.inType(kGaGrad)))
    throw error(
        "Accumulate: the accumulator '{}' ({}) and the gradient '{}' ({}) must be floating-point tensors of "
        "one shape",
        op.input(kGaAccum)->id, op.inInfo(kGaAccum).toString(), op.input(kGaGrad)->id, op.inInfo(kGaGrad).toString());
  if (op.inType(kGaCounter) != DataType::INT64 || op.inInfo(kGaCounter).nelms() != 1)
    throw error("the accumulation counter {} must be an INT64 scalar", op.inInfo(kGaCounter).toString());
  if (op.attrs.getInt("accumulationFactor", 1) < 1) throw error("accumulationFactor must be >= 1");
}

/// CopyVarUpdate(var, value): var := value, in place (a Variable; no outputs).
void setupCopyVarUpdate(Op& op) {
  if (op.input(0)->kind != TensorKind::Variable)
    throw internal_error("CopyVarUpdate writes '{}', which is not a Variable", op.input(0)->id);
  if (op.inInfo(0) != op.inInfo(1))
    throw error("CopyVarUpdate: '{}' ({}) cannot take the value of '{}' ({})", op.input(0)->id, op.inInfo(0).toString(),
                op.input(1)->id, op.inInfo(1).toString());
}

/// Histogram(x[, periodCounter]) -> UINT32 [levels + 1] (PopART's HistogramOp: FLOAT or FLOAT16
/// input).
void setupHistogram(Op& op) {
  const DataType t = op.inType(0);
  if (t != DataType::FLOAT && t != DataType::FLOAT16)
    throw error("HistogramOp input type {} is not supported (FLOAT or FLOAT16)", dataTypeToString(t));
  const std::vector<float> levels = op.attrs.getFloats("levels");
  if (levels.empty()) throw error("Histogram needs at least one level");
  if (!std::is_sorted(levels.begin(), levels.end())) throw error("Histogram: the levels must be in ascending order");
  op.attrs.getInt("absoluteOfInput", 0);  // checks its type
  if (op.hasInput(1) && (op.inType(1) != DataType::INT32 || op.inInfo(1).nelms() != 1))
    throw error("the update period counter {} must be an INT32 scalar", op.inInfo(1).toString());
  if (op.attrs.getInt("updatePeriod", 1) < 1) throw error("updatePeriod must be >= 1");
  op.outInfo(0) = TensorInfo(DataType::UINT32, {static_cast<int64_t>(levels.size()) + 1});
}

/// LossScaleUpdate(factor, lossScaling, statistics[, accumulator, counter][, periodCounter]).
void setupLossScaleUpdate(Op& op) {
  using namespace optim;
  const TensorInfo& f = op.inInfo(kAlsFactor);
  if (op.input(kAlsFactor)->kind != TensorKind::Variable)
    throw internal_error("LossScaleUpdate writes '{}', which is not a Variable", op.input(kAlsFactor)->id);
  if ((f.dataType() != DataType::FLOAT && f.dataType() != DataType::FLOAT16) || f.nelms() != 1)
    throw error("the loss scale update factor {} must be a FLOAT or FLOAT16 scalar", f.toString());
  if (!ops::isFloatType(op.inType(kAlsLossScaling)) || op.inInfo(kAlsLossScaling).nelms() != 1)
    throw error("the loss scaling {} must be a floating-point scalar", op.inInfo(kAlsLossScaling).toString());
  // PopART's LossScaleUpdateOp::setup: the statistics are [lower, upper] counts.
  if (op.inShape(kAlsStatistics) != Shape{2} || op.inType(kAlsStatistics) != DataType::FLOAT)
    throw error("LossScaleUpdateOp input {} has unexpected shape. Expected shape [2], but it is {}", kAlsStatistics,
                op.inInfo(kAlsStatistics).toString());
  if (op.hasInput(kAlsStatsAccum) != op.hasInput(kAlsCounter))
    throw internal_error("LossScaleUpdate: the statistics accumulator and the counter go together");
  if (op.hasInput(kAlsStatsAccum) && op.inInfo(kAlsStatsAccum) != op.inInfo(kAlsStatistics))
    throw error("the statistics accumulator {} must be FLOAT [2]", op.inInfo(kAlsStatsAccum).toString());
  if (op.hasInput(kAlsCounter) && (op.inType(kAlsCounter) != DataType::INT64 || op.inInfo(kAlsCounter).nelms() != 1))
    throw error("the accumulation counter {} must be an INT64 scalar", op.inInfo(kAlsCounter).toString());
  if (op.hasInput(kAlsPeriodCounter) &&
      (op.inType(kAlsPeriodCounter) != DataType::INT32 || op.inInfo(kAlsPeriodCounter).nelms() != 1))
    throw error("the update period counter {} must be an INT32 scalar", op.inInfo(kAlsPeriodCounter).toString());
  const float t = op.attrs.getFloat("thresholdUpperCountProportion");
  if (!(t >= 0.0f && t <= 1.0f))
    throw error(
        "Out of range value for 'thresholdUpperCountProportion'. The current value is {}, but it should be in the "
        "range [0, 1].",
        t);
  if (op.attrs.getInt("updatePeriod", 1) < 1) throw error("updatePeriod must be >= 1");
  if (op.attrs.getInt("accumulationFactor", 1) < 1) throw error("accumulationFactor must be >= 1");
}

}  // namespace

void define_Histogram(OpDef& d) {
  d.setup = setupHistogram;
}

void define_LossScaleUpdate(OpDef& d) {
  d.setup = setupLossScaleUpdate;
  d.foldable = false;
  d.sideEffect = true;
}

void define_AdamVarUpdate(OpDef& d) {
  defineVarUpdate(d, 8, setupAdam);
}

void define_AdaptiveVarUpdate(OpDef& d) {
  defineVarUpdate(d, 6, setupAdaptive);
}

void define_CopyVarUpdate(OpDef& d) {
  d.setup = setupCopyVarUpdate;
  d.foldable = false;
  d.sideEffect = true;
}

void define_GradAccumulate(OpDef& d) {
  d.setup = setupGradAccumulate;
  d.foldable = false;
  d.sideEffect = true;
}

void define_AccumulationCounterIncrement(OpDef& d) {
  d.setup = setupCounter;
  d.foldable = false;
  d.sideEffect = true;
}

}  // namespace popart
