// Graphcore's MultiConv: N independent convolutions in one node. Its inputs are
// x0, w0, b0, x1, w1, b1, ... (an absent bias is ""), its window attributes are the convolutions'
// lists concatenated (PopART's MultiConvBaseOp), split back here by each convolution's spatial
// rank. Shared by shape inference, the gradient rule, the CPU kernel and the IPU model.
#pragma once

#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// One convolution of a MultiConv, its attribute lists unpacked and defaulted.
struct MultiConvPart {
  int x = 0, w = 1, b = -1;                                             ///< input indices (b = -1: no bias)
  int64_t group = 1;                                                    ///< C / W[1] (PopART infers it from the shapes)
  std::vector<int64_t> strides, pads, dilations, inDilations, outPads;  ///< pads / outPads: 2 n
  Shape dilatedIn;     ///< X's shape with the input dilations applied (what the Conv reads)
  Shape convOut;       ///< the Conv's output, before the output padding
  Shape out;           ///< the output: convOut with outPads added
  bool plain() const;  ///< no input dilation and no output padding: a plain Conv
};

/// The number of convolutions (attribute numConvs, 1 by default) and each one's parameters;
/// throws PopART's error sentences (then the shapes) for lists that do not unpack or windows
/// that do not fit.
std::vector<MultiConvPart> multiConvParts(const Op& op);

}  // namespace ops
}  // namespace popart
