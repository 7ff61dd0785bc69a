import { describe, expect, it } from 'vitest';
import { DIMENSION_IDS } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';
import { csvField, toCsv } from '../src/services/bench-csv.js';
import { clipGroupOf } from '@vesta/engine';
import type { ScoredClip } from '../src/domain/scored-clip.js';
import { buildScorecard as build, scorecardCsv } from '../src/services/bench-scorecard.js';

type ClipScore = Pick<ScoredClip, 'dimension' | 'value' | 'method'>;
let prompts = 0;
/** Each clip from its own prompt of its dimension's clip group. */
const buildScorecard = (dimensions: readonly DimensionId[], clips: ClipScore[]) =>
  build(
    dimensions,
    clips.map((c) => ({
      ...c,
      methodVersion: '1',
      promptId: `p-${++prompts}`,
      promptText: 'a prompt',
      group: clipGroupOf(c.dimension).id,
      sampleIndex: 0,
      videoId: `v-${prompts}`,
    })),
    { seed: 'bench_scorecard_test', resamples: 200 },
  );

// VBench's worked example (vbench-methods.md §3.4): raw aggregates → Quality 0.8443, Semantic 0.7262, Total 0.8207.
const WORKED: Record<DimensionId, number> = {
  subject_consistency: 0.9673,
  background_consistency: 0.9623,
  temporal_flickering: 0.9894,
  motion_smoothness: 0.9845,
  dynamic_degree: 0.6222,
  aesthetic_quality: 0.6345,
  imaging_quality: 0.7048,
  object_class: 0.8617,
  multiple_objects: 0.7491,
  human_action: 0.782,
  color: 0.9014,
  spatial_relationship: 0.8071,
  scene: 0.3132,
  appearance_style: 0.1943,
  temporal_style: 0.24,
  overall_consistency: 0.26,
};

/** Two clips per dimension whose mean is the worked example's aggregate. */
function clipsFor(aggregates: Partial<Record<DimensionId, number>>): ClipScore[] {
  return Object.entries(aggregates).flatMap(([dimension, mean]) => [
    { dimension: dimension as DimensionId, value: mean - 0.01, method: 'vbench' },
    { dimension: dimension as DimensionId, value: mean + 0.01, method: 'vbench' },
  ]);
}

function parse(csv: string): string[][] {
  return csv
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));
}

describe('CSV writer', () => {
  it('quotes commas, quotes and newlines, and defuses formulas', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK(1)')).toBe("'=HYPERLINK(1)");
    expect(csvField('-0.5')).toBe('-0.5');
    expect(csvField(null)).toBe('');
    expect(toCsv(['a', 'b'], [[1, 'x']])).toBe('a,b\r\n1,x\r\n');
    expect(() => toCsv(['a'], [[1, 2]])).toThrow(RangeError);
    expect(() => csvField(Number.NaN)).toThrow(RangeError);
  });
});

describe('bench scorecard', () => {
  it("reproduces VBench's worked example when all 16 dimensions are scored", () => {
    const card = buildScorecard(DIMENSION_IDS, clipsFor(WORKED));
    const rows = parse(scorecardCsv(card));
    expect(rows[0]).toEqual([
      'dimension',
      'category',
      'score',
      'normalised_score',
      'clips',
      'method',
      'ci95_low',
      'ci95_high',
      'prompts',
    ]);
    expect(rows).toHaveLength(1 + 16 + 3);
    const byName = new Map(rows.slice(1).map((r) => [r[0], r]));
    expect(Number(byName.get('subject_consistency')![2])).toBeCloseTo(0.9673, 6);
    expect(Number(byName.get('subject_consistency')![3])).toBeCloseTo(0.9617, 4);
    expect(Number(byName.get('dynamic_degree')![3])).toBeCloseTo(0.3111, 4);
    expect(Number(byName.get('scene')![3])).toBeCloseTo(0.3809, 4);
    expect(byName.get('scene')![4]).toBe('2');
    expect(byName.get('scene')![5]).toBe('vbench');
    expect(Number(byName.get('Quality')![2])).toBeCloseTo(0.8443, 4);
    expect(Number(byName.get('Semantic')![2])).toBeCloseTo(0.7262, 4);
    expect(Number(byName.get('Total')![2])).toBeCloseTo(0.8207, 4);
    expect(byName.get('Total')![5]).toBe('vbench_leaderboard');
    expect(byName.get('Total')![4]).toBe('32');
  });

  it('averages a partial run over the scored dimensions and marks it partial', () => {
    const card = buildScorecard(
      ['aesthetic_quality', 'subject_consistency'],
      [
        { dimension: 'aesthetic_quality', value: 0.5, method: 'lite' },
        { dimension: 'aesthetic_quality', value: 0.7, method: 'vbench' },
        { dimension: 'subject_consistency', value: 0.9, method: 'lite' },
        // A score for a dimension the run did not ask for is ignored.
        { dimension: 'scene', value: 0.9, method: 'vbench' },
      ],
    );
    const rows = parse(scorecardCsv(card));
    // VBench's order, not the request's.
    expect(rows.slice(1, 3).map((r) => r[0])).toEqual(['subject_consistency', 'aesthetic_quality']);
    expect(rows[2]!.slice(0, 6)).toEqual(['aesthetic_quality', 'quality', '0.6', '0.6', '2', 'lite|vbench']);
    expect(rows[2]![8]).toBe('2');
    const quality = (0.6 + (0.9 - 0.1462) / (1 - 0.1462)) / 2;
    expect(Number(rows[3]![2])).toBeCloseTo(quality, 5);
    expect(rows[3]![5]).toBe('vbench_leaderboard_partial');
    expect(rows[4]).toEqual(['Semantic', 'aggregate', '', '', '0', '', '', '', '0']);
    expect(Number(rows[5]![2])).toBeCloseTo(quality, 5);
  });

  it('leaves unscored dimensions empty for a run that has no clips yet', () => {
    const rows = parse(scorecardCsv(buildScorecard(['color'], [])));
    expect(rows.slice(1)).toEqual([
      ['color', 'semantic', '', '', '0', '', '', '', '0'],
      ['Quality', 'aggregate', '', '', '0', '', '', '', '0'],
      ['Semantic', 'aggregate', '', '', '0', '', '', '', '0'],
      ['Total', 'aggregate', '', '', '0', '', '', '', '0'],
    ]);
  });
});
