// Lifetime: every Embind handle is owned by the JS layer and freed by dispose(); 1,000 create /
// run / dispose cycles (with errors in between) leave the wasm heap at its baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, addModel, cpu } from './helpers.mjs';

const popart = await createPopart();

function cycle(m, withError) {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2, 3]);
  b.addOutputTensor(b.aiOnnxOpset11.relu([x]));
  b.getModelProto();
  b.dispose();
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(2, [m.out]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ a: new Float32Array(12).fill(1), b: new Float32Array(12).fill(2) }, anchors));
  if (withError) {  // the error must be thrown (and leave nothing behind)
    expectError(() => s.run(new popart.PyStepIO({ a: new Float32Array(12) }, anchors)), ["no input for tensor 'b'"]);
  }
  s.dispose();
  return anchors[m.out].data[0];
}

test('1,000 create / run / dispose cycles return the heap to its baseline', () => {
  const m = addModel(popart);
  for (let i = 0; i < 20; ++i) cycle(m, i % 2 === 0);  // warm-up: one-time caches
  const baseline = popart.heapInUse();
  for (let i = 0; i < 1000; ++i) assert.equal(cycle(m, i % 10 === 0), 3);
  const after = popart.heapInUse();
  assert.ok(after <= baseline, `heap grew from ${baseline} to ${after} bytes`);
});
