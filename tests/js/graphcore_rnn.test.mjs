// aiGraphcore lstm, ctcloss and ctcbeamsearchdecoder through JS (methods generated from the core's
// table): one LSTM step in Poplar's gate order, a one-step CTC loss and a two-step decoding,
// computed here by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, runOutputs } from './helpers.mjs';

const popart = await createPopart();

/// Each output's data (an Array).
const run = (b, outs, feeds) => runOutputs(popart, b, outs, feeds).map((r) => r.data);

const sig = (x) => 1 / (1 + Math.exp(-x));

test('lstm: gates forget, input, candidate, output; [output, cell_state]', () => {
  const b = new popart.Builder();
  const x = b.addInputTensor('FLOAT', [1, 1, 1]);
  const w = b.addInputTensor('FLOAT', [4, 2, 1]);
  const bias = b.addInputTensor('FLOAT', [4, 1]);
  const [y, c] = b.aiGraphcore.lstm([x, w, bias], 0);
  assert.deepEqual(b.getTensorShape(y), [1, 1]);
  // pre-activations: forget 0.5 x, input -x, candidate 2 x + 1, output 0.25 (x = 1, h0 = c0 = 0)
  const [ry, rc] = run(b, [y, c], { [x]: new Float32Array([1]), [w]: new Float32Array([0.5, 0, -1, 0, 2, 0, 0, 0]),
                                     [bias]: new Float32Array([0, 0, 1, 0.25]) });
  const cell = sig(-1) * Math.tanh(3);
  assert.ok(Math.abs(rc[0] - cell) < 1e-6);
  assert.ok(Math.abs(ry[0] - sig(0.25) * Math.tanh(cell)) < 1e-6);
  b.dispose();
});

test('ctcloss and ctcbeamsearchdecoder', () => {
  const b = new popart.Builder();
  const lp = b.addInputTensor('FLOAT', [2, 1, 2]);
  const tg = b.addInputTensor('UINT32', [1, 1]);
  const len = b.addInputTensor('UINT32', [1]);
  const loss = b.aiGraphcore.ctcloss([lp, tg, len, len], 'Sum');
  const [probs, lengths, labels] = b.aiGraphcore.ctcbeamsearchdecoder([lp, len], 0, 10, 1);
  assert.equal(b.getTensorDtypeString(lengths), 'uint32');
  // One step (lengths [1]) with p(blank) 0.4: "1" has probability 0.6 (its loss -log 0.6) and is
  // the best decoding (the empty one has 0.4).
  const [rl, rp, rlen, rlab] = run(b, [loss, probs, lengths, labels], {
    [lp]: new Float32Array([0.4, 0.6, 0.3, 0.7].map(Math.log)), [tg]: new Uint32Array([1]),
    [len]: new Uint32Array([1]) });
  assert.ok(Math.abs(rl[0] + Math.log(0.6)) < 1e-6);
  assert.ok(Math.abs(rp[0] - Math.log(0.6)) < 1e-6);
  assert.deepEqual(rlen, [1]);
  assert.deepEqual(rlab, [1, 0]);
  b.dispose();
});
