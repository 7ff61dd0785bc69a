/**
 * Classical frame descriptors for the consistency proxies: soft colour histograms (opponent
 * colour space) and gradient-orientation histograms, on a 4×4 grid plus one spatially weighted
 * global block. Every block is made zero-mean, so the cosine between two descriptors behaves like
 * a correlation (unrelated frames score near 0, not near 1 as raw non-negative histograms do).
 */
import type { RgbImage } from './types.js';

export type SpatialWeighting = 'centre' | 'border';

const GRID = 4;
const L_BINS = 5; // centres 0, 63.75, …, 255
const O_BINS = 3; // centres −64, 0, 64 (opponent channels, clamped)
const COLOUR_BINS = L_BINS * O_BINS * O_BINS; // 45
const ORIENT_BINS = 8; // unsigned orientation over [0, π)
const BLOCK = COLOUR_BINS + ORIENT_BINS;
const GRADIENT_SCALE = 1 / 24;
const SIGMA = 0.2; // of the frame size, for the centre Gaussian // brings mean gradient magnitudes to the scale of bin fractions

export const DESCRIPTOR_LENGTH = (GRID * GRID + 1) * BLOCK;

/** Weight of a normalised position (0..1, 0..1) for the given spatial emphasis. */
function spatialWeight(kind: SpatialWeighting, nx: number, ny: number): number {
  const dx = nx - 0.5;
  const dy = ny - 0.5;
  const centre = Math.exp(-(dx * dx + dy * dy) / (2 * SIGMA * SIGMA));
  return kind === 'centre' ? centre : 1 - 0.95 * centre;
}

/** Descriptor of an RGB image (use a small one: 64–160 px on the longer side). */
export function frameDescriptor(img: RgbImage, kind: SpatialWeighting): Float32Array {
  const { width: w, height: h, data } = img;
  const cells = new Float32Array((GRID * GRID + 1) * BLOCK);
  const cellMass = new Float32Array(GRID * GRID + 1);
  const globalBase = GRID * GRID * BLOCK;
  const lum = new Float32Array(w * h);
  for (let i = 0, j = 0; i < w * h; i++, j += 3) lum[i] = (data[j]! + data[j + 1]! + data[j + 2]!) / 3;
  // Per-pixel spatial weights along each axis are separable only approximately; precompute rows.
  const wx = new Float32Array(w);
  const gxs = new Float32Array(w);
  for (let x = 0; x < w; x++) {
    const dx = (x + 0.5) / w - 0.5;
    gxs[x] = Math.exp(-(dx * dx) / (2 * SIGMA * SIGMA));
  }
  const cx = new Int32Array(w);
  for (let x = 0; x < w; x++) cx[x] = Math.min(GRID - 1, Math.floor((x * GRID) / w));
  const cyOf = (y: number) => Math.min(GRID - 1, Math.floor((y * GRID) / h));
  for (let y = 0; y < h; y++) {
    const ny = (y + 0.5) / h;
    // The centre Gaussian is separable: g(x, y) = gx(x)·gy(y).
    const dy = ny - 0.5;
    const gy = Math.exp(-(dy * dy) / (2 * SIGMA * SIGMA));
    for (let x = 0; x < w; x++) {
      const g = gxs[x]! * gy;
      wx[x] = kind === 'centre' ? g : 1 - 0.95 * g;
    }
    const cy = cyOf(y);
    const row = y * w;
    const up = (y > 0 ? y - 1 : y) * w;
    const down = (y < h - 1 ? y + 1 : y) * w;
    for (let x = 0; x < w; x++) {
      const i = row + x;
      const j = i * 3;
      const r = data[j]!;
      const g = data[j + 1]!;
      const b = data[j + 2]!;
      const l = lum[i]!;
      const cell = cy * GRID + cx[x]!;
      const base = cell * BLOCK;
      const gw = wx[x]!;
      // Soft colour binning (trilinear over L, O1, O2).
      let lf = (l / 255) * (L_BINS - 1);
      if (lf < 0) lf = 0;
      else if (lf > L_BINS - 1) lf = L_BINS - 1;
      const l0 = Math.min(L_BINS - 2, lf | 0);
      const lt = lf - l0;
      let o1 = (r - g) / 64 + 1;
      let o2 = (0.5 * (r + g) - b) / 64 + 1;
      o1 = o1 < 0 ? 0 : o1 > 2 ? 2 : o1;
      o2 = o2 < 0 ? 0 : o2 > 2 ? 2 : o2;
      const a0 = o1 >= 1 ? 1 : 0;
      const at = o1 - a0;
      const b0 = o2 >= 1 ? 1 : 0;
      const bt = o2 - b0;
      for (let dl = 0; dl < 2; dl++) {
        const wl = dl ? lt : 1 - lt;
        if (wl === 0) continue;
        for (let da = 0; da < 2; da++) {
          const wa = wl * (da ? at : 1 - at);
          if (wa === 0) continue;
          const ai = Math.min(O_BINS - 1, a0 + da);
          for (let db = 0; db < 2; db++) {
            const wb = wa * (db ? bt : 1 - bt);
            if (wb === 0) continue;
            const bi = Math.min(O_BINS - 1, b0 + db);
            const bin = ((l0 + dl) * O_BINS + ai) * O_BINS + bi;
            cells[base + bin] = cells[base + bin]! + wb;
            cells[globalBase + bin] = cells[globalBase + bin]! + wb * gw;
          }
        }
      }
      // Gradient orientation (unsigned), soft over two bins, magnitude-weighted.
      const gx = lum[row + (x < w - 1 ? x + 1 : x)]! - lum[row + (x > 0 ? x - 1 : x)]!;
      const gy = lum[down + x]! - lum[up + x]!;
      const mag = Math.sqrt(gx * gx + gy * gy);
      if (mag > 0) {
        let ang = Math.atan2(gy, gx);
        if (ang < 0) ang += Math.PI;
        let f = (ang / Math.PI) * ORIENT_BINS - 0.5;
        if (f < 0) f += ORIENT_BINS;
        const o0 = (f | 0) % ORIENT_BINS;
        const ot = f - Math.floor(f);
        const o1i = (o0 + 1) % ORIENT_BINS;
        const m = mag * GRADIENT_SCALE;
        cells[base + COLOUR_BINS + o0] = cells[base + COLOUR_BINS + o0]! + m * (1 - ot);
        cells[base + COLOUR_BINS + o1i] = cells[base + COLOUR_BINS + o1i]! + m * ot;
        cells[globalBase + COLOUR_BINS + o0] = cells[globalBase + COLOUR_BINS + o0]! + m * (1 - ot) * gw;
        cells[globalBase + COLOUR_BINS + o1i] = cells[globalBase + COLOUR_BINS + o1i]! + m * ot * gw;
      }
      cellMass[cell] = cellMass[cell]! + 1;
      cellMass[GRID * GRID] = cellMass[GRID * GRID]! + gw;
    }
  }
  // Normalise each block by its mass, make each sub-block zero-mean, weight the blocks.
  let cellWeightSum = 0;
  const cellWeights = new Float32Array(GRID * GRID);
  for (let c = 0; c < GRID * GRID; c++) {
    const wc = spatialWeight(kind, ((c % GRID) + 0.5) / GRID, (Math.floor(c / GRID) + 0.5) / GRID);
    cellWeights[c] = wc;
    cellWeightSum += wc;
  }
  for (let c = 0; c <= GRID * GRID; c++) {
    const base = c * BLOCK;
    const mass = cellMass[c]!;
    const blockWeight = c === GRID * GRID ? 0.5 : (0.5 * cellWeights[c]!) / cellWeightSum;
    const scale = mass > 0 ? Math.sqrt(blockWeight) / mass : 0;
    centre(cells, base, COLOUR_BINS, scale);
    centre(cells, base + COLOUR_BINS, ORIENT_BINS, scale);
  }
  return cells;
}

function centre(v: Float32Array, start: number, len: number, scale: number): void {
  let m = 0;
  for (let i = 0; i < len; i++) m += v[start + i]!;
  m /= len;
  for (let i = 0; i < len; i++) v[start + i] = (v[start + i]! - m) * scale;
}

/** Cosine similarity; 1 when both vectors are zero (two identical featureless frames), 0 when one is. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  if (aa === 0 && bb === 0) return 1;
  if (aa === 0 || bb === 0) return 0;
  const c = ab / Math.sqrt(aa * bb);
  return c > 1 ? 1 : c < -1 ? -1 : c;
}
