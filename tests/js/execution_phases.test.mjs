// Phased execution (virtualGraphMode 'ExecutionPhases'), the cases of
// tests/python/test_execution_phases.py through the JS API: PopART's errors, the backward op of a
// forward op in phase k in phase 2N - 2 - k on virtual graph phase % 2 (serializeIr), training
// equal to unphased training, and the IPU model's report: OffChip weights fit where unphased
// weights do not, their loads in the cycles. Every value and message is the core's.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cpu, createPopart, expectError } from './helpers.mjs';

const popart = await createPopart();
const ROWS = 4, WIDTH = 8;

const initial = (k, n) => Float32Array.from({ length: n * n }, (_, i) => 0.3 * Math.sin(k * 97 + i * 0.61));

/** x [ROWS, width] -> layers x MatMul by "w<k>" (layer k in phase k unless !phased) -> L1 loss. */
function chain(layers, phased = true) {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [ROWS, WIDTH], 'x');
  let h = x;
  for (let k = 0; k < layers; ++k) {
    const w = b.addInitializedInputTensor(new popart.NDArray(initial(k, WIDTH), [WIDTH, WIDTH]), `w${k}`);
    h = b.aiOnnx.matmul([h, w], `mm${k}`);
    if (phased) b.executionPhase(h, k);
  }
  const loss = b.aiGraphcore.l1loss([h], 0.1);
  if (phased) b.executionPhase(loss, layers - 1);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, x, loss };
}

const phasedOptions = (phases, offChip = false) => ({
  virtualGraphMode: 'ExecutionPhases',
  executionPhaseSettings: { phases },
  ...(offChip ? { weightTensorLocationSettings: { location: { storage: 'OffChip' } } } : {}),
});

const ipuModel = (ipus = 2, tiles = 16) =>
  popart.DeviceManager().createIpuModelDevice({ numIPUs: ipus, tilesPerIPU: tiles });

function training(m, deviceInfo, userOptions) {
  const s = new popart.TrainingSession({ fnModel: m.proto, dataFlow: new popart.DataFlow(1, [m.loss]), loss: m.loss,
                                         optimizer: new popart.ConstSGD(0.05), deviceInfo, userOptions });
  s.prepareDevice();
  s.weightsFromHost();
  return s;
}

/** Three steps; the weights after them. */
function trainedWeights(s, m, layers) {
  const anchors = s.initAnchorArrays();
  const xv = Float32Array.from({ length: ROWS * WIDTH }, (_, i) => Math.cos(i * 0.37));
  for (let step = 0; step < 3; ++step) s.run(new popart.PyStepIO({ [m.x]: xv }, anchors));
  s.weightsToHost();
  const weights = {};
  for (let k = 0; k < layers; ++k) weights[`w${k}`] = new Float32Array(WIDTH * WIDTH);
  s.readWeights(weights);
  return weights;
}

test('PopART\'s errors: phases without the mode, a phase beyond the last', () => {
  expectError(() => training(chain(2), cpu(popart), { executionPhaseSettings: { phases: 2 } }),
              ['> 1 execution phases requires VirtualGraphMode::ExecutionPhases']);
  expectError(() => training(chain(3), cpu(popart), phasedOptions(2)),
              ["[StreamingMemory] Maximum phase is 1, but op MatMul 'mm2", 'has phase 2.']);
});

test('backward ops mirror their forward phase; the phases run in order on IPU phase % 2', () => {
  const layers = 3;
  const s = training(chain(layers), cpu(popart), phasedOptions(layers));
  const ops = JSON.parse(s._serializeIr('JSON')).maingraph;
  s.dispose();
  const phases = ops.map((op) => Number(op.attributes.__execution_phase));
  assert.deepEqual(phases, [...phases].sort((a, b) => a - b));
  ops.forEach((op, i) => {
    assert.equal(Number(op.attributes.__ipu_number), phases[i] % 2, op.name);
    const m = /^mm(\d)/.exec(op.name);
    if (m) assert.equal(phases[i], op.name.includes('/grad') ? 2 * layers - 2 - Number(m[1]) : Number(m[1]), op.name);
  });
});

test('phased training (CPU and IPU model, OffChip weights) equals unphased training', () => {
  const layers = 3;
  const plain = training(chain(layers, false), cpu(popart), {});
  const want = trainedWeights(plain, chain(layers, false), layers);
  plain.dispose();
  for (const device of [cpu(popart), ipuModel()]) {
    const m = chain(layers);
    const s = training(m, device, phasedOptions(layers, true));
    assert.deepEqual(trainedWeights(s, m, layers), want);
    s.dispose();
  }
});

test('the IPU model: OffChip weights fit where unphased ones do not, and their loads cost cycles', () => {
  const report = (phased, offChip) => {
    const b = new popart.Builder();
    const x = b.addInputTensor('FLOAT', [ROWS, 512], 'x');
    let h = x;
    for (let k = 0; k < 6; ++k) {
      const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array(512 * 512).fill(0.01), [512, 512]));
      h = b.aiOnnx.matmul([h, w], `mm${k}`);
      if (phased) b.executionPhase(h, k);
      else b.virtualGraph(h, Math.floor(k / 3));
    }
    const proto = b.getModelProto();
    b.dispose();
    const userOptions = { ...(phased ? phasedOptions(6, offChip) : { virtualGraphMode: 'Manual' }),
                          constantWeights: false };
    const s = new popart.InferenceSession(proto, new popart.DataFlow(1, [h]), ipuModel(2, 4), undefined, userOptions);
    s.prepareDevice();
    const c = s.getReport().compilation;
    const summary = s.getSummaryReport();
    s.dispose();
    return { c, summary };
  };
  const plain = report(false, false).c, onChip = report(true, false).c;
  const { c: streamed, summary } = report(true, true);
  assert.ok(plain.memory.outOfMemoryTiles.length > 0 && onChip.memory.outOfMemoryTiles.length > 0);
  assert.equal(streamed.memory.outOfMemoryTiles.length, 0);
  assert.deepEqual(streamed.phases.map((p) => p.ipu), [0, 1, 0, 1, 0, 1]);
  for (const p of streamed.phases) assert.ok(p.remoteLoadBytes === 512 * 512 * 4 && p.remoteCycles > 0);
  const streaming = streamed.phases.reduce((a, p) => a + p.remoteCycles, 0);
  assert.equal(streamed.cycles.streamingMemory, streaming);
  assert.equal(streamed.cycles.perMicroBatch, onChip.cycles.perMicroBatch + streaming);
  assert.ok(summary.includes('Streaming memory:') && summary.includes('Phase 5:'));
});
