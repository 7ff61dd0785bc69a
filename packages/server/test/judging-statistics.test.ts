/**
 * The statistics of human judgement (domain/judging): small examples checked by hand against
 * values computed independently in this file, and simulated judges with known model strengths
 * (the ratings recover the true order, the intervals cover the truth near their nominal rate, a
 * dimension built to agree with the people with p = 0.8 is measured so). docs/statistics.md
 * ("Human judgement") records the figures.
 */
import { describe, expect, it } from 'vitest';
import {
  binomialLowerTail,
  dimensionAgreement,
  estimateRatings,
  fitDavidson,
  FITTED_LABEL,
  kendallTauB,
  pairUncertainty,
  PENALTY,
  rate,
} from '../src/domain/judging/index.js';
import type { PairCounts, VoteRecord } from '../src/domain/judging/index.js';
import { seededRandom } from '../src/domain/statistics/index.js';
import type { RandomGenerator } from '../src/domain/statistics/index.js';

const uniform = (r: RandomGenerator): number => ((r.next() >>> 0) + 0.5) / 2 ** 32;
const normal = (r: RandomGenerator): number =>
  Math.sqrt(-2 * Math.log(uniform(r))) * Math.cos(2 * Math.PI * uniform(r));

function vote(
  pairId: string,
  promptKey: string,
  judgeId: string,
  itemA: string,
  itemB: string,
  outcome: VoteRecord['outcome'],
): VoteRecord {
  return { pairId, promptKey, judgeId, itemA, itemB, outcome };
}

/** `n` copies of a vote on fresh pairs of one prompt each (prompts p0 … so intervals exist). */
function repeated(
  n: number,
  itemA: string,
  itemB: string,
  outcome: VoteRecord['outcome'],
  tag: string,
): VoteRecord[] {
  return Array.from({ length: n }, (_, k) =>
    vote(`${tag}${k}`, `p${k % 4}`, `j${k % 3}`, itemA, itemB, outcome),
  );
}

/**
 * Two items, w wins of X, l of Y, t ties: the penalised Davidson estimate solved here by nested
 * bisection on its two score equations (θX = s/2, θY = −s/2):
 *   ∂/∂s: (w − l)/2 − n(pX − pY)/2 − λs/2 = 0,   ∂/∂δ: t − n·pT − λδ = 0.
 */
function twoItemEstimate(w: number, l: number, t: number): { s: number; delta: number } {
  const n = w + l + t;
  const probabilities = (s: number, delta: number): [number, number, number] => {
    const e = [Math.exp(s / 2), Math.exp(-s / 2), Math.exp(delta)] as const;
    const sum = e[0] + e[1] + e[2];
    return [e[0] / sum, e[1] / sum, e[2] / sum];
  };
  const bisect = (f: (x: number) => number, lo: number, hi: number): number => {
    for (let k = 0; k < 200; k++) {
      const mid = (lo + hi) / 2;
      if (f(mid) > 0) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  // For a given s, δ solves its equation (decreasing in δ); then s solves its own.
  const deltaOf = (s: number): number => bisect((d) => t - n * probabilities(s, d)[2] - PENALTY * d, -50, 50);
  const s = bisect(
    (x) => {
      const [px, py] = probabilities(x, deltaOf(x));
      return (w - l) / 2 - (n * (px - py)) / 2 - (PENALTY * x) / 2;
    },
    -50,
    50,
  );
  return { s, delta: deltaOf(s) };
}

describe('hand-checked: Davidson ratings of two items', () => {
  it('3 wins, 1 loss, 2 ties: the ratings solve the penalised score equations', () => {
    const votes = [
      ...repeated(3, 'X', 'Y', 'a', 'w'),
      ...repeated(1, 'Y', 'X', 'a', 'l'),
      ...repeated(2, 'X', 'Y', 'tie', 't'),
    ];
    const result = rate(votes, ['X', 'Y'], { seed: 'hand' });
    const expected = twoItemEstimate(3, 1, 2);
    const x = result.items.find((r) => r.item === 'X')!;
    const y = result.items.find((r) => r.item === 'Y')!;
    expect(x.rating).toBeCloseTo(expected.s / 2, 8);
    expect(y.rating).toBeCloseTo(-expected.s / 2, 8);
    expect([x.wins, x.losses, x.ties, x.votes]).toEqual([3, 1, 2, 6]);
    expect([y.wins, y.losses, y.ties, y.votes]).toEqual([1, 3, 2, 6]);
    expect(result.winMatrix).toEqual({
      X: { Y: { wins: 3, losses: 1, ties: 2 } },
      Y: { X: { wins: 1, losses: 3, ties: 2 } },
    });
    expect(result.items.map((r) => r.item)).toEqual(['X', 'Y']);
  });

  it('with many votes the penalty vanishes: θX − θY = ln(w / l) and ν = t / √(w·l), the closed form', () => {
    const counts: PairCounts = {
      items: 2,
      i: Int32Array.of(0),
      j: Int32Array.of(1),
      winsI: Float64Array.of(30_000),
      winsJ: Float64Array.of(10_000),
      ties: Float64Array.of(20_000),
    };
    const fit = fitDavidson(counts);
    expect(fit.theta[0]! - fit.theta[1]!).toBeCloseTo(Math.log(3), 4);
    expect(Math.exp(fit.logNu)).toBeCloseTo(20_000 / Math.sqrt(30_000 * 10_000), 4);
    expect(fit.theta[0]! + fit.theta[1]!).toBeCloseTo(0, 12);
  });

  it('skip and both_bad do not enter the ratings; an item without votes has no rating and comes last', () => {
    const votes = [
      ...repeated(3, 'X', 'Y', 'a', 'w'),
      ...repeated(1, 'X', 'Y', 'b', 'l'),
      ...repeated(5, 'X', 'Y', 'skip', 's'),
      ...repeated(5, 'Y', 'Z', 'both_bad', 'bb'),
    ];
    const result = rate(votes, ['Z', 'Y', 'X'], { seed: 'hand' });
    const expected = twoItemEstimate(3, 1, 0);
    expect(result.items.map((r) => r.item)).toEqual(['X', 'Y', 'Z']);
    expect(result.items[0]!.rating).toBeCloseTo(expected.s / 2, 8);
    const z = result.items[2]!;
    expect([z.rating, z.ci95Low, z.ci95High, z.votes]).toEqual([NaN, NaN, NaN, 0]);
    expect(result.winMatrix.Z).toEqual({});
    expect(result.judges.map((j) => j.votes)).toEqual([6, 5, 3]); // every vote, skips included
  });

  it('refuses votes naming an unknown item, repeated items and unknown outcomes', () => {
    expect(() => rate([vote('q', 'p', 'j', 'X', 'W', 'a')], ['X', 'Y'], { seed: 's' })).toThrow(
      /"W", not in the items/,
    );
    expect(() => rate([], ['X', 'X'], { seed: 's' })).toThrow(/listed twice/);
    expect(() =>
      rate([vote('q', 'p', 'j', 'X', 'Y', 'left' as VoteRecord['outcome'])], ['X', 'Y'], { seed: 's' }),
    ).toThrow(/unknown outcome/);
    expect(() => rate([], ['X'], { seed: 's', resamples: 0 })).toThrow(/resamples/);
  });

  it('estimateRatings: the same estimates as rate, without intervals; unrated items absent', () => {
    const votes = [...repeated(3, 'X', 'Y', 'a', 'w'), ...repeated(2, 'Y', 'Z', 'tie', 't')];
    const full = rate(votes, ['X', 'Y', 'Z', 'W'], { seed: 's', resamples: 20 });
    const quick = estimateRatings(votes, ['X', 'Y', 'Z', 'W']);
    expect(Object.keys(quick).sort()).toEqual(['X', 'Y', 'Z']);
    for (const row of full.items.filter((r) => r.votes > 0)) expect(quick[row.item]).toBe(row.rating);
  });

  it('no votes at all: every item unrated, no judges', () => {
    const result = rate([], ['X', 'Y'], { seed: 's' });
    expect(result.items.every((r) => Number.isNaN(r.rating) && r.votes === 0)).toBe(true);
    expect(result.judges).toEqual([]);
  });
});

describe('hand-checked: judge agreement', () => {
  // Pair P1 (prompt p1): j1, j2, j3 prefer X, j4 prefers Y. Pair P2 (prompt p2): j4 alone prefers Y.
  // Pair P3 (prompt p3): j1 alone prefers X. Pair P4: j2 ties (not decided), j3 skips.
  const votes = [
    vote('P1', 'p1', 'j1', 'X', 'Y', 'a'),
    vote('P1', 'p1', 'j2', 'Y', 'X', 'b'), // the same pair shown the other way round: X preferred
    vote('P1', 'p1', 'j3', 'X', 'Y', 'a'),
    vote('P1', 'p1', 'j4', 'X', 'Y', 'b'),
    vote('P2', 'p2', 'j4', 'X', 'Y', 'b'),
    vote('P3', 'p3', 'j1', 'X', 'Y', 'a'),
    vote('P4', 'p4', 'j2', 'X', 'Y', 'tie'),
    vote('P4', 'p4', 'j3', 'X', 'Y', 'skip'),
  ];
  const judges = Object.fromEntries(
    rate(votes, ['X', 'Y'], { seed: 'hand' }).judges.map((j) => [j.judgeId, j]),
  );

  it('against the majority of the other judges on the same pair', () => {
    // j2 on P1: others j1 X, j3 X, j4 Y → majority X, agrees. j4 on P1: others all X, disagrees.
    expect(judges.j2).toEqual({ judgeId: 'j2', votes: 2, agreement: 1, belowChance: false });
    expect(judges.j3).toEqual({ judgeId: 'j3', votes: 2, agreement: 1, belowChance: false });
  });

  it('a pair with one vote: against the winner predicted without that judge', () => {
    // j1 on P3 alone: without j1, X won P1 twice and Y P1 once and P2 once → equal strengths, no
    // predicted winner, left out; P1 agrees: 1 of 1.
    expect(judges.j1!.agreement).toBe(1);
    // j4 on P2 alone: without j4, X won P1 3–0 and P3 → X predicted; j4 chose Y: 0 of 2.
    expect(judges.j4).toEqual({ judgeId: 'j4', votes: 2, agreement: 0, belowChance: false });
  });

  it('below chance: the binomial lower tail, Holm-adjusted over the judges', () => {
    expect(binomialLowerTail(0, 10)).toBeCloseTo(1 / 1024, 12);
    expect(binomialLowerTail(2, 10)).toBeCloseTo((1 + 10 + 45) / 1024, 12);
    expect(binomialLowerTail(10, 10)).toBe(1);
    // Ten pairs: three judges prefer X, a contrarian prefers Y every time (p = 1/1024, × 4 by Holm).
    const contrary = Array.from({ length: 10 }, (_, k) => [
      vote(`Q${k}`, `p${k}`, 'a', 'X', 'Y', 'a'),
      vote(`Q${k}`, `p${k}`, 'b', 'X', 'Y', 'a'),
      vote(`Q${k}`, `p${k}`, 'c', 'X', 'Y', 'a'),
      vote(`Q${k}`, `p${k}`, 'd', 'X', 'Y', k < 2 ? 'a' : 'b'),
      vote(`Q${k}`, `p${k}`, 'e', 'X', 'Y', 'b'),
    ]).flat();
    const flags = Object.fromEntries(
      rate(contrary, ['X', 'Y'], { seed: 's' }).judges.map((j) => [j.judgeId, j]),
    );
    expect(flags.e).toMatchObject({ agreement: 0, belowChance: true });
    // d agrees 2 of 10: P = 56/1024 ≈ 0.055 before any adjustment, not significant.
    expect(flags.d).toMatchObject({ agreement: 0.2, belowChance: false });
    expect(flags.a).toMatchObject({ agreement: 1, belowChance: false });
  });
});

describe('hand-checked: dimension agreement, Kendall τ-b, pair uncertainty', () => {
  it('Kendall τ-b: (C − D) / √((n₀ − n₁)(n₀ − n₂))', () => {
    expect(kendallTauB([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(4 / 6, 12);
    // Pairs: (1,2) tied in x, (2,3) tied in y, four concordant: 4 / √(5 · 5).
    expect(kendallTauB([1, 1, 2, 3], [1, 2, 2, 3])).toBeCloseTo(0.8, 12);
    expect(kendallTauB([3, 2, 1], [1, 2, 3])).toBe(-1);
    expect(kendallTauB([1, NaN, 2], [2, 5, 1])).toBe(-1); // NaN positions left out
    expect(kendallTauB([1, 1], [1, 2])).toBeNull();
    expect(kendallTauB([1], [1])).toBeNull();
  });

  it('share of decided votes where the dimension prefers the chosen clip, equal scores ½', () => {
    const votes = [
      vote('P1', 'p1', 'j1', 'X', 'Y', 'a'), // clips x1 vs y1
      vote('P2', 'p1', 'j1', 'X', 'Y', 'b'), // x2 vs y2
      vote('P3', 'p2', 'j1', 'X', 'Y', 'a'), // x3 vs y3
      vote('P4', 'p2', 'j1', 'X', 'Y', 'tie'), // not decided
      vote('P5', 'p3', 'j1', 'X', 'Y', 'b'), // x5 vs y5: y5 lacks "motion"
    ];
    const clipScores: Record<string, Record<string, number>> = {
      x1: { quality: 0.9, motion: 0.2 },
      y1: { quality: 0.5, motion: 0.2 },
      x2: { quality: 0.4, motion: 0.1 },
      y2: { quality: 0.6, motion: 0.9 },
      x3: { quality: 0.3, motion: 0.8 },
      y3: { quality: 0.7, motion: 0.1 },
      x4: { quality: 0.1, motion: 0.1 },
      y4: { quality: 0.2, motion: 0.2 },
      x5: { quality: 0.2, motion: 0.5 },
      y5: { quality: 0.9 },
    };
    const result = dimensionAgreement({
      votes,
      clipScores,
      clipOf: (v, side) =>
        `${side === 'a' ? v.itemA.toLowerCase() : v.itemB.toLowerCase()}${v.pairId.slice(1)}`,
      items: ['X', 'Y'],
      ratings: { X: 0.2, Y: -0.2 },
      itemScores: { X: { quality: 0.6, motion: 0.3 }, Y: { quality: 0.5, motion: 0.4 } },
      seed: 'hand',
    });
    const rows = Object.fromEntries(result.dimensions.map((r) => [r.dimension, r]));
    // quality: P1 agrees (0.9 > 0.5), P2 agrees (Y chosen, 0.6 > 0.4), P3 disagrees, P5 agrees: 3 of 4.
    expect(rows.quality).toMatchObject({ pairs: 4, agreement: 0.75, kendallTau: 1 });
    // motion: P1 equal (½), P2 agrees, P3 agrees; P5 unscored: 2.5 of 3.
    expect(rows.motion).toMatchObject({ pairs: 3, agreement: 2.5 / 3, kendallTau: -1 });
    expect(rows.quality!.ci95Low).toBeLessThanOrEqual(0.75);
    expect(rows.quality!.ci95High).toBeLessThanOrEqual(1);
    expect(result.fitted).toBeNull(); // fewer than 10 decided votes
  });

  it('one prompt (a Rank session): votes are the units; the interval is p ± t(0.975; n − 1)·s/√n', () => {
    // 100 decided votes on one prompt, the dimension agreeing with 80 of them.
    const votes = Array.from({ length: 100 }, (_, k) => vote(`P${k}`, 'only', `j${k % 4}`, 'X', 'Y', 'a'));
    const clipScores: Record<string, Record<string, number>> = {};
    votes.forEach((v, k) => {
      clipScores[`${v.pairId}:a`] = { quality: k < 80 ? 0.9 : 0.1 };
      clipScores[`${v.pairId}:b`] = { quality: 0.5 };
    });
    const row = dimensionAgreement({
      votes,
      clipScores,
      clipOf: (v, side) => `${v.pairId}:${side}`,
      items: ['X', 'Y'],
      ratings: {},
      itemScores: {},
      seed: 'rank',
    }).dimensions[0]!;
    const s2 = (80 * 0.2 ** 2 + 20 * 0.8 ** 2) / 99;
    const half = 1.984217 * Math.sqrt(s2 / 100); // t(0.975; 99) from a table
    expect(row.agreement).toBeCloseTo(0.8, 12);
    expect(row.ci95Low).toBeCloseTo(0.8 - half, 5);
    expect(row.ci95High).toBeCloseTo(0.8 + half, 5);
    // The ratings of a one-prompt campaign have intervals too (votes resampled).
    const rated = rate(
      votes.map((v, k) => ({ ...v, outcome: k % 3 === 0 ? ('b' as const) : ('a' as const) })),
      ['X', 'Y'],
      { seed: 'rank', resamples: 200 },
    );
    expect(rated.items[0]!.ci95Low).toBeLessThan(rated.items[0]!.rating);
    expect(rated.items[0]!.ci95High).toBeGreaterThan(rated.items[0]!.rating);
  });

  it('pair uncertainty: outcome entropy in bits over 1 + votes on the pair', () => {
    expect(pairUncertainty(0.3, 0.3, 0)).toBeCloseTo(1, 12);
    expect(pairUncertainty(0.3, 0.3, 1)).toBeCloseTo(0.5, 12);
    // θA − θB = ln 3: p = 3/4, H = −(¾·log₂¾ + ¼·log₂¼) = 0.811278…
    expect(pairUncertainty(Math.log(3), 0, 0)).toBeCloseTo(0.8112781244591328, 12);
    expect(pairUncertainty(0, Math.log(3), 3)).toBeCloseTo(0.8112781244591328 / 4, 12);
    expect(pairUncertainty(NaN, 2, 0)).toBe(1);
    expect(pairUncertainty(40, -40, 0)).toBeLessThan(1e-15);
  });
});

// ---------------------------------------------------------------------------------------------
// Simulated judges with known model strengths.

const TRUE_THETA = [-0.8, -0.3, 0, 0.35, 0.75];
const TRUE_LOG_NU = Math.log(0.6);
/** SD of a model's strength moving from prompt to prompt (so votes of one prompt are correlated). */
const PROMPT_SD = 0.3;
const ITEMS = TRUE_THETA.map((_, k) => `model-${k}`);

function draw(s: number, r: RandomGenerator): 'a' | 'b' | 'tie' {
  const e = [Math.exp(s / 2), Math.exp(-s / 2), Math.exp(TRUE_LOG_NU)] as const;
  const u = uniform(r) * (e[0] + e[1] + e[2]);
  return u < e[0] ? 'a' : u < e[0] + e[1] ? 'b' : 'tie';
}

/** Every pair of models on every prompt, `votesPerPair` judges each, sides shuffled. */
function simulatedCampaign(seed: string, prompts: number, votesPerPair: number): VoteRecord[] {
  const r = seededRandom('judging simulation', seed);
  const votes: VoteRecord[] = [];
  for (let p = 0; p < prompts; p++) {
    const strength = TRUE_THETA.map((t) => t + PROMPT_SD * normal(r));
    for (let i = 0; i < ITEMS.length; i++)
      for (let j = i + 1; j < ITEMS.length; j++)
        for (let v = 0; v < votesPerPair; v++) {
          const [a, b] = uniform(r) < 0.5 ? [i, j] : [j, i];
          votes.push(
            vote(
              `p${p}-${i}-${j}`,
              `prompt-${p}`,
              `judge-${v}`,
              ITEMS[a]!,
              ITEMS[b]!,
              draw(strength[a]! - strength[b]!, r),
            ),
          );
        }
  }
  return votes;
}

/**
 * The truth the ratings estimate: Davidson fitted to the expected votes of a very large population
 * of prompts (with prompt-to-prompt variation the population's strengths are slightly closer
 * together than TRUE_THETA, so this, not TRUE_THETA, is what an interval should cover).
 */
function populationTruth(): Float64Array {
  const r = seededRandom('judging simulation truth');
  const K = ITEMS.length;
  const pairs: [number, number][] = [];
  for (let i = 0; i < K; i++) for (let j = i + 1; j < K; j++) pairs.push([i, j]);
  const counts: PairCounts = {
    items: K,
    i: Int32Array.from(pairs, (p) => p[0]),
    j: Int32Array.from(pairs, (p) => p[1]),
    winsI: new Float64Array(pairs.length),
    winsJ: new Float64Array(pairs.length),
    ties: new Float64Array(pairs.length),
  };
  for (let p = 0; p < 20_000; p++) {
    const strength = TRUE_THETA.map((t) => t + PROMPT_SD * normal(r));
    pairs.forEach(([i, j], q) => {
      const s = strength[i]! - strength[j]!;
      const e = [Math.exp(s / 2), Math.exp(-s / 2), Math.exp(TRUE_LOG_NU)] as const;
      const sum = e[0] + e[1] + e[2];
      counts.winsI[q]! += (1000 * e[0]) / sum; // scaled up: the penalty is negligible
      counts.winsJ[q]! += (1000 * e[1]) / sum;
      counts.ties[q]! += (1000 * e[2]) / sum;
    });
  }
  return fitDavidson(counts).theta;
}

describe('simulated judges with known model strengths', () => {
  it('a campaign of 60 prompts × 10 pairs × 3 judges recovers the true order, truth inside every interval', () => {
    const truth = populationTruth();
    const result = rate(simulatedCampaign('order', 60, 3), ITEMS, { seed: 'order' });
    expect(result.items.map((r) => r.item)).toEqual([...ITEMS].reverse());
    for (const row of result.items) {
      const k = ITEMS.indexOf(row.item);
      expect(row.ci95Low).toBeLessThan(truth[k]!);
      expect(row.ci95High).toBeGreaterThan(truth[k]!);
      expect(Math.abs(row.rating - truth[k]!)).toBeLessThan(0.15);
    }
    expect(result.items.reduce((sum, r) => sum + r.rating, 0)).toBeCloseTo(0, 10);
    expect(result.judges.every((j) => !j.belowChance && j.agreement! > 0.5)).toBe(true);
  });

  it('the 95 % intervals cover the truth about 95 % of the time (120 campaigns of 20 prompts)', () => {
    const truth = populationTruth();
    let covered = 0;
    let total = 0;
    let orderTau = 0;
    for (let c = 0; c < 120; c++) {
      const result = rate(simulatedCampaign(`coverage ${c}`, 20, 2), ITEMS, {
        seed: `c${c}`,
        resamples: 300,
      });
      for (const row of result.items) {
        const k = ITEMS.indexOf(row.item);
        total++;
        if (row.ci95Low <= truth[k]! && truth[k]! <= row.ci95High) covered++;
      }
      orderTau += kendallTauB(
        ITEMS.map((item) => result.items.find((r) => r.item === item)!.rating),
        TRUE_THETA,
      )!;
    }
    const coverage = covered / total;
    expect(coverage).toBeGreaterThan(0.92);
    expect(coverage).toBeLessThan(0.98);
    expect(orderTau / 120).toBeGreaterThan(0.85); // the order is mostly right even with 20 prompts
  });

  it('a judge answering the opposite of what they see is flagged below chance; honest judges are not', () => {
    const votes = simulatedCampaign('contrarian', 30, 5).map((v) =>
      v.judgeId === 'judge-4' && (v.outcome === 'a' || v.outcome === 'b')
        ? { ...v, outcome: v.outcome === 'a' ? ('b' as const) : ('a' as const) }
        : v,
    );
    const judges = Object.fromEntries(
      rate(votes, ITEMS, { seed: 'contrarian', resamples: 50 }).judges.map((j) => [j.judgeId, j]),
    );
    expect(judges['judge-4']!.belowChance).toBe(true);
    expect(judges['judge-4']!.agreement).toBeLessThan(0.45);
    for (const honest of ['judge-0', 'judge-1', 'judge-2', 'judge-3']) {
      expect(judges[honest]!.belowChance).toBe(false);
      expect(judges[honest]!.agreement).toBeGreaterThan(0.5);
    }
  });

  it('the same votes and seed give the same figures in any order; another seed moves only the intervals', () => {
    const votes = simulatedCampaign('determinism', 10, 2);
    const shuffled = [...votes];
    const r = seededRandom('shuffle');
    for (let n = shuffled.length - 1; n > 0; n--) {
      const m = Math.floor(uniform(r) * (n + 1));
      [shuffled[n], shuffled[m]] = [shuffled[m]!, shuffled[n]!];
    }
    const first = rate(votes, ITEMS, { seed: 'campaign-1', resamples: 200 });
    expect(rate(shuffled, ITEMS, { seed: 'campaign-1', resamples: 200 })).toEqual(first);
    const other = rate(votes, ITEMS, { seed: 'campaign-2', resamples: 200 });
    expect(other.items.map((r) => r.rating)).toEqual(first.items.map((r) => r.rating));
    expect(other.items[0]!.ci95Low).not.toBe(first.items[0]!.ci95Low);
  });
});

/**
 * Votes on fresh pairs of clips, `perPrompt` per prompt; a dimension "aligned" built to prefer the
 * people's choice with probability p_prompt (drawn per prompt around a mean of 0.8, so votes of a
 * prompt are correlated), a binary dimension "coin" that agrees half the time with many ties.
 */
function agreementCampaign(seed: string, prompts: number, perPrompt: number) {
  const r = seededRandom('agreement simulation', seed);
  const votes: VoteRecord[] = [];
  const clipScores: Record<string, Record<string, number>> = {};
  for (let p = 0; p < prompts; p++) {
    const agreeRate = 0.8 + (uniform(r) - 0.5) * 0.2; // 0.7 … 0.9, mean 0.8
    for (let n = 0; n < perPrompt; n++) {
      const pairId = `prompt-${p}-pair-${n}`;
      const outcome = uniform(r) < 0.5 ? 'a' : 'b';
      votes.push(vote(pairId, `prompt-${p}`, `judge-${n % 3}`, 'X', 'Y', outcome));
      const chosen = outcome === 'a' ? 'a' : 'b';
      const other = chosen === 'a' ? 'b' : 'a';
      const high = 0.5 + uniform(r) * 0.5;
      const low = uniform(r) * 0.5;
      const agrees = uniform(r) < agreeRate;
      clipScores[`${pairId}:${chosen}`] = { aligned: agrees ? high : low, coin: uniform(r) < 0.5 ? 1 : 0 };
      clipScores[`${pairId}:${other}`] = { aligned: agrees ? low : high, coin: uniform(r) < 0.5 ? 1 : 0 };
    }
  }
  return { votes, clipScores, clipOf: (v: VoteRecord, side: 'a' | 'b') => `${v.pairId}:${side}` };
}

describe('simulated agreement with a dimension built to agree with p = 0.8', () => {
  it('the share is 0.8 and its interval covers 0.8 about 95 % of the time (150 campaigns of 30 prompts)', () => {
    let covered = 0;
    let coinCovered = 0;
    let sum = 0;
    const C = 150;
    for (let c = 0; c < C; c++) {
      const campaign = agreementCampaign(`c${c}`, 30, 4);
      const result = dimensionAgreement({
        ...campaign,
        items: ['X', 'Y'],
        ratings: { X: 0, Y: 0 },
        itemScores: {},
        seed: `c${c}`,
      });
      const aligned = result.dimensions.find((d) => d.dimension === 'aligned')!;
      const coin = result.dimensions.find((d) => d.dimension === 'coin')!;
      expect(aligned.pairs).toBe(120);
      sum += aligned.agreement;
      if (aligned.ci95Low <= 0.8 && 0.8 <= aligned.ci95High) covered++;
      if (coin.ci95Low <= 0.5 && 0.5 <= coin.ci95High) coinCovered++;
    }
    expect(sum / C).toBeGreaterThan(0.79);
    expect(sum / C).toBeLessThan(0.81);
    expect(covered / C).toBeGreaterThan(0.9);
    expect(covered / C).toBeLessThan(0.99);
    expect(coinCovered / C).toBeGreaterThan(0.9);
  });

  it('the fitted team score: held-out accuracy near the informative dimension, weighted towards it, labelled', () => {
    const campaign = agreementCampaign('fitted', 60, 6);
    const result = dimensionAgreement({
      ...campaign,
      items: ['X', 'Y'],
      ratings: {},
      itemScores: {},
      seed: 'fitted',
    });
    const fitted = result.fitted!;
    expect(fitted.label).toBe(FITTED_LABEL);
    expect(fitted.bestSingleDimension).toBe('aligned');
    const aligned = result.dimensions.find((d) => d.dimension === 'aligned')!;
    expect(fitted.bestSingleAccuracy).toBeCloseTo(aligned.agreement, 12); // every vote has both scores
    expect(fitted.heldOutAccuracy).toBeGreaterThan(0.7);
    expect(Math.abs(fitted.heldOutAccuracy - fitted.bestSingleAccuracy)).toBeLessThan(0.06);
    expect(fitted.weights.aligned!).toBeGreaterThan(4 * Math.abs(fitted.weights.coin!));
    // Deterministic.
    expect(
      dimensionAgreement({ ...campaign, items: ['X', 'Y'], ratings: {}, itemScores: {}, seed: 'fitted' }),
    ).toEqual(result);
  });
});
