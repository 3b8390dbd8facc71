// SGD and ConstSGD: hyper-parameter maps, checks, replacement rules, compound scalars.
#include "popart/sgd.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <ostream>

#include "optimizers/optimizer_common.hpp"
#include "popart/tensorinfo.hpp"

namespace popart {

std::ostream& operator<<(std::ostream& os, SGDAccumulatorAndMomentum s) {
  return optimizer_detail::printEnum(os, s);
}

const std::vector<std::string>& SGD::getAllowedKeys() {
  static const std::vector<std::string> keys{
      "defaultLearningRate",    "defaultWeightDecay", "defaultMomentum", "defaultDampening",
      "defaultVelocityScaling", "lossScaling",        "nesterov"};
  return keys;
}

const std::vector<std::string>& SGD::getSpecificKeys() {
  static const std::vector<std::string> keys{"learningRate", "weightDecay",     "momentum",
                                             "dampening",    "velocityScaling", "nesterov"};
  return keys;
}

std::map<std::string, OptimizerValue> SGD::getComplete(const std::map<std::string, OptimizerValue>& m) {
  return optimizer_detail::completeDefaults(
      "SGD", getAllowedKeys(),
      {getUnsetLearningRate(), getUnsetWeightDecay(), getUnsetMomentum(), getUnsetDampening(),
       getUnsetVelocityScaling(), getUnsetLossScaling(), getUnsetNesterov()},
      m);
}

SGD::SGD(OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp, OptimizerValue vs,
         OptimizerValue lossScaling, OptimizerValue nesterovValue,
         const std::vector<ClipNormSettings>& clipNormSettings, SGDAccumulatorAndMomentum accMm, DataType accumType,
         DataType accl1Type, const DebugContext& debugContext)
    : Optimizer(lossScaling, clipNormSettings, debugContext),
      lrs(lr),
      wds(wd),
      mms(mm),
      dps(dp),
      vss(vs),
      nts(nesterovValue),
      sgdAccMm(accMm),
      sgdAccumType(accumType),
      sgd2Accl1Type(accl1Type) {
  runValueChecks(lr, wd, mm, dp, vs, nesterovValue);
  optimizer_detail::checkStateType("SGD", "accumType", accumType);
  optimizer_detail::checkStateType("SGD", "accl1Type", accl1Type);
}

SGD::SGD(OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp, OptimizerValue vs,
         OptimizerValue lossScaling, const std::vector<ClipNormSettings>& clipNormSettings,
         SGDAccumulatorAndMomentum accMm, DataType accumType, DataType accl1Type, const DebugContext& debugContext)
    : SGD(lr, wd, mm, dp, vs, lossScaling, getUnsetNesterov(), clipNormSettings, accMm, accumType, accl1Type,
          debugContext) {}

SGD::SGD(const std::map<std::string, OptimizerValue>& c, const std::vector<ClipNormSettings>& clipNormSettings,
         SGDAccumulatorAndMomentum accMm, DataType accumType, DataType accl1Type, const DebugContext& debugContext, int)
    : SGD(c.at("defaultLearningRate"), c.at("defaultWeightDecay"), c.at("defaultMomentum"), c.at("defaultDampening"),
          c.at("defaultVelocityScaling"), c.at("lossScaling"), c.at("nesterov"), clipNormSettings, accMm, accumType,
          accl1Type, debugContext) {}

SGD::SGD(const std::map<std::string, std::pair<float, bool>>& params,
         const std::vector<ClipNormSettings>& clipNormSettings, SGDAccumulatorAndMomentum accMm, DataType accumType,
         DataType accl1Type, const DebugContext& debugContext)
    : SGD(getComplete(getOptMap(params)), clipNormSettings, accMm, accumType, accl1Type, debugContext, 0) {}

SGD SGD::fromDefaultMap(const std::map<std::string, OptimizerValue>& params, const DebugContext& debugContext) {
  return SGD(getComplete(params), {}, SGDAccumulatorAndMomentum::Combined, DataType::UNDEFINED, DataType::UNDEFINED,
             debugContext, 0);
}

std::unique_ptr<Optimizer> SGD::clone() const {
  return std::make_unique<SGD>(*this);
}

SGD SGD::fromLearningRate(double lr) {
  if (!std::isfinite(lr)) throw error("SGD(learningRate): the learning rate must be a finite number, got {}", lr);
  return SGD({static_cast<float>(lr), false}, getUnsetWeightDecay(), getUnsetMomentum(), getUnsetDampening(),
             getUnsetVelocityScaling(), getUnsetLossScaling(), getUnsetNesterov());
}

void SGD::runValueChecks(OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp, OptimizerValue vs,
                         OptimizerValue nt) {
  optimizer_detail::checkLearningRate("SGD", lr);
  if (wd.val() < 0) {
    throw error("Negative weight decay ({}) in SGD, bailing as this might be a user error", wd.val());
  }
  if (mm.val() < 0) throw error("Negative momentum ({}) in SGD, bailing as this might be a user error", mm.val());
  if (dp.val() < 0) throw error("Negative dampening ({}) in SGD, bailing as this might be a user error", dp.val());
  if (vs.val() <= 0) throw error("Non-positive velocity scaling ({}) in SGD is not supported", vs.val());
  if (nt.val() != 0 && dp.val() > 0) {
    throw error("When nesterov momentum is enabled, the dampening ({}) in SGD must be zero", dp.val());
  }
}

void SGD::insertSpecific(const TensorId& id, OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp,
                         OptimizerValue vs, OptimizerValue nt) {
  if (hasSpecific(id)) optimizer_detail::throwAlreadySpecific(id);
  runValueChecks(lr, wd, mm, dp, vs, nt);
  lrs.insertSpecific(id, lr);
  wds.insertSpecific(id, wd);
  mms.insertSpecific(id, mm);
  dps.insertSpecific(id, dp);
  vss.insertSpecific(id, vs);
  nts.insertSpecific(id, nt);
}

void SGD::insertSpecific(const TensorId& id, OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp,
                         OptimizerValue vs) {
  insertSpecific(id, lr, wd, mm, dp, vs, nts.getDefault());
}

void SGD::insertSpecific(const TensorId& id, const std::map<std::string, std::pair<float, bool>>& params) {
  // Missing keys take the current defaults (not the getUnset* ones): with a default momentum of
  // 0.7 and no "momentum" key, weight `id` gets 0.7.
  const auto c = optimizer_detail::completeSpecific(
      "SGD", getSpecificKeys(),
      {lrs.getDefault(), wds.getDefault(), mms.getDefault(), dps.getDefault(), vss.getDefault(), nts.getDefault()},
      params);
  insertSpecific(id, c.at("learningRate"), c.at("weightDecay"), c.at("momentum"), c.at("dampening"),
                 c.at("velocityScaling"), c.at("nesterov"));
}

bool SGD::hasSpecific(const TensorId& id) const {
  return lrs.hasSpecific(id) || wds.hasSpecific(id) || mms.hasSpecific(id) || dps.hasSpecific(id) ||
         vss.hasSpecific(id) || nts.hasSpecific(id);
}

bool SGD::hasSpecific() const {
  return lrs.hasSpecific() || wds.hasSpecific() || mms.hasSpecific() || dps.hasSpecific() || vss.hasSpecific() ||
         nts.hasSpecific();
}

SGD::WeightValues SGD::getWeightValues(const TensorId& id) const {
  WeightValues v;
  v.learningRate = lrs.get(id);
  v.weightDecay = wds.get(id);
  v.momentum = mms.get(id);
  v.dampening = dps.get(id);
  v.velocityScaling = vss.get(id);
  v.lossScaling = lossScaling();
  v.nesterov = enableNesterov(id);
  return v;
}

bool SGD::hasMomentum(const TensorId& id) const {
  const OptimizerValue mm = mms.get(id);
  return !mm.isConst() || mm.val() != 0.0f;
}

bool SGD::enableNesterov(const TensorId& id) const {
  return nts.get(id).val() != 0.0f && mms.get(id).val() > 0.0f;
}

namespace {

/// Whether a ClipNormSettings group holds the weight.
bool clipped(const std::vector<ClipNormSettings>& settings, const TensorId& id) {
  for (const ClipNormSettings& s : settings) {
    if (s.getMode() == ClipNormSettings::Mode::ClipAllWeights) return true;
    const auto& ids = s.getWeightIds();
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) return true;
  }
  return false;
}

}  // namespace

std::vector<TensorId> SGD::getStateTensorIds(const TensorId& id) const {
  const bool accum = gradientAccumulationEnabled();
  if (!hasMomentum(id)) {
    if (accum) return {reservedAccumPrefix() + id};
    return {};
  }
  if (sgdAccMm == SGDAccumulatorAndMomentum::Combined) {
    std::vector<TensorId> ids{reservedAcclPrefix() + id};
    // Nesterov needs the raw accumulated gradient next to the combined velocity, and gradient
    // clipping the whole accumulated gradient before the update.
    if (accum && (enableNesterov(id) || clipped(getClipNormSettings(), id))) ids.push_back(reservedAccumPrefix() + id);
    return ids;
  }
  std::vector<TensorId> ids{reservedAccl1Prefix() + id};
  if (accum) ids.push_back(reservedAccumPrefix() + id);
  return ids;
}

int64_t SGD::sgd1ReplicationFactor() const {
  // PopART all-reduces the Combined velocity once per step with gradient accumulation, so each
  // replica's velocity carries 1 / replicas of the momentum and weight-decay terms. This runtime
  // sums the gradients over the replicas before they reach the velocity (training_graph.cpp,
  // reduceAcrossReplicas): every replica's velocity is the whole one, as without replication.
  return 1;
}

int64_t SGD::meanAccumulationFactor() const {
  return postMeanAccumulationEnabled() ? getAccumulationFactor() : 1;
}

namespace {
bool allConst(std::initializer_list<OptimizerValue> vs) {
  for (const auto& v : vs)
    if (!v.isConst()) return false;
  return true;
}
}  // namespace

OptimizerValue SGD::scaledLearningRate0(const TensorId& id) const {
  const auto lr = lrs.get(id), dm = dps.get(id), ls = lossScaling();
  const float af = static_cast<float>(meanAccumulationFactor());
  return {lr.val() * (1.0f - dm.val()) / (ls.val() * af), allConst({lr, dm, ls})};
}

OptimizerValue SGD::weightDecayScaleFactor0(const TensorId& id) const {
  const auto lr = lrs.get(id), dm = dps.get(id), wd = wds.get(id);
  return {1.0f - lr.val() * (1.0f - dm.val()) * wd.val(), allConst({lr, dm, wd})};
}

OptimizerValue SGD::scaledWeightDecay1(const TensorId& id) const {
  const auto dm = dps.get(id), wd = wds.get(id), vs = vss.get(id);
  return {(1.0f - dm.val()) * wd.val() * vs.val(), allConst({dm, wd, vs})};
}

OptimizerValue SGD::dampeningScaleFactor1(const TensorId& id) const {
  const auto dm = dps.get(id), vs = vss.get(id), ls = lossScaling();
  const float rf = static_cast<float>(sgd1ReplicationFactor());
  const float af = static_cast<float>(meanAccumulationFactor());
  return {(1.0f - dm.val()) * vs.val() * rf / (ls.val() * af), allConst({dm, vs, ls})};
}

OptimizerValue SGD::scaledLearningRate1(const TensorId& id) const {
  const auto lr = lrs.get(id), vs = vss.get(id);
  const float rf = static_cast<float>(sgd1ReplicationFactor());
  return {lr.val() / (vs.val() * rf), allConst({lr, vs})};
}

OptimizerValue SGD::scaledMomentum1(const TensorId& id) const {
  const auto mm = mms.get(id);
  return {mm.val() / static_cast<float>(sgd1ReplicationFactor()), mm.isConst()};
}

OptimizerValue SGD::nesterovDampeningScaleFactor1(const TensorId& id) const {
  const auto dm = dps.get(id), vs = vss.get(id);
  const float rf = static_cast<float>(sgd1ReplicationFactor());
  const float af = static_cast<float>(meanAccumulationFactor());
  return {af / ((1.0f - dm.val()) * vs.val() * rf), allConst({dm, vs})};
}

OptimizerValue SGD::nesterovGradScaleFactor1(const TensorId& id) const {
  const auto vs = vss.get(id);
  return {vs.val() * static_cast<float>(sgd1ReplicationFactor()), vs.isConst()};
}

OptimizerValue SGD::dampeningScaleFactor2(const TensorId& id) const {
  const auto dm = dps.get(id), vs = vss.get(id), ls = lossScaling();
  const float af = static_cast<float>(meanAccumulationFactor());
  return {(1.0f - dm.val()) * vs.val() / (ls.val() * af), allConst({dm, vs, ls})};
}

OptimizerValue SGD::scaledLearningRate2(const TensorId& id) const {
  const auto lr = lrs.get(id), vs = vss.get(id);
  return {lr.val() / vs.val(), allConst({lr, vs})};
}

OptimizerValue SGD::scaledMomentum2(const TensorId& id) const {
  return mms.get(id);
}

OptimizerValue SGD::nesterovDampeningScaleFactor2(const TensorId& id) const {
  const auto dm = dps.get(id), vs = vss.get(id);
  const float af = static_cast<float>(meanAccumulationFactor());
  return {af / ((1.0f - dm.val()) * vs.val()), allConst({dm, vs})};
}

OptimizerValue SGD::nesterovGradScaleFactor2(const TensorId& id) const {
  return vss.get(id);
}

void SGD::validReplacement(const Optimizer& other) const {
  Optimizer::validReplacement(other);
  const auto* o = dynamic_cast<const SGD*>(&other);
  if (!o) throw internal_error("An optimizer of type SGD is not an instance of popart::SGD");

  checkReplacementValue(lrs, o->lrs, "learning rates");
  checkReplacementValue(wds, o->wds, "weight decays");
  checkReplacementValue(mms, o->mms, "momentums");
  checkReplacementValue(vss, o->vss, "velocity scalings");
  checkReplacementValue(nts, o->nts, "nesterov");
  // Dampening is not compared (as in PopART).

  auto needsVelocity = [](const SGD& s) {
    const OptimizerValue mm = s.mms.getDefault();
    return !mm.isConst() || mm.val() != 0.0f;
  };
  const bool thisNeeds = needsVelocity(*this);
  if (thisNeeds != needsVelocity(*o)) {
    throw optimizer_replacement_error("this {} a velocity tensor, but other {}.",
                                      thisNeeds ? "requires" : "does not require", thisNeeds ? "does not" : "does");
  }
  if (!thisNeeds) return;
  if (sgdAccMm != o->sgdAccMm) {
    throw optimizer_replacement_error("this has {}, but other has {}", sgdAccMm, o->sgdAccMm);
  }
  if (sgdAccMm == SGDAccumulatorAndMomentum::Separate) {
    if (sgdAccumType != o->sgdAccumType) {
      throw optimizer_replacement_error(
          "this has SGDAccumulatorAndMomentum::Separate and accumType {}, but other has {}", sgdAccumType,
          o->sgdAccumType);
    }
    if (sgd2Accl1Type != o->sgd2Accl1Type) {
      throw optimizer_replacement_error(
          "this has SGDAccumulatorAndMomentum::Separate and accl1Type {}, but other has {}", sgd2Accl1Type,
          o->sgd2Accl1Type);
    }
  }
}

}  // namespace popart
