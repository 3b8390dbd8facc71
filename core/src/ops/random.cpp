// Random numbers: Bernoulli, RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike,
// and Graphcore's ShapedDropout. None is foldable: each run draws new values (from the op's own
// generator when it has a seed, else from the session's, which setRandomSeed seeds).
#include "ir/graph.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

/// The `dtype` attribute, else `dflt`; it must be a floating-point type unless `anyNumeric`.
DataType randomDtype(const Op& op, DataType dflt, bool anyNumeric) {
  const DataType t = op.attrs.has("dtype") ? dataTypeFromOnnx(static_cast<int>(op.attrs.getInt("dtype"))) : dflt;
  if (anyNumeric ? (t == DataType::STRING || t == DataType::UNDEFINED) : !isFloatType(t))
    throw error("dtype {} is not supported here ({})", dataTypeToString(t),
                anyNumeric ? "numeric or BOOL types" : "floating-point types");
  return t;
}

void setupBernoulli(Op& op) {
  requireFloat(op, 0);
  setOutput(op, 0, randomDtype(op, op.inType(0), true), op.inShape(0));
}

void setupRandom(Op& op) {
  const std::vector<int64_t> shape = op.attrs.getInts("shape");
  for (auto d : shape) {
    if (d < 0) throw error("shape {} must not have negative dimensions", shape);
  }
  setOutput(op, 0, randomDtype(op, DataType::FLOAT, false), shape);
}

/// Without a dtype attribute the output has the input's type, which must be floating-point
/// (PopART's "Unsupported data type requested" otherwise).
void setupRandomLike(Op& op) {
  const DataType in = op.inType(0);
  if (!op.attrs.has("dtype") && !isFloatType(in))
    throw error("{} : Unsupported data type requested: {} (a dtype attribute is needed for a non-floating-point input)",
                popartOpid(op), dataTypeToString(in));
  setOutput(op, 0, randomDtype(op, in, false), op.inShape(0));
}

/// ShapedDropout(x; shape, ratio): x times a mask of shape `shape` (broadcast to x) whose elements
/// are 0 with probability `ratio`, else 1 / (1 - ratio); in training sessions only (inference
/// sessions pass x on). The optional output 1 is that scaled mask (the gradient's).
void setupShapedDropout(Op& op) {
  requireFloat(op, 0);
  const float ratio = op.attrs.getFloat("ratio", 0.5f);
  if (!(ratio >= 0.0f && ratio < 1.0f))
    throw error("ratio value {} is not valid. Please use a value in the interval [0,1)", ratio);
  const Shape mask = op.attrs.getInts("shape");
  const Shape& x = op.inShape(0);
  bool ok = true;
  for (auto d : mask) ok = ok && d > 0;
  try {
    ok = ok && npOut(x, mask) == x;
  } catch (const error&) {
    ok = false;
  }
  if (!ok)
    throw error(
        "ShapedDropout: incompatible input tensor and dropout shape. The dropout shape {} must broadcast to "
        "the input's shape {}",
        mask, x);
  setupSameAsInput0(op);
  setOutput(op, 1, op.inType(0), mask);
}

/// ShapedDropout: the gradient is multiplied by the forward op's scaled mask (the op gets a mask
/// output if it has none: a grad op could not draw the same random numbers).
void gradShapedDropout(GradCtx& c) {
  const Op& op = c.op();
  Tensor* mask = op.hasOutput(1) ? op.output(1) : nullptr;
  if (!mask) {
    Op& fwd = const_cast<Op&>(op);
    Graph& g = fwd.graph();
    mask = &g.addTensor(g.uniqueTensorId(op.name() + "/mask"), TensorKind::ActGrad, TensorInfo());
    fwd.connectOutput(1, mask);
    fwd.setup();
  }
  c.setInGrad(0, c.add1(OpKind::Mul, {c.outGrad(0), mask}));
}

void randomDef(OpDef& d, void (*setup)(Op&)) {
  d.setup = setup;
  d.foldable = false;
}

}  // namespace

void define_Bernoulli(OpDef& d) {
  randomDef(d, setupBernoulli);
}
void define_RandomUniform(OpDef& d) {
  randomDef(d, setupRandom);
}
void define_RandomNormal(OpDef& d) {
  randomDef(d, setupRandom);
}
void define_RandomUniformLike(OpDef& d) {
  randomDef(d, setupRandomLike);
}
void define_RandomNormalLike(OpDef& d) {
  randomDef(d, setupRandomLike);
}
void define_GcShapedDropout(OpDef& d) {
  randomDef(d, setupShapedDropout);
  d.grad = gradShapedDropout;
}

}  // namespace popart
