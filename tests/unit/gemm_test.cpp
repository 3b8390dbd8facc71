// Packed SGEMM (backends/cpu/gemm.cpp) against a naive double-precision reference: edge tiles,
// all transpose combinations, alpha/beta, strided operands, and beta == 0 never reading C.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/gemm.hpp"
#include "backends/cpu/gemm_isa.hpp"
#include "backends/cpu/isa.hpp"
#include "popart/threads.hpp"

namespace {

struct Case {
  int64_t M, N, K;
  bool ta, tb;
  float alpha, beta;
  int64_t padA = 0, padB = 0, padC = 0;  // extra leading-dimension elements
};

// Runs one case (on `isa`'s copy of the GEMM; nullptr: gemm()'s) and reports the first few
// mismatches.
void runCase(const Case& c, uint32_t seed, const popart::cpu::GemmIsa* isa = nullptr) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // Stored shapes: A is M x K (K x M when transposed), B is K x N (N x K when transposed).
  const int64_t aRows = c.ta ? c.K : c.M, aCols = c.ta ? c.M : c.K;
  const int64_t bRows = c.tb ? c.N : c.K, bCols = c.tb ? c.K : c.N;
  const int64_t lda = aCols + c.padA, ldb = bCols + c.padB, ldc = c.N + c.padC;
  // Padding is filled with NaN: reading it would poison the result.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> A(static_cast<size_t>(std::max<int64_t>(1, aRows * lda)), nan);
  std::vector<float> B(static_cast<size_t>(std::max<int64_t>(1, bRows * ldb)), nan);
  std::vector<float> C(static_cast<size_t>(std::max<int64_t>(1, c.M * ldc)), nan);
  for (int64_t i = 0; i < aRows; ++i)
    for (int64_t j = 0; j < aCols; ++j) A[static_cast<size_t>(i * lda + j)] = dist(rng);
  for (int64_t i = 0; i < bRows; ++i)
    for (int64_t j = 0; j < bCols; ++j) B[static_cast<size_t>(i * ldb + j)] = dist(rng);
  // beta == 0: C keeps its NaN fill to prove it is never read.
  if (c.beta != 0.0f) {
    for (int64_t i = 0; i < c.M; ++i)
      for (int64_t j = 0; j < c.N; ++j) C[static_cast<size_t>(i * ldc + j)] = dist(rng);
  }
  const std::vector<float> C0 = C;

  if (isa) {
    isa->sgemm(c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb, c.beta, C.data(), ldc, nullptr);
  } else {
    popart::cpu::gemm(c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb, c.beta, C.data(), ldc);
  }

  // Relative to the sum of |terms|: float blocking error stays far below 1e-5 of it for these K,
  // while a single lost or duplicated product (about mag / K) would not.
  const double tol = 1e-5;
  int bad = 0;
  for (int64_t i = 0; i < c.M; ++i) {
    for (int64_t j = 0; j < c.N; ++j) {
      double acc = 0.0, mag = 0.0;
      for (int64_t k = 0; k < c.K; ++k) {
        const double a = A[static_cast<size_t>(c.ta ? k * lda + i : i * lda + k)];
        const double b = B[static_cast<size_t>(c.tb ? j * ldb + k : k * ldb + j)];
        acc += a * b;
        mag += std::fabs(a * b);
      }
      const size_t ci = static_cast<size_t>(i * ldc + j);
      double ref = c.alpha * acc;
      if (c.beta != 0.0f) ref += static_cast<double>(c.beta) * C0[ci];
      const double scale = std::fabs(c.alpha) * mag + (c.beta != 0.0f ? std::fabs(c.beta * C0[ci]) : 0.0) + 1e-6;
      const double got = C[ci];
      if (!(std::fabs(got - ref) <= tol * scale)) {
        if (++bad <= 5) {
          ADD_FAILURE() << "M=" << c.M << " N=" << c.N << " K=" << c.K << " ta=" << c.ta << " tb=" << c.tb
                        << " alpha=" << c.alpha << " beta=" << c.beta << " at (" << i << "," << j << "): got " << got
                        << " want " << ref;
        }
      }
    }
  }
  // The padding columns of C must be left untouched.
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = c.N; j < ldc; ++j) {
      const size_t ci = static_cast<size_t>(i * ldc + j);
      EXPECT_TRUE(std::isnan(C[ci]) && std::isnan(C0[ci])) << "C padding written at (" << i << "," << j << ")";
    }
}

const int64_t kShapes[][3] = {{1, 1, 1},     {1, 17, 3},    {2, 2, 2},       {7, 13, 5},     {6, 16, 8},
                              {5, 15, 9},    {13, 7, 1},    {12, 32, 64},    {9, 8, 300},    {33, 65, 129},
                              {64, 49, 100}, {31, 17, 513}, {100, 3, 40},    {3, 100, 40},   {48, 48, 48},
                              {1, 300, 77},  {300, 1, 77},  {200, 300, 400}, {37, 1029, 11}, {193, 35, 257}};

TEST(Gemm, ShapesAllTransposes) {
  uint32_t seed = 1;
  for (const auto& s : kShapes) {
    for (int t = 0; t < 4; ++t) runCase({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f}, seed++);
  }
}

TEST(Gemm, EveryInstructionSetThisCpuRuns) {
  // Each copy of the GEMM (AVX-512, AVX2, baseline x86-64 on x86-64; gemm_isa.hpp) called
  // directly on the same cases, whichever gemm() uses.
  const auto isas = popart::cpu::runnableGemms();
  ASSERT_FALSE(isas.empty());
  for (const popart::cpu::GemmIsa* isa : isas) {
    SCOPED_TRACE(isa->name);
    uint32_t seed = 700;
    for (const auto& s : kShapes) {
      for (int t = 0; t < 4; ++t) runCase({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f}, seed++, isa);
    }
    // Ragged rows and columns around the copy's own tile, strided operands, alpha and beta.
    for (int64_t m : {isa->mr - 1, isa->mr + 1, 2 * isa->mr + 5}) {
      for (int64_t n : {isa->nr - 1, isa->nr + 3, 3 * isa->nr - 7}) {
        for (int t = 0; t < 4; ++t) runCase({m, n, 37, (t & 1) != 0, (t & 2) != 0, 0.5f, 1.5f, 3, 5, 7}, seed++, isa);
      }
    }
    // Few columns, many rows: one vector per tile row.
    for (const auto& mn : {std::array<int64_t, 2>{4 * isa->nr + 3, isa->nr / 2}, std::array<int64_t, 2>{4 * isa->nr, 3},
                           std::array<int64_t, 2>{5 * isa->nr + 1, isa->nr / 2 - 1}}) {
      for (int t = 0; t < 4; ++t) {
        runCase({mn[0], mn[1], 70, (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f}, seed++, isa);
        runCase({mn[0], mn[1], 600, (t & 1) != 0, (t & 2) != 0, -0.5f, 2.0f, 1, 2, 3}, seed++, isa);
      }
    }
    runCase({20, 40, 1500, false, true, 1.0f, 0.0f}, seed++, isa);
  }
}

TEST(Gemm, TheEnvironmentChoosesTheInstructionSet) {
  // POPART_CPU_ISA names the copy gemm() runs (the ctest entries gemm_isa_*); by default the best
  // this CPU runs.
  const char* env = std::getenv("POPART_CPU_ISA");
  const auto isas = popart::cpu::runnableGemms();
  EXPECT_EQ(std::string(popart::cpu::activeGemm().name), env && *env ? std::string(env) : isas.front()->name);
  EXPECT_EQ(popart::cpu::builtIsas()[popart::cpu::activeIsaIndex()], popart::cpu::activeGemm().name);
}

TEST(Gemm, AlphaBeta) {
  const float ab[][2] = {{1.0f, 1.0f}, {0.5f, -2.0f}, {-1.5f, 0.0f}, {2.0f, 0.25f}, {1.0f, -1.0f}};
  uint32_t seed = 100;
  for (const auto& s : {kShapes[3], kShapes[9], kShapes[15], kShapes[19]}) {
    for (const auto& v : ab) {
      for (int t = 0; t < 4; ++t) runCase({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, v[0], v[1]}, seed++);
    }
  }
}

TEST(Gemm, LeadingDimensions) {
  uint32_t seed = 200;
  for (const auto& s : {kShapes[3], kShapes[9], kShapes[12], kShapes[15], kShapes[16], kShapes[19]}) {
    for (int t = 0; t < 4; ++t) {
      runCase({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f, 3, 5, 7}, seed++);
      runCase({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, 0.75f, 1.0f, 16, 1, 9}, seed++);
    }
  }
}

TEST(Gemm, DeepK) {
  // K spans several cache blocks: later blocks must accumulate, not overwrite.
  uint32_t seed = 300;
  for (int t = 0; t < 4; ++t) {
    runCase({20, 40, 1500, (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f}, seed++);
    runCase({8, 19, 777, (t & 1) != 0, (t & 2) != 0, -0.5f, 2.0f, 1, 2, 3}, seed++);
  }
}

TEST(Gemm, LargeB) {
  // B past the driver's DRAM threshold (4M floats) takes the row-streaming packing path.
  runCase({7, 2100, 2100, false, false, 1.0f, 0.0f}, 500);
  runCase({6, 2049, 2050, true, false, 0.5f, 1.0f, 3, 4, 5}, 501);
}

TEST(Gemm, WideN) {
  // N spans more than one column block of the driver.
  runCase({7, 5000, 9, false, false, 1.0f, 0.0f}, 400);
  runCase({7, 5000, 9, false, true, 1.0f, 0.5f}, 401);
}

TEST(Gemm, EpilogueCoversEveryElementOnce) {
  // The hook sees final values (alpha/beta applied) and the blocks tile C exactly once.
  struct Ctx {
    std::vector<int> hits;
    int64_t n;
    bool sawFinal = true;
    const std::vector<float>* want;
  };
  auto fn = [](void* p, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0, int64_t col0) {
    Ctx& x = *static_cast<Ctx*>(p);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const size_t at = static_cast<size_t>((row0 + i) * x.n + col0 + j);
        ++x.hits[at];
        if (std::fabs(c[i * ldc + j] - (*x.want)[at]) > 1e-3f) x.sawFinal = false;
        c[i * ldc + j] += 1.0f;  // the epilogue may modify C
      }
  };
  static const int64_t kNarrow[3] = {300, 7, 50};  // few columns, many rows
  for (const auto& s : {kShapes[9], kShapes[15], kShapes[16], kShapes[17], kShapes[18], kNarrow}) {
    const int64_t M = s[0], N = s[1], K = s[2];
    std::vector<float> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N));
    for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>((i * 7) % 11) / 11.0f - 0.5f;
    for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>((i * 5) % 13) / 13.0f - 0.5f;
    std::vector<float> want(static_cast<size_t>(M * N), 0.0f), C(static_cast<size_t>(M * N), 0.0f);
    popart::cpu::gemm(false, false, M, N, K, 0.5f, A.data(), K, B.data(), N, 0.0f, want.data(), N);
    Ctx ctx{std::vector<int>(static_cast<size_t>(M * N), 0), N, true, &want};
    popart::cpu::GemmEpilogue ep;
    ep.fn = fn;
    ep.ctx = &ctx;
    popart::cpu::gemm(false, false, M, N, K, 0.5f, A.data(), K, B.data(), N, 0.0f, C.data(), N, ep);
    EXPECT_TRUE(ctx.sawFinal) << M << "x" << N << "x" << K;
    for (size_t i = 0; i < C.size(); ++i) {
      ASSERT_EQ(ctx.hits[i], 1) << "element " << i << " of " << M << "x" << N << "x" << K;
      ASSERT_FLOAT_EQ(C[i], want[i] + 1.0f);
    }
  }
}

// Two threads: products big enough to be split by columns (whole panels), by rows (few
// columns), and the few-row and single-column paths; each checked against the double reference
// and the epilogue against the blocks' absolute coordinates. Builds without threads run the same
// cases on one thread.
struct Threads {
  explicit Threads(int n) { popart::setNumThreads(n); }
  ~Threads() { popart::setNumThreads(1); }
};

TEST(Gemm, TwoThreads) {
  Threads two(2);
  const int64_t shapes[][3] = {{96, 2048, 64}, {256, 20, 512}, {3, 4096, 512}, {8192, 1, 512}, {200, 300, 400}};
  uint32_t seed = 100;
  for (const auto& s : shapes) {
    for (int t = 0; t < 4; ++t) runCase({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f}, seed++);
    runCase({s[0], s[1], s[2], false, false, 0.5f, 0.25f, 3, 5, 7}, seed++);
  }
}

TEST(Gemm, TwoThreadsEpilogueCoversEveryElementOnce) {
  Threads two(2);
  struct Ctx {
    std::vector<int> hits;
    int64_t n;
  };
  auto fn = [](void* p, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0, int64_t col0) {
    Ctx& x = *static_cast<Ctx*>(p);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        ++x.hits[static_cast<size_t>((row0 + i) * x.n + col0 + j)];  // blocks are disjoint: no race
        c[i * ldc + j] = static_cast<float>((row0 + i) * x.n + col0 + j);
      }
  };
  for (const auto& s : {std::array<int64_t, 3>{96, 2048, 64}, {256, 20, 512}, {3, 4096, 512}}) {
    const int64_t M = s[0], N = s[1], K = s[2];
    std::vector<float> A(static_cast<size_t>(M * K), 0.5f), B(static_cast<size_t>(K * N), 0.25f);
    std::vector<float> C(static_cast<size_t>(M * N), 0.0f);
    Ctx ctx{std::vector<int>(static_cast<size_t>(M * N), 0), N};
    popart::cpu::GemmEpilogue ep;
    ep.fn = fn;
    ep.ctx = &ctx;
    popart::cpu::gemm(false, false, M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f, C.data(), N, ep);
    for (size_t i = 0; i < C.size(); ++i) {
      ASSERT_EQ(ctx.hits[i], 1) << "element " << i << " of " << M << "x" << N << "x" << K;
      ASSERT_EQ(C[i], static_cast<float>(i)) << "the epilogue saw element " << i << " at the wrong coordinates";
    }
  }
}

TEST(Gemm, EmptyDimensions) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float A[4] = {1, 2, 3, 4}, B[4] = {1, 2, 3, 4};
  // K == 0: C = beta * C; with beta == 0 the NaN contents are overwritten with zeros.
  float C[4] = {nan, nan, nan, nan};
  popart::cpu::gemm(false, false, 2, 2, 0, 1.0f, A, 1, B, 2, 0.0f, C, 2);
  for (float v : C) EXPECT_EQ(v, 0.0f);
  float D[4] = {1, 2, 3, 4};
  popart::cpu::gemm(true, true, 2, 2, 0, 1.0f, A, 2, B, 1, 2.0f, D, 2);
  EXPECT_EQ(D[0], 2.0f);
  EXPECT_EQ(D[3], 8.0f);
  // alpha == 0 behaves the same (op(A), op(B) are not needed).
  float E[4] = {1, 2, 3, 4};
  popart::cpu::gemm(false, false, 2, 2, 2, 0.0f, A, 2, B, 2, 0.5f, E, 2);
  EXPECT_EQ(E[1], 1.0f);
  // M == 0 / N == 0: nothing is touched.
  float F[1] = {nan};
  popart::cpu::gemm(false, false, 0, 1, 3, 1.0f, A, 3, B, 1, 0.0f, F, 1);
  popart::cpu::gemm(false, false, 1, 0, 3, 1.0f, A, 3, B, 1, 0.0f, F, 1);
  EXPECT_TRUE(std::isnan(F[0]));
}

TEST(Gemm, DoubleMatchesReference) {
  const int64_t M = 9, N = 11, K = 13;
  std::vector<double> A(M * K), B(K * N), C(M * N, std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < A.size(); ++i) A[i] = std::sin(static_cast<double>(i));
  for (size_t i = 0; i < B.size(); ++i) B[i] = std::cos(static_cast<double>(i));
  popart::cpu::gemm(false, true, M, N, K, 2.0, A.data(), K, B.data(), K, 0.0, C.data(), N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) ref += A[static_cast<size_t>(i * K + k)] * B[static_cast<size_t>(j * K + k)];
      EXPECT_NEAR(C[static_cast<size_t>(i * N + j)], 2.0 * ref, 1e-12);
    }
}

}  // namespace
