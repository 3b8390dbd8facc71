// A tensor's values as a paged grid (the node panel's "Values" of an initializer or a Constant's
// output), as Netron shows them: a 2-D view of the last two dims, one selector per leading dim,
// ROWS x COLS cells a page with paging, and "Save .npy". The values come from the runtime worker's
// `tensorValue` op (popart.tensorValue: {name, dtype, shape, data}).
import { h, clear, download, formatNumber, shapeText } from './util.js';
import { toNpy } from './tensors.js';

export const ROWS = 16;
export const COLS = 4;  // what fits the sidebar at 1280 px

// The .npy dtype of the data as the worker sends it.
const NPY_DTYPE = new Map([
  [Float32Array, 'FLOAT'], [Float64Array, 'DOUBLE'], [Int8Array, 'INT8'], [Uint8Array, 'UINT8'], [Int16Array, 'INT16'],
  [Uint16Array, 'UINT16'], [Int32Array, 'INT32'], [Uint32Array, 'UINT32'], [BigInt64Array, 'INT64'], [BigUint64Array, 'UINT64'],
]);

/// An IEEE half (its 16 bits) as a number.
export function halfToFloat(bits) {
  const s = bits & 0x8000 ? -1 : 1, e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/// The numbers of a value: FLOAT16 / BFLOAT16 arrive as their 16-bit patterns.
function decoded(v) {
  if (v.dtype === 'FLOAT16' && v.data instanceof Uint16Array) return Float32Array.from(v.data, halfToFloat);
  if (v.dtype === 'BFLOAT16' && v.data instanceof Uint16Array) return new Float32Array(Uint32Array.from(v.data, (b) => b << 16).buffer);
  return v.data;
}

/// What Save .npy writes: {dtype, data} (BFLOAT16, which NumPy has no type for, as float32).
function npyOf(v) {
  if (v.dtype === 'FLOAT16' && v.data instanceof Uint16Array) return { dtype: 'FLOAT16', data: v.data };
  if (v.dtype === 'BFLOAT16') return { dtype: 'FLOAT', data: decoded(v) };
  const t = NPY_DTYPE.get(v.data?.constructor);
  return t ? { dtype: t === 'UINT8' && v.dtype === 'BOOL' ? 'BOOL' : t, data: v.data } : null;
}

function cellText(v, dtype) {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  if (dtype === 'BOOL') return v ? 'true' : 'false';
  return Number.isInteger(v) && !/FLOAT|DOUBLE/.test(dtype) ? String(v) : formatNumber(v, 5);
}

/// The grid of `value` ({name, dtype, shape, data}); `rows` / `cols`: cells a page.
export function tensorGrid(value, { rows = ROWS, cols = COLS, fileName } = {}) {
  const shape = value.shape.map(Number);
  const rank = shape.length;
  // The 2-D view: the last two dims (a vector is one column, a scalar one cell).
  const R = rank >= 2 ? shape[rank - 2] : rank === 1 ? shape[0] : 1;
  const C = rank >= 2 ? shape[rank - 1] : 1;
  const lead = shape.slice(0, Math.max(0, rank - 2));
  const state = { slice: lead.map(() => 0), row: 0, col: 0 };
  const data = decoded(value);
  const root = h('div.tensor-grid', { testid: 'tensor-grid', dataset: { tensor: value.name, shape: shape.join(','), dtype: value.dtype } });
  const selectors = h('div.grid-slices');
  const body = h('div.grid-scroll');
  const status = h('div.grid-status.muted', { 'aria-live': 'polite' });
  const pager = h('div.grid-pager');

  const offset = () => state.slice.reduce((acc, s, i) => acc * lead[i] + s, 0) * R * C;
  const page = (what, dir) => {
    if (what === 'rows') state.row = Math.min(Math.max(0, state.row + dir * rows), Math.max(0, (Math.ceil(R / rows) - 1) * rows));
    else state.col = Math.min(Math.max(0, state.col + dir * cols), Math.max(0, (Math.ceil(C / cols) - 1) * cols));
    draw();
  };
  const button = (what, dir, label) => h('button', {
    type: 'button', dataset: { page: `${what}-${dir > 0 ? 'next' : 'prev'}` }, 'aria-label': label, title: label, onclick: () => page(what, dir),
  }, dir > 0 ? '▶' : '◀');

  lead.forEach((d, i) => {
    const input = h('input', { type: 'number', min: 0, max: d - 1, value: 0, dataset: { dim: String(i) }, 'aria-label': `Index of dim ${i} (0 to ${d - 1})` });
    input.addEventListener('change', () => {
      const v = Number(input.value);
      state.slice[i] = Number.isInteger(v) ? Math.min(d - 1, Math.max(0, v)) : 0;
      input.value = String(state.slice[i]);
      draw();
    });
    selectors.append(h('label.inline', {}, `[${i}]`, input, h('span.muted', {}, `of ${d}`)));
  });

  function draw() {
    const base = offset();
    const r1 = Math.min(R, state.row + rows), c1 = Math.min(C, state.col + cols);
    const head = h('tr', {}, h('th', {}, ''));
    for (let c = state.col; c < c1; c++) head.append(h('th.num', { scope: 'col' }, String(c)));
    const trs = [];
    for (let r = state.row; r < r1; r++) {
      const tr = h('tr', {}, h('th.num', { scope: 'row' }, String(r)));
      for (let c = state.col; c < c1; c++) {
        const v = data[base + r * C + c];
        const index = [...state.slice, ...(rank >= 2 ? [r, c] : rank === 1 ? [r] : [])];
        tr.append(h('td.num', { dataset: { row: String(r), col: String(c) }, title: `[${index.join(', ')}] = ${String(v)}` }, cellText(v, value.dtype)));
      }
      trs.push(tr);
    }
    clear(body).append(h('table.data.grid', {}, h('thead', {}, head), h('tbody', {}, trs)));
    const where = lead.length ? `[${state.slice.join(', ')}, :, :] ` : '';
    status.textContent = `${where}rows ${state.row}–${r1 - 1} of ${R}` + (C > 1 ? `, columns ${state.col}–${c1 - 1} of ${C}` : '');
    root.dataset.slice = state.slice.join(',');
    root.dataset.row = String(state.row);
    root.dataset.col = String(state.col);
    for (const b of pager.querySelectorAll('button[data-page]')) {
      const [what, dir] = b.dataset.page.split('-');
      const at = what === 'rows' ? state.row : state.col, size = what === 'rows' ? R : C, step = what === 'rows' ? rows : cols;
      b.disabled = dir === 'prev' ? at === 0 : at + step >= size;
    }
  }

  if (R > rows) pager.append(h('span.inline', {}, 'Rows', button('rows', -1, 'Previous rows'), button('rows', 1, 'Next rows')));
  if (C > cols) pager.append(h('span.inline', {}, 'Columns', button('cols', -1, 'Previous columns'), button('cols', 1, 'Next columns')));
  const npy = npyOf(value);
  const save = h('button', {
    type: 'button', testid: 'tensor-npy', disabled: !npy,
    title: npy ? `Save ${value.name} (${value.dtype} ${shapeText(shape)}) as a NumPy .npy file${npy.dtype !== value.dtype && value.dtype === 'BFLOAT16' ? ' (as float32)' : ''}`
               : `${value.dtype} cannot be written as .npy`,
    onclick: () => download(fileName ?? `${value.name.replace(/[^\w.-]+/g, '_')}.npy`, toNpy(npy.dtype, shape, npy.data)),
  }, 'Save .npy');
  root.append(selectors, body, h('div.grid-foot', {}, status, pager, save));
  draw();
  return root;
}
