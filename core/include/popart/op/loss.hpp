// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file op/loss.hpp
/// Loss reductions (PopART's `ReductionType`) and the pre-1.2 loss objects (`NllLoss`, `L1Loss`,
/// `IdentityLoss`) that sessions took as `losses` before losses became Builder ops. Each names its
/// input tensors and the id of the loss tensor it adds; they default to ReductionType::Sum, as that
/// API did. A session given several losses trains on their sum.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "popart/names.hpp"

namespace popart {

/// How a loss (or accumulated gradients) is reduced.
enum class ReductionType { Sum = 0, Mean, NoReduction, N };
/// How Mean reduction of accumulated/replicated gradients is applied.
enum class MeanReductionStrategy { Running = 0, Post, PostAndLoss, N };

/// "Sum", "Mean", "NoReduction".
std::string reductionTypeToString(ReductionType r);
ReductionType reductionTypeFromString(const std::string& s);

/// A loss of the pre-1.2 API. The session appends the op it describes to the model.
class Loss {
 public:
  virtual ~Loss() = default;
  const std::vector<TensorId>& getInputs() const { return inputs_; }
  const TensorId& input(size_t i) const { return inputs_.at(i); }
  /// The id of the (scalar, unless NoReduction) loss tensor.
  const TensorId& output() const { return output_; }
  ReductionType getReductionType() const { return reduction_; }
  /// The op it adds: "Nll", "L1" or "IdentityLoss" (domain ai.graphcore).
  virtual std::string opType() const = 0;
  virtual std::unique_ptr<Loss> clone() const = 0;
  /// The op's attributes besides `reduction`: name -> integer or float value.
  virtual std::map<std::string, double> floatAttributes() const { return {}; }
  virtual std::map<std::string, int64_t> intAttributes() const { return {}; }

 protected:
  Loss(std::vector<TensorId> inputs, TensorId output, ReductionType reduction);

 private:
  std::vector<TensorId> inputs_;
  TensorId output_;
  ReductionType reduction_;
};

/// Negative log likelihood of `probs` [N, ..., C] (probabilities, or log-probabilities with
/// inputIsLogProbability) at the INT32 class indices `label` [N, ...].
class NllLoss : public Loss {
 public:
  NllLoss(const TensorId& probs, const TensorId& label, const TensorId& output,
          ReductionType reduction = ReductionType::Sum);
  /// Labels equal to `ignoreIndex` contribute nothing.
  NllLoss(const TensorId& probs, const TensorId& label, const TensorId& output, int ignoreIndex,
          ReductionType reduction = ReductionType::Sum, bool inputIsLogProbability = false);
  const TensorId& probsTensorId() const { return input(0); }
  const TensorId& labelTensorId() const { return input(1); }
  bool hasIgnoreIndex() const { return hasIgnoreIndex_; }
  int getIgnoreIndex() const { return ignoreIndex_; }
  bool inputIsLogProbability() const { return inputIsLogProbability_; }
  std::string opType() const override { return "Nll"; }
  std::unique_ptr<Loss> clone() const override { return std::make_unique<NllLoss>(*this); }
  std::map<std::string, int64_t> intAttributes() const override;

 private:
  bool hasIgnoreIndex_ = false;
  int ignoreIndex_ = 0;
  bool inputIsLogProbability_ = false;
};

/// lambda * sum |in| (Sum) or lambda * mean |in| (Mean).
class L1Loss : public Loss {
 public:
  L1Loss(const TensorId& in, const TensorId& output, float lambda, ReductionType reduction = ReductionType::Sum);
  float getLambda() const { return lambda_; }
  std::string opType() const override { return "L1"; }
  std::unique_ptr<Loss> clone() const override { return std::make_unique<L1Loss>(*this); }
  std::map<std::string, double> floatAttributes() const override { return {{"lambda", lambda_}}; }

 private:
  float lambda_;
};

/// The input itself as the loss, reduced (Sum / Mean) to a scalar.
class IdentityLoss : public Loss {
 public:
  IdentityLoss(const TensorId& in, const TensorId& output, ReductionType reduction = ReductionType::Sum);
  std::string opType() const override { return "IdentityLoss"; }
  std::unique_ptr<Loss> clone() const override { return std::make_unique<IdentityLoss>(*this); }
};

}  // namespace popart
