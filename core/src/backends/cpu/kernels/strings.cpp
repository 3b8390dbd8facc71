// CPU kernels of the strings family.
#include "backends/cpu/kernel.hpp"
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

}  // namespace cpu
}  // namespace popart
