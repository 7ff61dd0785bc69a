/**
 * Classical no-reference image statistics used by the imaging- and aesthetic-quality proxies.
 * All work on float grey images 0..255 (colourfulness on packed RGB).
 */
import { halve } from './resize.js';
import { scratchF32, scratchU8 } from './scratch.js';
import type { GreyImage } from './types.js';

/**
 * Crété-Roffet "blur effect" (Crété, Dolmière, Ladret, Nicolas, SPIE 2007): re-blur the image
 * with a 9-tap box along each axis and measure how much of the neighbour variation survives.
 * 0 = sharp, → 1 = already blurred. Returns the larger of the horizontal and vertical values.
 * Differences are soft-thresholded by `tau` (d → max(0, d − τ)) so that noise of a known level does
 * not read as detail; τ = 0 gives the original metric. The ratio is regularised by
 * ε = 0.5 grey level per pixel, (ΣD − ΣV + εN)/(ΣD + εN), so an image with almost no detail
 * (a flat or smooth one, or only a few noise outliers above τ) reads as blurred rather than sharp.
 */
export function blurEffect(img: GreyImage, tau = 0): number {
  const { width: w, height: h, data } = img;
  const r = 4;
  // Horizontal.
  let sF = 0;
  let sV = 0;
  const row = new Float32Array(w);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    let acc = 0;
    for (let x = -r; x <= r; x++) acc += data[o + clampIdx(x, w)]!;
    for (let x = 0; x < w; x++) {
      row[x] = acc / 9;
      acc += data[o + clampIdx(x + r + 1, w)]! - data[o + clampIdx(x - r, w)]!;
    }
    for (let x = 1; x < w; x++) {
      const dF = Math.abs(data[o + x]! - data[o + x - 1]!) - tau;
      if (dF <= 0) continue;
      const dB = Math.abs(row[x]! - row[x - 1]!);
      sF += dF;
      if (dF > dB) sV += dF - dB;
    }
  }
  const eps = 0.5 * w * h;
  const bh = (sF - sV + eps) / (sF + eps);
  // Vertical, row by row: `acc` holds the 9-row column sums centred on row y (borders replicated).
  sF = 0;
  sV = 0;
  const acc = new Float32Array(w);
  for (let k = -r; k <= r; k++) {
    const o = clampIdx(k, h) * w;
    for (let x = 0; x < w; x++) acc[x] = acc[x]! + data[o + x]!;
  }
  let prevB = new Float32Array(w);
  let curB = new Float32Array(w);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) curB[x] = acc[x]! / 9;
    if (y > 0) {
      const o = y * w;
      const p = o - w;
      for (let x = 0; x < w; x++) {
        const dF = Math.abs(data[o + x]! - data[p + x]!) - tau;
        if (dF <= 0) continue;
        const dB = Math.abs(curB[x]! - prevB[x]!);
        sF += dF;
        if (dF > dB) sV += dF - dB;
      }
    }
    const add = clampIdx(y + r + 1, h) * w;
    const sub = clampIdx(y - r, h) * w;
    for (let x = 0; x < w; x++) acc[x] = acc[x]! + data[add + x]! - data[sub + x]!;
    const t = prevB;
    prevB = curB;
    curB = t;
  }
  const bv = (sF - sV + eps) / (sF + eps);
  return Math.max(bh, bv);
}

function clampIdx(i: number, n: number): number {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/**
 * Noise standard deviation (0..255 scale) by Immerkær's method (CVIU 1996): σ = √(π/2)/6 ·
 * mean |I ∗ M| with M = [1 −2 1; −2 4 −2; 1 −2 1], averaged only over the smoothest 30 % of
 * pixels (by |∇I|) so that texture and edges are not read as noise. With `excludeClipped`, pixels
 * whose 3×3 neighbourhood touches the clipping levels (≤ 2 or ≥ 253) are left out: there the noise
 * is cut off by the range, so it would be underestimated (the bias noise estimators on clipped
 * data correct for; Foi et al., IEEE TIP 2008).
 */
const hist = new Uint32Array(1024);
/** Per gradient bin, the sum of the responses (each rounded to float32) of the pixels in it. */
const binSums = new Float64Array(1024);

export function noiseSigma(img: GreyImage, excludeClipped = false): number {
  const { width: w, height: h, data } = img;
  if (w < 3 || h < 3) return 0;
  hist.fill(0);
  binSums.fill(0);
  // Clipped pixels, then "a clipped pixel within one column" per row, so that a 3×3 neighbourhood
  // test is three lookups instead of nine comparisons.
  let near: Uint8Array | null = null;
  if (excludeClipped) {
    near = scratchU8('noiseSigma.near', w * h);
    for (let y = 0; y < h; y++) {
      const o = y * w;
      let prev = 0;
      let cur = data[o]! <= 2 || data[o]! >= 253 ? 1 : 0;
      for (let x = 0; x < w; x++) {
        const next = x + 1 < w && (data[o + x + 1]! <= 2 || data[o + x + 1]! >= 253) ? 1 : 0;
        near[o + x] = prev | cur | next;
        prev = cur;
        cur = next;
      }
    }
  }
  // One pass: each pixel's |response| goes into the sum of its gradient bin, so the smoothest 30 %
  // (whole bins up to the threshold) are summed without keeping a response per pixel. Each row's
  // 3×3 neighbourhoods slide along x: the window's nine values move one column left per pixel
  // instead of being loaded again (a0 − 2a1 + a2 − 2b0 + 4b1 − 2b2 + c0 − 2c1 + c2).
  const fround = Math.fround;
  for (let y = 1; y < h - 1; y++) {
    const a = (y - 1) * w;
    const b = y * w;
    const c = (y + 1) * w;
    let a0 = data[a]!;
    let a1 = data[a + 1]!;
    let b0 = data[b]!;
    let b1 = data[b + 1]!;
    let c0 = data[c]!;
    let c1 = data[c + 1]!;
    for (let x = 1; x < w - 1; x++) {
      const a2 = data[a + x + 1]!;
      const b2 = data[b + x + 1]!;
      const c2 = data[c + x + 1]!;
      if (near === null || (near[a + x]! | near[b + x]! | near[c + x]!) === 0) {
        const v = a0 - 2 * a1 + a2 - 2 * b0 + 4 * b1 - 2 * b2 + c0 - 2 * c1 + c2;
        const g = Math.abs(b2 - b0) + Math.abs(c1 - a1);
        const gi = g >= 1023 ? 1023 : g | 0;
        hist[gi] = hist[gi]! + 1;
        binSums[gi] = binSums[gi]! + fround(v < 0 ? -v : v);
      }
      a0 = a1;
      a1 = a2;
      b0 = b1;
      b1 = b2;
      c0 = c1;
      c1 = c2;
    }
  }
  let counted = 0;
  for (let i = 0; i < 1024; i++) counted += hist[i]!;
  if (counted === 0) return 0;
  const target = Math.max(1, Math.floor(0.3 * counted));
  let n = 0;
  let s = 0;
  for (let thr = 0; thr < 1024; thr++) {
    n += hist[thr]!;
    s += binSums[thr]!;
    if (n >= target) break;
  }
  return n > 0 ? (Math.sqrt(Math.PI / 2) / 6) * (s / n) : 0;
}

/**
 * Blockiness on the 8×8 coding grid: (m_b − m_n)/(m_b + m_n) where m_b is the mean absolute
 * neighbour difference across block boundaries (between columns/rows 8k−1 and 8k) and m_n the
 * mean elsewhere; 0 = no grid structure, → 1 = pure blocks. Only meaningful at the coded
 * resolution (a resized frame no longer has the grid).
 */
export function blockiness(img: GreyImage): number {
  const { width: w, height: h, data } = img;
  if (w < 16 && h < 16) return 0;
  let sb = 0;
  let nb = 0;
  let sn = 0;
  let nn = 0;
  for (let y = 0; y < h; y++) {
    const o = y * w;
    for (let x = 1; x < w; x++) {
      const d = Math.abs(data[o + x]! - data[o + x - 1]!);
      if ((x & 7) === 0) {
        sb += d;
        nb++;
      } else {
        sn += d;
        nn++;
      }
    }
  }
  for (let y = 1; y < h; y++) {
    const o = y * w;
    const p = o - w;
    const boundary = (y & 7) === 0;
    let s = 0;
    for (let x = 0; x < w; x++) s += Math.abs(data[o + x]! - data[p + x]!);
    if (boundary) {
      sb += s;
      nb += w;
    } else {
      sn += s;
      nn += w;
    }
  }
  if (nb === 0 || nn === 0) return 0;
  const mb = sb / nb;
  const mn = sn / nn;
  return mb + mn > 1e-6 ? (mb - mn) / (mb + mn) : 0;
}

/**
 * Noise σ that only counts spatially white noise: min(σ(I), 2·σ(I↓2)) where I↓2 is the 2×2-mean
 * half-size image. White noise halves under 2×2 averaging, so both terms agree; a fine periodic
 * pattern (GIF ordered dithering, a 2-pixel checkerboard) vanishes at half size and is not
 * mistaken for noise.
 */
export function whiteNoiseSigma(img: GreyImage, excludeClipped = false): number {
  const full = noiseSigma(img, excludeClipped);
  if (img.width < 8 || img.height < 8) return full;
  const half = scratchF32('whiteNoiseSigma.half', (img.width >> 1) * (img.height >> 1));
  return Math.min(full, 2 * noiseSigma(halve(img, half), excludeClipped));
}

export interface ExposureStats {
  mean: number;
  std: number;
  /** Fraction of pixels at or below 2 or at or above 253. */
  clipped: number;
}

export function exposureStats(img: GreyImage): ExposureStats {
  const d = img.data;
  const n = d.length;
  let s = 0;
  let s2 = 0;
  let clipped = 0;
  for (let i = 0; i < n; i++) {
    const v = d[i]!;
    s += v;
    s2 += v * v;
    if (v <= 2 || v >= 253) clipped++;
  }
  const mean = n > 0 ? s / n : 0;
  const variance = n > 0 ? Math.max(0, s2 / n - mean * mean) : 0;
  return { mean, std: Math.sqrt(variance), clipped: n > 0 ? clipped / n : 0 };
}

/** Hasler & Süsstrunk colourfulness (2003) of packed RGB (float or uint8): σ_rgyb + 0.3·μ_rgyb. */
export function colourfulness(rgb: ArrayLike<number>, pixels: number): number {
  let srg = 0;
  let syb = 0;
  let srg2 = 0;
  let syb2 = 0;
  for (let i = 0, j = 0; i < pixels; i++, j += 3) {
    const r = rgb[j]!;
    const g = rgb[j + 1]!;
    const b = rgb[j + 2]!;
    const rg = r - g;
    const yb = 0.5 * (r + g) - b;
    srg += rg;
    syb += yb;
    srg2 += rg * rg;
    syb2 += yb * yb;
  }
  if (pixels === 0) return 0;
  const mrg = srg / pixels;
  const myb = syb / pixels;
  const vrg = Math.max(0, srg2 / pixels - mrg * mrg);
  const vyb = Math.max(0, syb2 / pixels - myb * myb);
  return Math.sqrt(vrg + vyb) + 0.3 * Math.sqrt(mrg * mrg + myb * myb);
}
