// Patterns that rewrite the IR, through JS (tests/python/test_patterns.py runs the same cases): the
// op types _serializeIr lists with a pattern on and off, Builder.excludePatterns, and outputs that
// do not change.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cpu, createPopart } from './helpers.mjs';

const popart = await createPopart();

const counts = (types) => types.reduce((c, t) => ({ ...c, [t]: (c[t] ?? 0) + 1 }), {});

/// Op types (in schedule order) and the output of b's model on xs, with `off` patterns disabled.
function run(b, x, y, xs, off = []) {
  const patterns = new popart.Patterns(popart.PatternsLevel.Default).enablePattern('InPlace', false);
  for (const name of off) patterns.enablePattern(name, false);
  const s = new popart.InferenceSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [y]),
                                          deviceInfo: cpu(popart), patterns });
  try {
    const types = JSON.parse(s._serializeIr()).maingraph.map((op) => op.type);
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ [x]: xs }, anchors));
    return { types, y: Array.from(anchors[y].data) };
  } finally {
    s.dispose();
  }
}

test('SumToAdd and NegativeOneScale rewrite, each switchable; outputs unchanged', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [6]), 'x');
  const y = b.aiOnnx.sum([b.aiGraphcore.scale([x], -1.0), b.aiOnnx.exp([x])]);
  b.addOutputTensor(y);
  const xs = Float32Array.from([0.5, -1, 2, 0, -0.25, 1.5]);
  const on = run(b, x, y, xs);
  assert.deepEqual(counts(on.types), { Neg: 1, Exp: 1, Add: 1 });
  const noSumToAdd = run(b, x, y, xs, ['SumToAdd']);
  assert.deepEqual(counts(noSumToAdd.types), { Neg: 1, Exp: 1, Sum: 1 });
  const noNeg = run(b, x, y, xs, ['NegativeOneScale']);
  assert.deepEqual(counts(noNeg.types), { Scale: 1, Exp: 1, Add: 1 });
  assert.deepEqual(noSumToAdd.y, on.y);
  assert.deepEqual(noNeg.y, on.y);
  on.y.forEach((v, i) => assert.ok(Math.abs(v - (Math.exp(xs[i]) - xs[i])) <= 1e-6 * (1 + Math.abs(v)), `at ${i}`));
  b.dispose();
});

test('TransposeToIdentityOrReshape removes a transpose pair', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [2, 3, 4]), 'x');
  const t = b.aiOnnx.transpose([b.aiOnnx.transpose([x], [2, 0, 1])], [1, 2, 0]);
  const y = b.aiOnnx.neg([t]);
  b.addOutputTensor(y);
  const xs = Float32Array.from({ length: 24 }, (_, i) => Math.sin(i));
  const on = run(b, x, y, xs), off = run(b, x, y, xs, ['TransposeToIdentityOrReshapePattern']);
  assert.deepEqual(counts(on.types), { Neg: 1 });
  assert.deepEqual(counts(off.types), { Transpose: 2, Neg: 1 });
  assert.deepEqual(on.y, Array.from(xs, (v) => -v));
  assert.deepEqual(off.y, on.y);
  b.dispose();
});

test('Builder.excludePatterns keeps one node out of a pattern', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [4]), 'x');
  const a = b.aiGraphcore.scale([x], -1.0);
  const y = b.aiGraphcore.scale([a], -1.0);
  b.excludePatterns(a, ['NegativeOneScale']);
  b.addOutputTensor(y);
  const xs = Float32Array.from([1, -2, 3, 0.5]);
  const r = run(b, x, y, xs);
  assert.deepEqual(r.types, ['Scale', 'Neg']);
  assert.deepEqual(r.y, Array.from(xs));
  b.dispose();
});
