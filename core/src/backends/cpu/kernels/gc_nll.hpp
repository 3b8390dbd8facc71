// Graphcore Nll as its kernel (losses.cpp) and its gradient's (grad.cpp) read it: probabilities
// [S.., C] at input 0, integer labels [S..] at input 1.
#pragma once

#include <string>
#include <type_traits>

#include "backends/cpu/kernel.hpp"
#include "ops/losses.hpp"

namespace popart {
namespace cpu {

struct GcNllArgs {
  int64_t C, S;  // classes, samples
  ReductionType red;
  bool hasIgnore;
  int64_t ignore;
  bool logProb;
  DataType labelType;
  int labels;  // the slot of the labels
  std::string where;

  GcNllArgs(const Op& op, KernelContext& kc)
      : C(op.inShape(0).back()),
        S(C ? op.inInfo(0).nelms() / C : 0),
        red(ops::lossReduction(op)),
        hasIgnore(op.attrs.has("ignoreIndex")),
        ignore(op.attrs.getInt("ignoreIndex", -1)),
        logProb(op.attrs.getInt("inputIsLogProbability", 0) != 0),
        labelType(op.inType(1)),
        labels(kc.in(1)),
        where(op.describe()) {}

  /// The smallest probability taken as non-zero for element type T.
  template <typename T>
  static constexpr double eps() {
    return std::is_same_v<T, float16_t> ? 6.104e-5 : 1e-7;
  }

  /// The label of sample i as stored.
  int64_t label(const RunState& s, int64_t i) const {
    return labelType == DataType::INT64    ? inPtr<int64_t>(s, labels)[i]
           : labelType == DataType::UINT32 ? static_cast<int64_t>(inPtr<uint32_t>(s, labels)[i])
                                           : inPtr<int32_t>(s, labels)[i];
  }
  bool ignored(int64_t c) const { return hasIgnore && c == ignore; }
  /// The factor of the incoming gradient: 1 / (samples not ignored) for Mean (0 if none), else 1.
  double gradScale(const RunState& s) const {
    if (red != ReductionType::Mean) return 1.0;
    int64_t counted = 0;
    for (int64_t i = 0; i < S; ++i) counted += !ignored(label(s, i));
    return counted ? 1.0 / static_cast<double>(counted) : 0.0;
  }
  /// f(i, label) for each sample i whose label is not ignored; throws for a label that is not a class.
  template <typename F>
  void forEachLabelled(const RunState& s, F f) const {
    for (int64_t i = 0; i < S; ++i) {
      const int64_t c = label(s, i);
      if (ignored(c)) continue;
      if (c < 0 || c >= C) throw error("{}: label {} of sample {} is out of range for {} classes", where, c, i, C);
      f(i, c);
    }
  }
};

}  // namespace cpu
}  // namespace popart
