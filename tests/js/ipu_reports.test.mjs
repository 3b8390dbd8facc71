// The IPU model's reports from JS, the same cases as tests/unit/ipu_model_report_test.cpp: out of
// memory on 4 tiles and the offline device's OutOfMemoryException (a JS Error with
// summaryReport), cycles, several IPUs, pipelining, the graph / execution reports (JSON and CBOR),
// getReport() (the core's one report document, the same as Python's), getCycleCount, autoReport
// files on disk, the CPU device's profiling errors. Every value and message is the core's; the
// module keeps working after each error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPopart, expectError, cpu, ROOT, TMP } from './helpers.mjs';

// cborg (a pure-JS CBOR codec) comes with tests/browser's packages (scripts/test.sh runs `npm ci`
// there first); it is an ES module, imported by path.
const { decode: decodeCbor } = await import(
  pathToFileURL(path.join(ROOT, 'tests/browser/node_modules/cborg/cborg.js')).href);

const popart = await createPopart();
const dm = () => popart.DeviceManager();
const ipuModel = (tiles, ipus = 1, version = 'ipu2') =>
  dm().createIpuModelDevice({ tilesPerIPU: tiles, numIPUs: ipus, ipuVersion: version });
fs.mkdirSync(TMP, { recursive: true });

/// y = Relu(x @ w1) @ w2: x [rows, k], w1 [k, hidden] named 'w1', w2 [hidden, n] named 'w2';
/// ops mm1, relu, mm2 on the IPUs `ipus` and in the pipeline stages `stages` when given.
function mlp(rows, k, hidden, n, { ipus, stages } = {}) {
  const b = new popart.Builder();
  const ai = b.aiOnnxOpset11;
  const x = b.addInputTensor('FLOAT', [rows, k], 'x');
  const init = (r, c, name) => b.addInitializedInputTensor(
      new popart.NDArray(Float32Array.from({ length: r * c }, (_, i) => ((i * 7919) % 201 - 100) * 1e-3), [r, c]), name);
  const w1 = init(k, hidden, 'w1');
  const w2 = init(hidden, n, 'w2');
  const mm1 = b.aiOnnxOpset11.matmul([x, w1], 'mm1');
  const h = ai.relu([mm1], 'relu');
  const y = ai.matmul([h, w2], 'mm2');
  [mm1, h, y].forEach((t, i) => {
    if (ipus) b.virtualGraph(t, ipus[i]);
    if (stages) b.pipelineStage(t, stages[i]);
  });
  b.addOutputTensor(y);
  const proto = b.getModelProto();
  b.dispose();
  return { proto, x, y, rows, k };
}

function session(m, device, { bps = 1, options } = {}) {
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(bps, [m.y]), device, undefined, options);
  try {
    s.prepareDevice();
  } catch (e) {
    s.dispose();
    throw e;
  }
  return s;
}

function runMlp(s, m, name = '', bps = 1) {
  const x = Float32Array.from({ length: bps * m.rows * m.k }, (_, i) => (i % 13) * 0.1);
  s.run(new popart.PyStepIO({ [m.x]: x }, s.initAnchorArrays()), name);
}

const sum = (v) => v.reduce((a, b) => a + b, 0);
const opNamed = (c, name) => c.ops.find((op) => op.name === name || op.name.startsWith(`${name}_`));
const category = (c, name) => c.memory.byTile[name];

/// Asserts that `fn` throws the core's OutOfMemoryException as a JS Error and returns it.
function expectOutOfMemory(fn, parts) {
  let err = null;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof Error, `expected an out-of-memory Error, got ${err}`);
  for (const p of parts) assert.ok(err.message.includes(p), `${err.message}\ndoes not contain\n${p}`);
  assert.equal(typeof err.summaryReport, 'string');
  return err;
}

/// The module still builds, prepares and runs a model after an error.
function stillWorks() {
  const m = mlp(2, 4, 4, 2);
  const s = session(m, ipuModel(8));
  runMlp(s, m, 'after');
  assert.equal(s.getReport().execution.runs[0].name, 'after');
  s.dispose();
}

// ---------------------------------------------------------------- memory

test('weights over 4 tiles are out of memory on the default IPU model (it runs anyway) and fit on 1,472', () => {
  const m = mlp(4, 1024, 1024, 16);  // w1: 4 MiB, over 4 tiles x 624 KiB
  const small = session(m, dm().createIpuModelDevice());
  const r = small.getReport();
  assert.equal(r.compilation.target.numTiles, 4);
  assert.equal(r.compilation.memory.outOfMemoryTiles.length, 4);
  assert.ok(r.compilation.memory.maxTileBytes > 624 * 1024);
  runMlp(small, m);
  const summary = small.getSummaryReport();
  assert.match(summary, /Tiles out of memory:/);
  assert.match(summary, /4 \(worst: tile/);
  small.dispose();

  const full = session(m, ipuModel(1472));
  assert.deepEqual(full.getReport().compilation.memory.outOfMemoryTiles, []);
  assert.match(full.getSummaryReport(), /Tiles out of memory: {5}none/);
  full.dispose();
});

test('an offline IPU throws OutOfMemoryException: a JS Error with the core\'s message and summaryReport', () => {
  const m = mlp(4, 1024, 1024, 16);
  const offline = dm().createOfflineIPUDevice({ tilesPerIPU: 4 });
  const e = expectOutOfMemory(() => session(m, offline), [
    'Out of memory: Cannot fit all variable data onto one or more tiles',
    "'w1' (variable, FLOAT 4,194,304 bytes)",
    'of 638,976',
  ]);
  assert.match(e.summaryReport, /Memory Usage:/);
  assert.match(e.summaryReport, /Tiles out of memory: +4 \(worst: tile/);
  assert.match(e.summaryReport, /Tiles per IPU: +4\n/);
  assert.equal(e.profilePath, '');  // no autoReport
  const g = JSON.parse(e.graphReport);  // every tile's memory, the ones over capacity marked
  assert.equal(g.memory.outOfMemoryTiles.length, 4);
  assert.equal(g.memory.byTile.total.length, 4);
  stillWorks();
  // The IPU model refuses too when asked to; an offline device may be told to compile anyway.
  expectOutOfMemory(() => session(m, ipuModel(4), { options: { engineOptions: { 'debug.allowOutOfMemory': 'false' } } }),
                    ['Out of memory: Cannot fit all variable data']);
  const s = session(m, offline, { options: { engineOptions: { 'debug.allowOutOfMemory': 'true' } } });
  assert.ok(s.getReport().compilation.memory.outOfMemoryTiles.length > 0);
  s.dispose();
  // Other errors carry no summaryReport.
  try {
    session(m, ipuModel(4), { options: { engineOptions: { 'debug.noSuchOption': 'true' } } });
    assert.fail('no error');
  } catch (err) {
    assert.match(err.message, /Unrecognised option 'debug.noSuchOption'/);
    assert.ok(!('summaryReport' in err));
  }
  stillWorks();
});

test('tile totals add up; weights spread by rows; the mapping is deterministic', () => {
  const m = mlp(8, 300, 200, 10);
  const s = session(m, ipuModel(64));
  const c = s.getReport().compilation;
  assert.deepEqual(Object.keys(c.memory.byCategory).sort(), [...popart.memoryCategories].sort());
  assert.equal(sum(category(c, 'variables')), (300 * 200 + 200 * 10) * 4);
  assert.equal(c.memory.byCategory.variables, (300 * 200 + 200 * 10) * 4);
  assert.equal(sum(c.memory.byTile.total), c.memory.total);
  assert.equal(sum(popart.memoryCategories.map((k) => sum(category(c, k)))), c.memory.total);
  for (const t of c.tensors) {
    assert.ok(t.firstTile + t.bytesPerTile.length <= 64, t.id);
    if (!t.view) assert.equal(sum(t.bytesPerTile), t.bytes, t.id);
  }
  const w1 = c.tensors.find((t) => t.id === 'w1');
  assert.equal(w1.category, 'variables');
  assert.equal(w1.bytesPerTile.length, 64);
  s.dispose();
  const small = mlp(8, 64, 32, 10);
  const reports = [0, 1].map(() => {
    const t = session(small, ipuModel(16));
    const g = t.getGraphReport();
    t.dispose();
    return g;
  });
  assert.equal(reports[0], reports[1]);
});

// ---------------------------------------------------------------- cycles

test('cycles grow linearly with batchesPerStep and with the MatMul size', () => {
  const m = mlp(4, 64, 64, 8);
  const one = session(m, ipuModel(1472), { bps: 1 });
  const three = session(m, ipuModel(1472), { bps: 3 });
  runMlp(one, m, '', 1);
  runMlp(three, m, '', 3);
  const c1 = one.getReport().execution.runs[0].cycles;
  const r3 = three.getReport().execution.runs[0];
  assert.ok(c1 > 0);
  assert.equal(r3.cycles, 3 * c1);
  assert.equal(r3.steps.length, 3);
  one.dispose();
  three.dispose();
  let previous = 0;
  for (const n of [32, 64, 128, 256]) {
    const s = session(mlp(n, n, n, 4), dm().createOfflineIPUDevice());
    const cycles = opNamed(s.getReport().compilation, 'mm1').cycles;
    assert.ok(cycles > previous, `${n}: ${cycles} <= ${previous}`);
    previous = cycles;
    s.dispose();
  }
});

test('two IPUs from JS (Builder.virtualGraph, virtualGraphMode Manual): cycles per IPU, copies, getCycleCount', () => {
  const m = mlp(4, 256, 256, 8, { ipus: [0, 1, 1] });
  const s = session(m, ipuModel(64, 2), { options: { virtualGraphMode: 'Manual' } });
  const c = s.getReport().compilation;
  assert.equal(opNamed(c, 'mm1').ipu, 0);
  assert.equal(opNamed(c, 'relu').ipu, 1);
  assert.equal(c.cycles.perIpu.length, 2);
  assert.ok(c.cycles.interIpuCopies > 0);
  assert.equal(c.cycles.perIpu[0] + c.cycles.perIpu[1], c.cycles.perMicroBatch);
  assert.equal(c.tensors.find((t) => t.id === 'w1').ipu, 0);
  assert.equal(c.tensors.find((t) => t.id === 'w2').ipu, 1);
  assert.equal(c.memory.byTile.total.length, 128);
  runMlp(s, m);
  expectError(() => s.getCycleCount(), ["SessionOption 'instrumentWithHardwareCycleCounter' must be"]);

  const options = { virtualGraphMode: 'Manual', instrumentWithHardwareCycleCounter: true,
                    hardwareInstrumentations: ['Outer', 'Inner'] };
  const counted = session(m, ipuModel(64, 2), { bps: 2, options });
  expectError(() => counted.getCycleCount(), ['Must call run before getCycleCount']);
  runMlp(counted, m, '', 2);
  const run = counted.getReport().execution.runs[0];
  assert.equal(typeof counted.getCycleCount(), 'number');
  assert.equal(counted.getCycleCount(), run.cycles);
  assert.equal(counted.getCycleCount(''), run.cycles);
  assert.ok(counted.getCycleCount('inner_ipu_0') > 0);
  assert.ok(counted.getCycleCount('inner_ipu_0') + counted.getCycleCount('inner_ipu_1') <= run.cycles);
  expectError(() => counted.getCycleCount('inner_ipu_2'), [
    "Invalid id for cycle counter, 'inner_ipu_2'. Make sure you have set SessionOption::hardwareInstrumentations " +
    'correctly.']);
  assert.equal(counted.getCycleCount(), run.cycles);  // still usable
  counted.dispose();
  s.dispose();

  // Outer only: no inner ids.
  const small = mlp(4, 16, 16, 4);
  const outer = session(small, ipuModel(16), { options: { instrumentWithHardwareCycleCounter: true } });
  runMlp(outer, small);
  assert.ok(outer.getCycleCount('') > 0);
  expectError(() => outer.getCycleCount('inner_ipu_0'), ["Invalid id for cycle counter, 'inner_ipu_0'"]);
  outer.dispose();
});

test('manual placement errors name the op; Auto placement balances memory', () => {
  const bad = mlp(4, 16, 16, 4, { ipus: [0, 1, 2] });
  expectError(() => session(bad, ipuModel(4, 2), { options: { virtualGraphMode: 'Manual' } }),
              ["node 'mm2_2'", 'has virtualGraph 2', '2 IPU(s) per replica (0 .. 1)']);
  const none = mlp(4, 16, 16, 4);
  expectError(() => session(none, ipuModel(4, 2), { options: { virtualGraphMode: 'Manual' } }),
              ['virtualGraphMode is Manual but no op has a virtualGraph annotation']);
  expectError(() => session(none, ipuModel(4, 2)), ['2 IPU(s) per replica but virtualGraphMode is Off']);
  const even = mlp(4, 512, 512, 512);
  const s = session(even, ipuModel(64, 2), { options: { virtualGraphMode: 'Auto' } });
  const c = s.getReport().compilation;
  assert.equal(opNamed(c, 'mm1').ipu, 0);
  assert.equal(opNamed(c, 'mm2').ipu, 1);
  const vars = category(c, 'variables');
  assert.equal(sum(vars.slice(0, 64)), sum(vars.slice(64)));
  s.dispose();
  stillWorks();
});

test('pipelining from JS (enablePipelining, Builder.pipelineStage): fill, steady state and drain', () => {
  const m = mlp(4, 128, 128, 8, { ipus: [0, 1, 1], stages: [0, 1, 1] });
  const bps = 5;
  const s = session(m, ipuModel(64, 2), { bps, options: { virtualGraphMode: 'Manual', enablePipelining: true } });
  runMlp(s, m, 'pipelined', bps);
  const r = s.getReport();
  const c = r.compilation;
  assert.equal(c.graph.pipelined, true);
  assert.equal(c.cycles.stageCycles.length, 2);
  const [t0, t1] = c.cycles.stageCycles;
  const { fill, steady, drain } = r.execution.runs[0].pipeline;
  const run = r.execution.runs[0];
  // docs/ipu-model.md: fill t0 + sync, steady (N - 1)(max(t0, t1) + sync), drain t1 + sync.
  const sync = fill - t0;
  assert.ok(sync > 0);
  assert.equal(drain, t1 + sync);
  assert.equal(steady, (bps - 1) * (Math.max(t0, t1) + sync));
  const io = c.cycles.hostToDevicePerMicroBatch + c.cycles.deviceToHostPerMicroBatch;
  assert.equal(run.cycles, fill + steady + drain + bps * io);
  assert.ok(run.cycles < bps * (c.cycles.perMicroBatch + io));
  assert.deepEqual(JSON.parse(s.getExecutionReport(false, false)), r.execution);
  assert.match(s.getSummaryReport(), /fill /);
  s.dispose();
});

// ---------------------------------------------------------------- reports

test('graph report: JSON schema (memory.byTile.total one entry per tile); CBOR decodes to the same document', () => {
  const m = mlp(4, 64, 32, 8);
  const s = session(m, ipuModel(16));
  const text = s.getGraphReport();
  assert.equal(typeof text, 'string');
  const g = JSON.parse(text);
  assert.equal(g.memory.byTile.total.length, 16);
  for (const k of popart.memoryCategories) assert.equal(g.memory.byTile[k].length, 16, k);
  assert.equal(g.target.architecture, 'ipu2');
  assert.equal(g.target.totalMemory, 16 * 624 * 1024);
  assert.equal(g.ops[0].name, 'mm1');
  for (const k of ['type', 'ipu', 'flops', 'cycles', 'computeCycles', 'exchangeCycles', 'syncCycles', 'firstTile',
                   'numTiles']) assert.ok(k in g.ops[0], k);
  for (const t of g.tensors) {
    for (const k of ['id', 'dtype', 'shape', 'bytes', 'kind', 'category', 'ipu', 'firstTile', 'bytesPerTile', 'liveFrom',
                     'liveTo']) assert.ok(k in t, k);
  }
  assert.equal(g.tensors.find((t) => t.id === 'w1').category, 'variables');
  const cbor = s.getGraphReport(true);
  assert.ok(cbor instanceof Uint8Array);
  assert.deepEqual(decodeCbor(cbor), g);
  s.dispose();
});

/// Every key of the object `o` at `path` is in the core's table reportSchema() with its type, and
/// every required key of the table under `path` is in `o` (tests/unit/report_schema_test.cpp,
/// tests/python/test_ipu_reports.py: the same walk).
function checkSchema(o, path, table, seen) {
  const types = { object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
                  'object[]': (v) => Array.isArray(v) && v.every(types.object),
                  string: (v) => typeof v === 'string', int: Number.isInteger, float: (v) => typeof v === 'number',
                  bool: (v) => typeof v === 'boolean', 'int[]': (v) => Array.isArray(v) && v.every(Number.isInteger),
                  'string[]': (v) => Array.isArray(v) && v.every((e) => typeof e === 'string') };
  const prefix = path ? `${path}.` : '';
  for (const [k, v] of Object.entries(o)) {
    const f = table.get(prefix + k);
    assert.ok(f, `the document has ${prefix + k}, reportSchema() does not`);
    seen.add(f.path);
    assert.ok(types[f.type](v), `${f.path} is not ${f.type}`);
    if (f.type === 'object') checkSchema(v, f.path, table, seen);
    if (f.type === 'object[]') for (const e of v) checkSchema(e, `${f.path}[]`, table, seen);
  }
  for (const f of table.values()) {
    const rest = f.path.slice(prefix.length);
    if (!f.optional && f.path.startsWith(prefix) && rest && !rest.includes('.')) assert.ok(rest in o, `no ${f.path}`);
  }
}

test('execution report: run names, CBOR, resetProfile; getReport() is the core\'s one document', () => {
  const m = mlp(4, 64, 32, 8);
  const s = session(m, ipuModel(16), { bps: 2 });
  runMlp(s, m, 'first', 2);
  runMlp(s, m, 'second', 2);
  const e = JSON.parse(s.getExecutionReport(false, false));
  assert.deepEqual(e.runs.map((r) => r.name), ['first', 'second']);
  assert.equal(e.runs[0].steps.length, 2);
  assert.equal(e.simulation.cycles, e.runs[0].cycles + e.runs[1].cycles);
  assert.ok(e.simulation.steps.length > 0 && 'cycles' in e.simulation.steps[0]);
  const cbor = s.getExecutionReport(true, false);
  assert.ok(cbor instanceof Uint8Array);
  assert.deepEqual(decodeCbor(cbor), e);
  // resetProfile (the default) forgets the runs after reporting them.
  assert.equal(JSON.parse(s.getExecutionReport()).runs.length, 2);
  assert.equal(JSON.parse(s.getExecutionReport()).runs.length, 0);
  runMlp(s, m, 'third', 2);
  const r = s.getReport();
  assert.deepEqual(Object.keys(r), ['compilation', 'execution']);
  // Its halves are the graph and the execution reports (getReport() resets nothing).
  assert.deepEqual(r.compilation, JSON.parse(s.getGraphReport()));
  assert.deepEqual(r.execution, JSON.parse(s.getExecutionReport(false, false)));
  const table = new Map(popart.reportSchema().map((f) => [f.path, f]));
  const seen = new Set();
  checkSchema(r, '', table, seen);
  assert.ok(seen.has('compilation.tensors[].bytesPerTile') && seen.has('execution.simulation.steps[].cycles'));
  assert.equal(r.compilation.target.type, 'IpuModel');
  assert.equal(r.compilation.target.totalMemory, 16 * 624 * 1024);
  assert.equal(r.compilation.target.architecture, 'ipu2');
  assert.equal(r.compilation.target.clockFrequency, 1.33e9);
  assert.equal(r.compilation.ops[0].name, 'mm1');
  assert.equal(r.execution.runs.length, 1);
  const run = r.execution.runs[0];
  assert.equal(run.name, 'third');
  assert.equal(run.microBatches, 2);
  assert.deepEqual(Object.keys(run.steps[0]), ['cycles']);
  assert.ok(Math.abs(run.seconds - run.cycles / 1.33e9) < 1e-12);
  assert.equal(r.execution.simulation.cycles, run.cycles);
  assert.equal(s.getReport().execution.runs.length, 1);  // still there
  s.dispose();
});

test('summary layout (reportOptions showExecutionSteps)', () => {
  const m = mlp(4, 64, 32, 8);
  const s = session(m, ipuModel(16, 1, 'ipu1'), { options: { reportOptions: { showExecutionSteps: 'true' } } });
  runMlp(s, m, 'named');
  const text = s.getSummaryReport();
  for (const k of ['Target:', 'Number of IPUs:', 'Tiles per IPU:', 'Memory per tile:', '256.0 KB', 'Clock:', '1600.0 MHz',
                   'Graph:', 'Number of ops:', 'Number of compute sets:', 'Memory Usage:', 'variables:', 'activations:',
                   'code:', 'By tile:', 'Maximum:', 'Histogram', 'Execution:', 'Cycles per micro-batch:', 'named:',
                   'Top ops by cycles', 'Program (one micro-batch):', '0: mm1 (MatMul) IPU 0']) {
    assert.ok(text.includes(k), `${k}\n${text}`);
  }
  s.dispose();
});

test('autoReport.all writes the reports to <autoReport.directory>/<session name>/ on disk (Node)', () => {
  const dir = path.join(TMP, 'js_autoreport');
  fs.rmSync(dir, { recursive: true, force: true });
  const m = mlp(4, 16, 16, 4);
  const options = new popart.SessionOptions();
  options.engineOptions['autoReport.all'] = 'true';
  options.engineOptions['autoReport.directory'] = dir;
  const s = session(m, ipuModel(8), { options });
  const base = path.join(dir, 'inference');  // the session's name
  for (const f of ['summary.txt', 'graph.json', 'execution.json']) assert.ok(fs.existsSync(path.join(base, f)), f);
  assert.equal(fs.readFileSync(path.join(base, 'graph.json'), 'utf8'), s.getGraphReport());
  runMlp(s, m, 'step_one');
  const e = JSON.parse(fs.readFileSync(path.join(base, 'execution.json'), 'utf8'));
  assert.deepEqual(e.runs.map((r) => r.name), ['step_one']);
  assert.match(fs.readFileSync(path.join(base, 'summary.txt'), 'utf8'), /step_one:/);
  assert.deepEqual(fs.readdirSync(base).sort(), ['execution.json', 'graph.json', 'summary.txt']);  // no temporary files
  s.dispose();

  // A directory that cannot be made: prepareDevice fails saying where, and the module keeps working.
  const blocker = path.join(TMP, 'js_autoreport_file');
  fs.writeFileSync(blocker, 'a file, not a directory');
  const bad = { engineOptions: { 'autoReport.all': 'true', 'autoReport.directory': path.join(blocker, 'sub') } };
  expectError(() => session(m, ipuModel(8), { options: bad }), ['cannot write', path.join(blocker, 'sub')]);
  stillWorks();
});

test('the CPU device: reports need prepareDevice; profiling is off unless autoReport.all or debug.instrument', () => {
  const m = mlp(4, 16, 16, 4);
  const s = new popart.InferenceSession(m.proto, new popart.DataFlow(1, [m.y]), cpu(popart));
  for (const f of [() => s.getSummaryReport(), () => s.getGraphReport(), () => s.getExecutionReport(),
                   () => s.getReport(), () => s.getGraphReport(true)]) {
    expectError(f, ['Session must have been prepared before a report can be fetched']);
  }
  s.prepareDevice();
  expectError(() => s.getSummaryReport(), ['Profiling is disabled for current device type.']);
  expectError(() => s.getGraphReport(), ['Profiling is disabled for current device type.']);
  expectError(() => s.getReport(), ['Profiling is disabled for current device type.']);
  assert.deepEqual(JSON.parse(s.getExecutionReport()), { profilerMode: 'NONE' });
  assert.deepEqual(decodeCbor(s.getExecutionReport(true)), { profilerMode: 'NONE' });
  runMlp(s, m);
  expectError(() => s.getCycleCount(), ["SessionOption 'instrumentWithHardwareCycleCounter' must be"]);
  s.dispose();

  // With profiling on, the CPU reports the host time per op and the runs.
  const dir = path.join(TMP, 'js_cpu_autoreport');
  fs.rmSync(dir, { recursive: true, force: true });
  const p = session(m, cpu(popart),
                    { options: { engineOptions: { 'autoReport.all': 'true', 'autoReport.directory': dir } } });
  runMlp(p, m, 'cpu_run');
  assert.match(p.getSummaryReport(false), /Device: CPU/);
  const e = JSON.parse(p.getExecutionReport());
  assert.equal(e.runs[0].name, 'cpu_run');
  assert.ok(e.runs[0].seconds > 0);
  assert.ok(fs.existsSync(path.join(dir, 'inference', 'summary.txt')));
  assert.ok(!fs.existsSync(path.join(dir, 'inference', 'graph.json')));  // no graph on the CPU
  p.dispose();
  const q = session(m, cpu(popart), { options: { engineOptions: { 'debug.instrument': 'true' } } });
  runMlp(q, m, 'instrumented');
  assert.match(q.getSummaryReport(false), /Micro-batches executed: 1/);
  const qr = q.getReport();
  assert.equal(qr.execution.runs[0].name, 'instrumented');
  assert.equal(qr.execution.profilerMode, 'CPU');
  assert.ok(qr.execution.hostOps.length > 0 && qr.execution.hostOps.every((o) => o.calls === 1 && o.seconds >= 0));
  checkSchema(qr, '', new Map(popart.reportSchema().map((f) => [f.path, f])), new Set());
  q.dispose();
  stillWorks();
});

test('training on two IPUs places the backward pass with its weights', () => {
  const m = mlp(4, 32, 32, 4, { ipus: [0, 1, 1] });
  const b = popart.Builder.createFromOnnxModel(m.proto);
  const loss = b.aiGraphcore.l1loss([m.y], 0.1);
  b.virtualGraph(loss, 1);
  const proto = b.getModelProto();
  b.dispose();
  const s = new popart.TrainingSession({ fnModel: proto, dataFlow: new popart.DataFlow(1, [loss]), loss,
                                         optimizer: new popart.ConstSGD(0.05), deviceInfo: ipuModel(64, 2),
                                         userOptions: { virtualGraphMode: 'Manual' } });
  s.prepareDevice();
  const c = s.getReport().compilation;
  const updates = c.ops.filter((op) => op.type === 'SGDVarUpdate').map((op) => op.ipu).sort();
  assert.deepEqual(updates, [0, 1]);
  assert.ok(c.cycles.interIpuCopies > 0);
  s.dispose();
});
