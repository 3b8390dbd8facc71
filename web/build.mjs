// Builds the page into build/web (or OUT):
//   index.html, app.js + app.css      the UI (web/src/main.js and its views, bundled by esbuild)
//   runtime-worker.js                 the runtime's Web Worker (imports ./pkg/index.mjs unbundled)
//   layout-worker.js                  the graph layout worker (dagre)
//   pkg/                              the wasm package (build/wasm/pkg: both module builds)
//   examples/*.onnx + examples.json   the reference zoo exports found in the zoo directory
//   data/digits.bin + digits.json     sklearn's handwritten digits (Debian's python3-sklearn),
//                                     converted from its CSV: 1,797 x 64 pixels (0..16) + labels
//   op-docs.json                      the ONNX operator documentation of the node panel (made by
//                                     web/tools/gen_op_docs.py from onnx.defs and the op list;
//                                     without Python or its onnx the page says it is unavailable)
//
// Usage: node web/build.mjs [--out DIR] [--pkg DIR] [--zoo DIR] [--digits CSV.gz] [--python EXE] [--dev]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

export const EXAMPLES = [
  { id: 'mlp', title: 'MLP (PyTorch export, 784-512-256-10)' },
  { id: 'cnn_small', title: 'Small CNN (PyTorch export, LeNet-style)' },
  { id: 'resnet18', title: 'ResNet-18 (torchvision export)' },
  { id: 'mobilenet_v2', title: 'MobileNetV2 (torchvision export)' },
  { id: 'transformer_layer', title: 'Transformer encoder layer (PyTorch export)' },
];
export const DIGITS_CSV = '/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz';

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/// sklearn's digits CSV (64 pixel values 0..16 then the label per line) -> one byte per value.
export function convertDigits(csvGz) {
  const text = zlib.gunzipSync(fs.readFileSync(csvGz)).toString('utf8');
  const rows = text.split('\n').filter((l) => l.trim() !== '');
  const pixels = new Uint8Array(rows.length * 64);
  const labels = new Uint8Array(rows.length);
  rows.forEach((line, i) => {
    const v = line.split(',').map(Number);
    if (v.length !== 65 || v.some((x) => !Number.isInteger(x) || x < 0 || x > 16)) {
      throw new Error(`${csvGz}: line ${i + 1} is not 64 pixel values 0..16 and a label`);
    }
    pixels.set(v.slice(0, 64), i * 64);
    labels[i] = v[64];
  });
  const bin = new Uint8Array(pixels.length + labels.length);
  bin.set(pixels, 0);
  bin.set(labels, pixels.length);
  return { bin, meta: { count: rows.length, height: 8, width: 8, maxValue: 16, classes: 10,
                        layout: 'count*64 pixel bytes (0..16), then count label bytes', source: 'scikit-learn digits (UCI)' } };
}

/// op-docs.json: the ONNX schemas' documentation and the op list's Graphcore ops, written by
/// web/tools/gen_op_docs.py. When Python cannot run the script, a file that says so (the page shows
/// "unavailable") and a warning: the rest of the page does not need it.
export function buildOpDocs({ out, python = process.env.POPART_PYTHON ?? '/usr/bin/python3', log = console.log }) {
  const file = path.join(out, 'op-docs.json');
  const r = spawnSync(python, [path.join(here, 'tools/gen_op_docs.py'), '--out', file], { encoding: 'utf8' });
  if (r.status === 0) {
    const withOnnx = JSON.parse(fs.readFileSync(file, 'utf8')).onnx !== null;
    if (!withOnnx) console.warn(`web: warning: ${r.stderr.trim()}`);
    log(`web: ${r.stdout.trim()}`);
    return withOnnx;
  }
  const why = r.error ? `${python}: ${r.error.code ?? r.error.message}` : `${python} exited with ${r.status}: ${r.stderr.trim().split('\n').pop()}`;
  console.warn(`web: warning: no operator documentation (${why}); the page says it is unavailable`);
  fs.writeFileSync(file, JSON.stringify({ onnx: null, runtime: null, texts: [], unavailable: why }));
  return false;
}

export async function buildWeb({ out, pkg, zoo, digits = DIGITS_CSV, python, dev = false, quiet = false }) {
  const log = quiet ? () => {} : (m) => console.log(m);
  fs.mkdirSync(out, { recursive: true });
  const common = {
    bundle: true, format: 'esm', target: ['chrome110', 'firefox115', 'safari16'], minify: !dev, sourcemap: dev ? 'inline' : false,
    legalComments: 'none', logLevel: 'warning', loader: { '.css': 'css' },
  };
  const started = Date.now();
  await esbuild.build({ ...common, entryPoints: { app: path.join(here, 'src/main.js') }, outdir: out });
  await esbuild.build({ ...common, entryPoints: { 'runtime-worker': path.join(here, 'src/runtime-worker.js') }, outdir: out,
                        external: ['./pkg/*'] });
  await esbuild.build({ ...common, entryPoints: { 'layout-worker': path.join(here, 'src/graph/layout-worker.js') }, outdir: out });
  fs.copyFileSync(path.join(here, 'src/index.html'), path.join(out, 'index.html'));
  log(`web: bundled the page in ${Date.now() - started} ms`);

  // The wasm package.
  const pkgOut = path.join(out, 'pkg');
  fs.rmSync(pkgOut, { recursive: true, force: true });
  fs.mkdirSync(pkgOut);
  for (const f of fs.readdirSync(pkg)) {
    if (/\.(mjs|cjs|wasm|json)$/.test(f)) fs.copyFileSync(path.join(pkg, f), path.join(pkgOut, f));
  }
  if (!fs.existsSync(path.join(pkgOut, 'popart_wasm.wasm'))) throw new Error(`${pkg} holds no popart_wasm.wasm: run scripts/build_wasm.sh`);

  // The zoo's exports, where present.
  const exOut = path.join(out, 'examples');
  fs.mkdirSync(exOut, { recursive: true });
  const examples = [];
  for (const e of EXAMPLES) {
    const src = path.join(zoo, `${e.id}.onnx`);
    if (!fs.existsSync(src)) continue;
    fs.copyFileSync(src, path.join(exOut, `${e.id}.onnx`));
    examples.push({ ...e, file: `examples/${e.id}.onnx`, bytes: fs.statSync(src).size });
  }
  fs.writeFileSync(path.join(out, 'examples.json'), JSON.stringify(examples, null, 1));
  log(`web: ${examples.length} zoo examples from ${zoo}`);

  // The digits.
  const dataOut = path.join(out, 'data');
  fs.mkdirSync(dataOut, { recursive: true });
  const { bin, meta } = convertDigits(digits);
  fs.writeFileSync(path.join(dataOut, 'digits.bin'), bin);
  fs.writeFileSync(path.join(dataOut, 'digits.json'), JSON.stringify(meta));
  log(`web: ${meta.count} digits -> data/digits.bin`);

  buildOpDocs({ out, python, log });
  return { out, examples };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const out = path.resolve(arg('--out', path.join(root, 'build/web')));
  await buildWeb({
    out,
    pkg: path.resolve(arg('--pkg', path.join(root, 'build/wasm/pkg'))),
    zoo: path.resolve(arg('--zoo', process.env.POPART_ZOO_DIR ?? path.join(root, 'build/zoo'))),
    digits: arg('--digits', DIGITS_CSV),
    python: arg('--python'),
    dev: process.argv.includes('--dev'),
  });
  console.log(`web: built ${out}`);
}
