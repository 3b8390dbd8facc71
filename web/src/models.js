// Models the page builds itself with the runtime's Builder (in the runtime worker): the default
// example (a small CNN for the 8x8 handwritten digits), a generated large graph, and the loss
// appended to a user's model for training.

import { xorshift32 } from './tensors.js';

/// A seeded uniform generator in [0, 1), so the example's weights are the same on every load.
function rng(seed) {
  const bits = xorshift32(seed);
  return () => bits() / 4294967296;
}

function heUniform(popart, b, shape, fanIn, rand, name) {
  const n = shape.reduce((a, c) => a * c, 1);
  const limit = Math.sqrt(6 / fanIn);
  const v = new Float32Array(n);
  for (let i = 0; i < n; ++i) v[i] = (2 * rand() - 1) * limit;
  return b.addInitializedInputTensor(new popart.NDArray(v, shape, 'FLOAT'), name);
}

function zeros(popart, b, n, name) {
  return b.addInitializedInputTensor(new popart.NDArray(new Float32Array(n), [n], 'FLOAT'), name);
}

/// The default example: conv(16) - relu - maxpool - conv(32) - relu - maxpool - fc(64) - relu -
/// fc(10) - softmax over [batch, 1, 8, 8] images (the same network as native/examples/train_digits).
/// With `withLoss`, a `label` input and an nllloss (Mean) are appended for training.
export function buildDigitsCnn(popart, { batch = 32, withLoss = false, seed = 20261123 } = {}) {
  const b = new popart.Builder();
  try {
    const ai = b.aiOnnxOpset13;
    const rand = rng(seed);
    const x = b.addInputTensor('FLOAT', [batch, 1, 8, 8], 'image');
    let h = ai.conv([x, heUniform(popart, b, [16, 1, 3, 3], 9, rand, 'conv1.w'), zeros(popart, b, 16, 'conv1.b')],
                    [1, 1], 1, [3, 3], [1, 1, 1, 1], [1, 1], 'conv1');
    h = ai.maxpool([ai.relu([h], 'relu1')], 1, [2, 2], 0, undefined, undefined, 0, [2, 2], 'pool1')[0];
    h = ai.conv([h, heUniform(popart, b, [32, 16, 3, 3], 144, rand, 'conv2.w'), zeros(popart, b, 32, 'conv2.b')],
                [1, 1], 1, [3, 3], [1, 1, 1, 1], [1, 1], 'conv2');
    h = ai.maxpool([ai.relu([h], 'relu2')], 1, [2, 2], 0, undefined, undefined, 0, [2, 2], 'pool2')[0];
    h = ai.flatten([h], 1, 'flatten');
    h = ai.relu([ai.gemm([h, heUniform(popart, b, [128, 64], 128, rand, 'fc1.w'), zeros(popart, b, 64, 'fc1.b')],
                         undefined, undefined, undefined, undefined, 'fc1')], 'relu3');
    const logits = ai.gemm([h, heUniform(popart, b, [64, 10], 64, rand, 'fc2.w'), zeros(popart, b, 10, 'fc2.b')],
                           undefined, undefined, undefined, undefined, 'fc2');
    const probs = ai.softmax([logits], 1, 'probs');
    b.addOutputTensor(probs);
    let loss = null, label = null;
    if (withLoss) {
      label = b.addInputTensor('INT32', [batch], 'label');
      loss = b.aiGraphcore.nllloss([probs, label], popart.ReductionType.Mean, undefined, undefined, 'loss');
      b.addOutputTensor(loss);
    }
    return { bytes: b.getModelProto(), meta: { kind: 'digits-cnn', batch, input: x, probs, label, loss, classes: 10 } };
  } finally {
    b.dispose();
  }
}

/// A generated graph of `n` nodes (a long chain with a branch every 8 nodes) for the large-graph
/// view: [1, 16] float input, Relu / Tanh / Sigmoid / Add nodes.
export function buildChain(popart, n = 2000) {
  const b = new popart.Builder();
  try {
    const ai = b.aiOnnxOpset13;
    let h = b.addInputTensor('FLOAT', [1, 16], 'x');
    let count = 0;
    while (count < n) {
      if (n - count >= 3 && count % 8 === 0) {
        const a = ai.relu([h], `branch${count}.relu`);
        const s = ai.sigmoid([h], `branch${count}.sigmoid`);
        h = ai.add([a, s], `branch${count}.add`);
        count += 3;
      } else {
        h = (count % 2 ? ai.tanh : ai.relu)([h], `n${count}`);
        count += 1;
      }
    }
    b.addOutputTensor(h);
    return { bytes: b.getModelProto(), meta: { kind: 'chain', nodes: count } };
  } finally {
    b.dispose();
  }
}

function tensorOf(description, name) {
  return description.tensors.find((t) => t.name === name);
}

/// Prepares a model for a TrainingSession. `loss` = {kind: 'nllloss' | 'l1loss' | 'identityloss' |
/// 'existing', output, tensor, reduction}. Returns {bytes, loss, probs, classes, input, label,
/// labelArray, inputShapes}.
/// What a class-score output holds: 'probs' (a Softmax's output), 'logprobs' (a LogSoftmax's), or
/// 'logits' (anything else).
export function scoreKindOf(d, out) {
  const producer = d.nodes.find((n) => n.outputs.includes(out));
  return producer?.opType === 'Softmax' ? 'probs' : producer?.opType === 'LogSoftmax' ? 'logprobs' : 'logits';
}

/// -log p(label) of one sample's class scores (`kind` as scoreKindOf), in double precision.
export function sampleNll(scores, offset, classes, label, kind) {
  if (kind === 'probs') return -Math.log(Math.max(scores[offset + label], 1e-12));
  if (kind === 'logprobs') return -scores[offset + label];
  let max = -Infinity;
  for (let j = 0; j < classes; ++j) max = Math.max(max, scores[offset + j]);
  let sum = 0;
  for (let j = 0; j < classes; ++j) sum += Math.exp(scores[offset + j] - max);
  return max + Math.log(sum) - scores[offset + label];
}

export function appendLoss(popart, model, loss, batchSize, data) {
  const d = model.description;
  if (model.example?.kind === 'digits-cnn') {
    const built = buildDigitsCnn(popart, { batch: batchSize, withLoss: true });
    const m = built.meta;
    return { bytes: built.bytes, loss: m.loss, probs: m.probs, classes: 10, input: m.input, label: m.label, labelArray: Int32Array };
  }
  if (d.inputs.length === 0) throw new Error('the model has no inputs to feed');
  const input = d.inputs[0];
  const inT = tensorOf(d, input);
  if (!inT || !Array.isArray(inT.shape) || inT.shape.some((x) => typeof x !== 'number')) {
    throw new Error(`input '${input}' has no fixed shape (${JSON.stringify(inT?.shape)}); training needs one`);
  }
  const features = inT.shape.slice(1).reduce((a, c) => a * c, 1);
  if (data.features !== features) {
    throw new Error(`the data has ${data.features} features per sample; input '${input}' ${JSON.stringify(inT.shape)} ` +
                    `takes ${features}`);
  }
  if (inT.shape[0] !== batchSize) {
    throw new Error(`input '${input}' has a fixed batch of ${inT.shape[0]}; set the batch size to ${inT.shape[0]}`);
  }
  const b = new popart.Builder(model.bytes);
  try {
    const red = popart.ReductionType[loss.reduction ?? 'Mean'];
    const out = loss.output ?? d.outputs[0];
    let lossId, probs = null, classes = null, label = null, labelArray = null, scoreKind = 'probs';
    if (loss.kind === 'nllloss') {
      const o = tensorOf(d, out);
      if (!o || !Array.isArray(o.shape) || o.shape.length !== 2) {
        throw new Error(`nllloss needs class probabilities [batch, classes]; '${out}' is ${JSON.stringify(o?.shape)}`);
      }
      label = b.addInputTensor('INT32', [o.shape[0]], 'label');
      // PopART's nllloss takes probabilities (or log-probabilities): an output that is neither
      // (logits, as cnn_small's) gets a Softmax in the training graph; the accuracy and the
      // validation read the model's own output (`probs`), whose kind says how to score it.
      scoreKind = scoreKindOf(d, out);
      const p = scoreKind === 'logits' ? b.aiOnnx.softmax([out], 1, 'loss_probs') : out;
      lossId = b.aiGraphcore.nllloss([p, label], red, undefined, scoreKind === 'logprobs', 'loss');
      probs = out;
      classes = o.shape[1];
      labelArray = Int32Array;
    } else if (loss.kind === 'l1loss') {
      lossId = b.aiGraphcore.l1loss([out], loss.lambda ?? 1, red, 'loss');
    } else if (loss.kind === 'identityloss') {
      lossId = b.aiGraphcore.identityloss([out], red, 'loss');
    } else if (loss.kind === 'existing') {
      lossId = loss.tensor;
      const t = tensorOf(d, lossId);
      if (!t) throw new Error(`the model has no tensor '${lossId}'`);
      if (Array.isArray(t.shape) && t.shape.length !== 0) throw new Error(`loss '${lossId}' must be a scalar; it is ${JSON.stringify(t.shape)}`);
      // A loss in the model (a checkpoint of this page, say) reads its labels from the model's
      // other input; an Nll loss's first input is the class probabilities (for the accuracy).
      const others = d.inputs.filter((n) => n !== input);
      if (others.length > 1) throw new Error(`the model has inputs ${others.join(', ')} besides '${input}'; the page feeds one label input`);
      if (others.length === 1) {
        label = others[0];
        const lt = tensorOf(d, label);
        labelArray = lt?.dtype === 'INT32' ? Int32Array : lt?.dtype === 'FLOAT' ? Float32Array : null;
        if (!labelArray) throw new Error(`label input '${label}' is ${lt?.dtype}; the page feeds INT32 or FLOAT labels`);
        if (Array.isArray(lt.shape) && lt.shape[0] !== batchSize) {
          throw new Error(`label input '${label}' has a fixed batch of ${lt.shape[0]}; set the batch size to ${lt.shape[0]}`);
        }
      }
      const producer = d.nodes.find((n) => n.outputs.includes(lossId));
      if (producer && /^Nll/.test(producer.opType)) {
        const p = tensorOf(d, producer.inputs[0]);
        if (Array.isArray(p?.shape) && p.shape.length === 2) { probs = producer.inputs[0]; classes = p.shape[1]; }
        if (producer.attributes.some((a) => a.name === 'inputIsLogProbability' && a.value === 1)) scoreKind = 'logprobs';
      }
    } else {
      throw new Error(`unknown loss '${loss.kind}'`);
    }
    if (loss.kind !== 'existing') b.addOutputTensor(lossId);
    return { bytes: b.getModelProto(), loss: lossId, probs, scoreKind, classes, input, label, labelArray };
  } finally {
    b.dispose();
  }
}
