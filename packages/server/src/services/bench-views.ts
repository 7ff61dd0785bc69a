/**
 * Bench records as the API shows them: a run with its progress, a clip of a run with its results,
 * a log line, a page; and the clip scores a run's scorecard averages.
 */
import { clipGroupOf, isDimensionId } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';
import type {
  BenchLogView,
  BenchProgress,
  BenchRunView,
  BenchScorecardView,
  BenchVideoView,
  PageOf,
  PageRequest,
} from '../domain/views/bench.js';
import type { ScoredClip } from '../domain/scored-clip.js';
import type {
  BenchLogRecord,
  BenchRunHead,
  BenchRunRecord,
  BenchTaskRecord,
  ScoreFailureRecord,
  ScoreRecord,
  ScoredClipRow,
} from '../repositories/index.js';
import { publicModelId } from './model-keys.js';

export const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  return JSON.parse(text) as T;
}

/** One page of a list whose whole length is `total`. */
export function pageOf<T>(items: T[], total: number, { page, limit }: PageRequest): PageOf<T> {
  return { items, page, limit, total, hasMore: page * limit < total };
}

/** A run's progress from the per-state task counters on its row. */
export function progressOf(row: BenchRunHead): BenchProgress {
  const generated = row.n_uploaded + row.n_evaluating + row.n_done;
  return {
    tasks_total: row.n_pending + row.n_claimed + generated + row.n_failed + row.n_cancelled,
    tasks_generated: generated,
    tasks_done: row.n_done,
    tasks_failed: row.n_failed,
    clips_total: row.n_pending + row.n_claimed + generated,
    clips_evaluated: row.n_done,
  };
}

/** The counters of a run with no tasks. */
export const NO_TASKS = {
  n_pending: 0,
  n_claimed: 0,
  n_uploaded: 0,
  n_evaluating: 0,
  n_done: 0,
  n_failed: 0,
  n_cancelled: 0,
} as const satisfies Partial<BenchRunRecord>;

/** What a run says about its dimensions that read no prompt or could not be scored (`prompt-notice.ts`). */
export interface RunNotices {
  prompt_notice: BenchRunView['prompt_notice'];
  unscored_dimensions: BenchRunView['unscored_dimensions'];
}

export function runView(
  row: BenchRunHead,
  progress: BenchProgress = progressOf(row),
  scorecard: BenchScorecardView | null = null,
  notices: RunNotices = { prompt_notice: null, unscored_dimensions: [] },
): BenchRunView {
  return {
    id: row.id,
    name: row.name,
    dimensions: parseJson<string[]>(row.dimensions, []),
    model_id: publicModelId(row.model_id),
    runner_id: row.runner_id,
    samples_per_prompt: row.samples_per_prompt,
    prompts_per_dimension: row.prompts_per_dimension,
    suite_version: row.suite_version,
    status: row.status,
    progress,
    error: row.error_code === null ? null : { code: row.error_code, detail: row.error_detail ?? '' },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    started_at: isoOrNull(row.started_at),
    finished_at: isoOrNull(row.finished_at),
    // Before `scorecard`: the run route splices a stored scorecard's JSON in as the last field.
    prompt_notice: notices.prompt_notice,
    unscored_dimensions: notices.unscored_dimensions,
    scorecard,
  };
}

/** A run's clip (its task) with the clip's scores and failures. */
export function taskVideoView(
  t: BenchTaskRecord,
  scores: ReadonlyArray<Pick<ScoreRecord, 'dimension' | 'value' | 'method' | 'method_version'>>,
  failures: ReadonlyArray<Pick<ScoreFailureRecord, 'dimension' | 'code' | 'detail'>>,
): BenchVideoView {
  return {
    task_id: t.id,
    seq: t.seq,
    prompt: t.prompt,
    auxiliary: parseJson<Record<string, string> | null>(t.auxiliary, null),
    prompt_id: t.prompt_id,
    clip_group: t.clip_group,
    dimensions: parseJson<string[]>(t.dimensions, []),
    sample_index: t.sample_index,
    seed: t.seed,
    state: t.state,
    runner_id: t.runner_id,
    attempts: t.attempts,
    video_id: t.video_id,
    error: t.error_code === null ? null : { code: t.error_code, detail: t.error_detail ?? '' },
    scores: scores.map((s) => ({
      dimension: s.dimension,
      value: s.value,
      method: s.method,
      method_version: s.method_version,
    })),
    failures: failures.map((f) => ({ dimension: f.dimension, code: f.code, detail: f.detail })),
  };
}

export function logView(r: BenchLogRecord): BenchLogView {
  return { seq: r.seq, time: iso(r.time), source: r.source, level: r.level, message: r.message };
}

/** Rows grouped by their `video_id`, in their order. */
export function byVideo<R extends { video_id: string }>(rows: R[]): Map<string | null, R[]> {
  const out = new Map<string | null, R[]>();
  for (const r of rows) {
    const list = out.get(r.video_id);
    if (list) list.push(r);
    else out.set(r.video_id, [r]);
  }
  return out;
}

/**
 * The scores of a run's evaluated clips, each on a dimension its clip group serves (a clip shared
 * by several groups is scored only on theirs): what the scorecard averages and comparisons match.
 * A task planned before prompt ids were recorded is grouped by its prompt's text, in its
 * dimension's clip group.
 */
export function scoredClips(rows: readonly ScoredClipRow[]): ScoredClip[] {
  return rows
    .filter(
      (r) => isDimensionId(r.dimension) && parseJson<string[]>(r.task_dimensions, []).includes(r.dimension),
    )
    .map((r) => {
      const dimension = r.dimension as DimensionId;
      return {
        dimension,
        value: r.value,
        method: r.method,
        methodVersion: r.method_version,
        promptId: r.prompt_id ?? r.prompt,
        promptText: r.prompt,
        group: r.clip_group ?? clipGroupOf(dimension).id,
        sampleIndex: r.sample_index,
        videoId: r.video_id,
      };
    });
}
