// Sizes that cannot wrap in a 32-bit module, allocations over the memory limit, and the module
// staying usable after each of these errors (the native cases: tests/unit/reliability_test.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, addModel, cpu, DEFAULT_LIMIT } from './helpers.mjs';

const popart = await createPopart();
const GiB = 1024 ** 3;

/// A good model still runs: Add of two [2, 3] inputs.
function expectGoodModelRuns(p = popart) {
  const m = addModel(p);
  const s = new p.InferenceSession(m.proto, new p.DataFlow(1, [m.out]), cpu(p));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new p.PyStepIO({ [m.a]: new Float32Array([1, 2, 3, 4, 5, 6]), [m.b]: new Float32Array(6).fill(10) }, anchors));
  assert.deepEqual(Array.from(anchors[m.out].data), [11, 12, 13, 14, 15, 16]);
  s.dispose();
}

/// Expand of a [1] input to `dims`, then ReduceSum: a tiny input grows a huge intermediate.
function expandSum(p, dims) {
  const b = new p.Builder();
  const ai = b.aiOnnxOpset13;
  const x = b.addInputTensor('FLOAT', [1], 'x');
  const shape = ai.constant(new p.NDArray(BigInt64Array.from(dims.map(BigInt)), [dims.length], 'INT64'), 'shape');
  const big = ai.expand([x, shape], 'Expand_big');
  const y = ai.reducesum([big], 0, 0, 'Sum');
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, x, y, big };
}

test('a 4 GiB intermediate is refused at prepareDevice, not wrapped to 64 bytes', () => {
  assert.equal(popart.getMemoryLimit(), DEFAULT_LIMIT);
  const m = expandSum(popart, [32768, 32768]);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), cpu(popart));
  expectError(() => s.prepareDevice(), [
    'prepareDevice: the graph needs', 'more than the memory limit of ', `(${DEFAULT_LIMIT} bytes) (the WebAssembly module's maximum memory)`,
    `'${m.big}' FLOAT [32768 32768] 4.00 GiB (4294967296 bytes) (activation`]);
  assert.equal(s.isPrepared(), false);
  expectError(() => s.getMemoryStats(), ['must be called before']);
  expectError(() => s.run(new popart.PyStepIO({ [m.x]: new Float32Array([1]) }, {})), ['must be called before']);
  s.dispose();
  expectGoodModelRuns();
});

test('a 16 GiB Builder input and a huge declared shape give clear errors', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [65536, 65536], 'x');
  const y = b.aiOnnx.relu([x]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart));
  expectError(() => s.prepareDevice(), ['16.00 GiB', `'${y}' FLOAT [65536 65536]`]);
  s.dispose();
  b.dispose();
  // [2^32, 2^32] has 2^64 elements: nelms used to wrap to 0 (and JS to end in a raw RangeError).
  expectError(() => new popart.TensorInfo('FLOAT', [4294967296, 4294967296]),
              ['Invalid shape [4294967296 4294967296]', 'element count overflows a 64-bit integer']);
  const b2 = new popart.Builder();
  expectError(() => b2.addInputTensor('FLOAT', [4294967296, 4294967296]), ['element count overflows']);
  b2.dispose();
  expectGoodModelRuns();
});

test('initAnchorArrays names the anchor and the factors of an array over the limit', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [4, 8], 'x');
  const y = b.aiOnnx.relu([x]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(),
                                        new popart.DataFlow(1000000000, { [y]: popart.AnchorReturnType('All') }), cpu(popart));
  s.prepareDevice();
  expectError(() => s.initAnchorArrays(), [
    `The array for anchor '${y}'`, '32000000000 elements of FLOAT',
    'batchesPerStep (1000000000) * accumulationFactor (1) * replicationFactor (1) * elements per value (32, shape [4 8])',
    'more than the memory limit']);
  s.dispose();
  b.dispose();
  expectGoodModelRuns();
});

test('setMemoryLimit lowers the limit; 0 restores the default', () => {
  const m = expandSum(popart, [4096, 4096]);  // a 64 MiB intermediate
  popart.setMemoryLimit(32 * 1024 * 1024);
  try {
    assert.equal(popart.getMemoryLimit(), 32 * 1024 * 1024);
    const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), cpu(popart));
    expectError(() => s.prepareDevice(), ['more than the memory limit of 32.00 MiB (33554432 bytes) (set by setMemoryLimit)']);
    s.dispose();
  } finally {
    popart.setMemoryLimit(0);
  }
  assert.equal(popart.getMemoryLimit(), DEFAULT_LIMIT);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [m.x]: new Float32Array([0.5]) }, anchors));
  assert.equal(anchors[m.y].data[0], 4096 * 4096 * 0.5);
  s.dispose();
  expectError(() => popart.setMemoryLimit(-1), ['setMemoryLimit']);
  expectError(() => popart.setMemoryLimit(1.5), ['whole number of bytes']);
});

test('a module with a small maximum memory fails cleanly when it runs out, and keeps working', async () => {
  await assert.rejects(createPopart({ maximumMemory: 1000 }), /maximumMemory must be a whole number of bytes/);
  const small = await createPopart({ maximumMemory: 64 * 1024 * 1024 });
  assert.equal(small.getMemoryLimit(), 64 * 1024 * 1024);
  // Over the limit: refused before allocation.
  let m = expandSum(small, [8192, 8192]);  // 256 MiB
  let s = new small.InferenceSession(m.proto, new small.DataFlow(1, [m.y]), cpu(small));
  expectError(() => s.prepareDevice(), ["more than the memory limit of 64.00 MiB (67108864 bytes) (the WebAssembly module's maximum memory)"]);
  s.dispose();
  expectGoodModelRuns(small);
  // Under the limit, but the heap (code, stack, the model) cannot also hold it: the allocation
  // itself fails, with an error, not a trap.
  m = expandSum(small, [4000, 4000]);  // 61 MiB
  s = new small.InferenceSession(m.proto, new small.DataFlow(1, [m.y]), cpu(small));
  expectError(() => s.prepareDevice(), ['out of host memory']);
  s.dispose();
  expectGoodModelRuns(small);
  // And one that fits runs.
  m = expandSum(small, [2048, 2048]);  // 16 MiB
  s = new small.InferenceSession(m.proto, new small.DataFlow(1, [m.y]), cpu(small));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new small.PyStepIO({ [m.x]: new Float32Array([1]) }, anchors));
  assert.equal(anchors[m.y].data[0], 2048 * 2048);
  s.dispose();
});

test('SessionOptions start from the core defaults; engineOptions write through and are checked', () => {
  const o = new popart.SessionOptions();
  assert.equal(o.constantWeights, true);
  assert.equal(o.enableFloatingPointChecks, false);
  assert.deepEqual(o.engineOptions, {});
  o.engineOptions['debug.instrument'] = 'true';
  const m = addModel(popart);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined, o);
  s.prepareDevice();
  s.dispose();
  const bad = new popart.SessionOptions();
  bad.engineOptions.x = '1';
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined, bad),
              ["Unrecognised option 'x'"]);
  assert.deepEqual(new popart.SessionOptions().engineOptions, {}, 'each SessionOptions has its own maps');
  expectGoodModelRuns();
});

test('enableFloatingPointChecks names the op and the tensor', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [4], 'x');
  const l = b.aiOnnx.log([x], 'TheLog');
  const y = b.aiOnnx.mul([l, l]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, [y]), cpu(popart), undefined,
                                        { enableFloatingPointChecks: true });
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: new Float32Array([1, 2, 3, 4]) }, anchors));
  expectError(() => s.run(new popart.PyStepIO({ [x]: new Float32Array([1, 2, -1, 4]) }, anchors)),
              ['Floating-point check (enableFloatingPointChecks)', 'TheLog', 'produced NaN', `'${l}' FLOAT [4] at element 2`]);
  s.run(new popart.PyStepIO({ [x]: new Float32Array([1, 2, 3, 4]) }, anchors));
  s.dispose();
  b.dispose();
});

test('hardware device calls give the core messages', () => {
  const dm = popart.DeviceManager();
  assert.deepEqual(dm.enumerateDevices(), []);
  expectError(() => dm.acquireAvailableDevice(1), ['Failed to acquire device with 1 IPUs']);
  expectError(() => dm.acquireAvailableDevice(3), ['must be a power of two']);
  expectError(() => dm.acquireDeviceById(5), ["Failed to acquire device with id '5'"]);
});

test('PopART parity: an unanchored loss has info; a model with no trainable weight trains', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2, 2], 'x');
  const c = b.aiOnnx.constant(new Float32Array([6, 6, 6, 6]), 'six');
  const y = b.aiOnnx.add([x, b.aiOnnx.reshape([c, b.aiOnnx.constant(new popart.NDArray(BigInt64Array.from([2n, 2n]), [2], 'INT64'))])]);
  const l = b.aiGraphcore.identityloss([y]);
  const proto = b.getModelProto();
  const s = new popart.TrainingSession(proto, new popart.DataFlow(1, [y]), l, new popart.ConstSGD(0.1), cpu(popart));
  assert.deepEqual(s.getInfo(l).shape(), []);
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [x]: new Float32Array([1, 2, 3, 4]) }, anchors));
  assert.deepEqual(Array.from(anchors[y].data), [7, 8, 9, 10]);
  assert.deepEqual(s.modelToHostBytes(), proto);
  s.dispose();
  b.dispose();
});
