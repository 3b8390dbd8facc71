// The Run panel: DataFlow (batchesPerStep, anchors and their return types), inputs (random /
// zeros / ones / a .npy / an image file / a drawing, the last two previewed as the model receives
// them), then an InferenceSession in the runtime worker; outputs with statistics, top-k for class
// vectors (with class names: a labels file, or the digits' own), images for image-shaped tensors,
// .npy downloads; latency (median of repeated runs) and the module's memory.
import { h, clear, formatBytes, formatMs, formatNumber, shapeText, download, wholeNumberError } from './util.js';
import { statistics, toNpy, parseNpy } from './tensors.js';
import { hasOpenDims, parseDims, shapeLabel } from './input-shapes.js';
import { DIGIT_CLASSES, imageLayout, inkToInput, imageNetInput, grayInput } from './images.js';
import { createDrawPad, createImagePreview } from './draw-pad.js';

const ART = ['All', 'EveryN', 'Final', 'Sum'];

function outputImage(o) {
  // [N, C, H, W] with C 1 or 3 and H, W >= 4: draw the first image (min-max scaled).
  const s = o.shape;
  if (s.length !== 4 || !(s[1] === 1 || s[1] === 3) || s[2] < 4 || s[3] < 4 || !(o.data instanceof Float32Array)) return null;
  const [, c, hh, ww] = s;
  let min = Infinity, max = -Infinity;
  const n = c * hh * ww;
  for (let i = 0; i < n; ++i) { min = Math.min(min, o.data[i]); max = Math.max(max, o.data[i]); }
  const canvas = h('canvas', { width: ww, height: hh, 'aria-label': `${o.name} as an image`, role: 'img' });
  canvas.style.width = `${Math.min(256, ww * Math.max(1, Math.floor(128 / ww)))}px`;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(ww, hh);
  for (let i = 0; i < hh * ww; ++i) {
    for (let k = 0; k < 3; ++k) img.data[i * 4 + k] = (255 * (o.data[(c === 3 ? k : 0) * hh * ww + i] - min)) / (max - min || 1);
    img.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return canvas;
}

/// The k best [value, class] of a class vector ([C] or [1, C], or [N, C]: the first row; C from 2
/// to 100,000), else null.
function ranked(o, k) {
  const s = o.shape;
  const c = s[s.length - 1];
  if (!(s.length === 1 || s.length === 2) || c < 2 || c > 100000 || !(o.data instanceof Float32Array || o.data instanceof Float64Array)) return null;
  return Array.from(o.data.subarray(0, c)).map((v, i) => [v, i]).sort((a, b) => b[0] - a[0]).slice(0, k);
}

/// The replicas' parts of a replicated output (`replicaAxis` >= 0: the anchor is [returned
/// batches..., replicas, ...the tensor's shape]), else null: per replica its first returned
/// micro-batch ({name, dtype, shape, data}, a view) and all its values.
export function replicaParts(o) {
  const a = o.replicaAxis ?? -1;
  if (a < 0 || a >= o.shape.length) return null;
  const prod = (dims) => dims.reduce((x, d) => x * d, 1);
  const lead = prod(o.shape.slice(0, a));
  const count = o.shape[a];
  const inner = o.shape.slice(a + 1);
  const size = prod(inner);
  return Array.from({ length: count }, (_, r) => {
    const all = new o.data.constructor(lead * size);
    for (let l = 0; l < lead; ++l) all.set(o.data.subarray((l * count + r) * size, (l * count + r + 1) * size), l * size);
    return { replica: r, first: { name: o.name, dtype: o.dtype, shape: inner, data: o.data.subarray(r * size, (r + 1) * size) }, all };
  });
}

/// What top-k and the image of an output read: replica 0's first micro-batch of a replicated
/// output, else the output.
const firstPart = (o) => replicaParts(o)?.[0].first ?? o;

/// Top-k of a class vector ([C] or [1, C], or [N, C]: the first row; C from 2 to 100,000), each
/// class by its name when `names` has one (`#i` beside it).
function topK(o, names, k = 5, whose = '') {
  const row = ranked(o, k);
  if (!row) return null;
  const s = o.shape;
  const c = s[s.length - 1];
  const max = Math.max(...row.map((r) => Math.abs(r[0])), 1e-12);
  const name = (i) => names?.[i] ?? null;
  return h('table.data.topk', { dataset: { testid: 'topk', top: String(row[0][1]), topName: name(row[0][1]) ?? `#${row[0][1]}` } },
    h('caption', {}, `${whose}Top ${row.length} of ${c} classes${s.length === 2 && s[0] > 1 ? ' (first row)' : ''}`),
    h('tbody', {}, row.map(([v, i]) => h('tr', { dataset: { class: String(i) } },
      h('td', {}, name(i) !== null ? [h('span.class-name', {}, name(i)), ' ', h('span.muted', {}, `#${i}`)] : `#${i}`),
      h('td.num', {}, formatNumber(v, 4)),
      h('td', { style: { width: '50%' } }, h('div.bar', { style: { width: `${(100 * Math.abs(v)) / max}%` } }))))));
}

export function createRunPanel(el, app) {
  const form = h('div');
  const out = h('div', { testid: 'run-output', 'aria-live': 'polite' });
  const runBtn = h('button.primary', { type: 'button', testid: 'run-button' }, 'Run');
  const cancelBtn = h('button', { type: 'button', hidden: true, testid: 'run-cancel' }, 'Cancel');
  const bps = h('input', { type: 'number', min: 1, max: 1024, value: 1, id: 'run-bps', 'aria-label': 'batchesPerStep' });
  const repeats = h('input', { type: 'number', min: 1, max: 100, value: 5, id: 'run-repeats', 'aria-label': 'Repeated runs for the latency' });
  const threads = h('select', { id: 'run-threads', 'aria-label': 'Threads', dataset: { testid: 'threads-select' } }, new Option('1', '1'));
  const threadsNote = h('span.muted');
  const inputsEl = h('div');
  const replicasNote = h('p.muted', { testid: 'run-replicas-note', hidden: true });
  const drawEl = h('div');
  const anchorsEl = h('div');
  // Class names for top-k: a labels file (one name a line), else the digits' for the digits.
  const labelsFile = h('input', { type: 'file', id: 'run-labels', accept: '.txt,text/plain', 'aria-label': 'Class names file (one a line)',
                                  dataset: { testid: 'labels-file' } });
  const labelsNote = h('span.muted');
  const labelsClear = h('button', { type: 'button', hidden: true, title: 'Forget the labels file' }, 'Forget');
  let labels = null;  // {name, names}
  let drawResult = null;  // the drawing's classes, beside the pad
  let inputData = {};  // name -> {mode, data?}
  const droppers = new Map();  // input name -> takes a dropped .npy
  let lastOutputs = null;
  let current = null;
  let preparing = false;

  el.append(
    h('h2', {}, 'Run'),
    h('div.form', {},
      h('label', { for: 'run-bps' }, 'batchesPerStep'), bps,
      h('label', { for: 'run-repeats' }, 'Repeats (latency)'), repeats,
      h('label', { for: 'run-threads' }, 'Threads'), h('div', {}, threads, ' ', threadsNote),
      h('label', { for: 'run-labels' }, 'Class names'), h('div', {}, labelsFile, ' ', labelsClear, ' ', labelsNote)),
    h('h3', {}, 'Inputs'), replicasNote, inputsEl, drawEl,
    h('h3', {}, 'Anchors'), anchorsEl,
    h('div.button-row', {}, runBtn, cancelBtn),
    out);

  /// A drawing or a grayscale picture goes to the model as the digits were made when the weights
  /// come from the digits (the example, or training on the built-in digits) or the input is 8×8.
  const digitsWay = (layout) => app.model?.example?.kind === 'digits-cnn' || Boolean(app.trainedOn?.digits) ||
    (layout.height === 8 && layout.width === 8);

  function renderForm(model) {
    clear(inputsEl);
    clear(drawEl);
    clear(anchorsEl);
    const images = [];  // inputs that take an image: {name, layout(), preview, mode, file, note}
    inputData = {};
    droppers.clear();
    const d = model.fileDescription ?? model.description;
    const tm = new Map(d.tensors.map((t) => [t.name, t]));
    for (const name of d.inputs) {
      const t = tm.get(name);
      const fileShape = t?.shape ?? [];
      const open = hasOpenDims(fileShape);
      // The shape a run uses: the page's for an input whose dims are not numbers.
      const runShape = () => (open ? app.inputShapes[name] ?? fileShape : fileShape);
      const shape = runShape();
      // An image input ([N, 1 or 3, H, W], or a flattened square): an image file, previewed as the
      // model receives it; one channel also a drawing.
      const layoutNow = () => (t ? imageLayout(t.dtype, runShape()) : null);
      const layout = layoutNow();
      // The input the drawing pad feeds (the first one-channel image) has its preview beside the pad.
      const padded = layout?.channels === 1 && !images.some((it) => it.layout()?.channels === 1);
      const preview = layout ? createImagePreview(layout, { keep: padded }) : null;
      const mode = h('select', { 'aria-label': `Input ${name}`, dataset: { input: name } },
        new Option('random', 'random'), new Option('zeros', 'zeros'), new Option('ones', 'ones'), new Option('.npy file…', 'npy'),
        layout ? new Option('image file…', 'image') : null, padded ? new Option('drawing (below)', 'drawing') : null);
      const file = h('input', { type: 'file', hidden: true, 'aria-label': `File for input ${name}`, dataset: { inputFile: name } });
      const note = h('span.muted', {});
      inputData[name] = { mode: 'random' };
      mode.addEventListener('change', () => {
        preview?.hide();
        if (mode.value === 'drawing') {
          // The pad's drawing, once there is one (its next stroke sends it).
          file.hidden = true;
          inputData[name] = { mode: 'random' };
          note.textContent = 'draw on the pad below (random values until then)';
        } else if (mode.value === 'npy' || mode.value === 'image') {
          // The earlier file is dropped now: a chooser closed without a file leaves none in use.
          inputData[name] = { mode: 'random' };
          note.textContent = 'no file chosen: random values';
          file.value = '';
          file.accept = mode.value === 'npy' ? '.npy' : 'image/*';
          file.hidden = false;
          file.click();
        } else {
          file.hidden = true;
          inputData[name] = { mode: mode.value };
          note.textContent = '';
        }
      });
      // A refused file leaves no earlier data in use: the input goes back to random values, and the
      // menu says so.
      const backToRandom = () => {
        inputData[name] = { mode: 'random' };
        mode.value = 'random';
        file.hidden = true;
        file.value = '';
        note.textContent = '';
        preview?.hide();
      };
      const take = async (f) => {
        try {
          if (mode.value === 'npy') {
            const a = parseNpy(await f.arrayBuffer(), f.name);
            if (a.dtype !== t.dtype) throw new Error(`${f.name} holds ${a.dtype}; input '${name}' is ${t.dtype}`);
            inputData[name] = { mode: 'data', data: a.data };
            note.textContent = `${f.name}: ${a.dtype} ${shapeText(a.shape)}`;
          } else {
            const l = layoutNow();
            if (!l) throw new Error(`input '${name}' ${shapeText(runShape())} does not take an image`);
            const r = l.channels === 3 ? await imageNetInput(f, l) : await grayInput(f, l, digitsWay(l));
            inputData[name] = { mode: 'data', data: r.data };
            note.textContent = `${f.name}: ${l.channels === 3 ? 'resized and cropped' : 'resized'} to ${l.width}×${l.height} ` +
              '(the preview shows what the model receives)';
            preview.show({ view: r.view, values: r.data, note: r.note, source: 'image' });
          }
          app.clearError();
        } catch (e) {
          backToRandom();
          app.showError(e, `Input '${name}'`);
        }
      };
      file.addEventListener('change', () => {
        const f = file.files[0];
        if (f && (mode.value === 'npy' || mode.value === 'image')) take(f);
      });
      // A .npy dropped on the page while the Run tab is shown (main.js): this input takes it.
      droppers.set(name, (f) => { mode.value = 'npy'; file.hidden = false; return take(f); });
      let shapeField = null;
      if (open) {
        // One field per input whose dims are not numbers: applied on Enter or when it loses focus.
        const field = h('input.mono', { type: 'text', value: runShape().join(','), size: 18, spellcheck: false,
                                        'aria-label': `Shape of input ${name} (${shapeLabel(fileShape)})`,
                                        dataset: { testid: 'input-shape', inputName: name } });
        const problem = h('span.field-error', { role: 'alert' });
        // The shape is parsed, and a new one applied (the model described with it); the field
        // shows what is wrong until it fits.
        const apply = async () => {
          try {
            const dims = parseDims(field.value, fileShape, name);
            if (dims.join(',') !== (app.inputShapes[name] ?? []).join(',')) {
              await app.setInputShapes({ ...app.inputShapes, [name]: dims });
            }
            field.value = dims.join(',');
            field.removeAttribute('aria-invalid');
            problem.textContent = '';
          } catch (e) {
            field.setAttribute('aria-invalid', 'true');
            problem.textContent = e.message;
          }
        };
        field.addEventListener('change', apply);
        field.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { ev.preventDefault(); apply(); } });
        field._apply = apply;
        shapeField = h('div.shape-field', {}, h('span.muted', {}, `${t?.dtype} ${shapeLabel(fileShape)} as `), field, ' ', problem);
      }
      inputsEl.append(h('div.form', {}, h('label', {}, h('span.mono', {}, name), h('br'),
        h('span.muted', {}, open ? 'shape to run with:' : `${t?.dtype} ${shapeText(shape)}`)),
        h('div', {}, shapeField, mode, ' ', file, ' ', note, padded ? null : preview?.el)));
      if (layout) images.push({ name, layout: layoutNow, preview, mode, file, note });
    }
    // The drawing pad, for the first one-channel image input: every stroke's end classifies the
    // drawing (with the trained weights after training).
    const drawn = images.find((it) => it.layout()?.channels === 1);
    drawResult = null;
    if (drawn) {
      const { name, preview, mode, file, note } = drawn;
      const pad = createDrawPad({
        onInk: (ink, w, hh, version) => {
          const l = drawn.layout();
          const r = inkToInput(ink, w, hh, l, digitsWay(l));
          inputData[name] = { mode: 'data', data: r.data, drawing: version };
          mode.value = 'drawing';
          file.hidden = true;
          file.value = '';
          note.textContent = 'the drawing below';
          preview.show({ view: r.view, values: r.data, note: r.note, source: 'drawing' });
          runSoon();
        },
        onClear: () => {
          drawResult.replaceChildren();
          delete drawResult.dataset.top;
          if (inputData[name]?.drawing === undefined) return;
          inputData[name] = { mode: 'random' };
          mode.value = 'random';
          note.textContent = '';
          preview.hide();
        },
      });
      drawResult = h('p.draw-result', { testid: 'draw-result', 'aria-live': 'polite' });
      drawEl.append(h('h3', {}, 'Draw'),
        h('p.muted', {}, `Draw for input '${name}' (a digit, say): it runs when you lift the pen, with the weights the Run tab uses ` +
          '(the trained ones after training); beside it, what the model receives.'), h('div.draw-row', {}, pad.el, preview.el), drawResult);
    }
    for (const name of d.outputs) {
      const on = h('input', { type: 'checkbox', checked: true, 'aria-label': `Anchor ${name}`, dataset: { anchor: name } });
      const art = h('select', { 'aria-label': `Return type of ${name}`, dataset: { art: name } }, ART.map((a) => new Option(a, a)));
      const n = h('input', { type: 'number', min: 1, value: 1, hidden: true, 'aria-label': `N of EveryN for ${name}`, style: { width: '4em' } });
      art.addEventListener('change', () => { n.hidden = art.value !== 'EveryN'; });
      anchorsEl.append(h('div', { style: { margin: '3px 0' } }, on, ' ', h('span.mono', {}, name), ' ', art, ' ', n));
      anchorsEl.lastChild._get = () => (on.checked ? { name, art: art.value, period: Number(n.value) } : null);
    }
  }

  /// With replicas, what a step feeds them (the device's replicas; main.js).
  function showReplicas() {
    const r = app.device().replicas ?? 1;
    replicasNote.hidden = r <= 1;
    replicasNote.dataset.replicas = String(r);
    replicasNote.textContent = r <= 1 ? '' : `${r} replicas: a step feeds each replica its own micro-batch (each input is ` +
      `[batchesPerStep, ${r}, …its shape], size-1 dims dropped): random values differ per replica; a file or a drawing of one ` +
      'sample or one micro-batch goes to every replica. Each output has one result per replica.';
  }
  showReplicas();
  app.on('device', showReplicas);

  /// A replicated output's replicas side by side: the statistics of each one's values and the
  /// best class of its first row (a class vector).
  function replicaTable(o) {
    const parts = replicaParts(o);
    if (!parts) return null;
    const SHOWN = 16;
    const names = app.classNames(o.shape[o.shape.length - 1]);
    const classOf = (p) => { const best = ranked(p.first, 1); return best ? best[0][1] : null; };
    return h('table.data.replica-outputs', { dataset: { testid: 'replica-outputs', output: o.name, replicas: String(parts.length) } },
      h('caption', {}, `Each replica's result (axis ${o.replicaAxis} of ${shapeText(o.shape)}; ${shapeText(parts[0].first.shape)} ` +
        `per micro-batch)${parts.length > SHOWN ? `: the first ${SHOWN} of ${parts.length}` : ''}`),
      h('thead', {}, h('tr', {}, h('th', {}, 'replica'), ['min', 'max', 'mean', 'std'].map((k) => h('th.num', {}, k)), h('th', {}, 'top class (first row)'))),
      h('tbody', {}, parts.slice(0, SHOWN).map((p) => {
        const st = statistics(p.all);
        const top = classOf(p);
        return h('tr', { dataset: { replica: String(p.replica), mean: String(st.mean), ...(top !== null ? { top: String(top) } : {}) } },
          h('th', { scope: 'row' }, String(p.replica)), [st.min, st.max, st.mean, st.std].map((v) => h('td.num', {}, formatNumber(v))),
          h('td', {}, top === null ? '—' : names?.[top] !== undefined ? `${names[top]} (#${top})` : `#${top}`));
      })));
  }

  function renderOutputs(r) {
    clear(out);
    const dev = app.device();
    const ipu = r.ipu;
    const replicas = r.replicas ?? 1;
    if (ipu?.outOfMemoryTiles > 0) {
      // The emulation runs whatever the tiles hold; on an IPU this graph would not load.
      out.append(h('button.oom-badge', {
        type: 'button', testid: 'oom-badge',
        onclick: () => { app.workTabs.select('tab-reports'); app.emit('show-memory'); },
      }, `Out of memory: ${ipu.outOfMemoryTiles} of ${ipu.tiles} tiles need more than their ${formatBytes(ipu.bytesPerTile)} ` +
         `(the fullest ${formatBytes(ipu.maxTileBytes)}). This would not load on an IPU; the figures below assume it did. ` +
         'See the memory view →'));
    }
    out.append(h('div.figures', {},
      ipu?.seconds != null ? h('div.figure', {}, h('span.value', { dataset: { testid: 'ipu-time' } }, formatMs(ipu.seconds * 1000)),
        h('span.label', {}, `modelled IPU time per step (${ipu.architecture}, ${replicas > 1
          ? `${replicas} replicas in parallel, ${ipu.tiles / replicas} tiles each` : `${ipu.tiles} tiles`})`)) : null,
      replicas > 1 ? h('div.figure', {}, h('span.value', { dataset: { testid: 'run-replicas', replicas: String(replicas) } }, String(replicas)),
        h('span.label', {}, `replicas (data parallel${ipu ? `, ${ipu.ipusPerReplica} IPU${ipu.ipusPerReplica > 1 ? 's' : ''} each` : ''})`)) : null,
      h('div.figure', {}, h('span.value', { dataset: { testid: 'latency' } }, r.latency ? formatMs(r.latency.medianMs) : '—'),
        h('span.label', {}, ipu ? `host time emulating it, median of ${r.latency?.runs ?? 0} runs` : `median of ${r.latency?.runs ?? 0} runs`)),
      h('div.figure', {}, h('span.value', {}, formatMs(r.prepareMs)), h('span.label', {}, 'prepare')),
      h('div.figure', {}, h('span.value', { dataset: { testid: 'run-weights', source: r.weights?.source ?? 'model' } },
        r.weights?.source === 'trained' ? `trained, step ${r.weights.step}` : 'as in the model'),
      h('span.label', {}, r.weights?.source === 'trained' ? 'weights (Train tab; Reset there to go back)' : 'weights')),
      r.memory ? (() => {
        // Weights held as constants (an inference session's constantWeights) count as weights.
        const weights = r.memory.weightBytes + (r.memory.constantBytes ?? 0);
        return h('div.figure', {}, h('span.value', { dataset: { testid: 'session-memory', weightBytes: String(weights) } },
          formatBytes(weights + r.memory.activationArenaBytes)),
        h('span.label', {}, `session: weights ${formatBytes(weights)} + activations ${formatBytes(r.memory.activationArenaBytes)}`));
      })() : null,
      h('div.figure', {}, h('span.value', {}, formatBytes(r.heapInUse)), h('span.label', {}, 'wasm heap in use')),
      h('div.figure', {}, h('span.value', {}, String(r.threads ?? 1)), h('span.label', {}, 'threads')),
      h('div.figure', {}, h('span.value', {}, dev.type === 'cpu' ? 'CPU' : `${dev.options.ipuVersion} model`), h('span.label', {}, 'device'))));
    if (r.offline) out.append(h('p', {}, 'Compiled for an offline IPU: nothing runs; the Reports tab shows memory and cycles.'));
    lastOutputs = r.outputs;
    for (const o of r.outputs) {
      const s = statistics(o.data);
      const box = h('div.output', { dataset: { output: o.name } },
        h('div', {}, h('strong.mono', {}, o.name), ' ', h('span.muted', {}, `${o.dtype} ${shapeText(o.shape)}`), ' ',
          h('button', { type: 'button', onclick: () => download(`${o.name.replace(/[^\w.-]+/g, '_')}.npy`, toNpy(o.dtype, o.shape, o.data)) }, 'Download .npy')),
        h('table.data', { dataset: { stats: o.name } },
          h('thead', {}, h('tr', {}, ['min', 'max', 'mean', 'std', 'zeros', 'NaN'].map((k) => h('th.num', {}, k)))),
          h('tbody', {}, h('tr', {}, [s.min, s.max, s.mean, s.std].map((v) => h('td.num', {}, formatNumber(v))),
            h('td.num', {}, s.zeros), h('td.num', {}, s.nans)))),
        replicaTable(o),
        topK(firstPart(o), app.classNames(o.shape[o.shape.length - 1]), 5, replicaParts(o) ? 'Replica 0: ' : ''), outputImage(firstPart(o)),
        h('details', {}, h('summary', {}, 'First values'), h('pre.mono', {}, Array.from(o.data.subarray(0, 64)).map((v) => formatNumber(Number(v), 6)).join('  '))));
      out.append(box);
    }
  }

  let applying = false;
  let again = false;  // a drawing changed while a run was going: run again after it
  function runSoon() {
    if (current || applying) again = true;
    else run();
  }
  async function run() {
    if (!app.model || current || applying) return;
    app.clearError();
    delete out.dataset.drawing;
    // A shape typed but not yet applied (no Enter, focus still in the field) applies first.
    applying = true;
    try {
      for (const f of inputsEl.querySelectorAll('[data-testid="input-shape"]')) await f._apply();
    } finally {
      applying = false;
    }
    if (inputsEl.querySelector('[data-testid="input-shape"][aria-invalid="true"]')) {
      clear(out).append(h('p.field-error', {}, 'Fix the input shapes above first.'));
      return;
    }
    // Fields are checked, not coerced: a value out of range says so.
    for (const [field, what, max] of [[bps, 'batchesPerStep', 1024], [repeats, 'Repeats', 100]]) {
      const bad = wholeNumberError(field.value, what, max);
      if (bad) {
        app.showError(bad, 'Run');
        field.focus();
        return;
      }
    }
    const anchors = [...anchorsEl.children].map((c) => c._get()).filter(Boolean);
    // Which drawing this run classifies (the output says so: data-drawing).
    const drawing = Object.values(inputData).find((v) => v.drawing !== undefined)?.drawing;
    runBtn.disabled = true;
    cancelBtn.hidden = false;
    // The elapsed time beside the stage ("Run 3 of 5"), so a long first run shows it is working.
    const started = performance.now();
    let message = 'Preparing…';
    const showProgress = () => clear(out).append(h('p.muted', { dataset: { testid: 'run-progress' } },
      `${message} (${((performance.now() - started) / 1000).toFixed(1)} s)`));
    showProgress();
    const ticker = setInterval(showProgress, 500);
    current = app.runtime.request('run', {
      device: app.device(), bps: Number(bps.value), repeats: Number(repeats.value), anchors, inputs: inputData,
      inputShapes: app.inputShapes,
    }, { onProgress: (p) => { preparing = p.stage === 'prepare'; message = p.message; showProgress(); } });
    current.finally(() => clearInterval(ticker)).catch(() => {});
    preparing = true;
    try {
      const r = await current;
      app.lastRun = r;
      renderOutputs(r);
      if (drawing !== undefined) {
        out.dataset.drawing = String(drawing);
        showDrawResult(r, drawing);
      }
      app.emit('session', { kind: 'inference', device: app.device() });
    } catch (e) {
      clear(out);
      if (e.name === 'AbortError') out.append(h('p.muted', {}, 'Cancelled.'));
      else if (e.summaryReport) app.emit('oom', { error: e, context: 'Run', device: app.device() });
      else app.showError(e, 'Run');
    } finally {
      current = null;
      preparing = false;
      runBtn.disabled = false;
      cancelBtn.hidden = true;
      if (again) {
        again = false;
        run();
      }
    }
  }
  /// The drawing's best classes beside the pad (the full outputs are below the Run button).
  function showDrawResult(r, drawing) {
    if (!drawResult) return;
    // Replicated: every replica classified the drawing; replica 0's answer.
    const o = r.outputs.map(firstPart).find((x) => ranked(x, 1));
    const best = o ? ranked(o, 3) : null;
    if (!best) {
      drawResult.textContent = 'No class vector among the outputs: see them below.';
      return;
    }
    const names = app.classNames(o.shape[o.shape.length - 1]);
    const name = (i) => names?.[i] ?? `#${i}`;
    // Probabilities when the output is a distribution (a Softmax's), else the raw scores.
    const probs = best.every(([v]) => v >= 0 && v <= 1);
    const show = ([v, i]) => `${name(i)} (${probs ? `${(100 * v).toFixed(1)}%` : formatNumber(v, 3)})`;
    drawResult.dataset.drawing = String(drawing);
    drawResult.dataset.top = String(best[0][1]);
    drawResult.replaceChildren('Classified as ', h('strong.draw-class', {}, name(best[0][1])),
      ` ${probs ? `(${(100 * best[0][0]).toFixed(1)}%)` : `(score ${formatNumber(best[0][0], 3)})`}`,
      best.length > 1 ? h('span.muted', {}, `; then ${best.slice(1).map(show).join(', ')}`) : null,
      h('span.muted', {}, ` — ${r.weights?.source === 'trained' ? `trained weights, step ${r.weights.step}` : 'the model\'s weights'}`));
  }
  runBtn.addEventListener('click', run);
  // Cancel: between repeated runs the worker stops by itself; during a prepare (which the core
  // cannot interrupt) the runtime worker is restarted.
  cancelBtn.addEventListener('click', () => {
    if (!current) return;
    if (preparing) app.restartRuntime().catch((e) => app.showError(e, 'Restarting the runtime'));
    else current.cancel();
  });
  app.on('shortcut-run', run);
  // A dropped .npy on the Run tab: the input that asked for one (its menu on ".npy file…"), else the
  // first input.
  app.on('run-data-file', (f) => {
    const asking = [...inputsEl.querySelectorAll('select[data-input]')].find((s) => s.value === 'npy')?.dataset.input;
    const target = asking ?? droppers.keys().next().value;
    if (target) droppers.get(target)(f);
  });
  app.on('shortcut-cancel', () => { if (current) cancelBtn.click(); });
  app.on('runtime', (info) => {
    clear(threads);
    for (let t = 1; t <= info.maxThreads; ++t) threads.append(new Option(String(t), String(t)));
    threads.value = String(info.threads);
    threads.disabled = info.maxThreads <= 1;
    threadsNote.textContent = info.isolated ? `(pthread build; ${info.hardwareConcurrency} cores)`
                                            : 'single-threaded: the page is not cross-origin isolated';
  });
  threads.addEventListener('change', async () => {
    try {
      await app.runtime.request('setThreads', { threads: Number(threads.value) });
    } catch (e) {
      app.showError(e, 'Threads');
    }
  });
  app.on('model', (m) => {
    labels = null;
    labelsFile.value = '';
    renderForm(m);
    clear(out);
    lastOutputs = null;
    showLabels();
  });

  /// Class names of a C-class output: the labels file, else the digits' for the digits (the
  /// example, or weights trained on the built-in digits), else none (classes by number).
  app.classNames = (c) => {
    if (labels) return labels.names;
    if (c === 10 && (app.model?.example?.kind === 'digits-cnn' || app.trainedOn?.digits)) return DIGIT_CLASSES;
    return null;
  };
  function outputClasses() {
    const d = app.model?.description;
    const t = d?.tensors.find((x) => d.outputs.includes(x.name) && Array.isArray(x.shape) && x.shape.length === 2 && x.shape[1] >= 2);
    return t?.shape[1] ?? null;
  }
  function showLabels() {
    labelsClear.hidden = !labels;
    const c = outputClasses();
    if (labels) {
      const n = labels.names.length;
      labelsNote.textContent = `${labels.name}: ${n} names` +
        (c && c !== n ? ` for ${c} classes (${n < c ? 'the rest show by number' : `the last ${n - c} are not used`})` : '');
    } else {
      const built = c ? app.classNames(c) : null;
      labelsNote.textContent = built ? `built in: the digits ${built[0]}–${built[built.length - 1]}` : 'none: classes show by number (#i)';
    }
  }
  labelsFile.addEventListener('change', async () => {
    const f = labelsFile.files[0];
    if (!f) return;
    const names = (await f.text()).split(/\r?\n/).map((l) => l.trim());
    while (names.length && names[names.length - 1] === '') names.pop();
    // A refused file leaves no earlier names in use.
    labels = names.length ? { name: f.name, names } : null;
    if (!labels) {
      labelsFile.value = '';
      app.showError(new Error(`${f.name} holds no class names (a text file, one name a line)`), 'Class names');
    }
    applyLabels();
  });
  labelsClear.addEventListener('click', () => {
    labels = null;
    labelsFile.value = '';
    applyLabels();
  });
  function applyLabels() {
    showLabels();
    if (lastOutputs && app.lastRun) {
      renderOutputs(app.lastRun);
      if (out.dataset.drawing) showDrawResult(app.lastRun, Number(out.dataset.drawing));
    }
    app.emit('labels');
  }
  // Training on the digits gives the digits' names (and the drawing pad the digits' preprocessing).
  app.on('session', () => showLabels());
  return { run, outputs: () => lastOutputs };
}
