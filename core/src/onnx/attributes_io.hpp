// ONNX AttributeProto <-> Attributes.
#pragma once

#include "common/attributes.hpp"
#include "onnx.pb.h"

namespace popart {

/// Parses one attribute; throws popart::error for an unsupported attribute type.
AttrValue attributeFromProto(const onnx::AttributeProto& a);
/// Parses every attribute of a node.
Attributes attributesFromNode(const onnx::NodeProto& n);

}  // namespace popart
