// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file names.hpp
/// Basic aliases shared by the public API (PopART's names).

#include <any>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
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

/// Reserved tensor-id prefixes (they end in "___", as in PopART).
inline const char* reservedGradientPrefix() {
  return "Gradient___";
}
inline const char* reservedAccumPrefix() {
  return "Accum___";
}
inline const char* reservedAcclPrefix() {
  return "Accl___";
}
inline const char* reservedAccl1Prefix() {
  return "Accl1___";
}
inline const char* reservedAccl2Prefix() {
  return "Accl2___";
}
inline const char* reservedAccl3Prefix() {
  return "Accl3___";
}
inline const char* reservedStepPrefix() {
  return "Step___";
}
inline const char* reservedLossScalingPrefix() {
  return "lossScaling_";
}
inline const char* reservedUpdatedVarPrefix() {
  return "UpdatedVar___";
}

/// Attribute names under which the Builder stores IPU annotations on ONNX nodes.
inline constexpr const char* sVirtualGraphAttribute = "__ipu_number";
inline constexpr const char* sPipelineStageAttribute = "__pipeline_stage";
inline constexpr const char* sExecutionPhaseAttribute = "__execution_phase";
inline constexpr const char* sRecomputeOutputAttribute = "__recompute_output_in_backward_pass";
inline constexpr const char* sAvailMemAttribute = "__available_memory";
inline constexpr const char* sPartialsTypeAttribute = "__partials_type";
inline constexpr const char* sSchedulePriority = "__schedule_priority";
inline constexpr const char* sOutputTensorLocationAttribute = "__output_tensor_location";
inline constexpr const char* sSerializeMatMulModeAttribute = "__serialize_matmul_mode";
inline constexpr const char* sSerializeMatMulFactorAttribute = "__serialize_matmul_factor";
inline constexpr const char* sSerializeMatMulPrecisionAttribute = "__serialize_matmul_precision";
inline constexpr const char* sExcludePatternsAttribute = "__exclude_patterns";
inline constexpr const char* sNameDelimiter = "/";

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
