// PopART's pre-alias patterns with a rewrite in this runtime. Each is a function that rewrites
// one op (returning whether it did); applyPreAliasPatterns runs them in PopART's order over the
// main graph until none applies. What each one does, and why the others have no rewrite here:
// docs/patterns.md.
#include "patterns/prealias.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ir/placement.hpp"
#include "ops/losses.hpp"
#include "ops/op_util.hpp"
#include "ops/resize_params.hpp"
#include "ops/shape_params.hpp"
#include "patterns/pattern_util.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"

namespace popart {
namespace {

using patterns::isKept;
using patterns::replaceOp;
using patterns::soleConsumer;

/// The ONNX opset a replacement op is created at: the replaced op's when it is an ONNX op (at
/// least `lowest`, the first opset with the form the pattern writes), else `lowest`.
int onnxOpset(const Op& op, int lowest) {
  return op.domain() == "ai.onnx" ? std::max(op.opset(), lowest) : lowest;
}

bool isZeroPad(const Op& op) {
  if (op.kind() != OpKind::Pad) return false;
  const ops::PadParams p = ops::padParams(op);
  const auto zero = [](int64_t v) { return v == 0; };
  return std::all_of(p.begin.begin(), p.begin.end(), zero) && std::all_of(p.end.begin(), p.end.end(), zero);
}

/// PreUniRepl and PostNRepl's "replicating" ops: a one-input Sum and a Pad that pads nothing.
bool isUniRepl(const Op& op) {
  return (op.kind() == OpKind::Sum && op.numInputs() == 1) || isZeroPad(op);
}

bool isInferenceDropout(const Ir& ir, const Op& op) {
  if (op.kind() != OpKind::Dropout || ir.isTraining()) return false;
  if (op.hasOutput(1) && (!op.output(1)->consumers.empty() || isKept(ir, op.output(1)))) return false;
  if (op.opset() >= 12 && op.hasInput(2)) {
    const TensorData* d = op.inData(2);
    return d && d->toInt64().at(0) == 0;
  }
  return op.opset() >= 7 || op.attrs.getInt("is_test", 0) != 0;
}

/// PopART's Op::canBeReplacedByIdentity for the ops this runtime has.
bool canBeReplacedByIdentity(const Ir& ir, const Op& op) {
  if (!op.hasInput(0) || !op.hasOutput(0)) return false;
  const Shape& in = op.inShape(0);
  const Shape& out = op.outInfo(0).shape();
  switch (op.kind()) {
    case OpKind::Sum:
    case OpKind::Concat:
      return op.numInputs() == 1;
    case OpKind::Pad:
      return isZeroPad(op);
    case OpKind::GcSubsample: {
      const auto strides = op.attrs.getInts("strides", {});
      return std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 1; });
    }
    case OpKind::Dropout:
      return isInferenceDropout(ir, op);
    case OpKind::GcDetach:  // this runtime's addition: without a backward pass Detach passes its input on
      return !ir.isTraining();
    case OpKind::Transpose: {
      const auto perm = ops::transposePerm(op);
      return std::is_sorted(perm.begin(), perm.end());
    }
    case OpKind::Reshape:
    case OpKind::Expand:
      return in == out;
    case OpKind::Cast:
      return op.inType(0) == op.outInfo(0).dataType();
    case OpKind::Slice: {
      const ops::SliceParams p = ops::sliceParams(op);
      return in == out && std::all_of(p.step.begin(), p.step.end(), [](int64_t s) { return s == 1; });
    }
    case OpKind::Clip: {
      if (op.opset() >= 11) return !op.hasInput(1) && !op.hasInput(2);
      return op.attrs.getFloat("min", std::numeric_limits<float>::lowest()) <= std::numeric_limits<float>::lowest() &&
             op.attrs.getFloat("max", std::numeric_limits<float>::max()) >= std::numeric_limits<float>::max();
    }
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ReduceProd:
      return in == out;  // every reduced dimension has size 1
    default:
      return false;
  }
}

// ---------------------------------------------------------------- the patterns

/// PreUniRepl: [op0] -> (t) -> [Sum of one input / zero Pad] -> (out) becomes [op0] -> (out),
/// when the replicating op is t's only consumer.
bool preUniRepl(Ir& ir, Op* op) {
  if (!isUniRepl(*op) || !op->hasOutput(0)) return false;
  Tensor* in = op->input(0);
  Tensor* out = op->output(0);
  Op* producer = in->producer;
  if (!producer || soleConsumer(in) != op || isKept(ir, in) || in->info != out->info) return false;
  int index = -1;
  for (int i = 0; i < producer->numOutputs(); ++i) {
    if (producer->hasOutput(i) && producer->output(i) == in) index = i;
  }
  Graph& g = op->graph();
  g.removeOp(op);
  producer->connectOutput(index, out);
  g.removeTensor(in->id);
  return true;
}

/// PostNRepl: an Identity (or a one-input Sum, a zero Pad) goes; its consumers read its input.
bool postNRepl(Ir& ir, Op* op) {
  if ((op->kind() != OpKind::Identity && !isUniRepl(*op)) || !op->hasInput(0) || !op->hasOutput(0)) return false;
  Tensor* in = op->input(0);
  Tensor* out = op->output(0);
  if (isKept(ir, out) || in->info != out->info) return false;
  for (const Op* c : out->consumers) {
    if (!c->subgraphs.empty()) return false;  // its subgraphs read `out` by name
  }
  patterns::rewire(out, in);
  Graph& g = op->graph();
  g.removeOp(op);
  g.removeTensor(out->id);
  return true;
}

/// OpToIdentity: an op that computes nothing (canBeReplacedByIdentity) becomes an Identity.
bool opToIdentity(Ir& ir, Op* op) {
  if (op->kind() == OpKind::Identity || !canBeReplacedByIdentity(ir, *op)) return false;
  replaceOp(op->graph(), op, OpKind::Identity, onnxOpset(*op, 1), {}, {op->input(0)});
  return true;
}

/// SumToAdd: a Sum of two inputs becomes an Add.
bool sumToAdd(Ir&, Op* op) {
  if (op->kind() != OpKind::Sum || op->numInputs() != 2 || !op->hasInput(0) || !op->hasInput(1)) return false;
  replaceOp(op->graph(), op, OpKind::Add, onnxOpset(*op, 7), {}, {op->input(0), op->input(1)});
  return true;
}

/// NegativeOneScale: Scale by -1 becomes Neg.
bool negativeOneScale(Ir&, Op* op) {
  if (op->kind() != OpKind::GcScale) return false;
  const float s = op->attrs.getFloat("scale");
  if (std::fabs(s + 1.0f) > std::numeric_limits<float>::epsilon()) return false;
  replaceOp(op->graph(), op, OpKind::Neg, 6, {}, {op->input(0)});
  return true;
}

/// SplitOp: a Split becomes one Slice per output that is read.
bool splitOp(Ir& ir, Op* op) {
  if (op->kind() != OpKind::Split) return false;
  int64_t axis = 0;
  const std::vector<int64_t> sizes = ops::splitSizes(*op, &axis);
  Tensor* in = op->input(0);
  const std::vector<Tensor*> outs = op->outputs();
  const std::string name = op->name();
  Attributes annotations;
  for (const auto& kv : op->attrs.all()) {
    if (kv.first.rfind("__", 0) == 0) annotations.set(kv.first, kv.second);
  }
  Graph& g = op->graph();
  g.removeOp(op);
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    const int64_t end = start + sizes[i];
    Tensor* t = outs[i];
    if (t && (!t->consumers.empty() || isKept(ir, t))) {
      Op& s = g.addOp(opDef(OpKind::Slice), name + "/Slice:" + std::to_string(i), 1);
      s.attrs = annotations;
      s.attrs.set("starts", std::vector<int64_t>{start});
      s.attrs.set("ends", std::vector<int64_t>{end});
      s.attrs.set("axes", std::vector<int64_t>{axis});
      s.connectInput(0, in);
      s.connectOutput(0, t);
      s.setup();
    } else if (t) {
      g.removeTensor(t->id);
    }
    start = end;
  }
  return true;
}

/// PadSum: a Sum (or Add) of zero-padded tensors whose values do not overlap, all padded along
/// the same single axis, becomes a Concat of tensors padded only to fill the gaps between them.
bool padSum(Ir& ir, Op* op) {
  if ((op->kind() != OpKind::Sum && op->kind() != OpKind::Add) || op->numInputs() < 2) return false;
  const Shape& outShape = op->outInfo(0).shape();
  struct Part {
    Op* pad;
    int64_t begin, len;
  };
  std::vector<Part> parts;
  int64_t axis = -1;
  for (int i = 0; i < op->numInputs(); ++i) {
    Tensor* t = op->input(i);
    Op* pad = t ? t->producer : nullptr;
    if (!pad || pad->kind() != OpKind::Pad || soleConsumer(t) != op || isKept(ir, t) || t->info.shape() != outShape)
      return false;
    const ops::PadParams p = ops::padParams(*pad);
    if (p.mode != "constant" || p.value != 0.0) return false;
    int64_t padded = -1;
    for (size_t d = 0; d < p.begin.size(); ++d) {
      if (p.begin[d] < 0 || p.end[d] < 0) return false;
      if (p.begin[d] == 0 && p.end[d] == 0) continue;
      if (padded >= 0) return false;  // padded along two axes
      padded = static_cast<int64_t>(d);
    }
    if (padded < 0 || (axis >= 0 && padded != axis)) return false;
    axis = padded;
    parts.push_back({pad, p.begin[static_cast<size_t>(axis)], pad->inShape(0)[static_cast<size_t>(axis)]});
  }
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.begin < b.begin; });
  for (size_t k = 1; k < parts.size(); ++k) {
    if (parts[k].begin < parts[k - 1].begin + parts[k - 1].len) return false;  // the values overlap
  }
  Graph& g = op->graph();
  const std::string name = op->name();
  const size_t rank = outShape.size();
  const int64_t outLen = outShape[static_cast<size_t>(axis)];
  std::vector<Tensor*> pieces;
  int64_t covered = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::vector<int64_t> pads(2 * rank, 0);
    pads[static_cast<size_t>(axis)] = parts[k].begin - covered;
    covered = parts[k].begin + parts[k].len;
    if (k + 1 == parts.size()) pads[rank + static_cast<size_t>(axis)] = outLen - covered;
    Op& pad = g.addOp(opDef(OpKind::Pad), name + "/Pad:" + std::to_string(k), 2);
    pad.attrs.set("pads", pads);
    pad.attrs.set("mode", std::string("constant"));
    copyPlacement(*op, pad.attrs);
    pad.connectInput(0, parts[k].pad->input(0));
    Tensor& t = g.addTensor(g.uniqueTensorId(name + "/Pad:" + std::to_string(k)), TensorKind::ActGrad, TensorInfo());
    pad.connectOutput(0, &t);
    pad.setup();
    pieces.push_back(&t);
  }
  std::vector<Tensor*> oldPads;
  for (const Part& p : parts) oldPads.push_back(p.pad->output(0));
  Attributes concatAttrs;
  concatAttrs.set("axis", axis);
  replaceOp(g, op, OpKind::Concat, 11, concatAttrs, pieces);
  for (const Part& p : parts) g.removeOp(p.pad);
  for (Tensor* t : oldPads) g.removeTensor(t->id);
  return true;
}

/// UpsampleToResize: Upsample becomes the Resize computing the same (asymmetric coordinates,
/// nearest index rounded down), its scales a constant input.
bool upsampleToResize(Ir&, Op* op) {
  if (op->kind() != OpKind::Upsample) return false;
  const ops::ResizeParams p = ops::resizeParams(*op);
  std::vector<float> scales;
  for (double s : p.scales) scales.push_back(static_cast<float>(s));
  Graph& g = op->graph();
  Tensor* sc =
      patterns::addConst(g, op->name() + "/scales",
                         TensorData(TensorInfo(DataType::FLOAT, {static_cast<int64_t>(scales.size())}), scales.data()));
  Attributes a;
  a.set("mode", p.mode);
  a.set("coordinate_transformation_mode", std::string("asymmetric"));
  a.set("nearest_mode", std::string("floor"));
  replaceOp(g, op, OpKind::Resize, 11, a, {op->input(0), nullptr, sc});
  return true;
}

/// TransposeToIdentityOrReshapePattern: a Transpose whose input comes (through Identity ops and
/// at most one Reshape that only inserts size-1 dimensions the permutation leaves in place) from
/// the reverse Transpose: an Identity of that Transpose's input, or a Reshape of it when the path
/// inserted dimensions.
bool transposeToIdentityOrReshape(Ir&, Op* op) {
  if (op->kind() != OpKind::Transpose) return false;
  const std::vector<int64_t> perm = ops::transposePerm(*op);
  std::vector<int64_t> inserted;  // dimensions (of op's input) a Reshape on the path inserted
  const Tensor* t = op->input(0);
  Op* reverse = nullptr;
  for (Op* p = t->producer; p; p = t->producer) {
    if (p->kind() == OpKind::Identity) {
      t = p->input(0);
      continue;
    }
    if (p->kind() == OpKind::Reshape && inserted.empty()) {
      const Shape& a = p->inShape(0);
      const Shape& b = p->outInfo(0).shape();
      size_t j = 0;
      for (size_t i = 0; i < b.size(); ++i) {
        if (j < a.size() && a[j] == b[i]) {
          ++j;
        } else if (b[i] == 1) {
          inserted.push_back(static_cast<int64_t>(i));
        } else {
          return false;
        }
      }
      if (j != a.size() || inserted.empty()) return false;
      for (int64_t d : inserted) {
        if (perm[static_cast<size_t>(d)] != d) return false;
      }
      t = p->input(0);
      continue;
    }
    if (p->kind() == OpKind::Transpose) {
      // op's permutation without the inserted dimensions must undo p's.
      std::vector<int64_t> reduced;
      for (int64_t d : perm) {
        if (std::find(inserted.begin(), inserted.end(), d) != inserted.end()) continue;
        int64_t shift = 0;
        for (int64_t r : inserted) shift += r < d ? 1 : 0;
        reduced.push_back(d - shift);
      }
      const std::vector<int64_t> pp = ops::transposePerm(*p);
      if (pp.size() != reduced.size()) return false;
      bool undoes = true;
      for (size_t i = 0; i < pp.size(); ++i)
        undoes = undoes && pp[static_cast<size_t>(reduced[i])] == static_cast<int64_t>(i);
      if (undoes) reverse = p;
    }
    break;
  }
  if (!reverse) return false;
  Graph& g = op->graph();
  Tensor* src = reverse->input(0);
  if (inserted.empty()) {
    replaceOp(g, op, OpKind::Identity, 1, {}, {src});
  } else {
    const Shape& s = op->outInfo(0).shape();
    if (std::find(s.begin(), s.end(), 0) != s.end()) return false;  // Reshape reads a 0 as "keep"
    Tensor* shape = patterns::addConst(
        g, op->name() + "/shape", TensorData(TensorInfo(DataType::INT64, {static_cast<int64_t>(s.size())}), s.data()));
    replaceOp(g, op, OpKind::Reshape, 5, {}, {src, shape});
  }
  return true;
}

/// ExpandCast: Expand followed by its only consumer, a Cast, becomes Cast then Expand (the cast
/// converts the smaller tensor).
bool expandCast(Ir& ir, Op* op) {
  if (op->kind() != OpKind::Expand) return false;
  Tensor* mid = op->output(0);
  Op* cast = soleConsumer(mid);
  if (!cast || cast->kind() != OpKind::Cast || isKept(ir, mid) || !patterns::samePlacement(*op, *cast)) return false;
  if (op->outInfo(0).nelms() == op->inInfo(0).nelms()) return false;
  Tensor* x = op->input(0);
  Tensor* shape = op->input(1);
  Tensor* out = cast->output(0);
  op->disconnectAllInputs();
  cast->disconnectAllInputs();
  cast->connectInput(0, x);
  cast->connectOutput(0, mid);
  op->connectInput(0, mid);
  op->connectInput(1, shape);
  op->connectOutput(0, out);
  cast->setup();
  op->setup();
  return true;
}

/// Whether `target` is `from` or computed from it (a path of ops from `from` to `target`).
bool computedFrom(const Tensor* target, const Tensor* from) {
  std::set<const Tensor*> seen{from};
  std::vector<const Tensor*> work{from};
  while (!work.empty()) {
    const Tensor* t = work.back();
    work.pop_back();
    if (t == target) return true;
    for (const Op* c : t->consumers) {
      for (const Tensor* o : c->outputs()) {
        if (o && seen.insert(o).second) work.push_back(o);
      }
    }
  }
  return false;
}

/// SoftmaxGradDirect: NllGrad(p, label, dLoss) -> (dp) -> SoftmaxGrad(dp, p), where p is the
/// output of a Softmax over its last axis read by the Nll as probabilities, becomes one
/// SoftmaxGradDirect(p, label, dLoss) with the Nll's attributes: dLoss * (p - onehot(label)),
/// which never divides by p.
bool softmaxGradDirect(Ir& ir, Op* op) {
  if (op->kind() != OpKind::GcNllGrad || op->attrs.getInt("inputIsLogProbability", 0) != 0) return false;
  Tensor* p = op->input(0);
  Tensor* dp = op->output(0);
  Op* sg = soleConsumer(dp);
  if (!sg || sg->kind() != OpKind::SoftmaxGrad || sg->input(0) != dp || sg->input(1) != p || isKept(ir, dp))
    return false;
  const int64_t rank = p->info.rank();
  if (rank == 0 || ops::normalizeAxis(sg->attrs.getInt("axis", -1), rank) != rank - 1) return false;
  if (!patterns::samePlacement(*op, *sg)) return false;
  Graph& g = op->graph();
  replaceOp(g, sg, OpKind::SoftmaxGradDirect, 1, op->attrs, {p, op->input(1), op->input(2)});
  g.removeOp(op);
  g.removeTensor(dp->id);
  return true;
}

/// The same loss: reduction and ignored label.
bool sameNll(const Op& a, const Op& b) {
  return ops::lossReduction(a) == ops::lossReduction(b) && a.attrs.has("ignoreIndex") == b.attrs.has("ignoreIndex") &&
         a.attrs.getInt("ignoreIndex", -1) == b.attrs.getInt("ignoreIndex", -1);
}

/// NlllWithSoftmaxGradDirect: a SoftmaxGradDirect and the forward Nll of the same probabilities
/// and labels become one op writing the loss and the gradient, when the incoming gradient is not
/// computed from the loss (the one op could not run before itself).
bool nlllWithSoftmaxGradDirect(Ir&, Op* op) {
  if (op->kind() != OpKind::SoftmaxGradDirect) return false;
  Tensor* p = op->input(0);
  Op* nll = nullptr;
  for (Op* c : p->consumers) {
    if (c->kind() == OpKind::GcNll && c->input(0) == p && c->input(1) == op->input(1) && sameNll(*c, *op)) nll = c;
  }
  if (!nll || !patterns::samePlacement(*nll, *op) || computedFrom(op->input(2), nll->output(0))) return false;
  Graph& g = op->graph();
  Tensor* loss = nll->output(0);
  g.removeOp(nll);
  replaceOp(g, op, OpKind::NlllWithSoftmaxGradDirect, 1, op->attrs, {p, op->input(1), op->input(2)},
            {loss, op->output(0)});
  return true;
}

struct Entry {
  const char* name;
  bool (*rewrite)(Ir&, Op*);
};

// PopART's order (its PreAliasPatternType list); each pattern runs over every op in turn.
const Entry kOrder[] = {
    {"PreUniRepl", preUniRepl},
    {"PostNRepl", postNRepl},
    {"SoftmaxGradDirect", softmaxGradDirect},
    {"NlllWithSoftmaxGradDirect", nlllWithSoftmaxGradDirect},
    {"OpToIdentity", opToIdentity},
    {"SplitOp", splitOp},
    {"PadSum", padSum},
    {"SumToAdd", sumToAdd},
    {"NegativeOneScale", negativeOneScale},
    {"UpsampleToResize", upsampleToResize},
    {"TransposeToIdentityOrReshapePattern", transposeToIdentityOrReshape},
    {"ExpandCast", expandCast},
};

}  // namespace

std::map<std::string, int> applyPreAliasPatterns(Ir& ir) {
  Graph& g = ir.mainGraph();
  std::map<std::string, int> counts;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Entry& e : kOrder) {
      if (!ir.patterns().isPatternEnabled(e.name)) continue;
      std::vector<OpId> ids;
      for (const auto& kv : g.ops()) ids.push_back(kv.first);
      for (OpId id : ids) {
        auto it = g.ops().find(id);
        if (it == g.ops().end()) continue;  // removed by an earlier rewrite of this round
        Op* op = it->second.get();
        if (!patterns::applies(ir, *op, e.name) || !e.rewrite(ir, op)) continue;
        ++counts[e.name];
        changed = true;
      }
    }
  }
  if (!counts.empty()) patterns::keepUpdatesAfterReaders(g);
  for (const auto& kv : counts) logging::pattern::debug("pattern {}: {} rewrites", kv.first, kv.second);
  return counts;
}

}  // namespace popart
