// The page's figures, in headless Chromium against the built page (build/web): time to the first
// painted graph and to an interactive default example (median of fresh loads), resnet18's
// describe + layout + draw time, one training step (one epoch of the digits, 56 batches of 32) in
// the page vs the same step in Node with the same wasm package, and the page's own JS + CSS size
// (gzipped, without the .wasm). A benchmark, not a test: it prints figures and ratios.
//
// Usage: node bench/web_bench.mjs [--loads N] [--steps N]     (after node web/build.mjs)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const webDir = path.resolve(process.env.POPART_WEB_DIR ?? path.join(root, 'build/web'));
const require = createRequire(path.join(root, 'tests/browser/package.json'));
const { chromium } = require('playwright-core');
const { startServer } = await import(path.join(root, 'web/server.mjs'));
const { buildDigitsCnn } = await import(path.join(root, 'web/src/models.js'));

const arg = (name, d) => { const i = process.argv.indexOf(name); return i >= 0 ? Number(process.argv[i + 1]) : d; };
const loads = arg('--loads', 5);
const steps = arg('--steps', 6);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

// Size of the page's own code.
const own = ['app.js', 'app.css', 'runtime-worker.js', 'layout-worker.js'].filter((f) => fs.existsSync(path.join(webDir, f)));
let raw = 0, gz = 0;
for (const f of own) {
  const b = fs.readFileSync(path.join(webDir, f));
  raw += b.length;
  gz += zlib.gzipSync(b, { level: 9 }).length;
}
const wasm = fs.readFileSync(path.join(webDir, 'pkg/popart_wasm.wasm'));
console.log(`page JS + CSS (${own.join(', ')}): ${(raw / 1024).toFixed(1)} KiB, ${(gz / 1024).toFixed(1)} KiB gzipped; ` +
            `popart_wasm.wasm ${(wasm.length / 1048576).toFixed(2)} MiB (${(zlib.gzipSync(wasm).length / 1048576).toFixed(2)} MiB gzipped)`);

const server = await startServer({ root: webDir, port: 0 });
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
                                        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const first = [], interactive = [];
  for (let i = 0; i < loads; ++i) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120000 });
    const t = await page.evaluate(() => ({ ...window.__popartTimings, nav: performance.timeOrigin }));
    first.push(t.firstGraphMs);
    interactive.push(t.interactiveMs + t.scriptStartMs);
    await ctx.close();
  }
  console.log(`default example (digits CNN), median of ${loads} fresh loads: first painted graph ${median(first).toFixed(0)} ms, ` +
              `interactive ${median(interactive).toFixed(0)} ms after navigation start`);

  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120000 });
  const layouts = [];
  for (let i = 0; i < 3; ++i) {
    await page.selectOption('[data-testid="example-select"]', i % 2 ? 'mlp' : 'resnet18');
    await page.waitForFunction(() => document.body.dataset.busy === 'false' && window.popartApp.model, null, { timeout: 120000 });
    if (i % 2 === 0) layouts.push(await page.evaluate(() => window.__popartTimings.lastOpen));
  }
  const r = layouts[layouts.length - 1];
  console.log(`resnet18: describe ${r.describeMs.toFixed(0)} ms, layout + draw ${r.graphMs.toFixed(0)} ms ` +
              `(fetch to interactive ${r.totalMs.toFixed(0)} ms; best of ${layouts.length}: ${Math.min(...layouts.map((x) => x.totalMs)).toFixed(0)} ms)`);

  // Training: the digits CNN, one step = one epoch (56 batches of 32), SGD with momentum.
  await page.selectOption('[data-testid="example-select"]', 'digits');
  await page.waitForFunction(() => document.body.dataset.busy === 'false' && window.popartApp.model?.example, null, { timeout: 120000 });
  await page.click('#tab-train');
  await page.fill('#train-validation', '0');  // every sample trains: 56 batches, as in Node
  await page.click('[data-testid="train-start"]');
  try {
    await page.waitForFunction((n) => window.popartApp.trainHistory.length >= n, steps, { timeout: 120000 });
  } catch (e) {
    const state = await page.evaluate(() => ({ banner: document.getElementById('error-banner').textContent, steps: window.popartApp.trainHistory.length,
                                              model: window.popartApp.model?.name, status: document.querySelector('#panel-train p.muted')?.textContent }));
    throw new Error(`training did not reach ${steps} steps: ${JSON.stringify(state)}`);
  }
  await page.click('[data-testid="train-pause"]');
  const pageSteps = await page.evaluate(() => window.popartApp.trainHistory.map((s) => s.stepMs));
  const threads = await page.evaluate(() => window.popartApp.runtimeInfo.threads);
  await ctx.close();

  const { createPopart } = await import(path.join(webDir, 'pkg/index.mjs'));
  const nodeSteps = [];
  for (const t of [threads]) {
    const popart = await createPopart({ threads: t });
    const built = buildDigitsCnn(popart, { batch: 32, withLoss: true });
    const digits = fs.readFileSync(path.join(webDir, 'data/digits.bin'));
    const n = JSON.parse(fs.readFileSync(path.join(webDir, 'data/digits.json'), 'utf8')).count;
    const bps = Math.floor(n / 32);
    const s = new popart.TrainingSession({
      fnModel: built.bytes, dataFlow: new popart.DataFlow(bps, { [built.meta.loss]: popart.AnchorReturnType('All'), [built.meta.probs]: popart.AnchorReturnType('All') }),
      loss: built.meta.loss, optimizer: new popart.SGD({ defaultLearningRate: [0.05, false], defaultMomentum: [0.9, false], defaultWeightDecay: [0, false] }),
      deviceInfo: popart.DeviceManager().createCpuDevice(), userOptions: new popart.SessionOptions({ engineOptions: { 'debug.instrument': 'true' } }),
    });
    s.prepareDevice();
    s.weightsFromHost();
    const anchors = s.initAnchorArrays();
    const x = new Float32Array(bps * 32 * 64);
    const y = new Int32Array(bps * 32);
    for (let i = 0; i < bps * 32; ++i) {
      for (let j = 0; j < 64; ++j) x[i * 64 + j] = digits[i * 64 + j] / 16;
      y[i] = digits[n * 64 + i];
    }
    for (let k = 0; k < steps; ++k) {
      const t0 = performance.now();
      s.run(new popart.PyStepIO({ [built.meta.input]: x, [built.meta.label]: y }, anchors));
      nodeSteps.push(performance.now() - t0);
    }
    s.dispose();
  }
  const pm = median(pageSteps.slice(1)), nm = median(nodeSteps.slice(1));
  console.log(`training step (digits CNN, 56 batches of 32, ${threads} thread${threads > 1 ? 's' : ''}): page ${pm.toFixed(1)} ms, ` +
              `Node ${nm.toFixed(1)} ms, page / Node = ${(pm / nm).toFixed(2)} (medians of ${steps - 1} steps after the first)`);
} finally {
  await browser.close();
  server.close();
}
