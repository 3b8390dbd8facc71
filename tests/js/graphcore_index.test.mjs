// aiGraphcore indexing ops through JS (methods generated from the core's table): dynamicslice with
// a wrapping offset, scatterreduce with a ScatterReduction, sort's list of outputs,
// packedDataBlock with a subgraph Builder as its callback (and its gradient), call (subgraphs,
// nested; random ops in a callee in training); the native error messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, runOutputs } from './helpers.mjs';

const popart = await createPopart();

const run = (b, outs, feeds) => runOutputs(popart, b, outs, feeds);

test('dynamicslice reads its offset as PopART does: a slice past the end wraps', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [4, 3]);
  const o = b.addInputTensor('UINT32', [1]);
  const y = b.aiGraphcore.dynamicslice([x, o], [0], [2], 1);
  assert.deepEqual(b.getTensorShape(y), [2, 3]);
  const [r] = run(b, [y], { [x]: Float32Array.from({ length: 12 }, (_, i) => i), [o]: new Uint32Array([3]) });
  assert.deepEqual(r.data, [9, 10, 11, 0, 1, 2]);
  b.dispose();
});

test('scatterreduce takes a ScatterReduction; sort returns [values, indices]', () => {
  const b = new popart.Builder();
  const src = b.addInputTensor('FLOAT', [6]);
  const idx = b.addInputTensor('UINT32', [6]);
  const mx = b.aiGraphcore.scatterreduce([src, idx], 4, -1, popart.ScatterReduction.Max);
  const mul = b.aiGraphcore.scatterreduce([src, idx], 4, 0, 'Mul');
  const [v, i] = b.aiGraphcore.sort([src], -1, 1);
  assert.equal(b.getTensorDtypeString(i), 'int64');
  const [rmax, rmul, rv, ri] = run(b, [mx, mul, v, i], {
    [src]: new Float32Array([1, 3, 2, 4, 5, 6]), [idx]: new Uint32Array([0, 1, 0, 1, 1, 3]) });
  assert.deepEqual(rmax.data, [2, 5, 0, 6]);  // torch_scatter's results: nothing scattered to 2
  assert.deepEqual(rmul.data, [2, 60, 1, 6]);
  assert.deepEqual(rv.data, [6, 5, 4, 3, 2, 1]);
  assert.deepEqual(ri.data, [5n, 4n, 3n, 1n, 2n, 0n]);
  expectError(() => b.aiGraphcore.scatterreduce([src, idx], 4, 0, 'Mean'), ["Invalid ScatterReduction 'Mean'"]);
  b.dispose();
});

test('packedDataBlock takes a subgraph Builder as its callback', () => {
  const b = new popart.Builder();
  const d = b.addInputTensor('FLOAT', [5, 2]);
  const off = b.addInputTensor('UINT32', [2]);
  const len = b.addInputTensor('UINT32', [2]);
  const sub = b.createSubgraphBuilder();
  const si = sub.addUntypedInputTensor();
  sub.addOutputTensor(sub.aiOnnxOpset11.add([si, si]));
  const y = b.aiGraphcore.packedDataBlock([d, off, len, off, len], [3], 5, 1, sub);
  assert.deepEqual(b.getTensorShape(y), [5, 2]);
  expectError(() => b.aiGraphcore.packedDataBlock([d, off, len, off, len], [3], 5, 1, 'f'),
              ['aiGraphcore.packedDataBlock callback must be a Builder (a subgraph)']);
  const [r] = run(b, [y], { [d]: Float32Array.from({ length: 10 }, (_, i) => i), [off]: new Uint32Array([0, 2]),
                            [len]: new Uint32Array([2, 3]) });
  assert.deepEqual(r.data, Array.from({ length: 10 }, (_, i) => 2 * i));
  b.dispose();
});

test('packedDataBlock passes gradients to its data (rows no sequence reads get none)', () => {
  // The same rule as graphcore_index_grad_test.cpp and test_graphcore_ops_index.py: y = x * x per
  // sequence, loss sum(y); row 2 is in no sequence.
  const b = new popart.Builder();
  const d = b.addInputTensor('FLOAT', [6, 2]);
  const off = b.addInputTensor('UINT32', [2]);
  const len = b.addInputTensor('UINT32', [2]);
  const sub = b.createSubgraphBuilder();
  const si = sub.addUntypedInputTensor();
  sub.addOutputTensor(sub.aiOnnxOpset11.mul([si, si]));
  const y = b.aiGraphcore.packedDataBlock([d, off, len, off, len], [3], 6, 1, sub);
  const loss = b.aiGraphcore.identityloss([y], 'Sum');
  const gd = popart.reservedGradientPrefix() + d;
  const s = new popart.TrainingSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [y, gd]), loss,
                                         optimizer: new popart.ConstSGD(0.1),
                                         deviceInfo: popart.DeviceManager().createCpuDevice() });
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  const x = Float32Array.from({ length: 12 }, (_, i) => i - 5);
  s.run(new popart.PyStepIO({ [d]: x, [off]: new Uint32Array([0, 3]), [len]: new Uint32Array([2, 3]) }, anchors));
  const read = (i) => Math.floor(i / 2) !== 2;
  assert.deepEqual(Array.from(anchors[y].data), Array.from(x, (v, i) => (read(i) ? v * v : 0)));
  assert.deepEqual(Array.from(anchors[gd].data), Array.from(x, (v, i) => (read(i) ? 2 * v : 0)));
  s.dispose();
  b.dispose();
});

test('call runs a subgraph Builder (twice, and nested) and returns its outputs', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [3]);
  const y = b.addInputTensor('FLOAT', [3]);
  const inner = b.createSubgraphBuilder();
  const ia = inner.addUntypedInputTensor();
  inner.addOutputTensor(inner.aiOnnxOpset11.mul([ia, ia]));
  const outer = b.createSubgraphBuilder();
  const oa = outer.addUntypedInputTensor();
  const ob = outer.addUntypedInputTensor();
  const sq = outer.aiGraphcore.call([oa], 1, inner)[0];
  outer.addOutputTensor(outer.aiOnnxOpset11.add([sq, ob]));
  outer.addOutputTensor(outer.aiOnnxOpset11.neg([ob]));
  const [s, n] = b.aiGraphcore.call([x, y], 2, outer);
  const [t] = b.aiGraphcore.call([s, y], 2, outer);
  assert.deepEqual(b.getTensorShape(s), [3]);
  expectError(() => b.aiGraphcore.call([x], 2, outer),
              ['number of inputs (1) does not match that of the callee subgraph (2)']);
  const xs = [1, -2, 0.5];
  const ys = [3, 4, -1];
  const [rs, rn, rt] = run(b, [s, n, t], { [x]: new Float32Array(xs), [y]: new Float32Array(ys) });
  const want = xs.map((v, i) => v * v + ys[i]);
  assert.deepEqual(rs.data, want);
  assert.deepEqual(rn.data, ys.map((v) => -v));
  assert.deepEqual(rt.data, want.map((v, i) => v * v + ys[i]));
  b.dispose();
});

test('random ops in a callee draw once for the forward and backward pass', () => {
  // tests/python/test_graphcore_call.py and graphcore_call_test.cpp run the same case: a Dropout
  // in a callee called twice, 2 batches; gradients dropped where the outputs are, the calls and
  // the batches draw different masks; training inlines the Calls.
  const n = 64;
  const bps = 2;
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [n]);
  const sg = b.createSubgraphBuilder();
  const sx = sg.addUntypedInputTensor();
  sg.addOutputTensor(sg.aiOnnxOpset10.dropout([sx], 1, 0.5)[0]);
  const a0 = b.aiGraphcore.scale([x], 0.5);
  const a1 = b.aiGraphcore.scale([x], 0.25);
  const [y0] = b.aiGraphcore.call([a0], 1, sg);
  const [y1] = b.aiGraphcore.call([a1], 1, sg);
  const loss = b.aiGraphcore.identityloss([b.aiOnnx.add([y0, y1])], 'Sum');
  const gp = popart.reservedGradientPrefix();
  const s = new popart.TrainingSession({ fnModel: b.getModelProto(),
                                         dataFlow: new popart.DataFlow(bps, [y0, y1, gp + a0, gp + a1]), loss, optimizer: new popart.ConstSGD(0.1),
                                         deviceInfo: popart.DeviceManager().createCpuDevice() });
  s.prepareDevice();
  s.weightsFromHost();
  s.setRandomSeed(7);
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: new Float32Array(n * bps).fill(1) }, anchors));
  const dropped = (id, step) => Array.from(anchors[id].data.slice(step * n, (step + 1) * n), (v) => v === 0);
  for (let step = 0; step < bps; ++step) {
    assert.deepEqual(dropped(y0, step), dropped(gp + a0, step), `call 0, batch ${step}`);
    assert.deepEqual(dropped(y1, step), dropped(gp + a1, step), `call 1, batch ${step}`);
    assert.notDeepEqual(dropped(y0, step), dropped(y1, step));
  }
  assert.notDeepEqual(dropped(y0, 0), dropped(y0, 1));
  const types = JSON.parse(s.serializeIr()).maingraph.map((op) => op.type);
  assert.ok(!types.includes('Call') && types.includes('Dropout'), types.join(' '));
  s.dispose();
  b.dispose();
});
