// Images as model inputs, shared by the Train and Run tabs: which inputs hold an image, the
// built-in digits fitted to a model's input, a drawing or an image file turned into an input
// tensor the way the training data was made, and torchvision's ImageNet preprocessing. Every
// conversion says in words what it did (`note`), for the page to show.

/// The class names of the built-in digits.
export const DIGIT_CLASSES = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
/// torchvision's ImageNet normalisation (transforms.Normalize) and its eval resize / crop ratio
/// (Resize(256) then CenterCrop(224)).
export const IMAGENET = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], resizeRatio: 256 / 224 };

/// How a FLOAT input holds one image: [N, C, H, W] with C 1 or 3 and H, W >= 8, or a flattened
/// square grayscale image [N, S*S] (S >= 8: the MLP's 784 = 28×28): {channels, height, width,
/// flat}; else null.
export function imageLayout(dtype, shape) {
  if (dtype !== 'FLOAT' || !Array.isArray(shape) || shape.some((d) => typeof d !== 'number' || d < 1)) return null;
  if (shape.length === 4 && (shape[1] === 1 || shape[1] === 3) && shape[2] >= 8 && shape[3] >= 8) {
    return { channels: shape[1], height: shape[2], width: shape[3], flat: false };
  }
  if (shape.length === 2) {
    const s = Math.round(Math.sqrt(shape[1]));
    if (s >= 8 && s * s === shape[1]) return { channels: 1, height: s, width: s, flat: true };
  }
  return null;
}

/// One channel resized bilinearly with half-pixel centres and clamped edges (PyTorch's
/// interpolate(mode='bilinear', align_corners=False), OpenCV's INTER_LINEAR).
export function resizeBilinear(src, sh, sw, dh, dw, out = new Float32Array(dh * dw), offset = 0) {
  for (let y = 0; y < dh; ++y) {
    const fy = Math.min(Math.max(((y + 0.5) * sh) / dh - 0.5, 0), sh - 1);
    const y0 = Math.floor(fy), y1 = Math.min(y0 + 1, sh - 1), wy = fy - y0;
    for (let x = 0; x < dw; ++x) {
      const fx = Math.min(Math.max(((x + 0.5) * sw) / dw - 0.5, 0), sw - 1);
      const x0 = Math.floor(fx), x1 = Math.min(x0 + 1, sw - 1), wx = fx - x0;
      const top = src[y0 * sw + x0] * (1 - wx) + src[y0 * sw + x1] * wx;
      const bottom = src[y1 * sw + x0] * (1 - wx) + src[y1 * sw + x1] * wx;
      out[offset + y * dw + x] = top * (1 - wy) + bottom * wy;
    }
  }
  return out;
}

/// 8×8 digits (values 0..1, 64 per sample) as a model's 1-channel image input: as they are for an
/// 8×8 input, else each resized to H×W (resizeBilinear). {x, features, note}.
export function fitDigits(x, n, layout) {
  if (!layout || layout.channels !== 1 || (layout.height === 8 && layout.width === 8)) return { x, features: 64, note: '' };
  const { height: H, width: W } = layout;
  const out = new Float32Array(n * H * W);
  for (let i = 0; i < n; ++i) resizeBilinear(x.subarray(i * 64, (i + 1) * 64), 8, 8, H, W, out, i * H * W);
  return { x: out, features: H * W, note: `resized from 8×8 to ${H}×${W} (bilinear) for this model's input` };
}

/// The bounding box of the ink (coverage above 0.1) in a w×h coverage map: {x, y, w, h} or null.
function inkBox(ink, w, h) {
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0; y < h; ++y) {
    for (let x = 0; x < w; ++x) {
      if (ink[y * w + x] <= 0.1) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return x1 < 0 ? null : { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

/// The ink's box scaled (aspect kept) to fit `fit`×`fit` and centred in a size×size grid; each
/// grid cell gets the mean coverage of the source area it covers (4×4 samples per source pixel
/// step, so no stroke falls between samples).
function fitInk(ink, w, h, size, fit) {
  const out = new Float32Array(size * size);
  const box = inkBox(ink, w, h);
  if (!box) return out;
  const scale = fit / Math.max(box.w, box.h);  // grid cells per source pixel
  const ox = (size - box.w * scale) / 2, oy = (size - box.h * scale) / 2;
  const k = Math.max(4, Math.ceil(4 / scale));
  for (let gy = 0; gy < size; ++gy) {
    for (let gx = 0; gx < size; ++gx) {
      let sum = 0;
      for (let j = 0; j < k; ++j) {
        const sy = Math.floor(box.y + (gy + (j + 0.5) / k - oy) / scale);
        if (sy < box.y || sy >= box.y + box.h) continue;
        for (let i = 0; i < k; ++i) {
          const sx = Math.floor(box.x + (gx + (i + 0.5) / k - ox) / scale);
          if (sx >= box.x && sx < box.x + box.w) sum += ink[sy * w + sx];
        }
      }
      out[gy * size + gx] = sum / (k * k);
    }
  }
  return out;
}

export const DIGITS_PREPROCESSING = "the ink's box scaled to fill a 32×32 bitmap (aspect kept, centred), its pixels on where " +
  'at least half covered, and the on pixels counted in 4×4 blocks: 8×8 values 0..16, as scikit-learn\'s digits were made ' +
  '(UCI optdigits), then divided by 16 as for training';

/// A drawing's ink (coverage 0..1, w×h) as scikit-learn's digits were made from NIST's bitmaps:
/// the ink's box scaled to fill 32×32 (aspect kept, centred), pixels on where at least half
/// covered, the on pixels counted in 4×4 blocks. 64 values 0..16.
export function digitFromInk(ink, w, h) {
  const bitmap = fitInk(ink, w, h, 32, 32);
  const out = new Float32Array(64);
  for (let y = 0; y < 32; ++y) for (let x = 0; x < 32; ++x) if (bitmap[y * 32 + x] >= 0.5) out[(y >> 2) * 8 + (x >> 2)] += 1;
  return out;
}

/// A drawing's ink as MNIST's digits were made: the ink's box scaled to fit 20×20 (aspect kept)
/// and centred in 28×28 (the same proportions for another H×W), values the coverage 0..1.
export function mnistFromInk(ink, w, h, H, W) {
  const size = Math.max(H, W);
  const grid = fitInk(ink, w, h, size, Math.round((size * 20) / 28));
  if (H === W) return grid;
  const out = new Float32Array(H * W);
  const oy = (size - H) >> 1, ox = (size - W) >> 1;
  for (let y = 0; y < H; ++y) for (let x = 0; x < W; ++x) out[y * W + x] = grid[(y + oy) * size + x + ox];
  return out;
}

/// A drawing's (or a grayscale picture's) ink for a 1-channel image input: the digits' way when
/// the model is trained on (or made for) the built-in digits, else MNIST's. {data (one sample,
/// the input's layout), view (H×W values 0..1 for the preview), note}.
export function inkToInput(ink, w, h, layout, digits) {
  const { height: H, width: W } = layout;
  if (digits) {
    const digit = digitFromInk(ink, w, h);
    const scaled = digit.map((v) => v / 16);
    const fitted = fitDigits(scaled, 1, layout);
    return { data: fitted.x, view: fitted.x, digit, note: `${DIGITS_PREPROCESSING}${fitted.note ? `; ${fitted.note}` : ''}` };
  }
  const data = mnistFromInk(ink, w, h, H, W);
  return { data, view: data, note: `MNIST's way: the ink's box scaled to fit ${Math.round((H * 20) / 28)}×${Math.round((W * 20) / 28)} ` +
    `(aspect kept) and centred in ${H}×${W}; values the ink's coverage, 0 (none) to 1` };
}

/// RGBA pixels -> ink coverage: the luminance, inverted when the picture is light on the whole
/// (dark ink on paper) so that ink is 1.
export function pixelsToInk(rgba, w, h) {
  const ink = new Float32Array(w * h);
  let mean = 0;
  for (let i = 0; i < w * h; ++i) {
    const a = rgba[i * 4 + 3] / 255;
    // Transparent pixels are paper (white).
    ink[i] = ((0.299 * rgba[i * 4] + 0.587 * rgba[i * 4 + 1] + 0.114 * rgba[i * 4 + 2]) / 255) * a + (1 - a);
    mean += ink[i];
  }
  if (mean / (w * h) > 0.5) for (let i = 0; i < w * h; ++i) ink[i] = 1 - ink[i];
  return ink;
}

/// An image file as a 3-channel input, as torchvision's ImageNet eval transform does: the shorter
/// side resized to H·256/224 (the browser's smoothing), the centre H×W cropped, RGB / 255, then per channel
/// (x - mean) / std. {data [3, H, W], view (RGBA pixels of the crop), note}.
export async function imageNetInput(file, layout) {
  const { height: H, width: W } = layout;
  const bmp = await createImageBitmap(file);
  const short = Math.round(Math.min(H, W) * IMAGENET.resizeRatio);
  const scale = short / Math.min(bmp.width, bmp.height);
  const rw = Math.max(W, Math.round(bmp.width * scale)), rh = Math.max(H, Math.round(bmp.height * scale));
  const canvas = new OffscreenCanvas(W, H);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(bmp, -Math.floor((rw - W) / 2), -Math.floor((rh - H) / 2), rw, rh);
  const px = ctx.getImageData(0, 0, W, H).data;
  const data = new Float32Array(3 * H * W);
  for (let i = 0; i < H * W; ++i) {
    for (let c = 0; c < 3; ++c) data[c * H * W + i] = (px[i * 4 + c] / 255 - IMAGENET.mean[c]) / IMAGENET.std[c];
  }
  const fmt = (a) => a.map((v) => v.toFixed(3)).join(', ');
  return {
    data, view: px,
    note: `${bmp.width}×${bmp.height} resized to ${rw}×${rh} (shorter side ${short}, smoothed), centre ${W}×${H} cropped, ` +
      `RGB / 255, normalised with ImageNet's mean (${fmt(IMAGENET.mean)}) and std (${fmt(IMAGENET.std)}) as torchvision does`,
  };
}

/// An image file as a 1-channel input: its pixels as ink (pixelsToInk), then inkToInput.
export async function grayInput(file, layout, digits) {
  const bmp = await createImageBitmap(file);
  const scale = Math.min(1, 512 / Math.max(bmp.width, bmp.height));
  const w = Math.max(1, Math.round(bmp.width * scale)), h = Math.max(1, Math.round(bmp.height * scale));
  const canvas = new OffscreenCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(bmp, 0, 0, w, h);
  const r = inkToInput(pixelsToInk(ctx.getImageData(0, 0, w, h).data, w, h), w, h, layout, digits);
  return { ...r, note: `${bmp.width}×${bmp.height} image, its luminance as ink (inverted when light on the whole); ${r.note}` };
}
