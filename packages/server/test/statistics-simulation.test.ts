/**
 * The statistics against a known truth (issue #21): 200 synthetic pairs of runs whose clip scores
 * are drawn around known means, with prompt effects shared by both runs of a pair. Pure
 * functions only (no server), so it runs in seconds.
 *
 * Each pair: two clip groups of 14 prompts × 5 samples (the suite's size), five dimensions
 * (subject_consistency and motion_smoothness on one group; aesthetic_quality, imaging_quality
 * and overall_consistency on the other, so Quality, Semantic and Total all occur). A clip's score
 * is  mean_d + Δ_d·[candidate] + prompt effect (shared) + prompt×run effect + clip noise.
 * Prompts are drawn afresh for every pair, so the truth of a run's mean is mean_d (the average
 * over the population of prompts) and the truth of a difference is Δ_d.
 */
import { describe, expect, it } from 'vitest';
import type { DimensionId } from '@vesta/engine';
import { compareTwo } from '../src/domain/bench-comparison.js';
import type { RunScores } from '../src/domain/bench-comparison.js';
import { evaluateForm, leaderboardForms } from '../src/domain/leaderboard-forms.js';
import type { ScoredClip } from '../src/domain/scored-clip.js';
import { seededRandom } from '../src/domain/statistics/index.js';
import type { RandomGenerator } from '../src/domain/statistics/index.js';
import { buildScorecard } from '../src/services/bench-scorecard.js';

const PAIRS = 200;
const PROMPTS = 14;
const SAMPLES = 5;
/**
 * Fewer than the service's 10,000, to keep CI fast: the replicates only estimate the standard
 * error (±3.5 % with 400) and the permutation p-values (to ±0.008 near 0.025), which moves
 * coverage and false-alarm rates by a fraction of their sampling error over 200 pairs.
 */
const RESAMPLES = 400;

const GROUPS: Array<{ id: string; dimensions: DimensionId[] }> = [
  { id: 'subject_consistency', dimensions: ['subject_consistency', 'motion_smoothness'] },
  { id: 'overall_consistency', dimensions: ['aesthetic_quality', 'imaging_quality', 'overall_consistency'] },
];
const DIMENSIONS = GROUPS.flatMap((g) => g.dimensions);
const MEANS: Record<string, number> = {
  subject_consistency: 0.9,
  motion_smoothness: 0.97,
  aesthetic_quality: 0.55,
  imaging_quality: 0.62,
  overall_consistency: 0.25,
};
const TRUE_DELTA: Record<string, number> = {
  subject_consistency: -0.01,
  motion_smoothness: 0.005,
  aesthetic_quality: 0.02,
  imaging_quality: 0,
  overall_consistency: -0.015,
};

function normal(random: RandomGenerator): number {
  // Box–Muller on two uniforms from the seeded stream.
  const u = (random.next() >>> 0) / 2 ** 32 + 2 ** -33;
  const v = (random.next() >>> 0) / 2 ** 32;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

interface Spread {
  prompt: number;
  interaction: number;
  clip: number;
}

/**
 * One pair of runs. `sharedPrompts`: both runs draw clips of the same prompts (one suite version,
 * pairable); otherwise each run has prompts of its own (different suites: independent prompt
 * effects, the situation the unpaired comparison is for).
 */
function runPair(
  index: number,
  spread: Spread,
  delta: Record<string, number>,
  sharedPrompts: boolean,
): [RunScores, RunScores] {
  const random = seededRandom(
    'simulation',
    String(index),
    JSON.stringify(spread),
    JSON.stringify(delta),
    String(sharedPrompts),
  );
  const clips: [ScoredClip[], ScoredClip[]] = [[], []];
  for (const group of GROUPS)
    for (let p = 0; p < PROMPTS; p++) {
      const promptId = `${group.id}-${p}`;
      const effects = [0, 1].map(() => group.dimensions.map(() => spread.prompt * normal(random)));
      for (const run of [0, 1] as const) {
        const prompt = effects[sharedPrompts ? 0 : run]!;
        for (const [k, dimension] of group.dimensions.entries()) {
          const interaction = spread.interaction * normal(random);
          for (let s = 0; s < SAMPLES; s++)
            clips[run].push({
              dimension,
              value:
                MEANS[dimension]! +
                (run === 1 ? delta[dimension]! : 0) +
                prompt[k]! +
                interaction +
                spread.clip * normal(random),
              method: 'lite',
              methodVersion: '1',
              promptId,
              promptText: promptId,
              group: group.id,
              sampleIndex: s,
              videoId: `v-${run}-${promptId}-${s}`,
            });
        }
      }
    }
  return [
    { id: `base-${index}`, suiteVersion: 'suite-1', clips: clips[0] },
    { id: `cand-${index}`, suiteVersion: sharedPrompts ? 'suite-1' : 'suite-2', clips: clips[1] },
  ];
}

const truthOf = (name: string, means: Record<string, number>): number => {
  if (name in means) return means[name]!;
  const form = leaderboardForms(DIMENSIONS)[name as 'Quality' | 'Semantic' | 'Total']!;
  return evaluateForm(form, new Map(Object.entries(means)) as Map<DimensionId, number>);
};

class Tally {
  covered = 0;
  total = 0;
  add(low: number | null, high: number | null, truth: number): void {
    expect(low).not.toBeNull();
    this.total++;
    if (low! <= truth && truth <= high!) this.covered++;
  }
  get rate(): number {
    return this.covered / this.total;
  }
}

const width = (r: { ci95Low: number | null; ci95High: number | null }): number => r.ci95High! - r.ci95Low!;

describe('statistics simulation: 200 run pairs with a known truth', () => {
  const spread: Spread = { prompt: 0.05, interaction: 0.01, clip: 0.03 };
  const candidateMeans = Object.fromEntries(DIMENSIONS.map((d) => [d, MEANS[d]! + TRUE_DELTA[d]!]));
  const deltaTruth = (name: string): number => truthOf(name, candidateMeans) - truthOf(name, MEANS);
  const figures: Record<string, number> = {};

  it('95 % intervals of scores and of paired and unpaired differences cover the truth 93–97 % of the time', () => {
    const families = {
      scoreDimensions: new Tally(),
      scoreAggregates: new Tally(),
      pairedDimensions: new Tally(),
      pairedAggregates: new Tally(),
      unpairedDimensions: new Tally(),
      unpairedAggregates: new Tally(),
    };
    for (let i = 0; i < PAIRS; i++) {
      const [a, b] = runPair(i, spread, TRUE_DELTA, true);
      for (const [run, means] of [
        [a, MEANS],
        [b, candidateMeans],
      ] as const) {
        const card = buildScorecard(DIMENSIONS, run.clips, { seed: run.id, resamples: RESAMPLES });
        for (const r of card.dimensions)
          families.scoreDimensions.add(r.ci95Low, r.ci95High, truthOf(r.dimension, means));
        for (const r of card.aggregates)
          families.scoreAggregates.add(r.ci95Low, r.ci95High, truthOf(r.name, means));
      }
      const paired = compareTwo(a, b, DIMENSIONS, { resamples: RESAMPLES });
      expect(paired.mode).toBe('paired');
      for (const r of paired.rows)
        (r.kind === 'dimension' ? families.pairedDimensions : families.pairedAggregates).add(
          r.ci95Low,
          r.ci95High,
          deltaTruth(r.name),
        );
      const [c, d] = runPair(i, spread, TRUE_DELTA, false);
      const unpaired = compareTwo(c, d, DIMENSIONS, { resamples: RESAMPLES });
      expect(unpaired.mode).toBe('unpaired');
      for (const r of unpaired.rows)
        (r.kind === 'dimension' ? families.unpairedDimensions : families.unpairedAggregates).add(
          r.ci95Low,
          r.ci95High,
          deltaTruth(r.name),
        );
    }
    const all = Object.values(families).reduce(
      (sum, t) => ({ covered: sum.covered + t.covered, total: sum.total + t.total }),
      { covered: 0, total: 0 },
    );
    for (const [name, tally] of Object.entries(families)) figures[`coverage.${name}`] = tally.rate;
    figures['coverage.all'] = all.covered / all.total;
    // All the intervals together (7,200, correlated within a pair), then each family with a band
    // wide enough for its own sampling error (the aggregates of one run move together).
    expect(all.covered / all.total).toBeGreaterThanOrEqual(0.93);
    expect(all.covered / all.total).toBeLessThanOrEqual(0.97);
    for (const tally of Object.values(families)) {
      expect(tally.rate).toBeGreaterThanOrEqual(0.92);
      expect(tally.rate).toBeLessThanOrEqual(0.98);
    }
  });

  it('the paired interval is narrower than the unpaired one when prompt effects are large', () => {
    const large: Spread = { prompt: 0.1, interaction: 0.01, clip: 0.03 };
    let paired = 0;
    let unpaired = 0;
    let narrower = 0;
    let rows = 0;
    for (let i = 0; i < PAIRS; i++) {
      const [a, b] = runPair(i, large, TRUE_DELTA, true);
      const p = compareTwo(a, b, DIMENSIONS, { resamples: RESAMPLES });
      // The same clips, compared as if they could not be matched.
      const u = compareTwo(a, { ...b, suiteVersion: 'other-suite' }, DIMENSIONS, { resamples: RESAMPLES });
      p.rows.forEach((row, k) => {
        paired += width(row);
        unpaired += width(u.rows[k]!);
        if (width(row) < width(u.rows[k]!)) narrower++;
        rows++;
      });
    }
    figures['width.paired'] = paired / rows;
    figures['width.unpaired'] = unpaired / rows;
    figures['width.narrowerShare'] = narrower / rows;
    expect(paired / rows).toBeLessThan(0.5 * (unpaired / rows));
    expect(narrower / rows).toBeGreaterThan(0.95);
  });

  it('with no true difference the gate at DELTA = 0 fires in at most 5 % of pairs', () => {
    const none = Object.fromEntries(DIMENSIONS.map((d) => [d, 0]));
    let fired = 0;
    let firedUnpaired = 0;
    for (let i = 0; i < PAIRS; i++) {
      const gate = { margin: 0, rows: DIMENSIONS };
      const [a, b] = runPair(i, spread, none, true);
      if (compareTwo(a, b, DIMENSIONS, { resamples: RESAMPLES, gate }).gate!.regressions.length > 0) fired++;
      const [c, d] = runPair(i, spread, none, false);
      if (compareTwo(c, d, DIMENSIONS, { resamples: RESAMPLES, gate }).gate!.regressions.length > 0)
        firedUnpaired++;
    }
    figures['gate.falseAlarms.paired'] = fired / PAIRS;
    figures['gate.falseAlarms.unpaired'] = firedUnpaired / PAIRS;
    expect(fired / PAIRS).toBeLessThanOrEqual(0.05);
    expect(firedUnpaired / PAIRS).toBeLessThanOrEqual(0.05);
  });

  it('the gate finds a true regression beyond the margin', () => {
    const worse = { ...TRUE_DELTA, aesthetic_quality: -0.04 };
    let found = 0;
    for (let i = 0; i < 50; i++) {
      const [a, b] = runPair(i, spread, worse, true);
      const gate = compareTwo(a, b, DIMENSIONS, {
        resamples: RESAMPLES,
        gate: { margin: 0.01, rows: DIMENSIONS },
      }).gate!;
      if (gate.regressions.includes('aesthetic_quality')) found++;
      // subject_consistency is 0.01 worse: not beyond a margin of 0.01.
      expect(gate.regressions).not.toContain('subject_consistency');
    }
    figures['gate.power'] = found / 50;
    expect(found / 50).toBeGreaterThan(0.8);
    console.log('simulation figures', figures);
  });
});
