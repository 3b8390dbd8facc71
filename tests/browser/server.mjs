// A static server on 127.0.0.1 (port 0) for the browser tests: /pkg -> the wasm package,
// /zoo -> the reference zoo, everything else -> tests/browser/site. Sends COOP/COEP so that the
// page is cross-origin isolated, as the pthread build (createPopart({ threads })) needs.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript',
                '.wasm': 'application/wasm',
                '.json': 'application/json', '.onnx': 'application/octet-stream', '.bin': 'application/octet-stream' };

export function startServer({ site, pkg, zoo }) {
  const roots = [['/pkg/', pkg], ['/zoo/', zoo], ['/', site]];
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const [prefix, root] = roots.find(([p]) => url.startsWith(p));
    const file = path.join(root, url.slice(prefix.length) || 'index.html');
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
