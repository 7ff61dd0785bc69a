/**
 * Comparison of a user's Bench runs (`GET /api/v1/bench/compare`) and the regression gate built
 * on it: reads the runs and their scored clips, checks what the caller may compare, and hands the
 * clips to the pure comparison (`domain/bench-comparison.ts`, statistics in `domain/statistics/`).
 */
import { DIMENSION_IDS, isDimensionId } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';
import { GATE_ALPHA, compareRuns } from '../domain/bench-comparison.js';
import type { PairComparison, RunScores } from '../domain/bench-comparison.js';
import { isTerminalBenchStatus } from '../domain/bench-state.js';
import { AGGREGATE_NAMES } from '../domain/leaderboard-forms.js';
import type { AggregateName } from '../domain/leaderboard-forms.js';
import { CONFIDENCE_LEVEL, RESAMPLES } from '../domain/scored-clip.js';
import type {
  BenchComparisonView,
  CompareGateView,
  CompareInput,
  CompareRunView,
  PairComparisonView,
} from '../domain/views/bench-comparison.js';
import { AppError, forbidden, notFound, validationFailed } from '../errors.js';
import type { BenchRunHead, Repositories } from '../repositories/index.js';
import { INTERVAL_METHOD } from './bench-scorecard.service.js';
import { progressOf, scoredClips } from './bench-views.js';
import { publicModelId } from './model-keys.js';
import { ownRow } from './ownership.js';

/** The most runs one comparison takes (the baseline and nine candidates). */
export const MAX_COMPARED_RUNS = 10;

const aggregateOf = (name: string): AggregateName | undefined =>
  AGGREGATE_NAMES.find((a) => a.toLowerCase() === name.toLowerCase());

function runLabel(run: BenchRunHead, scored: number): string {
  const total = progressOf(run).clips_total;
  return run.status === 'completed' ? 'completed' : `${run.status}: ${scored} of ${total} clips scored`;
}

function pairView(
  c: PairComparison,
  runs: Map<string, BenchRunHead>,
  promptLimit: number | undefined,
): PairComparisonView {
  const a = runs.get(c.baselineId)!;
  const b = runs.get(c.candidateId)!;
  return {
    baseline_id: c.baselineId,
    candidate_id: c.candidateId,
    mode: c.mode,
    mode_reason:
      c.mode === 'paired'
        ? `both runs were planned from prompt suite ${a.suite_version}: clips matched on (prompt, sample index)`
        : `different prompt suites (${a.suite_version ?? 'unknown'}, ${b.suite_version ?? 'unknown'}): each run's prompts resampled on their own`,
    unmatched_clips: c.unmatched,
    rows: c.rows.map((r) => ({
      name: r.name,
      kind: r.kind,
      higher_is_better: r.higherIsBetter,
      baseline: r.baseline,
      candidate: r.candidate,
      delta: r.delta,
      ci95_low: r.ci95Low,
      ci95_high: r.ci95High,
      p_value: r.pValue,
      p_adjusted: r.pAdjusted,
      significant:
        r.ci95Low !== null && r.ci95High !== null && (r.ci95Low > 0 || r.ci95High < 0) && r.pAdjusted < 0.05,
      pairs: r.pairs,
      baseline_clips: r.baselineClips,
      candidate_clips: r.candidateClips,
      prompts: r.prompts,
      partial: r.partial,
    })),
    prompts: (promptLimit === undefined ? c.prompts : c.prompts.slice(0, promptLimit)).map((p) => ({
      prompt_id: p.promptId,
      prompt: p.prompt,
      clip_group: p.group,
      delta: p.delta,
      dimensions: p.dimensions,
      baseline_clips: p.baselineClips.map((x) => ({ sample_index: x.sampleIndex, video_id: x.videoId })),
      candidate_clips: p.candidateClips.map((x) => ({ sample_index: x.sampleIndex, video_id: x.videoId })),
    })),
  };
}

/** Comparisons of runs that have all ended, kept (their clips no longer change). */
const CACHE_LIMIT = 64;

interface CachedComparison {
  result: ReturnType<typeof compareRuns>;
  scored: Map<string, number>;
}

export class BenchComparisonService {
  /**
   * Computed comparisons by their inputs (ids, dimensions, margin, and each run's status and last
   * change), kept only when every run has ended: a finished run's scored clips never change, so
   * the answer is the same on every call (the statistics are seeded) and the dashboard's runs
   * list, which compares each run with its baseline, costs one computation per pair. Bounded:
   * the least recently used go first.
   */
  private readonly cache = new Map<string, CachedComparison>();

  constructor(
    private readonly repos: Repositories,
    private readonly resamples: number = RESAMPLES,
  ) {}

  /** Forgets every kept comparison (the benchmark measures the computation this way). */
  clearCache(): void {
    this.cache.clear();
  }

  async compare(userId: string, input: CompareInput): Promise<BenchComparisonView> {
    const ids = input.runs;
    if (ids.length < 2) throw validationFailed('runs must name at least 2 runs: a baseline and a candidate');
    if (ids.length > MAX_COMPARED_RUNS)
      throw validationFailed(
        `runs names ${ids.length} runs; at most ${MAX_COMPARED_RUNS} can be compared at once`,
      );
    const seen = new Set<string>();
    for (const id of ids) {
      if (id === '')
        throw validationFailed("runs lists '' (an empty id): separate run ids with single commas");
      if (seen.has(id)) throw validationFailed(`runs lists '${id}' twice`);
      seen.add(id);
    }
    const wanted = input.dimensions ?? [];
    for (const name of wanted)
      if (!isDimensionId(name) && !aggregateOf(name))
        throw validationFailed(
          `unknown dimension '${name}'; GET /api/v1/dimensions lists the dimensions (or name Quality, Semantic, Total)`,
        );
    const margin = input.fail_on_regression;
    if (margin !== undefined && ids.length !== 2)
      throw validationFailed(
        'fail_on_regression gates one candidate against one baseline: name exactly 2 runs',
      );

    const records = new Map<string, BenchRunHead>();
    for (const id of ids) {
      const run = ownRow(await this.repos.benchRuns.headOwnedBy(id, userId), {
        none: () => notFound(`bench run '${id}'`),
        other: () => forbidden(`bench run '${id}' belongs to another user`),
      });
      records.set(id, run);
    }
    const dimensions = wanted.filter(isDimensionId);
    const gatedAggregates = wanted.flatMap((w) => aggregateOf(w) ?? []);
    const ended = ids.every((id) => isTerminalBenchStatus(records.get(id)!.status));
    const key = JSON.stringify([
      ids.map((id) => [id, records.get(id)!.status, records.get(id)!.updated_at]),
      wanted,
      margin ?? null,
      this.resamples,
    ]);
    let computed = ended ? this.cache.get(key) : undefined;
    if (computed) {
      this.cache.delete(key);
      this.cache.set(key, computed);
    } else {
      const runs: RunScores[] = [];
      const scored = new Map<string, number>();
      for (const id of ids) {
        const run = records.get(id)!;
        const clips = scoredClips(await this.repos.benchTasks.scoredClipsOf(id));
        if (clips.length === 0)
          throw new AppError(
            'no_scored_clips',
            `bench run '${id}' (${run.status}) has no scored clip yet: there is nothing of it to compare`,
          );
        scored.set(id, new Set(clips.map((c) => c.videoId)).size);
        runs.push({ id, suiteVersion: run.suite_version, clips });
      }
      const result = compareRuns(runs, {
        dimensions: dimensions.length > 0 ? dimensions : undefined,
        resamples: this.resamples,
        ...(margin === undefined
          ? {}
          : {
              gate: {
                margin,
                // The rows named, dimensions and aggregates alike (`dimensions=Total` gates the
                // Total only); with none named, every compared dimension.
                rows: wanted.length > 0 ? [...dimensions, ...gatedAggregates] : DIMENSION_IDS,
              },
            }),
      });
      computed = { result, scored };
      if (ended) {
        this.cache.set(key, computed);
        if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
      }
    }
    const { result } = computed;
    const views: CompareRunView[] = [];
    for (const id of ids) {
      const run = records.get(id)!;
      const scored = computed.scored.get(id)!;
      views.push({
        id,
        name: run.name,
        model_id: publicModelId(run.model_id),
        status: run.status,
        suite_version: run.suite_version,
        clips_scored: scored,
        clips_total: progressOf(run).clips_total,
        label: runLabel(run, scored),
      });
    }

    const several = ids.length > 2;
    return {
      baseline_id: ids[0]!,
      level: CONFIDENCE_LEVEL,
      resamples: this.resamples,
      interval_method: INTERVAL_METHOD,
      correction: several
        ? {
            method: 'holm',
            statement: `Every run is compared with the first (${ids[0]!}); each row's p-values are adjusted by Holm's method across the ${ids.length - 1} comparisons (p_adjusted), so a row's chance of any false "significant" among them is at most 5 %.`,
          }
        : {
            method: 'none',
            statement: 'One comparison: p_adjusted equals p_value (no correction across rows).',
          },
      runs: views,
      comparable: result.dimensions.length > 0,
      dimensions: result.dimensions,
      not_comparable: result.notComparable,
      comparisons: result.comparisons.map((c) => pairView(c, records, input.prompt_limit)),
      gate:
        margin === undefined
          ? null
          : gateView(margin, result.comparisons[0], dimensions, gatedAggregates, result.notComparable),
    };
  }
}

function gateView(
  margin: number,
  comparison: PairComparison | undefined,
  named: readonly DimensionId[],
  namedAggregates: readonly string[],
  notComparable: ReadonlyArray<{ dimension: DimensionId; reason: string }>,
): CompareGateView {
  const missing: Array<{ name: string; reason: string }> = notComparable
    .filter((n) => named.includes(n.dimension))
    .map((n) => ({ name: n.dimension, reason: n.reason }));
  // A named aggregate none of whose group's dimensions is compared has no row to gate.
  if (comparison?.gate)
    for (const name of namedAggregates)
      if (!comparison.gate.rows.some((r) => r.name === name))
        missing.push({ name, reason: "none of its group's dimensions is compared" });
  if (!comparison?.gate || missing.length > 0) {
    const why =
      missing.length > 0
        ? missing.map((n) => `${n.name}: ${n.reason}`).join('; ')
        : 'no dimension is comparable';
    return {
      margin,
      alpha: GATE_ALPHA,
      verdict: 'not_comparable',
      statement: `Not comparable, no verdict: ${why}.`,
      rows: [],
      regressions: [],
    };
  }
  const gate = comparison.gate;
  const rows = gate.rows.map((r) => ({
    name: r.name,
    delta: r.delta,
    ci95_low: r.ci95Low,
    ci95_high: r.ci95High,
    p_value: r.pValue,
    p_adjusted: r.pAdjusted,
    regressed: r.regressed,
  }));
  return {
    margin,
    alpha: gate.alpha,
    verdict: gate.regressions.length > 0 ? 'regression' : 'pass',
    statement:
      gate.regressions.length > 0
        ? `Regression: ${gate.regressions.join(', ')} worse than the baseline by more than ${margin} with 97.5 % one-sided confidence (Holm over ${rows.length} row(s)).`
        : `No row worse than the baseline by more than ${margin} with 97.5 % one-sided confidence (Holm over ${rows.length} row(s)).`,
    rows,
    regressions: gate.regressions,
  };
}
