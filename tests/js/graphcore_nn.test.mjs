// aiGraphcore NN ops through JS (methods generated from the core's table): groupnormalization's
// three outputs against torch.nn.GroupNorm's definition computed here in double; its errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();

test('groupnormalization returns [y, mean, invStdDev] over groups of consecutive channels', () => {
  const b = new popart.Builder();
  const N = 2, C = 4, S = 3, G = 2, eps = 0.1;
  const x = b.addInputTensor('FLOAT', [N, C, S]);
  const g = b.addInputTensor('FLOAT', [C]);
  const be = b.addInputTensor('FLOAT', [C]);
  const outs = b.aiGraphcore.groupnormalization([x, g, be], G, eps);
  assert.equal(outs.length, 3);
  assert.deepEqual(b.getTensorShape(outs[1]), [N * G]);
  for (const o of outs) b.addOutputTensor(o);
  const xv = Float32Array.from({ length: N * C * S }, (_, i) => Math.sin(i) * 2 + i / 10);
  const gv = new Float32Array([1, 0.5, 2, 1.5]);
  const bv = new Float32Array([0, 1, -1, 0.25]);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, outs), cpu(popart));
  s.prepareDevice();
  const a = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: xv, [g]: gv, [be]: bv }, a));
  const per = (C / G) * S;
  for (let n = 0; n < N; ++n) {
    for (let k = 0; k < G; ++k) {
      const base = (n * C + k * (C / G)) * S;
      let m = 0, v = 0;
      for (let i = 0; i < per; ++i) m += xv[base + i];
      m /= per;
      for (let i = 0; i < per; ++i) v += (xv[base + i] - m) ** 2;
      v /= per;
      const inv = 1 / Math.sqrt(v + eps);
      assert.ok(Math.abs(a[outs[1]].data[n * G + k] - m) < 1e-5);
      assert.ok(Math.abs(a[outs[2]].data[n * G + k] - inv) < 1e-5);
      for (let i = 0; i < per; ++i) {
        const c = k * (C / G) + Math.floor(i / S);
        const want = (xv[base + i] - m) * inv * gv[c] + bv[c];
        assert.ok(Math.abs(a[outs[0]].data[base + i] - want) < 1e-5, `y[${base + i}]`);
      }
    }
  }
  s.dispose();
  expectError(() => b.aiGraphcore.groupnormalization([x, g, be]), ['num_groups']);
  b.dispose();
});
