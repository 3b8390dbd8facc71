// CPU kernels of the linalg family: Einsum and Det.
//
// Einsum: a two-operand contraction in FLOAT or DOUBLE whose every summed label is in both
// operands is one batched GEMM (operands packed to [batch, M, K] and [batch, K, N] by strided
// copies, the product permuted into the output). Anything else (one operand, three or more,
// labels summed within one operand, other types) runs a direct loop over all labels with per-label
// strides, accumulating in double (or the integer type).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/gemm.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/strided.hpp"
#include "common/checked_size.hpp"
#include "ops/linalg_params.hpp"

namespace popart {
namespace cpu {
namespace {

using ops::EinsumPlan;

int64_t product(const std::vector<int64_t>& v, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t p = 1;
  for (size_t i = from; i < std::min(to, v.size()); ++i) p *= v[i];
  return p;
}

template <typename T>
KernelFn einsumDirect(const EinsumPlan& plan, const std::vector<int>& ins, int y) {
  using C = compute_t<T>;
  using A = std::conditional_t<std::is_floating_point_v<C>, double, C>;
  const size_t L = plan.sizes.size(), R = static_cast<size_t>(plan.outRank), n = ins.size();
  const int64_t outCount = product(plan.sizes, 0, R), sumCount = product(plan.sizes, R);
  return [=](const RunState& s) {
    std::vector<const T*> in(n);
    for (size_t k = 0; k < n; ++k) in[k] = inPtr<T>(s, ins[k]);
    T* out = outPtr<T>(s, y);
    std::vector<int64_t> idx(L, 0), base(n, 0), off(n, 0);
    for (int64_t o = 0; o < outCount; ++o) {
      A acc = A(0);
      if (sumCount > 0) {
        for (size_t k = 0; k < n; ++k) off[k] = base[k];
        for (size_t l = R; l < L; ++l) idx[l] = 0;
        for (int64_t c = 0; c < sumCount; ++c) {
          A prod = A(1);
          for (size_t k = 0; k < n; ++k) prod *= static_cast<A>(static_cast<C>(in[k][off[k]]));
          acc += prod;
          for (size_t l = L; l-- > R;) {  // odometer over the summed labels
            for (size_t k = 0; k < n; ++k) off[k] += plan.strides[k][l];
            if (++idx[l] < plan.sizes[l]) break;
            for (size_t k = 0; k < n; ++k) off[k] -= plan.sizes[l] * plan.strides[k][l];
            idx[l] = 0;
          }
        }
      }
      out[o] = static_cast<T>(static_cast<C>(acc));
      for (size_t l = R; l-- > 0;) {  // odometer over the output labels
        for (size_t k = 0; k < n; ++k) base[k] += plan.strides[k][l];
        if (++idx[l] < plan.sizes[l]) break;
        for (size_t k = 0; k < n; ++k) base[k] -= plan.sizes[l] * plan.strides[k][l];
        idx[l] = 0;
      }
    }
  };
}

/// The batched-GEMM form of a two-operand contraction, or nullptr when a label is summed within
/// one operand only.
template <typename T>
KernelFn einsumGemm(const EinsumPlan& plan, const std::vector<int>& ins, int y, KernelContext& kc) {
  const size_t L = plan.sizes.size(), R = static_cast<size_t>(plan.outRank);
  std::vector<size_t> batch, m, nn, k;
  for (size_t l = 0; l < L; ++l) {
    const bool a = plan.present[0][l], b = plan.present[1][l], o = l < R;
    if (a && b) {
      (o ? batch : k).push_back(l);
    } else if (o) {
      (a ? m : nn).push_back(l);
    } else {
      return nullptr;
    }
  }
  auto dimsOf = [&](std::initializer_list<const std::vector<size_t>*> groups, std::vector<int64_t>* aStrides,
                    std::vector<int64_t>* bStrides) {
    std::vector<int64_t> dims;
    for (const auto* g : groups) {
      for (size_t l : *g) {
        dims.push_back(plan.sizes[l]);
        if (aStrides) aStrides->push_back(plan.strides[0][l]);
        if (bStrides) bStrides->push_back(plan.strides[1][l]);
      }
    }
    return dims;
  };
  auto sizeOf = [&](const std::vector<size_t>& g) {
    int64_t p = 1;
    for (size_t l : g) p *= plan.sizes[l];
    return p;
  };
  const int64_t Bt = sizeOf(batch), M = sizeOf(m), N = sizeOf(nn), K = sizeOf(k);
  std::vector<int64_t> aStrides, bStrides;
  const std::vector<int64_t> aDims = dimsOf({&batch, &m, &k}, &aStrides, nullptr);
  const std::vector<int64_t> bDims = dimsOf({&batch, &k, &nn}, nullptr, &bStrides);
  // Strides of the product [batch..., m..., n...] per label, read in output order.
  const std::vector<int64_t> cDims = dimsOf({&batch, &m, &nn}, nullptr, nullptr);
  const std::vector<int64_t> cRowMajor = rowMajorStrides(cDims);
  std::vector<int64_t> cStrideOfLabel(L, 0);
  {
    size_t i = 0;
    for (const auto* g : {&batch, &m, &nn}) {
      for (size_t l : *g) cStrideOfLabel[l] = cRowMajor[i++];
    }
  }
  std::vector<int64_t> outSrcStrides(cStrideOfLabel.begin(), cStrideOfLabel.begin() + static_cast<int64_t>(R));
  const Shape outShape = plan.outShape;
  const int64_t aElems = Bt * M * K, bElems = Bt * K * N, cElems = Bt * M * N;
  kc.needScratch(checkedProduct({aElems + bElems + cElems, static_cast<int64_t>(sizeof(T))}));
  const int x0 = ins[0], x1 = ins[1];
  return [=](const RunState& s) {
    T* a = reinterpret_cast<T*>(s.scratch);
    T* b = a + aElems;
    T* c = b + bElems;
    stridedCopy(inPtr<T>(s, x0), aStrides, a, aDims, sizeof(T));
    stridedCopy(inPtr<T>(s, x1), bStrides, b, bDims, sizeof(T));
    for (int64_t i = 0; i < Bt; ++i)
      gemm(false, false, M, N, K, T(1), a + i * M * K, K, b + i * K * N, N, T(0), c + i * M * N, N);
    stridedCopy(c, outSrcStrides, outPtr<T>(s, y), outShape, sizeof(T));
  };
}

}  // namespace

KernelFn makeCpuKernel_Einsum(const Op& op, KernelContext& kc) {
  std::vector<Shape> shapes;
  std::vector<int> ins;
  for (int i = 0; i < op.numInputs(); ++i) {
    shapes.push_back(op.inShape(i));
    ins.push_back(kc.in(i));
  }
  const EinsumPlan plan = ops::einsumPlan(op.attrs.getString("equation"), shapes);
  const int y = kc.out(0);
  const DataType t = op.inType(0);
  if (ins.size() == 2 && (t == DataType::FLOAT || t == DataType::DOUBLE)) {
    KernelFn f = t == DataType::FLOAT ? einsumGemm<float>(plan, ins, y, kc) : einsumGemm<double>(plan, ins, y, kc);
    if (f) return f;
  }
  return dispatchNumeric(t, [&](auto tag) -> KernelFn { return einsumDirect<decltype(tag)>(plan, ins, y); });
}

namespace {

/// The determinant of the n x n matrix `a` (destroyed) by LU with partial pivoting.
double luDeterminant(double* a, int64_t n) {
  double det = 1;
  for (int64_t col = 0; col < n; ++col) {
    int64_t piv = col;
    for (int64_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r * n + col]) > std::abs(a[piv * n + col])) piv = r;
    }
    if (a[piv * n + col] == 0) return 0;
    if (piv != col) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[piv * n + j], a[col * n + j]);
      det = -det;
    }
    const double d = a[col * n + col];
    det *= d;
    for (int64_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / d;
      if (f == 0) continue;
      for (int64_t j = col + 1; j < n; ++j) a[r * n + j] -= f * a[col * n + j];
    }
  }
  return det;
}

/// The cofactor matrix of the n x n matrix `m` into `cof`: det * inverse^T by Gauss-Jordan when
/// `m` is invertible, else the signed determinants of the minors (singular matrices have a
/// non-zero cofactor matrix up to rank n - 1). `work` holds 3 n^2 doubles.
void cofactors(const double* m, int64_t n, double* cof, double* work) {
  double* aug = work;            // [n, 2n]: m | identity, reduced to identity | inverse
  double* a = work + 2 * n * n;  // a minor
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      aug[i * 2 * n + j] = m[i * n + j];
      aug[i * 2 * n + n + j] = i == j ? 1 : 0;
    }
  }
  double det = 1;
  bool singular = false;
  for (int64_t col = 0; col < n && !singular; ++col) {
    int64_t piv = col;
    for (int64_t r = col + 1; r < n; ++r) {
      if (std::abs(aug[r * 2 * n + col]) > std::abs(aug[piv * 2 * n + col])) piv = r;
    }
    const double p = aug[piv * 2 * n + col];
    if (p == 0) {
      singular = true;
      break;
    }
    if (piv != col) {
      for (int64_t j = 0; j < 2 * n; ++j) std::swap(aug[piv * 2 * n + j], aug[col * 2 * n + j]);
      det = -det;
    }
    det *= p;
    for (int64_t j = 0; j < 2 * n; ++j) aug[col * 2 * n + j] /= p;
    for (int64_t r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = aug[r * 2 * n + col];
      if (f == 0) continue;
      for (int64_t j = 0; j < 2 * n; ++j) aug[r * 2 * n + j] -= f * aug[col * 2 * n + j];
    }
  }
  if (!singular) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) cof[i * n + j] = det * aug[j * 2 * n + n + i];
    }
    return;
  }
  const int64_t k = n - 1;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t at = 0;
      for (int64_t r = 0; r < n; ++r) {
        if (r == i) continue;
        for (int64_t q = 0; q < n; ++q) {
          if (q != j) a[at++] = m[r * n + q];
        }
      }
      const double minor = k == 0 ? 1.0 : luDeterminant(a, k);
      cof[i * n + j] = ((i + j) % 2 ? -1.0 : 1.0) * minor;
    }
  }
}

}  // namespace

/// dA = dY * cofactors(A), per matrix, in double.
KernelFn makeCpuKernel_DetGrad(const Op& op, KernelContext& kc) {
  const Shape& x = op.inShape(1);
  const int64_t n = x.back();
  const int64_t mats = op.inInfo(0).nelms();
  kc.needScratch(checkedProduct({5, n, n, static_cast<int64_t>(sizeof(double))}));
  const int gs = kc.in(0), as = kc.in(1), y = kc.out(0);
  return dispatchFloat(op.inType(1), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* g = inPtr<T>(s, gs);
      const T* in = inPtr<T>(s, as);
      T* out = outPtr<T>(s, y);
      double* m = reinterpret_cast<double*>(s.scratch);
      double* cof = m + n * n;
      double* work = cof + n * n;
      for (int64_t k = 0; k < mats; ++k) {
        for (int64_t i = 0; i < n * n; ++i) m[i] = static_cast<double>(static_cast<C>(in[k * n * n + i]));
        cofactors(m, n, cof, work);
        const double gk = static_cast<double>(static_cast<C>(g[k]));
        for (int64_t i = 0; i < n * n; ++i) out[k * n * n + i] = static_cast<T>(static_cast<C>(gk * cof[i]));
      }
    };
  });
}

KernelFn makeCpuKernel_Det(const Op& op, KernelContext& kc) {
  const Shape& x = op.inShape(0);
  const int64_t n = x.back();
  const int64_t mats = n != 0 ? op.inInfo(0).nelms() / (n * n) : op.outInfo(0).nelms();
  kc.needScratch(checkedProduct({n, n, static_cast<int64_t>(sizeof(double))}));
  const int xs = kc.in(0), y = kc.out(0);
  return dispatchFloat(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    using C = compute_t<T>;
    return [=](const RunState& s) {
      const T* in = inPtr<T>(s, xs);
      T* out = outPtr<T>(s, y);
      double* a = reinterpret_cast<double*>(s.scratch);
      for (int64_t m = 0; m < mats; ++m) {
        for (int64_t i = 0; i < n * n; ++i) a[i] = static_cast<double>(static_cast<C>(in[m * n * n + i]));
        // LU decomposition with partial pivoting: det = sign * prod(diagonal).
        double det = 1;
        for (int64_t col = 0; col < n && det != 0; ++col) {
          int64_t piv = col;
          for (int64_t r = col + 1; r < n; ++r) {
            if (std::abs(a[r * n + col]) > std::abs(a[piv * n + col])) piv = r;
          }
          if (a[piv * n + col] == 0) {
            det = 0;
            break;
          }
          if (piv != col) {
            for (int64_t j = 0; j < n; ++j) std::swap(a[piv * n + j], a[col * n + j]);
            det = -det;
          }
          const double d = a[col * n + col];
          det *= d;
          for (int64_t r = col + 1; r < n; ++r) {
            const double f = a[r * n + col] / d;
            if (f == 0) continue;
            for (int64_t j = col + 1; j < n; ++j) a[r * n + j] -= f * a[col * n + j];
          }
        }
        out[m] = static_cast<T>(static_cast<C>(det));
      }
    };
  });
}

}  // namespace cpu
}  // namespace popart
