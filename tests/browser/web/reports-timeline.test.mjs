// The PopVision-style views of the reports (web/src/reports): the execution timeline, the program
// tree, a tile's liveness, and the core's op ids / ONNX nodes / tensor producers, in headless
// Chromium on the reports the wasm package makes (make-report-fixtures.mjs). Every figure is
// checked against the report JSON, computed here independently of the view's code.
// Screenshots: build/web-tests/reports-timeline-*.png, reports-program-*.png, reports-tile-liveness*.png.
// Usage: node --test tests/browser/web/reports-timeline.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SHOTS } from './harness.mjs';
import { reportsPage, sum } from './reports-harness.mjs';

const { fx, open, tab, shot } = reportsPage('reports-timeline');
const lastEvent = (page) => page.evaluate(() => window.__events.at(-1));
/// The event onSelectOp sends for op i of graph g (its id when the report has ids).
const opEvent = (g, i, nodeName) => ({ type: 'op', opName: g.ops[i].name, nodeName: nodeName ?? g.ops[i].node ?? g.ops[i].name,
                                       ...(g.ops[i].id !== undefined ? { opId: g.ops[i].id } : {}) });
/// The pass of an op, by the rules the README states (type first, then the name).
const passOf = (o) => (o.type.endsWith('VarUpdate') || o.type === 'LossScaleUpdate' ? 'optimizer'
  : o.type === 'Accumulate' || o.type === 'AccumulationCounterIncrement' ? 'accumulate'
  : o.name.includes('/grad/') || o.name.startsWith('Gradient___') ? 'backward' : 'forward');

/// The chart's data attributes, numbers where they are numbers.
const data = (page, id) => page.getByTestId(id).first().evaluate((e) => ({ ...e.dataset }));

/// Clicks the timeline at cycle `v` in lane `lane` (from the chart's geometry attributes).
async function clickTimeline(page, v, lane, { dbl = false } = {}) {
  const chart = page.getByTestId('timeline-chart');
  const box = await chart.locator('canvas').boundingBox();
  const d = await data(page, 'timeline-chart');
  const from = Number(d.viewFrom), to = Number(d.viewTo);
  const x = Number(d.plotLeft) + ((v - from) / (to - from)) * Number(d.plotWidth);
  const y = Number(d.laneTop.split(',')[lane]) + Number(d.laneHeight) / 2;
  await page.mouse.move(box.x + x, box.y + y);
  if (dbl) await page.mouse.dblclick(box.x + x, box.y + y);
  else await page.mouse.click(box.x + x, box.y + y);
}

test('timeline (resnet18 training): one lane per IPU and the host; totals are the report\'s cycles; zoom; a click selects the op', async () => {
  const r = fx.resnet18_ipu2;
  const g = r.graph;
  const page = await open('a=resnet18_ipu2');
  await tab(page, 'timeline');
  const d = await data(page, 'timeline-chart');
  const h2d = g.cycles.hostToDevicePerMicroBatch, d2h = g.cycles.deviceToHostPerMicroBatch;
  const perIpu = new Array(g.target.numIPUs).fill(0);
  for (const o of g.ops) perIpu[o.ipu] += o.cycles;
  assert.equal(Number(d.ipus), 1);
  assert.equal(d.laneIpus, '0,host');
  assert.equal(d.mode, 'micro-batch');
  assert.equal(d.ipuCycles, perIpu.join(','));
  assert.equal(d.ipuCycles, g.cycles.perIpu.join(','));
  assert.equal(Number(d.totalCycles), h2d + sum(g.ops.map((o) => o.cycles)) + d2h);
  // One micro-batch per step of this run: the timeline is one step of the execution report.
  assert.equal(Number(d.totalCycles), r.execution.runs[0].steps[0].cycles);
  assert.equal(d.viewFrom, '0');
  assert.equal(d.viewTo, d.totalCycles);
  assert.match(await page.getByTestId('timeline-facts').textContent(), new RegExp(g.cycles.perMicroBatch.toLocaleString('en-US')));

  // A click on an op's superstep selects it (the op table and the graph follow).
  const k = g.ops.findIndex((o) => o.name === '/layer2/layer2.0/conv1/Conv');
  const start = h2d + sum(g.ops.slice(0, k).map((o) => o.cycles));
  await clickTimeline(page, start + g.ops[k].cycles / 2, 0);
  assert.deepEqual(await lastEvent(page), opEvent(g, k));
  assert.equal(await page.getByTestId('timeline-chart').getAttribute('data-selected-steps'), String(k));
  // The hover tooltip: the op, its node, its cycles by phase.
  const tip = await page.locator('[data-testid=timeline-chart] .rv-tip').textContent();
  assert.ok(tip.includes('/layer2/layer2.0/conv1/Conv'), tip);
  for (const v of [g.ops[k].syncCycles, g.ops[k].exchangeCycles, g.ops[k].computeCycles, g.ops[k].cycles]) assert.ok(tip.includes(v.toLocaleString('en-US')), `${v} in ${tip}`);
  await shot(page, 'timeline', { fullPage: false });

  // Zoom: the wheel around the pointer narrows the range and keeps the op in it.
  for (let i = 0; i < 6; ++i) await page.mouse.wheel(0, -100);
  await page.waitForFunction(() => { const d = document.querySelector('[data-testid=timeline-chart]').dataset; return d.viewTo - d.viewFrom < 200000; });
  let z = await data(page, 'timeline-chart');
  assert.ok(Number(z.viewFrom) <= start + g.ops[k].cycles / 2 && Number(z.viewTo) >= start + g.ops[k].cycles / 2, JSON.stringify(z));
  assert.equal(await page.getByTestId('timeline-zoom-reset').isVisible(), true);
  // Zoomed in, a small op is wide enough to hit exactly: its neighbour, a Relu.
  const k2 = k + 1;
  const start2 = start + g.ops[k].cycles;
  await clickTimeline(page, start2 + g.ops[k2].cycles / 2, 0);
  assert.deepEqual(await lastEvent(page), opEvent(g, k2));
  // A drag selects a range of cycles.
  {
    const box = await page.getByTestId('timeline-chart').locator('canvas').boundingBox();
    const left = Number(z.plotLeft), w = Number(z.plotWidth), from = Number(z.viewFrom), to = Number(z.viewTo);
    const y = box.y + Number(z.laneTop.split(',')[0]) + 4;
    await page.mouse.move(box.x + left + w * 0.25, y);
    await page.mouse.down();
    await page.mouse.move(box.x + left + w * 0.5, y, { steps: 5 });
    await page.mouse.move(box.x + left + w * 0.75, y, { steps: 5 });
    await page.mouse.up();
    const zz = await data(page, 'timeline-chart');
    const want = [from + 0.25 * (to - from), from + 0.75 * (to - from)];
    assert.ok(Math.abs(Number(zz.viewFrom) - want[0]) <= (to - from) / w * 1.5 + 1, `${zz.viewFrom} vs ${want[0]}`);
    assert.ok(Math.abs(Number(zz.viewTo) - want[1]) <= (to - from) / w * 1.5 + 1, `${zz.viewTo} vs ${want[1]}`);
    // The drag's end is not a click: the selection stays.
    assert.deepEqual(await lastEvent(page), opEvent(g, k2));
    z = zz;
  }
  // + / - on the focused chart.
  await page.focus('[data-testid=timeline-chart] canvas');
  await page.keyboard.press('-');
  const out = await data(page, 'timeline-chart');
  assert.ok(Number(out.viewTo) - Number(out.viewFrom) > Number(z.viewTo) - Number(z.viewFrom));
  await shot(page, 'timeline-zoomed', { fullPage: false });
  // A double-click resets; so does the button.
  await clickTimeline(page, (Number(out.viewFrom) + Number(out.viewTo)) / 2, 0, { dbl: true });
  assert.deepEqual([await page.getByTestId('timeline-chart').getAttribute('data-view-from'), await page.getByTestId('timeline-chart').getAttribute('data-view-to')], ['0', d.totalCycles]);
  await page.mouse.wheel(0, -300);
  await page.getByTestId('timeline-zoom-reset').click();
  assert.equal(await page.getByTestId('timeline-chart').getAttribute('data-view-to'), d.totalCycles);
  // Keyboard: Home is the host transfer, the next block the first op; Enter selects it.
  await page.focus('[data-testid=timeline-chart] canvas');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  assert.deepEqual(await lastEvent(page), opEvent(g, 0));
  // Cross-linked: the op table marks the op the timeline selected.
  await clickTimeline(page, start + g.ops[k].cycles / 2, 0);
  await tab(page, 'operations');
  assert.equal(await page.locator('[data-testid=op-table] tbody tr.rv-selected').getAttribute('data-op-name'), g.ops[k].name);
  // ... and the other way: a row of the op table marks its superstep.
  await page.locator('[data-testid=op-table] tbody tr').nth(3).click();
  await tab(page, 'timeline');
  assert.equal(await page.getByTestId('timeline-chart').getAttribute('data-selected-steps'), '3');
  // The table alternative: one row per superstep.
  await page.locator('[data-testid=timeline-table] > summary').click();
  await page.locator('[data-testid=timeline-table] tbody tr').first().waitFor();
  assert.equal(await page.locator('[data-testid=timeline-table] tbody tr').count(), Math.min(300, g.ops.length));
  assert.ok((await page.locator('[data-testid=timeline-chart] canvas').getAttribute('aria-label')).includes('superstep'));
  assert.deepEqual(page.errors, []);
  await page.close();

  // Dark theme.
  const dark = await open('a=mlp_ipu2', { theme: 'dark' });
  await tab(dark, 'timeline');
  const m = fx.mlp_ipu2.graph;
  const dm = await data(dark, 'timeline-chart');
  assert.equal(Number(dm.totalCycles), m.cycles.hostToDevicePerMicroBatch + sum(m.ops.map((o) => o.cycles)) + m.cycles.deviceToHostPerMicroBatch);
  await clickTimeline(dark, m.cycles.hostToDevicePerMicroBatch + m.ops[0].cycles / 2, 0);
  assert.deepEqual(await lastEvent(dark), opEvent(m, 0));
  await shot(dark, 'timeline-dark', { fullPage: false });
  assert.deepEqual(dark.errors, []);
  await dark.close();
});

test('timeline of a pipeline on 2 IPUs: stages on their IPUs over the run\'s micro-batches, fill / steady / drain as the report, copies', async () => {
  const r = fx.mlp_pipelined;
  const g = r.graph;
  const run = r.execution.runs[0];
  const page = await open('a=mlp_pipelined');
  await tab(page, 'timeline');
  const d = await data(page, 'timeline-chart');
  const N = run.microBatches, S = g.cycles.stageCycles.length;
  assert.equal(d.mode, 'pipeline');
  assert.equal(Number(d.ipus), 2);
  assert.equal(Number(d.microBatches), N);
  // A lane per stage, on the stage's IPU (the ops' ipu), and the host.
  const stageIpu = g.cycles.stageCycles.map((_, s) => g.ops.find((o) => o.pipelineStage === s).ipu);
  assert.equal(d.laneIpus, [...stageIpu, 'host'].join(','));
  assert.deepEqual([Number(d.fill), Number(d.steady), Number(d.drain)], [run.pipeline.fill, run.pipeline.steady, run.pipeline.drain]);
  assert.equal(Number(d.totalCycles), run.cycles);
  // Each IPU busy N times its ops' cycles.
  const perIpu = [0, 0];
  for (const o of g.ops) perIpu[o.ipu] += N * o.cycles;
  assert.equal(d.ipuCycles, perIpu.join(','));
  // The copy between the stages: one per micro-batch.
  assert.equal(Number(d.copies), N * (S - 1));
  // Click stage 1's /2/Gemm of micro-batch 2: pipeline cycle j = 2 + 1 starts after cycles 0..2,
  // each its slowest active stage plus a sync (the core's rule, docs/ipu-model.md).
  const sync = g.ops[0].syncCycles;
  const cycleLen = (j) => Math.max(...g.cycles.stageCycles.filter((_, s) => j - s >= 0 && j - s < N)) + sync;
  const T = sum([0, 1, 2].map(cycleLen));
  const s1 = g.ops.filter((o) => o.pipelineStage === 1);
  const k = s1.findIndex((o) => o.name === '/2/Gemm');
  const start = T + sum(s1.slice(0, k).map((o) => o.cycles));
  await clickTimeline(page, start + s1[k].cycles / 2, 1);
  assert.deepEqual(await lastEvent(page), opEvent(g, g.ops.indexOf(s1[k])));
  assert.match(await page.locator('[data-testid=timeline-chart] .rv-tip').textContent(), /micro-batch 2/);
  assert.match(await page.getByTestId('timeline-facts').textContent(), /Inter-IPU copies/);
  await page.mouse.move(0, 0);
  await shot(page, 'timeline-pipelined', { fullPage: false });

  // The core lists each op's inputs (ops[].inputs): the copies are exact, each the first reader on
  // the other IPU of a tensor made on this one. Without the inputs (an older report) they are
  // placed by the tensors' IPUs and last readers, and the facts say so.
  assert.ok(g.ops.every((o) => Array.isArray(o.inputs)));
  const made = new Map(g.tensors.filter((t) => t.producer >= 0).map((t) => [t.id, g.ops.findIndex((o) => o.id === t.producer)]));
  const exact = new Set();
  g.ops.forEach((o, j) => o.inputs.forEach((id) => {
    const p = made.get(id);
    const t = g.tensors.find((x) => x.id === id);
    if (p !== undefined && p < j && t.kind === 'activation' && g.ops[p].ipu !== o.ipu) exact.add(`${id}@${o.ipu}`);
  }));
  assert.equal(exact.size, S - 1);
  assert.doesNotMatch(await page.getByTestId('timeline-facts').textContent(), /does not list/);
  await tab(page, 'program');
  const op1 = g.ops[1];
  assert.equal(await page.locator('[data-testid=program-tree] [role=treeitem][data-step="1"] > .pt-row').getAttribute('title'),
               `${op1.name} (${op1.type}): ${op1.inputs.filter(Boolean).join(' ')} -> ${op1.outputs.join(' ')}`);
  const older = { ...g, ops: g.ops.map(({ inputs, outputs, ...o }) => o) };
  await page.evaluate((rep) => window.__view.setReport('A', rep), { ...r, graph: older });
  await tab(page, 'timeline');
  assert.equal(Number((await data(page, 'timeline-chart')).copies), N * (S - 1));
  assert.match(await page.getByTestId('timeline-facts').textContent(), /does not list the ops' inputs/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('program tree: one leaf per op; forward / backward / weight update; repeat from the run; keyboard; selects like the op table', async () => {
  const r = fx.mlp_ipu2;
  const g = r.graph;
  const page = await open('a=mlp_ipu2');
  await tab(page, 'program');
  const tree = page.getByTestId('program-tree');
  assert.equal(await tree.getAttribute('role'), 'tree');
  assert.equal(Number(await tree.getAttribute('data-ops')), g.ops.length);
  await page.getByTestId('program-tree-expand-all').click();
  const steps = await tree.locator('[role=treeitem][data-step]').evaluateAll((x) => x.map((e) => Number(e.dataset.step)));
  assert.equal(steps.length, g.ops.length);
  assert.deepEqual([...steps].sort((a, b) => a - b), g.ops.map((_, i) => i));
  // batchesPerStep 2 (the run's two batches): a Repeat × 2 around the step.
  const repeat = tree.locator('[role=treeitem][data-kind=repeat]');
  assert.equal(await repeat.count(), 1);
  assert.equal(Number(await repeat.getAttribute('data-count')), r.execution.runs[0].steps.length);
  assert.equal(Number(await repeat.getAttribute('data-ops')), g.ops.length);
  // The passes in order, each with the ops of that pass (counted here from the names and types).
  const passes = await tree.locator('[role=treeitem][data-kind=pass]').evaluateAll((x) => x.map((e) => [e.dataset.pass, Number(e.dataset.ops)]));
  const want = ['forward', 'backward', 'optimizer'].map((p) => [p, g.ops.filter((o) => passOf(o) === p).length]);
  assert.deepEqual(passes, want);
  for (const [p] of want) {
    const inPass = await tree.locator(`[role=treeitem][data-pass=${p}] [role=treeitem][data-step]`).evaluateAll((x) => x.map((e) => Number(e.dataset.step)));
    assert.deepEqual(inPass.sort((a, b) => a - b), g.ops.map((o, i) => [o, i]).filter(([o]) => passOf(o) === p).map(([, i]) => i), p);
  }
  // The host streams: the model's input.
  assert.match(await tree.locator('[data-kind=streams]').first().textContent(), /Host → device/);
  assert.equal(await tree.locator('[data-kind=tensor]').first().textContent().then((t) => t.includes('input')), true);
  await shot(page, 'program-tree');

  // A leaf selects its op (onSelectOp, the op table, the liveness chart).
  const k = g.ops.findIndex((o) => o.name === '/2/Gemm');
  await tree.locator(`[role=treeitem][data-step="${k}"] > .pt-row`).click();
  assert.deepEqual(await lastEvent(page), opEvent(g, k));
  assert.equal(await tree.locator(`[role=treeitem][data-step="${k}"]`).getAttribute('aria-selected'), 'true');
  await tab(page, 'liveness');
  assert.equal(await page.getByTestId('liveness-chart').getAttribute('data-selected-step'), String(k));
  await tab(page, 'program');
  // Keyboard: Up / Down move, Left closes (then goes to the parent), Right opens, Enter selects.
  await tree.locator(`[role=treeitem][data-step="${k}"]`).focus();
  await page.keyboard.press('ArrowDown');
  const next = await page.evaluate(() => document.activeElement.dataset.step);
  assert.equal(Number(next), k + 1);
  await page.keyboard.press('Enter');
  assert.deepEqual(await lastEvent(page), opEvent(g, k + 1));
  await page.keyboard.press('ArrowLeft');   // a leaf: to its parent (the pass)
  assert.equal(await page.evaluate(() => document.activeElement.dataset.kind), 'pass');
  await page.keyboard.press('ArrowLeft');   // closes the pass
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-expanded')), 'false');
  assert.equal(await tree.locator(`[role=treeitem][data-step="${k + 1}"]`).isVisible(), false);
  await page.keyboard.press('ArrowRight');  // opens it again
  assert.equal(await tree.locator(`[role=treeitem][data-step="${k + 1}"]`).isVisible(), true);
  await page.keyboard.press('Home');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.kind), 'program');
  // Collapse all, then a selection from elsewhere (the graph: highlightOp) opens the way to its leaf.
  await page.getByTestId('program-tree-collapse-all').click();
  assert.equal(await tree.locator(`[role=treeitem][data-step="${k}"]`).isVisible(), false);
  assert.equal(await page.evaluate((name) => window.__view.highlightOp(name), g.ops[k].name), true);
  assert.equal(await tree.locator(`[role=treeitem][data-step="${k}"]`).isVisible(), true);
  assert.equal(await tree.locator(`[role=treeitem][data-step="${k}"]`).getAttribute('aria-selected'), 'true');
  assert.deepEqual(page.errors, []);
  await page.close();

  // resnet18 training: the backward pass holds each node's gradient ops under that node.
  const rr = fx.resnet18_ipu2.graph;
  const p2 = await open('a=resnet18_ipu2', { theme: 'dark' });
  await tab(p2, 'program');
  const t2 = p2.getByTestId('program-tree');
  await p2.getByTestId('program-tree-expand-all').click();
  assert.equal(await t2.locator('[role=treeitem][data-step]').count(), rr.ops.length);
  const node = '/layer4/layer4.1/conv2/Conv';
  const grads = rr.ops.filter((o) => o.name.startsWith(`${node}/grad/`)).length;
  const group = t2.locator(`[role=treeitem][data-pass=backward] [role=treeitem][data-kind=node]`).filter({ has: p2.locator(`:scope > .pt-row .pt-label:text-is("${node}")`) });
  assert.equal(Number(await group.getAttribute('data-ops')), grads);
  // No run repeats a step here (batchesPerStep 1): no Repeat.
  assert.equal(await t2.locator('[data-kind=repeat]').count(), 0);
  await p2.getByTestId('program-tree-collapse-all').click();
  await p2.locator('[data-testid=program-tree] [role=treeitem][data-kind=program] > .pt-row').click();   // closes the main program
  await p2.locator('[data-testid=program-tree] [role=treeitem][data-kind=program] > .pt-row').click();   // opens it
  await shot(p2, 'program-tree-dark', { fullPage: false });
  assert.deepEqual(p2.errors, []);
  await p2.close();

  // Pipelined: a pipeline of two stages on their IPUs, the copy between them, each op in its stage.
  const pg = fx.mlp_pipelined.graph;
  const p3 = await open('a=mlp_pipelined');
  await tab(p3, 'program');
  await p3.getByTestId('program-tree-expand-all').click();
  const t3 = p3.getByTestId('program-tree');
  assert.equal(await t3.locator('[data-kind=pipeline]').count(), 1);
  assert.equal(await t3.locator('[data-kind=stage]').count(), pg.cycles.stageCycles.length);
  for (let s = 0; s < pg.cycles.stageCycles.length; ++s) {
    const inStage = await t3.locator('[data-kind=stage]').nth(s).locator('[data-step]').evaluateAll((x) => x.map((e) => Number(e.dataset.step)));
    assert.deepEqual(inStage, pg.ops.map((o, i) => [o, i]).filter(([o]) => o.pipelineStage === s).map(([, i]) => i));
  }
  assert.match(await t3.locator('[data-kind=stage]').nth(1).locator('[data-kind=copy]').first().textContent(), /IPU 0 → IPU 1/);
  await shot(p3, 'program-tree-pipelined', { fullPage: false });
  assert.deepEqual(p3.errors, []);
  await p3.close();
});

test('gradient accumulation and execution phases: the repeat loops and phases of the program tree; the timeline\'s streaming memory', async () => {
  // Gradient accumulation: batchesPerStep 2 × accumulation 2. The tree: Repeat × 2 (the batches)
  // around Repeat × 2 (the micro-batches of a batch) around the whole schedule: this runtime runs
  // every op at each micro-batch, a weight update applying at the last (the accumulation counter).
  const a = fx.mlp_accum;
  const ga = a.graph;
  const run = a.execution.runs[0];
  const af = run.microBatches / run.steps.length;
  assert.equal(af, 2);
  const page = await open('a=mlp_accum');
  await tab(page, 'program');
  const tree = page.getByTestId('program-tree');
  await page.getByTestId('program-tree-expand-all').click();
  const repeats = await tree.locator('[role=treeitem][data-kind=repeat]').evaluateAll((x) => x.map((e) => [Number(e.dataset.count), Number(e.getAttribute('aria-level')), Number(e.dataset.ops)]));
  assert.deepEqual(repeats, [[run.steps.length, 2, ga.ops.length], [af, 3, ga.ops.length]]);
  // The passes in the order they start in the schedule.
  const inner = tree.locator('[role=treeitem][data-kind=repeat]').nth(1);
  const innerPasses = await inner.locator('[data-kind=pass]').evaluateAll((x) => x.map((e) => e.dataset.pass));
  const firstStep = (p) => ga.ops.findIndex((o) => passOf(o) === p);
  assert.deepEqual(innerPasses, ['forward', 'backward', 'accumulate', 'optimizer'].filter((p) => firstStep(p) >= 0).sort((x, y) => firstStep(x) - firstStep(y)));
  assert.ok(innerPasses.includes('accumulate') && innerPasses.includes('optimizer'));
  assert.match(await inner.locator('[data-kind=pass][data-pass=optimizer] > .pt-row').textContent(), /applies the update at the last of the 2/);
  assert.equal(await tree.locator('[role=treeitem][data-step]').count(), ga.ops.length);
  await shot(page, 'program-tree-accumulation', { fullPage: false });
  // The timeline: one micro-batch; a batch is `af` of them.
  await tab(page, 'timeline');
  const d = await data(page, 'timeline-chart');
  assert.equal(af * Number(d.totalCycles), run.steps[0].cycles);
  assert.deepEqual(page.errors, []);
  await page.close();

  // Execution phases on 2 IPUs: a program per phase with its ops; the timeline draws each phase's
  // streaming-memory loads and stores before its first op, and the lanes add up to perIpu.
  const ph = fx.mlp_phased;
  const gp = ph.graph;
  const p2 = await open('a=mlp_phased');
  await tab(p2, 'program');
  await p2.getByTestId('program-tree-expand-all').click();
  const phases = [...new Set(gp.ops.map((o) => o.executionPhase))].sort((x, y) => x - y);
  assert.ok(phases.length > 1);
  const t2 = p2.getByTestId('program-tree');
  assert.deepEqual(await t2.locator('[role=treeitem][data-kind=phase]').evaluateAll((x) => x.map((e) => Number(e.dataset.phase))), phases);
  for (const p of phases) {
    const steps = await t2.locator(`[role=treeitem][data-kind=phase][data-phase="${p}"] [data-step]`).evaluateAll((x) => x.map((e) => Number(e.dataset.step)));
    assert.deepEqual(steps.sort((x, y) => x - y), gp.ops.map((o, i) => [o, i]).filter(([o]) => o.executionPhase === p).map(([, i]) => i), `phase ${p}`);
  }
  await shot(p2, 'program-tree-phases', { fullPage: false });
  await tab(p2, 'timeline');
  const dp = await data(p2, 'timeline-chart');
  assert.equal(Number(dp.ipus), 2);
  assert.equal(dp.ipuCycles, gp.cycles.perIpu.join(','));
  assert.ok(gp.cycles.streamingMemory > 0);
  assert.equal(Number(dp.totalCycles), gp.cycles.perMicroBatch + gp.cycles.hostToDevicePerMicroBatch + gp.cycles.deviceToHostPerMicroBatch);
  assert.equal(Number(dp.totalCycles), ph.execution.runs[0].steps[0].cycles);
  // The first phase's loads come right after the host transfer, on its IPU's lane.
  const first = gp.phases.find((x) => x.phase === phases[0]);
  await clickTimeline(p2, gp.cycles.hostToDevicePerMicroBatch + first.remoteCycles / 2, first.ipu);
  assert.match(await p2.locator('[data-testid=timeline-chart] .rv-tip').textContent(), new RegExp(`Phase ${first.phase}: streaming-memory loads and stores.*${first.remoteCycles.toLocaleString('en-US')} cycles`));
  // The copies between the phases' IPUs.
  assert.ok(Number(dp.copies) > 0);
  await shot(p2, 'timeline-phases', { fullPage: false });
  assert.deepEqual(p2.errors, []);
  await p2.close();
});

/// Clicks tile t's cell in the heat grid (a block of rows per IPU).
async function clickCell(page, t) {
  const grid = page.getByTestId('tile-heat-grid');
  await grid.locator('canvas').scrollIntoViewIfNeeded();
  const box = await grid.locator('canvas').boundingBox();
  const d = await grid.evaluate((e) => ({ ...e.dataset }));
  const c = Number(d.cell), cols = Number(d.cols), per = Number(d.perIpu);
  const b = Math.floor(t / per), i = t % per;
  await page.mouse.click(box.x + Number(d.gridLeft) + ((i % cols) + 0.5) * c,
                         box.y + Number(d.gridTop) + b * Number(d.blockHeight) + (Math.floor(i / cols) + 0.5) * c);
}

/// A tile's liveness from the tensors (independently of the view): per step the bytes on the tile
/// of the non-view activations and streams live there, and the always-live bytes.
function tileLive(g, tile) {
  const S = g.ops.length;
  const live = new Array(S).fill(0);
  let always = 0;
  const tensors = [];
  for (const t of g.tensors) {
    if (t.view) continue;
    const i = tile - (t.ipu * g.target.tilesPerIPU + t.firstTile);
    const b = i >= 0 && i < t.bytesPerTile.length ? t.bytesPerTile[i] : 0;
    if (!b) continue;
    tensors.push({ ...t, b });
    if (t.kind === 'variable' || t.kind === 'constant') always += b;
    else for (let s = Math.max(0, t.liveFrom); s <= Math.min(S - 1, t.liveTo); ++s) live[s] += b;
  }
  const peak = Math.max(...live);
  return { live, always, peak, peakStep: live.indexOf(peak), tensors };
}

test('tile liveness: the selected tile\'s bytes over the steps; its peak is the tile\'s activations; the tensors live at a step', async () => {
  for (const [name, pick] of [['resnet18_ipu2', (g) => g.memory.maxTile], ['mlp_pipelined', (g) => g.target.tilesPerIPU + 3], ['cnn_small_oom', () => 2]]) {
    const g = fx[name].graph;
    const tile = pick(g);
    const want = tileLive(g, tile);
    const page = await open(`a=${name}`);
    await tab(page, 'memory');
    await clickCell(page, tile);
    assert.equal(Number(await page.getByTestId('tile-tensors').getAttribute('data-tile')), tile, name);
    const chart = page.getByTestId('tile-liveness-chart');
    const d = await chart.evaluate((e) => ({ ...e.dataset }));
    assert.equal(Number(d.tile), tile);
    assert.equal(Number(d.steps), g.ops.length);
    assert.equal(Number(d.peakActivations), want.peak, name);
    assert.equal(Number(d.peakActivations), g.memory.byTile.activations[tile], `${name}: memory.byTile.activations[${tile}]`);
    assert.equal(Number(d.peakStep), want.peakStep, name);
    assert.equal(Number(d.alwaysLive), want.always, name);
    assert.equal(Number(d.peakBytes), want.peak + want.always, name);
    // The tensors live at the peak step (no op selected yet), always-live ones included.
    const list = page.getByTestId('tile-liveness-tensors');
    assert.equal(Number(await list.getAttribute('data-step')), want.peakStep);
    const at = (s, inc) => want.tensors.filter((t) => (t.kind === 'variable' || t.kind === 'constant' ? inc : t.liveFrom <= s && s <= t.liveTo)).map((t) => t.id).sort();
    const ids = async () => (await list.locator('tbody tr').evaluateAll((x) => x.map((e) => e.dataset.tensor))).sort();
    if (at(want.peakStep, true).length <= 100) assert.deepEqual(await ids(), at(want.peakStep, true), name);
    const bytes = await list.locator('tbody tr').evaluateAll((x) => x.reduce((a, e) => a + Number(e.dataset.bytes), 0));
    if (at(want.peakStep, true).length <= 100) assert.equal(bytes, want.peak + want.always, name);
    // Without the always-live part: the peak is the activations alone.
    await page.getByTestId('tile-liveness-include-always').uncheck();
    assert.equal(Number(await page.getByTestId('tile-liveness-chart').getAttribute('data-peak-bytes')), want.peak);
    if (at(want.peakStep, false).length <= 100) assert.deepEqual(await ids(), at(want.peakStep, false), name);
    // A click on a step selects its op and lists that step's tensors.
    const s = want.live.findIndex((v, i) => v > 0 && i !== want.peakStep);
    if (s >= 0) {
      await page.getByTestId('tile-liveness-chart').scrollIntoViewIfNeeded();
      const box = await page.getByTestId('tile-liveness-chart').locator('canvas').boundingBox();
      const dd = await page.getByTestId('tile-liveness-chart').evaluate((e) => ({ ...e.dataset }));
      await page.mouse.click(box.x + Number(dd.plotLeft) + ((s + 0.5) / g.ops.length) * Number(dd.plotWidth), box.y + Number(dd.plotTop) + Number(dd.plotHeight) - 3);
      assert.deepEqual(await lastEvent(page), opEvent(g, s));
      assert.equal(await page.getByTestId('tile-liveness-chart').getAttribute('data-selected-step'), String(s));
      assert.equal(Number(await list.getAttribute('data-step')), s);
      if (at(s, false).length <= 100) assert.deepEqual(await ids(), at(s, false), `${name} step ${s}`);
    }
    await page.getByTestId('tile-liveness-include-always').check();
    if (name === 'resnet18_ipu2') {
      await page.locator('.rv-tile-live').screenshot({ path: path.join(SHOTS, 'reports-tile-liveness.png') });
    }
    assert.deepEqual(page.errors, [], name);
    await page.close();
  }
});

test('the core\'s op ids, ONNX nodes and tensor producers: rows keyed by id, grouped by node, producers listed (older reports: by name)', async () => {
  // The report as the core writes it now (ids, nodes, producers), or, from a package built before
  // them, the same report given them here: ids not in schedule order, and the nodes the core
  // assigns (a gradient op its forward node, a weight update the first forward node reading it).
  const src = fx.mlp_ipu2;
  const has = src.graph.ops[0].id !== undefined && src.graph.ops[0].node !== undefined;
  const g = structuredClone(src.graph);
  if (!has) {
    g.ops.forEach((o, i) => { o.id = 1000 - 7 * i; });
    const reader = { '0.weight': '/0/Gemm', '0.bias': '/0/Gemm', '2.weight': '/2/Gemm', '2.bias': '/2/Gemm', '4.weight': '/4/Gemm', '4.bias': '/4/Gemm' };
    for (const o of g.ops) {
      const gi = o.name.indexOf('/grad/');
      o.node = gi > 0 ? o.name.slice(0, gi) : o.type === 'SGDVarUpdate' ? reader[o.name.split('/')[0]] : o.name;
    }
    for (const t of g.tensors) {
      const p = t.kind === 'activation' ? t.liveFrom : -1;
      t.producer = p >= 0 ? g.ops[p].id : -1;
    }
  }
  // Ids are unique.
  assert.equal(new Set(g.ops.map((o) => o.id)).size, g.ops.length);
  const page = await open('a=mlp_ipu2');
  await page.evaluate((rep) => window.__view.setReport('A', rep), { ...src, graph: g, label: 'mlp with op ids' });
  await tab(page, 'operations');
  // Rows are keyed by the op's id.
  const keys = await page.locator('[data-testid=op-table] tbody tr').evaluateAll((x) => x.map((e) => [e.dataset.key, Number(e.dataset.opId)]));
  assert.deepEqual(keys, g.ops.map((o) => [`id:${o.id}`, o.id]));
  const k = g.ops.findIndex((o) => o.type === 'SGDVarUpdate' && o.name.startsWith('0.weight'));
  await page.locator(`[data-testid=op-table] tbody tr[data-key="id:${g.ops[k].id}"]`).click();
  assert.deepEqual(await lastEvent(page), { type: 'op', opName: g.ops[k].name, nodeName: g.ops[k].node, opId: g.ops[k].id });
  // Grouped by the report's node: the forward op, its gradient ops and its weights' updates.
  await page.getByTestId('op-group-toggle').check();
  const node = g.ops[k].node;
  const members = g.ops.filter((o) => o.node === node);
  const row = page.locator(`[data-testid=op-table] tbody tr[data-node="${node}"]`);
  assert.equal(Number(await row.locator('td[data-col=ops]').getAttribute('data-value')), members.length);
  assert.equal(Number(await row.locator('td[data-col=cycles]').getAttribute('data-value')), sum(members.map((o) => o.cycles)));
  assert.ok(members.some((o) => o.type === 'SGDVarUpdate') && members.some((o) => o.name.includes('/grad/')));
  // Output bytes: the activations each op produces (by producer).
  await page.getByTestId('op-group-toggle').uncheck();
  const j = g.ops.findIndex((o) => o.name === '/2/Gemm');
  const out = sum(g.tensors.filter((t) => !t.view && t.kind === 'activation' && t.producer === g.ops[j].id).map((t) => t.bytes));
  assert.equal(Number(await page.locator(`[data-testid=op-table] tbody tr[data-key="id:${g.ops[j].id}"] td[data-col=outBytes]`).getAttribute('data-value')), out);
  // highlightOp by id (a number) marks that op.
  assert.equal(await page.evaluate((id) => window.__view.highlightOp(id), g.ops[j].id), true);
  assert.equal(await page.locator('[data-testid=op-table] tbody tr.rv-selected').getAttribute('data-key'), `id:${g.ops[j].id}`);
  // The liveness view names each live tensor's producer.
  await tab(page, 'liveness');
  const prod = await page.locator('[data-testid=liveness-step-tensors] tbody tr').evaluateAll((x) => x.map((e) => [e.dataset.tensor, e.children[2].textContent]));
  assert.ok(prod.length > 0);
  for (const [id, p] of prod) {
    const t = g.tensors.find((x) => x.id === id);
    assert.equal(p, t.producer >= 0 ? g.ops.find((o) => o.id === t.producer).name : '', id);
  }
  // The timeline and the program tree key their selection the same way.
  await tab(page, 'program');
  await page.locator(`[data-testid=program-tree] [role=treeitem][data-op-id="${g.ops[j].id}"] > .pt-row`).click();
  assert.deepEqual(await lastEvent(page), { type: 'op', opName: '/2/Gemm', nodeName: g.ops[j].node, opId: g.ops[j].id });

  // A report without them (an older package): rows keyed by step, nodes by the name rules (a
  // weight update in its weight's group), no "Produced by" column, no opId.
  const old = structuredClone(src.graph);
  for (const o of old.ops) { delete o.id; delete o.node; }
  for (const t of old.tensors) delete t.producer;
  await page.evaluate((rep) => window.__view.setReport('A', rep), { ...src, graph: old, label: 'mlp, an older report' });
  await tab(page, 'operations');
  assert.deepEqual(await page.locator('[data-testid=op-table] tbody tr').evaluateAll((x) => x.map((e) => e.dataset.key)), old.ops.map((_, i) => `#${i}`));
  await page.getByTestId('op-group-toggle').check();
  const byName = old.ops.filter((o) => o.name === '/2/Gemm' || o.name.startsWith('/2/Gemm/grad/'));
  assert.equal(Number(await page.locator('[data-testid=op-table] tbody tr[data-node="/2/Gemm"] td[data-col=ops]').getAttribute('data-value')), byName.length);
  assert.equal(Number(await page.locator('[data-testid=op-table] tbody tr[data-node="2.weight"] td[data-col=ops]').getAttribute('data-value')), 1);
  await page.getByTestId('op-group-toggle').uncheck();
  await page.locator('[data-testid=op-table] tbody tr[data-key="#2"]').click();
  assert.deepEqual(await lastEvent(page), { type: 'op', opName: old.ops[2].name, nodeName: old.ops[2].name });
  await tab(page, 'liveness');
  assert.ok(!(await page.locator('[data-testid=liveness-step-tensors] thead').textContent()).includes('Produced by'));
  assert.deepEqual(page.errors, []);
  await page.close();
});
