// Appending the pre-1.2 loss objects (popart/op/loss.hpp) to a model.
#pragma once

#include <vector>

#include "onnx.pb.h"
#include "popart/inputshapeinfo.hpp"
#include "popart/op/loss.hpp"

namespace popart {

/// Appends one ai.graphcore loss op per loss to `model` (and, with several, a Sum "finalLoss"),
/// adding graph inputs for loss inputs the model lacks (e.g. labels) from `inputShapeInfo`.
/// Returns the id of the loss to train on ("" for no losses in inference).
TensorId appendLosses(onnx::ModelProto& model, const std::vector<Loss*>& losses, const InputShapeInfo& inputShapeInfo,
                      bool forTraining);

}  // namespace popart
