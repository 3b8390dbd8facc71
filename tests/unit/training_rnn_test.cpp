// The RNN / LSTM / GRU gradients (the unrolled recurrence differentiated by GraphEditor::backprop)
// against central finite differences in double precision: X, W, R, B, the initial states and the
// peepholes, in both directions, both layouts, with clip, other activations, input_forget and
// linear_before_reset; with sequence lengths shorter than the sequence, constant or computed.
#include <cmath>

#include "common/training_harness.hpp"

namespace popart {
namespace {

using namespace test;

struct Dims {
  int64_t S = 3, N = 2, I = 3, H = 2;
};

enum class Lens { Full, ShortConstant, ShortComputed };

/// sum(Y c1) + sum(Y_h c2) (+ sum(Y_c c3)) of one recurrent op over random inputs. `lens`: every
/// sequence full length (a constant), or [S, 1] as a constant or as a streamed INT32 input.
template <typename Make>
void checkRecurrent(int64_t gates, int64_t dirs, int64_t layout, bool lstmExtras, Make make,
                    Lens lensKind = Lens::Full) {
  const Dims k;
  ModelBuilder mb;
  auto ai = mb.b->aiOnnxOpset14();
  const Shape xs = layout == 0 ? Shape{k.S, k.N, k.I} : Shape{k.N, k.S, k.I};
  const Shape st = layout == 0 ? Shape{dirs, k.N, k.H} : Shape{k.N, dirs, k.H};
  const auto x = mb.input(xs, 1);
  const auto w = mb.input({dirs, gates * k.H, k.I}, 2, -0.7, 0.7);
  const auto r = mb.input({dirs, gates * k.H, k.H}, 3, -0.7, 0.7);
  const auto b = mb.input({dirs, 2 * gates * k.H}, 4, -0.5, 0.5);
  std::vector<int32_t> lens(static_cast<size_t>(k.N), static_cast<int32_t>(k.S));
  if (lensKind != Lens::Full) lens[1] = 1;
  const auto seqLens = lensKind == Lens::ShortComputed
                           ? mb.intInput(lens, {k.N})
                           : ai.constant(ConstVoidData(lens.data(), TensorInfo(DataType::INT32, {k.N})));
  const auto h0 = mb.input(st, 5, -0.5, 0.5);
  std::vector<TensorId> args{x, w, r, b, seqLens, h0};
  if (lstmExtras) {
    args.push_back(mb.input(st, 6, -0.5, 0.5));               // initial_c
    args.push_back(mb.input({dirs, 3 * k.H}, 7, -0.5, 0.5));  // P
  }
  const std::vector<TensorId> outs = make(ai, args);
  const Shape ys = layout == 0 ? Shape{k.S, dirs, k.N, k.H} : Shape{k.N, k.S, dirs, k.H};
  std::vector<TensorId> terms{mb.weightedSum(ai, outs[0], ys, 8), mb.weightedSum(ai, outs[1], st, 9)};
  if (outs.size() > 2) terms.push_back(mb.weightedSum(ai, outs[2], st, 10));
  checkGradients(mb, ai.sum(terms));
}

TEST(TrainingRnn, RnnForwardReverseBidirectional) {
  for (const std::string dir : {"forward", "reverse"})
    checkRecurrent(1, 1, 0, false, [&](auto& ai, auto& args) { return ai.rnn(args, 2, {}, {}, {"Tanh"}, {}, dir); });
  checkRecurrent(1, 2, 1, false, [&](auto& ai, auto& args) {
    return ai.rnn(args, 2, {0.5f}, {}, {"LeakyRelu", "Softsign"}, {}, "bidirectional", {}, 1);
  });
}

TEST(TrainingRnn, LstmPeepholesInitialStatesClip) {
  checkRecurrent(4, 1, 0, true, [](auto& ai, auto& args) { return ai.lstm(args, 3); });
  checkRecurrent(4, 2, 0, true,
                 [](auto& ai, auto& args) { return ai.lstm(args, 3, {}, {}, {}, 2.5f, "bidirectional"); });
  checkRecurrent(4, 1, 1, true, [](auto& ai, auto& args) {
    return ai.lstm(args, 3, {}, {}, {"Sigmoid", "Tanh", "Tanh"}, {}, "reverse", {}, 1, 1);  // input_forget, layout 1
  });
}

TEST(TrainingRnn, GruBothResetForms) {
  checkRecurrent(3, 1, 0, false, [](auto& ai, auto& args) { return ai.gru(args, 2); });
  checkRecurrent(3, 2, 0, false,
                 [](auto& ai, auto& args) { return ai.gru(args, 2, {}, {}, {}, {}, "bidirectional", {}, 0, 1); });
  checkRecurrent(3, 1, 1, false, [](auto& ai, auto& args) {
    return ai.gru(args, 2, {0.3f, 0.6f}, {0.5f}, {"HardSigmoid", "Elu"}, {}, "reverse", {}, 1, 1);
  });
}

// Steps past a sequence's length keep its state and output 0; their gradient is masked the same
// way, whether sequence_lens is a constant or computed at run time (PopART's tests feed it).
TEST(TrainingRnn, ShortSequencesConstantOrComputed) {
  for (const Lens l : {Lens::ShortConstant, Lens::ShortComputed}) {
    for (const std::string dir : {"forward", "reverse"}) {
      checkRecurrent(
          1, 1, 0, false, [&](auto& ai, auto& args) { return ai.rnn(args, 2, {}, {}, {"Tanh"}, {}, dir); }, l);
      checkRecurrent(
          3, 1, 0, false, [&](auto& ai, auto& args) { return ai.gru(args, 2, {}, {}, {}, {}, dir); }, l);
      checkRecurrent(
          4, 1, 0, true, [&](auto& ai, auto& args) { return ai.lstm(args, 3, {}, {}, {}, {}, dir); }, l);
    }
    checkRecurrent(
        3, 2, 1, false, [](auto& ai, auto& args) { return ai.gru(args, 2, {}, {}, {}, {}, "bidirectional", {}, 1, 1); },
        l);
  }
}

}  // namespace
}  // namespace popart
