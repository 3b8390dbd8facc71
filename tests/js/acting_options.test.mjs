// SessionOptions that act (issue 20 §2), the cases of tests/python/test_acting_options.py:
// enableNonStableSoftmax, enableStableNorm, syntheticDataMode, partialsTypeMatMuls. References in
// double (Math) or float16 arithmetic emulated with Math.fround + a float16 rounding.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cpu, createPopart, expectError, runOutputs } from './helpers.mjs';

const popart = await createPopart();

const infer = (b, outs, feeds, userOptions) => runOutputs(popart, b, outs, feeds, userOptions).map((r) => r.data);

test('enableNonStableSoftmax: exp without the max subtracted overflows as PopART', () => {
  for (const nonStable of [false, true]) {
    const b = new popart.Builder();
    const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [2, 3]), 'x');
    const y = b.aiOnnx.softmax([x], 1);
    const [out] = infer(b, [y], { x: new Float32Array([100, 101, 99, 1, 2, 3]) },
                        { enableNonStableSoftmax: nonStable });
    b.dispose();
    assert.equal(out.slice(0, 3).every(Number.isNaN), nonStable);
    const e = [1, 2, 3].map(Math.exp);
    const sum = e[0] + e[1] + e[2];
    out.slice(3).forEach((v, i) => assert.ok(Math.abs(v - e[i] / sum) < 1e-6));
  }
});

test('enableStableNorm: the two-pass variance keeps the digits of offset data', () => {
  const n = 64;
  const data = new Float32Array(2 * n);
  for (let i = 0; i < data.length; ++i) data[i] = 1000 + Math.sin(i * 1.7);
  const errs = {};
  for (const stable of [false, true]) {
    const b = new popart.Builder();
    const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [1, 2, n]), 'x');
    const sc = b.addInitializedInputTensor(new Float32Array([1, 1]), 'scale');
    const bi = b.addInitializedInputTensor(new Float32Array([0, 0]), 'bias');
    const y = b.aiOnnx.instancenormalization([x, sc, bi], 1e-5);
    const [out] = infer(b, [y], { x: data }, { enableStableNorm: stable });
    b.dispose();
    let err = 0;
    for (let c = 0; c < 2; ++c) {
      const row = Array.from(data.slice(c * n, (c + 1) * n));
      const mean = row.reduce((a, v) => a + v, 0) / n;
      const v = row.reduce((a, t) => a + (t - mean) ** 2, 0) / n;
      row.forEach((t, i) => { err = Math.max(err, Math.abs(out[c * n + i] - (t - mean) / Math.sqrt(v + 1e-5))); });
    }
    errs[stable] = err;
  }
  assert.ok(errs[true] < 1e-3, `stable error ${errs[true]}`);
  assert.ok(errs[false] > 10 * errs[true], `non-stable ${errs[false]} vs stable ${errs[true]}`);
});

test('syntheticDataMode: generated inputs, the StepIO neither read nor written', () => {
  const train = (mode) => {
    const b = new popart.Builder();
    const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [4]), 'x');
    const w = b.addInitializedInputTensor(new Float32Array([1, 1, 1, 1]), 'w');
    const y = b.aiOnnx.mul([x, w]);
    const loss = b.aiGraphcore.l1loss([y], 1.0, popart.ReductionType.Sum);
    const s = new popart.TrainingSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [y]), loss,
                                           optimizer: new popart.ConstSGD(0.5), deviceInfo: cpu(popart),
                                           userOptions: { syntheticDataMode: mode } });
    b.dispose();
    try {
      s.prepareDevice();
      s.weightsFromHost();
      const anchors = s.initAnchorArrays();
      anchors[y].data.fill(7);
      s.run(new popart.PyStepIO(mode === 'Off' ? { x: new Float32Array([1, -2, 3, -4]) } : {}, anchors));
      s.weightsToHost();
      const weights = { w: new Float32Array(4) };
      s.readWeights(weights);
      return { y: Array.from(anchors[y].data), w: Array.from(weights.w) };
    } finally {
      s.dispose();
    }
  };
  const off = train('Off');
  assert.deepEqual(off.y, [1, -2, 3, -4]);
  assert.deepEqual(off.w, [0.5, 0, -0.5, -1]);  // w - 0.5 |x|
  const zeros = train('Zeros');
  assert.deepEqual(zeros.y, [7, 7, 7, 7]);
  assert.deepEqual(zeros.w, [1, 1, 1, 1]);
  const n1 = train('RandomNormal'), n2 = train('RandomNormal');
  assert.deepEqual(n1.w, n2.w);
  assert.ok(n1.w.some((v) => v !== 1));
});

test('partialsTypeMatMuls "half": FLOAT16 MatMul accumulates in float16', () => {
  const K = 300;
  const a = new Float32Array(K), w = new Float32Array(K);
  for (let k = 0; k < K; ++k) {
    a[k] = Math.round(4096 * Math.sin(k)) / 1024;
    w[k] = Math.round(1024 * Math.cos(k * 0.7)) / 1024;
  }
  // float16 rounding of a double (round to nearest even at 11 significant bits; no subnormals here).
  const f16 = (v) => {
    if (v === 0) return 0;
    const e = Math.floor(Math.log2(Math.abs(v)));
    const q = 2 ** (e - 10);
    const r = v / q;
    const fl = Math.floor(r);
    const d = r - fl;
    const m = d > 0.5 || (d === 0.5 && fl % 2 !== 0) ? fl + 1 : fl;
    return m * q;
  };
  // FLOAT16 data crosses the JS API as its bits (Uint16Array); every value here is a normal float16.
  const bits = (v) => {
    if (v === 0) return 0;
    const e = Math.floor(Math.log2(Math.abs(v)));
    return (v < 0 ? 0x8000 : 0) | ((e + 15) << 10) | Math.round((Math.abs(v) / 2 ** e - 1) * 1024);
  };
  const value = (h) => {
    const e = (h >> 10) & 31, m = h & 1023;
    return (h & 0x8000 ? -1 : 1) * (e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15));
  };
  const a16 = Uint16Array.from(a, (v) => bits(f16(v))), w16 = Uint16Array.from(w, (v) => bits(f16(v)));
  let acc = 0, exact = 0;
  for (let k = 0; k < K; ++k) {
    acc = f16(Math.fround(acc + Math.fround(f16(a[k]) * f16(w[k]))));
    exact += f16(a[k]) * f16(w[k]);
  }
  const run = (userOptions) => {
    const b = new popart.Builder();
    const x = b.addInputTensor(new popart.TensorInfo('FLOAT16', [1, K]), 'x');
    const wt = b.addInitializedInputTensor(new popart.NDArray(w16, [K, 1], 'FLOAT16'), 'w');
    const y = b.aiOnnx.matmul([x, wt]);
    const [out] = infer(b, [y], { x: new popart.NDArray(a16, [1, K], 'FLOAT16') }, userOptions);
    b.dispose();
    return value(out[0]);
  };
  assert.equal(run({ partialsTypeMatMuls: 'half' }), acc);
  assert.equal(run({}), f16(exact));
  expectError(() => run({ partialsTypeMatMuls: 'quarter' }), ["Unable to get partials type from string 'quarter'"]);
});

test('compilationProgressLogger: (0, total) at creation, (total, total) once compiled; a throwing one is reported', () => {
  const build = () => {
    const b = new popart.Builder();
    const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [2]), 'x');
    const y = b.aiOnnx.relu([x]);
    b.addOutputTensor(y);
    const proto = b.getModelProto();
    b.dispose();
    return { proto, y };
  };
  const { proto, y } = build();
  const calls = [];
  const opts = new popart.SessionOptions({ compilationProgressTotal: 40 });
  opts.compilationProgressLogger = (progress, total) => calls.push([progress, total]);
  const s = new popart.InferenceSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [y]), deviceInfo: cpu(popart),
                                          userOptions: opts });
  assert.deepEqual(calls, [[0, 40]]);
  s.prepareDevice();
  assert.deepEqual(calls, [[0, 40], [20, 40], [40, 40]]);
  s.dispose();
  // A function that throws does not stop the session (console.error reports it).
  const errors = [];
  const saved = console.error;
  console.error = (...a) => errors.push(a.map(String).join(' '));
  try {
    const s2 = new popart.InferenceSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [y]), deviceInfo: cpu(popart),
                                             userOptions: { compilationProgressLogger: () => { throw new Error('no bar'); } } });
    s2.prepareDevice();
    s2.dispose();
  } finally {
    console.error = saved;
  }
  assert.equal(errors.length, 3);
  assert.match(errors[0], /compilationProgressLogger threw: Error: no bar/);
  expectError(() => new popart.InferenceSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [y]),
                                                  deviceInfo: cpu(popart), userOptions: { compilationProgressLogger: 3 } }),
              ['SessionOptions.compilationProgressLogger must be a function (progress, total)']);
});

test('enableConstantFoldingOfMultipleConsumers: off keeps a shared constant expression as an op; same results', () => {
  const run = (fold) => {
    const b = new popart.Builder();
    const ai = b.aiOnnxOpset11;
    const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [3]), 'x');
    const c = ai.add([ai.constant(new popart.NDArray([1, 2, 3], [3], 'FLOAT')),
                      ai.constant(new popart.NDArray([0.5, 0.5, 0.5], [3], 'FLOAT'))], 'cexpr');
    const y = ai.sub([ai.mul([x, c]), c]);
    b.addOutputTensor(y);
    const s = new popart.InferenceSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [y]),
                                            deviceInfo: cpu(popart),
                                            userOptions: { enableConstantFoldingOfMultipleConsumers: fold } });
    b.dispose();
    const names = JSON.parse(s._serializeIr()).maingraph.map((op) => op.name);
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ x: new Float32Array([1, -2, 4]) }, anchors));
    s.dispose();
    return { kept: names.some((n) => n.startsWith('cexpr')), y: Array.from(anchors[y].data) };
  };
  const folded = run(true), kept = run(false);
  assert.equal(folded.kept, false);
  assert.equal(kept.kept, true);
  assert.deepEqual(folded.y, [0, -7.5, 10.5]);
  assert.deepEqual(kept.y, folded.y);
});
