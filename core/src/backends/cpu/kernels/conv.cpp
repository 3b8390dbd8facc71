// CPU kernel of Conv: Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions, direct kernels for
// depthwise 2-D convolutions and small stride-1 ones (conv_direct_plan.hpp), GEMM on the input directly for 1x1
// stride-1 convolutions, im2col + GEMM otherwise (chooseConvAlgorithm, conv_algorithm.hpp); bias and a fused activation
// are applied in the epilogue.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/gemm.hpp"
#include "backends/cpu/half_via_float.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/activation_fn.hpp"
#include "backends/cpu/kernels/conv_algorithm.hpp"
#include "backends/cpu/kernels/conv_depthwise.hpp"
#include "backends/cpu/kernels/conv_direct_plan.hpp"
#include "backends/cpu/kernels/conv_im2col.hpp"
#include "backends/cpu/winograd.hpp"
#include "common/aligned_buffer.hpp"
#include "common/checked_size.hpp"
#include "common/thread_pool.hpp"
#include "ir/graph.hpp"
#include "ops/multiconv_params.hpp"
#include "ops/window.hpp"

namespace popart {
namespace cpu {
namespace {

// The scratch of the padded depthwise kernel (conv_depthwise.cpp): its zero-padded planes (even
// and odd columns for stride 2) and a row.
int64_t depthwisePaddedScratch(const ConvGeom& g) {
  const int64_t HP = (g.out[0] - 1) * g.s[0] + g.k[0], WP = (g.out[1] - 1) * g.s[1] + g.k[1] + 1;
  return checkedProduct({HP, WP, 2 * static_cast<int64_t>(sizeof(float))});
}

/// The depthwise kernels of the instruction-set copy in use (isa.hpp).
const DepthwiseKernels& depthwiseKernels() {
  static const DepthwiseKernels& k = POPART_ISA_PICK(kDepthwise);
  return k;
}

DepthwiseGeom depthwiseGeom(const ConvGeom& g) {
  return {g.C, g.in[0], g.in[1], g.out[0], g.out[1], g.k[0], g.k[1], g.s[0], g.s[1], g.d[0], g.d[1], g.pb[0], g.pb[1]};
}

// Several small images per GEMM: their im2col blocks side by side ([K, images x P]); the epilogue
// scatters each finished block of C into the images' outputs, adding bias and activation.
struct BatchScatter {
  float* y;           // output of the first image of the batch, group offset applied
  int64_t P;          // output positions per image
  int64_t imgStride;  // floats between images in y (M * P)
  const float* bias;  // per output channel of the group, or null
  Activation act;
  static void apply(void* ctx, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0, int64_t col0) {
    const auto* e = static_cast<const BatchScatter*>(ctx);
    for (int64_t r = 0; r < rows; ++r) {
      const float b = e->bias ? e->bias[row0 + r] : 0.0f;
      const float* src = c + r * ldc;
      int64_t q = col0;
      while (q < col0 + cols) {
        const int64_t img = q / e->P, p = q % e->P;
        const int64_t run = std::min(e->P - p, col0 + cols - q);
        float* dst = e->y + img * e->imgStride + (row0 + r) * e->P + p;
        for (int64_t j = 0; j < run; ++j) dst[j] = src[q - col0 + j] + b;
        if (e->act.kind != Activation::Kind::None) applyActivation(e->act, dst, dst, run);
        q += run;
      }
    }
  }
};

/// Images per GEMM for convolutions with small outputs (1 = one image at a time).
int64_t convImagesPerGemm(const ConvGeom& g) {
  if (g.N == 1 || g.outSize >= 512 || g.in.size() != 2) return 1;
  const int64_t K = g.Cg * g.kSize;
  const int64_t cols = std::max<int64_t>(512, (256 * 1024 / 4) / std::max<int64_t>(K, 1));
  return std::max<int64_t>(1, std::min(g.N, cols / g.outSize));
}

/// chooseConvAlgorithm with the geometry at hand.
ConvAlgorithm chooseConvAlgorithm(const Op& op, const ConvGeom& g) {
  const bool isFloat = op.inType(0) == DataType::FLOAT;
  const bool twoD = g.in.size() == 2;
  if (isFloat && twoD && g.k[0] == 3 && g.k[1] == 3 && g.s[0] == 1 && g.s[1] == 1 && g.d[0] == 1 && g.d[1] == 1 &&
      g.G == 1 && g.C >= 8 && g.M >= 8 &&
      // Weights that change (training) are transformed on every run: with few output positions
      // per weight that costs more than im2col + GEMM.
      (op.inConstData(1) || g.N * g.out[0] * g.out[1] >= kWinogradMinPositions) &&
      std::getenv("POPART_NO_WINOGRAD") == nullptr)
    return ConvAlgorithm::Winograd;
  if (isFloat && directDepthwiseApplies(g)) return ConvAlgorithm::DepthwiseDirect;
  if (isFloat && twoD && g.G == g.C && g.Cg == 1 && g.M == g.C) {
    const bool padded = g.d[0] == 1 && g.d[1] == 1 && (g.s[1] == 1 || g.s[1] == 2) && g.s[0] >= 1;
    if (padded && g.k[0] == 3 && g.k[1] == 3 && g.s[0] == g.s[1]) return ConvAlgorithm::Depthwise3x3;
    return padded ? ConvAlgorithm::DepthwisePadded : ConvAlgorithm::Depthwise;
  }
  if (isFloat && directConvApplies(g)) return ConvAlgorithm::Direct;
  if (isFloat && convImagesPerGemm(g) > 1) return ConvAlgorithm::BatchedIm2colGemm;
  for (size_t i = 0; i < g.k.size(); ++i) {
    if (g.k[i] != 1 || g.s[i] != 1 || g.pb[i] != 0 || g.in[i] != g.out[i]) return ConvAlgorithm::Im2colGemm;
  }
  return ConvAlgorithm::PointwiseGemm;
}

}  // namespace

const char* convAlgorithmName(ConvAlgorithm a) {
  switch (a) {
    case ConvAlgorithm::Winograd:
      return "winograd";
    case ConvAlgorithm::Depthwise3x3:
      return "depthwise_3x3";
    case ConvAlgorithm::DepthwisePadded:
      return "depthwise_padded";
    case ConvAlgorithm::Depthwise:
      return "depthwise";
    case ConvAlgorithm::Direct:
      return "direct";
    case ConvAlgorithm::DepthwiseDirect:
      return "depthwise_direct";
    case ConvAlgorithm::BatchedIm2colGemm:
      return "im2col_gemm_batched";
    case ConvAlgorithm::PointwiseGemm:
      return "gemm_pointwise";
    case ConvAlgorithm::Im2colGemm:
      return "im2col_gemm";
  }
  return "unknown";
}

ConvAlgorithm chooseConvAlgorithm(const Op& op) {
  return chooseConvAlgorithm(op, convGeom(op, op.inShape(0), op.inShape(1)));
}

KernelFn makeCpuKernel_Conv(const Op& op, KernelContext& kc) {
  if (hasHalfFloat(op)) return viaFloat(op, kc, &makeCpuKernel_Conv);  // FLOAT16: float partials
  const ConvGeom g = convGeom(op, op.inShape(0), op.inShape(1));
  const ConvAlgorithm algo = chooseConvAlgorithm(op, g);
  if (algo == ConvAlgorithm::Winograd) {
    auto wg = std::make_shared<Winograd23>(g.C, g.M, g.in[0], g.in[1], g.out[0], g.out[1], g.pb[0], g.pb[1]);
    // Constant weights are transformed once; weights that can change are transformed each run.
    std::shared_ptr<AlignedBuffer> u;
    const int64_t imgs = wg->imagesPerRun(g.N);  // small images share the transform GEMMs
    int64_t scratch = wg->scratchFloats(imgs);
    if (const TensorData* wd = op.inConstData(1)) {
      const int64_t uBytes = checkedProduct({16, g.M, g.C, static_cast<int64_t>(sizeof(float))});
      u = std::make_shared<AlignedBuffer>(
          allocationSize(uBytes, [&] { return "the Winograd weights of " + op.describe(); }), /*zero=*/false);
      wg->transformWeights(wd->as<float>(), reinterpret_cast<float*>(u->data()));
    } else {
      scratch += 16 * g.M * g.C;
    }
    kc.needScratch(checkedProduct({scratch, static_cast<int64_t>(sizeof(float))}));
    const Activation act = Activation::fromAttrs(op.attrs);
    const int x = kc.in(0), w = kc.in(1), b = kc.in(2), y = kc.out(0);
    const int64_t inElems = g.C * g.inSize, outElems = g.M * g.outSize, N = g.N;
    const size_t uOffset = static_cast<size_t>(wg->scratchFloats(imgs));
    return [=](const RunState& s) {
      float* scr = reinterpret_cast<float*>(s.scratch);
      const float* U = u ? reinterpret_cast<const float*>(u->data()) : scr + uOffset;
      if (!u) wg->transformWeights(inPtr<float>(s, w), scr + uOffset);
      const float* X = inPtr<float>(s, x);
      const float* B = b >= 0 ? inPtr<float>(s, b) : nullptr;
      float* Y = outPtr<float>(s, y);
      for (int64_t n = 0; n < N; n += imgs)
        wg->run(X + n * inElems, U, B, Y + n * outElems, scr, std::min(imgs, N - n), inElems, outElems);
      if (act.kind != Activation::Kind::None) applyActivation(act, Y, Y, N * outElems);
    };
  }
  const Activation act = Activation::fromAttrs(op.attrs);
  const int x = kc.in(0), w = kc.in(1), b = kc.in(2), y = kc.out(0);
  if (algo == ConvAlgorithm::Direct) return directConvForward(g, kc, x, w, b, y, act);
  if (algo == ConvAlgorithm::DepthwiseDirect) return directDepthwiseForward(g, kc, x, w, b, y, act);
  if (op.inType(0) != DataType::FLOAT && op.inType(0) != DataType::DOUBLE)
    throw error("Conv supports FLOAT and DOUBLE inputs here, not {}", op.inInfo(0).data_type());
  const int64_t elem = dataTypeSize(op.inType(0));
  const bool dw3x3 = algo == ConvAlgorithm::Depthwise3x3;
  const bool dwPadded = algo == ConvAlgorithm::DepthwisePadded;
  const bool depthwise = algo == ConvAlgorithm::Depthwise;
  const bool pointwise = algo == ConvAlgorithm::PointwiseGemm;
  const int64_t imgs = algo == ConvAlgorithm::BatchedIm2colGemm ? convImagesPerGemm(g) : 1;
  const DepthwiseGeom dg = dw3x3 || dwPadded || depthwise ? depthwiseGeom(g) : DepthwiseGeom{};  // 2-D only
  switch (algo) {
    case ConvAlgorithm::Depthwise3x3:
      kc.needScratch(checkedProduct({g.in[1], static_cast<int64_t>(sizeof(float))}));  // a zero row
      break;
    case ConvAlgorithm::DepthwisePadded:
      kc.needScratch(depthwisePaddedScratch(g));
      break;
    case ConvAlgorithm::BatchedIm2colGemm:
      kc.needScratch(checkedProduct({g.Cg * g.kSize + g.Mg, imgs, g.outSize, elem}));
      break;
    case ConvAlgorithm::Im2colGemm:
      if (g.in.size() == 2 && op.inType(0) == DataType::FLOAT)
        kc.needScratch(checkedProduct({g.Cg, g.kSize, convChunk(g), elem}));  // column chunks
      else
        kc.needScratch(checkedProduct({g.Cg * g.kSize * g.outSize, elem}));
      break;
    default:  // Depthwise, PointwiseGemm: no scratch (Winograd returned above)
      break;
  }
  return dispatchFloatOrDouble(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      const T* Wt = inPtr<T>(s, w);
      const T* B = b >= 0 ? inPtr<T>(s, b) : nullptr;
      T* Y = outPtr<T>(s, y);
      if constexpr (std::is_same_v<T, float>) {
        if (dw3x3) {
          float* zeros = reinterpret_cast<float*>(s.scratch);  // shared scratch: clear it each run
          std::fill(zeros, zeros + g.in[1], 0.0f);
          // Channel ranges of every image as tasks on the thread pool (one task per image
          // on one thread); each applies its own bias and activation.
          const int64_t threads = getNumThreads();
          const int64_t parts = std::min<int64_t>(g.C, threads > 1 ? 4 * threads : 1);
          parallelFor(g.N * parts, [&](int64_t t) {
            const int64_t n = t / parts, p = t % parts;
            const int64_t c0 = g.C * p / parts, c1 = g.C * (p + 1) / parts;
            const float* xn = X + (n * g.C + c0) * g.inSize;
            float* yn = Y + (n * g.M + c0) * g.outSize;
            const float* bn = B ? B + c0 : nullptr;
            if (g.s[1] == 1)
              depthwiseKernels().k3x3s1(xn, Wt + c0 * 9, bn, yn, dg, c1 - c0, zeros);
            else
              depthwiseKernels().k3x3s2(xn, Wt + c0 * 9, bn, yn, dg, c1 - c0, zeros);
            if (act.kind != Activation::Kind::None) applyActivation(act, yn, yn, (c1 - c0) * g.outSize);
          });
          return;
        }
        if (dwPadded) {
          for (int64_t n = 0; n < g.N; ++n)
            depthwiseKernels().padded(X + n * g.C * g.inSize, Wt, B, Y + n * g.M * g.outSize, dg,
                                      reinterpret_cast<float*>(s.scratch));
          if (act.kind != Activation::Kind::None) applyActivation(act, Y, Y, g.N * g.M * g.outSize);
          return;
        }
        if (depthwise) {
          for (int64_t n = 0; n < g.N; ++n)
            depthwiseKernels().plain(X + n * g.C * g.inSize, Wt, B, Y + n * g.M * g.outSize, dg);
          if (act.kind != Activation::Kind::None) applyActivation(act, Y, Y, g.N * g.M * g.outSize);
          return;
        }
      }
      T* col = reinterpret_cast<T*>(s.scratch);
      const int64_t K = g.Cg * g.kSize;
      if constexpr (std::is_same_v<T, float>) {
        if (imgs > 1) {
          const int64_t P = g.outSize;
          float* cbuf = col + K * imgs * P;
          for (int64_t n0 = 0; n0 < g.N; n0 += imgs) {
            const int64_t ni = std::min(imgs, g.N - n0);
            for (int64_t grp = 0; grp < g.G; ++grp) {
              for (int64_t i = 0; i < ni; ++i)
                im2col2d(X + ((n0 + i) * g.C + grp * g.Cg) * g.inSize, col + i * P, g, ni * P);
              BatchScatter sc{Y + (n0 * g.M + grp * g.Mg) * P, P, g.M * P, B ? B + grp * g.Mg : nullptr, act};
              gemm(false, false, g.Mg, ni * P, K, 1.0f, Wt + grp * g.Mg * K, K, col, ni * P, 0.0f, cbuf, ni * P,
                   GemmEpilogue{&BatchScatter::apply, &sc});
            }
          }
          return;
        }
      }
      for (int64_t n = 0; n < g.N; ++n) {
        for (int64_t grp = 0; grp < g.G; ++grp) {
          const T* xg = X + (n * g.C + grp * g.Cg) * g.inSize;
          T* yg = Y + (n * g.M + grp * g.Mg) * g.outSize;
          const T* wg = Wt + grp * g.Mg * K;
          if constexpr (std::is_same_v<T, float>) {
            // Bias and activation are applied by the GEMM epilogue, on C blocks still in cache.
            BiasActivation epi;
            epi.rowBias = B ? B + grp * g.Mg : nullptr;
            epi.act = act;
            const GemmEpilogue ge{&BiasActivation::apply, &epi};
            if (pointwise) {
              gemm(false, false, g.Mg, g.outSize, K, 1.0f, wg, K, xg, g.outSize, 0.0f, yg, g.outSize, ge);
            } else if (g.in.size() == 2) {
              const int64_t nc = convChunk(g);
              for (int64_t p0 = 0; p0 < g.outSize; p0 += nc) {
                const int64_t np = std::min(nc, g.outSize - p0);
                if (np == g.outSize)
                  im2col2d(xg, col, g);
                else
                  im2col2dRange(xg, col, g, p0, np);
                gemm(false, false, g.Mg, np, K, 1.0f, wg, K, col, np, 0.0f, yg + p0, g.outSize, ge);
              }
            } else {
              im2colNd(xg, col, g);
              gemm(false, false, g.Mg, g.outSize, K, 1.0f, wg, K, col, g.outSize, 0.0f, yg, g.outSize, ge);
            }
            continue;
          }
          if (B) {
            for (int64_t m = 0; m < g.Mg; ++m) {
              const T bv = B[grp * g.Mg + m];
              T* row = yg + m * g.outSize;
              for (int64_t i = 0; i < g.outSize; ++i) row[i] = bv;
            }
          }
          const T* rhs = xg;
          if (!pointwise) {
            if (g.in.size() == 2) {
              im2col2d(xg, col, g);
            } else {
              im2colNd(xg, col, g);
            }
            rhs = col;
          }
          gemm(false, false, g.Mg, g.outSize, K, T(1), wg, K, rhs, g.outSize, B ? T(1) : T(0), yg, g.outSize);
        }
      }
    };
  });
}

}  // namespace cpu
}  // namespace popart

namespace popart {
namespace cpu {

// ConvTranspose: col = W_g^T X_g (a GEMM), then col2im scatter-adds each column into the output.
KernelFn makeCpuKernel_ConvTranspose(const Op& op, KernelContext& kc) {
  if (hasHalfFloat(op)) return viaFloat(op, kc, &makeCpuKernel_ConvTranspose);  // FLOAT16: float partials
  const Shape& xs = op.inShape(0);
  const Shape& ws = op.inShape(1);
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  const ops::Window win = ops::computeTransposeWindow(op, std::vector<int64_t>(xs.begin() + 2, xs.end()), kernel);
  const int64_t N = xs[0], C = xs[1], G = op.attrs.getInt("group", 1), Cg = C / G, Mg = ws[1], M = Mg * G;
  const size_t r = kernel.size();
  int64_t inSize = 1, outSize = 1, kSize = 1;
  for (size_t i = 0; i < r; ++i) {
    inSize *= win.inSpatial[i];
    outSize *= win.outSpatial[i];
    kSize *= kernel[i];
  }
  if (op.inType(0) != DataType::FLOAT && op.inType(0) != DataType::DOUBLE)
    throw error("ConvTranspose supports FLOAT and DOUBLE inputs here, not {}", op.inInfo(0).data_type());
  const int64_t elem = dataTypeSize(op.inType(0));
  kc.needScratch(checkedProduct({Mg, kSize, inSize, elem}));
  const int x = kc.in(0), w = kc.in(1), b = kc.in(2), y = kc.out(0);
  return dispatchFloatOrDouble(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* X = inPtr<T>(s, x);
      const T* W = inPtr<T>(s, w);
      const T* B = b >= 0 ? inPtr<T>(s, b) : nullptr;
      T* Y = outPtr<T>(s, y);
      T* col = reinterpret_cast<T*>(s.scratch);
      std::vector<int64_t> kidx(r), ipos(r);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t g = 0; g < G; ++g) {
          const T* xg = X + (n * C + g * Cg) * inSize;
          const T* wg = W + g * Cg * Mg * kSize;
          gemm(true, false, Mg * kSize, inSize, Cg, T(1), wg, Mg * kSize, xg, inSize, T(0), col, inSize);
          T* yg = Y + (n * M + g * Mg) * outSize;
          for (int64_t m = 0; m < Mg; ++m) {
            const T bv = B ? B[g * Mg + m] : T(0);
            for (int64_t i = 0; i < outSize; ++i) yg[m * outSize + i] = bv;
          }
          for (int64_t row = 0; row < Mg * kSize; ++row) {
            const int64_t m = row / kSize;
            int64_t kk = row % kSize;
            for (size_t d = r; d-- > 0;) {
              kidx[d] = kk % kernel[d];
              kk /= kernel[d];
            }
            const T* crow = col + row * inSize;
            std::fill(ipos.begin(), ipos.end(), 0);
            for (int64_t p = 0; p < inSize; ++p) {
              int64_t off = 0;
              bool inside = true;
              for (size_t d = 0; d < r; ++d) {
                const int64_t o = ipos[d] * win.strides[d] - win.padBegin[d] + kidx[d] * win.dilations[d];
                if (o < 0 || o >= win.outSpatial[d]) inside = false;
                off = off * win.outSpatial[d] + o;
              }
              if (inside) yg[m * outSize + off] += crow[p];
              for (size_t d = r; d-- > 0;) {
                if (++ipos[d] < win.inSpatial[d]) break;
                ipos[d] = 0;
              }
            }
          }
        }
      }
    };
  });
}

}  // namespace cpu
}  // namespace popart

namespace popart {
namespace cpu {
namespace {

/// Slots of one convolution of a MultiConv as its Conv kernel sees them: x, w, b, y are 0..3.
class PartContext : public KernelContext {
 public:
  explicit PartContext(bool bias) : bias_(bias) {}
  int in(int i) const override { return i == 2 && !bias_ ? -1 : i; }
  int out(int i) const override { return i == 0 ? 3 : -1; }
  void needScratch(int64_t bytes) override { scratch = bytes < 0 || scratch < 0 ? -1 : std::max(scratch, bytes); }
  int64_t scratch = 0;

 private:
  bool bias_;
};

/// Copies every element of `src` (shape `from`) to `dst` (shape `to`, zeroed first) at
/// offset[d] + index[d] * step[d] along each dimension: the input dilation (step) and the output
/// padding (offset) of a MultiConv convolution.
void spread(const unsigned char* src, const Shape& from, unsigned char* dst, const Shape& to,
            const std::vector<int64_t>& offset, const std::vector<int64_t>& step, size_t elem) {
  const int64_t total = TensorInfo(DataType::UINT8, to).nelms();
  std::memset(dst, 0, static_cast<size_t>(total) * elem);
  const int64_t n = TensorInfo(DataType::UINT8, from).nelms();
  const size_t r = from.size();
  std::vector<int64_t> idx(r, 0), stride(r, 1);
  for (size_t d = r; d-- > 1;) stride[d - 1] = stride[d] * to[d];
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = 0;
    for (size_t d = 0; d < r; ++d) at += (offset[d] + idx[d] * step[d]) * stride[d];
    std::memcpy(dst + static_cast<size_t>(at) * elem, src + static_cast<size_t>(e) * elem, elem);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < from[d]) break;
      idx[d] = 0;
    }
  }
}

/// One convolution of a MultiConv: its Conv kernel and where its buffers are.
struct MultiConvRun {
  KernelFn conv;
  int x = -1, w = -1, b = -1, y = -1;  ///< the MultiConv's slots
  bool plain = true;
  Shape xs, dilatedIn, convOut, out;
  std::vector<int64_t> inStep, outOffset;
  size_t elem = 4;
  int64_t xOffset = -1, yOffset = -1, innerOffset = 0;  ///< in scratch
};

}  // namespace

// Graphcore's MultiConv: each convolution runs the Conv kernel of a Conv op made from its
// inputs and unpacked window (in a graph the kernel keeps alive), one after the other, sharing
// the scratch memory. Input dilations are written into a zero-filled buffer before the Conv;
// output padding is added by writing the Conv's result into the zeroed output.
KernelFn makeCpuKernel_GcMultiConv(const Op& op, KernelContext& kc) {
  const std::vector<ops::MultiConvPart> parts = ops::multiConvParts(op);
  auto shadow = std::make_shared<Graph>(op.graph().ir(), op.graph().id() + "/multiconv");
  std::vector<MultiConvRun> runs;
  int64_t scratch = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const ops::MultiConvPart& p = parts[i];
    MultiConvRun r;
    Op& conv = shadow->addOp(opDef(OpKind::Conv), op.name() + "/conv" + std::to_string(i), 11);
    conv.attrs.set("strides", p.strides);
    conv.attrs.set("pads", p.pads);
    conv.attrs.set("dilations", p.dilations);
    conv.attrs.set("group", p.group);
    const DataType t = op.inType(p.x);
    auto copyIn = [&](int outer, int local, const Shape& shape) {
      const Tensor& src = *op.input(outer);
      Tensor& c = shadow->addTensor(shadow->uniqueTensorId(src.id), src.kind, TensorInfo(t, shape));
      if (src.data && shape == src.info.shape()) c.data = *src.data;
      conv.connectInput(local, &c);
    };
    copyIn(p.x, 0, p.dilatedIn);
    copyIn(p.w, 1, op.inShape(p.w));
    if (p.b >= 0)
      copyIn(p.b, 2, op.inShape(p.b));
    else
      conv.connectInput(2, nullptr);
    conv.connectOutput(0, &shadow->addTensor(shadow->uniqueTensorId(op.output(static_cast<int>(i))->id),
                                             TensorKind::ActGrad, TensorInfo(t, p.convOut)));
    PartContext local(p.b >= 0);
    r.conv = makeCpuKernel_Conv(conv, local);
    r.x = kc.in(p.x);
    r.w = kc.in(p.w);
    r.b = p.b >= 0 ? kc.in(p.b) : -1;
    r.y = kc.out(static_cast<int>(i));
    r.plain = p.plain();
    r.xs = op.inShape(p.x);
    r.dilatedIn = p.dilatedIn;
    r.convOut = p.convOut;
    r.out = p.out;
    r.elem = static_cast<size_t>(dataTypeSize(t));
    r.inStep = {1, 1};
    r.inStep.insert(r.inStep.end(), p.inDilations.begin(), p.inDilations.end());
    r.outOffset = {0, 0};
    r.outOffset.insert(r.outOffset.end(), p.outPads.begin(), p.outPads.begin() + static_cast<long>(p.strides.size()));
    // Scratch: the four slot pointers, the dilated X and the unpadded Y when needed, the Conv's.
    int64_t at = scratchAlign(static_cast<int64_t>(4 * sizeof(void*)));
    if (!r.plain) {
      r.xOffset = at;
      at = scratchSum(at,
                      scratchAlign(checkedProduct({TensorInfo(t, p.dilatedIn).nelms(), static_cast<int64_t>(r.elem)})));
      r.yOffset = at;
      at = scratchSum(at,
                      scratchAlign(checkedProduct({TensorInfo(t, p.convOut).nelms(), static_cast<int64_t>(r.elem)})));
    }
    r.innerOffset = at;
    const int64_t need = scratchSum(at, local.scratch);
    scratch = need < 0 || scratch < 0 ? -1 : std::max(scratch, need);
    runs.push_back(std::move(r));
  }
  kc.needScratch(scratch);
  return [shadow, runs](const RunState& s) {
    for (const MultiConvRun& r : runs) {
      if (r.y < 0) continue;  // an output the model does not use
      void** slots = reinterpret_cast<void**>(s.scratch);
      slots[1] = s.slots[r.w];
      slots[2] = r.b >= 0 ? s.slots[r.b] : nullptr;
      if (r.plain) {
        slots[0] = s.slots[r.x];
        slots[3] = s.slots[r.y];
      } else {
        slots[0] = s.scratch + r.xOffset;
        slots[3] = s.scratch + r.yOffset;
        spread(static_cast<const unsigned char*>(s.slots[r.x]), r.xs, s.scratch + r.xOffset, r.dilatedIn,
               std::vector<int64_t>(r.xs.size(), 0), r.inStep, r.elem);
      }
      RunState inner{slots, s.scratch + r.innerOffset, s.rng};
      r.conv(inner);
      if (!r.plain)
        spread(s.scratch + r.yOffset, r.convOut, static_cast<unsigned char*>(s.slots[r.y]), r.out, r.outOffset,
               std::vector<int64_t>(r.out.size(), 1), r.elem);
    }
  };
}

}  // namespace cpu
}  // namespace popart
