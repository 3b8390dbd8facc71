// aiGraphcore splinebasis / splineweighting (methods generated from the core's table) and ONNX
// RoiAlign (generated from the ONNX schema) through JS, against their definitions computed here in
// double; their errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, runOutputs } from './helpers.mjs';

const popart = await createPopart();

const run = (b, outs, feeds) => runOutputs(popart, b, outs, feeds);

test('splinebasis returns [basis, weightIndex] of linear open splines; splineweighting applies them', () => {
  const b = new popart.Builder();
  const E = 3, K = 5, Min = 2, Mout = 2;
  const p = b.addInputTensor('FLOAT', [E, 1]);
  const ks = b.addInputTensor('INT32', [1]);
  const open = b.addInputTensor('UINT8', [1]);
  const x = b.addInputTensor('FLOAT', [E, Min]);
  const w = b.addInputTensor('FLOAT', [K, Min, Mout]);
  const [basis, index] = b.aiGraphcore.splinebasis([p, ks, open], 1);
  assert.deepEqual(b.getTensorShape(basis), [E, 2]);
  const y = b.aiGraphcore.splineweighting([x, w, basis, index]);
  const pv = new Float32Array([0.1, 0.5, 0.875]);
  const xv = new Float32Array([1, 2, -1, 0.5, 3, -2]);
  const wv = Float32Array.from({ length: K * Min * Mout }, (_, i) => Math.cos(i));
  const [rb, ri, ry] = run(b, [basis, index, y], {
    [p]: pv, [ks]: new Int32Array([K]), [open]: new Uint8Array([1]), [x]: xv, [w]: wv });
  for (let e = 0; e < E; ++e) {
    const u = pv[e] * (K - 1), knot = Math.floor(u), t = u - knot;  // degree 1, open: K - 1 segments
    const want = [1 - t, t];
    const idx = [knot % K, (knot + 1) % K];
    for (let s = 0; s < 2; ++s) {
      assert.ok(Math.abs(rb.data[e * 2 + s] - want[s]) < 1e-6, `basis[${e}, ${s}]`);
      assert.equal(ri.data[e * 2 + s], idx[s]);
    }
    for (let o = 0; o < Mout; ++o) {
      let acc = 0;
      for (let s = 0; s < 2; ++s)
        for (let i = 0; i < Min; ++i) acc += want[s] * xv[e * Min + i] * wv[(idx[s] * Min + i) * Mout + o];
      assert.ok(Math.abs(ry.data[e * Mout + o] - acc) < 1e-5, `y[${e}, ${o}]`);
    }
  }
  expectError(() => b.aiGraphcore.splinebasis([p, ks, open]), ['degree']);
  b.dispose();
});

test('roialign (opset 10) averages bilinear samples of each bin', () => {
  const b = new popart.Builder({ opsets: { 'ai.onnx': 10, 'ai.graphcore': 1 } });
  const H = 4, W = 4;
  const x = b.addInputTensor('FLOAT', [1, 1, H, W]);
  const r = b.addInputTensor('FLOAT', [1, 4]);
  const i = b.addInputTensor('INT64', [1]);
  const y = b.aiOnnx.roialign([x, r, i], 'avg', 1, 2, 1, 1.0);
  assert.deepEqual(b.getTensorShape(y), [1, 1, 1, 2]);
  // X = 10 * row + col is bilinear: each sample reads its own position; one sample per bin, at
  // the bin's centre: y = 0.5 + 3 / 2, x = 0.5 + (0.5 or 1.5) * 3 / 2.
  const xv = Float32Array.from({ length: H * W }, (_, k) => 10 * Math.floor(k / W) + (k % W));
  const [ry] = run(b, [y], { [x]: xv, [r]: new Float32Array([0.5, 0.5, 3.5, 3.5]), [i]: new BigInt64Array([0n]) });
  const want = [10 * 2 + (0.5 + 0.75), 10 * 2 + (0.5 + 2.25)];
  for (let k = 0; k < 2; ++k) assert.ok(Math.abs(ry.data[k] - want[k]) < 1e-5, `y[${k}]`);
  b.dispose();
});
