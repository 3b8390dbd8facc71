// Replicated training in one process through JS (tests/unit/replicated_training_test.cpp and
// tests/python/test_replicated_training.py run the same cases): each replica trains on its own
// micro-batch, the gradients are summed over the replicas (averaged with ReductionType.Mean) before
// the update. Reference: one SGD step on the summed gradient, in double. Distribution over
// processes needs MPI, which the WebAssembly module has not: a clear error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu, runOutputs } from './helpers.mjs';

const popart = await createPopart();

const IN = 3, OUT = 2, ROWS = 2;
const W0 = [0.5, -0.25, 0.75, 1.0, -0.5, 0.125];
const inputs = (n) => Float32Array.from({ length: n * ROWS * IN }, (_, i) => Math.fround(Math.sin(0.7 * i + 0.3) * 2));

/// W after one SGD step (lr) on the sum over n micro-batches of d(sum |x W|)/dW (/ n if mean).
function reference(xs, n, lr, mean) {
  const grad = new Array(W0.length).fill(0);
  for (let m = 0; m < n; ++m) {
    for (let r = 0; r < ROWS; ++r) {
      for (let o = 0; o < OUT; ++o) {
        let y = 0;
        for (let i = 0; i < IN; ++i) y += xs[(m * ROWS + r) * IN + i] * Math.fround(W0[i * OUT + o]);
        for (let i = 0; i < IN; ++i) grad[i * OUT + o] += xs[(m * ROWS + r) * IN + i] * (y > 0 ? 1 : -1);
      }
    }
  }
  return W0.map((w, k) => w - lr * grad[k] / (mean ? n : 1));
}

function train(replicas, accumulation, mean, xs, extra = {}) {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [ROWS, IN], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(W0, [IN, OUT], 'FLOAT'), 'w');
  const loss = b.aiGraphcore.l1loss([b.aiOnnxOpset13.matmul([x, w])], 1.0, popart.ReductionType.Sum);
  const options = { ...extra };
  if (replicas > 1) Object.assign(options, { enableReplicatedGraphs: true, replicatedGraphCount: replicas });
  if (accumulation > 1) Object.assign(options, { enableGradientAccumulation: true, accumulationFactor: accumulation });
  if (mean) options.accumulationAndReplicationReductionType = popart.ReductionType.Mean;
  const s = new popart.TrainingSession({
    fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, { [loss]: popart.AnchorReturnType('All') }), loss,
    optimizer: new popart.SGD({ defaultLearningRate: [0.1, true] }), deviceInfo: cpu(popart),
    userOptions: new popart.SessionOptions(options),
  });
  b.dispose();
  try {
    s.prepareDevice();
    s.weightsFromHost();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ [x]: new popart.NDArray(xs, [accumulation, replicas, ROWS, IN], 'FLOAT') }, anchors));
    s.weightsToHost();
    const weights = { [w]: new Float32Array(IN * OUT) };
    s.readWeights(weights);
    return { w: Array.from(weights[w]), loss: anchors[loss] };
  } finally {
    s.dispose();
  }
}

const near = (got, want, tol) => got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= tol, `element ${i}: ${g} vs ${want[i]}`));

test('four replicas take one step on the summed gradient, with a loss per replica', () => {
  const xs = inputs(4);
  const r = train(4, 1, false, xs);
  near(r.w, reference(xs, 4, 0.1, false), 1e-5);
  assert.deepEqual(r.loss.shape, [4]);
});

test('the mean reduction divides by replicas x accumulation; replicas equal accumulation', () => {
  const xs = inputs(4);
  near(train(4, 1, true, xs).w, reference(xs, 4, 0.1, true), 1e-5);
  near(train(2, 2, true, xs).w, reference(xs, 4, 0.1, true), 1e-5);
  near(train(4, 1, false, xs).w, train(1, 4, false, xs).w, 1e-6);
});

test('distribution over processes is a clear error in WebAssembly', () => {
  expectError(() => train(1, 1, false, inputs(1), {
    enableDistributedReplicatedGraphs: true, globalReplicationFactor: 2, globalReplicaOffset: 0,
  }), ['need this runtime built with Open MPI', 'The WebAssembly module cannot distribute a session']);
  // The module keeps working.
  near(train(2, 1, false, inputs(2)).w, reference(inputs(2), 2, 0.1, false), 1e-5);
});

test('collectives combine over replica groups (the C++ and Python cases)', () => {
  // 4 replicas, x_r [6] = (j - 2.5) (r + 1); Consecutive 2: {0, 1}, {2, 3}; Orthogonal 2: {0, 2},
  // {1, 3} (position r / 2); references in double.
  const R = 4, N = 6;
  const xv = (r, j) => (j - 2.5) * (r + 1);
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [N], 'x');
  const gc = b.aiGraphcore;
  const consecutive = new popart.CommGroup('Consecutive', 2), orthogonal = new popart.CommGroup('Orthogonal', 2);
  const outs = [gc.replicatedallreduce([x]), gc.replicatedallreduce([x], 'Max', consecutive),
    gc.replicatedallreduce([x], popart.CollectiveOperator.Mean, orthogonal), gc.replicatedreducescatter([x]),
    gc.replicatedreducescatter([x], 'Local', consecutive)];
  const xs = Float32Array.from({ length: R * N }, (_, i) => xv(Math.floor(i / N), i % N));
  const [sum, max, mean, scatter, local] = runOutputs(popart, b, outs, { [x]: new popart.NDArray(xs, [R, N], 'FLOAT') },
    new popart.SessionOptions({ enableReplicatedGraphs: true, replicatedGraphCount: R }));
  b.dispose();
  const want = { sum: [], max: [], mean: [], scatter: [], local: [] };
  const total = (j) => [0, 1, 2, 3].reduce((a, k) => a + xv(k, j), 0);
  for (let r = 0; r < R; ++r) {
    const c0 = 2 * Math.floor(r / 2), o0 = r % 2;
    for (let j = 0; j < N; ++j) {
      want.sum.push(total(j));
      want.max.push(Math.max(xv(c0, j), xv(c0 + 1, j)));
      want.mean.push((xv(o0, j) + xv(o0 + 2, j)) / 2);
    }
    for (let j = 2 * r; j < 2 * r + 2; ++j) want.scatter.push(j < N ? total(j) : 0);
    for (let j = 3 * (r % 2); j < 3 * (r % 2) + 3; ++j) want.local.push(xv(r, j));
  }
  near(sum.data, want.sum, 1e-5);
  near(max.data, want.max, 0);
  near(mean.data, want.mean, 1e-6);
  assert.deepEqual(scatter.shape, [R, 2]);
  near(scatter.data, want.scatter, 1e-5);
  near(local.data, want.local, 0);
});

test('weights grouped by VariableSettings sum their gradients over their group (the C++ and Python cases)', () => {
  // 4 replicas, w [groups, 3, 2] shared by Orthogonal pairs {0, 2}, {1, 3}; loss_r = sum |x_r w|;
  // one SGD step, in double.
  const R = 4, G = 2;
  const groups = [[0, 2], [1, 3]];
  const w0 = Float32Array.from({ length: G * IN * OUT }, (_, i) => Math.fround(Math.cos(0.9 * i + 0.2)));
  const xs = inputs(R);
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [ROWS, IN], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(w0, [G, IN, OUT], 'FLOAT'),
    new popart.VariableSettings(new popart.CommGroup('Orthogonal', 2)), 'w');
  const loss = b.aiGraphcore.l1loss([b.aiOnnxOpset13.matmul([x, w])], 1.0, popart.ReductionType.Sum);
  const s = new popart.TrainingSession({
    fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [loss]), loss,
    optimizer: new popart.SGD({ defaultLearningRate: [0.1, true] }), deviceInfo: cpu(popart),
    userOptions: new popart.SessionOptions({ enableReplicatedGraphs: true, replicatedGraphCount: R }),
  });
  b.dispose();
  try {
    s.prepareDevice();
    s.weightsFromHost();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ [x]: new popart.NDArray(xs, [R, ROWS, IN], 'FLOAT') }, anchors));
    s.weightsToHost();
    const got = { [w]: new Float32Array(G * IN * OUT) };
    s.readWeights(got);
    const want = Array.from(w0);
    groups.forEach((members, g) => {
      for (const r of members) {
        for (let row = 0; row < ROWS; ++row) {
          for (let o = 0; o < OUT; ++o) {
            let y = 0;
            for (let i = 0; i < IN; ++i) y += xs[(r * ROWS + row) * IN + i] * w0[g * IN * OUT + i * OUT + o];
            for (let i = 0; i < IN; ++i) want[g * IN * OUT + i * OUT + o] -= 0.1 * xs[(r * ROWS + row) * IN + i] * (y > 0 ? 1 : -1);
          }
        }
      }
    });
    near(Array.from(got[w]), want, 1e-5);
  } finally {
    s.dispose();
  }
});

test('sharded optimizer state trains as the whole state (replicatedTensorSharding; the C++ and Python cases)', () => {
  // SGD with momentum and weight decay on 4 replicas, two steps: W's 6 elements of velocity are
  // held 2 per replica; W and the velocity the host reads equal the unsharded session's.
  const run = (location) => {
    const b = new popart.Builder();
    const x = b.addInputTensor('FLOAT', [ROWS, IN], 'x');
    const w = b.addInitializedInputTensor(new popart.NDArray(W0, [IN, OUT], 'FLOAT'), 'w');
    const loss = b.aiGraphcore.l1loss([b.aiOnnxOpset13.matmul([x, w])], 1.0, popart.ReductionType.Sum);
    const options = { enableReplicatedGraphs: true, replicatedGraphCount: 4 };
    if (location)
      options.optimizerStateTensorLocationSettings = new popart.TensorLocationSettings(location, 2, 4);
    const s = new popart.TrainingSession({
      fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [loss]), loss,
      optimizer: new popart.SGD({ defaultLearningRate: [0.1, true], defaultMomentum: [0.9, true],
                                  defaultWeightDecay: [0.05, true] }),
      deviceInfo: cpu(popart), userOptions: new popart.SessionOptions(options),
    });
    b.dispose();
    try {
      s.prepareDevice();
      s.weightsFromHost();
      const anchors = s.initAnchorArrays();
      const xs = inputs(8);
      for (let step = 0; step < 2; ++step)
        s.run(new popart.PyStepIO({ [x]: new popart.NDArray(xs.slice(step * 4 * ROWS * IN, (step + 1) * 4 * ROWS * IN),
                                                            [4, ROWS, IN], 'FLOAT') }, anchors));
      s.weightsToHost();
      const out = { [w]: new Float32Array(IN * OUT), Accl___w: new Float32Array(IN * OUT) };
      s.readWeights(out);
      if (location) {  // the whole state written on the host, loaded in shards, read back as written
        const v = Float32Array.from({ length: IN * OUT }, (_, i) => i + 0.5);
        s.writeWeights({ Accl___w: v });
        s.weightsFromHost();
        s.weightsToHost();
        const back = { Accl___w: new Float32Array(IN * OUT) };
        s.readWeights(back);
        assert.deepEqual(Array.from(back.Accl___w), Array.from(v));
      }
      return { w: Array.from(out[w]), v: Array.from(out.Accl___w), shape: s.getInfo('Accl___w').shape() };
    } finally {
      s.dispose();
    }
  };
  const whole = run(undefined);
  for (const domain of [undefined, new popart.CommGroup('Consecutive', 2), [1, 4]]) {
    const sharded = run(new popart.TensorLocation(popart.TensorStorage.OnChip, popart.ReplicatedTensorSharding.On, domain));
    const k = domain === undefined ? 4 : Array.isArray(domain) ? domain[1] : domain.replicaGroupSize;
    assert.deepEqual(Array.from(sharded.shape), [Math.ceil(6 / k)]);
    near(sharded.w, whole.w, 1e-6);
    near(sharded.v, whole.v, 1e-6);
  }
  assert.deepEqual(Array.from(whole.shape), [IN, OUT]);
  assert.ok(whole.v.some((v) => v !== 0));
});
