// The optimizer and loss constructors as data (popart/factories.hpp): the table every binding
// reads, overload matching with pybind11's wording, and construction.
#include "popart/factories.hpp"

#include <cmath>
#include <sstream>

#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/error.hpp"
#include "popart/format.hpp"
#include "popart/reflection.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

FactoryArgInfo fArg(std::string name, std::string kind, std::optional<FactoryValue> def, std::string doc,
                    std::string enumName = "") {
  return {std::move(name), std::move(kind), std::move(enumName), std::move(def), std::move(doc)};
}
FactoryArgInfo fEnumArg(std::string name, std::string enumName, std::string def, std::string doc) {
  return fArg(std::move(name), "enum", FactoryValue(std::move(def)), std::move(doc), std::move(enumName));
}
FactoryArgInfo fDtypeArg(std::string name, std::string def, std::string doc) {
  return fArg(std::move(name), "dtype", FactoryValue(std::move(def)), std::move(doc));
}
FactoryArgInfo fValuesArg(const char* optimizer) {
  return fArg("values", "values", FactoryValue(FactoryValueMap{}),
              format("{key: (value, isConst)}: the hyper-parameters (optimizerParamList() lists {}'s keys and "
                     "defaults).",
                     optimizer));
}
FactoryArgInfo fClipArg() {
  return fArg("clip_norm_settings", "clipNorms", FactoryValue(std::vector<ClipNormSettings>{}),
              "Gradient clipping by global norm, one ClipNormSettings per group of weights.");
}
FactoryArgInfo fWeightDecayModeArg() {
  return fEnumArg("weight_decay_mode", "WeightDecayMode", "Decay", "Decoupled weight decay, or L2 regularization.");
}
FactoryArgInfo fDebugContextArg(const char* name) {
  return fArg("debugContext", "string", FactoryValue(std::string(name)), "Name of the optimizer's debug context.");
}
FactoryArgInfo fReductionArg() {
  return fEnumArg("reduction", "ReductionType", "Sum", "How the per-sample losses are reduced to the loss.");
}

std::vector<FactoryInfo> buildFactoryList() {
  const auto accumDoc = [](const char* what) {
    return format("Data type of the {} (FLOAT, FLOAT16, or UNDEFINED: the weight's type).", what);
  };
  std::vector<FactoryInfo> v;
  v.push_back(
      {"SGD",
       "optimizer",
       "Optimizer",
       "Stochastic gradient descent with momentum, dampening, weight decay, velocity scaling and nesterov.",
       {{{fArg("learningRate", "float", std::nullopt, "The learning rate.")},
         "poponnx's and early PopART's form: a learning rate that is not const (updateOptimizer can change it); "
         "every other value at its default."},
        {{fValuesArg("SGD"), fClipArg(),
          fEnumArg("accumulatorAndMomentum", "SGDAccumulatorAndMomentum", "Combined",
                   "One tensor for the gradient accumulator and the momentum, or two."),
          fDtypeArg("accumType", "UNDEFINED", accumDoc("gradient accumulator")),
          fDtypeArg("accl1Type", "UNDEFINED", accumDoc("momentum")), fDebugContextArg("sgd")},
         ""}}});
  v.push_back({"ConstSGD",
               "optimizer",
               "SGD",
               "SGD with a constant learning rate, weight decay and loss scaling (deprecated in PopART: use SGD).",
               {{{fArg("learning_rate", "float", std::nullopt, "The learning rate."),
                  fArg("weight_decay", "float", FactoryValue(0.0), "Weight decay."),
                  fArg("loss_scaling", "float", FactoryValue(1.0), "Loss scaling."), fClipArg()},
                 ""}}});
  v.push_back(
      {"Adam",
       "optimizer",
       "Optimizer",
       "Adam, AdamNoBias, AdaMax, Lamb and LambNoBias (by mode).",
       {{{fValuesArg("Adam"), fEnumArg("mode", "AdamMode", "Adam", "The variant."), fWeightDecayModeArg(),
          fDtypeArg("accum_type", "UNDEFINED", accumDoc("gradient accumulator")),
          fDtypeArg("accl1_type", "FLOAT", "Data type of the first moment."),
          fDtypeArg("accl2_type", "FLOAT", "Data type of the second moment."), fClipArg(),
          fArg("scaled_optimizer_state", "bool", FactoryValue(false), "Keep the moments scaled by the loss scaling."),
          fDebugContextArg("adam")},
         ""}}});
  v.push_back({"Adaptive",
               "optimizer",
               "Optimizer",
               "AdaGrad, RMSProp, CenteredRMSProp and AdaDelta (by mode).",
               {{{fValuesArg("Adaptive"), fEnumArg("mode", "AdaptiveMode", "RMSProp", "The variant."),
                  fWeightDecayModeArg(), fDtypeArg("accum_type", "UNDEFINED", accumDoc("gradient accumulator")),
                  fDtypeArg("accl1_type", "FLOAT", "Data type of the squared-gradient average."),
                  fDtypeArg("accl2_type", "FLOAT", "Data type of the second accumulator (CenteredRMSProp, AdaDelta)."),
                  fDtypeArg("accl3_type", "UNDEFINED", accumDoc("momentum")),
                  fArg("rmsprop_tf_variant", "bool", FactoryValue(false),
                       "TensorFlow's RMSProp: epsilon inside the square root, accumulator starting at 1."),
                  fDebugContextArg("adaptive")},
                 ""}}});
  const auto probs = fArg("probs", "tensor", std::nullopt, "Probabilities [N, ..., C] (or log-probabilities).");
  const auto label = fArg("label", "tensor", std::nullopt, "Class indices [N, ...] (INT32).");
  const auto lossOut = fArg("output", "tensor", std::nullopt, "Id of the loss tensor it adds.");
  v.push_back({"NllLoss",
               "loss",
               "Loss",
               "Pre-1.2 loss object: negative log likelihood.",
               {{{probs, label, lossOut, fReductionArg()}, ""},
                {{probs, label, lossOut,
                  fArg("ignoreIndex", "optionalInt", FactoryValue(std::monostate{}),
                       "Samples with this label contribute nothing (None: every sample counts)."),
                  fReductionArg(),
                  fArg("inputIsLogProbability", "bool", FactoryValue(false), "probs holds log-probabilities.")},
                 ""}}});
  const auto input = fArg("input", "tensor", std::nullopt, "The tensor the loss is of.");
  v.push_back({"L1Loss",
               "loss",
               "Loss",
               "Pre-1.2 loss object: lambda * |input|, reduced.",
               {{{input, lossOut, fArg("lambda", "float", std::nullopt, "Scale of the loss."), fReductionArg()}, ""}}});
  v.push_back({"IdentityLoss",
               "loss",
               "Loss",
               "Pre-1.2 loss object: the input itself, reduced.",
               {{{input, lossOut, fReductionArg()}, ""}}});
  return v;
}

const char* factoryPythonType(const FactoryArgInfo& a) {
  if (a.kind == "values") return "dict";
  if (a.kind == "clipNorms") return "List[ClipNormSettings]";
  if (a.kind == "enum") return a.enumName.c_str();
  if (a.kind == "dtype") return "DataType";
  if (a.kind == "float") return "float";
  if (a.kind == "int") return "int";
  if (a.kind == "optionalInt") return "Optional[int]";
  if (a.kind == "bool") return "bool";
  return "str";
}

/// Whether `v` is a value of `a`'s kind.
bool factoryValueFits(const FactoryArgInfo& a, const FactoryValue& v) {
  const auto& k = a.kind;
  if (k == "values") return std::holds_alternative<FactoryValueMap>(v);
  if (k == "clipNorms") return std::holds_alternative<std::vector<ClipNormSettings>>(v);
  if (k == "enum" || k == "dtype" || k == "string" || k == "tensor") return std::holds_alternative<std::string>(v);
  if (k == "float") return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
  if (k == "int") return std::holds_alternative<int64_t>(v);
  if (k == "optionalInt") return std::holds_alternative<int64_t>(v) || std::holds_alternative<std::monostate>(v);
  if (k == "bool") return std::holds_alternative<bool>(v);
  throw internal_error("factory argument '{}' has an unknown kind '{}'", a.name, k);
}

/// Matches one overload; false when the call does not fit it.
bool tryBindFactory(const FactorySignature& s, const std::vector<FactoryValue>& positional,
                    const std::vector<std::pair<std::string, FactoryValue>>& keywords,
                    std::map<std::string, FactoryValue>& out) {
  if (positional.size() > s.args.size()) return false;
  std::map<std::string, FactoryValue> given;
  for (size_t i = 0; i < positional.size(); ++i) given.emplace(s.args[i].name, positional[i]);
  for (const auto& [name, value] : keywords) {
    bool known = false;
    for (const auto& a : s.args) known = known || a.name == name;
    if (!known || !given.emplace(name, value).second) return false;
  }
  for (const auto& a : s.args) {
    auto it = given.find(a.name);
    // None for an argument with a default (a JS `undefined` in the middle of a call): the default.
    const bool absent = it == given.end() || (std::holds_alternative<std::monostate>(it->second) && a.defaultValue &&
                                              a.kind != "optionalInt");
    if (absent) {
      if (!a.defaultValue) return false;
      out[a.name] = *a.defaultValue;
    } else {
      if (!factoryValueFits(a, it->second)) return false;
      out[a.name] = it->second;
    }
  }
  return true;
}

template <typename T>
const T& factoryGet(const FactoryArguments& a, const std::string& name) {
  return std::get<T>(a.values.at(name));
}
float factoryFloat(const FactoryArguments& a, const std::string& name) {
  const auto& v = a.values.at(name);
  return static_cast<float>(std::holds_alternative<int64_t>(v) ? static_cast<double>(std::get<int64_t>(v))
                                                               : std::get<double>(v));
}
template <typename E>
E factoryEnum(const FactoryArguments& a, const std::string& name) {
  return enumFromString<E>(factoryGet<std::string>(a, name));
}
DataType factoryDtype(const FactoryArguments& a, const std::string& name) {
  return dataTypeFromString(factoryGet<std::string>(a, name));
}
const std::string& factoryNameOf(const FactoryArguments& a) {
  if (!a.factory || !a.signature) throw error("factory arguments used before bindFactoryArguments matched them");
  return a.factory->name;
}

}  // namespace

const std::vector<FactoryInfo>& factoryList() {
  static const std::vector<FactoryInfo> list = buildFactoryList();
  return list;
}

const FactoryInfo& factoryInfo(const std::string& name) {
  for (const auto& f : factoryList())
    if (f.name == name) return f;
  std::string names;
  for (const auto& f : factoryList()) names += (names.empty() ? "" : ", ") + f.name;
  throw error("Unknown optimizer or loss constructor '{}' (expected one of {})", name, names);
}

std::string factoryValueToString(const FactoryValue& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream os;
      os << d;
      const auto s = os.str();
      return s.find_first_of(".einf") == std::string::npos ? s + ".0" : s;
    }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
    std::string operator()(const FactoryValueMap& m) const {
      std::string s;
      for (const auto& [k, p] : m)
        s += format("{}'{}': ({}, {})", s.empty() ? "" : ", ", k, (*this)(static_cast<double>(p.first)),
                    p.second ? "True" : "False");
      return "{" + s + "}";
    }
    std::string operator()(const std::vector<ClipNormSettings>& c) const {
      return c.empty() ? "[]" : format("[{} ClipNormSettings]", c.size());
    }
    std::string operator()(const UnsupportedFactoryValue& u) const { return u.description; }
  };
  return std::visit(Visitor{}, v);
}

std::string factorySignatureToString(const FactoryInfo& f, const FactorySignature& s) {
  std::string out = f.name + "(";
  for (size_t i = 0; i < s.args.size(); ++i) {
    const auto& a = s.args[i];
    out += format("{}{}: {}", i ? ", " : "", a.name, factoryPythonType(a));
    if (a.defaultValue) out += " = " + factoryValueToString(*a.defaultValue);
  }
  return out + ")";
}

FactoryArguments bindFactoryArguments(const std::string& name, const std::vector<FactoryValue>& positional,
                                      const std::vector<std::pair<std::string, FactoryValue>>& keywords) {
  const FactoryInfo& f = factoryInfo(name);
  FactoryArguments out;
  out.factory = &f;
  for (const auto& s : f.signatures) {
    out.values.clear();
    if (tryBindFactory(s, positional, keywords, out.values)) {
      out.signature = &s;
      return out;
    }
  }
  std::string supported;
  for (size_t i = 0; i < f.signatures.size(); ++i)
    supported += format("\n    {}. {}", i + 1, factorySignatureToString(f, f.signatures[i]));
  std::string invoked;
  for (const auto& v : positional) invoked += (invoked.empty() ? "" : ", ") + factoryValueToString(v);
  for (const auto& [k, v] : keywords) invoked += (invoked.empty() ? "" : ", ") + k + "=" + factoryValueToString(v);
  throw error(
      "{}(): incompatible constructor arguments. The following argument types are supported:{}\n\nInvoked "
      "with: {}",
      f.name, supported, invoked);
}

std::unique_ptr<Optimizer> makeOptimizer(const FactoryArguments& a) {
  const std::string& name = factoryNameOf(a);
  if (a.factory->family != "optimizer") throw error("{} is not an optimizer (it is a {})", name, a.factory->family);
  if (name == "SGD") {
    if (a.values.count("learningRate"))
      return std::make_unique<SGD>(static_cast<double>(factoryFloat(a, "learningRate")));
    return std::make_unique<SGD>(
        factoryGet<FactoryValueMap>(a, "values"), factoryGet<std::vector<ClipNormSettings>>(a, "clip_norm_settings"),
        factoryEnum<SGDAccumulatorAndMomentum>(a, "accumulatorAndMomentum"), factoryDtype(a, "accumType"),
        factoryDtype(a, "accl1Type"), factoryGet<std::string>(a, "debugContext"));
  }
  if (name == "ConstSGD") {
    return std::make_unique<ConstSGD>(factoryFloat(a, "learning_rate"), factoryFloat(a, "weight_decay"),
                                      factoryFloat(a, "loss_scaling"),
                                      factoryGet<std::vector<ClipNormSettings>>(a, "clip_norm_settings"));
  }
  if (name == "Adam") {
    return std::make_unique<Adam>(factoryGet<FactoryValueMap>(a, "values"), factoryEnum<AdamMode>(a, "mode"),
                                  factoryEnum<WeightDecayMode>(a, "weight_decay_mode"), factoryDtype(a, "accum_type"),
                                  factoryDtype(a, "accl1_type"), factoryDtype(a, "accl2_type"),
                                  factoryGet<std::vector<ClipNormSettings>>(a, "clip_norm_settings"),
                                  factoryGet<bool>(a, "scaled_optimizer_state"),
                                  factoryGet<std::string>(a, "debugContext"));
  }
  if (name == "Adaptive") {
    return std::make_unique<Adaptive>(
        factoryGet<FactoryValueMap>(a, "values"), factoryEnum<AdaptiveMode>(a, "mode"),
        factoryEnum<WeightDecayMode>(a, "weight_decay_mode"), factoryDtype(a, "accum_type"),
        factoryDtype(a, "accl1_type"), factoryDtype(a, "accl2_type"), factoryDtype(a, "accl3_type"),
        factoryGet<bool>(a, "rmsprop_tf_variant"), factoryGet<std::string>(a, "debugContext"));
  }
  throw internal_error("optimizer constructor '{}' is in the table but not built", name);
}

std::unique_ptr<Loss> makeLoss(const FactoryArguments& a) {
  const std::string& name = factoryNameOf(a);
  if (a.factory->family != "loss") throw error("{} is not a loss (it is an {})", name, a.factory->family);
  const auto reduction = factoryEnum<ReductionType>(a, "reduction");
  if (name == "NllLoss") {
    const auto& probs = factoryGet<std::string>(a, "probs");
    const auto& label = factoryGet<std::string>(a, "label");
    const auto& output = factoryGet<std::string>(a, "output");
    auto ignore = a.values.find("ignoreIndex");
    const bool logProb = a.values.count("inputIsLogProbability") && factoryGet<bool>(a, "inputIsLogProbability");
    if (ignore == a.values.end() || std::holds_alternative<std::monostate>(ignore->second)) {
      // No ignored label: -1 is no sample's label, so it ignores nothing.
      if (logProb) return std::make_unique<NllLoss>(probs, label, output, -1, reduction, true);
      return std::make_unique<NllLoss>(probs, label, output, reduction);
    }
    const int64_t index = std::get<int64_t>(ignore->second);
    if (index < INT32_MIN || index > INT32_MAX) throw error("NllLoss ignoreIndex {} is not an int32", index);
    return std::make_unique<NllLoss>(probs, label, output, static_cast<int>(index), reduction, logProb);
  }
  if (name == "L1Loss")
    return std::make_unique<L1Loss>(factoryGet<std::string>(a, "input"), factoryGet<std::string>(a, "output"),
                                    factoryFloat(a, "lambda"), reduction);
  if (name == "IdentityLoss")
    return std::make_unique<IdentityLoss>(factoryGet<std::string>(a, "input"), factoryGet<std::string>(a, "output"),
                                          reduction);
  throw internal_error("loss constructor '{}' is in the table but not built", name);
}

}  // namespace popart
