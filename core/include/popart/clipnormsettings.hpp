// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file clipnormsettings.hpp
/// `ClipNormSettings`: gradient clipping by global norm over a group of weights (PopART's API).
///
/// For a group with maximum norm `maxNorm`, the gradients of the group, as the backward pass makes
/// them, are multiplied by `maxNorm / max(norm, maxNorm)`, where `norm` is the L2 norm over all of
/// them (PopART's ClipWeightGradientsByNorm). Only one ClipAllWeights group makes sense.

#include <vector>

#include "popart/names.hpp"

namespace popart {

class ClipNormSettings {
 public:
  /// Which weights a setting covers.
  enum class Mode { ClipSpecifiedWeights, ClipAllWeights };

  /// Clips the weights `weights` as one group with maximum norm `maxNormValue` (PopART's constructor).
  ClipNormSettings(const std::vector<TensorId>& weights, float maxNormValue);

  /// Same as the constructor.
  static ClipNormSettings clipWeights(const std::vector<TensorId>& weights, float maxNormValue);
  /// Clips all the weights of the model as one group.
  static ClipNormSettings clipAllWeights(float maxNormValue);

  const std::vector<TensorId>& getWeightIds() const { return weightIds; }
  float getMaxNorm() const { return maxNorm; }
  Mode getMode() const { return mode; }

  bool operator==(const ClipNormSettings& other) const;
  bool operator!=(const ClipNormSettings& other) const { return !(*this == other); }

  /// The weights (used only in Mode::ClipSpecifiedWeights). Public, as in PopART.
  std::vector<TensorId> weightIds;
  float maxNorm;

 private:
  ClipNormSettings(const std::vector<TensorId>& weights, float maxNormValue, Mode m);
  Mode mode;
};

}  // namespace popart
