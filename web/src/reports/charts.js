// A small canvas chart base shared by the reports views: HiDPI canvas sized to its host, axes
// with nice ticks, colours from the theme's CSS variables (read at each draw, so the theme toggle
// only needs a redraw), a hover tooltip, click and keyboard selection (Left / Right / Home / End
// move, Enter selects). Each chart supplies draw() and hit().

export function cssVar(el, name, fallback = '#888') {
  const v = getComputedStyle(el).getPropertyValue(name).trim();
  return v || fallback;
}

/// Nice tick values from 0 to max (about `count` of them).
export function niceTicks(max, count = 5) {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const ticks = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(v);
  return ticks;
}

/// Byte ticks on powers of two (KiB / MiB steps read naturally).
export function byteTicks(max, count = 5) {
  if (!(max > 0)) return [0];
  const raw = max / count;
  let step = 2 ** Math.ceil(Math.log2(raw));
  if (step / 2 >= raw * 0.75) step /= 2;
  // Prefer 1/2/5 multiples of 1 KiB / 1 MiB for readability.
  const unit = raw >= 1024 ** 2 ? 1024 ** 2 : raw >= 1024 ? 1024 : 1;
  const nice = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000].map((m) => m * unit).find((s) => s >= raw);
  if (nice) step = nice;
  const ticks = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(v);
  return ticks;
}

export class CanvasChart {
  /// host: the element to fill; opts: { height, label (aria-label), draw(ctx, g), hit(x, y, g) -> index | -1,
  /// count() -> items for keyboard moves, tooltip(index) -> html | null, onSelect(index), onHover(index) }
  constructor(host, opts) {
    this.host = host;
    this.opts = opts;
    this.hover = -1;
    this.focusIndex = -1;
    host.classList.add('rv-chart');
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('role', 'img');
    this.canvas.tabIndex = 0;
    this.tip = document.createElement('div');
    this.tip.className = 'rv-tip';
    this.tip.hidden = true;
    this.tip.setAttribute('aria-hidden', 'true');
    host.append(this.canvas, this.tip);
    this.setLabel(opts.label ?? '');
    this.canvas.addEventListener('mousemove', (e) => this.#move(e));
    this.canvas.addEventListener('mouseleave', () => this.#leave());
    this.canvas.addEventListener('click', (e) => {
      if (this.dragged) {   // the end of a drag (a range zoom), not a click
        this.dragged = false;
        return;
      }
      const i = this.#hitAt(e);
      if (i >= 0) {
        this.focusIndex = i;
        this.opts.onSelect?.(i);
      }
    });
    this.canvas.addEventListener('keydown', (e) => this.#key(e));
    this.canvas.addEventListener('blur', () => this.#leave());
    this.ro = new ResizeObserver(() => this.draw());
    this.ro.observe(host);
  }

  setLabel(text) {
    this.canvas.setAttribute('aria-label', text);
  }

  /// Geometry of the plot area in CSS pixels.
  geometry() {
    const W = Math.max(0, this.host.clientWidth);
    const H = this.opts.height;
    const m = { left: 64, right: 12, top: 12, bottom: 30, ...(this.opts.margin ?? {}) };
    return { W, H, left: m.left, top: m.top, width: Math.max(1, W - m.left - m.right),
             height: Math.max(1, H - m.top - m.bottom) };
  }

  draw() {
    const g = this.geometry();
    if (g.W <= 0) return;
    const dpr = window.devicePixelRatio || 1;
    const c = this.canvas;
    c.style.width = `${g.W}px`;
    c.style.height = `${g.H}px`;
    c.width = Math.round(g.W * dpr);
    c.height = Math.round(g.H * dpr);
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.W, g.H);
    ctx.font = `11px ${cssVar(this.host, '--font', 'sans-serif')}`;
    this.g = g;
    this.opts.draw(ctx, g, this);
    if (this.dragBand) {   // a range being selected with the mouse
      const x0 = Math.max(g.left, Math.min(this.dragBand.x0, this.dragBand.x1));
      const x1 = Math.min(g.left + g.width, Math.max(this.dragBand.x0, this.dragBand.x1));
      ctx.fillStyle = withAlpha(this.color('--accent'), 0.15);
      ctx.fillRect(x0, g.top, x1 - x0, g.height);
      ctx.strokeStyle = this.color('--accent');
      ctx.lineWidth = 1;
      ctx.strokeRect(Math.round(x0) + 0.5, g.top + 0.5, Math.max(1, Math.round(x1 - x0) - 1), g.height - 1);
    }
    this.host.dataset.plotLeft = String(g.left);
    this.host.dataset.plotWidth = String(g.width);
    this.host.dataset.plotTop = String(g.top);
    this.host.dataset.plotHeight = String(g.height);
  }

  color(name, fallback) {
    return cssVar(this.host, name, fallback);
  }

  /// Y axis with grid lines and labels; returns y(value).
  yAxis(ctx, g, max, ticks, fmt) {
    const y = (v) => g.top + g.height - (v / max) * g.height;
    ctx.save();
    ctx.strokeStyle = this.color('--border');
    ctx.fillStyle = this.color('--muted');
    ctx.lineWidth = 1;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const t of ticks) {
      const yy = Math.round(y(t)) + 0.5;
      ctx.globalAlpha = t === 0 ? 1 : 0.6;
      ctx.beginPath();
      ctx.moveTo(g.left, yy);
      ctx.lineTo(g.left + g.width, yy);
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fillText(fmt(t), g.left - 6, yy);
    }
    ctx.restore();
    return y;
  }

  /// X axis labels for integer positions from..to-1.
  xAxisRange(ctx, g, from, to, x, title) {
    ctx.save();
    ctx.fillStyle = this.color('--muted');
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const want = Math.max(2, Math.floor(g.width / 70));
    const raw = Math.max(1, (to - 1 - from) / want);
    const mag = 10 ** Math.floor(Math.log10(raw));
    const step = Math.max(1, [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw) ?? raw);
    for (let t = Math.ceil(from / step) * step; t <= to - 1; t += step) ctx.fillText(String(t), x(t), g.top + g.height + 4);
    if (title) {
      ctx.textAlign = 'right';
      ctx.fillText(title, g.left + g.width, g.top + g.height + 17);
    }
    ctx.restore();
  }

  /// X axis labels for integer positions 0..n-1 (about `count` of them).
  xAxis(ctx, g, n, x, title) {
    ctx.save();
    ctx.fillStyle = this.color('--muted');
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const want = Math.max(2, Math.floor(g.width / 70));
    const raw = Math.max(1, (n - 1) / want);
    const mag = 10 ** Math.floor(Math.log10(raw));
    const step = Math.max(1, [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw) ?? raw);
    for (let t = 0; t <= n - 1; t += step) ctx.fillText(String(t), x(t), g.top + g.height + 4);
    if (title) {
      ctx.textAlign = 'right';
      ctx.fillText(title, g.left + g.width, g.top + g.height + 17);
    }
    ctx.restore();
  }

  #hitAt(e) {
    if (!this.g) return -1;
    const r = this.canvas.getBoundingClientRect();
    return this.opts.hit(e.clientX - r.left, e.clientY - r.top, this.g);
  }

  #move(e) {
    const i = this.#hitAt(e);
    const r = this.canvas.getBoundingClientRect();
    this.#show(i, e.clientX - r.left, e.clientY - r.top);
  }

  #show(i, x, y) {
    if (i !== this.hover) {
      this.hover = i;
      this.opts.onHover?.(i);
    }
    const html = i >= 0 ? this.opts.tooltip?.(i) : null;
    if (!html) {
      this.tip.hidden = true;
      return;
    }
    this.tip.innerHTML = html;
    this.tip.hidden = false;
    const W = this.host.clientWidth;
    const tw = this.tip.offsetWidth;
    const left = x + 14 + tw > W ? Math.max(0, x - 14 - tw) : x + 14;
    this.tip.style.left = `${left}px`;
    this.tip.style.top = `${Math.max(0, y - 10)}px`;
  }

  #leave() {
    this.tip.hidden = true;
    if (this.hover !== -1) {
      this.hover = -1;
      this.opts.onHover?.(-1);
    }
  }

  #key(e) {
    const n = this.opts.count?.() ?? 0;
    if (!n) return;
    let i = this.focusIndex < 0 ? 0 : this.focusIndex;
    const big = Math.max(1, Math.round(n / 20));
    switch (e.key) {
      case 'ArrowRight': i = Math.min(n - 1, i + (e.shiftKey ? big : 1)); break;
      case 'ArrowLeft': i = Math.max(0, i - (e.shiftKey ? big : 1)); break;
      case 'PageDown': i = Math.min(n - 1, i + big); break;
      case 'PageUp': i = Math.max(0, i - big); break;
      case 'Home': i = 0; break;
      case 'End': i = n - 1; break;
      case 'Enter': case ' ':
        e.preventDefault();
        if (this.focusIndex >= 0) this.opts.onSelect?.(this.focusIndex);
        return;
      default: return;
    }
    e.preventDefault();
    this.focusIndex = i;
    const pos = this.opts.position?.(i, this.g) ?? { x: 20, y: 20 };
    this.#show(i, pos.x, pos.y);
  }

  dispose() {
    this.ro.disconnect();
    this.host.replaceChildren();
  }
}

/// Zoom over a range [0, n) of a chart's x axis, the same on every chart that zooms: the mouse
/// wheel around the pointer, `+` / `-` on the focused chart, a drag across the plot selects a range,
/// a double-click resets. opts: { n, minSpan, integer (round the range to whole items),
/// get() -> { from, to } | null (null: all), set(range | null), valueAt(x, g) (a canvas x in CSS
/// pixels to a value), focusValue() -> the value + / - zoom around (else the middle) }.
/// Returns { zoom(factor, at), reset() }.
export function attachRangeZoom(chart, opts) {
  const view = () => opts.get() ?? { from: 0, to: opts.n };
  const round = (v) => (opts.integer ? Math.round(v) : v);
  const apply = (range) => {
    opts.set(range && (range.from > 0 || range.to < opts.n) ? range : null);
    chart.draw();
  };
  const zoom = (factor, at) => {
    const { from, to } = view();
    const span = to - from;
    const next = round(Math.max(Math.min(opts.minSpan, opts.n), Math.min(opts.n, span * factor)));
    if (next === span) return;
    const f = (at - from) / span;
    const nf = round(Math.max(0, Math.min(opts.n - next, at - f * next)));
    apply({ from: nf, to: nf + next });
  };
  const reset = () => apply(null);
  const c = chart.canvas;
  const xOf = (e) => e.clientX - c.getBoundingClientRect().left;
  const clampX = (x) => Math.max(chart.g.left, Math.min(chart.g.left + chart.g.width, x));
  c.addEventListener('wheel', (e) => {
    if (opts.n <= opts.minSpan || !chart.g) return;
    e.preventDefault();
    zoom(e.deltaY < 0 ? 0.7 : 1 / 0.7, opts.valueAt(clampX(xOf(e)), chart.g));
  }, { passive: false });
  c.addEventListener('dblclick', reset);
  c.addEventListener('keydown', (e) => {
    if (e.key !== '+' && e.key !== '=' && e.key !== '-') return;
    e.preventDefault();
    const { from, to } = view();
    zoom(e.key === '-' ? 1 / 0.7 : 0.7, opts.focusValue?.() ?? (from + to) / 2);
  });
  c.addEventListener('mousedown', (e) => {
    if (e.button !== 0 || !chart.g) return;
    const x0 = xOf(e);
    if (x0 < chart.g.left || x0 > chart.g.left + chart.g.width) return;
    let moved = false;
    const move = (ev) => {
      const x1 = clampX(xOf(ev));
      if (!moved && Math.abs(x1 - x0) < 5) return;
      moved = true;
      chart.dragBand = { x0, x1 };
      chart.draw();
    };
    const up = (ev) => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      if (!moved) return;
      chart.dragBand = null;
      chart.dragged = ev.target === c;   // the click that follows on the canvas is the drag's end
      const a = opts.valueAt(Math.min(x0, clampX(xOf(ev))), chart.g);
      const b = opts.valueAt(Math.max(x0, clampX(xOf(ev))), chart.g);
      let from = round(a), to = round(b) + (opts.integer ? 1 : 0);
      if (to - from < opts.minSpan) {
        const mid = (from + to) / 2;
        from = round(Math.max(0, Math.min(opts.n - opts.minSpan, mid - opts.minSpan / 2)));
        to = Math.min(opts.n, from + opts.minSpan);
      }
      apply({ from: Math.max(0, from), to: Math.min(opts.n, to) });
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  });
  return { zoom, reset };
}

/// Colour with alpha from a #rgb / #rrggbb / rgb() CSS colour.
export function withAlpha(color, alpha) {
  const c = color.trim();
  let r, g, b;
  if (c.startsWith('#')) {
    const h = c.length === 4 ? [...c.slice(1)].map((x) => x + x).join('') : c.slice(1, 7);
    [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
  } else {
    const m = c.match(/(\d+(?:\.\d+)?)[ ,]+(\d+(?:\.\d+)?)[ ,]+(\d+(?:\.\d+)?)/);
    if (!m) return c;
    [r, g, b] = m.slice(1, 4).map(Number);
  }
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}
