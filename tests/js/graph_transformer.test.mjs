// popart.GraphTransformer and Builder.saveInitializersExternally through JS (the same behaviour
// as tests/unit/graph_transformer_test.cpp). Expected float16 bits are written from the IEEE 754
// definition: 0.5 = 0x3800, 1.25 = 0x3d00, -2 = 0xc000, 0.1 -> 0x2e66 (nearest even).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPopart, expectError, cpu, TMP } from './helpers.mjs';

const popart = await createPopart();
fs.mkdirSync(TMP, { recursive: true });

function weightModel() {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [4], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array([0.5, 1.25, -2, 0.1]), [4]), 'w');
  const y = b.aiOnnxOpset13.add([x, w], 'y');
  b.addOutputTensor(y);
  return { b, x, w, y };
}

test('convertFloatsToHalfs: the converted model runs in float16', () => {
  const { b, x, y } = weightModel();
  const gt = new popart.GraphTransformer(b.getModelProto());
  gt.convertFloatsToHalfs();
  const session = new popart.InferenceSession(gt.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart));
  session.prepareDevice();
  const anchors = session.initAnchorArrays();
  assert.equal(anchors[y].dtype, 'FLOAT16');
  const ones = new popart.NDArray(new Uint16Array([0x3c00, 0x3c00, 0x3c00, 0x3c00]), [4], 'FLOAT16');
  session.run(new popart.PyStepIO({ [x]: ones }, anchors));
  // 1 + [0.5, 1.25, -2, 0x2e66 = 0.0999755859375] in float16: 1.5, 2.25, -1, 1.099609375 (0x3c66).
  assert.deepEqual(Array.from(anchors[y].data), [0x3e00, 0x4080, 0xbc00, 0x3c66]);
  session.dispose();
  gt.dispose();
  b.dispose();
});

test('errors carry the core messages', () => {
  const { b } = weightModel();
  const gt = new popart.GraphTransformer(b.getModelProto());
  expectError(() => gt.convertInitializersToConstants(['nope']), ['TensorId nope not in the model initalizers']);
  gt.convertInitializersToConstants(['w']);  // the module stays usable after an error
  expectError(() => gt.saveInitializersExternallyToBytes(['w'], 'w.bin'), ["Tensor 'w' is not an initializer"]);
  expectError(() => new popart.GraphTransformer(new Uint8Array([1, 2, 3])), ['ModelProto']);
  gt.dispose();
  b.dispose();
});

test('saveInitializersExternally: bytes, the Node file, errors', () => {
  const { b, w } = weightModel();
  const expected = new Uint8Array(new Float32Array([0.5, 1.25, -2, 0.1]).buffer);
  const gt = new popart.GraphTransformer(b.getModelProto());
  assert.deepEqual(gt.saveInitializersExternallyToBytes([w], 'weights.bin'), expected);
  expectError(() => gt.saveInitializersExternallyToBytes([w], 'weights.bin'), ['already has an external data_location']);
  const file = path.join(TMP, 'gt_weights.bin');
  b.saveInitializersExternally([w], file);
  assert.deepEqual(new Uint8Array(fs.readFileSync(file)), expected);
  expectError(() => b.saveInitializersExternally([w], path.join(TMP, 'missing_dir', 'w.bin')),
              ['parent directory does not exist']);
  fs.unlinkSync(file);
  gt.dispose();
  b.dispose();
});

test('the wasm build reads no files: external data and dotChecks say so', () => {
  const { b, w } = weightModel();
  const file = path.join(TMP, 'gt_read_weights.bin');
  b.saveInitializersExternally([w], file);
  const out = b.getOutputTensorIds()[0];
  expectError(() => new popart.InferenceSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [out]),
                                                  deviceInfo: cpu(popart) }),
              [`tensor '${w}' stores its data in the external file`, 'the WebAssembly build cannot read',
               'save_as_external_data=False']);
  fs.unlinkSync(file);
  b.dispose();
  const m = weightModel();
  const o = new popart.SessionOptions({ dotChecks: ['Final'] });
  expectError(() => new popart.InferenceSession({ fnModel: m.b.getModelProto(), userOptions: o, deviceInfo: cpu(popart),
                                                  dataFlow: new popart.DataFlow(1, [m.y]) }),
              ["dotChecks (or POPART_DOT_CHECKS) asks for the .dot file of check 'Final'", 'leave dotChecks empty here']);
  m.b.dispose();
});
