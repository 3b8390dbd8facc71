// Random numbers: Bernoulli, RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike.
// None is foldable: each run draws new values (from the op's own generator when it has a seed,
// else from the session's, which setRandomSeed seeds).
#include "ir/op_def.hpp"
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

void setupRandomLike(Op& op) {
  DataType dflt = op.inType(0);
  if (!op.attrs.has("dtype") && !isFloatType(dflt))
    throw error("the input is {}: a dtype attribute is needed for a non-floating-point input", op.inInfo(0).toString());
  setOutput(op, 0, randomDtype(op, dflt, false), op.inShape(0));
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

}  // namespace popart
