// The optimizers' hyper-parameter keys as data (popart/reflection.hpp): names and order from each
// optimizer's getAllowedKeys(), defaults from its getComplete({}), so the table cannot drift from
// what the constructors accept.
#include <map>

#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/reflection.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

const std::map<std::string, const char*>& docs() {
  static const std::map<std::string, const char*> d{
      {"defaultLearningRate", "Learning rate of every weight without a specific value."},
      {"defaultWeightDecay", "Weight decay (L2 or decoupled, by WeightDecayMode)."},
      {"defaultMomentum", "Momentum."},
      {"defaultDampening", "Dampening of the momentum."},
      {"defaultVelocityScaling", "Scaling of the SGD velocity (numerical range)."},
      {"lossScaling", "Loss scaling: gradients are computed scaled and divided before the update."},
      {"nesterov", "1: Nesterov momentum (SGD with momentum)."},
      {"defaultBeta1", "Decay of the first moment."},
      {"defaultBeta2", "Decay of the second moment."},
      {"defaultEps", "Added to the denominator for numerical stability."},
      {"maxWeightNorm", "Lamb: the largest weight norm used in the trust ratio."},
      {"defaultAlpha", "Decay of the squared-gradient average (RMSProp, AdaDelta)."},
  };
  return d;
}

void add(std::vector<OptimizerParamInfo>& out, const char* name, const std::vector<std::string>& keys,
         const std::map<std::string, OptimizerValue>& defaults) {
  for (const auto& k : keys) {
    const OptimizerValue& v = defaults.at(k);
    auto it = docs().find(k);
    out.push_back({name, k, v.val(), v.isConst(), it == docs().end() ? "" : it->second});
  }
}

}  // namespace

const std::vector<OptimizerParamInfo>& optimizerParamList() {
  static const std::vector<OptimizerParamInfo> list = [] {
    std::vector<OptimizerParamInfo> v;
    add(v, "SGD", SGD::getAllowedKeys(), SGD::getComplete({}));
    add(v, "Adam", Adam::getAllowedKeys(), Adam::getComplete({}));
    add(v, "Adaptive", Adaptive::getAllowedKeys(), Adaptive::getComplete({}));
    return v;
  }();
  return list;
}

}  // namespace popart
