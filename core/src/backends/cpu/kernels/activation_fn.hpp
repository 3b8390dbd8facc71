// Pointwise activations as values, so that Conv/Gemm/MatMul can apply a fused one in their
// epilogue (set by the FuseActivation pattern through node attributes).
#pragma once

#include <cmath>
#include <cstdint>

#include "common/attributes.hpp"

namespace popart {
namespace cpu {

struct Activation {
  enum class Kind { None, Relu, LeakyRelu, Clip, Sigmoid, Tanh, Gelu };
  Kind kind = Kind::None;
  float a = 0, b = 0;

  static Activation none() { return {}; }
  static Activation relu() { return {Kind::Relu, 0, 0}; }
  static Activation leakyRelu(float alpha) { return {Kind::LeakyRelu, alpha, 0}; }
  static Activation clip(float lo, float hi) { return {Kind::Clip, lo, hi}; }
  static Activation sigmoid() { return {Kind::Sigmoid, 0, 0}; }
  static Activation tanh() { return {Kind::Tanh, 0, 0}; }
  static Activation gelu() { return {Kind::Gelu, 0, 0}; }
  /// The fused activation recorded on a node ("__act", "__act_a", "__act_b"), or none.
  static Activation fromAttrs(const Attributes& attrs);

  template <typename T>
  T scalar(T x) const {
    switch (kind) {
      case Kind::None:
        return x;
      case Kind::Relu:
        return x > T(0) ? x : T(0);
      case Kind::LeakyRelu:
        return x >= T(0) ? x : static_cast<T>(x * a);
      case Kind::Clip:
        return x < T(a) ? T(a) : (x > T(b) ? T(b) : x);
      case Kind::Sigmoid:
        return static_cast<T>(1 / (1 + std::exp(-static_cast<double>(x))));
      case Kind::Tanh:
        return static_cast<T>(std::tanh(static_cast<double>(x)));
      case Kind::Gelu: {
        const double v = static_cast<double>(x);
        return static_cast<T>(0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
      }
    }
    return x;
  }
};

/// out[i] = act(in[i]) for n floats, vectorised; in may equal out.
void applyActivation(const Activation& act, const float* in, float* out, int64_t n);

/// A GEMM epilogue adding a bias (per row of C, as in convolutions, or per column, as in Gemm)
/// and applying an activation to each block of C while it is in cache.
struct BiasActivation {
  const float* rowBias = nullptr;
  const float* colBias = nullptr;
  Activation act;
  bool empty() const { return !rowBias && !colBias && act.kind == Activation::Kind::None; }
  static void apply(void* ctx, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0, int64_t col0);
};

}  // namespace cpu
}  // namespace popart
