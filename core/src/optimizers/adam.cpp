// Adam (AdamNoBias, AdaMax, Lamb, LambNoBias): hyper-parameter maps, checks, replacement rules.
#include "popart/adam.hpp"

#include <ostream>

#include "optimizers/optimizer_common.hpp"

namespace popart {

std::ostream& operator<<(std::ostream& os, AdamMode m) {
  return optimizer_detail::printEnum(os, m);
}

const std::vector<std::string>& Adam::getAllowedKeys() {
  static const std::vector<std::string> keys{"defaultLearningRate", "defaultWeightDecay", "defaultBeta1",
                                             "defaultBeta2",        "defaultEps",         "lossScaling",
                                             "maxWeightNorm"};
  return keys;
}

const std::vector<std::string>& Adam::getSpecificKeys() {
  static const std::vector<std::string> keys{"learningRate", "weightDecay", "beta1", "beta2", "eps", "maxWeightNorm"};
  return keys;
}

std::map<std::string, OptimizerValue> Adam::getComplete(const std::map<std::string, OptimizerValue>& m) {
  return optimizer_detail::completeDefaults(
      "Adam", getAllowedKeys(),
      {getUnsetLearningRate(), getUnsetWeightDecay(), getUnsetBeta1(), getUnsetBeta2(), getUnsetEps(),
       getUnsetLossScaling(), getUnsetMaxWeightNorm()},
      m);
}

Adam::Adam(OptimizerValue lr, OptimizerValue wd, OptimizerValue b1, OptimizerValue b2, OptimizerValue eps,
           OptimizerValue lossScaling, OptimizerValue mwn, AdamMode adamMode, WeightDecayMode weightDecayMode,
           DataType accumType_, DataType accl1Type_, DataType accl2Type_,
           const std::vector<ClipNormSettings>& clipNormSettings, bool scaledOptimizerState_,
           const DebugContext& debugContext)
    : Optimizer(lossScaling, clipNormSettings, debugContext),
      lrs(lr),
      wds(wd),
      b1s(b1),
      b2s(b2),
      epsvs(eps),
      mwns(mwn),
      mode(adamMode),
      decayMode(weightDecayMode),
      accumType(accumType_),
      accl1Type(accl1Type_),
      accl2Type(accl2Type_),
      scaledOptimizerState(scaledOptimizerState_) {
  runValueChecks(lr, wd, b1, b2, eps, mwn);
  optimizer_detail::checkStateType("Adam", "accumType", accumType);
  optimizer_detail::checkStateType("Adam", "accl1Type", accl1Type);
  optimizer_detail::checkStateType("Adam", "accl2Type", accl2Type);
}

Adam::Adam(OptimizerValue lr, OptimizerValue wd, OptimizerValue b1, OptimizerValue b2, OptimizerValue eps,
           OptimizerValue lossScaling, AdamMode adamMode, WeightDecayMode weightDecayMode, DataType accumType_,
           DataType accl1Type_, DataType accl2Type_, const std::vector<ClipNormSettings>& clipNormSettings,
           bool scaledOptimizerState_, const DebugContext& debugContext)
    : Adam(lr, wd, b1, b2, eps, lossScaling, getUnsetMaxWeightNorm(), adamMode, weightDecayMode, accumType_, accl1Type_,
           accl2Type_, clipNormSettings, scaledOptimizerState_, debugContext) {}

Adam::Adam(OptimizerValue lr, OptimizerValue wd, OptimizerValue b1, OptimizerValue b2, OptimizerValue eps,
           OptimizerValue lossScaling, AdamMode adamMode, DataType accumType_, DataType accl1Type_, DataType accl2Type_,
           const std::vector<ClipNormSettings>& clipNormSettings, bool scaledOptimizerState_,
           const DebugContext& debugContext)
    : Adam(lr, wd, b1, b2, eps, lossScaling, getUnsetMaxWeightNorm(), adamMode, WeightDecayMode::Decay, accumType_,
           accl1Type_, accl2Type_, clipNormSettings, scaledOptimizerState_, debugContext) {}

Adam::Adam(const std::map<std::string, OptimizerValue>& c, AdamMode adamMode, WeightDecayMode weightDecayMode,
           DataType accumType_, DataType accl1Type_, DataType accl2Type_,
           const std::vector<ClipNormSettings>& clipNormSettings, bool scaledOptimizerState_,
           const DebugContext& debugContext, int)
    : Adam(c.at("defaultLearningRate"), c.at("defaultWeightDecay"), c.at("defaultBeta1"), c.at("defaultBeta2"),
           c.at("defaultEps"), c.at("lossScaling"), c.at("maxWeightNorm"), adamMode, weightDecayMode, accumType_,
           accl1Type_, accl2Type_, clipNormSettings, scaledOptimizerState_, debugContext) {}

Adam::Adam(const std::map<std::string, std::pair<float, bool>>& params, AdamMode adamMode,
           WeightDecayMode weightDecayMode, DataType accumType_, DataType accl1Type_, DataType accl2Type_,
           const std::vector<ClipNormSettings>& clipNormSettings, bool scaledOptimizerState_,
           const DebugContext& debugContext)
    : Adam(getComplete(getOptMap(params)), adamMode, weightDecayMode, accumType_, accl1Type_, accl2Type_,
           clipNormSettings, scaledOptimizerState_, debugContext, 0) {}

Adam Adam::fromDefaultMap(const std::map<std::string, OptimizerValue>& params, AdamMode adamMode,
                          WeightDecayMode weightDecayMode, DataType accumType_, DataType accl1Type_,
                          DataType accl2Type_, const DebugContext& debugContext) {
  return Adam(getComplete(params), adamMode, weightDecayMode, accumType_, accl1Type_, accl2Type_, {}, false,
              debugContext, 0);
}

std::unique_ptr<Optimizer> Adam::clone() const {
  return std::make_unique<Adam>(*this);
}

void Adam::runValueChecks(OptimizerValue lr, OptimizerValue wd, OptimizerValue b1, OptimizerValue b2,
                          OptimizerValue eps, OptimizerValue mwn) {
  optimizer_detail::checkLearningRate("Adam", lr);
  if (wd.val() < 0) {
    throw error("Negative weight decay ({}) in Adam, bailing as this might be a user error", wd.val());
  }
  if (b1.val() < 0) throw error("Negative beta1 ({}) in Adam, bailing as this might be a user error", b1.val());
  if (b2.val() < 0) throw error("Negative beta2 ({}) in Adam, bailing as this might be a user error", b2.val());
  if (eps.val() <= 0) throw error("Non-positive eps ({}) in Adam is not supported", eps.val());
  if (mwn.val() < 0) {
    throw error("Negative max weight norm ({}) in Adam, bailing as this might be a user error", mwn.val());
  }
}

void Adam::insertSpecific(const TensorId& id, OptimizerValue lr, OptimizerValue wd, OptimizerValue b1,
                          OptimizerValue b2, OptimizerValue eps, OptimizerValue mwn) {
  if (hasSpecific(id)) optimizer_detail::throwAlreadySpecific(id);
  runValueChecks(lr, wd, b1, b2, eps, mwn);
  lrs.insertSpecific(id, lr);
  wds.insertSpecific(id, wd);
  b1s.insertSpecific(id, b1);
  b2s.insertSpecific(id, b2);
  epsvs.insertSpecific(id, eps);
  mwns.insertSpecific(id, mwn);
}

void Adam::insertSpecific(const TensorId& id, OptimizerValue lr, OptimizerValue wd, OptimizerValue b1,
                          OptimizerValue b2, OptimizerValue eps) {
  insertSpecific(id, lr, wd, b1, b2, eps, mwns.getDefault());
}

void Adam::insertSpecific(const TensorId& id, const std::map<std::string, std::pair<float, bool>>& params) {
  const auto c = optimizer_detail::completeSpecific(
      "Adam", getSpecificKeys(),
      {lrs.getDefault(), wds.getDefault(), b1s.getDefault(), b2s.getDefault(), epsvs.getDefault(), mwns.getDefault()},
      params);
  insertSpecific(id, c.at("learningRate"), c.at("weightDecay"), c.at("beta1"), c.at("beta2"), c.at("eps"),
                 c.at("maxWeightNorm"));
}

bool Adam::hasSpecific(const TensorId& id) const {
  return lrs.hasSpecific(id) || wds.hasSpecific(id) || b1s.hasSpecific(id) || b2s.hasSpecific(id) ||
         epsvs.hasSpecific(id) || mwns.hasSpecific(id);
}

bool Adam::hasSpecific() const {
  return lrs.hasSpecific() || wds.hasSpecific() || b1s.hasSpecific() || b2s.hasSpecific() || epsvs.hasSpecific() ||
         mwns.hasSpecific();
}

Adam::WeightValues Adam::getWeightValues(const TensorId& id) const {
  WeightValues v;
  v.learningRate = lrs.get(id);
  v.weightDecay = wds.get(id);
  v.beta1 = b1s.get(id);
  v.beta2 = b2s.get(id);
  v.eps = epsvs.get(id);
  v.maxWeightNorm = mwns.get(id);
  v.lossScaling = lossScaling();
  return v;
}

bool Adam::hasStepCounter() const {
  return mode == AdamMode::Adam || mode == AdamMode::AdaMax || mode == AdamMode::Lamb;
}

bool Adam::isLamb() const {
  return mode == AdamMode::Lamb || mode == AdamMode::LambNoBias;
}

std::vector<TensorId> Adam::getStateTensorIds(const TensorId& id) const {
  std::vector<TensorId> ids{reservedAccl1Prefix() + id, reservedAccl2Prefix() + id};
  if (hasStepCounter()) ids.push_back(reservedStepPrefix() + id);
  if (gradientAccumulationEnabled()) ids.push_back(reservedAccumPrefix() + id);
  return ids;
}

OptimizerValue Adam::gradientScaling(const TensorId&) const {
  const float af = postMeanAccumulationEnabled() ? static_cast<float>(getAccumulationFactor()) : 1.0f;
  return {1.0f / (lossScaling().val() * af), lossScaling().isConst()};
}

void Adam::validReplacement(const Optimizer& other) const {
  Optimizer::validReplacement(other);
  const auto* o = dynamic_cast<const Adam*>(&other);
  if (!o) throw internal_error("An optimizer of type Adam is not an instance of popart::Adam");
  if (mode != o->mode) throw optimizer_replacement_error("this has {}, but other has {}", mode, o->mode);
  if (decayMode != o->decayMode) {
    throw optimizer_replacement_error("this has {}, but other has {}", decayMode, o->decayMode);
  }
  checkReplacementValue(lrs, o->lrs, "learning rates");
  checkReplacementValue(wds, o->wds, "weight decays");
  checkReplacementValue(b1s, o->b1s, "beta1s");
  checkReplacementValue(b2s, o->b2s, "beta2s");
  checkReplacementValue(epsvs, o->epsvs, "epss");
  checkReplacementValue(mwns, o->mwns, "max weight norms");
}

}  // namespace popart
