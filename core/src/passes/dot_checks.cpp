// Graphviz .dot files of the IR at PopART's checkpoints (passes/dot_checks.hpp).
#include "passes/dot_checks.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "common/strings.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"

namespace popart {
namespace passes {
namespace {

/// A .dot string literal: quotes and backslashes escaped (tensor ids are the user's strings).
std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r + "\"";
}

const char* tensorColor(TensorKind k) {
  switch (k) {
    case TensorKind::Stream:
      return "red";
    case TensorKind::Const:
      return "gold";
    case TensorKind::Variable:
      return "blue";
    case TensorKind::ActGrad:
      break;
  }
  return "black";
}

/// The main graph and every subgraph under it, with its ops in execution order (the main
/// graph's schedule once there is one, else a topological order).
void collectGraphs(const Graph& g, const std::vector<Op*>& order,
                   std::vector<std::pair<const Graph*, std::vector<Op*>>>* out) {
  out->emplace_back(&g, order);
  for (const Op* op : order)
    for (const Graph* sg : op->subgraphs) collectGraphs(*sg, sg->topologicalOrder(), out);
}

class DotWriter {
 public:
  DotWriter(const Ir& ir, std::string check) : ir_(ir), check_(std::move(check)) {}

  void write() {
    const SessionOptions& o = ir_.options();
    std::vector<std::pair<const Graph*, std::vector<Op*>>> graphs;
    const Graph& main = ir_.mainGraph();
    collectGraphs(main, ir_.schedule().empty() ? main.topologicalOrder() : ir_.schedule(), &graphs);
    size_t numOps = 0;
    for (const auto& g : graphs) numOps += g.second.size();
    const int64_t start = std::max(0, o.firstDotOp);
    const int64_t end = std::min<int64_t>(o.finalDotOp, static_cast<int64_t>(numOps));
    if (!(start < end) && numOps != 0)
      throw error("Invalid dot range ({}, {}) with schedule of size {}, as no Ops will be exported to the .dot file",
                  o.firstDotOp, o.finalDotOp, numOps);
    int64_t index = 0;
    for (const auto& [g, order] : graphs) {
      int64_t inGraph = 0;
      for (const Op* op : order) {
        if (index >= start && index < end) writeOp(*g, *op, inGraph);
        ++index;
        ++inGraph;
      }
      // Graph inputs and outputs that no written op touches (a Loop's carried values).
      for (const TensorId& id : g->inputIds) tensorNode(*g, g->getTensor(id));
      for (const TensorId& id : g->outputIds) tensorNode(*g, g->getTensor(id));
    }
    for (auto& [name, os] : files_) {
      os << "}\n";
      os.flush();
      if (!os) throw error("failed to write the .dot file `{}'", paths_[name]);
    }
    logging::ir::debug("dot checkpoint {}: {} file(s) written", check_, files_.size());
  }

 private:
  std::string graphName(const Graph& g) const {
    if (!ir_.options().separateCallOpPdfs) return "all";
    if (&g == &ir_.mainGraph()) return "r";  // PopART's abridged name of the main graph
    return g.protoName.empty() ? g.id() : g.protoName;
  }

  std::ofstream& stream(const Graph& g) {
    const std::string name = graphName(g);
    auto it = files_.find(name);
    if (it != files_.end()) return it->second;
    std::string fileName;
    for (char c : check_ + "_" + name + ".dot") fileName += (c == '/' || c == '\\') ? '_' : c;
    const std::string& dir = ir_.options().logDir;
    const std::string path = dir.empty() ? fileName : (std::filesystem::path(dir) / fileName).string();
    std::ofstream& os = files_[name];
    paths_[name] = path;
    os.open(path, std::ios::out | std::ios::trunc);
    if (!os.is_open()) throw error("failed to open file `{}'", path);
    logging::ir::info("Writing dot file {}", path);
    os << "digraph net {\nsize=\"6,6\";\n";
    return os;
  }

  void tensorNode(const Graph& g, const Tensor& t) {
    if (!visited_.insert(&t).second) return;
    std::ostringstream label;
    label << t.id << "\\n" << t.info << "  nc:" << t.consumers.size();
    const auto in = std::find(g.inputIds.begin(), g.inputIds.end(), t.id);
    if (in != g.inputIds.end()) label << " graph input: " << (in - g.inputIds.begin());
    const auto out = std::find(g.outputIds.begin(), g.outputIds.end(), t.id);
    if (out != g.outputIds.end()) label << " graph output: " << (out - g.outputIds.begin());
    stream(g) << quoted(t.id) << " [shape= \"egg\", label=" << quoted(label.str())
              << ", color = " << tensorColor(t.kind) << "];\n";
  }

  static std::string opNode(const Op& op) { return "\"n_" + std::to_string(op.id()) + "\""; }

  void edge(const Graph& g, const std::string& from, const std::string& to, const Tensor& t, bool aliased) {
    std::ostringstream label;
    label << t.id << "\\n" << shapeText(t.info.shape());
    stream(g) << from << " -> " << to << " [color=" << (aliased ? "blue" : "black") << ", label=" << quoted(label.str())
              << "];\n";
  }

  static std::string shapeText(const Shape& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? " " : "") + std::to_string(s[i]);
    return r + "]";
  }

  void writeOp(const Graph& g, const Op& op, int64_t indexInGraph) {
    const SessionOptions& o = ir_.options();
    std::ostringstream label;
    label << indexInGraph << ". " << op.type() << " (" << op.id() << ")";
    for (const Graph* sg : op.subgraphs) label << "<" << graphName(*sg) << ">";
    if (o.dotOpNames) label << " (" << op.id() << (op.name().empty() ? "" : ":" + op.name()) << ")";
    if (op.attrs.has(sVirtualGraphAttribute)) label << " vgid:" << op.attrs.getInt(sVirtualGraphAttribute);
    if (op.attrs.has(sPipelineStageAttribute)) label << " ps:" << op.attrs.getInt(sPipelineStageAttribute);
    const bool view = op.def().view != ViewKind::None;
    stream(g) << opNode(op) << " [shape= \"box\", label=" << quoted(label.str())
              << ", color = " << (view ? "\"#6B8E23\"" : "black") << "];\n";
    // Inputs nothing in this graph produces (graph inputs, weights, constants, outer reads).
    for (const Tensor* t : op.inputs()) {
      if (!t || t->producer) continue;
      if (visited_.count(t)) continue;
      tensorNode(g, *t);
      for (const Op* c : t->consumers)
        if (&c->graph() == &g) edge(g, quoted(t->id), opNode(*c), *t, false);
    }
    for (int i = 0; i < op.numOutputs(); ++i) {
      const Tensor* t = op.hasOutput(i) ? op.output(i) : nullptr;
      if (!t) continue;
      const bool aliased = view && i == 0;
      for (const Op* c : t->consumers)
        if (&c->graph() == &g) edge(g, opNode(op), opNode(*c), *t, aliased);
      const bool graphOutput = std::find(g.outputIds.begin(), g.outputIds.end(), t->id) != g.outputIds.end();
      if (t->consumers.empty() || graphOutput) {
        tensorNode(g, *t);
        edge(g, opNode(op), quoted(t->id), *t, aliased);
      }
    }
    for (const Op* before : op.after)
      stream(g) << opNode(*before) << " -> " << opNode(op) << " [color=grey, style=dotted];\n";
  }

  const Ir& ir_;
  std::string check_;
  std::map<std::string, std::ofstream> files_;
  std::map<std::string, std::string> paths_;
  std::set<const Tensor*> visited_;
};

}  // namespace

std::set<std::string> dotChecks(const Ir& ir) {
  std::set<std::string> r;
  for (const std::string& c : ir.options().dotChecks) r.insert(asciiUpper(c));
  if (const char* env = std::getenv("POPART_DOT_CHECKS")) {
    std::string s = env;
    size_t pos = 0;
    while (pos <= s.size()) {
      const size_t colon = std::min(s.find(':', pos), s.size());
      if (colon > pos) r.insert(asciiUpper(s.substr(pos, colon - pos)));
      pos = colon + 1;
    }
  }
  return r;
}

void dotCheckpoint(const Ir& ir, const std::string& check) {
  const std::set<std::string> checks = dotChecks(ir);
  if (!checks.count("ALL") && !checks.count(asciiUpper(check))) return;
#if defined(__EMSCRIPTEN__)
  throw error(
      "dotChecks (or POPART_DOT_CHECKS) asks for the .dot file of check '{}', which the WebAssembly build "
      "cannot write (it has no file system): leave dotChecks empty here",
      check);
#endif
  DotWriter(ir, check).write();
}

}  // namespace passes
}  // namespace popart
