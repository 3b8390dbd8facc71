// The runtime's Web Worker: owns the wasm module, the model, the inference session and the
// training loop, so the UI thread never waits for the core. Protocol (see web/src/rpc.js):
//   in:  {id, op, args}            out: {id, kind: 'progress', data} (any number)
//                                       {id, kind: 'result', value} | {id, kind: 'error', error}
//   in:  {cancel: id}              marks request `id` cancelled (checked between steps)
//                                  out: {kind: 'log', line, level, module} (the core's log lines,
//                                       at the level of 'setLogLevel')
// The training loop runs as one long request ('train') that yields between steps, so 'trainControl'
// messages (pause / resume / step / stop / learning rate) arrive while it runs. After every step it
// reads the weights (their histograms) and classifies the held-out validation split with them.
import { createPopart, MAX_THREADS } from './pkg/index.mjs';
import { buildDigitsCnn, buildChain, appendLoss, sampleNll } from './models.js';
import { randomInputs, xorshift32, weightHistogram } from './tensors.js';

let popart = null;
let threads = 1;
let model = null;       // {bytes: Uint8Array, name, description}
let infer = null;       // {session, key, inputs, anchors}
let trainer = null;     // the training state (see train())
let logLevel = 'WARN';  // the core's log level (the Log panel's); lines go to the page
const cancelled = new Set();

const ops = {};

function post(id, kind, payload, transfer = []) {
  self.postMessage({ id, kind, ...payload }, transfer);
}

function errorPayload(e) {
  const err = { name: e?.name ?? 'Error', message: String(e?.message ?? e) };
  if (e?.summaryReport) err.summaryReport = e.summaryReport;
  if (e?.profilePath) err.profilePath = e.profilePath;
  if (e?.graphReport) {  // an OutOfMemoryException: the graph report of what did not fit
    try { err.graph = JSON.parse(e.graphReport); } catch { /* kept without */ }
  }
  return err;
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.cancel !== undefined) {
    cancelled.add(msg.cancel);
    return;
  }
  const { id, op, args } = msg;
  const fn = ops[op];
  if (!fn) {
    post(id, 'error', { error: { name: 'Error', message: `runtime worker: unknown request '${op}'` } });
    return;
  }
  try {
    const out = await fn(args ?? {}, (data) => post(id, 'progress', { data }), () => cancelled.has(id));
    const { value, transfer } = out && out.__transfer ? out : { value: out, transfer: [] };
    post(id, 'result', { value }, transfer);
  } catch (e) {
    post(id, 'error', { error: errorPayload(e) });
  } finally {
    cancelled.delete(id);
  }
};

const withTransfer = (value, transfer) => ({ __transfer: true, value, transfer });
const yieldToEvents = () => new Promise((r) => setTimeout(r, 0));

// ------------------------------------------------------------------ start-up

ops.init = async ({ threads: wanted }) => {
  const t0 = performance.now();
  const isolated = self.crossOriginIsolated === true;
  const hc = self.navigator?.hardwareConcurrency ?? 1;
  threads = isolated ? Math.max(1, Math.min(wanted ?? hc, MAX_THREADS)) : 1;
  popart = await createPopart({ threads });
  popart.setLogDestination((line, level, module) => self.postMessage({ kind: 'log', line, level, module }));
  popart.getLogger().setLevel(logLevel);
  return {
    threads, isolated, maxThreads: isolated ? MAX_THREADS : 1, hardwareConcurrency: hc,
    startMs: performance.now() - t0,
    optimizerParams: popart.optimizerParams(),
    enumValues: popart.enumValues,
    memoryCategories: popart.memoryCategories,
    deviceTargets: popart.ipuTargets ? popart.ipuTargets() : null,
    deviceOptions: popart.deviceOptions ? popart.deviceOptions() : null,
  };
};

/// The core's log level, every module (kept for a runtime that is still starting).
ops.setLogLevel = ({ level }) => {
  logLevel = String(level);
  popart?.getLogger().setLevel(logLevel);
  return logLevel;
};

ops.setThreads = ({ threads: n }) => {
  popart.setNumThreads(n);
  threads = n;
  return popart.getNumThreads();
};

// ------------------------------------------------------------------ models

function describe(bytes, inputShapes) {
  return popart.describeModel(bytes, inputShapes ? { inputShapes } : {});
}

function setModel(bytes, name, extra = {}) {
  disposeInference();
  disposeTrainer();
  const t0 = performance.now();
  const description = describe(bytes);
  model = { bytes, name, description, ...extra };
  return { name, bytes: bytes.length, description, describeMs: performance.now() - t0, ...extra };
}

ops.openModel = ({ bytes, name }) => {
  const u8 = new Uint8Array(bytes);
  if (u8.length === 0) throw new Error(`'${name}' is empty (0 bytes): not an ONNX model`);
  return setModel(u8, name);
};

ops.buildExample = ({ kind, n }) => {
  if (kind === 'digits-cnn') {
    const built = buildDigitsCnn(popart);
    return setModel(built.bytes, 'digits CNN (built with the Builder)', { example: built.meta });
  }
  if (kind === 'chain') {
    const built = buildChain(popart, n ?? 2000);
    return setModel(built.bytes, `generated ${built.meta.nodes}-node graph`, { example: built.meta });
  }
  throw new Error(`unknown example '${kind}'`);
};

/// The value of an initializer or a Constant's output anywhere in the open model (bodies
/// included), as the file holds it: {name, dtype, shape, data} (data a TypedArray of the dtype,
/// FLOAT16 / BFLOAT16 as their raw 16-bit patterns in a Uint16Array; STRING a string[]),
/// transferred.
ops.tensorValue = ({ name }) => {
  if (!model) throw new Error('open a model first');
  const v = popart.tensorValue(model.bytes, name);
  const data = v.data.slice();  // its own buffer (the package's may view the wasm heap), to transfer
  const value = { name: v.name ?? name, dtype: v.dtype, shape: Array.from(v.shape, Number), data };
  return ArrayBuffer.isView(data) ? withTransfer(value, [data.buffer]) : value;
};

ops.modelBytes = () => {
  if (!model) throw new Error('no model is open');
  const copy = model.bytes.slice();
  return withTransfer({ name: model.name, bytes: copy.buffer }, [copy.buffer]);
};

// ------------------------------------------------------------------ devices and sessions

function makeDevice(spec) {
  const dm = popart.DeviceManager();
  if (!spec || spec.type === 'cpu') return dm.createCpuDevice();
  const options = { ...(spec.options ?? {}) };
  if (spec.type === 'ipuModel') return dm.createIpuModelDevice(options);
  if (spec.type === 'offlineIpu') return dm.createOfflineIPUDevice(options);
  throw new Error(`unknown device type '${spec.type}'`);
}

/// The replicas of a device spec (main.js app.device()): 1 for the CPU or none given.
function replicasOf(spec) {
  return spec?.type === 'cpu' ? 1 : Math.max(1, Number(spec?.replicas ?? 1));
}

/// The session options for a device spec: profiling; the model split over the IPUs of a replica
/// (virtualGraphMode Auto) when a replica has more than one; replication (replicatedGraphCount R:
/// the device has R x IPUs per replica IPUs). A training session with replicas averages the
/// gradients over them (accumulationAndReplicationReductionType Mean), so R replicas of batch B
/// take the step one replica takes on the R x B samples with the same mean loss.
function sessionOptions(spec, { training = false } = {}) {
  const o = new popart.SessionOptions();
  // Profiling: the IPU model always profiles; on the CPU device debug.instrument adds the host
  // time per op to the summary report.
  o.engineOptions = { ...(o.engineOptions ?? {}), 'debug.instrument': 'true' };
  const replicas = replicasOf(spec);
  if (spec?.type !== 'cpu' && (spec?.options?.numIPUs ?? 1) / replicas > 1) o.virtualGraphMode = 'Auto';
  if (replicas > 1) {
    o.enableReplicatedGraphs = true;
    o.replicatedGraphCount = replicas;
    if (training) o.accumulationAndReplicationReductionType = popart.ReductionType.Mean;
  }
  if (spec?.allowOutOfMemory === false) o.engineOptions['debug.allowOutOfMemory'] = 'false';
  return o;
}

function disposeInference() {
  if (infer) {
    try { infer.session.dispose(); } catch { /* already gone */ }
    infer = null;
  }
}

function tensorInfoOf(name) {
  const t = model.description.tensors.find((x) => x.name === name);
  if (!t) throw new Error(`the model has no tensor '${name}'`);
  return t;
}

/// The page's shapes for inputs whose dims are not numbers, {name: [dims]} (or {name: {dtype,
/// shape}}), as describeModel's inputShapes ({name: {dtype, shape}}; dtypes from the model).
function shapeSpecs(shapes) {
  if (!shapes) return undefined;
  const out = {};
  for (const [name, s] of Object.entries(shapes)) {
    out[name] = Array.isArray(s) ? { dtype: tensorInfoOf(name).dtype, shape: s } : s;
  }
  return Object.keys(out).length ? out : undefined;
}

function inputShapeInfo(shapes) {
  const specs = shapeSpecs(shapes);
  if (!specs) return undefined;
  const isi = new popart.InputShapeInfo();
  for (const [name, s] of Object.entries(specs)) isi.add(name, new popart.TensorInfo(s.dtype, s.shape));
  return isi;
}

/// The open model described with the given input shapes (the graph's shapes follow them).
ops.describeShapes = ({ shapes }) => {
  if (!model) throw new Error('open a model first');
  const t0 = performance.now();
  const description = describe(model.bytes, shapeSpecs(shapes));
  return { description, describeMs: performance.now() - t0 };
};

/// Builds the step's input arrays: random / zeros / ones, or data the page sent (a .npy or an
/// image). A step is [batchesPerStep, replicas] micro-batches (PopART's layout, size-1 dims
/// dropped): random values differ over all of them; data is one sample, one micro-batch, one
/// micro-batch per replica or the whole step, repeated to fill it.
function stepInputs(specs, bps, infos, replicas = 1) {
  const inputs = {};
  for (const name of model.description.inputs) {
    const info = infos[name];
    const spec = specs?.[name] ?? { mode: 'random' };
    const n = info.elements * bps * replicas;
    if (spec.mode === 'data') {
      const arr = spec.data;
      const sample = info.shape.length > 0 && info.shape[0] > 0 ? info.elements / info.shape[0] : info.elements;
      const fits = [sample, info.elements, info.elements * replicas, n];
      if (!fits.includes(arr.length)) {
        const per = replicas > 1 ? `, ${info.elements * replicas} (one micro-batch per replica, ${replicas} replicas)` : '';
        throw new Error(`input '${name}': the data has ${arr.length} values; ${info.dtype} ${JSON.stringify(info.shape)} ` +
                        `needs ${sample} (one sample), ${info.elements} (one micro-batch)${per} or ${n} ` +
                        `(batchesPerStep = ${bps}${replicas > 1 ? ` × ${replicas} replicas` : ''})`);
      }
      if (arr.length === n) inputs[name] = arr;
      else {
        const rep = new arr.constructor(n);
        for (let k = 0; k < n / arr.length; ++k) rep.set(arr, k * arr.length);
        inputs[name] = rep;
      }
    } else {
      inputs[name] = randomInputs(info.dtype, n, spec.mode, 1234);
    }
  }
  return inputs;
}

ops.run = async ({ device, bps = 1, anchors, inputs: inputSpecs, repeats = 5, inputShapes }, progress, isCancelled) => {
  if (!model) throw new Error('open a model first');
  disposeInference();
  const t0 = performance.now();
  const art = {};
  for (const a of anchors ?? model.description.outputs.map((name) => ({ name, art: 'All' }))) {
    art[a.name] = a.art === 'EveryN' ? popart.AnchorReturnType('EveryN', a.period ?? 1) : popart.AnchorReturnType(a.art);
  }
  progress({ stage: 'prepare', message: 'Preparing the session…' });
  // After training, Run uses the trained weights: the training session's model for inference
  // (exportInferenceModel: the user's outputs, no loss, labels or optimizer state).
  const weights = trainer ? { source: 'trained', step: trainer.step } : { source: 'model' };
  const session = new popart.InferenceSession({
    fnModel: trainer ? trainer.session.exportInferenceModel() : model.bytes,
    dataFlow: new popart.DataFlow(bps, art),
    deviceInfo: makeDevice(device),
    userOptions: sessionOptions(device),
    inputShapeInfo: inputShapeInfo(inputShapes),
  });
  infer = { session, device };
  const replicas = replicasOf(device);
  session.prepareDevice();  // out of memory on an IPU: errorPayload sends the reports along
  const prepareMs = performance.now() - t0;
  const infos = {};
  for (const name of model.description.inputs) {
    const ti = session.getInfo(name);
    infos[name] = { dtype: ti.dtype, shape: ti.shape(), elements: ti.nelms() };
  }
  const inputs = stepInputs(inputSpecs, bps, infos, replicas);
  const anchorsOut = session.initAnchorArrays();
  const stepio = new popart.PyStepIO(inputs, anchorsOut);
  if (device?.type === 'offlineIpu') {
    return { prepareMs, offline: true, outputs: [], latency: null, weights, replicas, ipu: ipuFigures(session) };
  }
  const times = [];
  for (let i = 0; i < Math.max(1, repeats); ++i) {
    if (isCancelled()) throw Object.assign(new Error('run cancelled'), { name: 'AbortError' });
    const s = performance.now();
    session.run(stepio);
    times.push(performance.now() - s);
    progress({ stage: 'run', message: `Run ${i + 1} of ${repeats}`, done: i + 1, total: repeats });
    await yieldToEvents();
  }
  const sorted = [...times].sort((a, b) => a - b);
  const outputs = [];
  const transfer = [];
  for (const [name, arr] of Object.entries(anchorsOut)) {
    const data = arr.data.slice();
    // With replicas the anchor is [returned batches?, replicas, ...the tensor's shape]: the
    // replica axis is the one before the tensor's own dims.
    const replicaAxis = replicas > 1 ? arr.shape.length - session.getInfo(name).shape().length - 1 : -1;
    outputs.push({ name, dtype: arr.dtype, shape: arr.shape, data, replicaAxis });
    transfer.push(data.buffer);
  }
  return withTransfer({
    ipu: device && device.type !== 'cpu' ? ipuFigures(session) : null,
    prepareMs, weights, replicas, latency: { medianMs: sorted[Math.floor(sorted.length / 2)], minMs: sorted[0], runs: times.length, bps },
    outputs, heapInUse: popart.heapInUse(),
    memory: session.getMemoryStats(), threads: popart.getNumThreads(),
  }, transfer);
};

/// An IPU device's headline figures from the session's report document: the modelled time of
/// the last step and whether the graph fits its tiles.
function ipuFigures(session) {
  try {
    const r = session.getReport();
    const runs = r.execution?.runs ?? [];
    const last = runs[runs.length - 1];
    const mem = r.compilation?.memory ?? {};
    const t = r.compilation?.target ?? {};
    const replicas = t.replicas ?? 1;
    return { seconds: last?.seconds ?? null, cycles: last?.cycles ?? null, architecture: t.architecture, tiles: t.numTiles,
             tilesPerIPU: t.tilesPerIPU, numIPUs: t.numIPUs, replicas, ipusPerReplica: (t.numIPUs ?? 1) / replicas,
             replicaAllReduce: r.compilation?.cycles?.replicaAllReduce ?? 0,
             bytesPerTile: t.bytesPerTile, outOfMemoryTiles: (mem.outOfMemoryTiles ?? []).length, maxTileBytes: mem.maxTileBytes };
  } catch {
    return null;
  }
}

/// The reports of the last session that ran (inference or training).
ops.report = () => {
  const s = trainer?.session ?? infer?.session;
  if (!s) throw new Error('run or train a model first: the reports describe a prepared session');
  const out = { summary: null, graph: null, execution: null };
  out.summary = s.getSummaryReport(false);
  try { out.graph = JSON.parse(s.getGraphReport()); } catch (e) { out.graphError = e.message; }
  try { out.execution = JSON.parse(s.getExecutionReport(false, false)); } catch (e) { out.executionError = e.message; }
  return out;
};

// ------------------------------------------------------------------ training

function disposeTrainer() {
  if (trainer) {
    try { trainer.session.dispose(); } catch { /* already gone */ }
    try { trainer.evaluator?.session.dispose(); } catch { /* already gone */ }
    trainer = null;
  }
}

/// {type: 'SGD' | 'Adam' | 'Adaptive', params: {key: value} (keys of the core's optimizerParams
/// table), mode} -> the optimizer. Every value is non-const, so updateOptimizerFromHost can change it.
function optimizerFrom(spec) {
  const params = {};
  for (const [k, v] of Object.entries(spec.params ?? {})) params[k] = [Number(v), false];
  if (spec.type === 'SGD') return new popart.SGD(params);
  if (spec.type === 'Adam') return new popart.Adam(params, spec.mode ?? 'Adam');
  if (spec.type === 'Adaptive') return new popart.Adaptive(params, spec.mode ?? 'RMSProp');
  throw new Error(`unknown optimizer '${spec.type}' (SGD, Adam or Adaptive)`);
}

/// Sets up a TrainingSession for the open model: appends the loss if asked, prepares, uploads the
/// weights. `data` = {x: Float32Array [n, features], y: Int32Array|Float32Array [n], n}. With R
/// replicas (the device's) each micro-batch is R x batchSize samples, each replica taking its own
/// batchSize of them.
function setupTraining({ loss, optimizer, batchSize, device, data: all, inputShapes, validation = 0 }) {
  disposeTrainer();
  disposeInference();
  const replicas = replicasOf(device);
  // Inputs whose dims are not numbers take the page's shapes, the first input's batch the batch size.
  let shapes = null;
  let shaped = model;
  if (inputShapes && Object.keys(inputShapes).length) {
    shapes = { ...inputShapes };
    const first = model.description.inputs[0];
    const open = tensorInfoOf(first).shape;
    if (shapes[first] && Array.isArray(open) && typeof open[0] !== 'number') shapes[first] = [batchSize, ...shapes[first].slice(1)];
    shaped = { ...model, description: describe(model.bytes, shapeSpecs(shapes)) };
  }
  // The held-out validation split first (a seeded shuffle, so the same samples every time).
  const { train: data, validation: held } = splitData(all, validation);
  const perStep = batchSize * replicas;  // samples per micro-batch over the replicas
  if (data.n < perStep) {
    throw new Error(`the training split has ${data.n} samples, fewer than ${replicas > 1 ? `${replicas} replicas × ` : ''}` +
                    `the batch size ${batchSize}${replicas > 1 ? ` = ${perStep}` : ''}` +
                    `${held ? ` (${held.n} held out for validation)` : ''}`);
  }
  const prepared = appendLoss(popart, shaped, loss, batchSize, data);
  if (shapes) prepared.inputShapes = { ...shapeSpecs(shapes), ...(prepared.inputShapes ?? {}) };
  const bps = Math.max(1, Math.floor(data.n / perStep));
  const art = { [prepared.loss]: popart.AnchorReturnType('All') };
  if (prepared.probs) art[prepared.probs] = popart.AnchorReturnType('All');
  const t0 = performance.now();
  const session = new popart.TrainingSession({
    fnModel: prepared.bytes,
    dataFlow: new popart.DataFlow(bps, art),
    loss: prepared.loss,
    optimizer: optimizerFrom(optimizer),
    deviceInfo: makeDevice(device),
    userOptions: sessionOptions(device, { training: true }),
    inputShapeInfo: inputShapeInfo(prepared.inputShapes),
  });
  session.prepareDevice();
  session.weightsFromHost();
  const anchors = session.initAnchorArrays();
  const t = { session, prepared, bps, anchors, optimizer, prepareMs: 0, step: 0, samples: 0, data, batchSize, replicas, held };
  try {
    Object.assign(t, watchWeights(session, prepared, held, shapes));
  } catch (e) {
    // Training goes on without the histograms and the validation, and says why.
    Object.assign(t, { weights: {}, weightShapes: {}, evaluator: null, validationNote: `the weights could not be read (${e.message})` });
  }
  t.prepareMs = performance.now() - t0;
  return t;
}

/// {x, y, n, features} -> {train, validation}: `fraction` of the samples (rounded; none for 0)
/// held out, picked by a seeded shuffle.
function splitData(data, fraction) {
  const held = Math.min(data.n - 1, Math.round(data.n * Math.max(0, Math.min(fraction, 0.9))));
  if (held <= 0) return { train: data, validation: null };
  const order = shuffled(data.n, 20261124);
  const per = data.features;
  const lw = data.y.length / data.n;
  const take = (from, to) => {
    const n = to - from;
    const x = new Float32Array(n * per);
    const y = new data.y.constructor(n * lw);
    for (let i = 0; i < n; ++i) {
      const k = order[from + i];
      x.set(data.x.subarray(k * per, (k + 1) * per), i * per);
      for (let j = 0; j < lw; ++j) y[i * lw + j] = data.y[k * lw + j];
    }
    return { x, y, n, features: per };
  };
  return { validation: take(0, held), train: take(held, data.n) };
}

/// What the training shows besides its loss: the weights (read each step for their histograms)
/// and, with a validation split and class probabilities, an inference session on the model
/// exported for inference (constantWeights off) that takes the training session's weights each
/// step and classifies the held-out samples. On the CPU device whatever device trains: the
/// numbers are the same, and the IPU's reports stay those of the training session.
function watchWeights(session, prepared, held, shapes) {
  const inference = session.exportInferenceModel();
  const d = describe(inference, shapes ? shapeSpecs(Object.fromEntries(Object.entries(shapes).filter(([k]) => k !== prepared.label))) : undefined);
  const weights = {};
  for (const t of d.tensors) {
    if (t.kind === 'initializer' && t.dtype === 'FLOAT' && session.hasInfo(t.name)) {
      weights[t.name] = new Float32Array(session.getInfo(t.name).nelms());
    }
  }
  const shapesOf = Object.fromEntries(d.tensors.filter((t) => weights[t.name]).map((t) => [t.name, t.shape]));
  if (!held || !prepared.probs || !prepared.classes || !d.tensors.some((x) => x.name === prepared.probs)) {
    return { weights, weightShapes: shapesOf, evaluator: null,
             validationNote: !held ? 'no validation split' : 'validation needs class probabilities (an nllloss)' };
  }
  const batch = session.getInfo(prepared.input).shape()[0];
  const bps = Math.ceil(held.n / batch);
  const o = new popart.SessionOptions();
  o.constantWeights = false;
  const specs = shapes ? Object.fromEntries(Object.entries(shapeSpecs(shapes)).filter(([k]) => d.inputs.includes(k))) : null;
  const isi = specs && Object.keys(specs).length ? new popart.InputShapeInfo() : undefined;
  for (const [name, sp] of Object.entries(specs ?? {})) isi.add(name, new popart.TensorInfo(sp.dtype, sp.shape));
  const ev = new popart.InferenceSession({
    fnModel: inference,
    dataFlow: new popart.DataFlow(bps, { [prepared.probs]: popart.AnchorReturnType('All') }),
    deviceInfo: popart.DeviceManager().createCpuDevice(),
    userOptions: o,
    inputShapeInfo: isi,
  });
  try {
    ev.prepareDevice();
  } catch (e) {
    ev.dispose();
    throw e;
  }
  // The held-out samples, padded with zeros to whole batches (the padding is not counted).
  const x = new Float32Array(bps * batch * held.features);
  x.set(held.x);
  return { weights, weightShapes: shapesOf, validationNote: '',
           evaluator: { session: ev, anchors: ev.initAnchorArrays(), inputs: { [prepared.input]: x }, batch, bps } };
}

/// The weights now (read from the training session) as histograms, and the held-out samples
/// classified with them: {weights: [{name, shape, ...weightHistogram}], validation: {count, loss,
/// accuracy, classes, confusion (row: true class, column: predicted)} | null}.
function observe(t) {
  try {
    return observeNow(t);
  } catch (e) {
    // Training goes on without them, and says why.
    try { t.evaluator?.session.dispose(); } catch { /* already gone */ }
    Object.assign(t, { weights: {}, evaluator: null, validationNote: `the weights could not be read (${e.message})` });
    return { weights: [], validation: null, validationNote: t.validationNote };
  }
}

/// The class of row i of `scores` [rows, c]: its first largest score.
function argmaxRow(scores, i, c) {
  let best = 0;
  for (let j = 1; j < c; ++j) if (scores[i * c + j] > scores[i * c + best]) best = j;
  return best;
}

function observeNow(t) {
  t.session.weightsToHost();
  t.session.readWeights(t.weights);
  const weights = Object.entries(t.weights).map(([name, v]) => ({ name, shape: t.weightShapes[name], ...weightHistogram(v) }));
  const ev = t.evaluator;
  if (!ev) return { weights, validation: null, validationNote: t.validationNote };
  ev.session.writeWeights(t.weights);
  ev.session.weightsFromHost();
  ev.session.run(new popart.PyStepIO(ev.inputs, ev.anchors));
  const probs = ev.anchors[t.prepared.probs].data;
  const c = t.prepared.classes;
  const { n, y } = t.held;
  const confusion = new Array(c * c).fill(0);
  let correct = 0, nll = 0;
  for (let i = 0; i < n; ++i) {
    const best = argmaxRow(probs, i, c);
    const label = Number(y[i]);
    if (label >= 0 && label < c) {
      ++confusion[label * c + best];
      nll += sampleNll(probs, i * c, c, label, t.prepared.scoreKind ?? 'probs');
    }
    if (best === label) ++correct;
  }
  return { weights, validation: { count: n, loss: nll / n, accuracy: correct / n, classes: c, confusion } };
}

function shuffled(n, seed) {
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; ++i) idx[i] = i;
  const next = xorshift32(seed);
  for (let i = n - 1; i > 0; --i) {
    const j = next() % (i + 1);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx;
}

/// One `run`: batchesPerStep batches of a shuffled epoch, each R x batchSize samples with R
/// replicas (the arrays are [batchesPerStep, R, batchSize, ...]: replica r of batch i takes the
/// samples i x R x batchSize + r x batchSize onwards); returns the step's figures. The loss anchor
/// holds one loss per batch and replica: `loss` is their mean, `batchLosses` each batch's mean
/// over the replicas, `replicaLosses` each replica's mean over the step.
function trainStep(t) {
  const { data, batchSize, bps, prepared, replicas } = t;
  const per = data.features;
  const count = bps * replicas * batchSize;
  const order = shuffled(data.n, 1 + t.step);
  const x = new Float32Array(count * per);
  const y = new (prepared.labelArray ?? Int32Array)(count * (prepared.labelWidth ?? 1));
  const lw = prepared.labelWidth ?? 1;
  for (let i = 0; i < count; ++i) {
    const k = order[i % data.n];
    x.set(data.x.subarray(k * per, (k + 1) * per), i * per);
    for (let j = 0; j < lw; ++j) y[i * lw + j] = data.y[k * lw + j];
  }
  const inputs = { [prepared.input]: x };
  if (prepared.label) inputs[prepared.label] = y;
  const s = performance.now();
  t.session.run(new popart.PyStepIO(inputs, t.anchors));
  const ms = performance.now() - s;
  const losses = t.anchors[prepared.loss].data;
  let lossSum = 0;
  for (const v of losses) lossSum += v;
  // [batches, replicas] in that order (PopART's anchor layout, size-1 dims dropped).
  const batches = losses.length / replicas;
  const batchLosses = [];
  const replicaLosses = new Array(replicas).fill(0);
  for (let i = 0; i < batches; ++i) {
    let sum = 0;
    for (let r = 0; r < replicas; ++r) {
      sum += losses[i * replicas + r];
      replicaLosses[r] += losses[i * replicas + r] / batches;
    }
    batchLosses.push(sum / replicas);
  }
  let accuracy = null;
  if (prepared.probs && prepared.classes) {
    const probs = t.anchors[prepared.probs].data;
    const c = prepared.classes;
    let correct = 0;
    for (let i = 0; i < count; ++i) {
      if (argmaxRow(probs, i, c) === y[i]) ++correct;
    }
    accuracy = correct / count;
  }
  t.step += 1;
  t.samples += count;
  const figures = { step: t.step, loss: lossSum / losses.length, batchLosses, replicas, replicaLosses: replicas > 1 ? replicaLosses : null,
                    accuracy, stepMs: ms, samplesPerSec: count / (ms / 1000), samples: t.samples };
  return figures;
}

let control = { pending: [], wake: null };
function nextControl() {
  return new Promise((resolve) => {
    if (control.pending.length) resolve(control.pending.shift());
    else control.wake = resolve;
  });
}
ops.trainControl = ({ action, value }) => {
  if (!trainer) throw new Error('training has not started');
  if (action === 'learningRate') {
    // updateOptimizerFromHost with the same optimizer type and the new rate.
    const spec = { ...trainer.optimizer, params: { ...trainer.optimizer.params, defaultLearningRate: value } };
    trainer.session.updateOptimizerFromHost(optimizerFrom(spec));
    trainer.optimizer = spec;
    return { learningRate: value };
  }
  const c = { action };
  if (control.wake) {
    const w = control.wake;
    control.wake = null;
    w(c);
  } else control.pending.push(c);
  return { action };
};

/// The training request: lives until 'stop'. Each step posts a progress event with its figures.
ops.train = async (args, progress, isCancelled) => {
  if (!model) throw new Error('open a model first');
  progress({ stage: 'prepare', message: 'Preparing the training session…' });
  control = { pending: [], wake: null };
  trainer = setupTraining(args);
  const t = trainer;
  // The weights as they start, and the validation split classified with them (step 0).
  progress({ stage: 'ready', prepareMs: t.prepareMs, bps: t.bps, batchSize: t.batchSize, replicas: t.replicas, loss: t.prepared.loss,
             trainCount: t.data.n, validationCount: t.held?.n ?? 0, ...observe(t) });
  let running = args.autostart !== false;
  const maxSteps = args.maxSteps ?? Infinity;
  for (;;) {
    if (isCancelled()) break;
    let c = control.pending.shift();
    if (!c && !running) c = await nextControl();
    if (c) {
      if (c.action === 'stop') break;
      if (c.action === 'pause') { running = false; progress({ stage: 'paused', step: t.step }); continue; }
      if (c.action === 'resume') { running = true; }
      if (c.action === 'step') {
        progress({ stage: 'step', ...trainStep(t), ...observe(t) });
        await yieldToEvents();
        continue;
      }
    }
    if (!running) continue;
    progress({ stage: 'step', ...trainStep(t), ...observe(t) });
    if (t.step >= maxSteps) { running = false; progress({ stage: 'paused', step: t.step, reason: 'maxSteps' }); }
    await yieldToEvents();
  }
  progress({ stage: 'stopped', step: t.step });
  return { steps: t.step, samples: t.samples };
};

/// Model bytes of the training session (`save` takes it), sent without a copy.
function trainedBytes(save) {
  const s = trainer?.session;
  if (!s) throw new Error('train the model first');
  const u8 = new Uint8Array(save(s)).slice();
  return withTransfer({ bytes: u8.buffer, name: model.name, step: trainer.step }, [u8.buffer]);
}

/// The trained model for inference (exportInferenceModel): the user's outputs and the trained
/// weights, without the loss, its labels or the optimizer state.
ops.trainedModel = () => trainedBytes((s) => s.exportInferenceModel());

/// A checkpoint to keep training from (modelToHost): the training model with its loss and the
/// optimizer state, which a TrainingSession on it resumes from.
ops.trainingCheckpoint = () => trainedBytes((s) => s.modelToHostBytes());

ops.resetTraining = () => {
  disposeTrainer();
  return true;
};


