// The page's local server: a small static file server (node:http, no framework) over one root
// folder (the built page, build/web). It binds 127.0.0.1 only, sends the two headers that make
// the page cross-origin isolated (so the runtime worker can load the pthread build), serves
// `.wasm` as application/wasm and refuses any path outside its root: `..` segments (plain or
// percent-encoded), encoded slashes and NUL bytes get 403, symlinks that lead out of the root 404.
//
// Usage: node web/server.mjs [ROOT]        (PORT overrides 8080; port 0 picks a free one)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.json': 'application/json',
  '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
  '.onnx': 'application/octet-stream', '.bin': 'application/octet-stream', '.npy': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

/// The headers every answer carries (the page's own requests are all same-origin).
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

/// Maps a request path to a file under `root` (a real path), or returns an HTTP status.
export function resolveRequest(root, rawUrl) {
  let pathname;
  try {
    pathname = new URL(rawUrl, 'http://127.0.0.1').pathname;
  } catch {
    return { status: 400 };
  }
  // Reject encoded separators and traversal before and after decoding: the URL parser already
  // folds plain `/../`, so what is left here is an attempt to smuggle one through.
  if (/%2f|%5c|%00/i.test(pathname)) return { status: 403 };
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return { status: 400 };
  }
  if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').some((s) => s === '..')) return { status: 403 };
  let file = path.join(root, decoded);
  if (file !== root && !file.startsWith(root + path.sep)) return { status: 403 };
  let real;
  try {
    real = fs.realpathSync(file);
  } catch {
    return { status: 404 };
  }
  if (real !== root && !real.startsWith(root + path.sep)) return { status: 404 };  // a symlink out of the root
  let stat = fs.statSync(real);
  if (stat.isDirectory()) {
    file = path.join(real, 'index.html');
    try {
      real = fs.realpathSync(file);
      stat = fs.statSync(real);
    } catch {
      return { status: 404 };
    }
    if (!real.startsWith(root + path.sep)) return { status: 404 };
  }
  if (!stat.isFile()) return { status: 404 };
  return { status: 200, file: real, size: stat.size };
}

/// Starts serving `root`; resolves to the listening http.Server (127.0.0.1 only). `isolate: false`
/// leaves out the cross-origin isolation headers, as a plain static host would (the browser tests
/// check the page's single-threaded fallback with it).
export function startServer({ root, port = 8080, host = '127.0.0.1', log = false, isolate = true }) {
  const realRoot = fs.realpathSync(root);
  const headers = isolate ? ISOLATION_HEADERS : { 'X-Content-Type-Options': 'nosniff' };
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', ...headers }).end();
      return;
    }
    const r = resolveRequest(realRoot, req.url);
    if (log) console.log(`${r.status} ${req.method} ${req.url}`);
    if (r.status !== 200) {
      const text = { 400: 'bad request', 403: 'forbidden', 404: 'not found' }[r.status];
      res.writeHead(r.status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers }).end(text);
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(r.file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': r.size,
      'Cache-Control': 'no-cache',
      ...headers,
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(r.file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(process.argv[2] ?? path.join(here, '../build/web'));
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    console.error(`web/server.mjs: ${root}/index.html does not exist: build the page first (node web/build.mjs)`);
    process.exit(1);
  }
  const port = process.env.PORT === undefined ? 8080 : Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`web/server.mjs: PORT must be a port number from 0 to 65535 (got ${process.env.PORT})`);
    process.exit(1);
  }
  try {
    const server = await startServer({ root, port, log: !!process.env.POPART_WEB_LOG });
    console.log(`Serving ${root}\nOpen http://127.0.0.1:${server.address().port}/  (Ctrl+C stops)`);
  } catch (e) {
    console.error(`web/server.mjs: cannot listen on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  }
}
