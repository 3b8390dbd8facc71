// CPU kernels of the misc family: LRN, ReverseSequence, MaxUnpool, Unique, NonZero, NonMaxSuppression,
// NormalizeImage.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "ops/misc_params.hpp"

namespace popart {
namespace cpu {

KernelFn makeCpuKernel_LRN(const Op& op, KernelContext& kc) {
  const Shape& x = op.inShape(0);
  int64_t inner = 1;
  for (size_t i = 2; i < x.size(); ++i) inner *= x[i];
  const int64_t N = x[0], C = x[1];
  const int64_t size = op.attrs.getInt("size");
  const double alpha = op.attrs.getFloat("alpha", 1e-4f), beta = op.attrs.getFloat("beta", 0.75f),
               bias = op.attrs.getFloat("bias", 1.0f);
  const int64_t below = (size - 1) / 2, above = size - 1 - below;  // floor and ceil of (size - 1) / 2
  const int xs = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, xs);
      T* out = outPtr<T>(s, y);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t c = 0; c < C; ++c) {
          const int64_t lo = std::max<int64_t>(0, c - below), hi = std::min<int64_t>(C - 1, c + above);
          for (int64_t i = 0; i < inner; ++i) {
            double sq = 0;
            for (int64_t k = lo; k <= hi; ++k) {
              const double v = static_cast<double>(static_cast<CT>(in[(n * C + k) * inner + i]));
              sq += v * v;
            }
            const int64_t at = (n * C + c) * inner + i;
            const double v = static_cast<double>(static_cast<CT>(in[at]));
            out[at] =
                static_cast<T>(static_cast<CT>(v / std::pow(bias + alpha / static_cast<double>(size) * sq, beta)));
          }
        }
      }
    };
  });
}

KernelFn makeCpuKernel_ReverseSequence(const Op& op, KernelContext& kc) {
  const Shape& x = op.inShape(0);
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t batchAxis = op.attrs.getInt("batch_axis", 1), timeAxis = op.attrs.getInt("time_axis", 0);
  if (batchAxis < 0) batchAxis += rank;
  if (timeAxis < 0) timeAxis += rank;
  const int64_t batch = x[static_cast<size_t>(batchAxis)], time = x[static_cast<size_t>(timeAxis)];
  int64_t inner = 1;
  for (size_t i = 2; i < x.size(); ++i) inner *= x[i];
  const bool timeMajor = timeAxis == 0;
  const size_t rowBytes = static_cast<size_t>(inner) * static_cast<size_t>(dataTypeSize(op.inType(0)));
  const bool lens64 = op.inType(1) == DataType::INT64;
  const int xs = kc.in(0), ls = kc.in(1), y = kc.out(0);
  return [=](const RunState& s) {
    const auto* in = inPtr<unsigned char>(s, xs);
    auto* out = outPtr<unsigned char>(s, y);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t len = lens64 ? inPtr<int64_t>(s, ls)[b] : static_cast<int64_t>(inPtr<int32_t>(s, ls)[b]);
      len = std::min(std::max<int64_t>(len, 0), time);
      for (int64_t t = 0; t < time; ++t) {
        const int64_t src = t < len ? len - 1 - t : t;
        const int64_t dstRow = timeMajor ? t * batch + b : b * time + t;
        const int64_t srcRow = timeMajor ? src * batch + b : b * time + src;
        std::memcpy(out + static_cast<size_t>(dstRow) * rowBytes, in + static_cast<size_t>(srcRow) * rowBytes,
                    rowBytes);
      }
    }
  };
}

KernelFn makeCpuKernel_MaxUnpool(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const Shape inferred = ops::maxUnpoolInferredShape(op), out = op.outInfo(0).shape();
  const int64_t inferredN = TensorInfo(DataType::FLOAT, inferred).nelms(), outN = op.outInfo(0).nelms();
  const bool sameShape = inferred == out;
  const int xs = kc.in(0), is = kc.in(1), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, xs);
      const int64_t* ind = inPtr<int64_t>(s, is);
      T* o = outPtr<T>(s, y);
      std::fill(o, o + outN, static_cast<T>(compute_t<T>(0)));
      for (int64_t i = 0; i < n; ++i) {
        int64_t at = ind[i];
        if (at < 0 || at >= inferredN)
          throw error("MaxUnpool: index {} (element {} of I) is outside the unpooled shape {}", at, i, inferred);
        if (!sameShape) {  // the same coordinates in output_shape; dropped when cropped away
          int64_t dst = 0, stride = 1;
          bool inside = true;
          for (size_t d = inferred.size(); d-- > 0;) {
            const int64_t c = at % inferred[d];
            at /= inferred[d];
            if (c >= out[d]) inside = false;
            dst += c * stride;
            stride *= out[d];
          }
          if (!inside) continue;
          at = dst;
        }
        o[at] = in[i];
      }
    };
  });
}

KernelFn makeCpuKernel_NonZero(const Op& op, KernelContext& kc) {
  const Shape shape = op.inShape(0);
  const int64_t count = op.outInfo(0).shape()[1];  // inferred from the values (ops/misc.cpp)
  const int64_t n = op.inInfo(0).nelms();
  const int xs = kc.in(0), y = kc.out(0);
  return dispatchAll(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, xs);
      int64_t* out = outPtr<int64_t>(s, y);
      int64_t k = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (in[i] == T(0)) continue;
        if (k == count)
          throw error("NonZero: the input has more than the {} non-zero values the output was inferred for", count);
        int64_t rest = i;  // i's index along each dimension, last dimension fastest
        for (size_t d = shape.size(); d-- > 0;) {
          out[static_cast<int64_t>(d) * count + k] = rest % shape[d];
          rest /= shape[d];
        }
        ++k;
      }
      if (k != count)
        throw error("NonZero: the input has {} non-zero values, but the output was inferred for {}", k, count);
    };
  });
}

KernelFn makeCpuKernel_NonMaxSuppression(const Op& op, KernelContext& kc) {
  const Shape b = op.inShape(0);
  const int64_t classes = op.inShape(1)[1];
  const int64_t count = op.outInfo(0).shape()[0];  // inferred from the values (ops/misc.cpp)
  const int boxes = kc.in(0), scores = kc.in(1), maxOut = kc.in(2), iou = kc.in(3), scoreThr = kc.in(4);
  const int y = kc.out(0);
  const Op* o = &op;
  return [=](const RunState& s) {
    const ops::NmsParams p =
        ops::nmsParams(*o, maxOut >= 0 ? inPtr<int64_t>(s, maxOut) : nullptr, iou >= 0 ? inPtr<float>(s, iou) : nullptr,
                       scoreThr >= 0 ? inPtr<float>(s, scoreThr) : nullptr);
    const auto sel = ops::nonMaxSuppression(inPtr<float>(s, boxes), inPtr<float>(s, scores), b[0], classes, b[1], p);
    if (static_cast<int64_t>(sel.size()) != 3 * count)
      throw error("NonMaxSuppression: {} boxes are selected, but the output was inferred for {}", sel.size() / 3,
                  count);
    std::copy(sel.begin(), sel.end(), outPtr<int64_t>(s, y));
  };
}

KernelFn makeCpuKernel_Unique(const Op& op, KernelContext& kc) {
  const ops::UniqueGeometry g = ops::uniqueGeometry(op);
  const bool sorted = op.attrs.getInt("sorted", 1) != 0;
  const int xs = kc.in(0), y = kc.out(0), yi = kc.out(1), yinv = kc.out(2), yc = kc.out(3);
  int64_t expected = -1;  // the unique count the output shapes were inferred for
  if (op.hasOutput(0)) {
    expected = op.outInfo(0).shape()[static_cast<size_t>(g.hasAxis ? g.axis : 0)];
  } else if (op.hasOutput(1)) {
    expected = op.outInfo(1).nelms();
  } else if (op.hasOutput(3)) {
    expected = op.outInfo(3).nelms();
  }
  return dispatchAll(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, xs);
      const ops::UniqueResult r = ops::computeUnique(in, g.outer, g.n, g.inner, sorted);
      const int64_t u = static_cast<int64_t>(r.first.size());
      if (expected >= 0 && u != expected)
        throw error("Unique: the input has {} unique values or slices, but the shapes were inferred for {}", u,
                    expected);
      if (y >= 0) {
        T* out = outPtr<T>(s, y);
        for (int64_t o = 0; o < g.outer; ++o) {
          for (int64_t p = 0; p < u; ++p) {
            const T* src = in + (o * g.n + r.first[static_cast<size_t>(p)]) * g.inner;
            std::copy(src, src + g.inner, out + (o * u + p) * g.inner);
          }
        }
      }
      if (yi >= 0) std::copy(r.first.begin(), r.first.end(), outPtr<int64_t>(s, yi));
      if (yinv >= 0) std::copy(r.inverse.begin(), r.inverse.end(), outPtr<int64_t>(s, yinv));
      if (yc >= 0) std::copy(r.counts.begin(), r.counts.end(), outPtr<int64_t>(s, yc));
    };
  });
}

namespace {

template <typename I, typename O>
KernelFn normalizeImage(const Op& op, KernelContext& kc) {
  using CO = compute_t<O>;
  const int64_t pixels = op.inInfo(0).nelms() / 3;
  const double scale = op.attrs.getFloat("scale", 1.0f);
  const int x = kc.in(0), off = kc.in(1), sc = kc.in(2), y = kc.out(0);
  return [=](const RunState& s) {
    const I* in = inPtr<I>(s, x);
    const O* offsets = inPtr<O>(s, off);
    const O* scales = inPtr<O>(s, sc);
    O* out = outPtr<O>(s, y);
    double o[3], k[3];
    for (int c = 0; c < 3; ++c) {
      o[c] = static_cast<double>(static_cast<CO>(offsets[c]));
      k[c] = static_cast<double>(static_cast<CO>(scales[c]));
    }
    for (int64_t p = 0; p < pixels; ++p) {
      for (int c = 0; c < 3; ++c) {
        const double v = static_cast<double>(static_cast<compute_t<I>>(in[p * 3 + c]));
        out[p * 4 + c] = static_cast<O>(static_cast<CO>((v * scale - o[c]) * k[c]));
      }
      out[p * 4 + 3] = static_cast<O>(CO(0));
    }
  };
}

}  // namespace

/// NormalizeImage: out[p, c] = (x[p, c] * scale - offsets[c]) * scales[c] for c < 3, 0 for c = 3,
/// computed in double (UINT8 -> FLOAT16, FLOAT16 -> FLOAT16, FLOAT -> FLOAT, as the setup allows).
KernelFn makeCpuKernel_GcNormalizeImage(const Op& op, KernelContext& kc) {
  switch (op.inType(0)) {
    case DataType::UINT8:
      return normalizeImage<uint8_t, float16_t>(op, kc);
    case DataType::FLOAT16:
      return normalizeImage<float16_t, float16_t>(op, kc);
    case DataType::FLOAT:
      return normalizeImage<float, float>(op, kc);
    default:
      return KernelFn();
  }
}

}  // namespace cpu
}  // namespace popart
