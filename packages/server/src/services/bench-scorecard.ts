/**
 * The Bench scorecard: one row per requested dimension (the mean of its per-clip values, VBench's
 * aggregate) plus Quality, Semantic and Total rows computed with VBench's leaderboard formula,
 * each with a 95 % confidence interval and the number of clips and prompts behind it.
 *
 * CSV header: `dimension,category,score,normalised_score,clips,method,ci95_low,ci95_high,prompts`
 * (VBench's six columns first, so a reader of the old layout keeps working).
 * - dimension rows: `score` is the mean per-clip value; `normalised_score` is
 *   weight·(score − min)/(max − min) with VBench's constants (what the leaderboard sums);
 *   `clips` counts the scored clips; `method` lists the methods that produced them (`|`-joined).
 *   A dimension with no scored clip yet has empty score cells and clips 0.
 * - `Quality`, `Semantic`, `Total` rows (category `aggregate`): `score` and `normalised_score`
 *   both hold the group value (it is already on the normalised scale). With all 16 dimensions
 *   scored this is exactly VBench's `cal_final_score.py`; otherwise each group is averaged over
 *   the dimensions that have scores (VBench would count the others as raw 0) and `method` says
 *   `vbench_leaderboard_partial`. A group with no scored dimension has empty cells.
 * - `ci95_low`, `ci95_high`: the 95 % interval of the row's score (an aggregate's on its normalised
 *   scale), from one bootstrap over prompts seeded from the run id (`domain/statistics`): clips of
 *   one prompt are resampled together, each clip group's prompts on their own, and every
 *   aggregate is recomputed from each replicate's dimension means. Empty when the row has no
 *   score, or rests on a clip group with a single prompt (its spread cannot be estimated).
 * - `prompts`: the prompts behind the row (the resampled units).
 */
import { DIMENSION_IDS, categoryOf, computeLeaderboardPresent, getDimension, normalise } from '@vesta/engine';
import type { DimensionCategory, DimensionId } from '@vesta/engine';
import { AGGREGATE_NAMES, leaderboardForms } from '../domain/leaderboard-forms.js';
import type { AggregateName } from '../domain/leaderboard-forms.js';
import { CONFIDENCE_LEVEL, RESAMPLES } from '../domain/scored-clip.js';
import type { ScoredClip } from '../domain/scored-clip.js';
import {
  bootstrapRatioMeans,
  clusterTable,
  combineReplicates,
  finiteVariance,
  ratioMeans,
  stratumOfVariables,
  studentInterval,
} from '../domain/statistics/index.js';
import type { ClusterTable, VarianceComponent } from '../domain/statistics/index.js';
import { toCsv } from './bench-csv.js';
import type { CsvCell } from './bench-csv.js';

export interface ScorecardDimensionRow {
  dimension: DimensionId;
  category: DimensionCategory;
  score: number | null;
  normalisedScore: number | null;
  clips: number;
  prompts: number;
  methods: string[];
  ci95Low: number | null;
  ci95High: number | null;
}

export interface ScorecardAggregateRow {
  name: AggregateName;
  value: number | null;
  clips: number;
  prompts: number;
  complete: boolean;
  ci95Low: number | null;
  ci95High: number | null;
}

export interface Scorecard {
  dimensions: ScorecardDimensionRow[];
  aggregates: ScorecardAggregateRow[];
}

export interface ScorecardOptions {
  /** Names the bootstrap's random streams: the run id, so a run always gets the same intervals. */
  seed: string;
  resamples?: number;
}

export const SCORECARD_CSV_HEADER = [
  'dimension',
  'category',
  'score',
  'normalised_score',
  'clips',
  'method',
  'ci95_low',
  'ci95_high',
  'prompts',
] as const;

/** Requested dimensions in VBench's order, each once. */
function ordered(dimensions: readonly DimensionId[]): DimensionId[] {
  const wanted = new Set(dimensions);
  return DIMENSION_IDS.filter((id) => wanted.has(id));
}

/** Clusters (prompts) of `table` holding any value of the variables `used`, per stratum. */
function promptsPerStratum(table: ClusterTable, used: readonly number[]): number[] {
  return table.strata.map((s) => {
    let n = 0;
    for (let c = s.start; c < s.end; c++)
      if (used.some((v) => table.counts[c * table.variables + v]! > 0)) n++;
    return n;
  });
}

/**
 * The variance components of intercept + Σ coefficient·mean over the replicates: one per stratum
 * holding a used variable, its replicate variance with (its prompts − 1) degrees of freedom.
 */
export function stratumComponents(
  table: ClusterTable,
  replicates: Float64Array,
  coefficients: Float64Array,
): VarianceComponent[] {
  const strata = stratumOfVariables(table);
  const out: VarianceComponent[] = [];
  table.strata.forEach((_, g) => {
    const own = new Float64Array(table.variables);
    const used: number[] = [];
    for (let v = 0; v < table.variables; v++)
      if (strata[v] === g && coefficients[v] !== 0) {
        own[v] = coefficients[v]!;
        used.push(v);
      }
    if (used.length === 0) return;
    const part = combineReplicates(replicates, table.variables, own);
    out.push({ variance: finiteVariance(part).variance, df: promptsPerStratum(table, used)[g]! - 1 });
  });
  return out;
}

/** Clips of `clips` on `dimensions`, as the statistics' observations. */
function tableOf(dimensions: readonly DimensionId[], clips: readonly ScoredClip[]): ClusterTable {
  const index = new Map(dimensions.map((d, i) => [d, i]));
  const observations = clips.flatMap((c) => {
    const variable = index.get(c.dimension);
    return variable === undefined
      ? []
      : [{ stratum: c.group, cluster: c.promptId, variable, value: c.value }];
  });
  return clusterTable(observations, dimensions.length);
}

const clip = (x: number, d: DimensionId): number => {
  const range = getDimension(d)?.range;
  return range ? Math.min(range.max, Math.max(range.min, x)) : x;
};

export function buildScorecard(
  dimensions: readonly DimensionId[],
  clips: readonly ScoredClip[],
  options: ScorecardOptions,
): Scorecard {
  const requested = ordered(dimensions);
  const scored = requested.filter((d) => clips.some((c) => c.dimension === d));
  const table = tableOf(scored, clips);
  const means = new Float64Array(scored.length);
  ratioMeans(table, null, means);
  const replicates = bootstrapRatioMeans(table, {
    resamples: options.resamples ?? RESAMPLES,
    seed: [options.seed, 'scorecard'],
  });
  const intervalOf = (coefficients: Float64Array, estimate: number) =>
    studentInterval(estimate, stratumComponents(table, replicates, coefficients), CONFIDENCE_LEVEL);
  const unit = (i: number): Float64Array => {
    const c = new Float64Array(scored.length);
    c[i] = 1;
    return c;
  };
  const promptCount = (used: number[]): number => promptsPerStratum(table, used).reduce((a, b) => a + b, 0);

  const aggregates: Partial<Record<DimensionId, number>> = {};
  const rows: ScorecardDimensionRow[] = requested.map((dimension) => {
    const category = categoryOf(dimension);
    const i = scored.indexOf(dimension);
    const own = clips.filter((c) => c.dimension === dimension);
    if (i === -1)
      return {
        dimension,
        category,
        score: null,
        normalisedScore: null,
        clips: 0,
        prompts: 0,
        methods: [],
        ci95Low: null,
        ci95High: null,
      };
    const mean = means[i]!;
    aggregates[dimension] = mean;
    const ci = intervalOf(unit(i), mean);
    return {
      dimension,
      category,
      score: mean,
      normalisedScore: normalise(dimension, mean),
      clips: own.length,
      prompts: promptCount([i]),
      methods: [...new Set(own.map((s) => s.method))].sort(),
      ci95Low: ci === null ? null : clip(ci.low, dimension),
      ci95High: ci === null ? null : clip(ci.high, dimension),
    };
  });

  const board = computeLeaderboardPresent(aggregates);
  const forms = leaderboardForms(scored);
  const complete = (category: DimensionCategory): boolean =>
    DIMENSION_IDS.filter((id) => categoryOf(id) === category).every((id) => aggregates[id] !== undefined);
  const completeness: Record<AggregateName, boolean> = {
    Quality: complete('quality'),
    Semantic: complete('semantic'),
    Total: complete('quality') && complete('semantic'),
  };
  const values: Record<AggregateName, number | null> = {
    Quality: board.quality,
    Semantic: board.semantic,
    Total: board.total,
  };
  return {
    dimensions: rows,
    aggregates: AGGREGATE_NAMES.map((name) => {
      const form = forms[name];
      const value = values[name];
      const used = form ? [...form.coefficients.keys()].map((d) => scored.indexOf(d)) : [];
      const coefficients = new Float64Array(scored.length);
      for (const [d, c] of form?.coefficients ?? []) coefficients[scored.indexOf(d)] = c;
      const ci = value === null ? null : intervalOf(coefficients, value);
      return {
        name,
        value,
        clips: rows
          .filter((r) => used.includes(scored.indexOf(r.dimension)))
          .reduce((n, r) => n + r.clips, 0),
        prompts: promptCount(used),
        complete: completeness[name],
        // Quality, Semantic and Total are weighted means of normalised scores: within [0, 1].
        ci95Low: ci ? Math.max(0, ci.low) : null,
        ci95High: ci ? Math.min(1, ci.high) : null,
      };
    }),
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
    num(r.ci95Low),
    num(r.ci95High),
    r.prompts,
  ]);
  for (const a of card.aggregates) {
    rows.push([
      a.name,
      'aggregate',
      num(a.value),
      num(a.value),
      a.clips,
      a.value === null ? '' : a.complete ? 'vbench_leaderboard' : 'vbench_leaderboard_partial',
      num(a.ci95Low),
      num(a.ci95High),
      a.prompts,
    ]);
  }
  return toCsv(SCORECARD_CSV_HEADER, rows);
}
