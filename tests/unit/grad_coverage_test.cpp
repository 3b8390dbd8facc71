// Every differentiable op of the op list has a grad rule: the test walks the registry and fails
// for an op without `OpDef::grad` unless the list below says why it has no gradient.
#include <map>
#include <set>
#include <string>

#include "common/test_util.hpp"
#include "ir/op_def.hpp"

namespace popart {
namespace {

/// Ops with no gradient, and why. Anything not here and not internal must have a grad rule.
const std::map<std::string, std::string>& notDifferentiable() {
  static const std::map<std::string, std::string> m = {
      // Boolean, integer or index outputs: nothing to differentiate.
      {"ai.onnx::Not", "boolean"},
      {"ai.onnx::And", "boolean"},
      {"ai.onnx::Or", "boolean"},
      {"ai.onnx::Xor", "boolean"},
      {"ai.onnx::IsNaN", "boolean output"},
      {"ai.onnx::IsInf", "boolean output"},
      {"ai.onnx::Equal", "comparison: boolean output"},
      {"ai.onnx::Greater", "comparison: boolean output"},
      {"ai.onnx::GreaterOrEqual", "comparison: boolean output"},
      {"ai.onnx::Less", "comparison: boolean output"},
      {"ai.onnx::LessOrEqual", "comparison: boolean output"},
      {"ai.onnx::BitShift", "unsigned integers only"},
      {"ai.onnx::ArgMax", "index output"},
      {"ai.onnx::ArgMin", "index output"},
      {"ai.onnx::StringNormalizer", "strings"},
      {"ai.onnx::TfIdfVectorizer", "integer or string input (token ids)"},
      // Shapes and constants: folded at import, the outputs do not depend on input values.
      {"ai.onnx::Shape", "shape of the input, folded at import"},
      {"ai.onnx::Size", "size of the input, folded at import"},
      {"ai.onnx::Constant", "no input"},
      {"ai.onnx::ConstantOfShape", "the input is a shape"},
      {"ai.onnx::Range", "constant inputs only (static shapes), folded at import"},
      {"ai.onnx::EyeLike", "the output does not depend on the input's values"},
      {"ai.onnx::Unique", "constant input only (its output sizes depend on the values), folded at import"},
      {"ai.onnx::NonZero", "index output; constant input only (its output size depends on the values)"},
      {"ai.onnx::NonMaxSuppression", "index output; constant inputs only (its output size depends on the values)"},
      {"ai.onnx::HannWindow", "the input is a length"},
      {"ai.onnx::HammingWindow", "the input is a length"},
      {"ai.onnx::BlackmanWindow", "the input is a length"},
      {"ai.onnx::MelWeightMatrix", "the inputs are sizes and frequencies, folded at import"},
      // Quantized arithmetic: integer tensors (PopART has no gradient for them either).
      {"ai.onnx::QuantizeLinear", "integer output"},
      {"ai.onnx::DequantizeLinear", "integer input; scale / zero point are constants"},
      {"ai.onnx::DynamicQuantizeLinear", "integer output"},
      {"ai.onnx::MatMulInteger", "integer tensors"},
      {"ai.onnx::ConvInteger", "integer tensors"},
      {"ai.onnx::QLinearMatMul", "integer tensors"},
      {"ai.onnx::QLinearConv", "integer tensors"},
      // Random ops: the outputs do not depend on input values.
      {"ai.onnx::Bernoulli", "random"},
      {"ai.onnx::RandomUniform", "random"},
      {"ai.onnx::RandomNormal", "random"},
      {"ai.onnx::RandomUniformLike", "random: only the input's shape is read"},
      {"ai.onnx::RandomNormalLike", "random: only the input's shape is read"},
      // aiGraphcore ops PopART gives no gradient.
      {"ai.graphcore::BitwiseNot", "integer tensors"},
      {"ai.graphcore::BitwiseAnd", "integer tensors"},
      {"ai.graphcore::BitwiseOr", "integer tensors"},
      {"ai.graphcore::BitwiseXor", "integer tensors"},
      {"ai.graphcore::BitwiseXnor", "integer tensors"},
      {"ai.graphcore::Bucketize", "index output"},
      {"ai.graphcore::IncrementMod", "a counter: PopART has no gradient for it"},
      {"ai.graphcore::Init", "no input"},
      {"ai.graphcore::Abort", "no output"},
      {"ai.graphcore::CopyVarUpdate", "a variable update (the optimizer's own op)"},
      {"ai.graphcore::NormalizeImage", "input preprocessing of image data: PopART has no gradient for it"},
      {"ai.graphcore::SplineBasis", "PopART has no gradient for it (an index output, a basis of pseudo-coordinates)"},
      {"ai.graphcore::SplineWeighting", "PopART has no gradient for it (training through it names the node)"},
      // Decoders: label sequences and their lengths (PopART's CtcBeamSearchDecoder has no grad op).
      {"ai.graphcore::CtcBeamSearchDecoder", "decoded labels (integer outputs)"},
      // ONNX's training domain: optimizer steps (their outputs are the next weights and state) and
      // Gradient, which the prepare pipeline replaces by backward ops before autodiff runs.
      {"ai.onnx.preview.training::Adagrad", "an optimizer step"},
      {"ai.onnx.preview.training::Adam", "an optimizer step"},
      {"ai.onnx.preview.training::Momentum", "an optimizer step"},
      {"ai.onnx.preview.training::Gradient", "replaced by the ops of its backward pass, which have rules"},
      // Known gaps: differentiable, no rule yet (training through them fails with an error naming
      // the node).
      {"ai.onnx::GridSample",
       "GAP: differentiable in X and grid (PyTorch's grid_sampler backward); no rule here yet, and PopART has no "
       "GridSample"},
  };
  return m;
}

TEST(GradCoverage, EveryDifferentiableOpHasAGradRule) {
  std::vector<std::string> missing;
  for (const OpDef& d : allOpDefs()) {
    if (d.domain == "internal") continue;  // grad ops and weight updates: the runtime's own
    const std::string key = d.domain + "::" + d.type;
    if (d.grad) {
      EXPECT_EQ(notDifferentiable().count(key), 0u) << key << " has a grad rule but is listed as not differentiable";
      continue;
    }
    if (!notDifferentiable().count(key)) missing.push_back(key);
  }
  std::string all;
  for (const auto& m : missing) all += " " + m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " ops have no grad rule and are not listed as not "
                               << "differentiable (tests/unit/grad_coverage_test.cpp):" << all;
}

}  // namespace
}  // namespace popart
