// The bad-input table of the native suite (tests/unit/errors_test.cpp) through JS: every case is a
// JS Error carrying the C++ message, and the module keeps working afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPopart, expectError, addModel, cpu, TMP } from './helpers.mjs';

const popart = await createPopart();
fs.mkdirSync(TMP, { recursive: true });

const session = (proto, df) => new popart.InferenceSession(proto, df, cpu(popart));

function customModel(opset, build) {
  const b = new popart.Builder();
  b.aiOnnxOpset(opset);
  const y = build(b);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, y };
}

test('bad model bytes and paths', () => {
  const junk = Uint8Array.from({ length: 200 }, (_, i) => (i * 7919) % 251);
  expectError(() => session(junk, new popart.DataFlow(1, ['y'])), ['Failed to load a ModelProto', 'corrupt or truncated']);
  const m = addModel(popart);
  for (const cut of [m.proto.length >> 1, m.proto.length - 3, 5]) {
    expectError(() => session(m.proto.subarray(0, cut), new popart.DataFlow(1, [m.out])), ['ModelProto']);
  }
  expectError(() => session(new Uint8Array(0), new popart.DataFlow(1, ['y'])), ['Failed to load a ModelProto']);
  expectError(() => session('/no/such/dir/model.onnx', new popart.DataFlow(1, ['y'])), ["cannot read '/no/such/dir/model.onnx'"]);
  const garbage = path.join(TMP, 'garbage.onnx');
  fs.writeFileSync(garbage, 'this is not a model');
  expectError(() => session(garbage, new popart.DataFlow(1, ['y'])), ['Failed to load a ModelProto']);
  expectError(() => session(12, new popart.DataFlow(1, ['y'])), ['expected ONNX model bytes (Uint8Array) or a file path']);
});

test('unknown ops name the node, op, domain and opset', () => {
  let m = customModel(11, (b) => b.customOp('FrobnicateOp', 3, 'com.acme', [b.addInputTensor('FLOAT', [4])], {}, 1, 'frob')[0]);
  expectError(() => session(m.proto, new popart.DataFlow(1, [m.y])), ['Unknown op', "'frob", 'FrobnicateOp', 'com.acme', 'opset 3']);
  m = customModel(11, (b) => b.customOp('NoSuchOnnxOp', 11, 'ai.onnx', [b.addInputTensor('FLOAT', [4])], {}, 1, 'n')[0]);
  expectError(() => session(m.proto, new popart.DataFlow(1, [m.y])), ['Unknown op', 'NoSuchOnnxOp', 'ai.onnx', 'opset 11']);
  m = customModel(13, (b) => b.customOp('LayerNormalization', 13, 'ai.onnx',
                                        [b.addInputTensor('FLOAT', [2, 4]), b.addInputTensor('FLOAT', [4])], {}, 1, 'ln')[0]);
  expectError(() => session(m.proto, new popart.DataFlow(1, [m.y])), ['Unsupported opset', 'LayerNormalization', 'opset 17', 'opset 13']);
});

test('attribute and shape errors name the node', () => {
  let m = customModel(11, (b) => { const x = b.addInputTensor('FLOAT', [2, 2]); return b.customOp('Concat', 11, 'ai.onnx', [x, x], {}, 1, 'cat')[0]; });
  expectError(() => session(m.proto, new popart.DataFlow(1, [m.y])), ["node 'cat", '(Concat, opset 11', "required attribute 'axis' is missing"]);
  m = customModel(11, (b) => b.customOp('Transpose', 11, 'ai.onnx', [b.addInputTensor('FLOAT', [2, 3])], { perm: '1,0' }, 1, 'tr')[0]);
  expectError(() => session(m.proto, new popart.DataFlow(1, [m.y])), ["node 'tr", 'Transpose', "attribute 'perm' must be INTS, but it is STRING"]);
  m = customModel(11, (b) => b.customOp('Add', 11, 'ai.onnx', [b.addInputTensor('FLOAT', [2, 3], 'a'), b.addInputTensor('FLOAT', [4], 'b')], {}, 1, 'add')[0]);
  expectError(() => session(m.proto, new popart.DataFlow(1, [m.y])), ["while inferring shapes for node 'add", '(Add, opset 11', "input 'a' FLOAT [2 3]", '[4]']);
  m = customModel(11, (b) => { const a = b.addInputTensor('FLOAT', [2]); return b.customOp('Add', 11, 'ai.onnx', [a, a, a], {}, 1, 'add3')[0]; });
  expectError(() => session(m.proto, new popart.DataFlow(1, [m.y])), ["'add3", 'has 3 inputs', 'Add takes 2']);
  m = customModel(11, (b) => b.aiOnnxOpset11.reshape([b.addInputTensor('FLOAT', [2, 3], 'x'), b.addInputTensor('INT64', [1], 'shp')], 'r'));
  // The IPU model's rule (PopART's); the CPU device plans it at run time (runtime_shapes.test.mjs).
  const ipu = popart.DeviceManager().createIpuModelDevice({ numIPUs: 1 });
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), ipu),
              ["node 'r", "input 1 ('shp') gives the target shape", 'must be known when the model is compiled']);
});

test('StepIO errors', () => {
  const m = addModel(popart);
  let s = session(m.proto, new popart.DataFlow(1, [m.out]));
  s.prepareDevice();
  let anchors = s.initAnchorArrays();
  const six = () => new Float32Array(6).fill(1);
  expectError(() => s.run(new popart.PyStepIO({ a: six() }, anchors)), ["no input for tensor 'b'", 'FLOAT [2 3]', "'a', 'b'"]);
  expectError(() => s.run(new popart.PyStepIO({ a: six(), b: six(), c: six() }, anchors)),
              ["The tensor 'c' has been provided as one of the inputs to the stepIO, but it is not registered as one of the inputs to the model"]);
  expectError(() => s.run(new popart.PyStepIO({ a: new Float64Array(6), b: six() }, anchors)),
              ["Input 'a' is given as DOUBLE data, but the model expects FLOAT"]);
  s.dispose();
  s = session(m.proto, new popart.DataFlow(2, [m.out]));
  s.prepareDevice();
  anchors = s.initAnchorArrays();
  expectError(() => s.run(new popart.PyStepIO({ a: new popart.NDArray(new Float32Array(12), [2, 2, 3]), b: new popart.NDArray(six(), [2, 3]) }, anchors)),
              ['Unexpected number of input elements for Tensor b. Expected 12, but received 6',
               'batchesPerStep (2) * accumulationFactor (1) * replicationFactor (1) * elements per micro-batch (6']);
  expectError(() => s.run(new popart.PyStepIO({ a: new Float32Array(12), b: new Float32Array(12) }, { [m.out]: new Float32Array(6) })),
              ['Unexpected number of output elements for anchor Add:0. Expected 12, but received 6']);
  // still works
  s.run(new popart.PyStepIO({ a: new Float32Array(12).fill(1), b: new Float32Array(12).fill(2) }, anchors));
  assert.equal(anchors[m.out].data[11], 3);
  s.dispose();
  // As PopART: an initializer the Builder lists as a graph input may be in the StepIO (not read).
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array([1, 2]), [2]), 'w');
  const y = b.aiOnnx.add([x, w]);
  s = session(b.getModelProto(), new popart.DataFlow(1, [y]));
  b.dispose();
  s.prepareDevice();
  anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ x: new Float32Array([1, 1]), w: new Float32Array([9, 9]) }, anchors));
  assert.deepEqual(Array.from(anchors[y].data), [2, 3]);
  s.dispose();
});

test('session errors', () => {
  const m = addModel(popart);
  expectError(() => session(m.proto, new popart.DataFlow(1, ['nonexistent'])), ["Anchor tensor `nonexistent' not in Ir Tensors."]);
  expectError(() => session(m.proto, new popart.DataFlow(1, ['Gradient___a'])), ['not in Ir Tensors', 'gradient']);
  expectError(() => session(m.proto, new popart.DataFlow(1)), ['User must specify an anchor tensor when doing inference.']);
  const s = session(m.proto, new popart.DataFlow(1, [m.out]));
  const anchors = s.initAnchorArrays();  // works before prepareDevice
  const io = new popart.PyStepIO({ a: new Float32Array(6).fill(1), b: new Float32Array(6).fill(1) }, anchors);
  expectError(() => s.run(io), ['Session::prepareDevice() must be called before Session::run() is called.']);
  expectError(() => s.getSummaryReport(), ['Session must have been prepared before a report can be fetched']);
  s.setRandomSeed(1);  // no random behaviour: PopART warns and does nothing, prepared or not
  expectError(() => s.modelToHost(path.join(TMP, 'x.onnx')), ['Devicex::prepare() must be called']);
  assert.ok(!fs.existsSync(path.join(TMP, 'x.onnx')));
  s.prepareDevice();
  s.run(io);
  assert.equal(anchors[m.out].data[5], 2);
  s.dispose();
  expectError(() => s.run(io), ['InferenceSession has been disposed']);
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), null), ['deviceInfo must come from DeviceManager()']);
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined, { accumulationFactor: 4 }),
              ['enableGradientAccumulation is false, but accumulationFactor > 1.']);
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined,
                                                { accumulationFactor: 4, enableGradientAccumulation: true }),
              ['Gradient Accumulation only available when training.']);
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined, { noSuchOption: 1 }),
              ["SessionOptions has no option 'noSuchOption'"]);
});

test('value-class errors: TensorInfo, DataFlow, Patterns, devices, NDArray', () => {
  expectError(() => new popart.TensorInfo('FLOAT33', [2]), ['FLOAT33']);
  expectError(() => new popart.DataFlow(1, { y: popart.AnchorReturnType('EveryN', 0) }), ['Anchor return period must be greater than zero']);
  expectError(() => new popart.Patterns(['NoSuchPattern']), ['Unknown pattern NoSuchPattern']);
  expectError(() => new popart.Patterns('Sometimes'), ["Invalid PatternsLevel 'Sometimes'; expected one of NoPatterns, Minimal, Default, All"]);
  expectError(() => popart.DeviceManager().acquireAvailableDevice(1), ['Failed to acquire device with 1 IPUs', 'createCpuDevice()']);
  expectError(() => popart.DeviceManager().acquireDeviceById(5), ["Failed to acquire device with id '5'", 'createCpuDevice()']);
  expectError(() => popart.DeviceManager().createSimDevice({ ipuVersion: 'ipu2' }), ["Invalid option `ipuVersion'", 'device type Sim']);
  expectError(() => new popart.NDArray(new Float32Array(5), [2, 3]), ['5 elements do not fill shape [2 3]']);
  expectError(() => popart.getLogger().setLevel('LOUD'), ['LOUD']);
});

test('the module keeps working after all of the above', () => {
  const m = addModel(popart);
  const s = session(m.proto, new popart.DataFlow(1, [m.out]));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ a: new Float32Array(6).fill(2), b: new Float32Array(6).fill(3) }, anchors));
  assert.deepEqual(Array.from(anchors[m.out].data), [5, 5, 5, 5, 5, 5]);
  s.dispose();
});

test("errors are instances of PopART's exception classes (the core's list, as Python's)", () => {
  const names = ['popart_exception', 'popart_internal_exception', 'popart_runtime_error', 'OutOfMemoryException',
                 'poplar_exception', 'poplar_runtime_error', 'poplibs_exception'];
  for (const n of names) {
    assert.equal(typeof popart[n], 'function', n);
    assert.ok(popart[n].prototype instanceof Error, n);
    assert.equal(new popart[n]('m').name, n);
    assert.ok(popart[n].doc.length > 10, n);
  }
  assert.ok(popart.popart_internal_exception.prototype instanceof popart.popart_exception);
  assert.ok(popart.OutOfMemoryException.prototype instanceof popart.popart_exception);
  assert.ok(popart.poplar_runtime_error.prototype instanceof popart.poplar_exception);
  assert.ok(!(popart.poplar_exception.prototype instanceof popart.popart_exception));
  const catchIt = (fn) => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    assert.fail('nothing was thrown');
  };
  // A user error: popart_exception, with the core's message.
  const bad = catchIt(() => session(new Uint8Array(0), new popart.DataFlow(1, ['y'])));
  assert.ok(bad instanceof popart.popart_exception && bad.name === 'popart_exception', String(bad));
  assert.match(bad.message, /Failed to load a ModelProto/);
  // Passed on from Poplar: an unknown engine option.
  const m = addModel(popart);
  const engine = catchIt(() => {
    const s = new popart.InferenceSession({ fnModel: m.proto, dataFlow: new popart.DataFlow(1, [m.out]),
                                            deviceInfo: cpu(popart), userOptions: { engineOptions: { option: 'value' } } });
    s.prepareDevice();
  });
  assert.ok(engine instanceof popart.poplar_exception && !(engine instanceof popart.popart_exception), String(engine));
  assert.match(engine.message, /Unrecognised option 'option'$/);
  // A run that reaches abort: poplar_runtime_error.
  const b = new popart.Builder();
  const y = b.aiOnnxOpset11.abs([b.addInputTensor('FLOAT', [1], 'y')]);
  b.aiGraphcore.abort();
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart));
  b.dispose();
  s.prepareDevice();
  const aborted = catchIt(() => s.run(new popart.PyStepIO({ y: new Float32Array([1]) }, s.initAnchorArrays())));
  assert.ok(aborted instanceof popart.poplar_runtime_error, String(aborted));
  s.dispose();
});
