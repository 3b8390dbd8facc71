// The Train panel: a loss (nllloss / l1loss / identityloss appended with the Builder, or a scalar
// already in the model), an optimizer with its hyper-parameters, a batch size, data (the built-in
// digits, fitted to an image input, or a .npy / .npz / CSV file) and a held-out validation split;
// Start / Pause / Step / Stop / Reset; live charts of loss and accuracy (training and validation),
// step time and samples per second (each also as a table); the validation split's confusion matrix
// and the weights' histograms (training-views.js); the learning rate changed while training
// (updateOptimizerFromHost); the trained model and a checkpoint as .onnx.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h, clear, cssVar, formatMs, formatNumber, download, wholeNumberError } from './util.js';
import { parseNpy, parseNpz, parseCsv } from './tensors.js';
import { imageLayout, fitDigits } from './images.js';
import { createConfusionMatrix, createWeightHistograms } from './training-views.js';

async function loadDigits() {
  const [meta, bin] = await Promise.all([fetch('data/digits.json').then((r) => r.json()),
                                         fetch('data/digits.bin').then((r) => r.arrayBuffer())]);
  const u8 = new Uint8Array(bin);
  const n = meta.count;
  const x = new Float32Array(n * 64);
  for (let i = 0; i < n * 64; ++i) x[i] = u8[i] / meta.maxValue;
  const y = new Int32Array(n);
  for (let i = 0; i < n; ++i) y[i] = u8[n * 64 + i];
  return { x, y, n, features: 64, name: `digits (${n} images, 8×8)` };
}

async function loadDataFile(file) {
  const buf = await file.arrayBuffer();
  if (/\.csv$/i.test(file.name)) return { ...parseCsv(new TextDecoder().decode(buf), file.name), name: file.name };
  if (/\.npz$/i.test(file.name)) {
    const arrays = await parseNpz(buf, file.name);
    const x = arrays.x ?? arrays.X ?? arrays.data ?? arrays.arr_0;
    const y = arrays.y ?? arrays.Y ?? arrays.labels ?? arrays.label ?? arrays.arr_1;
    if (!x || !y) throw new Error(`${file.name} needs arrays 'x' and 'y' (or arr_0 and arr_1); it has ${Object.keys(arrays).join(', ')}`);
    const n = x.shape[0];
    if (y.shape[0] !== n) throw new Error(`${file.name}: x has ${n} samples, y has ${y.shape[0]}`);
    return { x: Float32Array.from(x.data, Number), y: Int32Array.from(y.data, Number), n, features: x.data.length / n, name: file.name };
  }
  if (/\.npy$/i.test(file.name)) {
    // One array [n, features + 1]: the last column is the label.
    const a = parseNpy(buf, file.name);
    if (a.shape.length !== 2 || a.shape[1] < 2) throw new Error(`${file.name}: a .npy for training is [samples, features + label]; got [${a.shape}]`);
    const [n, w] = a.shape;
    const x = new Float32Array(n * (w - 1));
    const y = new Int32Array(n);
    for (let i = 0; i < n; ++i) {
      for (let j = 0; j < w - 1; ++j) x[i * (w - 1) + j] = Number(a.data[i * w + j]);
      y[i] = Number(a.data[i * w + w - 1]);
    }
    return { x, y, n, features: w - 1, name: file.name };
  }
  throw new Error(`${file.name}: training data is a .csv, .npy or .npz file`);
}

/// A live line chart (uPlot) with a table alternative. A series' value may be null (none at that x:
/// validation is once per epoch, the training loss every batch); its line spans the gaps. `push`
/// adds a point (and its table row) at once; `draw` draws what was pushed since (once a frame).
function liveChart(container, { title, testid, series, yLabel, xLabel = 'step' }) {
  // The axes' labels are drawn in the canvas; the box names them too (for screen readers and tests).
  const box = h('div.chart', { testid, role: 'img', 'aria-label': `${title} (x: ${xLabel}, y: ${yLabel}): no data yet`,
                               dataset: { xLabel, yLabel } });
  const table = h('table.data', {}, h('thead', {}, h('tr', {}, h('th.num', {}, xLabel), series.map((s) => h('th.num', {}, s.label)))), h('tbody'));
  container.append(h('h3', {}, title), box, h('details', {}, h('summary', {}, `${title} as a table`), table));
  const data = [[], ...series.map(() => [])];
  let plot = null;
  let dirty = false;
  const make = () => {
    plot?.destroy();
    const width = Math.max(240, box.clientWidth || 360);
    const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--border'), width: 1 }, ticks: { stroke: cssVar('--border') } };
    plot = new uPlot({
      width, height: 150, legend: { show: true }, cursor: { drag: { x: true, y: false } },
      scales: { x: { time: false } },
      axes: [{ ...axis, label: xLabel }, { ...axis, label: yLabel, size: 56 }],
      series: [{ label: xLabel }, ...series.map((s) => ({ label: s.label, stroke: cssVar(s.color), width: 2, spanGaps: true, dash: s.dash,
                                                           points: { show: Boolean(s.points), size: 5, fill: cssVar(s.color) } }))],
    }, data, box);
  };
  return {
    push(x, ys) {
      data[0].push(x);
      ys.forEach((v, i) => data[i + 1].push(v));
      dirty = true;
      const last = ys.map((v, i) => (v === null ? null : `${series[i].label} ${formatNumber(v)}`)).filter(Boolean).join(', ');
      box.setAttribute('aria-label', `${title} (x: ${xLabel}, y: ${yLabel}): ${data[0].length} points, latest ${last}`);
      box.dataset.points = String(data[0].length);
      table.tBodies[0].append(h('tr', {}, h('td.num', {}, x), ys.map((v) => h('td.num', {}, formatNumber(v)))));
    },
    draw() {
      if (!dirty) return;
      dirty = false;
      if (!plot) make();
      else plot.setData(data);
    },
    reset() {
      data.forEach((a) => { a.length = 0; });
      dirty = false;
      plot?.destroy();
      plot = null;
      box.dataset.points = '0';
      box.setAttribute('aria-label', `${title} (x: ${xLabel}, y: ${yLabel}): no data yet`);
      clear(table.tBodies[0]);
    },
    redraw() { if (plot) make(); },
    data,
  };
}

export function createTrainPanel(el, app) {
  const lossSel = h('select', { id: 'train-loss', 'aria-label': 'Loss' },
    new Option('nllloss (class probabilities + labels)', 'nllloss'), new Option('l1loss (λ·|x|)', 'l1loss'),
    new Option('identityloss (a scalar output)', 'identityloss'), new Option('a scalar loss in the model', 'existing'));
  const lossOut = h('select', { id: 'train-loss-output', 'aria-label': 'Tensor the loss applies to' });
  const optSel = h('select', { id: 'train-optimizer', 'aria-label': 'Optimizer' },
    new Option('SGD (with momentum)', 'SGD'), new Option('Adam', 'Adam'), new Option('Adaptive', 'Adaptive'));
  const modeSel = h('select', { id: 'train-mode', 'aria-label': 'Optimizer mode', hidden: true });
  const paramsEl = h('div.form', { dataset: { testid: 'optimizer-params' } });
  const batch = h('input', { type: 'number', id: 'train-batch', min: 1, max: 4096, value: 32, 'aria-label': 'Batch size' });
  const batchNote = h('span.muted', { testid: 'train-batch-note' });
  const dataSel = h('select', { id: 'train-data', 'aria-label': 'Training data' }, new Option('Handwritten digits (built in)', 'digits'),
    new Option('A .csv / .npy / .npz file…', 'file'));
  const dataFile = h('input', { type: 'file', accept: '.csv,.npy,.npz', hidden: true, 'aria-label': 'Training data file', dataset: { testid: 'train-data-file' } });
  const dataNote = h('span.muted');
  const validation = h('input', { type: 'number', id: 'train-validation', min: 0, max: 90, step: 1, value: 20,
                                  'aria-label': 'Validation split in %', dataset: { testid: 'validation-split' } });
  const splitNote = h('span.muted', {}, 'of the samples held out (the same ones each time), classified after every step');
  const btn = (label, testid, cls = '') => h(`button${cls}`, { type: 'button', testid }, label);
  const start = btn('Start', 'train-start', '.primary');
  const pause = btn('Pause', 'train-pause');
  const step = btn('Step', 'train-step');
  const stop = btn('Stop', 'train-stop');
  const reset = btn('Reset', 'train-reset');
  const liveLr = h('input', { type: 'number', step: 'any', min: 0, value: 0.05, 'aria-label': 'Learning rate while training', id: 'train-live-lr' });
  const applyLr = h('button', { type: 'button', testid: 'train-apply-lr' }, 'Set');
  const dl = h('button', { type: 'button', testid: 'download-model', disabled: true,
                           title: 'The model for inference: its outputs with the trained weights (no loss, labels or optimizer state)' },
               'Download trained model (.onnx)');
  const ck = h('button', { type: 'button', testid: 'download-checkpoint', disabled: true,
                           title: 'The training model with its loss and the optimizer state: open it to keep training' },
               'Download checkpoint');
  const status = h('p.muted', { 'aria-live': 'polite' }, 'Not started.');
  const acc = h('span.value', { testid: 'train-accuracy' }, '—');
  const lossNow = h('span.value', { dataset: { testid: 'train-loss-value' } }, '—');
  const lossLabel = h('span.label', {}, 'loss');
  const replicaLoss = h('span.value', { dataset: { testid: 'train-replica-losses' } }, '—');
  const replicaFigure = h('div.figure', { hidden: true }, replicaLoss, h('span.label', {}, 'loss of each replica (this step)'));
  const valAcc = h('span.value', { testid: 'validation-accuracy' }, '—');
  const valLoss = h('span.value', { dataset: { testid: 'validation-loss' } }, '—');
  const stepNow = h('span.value', {}, '0');
  const charts = h('div');
  const views = h('div');
  el.append(
    h('h2', {}, 'Train'),
    h('div.form', {},
      h('label', { for: 'train-loss' }, 'Loss'), h('div', {}, lossSel, ' ', lossOut),
      h('label', { for: 'train-optimizer' }, 'Optimizer'), h('div', {}, optSel, ' ', modeSel),
      h('label', { for: 'train-batch' }, 'Batch size'), h('div', {}, batch, ' ', batchNote),
      h('label', { for: 'train-data' }, 'Data'), h('div', {}, dataSel, ' ', dataFile, ' ', dataNote),
      h('label', { for: 'train-validation' }, 'Validation %'),
      h('div', {}, validation, ' ', splitNote)),
    h('details', {}, h('summary', {}, 'Hyper-parameters (from the core\'s optimizer table)'), paramsEl),
    h('div.button-row', { role: 'group', 'aria-label': 'Training controls' }, start, pause, step, stop, reset),
    h('div.button-row', {}, h('label.inline', { for: 'train-live-lr' }, 'Learning rate now'), liveLr, applyLr),
    status,
    h('div.figures', {},
      h('div.figure', {}, stepNow, h('span.label', {}, 'steps (epochs)')),
      h('div.figure', {}, lossNow, lossLabel),
      replicaFigure,
      h('div.figure', {}, acc, h('span.label', {}, 'training accuracy')),
      h('div.figure', {}, valLoss, h('span.label', {}, 'validation loss')),
      h('div.figure', {}, valAcc, h('span.label', {}, 'validation accuracy'))),
    charts,
    views,
    h('div.button-row', {}, dl, ck));
  const lossChart = liveChart(charts, { title: 'Loss (training: every batch; validation: every epoch)', testid: 'loss-chart',
                                        series: [{ label: 'training', color: '--chart-1' }, { label: 'validation', color: '--chart-2', points: true }],
                                        yLabel: 'loss', xLabel: 'epoch' });
  const accChart = liveChart(charts, { title: 'Accuracy', testid: 'accuracy-chart',
                                       series: [{ label: 'training %', color: '--chart-3' }, { label: 'validation %', color: '--chart-2', points: true }],
                                       yLabel: 'accuracy %', xLabel: 'step (epoch)' });
  const timeChart = liveChart(charts, { title: 'Step time', testid: 'step-time-chart', series: [{ label: 'ms', color: '--chart-5' }],
                                        yLabel: 'ms per step', xLabel: 'step (epoch)' });
  const rateChart = liveChart(charts, { title: 'Samples per second', testid: 'samples-chart', series: [{ label: 'samples/s', color: '--chart-4' }],
                                        yLabel: 'samples / s', xLabel: 'step (epoch)' });
  const allCharts = [lossChart, accChart, timeChart, rateChart];
  const confusion = createConfusionMatrix(views, (c) => app.classNames?.(c));
  const weightsView = createWeightHistograms(views);
  app.on('theme', () => { allCharts.forEach((c) => c.redraw()); weightsView.redraw(); });
  app.on('labels', () => confusion.redraw());

  // Steps can come faster than frames (a small model): their numbers are taken at once, the charts,
  // the confusion matrix and the histograms drawn once a frame, and before the training says it
  // paused or stopped.
  const stale = new Set();
  let frame = 0;
  const drawSoon = (...parts) => {
    for (const v of parts) stale.add(v);
    if (!frame) frame = requestAnimationFrame(drawNow);
  };
  function drawNow() {
    cancelAnimationFrame(frame);
    frame = 0;
    for (const v of stale) v.draw();
    stale.clear();
  }

  /// With replicas (the device's; main.js), the batch size is each replica's.
  function showReplicas() {
    const r = app.device().replicas ?? 1;
    const b = Number(batch.value);
    batchNote.dataset.replicas = String(r);
    batchNote.textContent = r > 1 ? `per replica: ${r} replicas × ${Number.isInteger(b) && b > 0 ? b : '?'} = ` +
      `${Number.isInteger(b) && b > 0 ? r * b : '?'} samples per batch, gradients averaged over the replicas` : '';
  }
  app.on('device', showReplicas);
  batch.addEventListener('input', showReplicas);

  let data = null;
  let job = null;       // the pending 'train' request
  let running = false;
  let started = false;

  function setRunning(on) {
    running = on;
    app.setBusy('train', on);
    start.textContent = started ? 'Resume' : 'Start';
    start.disabled = on;
    pause.disabled = !on;
    stop.disabled = !started;
    dl.disabled = ck.disabled = !started;
  }
  setRunning(false);

  // The hyper-parameter form comes from the core's table (popart.optimizerParams(): key, default,
  // doc per optimizer); the page only picks starting learning rates that suit the digits.
  const START = { SGD: { defaultLearningRate: 0.05, defaultMomentum: 0.9 }, Adam: { defaultLearningRate: 0.005 },
                  Adaptive: { defaultLearningRate: 0.002 } };
  const MODES = { Adam: 'AdamMode', Adaptive: 'AdaptiveMode' };
  let paramInputs = {};
  function renderParams() {
    const table = app.runtimeInfo?.optimizerParams ?? [];
    const type = optSel.value;
    clear(paramsEl);
    paramInputs = {};
    for (const p of table.filter((q) => q.optimizer === type)) {
      const id = `opt-${p.key}`;
      const value = START[type]?.[p.key] ?? Number(p.default.toPrecision(6));
      const input = h('input', { type: 'number', step: 'any', id, value, title: p.doc, dataset: { key: p.key } });
      paramInputs[p.key] = input;
      paramsEl.append(h('label', { for: id, title: p.doc }, p.key.replace(/^default/, '')), input);
    }
    const input = paramInputs.defaultLearningRate;
    if (input) {
      liveLr.value = input.value;
      input.addEventListener('change', () => { liveLr.value = input.value; });
    }
    const modes = app.runtimeInfo?.enumValues?.[MODES[type]];
    modeSel.hidden = !modes;
    clear(modeSel);
    for (const m of modes ?? []) modeSel.append(new Option(m, m));
    if (type === 'Adaptive') modeSel.value = 'RMSProp';
  }
  optSel.addEventListener('change', renderParams);
  app.on('runtime', renderParams);
  dataSel.addEventListener('change', () => {
    if (dataSel.value === 'file') dataFile.click();
    else { data = null; dataNote.textContent = ''; }
  });
  async function takeFile(f) {
    try {
      data = await loadDataFile(f);
      dataSel.value = 'file';
      dataNote.textContent = `${data.name}: ${data.n} samples × ${data.features} features`;
      app.clearError();
    } catch (e) {
      app.showError(e, 'Training data');
    }
  }
  dataFile.addEventListener('change', () => dataFile.files[0] && takeFile(dataFile.files[0]));
  app.on('data-file', (f) => { app.workTabs.select('tab-train'); takeFile(f); });

  function onModel(m) {
    stopJob();
    // Per-model settings start over: data, batch size, charts (nothing of the last model's run).
    data = null;
    dataSel.value = 'digits';
    dataFile.value = '';
    dataNote.textContent = '';
    batch.value = 32;
    validation.value = 20;
    showReplicas();
    lossSel.value = 'nllloss';
    resetFigures();
    clear(lossOut);
    const d = m.description;
    const digits = m.example?.kind === 'digits-cnn';
    for (const o of d.outputs) lossOut.append(new Option(o, o));
    lossSel.disabled = lossOut.disabled = digits;
    if (digits) {
      lossSel.value = 'nllloss';
      batch.disabled = false;
    } else {
      const inT = d.tensors.find((t) => t.name === d.inputs[0]);
      if (Array.isArray(inT?.shape) && typeof inT.shape[0] === 'number') batch.value = inT.shape[0];
      showReplicas();
    }
    // A model that holds its loss (a checkpoint: a scalar output of a loss op) trains with it,
    // from the optimizer state it carries.
    const lossOps = /^(Nll|L1|IdentityLoss|NllLoss|L1Loss|SoftmaxCrossEntropyLoss|NegativeLogLikelihoodLoss)$/;
    const held = digits ? null : d.outputs.find((o) => {
      const t = d.tensors.find((x) => x.name === o);
      const n = d.nodes.find((x) => x.outputs.includes(o));
      return Array.isArray(t?.shape) && t.shape.length === 0 && n && lossOps.test(n.opType);
    });
    const state = d.tensors.some((t) => /^(Accl\d?|Step|Accum)___/.test(t.name));
    if (held) {
      lossSel.value = 'existing';
      lossOut.value = held;
    }
    status.textContent = digits ? 'Ready: the digits CNN with nllloss on its softmax output. Press Start.'
      : held ? `Ready: the model holds its loss '${held}'${state ? ' and the optimizer state of a checkpoint: Start continues training from it' : ''}.`
        : 'Ready. Choose a loss and data, then Start.';
  }
  app.on('model', onModel);

  app.trainHistory = [];
  function resetFigures() {
    app.trainHistory.length = 0;
    allCharts.forEach((c) => c.reset());
    confusion.reset();
    weightsView.reset();
    lossLabel.textContent = 'loss';
    replicaFigure.hidden = true;
    delete replicaLoss.dataset.values;
    for (const f of [acc, lossNow, valAcc, valLoss, replicaLoss]) {
      f.textContent = '—';
      delete f.dataset.value;
    }
    stepNow.textContent = '0';
    splitNote.textContent = 'of the samples held out (the same ones each time), classified after every step';
    delete splitNote.dataset.train;
    delete splitNote.dataset.validation;
  }

  /// The figures, accuracy chart and confusion matrix of an evaluation of the validation split.
  function showValidation(p, step) {
    if (!p.validation) {
      if (p.validationNote) confusion.reset(`No validation: ${p.validationNote}.`);
      return;
    }
    const v = p.validation;
    valAcc.textContent = `${(100 * v.accuracy).toFixed(1)}%`;
    valAcc.dataset.value = String(v.accuracy);
    valLoss.textContent = formatNumber(v.loss, 4);
    valLoss.dataset.value = String(v.loss);
    confusion.update(v, step);
  }

  /// Starts the training request; false when a field or the data is wrong (nothing started).
  async function begin(autostart) {
    if (!app.model) return false;
    app.clearError();
    const bad = wholeNumberError(batch.value, 'the batch size', 4096);
    if (bad) {
      app.showError(bad, 'Training');
      return false;
    }
    const split = Number(validation.value);
    if (validation.value === '' || !Number.isInteger(split) || split < 0 || split > 90) {
      app.showError(new Error(`the validation split must be a whole number of percent from 0 to 90, got '${validation.value}'`), 'Training');
      return false;
    }
    if (!data) {
      if (dataSel.value === 'file') { app.showError(new Error('choose a data file first')); return false; }
      // The digits fitted to an image input of another size (the MLP's 784 = 28×28, a 28×28 CNN).
      const d = app.model.description;
      const inT = d.tensors.find((t) => t.name === d.inputs[0]);
      const digits = await loadDigits();
      const fitted = fitDigits(digits.x, digits.n, inT && imageLayout(inT.dtype, inT.shape));
      data = { ...digits, x: fitted.x, features: fitted.features, digits: true };
      dataNote.textContent = fitted.note ? `${digits.name}, ${fitted.note}` : digits.name;
    }
    resetFigures();
    started = true;
    setRunning(autostart);
    status.textContent = 'Preparing the training session…';
    const params = {};
    for (const [k, input] of Object.entries(paramInputs)) params[k] = Number(input.value);
    const optimizer = { type: optSel.value, params, mode: modeSel.hidden ? undefined : modeSel.value };
    const copy = { x: data.x.slice(), y: data.y.slice(), n: data.n, features: data.features };
    job = app.runtime.request('train', {
      autostart,
      loss: { kind: lossSel.value, output: lossOut.value || undefined, tensor: lossOut.value || undefined },
      optimizer, batchSize: Number(batch.value), device: app.device(), data: copy, inputShapes: app.inputShapes, validation: split / 100,
    }, { quiet: true, transfer: [copy.x.buffer, copy.y.buffer], onProgress: onProgress });
    job.then(() => finish(), (e) => {
      finish();
      if (e.name === 'AbortError') return;
      if (e.summaryReport) app.emit('oom', { error: e, context: 'Training', device: app.device() });
      else app.showError(e, 'Training');
    });
    return true;
  }

  function onProgress(p) {
    if (p.stage === 'ready') {
      const held = p.validationCount ? `, ${p.validationCount} held out for validation` : '';
      const r = p.replicas ?? 1;
      const batches = r > 1 ? `${p.bps} batches of ${r} replicas × ${p.batchSize} = ${r * p.batchSize} samples per step ` +
        '(each replica its own slice; gradients averaged over the replicas, so the step is the one batch of ' +
        `${r * p.batchSize} would take)` : `${p.bps} batches of ${p.batchSize} per step`;
      status.textContent = `Training on ${p.trainCount} samples${held}: ${batches}; prepared in ${formatMs(p.prepareMs)}.`;
      lossLabel.textContent = r > 1 ? `loss (the mean over the ${r} replicas)` : 'loss';
      replicaFigure.hidden = r <= 1;
      splitNote.textContent = `of the samples held out: training on ${p.trainCount}, validating on ${p.validationCount} ` +
        '(the same ones each time), after every step';
      splitNote.dataset.train = String(p.trainCount);
      splitNote.dataset.validation = String(p.validationCount);
      // What the Run tab's weights are now trained on (the drawing pad prepares a drawing the same way).
      app.trainedOn = { digits: Boolean(data?.digits) };
      // Step 0: the weights as they start, and the validation split classified with them.
      showValidation(p, 0);
      if (p.validation) accChart.push(0, [null, 100 * p.validation.accuracy]);
      weightsView.push(p.weights, 0);
      drawSoon(accChart, confusion, weightsView);
      app.emit('session', { kind: 'training', device: app.device() });
    } else if (p.stage === 'step') {
      app.trainHistory.push(p);
      stepNow.textContent = String(p.step);
      lossNow.textContent = formatNumber(p.loss, 4);
      lossNow.dataset.value = String(p.loss);
      if (p.replicaLosses) {
        replicaLoss.textContent = p.replicaLosses.map((l, r) => `${r}: ${formatNumber(l, 4)}`).join(' · ');
        replicaLoss.dataset.values = JSON.stringify(p.replicaLosses);
      }
      // The loss of every batch (x in epochs: batch i of step s at s - 1 + (i + 1) / n), the
      // validation loss at the epoch's end.
      const vLoss = p.validation?.loss ?? null;
      const n = p.batchLosses?.length ?? 0;
      if (n > 1) p.batchLosses.forEach((l, i) => lossChart.push(Number((p.step - 1 + (i + 1) / n).toFixed(4)), [l, i === n - 1 ? vLoss : null]));
      else lossChart.push(p.step, [p.loss, vLoss]);
      const trained = p.accuracy !== null && p.accuracy !== undefined;
      if (trained) {
        acc.textContent = `${(100 * p.accuracy).toFixed(1)}%`;
        acc.dataset.value = String(p.accuracy);
      }
      if (trained || p.validation) accChart.push(p.step, [trained ? 100 * p.accuracy : null, p.validation ? 100 * p.validation.accuracy : null]);
      showValidation(p, p.step);
      weightsView.push(p.weights, p.step);
      timeChart.push(p.step, [p.stepMs]);
      rateChart.push(p.step, [p.samplesPerSec]);
      drawSoon(...allCharts, confusion, weightsView);
      status.textContent = `Step ${p.step}: loss ${formatNumber(p.loss, 4)}${p.replicas > 1 ? ` (the mean over ${p.replicas} replicas)` : ''}, ` +
        `${formatMs(p.stepMs)} per step, ${Math.round(p.samplesPerSec)} samples/s.`;
    } else if (p.stage === 'paused') {
      drawNow();
      setRunning(false);
      status.textContent = `Paused after step ${p.step}.`;
    }
  }

  function finish() {
    drawNow();
    job = null;
    // Nothing trained (the session could not be made): the next press starts, it does not resume.
    if (app.trainHistory.length === 0) started = false;
    setRunning(false);
    status.textContent = started ? `Stopped after ${stepNow.textContent} steps.` : 'Not started.';
  }

  function control(action, value) {
    return app.runtime.request('trainControl', { action, value }, { quiet: true }).catch((e) => app.showError(e, 'Training'));
  }
  function stopJob() {
    if (job) control('stop');
    started = false;
    setRunning(false);
  }

  start.addEventListener('click', () => {
    if (!job) begin(true);
    else { setRunning(true); control('resume'); }
  });
  pause.addEventListener('click', () => { if (job) { control('pause'); setRunning(false); } });
  step.addEventListener('click', () => {
    if (!job) begin(false).then((on) => on && control('step'));
    else control('step');
  });
  stop.addEventListener('click', () => { if (job) control('stop'); });
  reset.addEventListener('click', async () => {
    if (job) await control('stop');
    await app.runtime.request('resetTraining', {}, { quiet: true });
    started = false;
    app.trainedOn = null;
    setRunning(false);
    resetFigures();
    status.textContent = 'Reset: the next Start begins from the initial weights.';
  });
  applyLr.addEventListener('click', async () => {
    if (!job) {
      if (paramInputs.defaultLearningRate) paramInputs.defaultLearningRate.value = liveLr.value;
      return;
    }
    const r = await control('learningRate', Number(liveLr.value));
    if (r) status.textContent = `Learning rate set to ${r.learningRate} (updateOptimizerFromHost).`;
  });
  const saveAs = (suffix) => `${(app.model?.name ?? 'model').replace(/\.(trained|checkpoint)?\.?onnx$/i, '').replace(/[^\w.-]+/g, '_')}.${suffix}.onnx`;
  const downloadFrom = (op, suffix) => async () => {
    try {
      const r = await app.runtime.request(op, {});
      download(saveAs(suffix), r.bytes);
    } catch (e) {
      app.showError(e, 'Download');
    }
  };
  dl.addEventListener('click', downloadFrom('trainedModel', 'trained'));
  ck.addEventListener('click', downloadFrom('trainingCheckpoint', 'checkpoint'));
  app.on('shortcut-train-toggle', () => (running ? pause.click() : start.click()));
  app.on('shortcut-cancel', () => { if (running) pause.click(); });
  return { loss: lossChart };
}
