// The InPlace pattern (patterns/inplace.hpp).
#include "patterns/inplace.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/collectives.hpp"
#include "ops/op_util.hpp"
#include "patterns/pattern_util.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"

namespace popart {
namespace {

/// An in-place variant: PopART's op type and the input it overwrites.
struct Variant {
  const char* type;
  int input;
};

/// The in-place variants of an op kind (PopART's, in its default preference order; PopART has
/// none for Tanh, Neg or Unsqueeze, say). Every kernel listed here reads element i of the
/// overwritten input before it writes element i of the output, so the output may share that
/// input's buffer.
std::vector<Variant> variantsOf(OpKind k) {
  switch (k) {
    case OpKind::Identity:
      return {{"IdentityInplace", 0}};
    case OpKind::Reshape:
      return {{"ReshapeInplace", 0}};
    case OpKind::Flatten:
      return {{"FlattenInplace", 0}};
    case OpKind::Squeeze:
      return {{"SqueezeInplace", 0}};
    case OpKind::GcDetach:
      return {{"DetachInplace", 0}};
    case OpKind::Relu:
      return {{"ReluInplace", 0}};
    case OpKind::LeakyRelu:
      return {{"LeakyReluInplace", 0}};
    case OpKind::Sigmoid:
      return {{"SigmoidInplace", 0}};
    case OpKind::HardSigmoid:
      return {{"HardSigmoidInplace", 0}};
    case OpKind::Elu:
      return {{"EluInplace", 0}};
    case OpKind::Selu:
      return {{"SeluInplace", 0}};
    case OpKind::Exp:
      return {{"ExpInplace", 0}};
    case OpKind::Ceil:
      return {{"CeilInplace", 0}};
    case OpKind::Floor:
      return {{"FloorInplace", 0}};
    case OpKind::Clip:
      return {{"ClipInplace", 0}};
    case OpKind::GcScale:
      return {{"ScaleInplace", 0}};
    case OpKind::Add:
      return {{"AddLhsInplace", 0}, {"AddRhsInplace", 1}};
    case OpKind::Mul:
      return {{"MulLhsInplace", 0}, {"MulRhsInplace", 1}};
    default:
      return {};
  }
}

/// PopART's default priority of an in-place variant (Op::inplacePriorityDefault).
constexpr float kDefaultPriority = 10.0f;

bool isView(const Op& op) {
  // A collective that exchanges values writes its own output (session/replicated_executable.hpp):
  // its input keeps this replica's value for its other readers.
  if (ops::isCollective(op)) return ops::collectiveIsIdentity(op);
  return op.def().view == ViewKind::Reshape;
}

/// The variants of `op` by priority (highest first), without those the node's inplace preferences
/// (Builder::setInplacePreferences) give a priority <= 0.
std::vector<Variant> rankedVariants(const Op& op) {
  std::vector<std::pair<float, Variant>> ranked;
  std::vector<std::string> names;
  std::vector<float> prios;
  if (op.attrs.has(sInplaceOpNames) && op.attrs.has(sInplaceOpPriorities)) {
    names = op.attrs.getStrings(sInplaceOpNames);
    prios = op.attrs.getFloats(sInplaceOpPriorities);
  }
  for (const Variant& v : variantsOf(op.kind())) {
    float p = kDefaultPriority;
    for (size_t i = 0; i < names.size() && i < prios.size(); ++i) {
      if (names[i] == v.type) p = prios[i];
    }
    if (p > 0) ranked.push_back({p, v});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Variant> out;
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

/// Whether `op` may overwrite input `index`: the buffer belongs to an activation of this graph
/// (not a stream, weight or constant) made on the op's IPU and pipeline stage, nothing sharing
/// it is an anchor or graph output, and
/// every other op reading it (through any alias) runs before `op`. Those readers are returned
/// in `readers`.
bool mayOverwrite(const Ir& ir, const Op& op, int index, const std::map<const Op*, size_t>& pos,
                  std::vector<Op*>* readers) {
  Tensor* t = op.input(index);
  if (!op.hasOutput(0) || t->info != op.outInfo(0)) return false;
  for (int j = 0; j < op.numInputs(); ++j) {
    if (j != index && op.hasInput(j) && op.input(j) == t) return false;
  }
  const Tensor* root = t;
  while (const Tensor* s = aliasSource(root)) root = s;
  if (root->kind != TensorKind::ActGrad || !root->producer) return false;
  // The buffer lives where its producer runs: never overwrite another IPU's or stage's tensor.
  if (!patterns::samePlacement(*root->producer, op) || !patterns::samePlacement(*t->producer, op)) return false;
  // Every tensor sharing root's buffer.
  std::vector<const Tensor*> group{root};
  for (size_t i = 0; i < group.size(); ++i) {
    for (const Op* c : group[i]->consumers) {
      for (const Tensor* o : c->outputs()) {
        if (o && aliasSource(o) == group[i] && std::find(group.begin(), group.end(), o) == group.end())
          group.push_back(o);
      }
    }
  }
  const size_t at = pos.at(&op);
  for (const Tensor* g : group) {
    if (patterns::isKept(ir, g)) return false;
    for (Op* c : g->consumers) {
      if (c == &op) continue;
      auto it = pos.find(c);
      if (it == pos.end() || it->second > at) return false;
      readers->push_back(c);
    }
  }
  return true;
}

}  // namespace

const Tensor* aliasSource(const Tensor* t) {
  if (t->kind != TensorKind::ActGrad) return nullptr;
  const Op* p = t->producer;
  if (!p || !p->hasInput(0) || !p->hasOutput(0) || p->output(0) != t) return nullptr;
  if (isView(*p) && p->inInfo(0).nbytes() == t->info.nbytes()) return p->input(0);
  if (p->attrs.has(sInplaceInputAttribute)) {
    const int i = static_cast<int>(p->attrs.getInt(sInplaceInputAttribute));
    return p->hasInput(i) ? p->input(i) : nullptr;
  }
  return nullptr;
}

std::string irOpType(const Op& op) {
  if (!op.attrs.has(sInplaceInputAttribute)) return op.type();
  const int i = static_cast<int>(op.attrs.getInt(sInplaceInputAttribute));
  for (const Variant& v : variantsOf(op.kind())) {
    if (v.input == i) return v.type;
  }
  return op.type();
}

int applyInplace(Ir& ir) {
  Graph& g = ir.mainGraph();
  const std::vector<Op*> sched = ir.schedule();
  std::map<const Op*, size_t> pos;
  for (size_t i = 0; i < sched.size(); ++i) pos[sched[i]] = i;
  int n = 0;
  for (Op* op : sched) {
    if (!patterns::applies(ir, *op, "InPlace") || op->attrs.has(sInplaceInputAttribute)) continue;
    for (const Variant& v : rankedVariants(*op)) {
      if (!op->hasInput(v.input)) continue;
      if (isView(*op)) {
        // A view never writes: it is in place whenever the memory plan aliases it.
        op->attrs.set(sInplaceInputAttribute, int64_t(v.input));
        if (aliasSource(op->output(0)) == nullptr) {
          op->attrs.erase(sInplaceInputAttribute);
          continue;
        }
        ++n;
        break;
      }
      std::vector<Op*> readers;
      if (!mayOverwrite(ir, *op, v.input, pos, &readers)) continue;
      op->attrs.set(sInplaceInputAttribute, int64_t(v.input));
      for (Op* r : readers) {
        if (std::find(op->after.begin(), op->after.end(), r) == op->after.end()) op->after.push_back(r);
      }
      ++n;
      break;
    }
  }
  logging::pattern::debug("InPlace: {} of {} ops made in-place", n, g.numOps());
  return n;
}

}  // namespace popart
