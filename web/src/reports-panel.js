// The Reports panel: fetches the profiling reports of the last session from the runtime worker
// (summary text, graph and execution reports as JSON) and hands them to the ReportsView; keeps a
// second report for side-by-side comparison; an out-of-memory prepare shows what did not fit; ops
// selected in the reports and nodes selected in the graph follow each other.
import { ReportsView } from './reports/reports-view.js';
import './reports/reports.css';
import { h } from './util.js';

export function createReportsPanel(el, app) {
  const refresh = h('button.primary', { type: 'button', testid: 'report-refresh' }, 'Get the report');
  const pin = h('button', { type: 'button', testid: 'report-compare', disabled: true }, 'Keep as B (compare)');
  const unpin = h('button', { type: 'button', testid: 'report-compare-clear', hidden: true }, 'Clear B');
  const note = h('p.muted', { 'aria-live': 'polite' }, 'Run or train the model, then get its report. Choose an IPU model device for memory and cycles; the CPU device reports the measured host time per op.');
  const host = h('div.reports-host');
  el.append(h('h2', {}, 'Reports'), h('div.button-row', {}, refresh, pin, unpin), note, host);
  // An op selected in a report selects its ONNX node in the graph; a node selected in the graph
  // (or the search) marks its ops in the reports (the op table, liveness, timeline, program tree).
  let fromReport = false;
  const view = new ReportsView(host, {
    onSelectOp: ({ nodeName }) => {
      if (!nodeName) return;
      fromReport = true;
      try { app.selectNode(nodeName); } finally { fromReport = false; }
    },
    onSelectTile: () => {},
  });
  app.on('node', (name) => { if (name && !fromReport && current?.graph) view.highlightOp(name); });
  app.reports = view;
  let current = null;
  let label = '';

  function deviceLabel(d) {
    if (!d || d.type === 'cpu') return 'CPU';
    const r = d.replicas ?? 1;
    const tiles = `${d.options.tilesPerIPU ?? '?'} tiles`;
    const where = r > 1 ? `${r} replicas × ${d.ipusPerReplica ?? (d.options.numIPUs ?? r) / r} IPU × ${tiles}` : `${tiles} × ${d.options.numIPUs ?? 1} IPU`;
    return `${d.type === 'offlineIpu' ? 'offline ' : ''}${d.options.ipuVersion}, ${where}`;
  }

  async function fetchReport() {
    try {
      const r = await app.runtime.request('report', {});
      const hostTimes = r.execution?.hostOps ?? null;
      current = { label, summary: r.summary, graph: r.graph, execution: r.execution, hostTimes };
      app.lastReport = r;
      view.setReport('A', current);
      pin.disabled = false;
      note.textContent = `Report A: ${label}.`;
    } catch (e) {
      app.showError(e, 'Report');
    }
  }
  refresh.addEventListener('click', fetchReport);
  pin.addEventListener('click', () => {
    if (!current) return;
    view.setReport('B', { ...current, label: `B: ${current.label}` });
    unpin.hidden = false;
    note.textContent = `Comparing: A is the next report you get (change the device or tiles and run again); B is ${current.label}.`;
  });
  unpin.addEventListener('click', () => {
    view.clear('B');
    unpin.hidden = true;
  });
  app.on('session', ({ kind, device }) => {
    label = `${app.model?.name ?? 'model'} — ${kind} on ${deviceLabel(device)}`;
    if (app.state.tab === 'tab-reports' || device.type !== 'cpu') fetchReport();
  });
  // A prepare out of memory (an OutOfMemoryException from Run or Train, `context`): one line in the
  // error banner, and the report of what did not fit (its graph report: every tile's memory).
  app.on('oom', ({ error, context, device }) => {
    const first = error.message.split('\n')[0].replace(/\s*Worst tiles:\s*$/, '');
    app.showError(new Error(`${first} — the Reports tab shows the memory of every tile.`), context);
    label = `${app.model?.name ?? 'model'} on ${deviceLabel(device)} (out of memory)`;
    current = { label, summary: error.summaryReport, graph: error.graph ?? null, execution: null, error: error.message };
    view.setReport('A', current);
    app.workTabs.select('tab-reports');
    note.textContent = 'The model does not fit: the report shows what did not fit.';
  });
  // The Run tab's out-of-memory badge: the memory view of the report (fetched after the run).
  app.on('show-memory', async () => {
    if (!current) await fetchReport();
    host.querySelector('[role=tab][data-tab="memory"]')?.click();
  });
  app.on('model', () => {
    current = null;
    pin.disabled = true;
  });
}
