// Names PopART scripts use, through JS (tests/python/test_api_names.py and
// tests/unit/api_names_test.cpp run the same cases): reserved prefixes, versions, default opsets,
// the RecomputeType / DeviceSelectionCriterion enums, checkpointOutput, PopART 3.4's
// SessionOptions fields, nested TensorLocationSettings and the settings classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();

test('reserved prefixes have PopART values, one function each', () => {
  assert.equal(popart.reservedGradientPrefix(), 'Gradient___');
  assert.equal(popart.reservedRestoredPrefix(), 'Restored___');
  assert.equal(popart.reservedStashedPrefix(), 'Stashed___');
  assert.equal(popart.reservedLossScalingPrefix(), 'lossScaling_');
  assert.equal(popart.reservedDefaultAdamBeta1Prefix(), 'adamBeta1___default___');
  const names = Object.keys(popart).filter((n) => /^(reserved\w+|hostReduce\w+|anchorSum|cycleCount)Prefix$/.test(n));
  const values = names.map((n) => popart[n]());
  assert.ok(names.length >= 60);
  assert.equal(new Set(values).size, values.length);
});

test('version, package hash and default opsets', () => {
  assert.match(popart.versionString(), /^\d+\.\d+\.\d+$/);
  assert.deepEqual(popart.versionNumber(), popart.versionString().split('.').map(Number));
  assert.ok(popart.packageHash() === 'unknown' || /^[0-9a-f]{7,40}$/.test(popart.packageHash()));
  assert.deepEqual([popart.defaultAiOnnxOpset, popart.defaultAiOnnxMlOpset, popart.defaultAiGraphcoreOpset], [10, 1, 1]);
  const b = new popart.Builder();
  assert.equal(b.aiOnnx.getOpsetVersion(), popart.defaultAiOnnxOpset);
  b.dispose();
});

test('enums from the core table', () => {
  assert.deepEqual(popart.enumValues.RecomputeType, ['Undefined', 'Checkpoint', 'Recompute', 'Recomputed']);
  assert.deepEqual(popart.enumValues.DeviceSelectionCriterion, ['First', 'Random']);
  assert.equal(popart.DeviceSelectionCriterion.Random, 'Random');
});

test('checkpointOutput is a marked identity; recompute types by name or number', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [3], 'x');
  const r = b.aiOnnx.relu([x]);
  b.recomputeOutputInBackwardPass(r);
  assert.ok(b.getAllNodeAttributeNames([r]).includes('__recompute_output_in_backward_pass'));
  b.recomputeOutputInBackwardPass([r], 'Checkpoint');
  expectError(() => b.recomputeOutputInBackwardPass(r, 9), ['9 is not a RecomputeType']);
  expectError(() => b.recomputeOutputInBackwardPass(r, 'Sometimes'), ["Invalid RecomputeType 'Sometimes'"]);
  const [c] = b.checkpointOutput([r]);
  assert.notEqual(c, r);
  assert.ok(b.getAllNodeAttributeNames([c]).includes('__recompute_output_in_backward_pass'));
  assert.equal(b.hasVirtualGraph(), false);
  assert.equal(b.hasPipelineStage(), false);
  expectError(() => b.getVirtualGraph(), ['Virtual graph not set in current scope']);
  expectError(() => b.getPipelineStage(), ['Pipeline stage not set in current scope']);
  const b2 = new popart.Builder();
  const r2 = b2.aiOnnx.relu([b2.addInputTensor('FLOAT', [1])]);
  b2.virtualGraph([r2], 2);
  assert.equal(b2.getVirtualGraph(r2), 2);
  // The set forms: the node making all of these outputs (TopK's values and indices).
  const topk = b2.aiOnnx.topk([r2, b2.aiOnnx.constant(new popart.NDArray([1], [1], 'INT64'))], 0);
  b2.virtualGraph(new Set(topk), 1);
  b2.pipelineStage(topk, 3);
  b2.executionPhase(topk, 4);
  assert.deepEqual([b2.getVirtualGraph(new Set(topk)), b2.getPipelineStage(topk), b2.getExecutionPhase(topk)],
                   [1, 3, 4]);
  assert.equal(b2.getExecutionPhase(topk[1]), 4);
  expectError(() => b2.getVirtualGraph([topk[0], r2]), ['Could not find a node with outputs']);
  expectError(() => b2.getExecutionPhase(), ['Execution phase not set in current scope']);
  b2.setInplacePreferences(r2, { ReluInplace: 5 });
  assert.ok(b2.getAllNodeAttributeNames([r2]).includes('__inplace_op_priorities'));
  expectError(() => b2.setEnableConvDithering(r2, true),
              ['Builder::setEnableConvDithering should only be called on convolutions but was given: Relu']);
  const c2 = b2.aiOnnx.conv([b2.addInputTensor('FLOAT', [1, 1, 3, 3]),
                             b2.addInitializedInputTensor(new popart.NDArray([1, 1, 1, 1], [1, 1, 2, 2], 'FLOAT'))]);
  b2.setEnableConvDithering(c2, true);
  assert.ok(b2.getAllNodeAttributeNames([c2]).includes('__enable_conv_dithering'));
  expectError(() => b2.setEnableConvDithering(c2, 44), ['enableConvDithering must be a bool value']);
  b2.dispose();
  b.addOutputTensor(c);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [c]),
                                        cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: new popart.NDArray([-1, 0.5, 2], [3], 'FLOAT') }, anchors));
  assert.deepEqual(Array.from(anchors[c].data), [0, 0.5, 2]);
  s.dispose();
  b.dispose();
});

test("PopART 3.4's SessionOptions fields exist with PopART's defaults; unknown names stay errors", () => {
  const o = new popart.SessionOptions();
  for (const [name, def] of [['enableOutliningCopyCostPruning', true], ['transitiveClosureOptimizationThreshold', 100000],
    ['opxModifyChecking', false], ['separateCallOpPdfs', true], ['groupHostSync', false],
    ['updatableNamedBuffers', []], ['serializedPoprithmsShiftGraphsDir', ''], ['customCodeletCompileFlags', '']]) {
    assert.deepEqual(o[name], def, name);
  }
  assert.equal(o.experimentalSettings.createHostTransferableTensorWithOffset, false);
  assert.equal(o.weightTensorLocationSettings.location.storage, 'OnChip');
  assert.equal(o.weightTensorLocationSettings.minElementsForReplicatedTensorSharding, 8192);
  const p = new popart.SessionOptions({ groupHostSync: true, defaultPrefetchBufferingDepth: 3,
    weightTensorLocationSettings: { location: { storage: 'OffChip' }, minElementsForOffChip: 0 } });
  assert.equal(p.groupHostSync, true);
  // Options are checked when a session takes them: an unknown name (at any depth) is an error naming it.
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2], 'x');
  const y = b.aiOnnx.relu([x]);
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  const session = (opts) => new popart.InferenceSession(proto, new popart.DataFlow(1, [y]), cpu(popart), undefined,
                                                        opts);
  session(p).dispose();  // the new fields are accepted
  expectError(() => session({ enableTheThing: true }), ["SessionOptions has no option 'enableTheThing'"]);
  expectError(() => session({ weightTensorLocationSettings: { location: { where: 1 } } }),
              ["SessionOptions has no option 'weightTensorLocationSettings.location.where'"]);
  b.dispose();
});

test("settings classes from the core's list: PopART's forms, defaults from the options table", () => {
  const { TensorLocationSettings, TensorLocation, TensorStorage, ReplicatedTensorSharding, TileSet } = popart;
  const a = new TensorLocationSettings(TensorStorage.OffChip, 0);
  assert.deepEqual(a, Object.assign(new TensorLocationSettings(), {
    location: new TensorLocation('OffChip'), minElementsForOffChip: 0 }));
  assert.equal(a.location.storage, 'OffChip');
  assert.equal(a.minElementsForReplicatedTensorSharding, 8192);
  const loc = new TensorLocation(TensorStorage.OffChip, ReplicatedTensorSharding.On);
  assert.equal(loc.replicatedTensorSharding, 'On');
  assert.equal(loc.loadTileSet, 'Compute');
  const loc4 = new TensorLocation('OnChip', TileSet.IO, TileSet.IO, 'Off');
  assert.deepEqual([loc4.loadTileSet, loc4.storageTileSet], ['IO', 'IO']);
  // PopART's keyword form TensorLocationSettings(storage=...), as one object of fields.
  assert.deepEqual(new TensorLocationSettings({ storage: 'OffChip', minElementsForOffChip: 3 }),
                   new TensorLocationSettings(new TensorLocation('OffChip'), 3));
  assert.deepEqual(TensorLocation.fields(),
                   ['storage', 'loadTileSet', 'storageTileSet', 'replicatedTensorSharding', 'shardingDomain']);
  // PopART's (storage, sharding, shardingDomain): a CommGroup or its [type, size] pair.
  const loc3 = new TensorLocation('OnChip', 'On', new popart.CommGroup('Consecutive', 2));
  assert.equal(loc3.shardingDomain.replicaGroupSize, 2);
  assert.deepEqual(new TensorLocation().shardingDomain, [0, 0]);
  assert.throws(() => new TensorLocation({ where: 1 }), /TensorLocation has no field 'where'/);
  assert.throws(() => new popart.ExecutionPhaseSettings(...Array(9).fill(1)),
                /ExecutionPhaseSettings takes at most 7 positional arguments \(phases, stages, .*\), got 9/);
  const eps = new popart.ExecutionPhaseSettings(2, 1);
  assert.deepEqual([eps.phases, eps.stages, eps.weightIOSchedule], [2, 1, 'Preload']);
  const als = new popart.AutomaticLossScalingSettings(true, ['t'], 0.5);
  assert.deepEqual([als.enabled, als.toTrackTensors, als.binEdgeLocation], [true, ['t'], 0.5]);

  // They go where the nested objects go, and a session takes them.
  const opts = new popart.SessionOptions({ activationTensorLocationSettings: a, executionPhaseSettings: eps,
                                           batchSerializationSettings: new popart.BatchSerializationSettings(4) });
  assert.equal(opts.activationTensorLocationSettings.location.storage, 'OffChip');
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2], 'x');
  const y = b.aiOnnx.relu([x]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart), undefined,
                                        new popart.SessionOptions({ weightTensorLocationSettings: a }));
  s.dispose();
  b.dispose();
});

test('getSupportedOperations lists the op list', () => {
  const pub = popart.getSupportedOperations(false);
  const all = popart.getSupportedOperations(true);
  assert.ok(pub.some((o) => o.domain === 'ai.onnx' && o.type === 'Relu'));
  assert.ok(pub.some((o) => o.domain === 'ai.graphcore' && o.type === 'Gelu'));
  assert.ok(pub.every((o) => o.domain !== 'internal'));
  assert.ok(all.length > pub.length);
});

test('builder call forms as PopART: randomuniform / randomnormal take no args list', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const c = ai.constant(new popart.NDArray([1.5, -2], [2], 'FLOAT'), 'myconst');
  assert.ok(c.startsWith('myconst'));
  const r = ai.randomuniform([2], 1, 4.0, 3.0);  // shape, dtype, high, low: the C++ order
  const n = ai.randomnormal([2], 1, 0.0, 1.0, undefined, 'mynormal');  // shape, dtype, mean, scale, seed, name
  assert.ok(n.startsWith('mynormal'));
  const o = ai.add([c, r]);
  b.addOutputTensor(o);
  b.addOutputTensor(n);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [o, n]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({}, anchors));
  const u = Array.from(anchors[o].data, (v, i) => v - [1.5, -2][i]);
  assert.ok(u.every((v) => v >= 3.0 - 1e-6 && v <= 4.0 + 1e-6), String(u));
  assert.deepEqual(anchors[n].shape, [2]);
  s.dispose();
  b.dispose();
});

test("scoped annotations: virtualGraph / pipelineStage / executionPhase / recomputeOutput (PopART's with-blocks)", () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [1], 'x');
  let r;
  const got = b.virtualGraph(2, () => b.pipelineStage(1, () => {
    assert.deepEqual([b.hasVirtualGraph(), b.getVirtualGraph(), b.getPipelineStage()], [true, 2, 1]);
    b.virtualGraph(3, () => { r = b.aiOnnx.relu([x]); });
    assert.equal(b.getVirtualGraph(), 2);  // the outer scope's again
    return 'inner';
  }));
  assert.equal(got, 'inner');
  assert.deepEqual([b.hasVirtualGraph(), b.hasPipelineStage()], [false, false]);
  assert.deepEqual([b.getVirtualGraph(r), b.getPipelineStage(r)], [3, 1]);
  b.executionPhase(4, () => {
    assert.equal(b.getExecutionPhase(), 4);
    r = b.aiOnnx.neg([x]);
  });
  assert.equal(b.getExecutionPhase(r), 4);
  // A scope that throws is still closed.
  assert.throws(() => b.virtualGraph(5, () => { throw new Error('inside'); }), /inside/);
  assert.equal(b.hasVirtualGraph(), false);
  const t = b.recomputeOutput('Recompute', () => b.aiOnnx.tanh([x]));
  assert.ok(b.getAllNodeAttributeNames([t]).includes('__recompute_output_in_backward_pass'));
  assert.equal(b.getInt64NodeAttribute('__recompute_output_in_backward_pass', [t]), 2);  // RecomputeType.Recompute
  const s = b.schedulePriority(7, () => b.aiOnnx.exp([x]));
  assert.equal(b.getInt64NodeAttribute('__schedule_priority', [s]), 7);
  expectError(() => b.recomputeOutput('Sometimes', () => {}), ["Invalid RecomputeType 'Sometimes'"]);
  b.dispose();
});

test("PopART's typed node-attribute getters and removeNodeAttribute", () => {
  const b = new popart.Builder();
  const r = b.aiOnnx.relu([b.addInputTensor('FLOAT', [1], 'x')]);
  b.addNodeAttribute('i', 3, [r]);
  b.addNodeAttribute('is', [1, 2], [r]);
  b.addNodeAttribute('f', 0.5, [r]);
  b.addNodeAttribute('fs', [0.25, 1.5], [r]);
  b.addNodeAttribute('s', 'text', [r]);
  b.addNodeAttribute('ss', ['a', 'b'], [r]);
  assert.deepEqual([b.getInt64NodeAttribute('i', [r]), b.getInt64VectorNodeAttribute('is', [r]),
                    b.getFloatNodeAttribute('f', [r]), b.getFloatVectorNodeAttribute('fs', [r]),
                    b.getStringNodeAttribute('s', r), b.getStringVectorNodeAttribute('ss', new Set([r]))],
                   [3, [1, 2], 0.5, [0.25, 1.5], 'text', ['a', 'b']]);
  expectError(() => b.getStringNodeAttribute('i', [r]), ['is not a string']);
  b.removeNodeAttribute('i', [r]);
  assert.equal(b.nodeHasAttribute('i', [r]), false);
  expectError(() => b.getInt64NodeAttribute('i', [r]), ['Node does not have an attribute i.']);
  expectError(() => b.removeNodeAttribute('i', [r]), ['Cannot remove attribute i as it does not exist.']);
  b.dispose();
});
