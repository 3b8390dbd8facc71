// The Run tab's drawing pad (as ONNX Runtime Web's digit demo): draw with a mouse, pen or finger;
// each stroke's end hands the drawing's ink (coverage 0..1 per canvas pixel) to `onInk`, which
// prepares it for the model and runs it. Pen / eraser / clear. And the preview of what an image
// input receives (a drawing or an image file after its preprocessing), with the steps in words.
import { h, cssVar } from './util.js';

const SIZE = 224;  // the canvas's pixels (and CSS pixels)

/// {el, clear()}; onInk(ink, width, height, version) after every stroke, onClear() after Clear.
export function createDrawPad({ onInk, onClear }) {
  // About the stroke of the digits' pen: a quarter to a fifth of a digit drawn over most of the pad.
  const penWidth = Math.round(SIZE / 7);
  const canvas = h('canvas.draw-canvas', {
    width: SIZE, height: SIZE, testid: 'draw-canvas', role: 'img', tabindex: 0,
    'aria-label': 'Drawing pad: draw a digit with the mouse, a pen or a finger; it is classified when you lift it',
    dataset: { penWidth: String(penWidth), strokes: '0', version: '0' },
  });
  const ctx = canvas.getContext('2d');
  const penBtn = h('button', { type: 'button', 'aria-pressed': 'true', testid: 'draw-pen' }, 'Pen');
  const eraserBtn = h('button', { type: 'button', 'aria-pressed': 'false', testid: 'draw-eraser' }, 'Eraser');
  const clearBtn = h('button', { type: 'button', testid: 'draw-clear' }, 'Clear');
  let erasing = false;
  let version = 0;
  let last = null;
  const setTool = (erase) => {
    erasing = erase;
    penBtn.setAttribute('aria-pressed', String(!erase));
    eraserBtn.setAttribute('aria-pressed', String(erase));
  };
  penBtn.addEventListener('click', () => setTool(false));
  eraserBtn.addEventListener('click', () => setTool(true));

  const at = (e) => {
    const r = canvas.getBoundingClientRect();
    return [((e.clientX - r.left) * SIZE) / r.width, ((e.clientY - r.top) * SIZE) / r.height];
  };
  const segment = (a, b) => {
    // The ink is what the model reads (the alpha channel); its colour is only for the eye.
    ctx.globalCompositeOperation = erasing ? 'destination-out' : 'source-over';
    ctx.strokeStyle = cssVar('--fg', '#1d2330');
    ctx.lineWidth = erasing ? penWidth * 2 : penWidth;
    ctx.lineCap = ctx.lineJoin = 'round';
    ctx.beginPath();
    if (Math.hypot(b[0] - a[0], b[1] - a[1]) < 0.5) {
      // A dot (a stroke of no length draws nothing).
      ctx.fillStyle = ctx.strokeStyle;
      ctx.arc(a[0], a[1], ctx.lineWidth / 2, 0, 2 * Math.PI);
      ctx.fill();
      return;
    }
    ctx.moveTo(...a);
    ctx.lineTo(...b);
    ctx.stroke();
  };
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    canvas.setPointerCapture(e.pointerId);
    last = at(e);
    segment(last, last);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!last) return;
    const p = at(e);
    segment(last, p);
    last = p;
  });
  const end = () => {
    if (!last) return;
    last = null;
    version += 1;
    canvas.dataset.strokes = String(Number(canvas.dataset.strokes) + 1);
    canvas.dataset.version = String(version);
    const px = ctx.getImageData(0, 0, SIZE, SIZE).data;
    const ink = new Float32Array(SIZE * SIZE);
    for (let i = 0; i < ink.length; ++i) ink[i] = px[i * 4 + 3] / 255;
    onInk(ink, SIZE, SIZE, version);
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  const clear = () => {
    ctx.clearRect(0, 0, SIZE, SIZE);
    version += 1;
    Object.assign(canvas.dataset, { strokes: '0', version: String(version) });
  };
  clearBtn.addEventListener('click', () => { clear(); onClear(); });
  const el = h('div.draw-pad', {}, canvas,
    h('div.button-row', { role: 'group', 'aria-label': 'Drawing tools' }, penBtn, eraserBtn, clearBtn));
  return { el, clear };
}

/// The preview of an image input: the one sample it receives, drawn at its H×W (1 channel: ink
/// dark on white; 3 channels: the RGB before normalisation), and the preprocessing in words. Its
/// data attributes hold the size, the source and (for up to 4,096 values) the values themselves.
/// `keep`: the preview keeps its place while empty (beside the drawing pad: nothing moves while
/// one draws).
export function createImagePreview(layout, { keep = false } = {}) {
  const { height: H, width: W, channels: C } = layout;
  const canvas = h('canvas', { width: W, height: H, testid: 'image-preview', role: 'img', hidden: !keep,
                               'aria-label': 'What the input receives: nothing yet',
                               dataset: { width: String(W), height: String(H), channels: String(C) } });
  const scale = Math.max(1, Math.floor(Math.min(160, Math.max(96, W * 4)) / W));
  canvas.style.width = `${W * scale}px`;
  const note = h('p.muted.small.preview-note', {}, keep ? 'What the model receives appears here.' : '');
  const el = h('div.image-preview', {}, canvas, note);
  return {
    el,
    /// `view`: H×W values 0..1 (1 channel) or RGBA bytes (3 channels); `values`: the input sample.
    show({ view, values, note: text, source }) {
      const ctx = canvas.getContext('2d');
      const img = ctx.createImageData(W, H);
      if (C === 3) img.data.set(view);
      else {
        for (let i = 0; i < H * W; ++i) {
          const g = Math.round(255 * (1 - Math.min(1, Math.max(0, view[i]))));
          img.data.set([g, g, g, 255], i * 4);
        }
      }
      ctx.putImageData(img, 0, 0);
      canvas.hidden = false;
      canvas.dataset.source = source;
      if (values.length <= 4096) canvas.dataset.values = Array.from(values, (v) => Number(v.toFixed(4))).join(',');
      else delete canvas.dataset.values;
      if (C === 3) {
        const means = [0, 1, 2].map((c) => {
          let s = 0;
          for (let i = c * H * W; i < (c + 1) * H * W; ++i) s += values[i];
          return s / (H * W);
        });
        canvas.dataset.channelMeans = means.map((m) => m.toFixed(4)).join(',');
      }
      canvas.setAttribute('aria-label', `What the input receives (${W}×${H}, ${C === 3 ? 'RGB' : 'one channel'}): ${text}`);
      note.textContent = `What the model receives, ${W}×${H}${C === 3 ? ' RGB' : ''}: ${text}.`;
    },
    hide() {
      canvas.getContext('2d').clearRect(0, 0, W, H);
      canvas.hidden = !keep;
      canvas.setAttribute('aria-label', 'What the input receives: nothing yet');
      note.textContent = keep ? 'What the model receives appears here.' : '';
      delete canvas.dataset.source;
      delete canvas.dataset.values;
    },
  };
}
