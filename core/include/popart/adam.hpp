// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file adam.hpp
/// Adam, AdamW, AdaMax and Lamb (PopART's `Adam`).
///
/// With s = g/(ls·af) (the unscaled gradient; plus wd·w in L2Regularization mode) and the step
/// counter t starting at 1:
///
///     m <- b1·m + (1-b1)·s
///     v <- b2·v + (1-b2)·s²                  AdaMax: v <- max(b2·v, |s|)
///     m^ = m/(1-b1^t), v^ = v/(1-b2^t)       Adam, Lamb; AdaMax corrects m only;
///                                            AdamNoBias, LambNoBias: m^ = m, v^ = v
///     u = m^/(sqrt(v^) + eps)                AdaMax: u = m^/(v^ + eps)
///     u += wd·w                              Decay mode only
///     w <- w - lr·u                          Adam, AdamNoBias, AdaMax
///     w <- w - r·lr·u                        Lamb, LambNoBias: r = min(|w|, mwn)/|u| over the
///                                            whole weight; r = 1 if |w|, |u| or mwn is 0
///
/// State per weight: "Accl1___<w>" (m), "Accl2___<w>" (v), "Step___<w>" (t; not in the NoBias
/// modes) and, with gradient accumulation, "Accum___<w>".

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "popart/optimizer.hpp"

namespace popart {

/// The Adam family member.
enum class AdamMode {
  Adam = 0,    ///< bias-corrected Adam (AdamW with WeightDecayMode::Decay and wd > 0)
  AdamNoBias,  ///< Adam without bias correction
  AdaMax,      ///< infinity-norm second moment
  Lamb,        ///< layer-wise trust ratio, bias-corrected
  LambNoBias,  ///< Lamb without bias correction
};

std::ostream& operator<<(std::ostream& os, AdamMode m);

class Adam : public Optimizer {
 public:
  /// PopART's defaults, all const.
  static OptimizerValue getUnsetLearningRate() { return {0.1f, true}; }
  static OptimizerValue getUnsetWeightDecay() { return {0.0f, true}; }
  static OptimizerValue getUnsetBeta1() { return {0.9f, true}; }
  static OptimizerValue getUnsetBeta2() { return {0.999f, true}; }
  static OptimizerValue getUnsetEps() { return {1e-6f, true}; }
  static OptimizerValue getUnsetLossScaling() { return {1.0f, true}; }
  static OptimizerValue getUnsetMaxWeightNorm() { return {10.0f, true}; }

  /// defaultLearningRate, defaultWeightDecay, defaultBeta1, defaultBeta2, defaultEps,
  /// lossScaling, maxWeightNorm.
  static const std::vector<std::string>& getAllowedKeys();
  /// `m` plus the default (value, const) of every allowed key it leaves out; an unknown key is an
  /// error. getComplete({}) gives the defaults (reflection: optimizerParamList()).
  static std::map<std::string, OptimizerValue> getComplete(const std::map<std::string, OptimizerValue>& m);
  /// learningRate, weightDecay, beta1, beta2, eps, maxWeightNorm.
  static const std::vector<std::string>& getSpecificKeys();

  /// All values explicit. The accumulator / accl1 / accl2 types are FLOAT, FLOAT16 or UNDEFINED
  /// (= the weight's type). `scaledOptimizerState` keeps m and v scaled by ls and ls² (same
  /// update, better fp16 range). Throws popart::error for invalid values (see insertSpecific).
  Adam(OptimizerValue defaultLearningRate, OptimizerValue defaultWeightDecay, OptimizerValue defaultBeta1,
       OptimizerValue defaultBeta2, OptimizerValue defaultEps, OptimizerValue lossScaling, OptimizerValue maxWeightNorm,
       AdamMode adamMode, WeightDecayMode weightDecayMode, DataType accumType, DataType accl1Type, DataType accl2Type,
       const std::vector<ClipNormSettings>& clipNormSettings = {}, bool scaledOptimizerState = false,
       const DebugContext& debugContext = {});
  /// As above with the default maxWeightNorm.
  Adam(OptimizerValue defaultLearningRate, OptimizerValue defaultWeightDecay, OptimizerValue defaultBeta1,
       OptimizerValue defaultBeta2, OptimizerValue defaultEps, OptimizerValue lossScaling, AdamMode adamMode,
       WeightDecayMode weightDecayMode, DataType accumType, DataType accl1Type, DataType accl2Type,
       const std::vector<ClipNormSettings>& clipNormSettings = {}, bool scaledOptimizerState = false,
       const DebugContext& debugContext = {});
  /// As above with WeightDecayMode::Decay.
  Adam(OptimizerValue defaultLearningRate, OptimizerValue defaultWeightDecay, OptimizerValue defaultBeta1,
       OptimizerValue defaultBeta2, OptimizerValue defaultEps, OptimizerValue lossScaling, AdamMode adamMode,
       DataType accumType, DataType accl1Type, DataType accl2Type,
       const std::vector<ClipNormSettings>& clipNormSettings = {}, bool scaledOptimizerState = false,
       const DebugContext& debugContext = {});

  /// From `{key: (value, isConst)}`; missing keys take the getUnset* defaults; the other
  /// defaults are those of PopART's Python constructor. An unknown key throws
  /// "Invalid Adam key, K, the allowed keys are ( ... )".
  explicit Adam(const std::map<std::string, std::pair<float, bool>>& params, AdamMode adamMode = AdamMode::Adam,
                WeightDecayMode weightDecayMode = WeightDecayMode::Decay, DataType accumType = DataType::UNDEFINED,
                DataType accl1Type = DataType::FLOAT, DataType accl2Type = DataType::FLOAT,
                const std::vector<ClipNormSettings>& clipNormSettings = {}, bool scaledOptimizerState = false,
                const DebugContext& debugContext = "adam");

  static Adam fromDefaultMap(const std::map<std::string, OptimizerValue>& params, AdamMode adamMode,
                             WeightDecayMode weightDecayMode, DataType accumType, DataType accl1Type,
                             DataType accl2Type, const DebugContext& debugContext = {});

  Adam(const Adam&) = default;
  Adam& operator=(const Adam&) = default;
  ~Adam() override = default;

  OptimizerType type() const final { return OptimizerType::Adam; }
  std::string type_s() const final { return "Adam"; }
  std::unique_ptr<Optimizer> clone() const final;

  /// Base checks, then the mode and weight-decay mode must match, then loss scaling, learning
  /// rates, weight decays, beta1s, beta2s, epss and max weight norms.
  void validReplacement(const Optimizer& other) const final;

  /// Weight-specific values. Throws popart::error if `weightId` already has specific values, or
  /// for a negative lr / wd / beta1 / beta2 / maxWeightNorm, eps <= 0, or a constant zero
  /// learning rate.
  void insertSpecific(const TensorId& weightId, OptimizerValue learningRate, OptimizerValue weightDecay,
                      OptimizerValue beta1, OptimizerValue beta2, OptimizerValue eps, OptimizerValue maxWeightNorm);
  /// As above with the default maxWeightNorm.
  void insertSpecific(const TensorId& weightId, OptimizerValue learningRate, OptimizerValue weightDecay,
                      OptimizerValue beta1, OptimizerValue beta2, OptimizerValue eps);
  /// From `{key: (value, isConst)}` with the getSpecificKeys() keys; missing keys take this
  /// optimizer's current defaults.
  void insertSpecific(const TensorId& weightId, const std::map<std::string, std::pair<float, bool>>& params) override;

  bool hasSpecific(const TensorId& weightId) const final;
  bool hasSpecific() const final;

  const OptimizerValueMap& learningRates() const { return lrs; }
  const OptimizerValueMap& weightDecays() const { return wds; }
  const OptimizerValueMap& beta1s() const { return b1s; }
  const OptimizerValueMap& beta2s() const { return b2s; }
  const OptimizerValueMap& epss() const { return epsvs; }
  const OptimizerValueMap& maxWeightNorms() const { return mwns; }

  AdamMode getMode() const { return mode; }
  const WeightDecayMode& getWeightDecayMode() const { return decayMode; }
  DataType getAccumType() const { return accumType; }
  DataType getAccl1Type() const { return accl1Type; }
  DataType getAccl2Type() const { return accl2Type; }
  bool useScaledOptimizerState() const { return scaledOptimizerState; }

  /// The effective hyper-parameters of one weight.
  struct WeightValues {
    OptimizerValue learningRate, weightDecay, beta1, beta2, eps, maxWeightNorm, lossScaling;
  };
  WeightValues getWeightValues(const TensorId& weightId) const;

  /// True in the modes that correct the bias (Adam, AdaMax, Lamb): they keep a step counter.
  bool hasStepCounter() const;
  /// True in Lamb and LambNoBias.
  bool isLamb() const;

  /// "Accl1___w", "Accl2___w", then "Step___w" (bias-corrected modes) and "Accum___w" (gradient
  /// accumulation).
  std::vector<TensorId> getStateTensorIds(const TensorId& weightId) const final;

  /// 1/(ls·af): multiplies the gradient before the moments (af as in SGD).
  OptimizerValue gradientScaling(const TensorId& weightId) const;

 private:
  Adam(const std::map<std::string, OptimizerValue>& complete, AdamMode adamMode, WeightDecayMode weightDecayMode,
       DataType accumType, DataType accl1Type, DataType accl2Type,
       const std::vector<ClipNormSettings>& clipNormSettings, bool scaledOptimizerState,
       const DebugContext& debugContext, int /*disambiguates*/);
  static void runValueChecks(OptimizerValue lr, OptimizerValue wd, OptimizerValue b1, OptimizerValue b2,
                             OptimizerValue eps, OptimizerValue mwn);

  OptimizerValueMap lrs, wds, b1s, b2s, epsvs, mwns;
  AdamMode mode;
  WeightDecayMode decayMode;
  DataType accumType;
  DataType accl1Type;
  DataType accl2Type;
  bool scaledOptimizerState;
};

}  // namespace popart
