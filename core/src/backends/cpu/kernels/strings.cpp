// CPU kernels of the strings family.
#include <algorithm>
#include <memory>

#include "backends/cpu/kernel.hpp"
#include "common/checked_size.hpp"
#include "ops/strings_params.hpp"

namespace popart {
namespace cpu {

KernelFn makeCpuKernel_StringNormalizer(const Op& op, KernelContext& kc) {
  const int64_t n = op.inInfo(0).nelms();
  const int64_t outN = op.outInfo(0).nelms();
  const int x = kc.in(0), y = kc.out(0);
  const Op* o = &op;
  return [=](const RunState& s) {
    const auto out = ops::normalizeStrings(*o, inPtr<std::string>(s, x), n);
    if (static_cast<int64_t>(out.size()) != outN)
      throw error("{}: the normalised strings changed size at run time", o->describe());
    std::string* dst = outPtr<std::string>(s, y);
    for (int64_t i = 0; i < outN; ++i) dst[i] = out[static_cast<size_t>(i)];
  };
}

KernelFn makeCpuKernel_TfIdfVectorizer(const Op& op, KernelContext& kc) {
  const auto plan = std::make_shared<const ops::TfIdfPlan>(ops::tfidfPlan(op));
  const Shape& xs = op.inShape(0);
  const int64_t rows = xs.size() == 2 ? xs[0] : 1, len = xs.back();
  const DataType t = op.inType(0);
  const int x = kc.in(0), y = kc.out(0);
  // Scratch: one row's tokens, then the pool's counts.
  kc.needScratch(scratchSum(scratchAlign(checkedProduct({len, 8})), checkedProduct({plan->numNgrams(), 8})));
  return [=](const RunState& s) {
    int64_t* tokens = reinterpret_cast<int64_t*>(s.scratch);
    int64_t* counts = reinterpret_cast<int64_t*>(s.scratch + scratchAlign(len * 8));
    float* out = outPtr<float>(s, y);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < len; ++i) {
        const int64_t at = r * len + i;
        tokens[i] = t == DataType::STRING  ? plan->tokenOf(inPtr<std::string>(s, x)[at])
                    : t == DataType::INT32 ? static_cast<int64_t>(inPtr<int32_t>(s, x)[at])
                                           : inPtr<int64_t>(s, x)[at];
      }
      std::fill(counts, counts + plan->numNgrams(), int64_t(0));
      plan->count(tokens, len, counts);
      plan->weigh(counts, out + r * plan->outSize);
    }
  };
}

}  // namespace cpu
}  // namespace popart
