// OptimizerValue, OptimizerValueMap, ClipNormSettings and the Optimizer base.
#include "popart/optimizer.hpp"

#include <cmath>
#include <ostream>
#include <sstream>

#include "optimizers/optimizer_common.hpp"
#include "popart/error.hpp"
#include "popart/sessionoptions.hpp"

namespace popart {

// ---------------------------------------------------------------- OptimizerValue

void OptimizerValue::validReplacement(const OptimizerValue& rhs) const {
  if (isConst() != rhs.isConst()) throw error("Can not replace a constant value with a non constant value.");
  if (isConst() && val() != rhs.val()) throw error("Values are constant but do not match.");
}

bool OptimizerValue::operator==(const OptimizerValue& rhs) const {
  return isConst() == rhs.isConst() && (!isConst() || val() == rhs.val());
}

// ---------------------------------------------------------------- OptimizerValueMap

OptimizerValue OptimizerValueMap::get(const TensorId& id) const {
  auto found = specifics.find(id);
  return found == specifics.end() ? defaultOptVal : found->second;
}

void OptimizerValueMap::insertSpecific(const TensorId& id, OptimizerValue v) {
  if (hasSpecific(id)) optimizer_detail::throwAlreadySpecific(id);
  specifics.emplace(id, v);
}

void OptimizerValueMap::validReplacement(const OptimizerValueMap& rhs) const {
  try {
    defaultOptVal.validReplacement(rhs.defaultOptVal);
  } catch (const error& e) {
    throw error("Default value is not a valid replacement. {}", e.what());
  }
  if (specifics.size() != rhs.specifics.size()) {
    throw error("Replacement OptimizerValueMap has a different number of specific tensors ({} instead of {}).",
                rhs.specifics.size(), specifics.size());
  }
  for (const auto& [id, ov] : specifics) {
    auto found = rhs.specifics.find(id);
    if (found == rhs.specifics.end()) throw error("Could not find tensor {} in replacement OptimizerValueMap.", id);
    try {
      ov.validReplacement(found->second);
    } catch (const error& e) {
      throw error("OptimizerValue for tensor {} is not a valid replacement. {}", id, e.what());
    }
  }
}

// ---------------------------------------------------------------- ClipNormSettings

ClipNormSettings::ClipNormSettings(const std::vector<TensorId>& weights, float maxNormValue)
    : ClipNormSettings(weights, maxNormValue, Mode::ClipSpecifiedWeights) {}

ClipNormSettings::ClipNormSettings(const std::vector<TensorId>& weights, float maxNormValue, Mode m)
    : weightIds(weights), maxNorm(maxNormValue), mode(m) {}

ClipNormSettings ClipNormSettings::clipWeights(const std::vector<TensorId>& weights, float maxNormValue) {
  return ClipNormSettings(weights, maxNormValue, Mode::ClipSpecifiedWeights);
}

ClipNormSettings ClipNormSettings::clipAllWeights(float maxNormValue) {
  return ClipNormSettings({}, maxNormValue, Mode::ClipAllWeights);
}

bool ClipNormSettings::operator==(const ClipNormSettings& other) const {
  return mode == other.mode && maxNorm == other.maxNorm &&
         (mode == Mode::ClipAllWeights || weightIds == other.weightIds);
}

// ---------------------------------------------------------------- Optimizer

std::ostream& operator<<(std::ostream& os, OptimizerType t) {
  switch (t) {
    case OptimizerType::SGD:
      return os << "SGD";
    case OptimizerType::Adam:
      return os << "Adam";
    case OptimizerType::Adaptive:
      return os << "Adaptive";
    case OptimizerType::NTYPES:
      break;
  }
  return os << "OptimizerType(" << static_cast<int>(t) << ")";
}

std::ostream& operator<<(std::ostream& os, WeightDecayMode m) {
  return optimizer_detail::printEnum(os, m);
}

std::map<std::string, OptimizerValue> getOptMap(const std::map<std::string, std::pair<float, bool>>& m) {
  std::map<std::string, OptimizerValue> out;
  for (const auto& [key, value] : m) out.emplace(key, OptimizerValue(value));
  return out;
}

Optimizer::Optimizer(OptimizerValue lossScaling, const std::vector<ClipNormSettings>& clipNorms, const DebugContext& dc)
    : ls_(lossScaling), clipNormSettings_(clipNorms), debugContext_(dc) {
  if (ls_.val() == 0.0f) throw error("Loss scaling cannot be 0");
}

TensorId Optimizer::getLossScalingTensorId(DataType t) {
  return reservedLossScalingPrefix() + dataTypeToString(t);
}

void Optimizer::validReplacement(const Optimizer& other) const {
  if (other.type() != type()) {
    throw optimizer_replacement_error("Can not replace optimizer of type {} with new optimizer of type {}", type_s(),
                                      other.type_s());
  }
  if (clipNormSettings_.size() != other.clipNormSettings_.size()) {
    throw optimizer_replacement_error("Clip norm settings do not match ({} settings instead of {}).",
                                      other.clipNormSettings_.size(), clipNormSettings_.size());
  }
  for (size_t i = 0; i < clipNormSettings_.size(); ++i) {
    if (clipNormSettings_[i] != other.clipNormSettings_[i]) {
      throw optimizer_replacement_error("Clip norm settings at index {} do not match.", i);
    }
  }
  checkReplacementValue(lossScaling(), other.lossScaling(), "loss scaling");
}

void Optimizer::setFactorsFromOptions(const SessionOptions& opts) {
  enableGradientAccumulation_ = opts.enableGradientAccumulation;
  accumulationFactor_ = opts.getAccumulationFactor();
  const int64_t local = opts.getReplicationFactor();
  replicatedGraphCount_ = opts.enableDistributedReplicatedGraphs ? opts.globalReplicationFactor : local;
  meanReduction_ = opts.accumulationAndReplicationReductionType == ReductionType::Mean;
  postMeanAccumulation_ = enableGradientAccumulation_ && meanReduction_ &&
                          opts.meanAccumulationAndReplicationReductionStrategy != MeanReductionStrategy::Running;
}

// ---------------------------------------------------------------- shared helpers

namespace optimizer_detail {

namespace {
std::string keyList(const std::vector<std::string>& keys) {
  std::ostringstream os;
  os << "( ";
  for (const auto& k : keys) os << k << ' ';
  os << ')';
  return os.str();
}

/// `defaults` (one per key of `keys`) overridden by `given`; unknown(key) throws for a key not
/// in `keys`.
template <typename V, typename F>
std::map<std::string, OptimizerValue> overridden(const std::vector<std::string>& keys,
                                                 const std::vector<OptimizerValue>& defaults,
                                                 const std::map<std::string, V>& given, F unknown) {
  POPART_ASSERT(keys.size() == defaults.size());
  std::map<std::string, OptimizerValue> complete;
  for (size_t i = 0; i < keys.size(); ++i) complete.emplace(keys[i], defaults[i]);
  for (const auto& [key, value] : given) {
    auto found = complete.find(key);
    if (found == complete.end()) unknown(key);
    found->second = OptimizerValue(value);
  }
  return complete;
}
}  // namespace

std::map<std::string, OptimizerValue> completeDefaults(const std::string& optimizer,
                                                       const std::vector<std::string>& keys,
                                                       const std::vector<OptimizerValue>& defaults,
                                                       const std::map<std::string, OptimizerValue>& given) {
  return overridden(keys, defaults, given, [&](const std::string& key) {
    throw error("Invalid {} key, {}, the allowed keys are {}", optimizer, key, keyList(keys));
  });
}

std::map<std::string, OptimizerValue> completeSpecific(const std::string& optimizer,
                                                       const std::vector<std::string>& keys,
                                                       const std::vector<OptimizerValue>& defaults,
                                                       const std::map<std::string, std::pair<float, bool>>& given) {
  return overridden(keys, defaults, given, [&](const std::string& key) {
    throw error("Invalid key {} in {}::insertSpecific. Permitted keys are {}", key, optimizer, keyList(keys));
  });
}

void throwAlreadySpecific(const TensorId& weightId) {
  throw error(
      "Attempt to insert specific value for optimization Tensor {} failed as there is already a specific value for "
      "{} present. Bailing, in case this is an error.",
      weightId, weightId);
}

void checkStateType(const std::string& optimizer, const std::string& what, DataType t) {
  if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::UNDEFINED) {
    throw error("{} {} must be FLOAT, FLOAT16 or UNDEFINED (the weight's type), not {}", optimizer, what,
                dataTypeToString(t));
  }
}

void checkLearningRate(const std::string& optimizer, OptimizerValue lr) {
  if (!std::isfinite(lr.val()))
    throw error("The learning rate ({}) in {} is not a finite number.", lr.val(), optimizer);
  if (lr.val() < 0) {
    throw error("Negative learning rate ({}) in {}, bailing as this might be a user error.", lr.val(), optimizer);
  }
  if (lr.val() == 0.0f && lr.isConst()) {
    throw error("Constant, zero learning rate in {}, bailing as this might be a user error.", optimizer);
  }
}

}  // namespace optimizer_detail
}  // namespace popart
