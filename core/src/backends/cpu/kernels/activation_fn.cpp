#include "backends/cpu/kernels/activation_fn.hpp"

#include <algorithm>

#include "backends/cpu/kernels/vec_math.hpp"

#include <Eigen/Core>

namespace popart {
namespace cpu {

Activation Activation::fromAttrs(const Attributes& attrs) {
  if (!attrs.has("__act")) return none();
  const std::string k = attrs.getString("__act");
  const float a = attrs.getFloat("__act_a", 0), b = attrs.getFloat("__act_b", 0);
  if (k == "Relu") return relu();
  if (k == "LeakyRelu") return leakyRelu(a);
  if (k == "Clip") return clip(a, b);
  if (k == "Sigmoid") return sigmoid();
  if (k == "Tanh") return tanh();
  return none();
}

namespace {

/// The instruction-set copy's kind for a piecewise-linear activation (vec_math.hpp); false for
/// the others.
bool piecewise(const Activation& act, VecActivation& v) {
  switch (act.kind) {
    case Activation::Kind::None:
      v = VecActivation::None;
      return true;
    case Activation::Kind::Relu:
      v = VecActivation::Relu;
      return true;
    case Activation::Kind::LeakyRelu:
      v = VecActivation::LeakyRelu;
      return true;
    case Activation::Kind::Clip:
      v = VecActivation::Clip;
      return true;
    default:
      return false;
  }
}

}  // namespace

void applyActivation(const Activation& act, const float* in, float* out, int64_t n) {
  // The piecewise-linear kinds run the instruction-set copy's loop (a NaN input stays NaN).
  VecActivation v;
  if (piecewise(act, v)) {
    if (v == VecActivation::None) {
      if (in != out) std::copy(in, in + n, out);
      return;
    }
    return vecKernels().biasActivation(in, out, n, nullptr, nullptr, v, act.a, act.b);
  }
  Eigen::Map<const Eigen::ArrayXf> x(in, n);
  Eigen::Map<Eigen::ArrayXf> y(out, n);
  switch (act.kind) {
    case Activation::Kind::Sigmoid:
      y = x.logistic();
      break;
    case Activation::Kind::Tanh:
      y = x.tanh();
      break;
    case Activation::Kind::Gelu:
      y = 0.5f * x * (1.0f + (0.7978845608028654f * (x + 0.044715f * x * x * x)).tanh());
      break;
    default:
      break;
  }
}

void BiasActivation::apply(void* ctx, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0, int64_t col0) {
  const auto* e = static_cast<const BiasActivation*>(ctx);
  VecActivation v;
  const bool fused = piecewise(e->act, v);
  const VecKernels& k = vecKernels();
  for (int64_t i = 0; i < rows; ++i) {
    float* r = c + i * ldc;
    const float* b = e->rowBias ? e->rowBias + row0 + i : nullptr;
    const float* cb = e->colBias ? e->colBias + col0 : nullptr;
    if (fused) {  // bias and activation in one pass
      if (v == VecActivation::None && !b && !cb) continue;
      k.biasActivation(r, r, cols, b, cb, v, e->act.a, e->act.b);
      continue;
    }
    if (b || cb) k.biasActivation(r, r, cols, b, cb, VecActivation::None, 0.0f, 0.0f);
    applyActivation(e->act, r, r, cols);
  }
}

}  // namespace cpu
}  // namespace popart
