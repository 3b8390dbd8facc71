// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file adaptive.hpp
/// AdaGrad, RMSProp, centered RMSProp and AdaDelta (PopART's `Adaptive`).
///
/// With s = g/(ls·af) (the unscaled gradient; plus wd·w in L2Regularization mode), alpha a,
/// momentum m:
///
///     v1 <- a·v1 + (1-a)·s²                  AdaGrad: v1 <- v1 + s²
///     v2 <- a·v2 + (1-a)·s                   CenteredRMSProp only
///     x = s/(sqrt(v1) + eps)                 AdaGrad, RMSProp
///     x = s/(sqrt(v1 - v2²) + eps)           CenteredRMSProp
///     x = s·sqrt(v2 + eps)/sqrt(v1 + eps)    AdaDelta, then v2 <- a·v2 + (1-a)·x²
///     v3 <- m·v3 + x                         with momentum (m non-const or m > 0), else v3 = x
///     w <- w - lr·(v3 + wd·w)                Decay mode (L2Regularization: w <- w - lr·v3)
///
/// TF variant (rmspropTFVariant, RMSProp and CenteredRMSProp only, as TensorFlow's RMSProp):
/// v1 starts at 1 instead of 0, eps moves inside the square root (x = s/sqrt(v1 + eps),
/// s/sqrt(v1 - v2² + eps)), and with momentum lr is folded into v3 (v3 <- m·v3 + lr·x;
/// w <- w - (v3 + wd·w)).
///
/// State per weight: "Accl1___<w>" (v1), "Accl2___<w>" (v2: CenteredRMSProp and AdaDelta),
/// "Accl3___<w>" (v3: with momentum) and, with gradient accumulation, "Accum___<w>".

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "popart/optimizer.hpp"

namespace popart {

enum class AdaptiveMode { AdaGrad = 0, RMSProp, CenteredRMSProp, AdaDelta };

std::ostream& operator<<(std::ostream& os, AdaptiveMode m);

class Adaptive : public Optimizer {
 public:
  /// PopART's defaults, all const.
  static OptimizerValue getUnsetLearningRate() { return {0.01f, true}; }
  static OptimizerValue getUnsetWeightDecay() { return {0.0f, true}; }
  static OptimizerValue getUnsetAlpha() { return {0.99f, true}; }
  static OptimizerValue getUnsetMomentum() { return {0.0f, true}; }
  static OptimizerValue getUnsetEps() { return {1e-6f, true}; }
  static OptimizerValue getUnsetLossScaling() { return {1.0f, true}; }

  /// defaultLearningRate, defaultWeightDecay, defaultAlpha, defaultMomentum, defaultEps,
  /// lossScaling.
  static const std::vector<std::string>& getAllowedKeys();
  /// `m` plus the default (value, const) of every allowed key it leaves out; an unknown key is an
  /// error. getComplete({}) gives the defaults (reflection: optimizerParamList()).
  static std::map<std::string, OptimizerValue> getComplete(const std::map<std::string, OptimizerValue>& m);
  /// learningRate, weightDecay, alpha, momentum, eps.
  static const std::vector<std::string>& getSpecificKeys();

  /// All values explicit. The accumulator / accl types are FLOAT, FLOAT16 or UNDEFINED (= the
  /// weight's type). Throws popart::error for invalid values (see insertSpecific).
  Adaptive(OptimizerValue defaultLearningRate, OptimizerValue defaultWeightDecay, OptimizerValue defaultAlpha,
           OptimizerValue defaultMomentum, OptimizerValue defaultEps, OptimizerValue lossScaling,
           AdaptiveMode adaptiveMode, WeightDecayMode weightDecayMode, DataType accumType, DataType accl1Type,
           DataType accl2Type, DataType accl3Type, bool rmspropTFVariant = false,
           const DebugContext& debugContext = {});

  /// From `{key: (value, isConst)}`; missing keys take the getUnset* defaults; the other
  /// defaults are those of PopART's Python constructor. An unknown key throws
  /// "Invalid Adaptive key, K, the allowed keys are ( ... )".
  explicit Adaptive(const std::map<std::string, std::pair<float, bool>>& params,
                    AdaptiveMode adaptiveMode = AdaptiveMode::RMSProp,
                    WeightDecayMode weightDecayMode = WeightDecayMode::Decay, DataType accumType = DataType::UNDEFINED,
                    DataType accl1Type = DataType::FLOAT, DataType accl2Type = DataType::FLOAT,
                    DataType accl3Type = DataType::UNDEFINED, bool rmspropTFVariant = false,
                    const DebugContext& debugContext = "adaptive");

  static Adaptive fromDefaultMap(const std::map<std::string, OptimizerValue>& params, AdaptiveMode adaptiveMode,
                                 WeightDecayMode weightDecayMode, DataType accumType, DataType accl1Type,
                                 DataType accl2Type, DataType accl3Type, const DebugContext& debugContext = {});

  Adaptive(const Adaptive&) = default;
  Adaptive& operator=(const Adaptive&) = default;
  ~Adaptive() override = default;

  OptimizerType type() const final { return OptimizerType::Adaptive; }
  std::string type_s() const final { return "Adaptive"; }
  std::unique_ptr<Optimizer> clone() const final;

  /// Base checks, then the mode, weight-decay mode and TF variant must match, then loss
  /// scaling, learning rates, weight decays, alphas, momentums and epss.
  void validReplacement(const Optimizer& other) const final;

  /// Weight-specific values. Throws popart::error if `weightId` already has specific values, or
  /// for a negative lr / wd / alpha / momentum, eps <= 0, or a constant zero learning rate.
  void insertSpecific(const TensorId& weightId, OptimizerValue learningRate, OptimizerValue weightDecay,
                      OptimizerValue alpha, OptimizerValue momentum, OptimizerValue eps);
  /// From `{key: (value, isConst)}` with the getSpecificKeys() keys; missing keys take this
  /// optimizer's current defaults.
  void insertSpecific(const TensorId& weightId, const std::map<std::string, std::pair<float, bool>>& params) override;

  bool hasSpecific(const TensorId& weightId) const final;
  bool hasSpecific() const final;

  const OptimizerValueMap& learningRates() const { return lrs; }
  const OptimizerValueMap& weightDecays() const { return wds; }
  const OptimizerValueMap& alphas() const { return as; }
  const OptimizerValueMap& momentums() const { return ms; }
  const OptimizerValueMap& epss() const { return epsvs; }

  AdaptiveMode getMode() const { return mode; }
  const WeightDecayMode& getWeightDecayMode() const { return decayMode; }
  DataType getAccumType() const { return accumType; }
  DataType getAccl1Type() const { return accl1Type; }
  DataType getAccl2Type() const { return accl2Type; }
  DataType getAccl3Type() const { return accl3Type; }
  bool getRmspropTFVariant() const { return rmspropTFVariant; }

  /// The effective hyper-parameters of one weight.
  struct WeightValues {
    OptimizerValue learningRate, weightDecay, alpha, momentum, eps, lossScaling;
  };
  WeightValues getWeightValues(const TensorId& weightId) const;

  /// Momentum is non-const or positive: the weight keeps "Accl3___w".
  bool hasMomentum(const TensorId& weightId) const;

  /// "Accl1___w", then "Accl2___w" (CenteredRMSProp, AdaDelta), "Accl3___w" (momentum) and
  /// "Accum___w" (gradient accumulation).
  std::vector<TensorId> getStateTensorIds(const TensorId& weightId) const final;

  /// 1/(ls·af): multiplies the gradient before the accumulators (af as in SGD).
  OptimizerValue gradientScaling(const TensorId& weightId) const;

 private:
  Adaptive(const std::map<std::string, OptimizerValue>& complete, AdaptiveMode adaptiveMode,
           WeightDecayMode weightDecayMode, DataType accumType, DataType accl1Type, DataType accl2Type,
           DataType accl3Type, bool rmspropTFVariant, const DebugContext& debugContext, int /*disambiguates*/);
  static void runValueChecks(OptimizerValue lr, OptimizerValue wd, OptimizerValue a, OptimizerValue m,
                             OptimizerValue eps);

  OptimizerValueMap lrs, wds, as, ms, epsvs;
  AdaptiveMode mode;
  WeightDecayMode decayMode;
  DataType accumType;
  DataType accl1Type;
  DataType accl2Type;
  DataType accl3Type;
  bool rmspropTFVariant;
};

}  // namespace popart
