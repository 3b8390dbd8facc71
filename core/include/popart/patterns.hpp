// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file patterns.hpp
/// `Patterns`: the named graph rewrites a session may apply, selected by level or by name.
/// Levels: NoPatterns (nothing, InPlace off), Minimal (mandatory only), Default (mandatory +
/// enabled-by-default, InPlace on), All (everything, InPlace on).

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace popart {

enum class PatternsLevel { NoPatterns = 0, Minimal, Default, All };

class Patterns {
 public:
  Patterns(PatternsLevel level = PatternsLevel::Default);  // NOLINT: implicit as in PopART
  /// Exactly the listed patterns ("InPlace" may be listed too). Unknown names throw.
  explicit Patterns(const std::vector<std::string>& patterns);
  static Patterns create(const std::vector<std::string>& patterns) { return Patterns(patterns); }

  /// Every pattern name this runtime knows.
  static std::vector<std::string> getAllPatternNames();
  static bool isMandatory(const std::string& name);
  static bool isDefaultEnabled(const std::string& name);
  /// Throws popart::error "Unknown pattern X" (with a hint for near misses).
  static void checkName(const std::string& name);

  bool isPatternEnabled(const std::string& name) const;
  /// Disabling a mandatory pattern throws "Pattern 'X' is mandatory and cannot be disabled"
  /// while runtime asserts are on.
  Patterns& enablePattern(const std::string& name, bool enabled);
  std::vector<std::string> getEnabledPatternNames() const;
  /// This runtime's: the disabled pattern PopART needs to lower op `opType` (`inputIndex` -1) or
  /// its gradient with respect to input `inputIndex`, or "" when nothing is missing.
  std::string disabledLoweringPattern(const std::string& opType, int inputIndex) const;

  bool isInPlaceEnabled() const { return inplace_; }
  Patterns& enableInPlace(bool v) {
    inplace_ = v;
    return *this;
  }
  bool isUpdateInplacePrioritiesForIpuEnabled() const { return updateInplacePrioritiesForIpu_; }
  Patterns& enableUpdateInplacePrioritiesForIpu(bool v) {
    updateInplacePrioritiesForIpu_ = v;
    return *this;
  }

  // Named accessors PopART's Python exposes as properties.
  bool isPreUniReplEnabled() const { return isPatternEnabled("PreUniRepl"); }
  Patterns& enablePreUniRepl(bool v) { return enablePattern("PreUniRepl", v); }
  bool isPostNReplEnabled() const { return isPatternEnabled("PostNRepl"); }
  Patterns& enablePostNRepl(bool v) { return enablePattern("PostNRepl", v); }
  bool isSoftmaxGradDirectEnabled() const { return isPatternEnabled("SoftmaxGradDirect"); }
  Patterns& enableSoftmaxGradDirect(bool v) { return enablePattern("SoftmaxGradDirect", v); }
  bool isNlllWithSoftmaxGradDirectEnabled() const { return isPatternEnabled("NlllWithSoftmaxGradDirect"); }
  Patterns& enableNlllWithSoftmaxGradDirect(bool v) { return enablePattern("NlllWithSoftmaxGradDirect", v); }
  bool isOpToIdentityEnabled() const { return isPatternEnabled("OpToIdentity"); }
  Patterns& enableOpToIdentity(bool v) { return enablePattern("OpToIdentity", v); }
  bool isSubtractArg1GradOpEnabled() const { return isPatternEnabled("SubtractArg1GradOp"); }
  Patterns& enableSubtractArg1GradOp(bool v) { return enablePattern("SubtractArg1GradOp", v); }
  bool isMulArgGradOpEnabled() const { return isPatternEnabled("MulArgGradOp"); }
  Patterns& enableMulArgGradOp(bool v) { return enablePattern("MulArgGradOp", v); }
  bool isMatMulOpEnabled() const { return isPatternEnabled("MatMulOp"); }
  Patterns& enableMatMulOp(bool v) { return enablePattern("MatMulOp", v); }
  bool isMatMulLhsGradOpEnabled() const { return isPatternEnabled("MatMulLhsGradOp"); }
  Patterns& enableMatMulLhsGradOp(bool v) { return enablePattern("MatMulLhsGradOp", v); }
  bool isMatMulRhsGradOpEnabled() const { return isPatternEnabled("MatMulRhsGradOp"); }
  Patterns& enableMatMulRhsGradOp(bool v) { return enablePattern("MatMulRhsGradOp", v); }

  /// With runtime asserts on (the default), a session refuses a Patterns that leaves out a
  /// mandatory pattern ("Pattern 'X' must be enabled").
  Patterns& enableRuntimeAsserts(bool v) {
    runtimeAsserts_ = v;
    return *this;
  }
  bool getRuntimeAssertsOn() const { return runtimeAsserts_; }
  /// Throws if runtime asserts are on and a mandatory pattern is disabled.
  void ensureAllMandatoryPreAliasPatternsAreEnabled() const;

  PatternsLevel level() const { return level_; }
  bool operator==(const Patterns& o) const;

 private:
  PatternsLevel level_ = PatternsLevel::Default;
  std::map<std::string, bool> enabled_;
  bool inplace_ = true;
  bool updateInplacePrioritiesForIpu_ = true;
  bool runtimeAsserts_ = true;
};

std::ostream& operator<<(std::ostream& os, const Patterns& p);

}  // namespace popart
