// Writing ONNX protos by hand in tests (what the Builder cannot write: malformed models, symbolic
// dimensions, sequence types): nodes, attributes and subgraphs.
#pragma once

#include <string>
#include <vector>

#include "onnx.pb.h"

namespace popart {
namespace test {

/// A node of `g` (unnamed unless `name` is given: the importer names it).
inline onnx::NodeProto* addNode(onnx::GraphProto* g, const std::string& type, const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs, const std::string& name = "") {
  auto* n = g->add_node();
  n->set_op_type(type);
  if (!name.empty()) n->set_name(name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

inline void intAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

/// A GRAPH attribute `name` of `n`; returns its (empty) graph, named `name`.
inline onnx::GraphProto* graphAttr(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

}  // namespace test
}  // namespace popart
