// Recomputation (autoRecomputation, checkpointOutput), the cases of tests/python/test_recompute.py
// through the JS API: RecomputeAll recomputes the layers before the last user checkpoint (the
// "recompute" op setting of _serializeIr, "<op>/recompute" clones), the training is bit-identical
// to no recomputation and the activation arena is smaller; PopART's error for Pipeline without
// pipelining.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cpu, createPopart, expectError } from './helpers.mjs';

const popart = await createPopart();
const ROWS = 32, COLS = 128, LAYERS = 12;

/** x -> LAYERS x (Mul by a weight, Tanh), a checkpoint every 4 layers -> L1 loss. */
function chain() {
  const b = new popart.Builder();
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [ROWS, COLS]), 'x');
  let h = x;
  for (let k = 0; k < LAYERS; ++k) {
    const w0 = new Float32Array(COLS);
    for (let i = 0; i < COLS; ++i) w0[i] = 1 + 0.1 * Math.sin(k * COLS + i);
    const w = b.addInitializedInputTensor(w0, `w${k}`);
    h = b.aiOnnx.tanh([b.aiOnnx.mul([h, w], `mul${k}`)], `tanh${k}`);
    if ((k + 1) % 4 === 0 && k + 1 < LAYERS) [h] = b.checkpointOutput([h]);
  }
  return { b, x, loss: b.aiGraphcore.l1loss([h], 0.1) };
}

function train(autoRecomputation, userOptions = {}) {
  const { b, x, loss } = chain();
  const s = new popart.TrainingSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [loss]), loss,
                                         optimizer: new popart.ConstSGD(0.05), deviceInfo: cpu(popart),
                                         userOptions: { autoRecomputation, ...userOptions } });
  b.dispose();
  try {
    s.prepareDevice();
    s.weightsFromHost();
    const anchors = s.initAnchorArrays();
    const xv = new Float32Array(ROWS * COLS);
    for (let i = 0; i < xv.length; ++i) xv[i] = Math.cos(i * 0.37);
    const losses = [];
    for (let step = 0; step < 3; ++step) {
      s.run(new popart.PyStepIO({ x: xv }, anchors));
      losses.push(anchors[loss].data[0]);
    }
    s.weightsToHost();
    const weights = {};
    for (let k = 0; k < LAYERS; ++k) weights[`w${k}`] = new Float32Array(COLS);
    s.readWeights(weights);
    const ops = JSON.parse(s._serializeIr('JSON')).maingraph;
    return { losses, weights, ops, arena: s.getMemoryStats().activationArenaBytes };
  } finally {
    s.dispose();
  }
}

const node = (name) => name.replace(/_\d+$/, '');

test('RecomputeAll: the layers before the last checkpoint are recomputed, results bit-identical', () => {
  const none = train('None');
  const all = train('RecomputeAll');
  const marks = {};
  for (const op of all.ops) if (!op.name.endsWith('/recompute')) marks[node(op.name)] = op.attributes.recompute;
  for (let k = 0; k < LAYERS; ++k) {
    const want = k < 8 ? 'YES' : 'NO';
    assert.equal(marks[`mul${k}`], want, `mul${k}`);
    assert.equal(marks[`tanh${k}`], want, `tanh${k}`);
  }
  const clones = all.ops.filter((op) => op.name.endsWith('/recompute')).map((op) => node(op.name.slice(0, -10)));
  assert.equal(clones.length, 16);
  assert.ok(none.ops.every((op) => op.attributes.recompute === 'NO'));
  assert.deepEqual(all.losses, none.losses);
  for (const k of Object.keys(none.weights)) assert.deepEqual(Array.from(all.weights[k]), Array.from(none.weights[k]));
  // Eight activations of [ROWS, COLS] floats no longer live through the forward pass.
  assert.ok(all.arena <= none.arena - 4 * ROWS * COLS * 4, `arena ${all.arena} vs ${none.arena}`);
});

test('Pipeline without pipelining is PopART\'s error', () => {
  expectError(() => train('Pipeline'),
              ['Invalid RecomputationType::Pipeline in autoAnnotate when using implicit pipelining.']);
});
