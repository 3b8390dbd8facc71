// The reports views (web/src/reports) in headless Chromium, on reports the wasm package makes
// (make-report-fixtures.mjs: resnet18 training on 1,472 tiles, cnn_small out of memory on 4
// tiles, mlp on ipu1 vs ipu2, a 2-IPU pipeline, the CPU device's host times). Every figure the
// page shows is checked against the report JSON, computed here independently of the view's code.
// Screenshots go to build/web-tests/.
// Usage: node --test tests/browser/web/reports-view.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportsPage, sum } from './reports-harness.mjs';

const { fx, open, tab, shot } = reportsPage('reports-view');

/// Clicks the chart at the centre of item i of n (a tile or a step).
async function clickItem(page, chart, i, n) {
  const box = await page.locator(chart).locator('canvas').boundingBox();
  const d = await page.locator(chart).evaluate((e) => ({ ...e.dataset }));
  const x = Number(d.plotLeft) + ((i + 0.5) / n) * Number(d.plotWidth);
  const y = Number(d.plotTop) + Number(d.plotHeight) - 4;
  await page.mouse.click(box.x + x, box.y + y);
}

/// Clicks tile t's cell in the heat grid (one IPU).
async function clickCell(page, t) {
  const grid = page.getByTestId('tile-heat-grid');
  await grid.locator('canvas').scrollIntoViewIfNeeded();  // the tile's tensor table above it can be long
  const box = await grid.locator('canvas').boundingBox();
  const d = await grid.evaluate((e) => ({ ...e.dataset }));
  const c = Number(d.cell), cols = Number(d.cols);
  await page.mouse.click(box.x + Number(d.gridLeft) + (t % cols + 0.5) * c, box.y + Number(d.gridTop) + (Math.floor(t / cols) + 0.5) * c);
}

test('summary text and the fit banner (resnet18 training, ipu2, 1,472 tiles)', async () => {
  const page = await open('a=resnet18_ipu2');
  const text = await page.getByTestId('report-summary').textContent();
  assert.equal(text, fx.resnet18_ipu2.summary);
  assert.match(text, /Tiles per IPU: +1,472/);
  assert.equal(await page.getByTestId('report-oom-banner').count(), 0);
  assert.match(await page.locator('.rv-banner-ok').textContent(), /Fits/);
  await shot(page, 'summary');
  // Keyboard: the tabs are a tablist; arrow keys move between them.
  await page.focus('[role=tab][aria-selected=true]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('[role=tab][aria-selected=true]').getAttribute('data-tab'), 'memory');
  assert.equal(await page.locator('[role=tabpanel][data-panel=memory]').isVisible(), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('tile memory chart: 1,472 tiles, the capacity line; click a tile lists its tensors', async () => {
  const r = fx.resnet18_ipu2;
  const page = await open('a=resnet18_ipu2');
  await tab(page, 'memory');
  const chart = '[data-testid=tile-memory-chart]';
  const d = await page.locator(chart).evaluate((e) => ({ ...e.dataset }));
  assert.equal(Number(d.tiles), 1472);
  assert.equal(Number(d.tiles), r.graph.memory.byTile.total.length);
  assert.equal(Number(d.capacity), r.graph.target.bytesPerTile);
  assert.equal(d.oomTiles, '');
  // The capacity line is drawn: its label in the canvas's aria summary and the y scale covers it.
  assert.ok(Number(d.yMax) >= r.graph.target.bytesPerTile);
  const label = await page.locator(`${chart} canvas`).getAttribute('aria-label');
  assert.match(label, /1,472 tiles/);
  assert.equal(await page.locator(`${chart} canvas`).getAttribute('role'), 'img');
  // Pixels: the dashed capacity line crosses the plot at y(capacity).
  const capPixel = await page.locator(chart).evaluate((e) => {
    const c = e.querySelector('canvas');
    const ctx = c.getContext('2d');
    const dpr = c.width / c.clientWidth;
    const top = Number(e.dataset.plotTop), h = Number(e.dataset.plotHeight), left = Number(e.dataset.plotLeft), w = Number(e.dataset.plotWidth);
    const y = top + h - (Number(e.dataset.capacity) / Number(e.dataset.yMax)) * h;
    let painted = 0;
    for (let x = left; x < left + w; x += 3) {
      const p = ctx.getImageData(Math.round(x * dpr), Math.round((Math.round(y) + 0.5) * dpr), 1, 1).data;
      if (p[3] > 0) ++painted;
    }
    return painted / Math.floor(w / 3);
  });
  assert.ok(capPixel > 0.4, `capacity line painted on ${capPixel} of the plot width`);

  // With 1,472 tiles a bar is under a pixel wide: a click picks the tile under the pointer (+-1);
  // zoomed in (the wheel) or in the heat grid (a cell per tile) it picks exactly.
  await clickItem(page, chart, 700, 1472);
  const info = page.getByTestId('tile-tensors');
  assert.ok(Math.abs(Number(await info.getAttribute('data-tile')) - 700) <= 1);
  assert.equal(await page.locator(chart).getAttribute('data-selected-tile'), await info.getAttribute('data-tile'));
  for (let i = 0; i < 8; ++i) await page.mouse.wheel(0, -100);
  const zoomed = await page.locator(chart).evaluate((e) => ({ from: Number(e.dataset.viewFrom), to: Number(e.dataset.viewTo) }));
  assert.ok(zoomed.to - zoomed.from < 200 && zoomed.from <= 700 && zoomed.to > 700, JSON.stringify(zoomed));
  {
    const box = await page.locator(chart).locator('canvas').boundingBox();
    const d = await page.locator(chart).evaluate((e) => ({ ...e.dataset }));
    const span = zoomed.to - zoomed.from;
    await page.mouse.click(box.x + Number(d.plotLeft) + ((702 - zoomed.from + 0.5) / span) * Number(d.plotWidth), box.y + Number(d.plotTop) + Number(d.plotHeight) - 4);
  }
  assert.equal(await info.getAttribute('data-tile'), '702');
  await shot(page, 'memory-zoomed', { fullPage: false });
  await page.getByTestId('tile-zoom-reset').click();
  assert.equal(await page.locator(chart).getAttribute('data-view-to'), '1472');
  // A drag across the plot zooms to the tiles under it (here about 100 to 300); the tile selected
  // before stays selected (the drag's end is not a click).
  {
    const box = await page.locator(chart).locator('canvas').boundingBox();
    const d = await page.locator(chart).evaluate((e) => ({ ...e.dataset }));
    const at = (t) => box.x + Number(d.plotLeft) + ((t + 0.5) / 1472) * Number(d.plotWidth);
    const y = box.y + Number(d.plotTop) + 20;
    await page.mouse.move(at(100), y);
    await page.mouse.down();
    await page.mouse.move(at(200), y, { steps: 4 });
    await page.mouse.move(at(300), y, { steps: 4 });
    await page.mouse.up();
    const z = await page.locator(chart).evaluate((e) => [Number(e.dataset.viewFrom), Number(e.dataset.viewTo)]);
    assert.ok(Math.abs(z[0] - 100) <= 1 && Math.abs(z[1] - 301) <= 1, JSON.stringify(z));
    assert.equal(await info.getAttribute('data-tile'), '702');
    await page.getByTestId('tile-zoom-reset').click();
  }
  const tile = r.graph.memory.maxTile;
  await clickCell(page, tile);
  assert.equal(await info.getAttribute('data-tile'), String(tile));
  const ids = await page.locator('[data-testid=tile-tensor-table] tbody tr').evaluateAll((rows) => rows.map((x) => x.dataset.tensor));
  const expected = r.graph.tensors.filter((t) => {
    const i = tile - (t.ipu * r.graph.target.tilesPerIPU + t.firstTile);
    return i >= 0 && i < t.bytesPerTile.length && (t.bytesPerTile[i] > 0 || t.view);
  }).map((t) => t.id);
  assert.ok(expected.length > 0);
  assert.deepEqual([...ids].sort(), [...expected].sort());
  const ev = await page.evaluate(() => window.__events);
  assert.deepEqual(ev.at(-1), { type: 'tile', tile });
  // The heat grid selects too; it is labelled as a logical layout.
  assert.match(await page.locator('[data-panel=memory]').textContent(), /logical layout, not the physical floor plan/);
  await clickCell(page, 7);
  assert.equal(await info.getAttribute('data-tile'), '7');
  assert.deepEqual((await page.evaluate(() => window.__events)).at(-1), { type: 'tile', tile: 7 });
  // Keyboard on the chart: End then Enter selects the last tile.
  await page.focus(`${chart} canvas`);
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  assert.equal(await info.getAttribute('data-tile'), '1471');
  await clickCell(page, tile);
  await clickItem(page, chart, tile, 1472);
  // The heat grid's scale: capacity by default, the fullest tile when asked.
  assert.equal(Number(await page.getByTestId('tile-heat-grid').getAttribute('data-scale-max')), r.graph.target.bytesPerTile);
  await page.getByTestId('heat-relative').check();
  assert.equal(Number(await page.getByTestId('tile-heat-grid').getAttribute('data-scale-max')), r.graph.memory.maxTileBytes);
  assert.equal(Number(await page.getByTestId('tile-heat-grid').getAttribute('data-scale-min')), Math.min(...r.graph.memory.byTile.total));
  await shot(page, 'memory');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('out of memory (cnn_small training on 4 tiles): banner, OOM tiles marked, the error', async () => {
  const r = fx.cnn_small_oom;
  assert.ok(r.error && r.graph.memory.outOfMemoryTiles.length === 4);
  const page = await open('a=cnn_small_oom');
  const banner = page.getByTestId('report-oom-banner');
  const pct = (100 * r.graph.memory.total / r.graph.target.totalMemory).toFixed(1);
  assert.match(await banner.textContent(), new RegExp(`4 of 4 tiles out of memory.*${pct.replace('.', '\\.')}% of IPU memory used`));
  assert.match(await page.locator('[data-panel=summary]').textContent(), /Out of memory: Cannot fit all variable data/);
  await shot(page, 'oom-summary');
  await tab(page, 'memory');
  const d = await page.getByTestId('tile-memory-chart').evaluate((e) => ({ ...e.dataset }));
  assert.equal(Number(d.tiles), 4);
  assert.equal(d.oomTiles, r.graph.memory.outOfMemoryTiles.join(','));
  // The OOM marks are painted in --danger under the axis for every tile.
  const marks = await page.getByTestId('tile-memory-chart').evaluate((e) => {
    const c = e.querySelector('canvas');
    const ctx = c.getContext('2d');
    const dpr = c.width / c.clientWidth;
    const danger = getComputedStyle(e).getPropertyValue('--danger').trim();
    const rgb = [1, 3, 5].map((i) => parseInt(danger.slice(i, i + 2), 16));
    const y = Number(e.dataset.plotTop) + Number(e.dataset.plotHeight) + 2.5;
    return [0, 1, 2, 3].map((t) => {
      const x = Number(e.dataset.plotLeft) + (t + 0.5) / 4 * Number(e.dataset.plotWidth);
      const p = ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
      return Math.abs(p[0] - rgb[0]) + Math.abs(p[1] - rgb[1]) + Math.abs(p[2] - rgb[2]) < 30;
    });
  });
  assert.deepEqual(marks, [true, true, true, true]);
  await clickItem(page, '[data-testid=tile-memory-chart]', 1, 4);
  assert.match(await page.getByTestId('tile-tensors').textContent(), /out of memory/);
  await shot(page, 'oom-memory');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('op table: sort by cycles; group by ONNX node sums the cycles; a row selects the op and its liveness step', async () => {
  const g = fx.resnet18_ipu2.graph;
  const page = await open('a=resnet18_ipu2');
  await tab(page, 'operations');
  const table = page.getByTestId('op-table');
  assert.equal(await table.evaluate((e) => e.tagName), 'TABLE');
  assert.equal(Number(await table.getAttribute('data-rows')), g.ops.length);
  await page.click('[data-testid=op-table] [data-sort=cycles]');
  const cycles = await page.locator('[data-testid=op-table] tbody td[data-col=cycles]').evaluateAll((c) => c.map((x) => Number(x.dataset.value)));
  const want = g.ops.map((o) => o.cycles).sort((a, b) => b - a);
  assert.deepEqual(cycles, want.slice(0, cycles.length));
  assert.equal(await page.locator('[data-testid=op-table] th[data-col=cycles]').getAttribute('aria-sort'), 'descending');
  const first = await page.locator('[data-testid=op-table] tbody tr').first().getAttribute('data-op-name');
  assert.equal(first, g.ops.reduce((a, b) => (b.cycles > a.cycles ? b : a)).name);
  // "Show all": 184 ops, 150 drawn first.
  if (g.ops.length > 150) {
    assert.equal(await page.locator('[data-testid=op-table] tbody tr').count(), 150);
    await page.getByTestId('op-table-show-all').click();
    assert.equal(await page.locator('[data-testid=op-table] tbody tr').count(), g.ops.length);
  }

  // Group by ONNX node: the report's `node` (the core's: the forward op, its gradient ops and its
  // weights' updates), or from an older report, independently, `<node>/grad/...` and the node's own op.
  await page.getByTestId('op-group-toggle').check();
  const node = '/layer4/layer4.1/conv2/Conv';
  const members = g.ops.filter((o) => (o.node !== undefined ? o.node === node : o.name === node || o.name.startsWith(`${node}/grad/`)));
  assert.ok(members.some((o) => o.name.startsWith(`${node}/grad/`)));
  const row = page.locator(`[data-testid=op-table] tbody tr[data-node="${node}"]`);
  assert.equal(Number(await row.locator('td[data-col=cycles]').getAttribute('data-value')), sum(members.map((o) => o.cycles)));
  assert.equal(Number(await row.locator('td[data-col=ops]').getAttribute('data-value')), members.length);
  // Every op is in exactly one group: the groups' cycles add up to the ops'.
  const groupCycles = await page.locator('[data-testid=op-table] tbody td[data-col=cycles]').evaluateAll((c) => c.map((x) => Number(x.dataset.value)));
  const shownAll = Number(await page.getByTestId('op-table').getAttribute('data-rows')) === groupCycles.length;
  if (shownAll) assert.equal(sum(groupCycles), sum(g.ops.map((o) => o.cycles)));
  await shot(page, 'ops-grouped');

  // Large reports stay fast: setReport (resnet18 training: 184 ops, 252 tensors, 1,472 tiles) and
  // each tab drawn well under a second.
  const times = await page.evaluate(async () => {
    const r = window.__reports.A;
    const out = {};
    let t0 = performance.now();
    window.__view.setReport('A', r);
    out.setReport = performance.now() - t0;
    for (const t of ['memory', 'liveness', 'operations', 'program', 'execution', 'timeline', 'summary']) {
      t0 = performance.now();
      document.querySelector(`[role=tab][data-tab="${t}"]`).click();
      out[t] = performance.now() - t0;
    }
    return out;
  });
  // Timings are printed, not asserted (a loaded machine stretches them): every view was drawn.
  for (const [k, v] of Object.entries(times)) assert.ok(Number.isFinite(v), `${k}: ${v}`);
  console.log(`resnet18 report: ${Object.entries(times).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}`);
  await tab(page, 'operations');
  await page.getByTestId('op-group-toggle').check();

  // Ungrouped again; click the op row: onSelectOp with its name; the liveness chart marks its step.
  await page.getByTestId('op-group-toggle').uncheck();
  const target = g.ops.findIndex((o) => o.name === '/layer2/layer2.0/conv1/Conv');
  assert.ok(target >= 0);
  // Rows are keyed by the op's id when the report has ids (the core's ops[].id), else by step.
  const id = g.ops[target].id;
  await page.locator(`[data-testid=op-table] tbody tr[data-key="${id !== undefined ? `id:${id}` : `#${target}`}"]`).click();
  const ev = await page.evaluate(() => window.__events.at(-1));
  assert.deepEqual(ev, { type: 'op', opName: '/layer2/layer2.0/conv1/Conv', nodeName: '/layer2/layer2.0/conv1/Conv', ...(id !== undefined ? { opId: id } : {}) });
  assert.equal(await page.locator('[data-testid=op-table] tbody tr.rv-selected').getAttribute('data-op-name'), '/layer2/layer2.0/conv1/Conv');
  await shot(page, 'ops');
  await tab(page, 'liveness');
  assert.equal(await page.getByTestId('liveness-chart').getAttribute('data-selected-step'), String(target));
  // The tensors live at that step (not always live), from the JSON.
  const liveIds = await page.locator('[data-testid=liveness-step-tensors] tbody tr').evaluateAll((x) => x.map((e) => e.dataset.tensor));
  const wantLive = g.tensors.filter((t) => !t.view && (t.kind === 'activation' || t.kind === 'stream') && t.liveFrom <= target && target <= t.liveTo).map((t) => t.id);
  assert.deepEqual([...liveIds].sort(), [...wantLive].sort());
  // highlightOp from the page (the graph view's selection) marks it without calling back.
  const n = await page.evaluate(() => window.__events.length);
  assert.equal(await page.evaluate(() => window.__view.highlightOp('/layer1/layer1.0/conv1/Conv')), true);
  assert.equal(await page.getByTestId('liveness-chart').getAttribute('data-selected-step'),
               String(g.ops.findIndex((o) => o.name === '/layer1/layer1.0/conv1/Conv')));
  assert.equal(await page.evaluate(() => window.__events.length), n);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('liveness: the peak equals the maximum computed from the tensors', async () => {
  for (const name of ['resnet18_ipu2', 'mlp_ipu2', 'cnn_small_oom']) {
    const g = fx[name].graph;
    const S = g.ops.length;
    const live = new Array(S).fill(0);
    for (const t of g.tensors) {
      if (t.view) continue;
      for (let s = 0; s < S; ++s) {
        if (t.kind === 'variable' || t.kind === 'constant' || (s >= t.liveFrom && s <= t.liveTo)) live[s] += t.bytes;
      }
    }
    const peak = Math.max(...live);
    const page = await open(`a=${name}`);
    await tab(page, 'liveness');
    const d = await page.getByTestId('liveness-chart').evaluate((e) => ({ ...e.dataset }));
    assert.equal(Number(d.steps), S, name);
    assert.equal(Number(d.peakBytes), peak, name);
    assert.equal(live[Number(d.peakStep)], peak, name);
    assert.equal(live.indexOf(peak), Number(d.peakStep), name);
    // Table alternative: one row per step with the live bytes.
    await page.locator('[data-testid=liveness-table] > summary').click();
    await page.locator('[data-testid=liveness-table] tbody tr').first().waitFor();
    const firstRow = await page.locator('[data-testid=liveness-table] tbody tr').first().locator('td').nth(2).textContent();
    assert.equal(Number(firstRow.replace(/,/g, '')), live[0], name);
    if (name === 'resnet18_ipu2') {
      // "Include always-live memory" off: the chart shows the activations alone; same peak step.
      await page.getByTestId('liveness-include-always').uncheck();
      assert.equal(await page.getByTestId('liveness-chart').getAttribute('data-peak-step'), d.peakStep);
      assert.ok(!/Always live \(/.test(await page.locator('[data-panel=liveness] .rv-legend').textContent()));
      await page.hover('[data-testid=liveness-chart] canvas');
      await clickItem(page, '[data-testid=liveness-chart]', Number(d.peakStep), S);
      assert.equal(await page.getByTestId('liveness-step-tensors').getAttribute('data-step'), d.peakStep);
      await page.mouse.move(0, 0);
      await shot(page, 'liveness');
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('execution: compute + exchange + sync per step add up to the ops\' cycles; runs; pipeline', async () => {
  const r = fx.resnet18_ipu2;
  const page = await open('a=resnet18_ipu2');
  await tab(page, 'execution');
  const d = await page.getByTestId('execution-chart').evaluate((e) => ({ ...e.dataset }));
  const ops = r.graph.ops;
  assert.equal(Number(d.compute), sum(ops.map((o) => o.computeCycles)));
  assert.equal(Number(d.exchange), sum(ops.map((o) => o.exchangeCycles)));
  assert.equal(Number(d.sync), sum(ops.map((o) => o.syncCycles)));
  assert.equal(Number(d.compute) + Number(d.exchange) + Number(d.sync) + Number(d.other), sum(ops.map((o) => o.cycles)));
  assert.equal(sum(ops.map((o) => o.cycles)), r.graph.cycles.perMicroBatch);
  const totals = await page.getByTestId('execution-totals').textContent();
  assert.ok(totals.includes(r.graph.cycles.perMicroBatch.toLocaleString('en-US')));
  assert.ok(totals.includes(`${r.graph.cycles.hostToDevicePerMicroBatch.toLocaleString('en-US')} in`));
  const runs = await page.getByTestId('runs-table').textContent();
  assert.ok(runs.includes(r.execution.runs[0].cycles.toLocaleString('en-US')));
  await page.locator('[data-testid=execution-table] > summary').click();
  await page.locator('[data-testid=execution-table] tbody tr').first().waitFor();
  assert.equal(await page.locator('[data-testid=execution-table] tbody tr').count(), Math.min(300, ops.length));
  await shot(page, 'execution');
  await page.close();

  const p = fx.mlp_pipelined;
  const pp = await open('a=mlp_pipelined');
  await tab(pp, 'execution');
  const run = p.execution.runs[0];
  assert.ok(run.pipeline);
  const bar = pp.getByTestId('pipeline-bar');
  assert.match(await bar.getAttribute('aria-label'), new RegExp(`fill ${run.pipeline.fill.toLocaleString('en-US')}, steady state ${run.pipeline.steady.toLocaleString('en-US')}, drain ${run.pipeline.drain.toLocaleString('en-US')}`));
  assert.match(await pp.getByTestId('execution-totals').textContent(), /Per pipeline stage/);
  await tab(pp, 'memory');
  assert.equal(Number(await pp.getByTestId('tile-memory-chart').getAttribute('data-tiles')), 128);
  await shot(pp, 'pipelined-memory');
  await tab(pp, 'execution');
  await shot(pp, 'pipelined');
  assert.deepEqual(pp.errors, []);
  await pp.close();
});

test('compare mode: ipu1 vs ipu2 side by side, one y scale, A/B op columns and the totals diff', async () => {
  const A = fx.mlp_ipu1, B = fx.mlp_ipu2;
  const page = await open('a=mlp_ipu1&b=mlp_ipu2');
  const summaries = page.getByTestId('report-summary');
  assert.equal(await summaries.count(), 2);
  assert.equal(await summaries.nth(0).textContent(), A.summary);
  assert.equal(await summaries.nth(1).textContent(), B.summary);
  const diff = await page.getByTestId('report-diff').textContent();
  assert.ok(diff.includes(A.graph.cycles.perMicroBatch.toLocaleString('en-US')));
  assert.ok(diff.includes(B.graph.cycles.perMicroBatch.toLocaleString('en-US')));
  await shot(page, 'compare-summary');
  await tab(page, 'memory');
  const charts = page.getByTestId('tile-memory-chart');
  assert.equal(await charts.count(), 2);
  const [ya, yb] = await charts.evaluateAll((e) => e.map((x) => x.dataset.yMax));
  assert.equal(ya, yb);
  assert.ok(Number(ya) >= Math.max(A.graph.target.bytesPerTile, B.graph.target.bytesPerTile));
  await shot(page, 'compare-memory');
  await tab(page, 'operations');
  const heads = await page.locator('[data-testid=op-table] thead th').allTextContents();
  for (const h of ['Cycles A', 'Cycles B', 'B / A']) assert.ok(heads.some((x) => x.includes(h)), h);
  const row = page.locator('[data-testid=op-table] tbody tr[data-key="/0/Gemm"]');
  const a0 = A.graph.ops.find((o) => o.name === '/0/Gemm').cycles, b0 = B.graph.ops.find((o) => o.name === '/0/Gemm').cycles;
  assert.equal(Number(await row.locator('td[data-col=cyclesA]').getAttribute('data-value')), a0);
  assert.equal(Number(await row.locator('td[data-col=cyclesB]').getAttribute('data-value')), b0);
  assert.ok(Math.abs(Number(await row.locator('td[data-col=ratio]').getAttribute('data-value')) - b0 / a0) < 1e-9);
  await shot(page, 'compare-ops');
  await tab(page, 'liveness');
  assert.equal(await page.getByTestId('liveness-chart').count(), 2);
  // The timeline and the program tree side by side, each with its own report's cycles.
  await tab(page, 'timeline');
  const totals = await page.getByTestId('timeline-chart').evaluateAll((e) => e.map((x) => Number(x.dataset.totalCycles)));
  assert.deepEqual(totals, [A, B].map((r) => r.graph.cycles.perMicroBatch + r.graph.cycles.hostToDevicePerMicroBatch + r.graph.cycles.deviceToHostPerMicroBatch));
  // One cycle axis for both: the longer report's.
  assert.deepEqual(await page.getByTestId('timeline-chart').evaluateAll((e) => e.map((x) => Number(x.dataset.viewTo))), [Math.max(...totals), Math.max(...totals)]);
  await shot(page, 'compare-timeline', { fullPage: false });
  await tab(page, 'program');
  assert.deepEqual(await page.getByTestId('program-tree').evaluateAll((e) => e.map((x) => Number(x.dataset.ops))), [A.graph.ops.length, B.graph.ops.length]);
  // Mixed pairs: a CPU report beside an IPU one, an error-only report (no graph) beside another.
  await page.evaluate((r) => window.__view.setReport('A', r), fx.cnn_small_cpu);
  await page.evaluate((r) => window.__view.setReport('B', r), fx.cnn_small_oom);
  for (const t of ['summary', 'memory', 'liveness', 'operations', 'program', 'execution', 'timeline', 'host']) await tab(page, t);
  assert.equal(Number(await page.getByTestId('op-table').getAttribute('data-rows')), fx.cnn_small_oom.graph.ops.length);
  await page.evaluate(() => window.__view.setReport('A', { label: 'error only', summary: 'Memory Usage: ...', graph: null, execution: null,
                                                             error: 'Out of memory: ... 3 of 4 tiles are over their 638,976 bytes' }));
  assert.match(await page.locator('[data-testid=report-oom-banner][data-slot=A]').textContent(), /3 of 4 tiles out of memory/);
  await tab(page, 'memory');
  await page.evaluate((r) => { window.__view.setReport('A', r.A); window.__view.setReport('B', r.B); }, { A, B });
  // clear('B') leaves A alone.
  await page.evaluate(() => window.__view.clear('B'));
  assert.equal(await page.getByTestId('report-summary').count(), 1);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('CPU device: measured host time per op, sorted, as a chart and a table', async () => {
  const r = fx.cnn_small_cpu;
  const page = await open('a=cnn_small_cpu');
  // Only the views a CPU report has: no tiles, liveness, operations' cycles or supersteps.
  assert.deepEqual(await page.locator('[role=tab][data-tab]').evaluateAll((x) => x.map((e) => e.dataset.tab)), ['summary', 'host']);
  await tab(page, 'host');
  assert.match(await page.locator('[data-panel=host]').textContent(), /not modelled IPU cycles/);
  const names = await page.locator('[data-testid=host-time-table] tbody tr').evaluateAll((x) => x.map((e) => e.dataset.opName));
  // A package with the core's execution.hostOps lists every op; an older one the summary's slowest.
  const want = r.execution.hostOps?.length
    ? [...r.execution.hostOps].sort((a, b) => b.seconds - a.seconds).map((o) => o.name)
    : [...r.summary.matchAll(/^\s+([0-9.]+)\s+node '([^']+)'/gm)].map((m) => [Number(m[1]), m[2]]).sort((a, b) => b[0] - a[0]).map((m) => m[1]);
  assert.ok(want.length > 0);
  assert.deepEqual(names, want);
  assert.equal(await page.getByTestId('host-time-chart').getAttribute('role'), 'img');
  // hostTimes given by the page take precedence.
  await page.evaluate(() => window.__view.setReport('A', { label: 'given', summary: 'x', hostTimes: [
    { name: 'a', type: 'Add', seconds: 1e-6 }, { name: 'b', type: 'Conv', seconds: 3e-6 }] }));
  assert.deepEqual(await page.locator('[data-testid=host-time-table] tbody tr').evaluateAll((x) => x.map((e) => e.dataset.opName)), ['b', 'a']);
  // The core's CPU execution report (execution.hostOps: totals over the calls since prepare).
  await page.evaluate(() => window.__view.setReport('A', { label: 'hostOps', summary: 'x', execution: { profilerMode: 'CPU', runs: [],
    hostOps: [{ name: '/a/Add', type: 'Add', calls: 4, seconds: 2e-5 }, { name: '/c/Conv/grad/ConvDataGrad', type: 'ConvDataGrad', calls: 4, seconds: 8e-4 }] } }));
  assert.deepEqual(await page.locator('[data-testid=host-time-table] tbody tr').evaluateAll((x) => x.map((e) => e.dataset.opName)),
                   ['/c/Conv/grad/ConvDataGrad', '/a/Add']);
  assert.match(await page.locator('[data-testid=host-time-table] thead').textContent(), /Calls.*Per call/);
  assert.match(await page.locator('[data-testid=host-time-table] tbody tr').first().textContent(), /200\.00 µs/);   // per call
  await page.locator('[data-testid=host-time-table] tbody tr').first().click();
  assert.deepEqual(await page.evaluate(() => window.__events.at(-1)), { type: 'op', opName: '/c/Conv/grad/ConvDataGrad', nodeName: '/c/Conv' });
  await page.evaluate((rr) => window.__view.setReport('A', rr), r);
  await tab(page, 'host');
  await shot(page, 'cpu');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('every chart has a table alternative and an aria-label; dark theme', async () => {
  const page = await open('a=resnet18_ipu2', { theme: 'dark' });
  for (const t of ['memory', 'liveness', 'execution', 'timeline']) {
    await tab(page, t);
    const canvases = page.locator(`[data-panel=${t}] canvas`);
    for (let i = 0; i < await canvases.count(); ++i) {
      assert.equal(await canvases.nth(i).getAttribute('role'), 'img');
      assert.ok((await canvases.nth(i).getAttribute('aria-label')).length > 40);
    }
    assert.ok(await page.locator(`[data-panel=${t}] details.rv-data`).count() >= 1, t);
  }
  await tab(page, 'memory');
  await page.locator('[data-testid=tile-memory-table] > summary').click();
  await page.locator('[data-testid=tile-memory-table] tbody tr').first().waitFor();
  assert.equal(await page.locator('[data-testid=tile-memory-table] tbody tr').count(), 256);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(21, 24, 30)');
  await page.locator('[data-testid=tile-memory-table] > summary').click();
  await clickCell(page, fx.resnet18_ipu2.graph.memory.maxTile);
  await shot(page, 'dark-memory');
  await tab(page, 'liveness');
  await shot(page, 'dark-liveness');
  await tab(page, 'operations');
  await shot(page, 'dark-ops', { fullPage: false });
  assert.deepEqual(page.errors, []);
  await page.close();
});
