// Patterns: names, levels, mandatory checks.
#include "popart/patterns.hpp"

#include <algorithm>
#include <cctype>
#include <ostream>

#include "popart/error.hpp"

namespace popart {
namespace {

enum class Default { Mandatory, On, Off };

struct PatternRow {
  const char* name;
  Default dflt;
};

// clang-format off
const PatternRow kPatterns[] = {
    // gradient expansion (mandatory)
    {"AbsGradOp", Default::Mandatory}, {"SinGradOp", Default::Mandatory}, {"CosGradOp", Default::Mandatory},
    {"ExpGradOp", Default::Mandatory}, {"Expm1GradOp", Default::Mandatory}, {"LogGradOp", Default::Mandatory},
    {"Log1pGradOp", Default::Mandatory}, {"SqrtGradOp", Default::Mandatory}, {"ReciprocalGradOp", Default::Mandatory},
    {"DivArg0GradOp", Default::Mandatory}, {"DivArg1GradOp", Default::Mandatory}, {"PowArg0GradOp", Default::Mandatory},
    {"PowArg1GradOp", Default::Mandatory}, {"Atan2Arg0GradOp", Default::Mandatory}, {"Atan2Arg1GradOp", Default::Mandatory},
    {"FmodArg0GradOp", Default::Mandatory}, {"MulArgGradOp", Default::Mandatory}, {"SubtractArg1GradOp", Default::Mandatory},
    {"CoshOp", Default::Mandatory}, {"MatMulOp", Default::Mandatory}, {"MatMulLhsGradOp", Default::Mandatory},
    {"MatMulRhsGradOp", Default::Mandatory}, {"ConvDataGrad", Default::Mandatory},
    {"ConvFlipWeightsGradOp", Default::Mandatory}, {"ConvTranspose", Default::Mandatory},
    {"ScanToLoop", Default::Mandatory}, {"LoopScanOut", Default::Mandatory},
    {"RandomNormalLikeOpPattern", Default::Mandatory}, {"RandomUniformLikeOpPattern", Default::Mandatory},
    {"ZerosLikeOpPattern", Default::Mandatory}, {"AllReduceToIdentity", Default::Mandatory},
    {"SGD0Decompose", Default::Mandatory}, {"SGD1Decompose", Default::Mandatory}, {"SGD2Decompose", Default::Mandatory},
    {"AdamDecompose", Default::Mandatory}, {"AdaptiveDecompose", Default::Mandatory},
    // enabled by default
    {"PreUniRepl", Default::On}, {"PostNRepl", Default::On}, {"SoftMaxGradDirect", Default::On},
    {"NlllWithSoftMaxGradDirect", Default::On}, {"OpToIdentity", Default::On}, {"SplitOp", Default::On},
    {"SplitGradOpToConcat", Default::On}, {"SumToAdd", Default::On}, {"PadSum", Default::On},
    {"NegativeOneScale", Default::On}, {"DecomposeBinaryConstScalar", Default::On}, {"InitAccumulate", Default::On},
    {"UpsampleToResize", Default::On}, {"TransposeToIdentityOrReshapePattern", Default::On},
    {"ExpandCast", Default::On}, {"RemoveUnnecessaryLossGradCast", Default::On}, {"PackedDataBlock", Default::On},
    {"LambSerialisedWeight", Default::On}, {"ConvFlipWeightsDoubleFlip", Default::On},
    {"ViewSimplifyPattern", Default::On}, {"ContiguateIpuCopyIndices", Default::On},
    // off by default
    {"SplitGather", Default::Off}, {"Slice2SliceSubsample", Default::Off}, {"TiedGather", Default::Off},
    {"TiedGatherAccumulate", Default::Off}, {"LSTMOp", Default::Off},
};
// clang-format on

const PatternRow* findRow(const std::string& name) {
  for (const auto& r : kPatterns) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::vector<std::string> Patterns::getAllPatternNames() {
  std::vector<std::string> v;
  for (const auto& r : kPatterns) v.push_back(r.name);
  return v;
}

void Patterns::checkName(const std::string& name) {
  if (findRow(name) || name == "InPlace" || name == "UpdateInplacePrioritiesForIpu") return;
  for (const auto& r : kPatterns) {
    if (lower(name) == lower(r.name)) throw pattern_error("Unknown pattern {}, did you mean {}?", name, r.name);
  }
  if (lower(name) == "inplace") throw pattern_error("Unknown pattern {}, did you mean InPlace?", name);
  throw pattern_error("Unknown pattern {}", name);
}

bool Patterns::isMandatory(const std::string& name) {
  checkName(name);
  const PatternRow* r = findRow(name);
  return r && r->dflt == Default::Mandatory;
}

bool Patterns::isDefaultEnabled(const std::string& name) {
  checkName(name);
  const PatternRow* r = findRow(name);
  return r ? r->dflt != Default::Off : true;
}

Patterns::Patterns(PatternsLevel level) : level_(level) {
  for (const auto& r : kPatterns) {
    bool on = false;
    switch (level) {
      case PatternsLevel::NoPatterns:
        on = false;
        break;
      case PatternsLevel::Minimal:
        on = r.dflt == Default::Mandatory;
        break;
      case PatternsLevel::Default:
        on = r.dflt != Default::Off;
        break;
      case PatternsLevel::All:
        on = true;
        break;
    }
    enabled_[r.name] = on;
  }
  inplace_ = level == PatternsLevel::Default || level == PatternsLevel::All;
  updateInplacePrioritiesForIpu_ = inplace_;
  // NoPatterns asks for nothing, mandatory patterns included: do not insist on them.
  runtimeAsserts_ = level != PatternsLevel::NoPatterns;
}

Patterns::Patterns(const std::vector<std::string>& patterns) : level_(PatternsLevel::NoPatterns) {
  for (const auto& r : kPatterns) enabled_[r.name] = false;
  inplace_ = false;
  updateInplacePrioritiesForIpu_ = false;
  for (const auto& p : patterns) {
    checkName(p);
    if (p == "InPlace")
      inplace_ = true;
    else if (p == "UpdateInplacePrioritiesForIpu")
      updateInplacePrioritiesForIpu_ = true;
    else
      enabled_[p] = true;
  }
}

bool Patterns::isPatternEnabled(const std::string& name) const {
  checkName(name);
  if (name == "InPlace") return inplace_;
  if (name == "UpdateInplacePrioritiesForIpu") return updateInplacePrioritiesForIpu_;
  return enabled_.at(name);
}

Patterns& Patterns::enablePattern(const std::string& name, bool enabled) {
  checkName(name);
  if (name == "InPlace") return enableInPlace(enabled);
  if (name == "UpdateInplacePrioritiesForIpu") return enableUpdateInplacePrioritiesForIpu(enabled);
  if (!enabled && runtimeAsserts_ && isMandatory(name))
    throw error("Pattern '{}' is mandatory and cannot be disabled", name);
  enabled_[name] = enabled;
  return *this;
}

std::vector<std::string> Patterns::getEnabledPatternNames() const {
  std::vector<std::string> v;
  for (const auto& kv : enabled_) {
    if (kv.second) v.push_back(kv.first);
  }
  if (inplace_) v.push_back("InPlace");
  return v;
}

void Patterns::ensureAllMandatoryPreAliasPatternsAreEnabled() const {
  if (!runtimeAsserts_) return;
  for (const auto& r : kPatterns) {
    if (r.dflt == Default::Mandatory && !enabled_.at(r.name))
      throw error(
          "Pattern '{}' must be enabled (it is mandatory). Enable it, or turn runtime asserts off with "
          "Patterns::enableRuntimeAsserts(false)",
          r.name);
  }
}

bool Patterns::operator==(const Patterns& o) const {
  return enabled_ == o.enabled_ && inplace_ == o.inplace_ &&
         updateInplacePrioritiesForIpu_ == o.updateInplacePrioritiesForIpu_;
}

std::ostream& operator<<(std::ostream& os, const Patterns& p) {
  const auto names = p.getEnabledPatternNames();
  os << "Patterns[";
  for (size_t i = 0; i < names.size(); ++i) os << (i ? " " : "") << names[i];
  return os << "]";
}

}  // namespace popart
