/**
 * Classical frame descriptors for the consistency proxies.
 *
 * `frameDescriptor` (subject consistency `lite` v1, background consistency v1): soft colour
 * histograms (opponent colour space) and gradient-orientation histograms, on a 4×4 grid plus one
 * spatially weighted global block. Every block is made zero-mean, so the cosine between two
 * descriptors behaves like a correlation (unrelated frames score near 0, not near 1 as raw
 * non-negative histograms do).
 *
 * `colourLayoutDescriptor` (background consistency `lite` v2): the same colour histograms only,
 * each pixel shared bilinearly between the four nearest grid cells, compared through the Hellinger
 * kernel (square roots of the normalised histograms) before centring.
 */
import { scratchF64, scratchF32 } from './scratch.js';
import type { RgbImage } from './types.js';

export type SpatialWeighting = 'centre' | 'border';

const GRID = 4;
const L_BINS = 5; // centres 0, 63.75, …, 255
const O_BINS = 3; // centres −64, 0, 64 (opponent channels, clamped)
const COLOUR_BINS = L_BINS * O_BINS * O_BINS; // 45
const ORIENT_BINS = 8; // unsigned orientation over [0, π)
const BLOCK = COLOUR_BINS + ORIENT_BINS;
/** Brings mean gradient magnitudes to the scale of bin fractions. */
const GRADIENT_SCALE = 1 / 24;
/** Of the frame size, for the centre Gaussian. */
const SIGMA = 0.2;

export const DESCRIPTOR_LENGTH = (GRID * GRID + 1) * BLOCK;

/** Weight of a normalised position (0..1, 0..1) for the given spatial emphasis. */
function spatialWeight(kind: SpatialWeighting, nx: number, ny: number): number {
  const dx = nx - 0.5;
  const dy = ny - 0.5;
  const centre = Math.exp(-(dx * dx + dy * dy) / (2 * SIGMA * SIGMA));
  return kind === 'centre' ? centre : 1 - 0.95 * centre;
}

/**
 * Weights of the 4×4 cell blocks for one spatial emphasis: the weight at each cell centre and
 * their sum. Fixed per kind. (`frameDescriptor` rounds each weight, not the sum, to float32.)
 */
interface CellWeights {
  weights: Float64Array;
  sum: number;
}

const cellWeightsByKind = new Map<SpatialWeighting, CellWeights>();

function cellWeights(kind: SpatialWeighting): CellWeights {
  let cw = cellWeightsByKind.get(kind);
  if (!cw) {
    const weights = new Float64Array(GRID * GRID);
    let sum = 0;
    for (let c = 0; c < GRID * GRID; c++) {
      const wc = spatialWeight(kind, ((c % GRID) + 0.5) / GRID, (Math.floor(c / GRID) + 0.5) / GRID);
      weights[c] = wc;
      sum += wc;
    }
    cw = { weights, sum };
    cellWeightsByKind.set(kind, cw);
  }
  return cw;
}

/** Per-size tables of `frameDescriptor`: they depend only on the image size and the weighting. */
interface FrameTables {
  /** Spatial weight of every pixel (float32, row-major). */
  weight: Float32Array;
  /** Offset of the cell column's block (cx·BLOCK) per image column. */
  colBase: Int32Array;
  /** Offset of the cell row's blocks (cy·GRID·BLOCK) per image row. */
  rowBase: Int32Array;
  /** Pixels per cell. */
  cellCount: Float64Array;
}

/** Per-size tables of `colourLayoutDescriptor`. */
interface LayoutTables {
  /** Offsets (cell column × COLOUR_BINS) of the two nearest cell columns, per image column. */
  colLo: Int32Array;
  colHi: Int32Array;
  /** Share of the second cell column (rounded to float32, as it always was) and of the first. */
  colT: Float64Array;
  colU: Float64Array;
  /** Spatial weight of every pixel (not rounded, row-major). */
  weight: Float64Array;
}

const frameTables = new Map<string, FrameTables>();
const layoutTables = new Map<string, LayoutTables>();
const MAX_CACHED_SIZES = 8;

function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  if (cache.size >= MAX_CACHED_SIZES) cache.clear();
  cache.set(key, value);
  return value;
}

/** The centre Gaussian along one axis at each sample centre, rounded to float32. */
function axisGaussian(n: number): Float32Array {
  const g = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const d = (i + 0.5) / n - 0.5;
    g[i] = Math.exp(-(d * d) / (2 * SIGMA * SIGMA));
  }
  return g;
}

/** The centre Gaussian along y at row y's centre (not rounded). */
function rowGaussian(y: number, h: number): number {
  const dy = (y + 0.5) / h - 0.5;
  return Math.exp(-(dy * dy) / (2 * SIGMA * SIGMA));
}

function frameTablesFor(w: number, h: number, kind: SpatialWeighting): FrameTables {
  const key = `${w}x${h}:${kind}`;
  const hit = frameTables.get(key);
  if (hit) return hit;
  // The centre Gaussian is separable: g(x, y) = gx(x)·gy(y).
  const gxs = axisGaussian(w);
  const weight = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const gy = rowGaussian(y, h);
    for (let x = 0; x < w; x++) {
      const g = gxs[x]! * gy;
      weight[y * w + x] = kind === 'centre' ? g : 1 - 0.95 * g;
    }
  }
  const colBase = new Int32Array(w);
  const colCount = new Float64Array(GRID);
  for (let x = 0; x < w; x++) {
    const cx = Math.min(GRID - 1, Math.floor((x * GRID) / w));
    colBase[x] = cx * BLOCK;
    colCount[cx] = colCount[cx]! + 1;
  }
  const rowBase = new Int32Array(h);
  const rowCount = new Float64Array(GRID);
  for (let y = 0; y < h; y++) {
    const cy = Math.min(GRID - 1, Math.floor((y * GRID) / h));
    rowBase[y] = cy * GRID * BLOCK;
    rowCount[cy] = rowCount[cy]! + 1;
  }
  const cellCount = new Float64Array(GRID * GRID);
  for (let c = 0; c < GRID * GRID; c++) cellCount[c] = rowCount[Math.floor(c / GRID)]! * colCount[c % GRID]!;
  return remember(frameTables, key, { weight, colBase, rowBase, cellCount });
}

/** Descriptor of an RGB image (use a small one: 64–160 px on the longer side). */
export function frameDescriptor(img: RgbImage, kind: SpatialWeighting): Float32Array {
  const { width: w, height: h, data } = img;
  const n = w * h;
  // Histograms accumulate in float32, pixel by pixel in raster order (the results depend on it).
  const cells = new Float32Array((GRID * GRID + 1) * BLOCK);
  const globalBase = GRID * GRID * BLOCK;
  const { weight, colBase, rowBase, cellCount } = frameTablesFor(w, h, kind);
  const lum = scratchF32('descriptor.lum', n);
  for (let i = 0, j = 0; i < n; i++, j += 3) lum[i] = (data[j]! + data[j + 1]! + data[j + 2]!) / 3;
  let globalMass = 0; // accumulated in float32, as the other blocks' histograms
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const up = (y > 0 ? y - 1 : y) * w;
    const down = (y < h - 1 ? y + 1 : y) * w;
    const rb = rowBase[y]!;
    for (let x = 0; x < w; x++) {
      const i = row + x;
      const j = i * 3;
      const r = data[j]!;
      const g = data[j + 1]!;
      const b = data[j + 2]!;
      const l = lum[i]!;
      const base = rb + colBase[x]!;
      const gw = weight[i]!;
      // Soft colour binning (trilinear over L, O1, O2). The second bin along each axis always
      // exists (l0 ≤ L_BINS − 2, a0 and b0 ≤ O_BINS − 2); a corner whose weight is 0 adds 0, which
      // leaves a float32 sum of non-negative terms unchanged.
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
      const ul = 1 - lt;
      const ua = 1 - at;
      const ub = 1 - bt;
      const w00 = ul * ua;
      const w01 = ul * at;
      const w10 = lt * ua;
      const w11 = lt * at;
      const k = base + (l0 * O_BINS + a0) * O_BINS + b0;
      const kg = k - base + globalBase;
      let v = w00 * ub;
      cells[k] = cells[k]! + v;
      cells[kg] = cells[kg]! + v * gw;
      v = w00 * bt;
      cells[k + 1] = cells[k + 1]! + v;
      cells[kg + 1] = cells[kg + 1]! + v * gw;
      v = w01 * ub;
      cells[k + O_BINS] = cells[k + O_BINS]! + v;
      cells[kg + O_BINS] = cells[kg + O_BINS]! + v * gw;
      v = w01 * bt;
      cells[k + O_BINS + 1] = cells[k + O_BINS + 1]! + v;
      cells[kg + O_BINS + 1] = cells[kg + O_BINS + 1]! + v * gw;
      v = w10 * ub;
      cells[k + O_BINS * O_BINS] = cells[k + O_BINS * O_BINS]! + v;
      cells[kg + O_BINS * O_BINS] = cells[kg + O_BINS * O_BINS]! + v * gw;
      v = w10 * bt;
      cells[k + O_BINS * O_BINS + 1] = cells[k + O_BINS * O_BINS + 1]! + v;
      cells[kg + O_BINS * O_BINS + 1] = cells[kg + O_BINS * O_BINS + 1]! + v * gw;
      v = w11 * ub;
      cells[k + O_BINS * O_BINS + O_BINS] = cells[k + O_BINS * O_BINS + O_BINS]! + v;
      cells[kg + O_BINS * O_BINS + O_BINS] = cells[kg + O_BINS * O_BINS + O_BINS]! + v * gw;
      v = w11 * bt;
      cells[k + O_BINS * O_BINS + O_BINS + 1] = cells[k + O_BINS * O_BINS + O_BINS + 1]! + v;
      cells[kg + O_BINS * O_BINS + O_BINS + 1] = cells[kg + O_BINS * O_BINS + O_BINS + 1]! + v * gw;
      // Gradient orientation (unsigned), soft over two bins, magnitude-weighted.
      const gx = lum[row + (x < w - 1 ? x + 1 : x)]! - lum[row + (x > 0 ? x - 1 : x)]!;
      const gy = lum[down + x]! - lum[up + x]!;
      const mag = Math.sqrt(gx * gx + gy * gy);
      if (mag > 0) {
        let ang = Math.atan2(gy, gx);
        if (ang < 0) ang += Math.PI;
        let f = (ang / Math.PI) * ORIENT_BINS - 0.5;
        if (f < 0) f += ORIENT_BINS; // f is now in [0, ORIENT_BINS] (the top only by rounding)
        const fi = f | 0;
        const o0 = base + COLOUR_BINS + (fi & (ORIENT_BINS - 1));
        const o1i = base + COLOUR_BINS + ((fi + 1) & (ORIENT_BINS - 1));
        const ot = f - fi;
        const m = mag * GRADIENT_SCALE;
        const m0 = m * (1 - ot);
        const m1 = m * ot;
        const og0 = o0 - base + globalBase;
        const og1 = o1i - base + globalBase;
        cells[o0] = cells[o0]! + m0;
        cells[o1i] = cells[o1i]! + m1;
        cells[og0] = cells[og0]! + m0 * gw;
        cells[og1] = cells[og1]! + m1 * gw;
      }
      globalMass = Math.fround(globalMass + gw);
    }
  }
  // Normalise each block by its mass, make each sub-block zero-mean, weight the blocks.
  const cw = cellWeights(kind);
  for (let c = 0; c <= GRID * GRID; c++) {
    const base = c * BLOCK;
    const mass = c === GRID * GRID ? globalMass : cellCount[c]!;
    const blockWeight = c === GRID * GRID ? 0.5 : (0.5 * Math.fround(cw.weights[c]!)) / cw.sum;
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

/**
 * Colour-layout descriptor (background consistency `lite` v2). The colour histograms of
 * `frameDescriptor` (5 luma × 3 × 3 opponent bins, trilinear) on the same 4×4 grid plus one
 * spatially weighted global block, with three changes, each for a measured failure of version 1:
 *
 * - **No gradient-orientation histograms.** Natural frames have nearly uniform orientation
 *   histograms (every bin 9–17 %); once centred, what is left is a small residual whose direction
 *   follows any local motion, so that channel alone scored 0.73–0.96 frame to frame on clean real
 *   clips and lost more under a camera pan than under a cut to another scene.
 * - **Soft cells.** Each pixel is shared bilinearly between the four nearest cell centres (Lowe's
 *   SIFT interpolation, IJCV 2004), so content crossing a cell boundary moves its mass gradually.
 * - **Hellinger kernel.** Each block is normalised to a distribution p and compared through √p
 *   (the Bhattacharyya coefficient; RootSIFT, Arandjelović & Zisserman, CVPR 2012), which keeps
 *   one large uniform region (a sky, a wall) from dominating the comparison. √p is then centred
 *   as in version 1.
 *
 * Blocks are weighted as in `frameDescriptor`: the global block ½, the cells ½ in proportion to
 * the spatial weight at their centres.
 */
export function colourLayoutDescriptor(img: RgbImage, kind: SpatialWeighting): Float32Array {
  const { width: w, height: h, data } = img;
  const blocks = GRID * GRID + 1;
  const hist = scratchF64('descriptor.layout.hist', blocks * COLOUR_BINS).fill(0);
  const mass = scratchF64('descriptor.layout.mass', blocks).fill(0);
  const globalBase = GRID * GRID * COLOUR_BINS;
  const { colLo, colHi, colT, colU, weight } = layoutTablesFor(w, h, kind);
  // One row's histograms per cell column, before they are shared between two cell rows.
  const band = scratchF64('descriptor.layout.band', GRID * COLOUR_BINS).fill(0);
  const bandMass = scratchF64('descriptor.layout.bandMass', GRID).fill(0);
  let globalMass = 0;
  for (let y = 0; y < h; y++) {
    const fy = ((y + 0.5) / h) * GRID - 0.5;
    const fy0 = Math.floor(fy);
    const rowLo = Math.max(0, fy0);
    const rowHi = Math.min(GRID - 1, fy0 + 1);
    const ty = fy - fy0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const j = i * 3;
      const r = data[j]!;
      const g = data[j + 1]!;
      const b = data[j + 2]!;
      // Soft colour binning (trilinear over L, O1, O2), as in `frameDescriptor` (a corner whose
      // weight is 0 adds 0, which leaves a sum of non-negative terms unchanged).
      let lf = ((r + g + b) / 3 / 255) * (L_BINS - 1);
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
      const ul = 1 - lt;
      const ua = 1 - at;
      const ub = 1 - bt;
      const w00 = ul * ua;
      const w01 = ul * at;
      const w10 = lt * ua;
      const w11 = lt * at;
      const bin = (l0 * O_BINS + a0) * O_BINS + b0;
      const tx = colT[x]!;
      const ux = colU[x]!;
      const gw = weight[i]!;
      // The two nearest cell columns of this row's band (they coincide at the border, where the
      // weights still sum to 1); the band is spread over the two nearest cell rows below.
      const lo = colLo[x]! + bin;
      const hi = colHi[x]! + bin;
      const gb = globalBase + bin;
      let v = w00 * ub;
      band[lo] = band[lo]! + v * ux;
      band[hi] = band[hi]! + v * tx;
      hist[gb] = hist[gb]! + v * gw;
      v = w00 * bt;
      band[lo + 1] = band[lo + 1]! + v * ux;
      band[hi + 1] = band[hi + 1]! + v * tx;
      hist[gb + 1] = hist[gb + 1]! + v * gw;
      v = w01 * ub;
      band[lo + O_BINS] = band[lo + O_BINS]! + v * ux;
      band[hi + O_BINS] = band[hi + O_BINS]! + v * tx;
      hist[gb + O_BINS] = hist[gb + O_BINS]! + v * gw;
      v = w01 * bt;
      band[lo + O_BINS + 1] = band[lo + O_BINS + 1]! + v * ux;
      band[hi + O_BINS + 1] = band[hi + O_BINS + 1]! + v * tx;
      hist[gb + O_BINS + 1] = hist[gb + O_BINS + 1]! + v * gw;
      v = w10 * ub;
      band[lo + O_BINS * O_BINS] = band[lo + O_BINS * O_BINS]! + v * ux;
      band[hi + O_BINS * O_BINS] = band[hi + O_BINS * O_BINS]! + v * tx;
      hist[gb + O_BINS * O_BINS] = hist[gb + O_BINS * O_BINS]! + v * gw;
      v = w10 * bt;
      band[lo + O_BINS * O_BINS + 1] = band[lo + O_BINS * O_BINS + 1]! + v * ux;
      band[hi + O_BINS * O_BINS + 1] = band[hi + O_BINS * O_BINS + 1]! + v * tx;
      hist[gb + O_BINS * O_BINS + 1] = hist[gb + O_BINS * O_BINS + 1]! + v * gw;
      v = w11 * ub;
      band[lo + O_BINS * O_BINS + O_BINS] = band[lo + O_BINS * O_BINS + O_BINS]! + v * ux;
      band[hi + O_BINS * O_BINS + O_BINS] = band[hi + O_BINS * O_BINS + O_BINS]! + v * tx;
      hist[gb + O_BINS * O_BINS + O_BINS] = hist[gb + O_BINS * O_BINS + O_BINS]! + v * gw;
      v = w11 * bt;
      band[lo + O_BINS * O_BINS + O_BINS + 1] = band[lo + O_BINS * O_BINS + O_BINS + 1]! + v * ux;
      band[hi + O_BINS * O_BINS + O_BINS + 1] = band[hi + O_BINS * O_BINS + O_BINS + 1]! + v * tx;
      hist[gb + O_BINS * O_BINS + O_BINS + 1] = hist[gb + O_BINS * O_BINS + O_BINS + 1]! + v * gw;
      const ml = colLo[x]! / COLOUR_BINS;
      const mh = colHi[x]! / COLOUR_BINS;
      bandMass[ml] = bandMass[ml]! + ux;
      bandMass[mh] = bandMass[mh]! + tx;
      globalMass += gw;
    }
    for (let cx = 0; cx < GRID; cx++) {
      const src = cx * COLOUR_BINS;
      const a = (rowLo * GRID + cx) * COLOUR_BINS;
      const b = (rowHi * GRID + cx) * COLOUR_BINS;
      for (let bin = 0; bin < COLOUR_BINS; bin++) {
        const v = band[src + bin]!;
        hist[a + bin] = hist[a + bin]! + v * (1 - ty);
        hist[b + bin] = hist[b + bin]! + v * ty;
      }
      mass[rowLo * GRID + cx] = mass[rowLo * GRID + cx]! + bandMass[cx]! * (1 - ty);
      mass[rowHi * GRID + cx] = mass[rowHi * GRID + cx]! + bandMass[cx]! * ty;
    }
    band.fill(0);
    bandMass.fill(0);
  }
  mass[GRID * GRID] = globalMass;
  const cw = cellWeights(kind);
  const out = new Float32Array(blocks * COLOUR_BINS);
  for (let c = 0; c < blocks; c++) {
    const m = mass[c]!;
    if (m <= 0) continue;
    const blockWeight = c === GRID * GRID ? 0.5 : (0.5 * cw.weights[c]!) / cw.sum;
    const base = c * COLOUR_BINS;
    let mean = 0;
    for (let i = 0; i < COLOUR_BINS; i++) {
      const v = Math.sqrt(Math.max(0, hist[base + i]! / m));
      out[base + i] = v;
      mean += v;
    }
    mean /= COLOUR_BINS;
    const scale = Math.sqrt(blockWeight);
    for (let i = 0; i < COLOUR_BINS; i++) out[base + i] = (out[base + i]! - mean) * scale;
  }
  return out;
}

function layoutTablesFor(w: number, h: number, kind: SpatialWeighting): LayoutTables {
  const key = `${w}x${h}:${kind}`;
  const hit = layoutTables.get(key);
  if (hit) return hit;
  // Bilinear cell coordinates per column (cell index pair and the weight of the second cell).
  const colLo = new Int32Array(w);
  const colHi = new Int32Array(w);
  const colT = new Float64Array(w);
  const colU = new Float64Array(w);
  for (let x = 0; x < w; x++) {
    const f = ((x + 0.5) / w) * GRID - 0.5;
    const f0 = Math.floor(f);
    colLo[x] = Math.max(0, f0) * COLOUR_BINS;
    colHi[x] = Math.min(GRID - 1, f0 + 1) * COLOUR_BINS;
    colT[x] = Math.fround(f - f0);
    colU[x] = 1 - colT[x]!;
  }
  const gxs = axisGaussian(w);
  const weight = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    const gy = rowGaussian(y, h);
    for (let x = 0; x < w; x++) {
      const centre = gxs[x]! * gy;
      weight[y * w + x] = kind === 'border' ? 1 - 0.95 * centre : centre;
    }
  }
  return remember(layoutTables, key, { colLo, colHi, colT, colU, weight });
}
