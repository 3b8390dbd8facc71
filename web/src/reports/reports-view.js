// The reports views: the IPU model's summary, per-tile memory, tile heat grid, operations,
// liveness and execution, the CPU device's measured host time per op, and two reports side by
// side. One entry point, ReportsView; the data is the core's report documents as they are
// (docs/ipu-model.md "Report schema"). API and field use: web/src/reports/README.md.
import {
  CATEGORIES, CATEGORY_LABELS, opRows, groupRows, liveness, tensorsOnTile, tileMemory, executionSplit,
  hostTimesFromSummary, memoryInsight, makeGrouper, tileLiveness, tileTensorsAt, isAlwaysLive, stepOfId, replicaLayout,
  fmtInt, fmtBytes, fmtShort, fmtSeconds,
} from './model.js';
import { timeline, programTree, runShape } from './schedule.js';
import { timelineChart, TIMELINE_COLORS } from './timeline.js';
import { ProgramTree } from './program-tree.js';
import { el } from './dom.js';
import { CanvasChart, attachRangeZoom, byteTicks, niceTicks, withAlpha } from './charts.js';

export { hostTimesFromSummary, opRows, groupRows, liveness, tensorsOnTile, executionSplit, tileLiveness, replicaLayout } from './model.js';
export { timeline, programTree } from './schedule.js';

const CATEGORY_COLORS = {
  variables: '--chart-1', constants: '--chart-6', activations: '--chart-3', code: '--chart-4',
  vertexState: '--chart-5', exchange: '--chart-2',
};
const SPLIT_COLORS = { compute: '--chart-1', exchange: '--chart-2', sync: '--chart-5', other: '--chart-4' };
const ROW_CAP = 150;
let instances = 0;

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/// A <details> holding a data table: every chart's table alternative.
function dataTable(summary, headers, makeRows, { cap = 0, testid } = {}) {
  const d = el('details', { class: 'rv-data', 'data-testid': testid });
  d.append(el('summary', { text: summary }));
  const build = () => {
    if (d.dataset.built) return;
    d.dataset.built = '1';
    const rows = typeof makeRows === 'function' ? makeRows() : makeRows;
    const table = el('table', { class: 'rv-table' });
    table.append(el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col', text: h })))));
    const tb = el('tbody');
    const cell = (v, i) => {
      if (!i) return el('th', { scope: 'row', text: String(v) });
      const num = typeof v === 'number' || /^[-+]?[0-9][0-9.,]*( |%|$)/.test(String(v));
      return el('td', { class: num ? 'num' : '', text: String(v) });
    };
    const fill = (n) => tb.replaceChildren(...rows.slice(0, n).map((r) => el('tr', {}, r.map(cell))));
    fill(cap && rows.length > cap ? cap : rows.length);
    table.append(tb);
    d.append(table);
    if (cap && rows.length > cap) {
      const more = el('button', { type: 'button', class: 'rv-more', text: `Show all ${rows.length} rows` });
      more.addEventListener('click', () => { fill(rows.length); more.remove(); });
      d.append(more);
    }
  };
  d.addEventListener('toggle', build);
  return d;
}

/// A liveness area chart (the whole IPU's or one tile's): always live under the rest when `inc`,
/// the selected steps, the peak marker, the hovered step. L: liveness() or tileLiveness().
function drawLiveness(chart, ctx, g, L, { inc, yMax, selected = [] }) {
  const y = chart.yAxis(ctx, g, yMax, byteTicks(yMax, 5), fmtBytes);
  const w = g.width / Math.max(1, L.steps);
  const x = (i) => g.left + i * w;
  const area = (vals, color, alpha) => {
    ctx.beginPath();
    ctx.moveTo(x(0), y(0));
    for (let i = 0; i < L.steps; ++i) { ctx.lineTo(x(i), y(vals(i))); ctx.lineTo(x(i + 1), y(vals(i))); }
    ctx.lineTo(x(L.steps), y(0));
    ctx.closePath();
    ctx.fillStyle = withAlpha(chart.color(color), alpha);
    ctx.fill();
    ctx.beginPath();
    for (let i = 0; i < L.steps; ++i) { ctx[i ? 'lineTo' : 'moveTo'](x(i), y(vals(i))); ctx.lineTo(x(i + 1), y(vals(i))); }
    ctx.strokeStyle = chart.color(color);
    ctx.lineWidth = 1.5;
    ctx.stroke();
  };
  const base = inc ? L.always : 0;
  area((i) => L.notAlways[i] + base, '--chart-3', 0.35);
  if (inc) area(() => L.always, '--chart-4', 0.45);
  // The selected op's steps.
  ctx.fillStyle = withAlpha(chart.color('--focus'), 0.3);
  ctx.strokeStyle = chart.color('--focus');
  ctx.lineWidth = 2;
  for (const st of selected) {
    if (st >= L.steps) continue;
    ctx.fillRect(x(st), g.top, Math.max(w, 2), g.height);
    ctx.beginPath(); ctx.moveTo(x(st) + w / 2, g.top); ctx.lineTo(x(st) + w / 2, g.top + g.height); ctx.stroke();
  }
  // The peak.
  if (L.peakStep >= 0) {
    const px = x(L.peakStep) + w / 2, py = y(L.notAlways[L.peakStep] + base);
    ctx.fillStyle = chart.color('--danger');
    ctx.beginPath(); ctx.moveTo(px, py - 2); ctx.lineTo(px - 6, py - 11); ctx.lineTo(px + 6, py - 11); ctx.closePath(); ctx.fill();
    ctx.textAlign = px > g.left + g.width - 120 ? 'right' : 'left';
    ctx.fillText(inc ? `peak ${fmtBytes(L.peakBytes)} @ step ${L.peakStep}` : `peak ${fmtBytes(L.notAlways[L.peakStep])} not always live @ step ${L.peakStep}`, px + (ctx.textAlign === 'right' ? -8 : 8), Math.max(g.top + 8, py - 14));
    ctx.textAlign = 'left';
  }
  if (chart.hover >= 0) {
    ctx.strokeStyle = chart.color('--muted'); ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(x(chart.hover) + w / 2, g.top); ctx.lineTo(x(chart.hover) + w / 2, g.top + g.height); ctx.stroke();
  }
  chart.xAxis(ctx, g, L.steps, (i) => x(i) + w / 2, 'schedule step');
}

function prepare(report) {
  const r = { ...report };
  if (r.graph) {
    r.rows = opRows(r.graph);
    r.groups = groupRows(r.rows);
    r.live = liveness(r.graph);
    r.tiles = tileMemory(r.graph);
    r.split = executionSplit(r.graph);
    r.insight = memoryInsight(r.graph);
    r.replicas = replicaLayout(r.graph);
    r.timeline = timeline(r.graph, r.execution);
    r.program = programTree(r.graph, r.execution, r.rows);
  }
  if (!r.hostTimes && r.execution?.hostOps?.length) r.hostTimes = r.execution.hostOps;   // the core's CPU execution report
  if (!r.hostTimes && r.execution?.profilerMode === 'CPU') {
    const h = hostTimesFromSummary(r.summary);
    if (h.length) r.hostTimes = h;
  }
  return r;
}

export class ReportsView {
  constructor(container, { onSelectOp, onSelectTile } = {}) {
    this.id = `rv${++instances}`;
    this.container = container;
    this.cb = { onSelectOp, onSelectTile };
    this.slots = { A: null, B: null };
    this.tab = 'summary';
    this.grouped = false;
    this.sort = { key: 'step', dir: 1 };
    this.filter = '';
    this.showAll = false;
    this.selectedOp = null;       // { slot, steps: [..], name, node }
    this.selectedTile = { A: -1, B: -1 };
    this.tileZoom = { A: null, B: null };
    this.timeZoom = { A: null, B: null };
    this.replicaShown = { A: -1, B: -1 };   // the Memory tab's replica (-1: all)
    this.trees = [];
    this.tileLive = { A: null, B: null };   // the selected tile's liveness chart per slot
    this.charts = [];
    this.root = el('div', { class: 'rv', 'data-testid': 'reports-view' });
    container.append(this.root);
    this.themeObserver = new MutationObserver(() => this.#redrawCharts());
    this.themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class'] });
    this.mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    this.mqListener = () => this.#redrawCharts();
    this.mq?.addEventListener?.('change', this.mqListener);
    this.#render();
  }

  setReport(slot, report) {
    if (slot !== 'A' && slot !== 'B') throw new Error(`ReportsView.setReport: slot must be 'A' or 'B', got ${slot}`);
    this.slots[slot] = report ? prepare(report) : null;
    this.selectedTile[slot] = -1;
    this.tileZoom[slot] = null;
    this.timeZoom[slot] = null;
    this.replicaShown[slot] = -1;
    this.selectedOp = null;
    this.#render();
  }

  clear(slot) {
    if (slot === undefined) {
      this.slots = { A: null, B: null };
    } else {
      this.slots[slot] = null;
    }
    this.selectedOp = null;
    this.#render();
  }

  /// Marks the op (IR op name, an ONNX node name, or the op's id: a number) in the op table, the
  /// liveness chart, the timeline and the program tree, without calling onSelectOp. Returns
  /// whether it was found.
  highlightOp(opName) {
    const r = this.slots.A ?? this.slots.B;
    if (!r?.rows) return false;
    if (typeof opName === 'number') {
      const step = stepOfId(r.graph).get(opName);
      if (step === undefined) return false;
      opName = r.rows[step].name;
      this.selectedOp = { name: opName, node: r.rows[step].node, steps: [step] };
      this.#refreshSelection();
      return true;
    }
    const exact = r.rows.filter((x) => x.name === opName);
    const hits = exact.length ? exact : r.rows.filter((x) => x.node === opName);
    if (!hits.length) {
      this.selectedOp = null;
      this.#refreshSelection();
      return false;
    }
    this.selectedOp = { name: opName, node: hits[0].node, steps: hits.map((x) => x.step) };
    this.#refreshSelection();
    this.root.querySelector('tr.rv-selected')?.scrollIntoView?.({ block: 'nearest' });
    return true;
  }

  dispose() {
    for (const c of this.charts) c.dispose();
    this.charts = [];
    for (const t of this.trees) t.dispose();
    this.trees = [];
    this.themeObserver.disconnect();
    this.mq?.removeEventListener?.('change', this.mqListener);
    this.root.remove();
  }

  // ------------------------------------------------------------------ layout

  #present() {
    return ['A', 'B'].filter((s) => this.slots[s]);
  }

  #tabs() {
    const present = this.#present().map((s) => this.slots[s]);
    const tabs = [{ id: 'summary', label: 'Summary' }];
    // The IPU views only for a report of an IPU device (the CPU device's graph report has no
    // target type: its tiles, liveness and supersteps would be empty).
    if (present.some((r) => r.graph && r.graph.target?.type)) {
      tabs.push({ id: 'memory', label: 'Memory' }, { id: 'liveness', label: 'Liveness' },
                { id: 'operations', label: 'Operations' }, { id: 'program', label: 'Program' },
                { id: 'execution', label: 'Execution' }, { id: 'timeline', label: 'Timeline' });
    }
    if (present.some((r) => r.hostTimes?.length)) tabs.push({ id: 'host', label: 'Host time (CPU)' });
    return tabs;
  }

  #redrawCharts() {
    for (const c of this.charts) c.draw();
  }

  /// The not-always-live tensors at the selected op's (first) step, largest first.
  #stepTensors(box) {
    const r = this.slots[box.dataset.slot];
    const step = this.selectedOp?.steps?.[0];
    box.replaceChildren();
    if (!r?.graph || step === undefined || step >= r.live.steps) {
      box.dataset.step = '-1';
      box.append(el('p', { class: 'rv-muted rv-small', text: 'Select a step (click the chart, or an op in the Operations table) to list the tensors live there.' }));
      return;
    }
    box.dataset.step = String(step);
    const live = (r.graph.tensors ?? []).filter((t) => !t.view && t.kind !== 'variable' && t.kind !== 'constant' && t.liveFrom <= step && step <= t.liveTo)
      .sort((a, b) => b.bytes - a.bytes || (a.id < b.id ? -1 : 1));
    const sumBytes = live.reduce((a, t) => a + t.bytes, 0);
    const producer = this.#producerName(r);
    box.append(el('table', { class: 'rv-table' },
      el('caption', { text: `Step ${step} (${r.rows[step].name}): ${live.length} tensors not always live, ${fmtBytes(sumBytes)}` }),
      el('thead', {}, el('tr', {}, ['Tensor', 'Kind', producer ? 'Produced by' : null, 'Type', 'Shape', 'Bytes', 'Live (steps)'].filter(Boolean)
        .map((h, i, a) => el('th', { scope: 'col', class: i >= a.length - 2 ? 'num' : '', text: h })))),
      el('tbody', {}, live.slice(0, 100).map((t) => el('tr', { 'data-tensor': t.id },
        el('th', { scope: 'row', class: 'rv-name', title: t.id, text: t.id }), el('td', { text: t.kind }),
        producer ? el('td', { class: 'rv-name', text: producer(t) }) : null, el('td', { text: t.dtype }),
        el('td', { text: `[${(t.shape ?? []).join(', ')}]` }), el('td', { class: 'num', text: fmtInt(t.bytes) }),
        el('td', { class: 'num', text: `${t.liveFrom}–${t.liveTo}` }))))));
  }

  #render() {
    for (const c of this.charts) c.dispose();
    this.charts = [];
    for (const t of this.trees) t.dispose();
    this.trees = [];
    this.tileLive = { A: null, B: null };
    this.root.replaceChildren();
    const present = this.#present();
    this.root.classList.toggle('rv-compare', present.length === 2);
    if (!present.length) {
      this.root.append(el('p', { class: 'rv-empty', text: 'No report yet. Prepare a session on an IPU model device (or the CPU device with profiling on) to see where memory and cycles go.' }));
      return;
    }
    const tabs = this.#tabs();
    if (!tabs.some((t) => t.id === this.tab)) this.tab = tabs[0].id;

    const header = el('div', { class: 'rv-header' });
    for (const s of present) {
      const r = this.slots[s];
      const t = r.graph?.target;
      header.append(el('div', { class: 'rv-slot-head', 'data-slot': s },
        present.length === 2 ? el('span', { class: `rv-badge rv-badge-${s}`, text: s }) : null,
        el('strong', { text: r.label ?? `Report ${s}` }),
        t ? el('span', { class: 'rv-muted', text: ` ${t.type} · ${t.architecture} · ${r.replicas.count > 1 ? `${fmtInt(r.replicas.count)} replicas × ${fmtInt(r.replicas.ipusPerReplica)} IPU` : `${fmtInt(t.numIPUs)} IPU`} × ${fmtInt(t.tilesPerIPU)} tiles · ${fmtBytes(t.bytesPerTile)} per tile` }) : null,
        this.#banner(s, r)));
    }
    this.root.append(header);

    const list = el('div', { class: 'rv-tabs', role: 'tablist', 'aria-label': 'Report views' });
    const panels = el('div', { class: 'rv-panels' });
    tabs.forEach((t) => {
      const selected = t.id === this.tab;
      const b = el('button', {
        type: 'button', role: 'tab', id: `${this.id}-tab-${t.id}`, 'aria-controls': `${this.id}-panel-${t.id}`,
        'aria-selected': String(selected), tabindex: selected ? '0' : '-1', 'data-tab': t.id, text: t.label,
      });
      b.addEventListener('click', () => this.#select(t.id));
      list.append(b);
    });
    list.addEventListener('keydown', (e) => {
      const ids = tabs.map((t) => t.id);
      let i = ids.indexOf(this.tab);
      if (e.key === 'ArrowRight') i = (i + 1) % ids.length;
      else if (e.key === 'ArrowLeft') i = (i - 1 + ids.length) % ids.length;
      else if (e.key === 'Home') i = 0;
      else if (e.key === 'End') i = ids.length - 1;
      else return;
      e.preventDefault();
      this.#select(ids[i]);
      list.querySelector(`[data-tab="${ids[i]}"]`)?.focus();
    });
    this.root.append(list, panels);
    // Panels of the previous render are gone: a report without a graph has no Memory ... tabs.
    for (const id of ['summary', 'memory', 'liveness', 'operations', 'program', 'execution', 'timeline', 'host']) this[`panel_${id}`] = null;
    for (const t of tabs) {
      const p = el('section', { role: 'tabpanel', id: `${this.id}-panel-${t.id}`, 'aria-labelledby': `${this.id}-tab-${t.id}`,
                                class: 'rv-panel', 'data-panel': t.id, tabindex: '0' });
      p.hidden = t.id !== this.tab;
      panels.append(p);
      this[`panel_${t.id}`] = p;
    }
    this.#fillSummary(this.panel_summary);
    if (this.panel_memory) this.#fillMemory(this.panel_memory);
    if (this.panel_liveness) this.#fillLiveness(this.panel_liveness);
    if (this.panel_operations) this.#fillOperations(this.panel_operations);
    if (this.panel_program) this.#fillProgram(this.panel_program);
    if (this.panel_execution) this.#fillExecution(this.panel_execution);
    if (this.panel_timeline) this.#fillTimeline(this.panel_timeline);
    if (this.panel_host) this.#fillHost(this.panel_host);
    this.#refreshSelection();
  }

  #select(id) {
    this.tab = id;
    for (const b of this.root.querySelectorAll('[role=tab]')) {
      const on = b.dataset.tab === id;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
    }
    for (const p of this.root.querySelectorAll('[role=tabpanel]')) p.hidden = p.dataset.panel !== id;
    this.#redrawCharts();
  }

  /// Columns: one per slot in compare mode.
  #columns(panel, fill) {
    const present = this.#present();
    const cols = el('div', { class: present.length === 2 ? 'rv-cols' : 'rv-single' });
    for (const s of present) {
      const col = el('div', { class: 'rv-col', 'data-slot': s });
      if (present.length === 2) col.append(el('h3', { class: 'rv-col-head' }, el('span', { class: `rv-badge rv-badge-${s}`, text: s }), ` ${this.slots[s].label ?? ''}`));
      fill(col, this.slots[s], s);
      cols.append(col);
    }
    panel.append(cols);
  }

  #banner(slot, r) {
    if (r.graph) {
      const i = r.insight;
      if (i.oomCount > 0) {
        return el('div', { class: 'rv-banner rv-banner-oom', role: 'alert', 'data-testid': 'report-oom-banner', 'data-slot': slot },
          el('strong', { text: `${fmtInt(i.oomCount)} of ${fmtInt(i.tiles)} tiles out of memory` }),
          ` · ${i.percent.toFixed(1)}% of IPU memory used (${fmtBytes(i.used)} of ${fmtBytes(i.totalMemory)}) · worst tile ${i.maxTile}: ${fmtBytes(i.maxTileBytes)} of ${fmtBytes(i.capacity)} (${i.maxPercent.toFixed(0)}%)`,
          r.error ? el('div', { class: 'rv-muted', text: 'The program does not fit; these reports show what would be on each tile.' }) : null);
      }
      return el('div', { class: 'rv-banner rv-banner-ok', 'data-slot': slot },
        el('strong', { text: 'Fits' }),
        ` · ${i.percent.toFixed(1)}% of IPU memory used (${fmtBytes(i.used)} of ${fmtBytes(i.totalMemory)}) · fullest tile ${i.maxTile}: ${i.maxPercent.toFixed(0)}% of ${fmtBytes(i.capacity)}`);
    }
    if (r.error) {
      const m = /(\d+) of (\d+) tiles are over/.exec(r.error);
      return el('div', { class: 'rv-banner rv-banner-oom', role: 'alert', 'data-testid': 'report-oom-banner', 'data-slot': slot },
        el('strong', { text: m ? `${m[1]} of ${m[2]} tiles out of memory` : 'Out of memory' }));
    }
    if (r.hostTimes?.length) {
      return el('div', { class: 'rv-banner rv-banner-info', 'data-slot': slot }, 'CPU device: measured host time on this machine, not modelled IPU cycles.');
    }
    return null;
  }

  // ------------------------------------------------------------------ summary

  #fillSummary(panel) {
    this.#columns(panel, (col, r, s) => {
      if (r.error) {
        const d = el('details', { class: 'rv-error', open: true });
        d.append(el('summary', { text: 'Out-of-memory error' }), el('pre', { class: 'rv-pre', text: r.error }));
        col.append(d);
      }
      if (r.graph && r.replicas.count > 1) col.append(this.#replicaSummary(r, s));
      col.append(el('pre', { class: 'rv-pre rv-summary', 'data-testid': 'report-summary', 'data-slot': s, tabindex: '0',
                             'aria-label': `Summary report ${r.label ?? s}`, text: r.summary ?? '(no summary report)' }));
    });
    if (this.#present().length === 2) panel.prepend(this.#diffTable());
  }

  /// The replicas of a replicated report: what they are, each one's IPUs, tiles and memory (the
  /// report's per-tile figures summed over its tiles), and the cycles spent reducing across them.
  #replicaSummary(r, s) {
    const L = r.replicas;
    const c = r.graph.cycles ?? {};
    const ipus = (x) => (x.firstIpu === x.lastIpu ? `IPU ${x.firstIpu}` : `IPUs ${x.firstIpu}–${x.lastIpu}`);
    const allReduce = c.replicaAllReduce ?? 0;
    const box = el('section', { class: 'rv-replicas', 'data-testid': 'replica-summary', 'data-slot': s, 'data-replicas': L.count,
                                'data-identical': String(L.identical), 'data-all-reduce': allReduce },
      el('h4', { text: `${fmtInt(L.count)} replicas (data parallel)` }),
      el('p', { class: 'rv-small', text: `Each replica is a copy of the graph on its own ${L.ipusPerReplica === 1 ? 'IPU' : `${L.ipusPerReplica} IPUs`} ` +
        `(${fmtInt(L.tilesPerReplica)} tiles), running on its own micro-batch at the same time as the others. ` +
        (L.identical ? 'The IPU model lays every replica out as replica 0, so their memory (below) and cycles are identical by construction; ' +
                       'the other views show one replica, and a tile of another replica lists replica 0\'s tensors at the same place.'
                     : 'Their tiles do not all hold the same bytes (see the table).') }),
      el('p', { class: 'rv-small', 'data-testid': 'replica-all-reduce', 'data-cycles': allReduce, text: allReduce
        ? `All-reduce across replicas: ${fmtInt(allReduce)} cycles per micro-batch (${((100 * allReduce) / (c.perMicroBatch || 1)).toFixed(1)}% of ${fmtInt(c.perMicroBatch)}): ` +
          'the sums over the replicas (in training, of the gradients before the weight update) as a ring over the IPU-Links within a chassis and the gateway between chassis; part of the exchange of the ops that reduce.'
        : 'No all-reduce across replicas: nothing in this program is reduced over them (inference, or no gradient to sum).' }));
    const rows = L.replicas;
    const SHOWN = 64;
    box.append(el('table', { class: 'rv-table', 'data-testid': 'replica-table', 'data-slot': s },
      el('caption', { text: `Per replica${rows.length > SHOWN ? ` (the first ${SHOWN} of ${rows.length})` : ''}` }),
      el('thead', {}, el('tr', {}, ['Replica', 'IPUs', 'Tiles', 'Memory', 'Fullest tile', 'Tiles out of memory']
        .map((h, i) => el('th', { scope: 'col', class: i >= 3 ? 'num' : '', text: h })))),
      el('tbody', {}, rows.slice(0, SHOWN).map((x) => el('tr', { 'data-replica': x.replica, 'data-bytes': x.bytes, 'data-first-tile': x.firstTile,
                                                              'data-last-tile': x.lastTile, 'data-first-ipu': x.firstIpu, 'data-last-ipu': x.lastIpu },
        el('th', { scope: 'row', text: String(x.replica) }), el('td', { text: ipus(x) }), el('td', { text: `${fmtInt(x.firstTile)}–${fmtInt(x.lastTile)}` }),
        el('td', { class: 'num', text: fmtBytes(x.bytes) }),
        el('td', { class: 'num', text: `${fmtBytes(x.maxTileBytes)} (tile ${x.maxTile})` }),
        el('td', { class: 'num', text: fmtInt(x.oomTiles) }))))));
    return box;
  }

  #diffTable() {
    const a = this.slots.A, b = this.slots.B;
    const metric = (label, f, fmt = fmtInt) => {
      const va = a ? f(a) : undefined, vb = b ? f(b) : undefined;
      const num = typeof va === 'number' && typeof vb === 'number';
      const d = num ? vb - va : undefined;
      const ratio = num && va ? vb / va : undefined;
      return el('tr', {}, el('th', { scope: 'row', text: label }), el('td', { class: 'num', text: va === undefined ? '–' : fmt(va) }),
        el('td', { class: 'num', text: vb === undefined ? '–' : fmt(vb) }),
        el('td', { class: `num ${d > 0 ? 'rv-up' : d < 0 ? 'rv-down' : ''}`, text: d === undefined ? '–' : `${d > 0 ? '+' : ''}${fmt(d)}` }),
        el('td', { class: 'num', text: ratio === undefined ? '–' : `×${ratio.toFixed(3)}` }));
    };
    const run0 = (r) => r.execution?.runs?.[0];
    const table = el('table', { class: 'rv-table rv-diff', 'data-testid': 'report-diff' },
      el('caption', { text: 'A vs B: totals' }),
      el('thead', {}, el('tr', {}, ['', 'A', 'B', 'B − A', 'B / A'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {},
        metric('Replicas', (r) => r.replicas?.count),
        metric('Tiles', (r) => r.graph?.target.numTiles),
        metric('Memory used', (r) => r.graph?.memory.total, fmtBytes),
        metric('Fullest tile', (r) => r.graph?.memory.maxTileBytes, fmtBytes),
        metric('Fullest tile, % of its capacity', (r) => r.insight?.maxPercent, (v) => `${v.toFixed(1)}%`),
        metric('Tiles out of memory', (r) => r.graph?.memory.outOfMemoryTiles.length),
        metric('Peak live bytes', (r) => r.live?.peakBytes, fmtBytes),
        metric('Cycles per micro-batch', (r) => r.graph?.cycles.perMicroBatch),
        metric('Compute cycles', (r) => r.split?.totals.compute),
        metric('Exchange cycles', (r) => r.split?.totals.exchange),
        metric('Sync cycles', (r) => r.split?.totals.sync),
        metric('All-reduce across replicas (cycles)', (r) => (r.graph ? r.graph.cycles.replicaAllReduce ?? 0 : undefined)),
        metric('Host transfer cycles', (r) => r.graph ? r.graph.cycles.hostToDevicePerMicroBatch + r.graph.cycles.deviceToHostPerMicroBatch : undefined),
        metric('First run: cycles', (r) => run0(r)?.cycles),
        metric('First run: time', (r) => run0(r)?.seconds, fmtSeconds)));
    return table;
  }

  // ------------------------------------------------------------------ memory

  #fillMemory(panel) {
    const present = this.#present().filter((s) => this.slots[s].graph);
    // One y scale for both reports in compare mode.
    const yMax = Math.max(...present.map((s) => Math.max(this.slots[s].tiles.max, this.slots[s].tiles.capacity))) * 1.08;
    panel.append(this.#legend(CATEGORIES.map((c) => [CATEGORY_LABELS[c], CATEGORY_COLORS[c]]), [['Tile capacity', '--fg', 'line'], ['Out of memory', '--danger', 'mark']]));
    this.#columns(panel, (col, r, s) => {
      if (!r.graph) {
        col.append(el('p', { class: 'rv-empty', text: 'No graph report (the out-of-memory error above has the summary).' }));
        return;
      }
      const tm = r.tiles;
      if (r.replicas.count > 1) col.append(this.#replicaPicker(r, s));
      const host = el('div', { 'data-testid': 'tile-memory-chart', 'data-slot': s, 'data-tiles': tm.n, 'data-capacity': tm.capacity,
                               'data-oom-tiles': [...tm.oom].join(','), 'data-max-tile': r.graph.memory.maxTile, 'data-y-max': Math.round(yMax) });
      col.append(el('h4', { text: 'Memory per tile' }), host);
      const chart = this.#tileChart(host, r, s, yMax);
      const info = el('div', { class: 'rv-tile-info', 'data-testid': 'tile-tensors', 'data-slot': s, 'aria-live': 'polite' });
      const live = el('div', { class: 'rv-tile-live', 'data-slot': s });
      const heatHost = el('div', { 'data-testid': 'tile-heat-grid', 'data-slot': s });
      const rel = el('input', { type: 'checkbox', 'data-testid': 'heat-relative', id: `${this.id}-rel-${s}` });
      rel.checked = !!this.heatRelative;
      col.append(info, live,
        el('div', { class: 'rv-heat-head' },
          el('h4', {}, 'Tile heat grid ', el('span', { class: 'rv-muted rv-small', text: '(logical layout, not the physical floor plan)' })),
          el('label', { class: 'rv-check rv-small', for: rel.id }, rel, ' Colour scale from the emptiest to the fullest tile (shows imbalance)')),
        heatHost);
      const heat = this.#heatGrid(heatHost, r, s);
      rel.addEventListener('change', () => {
        this.heatRelative = rel.checked;
        for (const x of this.root.querySelectorAll('[data-testid=heat-relative]')) x.checked = rel.checked;
        this.#redrawCharts();
      });
      const select = (t) => {
        this.selectedTile[s] = t;
        chart.draw();
        heat.draw();
        this.#tileInfo(info, r, s, t);
        this.#tileLiveness(live, r, s, t);
        this.cb.onSelectTile?.(t, s);
      };
      chart.opts.onSelect = select;
      heat.opts.onSelect = (i) => select(heat.tileOf(i));
      this.#tileInfo(info, r, s, this.selectedTile[s]);
      this.#tileLiveness(live, r, s, this.selectedTile[s]);
      col.append(this.#fullest(r));
      col.append(dataTable(`Table: memory per tile (${fmtInt(tm.n)} tiles)`, ['Tile', ...CATEGORIES.map((c) => CATEGORY_LABELS[c]), 'Total', '% of capacity', 'Out of memory'],
        () => tm.total.map((tot, t) => [t, ...tm.byCategory.map((v) => fmtInt(v[t])), fmtInt(tot), `${((100 * tot) / tm.capacity).toFixed(1)}%`, tm.oom.has(t) ? 'yes' : '']),
        { cap: 256, testid: 'tile-memory-table' }));
    });
  }

  /// The Memory tab's replica choice: every replica's tiles, or one replica's (the tile chart
  /// zoomed to them, the heat grid only them).
  #replicaPicker(r, s) {
    const L = r.replicas;
    const id = `${this.id}-replica-${s}`;
    const pick = el('select', { id, 'data-testid': 'replica-select', 'data-slot': s },
      el('option', { value: '-1', text: `All ${fmtInt(L.count)} replicas (${fmtInt(r.tiles.n)} tiles)` }),
      L.replicas.map((x) => el('option', { value: String(x.replica),
        text: `Replica ${x.replica}: ${x.firstIpu === x.lastIpu ? `IPU ${x.firstIpu}` : `IPUs ${x.firstIpu}–${x.lastIpu}`}, tiles ${x.firstTile}–${x.lastTile}` })));
    pick.value = String(this.replicaShown[s]);
    pick.addEventListener('change', () => {
      const x = L.replicas[Number(pick.value)];
      this.replicaShown[s] = x ? x.replica : -1;
      this.tileZoom[s] = x ? { from: x.firstTile, to: Math.min(r.tiles.n, x.lastTile + 1) } : null;
      this.#render();
      this.root.querySelector(`[data-testid=replica-select][data-slot="${s}"]`)?.focus();
    });
    return el('div', { class: 'rv-controls' }, el('label', { for: id, class: 'rv-check' }, 'Show '), pick,
      el('span', { class: 'rv-muted rv-small', text: L.identical
        ? `Each replica's tiles hold what replica 0's do (the same program and layout, by construction): ${fmtBytes(L.replicas[0].bytes)} per replica.`
        : 'The replicas\' tiles differ: see the Summary tab\'s table.' }));
  }

  #legend(items, extra = []) {
    const l = el('div', { class: 'rv-legend', 'aria-hidden': 'true' });
    for (const [label, v] of items) l.append(el('span', { class: 'rv-key' }, el('i', { class: 'rv-swatch', style: `background: var(${v})` }), label));
    for (const [label, v, kind] of extra) l.append(el('span', { class: 'rv-key' }, el('i', { class: `rv-swatch rv-swatch-${kind}`, style: `--c: var(${v})` }), label));
    return l;
  }

  #tileChart(host, r, s, yMax) {
    const tm = r.tiles;
    const g0 = r.graph;
    const ipus = g0.target.numIPUs;   // every replica's
    const L = r.replicas;
    const chart = new CanvasChart(host, {
      height: 260,
      label: `Memory per tile, ${r.label ?? s}: ${fmtInt(tm.n)} tiles, fullest tile ${g0.memory.maxTile} with ${fmtBytes(tm.max)} of ${fmtBytes(tm.capacity)} capacity; ${tm.oom.size} tiles out of memory. The table below has the figures.`,
      count: () => tm.n,
      hit: (x, y, g) => {
        if (x < g.left || x > g.left + g.width) return -1;
        const { from, to } = view();
        return Math.min(to - 1, from + Math.floor(((x - g.left) / g.width) * (to - from)));
      },
      position: (i, g) => {
        let { from, to } = view();
        if (i < from || i >= to) {   // keyboard moved out of the zoomed range: follow it
          const span = to - from;
          from = Math.max(0, Math.min(tm.n - span, i - Math.floor(span / 2)));
          this.tileZoom[s] = { from, to: from + span };
          chart.draw();
        }
        return { x: g.left + ((i - from + 0.5) / (to - from)) * g.width, y: g.top + 10 };
      },
      onHover: () => chart.draw(),
      tooltip: (t) => {
        const rows = CATEGORIES.map((c, k) => `<tr><td><i class="rv-swatch" style="background:var(${CATEGORY_COLORS[c]})"></i>${CATEGORY_LABELS[c]}</td><td class="num">${fmtBytes(tm.byCategory[k][t])}</td></tr>`).join('');
        const ipu = Math.floor(t / g0.target.tilesPerIPU);
        return `<b>Tile ${t}</b>${L.count > 1 ? ` (replica ${L.replicaOf(t)}, IPU ${ipu})` : ipus > 1 ? ` (IPU ${ipu})` : ''}${tm.oom.has(t) ? ' <span class="rv-oom-tag">out of memory</span>' : ''}<table>${rows}<tr class="rv-tip-total"><td>Total</td><td class="num">${fmtBytes(tm.total[t])}</td></tr></table><span class="rv-muted">${((100 * tm.total[t]) / tm.capacity).toFixed(1)}% of ${fmtBytes(tm.capacity)} · click to list its tensors</span>`;
      },
      draw: (ctx, g) => {
        const y = chart.yAxis(ctx, g, yMax, byteTicks(yMax, 5), fmtBytes);
        const { from, to } = view();
        host.dataset.viewFrom = String(from);
        host.dataset.viewTo = String(to);
        zoomBar.hidden = from === 0 && to === tm.n;
        zoomText.textContent = `Tiles ${from}–${to - 1} of ${tm.n}`;
        ctx.save();
        ctx.beginPath();
        ctx.rect(g.left, 0, g.width, g.H);
        ctx.clip();
        const w = g.width / (to - from);
        const x = (t) => g.left + (t - from) * w;
        const bw = w > 4 ? Math.min(w - 1, 56) : Math.max(w, 0.6);   // bar width (few tiles: not wall to wall)
        const bx = (t) => x(t) + (w - bw) / 2;
        // Hover / selection: a band behind the tile's bar.
        for (const [t, cls, a] of [[chart.hover, '--muted', 0.18], [this.selectedTile[s], '--focus', 0.3]]) {
          if (t < 0) continue;
          const bandW = w > 4 ? bw + 10 : Math.max(w, 3);
          const bandX = w > 4 ? bx(t) - 5 : x(t) - (w < 3 ? 1 : 0);
          ctx.fillStyle = withAlpha(chart.color(cls), a);
          ctx.fillRect(bandX, g.top, bandW, g.height);
          ctx.strokeStyle = chart.color(cls);
          ctx.lineWidth = 1;
          ctx.strokeRect(bandX + 0.5, g.top + 0.5, bandW - 1, g.height - 1);
        }
        // Stacked categories.
        const base = new Float64Array(tm.n);
        CATEGORIES.forEach((c, k) => {
          ctx.fillStyle = chart.color(CATEGORY_COLORS[c]);
          const v = tm.byCategory[k];
          for (let t = 0; t < tm.n; ++t) {
            if (!v[t]) continue;
            const y0 = y(base[t]), y1 = y(base[t] + v[t]);
            ctx.fillRect(bx(t), y1, bw, y0 - y1);
            base[t] += v[t];
          }
        });
        // IPU boundaries (dashed) and, with replicas, replica boundaries (solid); a label where it fits.
        if (ipus > 1) {
          ctx.strokeStyle = chart.color('--muted');
          ctx.fillStyle = chart.color('--muted');
          const span = w * g0.target.tilesPerIPU;
          for (let i = 0; i < ipus; ++i) {
            const xx = Math.round(x(i * g0.target.tilesPerIPU)) + 0.5;
            const replicaStart = L.count > 1 && i % L.ipusPerReplica === 0;
            ctx.setLineDash(replicaStart ? [] : [2, 3]);
            if (i) { ctx.beginPath(); ctx.moveTo(xx, g.top); ctx.lineTo(xx, g.top + g.height); ctx.stroke(); }
            const text = L.count > 1 ? (L.ipusPerReplica > 1 ? `r${Math.floor(i / L.ipusPerReplica)} IPU ${i}` : `replica ${i}`) : `IPU ${i}`;
            if (ctx.measureText(text).width + 8 <= span) ctx.fillText(text, xx + 4, g.top + 10);
          }
          ctx.setLineDash([]);
        }
        // Out-of-memory tiles: a red cap on the bar and a mark under the axis.
        if (tm.oom.size) {
          ctx.fillStyle = chart.color('--danger');
          for (const t of tm.oom) {
            ctx.fillRect(bx(t), y(tm.total[t]) - 3, Math.max(bw, 1), 3);
            ctx.fillRect(bx(t), g.top + g.height + 1, Math.max(bw, 1.5), 3);
          }
        }
        // Capacity line.
        const yc = Math.round(y(tm.capacity)) + 0.5;
        ctx.strokeStyle = chart.color('--fg');
        ctx.lineWidth = 1.5;
        ctx.setLineDash([6, 4]);
        ctx.beginPath();
        ctx.moveTo(g.left, yc);
        ctx.lineTo(g.left + g.width, yc);
        ctx.stroke();
        ctx.setLineDash([]);
        const capText = `tile capacity ${fmtBytes(tm.capacity)}`;
        const tw = ctx.measureText(capText).width;
        ctx.fillStyle = withAlpha(chart.color('--bg'), 0.85);
        ctx.fillRect(g.left + g.width - tw - 10, yc - 15, tw + 8, 13);
        ctx.fillStyle = chart.color('--fg');
        ctx.textAlign = 'right';
        ctx.fillText(capText, g.left + g.width - 6, yc - 8);
        ctx.textAlign = 'left';
        ctx.restore();
        chart.xAxisRange(ctx, g, from, to, (t) => x(t) + w / 2, from === 0 && to === tm.n ? 'tile (wheel, +/- or drag to zoom)' : 'tile');
        host.dataset.selectedTile = String(this.selectedTile[s]);
      },
    });
    // Zoom (charts.js attachRangeZoom): the wheel or + / - around the pointer or the focused tile,
    // a drag selects a range of tiles, a double-click or the button resets. Few tiles need none.
    const view = () => this.tileZoom[s] ?? { from: 0, to: tm.n };
    const zoomer = attachRangeZoom(chart, {
      n: tm.n, minSpan: 16, integer: true, get: () => this.tileZoom[s], set: (z) => { this.tileZoom[s] = z; },
      valueAt: (x, g) => chart.opts.hit(x, 0, g),
      focusValue: () => (chart.focusIndex >= 0 ? chart.focusIndex : undefined),
    });
    const zoomText = el('span', { class: 'rv-muted rv-small' });
    const zoomBar = el('div', { class: 'rv-zoom' }, zoomText, el('button', { type: 'button', class: 'rv-more', 'data-testid': 'tile-zoom-reset',
      text: 'Reset zoom', onclick: () => zoomer.reset() }));
    zoomBar.hidden = true;
    host.after(zoomBar);
    this.charts.push(chart);
    chart.draw();
    return chart;
  }

  /// The tile heat grid: every tile, or the tiles of the replica the Memory tab shows. The chart's
  /// indices count from the first tile shown (`chart.tileOf(i)` is the global tile).
  #heatGrid(host, r, s) {
    const tm = r.tiles;
    const per = r.graph.target.tilesPerIPU;
    const L = r.replicas;
    const shown = L.replicas[this.replicaShown[s]];
    const from = shown ? shown.firstTile : 0;
    const to = shown ? Math.min(tm.n, shown.lastTile + 1) : tm.n;
    const n = to - from;
    const blocks = Math.ceil(n / per);
    const cols = per <= 16 ? per : per <= 256 ? 32 : 64;
    const rowsPer = Math.ceil(per / cols);
    // Each block is an IPU: "IPU i", with replicas "r0 IPU i" (the replica, then the IPU's index on the device).
    const blockLabel = (b) => {
      const ipu = Math.floor(from / per) + b;
      return L.count > 1 ? `r${Math.floor(ipu / L.ipusPerReplica)} IPU ${ipu}` : `IPU ${b}`;
    };
    const labelW = blocks > 1 || L.count > 1 ? (L.count > 1 ? 76 : 44) : 0;
    const maxCell = per <= 16 ? 36 : 16;
    const cellFor = (g) => Math.max(4, Math.min(maxCell, Math.floor((g.width - labelW) / cols)));
    const gap = 8;
    const layout = (g) => {
      const c = cellFor(g);
      return { c, pos: (t) => { const b = Math.floor(t / per), i = t % per; return { x: g.left + labelW + (i % cols) * c, y: g.top + b * (rowsPer * c + gap) + Math.floor(i / cols) * c }; } };   // t: from the first tile shown
    };
    const heightFor = () => {
      const w = host.clientWidth || 600;
      const c = Math.max(4, Math.min(maxCell, Math.floor((w - 24 - labelW) / cols)));
      return blocks * (rowsPer * c + gap) + 34;
    };
    const chart = new CanvasChart(host, {
      height: heightFor(),
      margin: { left: 12, right: 12, top: 4, bottom: 30 },
      label: `Tile heat grid, ${r.label ?? s}: ${shown ? `replica ${shown.replica}'s ${fmtInt(n)} tiles (${from}–${to - 1})` : `${fmtInt(tm.n)} tiles`} coloured by memory used as a share of the ${fmtBytes(tm.capacity)} capacity; a logical layout in tile order, not the physical floor plan.`,
      count: () => n,
      hit: (x, y, g) => {
        const { c, pos } = layout(g);
        for (let b = 0; b < blocks; ++b) {
          const p0 = pos(b * per);
          const col = Math.floor((x - p0.x) / c), row = Math.floor((y - p0.y) / c);
          if (col < 0 || col >= cols || row < 0 || row >= rowsPer) continue;
          const t = b * per + row * cols + col;
          return t < n && t < (b + 1) * per ? t : -1;
        }
        return -1;
      },
      position: (t, g) => { const { c, pos } = layout(g); const p = pos(t); return { x: p.x + c, y: p.y + c }; },
      tooltip: (i) => { const t = from + i; return `<b>Tile ${t}</b>${L.count > 1 ? ` (replica ${L.replicaOf(t)})` : ''}${tm.oom.has(t) ? ' <span class="rv-oom-tag">out of memory</span>' : ''}<br>${fmtBytes(tm.total[t])} · ${((100 * tm.total[t]) / tm.capacity).toFixed(1)}% of capacity`; },
      onHover: () => chart.draw(),
      draw: (ctx, g) => {
        const h = heightFor();
        const L0 = layout(g);
        Object.assign(host.dataset, { cell: L0.c, cols, perIpu: per, gridLeft: L0.pos(0).x, gridTop: L0.pos(0).y, blockHeight: rowsPer * L0.c + gap,
                                      firstTile: from, lastTile: to - 1 });
        if (h !== chart.opts.height) { chart.opts.height = h; chart.draw(); return; }
        const { c, pos } = layout(g);
        const accent = chart.color('--chart-1');
        const danger = chart.color('--danger');
        const empty = chart.color('--bg-2');
        // Relative: from the emptiest tile to the fullest one under capacity (shows imbalance).
        const under = tm.total.filter((v) => v <= tm.capacity);
        const scaleMin = this.heatRelative && under.length ? Math.min(...under) : 0;
        const scaleMax = this.heatRelative && under.length ? Math.max(scaleMin + 1, ...under) : tm.capacity;
        host.dataset.scaleMin = String(scaleMin);
        host.dataset.scaleMax = String(scaleMax);
        for (let t = from; t < to; ++t) {
          const p = pos(t - from);
          const f = tm.total[t] > tm.capacity ? 2 : (tm.total[t] - scaleMin) / (scaleMax - scaleMin);
          ctx.fillStyle = empty;
          ctx.fillRect(p.x, p.y, c - 1, c - 1);
          ctx.fillStyle = f > 1 ? danger : withAlpha(accent, 0.08 + 0.92 * Math.min(1, f));
          ctx.fillRect(p.x, p.y, c - 1, c - 1);
        }
        ctx.fillStyle = chart.color('--muted');
        if (labelW) for (let b = 0; b < blocks; ++b) ctx.fillText(blockLabel(b), g.left, pos(b * per).y + 9);
        for (const [t, v] of [[chart.hover, '--fg'], [this.selectedTile[s] - from, '--focus']]) {
          if (t < 0 || t >= n) continue;
          const p = pos(t);
          ctx.strokeStyle = chart.color(v);
          ctx.lineWidth = 2;
          ctx.strokeRect(p.x - 1, p.y - 1, c + 1, c + 1);
        }
        // Colour scale: 0 B [ramp] capacity  [red] over capacity.
        const y0 = g.top + g.height + 10;
        const sw = Math.min(160, g.width / 3);
        ctx.textBaseline = 'middle';
        ctx.fillStyle = chart.color('--muted');
        let xx = g.left;
        const minLabel = scaleMin ? `${fmtBytes(scaleMin)} (emptiest tile)` : '0 B';
        ctx.fillText(minLabel, xx, y0 + 5);
        xx += ctx.measureText(minLabel).width + 6;
        for (let i = 0; i < sw; ++i) {
          ctx.fillStyle = withAlpha(accent, 0.08 + (0.92 * i) / sw);
          ctx.fillRect(xx + i, y0, 1, 10);
        }
        xx += sw + 6;
        ctx.fillStyle = chart.color('--muted');
        const capLabel = scaleMax === tm.capacity ? `${fmtBytes(tm.capacity)} (tile capacity)` : `${fmtBytes(scaleMax)} (fullest tile; capacity ${fmtBytes(tm.capacity)})`;
        ctx.fillText(capLabel, xx, y0 + 5);
        xx += ctx.measureText(capLabel).width + 14;
        ctx.fillStyle = danger;
        ctx.fillRect(xx, y0, 10, 10);
        ctx.fillStyle = chart.color('--muted');
        ctx.fillText('over capacity (out of memory)', xx + 16, y0 + 5);
        ctx.textBaseline = 'alphabetic';
      },
    });
    chart.tileOf = (i) => from + i;
    this.charts.push(chart);
    chart.draw();
    return chart;
  }

  #tileInfo(info, r, s, t) {
    info.replaceChildren();
    if (t < 0) {
      info.append(el('p', { class: 'rv-muted', text: 'Select a tile (click a bar or a cell, or focus the chart and use the arrow keys and Enter) to list the tensors on it.' }));
      info.dataset.tile = '-1';
      return;
    }
    const tm = r.tiles;
    // A tile of replica r > 0 holds what replica 0's tile at the same place holds (the report maps
    // the tensors of replica 0).
    const L = r.replicas;
    const base = L.baseTile(t);
    const list = tensorsOnTile(r.graph, base);
    info.dataset.tile = String(t);
    info.dataset.replica = String(L.replicaOf(t));
    info.dataset.baseTile = String(base);
    info.append(el('h4', { text: `Tile ${t}${L.count > 1 ? ` (replica ${L.replicaOf(t)})` : ''}: ${fmtBytes(tm.total[t])} of ${fmtBytes(tm.capacity)} (${((100 * tm.total[t]) / tm.capacity).toFixed(1)}%)${tm.oom.has(t) ? ' — out of memory' : ''}` }),
      el('p', { class: 'rv-muted', text: CATEGORIES.map((c, k) => `${CATEGORY_LABELS[c]} ${fmtBytes(tm.byCategory[k][t])}`).join(' · ') }),
      base !== t ? el('p', { class: 'rv-muted rv-small', 'data-testid': 'tile-replica-note',
                             text: `Replica ${L.replicaOf(t)} repeats replica 0's layout: the tensors below are those of replica 0's tile ${base}, at the same place.` }) : null);
    const table = el('table', { class: 'rv-table', 'data-testid': 'tile-tensor-table' },
      el('caption', { text: `${list.length} tensors mapped to tile ${t}${base !== t ? ` (as to tile ${base})` : ''} (activations count at their peak; code, vertex state and exchange buffers are per op)` }),
      el('thead', {}, el('tr', {}, ['Tensor', 'Kind', 'Type', 'Shape', 'On this tile', 'Whole tensor', 'Live (steps)'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, list.slice(0, 200).map((x) => el('tr', { 'data-tensor': x.id },
        el('th', { scope: 'row', class: 'rv-name', text: x.id, title: x.id }), el('td', { text: x.view ? `${x.kind} (view)` : x.kind }),
        el('td', { text: x.dtype }), el('td', { text: `[${(x.shape ?? []).join(', ')}]` }),
        el('td', { class: 'num', text: fmtInt(x.bytesOnTile) }), el('td', { class: 'num', text: fmtInt(x.bytes) }),
        el('td', { class: 'num', text: `${x.liveFrom}–${x.liveTo}` })))));
    info.append(table);
  }

  /// The selected tile's liveness: its bytes live at each step (tileLiveness), the always-live part
  /// separable, the peak, and the tensors live at the selected step (else the peak step).
  #tileLiveness(box, r, s, t) {
    const old = this.tileLive[s];
    if (old) {
      old.chart.dispose();
      this.charts = this.charts.filter((c) => c !== old.chart);
      this.tileLive[s] = null;
    }
    box.replaceChildren();
    if (t < 0 || !r.graph.ops.length) return;
    const base = r.replicas.baseTile(t);   // another replica's tile: replica 0's at the same place
    const L = { ...tileLiveness(r.graph, base), tile: t };
    const inc = this.tileIncludeAlways !== false;
    const yMax = Math.max(1, ...(inc ? L.total : L.notAlways)) * 1.12;
    const check = el('input', { type: 'checkbox', id: `${this.id}-tile-always-${s}`, 'data-testid': 'tile-liveness-include-always' });
    check.checked = inc;
    check.addEventListener('change', () => {
      this.tileIncludeAlways = check.checked;
      for (const q of ['A', 'B']) if (this.tileLive[q]) this.#tileLiveness(this.tileLive[q].box, this.slots[q], q, this.selectedTile[q]);
    });
    const peakName = r.rows[L.peakStep]?.name ?? '';
    const host = el('div', { 'data-testid': 'tile-liveness-chart', 'data-slot': s, 'data-tile': t, 'data-steps': L.steps,
                             'data-peak-step': L.peakStep, 'data-peak-bytes': inc ? L.peakBytes : L.peakNotAlways,
                             'data-peak-activations': L.peakNotAlways, 'data-always-live': L.always });
    box.append(el('div', { class: 'rv-heat-head' }, el('h4', { text: `Liveness on tile ${t}${base !== t ? ` (replica ${r.replicas.replicaOf(t)}: as replica 0's tile ${base})` : ''}` }),
      el('label', { class: 'rv-check rv-small', for: check.id }, check, ' Include always-live memory (variables, constants)')),
      this.#legend([...(inc ? [['Always live (variables, constants)', '--chart-4']] : []), ['Not always live (activations, streams)', '--chart-3']],
        [['Peak', '--danger', 'mark'], ['Selected op', '--focus', 'line']]),
      el('p', { class: 'rv-stat rv-small' }, `Peak ${fmtBytes(inc ? L.peakBytes : L.peakNotAlways)} at step ${L.peakStep} (`, el('code', { text: peakName }),
        `) · not always live at the peak ${fmtBytes(L.peakNotAlways)} (the tile's activations) · always live ${fmtBytes(L.always)} · ${L.tensors.length} tensors`),
      host);
    const chart = new CanvasChart(host, {
      height: 190,
      label: `Liveness on tile ${t}, ${r.label ?? s}: bytes live on the tile at each of ${L.steps} steps; peak ${fmtBytes(L.peakBytes)} at step ${L.peakStep} (${peakName}); ${fmtBytes(L.always)} always live. The table below lists the tensors live at the selected step.`,
      count: () => L.steps,
      hit: (x, y, g) => (x < g.left || x > g.left + g.width ? -1 : Math.min(L.steps - 1, Math.floor(((x - g.left) / g.width) * L.steps))),
      position: (i, g) => ({ x: g.left + ((i + 0.5) / L.steps) * g.width, y: g.top + 10 }),
      onHover: () => chart.draw(),
      onSelect: (i) => this.#selectOp(s, r.rows[i], false),
      tooltip: (i) => `<b>Step ${i}</b> <code>${esc(r.rows[i].name)}</code> (${esc(r.rows[i].type)})<table><tr><td>Live on tile ${t}</td><td class="num">${fmtBytes(L.total[i])}</td></tr><tr><td>Always live</td><td class="num">${fmtBytes(L.always)}</td></tr><tr><td>Not always live</td><td class="num">${fmtBytes(L.notAlways[i])}</td></tr></table>`,
      draw: (ctx, g) => {
        const sel = this.selectedOp?.steps ?? [];
        host.dataset.selectedStep = sel.length ? String(sel[0]) : '-1';
        drawLiveness(chart, ctx, g, L, { inc, yMax, selected: sel });
      },
    });
    this.charts.push(chart);
    chart.draw();
    const list = el('div', { class: 'rv-step-tensors', 'data-testid': 'tile-liveness-tensors', 'data-slot': s, 'aria-live': 'polite' });
    box.append(list, dataTable(`Table: bytes live on tile ${t} per step (${L.steps} steps)`, ['Step', 'Op', 'Live bytes', 'Always live', 'Not always live'],
      () => r.rows.map((op, i) => [i, op.name, fmtInt(L.total[i]), fmtInt(L.always), fmtInt(L.notAlways[i])]), { cap: 300, testid: 'tile-liveness-table' }));
    this.tileLive[s] = { box, chart, L, list, r, inc };
    this.#tileStepTensors(s);
  }

  /// The tensors live on the selected tile at the selected op's step (else at the tile's peak).
  #tileStepTensors(s) {
    const T = this.tileLive[s];
    if (!T) return;
    const { L, list, r, inc } = T;
    const sel = this.selectedOp?.steps?.[0];
    const step = sel !== undefined && sel < L.steps ? sel : L.peakStep;
    const live = tileTensorsAt(L, step, inc).sort((a, b) => b.bytesOnTile - a.bytesOnTile || (a.id < b.id ? -1 : 1));
    const bytes = live.reduce((a, x) => a + x.bytesOnTile, 0);
    const producer = this.#producerName(r);
    list.dataset.step = String(step);
    list.replaceChildren(el('table', { class: 'rv-table' },
      el('caption', { text: `Tile ${L.tile} at step ${step} (${r.rows[step]?.name ?? ''})${step === L.peakStep ? ', its peak' : ''}: ${live.length} tensors, ${fmtBytes(bytes)}${inc ? '' : ' not always live'}` }),
      el('thead', {}, el('tr', {}, ['Tensor', 'Kind', producer ? 'Produced by' : null, 'On this tile', 'Live (steps)'].filter(Boolean)
        .map((h, i, a) => el('th', { scope: 'col', class: i >= a.length - 2 ? 'num' : '', text: h })))),
      el('tbody', {}, live.slice(0, 100).map((x) => el('tr', { 'data-tensor': x.id, 'data-bytes': x.bytesOnTile },
        el('th', { scope: 'row', class: 'rv-name', title: x.id, text: x.id }), el('td', { text: isAlwaysLive(x) ? `${x.kind} (always live)` : x.kind }),
        producer ? el('td', { class: 'rv-name', text: producer(x) }) : null, el('td', { class: 'num', text: fmtInt(x.bytesOnTile) }),
        el('td', { class: 'num', text: isAlwaysLive(x) ? 'all' : `${x.liveFrom}–${x.liveTo}` }))))));
  }

  /// The name of the op that writes a tensor: its `producer` op id (the core's), '' for none
  /// (weights, inputs); null when the report has no producers (older reports: no such column).
  #producerName(r) {
    if (!(r.graph.tensors ?? []).some((t) => t.producer !== undefined && t.producer !== null)) return null;
    const steps = stepOfId(r.graph);
    return (t) => {
      const st = t.producer === undefined || t.producer === null || t.producer < 0 ? undefined : steps.get(t.producer);
      return st === undefined ? '' : r.rows[st].name;
    };
  }

  #fullest(r) {
    const tm = r.tiles;
    const max = Math.max(tm.capacity, tm.max);
    const box = el('div', { class: 'rv-fullest' }, el('h4', { text: 'Fullest tiles' }));
    const ul = el('ol', { class: 'rv-bars' });
    for (const [t, b] of tm.fullest) {
      const per = r.graph.target.tilesPerIPU;
      const R = r.replicas;
      const ipuText = R.count > 1 ? ` (${R.ipusPerReplica > 1 ? `r${R.replicaOf(t)} IPU ${Math.floor(t / per)}` : `replica ${R.replicaOf(t)}`})`
        : tm.n > per ? ` (IPU ${Math.floor(t / per)})` : '';
      ul.append(el('li', {}, el('span', { class: 'rv-bar-label', text: `tile ${t}${ipuText}` }),
        el('span', { class: 'rv-bar-track' }, el('span', { class: `rv-bar${b > tm.capacity ? ' rv-bar-oom' : ''}`, style: `width:${(100 * b) / max}%` }),
          el('span', { class: 'rv-bar-cap', style: `left:${(100 * tm.capacity) / max}%` })),
        el('span', { class: 'rv-bar-value', text: `${fmtBytes(b)} (${((100 * b) / tm.capacity).toFixed(0)}%)` })));
    }
    box.append(ul);
    return box;
  }

  // ------------------------------------------------------------------ liveness

  #fillLiveness(panel) {
    const present = this.#present().filter((s) => this.slots[s].graph);
    const inc = this.includeAlwaysLive !== false;
    const yMax = Math.max(...present.map((s) => (inc ? this.slots[s].live.peakBytes : Math.max(...this.slots[s].live.notAlways, 1)))) * 1.1 || 1;
    const box = el('input', { type: 'checkbox', id: `${this.id}-always`, 'data-testid': 'liveness-include-always' });
    box.checked = inc;
    box.addEventListener('change', () => {
      this.includeAlwaysLive = box.checked;
      for (const c of this.charts) c.dispose();
      this.charts = [];
      this.panel_liveness.replaceChildren();
      this.#render();
    });
    panel.append(el('div', { class: 'rv-controls' }, el('label', { class: 'rv-check', for: box.id }, box, ' Include always-live memory (variables, constants)')),
      this.#legend([...(inc ? [['Always live (variables, constants)', '--chart-4']] : []), ['Not always live (activations, streams)', '--chart-3']],
        [['Peak', '--danger', 'mark'], ['Selected op', '--focus', 'line']]));
    this.#columns(panel, (col, r, s) => {
      if (!r.graph) return;
      const L = r.live;
      const host = el('div', { 'data-testid': 'liveness-chart', 'data-slot': s, 'data-steps': L.steps, 'data-peak-step': L.peakStep,
                               'data-peak-bytes': L.peakBytes, 'data-always-live': L.always });
      col.append(el('p', { class: 'rv-stat' }, `Peak: ${fmtBytes(L.peakBytes)} at step ${L.peakStep} (`, el('code', { text: r.rows[L.peakStep]?.name ?? '' }),
        `) · always live ${fmtBytes(L.always)}`), host);
      const chart = new CanvasChart(host, {
        height: 240,
        label: `Liveness, ${r.label ?? s}: bytes live at each of ${L.steps} schedule steps; peak ${fmtBytes(L.peakBytes)} at step ${L.peakStep} (${r.rows[L.peakStep]?.name ?? ''}); ${fmtBytes(L.always)} always live. The table below has the figures.`,
        count: () => L.steps,
        hit: (x, y, g) => (x < g.left || x > g.left + g.width ? -1 : Math.min(L.steps - 1, Math.floor(((x - g.left) / g.width) * L.steps))),
        position: (i, g) => ({ x: g.left + ((i + 0.5) / L.steps) * g.width, y: g.top + 10 }),
        onHover: () => chart.draw(),
        onSelect: (i) => this.#selectOp(s, r.rows[i], false),
        tooltip: (i) => `<b>Step ${i}</b> <code>${esc(r.rows[i].name)}</code> (${esc(r.rows[i].type)})<table><tr><td>Live</td><td class="num">${fmtBytes(L.total[i])}</td></tr><tr><td>Always live</td><td class="num">${fmtBytes(L.always)}</td></tr><tr><td>Not always live</td><td class="num">${fmtBytes(L.notAlways[i])}</td></tr></table>`,
        draw: (ctx, g) => {
          const sel = this.selectedOp?.steps ?? [];
          host.dataset.selectedStep = sel.length ? String(sel[0]) : '-1';
          host.dataset.selectedSteps = sel.join(',');
          drawLiveness(chart, ctx, g, L, { inc, yMax, selected: sel });
        },
      });
      this.charts.push(chart);
      chart.draw();
      col.append(el('div', { class: 'rv-step-tensors', 'data-testid': 'liveness-step-tensors', 'data-slot': s, 'aria-live': 'polite' }));
      col.append(dataTable(`Table: bytes live per step (${L.steps} steps)`, ['Step', 'Op', 'Type', 'Live bytes', 'Always live', 'Not always live'],
        () => r.rows.map((op, i) => [i, op.name, op.type, fmtInt(L.total[i]), fmtInt(L.always), fmtInt(L.notAlways[i])]), { cap: 300, testid: 'liveness-table' }));
    });
  }

  // ------------------------------------------------------------------ operations

  #selectOp(slot, row, fromTable) {
    if (!row) return;
    const steps = row.steps ?? [row.step];
    this.selectedOp = { slot, name: row.name, node: row.node, steps, key: row.key };
    this.#refreshSelection();
    // The op's stable id (ops[i].id) when the report has ids and one op is meant (not a node's group).
    const id = row.ops > 0 ? undefined : this.slots[slot]?.rows?.[steps[0]]?.id;
    this.cb.onSelectOp?.({ opName: row.opName ?? row.name, nodeName: row.node, ...(id !== undefined ? { opId: id } : {}) });
    if (!fromTable) this.root.querySelector('tr.rv-selected')?.scrollIntoView?.({ block: 'nearest' });
  }

  #refreshSelection() {
    const sel = this.selectedOp;
    for (const tr of this.root.querySelectorAll('[data-testid=op-table] tbody tr')) {
      const steps = (tr.dataset.steps ?? '').split(',').map(Number);
      const on = !!sel && steps.some((st) => sel.steps.includes(st));
      tr.classList.toggle('rv-selected', on);
      tr.setAttribute('aria-selected', String(on));
    }
    for (const box of this.root.querySelectorAll('[data-testid=liveness-step-tensors]')) this.#stepTensors(box);
    for (const s of ['A', 'B']) this.#tileStepTensors(s);
    const key = sel ? sel.steps.join(',') : '';
    const reveal = key !== this.revealed;
    this.revealed = key;
    for (const t of this.trees) t.select(sel?.steps ?? [], reveal);
    for (const c of this.charts) c.draw();
  }

  #columnsDef(compare) {
    const grouped = this.grouped;
    const cols = [
      { key: 'step', label: grouped ? 'First step' : 'Step', num: true },
      { key: 'name', label: grouped ? 'ONNX node' : 'Op', text: true },
      { key: 'type', label: grouped ? 'Op types' : 'Type', text: true },
    ];
    if (grouped) cols.push({ key: 'ops', label: 'Ops', num: true });
    if (!compare) cols.push({ key: grouped ? 'kinds' : 'kind', label: 'Pass', text: true, title: 'forward, backward (autodiff) or optimizer' });
    if (compare) {
      cols.push({ key: 'cyclesA', label: 'Cycles A', num: true }, { key: 'cyclesB', label: 'Cycles B', num: true },
                { key: 'ratio', label: 'B / A', num: true, fmt: (v) => (v === undefined || !isFinite(v) ? '–' : `×${v.toFixed(2)}`) },
                { key: 'tilesA', label: 'Tiles A', num: true }, { key: 'tilesB', label: 'Tiles B', num: true },
                { key: 'flops', label: 'FLOPs', num: true });
      return cols;
    }
    const g = (this.slots.A?.graph ? this.slots.A : this.slots.B).graph;
    if (g.target.numIPUs / (g.target.replicas ?? 1) > 1) cols.push({ key: 'ipu', label: 'IPU', num: true, title: 'The IPU of a replica the op runs on' });
    if (g.graph?.pipelined) cols.push({ key: 'stage', label: 'Stage', num: true, fmt: (v) => (v < 0 ? '–' : String(v)) });
    cols.push({ key: 'cycles', label: 'Cycles', num: true }, { key: 'share', label: '% cycles', num: true, fmt: (v) => `${v.toFixed(1)}%` },
              { key: 'computeCycles', label: 'Compute', num: true }, { key: 'exchangeCycles', label: 'Exchange', num: true },
              { key: 'syncCycles', label: 'Sync', num: true }, { key: 'flops', label: 'FLOPs', num: true },
              { key: 'exchangeBytes', label: 'Exchange bytes', num: true }, { key: 'numTiles', label: 'Tiles', num: true },
              { key: 'outBytes', label: 'Output bytes', num: true, title: 'Bytes of the activations the op writes (its outputs, views excluded)' });
    return cols;
  }

  #tableRows() {
    const present = this.#present().filter((s) => this.slots[s].rows);
    const compare = present.length === 2;
    const base = (s) => (this.grouped ? this.slots[s].groups : this.slots[s].rows);
    if (!compare) {
      const r = this.slots[present[0]];
      const total = r.split.totals.cycles || 1;
      return base(present[0]).map((x) => ({ ...x, key: this.grouped ? x.node : x.key, steps: x.steps ?? [x.step], share: (100 * x.cycles) / total, opName: this.grouped ? r.rows[x.steps[0]].name : x.name }));
    }
    // Join A and B by name (the n-th op of a name with the n-th of B's), or by node when grouped.
    const keyed = (s) => {
      const seen = new Map();
      const m = new Map();
      for (const x of base(s)) {
        const n = seen.get(x.name) ?? 0;
        seen.set(x.name, n + 1);
        m.set(n ? `${x.name}#${n}` : x.name, x);
      }
      return m;
    };
    const a = keyed('A'), b = keyed('B');
    const keys = [...new Set([...a.keys(), ...b.keys()])];
    return keys.map((k) => {
      const x = a.get(k), y = b.get(k);
      const src = x ?? y;
      return { key: k, name: src.name, node: src.node, type: src.type, ops: src.ops, step: x ? x.step : y.step,
               steps: x ? (x.steps ?? [x.step]) : [], opName: this.grouped ? undefined : src.name,
               cyclesA: x?.cycles, cyclesB: y?.cycles, ratio: x && y && x.cycles ? y.cycles / x.cycles : undefined,
               tilesA: x?.numTiles, tilesB: y?.numTiles, flops: src.flops };
    });
  }

  #fillOperations(panel) {
    const compare = this.#present().filter((s) => this.slots[s].rows).length === 2;
    const controls = el('div', { class: 'rv-controls' });
    const group = el('input', { type: 'checkbox', id: `${this.id}-group`, 'data-testid': 'op-group-toggle' });
    group.checked = this.grouped;
    group.addEventListener('change', () => { this.grouped = group.checked; this.sort = { key: this.sort.key === 'ops' && !this.grouped ? 'step' : this.sort.key, dir: this.sort.dir }; this.#drawTable(); });
    const filter = el('input', { type: 'search', placeholder: 'Filter by name or type', 'aria-label': 'Filter ops by name or type', value: this.filter, 'data-testid': 'op-filter' });
    filter.addEventListener('input', () => { this.filter = filter.value; this.#drawTable(); });
    controls.append(el('label', { for: `${this.id}-group`, class: 'rv-check' }, group, ' Group by ONNX node'), filter,
      el('span', { class: 'rv-muted rv-small', text: compare ? 'A and B joined by op name; B / A > 1: B takes more cycles.' : 'Cycles per micro-batch; click a row to show the op in the graph and its step in the liveness chart.' }));
    this.tableHost = el('div', { class: 'rv-table-wrap' });
    panel.append(controls, this.tableHost);
    this.#drawTable();
  }

  #drawTable() {
    const compare = this.#present().filter((s) => this.slots[s].rows).length === 2;
    const cols = this.#columnsDef(compare);
    if (!cols.some((c) => c.key === this.sort.key)) this.sort = { key: 'step', dir: 1 };
    let rows = this.#tableRows();
    const f = this.filter.trim().toLowerCase();
    if (f) rows = rows.filter((x) => x.name.toLowerCase().includes(f) || String(x.type).toLowerCase().includes(f));
    const { key, dir } = this.sort;
    rows.sort((p, q) => {
      const a = p[key], b = q[key];
      if (a === b) return p.step - q.step;
      if (a === undefined) return 1;
      if (b === undefined) return -1;
      return (typeof a === 'string' ? a.localeCompare(b) : a - b) * dir;
    });
    const total = rows.length;
    const shown = this.showAll ? rows : rows.slice(0, ROW_CAP);
    const table = el('table', { class: 'rv-table rv-ops', 'data-testid': 'op-table', 'data-rows': total, 'data-grouped': String(this.grouped),
                                'aria-label': `Operations${this.grouped ? ' grouped by ONNX node' : ''}: ${total} rows` });
    const slotsWithRows = this.#present().filter((q) => this.slots[q].rows);
    table.append(el('caption', { text: slotsWithRows.map((q) => `${slotsWithRows.length > 1 ? `${q}: ` : ''}${this.slots[q].rows.length} ops, ${fmtInt(this.slots[q].split.totals.cycles)} cycles per micro-batch, ${fmtInt(this.slots[q].rows.reduce((a, x) => a + x.flops, 0))} FLOPs`).join(' · ') + (f ? ` · ${total} rows match “${this.filter.trim()}”` : '') }));
    const head = el('tr');
    for (const c of cols) {
      const sorted = c.key === key;
      const b = el('button', { type: 'button', class: 'rv-sort', 'data-sort': c.key, title: c.title },
        c.label, el('span', { class: 'rv-arrow', 'aria-hidden': 'true', text: sorted ? (dir > 0 ? ' ▲' : ' ▼') : '' }));
      b.addEventListener('click', () => {
        this.sort = sorted ? { key: c.key, dir: -dir } : { key: c.key, dir: c.text || c.key === 'step' ? 1 : -1 };
        this.#drawTable();
        this.tableHost.querySelector(`[data-sort="${c.key}"]`)?.focus();
      });
      head.append(el('th', { scope: 'col', class: c.num ? 'num' : '', 'aria-sort': sorted ? (dir > 0 ? 'ascending' : 'descending') : 'none', 'data-col': c.key }, b));
    }
    const tbody = el('tbody');
    const slot = this.#present().find((q) => this.slots[q].rows);
    for (const x of shown) {
      const tr = el('tr', { tabindex: '0', 'data-op-name': x.opName ?? x.name, 'data-node': x.node, 'data-steps': x.steps.join(','), 'data-key': x.key,
                            'data-op-id': this.grouped ? undefined : x.id });
      for (const c of cols) {
        const v = x[c.key];
        const text = c.fmt ? (v === undefined ? '–' : c.fmt(v)) : c.num ? fmtInt(v) : String(v ?? '');
        const cls = `${c.num ? 'num' : ''}${c.key === 'ratio' && v > 1.005 ? ' rv-up' : c.key === 'ratio' && v < 0.995 ? ' rv-down' : ''}`;
        tr.append(c.key === 'name' ? el('th', { scope: 'row', class: 'rv-name', title: v, 'data-col': c.key, text }) : el('td', { class: cls, 'data-col': c.key, 'data-value': typeof v === 'number' ? v : undefined, text }));
      }
      const act = () => this.#selectOp(slot, x, true);
      tr.addEventListener('click', act);
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); act(); }
        else if (e.key === 'ArrowDown') { e.preventDefault(); tr.nextElementSibling?.focus(); }
        else if (e.key === 'ArrowUp') { e.preventDefault(); tr.previousElementSibling?.focus(); }
      });
      tbody.append(tr);
    }
    table.append(el('thead', {}, head), tbody);
    const parts = [table];
    if (total > shown.length) {
      const more = el('button', { type: 'button', class: 'rv-more', 'data-testid': 'op-table-show-all', text: `Show all ${total} rows (${total - shown.length} more)` });
      more.addEventListener('click', () => { this.showAll = true; this.#drawTable(); });
      parts.push(more);
    }
    const keep = this.tableHost.scrollTop;
    this.tableHost.replaceChildren(...parts);
    this.tableHost.scrollTop = this.showAll && this.lastSort === `${key}${dir}${this.grouped}` ? keep : 0;
    this.lastSort = `${key}${dir}${this.grouped}`;
    this.#refreshSelection();
  }

  // ------------------------------------------------------------------ execution

  #fillExecution(panel) {
    const present = this.#present().filter((s) => this.slots[s].graph);
    const yMax = Math.max(...present.map((s) => Math.max(1, ...this.slots[s].split.steps.map((x) => x.cycles)))) * 1.08;
    panel.append(this.#legend([['Compute', SPLIT_COLORS.compute], ['Exchange', SPLIT_COLORS.exchange], ['Sync', SPLIT_COLORS.sync], ['Inter-IPU copies', SPLIT_COLORS.other]]));
    this.#columns(panel, (col, r, s) => {
      if (!r.graph) return;
      const { steps, totals } = r.split;
      const c = r.graph.cycles;
      const clock = r.graph.target.clockFrequency;
      const pct = (v) => `${((100 * v) / (totals.cycles || 1)).toFixed(1)}%`;
      const host = el('div', { 'data-testid': 'execution-chart', 'data-slot': s, 'data-steps': steps.length, 'data-compute': totals.compute,
                               'data-exchange': totals.exchange, 'data-sync': totals.sync, 'data-other': totals.other, 'data-cycles': totals.cycles });
      const R = r.replicas;
      const allReduce = c.replicaAllReduce ?? 0;
      const reducers = r.rows.filter((x) => /AllReduce/.test(x.type ?? ''));
      const facts = el('dl', { class: 'rv-facts', 'data-testid': 'execution-totals', 'data-slot': s, 'data-replicas': R.count, 'data-all-reduce': allReduce },
        ...[R.count > 1 ? ['Replicas', `${fmtInt(R.count)} in parallel, ${R.ipusPerReplica === 1 ? 'one IPU' : `${R.ipusPerReplica} IPUs`} each: these are one replica's cycles (every replica's are the same)`] : null,
            ['Cycles per micro-batch', `${fmtInt(c.perMicroBatch)} (${fmtSeconds(c.perMicroBatch / clock)} at ${(clock / 1e6).toFixed(0)} MHz)`],
            ['Compute', `${fmtInt(totals.compute)} (${pct(totals.compute)})`],
            ['Exchange', `${fmtInt(totals.exchange)} (${pct(totals.exchange)})`],
            R.count > 1 ? ['… of which all-reduce across replicas', allReduce
              ? `${fmtInt(allReduce)} (${pct(allReduce)}): the sum over the ${fmtInt(R.count)} replicas, in the exchange of ${reducers.map((x) => x.name).join(', ') || 'the reducing ops'}`
              : '0: nothing is reduced across the replicas (no gradient to sum)'] : null,
            ['Sync', `${fmtInt(totals.sync)} (${pct(totals.sync)})`],
            totals.other ? ['Inter-IPU copies', `${fmtInt(totals.other)} (${pct(totals.other)}; ${fmtInt(c.interIpuCopies)} in the graph)`] : null,
            ['Host transfers', `${fmtInt(c.hostToDevicePerMicroBatch)} in + ${fmtInt(c.deviceToHostPerMicroBatch)} out per micro-batch`],
            c.perIpu?.length > 1 ? ['Per IPU', c.perIpu.map((v, i) => `IPU ${i}: ${fmtInt(v)}`).join(' · ')] : null,
            c.stageCycles?.length ? ['Per pipeline stage', c.stageCycles.map((v, i) => `stage ${i}: ${fmtInt(v)}`).join(' · ')] : null,
            c.streamingMemory ? ['Streaming memory', `${fmtInt(c.streamingMemory)} (loads and stores of OffChip tensors)`] : null,
            r.graph.phases?.length ? ['Per execution phase', r.graph.phases.map((p) => `phase ${p.phase} (IPU ${p.ipu}): ${fmtInt(p.cycles)}`).join(' · ')] : null]
          .filter(Boolean).flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
      col.append(facts, el('h4', { text: 'Cycles per step (one micro-batch)' }), host);
      const chart = new CanvasChart(host, {
        height: 240,
        label: `Execution, ${r.label ?? s}: cycles of each of ${steps.length} steps split into compute ${fmtInt(totals.compute)}, exchange ${fmtInt(totals.exchange)} and sync ${fmtInt(totals.sync)} cycles; ${fmtInt(totals.cycles)} in all. The table below has the figures.`,
        count: () => steps.length,
        hit: (x, y, g) => (x < g.left || x > g.left + g.width ? -1 : Math.min(steps.length - 1, Math.floor(((x - g.left) / g.width) * steps.length))),
        position: (i, g) => ({ x: g.left + ((i + 0.5) / steps.length) * g.width, y: g.top + 10 }),
        onHover: () => chart.draw(),
        onSelect: (i) => this.#selectOp(s, r.rows[i], false),
        tooltip: (i) => { const x = steps[i]; return `<b>Step ${i}</b> <code>${esc(x.name)}</code> (${esc(x.type)})<table><tr><td>Compute</td><td class="num">${fmtInt(x.compute)}</td></tr><tr><td>Exchange</td><td class="num">${fmtInt(x.exchange)}</td></tr><tr><td>Sync</td><td class="num">${fmtInt(x.sync)}</td></tr>${x.other ? `<tr><td>Copies</td><td class="num">${fmtInt(x.other)}</td></tr>` : ''}<tr class="rv-tip-total"><td>Total</td><td class="num">${fmtInt(x.cycles)}</td></tr></table>`; },
        draw: (ctx, g) => {
          const y = chart.yAxis(ctx, g, yMax, niceTicks(yMax, 5), fmtShort);
          const w = g.width / steps.length;
          const sel = new Set(this.selectedOp?.steps ?? []);
          steps.forEach((x, i) => {
            let b = 0;
            for (const k of ['sync', 'exchange', 'compute', 'other']) {
              const v = x[k];
              if (!v) continue;
              ctx.fillStyle = chart.color(SPLIT_COLORS[k]);
              const y0 = y(b), y1 = y(b + v);
              const bw = w > 4 ? Math.min(w - 1, 56) : Math.max(w, 0.6);
              ctx.fillRect(g.left + i * w + (w - bw) / 2, y1, bw, y0 - y1);
              b += v;
            }
            if (sel.has(i) || chart.hover === i) {
              ctx.strokeStyle = chart.color(sel.has(i) ? '--focus' : '--muted');
              ctx.lineWidth = 2;
              ctx.strokeRect(g.left + i * w - 1, g.top, Math.max(w, 2) + 2, g.height);
            }
          });
          chart.xAxis(ctx, g, steps.length, (i) => g.left + (i + 0.5) * w, 'schedule step');
        },
      });
      this.charts.push(chart);
      chart.draw();
      col.append(dataTable(`Table: cycles per step (${steps.length} steps)`, ['Step', 'Op', 'Type', 'Compute', 'Exchange', 'Sync', 'Copies', 'Total'],
        () => steps.map((x, i) => [i, x.name, x.type, fmtInt(x.compute), fmtInt(x.exchange), fmtInt(x.sync), fmtInt(x.other), fmtInt(x.cycles)]), { cap: 300, testid: 'execution-table' }));
      col.append(this.#runs(r));
    });
  }

  // ------------------------------------------------------------------ timeline

  #fillTimeline(panel) {
    // Two reports share one cycle axis, so the longer one shows as longer.
    const extent = Math.max(...this.#present().filter((q) => this.slots[q].graph).map((q) => this.slots[q].timeline.total));
    panel.append(this.#legend([['Sync', TIMELINE_COLORS.sync], ['Exchange', TIMELINE_COLORS.exchange], ['Compute', TIMELINE_COLORS.compute],
                               ['Host transfers, streaming memory', TIMELINE_COLORS.host]],
                              [['Inter-IPU copy', '--fg', 'arrow'], ['Selected op', '--focus', 'box']]));
    this.#columns(panel, (col, r, s) => {
      if (!r.graph) return;
      const tl = r.timeline;
      const c = r.graph.cycles;
      const clock = r.graph.target.clockFrequency;
      const shape = runShape(r.execution);
      const time = (v) => `${fmtInt(v)} cycles${clock ? ` (${fmtSeconds(v / clock)})` : ''}`;
      const facts = r.replicas.count > 1 ? [['Replicas', `${fmtInt(r.replicas.count)} in parallel: the lanes are one replica's IPUs; every replica runs the same supersteps at the same time` +
        `${c.replicaAllReduce ? ` (the all-reduce across them: ${fmtInt(c.replicaAllReduce)} cycles of exchange per micro-batch)` : ''}`]] : [];
      facts.push(...(tl.pipelined
        ? [['Shown', `${tl.microBatches < tl.runMicroBatches ? `the first ${fmtInt(tl.microBatches)} of ${fmtInt(tl.runMicroBatches)}` : fmtInt(tl.microBatches)} micro-batch${tl.microBatches === 1 ? '' : 'es'} through ${tl.pipeline.stages} pipeline stages${shape ? ` (the run “${shape.run.name || 'run'}”)` : ' (no run yet: one micro-batch)'}`],
           ['Pipeline', `fill ${fmtInt(tl.pipeline.fill)} · steady state ${fmtInt(tl.pipeline.steady)} · drain ${fmtInt(tl.pipeline.drain)} cycles`],
           ['Host transfers', `${fmtInt(tl.microBatches * (tl.h2d + tl.d2h))} cycles after the pipeline, as the IPU model counts them`],
           ['Total', time(tl.total)]]
        : [['Shown', `one micro-batch${shape && shape.microBatches > 1 ? ` (the run “${shape.run.name || 'run'}” repeats it ${fmtInt(shape.microBatches)} times)` : ''}: the ops in schedule order, one superstep each; the other IPUs wait`],
           ['Device', `${fmtInt(c.perMicroBatch)} cycles${c.perIpu?.length > 1 ? ` (${c.perIpu.map((v, i) => `IPU ${i}: ${fmtInt(v)}`).join(' · ')})` : ''}`],
           ['Host transfers', `${fmtInt(tl.h2d)} in, ${fmtInt(tl.d2h)} out`],
           ['Total', time(tl.total)]]));
      if (tl.copies.length) facts.push(['Inter-IPU copies', `${tl.copies.length} per micro-batch, ${fmtInt(c.interIpuCopies)} cycles in the receiving ops' exchange${tl.copies.some((x) => !x.exact) ? ' (placed by the tensors\' IPUs and last readers: this report does not list the ops\' inputs)' : ''}`]);
      col.append(el('dl', { class: 'rv-facts', 'data-testid': 'timeline-facts', 'data-slot': s }, ...facts.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])));
      const host = el('div', { 'data-testid': 'timeline-chart', 'data-slot': s, 'data-ipus': tl.numIpus, 'data-lanes': tl.lanes.length,
                               'data-lane-ipus': tl.lanes.map((l) => (l.host ? 'host' : l.ipu)).join(','),
                               'data-lane-stages': tl.lanes.map((l) => l.stage ?? '').join(','),
                               'data-total-cycles': tl.total, 'data-extent': extent, 'data-ipu-cycles': tl.ipuCycles.join(','), 'data-mode': tl.pipelined ? 'pipeline' : 'micro-batch',
                               'data-micro-batches': tl.microBatches, 'data-run-micro-batches': tl.runMicroBatches, 'data-copies': tl.arrows.length, 'data-blocks': tl.blocks.length,
                               ...(tl.pipeline ? { 'data-fill': tl.pipeline.fill, 'data-steady': tl.pipeline.steady, 'data-drain': tl.pipeline.drain } : {}) });
      const zoomBar = el('div', { class: 'rv-zoom' }, el('span', { class: 'rv-muted rv-small' }),
        el('button', { type: 'button', class: 'rv-more', 'data-testid': 'timeline-zoom-reset', text: 'Reset zoom' }));
      zoomBar.hidden = true;
      col.append(host, zoomBar);
      const chart = timelineChart(host, tl, {
        rows: r.rows, clock, zoomBar, extent,
        label: `Execution timeline, ${r.label ?? s}: ${tl.lanes.length} lanes (${tl.lanes.map((l) => l.label).join(', ')}), ${fmtInt(tl.total)} cycles; each op a superstep of sync, exchange and compute${tl.arrows.length ? `; ${tl.arrows.length} inter-IPU copies` : ''}. Zoom with the wheel, + and -, or a drag; the table below has the figures.`,
        zoom: { get: () => this.timeZoom[s], set: (z) => { this.timeZoom[s] = z; } },
        selectedSteps: () => new Set(this.selectedOp?.steps ?? []),
        onSelect: (row) => this.#selectOp(s, row, false),
      });
      this.charts.push(chart);
      chart.draw();
      const ops = tl.blocks.filter((b) => b.kind === 'op');
      col.append(dataTable(`Table: the timeline's supersteps (${ops.length})`,
        ['Step', 'Op', 'Type', 'IPU', ...(tl.pipelined ? ['Stage', 'Micro-batch'] : []), 'Start', 'End', 'Sync', 'Exchange', 'Compute'],
        () => ops.map((b) => { const x = r.rows[b.step]; return [b.step, x.name, x.type, x.ipu, ...(tl.pipelined ? [x.stage, b.micro] : []), fmtInt(b.start), fmtInt(b.end), fmtInt(b.sync), fmtInt(b.exchange), fmtInt(b.compute)]; }),
        { cap: 300, testid: 'timeline-table' }));
    });
  }

  // ------------------------------------------------------------------ program tree

  #fillProgram(panel) {
    const expand = el('button', { type: 'button', class: 'rv-more', 'data-testid': 'program-tree-expand-all', text: 'Expand all' });
    const collapse = el('button', { type: 'button', class: 'rv-more', 'data-testid': 'program-tree-collapse-all', text: 'Collapse all' });
    expand.addEventListener('click', () => { for (const t of this.trees) t.expandAll(); });
    collapse.addEventListener('click', () => { for (const t of this.trees) t.collapseAll(); });
    panel.append(el('div', { class: 'rv-controls' }, expand, collapse,
      el('span', { class: 'rv-muted rv-small', text: 'The schedule as nested programs; cycles per micro-batch. Click an op (or Enter) to select it in the graph, the op table and the charts; arrow keys move.' })));
    this.#columns(panel, (col, r, s) => {
      if (!r.graph) return;
      const wrap = el('div', { class: 'pt-wrap' });
      col.append(wrap);
      const tree = new ProgramTree(wrap, r.program, {
        rows: r.rows, total: r.graph.cycles?.perMicroBatch || r.split.totals.cycles, label: `Program tree, ${r.label ?? s}`,
        onSelect: (row) => this.#selectOp(s, row, false),
      });
      tree.tree.dataset.slot = s;
      this.trees.push(tree);
    });
  }

  #runs(r) {
    const runs = r.execution?.runs ?? [];
    const box = el('div', { class: 'rv-runs' }, el('h4', { text: 'Runs' }));
    if (!runs.length) {
      box.append(el('p', { class: 'rv-muted', text: r.error ? 'Not run: the program does not fit.' : 'No run yet: run the session to see its cycles and time.' }));
      return box;
    }
    const anyPipe = runs.some((x) => x.pipeline);
    box.append(el('table', { class: 'rv-table', 'data-testid': 'runs-table' },
      el('thead', {}, el('tr', {}, ['Run', 'Micro-batches', 'Cycles', 'Modelled time', ...(anyPipe ? ['Fill', 'Steady', 'Drain'] : [])].map((h, i) => el('th', { scope: 'col', class: i ? 'num' : '', text: h })))),
      el('tbody', {}, runs.map((x, i) => el('tr', {}, el('th', { scope: 'row', text: x.name || `run ${i}` }), el('td', { class: 'num', text: fmtInt(x.microBatches) }),
        el('td', { class: 'num', text: fmtInt(x.cycles) }), el('td', { class: 'num', text: fmtSeconds(x.seconds) }),
        ...(anyPipe ? ['fill', 'steady', 'drain'].map((k) => el('td', { class: 'num', text: x.pipeline ? fmtInt(x.pipeline[k]) : '–' })) : []))))));
    for (const x of runs.filter((q) => q.pipeline).slice(0, 4)) {
      const { fill, steady, drain } = x.pipeline;
      const sum = fill + steady + drain || 1;
      const host = x.cycles - sum;
      const all = sum + Math.max(0, host);
      box.append(el('div', { class: 'rv-pipe', role: 'img', 'data-testid': 'pipeline-bar',
                             'aria-label': `Pipeline of run ${x.name}: fill ${fmtInt(fill)}, steady state ${fmtInt(steady)}, drain ${fmtInt(drain)} cycles, host transfers ${fmtInt(host)}` },
        el('span', { class: 'rv-pipe-fill', style: `flex:${fill / all}`, text: 'fill' }),
        el('span', { class: 'rv-pipe-steady', style: `flex:${steady / all}`, text: 'steady state' }),
        el('span', { class: 'rv-pipe-drain', style: `flex:${drain / all}`, text: 'drain' }),
        host > 0 ? el('span', { class: 'rv-pipe-host', style: `flex:${host / all}`, text: 'host' }) : null));
    }
    const sim = r.execution?.simulation;
    if (sim) box.append(el('p', { class: 'rv-muted rv-small', text: `All runs: ${fmtInt(sim.cycles)} cycles (${fmtSeconds(sim.cycles / r.graph.target.clockFrequency)} modelled).` }));
    return box;
  }

  // ------------------------------------------------------------------ CPU host time

  #fillHost(panel) {
    panel.append(el('p', { class: 'rv-note', text: 'Measured wall-clock time per op on this machine (the CPU device running in this page): not modelled IPU cycles, and it varies from run to run.' }));
    this.#columns(panel, (col, r, s) => {
      const list = [...(r.hostTimes ?? [])].sort((a, b) => b.seconds - a.seconds);
      if (!list.length) { col.append(el('p', { class: 'rv-empty', text: 'No host times (CPU device with profiling on only).' })); return; }
      const hasCalls = list.some((x) => typeof x.calls === 'number');
      const group = makeGrouper(list, []);
      const sum = list.reduce((a, b) => a + b.seconds, 0) || 1;
      const max = list[0].seconds || 1;
      col.append(el('p', { class: 'rv-muted rv-small', text: hasCalls
        ? `Total time of each op over its calls since the session was prepared (${fmtInt(Math.max(...list.map((x) => x.calls ?? 0)))} calls at most); per call = total / calls.`
        : 'Time per micro-batch of the slowest ops (from the summary report).' }));
      const chart = el('ol', { class: 'rv-bars rv-host', role: 'img', 'data-testid': 'host-time-chart', 'data-slot': s,
                               'aria-label': `Measured host time per op, ${r.label ?? s}: ${list.length} ops, slowest ${list[0].name} ${fmtSeconds(list[0].seconds)}; total ${fmtSeconds(sum)}. The table below has the figures.` });
      for (const x of list.slice(0, 25)) {
        chart.append(el('li', {}, el('span', { class: 'rv-bar-label', title: x.name, text: x.name }),
          el('span', { class: 'rv-bar-track' }, el('span', { class: 'rv-bar', style: `width:${(100 * x.seconds) / max}%` })),
          el('span', { class: 'rv-bar-value', text: `${fmtSeconds(x.seconds)} (${((100 * x.seconds) / sum).toFixed(1)}%)` })));
      }
      if (list.length > 25) chart.append(el('li', { class: 'rv-muted rv-small', text: `… ${list.length - 25} more ops in the table` }));
      col.append(chart);
      const heads = ['Op', 'Type', ...(hasCalls ? ['Calls', 'Total time', 'Per call'] : ['Time']), 'Share'];
      const select = (x) => this.cb.onSelectOp?.({ opName: x.name, nodeName: group(x).key });
      const t = el('table', { class: 'rv-table', 'data-testid': 'host-time-table', 'data-slot': s },
        el('caption', { text: `Host time per op (${list.length} ops, sorted, measured)` }),
        el('thead', {}, el('tr', {}, heads.map((h, i) => el('th', { scope: 'col', class: i > 1 ? 'num' : '', text: h })))),
        el('tbody', {}, list.map((x) => el('tr', { tabindex: '0', 'data-op-name': x.name, 'data-seconds': x.seconds, onclick: () => select(x),
                                                   onkeydown: (e) => { if (e.key === 'Enter') select(x); } },
          el('th', { scope: 'row', class: 'rv-name', text: x.name }), el('td', { text: x.type ?? '' }),
          ...(hasCalls ? [el('td', { class: 'num', text: fmtInt(x.calls) }), el('td', { class: 'num', text: fmtSeconds(x.seconds) }),
                          el('td', { class: 'num', text: x.calls ? fmtSeconds(x.seconds / x.calls) : '–' })]
                       : [el('td', { class: 'num', text: fmtSeconds(x.seconds) })]),
          el('td', { class: 'num', text: `${((100 * x.seconds) / sum).toFixed(1)}%` })))));
      col.append(t);
      const runs = r.execution?.runs ?? [];
      if (runs.length) col.append(el('p', { class: 'rv-muted rv-small', text: `Runs (measured): ${runs.map((x) => `${x.name || 'run'} ${fmtSeconds(x.seconds)}`).join(' · ')}` }));
    });
  }
}
