// The Builder through JS: PopART's naming rules, generated opset methods, shape inference,
// attributes, scopes, subgraphs, and the same errors as natively (tests/unit/builder_test.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();

test('tensor naming rules', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const in0 = b.addInputTensor(new popart.TensorInfo('FLOAT', [2]));
  const in1 = b.addInputTensor('FLOAT', [2]);
  assert.equal(in0, 'input');
  assert.equal(in1, 'input/1');
  assert.equal(b.addInitializedInputTensor(new popart.NDArray(new Float32Array([1, 2]), [2])), 'init_input');
  const s0 = ai.add([in0, in1]);
  assert.equal(s0, 'Add:0');
  assert.equal(ai.add([in0, in1]), 'Add:0/1');
  assert.equal(ai.relu([s0], 'myrelu'), 'myrelu:0');
  b.pushNameScope('enc');
  b.pushNameScope('layer1');
  assert.equal(ai.relu([s0]), 'enc/layer1/Relu:0');
  assert.equal(b.getNameScope('x'), 'enc/layer1/x');
  b.popNameScope();
  b.popNameScope();
  expectError(() => b.popNameScope(), ['no name scope']);
  assert.equal(b.nameScope('blk', () => ai.relu([s0])), 'blk/Relu:0');
  const outs = ai.split([b.addInputTensor('FLOAT', [4])], 2, 0, [2, 2]);
  assert.deepEqual(outs, ['Split:0', 'Split:1']);
  b.dispose();
});

test('conv windows are checked as the op is added (PopART\'s Builder messages)', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [1, 4, 6, 6]), 'x');
  const w = b.addInputTensor(new popart.TensorInfo('FLOAT', [8, 4, 1, 1]), 'w');
  const big = b.addInputTensor(new popart.TensorInfo('FLOAT', [8, 4, 9, 9]), 'big');
  expectError(() => ai.conv([x, w], [1, 1], 1, [3, 3]),
              ["kernel_shape, [3 3], does not match inferred shape from weight input 'w', [1 1]"]);
  expectError(() => ai.conv([x, big], [1, 1], 1, [], [2, 0, 1, 0]),
              ['Window parameter values combine to give invalid spatial output shape: [1 -2]']);
  expectError(() => ai.conv([x, w], [1, 1], 1, [], [], [1, 1, 1]),
              ['Length of strides vector 3 != number of spatial dimensions 2']);
  assert.deepEqual(b.getTensorShape(ai.conv([x, w])), [1, 8, 6, 6]);
  b.dispose();
});

test('shape inference and introspection', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x = b.addInputTensor(new popart.TensorInfo('FLOAT', [1, 3, 8, 8]), 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array(16 * 27).fill(0.5), [16, 3, 3, 3]), 'w');
  const c = ai.conv([x, w], [1, 1], 1, [3, 3], [1, 1, 1, 1], [2, 2]);
  assert.deepEqual(b.getTensorShape(c), [1, 16, 4, 4]);
  const f = ai.flatten([c]);
  assert.deepEqual(b.getTensorShape(f), [1, 256]);
  const s = ai.constant(new popart.NDArray(new BigInt64Array([4n, 64n]), [2], 'INT64'));
  const r = ai.reshape([f, s]);
  assert.deepEqual(b.getTensorShape(r), [4, 64]);
  assert.equal(b.getTensorDtypeString(r), 'float32');
  assert.ok(b.isInitializer(w));
  assert.ok(!b.isInitializer(x));
  b.addOutputTensor(r);
  assert.deepEqual(b.getInputTensorIds(), ['x', 'w']);
  assert.deepEqual(b.getOutputTensorIds(), [r]);
  assert.deepEqual(b.getTrainableTensorIds(), ['w']);
  const proto = b.getModelProto();
  assert.ok(proto instanceof Uint8Array);
  assert.ok(Buffer.from(proto).includes('Conv'));
  b.dispose();
});

test('attributes with defaults, optional attributes and Cast to a type name', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset13;
  const x = b.addInputTensor('FLOAT', [2, 3]);
  const sm = ai.softmax([x]);  // axis defaults to -1 at opset 13
  assert.deepEqual(b.getTensorShape(sm), [2, 3]);
  const t = ai.transpose([x], [1, 0]);
  assert.deepEqual(b.getTensorShape(t), [3, 2]);
  const c = ai.cast([x], 'INT32');
  assert.equal(b.getTensorDtypeString(c), 'int32');
  const lr = ai.leakyrelu([x], 0.25);
  b.addNodeAttribute('myattr', [1, 2, 3], [lr]);
  assert.ok(b.nodeHasAttribute('myattr', [lr]));
  assert.ok(b.getAllNodeAttributeNames([lr]).includes('alpha'));
  expectError(() => b.addNodeAttribute('myattr', 5, [lr]), ['Node already has attribute myattr']);
  b.dispose();
});

test('graphcore ops and customOp', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [4]);
  const y = b.aiGraphcore.scale([x], 2.0);
  assert.equal(y, 'Scale:0');
  const l = b.aiGraphcore.l1loss([y], 0.1, popart.ReductionType.Sum);
  assert.deepEqual(b.getTensorShape(l), []);
  const z = b.customOp('FrobnicateOp', 3, 'com.acme', [x], { alpha: 0.5, mode: 'fast' }, 1, 'frob');
  assert.deepEqual(z, ['frob:0']);
  b.dispose();
});

test('opset errors and input count errors match the native messages', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const a = b.addInputTensor('FLOAT', [2]);
  expectError(() => ai.add([a]), ['Add has invalid number of inputs 1. Must be between 2..2']);
  expectError(() => ai.relu([a, a]), ['Relu has invalid number of inputs 2. Must be between 1..1']);
  expectError(() => ai.concat([], 0), ['Concat has invalid number of inputs 0. Must be at least 1']);
  expectError(() => ai.add([a, 'no_such_tensor']), ["input 1 of Add is 'no_such_tensor'", 'unknown tensor id']);
  expectError(() => b.addOutputTensor('nope'), ["'nope' is not a tensor"]);
  expectError(() => b.getTensorShape('nope'), ['nope is not an input or output tensor. Must be one of']);
  expectError(() => b.aiOnnxOpset9, ["Invalid opset 'aiOnnxOpset9' selected. Opset for domain ai.onnx already defined as 11"]);
  // the builder keeps working after the errors
  assert.equal(ai.relu([a]), 'Relu:0');
  b.dispose();
});

test('default aiOnnx opset is 10, or the imported model\'s', () => {
  const b = new popart.Builder();
  assert.equal(b.aiOnnx.getOpsetVersion(), 10);
  const x = b.addInputTensor('FLOAT', [2]);
  b.addOutputTensor(b.aiOnnx.relu([x]));
  const proto = b.getModelProto();
  b.dispose();
  const b2 = popart.Builder.createFromOnnxModel(proto);
  assert.equal(b2.aiOnnx.getOpsetVersion(), 10);
  assert.deepEqual(b2.getOutputTensorIds(), ['Relu:0']);
  b2.dispose();
  const b3 = new popart.Builder({ opsets: { 'ai.onnx': 13 } });
  assert.equal(b3.aiOnnx.getOpsetVersion(), 13);
  b3.dispose();
});

test('subgraph builders', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2]);
  const sub = b.createSubgraphBuilder();
  sub.setGraphName('body');
  const u = sub.addUntypedInputTensor('u');
  assert.equal(u, 'u');
  sub.dispose();
  expectError(() => b.addUntypedInputTensor(), ['Can not add untyped tensors to the top-level graph.']);
  void x;
  b.dispose();
});

test("a subgraph builder takes the parent's opsets (a Scan body built first, as PopART's scan tests do)", () => {
  for (const opset of [10, 11]) {
    const b = new popart.Builder({ opsets: { 'ai.onnx': opset, 'ai.graphcore': 1 } });
    const t0 = b.addInputTensor('FLOAT', [4], 't0');
    const t1 = b.addInputTensor('FLOAT', [4], 't1');
    const sb = b.createSubgraphBuilder();
    assert.equal(sb.aiOnnx.getOpsetVersion(), opset);
    sb.setGraphName('body');
    const a = sb.addUntypedInputTensor(t0);
    const c = sb.addUntypedInputTensor(t1);
    sb.addOutputTensor(sb.aiOnnx.add([a, c]));
    // scan(args, num_outputs, body, num_scan_inputs, ...): the C++ order.
    const [o] = b.aiOnnx.scan([t0, t1], 1, sb, 2);
    b.addOutputTensor(o);
    const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [o]), cpu(popart));
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO({ t0: new Float32Array([0, 2, 4, 6]), t1: new Float32Array([1, 3, 5, 7]) }, anchors));
    assert.deepEqual(Array.from(anchors[o].data), [1, 5, 9, 13]);
    s.dispose();
    b.dispose();
  }
});

test('a disposed builder says so', () => {
  const b = new popart.Builder();
  b.dispose();
  expectError(() => b.addInputTensor('FLOAT', [1]), ['Builder has been disposed']);
  b.dispose();  // twice is fine
});
