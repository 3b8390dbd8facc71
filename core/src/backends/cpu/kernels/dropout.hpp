// Dropout's decision at run time, made alike by its kernel (norm.cpp) and its gradient's
// (grad_nn.cpp).
#pragma once

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"

namespace popart {
namespace cpu {

struct DropoutRatio {
  double attrRatio;   // the ratio when no ratio input is given
  bool attrTraining;  // whether to drop when no training-mode input is given
  int ratioIn = -1;   // the slot of the optional ratio input (a floating-point scalar)
  DataType ratioType = DataType::FLOAT;
  int trainIn = -1;  // the slot of the optional training-mode input (a bool scalar)

  /// The fraction of elements dropped; 0 when not training (the op is then the identity).
  double get(const RunState& s) const {
    const bool training = trainIn >= 0 ? *inPtr<bool>(s, trainIn) : attrTraining;
    if (!training) return 0.0;
    if (ratioIn < 0) return attrRatio;
    return dispatchFloat(ratioType, [&](auto rt) {
      using R = decltype(rt);
      return static_cast<double>(static_cast<compute_t<R>>(*inPtr<R>(s, ratioIn)));
    });
  }
};

}  // namespace cpu
}  // namespace popart
