// What the Train tab shows of a training besides its curves, as tfjs-vis shows it: the confusion
// matrix of the validation split after the latest evaluation, and each weight's value histogram
// over training (the first and the latest overlaid, and a strip of every step's). Both are also
// readable as tables, and carry their numbers as data attributes.
import { h, clear, cssVar, formatNumber, shapeText } from './util.js';

/// Classes up to this many are a table of counts; more are a heat map with the largest confusions listed.
const TABLE_CLASSES = 30;

/// The validation split's confusion matrix (rows: true class, columns: predicted), cells shaded by
/// their share of the row. `names(c)` gives class names (or null). `update` keeps an evaluation,
/// `draw` shows the latest kept.
export function createConfusionMatrix(container, names) {
  const note = h('p.muted', {}, 'After the first evaluation: the validation samples by true and predicted class.');
  const box = h('figure.confusion', { testid: 'confusion-matrix', dataset: { total: '0', correct: '0', classes: '0' } });
  container.append(h('h3', {}, 'Confusion matrix (validation)'), note, box);
  let last = null;
  let drawn = null;

  function render() {
    drawn = last;
    clear(box);
    if (!last) return;
    const { validation: v, step } = last;
    const c = v.classes;
    const label = names?.(c) ?? null;
    const name = (i) => label?.[i] ?? String(i);
    let correct = 0, total = 0;
    const rows = Array.from({ length: c }, (_, t) => v.confusion.slice(t * c, (t + 1) * c));
    rows.forEach((row, t) => row.forEach((n, p) => { total += n; if (t === p) correct += n; }));
    Object.assign(box.dataset, { total: String(total), correct: String(correct), classes: String(c), step: String(step) });
    const caption = `After step ${step}: ${total} validation samples, ${correct} (${((100 * correct) / (total || 1)).toFixed(1)}%) on the ` +
      'diagonal. Rows: true class; columns: predicted; shade: share of the row.';
    note.textContent = caption;
    if (c <= TABLE_CLASSES) {
      box.append(h('table.data.confusion-table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', title: 'true class (rows) \\ predicted class (columns)' }, 'true \\ pred'),
          rows.map((_, p) => h('th.num', { scope: 'col' }, name(p))))),
        h('tbody', {}, rows.map((row, t) => {
          const sum = row.reduce((a, b) => a + b, 0) || 1;
          return h('tr', {}, h('th', { scope: 'row' }, name(t)), row.map((n, p) => {
            const share = Math.round((100 * n) / sum);
            return h(`td.num${t === p ? '.diagonal' : ''}`, {
              dataset: { true: String(t), pred: String(p), count: String(n) },
              title: `true ${name(t)}, predicted ${name(p)}: ${n} (${share}% of ${name(t)})`,
              style: { background: n ? `color-mix(in srgb, var(--chart-1) ${share}%, transparent)` : '', color: share > 55 ? 'var(--accent-fg)' : '' },
            }, n);
          }));
        }))));
      return;
    }
    // Many classes: a heat map (one pixel per cell) and the largest confusions as a table.
    const canvas = h('canvas', { width: c, height: c, role: 'img', 'aria-label': caption });
    const ctx = canvas.getContext('2d');
    const img = ctx.createImageData(c, c);
    const rgb = cssVar('--chart-1').match(/[0-9a-f]{2}/gi)?.map((x) => parseInt(x, 16)) ?? [36, 99, 235];
    const off = [];
    rows.forEach((row, t) => {
      const sum = row.reduce((a, b) => a + b, 0) || 1;
      row.forEach((n, p) => {
        const i = (t * c + p) * 4;
        img.data.set([...rgb, Math.round((255 * n) / sum)], i);
        if (t !== p && n) off.push([n, t, p]);
      });
    });
    ctx.putImageData(img, 0, 0);
    off.sort((a, b) => b[0] - a[0]);
    box.append(canvas, h('table.data', {}, h('caption', {}, 'The largest confusions'),
      h('thead', {}, h('tr', {}, h('th', {}, 'true'), h('th', {}, 'predicted'), h('th.num', {}, 'count'))),
      h('tbody', {}, off.slice(0, 10).map(([n, t, p]) => h('tr', {}, h('td', {}, name(t)), h('td', {}, name(p)), h('td.num', {}, n))))));
  }

  return {
    update(validation, step) {
      last = { validation, step };
    },
    draw() { if (last !== drawn) render(); },
    reset(text = 'After the first evaluation: the validation samples by true and predicted class.') {
      last = null;
      drawn = null;
      note.textContent = text;
      Object.assign(box.dataset, { total: '0', correct: '0', classes: '0' });
      delete box.dataset.step;
      clear(box);
    },
    redraw: render,
  };
}

/// `counts` over [lo, hi) spread onto `bins` equal bins over [from, to) by overlap.
function rebin({ histMin: lo, histMax: hi, counts }, from, to, bins) {
  const out = new Float64Array(bins);
  const w = (hi - lo) / counts.length, W = (to - from) / bins;
  counts.forEach((n, i) => {
    if (!n) return;
    const a = lo + i * w, b = a + w;
    const first = Math.max(0, Math.floor((a - from) / W)), last = Math.min(bins - 1, Math.floor((b - from) / W));
    for (let k = first; k <= last; ++k) {
      const overlap = Math.min(b, from + (k + 1) * W) - Math.max(a, from + k * W);
      if (overlap > 0) out[k] += (n * overlap) / w;
    }
  });
  return out;
}

const DISPLAY_BINS = 40;
const KEEP_STEPS = 200;

/// Each weight's value histogram over training: the first (outline) and the latest (filled) on
/// one axis, a strip with a row per step (darker: more values there), and the mean and std then
/// and now. `push(weights, step)` with weightHistogram()s named by weight keeps them; `draw` draws
/// the weights pushed since.
export function createWeightHistograms(container) {
  const grid = h('div.weight-hists', { testid: 'weight-histograms' });
  const table = h('table.data', {}, h('thead', {}, h('tr', {}, ['weight', 'shape', 'mean (first → latest)', 'std (first → latest)', 'min', 'max']
    .map((t, i) => h(i > 1 ? 'th.num' : 'th', {}, t)))), h('tbody'));
  container.append(h('h3', {}, 'Weights over training'),
    h('p.muted', {}, 'Each weight\'s values: the histogram at the first step (outline) and the latest (filled); below, one row per step.'),
    grid, h('details', {}, h('summary', {}, 'Weights as a table'), table));
  const history = new Map();  // name -> {shape, steps: [{step, ...histogram}], el}
  const stale = new Set();

  function draw(name) {
    const w = history.get(name);
    const first = w.steps[0], latest = w.steps[w.steps.length - 1];
    const lo = Math.min(...w.steps.map((s) => s.histMin)), hi = Math.max(...w.steps.map((s) => s.histMax));
    const ink = cssVar('--chart-1'), muted = cssVar('--muted'), border = cssVar('--border');
    // The first and latest on one axis.
    const ov = w.overlay;
    const ctx = ov.getContext('2d');
    const { width: cw, height: ch } = ov;
    ctx.clearRect(0, 0, cw, ch);
    const a = rebin(latest, lo, hi, DISPLAY_BINS), b = rebin(first, lo, hi, DISPLAY_BINS);
    const max = Math.max(1e-9, ...a, ...b);
    const bw = cw / DISPLAY_BINS;
    ctx.fillStyle = ink;
    ctx.globalAlpha = 0.6;
    a.forEach((n, i) => { const y = ((ch - 2) * n) / max; ctx.fillRect(i * bw, ch - y, Math.max(1, bw - 0.5), y); });
    ctx.globalAlpha = 1;
    ctx.strokeStyle = muted;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    b.forEach((n, i) => { const y = ch - ((ch - 2) * n) / max; if (i) ctx.lineTo(i * bw, y); else ctx.moveTo(0, y); ctx.lineTo((i + 1) * bw, y); });
    ctx.stroke();
    if (lo < 0 && hi > 0) {  // zero
      ctx.strokeStyle = border;
      ctx.lineWidth = 1;
      const x = Math.round((cw * (0 - lo)) / (hi - lo)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, ch); ctx.stroke();
    }
    // A row per step, each row's largest bin darkest.
    const st = w.strip;
    const sc = st.getContext('2d');
    sc.clearRect(0, 0, st.width, st.height);
    sc.fillStyle = ink;
    const rowH = st.height / w.steps.length;
    w.steps.forEach((s, r) => {
      const bins = rebin(s, lo, hi, DISPLAY_BINS);
      const m = Math.max(1e-9, ...bins);
      bins.forEach((n, i) => {
        if (!n) return;
        sc.globalAlpha = Math.min(1, 0.08 + (0.92 * n) / m);
        sc.fillRect(i * bw, r * rowH, bw, Math.max(1, rowH));
      });
    });
    sc.globalAlpha = 1;
    w.axis.replaceChildren(h('span', {}, formatNumber(lo, 3)), h('span', {}, formatNumber(hi, 3)));
    const then = (k) => `${formatNumber(first[k], 3)} → ${formatNumber(latest[k], 3)}`;
    const moved = `mean ${then('mean')}, std ${then('std')}`;
    w.moved.textContent = moved;
    ov.setAttribute('aria-label', `${name}: values from ${formatNumber(latest.min)} to ${formatNumber(latest.max)} at step ${latest.step}; ${moved}`);
    st.setAttribute('aria-label', `${name}: its histogram at each of ${w.steps.length} steps`);
    Object.assign(w.el.dataset, {
      steps: String(w.steps.length), step: String(latest.step), count: String(latest.count),
      counts: latest.counts.join(','), histMin: String(latest.histMin), histMax: String(latest.histMax),
      firstCounts: first.counts.join(','), firstHistMin: String(first.histMin), firstHistMax: String(first.histMax),
      mean: String(latest.mean), std: String(latest.std),
    });
    w.row.replaceChildren(h('td.mono', {}, name), h('td', {}, shapeText(w.shape)), h('td.num', {}, then('mean')), h('td.num', {}, then('std')),
      h('td.num', {}, formatNumber(latest.min)), h('td.num', {}, formatNumber(latest.max)));
  }

  return {
    push(weights, step) {
      for (const wt of weights ?? []) {
        let w = history.get(wt.name);
        if (!w) {
          const overlay = h('canvas', { width: 200, height: 52, role: 'img' });
          const strip = h('canvas.strip', { width: 200, height: 36, role: 'img' });
          const axis = h('div.hist-axis');
          const moved = h('div.muted.small');
          const el = h('figure.weight-hist', { dataset: { weight: wt.name } },
            h('figcaption', {}, h('span.mono', {}, wt.name), ' ', h('span.muted', {}, shapeText(wt.shape))), overlay, axis, strip, moved);
          const row = h('tr');
          w = { shape: wt.shape, steps: [], el, overlay, strip, axis, moved, row };
          history.set(wt.name, w);
          grid.append(el);
          table.tBodies[0].append(row);
        }
        w.steps.push({ step, ...wt });
        if (w.steps.length > KEEP_STEPS) w.steps.splice(1, 1);  // the first stays
        stale.add(wt.name);
      }
    },
    draw() {
      for (const name of stale) draw(name);
      stale.clear();
    },
    reset() {
      history.clear();
      stale.clear();
      clear(grid);
      clear(table.tBodies[0]);
    },
    redraw() { for (const name of history.keys()) draw(name); },
  };
}
