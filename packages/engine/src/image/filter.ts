/** Separable box filter (running sums) with border-normalised means. */

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
  // Horizontal pass: src → tmp.
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    const first = Math.min(r, w - 1);
    for (let x = 0; x <= first; x++) acc += src[row + x]!;
    for (let x = 0; x < w; x++) {
      const lo = x - r < 0 ? 0 : x - r;
      const hi = x + r > w - 1 ? w - 1 : x + r;
      tmp[row + x] = acc / (hi - lo + 1);
      const add = x + r + 1;
      const sub = x - r;
      if (add < w) acc += src[row + add]!;
      if (sub >= 0) acc -= src[row + sub]!;
    }
  }
  // Vertical pass: tmp → out.
  for (let x = 0; x < w; x++) {
    let acc = 0;
    const first = Math.min(r, h - 1);
    for (let y = 0; y <= first; y++) acc += tmp[y * w + x]!;
    for (let y = 0; y < h; y++) {
      const lo = y - r < 0 ? 0 : y - r;
      const hi = y + r > h - 1 ? h - 1 : y + r;
      out[y * w + x] = acc / (hi - lo + 1);
      const add = y + r + 1;
      const sub = y - r;
      if (add < h) acc += tmp[add * w + x]!;
      if (sub >= 0) acc -= tmp[sub * w + x]!;
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
