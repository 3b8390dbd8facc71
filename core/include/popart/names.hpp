// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file names.hpp
/// Basic aliases shared by the public API (PopART's names).

#include <any>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace popart {

using TensorId = std::string;
using Shape = std::vector<int64_t>;
using OpId = int64_t;
using OpType = std::string;
using OpName = std::string;
using OpDomain = std::string;
using OpVersion = int;
using ReturnPeriod = int;
using GraphId = std::string;
using VGraphId = int64_t;
using PipelineStage = int64_t;
using ExecutionPhase = int64_t;
using InIndex = int;
using OutIndex = int;
using TensorIds = std::vector<TensorId>;
using any = std::any;

/// Reserved tensor-id prefixes and other reserved name parts, PopART's names and values
/// (tensornames.hpp). X(function name, value). One list: the constexpr functions below,
/// `reservedPrefixList()` and every binding (Python's popart.reservedXPrefix(), JS's
/// popart.reservedXPrefix()) come from it.
#define POPART_RESERVED_PREFIXES(X)                                                         \
  X(reservedGradientPrefix, "Gradient___")                                                  \
  X(reservedUpdatedVarPrefix, "UpdatedVar___")                                              \
  X(reservedAccumPrefix, "Accum___")                                                        \
  X(reservedAcclPrefix, "Accl___")                                                          \
  X(reservedAccl1Prefix, "Accl1___")                                                        \
  X(reservedAccl2Prefix, "Accl2___")                                                        \
  X(reservedAccl3Prefix, "Accl3___")                                                        \
  X(reservedStepPrefix, "Step___")                                                          \
  X(reservedAcclToAccumulatorPrefix, "AcclIntoAccumulator___")                              \
  X(reservedAcclToReducePrefix, "AcclIntoReduce___")                                        \
  X(reservedAcclToUpdatePrefix, "AcclIntoUpdate___")                                        \
  X(reservedAcclFinalOutPrefix, "AcclOutOfAcclUpdate___")                                   \
  X(reservedAdamUpdaterPrefix, "AdamUpdater___")                                            \
  X(reservedLambR1SqPrefix, "LambR1Sq___")                                                  \
  X(reservedLambR2SqPrefix, "LambR2Sq___")                                                  \
  X(reservedAdaptiveUpdaterPrefix, "AdaptiveUpdater___")                                    \
  X(reservedStashedPrefix, "Stashed___")                                                    \
  X(reservedRestoredPrefix, "Restored___")                                                  \
  X(reservedLossScalingPrefix, "lossScaling_")                                              \
  X(reservedRandomSeedPrefix, "randomSeed___")                                              \
  X(reservedSeedModifierPrefix, "SeedModifier___")                                          \
  X(reservedIndexPrefix, "Index___")                                                        \
  X(reservedLoopCondPrefix, "LoopCond___")                                                  \
  X(reservedLoopIteratorPrefix, "Iterator___")                                              \
  X(reservedInitPrefix, "Init___")                                                          \
  X(reservedConcatInitPrefix, "ConcatInit___")                                              \
  X(reservedConstValuePrefix, "ConstValue___")                                              \
  X(reservedRemoteArgPrefix, "RemoteArg___")                                                \
  X(reservedDefaultWeightDecayScaleFactor0Prefix, "weightDecayScaleFactor0___default___")   \
  X(reservedSpecificWeightDecayScaleFactor0Prefix, "weightDecayScaleFactor0___specific___") \
  X(reservedDefaultScaledLearningRate0Prefix, "scaledLearningRate0___default___")           \
  X(reservedSpecificScaledLearningRate0Prefix, "scaledLearningRate0___specific___")         \
  X(reservedDefaultScaledWeightDecay1Prefix, "scaledWeightDecay1___default___")             \
  X(reservedSpecificScaledWeightDecay1Prefix, "scaledWeightDecay1___specific___")           \
  X(reservedDefaultScaledLearningRate1Prefix, "scaledLearningRate1___default___")           \
  X(reservedSpecificScaledLearningRate1Prefix, "scaledLearningRate1___specific___")         \
  X(reservedDefaultDampeningScaleFactor1Prefix, "dampeningScaleFactor1___default___")       \
  X(reservedSpecificDampeningScaleFactor1Prefix, "dampeningScaleFactor1___specific___")     \
  X(reservedDefaultScaledMomentum1Prefix, "scaledMomentum1___default___")                   \
  X(reservedSpecificScaledMomentum1Prefix, "scaledMomentum1___specific___")                 \
  X(reservedDefaultLearningRatePrefix, "learningRate___default___")                         \
  X(reservedSpecificLearningRatePrefix, "learningRate___specific___")                       \
  X(reservedDefaultWeightDecayPrefix, "weightDecay___default___")                           \
  X(reservedSpecificWeightDecayPrefix, "weightDecay___specific___")                         \
  X(reservedDefaultLossScalingPrefix, "lossScaling___default___")                           \
  X(reservedSpecificLossScalingPrefix, "lossScaling___specific___")                         \
  X(reservedDefaultMaxWeightNormPrefix, "maxWeightNorm___default___")                       \
  X(reservedSpecificMaxWeightNormPrefix, "maxWeightNorm___specific___")                     \
  X(reservedDefaultAdamBeta1Prefix, "adamBeta1___default___")                               \
  X(reservedSpecificAdamBeta1Prefix, "adamBeta1___specific___")                             \
  X(reservedDefaultAdamBeta2Prefix, "adamBeta2___default___")                               \
  X(reservedSpecificAdamBeta2Prefix, "adamBeta2___specific___")                             \
  X(reservedDefaultAdamEpsPrefix, "adamEps___default___")                                   \
  X(reservedSpecificAdamEpsPrefix, "adamEps___specific___")                                 \
  X(reservedDefaultAdamGradientScalingPrefix, "adamGradientScaling___default___")           \
  X(reservedSpecificAdamGradientScalingPrefix, "adamGradientScaling___specific___")         \
  X(reservedDefaultAdaptiveAlphaPrefix, "adaptiveAlpha___default___")                       \
  X(reservedSpecificAdaptiveAlphaPrefix, "adaptiveAlpha___specific___")                     \
  X(reservedDefaultAdaptiveMomentumPrefix, "adaptiveMomentum___default___")                 \
  X(reservedSpecificAdaptiveMomentumPrefix, "adaptiveMomentum___specific___")               \
  X(reservedDefaultAdaptiveEpsPrefix, "adaptiveEps___default___")                           \
  X(reservedSpecificAdaptiveEpsPrefix, "adaptiveEps___specific___")                         \
  X(reservedDefaultAdaptiveGradientScalingPrefix, "adaptiveGradientScaling___default___")   \
  X(reservedSpecificAdaptiveGradientScalingPrefix, "adaptiveGradientScaling___specific___") \
  X(reservedDefaultStepPrefix, "step___default___")                                         \
  X(reservedSpecificStepPrefix, "step___specific___")                                       \
  X(hostReduceGradCopyPrefix, "hostReduceGradCopy___")                                      \
  X(hostReduceVarCopyPrefix, "hostReduceVarCopy___")                                        \
  X(anchorSumPrefix, "anchorSum___")                                                        \
  X(cycleCountPrefix, "cycleCount___")

#define POPART_RESERVED_PREFIX_FN(name, value) \
  constexpr const char* name() {               \
    return value;                              \
  }
POPART_RESERVED_PREFIXES(POPART_RESERVED_PREFIX_FN)
#undef POPART_RESERVED_PREFIX_FN

/// Every reserved prefix: (function name, value), in the list's order.
inline const std::vector<std::pair<std::string, std::string>>& reservedPrefixList() {
#define POPART_RESERVED_PREFIX_ROW(name, value) {#name, value},
  static const std::vector<std::pair<std::string, std::string>> list{
      POPART_RESERVED_PREFIXES(POPART_RESERVED_PREFIX_ROW)};
#undef POPART_RESERVED_PREFIX_ROW
  return list;
}

/// The opset a Builder uses for a domain until the model says otherwise (PopART's values).
inline constexpr int64_t defaultAiOnnxOpset = 10;
inline constexpr int64_t defaultAiOnnxMlOpset = 1;
inline constexpr int64_t defaultAiGraphcoreOpset = 1;

/// multiconv's arguments (PopART's names): one entry per convolution.
using ConvInputs = std::vector<TensorId>;
using MultiConvInputs = std::vector<ConvInputs>;
using MultiConvDilations = std::vector<std::vector<int64_t>>;
using MultiConvPads = std::vector<std::vector<int64_t>>;
using MultiConvStrides = std::vector<std::vector<int64_t>>;

/// Attribute names under which the Builder stores IPU annotations on ONNX nodes.
inline constexpr const char* sVirtualGraphAttribute = "__ipu_number";
inline constexpr const char* sPipelineStageAttribute = "__pipeline_stage";
inline constexpr const char* sExecutionPhaseAttribute = "__execution_phase";
inline constexpr const char* sRecomputeOutputAttribute = "__recompute_output_in_backward_pass";
inline constexpr const char* sAvailMemAttribute = "__available_memory";
inline constexpr const char* sPartialsTypeAttribute = "__partials_type";
inline constexpr const char* sInplaceOpNames = "__inplace_op_names";
inline constexpr const char* sInplaceOpPriorities = "__inplace_op_priorities";
inline constexpr const char* sEnableConvDitheringAttribute = "__enable_conv_dithering";
inline constexpr const char* sSchedulePriority = "__schedule_priority";
inline constexpr const char* sOutputTensorLocationAttribute = "__output_tensor_location";
inline constexpr const char* sSerializeMatMulModeAttribute = "__serialize_matmul_mode";
inline constexpr const char* sSerializeMatMulFactorAttribute = "__serialize_matmul_factor";
inline constexpr const char* sSerializeMatMulPrecisionAttribute = "__serialize_matmul_precision";
inline constexpr const char* sExcludePatternsAttribute = "__exclude_patterns";
inline constexpr const char* sNameDelimiter = "/";
/// The id of the Builder's debug-info context of a node (while initializePoplarDebugInfo is open).
inline constexpr const char* sDebugInfoId = "__debug_info_id";
/// PopART's names for the settings of a graph input. This runtime keeps them in the model's
/// metadata_props under "<name>:<tensor id>" (an ONNX input has no attributes):
/// `__variable_settings` holds VariableSettings::serialize(), the others an enum value's name.
inline constexpr const char* sVariableSettings = "__variable_settings";
inline constexpr const char* sReplicatedStreamMode = "__replicated_stream_mode";
inline constexpr const char* sTileSetAttribute = "__tile_set";
inline constexpr const char* sExchangeStrategyAttribute = "__exchange_strategy";

/// Domains.
namespace Domain {
inline constexpr const char* ai_onnx = "ai.onnx";
inline constexpr const char* ai_onnx_ml = "ai.onnx.ml";
inline constexpr const char* ai_graphcore = "ai.graphcore";
}  // namespace Domain

/// Identifies an operator: domain, type and opset version.
struct OperatorIdentifier {
  OperatorIdentifier(const OpDomain& d, const OpType& t, OpVersion v) : domain(d), type(t), version(v) {
    if (domain.empty()) domain = Domain::ai_onnx;
  }
  OpDomain domain;
  OpType type;
  OpVersion version;
  bool operator==(const OperatorIdentifier& o) const {
    return domain == o.domain && type == o.type && version == o.version;
  }
  bool operator!=(const OperatorIdentifier& o) const { return !(*this == o); }
  bool operator<(const OperatorIdentifier& o) const {
    if (domain != o.domain) return domain < o.domain;
    if (type != o.type) return type < o.type;
    return version < o.version;
  }
};

}  // namespace popart

/// PopART's generated Builder signatures spell optionals as `nonstd::optional`.
namespace nonstd {
using std::nullopt;
using std::optional;
}  // namespace nonstd
