/**
 * The validation harness (`npm run validate`, scripts/validate.ts): its rank statistics against
 * hand-worked values, and one degradation series of each kind run end to end on a small clip made
 * here (blur must lower imaging quality; stutter by duplication must lower motion smoothness).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_TOLERANCE, MIN_SPREAD, SERIES, levelArgs } from '../../../scripts/validate/degradations.js';
import {
  averageRanks,
  crossGroupConcordance,
  kendallTauB,
  leaveOneOutSpearman,
  monotonicity,
  spearman,
  spearmanPermutationP,
} from '../../../scripts/validate/stats.js';
import { VBENCH_PUBLISHED, QUALITY_DIMENSIONS } from '../../../scripts/validate/vbench-published.js';
import type { Engine } from '../src/contract.js';
import { defaultFfmpegPath } from '../src/decode/binaries.js';
import { createEngine } from '../src/engine.js';
import { CORPUS_DIR } from './helpers/corpus.js';

describe('rank statistics', () => {
  it('ranks ties by their mean rank', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });

  it('Spearman ρ: identical, reversed, and a worked example with a tie', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    // Ranks a = 1,2,3,4,5; b = 2,1,4,3,5 → Σd² = 4 → ρ = 1 − 6·4/(5·24) = 0.8.
    expect(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.8, 12);
    // With a tie, ρ is the Pearson correlation of the average ranks: b ranks 1.5,1.5,3,4.
    expect(spearman([1, 2, 3, 4], [7, 7, 8, 9])).toBeCloseTo(0.9486832980505138, 12);
    expect(Number.isNaN(spearman([1, 1, 1], [1, 2, 3]))).toBe(true);
  });

  it('Kendall τ-b: concordant minus discordant pairs, tie-corrected', () => {
    // 10 pairs, 2 discordant → τ = (8 − 2)/10 = 0.6.
    expect(kendallTauB([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.6, 12);
    expect(kendallTauB([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    // One tie in b: C = 5, D = 0, ties_b = 1 → 5/√(6·5).
    expect(kendallTauB([1, 2, 3, 4], [7, 7, 8, 9])).toBeCloseTo(5 / Math.sqrt(30), 12);
  });

  it('exact permutation p of ρ: the share of orderings agreeing at least as well', () => {
    // n = 3: of the 6 orderings one has ρ = 1, two ρ = 0.5, two ρ = −0.5, one ρ = −1.
    expect(spearmanPermutationP([1, 2, 3], [1, 2, 3])).toBeCloseTo(1 / 6, 12);
    expect(spearmanPermutationP([1, 3, 2], [1, 2, 3])).toBeCloseTo(3 / 6, 12);
    expect(spearmanPermutationP([3, 2, 1], [1, 2, 3])).toBeCloseTo(1, 12);
    // n = 7 (the agreement set): a perfect ordering has p = 1/5040.
    expect(spearmanPermutationP([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7])).toBeCloseTo(1 / 5040, 12);
  });

  it('leave-one-out ρ drops each item in turn', () => {
    const loo = leaveOneOutSpearman([1, 2, 3, 10], [1, 2, 3, 0]);
    expect(loo[3]).toBeCloseTo(1, 12); // without the outlier the order is perfect
    expect(loo[0]).toBeCloseTo(spearman([2, 3, 10], [2, 3, 0]), 12);
  });

  it('cross-group concordance counts item pairs ordered like their groups, ties half, within blocks', () => {
    const ref = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    const items = [
      { group: 'a', value: 5 },
      { group: 'a', value: 1 },
      { group: 'b', value: 3 },
    ];
    // a5 > b3 agrees, a1 < b3 disagrees.
    expect(crossGroupConcordance(items, ref)).toEqual({ share: 0.5, pairs: 2 });
    expect(crossGroupConcordance([...items, { group: 'b', value: 5 }], ref).share).toBeCloseTo(1.5 / 4, 12);
    const blocks = items.map((x, i) => ({ ...x, block: i === 1 ? 'q' : 'p' }));
    expect(crossGroupConcordance(blocks, ref)).toEqual({ share: 1, pairs: 1 });
  });

  it('monotonicity', () => {
    expect(monotonicity([1, 2, 3])).toBe(1);
    expect(monotonicity([3, 2, 1])).toBe(-1);
    expect(monotonicity([1, 3, 2])).toBe(0);
  });

  it('the published table has a value for every quality dimension of every model, as percentages', () => {
    for (const m of VBENCH_PUBLISHED) {
      for (const d of QUALITY_DIMENSIONS) {
        expect(m.values[d], `${m.vbenchName} ${d}`).toBeGreaterThanOrEqual(0);
        expect(m.values[d], `${m.vbenchName} ${d}`).toBeLessThanOrEqual(100);
      }
    }
  });
});

describe('degradation series definitions', () => {
  it('relational checks name an existing series and level', () => {
    const withRelations = SERIES.filter((s) => s.lessThan);
    expect(withRelations.map((s) => s.id)).toContain('pan');
    for (const s of withRelations) {
      for (const rel of Object.values(s.lessThan!)) {
        const other = SERIES.find((x) => x.id === rel.than);
        expect(other, rel.than).toBeDefined();
        expect(rel.level).toBeGreaterThan(0);
        expect(rel.level).toBeLessThan(other!.levels.length);
      }
    }
  });

  it('a level that splices the partner clip gets it as the second input, and cannot run without it', () => {
    const cut = SERIES.find((s) => s.id === 'cut')!;
    const spliced = cut.levels.filter((l) => l.partner);
    expect(spliced).toHaveLength(3);
    expect(() => levelArgs('a.mp4', spliced[0]!, 'out.mp4')).toThrow(/partner/);
    const args = levelArgs('a.mp4', spliced[0]!, 'out.mp4', 'b.mp4');
    expect(args.filter((a) => a === '-i')).toHaveLength(2);
    expect(args[args.indexOf('a.mp4') + 1]).toBe('-i');
    expect(args[args.indexOf('b.mp4') - 1]).toBe('-i');
    // Level 0 is the source alone.
    expect(levelArgs('a.mp4', cut.levels[0]!, 'out.mp4').filter((a) => a === '-i')).toHaveLength(1);
  });

  it('both palette series bound a 256-colour GIF for every frame-level dimension', () => {
    for (const id of ['palette', 'palette-ed']) {
      const s = SERIES.find((x) => x.id === id)!;
      expect(s.robust).toMatchObject({
        imaging_quality: 0.1,
        aesthetic_quality: 0.1,
        subject_consistency: FORMAT_TOLERANCE,
        background_consistency: FORMAT_TOLERANCE,
      });
    }
    expect(FORMAT_TOLERANCE).toBe(MIN_SPREAD);
  });
});

describe('degradation series on a clip made here', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vesta-validate-'));
  const source = join(dir, 'source.mp4');
  const partner = join(dir, 'partner.mp4');
  let engine: Engine;

  beforeAll(() => {
    // The first 2 s of a real camera clip at 30 fps and 320 px (the series assume 30 fps sources).
    // Not FFmpeg's testsrc2: its boxes sit on the 8-pixel grid, which imaging quality's blockiness
    // term reads as coding blocks (and a blur then "removes" them).
    execFileSync(defaultFfmpegPath(), [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      join(CORPUS_DIR, 'real__cotracker-bear.mp4'),
      '-t',
      '2',
      '-vf',
      'fps=30,scale=320:-2:flags=area',
      '-an',
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '12',
      '-pix_fmt',
      'yuv420p',
      source,
    ]);
    // The scene-cut partner, prepared the same way from another real clip.
    execFileSync(defaultFfmpegPath(), [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-i', join(CORPUS_DIR, 'real__sam2-coffee-pour.mp4'), '-t', '2'],
      ...['-vf', 'fps=30,scale=320:-2:flags=area', '-an'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '12', '-pix_fmt', 'yuv420p', partner],
    ]);
    engine = createEngine({ threads: 2 });
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const level = (seriesId: string, i: number): string => {
    const series = SERIES.find((s) => s.id === seriesId)!;
    const l = series.levels[i]!;
    const out = join(dir, `${seriesId}-${i}.${l.ext}`);
    execFileSync(defaultFfmpegPath(), levelArgs(source, l, out, partner));
    return out;
  };

  it('blur lowers imaging quality', { timeout: 120_000 }, async () => {
    const [a, b] = await Promise.all(
      [level('blur', 0), level('blur', 3)].map((p) =>
        engine.evaluate(p, { dimensions: ['imaging_quality'] }),
      ),
    );
    expect(b!.scores[0]!.value).toBeLessThan(a!.scores[0]!.value - 0.05);
  });

  it('stutter by duplication (30 → 10 fps) lowers motion smoothness', { timeout: 120_000 }, async () => {
    const [a, b] = await Promise.all(
      [level('stutter', 0), level('stutter', 2)].map((p) =>
        engine.evaluate(p, { dimensions: ['motion_smoothness'] }),
      ),
    );
    expect(b!.scores[0]!.value).toBeLessThan(a!.scores[0]!.value - 0.005);
  });

  it(
    'a cut to another scene for the last 3/4 of the clip lowers both consistency dimensions',
    { timeout: 120_000 },
    async () => {
      const dimensions = ['subject_consistency', 'background_consistency'] as const;
      const [a, b] = await Promise.all(
        [level('cut', 0), level('cut', 3)].map((p) => engine.evaluate(p, { dimensions: [...dimensions] })),
      );
      for (const d of dimensions) {
        const before = a!.scores.find((x) => x.dimension === d)!.value;
        const after = b!.scores.find((x) => x.dimension === d)!.value;
        expect(after, d).toBeLessThan(before - 0.05);
      }
    },
  );
});
