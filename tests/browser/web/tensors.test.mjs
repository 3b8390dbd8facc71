// The page's NumPy / CSV readers and writers (web/src/tensors.js) against NumPy itself: files
// NumPy wrote are read back exactly, and files the page writes load in NumPy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { toNpy, parseNpy, parseNpz, parseCsv, statistics } from '../../../web/src/tensors.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'popart-web-npy-'));
const py = (code) => execFileSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8', cwd: dir });
const buf = (f) => { const b = fs.readFileSync(path.join(dir, f)); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); };

test('.npy written by NumPy (float32, int64, uint8, bool, scalar, 1-D) reads back exactly', () => {
  py(`import numpy as np
np.save('f.npy', (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5) / 3)
np.save('i.npy', np.array([[-(2**40), 5], [7, 2**33]], dtype=np.int64))
np.save('u.npy', np.arange(10, dtype=np.uint8))
np.save('b.npy', np.array([True, False, True]))
np.save('s.npy', np.float64(2.5))`);
  const f = parseNpy(buf('f.npy'));
  assert.equal(f.dtype, 'FLOAT');
  assert.deepEqual(f.shape, [2, 3, 4]);
  assert.equal(f.data[0], Math.fround(-7.5 / 3));
  assert.equal(f.data[23], Math.fround((23 - 7.5) / 3));
  const i = parseNpy(buf('i.npy'));
  assert.equal(i.dtype, 'INT64');
  assert.deepEqual(Array.from(i.data), [-(2n ** 40n), 5n, 7n, 2n ** 33n]);
  assert.deepEqual(Array.from(parseNpy(buf('u.npy')).data), [...Array(10).keys()]);
  assert.deepEqual(Array.from(parseNpy(buf('b.npy')).data), [1, 0, 1]);
  const s = parseNpy(buf('s.npy'));
  assert.deepEqual(s.shape, []);
  assert.equal(s.data[0], 2.5);
});

test('.npy the page writes loads in NumPy with its dtype and shape', () => {
  const data = Float32Array.from({ length: 30 }, (_, k) => k / 7);
  fs.writeFileSync(path.join(dir, 'w.npy'), toNpy('FLOAT', [5, 6], data));
  fs.writeFileSync(path.join(dir, 'w1.npy'), toNpy('INT32', [3], new Int32Array([1, -2, 3])));
  const out = JSON.parse(py(`import numpy as np, json
a = np.load('w.npy'); b = np.load('w1.npy')
print(json.dumps([str(a.dtype), a.shape, float(a[4, 5]), str(b.dtype), b.tolist()]))`));
  assert.deepEqual(out, ['float32', [5, 6], Math.fround(29 / 7), 'int32', [1, -2, 3]]);
});

test('.npz, stored and deflate-compressed, reads every array', async () => {
  py(`import numpy as np
x = np.arange(12, dtype=np.float32).reshape(4, 3); y = np.array([0, 1, 1, 0], dtype=np.int64)
np.savez('p.npz', x=x, y=y); np.savez_compressed('c.npz', x=x, y=y)`);
  for (const f of ['p.npz', 'c.npz']) {
    const a = await parseNpz(buf(f), f);
    assert.deepEqual(a.x.shape, [4, 3]);
    assert.deepEqual(Array.from(a.x.data), [...Array(12).keys()]);
    assert.deepEqual(Array.from(a.y.data), [0n, 1n, 1n, 0n]);
  }
});

test('bad files give messages that say what is wrong', async () => {
  assert.throws(() => parseNpy(new TextEncoder().encode('hello world, not numpy').buffer, 'x.npy'), /x\.npy is not a NumPy \.npy file/);
  py(`import numpy as np
np.save('big.npy', np.arange(4, dtype='>f4')); np.save('fo.npy', np.asfortranarray(np.ones((2, 3), np.float32)))
np.save('c.npy', np.array([1+2j]))`);
  assert.throws(() => parseNpy(buf('big.npy'), 'big.npy'), /big-endian/);
  assert.throws(() => parseNpy(buf('fo.npy'), 'fo.npy'), /Fortran-ordered/);
  assert.throws(() => parseNpy(buf('c.npy'), 'c.npy'), /dtype <c16 is not supported/);
  const f = new Uint8Array(buf('u.npy'));
  assert.throws(() => parseNpy(f.slice(0, f.length - 3).buffer, 'cut.npy'), /needs 10 bytes of data; the file has 7/);
  await assert.rejects(parseNpz(new Uint8Array(100).buffer, 'z.npz'), /z\.npz is not a \.npz \(zip\) file/);
  assert.throws(() => parseCsv('1,2,3\n4,five,6\n', 'd.csv'), /d\.csv: row 2 is not 3 numbers/);
  assert.throws(() => parseCsv('', 'e.csv'), /holds no rows/);
});

test('CSV: features then the label; a header row is skipped', () => {
  const d = parseCsv('a,b,label\n0.5,1,2\n-1,3,0\n', 'd.csv');
  assert.equal(d.n, 2);
  assert.equal(d.features, 2);
  assert.deepEqual(Array.from(d.x), [0.5, 1, -1, 3]);
  assert.deepEqual(Array.from(d.y), [2, 0]);
});

test('statistics match NumPy in double (min, max, mean, population std, zeros, NaN, Inf, histogram)', () => {
  const v = Float32Array.from([0, 1.5, -2, NaN, 3, Infinity, 0, 0.25, 7, -1]);
  fs.writeFileSync(path.join(dir, 'st.npy'), toNpy('FLOAT', [v.length], v));
  const ref = JSON.parse(py(`import numpy as np, json
a = np.load('st.npy').astype(np.float64); f = a[np.isfinite(a)]
h, _ = np.histogram(f, bins=8, range=(f.min(), f.max()))
print(json.dumps([f.min(), f.max(), f.mean(), f.std(), int((a == 0).sum()), int(np.isnan(a).sum()), int(np.isinf(a).sum()), h.tolist()]))`));
  const s = statistics(v, 8);
  assert.deepEqual([s.min, s.max], ref.slice(0, 2));
  assert.ok(Math.abs(s.mean - ref[2]) < 1e-12);
  assert.ok(Math.abs(s.std - ref[3]) < 1e-12);
  assert.deepEqual([s.zeros, s.nans, s.infs], ref.slice(4, 7));
  assert.deepEqual(s.histogram.counts, ref[7]);
});
