// Helpers shared by the SGD, Adam and Adaptive value classes.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "popart/datatype.hpp"
#include "popart/names.hpp"
#include "popart/optimizervalue.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace optimizer_detail {

/// `defaults` (one per key of `keys`) overridden by `given`. A key of `given` not in `keys` throws
/// "Invalid <optimizer> key, K, the allowed keys are ( k1 k2 ... )".
std::map<std::string, OptimizerValue> completeDefaults(const std::string& optimizer,
                                                       const std::vector<std::string>& keys,
                                                       const std::vector<OptimizerValue>& defaults,
                                                       const std::map<std::string, OptimizerValue>& given);

/// The same for insertSpecific maps: "Invalid key K in <optimizer>::insertSpecific. Permitted keys
/// are ( k1 k2 ... )".
std::map<std::string, OptimizerValue> completeSpecific(const std::string& optimizer,
                                                       const std::vector<std::string>& keys,
                                                       const std::vector<OptimizerValue>& defaults,
                                                       const std::map<std::string, std::pair<float, bool>>& given);

/// Throws the "already has a specific value" error of a second insertSpecific for `weightId`.
[[noreturn]] void throwAlreadySpecific(const TensorId& weightId);

/// Optimizer-state tensor types: FLOAT, FLOAT16 or UNDEFINED (the weight's type).
void checkStateType(const std::string& optimizer, const std::string& what, DataType t);

/// The learning-rate checks shared by all optimizers: negative, or constant zero.
void checkLearningRate(const std::string& optimizer, OptimizerValue lr);

/// Prints "E::Value" by the enum table of popart/reflection.hpp, or "E(n)" for a value outside it.
template <typename E>
std::ostream& printEnum(std::ostream& os, E v) {
  const char* name = EnumTraits<E>::name();
  const std::vector<std::string>& values = enumInfo(name).values;
  const int i = static_cast<int>(v);
  if (i < 0 || i >= static_cast<int>(values.size())) return os << name << "(" << i << ")";
  return os << name << "::" << values[static_cast<size_t>(i)];
}

}  // namespace optimizer_detail
}  // namespace popart
