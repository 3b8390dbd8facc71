// Users' own models in the page (issue 21): inputs whose dims are not numbers (a symbolic
// `dim_param` or none at all, as most third-party exports have) get a shape field, pre-filled,
// applied to the graph's shapes and to the run, validated, and remembered per model. The model is
// written by fixtures/make_symbolic_model.py (/usr/bin/python3 + onnx).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, waitIdle, shot, byId, SHOTS } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
let env;
let symbolic;
let classifier;
function fixture(name, ...args) {
  const file = path.join(SHOTS, name);
  execFileSync('/usr/bin/python3', [path.join(here, 'fixtures/make_symbolic_model.py'), file, ...args]);
  return { name, mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) };
}
before(async () => {
  symbolic = fixture('symbolic.onnx');
  classifier = fixture('symbolic_classifier.onnx', '--single');
  env = await launch();
});
after(async () => { await env?.close(); });

const field = (input) => `${byId('input-shape')}[data-input-name="${input}"]`;
const shapeOf = (page, tensor) =>
  page.evaluate((n) => window.popartApp.model.description.tensors.find((t) => t.name === n)?.shape, tensor);

async function openFixture(page, f = symbolic) {
  await page.setInputFiles(byId('open-file'), f);
  await page.waitForFunction((n) => window.popartApp.model?.name === n && document.body.dataset.busy === 'false', f.name);
}

async function setShape(page, input, value) {
  await page.fill(field(input), value);
  await page.press(field(input), 'Enter');
  await waitIdle(page);
}

test('inputs whose dims are not numbers get shape fields: pre-filled, shown in the graph, used by Run', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page);
  assert.equal(await page.locator(byId('input-shape')).count(), 2);
  // image [batch, 3, height, width]; frames [N, ?, 8].
  assert.equal(await page.inputValue(field('image')), '1,3,224,224');
  assert.equal(await page.inputValue(field('frames')), '1,16,8');
  // The graph is described with them: every activation has a shape.
  assert.deepEqual(await shapeOf(page, 'conv'), [1, 4, 224, 224]);
  assert.deepEqual(await shapeOf(page, 'frames_mean'), [1, 8]);
  assert.match(await page.textContent('#graph-host'), /1×4×224×224/);
  // A new shape applies on Enter: the graph's shapes follow.
  await setShape(page, 'image', '2, 3, 20, 30');
  assert.equal(await page.inputValue(field('image')), '2,3,20,30');
  assert.deepEqual(await shapeOf(page, 'conv'), [2, 4, 20, 30]);
  assert.match(await page.textContent('#graph-host'), /2×4×20×30/);
  await setShape(page, 'frames', '2,5,8');
  // Run uses them.
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-output')} [data-output="features"]`);
  assert.match(await page.textContent(`${byId('run-output')} [data-output="features"]`), /FLOAT 2×4/);
  assert.match(await page.textContent(`${byId('run-output')} [data-output="frames_mean"]`), /FLOAT 2×8/);
  // The session's weights count the constants they became (constantWeights): conv 4x3x3x3 + 4 floats.
  assert.equal(await page.getAttribute(byId('session-memory'), 'data-weight-bytes'), '448');
  await shot(page, 'symbolic-input-shapes');
  assert.deepEqual(p.errors, []);
  assert.deepEqual(p.foreign, []);
  await p.close();
});

test('a shape that does not fit the input says what is wrong and keeps the last good one', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page);
  const cases = [
    ['1,3,32', /input 'image' has 4 dims \(batch×3×height×width\); '1,3,32' gives 3/],
    ['1,4,32,32', /input 'image': dim 1 is fixed at 3 by the model, got 4/],
    ['1,3,0,32', /dim 2 must be a positive whole number, got '0'/],
    ['1,3,a,32', /dim 2 must be a positive whole number, got 'a'/],
  ];
  for (const [value, message] of cases) {
    await setShape(page, 'image', value);
    assert.equal(await page.getAttribute(field('image'), 'aria-invalid'), 'true');
    assert.match(await page.textContent(`${field('image')} ~ .field-error`), message);
    assert.deepEqual(await shapeOf(page, 'conv'), [1, 4, 224, 224]);  // unchanged
  }
  // Run refuses until the field is fixed, without a request to the runtime.
  await page.click(byId('run-button'));
  assert.match(await page.textContent(byId('run-output')), /Fix the input shapes above first/);
  await shot(page, 'symbolic-input-shape-error');
  await setShape(page, 'image', '1,3,8,8');
  assert.equal(await page.getAttribute(field('image'), 'aria-invalid'), null);
  assert.equal(await page.textContent(`${field('image')} ~ .field-error`), '');
  assert.deepEqual(await shapeOf(page, 'conv'), [1, 4, 8, 8]);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('shapes are remembered per model: reopening the same model brings them back', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page);
  await setShape(page, 'image', '3,3,40,50');
  await page.reload();
  await waitIdle(page);
  await openFixture(page);
  assert.equal(await page.inputValue(field('image')), '3,3,40,50');
  assert.deepEqual(await shapeOf(page, 'conv'), [3, 4, 40, 50]);
  assert.equal(await page.inputValue(field('frames')), '1,16,8');  // never changed: the guess
  // A model whose inputs are all numbers shows no shape field.
  await page.selectOption(byId('example-select'), 'mlp');
  await page.waitForFunction(() => window.popartApp.model?.name === 'mlp.onnx' && document.body.dataset.busy === 'false');
  assert.equal(await page.locator(byId('input-shape')).count(), 0);
  await p.close();
});

test('training a model whose input dims are not numbers: its shape with the batch size as the batch', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page, classifier);
  await setShape(page, 'image', '1,3,4,4');
  // 64 samples of 3x4x4 values in 4 classes (a bright channel-row block per class).
  const rows = [];
  for (let i = 0; i < 64; ++i) {
    const c = i % 4;
    rows.push([...Array.from({ length: 48 }, (_, j) => (Math.floor(j / 12) === c ? 1 : 0) + ((i * 7 + j) % 5) / 20), c].join(','));
  }
  await page.click('#tab-train');
  await page.selectOption('#train-data', 'file');
  await page.setInputFiles(byId('train-data-file'), { name: 'blocks.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
  await page.waitForFunction(() => /blocks\.csv: 64 samples × 48 features/.test(document.getElementById('panel-train').textContent));
  await page.fill('#train-batch', '8');
  await page.click(byId('train-start'));
  await page.waitForFunction(() => window.popartApp.trainHistory.length >= 3, null, { timeout: 120000 });
  await page.click(byId('train-pause'));
  await waitIdle(page);
  const hist = await page.evaluate(() => window.popartApp.trainHistory.map((h) => h.loss));
  assert.ok(hist.every(Number.isFinite), hist.join(' '));
  await shot(page, 'symbolic-train');
  assert.deepEqual(p.errors, []);
  await p.close();
});
