// registerAllOps(): one OpDef per line of ops.def, filled in by the family files.
#include "ir/op_def.hpp"

#include <iterator>
#include <map>
#include <vector>

#include "popart/error.hpp"
#include "popart/names.hpp"
#include "popart/opmanager.hpp"

namespace popart {

#define POPART_OP(E, T, D, F, ...) void define_##E(OpDef& d);
#include "oplist/ops.def"
#undef POPART_OP

namespace {

const char* domainName(const char* d) {
  const std::string s(d);
  if (s == "onnx") return Domain::ai_onnx;
  if (s == "graphcore") return Domain::ai_graphcore;
  if (s == "training") return kPreviewTrainingDomain;
  return "internal";
}

// The op list as data: one loop fills the definitions (a statement per op made the registry's
// constructor the largest function of the WebAssembly module).
struct Entry {
  OpKind kind;
  const char* type;
  const char* domain;
  const char* family;
  int minInputs, maxInputs, minOutputs, maxOutputs, sinceOpset;
  void (*define)(OpDef&);
};
constexpr Entry kEntries[] = {
#define POPART_OP(E, T, D, F, MinIn, MaxIn, MinOut, MaxOut, Since) \
  {OpKind::E, T, #D, #F, MinIn, MaxIn, MinOut, MaxOut, Since, &define_##E},
#include "oplist/ops.def"
#undef POPART_OP
};

struct Registry {
  std::vector<OpDef> defs;
  std::map<std::pair<std::string, std::string>, size_t> byName;

  Registry() {
    defs.reserve(std::size(kEntries));
    for (const Entry& e : kEntries) {
      OpDef d;
      d.kind = e.kind;
      d.type = e.type;
      d.domain = domainName(e.domain);
      d.family = e.family;
      d.minInputs = e.minInputs;
      d.maxInputs = e.maxInputs;
      d.minOutputs = e.minOutputs;
      d.maxOutputs = e.maxOutputs;
      d.sinceOpset = e.sinceOpset;
      e.define(d);
      if (!d.setup) throw internal_error("op {} has no setup", e.type);
      // Arity and opset are the op list's: a definition may not change them.
      if (d.minInputs != e.minInputs || d.maxInputs != e.maxInputs || d.minOutputs != e.minOutputs ||
          d.maxOutputs != e.maxOutputs || d.sinceOpset != e.sinceOpset)
        throw internal_error("define_{} changes the arity or opset the op list gives it (oplist/)", e.type);
      // Internal ops (gradients, weight updates) are made by autodiff and the optimizers, which
      // check their inputs; a model or the Builder cannot name them.
      if (d.domain != "internal") byName[{d.domain, d.type}] = defs.size();
      defs.push_back(std::move(d));
    }
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

}  // namespace

std::string canonicalDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" ? std::string(Domain::ai_onnx) : domain;
}

const OpDef& opDef(OpKind k) {
  return registry().defs.at(static_cast<size_t>(k));
}

const OpDef* findOpDef(const std::string& domain, const std::string& type) {
  const auto& r = registry();
  auto it = r.byName.find({canonicalDomain(domain), type});
  return it == r.byName.end() ? nullptr : &r.defs[it->second];
}

const std::vector<OpDef>& allOpDefs() {
  return registry().defs;
}

std::vector<OperatorIdentifier> OpManager::getSupportedOperations(bool includeInternal) {
  std::vector<OperatorIdentifier> out;
  for (const auto& d : allOpDefs()) {
    if (d.domain == "internal" && !includeInternal) continue;
    out.emplace_back(d.domain, d.type, d.sinceOpset);
  }
  // The ops on sequence and optional values, which the importer turns into the ops above.
#define POPART_STRUCTURED_OP(type, minIn, maxIn, minOut, maxOut, since) out.emplace_back(Domain::ai_onnx, type, since);
#include "oplist/ops_structured.def"
#undef POPART_STRUCTURED_OP
  return out;
}

}  // namespace popart
