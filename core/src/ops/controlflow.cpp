// Control flow: If, Loop, Scan. Their subgraphs are imported into the Ir here, with input types
// taken from the op; shapes must stay static (loop-carried values keep their shapes, scan
// outputs need a known number of iterations).
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "onnx.pb.h"
#include "ops/controlflow_params.hpp"
#include "ops/op_util.hpp"

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

namespace {

using namespace ops;

void setupIf(Op& op) {
  requireType(op, 0, {DataType::BOOL});
  if (op.inInfo(0).nelms() != 1) throw error("cond must hold one value, got {}", op.inInfo(0).toString());
  Ir& ir = op.graph().ir();
  Graph& thenG = ir.importSubgraph(op, "then_branch", {});
  Graph& elseG = ir.importSubgraph(op, "else_branch", {});
  if (thenG.outputIds.size() != elseG.outputIds.size() || static_cast<int>(thenG.outputIds.size()) != op.numOutputs())
    throw error("then_branch has {} outputs, else_branch {}, and the node {}", thenG.outputIds.size(),
                elseG.outputIds.size(), op.numOutputs());
  for (int i = 0; i < op.numOutputs(); ++i) {
    const TensorInfo& a = thenG.getTensor(thenG.outputIds[static_cast<size_t>(i)]).info;
    const TensorInfo& b = elseG.getTensor(elseG.outputIds[static_cast<size_t>(i)]).info;
    if (a == b) {
      setOutput(op, i, a);
      continue;
    }
    const TensorData& c = op.requireInData(0, "the condition (the branches give outputs of different shapes)");
    setOutput(op, i, c.toInt64()[0] ? a : b);
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
      shape[static_cast<size_t>(axis)] *= p.length;
      setOutput(op, p.numStates + k, s.dataType(), shape);
      continue;
    }
    const int64_t axis = normalizeAxis(p.outAxes[static_cast<size_t>(k)], static_cast<int64_t>(shape.size()) + 1);
    shape.insert(shape.begin() + axis, p.length);
    if (batched) shape.insert(shape.begin(), p.batch);
    setOutput(op, p.numStates + k, s.dataType(), shape);
  }
}

}  // namespace

void define_If(OpDef& d) {
  d.setup = setupIf;
}
void define_Loop(OpDef& d) {
  d.setup = setupLoop;
}
void define_Scan(OpDef& d) {
  d.setup = setupScan;
}

}  // namespace popart
