#!/usr/bin/env node
// Run-time planning's cost: one session of a model with symbolic input dimensions (a zoo model
// made dynamic by bench/make_dynamic.py) run at several input shapes, ours (popart_bench replan)
// against onnxruntime-node (CPU EP, one thread), each in a fresh child process. Per shape: the
// first run (ours plans: import, compile, weights; ORT allocates for the new shape) and the median
// of the following runs; then every shape in turn (ours switches cached plans).
//
//   node bench/run_replan_bench.mjs --model build/zoo/mobilenet_v2.dynamic.onnx
//        --popart-bench build/ci/bench/popart_bench --shapes 1x3x224x224,1x3x320x320 [--runs N]
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import os from 'node:os';

const HERE = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const a = { model: '', bench: resolve(HERE, '../build/ci/bench/popart_bench'), shapes: '1x3x224x224', runs: 20, child: false };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i], v = () => argv[++i];
    if (k === '--model') a.model = resolve(v());
    else if (k === '--popart-bench') a.bench = resolve(v());
    else if (k === '--shapes') a.shapes = v();
    else if (k === '--runs') a.runs = +v();
    else if (k === '--child-ort') a.child = true;
    else throw new Error('unknown argument ' + k);
  }
  return a;
}

const median = (xs) => { const s = [...xs].sort((p, q) => p - q); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const peakRssKb = () => +(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+)/)?.[1] ?? -1);

async function childOrt(a) {
  const ort = createRequire(join(HERE, 'package.json'))('onnxruntime-node');
  const t0 = performance.now();
  const sess = await ort.InferenceSession.create(a.model, { executionProviders: ['cpu'], intraOpNumThreads: 1,
    interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  const createMs = performance.now() - t0;
  const shapes = a.shapes.split(',').map((s) => s.split('x').map(Number));
  const feeds = shapes.map((s) => {
    const n = s.reduce((p, q) => p * q, 1);
    const x = Float32Array.from({ length: n }, (_, i) => Math.sin(0.001 * i));
    return { [sess.inputNames[0]]: new ort.Tensor('float32', x, s) };
  });
  const runAt = async (k) => { const t = performance.now(); await sess.run(feeds[k]); return performance.now() - t; };
  const out = [];
  for (let k = 0; k < shapes.length; k++) {
    const first = await runAt(k);
    const t = [];
    for (let r = 0; r < a.runs; r++) t.push(await runAt(k));
    out.push({ shape: shapes[k].join('x'), first_run_ms: first, run_ms: median(t) });
  }
  const switched = shapes.map(() => []);
  for (let r = 0; r < a.runs; r++) for (let k = 0; k < shapes.length; k++) switched[k].push(await runAt(k));
  out.forEach((o, k) => { o.switch_ms = median(switched[k]); });
  process.stdout.write(JSON.stringify({ create_ms: createMs, peak_rss_kb: peakRssKb(), shapes: out }) + '\n');
}

function runChild(cmd, args) {
  const p = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 1200000, env: { ...process.env, OMP_NUM_THREADS: '1' } });
  const line = (p.stdout || '').split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`${cmd} ${args.join(' ')} failed: ${p.error || ''} ${(p.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(line);
}

const f = (x) => (x >= 100 ? x.toFixed(1) : x.toFixed(2));

async function main() {
  const a = parseArgs(process.argv);
  if (a.child) return childOrt(a);
  const ort = runChild(process.execPath, [fileURLToPath(import.meta.url), '--child-ort', '--model', a.model, '--shapes', a.shapes, '--runs', String(a.runs)]);
  const ours = runChild(a.bench, ['replan', a.model, '--shapes', a.shapes, '--runs', String(a.runs)]);
  const ortVersion = JSON.parse(readFileSync(join(HERE, 'node_modules/onnxruntime-node/package.json'))).version;
  console.log(`# ${a.model.split('/').pop()}: popart-runtime (native CPU device, plans per shape) vs onnxruntime-node ${ortVersion}, 1 thread`);
  console.log(`# ${os.cpus()[0]?.model}, ${os.cpus().length} cpus, node ${process.version}; ${a.runs} runs per shape`);
  console.log('| input shape | first run ms ours / ORT | run ms ours / ORT | ours/ORT | shapes in turn: run ms ours / ORT | ours/ORT |');
  console.log('|---|---|---|---|---|---|');
  ours.shapes.forEach((o, k) => {
    const t = ort.shapes[k];
    console.log(`| ${o.shape} | ${f(o.first_run_ms)} / ${f(t.first_run_ms)} | ${f(o.run_ms)} / ${f(t.run_ms)} | ${(o.run_ms / t.run_ms).toFixed(2)} | ` +
                `${f(o.switch_ms)} / ${f(t.switch_ms)} | ${(o.switch_ms / t.switch_ms).toFixed(2)} |`);
  });
  console.log(`# session create+prepare ms ours ${f(ours.create_ms + ours.prepare_ms)} / ORT ${f(ort.create_ms)}; plans built ${ours.plans_built}, reused ${ours.plans_reused}; peak RSS MB ours ${(ours.peak_rss_kb / 1024).toFixed(1)} / ORT ${(ort.peak_rss_kb / 1024).toFixed(1)}`);
}

await main();
