// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file sgd.hpp
/// Stochastic gradient descent (PopART's `SGD` and `ConstSGD`).
///
/// Hyper-parameters: learning rate lr, weight decay wd, momentum mm, dampening dm, velocity
/// scaling vs, loss scaling ls, nesterov. g is the weight gradient as the backward pass makes it
/// (scaled by ls, summed over micro-batches and replicas); af is the accumulation factor when
/// the optimizer takes the mean over micro-batches (Optimizer::postMeanAccumulationEnabled),
/// else 1.
///
///     v <- mm·v + (1 - dm)·(g/(ls·af) + wd·w)             v starts at 0 (PyTorch: v = g)
///     w <- w - lr·v                                       without nesterov
///     w <- w - lr·(g/(ls·af) + wd·w + mm·v)               with nesterov (requires dm = 0)
///
/// Velocity scaling stores vs·v and divides lr by vs: mathematically the same.
///
/// Implementations (chosen per weight):
/// - SGD0, no momentum (mm const 0): no state;
///   w <- w·weightDecayScaleFactor0 - scaledLearningRate0·g. Dampening still scales the step.
/// - SGD1, momentum with SGDAccumulatorAndMomentum::Combined: one tensor "Accl___<w>" is both the
///   gradient accumulator and the velocity (×vs). After each update it is set to
///   mm·v + (1-dm)·wd·vs·w for the next step, so changes to mm, dm and wd take effect one step
///   late ("lagged"); lr changes are exact. In PopART, with gradient accumulation and replication
///   the velocity is all-reduced and carries an extra factor rf (the *1 scalars below); this
///   runtime sums the gradients over the replicas before the velocity, so its rf is 1.
/// - SGD2, momentum with SGDAccumulatorAndMomentum::Separate: velocity "Accl1___<w>" (×vs) and,
///   with gradient accumulation, the accumulator "Accum___<w>". No lag.

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "popart/optimizer.hpp"

namespace popart {

/// How SGD with momentum (and/or gradient accumulation) stores its state.
enum class SGDAccumulatorAndMomentum {
  Combined = 0,  ///< one tensor for accumulator and velocity (SGD1; hyper-parameter changes lag)
  Separate,      ///< separate accumulator and velocity tensors (SGD2)
};

std::ostream& operator<<(std::ostream& os, SGDAccumulatorAndMomentum s);

class SGD : public Optimizer {
 public:
  /// PopART's defaults, all const.
  static OptimizerValue getUnsetLearningRate() { return {0.1f, true}; }
  static OptimizerValue getUnsetWeightDecay() { return {0.0f, true}; }
  static OptimizerValue getUnsetMomentum() { return {0.0f, true}; }
  static OptimizerValue getUnsetDampening() { return {0.0f, true}; }
  static OptimizerValue getUnsetVelocityScaling() { return {1.0f, true}; }
  static OptimizerValue getUnsetLossScaling() { return {1.0f, true}; }
  static OptimizerValue getUnsetNesterov() { return {0.0f, true}; }

  /// The map keys, in PopART's order: defaultLearningRate, defaultWeightDecay, defaultMomentum,
  /// defaultDampening, defaultVelocityScaling, lossScaling, nesterov.
  static const std::vector<std::string>& getAllowedKeys();
  /// `m` plus the default (value, const) of every allowed key it leaves out; an unknown key is an
  /// error. getComplete({}) gives the defaults (reflection: optimizerParamList()).
  static std::map<std::string, OptimizerValue> getComplete(const std::map<std::string, OptimizerValue>& m);
  /// The insertSpecific keys: learningRate, weightDecay, momentum, dampening, velocityScaling,
  /// nesterov.
  static const std::vector<std::string>& getSpecificKeys();

  /// All values explicit. `nesterov` is a flag: a value other than 0 enables Nesterov momentum.
  /// `accumType` / `accl1Type` (FLOAT, FLOAT16 or UNDEFINED = the weight's type) are the types of
  /// the Separate accumulator and velocity. Throws popart::error for invalid values (see
  /// insertSpecific).
  SGD(OptimizerValue defaultLearningRate, OptimizerValue defaultWeightDecay, OptimizerValue defaultMomentum,
      OptimizerValue defaultDampening, OptimizerValue defaultVelocityScaling, OptimizerValue lossScaling,
      OptimizerValue nesterov, const std::vector<ClipNormSettings>& clipNormSettings = {},
      SGDAccumulatorAndMomentum sgdAccMm = SGDAccumulatorAndMomentum::Combined,
      DataType accumType = DataType::UNDEFINED, DataType accl1Type = DataType::UNDEFINED,
      const DebugContext& debugContext = {});

  /// As above with nesterov off.
  SGD(OptimizerValue defaultLearningRate, OptimizerValue defaultWeightDecay, OptimizerValue defaultMomentum,
      OptimizerValue defaultDampening, OptimizerValue defaultVelocityScaling, OptimizerValue lossScaling,
      const std::vector<ClipNormSettings>& clipNormSettings = {},
      SGDAccumulatorAndMomentum sgdAccMm = SGDAccumulatorAndMomentum::Combined,
      DataType accumType = DataType::UNDEFINED, DataType accl1Type = DataType::UNDEFINED,
      const DebugContext& debugContext = {});

  /// From `{key: (value, isConst)}`; missing keys take the getUnset* defaults. An unknown key
  /// throws "Invalid SGD key, K, the allowed keys are ( ... )".
  ///
  ///     SGD sgd({{"defaultLearningRate", {0.02f, false}}, {"defaultMomentum", {0.6f, true}}});
  explicit SGD(const std::map<std::string, std::pair<float, bool>>& params,
               const std::vector<ClipNormSettings>& clipNormSettings = {},
               SGDAccumulatorAndMomentum sgdAccMm = SGDAccumulatorAndMomentum::Combined,
               DataType accumType = DataType::UNDEFINED, DataType accl1Type = DataType::UNDEFINED,
               const DebugContext& debugContext = "sgd");

  /// poponnx's and early PopART's `SGD(learningRate)`, as in `updateOptimizer(SGD(stepLr))`: the
  /// learning rate is not constant (that API streamed it to the device, so updateOptimizer +
  /// optimizerFromHost can change it; ConstSGD is the constant form) and every other value takes
  /// its default. A learning rate that is not finite, or negative, is an error. (A template only
  /// so that `SGD({})` still selects the map form.)
  template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value && !std::is_same<T, bool>::value>>
  explicit SGD(T learningRate) : SGD(fromLearningRate(static_cast<double>(learningRate))) {}

  /// From a map of OptimizerValues (same keys and defaults).
  static SGD fromDefaultMap(const std::map<std::string, OptimizerValue>& params, const DebugContext& debugContext = {});

  SGD(const SGD&) = default;
  SGD& operator=(const SGD&) = default;
  ~SGD() override = default;

  OptimizerType type() const final { return OptimizerType::SGD; }
  std::string type_s() const final { return "SGD"; }
  std::unique_ptr<Optimizer> clone() const final;

  /// Base checks, then loss scaling, learning rates, weight decays, momentums, velocity scalings
  /// and nesterov (dampening is not compared, as in PopART); "needs a velocity tensor" must match,
  /// and with a velocity tensor so must SGDAccumulatorAndMomentum and, for Separate, the accum and
  /// accl1 types.
  void validReplacement(const Optimizer& other) const final;

  /// Weight-specific values. Throws popart::error if `weightId` already has specific values, or
  /// for a negative lr / wd / mm / dm, vs <= 0, nesterov with dm > 0, or a constant zero
  /// learning rate ("Constant, zero learning rate in SGD, bailing as this might be a user
  /// error."). A non-const zero learning rate is allowed.
  void insertSpecific(const TensorId& weightId, OptimizerValue learningRate, OptimizerValue weightDecay,
                      OptimizerValue momentum, OptimizerValue dampening, OptimizerValue velocityScaling,
                      OptimizerValue nesterov);
  /// As above with the default nesterov.
  void insertSpecific(const TensorId& weightId, OptimizerValue learningRate, OptimizerValue weightDecay,
                      OptimizerValue momentum, OptimizerValue dampening, OptimizerValue velocityScaling);
  /// From `{key: (value, isConst)}` with the getSpecificKeys() keys; missing keys take this
  /// optimizer's current defaults.
  void insertSpecific(const TensorId& weightId, const std::map<std::string, std::pair<float, bool>>& params) override;

  bool hasSpecific(const TensorId& weightId) const final;
  bool hasSpecific() const final;

  const OptimizerValueMap& learningRates() const { return lrs; }
  const OptimizerValueMap& weightDecays() const { return wds; }
  const OptimizerValueMap& momentums() const { return mms; }
  const OptimizerValueMap& dampenings() const { return dps; }
  const OptimizerValueMap& velocityScalings() const { return vss; }
  const OptimizerValueMap& nesterov() const { return nts; }

  SGDAccumulatorAndMomentum getSGDAccumulatorAndMomentum() const { return sgdAccMm; }
  DataType getSGDAccumType() const { return sgdAccumType; }
  DataType getSGD2Accl1Type() const { return sgd2Accl1Type; }

  /// The effective hyper-parameters of one weight (its specific values or the defaults).
  struct WeightValues {
    OptimizerValue learningRate, weightDecay, momentum, dampening, velocityScaling, lossScaling;
    bool nesterov = false;  ///< enableNesterov(weightId)
  };
  WeightValues getWeightValues(const TensorId& weightId) const;

  /// Momentum is non-const or non-zero: the weight keeps a velocity (SGD1 / SGD2, else SGD0).
  bool hasMomentum(const TensorId& weightId) const;
  /// Same as hasMomentum: a velocity tensor is needed.
  bool requiresVelocity(const TensorId& weightId) const { return hasMomentum(weightId); }
  /// Nesterov is on for the weight (nesterov != 0 and mm > 0).
  bool enableNesterov(const TensorId& weightId) const;

  /// "Accum___w" (SGD0 / SGD2 with gradient accumulation; SGD1 with nesterov and gradient
  /// accumulation), "Accl___w" (SGD1) or "Accl1___w" (SGD2).
  std::vector<TensorId> getStateTensorIds(const TensorId& weightId) const final;

  // Compound scalars for one weight (value, and const if all their parts are const). af is the
  // accumulation factor if postMeanAccumulationEnabled(), else 1; rf is sgd1ReplicationFactor()
  // (PopART's replication factor when the SGD1 velocity is all-reduced; 1 here, see there).

  /// SGD0: lr·(1-dm)/(ls·af).
  OptimizerValue scaledLearningRate0(const TensorId& weightId) const;
  /// SGD0: 1 - lr·(1-dm)·wd.
  OptimizerValue weightDecayScaleFactor0(const TensorId& weightId) const;
  /// SGD1 and SGD2: (1-dm)·wd·vs.
  OptimizerValue scaledWeightDecay1(const TensorId& weightId) const;
  /// SGD1: (1-dm)·vs·rf/(ls·af).
  OptimizerValue dampeningScaleFactor1(const TensorId& weightId) const;
  /// SGD1: lr/(vs·rf).
  OptimizerValue scaledLearningRate1(const TensorId& weightId) const;
  /// SGD1: mm/rf.
  OptimizerValue scaledMomentum1(const TensorId& weightId) const;
  /// SGD1 nesterov: af/((1-dm)·vs·rf), so that ndsf1·dpsf1 = 1/ls.
  OptimizerValue nesterovDampeningScaleFactor1(const TensorId& weightId) const;
  /// SGD1 nesterov: vs·rf.
  OptimizerValue nesterovGradScaleFactor1(const TensorId& weightId) const;
  /// SGD2: (1-dm)·vs/(ls·af).
  OptimizerValue dampeningScaleFactor2(const TensorId& weightId) const;
  /// SGD2: lr/vs.
  OptimizerValue scaledLearningRate2(const TensorId& weightId) const;
  /// SGD2: mm.
  OptimizerValue scaledMomentum2(const TensorId& weightId) const;
  /// SGD2 nesterov: af/((1-dm)·vs).
  OptimizerValue nesterovDampeningScaleFactor2(const TensorId& weightId) const;
  /// SGD2 nesterov: vs.
  OptimizerValue nesterovGradScaleFactor2(const TensorId& weightId) const;

  /// The replication factor used by the SGD1 scalars: 1, as the gradients are summed over the
  /// replicas before they reach the velocity (see above).
  int64_t sgd1ReplicationFactor() const;
  /// The accumulation factor used by the scalars (see above).
  int64_t meanAccumulationFactor() const;

 private:
  static SGD fromLearningRate(double learningRate);
  SGD(const std::map<std::string, OptimizerValue>& complete, const std::vector<ClipNormSettings>& clipNormSettings,
      SGDAccumulatorAndMomentum sgdAccMm, DataType accumType, DataType accl1Type, const DebugContext& debugContext,
      int /*disambiguates*/);
  static void runValueChecks(OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp,
                             OptimizerValue vs, OptimizerValue nt);

  OptimizerValueMap lrs, wds, mms, dps, vss, nts;
  SGDAccumulatorAndMomentum sgdAccMm;
  DataType sgdAccumType;
  DataType sgd2Accl1Type;
};

/// SGD with a constant learning rate, weight decay and loss scaling, other values at their
/// defaults (PopART keeps it for backwards compatibility).
class ConstSGD : public SGD {
 public:
  explicit ConstSGD(float learningRate, float weightDecay = 0, float lossScaling = 1,
                    const std::vector<ClipNormSettings>& clipNormSettings = {})
      : SGD({learningRate, true}, {weightDecay, true}, getUnsetMomentum(), getUnsetDampening(),
            getUnsetVelocityScaling(), {lossScaling, true}, clipNormSettings) {}
};

}  // namespace popart
