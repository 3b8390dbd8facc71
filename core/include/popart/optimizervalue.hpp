// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file optimizervalue.hpp
/// `OptimizerValue` (a hyper-parameter: value + const-ness) and `OptimizerValueMap` (a default
/// value plus per-weight overrides), as in PopART.
///
/// A const value is baked into the training graph; a non-const value becomes a scalar tensor that
/// `updateOptimizerFromHost` can overwrite. Both are plain value types: copy them freely.

#include <map>
#include <utility>

#include "popart/names.hpp"

namespace popart {

/// A hyper-parameter value and whether it stays constant for the whole training run.
class OptimizerValue final {
 public:
  /// `OptimizerValue(0, false)`.
  OptimizerValue() = default;
  /// `OptimizerValue(v, true)`: a constant.
  OptimizerValue(float v) : val_(v), isConst_(true) {}  // NOLINT: implicit, as in PopART
  /// \param v the current value. \param c true if it never changes (baked into the graph).
  OptimizerValue(float v, bool c) : val_(v), isConst_(c) {}
  /// From the `(value, isConst)` pairs of the optimizer maps.
  OptimizerValue(std::pair<float, bool> x) : OptimizerValue(x.first, x.second) {}  // NOLINT: implicit

  /// The current value.
  float val() const { return val_; }
  /// True if the value is baked into the graph and can not be changed by the user.
  bool isConst() const { return isConst_; }

  /// Throws popart::error unless `rhs` can replace this value without rebuilding the graph:
  /// const-ness must match ("Can not replace a constant value with a non constant value.") and
  /// constant values must be equal ("Values are constant but do not match.").
  void validReplacement(const OptimizerValue& rhs) const;

  /// Equal const-ness, and for constants equal values (non-const values compare equal whatever
  /// their current value: they are the same graph input). Consistent with validReplacement.
  bool operator==(const OptimizerValue& rhs) const;
  bool operator!=(const OptimizerValue& rhs) const { return !(*this == rhs); }

 private:
  float val_ = 0.0f;
  bool isConst_ = false;
};

/// A default OptimizerValue with optional weight-specific overrides.
class OptimizerValueMap {
 public:
  explicit OptimizerValueMap(OptimizerValue defaultValue) : defaultOptVal(defaultValue) {}

  /// The value specific to weight `id` if there is one, else the default.
  OptimizerValue get(const TensorId& id) const;
  /// Registers a value specific to weight `id`. Throws popart::error if `id` already has one.
  void insertSpecific(const TensorId& id, OptimizerValue v);
  /// True if weight `id` has a specific value.
  bool hasSpecific(const TensorId& id) const { return specifics.count(id) != 0; }
  /// True if any weight has a specific value.
  bool hasSpecific() const { return !specifics.empty(); }
  OptimizerValue getDefault() const { return defaultOptVal; }
  const std::map<TensorId, OptimizerValue>& getSpecifics() const { return specifics; }

  /// Throws popart::error unless `rhs` can replace this map without rebuilding the graph: the
  /// default and every specific value must be valid replacements, and both maps must hold
  /// specific values for exactly the same weights.
  void validReplacement(const OptimizerValueMap& rhs) const;

 private:
  std::map<TensorId, OptimizerValue> specifics;
  OptimizerValue defaultOptVal;
};

}  // namespace popart
