// OpManager::getSupportedOperationsDefinition / getUnsupportedOperations: the op list
// (ir/op_def.hpp) compared with the ONNX schemas generated into builder.gen.cpp and with the
// aiGraphcore method table; nothing here lists ops by hand.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "builder/onnx_schemas.hpp"
#include "ir/op_def.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "popart/reflection.hpp"

namespace popart {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::istringstream is(s);
  std::string item;
  while (std::getline(is, item, sep)) out.push_back(item);
  return out;
}

struct Formal {
  std::string name;
  OpDefinition::DataTypes types;
};

std::vector<Formal> formals(const char* text) {
  std::vector<Formal> out;
  for (const auto& p : split(text, ';')) {
    const auto parts = split(p, '|');
    Formal f;
    f.name = parts.empty() ? p : parts[0];
    if (parts.size() > 1) {
      for (const auto& t : split(parts[1], ',')) f.types.push_back(dataTypeFromString(t));
    }
    out.push_back(std::move(f));
  }
  return out;
}

/// The schema row of `type` in force at `opset` (nullptr: none).
const OnnxSchemaRow* schemaAt(const std::string& type, int opset) {
  const OnnxSchemaRow* best = nullptr;
  for (size_t i = 0; i < kNumOnnxSchemas; ++i) {
    const OnnxSchemaRow& r = kOnnxSchemas[i];
    if (type == r.type && r.since <= opset && (!best || r.since > best->since)) best = &r;
  }
  return best;
}

OpDefinition onnxDefinition(const std::string& type, uint32_t shapeInputsMask) {
  OpDefinition def;
  // The newest schema the Builder knows (opsets up to 17): the form the op list's facts (which
  // inputs are read as constants) describe; older forms had some inputs as attributes.
  const OnnxSchemaRow* row = schemaAt(type, std::numeric_limits<int>::max());
  if (!row) return def;
  const auto ins = formals(row->inputs);
  for (size_t i = 0; i < ins.size(); ++i) {
    const bool constant = i < 32 && (shapeInputsMask >> i) & 1u;
    def.inputs.push_back({ins[i].name, ins[i].types, constant});
  }
  for (const auto& o : formals(row->outputs)) def.outputs.push_back({o.name, o.types});
  for (const auto& a : split(row->attributes, ',')) def.attributes[a] = {"*"};
  return def;
}

OpDefinition countedDefinition(const OpDef& d) {
  OpDefinition def;
  const int nin = d.maxInputs >= 0 ? d.maxInputs : std::max(d.minInputs, 1);
  const int nout = d.maxOutputs >= 0 ? d.maxOutputs : std::max(d.minOutputs, 1);
  for (int i = 0; i < nin; ++i) {
    const bool constant = i < 32 && (d.shapeInputsMask >> i) & 1u;
    def.inputs.push_back({"input" + std::to_string(i), {}, constant});
  }
  for (int i = 0; i < nout; ++i) def.outputs.push_back({"output" + std::to_string(i), {}});
  return def;
}

OpDefinition graphcoreDefinition(const OpDef& d) {
  OpDefinition def = countedDefinition(d);
  for (const auto& m : graphcoreOpList()) {
    if (m.opType != d.type) continue;
    for (const auto& a : m.attrs) def.attributes[a.onnxName.empty() ? a.name : a.onnxName] = {"*"};
  }
  return def;
}

}  // namespace

OpDefinitions OpManager::getSupportedOperationsDefinition(bool includeInternal) {
  OpDefinitions out;
  for (const auto& d : allOpDefs()) {
    if (d.domain == "internal" && !includeInternal) continue;
    OpDefinition def = d.domain == Domain::ai_onnx        ? onnxDefinition(d.type, d.shapeInputsMask)
                       : d.domain == Domain::ai_graphcore ? graphcoreDefinition(d)
                                                          : countedDefinition(d);
    out.emplace(OperatorIdentifier(d.domain, d.type, d.sinceOpset), std::move(def));
  }
  // The ops on sequence and optional values (their positions and sizes are known per plan).
#define POPART_STRUCTURED_OP(type, minIn, maxIn, minOut, maxOut, since) \
  out.emplace(OperatorIdentifier(Domain::ai_onnx, type, since), onnxDefinition(type, 0));
#include "oplist/ops_structured.def"
#undef POPART_STRUCTURED_OP
  return out;
}

std::vector<OperatorIdentifier> OpManager::getUnsupportedOperations(int opsetVersion) {
  if (opsetVersion < 1)
    throw error("getUnsupportedOperations: opsetVersion must be at least 1 (it is {})", opsetVersion);
  std::set<std::string> types;
  for (size_t i = 0; i < kNumOnnxSchemas; ++i) types.insert(kOnnxSchemas[i].type);
  std::vector<OperatorIdentifier> out;
  for (const auto& type : types) {
    const OnnxSchemaRow* row = schemaAt(type, opsetVersion);
    if (!row || row->deprecated) continue;  // not an op of that opset
    const OpDef* d = findOpDef(Domain::ai_onnx, type);
    int since = d ? d->sinceOpset : std::numeric_limits<int>::max();
#define POPART_STRUCTURED_OP(t, minIn, maxIn, minOut, maxOut, s) \
  if (type == t) since = s;
#include "oplist/ops_structured.def"
#undef POPART_STRUCTURED_OP
    if (since > opsetVersion) out.emplace_back(Domain::ai_onnx, type, row->since);
  }
  return out;
}

}  // namespace popart
