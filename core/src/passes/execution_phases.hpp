// Phased execution (VirtualGraphMode::ExecutionPhases with executionPhaseSettings.phases > 1), as
// PopART's StreamingMemory transform places it: every op of the main graph gets an execution
// phase (`__execution_phase`) and the virtual graph phase % stages (`__ipu_number`); the phases
// run one after another (Graph::topologicalOrder), and the tensors whose location is OffChip live
// in streaming memory, in an IPU's tiles only during the phases that use them (the IPU model
// counts that, docs/ipu-model.md "Execution phases").
#pragma once

namespace popart {

class Ir;
class Tensor;

namespace passes {

/// Before autodiff: the forward ops without an executionPhase annotation get one by PopART's
/// greedy split (in schedule order, about the same weight bytes per phase); then no op runs in an
/// earlier phase than the producers of its inputs. The gradient ops built from them take the
/// mirrored phase 2 * phases - 2 - p (ir/placement.hpp). Without phased execution, removes every
/// op's phase annotation (as PopART does).
void assignForwardPhases(Ir& ir);

/// After autodiff, the patterns and recomputation: every op still without a phase (the IR's own:
/// gradient sums, weight updates) takes the latest phase among the producers of its inputs, else
/// among the other readers of its inputs, else the earliest among its consumers, and no op runs
/// before its producers. PopART's "[StreamingMemory] Could not determine execution phase for ..."
/// when some op has none of these.
void placeRemainingPhases(Ir& ir);

/// Whether `t` lives in streaming memory under phased execution: the TensorLocationSettings of its
/// class (weightTensorLocationSettings for the model's weights, optimizerStateTensorLocationSettings
/// for optimizer state, accumulatorTensorLocationSettings for gradient accumulators,
/// activationTensorLocationSettings for activations) say OffChip and it has at least that
/// setting's minElementsForOffChip elements. Constants and streamed inputs stay on chip.
bool isOffChip(const Ir& ir, const Tensor& t);

}  // namespace passes
}  // namespace popart
