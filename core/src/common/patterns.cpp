// Patterns: names, levels, mandatory checks.
#include "popart/patterns.hpp"

#include <ostream>

#include "common/strings.hpp"
#include "popart/error.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

enum class Default { Mandatory, On, Off };

// Why a PopART pattern has no rewrite here: this runtime lowers the op it targets directly.
constexpr const char* kGradKernel =
    "PopART decomposes this grad op into forward ops; here the CPU backend's grad rule emits "
    "forward ops or a grad kernel directly, so there is nothing to rewrite. Disabled (runtime asserts off), "
    "a gradient that needs it fails as in PopART (\"This op should have been removed by pattern ...\").";
constexpr const char* kDirect = "The CPU backend has a kernel for this op as it stands: no rewrite is needed.";
constexpr const char* kOptimizer =
    "The optimizer's update is one fused weight-update op with its own kernel here: no decomposition.";
constexpr const char* kIpu = "An IPU-specific rewrite (tiles, replicas, serialisation): nothing to do on this device.";

struct PatternRow {
  const char* name;
  Default dflt;
  bool rewrite;  ///< this runtime rewrites the IR when the pattern is enabled
  const char* doc;
};

// clang-format off
const PatternRow kPatterns[] = {
    // gradient expansion (mandatory in PopART)
    {"AbsGradOp", Default::Mandatory, false, kGradKernel}, {"SinGradOp", Default::Mandatory, false, kGradKernel},
    {"CosGradOp", Default::Mandatory, false, kGradKernel}, {"ExpGradOp", Default::Mandatory, false, kGradKernel},
    {"Expm1GradOp", Default::Mandatory, false, kGradKernel}, {"LogGradOp", Default::Mandatory, false, kGradKernel},
    {"Log1pGradOp", Default::Mandatory, false, kGradKernel}, {"SqrtGradOp", Default::Mandatory, false, kGradKernel},
    {"ReciprocalGradOp", Default::Mandatory, false, kGradKernel},
    {"DivArg0GradOp", Default::Mandatory, false, kGradKernel}, {"DivArg1GradOp", Default::Mandatory, false, kGradKernel},
    {"PowArg0GradOp", Default::Mandatory, false, kGradKernel}, {"PowArg1GradOp", Default::Mandatory, false, kGradKernel},
    {"Atan2Arg0GradOp", Default::Mandatory, false, kGradKernel},
    {"Atan2Arg1GradOp", Default::Mandatory, false, kGradKernel},
    {"FmodArg0GradOp", Default::Mandatory, false, kGradKernel}, {"MulArgGradOp", Default::Mandatory, false, kGradKernel},
    {"SubtractArg1GradOp", Default::Mandatory, false, kGradKernel},
    {"CoshOp", Default::Mandatory, false, kDirect}, {"MatMulOp", Default::Mandatory, false, kDirect},
    {"MatMulLhsGradOp", Default::Mandatory, false, kGradKernel},
    {"MatMulRhsGradOp", Default::Mandatory, false, kGradKernel},
    {"ConvDataGrad", Default::Mandatory, false, kGradKernel},
    {"ConvFlipWeightsGradOp", Default::Mandatory, false, kGradKernel},
    {"ConvTranspose", Default::Mandatory, false, kDirect}, {"ScanToLoop", Default::Mandatory, false, kDirect},
    {"LoopScanOut", Default::Mandatory, false, kDirect},
    {"RandomNormalLikeOpPattern", Default::Mandatory, true,
     "RandomNormalLike becomes RandomNormal with its input's shape (and type when no dtype is given)."},
    {"RandomUniformLikeOpPattern", Default::Mandatory, true,
     "RandomUniformLike becomes RandomUniform with its input's shape (and type when no dtype is given)."},
    {"ZerosLikeOpPattern", Default::Mandatory, false, kDirect}, {"AllReduceToIdentity", Default::Mandatory, false, kIpu},
    {"SGD0Decompose", Default::Mandatory, false, kOptimizer}, {"SGD1Decompose", Default::Mandatory, false, kOptimizer},
    {"SGD2Decompose", Default::Mandatory, false, kOptimizer}, {"AdamDecompose", Default::Mandatory, false, kOptimizer},
    {"AdaptiveDecompose", Default::Mandatory, false, kOptimizer},
    // enabled by default
    {"PreUniRepl", Default::On, true,
     "A one-input Sum or a Pad that pads nothing, sole consumer of its input: the producer writes its output "
     "directly."},
    {"PostNRepl", Default::On, true,
     "An Identity (or one-input Sum, zero Pad) goes: its consumers read its input (not when its output is an "
     "anchor)."},
    {"OpToIdentity", Default::On, true,
     "Ops that compute nothing become Identity: one-input Sum / Concat, zero Pad, Subsample by 1, Transpose by the "
     "identity permutation, Reshape / Expand to the same shape, Cast to the same type, Slice of everything, Clip "
     "without bounds, a Reduce over size-1 axes, Dropout and Detach in inference."},
    {"FuseActivation", Default::On, true,
     "This runtime's: Relu, Sigmoid, Tanh, LeakyRelu or Clip after a Conv, Gemm or MatMul runs in that kernel's "
     "epilogue (inference)."},
    {"FuseLayerNorm", Default::On, true,
     "This runtime's: the decomposed layer norm exporters write (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, "
     "Mul, Add) becomes one LayerNormalization op (inference)."},
    {"SoftmaxGradDirect", Default::On, true,
     "The Nll gradient then the Softmax gradient (Nll reading a last-axis Softmax's output) become one "
     "SoftmaxGradDirect op: dLoss * (probabilities - onehot(label)), without dividing by the probabilities."},
    {"NlllWithSoftmaxGradDirect", Default::On, true,
     "A SoftmaxGradDirect and the forward Nll of the same probabilities and labels become one "
     "NlllWithSoftmaxGradDirect op writing the loss and the gradient."},
    {"SplitOp", Default::On, true, "A Split becomes one Slice per output that is read."},
    {"SplitGradOpToConcat", Default::On, false,
     "The gradient of Split is built as a Concat of the output gradients already: there is no SplitGrad op."},
    {"SumToAdd", Default::On, true, "A Sum of two inputs becomes an Add."},
    {"PadSum", Default::On, true,
     "A Sum or Add of zero-padded tensors, all padded along one axis with non-overlapping values, becomes a Concat of "
     "tensors padded only to fill the gaps."},
    {"NegativeOneScale", Default::On, true, "Scale by -1 becomes Neg."},
    {"DecomposeBinaryConstScalar", Default::On, false,
     "PopART's BinaryConstScalar op comes only from its popart.ir API; ONNX models and the Builder cannot make one, "
     "so there is nothing to decompose."},
    {"InitAccumulate", Default::On, false, kOptimizer},
    {"UpsampleToResize", Default::On, true,
     "Upsample becomes the Resize that computes the same (asymmetric coordinates, nearest index rounded down)."},
    {"TransposeToIdentityOrReshapePattern", Default::On, true,
     "A Transpose that undoes an earlier one (through Identity ops and at most one Reshape inserting size-1 "
     "dimensions) becomes an Identity (or that Reshape) of the earlier Transpose's input."},
    {"ExpandCast", Default::On, true, "Expand then Cast becomes Cast then Expand (the cast converts fewer elements)."},
    {"RemoveUnnecessaryLossGradCast", Default::On, false, kGradKernel},
    {"PackedDataBlock", Default::On, false, kDirect}, {"LambSerialisedWeight", Default::On, false, kOptimizer},
    {"ConvFlipWeightsDoubleFlip", Default::On, false, kGradKernel},
    {"ViewSimplifyPattern", Default::On, false, "Views (Reshape, Squeeze, ...) alias their input in the memory plan here."},
    {"ContiguateIpuCopyIndices", Default::On, false, kIpu},
    // off by default
    {"SplitGather", Default::Off, false, kIpu}, {"Slice2SliceSubsample", Default::Off, false, kDirect},
    {"TiedGather", Default::Off, false, kIpu}, {"TiedGatherAccumulate", Default::Off, false, kIpu},
    {"LSTMOp", Default::Off, false, kDirect},
};
// clang-format on

// The ops whose PopART lowering needs a pattern (PopART has no kernel for the op it replaces): with
// the pattern disabled (runtime asserts off), PopART fails to lower them, and so does this runtime.
// `input`: kTheOp (the forward op itself), kAnyInput (its gradient with respect to any input), or
// the gradient with respect to that input.
constexpr int kTheOp = -1;
constexpr int kAnyInput = -2;
struct LoweringRow {
  const char* pattern;
  const char* opType;
  int input;
};
const LoweringRow kLowering[] = {
    {"AbsGradOp", "Abs", kAnyInput},
    {"SinGradOp", "Sin", kAnyInput},
    {"CosGradOp", "Cos", kAnyInput},
    {"ExpGradOp", "Exp", kAnyInput},
    {"Expm1GradOp", "Expm1", kAnyInput},
    {"LogGradOp", "Log", kAnyInput},
    {"Log1pGradOp", "Log1p", kAnyInput},
    {"SqrtGradOp", "Sqrt", kAnyInput},
    {"ReciprocalGradOp", "Reciprocal", kAnyInput},
    {"DivArg0GradOp", "Div", 0},
    {"DivArg1GradOp", "Div", 1},
    {"PowArg0GradOp", "Pow", 0},
    {"PowArg1GradOp", "Pow", 1},
    {"Atan2Arg0GradOp", "Atan2", 0},
    {"Atan2Arg1GradOp", "Atan2", 1},
    {"FmodArg0GradOp", "Fmod", 0},
    {"MulArgGradOp", "Mul", kAnyInput},
    {"SubtractArg1GradOp", "Sub", 1},
    {"MatMulLhsGradOp", "MatMul", 0},
    {"MatMulRhsGradOp", "MatMul", 1},
    {"ConvDataGrad", "Conv", 0},
    {"ConvDataGrad", "ConvTranspose", 0},
    {"ConvFlipWeightsGradOp", "ConvTranspose", 1},
    {"CoshOp", "Cosh", kTheOp},
    {"ConvTranspose", "ConvTranspose", kTheOp},
};

const PatternRow* findRow(const std::string& name) {
  for (const auto& r : kPatterns) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

}  // namespace

const std::vector<PatternInfo>& patternList() {
  static const std::vector<PatternInfo> list = [] {
    std::vector<PatternInfo> v;
    static const char* defaults[] = {"Mandatory", "On", "Off"};
    for (const auto& r : kPatterns) v.push_back({r.name, defaults[static_cast<int>(r.dflt)], r.rewrite, r.doc});
    v.push_back({"InPlace", "On", true,
                 "Ops write their output over an input no later op reads (ReluInplace, AddLhsInplace, "
                 "ReshapeInplace, ...): the memory plan gives the output no buffer of its own."});
    v.push_back({"UpdateInplacePrioritiesForIpu", "On", false, kIpu});
    return v;
  }();
  return list;
}

std::vector<std::string> Patterns::getAllPatternNames() {
  std::vector<std::string> v;
  for (const auto& r : kPatterns) v.push_back(r.name);
  return v;
}

void Patterns::checkName(const std::string& name) {
  if (findRow(name) || name == "InPlace" || name == "UpdateInplacePrioritiesForIpu") return;
  for (const auto& r : kPatterns) {
    if (asciiLower(name) == asciiLower(r.name))
      throw pattern_error("Unknown pattern {}, did you mean {}?", name, r.name);
  }
  if (asciiLower(name) == "inplace") throw pattern_error("Unknown pattern {}, did you mean InPlace?", name);
  throw pattern_error("Unknown pattern {}", name);
}

std::string Patterns::disabledLoweringPattern(const std::string& opType, int inputIndex) const {
  for (const auto& r : kLowering) {
    const bool matches = opType == r.opType && (r.input == inputIndex || (r.input == kAnyInput && inputIndex >= 0));
    if (matches && !isPatternEnabled(r.pattern)) return r.pattern;
  }
  return "";
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
