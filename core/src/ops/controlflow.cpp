// Control flow: If, Loop, Scan and Graphcore's Call. Their subgraphs are imported into the Ir here,
// with input types taken from the op; shapes must stay static (loop-carried values keep their
// shapes, scan outputs need a known number of iterations).
#include <algorithm>
#include <set>

#include "common/checked_size.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ir/runtime_info.hpp"
#include "onnx.pb.h"
#include "onnx/model_io.hpp"
#include "ops/controlflow_params.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "popart/error_context.hpp"

namespace popart {
namespace ops {

bool scanBodyUntyped(const Op& op, int numStates, int numScanInputs) {
  const GraphProtoPtr gp = op.attrs.getGraph("body");
  if (!gp || numScanInputs < 1 || gp->input_size() < numStates + numScanInputs) return false;
  for (int i = numStates; i < numStates + numScanInputs; ++i) {
    const auto& t = gp->input(i).type();
    if (t.has_tensor_type() && t.tensor_type().has_shape()) return false;
  }
  return true;
}

ScanParams scanParams(const Op& op) {
  ScanParams p;
  const Graph& body = *op.subgraphs.at(0);
  p.batched = op.opset() < 9;
  const int first = p.batched ? 1 : 0;  // opset 8 starts with sequence_lens
  const int formal = op.numFormalInputs;
  p.numScanInputs = static_cast<int>(op.attrs.getInt("num_scan_inputs"));
  p.numStates = formal - first - p.numScanInputs;
  if (p.numStates < 0) throw error("num_scan_inputs = {} is more than the {} inputs", p.numScanInputs, formal - first);
  p.numScanOutputs = static_cast<int>(body.outputIds.size()) - p.numStates;
  if (p.numScanOutputs < 0) throw error("the body has fewer outputs than the {} state variables", p.numStates);
  auto dirs = [&](const char* name, int n) {
    std::vector<int64_t> v = op.attrs.getInts(name, {});
    if (v.empty()) v.assign(static_cast<size_t>(n), 0);
    if (static_cast<int>(v.size()) != n) throw error("{} must have {} entries", name, n);
    return v;
  };
  p.inDirections = dirs(p.batched ? "directions" : "scan_input_directions", p.numScanInputs);
  p.outDirections = dirs("scan_output_directions", p.numScanOutputs);
  p.inAxes = dirs("scan_input_axes", p.numScanInputs);
  p.outAxes = dirs("scan_output_axes", p.numScanOutputs);
  p.firstScanInput = first + p.numStates;
  p.popartShapes = !p.batched && scanBodyUntyped(op, p.numStates, p.numScanInputs);
  for (int k = 0; k < p.numScanOutputs; ++k) {
    const Tensor* out = body.tensor(body.outputIds[static_cast<size_t>(p.numStates + k)]);
    p.outConcat.push_back(p.popartShapes && out && out->info.rank() >= 1);
  }
  for (int j = 0; j < p.numScanInputs; ++j) {
    const Shape& s = op.inShape(p.firstScanInput + j);
    const int64_t r = static_cast<int64_t>(s.size()) - (p.batched ? 1 : 0);
    int64_t axis = normalizeAxis(p.inAxes[static_cast<size_t>(j)], r);
    if (p.batched) axis += 1;
    p.inAxes[static_cast<size_t>(j)] = axis;
    const int64_t len = s[static_cast<size_t>(axis)];
    if (j == 0) p.length = len;
    if (len != p.length) throw error("scan inputs have different lengths ({} and {})", p.length, len);
  }
  if (p.batched) {
    p.batch = p.numScanInputs ? op.inShape(p.firstScanInput)[0] : (p.numStates ? op.inShape(first)[0] : 1);
    if (op.hasInput(0)) throw error("Scan (opset 8) with sequence_lens is not supported: give full-length sequences");
    // Every state and scan input starts with the same batch dimension.
    for (int i = first; i < formal; ++i) {
      const Shape& s = op.inShape(i);
      if (s.empty() || s[0] != p.batch)
        throw error(
            "input {} ('{}') is {}, but Scan (opset 8) inputs after sequence_lens must all start with the "
            "batch dimension {}",
            i, op.input(i)->id, op.inInfo(i).toString(), p.batch);
    }
  }
  return p;
}

}  // namespace ops

const Graph& ifBranch(const Op& op, bool cond) {
  const int64_t b = cond ? 0 : 1;
  if (op.subgraphs.size() == 2) return *op.subgraphs[static_cast<size_t>(b)];
  if (op.attrs.getInt(kIfLeftOutBranch, -1) == b)
    throw error("{}: {}", op.describe(), op.attrs.getString(kIfLeftOutError));
  return *op.subgraphs.at(0);
}

namespace {

using namespace ops;

void setupIf(Op& op) {
  // ONNX says BOOL; PopART also takes a floating-point condition (non-zero is true).
  requireType(op, 0, {DataType::BOOL, DataType::FLOAT, DataType::FLOAT16, DataType::BFLOAT16, DataType::DOUBLE});
  if (op.inInfo(0).nelms() != 1) throw error("cond must hold one value, got {}", op.inInfo(0).toString());
  Ir& ir = op.graph().ir();
  const TensorData* known = op.inData(0);
  const int taken = known ? (known->getDouble(0) != 0 ? 0 : 1) : -1;
  // A branch that does not import for these inputs (a shape its ops refuse) is left out when the
  // condition is known and takes the other branch; its error is the run's that would take it. With
  // the condition computed at run time, the CPU device plans per run with the condition's inputs
  // as constants (RunTimeInfoNeeded names the condition), as ONNX Runtime defers the branch.
  Graph* branches[2] = {nullptr, nullptr};
  for (int b = 0; b < 2; ++b) {
    const char* attr = b == 0 ? "then_branch" : "else_branch";
    try {
      branches[b] = &ir.importSubgraph(op, attr, {});
    } catch (const internal_error&) {
      throw;
    } catch (const error& e) {
      const std::string which =
          format("the {} (taken when the condition '{}' is {})", attr, op.input(0)->id, b == 0 ? "true" : "false");
      if (taken == 1 - b) {
        op.attrs.set(kIfLeftOutBranch, int64_t(b));
        op.attrs.set(kIfLeftOutError, format("{} does not import for these inputs: {}", which, ownMessage(e)));
        continue;
      }
      if (taken == b) throw withContext(e, "{} does not import for these inputs: {}", which, e.what());
      throw RunTimeInfoNeeded(
          format("{} does not import for these inputs, and which branch runs is known only at run time: {}", which,
                 e.what()),
          RunTimeInfoNeeded::Kind::Value, op.input(0)->id);
    }
  }
  for (const Graph* g : branches) {
    if (g && static_cast<int>(g->outputIds.size()) != op.numOutputs())
      throw error("then_branch has {} outputs, else_branch {}, and the node {}",
                  branches[0] ? branches[0]->outputIds.size() : 0, branches[1] ? branches[1]->outputIds.size() : 0,
                  op.numOutputs());
  }
  for (int i = 0; i < op.numOutputs(); ++i) {
    const auto info = [&](int b) -> const TensorInfo& {
      const Graph& g = *branches[b];
      return g.getTensor(g.outputIds[static_cast<size_t>(i)]).info;
    };
    if (!branches[0] || !branches[1]) {
      setOutput(op, i, info(taken));
      continue;
    }
    if (info(0) == info(1)) {
      setOutput(op, i, info(0));
      continue;
    }
    const TensorData& c = op.requireInData(0, "the condition (the branches give outputs of different shapes)");
    setOutput(op, i, info(c.getDouble(0) != 0 ? 0 : 1));
  }
}

void setupLoop(Op& op) {
  const int formal = op.numFormalInputs;
  if (op.hasInput(0) && (op.inType(0) != DataType::INT64 || op.inInfo(0).nelms() != 1))
    throw error("M (the trip count) must be an INT64 scalar, got {}", op.inInfo(0).toString());
  if (op.hasInput(1) && (op.inType(1) != DataType::BOOL || op.inInfo(1).nelms() != 1))
    throw error("cond must be a BOOL scalar, got {}", op.inInfo(1).toString());
  std::vector<TensorInfo> bodyIn{TensorInfo(DataType::INT64, {}), TensorInfo(DataType::BOOL, {})};
  for (int i = 2; i < formal; ++i) bodyIn.push_back(op.inInfo(i));
  Graph& body = op.graph().ir().importSubgraph(op, "body", bodyIn);
  const int nCarried = formal - 2;
  const int nScan = static_cast<int>(body.outputIds.size()) - 1 - nCarried;
  if (nScan < 0)
    throw error("the body has {} outputs, fewer than 1 + {} loop-carried values", body.outputIds.size(), nCarried);
  for (int i = 0; i < nCarried; ++i) {
    const TensorInfo& out = body.getTensor(body.outputIds[static_cast<size_t>(1 + i)]).info;
    if (out != op.inInfo(2 + i))
      throw error("loop-carried value {} changes from {} to {} in the body; this runtime needs static shapes", i,
                  op.inInfo(2 + i).toString(), out.toString());
    setOutput(op, i, out);
  }
  if (nScan > 0) {
    if (!op.hasInput(0)) throw error("a Loop with scan outputs needs the trip count M (static shapes)");
    const int64_t m = op.requireInData(0, "the trip count (it sizes the scan outputs)").toInt64()[0];
    for (int k = 0; k < nScan; ++k) {
      const TensorInfo& s = body.getTensor(body.outputIds[static_cast<size_t>(1 + nCarried + k)]).info;
      Shape shape{std::max<int64_t>(m, 0)};
      shape.insert(shape.end(), s.shape().begin(), s.shape().end());
      setOutput(op, nCarried + k, s.dataType(), shape);
    }
  }
}

void setupScan(Op& op) {
  // The body's inputs are the states and one slice of each scan input.
  const bool batched = op.opset() < 9;
  const int first = batched ? 1 : 0;
  const int formal = op.numFormalInputs;
  const int64_t nScanIn64 = op.attrs.getInt("num_scan_inputs");
  if (nScanIn64 < 1 || nScanIn64 > formal - first)
    throw error("num_scan_inputs = {} must be between 1 and the number of inputs{} ({})", nScanIn64,
                batched ? " after sequence_lens" : "", formal - first);
  const int nScanIn = static_cast<int>(nScanIn64);
  const int nStates = formal - first - nScanIn;
  std::vector<int64_t> axes =
      op.attrs.getInts("scan_input_axes", std::vector<int64_t>(static_cast<size_t>(nScanIn), 0));
  if (axes.size() != static_cast<size_t>(nScanIn))
    throw error("scan_input_axes {} must have {} entries (num_scan_inputs)", axes, nScanIn);
  // Opset 8 inputs start with the batch dimension, which the body does not see.
  auto bodyShape = [&](int i) {
    Shape s = op.inShape(i);
    if (batched) {
      if (s.empty())
        throw error("input {} ('{}') must have a batch dimension (Scan opset 8), got {}", i, op.input(i)->id,
                    op.inInfo(i).toString());
      s.erase(s.begin());
    }
    return s;
  };
  std::vector<TensorInfo> bodyIn;
  for (int i = 0; i < nStates; ++i) bodyIn.emplace_back(op.inType(first + i), bodyShape(first + i));
  // PopART's form (ops/controlflow_params.hpp): a rank-1 scan input gives [1] slices.
  const bool popartShapes = !batched && scanBodyUntyped(op, nStates, nScanIn);
  for (int j = 0; j < nScanIn; ++j) {
    Shape s = bodyShape(first + nStates + j);
    const int64_t axis = normalizeAxis(batched ? 0 : axes.at(static_cast<size_t>(j)), static_cast<int64_t>(s.size()));
    if (popartShapes && s.size() == 1)
      s[0] = 1;
    else
      s.erase(s.begin() + axis);
    bodyIn.emplace_back(op.inType(first + nStates + j), s);
  }
  Graph& body = op.graph().ir().importSubgraph(op, "body", bodyIn);
  const ScanParams p = scanParams(op);
  for (int i = 0; i < p.numStates; ++i) {
    const TensorInfo& out = body.getTensor(body.outputIds[static_cast<size_t>(i)]).info;
    if (out != bodyIn[static_cast<size_t>(i)])
      throw error("state variable {} changes from {} to {} in the body", i, bodyIn[static_cast<size_t>(i)].toString(),
                  out.toString());
    setOutput(op, i, op.inInfo(first + i));
  }
  for (int k = 0; k < p.numScanOutputs; ++k) {
    const TensorInfo& s = body.getTensor(body.outputIds[static_cast<size_t>(p.numStates + k)]).info;
    Shape shape = s.shape();
    if (p.outConcat[static_cast<size_t>(k)]) {  // PopART: the iterations concatenated along the axis
      const int64_t axis = normalizeAxis(p.outAxes[static_cast<size_t>(k)], static_cast<int64_t>(shape.size()));
      auto& along = shape[static_cast<size_t>(axis)];
      if (!checkedMul(along, p.length, &along))
        throw error("scan output {} of {} iterations along axis {} is larger than a 64-bit count holds", k, p.length,
                    axis);
      setOutput(op, p.numStates + k, s.dataType(), shape);
      continue;
    }
    const int64_t axis = normalizeAxis(p.outAxes[static_cast<size_t>(k)], static_cast<int64_t>(shape.size()) + 1);
    shape.insert(shape.begin() + axis, p.length);
    if (batched) shape.insert(shape.begin(), p.batch);
    setOutput(op, p.numStates + k, s.dataType(), shape);
  }
}

/// Graphcore's Call: the `callee` subgraph applied to the op's inputs (its formal inputs, in
/// order); the op's outputs are the callee's. PopART checks the counts when the node is built.
void setupCall(Op& op) {
  const int formal = op.numFormalInputs >= 0 ? op.numFormalInputs : op.numInputs();
  const GraphProtoPtr gp = op.attrs.getGraph("callee");
  auto checkCount = [&](int64_t callSize, int64_t sgSize, const char* dir) {
    if (callSize != sgSize)
      throw error("For CallOp '{}', number of {}s ({}) does not match that of the callee subgraph ({})", op.name(), dir,
                  callSize, sgSize);
  };
  checkCount(formal, gp->input_size(), "input");
  const int64_t numOutputs = op.attrs.getInt("num_outputs", op.numOutputs());
  checkCount(numOutputs, gp->output_size(), "output");
  checkCount(op.numOutputs(), gp->output_size(), "output");
  std::vector<TensorInfo> bodyIn;
  for (int i = 0; i < formal; ++i) {
    if (!op.hasInput(i)) throw error("input {} of a Call may not be omitted", i);
    // A callee input declared with a full type must match the argument (untyped inputs take it).
    bool ok = false;
    std::string text;
    const TensorInfo declared = infoFromValueInfo(gp->input(i), &ok, &text);
    if (ok && declared.isSet() && declared != op.inInfo(i))
      throw error("argument {} ('{}', {}) does not match the callee's input '{}' ({})", i, op.input(i)->id,
                  op.inInfo(i).toString(), gp->input(i).name(), declared.toString());
    bodyIn.push_back(op.inInfo(i));
  }
  Graph& body = op.graph().ir().importSubgraph(op, "callee", bodyIn);
  for (int o = 0; o < op.numOutputs(); ++o)
    setOutput(op, o, body.getTensor(body.outputIds[static_cast<size_t>(o)]).info);
}

}  // namespace

namespace {

// ---------------------------------------------------------------- gradients
// A control-flow op is differentiated through its decomposition: the body (or the branches)
// copied into the graph with forward ops (Loop and Scan unrolled over their static trip count),
// then GraphEditor::backprop. Static shapes make the trip count known; bodies holding control
// flow themselves are refused.

/// A constant scalar of `type` (INT64 or BOOL) added to the graph.
Tensor* scalarConst(GradCtx& c, DataType type, int64_t v) {
  Tensor& t =
      c.graph().addTensor(c.graph().uniqueTensorId(c.op().name() + "/grad/k"), TensorKind::Const, TensorInfo(type, {}));
  t.data = TensorData::scalarInt64(v).castTo(type);
  return &t;
}

/// Backprop from the recomputed outputs to the op's inputs `wrt` (indices; the implicit inputs
/// are always candidates).
void finishControlFlow(GradCtx& c, size_t mark, const std::vector<Tensor*>& outs, std::vector<int> wrt) {
  const Op& op = c.op();
  for (int i = op.numFormalInputs; i < op.numInputs(); ++i) wrt.push_back(i);
  // A tensor read by two subgraphs (If's branches) is two inputs of the op: one gradient.
  std::set<const Tensor*> seen;
  std::vector<int> unique;
  for (int i : wrt) {
    if (op.hasInput(i) && seen.insert(op.input(i)).second) unique.push_back(i);
  }
  wrt = unique;
  std::vector<std::pair<Tensor*, Tensor*>> seeds;
  for (int o = 0; o < op.numOutputs(); ++o) {
    if (op.hasOutput(o) && outs[static_cast<size_t>(o)]) seeds.emplace_back(outs[static_cast<size_t>(o)], c.outGrad(o));
  }
  std::vector<Tensor*> ts;
  for (int i : wrt) ts.push_back(c.needsInGrad(i) ? c.in(i) : nullptr);
  const std::vector<Tensor*> g = c.backprop(mark, seeds, ts);
  for (size_t j = 0; j < wrt.size(); ++j) {
    // An input the outputs do not depend on (a branch not taken, a value the body ignores) has
    // a zero gradient, as the op reads it.
    if (g[j])
      c.setInGrad(wrt[j], g[j]);
    else if (ts[j] && isFloatType(ts[j]->info.dataType()))
      c.setInGrad(wrt[j], c.constant(0.0, ts[j]->info.dataType(), ts[j]->info.shape()));
  }
}

/// x with a dimension of size 1 inserted at `axis`.
Tensor* withUnitAxis(GradCtx& c, Tensor* x, int64_t axis) {
  Shape s = x->info.shape();
  s.insert(s.begin() + axis, 1);
  return c.reshape(x, s);
}

Tensor* concatAxis(GradCtx& c, const std::vector<Tensor*>& parts, int64_t axis) {
  Attributes a;
  a.set("axis", axis);
  return parts.size() == 1 ? parts[0] : c.add1(OpKind::Concat, parts, a);
}

/// If: the taken branch when the condition is known, else both branches and Where(cond, ...).
void gradIf(GradCtx& c) {
  const Op& op = c.op();
  const size_t mark = c.numAdded();
  std::vector<Tensor*> outs;
  if (const TensorData* known = op.inData(0)) {
    outs = c.inlineGraph(ifBranch(op, known->getDouble(0) != 0), {}, op.describe());
  } else {
    const std::vector<Tensor*> a = c.inlineGraph(*op.subgraphs.at(0), {}, op.describe());
    const std::vector<Tensor*> b = c.inlineGraph(*op.subgraphs.at(1), {}, op.describe());
    Tensor* cond = c.reshape(c.in(0), {});
    if (cond->info.dataType() != DataType::BOOL) {
      Attributes to;
      to.set("to", int64_t(onnxDataType(DataType::BOOL)));
      cond = c.add1(OpKind::Cast, {cond}, to);
    }
    for (size_t i = 0; i < a.size(); ++i)
      outs.push_back(isFloatType(a[i]->info.dataType()) ? c.add1(OpKind::Where, {cond, a[i], b[i]}) : nullptr);
  }
  finishControlFlow(c, mark, outs, {});
}

/// Loop: the body unrolled M times (M and the condition must be constant; the body's condition
/// output must pass its condition input through or be constant true).
void gradLoop(GradCtx& c) {
  const Op& op = c.op();
  const Graph& body = *op.subgraphs.at(0);
  if (!op.hasInput(0)) throw error("the gradient of a Loop needs the trip count M");
  const int64_t M = op.requireInData(0, "the trip count (the gradient unrolls the loop)").toInt64()[0];
  if (op.hasInput(1)) {
    const TensorData* cond = op.inData(1);
    if (!cond) throw error("the gradient of a Loop with a computed condition is not supported");
    if (cond->toInt64()[0] == 0) throw error("the gradient of a Loop that never runs (cond false) is not supported");
  }
  const Tensor& condOut = body.getTensor(body.outputIds.at(0));
  const bool passThrough =
      condOut.id == body.inputIds.at(1) || (condOut.producer && condOut.producer->kind() == OpKind::Identity &&
                                            condOut.producer->input(0)->id == body.inputIds.at(1));
  const bool constTrue =
      !condOut.producer && condOut.kind == TensorKind::Const && condOut.data && condOut.data->toInt64()[0] != 0;
  if (!passThrough && !constTrue)
    throw error(
        "the gradient of a Loop whose body computes its condition is not supported (the condition must pass through "
        "or be constant true, so that the loop runs M times)");
  const int nCarried = op.numFormalInputs - 2;
  const int nScan = static_cast<int>(body.outputIds.size()) - 1 - nCarried;
  const size_t mark = c.numAdded();
  std::vector<Tensor*> carried;
  for (int i = 0; i < nCarried; ++i) carried.push_back(c.in(2 + i));
  std::vector<std::vector<Tensor*>> scans(static_cast<size_t>(nScan));
  for (int64_t it = 0; it < M; ++it) {
    std::vector<Tensor*> ins{scalarConst(c, DataType::INT64, it), scalarConst(c, DataType::BOOL, 1)};
    ins.insert(ins.end(), carried.begin(), carried.end());
    const std::vector<Tensor*> outs = c.inlineGraph(body, ins, op.describe());
    for (int i = 0; i < nCarried; ++i) carried[static_cast<size_t>(i)] = outs[static_cast<size_t>(1 + i)];
    for (int k = 0; k < nScan; ++k)
      scans[static_cast<size_t>(k)].push_back(withUnitAxis(c, outs[static_cast<size_t>(1 + nCarried + k)], 0));
  }
  std::vector<Tensor*> results = carried;
  for (int k = 0; k < nScan; ++k) results.push_back(M > 0 ? concatAxis(c, scans[static_cast<size_t>(k)], 0) : nullptr);
  std::vector<int> wrt;
  for (int i = 0; i < nCarried; ++i) wrt.push_back(2 + i);
  finishControlFlow(c, mark, results, wrt);
}

/// Scan (opset 9+): the body unrolled over the scan length, slicing the scan inputs and stacking
/// the scan outputs along their axes and directions.
void gradScan(GradCtx& c) {
  const Op& op = c.op();
  const ScanParams p = scanParams(op);
  if (p.batched) throw error("the gradient of Scan opset 8 (batched) is not supported");
  const Graph& body = *op.subgraphs.at(0);
  const size_t mark = c.numAdded();
  std::vector<Tensor*> states;
  for (int i = 0; i < p.numStates; ++i) states.push_back(c.in(i));
  std::vector<std::vector<Tensor*>> scans(static_cast<size_t>(p.numScanOutputs));
  for (int64_t it = 0; it < p.length; ++it) {
    std::vector<Tensor*> ins = states;
    for (int j = 0; j < p.numScanInputs; ++j) {
      Tensor* x = c.in(p.firstScanInput + j);
      const int64_t axis = p.inAxes[static_cast<size_t>(j)];
      const int64_t at = p.inDirections[static_cast<size_t>(j)] ? p.length - 1 - it : it;
      Tensor* sl = c.slice(x, axis, at, at + 1);
      Shape s = x->info.shape();
      s.erase(s.begin() + axis);
      ins.push_back(c.reshape(sl, s));
    }
    const std::vector<Tensor*> outs = c.inlineGraph(body, ins, op.describe());
    for (int i = 0; i < p.numStates; ++i) states[static_cast<size_t>(i)] = outs[static_cast<size_t>(i)];
    for (int k = 0; k < p.numScanOutputs; ++k)
      scans[static_cast<size_t>(k)].push_back(outs[static_cast<size_t>(p.numStates + k)]);
  }
  std::vector<Tensor*> results = states;
  for (int k = 0; k < p.numScanOutputs; ++k) {
    std::vector<Tensor*>& parts = scans[static_cast<size_t>(k)];
    if (parts.empty()) {
      results.push_back(nullptr);
      continue;
    }
    const int64_t axis =
        normalizeAxis(p.outAxes[static_cast<size_t>(k)], static_cast<int64_t>(parts[0]->info.rank()) + 1);
    if (p.outDirections[static_cast<size_t>(k)]) std::reverse(parts.begin(), parts.end());
    for (Tensor*& t : parts) t = withUnitAxis(c, t, axis);
    results.push_back(concatAxis(c, parts, axis));
  }
  std::vector<int> wrt;
  for (int i = 0; i < p.firstScanInput + p.numScanInputs; ++i) wrt.push_back(i);
  finishControlFlow(c, mark, results, wrt);
}

/// Call: the callee inlined with the op's inputs, then backprop through it (PopART differentiates
/// the callee into a gradient subgraph; the result is the same).
void gradCall(GradCtx& c) {
  const Op& op = c.op();
  const size_t mark = c.numAdded();
  std::vector<Tensor*> ins;
  std::vector<int> wrt;
  for (int i = 0; i < op.numFormalInputs; ++i) {
    ins.push_back(c.in(i));
    wrt.push_back(i);
  }
  finishControlFlow(c, mark, c.inlineGraph(*op.subgraphs.at(0), ins, op.describe()), wrt);
}

/// The packed rows of one stream as a [used, maxLen] grid of row indices and a mask of the rows
/// the kernel copies: sequence s takes rows offsets[s] + r for r < min(lengths[s], maxLen), within
/// [0, rows). `used` is the number of sequences the callback sees (whole batches).
struct PackedRows {
  Tensor* index;  ///< INT64 [used, maxLen]; masked entries point at `fill`
  Tensor* valid;  ///< BOOL [used, maxLen]
};

PackedRows packedRows(GradCtx& c, Tensor* offsets, Tensor* lengths, int64_t used, int64_t maxLen, int64_t rows,
                      int64_t fill) {
  Attributes to;
  to.set("to", int64_t(onnxDataType(DataType::INT64)));
  auto column = [&](Tensor* t) {
    Tensor* v = c.reshape(t, {t->info.nelms()});
    if (t->info.nelms() != used) v = c.slice(v, 0, 0, used);
    if (v->info.dataType() != DataType::INT64) v = c.add1(OpKind::Cast, {v}, to);
    return c.reshape(v, {used, 1});
  };
  Tensor* off = column(offsets);
  Tensor* len = column(lengths);
  std::vector<int64_t> steps(static_cast<size_t>(maxLen));
  for (int64_t r = 0; r < maxLen; ++r) steps[static_cast<size_t>(r)] = r;
  Tensor* r = c.reshape(c.constInts(steps), {1, maxLen});
  Tensor* index = c.add1(OpKind::Add, {off, r});
  Tensor* valid = c.add1(OpKind::Less, {r, len});
  valid = c.add1(OpKind::And, {valid, c.add1(OpKind::Less, {index, scalarConst(c, DataType::INT64, rows)})});
  valid = c.add1(OpKind::And,
                 {valid, c.add1(OpKind::Not, {c.add1(OpKind::Less, {off, scalarConst(c, DataType::INT64, 0)})})});
  return {c.add1(OpKind::Where, {valid, index, scalarConst(c, DataType::INT64, fill)}), valid};
}

}  // namespace

/// PackedDataBlock (PopART lowers it to loops before autodiff and differentiates those): each
/// stream's sequences unpacked with Gather and a mask, the callback inlined once per batch of
/// sequences, and the outputs packed with a ScatterND (add) into the result, then backprop. The
/// sum equals the kernel's writes when result sequences do not overlap (packed data's layout).
void gradPackedDataBlock(GradCtx& c) {
  const Op& op = c.op();
  const Graph& body = *op.subgraphs.at(0);
  const int k = (op.numFormalInputs - 2) / 3;
  const auto maxLens = op.attrs.getInts("maxSequenceLengths");
  const int64_t batch = op.attrs.getInt("callbackBatchSize");
  const int64_t calls = op.inInfo(1).nelms() / batch;
  const int64_t used = calls * batch;
  std::vector<int> wrt;
  for (int i = 0; i < k; ++i) wrt.push_back(3 * i);
  const size_t mark = c.numAdded();
  if (calls == 0) {  // the callback never runs: the result is zeros
    finishControlFlow(c, mark, {nullptr}, wrt);
    return;
  }
  std::vector<Tensor*> padded;
  for (int i = 0; i < k; ++i) {
    Tensor* data = c.in(3 * i);
    const Shape& ds = data->info.shape();
    const int64_t maxLen = maxLens[static_cast<size_t>(i)];
    Shape ps{used, maxLen};
    ps.insert(ps.end(), ds.begin() + 1, ds.end());
    if (ds[0] == 0 || maxLen == 0) {  // nothing to gather: zero blocks
      padded.push_back(c.zeros(TensorInfo(data->info.dataType(), ps)));
      continue;
    }
    const PackedRows rows = packedRows(c, c.in(3 * i + 1), c.in(3 * i + 2), used, maxLen, ds[0], 0);
    Attributes axis0;
    axis0.set("axis", int64_t{0});
    Tensor* gathered = c.add1(OpKind::Gather, {data, rows.index}, axis0);
    Shape ms{used, maxLen};
    ms.resize(ps.size(), 1);
    padded.push_back(
        c.add1(OpKind::Where, {c.reshape(rows.valid, ms), gathered, scalarConst(c, data->info.dataType(), 0)}));
  }
  std::vector<Tensor*> outs;
  for (int64_t call = 0; call < calls; ++call) {
    std::vector<Tensor*> ins;
    for (Tensor* p : padded) {
      ins.push_back(calls == 1 ? p : c.slice(p, 0, call * batch, (call + 1) * batch));
    }
    outs.push_back(c.inlineGraph(body, ins, op.describe()).at(0));
  }
  Tensor* all = concatAxis(c, outs, 0);  // [used, cbLen, ...]
  const Shape& as = all->info.shape();
  const int64_t cbLen = as[1];
  const int64_t resultRows = op.outInfo(0).shape()[0];
  Shape rest(as.begin() + 2, as.end());
  Tensor* result = nullptr;
  if (cbLen > 0 && resultRows > 0) {
    const int n = op.numFormalInputs;
    const PackedRows rows = packedRows(c, c.in(n - 2), c.in(n - 1), used, cbLen, resultRows, resultRows);
    Shape us{used * cbLen};
    us.insert(us.end(), rest.begin(), rest.end());
    Shape bs{resultRows + 1};  // row resultRows takes the rows the kernel does not write
    bs.insert(bs.end(), rest.begin(), rest.end());
    Tensor* base = c.zeros(TensorInfo(all->info.dataType(), bs));
    Attributes add;
    add.set("reduction", std::string("add"));
    Tensor* scattered =
        c.add1(OpKind::ScatterND, {base, c.reshape(rows.index, {used * cbLen, 1}), c.reshape(all, us)}, add, 16);
    result = c.slice(scattered, 0, 0, resultRows);
  }
  finishControlFlow(c, mark, {result}, wrt);
}

void define_GcCall(OpDef& d) {
  d.setup = setupCall;
  d.grad = gradCall;
}
void define_If(OpDef& d) {
  d.setup = setupIf;
  d.grad = gradIf;
}
void define_Loop(OpDef& d) {
  d.setup = setupLoop;
  d.grad = gradLoop;
}
void define_Scan(OpDef& d) {
  d.setup = setupScan;
  d.grad = gradScan;
}

}  // namespace popart
