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

/** All permutations of 0..n−1 (Heap's algorithm); n ≤ 8 here (8! = 40 320). */
function permutations(n: number): number[][] {
  const a = Array.from({ length: n }, (_, i) => i);
  const out: number[][] = [a.slice()];
  const c = new Array<number>(n).fill(0);
  let i = 0;
  while (i < n) {
    if (c[i]! < i) {
      const j = i % 2 === 0 ? 0 : c[i]!;
      [a[j], a[i]] = [a[i]!, a[j]!];
      out.push(a.slice());
      c[i]!++;
      i = 0;
    } else {
      c[i] = 0;
      i++;
    }
  }
  return out;
}

/**
 * Exact one-sided permutation p-value of Spearman's ρ: the share of the n! orderings of `a`
 * against `b` whose ρ is at least the observed one (ties as observed). Only for n ≤ 8.
 */
export function spearmanPermutationP(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  if (n !== b.length || n < 2 || n > 8)
    throw new RangeError('spearmanPermutationP: 2 ≤ n ≤ 8, equal lengths');
  const observed = spearman(a, b);
  if (Number.isNaN(observed)) return NaN;
  let atLeast = 0;
  const perms = permutations(n);
  for (const p of perms)
    if (
      spearman(
        p.map((i) => a[i]!),
        b,
      ) >=
      observed - 1e-12
    )
      atLeast++;
  return atLeast / perms.length;
}

/** Spearman's ρ with each item left out in turn (NaN where fewer than 3 remain or a series is constant). */
export function leaveOneOutSpearman(a: readonly number[], b: readonly number[]): number[] {
  return a.map((_, k) =>
    spearman(
      a.filter((__, i) => i !== k),
      b.filter((__, i) => i !== k),
    ),
  );
}

/**
 * Concordance of items across groups: for every pair of items from two groups whose reference
 * values differ (and, when items carry a `block`, from the same block), whether the items' values
 * are ordered like the groups' references. Returns the concordant share (ties in the items'
 * values count half) and the number of pairs.
 */
export function crossGroupConcordance(
  items: ReadonlyArray<{ group: string; value: number; block?: string }>,
  reference: ReadonlyMap<string, number>,
): { share: number; pairs: number } {
  let score = 0;
  let pairs = 0;
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i]!;
      const b = items[j]!;
      const ra = reference.get(a.group);
      const rb = reference.get(b.group);
      if (a.group === b.group || ra === undefined || rb === undefined || ra === rb) continue;
      if (a.block !== b.block) continue;
      pairs++;
      const s = Math.sign(a.value - b.value) * Math.sign(ra - rb);
      score += s > 0 ? 1 : s === 0 ? 0.5 : 0;
    }
  }
  return { share: pairs > 0 ? score / pairs : NaN, pairs };
}
