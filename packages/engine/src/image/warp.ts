/** Backward warping of RGB images by a flow field and halfway interpolation. */
import type { FlowField } from './flow.js';
import type { RgbImage } from './types.js';

function sampleRgb(src: Float32Array, w: number, h: number, x: number, y: number, out: Float32Array): void {
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
  const p00 = (y0 * w + x0) * 3;
  const p01 = (y0 * w + x1) * 3;
  const p10 = (y1 * w + x0) * 3;
  const p11 = (y1 * w + x1) * 3;
  for (let c = 0; c < 3; c++) {
    const a = src[p00 + c]! + fx * (src[p01 + c]! - src[p00 + c]!);
    const b = src[p10 + c]! + fx * (src[p11 + c]! - src[p10 + c]!);
    out[c] = a + fy * (b - a);
  }
}

/**
 * The frame halfway between `a` and `b`, from the flows a→b and b→a (given at the images'
 * resolution, or at any resolution: they are sampled with bilinear interpolation and rescaled).
 * With F01 = flow a→b and F10 = flow b→a, the flows from the middle frame are approximated as
 * F_t0 = ¼(F10 − F01) and F_t1 = ¼(F01 − F10) (linear motion, t = ½), and the result is
 * ½[a(x + F_t0) + b(x + F_t1)].
 */
export function interpolateHalfway(a: RgbImage, b: RgbImage, fab: FlowField, fba: FlowField): RgbImage {
  const { width: w, height: h } = a;
  const out = new Float32Array(w * h * 3);
  const pa = new Float32Array(3);
  const pb = new Float32Array(3);
  const same = fab.width === w && fab.height === h;
  const sx = fab.width / w;
  const sy = fab.height / h;
  const mx = w / fab.width;
  const my = h / fab.height;
  for (let y = 0; y < h; y++) {
    const cy = (y + 0.5) * sy - 0.5;
    for (let x = 0; x < w; x++) {
      let u01: number;
      let v01: number;
      let u10: number;
      let v10: number;
      if (same) {
        const i = y * w + x;
        u01 = fab.u[i]!;
        v01 = fab.v[i]!;
        u10 = fba.u[i]!;
        v10 = fba.v[i]!;
      } else {
        const cx = (x + 0.5) * sx - 0.5;
        u01 = mx * bilinear(fab.u, fab.width, fab.height, cx, cy);
        v01 = my * bilinear(fab.v, fab.width, fab.height, cx, cy);
        u10 = mx * bilinear(fba.u, fba.width, fba.height, cx, cy);
        v10 = my * bilinear(fba.v, fba.width, fba.height, cx, cy);
      }
      const ut0 = 0.25 * (u10 - u01);
      const vt0 = 0.25 * (v10 - v01);
      sampleRgb(a.data, w, h, x + ut0, y + vt0, pa);
      sampleRgb(b.data, w, h, x - ut0, y - vt0, pb);
      const o = (y * w + x) * 3;
      out[o] = 0.5 * (pa[0]! + pb[0]!);
      out[o + 1] = 0.5 * (pa[1]! + pb[1]!);
      out[o + 2] = 0.5 * (pa[2]! + pb[2]!);
    }
  }
  return { width: w, height: h, data: out };
}

function bilinear(src: Float32Array, w: number, h: number, x: number, y: number): number {
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
  const a = src[y0 * w + x0]! + fx * (src[y0 * w + x1]! - src[y0 * w + x0]!);
  const b = src[y1 * w + x0]! + fx * (src[y1 * w + x1]! - src[y1 * w + x0]!);
  return a + fy * (b - a);
}
