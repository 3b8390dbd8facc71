// CPU kernels of the rnn family: RNN, LSTM, GRU. The input projections of every time step run as
// one GEMM per direction (X W^T plus the biases); each step then runs one GEMM of the hidden state
// with R^T (two for GRU without linear_before_reset) and the gate arithmetic. 16-bit types are
// widened to float in scratch; double computes in double. PopART's own LSTM (ai.graphcore) keeps
// Poplar's layout: one GEMM per gate for the input projections, one per gate and step for the
// hidden state.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/gemm.hpp"
#include "backends/cpu/kernel.hpp"
#include "common/checked_size.hpp"
#include "ops/rnn_params.hpp"

namespace popart {
namespace cpu {
namespace {

using ops::RnnActivation;
using ops::RnnCell;
using ops::RnnParams;

struct RnnSlots {
  int x, w, r, b, seqLens, h0, c0, p, y, yh, yc;
  DataType seqLensType;
};

/// Offsets (in compute-type elements) of the kernel's scratch regions; -1 when unused.
struct RnnScratch {
  int64_t x = -1, w = -1, r = -1, b = -1, h0 = -1, c0 = -1, p = -1;
  int64_t xproj = 0, hr = 0, h = 0, c = 0, tmp = 0, total = 0;
};

RnnScratch rnnScratch(const RnnParams& p, const RnnSlots& sl, bool widen) {
  RnnScratch L;
  int64_t at = 0;
  auto take = [&](int64_t n) {
    const int64_t off = at;
    at += (n + 15) / 16 * 16;
    return off;
  };
  const int64_t S = p.seq, N = p.batch, I = p.input, H = p.hidden, GH = p.gates * p.hidden, D = p.dirs;
  if (widen) {
    L.x = take(S * N * I);
    L.w = take(D * GH * I);
    L.r = take(D * GH * H);
    if (sl.b >= 0) L.b = take(D * 2 * GH);
    if (sl.h0 >= 0) L.h0 = take(D * N * H);
    if (sl.c0 >= 0) L.c0 = take(D * N * H);
    if (sl.p >= 0) L.p = take(D * 3 * H);
  }
  L.xproj = take(S * N * GH);
  L.hr = take(N * GH);
  L.h = take(N * H);
  L.c = take(N * H);
  L.tmp = take(N * H);
  L.total = at;
  return L;
}

/// One activation, out of line: inlining the activation switch at every gate of every cell kind
/// and element type made this file take minutes to compile, for no measurable speed.
template <typename C>
[[gnu::noinline]] C activate(const RnnActivation& a, C v) {
  return a(v);
}

template <typename C>
inline C clipped(C v, bool has, C lim) {
  return has ? std::min(std::max(v, -lim), lim) : v;
}

template <typename T>
void runRnn(const RnnParams& p, const RnnSlots& sl, const RnnScratch& L, const RunState& s) {
  using C = compute_t<T>;
  C* scr = reinterpret_cast<C*>(s.scratch);
  auto source = [&](int slot, int64_t off, int64_t n) -> const C* {
    if (slot < 0) return nullptr;
    const T* q = inPtr<T>(s, slot);
    if constexpr (std::is_same_v<T, C>) {
      (void)off;
      (void)n;
      return q;
    } else {
      C* d = scr + off;
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<C>(q[i]);
      return d;
    }
  };
  const int64_t S = p.seq, N = p.batch, I = p.input, H = p.hidden, GH = p.gates * p.hidden, D = p.dirs;
  const C* X = source(sl.x, L.x, S * N * I);
  const C* W = source(sl.w, L.w, D * GH * I);
  const C* R = source(sl.r, L.r, D * GH * H);
  const C* Bias = source(sl.b, L.b, D * 2 * GH);
  const C* H0 = source(sl.h0, L.h0, D * N * H);
  const C* C0 = source(sl.c0, L.c0, D * N * H);
  const C* P = source(sl.p, L.p, D * 3 * H);
  C* xproj = scr + L.xproj;
  C* hr = scr + L.hr;
  C* h = scr + L.h;
  C* c = scr + L.c;
  C* tmp = scr + L.tmp;

  std::vector<int64_t> lens(static_cast<size_t>(N), S);
  if (sl.seqLens >= 0) {
    for (int64_t b = 0; b < N; ++b) {
      const int64_t v = sl.seqLensType == DataType::INT64 ? inPtr<int64_t>(s, sl.seqLens)[b]
                                                          : static_cast<int64_t>(inPtr<int32_t>(s, sl.seqLens)[b]);
      lens[static_cast<size_t>(b)] = std::min(std::max<int64_t>(v, 0), S);
    }
  }
  T* Y = sl.y >= 0 ? outPtr<T>(s, sl.y) : nullptr;
  T* Yh = sl.yh >= 0 ? outPtr<T>(s, sl.yh) : nullptr;
  T* Yc = sl.yc >= 0 ? outPtr<T>(s, sl.yc) : nullptr;
  if (Y) std::fill(Y, Y + S * D * N * H, static_cast<T>(C(0)));

  const bool batchMajor = p.layout == 1;
  auto xRow = [&](int64_t t, int64_t b) { return batchMajor ? b * S + t : t * N + b; };
  auto yOff = [&](int64_t t, int64_t d, int64_t b) {
    return batchMajor ? ((b * S + t) * D + d) * H : ((t * D + d) * N + b) * H;
  };
  auto stateOff = [&](int64_t d, int64_t b) { return batchMajor ? (b * D + d) * H : (d * N + b) * H; };

  const bool hasClip = p.hasClip;
  const C lim = static_cast<C>(p.clip);
  const bool gru = p.cell == RnnCell::Gru, lstm = p.cell == RnnCell::Lstm;
  const bool lbr = gru && p.linearBeforeReset;

  for (int64_t d = 0; d < D; ++d) {
    const bool rev = D == 2 ? d == 1 : p.reverse;
    const C* Wd = W + d * GH * I;
    const C* Rd = R + d * GH * H;
    const C* Wb = Bias ? Bias + d * 2 * GH : nullptr;
    const C* Rb = Bias ? Wb + GH : nullptr;
    const C* Pd = P ? P + d * 3 * H : nullptr;
    const RnnActivation* act = &p.acts[static_cast<size_t>(d * p.actsPerDir)];
    const RnnActivation& f = act[0];
    const RnnActivation& g = p.actsPerDir > 1 ? act[1] : act[0];
    const RnnActivation& hAct = p.actsPerDir > 2 ? act[2] : act[0];

    // Input projections of every step, with the biases that add linearly.
    gemm(false, true, S * N, GH, I, C(1), X, I, Wd, I, C(0), xproj, GH);
    if (Bias) {
      const int64_t rbEnd = lbr ? 2 * H : GH;  // GRU with linear_before_reset: Rbh is gated by r
      for (int64_t row = 0; row < S * N; ++row) {
        C* xp = xproj + row * GH;
        for (int64_t j = 0; j < GH; ++j) xp[j] += Wb[j] + (j < rbEnd ? Rb[j] : C(0));
      }
    }
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        h[b * H + j] = H0 ? H0[stateOff(d, b) + j] : C(0);
        c[b * H + j] = C0 ? C0[stateOff(d, b) + j] : C(0);
        tmp[b * H + j] = C(0);
      }
    }

    for (int64_t step = 0; step < S; ++step) {
      gemm(false, true, N, gru && !lbr ? 2 * H : GH, H, C(1), h, H, Rd, H, C(0), hr, GH);
      if (gru && !lbr) {
        // z and r first; the candidate needs (r * h) R_h^T.
        for (int64_t b = 0; b < N; ++b) {
          if (step >= lens[static_cast<size_t>(b)]) continue;
          const int64_t t = rev ? lens[static_cast<size_t>(b)] - 1 - step : step;
          const C* xp = xproj + xRow(t, b) * GH;
          C* gr = hr + b * GH;
          for (int64_t j = 0; j < H; ++j) {
            gr[j] = activate(f, clipped(xp[j] + gr[j], hasClip, lim));
            const C rv = activate(f, clipped(xp[H + j] + gr[H + j], hasClip, lim));
            tmp[b * H + j] = rv * h[b * H + j];
          }
        }
        gemm(false, true, N, H, H, C(1), tmp, H, Rd + 2 * H * H, H, C(0), hr + 2 * H, GH);
      }
      for (int64_t b = 0; b < N; ++b) {
        if (step >= lens[static_cast<size_t>(b)]) continue;
        const int64_t t = rev ? lens[static_cast<size_t>(b)] - 1 - step : step;
        const C* xp = xproj + xRow(t, b) * GH;
        const C* gr = hr + b * GH;
        C* hb = h + b * H;
        C* cb = c + b * H;
        if (p.cell == RnnCell::Rnn) {
          for (int64_t j = 0; j < H; ++j) hb[j] = activate(f, clipped(xp[j] + gr[j], hasClip, lim));
        } else if (lstm) {
          // Gate order i, o, f, c; peepholes i, o, f.
          for (int64_t j = 0; j < H; ++j) {
            const C cPrev = cb[j];
            const C iv = activate(f, clipped(xp[j] + gr[j] + (Pd ? Pd[j] * cPrev : C(0)), hasClip, lim));
            const C fv = p.inputForget
                             ? C(1) - iv
                             : activate(f, clipped(xp[2 * H + j] + gr[2 * H + j] + (Pd ? Pd[2 * H + j] * cPrev : C(0)),
                                                   hasClip, lim));
            const C cv = activate(g, clipped(xp[3 * H + j] + gr[3 * H + j], hasClip, lim));
            const C cNew = fv * cPrev + iv * cv;
            const C ov = activate(f, clipped(xp[H + j] + gr[H + j] + (Pd ? Pd[H + j] * cNew : C(0)), hasClip, lim));
            cb[j] = cNew;
            hb[j] = ov * activate(hAct, cNew);
          }
        } else if (lbr) {
          for (int64_t j = 0; j < H; ++j) {
            const C z = activate(f, clipped(xp[j] + gr[j], hasClip, lim));
            const C r = activate(f, clipped(xp[H + j] + gr[H + j], hasClip, lim));
            const C rh = gr[2 * H + j] + (Rb ? Rb[2 * H + j] : C(0));
            const C cand = activate(g, clipped(xp[2 * H + j] + r * rh, hasClip, lim));
            hb[j] = (C(1) - z) * cand + z * hb[j];
          }
        } else {
          for (int64_t j = 0; j < H; ++j) {
            const C z = gr[j];  // already activated above
            const C cand = activate(g, clipped(xp[2 * H + j] + gr[2 * H + j], hasClip, lim));
            hb[j] = (C(1) - z) * cand + z * hb[j];
          }
        }
        if (Y) {
          T* yo = Y + yOff(t, d, b);
          for (int64_t j = 0; j < H; ++j) yo[j] = static_cast<T>(hb[j]);
        }
      }
    }
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        if (Yh) Yh[stateOff(d, b) + j] = static_cast<T>(h[b * H + j]);
        if (Yc) Yc[stateOff(d, b) + j] = static_cast<T>(c[b * H + j]);
      }
    }
  }
}

KernelFn rnnKernel(const Op& op, KernelContext& kc, RnnCell cell) {
  const RnnParams p = ops::rnnParams(op, cell);
  const bool lstm = cell == RnnCell::Lstm;
  RnnSlots sl{kc.in(0),
              kc.in(1),
              kc.in(2),
              kc.in(3),
              kc.in(4),
              kc.in(5),
              lstm ? kc.in(6) : -1,
              lstm ? kc.in(7) : -1,
              kc.out(0),
              kc.out(1),
              lstm ? kc.out(2) : -1,
              op.hasInput(4) ? op.inType(4) : DataType::INT64};
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    const RnnScratch L = rnnScratch(p, sl, !std::is_same_v<T, C>);
    kc.needScratch(checkedProduct({L.total, static_cast<int64_t>(sizeof(C))}));
    return [=](const RunState& s) { runRnn<T>(p, sl, L, s); };
  });
}

/// PopART's LSTM: gates forget, input, candidate, output; W[g] is [I + H, H] (the input's rows,
/// then the hidden state's). Steps at or past a sequence's length leave its state and write 0.
struct GcLstmSlots {
  int x, w, b, init, lens, out, cell;
  DataType lensType;
};

template <typename T>
void runGcLstm(const ops::GcLstmParams& p, const GcLstmSlots& sl, const RunState& s) {
  using C = compute_t<T>;
  const int64_t S = p.seq, N = p.batch, I = p.input, H = p.hidden, K = I + H;
  C* scr = reinterpret_cast<C*>(s.scratch);
  int64_t at = 0;
  auto take = [&](int64_t n) {
    C* q = scr + at;
    at += (n + 15) / 16 * 16;
    return q;
  };
  auto source = [&](int slot, int64_t n) -> const C* {
    if (slot < 0) return nullptr;
    const T* q = inPtr<T>(s, slot);
    if constexpr (std::is_same_v<T, C>) {
      (void)n;
      return q;
    } else {
      C* d = take(n);
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<C>(q[i]);
      return d;
    }
  };
  const C* X = source(sl.x, S * N * I);
  const C* W = source(sl.w, 4 * K * H);
  const C* B = source(sl.b, 4 * H);
  const C* init = source(sl.init, 2 * N * H);
  C* xproj = take(4 * S * N * H);
  C* hr = take(4 * N * H);
  C* h = take(N * H);
  C* c = take(N * H);
  for (int64_t g = 0; g < 4; ++g)
    gemm(false, false, S * N, H, I, C(1), X, I, W + g * K * H, H, C(0), xproj + g * S * N * H, H);
  for (int64_t i = 0; i < N * H; ++i) {
    h[i] = init ? init[i] : C(0);
    c[i] = init ? init[N * H + i] : C(0);
  }
  std::vector<int64_t> lens(static_cast<size_t>(N), S);
  if (sl.lens >= 0) {
    for (int64_t b = 0; b < N; ++b) {
      int64_t v = 0;
      if (sl.lensType == DataType::INT64)
        v = inPtr<int64_t>(s, sl.lens)[b];
      else if (sl.lensType == DataType::UINT32)
        v = static_cast<int64_t>(inPtr<uint32_t>(s, sl.lens)[b]);
      else
        v = static_cast<int64_t>(inPtr<int32_t>(s, sl.lens)[b]);
      lens[static_cast<size_t>(b)] = std::min(std::max<int64_t>(v, 0), S);
    }
  }
  const RnnActivation sigmoid{RnnActivation::Kind::Sigmoid, 0, 0};
  T* out = sl.out >= 0 ? outPtr<T>(s, sl.out) : nullptr;
  T* cell = sl.cell >= 0 ? outPtr<T>(s, sl.cell) : nullptr;
  if (out && p.fullSequence) std::fill(out, out + S * N * H, static_cast<T>(C(0)));
  for (int64_t t = 0; t < S; ++t) {
    for (int64_t g = 0; g < 4; ++g)
      gemm(false, false, N, H, H, C(1), h, H, W + g * K * H + I * H, H, C(0), hr + g * N * H, H);
    for (int64_t b = 0; b < N; ++b) {
      if (t >= lens[static_cast<size_t>(b)]) continue;
      for (int64_t j = 0; j < H; ++j) {
        C pre[4];
        for (int64_t g = 0; g < 4; ++g)
          pre[g] = xproj[(g * S + t) * N * H + b * H + j] + hr[g * N * H + b * H + j] + (B ? B[g * H + j] : C(0));
        const C f = sigmoid(pre[0]), in = sigmoid(pre[1]), cand = std::tanh(pre[2]), o = sigmoid(pre[3]);
        C& cs = c[b * H + j];
        cs = f * cs + in * cand;
        h[b * H + j] = o * std::tanh(cs);
      }
      if (out && p.fullSequence) {
        for (int64_t j = 0; j < H; ++j) out[(t * N + b) * H + j] = static_cast<T>(h[b * H + j]);
      }
    }
  }
  for (int64_t i = 0; i < N * H; ++i) {
    if (out && !p.fullSequence) out[i] = static_cast<T>(h[i]);
    if (cell) cell[i] = static_cast<T>(c[i]);
  }
}

}  // namespace

KernelFn makeCpuKernel_GcLstm(const Op& op, KernelContext& kc) {
  const ops::GcLstmParams p = ops::gcLstmParams(op);
  const GcLstmSlots sl{kc.in(0), kc.in(1),  kc.in(2),  kc.in(3),
                       kc.in(4), kc.out(0), kc.out(1), op.hasInput(4) ? op.inType(4) : DataType::INT32};
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    const int64_t S = p.seq, N = p.batch, I = p.input, H = p.hidden;
    auto pad = [](int64_t n) { return (n + 15) / 16 * 16; };
    int64_t total = pad(4 * S * N * H) + pad(4 * N * H) + 2 * pad(N * H);
    if (!std::is_same_v<T, C>) total += pad(S * N * I) + pad(4 * (I + H) * H) + pad(4 * H) + pad(2 * N * H);
    kc.needScratch(checkedProduct({total, static_cast<int64_t>(sizeof(C))}));
    return [=](const RunState& s) { runGcLstm<T>(p, sl, s); };
  });
}

KernelFn makeCpuKernel_RNN(const Op& op, KernelContext& kc) {
  return rnnKernel(op, kc, RnnCell::Rnn);
}
KernelFn makeCpuKernel_LSTM(const Op& op, KernelContext& kc) {
  return rnnKernel(op, kc, RnnCell::Lstm);
}
KernelFn makeCpuKernel_GRU(const Op& op, KernelContext& kc) {
  return rnnKernel(op, kc, RnnCell::Gru);
}

}  // namespace cpu
}  // namespace popart
