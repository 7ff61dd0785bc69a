/**
 * Scale-aware sharpness and noise primitives for the imaging-quality proxy (issue #13, imaging
 * quality `lite` version 4). Grey float images, 0..255.
 */
import { halve } from './resize.js';
import { noiseSigma } from './quality.js';
import { scratchF32, scratchF64 } from './scratch.js';
import type { GreyImage } from './types.js';

/** Normalised Gaussian taps of standard deviation `sigma`, radius ⌈3σ⌉. */
export function gaussianTaps(sigma: number): Float32Array {
  const r = Math.max(1, Math.ceil(3 * sigma));
  const k = new Float32Array(2 * r + 1);
  let s = 0;
  for (let t = -r; t <= r; t++) {
    const v = Math.exp(-(t * t) / (2 * sigma * sigma));
    k[t + r] = v;
    s += v;
  }
  for (let i = 0; i < k.length; i++) k[i] = k[i]! / s;
  return k;
}

/**
 * Separable convolution with symmetric taps, border replicated. Each output value is the taps'
 * products summed in tap order in double precision, then stored as float32 (rows first, then
 * columns); the interior skips the border clamping and the vertical pass runs row by row with a
 * double accumulator per column, which adds the same products in the same order. The result is
 * written into `into` when it has the image's length (a caller's scratch), else into a new array.
 */
export function convolveSeparable(img: GreyImage, taps: Float32Array, into?: Float32Array): GreyImage {
  const { width: w, height: h, data } = img;
  const r = (taps.length - 1) >> 1;
  const tmp = scratchF32('convolveSeparable.tmp', w * h);
  const out = into && into.length === w * h ? into : new Float32Array(w * h);
  const ym = h - 1;
  horizontalPass(data, w, h, taps, tmp);
  const acc = scratchF64('convolveSeparable.acc', w);
  for (let y = 0; y < h; y++) {
    acc.fill(0);
    for (let t = -r; t <= r; t++) {
      const yy = y + t < 0 ? 0 : y + t > ym ? ym : y + t;
      const k = taps[t + r]!;
      const src = yy * w;
      for (let x = 0; x < w; x++) acc[x] = acc[x]! + k * tmp[src + x]!;
    }
    const row = y * w;
    for (let x = 0; x < w; x++) out[row + x] = acc[x]!;
  }
  return { width: w, height: h, data: out };
}

/** Σ |∇I|² (central differences) over the pixels at least `border` from the edge, and their count. */
function gradientEnergy(img: GreyImage, border: number): { energy: number; count: number } {
  const { width: w, height: h, data } = img;
  let e = 0;
  let n = 0;
  for (let y = border; y < h - border; y++) {
    const row = y * w;
    for (let x = border; x < w - border; x++) {
      const i = row + x;
      const gx = 0.5 * (data[i + 1]! - data[i - 1]!);
      const gy = 0.5 * (data[i + w]! - data[i - w]!);
      e += gx * gx + gy * gy;
      n++;
    }
  }
  return { energy: e, count: n };
}

/**
 * `gradientEnergy(convolveSeparable(img, REBLUR_TAPS), border)` without the blurred image: the rows
 * the gradients read (border − 1 … h − border) are blurred one at a time into a ring of three, each
 * value the same float32 `convolveSeparable` stores (the 7 taps' products summed in tap order in
 * double), and each row's energy is added as soon as the rows above and below it are in, in the
 * order `gradientEnergy` adds it. Needs border ≥ 1.
 */
function blurredGradientEnergy(img: GreyImage, border: number): { energy: number; count: number } {
  const { width: w, height: h, data } = img;
  const taps = REBLUR_TAPS;
  const tmp = scratchF32('blurredGradientEnergy.tmp', w * h);
  horizontalPass(data, w, h, taps, tmp);
  const ring = [
    scratchF32('blurredGradientEnergy.row0', w),
    scratchF32('blurredGradientEnergy.row1', w),
    scratchF32('blurredGradientEnergy.row2', w),
  ];
  const [k0, k1, k2, k3, k4, k5, k6] = taps as unknown as Seven;
  const ym = h - 1;
  const rowAt = (yy: number): number => (yy < 0 ? 0 : yy > ym ? ym : yy) * w;
  const x0 = border;
  const x1 = w - border;
  let e = 0;
  let n = 0;
  for (let y = border - 1; y <= h - border; y++) {
    const s0 = rowAt(y - 3);
    const s1 = rowAt(y - 2);
    const s2 = rowAt(y - 1);
    const s3 = rowAt(y);
    const s4 = rowAt(y + 1);
    const s5 = rowAt(y + 2);
    const s6 = rowAt(y + 3);
    // Only columns x0 − 1 … x1 are read by the gradients.
    const out = ring[(y - border + 1) % 3]!;
    for (let x = x0 - 1; x <= x1; x++) {
      let a = k0 * tmp[s0 + x]!;
      a += k1 * tmp[s1 + x]!;
      a += k2 * tmp[s2 + x]!;
      a += k3 * tmp[s3 + x]!;
      a += k4 * tmp[s4 + x]!;
      a += k5 * tmp[s5 + x]!;
      a += k6 * tmp[s6 + x]!;
      out[x] = a;
    }
    if (y < border + 1) continue;
    // Rows y − 2, y − 1, y are in: add row y − 1's energy.
    const up = ring[(y - border - 1) % 3]!;
    const mid = ring[(y - border) % 3]!;
    for (let x = x0; x < x1; x++) {
      const gx = 0.5 * (mid[x + 1]! - mid[x - 1]!);
      const gy = 0.5 * (out[x]! - up[x]!);
      e += gx * gx + gy * gy;
      n++;
    }
  }
  return { energy: e, count: n };
}

type Seven = [number, number, number, number, number, number, number];

/**
 * The horizontal pass of `convolveSeparable` (border replicated) into `tmp`: the interior without
 * clamping, the 7-tap case (the re-blur) unrolled; the same products added in the same order.
 */
function horizontalPass(
  data: Float32Array,
  w: number,
  h: number,
  taps: Float32Array,
  tmp: Float32Array,
): void {
  const r = (taps.length - 1) >> 1;
  const nt = taps.length;
  const xm = w - 1;
  const xLo = Math.min(r, w);
  const xHi = Math.max(xLo, w - r);
  const clamped = (row: number, x: number): number => {
    let a = 0;
    for (let t = -r; t <= r; t++) a += taps[t + r]! * data[row + (x + t < 0 ? 0 : x + t > xm ? xm : x + t)]!;
    return a;
  };
  const [k0, k1, k2, k3, k4, k5, k6] = taps as unknown as Seven;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < xLo; x++) tmp[row + x] = clamped(row, x);
    if (nt === 7) {
      for (let x = xLo, b = row + xLo - r; x < xHi; x++, b++) {
        let a = k0 * data[b]!;
        a += k1 * data[b + 1]!;
        a += k2 * data[b + 2]!;
        a += k3 * data[b + 3]!;
        a += k4 * data[b + 4]!;
        a += k5 * data[b + 5]!;
        a += k6 * data[b + 6]!;
        tmp[row + x] = a;
      }
    } else {
      for (let x = xLo; x < xHi; x++) {
        let a = 0;
        const base = row + x - r;
        for (let t = 0; t < nt; t++) a += taps[t]! * data[base + t]!;
        tmp[row + x] = a;
      }
    }
    for (let x = xHi; x < w; x++) tmp[row + x] = clamped(row, x);
  }
}

/**
 * E|∇(n ∗ k)|² per unit variance of white noise n, for central differences after the separable
 * filter `taps` (null: no filter). Exact from the taps: the x component's kernel is k ∗ [½, 0, −½]
 * along x and k along y, and symmetrically for y.
 */
export function gradientNoiseGain(taps: Float32Array | null): number {
  const k = taps ?? new Float32Array([1]);
  const d = new Float32Array(k.length + 2);
  for (let i = 0; i < k.length; i++) {
    d[i] = d[i]! - 0.5 * k[i]!;
    d[i + 2] = d[i + 2]! + 0.5 * k[i]!;
  }
  let sd = 0;
  for (const v of d) sd += v * v;
  let sk = 0;
  for (const v of k) sk += v * v;
  return 2 * sd * sk;
}

/** Width of the re-blur: the edge-blur estimate compares the image with itself blurred by this σ. */
export const REBLUR_SIGMA = 1;
const REBLUR_TAPS = gaussianTaps(REBLUR_SIGMA);
const GAIN_RAW = gradientNoiseGain(null);
const GAIN_REBLUR = gradientNoiseGain(REBLUR_TAPS);

/**
 * Effective Gaussian blur σ (pixels) of the image's edges, from the gradient energy of the image
 * (E) and of its re-blur with σ₀ = 1 (E₁): for a step edge of contrast C blurred by σ, the squared
 * gradient integrated across the edge is C²/(2√π·σ), so E/E₁ = √(σ² + σ₀²)/σ and
 * σ = σ₀/√((E/E₁)² − 1) (the re-blur principle of Hu & de Haan, ICIP 2006, and Zhuo & Sim, Pattern
 * Recognition 2011, summed over the frame instead of read at single edge points). Summing squared
 * gradients weights every region by its gradient energy, so sharp, contrasty structure dominates
 * and smooth or defocused areas count little. The expected gradient energy of white noise of σ
 * `noise` (exact for each filter, `gradientNoiseGain`) is subtracted from both sums first, so
 * noise is not read as detail. An image with no detail left (E ≤ E₁) returns Infinity: a frame
 * without edges is indistinguishable from a fully blurred one.
 */
export function edgeBlurSigma(img: GreyImage, noise = 0): number {
  const border = (REBLUR_TAPS.length - 1) >> 1;
  if (img.width <= 2 * border + 2 || img.height <= 2 * border + 2) return Infinity;
  const g0 = gradientEnergy(img, border);
  const g1 = blurredGradientEnergy(img, border);
  const n2 = noise * noise;
  const e0 = g0.energy - g0.count * n2 * GAIN_RAW;
  const e1 = g1.energy - g1.count * n2 * GAIN_REBLUR;
  if (e1 <= 0 || e0 <= e1) return Infinity;
  const r = e0 / e1;
  return REBLUR_SIGMA / Math.sqrt(r * r - 1);
}

/**
 * Ferzli & Karam's just-noticeable-blur model (IEEE TIP 2009): the probability that blur of an
 * edge of width w is seen is 1 − exp(−|w/w_JNB|^β), β = 3.6, with w_JNB = 3 px for edges of
 * contrast above 50 grey levels (the edges that dominate a gradient-energy estimate). The 10–90 %
 * width of a Gaussian-blurred step is 2.56σ, so the blur σ of a just-noticeable edge is 3/2.56 px.
 */
export const JNB_BETA = 3.6;
export const JNB_SIGMA = 3 / 2.56;

/** Probability that the blur of σ (px) goes unnoticed: exp(−(σ/σ_JNB)^β); 0 for σ = ∞. */
export function sharpnessFromBlur(sigma: number): number {
  return Number.isFinite(sigma) ? Math.exp(-((sigma / JNB_SIGMA) ** JNB_BETA)) : 0;
}

/**
 * White-noise σ of `img` referred to a frame whose longer side is `side`: the minimum over the
 * image and two successive 2×2-mean halvings of Immerkær's σ (smoothest 30 %, clipped pixels left
 * out), each scaled by the white-noise law of an area resize (averaging f² pixels divides σ by f):
 * σ_k · 2^k · side / L, L the image's longer side. For white noise every term estimates the same
 * number; texture inflates the finest term, and a palette's dither pattern (periods of 2–8 px)
 * inflates the finer terms and averages out in the coarser ones, so the minimum is the tightest
 * estimate of the noise itself. No descreening filter is applied, so a palette frame can never
 * read cleaner than the same frame before palette coding. `level0`: Immerkær's σ of `img` itself
 * (`noiseSigma(img, true)`), when the caller has it already.
 */
export function whiteNoiseAt(img: GreyImage, side: number, level0?: number): number {
  return whiteNoiseFromLevels(noiseLevels(img, level0), Math.max(img.width, img.height), side);
}

/**
 * Immerkær's σ (smoothest 30 %, clipped pixels left out) of `img` and of up to two successive 2×2
 * halvings, stopping before an image narrower or shorter than 8: the terms of `whiteNoiseAt`.
 */
export function noiseLevels(img: GreyImage, level0?: number): number[] {
  const out: number[] = [];
  let cur = img;
  for (let k = 0; k < 3; k++) {
    if (cur.width < 8 || cur.height < 8) break;
    out.push(k === 0 && level0 !== undefined ? level0 : noiseSigma(cur, true));
    if (k < 2) cur = halve(cur);
  }
  return out;
}

/** `whiteNoiseAt` from the image's `noiseLevels` and its longer side `long`. */
export function whiteNoiseFromLevels(levels: readonly number[], long: number, side: number): number {
  let best = Infinity;
  for (let k = 0; k < levels.length; k++) best = Math.min(best, (levels[k]! * 2 ** k * side) / long);
  return Number.isFinite(best) ? best : 0;
}
