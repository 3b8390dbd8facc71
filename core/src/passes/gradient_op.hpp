// ONNX's Gradient op (ai.onnx.preview.training, opset 1) in any session: each Gradient node is
// replaced, before the training graph is built, by the backward pass of the ops between the
// tensors its attribute `xs` (and `zs`) names and the tensor `y` names, built with the same grad
// rules as training (GraphEditor::backprop) and seeded with ones: for a non-scalar y the outputs
// are the gradients of the sum of y's elements. When the node's inputs are the named tensors
// themselves (the usual form) the backward pass reads the forward ops' own outputs; when other
// tensors give the values at which to differentiate, the forward ops are copied to read them.
// An x that y does not depend on gets a gradient of zeros. Control flow (If, Loop, Scan, Call) and
// ops without a grad rule on the path are errors naming the node. The forward ops stay unfolded at
// import (Ir::importNodes), so that constant inputs still have a path to differentiate.
#pragma once

namespace popart {

class Ir;

/// Replaces the Gradient ops of every graph of `ir`; returns how many.
int expandGradientOps(Ir& ir);

}  // namespace popart
