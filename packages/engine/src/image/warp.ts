/** Backward warping of RGB images by a flow field and halfway interpolation. */
import type { FlowField } from './flow.js';
import type { RgbImage } from './types.js';

/**
 * The frame halfway between `a` and `b`, from the flows a→b and b→a (at any resolution: they are
 * resampled bilinearly to the images' size and rescaled). With F01 = flow a→b and F10 = flow b→a,
 * the flows from the middle frame are approximated as F_t0 = ¼(F10 − F01) and F_t1 = −F_t0
 * (linear motion, t = ½), and the result is ½[a(x + F_t0) + b(x − F_t0)].
 */
export function interpolateHalfway(a: RgbImage, b: RgbImage, fab: FlowField, fba: FlowField): RgbImage {
  const { width: w, height: h } = a;
  // F_t0 at the flow resolution, then resampled to the image size.
  const fn = fab.width * fab.height;
  const hu = new Float32Array(fn);
  const hv = new Float32Array(fn);
  for (let i = 0; i < fn; i++) {
    hu[i] = 0.25 * (fba.u[i]! - fab.u[i]!);
    hv[i] = 0.25 * (fba.v[i]! - fab.v[i]!);
  }
  const { u, v } = resampleFlow(hu, hv, fab.width, fab.height, w, h);
  const out = new Float32Array(w * h * 3);
  const da = a.data;
  const db = b.data;
  const xm = w - 1;
  const ym = h - 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const du = u[i]!;
      const dv = v[i]!;
      let r = 0;
      let g = 0;
      let bl = 0;
      // Sample a at (x + du, y + dv) and b at (x − du, y − dv): bilinear, clamped, weight ½ each.
      for (let side = 0; side < 2; side++) {
        const src = side === 0 ? da : db;
        let px = side === 0 ? x + du : x - du;
        let py = side === 0 ? y + dv : y - dv;
        px = px < 0 ? 0 : px > xm ? xm : px;
        py = py < 0 ? 0 : py > ym ? ym : py;
        const x0 = px | 0;
        const y0 = py | 0;
        const x1 = x0 < xm ? x0 + 1 : x0;
        const y1 = y0 < ym ? y0 + 1 : y0;
        const fx = px - x0;
        const fy = py - y0;
        const w00 = 0.5 * (1 - fx) * (1 - fy);
        const w01 = 0.5 * fx * (1 - fy);
        const w10 = 0.5 * (1 - fx) * fy;
        const w11 = 0.5 * fx * fy;
        const p00 = (y0 * w + x0) * 3;
        const p01 = (y0 * w + x1) * 3;
        const p10 = (y1 * w + x0) * 3;
        const p11 = (y1 * w + x1) * 3;
        r += w00 * src[p00]! + w01 * src[p01]! + w10 * src[p10]! + w11 * src[p11]!;
        g += w00 * src[p00 + 1]! + w01 * src[p01 + 1]! + w10 * src[p10 + 1]! + w11 * src[p11 + 1]!;
        bl += w00 * src[p00 + 2]! + w01 * src[p01 + 2]! + w10 * src[p10 + 2]! + w11 * src[p11 + 2]!;
      }
      const o = i * 3;
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = bl;
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * Bilinear resampling of a flow field to (w, h), vectors scaled by the size ratio; into `out`
 * (w·h each) when given.
 */
export function resampleFlow(
  u: Float32Array,
  v: Float32Array,
  fw: number,
  fh: number,
  w: number,
  h: number,
  out?: { u: Float32Array; v: Float32Array },
): { u: Float32Array; v: Float32Array } {
  if (fw === w && fh === h) return { u, v };
  const ou = out?.u ?? new Float32Array(w * h);
  const ov = out?.v ?? new Float32Array(w * h);
  const sx = fw / w;
  const sy = fh / h;
  const mx = w / fw;
  const my = h / fh;
  // Per-column source positions, computed once.
  const xs0 = new Int32Array(w);
  const xs1 = new Int32Array(w);
  const xf = new Float32Array(w);
  for (let x = 0; x < w; x++) {
    let cx = (x + 0.5) * sx - 0.5;
    cx = cx < 0 ? 0 : cx > fw - 1 ? fw - 1 : cx;
    const x0 = cx | 0;
    xs0[x] = x0;
    xs1[x] = x0 + 1 < fw ? x0 + 1 : x0;
    xf[x] = cx - x0;
  }
  for (let y = 0; y < h; y++) {
    let cy = (y + 0.5) * sy - 0.5;
    cy = cy < 0 ? 0 : cy > fh - 1 ? fh - 1 : cy;
    const y0 = cy | 0;
    const y1 = y0 + 1 < fh ? y0 + 1 : y0;
    const fy = cy - y0;
    const r0 = y0 * fw;
    const r1 = y1 * fw;
    for (let x = 0; x < w; x++) {
      const a0 = xs0[x]!;
      const a1 = xs1[x]!;
      const fx = xf[x]!;
      const i = y * w + x;
      const ut = u[r0 + a0]! + fx * (u[r0 + a1]! - u[r0 + a0]!);
      const ub = u[r1 + a0]! + fx * (u[r1 + a1]! - u[r1 + a0]!);
      ou[i] = mx * (ut + fy * (ub - ut));
      const vt = v[r0 + a0]! + fx * (v[r0 + a1]! - v[r0 + a0]!);
      const vb = v[r1 + a0]! + fx * (v[r1 + a1]! - v[r1 + a0]!);
      ov[i] = my * (vt + fy * (vb - vt));
    }
  }
  return { u: ou, v: ov };
}
