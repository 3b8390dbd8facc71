// Helpers for op families: axis normalisation, type checks, output setting.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "ir/op.hpp"
#include "popart/error.hpp"

namespace popart {
namespace ops {

/// axis in [-rank, rank) -> [0, rank); errors name the attribute. A scalar (rank 0) has no axis.
int64_t normalizeAxis(int64_t axis, int64_t rank, const char* what = "axis");
/// Each axis normalised; duplicates are an error.
std::vector<int64_t> normalizeAxes(const std::vector<int64_t>& axes, int64_t rank, const char* what = "axes");
/// "[10, 5]": a shape as PopART's messages print it (with commas).
std::string commaList(const std::vector<int64_t>& v);
/// A TensorInfo as PopART prints it: the type padded to 8 characters, then the shape
/// ("INT32   [2 5]").
std::string popartInfo(const TensorInfo& info);
/// PopART's Op::debugName() for the node: "Op(C (ai.onnx.Add:9), inputs=[A, B], outputs=[C:0])"
/// (the version is the model's opset of the op's domain).
std::string popartDebugName(const Op& op);
/// PopART's OperatorIdentifier text for the node: "ai.onnx.Clip:11" (the version is the model's
/// opset of the op's domain).
std::string popartOpid(const Op& op);
/// The node's name as PopART's Builder leaves it: "" for a name this runtime generated for a
/// node without one (the Builder's and the importer's "<OpType>" / "<OpType>_<n>", after any
/// name scopes), else the node's name.
std::string popartNodeName(const Op& op);
/// PopART's OpCreatorInfo::debugName() for the node, listing the given inputs:
/// "Op MyRnn(ai.onnx.RNN:11), inputs=[x, w, r]".
std::string popartCreatorName(const Op& op, const std::vector<int>& inputs);
/// True at the ai.onnx opsets PopART imports (up to 11): there the recurrent ops take PopART's
/// texts for activation counts ONNX refuses too, and an LSTM's short activation list PopART's
/// defaults. Features PopART refuses but this runtime computes run at every opset
/// (docs/python-api.md).
bool popartOnnxOpset(const Op& op);
/// The axes of a Reduce* op (ONNX's and aiGraphcore's ReduceMedian), normalised: an axis outside
/// [-rank, rank - 1] is PopART's ReduceOp error "Axis A is out of acceptable range [-r, r-1]".
std::vector<int64_t> normalizeReduceAxes(const std::vector<int64_t>& axes, int64_t rank);

/// Sets output i (if the node has it) to (type, shape).
void setOutput(Op& op, int i, DataType t, const Shape& s);
inline void setOutput(Op& op, int i, const TensorInfo& info) {
  setOutput(op, i, info.dataType(), info.shape());
}

bool isFloatType(DataType t);
/// Input i must be FLOAT, FLOAT16, BFLOAT16 or DOUBLE.
void requireFloat(const Op& op, int i);
/// Input i's type must be one of `allowed`.
void requireType(const Op& op, int i, std::initializer_list<DataType> allowed);
/// Inputs a and b must have the same element type.
void requireSameType(const Op& op, int a, int b);
/// The output type of a broadcasting op of inputs a and b, PopART's rule: their common type;
/// with `fp16ScalarMix` (Mul, as popops::mul) FLOAT16 for a FLOAT16 tensor and a one-element
/// FLOAT one; any other mix throws "np broadcasting failed, incompatible types ...".
DataType broadcastType(const Op& op, int a, int b, bool fp16ScalarMix = false);
/// Input i (a normalization's scale, bias or statistics) must have the type of input x, or be
/// FLOAT when x is FLOAT16 or BFLOAT16 (mixed precision: the kernel computes in float).
void requireParamType(const Op& op, int i, int x);
/// Input i must have rank r (or at least r with `atLeast`).
void requireRank(const Op& op, int i, int r, bool atLeast = false);

/// Numpy broadcast of the shapes of the given (present) inputs.
Shape broadcastInputs(const Op& op, const std::vector<int>& inputs);

/// Integer vector from input i (when present, must be constant) else from attribute `attr`.
std::vector<int64_t> intsFromInputOrAttr(const Op& op, int i, const char* attr, const char* what,
                                         const std::vector<int64_t>& dflt);

/// Sets the standard "same as input 0" output.
void setupSameAsInput0(Op& op);

}  // namespace ops
}  // namespace popart
