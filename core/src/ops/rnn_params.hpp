// RNN / LSTM / GRU: the attributes and geometry shared by shape inference (ops/rnn.cpp) and the
// CPU kernel (backends/cpu/kernels/rnn.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

enum class RnnCell { Rnn, Lstm, Gru };

/// One of the activation functions ONNX lists for the recurrent ops.
struct RnnActivation {
  enum class Kind {
    Relu,
    Tanh,
    Sigmoid,
    Affine,
    LeakyRelu,
    ThresholdedRelu,
    ScaledTanh,
    HardSigmoid,
    Elu,
    Softsign,
    Softplus
  };
  Kind kind = Kind::Tanh;
  float alpha = 0, beta = 0;

  template <typename T>
  T operator()(T x) const {
    switch (kind) {
      case Kind::Relu:
        return x > T(0) ? x : T(0);
      case Kind::Tanh:
        return std::tanh(x);
      case Kind::Sigmoid:
        return x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
      case Kind::Affine:
        return T(alpha) * x + T(beta);
      case Kind::LeakyRelu:
        return x >= T(0) ? x : T(alpha) * x;
      case Kind::ThresholdedRelu:
        return x > T(alpha) ? x : T(0);
      case Kind::ScaledTanh:
        return T(alpha) * std::tanh(T(beta) * x);
      case Kind::HardSigmoid: {
        const T v = T(alpha) * x + T(beta);
        return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
      }
      case Kind::Elu:
        return x >= T(0) ? x : T(alpha) * (std::exp(x) - T(1));
      case Kind::Softsign:
        return x / (T(1) + std::abs(x));
      case Kind::Softplus:
        return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
    return x;
  }
};

struct RnnParams {
  RnnCell cell = RnnCell::Rnn;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int64_t dirs = 1;      ///< 2 for bidirectional
  bool reverse = false;  ///< the only direction is reverse
  int64_t gates = 1;     ///< 1 (RNN), 4 (LSTM: i o f c), 3 (GRU: z r h)
  int64_t layout = 0;    ///< 0: X [seq, batch, input]; 1: X [batch, seq, input]
  bool hasClip = false;
  float clip = 0;
  bool inputForget = false;         ///< LSTM
  bool linearBeforeReset = false;   ///< GRU
  int64_t actsPerDir = 1;           ///< RNN 1 (f), LSTM 3 (f, g, h), GRU 2 (f, g)
  std::vector<RnnActivation> acts;  ///< dirs * actsPerDir
};

/// Reads and checks the attributes and input shapes of a RNN / LSTM / GRU node (errors name the
/// attribute or input).
RnnParams rnnParams(const Op& op, RnnCell cell);

/// PopART's LSTM (ai.graphcore): X [seq, batch, input], Weights [4, input + hidden, hidden] (gates
/// forget, input, candidate, output; rows: the input's weights, then the hidden state's), Bias
/// [4, hidden], InitialState [2, batch, hidden] (h, c), SequenceLens [batch].
struct GcLstmParams {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  bool fullSequence = true;  ///< output_full_sequence: output [seq, batch, hidden], else [batch, hidden]
};

/// Reads and checks the inputs and attributes of an ai.graphcore LSTM node.
GcLstmParams gcLstmParams(const Op& op);

}  // namespace ops
}  // namespace popart
