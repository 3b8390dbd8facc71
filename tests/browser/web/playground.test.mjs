// What TensorFlow Playground / tfjs-vis and ONNX Runtime Web's demos show, in the page (issue 21
// §2): a held-out validation split charted beside training, its confusion matrix, the weights'
// histograms over training, class names for top-k (a labels file; the digits' built in), a digit
// drawn on a canvas and classified with the model just trained, an image file previewed as the
// model receives it; and two §1.7 defects: labelled chart axes, SGD / RMSProp defaults that learn
// on the MLP example. Every check is against real values: the confusion matrix against the
// accuracy shown, the histograms against describeModel of the model (first) and of the trained
// model downloaded (latest), drawings of the dataset's own digits against their labels.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, waitIdle, shot, byId, WEB_DIR } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

// The built-in digits as the page has them: 1,797 samples of 64 pixels (0..16), then the labels.
const digitsBin = fs.readFileSync(path.join(WEB_DIR, 'data/digits.bin'));
const DIGITS = JSON.parse(fs.readFileSync(path.join(WEB_DIR, 'data/digits.json'), 'utf8')).count;
const pixels = (k) => Array.from(digitsBin.subarray(k * 64, (k + 1) * 64));
const label = (k) => digitsBin[DIGITS * 64 + k];

/// The dataset's most typical sample of class `c` (the one nearest its class's mean image): a
/// recognisable digit, chosen by a rule rather than by hand.
function typical(c) {
  const ks = [];
  for (let k = 0; k < DIGITS; ++k) if (label(k) === c) ks.push(k);
  const mean = new Array(64).fill(0);
  for (const k of ks) pixels(k).forEach((v, i) => { mean[i] += v / ks.length; });
  let best = ks[0], bestD = Infinity;
  for (const k of ks) {
    const d = pixels(k).reduce((a, v, i) => a + (v - mean[i]) ** 2, 0);
    if (d < bestD) { bestD = d; best = k; }
  }
  return best;
}

const panelText = (page, id) => page.textContent(`#${id}`);
/// [training samples, validation samples] of the training that runs (the note beside the field).
const split = (page) => page.$eval('#train-validation + span', (e) => [Number(e.dataset.train), Number(e.dataset.validation)]);
const bannerText = (page) => page.textContent(`${byId('error-banner')} .banner-text`);

/// Starts training, lets it run `steps` steps, pauses, and waits until the worker says it paused
/// (no step is in flight after that).
async function trainSteps(page, steps, timeout = 240000) {
  await page.click(byId('train-start'));
  await page.waitForFunction((n) => window.popartApp.trainHistory.length >= n, steps, { timeout });
  await page.click(byId('train-pause'));
  await page.waitForFunction(() => /Paused after step \d+/.test(document.getElementById('panel-train').textContent), null, { timeout });
  await waitIdle(page);
}

/// Draws the 8×8 digit `v` on the drawing pad with the mouse, a stroke along each row's run of
/// inked cells (value >= 8), cells as wide as the pen; resolves with the pad's drawing version.
async function drawDigit(page, v) {
  await page.click(byId('draw-clear'));
  const pad = page.locator(byId('draw-canvas'));
  const box = await pad.boundingBox();
  const pen = (Number(await pad.getAttribute('data-pen-width')) * box.width) / 224;
  const cell = box.width / 9;
  assert.ok(pen >= cell, `pen ${pen} px, cell ${cell} px: the strokes of neighbouring rows touch`);
  const ox = box.x + (box.width - 8 * cell) / 2, oy = box.y + (box.height - 8 * cell) / 2;
  for (let r = 0; r < 8; ++r) {
    for (let x = 0; x < 8; ++x) {
      if (v[r * 8 + x] < 8) continue;
      let e = x;
      while (e + 1 < 8 && v[r * 8 + e + 1] >= 8) ++e;
      const y = oy + (r + 0.5) * cell;
      await page.mouse.move(ox + (x + 0.5) * cell, y);
      await page.mouse.down();
      await page.mouse.move(ox + (e + 0.5) * cell, y, { steps: 4 });
      await page.mouse.up();
      x = e;
    }
  }
  return pad.getAttribute('data-version');
}

/// The top-k's best class (name and index) of the run that classified drawing `version`.
async function classified(page, version) {
  const topk = `${byId('run-output')}[data-drawing="${version}"] ${byId('topk')}`;
  await page.waitForSelector(topk, { timeout: 60000 });
  return { name: await page.getAttribute(topk, 'data-top-name'), index: Number(await page.getAttribute(topk, 'data-top')) };
}

test('validation split: the held-out digits classified every step; accuracy = confusion diagonal / total; weight histograms', async () => {
  const p = await openPage(env, { viewport: { width: 1440, height: 1000 } });
  const { page } = p;
  await page.click('#tab-train');
  assert.equal(await page.inputValue('#train-validation'), '20');
  await trainSteps(page, 3);
  const held = Math.round(DIGITS * 0.2);
  assert.deepEqual(await split(page), [DIGITS - held, held]);

  // The confusion matrix: every held-out sample once; the accuracy shown is its diagonal's share.
  const cm = page.locator(byId('confusion-matrix'));
  const cells = await cm.locator('td[data-count]').evaluateAll((els) => els.map((e) => [Number(e.dataset.true), Number(e.dataset.pred), Number(e.dataset.count)]));
  assert.equal(cells.length, 100);
  const total = cells.reduce((a, [, , n]) => a + n, 0);
  const diagonal = cells.filter(([t, q]) => t === q).reduce((a, [, , n]) => a + n, 0);
  assert.equal(total, held);
  assert.equal(Number(await cm.getAttribute('data-total')), total);
  assert.equal(Number(await cm.getAttribute('data-correct')), diagonal);
  const last = await page.evaluate(() => window.popartApp.trainHistory.at(-1));
  assert.equal(Number(await cm.getAttribute('data-step')), last.step);
  assert.equal(await page.textContent(byId('validation-accuracy')), `${((100 * diagonal) / total).toFixed(1)}%`);
  assert.equal(Number(await page.getAttribute(byId('validation-accuracy'), 'data-value')), diagonal / total);
  assert.ok(diagonal / total >= 0.9, `validation accuracy ${diagonal}/${total}`);
  // Each row holds the held-out samples of that class (their labels, counted here from the split's size).
  const rows = new Array(10).fill(0);
  for (const [t, , n] of cells) rows[t] += n;
  assert.ok(rows.every((n) => n > 0), `every class is held out: ${rows}`);
  // Class names: the digits'.
  assert.deepEqual(await cm.locator('thead th.num').allTextContents(), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

  // Charted beside training: the accuracy chart has a validation column from step 0 (the initial
  // weights, near chance) on; the loss chart a validation loss at each epoch's end.
  const accRows = await page.$$eval(`${byId('accuracy-chart')} + details tbody tr`, (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.equal(accRows.length, last.step + 1);
  assert.equal(accRows[0][0], '0');
  assert.ok(Number(accRows[0][2]) < 40, `before training: ${accRows[0][2]}%`);
  assert.equal(Number(accRows.at(-1)[2]), Number((100 * diagonal / total).toPrecision(4)));
  const lossRows = await page.$$eval(`${byId('loss-chart')} + details tbody tr`, (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const valLosses = lossRows.filter((r) => r[2] !== '—');
  assert.deepEqual(valLosses.map((r) => Number(r[0])), Array.from({ length: last.step }, (_, i) => i + 1));
  assert.ok(Number(valLosses.at(-1)[2]) < 0.5, `validation loss ${valLosses.at(-1)[2]}`);
  assert.equal(Number(valLosses.at(-1)[2]), Number(last.validation.loss.toPrecision(4)));
  assert.equal(await page.textContent(byId('validation-loss')), String(Number(last.validation.loss.toPrecision(4))));

  // Weight histograms: one per weight; the first is describeModel's histogram of the model as
  // opened (the same seeded weights), the latest that of the trained model downloaded now.
  const hists = await page.locator(`${byId('weight-histograms')} [data-weight]`).evaluateAll((els) => els.map((e) => ({ ...e.dataset })));
  assert.deepEqual(hists.map((w) => w.weight), ['conv1.w', 'conv1.b', 'conv2.w', 'conv2.b', 'fc1.w', 'fc1.b', 'fc2.w', 'fc2.b']);
  const opened = await page.evaluate(() => Object.fromEntries(window.popartApp.model.description.tensors
    .filter((t) => t.kind === 'initializer').map((t) => [t.name, { elements: t.elements, histogram: t.stats.histogram }])));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(byId('download-model'))]);
  const { createPopart } = await import(path.join(WEB_DIR, 'pkg/index.mjs'));
  const popart = await createPopart();
  const trained = Object.fromEntries(popart.describeModel(new Uint8Array(fs.readFileSync(await dl.path())), {}).tensors
    .filter((t) => t.kind === 'initializer').map((t) => [t.name, t.stats.histogram]));
  for (const w of hists) {
    const counts = w.counts.split(',').map(Number), first = w.firstCounts.split(',').map(Number);
    assert.equal(Number(w.steps), last.step + 1, w.weight);
    assert.equal(counts.reduce((a, b) => a + b), opened[w.weight].elements, w.weight);
    assert.deepEqual(first, opened[w.weight].histogram.counts, `${w.weight} at step 0`);
    assert.equal(Number(w.firstHistMin), opened[w.weight].histogram.min, w.weight);
    assert.deepEqual(counts, trained[w.weight].counts, `${w.weight} now`);
    assert.equal(Number(w.histMax), trained[w.weight].max, w.weight);
  }
  assert.notDeepEqual(hists[0].counts, hists[0].firstCounts, 'conv1.w moved');
  await page.locator(byId('confusion-matrix')).scrollIntoViewIfNeeded();
  await shot(page, 'playground-confusion');
  await page.locator(byId('weight-histograms')).scrollIntoViewIfNeeded();
  await shot(page, 'playground-weights');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('validation % applies to user data; 0 turns it off; a value out of range says so', async () => {
  const p = await openPage(env);
  const { page } = p;
  await page.click('#tab-train');
  // 200 of the digits as a CSV (pixels / 16, then the label).
  const csv = Array.from({ length: 200 }, (_, k) => [...pixels(k).map((v) => v / 16), label(k)].join(',')).join('\n');
  await page.selectOption('#train-data', 'file');
  await page.setInputFiles(byId('train-data-file'), { name: 'digits200.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.waitForFunction(() => /digits200\.csv: 200 samples × 64 features/.test(document.getElementById('panel-train').textContent));
  await page.fill('#train-validation', '95');
  await page.click(byId('train-step'));
  await page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
  assert.match(await bannerText(page), /validation split must be a whole number of percent from 0 to 90, got '95'/);
  await page.fill('#train-validation', '25');
  await page.click(byId('train-step'));
  await page.waitForFunction(() => window.popartApp.trainHistory.length === 1, null, { timeout: 60000 });
  assert.deepEqual(await split(page), [150, 50]);
  await page.waitForFunction(() => document.querySelector('[data-testid="confusion-matrix"]').dataset.step === '1');
  assert.equal(await page.getAttribute(byId('confusion-matrix'), 'data-total'), '50');
  const correct = Number(await page.getAttribute(byId('confusion-matrix'), 'data-correct'));
  assert.equal(await page.textContent(byId('validation-accuracy')), `${((100 * correct) / 50).toFixed(1)}%`);
  await page.click(byId('train-stop'));
  await waitIdle(page);
  // 0%: every sample trains, nothing is held out, and the views say so.
  await page.click(byId('train-reset'));
  await page.waitForFunction(() => /Reset/.test(document.getElementById('panel-train').textContent));
  await page.fill('#train-validation', '0');
  await page.click(byId('train-step'));
  await page.waitForFunction(() => window.popartApp.trainHistory.length === 1, null, { timeout: 60000 });
  assert.deepEqual(await split(page), [200, 0]);
  assert.equal(await page.textContent(byId('validation-accuracy')), '—');
  assert.equal(await page.getAttribute(byId('confusion-matrix'), 'data-total'), '0');
  assert.match(await panelText(page, 'panel-train'), /No validation: no validation split/);
  await page.click(byId('train-stop'));
  await waitIdle(page);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('draw a digit: after training, the dataset\'s typical digit of each class drawn on the pad is that class', async () => {
  const p = await openPage(env, { viewport: { width: 1440, height: 1000 } });
  const { page } = p;
  await page.click('#tab-train');
  await trainSteps(page, 5);
  await page.click('#tab-run');
  await page.fill('#run-repeats', '1');
  for (let c = 0; c < 10; ++c) {
    const k = typical(c);
    const version = await drawDigit(page, pixels(k));
    const top = await classified(page, version);
    assert.deepEqual(top, { name: String(c), index: c }, `sample ${k} (a ${c}) drawn`);
    // Beside the pad, the same class, its probability and the weights used.
    assert.equal(await page.getAttribute(byId('draw-result'), 'data-top'), String(c));
    assert.match(await page.textContent(byId('draw-result')), new RegExp(`^Classified as ${c} \\(\\d+\\.\\d%\\).* trained weights, step \\d+$`));
    // What the model received: 8×8 counts of on pixels (0..16) / 16, the digits' own scale.
    const values = (await page.getAttribute(byId('image-preview'), 'data-values')).split(',').map(Number);
    assert.equal(values.length, 64);
    assert.ok(values.every((v) => Number.isInteger(Math.round(v * 16 * 1e3) / 1e3) && v >= 0 && v <= 1), values.join(' '));
    assert.equal(Math.max(...values), 1);
    if (c === 7) await shot(page, 'playground-draw');
  }
  assert.equal(await page.getAttribute(byId('run-weights'), 'data-source'), 'trained');
  assert.equal(await page.getAttribute(byId('image-preview'), 'data-source'), 'drawing');
  assert.match(await page.textContent('.preview-note'), /32×32 bitmap .* counted in 4×4 blocks/);
  // A picture of a digit (dark on light, 8× the dataset's pixels) goes the same way.
  const k = typical(3);
  const png = await page.evaluate(async (v) => {
    const c = new OffscreenCanvas(64, 64);
    const x = c.getContext('2d');
    x.fillStyle = '#fff';
    x.fillRect(0, 0, 64, 64);
    v.forEach((p, i) => { const g = Math.floor(255 * (1 - p / 16)); x.fillStyle = `rgb(${g},${g},${g})`; x.fillRect((i % 8) * 8, Math.floor(i / 8) * 8, 8, 8); });
    return Array.from(new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer()));
  }, pixels(k));
  await page.selectOption('select[data-input="image"]', 'image');
  await page.setInputFiles('input[data-input-file="image"]', { name: 'three.png', mimeType: 'image/png', buffer: Buffer.from(png) });
  await page.waitForSelector(`${byId('image-preview')}[data-source="image"]`);
  // Its ink's box (the cells over 0.1 of ink: 2 of 16 and up) is 8 cells high: scaled to the 32×32
  // bitmap each cell is a 4×4 block again, so the cells of at least half ink are on (16) and the
  // rest off, centred: exactly the digit again, thresholded.
  const v = pixels(k);
  const cols = v.flatMap((x, i) => (x >= 2 ? [i % 8] : []));
  const c0 = Math.min(...cols), width = Math.max(...cols) - c0 + 1;
  assert.equal(width % 2, 0, `sample ${k}: an even number of columns keeps the cells on the blocks`);
  const shift = (8 - width) / 2 - c0;
  const expected = new Array(64).fill(0);
  v.forEach((x, i) => { if (x >= 8) expected[Math.floor(i / 8) * 8 + (i % 8) + shift] = 1; });
  const values = (await page.getAttribute(byId('image-preview'), 'data-values')).split(',').map(Number);
  assert.deepEqual(values, expected);
  assert.match(await page.textContent('.preview-note'), /64×64 image, its luminance as ink \(inverted when light on the whole\)/);
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-output')}:not([data-drawing]) ${byId('topk')}`, { timeout: 60000 });
  assert.equal(await page.getAttribute(byId('topk'), 'data-top-name'), '3');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('SGD and RMSProp defaults learn on the MLP example (the digits resized to its 28×28); labelled chart axes; drawing for a flat input', async () => {
  const p = await openPage(env, { hash: 'example=mlp' });
  const { page } = p;
  await page.click('#tab-train');
  const learns = async (what) => {
    await trainSteps(page, 2);
    const h = await page.evaluate(() => window.popartApp.trainHistory.map((s) => ({
      first: s.batchLosses[0], loss: s.loss, accuracy: s.accuracy, validation: s.validation.accuracy })));
    const last = h.at(-1);
    console.log(`# ${what}: loss ${h[0].first.toFixed(3)} -> ${last.loss.toFixed(3)}, accuracy ${last.accuracy.toFixed(3)}, ` +
                `validation ${last.validation.toFixed(3)}`);
    assert.ok(last.loss < h[0].first / 4, `${what}: the loss fell from ${h[0].first} to ${last.loss}`);
    assert.ok(last.accuracy >= 0.8 && last.validation >= 0.8, `${what}: accuracy ${last.accuracy}, validation ${last.validation} (chance: 0.1)`);
  };
  // SGD as the form starts it.
  assert.equal(await page.inputValue('#train-optimizer'), 'SGD');
  assert.equal(await page.inputValue('#opt-defaultLearningRate'), '0.05');
  assert.equal(await page.inputValue('#opt-defaultMomentum'), '0.9');
  await learns('SGD');
  assert.match(await page.textContent('#panel-train'), /digits \(1797 images, 8×8\), resized from 8×8 to 28×28 \(bilinear\) for this model's input/);
  // The charts' axes say what they show.
  const axes = await page.$$eval('#panel-train .chart', (els) => els.map((e) => [e.dataset.testid, e.dataset.xLabel, e.dataset.yLabel]));
  assert.deepEqual(axes, [['loss-chart', 'epoch', 'loss'], ['accuracy-chart', 'step (epoch)', 'accuracy %'],
                          ['step-time-chart', 'step (epoch)', 'ms per step'], ['samples-chart', 'step (epoch)', 'samples / s']]);
  assert.match(await page.getAttribute(byId('loss-chart'), 'aria-label'), /\(x: epoch, y: loss\): \d+ points/);
  await page.locator(byId('loss-chart')).scrollIntoViewIfNeeded();
  await shot(page, 'playground-mlp-sgd');
  // RMSProp (Adaptive) as the form starts it, from the model's weights again.
  await page.click(byId('train-reset'));
  await page.waitForFunction(() => window.popartApp.trainHistory.length === 0);
  await page.selectOption('#train-optimizer', 'Adaptive');
  assert.equal(await page.inputValue('#train-mode'), 'RMSProp');
  assert.equal(await page.inputValue('#opt-defaultLearningRate'), '0.002');
  await learns('RMSProp');
  // Trained on the digits, the MLP takes drawings too: prepared as the digits, resized to 28×28.
  await page.click('#tab-run');
  await page.fill('#run-repeats', '1');
  const version = await drawDigit(page, pixels(typical(0)));
  const top = await classified(page, version);
  assert.deepEqual(top, { name: '0', index: 0 });
  assert.equal((await page.getAttribute(byId('image-preview'), 'data-values')).split(',').length, 784);
  assert.match(await page.textContent('.preview-note'), /divided by 16 as for training; resized from 8×8 to 28×28 \(bilinear\)/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('nllloss on a model that ends in logits (cnn_small): a Softmax goes before the loss, which is a positive cross-entropy that falls', async () => {
  const p = await openPage(env, { hash: 'example=cnn_small' });
  const { page } = p;
  await page.click('#tab-train');
  assert.equal(await page.inputValue('#train-loss'), 'nllloss');
  await trainSteps(page, 2);
  const h = await page.evaluate(() => window.popartApp.trainHistory.map((s) => ({
    losses: s.batchLosses, loss: s.loss, accuracy: s.accuracy, validation: s.validation })));
  const all = h.flatMap((s) => s.losses);
  // Cross-entropy: positive, near ln(10) for the first batches of an untrained model, then lower.
  assert.ok(all.every((x) => x > 0 && Number.isFinite(x)), `every batch loss is a cross-entropy: ${all.slice(0, 5)}`);
  assert.ok(Math.abs(all[0] - Math.log(10)) < 1.5, `first loss ${all[0]} near ln 10`);
  assert.ok(h.at(-1).loss < all[0], `the loss fell from ${all[0]} to ${h.at(-1).loss}`);
  // The validation loss is the same cross-entropy of the held-out digits, from the model's logits.
  const v = h.at(-1).validation;
  assert.ok(v.loss > 0 && Number.isFinite(v.loss), `validation loss ${v.loss}`);
  assert.ok(Math.abs(v.loss - h.at(-1).loss) < 1, `validation ${v.loss} near training ${h.at(-1).loss}`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('class names: a labels file for top-k (ResNet-18\'s 1,000), an image previewed as torchvision prepares it; the digits\' names built in', async () => {
  const p = await openPage(env, { hash: 'example=resnet18' });
  const { page } = p;
  assert.match(await page.textContent('#panel-run'), /none: classes show by number/);
  // A picture in three vertical bands, red | green | blue, 3:1: resized to a shorter side of 256
  // (768×256) and the centre 224×224 cropped, which is all green.
  const png = await page.evaluate(async () => {
    const c = new OffscreenCanvas(600, 200);
    const x = c.getContext('2d');
    ['#ff0000', '#00ff00', '#0000ff'].forEach((colour, i) => { x.fillStyle = colour; x.fillRect(200 * i, 0, 200, 200); });
    return Array.from(new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer()));
  });
  await page.selectOption('select[data-input="input"]', 'image');
  await page.setInputFiles('input[data-input-file="input"]', { name: 'bands.png', mimeType: 'image/png', buffer: Buffer.from(png) });
  const preview = `${byId('image-preview')}[data-source="image"]`;
  await page.waitForSelector(preview);
  const size = await page.$eval(preview, (e) => [e.dataset.width, e.dataset.height, e.dataset.channels]);
  assert.deepEqual(size, ['224', '224', '3']);
  // Green, normalised per channel: (0 - 0.485) / 0.229, (1 - 0.456) / 0.224, (0 - 0.406) / 0.225.
  const means = (await page.getAttribute(preview, 'data-channel-means')).split(',').map(Number);
  [(0 - 0.485) / 0.229, (1 - 0.456) / 0.224, (0 - 0.406) / 0.225].forEach((m, c) => assert.ok(Math.abs(means[c] - m) < 1e-3, `channel ${c}: ${means[c]} vs ${m}`));
  assert.match(await page.textContent('#panel-run .preview-note'), new RegExp(['600×200 resized to 768×256 \\(shorter side 256, smoothed\\)',
    'centre 224×224 cropped, RGB / 255', "normalised with ImageNet's mean \\(0\\.485, 0\\.456, 0\\.406\\) and std \\(0\\.229, 0\\.224, 0\\.225\\)"].join(', ')));
  // 1,000 class names, one a line.
  const names = Array.from({ length: 1000 }, (_, i) => `class ${i} name`);
  await page.setInputFiles(byId('labels-file'), { name: 'imagenet.txt', mimeType: 'text/plain', buffer: Buffer.from(`${names.join('\n')}\n`) });
  await page.waitForFunction(() => /imagenet\.txt: 1000 names/.test(document.getElementById('panel-run').textContent));
  await page.fill('#run-repeats', '1');
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-output')} ${byId('topk')}`, { timeout: 120000 });
  const rows = await page.$$eval(`${byId('topk')} tr`, (trs) => trs.map((tr) => [Number(tr.dataset.class), tr.cells[0].textContent]));
  assert.equal(rows.length, 5);
  for (const [i, text] of rows) assert.equal(text, `${names[i]} #${i}`);
  // The scores are the model's on that input: the first output row's largest.
  const out = await page.evaluate(() => Array.from(window.popartApp.lastRun.outputs[0].data.subarray(0, 1000)));
  assert.equal(rows[0][0], out.indexOf(Math.max(...out)));
  await shot(page, 'playground-imagenet');
  // A file with fewer names: the rest by number; Forget: all by number.
  await page.setInputFiles(byId('labels-file'), { name: 'three.txt', mimeType: 'text/plain', buffer: Buffer.from('cat\r\ndog\r\nbird\r\n') });
  await page.waitForFunction(() => /three\.txt: 3 names for 1000 classes \(the rest show by number\)/.test(document.getElementById('panel-run').textContent));
  assert.equal(await page.textContent(`${byId('topk')} tr td`), rows[0][0] < 3 ? `${['cat', 'dog', 'bird'][rows[0][0]]} #${rows[0][0]}` : `#${rows[0][0]}`);
  await page.click('#panel-run button[title="Forget the labels file"]');
  await page.waitForFunction(() => /none: classes show by number/.test(document.getElementById('panel-run').textContent));
  assert.equal(await page.textContent(`${byId('topk')} tr td`), `#${rows[0][0]}`);
  // An empty file says so.
  await page.setInputFiles(byId('labels-file'), { name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.from('\n\n') });
  await page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
  assert.match(await bannerText(page), /empty\.txt holds no class names/);
  // The digits: their names built in (and a model change forgets a labels file).
  await page.setInputFiles(byId('labels-file'), { name: 'three.txt', mimeType: 'text/plain', buffer: Buffer.from('cat\ndog\nbird\n') });
  await page.selectOption(byId('example-select'), 'digits');
  await page.waitForFunction(() => window.popartApp.model?.example?.kind === 'digits-cnn' && document.body.dataset.busy === 'false');
  assert.match(await page.textContent('#panel-run'), /built in: the digits 0–9/);
  await page.click(byId('run-button'));
  await page.waitForSelector(`${byId('run-output')} ${byId('topk')}`);
  const top = await page.getAttribute(byId('topk'), 'data-top');
  assert.equal(await page.getAttribute(byId('topk'), 'data-top-name'), top);
  assert.equal(await page.textContent(`${byId('topk')} tr td`), `${top} #${top}`);
  assert.deepEqual(p.errors, []);
  await p.close();
});
