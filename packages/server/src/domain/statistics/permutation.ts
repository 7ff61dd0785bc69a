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
import { cellsByVariable } from './clusters.js';
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
  // Signs as ±1 doubles (the products are the same numbers as with integer signs).
  const signs = new Float64Array(n);
  const streams = table.strata.map((s) => seededRandom(...options.seed, s.key));
  // Each cell's sum and count over its variable's total, computed once, variable by variable
  // (each variable's cells in cluster order): the loop below then adds ±these into one local sum
  // per variable, in the order the clusters come — the same numbers as ±sum / total, added in the
  // same order as cluster by cluster, bit for bit.
  const { variableStart, cellCluster, cellSum, cellCount } = cellsByVariable(table);
  const scaledSum = new Float64Array(cellSum.length);
  const scaledCount = new Float64Array(cellSum.length);
  for (let v = 0; v < V; v++)
    for (let k = variableStart[v]!; k < variableStart[v + 1]!; k++) {
      scaledSum[k] = cellSum[k]! / totals[v]!;
      scaledCount[k] = cellCount[k]! / totals[v]!;
    }
  for (let b = 0; b < patterns; b++) {
    if (exact) for (let c = 0; c < n; c++) signs[c] = b & (1 << c) ? -1 : 1;
    else
      for (let g = 0; g < table.strata.length; g++) {
        const { start, end } = table.strata[g]!;
        const random = streams[g]!;
        // One 32-bit draw gives 32 fair signs (bit 1 → −1).
        for (let from = start; from < end; from += 32) {
          let bits = random.next();
          const to = Math.min(end, from + 32);
          for (let c = from; c < to; c++) {
            signs[c] = 1 - 2 * (bits & 1);
            bits >>>= 1;
          }
        }
      }
    const row = b * V;
    for (let v = 0; v < V; v++) {
      const end = variableStart[v + 1]!;
      let x = 0;
      if (withWeights) {
        let y = 0;
        for (let k = variableStart[v]!; k < end; k++) {
          const sign = signs[cellCluster[k]!]!;
          x += sign * scaledSum[k]!;
          y += sign * scaledCount[k]!;
        }
        weights[row + v] = y;
      } else for (let k = variableStart[v]!; k < end; k++) x += signs[cellCluster[k]!]! * scaledSum[k]!;
      values[row + v] = x;
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
  const patterns = options.resamples;
  const values = new Float64Array(patterns * V);
  const withWeights = options.withWeights !== false;
  const weights = new Float64Array(withWeights ? patterns * V : 0);
  const streams = table.strata.map((s) => seededRandom(...options.seed, s.key));
  const shuffled = Uint8Array.from(labels);
  // Per variable, its cells in cluster order (as a cluster-by-cluster pass adds them) with each
  // cell's sum and count; and per cluster its own label as a number.
  const { variableStart, cellCluster, cellSum, cellCount, finite } = cellsByVariable(table);
  const isSecond = Float64Array.from(labels);
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
    const row = b * V;
    for (let v = 0; v < V; v++) {
      // Group k's Σ sum, Σ count and Σ count of the second run's clusters, over the variable's
      // cells in cluster order. A cell of the other group adds 0·x = ±0, which changes no sum
      // (each starts at +0 and only −0 + −0 gives −0): the same numbers as adding each cell to
      // its own group only, without a branch on the random labels — unless a cell's sum
      // overflowed to ±∞ (0·∞ is NaN), when the cells are added to their group alone.
      let sum0 = 0;
      let sum1 = 0;
      let count0 = 0;
      let count1 = 0;
      let second0 = 0;
      let second1 = 0;
      const end = variableStart[v + 1]!;
      for (let k = variableStart[v]!; k < end; k++) {
        const c = cellCluster[k]!;
        const one = shuffled[c]!;
        const x = cellSum[k]!;
        const n = cellCount[k]!;
        if (!finite) {
          if (one === 1) {
            sum1 += x;
            count1 += n;
          } else {
            sum0 += x;
            count0 += n;
          }
          if (withWeights && isSecond[c] === 1) {
            if (one === 1) second1 += n;
            else second0 += n;
          }
          continue;
        }
        const zero = 1 - one;
        sum1 += one * x;
        sum0 += zero * x;
        count1 += one * n;
        count0 += zero * n;
        if (withWeights) {
          const own = isSecond[c]! * n;
          second1 += one * own;
          second0 += zero * own;
        }
      }
      values[row + v] = sum1 / count1 - sum0 / count0;
      if (withWeights) weights[row + v] = second1 / count1 - second0 / count0;
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
