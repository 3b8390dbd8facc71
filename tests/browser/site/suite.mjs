// The checks run in the page and in a module Web Worker: build and run a graph, an error that
// leaves the module working, a reference-zoo model fetched over HTTP matching PyTorch, and the
// same model through the pthread build on two threads.
import { createPopart } from '/pkg/index.mjs';

export async function runSuite() {
  const results = [];
  const check = (name, ok, detail = '') => results.push({ name, ok: !!ok, detail: String(detail) });
  const popart = await createPopart();

  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [2, 3], 'x');
  const y = b.aiOnnx.add([x, x]);
  b.addOutputTensor(y);
  const s = new popart.InferenceSession(b.getModelProto(), new popart.DataFlow(2, [y]), popart.DeviceManager().createCpuDevice());
  s.prepareDevice();
  const anchors = s.initAnchorArrays();
  s.run(new popart.PyStepIO({ x: Float32Array.from({ length: 12 }, (_, i) => i) }, anchors));
  check('builder add graph', anchors[y].data[11] === 22 && anchors[y].shape.join() === '2,2,3', anchors[y].data);

  let msg = '';
  try { b.aiOnnx.add([x]); } catch (e) { msg = e instanceof Error ? e.message : `not an Error: ${e}`; }
  check('C++ error as JS Error', msg.includes('Add has invalid number of inputs 1. Must be between 2..2'), msg);
  check('module works after an error', b.aiOnnx.relu([x]) === 'Relu:0');
  s.dispose();
  b.dispose();

  // Issue 9: sizes that used to wrap in the 32-bit module, allocations over the memory limit, and
  // the module still working after each error.
  const goodRun = (p) => {
    const gb = new p.Builder();
    const gx = gb.addInputTensor('FLOAT', [3], 'x');
    const gy = gb.aiOnnx.add([gx, gx]);
    gb.addOutputTensor(gy);
    const gs = new p.InferenceSession(gb.getModelProto(), new p.DataFlow(1, [gy]), p.DeviceManager().createCpuDevice());
    gs.prepareDevice();
    const ga = gs.initAnchorArrays();
    gs.run(new p.PyStepIO({ [gx]: new Float32Array([1, 2, 3]) }, ga));
    gs.dispose();
    gb.dispose();
    return ga[gy].data.join() === '2,4,6';
  };
  const expandSum = (p, dims) => {
    const eb = new p.Builder();
    const ai = eb.aiOnnxOpset13;
    const ex = eb.addInputTensor('FLOAT', [1], 'x');
    const shape = ai.constant(new p.NDArray(BigInt64Array.from(dims.map(BigInt)), [dims.length], 'INT64'));
    const ey = ai.reducesum([ai.expand([ex, shape])], 0);
    eb.addOutputTensor(ey);
    const proto = eb.getModelProto();
    eb.dispose();
    return new p.InferenceSession(proto, new p.DataFlow(1, [ey]), p.DeviceManager().createCpuDevice());
  };
  const errorOf = (fn) => { try { fn(); return ''; } catch (e) { return e instanceof Error ? e.message : `not an Error: ${e}`; } };
  const big = expandSum(popart, [32768, 32768]);
  msg = errorOf(() => big.prepareDevice());
  big.dispose();
  check('4 GiB intermediate refused at prepareDevice', msg.includes('more than the memory limit of 2.00 GiB') &&
        msg.includes('FLOAT [32768 32768] 4.00 GiB'), msg);
  check('module works after the memory-limit error', goodRun(popart));
  msg = errorOf(() => new popart.TensorInfo('FLOAT', [4294967296, 4294967296]));
  check('overflowing shape refused', msg.includes('element count overflows'), msg);
  const small = await createPopart({ maximumMemory: 64 * 1024 * 1024 });
  const tight = expandSum(small, [4000, 4000]);  // under the limit, over what the heap can still give
  msg = errorOf(() => tight.prepareDevice());
  tight.dispose();
  check('64 MiB module: allocation failure is an error', msg.includes('out of host memory'), msg);
  check('64 MiB module works after running out', goodRun(small));

  // Issue 10: the IPU model's reports; autoReport.all writes nothing in a browser (no file
  // system) and the reports are read through the API; CBOR as bytes.
  {
    const rb = new popart.Builder();
    const rx = rb.addInputTensor('FLOAT', [2, 3], 'x');
    const ry = rb.aiOnnx.relu([rx]);
    rb.addOutputTensor(ry);
    const rs = new popart.InferenceSession(rb.getModelProto(), new popart.DataFlow(1, [ry]),
                                           popart.DeviceManager().createIpuModelDevice(), undefined,
                                           { engineOptions: { 'autoReport.all': 'true', 'autoReport.directory': '/r' } });
    rb.dispose();
    msg = errorOf(() => {
      rs.prepareDevice();
      rs.run(new popart.PyStepIO({ [rx]: new Float32Array(6) }, rs.initAnchorArrays()), 'browser_run');
    });
    const r = msg ? null : rs.getReport();
    check('IPU model reports with autoReport.all', r && r.compilation.target.numTiles === 4 &&
          r.execution.runs[0].name === 'browser_run' && rs.getGraphReport(true) instanceof Uint8Array &&
          /Memory Usage:/.test(rs.getSummaryReport()), msg || JSON.stringify(r?.compilation.target));
    rs.dispose();
  }

  const [model, input, ref] = await Promise.all(['mlp.onnx', 'mlp.input.bin', 'mlp.output.bin']
    .map((f) => fetch(`/zoo/${f}`).then((r) => r.arrayBuffer())));
  const m = new popart.InferenceSession(new Uint8Array(model), new popart.DataFlow(1, ['output']),
                                        popart.DeviceManager().createCpuDevice());
  m.prepareDevice();
  const out = m.initAnchorArrays();
  m.run(new popart.PyStepIO({ input: new Float32Array(input) }, out));
  const want = new Float32Array(ref);
  let worst = 0;
  for (let i = 0; i < want.length; ++i) worst = Math.max(worst, Math.abs(out.output.data[i] - want[i]));
  check('zoo mlp matches PyTorch within 1e-4', out.output.data.length === want.length && worst <= 1e-4, worst);
  m.dispose();

  // The pthread build (the page is cross-origin isolated): the same model on two threads.
  const mt = await createPopart({ threads: 2 });
  const t = new mt.InferenceSession(new Uint8Array(model), new mt.DataFlow(1, ['output']), mt.DeviceManager().createCpuDevice());
  t.prepareDevice();
  const outT = t.initAnchorArrays();
  t.run(new mt.PyStepIO({ input: new Float32Array(input) }, outT));
  let worstT = 0;
  for (let i = 0; i < want.length; ++i) worstT = Math.max(worstT, Math.abs(outT.output.data[i] - want[i]));
  check('two threads (pthread build): zoo mlp matches PyTorch', mt.getNumThreads() === 2 && worstT <= 1e-4,
        `threads ${mt.getNumThreads()}, max abs difference ${worstT}`);
  t.dispose();
  return results;
}
