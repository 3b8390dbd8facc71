// Per-model state and field checks (issue 21 §1.3): a model change resets the Train tab's data,
// batch size, charts and Start button; a training that never started does not offer "Resume";
// out-of-range fields say what is wrong instead of being coerced (batchesPerStep 0, tiles 0).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitIdle, shot, byId } from './harness.mjs';
import { toNpy } from '../../../web/src/tensors.js';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const bannerText = (page) => page.textContent(`${byId('error-banner')} .banner-text`);
const csv = (n, features) => Array.from({ length: n }, (_, i) => [...Array.from({ length: features }, (_, j) => ((i + j) % 7) / 7), i % 4].join(',')).join('\n');

test('a model change resets the Train tab: data, batch size, charts, Start', async () => {
  const p = await openPage(env, { hash: 'example=mlp' });
  const { page } = p;
  await page.click('#tab-train');
  const mlpBatch = await page.inputValue('#train-batch');
  // A CSV for the MLP (784 features) that does not fit the digits CNN (64).
  await page.selectOption('#train-data', 'file');
  await page.setInputFiles(byId('train-data-file'), { name: 'mlp.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(64, 784)) });
  await page.waitForFunction(() => /mlp\.csv: 64 samples × 784 features/.test(document.getElementById('panel-train').textContent));
  assert.equal(mlpBatch, '32');  // the MLP's fixed batch, from its input shape
  await page.fill('#train-batch', mlpBatch);
  await page.click(byId('train-step'));
  await page.waitForFunction(() => window.popartApp.trainHistory.length === 1, null, { timeout: 60000 });
  assert.notEqual(await page.getAttribute(byId('loss-chart'), 'data-points'), '0');
  await page.click(byId('train-stop'));
  await waitIdle(page);
  await page.fill('#train-batch', '7');  // a setting of this model's
  // Back to the digits: its own batch size and data, empty charts, Start (not Resume).
  await page.selectOption(byId('example-select'), 'digits');
  await page.waitForFunction(() => window.popartApp.model?.example?.kind === 'digits-cnn' && document.body.dataset.busy === 'false');
  assert.equal(await page.inputValue('#train-batch'), '32');
  assert.equal(await page.inputValue('#train-data'), 'digits');
  assert.doesNotMatch(await page.textContent('#panel-train'), /mlp\.csv/);
  assert.equal(await page.getAttribute(byId('loss-chart'), 'data-points'), '0');
  assert.equal(await page.textContent(byId('train-start')), 'Start');
  assert.equal(await page.evaluate(() => window.popartApp.trainHistory.length), 0);
  // ...and it learns at that batch size.
  await page.click(byId('train-step'));
  await page.waitForFunction(() => window.popartApp.trainHistory.length === 1, null, { timeout: 60000 });
  await page.click(byId('train-stop'));
  await waitIdle(page);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a training that could not start offers Start again, not Resume', async () => {
  const p = await openPage(env, { hash: 'example=mlp' });
  const { page } = p;
  await page.click('#tab-train');
  // Data of 10 features for the MLP (784): the runtime refuses, nothing ran. (The built-in digits
  // are resized to its 28×28 and train it.)
  await page.selectOption('#train-data', 'file');
  await page.setInputFiles(byId('train-data-file'), { name: 'ten.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(64, 10)) });
  await page.waitForFunction(() => /ten\.csv: 64 samples × 10 features/.test(document.getElementById('panel-train').textContent));
  await page.click(byId('train-start'));
  await page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
  assert.match(await bannerText(page), /10 features/);
  await waitIdle(page);
  assert.equal(await page.textContent(byId('train-start')), 'Start');
  assert.equal(await page.isDisabled(byId('download-model')), true);
  await p.close();
});

test('fields out of range say what is wrong instead of being coerced', async () => {
  const p = await openPage(env);
  const { page } = p;
  // batchesPerStep 0: the Run tab refuses and names the field.
  await page.fill('#run-bps', '0');
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
  assert.match(await bannerText(page), /batchesPerStep must be a whole number from 1 to 1024, got '0'/);
  await page.fill('#run-bps', '1');
  // Tiles 0 on an IPU: refused, the last good value kept (not silently the whole IPU).
  await page.selectOption(byId('device-select'), 'ipu2');
  await page.fill(byId('device-tiles'), '16');
  await page.press(byId('device-tiles'), 'Enter');
  await page.fill(byId('device-tiles'), '0');
  await page.press(byId('device-tiles'), 'Enter');
  await page.waitForFunction(() => /Tiles per IPU must be a whole number from 1 to \d+, got '0'/.test(document.querySelector('[data-testid="error-banner"]').textContent));
  assert.equal(await page.inputValue(byId('device-tiles')), '16');
  assert.equal(await page.evaluate(() => window.popartApp.device().options.tilesPerIPU), 16);
  // Batch size 0 on the Train tab.
  await page.click('#tab-train');
  await page.fill('#train-batch', '0');
  await page.click(byId('train-start'));
  await page.waitForFunction(() => /the batch size must be a whole number from 1 to 4096, got '0'/.test(document.querySelector('[data-testid="error-banner"]').textContent));
  assert.equal(await page.textContent(byId('train-start')), 'Start');
  await shot(page, 'field-checks');
  await p.close();
});

test('bad links fall back with a notice; Back and Forward move between models; an edited hash applies', async () => {
  for (const [hash, message] of [
    ['tab=tab-bogus', /tab 'tab-bogus', which does not exist .*showing Run/],
    ['example=nonexistent', /example 'nonexistent', which does not exist .*showing the digits CNN/],
    ['device=ipu99', /device 'ipu99', which does not exist; using the CPU/],
  ]) {
    const p = await openPage(env, { hash });
    const { page } = p;
    await waitIdle(page);
    assert.equal(await page.evaluate(() => window.popartApp.model?.example?.kind), 'digits-cnn', hash);
    assert.equal(await page.getAttribute('#tab-run', 'aria-selected'), 'true', hash);
    assert.match(await bannerText(page), message);
    assert.equal(await page.inputValue(byId('device-select')), 'cpu');
    assert.deepEqual(p.errors, [], hash);
    await p.close();
  }
  const p = await openPage(env);
  const { page } = p;
  await page.selectOption(byId('example-select'), 'mlp');
  await page.waitForFunction(() => window.popartApp.model?.name === 'mlp.onnx' && document.body.dataset.busy === 'false');
  await page.goBack();
  await page.waitForFunction(() => window.popartApp.model?.example?.kind === 'digits-cnn' && document.body.dataset.busy === 'false');
  assert.equal(await page.inputValue(byId('example-select')), 'digits');
  await page.goForward();
  await page.waitForFunction(() => window.popartApp.model?.name === 'mlp.onnx' && document.body.dataset.busy === 'false');
  // A hash edited in place: the model and the tab it names.
  await page.evaluate(() => { location.hash = 'example=digits&tab=tab-train'; });
  await page.waitForFunction(() => window.popartApp.model?.example?.kind === 'digits-cnn' && document.body.dataset.busy === 'false');
  assert.equal(await page.getAttribute('#tab-train', 'aria-selected'), 'true');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('legible at laptop sizes: one toolbar row at 1280 px with an IPU chosen, a readable first zoom, a one-line intro', async () => {
  const p = await openPage(env, { hash: 'device=ipu2', viewport: { width: 1280, height: 800 } });
  const { page } = p;
  await waitIdle(page);
  // Every control of the top bar on one row.
  const centres = await page.$$eval('.topbar > *, .topbar .toolbar > *, .topbar .device-options > *', (els) =>
    els.filter((e) => e.offsetParent !== null).map((e) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; }));
  const spread = Math.max(...centres) - Math.min(...centres);
  assert.ok(spread < 16, `the top bar's controls are ${spread.toFixed(0)} px apart vertically (more than one row)`);
  // The graph opens at a zoom where its text is legible (Fit shows the whole graph).
  assert.ok(await page.evaluate(() => window.popartApp.graph._t.k) >= 0.8);
  const titlePx = await page.evaluate(() => document.querySelector('[data-testid="graph-node"] text')?.getBoundingClientRect().height ?? 0);
  assert.ok(titlePx >= 10, `node title ${titlePx} px high`);
  // What the page is, in one line, until dismissed (remembered).
  assert.match(await page.textContent(byId('intro')), /ONNX runtime in the browser: inspect a model, run it on a CPU or an emulated Graphcore IPU, train it/);
  await page.click('#intro-close');
  assert.equal(await page.isHidden(byId('intro')), true);
  await page.reload();
  await waitIdle(page);
  assert.equal(await page.isHidden(byId('intro')), true);
  await shot(page, 'laptop-1280');
  await p.close();
});

test('IPU figures on the Run tab: the modelled time first, host time as emulation, an out-of-memory badge to the memory view', async () => {
  const p = await openPage(env, { hash: 'example=mlp&device=ipu2&tiles=64' });
  const { page } = p;
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-output')} [data-output]`);
  assert.match(await page.textContent(byId('ipu-time')), /\d/);
  assert.match(await page.textContent(byId('run-output')), /modelled IPU time per step \(ipu2, 64 tiles\)/);
  assert.match(await page.textContent(byId('run-output')), /host time emulating it/);
  assert.equal(await page.locator(byId('oom-badge')).count(), 0);
  // One tile cannot hold the MLP: the badge says so and leads to the memory view.
  await page.fill(byId('device-tiles'), '1');
  await page.press(byId('device-tiles'), 'Enter');
  await page.click(byId('run-button'));
  await page.waitForSelector(byId('oom-badge'));
  assert.match(await page.textContent(byId('oom-badge')), /Out of memory: 1 of 1 tiles need more than their 624.0 KiB \(the fullest [0-9.]+ MiB\)/);
  await shot(page, 'run-oom-badge');
  await page.click(byId('oom-badge'));
  await page.waitForFunction(() => document.querySelector('#tab-reports').getAttribute('aria-selected') === 'true' &&
    document.querySelector('[role=tab][data-tab="memory"]')?.getAttribute('aria-selected') === 'true');
  // The CPU device has no IPU figures.
  await page.selectOption(byId('device-select'), 'cpu');
  await page.click('#tab-run');
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-output')} [data-output]`);
  assert.equal(await page.locator(byId('ipu-time')).count(), 0);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('search says when nothing matches and Enter selects the first hit; Esc cancels a run', async () => {
  const p = await openPage(env);
  const { page } = p;
  await page.keyboard.press('/');
  await page.fill(byId('search-box'), 'zzz-nothing');
  await page.waitForSelector(byId('search-empty'));
  assert.match(await page.textContent(byId('search-empty')), /No node, tensor or op type matches 'zzz-nothing'/);
  await page.fill(byId('search-box'), 'Conv');
  await page.press(byId('search-box'), 'Enter');
  await page.waitForFunction(() => !document.getElementById('panel-node').hidden);
  const first = await page.$eval('#search-results li button', (e) => e.dataset.node);
  assert.equal(await page.evaluate(() => window.popartApp.state.node), first);
  // Esc during a run cancels it: "Cancelled.", not an error banner. The run is long (100 repeats
  // of 1024 batches, seconds each), so Esc lands before it ends on any machine; on a loaded one it
  // may land while the session is still being prepared, which Esc cancels too (the runtime worker
  // restarts), so the test waits only for the run to be under way.
  await page.click('#tab-run');
  await page.fill('#run-bps', '1024');
  await page.fill('#run-repeats', '100');
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-cancel')}:not([hidden])`);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => /Cancelled/.test(document.querySelector('[data-testid="run-output"]').textContent), null, { timeout: 60000 });
  assert.equal(await page.isHidden(byId('error-banner')), true);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('an offline IPU out of memory: a one-line banner, and the memory chart of what did not fit', async () => {
  const p = await openPage(env, { hash: 'example=mlp&device=offline-ipu2&tiles=1' });
  const { page } = p;
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
  const text = await bannerText(page);
  assert.match(text, /^Run: Out of memory.* — the Reports tab shows the memory of every tile\.$/);
  assert.ok(!text.includes('\n'), text);
  // The Reports tab opens on the graph report the exception carries: every tile's memory.
  await page.waitForFunction(() => document.querySelector('#tab-reports').getAttribute('aria-selected') === 'true');
  await page.click('[role=tab][data-tab="memory"]');
  await page.waitForSelector(byId('tile-memory-chart'));
  assert.match(await page.textContent(byId('report-oom-banner')), /1 of 1 tiles? out of memory/);
  await shot(page, 'offline-oom-memory');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a refused .npy leaves no earlier data in use; a run shows its stage and elapsed time', async () => {
  const p = await openPage(env, { hash: 'example=mlp' });
  const { page } = p;
  const good = toNpy('FLOAT', [32, 784], new Float32Array(32 * 784).fill(0.5));
  await page.selectOption('select[data-input="input"]', 'npy');
  await page.setInputFiles('input[data-input-file="input"]', { name: 'good.npy', mimeType: 'application/octet-stream', buffer: Buffer.from(good) });
  await page.waitForFunction(() => /good\.npy: FLOAT/.test(document.getElementById('panel-run').textContent));
  // A second file of the wrong type is refused: the input goes back to random values, visibly.
  const bad = toNpy('INT32', [4], new Int32Array(4));
  await page.selectOption('select[data-input="input"]', 'npy');
  await page.setInputFiles('input[data-input-file="input"]', { name: 'bad.npy', mimeType: 'application/octet-stream', buffer: Buffer.from(bad) });
  await page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
  assert.match(await bannerText(page), /bad\.npy holds INT32; input 'input' is FLOAT/);
  assert.equal(await page.inputValue('select[data-input="input"]'), 'random');
  assert.doesNotMatch(await page.textContent('#panel-run'), /good\.npy/);
  // Choosing a file again drops the earlier one at once (a chooser closed without a file keeps none).
  await page.selectOption('select[data-input="input"]', 'npy');
  await page.setInputFiles('input[data-input-file="input"]', { name: 'good.npy', mimeType: 'application/octet-stream', buffer: Buffer.from(good) });
  await page.waitForFunction(() => /good\.npy: FLOAT/.test(document.getElementById('panel-run').textContent));
  await page.selectOption('select[data-input="input"]', 'random');
  await page.selectOption('select[data-input="input"]', 'npy');
  await page.waitForFunction(() => /no file chosen: random values/.test(document.getElementById('panel-run').textContent));
  assert.equal(await page.evaluate(() => document.getElementById('panel-run').textContent.includes('good.npy')), false);
  // The run's progress line names the stage and the time so far (every line shown is recorded).
  await page.evaluate(() => {
    window.progressLines = [];
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid="run-progress"]')?.textContent;
      if (t) window.progressLines.push(t);
    }).observe(document.querySelector('[data-testid="run-output"]'), { childList: true, subtree: true, characterData: true });
  });
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-output')} [data-output]`);
  assert.equal(await page.locator(byId('run-progress')).count(), 0);
  const lines = await page.evaluate(() => window.progressLines);
  assert.ok(lines.some((l) => /^Preparing.*\(\d+\.\d s\)$/.test(l)), lines.join(' | '));
  assert.ok(lines.some((l) => /^Run \d of 5 \(\d+\.\d s\)$/.test(l)), lines.join(' | '));
  await p.close();
});

test('a .npy dropped on the page goes to the tab that asked for it: Run\'s input, or training data', async () => {
  const p = await openPage(env, { hash: 'example=mlp' });
  const { page } = p;
  const drop = (name, bytes) => page.evaluate(([n, b]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], n));
    const target = document.querySelector('.work');
    target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true }));
  }, [name, [...bytes]]);
  // On the Run tab: the MLP's input takes it.
  await drop('x.npy', toNpy('FLOAT', [32, 784], new Float32Array(32 * 784).fill(0.25)));
  await page.waitForFunction(() => /x\.npy: FLOAT 32×784/.test(document.getElementById('panel-run').textContent));
  assert.equal(await page.inputValue('select[data-input="input"]'), 'npy');
  assert.equal(await page.getAttribute('#tab-run', 'aria-selected'), 'true');
  // On the Train tab: training data ([samples, features + label]).
  await page.click('#tab-train');
  const rows = new Float32Array(8 * 785);
  await drop('train.npy', toNpy('FLOAT', [8, 785], rows));
  await page.waitForFunction(() => /train\.npy: 8 samples × 784 features/.test(document.getElementById('panel-train').textContent));
  assert.doesNotMatch(await page.textContent('#panel-run'), /train\.npy/);
  assert.deepEqual(p.errors, []);
  await p.close();
});
