// Every code example of the five seed documents (poponnx 2018-19, PopART 1.x with loss objects,
// PopART 2.x/3.x), translated line by line into JS, each followed by checks of what it means (the
// anchors and return types asked for, shapes, losses and optimizers, and where data runs through,
// the outputs against PyTorch or closed forms). The same as tests/seeds/seed_examples_test.cpp.
//
// `torch.onnx.export(alexnet, input_, "alexnet.onnx", ...)` is tests/zoo/make_zoo.py's SEED_MODELS
// (weights=None for pretrained=...). Docs 000 and 002 export without output_names yet anchor
// "output", which only exists with doc 001's output_names=["output"]: they use that export. Doc 003
// anchors the output its text calls "out", with a batch of 10 ("alexnet_seed_out").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPopart, expectError, ZOO, TMP } from './helpers.mjs';

// The core's log lines (stderr) go to `logSink`: the console, or withLog's collector.
let logSink = (line) => console.error(line);
// AlexNet's 233 MB of weights (held by the parsed model and the device) need the default 2 GiB
// module, also in the run of the suites on small modules.
const popart = await createPopart({ printErr: (line) => logSink(line), maximumMemory: 2 * 1024 ** 3 });
fs.mkdirSync(TMP, { recursive: true });

/// "alexnet.onnx" of the seeds: the zoo's export of it (a file path works in Node).
function seedModel(name) {
  const p = path.join(ZOO, `${name}.onnx`);
  assert.ok(fs.existsSync(p), `${p} is missing: build the zoo with /usr/bin/python3 tests/zoo/make_zoo.py ${ZOO}`);
  return p;
}
function readF32(p) {
  const buf = fs.readFileSync(p);
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}
/// Runs `fn` with the core's warnings of the "session" module collected.
function withLog(fn) {
  const lines = [];
  const orig = logSink;
  logSink = (line) => lines.push(line);
  const logger = popart.getLogger('session');
  const before = logger.getLevel();
  logger.setLevel('WARN');
  try {
    fn();
  } finally {
    logger.setLevel(before);
    logSink = orig;
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- doc 000 (PopART 1.x, losses)

test('doc 000: importing a graph for inference', () => {
  const alexnet = seedModel('alexnet_seed');  // input_, model, torch.onnx.export(model, input_, "alexnet.onnx")

  // # Create a runtime environment
  const anchors = { output: popart.AnchorReturnType('ALL') };
  const dataFeed = new popart.DataFlow(100, anchors);
  const device = popart.DeviceManager().createCpuDevice();

  const session = new popart.InferenceSession(alexnet, dataFeed, device);

  assert.deepEqual(dataFeed.anchors(), ['output']);
  assert.equal(dataFeed.art('output').id(), 'All');
  assert.deepEqual(session.getAnchorShape('output'), [100, 4, 1000]);
  assert.equal(session.getInfo('input.1').toString(), 'FLOAT [4 3 224 224]');
  session.dispose();
});

test('doc 000: creating a training session with losses', () => {
  const alexnet = seedModel('alexnet_seed');
  const anchors = { output: popart.AnchorReturnType('ALL') };
  const dataFeed = new popart.DataFlow(100, anchors);

  const losses = [new popart.NllLoss('output', 'labels', 'loss')];
  const optimizer = new popart.ConstSGD(0.001);

  // # We need to describe the labels input shape
  const inputShapeInfo = new popart.InputShapeInfo();
  inputShapeInfo.add('labels', new popart.TensorInfo('INT32', [4]));
  const device = popart.DeviceManager().createCpuDevice();

  const session = new popart.TrainingSession(alexnet, {
    deviceInfo: device,
    dataFeed,
    losses,
    optimizer,
    inputShapeInfo,
  });

  assert.deepEqual(session.getAnchorShape('output'), [100, 4, 1000]);
  // The NllLoss's labels: kept because its gradient reads them. (A loss that is not anchored is
  // pruned once its gradient is built, so the loss tensor itself is not in the session.)
  assert.equal(session.getInfo('labels').toString(), 'INT32 [4]');
  assert.deepEqual(session.getOptimizerTensorIds(), []);             // ConstSGD: the rate is baked in
  session.dispose();
});

// ---------------------------------------------------------------- doc 001 (PopART 2.x/3.x)

test('doc 001: importing graphs', () => {
  const alexnet = seedModel('alexnet_seed');
  const output_name = 'output';

  // # Create a runtime environment
  const anchors = { [output_name]: popart.AnchorReturnType('All') };
  const dataFlow = new popart.DataFlow(100, anchors);
  const device = popart.DeviceManager().createCpuDevice();

  const session = new popart.InferenceSession(alexnet, dataFlow, device);

  assert.equal(dataFlow.art(output_name).id(), 'All');
  assert.deepEqual(session.getAnchorShape(output_name), [100, 4, 1000]);
  session.dispose();
});

test('doc 001: creating a session (builder loss)', () => {
  const alexnet = seedModel('alexnet_seed');
  const output_name = 'output';

  // # Create a runtime environment
  const anchors = { [output_name]: popart.AnchorReturnType('All') };
  const dataFlow = new popart.DataFlow(100, anchors);

  // # Append an Nll loss operation to the model
  const builder = new popart.Builder(alexnet);
  const labels = builder.addInputTensor('INT32', [4]);
  const nlll = builder.aiGraphcore.nllloss([output_name, labels]);

  const optimizer = new popart.ConstSGD(0.001);

  // # Run session on CPU
  const device = popart.DeviceManager().createCpuDevice();
  const session = new popart.TrainingSession(builder.getModelProto(), {
    deviceInfo: device,
    dataFlow,
    loss: nlll,
    optimizer,
  });
  builder.dispose();

  assert.equal(nlll, 'Nll:0');
  assert.equal(session.getInfo(labels).toString(), 'INT32 [4]');
  assert.deepEqual(session.getAnchorShape(output_name), [100, 4, 1000]);
  assert.deepEqual(session.getOptimizerTensorIds(), []);
  session.dispose();
});

test('doc 001: executing an imported graph (and PyTorch\'s output for one batch)', () => {
  const alexnet = seedModel('alexnet_seed');
  const output_name = 'output';

  // # Obtain inputs/outputs name of loaded model (onnx.load: here the Builder reads the model)
  const loaded_model = new popart.Builder(alexnet);
  const inputs_name = loaded_model.getInputTensorIds().filter((id) => !loaded_model.isInitializer(id));
  const outputs_name = loaded_model.getOutputTensorIds();
  loaded_model.dispose();
  assert.deepEqual(inputs_name, ['input.1']);
  assert.deepEqual(outputs_name, ['output']);

  // # Create a runtime environment
  const anchors = { [output_name]: popart.AnchorReturnType('All') };
  const dataFlow = new popart.DataFlow(100, anchors);
  const device = popart.DeviceManager().createCpuDevice();

  const session = new popart.InferenceSession(alexnet, dataFlow, device);

  session.prepareDevice();

  const input_1 = readF32(path.join(ZOO, 'alexnet_seed.input.bin'));  // np.random.randn(4, 3, 224, 224)

  const stepio = new popart.PyStepIO({ 'input.1': input_1 }, session.initAnchorArrays());

  assert.deepEqual(stepio.outputs[output_name].shape, [100, 4, 1000]);
  // The example stops here: its StepIO holds one batch, and a step is batchesPerStep = 100.
  expectError(() => session.run(stepio), ['Unexpected number of input elements for Tensor input.1', 'Expected 60211200']);
  session.dispose();

  const one = new popart.InferenceSession(alexnet, new popart.DataFlow(1, anchors), device);
  one.prepareDevice();
  const out = one.initAnchorArrays();
  one.run(new popart.PyStepIO({ 'input.1': input_1 }, out));
  const ref = readF32(path.join(ZOO, 'alexnet_seed.output.bin'));
  const y = out[output_name].data;
  assert.equal(y.length, ref.length);
  let worst = 0;
  for (let i = 0; i < y.length; ++i) worst = Math.max(worst, Math.abs(y[i] - ref[i]));
  assert.ok(worst <= 1e-4, `max |ours - PyTorch| = ${worst}`);
  one.dispose();
});

// ---------------------------------------------------------------- doc 002 (early PopART, no device)

test('doc 002: an InferenceSession without a device runs on the CPU', () => {
  const alexnet = seedModel('alexnet_seed');
  let session;
  const log = withLog(() => {
    // # Create a runtime environment
    const anchors = { output: popart.AnchorReturnType('ALL') };
    const dataFeed = new popart.DataFlow(100, anchors);

    session = new popart.InferenceSession(alexnet, dataFeed);
  });
  assert.equal(session.getDevice().type, 'cpu');
  assert.match(log, /InferenceSession\(model, dataFeed\) was given no deviceInfo/);
  assert.deepEqual(session.getAnchorShape('output'), [100, 4, 1000]);
  session.dispose();
});

test('doc 002: a TrainingSession without a device (keyword arguments, losses)', () => {
  const alexnet = seedModel('alexnet_seed');
  const anchors = { output: popart.AnchorReturnType('ALL') };
  const dataFeed = new popart.DataFlow(100, anchors);

  const losses = [new popart.NllLoss('output', 'labels', 'loss')];
  const optimizer = new popart.ConstSGD(0.001);

  // # We need to describe the labels input shape
  const inputShapeInfo = new popart.InputShapeInfo();
  inputShapeInfo.add('labels', new popart.TensorInfo('INT32', [4]));

  const session = new popart.TrainingSession(alexnet, {
    dataFeed,
    losses,
    optimizer,
    inputShapeInfo,
  });

  assert.equal(session.getDevice().type, 'cpu');
  assert.equal(session.getInfo('labels').toString(), 'INT32 [4]');
  session.dispose();
});

// ---------------------------------------------------------------- doc 003 (poponnx)

test('doc 003: importing graphs with poponnx\'s Session', () => {
  // in = Variable(torch.randn(10, 3, 224, 224)); torch.onnx.export(model, in, "alexnet.onnx")
  const alexnet = seedModel('alexnet_seed_out');
  let session, dataFeed;
  const log = withLog(() => {
    // # Create a runtime environment
    dataFeed = new popart.DataFlow(500, 4, ['l1LossVal'],
                                   popart.AnchorReturnType.ALL);
    const losses = [new popart.L1Loss('out', 'l1LossVal', 0.1)];
    const optimizer = new popart.ConstSGD(0.001);

    session = popart.Session(alexnet, dataFeed, losses, optimizer);
  });

  assert.deepEqual(dataFeed.anchors(), ['l1LossVal']);
  assert.equal(dataFeed.art('l1LossVal').id(), 'All');
  assert.equal(dataFeed.batchSize(), 4);
  assert.deepEqual(session.getAnchorShape('l1LossVal'), [500]);
  assert.equal(session.getInfo('input.1').toString(), 'FLOAT [10 3 224 224]');  // the batch comes from the model
  assert.equal(session.getInfo('l1LossVal').toString(), 'FLOAT []');
  assert.deepEqual(session.getOptimizerTensorIds(), []);
  assert.equal(session.getDevice().type, 'cpu');
  assert.match(log, /DataFlow\(batchesPerStep, batchSize, anchors, art\) is poponnx's form/);
  assert.match(log, /batchSize 4 \(poponnx's form\) differs from the first dimension of input 'input.1'/);
  assert.match(log, /Session\(model, dataFeed, losses, optimizer\) is poponnx's API/);
  session.dispose();
});

test('doc 003: building graphs without a third party framework', () => {
  const builder = new popart.Builder();

  // # Build a simple graph
  const i1 = builder.addInputTensor(new popart.TensorInfo('FLOAT', [1, 2, 32, 32]));
  const i2 = builder.addInputTensor(new popart.TensorInfo('FLOAT', [1, 2, 32, 32]));

  const o = builder.add(i1, i2);

  builder.addOutputTensor(o);

  const proto = builder.getModelProto();

  // # Create a runtime environment
  const dataFeed = new popart.DataFlow(500, 4, [o], popart.AnchorReturnType.ALL);

  const session = popart.Session(proto, dataFeed);

  builder.dispose();
  assert.equal(o, 'Add:0');
  assert.deepEqual(session.getAnchorShape(o), [500, 1, 2, 32, 32]);
  // "Executing graphs": infer runs the forward pass, 500 batches per step.
  session.prepareDevice();
  const n = 500 * 2 * 32 * 32;
  const a = Float32Array.from({ length: n }, (_, k) => Math.sin(k));
  const b = Float32Array.from({ length: n }, (_, k) => Math.cos(3 * k));
  const anchors = session.initAnchorArrays();
  session.infer(new popart.PyStepIO({ [i1]: a, [i2]: b }, anchors));
  const y = anchors[o].data;
  for (let k = 0; k < n; ++k) assert.equal(y[k], Math.fround(a[k] + b[k]), `element ${k}`);
  session.dispose();
});

test('doc 003: the training example, session.train(io)', () => {
  // The example's "...": an 'image' [2] times a weight w, an L1 loss 'loss' (lambda 0.1, Sum), 1000
  // batches per step (so that np.zeros([1000]) holds the 'loss' anchor), ConstSGD(0.001).
  const b = new popart.Builder();
  const image = b.addInputTensor('FLOAT', [2], 'image');
  const w = b.addInitializedInputTensor(new popart.NDArray([0.5, -0.75], [2], 'FLOAT'), 'w');
  const out = b.aiOnnxOpset9.mul([image, w]);
  b.addOutputTensor(out);
  const proto = b.getModelProto();
  b.dispose();
  const dataFeed = new popart.DataFlow(1000, 1, ['loss'], popart.AnchorReturnType.ALL);
  const losses = [new popart.L1Loss(out, 'loss', 0.1)];
  const optimizer = new popart.ConstSGD(0.001);

  const session = popart.Session(proto, dataFeed, losses, optimizer);

  session.prepareDevice();
  session.weightsFromHost();
  session.optimizerFromHost();
  const image_data = new Float32Array(2000);
  for (let t = 0; t < 1000; ++t) {
    image_data[2 * t] = 1 + (t % 3);
    image_data[2 * t + 1] = 2 - 0.25 * (t % 5);
  }

  const inputs = { image: image_data };
  const anchors = { loss: new Float32Array(1000) };   // np.zeros([1000])
  const io = new popart.PyStepIO(inputs, anchors);

  session.train(io);

  // Closed form: loss_t = 0.1 (|x0 w0| + |x1 w1|), then w -= 0.001 * 0.1 * sign(x w) * x.
  const wd = [0.5, -0.75];
  for (let t = 0; t < 1000; ++t) {
    let loss = 0;
    for (let i = 0; i < 2; ++i) loss += 0.1 * Math.abs(image_data[2 * t + i] * wd[i]);
    assert.ok(Math.abs(anchors.loss[t] - loss) <= 1e-4, `step ${t}: ${anchors.loss[t]} vs ${loss}`);
    for (let i = 0; i < 2; ++i) {
      const x = image_data[2 * t + i];
      wd[i] -= 0.001 * 0.1 * Math.sign(x * wd[i]) * x;
    }
  }
  session.dispose();
});

// ---------------------------------------------------------------- doc 004 (executing graphs)

/// The model the fragments of doc 004 talk about: inputs 'a' and 'b' [1], a weight 'w' = 2,
/// o = a * w + b.
function doc004Model() {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset9;
  const a = b.addInputTensor('FLOAT', [1], 'a');
  const bb = b.addInputTensor('FLOAT', [1], 'b');
  const w = b.addInitializedInputTensor(new popart.NDArray([2], [1], 'FLOAT'), 'w');
  const o = ai.add([ai.mul([a, w]), bb]);
  b.addOutputTensor(o);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, o };
}
function readW(session) {
  session.weightsToHost();
  const w = { w: new Float32Array(1) };
  session.readWeights(w);
  return w.w[0];
}

test('doc 004: PyStepIO, weightsFromHost / optimizerFromHost, learning rate updates', () => {
  const { proto, o } = doc004Model();
  const learningRate = [0.05, 0.02, 0.01];
  const session = new popart.TrainingSession(proto, new popart.DataFlow(1, { [o]: popart.AnchorReturnType('ALL') }),
                                             [new popart.L1Loss(o, 'l1', 1.0)], new popart.SGD(learningRate[0]),
                                             popart.DeviceManager().createCpuDevice());
  session.prepareDevice();

  // # Create buffers to receive results from the execution
  const anchors = session.initAnchorArrays();

  // # Generate some random input data
  const data_a = new Float32Array([0.75]);
  const data_b = new Float32Array([0.25]);

  const stepio = new popart.PyStepIO({ a: data_a, b: data_b }, anchors);

  session.weightsFromHost();
  session.optimizerFromHost();

  // SGD(lr): the learning rate is not constant, so it is a tensor the host writes.
  assert.ok(session.getOptimizerTensorIds().some((id) => id.startsWith('scaledLearningRate0')),
            session.getOptimizerTensorIds().join());
  let w = 2;
  for (let step = 0; step < learningRate.length; ++step) {
    // # Update learning rate parameter between training steps
    const stepLr = learningRate[step];
    session.updateOptimizer(new popart.SGD(stepLr));
    session.optimizerFromHost();

    session.run(stepio);
    assert.ok(Math.abs(anchors[o].data[0] - (0.75 * w + 0.25)) < 1e-6, `step ${step}: o = ${anchors[o].data[0]}`);
    w -= stepLr * 0.75;  // d|a w + b| / dw = a (the output stays positive)
    assert.ok(Math.abs(readW(session) - w) < 1e-6, `step ${step}: w = ${readW(session)}, expected ${w}`);
  }
  session.dispose();
});

test('doc 004: DataFlow, devices and an InferenceSession with keyword arguments', () => {
  const { proto, o } = doc004Model();
  const onnxPb = path.join(TMP, 'seeds_onnx.pb');
  fs.writeFileSync(onnxPb, proto);

  let df = new popart.DataFlow(1, { [o]: popart.AnchorReturnType('ALL') });
  assert.equal(df.art(o).id(), 'All');

  df = new popart.DataFlow(1, { [o]: popart.AnchorReturnType('ALL') });
  const device = popart.DeviceManager().createCpuDevice();
  const s = new popart.InferenceSession(onnxPb, { deviceInfo: device, dataFeed: df });

  // # Acquire a two-IPU pair; # Acquire IPU configuration 5: no IPUs in this build.
  expectError(() => popart.DeviceManager().acquireAvailableDevice(2), ['createCpuDevice()']);
  expectError(() => popart.DeviceManager().acquireDeviceById(5), ['createCpuDevice()']);

  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  const stepio = new popart.PyStepIO({ a: [3], b: [-1] }, anchors);
  s.run(stepio);
  assert.equal(anchors[o].data[0], 5);  // 3 * 2 - 1
  s.dispose();

  // The return types of the list: EVERYN(N) and FINAL.
  const every = new popart.InferenceSession(onnxPb, new popart.DataFlow(4, { [o]: popart.AnchorReturnType('EVERYN', 2) }), device);
  assert.deepEqual(every.getAnchorShape(o), [2, 1]);
  every.dispose();
  const last = new popart.InferenceSession(onnxPb, new popart.DataFlow(4, { [o]: popart.AnchorReturnType('FINAL') }), device);
  assert.deepEqual(last.getAnchorShape(o), [1]);
  last.dispose();
});

test('doc 004: saving and loading a model', () => {
  const { proto, o } = doc004Model();
  const testOnnx = path.join(TMP, 'seeds_test.onnx');
  const trained = path.join(TMP, 'seeds_trained_model.onnx');
  fs.writeFileSync(testOnnx, proto);  // "a file of saved parameters, from an earlier session"
  const session = new popart.TrainingSession(proto, new popart.DataFlow(1, { [o]: popart.AnchorReturnType('ALL') }),
                                             [new popart.L1Loss(o, 'l1', 1.0)], new popart.ConstSGD(0.5),
                                             popart.DeviceManager().createCpuDevice());
  session.prepareDevice();
  session.weightsFromHost();
  const stepio = new popart.PyStepIO({ a: [1], b: [0] }, session.initAnchorArrays());
  session.run(stepio);  // w = 2 - 0.5

  session.modelToHost(trained);

  const reloaded = new popart.InferenceSession(trained, new popart.DataFlow(1, [o]), popart.DeviceManager().createCpuDevice());
  reloaded.prepareDevice();
  const a2 = reloaded.initAnchorArrays();
  reloaded.run(new popart.PyStepIO({ a: [1], b: [0] }, a2));
  assert.equal(a2[o].data[0], 1.5);
  reloaded.dispose();

  session.resetHostWeights(testOnnx);
  session.weightsFromHost();
  assert.equal(readW(session), 2);
  session.dispose();
});

test('doc 004: turning on execution tracing', () => {
  const before = popart.getLogger().getLevel();
  popart.getLogger().setLevel('TRACE');
  assert.equal(popart.getLogger().getLevel(), 'TRACE');
  assert.equal(popart.getLogger('session').getLevel(), 'TRACE');
  popart.getLogger().setLevel(before);
});
