// The core's log through JS: levels per module, and setLogDestination — a function that takes
// each line (what the page's Log panel shows), 'stderr' / 'stdout' again, and a function that
// throws not stopping the call that logged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, addModel, cpu } from './helpers.mjs';

const popart = await createPopart();

function runAdd() {
  const m = addModel(popart);
  const s = new popart.InferenceSession({ fnModel: m.proto, dataFlow: new popart.DataFlow(1, [m.out]), deviceInfo: cpu(popart) });
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ a: new Float32Array(6).fill(2), b: new Float32Array(6).fill(3) }, anchors));
  s.dispose();
  return Array.from(anchors[m.out].data);
}

test('setLogDestination(fn) takes each line with its level and module', () => {
  const lines = [];
  popart.setLogDestination((line, level, module) => lines.push({ line, level, module }));
  try {
    popart.getLogger().setLevel('OFF');
    popart.getLogger('session').setLevel('INFO');
    assert.deepEqual(runAdd(), [5, 5, 5, 5, 5, 5]);
  } finally {
    popart.getLogger().setLevel('OFF');
    popart.setLogDestination('stderr');
  }
  assert.ok(lines.length > 0);
  for (const l of lines) {
    assert.equal(l.module, 'session');
    assert.equal(l.level, 'INFO');
    assert.match(l.line, /^\d\d:\d\d:\d\d\.\d{3} popart:session \d+\.\d+ I: /);  // PopART's line format
  }
  // Back on stderr: the function gets nothing more.
  const n = lines.length;
  popart.getLogger('session').setLevel('INFO');
  runAdd();
  popart.getLogger().setLevel('OFF');
  assert.equal(lines.length, n);
});

test("the Builder traces each op it adds (PopART's 'Adding ai.onnx.Abs' line)", () => {
  const lines = [];
  popart.setLogDestination((line, level, module) => lines.push({ line, level, module }));
  const addAbs = (level) => {
    popart.getLogger().setLevel(level);
    const b = new popart.Builder();
    b.aiOnnx.abs([b.addInputTensor('FLOAT', [1, 2, 3])]);
    b.dispose();
  };
  try {
    addAbs('TRACE');
    addAbs('OFF');
    addAbs('DEBUG');
  } finally {
    popart.getLogger().setLevel('OFF');
    popart.setLogDestination('stderr');
  }
  const adding = lines.filter((l) => l.line.includes('Adding ai.onnx.Abs'));
  assert.equal(adding.length, 1, JSON.stringify(lines));
  assert.equal(adding[0].level, 'TRACE');
  assert.equal(adding[0].module, 'builder');
});

test('printtensor writes to the destination function', () => {
  const lines = [];
  popart.setLogDestination((line, level, module) => lines.push({ line, level, module }));
  try {
    const b = new popart.Builder();
    const x = b.addInputTensor('FLOAT', [2], 'x');
    const y = b.aiGraphcore.printtensor([x], 1, 'x is');
    b.addOutputTensor(y);
    const s = new popart.InferenceSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, [y]), deviceInfo: cpu(popart) });
    b.dispose();
    s.prepareDevice();
    s.run(new popart.PyStepIO({ x: new Float32Array([1.5, -2]) }, s.initAnchorArrays()));
    s.dispose();
  } finally {
    popart.setLogDestination('stderr');
  }
  const printed = lines.filter((l) => l.module === 'op' && l.line.includes('x is'));
  assert.equal(printed.length, 1, JSON.stringify(lines));
  assert.match(printed[0].line, /1\.5/);
});

test('a destination function that throws does not stop the call; bad destinations are errors', () => {
  popart.setLogDestination(() => { throw new Error('boom'); });
  try {
    popart.getLogger('session').setLevel('INFO');
    assert.deepEqual(runAdd(), [5, 5, 5, 5, 5, 5]);
  } finally {
    popart.getLogger().setLevel('OFF');
    popart.setLogDestination('stderr');
  }
  expectError(() => popart.setLogDestination('/tmp/popart.log'), ["'/tmp/popart.log' is not a destination here"]);
  expectError(() => popart.setLogDestination(42), ["must be 'stderr', 'stdout' or a function"]);
  popart.setLogDestination('stdout');
  popart.setLogDestination('stderr');
  assert.deepEqual(runAdd(), [5, 5, 5, 5, 5, 5]);
});

test('a SessionOptions left at its defaults logs no deprecation warning; setting an alias does', () => {
  const warnings = [];
  popart.setLogDestination((line, level) => { if (level === 'WARN') warnings.push(line); });
  try {
    popart.getLogger().setLevel('WARN');
    const m = addModel(popart);
    const make = (opts) => new popart.InferenceSession({ fnModel: m.proto, dataFlow: new popart.DataFlow(1, [m.out]),
                                                          deviceInfo: cpu(popart), userOptions: opts }).dispose();
    make(new popart.SessionOptions());
    assert.deepEqual(warnings, []);
    const o = new popart.SessionOptions();
    o.defaultPrefetchBufferingDepth = 3;
    make(o);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /defaultPrefetchBufferingDepth has been deprecated .* Please use the alias defaultBufferingDepth instead/);
  } finally {
    popart.getLogger().setLevel('OFF');
    popart.setLogDestination('stderr');
  }
});
