// Recurrent networks: RNN, LSTM, GRU (opsets 1-14 forms: directions, activations, clip,
// sequence_lens, initial states, peepholes, input_forget, linear_before_reset, layout).
#include <algorithm>
#include <cctype>

#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/rnn_params.hpp"

namespace popart {
namespace ops {
namespace {

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

const char* cellName(RnnCell c) {
  return c == RnnCell::Rnn ? "RNN" : (c == RnnCell::Lstm ? "LSTM" : "GRU");
}

/// Builds the activation list: names consume activation_alpha / activation_beta in order, for
/// the functions that take them; missing values take the ONNX operators' defaults.
std::vector<RnnActivation> parseActivations(const Op& op, const std::vector<std::string>& names) {
  const auto alphas = op.attrs.getFloats("activation_alpha", {});
  const auto betas = op.attrs.getFloats("activation_beta", {});
  size_t ai = 0, bi = 0;
  std::vector<RnnActivation> out;
  using K = RnnActivation::Kind;
  for (const auto& n : names) {
    const std::string l = lowered(n);
    RnnActivation a;
    bool usesAlpha = false, usesBeta = false;
    if (l == "relu") {
      a.kind = K::Relu;
    } else if (l == "tanh") {
      a.kind = K::Tanh;
    } else if (l == "sigmoid") {
      a.kind = K::Sigmoid;
    } else if (l == "affine") {
      a = {K::Affine, 1.0f, 0.0f};
      usesAlpha = usesBeta = true;
    } else if (l == "leakyrelu") {
      a = {K::LeakyRelu, 0.01f, 0.0f};
      usesAlpha = true;
    } else if (l == "thresholdedrelu") {
      a = {K::ThresholdedRelu, 1.0f, 0.0f};
      usesAlpha = true;
    } else if (l == "scaledtanh") {
      a = {K::ScaledTanh, 1.0f, 1.0f};
      usesAlpha = usesBeta = true;
    } else if (l == "hardsigmoid") {
      a = {K::HardSigmoid, 0.2f, 0.5f};
      usesAlpha = usesBeta = true;
    } else if (l == "elu") {
      a = {K::Elu, 1.0f, 0.0f};
      usesAlpha = true;
    } else if (l == "softsign") {
      a.kind = K::Softsign;
    } else if (l == "softplus") {
      a.kind = K::Softplus;
    } else {
      throw error(
          "activations: '{}' is not supported (Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
          "HardSigmoid, Elu, Softsign, Softplus)",
          n);
    }
    if (usesAlpha && ai < alphas.size()) a.alpha = alphas[ai++];
    if (usesBeta && bi < betas.size()) a.beta = betas[bi++];
    out.push_back(a);
  }
  return out;
}

void requireShape(const Op& op, int i, const char* name, const Shape& want) {
  if (op.hasInput(i) && op.inShape(i) != want)
    throw error("{} ('{}') must have shape {}, but it is {}", name, op.input(i)->id, want, op.inShape(i));
}

void setupRnn(Op& op, RnnCell cell) {
  const RnnParams p = rnnParams(op, cell);
  const DataType t = op.inType(0);
  const Shape y = p.layout == 0 ? Shape{p.seq, p.dirs, p.batch, p.hidden} : Shape{p.batch, p.seq, p.dirs, p.hidden};
  const Shape yh = p.layout == 0 ? Shape{p.dirs, p.batch, p.hidden} : Shape{p.batch, p.dirs, p.hidden};
  setOutput(op, 0, t, y);
  setOutput(op, 1, t, yh);
  if (cell == RnnCell::Lstm) setOutput(op, 2, t, yh);
}

}  // namespace

RnnParams rnnParams(const Op& op, RnnCell cell) {
  RnnParams p;
  p.cell = cell;
  p.gates = cell == RnnCell::Rnn ? 1 : (cell == RnnCell::Lstm ? 4 : 3);
  p.actsPerDir = cell == RnnCell::Rnn ? 1 : (cell == RnnCell::Lstm ? 3 : 2);
  requireType(op, 0, {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16});
  for (int i : {1, 2, 3, 5, 6, 7}) {
    if (op.hasInput(i)) requireSameType(op, 0, i);
  }
  requireRank(op, 0, 3);
  requireRank(op, 1, 3);
  requireRank(op, 2, 3);

  const std::string dir = op.attrs.getString("direction", "forward");
  if (dir == "bidirectional") {
    p.dirs = 2;
  } else if (dir == "reverse") {
    p.reverse = true;
  } else if (dir != "forward") {
    throw error("direction '{}' is not forward, reverse or bidirectional", dir);
  }
  p.layout = op.attrs.getInt("layout", 0);
  if (p.layout != 0 && p.layout != 1) throw error("layout must be 0 or 1, got {}", p.layout);

  const Shape& x = op.inShape(0);
  p.seq = p.layout == 0 ? x[0] : x[1];
  p.batch = p.layout == 0 ? x[1] : x[0];
  p.input = x[2];
  const Shape& r = op.inShape(2);
  p.hidden = op.attrs.has("hidden_size") ? op.attrs.getInt("hidden_size") : r[2];
  if (p.hidden <= 0) throw error("hidden_size must be positive, got {}", p.hidden);
  const int64_t gh = p.gates * p.hidden;
  requireShape(op, 1, "W", {p.dirs, gh, p.input});
  requireShape(op, 2, "R", {p.dirs, gh, p.hidden});
  requireShape(op, 3, "B", {p.dirs, 2 * gh});
  if (op.hasInput(4)) {
    requireType(op, 4, {DataType::INT32, DataType::INT64});
    requireShape(op, 4, "sequence_lens", {p.batch});
  }
  const Shape state = p.layout == 0 ? Shape{p.dirs, p.batch, p.hidden} : Shape{p.batch, p.dirs, p.hidden};
  requireShape(op, 5, "initial_h", state);
  if (cell == RnnCell::Lstm) {
    requireShape(op, 6, "initial_c", state);
    requireShape(op, 7, "P", {p.dirs, 3 * p.hidden});
    p.inputForget = op.attrs.getInt("input_forget", 0) != 0;
  }
  if (cell == RnnCell::Gru) p.linearBeforeReset = op.attrs.getInt("linear_before_reset", 0) != 0;
  if (op.attrs.has("clip")) {
    p.hasClip = true;
    p.clip = op.attrs.getFloat("clip");
    if (!(p.clip > 0)) throw error("clip must be positive, got {}", p.clip);
  }

  std::vector<std::string> names = op.attrs.getStrings("activations", {});
  if (names.empty()) {
    if (cell == RnnCell::Rnn) names = {"Tanh"};
    if (cell == RnnCell::Lstm) names = {"Sigmoid", "Tanh", "Tanh"};
    if (cell == RnnCell::Gru) names = {"Sigmoid", "Tanh"};
  }
  const size_t per = static_cast<size_t>(p.actsPerDir), need = per * static_cast<size_t>(p.dirs);
  if (names.size() == per && need != per) {
    const std::vector<std::string> forward = names;  // the same functions for both directions
    names.insert(names.end(), forward.begin(), forward.end());
  } else if (cell == RnnCell::Rnn && p.dirs == 1 && names.size() == 2) {
    names.resize(1);  // the schema's default lists two (forward, reverse)
  }
  if (names.size() != need)
    throw error("activations must list {} functions for a {} {} ({} per direction), got {}", need, dir, cellName(cell),
                per, names.size());
  p.acts = parseActivations(op, names);
  return p;
}

}  // namespace ops

namespace {

void rnnDef(OpDef& d, void (*setup)(Op&)) {
  d.setup = setup;
}

}  // namespace

void define_RNN(OpDef& d) {
  rnnDef(d, [](Op& op) { ops::setupRnn(op, ops::RnnCell::Rnn); });
}
void define_LSTM(OpDef& d) {
  rnnDef(d, [](Op& op) { ops::setupRnn(op, ops::RnnCell::Lstm); });
}
void define_GRU(OpDef& d) {
  rnnDef(d, [](Op& op) { ops::setupRnn(op, ops::RnnCell::Gru); });
}

}  // namespace popart
