// PopART's InPlace pattern: ops that may write their output over an input do so where no other
// reader needs that input afterwards; the CPU backend's memory plan then gives the output no
// buffer of its own (docs/patterns.md).
#pragma once

#include <string>

namespace popart {

class Ir;
class Op;
class Tensor;

/// The node annotation InPlace sets: the index of the input the op overwrites.
inline constexpr const char* sInplaceInputAttribute = "__inplace";

/// Marks in-place every op that may overwrite an input safely (main graph, after the schedule is
/// made; adds scheduling constraints so that every other reader of the overwritten buffer runs
/// first). Honours Patterns InPlace, Builder::excludePatterns and Builder::setInplacePreferences
/// (a priority <= 0 vetoes that variant). Returns how many ops were made in-place.
int applyInplace(Ir& ir);

/// The op type PopART shows for an op: "ReluInplace", "AddLhsInplace", ... once InPlace made it
/// in-place, else its type.
std::string irOpType(const Op& op);

/// The tensor whose buffer `t` shares, or nullptr: the input of a view (Reshape, Identity,
/// Flatten, Squeeze, Unsqueeze, Detach of the same bytes) or the input an in-place op overwrote.
/// The CPU backend's memory plan and the IPU model follow this rule.
const Tensor* aliasSource(const Tensor* t);

}  // namespace popart
