// Automatic loss scaling through JS: SessionOptions.automaticLossScalingSettings as nested
// options; the finalLossScale anchor doubles after each step whose FLOAT16 gradients stay below
// the bin edge, the factor is a weight readWeights reaches, and PopART's errors reach JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();

// FLOAT16 bits of 2^k (k in [-14, 15]).
const halfPow2 = (k) => (k + 15) << 10;

/// loss = identityloss(Sum)(x · W), x FLOAT16 [2, 3], W FLOAT16 [3, 2] (0.25 each).
function halfModel() {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT16', [2, 3], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Uint16Array(6).fill(halfPow2(-2)), [3, 2], 'FLOAT16'), 'W');
  const l = b.aiGraphcore.identityloss([b.aiOnnxOpset13.matmul([x, w])], 'Sum', 'loss');
  b.addOutputTensor(l);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, loss: l, x };
}

test('the loss scale doubles while the gradients stay below the bin edge', () => {
  const m = halfModel();
  const options = new popart.SessionOptions({ automaticLossScalingSettings: { enabled: true, binEdgeLocation: 1.0 } });
  const bps = 4;
  const s = new popart.TrainingSession({
    fnModel: m.proto, dataFlow: new popart.DataFlow(bps, ['finalLossScale']), loss: m.loss,
    optimizer: new popart.SGD({ defaultLearningRate: [0.0625, true], lossScaling: [1, false] }),
    deviceInfo: cpu(popart), userOptions: options,
  });
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  const x = new popart.NDArray(new Uint16Array(bps * 6).fill(halfPow2(-1)), [bps, 2, 3], 'FLOAT16');
  s.run(new popart.PyStepIO({ [m.x]: x }, anchors));
  assert.deepEqual(Array.from(anchors.finalLossScale.data), [0, 1, 2, 3].map(halfPow2));
  s.weightsToHost();
  const factor = { lossScaleUpdateFactor: new Uint16Array(1) };
  s.readWeights(factor);
  assert.equal(factor.lossScaleUpdateFactor[0], halfPow2(4));
  s.dispose();
});

test('PopART errors for automatic loss scaling settings', () => {
  const m = halfModel();
  const make = (settings, ls = [2, false]) => () => new popart.TrainingSession({
    fnModel: m.proto, dataFlow: new popart.DataFlow(1, [m.loss]), loss: m.loss,
    optimizer: new popart.SGD({ lossScaling: ls }), deviceInfo: cpu(popart),
    userOptions: new popart.SessionOptions({ automaticLossScalingSettings: { enabled: true, ...settings } }),
  });
  expectError(make({}, [2, true]), ['[AutomaticLossScale transform] The optimizer must have non-const loss scaling']);
  expectError(make({ thresholdUpperCountProportion: 2 }),
              ["Out of range value for 'thresholdUpperCountProportion'. The current value is 2"]);
  expectError(make({ toTrackTensors: ['W'] }), ['toTrackTensors has been set, but gradientTensorTrackingMethod']);
});
