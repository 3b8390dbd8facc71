// Issue 20 §1 names through JS (tests/unit/replicas_test.cpp and tests/python/test_replicas.py run
// the same cases): VariableSettings / CommGroup with grouped weights at inference replicas,
// InputSettings with Broadcast streams, getSupportedOperationsDefinition /
// getUnsupportedOperations, initializePoplarDebugInfo / closePoplarDebugInfo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPopart, expectError, cpu, TMP } from './helpers.mjs';

const popart = await createPopart();
fs.mkdirSync(TMP, { recursive: true });

const replicas = (n) => ({ enableReplicatedGraphs: true, replicatedGraphCount: n, constantWeights: false });
const rand = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 97 + i * 13.7));

test('VariableSettings getters follow PopART\'s rules (the core answers)', () => {
  const cg = new popart.CommGroup(popart.CommGroupType.Consecutive, 2);
  const one = new popart.VariableSettings(cg, popart.VariableRetrievalMode.OnePerGroup);
  const all = new popart.VariableSettings(cg, 'AllReplicas');
  assert.equal(one.getGroupCount(4), 2);
  assert.equal(one.numReplicasReturningVariable(4), 2);
  assert.equal(all.numReplicasReturningVariable(4), 4);
  assert.deepEqual(one.groups(4), [[0, 1], [2, 3]]);
  assert.deepEqual(new popart.VariableSettings(new popart.CommGroup('Orthogonal', 2)).groups(4), [[0, 2], [1, 3]]);
  assert.equal(new popart.VariableSettings(new popart.CommGroup('Ungrouped', 0)).getGroupCount(4), 4);
  assert.deepEqual(popart.enumValues.CommGroupType, ['All', 'Consecutive', 'Orthogonal', 'Ungrouped']);
  expectError(() => new popart.VariableSettings(new popart.CommGroup('Consecutive', 0)), ['VariableSettings had 1 errors!']);
  expectError(() => one.getGroupCount(3), ['replication factor 3 is not a multiple of the replica group size 2']);
});

function groupedSession(settings, init, r) {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [3], 'x');
  const w = b.addInitializedInputTensor(init, settings, 'w');
  const y = b.aiOnnxOpset11.mul([x, w]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [y]),
                                          deviceInfo: cpu(popart), userOptions: replicas(r) });
  b.dispose();
  s.prepareDevice();
  return { s, x, w, y };
}

test('grouped weights run per group and read back one value per group', () => {
  for (const type of ['Consecutive', 'Orthogonal']) {
    const settings = new popart.VariableSettings(new popart.CommGroup(type, 2), 'OnePerGroup');
    const w0 = rand(6, 1);
    const { s, x, w, y } = groupedSession(settings, new popart.NDArray(w0, [2, 3], 'FLOAT'), 4);
    const xs = rand(12, 2);
    const anchors = s.initAnchorArrays();
    assert.deepEqual(anchors[y].shape, [4, 3]);
    s.run(new popart.PyStepIO({ [x]: new popart.NDArray(xs, [4, 3], 'FLOAT') }, anchors));
    const groupOf = (r) => (type === 'Consecutive' ? Math.floor(r / 2) : r % 2);
    for (let r = 0; r < 4; ++r) {
      for (let i = 0; i < 3; ++i) {
        assert.equal(anchors[y].data[r * 3 + i], Math.fround(xs[r * 3 + i] * w0[groupOf(r) * 3 + i]));
      }
    }
    const back = { [w]: new Float32Array(6) };
    s.weightsToHost();
    s.readWeights(back);
    assert.deepEqual(Array.from(back[w]), Array.from(w0));
    s.dispose();
  }
});

test('a Broadcast input gives every replica the same micro-batch', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [2]), new popart.InputSettings('Broadcast'), 'x');
  const z = b.addInputTensor('FLOAT', [2], new popart.InputSettings('IO', 'OverlapLoops'), 'z');
  const y = b.aiOnnxOpset11.add([x, z]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [y]),
                                          deviceInfo: cpu(popart), userOptions: replicas(3) });
  b.dispose();
  s.prepareDevice();
  const xs = rand(2, 3), zs = rand(6, 4);
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: xs, [z]: new popart.NDArray(zs, [3, 2], 'FLOAT') }, anchors));
  for (let r = 0; r < 3; ++r) {
    for (let i = 0; i < 2; ++i) assert.equal(anchors[y].data[r * 2 + i], Math.fround(xs[i] + zs[r * 2 + i]));
  }
  expectError(() => s.run(new popart.PyStepIO({ [x]: zs, [z]: zs }, anchors)), ['Broadcast input']);
  s.dispose();
});

test('getSupportedOperationsDefinition and getUnsupportedOperations come from the core tables', () => {
  const defs = popart.getSupportedOperationsDefinition(false);
  assert.equal(defs.length, popart.getSupportedOperations(false).length);
  const reshape = defs.find((d) => d.domain === 'ai.onnx' && d.type === 'Reshape');
  assert.deepEqual(reshape.inputs.map((i) => [i.name, i.constant]), [['data', false], ['shape', true]]);
  assert.deepEqual(reshape.inputs[1].supportedTensors, ['INT64']);
  const conv = defs.find((d) => d.type === 'Conv');
  assert.equal(conv.attributes.strides.supportedValuesRegex, '*');
  const supported = new Set(popart.getSupportedOperations(false)
    .filter((o) => o.domain === 'ai.onnx' && o.version <= 11).map((o) => o.type));
  const unsupported = popart.getUnsupportedOperations(11);
  assert.ok(unsupported.length > 0);
  for (const o of unsupported) {
    assert.ok(!supported.has(o.type) && o.domain === 'ai.onnx' && o.version <= 11, JSON.stringify(o));
  }
  expectError(() => popart.getUnsupportedOperations(0), ['opsetVersion must be at least 1']);
});

test('debug info: Builder and IR contexts in PopART\'s JSON layout', () => {
  const fn = path.join(TMP, 'replicas_debug.json');
  popart.initializePoplarDebugInfo(fn, 'json');
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2], 'data');
  const y = b.aiOnnxOpset11.relu([x], 'myrelu');
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart));
  const text = popart.closePoplarDebugInfo();
  assert.equal(fs.readFileSync(fn, 'utf8'), text);
  const data = JSON.parse(text);
  const named = (n) => data.contexts.find((c) => data.stringTable[c.name] === n);
  assert.equal(named('myrelu').layer, 'popartbuilder');
  assert.equal(named('data').category, 'tensor');
  const irRelu = data.contexts.find((c) => c.layer === 'popart' && c.opid === 'ai.onnx.Relu:11');
  assert.equal(irRelu.parentId, named('myrelu').id);
  expectError(() => popart.closePoplarDebugInfo(), ['initializePoplarDebugInfo was not called']);
  s.dispose();
  b.dispose();
});
