// The page's local server (web/server.mjs): headers, types, and that no path outside its root is
// served — `..` plain and percent-encoded, encoded slashes and backslashes, NUL, symlinks out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { startServer } from '../../../web/server.mjs';

let server, base, root, outside;

before(async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'popart-web-server-'));
  root = path.join(tmp, 'root');
  outside = path.join(tmp, 'secret.txt');
  fs.mkdirSync(path.join(root, 'pkg'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  fs.writeFileSync(path.join(root, 'pkg', 'm.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  fs.writeFileSync(path.join(root, 'app.js'), 'export {};');
  fs.writeFileSync(outside, 'top secret');
  fs.symlinkSync(outside, path.join(root, 'leak.txt'));
  fs.symlinkSync(tmp, path.join(root, 'up'));
  fs.symlinkSync(path.join(root, 'app.js'), path.join(root, 'inside-link.js'));
  server = await startServer({ root, port: 0 });
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server?.close());

/// A raw request, so that the path reaches the server exactly as written (fetch normalises it).
function raw(pathText) {
  return new Promise((resolve, reject) => {
    const s = net.connect(server.address().port, '127.0.0.1', () => {
      s.write(`GET ${pathText} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    s.on('data', (d) => { data += d; });
    s.on('end', () => resolve({ status: Number(data.split(' ')[1]), body: data.split('\r\n\r\n').slice(1).join('\r\n\r\n') }));
    s.on('error', reject);
  });
}

test('serves the page with the cross-origin isolation headers', async () => {
  const r = await fetch(`${base}/`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('cross-origin-opener-policy'), 'same-origin');
  assert.equal(r.headers.get('cross-origin-embedder-policy'), 'require-corp');
  assert.match(r.headers.get('content-type'), /^text\/html/);
  assert.match(await r.text(), /<title>t<\/title>/);
});

test('.wasm is application/wasm, .js is JavaScript', async () => {
  const w = await fetch(`${base}/pkg/m.wasm`);
  assert.equal(w.headers.get('content-type'), 'application/wasm');
  assert.equal((await w.arrayBuffer()).byteLength, 8);
  assert.match((await fetch(`${base}/app.js`)).headers.get('content-type'), /^text\/javascript/);
});

test('binds 127.0.0.1 only', () => {
  assert.equal(server.address().address, '127.0.0.1');
});

test('missing files are 404, other methods 405', async () => {
  assert.equal((await fetch(`${base}/nope.js`)).status, 404);
  assert.equal((await fetch(`${base}/`, { method: 'POST', body: 'x' })).status, 405);
});

test('paths outside the root are refused (403 / 404), never served', async () => {
  for (const p of ['/../secret.txt', '/pkg/../../secret.txt', '/%2e%2e/secret.txt', '/%2E%2E%2Fsecret.txt', '/pkg/%2e%2e%2f%2e%2e%2fsecret.txt',
                   '/..%2fsecret.txt', '/..%5csecret.txt', '/pkg/..\\..\\secret.txt', '/%00', '/index.html%00.js', '/leak.txt',
                   '/up/secret.txt', '/%252e%252e/secret.txt']) {
    const r = await raw(p);
    assert.ok([400, 403, 404].includes(r.status), `${p}: status ${r.status}`);
    assert.doesNotMatch(r.body, /top secret/, `${p} leaked the file outside the root`);
  }
});

test('a symlink that stays inside the root is served', async () => {
  const r = await fetch(`${base}/inside-link.js`);
  assert.equal(r.status, 200);
  assert.equal(await r.text(), 'export {};');
});

test('the command line refuses a bad PORT and a root without index.html', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../web/server.mjs');
  const bad = spawnSync(process.execPath, [script, root], { env: { ...process.env, PORT: 'http' }, encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /PORT must be a port number/);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'popart-web-empty-'));
  const none = spawnSync(process.execPath, [script, empty], { encoding: 'utf8' });
  assert.equal(none.status, 1);
  assert.match(none.stderr, /index.html does not exist/);
});
