// Small tensor helpers shared by the page and the runtime worker: typed arrays per dtype, seeded
// input generators, statistics, and the NumPy .npy / .npz formats (read and write).

export const ARRAYS = {
  FLOAT: Float32Array, DOUBLE: Float64Array, FLOAT16: Uint16Array, BFLOAT16: Uint16Array, INT8: Int8Array, UINT8: Uint8Array,
  INT16: Int16Array, UINT16: Uint16Array, INT32: Int32Array, UINT32: Uint32Array, INT64: BigInt64Array,
  UINT64: BigUint64Array, BOOL: Uint8Array,
};
const NPY_DESCR = {
  FLOAT: '<f4', DOUBLE: '<f8', FLOAT16: '<f2', INT8: '|i1', UINT8: '|u1', INT16: '<i2', UINT16: '<u2', INT32: '<i4',
  UINT32: '<u4', INT64: '<i8', UINT64: '<u8', BOOL: '|b1',
};
const FROM_DESCR = Object.fromEntries(Object.entries(NPY_DESCR).map(([k, v]) => [v.slice(1), k]));

/// A seeded xorshift32 generator: each call gives the next uint32 (the same sequence everywhere:
/// the example's weights, the random inputs, the training order).
export function xorshift32(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s;
  };
}

/// `n` values for an input of `dtype`: 'random' (uniform [-1, 1) for floats, [0, 10) for
/// integers; seeded), 'zeros' or 'ones'.
export function randomInputs(dtype, n, mode = 'random', seed = 1) {
  const A = ARRAYS[dtype];
  if (!A) throw new Error(`inputs of type ${dtype} are not supported in the page`);
  const a = new A(n);
  if (mode === 'zeros') return a;
  const big = A === BigInt64Array || A === BigUint64Array;
  if (mode === 'ones') return a.fill(big ? 1n : dtype === 'FLOAT16' ? 0x3c00 : 1);
  const bits = xorshift32(seed);
  const next = () => bits() / 4294967296;
  const float = dtype === 'FLOAT' || dtype === 'DOUBLE';
  for (let i = 0; i < n; ++i) {
    const u = next();
    if (float) a[i] = 2 * u - 1;
    else if (dtype === 'BOOL') a[i] = u < 0.5 ? 0 : 1;
    else if (big) a[i] = BigInt(Math.floor(u * 10));
    else a[i] = Math.floor(u * 10);
  }
  return a;
}

/// min / max / mean / std / zeros / NaN / Inf and a histogram (over the finite values).
export function statistics(data, bins = 32) {
  let min = Infinity, max = -Infinity, sum = 0, sq = 0, zeros = 0, nans = 0, infs = 0, finite = 0;
  for (let i = 0; i < data.length; ++i) {
    const v = Number(data[i]);
    if (Number.isNaN(v)) { ++nans; continue; }
    if (!Number.isFinite(v)) { ++infs; continue; }
    if (v === 0) ++zeros;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    ++finite;
  }
  const mean = finite ? sum / finite : NaN;
  for (let i = 0; i < data.length; ++i) {
    const v = Number(data[i]);
    if (Number.isFinite(v)) sq += (v - mean) * (v - mean);
  }
  const counts = new Array(bins).fill(0);
  if (finite) {
    const w = (max - min) / bins;
    for (let i = 0; i < data.length; ++i) {
      const v = Number(data[i]);
      if (!Number.isFinite(v)) continue;
      const k = w > 0 ? Math.min(bins - 1, Math.floor((v - min) / w)) : 0;
      ++counts[k];
    }
  }
  return { count: data.length, min: finite ? min : NaN, max: finite ? max : NaN, mean, std: finite ? Math.sqrt(sq / finite) : NaN,
           zeros, nans, infs, histogram: { min, max, counts } };
}

/// A NumPy .npy file (version 1.0) of a tensor.
export function toNpy(dtype, shape, data) {
  const descr = NPY_DESCR[dtype];
  if (!descr) throw new Error(`cannot write ${dtype} as .npy`);
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(10 + header.length + bytes.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  for (let i = 0; i < header.length; ++i) out[10 + i] = header.charCodeAt(i);
  out.set(bytes, 10 + header.length);
  return out;
}

/// Reads a .npy file: {dtype, shape, data}. Errors say what is wrong with the file.
export function parseNpy(buffer, name = 'the file') {
  const u8 = new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (u8.length < 10 || magic.some((m, i) => u8[i] !== m)) throw new Error(`${name} is not a NumPy .npy file (no \\x93NUMPY magic)`);
  const major = u8[6];
  const hlen = major === 1 ? u8[8] | (u8[9] << 8) : u8[8] | (u8[9] << 8) | (u8[10] << 16) | (u8[11] << 24);
  const start = major === 1 ? 10 : 12;
  if (start + hlen > u8.length) throw new Error(`${name}: the .npy header is truncated`);
  const header = new TextDecoder().decode(u8.subarray(start, start + hlen));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error(`${name}: cannot read the .npy header ${header.trim()}`);
  if (fortran === 'True') throw new Error(`${name}: Fortran-ordered arrays are not supported (save with np.ascontiguousarray)`);
  if (descr[0] === '>') throw new Error(`${name}: big-endian arrays are not supported`);
  const dtype = FROM_DESCR[descr.slice(1)];
  if (!dtype) throw new Error(`${name}: dtype ${descr} is not supported (use float32, float64, int32, int64, uint8, ...)`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const count = shape.reduce((a, c) => a * c, 1);
  const A = ARRAYS[dtype];
  const offset = start + hlen;
  if (u8.length - offset < count * A.BYTES_PER_ELEMENT) {
    throw new Error(`${name}: shape (${shape.join(', ')}) needs ${count * A.BYTES_PER_ELEMENT} bytes of data; the file has ${u8.length - offset}`);
  }
  const copy = u8.slice(offset, offset + count * A.BYTES_PER_ELEMENT);
  return { dtype, shape, data: new A(copy.buffer) };
}

/// Reads a .npz (zip of .npy files, stored or deflated): {name: {dtype, shape, data}}.
export async function parseNpz(buffer, name = 'the file') {
  const u8 = new Uint8Array(buffer);
  const dv = new DataView(buffer);
  let eocd = -1;
  for (let i = u8.length - 22; i >= Math.max(0, u8.length - 65557); --i) {
    if (dv.getUint32(i, true) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error(`${name} is not a .npz (zip) file`);
  const entries = dv.getUint16(eocd + 10, true);
  let p = dv.getUint32(eocd + 16, true);
  const out = {};
  for (let e = 0; e < entries; ++e) {
    if (dv.getUint32(p, true) !== 0x02014b50) throw new Error(`${name}: corrupt zip directory`);
    const method = dv.getUint16(p + 10, true);
    const csize = dv.getUint32(p + 20, true);
    const nlen = dv.getUint16(p + 28, true), xlen = dv.getUint16(p + 30, true), clen = dv.getUint16(p + 32, true);
    const local = dv.getUint32(p + 42, true);
    const file = new TextDecoder().decode(u8.subarray(p + 46, p + 46 + nlen));
    p += 46 + nlen + xlen + clen;
    const lnlen = dv.getUint16(local + 26, true), lxlen = dv.getUint16(local + 28, true);
    const body = u8.subarray(local + 30 + lnlen + lxlen, local + 30 + lnlen + lxlen + csize);
    let raw;
    if (method === 0) raw = body.slice();
    else if (method === 8) raw = new Uint8Array(await new Response(new Blob([body]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer());
    else throw new Error(`${name}: zip method ${method} of '${file}' is not supported`);
    out[file.replace(/\.npy$/, '')] = parseNpy(raw.buffer, `${name}:${file}`);
  }
  return out;
}

/// CSV of numbers: every row the features then the label (the last column). A header row is skipped.
export function parseCsv(text, name = 'the file') {
  const rows = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (rows.length && rows[0].split(',').some((c) => c.trim() !== '' && Number.isNaN(Number(c)))) rows.shift();
  if (!rows.length) throw new Error(`${name} holds no rows of numbers`);
  const width = rows[0].split(',').length;
  if (width < 2) throw new Error(`${name}: each row needs at least one feature and a label`);
  const x = new Float32Array(rows.length * (width - 1));
  const y = new Int32Array(rows.length);
  rows.forEach((line, i) => {
    const v = line.split(',').map(Number);
    if (v.length !== width || v.some(Number.isNaN)) throw new Error(`${name}: row ${i + 1} is not ${width} numbers`);
    x.set(v.slice(0, -1), i * (width - 1));
    y[i] = v[width - 1];
  });
  return { x, y, n: rows.length, features: width - 1 };
}

/// A weight's value histogram as describeModel computes an initializer's (numpy.histogram: `bins`
/// equal bins over [min, max], widened by 0.5 each side when all values are equal), so a histogram
/// of the weights read while training matches the description of the model they are saved in:
/// {count, min, max, mean, std, histMin, histMax, counts}.
export function weightHistogram(data, bins = 32) {
  let lo = Infinity, hi = -Infinity, sum = 0, finite = 0;
  for (let i = 0; i < data.length; ++i) {
    const x = data[i];
    if (!Number.isFinite(x)) continue;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
    sum += x;
    ++finite;
  }
  const counts = new Array(bins).fill(0);
  if (!finite) return { count: data.length, min: NaN, max: NaN, mean: NaN, std: NaN, histMin: NaN, histMax: NaN, counts };
  const mean = sum / finite;
  let first = lo, last = hi;
  if (first === last) { first -= 0.5; last += 0.5; }
  // numpy.linspace's edges and numpy.histogram's uniform-bin index, step for step.
  const step = (last - first) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, i) => (step === 0 ? ((i / bins) * (last - first)) : i * step) + first);
  edges[bins] = last;
  const norm = bins / (last - first);
  let sq = 0;
  for (let i = 0; i < data.length; ++i) {
    const x = data[i];
    if (!Number.isFinite(x)) continue;
    sq += (x - mean) * (x - mean);
    const f = (x - first) * norm;
    let idx = f >= 0 && f < bins ? Math.floor(f) : f >= bins ? bins : 0;
    if (idx === bins) --idx;
    if (x < edges[idx]) --idx;
    if (idx !== bins - 1 && x >= edges[idx + 1]) ++idx;
    ++counts[Math.min(Math.max(idx, 0), bins - 1)];
  }
  return { count: data.length, min: lo, max: hi, mean, std: Math.sqrt(sq / finite), histMin: first, histMax: last, counts };
}
