// Recomputation (PopART's SessionOptions.autoRecomputation and Builder.recomputeOutputInBackwardPass):
// forward activations that the backward pass reads are computed a second time in the backward pass
// instead of being kept alive from the forward pass.
//
// Two steps, both on the main graph of a training Ir after autodiff, the patterns and pruning:
//  1. annotateRecomputation: every forward op (an op on a path to the loss) gets a RecomputeType
//     in its `__recompute_output_in_backward_pass` attribute (the Builder's, so _serializeIr's
//     "recompute" setting shows it) from autoRecomputation: Standard, NormOnly, RecomputeAll or
//     Pipeline, as PopART's recompute::autoAnnotate and Pipeline::setFinalFwdStageRecomputation
//     choose them. Ops the user marked keep their mark.
//  2. applyRecomputation: every op marked Recompute whose outputs a backward op reads is cloned
//     (the clone reads checkpoints, or the clones of recomputed producers); the backward readers
//     read the clone, so the forward outputs die after their last forward reader. The clones run
//     in the backward pass just before their first use (`Op::after` constraints on the backward
//     ops that come before it), with the same kernels on the same values: outputs and weight
//     updates are bit-identical to a run without recomputation.
#pragma once

#include "popart/names.hpp"

namespace popart {

class Ir;

/// Step 1 (see above). Throws PopART's errors for autoRecomputation Pipeline without pipelining.
void annotateRecomputation(Ir& ir, const TensorId& loss);

/// Step 2 (see above): returns the number of clones added (0: nothing is recomputed).
int applyRecomputation(Ir& ir, const TensorId& loss);

}  // namespace popart
