// Float loops over arrays that gain from wide vectors (the exponential of Softmax and Exp, the
// four arithmetic operators, bias + piecewise-linear activation, SGD's update), one table per instruction-set copy
// (isa.hpp; vec_math.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/isa.hpp"

namespace popart {
namespace cpu {

enum class VecBinary { Add = 0, Sub = 1, Mul = 2, Div = 3 };

/// The piecewise-linear activations (activation_fn.hpp's kinds): a NaN input stays NaN.
enum class VecActivation { None = 0, Relu = 1, LeakyRelu = 2, Clip = 3 };

struct VecKernels {
  /// y[i] = exp(x[i] - shift) to about 2 ulp: below float's range (x - shift < -87.34, -inf
  /// included) 0, above it (> 88.72) inf, NaN stays NaN. x and y may be the same array.
  void (*expShifted)(const float* x, float shift, float* y, int64_t n);
  /// z[i] = x[i * sx] op y[i * sy] for strides 0 (one value) or 1; indexed by VecBinary.
  void (*binary[4])(const float* x, int64_t sx, const float* y, int64_t sy, float* z, int64_t n);
  /// y[i] = act(x[i] + *bias + colBias[i]), each bias only where its pointer is not null (no
  /// addition otherwise: a -0 stays -0); LeakyRelu's slope is `a`, Clip's bounds a and b. x and
  /// y may be the same array.
  void (*biasActivation)(const float* x, float* y, int64_t n, const float* bias, const float* colBias,
                         VecActivation act, float a, float b);
  /// SGD1's update in float (grad.cpp): v' = v + dpsf g; w' = w - slr v' (nesterov:
  /// w - slr (dpsf g + swd w + smm v')); v'' = smm v' + swd w'.
  void (*sgd1)(float* w, float* v, const float* g, int64_t n, float dpsf, float slr, float smm, float swd,
               bool nesterov);
};

POPART_ISA_DECLARE(VecKernels, kVec)

/// The copy in use (isa.hpp).
const VecKernels& vecKernels();
/// Every copy this CPU runs, with its name, best first (the tests call each).
std::vector<std::pair<std::string, const VecKernels*>> runnableVecKernels();

}  // namespace cpu
}  // namespace popart
