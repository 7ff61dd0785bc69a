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
import type { BenchRunHead, BenchRunRecord, Repositories } from '../repositories/index.js';
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

/**
 * Stored scorecards already parsed, by run id, with the text they were parsed from and the row's
 * `created_at` and `updated_at` when it held that text: a run row's scorecard is written once when
 * the run ends, and `GET /bench/{id}` (what clients poll) and the runs list read it on every call.
 * An entry is used only while the row still holds the same text (so a deleted and re-made id, or
 * a recomputed card, is parsed afresh) — or, for a read of the row without its scorecard
 * (`keptScorecardView`), while the row's stamps are the same (see there). Bounded: the least
 * recently read go first.
 */
const PARSED_LIMIT = 1000;
interface ParsedEntry {
  text: string;
  createdAt: number;
  updatedAt: number;
  card: Scorecard | null;
  view: BenchScorecardView | null;
}
const parsed = new Map<string, ParsedEntry>();

function parsedEntry(row: BenchRunRecord): { card: Scorecard | null; view: BenchScorecardView | null } {
  const text = row.scorecard;
  if (text === null) return { card: null, view: null };
  const hit = parsed.get(row.id);
  if (hit && hit.text === text) {
    parsed.delete(row.id);
    // The stamps of the row that last showed this text.
    const entry = { ...hit, createdAt: row.created_at, updatedAt: row.updated_at };
    parsed.set(row.id, entry);
    return entry;
  }
  const stored = parseJson<StoredScorecard | null>(text, null);
  const card = stored?.version === SCORECARD_VERSION ? stored.card : null;
  const entry = {
    text,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    card,
    view: card && scorecardView(card, true),
  };
  parsed.delete(row.id);
  parsed.set(row.id, entry);
  if (parsed.size > PARSED_LIMIT) parsed.delete(parsed.keys().next().value!);
  return entry;
}

/**
 * The kept view of a finished run's stored scorecard, for a read of its row without the
 * scorecard column: the view parsed from the row when it had the same `created_at` and
 * `updated_at`; null when none is kept (read the whole row then).
 *
 * Why the stamps suffice: a finished run's scorecard is written when the run ends (or on the first
 * read that finds none) from its scored clips, which no longer change once it has ended, seeded
 * from its id — so any later write is the same text; a card of another version is not kept as a
 * view (its row is read whole and recomputed); and a run deleted and made again under the same id
 * has another `created_at`.
 */
export function keptScorecardView(head: BenchRunHead): BenchScorecardView | null {
  if (!isTerminalBenchStatus(head.status)) return null;
  const hit = parsed.get(head.id);
  if (!hit?.view || hit.createdAt !== head.created_at || hit.updatedAt !== head.updated_at) return null;
  return hit.view;
}

const jsonOfView = new WeakMap<BenchScorecardView, string>();

/**
 * A scorecard view as JSON text, kept per view object: a stored scorecard's view is shared (see
 * above), so `GET /bench/{id}` of a finished run serialises it once, not on every poll.
 */
export function scorecardJson(view: BenchScorecardView): string {
  let text = jsonOfView.get(view);
  if (text === undefined) {
    text = JSON.stringify(view);
    jsonOfView.set(view, text);
  }
  return text;
}

/** The stored scorecard of a run row, when it holds one of this version. */
export function storedScorecard(row: BenchRunRecord): Scorecard | null {
  return parsedEntry(row).card;
}

/**
 * The stored scorecard of a run row as the API shows it (`final: true`), when it holds one of
 * this version: parsed once per stored text, then shared (callers must not change it).
 */
export function storedScorecardView(row: BenchRunRecord): BenchScorecardView | null {
  return parsedEntry(row).view;
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

  /** A finished run's scorecard as the API shows it: the stored one's view, without re-parsing. */
  async finalView(run: BenchRunRecord): Promise<BenchScorecardView | null> {
    if (!isTerminalBenchStatus(run.status)) return null;
    const view = storedScorecardView(run);
    if (view) return view;
    const card = await this.final(run);
    return card && scorecardView(card, true);
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
