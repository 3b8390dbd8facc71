// The prepare pipeline: from a model to a scheduled IR ready for lowering by a backend.
#pragma once

#include "ir/ir.hpp"

namespace popart {
namespace passes {

/// Imports the bundle's model into `ir` (Ir::load), adds the training graph (autodiff and the
/// optimizer's weight updates) for a training IR, validates the anchors, applies the patterns,
/// prunes and schedules.
void prepare(Ir& ir, const IrBundle& bundle);

}  // namespace passes
}  // namespace popart
