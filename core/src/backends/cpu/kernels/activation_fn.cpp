#include "backends/cpu/kernels/activation_fn.hpp"

#include <algorithm>

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

// out[i] = f(in[i]). In place (in == out) the loop runs on one pointer: with two, the vectoriser's
// overlap check fails for equal pointers and the scalar loop runs instead, whose data-dependent
// branches (Relu, Clip) mispredict on real activations (5x slower in wasm).
template <typename F>
inline void mapFloats(const float* in, float* out, int64_t n, F f) {
  if (in == out) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(out[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
  }
}

}  // namespace

void applyActivation(const Activation& act, const float* in, float* out, int64_t n) {
  // The piecewise-linear kinds are plain loops that every target vectorises (Eigen has no wasm
  // SIMD128 packets). They keep Eigen's max/min semantics: a NaN input stays NaN.
  const float a = act.a, b = act.b;
  switch (act.kind) {
    case Activation::Kind::None:
      if (in != out) std::copy(in, in + n, out);
      return;
    case Activation::Kind::Relu:
      return mapFloats(in, out, n, [](float x) { return x < 0.0f ? 0.0f : x; });
    case Activation::Kind::LeakyRelu:
      return mapFloats(in, out, n, [a](float x) { return x >= 0.0f ? x : x * a; });
    case Activation::Kind::Clip:
      return mapFloats(in, out, n, [a, b](float x) {
        const float lo = x < a ? a : x;
        return b < lo ? b : lo;
      });
    default:
      break;
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
  for (int64_t i = 0; i < rows; ++i) {
    float* r = c + i * ldc;
    if (e->rowBias) {
      const float b = e->rowBias[row0 + i];
      for (int64_t j = 0; j < cols; ++j) r[j] += b;
    }
    if (e->colBias) {
      const float* b = e->colBias + col0;
      for (int64_t j = 0; j < cols; ++j) r[j] += b[j];
    }
    if (e->act.kind != Activation::Kind::None) applyActivation(e->act, r, r, cols);
  }
}

}  // namespace cpu
}  // namespace popart
