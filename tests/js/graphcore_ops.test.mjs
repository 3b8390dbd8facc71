// aiGraphcore methods made from the core's table (tests/unit/graphcore_ops_test.cpp,
// tests/python/test_graphcore_ops_misc.py): bitwise ops, nearbyint, incrementmod, init (no inputs),
// reverse / depthtospace, and abort (no outputs; the run fails with "Abort Program").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, runOutputs } from './helpers.mjs';

const popart = await createPopart();

const runOnce = (b, outs, feeds) => runOutputs(popart, b, outs, feeds).map((r) => r.data);

test('bitwise ops, nearbyint, incrementmod and init', () => {
  const b = new popart.Builder();
  const gc = b.aiGraphcore;
  const a = b.addInputTensor('INT32', [4], 'a');
  const c = b.addInputTensor('INT32', [4], 'c');
  const x = b.addInputTensor('FLOAT', [4], 'x');
  const and = gc.bitwiseand([a, c]);
  const xnor = gc.bitwisexnor([a, c], 'xnor');
  const not = gc.bitwisenot([a]);
  const nb = gc.nearbyint([x]);
  const im = gc.incrementmod([a], 3, 4);
  const z = gc.init([2, 2], 'FLOAT', 'Zero');
  assert.equal(xnor, 'xnor:0');
  assert.deepEqual(b.getTensorShape(z), [2, 2]);
  const av = [5, -6, 255, -1], cv = [3, 12, 15, 7];
  const [andV, xnorV, notV, nbV, imV, zV] = runOnce(b, [and, xnor, not, nb, im, z], {
    a: new popart.NDArray(new Int32Array(av), [4]),
    c: new popart.NDArray(new Int32Array(cv), [4]),
    x: new popart.NDArray(new Float32Array([0.5, 1.5, 2.5, -2.5]), [4]),
  });
  assert.deepEqual(andV, av.map((v, i) => v & cv[i]));
  assert.deepEqual(xnorV, av.map((v, i) => ~(v ^ cv[i])));
  assert.deepEqual(notV, av.map((v) => ~v));
  assert.deepEqual(nbV, [0, 2, 2, -2]);  // half to even
  assert.deepEqual(imV, [0, -3 % 4, 258 % 4, 2]);  // C's fmod of x + 3
  assert.deepEqual(zV, [0, 0, 0, 0]);
  expectError(() => gc.bitwiseand([a]), ['BitwiseAnd has invalid number of inputs 1']);
  expectError(() => gc.init([2], 'NOT_A_TYPE', 'Zero'), ['NOT_A_TYPE']);
  b.dispose();
});

test('reverse and depthtospace; abort fails the run', () => {
  const b = new popart.Builder();
  const gc = b.aiGraphcore;
  const x = b.addInputTensor('FLOAT', [1, 4, 1, 2], 'x');
  const r = gc.reverse([x], [3]);
  const d = gc.depthtospace([x], 2, 'DCR');
  assert.deepEqual(b.getTensorShape(d), [1, 1, 2, 4]);
  const xs = Float32Array.from({ length: 8 }, (_, i) => i);
  const [rV, dV] = runOnce(b, [r, d], { x: new popart.NDArray(xs, [1, 4, 1, 2]) });
  assert.deepEqual(rV, [1, 0, 3, 2, 5, 4, 7, 6]);
  // DCR: y[0, 0, h, w] = x[0, (h % 2) * 2 + w % 2, 0, w / 2 | 0].
  assert.deepEqual(dV, [0, 2, 1, 3, 4, 6, 5, 7]);
  b.dispose();

  const b2 = new popart.Builder();
  const y = b2.aiOnnxOpset11.abs([b2.addInputTensor('FLOAT', [1], 'y')]);
  assert.equal(b2.aiGraphcore.abort(), undefined);  // args default to [] (unconditional), no outputs
  expectError(() => runOnce(b2, [y], { y: new popart.NDArray(new Float32Array([1]), [1]) }), ['Abort Program']);
  b2.dispose();
});

test('replicatedallreduce takes a CommGroup or the [type, size] pair for commGroup', () => {
  const build = (group) => {
    const b = new popart.Builder();
    const x = b.addInputTensor('FLOAT', [4], 'x');
    b.addOutputTensor(b.aiGraphcore.replicatedallreduce([x], null, group));  // PopART's order: operator, group
    const proto = b.getModelProto();
    b.dispose();
    return Buffer.from(proto).toString('hex');
  };
  assert.equal(build(new popart.CommGroup('Consecutive', 2)), build([1, 2]));
  assert.notEqual(build(new popart.CommGroup('Orthogonal', 2)), build([1, 2]));
  // PopART's `with builder.commGroup(type, size):` scope.
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [4], 'x');
  const inside = b.commGroup('Orthogonal', 4, () => b.aiGraphcore.replicatedallreduce([x]));
  const outside = b.aiGraphcore.replicatedallreduce([x]);
  assert.deepEqual(b.getInt64VectorNodeAttribute('__collectiveCommGroup', [inside]), [2, 4]);
  assert.ok(!b.getAllNodeAttributeNames([outside]).includes('__collectiveCommGroup'));
  b.dispose();
});
