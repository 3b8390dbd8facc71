// aiGraphcore.multiconv through JS (the method generated from the core's table, inputs as an array
// of [x, w(, b)] arrays, per-convolution arrays of arrays): values against a convolution computed
// here in double from its definition; PopART's errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPopart, expectError, runOutputs } from './helpers.mjs';

const popart = await createPopart();

/// 2-D convolution of x [N, C, H, W] by w [M, C / g, KH, KW] (+ b) in double, ONNX pads
/// [top, left, bottom, right], strides and dilations; groups from the shapes.
function conv2d(x, xs, w, ws, b, strides, pads, dil) {
  const [N, C, H, W] = xs, [M, Cg, KH, KW] = ws, G = C / Cg, Mg = M / G;
  const OH = Math.floor((H + pads[0] + pads[2] - ((KH - 1) * dil[0] + 1)) / strides[0]) + 1;
  const OW = Math.floor((W + pads[1] + pads[3] - ((KW - 1) * dil[1] + 1)) / strides[1]) + 1;
  const y = new Float64Array(N * M * OH * OW);
  for (let n = 0; n < N; ++n) for (let m = 0; m < M; ++m) for (let oh = 0; oh < OH; ++oh) for (let ow = 0; ow < OW; ++ow) {
    let acc = b ? b[m] : 0;
    const g = Math.floor(m / Mg);
    for (let c = 0; c < Cg; ++c) for (let kh = 0; kh < KH; ++kh) for (let kw = 0; kw < KW; ++kw) {
      const ih = oh * strides[0] + kh * dil[0] - pads[0], iw = ow * strides[1] + kw * dil[1] - pads[1];
      if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
      acc += x[((n * C + g * Cg + c) * H + ih) * W + iw] * w[((m * Cg + c) * KH + kh) * KW + kw];
    }
    y[((n * M + m) * OH + oh) * OW + ow] = acc;
  }
  return { y, shape: [N, M, OH, OW] };
}

const fill = (n, k) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7 + k));

test('multiconv runs each convolution with its own strides, pads and dilations', () => {
  const b = new popart.Builder();
  const xs0 = [1, 4, 6, 5], ws0 = [6, 2, 3, 3], xs1 = [2, 3, 5, 5], ws1 = [2, 3, 2, 2];
  const xv0 = fill(120, 1), wv0 = fill(108, 2), xv1 = fill(150, 3), wv1 = fill(24, 4), bv1 = new Float32Array([0.5, -1]);
  const x0 = b.addInputTensor('FLOAT', xs0), w0 = b.addInputTensor('FLOAT', ws0);
  const x1 = b.addInputTensor('FLOAT', xs1), w1 = b.addInputTensor('FLOAT', ws1), b1 = b.addInputTensor('FLOAT', [2]);
  const outs = b.aiGraphcore.multiconv([[x0, w0], [x1, w1, b1]], [[1, 2], [1, 1]], [], [[1, 0, 1, 2], [0, 0, 0, 0]],
                                       [], [[2, 1], [1, 2]]);
  assert.equal(outs.length, 2);
  const r0 = conv2d(xv0, xs0, wv0, ws0, null, [2, 1], [1, 0, 1, 2], [1, 2]);
  const r1 = conv2d(xv1, xs1, wv1, ws1, bv1, [1, 2], [0, 0, 0, 0], [1, 1]);
  assert.deepEqual(b.getTensorShape(outs[0]), r0.shape);
  assert.deepEqual(b.getTensorShape(outs[1]), r1.shape);
  const got = runOutputs(popart, b, outs, { [x0]: xv0, [w0]: wv0, [x1]: xv1, [w1]: wv1, [b1]: bv1 });
  for (const [k, r] of [[0, r0], [1, r1]]) {
    r.y.forEach((v, i) => assert.ok(Math.abs(got[k].data[i] - v) < 1e-4 * (1 + Math.abs(v)), `${outs[k]}[${i}]`));
  }
  b.dispose();
});

test('multiconv errors are PopART\'s', () => {
  const b = new popart.Builder();
  const d0 = b.addInputTensor('FLOAT', [1, 2, 4, 4]);
  const f0 = b.addInputTensor('FLOAT', [10, 2, 3, 3]);
  expectError(() => b.aiGraphcore.multiconv([[d0, f0], [d0, f0]], [[1, 1], [2, 2, 2]]),
              ['Length of dilations vector 3 != number of spatial dimensions 2']);
  expectError(() => b.aiGraphcore.multiconv([[d0, f0], [d0, f0]], [[1, 1], [2, 2], [3, 3]]),
              ['number of dilations parameter sets (3) does not match the number of input sets (2)']);
  expectError(() => b.aiGraphcore.multiconv([[d0], [d0, f0]]), ['must have at least two inputs - data and weights']);
  expectError(() => b.aiGraphcore.multiconv([[d0, f0, d0, f0]]), ['can have at most three inputs']);
  // enableConvDithering takes booleans; a wrong count is PopART's parameter-set error.
  expectError(() => b.aiGraphcore.multiconv([[d0, f0]], [], [], [], [], [], [], [], null, null, null, [true, false]),
              ['number of enableConvDithering parameter sets (2)']);
  b.dispose();
});
