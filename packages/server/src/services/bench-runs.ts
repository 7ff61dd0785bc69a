/**
 * Bench runs: create, list, read, cancel, delete, and the per-run reads (videos, scorecard, logs).
 * Status moves follow `domain/bench-state.ts` and are applied with a compare-and-set on the stored
 * status, so two racing moves (a cancel and a completion) never both win.
 *
 * Clip generation by runners is issue #5's: a created run waits in `queued` until a runner claims
 * a task. `transition` and `appendLog` are the entry points that the runner protocol and the
 * evaluator use.
 */
import { randomUUID } from 'node:crypto';
import type { DimensionId, DimensionInfo } from '@vesta/engine';
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/connection.js';
import type { BenchLogLevel, BenchLogSource, BenchRunsTable, BenchTaskState } from '../db/schema-bench.js';
import { checkDelete, checkTransition, isTerminalBenchStatus } from '../domain/bench-state.js';
import type { BenchStatus } from '../domain/bench-state.js';
import { conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import { buildScorecard, scorecardCsv } from './bench-scorecard.js';
import type { ClipScore } from './bench-scorecard.js';

export interface BenchProgress {
  /** Clips the run will generate (prompt × sample); 0 until the run's tasks are planned. */
  tasks_total: number;
  /** Clips uploaded by a runner. */
  tasks_generated: number;
  /** Clips generated and evaluated. */
  tasks_done: number;
  /** Clips that failed for good. */
  tasks_failed: number;
}

export interface BenchRunView {
  id: string;
  name: string;
  dimensions: string[];
  model_id: string;
  runner_id: string | null;
  status: BenchStatus;
  progress: BenchProgress;
  error: { code: string; detail: string } | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface PageRequest {
  /** From 1. */
  page: number;
  limit: number;
}

export interface PageOf<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export interface BenchVideoView {
  task_id: string;
  seq: number;
  prompt: string;
  auxiliary: Record<string, string> | null;
  dimensions: string[];
  sample_index: number;
  seed: number;
  state: BenchTaskState;
  runner_id: string | null;
  attempts: number;
  video_id: string | null;
  error: { code: string; detail: string } | null;
  scores: Array<{ dimension: string; value: number; method: string; method_version: string }>;
  failures: Array<{ dimension: string; code: string; detail: string }>;
}

export interface BenchLogView {
  seq: number;
  time: string;
  source: BenchLogSource;
  level: BenchLogLevel;
  message: string;
}

export interface CreateBenchRunInput {
  name: string;
  dimensions: string[];
  model_id: string;
  runner_id?: string | undefined;
}

export interface BenchServiceDeps {
  db: Db;
  blobs: BlobStore;
  jobs: JobQueue;
  /** The dimension registry with this server's method availability. */
  dimensions: () => DimensionInfo[];
  now?: () => number;
}

const GENERATED: readonly BenchTaskState[] = ['uploaded', 'evaluating', 'done'];

const GET_RUN_WITH_PROGRESS = `select r.*,
  (select count(*) from bench_tasks t where t.run_id = r.id) as tasks_total,
  (select count(*) from bench_tasks t where t.run_id = r.id and t.state in (${GENERATED.map((s) => `'${s}'`).join(', ')})) as tasks_generated,
  (select count(*) from bench_tasks t where t.run_id = r.id and t.state = 'done') as tasks_done,
  (select count(*) from bench_tasks t where t.run_id = r.id and t.state = 'failed') as tasks_failed
from bench_runs r where r.id = ?`;

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
  private readonly now: () => number;

  constructor(deps: BenchServiceDeps) {
    this.db = deps.db;
    this.blobs = deps.blobs;
    this.jobs = deps.jobs;
    this.registry = deps.dimensions;
    this.now = deps.now ?? Date.now;
  }

  async create(userId: string, input: CreateBenchRunInput): Promise<BenchRunView> {
    const dimensions = this.checkDimensions(input.dimensions);
    const model = await this.db
      .selectFrom('models')
      .select('id')
      .where('id', '=', input.model_id)
      .executeTakeFirst();
    if (!model) {
      throw validationFailed(`unknown model_id '${input.model_id}'; GET /api/v1/models lists the models`);
    }
    const runnerId = input.runner_id ?? null;
    if (runnerId !== null) {
      const runner = await this.db
        .selectFrom('runners')
        .leftJoin('runner_models', (j) =>
          j
            .onRef('runner_models.runner_id', '=', 'runners.id')
            .on('runner_models.model_id', '=', input.model_id),
        )
        .select(['runners.id', 'runner_models.model_id'])
        .where('runners.id', '=', runnerId)
        .executeTakeFirst();
      if (!runner)
        throw validationFailed(
          `unknown runner_id '${runnerId}'; leave it out to let any runner serving the model take the run`,
        );
      if (runner.model_id === null) {
        throw validationFailed(`runner '${runnerId}' does not serve model '${input.model_id}'`);
      }
    }
    const now = this.now();
    const row: BenchRunsTable = {
      id: `bench_${randomUUID()}`,
      user_id: userId,
      name: input.name,
      model_id: input.model_id,
      runner_id: runnerId,
      dimensions: JSON.stringify(dimensions),
      status: 'queued',
      error_code: null,
      error_detail: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('bench_runs').values(row).execute();
      await trx
        .insertInto('bench_logs')
        .values({
          run_id: row.id,
          time: now,
          source: 'server',
          level: 'info',
          message: `run created: model ${row.model_id}, ${dimensions.length} dimension(s): ${dimensions.join(', ')}${runnerId ? `, runner ${runnerId}` : ''}`,
        })
        .execute();
    });
    return this.view(row, emptyProgress());
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
    const progress = await this.progressOf(rows.map((r) => r.id));
    const total = Number(totalRow.n);
    return {
      items: rows.map((r) => this.view(r, progress.get(r.id) ?? emptyProgress())),
      page,
      limit,
      total,
      hasMore: page * limit < total,
    };
  }

  /**
   * The run with its progress, in one statement: `GET /api/v1/bench/{id}` is what clients poll,
   * so it skips the query builder and reads the run and its task counts together.
   */
  async get(userId: string, id: string): Promise<BenchRunView> {
    const result = await this.db.executeQuery(CompiledQuery.raw(GET_RUN_WITH_PROGRESS, [id]));
    const row = result.rows[0] as (BenchRunsTable & BenchProgress) | undefined;
    if (!row) throw notFound('bench run');
    if (row.user_id !== userId) throw forbidden('this bench run belongs to another user');
    const { tasks_total, tasks_generated, tasks_done, tasks_failed } = row;
    return this.view(row, { tasks_total, tasks_generated, tasks_done, tasks_failed });
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
    const clips = await this.db
      .selectFrom('bench_tasks')
      .innerJoin('videos', 'videos.id', 'bench_tasks.video_id')
      .select(['videos.id', 'videos.blob_key'])
      .where('bench_tasks.run_id', '=', id)
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
      if (clips.length > 0) {
        await trx
          .deleteFrom('videos')
          .where(
            'id',
            'in',
            clips.map((c) => c.id),
          )
          .execute();
      }
      return true;
    });
    if (!deleted) throw conflict('the run changed state while it was being deleted; read it and try again');
    // Blobs go after the rows: a crash in between leaves unreferenced bytes, never a row without bytes.
    for (const clip of clips) await this.blobs.delete(clip.blob_key);
  }

  async videos(userId: string, id: string, { page, limit }: PageRequest): Promise<PageOf<BenchVideoView>> {
    await this.owned(userId, id);
    const totalRow = await this.db
      .selectFrom('bench_tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('run_id', '=', id)
      .executeTakeFirstOrThrow();
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
    const total = Number(totalRow.n);
    return {
      items: tasks.map((t) => ({
        task_id: t.id,
        seq: t.seq,
        prompt: t.prompt,
        auxiliary: parseJson<Record<string, string> | null>(t.auxiliary, null),
        dimensions: parseJson<string[]>(t.dimensions, []),
        sample_index: t.sample_index,
        seed: t.seed,
        state: t.state,
        runner_id: t.runner_id,
        attempts: t.attempts,
        video_id: t.video_id,
        error: t.error_code === null ? null : { code: t.error_code, detail: t.error_detail ?? '' },
        scores: scores
          .filter((s) => s.video_id === t.video_id)
          .map((s) => ({
            dimension: s.dimension,
            value: s.value,
            method: s.method,
            method_version: s.method_version,
          })),
        failures: failures
          .filter((f) => f.video_id === t.video_id)
          .map((f) => ({ dimension: f.dimension, code: f.code, detail: f.detail })),
      })),
      page,
      limit,
      total,
      hasMore: page * limit < total,
    };
  }

  /** The scorecard CSV (see `bench-scorecard.ts` for the header and rows); readable in any status. */
  async csv(userId: string, id: string): Promise<string> {
    const row = await this.owned(userId, id);
    const dimensions = parseJson<DimensionId[]>(row.dimensions, []);
    const rows = await this.db
      .selectFrom('bench_tasks')
      .innerJoin('scores', 'scores.video_id', 'bench_tasks.video_id')
      .select([
        'bench_tasks.dimensions as task_dimensions',
        'scores.dimension',
        'scores.value',
        'scores.method',
      ])
      .where('bench_tasks.run_id', '=', id)
      .where('bench_tasks.state', '=', 'done')
      .execute();
    const clipScores: ClipScore[] = rows
      .filter((r) => parseJson<string[]>(r.task_dimensions, []).includes(r.dimension))
      .map((r) => ({ dimension: r.dimension as DimensionId, value: r.value, method: r.method }));
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
    const total = Number(totalRow.n);
    return {
      items: rows.map((r) => ({
        seq: r.seq,
        time: iso(r.time),
        source: r.source,
        level: r.level,
        message: r.message,
      })),
      page,
      limit,
      total,
      hasMore: page * limit < total,
    };
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

  /** 404 when the run does not exist, 403 when it is another user's. */
  private async owned(userId: string, id: string): Promise<BenchRunsTable> {
    const row = await this.db.selectFrom('bench_runs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('bench run');
    if (row.user_id !== userId) throw forbidden('this bench run belongs to another user');
    return row;
  }

  private async progressOf(ids: string[]): Promise<Map<string, BenchProgress>> {
    const out = new Map<string, BenchProgress>();
    if (ids.length === 0) return out;
    const rows = await this.db
      .selectFrom('bench_tasks')
      .select(['run_id', 'state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('run_id', 'in', ids)
      .groupBy(['run_id', 'state'])
      .execute();
    for (const r of rows) {
      const p = out.get(r.run_id) ?? emptyProgress();
      const n = Number(r.n);
      p.tasks_total += n;
      if (GENERATED.includes(r.state)) p.tasks_generated += n;
      if (r.state === 'done') p.tasks_done += n;
      if (r.state === 'failed') p.tasks_failed += n;
      out.set(r.run_id, p);
    }
    return out;
  }

  private view(row: BenchRunsTable, progress: BenchProgress): BenchRunView {
    return {
      id: row.id,
      name: row.name,
      dimensions: parseJson<string[]>(row.dimensions, []),
      model_id: row.model_id,
      runner_id: row.runner_id,
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

function emptyProgress(): BenchProgress {
  return { tasks_total: 0, tasks_generated: 0, tasks_done: 0, tasks_failed: 0 };
}
