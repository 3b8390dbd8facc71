// The older API forms of the seed documents through JS (issue 9, item 4): each works with the
// seed's meaning or is an Error naming the form and its replacement, and the module keeps working
// after every error. Integer arguments (dims, batchesPerStep, periods, attributes, options) are
// never truncated, and plain-Array inputs never become NaN. (tests/unit/seed_forms_test.cpp is the
// native side; tests/js/seeds.test.mjs runs the seeds' own examples.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, addModel, cpu } from './helpers.mjs';

const popart = await createPopart();

/// The Add model still runs: the module is usable after an error.
function stillWorks() {
  const m = addModel(popart);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ [m.a]: [1, 2, 3, 4, 5, 6], [m.b]: new Float32Array(6).fill(1) }, anchors));
  assert.deepEqual(Array.from(anchors[m.out].data), [2, 3, 4, 5, 6, 7]);
  s.dispose();
}

/// x [2] * w [2] (w0 = {0.5, -0.75}) -> out.
function linearModel() {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray([0.5, -0.75], [2], 'FLOAT'), 'w');
  const out = b.aiOnnxOpset11.mul([x, w]);
  b.addOutputTensor(out);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, out };
}
function weights(s) {
  s.weightsToHost();
  const w = { w: new Float32Array(2) };
  s.readWeights(w);
  return Array.from(w.w);
}
const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} vs ${b}`);

// ---------------------------------------------------------------- integer arguments

test('fractional, non-finite and non-numeric dims are errors naming the argument', () => {
  expectError(() => new popart.TensorInfo('FLOAT', [2.5, 3]), ['TensorInfo shape[0] must be an integer, got 2.5']);
  expectError(() => new popart.TensorInfo('FLOAT', [2, NaN]), ['TensorInfo shape[1] must be an integer, got NaN']);
  expectError(() => new popart.TensorInfo('FLOAT', [Infinity]), ['shape[0] must be an integer, got Infinity']);
  expectError(() => new popart.TensorInfo('FLOAT', ['3']), ['shape[0] must be an integer, got the string "3"']);
  expectError(() => new popart.TensorInfo('FLOAT', 3), ['TensorInfo shape must be an Array of integers, got 3']);
  assert.deepEqual(new popart.TensorInfo('FLOAT', [2n, 3n]).shape(), [2, 3]);  // BigInts are integers
  expectError(() => new popart.NDArray([1, 2, 3, 4, 5], [2.5, 2]), ['NDArray shape[0] must be a non-negative integer, got 2.5']);
  expectError(() => new popart.NDArray([1, 2], ['2']), ['NDArray shape[0] must be a non-negative integer, got the string "2"']);
  const isi = new popart.InputShapeInfo();
  expectError(() => isi.add('x', { dtype: 'FLOAT', shape: [1.5] }), ['TensorInfo shape[0] must be an integer, got 1.5']);
  const b = new popart.Builder();
  expectError(() => b.addInputTensor('FLOAT', [2, 0.5]), ['addInputTensor shape[1] must be an integer, got 0.5']);
  expectError(() => b.addInputTensor('FLOAT', 4), ['addInputTensor shape must be an Array of integers, got 4']);
  expectError(() => b.addInputTensor('FLOAT'), ["addInputTensor('FLOAT', shape): the shape is missing"]);
  const x = b.addInputTensor('FLOAT', [2, 3], 'x');
  expectError(() => b.aiOnnxOpset11.concat([x, x], 0.5), ["Concat attribute 'axis' must be an integer, got 0.5"]);
  expectError(() => b.aiOnnxOpset11.transpose([x], [1, 0.5]), ["Transpose attribute 'perm'[1] must be an integer"]);
  expectError(() => b.aiOnnxOpset11.split([x], 2.5, 1, [1, 2]), ['Split numOutputs must be an integer, got 2.5']);
  expectError(() => b.aiOnnxOpset11.split([x], undefined, 1), ['Split numOutputs must be an integer, got undefined']);
  assert.equal(b.aiOnnxOpset11.reducesum([x], [1], true), 'ReduceSum:0');  // a boolean int attribute is 0 / 1
  const y = b.aiOnnxOpset11.relu([x]);
  expectError(() => b.virtualGraph(y, 1.5), ['virtualGraph value must be an integer, got 1.5']);
  expectError(() => b.aiGraphcore.reshape([x], [3, 2.5]), ['reshape shape must be a list of integers, got floats [3, 2.5]']);
  expectError(() => b.aiGraphcore.l1loss([x]), ["aiGraphcore.l1loss: missing required attribute 'lambda'"]);
  expectError(() => b.aiGraphcore.nllloss([x, x], 'Mean', 0.5), ['nllloss ignoreIndex must be an integer, got float 0.5']);
  assert.deepEqual(b.getTensorShape(b.aiOnnxOpset11.transpose([x], [1, 0])), [3, 2]);  // still usable
  b.dispose();
  stillWorks();
});

test('batchesPerStep, batchSize, return periods and options must be integers', () => {
  expectError(() => new popart.DataFlow(2.5, ['y']), ['DataFlow batchesPerStep must be an integer, got 2.5']);
  expectError(() => new popart.DataFlow(NaN, ['y']), ['DataFlow batchesPerStep must be an integer, got NaN']);
  expectError(() => new popart.DataFlow('4', ['y']), ['DataFlow batchesPerStep must be an integer, got the string "4"']);
  expectError(() => new popart.DataFlow(4, 2.5, ['y'], popart.AnchorReturnType.ALL), ['DataFlow batchSize must be an integer, got 2.5']);
  expectError(() => popart.AnchorReturnType('EveryN', 1.5), ['AnchorReturnType return period must be an integer, got 1.5']);
  expectError(() => popart.AnchorReturnType('EveryN', '2'), ['AnchorReturnType return period must be an integer, got the string "2"']);
  assert.equal(new popart.DataFlow(4n, ['y']).batchesPerStep(), 4);
  const m = addModel(popart);
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined,
                                                { accumulationFactor: 2.5 }),
              ['SessionOptions.accumulationFactor must be an integer, got float 2.5']);
  expectError(() => new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart), undefined,
                                                { outlineThreshold: '1' }),
              ["SessionOptions.outlineThreshold must be a number (not NaN), got string '1'"]);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart));
  s.prepareDevice();
  expectError(() => s.setRandomSeed(1.5), ['setRandomSeed seed must be an integer, got 1.5']);
  expectError(() => s.setRandomSeed(-1), ['setRandomSeed seed must be an integer from 0']);
  expectError(() => s.setRandomSeed(2n ** 70n), ['setRandomSeed seed must be an integer from 0', 'got 1180591620717411303424n']);
  s.setRandomSeed(7n);
  s.dispose();
  stillWorks();
});

// ---------------------------------------------------------------- plain-Array inputs

test('non-numeric values in plain-Array inputs name the input and the index', () => {
  const m = addModel(popart);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.out]), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  const run = (a) => s.run(new popart.PyStepIO({ [m.a]: a, [m.b]: new Float32Array(6) }, anchors));
  expectError(() => run([1, 2, 'x', 4, 5, 6]), [`input '${m.a}'[2] is the string "x", not a number`]);
  expectError(() => run([1, 2, 3, undefined, 5, 6]), [`input '${m.a}'[3] is undefined (undefined), not a number`]);
  expectError(() => run([{}, 2, 3, 4, 5, 6]), [`input '${m.a}'[0] is an object, not a number`]);
  expectError(() => run([null, 2, 3, 4, 5, 6]), [`input '${m.a}'[0] is null, not a number`]);
  expectError(() => run([[1, 2, 3], [4, 5, 6]]), [`input '${m.a}'[0] is an Array, not a number`, 'nested Arrays are not flattened']);
  expectError(() => new popart.NDArray(['1', 2], [2], 'FLOAT'), ['NDArray[0] is the string "1", not a number']);
  run([1, 2, 3, 4, 5, NaN]);  // a NaN number is data, not an error
  assert.ok(Number.isNaN(anchors[m.out].data[5]));
  run([true, false, 1n, 4, 5, 6]);  // booleans and BigInts are numbers
  assert.deepEqual(Array.from(anchors[m.out].data), [1, 0, 1, 4, 5, 6]);
  s.dispose();

  // Integer tensors: a fraction or an out-of-range value is an error, not a truncation or wrap.
  const b = new popart.Builder();
  const i = b.addInputTensor('INT32', [2], 'i');
  const k = b.addInputTensor('INT8', [2], 'k');
  const l = b.addInputTensor('INT64', [2], 'l');
  const outs = [b.aiOnnxOpset11.identity([i]), b.aiOnnxOpset11.identity([k]), b.aiOnnxOpset11.identity([l])];
  for (const o of outs) b.addOutputTensor(o);
  const si = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(1, outs), cpu(popart));
  b.dispose();
  si.prepareDevice();
  const a2 = si.initAnchorArrays();
  const runI = (iv, kv, lv) => si.run(new popart.PyStepIO({ i: iv, k: kv, l: lv }, a2));
  expectError(() => runI([1, 2.5], [1, 2], [1, 2]), ["input 'i'[1] is 2.5, not an integer, but the data type is INT32"]);
  expectError(() => runI([1, 2], [1, 300], [1, 2]), ["input 'k'[1] is 300, outside the range of INT8 (-128 to 127)"]);
  expectError(() => runI([1, 2], [1, 2], [1, '5']), [`input 'l'[1] is the string "5", not a number`]);
  expectError(() => runI([1, 2], [1, 2], [1, 2 ** 64]), ["input 'l'[1]", 'outside the range of INT64']);
  runI([1, -2], [-128, 127], [2n ** 40n, -3]);
  assert.deepEqual(Array.from(a2[outs[2]].data), [2n ** 40n, -3n]);
  si.dispose();
  stillWorks();
});

// ---------------------------------------------------------------- SGD(learningRate)

test('SGD(learningRate) trains at that rate, with a learning rate updateOptimizer can change', () => {
  const { proto, out } = linearModel();
  const s = new popart.TrainingSession(proto, new popart.DataFlow(1, ['loss']), [new popart.L1Loss(out, 'loss', 1)],
                                       new popart.SGD(0.05), cpu(popart));
  s.prepareDevice();
  s.weightsFromHost();
  const io = new popart.PyStepIO({ x: [1, 2] }, s.initAnchorArrays());
  s.run(io);  // d loss / d w = sign(x w) x = {1, -2}
  let w = weights(s);
  near(w[0], 0.5 - 0.05, 'w0');
  near(w[1], -0.75 + 0.1, 'w1');
  s.updateOptimizer(new popart.SGD(0.01));
  s.optimizerFromHost();
  s.run(io);
  w = weights(s);
  near(w[0], 0.45 - 0.01, 'w0 after the update');
  near(w[1], -0.65 + 0.02, 'w1 after the update');
  s.dispose();

  // The core's table of constructors matches a call to one of PopART's overloads, or says which exist.
  expectError(() => new popart.SGD(0.05, []), ['SGD(): incompatible constructor arguments', '1. SGD(learningRate: float)',
                                                '2. SGD(values: dict = {}, clip_norm_settings', 'Invoked with: 0.05, []']);
  expectError(() => new popart.SGD(NaN), ['SGD(learningRate): the learning rate must be a finite number']);
  expectError(() => new popart.SGD(-1), ['Negative learning rate (-1) in SGD']);
  expectError(() => new popart.SGD('0.1'), ['SGD(): incompatible constructor arguments', "Invoked with: '0.1'"]);
  expectError(() => new popart.SGD([0.1]), ['SGD(): incompatible constructor arguments', 'Invoked with: [0.1]']);
  expectError(() => new popart.Adam(0.01), ['Adam(): incompatible constructor arguments', 'Invoked with: 0.01']);
  expectError(() => new popart.SGD({ defaultLearningRate: ['0.1', false] }),
              ["SGD: value 'defaultLearningRate' must be a number, [value, isConst] or {value, isConst}"]);
  expectError(() => new popart.SGD({ defaultLearningRate: [0.1, 'no'] }), ["value 'defaultLearningRate'"]);
  expectError(() => new popart.SGD({ defaultMomentum: NaN }), ["SGD: value 'defaultMomentum' must be a finite number, got NaN"]);
  expectError(() => new popart.ConstSGD(0.1).insertSpecific('w', 0.5), ['insertSpecific: expected {key: value}, got 0.5']);
  stillWorks();
});

// ---------------------------------------------------------------- DataFlow forms

test("poponnx's DataFlow(bps, batchSize, anchors, art) keeps its anchors; AnchorReturnType.ALL", () => {
  const df = new popart.DataFlow(500, 4, ['l1LossVal', 'out'], popart.AnchorReturnType.ALL);
  assert.deepEqual(df.anchors(), ['l1LossVal', 'out']);
  assert.equal(df.art('out').id(), 'All');
  assert.equal(df.batchSize(), 4);
  assert.equal(df.batchesPerStep(), 500);
  assert.equal(new popart.DataFlow(500, ['out']).batchSize(), 0);
  for (const [name, id] of [['ALL', 'All'], ['FINAL', 'Final'], ['SUM', 'Sum']]) {
    assert.equal(popart.AnchorReturnType[name].id(), id);
    assert.equal(popart.AnchorReturnType[name].id(), popart.AnchorReturnType(name).id());
  }
  const every = popart.AnchorReturnType.EVERYN(2);
  assert.equal(every.id(), 'EveryN');
  assert.equal(every.rp(), 2);
  assert.equal(new popart.DataFlow(4, 1, ['out'], every).art('out').rp(), 2);
  expectError(() => new popart.DataFlow(4, 1, ['out'], popart.AnchorReturnType.EVERYN),
              ['AnchorReturnType.EVERYN needs a return period', 'AnchorReturnType.EVERYN(n)']);
  expectError(() => new popart.DataFlow(4, { out: popart.AnchorReturnType.EVERYN }), ['AnchorReturnType.EVERYN needs a return period']);
  expectError(() => popart.AnchorReturnType.EVERYN(), ["Must specify return period with option 'EVERYN'"]);
  expectError(() => new popart.DataFlow(500, 0, ['out'], popart.AnchorReturnType.ALL),
              ['batchSize must be greater than zero, got 0']);
  expectError(() => new popart.DataFlow(500, 4, 'out', popart.AnchorReturnType.ALL),
              ["DataFlow(batchesPerStep, batchSize, anchors, art) (poponnx's form): anchors must be an Array of tensor ids"]);
  expectError(() => new popart.DataFlow(500, 4, ['out'], popart.AnchorReturnType.ALL, 1), ['DataFlow: too many arguments']);
  expectError(() => new popart.DataFlow(1, 'out'), ['DataFlow: anchors must be {id: AnchorReturnType} or an Array', 'got the string "out"']);
  expectError(() => new popart.DataFlow(1, { out: 'All' }, popart.AnchorReturnType.ALL), ['takes no third argument']);
  expectError(() => new popart.DataFlow(1, [3]), ['anchors[0] is 3, not a tensor id']);
  expectError(() => new popart.DataFlow(1, ['out'], 7), ['expected an AnchorReturnType', 'got 7']);
  expectError(() => popart.AnchorReturnType(popart.AnchorReturnType.ALL), ["AnchorReturnType: expected 'All'", 'got an object']);
  assert.equal(new popart.DataFlow(1, ['out'], 'Final').art('out').id(), 'Final');
  stillWorks();
});

test("a poponnx DataFlow in a session: the anchors are returned, batchSize is not used", () => {
  const m = addModel(popart);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(2, 7, [m.out], popart.AnchorReturnType.ALL), cpu(popart));
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  assert.deepEqual(anchors[m.out].shape, [2, 2, 3]);
  s.run(new popart.PyStepIO({ [m.a]: new Float32Array(12).fill(1), [m.b]: new Float32Array(12).fill(2) }, anchors));
  assert.deepEqual(Array.from(anchors[m.out].data), new Array(12).fill(3));
  s.dispose();
});

// ---------------------------------------------------------------- session arguments

test('dataFeed is the older keyword name of dataFlow; keyword mistakes are errors', () => {
  const m = addModel(popart);
  const df = new popart.DataFlow(1, [m.out]);
  const a = new popart.InferenceSession({ fnModel: m.proto, dataFeed: df, deviceInfo: cpu(popart) });
  assert.deepEqual(a.getAnchorShape(m.out), [2, 3]);
  a.dispose();
  const b = new popart.InferenceSession(m.proto, { dataFeed: df });  // Python's (model, dataFeed=...), CPU device
  assert.equal(b.getDevice().type, 'cpu');
  b.dispose();
  expectError(() => new popart.InferenceSession({ fnModel: m.proto, dataFlow: df, dataFeed: df }),
              ["InferenceSession: 'dataFeed' gives dataFlow a second time"]);
  expectError(() => new popart.InferenceSession({ fnModel: m.proto, dataflow: df }),
              ["InferenceSession: unknown argument 'dataflow'", 'dataFeed is accepted for dataFlow']);
  expectError(() => new popart.InferenceSession(m.proto, { fnModel: m.proto, dataFeed: df }), ["'fnModel' gives fnModel a second time"]);
  expectError(() => new popart.InferenceSession(m.proto, df, null), ['deviceInfo must come from DeviceManager() (or be left out', 'got null']);
  expectError(() => new popart.InferenceSession(m.proto, df, cpu(popart), { x: 1 }),
              ['inputShapeInfo must be an InputShapeInfo, got an object']);
  expectError(() => new popart.InferenceSession(m.proto, {}), ['dataFlow must be a DataFlow, got undefined']);

  const { proto, out } = linearModel();
  const t = new popart.TrainingSession(proto, { dataFeed: new popart.DataFlow(1, ['loss']),
                                                losses: [new popart.L1Loss(out, 'loss', 0.1)],
                                                optimizer: new popart.ConstSGD(0.1) });
  assert.equal(t.getDevice().type, 'cpu');
  t.dispose();
  expectError(() => new popart.TrainingSession(proto, { dataFeed: new popart.DataFlow(1, ['loss']), loss: 'x',
                                                        losses: [], optimizer: new popart.ConstSGD(0.1) }),
              ['give loss or losses, not both']);
  stillWorks();
});

test("poponnx's Session: train, evaluate and infer", () => {
  const { proto, out } = linearModel();
  const s = popart.Session(proto, new popart.DataFlow(2, 1, ['loss', out], popart.AnchorReturnType.ALL),
                           [new popart.L1Loss(out, 'loss', 0.1)], new popart.ConstSGD(0.5));
  assert.ok(s instanceof popart.Session);
  s.prepareDevice();
  s.weightsFromHost();
  s.optimizerFromHost();
  const x = [1, 2, 1, 2];
  s.train(new popart.PyStepIO({ x }, s.initAnchorArrays()));  // two steps: w -= 0.5 * 0.1 * {1, -2} twice
  const w = weights(s);
  near(w[0], 0.4, 'w0');
  near(w[1], -0.55, 'w1');
  for (let rep = 0; rep < 2; ++rep) {  // no updates: twice the same
    const ev = s.initAnchorArrays();
    s.evaluate(new popart.PyStepIO({ x }, ev));
    near(ev.loss.data[0], 0.1 * (0.4 + 2 * 0.55), 'evaluated loss');
    near(ev[out].data[1], 2 * -0.55, 'evaluated out');
  }
  const inf = { [out]: new Float32Array(4) };
  s.infer(new popart.PyStepIO({ x }, inf));
  near(inf[out][0], 0.4, 'inferred out');
  expectError(() => s.infer(new popart.PyStepIO({ x }, s.initAnchorArrays())),
              ["'loss' has been provided as one of the outputs"]);
  s.dispose();

  const n = new popart.Session({ fnModel: proto, dataFeed: new popart.DataFlow(1, [out]) });  // new works too
  n.prepareDevice();
  const a = n.initAnchorArrays();
  n.infer(new popart.PyStepIO({ x: [1, 2] }, a));
  assert.deepEqual(Array.from(a[out].data), [0.5, -1.5]);
  expectError(() => n.train(new popart.PyStepIO({ x: [1, 2] }, a)),
              ['Session.train', 'without losses and an optimizer', 'Session(model, dataFeed, losses, optimizer)']);
  expectError(() => n.evaluate(new popart.PyStepIO({ x: [1, 2] }, a)), ['Session.evaluate', 'no losses']);
  expectError(() => n.optimizerFromHost(), ['Session.optimizerFromHost', 'no optimizer']);
  n.infer(new popart.PyStepIO({ x: [1, 2] }, a));  // still works
  n.dispose();

  const df = new popart.DataFlow(1, ['loss']);
  const l1 = [new popart.L1Loss(out, 'loss', 0.1)];
  expectError(() => popart.Session(proto, df, new popart.ConstSGD(0.5)), ['an optimizer needs losses to minimise']);
  expectError(() => popart.Session(proto, df, 'loss'),
              ['Session: argument 3 (the string "loss") is not losses (an Array), an optimizer', 'Session(model, dataFeed[, losses[, optimizer]])']);
  expectError(() => popart.Session(proto, df, l1, l1), ['Session: argument 4 (an Array) is a second losses']);
  const e = popart.Session(proto, df, l1);
  e.prepareDevice();
  expectError(() => e.train(new popart.PyStepIO({ x: [1, 2] }, e.initAnchorArrays())), ['Session.train', 'without an optimizer']);
  expectError(() => e.infer(new popart.PyStepIO({ x: [1, 2] }, {})), ["Session.infer: none of the DataFlow's anchors ('loss')"]);
  e.dispose();
  stillWorks();
});

// ---------------------------------------------------------------- builder.add

test('builder.add(a, b) is aiOnnx.add([a, b])', () => {
  const b = new popart.Builder();
  const i1 = b.addInputTensor(new popart.TensorInfo('FLOAT', [2]));
  const i2 = b.addInputTensor(new popart.TensorInfo('FLOAT', [2]));
  assert.equal(b.add(i1, i2), 'Add:0');
  assert.equal(b.add([i1, i2]), 'Add:0/1');
  assert.deepEqual(b.getTensorShape('Add:0'), [2]);
  expectError(() => b.add(i1), ['builder.add(a, b) takes two tensor ids', 'builder.aiOnnx.add([a, b])']);
  expectError(() => b.add(i1, i2, i1), ['builder.add(a, b) takes two tensor ids']);
  expectError(() => b.add(i1, 2), ['builder.add(a, b) takes two tensor ids', 'got (the string "input", 2)']);
  b.dispose();
  stillWorks();
});

test("poponnx's Session frees its forward-only sessions: create / train / evaluate / infer / dispose cycles", () => {
  const { proto, out } = linearModel();
  const cycle = () => {
    const s = popart.Session(proto, new popart.DataFlow(1, 1, ['loss', out], popart.AnchorReturnType.ALL),
                             [new popart.L1Loss(out, 'loss', 0.1)], new popart.ConstSGD(0.5));
    s.prepareDevice();
    s.weightsFromHost();
    s.train(new popart.PyStepIO({ x: [1, 2] }, s.initAnchorArrays()));
    s.evaluate(new popart.PyStepIO({ x: [1, 2] }, s.initAnchorArrays()));
    expectError(() => s.infer(new popart.PyStepIO({ x: [1, 2] }, s.initAnchorArrays())),  // holds the loss: refused
                ["'loss' has been provided as one of the outputs"]);
    s.dispose();
  };
  for (let i = 0; i < 5; ++i) cycle();  // warm-up: one-time caches
  const baseline = popart.heapInUse();
  for (let i = 0; i < 100; ++i) cycle();
  const after = popart.heapInUse();
  assert.ok(after <= baseline, `heap grew from ${baseline} to ${after} bytes`);
});
