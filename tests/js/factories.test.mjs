// The optimizer and loss classes come from the core's table of constructors (factoryList(),
// popart/factories.hpp): PopART's argument order and defaults, `undefined` for a default, and the
// core's TypeError-like message for a call that fits no form. tests/python/test_factories.py
// runs the same cases through Python.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();

const rand = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 7.1 + i * 1.3));
const W0 = rand(9, 2);
const X = rand(6, 1);

/// The weights and the loss after one training step of x @ w with a pre-1.2 L1Loss(y, 'l1', 0.1).
function oneStep(optimizer) {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2, 3], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(W0, [3, 3], 'FLOAT'), 'w');
  const y = b.aiOnnx.matmul([x, w]);
  b.addOutputTensor(y);
  const s = new popart.TrainingSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, ['l1']),
                                         losses: [new popart.L1Loss(y, 'l1', 0.1)], optimizer,
                                         deviceInfo: cpu(popart) });
  b.dispose();
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: X }, anchors));
  const out = { [w]: new Float32Array(9) };
  s.weightsToHost();
  s.readWeights(out);
  s.dispose();
  return { w: Array.from(out[w]), loss: anchors.l1.data[0] };
}
const maxDiff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));

test('the classes are the table: PopART names, order and bases', () => {
  const table = popart.factoryList();
  assert.deepEqual(table.map((f) => f.name), ['SGD', 'ConstSGD', 'Adam', 'Adaptive', 'NllLoss', 'L1Loss', 'IdentityLoss']);
  assert.deepEqual(table.find((f) => f.name === 'Adam').signatures[0].args.map((a) => a.name),
                   ['values', 'mode', 'weight_decay_mode', 'accum_type', 'accl1_type', 'accl2_type',
                    'clip_norm_settings', 'scaled_optimizer_state', 'debugContext']);
  for (const f of table) {
    assert.equal(popart[f.name].name, f.name);
    assert.ok(popart[f.name].prototype instanceof (f.family === 'optimizer' ? popart.Optimizer : popart.Loss), f.name);
  }
  const c = new popart.ConstSGD(0.5);
  assert.ok(c instanceof popart.SGD);
  assert.equal(c.type(), 'SGD');
  assert.equal(new popart.Adaptive({}).type(), 'Adaptive');
  assert.throws(() => new popart.Optimizer(), /Optimizer is abstract/);
});

test('positional arguments with undefined defaults reach the same optimizer as PopART names them', () => {
  const clip = [popart.ClipNormSettings.clipAllWeights(2.0)];
  const values = { defaultLearningRate: [0.02, false], defaultBeta1: [0.8, true] };
  const lamb = oneStep(new popart.Adam(values, popart.AdamMode.Lamb, 'L2Regularization', 'FLOAT', 'FLOAT', 'FLOAT',
                                       clip, true));
  const lambDefaults = oneStep(new popart.Adam(values, 'Lamb', 'L2Regularization', 'FLOAT', undefined, undefined,
                                               clip, true));
  assert.deepEqual(lambDefaults.w, lamb.w);
  // The mode reached the optimizer: Adam's step differs from Lamb's.
  assert.ok(maxDiff(lamb.w, oneStep(new popart.Adam(values)).w) > 1e-4);
  // Adaptive's default mode is RMSProp.
  const rms = { defaultLearningRate: [0.02, false] };
  assert.deepEqual(oneStep(new popart.Adaptive(rms)).w, oneStep(new popart.Adaptive(rms, 'RMSProp', 'Decay')).w);
});

test('a call that fits no form lists the forms (PopART\'s TypeError text)', () => {
  expectError(() => new popart.Adam(0.01), ['Adam(): incompatible constructor arguments. The following argument types are supported:',
                                             "1. Adam(values: dict = {}, mode: AdamMode = 'Adam'", 'Invoked with: 0.01']);
  expectError(() => new popart.SGD(0.1, []), ['2. SGD(values: dict = {}, clip_norm_settings', 'Invoked with: 0.1, []']);
  expectError(() => new popart.NllLoss('t', 'l', 'o', 1.5), ['NllLoss(): incompatible constructor arguments',
                                                             "Invoked with: 't', 'l', 'o', 1.5"]);
  // A name where an enum goes fits the form; the core then names the enum's values.
  expectError(() => new popart.NllLoss('t', 'l', 'o', 'x'), ["Invalid ReductionType 'x'; expected one of Sum, Mean"]);
  expectError(() => new popart.SGD({}, [1, 2]), ['Invoked with: {}, [1,2]']);
  // The constructors' own errors pass through.
  expectError(() => new popart.Adam({}, 'Adamish'), ["Invalid AdamMode 'Adamish'"]);
  expectError(() => new popart.SGD({ learningRate: [0.1, true] }), ['Invalid SGD key, learningRate']);
  expectError(() => new popart.SGD(-1), ['Negative learning rate']);
});

test('insertSpecific on every optimizer, checked by the core', () => {
  const a = new popart.Adam({});
  assert.equal(a.insertSpecific('w', { beta1: [0.5, true] }), a);
  expectError(() => a.insertSpecific('w', { momentum: [0.5, true] }), ['Invalid key momentum in Adam::insertSpecific']);
  // A rejected insertSpecific leaves the optimizer as it was: it still trains.
  const sgd = new popart.SGD({ defaultLearningRate: [0.1, false] });
  const plain = oneStep(sgd).w;
  sgd.insertSpecific('w', { learningRate: [0.5, false] });
  const faster = oneStep(sgd).w;
  for (let i = 0; i < 9; ++i) assert.ok(Math.abs((faster[i] - W0[i]) - 5 * (plain[i] - W0[i])) < 1e-5, `w[${i}]`);
});

test('losses from the table: every form, and L1Loss trains', () => {
  const nll = new popart.NllLoss('p', 'l', 'loss', 2, 'Mean');
  assert.equal(nll.output(), 'loss');
  assert.equal(new popart.NllLoss('p', 'l', 'loss', popart.ReductionType.Mean).output(), 'loss');
  assert.equal(new popart.NllLoss('p', 'l', 'loss', undefined, 'Sum', true).output(), 'loss');
  assert.equal(new popart.IdentityLoss('x', 'id').output(), 'id');
  const { w, loss } = oneStep(new popart.ConstSGD(0.1));
  let ref = 0;
  for (let i = 0; i < 2; ++i)
    for (let j = 0; j < 3; ++j) {
      let y = 0;
      for (let k = 0; k < 3; ++k) y += X[i * 3 + k] * W0[k * 3 + j];
      ref += Math.abs(y);
    }
  assert.ok(Math.abs(loss - 0.1 * ref) < 1e-5 * ref, `${loss} vs ${0.1 * ref}`);
  assert.ok(maxDiff(w, Array.from(W0)) > 0);
});
