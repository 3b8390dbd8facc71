// Shapes for graph inputs whose dims are not numbers (a symbolic `dim_param` such as "batch", or
// no value at all), which the runtime needs before it can prepare a session (PopART's
// InputShapeInfo). The page shows one field per such input, pre-filled by guessDims, remembered per
// model in localStorage, and sends the shapes with describe / run / train.

/// True for a dim the runtime cannot use as it is.
export const isOpenDim = (d) => typeof d !== 'number' || d < 0;

/// True when `shape` (a description's tensor shape) has a dim that is not a number.
export const hasOpenDims = (shape) => Array.isArray(shape) && shape.some(isOpenDim);

const BATCH = /^(n|b|bs|batch.*|.*_batch|num_?\w*|unk__\d+_0)$/i;
const SPATIAL = /^(h|w|height|width|.*_height|.*_width|img_?\w*|image_?\w*|size)$/i;
const CHANNEL = /^(c|ch|channels?|.*_channels?)$/i;
const AUDIO = /^(samples?|audio\w*|wave\w*|signal\w*)$/i;

/// A sensible size for each open dim of `shape`: 1 for the batch (the first dim, or a batch-like
/// name), 224 for image height / width (names, or dims 2 and 3 of a rank-4 input), 3 for channels,
/// 16000 for audio samples, else 16 (a sequence length, say). `named` maps dim names already
/// chosen (by another input) to their values, so a name shared by inputs gets one value.
export function guessDims(shape, named = {}) {
  return shape.map((d, i) => {
    if (!isOpenDim(d)) return d;
    const name = typeof d === 'string' ? d : '';
    if (name && named[name] !== undefined) return named[name];
    if (i === 0 || BATCH.test(name)) return 1;
    if (CHANNEL.test(name)) return 3;
    if (SPATIAL.test(name) || (shape.length === 4 && i >= 2)) return 224;
    if (AUDIO.test(name)) return 16000;
    return 16;
  });
}

/// "1,3,224,224" -> [1, 3, 224, 224] for an input of `rank` dims whose fixed dims must stay as in
/// `shape`; throws an Error saying what is wrong.
export function parseDims(text, shape, input) {
  const parts = String(text).split(/[,×x\s]+/).filter((s) => s !== '');
  if (parts.length !== shape.length) {
    throw new Error(`input '${input}' has ${shape.length} dims (${shapeLabel(shape)}); '${text}' gives ${parts.length}`);
  }
  return parts.map((p, i) => {
    if (!/^\d+$/.test(p) || Number(p) < 1) throw new Error(`input '${input}': dim ${i} must be a positive whole number, got '${p}'`);
    const v = Number(p);
    if (!isOpenDim(shape[i]) && v !== shape[i]) {
      throw new Error(`input '${input}': dim ${i} is fixed at ${shape[i]} by the model, got ${v}`);
    }
    return v;
  });
}

/// The model's shape with open dims by name ("batch×3×height×width", '?' for unnamed ones).
export function shapeLabel(shape) {
  return shape.map((d) => (typeof d === 'string' && d !== '' ? d : isOpenDim(d) ? '?' : String(d))).join('×');
}

const storageKey = (model) => `popart.inputShapes:${model.name}:${model.bytes}`;

/// The shapes remembered for `model` ({name, bytes}), or null.
export function recallShapes(model) {
  try {
    const v = JSON.parse(localStorage.getItem(storageKey(model)) ?? 'null');
    return v && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}

export function rememberShapes(model, shapes) {
  try { localStorage.setItem(storageKey(model), JSON.stringify(shapes)); } catch { /* private mode, full */ }
}

/// The initial shapes of a model's open inputs: remembered ones that still fit, else guesses.
/// Returns {name: [dims]} (empty when every input has a fixed shape).
export function initialShapes(model) {
  const d = model.description;
  const tm = new Map(d.tensors.map((t) => [t.name, t]));
  const remembered = recallShapes(model) ?? {};
  const named = {};
  const out = {};
  for (const input of d.inputs) {
    const shape = tm.get(input)?.shape;
    if (!hasOpenDims(shape)) continue;
    let dims = null;
    try {
      if (remembered[input]) dims = parseDims(remembered[input].join(','), shape, input);
    } catch { dims = null; }
    dims ??= guessDims(shape, named);
    shape.forEach((s, i) => { if (typeof s === 'string' && s !== '') named[s] ??= dims[i]; });
    out[input] = dims;
  }
  return out;
}
