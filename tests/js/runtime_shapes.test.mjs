// Run-time planning on the CPU device through JS (docs/architecture.md, "Static and run-time
// planning"; the native cases are tests/unit/runtime_shapes_test.cpp): a shape-giving input fed
// at run time, one session at several values, the anchors object taking each run's arrays, the
// plan cache's counters, and Unique whose output size each run's values give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();

function reshapeModel() {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset13;
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [2, 6]), 'x');
  const shape = b.addInputTensor(new popart.TensorInfo('INT64', [2]), 'shape');
  const y = ai.reshape([x, shape], 'r');
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, y };
}

test('a shape-giving input fed at run time: each run has its own shape', () => {
  const m = reshapeModel();
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), cpu(popart));
  assert.equal(s.getRunTimePlanStats().runTimeShapes, true);
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  const x = new popart.NDArray(Float32Array.from({ length: 12 }, (_, i) => i), [2, 6]);
  for (const shape of [[3, 4], [4, 3], [12, 1], [3, 4]]) {
    const held = anchors[m.y];
    s.run(new popart.PyStepIO({ x, shape: new popart.NDArray(BigInt64Array.from(shape.map(BigInt)), [2]) }, anchors));
    assert.equal(anchors[m.y], held, 'the NDArray the user holds takes the run\'s data');
    assert.deepEqual(anchors[m.y].shape, shape);
    assert.deepEqual(Array.from(anchors[m.y].data), Array.from(x.data));
  }
  const st = s.getRunTimePlanStats();
  assert.equal(st.plansBuilt, 3);
  assert.equal(st.plansReused, 1);
  assert.deepEqual(st.runTimeConstants, ['shape']);
  // A shape the data does not fit is the op's error; the session keeps working.
  expectError(() => s.run(new popart.PyStepIO({ x, shape: new popart.NDArray(new BigInt64Array([5n, 5n]), [2]) }, anchors)),
              ['cannot reshape']);
  s.run(new popart.PyStepIO({ x, shape: new popart.NDArray(new BigInt64Array([6n, 2n]), [2]) }, anchors));
  assert.deepEqual(anchors[m.y].shape, [6, 2]);
});

test('Unique of a run-time input: the output size is each run\'s', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset14;
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [5]), 'x');
  const u = ai.unique([x], 4, undefined, 1, 'uniq')[0];
  b.addOutputTensor(u);
  const proto = b.getModelProto();
  b.dispose();
  const s = new popart.InferenceSession(proto, new popart.DataFlow(1, [u]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  for (const v of [[3, 1, 3, 2, 1], [7, 7, 7, 7, 7], [5, 4, 3, 2, 1]]) {
    s.run(new popart.PyStepIO({ x: Float32Array.from(v) }, anchors));
    const want = [...new Set(v)].sort((p, q) => p - q);
    assert.deepEqual(Array.from(anchors[u].data), want);
    assert.deepEqual(anchors[u].shape, [want.length]);
  }
});
