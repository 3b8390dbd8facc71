// popart.describeModel: every zoo model against the references tests/zoo/make_describe_refs.py
// makes with the onnx Python package and NumPy (<model>.describe.json in POPART_DESCRIBE_REFS,
// default the zoo), then small models written here as ONNX bytes: a symbolic batch with and
// without inputShapes, an op the runtime does not know, If subgraphs, synthetic node names, and
// bad input (an Error with the core's message; the module keeps working).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { bytes, int } from './onnx_writer.mjs';
import { createPopart, expectError, ZOO, TMP } from './helpers.mjs';

const popart = await createPopart();
const REFS = process.env.POPART_DESCRIBE_REFS ?? ZOO;

// ------------------------------------------------------------ ONNX protos (onnx_writer.mjs's wire format)

const str = bytes;
const msg = (no, parts) => str(no, parts.flat());
const FLOAT = 1, BOOL = 9;
/// ValueInfoProto (field `no` of its graph): dims are numbers or dim_param strings.
const valueInfo = (no, name, elemType, dims) => msg(no, [str(1, name), msg(2, [msg(1, [int(1, elemType),
  msg(2, dims.map((d) => msg(1, typeof d === 'string' ? str(2, d) : int(1, d))))])])]);
const node = (op, name, ins, outs, attrs = []) =>
  msg(1, [...ins.map((i) => str(1, i)), ...outs.map((o) => str(2, o)), str(3, name), str(4, op), ...attrs]);
const graphAttr = (name, g) => msg(5, [str(1, name), int(20, 5), msg(6, g)]);
const graph = (name, parts) => [...parts.flat(), ...str(2, name)];
const model = (g, opset = 13) => new Uint8Array([...int(1, 8), ...msg(8, [str(1, ''), int(2, opset)]), ...msg(7, g)]);

const tensor = (d, name) => {
  const t = d.tensors.find((x) => x.name === name);
  assert.ok(t, `no tensor '${name}'`);
  return t;
};

// ------------------------------------------------------------ the zoo against onnx + NumPy

function close(ours, ref, what) {
  if (ref === null) return assert.equal(ours, null, what);
  assert.equal(typeof ours, 'number', `${what}: ${JSON.stringify(ours)}`);
  assert.ok(Math.abs(ours - ref) <= 1e-6 * Math.abs(ref) + 1e-12, `${what}: ours ${ours}, reference ${ref}`);
}

function sameValue(ours, ref, what) {
  if (typeof ref === 'number') return close(ours, ref, what);
  if (Array.isArray(ref)) {
    assert.ok(Array.isArray(ours), what);
    assert.equal(ours.length, ref.length, what);
    return ref.forEach((r, i) => sameValue(ours[i], r, `${what}[${i}]`));
  }
  if (ref && typeof ref === 'object') {
    return Object.keys(ref).forEach((k) => sameValue(ours?.[k], ref[k], `${what}.${k}`));
  }
  assert.deepEqual(ours, ref, what);
}

function sameStats(ours, ref, what) {
  if (ref === null) return assert.equal(ours, null, what);
  for (const k of ['count', 'zeros', 'nans', 'infs']) assert.equal(ours[k], ref[k], `${what}.${k}`);
  for (const k of ['min', 'max', 'mean', 'std']) close(ours[k], ref[k], `${what}.${k}`);
  if (ref.histogram === null) return assert.equal(ours.histogram, null, what);
  close(ours.histogram.min, ref.histogram.min, `${what}.histogram.min`);
  close(ours.histogram.max, ref.histogram.max, `${what}.histogram.max`);
  assert.deepEqual(ours.histogram.counts, ref.histogram.counts, `${what}.histogram.counts`);
}

const manifest = JSON.parse(fs.readFileSync(path.join(ZOO, 'manifest.json'), 'utf8'));
const zooModels = [...Object.keys(manifest.models), ...Object.keys(manifest.seed_models ?? {})];

for (const name of zooModels) {
  test(`zoo ${name}: the description matches onnx's shape inference and NumPy's statistics`, () => {
    const ref = JSON.parse(fs.readFileSync(path.join(REFS, `${name}.describe.json`), 'utf8'));
    const d = popart.describeModel(path.join(ZOO, `${name}.onnx`));
    assert.deepEqual(d.shapeInference, { ok: true, message: '' });
    for (const k of ['irVersion', 'producerName', 'producerVersion', 'graphName', 'docString', 'modelBytes', 'opsets',
                     'inputs', 'outputs', 'parameterCount', 'parameterBytes', 'opHistogram']) {
      assert.deepEqual(d[k], ref[k], k);
    }
    assert.equal(d.nodes.length, ref.nodes.length);
    d.nodes.forEach((n, i) => {
      const r = ref.nodes[i];
      for (const k of ['name', 'opType', 'domain', 'opset', 'inputs', 'outputs']) assert.deepEqual(n[k], r[k], `node ${i} ${k}`);
      assert.deepEqual(n.attributes.map((a) => [a.name, a.type]), r.attributes.map((a) => [a.name, a.type]));
      n.attributes.forEach((a, k) => sameValue(a.value, r.attributes[k].value, `${r.name}.${a.name}`));
    });
    assert.deepEqual(d.tensors.map((t) => t.name).sort(), Object.keys(ref.tensors).sort());
    for (const t of d.tensors) {
      const r = ref.tensors[t.name];
      for (const k of ['kind', 'producer', 'consumers']) assert.deepEqual(t[k], r[k], `${t.name} ${k}`);
      assert.equal(t.shapeSource, 'inferred', t.name);
      if (r.dtype !== null) assert.equal(t.dtype, r.dtype, t.name);
      if (r.shape !== null) {
        assert.equal(t.shape.length, r.shape.length, t.name);
        r.shape.forEach((dim, k) => { if (typeof dim === 'number') assert.equal(t.shape[k], dim, `${t.name} dim ${k}`); });
      }
      for (const k of ['elements', 'bytes']) if (r[k] !== null) assert.equal(t[k], r[k], `${t.name} ${k}`);
      sameStats(t.stats, r.stats, t.name);
    }
  });
}

test('resnet18 from bytes: the same description as from its path, and fast', () => {
  const file = path.join(ZOO, 'resnet18.onnx');
  const bytes = fs.readFileSync(file);
  const t0 = performance.now();
  const d = popart.describeModel(new Uint8Array(bytes));
  const ms = performance.now() - t0;
  assert.deepEqual(d, popart.describeModel(file));
  assert.equal(d.parameterCount, 11684712);
  assert.equal(d.opHistogram.Conv, 20);
  console.log(`# describeModel(resnet18) in wasm: ${ms.toFixed(0)} ms`);
});

// ------------------------------------------------------------ small models

/// x [batch, 3] -> Relu -> y: a symbolic batch.
const symbolic = model(graph('g', [node('Relu', 'relu', ['x'], ['y']), valueInfo(11, 'x', FLOAT, ['batch', 3]),
                                   valueInfo(12, 'y', FLOAT, ['batch', 3])]));

test('a symbolic batch: file shapes without inputShapes, inferred with them', () => {
  const d = popart.describeModel(symbolic);
  assert.equal(d.shapeInference.ok, false);
  assert.match(d.shapeInference.message, /Input tensor 'x' must be specified in InputShapeInfo/);
  assert.deepEqual(tensor(d, 'x').shape, ['batch', 3]);
  assert.equal(tensor(d, 'x').shapeSource, 'file');
  assert.equal(tensor(d, 'x').elements, null);
  assert.deepEqual(tensor(d, 'y').shape, ['batch', 3]);

  const isi = new popart.InputShapeInfo();
  isi.add('x', new popart.TensorInfo('FLOAT', [4, 3]));
  for (const inputShapes of [{ x: { shape: [4, 3] } }, { x: { dtype: 'FLOAT', shape: [4, 3] } },
                             { x: new popart.TensorInfo('FLOAT', [4, 3]) }, isi]) {
    const e = popart.describeModel(symbolic, { inputShapes });
    assert.deepEqual(e.shapeInference, { ok: true, message: '' });
    assert.deepEqual(tensor(e, 'y'), {
      name: 'y', kind: 'output', dtype: 'FLOAT', shape: [4, 3], shapeSource: 'inferred', elements: 12, bytes: 48,
      producer: 'relu', consumers: [], stats: null,
    });
  }
  const wrong = popart.describeModel(symbolic, { inputShapes: { x: { dtype: 'BOOL', shape: [4, 3] } } });
  assert.equal(wrong.shapeInference.ok, false);
  assert.match(wrong.shapeInference.message, /Relu/);
});

test('an op the runtime does not know: described, shapeInference names it', () => {
  const b = new popart.Builder({ opsets: { 'ai.onnx': 13 } });
  const x = b.addInputTensor('FLOAT', [2, 3], 'x');
  const r = b.aiOnnx.relu([x], 'first');
  const [c] = b.customOp('MyCustomOp', 1, 'com.example', [r], { alpha: 0.5 }, 1, 'custom1');
  b.addOutputTensor(c);
  const bytes = b.getModelProto();
  b.dispose();
  const d = popart.describeModel(bytes);
  assert.equal(d.shapeInference.ok, false);
  assert.match(d.shapeInference.message, /MyCustomOp/);
  assert.match(d.shapeInference.message, /custom1/);
  const custom = d.nodes.find((n) => n.opType === 'MyCustomOp');
  assert.equal(custom.domain, 'com.example');
  assert.deepEqual(custom.attributes, [{ name: 'alpha', type: 'FLOAT', value: 0.5 }]);
  assert.equal(tensor(d, r).shapeSource, 'inferred');
  assert.deepEqual(tensor(d, r).shape, [2, 3]);
});

test('If: both bodies as subgraphs, with the runtime shapes; the If reads the outer x', () => {
  const body = (op, out) => graph(`${op}_body`, [node(op, '', ['x'], [out]), valueInfo(12, out, FLOAT, [2])]);
  const g = graph('main', [
    node('If', 'if', ['cond'], ['y'], [graphAttr('then_branch', body('Neg', 't')), graphAttr('else_branch', body('Abs', 'e'))]),
    valueInfo(11, 'cond', BOOL, []), valueInfo(11, 'x', FLOAT, [2]), valueInfo(12, 'y', FLOAT, [2])]);
  const d = popart.describeModel(model(g));
  assert.deepEqual(d.shapeInference, { ok: true, message: '' });
  const n = d.nodes[0];
  assert.deepEqual(n.attributes[0], { name: 'then_branch', type: 'GRAPH', value: { graph: 'Neg_body', nodes: 1 } });
  assert.equal(n.subgraphs.length, 2);
  assert.equal(n.subgraphs[1].nodes[0].name, 'Abs_0');
  assert.deepEqual(n.subgraphs[1].tensors.map((t) => [t.name, t.kind, t.shape, t.shapeSource]),
                   [['e', 'output', [2], 'inferred']]);
  assert.deepEqual(tensor(d, 'x').consumers, ['if']);
});

test('metadata, doc strings, support, and tensors read only inside nested bodies', () => {
  // then: a Loop (2 trips) adding z, an outer input read only there; a Foo op no runtime knows.
  const loopBody = graph('loop_body', [node('Identity', 'keep', ['cin'], ['cout']), node('Add', 'add', ['v', 'z'], ['vout']),
    valueInfo(11, 'i', 7, []), valueInfo(11, 'cin', BOOL, []), valueInfo(11, 'v', FLOAT, [2]),
    valueInfo(12, 'cout', BOOL, []), valueInfo(12, 'vout', FLOAT, [2])]);
  const then = graph('then', [node('Loop', 'loop', ['trips', '', 'x'], ['t'], [graphAttr('body', loopBody)]),
    valueInfo(12, 't', FLOAT, [2]), str(10, 'then doc')]);
  const els = graph('else', [node('Neg', 'neg', ['x'], ['e']), valueInfo(12, 'e', FLOAT, [2])]);
  const tripsInit = msg(5, [int(2, 7), int(7, 2), str(8, 'trips')]);  // an INT64 scalar initializer: 2
  const g = graph('main', [
    node('If', 'if', ['cond'], ['y'], [graphAttr('then_branch', then), graphAttr('else_branch', els), str(6, 'choose')]),
    tripsInit, valueInfo(11, 'cond', BOOL, []), valueInfo(11, 'x', FLOAT, [2]), valueInfo(11, 'z', FLOAT, [2]),
    valueInfo(12, 'y', FLOAT, [2]), str(10, 'graph doc')]);
  const bytes = new Uint8Array([...int(1, 8), ...msg(8, [str(1, ''), int(2, 13)]), ...str(6, 'model doc'),
    ...msg(14, [str(1, 'author'), str(2, 'me')]), ...msg(7, g)]);
  const d = popart.describeModel(bytes);
  assert.deepEqual(d.shapeInference, { ok: true, message: '' });
  assert.equal(d.docString, 'model doc');
  assert.equal(d.graphDocString, 'graph doc');
  assert.deepEqual(d.metadataProps, [{ key: 'author', value: 'me' }]);
  const n = d.nodes[0];
  assert.equal(n.docString, 'choose');
  assert.equal(n.supported, true);
  assert.deepEqual(n.implicitInputs, ['trips', 'x', 'z']);
  assert.deepEqual(n.subgraphs.map((sg) => sg.attribute), ['then_branch', 'else_branch']);
  assert.equal(n.subgraphs[0].docString, 'then doc');
  const loop = n.subgraphs[0].nodes[0];
  assert.deepEqual(loop.implicitInputs, ['z']);
  assert.equal(loop.subgraphs[0].attribute, 'body');
  assert.deepEqual(loop.subgraphs[0].nodes.map((m) => m.name), ['keep', 'add']);
  assert.deepEqual(tensor(d, 'z').consumers, ['if']);
  const b = new popart.Builder({ opsets: { 'ai.onnx': 13 } });
  const [c] = b.customOp('Foo', 1, 'com.example', [b.addInputTensor('FLOAT', [2], 'x')], {}, 1, 'foo');
  b.addOutputTensor(c);
  const unknown = popart.describeModel(b.getModelProto());
  b.dispose();
  assert.equal(unknown.nodes[0].supported, false);
});

test('tensorValue: every initializer of cnn_small as NumPy saw it; Constants in bodies; errors', () => {
  const file = path.join(ZOO, 'cnn_small.onnx');
  const ref = JSON.parse(fs.readFileSync(path.join(REFS, 'cnn_small.describe.json'), 'utf8'));
  const inits = Object.entries(ref.tensors).filter(([, t]) => t.kind === 'initializer');
  assert.ok(inits.length >= 4);
  for (const [name, r] of inits) {
    const v = popart.tensorValue(file, name);
    assert.equal(v.name, name);
    assert.equal(v.dtype, r.dtype, name);
    assert.deepEqual(v.shape, r.shape, name);
    assert.equal(v.data.length, r.stats.count, name);
    const xs = Array.from(v.data, Number);
    assert.equal(Math.min(...xs), r.stats.min, name);
    assert.equal(Math.max(...xs), r.stats.max, name);
    assert.ok(Math.abs(xs.reduce((a, x) => a + x, 0) / xs.length - r.stats.mean) < 1e-6, name);
  }
  const b = new popart.Builder({ opsets: { 'ai.onnx': 13 } });
  const x = b.addInputTensor('FLOAT', [3], 'x');
  const k = b.aiOnnx.constant(new popart.NDArray(new BigInt64Array([4n, -7n, 9n]), [3]), false, 'k');
  b.addOutputTensor(b.aiOnnx.add([x, b.aiOnnx.cast([k], 'FLOAT')]));
  const bytes = b.getModelProto();
  b.dispose();
  const kv = popart.tensorValue(bytes, k);
  assert.equal(kv.dtype, 'INT64');
  assert.deepEqual(Array.from(kv.data), [4n, -7n, 9n]);
  expectError(() => popart.tensorValue(bytes, 'x'), ["stores no value for tensor 'x'"]);
  expectError(() => popart.tensorValue(bytes, 3), ['name must be a string']);
  assert.equal(popart.tensorValue(bytes, k).data.length, 3);  // the module keeps working
});

test('empty and repeated node names get unique synthetic names', () => {
  const g = graph('g', [node('Relu', '', ['x'], ['a']), node('Relu', 'Relu_0', ['a'], ['b']),
                        node('Relu', 'dup', ['b'], ['c']), node('Relu', 'dup', ['c'], ['y']),
                        valueInfo(11, 'x', FLOAT, [4]), valueInfo(12, 'y', FLOAT, [4])]);
  const d = popart.describeModel(model(g));
  assert.deepEqual(d.nodes.map((n) => n.name), ['Relu_0_1', 'Relu_0', 'Relu_2', 'Relu_3']);
  assert.equal(new Set(d.nodes.map((n) => n.name)).size, 4);
  assert.equal(tensor(d, 'c').producer, 'Relu_2');
});

test('histogramBins, and statistics of a Builder initializer', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [4], 'x');
  const w = b.addInitializedInputTensor(new popart.NDArray(new Float32Array([0, 1, 2, 3]), [4]), 'w');
  b.addOutputTensor(b.aiOnnxOpset11.add([x, w]));
  const bytes = b.getModelProto();
  b.dispose();
  const d = popart.describeModel(bytes, { histogramBins: 3 });
  assert.deepEqual(tensor(d, 'w').stats, {
    count: 4, min: 0, max: 3, mean: 1.5, std: Math.sqrt(1.25), zeros: 1, nans: 0, infs: 0,
    histogram: { min: 0, max: 3, counts: [1, 1, 2] },
  });
  expectError(() => popart.describeModel(bytes, { histogramBins: 0 }), ['histogramBins must be an integer from 1']);
  expectError(() => popart.describeModel(bytes, { histogramBins: 1e6 }), ['histogramBins must be between 1 and 65536']);
  expectError(() => popart.describeModel(bytes, { bins: 3 }), ["unknown option 'bins'"]);
  expectError(() => popart.describeModel(bytes, { inputShapes: { x: { shape: [2.5] } } }), ['shape[0] must be an integer']);
});

test('corrupt bytes and a text file: an Error with the core message, and the module keeps working', () => {
  expectError(() => popart.describeModel(new Uint8Array([8, 1, 0x12, 4, 1, 2, 3])), ['Failed to load a ModelProto']);
  fs.mkdirSync(TMP, { recursive: true });
  const txt = path.join(TMP, 'describe_not_onnx.txt');
  fs.writeFileSync(txt, 'this is a text file, not an ONNX model\n');
  expectError(() => popart.describeModel(txt), ['Failed to load a ModelProto']);
  expectError(() => popart.describeModel(path.join(TMP, 'no_such_model.onnx')), ["describeModel: cannot read '"]);
  expectError(() => popart.describeModel(42), ['describeModel: expected ONNX model bytes']);
  assert.equal(popart.describeModel(symbolic).nodes[0].name, 'relu');  // still working
});
