/**
 * Permutation tests of "no difference", on the same clusters (prompts) the bootstrap resamples.
 *
 * **Paired: the sign-flip test.** When two runs' clips are matched (same prompt, same sample
 * index), the table holds each pair's difference. Under the null hypothesis (the two runs are
 * exchangeable within each prompt), which run is called which in any prompt does not matter:
 * every sign pattern s ∈ {±1}ⁿ of the prompts' differences is equally likely. Whole prompts are
 * flipped, not single clips, because a prompt's pairs share the prompt's effect on their
 * difference (its interaction with the model).
 *
 * **Unpaired: relabelling clusters.** When clips cannot be matched, the clusters of both runs in
 * one stratum are pooled and the run labels dealt again (each run keeping its number of
 * clusters there).
 *
 * Both return the statistic's distribution per variable, as a matrix (pattern × variable), so one
 * set of patterns serves every linear combination of the variables (each dimension, Quality,
 * Semantic, Total) and every shift of them (the regression gate's margin), at one pass's cost.
 * Each stratum draws from its own stream (`seed` + its key), as in the bootstrap.
 *
 * **p-values** (`permutationPValue`). With at most `resamples` sign patterns in all (2ⁿ ≤
 * resamples), every one is enumerated and p = #{T* at least as extreme as T} / 2ⁿ is exact (the
 * observed pattern is one of them). Otherwise B random patterns give p = (1 + #{…}) / (B + 1):
 * counting the observed statistic as one of the draws keeps the test's level at most α, and never
 * claims p = 0 from a finite sample (Phipson & Smyth 2010). "At least as extreme" allows a
 * relative 1e-9 for rounding, so that patterns equivalent to the observed one count.
 */
import type { ClusterTable } from './clusters.js';
import { randomBelow, seededRandom } from './random.js';

export type Alternative = 'two-sided' | 'less' | 'greater';

export interface PermutationOptions {
  resamples: number;
  /** Names of the random streams (each stratum's key is appended). */
  seed: readonly string[];
}

/**
 * The statistic's null distribution, per variable: row b holds pattern b's value of each
 * variable's statistic; `weights` (same shape) how a per-value shift of the variable moves it
 * (statistic + δ·weight is the statistic of the data with δ added to the values the shift
 * applies to).
 */
export interface NullDistribution {
  variables: number;
  patterns: number;
  /** True when every pattern was enumerated (the p-value is then exact, no +1). */
  exact: boolean;
  values: Float64Array;
  weights: Float64Array;
}

function totalsOf(table: ClusterTable): Float64Array {
  const V = table.variables;
  const totals = new Float64Array(V);
  for (let k = 0; k < table.cells.length; k++) totals[table.cells[k]! % V]! += table.counts[table.cells[k]!]!;
  return totals;
}

/**
 * Sign flips of a table of paired differences: per pattern and variable Σ_c s_c·sum_cv / N_v
 * (`values`) and Σ_c s_c·count_cv / N_v (`weights`: a shift δ of every difference moves the
 * statistic by δ·weight), N_v the variable's pairs. The identity pattern gives the mean
 * difference and weight 1.
 */
export function signFlipDistribution(table: ClusterTable, options: PermutationOptions): NullDistribution {
  const V = table.variables;
  const n = table.clusters.length;
  const totals = totalsOf(table);
  const exact = n < 31 && 2 ** n <= options.resamples;
  const patterns = exact ? 2 ** n : options.resamples;
  const values = new Float64Array(patterns * V);
  const weights = new Float64Array(patterns * V);
  const signs = new Int8Array(n);
  const streams = table.strata.map((s) => seededRandom(...options.seed, s.key));
  for (let b = 0; b < patterns; b++) {
    if (exact) for (let c = 0; c < n; c++) signs[c] = b & (1 << c) ? -1 : 1;
    else
      for (let g = 0; g < table.strata.length; g++) {
        const { start, end } = table.strata[g]!;
        const random = streams[g]!;
        // One 32-bit draw gives 32 fair signs.
        let bits = 0;
        for (let c = start; c < end; c++) {
          if ((c - start) % 32 === 0) bits = random.next();
          signs[c] = bits & 1 ? -1 : 1;
          bits >>>= 1;
        }
      }
    const row = b * V;
    for (let c = 0; c < n; c++) {
      const sign = signs[c]!;
      for (let k = table.cellStart[c]!; k < table.cellStart[c + 1]!; k++) {
        const cell = table.cells[k]!;
        const v = cell - c * V;
        values[row + v]! += (sign * table.sums[cell]!) / totals[v]!;
        weights[row + v]! += (sign * table.counts[cell]!) / totals[v]!;
      }
    }
  }
  return { variables: V, patterns, exact, values, weights };
}

/**
 * Relabellings of a pooled table (`labels[c]` 1 for the second run's clusters, 0 for the
 * first's): per pattern and variable mean₁ − mean₀ (ratio means, `values`), and how a shift δ of
 * the second run's values moves it (`weights`: its share of group 1's count minus its share of
 * group 0's). NaN where a relabelling leaves a group without a variable's values.
 */
export function relabelDistribution(
  table: ClusterTable,
  labels: Uint8Array,
  options: PermutationOptions,
): NullDistribution {
  const V = table.variables;
  const n = table.clusters.length;
  const patterns = options.resamples;
  const values = new Float64Array(patterns * V);
  const weights = new Float64Array(patterns * V);
  const streams = table.strata.map((s) => seededRandom(...options.seed, s.key));
  const shuffled = Uint8Array.from(labels);
  // Per variable and group: Σ sum, Σ count, Σ count of the second run's clusters.
  const sum = [new Float64Array(V), new Float64Array(V)] as const;
  const count = [new Float64Array(V), new Float64Array(V)] as const;
  const second = [new Float64Array(V), new Float64Array(V)] as const;
  for (let b = 0; b < patterns; b++) {
    for (let g = 0; g < table.strata.length; g++) {
      const { start, end } = table.strata[g]!;
      const random = streams[g]!;
      // Fisher–Yates within the stratum keeps each run's number of clusters there.
      for (let i = end - 1; i > start; i--) {
        const j = start + randomBelow(random, i - start + 1);
        const x = shuffled[i]!;
        shuffled[i] = shuffled[j]!;
        shuffled[j] = x;
      }
    }
    for (const k of [0, 1] as const) {
      sum[k].fill(0);
      count[k].fill(0);
      second[k].fill(0);
    }
    for (let c = 0; c < n; c++) {
      const k = shuffled[c] as 0 | 1;
      const isSecond = labels[c] === 1;
      for (let e = table.cellStart[c]!; e < table.cellStart[c + 1]!; e++) {
        const cell = table.cells[e]!;
        const v = cell - c * V;
        sum[k][v]! += table.sums[cell]!;
        count[k][v]! += table.counts[cell]!;
        if (isSecond) second[k][v]! += table.counts[cell]!;
      }
    }
    const row = b * V;
    for (let v = 0; v < V; v++) {
      values[row + v] = sum[1][v]! / count[1][v]! - sum[0][v]! / count[0][v]!;
      weights[row + v] = second[1][v]! / count[1][v]! - second[0][v]! / count[0][v]!;
    }
  }
  return { variables: V, patterns, exact: false, values, weights };
}

/**
 * The p-value of T = Σ_v c_v·(statistic_v + δ_v·weight_v) against the distribution:
 * `coefficients` c over the variables, `shift` δ (null: none). The observed T is computed from
 * `observed` (the statistic per variable on the data as labelled, with weight 1 for a paired
 * table's shift and 1 for the second run's shift unpaired).
 */
export function permutationPValue(
  distribution: NullDistribution,
  observed: ArrayLike<number>,
  coefficients: ArrayLike<number>,
  shift: ArrayLike<number> | null,
  alternative: Alternative,
): number {
  const V = distribution.variables;
  const used: number[] = [];
  for (let v = 0; v < V; v++) if (coefficients[v] !== 0) used.push(v);
  let t = 0;
  let scale = 0;
  for (const v of used) {
    const x = coefficients[v]! * (observed[v]! + (shift ? shift[v]! : 0));
    t += x;
    scale += Math.abs(x);
  }
  const tolerance = 1e-9 * Math.max(scale, Number.MIN_VALUE);
  let hits = 0;
  let counted = 0;
  for (let b = 0; b < distribution.patterns; b++) {
    let x = 0;
    const row = b * V;
    for (const v of used)
      x +=
        coefficients[v]! *
        (distribution.values[row + v]! + (shift ? shift[v]! * distribution.weights[row + v]! : 0));
    if (Number.isNaN(x)) continue;
    counted++;
    if (
      alternative === 'less'
        ? x <= t + tolerance
        : alternative === 'greater'
          ? x >= t - tolerance
          : Math.abs(x) >= Math.abs(t) - tolerance
    )
      hits++;
  }
  return distribution.exact ? hits / counted : (1 + hits) / (counted + 1);
}
