// Produces the report fixtures the reports-view tests draw, from the wasm package (the core's own
// reports, nothing hand-made): resnet18 training on ipu2 with 1,472 tiles; cnn_small on 4 tiles
// (out of memory: the offline device's OutOfMemoryException summary, and the IPU model's graph
// report of what did not fit); mlp on ipu1 vs ipu2 (compare); a 2-IPU pipelined mlp; mlp training
// with gradient accumulation; mlp training in execution phases on 2 IPUs with its weights in
// streaming memory; the CPU device's measured host time per op.
// Usage: node tests/browser/web/make-report-fixtures.mjs OUTDIR [--quick]   (writes OUTDIR/*.json)
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');
// The build tree: this checkout's, else (a git worktree without its own build) the main checkout's.
function buildDir(sub) {
  const own = path.join(ROOT, 'build', sub);
  if (fs.existsSync(own)) return own;
  try {
    const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const main = path.join(path.dirname(common), 'build', sub);
    if (fs.existsSync(main)) return main;
  } catch { /* not a git checkout */ }
  return own;
}
export const PKG = process.env.POPART_WASM_PKG ?? buildDir('wasm/pkg');
export const ZOO = process.env.POPART_ZOO_DIR ?? buildDir('zoo');

export async function makeFixtures(outDir, { quick = false } = {}) {
  const { createPopart } = await import(pathToFileURL(path.join(PKG, 'index.mjs')).href);
  const popart = await createPopart();
  const dm = popart.DeviceManager();
  fs.mkdirSync(outDir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(ZOO, 'manifest.json'), 'utf8')).models;
  const write = (name, obj) => fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(obj));

  const inputsFor = (model, batchesPerStep = 1) => {
    const out = {};
    for (const i of manifest[model].inputs) {
      const n = batchesPerStep * i.shape.reduce((a, b) => a * b, 1);
      out[i.name] = Float32Array.from({ length: n }, (_, k) => ((k * 7919) % 201 - 100) * 1e-2);
    }
    return out;
  };

  const reportOf = (s, label, extra = {}) => ({
    label,
    summary: s.getSummaryReport(false),
    graph: JSON.parse(s.getGraphReport()),
    execution: JSON.parse(s.getExecutionReport(false, false)),
    ...extra,
  });

  // A training session: an L1 loss appended to the model's first output.
  const training = (model, device, { bps = 1, options = {} } = {}) => {
    const b = popart.Builder.createFromOnnxModel(path.join(ZOO, `${model}.onnx`));
    const out = manifest[model].outputs[0].name;
    const loss = b.aiGraphcore.l1loss([out], 0.1, popart.ReductionType.Sum);
    b.addOutputTensor(loss);
    const s = new popart.TrainingSession({
      fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(bps, [loss]), loss,
      optimizer: new popart.SGD({ defaultLearningRate: [0.01, false], defaultMomentum: [0.9, true] }),
      deviceInfo: device, userOptions: options,
    });
    b.dispose();
    return s;
  };
  const inference = (model, device, { bps = 1, options } = {}) => {
    const out = manifest[model].outputs[0].name;
    return new popart.InferenceSession(path.join(ZOO, `${model}.onnx`), new popart.DataFlow(bps, [out]), device,
                                       undefined, options);
  };
  const run = (s, model, name, bps = 1) => {
    s.run(new popart.PyStepIO(inputsFor(model, bps), s.initAnchorArrays()), name);
  };
  const timed = (label, fn) => {
    const t0 = Date.now();
    const r = fn();
    console.log(`fixture ${label}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return r;
  };

  // 1. resnet18 on ipu2, 1,472 tiles.
  timed('resnet18', () => {
    const dev = dm.createIpuModelDevice({ tilesPerIPU: 1472, ipuVersion: 'ipu2' });
    const s = quick ? inference('resnet18', dev) : training('resnet18', dev);
    s.prepareDevice();
    if (!quick) s.weightsFromHost();
    run(s, 'resnet18', 'step 1');
    write('resnet18_ipu2', reportOf(s, quick ? 'resnet18 inference (ipu2, 1472 tiles)' : 'resnet18 training (ipu2, 1472 tiles)'));
    s.dispose();
  });

  // 2. cnn_small training on 4 tiles: out of memory (4 of 4 tiles over their 624 KB).
  timed('cnn_small_oom', () => {
    let error = null, summary = null;
    const off = training('cnn_small', dm.createOfflineIPUDevice({ tilesPerIPU: 4 }));
    try {
      off.prepareDevice();
    } catch (e) {
      error = e.message;
      summary = e.summaryReport;
    }
    off.dispose();
    if (!error) throw new Error('cnn_small on 4 tiles was expected to be out of memory');
    // The IPU model compiles anyway (debug.allowOutOfMemory): the graph report of what did not fit.
    const s = training('cnn_small', dm.createIpuModelDevice({ tilesPerIPU: 4 }),
                       { options: { engineOptions: { 'debug.allowOutOfMemory': 'true' } } });
    s.prepareDevice();
    write('cnn_small_oom', { label: 'cnn_small training (ipu2, 4 tiles)', summary,
                             graph: JSON.parse(s.getGraphReport()), execution: null, error });
    s.dispose();
  });

  // 3. ipu1 vs ipu2: mlp training on 64 tiles.
  for (const v of ['ipu1', 'ipu2']) {
    timed(`mlp_${v}`, () => {
      const s = training('mlp', dm.createIpuModelDevice({ tilesPerIPU: 64, ipuVersion: v }), { bps: 2 });
      s.prepareDevice();
      s.weightsFromHost();
      run(s, 'mlp', 'train', 2);
      write(`mlp_${v}`, reportOf(s, `mlp training (${v}, 64 tiles)`));
      s.dispose();
    });
  }

  // 4. 2 IPUs, pipelined (virtualGraphMode Auto splits the model; stages follow the IPUs).
  timed('mlp_pipelined', () => {
    const s = inference('mlp', dm.createIpuModelDevice({ tilesPerIPU: 64, numIPUs: 2 }),
                        { bps: 4, options: { virtualGraphMode: 'Auto', enablePipelining: true } });
    s.prepareDevice();
    run(s, 'mlp', 'pipelined', 4);
    write('mlp_pipelined', reportOf(s, 'mlp inference (2 IPUs pipelined, 64 tiles each)'));
    s.dispose();
  });

  // 5. Gradient accumulation: batchesPerStep 2 × accumulationFactor 2 micro-batches per run.
  timed('mlp_accum', () => {
    const s = training('mlp', dm.createIpuModelDevice({ tilesPerIPU: 64 }), { bps: 2, options: { enableGradientAccumulation: true, accumulationFactor: 2 } });
    s.prepareDevice();
    s.weightsFromHost();
    run(s, 'mlp', 'accumulate', 4);
    write('mlp_accum', reportOf(s, 'mlp training, gradient accumulation 2 (ipu2, 64 tiles)'));
    s.dispose();
  });

  // 6. Execution phases on 2 IPUs, the weights in streaming memory (loads and stores per phase).
  timed('mlp_phased', () => {
    const s = training('mlp', dm.createIpuModelDevice({ tilesPerIPU: 64, numIPUs: 2 }), { options: {
      virtualGraphMode: 'ExecutionPhases', executionPhaseSettings: { phases: 2 },
      weightTensorLocationSettings: { location: { storage: 'OffChip' }, minElementsForOffChip: 2 } } });
    s.prepareDevice();
    s.weightsFromHost();
    run(s, 'mlp', 'phased');
    write('mlp_phased', reportOf(s, 'mlp training in execution phases (2 IPUs, weights off chip)'));
    s.dispose();
  });

  // 7. The CPU device with profiling on: measured host time per op.
  timed('cnn_small_cpu', () => {
    const s = inference('cnn_small', dm.createCpuDevice(), { options: { engineOptions: { 'debug.instrument': 'true' } } });
    s.prepareDevice();
    run(s, 'cnn_small', 'cpu run');
    run(s, 'cnn_small', 'cpu run 2');
    write('cnn_small_cpu', { label: 'cnn_small (CPU)', summary: s.getSummaryReport(false),
                             execution: JSON.parse(s.getExecutionReport(false, false)) });
    s.dispose();
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await makeFixtures(path.resolve(process.argv[2] ?? path.join(ROOT, 'build/web-tests/fixtures')),
                     { quick: process.argv.includes('--quick') });
}
