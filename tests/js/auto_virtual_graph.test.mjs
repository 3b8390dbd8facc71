// virtualGraphMode 'Auto' from JS, the cases of tests/python/test_auto_virtual_graph.py: PopART's
// AutoVirtualGraph split as serializeIr shows it (each op's __ipu_number), the IPU model's report
// following it, the outputs unchanged, PopART's "Couldn't find enough splits" error, and training
// (gradient ops on their forward op's IPU). Every value and message is the core's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();
const ipus = (n) => popart.DeviceManager().createIpuModelDevice({ tilesPerIPU: 16, numIPUs: n });
const auto = { virtualGraphMode: 'Auto' };

/// op name (the Builder's "_<n>" suffix dropped unless `full`) -> __ipu_number (null: none).
function placement(s, full = false) {
  const out = {};
  for (const op of JSON.parse(s.serializeIr()).maingraph) {
    const a = op.attributes.__ipu_number;
    out[full ? op.name : op.name.replace(/_\d+$/, '')] = a === undefined ? null : Number(a);
  }
  return out;
}

const weight = (b, rows, cols, seed, name) => b.addInitializedInputTensor(
    new popart.NDArray(Float32Array.from({ length: rows * cols }, (_, i) => (((i + seed) * 7919) % 201 - 100) * 5e-3),
                       [rows, cols]), name);

/// A (x0) -> C; B (x1); D = C + B -> E: MatMuls with 8x8 weights (256 bytes), the Add none.
function branches() {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x0 = b.addInputTensor('FLOAT', [4, 8], 'x0');
  const x1 = b.addInputTensor('FLOAT', [4, 8], 'x1');
  const a = ai.matmul([x0, weight(b, 8, 8, 1, 'wA')], 'A');
  const c = ai.matmul([a, weight(b, 8, 8, 2, 'wC')], 'C');
  const bb = ai.matmul([x1, weight(b, 8, 8, 3, 'wB')], 'B');
  const d = ai.add([c, bb], 'D');
  const y = ai.matmul([d, weight(b, 8, 8, 4, 'wE')], 'E');
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, x0, x1, y };
}

function runBranches(s, m) {
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  const feed = (seed) => Float32Array.from({ length: 32 }, (_, i) => ((i * 31 + seed) % 17) * 0.1 - 0.8);
  s.run(new popart.PyStepIO({ [m.x0]: feed(1), [m.x1]: feed(2) }, anchors));
  return Array.from(anchors[m.y].data);
}

test('two input branches: PopART\'s split on 2 and 4 IPUs, the report follows, the outputs are unchanged', () => {
  const m = branches();
  const ref = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), cpu(popart));
  const want = runBranches(ref, m);
  ref.dispose();
  for (const [n, expected] of [[2, { A: 0, C: 0, B: 1, D: 1, E: 1 }], [4, { A: 0, C: 1, B: 2, D: 3, E: 3 }]]) {
    const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), ipus(n), undefined, auto);
    assert.deepEqual(placement(s), expected);
    assert.deepEqual(runBranches(s, m), want);
    const fromReport = {};
    for (const op of s.getReport().compilation.ops) fromReport[op.name.replace(/_\d+$/, '')] = op.ipu;
    assert.deepEqual(fromReport, expected);
    s.dispose();
  }
});

test('too few split points is PopART\'s error, and the module keeps working', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2, 8], 'x');
  const y = b.aiOnnx.matmul([x, weight(b, 8, 4, 1, 'w')], 'mm');
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  expectError(() => new popart.InferenceSession(proto, new popart.DataFlow(1, [y]), ipus(4), undefined, auto),
              ["[AutoVirtualGraph] Couldn't find enough splits for 4 IPUs. Only found 1"]);
  const s = new popart.InferenceSession(proto, new popart.DataFlow(1, [y]), ipus(2), undefined, auto);
  assert.deepEqual(placement(s), { mm: 0 });
  s.dispose();
});

test('training: the backward ops and weight updates on their forward op\'s IPU', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x = b.addInputTensor('FLOAT', [1, 64], 'x');
  const h = ai.relu([ai.matmul([x, weight(b, 64, 64, 5, 'w1')], 'mm1')], 'relu');
  const y = ai.matmul([h, weight(b, 64, 64, 6, 'w2')], 'mm2');
  const loss = b.aiGraphcore.l1loss([y], 0.1, popart.ReductionType.Sum);
  const proto = b.getModelProto();
  b.dispose();
  const s = new popart.TrainingSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [loss]), loss,
                                         optimizer: new popart.ConstSGD(0.1), deviceInfo: ipus(2),
                                         userOptions: auto });
  const p = placement(s);
  assert.equal(p.mm1, 0);
  assert.equal(p.mm2, 1);
  const full = placement(s, true);
  let grads = 0;
  for (const [name, ipu] of Object.entries(full)) {
    assert.notEqual(ipu, null, `${name} has no __ipu_number`);
    const fwd = name.split('/grad')[0];
    if (fwd !== name && fwd in full) {
      assert.equal(ipu, full[fwd], name);
      grads += 1;
    }
  }
  assert.ok(grads >= 4);
  const updates = {};
  for (const op of JSON.parse(s.serializeIr()).maingraph)
    if (op.type.includes('VarUpdate')) updates[op.inputs[0].name] = Number(op.attributes.__ipu_number);
  assert.deepEqual(updates, { w1: 0, w2: 1 });
  s.dispose();
});
