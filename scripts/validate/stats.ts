/**
 * Rank statistics for the validation harness: Spearman's ρ (Pearson correlation of average ranks,
 * so ties are handled) and Kendall's τ-b (tie-corrected). Both are in [−1, 1]; NaN when either
 * series is constant or shorter than 2.
 */

/** 1-based ranks, ties get the mean of the ranks they span. */
export function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x);
  const ranks = new Array<number>(xs.length);
  let k = 0;
  while (k < order.length) {
    let j = k;
    while (j + 1 < order.length && order[j + 1]!.x === order[k]!.x) j++;
    const r = (k + j) / 2 + 1;
    for (let m = k; m <= j; m++) ranks[order[m]!.i] = r;
    k = j + 1;
  }
  return ranks;
}

export function pearson(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError('pearson: series differ in length');
  const n = a.length;
  if (n < 2) return NaN;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i]! - ma;
    const db = b[i]! - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

export function spearman(a: readonly number[], b: readonly number[]): number {
  return pearson(averageRanks(a), averageRanks(b));
}

/** Kendall's τ-b: (C − D)/√((n0 − n1)(n0 − n2)), n1/n2 the pairs tied in a/b. */
export function kendallTauB(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError('kendall: series differ in length');
  const n = a.length;
  if (n < 2) return NaN;
  let concordant = 0;
  let discordant = 0;
  let tiesA = 0;
  let tiesB = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const da = Math.sign(a[i]! - a[j]!);
      const db = Math.sign(b[i]! - b[j]!);
      if (da === 0 && db === 0) continue;
      if (da === 0) tiesA++;
      else if (db === 0) tiesB++;
      else if (da === db) concordant++;
      else discordant++;
    }
  }
  const denom = Math.sqrt((concordant + discordant + tiesA) * (concordant + discordant + tiesB));
  return denom > 0 ? (concordant - discordant) / denom : NaN;
}

/** +1 strictly increasing, −1 strictly decreasing, 0 otherwise. */
export function monotonicity(xs: readonly number[], eps = 0): -1 | 0 | 1 {
  let up = true;
  let down = true;
  for (let i = 1; i < xs.length; i++) {
    if (!(xs[i]! > xs[i - 1]! + eps)) up = false;
    if (!(xs[i]! < xs[i - 1]! - eps)) down = false;
  }
  return up && xs.length > 1 ? 1 : down && xs.length > 1 ? -1 : 0;
}
