// Graph-editing helpers shared by the patterns (patterns/*.cpp).
#pragma once

#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace popart {
namespace patterns {

/// Whether two ops have the same IPU placement (virtualGraph and pipelineStage annotations): a
/// rewrite never merges or swaps ops of different IPUs or stages.
bool samePlacement(const Op& a, const Op& b);

/// An anchor or a graph output: its value must survive the rewrite under its own id.
bool isKept(const Ir& ir, const Tensor* t);

/// Consumers of `from` read `to` instead.
void rewire(Tensor* from, Tensor* to);

/// Whether `pattern` may rewrite `op`: enabled in the session's Patterns and not excluded on the
/// node (Builder::excludePatterns, the node attribute __exclude_patterns).
bool applies(const Ir& ir, const Op& op, const std::string& pattern);

/// The only consumer of `t` (nullptr if it has none, several, or reads it at several inputs).
Op* soleConsumer(const Tensor* t);

/// Replaces `old` by a new op of `kind` (ONNX ops at `opset`) with the same name, reading `inputs`
/// (nullptr: an absent optional input) and writing `outputs` (none given: the old op's, those the
/// new op has). The new op gets `attrs` plus the old op's placement and other "__" annotations; it
/// is set up before returning.
Op& replaceOp(Graph& g, Op* old, OpKind kind, int opset, const Attributes& attrs, const std::vector<Tensor*>& inputs,
              const std::vector<Tensor*>& outputs = {});

/// A new constant tensor in `g` named after `base`.
Tensor* addConst(Graph& g, const std::string& base, const TensorData& data);

/// Keeps each weight update (an op with a side effect whose input 0 is a Variable) after every
/// other reader of that weight: rewrites replace readers the training graph ordered the update
/// after (a Split by Slices, an Identity by its consumers, ...).
void keepUpdatesAfterReaders(Graph& g);

}  // namespace patterns
}  // namespace popart
