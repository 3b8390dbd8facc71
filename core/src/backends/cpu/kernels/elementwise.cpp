// CPU kernels of the elementwise family.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/elementwise_util.hpp"
#include "backends/cpu/kernels/vec_math.hpp"
#include "common/numeric_cast.hpp"

namespace popart {
namespace cpu {
namespace {

// ---------------------------------------------------------------- unary

// Float unary ops evaluated with Eigen's vectorised array functions for FLOAT.
enum class EigenUnary { Exp, Log, Sqrt, Tanh, Sigmoid, Erf, None };

template <typename F>
KernelFn floatUnary(const Op& op, KernelContext& kc, F f, EigenUnary eu = EigenUnary::None) {
  const int x = kc.in(0), y = kc.out(0);
  const int64_t n = op.inInfo(0).nelms();
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>) {
      if (eu != EigenUnary::None) {
        return [=](const RunState& s) {
          Eigen::Map<const Eigen::ArrayXf> a(inPtr<float>(s, x), n);
          Eigen::Map<Eigen::ArrayXf> b(outPtr<float>(s, y), n);
          switch (eu) {
            case EigenUnary::Exp:  // the instruction-set copy's (vec_math.hpp)
              vecKernels().expShifted(inPtr<float>(s, x), 0.0f, outPtr<float>(s, y), n);
              break;
            case EigenUnary::Log:
              b = a.log();
              break;
            case EigenUnary::Sqrt:
              b = a.sqrt();
              break;
            case EigenUnary::Tanh:
              b = a.tanh();
              break;
            case EigenUnary::Sigmoid:
              b = a.logistic();
              break;
            case EigenUnary::Erf:
              b = a.erf();
              break;
            case EigenUnary::None:
              break;
          }
        };
      }
    }
    return [=](const RunState& s) { mapElements(inPtr<T>(s, x), outPtr<T>(s, y), n, f); };
  });
}

template <typename F>
KernelFn floatPredicate(const Op& op, KernelContext& kc, F f) {
  const int x = kc.in(0), y = kc.out(0);
  const int64_t n = op.inInfo(0).nelms();
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) { mapElements(inPtr<T>(s, x), outPtr<bool>(s, y), n, f); };
  });
}

// ---------------------------------------------------------------- binary arithmetic

/// `vec`: FLOAT inputs run the instruction-set copy's loop (vec_math.hpp) on the runs where each
/// operand steps or stays; f on the others and for the other types.
template <typename F>
KernelFn arith(const Op& op, KernelContext& kc, F f, const VecBinary* vec = nullptr) {
  if (vec && op.inType(0) == DataType::FLOAT && op.inType(1) == DataType::FLOAT) {
    const int which = static_cast<int>(*vec);
    return [g = makeBinaryPlan(op, kc), which, f](const RunState& s) {
      const float* ap = inPtr<float>(s, g->a);
      const float* bp = inPtr<float>(s, g->b);
      float* zp = outPtr<float>(s, g->out);
      const VecKernels& k = vecKernels();
      forEachRun<2>(g->plan, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
        const float* x = ap + off[0];
        const float* y = bp + off[1];
        float* z = zp + oo;
        if ((st[0] == 0 || st[0] == 1) && (st[1] == 0 || st[1] == 1)) {
          k.binary[which](x, st[0], y, st[1], z, len);
          return;
        }
        for (int64_t j = 0; j < len; ++j) z[j] = f(x[j * st[0]], y[j * st[1]]);
      });
    };
  }
  return dispatchNumeric(op.inType(0), [&](auto tag) {
    using T = decltype(tag);
    return binaryKernel<T, T>(op, kc, [f](auto a, auto b) { return f(a, b); });
  });
}

template <typename F>
KernelFn compare(const Op& op, KernelContext& kc, F f) {
  return dispatchAll(op.inType(0), [&](auto tag) {
    using T = decltype(tag);
    return binaryKernel<T, bool>(op, kc, [f](auto a, auto b) { return f(a, b); });
  });
}

/// And / Or / Xor / Not read their inputs as bool: another type (which the Builder's lenient
/// shape inference lets through, as PopART's does) is an error here, never bytes read as bool.
void requireBoolInputs(const Op& op) {
  for (int i = 0; i < op.numInputs(); ++i) {
    if (op.hasInput(i) && op.inType(i) != DataType::BOOL)
      throw error("{} needs BOOL inputs; input {} ('{}') is {}", op.describe(), i, op.input(i)->id,
                  op.inInfo(i).toString());
  }
}

template <typename F>
KernelFn logical(const Op& op, KernelContext& kc, F f) {
  requireBoolInputs(op);
  return binaryKernel<bool, bool>(op, kc, f);
}

template <typename T>
T pyMod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else if constexpr (std::is_signed_v<T>) {
    if (b == 0 || b == -1) return 0;  // INT_MIN % -1 overflows (and traps on x86)
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return b == 0 ? 0 : static_cast<T>(a % b);
  }
}

template <typename T>
T cFmod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else if constexpr (std::is_signed_v<T>) {
    return b == 0 || b == -1 ? 0 : static_cast<T>(a % b);
  } else {
    return b == 0 ? 0 : static_cast<T>(a % b);
  }
}

template <typename T>
T safeDiv(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return wrapNeg(a);  // INT_MIN / -1 overflows (and traps on x86)
    }
    return b == 0 ? 0 : static_cast<T>(a / b);
  } else {
    return a / b;
  }
}

template <typename T>
T maxNan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return a > b ? a : b;
}

template <typename T>
T minNan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return a < b ? a : b;
}

// Pow: the exponent may have another type (opset >= 12); the result has the base's type. A
// constant scalar exponent (x^2 in LayerNorm decompositions, ...) gets a direct loop.
KernelFn powKernel(const Op& op, KernelContext& kc) {
  if (op.inType(0) == DataType::FLOAT && op.inConstData(1) && op.inInfo(1).nelms() == 1) {
    const double e = op.inConstData(1)->getDouble(0);
    const int x = kc.in(0), y = kc.out(0);
    const int64_t n = op.outInfo(0).nelms();
    if (e == 2.0) {
      return [=](const RunState& s) {
        const float* a = inPtr<float>(s, x);
        float* b = outPtr<float>(s, y);
        for (int64_t i = 0; i < n; ++i) b[i] = a[i] * a[i];
      };
    }
    if (e == 0.5) {
      return [=](const RunState& s) {
        Eigen::Map<Eigen::ArrayXf>(outPtr<float>(s, y), n) =
            Eigen::Map<const Eigen::ArrayXf>(inPtr<float>(s, x), n).sqrt();
      };
    }
    if (e == 3.0) {
      return [=](const RunState& s) {
        const float* a = inPtr<float>(s, x);
        float* b = outPtr<float>(s, y);
        for (int64_t i = 0; i < n; ++i) b[i] = a[i] * a[i] * a[i];
      };
    }
    const float ef = static_cast<float>(e);
    return [=](const RunState& s) {
      const float* a = inPtr<float>(s, x);
      float* b = outPtr<float>(s, y);
      for (int64_t i = 0; i < n; ++i) b[i] = std::pow(a[i], ef);
    };
  }
  // An exponent of another type is read as double through a per-type loader, so that the code
  // grows with the number of types, not with its square.
  using Load = double (*)(const void*, int64_t);
  const Load load = op.inType(1) == op.inType(0) ? nullptr : dispatchNumeric(op.inType(1), [](auto te) -> Load {
    return [](const void* p, int64_t i) { return static_cast<double>(static_cast<const decltype(te)*>(p)[i]); };
  });
  return dispatchNumeric(op.inType(0), [&](auto tb) -> KernelFn {
    using B = decltype(tb);
    using CB = compute_t<B>;
    auto pw = [](CB a, auto b) {
      if constexpr (std::is_integral_v<CB>) {
        // 0 ** -1 is inf, 10 ** 30 is past every integer type: saturate, as a cast cannot.
        return saturatingCast<CB>(std::pow(static_cast<double>(a), static_cast<double>(b)));
      } else {
        return static_cast<CB>(std::pow(a, static_cast<CB>(b)));
      }
    };
    if (!load) return binaryKernel<B, B>(op, kc, pw);
    return [g = makeBinaryPlan(op, kc), load, pw](const RunState& s) {
      const B* ap = inPtr<B>(s, g->a);
      const void* bp = s.slots[g->b];
      B* zp = outPtr<B>(s, g->out);
      forEachRun<2>(g->plan, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
        POPART_SCALAR_LOOP
        for (int64_t j = 0; j < len; ++j)
          zp[oo + j] = static_cast<B>(pw(static_cast<CB>(ap[off[0] + j * st[0]]), load(bp, off[1] + j * st[1])));
      });
    };
  });
}

// Sum, Mean, Max, Min over any number of broadcast inputs: the output starts as a broadcast copy of
// the first input and accumulates the others. The plans do not depend on the element type and
// are built once.
struct VariadicPlan {
  Shape out;
  int y = -1;
  int64_t n = 0;
  std::vector<int> slots;
  std::vector<Shape> shapes;
  std::vector<BroadcastPlan> plans;  // inputs 1.. against the output
};

std::shared_ptr<const VariadicPlan> makeVariadicPlan(const Op& op, KernelContext& kc) {
  auto g = std::make_shared<VariadicPlan>();
  g->out = op.outInfo(0).shape();
  g->y = kc.out(0);
  g->n = op.outInfo(0).nelms();
  for (int i = 0; i < op.numInputs(); ++i) {
    g->slots.push_back(kc.in(i));
    g->shapes.push_back(op.inShape(i));
    if (i > 0) g->plans.push_back(makeBroadcastPlan(g->out, {g->out, op.inShape(i)}));
  }
  return g;
}

template <typename F>
KernelFn variadic(const Op& op, KernelContext& kc, F f, bool mean) {
  auto g = makeVariadicPlan(op, kc);
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [g, f, mean](const RunState& s) {
      T* o = outPtr<T>(s, g->y);
      broadcastCopy(inPtr<T>(s, g->slots[0]), g->shapes[0], o, g->out, sizeof(T));
      for (size_t i = 1; i < g->slots.size(); ++i) {
        const T* b = inPtr<T>(s, g->slots[i]);
        forEachRun<2>(g->plans[i - 1], [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
          T* z = o + oo;
          const T* x = b + off[1];
          if constexpr (kFastElementwise<T>) {
            if (st[1] == 1) {
              for (int64_t j = 0; j < len; ++j) z[j] = static_cast<T>(f(static_cast<C>(z[j]), static_cast<C>(x[j])));
              return;
            }
          }
          const int64_t s1 = st[1];
          POPART_SCALAR_LOOP
          for (int64_t j = 0; j < len; ++j) z[j] = static_cast<T>(f(static_cast<C>(z[j]), static_cast<C>(x[j * s1])));
        });
      }
      if (mean) {
        const auto k = static_cast<C>(g->slots.size());
        mapElements(o, o, g->n, [k](auto v) { return v / k; });
      }
    };
  });
}

}  // namespace

// clang-format off
KernelFn makeCpuKernel_Abs(const Op& op, KernelContext& kc) { return numericUnary(op, kc, [](auto x) { if constexpr (std::is_unsigned_v<decltype(x)>) return x; else if constexpr (std::is_floating_point_v<decltype(x)>) return std::fabs(x); else return x < 0 ? wrapNeg(x) : x; }); }
KernelFn makeCpuKernel_Acos(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::acos(x); }); }
KernelFn makeCpuKernel_Acosh(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::acosh(x); }); }
KernelFn makeCpuKernel_Asin(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::asin(x); }); }
KernelFn makeCpuKernel_Asinh(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::asinh(x); }); }
KernelFn makeCpuKernel_Atan(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::atan(x); }); }
KernelFn makeCpuKernel_Atanh(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::atanh(x); }); }
KernelFn makeCpuKernel_Ceil(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::ceil(x); }); }
KernelFn makeCpuKernel_Cos(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::cos(x); }); }
KernelFn makeCpuKernel_Cosh(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::cosh(x); }); }
KernelFn makeCpuKernel_Erf(const Op& op, KernelContext& kc) {
  if (isFloatingPoint(op.inType(0))) return floatUnary(op, kc, [](auto x) { return std::erf(x); }, EigenUnary::Erf);
  return numericUnary(op, kc, [](auto x) { return std::erf(static_cast<double>(x)); });
}
KernelFn makeCpuKernel_Exp(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::exp(x); }, EigenUnary::Exp); }
KernelFn makeCpuKernel_Floor(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::floor(x); }); }
KernelFn makeCpuKernel_Log(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::log(x); }, EigenUnary::Log); }
KernelFn makeCpuKernel_Neg(const Op& op, KernelContext& kc) { return numericUnary(op, kc, [](auto x) { return wrapNeg(x); }); }
KernelFn makeCpuKernel_Reciprocal(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return decltype(x)(1) / x; }); }
KernelFn makeCpuKernel_Round(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::nearbyint(x); }); }
KernelFn makeCpuKernel_Sign(const Op& op, KernelContext& kc) { return numericUnary(op, kc, [](auto x) { using T = decltype(x); return static_cast<T>((T(0) < x) - (x < T(0))); }); }
KernelFn makeCpuKernel_Sin(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::sin(x); }); }
KernelFn makeCpuKernel_Sinh(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::sinh(x); }); }
KernelFn makeCpuKernel_Sqrt(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::sqrt(x); }, EigenUnary::Sqrt); }
KernelFn makeCpuKernel_Tan(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::tan(x); }); }
KernelFn makeCpuKernel_GcExpm1(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::expm1(x); }); }
KernelFn makeCpuKernel_GcLog1p(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::log1p(x); }); }
// Graphcore's Round is Poplar's ROUND (half away from zero, as PopART); NearbyInt rounds half to even.
KernelFn makeCpuKernel_GcRound(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::round(x); }); }
KernelFn makeCpuKernel_GcNearbyInt(const Op& op, KernelContext& kc) { return floatUnary(op, kc, [](auto x) { return std::nearbyint(x); }); }
KernelFn makeCpuKernel_IsNaN(const Op& op, KernelContext& kc) { return floatPredicate(op, kc, [](auto x) { return std::isnan(x); }); }
KernelFn makeCpuKernel_IsInf(const Op& op, KernelContext& kc) {
  const bool pos = op.attrs.getInt("detect_positive", 1) != 0, neg = op.attrs.getInt("detect_negative", 1) != 0;
  return floatPredicate(op, kc, [=](auto x) { return std::isinf(x) && ((x > 0 && pos) || (x < 0 && neg)); });
}
KernelFn makeCpuKernel_Not(const Op& op, KernelContext& kc) {
  requireBoolInputs(op);
  const int x = kc.in(0), y = kc.out(0);
  const int64_t n = op.inInfo(0).nelms();
  return [=](const RunState& s) {
    const bool* a = inPtr<bool>(s, x);
    bool* b = outPtr<bool>(s, y);
    for (int64_t i = 0; i < n; ++i) b[i] = !a[i];
  };
}

KernelFn makeCpuKernel_Add(const Op& op, KernelContext& kc) {
  if (op.attrs.has("__act") && op.inType(0) == DataType::FLOAT)  // Add + Relu fused by a pattern
    return binaryKernel<float, float>(op, kc, [](float a, float b) { return std::max(a + b, 0.0f); });
  static const VecBinary vec = VecBinary::Add;
  return arith(op, kc, [](auto a, auto b) { return wrapAdd(a, b); }, &vec);
}
KernelFn makeCpuKernel_Sub(const Op& op, KernelContext& kc) {
  static const VecBinary vec = VecBinary::Sub;
  return arith(op, kc, [](auto a, auto b) { return wrapSub(a, b); }, &vec);
}
KernelFn makeCpuKernel_Mul(const Op& op, KernelContext& kc) {
  // PopART's mixed precision (ops/op_util.hpp broadcastType): FLOAT16 times a FLOAT scalar, in float.
  auto mul = [](float a, float b) { return a * b; };
  if (op.inType(0) == DataType::FLOAT16 && op.inType(1) == DataType::FLOAT)
    return binaryKernel2<float16_t, float, float16_t>(op, kc, mul);
  if (op.inType(0) == DataType::FLOAT && op.inType(1) == DataType::FLOAT16)
    return binaryKernel2<float, float16_t, float16_t>(op, kc, mul);
  static const VecBinary vec = VecBinary::Mul;
  return arith(op, kc, [](auto a, auto b) { return wrapMul(a, b); }, &vec);
}
KernelFn makeCpuKernel_Div(const Op& op, KernelContext& kc) {
  static const VecBinary vec = VecBinary::Div;
  return arith(op, kc, [](auto a, auto b) { return safeDiv(a, b); }, &vec);
}
KernelFn makeCpuKernel_Pow(const Op& op, KernelContext& kc) { return powKernel(op, kc); }
KernelFn makeCpuKernel_Mod(const Op& op, KernelContext& kc) {
  if (op.attrs.getInt("fmod", 0) != 0) return arith(op, kc, [](auto a, auto b) { return cFmod(a, b); });
  return arith(op, kc, [](auto a, auto b) { return pyMod(a, b); });
}
KernelFn makeCpuKernel_GcFmod(const Op& op, KernelContext& kc) { return arith(op, kc, [](auto a, auto b) { return cFmod(a, b); }); }
KernelFn makeCpuKernel_GcRemainder(const Op& op, KernelContext& kc) { return arith(op, kc, [](auto a, auto b) { return pyMod(a, b); }); }
KernelFn makeCpuKernel_GcAtan2(const Op& op, KernelContext& kc) {
  return dispatchFloat(op.inType(0), [&](auto tag) {
    using T = decltype(tag);
    return binaryKernel<T, T>(op, kc, [](auto a, auto b) { return std::atan2(a, b); });
  });
}
KernelFn makeCpuKernel_And(const Op& op, KernelContext& kc) { return logical(op, kc, [](bool a, bool b) { return a && b; }); }
KernelFn makeCpuKernel_Or(const Op& op, KernelContext& kc) { return logical(op, kc, [](bool a, bool b) { return a || b; }); }
KernelFn makeCpuKernel_Xor(const Op& op, KernelContext& kc) { return logical(op, kc, [](bool a, bool b) { return a != b; }); }
KernelFn makeCpuKernel_Equal(const Op& op, KernelContext& kc) { return compare(op, kc, [](auto a, auto b) { return a == b; }); }
KernelFn makeCpuKernel_Greater(const Op& op, KernelContext& kc) { return compare(op, kc, [](auto a, auto b) { return a > b; }); }
KernelFn makeCpuKernel_GreaterOrEqual(const Op& op, KernelContext& kc) { return compare(op, kc, [](auto a, auto b) { return a >= b; }); }
KernelFn makeCpuKernel_Less(const Op& op, KernelContext& kc) { return compare(op, kc, [](auto a, auto b) { return a < b; }); }
KernelFn makeCpuKernel_LessOrEqual(const Op& op, KernelContext& kc) { return compare(op, kc, [](auto a, auto b) { return a <= b; }); }
KernelFn makeCpuKernel_Max(const Op& op, KernelContext& kc) { return variadic(op, kc, [](auto a, auto b) { return maxNan(a, b); }, false); }
KernelFn makeCpuKernel_Min(const Op& op, KernelContext& kc) { return variadic(op, kc, [](auto a, auto b) { return minNan(a, b); }, false); }
KernelFn makeCpuKernel_Sum(const Op& op, KernelContext& kc) { return variadic(op, kc, [](auto a, auto b) { return wrapAdd(a, b); }, false); }
KernelFn makeCpuKernel_Mean(const Op& op, KernelContext& kc) { return variadic(op, kc, [](auto a, auto b) { return wrapAdd(a, b); }, true); }
// clang-format on

KernelFn makeCpuKernel_BitShift(const Op& op, KernelContext& kc) {
  const bool left = op.attrs.getString("direction") == "LEFT";
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    if constexpr (std::is_unsigned_v<T>) {
      return binaryKernel<T, T>(op, kc, [left](auto a, auto b) {
        const unsigned bits = sizeof(T) * 8;
        if (static_cast<uint64_t>(b) >= bits) return T(0);
        return left ? static_cast<T>(a << b) : static_cast<T>(a >> b);
      });
    } else {
      return KernelFn();
    }
  });
}

KernelFn makeCpuKernel_Where(const Op& op, KernelContext& kc) {
  const Shape out = op.outInfo(0).shape();
  const BroadcastPlan p = makeBroadcastPlan(out, {op.inShape(0), op.inShape(1), op.inShape(2)});
  const int c = kc.in(0), x = kc.in(1), yv = kc.in(2), o = kc.out(0);
  return dispatchBySize(op.inType(1), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const bool* cp = inPtr<bool>(s, c);
      const T* xp = inPtr<T>(s, x);
      const T* yp = inPtr<T>(s, yv);
      T* op_ = outPtr<T>(s, o);
      forEachRun<3>(p, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
        for (int64_t j = 0; j < len; ++j)
          op_[oo + j] = cp[off[0] + j * st[0]] ? xp[off[1] + j * st[1]] : yp[off[2] + j * st[2]];
      });
    };
  });
}

KernelFn makeCpuKernel_GcScale(const Op& op, KernelContext& kc) {
  const double scale = op.attrs.getFloat("scale");
  return numericUnary(op, kc, [scale](auto x) { return numericCast<decltype(x)>(x * scale); });
}

KernelFn makeCpuKernel_GcScaledAdd(const Op& op, KernelContext& kc) {
  const double s0 = op.attrs.getFloat("scale0", 1.0f), s1 = op.attrs.getFloat("scale1", 1.0f);
  if (!op.hasInput(2) && !op.hasInput(3))
    return arith(op, kc, [s0, s1](auto a, auto b) { return numericCast<decltype(a)>(s0 * a + s1 * b); });
  // PopART's 4-input form: a scale given as a (one-element) tensor replaces that attribute; it is
  // read on every run.
  const int in2 = op.hasInput(2) ? kc.in(2) : -1, in3 = op.hasInput(3) ? kc.in(3) : -1;
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [g = makeBinaryPlan(op, kc), in2, in3, s0, s1](const RunState& s) {
      const double k0 = in2 >= 0 ? static_cast<double>(static_cast<C>(*inPtr<T>(s, in2))) : s0;
      const double k1 = in3 >= 0 ? static_cast<double>(static_cast<C>(*inPtr<T>(s, in3))) : s1;
      const T* ap = inPtr<T>(s, g->a);
      const T* bp = inPtr<T>(s, g->b);
      T* zp = outPtr<T>(s, g->out);
      forEachRun<2>(g->plan, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* st) {
        for (int64_t j = 0; j < len; ++j) {
          const double v = k0 * static_cast<double>(static_cast<C>(ap[off[0] + j * st[0]])) +
                           k1 * static_cast<double>(static_cast<C>(bp[off[1] + j * st[1]]));
          zp[oo + j] = static_cast<T>(numericCast<C>(v));
        }
      });
    };
  });
}

/// IncrementMod: fmod(x + increment, modulus) in x's type (integers wrap on the addition and take
/// C's remainder, as PopART's test reference np.fmod does).
KernelFn makeCpuKernel_GcIncrementMod(const Op& op, KernelContext& kc) {
  const double inc = op.attrs.getFloat("increment"), mod = op.attrs.getFloat("modulus");
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using C = compute_t<decltype(tag)>;
    const C i = static_cast<C>(inc), m = static_cast<C>(mod);
    return numericUnary(op, kc, [i, m](C x) { return cFmod(static_cast<C>(wrapAdd(x, i)), m); });
  });
}

/// Bitwise ops act on the bits, whatever the signedness: dispatched on the element size.
template <typename F>
KernelFn bitwiseBinary(const Op& op, KernelContext& kc, F f) {
  return dispatchBySize(op.inType(0), [&](auto tag) {
    using U = decltype(tag);
    return binaryKernel<U, U>(op, kc, [f](U a, U b) { return static_cast<U>(f(a, b)); });
  });
}

KernelFn makeCpuKernel_GcBitwiseNot(const Op& op, KernelContext& kc) {
  const int x = kc.in(0), y = kc.out(0);
  const int64_t n = op.inInfo(0).nelms();
  return dispatchBySize(op.inType(0), [&](auto tag) -> KernelFn {
    using U = decltype(tag);
    return [=](const RunState& s) {
      mapElements(inPtr<U>(s, x), outPtr<U>(s, y), n, [](U v) { return static_cast<U>(~v); });
    };
  });
}
KernelFn makeCpuKernel_GcBitwiseAnd(const Op& op, KernelContext& kc) {
  return bitwiseBinary(op, kc, [](auto a, auto b) { return a & b; });
}
KernelFn makeCpuKernel_GcBitwiseOr(const Op& op, KernelContext& kc) {
  return bitwiseBinary(op, kc, [](auto a, auto b) { return a | b; });
}
KernelFn makeCpuKernel_GcBitwiseXor(const Op& op, KernelContext& kc) {
  return bitwiseBinary(op, kc, [](auto a, auto b) { return a ^ b; });
}
KernelFn makeCpuKernel_GcBitwiseXnor(const Op& op, KernelContext& kc) {
  return bitwiseBinary(op, kc, [](auto a, auto b) { return ~(a ^ b); });
}

const VecKernels& vecKernels() {
  static const VecKernels& k = POPART_ISA_PICK(kVec);
  return k;
}

std::vector<std::pair<std::string, const VecKernels*>> runnableVecKernels() {
  return runnableIsaTables<VecKernels>(POPART_ISA_ALL(kVec));
}

}  // namespace cpu
}  // namespace popart
