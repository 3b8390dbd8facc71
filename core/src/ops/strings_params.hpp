// StringNormalizer: the normalisation, shared by shape inference and the kernel.
#pragma once

#include <string>
#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// Stop words removed, then case changed; an empty result is one empty string (ONNX's rule).
std::vector<std::string> normalizeStrings(const Op& op, const std::string* in, int64_t n);

}  // namespace ops
}  // namespace popart
