// The graph view: draws a model description (popart.describeModel's JSON) as an SVG graph laid
// out by dagre in a worker (layout-worker.js), with pan / zoom / fit, keyboard navigation,
// selection, highlight, search, a minimap for large graphs, and SVG / PNG export.
// See README.md next to this file for the API, the worker protocol and performance notes.
import './graph.css';
import { shapeText } from '../util.js';
import { bodiesOf, implicitInputsOf } from './subgraphs.js';

const SVGNS = 'http://www.w3.org/2000/svg';
const MINIMAP_MIN_BOXES = 150;       // the minimap is shown above this many boxes
const CULL_MIN_BOXES = 300;          // off-screen boxes get display:none above this many
const FAR_SCALE = 0.4;               // below this zoom the text is hidden (level of detail)
const LEGIBLE_SCALE = 0.8;           // the initial zoom is at least this (node titles ~11 px, edge labels ~9 px)
const SLOW_LAYOUT_MS = 2500;         // then the in-view Cancel appears
const DRAW_BUDGET_MS = 24;           // the drawing yields to the event loop after this long
const MAX_ROWS = 6;                  // initializer rows shown inside a box
const UNSUPPORTED = 'not supported by this runtime';
/// Drawing options (Netron's View menu): rankdir 'TB' (top to bottom) or 'LR' (left to right),
/// names (node names under the op type), weights (initializer rows inside the boxes).
export const DEFAULT_OPTIONS = Object.freeze({ rankdir: 'TB', names: true, weights: true });
let instances = 0;

// Input names of common ops (the ONNX schemas' names), for the initializer rows inside a box.
const INPUT_NAMES = {
  Conv: ['X', 'W', 'B'], ConvTranspose: ['X', 'W', 'B'], Gemm: ['A', 'B', 'C'], MatMul: ['A', 'B'],
  BatchNormalization: ['X', 'scale', 'B', 'mean', 'var'], InstanceNormalization: ['input', 'scale', 'B'],
  LayerNormalization: ['X', 'scale', 'B'], Add: ['A', 'B'], Sub: ['A', 'B'], Mul: ['A', 'B'], Div: ['A', 'B'],
  Pow: ['X', 'Y'], Reshape: ['data', 'shape'], Gather: ['data', 'indices'], Clip: ['input', 'min', 'max'],
  Pad: ['data', 'pads', 'value'], Resize: ['X', 'roi', 'scales', 'sizes'], Slice: ['data', 'starts', 'ends', 'axes', 'steps'],
  Unsqueeze: ['data', 'axes'], Squeeze: ['data', 'axes'], Expand: ['input', 'shape'], PRelu: ['X', 'slope'],
  LSTM: ['X', 'W', 'R', 'B', 'seq_lens', 'h0', 'c0'], GRU: ['X', 'W', 'R', 'B', 'seq_lens', 'h0'], RNN: ['X', 'W', 'R', 'B'],
  Where: ['cond', 'X', 'Y'], Tile: ['input', 'repeats'], ReduceMean: ['data', 'axes'], ReduceSum: ['data', 'axes'],
};

function abortError(message = 'The graph layout was cancelled') {
  const e = new Error(message);
  e.name = 'AbortError';
  return e;
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const r1 = (v) => Math.round(v * 10) / 10;
const yieldTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/// "1×64×56×56": numbers as they are, dim_param names as they are, unknown dims as "?".
/// An edge label: "FLOAT 1×64×56×56".
export function tensorLabel(t) {
  if (!t) return '?';
  return `${t.dtype || '?'} ${shapeText(t.shape)}`;
}

function shortName(name, max = 34) {
  return name.length <= max ? name : `${name.slice(0, 12)}…${name.slice(-(max - 13))}`;
}

export class GraphView {
  constructor(container, { onSelectNode = () => {}, onOpenNode = () => {}, onProgress = () => {}, layoutWorkerUrl, options } = {}) {
    this.container = container;
    this.onSelectNode = onSelectNode;
    this.onOpenNode = onOpenNode;
    this.onProgress = onProgress;
    this._options = { ...DEFAULT_OPTIONS, ...(options ?? {}) };
    this._workerUrl = layoutWorkerUrl ?? new URL('./layout-worker.js', import.meta.url);
    this._uid = ++instances;
    this._worker = null;
    this._reqId = 0;
    this._pending = null;       // {id, resolve, reject} of the layout request in flight
    this._token = null;         // the current setModel call
    this._t = { x: 0, y: 0, k: 1 };
    this._boxes = [];
    this._byKey = new Map();
    this._edges = [];
    this._selected = null;
    this._highlighted = new Set();
    this._roving = null;
    this._size = { width: 0, height: 0 };
    this._model = null;

    container.classList.add('gv-root');
    container.dataset.testid = 'graph-view';
    container.tabIndex = 0;
    container.setAttribute('role', 'application');
    container.setAttribute('aria-roledescription', 'graph');
    container.setAttribute('aria-label', 'Model graph (empty)');
    container.innerHTML = `
      <canvas class="gv-far-canvas" aria-hidden="true" hidden></canvas>
      <svg class="gv-svg" xmlns="${SVGNS}" aria-hidden="false">
        <defs><marker id="gv-arrow-${this._uid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7"
          markerUnits="userSpaceOnUse" orient="auto"><path class="gv-arrow" d="M0,1 L10,5 L0,9 z"/></marker></defs>
        <g class="gv-viewport"><g class="gv-edges"></g><g class="gv-nodes"></g></g>
      </svg>
      <div class="gv-empty" hidden></div>
      <div class="gv-legend" data-testid="graph-legend" hidden></div>
      <div class="gv-overlay" role="status" aria-live="polite" hidden><span class="gv-overlay-text"></span>
        <button type="button" data-testid="layout-cancel" hidden>Cancel</button></div>
      <div class="gv-controls">
        <button type="button" data-testid="graph-zoom-in" title="Zoom in (+)" aria-label="Zoom in">+</button>
        <button type="button" data-testid="graph-zoom-out" title="Zoom out (-)" aria-label="Zoom out">−</button>
        <button type="button" data-testid="graph-fit" title="Fit (0 or F)" aria-label="Fit the graph to the view">⤢</button>
      </div>
      <canvas class="gv-minimap" data-testid="graph-minimap" tabindex="-1" aria-label="Minimap: click or drag to move the view" hidden></canvas>`;
    this._svg = container.querySelector('svg');
    this._viewport = container.querySelector('.gv-viewport');
    this._edgesG = container.querySelector('.gv-edges');
    this._nodesG = container.querySelector('.gv-nodes');
    this._empty = container.querySelector('.gv-empty');
    this._legend = container.querySelector('.gv-legend');
    this._farCanvas = container.querySelector('.gv-far-canvas');
    this._overlay = container.querySelector('.gv-overlay');
    this._overlayText = container.querySelector('.gv-overlay-text');
    this._cancelBtn = container.querySelector('[data-testid="layout-cancel"]');
    this._minimap = container.querySelector('.gv-minimap');
    this._cancelBtn.addEventListener('click', (e) => { e.stopPropagation(); this.cancel(); });
    container.querySelector('[data-testid="graph-zoom-in"]').addEventListener('click', () => this.zoomBy(1.25));
    container.querySelector('[data-testid="graph-zoom-out"]').addEventListener('click', () => this.zoomBy(0.8));
    container.querySelector('[data-testid="graph-fit"]').addEventListener('click', () => this.fit());
    for (const b of container.querySelectorAll('.gv-controls button, .gv-overlay button')) {
      b.addEventListener('pointerdown', (e) => e.stopPropagation());
    }

    this._listen();
    this._ro = typeof ResizeObserver === 'function' ? new ResizeObserver(() => this._onResize()) : null;
    this._ro?.observe(container);
    // Theme changes: the SVG follows the CSS variables by itself; the minimap is a canvas.
    this._themeObserver = new MutationObserver(() => { this._drawMinimapBase(); if (this._canvasMode) this._renderCanvas(); });
    this._themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class', 'style'] });
    this._mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    this._mqListener = () => { this._drawMinimapBase(); if (this._canvasMode) this._renderCanvas(); };
    this._mq?.addEventListener?.('change', this._mqListener);
    this._prewarm();
  }

  /// Starts the layout worker ahead of the first layout (loading and compiling the worker's
  /// script was ~0.3-0.5 s of the first resnet18 layout on a cold page).
  _prewarm() {
    setTimeout(() => {
      if (this._disposed || this._worker) return;
      try { this._ensureWorker(); } catch { /* reported by the next layout */ }
    }, 0);
  }

  // ---------------------------------------------------------------- public API

  /// The layout worker's script; setting it replaces an idle worker (the next layout uses it).
  get layoutWorkerUrl() { return this._workerUrl; }
  set layoutWorkerUrl(url) {
    this._workerUrl = url;
    if (!this._pending) {
      this._worker?.terminate();
      this._worker = null;
    }
  }

  /// The drawing options: {rankdir: 'TB' | 'LR', names, weights}.
  get options() { return { ...this._options }; }

  /// Changes drawing options; the graph shown is laid out again with them (keeping the
  /// selection). Resolves when drawn (at once when nothing is shown).
  async setOptions(patch) {
    const next = { ...this._options, ...patch };
    const changed = Object.keys(next).some((k) => next[k] !== this._options[k]);
    this._options = next;
    // A layout in flight finishes first (superseding it would reject the caller's setModel).
    if (this._inflight) await this._settled;
    if (!changed || !this._model) return;
    const selected = this.selected;
    await this.setModel(this._model.desc);
    if (selected) {
      const box = this._find(selected);
      if (box) this._select(box, { center: true, notify: false });
    }
  }

  /// The current pan/zoom: {x, y, k} (screen = graph * k + (x, y)).
  get transform() { return { ...this._t }; }
  /// The drawn model's boxes (nodes, inputs, outputs) count.
  get boxCount() { return this._boxes.length; }
  get selected() { return this._selected ? this._byKey.get(this._selected)?.name ?? null : null; }

  /// Draws `description`; resolves when drawn, rejects with an AbortError when cancelled or
  /// superseded by another setModel, with an Error when the layout fails.
  setModel(description) {
    const run = this._run(description);
    this._settled = run.catch(() => {});
    return run;
  }

  async _run(description) {
    this._abort(abortError('The graph layout was superseded by another model'));
    const token = {};
    this._token = token;
    this._inflight = token;
    this._clear();
    // One timer over the whole call: progress events, then the in-view message and Cancel.
    const t0 = performance.now();
    this._stage = 'layout';
    const timer = setInterval(() => {
      if (this._token !== token) return;
      const elapsedMs = performance.now() - t0;
      const n = this._model?.nodes.length ?? 0;
      const what = this._stage === 'draw' ? `Drawing ${n} nodes…` : `Laying out ${n} nodes…`;
      if (elapsedMs >= SLOW_LAYOUT_MS) {
        this._showOverlay(`${this._stage === 'draw' ? 'Drawing' : 'Layout'} is taking a while… (${(elapsedMs / 1000).toFixed(1)} s, ${n} nodes)`, true);
      } else if (elapsedMs >= 400) {
        this._showOverlay(what, false);
      }
      this.onProgress({ stage: this._stage, message: what, elapsedMs });
    }, 250);
    try {
      await this._setModel(description, token, t0);
    } catch (e) {
      if (this._token === token) {
        this._hideOverlay();
        this._clear();
        this._showEmpty(`The graph could not be drawn: ${e.message}`);
        this.onProgress({ stage: 'error', message: e.message });
      }
      throw e;
    } finally {
      clearInterval(timer);
      if (this._inflight === token) this._inflight = null;
    }
  }

  async _setModel(description, token, t0) {
    this._build(description);
    this.container.setAttribute('aria-label', this._ariaLabel(description));
    if (this._boxes.length === 0) {
      this._showEmpty('This graph has no nodes.');
      this.onProgress({ stage: 'done', message: 'Empty graph', elapsedMs: 0 });
      return;
    }
    this._measure();
    const boxes = this._boxes;
    const lr = this._options.rankdir === 'LR';
    const req = {
      nodes: boxes.map((b, i) => ({ id: i, width: b.width, height: b.height })),
      // Left to right, the labels sit on the edges between the ranks: dagre makes room for them.
      edges: this._edges.map((e) => (lr ? { from: e.from, to: e.to, name: e.tensor, width: e.labelWidth + 8, height: 26 }
                                         : { from: e.from, to: e.to, name: e.tensor })),
      options: { rankdir: this._options.rankdir },
    };
    this.onProgress({ stage: 'layout', message: `Laying out ${this._model.nodes.length} nodes…`, elapsedMs: 0 });
    const result = await this._layout(req);
    this._check(token);
    const layoutMs = performance.now() - t0;
    boxes.forEach((b, i) => {
      b.x = result.positions[2 * i] - b.width / 2;
      b.y = result.positions[2 * i + 1] - b.height / 2;
    });
    this._edges.forEach((e, i) => {
      e.points = result.edgePoints[i];
      const lx = result.labels?.[2 * i];
      e.labelAt = Number.isFinite(lx) ? { x: lx, y: result.labels[2 * i + 1] } : null;
    });
    this._size = { width: result.width, height: result.height };
    this._stage = 'draw';
    this.onProgress({ stage: 'draw', message: `Drawing ${this._model.nodes.length} nodes…`, elapsedMs: layoutMs });
    this._setInitialView();
    await this._draw(token);
    this._check(token);
    this._hideOverlay();
    this._minimap.hidden = boxes.length <= MINIMAP_MIN_BOXES;
    this._drawMinimapBase();
    this._applyTransform();
    const total = performance.now() - t0;
    this.stats = { boxes: boxes.length, edges: this._edges.length, layoutMs, workerMs: result.ms, totalMs: total };
    this.onProgress({ stage: 'done', message: `Drew ${this._model.nodes.length} nodes in ${Math.round(total)} ms`, elapsedMs: total, ...this.stats });
  }

  /// Cancels the layout (or drawing) in flight: setModel rejects with an AbortError.
  cancel() {
    if (!this._inflight) return;
    this._inflight = null;
    this._abort(abortError());
    this._clear();
    this._showEmpty('Layout cancelled.');
    this.onProgress({ stage: 'cancelled', message: 'Layout cancelled' });
  }

  /// Selects a node (node name, or a graph input / output tensor name), centres it and calls
  /// onSelectNode; null clears the selection.
  select(name) {
    const box = name === null || name === undefined ? null : this._find(name);
    if (!box && name !== null && name !== undefined) return false;  // unknown: nothing changes
    this._select(box, { center: true, notify: true });
    return true;
  }

  /// Marks the given nodes (names as in select) with the highlight style; [] clears.
  highlight(names = []) {
    for (const k of this._highlighted) this._byKey.get(k)?.el?.classList.remove('gv-hl');
    this._highlighted.clear();
    for (const n of names) {
      const b = this._find(n);
      if (!b) continue;
      this._highlighted.add(b.key);
      b.el?.classList.add('gv-hl');
    }
    if (this._canvasMode) this._renderCanvas();
  }

  /// Search: nodes whose op type equals the query (case-insensitive) or whose name contains it,
  /// then tensors whose name contains it (with the node that produces, else first consumes it).
  find(query) {
    const q = String(query ?? '').trim().toLowerCase();
    if (!q || !this._model) return [];
    const out = [];
    const byType = [], byName = [];
    for (const n of this._model.nodes) {
      if (n.opType.toLowerCase() === q) byType.push(n);
      else if (n.name.toLowerCase().includes(q)) byName.push(n);
    }
    for (const n of [...byType, ...byName]) out.push({ kind: 'node', name: n.name, opType: n.opType, node: n.name, match: byType.includes(n) ? 'opType' : 'name' });
    for (const t of this._model.tensors) {
      if (!t.name.toLowerCase().includes(q)) continue;
      const node = t.producer || t.consumers?.[0] || (this._byKey.has('i:' + t.name) ? t.name : '');
      out.push({ kind: 'tensor', name: t.name, node, tensorKind: t.kind, label: tensorLabel(t) });
    }
    return out;
  }

  /// Fits the whole graph in the view.
  fit() {
    const { width: W, height: H } = this._viewSize();
    const { width, height } = this._size;
    if (!width || !height) return;
    const k = Math.min(W / width, H / height, 2) * 0.96;
    this._t = { k, x: (W - width * k) / 2, y: (H - height * k) / 2 };
    this._applyTransform();
  }

  /// Zooms by factor f around the view's centre (or the given screen point).
  zoomBy(f, cx, cy) {
    const { width: W, height: H } = this._viewSize();
    cx ??= W / 2;
    cy ??= H / 2;
    const k = Math.min(8, Math.max(0.002, this._t.k * f));
    const g = { x: (cx - this._t.x) / this._t.k, y: (cy - this._t.y) / this._t.k };
    this._t = { k, x: cx - g.x * k, y: cy - g.y * k };
    this._applyTransform();
  }

  /// Pans by (dx, dy) screen pixels.
  panBy(dx, dy) {
    this._t = { ...this._t, x: this._t.x + dx, y: this._t.y + dy };
    this._applyTransform();
  }

  /// The whole graph as a standalone SVG document (styles inlined with the colours resolved).
  exportSvg() {
    if (!this._drawn) throw new Error('exportSvg: no graph is drawn');
    const { width, height } = this._size;
    const css = this._exportCss();
    const bg = this._var('--bg') || '#ffffff';
    // Built from the model, not cloned from the DOM: off-screen shells are filled, and the
    // selection, highlight, culling and tab stops are left out.
    const parts = [];
    for (const e of this._edges) parts.push(`<g class="gv-edge${e.implicit ? ' gv-implicit' : ''}" data-tensor="${esc(e.tensor)}">${this._edgeInner(e)}</g>`);
    const edges = parts.join('');
    parts.length = 0;
    for (const b of this._boxes) {
      const kindAttr = b.kind === 'node' ? '' : ` data-kind="${b.kind}"`;
      parts.push(`<g class="gv-node gv-k-${b.kind}${this._boxClasses(b)}" data-testid="graph-node" data-node-name="${esc(b.name)}"${kindAttr} transform="translate(${r1(b.x)},${r1(b.y)})">${this._boxInner(b)}</g>`);
    }
    const defs = new XMLSerializer().serializeToString(this._svg.querySelector('defs'));
    const w = Math.ceil(width), h = Math.ceil(height);
    return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="${SVGNS}" class="gv-svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
      `<style><![CDATA[\n${css.replace(/]]>/g, ']] >')}\n]]></style><rect width="${w}" height="${h}" fill="${esc(bg)}"/>${defs}<g class="gv-edges">${edges}</g><g class="gv-nodes">${parts.join('')}</g></svg>`;
  }

  /// The whole graph as a PNG (scale 2 by default; reduced so the bitmap stays within the
  /// browser's canvas limits).
  async exportPng(scale = 2) {
    const svg = this.exportSvg();
    const { width, height } = this._size;
    const s = Math.max(0.01, Math.min(scale, 16000 / width, 16000 / height, Math.sqrt(1.2e8 / (width * height))));
    const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    try {
      const img = new Image();
      img.src = url;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = Math.max(1, Math.ceil(width * s));
      canvas.height = Math.max(1, Math.ceil(height * s));
      const ctx = canvas.getContext('2d');
      ctx.scale(s, s);
      ctx.drawImage(img, 0, 0, width, height);
      return await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('exportPng: the canvas gave no image'))), 'image/png'));
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  dispose() {
    this._disposed = true;
    this._abort(abortError('The graph view was disposed'));
    this._worker?.terminate();
    this._worker = null;
    this._ro?.disconnect();
    this._themeObserver.disconnect();
    this._mq?.removeEventListener?.('change', this._mqListener);
    for (const [type, fn, target] of this._listeners) (target ?? this.container).removeEventListener(type, fn);
    this.container.innerHTML = '';
    this.container.classList.remove('gv-root', 'gv-far', 'gv-panning', 'gv-canvas-mode');
    delete this.container.dataset.testid;
    for (const a of ['tabindex', 'role', 'aria-roledescription', 'aria-label']) this.container.removeAttribute(a);
    this._boxes = [];
    this._byKey.clear();
  }

  // ---------------------------------------------------------------- model -> boxes and edges

  _build(desc) {
    const tensors = new Map((desc.tensors ?? []).map((t) => [t.name, t]));
    const nodes = desc.nodes ?? [];
    const { names: showNames, weights: showWeights } = this._options;
    this._model = { nodes, tensors: desc.tensors ?? [], tensorMap: tensors, desc };
    const boxes = [], byKey = new Map(), edges = [];
    const add = (b) => { b.index = boxes.length; boxes.push(b); byKey.set(b.key, b); return b; };
    const inputs = desc.inputs ?? [];
    const outputs = desc.outputs ?? [];
    // A body's outer-scope tensors (graph/subgraphs.js graphAt) are input boxes of their own kind.
    const outer = (desc.outerInputs ?? []).filter((n) => !inputs.includes(n));
    const boxed = new Set([...inputs, ...outer]);
    for (const name of inputs) {
      add({ key: 'i:' + name, kind: 'input', name, title: name, sub: tensorLabel(tensors.get(name)), rows: [], aria: `Input ${name}` });
    }
    for (const name of outer) {
      add({ key: 'i:' + name, kind: 'input', outer: true, name, title: name, sub: `outer scope · ${tensorLabel(tensors.get(name))}`, rows: [],
            aria: `Outer-scope tensor ${name}, read inside this body` });
    }
    let unsupported = 0;
    for (const n of nodes) {
      const names = INPUT_NAMES[n.opType];
      const rows = [];
      if (showWeights) {
        (n.inputs ?? []).forEach((t, i) => {
          if (!t) return;
          const tt = tensors.get(t);
          if (tt?.producer || boxed.has(t)) return;
          const label = names?.[i] ?? (t.split(/[/.:]/).filter(Boolean).pop() ?? t).slice(0, 14);
          rows.push({ k: label, v: tt ? shapeText(tt.shape) : '?', tensor: t });
        });
      }
      for (const { key, graph } of bodiesOf(n)) {
        const count = graph.nodes?.length ?? 0;
        rows.push({ k: key, v: `${count} node${count === 1 ? '' : 's'}`, tensor: '' });
      }
      let shown = rows;
      if (rows.length > MAX_ROWS) shown = [...rows.slice(0, MAX_ROWS - 1), { k: '…', v: `${rows.length - MAX_ROWS + 1} more`, tensor: '' }];
      const bad = n.supported === false;
      if (bad) ++unsupported;
      add({
        key: 'n:' + n.name, kind: 'node', name: n.name, title: bad ? `⚠ ${n.opType}` : n.opType,
        sub: showNames && n.name !== n.opType ? shortName(n.name) : '', rows: shown, node: n, unsupported: bad,
        aria: `${n.opType} ${n.name}${bad ? `, ${UNSUPPORTED}` : ''}${n.subgraphs?.length ? ', has a body (double-click opens it)' : ''}`,
      });
    }
    for (const name of outputs) {
      add({ key: 'o:' + name, kind: 'output', name, title: name, sub: tensorLabel(tensors.get(name)), rows: [], aria: `Output ${name}` });
    }
    const seen = new Set();
    const edge = (from, to, tensor, implicit = false) => {
      const id = `${from.index}>${to.index}>${tensor}`;
      if (seen.has(id) || from === to) return;
      seen.add(id);
      edges.push({ from: from.index, to: to.index, tensor, label: tensorLabel(tensors.get(tensor)), implicit });
    };
    const source = (t) => {
      const tt = tensors.get(t);
      if (tt?.producer && byKey.has('n:' + tt.producer)) return byKey.get('n:' + tt.producer);
      if (byKey.has('i:' + t)) return byKey.get('i:' + t);
      return null;
    };
    let implicit = 0;
    for (const n of nodes) {
      const to = byKey.get('n:' + n.name);
      for (const t of n.inputs ?? []) {
        if (!t) continue;
        const from = source(t);
        if (from) edge(from, to, t);
      }
      // What the node's bodies read from this graph: dashed edges into the node.
      for (const t of implicitInputsOf(n)) {
        const from = source(t);
        if (from && !(n.inputs ?? []).includes(t)) { edge(from, to, t, true); ++implicit; }
      }
    }
    for (const name of outputs) {
      const from = source(name);
      if (from) edge(from, byKey.get('o:' + name), name);
    }
    for (const b of boxes) { b.preds = []; b.succs = []; b.edges = []; }
    edges.forEach((e, i) => {
      boxes[e.from].succs.push(boxes[e.to]);
      boxes[e.to].preds.push(boxes[e.from]);
      boxes[e.from].edges.push(i);
      boxes[e.to].edges.push(i);
    });
    this._boxes = boxes;
    this._byKey = byKey;
    this._edges = edges;
    this._setLegend(unsupported, implicit, outer.length);
  }

  /// The legend of the marks a graph uses: unsupported ops, body reads, outer-scope tensors.
  _setLegend(unsupported, implicit, outer) {
    const items = [];
    if (unsupported) items.push(`<span class="gv-legend-item" data-legend="unsupported"><span class="gv-swatch gv-swatch-bad"></span>⚠ ${UNSUPPORTED} (${unsupported})</span>`);
    if (implicit) items.push('<span class="gv-legend-item" data-legend="implicit"><span class="gv-swatch gv-swatch-dash"></span>read inside a body</span>');
    if (outer) items.push('<span class="gv-legend-item" data-legend="outer"><span class="gv-swatch gv-swatch-outer"></span>from the enclosing graph</span>');
    this._legend.innerHTML = items.join('');
    this._legend.hidden = !items.length;
  }

  _ariaLabel(desc) {
    const n = desc.nodes?.length ?? 0;
    const list = (a) => (a.length > 4 ? `${a.slice(0, 4).join(', ')} and ${a.length - 4} more` : a.join(', ') || 'none');
    return `Graph${desc.graphName ? ` ${desc.graphName}` : ''}: ${n} node${n === 1 ? '' : 's'}, inputs ${list(desc.inputs ?? [])}, ` +
      `outputs ${list(desc.outputs ?? [])}. Tab moves to the nodes, arrow keys walk the graph, Enter selects; ` +
      `+ and - zoom, 0 fits, arrow keys on the view pan.`;
  }

  _measure() {
    const ctx = (this._mctx ??= document.createElement('canvas').getContext('2d'));
    const font = this._var('--font') || 'sans-serif';
    const mono = this._var('--mono') || 'monospace';
    // Grouped by font: setting ctx.font parses a CSS font, so it is set once per font.
    const fonts = new Map();
    const want = (f, text) => {
      let m = fonts.get(f);
      if (!m) fonts.set(f, (m = new Map()));
      m.set(text, 0);
    };
    const fTitle = `600 12px ${font}`, fName = `10px ${font}`, fSubMono = `10px ${mono}`, fKey = `600 10px ${mono}`, fVal = `10px ${mono}`;
    for (const b of this._boxes) {
      want(fTitle, b.title);
      if (b.sub) want(b.kind === 'node' ? fName : fSubMono, b.sub);
      for (const r of b.rows) { want(fKey, r.k); want(fVal, r.v); }
    }
    const fEdge = `9px ${mono}`;
    if (this._options.rankdir === 'LR') for (const e of this._edges) want(fEdge, e.label);
    for (const [f, m] of fonts) {
      ctx.font = f;
      for (const text of m.keys()) m.set(text, ctx.measureText(text).width);
    }
    const width = (f, text) => fonts.get(f).get(text);
    for (const b of this._boxes) {
      let w = width(fTitle, b.title);
      if (b.sub) w = Math.max(w, width(b.kind === 'node' ? fName : fSubMono, b.sub));
      for (const r of b.rows) w = Math.max(w, width(fKey, r.k) + 6 + width(fVal, r.v));
      b.width = Math.ceil(Math.max(56, w + 20));
      b.height = 8 + 15 + (b.sub ? 13 : 0) + (b.rows.length ? 4 + b.rows.length * 13 : 0) + 6;
    }
    if (this._options.rankdir === 'LR') for (const e of this._edges) e.labelWidth = Math.ceil(width(fEdge, e.label));
  }

  // ---------------------------------------------------------------- layout (worker)

  _layout(req) {
    return new Promise((resolve, reject) => {
      const id = ++this._reqId;
      let worker;
      try {
        worker = this._ensureWorker();
      } catch (e) {
        reject(e);
        return;
      }
      const done = () => { this._pending = null; };
      this._pending = {
        id,
        resolve: (v) => { done(); resolve(v); },
        reject: (e) => { done(); reject(e); },
      };
      worker.postMessage({ id, ...req });
    });
  }

  _ensureWorker() {
    if (this._worker) return this._worker;
    const w = new Worker(this._workerUrl, { type: 'module', name: 'graph-layout' });
    w.onmessage = (ev) => {
      const m = ev.data;
      if (!this._pending || m.id !== this._pending.id) return;
      if (m.error) this._pending.reject(new Error(`graph layout failed: ${m.error}`));
      else this._pending.resolve(m);
    };
    w.onerror = (ev) => {
      ev.preventDefault?.();
      const p = this._pending;
      this._worker?.terminate();
      this._worker = null;
      p?.reject(new Error(`the graph layout worker failed: ${ev.message || 'could not load ' + this.layoutWorkerUrl}`));
    };
    this._worker = w;
    return w;
  }

  _abort(error) {
    const p = this._pending;
    this._token = null;
    if (p) {
      // dagre cannot be interrupted: the worker goes, a new one is made for the next layout.
      this._worker?.terminate();
      this._worker = null;
      p.reject(error);
      if (!this._disposed) this._prewarm();
    }
    this._abortError = error;
    this._hideOverlay();
  }

  _check(token) {
    if (this._token !== token) throw this._abortError ?? abortError();
  }

  // ---------------------------------------------------------------- drawing

  _clear() {
    this._edgesG.textContent = '';
    this._nodesG.textContent = '';
    this._drawn = false;
    this._selected = null;
    this._roving = null;
    this._highlighted.clear();
    this._minimap.hidden = true;
    this._empty.hidden = true;
    this._canvasMode = false;
    this.container.classList.remove('gv-canvas-mode', 'gv-far');
    this._farCanvas.hidden = true;
    this._size = { width: 0, height: 0 };
  }

  _showEmpty(text) {
    this._empty.textContent = text;
    this._empty.hidden = false;
  }

  _showOverlay(text, withCancel) {
    this._overlayText.textContent = text;
    this._cancelBtn.hidden = !withCancel;
    this._overlay.hidden = false;
  }

  _hideOverlay() {
    this._overlay.hidden = true;
    this._cancelBtn.hidden = true;
  }

  /// A box's markup. A culled box is an empty shell (its testid, name and ARIA attributes, no
  /// content) that _reveal fills the first time it comes into view.
  _boxSvg(b, culled, extraClass = '') {
    const cls = `gv-node gv-k-${b.kind}${this._boxClasses(b)}${culled ? ' gv-cull' : ''}${extraClass}`;
    let attrs = b.kind === 'node' ? '' : ` data-kind="${b.kind}"`;
    if (b.unsupported) attrs += ' data-unsupported="true"';
    if (b.outer) attrs += ' data-outer="true"';
    if (b.node?.subgraphs?.length) attrs += ` data-bodies="${b.node.subgraphs.length}"`;
    b.filled = !culled;
    return `<g class="${cls}" data-testid="graph-node" data-node-name="${esc(b.name)}"${attrs} role="button" tabindex="-1" aria-label="${esc(b.aria)}" transform="translate(${r1(b.x)},${r1(b.y)})">` +
      (culled ? '' : this._boxInner(b)) + '</g>';
  }

  _boxClasses(b) {
    return (b.unsupported ? ' gv-unsupported' : '') + (b.outer ? ' gv-outer' : '');
  }

  _boxInner(b) {
    const w = b.width, h = b.height, cx = r1(w / 2);
    const tip = b.kind === 'node' ? `${b.node.opType} ${b.name}${b.unsupported ? ` (${b.node.domain || 'ai.onnx'}): ${UNSUPPORTED}` : ''}` : b.aria;
    let s = `<title>${esc(tip)}</title>`;
    s += `<rect class="gv-box" width="${w}" height="${h}" rx="5"/>`;
    let y = 8 + 11;
    s += `<text class="gv-op" x="${cx}" y="${y}" text-anchor="middle">${esc(b.title)}</text>`;
    if (b.sub) {
      y += 13;
      s += `<text class="gv-name" x="${cx}" y="${y}" text-anchor="middle">${esc(b.sub)}</text>`;
    }
    if (b.rows.length) {
      const top = y + 6;
      s += `<rect class="gv-wbg" x="0.5" y="${top}" width="${w - 1}" height="${h - top - 3}"/>`;
      s += `<line class="gv-sep" x1="0" x2="${w}" y1="${top}" y2="${top}"/>`;
      y = top;
      for (const r of b.rows) {
        y += 13;
        s += `<text class="gv-row" x="8" y="${y - 2}"><tspan class="gv-row-k">${esc(r.k)}</tspan> ${esc(r.v)}</text>`;
      }
    }
    return s;
  }

  _edgePath(p) {
    const n = p.length / 2;
    if (n < 2) return '';
    let d = `M${r1(p[0])},${r1(p[1])}`;
    if (n === 2) return d + `L${r1(p[2])},${r1(p[3])}`;
    for (let i = 1; i < n - 1; i++) {
      const mx = (p[2 * i] + p[2 * i + 2]) / 2, my = (p[2 * i + 1] + p[2 * i + 3]) / 2;
      d += i === n - 2
        ? `Q${r1(p[2 * i])},${r1(p[2 * i + 1])} ${r1(p[2 * i + 2])},${r1(p[2 * i + 3])}`
        : `Q${r1(p[2 * i])},${r1(p[2 * i + 1])} ${r1(mx)},${r1(my)}`;
    }
    return d;
  }

  /// The point halfway along a polyline, or at most `max` from its start (so the label of a long
  /// skip edge stays next to its source instead of behind the boxes it passes).
  _midpoint(p, max = 30) {
    const n = p.length / 2;
    let total = 0;
    for (let i = 1; i < n; i++) total += Math.hypot(p[2 * i] - p[2 * i - 2], p[2 * i + 1] - p[2 * i - 1]);
    let half = Math.min(total / 2, max);
    for (let i = 1; i < n; i++) {
      const seg = Math.hypot(p[2 * i] - p[2 * i - 2], p[2 * i + 1] - p[2 * i - 1]);
      if (half <= seg && seg > 0) {
        const f = half / seg;
        return { x: p[2 * i - 2] + f * (p[2 * i] - p[2 * i - 2]), y: p[2 * i - 1] + f * (p[2 * i + 1] - p[2 * i - 1]) };
      }
      half -= seg;
    }
    return { x: p[0] ?? 0, y: p[1] ?? 0 };
  }

  _edgeSvg(e, culled) {
    e.filled = !culled;
    return `<g class="gv-edge${e.implicit ? ' gv-implicit' : ''}${culled ? ' gv-cull' : ''}" data-tensor="${esc(e.tensor)}" data-from="${esc(this._boxes[e.from].name)}" data-to="${esc(this._boxes[e.to].name)}">` +
      (culled ? '' : this._edgeInner(e)) + '</g>';
  }

  _edgeInner(e) {
    const p = e.points;
    const m = this._midpoint(p);
    const path = `<path class="gv-edge-path" d="${this._edgePath(p)}" marker-end="url(#gv-arrow-${this._uid})"/>`;
    if (this._options.rankdir === 'LR') {  // left to right: the label above the edge, where dagre made room
      const at = e.labelAt ?? m;
      return path + `<text class="gv-edge-label" x="${r1(at.x)}" y="${r1(at.y - 4)}" text-anchor="middle">${esc(e.label)}</text>`;
    }
    // Labels go outwards: for edges that converge on a box, away from that box's centre line;
    // otherwise away from the source's (so diverging edges' labels do not overlap in between).
    const src = this._boxes[e.from], dst = this._boxes[e.to];
    const ref = dst.preds.length > 1 && src.succs.length <= 1 ? dst : src;
    const left = m.x < ref.x + ref.width / 2 - 2;
    return path +
      `<text class="gv-edge-label" x="${r1(left ? m.x - 5 : m.x + 5)}" y="${r1(m.y + 3)}"${left ? ' text-anchor="end"' : ''}>${esc(e.label)}</text>`;
  }

  /// Shows a culled box or edge, filling a shell on its first showing.
  _reveal(item, isEdge) {
    if (!item.filled) {
      item.el.insertAdjacentHTML('beforeend', isEdge ? this._edgeInner(item) : this._boxInner(item));
      item.filled = true;
    }
    item.culled = false;
    item.el.classList.remove('gv-cull');
  }

  async _draw(token) {
    const cullOn = this._boxes.length > CULL_MIN_BOXES;
    const vis = this._visibleRect();
    for (const e of this._edges) {
      const p = e.points;
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let i = 0; i < p.length; i += 2) {
        x0 = Math.min(x0, p[i]); x1 = Math.max(x1, p[i]);
        y0 = Math.min(y0, p[i + 1]); y1 = Math.max(y1, p[i + 1]);
      }
      e.bbox = { x0: x0 - 120, y0, x1: x1 + 120, y1 };  // + room for the label
    }
    // Inserted into the live document chunk by chunk: building detached and attaching at once
    // measured one 1.1 s task for 2,000 nodes; chunks keep every task short.
    const nodesG = this._nodesG, edgesG = this._edgesG;
    const jobs = [
      [this._boxes, nodesG, (b) => this._boxSvg(b, cullOn && !this._boxVisible(b, vis)), (b, el) => { b.el = el; b.culled = !b.filled; }],
      [this._edges, edgesG, (e) => this._edgeSvg(e, cullOn && !this._edgeVisible(e, vis)), (e, el) => { e.el = el; e.culled = !e.filled; }],
    ];
    for (const [items, parent, html, bind] of jobs) {
      let i = 0;
      while (i < items.length) {
        const start = performance.now();
        const first = i;
        let s = '';
        while (i < items.length && (i - first < 50 || performance.now() - start < DRAW_BUDGET_MS / 2)) {
          s += html(items[i++]);
          if (i - first >= 400) break;
        }
        const base = parent.childElementCount;
        parent.insertAdjacentHTML('beforeend', s);
        const kids = parent.children;
        for (let j = first; j < i; j++) bind(items[j], kids[base + j - first]);
        if (i < items.length) {
          await yieldTask();
          this._check(token);
        }
      }
    }
    this._drawn = true;
    this._setRoving(this._boxes[0]);
  }

  // ---------------------------------------------------------------- view transform, culling, LOD

  _viewSize() {
    const r = this.container.getBoundingClientRect();
    return { width: r.width || 800, height: r.height || 600 };
  }

  _setInitialView() {
    const { width: W, height: H } = this._viewSize();
    const { width, height } = this._size;
    const fitK = Math.min(W / width, H / height, 2) * 0.96;
    if (fitK >= LEGIBLE_SCALE) {
      this._t = { k: fitK, x: (W - width * fitK) / 2, y: (H - height * fitK) / 2 };
    } else if (this._options.rankdir === 'LR') {
      // Left to right: the same, at the left end.
      const k = Math.max(LEGIBLE_SCALE, Math.min(1, (H / height) * 0.96));
      const first = this._boxes[0];
      const cy = height * k <= H ? height / 2 : first.y + first.height / 2;
      this._t = { k, x: 16 - Math.max(0, first.x - 16) * k, y: H / 2 - cy * k };
    } else {
      // A graph that fits only with text too small to read: start legible (as Netron opens at
      // 100 %), at the top, centred on the first box; Fit shows the whole graph.
      const k = Math.max(LEGIBLE_SCALE, Math.min(1, (W / width) * 0.96));
      const first = this._boxes[0];
      const cx = width * k <= W ? width / 2 : first.x + first.width / 2;
      this._t = { k, x: W / 2 - cx * k, y: 16 - Math.max(0, first.y - 16) * k };
    }
    this._viewport.setAttribute('transform', this._transformAttr());
    this.container.classList.toggle('gv-far', this._t.k < FAR_SCALE);
  }

  _transformAttr() {
    const { x, y, k } = this._t;
    return `translate(${x.toFixed(2)},${y.toFixed(2)}) scale(${k.toFixed(5)})`;
  }

  _visibleRect() {
    const { width: W, height: H } = this._viewSize();
    const { x, y, k } = this._t;
    const mx = W * 0.5, my = H * 0.5;  // a margin of half a view on each side
    return { x0: (-x - mx) / k, y0: (-y - my) / k, x1: (W - x + mx) / k, y1: (H - y + my) / k };
  }

  _boxVisible(b, v) {
    return b.x + b.width >= v.x0 && b.x <= v.x1 && b.y + b.height >= v.y0 && b.y <= v.y1;
  }

  _edgeVisible(e, v) {
    const bb = e.bbox;
    return bb.x1 >= v.x0 && bb.x0 <= v.x1 && bb.y1 >= v.y0 && bb.y0 <= v.y1;
  }

  _applyTransform() {
    this._viewport.setAttribute('transform', this._transformAttr());
    const far = this._t.k < FAR_SCALE;
    this.container.classList.toggle('gv-far', far);
    const big = this._drawn && this._boxes.length > CULL_MIN_BOXES;
    // A large graph zoomed far out is painted on a canvas (level of detail): boxes and edges
    // without text, redrawn in a few milliseconds, while the SVG (every element still there)
    // is hidden. Zooming back in culls first, then shows the SVG again.
    const canvasMode = big && far;
    if (canvasMode) {
      this._renderCanvas();
    } else if (big) {
      this._cull();
    }
    if (canvasMode !== !!this._canvasMode) {
      this._canvasMode = canvasMode;
      this.container.classList.toggle('gv-canvas-mode', canvasMode);
      this._farCanvas.hidden = !canvasMode;
    }
    this._drawMinimapView();
  }

  _colors() {
    const v = (n, d) => this._var(n) || d;
    return {
      fill: v('--node-fill', '#eef2f8'), stroke: v('--node-stroke', '#8d99ae'), io: v('--node-io', '#e3f4e8'),
      edge: v('--edge', '#8a93a3'), selected: v('--node-selected', '#2463eb'), highlight: v('--node-highlight', '#ffb300'),
      danger: v('--danger', '#c62828'),
    };
  }

  _renderCanvas() {
    const c = this._farCanvas;
    const { width: W, height: H } = this._viewSize();
    const dpr = window.devicePixelRatio || 1;
    const cw = Math.round(W * dpr), ch = Math.round(H * dpr);
    if (c.width !== cw || c.height !== ch) { c.width = cw; c.height = ch; }
    const ctx = c.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, cw, ch);
    const { x, y, k } = this._t;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * x, dpr * y);
    const col = this._colors();
    const v = this._visibleRect();
    const px = 1 / k;  // one CSS pixel in graph units
    ctx.lineWidth = px;
    ctx.strokeStyle = col.edge;
    ctx.beginPath();
    for (const e of this._edges) {
      if (!this._edgeVisible(e, v)) continue;
      const p = e.points;
      if (p.length < 4) continue;
      ctx.moveTo(p[0], p[1]);
      for (let i = 2; i < p.length; i += 2) ctx.lineTo(p[i], p[i + 1]);
    }
    ctx.stroke();
    const rects = (list, fill) => {
      ctx.fillStyle = fill;
      for (const b of list) ctx.fillRect(b.x, b.y, Math.max(b.width, px), Math.max(b.height, px));
    };
    const visible = this._boxes.filter((b) => this._boxVisible(b, v));
    rects(visible.filter((b) => b.kind === 'node'), col.fill);
    rects(visible.filter((b) => b.kind !== 'node'), col.io);
    ctx.strokeStyle = col.stroke;
    ctx.beginPath();
    for (const b of visible) ctx.rect(b.x, b.y, b.width, b.height);
    ctx.stroke();
    const outline = (keys, color, w) => {
      ctx.strokeStyle = color;
      ctx.lineWidth = w * px;
      for (const key of keys) {
        const b = this._byKey.get(key);
        if (b) ctx.strokeRect(b.x - w * px, b.y - w * px, b.width + 2 * w * px, b.height + 2 * w * px);
      }
    };
    outline(this._boxes.filter((b) => b.unsupported && this._boxVisible(b, v)).map((b) => b.key), col.danger, 2);
    outline(this._highlighted, col.highlight, 3);
    if (this._selected) outline([this._selected], col.selected, 3);
  }

  /// The box under a screen point (for the canvas mode, where the SVG is hidden).
  _boxAt(clientX, clientY) {
    const r = this.container.getBoundingClientRect();
    const { x, y, k } = this._t;
    const gx = (clientX - r.left - x) / k, gy = (clientY - r.top - y) / k;
    const tol = 3 / k;
    let best = null, bestD = Infinity;
    for (const b of this._boxes) {
      const dx = Math.max(b.x - gx, 0, gx - (b.x + b.width)), dy = Math.max(b.y - gy, 0, gy - (b.y + b.height));
      const d = Math.hypot(dx, dy);
      if (d <= tol && d < bestD) { best = b; bestD = d; }
    }
    return best;
  }

  _cull() {
    const v = this._visibleRect();
    for (const b of this._boxes) {
      const hide = !this._boxVisible(b, v) && b.key !== this._roving && b.key !== this._selected;
      if (hide === b.culled) continue;
      if (hide) { b.culled = true; b.el.classList.add('gv-cull'); } else this._reveal(b, false);
    }
    for (const e of this._edges) {
      const hide = !this._edgeVisible(e, v);
      if (hide === e.culled) continue;
      if (hide) { e.culled = true; e.el.classList.add('gv-cull'); } else this._reveal(e, true);
    }
  }

  _onResize() {
    if (this._drawn) this._applyTransform();
  }

  _centerOn(b, { zoomIn = false } = {}) {
    const { width: W, height: H } = this._viewSize();
    const k = zoomIn && this._t.k < 0.6 ? 1 : this._t.k;
    this._t = { k, x: W / 2 - (b.x + b.width / 2) * k, y: H / 2 - (b.y + b.height / 2) * k };
    this._applyTransform();
  }

  _ensureVisible(b) {
    const { width: W, height: H } = this._viewSize();
    const { x, y, k } = this._t;
    const sx = b.x * k + x, sy = b.y * k + y;
    if (sx < 0 || sy < 0 || sx + b.width * k > W || sy + b.height * k > H || k < FAR_SCALE) this._centerOn(b, { zoomIn: true });
  }

  // ---------------------------------------------------------------- selection and focus

  _find(name) {
    return this._byKey.get('n:' + name) ?? this._byKey.get('i:' + name) ?? this._byKey.get('o:' + name) ?? null;
  }

  _select(box, { center = false, notify = true } = {}) {
    if (this._selected) {
      const old = this._byKey.get(this._selected);
      old?.el?.classList.remove('gv-selected');
      old?.el?.removeAttribute('aria-pressed');
      for (const i of old?.edges ?? []) this._edges[i].el?.classList.remove('gv-adj');
    }
    this._selected = box ? box.key : null;
    if (box?.el) {
      box.el.classList.add('gv-selected');
      box.el.setAttribute('aria-pressed', 'true');
      for (const i of box.edges) this._edges[i].el?.classList.add('gv-adj');
      this._setRoving(box);
      if (center) this._centerOn(box, { zoomIn: true });
    }
    if (this._canvasMode) this._renderCanvas();
    if (notify) this.onSelectNode(box ? box.name : null, box ? { kind: box.kind, opType: box.node?.opType } : null);
  }

  _setRoving(box) {
    if (!box?.el) return;
    if (this._roving) {
      const old = this._byKey.get(this._roving);
      if (old?.el) old.el.tabIndex = -1;
    }
    this._roving = box.key;
    box.el.tabIndex = 0;
    if (box.culled) this._reveal(box, false);
  }

  _focusBox(box) {
    if (!box?.el) return;
    this._setRoving(box);
    this._ensureVisible(box);
    box.el.focus({ preventScroll: true });
  }

  /// Arrow-key navigation from a box: up = an input's producer, down = a consumer, left / right
  /// = the nearest box on about the same row (left to right: left / right along the data, up /
  /// down across it).
  _neighbour(b, key) {
    if (this._options.rankdir === 'LR') {
      const along = { ArrowLeft: 'ArrowUp', ArrowRight: 'ArrowDown', ArrowUp: 'ArrowLeft', ArrowDown: 'ArrowRight' };
      key = along[key] ?? key;
      if (key === 'ArrowLeft' || key === 'ArrowRight') return this._across(b, key === 'ArrowLeft' ? -1 : 1, 'y');
    }
    const cx = b.x + b.width / 2, cy = b.y + b.height / 2;
    const nearest = (list) => list.reduce((best, o) => {
      const d = this._options.rankdir === 'LR' ? Math.abs(o.y + o.height / 2 - cy) : Math.abs(o.x + o.width / 2 - cx);
      return !best || d < best.d ? { o, d } : best;
    }, null)?.o ?? null;
    if (key === 'ArrowUp') return nearest(b.preds);
    if (key === 'ArrowDown') return nearest(b.succs);
    return this._across(b, key === 'ArrowLeft' ? -1 : 1, 'x');
  }

  /// The nearest box in direction `dir` along axis `axis` ('x': same row, 'y': same column).
  _across(b, dir, axis) {
    const cx = b.x + b.width / 2, cy = b.y + b.height / 2;
    let best = null, bestD = Infinity;
    for (const o of this._boxes) {
      if (o === b) continue;
      const ox = o.x + o.width / 2, oy = o.y + o.height / 2;
      const [along, across] = axis === 'x' ? [ox - cx, oy - cy] : [oy - cy, ox - cx];
      if (along * dir <= 0) continue;
      const d = along * dir + Math.abs(across) * 4;
      if (d < bestD) { bestD = d; best = o; }
    }
    return best;
  }

  // ---------------------------------------------------------------- input

  _listen() {
    this._listeners = [];
    const on = (type, fn, opts, target) => {
      (target ?? this.container).addEventListener(type, fn, opts);
      this._listeners.push([type, fn, target]);
    };
    const pointers = new Map();
    let drag = null;      // {x, y, tx, ty, moved, target}
    let pinch = null;     // {d, k}
    on('pointerdown', (e) => {
      if (e.target.closest('.gv-minimap, .gv-controls, .gv-overlay')) return;
      if (e.button !== 0 && e.pointerType === 'mouse') return;
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      this.container.setPointerCapture?.(e.pointerId);
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) || 1 };
        drag = null;
      } else {
        drag = { x: e.clientX, y: e.clientY, moved: false, target: e.target };
      }
    });
    on('pointermove', (e) => {
      if (!pointers.has(e.pointerId)) return;
      const prev = pointers.get(e.pointerId);
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (pinch && pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
        const r = this.container.getBoundingClientRect();
        this.zoomBy(d / pinch.d, (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
        pinch.d = d;
        return;
      }
      if (!drag) return;
      if (!drag.moved && Math.hypot(e.clientX - drag.x, e.clientY - drag.y) > 4) {
        drag.moved = true;
        this.container.classList.add('gv-panning');
      }
      if (drag.moved) this.panBy(e.clientX - prev.x, e.clientY - prev.y);
    });
    const up = (e) => {
      if (!pointers.has(e.pointerId)) return;
      pointers.delete(e.pointerId);
      if (pointers.size < 2) pinch = null;
      if (drag && pointers.size === 0) {
        const d = drag;
        drag = null;
        this.container.classList.remove('gv-panning');
        if (!d.moved && e.type === 'pointerup') {
          const g = this._canvasMode ? null : d.target.closest?.('.gv-node');
          const box = g ? this._byKey.get(this._keyOf(g)) : this._canvasMode ? this._boxAt(e.clientX, e.clientY) : null;
          this._select(box, { center: false, notify: true });
          if (box) {
            this._pointerFocus = true;
            box.el.focus({ preventScroll: true });
            this._pointerFocus = false;
          }
          else this.container.focus({ preventScroll: true });
        }
      }
    };
    on('pointerup', up);
    on('pointercancel', up);
    on('wheel', (e) => {
      if (!this._drawn) return;
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const dy = e.deltaY * unit;
      const f = Math.exp(-dy * (e.ctrlKey ? 0.01 : 0.0018));
      const r = this.container.getBoundingClientRect();
      this.zoomBy(f, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    on('keydown', (e) => this._onKey(e));
    // A node with bodies (If, Loop, Scan): double-click opens one (onOpenNode).
    on('dblclick', (e) => {
      // By position: the pointer capture of a click retargets the dblclick to the container.
      const box = this._drawn ? this._boxAt(e.clientX, e.clientY) : null;
      if (box?.node?.subgraphs?.length) {
        e.preventDefault();
        this.onOpenNode(box.name, box.node);
      }
    });
    on('focusin', (e) => {
      const g = e.target.closest?.('.gv-node');
      if (!g) return;
      const b = this._byKey.get(this._keyOf(g));
      if (b && b.key !== this._roving) this._setRoving(b);
      if (b && !this._pointerFocus) this._ensureVisible(b);
    });
    // The minimap: click or drag centres the view there.
    let mmDrag = false;
    const mmMove = (e) => {
      const m = this._mm;
      if (!m) return;
      const r = this._minimap.getBoundingClientRect();
      const gx = (e.clientX - r.left - m.ox) / m.s, gy = (e.clientY - r.top - m.oy) / m.s;
      const { width: W, height: H } = this._viewSize();
      this._t = { ...this._t, x: W / 2 - gx * this._t.k, y: H / 2 - gy * this._t.k };
      this._applyTransform();
    };
    on('pointerdown', (e) => {
      e.stopPropagation();
      mmDrag = true;
      this._minimap.setPointerCapture?.(e.pointerId);
      mmMove(e);
    }, undefined, this._minimap);
    on('pointermove', (e) => { if (mmDrag) mmMove(e); }, undefined, this._minimap);
    on('pointerup', () => { mmDrag = false; }, undefined, this._minimap);
  }

  _keyOf(g) {
    const kind = g.dataset.kind;
    return (kind === 'input' ? 'i:' : kind === 'output' ? 'o:' : 'n:') + g.dataset.nodeName;
  }

  _onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest?.('button')) return;
    const g = e.target.closest?.('.gv-node');
    const box = g ? this._byKey.get(this._keyOf(g)) : null;
    const k = e.key;
    // In the canvas mode the SVG is hidden, so Tab would skip the boxes: bring the tab stop in.
    if (k === 'Tab' && !e.shiftKey && !box && this._canvasMode && this._roving && e.target === this.container) {
      e.preventDefault();
      this._focusBox(this._byKey.get(this._roving));
      return;
    }
    let handled = true;
    if (k === '+' || k === '=') this.zoomBy(1.25);
    else if (k === '-' || k === '_') this.zoomBy(0.8);
    else if (k === '0' || k === 'f' || k === 'F') this.fit();
    else if (box && (k === 'Enter' || k === ' ')) this._select(box, { center: false, notify: true });
    else if (k === 'Escape') this._select(null, { notify: true });
    else if (box && k.startsWith('Arrow')) this._focusBox(this._neighbour(box, k) ?? box);
    else if (!box && k.startsWith('Arrow')) {
      const step = e.shiftKey ? 240 : 60;
      this.panBy(k === 'ArrowLeft' ? step : k === 'ArrowRight' ? -step : 0, k === 'ArrowUp' ? step : k === 'ArrowDown' ? -step : 0);
    } else handled = false;
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  }

  // ---------------------------------------------------------------- minimap

  _drawMinimapBase() {
    if (!this._drawn || this._minimap.hidden) return;
    const { width, height } = this._size;
    const maxW = 180, maxH = 220, minSide = 56;
    const s = Math.min(maxW / width, maxH / height);
    const cw = Math.max(minSide, Math.ceil(width * s)), ch = Math.max(minSide, Math.ceil(height * s));
    const dpr = window.devicePixelRatio || 1;
    const c = this._minimap;
    c.style.width = cw + 'px';
    c.style.height = ch + 'px';
    c.width = Math.round(cw * dpr);
    c.height = Math.round(ch * dpr);
    const base = document.createElement('canvas');
    base.width = c.width;
    base.height = c.height;
    const ctx = base.getContext('2d');
    ctx.scale(dpr, dpr);
    const ox = (cw - width * s) / 2, oy = (ch - height * s) / 2;
    ctx.fillStyle = this._var('--bg') || '#fff';
    ctx.fillRect(0, 0, cw, ch);
    ctx.fillStyle = this._var('--node-stroke') || '#888';
    for (const b of this._boxes) {
      ctx.fillRect(ox + b.x * s, oy + b.y * s, Math.max(1, b.width * s), Math.max(1, b.height * s));
    }
    this._mm = { s, ox, oy, base, cw, ch, dpr, accent: this._var('--accent') || '#2463eb' };
    this._drawMinimapView();
  }

  _drawMinimapView() {
    const m = this._mm;
    if (!m || this._minimap.hidden) return;
    const ctx = this._minimap.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this._minimap.width, this._minimap.height);
    ctx.drawImage(m.base, 0, 0);
    ctx.setTransform(m.dpr, 0, 0, m.dpr, 0, 0);
    const { width: W, height: H } = this._viewSize();
    const { x, y, k } = this._t;
    const gx = -x / k, gy = -y / k, gw = W / k, gh = H / k;
    let rx = m.ox + gx * m.s, ry = m.oy + gy * m.s, rw = gw * m.s, rh = gh * m.s;
    // Keep a visible handle even when the view is tiny or partly outside.
    if (rw < 4) { rx -= (4 - rw) / 2; rw = 4; }
    if (rh < 4) { ry -= (4 - rh) / 2; rh = 4; }
    ctx.strokeStyle = m.accent;
    ctx.lineWidth = 1.5;
    ctx.globalAlpha = 0.18;
    ctx.fillStyle = m.accent;
    ctx.fillRect(rx, ry, rw, rh);
    ctx.globalAlpha = 1;
    ctx.strokeRect(rx + 0.5, ry + 0.5, rw - 1, rh - 1);
  }

  // ---------------------------------------------------------------- styles

  _var(name) {
    return getComputedStyle(this.container).getPropertyValue(name).trim();
  }

  /// The `.gv-svg` rules of the page's style sheets, with var(--x) replaced by their values here.
  _exportCss() {
    const cs = getComputedStyle(this.container);
    const resolve = (text) => {
      for (let i = 0; i < 4 && text.includes('var('); i++) {
        text = text.replace(/var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*(?:\([^()]*\))?[^()]*))?\)/g, (_, n, fb) => cs.getPropertyValue(n).trim().replace(/\s+/g, ' ') || (fb ?? '').trim());
      }
      return text;
    };
    const rules = [];
    const walk = (list) => {
      for (const r of list) {
        if (r.selectorText) {
          const sels = r.selectorText.split(',').map((s) => s.trim());
          if (sels.every((s) => s.startsWith('.gv-svg ')) && !/:focus|:hover/.test(r.selectorText)) rules.push(resolve(r.cssText));
        }
      }
    };
    for (const sheet of document.styleSheets) {
      try { walk(sheet.cssRules); } catch { /* a cross-origin sheet */ }
    }
    return rules.join('\n');
  }
}
