/**
 * How well each automated dimension agrees with the people's votes, and an optional team score
 * fitted to them. docs/statistics.md ("Human judgement") states the definitions; the simulation
 * in test/judging-statistics.test.ts checks them against a dimension built to agree with p = 0.8.
 */
import {
  bootstrapRatioMeans,
  clusterTable,
  finiteVariance,
  randomBelow,
  ratioMeans,
  seededRandom,
  studentInterval,
} from '../statistics/index.js';
import type { Observation } from '../statistics/index.js';
import { canonicalOrder, clusterKeys, isDecided } from './votes.js';
import type { VoteRecord } from './votes.js';

export interface DimensionAgreementInput {
  votes: readonly VoteRecord[];
  /** Per clip id, its dimensions' scores (higher is better, as for all of VBench's). */
  clipScores: Record<string, Record<string, number>>;
  /** The clip id of a vote's side A or B. */
  clipOf: (vote: VoteRecord, side: 'a' | 'b') => string;
  items: readonly string[];
  /** Per item, its rating (from `rate`). */
  ratings: Record<string, number>;
  /** Per item, its dimensions' scores (e.g. a run's dimension score, a Rank candidate's own). */
  itemScores: Record<string, Record<string, number>>;
  seed: string;
}

export interface DimensionRow {
  dimension: string;
  /** Decided votes whose two clips both have a score of this dimension. */
  pairs: number;
  /** Share of them where the dimension prefers the clip people chose (equal scores count ½). */
  agreement: number;
  /** 95 % interval over prompts, within [0, 1]; NaN when it cannot be estimated. */
  ci95Low: number;
  ci95High: number;
  /** Kendall τ-b between the dimension's per-item scores and the ratings; null when undefined. */
  kendallTau: number | null;
}

export interface FittedScore {
  /** Share of held-out votes the fitted score predicts (leave-prompts-out cross-validation). */
  heldOutAccuracy: number;
  bestSingleDimension: string;
  /** The best single dimension's accuracy on the same votes (no preference where unscored: ½). */
  bestSingleAccuracy: number;
  /** Weight per unit of each dimension's score: team score of a clip = Σ weight · score. */
  weights: Record<string, number>;
  label: string;
}

export interface DimensionAgreement {
  dimensions: DimensionRow[];
  fitted: FittedScore | null;
}

export const AGREEMENT_RESAMPLES = 1000;
export const FITTED_LABEL = 'fitted to this campaign';
/** The fitted score needs at least this many decided votes. */
export const MIN_FIT_VOTES = 10;
const FOLDS = 5;
/** L2 penalty of the logistic regression, on differences scaled to unit root mean square. */
const LOGISTIC_PENALTY = 1;

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** 1 when the dimension prefers the chosen clip, 0 the other, ½ for equal scores. */
function credit(chosen: number, other: number): number {
  return chosen > other ? 1 : chosen < other ? 0 : 0.5;
}

export function dimensionAgreement(input: DimensionAgreementInput): DimensionAgreement {
  const decided = canonicalOrder(input.votes).filter(isDecided);
  const dimensionSet = new Set<string>();
  for (const scores of Object.values(input.clipScores))
    for (const d of Object.keys(scores)) dimensionSet.add(d);
  const dimensions = [...dimensionSet].sort(byText);
  const D = dimensions.length;
  const keys = clusterKeys(decided);

  // Per vote, the difference chosen − other of each dimension (NaN: a clip lacks the score).
  const differences = decided.map((v) => {
    const chosenSide = v.outcome === 'a' ? 'a' : 'b';
    const chosen = input.clipScores[input.clipOf(v, chosenSide)] ?? {};
    const other = input.clipScores[input.clipOf(v, chosenSide === 'a' ? 'b' : 'a')] ?? {};
    return dimensions.map((d) => {
      const x = chosen[d];
      const y = other[d];
      return Number.isFinite(x) && Number.isFinite(y) ? x! - y! : Number.NaN;
    });
  });

  const observations: Observation[] = [];
  differences.forEach((row, n) =>
    row.forEach((diff, d) => {
      if (!Number.isNaN(diff))
        observations.push({ stratum: 'votes', cluster: keys[n]!, variable: d, value: credit(diff, 0) });
    }),
  );
  const table = clusterTable(observations, Math.max(D, 1));
  const estimates = new Float64Array(Math.max(D, 1));
  ratioMeans(table, null, estimates);
  const C = table.clusters.length;
  // One prompt: every vote is its own unit, and the n − 1 of n bootstrap's variance of a mean of
  // n independent votes is s²/n exactly, so it is computed rather than drawn.
  const voteLevel = new Set(decided.map((v) => v.promptKey)).size < 2;
  const replicates =
    !voteLevel && C >= 2 && D > 0
      ? bootstrapRatioMeans(table, {
          resamples: AGREEMENT_RESAMPLES,
          seed: [input.seed, 'dimension agreement'],
        })
      : null;
  const column = new Float64Array(AGREEMENT_RESAMPLES);

  const rows: DimensionRow[] = dimensions.map((dimension, d) => {
    let pairs = 0;
    for (const row of differences) if (!Number.isNaN(row[d]!)) pairs++;
    let low = Number.NaN;
    let high = Number.NaN;
    let variance = Number.NaN;
    let holding = 0; // units holding this dimension's votes: the t quantile's df is holding − 1
    if (replicates && pairs > 0) {
      for (let b = 0; b < AGREEMENT_RESAMPLES; b++) column[b] = replicates[b * D + d]!;
      for (let c = 0; c < C; c++) if (table.counts[c * table.variables + d]! > 0) holding++;
      variance = finiteVariance(column).variance;
    } else if (voteLevel && pairs > 1) {
      const credits = differences.filter((row) => !Number.isNaN(row[d]!)).map((row) => credit(row[d]!, 0));
      holding = credits.length;
      variance = finiteVariance(credits).variance / holding;
    }
    const interval = holding >= 2 ? studentInterval(estimates[d]!, [{ variance, df: holding - 1 }]) : null;
    if (interval) {
      low = Math.max(0, interval.low);
      high = Math.min(1, interval.high);
    }
    return {
      dimension,
      pairs,
      agreement: pairs > 0 ? estimates[d]! : Number.NaN,
      ci95Low: low,
      ci95High: high,
      kendallTau: kendallTauB(
        input.items.map((item) => input.itemScores[item]?.[dimension] ?? Number.NaN),
        input.items.map((item) => input.ratings[item] ?? Number.NaN),
      ),
    };
  });

  return { dimensions: rows, fitted: fitTeamScore(dimensions, differences, keys, rows, input.seed) };
}

/**
 * Kendall's τ-b of two paired lists over the positions where both are finite:
 * (concordant − discordant) / √((n₀ − n₁)(n₀ − n₂)), n₀ = n(n − 1)/2 and n₁, n₂ the pairs tied in
 * x and in y. Null with fewer than two positions or when either list is constant.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  const xs: number[] = [];
  const ys: number[] = [];
  x.forEach((value, n) => {
    if (Number.isFinite(value) && Number.isFinite(y[n])) {
      xs.push(value);
      ys.push(y[n]!);
    }
  });
  const n = xs.length;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(xs[i]! - xs[j]!);
      const dy = Math.sign(ys[i]! - ys[j]!);
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx * dy > 0) concordant++;
      else if (dx * dy < 0) discordant++;
    }
  const n0 = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((n0 - tiedX) * (n0 - tiedY));
  return n >= 2 && denominator > 0 ? (concordant - discordant) / denominator : null;
}

/**
 * The fitted team score: P(people choose the clip) = σ(Σ w_d · (score_d(chosen) − score_d(other)))
 * — a logistic regression without intercept (left and right are already randomised, and the
 * model must be antisymmetric) with an L2 penalty, on differences scaled to unit root mean square
 * per dimension; a dimension a clip lacks contributes 0 (no preference). Its accuracy is measured
 * on held-out prompts: the prompts (the votes, for a one-prompt campaign) are shuffled by the seed
 * into up to 5 folds, each fold predicted by the model fitted on the others. Null with fewer than
 * 10 decided votes, 2 resampling units or 2 dimensions.
 */
function fitTeamScore(
  dimensions: readonly string[],
  differences: readonly number[][],
  keys: readonly string[],
  rows: readonly DimensionRow[],
  seed: string,
): FittedScore | null {
  const used = dimensions.map((_, d) => d).filter((d) => rows[d]!.pairs > 0);
  const units = [...new Set(keys)].sort(byText);
  if (used.length < 2 || differences.length < MIN_FIT_VOTES || units.length < 2) return null;
  const x = differences.map((row) => used.map((d) => (Number.isNaN(row[d]!) ? 0 : row[d]!)));

  // Folds: the units in a seeded shuffle, dealt round-robin.
  const random = seededRandom(seed, 'fitted team score folds');
  for (let n = units.length - 1; n > 0; n--) {
    const m = randomBelow(random, n + 1);
    [units[n], units[m]] = [units[m]!, units[n]!];
  }
  const folds = Math.min(FOLDS, units.length);
  const foldOf = new Map(units.map((unit, n) => [unit, n % folds]));
  let correct = 0;
  for (let f = 0; f < folds; f++) {
    const train = x.filter((_, n) => foldOf.get(keys[n]!) !== f);
    const weights = fitLogistic(train);
    x.forEach((row, n) => {
      if (foldOf.get(keys[n]!) !== f) return;
      let z = 0;
      row.forEach((v, k) => (z += weights[k]! * v));
      correct += credit(z, 0); // every row is "chosen − other": z > 0 predicts the people's choice
    });
  }
  const heldOutAccuracy = correct / x.length;

  let best = used[0]!;
  let bestAccuracy = -1;
  used.forEach((d, k) => {
    let sum = 0;
    for (const row of x) sum += credit(row[k]!, 0);
    const accuracy = sum / x.length;
    if (accuracy > bestAccuracy) {
      bestAccuracy = accuracy;
      best = d;
    }
  });

  const weights = fitLogistic(x);
  return {
    heldOutAccuracy,
    bestSingleDimension: dimensions[best]!,
    bestSingleAccuracy: bestAccuracy,
    weights: Object.fromEntries(used.map((d, k) => [dimensions[d]!, weights[k]!])),
    label: FITTED_LABEL,
  };
}

/**
 * Penalised logistic regression of "the chosen clip won" on rows of chosen − other differences:
 * every row's label is 1, and the symmetric copy (other − chosen, label 0) is implied — without an
 * intercept the two give the same likelihood, so the fit uses Σ log σ(w·x). Each column is scaled
 * to unit root mean square, fitted by Newton's method with the penalty ½λ‖w‖², and the weights
 * returned per unscaled unit.
 */
function fitLogistic(rows: readonly number[][]): number[] {
  const P = rows[0]?.length ?? 0;
  const N = rows.length;
  const scale = new Float64Array(P);
  for (const row of rows) for (let k = 0; k < P; k++) scale[k]! += row[k]! * row[k]!;
  for (let k = 0; k < P; k++) scale[k] = Math.sqrt(scale[k]! / Math.max(N, 1)) || 1;
  const z = new Float64Array(N * P);
  rows.forEach((row, n) => {
    for (let k = 0; k < P; k++) z[n * P + k] = row[k]! / scale[k]!;
  });
  const w = new Float64Array(P);
  const g = new Float64Array(P);
  const h = new Float64Array(P * P);
  for (let iteration = 0; iteration < 100; iteration++) {
    h.fill(0);
    for (let k = 0; k < P; k++) {
      g[k] = -LOGISTIC_PENALTY * w[k]!;
      h[k * P + k] = LOGISTIC_PENALTY;
    }
    for (let n = 0; n < N; n++) {
      const o = n * P;
      let eta = 0;
      for (let k = 0; k < P; k++) eta += w[k]! * z[o + k]!;
      const p = 1 / (1 + Math.exp(-eta));
      const v = p * (1 - p);
      for (let r = 0; r < P; r++) {
        const zr = z[o + r]!;
        if (zr === 0) continue;
        g[r]! += (1 - p) * zr;
        const vr = v * zr;
        for (let c = 0; c <= r; c++) h[r * P + c]! += vr * z[o + c]!;
      }
    }
    for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) h[r * P + c] = h[c * P + r]!;
    const step = solve(
      Array.from({ length: P }, (_, r) => Array.from(h.subarray(r * P, r * P + P))),
      Array.from(g),
    );
    let largest = 0;
    for (let k = 0; k < P; k++) {
      w[k]! += step[k]!;
      largest = Math.max(largest, Math.abs(step[k]!));
    }
    if (largest < 1e-10) break;
  }
  return Array.from(w, (wk, k) => wk / scale[k]!);
}

/** Gaussian elimination with partial pivoting (small symmetric positive definite systems). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, r) => [...row, b[r]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const out = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = m[r]![n]!;
    for (let k = r + 1; k < n; k++) v -= m[r]![k]! * out[k]!;
    out[r] = v / m[r]![r]!;
  }
  return out;
}
