// Recurrent networks: RNN, LSTM, GRU (opsets 1-14 forms: directions, activations, clip,
// sequence_lens, initial states, peepholes, input_forget, linear_before_reset, layout), and
// PopART's own LSTM (ai.graphcore: Poplar's weight layout, gates forget, input, candidate, output).

#include "common/strings.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "ops/rnn_params.hpp"

namespace popart {
namespace ops {
namespace {

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
    const std::string l = asciiLower(n);
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

/// PopART's texts for activation lists ONNX refuses too: a forward RNN takes one activation, a
/// forward LSTM at most three. (PopART also refuses features this runtime computes as ONNX
/// specifies: other directions, clip, activation_alpha / beta, input_forget, more activation
/// functions. Those run here: docs/python-api.md.)
void popartActivationCounts(const Op& op, RnnCell cell) {
  if (op.attrs.getString("direction", "forward") != "forward") return;
  const auto names = op.attrs.getStrings("activations", {});
  if (cell == RnnCell::Rnn && !names.empty() && names.size() != 1) {
    std::vector<int> ins;
    for (int i = 0; i < op.numInputs(); ++i) ins.push_back(i);
    throw error("{} only supports 1 activation, {} were specified", popartCreatorName(op, ins), names.size());
  }
  if (cell == RnnCell::Lstm && names.size() > 3)
    throw error("Too many activations ({}) specified. Number of activations should be 1 or 3.", names.size());
}

/// The activation names of a forward LSTM at PopART's opsets: its defaults for what is left out
/// (one name: the gates' function; two: the gates' and the cell's, the output's the same).
std::vector<std::string> popartLstmActivations(const std::vector<std::string>& names) {
  if (names.empty() || names.size() >= 3) return names;
  const std::string cell = names.size() == 2 ? names[1] : "Tanh";
  return {names[0], cell, cell};
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

void setupGcLstm(Op& op) {
  const GcLstmParams p = gcLstmParams(op);
  const DataType t = op.inType(0);
  setOutput(op, 0, t, p.fullSequence ? Shape{p.seq, p.batch, p.hidden} : Shape{p.batch, p.hidden});
  setOutput(op, 1, t, {p.batch, p.hidden});
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
  const bool popart = popartOnnxOpset(op);
  if (popart) popartActivationCounts(op, cell);

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
  if (p.hidden != r[2]) {  // PopART's messages (LSTMOp::setup, BaseOnnxRNNOp::checkHiddenSize)
    if (cell == RnnCell::Lstm)
      throw error("LSTMOp hidden_size attribute, {}, does not match calculated hidden size, {}. (R '{}' is {})",
                  p.hidden, r[2], op.input(2)->id, r);
    throw error(
        "hidden_size attribute passed to {} ({}) does not match hidden size calculated from recurrenceWeights tensor "
        "({}). (R '{}' is {})",
        popartDebugName(op), p.hidden, r[2], op.input(2)->id, r);
  }
  const int64_t gh = p.gates * p.hidden;
  requireShape(op, 1, "W", {p.dirs, gh, p.input});
  requireShape(op, 2, "R", {p.dirs, gh, p.hidden});
  requireShape(op, 3, "B", {p.dirs, 2 * gh});
  if (op.hasInput(4)) {
    requireType(op, 4, {DataType::INT32, DataType::INT64});
    const Shape& sl = op.inShape(4);
    if (cell == RnnCell::Lstm && sl.size() != 1)  // PopART's messages (LSTMOp::setup)
      throw error("Invalid rank for sequence length tensor : {} != 1 (sequence_lens '{}' is {})", sl.size(),
                  op.input(4)->id, sl);
    if (cell == RnnCell::Lstm && sl[0] != p.batch)
      throw error("Incorect sequence len shape : {} != [{}] (sequence_lens '{}')", sl, p.batch, op.input(4)->id);
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
  if (popart && cell == RnnCell::Lstm) names = popartLstmActivations(names);
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

GcLstmParams gcLstmParams(const Op& op) {
  GcLstmParams p;
  requireType(op, 0, {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16});
  for (int i : {1, 2, 3}) {
    if (op.hasInput(i)) requireSameType(op, 0, i);
  }
  requireRank(op, 0, 3);
  requireRank(op, 1, 3);
  const Shape& x = op.inShape(0);
  const Shape& w = op.inShape(1);
  p.seq = x[0];
  p.batch = x[1];
  p.input = x[2];
  p.hidden = w[2];
  auto verify = [&](int i, const char* what, const Shape& want) {
    if (op.hasInput(i) && op.inShape(i) != want)
      throw error("Bad {} shape {} (input {}), should be {}", what, op.inShape(i), i, want);
  };
  verify(1, "weights", {4, p.input + p.hidden, p.hidden});
  verify(2, "bias", {4, p.hidden});
  verify(3, "initialState", {2, p.batch, p.hidden});
  if (op.hasInput(4)) {
    requireType(op, 4, {DataType::INT32, DataType::UINT32, DataType::INT64});
    verify(4, "sequence lengths", {p.batch});
  }
  p.fullSequence = op.attrs.getInt("output_full_sequence", 1) != 0;
  return p;
}

}  // namespace ops

namespace {

using ops::RnnActivation;
using ops::RnnCell;
using ops::RnnParams;

/// The recurrence unrolled into forward ops (MatMul, Slice, the activations, ...), each with its
/// grad rule, so that GraphEditor::backprop differentiates it; the same arithmetic as the CPU
/// kernel (backends/cpu/kernels/rnn.cpp).
class Unrolled {
 public:
  Unrolled(GradCtx& c, const RnnParams& p) : c_(c), p_(p), t_(c.in(0)->info.dataType()) {}

  Tensor* k(double v) { return c_.constant(v, t_); }
  Tensor* slice(Tensor* x, int64_t axis, int64_t b, int64_t e) { return c_.slice(x, axis, b, e); }
  Tensor* add(Tensor* a, Tensor* b) { return c_.add1(OpKind::Add, {a, b}); }
  Tensor* mul(Tensor* a, Tensor* b) { return c_.add1(OpKind::Mul, {a, b}); }
  Tensor* transpose(Tensor* x, const std::vector<int64_t>& perm) {
    Attributes a;
    a.set("perm", perm);
    return c_.add1(OpKind::Transpose, {x}, a);
  }
  Tensor* concat(const std::vector<Tensor*>& parts, int64_t axis) {
    Attributes a;
    a.set("axis", axis);
    return parts.size() == 1 ? parts[0] : c_.add1(OpKind::Concat, parts, a);
  }
  Tensor* clip(Tensor* x) {
    return p_.hasClip ? c_.add1(OpKind::Clip, {x, k(-static_cast<double>(p_.clip)), k(p_.clip)}) : x;
  }
  Tensor* act(const RnnActivation& a, Tensor* x) {
    using K = RnnActivation::Kind;
    Attributes at;
    switch (a.kind) {
      case K::Relu:
        return c_.add1(OpKind::Relu, {x});
      case K::Tanh:
        return c_.add1(OpKind::Tanh, {x});
      case K::Sigmoid:
        return c_.add1(OpKind::Sigmoid, {x});
      case K::Affine:
        return add(mul(k(a.alpha), x), k(a.beta));
      case K::LeakyRelu:
        at.set("alpha", a.alpha);
        return c_.add1(OpKind::LeakyRelu, {x}, at);
      case K::ThresholdedRelu:
        at.set("alpha", a.alpha);
        return c_.add1(OpKind::ThresholdedRelu, {x}, at);
      case K::ScaledTanh:
        return mul(k(a.alpha), c_.add1(OpKind::Tanh, {mul(k(a.beta), x)}));
      case K::HardSigmoid:
        at.set("alpha", a.alpha);
        at.set("beta", a.beta);
        return c_.add1(OpKind::HardSigmoid, {x}, at);
      case K::Elu:
        at.set("alpha", a.alpha);
        return c_.add1(OpKind::Elu, {x}, at);
      case K::Softsign:
        return c_.add1(OpKind::Softsign, {x});
      case K::Softplus:
        return c_.add1(OpKind::Softplus, {x});
    }
    return x;
  }
  Tensor* cast(Tensor* x, DataType to) {
    Attributes a;
    a.set("to", int64_t(onnxDataType(to)));
    return c_.add1(OpKind::Cast, {x}, a);
  }
  /// sequence_lens (constant or computed) as [N, 1] in the op's type, or nullptr without it.
  Tensor* lensColumn() {
    if (!c_.op().hasInput(4)) return nullptr;
    return c_.reshape(cast(c_.in(4), t_), {p_.batch, 1});
  }
  /// 1 where time step t is inside the batch entry's sequence (t < sequence_lens[n]), else 0, as
  /// [N, 1]: the kernel's steps at or past a sequence's length leave its state and write 0.
  Tensor* validAt(Tensor* lens, int64_t t) {
    return cast(c_.add1(OpKind::Less, {k(static_cast<double>(t)), lens}), t_);
  }
  /// m ? now : before, for m in {0, 1}.
  Tensor* keep(Tensor* m, Tensor* now, Tensor* before) {
    return add(mul(m, now), mul(c_.add1(OpKind::Sub, {k(1.0), m}), before));
  }
  /// Direction d of a [D, ...] (layout 0) or [N, D, ...] (layout 1 states) tensor, as `shape`.
  Tensor* dir(Tensor* x, int64_t axis, int64_t d, const Shape& shape) {
    return c_.reshape(slice(x, axis, d, d + 1), shape);
  }

  /// Y, Y_h, Y_c (nullptr for a cell without it) recomputed from the op's inputs.
  std::vector<Tensor*> run() {
    const Op& op = c_.op();
    const int64_t S = p_.seq, N = p_.batch, I = p_.input, H = p_.hidden, GH = p_.gates * H, D = p_.dirs;
    const bool lstm = p_.cell == RnnCell::Lstm, gru = p_.cell == RnnCell::Gru;
    const int64_t stateAxis = p_.layout == 0 ? 0 : 1;
    Tensor* X = p_.layout == 0 ? c_.in(0) : transpose(c_.in(0), {1, 0, 2});  // [S, N, I]
    std::vector<Tensor*> ys, yhs, ycs;
    for (int64_t d = 0; d < D; ++d) {
      const bool rev = D == 2 ? d == 1 : p_.reverse;
      const RnnActivation* a = &p_.acts[static_cast<size_t>(d * p_.actsPerDir)];
      const RnnActivation& f = a[0];
      const RnnActivation& g = p_.actsPerDir > 1 ? a[1] : a[0];
      const RnnActivation& hAct = p_.actsPerDir > 2 ? a[2] : a[0];
      Tensor* xproj = c_.add1(OpKind::MatMul, {X, transpose(dir(c_.in(1), 0, d, {GH, I}), {1, 0})});  // [S, N, GH]
      Tensor* Rd = dir(c_.in(2), 0, d, {GH, H});
      Tensor* Bd = op.hasInput(3) ? dir(c_.in(3), 0, d, {2 * GH}) : nullptr;
      std::vector<Tensor*> xg, rT;
      Tensor* rbH = nullptr;  // GRU with linear_before_reset: Rb of the h gate, inside r * (...)
      for (int64_t j = 0; j < p_.gates; ++j) {
        Tensor* x = slice(xproj, 2, j * H, (j + 1) * H);
        if (Bd) {
          x = add(x, slice(Bd, 0, j * H, (j + 1) * H));
          Tensor* rb = slice(Bd, 0, GH + j * H, GH + (j + 1) * H);
          if (gru && p_.linearBeforeReset && j == 2)
            rbH = rb;
          else
            x = add(x, rb);
        }
        xg.push_back(x);
        rT.push_back(transpose(slice(Rd, 0, j * H, (j + 1) * H), {1, 0}));
      }
      Tensor* h = op.hasInput(5) ? dir(c_.in(5), stateAxis, d, {N, H}) : c_.constant(0.0, t_, {N, H});
      Tensor* cs =
          lstm ? (op.hasInput(6) ? dir(c_.in(6), stateAxis, d, {N, H}) : c_.constant(0.0, t_, {N, H})) : nullptr;
      Tensor* Pd = lstm && op.hasInput(7) ? dir(c_.in(7), 0, d, {3 * H}) : nullptr;
      auto peep = [&](int64_t j) { return slice(Pd, 0, j * H, (j + 1) * H); };
      std::vector<Tensor*> hs(static_cast<size_t>(S));
      Tensor* lens = lensColumn();
      for (int64_t step = 0; step < S; ++step) {
        const int64_t t = rev ? S - 1 - step : step;
        // With sequence lengths, a step past an entry's length keeps its state and outputs 0 (a
        // reverse pass then starts at its last valid step, as the kernel's does).
        Tensor* valid = lens ? validAt(lens, t) : nullptr;
        Tensor* hBefore = h;
        Tensor* cBefore = cs;
        auto x = [&](int64_t j) { return c_.reshape(slice(xg[static_cast<size_t>(j)], 0, t, t + 1), {N, H}); };
        auto hr = [&](int64_t j, Tensor* state) {
          return c_.add1(OpKind::MatMul, {state, rT[static_cast<size_t>(j)]});
        };
        if (p_.cell == RnnCell::Rnn) {
          h = act(f, clip(add(x(0), hr(0, h))));
        } else if (lstm) {  // gates i, o, f, c; peepholes i, o, f
          Tensor* ip = add(x(0), hr(0, h));
          if (Pd) ip = add(ip, mul(peep(0), cs));
          Tensor* iv = act(f, clip(ip));
          Tensor* fv;
          if (p_.inputForget) {
            fv = c_.add1(OpKind::Sub, {k(1.0), iv});
          } else {
            Tensor* fp = add(x(2), hr(2, h));
            if (Pd) fp = add(fp, mul(peep(2), cs));
            fv = act(f, clip(fp));
          }
          Tensor* cv = act(g, clip(add(x(3), hr(3, h))));
          cs = add(mul(fv, cs), mul(iv, cv));
          Tensor* op_ = add(x(1), hr(1, h));
          if (Pd) op_ = add(op_, mul(peep(1), cs));
          h = mul(act(f, clip(op_)), act(hAct, cs));
        } else {  // GRU: gates z, r, h
          Tensor* z = act(f, clip(add(x(0), hr(0, h))));
          Tensor* r = act(f, clip(add(x(1), hr(1, h))));
          Tensor* cand;
          if (p_.linearBeforeReset) {
            Tensor* lin = hr(2, h);
            if (rbH) lin = add(lin, rbH);
            cand = act(g, clip(add(x(2), mul(r, lin))));
          } else {
            cand = act(g, clip(add(x(2), hr(2, mul(r, h)))));
          }
          h = add(mul(c_.add1(OpKind::Sub, {k(1.0), z}), cand), mul(z, h));
        }
        if (valid) {
          hs[static_cast<size_t>(t)] = c_.reshape(mul(valid, h), {1, 1, N, H});
          h = keep(valid, h, hBefore);
          if (lstm) cs = keep(valid, cs, cBefore);
          continue;
        }
        hs[static_cast<size_t>(t)] = c_.reshape(h, {1, 1, N, H});
      }
      ys.push_back(concat(hs, 0));  // [S, 1, N, H]
      yhs.push_back(c_.reshape(h, {1, N, H}));
      if (lstm) ycs.push_back(c_.reshape(cs, {1, N, H}));
    }
    Tensor* Y = concat(ys, 1);
    Tensor* Yh = concat(yhs, 0);
    Tensor* Yc = lstm ? concat(ycs, 0) : nullptr;
    if (p_.layout == 1) {
      Y = transpose(Y, {2, 0, 1, 3});
      Yh = transpose(Yh, {1, 0, 2});
      if (Yc) Yc = transpose(Yc, {1, 0, 2});
    }
    return {Y, Yh, Yc};
  }

 private:
  GradCtx& c_;
  const RnnParams& p_;
  DataType t_;
};

/// RNN / LSTM / GRU: the gradient of the unrolled recurrence (recomputed from the inputs) for X,
/// W, R, B, initial_h, initial_c and P. sequence_lens (constant or computed at run time) masks the
/// steps past each sequence's length, as the forward kernel skips them; it has no gradient.
void gradRnnFamily(GradCtx& c, RnnCell cell) {
  const Op& op = c.op();
  const RnnParams p = ops::rnnParams(op, cell);
  const size_t mark = c.numAdded();
  Unrolled u(c, p);
  const std::vector<Tensor*> outs = u.run();
  std::vector<std::pair<Tensor*, Tensor*>> seeds;
  for (int o = 0; o < op.numOutputs(); ++o) {
    if (op.hasOutput(o) && outs[static_cast<size_t>(o)]) seeds.emplace_back(outs[static_cast<size_t>(o)], c.outGrad(o));
  }
  const std::vector<int> wrtIndex{0, 1, 2, 3, 5, 6, 7};
  std::vector<Tensor*> wrt;
  for (int i : wrtIndex) wrt.push_back(c.needsInGrad(i) ? c.in(i) : nullptr);
  const std::vector<Tensor*> grads = c.backprop(mark, seeds, wrt);
  for (size_t j = 0; j < wrtIndex.size(); ++j) {
    if (grads[j]) c.setInGrad(wrtIndex[j], grads[j]);
  }
}

void gradRNN(GradCtx& c) {
  gradRnnFamily(c, RnnCell::Rnn);
}
void gradLSTM(GradCtx& c) {
  gradRnnFamily(c, RnnCell::Lstm);
}
void gradGRU(GradCtx& c) {
  gradRnnFamily(c, RnnCell::Gru);
}

/// PopART's LSTM: the ONNX LSTM of the same cell (weights split into W and R, transposed and put
/// in ONNX's gate order i, o, f, c; the bias as Wb with Rb = 0; initialState as initial_h and
/// initial_c), differentiated through its (unrolled) rule. Sequence lengths must be constant and
/// the full length.
void gradGcLstm(GradCtx& c) {
  const Op& op = c.op();
  const ops::GcLstmParams p = ops::gcLstmParams(op);
  if (op.hasInput(4)) {
    const TensorData* lens = op.inData(4);
    if (!lens)
      throw error(
          "the gradient of aiGraphcore.lstm with computed sequence lengths is not supported (give them as "
          "a constant)");
    for (int64_t v : lens->toInt64()) {
      if (v != p.seq)
        throw error("the gradient of aiGraphcore.lstm with sequences shorter than {} is not supported", p.seq);
    }
  }
  const int64_t S = p.seq, N = p.batch, I = p.input, H = p.hidden;
  const size_t mark = c.numAdded();
  auto concat = [&](const std::vector<Tensor*>& parts, int64_t axis) {
    Attributes a;
    a.set("axis", axis);
    return c.add1(OpKind::Concat, parts, a);
  };
  Attributes swap;
  swap.set("perm", std::vector<int64_t>{0, 2, 1});
  const int64_t onnxOrder[4] = {1, 3, 0, 2};  // ONNX's i, o, f, c among Poplar's f, i, c, o
  auto toOnnx = [&](Tensor* w) {              // [4, K, H] -> [1, 4H, K]
    std::vector<Tensor*> gates;
    for (int64_t g : onnxOrder) gates.push_back(c.add1(OpKind::Transpose, {c.slice(w, 0, g, g + 1)}, swap));
    return concat(gates, 1);
  };
  Tensor* W = c.in(1);
  Tensor* Wx = toOnnx(c.slice(W, 1, 0, I));
  Tensor* Wh = toOnnx(c.slice(W, 1, I, I + H));
  Tensor* B = nullptr;
  if (op.hasInput(2)) {
    std::vector<Tensor*> gates;
    for (int64_t g : onnxOrder) gates.push_back(c.slice(c.in(2), 0, g, g + 1));  // [1, H]
    gates.push_back(c.constant(0.0, c.in(0)->info.dataType(), {1, 4 * H}));
    B = concat(gates, 1);  // [1, 8H]
  }
  Tensor* h0 = op.hasInput(3) ? c.slice(c.in(3), 0, 0, 1) : nullptr;
  Tensor* c0 = op.hasInput(3) ? c.slice(c.in(3), 0, 1, 2) : nullptr;
  Attributes la;
  la.set("hidden_size", H);
  const std::vector<Tensor*> outs = c.add(OpKind::LSTM, {c.in(0), Wx, Wh, B, nullptr, h0, c0}, la, 3, 14);
  std::vector<std::pair<Tensor*, Tensor*>> seeds;
  if (op.hasOutput(0) && c.outGrad(0))
    seeds.emplace_back(p.fullSequence ? c.reshape(outs[0], {S, N, H}) : c.reshape(outs[1], {N, H}), c.outGrad(0));
  if (op.hasOutput(1) && c.outGrad(1)) seeds.emplace_back(c.reshape(outs[2], {N, H}), c.outGrad(1));
  const std::vector<int> wrtIndex{0, 1, 2, 3};
  std::vector<Tensor*> wrt;
  for (int i : wrtIndex) wrt.push_back(op.hasInput(i) && c.needsInGrad(i) ? c.in(i) : nullptr);
  const std::vector<Tensor*> grads = c.backprop(mark, seeds, wrt);
  for (size_t j = 0; j < wrtIndex.size(); ++j) {
    if (grads[j]) c.setInGrad(wrtIndex[j], grads[j]);
  }
}

void rnnDef(OpDef& d, void (*setup)(Op&), void (*grad)(GradCtx&)) {
  d.setup = setup;
  d.grad = grad;
}

}  // namespace

void define_RNN(OpDef& d) {
  rnnDef(
      d, [](Op& op) { ops::setupRnn(op, ops::RnnCell::Rnn); }, gradRNN);
}
void define_LSTM(OpDef& d) {
  rnnDef(
      d, [](Op& op) { ops::setupRnn(op, ops::RnnCell::Lstm); }, gradLSTM);
}
void define_GRU(OpDef& d) {
  rnnDef(
      d, [](Op& op) { ops::setupRnn(op, ops::RnnCell::Gru); }, gradGRU);
}

void define_GcLstm(OpDef& d) {
  rnnDef(d, ops::setupGcLstm, gradGcLstm);
}

}  // namespace popart
