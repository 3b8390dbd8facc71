// The execution timeline (PopVision's execution trace): one lane per IPU (per pipeline stage when
// pipelined) and the host, each op a superstep of sync, exchange and compute over cycles, the
// inter-IPU copies as arrows; zooms like the per-tile chart (wheel, + / -, drag, double-click).
// The layout is schedule.js's timeline(); this draws it on a CanvasChart (charts.js).
import { CanvasChart, attachRangeZoom, niceTicks, withAlpha } from './charts.js';
import { fmtInt, fmtShort, fmtSeconds } from './model.js';

export const TIMELINE_COLORS = { sync: '--chart-5', exchange: '--chart-2', compute: '--chart-1', other: '--chart-4', host: '--chart-6' };
const LANE = 46, BAR = 24, LABEL_ROW = 15;
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/// Draws the timeline `tl` of report `r` into `host` (the element with data-testid timeline-chart).
/// ctx: { rows (opRows), clock (Hz), label, extent (the axis' cycles: the longer of two reports
/// compared, else tl.total), zoom: { get, set }, selectedSteps() -> Set, onSelect(row), zoomBar
/// (element: text + reset button) }. Returns the chart.
export function timelineChart(host, tl, ctx) {
  const { rows, clock } = ctx;
  const n = Math.max(1, ctx.extent ?? tl.total);
  const view = () => ctx.zoom.get() ?? { from: 0, to: n };
  const laneTop = (l, g) => g.top + l * LANE + LABEL_ROW;
  const segs = (b) => (b.kind === 'op'
    ? [['sync', b.sync], ['exchange', b.exchange], ['compute', b.compute], ['other', b.other]]
    : [[b.kind === 'sync' ? 'sync' : 'host', b.end - b.start]]);
  const lookup = (lane, v) => {
    const list = tl.byLane[lane];
    let lo = 0, hi = list.length - 1, hit = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const b = tl.blocks[list[mid]];
      if (b.start <= v) { hit = mid; lo = mid + 1; } else hi = mid - 1;
    }
    // Several blocks can start at v (zero-cycle ops): take the last one that covers it.
    for (let k = hit; k >= 0; --k) {
      const b = tl.blocks[list[k]];
      if (b.start <= v && v < b.end) return list[k];
      if (b.end <= v && b.start < v) break;
    }
    return -1;
  };
  const stats = tl.lanes.map((l, i) => {
    if (l.host) return tl.blocks.filter((b) => b.lane === i).reduce((a, b) => a + b.end - b.start, 0);
    return tl.blocks.filter((b) => b.lane === i && b.kind !== 'sync').reduce((a, b) => a + b.end - b.start, 0);
  });
  const chart = new CanvasChart(host, {
    height: 8 + tl.lanes.length * LANE + 40,
    margin: { left: 96, right: 14, top: 8, bottom: 36 },
    label: ctx.label,
    count: () => tl.blocks.length,
    hit: (x, y, g) => {
      if (x < g.left || x > g.left + g.width) return -1;
      const lane = Math.floor((y - g.top) / LANE);
      if (lane < 0 || lane >= tl.lanes.length) return -1;
      const { from, to } = view();
      return lookup(lane, from + ((x - g.left) / g.width) * (to - from));
    },
    position: (i, g) => {
      const b = tl.blocks[i];
      let { from, to } = view();
      const span = to - from;
      if (b.end < from || b.start > to || (b.end - b.start < span && (b.start < from || b.end > to))) {
        from = Math.max(0, Math.min(n - span, (b.start + b.end) / 2 - span / 2));
        if (span < n) ctx.zoom.set({ from, to: from + span });
        to = from + span;
        chart.draw();
      }
      const mid = (Math.max(b.start, from) + Math.min(b.end, to)) / 2;
      return { x: g.left + ((mid - from) / (to - from)) * g.width, y: laneTop(b.lane, g) + BAR };
    },
    onHover: () => chart.draw(),
    onSelect: (i) => { const b = tl.blocks[i]; if (b?.kind === 'op') ctx.onSelect(rows[b.step]); },
    tooltip: (i) => tooltip(tl, rows, i, clock),
    draw: (c, g) => draw(c, g),
  });
  const zoomer = attachRangeZoom(chart, {
    n, minSpan: Math.min(n, 40), integer: false, get: ctx.zoom.get, set: ctx.zoom.set,
    valueAt: (x, g) => { const { from, to } = view(); return from + ((x - g.left) / g.width) * (to - from); },
    focusValue: () => { const b = tl.blocks[chart.focusIndex]; return b ? (b.start + b.end) / 2 : undefined; },
  });
  ctx.zoomBar?.querySelector('button')?.addEventListener('click', () => zoomer.reset());

  function draw(c, g) {
    const { from, to } = view();
    const span = to - from;
    const x = (v) => g.left + ((v - from) / span) * g.width;
    host.dataset.viewFrom = String(Math.round(from));
    host.dataset.viewTo = String(Math.round(to));
    host.dataset.laneTop = tl.lanes.map((l, i) => laneTop(i, g)).join(',');
    host.dataset.laneHeight = String(BAR);
    if (ctx.zoomBar) {
      ctx.zoomBar.hidden = from === 0 && to === n;
      ctx.zoomBar.firstChild.textContent = `Cycles ${fmtInt(from)}–${fmtInt(to)} of ${fmtInt(n)}`;
    }
    const sel = ctx.selectedSteps();
    host.dataset.selectedSteps = [...sel].sort((a, b) => a - b).join(',');
    // Lane labels and bands.
    c.save();
    tl.lanes.forEach((l, i) => {
      const top = g.top + i * LANE;
      c.fillStyle = withAlpha(chart.color('--muted'), i % 2 ? 0.06 : 0.11);
      c.fillRect(g.left, top + LABEL_ROW - 3, g.width, BAR + 6);
      c.fillStyle = chart.color('--fg');
      c.font = `600 12px ${chart.color('--font', 'sans-serif')}`;
      c.textBaseline = 'middle';
      c.textAlign = 'left';
      c.fillText(l.host ? 'Host' : `IPU ${l.ipu}`, 8, laneTop(i, g) + 7);
      c.font = `11px ${chart.color('--font', 'sans-serif')}`;
      c.fillStyle = chart.color('--muted');
      const sub = l.host ? 'transfers' : l.stage !== undefined ? `stage ${l.stage} · ${pct(stats[i], tl.total)}` : `${pct(stats[i], tl.total)} busy`;
      c.fillText(sub, 8, laneTop(i, g) + 20);
    });
    c.restore();
    c.save();
    c.beginPath();
    c.rect(g.left, 0, g.width, g.H);
    c.clip();
    // Pipeline: the fill / steady state / drain parts, and each pipeline cycle's end.
    if (tl.pipeline) {
      const parts = [];
      for (const pc of tl.pipeline.cycles) {
        const last = parts.at(-1);
        if (last?.part === pc.part) last.end = pc.end;
        else parts.push({ ...pc });
      }
      c.font = `11px ${chart.color('--font', 'sans-serif')}`;
      c.textBaseline = 'top';
      for (const p of parts) {
        const x0 = x(p.start), x1 = x(p.end);
        if (x1 < g.left || x0 > g.left + g.width) continue;
        c.strokeStyle = chart.color('--border');
        c.setLineDash([3, 3]);
        c.beginPath(); c.moveTo(Math.round(x0) + 0.5, g.top); c.lineTo(Math.round(x0) + 0.5, g.top + g.height); c.stroke();
        c.setLineDash([]);
        c.fillStyle = chart.color('--muted');
        const text = { fill: 'fill', steady: 'steady state', drain: 'drain' }[p.part];
        if (x1 - x0 > c.measureText(text).width + 8) c.fillText(text, Math.max(g.left, x0) + 4, g.top + g.height + 2);
      }
    }
    // Blocks: each op's segments in time order (sync, exchange, compute), other blocks whole.
    const px = span / g.width;   // cycles per pixel
    tl.blocks.forEach((b, k) => {
      if (b.end < from || b.start > to || b.lane < 0) return;
      const top = laneTop(b.lane, g);
      let t = b.start;
      for (const [key, v] of segs(b)) {
        if (v <= 0) continue;
        c.fillStyle = chart.color(TIMELINE_COLORS[key]);
        const x0 = x(t), x1 = x(t + v);
        c.fillRect(x0, top, Math.max(x1 - x0, v / px > 0.3 ? 0.6 : 0), BAR);
        t += v;
      }
      // Superstep boundaries when they are wide enough to see.
      const w = x(b.end) - x(b.start);
      if (w >= 4 && b.kind === 'op') {
        c.fillStyle = chart.color('--bg');
        c.fillRect(Math.round(x(b.start)), top, 1, BAR);
      }
      const x0 = Math.max(g.left, x(b.start)), vis = Math.min(g.left + g.width, x(b.end)) - x0;   // the visible part
      if (b.kind === 'op' && vis > 46) {
        c.fillStyle = chart.color('--fg');
        c.font = `11px ${chart.color('--mono', 'monospace')}`;
        c.textBaseline = 'alphabetic';
        c.textAlign = 'left';
        const label = opLabel(c, rows[b.step].name, tl.pipelined && tl.microBatches > 1 ? ` · mb ${b.micro}` : '', vis - 6);
        if (label) c.fillText(label, x0 + 3, top - 3);
      }
      if (k === chart.hover || (b.kind === 'op' && sel.has(b.step))) {
        const on = b.kind === 'op' && sel.has(b.step);
        c.strokeStyle = chart.color(on ? '--focus' : '--fg');
        c.lineWidth = on ? 2 : 1;
        c.strokeRect(x(b.start) - 1, top - 1, Math.max(2, w) + 2, BAR + 2);
      }
    });
    // Inter-IPU copies: an arrow from the producer's superstep to the one that receives it.
    if (tl.arrows.length) {
      c.strokeStyle = withAlpha(chart.color('--fg'), 0.75);
      c.fillStyle = withAlpha(chart.color('--fg'), 0.75);
      c.lineWidth = 1.5;
      for (const a of tl.arrows) {
        const A = tl.blocks[a.fromBlock], B = tl.blocks[a.toBlock];
        const xa = x(A.end), xb = x(B.start) + 1;
        if (Math.max(xa, xb) < g.left || Math.min(xa, xb) > g.left + g.width) continue;
        const ya = laneTop(A.lane, g) + (B.lane > A.lane ? BAR : 0), yb = laneTop(B.lane, g) + (B.lane > A.lane ? 0 : BAR);
        c.beginPath(); c.moveTo(xa, ya); c.lineTo(xb, yb); c.stroke();
        const ang = Math.atan2(yb - ya, xb - xa);
        c.beginPath();
        c.moveTo(xb, yb);
        c.lineTo(xb - 7 * Math.cos(ang - 0.45), yb - 7 * Math.sin(ang - 0.45));
        c.lineTo(xb - 7 * Math.cos(ang + 0.45), yb - 7 * Math.sin(ang + 0.45));
        c.closePath();
        c.fill();
      }
    }
    c.restore();
    // The cycle axis.
    c.save();
    c.fillStyle = chart.color('--muted');
    c.strokeStyle = chart.color('--border');
    c.textAlign = 'center';
    c.textBaseline = 'top';
    for (const v of ticksIn(from, to, Math.max(2, Math.floor(g.width / 90)))) {
      const xx = Math.round(x(v)) + 0.5;
      c.beginPath(); c.moveTo(xx, g.top + g.height); c.lineTo(xx, g.top + g.height + 4); c.stroke();
      c.fillText(fmtShort(v), xx, g.top + g.height + 14);
    }
    c.textAlign = 'right';
    c.fillText(from === 0 && to === n ? 'cycles (wheel, + / − or drag to zoom)' : 'cycles (double-click to reset)', g.left + g.width, g.top + g.height + 25);
    c.restore();
  }
  return chart;
}

/// About `count` round values in [from, to] (a zoomed range does not start at 0).
function ticksIn(from, to, count) {
  const t = niceTicks(to - from, count);
  const step = t.length > 1 ? t[1] - t[0] : (to - from) || 1;
  const out = [];
  for (let v = Math.ceil(from / step) * step; v <= to + step * 1e-9; v += step) out.push(v);
  return out;
}

const pct = (v, n) => `${((100 * v) / (n || 1)).toFixed(0)}%`;

/// The op's name, or the longest tail of it (`/layer1/layer1.0/conv1/Conv` -> `layer1.0/conv1/Conv`,
/// `conv1/Conv`, `Conv`) that fits `width` with `suffix`; else that last part cut short.
function opLabel(c, name, suffix, width) {
  const parts = name.split('/').filter(Boolean);
  const tails = [name, ...parts.slice(1).map((_, k) => parts.slice(k + 1).join('/'))];
  for (const t of tails) if (c.measureText(t + suffix).width <= width) return t + suffix;
  const last = tails.at(-1);
  for (let k = last.length - 1; k > 2; --k) {
    const t = `${last.slice(0, k)}…`;
    if (c.measureText(t).width <= width) return t;
  }
  return '';
}

function tooltip(tl, rows, i, clock) {
  const b = tl.blocks[i];
  if (!b) return null;
  const when = `cycles ${fmtInt(b.start)}–${fmtInt(b.end)}${clock ? ` (${fmtSeconds(b.start / clock)} – ${fmtSeconds(b.end / clock)})` : ''}`;
  if (b.kind !== 'op') return `<b>${esc(b.label)}</b><br>${fmtInt(b.end - b.start)} cycles<br><span class="rv-muted">${when}</span>`;
  const r = rows[b.step];
  const lane = tl.lanes[b.lane];
  const where = [`IPU ${r.ipu ?? 0}`, lane.stage !== undefined ? `stage ${lane.stage}` : null,
                 tl.pipelined ? `micro-batch ${b.micro}` : null, `step ${r.step}`].filter(Boolean).join(' · ');
  const into = tl.copies.filter((x) => x.to === b.step);
  const row = (k, label, v) => `<tr><td><i class="rv-swatch" style="background:var(${TIMELINE_COLORS[k]})"></i>${label}</td><td class="num">${fmtInt(v)}</td></tr>`;
  return `<b><code>${esc(r.name)}</code></b> (${esc(r.type)})`
    + (r.node !== r.name ? `<br><span class="rv-muted">ONNX node</span> <code>${esc(r.node)}</code>` : '')
    + `<br><span class="rv-muted">${where}</span><table>${row('sync', 'Sync', b.sync)}${row('exchange', 'Exchange', b.exchange)}${row('compute', 'Compute', b.compute)}`
    + `${b.other ? row('other', 'Other', b.other) : ''}<tr class="rv-tip-total"><td>Total</td><td class="num">${fmtInt(b.end - b.start)}</td></tr></table>`
    + (into.length ? `<span class="rv-muted">Exchange includes the inter-IPU copy of ${into.map((x) => `<code>${esc(x.tensor)}</code>`).join(', ')} from IPU ${into[0].fromIpu}</span><br>` : '')
    + `<span class="rv-muted">${when} · click to select</span>`;
}
