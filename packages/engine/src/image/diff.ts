/** Pixel differences on packed uint8 buffers. */

/** Mean of |a_i − b_i| over all values (VBench's per-pair MAE). Buffers must have equal length. */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  const n = a.length;
  if (b.length !== n) throw new RangeError('meanAbsDiff: buffers differ in length');
  if (n === 0) return 0;
  // Integer partial sums stay exact: 255 · 2^21 < 2^31 per block.
  let total = 0;
  const block = 1 << 21;
  for (let start = 0; start < n; start += block) {
    const end = Math.min(n, start + block);
    let s = 0;
    for (let i = start; i < end; i++) {
      const d = a[i]! - b[i]!;
      s += d < 0 ? -d : d;
    }
    total += s;
  }
  return total / n;
}
