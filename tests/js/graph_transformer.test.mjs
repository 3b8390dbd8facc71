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

test('external data loads in Node: beside the model file, absolute, from bytes; a missing file is an error', () => {
  const run = (model, out) => {
    const s = new popart.InferenceSession({ fnModel: model, dataFlow: new popart.DataFlow(1, [out]),
                                            deviceInfo: cpu(popart) });
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ x: new Float32Array([1, 1, 1, 1]) }, anchors));
    s.dispose();
    return Array.from(anchors[out].data);
  };
  const want = Array.from(new Float32Array([1.5, 2.25, -1, 1.1]));
  // Relative location: resolved against the model file's directory (not the working directory).
  const dir = path.join(TMP, 'gt_external');
  fs.mkdirSync(dir, { recursive: true });
  const { b, w, y } = weightModel();
  const gt = new popart.GraphTransformer(b.getModelProto());
  fs.writeFileSync(path.join(dir, 'w.bin'), gt.saveInitializersExternallyToBytes([w], 'w.bin'));
  const modelPath = path.join(dir, 'model.onnx');
  fs.writeFileSync(modelPath, gt.getModelProto());
  assert.deepEqual(run(modelPath, y), want);
  // The Builder, GraphTransformer and describeModel read it too.
  const b2 = new popart.Builder(modelPath);
  assert.deepEqual(b2.getOutputTensorIds(), [y]);
  b2.dispose();
  new popart.GraphTransformer(modelPath).dispose();
  const described = popart.describeModel(modelPath);  // the initializer's statistics, read from w.bin
  const stats = described.tensors.find((t) => t.name === w).stats;
  assert.deepEqual([stats.count, stats.min, stats.max], [4, -2, 1.25]);
  // Bytes with an absolute location.
  const file = path.join(TMP, 'gt_read_weights.bin');
  b.saveInitializersExternally([w], file);
  assert.deepEqual(run(b.getModelProto(), y), want);
  // A missing data file names the tensor and the file.
  fs.unlinkSync(file);
  expectError(() => run(b.getModelProto(), y), [`tensor '${w}' stores its data in the external file ${file}`,
                                                 "doesn't exist or is not accessible"]);
  gt.dispose();
  b.dispose();
  const m = weightModel();
  const o = new popart.SessionOptions({ dotChecks: ['Final'] });
  expectError(() => new popart.InferenceSession({ fnModel: m.b.getModelProto(), userOptions: o, deviceInfo: cpu(popart),
                                                  dataFlow: new popart.DataFlow(1, [m.y]) }),
              ["dotChecks (or POPART_DOT_CHECKS) asks for the .dot file of check 'Final'", 'leave dotChecks empty here']);
  m.b.dispose();
});

test("a browser's way: externalDataLocations, then inlineExternalData with the files' bytes", () => {
  const { b, w, y } = weightModel();
  const gt = new popart.GraphTransformer(b.getModelProto());
  const data = gt.saveInitializersExternallyToBytes([w], 'weights.bin');
  const external = gt.getModelProto();
  gt.dispose();
  const gt2 = new popart.GraphTransformer(external);
  assert.deepEqual(gt2.externalDataLocations(), ['weights.bin']);
  expectError(() => gt2.inlineExternalData({}), [`tensor '${w}' stores its data in the external file weights.bin`]);
  expectError(() => gt2.inlineExternalData({ 'weights.bin': data.subarray(0, 8) }), ['is truncated']);
  gt2.inlineExternalData({ 'weights.bin': data });
  assert.deepEqual(gt2.externalDataLocations(), []);
  const s = new popart.InferenceSession(gt2.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ x: new Float32Array([1, 1, 1, 1]) }, anchors));
  assert.deepEqual(Array.from(anchors[y].data), Array.from(new Float32Array([1.5, 2.25, -1, 1.1])));
  s.dispose();
  gt2.dispose();
  b.dispose();
});
