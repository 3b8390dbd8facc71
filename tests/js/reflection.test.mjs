// The core's tables through JS (issue 12): SessionOptions fields, enums and optimizer keys come
// from the core, index.d.ts's generated blocks match them, and the JS faces that used to drift
// from the core (Adam's clipping, options JS could not set, isPatternEnabled) now agree with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createPopart, expectError, cpu } from './helpers.mjs';
import { DTS, generatedBlocks, regenerated } from '../../scripts/gen_js_types.mjs';

const popart = await createPopart();

test('index.d.ts and report-types.d.ts match the core tables (node scripts/gen_js_types.mjs regenerates them)', () => {
  const files = regenerated(generatedBlocks(popart));
  assert.equal(files.size, 2);
  for (const [file, { before, after }] of files)
    assert.equal(after, before, `${file} is out of date: run node scripts/gen_js_types.mjs`);
  const text = fs.readFileSync(DTS, 'utf8');
  for (const o of popart.SessionOptions.list()) {
    const top = o.name.split('.')[0];
    assert.ok(new RegExp(`\\n\\s+${top}\\?:`).test(text), `index.d.ts lacks SessionOptions.${top}`);
  }
});

test('every SessionOptions field can be set from JS, nested settings included', () => {
  const list = popart.SessionOptions.list();
  assert.ok(list.length > 90);
  const names = new Set(list.map((o) => o.name));
  for (const n of ['accumulationAndReplicationReductionType', 'executionPhaseSettings.phases',
                   'automaticLossScalingSettings.enabled', 'hardwareInstrumentations', 'bufferingDepthMap',
                   'tensorLocationSettingsOverride', 'syntheticDataMode', 'autoRecomputation']) {
    assert.ok(names.has(n), n);
  }
  const o = new popart.SessionOptions();  // every default, as the core has it
  assert.equal(o.executionPhaseSettings.stages, 2);
  assert.equal(o.virtualGraphMode, 'Off');
  assert.deepEqual(o.hardwareInstrumentations, ['Outer']);
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2]);
  const y = b.aiOnnx.relu([x]);
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  const make = (opts) => new popart.InferenceSession(proto, new popart.DataFlow(1, [y]), cpu(popart), undefined, opts);
  make(o).dispose();
  o.executionPhaseSettings = { phases: 0, stages: 3 };
  o.syntheticDataMode = popart.SyntheticDataMode.Off;
  o.autoRecomputation = 'Standard';
  o.bufferingDepthMap = { [x]: 2 };  // depths (Record<string, number>)
  make(o).dispose();
  expectError(() => make({ executionPhaseSettings: { nope: 1 } }), ["SessionOptions has no option 'executionPhaseSettings.nope'"]);
  expectError(() => make({ accumulationFactor: 'x' }), ["SessionOptions.accumulationFactor must be an integer, got string 'x'"]);
  expectError(() => make({ virtualGraphMode: 'Sideways' }),
              ["Invalid VirtualGraphMode 'Sideways'; expected one of Off, Manual, Auto, ExecutionPhases"]);
  expectError(() => make({ constantWeights: 1 }), ['SessionOptions.constantWeights must be a boolean, got int 1']);
});

test('enums come from the core', () => {
  assert.equal(popart.VirtualGraphMode.Manual, 'Manual');
  assert.equal(popart.ReductionType.Mean, 'Mean');
  assert.deepEqual(Object.keys(popart.PatternsLevel), ['NoPatterns', 'Minimal', 'Default', 'All']);
  assert.deepEqual(popart.enumValues.AdamMode, ['Adam', 'AdamNoBias', 'AdaMax', 'Lamb', 'LambNoBias']);
  expectError(() => new popart.Adam({}, 'Adamish'), ["Invalid AdamMode 'Adamish'"]);
  const keys = popart.optimizerParams().filter((p) => p.optimizer === 'SGD').map((p) => p.key);
  assert.deepEqual(keys, ['defaultLearningRate', 'defaultWeightDecay', 'defaultMomentum', 'defaultDampening',
                          'defaultVelocityScaling', 'lossScaling', 'nesterov']);
});

test('isPatternEnabled answers for level-built Patterns (was undefined)', () => {
  const p = new popart.Patterns(popart.PatternsLevel.Default);
  assert.equal(typeof p.isPatternEnabled('PreUniRepl'), 'boolean');
  assert.equal(new popart.Patterns(popart.PatternsLevel.NoPatterns).isPatternEnabled('PreUniRepl'), false);
  assert.equal(new popart.Patterns(['PreUniRepl']).isPatternEnabled('PreUniRepl'), true);
  assert.equal(p.enablePattern('PreUniRepl', false).isPatternEnabled('PreUniRepl'), false);
});

test('Patterns.list() is the core pattern table; inplaceEnabled asks the core', () => {
  const list = popart.Patterns.list();
  assert.deepEqual(list.map((p) => p.name).filter((n) => n !== 'InPlace' && n !== 'UpdateInplacePrioritiesForIpu').sort(),
                   popart.Patterns.getAllPatternNames().slice().sort());
  assert.deepEqual(list.filter((p) => p.rewrite).map((p) => p.name).sort(),
                   ['ExpandCast', 'FuseActivation', 'FuseLayerNorm', 'InPlace', 'NegativeOneScale',
                    'NlllWithSoftmaxGradDirect', 'OpToIdentity', 'PadSum', 'PostNRepl', 'PreUniRepl',
                    'RandomNormalLikeOpPattern', 'RandomUniformLikeOpPattern', 'SoftmaxGradDirect', 'SplitOp', 'SumToAdd',
                    'TransposeToIdentityOrReshapePattern', 'UpsampleToResize']);
  const dflt = new popart.Patterns(popart.PatternsLevel.Default);
  const minimal = new popart.Patterns(popart.PatternsLevel.Minimal);
  for (const p of list) {
    assert.ok(['Mandatory', 'On', 'Off'].includes(p.defaultState), p.name);
    assert.ok(p.doc.length > 0, p.name);
    assert.equal(dflt.isPatternEnabled(p.name), p.defaultState !== 'Off', p.name);
    if (p.defaultState !== 'Mandatory') assert.equal(minimal.isPatternEnabled(p.name), false, p.name);
  }
  assert.equal(dflt.inplaceEnabled, true);
  assert.equal(minimal.inplaceEnabled, false);  // the core's answer (JS used to say true)
  expectError(() => dflt.isPatternEnabled('fuseactivation'), ['did you mean FuseActivation']);
});

/// One Adam step of y = w x on a fixed input: the weights after it.
function adamStep(optimizer, options = {}) {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [1, 4], 'x');
  const w = b.addInitializedInputTensor(new Float32Array([1, 2, 3, 4]).map((v) => v * 0.5), 'w');
  const y = b.aiOnnx.mul([x, w]);
  const l = b.aiGraphcore.l1loss([y], 1.0);
  const s = new popart.TrainingSession(b.getModelProto(), new popart.DataFlow(1, [l]), l, optimizer, cpu(popart),
                                       undefined, options);
  b.dispose();
  s.prepareDevice();
  s.weightsFromHost();
  s.run(new popart.PyStepIO({ [x]: new Float32Array([10, 20, 30, 40]) }, s.initAnchorArrays()));
  const out = { w: new Float32Array(4) };
  s.weightsToHost();
  s.readWeights(out);
  s.dispose();
  return Array.from(out.w);
}

test('Adam keeps its clipNormSettings (the JS face used to drop them)', () => {
  // With eps = 1 the first step is lr * g / (|g| + 1): a gradient clipped to norm 1e-3 moves the
  // weights far less than the unclipped one (|g| = 10..40).
  const params = { defaultLearningRate: [0.1, true], defaultEps: [1.0, true] };
  const plain = adamStep(new popart.Adam(params));
  const clipped = adamStep(new popart.Adam(params, 'Adam', 'Decay', undefined, undefined, undefined,
                                                [popart.ClipNormSettings.clipAllWeights(1e-3)]));
  for (let i = 0; i < 4; ++i) {
    const w0 = (i + 1) * 0.5;
    assert.ok(Math.abs(plain[i] - w0) > 0.05, `unclipped step ${plain[i] - w0}`);
    assert.ok(Math.abs(clipped[i] - w0) < 1e-3, `clipped step ${clipped[i] - w0}`);
  }
});
