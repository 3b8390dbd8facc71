// Signal-processing parameters shared by the signal family's shape inference and its CPU
// kernels (window lengths, DFT and STFT geometry).
#pragma once

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// Window ops (HannWindow, HammingWindow, BlackmanWindow): the constant length (input 0).
int64_t windowLength(const Op& op);

struct DftParams {
  int64_t axis = 1;      ///< the transformed dimension of the input
  int64_t length = 0;    ///< the DFT length n (dft_length, else the axis' size)
  int64_t outLen = 0;    ///< n, or n / 2 + 1 when onesided
  bool inverse = false;  ///< inverse transform (scaled by 1 / n)
  bool complexIn = false;
};
DftParams dftParams(const Op& op);

struct StftParams {
  int64_t batch = 0, signalLength = 0;
  int64_t step = 0;    ///< frame_step
  int64_t length = 0;  ///< the DFT length (frame_length, else the window's length)
  int64_t frames = 0;
  int64_t outLen = 0;  ///< length, or length / 2 + 1 when onesided
  bool complexIn = false;
};
StftParams stftParams(const Op& op);

}  // namespace ops
}  // namespace popart
