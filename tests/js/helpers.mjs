// Shared set-up of the node:test suites: the package built by the wasm preset, the reference zoo.
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const PKG = process.env.POPART_WASM_PKG ?? path.join(ROOT, 'build/wasm/pkg');
export const ZOO = process.env.POPART_ZOO_DIR ?? path.join(ROOT, 'build/zoo');
export const TMP = process.env.POPART_JS_TMP ?? path.join(ROOT, 'build/wasm/tmp');

const mod = await import(pathToFileURL(path.join(PKG, 'index.mjs')).href);
/// POPART_TEST_MAXIMUM_MEMORY=<bytes> runs the suites on modules with that maximum memory (the
/// out-of-memory paths; scripts/test.sh runs reliability.test.mjs so), unless a test asks for its own.
const testMaximumMemory = process.env.POPART_TEST_MAXIMUM_MEMORY ? Number(process.env.POPART_TEST_MAXIMUM_MEMORY)
                                                                 : undefined;
export const createPopart = (options = {}) =>
  mod.createPopart(testMaximumMemory && options.maximumMemory === undefined && !(options.threads > 1)
    ? { ...options, maximumMemory: testMaximumMemory } : options);
/// The default memory limit of a module made by createPopart() in this run.
export const DEFAULT_LIMIT = testMaximumMemory ? Math.floor(testMaximumMemory / 65536) * 65536 : 2 * 1024 ** 3;

/// Asserts that `fn` throws a JS Error whose message contains every part.
export function expectError(fn, parts) {
  let err = null;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err !== null, `expected an error containing ${JSON.stringify(parts)}, but nothing was thrown`);
  assert.ok(err instanceof Error, `expected a JS Error, got ${typeof err}: ${String(err)}`);
  for (const p of parts) {
    assert.ok(err.message.includes(p), `error message\n  ${err.message}\ndoes not contain\n  ${p}`);
  }
}

/// The Add model of the native error table: a, b FLOAT [2 3] -> Add:0.
export function addModel(popart) {
  const builder = new popart.Builder();
  const ai = builder.aiOnnxOpset11;
  const a = builder.addInputTensor(new popart.TensorInfo('FLOAT', [2, 3]), 'a');
  const b = builder.addInputTensor(new popart.TensorInfo('FLOAT', [2, 3]), 'b');
  const out = ai.add([a, b]);
  builder.addOutputTensor(out);
  const proto = builder.getModelProto();
  builder.dispose();
  return { proto, a, b, out };
}

export function cpu(popart) {
  return popart.DeviceManager().createCpuDevice();
}

/// Marks `outs` as outputs of `b`, runs its model once on the CPU with `feeds` ({id: typed
/// array}) and the session options `userOptions`, and returns each output's {data (an Array),
/// shape}, in order.
export function runOutputs(popart, b, outs, feeds, userOptions = undefined) {
  for (const o of outs) b.addOutputTensor(o);
  const s = new popart.InferenceSession({ fnModel: b.getModelProto(), dataFlow: new popart.DataFlow(1, outs),
                                          deviceInfo: cpu(popart), userOptions });
  try {
    s.prepareDevice();
    const anchors = s.initAnchorArrays();
    s.run(new popart.PyStepIO(feeds, anchors));
    return outs.map((o) => ({ data: Array.from(anchors[o].data), shape: anchors[o].shape }));
  } finally {
    s.dispose();
  }
}
