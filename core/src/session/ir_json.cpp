#include "session/ir_json.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "onnx.pb.h"
#include "patterns/inplace.hpp"

namespace popart {
namespace {

using Json = nlohmann::ordered_json;

Json tensorRef(const Tensor& t, int index, bool withInfo) {
  Json j;
  j["name"] = t.id;
  if (withInfo) {
    j["shape"] = listText(t.info.shape());
    j["type"] = dataTypeToString(t.info.dataType());
  }
  j["index"] = std::to_string(index);
  return j;
}

Json opJson(const Op& op) {
  Json j;
  j["type"] = irOpType(op);  // PopART's in-place types ("ReluInplace") once InPlace applied
  j["version"] = std::to_string(op.opset());
  j["domain"] = canonicalDomain(op.domain());
  j["name"] = op.name();
  Json ins = Json::array();
  for (int i = 0; i < op.numInputs(); ++i) {
    if (op.hasInput(i)) ins.push_back(tensorRef(*op.input(i), i, true));
  }
  j["inputs"] = std::move(ins);
  Json outs = Json::array();
  for (int i = 0; i < op.numOutputs(); ++i) {
    if (op.hasOutput(i)) outs.push_back(tensorRef(*op.output(i), i, true));
  }
  j["outputs"] = std::move(outs);
  Json attrs = Json::object();
  for (const auto& kv : op.attrs.all()) {
    if (kv.first != sInplaceInputAttribute) attrs[kv.first] = attrValueText(kv.second);  // the type says it
  }
  j["attributes"] = std::move(attrs);
  return j;
}

/// Graphs in PopART's order: the main graph, then each called graph after its caller. A subgraph
/// is keyed by its GraphProto's name (Builder.setGraphName), else by its id here
/// ("<node>/<attribute>"); a name already taken gets the id.
void addGraph(Json& doc, const std::string& key, const std::vector<Op*>& ops) {
  Json list = Json::array();
  std::vector<const Graph*> called;
  for (const Op* op : ops) {
    list.push_back(opJson(*op));
    for (const Graph* g : op->subgraphs) called.push_back(g);
  }
  doc[key] = std::move(list);
  for (const Graph* g : called) {
    const bool named = !g->protoName.empty() && !doc.contains(g->protoName);
    addGraph(doc, named ? g->protoName : g->id(), g->topologicalOrder());
  }
}

}  // namespace

std::string irToJson(const Ir& ir) {
  Json doc = Json::object();
  // PopART: "maingraph" for a Builder's graph (named BuilderGraph_<n>), else the model's name.
  const std::string& name = ir.model().graph().name();
  const bool builderGraph = name.empty() || name.find("BuilderGraph") != std::string::npos;
  addGraph(doc, builderGraph ? "maingraph" : name, ir.schedule());
  return doc.dump();
}

}  // namespace popart
