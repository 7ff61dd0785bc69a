/**
 * Ratings of a judging campaign from its votes: Davidson's Bradley–Terry with ties (davidson.ts),
 * 95 % intervals by the cluster bootstrap over prompts, the win matrix, and each judge's agreement
 * with the others. docs/statistics.md ("Human judgement") states the choices; the simulation in
 * test/judging-statistics.test.ts checks them against known strengths.
 */
import { createRequire } from 'node:module';
import {
  bootstrapReplicates,
  clusterTable,
  finiteVariance,
  holmAdjust,
  studentInterval,
} from '../statistics/index.js';
import { fitDavidson, REPLICATE_TOLERANCE } from './davidson.js';
import type { DavidsonFit, PairCounts } from './davidson.js';
import {
  addVote,
  canonicalOrder,
  clusterKeys,
  indexOf,
  isDecided,
  isRatingVote,
  itemIndex,
  PairIndex,
} from './votes.js';
import type { VoteRecord } from './votes.js';

const jStat = createRequire(import.meta.url)('jstat') as { ibeta(x: number, a: number, b: number): number };

export interface RatingOptions {
  /** Names the bootstrap's random stream (e.g. the campaign id): the same seed, the same intervals. */
  seed: string;
  /** Bootstrap replicates (default 1,000). */
  resamples?: number;
}

export interface ItemRating {
  item: string;
  /** Log-strength θ (natural log), mean 0 over the rated items; NaN for an item with no rating votes. */
  rating: number;
  /** 95 % interval of the rating; NaN where it cannot be estimated (no votes, or one resampling unit). */
  ci95Low: number;
  ci95High: number;
  /** Votes that entered the rating (wins + losses + ties). */
  votes: number;
  wins: number;
  losses: number;
  ties: number;
}

export interface WinCell {
  wins: number;
  losses: number;
  ties: number;
}

export interface JudgeAgreement {
  judgeId: string;
  /** Every vote the judge cast (skips and "both bad" included). */
  votes: number;
  /** Share of the judge's decided votes that agree with the reference (see `rate`); null: none comparable. */
  agreement: number | null;
  /** Agreement below 0.5 by a one-sided binomial test, Holm-adjusted over the judges, at 5 %. */
  belowChance: boolean;
}

export interface Ratings {
  /** Best first; items without rating votes last (in the order given). */
  items: ItemRating[];
  /** `winMatrix[x][y]`: x's wins, losses and ties against y. Every item has a row; cells only for opponents met. */
  winMatrix: Record<string, Record<string, WinCell>>;
  /** By judge id. */
  judges: JudgeAgreement[];
}

export const DEFAULT_RESAMPLES = 1000;
/** Predicted strengths closer than this are equal (the fit converges to 1e-9): no predicted winner. */
const EQUAL_STRENGTHS = 1e-6;

/**
 * Ratings with intervals for `items` from `votes`.
 *
 * - Only votes with A or B preferred, or a tie, between two different items enter the ratings;
 *   `skip` says nothing about the pair and `both_bad` ranks neither clip above the other in a way
 *   the model can use (it is counted in `judges[].votes`, not in the ratings).
 * - Intervals: the cluster bootstrap of the Bench statistics (n − 1 of n prompts drawn with
 *   replacement, every vote of a prompt together), the model refitted on each replicate, and
 *   θ ± t(0.975; prompts − 1)·SE with SE the replicates' standard deviation. A campaign whose votes
 *   are all on one prompt (a Rank session) resamples votes instead.
 * - A judge's agreement: for each of their decided votes, the reference is the majority of the
 *   other judges' decided votes on the same pair; where no other judge decided that pair, the
 *   winner predicted by the ratings fitted without this judge's votes. A split majority or equal
 *   predicted strengths leave the vote out.
 *
 * Throws a RangeError when a vote names an item not in `items`, or `items` repeats one.
 */
export function rate(votes: readonly VoteRecord[], items: readonly string[], opts: RatingOptions): Ratings {
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError('resamples must be a whole number ≥ 1');
  const index = itemIndex(items);
  const K = items.length;
  const ordered = canonicalOrder(votes);
  const aIndex = ordered.map((v) => indexOf(index, v.itemA, v));
  const bIndex = ordered.map((v) => indexOf(index, v.itemB, v));

  const pairs = new PairIndex(K);
  const ratingVotes: { vote: VoteRecord; pair: number; aIsLow: boolean }[] = [];
  ordered.forEach((vote, n) => {
    if (!isRatingVote(vote)) return;
    const a = aIndex[n]!;
    const b = bIndex[n]!;
    ratingVotes.push({ vote, pair: pairs.of(a, b), aIsLow: a < b });
  });
  const full = pairs.counts();
  for (const r of ratingVotes) addVote(full, r.pair, r.aIsLow, r.vote.outcome);
  const fit = K > 0 ? fitDavidson(full) : { theta: new Float64Array(0), logNu: 0, iterations: 0 };

  // Per-item tallies and the win matrix.
  const tally = items.map(() => ({ wins: 0, losses: 0, ties: 0 }));
  const winMatrix: Record<string, Record<string, WinCell>> = {};
  for (const item of items) winMatrix[item] = {};
  const cell = (x: string, y: string): WinCell => (winMatrix[x]![y] ??= { wins: 0, losses: 0, ties: 0 });
  for (const { vote } of ratingVotes) {
    const a = index.get(vote.itemA)!;
    const b = index.get(vote.itemB)!;
    if (vote.outcome === 'tie') {
      tally[a]!.ties++;
      tally[b]!.ties++;
      cell(vote.itemA, vote.itemB).ties++;
      cell(vote.itemB, vote.itemA).ties++;
    } else {
      const [w, l] = vote.outcome === 'a' ? [a, b] : [b, a];
      tally[w]!.wins++;
      tally[l]!.losses++;
      cell(items[w]!, items[l]!).wins++;
      cell(items[l]!, items[w]!).losses++;
    }
  }

  const intervals = bootstrapIntervals(ratingVotes, pairs, fit, resamples, opts.seed);
  const rated = tally.map((t) => t.wins + t.losses + t.ties > 0);
  const rows: ItemRating[] = items.map((item, k) => {
    const t = tally[k]!;
    const votesOn = t.wins + t.losses + t.ties;
    return {
      item,
      rating: rated[k] ? fit.theta[k]! : Number.NaN,
      ci95Low: rated[k] ? intervals[k]!.low : Number.NaN,
      ci95High: rated[k] ? intervals[k]!.high : Number.NaN,
      votes: votesOn,
      ...t,
    };
  });
  const order = rows.map((_, k) => k);
  order.sort((x, y) => {
    const rx = rows[x]!.rating;
    const ry = rows[y]!.rating;
    if (Number.isNaN(rx) !== Number.isNaN(ry)) return Number.isNaN(rx) ? 1 : -1;
    return (Number.isNaN(rx) ? 0 : ry - rx) || x - y;
  });

  return {
    items: order.map((k) => rows[k]!),
    winMatrix,
    judges: judgeAgreement(ordered, full, fit, pairs, index),
  };
}

/**
 * The ratings alone (no intervals, no judges): one fit of the same model as `rate`, for callers
 * that need the current estimate often (choosing the next pair). Items without rating votes are
 * absent. Throws like `rate`.
 */
export function estimateRatings(
  votes: readonly VoteRecord[],
  items: readonly string[],
): Record<string, number> {
  const index = itemIndex(items);
  const pairs = new PairIndex(items.length);
  const rated = new Set<number>();
  const ratingVotes: { vote: VoteRecord; pair: number; aIsLow: boolean }[] = [];
  for (const vote of canonicalOrder(votes)) {
    const a = indexOf(index, vote.itemA, vote);
    const b = indexOf(index, vote.itemB, vote);
    if (!isRatingVote(vote)) continue;
    rated.add(a).add(b);
    ratingVotes.push({ vote, pair: pairs.of(a, b), aIsLow: a < b });
  }
  const counts = pairs.counts();
  for (const r of ratingVotes) addVote(counts, r.pair, r.aIsLow, r.vote.outcome);
  const out: Record<string, number> = {};
  if (items.length === 0) return out;
  const { theta } = fitDavidson(counts);
  items.forEach((item, k) => {
    if (rated.has(k)) out[item] = theta[k]!;
  });
  return out;
}

/** Per item, the t interval on the bootstrap SE (NaN where it cannot be estimated). */
function bootstrapIntervals(
  ratingVotes: readonly { vote: VoteRecord; pair: number; aIsLow: boolean }[],
  pairs: PairIndex,
  fit: DavidsonFit,
  resamples: number,
  seed: string,
): { low: number; high: number }[] {
  const K = fit.theta.length;
  const none = Array.from({ length: K }, () => ({ low: Number.NaN, high: Number.NaN }));
  const keys = clusterKeys(ratingVotes.map((r) => r.vote));
  const table = clusterTable(
    keys.map((cluster) => ({ stratum: 'votes', cluster, variable: 0, value: 0 })),
    1,
  );
  const C = table.clusters.length;
  if (C < 2) return none;
  // Each cluster's votes aggregated per pair (compressed rows: cluster c's cells are start[c] … start[c+1] − 1).
  const position = new Map(table.clusters.map((key, c) => [key, c]));
  const perCluster = Array.from({ length: C }, () => new Map<number, [number, number, number]>());
  ratingVotes.forEach((r, n) => {
    const cells = perCluster[position.get(keys[n]!)!]!;
    let counts = cells.get(r.pair);
    if (!counts) cells.set(r.pair, (counts = [0, 0, 0]));
    if (r.vote.outcome === 'tie') counts[2]++;
    else if ((r.vote.outcome === 'a') === r.aIsLow) counts[0]++;
    else counts[1]++;
  });
  const start = new Int32Array(C + 1);
  const cellPair: number[] = [];
  const cellCounts: number[] = [];
  perCluster.forEach((cells, c) => {
    start[c] = cellPair.length;
    for (const [pair, counts] of [...cells.entries()].sort((x, y) => x[0] - y[0])) {
      cellPair.push(pair);
      cellCounts.push(...counts);
    }
  });
  start[C] = cellPair.length;
  const replicateCounts: PairCounts = pairs.counts();
  const replicates = bootstrapReplicates(
    table,
    K,
    (weights, out, offset) => {
      replicateCounts.winsI.fill(0);
      replicateCounts.winsJ.fill(0);
      replicateCounts.ties.fill(0);
      for (let c = 0; c < C; c++) {
        const w = weights[c]!;
        if (w === 0) continue;
        for (let k = start[c]!; k < start[c + 1]!; k++) {
          const p = cellPair[k]!;
          replicateCounts.winsI[p]! += w * cellCounts[3 * k]!;
          replicateCounts.winsJ[p]! += w * cellCounts[3 * k + 1]!;
          replicateCounts.ties[p]! += w * cellCounts[3 * k + 2]!;
        }
      }
      out.set(fitDavidson(replicateCounts, fit, REPLICATE_TOLERANCE).theta, offset);
    },
    { resamples, seed: [seed, 'judging ratings'] },
  );
  const column = new Float64Array(resamples);
  return none.map((empty, k) => {
    for (let b = 0; b < resamples; b++) column[b] = replicates[b * K + k]!;
    const { variance } = finiteVariance(column);
    const interval = studentInterval(fit.theta[k]!, [{ variance, df: C - 1 }]);
    return interval ? { low: interval.low, high: interval.high } : empty;
  });
}

/** The one-sided binomial p-value P(X ≤ k) for X ~ Binomial(n, ½). */
export function binomialLowerTail(k: number, n: number): number {
  if (k >= n) return 1;
  return jStat.ibeta(0.5, n - k, k + 1);
}

function judgeAgreement(
  ordered: readonly VoteRecord[],
  full: PairCounts,
  fit: DavidsonFit,
  pairs: PairIndex,
  index: Map<string, number>,
): JudgeAgreement[] {
  const winner = (v: VoteRecord): string => (v.outcome === 'a' ? v.itemA : v.itemB);
  const decidedByPair = new Map<string, VoteRecord[]>();
  const byJudge = new Map<string, VoteRecord[]>();
  for (const v of ordered) {
    let own = byJudge.get(v.judgeId);
    if (!own) byJudge.set(v.judgeId, (own = []));
    own.push(v);
    if (!isDecided(v)) continue;
    let list = decidedByPair.get(v.pairId);
    if (!list) decidedByPair.set(v.pairId, (list = []));
    list.push(v);
  }
  const judges = [...byJudge.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const tallies = judges.map((judgeId) => {
    const own = byJudge.get(judgeId)!;
    let withoutJudge: Float64Array | null = null;
    const predicted = (): Float64Array => {
      if (withoutJudge) return withoutJudge;
      const counts: PairCounts = {
        ...full,
        winsI: Float64Array.from(full.winsI),
        winsJ: Float64Array.from(full.winsJ),
        ties: Float64Array.from(full.ties),
      };
      for (const v of own) {
        if (!isRatingVote(v)) continue;
        const a = index.get(v.itemA)!;
        const b = index.get(v.itemB)!;
        addVote(counts, pairs.of(a, b), a < b, v.outcome, -1);
      }
      return (withoutJudge = fitDavidson(counts, fit).theta);
    };
    let agree = 0;
    let counted = 0;
    for (const v of own) {
      if (!isDecided(v)) continue;
      const chosen = winner(v);
      const other = chosen === v.itemA ? v.itemB : v.itemA;
      const others = (decidedByPair.get(v.pairId) ?? []).filter((o) => o.judgeId !== v.judgeId);
      let margin: number;
      if (others.length > 0) {
        margin = 0;
        for (const o of others) {
          const w = winner(o);
          if (w === chosen) margin++;
          else if (w === other) margin--;
        }
      } else {
        const theta = predicted();
        margin = theta[index.get(chosen)!]! - theta[index.get(other)!]!;
        if (Math.abs(margin) < EQUAL_STRENGTHS) margin = 0;
      }
      if (margin === 0) continue;
      counted++;
      if (margin > 0) agree++;
    }
    return { judgeId, votes: own.length, agree, counted };
  });
  const tested = tallies.filter((t) => t.counted > 0);
  const adjusted = holmAdjust(tested.map((t) => binomialLowerTail(t.agree, t.counted)));
  const flagged = new Set(tested.filter((_, n) => adjusted[n]! < 0.05).map((t) => t.judgeId));
  return tallies.map((t) => ({
    judgeId: t.judgeId,
    votes: t.votes,
    agreement: t.counted > 0 ? t.agree / t.counted : null,
    belowChance: flagged.has(t.judgeId) && t.agree / t.counted < 0.5,
  }));
}
