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
  /**
   * Also fill `weights` (default true): only tests with a shift (the regression gate's margin)
   * read them; without, `weights` is empty and a shifted test throws.
   */
  withWeights?: boolean;
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
  const withWeights = options.withWeights !== false;
  const weights = new Float64Array(withWeights ? patterns * V : 0);
  const signs = new Int8Array(n);
  const streams = table.strata.map((s) => seededRandom(...options.seed, s.key));
  // Each cell's variable and its sum and count over the variable's total, computed once: the
  // loop below then adds ±these (the same numbers as ±sum / total, bit for bit).
  const { cells, cellStart } = table;
  const cellVariable = new Int32Array(cells.length);
  const scaledSum = new Float64Array(cells.length);
  const scaledCount = new Float64Array(cells.length);
  for (let c = 0; c < n; c++)
    for (let k = cellStart[c]!; k < cellStart[c + 1]!; k++) {
      const cell = cells[k]!;
      const v = cell - c * V;
      cellVariable[k] = v;
      scaledSum[k] = table.sums[cell]! / totals[v]!;
      scaledCount[k] = table.counts[cell]! / totals[v]!;
    }
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
      const end = cellStart[c + 1]!;
      if (withWeights)
        for (let k = cellStart[c]!; k < end; k++) {
          const at = row + cellVariable[k]!;
          values[at]! += sign * scaledSum[k]!;
          weights[at]! += sign * scaledCount[k]!;
        }
      else for (let k = cellStart[c]!; k < end; k++) values[row + cellVariable[k]!]! += sign * scaledSum[k]!;
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
  const withWeights = options.withWeights !== false;
  const weights = new Float64Array(withWeights ? patterns * V : 0);
  const streams = table.strata.map((s) => seededRandom(...options.seed, s.key));
  const shuffled = Uint8Array.from(labels);
  // Per variable and group: Σ sum, Σ count, Σ count of the second run's clusters.
  // Group k's sums at [k·V + v].
  const sum = new Float64Array(2 * V);
  const count = new Float64Array(2 * V);
  const second = new Float64Array(2 * V);
  const { cells, cellStart } = table;
  const cellVariable = new Int32Array(cells.length);
  const cellSum = new Float64Array(cells.length);
  const cellCount = new Float64Array(cells.length);
  for (let c = 0; c < n; c++)
    for (let e = cellStart[c]!; e < cellStart[c + 1]!; e++) {
      const cell = cells[e]!;
      cellVariable[e] = cell - c * V;
      cellSum[e] = table.sums[cell]!;
      cellCount[e] = table.counts[cell]!;
    }
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
    sum.fill(0);
    count.fill(0);
    second.fill(0);
    for (let c = 0; c < n; c++) {
      const offset = shuffled[c]! * V;
      const isSecond = labels[c] === 1;
      for (let e = cellStart[c]!; e < cellStart[c + 1]!; e++) {
        const at = offset + cellVariable[e]!;
        sum[at]! += cellSum[e]!;
        count[at]! += cellCount[e]!;
        if (isSecond && withWeights) second[at]! += cellCount[e]!;
      }
    }
    const row = b * V;
    for (let v = 0; v < V; v++) {
      values[row + v] = sum[V + v]! / count[V + v]! - sum[v]! / count[v]!;
      if (withWeights) weights[row + v] = second[V + v]! / count[V + v]! - second[v]! / count[v]!;
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
  const list: number[] = [];
  for (let v = 0; v < V; v++) if (coefficients[v] !== 0) list.push(v);
  const used = Int32Array.from(list);
  if (shift && distribution.weights.length !== distribution.values.length)
    throw new RangeError('a shifted test needs a distribution drawn with weights');
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
  const { values, weights } = distribution;
  const c = Float64Array.from(list, (v) => coefficients[v]!);
  const d = Float64Array.from(list, (v) => (shift ? shift[v]! : 0));
  const u = used.length;
  for (let b = 0; b < distribution.patterns; b++) {
    let x = 0;
    const row = b * V;
    // The same sums as c·(value + δ·weight) term by term (no shift: c·value, the same number).
    if (shift)
      for (let i = 0; i < u; i++) x += c[i]! * (values[row + used[i]!]! + d[i]! * weights[row + used[i]!]!);
    else for (let i = 0; i < u; i++) x += c[i]! * values[row + used[i]!]!;
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
