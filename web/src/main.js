// The page: state (mirrored in the URL hash), the runtime worker, opening models, and the views.
// Views are modules with one entry point each; they talk through `app` (state + events), not to
// each other.
import './style.css';
import { RuntimeClient } from './rpc.js';
import { GraphView, DEFAULT_OPTIONS } from './graph/graph-view.js';
import { graphAt, graphChain, parsePath, pathText, bodiesOf } from './graph/subgraphs.js';
import { renderSummary, renderNode, renderSearch } from './model-panels.js';
import { createRunPanel } from './run-panel.js';
import { createTrainPanel } from './train-panel.js';
import { createReportsPanel } from './reports-panel.js';
import { createLogPanel } from './log-panel.js';
import { setupTabs, download, wholeNumberError, h } from './util.js';
import { initialShapes, rememberShapes } from './input-shapes.js';

const $ = (id) => document.getElementById(id);
const scriptStartMs = performance.now();  // since navigation start
window.__popartTimings = { scriptStartMs };
let openStarted = performance.now();

// ------------------------------------------------------------------ state + URL hash

const DEFAULTS = { example: 'digits', device: 'cpu', tiles: '', ipus: '1', replicas: '1', tab: 'tab-run', graph: '' };
/// The most IPUs a device of the page has (IPUs per replica x replicas): an IPU-POD64.
export const MAX_IPUS = 64;

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const s = { ...DEFAULTS };
  for (const k of ['example', 'device', 'tiles', 'ipus', 'replicas', 'tab', 'url', 'graph', 'node']) if (p.has(k)) s[k] = p.get(k);
  return s;
}

export const app = {
  state: readHash(),
  runtime: null,
  runtimeInfo: null,
  model: null,        // {name, bytes, description, fileDescription, example?}
  graphPath: [],      // the body shown: [{node, body}] from the main graph down (graph/subgraphs.js)
  view: null,         // the description of the graph shown (app.model.description, or a body's)
  inputShapes: {},    // {input: [dims]} for inputs whose dims are not numbers (input-shapes.js)
  trainedOn: null,    // {digits}: what the training session (whose weights Run uses) trains on
  listeners: new Map(),
  on(ev, fn) {
    if (!this.listeners.has(ev)) this.listeners.set(ev, []);
    this.listeners.get(ev).push(fn);
  },
  emit(ev, data) {
    for (const fn of this.listeners.get(ev) ?? []) fn(data);
  },
  /// `push`: a new history entry (a model change, so that Back returns to the previous model);
  /// else the current entry is updated.
  set(patch, { push = false } = {}) {
    Object.assign(this.state, patch);
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(this.state)) {
      if (v !== undefined && v !== null && v !== '' && v !== DEFAULTS[k]) p.set(k, v);
    }
    const hash = p.toString();
    if (location.hash.slice(1) === hash) return;
    const url = hash ? `#${hash}` : location.pathname + location.search;
    if (push && document.body.dataset.ready === 'true') history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  },
  /// The device spec the runtime worker makes the device and the session options from:
  /// {type, options: {ipuVersion, numIPUs, tilesPerIPU}, replicas, ipusPerReplica}. With R
  /// replicas the device has R x (IPUs per replica) IPUs, as PopART's replicated graphs need.
  device() {
    const d = this.state.device;
    if (d === 'cpu') return { type: 'cpu', replicas: 1 };
    const offline = d.startsWith('offline-');
    const version = offline ? d.slice(8) : d;
    const ipusPerReplica = Number(this.state.ipus || 1);
    const replicas = Number(this.state.replicas || 1);
    const options = { ipuVersion: version, numIPUs: ipusPerReplica * replicas };
    const target = (this.runtimeInfo?.deviceTargets ?? []).find((t) => t.version === version || t.name === version);
    const tiles = Number(this.state.tiles || target?.tilesPerIpu || 0);
    if (tiles) options.tilesPerIPU = tiles;
    return { type: offline ? 'offlineIpu' : 'ipuModel', options, replicas, ipusPerReplica };
  },
};
window.popartApp = app;  // for the browser tests and the console

// ------------------------------------------------------------------ busy, errors, progress

let busyFlags = { runtime: false, layout: false, train: false, load: false };
export function setBusy(key, on) {
  busyFlags[key] = on;
  document.body.dataset.busy = String(Object.values(busyFlags).some(Boolean));
}
app.setBusy = setBusy;

export function showError(e, context = '') {
  const banner = $('error-banner');
  const text = (context ? `${context}: ` : '') + (e?.message ?? String(e));
  banner.querySelector('.banner-text').textContent = text;
  banner.hidden = false;
  console.warn('[popart web]', text);
}
export function clearError() {
  $('error-banner').hidden = true;
}
app.showError = showError;
app.clearError = clearError;
$('error-banner').querySelector('.banner-close').addEventListener('click', clearError);

let progressCancel = null;
export function showProgress(text, cancel = null) {
  const p = $('progress');
  p.querySelector('.progress-text').textContent = text;
  p.querySelector('.progress-cancel').hidden = !cancel;
  progressCancel = cancel;
  p.hidden = false;
}
export function hideProgress() {
  $('progress').hidden = true;
  progressCancel = null;
}
app.showProgress = showProgress;
app.hideProgress = hideProgress;
$('progress').querySelector('.progress-cancel').addEventListener('click', () => progressCancel?.());

// ------------------------------------------------------------------ theme

function storedTheme() {
  try {
    const t = localStorage.getItem('popart.theme');
    return t === 'light' || t === 'dark' ? t : null;
  } catch {
    return null;  // private mode
  }
}
function currentTheme() {
  return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
}
function applyTheme(t) {
  document.documentElement.dataset.theme = t;
  $('theme-toggle').setAttribute('aria-pressed', String(t === 'dark'));
  app.emit('theme', t);
}
function toggleTheme() {
  const next = currentTheme() === 'dark' ? 'light' : 'dark';
  try { localStorage.setItem('popart.theme', next); } catch { /* private mode */ }
  applyTheme(next);
}
// Until the user picks a theme, the page follows the OS's.
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', (e) => {
  if (!storedTheme()) applyTheme(e.matches ? 'dark' : 'light');
});
$('theme-toggle').addEventListener('click', toggleTheme);
$('theme-toggle').setAttribute('aria-pressed', String(currentTheme() === 'dark'));

// ------------------------------------------------------------------ graph

/// The graph's drawing options (horizontal, names, weights), remembered in the browser.
function storedGraphOptions() {
  try {
    const o = JSON.parse(localStorage.getItem('popart.graphOptions') ?? '{}');
    return { rankdir: o.rankdir === 'LR' ? 'LR' : 'TB', names: o.names !== false, weights: o.weights !== false };
  } catch {
    return { ...DEFAULT_OPTIONS };  // private mode, or not JSON
  }
}

const graph = new GraphView($('graph-host'), {
  layoutWorkerUrl: new URL('./layout-worker.js', import.meta.url).href,
  options: storedGraphOptions(),
  onSelectNode: (name) => selectNode(name, { fromGraph: true }),
  onOpenNode: (name, node) => {
    const body = bodiesOf(node)[0];
    if (body) openGraph([...app.graphPath, { node: name, body: body.key }]);
  },
  onProgress: (p) => {
    if (p.stage === 'layout' && p.elapsedMs > 400) showProgress(`Laying out the graph… ${(p.elapsedMs / 1000).toFixed(1)} s`, () => graph.cancel());
  },
});
app.graph = graph;
$('export-svg').addEventListener('click', () => {
  if (!app.model) return;
  const svg = graph.exportSvg();
  download(`${baseName()}.svg`, svg, 'image/svg+xml');
});
$('export-png').addEventListener('click', async () => {
  if (!app.model) return;
  const blob = await graph.exportPng(2);
  download(`${baseName()}.png`, blob);
});
function baseName() {
  return (app.model?.name ?? 'model').replace(/\.onnx$/i, '').replace(/[^\w.-]+/g, '_');
}

function selectNode(name, { fromGraph = false } = {}) {
  if (!app.model) return;
  const view = app.view ?? app.model.description;
  const node = view.nodes.find((n) => n.name === name);
  // A node of the main graph asked for while a body is shown (a report's op, a link): back to main.
  if (name && !node && app.graphPath.length && app.model.description.nodes.some((n) => n.name === name)) {
    openGraph([], { select: name });
    return;
  }
  renderNode($('node-panel'), view, node ?? null, name, {
    onSelect: (n) => selectNode(n),
    onOpenBody: (nodeName, body) => openGraph([...app.graphPath, { node: nodeName, body }]),
    values: { get: (t) => app.runtime.request('tensorValue', { name: t }) },
  });
  if (name) sideTabs.select('tab-node');
  if (!fromGraph && name) graph.select(name);
  app.set({ node: name ?? '' });
  app.emit('node', name);
}
app.selectNode = selectNode;

// ------------------------------------------------------------------ bodies of If / Loop / Scan

/// The breadcrumb "main › If_3 › then_branch": each item goes back to its graph (a node's item
/// to the graph that holds it, with the node selected); hidden on the main graph.
function renderBreadcrumb() {
  const nav = $('graph-breadcrumb');
  const path = app.graphPath;
  nav.hidden = path.length === 0;
  if (!path.length) {
    nav.replaceChildren();
    return;
  }
  const items = [h('button', { type: 'button', dataset: { depth: '0' }, onclick: () => openGraph([]), title: `The main graph${app.model?.description.graphName ? ` (${app.model.description.graphName})` : ''}` }, 'main')];
  path.forEach((seg, i) => {
    const upTo = path.slice(0, i);
    items.push(h('span.crumb-sep', { 'aria-hidden': 'true' }, '›'),
      h('button', { type: 'button', dataset: { depth: String(i), node: seg.node }, onclick: () => openGraph(upTo, { select: seg.node }), title: `${seg.node} in its graph` }, seg.node),
      h('span.crumb-sep', { 'aria-hidden': 'true' }, '›'));
    const last = i === path.length - 1;
    items.push(h('button', {
      type: 'button', dataset: { depth: String(i + 1), body: seg.body }, 'aria-current': last ? 'page' : null,
      onclick: () => openGraph(path.slice(0, i + 1)),
    }, seg.body));
  });
  nav.replaceChildren(...items);
}

/// Shows the graph at `path` (a body, or the main graph for []), and selects `select` in it.
/// Resolves when drawn; false when the model has no such body.
async function openGraph(path, { select = '' } = {}) {
  const model = app.model;
  if (!model) return false;
  const view = graphAt(model.description, path);
  if (!view) return false;
  app.graphPath = path;
  app.view = view;
  renderBreadcrumb();
  app.set({ graph: pathText(path), node: select });
  renderNode($('node-panel'), view, null, null);
  $('search-box').value = '';
  renderSearch($('search-results'), []);
  setBusy('layout', true);
  try {
    await graph.setModel(view);
    if (app.model !== model || app.view !== view) return true;
    if (select) selectNode(select);
  } catch (e) {
    if (e.name !== 'AbortError') showError(e, 'Graph layout');
  } finally {
    if (app.view === view) setBusy('layout', false);
  }
  return true;
}
app.openGraph = openGraph;

// ------------------------------------------------------------------ the View options

const optionButtons = { 'layout-horizontal': 'rankdir', 'hide-names': 'names', 'hide-weights': 'weights' };
function showGraphOptions() {
  const o = graph.options;
  $('layout-horizontal').setAttribute('aria-pressed', String(o.rankdir === 'LR'));
  $('hide-names').setAttribute('aria-pressed', String(!o.names));
  $('hide-weights').setAttribute('aria-pressed', String(!o.weights));
}
async function toggleGraphOption(id) {
  const o = graph.options;
  const key = optionButtons[id];
  const patch = key === 'rankdir' ? { rankdir: o.rankdir === 'LR' ? 'TB' : 'LR' } : { [key]: !o[key] };
  const next = { ...o, ...patch };
  try { localStorage.setItem('popart.graphOptions', JSON.stringify(next)); } catch { /* private mode */ }
  setBusy('layout', true);
  const apply = graph.setOptions(patch);
  showGraphOptions();
  try {
    await apply;
  } catch (e) {
    if (e.name !== 'AbortError') showError(e, 'Graph layout');
  } finally {
    setBusy('layout', false);
  }
}
for (const id of Object.keys(optionButtons)) $(id).addEventListener('click', () => toggleGraphOption(id));
showGraphOptions();

// ------------------------------------------------------------------ opening models

let openSeq = 0;
let pendingGraphLink = new URLSearchParams(location.hash.slice(1)).get('graph');  // the first model's
async function showModel(result) {
  const seq = ++openSeq;
  // Inputs whose dims are not numbers get shapes (remembered or guessed), and the model is
  // described with them so that the graph shows the shapes a run will have.
  const model = { name: result.name, bytes: result.bytes, description: result.description,
                  fileDescription: result.description, example: result.example };
  const shapes = initialShapes(model);
  if (Object.keys(shapes).length) {
    try {
      model.description = (await app.runtime.request('describeShapes', { shapes })).description;
    } catch (e) {
      if (seq === openSeq) showError(e, 'Input shapes');
    }
    if (seq !== openSeq) return;
  }
  app.inputShapes = shapes;
  app.model = model;
  // The body a link names (once, at start or from an edited hash), else the main graph.
  const linked = pendingGraphLink;
  pendingGraphLink = null;
  let path = parsePath(linked ?? '');
  if (!graphChain(model.description, path)) {
    linkNotice(`The link asks for the body '${linked}', which this model does not have; showing the main graph.`);
    path = [];
  }
  app.graphPath = path;
  app.view = graphAt(model.description, path);
  app.set({ graph: pathText(path) });
  renderBreadcrumb();
  result = { ...result, description: model.description };
  document.title = `${result.name} — popart`;
  renderSummary($('model-summary'), result.description, { name: result.name, bytes: result.bytes, describeMs: result.describeMs });
  renderNode($('node-panel'), result.description, null);
  renderSearch($('search-results'), []);
  $('search-box').value = '';
  sideTabs.select('tab-summary');
  app.trainedOn = null;  // what the Run tab's weights were trained on (train-panel.js): nothing yet
  app.emit('model', app.model);
  setBusy('layout', true);
  const graphStart = performance.now();
  try {
    await graph.setModel(app.view);
    if (seq !== openSeq) return;
    const now = performance.now();
    window.__popartTimings.lastOpen = { describeMs: result.describeMs ?? 0, graphMs: now - graphStart, totalMs: now - openStarted };
    window.__popartTimings.firstGraphMs ??= now;
    app.emit('graph-ready', app.model);
    if (app.state.node) selectNode(app.state.node);
  } catch (e) {
    if (e.name !== 'AbortError') showError(e, 'Graph layout');
    else if (seq === openSeq) showError(new Error('Layout cancelled: the model is open, but its graph is not drawn. Choose it again to retry.'));
  } finally {
    if (seq === openSeq) {
      setBusy('layout', false);
      hideProgress();
    }
  }
}

/// New shapes for inputs whose dims are not numbers ({input: [dims]}): remembered for the model,
/// the model described again with them, and the views that show shapes redrawn (the graph keeps
/// its selection). Rejects with the runtime's message when the shapes do not fit the model.
app.setInputShapes = async (shapes) => {
  if (!app.model) return;
  const model = app.model;
  const r = await app.runtime.request('describeShapes', { shapes });
  if (app.model !== model) return;
  app.inputShapes = shapes;
  rememberShapes(model, shapes);
  model.description = r.description;
  renderSummary($('model-summary'), r.description, { name: model.name, bytes: model.bytes, describeMs: r.describeMs });
  app.emit('shapes', shapes);
  // The body shown stays (its shapes follow too); the main graph if it is gone.
  if (!graphChain(r.description, app.graphPath)) app.graphPath = [];
  app.view = graphAt(r.description, app.graphPath);
  renderBreadcrumb();
  setBusy('layout', true);
  try {
    await graph.setModel(app.view);
    if (app.model === model && app.state.node) selectNode(app.state.node);
  } finally {
    setBusy('layout', false);
  }
};

/// Cancel for a load: the core describes a model in one call, so the runtime worker restarts
/// (and reopens the model that was open before).
function cancelLoad() {
  app.restartRuntime().catch((e) => showError(e, 'Restarting the runtime'));
}

// Opens can overlap (a user picks one example, then another while the first downloads): every
// open takes a number, and only the newest one reaches the runtime and the views. The worker
// answers in order, so the last model it is sent is the one the page shows.
let loadSeq = 0;
function beginLoad() {
  const seq = ++loadSeq;
  setBusy('load', true);
  return seq;
}
function endLoad(seq) {
  if (seq === loadSeq) setBusy('load', false);
}
const stale = (seq) => seq !== loadSeq;

async function openBytes(bytes, name, started = performance.now(), seq = beginLoad()) {
  if (stale(seq)) return false;
  clearError();
  openStarted = started;
  showProgress(`Opening ${name}…`, cancelLoad);
  try {
    const source = { kind: 'bytes', bytes: bytes.slice(0), name };  // kept for a runtime restart
    const r = await app.runtime.request('openModel', { bytes, name }, { transfer: [bytes] });
    if (stale(seq)) return false;
    app.source = source;
    hideProgress();
    await showModel({ ...r, name });
    return true;
  } catch (e) {
    if (stale(seq)) return false;
    hideProgress();
    if (e.name === 'AbortError') showError(new Error(`Opening ${name} was cancelled; the previous model stays open.`));
    else showError(e, `Cannot open ${name}`);
    return false;
  } finally {
    endLoad(seq);
  }
}
app.openBytes = openBytes;

async function openFile(file) {
  if (!file) return;
  const seq = beginLoad();
  app.set({ example: 'file', url: '' }, { push: true });
  $('example-select').value = 'file';
  try {
    const buf = await file.arrayBuffer();
    await openBytes(buf, file.name, performance.now(), seq);
  } finally {
    endLoad(seq);
  }
}

async function openExample(id) {
  const seq = beginLoad();
  clearError();
  openStarted = performance.now();
  app.set({ example: id, url: '' }, { push: true });
  $('example-select').value = id;
  try {
    if (id === 'digits' || id === 'chain') {
      showProgress(id === 'digits' ? 'Building the digits CNN with the Builder…' : 'Generating a 2,000-node graph…', cancelLoad);
      try {
        const source = { kind: 'example', example: id === 'digits' ? 'digits-cnn' : 'chain' };
        const r = await app.runtime.request('buildExample', { kind: source.example, n: 2000 });
        if (stale(seq)) return;
        app.source = source;
        hideProgress();
        await showModel(r);
      } catch (e) {
        if (stale(seq)) return;
        hideProgress();
        if (e.name === 'AbortError') showError(new Error('Cancelled; the previous model stays open.'));
        else showError(e, 'Cannot build the example');
      }
      return;
    }
    const ex = examples.find((e) => e.id === id);
    if (!ex) {  // a bad link: the default example, and a notice
      app.set({ example: DEFAULTS.example });
      await openExample(DEFAULTS.example);
      const known = ['digits', ...examples.map((e) => e.id), 'chain'].join(', ');
      linkNotice(`The link asks for example '${id}', which does not exist (examples: ${known}); showing the digits CNN.`);
      return;
    }
    showProgress(`Loading ${ex.title}…`);
    try {
      const res = await fetch(ex.file);
      if (!res.ok) throw new Error(`${ex.file}: HTTP ${res.status}`);
      const buf = await res.arrayBuffer();
      await openBytes(buf, `${id}.onnx`, openStarted, seq);
    } catch (e) {
      if (stale(seq)) return;
      hideProgress();
      showError(e, `Cannot load ${ex.title}`);
    }
  } finally {
    endLoad(seq);
  }
}

async function openUrl(url) {
  clearError();
  let u;
  try {
    u = new URL(url, location.href);
  } catch {
    showError(new Error(`'${url}' is not a URL`));
    return;
  }
  if (u.origin !== location.origin) {
    showError(new Error(`#url= loads same-origin files only; ${u.origin} is another origin (download the file and open it instead)`));
    return;
  }
  const seq = beginLoad();
  app.set({ url, example: 'file' }, { push: true });
  showProgress(`Fetching ${u.pathname}…`);
  try {
    const res = await fetch(u);
    if (!res.ok) throw new Error(`HTTP ${res.status} for ${u.pathname}`);
    await openBytes(await res.arrayBuffer(), u.pathname.split('/').pop() || 'model.onnx', performance.now(), seq);
  } catch (e) {
    if (stale(seq)) return;
    hideProgress();
    showError(e, 'Cannot load the URL');
  } finally {
    endLoad(seq);
  }
}

$('open-file').addEventListener('change', (e) => {
  openFile(e.target.files[0]);
  e.target.value = '';
});

// Drag-and-drop anywhere on the page.
let dragDepth = 0;
window.addEventListener('dragenter', (e) => {
  if (![...(e.dataTransfer?.types ?? [])].includes('Files')) return;
  e.preventDefault();
  ++dragDepth;
  $('drop-overlay').hidden = false;
});
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) $('drop-overlay').hidden = true;
});
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  $('drop-overlay').hidden = true;
  const files = [...(e.dataTransfer?.files ?? [])];
  const model = files.find((f) => /\.onnx$/i.test(f.name)) ?? files[0];
  if (!model) return;
  if (!/\.onnx$/i.test(model.name) && /\.(npy|npz|csv)$/i.test(model.name)) {
    // A .npy dropped while the Run tab is shown is an input for Run; other data trains.
    if (app.state.tab === 'tab-run' && /\.npy$/i.test(model.name)) app.emit('run-data-file', model);
    else app.emit('data-file', model);
    return;
  }
  openFile(model);
});

// ------------------------------------------------------------------ search

let searchTimer = null;
let searchHits = [];
function runSearch() {
  clearTimeout(searchTimer);
  const q = $('search-box').value.trim();
  searchHits = q && app.model ? graph.find(q) : [];
  graph.highlight(searchHits.map((r) => r.node).filter(Boolean));
  renderSearch($('search-results'), searchHits, { onSelect: (hit) => selectNode(hit.node), query: q });
}
$('search-box').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(runSearch, 120);
});
// Enter selects the first hit (searching at once if the last keystroke is still pending).
$('search-box').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  runSearch();
  const first = searchHits.find((hit) => hit.node);
  if (first) selectNode(first.node);
});

// ------------------------------------------------------------------ examples and devices

let examples = [];
async function fillExamples() {
  try {
    const res = await fetch('examples.json');
    examples = res.ok ? await res.json() : [];
  } catch {
    examples = [];
  }
  const sel = $('example-select');
  sel.replaceChildren();
  const add = (value, text) => sel.append(new Option(text, value));
  add('digits', 'Digits CNN (trains in the page)');
  for (const e of examples) add(e.id, e.title);
  add('chain', 'Generated graph (2,000 nodes)');
  add('file', 'Your file…');
  sel.value = app.state.example === 'file' ? 'file' : app.state.example;
  sel.addEventListener('change', () => {
    if (sel.value === 'file') $('open-file').click();
    else openExample(sel.value);
  });
}

/// What is wrong with a device field's value (`key`: tiles, ipus or replicas; `state`: the
/// fields with this value), else null. IPUs per replica x replicas is the device's IPUs, at most
/// MAX_IPUS.
function deviceFieldError(key, value, state, target) {
  if (key === 'tiles') return wholeNumberError(value, 'Tiles per IPU', target?.tilesPerIpu ?? 1472);
  const bad = wholeNumberError(value, key === 'ipus' ? 'The number of IPUs per replica' : 'The number of replicas', MAX_IPUS);
  if (bad) return bad;
  const ipus = Number(state.ipus || 1), replicas = Number(state.replicas || 1);
  if (ipus * replicas > MAX_IPUS) {
    return new Error(`${ipus} IPU${ipus > 1 ? 's' : ''} per replica × ${replicas} replica${replicas > 1 ? 's' : ''} = ${ipus * replicas} IPUs; ` +
                     `the page's devices have at most ${MAX_IPUS} IPUs (an IPU-POD${MAX_IPUS})`);
  }
  return null;
}

function fillDevices(info) {
  const sel = $('device-select');
  sel.replaceChildren(new Option('CPU', 'cpu'));
  const targets = info.deviceTargets ?? [];
  for (const t of targets) {
    const o = new Option(`IPU model ${t.version}`, t.version);
    o.title = `${t.product}: ${t.tilesPerIpu} tiles of ${Math.round(t.bytesPerTile / 1024)} KiB, ${(t.clockHz / 1e6).toFixed(0)} MHz`;
    sel.append(o);
  }
  for (const t of targets) sel.append(new Option(`Offline IPU ${t.version} (compile only)`, `offline-${t.version}`));
  const opts = $('device-options');
  const render = () => {
    opts.replaceChildren();
    if (app.state.device === 'cpu') return;
    const version = app.state.device.replace(/^offline-/, '');
    const t = targets.find((x) => x.version === version);
    const number = (id, value, max, label) => h('input', { type: 'number', min: 1, max, value, id, 'aria-label': label, dataset: { testid: id } });
    const tiles = number('device-tiles', app.state.tiles || t?.tilesPerIpu || 1472, t?.tilesPerIpu ?? 1472, 'Tiles per IPU');
    const ipus = number('device-ipus', app.state.ipus || 1, MAX_IPUS, 'IPUs per replica');
    const replicas = number('device-replicas', app.state.replicas || 1, MAX_IPUS, 'Replicas (data-parallel copies of the graph)');
    const total = h('span.muted.device-total', { testid: 'device-total' });
    const showTotal = () => {
      const r = Number(app.state.replicas || 1);
      const n = Number(app.state.ipus || 1) * r;
      total.textContent = r > 1 ? `= ${n} IPUs` : '';
      total.title = r > 1 ? `${r} replicas, each on its own ${n / r} IPU${n / r > 1 ? 's' : ''}: the device has ${n} IPUs` : '';
    };
    // Checked, not coerced: a value out of range says so and the last good one stays.
    const checked = (input, key, fallback) => input.addEventListener('change', () => {
      const bad = deviceFieldError(key, input.value, { ...app.state, [key]: input.value }, t);
      if (bad) {
        showError(bad, 'Device');
        input.value = app.state[key] || fallback;
        return;
      }
      clearError();
      app.set({ [key]: String(Number(input.value)) });
      showTotal();
      app.emit('device', app.device());
    });
    checked(tiles, 'tiles', t?.tilesPerIpu ?? 1472);
    checked(ipus, 'ipus', 1);
    checked(replicas, 'replicas', 1);
    showTotal();
    opts.append(h('label.inline', { title: 'Tiles per IPU' }, 'Tiles', tiles),
      h('label.inline', { title: 'IPUs per replica (the model is split over them when more than one)' }, 'IPUs', ipus),
      h('label.inline', { title: 'Replicas: data-parallel copies of the graph, each on its own IPUs (PopART replicatedGraphCount)' }, 'Replicas', replicas),
      total);
  };
  sel.addEventListener('change', () => {
    app.set({ device: sel.value, tiles: '' });
    render();
    app.emit('device', app.device());
  });
  // The device the link names (at start, and when the hash changes); an unknown one is the CPU,
  // with a notice.
  deviceFromLink = () => {
    if (![...sel.options].some((o) => o.value === app.state.device)) {
      linkNotice(`The link asks for device '${app.state.device}', which does not exist; using the CPU.`);
      app.set({ device: DEFAULTS.device });
    }
    // Tiles, IPUs and replicas out of range in a link: the default, with a notice.
    const t = targets.find((x) => x.version === app.state.device.replace(/^offline-/, ''));
    for (const key of ['tiles', 'ipus', 'replicas']) {
      if (!app.state[key]) continue;
      // Too many IPUs in all: the replicas are refused, not the IPUs per replica.
      const bad = deviceFieldError(key, app.state[key], key === 'ipus' ? { ...app.state, replicas: '1' } : app.state, t);
      if (bad) {
        linkNotice(`The link's ${key}: ${bad.message}; using ${DEFAULTS[key] || 'the whole IPU'}.`);
        app.set({ [key]: DEFAULTS[key] });
      }
    }
    sel.value = app.state.device;
    render();
    app.emit('device', app.device());
  };
  deviceFromLink();
}

// ------------------------------------------------------------------ tabs and keyboard

const sideTabs = setupTabs(document.querySelector('.sidebar .tabs'));
const workTabs = setupTabs(document.querySelector('.work .tabs'), (id) => {
  app.set({ tab: id });
  const wide = id === 'tab-reports';
  if (document.body.classList.contains('wide-work') !== wide) {
    document.body.classList.toggle('wide-work', wide);
    if (app.model) requestAnimationFrame(() => graph.fit());  // the graph's column changed width
  }
  app.emit('tab', id);
});
app.workTabs = workTabs;

$('help-button').addEventListener('click', () => $('help-dialog').showModal());
window.addEventListener('keydown', (e) => {
  const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName) || e.target.isContentEditable;
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'o') {
    e.preventDefault();
    $('open-file').click();
    return;
  }
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') {
    e.preventDefault();
    sideTabs.select('tab-search');
    $('search-box').focus();
    return;
  }
  if (e.key === 'Escape' && progressCancel) {
    progressCancel();
    return;
  }
  if (e.key === 'Escape' && !document.querySelector('dialog[open]')) {
    app.emit('shortcut-cancel');  // a run is cancelled, a training paused
    return;
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === '?') $('help-dialog').showModal();
  else if (e.key === '/') {
    e.preventDefault();
    sideTabs.select('tab-search');
    $('search-box').focus();
  } else if (e.key === 't' || e.key === 'T') toggleTheme();
  else if (e.key === 'h' || e.key === 'H') toggleGraphOption('layout-horizontal');
  else if (e.key === 'n' || e.key === 'N') toggleGraphOption('hide-names');
  else if (e.key === 'w' || e.key === 'W') toggleGraphOption('hide-weights');
  else if (e.key === '1') workTabs.select('tab-run');
  else if (e.key === '2') workTabs.select('tab-train');
  else if (e.key === '3') workTabs.select('tab-reports');
  else if (e.key === '4') workTabs.select('tab-log');
  else if (e.key === 'r' || e.key === 'R') app.emit('shortcut-run');
  else if (e.key === ' ' && app.state.tab === 'tab-train' && !/^(BUTTON)$/.test(e.target.tagName)) {
    e.preventDefault();
    app.emit('shortcut-train-toggle');
  } else return;
});

// ------------------------------------------------------------------ start

function newRuntime() {
  return new RuntimeClient(new URL('./runtime-worker.js', import.meta.url).href,
                           { onBusy: (b) => setBusy('runtime', b), onLog: (l) => app.emit('log', l) });
}

/// Cancels whatever the runtime is doing by restarting its worker (a prepare cannot be interrupted
/// inside the core), then opens the same model again; the views keep what they show.
app.restartRuntime = async () => {
  app.runtime.terminate();
  app.runtime = newRuntime();
  app.trainedOn = null;  // the training session went with the worker
  app.emit('runtime-restart');
  app.runtimeInfo = await app.runtime.request('init', {});
  const src = app.source;
  if (src?.kind === 'bytes') await app.runtime.request('openModel', { bytes: src.bytes.slice(0), name: src.name });
  else if (src?.kind === 'example') await app.runtime.request('buildExample', { kind: src.example, n: 2000 });
};

/// What a bad link asked for and got instead: shown once the page is ready (opening the first
/// model clears the banner), at once afterwards.
const linkNotices = [];
function linkNotice(text) {
  if (document.body.dataset.ready === 'true') showError(new Error(text));
  else linkNotices.push(text);
}

/// The work tab the link names; an unknown one (a bad link) shows Run with a notice.
function selectTabFromLink() {
  const tab = app.state.tab || DEFAULTS.tab;
  if (workTabs.select(tab)) return;
  workTabs.select(DEFAULTS.tab);
  app.set({ tab: DEFAULTS.tab });
  linkNotice(`The link asks for tab '${tab}', which does not exist (tabs: ${workTabs.ids().join(', ')}); showing Run.`);
}

/// A hash changed by Back / Forward or edited in place: the tab, device and model it names.
async function applyHash() {
  const next = readHash();
  const prev = { ...app.state };
  Object.assign(app.state, next);
  if (next.tab !== prev.tab) selectTabFromLink();
  if (next.device !== prev.device || next.tiles !== prev.tiles || next.ipus !== prev.ipus || next.replicas !== prev.replicas) {
    deviceFromLink?.();
  }
  const modelChange = (next.url !== prev.url && next.url) || next.example !== prev.example;
  if (modelChange) pendingGraphLink = next.graph;
  if (next.url !== prev.url && next.url) await openUrl(next.url);
  else if (next.example !== prev.example && next.example !== 'file') await openExample(next.example);
  else if (next.example !== prev.example) showError(new Error('That history entry was a file you opened: open it again to see it.'));
  else if (next.graph !== pathText(app.graphPath) && app.model) {
    if (!(await openGraph(parsePath(next.graph), { select: next.node }))) {
      showError(new Error(`The link asks for the body '${next.graph}', which this model does not have; showing the main graph.`));
      await openGraph([]);
    }
  }
}
let deviceFromLink = null;  // set by fillDevices
window.addEventListener('hashchange', () => {
  if (document.body.dataset.ready === 'true') applyHash().catch((e) => showError(e, 'Link'));
});

/// One line on a first visit saying what the page is; dismissed for good with ×.
function showIntro() {
  let seen = false;
  try { seen = localStorage.getItem('popart.introDismissed') === '1'; } catch { /* private mode */ }
  $('intro').hidden = seen;
  $('intro-close').addEventListener('click', () => {
    $('intro').hidden = true;
    try { localStorage.setItem('popart.introDismissed', '1'); } catch { /* private mode */ }
  });
}

async function start() {
  const t0 = performance.now();
  showIntro();
  app.runtime = newRuntime();
  createRunPanel($('panel-run'), app);
  createTrainPanel($('panel-train'), app);
  createReportsPanel($('panel-reports'), app);
  createLogPanel($('panel-log'), app, $('tab-log'));
  selectTabFromLink();
  const examplesReady = fillExamples();
  try {
    app.runtimeInfo = await app.runtime.request('init', {});
  } catch (e) {
    showError(e, 'The runtime did not start');
    return;
  }
  const info = app.runtimeInfo;
  $('runtime-status').textContent = info.isolated
    ? `wasm · ${info.threads} thread${info.threads > 1 ? 's' : ''}`
    : 'wasm · 1 thread (not cross-origin isolated)';
  $('runtime-status').title = info.isolated
    ? `The pthread build of the runtime, ${info.threads} threads, in a Web Worker.`
    : 'The page is not cross-origin isolated (no COOP / COEP headers), so the single-threaded module runs. Serve it with scripts/run.sh for threads.';
  $('runtime-status').dataset.threads = String(info.threads);
  $('runtime-status').dataset.isolated = String(info.isolated);
  fillDevices(info);
  app.emit('runtime', info);
  await examplesReady;
  if (app.state.url) await openUrl(app.state.url);
  else if (app.state.example && app.state.example !== 'file') await openExample(app.state.example);
  else await openExample('digits');
  Object.assign(window.__popartTimings, { interactiveMs: performance.now() - t0, runtimeStartMs: info.startMs });
  document.body.dataset.ready = 'true';
  if (linkNotices.length) showError(new Error(linkNotices.splice(0).join(' ')));
}
start();
