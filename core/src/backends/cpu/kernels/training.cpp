// CPU kernels of ONNX's ai.onnx.preview.training ops: Adagrad, Adam and Momentum compute ONNX's
// pseudo code per element in double (whatever the tensors' floating-point type) with the formulas
// the optimizers share (optimizers/update_rules.hpp). Layout: ops/training_params.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "backends/cpu/kernel.hpp"
#include "backends/cpu/kernels/optim_util.hpp"
#include "ops/training_params.hpp"
#include "optimizers/update_rules.hpp"

namespace popart {
namespace cpu {

namespace {

using optim::FBuf;
namespace train_rules = update_rules;

/// One optimized tensor: X, G and the states in; X_new and the new states out (absent: slot -1).
struct TrainGroup {
  int64_t n = 0;
  FBuf x, g, states[2];
  FBuf xOut, stateOuts[2];
};

FBuf trainOutBuf(const Op& op, KernelContext& kc, int o) {
  FBuf b;
  if (!op.hasOutput(o)) return b;
  b.slot = kc.out(o);
  b.type = op.outInfo(o).dataType();
  return b;
}

std::vector<TrainGroup> trainGroups(const Op& op, KernelContext& kc) {
  const int states = ops::trainingStates(op.kind());
  std::vector<TrainGroup> v(static_cast<size_t>(ops::trainingTensors(op)));
  for (size_t i = 0; i < v.size(); ++i) {
    const int ii = static_cast<int>(i);
    TrainGroup& t = v[i];
    t.n = op.inInfo(ops::trainingInput(op, 0, ii)).nelms();
    t.x = optim::fbuf(op, kc, ops::trainingInput(op, 0, ii));
    t.g = optim::fbuf(op, kc, ops::trainingInput(op, 1, ii));
    t.xOut = trainOutBuf(op, kc, ops::trainingOutput(op, 0, ii));
    for (int s = 0; s < states; ++s) {
      t.states[s] = optim::fbuf(op, kc, ops::trainingInput(op, 2 + s, ii));
      t.stateOuts[s] = trainOutBuf(op, kc, ops::trainingOutput(op, 1 + s, ii));
    }
  }
  return v;
}

/// The learning rate R and the update count T of a run.
struct TrainRT {
  double r;
  int64_t t;
};

TrainRT readTrainRT(const RunState& s, const FBuf& r, int tSlot) {
  return {r.get(s), *inPtr<int64_t>(s, tSlot)};
}

/// Runs `step(X, G, S0, S1, m)` over blocks of every group (S0, S1: the states, updated in place;
/// X updated in place) and stores the outputs the node has.
template <class Step>
void trainForEachBlock(const RunState& s, const std::vector<TrainGroup>& groups, int states, Step step) {
  double X[optim::kBlock], G[optim::kBlock], S0[optim::kBlock], S1[optim::kBlock];
  double* S[2] = {S0, S1};
  for (const TrainGroup& t : groups) {
    for (int64_t off = 0; off < t.n; off += optim::kBlock) {
      const int64_t m = std::min(optim::kBlock, t.n - off);
      t.x.load(s, off, m, X);
      t.g.load(s, off, m, G);
      for (int k = 0; k < states; ++k) t.states[k].load(s, off, m, S[k]);
      step(X, G, S0, S1, m);
      if (t.xOut.present()) t.xOut.store(s, off, m, X);
      for (int k = 0; k < states; ++k) {
        if (t.stateOuts[k].present()) t.stateOuts[k].store(s, off, m, S[k]);
      }
    }
  }
}

}  // namespace

// r = R / (1 + T·decay_factor); G' = G + norm_coefficient·X; H_new = H + G'²;
// X_new = X - r·G' / (√H_new + epsilon).
KernelFn makeCpuKernel_Adagrad(const Op& op, KernelContext& kc) {
  const double decay = op.attrs.getFloat("decay_factor", 0.0f);
  const double eps = op.attrs.getFloat("epsilon", 1e-6f);
  const double nc = op.attrs.getFloat("norm_coefficient", 0.0f);
  const FBuf r = optim::fbuf(op, kc, ops::kTrainR);
  const int tSlot = kc.in(ops::kTrainT);
  const std::vector<TrainGroup> groups = trainGroups(op, kc);
  return [=](const RunState& s) {
    const TrainRT rt = readTrainRT(s, r, tSlot);
    const double lr = rt.r / (1.0 + static_cast<double>(rt.t) * decay);
    trainForEachBlock(s, groups, 1, [&](double* X, const double* G, double* H, double*, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        const double g = train_rules::l2Regularized(G[i], X[i], nc);
        H[i] = train_rules::accumulateSquare(H[i], g);
        X[i] -= lr * train_rules::rmsScaled(g, H[i], eps);
      }
    });
  };
}

// G' = G + norm_coefficient·X; V_new = alpha·V + (1 - alpha)·G'; H_new = beta·H + (1 - beta)·G'²;
// R' = R·√(1 - beta^T) / (1 - alpha^T) when T > 0, else R;
// X_new = (1 - norm_coefficient_post)·(X - R'·V_new / (√H_new + epsilon)).
KernelFn makeCpuKernel_Adam(const Op& op, KernelContext& kc) {
  const double alpha = op.attrs.getFloat("alpha", 0.9f);
  const double beta = op.attrs.getFloat("beta", 0.999f);
  const double eps = op.attrs.getFloat("epsilon", 1e-6f);
  const double nc = op.attrs.getFloat("norm_coefficient", 0.0f);
  const double post = 1.0 - static_cast<double>(op.attrs.getFloat("norm_coefficient_post", 0.0f));
  const FBuf r = optim::fbuf(op, kc, ops::kTrainR);
  const int tSlot = kc.in(ops::kTrainT);
  const std::vector<TrainGroup> groups = trainGroups(op, kc);
  return [=](const RunState& s) {
    const TrainRT rt = readTrainRT(s, r, tSlot);
    double lr = rt.r;
    if (rt.t > 0) {
      const double t = static_cast<double>(rt.t);
      lr = rt.r * std::sqrt(1.0 - std::pow(beta, t)) / (1.0 - std::pow(alpha, t));
    }
    trainForEachBlock(s, groups, 2, [&](double* X, const double* G, double* V, double* H, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        const double g = train_rules::l2Regularized(G[i], X[i], nc);
        V[i] = train_rules::movingAverage(V[i], g, alpha);
        H[i] = train_rules::movingAverageOfSquare(H[i], g, beta);
        X[i] = post * (X[i] - lr * train_rules::rmsScaled(V[i], H[i], eps));
      }
    });
  };
}

// G' = G + norm_coefficient·X; V_new = alpha·V + beta'·G' (beta' = beta when T > 0, else 1);
// standard: X_new = X - R·V_new; nesterov: X_new = X - R·(G' + alpha·V_new).
KernelFn makeCpuKernel_Momentum(const Op& op, KernelContext& kc) {
  const double alpha = op.attrs.getFloat("alpha");
  const double beta = op.attrs.getFloat("beta");
  const double nc = op.attrs.getFloat("norm_coefficient");
  const bool nesterov = op.attrs.getString("mode") == "nesterov";
  const FBuf r = optim::fbuf(op, kc, ops::kTrainR);
  const int tSlot = kc.in(ops::kTrainT);
  const std::vector<TrainGroup> groups = trainGroups(op, kc);
  return [=](const RunState& s) {
    const TrainRT rt = readTrainRT(s, r, tSlot);
    const double b = rt.t > 0 ? beta : 1.0;
    trainForEachBlock(s, groups, 1, [&](double* X, const double* G, double* V, double*, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        const double g = train_rules::l2Regularized(G[i], X[i], nc);
        V[i] = train_rules::velocity(V[i], g, alpha, b);
        X[i] -= rt.r * (nesterov ? train_rules::nesterovDirection(g, V[i], alpha) : V[i]);
      }
    });
  };
}

// Never runs: the prepare pipeline replaces every Gradient op by its backward pass
// (passes/gradient_op.cpp), and the op is not folded.
KernelFn makeCpuKernel_Gradient(const Op& op, KernelContext&) {
  throw internal_error("{} reached the CPU backend: Gradient ops are replaced when the session is prepared",
                       op.describe());
}

}  // namespace cpu
}  // namespace popart
