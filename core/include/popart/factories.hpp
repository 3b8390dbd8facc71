// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file factories.hpp
/// The constructors the bindings expose for the optimizers (`SGD`, `ConstSGD`, `Adam`,
/// `Adaptive`) and the pre-1.2 loss objects (`NllLoss`, `L1Loss`, `IdentityLoss`), as data: each
/// one's overloads with their arguments (PopART's Python keyword names, in PopART's order), kinds,
/// defaults and docs, and one call that builds the object from a binding's arguments.
///
/// Python's keyword constructors, the JS package's positional ones, the Python stub and the JS
/// `.d.ts` all come from `factoryList()`; a binding turns its language's values into
/// `FactoryValue`s without looking at the table, and the core picks the overload, fills the
/// defaults, checks kinds and names, and words every error.
///
///     auto args = bindFactoryArguments("Adam", {FactoryValueMap{{"defaultLearningRate", {0.01f, false}}},
///                                                std::string("AdamNoBias")}, {});
///     std::unique_ptr<Optimizer> adam = makeOptimizer(args);

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "popart/clipnormsettings.hpp"
#include "popart/op/loss.hpp"
#include "popart/optimizer.hpp"

namespace popart {

/// An optimizer's hyper-parameter map: key -> (value, isConst), as `SGD({...})` takes it. Python
/// requires (value, isConst) tuples, as PopART; JS also reads a bare number as a const value.
using FactoryValueMap = std::map<std::string, std::pair<float, bool>>;

/// A value a binding could not express as any of the kinds below: what it is, for the message.
struct UnsupportedFactoryValue {
  std::string description;
};

/// One argument as a binding hands it over: None / null (std::monostate), a bool, an integer, a
/// real, a string (also an enum member's or a dtype's name), a hyper-parameter map, a list of
/// ClipNormSettings, or something else.
using FactoryValue = std::variant<std::monostate, bool, int64_t, double, std::string, FactoryValueMap,
                                  std::vector<ClipNormSettings>, UnsupportedFactoryValue>;

/// An argument of a constructor. `kind` is "values" (a FactoryValueMap), "clipNorms", "enum"
/// (`enumName` names it; its value's name, or its number), "dtype" (a DataType name), "float",
/// "int", "optionalInt" (an int or None), "bool", "string" or "tensor" (a tensor id). No
/// `defaultValue`: the argument is required.
struct FactoryArgInfo {
  std::string name;
  std::string kind;
  std::string enumName;
  std::optional<FactoryValue> defaultValue;
  std::string doc;
};

/// One overload: its arguments in positional order.
struct FactorySignature {
  std::vector<FactoryArgInfo> args;
  std::string doc;
};

/// A constructor the bindings expose: `family` is "optimizer" or "loss"; `base` the class it
/// derives from in PopART's Python ("Optimizer", "SGD", "Loss").
struct FactoryInfo {
  std::string name;
  std::string family;
  std::string base;
  std::string doc;
  std::vector<FactorySignature> signatures;
};

/// SGD, ConstSGD, Adam, Adaptive, NllLoss, L1Loss, IdentityLoss.
const std::vector<FactoryInfo>& factoryList();
/// One of factoryList() by name (throws popart::error for an unknown name).
const FactoryInfo& factoryInfo(const std::string& name);

/// A value as it reads in a signature: "None", "True", "0.5", "'Sum'", "{}", "[]".
std::string factoryValueToString(const FactoryValue& v);
/// One overload as text, Python-style: "Adam(values: dict = {}, mode: AdamMode = 'Adam', ...)".
std::string factorySignatureToString(const FactoryInfo& f, const FactorySignature& s);

/// The arguments of one call, matched to an overload: every argument by name, defaults filled.
struct FactoryArguments {
  const FactoryInfo* factory = nullptr;
  const FactorySignature* signature = nullptr;
  std::map<std::string, FactoryValue> values;
};

/// Matches a call of constructor `name` (positional values, then keywords) to the first overload
/// whose arguments all fit: no more positional values than arguments, every keyword an argument
/// not already given, every required argument given, every value of the argument's kind (None
/// where the argument has a default means the default). When none fits, a popart::error in
/// pybind11's words, which Python raises as a TypeError:
/// "Adam(): incompatible constructor arguments. The following argument types are supported:
///     1. Adam(values: dict = {}, ...)
/// Invoked with: 0.01".
FactoryArguments bindFactoryArguments(const std::string& name, const std::vector<FactoryValue>& positional,
                                      const std::vector<std::pair<std::string, FactoryValue>>& keywords);

/// The optimizer a call of an "optimizer" constructor describes (SGD, ConstSGD, Adam, Adaptive);
/// the constructor's own errors (an unknown key, an unknown enum name, a bad value) are thrown.
std::unique_ptr<Optimizer> makeOptimizer(const FactoryArguments& args);
/// The loss object a call of a "loss" constructor describes (NllLoss, L1Loss, IdentityLoss).
std::unique_ptr<Loss> makeLoss(const FactoryArguments& args);

}  // namespace popart
