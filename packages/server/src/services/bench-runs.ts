/**
 * Bench runs: create (planning the run's generation tasks from the prompt suite), list, read,
 * cancel, delete, the per-run reads (videos, scorecard, logs), and the orchestration steps the
 * runner protocol and the evaluator drive (`advance`, `clipEvaluated`).
 *
 * Status moves follow `domain/bench-state.ts` and are applied with a compare-and-set on the stored
 * status, so two racing moves (a cancel and a completion) never both win:
 * - create → `queued`, with tasks = (prompts of the clip groups covering the dimensions, limited
 *   by `prompts_per_dimension`) × `samples_per_prompt`, each with a random seed (recorded);
 * - the first claim → `generating`;
 * - no task pending or leased any more → `evaluating`;
 * - every accepted clip evaluated → `completed` when every dimension has at least one scored clip,
 *   else `failed` (`no_scored_clips`).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { PROMPT_SUITE_VERSION, planPrompts } from '@vesta/engine';
import type { DimensionId, DimensionInfo } from '@vesta/engine';
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import { preparedQuery } from '../db/prepared-query.js';
import type {
  BenchLogLevel,
  BenchLogSource,
  BenchRunsTable,
  BenchTaskState,
  BenchTasksTable,
} from '../db/schema-bench.js';
import { checkDelete, checkTransition, isTerminalBenchStatus } from '../domain/bench-state.js';
import type { BenchStatus } from '../domain/bench-state.js';
import type {
  BenchLogView,
  BenchProgress,
  BenchRunView,
  BenchVideoView,
  CreateBenchRunInput,
  PageOf,
  PageRequest,
} from '../domain/views/bench.js';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import { buildScorecard, scorecardCsv } from './bench-scorecard.js';
import type { ClipScore } from './bench-scorecard.js';
import { publicModelId, resolveModelKey } from './model-keys.js';

/** VBench samples 5 clips per prompt. */
export const DEFAULT_SAMPLES_PER_PROMPT = 5;

export interface BenchServiceDeps {
  db: Db;
  blobs: BlobStore;
  jobs: JobQueue;
  /** The dimension registry with this server's method availability. */
  dimensions: () => DimensionInfo[];
  /** Attempts of a generation task before it fails for good. */
  maxAttempts?: number;
  /** Called when tasks may have become claimable (wakes long-polling runners). */
  onTasksAvailable?: () => void;
  now?: () => number;
}

type RunRow = Selectable<BenchRunsTable>;

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  return JSON.parse(text) as T;
}

export class BenchService {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly jobs: JobQueue;
  private readonly registry: () => DimensionInfo[];
  private readonly maxAttempts: number;
  private readonly onTasksAvailable: () => void;
  private readonly now: () => number;
  /** The run by id, compiled once (it serves every poll of a run). */
  private readonly runById: (id: string) => Promise<RunRow[]>;

  constructor(deps: BenchServiceDeps) {
    this.db = deps.db;
    this.blobs = deps.blobs;
    this.jobs = deps.jobs;
    this.registry = deps.dimensions;
    this.maxAttempts = deps.maxAttempts ?? 3;
    this.onTasksAvailable = deps.onTasksAvailable ?? (() => undefined);
    this.now = deps.now ?? Date.now;
    this.runById = preparedQuery(
      this.db,
      this.db.selectFrom('bench_runs').selectAll().where('id', '=', '?'),
      1,
    );
  }

  async create(userId: string, input: CreateBenchRunInput): Promise<BenchRunView> {
    const dimensions = this.checkDimensions(input.dimensions);
    // Another user's private model answers exactly as an id nobody declared (`model-keys.ts`).
    const modelKey = await resolveModelKey(this.db, userId, input.model_id);
    if (modelKey === undefined) {
      throw validationFailed(`unknown model_id '${input.model_id}'; GET /api/v1/models lists the models`);
    }
    const runnerId = input.runner_id ?? null;
    if (runnerId !== null) {
      const runner = await this.db
        .selectFrom('runners')
        .leftJoin('runner_models', (j) =>
          j.onRef('runner_models.runner_id', '=', 'runners.id').on('runner_models.model_id', '=', modelKey),
        )
        .select(['runners.id', 'runner_models.model_id'])
        .where('runners.id', '=', runnerId)
        .where('runners.user_id', '=', userId)
        .executeTakeFirst();
      if (!runner)
        throw validationFailed(
          `unknown runner_id '${runnerId}' (not one of your registered runners); leave it out to let any of your runners serving the model take the run`,
        );
      if (runner.model_id === null) {
        throw validationFailed(`runner '${runnerId}' does not serve model '${input.model_id}'`);
      }
    }
    const samples = input.samples_per_prompt ?? DEFAULT_SAMPLES_PER_PROMPT;
    const promptsPerDimension = input.prompts_per_dimension ?? null;
    const plan = planPrompts(dimensions, promptsPerDimension ?? undefined);
    const now = this.now();
    const row: RunRow = {
      id: `bench_${randomUUID()}`,
      user_id: userId,
      name: input.name,
      model_id: modelKey,
      runner_id: runnerId,
      dimensions: JSON.stringify(dimensions),
      status: 'queued',
      error_code: null,
      error_detail: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
      samples_per_prompt: samples,
      prompts_per_dimension: promptsPerDimension,
      suite_version: PROMPT_SUITE_VERSION,
      // The triggers on bench_tasks count the tasks inserted below.
      ...NO_TASKS,
    };
    const tasks: Array<Selectable<BenchTasksTable>> = [];
    for (const planned of plan) {
      for (let sample = 0; sample < samples; sample++) {
        tasks.push({
          id: `task_${randomUUID().replaceAll('-', '')}`,
          run_id: row.id,
          seq: tasks.length,
          prompt: planned.prompt.text,
          auxiliary:
            Object.keys(planned.prompt.auxiliary).length === 0
              ? null
              : JSON.stringify(planned.prompt.auxiliary),
          dimensions: JSON.stringify(planned.dimensions),
          sample_index: sample,
          // Random, not cherry-picked, and recorded (VBench's sampling rule); fits a signed 32-bit int.
          seed: randomInt(0, 2 ** 31 - 1),
          state: 'pending',
          runner_id: null,
          attempts: 0,
          lease_expires_at: null,
          video_id: null,
          error_code: null,
          error_detail: null,
          created_at: now,
          updated_at: now,
          lease_id: null,
          max_attempts: this.maxAttempts,
          prompt_id: planned.prompt.id,
          clip_group: planned.group,
          lease_expiries: 0,
        });
      }
    }
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('bench_runs').values(row).execute();
      // The holder of the run's clips (videos belong to a session); never current, never reset.
      await trx
        .insertInto('sessions')
        .values({
          id: row.id,
          user_id: userId,
          kind: 'bench',
          prompt: null,
          created_at: now,
          retired_at: now,
          active: null,
        })
        .execute();
      for (let i = 0; i < tasks.length; i += 200) {
        await trx
          .insertInto('bench_tasks')
          .values(tasks.slice(i, i + 200))
          .execute();
      }
      await trx
        .insertInto('bench_logs')
        .values({
          run_id: row.id,
          time: now,
          source: 'server',
          level: 'info',
          message: `run created: model ${input.model_id}, ${dimensions.length} dimension(s): ${dimensions.join(', ')}${runnerId ? `, runner ${runnerId}` : ''}; ${tasks.length} clip(s) to generate (${plan.length} prompt(s) of suite ${PROMPT_SUITE_VERSION} × ${samples} sample(s))`,
        })
        .execute();
    });
    this.onTasksAvailable();
    return this.view(row, progressOf({ ...row, n_pending: tasks.length }));
  }

  /** Known, usable on Bench, with a method available on this server; VBench's order, no repeats. */
  private checkDimensions(requested: readonly string[]): DimensionId[] {
    const registry = this.registry();
    const seen = new Set<string>();
    for (const id of requested) {
      if (seen.has(id)) throw validationFailed(`dimensions lists '${id}' twice`);
      seen.add(id);
      const info = registry.find((d) => d.id === id);
      if (!info)
        throw validationFailed(`unknown dimension '${id}'; GET /api/v1/dimensions lists the dimensions`);
      if (!info.workflows.includes('bench'))
        throw validationFailed(`dimension '${id}' is not evaluated by Bench runs`);
      if (info.defaultMethod === null) {
        const reasons = info.methods
          .map((m) => `${m.id}: ${m.unavailableReason ?? 'unavailable'}`)
          .join('; ');
        throw validationFailed(`dimension '${id}' has no method available on this server (${reasons})`);
      }
    }
    return registry.filter((d) => seen.has(d.id)).map((d) => d.id);
  }

  async list(userId: string, { page, limit }: PageRequest): Promise<PageOf<BenchRunView>> {
    const totalRow = await this.db
      .selectFrom('bench_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    const rows = await this.db
      .selectFrom('bench_runs')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute();
    return pageOf(
      rows.map((r) => this.view(r, progressOf(r))),
      Number(totalRow.n),
      { page, limit },
    );
  }

  /**
   * The run with its progress: `GET /api/v1/bench/{id}` is what clients poll, so it is one
   * primary-key lookup of a query compiled once; the progress comes from the per-state task
   * counters that triggers keep on the run's row (migration `0004-bench-progress`).
   */
  async get(userId: string, id: string): Promise<BenchRunView> {
    const row = await this.owned(userId, id);
    return this.view(row, progressOf(row));
  }

  /** Cancel: from any non-terminal status; unfinished tasks are cancelled and their evaluations stopped. */
  async cancel(userId: string, id: string): Promise<BenchRunView> {
    const row = await this.owned(userId, id);
    const pendingVideos = await this.db
      .selectFrom('bench_tasks')
      .select('video_id')
      .where('run_id', '=', id)
      .where('state', 'in', ['pending', 'claimed', 'uploaded', 'evaluating'])
      .where('video_id', 'is not', null)
      .execute();
    await this.transition(id, row.status, 'cancelled', { message: 'run cancelled by its owner' });
    for (const v of pendingVideos) {
      if (v.video_id !== null) await this.jobs.cancelBySubject(`video:${v.video_id}`);
    }
    return this.get(userId, id);
  }

  /** Delete: only a finished run (409 otherwise); removes its tasks, logs, clips and their blobs. */
  async delete(userId: string, id: string): Promise<void> {
    const row = await this.owned(userId, id);
    const check = checkDelete(row.status);
    if (!check.ok) throw conflict(check.reason);
    // Every clip minted for the run (completed or not) lives in its holder session.
    const clips = await this.db
      .selectFrom('videos')
      .select(['id', 'blob_key'])
      .where('session_id', '=', id)
      .execute();
    const deleted = await this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('bench_runs')
        .where('id', '=', id)
        .where('status', '=', row.status)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await trx.deleteFrom('bench_logs').where('run_id', '=', id).execute();
      await trx.deleteFrom('bench_tasks').where('run_id', '=', id).execute();
      // Videos (and their scores) go with their holder session.
      await trx.deleteFrom('videos').where('session_id', '=', id).execute();
      await trx.deleteFrom('sessions').where('id', '=', id).where('kind', '=', 'bench').execute();
      return true;
    });
    if (!deleted) throw conflict('the run changed state while it was being deleted; read it and try again');
    // Blobs go after the rows: a crash in between leaves unreferenced bytes, never a row without bytes.
    for (const clip of clips) await this.blobs.delete(clip.blob_key);
  }

  async videos(userId: string, id: string, { page, limit }: PageRequest): Promise<PageOf<BenchVideoView>> {
    // The run's task count is on its row (the per-state counters): no count query.
    const run = await this.owned(userId, id);
    const tasks = await this.db
      .selectFrom('bench_tasks')
      .selectAll()
      .where('run_id', '=', id)
      .orderBy('seq')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute();
    const videoIds = tasks.flatMap((t) => (t.video_id === null ? [] : [t.video_id]));
    const scores =
      videoIds.length === 0
        ? []
        : await this.db
            .selectFrom('scores')
            .select(['video_id', 'dimension', 'value', 'method', 'method_version'])
            .where('video_id', 'in', videoIds)
            .orderBy('video_id')
            .orderBy('dimension')
            .execute();
    const failures =
      videoIds.length === 0
        ? []
        : await this.db
            .selectFrom('score_failures')
            .select(['video_id', 'dimension', 'code', 'detail'])
            .where('video_id', 'in', videoIds)
            .orderBy('video_id')
            .orderBy('dimension')
            .execute();
    const scoresOf = byVideo(scores);
    const failuresOf = byVideo(failures);
    return pageOf(
      tasks.map((t) => ({
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
        scores: (scoresOf.get(t.video_id) ?? []).map((s) => ({
          dimension: s.dimension,
          value: s.value,
          method: s.method,
          method_version: s.method_version,
        })),
        failures: (failuresOf.get(t.video_id) ?? []).map((f) => ({
          dimension: f.dimension,
          code: f.code,
          detail: f.detail,
        })),
      })),
      progressOf(run).tasks_total,
      { page, limit },
    );
  }

  /** The scorecard CSV (see `bench-scorecard.ts` for the header and rows); readable in any status. */
  async csv(userId: string, id: string): Promise<string> {
    const row = await this.owned(userId, id);
    const dimensions = parseJson<DimensionId[]>(row.dimensions, []);
    const clipScores = await this.scoredClips(id);
    return scorecardCsv(buildScorecard(dimensions, clipScores));
  }

  async logs(userId: string, id: string, { page, limit }: PageRequest): Promise<PageOf<BenchLogView>> {
    await this.owned(userId, id);
    const totalRow = await this.db
      .selectFrom('bench_logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('run_id', '=', id)
      .executeTakeFirstOrThrow();
    const rows = await this.db
      .selectFrom('bench_logs')
      .selectAll()
      .where('run_id', '=', id)
      .orderBy('seq')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute();
    return pageOf(
      rows.map((r) => ({
        seq: r.seq,
        time: iso(r.time),
        source: r.source,
        level: r.level,
        message: r.message,
      })),
      Number(totalRow.n),
      { page, limit },
    );
  }

  /**
   * Moves a run from `from` to `to` if the state machine allows it and the run is still in `from`
   * (compare-and-set); otherwise 409 `conflict`. Entering a terminal status cancels unfinished
   * tasks; `error` is stored when the run fails.
   */
  async transition(
    id: string,
    from: BenchStatus,
    to: BenchStatus,
    options: { message?: string; error?: { code: string; detail: string } } = {},
  ): Promise<void> {
    const check = checkTransition(from, to);
    if (!check.ok) throw conflict(check.reason);
    const now = this.now();
    const moved = await this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('bench_runs')
        .set({
          status: to,
          updated_at: now,
          ...(from === 'queued' ? { started_at: now } : {}),
          ...(isTerminalBenchStatus(to) ? { finished_at: now } : {}),
          ...(options.error ? { error_code: options.error.code, error_detail: options.error.detail } : {}),
        })
        .where('id', '=', id)
        .where('status', '=', from)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      if (isTerminalBenchStatus(to)) {
        await trx
          .updateTable('bench_tasks')
          .set({ state: 'cancelled', lease_expires_at: null, updated_at: now })
          .where('run_id', '=', id)
          .where('state', 'in', ['pending', 'claimed', 'uploaded', 'evaluating'])
          .execute();
      }
      await trx
        .insertInto('bench_logs')
        .values({
          run_id: id,
          time: now,
          source: 'server',
          level: to === 'failed' ? 'error' : 'info',
          message: `${from} → ${to}${options.message ? `: ${options.message}` : ''}${options.error ? ` (${options.error.code}: ${options.error.detail})` : ''}`,
        })
        .execute();
      return true;
    });
    if (!moved) {
      const current = await this.db
        .selectFrom('bench_runs')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirst();
      if (!current) throw notFound('bench run');
      const again = checkTransition(current.status, to);
      throw conflict(
        `the run is ${current.status}, not ${from}${again.ok ? '; read it and try again' : `: ${again.reason}`}`,
      );
    }
  }

  async appendLog(
    runId: string,
    source: BenchLogSource,
    level: BenchLogLevel,
    message: string,
  ): Promise<void> {
    await this.db
      .insertInto('bench_logs')
      .values({ run_id: runId, time: this.now(), source, level, message })
      .execute();
  }

  /**
   * Moves a run on when its tasks allow: no task pending or leased → `evaluating`; no clip left
   * to evaluate → `completed` (every dimension has a scored clip) or `failed` (`no_scored_clips`).
   * Safe to call at any time and from racing callers (each move is a compare-and-set).
   */
  async advance(runId: string): Promise<void> {
    const [run] = await this.runById(runId);
    if (!run || isTerminalBenchStatus(run.status)) return;
    const n = (states: readonly BenchTaskState[]): number =>
      states.reduce((sum, state) => sum + run[`n_${state}`], 0);
    if (n(['pending', 'claimed']) > 0) return;
    let status = run.status;
    try {
      if (status === 'queued') {
        await this.transition(runId, 'queued', 'generating');
        status = 'generating';
      }
      if (status === 'generating') {
        await this.transition(runId, 'generating', 'evaluating', {
          message: `every clip generated (${n(['uploaded', 'evaluating', 'done'])} accepted, ${n(['failed'])} failed)`,
        });
        status = 'evaluating';
      }
      if (n(['uploaded', 'evaluating']) > 0) return;
      await this.finish(runId, parseJson<DimensionId[]>(run.dimensions, []), n(['done']), n(['failed']));
    } catch (e) {
      // Another caller moved the run first: nothing left to do here.
      if (e instanceof AppError && e.code === 'conflict') return;
      throw e;
    }
  }

  /** Every clip is accounted for: `completed` if every dimension has a scored clip, else `failed`. */
  private async finish(
    runId: string,
    dimensions: DimensionId[],
    done: number,
    failed: number,
  ): Promise<void> {
    const withScores = new Set((await this.scoredClips(runId)).map((c) => c.dimension));
    const missing = dimensions.filter((d) => !withScores.has(d));
    if (missing.length === 0) {
      await this.transition(runId, 'evaluating', 'completed', {
        message: `${done} clip(s) evaluated${failed > 0 ? `, ${failed} clip(s) failed` : ''}`,
      });
      return;
    }
    await this.transition(runId, 'evaluating', 'failed', {
      error: {
        code: 'no_scored_clips',
        detail: `no clip could be scored for ${missing.join(', ')} (${done} clip(s) evaluated, ${failed} clip(s) failed to generate); see GET /api/v1/bench/${runId}/videos and /logs`,
      },
    });
  }

  /**
   * The evaluation of a clip settled (the `evaluate-video` job finished or failed for good): its
   * task becomes `done`, the evaluator's result is logged, and the run moves on.
   */
  async clipEvaluated(videoId: string): Promise<void> {
    const task = await this.db
      .selectFrom('bench_tasks')
      .select(['id', 'run_id', 'seq', 'sample_index', 'prompt_id'])
      .where('video_id', '=', videoId)
      .where('state', 'in', ['uploaded', 'evaluating'])
      .executeTakeFirst();
    if (!task) return;
    const video = await this.db
      .selectFrom('videos')
      .select(['state', 'error_code', 'error_detail'])
      .where('id', '=', videoId)
      .executeTakeFirst();
    if (!video || (video.state !== 'scored' && video.state !== 'failed')) return;
    const now = this.now();
    const moved = await this.db
      .updateTable('bench_tasks')
      .set({
        state: 'done',
        updated_at: now,
        ...(video.state === 'failed'
          ? { error_code: video.error_code ?? 'scoring_failed', error_detail: video.error_detail ?? '' }
          : { error_code: null, error_detail: null }),
      })
      .where('id', '=', task.id)
      .where('state', 'in', ['uploaded', 'evaluating'])
      .executeTakeFirst();
    if (moved.numUpdatedRows === 0n) return;
    const scores = await this.db
      .selectFrom('scores')
      .select(['dimension', 'value', 'method'])
      .where('video_id', '=', videoId)
      .orderBy('dimension')
      .execute();
    const failures = await this.db
      .selectFrom('score_failures')
      .select(['dimension', 'code'])
      .where('video_id', '=', videoId)
      .orderBy('dimension')
      .execute();
    const what = `clip #${task.seq} (${task.prompt_id ?? 'prompt'}, sample ${task.sample_index}, video ${videoId})`;
    const message =
      video.state === 'failed'
        ? `${what} could not be scored (${video.error_code ?? 'failed'}): ${video.error_detail ?? ''}`
        : `${what} scored: ${scores.map((x) => `${x.dimension}=${x.value.toFixed(4)} (${x.method})`).join(', ')}${failures.length > 0 ? `; not scored: ${failures.map((f) => `${f.dimension} (${f.code})`).join(', ')}` : ''}`;
    await this.appendLog(
      task.run_id,
      'evaluator',
      video.state === 'failed' || failures.length > 0 ? 'warn' : 'info',
      message,
    );
    await this.advance(task.run_id);
  }

  /**
   * The scores of the run's evaluated clips, each on a dimension its clip group serves (a clip
   * shared by several groups is scored only on theirs): what the scorecard averages.
   */
  private async scoredClips(runId: string): Promise<ClipScore[]> {
    const rows = await this.db
      .selectFrom('bench_tasks')
      .innerJoin('scores', 'scores.video_id', 'bench_tasks.video_id')
      .select([
        'bench_tasks.dimensions as task_dimensions',
        'scores.dimension',
        'scores.value',
        'scores.method',
      ])
      .where('bench_tasks.run_id', '=', runId)
      .where('bench_tasks.state', '=', 'done')
      .execute();
    return rows
      .filter((r) => parseJson<string[]>(r.task_dimensions, []).includes(r.dimension))
      .map((r) => ({ dimension: r.dimension as DimensionId, value: r.value, method: r.method }));
  }

  /** 404 when the run does not exist, 403 when it is another user's. */
  private async owned(userId: string, id: string): Promise<RunRow> {
    const [row] = await this.runById(id);
    if (!row) throw notFound('bench run');
    if (row.user_id !== userId) throw forbidden('this bench run belongs to another user');
    return row;
  }

  private view(row: RunRow, progress: BenchProgress): BenchRunView {
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
    };
  }
}

/** Rows grouped by their `video_id`, in their order. */
function byVideo<R extends { video_id: string }>(rows: R[]): Map<string | null, R[]> {
  const out = new Map<string | null, R[]>();
  for (const r of rows) {
    const list = out.get(r.video_id);
    if (list) list.push(r);
    else out.set(r.video_id, [r]);
  }
  return out;
}

/** One page of a list whose whole length is `total`. */
function pageOf<T>(items: T[], total: number, { page, limit }: PageRequest): PageOf<T> {
  return { items, page, limit, total, hasMore: page * limit < total };
}

/** A run's progress from the per-state task counters on its row. */
function progressOf(row: RunRow): BenchProgress {
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
const NO_TASKS = {
  n_pending: 0,
  n_claimed: 0,
  n_uploaded: 0,
  n_evaluating: 0,
  n_done: 0,
  n_failed: 0,
  n_cancelled: 0,
} as const satisfies Partial<RunRow>;
