// Replication on the page (issue 23, the page's part): the Replicas field beside the IPUs (in the
// URL hash as `replicas`), inference with one result per replica, training with each replica on
// its own slice of the batch (gradients averaged over the replicas), and the reports showing each
// replica and the all-reduce across them; bad values say what is wrong.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitIdle, shot, byId } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const bannerText = (page) => page.textContent(`${byId('error-banner')} .banner-text`);

/// Sets a device field as a person does (type, Enter).
async function setField(page, id, value) {
  await page.fill(byId(id), String(value));
  await page.press(byId(id), 'Enter');
}

async function run(page) {
  await page.click('#tab-run');
  await page.click(byId('run-button'));
  await page.waitForFunction(() => document.querySelector('[data-testid="run-output"] [data-output]') && document.body.dataset.busy === 'false',
                             null, { timeout: 120000 });
  return page.evaluate(() => window.popartApp.lastRun.outputs.map((o) => ({ name: o.name, shape: o.shape, replicaAxis: o.replicaAxis,
                                                                             data: Array.from(o.data) })));
}

/// `steps` training steps with the Step button; the steps' figures.
async function trainSteps(page, steps) {
  await page.click('#tab-train');
  for (let i = 1; i <= steps; ++i) {
    await page.click(byId('train-step'));
    await page.waitForFunction((n) => window.popartApp.trainHistory.length === n, i, { timeout: 180000 });
  }
  await page.click(byId('train-stop'));
  await waitIdle(page, 120000);
  return page.evaluate(() => window.popartApp.trainHistory.map((h) => ({ loss: h.loss, batchLosses: h.batchLosses, replicas: h.replicas,
                                                                       replicaLosses: h.replicaLosses })));
}

const near = (a, b, tol, what) => {
  assert.equal(a.length, b.length, `${what}: ${a.length} vs ${b.length} values`);
  a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) <= tol * Math.max(1, Math.abs(b[i])), `${what}[${i}]: ${v} vs ${b[i]}`));
};

test('Run with 2 replicas on the IPU model: one result per replica, each the 1-replica result for its micro-batch', async () => {
  const p = await openPage(env, { hash: 'example=mlp&device=ipu2&tiles=64' });
  const { page } = p;
  assert.equal(await page.inputValue(byId('device-replicas')), '1');
  assert.equal(await page.isHidden(byId('run-replicas-note')), true);
  // One replica, two batches per step: the random inputs of batch b are the values a 2-replica
  // step gives replica b (the same seeded sequence, [batchesPerStep, replicas, ...] in order).
  await page.fill('#run-bps', '2');
  await page.fill('#run-repeats', '1');
  const [one] = await run(page);
  assert.deepEqual(one.shape, [2, 32, 10]);
  assert.equal(one.replicaAxis, -1);
  assert.equal(await page.locator(byId('replica-outputs')).count(), 0);
  // Two replicas of one IPU each: the device has 2 IPUs, the hash says so.
  await setField(page, 'device-replicas', 2);
  await page.waitForFunction(() => /(^|&)replicas=2(&|$)/.test(location.hash.slice(1)));
  assert.equal(await page.textContent(byId('device-total')), '= 2 IPUs');
  assert.deepEqual(await page.evaluate(() => window.popartApp.device()),
                   { type: 'ipuModel', options: { ipuVersion: 'ipu2', numIPUs: 2, tilesPerIPU: 64 }, replicas: 2, ipusPerReplica: 1 });
  assert.match(await page.textContent(byId('run-replicas-note')), /2 replicas: a step feeds each replica its own micro-batch .*\[batchesPerStep, 2, …its shape\]/);
  await page.fill('#run-bps', '1');
  const [two] = await run(page);
  assert.deepEqual(two.shape, [2, 32, 10]);   // [replicas, batch, classes]: batchesPerStep 1 dropped
  assert.equal(two.replicaAxis, 0);
  near(two.data, one.data, 1e-6, 'replica r vs batch r of one replica');
  // The page shows each replica's result: its row in the table, replica 0's top-k.
  const rows = await page.$$eval(`${byId('replica-outputs')} tbody tr`, (trs) => trs.map((tr) => ({ replica: tr.dataset.replica, mean: Number(tr.dataset.mean),
                                                                                                    top: tr.dataset.top })));
  assert.deepEqual(rows.map((r) => r.replica), ['0', '1']);
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  near(rows.map((r) => r.mean), [mean(two.data.slice(0, 320)), mean(two.data.slice(320))], 1e-6, 'replica means');
  const argmax = (row) => row.indexOf(Math.max(...row));
  assert.deepEqual(rows.map((r) => Number(r.top)), [argmax(two.data.slice(0, 10)), argmax(two.data.slice(320, 330))]);
  assert.match(await page.textContent(`${byId('run-output')} [data-testid="topk"] caption`), /^Replica 0: Top 5 of 10 classes \(first row\)/);
  assert.equal(await page.getAttribute(`${byId('run-output')} [data-testid="run-replicas"]`, 'data-replicas'), '2');
  assert.match(await page.textContent(byId('run-output')), /modelled IPU time per step \(ipu2, 2 replicas in parallel, 64 tiles each\)/);
  await page.locator(byId('replica-outputs')).scrollIntoViewIfNeeded();
  await shot(page, 'replicas-run');
  await page.screenshot({ path: '/tmp/replicas-run.png' });
  // Inference reduces nothing across the replicas: the reports say so.
  await page.click('#tab-reports');
  await page.waitForSelector(byId('replica-summary'));
  assert.equal(await page.getAttribute(byId('replica-summary'), 'data-all-reduce'), '0');
  assert.match(await page.textContent(byId('replica-all-reduce')), /No all-reduce across replicas/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('Train with 2 replicas: the step one replica takes on twice the batch; the reports show each replica and the all-reduce', async () => {
  // One replica, batch 32: the reference.
  const p = await openPage(env, { hash: 'device=ipu2&tiles=16&tab=tab-train' });
  const { page } = p;
  assert.equal(await page.textContent(byId('train-batch-note')), '');
  const single = await trainSteps(page, 2);
  await page.click(byId('train-reset'));
  // Two replicas of batch 16: each micro-batch is the same 32 samples, each replica its half;
  // the gradients averaged over the replicas, so the losses and the updates are the reference's.
  await setField(page, 'device-replicas', 2);
  await page.fill('#train-batch', '16');
  await page.waitForFunction(() => /per replica: 2 replicas × 16 = 32 samples per batch/.test(document.querySelector('[data-testid="train-batch-note"]').textContent));
  const replicated = await trainSteps(page, 2);
  for (const [i, s] of replicated.entries()) {
    assert.equal(s.replicas, 2);
    assert.ok(Number.isFinite(s.loss), `step ${i + 1}: loss ${s.loss}`);
    assert.equal(s.replicaLosses.length, 2);
    assert.ok(Math.abs((s.replicaLosses[0] + s.replicaLosses[1]) / 2 - s.loss) < 1e-6, 'the loss shown is the mean over the replicas');
    near(s.batchLosses, single[i].batchLosses, 1e-4, `step ${i + 1}: each batch's loss (mean over the replicas) vs one replica of 32`);
  }
  assert.ok(replicated[1].loss < replicated[0].loss, `the loss falls: ${replicated[0].loss} -> ${replicated[1].loss}`);
  assert.match(await page.textContent('#panel-train'), /loss \(the mean over the 2 replicas\)/i);
  const perReplica = JSON.parse(await page.getAttribute(byId('train-replica-losses'), 'data-values'));
  near(perReplica, replicated[1].replicaLosses, 1e-9, 'the replicas\' losses shown');
  await page.locator(byId('train-replica-losses')).scrollIntoViewIfNeeded();
  await shot(page, 'replicas-train');
  await page.screenshot({ path: '/tmp/replicas-train.png' });

  // The reports: each replica's IPUs, tiles and memory (the same by construction), the all-reduce.
  await page.click('#tab-reports');
  await page.waitForSelector(byId('replica-summary'));
  const summary = await page.$eval(byId('replica-summary'), (e) => ({ ...e.dataset }));
  assert.equal(summary.replicas, '2');
  assert.equal(summary.identical, 'true');
  const allReduce = Number(summary.allReduce);
  assert.ok(allReduce > 0, `all-reduce cycles ${allReduce}`);
  assert.match(await page.textContent(byId('replica-all-reduce')), new RegExp(`All-reduce across replicas: ${allReduce.toLocaleString('en-US')} cycles per micro-batch`));
  const rows = await page.$$eval(`${byId('replica-table')} tbody tr`, (trs) => trs.map((tr) => ({ ...tr.dataset })));
  assert.deepEqual(rows.map((r) => [r.replica, r.firstIpu, r.lastIpu, r.firstTile, r.lastTile]), [['0', '0', '0', '0', '15'], ['1', '1', '1', '16', '31']]);
  assert.equal(rows[0].bytes, rows[1].bytes);
  assert.match(await page.textContent('.rv-slot-head'), /2 replicas × 1 IPU × 16 tiles/);
  await shot(page, 'replicas-report-summary');
  await page.screenshot({ path: '/tmp/replicas-report-summary.png' });
  // Execution: the all-reduce in the cycle breakdown, labelled.
  await page.click('[role=tab][data-tab="execution"]');
  assert.equal(await page.getAttribute(byId('execution-totals'), 'data-all-reduce'), String(allReduce));
  assert.match(await page.textContent(byId('execution-totals')), new RegExp(`… of which all-reduce across replicas${allReduce.toLocaleString('en-US')} \\(`));
  await shot(page, 'replicas-report-execution');
  await page.screenshot({ path: '/tmp/replicas-report-execution.png' });
  // Timeline: one replica's lanes, and it says so.
  await page.click('[role=tab][data-tab="timeline"]');
  assert.match(await page.textContent(byId('timeline-facts')), /Replicas2 in parallel: the lanes are one replica's IPUs; every replica runs the same supersteps at the same time/);
  assert.equal(await page.getAttribute(byId('timeline-chart'), 'data-ipus'), '1');
  // Memory: replica 1's tiles on their own; one of its tiles lists replica 0's tensors at the same place.
  await page.click('[role=tab][data-tab="memory"]');
  await page.selectOption(byId('replica-select'), '1');
  await page.waitForFunction(() => document.querySelector('[data-testid="tile-heat-grid"]')?.dataset.firstTile === '16');
  const heat = await page.$eval(byId('tile-heat-grid'), (e) => ({ ...e.dataset }));
  assert.equal(heat.lastTile, '31');
  const chart = await page.$eval(byId('tile-memory-chart'), (e) => ({ from: e.dataset.viewFrom, to: e.dataset.viewTo }));
  assert.deepEqual(chart, { from: '16', to: '32' });
  await page.locator(`${byId('tile-heat-grid')} canvas`).scrollIntoViewIfNeeded();
  const box = await page.locator(`${byId('tile-heat-grid')} canvas`).boundingBox();
  const cell = Number(heat.cell);
  await page.mouse.click(box.x + Number(heat.gridLeft) + cell / 2, box.y + Number(heat.gridTop) + cell / 2);
  await page.waitForFunction(() => document.querySelector('[data-testid="tile-tensors"]')?.dataset.tile === '16');
  const info = await page.$eval(byId('tile-tensors'), (e) => ({ ...e.dataset }));
  assert.deepEqual([info.replica, info.baseTile], ['1', '0']);
  assert.match(await page.textContent(byId('tile-replica-note')), /Replica 1 repeats replica 0's layout: the tensors below are those of replica 0's tile 0/);
  assert.ok(await page.locator(`${byId('tile-tensor-table')} tbody tr`).count() > 0);
  await page.locator(byId('tile-heat-grid')).scrollIntoViewIfNeeded();
  await shot(page, 'replicas-report-memory');
  await page.screenshot({ path: '/tmp/replicas-report-memory.png' });
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('replicas in the URL hash and bad values: a clear message, never a crash; CPU has no replicas', async () => {
  const p = await openPage(env, { hash: 'example=mlp&device=ipu2&tiles=16&ipus=2&replicas=3' });
  const { page } = p;
  assert.equal(await page.inputValue(byId('device-replicas')), '3');
  assert.equal(await page.textContent(byId('device-total')), '= 6 IPUs');
  assert.deepEqual(await page.evaluate(() => { const d = window.popartApp.device(); return [d.options.numIPUs, d.replicas, d.ipusPerReplica]; }), [6, 3, 2]);
  await page.screenshot({ path: '/tmp/replicas-toolbar.png', clip: { x: 0, y: 0, width: 1440, height: 48 } });
  // A value typed: in the hash, and a link with it opens with it.
  await setField(page, 'device-replicas', 4);
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('replicas') === '4');
  const hash = await page.evaluate(() => location.hash.slice(1));
  // 0 replicas, and more IPUs than a device has: refused, said, the last good value kept.
  await setField(page, 'device-replicas', 0);
  await page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
  assert.equal(await bannerText(page), 'Device: The number of replicas must be a whole number from 1 to 64, got \'0\'');
  assert.equal(await page.inputValue(byId('device-replicas')), '4');
  await setField(page, 'device-replicas', 40);
  await page.waitForFunction(() => /80 IPUs/.test(document.querySelector('[data-testid="error-banner"]').textContent));
  assert.equal(await bannerText(page), 'Device: 2 IPUs per replica × 40 replicas = 80 IPUs; the page\'s devices have at most 64 IPUs (an IPU-POD64)');
  assert.equal(await page.inputValue(byId('device-replicas')), '4');
  await setField(page, 'device-ipus', 32);
  await page.waitForFunction(() => /128 IPUs/.test(document.querySelector('[data-testid="error-banner"]').textContent));
  assert.equal(await page.inputValue(byId('device-ipus')), '2');
  assert.equal(await page.evaluate(() => window.popartApp.device().options.numIPUs), 8);
  await shot(page, 'replicas-bad-value');
  await page.screenshot({ path: '/tmp/replicas-bad-value.png' });
  // 2 IPUs per replica x 4 replicas: the model split over each replica's 2 IPUs (virtualGraphMode
  // Auto), the report's op table with the IPU of a replica.
  await page.click('#tab-run');
  const [out] = await run(page);
  assert.deepEqual(out.shape, [4, 32, 10]);
  await page.click('#tab-reports');
  await page.waitForSelector(byId('replica-summary'));
  assert.equal(await page.getAttribute(byId('replica-summary'), 'data-replicas'), '4');
  const last = await page.$eval(`${byId('replica-table')} tbody tr:last-child`, (tr) => ({ ...tr.dataset }));
  assert.deepEqual([last.replica, last.firstIpu, last.lastIpu, last.firstTile, last.lastTile], ['3', '6', '7', '96', '127']);
  await page.click('[role=tab][data-tab="operations"]');
  assert.equal(await page.locator(`${byId('op-table')} th[data-col="ipu"]`).count(), 1);
  // The CPU device has no replicas to set.
  await page.selectOption(byId('device-select'), 'cpu');
  assert.equal(await page.locator(byId('device-replicas')).count(), 0);
  assert.equal(await page.evaluate(() => window.popartApp.device().replicas), 1);
  assert.deepEqual(p.errors, []);
  await p.close();

  // The link reproduces the device; the top bar stays on one row at 1280 px with the replicas.
  const q = await openPage(env, { hash, viewport: { width: 1280, height: 800 } });
  assert.equal(await q.page.inputValue(byId('device-replicas')), '4');
  assert.equal(await q.page.textContent(byId('device-total')), '= 8 IPUs');
  const centres = await q.page.$$eval('.topbar > *, .topbar .toolbar > *, .topbar .device-options > *', (els) =>
    els.filter((e) => e.offsetParent !== null).map((e) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; }));
  assert.ok(Math.max(...centres) - Math.min(...centres) < 16, 'the top bar on one row');
  await q.page.screenshot({ path: '/tmp/replicas-toolbar-1280.png', clip: { x: 0, y: 0, width: 1280, height: 48 } });
  await q.close();
  // A link with a bad value: the default and a notice naming it.
  for (const [bad, message] of [['replicas=0', /The link's replicas: The number of replicas must be a whole number from 1 to 64, got '0'; using 1\./],
                                ['ipus=8&replicas=16', /The link's replicas: 8 IPUs per replica × 16 replicas = 128 IPUs; .*at most 64 IPUs.*; using 1\./]]) {
    const b = await openPage(env, { hash: `example=mlp&device=ipu2&tiles=16&${bad}` });
    await b.page.waitForSelector(`${byId('error-banner')}:not([hidden])`);
    assert.match(await bannerText(b.page), message);
    assert.equal(await b.page.inputValue(byId('device-replicas')), '1');
    assert.equal(await b.page.evaluate(() => window.popartApp.device().replicas), 1);
    await b.close();
  }
});

test('an offline IPU with replicas compiles each replica: the report shows them, nothing runs', async () => {
  const p = await openPage(env, { hash: 'example=cnn_small&device=offline-ipu2&tiles=32&replicas=2' });
  const { page } = p;
  await page.click(byId('run-button'));
  await page.waitForFunction(() => /Compiled for an offline IPU/.test(document.querySelector('[data-testid="run-output"]').textContent), null, { timeout: 120000 });
  await page.click('#tab-reports');
  await page.waitForSelector(byId('replica-summary'));
  assert.equal(await page.getAttribute(byId('replica-summary'), 'data-replicas'), '2');
  assert.match(await page.textContent('.rv-slot-head'), /OfflineIpu · ipu2 · 2 replicas × 1 IPU × 32 tiles/);
  assert.deepEqual(p.errors, []);
  await p.close();
});
