/**
 * Dense optical flow: pyramidal, iterative Lucas–Kanade with per-pixel windows (a classical
 * stand-in for RAFT). For each pyramid level, coarse to fine:
 *   1. the flow from the coarser level is upsampled (×2 in magnitude);
 *   2. gradients (Ix, Iy) of the first image and their windowed structure tensor are computed once;
 *   3. `iterations` times (`finestIterations` at the last level): the second image is warped by the current flow (bilinear), the temporal
 *      difference It = I1(x + f) − I0(x) − Δμ (Δμ: global brightness offset, so a global
 *      brightness change does not read as motion) is correlated with the gradients over the same
 *      window, and the 2×2 system (A + λI)·δ = −b is solved per pixel (a pixel whose warped
 *      position leaves the image contributes no residual, so border flow cannot run away);
 *   4. the flow is smoothed with a 3×3 box to suppress outliers.
 * λ damps the update where the window has no texture, so flat regions keep the coarse estimate.
 */
import { boxMean, boxMean2, gradients } from './filter.js';
import { reduce } from './resize.js';
import { scratchF32, scratchF64, scratchI32 } from './scratch.js';
import type { GreyImage } from './types.js';

export interface FlowField {
  width: number;
  height: number;
  u: Float32Array;
  v: Float32Array;
}

export interface FlowOptions {
  /** Window radius of the Lucas–Kanade sums (window = (2r+1)²). */
  radius: number;
  /** Warping iterations per level. */
  iterations: number;
  /** Warping iterations at the finest level (where most of the cost is). */
  finestIterations: number;
  /** Tikhonov damping added to the structure tensor (per-pixel mean scale). */
  lambda: number;
  /** Largest update per iteration, in pixels of the level (keeps the iteration stable). */
  maxStep: number;
}

export const DEFAULT_FLOW_OPTIONS: FlowOptions = {
  radius: 2,
  iterations: 2,
  finestIterations: 1,
  lambda: 1,
  maxStep: 1.5,
};

/** Gaussian pyramid: level 0 is the input, each next level is `reduce` of the previous one. */
export type Pyramid = GreyImage[];

/** Builds up to `levels` levels, stopping before a side would drop below `minSide`. */
export function buildPyramid(img: GreyImage, levels: number, minSide = 8): Pyramid {
  const out: Pyramid = [img];
  let cur = img;
  while (out.length < levels && Math.min(cur.width, cur.height) >= 2 * minSide) {
    cur = reduce(cur);
    out.push(cur);
  }
  return out;
}

/**
 * The flow of a level upsampled to w × h, into `u` and `v` when given (scratch of the coarser
 * levels), else into new arrays.
 */
function upsampleFlow(
  flow: FlowField,
  w: number,
  h: number,
  u: Float32Array = new Float32Array(w * h),
  v: Float32Array = new Float32Array(w * h),
): FlowField {
  const sx = flow.width / w;
  const sy = flow.height / h;
  const mx = w / flow.width;
  const my = h / flow.height;
  const fw = flow.width;
  const fh = flow.height;
  const fu = flow.u;
  const fv = flow.v;
  // `sampleBilinear` of u and v at the same position, its weights computed once; the column
  // taps are the same on every row, so they are computed once per call.
  const cx0 = scratchI32('upsampleFlow.x0', w);
  const cx1 = scratchI32('upsampleFlow.x1', w);
  const cfx = scratchF64('upsampleFlow.fx', w);
  for (let x = 0; x < w; x++) {
    let px = (x + 0.5) * sx - 0.5;
    if (px < 0) px = 0;
    else if (px > fw - 1) px = fw - 1;
    const x0 = px | 0;
    cx0[x] = x0;
    cx1[x] = x0 + 1 < fw ? x0 + 1 : x0;
    cfx[x] = px - x0;
  }
  for (let y = 0; y < h; y++) {
    let py = (y + 0.5) * sy - 0.5;
    if (py < 0) py = 0;
    else if (py > fh - 1) py = fh - 1;
    const y0 = py | 0;
    const y1 = y0 + 1 < fh ? y0 + 1 : y0;
    const fy = py - y0;
    const r0 = y0 * fw;
    const r1 = y1 * fw;
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const x0 = cx0[x]!;
      const x1 = cx1[x]!;
      const fx = cfx[x]!;
      const i = row + x;
      const ua = fu[r0 + x0]! + fx * (fu[r0 + x1]! - fu[r0 + x0]!);
      const ub = fu[r1 + x0]! + fx * (fu[r1 + x1]! - fu[r1 + x0]!);
      u[i] = mx * (ua + fy * (ub - ua));
      const va = fv[r0 + x0]! + fx * (fv[r0 + x1]! - fv[r0 + x0]!);
      const vb = fv[r1 + x0]! + fx * (fv[r1 + x1]! - fv[r1 + x0]!);
      v[i] = my * (va + fy * (vb - va));
    }
  }
  return { width: w, height: h, u, v };
}

function mean(a: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return a.length > 0 ? s / a.length : 0;
}

/**
 * Flow from p0 to p1 (I0(x) ≈ I1(x + f(x))) at the resolution of pyramid level `finest`.
 * Both pyramids must come from images of the same size.
 */
export function computeFlow(
  p0: Pyramid,
  p1: Pyramid,
  options: FlowOptions = DEFAULT_FLOW_OPTIONS,
  finest = 0,
): FlowField {
  const levels = Math.min(p0.length, p1.length);
  if (levels === 0) throw new RangeError('computeFlow: empty pyramid');
  const top = levels - 1;
  const bottom = Math.min(finest, top);
  let flow: FlowField | null = null;
  for (let l = top; l >= bottom; l--) {
    const i0 = p0[l]!;
    const i1 = p1[l]!;
    if (i0.width !== i1.width || i0.height !== i1.height) throw new RangeError('computeFlow: size mismatch');
    const { width: w, height: h } = i0;
    // Only the finest level's flow is returned: the coarser ones live in scratch (alternating
    // pairs by level, so a level's upsampling never writes over the flow it reads).
    const n = w * h;
    const final = l === bottom;
    const su = final ? new Float32Array(n) : scratchF32(`computeFlow.u${l & 1}`, n);
    const sv = final ? new Float32Array(n) : scratchF32(`computeFlow.v${l & 1}`, n);
    if (flow) flow = upsampleFlow(flow, w, h, su, sv);
    else {
      if (!final) {
        su.fill(0);
        sv.fill(0);
      }
      flow = { width: w, height: h, u: su, v: sv };
    }
    refineLevel(i0, i1, flow, options, l === bottom ? options.finestIterations : options.iterations);
  }
  return flow!;
}

/** Gradients and windowed structure tensor of one pyramid level as the first image of a flow. */
interface LevelTensor {
  radius: number;
  gx: Float32Array;
  gy: Float32Array;
  axx: Float32Array;
  axy: Float32Array;
  ayy: Float32Array;
  mean: number;
}

/**
 * A pyramid level may carry its tensor, computed the first time the level is the first image of
 * a flow and reused afterwards (motion smoothness computes both a→b and b→c from frame b).
 */
type TensorCarrier = GreyImage & { tensor?: LevelTensor };

function levelTensor(img: TensorCarrier, radius: number): LevelTensor {
  if (img.tensor && img.tensor.radius === radius) return img.tensor;
  const { width: w, height: h, data } = img;
  const n = w * h;
  const gx = new Float32Array(n);
  const gy = new Float32Array(n);
  gradients(data, w, h, gx, gy);
  const tmp = scratchF32('levelTensor.tmp', n);
  const tmp2 = scratchF32('levelTensor.tmp2', n);
  const prod = scratchF32('levelTensor.prod', n);
  const prod2 = scratchF32('levelTensor.prod2', n);
  const axx = new Float32Array(n);
  const axy = new Float32Array(n);
  const ayy = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const x = gx[i]!;
    prod[i] = x * x;
    prod2[i] = x * gy[i]!;
  }
  boxMean2(prod, prod2, w, h, radius, axx, axy, tmp, tmp2);
  for (let i = 0; i < n; i++) prod[i] = gy[i]! * gy[i]!;
  boxMean(prod, w, h, radius, ayy, tmp);
  const tensor: LevelTensor = { radius, gx, gy, axx, axy, ayy, mean: mean(data) };
  img.tensor = tensor;
  return tensor;
}

function refineLevel(
  i0: TensorCarrier,
  i1: TensorCarrier,
  flow: FlowField,
  o: FlowOptions,
  iterations: number,
): void {
  const { width: w, height: h } = i0;
  const n = w * h;
  const a0 = i0.data;
  const a1 = i1.data;
  const { gx, gy, axx, axy, ayy, mean: mean0 } = levelTensor(i0, o.radius);
  const tmp = scratchF32('refineLevel.tmp', n);
  const tmp2 = scratchF32('refineLevel.tmp2', n);
  const prod = scratchF32('refineLevel.prod', n);
  const offset = (i1.tensor?.mean ?? mean(a1)) - mean0;
  const bx = scratchF32('refineLevel.bx', n);
  const by = scratchF32('refineLevel.by', n);
  const prod2 = scratchF32('refineLevel.prod2', n);
  const { u, v } = flow;
  const lambda = o.lambda;
  const step = o.maxStep;
  const xMax = w - 1;
  const yMax = h - 1;
  for (let it = 0; it < iterations; it++) {
    for (let y = 0; y < h; y++) {
      const row = y * w;
      for (let x = 0; x < w; x++) {
        const i = row + x;
        const px = x + u[i]!;
        const py = y + v[i]!;
        // A point warped outside the image carries no information: no residual, no update.
        let d = 0;
        if (!(px < 0 || py < 0 || px > xMax || py > yMax)) {
          // sampleBilinear(a1, w, h, px, py), inline (the position is inside the image).
          const x0 = px | 0;
          const y0 = py | 0;
          const x1 = x0 + 1 < w ? x0 + 1 : x0;
          const y1 = y0 + 1 < h ? y0 + 1 : y0;
          const fx = px - x0;
          const fy = py - y0;
          const r0 = y0 * w;
          const r1 = y1 * w;
          const top = a1[r0 + x0]! + fx * (a1[r0 + x1]! - a1[r0 + x0]!);
          const bottom = a1[r1 + x0]! + fx * (a1[r1 + x1]! - a1[r1 + x0]!);
          d = top + fy * (bottom - top) - a0[i]! - offset;
        }
        prod[i] = gx[i]! * d;
        prod2[i] = gy[i]! * d;
      }
    }
    boxMean2(prod, prod2, w, h, o.radius, bx, by, tmp, tmp2);
    for (let i = 0; i < n; i++) {
      const sxx = axx[i]! + lambda;
      const syy = ayy[i]! + lambda;
      const sxy = axy[i]!;
      const det = sxx * syy - sxy * sxy;
      let du = -(syy * bx[i]! - sxy * by[i]!) / det;
      let dv = -(sxx * by[i]! - sxy * bx[i]!) / det;
      if (du > step) du = step;
      else if (du < -step) du = -step;
      if (dv > step) dv = step;
      else if (dv < -step) dv = -step;
      u[i] = u[i]! + du;
      v[i] = v[i]! + dv;
    }
  }
  // Light smoothing of the field.
  boxMean2(u, v, w, h, 1, prod, prod2, tmp, tmp2);
  u.set(prod);
  v.set(prod2);
}
