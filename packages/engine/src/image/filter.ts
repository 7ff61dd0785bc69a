/** Separable box filter (running sums) with border-normalised means. */
import { scratchF32 } from './scratch.js';

/**
 * Box mean of radius r over a w×h float field, written into `out` (may not alias `src`).
 * `tmp` is scratch of the same length. Near borders the mean is over the pixels inside.
 */
export function boxMean(
  src: Float32Array,
  w: number,
  h: number,
  r: number,
  out: Float32Array,
  tmp: Float32Array,
): Float32Array {
  if (w <= 2 * r + 1 || h <= 2 * r + 1) return boxMeanSmall(src, w, h, r, out, tmp);
  const inv = 1 / (2 * r + 1);
  // Horizontal pass: src → tmp (interior with a constant divisor, edges with their own counts).
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    for (let x = 0; x <= r; x++) acc += src[row + x]!;
    for (let x = 0; x < r; x++) {
      tmp[row + x] = acc / (x + r + 1);
      acc += src[row + x + r + 1]!;
    }
    for (let x = r; x < w - r - 1; x++) {
      tmp[row + x] = acc * inv;
      acc += src[row + x + r + 1]! - src[row + x - r]!;
    }
    for (let x = w - r - 1; x < w; x++) {
      tmp[row + x] = acc / (w - x + r);
      acc -= src[row + x - r]!;
    }
  }
  // Vertical pass: tmp → out, row by row with a running column-sum vector (cache friendly).
  const acc = scratchF32('boxMean.acc', w);
  acc.fill(0);
  for (let y = 0; y <= r; y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) acc[x] = acc[x]! + tmp[o + x]!;
  }
  // One pass per row: emit the row's mean, then add the entering row and drop the leaving one.
  // acc is float32, so every step rounds as the separate passes did (Math.fround), keeping the
  // arithmetic bit for bit.
  const f = Math.fround;
  for (let y = 0; y < h; y++) {
    const lo = y - r < 0 ? 0 : y - r;
    const hi = y + r > h - 1 ? h - 1 : y + r;
    const k = 1 / (hi - lo + 1);
    const o = y * w;
    const add = y + r + 1;
    const sub = y - r;
    const ao = add * w;
    const so = sub * w;
    if (add < h && sub >= 0) {
      for (let x = 0; x < w; x++) {
        const a = acc[x]!;
        out[o + x] = a * k;
        acc[x] = f(a + tmp[ao + x]!) - tmp[so + x]!;
      }
    } else if (add < h) {
      for (let x = 0; x < w; x++) {
        const a = acc[x]!;
        out[o + x] = a * k;
        acc[x] = a + tmp[ao + x]!;
      }
    } else if (sub >= 0) {
      for (let x = 0; x < w; x++) {
        const a = acc[x]!;
        out[o + x] = a * k;
        acc[x] = a - tmp[so + x]!;
      }
    } else {
      for (let x = 0; x < w; x++) out[o + x] = acc[x]! * k;
    }
  }
  return out;
}

/**
 * `boxMean` of two fields of the same size at once (`outA`, `outB`; `tmpA`, `tmpB` scratch of that
 * length): each output is exactly what `boxMean` gives for its field, computed in shared loops.
 */
export function boxMean2(
  srcA: Float32Array,
  srcB: Float32Array,
  w: number,
  h: number,
  r: number,
  outA: Float32Array,
  outB: Float32Array,
  tmpA: Float32Array,
  tmpB: Float32Array,
): void {
  if (w <= 2 * r + 1 || h <= 2 * r + 1) {
    boxMeanSmall(srcA, w, h, r, outA, tmpA);
    boxMeanSmall(srcB, w, h, r, outB, tmpB);
    return;
  }
  const inv = 1 / (2 * r + 1);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let accA = 0;
    let accB = 0;
    for (let x = 0; x <= r; x++) {
      accA += srcA[row + x]!;
      accB += srcB[row + x]!;
    }
    for (let x = 0; x < r; x++) {
      const c = x + r + 1;
      tmpA[row + x] = accA / c;
      tmpB[row + x] = accB / c;
      accA += srcA[row + x + r + 1]!;
      accB += srcB[row + x + r + 1]!;
    }
    for (let x = r; x < w - r - 1; x++) {
      tmpA[row + x] = accA * inv;
      tmpB[row + x] = accB * inv;
      accA += srcA[row + x + r + 1]! - srcA[row + x - r]!;
      accB += srcB[row + x + r + 1]! - srcB[row + x - r]!;
    }
    for (let x = w - r - 1; x < w; x++) {
      const c = w - x + r;
      tmpA[row + x] = accA / c;
      tmpB[row + x] = accB / c;
      accA -= srcA[row + x - r]!;
      accB -= srcB[row + x - r]!;
    }
  }
  const acA = scratchF32('boxMean2.accA', w);
  const acB = scratchF32('boxMean2.accB', w);
  acA.fill(0);
  acB.fill(0);
  for (let y = 0; y <= r; y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) {
      acA[x] = acA[x]! + tmpA[o + x]!;
      acB[x] = acB[x]! + tmpB[o + x]!;
    }
  }
  const f = Math.fround;
  for (let y = 0; y < h; y++) {
    const lo = y - r < 0 ? 0 : y - r;
    const hi = y + r > h - 1 ? h - 1 : y + r;
    const k = 1 / (hi - lo + 1);
    const o = y * w;
    const add = y + r + 1;
    const sub = y - r;
    const ao = add * w;
    const so = sub * w;
    if (add < h && sub >= 0) {
      for (let x = 0; x < w; x++) {
        const a = acA[x]!;
        const b = acB[x]!;
        outA[o + x] = a * k;
        outB[o + x] = b * k;
        acA[x] = f(a + tmpA[ao + x]!) - tmpA[so + x]!;
        acB[x] = f(b + tmpB[ao + x]!) - tmpB[so + x]!;
      }
    } else if (add < h) {
      for (let x = 0; x < w; x++) {
        const a = acA[x]!;
        const b = acB[x]!;
        outA[o + x] = a * k;
        outB[o + x] = b * k;
        acA[x] = a + tmpA[ao + x]!;
        acB[x] = b + tmpB[ao + x]!;
      }
    } else if (sub >= 0) {
      for (let x = 0; x < w; x++) {
        const a = acA[x]!;
        const b = acB[x]!;
        outA[o + x] = a * k;
        outB[o + x] = b * k;
        acA[x] = a - tmpA[so + x]!;
        acB[x] = b - tmpB[so + x]!;
      }
    } else {
      for (let x = 0; x < w; x++) {
        outA[o + x] = acA[x]! * k;
        outB[o + x] = acB[x]! * k;
      }
    }
  }
}

/** Reference implementation for fields narrower or shorter than one window. */
function boxMeanSmall(
  src: Float32Array,
  w: number,
  h: number,
  r: number,
  out: Float32Array,
  tmp: Float32Array,
): Float32Array {
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let s = 0;
      const lo = Math.max(0, x - r);
      const hi = Math.min(w - 1, x + r);
      for (let k = lo; k <= hi; k++) s += src[row + k]!;
      tmp[row + x] = s / (hi - lo + 1);
    }
  }
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      let s = 0;
      const lo = Math.max(0, y - r);
      const hi = Math.min(h - 1, y + r);
      for (let k = lo; k <= hi; k++) s += tmp[k * w + x]!;
      out[y * w + x] = s / (hi - lo + 1);
    }
  }
  return out;
}

/** Central-difference gradients (one-sided at the borders), ½·(I[x+1] − I[x−1]). */
export function gradients(src: Float32Array, w: number, h: number, gx: Float32Array, gy: Float32Array): void {
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const up = (y > 0 ? y - 1 : y) * w;
    const down = (y < h - 1 ? y + 1 : y) * w;
    const sy = y > 0 && y < h - 1 ? 0.5 : 1;
    for (let x = 0; x < w; x++) {
      const l = x > 0 ? x - 1 : x;
      const r = x < w - 1 ? x + 1 : x;
      const sx = x > 0 && x < w - 1 ? 0.5 : 1;
      gx[row + x] = w > 1 ? sx * (src[row + r]! - src[row + l]!) : 0;
      gy[row + x] = h > 1 ? sy * (src[down + x]! - src[up + x]!) : 0;
    }
  }
}
