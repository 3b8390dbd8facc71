// Sequences and optional values through JS (docs/js-api.md, "Sequences and optional values"; the
// native cases are tests/unit/sequences_test.cpp, the Python ones tests/python/test_sequences.py):
// a sequence input is an Array of NDArrays, a sequence anchor comes back as one; an optional input
// is an array or null, an optional anchor its value or null.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';
import * as w from './onnx_writer.mjs';

const popart = await createPopart();
const seqOfFloat = () => w.sequenceType(w.tensorType(w.FLOAT));

/// y = ConcatFromSequence(x, axis 0), n = SequenceLength(x), z = SequenceMap(x, Neg).
function concatModel() {
  const body = w.graph('body', [w.node('Neg', ['e'], ['ne'])], [w.valueInfo('e', w.tensorType(w.FLOAT))],
                       [w.valueInfo('ne', w.tensorType(w.FLOAT))]);
  return w.model(w.graph('g', [w.node('ConcatFromSequence', ['x'], ['y'], { axis: 0 }),
                               w.node('SequenceLength', ['x'], ['n']), w.node('SequenceMap', ['x'], ['z'], { body })],
                         [w.valueInfo('x', seqOfFloat())],
                         [w.valueInfo('y', w.tensorType(w.FLOAT, ['N', 3])), w.valueInfo('n', w.tensorType(w.INT64, [])),
                          w.valueInfo('z', seqOfFloat())]), 17);
}

const rows = (r, start) => new popart.NDArray(Float32Array.from({ length: r * 3 }, (_, i) => start + i), [r, 3]);

test('a sequence input (an Array of NDArrays) and a sequence anchor', () => {
  const s = new popart.InferenceSession(concatModel(), new popart.DataFlow(1, ['y', 'n', 'z']), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  assert.equal('z' in anchors, false, 'a sequence anchor comes with the run');
  for (const sizes of [[2, 1], [3], [2, 1]]) {
    const xs = sizes.map((r, k) => rows(r, 100 * k));
    s.run(new popart.PyStepIO({ x: xs }, anchors));
    assert.deepEqual(Array.from(anchors.y.data), xs.flatMap((a) => Array.from(a.data)));
    assert.deepEqual(anchors.y.shape, [sizes.reduce((a, b) => a + b), 3]);
    assert.equal(Number(anchors.n.data[0]), xs.length);
    assert.ok(Array.isArray(anchors.z) && anchors.z.length === xs.length);
    anchors.z.forEach((z, k) => {
      assert.ok(z instanceof popart.NDArray);
      assert.deepEqual(z.shape, xs[k].shape);
      assert.deepEqual(Array.from(z.data), Array.from(xs[k].data, (v) => -v));
    });
  }
  const st = s.getRunTimePlanStats();
  assert.equal(st.plansBuilt, 2);
  assert.equal(st.plansReused, 1);
  // An empty sequence is ConcatFromSequence's error; the session keeps working.
  expectError(() => s.run(new popart.PyStepIO({ x: [] }, anchors)), ['is empty']);
  s.run(new popart.PyStepIO({ x: [rows(1, 7)] }, anchors));
  assert.deepEqual(Array.from(anchors.y.data), [7, 8, 9]);
});

test('an optional input: an array or null; an optional anchor: its value or null', () => {
  const opt = w.optionalType(w.tensorType(w.FLOAT));
  const m = w.model(w.graph('g', [w.node('OptionalHasElement', ['o'], ['has']), w.node('Identity', ['o'], ['same'])],
                            [w.valueInfo('o', opt)], [w.valueInfo('has', w.tensorType(w.BOOL, [])), w.valueInfo('same', opt)]), 16);
  const s = new popart.InferenceSession(m, new popart.DataFlow(1, ['has', 'same']), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  const v = new popart.NDArray(new Float32Array([1.5, -2]), [2]);
  s.run(new popart.PyStepIO({ o: v }, anchors));
  assert.equal(Boolean(anchors.has.data[0]), true);
  assert.deepEqual(Array.from(anchors.same.data), [1.5, -2]);
  s.run(new popart.PyStepIO({ o: null }, anchors));
  assert.equal(Boolean(anchors.has.data[0]), false);
  assert.equal(anchors.same, null);
});

test('the IPU model needs static lengths', () => {
  expectError(() => new popart.InferenceSession(concatModel(), new popart.DataFlow(1, ['y']),
                                                popart.DeviceManager().createIpuModelDevice({ numIPUs: 1 })),
              ["Input tensor 'x' is a sequence"]);
});
