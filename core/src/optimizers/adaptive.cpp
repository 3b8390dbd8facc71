// Adaptive (AdaGrad, RMSProp, CenteredRMSProp, AdaDelta): hyper-parameter maps, checks,
// replacement rules.
#include "popart/adaptive.hpp"

#include <ostream>

#include "optimizers/optimizer_common.hpp"

namespace popart {

std::ostream& operator<<(std::ostream& os, AdaptiveMode m) {
  return optimizer_detail::printEnum(os, m);
}

const std::vector<std::string>& Adaptive::getAllowedKeys() {
  static const std::vector<std::string> keys{"defaultLearningRate", "defaultWeightDecay", "defaultAlpha",
                                             "defaultMomentum",     "defaultEps",         "lossScaling"};
  return keys;
}

const std::vector<std::string>& Adaptive::getSpecificKeys() {
  static const std::vector<std::string> keys{"learningRate", "weightDecay", "alpha", "momentum", "eps"};
  return keys;
}

std::map<std::string, OptimizerValue> Adaptive::getComplete(const std::map<std::string, OptimizerValue>& m) {
  return optimizer_detail::completeDefaults("Adaptive", getAllowedKeys(),
                                            {getUnsetLearningRate(), getUnsetWeightDecay(), getUnsetAlpha(),
                                             getUnsetMomentum(), getUnsetEps(), getUnsetLossScaling()},
                                            m);
}

Adaptive::Adaptive(OptimizerValue lr, OptimizerValue wd, OptimizerValue a, OptimizerValue m, OptimizerValue eps,
                   OptimizerValue lossScaling, AdaptiveMode adaptiveMode, WeightDecayMode weightDecayMode,
                   DataType accumType_, DataType accl1Type_, DataType accl2Type_, DataType accl3Type_,
                   bool rmspropTFVariant_, const DebugContext& debugContext)
    : Optimizer(lossScaling, {}, debugContext),
      lrs(lr),
      wds(wd),
      as(a),
      ms(m),
      epsvs(eps),
      mode(adaptiveMode),
      decayMode(weightDecayMode),
      accumType(accumType_),
      accl1Type(accl1Type_),
      accl2Type(accl2Type_),
      accl3Type(accl3Type_),
      rmspropTFVariant(rmspropTFVariant_) {
  if (rmspropTFVariant && mode != AdaptiveMode::RMSProp && mode != AdaptiveMode::CenteredRMSProp) {
    throw error("The rmspropTFVariant parameter is only valid with the RMSProp and CenteredRMSProp optimizers.");
  }
  runValueChecks(lr, wd, a, m, eps);
  optimizer_detail::checkStateType("Adaptive", "accumType", accumType);
  optimizer_detail::checkStateType("Adaptive", "accl1Type", accl1Type);
  optimizer_detail::checkStateType("Adaptive", "accl2Type", accl2Type);
  optimizer_detail::checkStateType("Adaptive", "accl3Type", accl3Type);
}

Adaptive::Adaptive(const std::map<std::string, OptimizerValue>& c, AdaptiveMode adaptiveMode,
                   WeightDecayMode weightDecayMode, DataType accumType_, DataType accl1Type_, DataType accl2Type_,
                   DataType accl3Type_, bool rmspropTFVariant_, const DebugContext& debugContext, int)
    : Adaptive(c.at("defaultLearningRate"), c.at("defaultWeightDecay"), c.at("defaultAlpha"), c.at("defaultMomentum"),
               c.at("defaultEps"), c.at("lossScaling"), adaptiveMode, weightDecayMode, accumType_, accl1Type_,
               accl2Type_, accl3Type_, rmspropTFVariant_, debugContext) {}

Adaptive::Adaptive(const std::map<std::string, std::pair<float, bool>>& params, AdaptiveMode adaptiveMode,
                   WeightDecayMode weightDecayMode, DataType accumType_, DataType accl1Type_, DataType accl2Type_,
                   DataType accl3Type_, bool rmspropTFVariant_, const DebugContext& debugContext)
    : Adaptive(getComplete(getOptMap(params)), adaptiveMode, weightDecayMode, accumType_, accl1Type_, accl2Type_,
               accl3Type_, rmspropTFVariant_, debugContext, 0) {}

Adaptive Adaptive::fromDefaultMap(const std::map<std::string, OptimizerValue>& params, AdaptiveMode adaptiveMode,
                                  WeightDecayMode weightDecayMode, DataType accumType_, DataType accl1Type_,
                                  DataType accl2Type_, DataType accl3Type_, const DebugContext& debugContext) {
  return Adaptive(getComplete(params), adaptiveMode, weightDecayMode, accumType_, accl1Type_, accl2Type_, accl3Type_,
                  false, debugContext, 0);
}

std::unique_ptr<Optimizer> Adaptive::clone() const {
  return std::make_unique<Adaptive>(*this);
}

void Adaptive::runValueChecks(OptimizerValue lr, OptimizerValue wd, OptimizerValue a, OptimizerValue m,
                              OptimizerValue eps) {
  optimizer_detail::checkLearningRate("Adaptive", lr);
  if (wd.val() < 0) {
    throw error("Negative weight decay ({}) in Adaptive, bailing as this might be a user error", wd.val());
  }
  if (a.val() < 0) throw error("Negative alpha ({}) in Adaptive, bailing as this might be a user error", a.val());
  if (m.val() < 0) throw error("Negative momentum ({}) in Adaptive, bailing as this might be a user error", m.val());
  if (eps.val() <= 0) throw error("Non-positive eps ({}) in Adaptive is not supported", eps.val());
}

void Adaptive::insertSpecific(const TensorId& id, OptimizerValue lr, OptimizerValue wd, OptimizerValue a,
                              OptimizerValue m, OptimizerValue eps) {
  if (hasSpecific(id)) optimizer_detail::throwAlreadySpecific(id);
  runValueChecks(lr, wd, a, m, eps);
  lrs.insertSpecific(id, lr);
  wds.insertSpecific(id, wd);
  as.insertSpecific(id, a);
  ms.insertSpecific(id, m);
  epsvs.insertSpecific(id, eps);
}

void Adaptive::insertSpecific(const TensorId& id, const std::map<std::string, std::pair<float, bool>>& params) {
  const auto c = optimizer_detail::completeSpecific(
      "Adaptive", getSpecificKeys(),
      {lrs.getDefault(), wds.getDefault(), as.getDefault(), ms.getDefault(), epsvs.getDefault()}, params);
  insertSpecific(id, c.at("learningRate"), c.at("weightDecay"), c.at("alpha"), c.at("momentum"), c.at("eps"));
}

bool Adaptive::hasSpecific(const TensorId& id) const {
  return lrs.hasSpecific(id) || wds.hasSpecific(id) || as.hasSpecific(id) || ms.hasSpecific(id) ||
         epsvs.hasSpecific(id);
}

bool Adaptive::hasSpecific() const {
  return lrs.hasSpecific() || wds.hasSpecific() || as.hasSpecific() || ms.hasSpecific() || epsvs.hasSpecific();
}

Adaptive::WeightValues Adaptive::getWeightValues(const TensorId& id) const {
  WeightValues v;
  v.learningRate = lrs.get(id);
  v.weightDecay = wds.get(id);
  v.alpha = as.get(id);
  v.momentum = ms.get(id);
  v.eps = epsvs.get(id);
  v.lossScaling = lossScaling();
  return v;
}

bool Adaptive::hasMomentum(const TensorId& id) const {
  const OptimizerValue m = ms.get(id);
  return !m.isConst() || m.val() > 0.0f;
}

std::vector<TensorId> Adaptive::getStateTensorIds(const TensorId& id) const {
  std::vector<TensorId> ids{reservedAccl1Prefix() + id};
  if (mode == AdaptiveMode::CenteredRMSProp || mode == AdaptiveMode::AdaDelta) {
    ids.push_back(reservedAccl2Prefix() + id);
  }
  if (hasMomentum(id)) ids.push_back(reservedAccl3Prefix() + id);
  if (gradientAccumulationEnabled()) ids.push_back(reservedAccumPrefix() + id);
  return ids;
}

OptimizerValue Adaptive::gradientScaling(const TensorId&) const {
  const float af = postMeanAccumulationEnabled() ? static_cast<float>(getAccumulationFactor()) : 1.0f;
  return {1.0f / (lossScaling().val() * af), lossScaling().isConst()};
}

void Adaptive::validReplacement(const Optimizer& other) const {
  Optimizer::validReplacement(other);
  const auto* o = dynamic_cast<const Adaptive*>(&other);
  if (!o) throw internal_error("An optimizer of type Adaptive is not an instance of popart::Adaptive");
  if (mode != o->mode) throw optimizer_replacement_error("this has {}, but other has {}", mode, o->mode);
  if (decayMode != o->decayMode) {
    throw optimizer_replacement_error("this has {}, but other has {}", decayMode, o->decayMode);
  }
  if (rmspropTFVariant != o->rmspropTFVariant) {
    throw optimizer_replacement_error("this has rmspropTFVariant {}, but other has {}", rmspropTFVariant,
                                      o->rmspropTFVariant);
  }
  checkReplacementValue(lrs, o->lrs, "learning rates");
  checkReplacementValue(wds, o->wds, "weight decays");
  checkReplacementValue(as, o->as, "alphas");
  checkReplacementValue(ms, o->ms, "momentums");
  checkReplacementValue(epsvs, o->epsvs, "epss");
}

}  // namespace popart
