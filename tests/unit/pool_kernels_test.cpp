// The 2-D float max-pooling kernels of every instruction-set copy this CPU runs
// (backends/cpu/kernels/pool_max.cpp), called directly against naive references: the forward's
// window maxima, and the gradient's first maximum of each window in scan order (what the
// forward's index output names) taking the window's dy. Ties (inputs drawn from a few integers)
// make "first" matter; widths put 2 x 2 windows in whole groups of eight, with a tail, or only in
// the tail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/kernels/pool_max.hpp"

namespace {

using popart::cpu::MaxPool2dGeom;

struct PoolCase {
  int64_t H, W, KH, KW, SH, SW, PH, PW;
  bool ceil;
};

int64_t pooledSize(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil) {
  const int64_t span = in + 2 * p - k;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + p) --out;  // the last window starts inside the input or the front pad
  return out;
}

testing::Message describe(const PoolCase& c) {
  return testing::Message() << c.H << "x" << c.W << " kernel " << c.KH << "x" << c.KW << " strides " << c.SH << ","
                            << c.SW << " pads " << c.PH << "," << c.PW << " ceil " << c.ceil;
}

MaxPool2dGeom geomOf(const PoolCase& c, int64_t NC) {
  MaxPool2dGeom g;
  g.NC = NC;
  g.H = c.H;
  g.W = c.W;
  g.OH = pooledSize(c.H, c.KH, c.SH, c.PH, c.ceil);
  g.OW = pooledSize(c.W, c.KW, c.SW, c.PW, c.ceil);
  g.KH = c.KH;
  g.KW = c.KW;
  g.SH = c.SH;
  g.SW = c.SW;
  g.PH = c.PH;
  g.PW = c.PW;
  return g;
}

/// Calls f(plane offset of output o, plane offsets of the window's inputs in scan order).
template <typename F>
void forEachWindow(const MaxPool2dGeom& g, F f) {
  std::vector<int64_t> offs;
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      offs.clear();
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t ih = oh * g.SH - g.PH + kh, iw = ow * g.SW - g.PW + kw;
          if (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W) offs.push_back(ih * g.W + iw);
        }
      }
      f(oh * g.OW + ow, offs);
    }
  }
}

std::vector<float> inputs(int64_t n, uint32_t seed, bool ties) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> few(-2, 2);
  std::normal_distribution<float> normal;
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& e : v) e = ties ? static_cast<float>(few(rng)) : normal(rng);
  return v;
}

const PoolCase kCases[] = {
    {9, 10, 2, 2, 2, 2, 0, 0, false},   // 2 x 2: five windows a row (all in the tail), odd height
    {28, 28, 2, 2, 2, 2, 0, 0, false},  // fourteen: a group of eight and a tail of six
    {6, 32, 2, 2, 2, 2, 0, 0, false},   // sixteen: whole groups
    {7, 35, 2, 2, 2, 2, 0, 0, false},   // odd width: the last column is in no window
    {9, 9, 2, 2, 2, 2, 0, 0, true},     // ceil mode: partial windows at the edge
    {16, 16, 3, 3, 2, 2, 1, 1, false},  // resnet's stem: overlapping windows, padding
    {11, 13, 3, 3, 1, 1, 1, 1, false}, {11, 13, 2, 3, 1, 1, 0, 1, false}, {11, 13, 5, 4, 3, 2, 2, 1, true},
    {11, 13, 1, 1, 2, 3, 0, 0, false}, {11, 13, 3, 2, 1, 2, 1, 0, true},
};

TEST(PoolKernels, MaxPoolOfEveryInstructionSetThisCpuRuns) {
  const auto copies = popart::cpu::runnablePoolKernels();
  ASSERT_FALSE(copies.empty());
  for (const auto& copy : copies) {
    SCOPED_TRACE(copy.first);
    uint32_t seed = 10;
    for (const PoolCase& c : kCases) {
      const MaxPool2dGeom g = geomOf(c, 3);
      SCOPED_TRACE(describe(c));
      const std::vector<float> x = inputs(g.NC * g.H * g.W, seed++, false);
      std::vector<float> y(static_cast<size_t>(g.NC * g.OH * g.OW), -1.0f), want(y.size());
      std::vector<float> buf(static_cast<size_t>((g.OW - 1) * g.SW + g.KW + 1));
      copy.second->maxPool2d(x.data(), y.data(), g, buf.data());
      for (int64_t nc = 0; nc < g.NC; ++nc) {
        forEachWindow(g, [&](int64_t o, const std::vector<int64_t>& offs) {
          float m = -std::numeric_limits<float>::infinity();
          for (int64_t i : offs) m = std::max(m, x[static_cast<size_t>(nc * g.H * g.W + i)]);
          want[static_cast<size_t>(nc * g.OH * g.OW + o)] = m;
        });
      }
      EXPECT_EQ(y, want);
    }
  }
}

TEST(PoolKernels, MaxPoolGradOfEveryInstructionSetThisCpuRuns) {
  const auto copies = popart::cpu::runnablePoolKernels();
  ASSERT_FALSE(copies.empty());
  for (const auto& copy : copies) {
    SCOPED_TRACE(copy.first);
    uint32_t seed = 50;
    for (const PoolCase& c : kCases) {
      for (int kind = 0; kind < 3; ++kind) {  // normal values, ties, NaNs among ties
        const MaxPool2dGeom g = geomOf(c, 3);
        SCOPED_TRACE(describe(c) << " inputs " << kind);
        const int64_t plane = g.H * g.W, outPlane = g.OH * g.OW;
        std::vector<float> x = inputs(g.NC * plane, seed++, kind > 0);
        if (kind == 2) {
          for (size_t i = 0; i < x.size(); i += 7) x[i] = std::numeric_limits<float>::quiet_NaN();
        }
        const std::vector<float> dy = inputs(g.NC * outPlane, seed++, false);
        std::vector<float> dx(x.size(), 5.0f), want(x.size(), 0.0f);
        std::vector<unsigned char> buf(static_cast<size_t>(8 * g.OW));
        copy.second->maxPoolGrad2d(x.data(), dy.data(), dx.data(), g, buf.data());
        for (int64_t nc = 0; nc < g.NC; ++nc) {
          forEachWindow(g, [&](int64_t o, const std::vector<int64_t>& offs) {
            int64_t best = -1;
            float bv = 0;
            for (int64_t i : offs) {
              const float v = x[static_cast<size_t>(nc * plane + i)];
              if (best < 0 || v > bv) best = i, bv = v;
            }
            if (best >= 0) want[static_cast<size_t>(nc * plane + best)] += dy[static_cast<size_t>(nc * outPlane + o)];
          });
        }
        EXPECT_EQ(dx, want);
      }
    }
  }
}

}  // namespace
