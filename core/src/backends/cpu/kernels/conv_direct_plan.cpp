// The direct stride-1 convolution kernels' plans (conv_direct_plan.hpp): geometry, scratch, and
// the images spread over the thread pool, each task with its own part of the scratch.
#include "backends/cpu/kernels/conv_direct_plan.hpp"

#include <algorithm>
#include <cstring>

#include "backends/cpu/kernels/conv_direct.hpp"
#include "common/checked_size.hpp"
#include "common/thread_pool.hpp"
#include "popart/threads.hpp"

namespace popart {
namespace cpu {
namespace {

const DirectConvKernels& directKernels() {
  static const DirectConvKernels& k = POPART_ISA_PICK(kDirectConv);
  return k;
}

/// The geometry of a stride-1 convolution of C planes of H x W into M planes of OH x OW whose
/// input row ih is padded row ih + PH (conv_direct.hpp), for N images.
DirectConvGeom makeGeom(int64_t C, int64_t M, int64_t H, int64_t W, int64_t OH, int64_t OW, const ConvGeom& g,
                        int64_t PH, int64_t PW, int64_t N) {
  DirectConvGeom d;
  d.C = C;
  d.M = M;
  d.H = H;
  d.W = W;
  d.OH = OH;
  d.OW = OW;
  d.KH = g.k[0];
  d.KW = g.k[1];
  d.DH = g.d[0];
  d.DW = g.d[1];
  d.PH = PH;
  d.PW = PW;
  d.Wp = OW + (d.KW - 1) * d.DW;
  d.Hp = OH + (d.KH - 1) * d.DH;
  const int64_t block = directKernels().blockPositions;
  d.Pw = (checkedProduct({OH, d.Wp}) + block - 1) / block * block;
  d.PS = d.Pw + (d.KH - 1) * d.DH * d.Wp + (d.KW - 1) * d.DW;
  const int64_t perImage = checkedProduct({C, d.PS}) + checkedProduct({M, d.Pw});
  d.batch = std::clamp<int64_t>((int64_t{1} << 18) / std::max<int64_t>(perImage, 1), 1, std::max<int64_t>(N, 1));
  return d;
}

DirectConvGeom forwardGeom(const ConvGeom& g) {
  return makeGeom(g.C, g.M, g.in[0], g.in[1], g.out[0], g.out[1], g, g.pb[0], g.pb[1], g.N);
}

/// dx's convolution: dy (M planes of OH x OW) padded so that output row ih reads dy rows
/// ih + PH - kh DH, with the kernel flipped.
DirectConvGeom dataGradGeom(const ConvGeom& g) {
  return makeGeom(g.M, g.C, g.out[0], g.out[1], g.in[0], g.in[1], g, (g.k[0] - 1) * g.d[0] - g.pb[0],
                  (g.k[1] - 1) * g.d[1] - g.pb[1], g.N);
}

/// What every direct kernel needs: 2-D, stride 1, 2 to 128 kernel positions, and the padded
/// planes of `channelsIn` channels within 256 KiB.
bool fits(const ConvGeom& g, int64_t channelsIn) {
  if (g.in.size() != 2 || g.s[0] != 1 || g.s[1] != 1 || g.kSize < 2 || g.kSize > 128) return false;
  const int64_t wp = g.out[1] + (g.k[1] - 1) * g.d[1], hp = g.out[0] + (g.k[0] - 1) * g.d[0];
  return channelsIn * (hp + 1) * wp * static_cast<int64_t>(sizeof(float)) <= (int64_t{256} << 10);
}

/// A dense convolution (one group) with at most 512 products per output.
bool applies(const ConvGeom& g, int64_t channelsIn) {
  return g.G == 1 && channelsIn * g.kSize <= 512 && fits(g, channelsIn);
}

/// A forward kernel's buffers in a run: x, w, the bias (null without one), y, the scratch.
struct ForwardIo {
  const float* x;
  const float* w;
  const float* b;
  float* y;
  float* scratch;
};

ForwardIo forwardIo(const RunState& s, int x, int w, int b, int y) {
  return {inPtr<float>(s, x), inPtr<float>(s, w), b >= 0 ? inPtr<float>(s, b) : nullptr, outPtr<float>(s, y),
          reinterpret_cast<float*>(s.scratch)};
}

/// Tasks: up to one per thread, each a range of images.
int64_t taskCount(const ConvGeom& g) {
  return std::max<int64_t>(1, std::min<int64_t>(g.N, getNumThreads()));
}

}  // namespace

bool directConvApplies(const ConvGeom& g) {
  return applies(g, g.C);
}

bool directDepthwiseApplies(const ConvGeom& g) {
  return g.G == g.C && g.Cg == 1 && g.M == g.C && g.out.size() == 2 && g.out[1] <= 28 && fits(g, 1);
}

bool directDataGradApplies(const ConvGeom& g) {
  // The transposed convolution's input is dy: its padded planes are those of the output grid.
  ConvGeom t = g;
  t.C = g.M;
  t.M = g.C;
  t.in = g.out;
  t.out = g.in;
  return applies(t, g.M);
}

KernelFn directConvForward(const ConvGeom& g, KernelContext& kc, int x, int w, int b, int y, Activation act) {
  const DirectConvGeom d = forwardGeom(g);
  const int64_t tasks = taskCount(g), per = checkedProduct({d.C, d.PS}) + checkedProduct({d.M, d.Pw});
  kc.needScratch(checkedProduct({tasks, per, static_cast<int64_t>(sizeof(float))}));
  const int64_t N = g.N, inImage = g.C * g.inSize, outImage = g.M * g.outSize;
  return [=](const RunState& s) {
    const ForwardIo io = forwardIo(s, x, w, b, y);
    const DirectConvKernels& k = directKernels();
    parallelFor(tasks, [&](int64_t t) {
      for (int64_t n = N * t / tasks; n < N * (t + 1) / tasks; ++n) {
        float* yn = io.y + n * outImage;
        k.forward(io.x + n * inImage, io.w, io.b, yn, d, io.scratch + t * per);
        if (act.kind != Activation::Kind::None) applyActivation(act, yn, yn, outImage);
      }
    });
  };
}

KernelFn directDepthwiseForward(const ConvGeom& g, KernelContext& kc, int x, int w, int b, int y, Activation act) {
  const DirectConvGeom d = makeGeom(1, 1, g.in[0], g.in[1], g.out[0], g.out[1], g, g.pb[0], g.pb[1], 1);
  // Tasks: each image's channels in up to four parts per thread.
  const int64_t threads = getNumThreads();
  const int64_t parts = std::min<int64_t>(g.C, threads > 1 ? 4 * threads : 1);
  const int64_t slots = std::min<int64_t>(threads, g.N * parts), per = d.PS + d.Pw;
  kc.needScratch(checkedProduct({slots, per, static_cast<int64_t>(sizeof(float))}));
  const int64_t N = g.N, C = g.C, inPlane = g.inSize, outPlane = g.outSize, KK = g.kSize;
  return [=](const RunState& s) {
    const ForwardIo io = forwardIo(s, x, w, b, y);
    const DirectConvKernels& k = directKernels();
    // Slot t of `slots` takes every slots-th task, so no two running tasks share a scratch.
    parallelFor(slots, [&](int64_t t) {
      for (int64_t task = t; task < N * parts; task += slots) {
        const int64_t n = task / parts, p = task % parts;
        const int64_t c0 = C * p / parts, c1 = C * (p + 1) / parts;
        // Each channel is a convolution of one plane into one (d: C = M = 1).
        for (int64_t c = c0; c < c1; ++c)
          k.forward(io.x + (n * C + c) * inPlane, io.w + c * KK, io.b ? io.b + c : nullptr,
                    io.y + (n * C + c) * outPlane, d, io.scratch + t * per);
        float* yn = io.y + (n * C + c0) * outPlane;
        if (act.kind != Activation::Kind::None) applyActivation(act, yn, yn, (c1 - c0) * outPlane);
      }
    });
  };
}

KernelFn directConvDataGrad(const ConvGeom& g, KernelContext& kc, int dy, int w, int dx) {
  const DirectConvGeom d = dataGradGeom(g);
  const int64_t tasks = taskCount(g), per = checkedProduct({d.C, d.PS}) + checkedProduct({d.M, d.Pw});
  const int64_t KK = g.kSize, KH = g.k[0], KW = g.k[1], C = g.C, M = g.M;
  const int64_t wBytes = checkedProduct({M, C, KK, static_cast<int64_t>(sizeof(float))});
  kc.needScratch(checkedProduct({tasks, per, static_cast<int64_t>(sizeof(float))}) + wBytes);
  const int64_t N = g.N, inImage = g.M * g.outSize, outImage = g.C * g.inSize;
  return [=](const RunState& s) {
    const float* DY = inPtr<float>(s, dy);
    const float* Wt = inPtr<float>(s, w);
    float* DX = outPtr<float>(s, dx);
    float* wT = reinterpret_cast<float*>(s.scratch);
    float* scratch = wT + M * C * KK;
    // wT[c][m][kh][kw] = w[m][c][KH - 1 - kh][KW - 1 - kw]
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t c = 0; c < C; ++c) {
        const float* src = Wt + (m * C + c) * KK;
        float* dst = wT + (c * M + m) * KK;
        for (int64_t kh = 0; kh < KH; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw) dst[(KH - 1 - kh) * KW + (KW - 1 - kw)] = src[kh * KW + kw];
      }
    }
    const DirectConvKernels& k = directKernels();
    parallelFor(tasks, [&](int64_t t) {
      for (int64_t n = N * t / tasks; n < N * (t + 1) / tasks; ++n)
        k.forward(DY + n * inImage, wT, nullptr, DX + n * outImage, d, scratch + t * per);
    });
  };
}

KernelFn directConvWeightGrad(const ConvGeom& g, KernelContext& kc, int dy, int x, int dw) {
  const DirectConvGeom d = forwardGeom(g);
  const int64_t tasks = taskCount(g), K = g.C * g.kSize;
  const int64_t per = checkedProduct({d.batch, checkedProduct({d.C, d.PS}) + checkedProduct({d.M, d.Pw})}) + g.M * K;
  kc.needScratch(checkedProduct({tasks, per, static_cast<int64_t>(sizeof(float))}));
  const int64_t N = g.N, inImage = g.C * g.inSize, outImage = g.M * g.outSize, MK = g.M * K;
  return [=](const RunState& s) {
    const float* DY = inPtr<float>(s, dy);
    const float* X = inPtr<float>(s, x);
    float* DW = outPtr<float>(s, dw);
    float* scratch = reinterpret_cast<float*>(s.scratch);
    const DirectConvKernels& k = directKernels();
    // Task t sums its images into its own dw (task 0: the output), then the others are added.
    parallelFor(tasks, [&](int64_t t) {
      const int64_t n0 = N * t / tasks, n1 = N * (t + 1) / tasks;
      float* part = scratch + t * per;
      k.weightGrad(X + n0 * inImage, DY + n0 * outImage, n1 - n0, t == 0 ? DW : part + (per - MK), d, part);
    });
    for (int64_t t = 1; t < tasks; ++t) {
      const float* part = scratch + t * per + (per - MK);
      for (int64_t i = 0; i < MK; ++i) DW[i] += part[i];
    }
  };
}

}  // namespace cpu
}  // namespace popart
