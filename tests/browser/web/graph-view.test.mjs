// Headless Chromium tests of the graph view (web/src/graph): the fixture page
// (fixtures/graph.html + graph-fixture.js) is bundled with esbuild into a temporary folder with
// the layout worker and served by web/server.mjs; each test opens a fresh page.
// The resnet18 description is generated from build/zoo/resnet18.onnx (POPART_ZOO_DIR overrides)
// with /usr/bin/python3 + onnx (fixtures/describe_onnx.py, onnx.shape_inference for the shapes);
// without them the test uses a generated 70-node chain and says so.
// Screenshots go to build/web-tests/.
// Usage: node --test tests/browser/web/graph-view.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { serveAndLaunch } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const webRequire = createRequire(path.join(root, 'web/package.json'));
const esbuild = webRequire('esbuild');
const shots = path.join(root, 'build/web-tests');

let dir, server, browser, base, resnet = null;

/// Bundles the fixture and the layout worker into a temporary folder; returns the folder.
export async function bundleFixture(out) {
  await esbuild.build({
    entryPoints: { fixture: path.join(here, 'fixtures/graph-fixture.js'), 'layout-worker': path.join(root, 'web/src/graph/layout-worker.js') },
    bundle: true, format: 'esm', outdir: out, logLevel: 'warning', loader: { '.css': 'css' }, target: ['chrome110'],
    nodePaths: [path.join(root, 'web/node_modules')],
  });
  fs.copyFileSync(path.join(here, 'fixtures/graph.html'), path.join(out, 'index.html'));
  fs.copyFileSync(path.join(here, 'fixtures/slow-layout-worker.js'), path.join(out, 'slow-layout-worker.js'));
  return out;
}

/// resnet18's description: from the wasm package's popart.describeModel when it has one (what the
/// page shows), else from fixtures/describe_onnx.py (onnx + onnx.shape_inference).
function makeResnetDescription(out) {
  const onnxFile = path.join(process.env.POPART_ZOO_DIR ?? path.join(root, 'build/zoo'), 'resnet18.onnx');
  if (!fs.existsSync(onnxFile)) return `no ${onnxFile}`;
  const json = path.join(out, 'resnet18.json');
  let onnxNodes;
  try {
    onnxNodes = Number(execFileSync('/usr/bin/python3', ['-c', 'import onnx,sys; print(len(onnx.load(sys.argv[1]).graph.node))', onnxFile]).toString());
  } catch (e) {
    return `/usr/bin/python3 with onnx is needed to count the model's nodes: ${e.message}`;
  }
  const pkg = process.env.POPART_PKG_DIR ?? path.join(root, 'build/wasm/pkg');
  if (fs.existsSync(path.join(pkg, 'index.mjs'))) {
    try {
      execFileSync(process.execPath, [path.join(here, 'fixtures/describe_wasm.mjs'), pkg, onnxFile, json], { stdio: 'pipe', timeout: 120000 });
      return { onnxNodes, source: `popart.describeModel (${pkg})` };
    } catch { /* no describeModel in this package yet: the Python description */ }
  }
  try {
    execFileSync('/usr/bin/python3', [path.join(here, 'fixtures/describe_onnx.py'), onnxFile, json], { stdio: 'pipe' });
    return { onnxNodes, source: 'fixtures/describe_onnx.py' };
  } catch (e) {
    return `describe_onnx.py failed: ${e.stderr?.toString() ?? e.message}`;
  }
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graph-view-'));
  await bundleFixture(dir);
  const r = makeResnetDescription(dir);
  if (typeof r === 'object') {
    resnet = r;
    console.log(`# resnet18 description from ${r.source}`);
  } else console.log(`# resnet18 from the zoo unavailable (${r}); using a generated 70-node graph`);
  fs.mkdirSync(shots, { recursive: true });
  let origin;
  ({ server, origin, browser } = await serveAndLaunch(dir));
  base = `${origin}/`;
});

after(async () => {
  await browser?.close();
  server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('layout worker (in Node): deep chains do not overflow the stack; cycles are broken', async () => {
  const { layout } = await import(path.join(root, 'web/src/graph/layout-worker.js'));
  const n = 2000;
  const nodes = Array.from({ length: n }, (_, i) => ({ id: i, width: 80, height: 30 }));
  const edges = Array.from({ length: n - 1 }, (_, i) => ({ from: i, to: i + 1 }));
  const t0 = performance.now();
  const r = layout({ nodes, edges });
  console.log(`# layout worker, ${n}-node chain in Node: ${(performance.now() - t0).toFixed(0)} ms (${r.ranker})`);
  assert.equal(r.positions.length, 2 * n);
  for (let i = 1; i < n; i++) assert.ok(r.positions[2 * i + 1] > r.positions[2 * i - 1], 'top to bottom');
  assert.ok(r.edgePoints.every((p) => p.length >= 4));
  // A cycle (not valid ONNX, but a layout must not fail on it) and an edge to an unknown node.
  const c = layout({ nodes: nodes.slice(0, 4), edges: [{ from: 0, to: 1 }, { from: 1, to: 2 }, { from: 2, to: 1 }, { from: 2, to: 3 }, { from: 3, to: 99 }], options: { ranker: 'none' } });
  assert.equal(c.positions.length, 8);
  assert.equal(c.edgePoints[4].length, 0);
  const small = layout({ nodes: nodes.slice(0, 4), edges: [{ from: 0, to: 1 }, { from: 1, to: 2 }, { from: 2, to: 1 }, { from: 2, to: 3 }] });
  assert.equal(small.ranker, 'network-simplex');
  assert.ok(small.positions.every(Number.isFinite));
});

async function freshPage() {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(base);
  await page.waitForFunction(() => window.fixtureReady === true);
  page.errors = errors;
  return page;
}

/// Loads the resnet18 description (or the fallback) and returns {ms, expectedNodes}.
async function loadResnet(page) {
  return page.evaluate(async (haveResnet) => {
    const desc = haveResnet ? await window.loadJson('resnet18.json') : window.makeChain(70);
    const t0 = performance.now();
    await window.view.setModel(desc);
    return { ms: performance.now() - t0, nodes: desc.nodes.length, convs: desc.nodes.filter((n) => n.opType === 'Conv').length,
             edges: desc.tensors.filter((t) => t.producer || desc.inputs.includes(t.name)).reduce((a, t) => a + t.consumers.length, 0) };
  }, !!resnet);
}

test('resnet18: laid out, nodes, edge labels, click select, find, SVG and PNG export', async () => {
  const page = await freshPage();
  const r = await loadResnet(page);
  console.log(`# resnet18 (${r.nodes} nodes): setModel ${r.ms.toFixed(0)} ms; stats ${JSON.stringify(await page.evaluate(() => window.view.stats))}`);
  // The time is printed (bench/web_bench.mjs records it); speed is not asserted by a test.
  if (resnet) assert.equal(r.nodes, resnet.onnxNodes);
  const counts = await page.evaluate(() => ({
    nodes: document.querySelectorAll('[data-testid="graph-node"]:not([data-kind])').length,
    inputs: document.querySelectorAll('[data-testid="graph-node"][data-kind="input"]').length,
    outputs: document.querySelectorAll('[data-testid="graph-node"][data-kind="output"]').length,
    edges: document.querySelectorAll('.gv-edge[data-tensor]').length,
    labels: [...document.querySelectorAll('.gv-edge[data-tensor] .gv-edge-label')].map((t) => t.textContent),
  }));
  assert.equal(counts.nodes, r.nodes, 'one box per ONNX node');
  assert.equal(counts.inputs, 1);
  assert.equal(counts.outputs, 1);
  assert.ok(counts.edges >= r.nodes, `edges ${counts.edges}`);
  assert.equal(counts.labels.length, counts.edges, 'every edge has a label');
  for (const l of counts.labels) assert.match(l, /^FLOAT (\?|scalar|[\w?]+(×[\w?]+)*)$/, l);
  if (resnet) {
    assert.ok(counts.labels.includes('FLOAT 1×64×56×56'), 'resnet activation shape on an edge');
    // Initializers are listed inside their box, not drawn as nodes.
    const conv1 = await page.evaluate(() => document.querySelector('[data-node-name="/conv1/Conv"]').textContent);
    assert.match(conv1, /W 64×3×7×7/);
    assert.match(conv1, /B 64/);
  }
  await page.screenshot({ path: path.join(shots, 'graph-resnet18.png') });

  // Click a node: onSelectNode gets its name.
  const target = await page.evaluate(() => {
    const g = [...document.querySelectorAll('[data-testid="graph-node"]:not([data-kind])')].find((e) => {
      const r = e.getBoundingClientRect();
      return r.top > 60 && r.bottom < innerHeight - 60 && r.left > 0 && r.right < innerWidth - 200;
    });
    const r = g.getBoundingClientRect();
    return { name: g.dataset.nodeName, x: r.left + r.width / 2, y: r.top + 6 };
  });
  await page.mouse.click(target.x, target.y);
  const sel = await page.evaluate(() => window.selected.at(-1));
  assert.equal(sel.name, target.name);
  assert.ok(await page.evaluate((n) => document.querySelector(`[data-node-name="${CSS.escape(n)}"]`).classList.contains('gv-selected'), target.name));

  // find('Conv') returns every Conv node (op type, case-insensitive).
  const found = await page.evaluate(() => ({ a: window.view.find('Conv'), b: window.view.find('conv') }));
  const convNodes = found.a.filter((f) => f.kind === 'node' && f.opType === 'Conv');
  assert.equal(convNodes.length, r.convs);
  assert.equal(found.b.filter((f) => f.kind === 'node' && f.opType === 'Conv').length, r.convs);
  if (resnet) {
    const tensorHit = await page.evaluate(() => window.view.find('layer1.0/conv1/Conv_output').find((f) => f.kind === 'tensor'));
    assert.equal(tensorHit.node, '/layer1/layer1.0/conv1/Conv');
  }
  // highlight and select(name) from outside.
  await page.evaluate((n) => { window.view.highlight(n); window.view.select(n[0]); }, convNodes.map((f) => f.name));
  assert.equal(await page.evaluate(() => document.querySelectorAll('.gv-hl').length), r.convs);
  assert.equal(await page.evaluate(() => window.selected.at(-1).name), convNodes[0].name);

  // SVG export: parseable, standalone, with every node and resolved colours.
  const svg = await page.evaluate(() => {
    const text = window.view.exportSvg();
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { error: !!doc.querySelector('parsererror'), nodes: doc.querySelectorAll('[data-testid="graph-node"]').length,
             hasVar: /var\(--/.test(text), style: doc.querySelector('style')?.textContent.length ?? 0, bytes: text.length };
  });
  assert.equal(svg.error, false);
  assert.equal(svg.nodes, counts.nodes + counts.inputs + counts.outputs);
  assert.equal(svg.hasVar, false, 'no CSS variables left in the exported SVG');
  assert.ok(svg.style > 200, 'styles inlined');
  const png = await page.evaluate(async () => {
    const b = await window.view.exportPng();
    const bytes = new Uint8Array(await b.arrayBuffer());
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { size: b.size, type: b.type, head: [...bytes.subarray(0, 8)], base64: btoa(bin), svg: window.view.exportSvg() };
  });
  fs.writeFileSync(path.join(shots, 'graph-export.png'), Buffer.from(png.base64, 'base64'));
  fs.writeFileSync(path.join(shots, 'graph-export.svg'), png.svg);
  assert.equal(png.type, 'image/png');
  assert.ok(png.size > 10000, `png ${png.size} bytes`);
  assert.deepEqual(png.head.slice(0, 4), [0x89, 0x50, 0x4e, 0x47]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('2,000-node graph lays out without freezing the page; minimap shown', async () => {
  const page = await freshPage();
  const r = await page.evaluate(async () => {
    const desc = window.makeChain(2000);
    let last = performance.now(), maxGap = 0, beats = 0;
    const timer = setInterval(() => { const now = performance.now(); maxGap = Math.max(maxGap, now - last); last = now; beats++; }, 20);
    const t0 = performance.now();
    await window.view.setModel(desc);
    const ms = performance.now() - t0;
    await new Promise((res) => setTimeout(res, 100));
    clearInterval(timer);
    return { ms, maxGap, beats, stats: window.view.stats };
  });
  // Round trips from the test while the page works, too.
  console.log(`# 2000 nodes: setModel ${r.ms.toFixed(0)} ms (worker layout ${r.stats.workerMs.toFixed(0)} ms), longest UI-thread gap ${r.maxGap.toFixed(0)} ms over ${r.beats} beats`);
  // The gap is measured (bench/web_bench.mjs measures the page's), not asserted: a loaded machine
  // stretches it. The layout ran in the worker while the UI thread kept its timer.
  assert.ok(r.stats.workerMs > 0, 'laid out in the worker');
  assert.ok(r.beats >= 2, `the UI thread beat ${r.beats} times`);
  const n = await page.evaluate(() => document.querySelectorAll('[data-testid="graph-node"]:not([data-kind])').length);
  assert.equal(n, 2000);
  assert.ok(await page.isVisible('[data-testid="graph-minimap"]'), 'minimap visible');
  await page.screenshot({ path: path.join(shots, 'graph-2000-top.png') });
  // Every node exists as an element (off-screen ones as empty shells, display: none).
  const shells = await page.evaluate(() => document.querySelectorAll('[data-testid="graph-node"].gv-cull').length);
  console.log(`# 2000 nodes: ${shells} boxes off screen (culled) after drawing`);
  // Interaction stays quick: zoom, fit, pan through the minimap.
  const t = await page.evaluate(() => {
    const t0 = performance.now();
    window.view.fit();
    window.view.zoomBy(4);
    window.view.zoomBy(0.5);
    return performance.now() - t0;
  });
  console.log(`# 2000 nodes: fit + 2 zooms ${t.toFixed(0)} ms`);
  // Zoomed far out, the graph is painted on a canvas (the SVG hidden, its elements still there).
  assert.ok(await page.isVisible('.gv-far-canvas'), 'far-out canvas shown');
  await page.screenshot({ path: path.join(shots, 'graph-2000-fit.png') });
  const mm = await page.locator('[data-testid="graph-minimap"]').boundingBox();
  const before = await page.evaluate(() => window.view.transform);
  await page.mouse.click(mm.x + mm.width / 2, mm.y + mm.height * 0.8);
  const afterT = await page.evaluate(() => window.view.transform);
  assert.notDeepEqual(afterT, before, 'minimap click moves the view');
  await page.screenshot({ path: path.join(shots, 'graph-2000-moved.png') });
  // select() from outside centres a far node and reveals it.
  const far = await page.evaluate(() => window.view.find('Relu').filter((f) => f.kind === 'node').at(-20).name);
  await page.evaluate((n) => window.view.select(n), far);
  const sel = await page.evaluate((n) => {
    const el = document.querySelector(`[data-node-name="${n}"]`);
    const r = el.getBoundingClientRect();
    return { cls: el.getAttribute('class'), cx: r.left + r.width / 2, cy: r.top + r.height / 2, text: el.textContent };
  }, far);
  assert.match(sel.cls, /gv-selected/);
  assert.doesNotMatch(sel.cls, /gv-cull/);
  assert.match(sel.text, /Relu/);
  assert.ok(Math.abs(sel.cx - 600) < 5 && Math.abs(sel.cy - 400) < 5, JSON.stringify(sel));
  assert.equal(await page.evaluate(() => window.view.select('no such node')), false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('cancel: the layout rejects with AbortError, the view stays usable', async () => {
  const page = await freshPage();
  const r = await page.evaluate(async () => {
    const p = window.view.setModel(window.makeChain(2000));
    await new Promise((res) => setTimeout(res, 150));
    window.view.cancel();
    let name = null;
    try { await p; } catch (e) { name = e.name; }
    // Superseding: a second setModel while one runs rejects the first with AbortError too.
    const p2 = window.view.setModel(window.makeChain(1600));
    const p3 = window.view.setModel(window.makeChain(30));
    let name2 = null;
    try { await p2; } catch (e) { name2 = e.name; }
    await p3;
    return { name, name2, nodes: document.querySelectorAll('[data-testid="graph-node"]:not([data-kind])').length,
             stages: window.progress.map((x) => x.stage) };
  });
  assert.equal(r.name, 'AbortError');
  assert.equal(r.name2, 'AbortError');
  assert.equal(r.nodes, 30);
  assert.ok(r.stages.includes('cancelled'));

  // The in-view Cancel button appears when the layout is slow (after 2.5 s; a worker that never
  // answers stands in for a huge graph) and cancels it.
  const t0 = Date.now();
  await page.evaluate(() => {
    window.view.layoutWorkerUrl = new URL('./slow-layout-worker.js', location.href);
    window.__slow = window.view.setModel(window.makeChain(50)).then(() => 'done', (e) => e.name);
  });
  await page.waitForSelector('[data-testid="layout-cancel"]', { state: 'visible', timeout: 15000 });
  const shownAfter = Date.now() - t0;
  assert.ok(shownAfter >= 2400, `Cancel shown after ${shownAfter} ms`);
  const text = await page.textContent('.gv-overlay');
  assert.match(text, /Layout is taking a while/);
  await page.screenshot({ path: path.join(shots, 'graph-layout-cancel.png') });
  await page.click('[data-testid="layout-cancel"]');
  assert.equal(await page.evaluate(() => window.__slow), 'AbortError');
  assert.equal(await page.isVisible('[data-testid="layout-cancel"]'), false);
  await page.evaluate(() => { window.view.layoutWorkerUrl = new URL('./layout-worker.js', location.href); });
  await page.evaluate(() => window.view.setModel(window.makeChain(12)));
  assert.equal(await page.evaluate(() => document.querySelectorAll('[data-testid="graph-node"]:not([data-kind])').length), 12);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('keyboard: Tab to a node, arrows walk, Enter selects, +/- zoom, 0 fits', async () => {
  const page = await freshPage();
  await loadResnet(page);
  await page.focus('[data-testid="graph-view"]');
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).boxShadow);
  assert.notEqual(ring, 'none', 'visible focus on the view');
  await page.keyboard.press('Tab');
  const first = await page.evaluate(() => ({ name: document.activeElement.dataset.nodeName, role: document.activeElement.getAttribute('role'), label: document.activeElement.getAttribute('aria-label') }));
  assert.equal(first.role, 'button');
  assert.ok(first.name);
  await page.keyboard.press('ArrowDown');
  const second = await page.evaluate(() => ({ name: document.activeElement.dataset.nodeName, kind: document.activeElement.dataset.kind ?? 'node', label: document.activeElement.getAttribute('aria-label') }));
  assert.equal(second.kind, 'node');
  assert.notEqual(second.name, first.name);
  if (resnet) assert.equal(second.label, 'Conv /conv1/Conv');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => window.selected.at(-1).name), second.name);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-pressed')), 'true');
  await page.screenshot({ path: path.join(shots, 'graph-keyboard.png') });

  const tr = () => page.evaluate(() => document.querySelector('.gv-viewport').getAttribute('transform'));
  const k = () => page.evaluate(() => window.view.transform.k);
  const k0 = await k(), t0 = await tr();
  await page.keyboard.press('+');
  assert.ok((await k()) > k0);
  assert.notEqual(await tr(), t0);
  await page.keyboard.press('-');
  await page.keyboard.press('-');
  assert.ok((await k()) < k0);
  await page.keyboard.press('0');
  const fitted = await page.evaluate(() => {
    const vp = document.querySelector('.gv-viewport').getBoundingClientRect();
    return { vp: { l: vp.left, t: vp.top, r: vp.right, b: vp.bottom }, w: innerWidth, h: innerHeight };
  });
  assert.ok(fitted.vp.l >= -1 && fitted.vp.t >= -1 && fitted.vp.r <= fitted.w + 1 && fitted.vp.b <= fitted.h + 1, JSON.stringify(fitted));
  // Wheel zooms at the pointer, dragging the background pans.
  const kBefore = await k();
  await page.mouse.move(300, 300);
  await page.mouse.wheel(0, -300);
  await page.waitForFunction((k0) => window.view.transform.k > k0, kBefore);
  const t1 = await page.evaluate(() => window.view.transform);
  await page.mouse.move(100, 700);
  await page.mouse.down();
  await page.mouse.move(160, 650, { steps: 5 });
  await page.mouse.up();
  const t2 = await page.evaluate(() => window.view.transform);
  assert.ok(Math.abs(t2.x - t1.x - 60) < 2 && Math.abs(t2.y - t1.y + 50) < 2, JSON.stringify({ t1, t2 }));
  // Arrow keys on the view itself pan.
  await page.focus('[data-testid="graph-view"]');
  const before = await page.evaluate(() => window.view.transform);
  await page.keyboard.press('ArrowLeft');
  const afterPan = await page.evaluate(() => window.view.transform);
  assert.ok(afterPan.x > before.x);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('dark theme: node fill follows the theme', async () => {
  const page = await freshPage();
  await loadResnet(page);
  const fill = () => page.evaluate(() => getComputedStyle(document.querySelector('[data-testid="graph-node"]:not([data-kind]) .gv-box')).fill);
  const light = await fill();
  await page.screenshot({ path: path.join(shots, 'graph-light.png') });
  await page.evaluate(() => { document.documentElement.dataset.theme = 'dark'; });
  const dark = await fill();
  await page.screenshot({ path: path.join(shots, 'graph-dark.png') });
  assert.notEqual(dark, light);
  const svg = await page.evaluate(() => window.view.exportSvg());
  assert.match(svg, /#252b36/i, 'the dark node fill in the exported SVG');
  // dispose() leaves the container empty and the view inert.
  const left = await page.evaluate(() => {
    window.view.dispose();
    const c = document.getElementById('graph');
    return { children: c.childElementCount, testid: c.dataset.testid ?? null, tabindex: c.getAttribute('tabindex') };
  });
  assert.deepEqual(left, { children: 0, testid: null, tabindex: null });
  assert.deepEqual(page.errors, []);
  await page.close();
});
