#include "session/ir_json.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "onnx.pb.h"
#include "patterns/inplace.hpp"
#include "popart/builder.hpp"  // RecomputeType

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

/// PopART's op settings, which its serializer writes among the attributes of every op: "recompute"
/// ("YES" for an op whose outputs are recomputed in the backward pass), "tileSet" (0: compute
/// tiles), "executionContext", "scope" and "schedulePriority" (a float; 0 unless set). The
/// annotations (__ipu_number, __pipeline_stage, __execution_phase) are already attributes when set.
void addSettings(const Op& op, Json& attrs) {
  const bool recompute =
      op.attrs.getInt(sRecomputeOutputAttribute, 0) == static_cast<int64_t>(RecomputeType::Recompute);
  attrs["recompute"] = recompute ? "YES" : "NO";
  if (!attrs.contains(sTileSetAttribute)) attrs["tileSet"] = "0";
  attrs["executionContext"] = "Normal";
  attrs["scope"] = "";
  float priority = 0.0f;  // the Builder's scope writes an integer, PopART's C++ API a float
  const auto& all = op.attrs.all();
  if (auto it = all.find(sSchedulePriority); it != all.end()) {
    if (const auto* i = std::get_if<int64_t>(&it->second)) priority = static_cast<float>(*i);
    if (const auto* f = std::get_if<float>(&it->second)) priority = *f;
  }
  std::ostringstream text;
  text << priority;
  attrs["schedulePriority"] = text.str();
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
    // (The Builder's recompute and priority annotations are written as PopART's settings below.)
    if (kv.first == sInplaceInputAttribute || kv.first == sRecomputeOutputAttribute || kv.first == sSchedulePriority)
      continue;
    attrs[kv.first] = attrValueText(kv.second);  // the type says it
  }
  addSettings(op, attrs);
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
  // The model's names need not be UTF-8: invalid bytes become U+FFFD.
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace popart
