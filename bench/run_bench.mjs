#!/usr/bin/env node
// Native benchmark: popart-runtime's CPU device against onnxruntime-node (CPU EP), one thread
// each, on the reference zoo. Each (round, model, runtime) runs in a fresh child process so that
// load times are cold and peak memory (VmHWM) is the runtime's own; runtimes alternate per round.
//
//   node bench/run_bench.mjs --zoo build/zoo --popart-bench build/native/bench/popart_bench
//        [--models a,b] [--rounds R] [--target-ms T] [--quick] [--out FILE.json]
//
// Prints a table: median latency (ms) of each, ratio ours/ORT, peak RSS, our activation arena.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import os from 'node:os';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_MODELS = ['resnet18', 'mobilenet_v2', 'mlp', 'transformer_layer', 'transformer_layer_opset17',
  'cnn_small', 'squeezenet1_0', 'alexnet'];

function parseArgs(argv) {
  const a = { zoo: resolve(HERE, '../build/zoo'), bench: resolve(HERE, '../build/native/bench/popart_bench'),
    models: DEFAULT_MODELS.join(','), rounds: 2, targetMs: 2000, warmup: 5, out: '', child: '', model: '' };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i], v = () => argv[++i];
    if (k === '--zoo') a.zoo = resolve(v());
    else if (k === '--popart-bench') a.bench = resolve(v());
    else if (k === '--models') a.models = v();
    else if (k === '--rounds') a.rounds = +v();
    else if (k === '--target-ms') a.targetMs = +v();
    else if (k === '--warmup') a.warmup = +v();
    else if (k === '--out') a.out = resolve(v());
    else if (k === '--quick') { a.rounds = 1; a.targetMs = 500; }
    else if (k === '--child-ort') a.child = 'ort';
    else if (k === '--model') a.model = v();
    else throw new Error('unknown argument ' + k);
  }
  return a;
}

const median = (xs) => { const s = [...xs].sort((p, q) => p - q); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const readF32 = (f) => { const b = readFileSync(f); return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)); };
const peakRssKb = () => +(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+)/)?.[1] ?? -1);

async function childOrt(a) {
  const req = createRequire(join(HERE, 'package.json'));
  const ort = req('onnxruntime-node');
  const man = JSON.parse(readFileSync(join(a.zoo, 'manifest.json'), 'utf8')).models[a.model];
  const opts = { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all' };
  let t0 = performance.now();
  const sess = await ort.InferenceSession.create(join(a.zoo, man.file), opts);
  const loadMs = performance.now() - t0;
  const inp = man.inputs[0], out = man.outputs[0];
  const feeds = { [inp.name]: new ort.Tensor('float32', readF32(join(a.zoo, inp.file)), inp.shape) };
  t0 = performance.now();
  let r = await sess.run(feeds);
  const firstRun = performance.now() - t0;
  let warm = firstRun;
  for (let i = 1; i < a.warmup; i++) { t0 = performance.now(); r = await sess.run(feeds); warm = performance.now() - t0; }
  const ref = readF32(join(a.zoo, out.file));
  const y = r[out.name].data;
  let err = 0;
  for (let i = 0; i < ref.length; i++) err = Math.max(err, Math.abs(y[i] - ref[i]));
  const runs = Math.max(5, Math.min(200, Math.ceil(a.targetMs / Math.max(warm, 0.01))));
  const samples = [];
  for (let i = 0; i < runs; i++) { t0 = performance.now(); await sess.run(feeds); samples.push(performance.now() - t0); }
  process.stdout.write(JSON.stringify({ median_ms: median(samples), min_ms: Math.min(...samples), runs, load_ms: loadMs,
    first_run_ms: firstRun, max_abs_err: err, peak_rss_kb: peakRssKb(), samples_ms: samples }) + '\n');
}

function runChild(cmd, args) {
  const p = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 600000,
    env: { ...process.env, OMP_NUM_THREADS: '1' } });
  const line = (p.stdout || '').split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`${cmd} ${args.join(' ')} failed: ${p.error || ''} ${(p.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(line);
}

function fmt(x, d = 3) { return x === undefined || x === null || Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(1) : x.toFixed(d); }

async function main() {
  const a = parseArgs(process.argv);
  if (a.child === 'ort') return childOrt(a);
  if (!existsSync(join(HERE, 'node_modules', 'onnxruntime-node'))) throw new Error('run `npm ci` in bench/ first (bench/run.sh does)');
  if (!existsSync(a.bench)) throw new Error(`${a.bench} not found: build the native preset first`);
  const man = JSON.parse(readFileSync(join(a.zoo, 'manifest.json'), 'utf8'));
  const models = a.models.split(',').filter((m) => man.models[m]);
  const res = {};
  for (let round = 0; round < a.rounds; round++) {
    for (const m of models) {
      const info = man.models[m];
      const order = round % 2 ? ['ours', 'ort'] : ['ort', 'ours'];
      for (const who of order) {
        const r = who === 'ort'
          ? runChild(process.execPath, [fileURLToPath(import.meta.url), '--child-ort', '--model', m, '--zoo', a.zoo,
            '--target-ms', String(a.targetMs), '--warmup', String(a.warmup)])
          : runChild(a.bench, [join(a.zoo, info.file), join(a.zoo, info.inputs[0].file), '--reference',
            join(a.zoo, info.outputs[0].file), '--target-ms', String(a.targetMs), '--warmup', String(a.warmup)]);
        ((res[m] ??= {})[who] ??= []).push(r);
        console.error(`[round ${round}] ${m.padEnd(26)} ${who.padEnd(4)} median ${fmt(r.median_ms)} ms  err ${r.max_abs_err.toExponential(1)}`);
      }
    }
  }
  const rows = [];
  for (const m of models) {
    const o = res[m].ours, t = res[m].ort;
    const om = median(o.flatMap((r) => r.samples_ms)), tm = median(t.flatMap((r) => r.samples_ms));
    rows.push({ model: m, ort_ms: tm, ours_ms: om, ratio: om / tm, ours_rss_mb: Math.max(...o.map((r) => r.peak_rss_kb)) / 1024,
      ort_rss_mb: Math.max(...t.map((r) => r.peak_rss_kb)) / 1024, arena_mb: o[0].arena_bytes / 1048576,
      ours_load_ms: median(o.map((r) => r.load_ms + r.prepare_ms)), ort_load_ms: median(t.map((r) => r.load_ms)),
      ours_err: Math.max(...o.map((r) => r.max_abs_err)), ort_err: Math.max(...t.map((r) => r.max_abs_err)) });
  }
  const lines = [];
  lines.push(`# popart-runtime (native CPU device) vs onnxruntime-node ${JSON.parse(readFileSync(join(HERE, 'node_modules/onnxruntime-node/package.json'))).version} (CPU EP), 1 thread`);
  lines.push(`# ${os.cpus()[0]?.model}, ${os.cpus().length} cpus, node ${process.version}; ${a.rounds} round(s), medians over all samples`);
  lines.push('| model | ORT ms | ours ms | ours/ORT | ours peak RSS MB | ORT peak RSS MB | ours activation arena MB | load+prepare ms ours / ORT | max abs err ours / ORT |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    lines.push(`| ${r.model} | ${fmt(r.ort_ms)} | ${fmt(r.ours_ms)} | ${r.ratio.toFixed(2)} | ${r.ours_rss_mb.toFixed(1)} | ${r.ort_rss_mb.toFixed(1)} | ${r.arena_mb.toFixed(2)} | ${fmt(r.ours_load_ms, 1)} / ${fmt(r.ort_load_ms, 1)} | ${r.ours_err.toExponential(1)} / ${r.ort_err.toExponential(1)} |`);
  }
  const table = lines.join('\n');
  console.log(table);
  if (a.out) writeFileSync(a.out, JSON.stringify({ date: new Date().toISOString(), rows, raw: res }, null, 1));
}

await main();
