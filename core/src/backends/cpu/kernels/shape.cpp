// CPU kernels of the shape / data-movement family.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/broadcast.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/cast_text.hpp"
#include "backends/cpu/strided.hpp"
#include "common/numeric_cast.hpp"
#include "ops/op_util.hpp"
#include "ops/shape_params.hpp"

namespace popart {
namespace cpu {
namespace {

/// Output 0 is input 0's bytes (views run as copies only when not aliased); numeric types only.
KernelFn numericCopyKernel(const Op& op, KernelContext& kc) {
  checkNotString(op);
  return copyKernel(op, kc);
}

KernelFn fillKernel(const Op& op, KernelContext& kc, const TensorData& value) {
  const int y = kc.out(0);
  const int64_t n = op.outInfo(0).nelms();
  const size_t elem = static_cast<size_t>(value.info().getDataTypeSize());
  std::vector<unsigned char> v(static_cast<const unsigned char*>(value.data()),
                               static_cast<const unsigned char*>(value.data()) + elem);
  return [=](const RunState& s) {
    auto* d = static_cast<unsigned char*>(s.slots[y]);
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + static_cast<size_t>(i) * elem, v.data(), elem);
  };
}

}  // namespace

KernelFn makeCpuKernel_Identity(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}
KernelFn makeCpuKernel_GcDetach(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}
KernelFn makeCpuKernel_GcNop(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}
KernelFn makeCpuKernel_Reshape(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}
KernelFn makeCpuKernel_GcReshape(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}
KernelFn makeCpuKernel_Flatten(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}
KernelFn makeCpuKernel_Squeeze(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}
KernelFn makeCpuKernel_Unsqueeze(const Op& op, KernelContext& kc) {
  return numericCopyKernel(op, kc);
}

KernelFn makeCpuKernel_Transpose(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const auto perm = ops::transposePerm(op);
  const auto inStrides = rowMajorStrides(op.inShape(0));
  std::vector<int64_t> st, dims;
  for (auto p : perm) {
    st.push_back(inStrides[static_cast<size_t>(p)]);
    dims.push_back(op.inShape(0)[static_cast<size_t>(p)]);
  }
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), y = kc.out(0);
  return [=](const RunState& s) { stridedCopy(s.slots[x], st, s.slots[y], dims, elem); };
}

KernelFn makeCpuKernel_Concat(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const Shape& out = op.outInfo(0).shape();
  const int64_t axis = ops::normalizeAxis(op.attrs.getInt("axis", 1), static_cast<int64_t>(out.size()));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= out[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < out.size(); ++i) inner *= out[i];
  const size_t elem = elemSize(op, 0);
  std::vector<int> slots;
  std::vector<size_t> chunk;  // bytes per outer step of each input
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i)) continue;
    slots.push_back(kc.in(i));
    chunk.push_back(static_cast<size_t>(op.inShape(i)[static_cast<size_t>(axis)] * inner) * elem);
  }
  size_t rowBytes = 0;
  for (auto c : chunk) rowBytes += c;
  const int y = kc.out(0);
  return [=](const RunState& s) {
    auto* d = static_cast<unsigned char*>(s.slots[y]);
    for (int64_t o = 0; o < outer; ++o) {
      unsigned char* row = d + static_cast<size_t>(o) * rowBytes;
      for (size_t i = 0; i < slots.size(); ++i) {
        if (chunk[i])
          std::memcpy(row, static_cast<const unsigned char*>(s.slots[slots[i]]) + static_cast<size_t>(o) * chunk[i],
                      chunk[i]);
        row += chunk[i];
      }
    }
  };
}

KernelFn makeCpuKernel_Split(const Op& op, KernelContext& kc) {
  checkNotString(op);
  int64_t axis = 0;
  const auto sizes = ops::splitSizes(op, &axis);
  const Shape& in = op.inShape(0);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < in.size(); ++i) inner *= in[i];
  const size_t elem = elemSize(op, 0);
  std::vector<int> slots;
  std::vector<size_t> chunk;
  size_t rowBytes = 0;
  for (int i = 0; i < op.numOutputs(); ++i) {
    slots.push_back(kc.out(i));
    chunk.push_back(static_cast<size_t>(sizes[static_cast<size_t>(i)] * inner) * elem);
    rowBytes += chunk.back();
  }
  const int x = kc.in(0);
  return [=](const RunState& s) {
    const auto* src = static_cast<const unsigned char*>(s.slots[x]);
    for (int64_t o = 0; o < outer; ++o) {
      const unsigned char* row = src + static_cast<size_t>(o) * rowBytes;
      for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i] >= 0 && chunk[i])
          std::memcpy(static_cast<unsigned char*>(s.slots[slots[i]]) + static_cast<size_t>(o) * chunk[i], row,
                      chunk[i]);
        row += chunk[i];
      }
    }
  };
}

KernelFn makeCpuKernel_Slice(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const ops::SliceParams p = ops::sliceParams(op);
  const auto inStrides = rowMajorStrides(op.inShape(0));
  int64_t base = 0;
  std::vector<int64_t> st;
  for (size_t i = 0; i < inStrides.size(); ++i) {
    base += p.start[i] * inStrides[i];
    st.push_back(p.step[i] * inStrides[i]);
  }
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), y = kc.out(0);
  const Shape dims = p.len;
  return [=](const RunState& s) {
    stridedCopy(static_cast<const unsigned char*>(s.slots[x]) + base * static_cast<int64_t>(elem), st, s.slots[y], dims,
                elem);
  };
}

KernelFn makeCpuKernel_GcSlice(const Op& op, KernelContext& kc) {
  return makeCpuKernel_Slice(op, kc);
}

KernelFn makeCpuKernel_GcSubsample(const Op& op, KernelContext& kc) {
  const auto strides = op.attrs.getInts("strides");
  const auto inStrides = rowMajorStrides(op.inShape(0));
  std::vector<int64_t> st;
  for (size_t i = 0; i < inStrides.size(); ++i) st.push_back(strides[i] * inStrides[i]);
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), y = kc.out(0);
  const Shape dims = op.outInfo(0).shape();
  return [=](const RunState& s) { stridedCopy(s.slots[x], st, s.slots[y], dims, elem); };
}

KernelFn makeCpuKernel_Expand(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const Shape in = op.inShape(0), out = op.outInfo(0).shape();
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), y = kc.out(0);
  return [=](const RunState& s) { broadcastCopy(s.slots[x], in, s.slots[y], out, elem); };
}

KernelFn makeCpuKernel_Tile(const Op& op, KernelContext& kc) {
  checkNotString(op);
  // Tile == broadcast of [1, d0, 1, d1, ...] into [r0, d0, r1, d1, ...].
  const Shape& in = op.inShape(0);
  const auto reps = op.requireInData(1, "the repeats").toInt64();
  Shape src, dst;
  for (size_t i = 0; i < in.size(); ++i) {
    src.push_back(1);
    src.push_back(in[i]);
    dst.push_back(reps[i]);
    dst.push_back(in[i]);
  }
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), y = kc.out(0);
  return [=](const RunState& s) { broadcastCopy(s.slots[x], src, s.slots[y], dst, elem); };
}

KernelFn makeCpuKernel_Pad(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const ops::PadParams p = ops::padParams(op);
  const Shape in = op.inShape(0), out = op.outInfo(0).shape();
  const size_t r = in.size();
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), y = kc.out(0);
  const auto outStrides = rowMajorStrides(out), inStrides = rowMajorStrides(in);
  // The constant value in the element type.
  const TensorData value = TensorData(TensorInfo(DataType::DOUBLE, {}), &p.value).castTo(op.inType(0));
  std::vector<unsigned char> v(static_cast<const unsigned char*>(value.data()),
                               static_cast<const unsigned char*>(value.data()) + elem);
  const int64_t nOut = TensorInfo(op.inType(0), out).nelms();
  if (p.mode == "constant") {
    // Fill, then copy the part of the input that survives (negative pads crop).
    int64_t srcBase = 0, dstBase = 0;
    std::vector<int64_t> dims(r);
    for (size_t i = 0; i < r; ++i) {
      const int64_t cropB = std::max<int64_t>(-p.begin[i], 0), cropE = std::max<int64_t>(-p.end[i], 0);
      dims[i] = std::max<int64_t>(in[i] - cropB - cropE, 0);
      srcBase += cropB * inStrides[i];
      dstBase += std::max<int64_t>(p.begin[i], 0) * outStrides[i];
    }
    const int64_t nCopy = TensorInfo(DataType::FLOAT, dims).nelms();
    return [=](const RunState& s) {
      auto* d = static_cast<unsigned char*>(s.slots[y]);
      for (int64_t i = 0; i < nOut; ++i) std::memcpy(d + static_cast<size_t>(i) * elem, v.data(), elem);
      if (nCopy == 0) return;
      // Copy row by row: contiguous runs along the last dim.
      std::vector<int64_t> idx(r, 0);
      const int64_t inner = r ? dims[r - 1] : 1;
      const int64_t outer = inner ? nCopy / inner : 0;
      const auto* src = static_cast<const unsigned char*>(s.slots[x]);
      for (int64_t o = 0; o < outer; ++o) {
        int64_t so = srcBase, dso = dstBase;
        for (size_t k = 0; k + 1 < r; ++k) {
          so += idx[k] * inStrides[k];
          dso += idx[k] * outStrides[k];
        }
        std::memcpy(d + static_cast<size_t>(dso) * elem, src + static_cast<size_t>(so) * elem,
                    static_cast<size_t>(inner) * elem);
        for (size_t k = r - 1; k-- > 0;) {
          if (++idx[k] < dims[k]) break;
          idx[k] = 0;
        }
      }
    };
  }
  const bool reflect = p.mode == "reflect";
  return [=](const RunState& s) {
    auto* d = static_cast<unsigned char*>(s.slots[y]);
    const auto* src = static_cast<const unsigned char*>(s.slots[x]);
    std::vector<int64_t> idx(r, 0);
    for (int64_t o = 0; o < nOut; ++o) {
      int64_t off = 0;
      for (size_t k = 0; k < r; ++k) {
        int64_t i = idx[k] - p.begin[k];
        const int64_t n = in[k];
        if (reflect) {
          if (n == 1)
            i = 0;
          else {
            const int64_t period = 2 * (n - 1);
            i = ((i % period) + period) % period;
            if (i >= n) i = period - i;
          }
        } else {
          i = std::clamp<int64_t>(i, 0, n - 1);
        }
        off += i * inStrides[k];
      }
      std::memcpy(d + static_cast<size_t>(o) * elem, src + static_cast<size_t>(off) * elem, elem);
      for (size_t k = r; k-- > 0;) {
        if (++idx[k] < out[k]) break;
        idx[k] = 0;
      }
    }
  };
}

KernelFn makeCpuKernel_ShapeOp(const Op& op, KernelContext& kc) {
  const Shape& in = op.inShape(0);
  const int64_t r = static_cast<int64_t>(in.size());
  int64_t start = op.attrs.getInt("start", 0), end = op.attrs.getInt("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  const std::vector<int64_t> v(in.begin() + start, in.begin() + std::max(start, end));
  const int y = kc.out(0);
  return [=](const RunState& s) {
    if (!v.empty()) std::memcpy(s.slots[y], v.data(), v.size() * sizeof(int64_t));
  };
}

KernelFn makeCpuKernel_Size(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const int y = kc.out(0);
  return [=](const RunState& s) { *outPtr<int64_t>(s, y) = n; };
}

namespace {

// Cast to or from STRING (kernels/cast_text.hpp).
KernelFn castStringKernel(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const int x = kc.in(0), y = kc.out(0);
  const DataType from = op.inType(0), to = op.outInfo(0).dataType();
  if (from == DataType::STRING && to == DataType::STRING) {
    return [=](const RunState& s) {
      std::copy(inPtr<std::string>(s, x), inPtr<std::string>(s, x) + n, outPtr<std::string>(s, y));
    };
  }
  if (to == DataType::STRING) {
    return dispatchAll(from, [&](auto tag) -> KernelFn {
      using S = decltype(tag);
      return [=](const RunState& s) {
        const S* a = inPtr<S>(s, x);
        std::string* b = outPtr<std::string>(s, y);
        for (int64_t i = 0; i < n; ++i) b[i] = cast_text::format(a[i]);
      };
    });
  }
  const std::string where = op.describe();
  return dispatchAll(to, [&](auto tag) -> KernelFn {
    using D = decltype(tag);
    return [=](const RunState& s) {
      const std::string* a = inPtr<std::string>(s, x);
      D* b = outPtr<D>(s, y);
      for (int64_t i = 0; i < n; ++i) {
        if (!cast_text::parse(a[i], b[i]))
          throw error("{}: element {} of the input is '{}', which is not a number", where, i, a[i]);
      }
    };
  });
}

}  // namespace

KernelFn makeCpuKernel_Cast(const Op& op, KernelContext& kc) {
  if (op.inType(0) == DataType::STRING || op.outInfo(0).dataType() == DataType::STRING) return castStringKernel(op, kc);
  const int64_t n = op.inInfo(0).nelms();
  const int x = kc.in(0), y = kc.out(0);
  return dispatchAll(op.inType(0), [&](auto st) -> KernelFn {
    using S = decltype(st);
    return dispatchAll(op.outInfo(0).dataType(), [&](auto dt) -> KernelFn {
      using D = decltype(dt);
      return [=](const RunState& s) {
        const S* a = inPtr<S>(s, x);
        D* b = outPtr<D>(s, y);
        for (int64_t i = 0; i < n; ++i) {
          const auto v = static_cast<compute_t<S>>(a[i]);
          if constexpr (std::is_same_v<D, bool>) {
            b[i] = v != 0;
          } else if constexpr (std::is_same_v<D, bfloat16_t>) {
            // ONNX Cast (opsets 13-18) to BFLOAT16 keeps the top 16 bits of the float (the
            // reference data truncates); NaN stays NaN.
            const float f = static_cast<float>(v);
            uint32_t bits;
            std::memcpy(&bits, &f, 4);
            b[i].bits = static_cast<uint16_t>(std::isnan(f) ? 0x7fc0u : bits >> 16);
          } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<compute_t<S>>) {
            // Out of range saturates (a plain cast would be undefined); NaN and inf give 0.
            b[i] = std::isfinite(v) ? saturatingCast<D>(v) : D(0);
          } else {
            b[i] = static_cast<D>(static_cast<compute_t<D>>(v));
          }
        }
      };
    });
  });
}

KernelFn makeCpuKernel_CastLike(const Op& op, KernelContext& kc) {
  return makeCpuKernel_Cast(op, kc);
}

KernelFn makeCpuKernel_Constant(const Op& op, KernelContext& kc) {
  const auto& a = op.attrs;
  TensorData value;
  if (a.has("value"))
    value = a.getTensor("value");
  else if (a.has("value_float"))
    value = TensorData::fromVector(std::vector<float>{a.getFloat("value_float")}, {});
  else if (a.has("value_floats")) {
    auto v = a.getFloats("value_floats");
    value = TensorData::fromVector(v, {static_cast<int64_t>(v.size())});
  } else if (a.has("value_int"))
    value = TensorData::scalarInt64(a.getInt("value_int"));
  else if (a.has("value_ints")) {
    auto v = a.getInts("value_ints");
    value = TensorData::fromVector(v, {static_cast<int64_t>(v.size())});
  } else {
    throw error("{}: this Constant form is not supported by the CPU backend", op.describe());
  }
  if (value.info().dataType() == DataType::STRING)
    throw error("{}: STRING constants are not supported by the CPU backend", op.describe());
  const int y = kc.out(0);
  auto shared = std::make_shared<TensorData>(std::move(value));
  return [=](const RunState& s) {
    if (shared->nbytes()) std::memcpy(s.slots[y], shared->data(), static_cast<size_t>(shared->nbytes()));
  };
}

KernelFn makeCpuKernel_ConstantOfShape(const Op& op, KernelContext& kc) {
  TensorData value =
      op.attrs.has("value") ? op.attrs.getTensor("value") : TensorData::fromVector(std::vector<float>{0.0f}, {1});
  return fillKernel(op, kc, value);
}

KernelFn makeCpuKernel_Range(const Op& op, KernelContext& kc) {
  const int a = kc.in(0), d = kc.in(2), y = kc.out(0);
  const int64_t n = op.outInfo(0).nelms();
  return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using CT = compute_t<T>;
    return [=](const RunState& s) {
      const CT start = static_cast<CT>(*inPtr<T>(s, a)), delta = static_cast<CT>(*inPtr<T>(s, d));
      T* out = outPtr<T>(s, y);
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<CT>) {  // wraps at the type's edge instead of overflowing
          out[i] =
              static_cast<T>(static_cast<uint64_t>(start) + static_cast<uint64_t>(i) * static_cast<uint64_t>(delta));
        } else {
          out[i] = static_cast<T>(static_cast<CT>(start + static_cast<CT>(i) * delta));
        }
      }
    };
  });
}

}  // namespace cpu
}  // namespace popart
