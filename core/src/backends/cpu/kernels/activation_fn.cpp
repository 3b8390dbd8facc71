#include "backends/cpu/kernels/activation_fn.hpp"

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

void applyActivation(const Activation& act, const float* in, float* out, int64_t n) {
  Eigen::Map<const Eigen::ArrayXf> x(in, n);
  Eigen::Map<Eigen::ArrayXf> y(out, n);
  switch (act.kind) {
    case Activation::Kind::None:
      if (in != out) y = x;
      break;
    case Activation::Kind::Relu:
      y = x.max(0.0f);
      break;
    case Activation::Kind::LeakyRelu:
      y = (x >= 0.0f).select(x, x * act.a);
      break;
    case Activation::Kind::Clip:
      y = x.max(act.a).min(act.b);
      break;
    case Activation::Kind::Sigmoid:
      y = x.logistic();
      break;
    case Activation::Kind::Tanh:
      y = x.tanh();
      break;
    case Activation::Kind::Gelu:
      y = 0.5f * x * (1.0f + (0.7978845608028654f * (x + 0.044715f * x * x * x)).tanh());
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
