// ONNX's Gradient op replaced by its backward pass (passes/gradient_op.hpp).
#include "passes/gradient_op.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.hpp"
#include "ir/placement.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "popart/error.hpp"
#include "popart/error_context.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace {

/// Adds the backward ops with the Gradient node's placement, named after it.
class GradientBuilder : public GraphEditor {
 public:
  explicit GradientBuilder(const Op& gradient) : GraphEditor(gradient.graph(), gradient.name()) {
    copyPlacement(gradient, placement_);
  }
};

/// The ops `y` depends on, stopping at the tensors named in `sources`, in topological order.
std::vector<Op*> forwardOpsOf(const Graph& g, const Tensor* y, const std::set<TensorId>& sources) {
  std::set<const Op*> needed;
  std::vector<const Tensor*> work{y};
  while (!work.empty()) {
    const Tensor* t = work.back();
    work.pop_back();
    if (sources.count(t->id) || !t->producer || !needed.insert(t->producer).second) continue;
    for (const Tensor* in : t->producer->inputs()) {
      if (in) work.push_back(in);
    }
  }
  std::vector<Op*> ops;
  for (Op* op : g.topologicalOrder()) {
    if (needed.count(op)) ops.push_back(op);
  }
  return ops;
}

void expandGradient(Op& gop) {
  Graph& g = gop.graph();
  const std::vector<std::string> xs = gop.attrs.getStrings("xs");
  const std::vector<std::string> zs = gop.attrs.getStrings("zs", {});
  const std::string yId = gop.attrs.getString("y");
  std::vector<std::string> names = xs;
  names.insert(names.end(), zs.begin(), zs.end());

  Tensor* y = g.tensor(yId);
  if (!y) throw error("attribute 'y' names '{}', which is not a tensor of the node's graph", yId);
  if (!ops::isFloatType(y->info.dataType()))
    throw error("y '{}' ({}) must be a floating-point tensor to be differentiated", yId, y->info.toString());
  // The named tensors, and whether the node's inputs are those tensors themselves.
  bool inputsAreNamed = true;
  for (size_t i = 0; i < names.size(); ++i) {
    const Tensor* t = g.tensor(names[i]);
    if (!t)
      throw error("attribute '{}' names '{}', which is not a tensor of the node's graph", i < xs.size() ? "xs" : "zs",
                  names[i]);
    const Tensor* in = gop.input(static_cast<int>(i));
    if (in->info != t->info)
      throw error("input {} ('{}', {}) gives the value of '{}', which is {}", i, in->id, in->info.toString(), names[i],
                  t->info.toString());
    inputsAreNamed = inputsAreNamed && in == t;
  }
  const std::set<TensorId> sources(names.begin(), names.end());
  const std::vector<Op*> forward = forwardOpsOf(g, y, sources);
  for (const Op* op : forward) {
    if (!op->subgraphs.empty())
      throw error("the path from 'xs' to y '{}' goes through {}, whose body a Gradient node cannot differentiate", yId,
                  op->describe());
    if (!op->def().grad)
      throw error("the path from 'xs' to y '{}' goes through {}, which has no gradient rule in this runtime", yId,
                  op->describe());
  }

  GradientBuilder e(gop);
  std::vector<Tensor*> wrt;
  for (size_t i = 0; i < xs.size(); ++i) wrt.push_back(gop.input(static_cast<int>(i)));
  std::vector<Tensor*> grads;
  if (inputsAreNamed) {
    // Differentiates the model's own forward ops.
    Tensor* seed = e.constant(1.0, y->info.dataType(), y->info.shape());
    grads = e.backprop(forward, {{y, seed}}, wrt);
  } else {
    // Copies of the forward ops reading the node's inputs where the originals read xs and zs.
    std::map<const Tensor*, Tensor*> at;
    for (size_t i = 0; i < names.size(); ++i) at[g.tensor(names[i])] = gop.input(static_cast<int>(i));
    const size_t mark = e.numAdded();
    for (const Op* op : forward) {
      std::vector<Tensor*> ins;
      for (Tensor* t : op->inputs()) {
        auto it = t ? at.find(t) : at.end();
        ins.push_back(it != at.end() ? it->second : t);
      }
      const std::vector<Tensor*> outs = e.add(op->kind(), ins, op->attrs, op->numOutputs(), op->opset());
      for (int o = 0; o < op->numOutputs(); ++o) {
        if (op->hasOutput(o)) at[op->output(o)] = outs[static_cast<size_t>(o)];
      }
    }
    Tensor* yAt = at.count(y) ? at.at(y) : y;
    Tensor* seed = e.constant(1.0, yAt->info.dataType(), yAt->info.shape());
    grads = e.backprop(mark, {{yAt, seed}}, wrt);
  }

  // The node's outputs keep their ids: an Identity from each gradient writes them.
  std::vector<Tensor*> outs(gop.outputs().begin(), gop.outputs().end());
  std::vector<Tensor*> values;
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!outs[o]) {
      values.push_back(nullptr);
      continue;
    }
    Tensor* gr = grads.at(o);
    values.push_back(gr ? gr : e.zeros(outs[o]->info));
  }
  const std::string name = gop.name();
  Attributes placement;
  copyPlacement(gop, placement);
  g.removeOp(&gop);
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!outs[o]) continue;
    Op& id = g.addOp(opDef(OpKind::Identity), name + "/output", 13);
    id.attrs = placement;
    id.connectInput(0, values[o]);
    id.connectOutput(0, outs[o]);
    id.setup();
  }
}

void expandIn(Graph& g, int& n) {
  for (Op* op : g.topologicalOrder()) {
    for (Graph* sub : op->subgraphs) expandIn(*sub, n);
    if (op->kind() != OpKind::Gradient) continue;
    const std::string what = op->describeWithInputs();
    try {
      expandGradient(*op);
    } catch (const internal_error&) {
      throw;
    } catch (const error& e) {
      throw withContext(e, "while building the gradient of {}: {}", what, e.what());
    }
    ++n;
  }
}

}  // namespace

int expandGradientOps(Ir& ir) {
  int n = 0;
  expandIn(ir.mainGraph(), n);
  if (n > 0) logging::ir::info("{} Gradient op(s) replaced by their backward pass", n);
  return n;
}

}  // namespace popart
