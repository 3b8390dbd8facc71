// CPU kernels of the signal family. Transforms compute in double: a radix-2 FFT for
// power-of-two lengths, a direct DFT with a twiddle table otherwise.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "common/checked_size.hpp"
#include "ops/signal_params.hpp"

namespace popart {
namespace cpu {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A complex DFT of one length: X[k] = sum_t x[t] exp(-+2 pi i k t / n) (1/n for the inverse).
class Dft {
 public:
  Dft(int64_t n, bool inverse) : n_(n), inverse_(inverse), pow2_(n > 0 && (n & (n - 1)) == 0) {
    // twiddles exp(-2 pi i j / n), with exact values at the quarter points
    cos_.resize(static_cast<size_t>(n));
    sin_.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      double c, s;
      if (4 * j % n == 0) {
        const int64_t q = 4 * j / n;
        c = q == 0 ? 1.0 : q == 2 ? -1.0 : 0.0;
        s = q == 1 ? 1.0 : q == 3 ? -1.0 : 0.0;
      } else {
        const double a = 2.0 * kPi * static_cast<double>(j) / static_cast<double>(n);
        c = std::cos(a);
        s = std::sin(a);
      }
      cos_[static_cast<size_t>(j)] = c;
      sin_[static_cast<size_t>(j)] = inverse ? s : -s;
    }
  }

  int64_t length() const { return n_; }

  /// re/im (length n each) transformed in place; tmpRe/tmpIm are n more each.
  void run(double* re, double* im, double* tmpRe, double* tmpIm) const {
    if (pow2_) {
      fft(re, im);
    } else {
      for (int64_t k = 0; k < n_; ++k) {
        double sr = 0.0, si = 0.0;
        int64_t j = 0;  // k * t mod n
        for (int64_t t = 0; t < n_; ++t) {
          const double c = cos_[static_cast<size_t>(j)], s = sin_[static_cast<size_t>(j)];
          sr += re[t] * c - im[t] * s;
          si += re[t] * s + im[t] * c;
          j += k;
          if (j >= n_) j -= n_;
        }
        tmpRe[k] = sr;
        tmpIm[k] = si;
      }
      for (int64_t k = 0; k < n_; ++k) {
        re[k] = tmpRe[k];
        im[k] = tmpIm[k];
      }
    }
    if (inverse_) {
      const double f = 1.0 / static_cast<double>(n_);
      for (int64_t k = 0; k < n_; ++k) {
        re[k] *= f;
        im[k] *= f;
      }
    }
  }

 private:
  void fft(double* re, double* im) const {
    const int64_t n = n_;
    for (int64_t i = 1, j = 0; i < n; ++i) {  // bit reversal
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        std::swap(re[i], re[j]);
        std::swap(im[i], im[j]);
      }
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t half = len / 2, step = n / len;
      for (int64_t i = 0; i < n; i += len) {
        for (int64_t j = 0; j < half; ++j) {
          const double c = cos_[static_cast<size_t>(j * step)], s = sin_[static_cast<size_t>(j * step)];
          const double ur = re[i + j], ui = im[i + j];
          const double xr = re[i + j + half], xi = im[i + j + half];
          const double vr = xr * c - xi * s, vi = xr * s + xi * c;
          re[i + j] = ur + vr;
          im[i + j] = ui + vi;
          re[i + j + half] = ur - vr;
          im[i + j + half] = ui - vi;
        }
      }
    }
  }

  int64_t n_;
  bool inverse_;
  bool pow2_;
  std::vector<double> cos_, sin_;
};

/// Generalized cosine window a0 - a1 cos(2 pi i / N) + a2 cos(4 pi i / N).
KernelFn cosineWindowKernel(const Op& op, KernelContext& kc, double a0, double a1, double a2) {
  const int64_t size = op.outInfo(0).nelms();
  const bool periodic = op.attrs.getInt("periodic", 1) != 0;
  const double N = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    const double x = N > 0 ? 2.0 * kPi * static_cast<double>(i) / N : 0.0;
    w[static_cast<size_t>(i)] = N > 0 ? a0 - a1 * std::cos(x) + a2 * std::cos(2.0 * x) : 1.0;
  }
  const int y = kc.out(0);
  return dispatchNumeric(op.outInfo(0).dataType(), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      T* out = outPtr<T>(s, y);
      for (int64_t i = 0; i < size; ++i) out[i] = static_cast<T>(static_cast<compute_t<T>>(w[static_cast<size_t>(i)]));
    };
  });
}

}  // namespace

KernelFn makeCpuKernel_HannWindow(const Op& op, KernelContext& kc) {
  return cosineWindowKernel(op, kc, 0.5, 0.5, 0.0);
}
KernelFn makeCpuKernel_HammingWindow(const Op& op, KernelContext& kc) {
  return cosineWindowKernel(op, kc, 25.0 / 46.0, 21.0 / 46.0, 0.0);
}
KernelFn makeCpuKernel_BlackmanWindow(const Op& op, KernelContext& kc) {
  return cosineWindowKernel(op, kc, 0.42, 0.5, 0.08);
}

KernelFn makeCpuKernel_DFT(const Op& op, KernelContext& kc) {
  const ops::DftParams p = ops::dftParams(op);
  const Shape& in = op.inShape(0);
  const size_t ax = static_cast<size_t>(p.axis);
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < ax; ++i) outer *= in[i];
  for (size_t i = ax + 1; i + 1 < in.size(); ++i) inner *= in[i];
  const int64_t inLen = in[ax], c = in.back(), n = p.length, outLen = p.outLen;
  const int64_t used = std::min(inLen, n);
  const auto dft = std::make_shared<const Dft>(n, p.inverse);
  kc.needScratch(checkedProduct({4, n, static_cast<int64_t>(sizeof(double))}));
  const int x = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* src = inPtr<T>(s, x);
      T* dst = outPtr<T>(s, y);
      double* re = reinterpret_cast<double*>(s.scratch);
      double* im = re + n;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* line = src + (o * inLen * inner + i) * c;
          for (int64_t t = 0; t < n; ++t) {
            const bool inside = t < used;
            re[t] = inside ? static_cast<double>(static_cast<C>(line[t * inner * c])) : 0.0;
            im[t] = inside && c == 2 ? static_cast<double>(static_cast<C>(line[t * inner * c + 1])) : 0.0;
          }
          dft->run(re, im, im + n, im + 2 * n);
          T* outLine = dst + (o * outLen * inner + i) * 2;
          for (int64_t k = 0; k < outLen; ++k) {
            outLine[k * inner * 2] = static_cast<T>(static_cast<C>(re[k]));
            outLine[k * inner * 2 + 1] = static_cast<T>(static_cast<C>(im[k]));
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_STFT(const Op& op, KernelContext& kc) {
  const ops::StftParams p = ops::stftParams(op);
  const int64_t n = p.length, c = p.complexIn ? 2 : 1;
  const auto dft = std::make_shared<const Dft>(n, false);
  kc.needScratch(checkedProduct({4, n, static_cast<int64_t>(sizeof(double))}));
  const int x = kc.in(0), win = kc.in(2), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* src = inPtr<T>(s, x);
      const T* w = win >= 0 ? inPtr<T>(s, win) : nullptr;
      T* dst = outPtr<T>(s, y);
      double* re = reinterpret_cast<double*>(s.scratch);
      double* im = re + n;
      for (int64_t b = 0; b < p.batch; ++b) {
        for (int64_t f = 0; f < p.frames; ++f) {
          const T* frame = src + (b * p.signalLength + f * p.step) * c;
          for (int64_t t = 0; t < n; ++t) {
            const double wt = w ? static_cast<double>(static_cast<C>(w[t])) : 1.0;
            re[t] = static_cast<double>(static_cast<C>(frame[t * c])) * wt;
            im[t] = c == 2 ? static_cast<double>(static_cast<C>(frame[t * c + 1])) * wt : 0.0;
          }
          dft->run(re, im, im + n, im + 2 * n);
          T* out = dst + (b * p.frames + f) * p.outLen * 2;
          for (int64_t k = 0; k < p.outLen; ++k) {
            out[2 * k] = static_cast<T>(static_cast<C>(re[k]));
            out[2 * k + 1] = static_cast<T>(static_cast<C>(im[k]));
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_MelWeightMatrix(const Op& op, KernelContext& kc) {
  const Shape& outShape = op.outInfo(0).shape();
  const int64_t specBins = outShape[0], melBins = outShape[1];
  const int sr = kc.in(2), lo = kc.in(3), hi = kc.in(4), dl = kc.in(1), y = kc.out(0);
  const DataType srT = op.inType(2), loT = op.inType(3), hiT = op.inType(4), dlT = op.inType(1);
  return dispatchNumeric(op.outInfo(0).dataType(), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      auto read = [&](int slot, DataType t) {
        return dispatchNumeric(t, [&](auto itag) {
          using I = decltype(itag);
          return static_cast<double>(static_cast<compute_t<I>>(*inPtr<I>(s, slot)));
        });
      };
      const double n = read(dl, dlT), rate = read(sr, srT);
      const double lowMel = 2595.0 * std::log10(1.0 + read(lo, loT) / 700.0);
      const double highMel = 2595.0 * std::log10(1.0 + read(hi, hiT) / 700.0);
      // The reference's band edges: melBins + 2 points, spaced by (high - low) / (melBins + 2).
      const double step = (highMel - lowMel) / static_cast<double>(melBins + 2);
      std::vector<int64_t> edge(static_cast<size_t>(melBins + 2));
      for (int64_t i = 0; i < melBins + 2; ++i) {
        const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lowMel) / 2595.0) - 1.0);
        const double e = std::floor((n + 1.0) * hz / rate);
        if (!(std::abs(e) < 1e15))
          throw error("MelWeightMatrix: band edge {} Hz maps to DFT bin {} (sample_rate {}, dft_length {})", hz, e,
                      rate, n);
        edge[static_cast<size_t>(i)] = static_cast<int64_t>(e);
      }
      std::vector<double> m(static_cast<size_t>(specBins * melBins), 0.0);
      for (int64_t i = 0; i < melBins; ++i) {
        const int64_t l = edge[static_cast<size_t>(i)], c = edge[static_cast<size_t>(i + 1)];
        const int64_t h = edge[static_cast<size_t>(i + 2)];
        auto set = [&](int64_t j, double v) { m[static_cast<size_t>(j * melBins + i)] = v; };
        // rising edge [l, c] (a single 1 when l == c), then falling edge [c, h)
        if (c == l) {
          if (c >= 0 && c < specBins) set(c, 1.0);
        } else {
          for (int64_t j = std::max<int64_t>(l, 0); j <= std::min(c, specBins - 1); ++j)
            set(j, static_cast<double>(j - l) / static_cast<double>(c - l));
        }
        for (int64_t j = std::max<int64_t>(c, 0); j < std::min(h, specBins); ++j)
          set(j, static_cast<double>(h - j) / static_cast<double>(h - c));
      }
      T* out = outPtr<T>(s, y);
      for (size_t k = 0; k < m.size(); ++k) out[k] = static_cast<T>(static_cast<compute_t<T>>(m[k]));
    };
  });
}

}  // namespace cpu
}  // namespace popart
