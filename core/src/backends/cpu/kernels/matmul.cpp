// CPU kernels of the matmul family: MatMul (batched, broadcast) and Gemm, with an optional
// fused activation epilogue.
#include <cctype>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/gemm.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/activation_fn.hpp"
#include "ir/ir.hpp"
#include "popart/error.hpp"
#include "popart/names.hpp"

namespace popart {
namespace cpu {
namespace {

// Generic fallback for integer and 16-bit types: naive triple loop in the compute type.
template <typename T>
void naiveGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C, bool accumulate) {
  using CT = std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, compute_t<T>>;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      CT acc = accumulate ? static_cast<CT>(static_cast<compute_t<T>>(C[m * N + n])) : CT(0);
      for (int64_t k = 0; k < K; ++k) {
        const CT a = static_cast<CT>(static_cast<compute_t<T>>(ta ? A[k * M + m] : A[m * K + k]));
        const CT b = static_cast<CT>(static_cast<compute_t<T>>(tb ? B[n * K + k] : B[k * N + n]));
        acc += a * b;
      }
      C[m * N + n] = static_cast<T>(static_cast<compute_t<T>>(acc));
    }
  }
}

// FLOAT16 with half partials (partialsTypeMatMuls / Builder.setPartialsType "half"): each product
// (exact in float) is added to a half-precision accumulator, rounded after every addition, as an
// IPU's AMP accumulating in fp16 would.
template <typename T>
void halfPartialsGemm(int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C) {
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      T acc = static_cast<T>(0.0f);
      for (int64_t k = 0; k < K; ++k)
        acc = static_cast<T>(static_cast<float>(acc) +
                             static_cast<float>(A[m * K + k]) * static_cast<float>(B[k * N + n]));
      C[m * N + n] = acc;
    }
  }
}

/// The MatMul's partials type: its own attribute, else the session's partialsTypeMatMuls.
bool halfPartials(const Op& op) {
  std::string t = op.attrs.getString(sPartialsTypeAttribute, op.graph().ir().options().partialsTypeMatMuls);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.empty() || t == "float") return false;
  if (t == "half") return true;
  throw error("Unable to get partials type from string '{}' for MatMul '{}' (\"float\" or \"half\")", t, op.name());
}

template <typename T>
void anyGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C, bool accumulate) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    gemm(ta, tb, M, N, K, T(1), A, ta ? M : K, B, tb ? K : N, accumulate ? T(1) : T(0), C, N);
  } else {
    naiveGemm(ta, tb, M, N, K, A, B, C, accumulate);
  }
}

}  // namespace

KernelFn makeCpuKernel_MatMul(const Op& op, KernelContext& kc) {
  const BatchedMatMul mm = batchedMatMul(op.inShape(0), op.inShape(1));
  const int64_t M = mm.M, K = mm.K, N = mm.N, nb = mm.nb;
  const std::vector<int64_t>& offA = mm.offA;
  const std::vector<int64_t>& offB = mm.offB;
  // B shared by every batch and A contiguous: one GEMM with M' = batch * M.
  bool foldBatch = true;
  for (size_t i = 0; i < offB.size(); ++i) {
    if (offB[i] != 0 || offA[i] != static_cast<int64_t>(i)) foldBatch = false;
  }
  const Activation act = Activation::fromAttrs(op.attrs);
  const int x = kc.in(0), w = kc.in(1), y = kc.out(0);
  const bool half = halfPartials(op) && op.inType(0) == DataType::FLOAT16;
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* A = inPtr<T>(s, x);
      const T* B = inPtr<T>(s, w);
      T* C = outPtr<T>(s, y);
      if constexpr (std::is_same_v<T, float16_t>) {
        if (half) {
          for (int64_t i = 0; i < nb; ++i)
            halfPartialsGemm<T>(M, N, K, A + offA[static_cast<size_t>(i)] * M * K,
                                B + offB[static_cast<size_t>(i)] * K * N, C + i * M * N);
          return;
        }
      }
      if (foldBatch) {
        anyGemm<T>(false, false, nb * M, N, K, A, B, C, false);
      } else {
        for (int64_t i = 0; i < nb; ++i)
          anyGemm<T>(false, false, M, N, K, A + offA[static_cast<size_t>(i)] * M * K,
                     B + offB[static_cast<size_t>(i)] * K * N, C + i * M * N, false);
      }
      if constexpr (std::is_same_v<T, float>) {
        if (act.kind != Activation::Kind::None) applyActivation(act, C, C, nb * M * N);
      }
    };
  });
}

KernelFn makeCpuKernel_Gemm(const Op& op, KernelContext& kc) {
  const bool ta = op.attrs.getInt("transA", 0) != 0, tb = op.attrs.getInt("transB", 0) != 0;
  const double alpha = op.attrs.getFloat("alpha", 1.0f), beta = op.attrs.getFloat("beta", 1.0f);
  const Shape& a = op.inShape(0);
  const Shape& out = op.outInfo(0).shape();
  const int64_t M = out[0], N = out[1], K = ta ? a[0] : a[1];
  const bool hasC = op.hasInput(2) && beta != 0.0;
  const Shape cShape = op.hasInput(2) ? op.inShape(2) : Shape{};
  const bool cIsRowVector = hasC && (cShape == Shape{N} || cShape == Shape{1, N});
  const Activation act = Activation::fromAttrs(op.attrs);
  const int x = kc.in(0), w = kc.in(1), c = kc.in(2), y = kc.out(0);
  // FLOAT with constant weights: transpose B once (the GEMM streams plain B fastest) and add the
  // bias + activation in the GEMM epilogue.
  if (op.inType(0) == DataType::FLOAT && (!hasC || cIsRowVector) && beta == 1.0) {
    std::shared_ptr<std::vector<float>> bt;
    // Only for weights of moderate size and several rows: a copy of huge weights costs memory, and
    // few-row products stream transposed B directly anyway.
    if (tb && op.inConstData(1) && K * N * 4 <= (8 << 20) && M > 8) {
      const float* src = op.inConstData(1)->as<float>();
      bt = std::make_shared<std::vector<float>>(static_cast<size_t>(K * N));
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t k = 0; k < K; ++k) (*bt)[static_cast<size_t>(k * N + n)] = src[n * K + k];
      }
    }
    const bool transB = tb && !bt;
    const int64_t lda = a[1];
    return [=](const RunState& s) {
      const float* B = bt ? bt->data() : inPtr<float>(s, w);
      BiasActivation epi;
      epi.colBias = hasC ? inPtr<float>(s, c) : nullptr;
      epi.act = act;
      float* C = outPtr<float>(s, y);
      if (epi.empty()) {
        gemm(ta, transB, M, N, K, static_cast<float>(alpha), inPtr<float>(s, x), lda, B, transB ? K : N, 0.0f, C, N);
      } else {
        gemm(ta, transB, M, N, K, static_cast<float>(alpha), inPtr<float>(s, x), lda, B, transB ? K : N, 0.0f, C, N,
             GemmEpilogue{&BiasActivation::apply, &epi});
      }
    };
  }
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* A = inPtr<T>(s, x);
      const T* B = inPtr<T>(s, w);
      T* C = outPtr<T>(s, y);
      if (hasC) {
        const T* bias = inPtr<T>(s, c);
        if (cIsRowVector) {
          for (int64_t m = 0; m < M; ++m) std::memcpy(C + m * N, bias, static_cast<size_t>(N) * sizeof(T));
        } else {
          broadcastCopy(bias, cShape, C, {M, N}, sizeof(T));
        }
        if (beta != 1.0) {
          for (int64_t i = 0; i < M * N; ++i) C[i] = static_cast<T>(static_cast<CT>(C[i]) * static_cast<CT>(beta));
        }
      }
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        gemm(ta, tb, M, N, K, static_cast<T>(alpha), A, a[1], B, (tb ? K : N), hasC ? T(1) : T(0), C, N);
      } else {
        if (!hasC) std::memset(static_cast<void*>(C), 0, static_cast<size_t>(M * N) * sizeof(T));
        std::vector<T> tmp(static_cast<size_t>(M * N));
        naiveGemm(ta, tb, M, N, K, A, B, tmp.data(), false);
        for (int64_t i = 0; i < M * N; ++i)
          C[i] = static_cast<T>(static_cast<CT>(C[i]) +
                                static_cast<CT>(alpha) * static_cast<CT>(tmp[static_cast<size_t>(i)]));
      }
      if constexpr (std::is_same_v<T, float>) {
        if (act.kind != Activation::Kind::None) applyActivation(act, C, C, M * N);
      }
    };
  });
}

}  // namespace cpu
}  // namespace popart
