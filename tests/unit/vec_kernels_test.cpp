// The float array loops of every instruction-set copy this CPU runs (kernels/vec_math.cpp),
// called directly: the exponential against std::exp in double (relative error, special values,
// lengths around the vector width) and the four operators against scalar arithmetic with each
// operand stepping or fixed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/kernels/vec_math.hpp"

namespace {

using popart::cpu::runnableVecKernels;

TEST(VecKernels, ExpOfEveryInstructionSetThisCpuRuns) {
  const auto copies = runnableVecKernels();
  ASSERT_FALSE(copies.empty());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> wide(-90.0f, 90.0f), near(-2.0f, 2.0f);
  for (const auto& copy : copies) {
    SCOPED_TRACE(copy.first);
    for (int64_t n : {1, 3, 4, 7, 8, 15, 16, 17, 33, 100, 1000}) {
      std::vector<float> x(static_cast<size_t>(n)), y(x.size());
      for (size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? wide(rng) : near(rng);
      const float shift = n % 3 ? 1.5f : 0.0f;
      copy.second->expShifted(x.data(), shift, y.data(), n);
      for (size_t i = 0; i < x.size(); ++i) {
        const double want = std::exp(static_cast<double>(x[i] - shift));
        if (want < 1.2e-38) {
          EXPECT_LE(y[i], 1.2e-38f) << x[i];  // below float's normal range: 0 or a tiny value
        } else if (want > 3.4e38) {
          EXPECT_EQ(y[i], std::numeric_limits<float>::infinity()) << x[i];
        } else {
          EXPECT_NEAR(y[i] / want, 1.0, 3e-7) << "exp(" << x[i] << " - " << shift << ")";
        }
      }
    }
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> x{0.0f, -inf,  inf,  std::nanf(""), 88.5f,  -87.2f, -87.5f, -1000.0f, 1000.0f,
                         1.0f, -0.0f, 0.5f, 88.7f,         -20.0f, 20.0f,  1e-8f,  2.0f};
    std::vector<float> y(x.size());
    copy.second->expShifted(x.data(), 0.0f, y.data(), static_cast<int64_t>(x.size()));
    EXPECT_EQ(y[0], 1.0f);
    EXPECT_EQ(y[1], 0.0f);
    EXPECT_EQ(y[2], inf);
    EXPECT_TRUE(std::isnan(y[3]));
    EXPECT_NEAR(y[4] / std::exp(static_cast<double>(x[4])), 1.0, 3e-7);  // 2^127 < exp(88.5) < float's maximum
    EXPECT_NEAR(y[5] / std::exp(static_cast<double>(x[5])), 1.0, 3e-7);
    EXPECT_EQ(y[6], 0.0f);
    EXPECT_EQ(y[7], 0.0f);
    EXPECT_EQ(y[8], inf);
    EXPECT_NEAR(y[12] / std::exp(static_cast<double>(x[12])), 1.0, 3e-7);
    // In place.
    copy.second->expShifted(x.data(), 0.0f, x.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      if (!std::isnan(y[i])) {
        EXPECT_EQ(x[i], y[i]) << i;
      }
    }
  }
}

TEST(VecKernels, ArithmeticOfEveryInstructionSetThisCpuRuns) {
  const auto copies = runnableVecKernels();
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  for (const auto& copy : copies) {
    SCOPED_TRACE(copy.first);
    for (int op = 0; op < 4; ++op) {
      for (int64_t n : {1, 5, 16, 37}) {
        for (int s = 0; s < 4; ++s) {
          const int64_t sx = s & 1, sy = (s >> 1) & 1;
          std::vector<float> x(static_cast<size_t>(n)), y(x.size()), z(x.size());
          for (auto& v : x) v = d(rng);
          for (auto& v : y) v = d(rng);
          copy.second->binary[op](x.data(), sx, y.data(), sy, z.data(), n);
          for (int64_t i = 0; i < n; ++i) {
            const float a = x[static_cast<size_t>(i * sx)], b = y[static_cast<size_t>(i * sy)];
            const float want = op == 0 ? a + b : op == 1 ? a - b : op == 2 ? a * b : a / b;
            EXPECT_EQ(z[static_cast<size_t>(i)], want) << "op " << op << " n " << n << " strides " << sx << "," << sy;
          }
        }
      }
    }
  }
}

TEST(VecKernels, BiasActivationOfEveryInstructionSetThisCpuRuns) {
  using popart::cpu::VecActivation;
  const auto copies = runnableVecKernels();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  const float nan = std::nanf("");
  for (const auto& copy : copies) {
    SCOPED_TRACE(copy.first);
    for (int act = 0; act < 4; ++act) {
      const float a = act == 2 ? 0.1f : -1.0f, b = 2.0f;  // LeakyRelu's slope; Clip's bounds
      for (int64_t n : {1, 9, 16, 41}) {
        for (int biases = 0; biases < 4; ++biases) {
          std::vector<float> x(static_cast<size_t>(n)), cb(x.size()), y(x.size());
          for (auto& v : x) v = d(rng);
          for (auto& v : cb) v = d(rng);
          x[0] = -0.0f;
          if (n > 2) x[2] = nan;
          const float rb = 0.5f;
          const float* bp = biases & 1 ? &rb : nullptr;
          const float* cp = biases & 2 ? cb.data() : nullptr;
          copy.second->biasActivation(x.data(), y.data(), n, bp, cp, static_cast<VecActivation>(act), a, b);
          for (int64_t i = 0; i < n; ++i) {
            float v = x[static_cast<size_t>(i)];
            if (bp) v += rb;
            if (cp) v += cb[static_cast<size_t>(i)];
            float want = v;
            if (act == 1) want = v < 0.0f ? 0.0f : v;
            if (act == 2) want = v >= 0.0f ? v : v * a;
            if (act == 3) {
              const float lo = v < a ? a : v;
              want = b < lo ? b : lo;
            }
            const float got = y[static_cast<size_t>(i)];
            SCOPED_TRACE(testing::Message() << "act " << act << " n " << n << " biases " << biases << " i " << i);
            if (std::isnan(want)) {
              EXPECT_TRUE(std::isnan(got));
            } else {
              EXPECT_EQ(got, want);
              EXPECT_EQ(std::signbit(got), std::signbit(want));  // -0 stays -0 without a bias
            }
          }
          // In place.
          std::vector<float> z = x;
          copy.second->biasActivation(z.data(), z.data(), n, bp, cp, static_cast<VecActivation>(act), a, b);
          for (int64_t i = 0; i < n; ++i) {
            if (!std::isnan(y[static_cast<size_t>(i)])) {
              EXPECT_EQ(z[static_cast<size_t>(i)], y[static_cast<size_t>(i)]);
            }
          }
        }
      }
    }
  }
}

TEST(VecKernels, Sgd1OfEveryInstructionSetThisCpuRuns) {
  const auto copies = runnableVecKernels();
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  const float dpsf = 0.5f, slr = 0.1f, smm = 0.9f, swd = 1e-3f;
  for (const auto& copy : copies) {
    SCOPED_TRACE(copy.first);
    for (bool nesterov : {false, true}) {
      for (int64_t n : {1, 7, 64, 1001}) {
        std::vector<float> w(static_cast<size_t>(n)), v(w.size()), g(w.size());
        for (auto& e : w) e = d(rng);
        for (auto& e : v) e = d(rng);
        for (auto& e : g) e = d(rng);
        std::vector<double> rw(w.begin(), w.end()), rv(v.begin(), v.end());
        for (size_t i = 0; i < w.size(); ++i) {
          const double vi = rv[i] + dpsf * g[i];
          const double wi = nesterov ? rw[i] - slr * (dpsf * g[i] + swd * rw[i] + smm * vi) : rw[i] - slr * vi;
          rw[i] = wi;
          rv[i] = smm * vi + swd * wi;
        }
        copy.second->sgd1(w.data(), v.data(), g.data(), n, dpsf, slr, smm, swd, nesterov);
        for (size_t i = 0; i < w.size(); ++i) {
          EXPECT_NEAR(w[i], rw[i], 1e-6) << "nesterov " << nesterov << " n " << n << " i " << i;
          EXPECT_NEAR(v[i], rv[i], 1e-6) << "nesterov " << nesterov << " n " << n << " i " << i;
        }
      }
    }
  }
}

}  // namespace
