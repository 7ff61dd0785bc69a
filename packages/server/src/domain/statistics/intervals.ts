/**
 * Confidence intervals from bootstrap replicates.
 *
 * **Which interval, and why.** A simulation (test/statistics-simulation.test.ts; figures in
 * docs/statistics.md) drew clustered scores with known means and checked how often each
 * interval covered the truth. With the 12–14 prompts of a clip group, the percentile interval
 * (2.5th–97.5th percentile of n-of-n replicates) covered 92–93 % instead of 95 %, and 82–85 %
 * with 5 prompts; BCa did no better, since neither corrects the two small-sample effects: the
 * replicate variance is (n − 1)/n too small, and a normal (z) quantile is used where the
 * estimate's standardised error has Student's t tails. Vesta therefore uses
 *
 *   estimate ± t(0.975; df) · SE,
 *
 * with SE the standard deviation of the n − 1-of-n replicates (unbiased for a linear statistic,
 * see bootstrap.ts) and df by Welch–Satterthwaite from each stratum's share of the variance
 * (df = n − 1 for one clip group of n prompts). It covered 94–96 % from 5 prompts up, and 95 %
 * with 3, where percentile intervals cannot (their end points never leave the range of the
 * prompts' own means). It is symmetric; where a score is bounded (a dimension in [0, 1]) callers
 * may clip the ends to the bound, which changes no coverage.
 *
 * The percentile interval is here too, for statistics whose replicates are far from normal.
 */
import { createRequire } from 'node:module';

/** The part of jStat (a CommonJS statistics library without type declarations) used here. */
interface Quantiles {
  studentt: { inv(p: number, df: number): number };
  normal: { inv(p: number, mean: number, sd: number): number };
}
const jStat = createRequire(import.meta.url)('jstat') as Quantiles;

export interface VarianceComponent {
  /** The variance this independent part contributes (e.g. one stratum's replicate variance). */
  variance: number;
  /** Its degrees of freedom (clusters − 1 for a stratum). */
  df: number;
}

export interface Interval {
  low: number;
  high: number;
  /** Standard error of the estimate. */
  se: number;
  /** Degrees of freedom of the t quantile. */
  df: number;
}

/** Sample variance (n − 1) of the finite values, and how many there were. */
export function finiteVariance(values: ArrayLike<number>): { variance: number; n: number } {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (!Number.isFinite(x)) continue;
    n++;
    const d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  return { variance: n > 1 ? m2 / (n - 1) : Number.NaN, n };
}

/**
 * Welch–Satterthwaite degrees of freedom of a sum of independent variance components:
 * (Σ v)² / Σ (v² / df). Components with no variance do not count; all-zero gives Infinity.
 */
export function satterthwaiteDf(components: readonly VarianceComponent[]): number {
  let total = 0;
  let denominator = 0;
  for (const { variance, df } of components) {
    if (variance <= 0) continue;
    total += variance;
    denominator += (variance * variance) / df;
  }
  return denominator === 0 ? Number.POSITIVE_INFINITY : (total * total) / denominator;
}

/** Student's t quantile (df may be fractional; Infinity gives the normal quantile). */
export function tQuantile(p: number, df: number): number {
  return Number.isFinite(df) ? jStat.studentt.inv(p, df) : jStat.normal.inv(p, 0, 1);
}

/**
 * estimate ± t((1 + level)/2; df)·SE with SE² = Σ component variances and df by
 * Welch–Satterthwaite; null when a component that varies has no degrees of freedom (a stratum of
 * one cluster: its variance cannot be estimated) or a variance is not finite.
 */
export function studentInterval(
  estimate: number,
  components: readonly VarianceComponent[],
  level = 0.95,
): Interval | null {
  if (!Number.isFinite(estimate)) return null;
  if (components.some((c) => !Number.isFinite(c.variance) || c.df < 1)) return null;
  const variance = components.reduce((sum, c) => sum + c.variance, 0);
  const se = Math.sqrt(variance);
  const df = satterthwaiteDf(components);
  if (se === 0) return { low: estimate, high: estimate, se: 0, df };
  const t = tQuantile((1 + level) / 2, df);
  return { low: estimate - t * se, high: estimate + t * se, se, df };
}

/**
 * The (1 − level)/2 and (1 + level)/2 percentiles of the finite replicates (linear interpolation
 * between order statistics); null when fewer than two are finite. Under-covers with few clusters
 * (see above).
 */
export function percentileInterval(
  replicates: ArrayLike<number>,
  level = 0.95,
): { low: number; high: number } | null {
  const finite = Float64Array.from(Array.prototype.filter.call(replicates, Number.isFinite) as number[]);
  if (finite.length < 2) return null;
  finite.sort();
  const at = (p: number): number => {
    const h = (finite.length - 1) * p;
    const lo = Math.floor(h);
    return finite[lo]! + (finite[Math.min(lo + 1, finite.length - 1)]! - finite[lo]!) * (h - lo);
  };
  return { low: at((1 - level) / 2), high: at((1 + level) / 2) };
}
