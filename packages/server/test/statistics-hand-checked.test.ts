/**
 * The statistics on examples small enough to check by hand (3 prompts × 2 samples), against
 * values computed independently here: plain means and standard deviations, Student's t from a
 * table, and the sign-flip p-value by enumerating the 2³ patterns in the test itself.
 */
import { describe, expect, it } from 'vitest';
import type { DimensionId } from '@vesta/engine';
import { compareRuns, compareTwo } from '../src/domain/bench-comparison.js';
import type { RunScores } from '../src/domain/bench-comparison.js';
import type { ScoredClip } from '../src/domain/scored-clip.js';
import {
  bootstrapRatioMeans,
  bootstrapReplicates,
  clusterTable,
  holmAdjust,
  percentileInterval,
  permutationPValue,
  weightedSums,
  randomBelow,
  relabelDistribution,
  satterthwaiteDf,
  seededRandom,
  signFlipDistribution,
  studentInterval,
  tQuantile,
} from '../src/domain/statistics/index.js';
import { buildScorecard } from '../src/services/bench-scorecard.js';

const D: DimensionId = 'aesthetic_quality';
/** Student's t, 97.5th percentile, from a printed table. */
const T975 = { 2: 4.302653, 4: 2.776445 } as const;

function clips(
  values: Record<string, [number, number]>,
  dimension: DimensionId = D,
  tag = 'x',
): ScoredClip[] {
  return Object.entries(values).flatMap(([prompt, pair]) =>
    pair.map((value, sampleIndex) => ({
      dimension,
      value,
      method: 'lite',
      methodVersion: '3',
      promptId: prompt,
      promptText: `text of ${prompt}`,
      group: 'overall_consistency',
      sampleIndex,
      videoId: `${tag}-${prompt}-${sampleIndex}`,
    })),
  );
}

const A = { 'p-1': [0.5, 0.54], 'p-2': [0.6, 0.58], 'p-3': [0.4, 0.46] } satisfies Record<
  string,
  [number, number]
>;
const B = { 'p-1': [0.55, 0.57], 'p-2': [0.61, 0.63], 'p-3': [0.41, 0.43] } satisfies Record<
  string,
  [number, number]
>;

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const sd = (xs: number[]): number =>
  Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1));
const promptMeans = (v: Record<string, [number, number]>): number[] => Object.values(v).map(mean);

describe('hand-checked: one run, 3 prompts × 2 samples', () => {
  const card = buildScorecard([D], clips(A), { seed: 'bench_hand' });
  const row = card.dimensions[0]!;

  it('the score is the mean of the 6 clips, from 6 clips and 3 prompts', () => {
    expect(row.score).toBeCloseTo((0.5 + 0.54 + 0.6 + 0.58 + 0.4 + 0.46) / 6, 12);
    expect([row.clips, row.prompts]).toEqual([6, 3]);
  });

  it('the interval is mean ± t(0.975; 2)·s/√3 over the prompt means (bootstrap SE within 3 %)', () => {
    const m = promptMeans(A);
    const half = T975[2] * (sd(m) / Math.sqrt(3));
    const width = row.ci95High! - row.ci95Low!;
    expect(width / (2 * half)).toBeGreaterThan(0.97);
    expect(width / (2 * half)).toBeLessThan(1.03);
    expect((row.ci95High! + row.ci95Low!) / 2).toBeCloseTo(row.score!, 12);
  });

  it('the same run id gives the same interval, whatever order the clips come in', () => {
    const again = buildScorecard([D], clips(A).reverse(), { seed: 'bench_hand' }).dimensions[0]!;
    expect(again).toEqual(row);
    const other = buildScorecard([D], clips(A), { seed: 'bench_other' }).dimensions[0]!;
    expect(other.ci95Low).not.toBe(row.ci95Low);
  });

  it('Quality of two dimensions is the mean of their normalised scores, its interval from the same resample', () => {
    const two = [...clips(A), ...clips(B, 'imaging_quality')];
    const q = buildScorecard([D, 'imaging_quality'], two, { seed: 'bench_hand' }).aggregates[0]!;
    // aesthetic_quality: min 0, max 1, weight 1; imaging_quality: min 0, max 1, weight 1.
    expect(q.value).toBeCloseTo((mean(Object.values(A).flat()) + mean(Object.values(B).flat())) / 2, 12);
    // Both dimensions lie on the same 3 prompts: the aggregate's SE is that of the prompts'
    // averaged means, s/√3 with df 2 (one clip group).
    const perPrompt = promptMeans(A).map((x, i) => (x + promptMeans(B)[i]!) / 2);
    const width = q.ci95High! - q.ci95Low!;
    expect(width / (2 * T975[2] * (sd(perPrompt) / Math.sqrt(3)))).toBeCloseTo(1, 1);
    expect([q.clips, q.prompts]).toEqual([12, 3]);
  });

  it('a clip group of one prompt gives no interval', () => {
    const one = buildScorecard([D], clips({ 'p-1': [0.5, 0.6] }), { seed: 's' }).dimensions[0]!;
    expect(one.score).toBeCloseTo(0.55, 12);
    expect([one.ci95Low, one.ci95High]).toEqual([null, null]);
  });
});

describe('hand-checked: two runs, 3 prompts × 2 samples', () => {
  const base: RunScores = { id: 'bench_a', suiteVersion: 'suite-1', clips: clips(A, D, 'a') };
  const cand: RunScores = { id: 'bench_b', suiteVersion: 'suite-1', clips: clips(B, D, 'b') };
  const paired = compareTwo(base, cand, [D]);
  const row = paired.rows[0]!;
  // Differences per pair: p-1 0.05, 0.03; p-2 0.01, 0.05; p-3 0.01, −0.03.
  const perPrompt = [0.04, 0.03, -0.01];

  it('paired: the mean difference over the 6 matched pairs', () => {
    expect(paired.mode).toBe('paired');
    expect(row.delta).toBeCloseTo(mean(perPrompt), 12);
    expect(row.candidate - row.baseline).toBeCloseTo(row.delta, 12);
    expect([row.pairs, row.prompts]).toEqual([6, 3]);
  });

  it('paired: the interval is Δ ± t(0.975; 2)·s/√3 over the prompts’ mean differences', () => {
    const half = T975[2] * (sd(perPrompt) / Math.sqrt(3));
    expect((row.ci95High! - row.ci95Low!) / (2 * half)).toBeGreaterThan(0.97);
    expect((row.ci95High! - row.ci95Low!) / (2 * half)).toBeLessThan(1.03);
  });

  it('paired: the sign-flip p-value is exact over the 8 patterns (here 4 of 8 are as extreme)', () => {
    const sums = [0.08, 0.06, -0.02];
    const observed = Math.abs(sums.reduce((s, x) => s + x, 0));
    let extreme = 0;
    for (let mask = 0; mask < 8; mask++) {
      const t = sums.reduce((s, x, i) => s + (mask & (1 << i) ? -x : x), 0);
      if (Math.abs(t) >= observed - 1e-12) extreme++;
    }
    expect(extreme).toBe(4);
    expect(row.pValue).toBe(extreme / 8);
  });

  it('per-prompt deltas come largest drop first, with both runs’ clips of the prompt', () => {
    expect(paired.prompts.map((p) => p.promptId)).toEqual(['p-3', 'p-2', 'p-1']);
    expect(paired.prompts[0]!.dimensions[0]!.delta).toBeCloseTo(-0.01, 12);
    expect(paired.prompts[0]!.baselineClips).toEqual([
      { sampleIndex: 0, videoId: 'a-p-3-0' },
      { sampleIndex: 1, videoId: 'a-p-3-1' },
    ]);
  });

  it('unpaired (different suite versions): Δ of the means, Welch–Satterthwaite df', () => {
    const u = compareTwo(base, { ...cand, suiteVersion: 'suite-2' }, [D]).rows[0]!;
    const va = sd(promptMeans(A)) ** 2 / 3;
    const vb = sd(promptMeans(B)) ** 2 / 3;
    const df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 2);
    const half = tQuantile(0.975, df) * Math.sqrt(va + vb);
    expect(u.delta).toBeCloseTo(mean(Object.values(B).flat()) - mean(Object.values(A).flat()), 12);
    expect((u.ci95High! - u.ci95Low!) / (2 * half)).toBeGreaterThan(0.95);
    expect((u.ci95High! - u.ci95Low!) / (2 * half)).toBeLessThan(1.05);
    expect(u.pairs).toBeNull();
  });

  it('the gate cannot fire on 3 prompts: the smallest one-sided p is 1/8 > 0.025', () => {
    const worse: RunScores = {
      id: 'bench_c',
      suiteVersion: 'suite-1',
      clips: clips({ 'p-1': [0.3, 0.3], 'p-2': [0.3, 0.3], 'p-3': [0.2, 0.2] }, D, 'c'),
    };
    const gate = compareTwo(base, worse, [D], { gate: { margin: 0, rows: [D] } }).gate!;
    expect(gate.rows[0]!.pValue).toBe(1 / 8);
    expect(gate.regressions).toEqual([]);
  });

  it('a candidate scored by another method version is not comparable, with why', () => {
    const v4 = { ...cand, clips: cand.clips.map((c) => ({ ...c, methodVersion: '4' })) };
    const result = compareRuns([base, v4]);
    expect(result.dimensions).toEqual([]);
    expect(result.notComparable).toEqual([
      { dimension: D, reason: 'scored by different methods: lite v3 in bench_a, lite v4 in bench_b' },
    ]);
  });

  it('the same runs give the same answer on every call', () => {
    expect(compareTwo(base, cand, [D])).toEqual(paired);
    expect(compareTwo({ ...base, clips: [...base.clips].reverse() }, cand, [D])).toEqual(paired);
  });
});

describe('hand-checked: the pieces', () => {
  it("Holm's step-down", () => {
    const adjusted = holmAdjust([0.01, 0.04, 0.03]);
    [0.03, 0.06, 0.06].forEach((p, i) => expect(adjusted[i]).toBeCloseTo(p, 12));
    // Never below an earlier (smaller) p's adjustment: 0.9 follows 0.5·2 = 1.
    expect(holmAdjust([0.5, 0.9])).toEqual([1, 1]);
  });

  it('Welch–Satterthwaite and the t quantile', () => {
    expect(satterthwaiteDf([{ variance: 1, df: 4 }])).toBe(4);
    expect(
      satterthwaiteDf([
        { variance: 1, df: 4 },
        { variance: 1, df: 4 },
      ]),
    ).toBeCloseTo(8, 12);
    expect(tQuantile(0.975, 4)).toBeCloseTo(T975[4], 5);
    expect(tQuantile(0.975, Number.POSITIVE_INFINITY)).toBeCloseTo(1.959964, 5);
    const ci = studentInterval(1, [{ variance: 0.25, df: 4 }])!;
    expect(ci.low).toBeCloseTo(1 - T975[4] * 0.5, 5);
    expect(studentInterval(1, [{ variance: 0.25, df: 0 }])).toBeNull();
  });

  it('the percentile interval of 0 … 100 is 2.5 … 97.5', () => {
    const p = percentileInterval(Array.from({ length: 101 }, (_, i) => i))!;
    expect(p.low).toBeCloseTo(2.5, 9);
    expect(p.high).toBeCloseTo(97.5, 9);
  });

  it('named random streams repeat, and draw below n without bias', () => {
    const a = seededRandom('run', 'group');
    const b = seededRandom('run', 'group');
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
    const counts = new Array<number>(7).fill(0);
    const r = seededRandom('uniformity');
    for (let i = 0; i < 70_000; i++) counts[randomBelow(r, 7)]!++;
    // χ² with 6 df: 22.46 is its 99.9th percentile.
    const chi2 = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chi2).toBeLessThan(22.46);
  });

  it('the fast ratio-mean bootstrap gives the generic bootstrap’s replicates exactly', () => {
    // Two strata, clusters holding one or two variables, a stratum of one cluster.
    const obs = [
      { stratum: 'g1', cluster: 'p1', variable: 0, value: 0.9 },
      { stratum: 'g1', cluster: 'p1', variable: 0, value: 0.7 },
      { stratum: 'g1', cluster: 'p2', variable: 0, value: 0.4 },
      { stratum: 'g1', cluster: 'p2', variable: 1, value: 0.3 },
      { stratum: 'g1', cluster: 'p3', variable: 1, value: 0.8 },
      { stratum: 'g2', cluster: 'q1', variable: 2, value: 0.5 },
      { stratum: 'g2', cluster: 'q2', variable: 2, value: 0.6 },
      { stratum: 'g3', cluster: 'r1', variable: 3, value: 0.2 },
    ];
    const table = clusterTable(obs, 4);
    const options = { resamples: 500, seed: ['fast', 'path'] };
    const num = new Float64Array(4);
    const den = new Float64Array(4);
    const generic = bootstrapReplicates(
      table,
      4,
      (weights, out, offset) => {
        num.fill(0);
        den.fill(0);
        weightedSums(table, weights, num, den);
        for (let v = 0; v < 4; v++) out[offset + v] = den[v]! > 0 ? num[v]! / den[v]! : Number.NaN;
      },
      options,
    );
    expect(Array.from(bootstrapRatioMeans(table, options))).toEqual(Array.from(generic));
  });

  it('a sign-flip distribution drawn without shift weights gives the same p-values; a shifted test then refuses', () => {
    const table = clusterTable(
      [0.02, -0.01, 0.03, 0.015, -0.005].map((value, i) => ({
        stratum: 'g',
        cluster: `p${i}`,
        variable: 0,
        value,
      })),
      1,
    );
    const full = signFlipDistribution(table, { resamples: 10_000, seed: ['w'] });
    const lean = signFlipDistribution(table, { resamples: 10_000, seed: ['w'], withWeights: false });
    expect(lean.weights.length).toBe(0);
    expect(Array.from(lean.values)).toEqual(Array.from(full.values));
    const observed = [0.01];
    expect(permutationPValue(lean, observed, [1], null, 'two-sided')).toBe(
      permutationPValue(full, observed, [1], null, 'two-sided'),
    );
    expect(() => permutationPValue(lean, observed, [1], [0.01], 'less')).toThrow(/weights/);
  });

  // The resampling loops walk each variable's cells in cluster order with local sums and add
  // the cells of undrawn (or other-group) clusters as 0·x instead of branching. The references
  // below add cluster by cluster, skipping, as the definitions read: the numbers must be the same,
  // bit for bit, with negative values (0·x = −0) and with a cell sum that overflowed to ∞ (0·∞ is
  // NaN, so those tables must take the skipping path).
  const awkward = (big: boolean) =>
    clusterTable(
      [
        { stratum: 'g1', cluster: 'p1', variable: 0, value: -0.9 },
        { stratum: 'g1', cluster: 'p1', variable: 0, value: big ? 1.5e308 : 0.7 },
        { stratum: 'g1', cluster: 'p1', variable: 0, value: big ? 1.5e308 : 0.1 },
        { stratum: 'g1', cluster: 'p2', variable: 0, value: -0.4 },
        { stratum: 'g1', cluster: 'p2', variable: 1, value: -0.3 },
        { stratum: 'g1', cluster: 'p3', variable: 1, value: 0.8 },
        { stratum: 'g1', cluster: 'p4', variable: 0, value: 0.05 },
        { stratum: 'g1', cluster: 'p4', variable: 1, value: -0.25 },
        { stratum: 'g2', cluster: 'q1', variable: 2, value: -0.5 },
        { stratum: 'g2', cluster: 'q2', variable: 2, value: 0.6 },
        { stratum: 'g2', cluster: 'q3', variable: 2, value: -0.6 },
        { stratum: 'g3', cluster: 'r1', variable: 3, value: 0.2 },
      ],
      4,
    );

  it.each([false, true])(
    'the fast bootstrap equals the generic one with negative values (cell sum overflowed: %s)',
    (big) => {
      const table = awkward(big);
      expect(table.sums.some((x) => !Number.isFinite(x))).toBe(big);
      const options = { resamples: 400, seed: ['awkward'] };
      const num = new Float64Array(4);
      const den = new Float64Array(4);
      const generic = bootstrapReplicates(
        table,
        4,
        (weights, out, offset) => {
          num.fill(0);
          den.fill(0);
          weightedSums(table, weights, num, den);
          for (let v = 0; v < 4; v++) out[offset + v] = den[v]! > 0 ? num[v]! / den[v]! : Number.NaN;
        },
        options,
      );
      const fast = Array.from(bootstrapRatioMeans(table, options));
      expect(fast).toEqual(Array.from(generic));
      // toEqual does not tell −0 from +0: the signs of zeros must agree too.
      expect(fast.map((x) => Object.is(x, -0))).toEqual(Array.from(generic, (x) => Object.is(x, -0)));
    },
  );

  it('sign flips equal Σ ±sum / N added cluster by cluster, with the documented draws', () => {
    const table = awkward(false);
    const V = table.variables;
    const resamples = 200;
    const seed = ['flip'];
    const totals = new Float64Array(V);
    for (let i = 0; i < table.counts.length; i++) totals[i % V]! += table.counts[i]!;
    const values = new Float64Array(resamples * V);
    const weights = new Float64Array(resamples * V);
    const streams = table.strata.map((s) => seededRandom(...seed, s.key));
    for (let b = 0; b < resamples; b++) {
      const signs: number[] = [];
      table.strata.forEach((s, g) => {
        let bits = 0;
        for (let c = s.start; c < s.end; c++) {
          if ((c - s.start) % 32 === 0) bits = streams[g]!.next();
          signs[c] = bits & 1 ? -1 : 1;
          bits >>>= 1;
        }
      });
      for (let c = 0; c < table.clusters.length; c++)
        for (let v = 0; v < V; v++) {
          if (table.counts[c * V + v] === 0) continue;
          values[b * V + v]! += signs[c]! * (table.sums[c * V + v]! / totals[v]!);
          weights[b * V + v]! += signs[c]! * (table.counts[c * V + v]! / totals[v]!);
        }
    }
    // 8 clusters: 2⁸ > 200 patterns, so they are drawn, not enumerated.
    const got = signFlipDistribution(table, { resamples, seed });
    expect(got.exact).toBe(false);
    expect(Array.from(got.values)).toEqual(Array.from(values));
    expect(Array.from(got.weights)).toEqual(Array.from(weights));
  });

  it.each([false, true])(
    'relabellings equal the two groups’ ratio means added cluster by cluster (cell sum overflowed: %s)',
    (big) => {
      const table = awkward(big);
      const V = table.variables;
      const labels = Uint8Array.from(table.clusters, (_, c) => c % 2);
      const resamples = 300;
      const seed = ['relabel'];
      const values = new Float64Array(resamples * V);
      const weights = new Float64Array(resamples * V);
      const streams = table.strata.map((s) => seededRandom(...seed, s.key));
      const shuffled = Array.from(labels);
      for (let b = 0; b < resamples; b++) {
        table.strata.forEach((s, g) => {
          for (let i = s.end - 1; i > s.start; i--) {
            const j = s.start + randomBelow(streams[g]!, i - s.start + 1);
            [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
          }
        });
        const sum = [new Float64Array(V), new Float64Array(V)];
        const count = [new Float64Array(V), new Float64Array(V)];
        const second = [new Float64Array(V), new Float64Array(V)];
        for (let c = 0; c < table.clusters.length; c++)
          for (let v = 0; v < V; v++) {
            if (table.counts[c * V + v] === 0) continue;
            const k = shuffled[c]!;
            sum[k]![v]! += table.sums[c * V + v]!;
            count[k]![v]! += table.counts[c * V + v]!;
            if (labels[c] === 1) second[k]![v]! += table.counts[c * V + v]!;
          }
        for (let v = 0; v < V; v++) {
          values[b * V + v] = sum[1]![v]! / count[1]![v]! - sum[0]![v]! / count[0]![v]!;
          weights[b * V + v] = second[1]![v]! / count[1]![v]! - second[0]![v]! / count[0]![v]!;
        }
      }
      const got = relabelDistribution(table, labels, { resamples, seed });
      expect(Array.from(got.values)).toEqual(Array.from(values));
      expect(Array.from(got.weights)).toEqual(Array.from(weights));
    },
  );
});

describe('aggregate intervals stay on the normalised scale', () => {
  it('Quality, Semantic and Total of a few spread-out prompts are clipped to [0, 1]', () => {
    // Three prompts, one far below the others: t(0.975; 2) · SE reaches past 1 above the mean.
    const spread = { 'p-1': [0.99, 0.98], 'p-2': [0.15, 0.25], 'p-3': [0.97, 0.99] } satisfies Record<
      string,
      [number, number]
    >;
    const card = buildScorecard([D], clips(spread), { seed: 'bench_clip' });
    const quality = card.aggregates.find((a) => a.name === 'Quality')!;
    expect(quality.value).not.toBeNull();
    expect(quality.ci95High).toBe(1);
    for (const a of card.aggregates) {
      if (a.value === null) continue;
      expect(a.ci95Low!).toBeGreaterThanOrEqual(0);
      expect(a.ci95High!).toBeLessThanOrEqual(1);
      expect(a.ci95Low!).toBeLessThanOrEqual(a.value);
      expect(a.ci95High!).toBeGreaterThanOrEqual(a.value);
    }
  });
});
