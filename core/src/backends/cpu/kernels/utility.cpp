// CPU kernels of the utility family: Init, PrintTensor, Abort, TensorRemap, CopyVarUpdate.
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace cpu {

KernelFn copyKernel(const Op& op, KernelContext& kc) {
  const int x = kc.in(0), y = kc.out(0);
  const size_t bytes = static_cast<size_t>(op.inInfo(0).nbytes());
  return [=](const RunState& s) {
    if (s.slots[x] != s.slots[y]) std::memcpy(s.slots[y], s.slots[x], bytes);
  };
}

namespace {

/// Tensors with more elements than this are summarised: `kEdgeItems` values at each end of every
/// dimension, "..." between (PopART's printtensor defaults).
constexpr int64_t kSummariseThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

template <typename T>
void appendValue(std::ostringstream& os, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? 1 : 0);
  } else if constexpr (std::is_integral_v<T>) {
    os << static_cast<long long>(v);  // int8 / uint8 as numbers, not characters
  } else {
    os << static_cast<double>(static_cast<compute_t<T>>(v));
  }
}

/// Poplar's layout: "{1,2,3}" per dimension, nested ("{{1,2},{3,4}}"); a scalar is its value.
template <typename T>
void appendDims(std::ostringstream& os, const T* p, const Shape& shape, size_t d, bool summarise) {
  if (d == shape.size()) {
    appendValue(os, *p);
    return;
  }
  int64_t inner = 1;
  for (size_t i = d + 1; i < shape.size(); ++i) inner *= shape[i];
  const int64_t n = shape[d];
  os << '{';
  for (int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * kEdgeItems && i == kEdgeItems) {
      os << ",...";
      i = n - kEdgeItems - 1;
      continue;
    }
    if (i > 0) os << ',';
    appendDims(os, p + i * inner, shape, d + 1, summarise);
  }
  os << '}';
}

}  // namespace

KernelFn makeCpuKernel_GcInit(const Op& op, KernelContext& kc) {
  const int y = kc.out(0);
  const size_t bytes = static_cast<size_t>(op.outInfo(0).nbytes());
  return [=](const RunState& s) { std::memset(s.slots[y], 0, bytes); };
}

/// PrintTensor: y = x, and "title: values" to the log destination (logging::print).
KernelFn makeCpuKernel_GcPrintTensor(const Op& op, KernelContext& kc) {
  std::string title = op.attrs.getString("title", "");
  if (title.empty()) title = op.input(0)->id;
  const Shape shape = op.inShape(0);
  const bool summarise = op.inInfo(0).nelms() > kSummariseThreshold;
  const KernelFn copy = copyKernel(op, kc);
  const int x = kc.in(0);
  return dispatchAll(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      std::ostringstream os;
      os << title << ": ";
      appendDims(os, inPtr<T>(s, x), shape, 0, summarise);
      logging::print(os.str());
      copy(s);
    };
  });
}

/// Abort: raises poplar_runtime_error ("Abort Program ...") unconditionally, or when the condition
/// is nonzero.
KernelFn makeCpuKernel_GcAbort(const Op& op, KernelContext& kc) {
  const std::string where = op.describe();
  if (!op.hasInput(0)) {
    return [where](const RunState&) {
      throw poplar_runtime_error("Abort Program: the run reached the unconditional abort {}", where);
    };
  }
  const std::string cond = op.input(0)->id;
  const int c = kc.in(0);
  return dispatchAll(op.inType(0), [&](auto tag) -> KernelFn {
    using T = decltype(tag);
    return [=](const RunState& s) {
      if (static_cast<compute_t<T>>(*inPtr<T>(s, c)) != compute_t<T>(0))
        throw poplar_runtime_error("Abort Program: the condition '{}' of {} is nonzero", cond, where);
    };
  });
}

KernelFn makeCpuKernel_GcTensorRemap(const Op& op, KernelContext& kc) {
  return copyKernel(op, kc);
}

/// CopyVarUpdate: the variable and the output take the updater's value.
KernelFn makeCpuKernel_GcCopyVarUpdate(const Op& op, KernelContext& kc) {
  if (op.input(0)->kind != TensorKind::Variable)
    throw error(
        "copyvarupdate writes '{}', which is not a variable: it must be a floating-point initializer "
        "(addInitializedInputTensor; in an InferenceSession also SessionOptions.constantWeights = false)",
        op.input(0)->id);
  const int var = kc.in(0), value = kc.in(1), y = kc.out(0);
  const size_t bytes = static_cast<size_t>(op.inInfo(0).nbytes());
  return [=](const RunState& s) {
    if (s.slots[var] != s.slots[value]) std::memcpy(s.slots[var], s.slots[value], bytes);
    if (y >= 0 && s.slots[y] != s.slots[value]) std::memcpy(s.slots[y], s.slots[value], bytes);
  };
}

}  // namespace cpu
}  // namespace popart
