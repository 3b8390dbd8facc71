// Float array loops of vec_math.hpp, compiled once per instruction set (backends/cpu/isa.hpp).
// No standard containers here (ctest isa_objects_<copy>); vectors: isa_vec.hpp.
#include "backends/cpu/kernels/vec_math.hpp"

#include "backends/cpu/isa_vec.hpp"

#include <cstring>
#include <limits>

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace {

/// exp(x): x = n ln2 + r with |r| <= ln2 / 2, exp(r) by a degree-6 polynomial (Cephes' expf
/// coefficients), times 2^n built in the exponent bits.
POPART_ISA_INLINE VecF expV(VecF x) {
  const float hi = 88.72283f, lo = -87.33654f;
  const VecF inf = VecF{} + std::numeric_limits<float>::infinity();
  const VecF xc = x > hi ? VecF{} + hi : (x < lo ? VecF{} + lo : x);
  const VecF magic = VecF{} + 12582912.0f;  // 1.5 x 2^23: adding it rounds to an integer
  const VecF t = xc * 1.44269504088896341f + magic;
  const VecF n = t - magic;
  VecF r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  VecF p = VecF{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  // 2^n for n in -126 .. 128: 2^(n - 1) x 2 above 0 (2^128 is not a float; the result may be).
  const VecI ni = __builtin_convertvector(n, VecI);
  const VecI k = (ni > 0) & 1;
  const VecI e = (ni + 127 - k) << 23;
  VecF y = p * (VecF)e * __builtin_convertvector(k + 1, VecF);
  y = x > hi ? inf : y;
  y = x < lo ? VecF{} : y;
  return x != x ? x : y;
}

float expScalar(float x) {
  VecF v = VecF{} + x;
  v = expV(v);
  return v[0];
}

void expShifted(const float* x, float shift, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + kVecLanes <= n; i += kVecLanes) {
    VecF v;
    std::memcpy(&v, x + i, sizeof v);
    v = expV(v - shift);
    std::memcpy(y + i, &v, sizeof v);
  }
  for (; i < n; ++i) y[i] = expScalar(x[i] - shift);
}

/// One operator on a vector or a float.
template <int Op, typename T>
POPART_ISA_INLINE T apply(T a, T b) {
  if constexpr (Op == 0) return a + b;
  if constexpr (Op == 1) return a - b;
  if constexpr (Op == 2) return a * b;
  return a / b;
}

/// One operand stepping (stride 1) or fixed (stride 0) each.
template <int Op, bool StepX, bool StepY>
POPART_ISA_INLINE void binaryRun(const float* x, const float* y, float* z, int64_t n) {
  int64_t i = 0;
  VecF xv = VecF{} + x[0], yv = VecF{} + y[0];
  for (; i + kVecLanes <= n; i += kVecLanes) {
    if constexpr (StepX) std::memcpy(&xv, x + i, sizeof xv);
    if constexpr (StepY) std::memcpy(&yv, y + i, sizeof yv);
    const VecF zv = apply<Op, VecF>(xv, yv);
    std::memcpy(z + i, &zv, sizeof zv);
  }
  for (; i < n; ++i) z[i] = apply<Op, float>(x[StepX ? i : 0], y[StepY ? i : 0]);
}

template <int Op>
void binary(const float* x, int64_t sx, const float* y, int64_t sy, float* z, int64_t n) {
  if (n <= 0) return;
  if (sx && sy)
    binaryRun<Op, true, true>(x, y, z, n);
  else if (sx)
    binaryRun<Op, true, false>(x, y, z, n);
  else if (sy)
    binaryRun<Op, false, true>(x, y, z, n);
  else
    binaryRun<Op, false, false>(x, y, z, n);
}

/// One activation on a vector or a float (the same comparisons: a NaN stays NaN).
template <VecActivation Act, typename T>
POPART_ISA_INLINE T activate(T x, float a, float b) {
  if constexpr (Act == VecActivation::Relu) return x < 0.0f ? T{} : x;
  if constexpr (Act == VecActivation::LeakyRelu) return x >= 0.0f ? x : x * a;
  if constexpr (Act == VecActivation::Clip) {
    const T lo = x < a ? T{} + a : x;
    return b < lo ? T{} + b : lo;
  }
  return x;
}

/// y = act(x + *bias + colBias) with the additions that are there (none: x unchanged, so -0 stays).
template <VecActivation Act, bool Row, bool Cols>
void biasActivationT(const float* x, float* y, int64_t n, const float* bias, const float* colBias, float a, float b) {
  const float rb = Row ? *bias : 0.0f;
  int64_t i = 0;
  for (; i + kVecLanes <= n; i += kVecLanes) {
    VecF v;
    std::memcpy(&v, x + i, sizeof v);
    if constexpr (Row) v += rb;
    if constexpr (Cols) {
      VecF c;
      std::memcpy(&c, colBias + i, sizeof c);
      v += c;
    }
    v = activate<Act, VecF>(v, a, b);
    std::memcpy(y + i, &v, sizeof v);
  }
  for (; i < n; ++i) {
    float v = x[i];
    if constexpr (Row) v += rb;
    if constexpr (Cols) v += colBias[i];
    y[i] = activate<Act, float>(v, a, b);
  }
}

template <VecActivation Act>
void biasActivationA(const float* x, float* y, int64_t n, const float* bias, const float* colBias, float a, float b) {
  if (bias && colBias)
    biasActivationT<Act, true, true>(x, y, n, bias, colBias, a, b);
  else if (bias)
    biasActivationT<Act, true, false>(x, y, n, bias, colBias, a, b);
  else if (colBias)
    biasActivationT<Act, false, true>(x, y, n, bias, colBias, a, b);
  else
    biasActivationT<Act, false, false>(x, y, n, bias, colBias, a, b);
}

void biasActivation(const float* x, float* y, int64_t n, const float* bias, const float* colBias, VecActivation act,
                    float a, float b) {
  switch (act) {
    case VecActivation::Relu:
      return biasActivationA<VecActivation::Relu>(x, y, n, bias, colBias, a, b);
    case VecActivation::LeakyRelu:
      return biasActivationA<VecActivation::LeakyRelu>(x, y, n, bias, colBias, a, b);
    case VecActivation::Clip:
      return biasActivationA<VecActivation::Clip>(x, y, n, bias, colBias, a, b);
    case VecActivation::None:
      break;
  }
  biasActivationA<VecActivation::None>(x, y, n, bias, colBias, a, b);
}

/// Plain loops: the copy's compiler flags vectorise them.
void sgd1(float* __restrict w, float* __restrict v, const float* __restrict g, int64_t n, float dpsf, float slr,
          float smm, float swd, bool nesterov) {
  if (nesterov) {
    for (int64_t i = 0; i < n; ++i) {
      const float vi = v[i] + dpsf * g[i];
      const float wi = w[i] - slr * (dpsf * g[i] + swd * w[i] + smm * vi);
      w[i] = wi;
      v[i] = smm * vi + swd * wi;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const float vi = v[i] + dpsf * g[i];
      const float wi = w[i] - slr * vi;
      w[i] = wi;
      v[i] = smm * vi + swd * wi;
    }
  }
}

}  // namespace

extern const VecKernels kVec{expShifted, {binary<0>, binary<1>, binary<2>, binary<3>}, biasActivation, sgd1};

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
