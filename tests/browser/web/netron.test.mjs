// What Netron shows that the page gained (issue 21 §2) and two graph defects (§1.7): the model's
// metadata, the ONNX operator documentation in the node panel, initializer / constant values as a
// grid with .npy export, the bodies of If / Loop as graphs with a breadcrumb, the View options
// (horizontal, hide names, hide weights), unsupported ops marked, outer tensors read inside a
// body connected to its node, and the parameter count with constants and optimizer state apart.
// The models are written by fixtures/make_netron_models.py (/usr/bin/python3 + onnx).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, waitIdle, shot, byId, SHOTS, ZOO_DIR } from './harness.mjs';
import { parseNpy } from '../../../web/src/tensors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(SHOTS, 'netron-fixtures');
let env;
const model = (name) => ({ name, mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(FIXTURES, name)) });

before(async () => {
  execFileSync('/usr/bin/python3', [path.join(here, 'fixtures/make_netron_models.py'), FIXTURES]);
  env = await launch();
});
after(async () => { await env?.close(); });

/// The ONNX schema version Python's onnx picks for an op at an opset (the reference for the page's pick).
function schemaVersion(op, opset, domain = '') {
  return Number(execFileSync('/usr/bin/python3', ['-c',
    `import onnx.defs as d; print(d.get_schema(${JSON.stringify(op)}, ${opset}, ${JSON.stringify(domain)}).since_version)`]).toString());
}

async function openFixture(page, f) {
  await page.setInputFiles(byId('open-file'), f);
  await page.waitForFunction((n) => window.popartApp.model?.name === n && document.body.dataset.busy === 'false', f.name);
}

const node = (name) => `${byId('graph-node')}[data-node-name="${name}"]`;

async function selectNode(page, name) {
  await page.click(node(name));
  await page.waitForFunction((n) => document.querySelector('[data-testid="node-panel"] h2')?.textContent.includes(n), name);
}

async function docsReady(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid="op-docs"]')?.dataset.state !== 'loading');
  return page.$eval(byId('op-docs'), (e) => ({ state: e.dataset.state, version: e.dataset.version, text: e.textContent }));
}

/// Opens a <details> (a click on its summary would close one that is open already).
async function openDetails(page, selector) {
  await page.$eval(selector, (d) => { d.open = true; });
}

const shownNodes = (page) => page.$$eval(`${byId('graph-node')}:not([data-kind])`, (els) => els.map((e) => e.dataset.nodeName).sort());

test('model metadata: producer, versions, domain, doc strings and the metadata_props table', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page, model('control_flow.onnx'));
  const meta = byId('model-metadata');
  const field = (f) => page.textContent(`${meta} [data-field="${f}"]`);
  assert.equal(await field('producer'), 'make_netron_models 1.2');
  assert.equal(await field('irVersion'), '8');
  assert.equal(await field('docString'), 'A fixture for the Netron-style views.');
  assert.equal(await field('domain'), 'ai.popart.tests');
  assert.equal(await field('modelVersion'), '7');
  assert.equal(await field('graphDocString'), 'The main graph: a projection, then an If.');
  const props = await page.$$eval(`${meta} table.props tbody tr`, (rows) => rows.map((r) => [r.dataset.key, r.cells[1].textContent]));
  assert.deepEqual(props, [['author', 'popart tests'], ['license', 'MIT']]);
  await shot(page, 'netron-metadata');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('operator documentation: fetched once when a node is first selected, the schema at the model opset, non-ONNX ops say so', async () => {
  const p = await openPage(env);
  const { page } = p;
  const docRequests = [];
  page.on('request', (r) => { if (/op-docs\.json$/.test(r.url())) docRequests.push(r.url()); });
  await openFixture(page, model('control_flow.onnx'));
  assert.equal(docRequests.length, 0, 'nothing fetched before a node is selected');
  // MatMul at opset 14: the newest schema at or below it (13, as onnx.defs picks).
  await selectNode(page, 'MatMul_0');
  let doc = await docsReady(page);
  assert.equal(doc.state, 'ready');
  assert.equal(Number(doc.version), schemaVersion('MatMul', 14));
  assert.match(doc.text, /MatMul — ai\.onnx, version 13 \(the newest at or below the model's opset 14\)/);
  assert.match(doc.text, /Matrix product that behaves like numpy\.matmul/);
  const inputs = await page.$$eval(`${byId('op-docs')} table[data-section="inputs"] tr`, (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(inputs.map((r) => r.slice(0, 2)), [['A', 'T'], ['B', 'T']]);
  assert.match(inputs[0][2], /N-dimensional matrix A/);
  assert.match(await page.textContent(`${byId('op-docs')} table[data-section="types"]`), /tensor\(float\)/);
  // The node's own doc string.
  assert.equal(await page.textContent(`${byId('node-panel')} [data-field="docString"]`), 'Projects x by the constant weight W.');
  // Add at opset 14 is version 14; its attributes-free schema has no attribute table.
  await selectNode(page, 'Add_0');
  doc = await docsReady(page);
  assert.equal(Number(doc.version), schemaVersion('Add', 14));
  assert.equal(await page.$(`${byId('op-docs')} table[data-section="attributes"]`), null);
  assert.doesNotMatch(doc.text, /null|undefined/);
  // ReduceMean: attributes with types, defaults and descriptions.
  await selectNode(page, 'emb_mean');
  doc = await docsReady(page);
  assert.equal(Number(doc.version), schemaVersion('ReduceMean', 14));
  const attrs = await page.$$eval(`${byId('op-docs')} table[data-section="attributes"] tr`, (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(attrs.map((r) => r[0]), ['axes', 'keepdims']);
  assert.match(attrs[1][1], /INT.*default 1/);
  assert.match(attrs[1][2], /Keep the reduced dimension or not/);
  await shot(page, 'netron-op-docs');
  assert.equal(docRequests.length, 1, 'fetched once');
  // ai.graphcore and other domains: no ONNX documentation; the op list's own words where it has them.
  await openFixture(page, model('custom_ops.onnx'));
  await selectNode(page, 'gelu');
  doc = await docsReady(page);
  assert.equal(doc.state, 'runtime');
  assert.match(doc.text, /No ONNX documentation exists for Gelu: it is in the domain ai\.graphcore/);
  assert.match(doc.text, /This runtime implements it \(Graphcore's PopART op, activations; inputs 1, outputs 1, since version 1\)/);
  await selectNode(page, 'foo');
  doc = await docsReady(page);
  assert.equal(doc.state, 'none');
  assert.match(doc.text, /No ONNX documentation exists for Foo: it is in the domain com\.example, not an ONNX one/);
  assert.equal(await page.textContent(`${byId('node-panel')} [data-field="docString"]`), 'A custom op.');
  await shot(page, 'netron-op-docs-custom');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('operator documentation: a page built without Python\'s onnx says it is unavailable', async () => {
  const p = await openPage(env);
  const { page } = p;
  // What web/build.mjs writes when /usr/bin/python3 or its onnx is missing.
  await page.route('**/op-docs.json', (route) => route.fulfill({
    contentType: 'application/json', body: JSON.stringify({ onnx: null, runtime: null, texts: [], unavailable: '/usr/bin/python3: ENOENT' }) }));
  await selectNode(page, (await page.evaluate(() => window.popartApp.model.description.nodes[0].name)));
  const doc = await docsReady(page);
  assert.equal(doc.state, 'unavailable');
  assert.match(doc.text, /The ONNX operator documentation is unavailable: this page was built without it \(\/usr\/bin\/python3: ENOENT\)/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the build writes op-docs.json, and still builds when Python cannot run the generator', async () => {
  const { buildOpDocs } = await import('../../../web/build.mjs');
  const out = fs.mkdtempSync(path.join(SHOTS, 'op-docs-'));
  const warnings = [];
  const warn = console.warn;
  console.warn = (m) => warnings.push(m);
  try {
    assert.equal(buildOpDocs({ out, python: path.join(out, 'no-python'), log: () => {} }), false);
  } finally {
    console.warn = warn;
  }
  const stub = JSON.parse(fs.readFileSync(path.join(out, 'op-docs.json'), 'utf8'));
  assert.equal(stub.onnx, null);
  assert.match(stub.unavailable, /no-python: ENOENT/);
  assert.match(warnings.join('\n'), /no operator documentation/);
  assert.equal(buildOpDocs({ out, log: () => {} }), true);
  const docs = JSON.parse(fs.readFileSync(path.join(out, 'op-docs.json'), 'utf8'));
  assert.deepEqual(docs.onnx['ai.onnx'].Conv.map((e) => e.version), [11, 1]);
  assert.match(docs.runtime['ai.graphcore'].LSTM.description, /PopART's own LSTM/);
  fs.rmSync(out, { recursive: true });
});

test('initializer and constant values: a paged grid with a slice selector, saved as .npy', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page, model('control_flow.onnx'));
  await selectNode(page, 'emb_mean');
  const weight = `${byId('node-panel')} details.weight[data-tensor="emb"]`;
  await openDetails(page, weight);
  const values = `${weight} details.values`;
  await openDetails(page, values);
  const grid = `${byId('tensor-grid')}[data-tensor="emb"]`;
  await page.waitForSelector(grid);
  assert.equal(await page.getAttribute(grid, 'data-shape'), '3,40,25');
  // emb[i, r, c] = (i * 1000 + r * 25 + c) * 0.01, as NumPy computes it in float32.
  const emb = (i, r, c) => Math.fround((i * 1000 + r * 25 + c) * Math.fround(0.01));
  const cell = async (r, c) => Number((await page.textContent(`${grid} td[data-row="${r}"][data-col="${c}"]`)));
  const near = (a, b) => Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(b));
  assert.ok(near(await cell(2, 3), emb(0, 2, 3)));
  assert.equal(await page.locator(`${grid} tbody tr`).count(), 16);  // the first page of 40 rows
  assert.equal(await page.locator(`${grid} tbody tr:first-child td`).count(), 4);  // of 25 columns
  // The slice of the leading dim, then the next page of rows and of columns.
  await page.fill(`${grid} input[data-dim="0"]`, '2');
  await page.press(`${grid} input[data-dim="0"]`, 'Enter');
  await page.waitForFunction((g) => document.querySelector(g).dataset.slice === '2', grid);
  assert.ok(near(await cell(2, 3), emb(2, 2, 3)));
  await page.click(`${grid} button[data-page="rows-next"]`);
  await page.click(`${grid} button[data-page="cols-next"]`);
  assert.ok(near(await cell(16, 4), emb(2, 16, 4)));
  assert.match(await page.textContent(`${grid} .grid-status`), /\[2, :, :\] rows 16–31 of 40, columns 4–7 of 25/);
  await shot(page, 'netron-tensor-grid');
  // Save .npy: the whole tensor, as NumPy reads it.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`${grid} ${byId('tensor-npy')}`)]);
  assert.equal(dl.suggestedFilename(), 'emb.npy');
  const npy = parseNpy(fs.readFileSync(await dl.path()).buffer.slice(0), 'emb.npy');
  assert.equal(npy.dtype, 'FLOAT');
  assert.deepEqual(npy.shape, [3, 40, 25]);
  assert.equal(npy.data[2 * 1000 + 16 * 25 + 4], emb(2, 16, 4));
  assert.equal(npy.data[2999], emb(2, 39, 24));
  // A Constant node's output: W [3, 4] = (arange(12) - 5) / 4.
  await selectNode(page, 'W_const');
  const w = `${byId('node-panel')} details.weight[data-tensor="W"]`;
  await openDetails(page, w);
  await openDetails(page, `${w} details.values`);
  await page.waitForSelector(`${byId('tensor-grid')}[data-tensor="W"]`);
  const wCells = await page.$$eval(`${byId('tensor-grid')}[data-tensor="W"] td`, (tds) => tds.map((td) => Number(td.textContent)));
  assert.deepEqual(wCells, Array.from({ length: 12 }, (_, i) => (i - 5) / 4));
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('outer tensors read only inside an If body are connected to the If (dashed), with a legend', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page, model('control_flow.onnx'));
  // y is a graph input only the then_branch reads; h is read in both branches (and in the Loop's body).
  const edge = (tensor, to) => `${byId('graph-view')} .gv-edge[data-tensor="${tensor}"][data-to="${to}"]`;
  for (const [tensor, from] of [['y', 'y'], ['h', 'Add_0']]) {
    assert.equal(await page.getAttribute(edge(tensor, 'If_3'), 'data-from'), from);
    assert.match(await page.getAttribute(edge(tensor, 'If_3'), 'class'), /gv-implicit/);
    const dash = await page.$eval(`${edge(tensor, 'If_3')} path`, (e) => getComputedStyle(e).strokeDasharray);
    assert.notEqual(dash, 'none');
  }
  // The explicit input stays solid.
  assert.doesNotMatch(await page.getAttribute(edge('cond', 'If_3'), 'class'), /gv-implicit/);
  assert.match(await page.textContent(`${byId('graph-legend')} [data-legend="implicit"]`), /read inside a body/);
  // y's box has a consumer now: arrow keys walk from it to the If.
  await page.focus(node('y'));
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.nodeName), 'If_3');
  await shot(page, 'netron-implicit-inputs');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('If and Loop bodies open as graphs: buttons and double-click, a breadcrumb back, nested bodies, search, links', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page, model('control_flow.onnx'));
  const crumbs = () => page.$$eval(`${byId('graph-breadcrumb')} button`, (bs) => bs.map((b) => b.textContent));
  const shown = async () => {
    await waitIdle(page);
    return shownNodes(page);
  };
  // The node panel offers each body; then_branch first.
  await selectNode(page, 'If_3');
  assert.deepEqual(await page.$$eval(byId('open-body'), (bs) => bs.map((b) => b.dataset.body)), ['then_branch', 'else_branch']);
  await page.click(`${byId('open-body')}[data-body="then_branch"]`);
  assert.deepEqual(await shown(page), ['then_add']);
  assert.equal(await page.isVisible(byId('graph-breadcrumb')), true);
  assert.deepEqual(await crumbs(), ['main', 'If_3', 'then_branch']);
  // The outer-scope tensors the branch reads are boxes of their own, wired to their consumer.
  assert.deepEqual(await page.$$eval(`${byId('graph-node')}[data-outer="true"]`, (els) => els.map((e) => e.dataset.nodeName).sort()), ['h', 'y']);
  assert.equal(await page.getAttribute(`.gv-edge[data-tensor="y"][data-to="then_add"]`, 'data-from'), 'y');
  // Search and selection work inside the body.
  await page.keyboard.press('/');
  await page.fill(byId('search-box'), 'then');
  await page.press(byId('search-box'), 'Enter');
  await page.waitForFunction(() => window.popartApp.state.node === 'then_add');
  assert.match(await page.textContent(byId('node-panel')), /Add then_add/);
  assert.match(await page.evaluate(() => location.hash), /graph=If_3\.then_branch.*node=then_add/);
  await shot(page, 'netron-body-then');
  // "main" goes back; double-click on the If opens its first body.
  await page.click(`${byId('graph-breadcrumb')} button[data-depth="0"]:not([data-node])`);
  assert.deepEqual(await shown(page), ['Add_0', 'If_3', 'MatMul_0', 'W_const', 'emb_mean', 'scale_out']);
  assert.equal(await page.isHidden(byId('graph-breadcrumb')), true);
  await page.dblclick(node('If_3'));
  assert.deepEqual(await shown(page), ['then_add']);
  // The node's crumb goes back to its graph with the node selected.
  await page.click(`${byId('graph-breadcrumb')} button[data-node="If_3"]`);
  await waitIdle(page);
  assert.equal(await page.getAttribute(node('If_3'), 'aria-pressed'), 'true');
  // else_branch holds a Loop whose body reads h from two graphs out.
  await page.click(`${byId('open-body')}[data-body="else_branch"]`);
  assert.deepEqual(await shown(page), ['Loop_1', 'acc0_const', 'keep_const', 'trips_const']);
  assert.match(await page.getAttribute('.gv-edge[data-tensor="h"][data-to="Loop_1"]', 'class'), /gv-implicit/);
  await selectNode(page, 'Loop_1');
  await page.click(`${byId('open-body')}[data-body="body"]`);
  assert.deepEqual(await shown(page), ['loop_add', 'loop_cond']);
  assert.deepEqual(await crumbs(), ['main', 'If_3', 'else_branch', 'Loop_1', 'body']);
  const inputs = await page.$$eval(`${byId('graph-node')}[data-kind="input"]`, (els) => els.map((e) => [e.dataset.nodeName, e.dataset.outer ?? '']));
  assert.deepEqual(inputs, [['iter', ''], ['cond_in', ''], ['acc_in', ''], ['h', 'true']]);
  await shot(page, 'netron-body-nested');
  // A link reproduces the body shown and the node selected in it (the model served at a
  // same-origin URL, as #url= opens it), edited in place and loaded afresh.
  await selectNode(page, 'loop_add');
  const hash = (await page.evaluate(() => location.hash)).slice(1);
  assert.match(hash, /graph=If_3\.else_branch%2FLoop_1\.body&node=loop_add/);
  await page.route('**/fixtures/*.onnx', (route) => route.fulfill({
    contentType: 'application/octet-stream', body: fs.readFileSync(path.join(FIXTURES, path.basename(new URL(route.request().url()).pathname))) }));
  const link = hash.replace(/^example=file/, 'url=fixtures%2Fcontrol_flow.onnx');
  await openFixture(page, model('custom_ops.onnx'));
  await page.evaluate((h) => { location.hash = h; }, link);
  await page.waitForFunction(() => window.popartApp.model?.name === 'control_flow.onnx' && document.body.dataset.busy === 'false');
  assert.deepEqual(await crumbs(), ['main', 'If_3', 'else_branch', 'Loop_1', 'body']);
  assert.match(await page.textContent(byId('node-panel')), /Add loop_add/);
  await page.reload();
  await waitIdle(page);
  await page.waitForFunction(() => window.popartApp.model?.name === 'control_flow.onnx' && document.body.dataset.ready === 'true');
  assert.deepEqual(await shownNodes(page), ['loop_add', 'loop_cond']);
  assert.equal(await page.getAttribute(node('loop_add'), 'aria-pressed'), 'true');
  // A link to a body the model does not have: the main graph, with a notice.
  await page.evaluate(() => { location.hash = location.hash.replace(/graph=[^&]*/, 'graph=If_3.nothing'); });
  await page.waitForFunction(() => !document.querySelector('[data-testid="error-banner"]').hidden);
  assert.match(await page.textContent(byId('error-banner')), /body 'If_3\.nothing', which this model does not have/);
  assert.equal(await shown(page).then((n) => n.length), 6);
  // The crumbs of a nested body each go back a level.
  await page.evaluate(() => window.popartApp.openGraph([{ node: 'If_3', body: 'else_branch' }, { node: 'Loop_1', body: 'body' }]));
  assert.deepEqual(await shown(page), ['loop_add', 'loop_cond']);
  await page.click(`${byId('graph-breadcrumb')} button[data-body="else_branch"]`);
  assert.deepEqual(await shown(page), ['Loop_1', 'acc0_const', 'keep_const', 'trips_const']);
  assert.deepEqual(await crumbs(), ['main', 'If_3', 'else_branch']);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('View options: horizontal layout, hide names, hide weights; remembered in the browser', async () => {
  const p = await openPage(env, { hash: 'example=cnn_small' });
  const { page } = p;
  // Box centres in graph units, from their transforms.
  const centre = (name) => page.$eval(node(name), (g) => {
    const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute('transform'));
    const r = g.querySelector('rect.gv-box');
    return { x: Number(m[1]) + Number(r.getAttribute('width')) / 2, y: Number(m[2]) + Number(r.getAttribute('height')) / 2 };
  });
  const d = await page.evaluate(() => window.popartApp.model.description);
  const [input, output] = [d.inputs[0], d.outputs[0]];
  const pressed = (id) => page.getAttribute(byId(id), 'aria-pressed');
  let a = await centre(input), b = await centre(output);
  assert.ok(b.y - a.y > 5 * Math.abs(b.x - a.x), `top to bottom: ${JSON.stringify([a, b])}`);
  const names = () => page.locator(`${byId('graph-node')}:not([data-kind]) .gv-name`).count();
  const rows = () => page.locator(`${byId('graph-node')}:not([data-kind]) .gv-row`).count();
  const named = d.nodes.filter((n) => n.name !== n.opType).length;
  assert.equal(await names(), named);
  const weights = d.nodes.flatMap((n) => n.inputs.filter((t) => d.tensors.find((x) => x.name === t)?.kind === 'initializer')).length;
  assert.equal(await rows(), weights);
  // Horizontal: the data flows left to right; the edge labels sit above their edges.
  await page.click(byId('layout-horizontal'));
  await waitIdle(page);
  assert.equal(await pressed('layout-horizontal'), 'true');
  a = await centre(input);
  b = await centre(output);
  assert.ok(b.x - a.x > 5 * Math.abs(b.y - a.y), `left to right: ${JSON.stringify([a, b])}`);
  // Arrow keys follow the data: Right goes to a consumer.
  await page.focus(node(input));
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.nodeName), d.nodes.find((n) => n.inputs.includes(input)).name);
  await shot(page, 'netron-horizontal');
  // Hide names, hide weights.
  await page.click(byId('hide-names'));
  await waitIdle(page);
  assert.equal(await pressed('hide-names'), 'true');
  assert.equal(await names(), 0);
  await page.click(byId('hide-weights'));
  await waitIdle(page);
  assert.equal(await pressed('hide-weights'), 'true');
  assert.equal(await rows(), 0);
  assert.ok(await page.locator(`${byId('graph-node')}:not([data-kind])`).count() === d.nodes.length, 'every node still drawn');
  await shot(page, 'netron-hidden-names-weights');
  // Remembered: a new page opens with the same options.
  await page.reload();
  await waitIdle(page);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  for (const id of ['layout-horizontal', 'hide-names', 'hide-weights']) assert.equal(await pressed(id), 'true', id);
  a = await centre(input);
  b = await centre(output);
  assert.ok(b.x - a.x > 5 * Math.abs(b.y - a.y), 'still left to right');
  assert.equal(await names(), 0);
  // Keyboard: H, N, W toggle them back.
  await page.focus('body');
  for (const k of ['h', 'n', 'w']) {
    await page.keyboard.press(k);
    await waitIdle(page);
  }
  for (const id of ['layout-horizontal', 'hide-names', 'hide-weights']) assert.equal(await pressed(id), 'false', id);
  assert.equal(await names(), named);
  assert.equal(await rows(), weights);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('unsupported ops are marked in the graph, explained in a legend and listed in the summary', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page, model('custom_ops.onnx'));
  assert.equal(await page.getAttribute(node('foo'), 'data-unsupported'), 'true');
  assert.match(await page.getAttribute(node('foo'), 'class'), /gv-unsupported/);
  assert.match(await page.getAttribute(node('foo'), 'aria-label'), /not supported by this runtime/);
  assert.match(await page.textContent(`${node('foo')} title`), /Foo foo \(com\.example\): not supported by this runtime/);
  // Graphcore's Gelu and ONNX's Relu run here.
  for (const n of ['gelu', 'relu']) assert.equal(await page.getAttribute(node(n), 'data-unsupported'), null, n);
  assert.match(await page.textContent(`${byId('graph-legend')} [data-legend="unsupported"]`), /not supported by this runtime \(1\)/);
  const summary = byId('unsupported-ops');
  assert.match(await page.textContent(summary), /Not supported by this runtime \(1\)/);
  assert.deepEqual(await page.$$eval(`${summary} li`, (lis) => lis.map((li) => [li.dataset.op, li.dataset.domain])), [['Foo', 'com.example']]);
  await selectNode(page, 'foo');
  assert.match(await page.textContent(`${byId('node-panel')} [data-field="unsupported"]`), /Foo \(com\.example, opset 1\) is not supported by this runtime/);
  await page.click('#tab-summary');
  await shot(page, 'netron-unsupported');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the summary counts Constant weights as parameters and a checkpoint\'s optimizer state apart', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openFixture(page, model('control_flow.onnx'));
  // B [4] + emb [3, 40, 25] + the Constant W [3, 4] (Constants inside bodies are not weights).
  const params = `${byId('model-summary')} [data-parameter-count]`;
  assert.equal(await page.getAttribute(params, 'data-parameter-count'), String(4 + 3000 + 12));
  assert.match(await page.textContent(params), /^3,016 \(11\.8 KiB\)$/);
  assert.equal(await page.$(`${byId('model-summary')} [data-optimizer-state-count]`), null);
  // A checkpoint of the digits CNN after one step of SGD with momentum: its weights, and the
  // optimizer's state apart.
  await page.selectOption(byId('example-select'), 'digits');
  await page.waitForFunction(() => window.popartApp.model?.example?.kind === 'digits-cnn' && document.body.dataset.busy === 'false');
  await page.click('#tab-train');
  await page.click(byId('train-step'));
  await page.waitForFunction(() => window.popartApp.trainHistory.length === 1, null, { timeout: 60000 });
  const [cp] = await Promise.all([page.waitForEvent('download'), page.click(byId('download-checkpoint'))]);
  const checkpoint = fs.readFileSync(await cp.path());
  await page.click(byId('train-stop'));
  await waitIdle(page);
  await openFixture(page, { name: 'digits.checkpoint.onnx', mimeType: 'application/octet-stream', buffer: checkpoint });
  const d = await page.evaluate(() => window.popartApp.model.description);
  assert.equal(d.parameterCount, 160 + 4640 + 8256 + 650);
  assert.ok(d.optimizerStateCount > 0, `optimizer state ${d.optimizerStateCount}`);
  assert.equal(await page.getAttribute(params, 'data-parameter-count'), '13706');
  const state = `${byId('model-summary')} [data-optimizer-state-count]`;
  assert.equal(await page.getAttribute(state, 'data-optimizer-state-count'), String(d.optimizerStateCount));
  assert.match(await page.textContent(byId('model-summary')), /Optimizer state\s*[\d,]+ \(/);
  await shot(page, 'netron-checkpoint-summary');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('FLOAT16 values (their 16-bit patterns, as the package gives them) read as numbers', async () => {
  const { halfToFloat } = await import('../../../web/src/tensor-grid.js');
  const cases = [[0x3c00, 1], [0xc000, -2], [0x7bff, 65504], [0x0001, 2 ** -24], [0x3555, 0.333251953125], [0x7c00, Infinity], [0xfc00, -Infinity]];
  for (const [bits, v] of cases) assert.equal(halfToFloat(bits), v, bits.toString(16));
  assert.ok(Number.isNaN(halfToFloat(0x7e00)));
});
