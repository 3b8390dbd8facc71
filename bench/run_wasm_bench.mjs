#!/usr/bin/env node
// WebAssembly benchmark: our wasm package in Node against onnxruntime-web (wasm backend, SIMD,
// 1 thread) on the reference zoo. Each (model, runtime) runs in a fresh child process so that
// cold start (module instantiate + first session create) is really cold.
//
//   node bench/run_wasm_bench.mjs [--zoo build/zoo] [--pkg build/wasm/pkg] [--models a,b]
//        [--rounds R] [--threads N] [--target-ms T] [--quick] [--out FILE.json]
//
// Each round runs every model once per runtime (fresh processes, runtimes alternating). Prints per
// model: the median over rounds of each runtime's median latency, ratio ours/ORT-web, the median
// cold start of each; then the .wasm sizes raw and gzipped. --threads N runs ours as
// createPopart({threads: N}) (the pthread build) and ORT-web with numThreads = N (default 1).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_MODELS = ['resnet18', 'mobilenet_v2', 'transformer_layer', 'mlp', 'cnn_small', 'squeezenet1_0'];

function parseArgs(argv) {
  const a = { zoo: resolve(HERE, '../build/zoo'), pkg: resolve(HERE, '../build/wasm/pkg'),
    models: DEFAULT_MODELS.join(','), rounds: 3, threads: 1, targetMs: 2000, warmup: 3, out: '', child: '', model: '' };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i], v = () => argv[++i];
    if (k === '--zoo') a.zoo = resolve(v());
    else if (k === '--pkg') a.pkg = resolve(v());
    else if (k === '--models') a.models = v();
    else if (k === '--target-ms') a.targetMs = +v();
    else if (k === '--out') a.out = resolve(v());
    else if (k === '--rounds') a.rounds = +v();
    else if (k === '--threads') a.threads = +v();
    else if (k === '--quick') { a.rounds = 1; a.targetMs = 800; }
    else if (k === '--child') a.child = v();
    else if (k === '--model') a.model = v();
    else throw new Error('unknown argument ' + k);
  }
  return a;
}

const median = (xs) => { const s = [...xs].sort((p, q) => p - q); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const readF32 = (f) => { const b = readFileSync(f); return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)); };

async function timeLoop(a, runOnce) {
  for (let i = 0; i < a.warmup; i++) await runOnce();
  const times = [];
  const end = performance.now() + a.targetMs;
  while (performance.now() < end || times.length < 5) {
    const t0 = performance.now();
    await runOnce();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function childOurs(a) {
  const man = JSON.parse(readFileSync(join(a.zoo, 'manifest.json'), 'utf8')).models[a.model];
  const inp = man.inputs[0], out = man.outputs[0];
  const t0 = performance.now();
  const { createPopart } = await import(pathToFileURL(join(a.pkg, 'index.mjs')).href);
  const popart = await createPopart({ threads: a.threads });
  const session = new popart.InferenceSession(readFileSync(join(a.zoo, man.file)), new popart.DataFlow(1, [out.name]),
                                              popart.DeviceManager().createCpuDevice());
  session.prepareDevice();
  const coldMs = performance.now() - t0;
  const anchors = session.initAnchorArrays();
  const stepio = new popart.PyStepIO({ [inp.name]: readF32(join(a.zoo, inp.file)) }, anchors);
  const ms = await timeLoop(a, () => session.run(stepio));
  const ref = readF32(join(a.zoo, out.file));
  let err = 0;
  for (let i = 0; i < ref.length; i++) err = Math.max(err, Math.abs(anchors[out.name].data[i] - ref[i]));
  return { ms, coldMs, maxAbsErr: err };
}

async function childOrt(a) {
  const req = createRequire(join(HERE, 'package.json'));
  const man = JSON.parse(readFileSync(join(a.zoo, 'manifest.json'), 'utf8')).models[a.model];
  const inp = man.inputs[0], out = man.outputs[0];
  const t0 = performance.now();
  const ort = req('onnxruntime-web');
  ort.env.wasm.numThreads = a.threads;
  ort.env.wasm.simd = true;
  const sess = await ort.InferenceSession.create(readFileSync(join(a.zoo, man.file)),
                                                 { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const coldMs = performance.now() - t0;
  const feeds = { [inp.name]: new ort.Tensor('float32', readF32(join(a.zoo, inp.file)), inp.shape) };
  let r;
  const ms = await timeLoop(a, async () => { r = await sess.run(feeds); });
  const ref = readF32(join(a.zoo, out.file));
  let err = 0;
  const y = r[out.name].data;
  for (let i = 0; i < ref.length; i++) err = Math.max(err, Math.abs(y[i] - ref[i]));
  return { ms, coldMs, maxAbsErr: err };
}

function wasmSizes(a) {
  const req = createRequire(join(HERE, 'package.json'));
  const ortDir = dirname(req.resolve('onnxruntime-web'));
  const files = { ours: join(a.pkg, 'popart_wasm.wasm'), ortWeb: join(ortDir, 'ort-wasm-simd-threaded.wasm') };
  const out = {};
  for (const [k, f] of Object.entries(files)) {
    out[k] = { raw: statSync(f).size, gz: gzipSync(readFileSync(f), { level: 9 }).length };
  }
  return out;
}

async function main() {
  const a = parseArgs(process.argv);
  if (a.child) {
    const r = a.child === 'ours' ? await childOurs(a) : await childOrt(a);
    process.stdout.write(JSON.stringify(r) + '\n');
    return;
  }
  const results = {};
  const run = (who, m) => {
    const p = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', who, '--model', m, '--zoo', a.zoo,
                                           '--pkg', a.pkg, '--target-ms', String(a.targetMs), '--threads', String(a.threads)],
                        { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' } });
    if (p.status !== 0) throw new Error(`${who} ${m} failed:\n${p.stderr}`);
    return JSON.parse(p.stdout.trim().split('\n').pop());
  };
  const models = a.models.split(',');
  const samples = Object.fromEntries(models.map((m) => [m, { ours: [], ort: [] }]));
  for (let round = 0; round < a.rounds; round++) {
    for (const m of models) {
      const order = round % 2 ? ['ort', 'ours'] : ['ours', 'ort'];
      for (const who of order) samples[m][who].push(run(who, m));
    }
  }
  const row = (c) => c.map((x, i) => String(x).padStart(i ? 12 : 26)).join('');
  console.log(`# ${a.rounds} round(s), ${a.threads} thread(s); latency: median over rounds of per-process medians; ` +
              'cold: median over rounds');
  console.log(row(['model', 'ours ms', 'ORT-web ms', 'ratio', 'ours cold', 'ORT cold', 'ours err']));
  for (const m of models) {
    const agg = (xs) => ({ ms: median(xs.map((x) => x.ms)), coldMs: median(xs.map((x) => x.coldMs)),
                           maxAbsErr: Math.max(...xs.map((x) => x.maxAbsErr)), rounds: xs });
    const ours = agg(samples[m].ours), ort = agg(samples[m].ort);
    results[m] = { ours, ort, ratio: ours.ms / ort.ms };
    console.log(row([m, ours.ms.toFixed(2), ort.ms.toFixed(2), (ours.ms / ort.ms).toFixed(2), ours.coldMs.toFixed(0),
                     ort.coldMs.toFixed(0), ours.maxAbsErr.toExponential(1)]));
  }
  const sizes = wasmSizes(a);
  results.sizes = sizes;
  console.log(`\n.wasm size: ours ${(sizes.ours.raw / 1e6).toFixed(2)} MB (${(sizes.ours.gz / 1e6).toFixed(2)} MB gz), ` +
              `ORT-web ${(sizes.ortWeb.raw / 1e6).toFixed(2)} MB (${(sizes.ortWeb.gz / 1e6).toFixed(2)} MB gz)`);
  if (a.out) writeFileSync(a.out, JSON.stringify(results, null, 1));
}

main().catch((e) => { console.error(e); process.exit(1); });
