// Sessions through JS: the seed examples (an Add graph built with the Builder; an exported model
// imported and run), every anchor return type, weights I/O and model export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPopart, expectError, addModel, cpu, ZOO, TMP } from './helpers.mjs';

const popart = await createPopart();
fs.mkdirSync(TMP, { recursive: true });

test('seed example: Builder add graph, batchesPerStep 4, anchor All', () => {
  const builder = new popart.Builder();
  const a = builder.addInputTensor(new popart.TensorInfo('FLOAT', [1, 2, 32, 32]));
  const b = builder.addInputTensor('FLOAT', [1, 2, 32, 32]);
  const o = builder.aiOnnx.add([a, b]);
  builder.addOutputTensor(o);
  const proto = builder.getModelProto();
  const dataFlow = new popart.DataFlow(4, { [o]: popart.AnchorReturnType('All') });
  const session = new popart.InferenceSession(proto, dataFlow, cpu(popart));
  session.prepareDevice();
  const anchors = session.initAnchorArrays();
  assert.deepEqual(anchors[o].shape, [4, 1, 2, 32, 32]);
  const n = 4 * 2 * 32 * 32;
  const da = Float32Array.from({ length: n }, (_, i) => i * 0.5);
  const db = Float32Array.from({ length: n }, (_, i) => 1 - i);
  session.run(new popart.PyStepIO({ [a]: da, [b]: db }, anchors));
  for (let i = 0; i < n; i += 97) assert.equal(anchors[o].data[i], Math.fround(da[i] + db[i]));
  session.dispose();
  builder.dispose();
});

function sumModel() {
  // y = x + 1 on x [2]; run with batchesPerStep 4, step i fed with value i.
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2], 'x');
  const one = b.aiOnnxOpset11.constant(new popart.NDArray(new Float32Array([1, 1]), [2]));
  const y = b.aiOnnxOpset11.add([x, one], 'y');
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, x, y };
}

test('getMemoryStats: every field of the core\'s SessionMemoryStats (weights held as constants too)', () => {
  // test_session.py's test_memory_stats_fields runs the same case.
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2, 3], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array(12).fill(0.5), [3, 4], 'FLOAT'), 'w');
  const y = b.aiOnnxOpset13.matmul([x, w]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart));
  b.dispose();
  s.prepareDevice();
  const m = s.getMemoryStats();
  assert.deepEqual(Object.keys(m), ['activationArenaBytes', 'activationTotalBytes', 'weightBytes', 'constantBytes']);
  assert.equal(m.weightBytes + m.constantBytes, 48);  // w, a constant of the inference session
  assert.ok(m.activationTotalBytes > 0 && m.activationArenaBytes > 0);
  s.dispose();
});

test('anchor return types: All, Final, EveryN, Sum', () => {
  const { proto, x, y } = sumModel();
  const input = new Float32Array([0, 0, 1, 1, 2, 2, 3, 3]);  // [4, 2]
  const cases = [
    [popart.AnchorReturnType('All'), [4, 2], [1, 1, 2, 2, 3, 3, 4, 4]],
    [popart.AnchorReturnType('Final'), [2], [4, 4]],
    [popart.AnchorReturnType('EveryN', 2), [2, 2], [2, 2, 4, 4]],
    [popart.AnchorReturnType('Sum'), [2], [10, 10]],
  ];
  for (const [art, shape, expected] of cases) {
    const s = new popart.InferenceSession({ fnModel: proto, dataFlow: new popart.DataFlow(4, { [y]: art }),
                                            deviceInfo: cpu(popart) });
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    assert.deepEqual(anchors[y].shape, shape, art.art);
    assert.deepEqual(s.getAnchorShape(y), shape);
    s.run(new popart.StepIO({ [x]: input }, anchors));
    assert.deepEqual(Array.from(anchors[y].data), expected, art.art);
    s.dispose();
  }
  expectError(() => popart.AnchorReturnType('EveryN', 0), ['Anchor return period must be greater than zero']);
  expectError(() => popart.AnchorReturnType('Sometimes'), ['Sometimes']);
});

test('legacy DataFlow(batchesPerStep, [ids], art) and inputs as NDArray with explicit shape', () => {
  const { proto, x, y } = sumModel();
  const s = new popart.InferenceSession(proto, new popart.DataFlow(2, [y], popart.AnchorReturnType('All')), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: new popart.NDArray([5, 6, 7, 8], [2, 2], 'FLOAT') }, anchors));
  assert.deepEqual(Array.from(anchors[y].data), [6, 7, 8, 9]);
  s.dispose();
});

test('INT64 and BOOL data: BigInt64Array and Uint8Array', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const i = b.addInputTensor('INT64', [3], 'i');
  const m = b.addInputTensor('BOOL', [3], 'm');
  const doubled = ai.add([i, i]);
  const notm = ai.logical_not([m]);
  b.addOutputTensor(doubled);
  b.addOutputTensor(notm);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [doubled, notm]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  assert.ok(anchors[doubled].data instanceof BigInt64Array);
  assert.ok(anchors[notm].data instanceof Uint8Array);
  s.run(new popart.PyStepIO({ i: new BigInt64Array([1n, -2n, 2n ** 40n]), m: new Uint8Array([1, 0, 1]) }, anchors));
  assert.deepEqual(Array.from(anchors[doubled].data), [2n, -4n, 2n ** 41n]);
  assert.deepEqual(Array.from(anchors[notm].data), [0, 1, 0]);
  // plain numbers are converted to the tensor's type
  s.run(new popart.PyStepIO({ i: [3, 4, 5], m: [0, 0, 1] }, anchors));
  assert.deepEqual(Array.from(anchors[doubled].data), [6n, 8n, 10n]);
  s.dispose();
  b.dispose();
});

function readF32(p) {
  const buf = fs.readFileSync(p);
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

const zooModels = fs.existsSync(path.join(ZOO, 'manifest.json'))
  ? Object.keys(JSON.parse(fs.readFileSync(path.join(ZOO, 'manifest.json'), 'utf8')).models ??
                JSON.parse(fs.readFileSync(path.join(ZOO, 'manifest.json'), 'utf8')))
  : [];

test('the reference zoo through wasm matches PyTorch within 1e-4', () => {
  assert.ok(zooModels.length > 0, `no zoo in ${ZOO}: run tests/zoo/make_zoo.py ${ZOO}`);
  for (const name of zooModels) {
    const base = path.join(ZOO, name);
    const x = readF32(`${base}.input.bin`);
    const ref = readF32(`${base}.output.bin`);
    // a file path works in Node
    const s = new popart.InferenceSession(`${base}.onnx`, new popart.DataFlow(1, ['output']), cpu(popart));
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ input: x }, anchors));
    const y = anchors.output.data;
    assert.equal(y.length, ref.length, name);
    let worst = 0;
    for (let i = 0; i < y.length; ++i) worst = Math.max(worst, Math.abs(y[i] - ref[i]));
    assert.ok(worst <= 1e-4, `${name}: max abs difference ${worst}`);
    s.dispose();
  }
});

test('weights: readWeights, writeWeights, modelToHost, resetHostWeights', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x = b.addInputTensor('FLOAT', [1, 2], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray([1, 2, 3, 4], [2, 2], 'FLOAT'), 'w');
  const y = ai.matmul([x, w], 'y');
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  const s = new popart.InferenceSession(proto, new popart.DataFlow(1, [y]), cpu(popart), undefined,
                                        { constantWeights: false });
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  const run = () => { s.run(new popart.PyStepIO({ x: new Float32Array([1, 1]) }, anchors)); return Array.from(anchors[y].data); };
  assert.deepEqual(run(), [4, 6]);
  const read = { w: new Float32Array(4) };
  s.readWeights(read);
  assert.deepEqual(Array.from(read.w), [1, 2, 3, 4]);
  s.writeWeights({ w: new Float32Array([10, 20, 30, 40]) });
  s.weightsFromHost();
  assert.deepEqual(run(), [40, 60]);
  const file = path.join(TMP, 'weights_model.onnx');
  s.modelToHost(file);
  // the saved model carries the new weights
  const s2 = new popart.InferenceSession(file, new popart.DataFlow(1, [y]), cpu(popart));
  s2.prepareDevice();
  const a2 = s2.initAnchorArrays();
  s2.run(new popart.PyStepIO({ x: [1, 1] }, a2));
  assert.deepEqual(Array.from(a2[y].data), [40, 60]);
  s2.dispose();
  // back to the original weights
  s.resetHostWeights(proto);
  s.weightsFromHost();
  assert.deepEqual(run(), [4, 6]);
  // bytes form for browsers
  assert.ok(s.modelToHostBytes() instanceof Uint8Array);
  expectError(() => s.readWeights({ w: new Float64Array(4) }), ["'w' is FLOAT; pass a Float32Array"]);
  // a failed write leaves no file behind
  expectError(() => s.modelToHost(path.join(TMP, 'no_such_dir', 'm.onnx')), ['cannot write']);
  assert.ok(!fs.existsSync(path.join(TMP, 'no_such_dir')));
  s.dispose();
});

test('compileAndExport / loadExecutable: a file in Node, bytes anywhere', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [1, 2], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray([1, 2, 3, 4], [2, 2], 'FLOAT'), 'w');
  const y = b.aiOnnxOpset11.matmul([x, w], 'y');
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  const make = () => new popart.InferenceSession(proto, new popart.DataFlow(1, [y]), cpu(popart), undefined,
                                                 { constantWeights: false });
  const runOnce = (s) => {
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ x: new Float32Array([1, 1]) }, anchors));
    return Array.from(anchors[y].data);
  };
  const s = make();
  s.prepareDevice();
  s.writeWeights({ w: new Float32Array([10, 20, 30, 40]) });
  s.weightsFromHost();
  const file = path.join(TMP, 'exported_plan.popart');
  assert.equal(s.compileAndExport(file), undefined);
  const bytes = s.compileAndExport();
  assert.ok(bytes instanceof Uint8Array && bytes.length > 16);
  for (const source of [file, bytes]) {
    const t = make();
    t.loadExecutable(source);
    t.prepareDevice();
    assert.deepEqual(runOnce(t), [40, 60]);  // the exported weights
    expectError(() => t.loadExecutable(bytes), ['must be called before prepareDevice']);
    t.dispose();
  }
  const other = new popart.InferenceSession(proto, new popart.DataFlow(2, [y]), cpu(popart), undefined,
                                            { constantWeights: false });
  expectError(() => other.loadExecutable(bytes), ['was prepared for another model, options or device']);
  expectError(() => other.loadExecutable(new Uint8Array([1, 2, 3])), ['is not an executable']);
  expectError(() => other.loadExecutable(42), ["loadExecutable: expected compileAndExport's bytes"]);
  other.dispose();
  s.dispose();
});

test('session introspection', () => {
  const m = addModel(popart);
  // debug.instrument: the CPU device's summary report (host time per op) needs profiling on.
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined,
                                        { engineOptions: { 'debug.instrument': 'true' } });
  assert.ok(!s.isPrepared());
  s.prepareDevice();
  assert.ok(s.isPrepared());
  const info = s.getInfo(m.out);
  assert.equal(info.data_type(), 'FLOAT');
  assert.deepEqual(info.shape(), [2, 3]);
  assert.ok(s.getAllTensorIds().includes(m.a));
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ a: new Float32Array(6).fill(1), b: new Float32Array(6).fill(2) }, anchors));
  assert.match(s.getSummaryReport(), /Micro-batches executed: 1/);
  s.setRandomSeed(42);
  // PopART's IR JSON: one Add reading a and b.
  const ir = JSON.parse(s.serializeIr());
  assert.deepEqual(Object.keys(ir), ['maingraph']);
  assert.deepEqual(ir.maingraph.map((op) => op.type), ['Add']);
  assert.deepEqual(ir.maingraph[0].inputs.map((t) => [t.name, t.shape, t.type]),
                   [[m.a, '[2 3]', 'FLOAT'], [m.b, '[2 3]', 'FLOAT']]);
  assert.equal(s._serializeIr('JSON'), s.serializeIr());
  expectError(() => s.serializeIr('XML'), ['XML']);
  s.dispose();
});

test('serializeIr shows the patterns: PopART in-place types, a smaller arena, the same outputs', () => {
  const run = (inplace) => {
    const b = new popart.Builder();
    const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [256]), 'x');
    const y = b.aiOnnx.sigmoid([b.aiOnnx.relu([b.aiOnnx.exp([x])])]);
    b.addOutputTensor(y);
    const patterns = new popart.Patterns(popart.PatternsLevel.Default).enablePattern('InPlace', inplace);
    const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart), undefined,
                                          undefined, patterns);
    const types = JSON.parse(s.serializeIr()).maingraph.map((op) => op.type);
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    const xs = Float32Array.from({ length: 256 }, (_, i) => Math.sin(i) * 2);
    s.run(new popart.PyStepIO({ [x]: xs }, anchors));
    const out = { types, y: Array.from(anchors[y].data), arena: s.getMemoryStats().activationArenaBytes, xs };
    s.dispose();
    b.dispose();
    return out;
  };
  const on = run(true);
  const off = run(false);
  assert.deepEqual(on.types, ['Exp', 'ReluInplace', 'SigmoidInplace']);
  assert.deepEqual(off.types, ['Exp', 'Relu', 'Sigmoid']);
  assert.deepEqual(on.y, off.y);
  on.y.forEach((v, i) => assert.ok(Math.abs(v - 1 / (1 + Math.exp(-Math.exp(on.xs[i])))) < 1e-6));
  assert.equal(on.arena, 1024);
  assert.equal(off.arena, 2048);
});
