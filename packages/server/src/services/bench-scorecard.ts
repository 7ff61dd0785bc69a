/**
 * The Bench scorecard: one row per requested dimension (the mean of its per-clip values, VBench's
 * aggregate) plus Quality, Semantic and Total rows computed with VBench's leaderboard formula.
 *
 * CSV header: `dimension,category,score,normalised_score,clips,method`
 * - dimension rows: `score` is the mean per-clip value; `normalised_score` is
 *   weight·(score − min)/(max − min) with VBench's constants (what the leaderboard sums);
 *   `clips` counts the scored clips; `method` lists the methods that produced them (`|`-joined).
 *   A dimension with no scored clip yet has empty score cells and clips 0.
 * - `Quality`, `Semantic`, `Total` rows (category `aggregate`): `score` and `normalised_score`
 *   both hold the group value (it is already on the normalised scale). With all 16 dimensions
 *   scored this is exactly VBench's `cal_final_score.py`; otherwise each group is averaged over
 *   the dimensions that have scores (VBench would count the others as raw 0) and `method` says
 *   `vbench_leaderboard_partial`. A group with no scored dimension has empty cells.
 */
import { DIMENSION_IDS, categoryOf, computeLeaderboardPresent, normalise } from '@vesta/engine';
import type { DimensionCategory, DimensionId } from '@vesta/engine';
import { toCsv } from './bench-csv.js';
import type { CsvCell } from './bench-csv.js';

export interface ClipScore {
  dimension: DimensionId;
  value: number;
  method: string;
}

export interface ScorecardDimensionRow {
  dimension: DimensionId;
  category: DimensionCategory;
  score: number | null;
  normalisedScore: number | null;
  clips: number;
  methods: string[];
}

export interface ScorecardAggregateRow {
  name: 'Quality' | 'Semantic' | 'Total';
  value: number | null;
  clips: number;
  complete: boolean;
}

export interface Scorecard {
  dimensions: ScorecardDimensionRow[];
  aggregates: ScorecardAggregateRow[];
}

export const SCORECARD_CSV_HEADER = [
  'dimension',
  'category',
  'score',
  'normalised_score',
  'clips',
  'method',
] as const;

/** Requested dimensions in VBench's order, each once. */
function ordered(dimensions: readonly DimensionId[]): DimensionId[] {
  const wanted = new Set(dimensions);
  return DIMENSION_IDS.filter((id) => wanted.has(id));
}

export function buildScorecard(
  dimensions: readonly DimensionId[],
  clipScores: readonly ClipScore[],
): Scorecard {
  const rows: ScorecardDimensionRow[] = [];
  const aggregates: Partial<Record<DimensionId, number>> = {};
  for (const dimension of ordered(dimensions)) {
    const scores = clipScores.filter((s) => s.dimension === dimension);
    const category = categoryOf(dimension);
    if (scores.length === 0) {
      rows.push({ dimension, category, score: null, normalisedScore: null, clips: 0, methods: [] });
      continue;
    }
    const mean = scores.reduce((sum, s) => sum + s.value, 0) / scores.length;
    aggregates[dimension] = mean;
    rows.push({
      dimension,
      category,
      score: mean,
      normalisedScore: normalise(dimension, mean),
      clips: scores.length,
      methods: [...new Set(scores.map((s) => s.method))].sort(),
    });
  }

  const board = computeLeaderboardPresent(aggregates);
  const clipsIn = (category: DimensionCategory | 'all'): number =>
    rows.filter((r) => category === 'all' || r.category === category).reduce((n, r) => n + r.clips, 0);
  const groupComplete = (category: DimensionCategory): boolean =>
    DIMENSION_IDS.filter((id) => categoryOf(id) === category).every((id) => aggregates[id] !== undefined);
  const qualityComplete = groupComplete('quality');
  const semanticComplete = groupComplete('semantic');
  return {
    dimensions: rows,
    aggregates: [
      { name: 'Quality', value: board.quality, clips: clipsIn('quality'), complete: qualityComplete },
      { name: 'Semantic', value: board.semantic, clips: clipsIn('semantic'), complete: semanticComplete },
      {
        name: 'Total',
        value: board.total,
        clips: clipsIn('all'),
        complete: qualityComplete && semanticComplete,
      },
    ],
  };
}

/** Fixed precision keeps the CSV stable and readable; 6 decimals is below any method's noise. */
function num(value: number | null): CsvCell {
  return value === null ? null : Number(value.toFixed(6));
}

export function scorecardCsv(card: Scorecard): string {
  const rows: CsvCell[][] = card.dimensions.map((r) => [
    r.dimension,
    r.category,
    num(r.score),
    num(r.normalisedScore),
    r.clips,
    r.methods.join('|'),
  ]);
  for (const a of card.aggregates) {
    rows.push([
      a.name,
      'aggregate',
      num(a.value),
      num(a.value),
      a.clips,
      a.value === null ? '' : a.complete ? 'vbench_leaderboard' : 'vbench_leaderboard_partial',
    ]);
  }
  return toCsv(SCORECARD_CSV_HEADER, rows);
}
