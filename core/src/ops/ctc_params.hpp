// PopART's CTC loss and CTC beam search decoder: the attributes and geometry shared by shape
// inference (ops/ctc.cpp) and the CPU kernels (backends/cpu/kernels/ctc.cpp).
#pragma once

#include <cstdint>

#include "ir/op.hpp"
#include "popart/op/loss.hpp"

namespace popart {
namespace ops {

/// Ctc / CtcGrad: logProbs [T, N, C], targets [N, S], inputLengths [N], targetLengths [N].
struct CtcParams {
  int64_t maxTime = 0, batch = 0, classes = 0, maxTarget = 0;
  int64_t blank = 0;
  ReductionType reduction = ReductionType::Mean;
  bool zeroInfinity = false;
  DataType outType = DataType::FLOAT;  ///< outDataType, or the logProbs' type
};

/// Reads and checks a Ctc (or CtcGrad) node's inputs and attributes (PopART's messages).
CtcParams ctcParams(const Op& op);

/// CtcBeamSearchDecoder: logProbs [T, N, C], dataLengths [N].
struct CtcDecoderParams {
  int64_t maxTime = 0, batch = 0, classes = 0;
  int64_t blank = 0, beamWidth = 100, topPaths = 1;
};

CtcDecoderParams ctcDecoderParams(const Op& op);

}  // namespace ops
}  // namespace popart
