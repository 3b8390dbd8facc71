// DOM and formatting helpers shared by the views.

/// h('div.cls', {attrs}, children...) -> an element. Children: nodes, strings, arrays, null.
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(' ');
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'testid') el.dataset.testid = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/// Appends children like h() does: arrays flattened, null / undefined / false skipped.
export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/// A theme colour token's current value (theme.css), e.g. cssVar('--chart-1').
export function cssVar(name, fallback = '#2463eb') {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function formatBytes(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let u = 0, v = Number(n);
  while (Math.abs(v) >= 1024 && u < units.length - 1) { v /= 1024; ++u; }
  return `${u ? v.toFixed(v < 10 ? 2 : 1) : v} ${units[u]}`;
}

/// A field's value checked, not coerced: an Error saying what is wrong unless `text` is a whole
/// number from 1 to `max` ("<what> must be a whole number from 1 to <max>, got '<text>'"), else null.
export function wholeNumberError(text, what, max) {
  const v = Number(text);
  if (Number.isInteger(v) && v >= 1 && v <= max) return null;
  return new Error(`${what} must be a whole number from 1 to ${max}, got '${text}'`);
}

export function formatCount(n) {
  if (n === null || n === undefined) return '?';
  return Number(n).toLocaleString('en-US');
}

export function formatNumber(v, digits = 4) {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'bigint') return v.toString();
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) return v.toExponential(digits - 1);
  return Number(v.toPrecision(digits)).toString();
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 100 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`;
}

/// "1×3×224×224": symbolic dimensions by name, unknown ones (null, negative) as '?'.
export function shapeText(shape) {
  if (!Array.isArray(shape)) return '?';
  if (shape.length === 0) return 'scalar';
  return shape.map((d) => (d === null || d === undefined || d === '' || (typeof d === 'number' && d < 0) ? '?' : String(d))).join('×');
}

export function download(name, data, type = 'application/octet-stream') {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

/// Accessible tabs: role=tab buttons with aria-controls; arrow keys move between them.
export function setupTabs(tablist, onChange) {
  const tabs = [...tablist.querySelectorAll('[role="tab"]')];
  const select = (tab, focus = false) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')).hidden = !on;
    }
    if (focus) tab.focus();
    onChange?.(tab.id);
  };
  for (const t of tabs) {
    t.addEventListener('click', () => select(t));
    t.addEventListener('keydown', (e) => {
      const i = tabs.indexOf(t);
      if (e.key === 'ArrowRight') select(tabs[(i + 1) % tabs.length], true);
      else if (e.key === 'ArrowLeft') select(tabs[(i - 1 + tabs.length) % tabs.length], true);
      else return;
      e.preventDefault();
    });
  }
  // An unknown id (a bad link) selects nothing and says so with `false`.
  return {
    select: (id) => {
      const tab = tabs.find((t) => t.id === id);
      if (tab) select(tab);
      return Boolean(tab);
    },
    ids: () => tabs.map((t) => t.id),
  };
}

/// A small sparkline-style histogram of counts.
export function histogram(counts, label) {
  const max = Math.max(1, ...counts);
  return h('div.hist', { role: 'img', 'aria-label': label },
    counts.map((c) => h('span', { style: { height: `${(100 * c) / max}%` }, title: String(c) })));
}
