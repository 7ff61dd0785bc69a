/**
 * Scorecards with intervals, for a run as it is now (resampled on every call: a live run's scores
 * keep arriving) and for a run that ended (computed once and stored on the run, so reading a
 * finished run costs one row, whatever its size). A finished run without a stored scorecard (it
 * ended before migration 0013, or the process stopped between the end and the store) gets one on
 * its first read; one stored by an older version of the statistics is recomputed likewise.
 */
import type { DimensionId } from '@vesta/engine';
import { isTerminalBenchStatus } from '../domain/bench-state.js';
import { CONFIDENCE_LEVEL, RESAMPLES } from '../domain/scored-clip.js';
import type { BenchScorecardView } from '../domain/views/bench.js';
import type { BenchRunRecord, Repositories } from '../repositories/index.js';
import { buildScorecard } from './bench-scorecard.js';
import type { Scorecard } from './bench-scorecard.js';
import { parseJson, scoredClips } from './bench-views.js';

/** Bumped whenever the statistics change what a stored scorecard would hold. */
export const SCORECARD_VERSION = 1;
export const INTERVAL_METHOD = 'prompt_bootstrap_t';

interface StoredScorecard {
  version: number;
  card: Scorecard;
}

export function scorecardView(card: Scorecard, final: boolean): BenchScorecardView {
  return {
    level: CONFIDENCE_LEVEL,
    resamples: RESAMPLES,
    interval_method: INTERVAL_METHOD,
    final,
    dimensions: card.dimensions.map((r) => ({
      dimension: r.dimension,
      category: r.category,
      score: r.score,
      normalised_score: r.normalisedScore,
      clips: r.clips,
      prompts: r.prompts,
      methods: r.methods,
      ci95_low: r.ci95Low,
      ci95_high: r.ci95High,
    })),
    aggregates: card.aggregates.map((a) => ({
      name: a.name,
      value: a.value,
      clips: a.clips,
      prompts: a.prompts,
      partial: a.value !== null && !a.complete,
      ci95_low: a.ci95Low,
      ci95_high: a.ci95High,
    })),
  };
}

/** The stored scorecard of a run row, when it holds one of this version. */
export function storedScorecard(row: BenchRunRecord): Scorecard | null {
  const stored = parseJson<StoredScorecard | null>(row.scorecard, null);
  return stored?.version === SCORECARD_VERSION ? stored.card : null;
}

export class BenchScorecardService {
  constructor(
    private readonly repos: Repositories,
    private readonly resamples: number = RESAMPLES,
  ) {}

  /** The run's scorecard from its clips scored so far (seeded from the run id). */
  async compute(run: BenchRunRecord): Promise<Scorecard> {
    const clips = scoredClips(await this.repos.benchTasks.scoredClipsOf(run.id));
    return buildScorecard(parseJson<DimensionId[]>(run.dimensions, []), clips, {
      seed: run.id,
      resamples: this.resamples,
    });
  }

  /** A finished run's scorecard (stored, or computed and stored now); null for a live run. */
  async final(run: BenchRunRecord): Promise<Scorecard | null> {
    if (!isTerminalBenchStatus(run.status)) return null;
    const stored = storedScorecard(run);
    if (stored) return stored;
    const card = await this.compute(run);
    await this.repos.benchRuns.storeScorecard(
      run.id,
      JSON.stringify({ version: SCORECARD_VERSION, card } satisfies StoredScorecard),
    );
    return card;
  }

  /** Computes and stores the scorecard of a run that just ended. */
  async runEnded(runId: string): Promise<void> {
    const run = await this.repos.benchRuns.byId(runId);
    if (run) await this.final({ ...run, scorecard: null });
  }
}
