// Training through JS: TrainingSession with a builder-made loss, SGD closed forms, ConstSGD with
// nllloss (the seeds' example), errors, and the trained model exported and re-imported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, cpu } from './helpers.mjs';

const popart = await createPopart();

/// w [1] FLOAT, loss = identityloss(Sum)(w * x): with x = 1 the gradient is always 1.
function unitGradModel(w0) {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [1], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray([w0], [1], 'FLOAT'), 'w');
  const l = b.aiGraphcore.identityloss([b.aiOnnxOpset13.mul([x, w])], 'Sum', 'loss');
  b.addOutputTensor(l);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, loss: l };
}

function trainUnit(optimizer, runs) {
  const m = unitGradModel(5);
  const s = new popart.TrainingSession({ fnModel: m.proto, dataFlow: new popart.DataFlow(1, [m.loss]), loss: m.loss,
                                         optimizer, deviceInfo: cpu(popart) });
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  for (let i = 0; i < runs; ++i) s.run(new popart.PyStepIO({ x: [1] }, anchors));
  s.weightsToHost();
  const w = { w: new Float32Array(1) };
  s.readWeights(w);
  s.dispose();
  return w.w[0];
}

test('SGD momentum closed forms (w0 - 6 lr; nesterov w0 - 9 lr)', () => {
  const lr = 0.25;
  assert.equal(trainUnit(new popart.SGD({ defaultLearningRate: [lr, true], defaultMomentum: [1, true] }), 3), 5 - 6 * lr);
  assert.equal(trainUnit(new popart.SGD({ defaultLearningRate: lr, defaultMomentum: 1, nesterov: 1 }), 3), 5 - 9 * lr);
  assert.equal(trainUnit(new popart.ConstSGD(0.5), 2), 4);
});

test('seed example: nllloss + ConstSGD trains a softmax classifier', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x = b.addInputTensor('FLOAT', [4, 3], 'x');
  const label = b.addInputTensor('INT32', [4], 'label');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array(12).fill(0.01), [3, 4], 'FLOAT'), 'w');
  const probs = ai.softmax([ai.matmul([x, w])], 1);
  const loss = b.aiGraphcore.nllloss([probs, label], 'Sum', undefined, false, 'nll');
  b.addOutputTensor(loss);
  const proto = b.getModelProto();
  b.dispose();
  const s = new popart.TrainingSession(proto, new popart.DataFlow(1, { [loss]: popart.AnchorReturnType('All') }), loss,
                                       new popart.ConstSGD(0.5), cpu(popart));
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  const xs = new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0]);
  const io = new popart.PyStepIO({ x: xs, label: new Int32Array([0, 1, 2, 3]) }, anchors);
  const losses = [];
  for (let i = 0; i < 30; ++i) {
    s.run(io);
    losses.push(anchors[loss].data[0]);
  }
  assert.ok(losses[0] > 5.0 && losses[29] < 0.6 * losses[0], `loss ${losses[0]} -> ${losses[29]}`);
  for (let i = 1; i < losses.length; ++i) assert.ok(losses[i] <= losses[i - 1] + 1e-6, `loss rose at step ${i}`);
  // modelToHost then a new InferenceSession gives the trained forward pass
  const trained = s.modelToHost();
  const inf = new popart.InferenceSession(trained, new popart.DataFlow(1, [loss]), cpu(popart));
  inf.prepareDevice();
  const a2 = inf.initAnchorArrays();
  inf.run(new popart.PyStepIO({ x: xs, label: new Int32Array([0, 1, 2, 3]) }, a2));
  s.run(io);  // the training session's next forward pass uses the same weights
  assert.ok(Math.abs(a2[loss].data[0] - anchors[loss].data[0]) < 1e-5, `${a2[loss].data[0]} vs ${anchors[loss].data[0]}`);
  inf.dispose();
  // resetHostWeights with the untrained model + weightsFromHost restores the first loss.
  s.resetHostWeights(proto);
  s.weightsFromHost();
  s.run(io);
  assert.ok(Math.abs(anchors[loss].data[0] - losses[0]) < 1e-5, `${anchors[loss].data[0]} vs ${losses[0]}`);
  s.dispose();
});

test('exportInferenceModel: the trained outputs without the loss, labels or optimizer state', () => {
  // The same case as ExportInferenceModel.* (C++) and test_export_inference_model_after_training.
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2, 3], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(Float32Array.from({ length: 12 }, (_, i) => (i - 6) / 6), [3, 4], 'FLOAT'), 'w');
  const probs = b.aiOnnxOpset13.softmax([b.aiOnnxOpset13.matmul([x, w])], 1);
  b.addOutputTensor(probs);
  const label = b.addInputTensor('INT32', [2], 'label');
  const loss = b.aiGraphcore.nllloss([probs, label]);
  b.addOutputTensor(loss);
  const proto = b.getModelProto();
  b.dispose();
  const s = new popart.TrainingSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [loss]), loss,
                                         optimizer: new popart.SGD({ defaultLearningRate: [0.5, false], defaultMomentum: [0.9, false] }),
                                         deviceInfo: cpu(popart) });
  s.prepareDevice();
  s.weightsFromHost();
  const xs = new Float32Array([1, 0, -1, 0.5, 2, 0]);
  s.run(new popart.PyStepIO({ x: xs, label: new Int32Array([1, 3]) }, s.initAnchorArrays()));
  s.weightsToHost();
  const trained = { w: new Float32Array(12) };
  s.readWeights(trained);
  const bytes = s.exportInferenceModel();
  const d = popart.describeModel(bytes, {});
  assert.deepEqual(d.inputs, ['x']);
  assert.deepEqual(d.outputs, [probs]);
  assert.deepEqual(d.nodes.map((n) => n.opType), ['MatMul', 'Softmax']);
  assert.ok(!d.tensors.some((t) => t.name.startsWith('Accl___')));
  assert.ok(popart.describeModel(s.modelToHost(), {}).tensors.some((t) => t.name.startsWith('Accl___')));
  const inf = new popart.InferenceSession(bytes, new popart.DataFlow(1, [probs]), cpu(popart));
  inf.prepareDevice();
  const a = inf.initAnchorArrays();
  inf.run(new popart.PyStepIO({ x: xs }, a));
  for (let n = 0; n < 2; ++n) {
    const z = [0, 1, 2, 3].map((k) => [0, 1, 2].reduce((acc, i) => acc + xs[n * 3 + i] * trained.w[i * 4 + k], 0));
    const e = z.map(Math.exp);
    const sum = e.reduce((p, q) => p + q);
    for (let k = 0; k < 4; ++k) assert.ok(Math.abs(a[probs].data[n * 4 + k] - e[k] / sum) < 1e-5, `${n} ${k}`);
  }
  inf.dispose();
  s.dispose();
});

test('training errors reach JS with the C++ messages', () => {
  const m = unitGradModel(1);
  expectError(() => new popart.TrainingSession(m.proto, new popart.DataFlow(1, [m.loss]), 'nope', new popart.ConstSGD(0.1), cpu(popart)),
              ["Could not find loss tensor 'nope' in main graph tensors"]);
  expectError(() => new popart.SGD({ defaultLearningRate: [0, true] }),
              ['Constant, zero learning rate in SGD, bailing as this might be a user error.']);
  expectError(() => new popart.SGD({ learningRate: 0.1 }), ['Invalid SGD key, learningRate']);
  const s = new popart.TrainingSession(m.proto, new popart.DataFlow(1, [m.loss]), m.loss, new popart.ConstSGD(0.1), cpu(popart));
  s.prepareDevice();
  expectError(() => s.run(new popart.PyStepIO({ x: [1] }, s.initAnchorArrays())), ['Must call weightsFromHost before run']);
  s.dispose();
});

test('updateOptimizerFromHost changes the learning rate at once; updateOptimizer + optimizerFromHost', () => {
  const m = unitGradModel(5);
  const sgd = (lr) => new popart.SGD({ defaultLearningRate: [lr, false] });
  const s = new popart.TrainingSession(m.proto, new popart.DataFlow(1, [m.loss]), m.loss, sgd(0.5), cpu(popart));
  assert.ok(s.getOptimizerTensorIds().some((id) => id.startsWith('scaledLearningRate0___default___FLOAT')),
            s.getOptimizerTensorIds().join());
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  const io = new popart.PyStepIO({ x: [1] }, anchors);
  const w = () => {
    s.weightsToHost();
    const out = { w: new Float32Array(1) };
    s.readWeights(out);
    return out.w[0];
  };
  s.run(io);
  assert.equal(w(), 4.5);
  s.updateOptimizerFromHost(sgd(0.25));
  s.run(io);
  assert.equal(w(), 4.25);
  // The pre-1.2 pair: the device keeps the old value until optimizerFromHost.
  s.updateOptimizer(sgd(1));
  s.optimizerFromHost();
  s.run(io);
  assert.equal(w(), 3.25);
  expectError(() => s.updateOptimizerFromHost(new popart.SGD({ defaultLearningRate: [0.1, true] })),
              ['Can not replace a constant value with a non constant value']);
  expectError(() => s.updateOptimizerFromHost(new popart.Adam({})),
              ['Can not replace optimizer of type SGD with new optimizer of type Adam']);
  s.run(io);  // still works, with the last valid optimizer
  assert.equal(w(), 2.25);
  s.dispose();
});

test('seed example: legacy losses list (NllLoss, Sum) with labels from InputShapeInfo', () => {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x = b.addInputTensor('FLOAT', [4, 3], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array(12).fill(0.01), [3, 4], 'FLOAT'), 'w');
  const probs = ai.softmax([ai.matmul([x, w])], 1);
  b.addOutputTensor(probs);
  const proto = b.getModelProto();
  b.dispose();
  const isi = new popart.InputShapeInfo();
  isi.add('labels', new popart.TensorInfo('INT32', [4]));
  const losses = [new popart.NllLoss(probs, 'labels', 'loss')];
  const s = new popart.TrainingSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, { loss: popart.AnchorReturnType('All') }),
                                         losses, optimizer: new popart.ConstSGD(0.5), deviceInfo: cpu(popart),
                                         inputShapeInfo: isi });
  s.prepareDevice();
  s.weightsFromHost();
  const anchors = s.initAnchorArrays();
  const io = new popart.PyStepIO({ x: new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0]), labels: new Int32Array([0, 1, 2, 3]) },
                                 anchors);
  s.run(io);
  const first = anchors.loss.data[0];
  assert.ok(Math.abs(first - 4 * Math.log(4)) < 1e-3, `Sum of 4 x -log(1/4): ${first}`);
  for (let i = 0; i < 20; ++i) s.run(io);
  assert.ok(anchors.loss.data[0] < 0.6 * first);
  s.dispose();
  // An inference session with losses returns the loss.
  const inf = new popart.InferenceSession(proto, new popart.DataFlow(1, ['l1']), cpu(popart),
                                          [new popart.L1Loss(probs, 'l1', 0.5)]);
  inf.prepareDevice();
  const a2 = inf.initAnchorArrays();
  inf.run(new popart.PyStepIO({ x: new Float32Array(12) }, a2));
  assert.ok(Math.abs(a2.l1.data[0] - 0.5 * 4) < 1e-6, `${a2.l1.data[0]}`);  // 4 rows of probabilities summing to 1
  inf.dispose();
  expectError(() => new popart.TrainingSession(proto, new popart.DataFlow(1, [probs]), [new popart.NllLoss(probs, 'labels', 'loss')],
                                               new popart.ConstSGD(0.1), cpu(popart)),
              ["The input 'labels' of the Nll loss 'loss' is not a tensor of the model"]);
});

test('ClipNormSettings clip the gradient by its norm', () => {
  const m = unitGradModel(5);  // gradient 1
  const clip = [popart.ClipNormSettings.clipAllWeights(0.25)];
  assert.equal(trainUnit(new popart.SGD({ defaultLearningRate: 1 }, clip), 2), 4.5);
  assert.equal(trainUnit(new popart.SGD({ defaultLearningRate: 1 }, [new popart.ClipNormSettings(['w'], 4)]), 2), 3);
  expectError(() => new popart.TrainingSession(m.proto, new popart.DataFlow(1, [m.loss]), m.loss,
                                               new popart.SGD({ defaultLearningRate: 1 }, [new popart.ClipNormSettings(['v'], 1)]),
                                               cpu(popart)),
              ["ClipNormSettings 0: 'v' is not a trainable weight"]);
});

test('ClipNormSettings with gradient accumulation clip the accumulated gradient', () => {
  const m = unitGradModel(5);  // the gradient of w is x
  const train = (clip) => {
    const s = new popart.TrainingSession({ fnModel: m.proto, dataFlow: new popart.DataFlow(1, [m.loss]), loss: m.loss,
                                           optimizer: new popart.SGD({ defaultLearningRate: 1 }, clip),
                                           deviceInfo: cpu(popart),
                                           userOptions: { enableGradientAccumulation: true, accumulationFactor: 2 } });
    s.prepareDevice();
    s.weightsFromHost();
    const anchors = s.initAnchorArrays();
    for (let i = 0; i < 2; ++i) s.run(new popart.PyStepIO({ x: [1, 3] }, anchors));  // micro-batches x = 1, 3
    s.weightsToHost();
    const w = { w: new Float32Array(1) };
    s.readWeights(w);
    s.dispose();
    return w.w[0];
  };
  // Accumulated gradient 4 per step, clipped to 1 (clipping each micro-batch would give 2).
  assert.equal(train([popart.ClipNormSettings.clipAllWeights(1)]), 5 - 2);
  assert.equal(train([]), 5 - 8);
});

test('Dropout (opset 10) drops in a TrainingSession and not in an InferenceSession', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [64], 'x');
  const y = b.aiOnnxOpset10.dropout([x], 1, 0.5)[0];
  const l = b.aiGraphcore.identityloss([y], 'Sum', 'loss');
  const proto = b.getModelProto();
  b.dispose();
  const ones = new Float32Array(64).fill(1);
  const t = new popart.TrainingSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [y]), loss: l,
                                         optimizer: new popart.ConstSGD(0.1), deviceInfo: cpu(popart) });
  t.prepareDevice();
  const ta = t.initAnchorArrays();
  t.run(new popart.PyStepIO({ x: ones }, ta));
  const kept = [...ta[y].data].filter((v) => v !== 0);
  assert.ok(kept.length > 16 && kept.length < 48, `${kept.length} kept`);
  assert.ok(kept.every((v) => v === 2));
  t.dispose();
  const i = new popart.InferenceSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [y]), deviceInfo: cpu(popart) });
  i.prepareDevice();
  const ia = i.initAnchorArrays();
  i.run(new popart.PyStepIO({ x: ones }, ia));
  assert.ok([...ia[y].data].every((v) => v === 1));
  i.dispose();
});
