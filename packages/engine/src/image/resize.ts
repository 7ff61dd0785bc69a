/** Downscaling and resampling. */
import { scratchF32 } from './scratch.js';
import type { GreyImage, RgbImage } from './types.js';

/**
 * Gaussian-pyramid reduce (Burt & Adelson): 5-tap binomial [1 4 6 4 1]/16 low-pass along each
 * axis (border replicated), then every second sample. Unlike a plain 2×2 mean it removes the
 * frequencies that would alias, so fine periodic texture does not turn into false motion at
 * coarse pyramid levels. Output size ⌈w/2⌉ × ⌈h/2⌉.
 */
export function reduce(img: GreyImage): GreyImage {
  const { width: w, height: h, data } = img;
  const ow = Math.max(1, (w + 1) >> 1);
  const oh = Math.max(1, (h + 1) >> 1);
  const tmp = scratchF32('reduce.tmp', ow * h);
  const xm = w - 1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const orow = y * ow;
    for (let ox = 0; ox < ow; ox++) {
      const x = 2 * ox;
      const a = data[row + (x - 2 < 0 ? 0 : x - 2)]!;
      const b = data[row + (x - 1 < 0 ? 0 : x - 1)]!;
      const c = data[row + (x > xm ? xm : x)]!;
      const d = data[row + (x + 1 > xm ? xm : x + 1)]!;
      const e = data[row + (x + 2 > xm ? xm : x + 2)]!;
      tmp[orow + ox] = 0.0625 * (a + e) + 0.25 * (b + d) + 0.375 * c;
    }
  }
  const out = new Float32Array(ow * oh);
  const ym = h - 1;
  for (let oy = 0; oy < oh; oy++) {
    const y = 2 * oy;
    const ra = (y - 2 < 0 ? 0 : y - 2) * ow;
    const rb = (y - 1 < 0 ? 0 : y - 1) * ow;
    const rc = (y > ym ? ym : y) * ow;
    const rd = (y + 1 > ym ? ym : y + 1) * ow;
    const re = (y + 2 > ym ? ym : y + 2) * ow;
    const orow = oy * ow;
    for (let x = 0; x < ow; x++) {
      out[orow + x] =
        0.0625 * (tmp[ra + x]! + tmp[re + x]!) + 0.25 * (tmp[rb + x]! + tmp[rd + x]!) + 0.375 * tmp[rc + x]!;
    }
  }
  return { width: ow, height: oh, data: out };
}

/**
 * Halve a grey image by 2×2 averaging (odd trailing row/column dropped; never below 1×1), into
 * `into` when it has the output's length (a caller's scratch), else into a new array.
 */
export function halve(img: GreyImage, into?: Float32Array): GreyImage {
  const w = Math.max(1, img.width >> 1);
  const h = Math.max(1, img.height >> 1);
  if (img.width < 2 || img.height < 2) return resizeAreaGrey(img, w, h);
  const src = img.data;
  const sw = img.width;
  const out = into && into.length === w * h ? into : new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const r0 = 2 * y * sw;
    const r1 = r0 + sw;
    const o = y * w;
    for (let x = 0; x < w; x++) {
      const c = 2 * x;
      out[o + x] = 0.25 * (src[r0 + c]! + src[r0 + c + 1]! + src[r1 + c]! + src[r1 + c + 1]!);
    }
  }
  return { width: w, height: h, data: out };
}

/** Halve packed RGB24 bytes by 2×2 averaging straight into floats (no full-size float copy). */
export function halveRgbBytes(src: Uint8Array, sw: number, sh: number): RgbImage {
  const w = Math.max(1, sw >> 1);
  const h = Math.max(1, sh >> 1);
  const out = new Float32Array(w * h * 3);
  const ymax = sh - 1;
  const xmax = sw - 1;
  for (let y = 0; y < h; y++) {
    const ya = Math.min(2 * y, ymax) * sw;
    const yb = Math.min(2 * y + 1, ymax) * sw;
    for (let x = 0; x < w; x++) {
      const xa = Math.min(2 * x, xmax);
      const xb = Math.min(2 * x + 1, xmax);
      const o = (y * w + x) * 3;
      const p00 = (ya + xa) * 3;
      const p01 = (ya + xb) * 3;
      const p10 = (yb + xa) * 3;
      const p11 = (yb + xb) * 3;
      out[o] = 0.25 * (src[p00]! + src[p01]! + src[p10]! + src[p11]!);
      out[o + 1] = 0.25 * (src[p00 + 1]! + src[p01 + 1]! + src[p10 + 1]! + src[p11 + 1]!);
      out[o + 2] = 0.25 * (src[p00 + 2]! + src[p01 + 2]! + src[p10 + 2]! + src[p11 + 2]!);
    }
  }
  return { width: w, height: h, data: out };
}

/** Halve an RGB image by 2×2 averaging. */
export function halveRgb(img: RgbImage): RgbImage {
  const w = Math.max(1, img.width >> 1);
  const h = Math.max(1, img.height >> 1);
  const out = new Float32Array(w * h * 3);
  const src = img.data;
  const sw = img.width;
  const y1max = img.height - 1;
  const x1max = sw - 1;
  for (let y = 0; y < h; y++) {
    const ya = Math.min(2 * y, y1max) * sw;
    const yb = Math.min(2 * y + 1, y1max) * sw;
    for (let x = 0; x < w; x++) {
      const xa = Math.min(2 * x, x1max);
      const xb = Math.min(2 * x + 1, x1max);
      const o = (y * w + x) * 3;
      const p00 = (ya + xa) * 3;
      const p01 = (ya + xb) * 3;
      const p10 = (yb + xa) * 3;
      const p11 = (yb + xb) * 3;
      for (let c = 0; c < 3; c++)
        out[o + c] = 0.25 * (src[p00 + c]! + src[p01 + c]! + src[p10 + c]! + src[p11 + c]!);
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * Area-average resize of a grey image to (w, h) (for downscaling; works for any ratio): each output
 * pixel is the mean of the source area it covers, partial pixels weighted. Separable (rows, then
 * columns) with precomputed overlap weights.
 */
export function resizeAreaGrey(img: GreyImage, w: number, h: number): GreyImage {
  const resizer = new AreaResizer(img.width, img.height, w, h, 1);
  for (let y = 0; y < img.height; y++) resizer.row(y, img.data, y * img.width);
  return resizer.finish();
}

/**
 * Area-average resize of packed RGB bytes (or floats) to (w, h), any ratio: each output pixel is the
 * mean of the source area it covers (partial pixels weighted), as FFmpeg's `area` scaler and
 * OpenCV's INTER_AREA compute a downscale. Separable: rows first, then columns. With `crop`, only
 * that window of the (w, h) result is computed and returned.
 */
export function resizeAreaRgb(
  src: Uint8Array | Float32Array,
  sw: number,
  sh: number,
  w: number,
  h: number,
  crop?: AreaCrop,
): RgbImage {
  const resizer = new AreaResizer(sw, sh, w, h, 3, crop);
  for (let y = resizer.firstRow; y < resizer.endRow; y++) resizer.row(y, src, y * sw * 3);
  return resizer.finish();
}

export interface AreaCrop {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The area resize of `resizeAreaGrey` / `resizeAreaRgb` fed one source row at a time, so a frame
 * can be resized as its rows arrive (a band at a time) without ever being held whole: the
 * horizontal pass runs per row into a buffer of (rows read) × (output width), the vertical pass
 * at `finish`. Same arithmetic, in the same order, as resizing the whole image.
 */
export class AreaResizer {
  /** First source row the output reads, and one past the last. */
  readonly firstRow: number;
  readonly endRow: number;
  private readonly xt: AreaTaps;
  private readonly yt: AreaTaps;
  private readonly crop: AreaCrop;
  private readonly tmp: Float32Array;

  constructor(
    readonly sourceWidth: number,
    readonly sourceHeight: number,
    w: number,
    h: number,
    private readonly channels: 1 | 3,
    crop: AreaCrop = { left: 0, top: 0, width: w, height: h },
  ) {
    this.xt = areaTaps(sourceWidth, w);
    this.yt = areaTaps(sourceHeight, h);
    this.crop = crop;
    this.firstRow = this.yt.index[this.yt.start[crop.top]!]!;
    this.endRow = this.yt.index[this.yt.start[crop.top + crop.height]! - 1]! + 1;
    this.tmp = new Float32Array((this.endRow - this.firstRow) * crop.width * channels);
  }

  /** Source row `y`, its first value at `src[offset]` (`channels` values per pixel). */
  row(y: number, src: ArrayLike<number>, offset: number): void {
    if (y < this.firstRow || y >= this.endRow) return;
    const { left, width: cw } = this.crop;
    const { span } = this.xt;
    if (this.channels === 1) {
      const o = (y - this.firstRow) * cw;
      if (span === 4) this.row1Span4(src, offset, o, left, cw);
      else this.row1(src, offset, o, left, cw);
      return;
    }
    const o = (y - this.firstRow) * cw * 3;
    if (span === 5) this.row3Span5(src, offset, o, left, cw);
    else this.row3(src, offset, o, left, cw);
  }

  private row1(src: ArrayLike<number>, offset: number, o: number, left: number, cw: number): void {
    const { start: xs, index: xi, weight: xw } = this.xt;
    const tmp = this.tmp;
    for (let x = left; x < left + cw; x++) {
      let acc = 0;
      for (let k = xs[x]!; k < xs[x + 1]!; k++) acc += xw[k]! * src[offset + xi[k]!]!;
      tmp[o++] = acc;
    }
  }

  /** `row1` for outputs of at most 4 taps, unrolled (the same products in the same order). */
  private row1Span4(src: ArrayLike<number>, offset: number, o: number, left: number, cw: number): void {
    const { spanIndex: xi, spanWeight: xw } = this.xt;
    const tmp = this.tmp;
    for (let x = left, k = left * 4; x < left + cw; x++, k += 4) {
      let acc = xw[k]! * src[offset + xi[k]!]!;
      acc += xw[k + 1]! * src[offset + xi[k + 1]!]!;
      acc += xw[k + 2]! * src[offset + xi[k + 2]!]!;
      acc += xw[k + 3]! * src[offset + xi[k + 3]!]!;
      tmp[o++] = acc;
    }
  }

  private row3(src: ArrayLike<number>, offset: number, o: number, left: number, cw: number): void {
    const { start: xs, index: xi, weight: xw } = this.xt;
    const tmp = this.tmp;
    for (let x = left; x < left + cw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = xs[x]!; k < xs[x + 1]!; k++) {
        const wt = xw[k]!;
        const p = offset + xi[k]! * 3;
        r += wt * src[p]!;
        g += wt * src[p + 1]!;
        b += wt * src[p + 2]!;
      }
      tmp[o++] = r;
      tmp[o++] = g;
      tmp[o++] = b;
    }
  }

  /** `row3` for outputs of at most 5 taps, unrolled (the same products in the same order). */
  private row3Span5(src: ArrayLike<number>, offset: number, o: number, left: number, cw: number): void {
    const { spanIndex: xi, spanWeight: xw } = this.xt;
    const tmp = this.tmp;
    for (let x = left, k = left * 5; x < left + cw; x++, k += 5) {
      let wt = xw[k]!;
      let p = offset + xi[k]! * 3;
      let r = wt * src[p]!;
      let g = wt * src[p + 1]!;
      let b = wt * src[p + 2]!;
      wt = xw[k + 1]!;
      p = offset + xi[k + 1]! * 3;
      r += wt * src[p]!;
      g += wt * src[p + 1]!;
      b += wt * src[p + 2]!;
      wt = xw[k + 2]!;
      p = offset + xi[k + 2]! * 3;
      r += wt * src[p]!;
      g += wt * src[p + 1]!;
      b += wt * src[p + 2]!;
      wt = xw[k + 3]!;
      p = offset + xi[k + 3]! * 3;
      r += wt * src[p]!;
      g += wt * src[p + 1]!;
      b += wt * src[p + 2]!;
      wt = xw[k + 4]!;
      p = offset + xi[k + 4]! * 3;
      r += wt * src[p]!;
      g += wt * src[p + 1]!;
      b += wt * src[p + 2]!;
      tmp[o++] = r;
      tmp[o++] = g;
      tmp[o++] = b;
    }
  }

  /** The vertical pass over the rows read (rows never given count as zeros). */
  finish(): GreyImage | RgbImage {
    const { top, width: cw, height: ch } = this.crop;
    const yt = this.yt;
    const tmp = this.tmp;
    const n = cw * this.channels;
    const out = new Float32Array(n * ch);
    if (yt.span === 4 || yt.span === 5) {
      // Each output value summed in a register, rounded to float32 after every tap as the
      // accumulation in `out` below rounds it (a padding tap adds +0: no change).
      const fround = Math.fround;
      const five = yt.span === 5;
      for (let y = 0; y < ch; y++) {
        const orow = y * n;
        const k = (top + y) * yt.span;
        const w0 = yt.spanWeight[k]!;
        const w1 = yt.spanWeight[k + 1]!;
        const w2 = yt.spanWeight[k + 2]!;
        const w3 = yt.spanWeight[k + 3]!;
        const w4 = five ? yt.spanWeight[k + 4]! : 0;
        const r0 = (yt.spanIndex[k]! - this.firstRow) * n;
        const r1 = (yt.spanIndex[k + 1]! - this.firstRow) * n;
        const r2 = (yt.spanIndex[k + 2]! - this.firstRow) * n;
        const r3 = (yt.spanIndex[k + 3]! - this.firstRow) * n;
        const r4 = five ? (yt.spanIndex[k + 4]! - this.firstRow) * n : r3;
        for (let i = 0; i < n; i++) {
          let a = fround(w0 * tmp[r0 + i]!);
          a = fround(a + w1 * tmp[r1 + i]!);
          a = fround(a + w2 * tmp[r2 + i]!);
          a = fround(a + w3 * tmp[r3 + i]!);
          out[orow + i] = five ? a + w4 * tmp[r4 + i]! : a;
        }
      }
      return { width: cw, height: ch, data: out };
    }
    for (let y = 0; y < ch; y++) {
      const orow = y * n;
      for (let k = yt.start[top + y]!; k < yt.start[top + y + 1]!; k++) {
        const wt = yt.weight[k]!;
        const irow = (yt.index[k]! - this.firstRow) * n;
        for (let i = 0; i < n; i++) out[orow + i] = out[orow + i]! + wt * tmp[irow + i]!;
      }
    }
    return { width: cw, height: ch, data: out };
  }
}

interface AreaTaps {
  start: Int32Array;
  index: Int32Array;
  weight: Float32Array;
  /**
   * The same taps with every output given `span` of them (the most any output has): an output's
   * own taps first, then taps of weight 0 on its last source index, which add nothing (+0) to a
   * sum of non-negative products. Lets the common spans (4 and 5) run unrolled.
   */
  span: number;
  spanIndex: Int32Array;
  spanWeight: Float32Array;
}

const tapsCache = new Map<string, AreaTaps>();

/** Source indices and normalised overlap weights of an area resize along one axis (CSR layout). */
function areaTaps(inSize: number, outSize: number): AreaTaps {
  const key = `${inSize}:${outSize}`;
  const kept = tapsCache.get(key);
  if (kept) return kept;
  const scale = inSize / outSize;
  const start = new Int32Array(outSize + 1);
  const index: number[] = [];
  const weight: number[] = [];
  for (let d = 0; d < outSize; d++) {
    start[d] = index.length;
    const a = d * scale;
    const b = a + scale;
    let sum = 0;
    for (let i = Math.floor(a); i < Math.min(inSize, Math.ceil(b)); i++) {
      const ov = Math.min(b, i + 1) - Math.max(a, i);
      if (ov > 0) {
        index.push(i);
        weight.push(ov);
        sum += ov;
      }
    }
    for (let k = start[d]!; k < index.length; k++) weight[k] = weight[k]! / sum;
  }
  start[outSize] = index.length;
  let span = 0;
  for (let d = 0; d < outSize; d++) span = Math.max(span, start[d + 1]! - start[d]!);
  const spanIndex = new Int32Array(outSize * span);
  const spanWeight = new Float32Array(outSize * span);
  for (let d = 0; d < outSize; d++) {
    for (let t = 0; t < span; t++) {
      const k = Math.min(start[d]! + t, start[d + 1]! - 1);
      spanIndex[d * span + t] = index[k]!;
      spanWeight[d * span + t] = start[d]! + t < start[d + 1]! ? weight[k]! : 0;
    }
  }
  const taps = {
    start,
    index: Int32Array.from(index),
    weight: Float32Array.from(weight),
    span,
    spanIndex,
    spanWeight,
  };
  if (tapsCache.size > 64) tapsCache.clear();
  tapsCache.set(key, taps);
  return taps;
}

/** Bilinear sample of a grey image at (x, y), clamped to the border. */
export function sampleBilinear(src: Float32Array, w: number, h: number, x: number, y: number): number {
  if (x < 0) x = 0;
  else if (x > w - 1) x = w - 1;
  if (y < 0) y = 0;
  else if (y > h - 1) y = h - 1;
  const x0 = x | 0;
  const y0 = y | 0;
  const x1 = x0 + 1 < w ? x0 + 1 : x0;
  const y1 = y0 + 1 < h ? y0 + 1 : y0;
  const fx = x - x0;
  const fy = y - y0;
  const r0 = y0 * w;
  const r1 = y1 * w;
  const a = src[r0 + x0]! + fx * (src[r0 + x1]! - src[r0 + x0]!);
  const b = src[r1 + x0]! + fx * (src[r1 + x1]! - src[r1 + x0]!);
  return a + fy * (b - a);
}

/**
 * Bilinear resize of a grey image to (w, h) with half-pixel centres (torchvision / OpenCV
 * `align_corners=False`), positions clamped to the image; for enlarging.
 */
export function resizeBilinearGrey(img: GreyImage, w: number, h: number): GreyImage {
  const out = new Float32Array(w * h);
  const sx = img.width / w;
  const sy = img.height / h;
  for (let y = 0; y < h; y++) {
    const yy = (y + 0.5) * sy - 0.5;
    for (let x = 0; x < w; x++) {
      out[y * w + x] = sampleBilinear(img.data, img.width, img.height, (x + 0.5) * sx - 0.5, yy);
    }
  }
  return { width: w, height: h, data: out };
}
