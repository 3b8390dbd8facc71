// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file optimizer.hpp
/// The abstract `Optimizer` base of `SGD`, `Adam` and `Adaptive` (PopART's API), the checks
/// behind `updateOptimizerFromHost`, and the options-derived factors (replication and gradient
/// accumulation) that the update equations use.
///
/// Optimizers are value types: sessions copy them (`clone()`), so the caller keeps ownership of
/// the object it passes and may change or destroy it afterwards.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "popart/clipnormsettings.hpp"
#include "popart/datatype.hpp"
#include "popart/debugcontext.hpp"
#include "popart/error.hpp"
#include "popart/names.hpp"
#include "popart/optimizervalue.hpp"

namespace popart {

struct SessionOptions;

/// The optimizer families.
enum class OptimizerType { SGD = 0, Adam, Adaptive, NTYPES };

/// Where the replicas' gradients are summed (data parallel training).
enum class OptimizerReductionType {
  None = 0,     ///< no replication
  GradReduce,   ///< every gradient, as it is produced
  AcclReduce,   ///< the SGD1 velocity, once per step (Combined SGD with gradient accumulation)
  AccumReduce,  ///< the gradient accumulator, once per step
};

/// How weight decay is applied (Adam and Adaptive).
enum class WeightDecayMode {
  Decay,             ///< wd·w is added to the update (decoupled weight decay, as in AdamW)
  L2Regularization,  ///< wd·w is added to the gradient
};

std::ostream& operator<<(std::ostream& os, OptimizerType t);
std::ostream& operator<<(std::ostream& os, WeightDecayMode m);

/// Converts the `(value, isConst)` pairs of the map constructors into OptimizerValues.
std::map<std::string, OptimizerValue> getOptMap(const std::map<std::string, std::pair<float, bool>>& m);

/// Thrown when a new optimizer can not replace the one a session was built with. The message
/// starts with "New optimizer is not a valid replacement. ".
class optimizer_replacement_error : public error {
 public:
  explicit optimizer_replacement_error(const std::string& what)
      : error("New optimizer is not a valid replacement. " + what) {}
  template <typename A, typename... Args>
  optimizer_replacement_error(const std::string& fmt, const A& a, const Args&... args)
      : error("New optimizer is not a valid replacement. " + format(fmt, a, args...)) {}
};

/// The base of all optimizers: loss scaling, clip-norm settings, replacement rules and the
/// replication / gradient-accumulation factors.
class Optimizer {
 public:
  /// Throws popart::error for a zero loss scaling ("Loss scaling cannot be 0").
  Optimizer(OptimizerValue lossScaling, const std::vector<ClipNormSettings>& clipNormSettings,
            const DebugContext& debugContext = {});
  Optimizer(const Optimizer&) = default;
  Optimizer& operator=(const Optimizer&) = default;
  virtual ~Optimizer() = default;

  virtual OptimizerType type() const = 0;
  /// "SGD", "Adam" or "Adaptive".
  virtual std::string type_s() const = 0;
  /// A copy owned by the caller.
  virtual std::unique_ptr<Optimizer> clone() const = 0;

  /// Throws optimizer_replacement_error (a popart::error) unless `other` can replace this
  /// optimizer in a built session (`updateOptimizerFromHost`) without changing the graph. The base
  /// checks the type ("Can not replace optimizer of type SGD with new optimizer of type Adam"),
  /// the clip-norm settings and the loss scaling; subclasses add their hyper-parameters.
  virtual void validReplacement(const Optimizer& other) const;

  const OptimizerValue& lossScaling() const { return ls_; }
  float getLossScalingVal() const { return ls_.val(); }
  /// Id of the loss-scaling scalar tensor of type `t`: "lossScaling_FLOAT", "lossScaling_FLOAT16".
  static TensorId getLossScalingTensorId(DataType t);
  const std::vector<ClipNormSettings>& getClipNormSettings() const { return clipNormSettings_; }
  const DebugContext& getDebugContext() const { return debugContext_; }

  /// True if weight `weightId` has weight-specific values (insertSpecific), false if it uses the
  /// defaults.
  virtual bool hasSpecific(const TensorId& weightId) const = 0;
  /// True if any weight has specific values.
  virtual bool hasSpecific() const = 0;
  /// Weight-specific values for `weightId`, keys as each optimizer's insertSpecific takes them
  /// (learningRate, weightDecay, momentum, ...; an unknown key is an error).
  virtual void insertSpecific(const TensorId& weightId,
                              const std::map<std::string, std::pair<float, bool>>& params) = 0;

  /// Ids of the optimizer-state tensors (the reserved prefix + `weightId`: "Accl___w", "Step___w",
  /// ...) that training keeps for weight `weightId`, given the factors set from the options.
  virtual std::vector<TensorId> getStateTensorIds(const TensorId& weightId) const = 0;

  /// Takes gradient accumulation, replication and the mean/sum reduction from the options.
  /// Before it is called the factors are: no accumulation, one replica, Sum reduction.
  virtual void setFactorsFromOptions(const SessionOptions& opts);
  bool gradientAccumulationEnabled() const { return enableGradientAccumulation_; }
  /// The global replication factor (1 without replication).
  int64_t getReplicatedGraphCount() const { return replicatedGraphCount_; }
  /// The accumulation factor (1 without gradient accumulation).
  int64_t getAccumulationFactor() const { return accumulationFactor_; }
  /// True with `accumulationAndReplicationReductionType == Mean`.
  bool meanReductionEnabled() const { return meanReduction_; }
  /// True if the optimizer divides the accumulated gradient by the accumulation factor
  /// (gradient accumulation with Mean reduction and the Post strategy; the Running strategy
  /// keeps a running mean in the accumulator instead).
  bool postMeanAccumulationEnabled() const { return postMeanAccumulation_; }

 protected:
  /// Runs `thisVal.validReplacement(other)` (OptimizerValue or OptimizerValueMap) and rethrows a
  /// failure as optimizer_replacement_error "Problem with <name>. <reason>".
  template <typename T>
  void checkReplacementValue(const T& thisVal, const T& other, const char* name) const {
    try {
      thisVal.validReplacement(other);
    } catch (const optimizer_replacement_error&) {
      throw;
    } catch (const error& e) {
      throw optimizer_replacement_error("Problem with {}. {}", name, e.what());
    }
  }

 private:
  OptimizerValue ls_;
  std::vector<ClipNormSettings> clipNormSettings_;
  DebugContext debugContext_;

  bool enableGradientAccumulation_ = false;
  int64_t accumulationFactor_ = 1;
  int64_t replicatedGraphCount_ = 1;
  bool meanReduction_ = false;
  bool postMeanAccumulation_ = false;
};

}  // namespace popart
