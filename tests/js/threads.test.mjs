// The pthread build (popart_wasm_mt) through createPopart({ threads }): the zoo on two threads
// matches PyTorch and the single-threaded module, a training step gives the same weights, bad
// thread counts are refused, and Node exits afterwards (idle workers do not keep it alive: this
// file would time out otherwise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPopart, ZOO } from './helpers.mjs';

const one = await createPopart();
const two = await createPopart({ threads: 2 });

function readF32(p) {
  const buf = fs.readFileSync(p);
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

function infer(popart, name) {
  const base = path.join(ZOO, name);
  const s = new popart.InferenceSession(`${base}.onnx`, new popart.DataFlow(1, ['output']),
                                        popart.DeviceManager().createCpuDevice());
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ input: readF32(`${base}.input.bin`) }, anchors));
  const y = Float32Array.from(anchors.output.data);
  s.dispose();
  return y;
}

test('thread counts', async () => {
  assert.equal(one.getNumThreads(), 1);
  assert.equal(two.getNumThreads(), 2);
  for (const bad of [0, 5, 1.5, 'two']) {
    await assert.rejects(createPopart({ threads: bad }), /threads must be an integer from 1 to 4/);
  }
  assert.throws(() => two.setNumThreads(0), /expected an integer >= 1/);
  two.setNumThreads(3);
  assert.equal(two.getNumThreads(), 3);
  two.setNumThreads(2);
});

test('the zoo on two threads matches PyTorch and one thread', () => {
  const models = Object.keys(JSON.parse(fs.readFileSync(path.join(ZOO, 'manifest.json'), 'utf8')).models);
  assert.ok(models.length > 0);
  for (const name of models) {
    const ref = readF32(path.join(ZOO, `${name}.output.bin`));
    const y2 = infer(two, name), y1 = infer(one, name);
    let worstRef = 0, worstOne = 0;
    for (let i = 0; i < ref.length; ++i) {
      worstRef = Math.max(worstRef, Math.abs(y2[i] - ref[i]));
      worstOne = Math.max(worstOne, Math.abs(y2[i] - y1[i]));
    }
    assert.ok(worstRef <= 1e-4, `${name}: two threads vs PyTorch ${worstRef}`);
    assert.ok(worstOne <= 1e-5, `${name}: two threads vs one ${worstOne}`);
  }
});

test('training on two threads: SGD steps give the one-thread weights', () => {
  const train = (popart) => {
    const b = new popart.Builder();
    const ai = b.aiOnnxOpset11;
    const x = b.addInputTensor('FLOAT', [64, 128], 'x');
    const w0 = new Float32Array(128 * 96).map((_, i) => Math.sin(i) * 0.05);
    const w = b.addInitializedInputTensor(new popart.NDArray(w0, [128, 96], 'FLOAT'), 'w');
    const y = ai.matmul([x, w]);
    const loss = b.aiGraphcore.l1loss([y], 0.1, 'Sum');
    b.addOutputTensor(loss);
    const s = new popart.TrainingSession(b.getModelProto(), new popart.DataFlow(1, [loss]), loss,
                                         new popart.ConstSGD(0.01), popart.DeviceManager().createCpuDevice());
    b.dispose();
    s.prepareDevice();
    s.weightsFromHost();
    const anchors = s.initAnchorArrays();
    const xs = new Float32Array(64 * 128).map((_, i) => Math.cos(i * 0.37));
    for (let step = 0; step < 3; ++step) s.run(new popart.PyStepIO({ x: xs }, anchors));
    const out = { w: new Float32Array(128 * 96) };
    s.weightsToHost();
    s.readWeights(out);
    s.dispose();
    return out.w;
  };
  const w2 = train(two), w1 = train(one);
  let worst = 0;
  for (let i = 0; i < w1.length; ++i) worst = Math.max(worst, Math.abs(w2[i] - w1[i]));
  assert.ok(worst <= 1e-6, `weights differ by ${worst}`);
});
