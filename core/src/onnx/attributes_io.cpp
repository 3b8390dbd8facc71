#include "onnx/attributes_io.hpp"

#include "onnx/model_io.hpp"
#include "popart/error.hpp"

namespace popart {

AttrValue attributeFromProto(const onnx::AttributeProto& a) {
  using AP = onnx::AttributeProto;
  AP::AttributeType t = a.type();
  if (t == AP::UNDEFINED) {  // very old writers leave the type out: infer it from the set field
    if (a.has_f())
      t = AP::FLOAT;
    else if (a.has_i())
      t = AP::INT;
    else if (a.has_s())
      t = AP::STRING;
    else if (a.has_t())
      t = AP::TENSOR;
    else if (a.has_g())
      t = AP::GRAPH;
    else if (a.floats_size())
      t = AP::FLOATS;
    else if (a.ints_size())
      t = AP::INTS;
    else if (a.strings_size())
      t = AP::STRINGS;
  }
  switch (t) {
    case AP::INT:
      return a.i();
    case AP::FLOAT:
      return a.f();
    case AP::STRING:
      return a.s();
    case AP::INTS:
      return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case AP::FLOATS:
      return std::vector<float>(a.floats().begin(), a.floats().end());
    case AP::STRINGS:
      return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case AP::TENSOR:
      return tensorFromProto(a.t());
    case AP::GRAPH:
      return GraphProtoPtr(std::make_shared<onnx::GraphProto>(a.g()));
    case AP::GRAPHS: {
      std::vector<GraphProtoPtr> gs;
      for (const auto& g : a.graphs()) gs.push_back(std::make_shared<onnx::GraphProto>(g));
      return gs;
    }
    default:
      throw error("attribute '{}' has a type this runtime does not read ({})", a.name(), static_cast<int>(t));
  }
}

Attributes attributesFromNode(const onnx::NodeProto& n) {
  Attributes attrs;
  for (const auto& a : n.attribute()) {
    if (a.has_ref_attr_name() && !a.ref_attr_name().empty()) continue;  // function bodies only
    attrs.set(a.name(), attributeFromProto(a));
  }
  return attrs;
}

}  // namespace popart
