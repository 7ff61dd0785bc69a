/**
 * The runner protocol: registered runners generate a Bench run's clips.
 *
 * - A runner acts for the user whose API key registered it and claims only tasks of that user's
 *   runs whose model it serves, and whose run names no runner or names it.
 * - A claim takes one pending task with a lease (`lease.id` is the fencing token; TTL from the
 *   server's config). Heartbeats renew it and say when the run was cancelled; upload-url mints an
 *   upload for the clip (the Score/Rank upload flow), complete verifies it as confirm-upload does
 *   and enqueues its evaluation on the run's dimensions of its clip group; fail gives it back.
 * - A lease that is not renewed expires: the reaper puts the task back in the queue until it has
 *   used `max_attempts` attempts, then fails it. A stale, expired or unknown lease is 409.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { BenchRunsTable, BenchTasksTable, RunnersTable } from '../db/schema-bench.js';
import type { SessionsTable } from '../db/schema.js';
import { isTerminalBenchStatus } from '../domain/bench-state.js';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { UploadUrlInput, UploadUrlView } from '../domain/views/score-rank.js';
import type {
  CompletedTaskView,
  HeartbeatView,
  RegisterRunnerInput,
  RunnerLogLine,
  RunnerTaskView,
  RunnerView,
} from '../domain/views/runners.js';
import type { BenchService } from './bench-runs.js';
import type { TaskNotifier } from './task-notifier.js';
import type { UploadService } from './upload-service.js';
import type { VideoService } from './video-service.js';
import { privateModelKey, publicModelId, resolveModelKey } from './model-keys.js';
import { dialectOf } from '../db/dialect.js';
import type { Repositories } from '../repositories/index.js';
import type { BenchTaskRepository } from '../repositories/bench-tasks.repository.js';

/** Claims long-poll at most this long. */
export const MAX_CLAIM_WAIT_SECONDS = 30;
export const DEFAULT_CLAIM_WAIT_SECONDS = 20;
/** A runner is online when seen (register, claim, heartbeat) within 2 × the longest claim wait. */
export const RUNNER_ONLINE_WINDOW_MS = 2 * MAX_CLAIM_WAIT_SECONDS * 1000;

/** Whether a runner last seen at `lastSeenAt` (epoch ms) counts as online at `now`. */
export function isRunnerOnline(lastSeenAt: number | null, now: number): boolean {
  return lastSeenAt !== null && lastSeenAt >= now - RUNNER_ONLINE_WINDOW_MS;
}

export interface RunnerServiceDeps {
  db: Db;
  repos: Repositories;
  jobs: JobQueue;
  uploads: UploadService;
  videos: VideoService;
  runs: BenchService;
  notifier: TaskNotifier;
  leaseSeconds: number;
  now?: () => number;
}

type TaskRow = Selectable<BenchTasksTable>;
type RunRow = Selectable<BenchRunsTable>;
type RunnerRow = Selectable<RunnersTable>;

const iso = (ms: number): string => new Date(ms).toISOString();
const MAX_LOG_LINES = 100;
const MAX_LOG_MESSAGE = 4000;

export class RunnerService {
  private readonly db: Db;
  private readonly repos: Repositories;
  private readonly jobs: JobQueue;
  private readonly uploads: UploadService;
  private readonly videos: VideoService;
  private readonly runs: BenchService;
  private readonly notifier: TaskNotifier;
  private readonly leaseMs: number;
  private readonly now: () => number;

  constructor(deps: RunnerServiceDeps) {
    this.db = deps.db;
    this.repos = deps.repos;
    this.jobs = deps.jobs;
    this.uploads = deps.uploads;
    this.videos = deps.videos;
    this.runs = deps.runs;
    this.notifier = deps.notifier;
    this.leaseMs = deps.leaseSeconds * 1000;
    this.now = deps.now ?? Date.now;
  }

  // ---- runners ------------------------------------------------------------------------------

  /**
   * Registers a runner of `userId`. Each declared id names the user's private model or else the
   * global one (`model-keys.ts`); an id that names neither becomes a private model of the user
   * (name = id), which no other user sees.
   */
  async register(userId: string, input: RegisterRunnerInput): Promise<RunnerView> {
    const declared = [...new Set(input.models)];
    const t = this.now();
    const id = `runner_${randomUUID().replaceAll('-', '')}`;
    await this.db.transaction().execute(async (trx) => {
      const models: string[] = [];
      for (const model of declared) {
        const known = await resolveModelKey(trx, userId, model);
        if (known !== undefined) {
          models.push(known);
          continue;
        }
        const key = privateModelKey(userId, model);
        await trx
          .insertInto('models')
          .values({
            id: key,
            public_id: model,
            owner_id: userId,
            name: model,
            description: `Declared by your runner '${input.name}' when it registered.`,
            created_at: t,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        models.push(key);
      }
      await trx
        .insertInto('runners')
        .values({
          id,
          user_id: userId,
          name: input.name,
          created_at: t,
          last_seen_at: t,
          max_concurrency: input.maxConcurrency ?? 1,
          version: input.version ?? null,
        })
        .execute();
      await trx
        .insertInto('runner_models')
        .values(models.map((model_id) => ({ runner_id: id, model_id })))
        .execute();
    });
    // A new runner may take work that was waiting.
    this.notifier.notify();
    return this.get(userId, id);
  }

  async list(userId: string): Promise<RunnerView[]> {
    const rows = await this.db
      .selectFrom('runners')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return this.views(rows);
  }

  async get(userId: string, id: string): Promise<RunnerView> {
    const row = await this.ownedRunner(userId, id);
    const [view] = await this.views([row]);
    if (!view) throw notFound('runner');
    return view;
  }

  /** Removes the runner; the tasks it holds go back to the queue (the attempt does not count). */
  async deregister(userId: string, id: string): Promise<void> {
    await this.ownedRunner(userId, id);
    const t = this.now();
    const held = await this.db.transaction().execute(async (trx) => {
      const tasks = await trx
        .selectFrom('bench_tasks')
        .select(['id', 'run_id', 'seq'])
        .where('runner_id', '=', id)
        .where('state', '=', 'claimed')
        .execute();
      if (tasks.length > 0) {
        await trx
          .updateTable('bench_tasks')
          .set((eb) => ({
            state: 'pending',
            attempts: eb('attempts', '-', 1),
            lease_id: null,
            lease_expires_at: null,
            runner_id: null,
            updated_at: t,
          }))
          .where('runner_id', '=', id)
          .where('state', '=', 'claimed')
          .execute();
      }
      await trx.deleteFrom('runners').where('id', '=', id).execute();
      return tasks;
    });
    for (const task of held)
      await this.runs.appendLog(
        task.run_id,
        'server',
        'warn',
        `runner ${id} was deregistered while it held clip #${task.seq}; the clip is back in the queue`,
      );
    // Wakes claims: others may take the handed-back tasks; this runner's own waiting claim ends (404).
    this.notifier.notify();
  }

  private async ownedRunner(userId: string, id: string): Promise<RunnerRow> {
    const row = await this.db.selectFrom('runners').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('runner');
    if (row.user_id !== userId) throw forbidden('this runner belongs to another user');
    return row;
  }

  private async views(rows: RunnerRow[]): Promise<RunnerView[]> {
    if (rows.length === 0) return [];
    const links = await this.db
      .selectFrom('runner_models')
      .select(['runner_id', 'model_id'])
      .where(
        'runner_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('model_id')
      .execute();
    const now = this.now();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      models: links
        .filter((l) => l.runner_id === r.id)
        .map((l) => publicModelId(l.model_id))
        .sort(),
      maxConcurrency: r.max_concurrency,
      version: r.version,
      createdAt: iso(r.created_at),
      lastSeenAt: r.last_seen_at === null ? null : iso(r.last_seen_at),
      online: isRunnerOnline(r.last_seen_at, now),
    }));
  }

  /** Records that the runner was seen; false when it no longer exists. */
  private async touch(runnerId: string | null): Promise<boolean> {
    if (runnerId === null) return false;
    const res = await this.db
      .updateTable('runners')
      .set({ last_seen_at: this.now() })
      .where('id', '=', runnerId)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  // ---- claim --------------------------------------------------------------------------------

  /**
   * Long-poll: the next task this runner may take, or null when none arrived within `waitSeconds`
   * (or the server is shutting down, or the caller went away). Wakes as soon as a task may have
   * become claimable in this process.
   */
  async claim(
    userId: string,
    runnerId: string,
    waitSeconds: number,
    signal?: AbortSignal,
  ): Promise<RunnerTaskView | null> {
    const runner = await this.ownedRunner(userId, runnerId);
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      const ticket = this.notifier.ticket();
      // Deregistered while waiting: the runner is gone.
      if (!(await this.touch(runner.id))) throw notFound('runner');
      const claimed = await this.tryClaim(runner);
      if (claimed) {
        const run = await this.runOf(claimed.run_id);
        if (run.status === 'queued') {
          try {
            await this.runs.transition(run.id, 'queued', 'generating', {
              message: `runner ${runner.name} (${runner.id}) claimed the first clip`,
            });
          } catch (e) {
            if (!(e instanceof AppError && e.code === 'conflict')) throw e;
          }
        }
        await this.runs.appendLog(
          run.id,
          'server',
          'info',
          `clip #${claimed.seq} (${claimed.prompt_id ?? 'prompt'}, sample ${claimed.sample_index}) claimed by runner ${runner.name} (${runner.id}), attempt ${claimed.attempts} of ${claimed.max_attempts}`,
        );
        return this.taskView(claimed, run);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.notifier.isClosed || signal?.aborted) return null;
      await this.notifier.wait(ticket, remaining, signal);
    }
  }

  private async tryClaim(runner: RunnerRow): Promise<TaskRow | undefined> {
    const t = this.now();
    const postgres = dialectOf(this.db) === 'postgres';
    return this.db.transaction().execute(async (trx) => {
      // PostgreSQL runs claims side by side (several API processes): the runner's row is locked
      // first so that its claims count one at a time, and a task another claim is taking is
      // skipped. SQLite serialises write transactions, so there the count and pick are safe as is.
      if (postgres)
        await trx.selectFrom('runners').select('id').where('id', '=', runner.id).forUpdate().execute();
      const held = await trx
        .selectFrom('bench_tasks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('runner_id', '=', runner.id)
        .where('state', '=', 'claimed')
        .executeTakeFirstOrThrow();
      if (Number(held.n) >= runner.max_concurrency) return undefined;
      const next = await trx
        .selectFrom('bench_tasks as t')
        .innerJoin('bench_runs as r', 'r.id', 't.run_id')
        .select('t.id')
        .where('t.state', '=', 'pending')
        .where('r.user_id', '=', runner.user_id)
        .where('r.status', 'in', ['queued', 'generating'])
        .where('r.model_id', 'in', (eb) =>
          eb.selectFrom('runner_models').select('model_id').where('runner_id', '=', runner.id),
        )
        .where((eb) => eb.or([eb('r.runner_id', 'is', null), eb('r.runner_id', '=', runner.id)]))
        .orderBy('r.created_at')
        .orderBy('t.seq')
        .limit(1)
        .$if(postgres, (qb) => qb.forUpdate(['t']).skipLocked())
        .executeTakeFirst();
      if (!next) return undefined;
      return trx
        .updateTable('bench_tasks')
        .set((eb) => ({
          state: 'claimed',
          runner_id: runner.id,
          attempts: eb('attempts', '+', 1),
          lease_id: `lease_${randomUUID().replaceAll('-', '')}`,
          lease_expires_at: t + this.leaseMs,
          updated_at: t,
        }))
        .where('id', '=', next.id)
        .where('state', '=', 'pending')
        .returningAll()
        .executeTakeFirst();
    });
  }

  // ---- leased task operations -----------------------------------------------------------------

  /** Renews the lease; `cancelled: true` when the run was cancelled (the runner should stop). */
  async heartbeat(
    userId: string,
    taskId: string,
    leaseId: string,
    logs: readonly RunnerLogLine[] = [],
  ): Promise<HeartbeatView> {
    const { task, run } = await this.leased(userId, taskId, leaseId, { allowStopped: true });
    await this.appendRunnerLogs(run.id, task, logs);
    if (isStopped(task, run)) {
      return { expiresAt: iso(task.lease_expires_at ?? this.now()), cancelled: true };
    }
    const expiresAt = this.now() + this.leaseMs;
    const renewed = await this.db
      .updateTable('bench_tasks')
      .set({ lease_expires_at: expiresAt, updated_at: this.now() })
      .where('id', '=', task.id)
      .where('lease_id', '=', leaseId)
      .where('state', '=', 'claimed')
      .executeTakeFirst();
    if (renewed.numUpdatedRows === 0n) throw await this.leaseLost(task.id, leaseId);
    await this.touch(task.runner_id);
    return { expiresAt: iso(expiresAt), cancelled: false };
  }

  /** Mints an upload for the task's clip (the Score/Rank upload flow: PUT to `uploadUrl`). */
  async createUploadUrl(
    userId: string,
    taskId: string,
    leaseId: string,
    input: { fileName: string; contentType: string; sizeBytes?: number },
  ): Promise<UploadUrlView> {
    const { task, run } = await this.leased(userId, taskId, leaseId);
    const session = await this.holder(run);
    const auxiliary =
      task.auxiliary === null ? undefined : (JSON.parse(task.auxiliary) as UploadUrlInput['auxiliary']);
    const ticket = await this.uploads.createUploadUrl(session, {
      fileName: input.fileName,
      contentType: input.contentType,
      prompt: task.prompt,
      ...(auxiliary === undefined ? {} : { auxiliary }),
      ...(input.sizeBytes === undefined ? {} : { sizeBytes: input.sizeBytes }),
    });
    await this.db
      .insertInto('bench_task_videos')
      .values({ video_id: ticket.videoId, task_id: task.id, created_at: this.now() })
      .execute();
    await this.touch(task.runner_id);
    return ticket;
  }

  /**
   * Accepts the uploaded clip: verified as confirm-upload does (a non-video is 400 invalid_video
   * and fails this attempt), then evaluated on the run's dimensions of the task's clip group.
   */
  async complete(
    userId: string,
    taskId: string,
    leaseId: string,
    videoId: string,
    logs: readonly RunnerLogLine[] = [],
  ): Promise<CompletedTaskView> {
    const { task, run } = await this.leased(userId, taskId, leaseId, { allowDone: true });
    if (task.state !== 'claimed') {
      // A retried complete of the same clip: the same answer again.
      if (task.video_id === videoId) return this.completed(task, run, videoId);
      throw conflict(`the task is ${task.state} with another clip; its lease ${leaseId} has ended`);
    }
    await this.appendRunnerLogs(run.id, task, logs);
    const minted = await this.db
      .selectFrom('bench_task_videos')
      .select('task_id')
      .where('video_id', '=', videoId)
      .executeTakeFirst();
    if (!minted || minted.task_id !== task.id)
      throw validationFailed(
        `videoId ${videoId} was not minted for task ${task.id}; upload the clip with POST /api/v1/runner-tasks/${task.id}/upload-url`,
      );
    const session = await this.holder(run);
    const dimensions = JSON.parse(task.dimensions) as string[];
    // The task moves to `evaluating` in the transaction that queues the clip and enqueues its
    // evaluation: all three happen, or (the lease ended while the clip was verified) none does.
    const moveTask = async (tasks: BenchTaskRepository): Promise<void> => {
      if (!(await tasks.moveToEvaluating(task.id, leaseId, videoId, this.now()))) throw new LeaseEnded();
    };
    let taskMoved = false;
    try {
      await this.uploads.confirm(session, videoId, {
        dimensions,
        inTransaction: async (tx) => {
          await moveTask(tx.benchTasks);
          taskMoved = true;
        },
      });
      // The clip was queued before (a complete that failed after confirming, on an older server):
      // the task still has to move.
      if (!taskMoved) await moveTask(this.repos.benchTasks);
    } catch (e) {
      if (e instanceof LeaseEnded) throw await this.leaseLost(task.id, leaseId);
      if (e instanceof AppError && e.code === 'invalid_video') {
        await this.failAttempt(task, leaseId, 'invalid_video', e.detail, true);
      }
      throw e;
    }
    await this.runs.appendLog(
      run.id,
      'server',
      'info',
      `clip #${task.seq} (${task.prompt_id ?? 'prompt'}, sample ${task.sample_index}) uploaded as ${videoId}; evaluating ${dimensions.join(', ')}`,
    );
    await this.touch(task.runner_id);
    this.notifier.notify();
    // The evaluation may have settled before the task moved to `evaluating` (its hook then found no
    // task to move): account for it now. `clipEvaluated` reads the clip's current state and moves
    // the task with a compare-and-set, so racing the hook is harmless.
    await this.runs.clipEvaluated(videoId);
    await this.runs.advance(run.id);
    return this.completed({ ...task, state: 'evaluating', video_id: videoId }, run, videoId);
  }

  /** The runner could not generate the clip: back to the queue while attempts remain, else failed. */
  async fail(
    userId: string,
    taskId: string,
    leaseId: string,
    error: string,
    retryable: boolean,
    logs: readonly RunnerLogLine[] = [],
  ): Promise<{ task: RunnerTaskView }> {
    const { task, run } = await this.leased(userId, taskId, leaseId, { allowStopped: true });
    await this.appendRunnerLogs(run.id, task, logs);
    if (isStopped(task, run)) return { task: this.taskView(await this.taskRow(task.id), run) };
    await this.failAttempt(task, leaseId, 'generation_failed', error, retryable);
    return { task: this.taskView(await this.taskRow(task.id), run) };
  }

  /**
   * Ends the current attempt: back to `pending` when `retryable` and attempts remain, else
   * `failed` with the reason. Compare-and-set on the lease; 409 when it was lost meanwhile.
   */
  private async failAttempt(
    task: TaskRow,
    leaseId: string,
    code: string,
    detail: string,
    retryable: boolean,
  ): Promise<void> {
    const again = retryable && task.attempts < task.max_attempts;
    const reason = `${detail} (attempt ${task.attempts} of ${task.max_attempts})`;
    const moved = await this.db
      .updateTable('bench_tasks')
      .set({
        state: again ? 'pending' : 'failed',
        lease_id: again ? null : leaseId,
        lease_expires_at: null,
        error_code: code,
        error_detail: reason,
        updated_at: this.now(),
      })
      .where('id', '=', task.id)
      .where('lease_id', '=', leaseId)
      .where('state', '=', 'claimed')
      .executeTakeFirst();
    if (moved.numUpdatedRows === 0n) throw await this.leaseLost(task.id, leaseId);
    await this.runs.appendLog(
      task.run_id,
      'server',
      again ? 'warn' : 'error',
      `clip #${task.seq} failed (${code}): ${reason}; ${again ? 'back in the queue' : retryable ? 'no attempts left' : 'not retryable'}`,
    );
    this.notifier.notify();
    if (!again) await this.runs.advance(task.run_id);
  }

  // ---- the reaper ----------------------------------------------------------------------------

  /**
   * Expired leases: the task goes back to the queue while attempts remain, else fails with
   * `lease_expired`. Run by the worker role every few seconds. Returns the tasks handled.
   */
  async reapExpiredLeases(): Promise<number> {
    const t = this.now();
    const expired = await this.db
      .selectFrom('bench_tasks')
      .selectAll()
      .where('state', '=', 'claimed')
      .where('lease_expires_at', '<', t)
      .execute();
    const runs = new Set<string>();
    let handled = 0;
    for (const task of expired) {
      const again = task.attempts < task.max_attempts;
      const expiries = task.lease_expiries + 1;
      const detail = again
        ? `lease expired on attempt ${task.attempts} of ${task.max_attempts} (runner stopped heartbeating)`
        : `lease expired ${expiries} time${expiries === 1 ? '' : 's'} (runner stopped heartbeating)`;
      const moved = await this.db
        .updateTable('bench_tasks')
        .set({
          state: again ? 'pending' : 'failed',
          lease_id: again ? null : task.lease_id,
          lease_expires_at: null,
          lease_expiries: expiries,
          error_code: 'lease_expired',
          error_detail: detail,
          updated_at: t,
        })
        .where('id', '=', task.id)
        .where('state', '=', 'claimed')
        .where('lease_id', '=', task.lease_id)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) continue;
      handled++;
      runs.add(task.run_id);
      await this.runs.appendLog(
        task.run_id,
        'server',
        again ? 'warn' : 'error',
        `clip #${task.seq}: ${detail}; ${again ? 'back in the queue' : 'failed'}`,
      );
    }
    if (handled > 0) this.notifier.notify();
    for (const runId of runs) await this.runs.advance(runId);
    return handled;
  }

  // ---- helpers -------------------------------------------------------------------------------

  /**
   * The task with its run, checked for the caller and the lease: 404 unknown task, 403 another
   * user's run, 409 when `leaseId` is not the task's current lease, has expired, or the task
   * left `claimed` — unless `allowStopped` (the run was cancelled: the caller learns it) or
   * `allowDone` (complete's replay) says otherwise.
   */
  private async leased(
    userId: string,
    taskId: string,
    leaseId: string,
    options: { allowStopped?: boolean; allowDone?: boolean } = {},
  ): Promise<{ task: TaskRow; run: RunRow }> {
    const task = await this.db
      .selectFrom('bench_tasks')
      .selectAll()
      .where('id', '=', taskId)
      .executeTakeFirst();
    if (!task) throw notFound('runner task');
    const run = await this.runOf(task.run_id);
    if (run.user_id !== userId) throw forbidden('this task belongs to another user');
    if (task.lease_id !== leaseId)
      throw conflict(
        `lease ${leaseId} is not the current lease of task ${taskId} (it expired and the task was re-queued or claimed again); stop working on it and claim a new task`,
      );
    if (isStopped(task, run)) {
      if (options.allowStopped) return { task, run };
      throw conflict(`the run ${run.id} is ${run.status}; stop generating (nothing more is accepted for it)`);
    }
    if (task.state !== 'claimed') {
      if (options.allowDone && (task.state === 'evaluating' || task.state === 'done')) return { task, run };
      throw conflict(`task ${taskId} is ${task.state}; lease ${leaseId} has ended`);
    }
    if (task.lease_expires_at === null || task.lease_expires_at < this.now())
      throw conflict(
        `lease ${leaseId} expired at ${iso(task.lease_expires_at ?? 0)} (no heartbeat within ${this.leaseMs / 1000} s); the task goes back to the queue`,
      );
    return { task, run };
  }

  private async leaseLost(taskId: string, leaseId: string): Promise<AppError> {
    const now = await this.db
      .selectFrom('bench_tasks')
      .select('state')
      .where('id', '=', taskId)
      .executeTakeFirst();
    return conflict(`task ${taskId} is ${now?.state ?? 'gone'}; lease ${leaseId} has ended`);
  }

  private async runOf(runId: string): Promise<RunRow> {
    const run = await this.db.selectFrom('bench_runs').selectAll().where('id', '=', runId).executeTakeFirst();
    if (!run) throw notFound('bench run');
    return run;
  }

  private async taskRow(taskId: string): Promise<TaskRow> {
    const task = await this.db
      .selectFrom('bench_tasks')
      .selectAll()
      .where('id', '=', taskId)
      .executeTakeFirst();
    if (!task) throw notFound('runner task');
    return task;
  }

  /** The session holding the run's clips (created with the run). */
  private async holder(run: RunRow): Promise<SessionsTable> {
    const session = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', run.id)
      .where('kind', '=', 'bench')
      .executeTakeFirst();
    if (!session) throw conflict(`run ${run.id} has no clip store; it was created before runners existed`);
    return session;
  }

  private async completed(task: TaskRow, run: RunRow, videoId: string): Promise<CompletedTaskView> {
    const video = await this.videos.viewOf(videoId);
    if (!video) throw notFound(`video ${videoId}`);
    return { task: this.taskView(await this.taskRow(task.id), run), video };
  }

  private async appendRunnerLogs(
    runId: string,
    task: TaskRow,
    logs: readonly RunnerLogLine[],
  ): Promise<void> {
    if (logs.length === 0) return;
    const now = this.now();
    const runner = task.runner_id ?? 'runner';
    await this.db
      .insertInto('bench_logs')
      .values(
        logs.slice(0, MAX_LOG_LINES).map((l) => {
          const at = l.at === undefined ? NaN : Date.parse(l.at);
          return {
            run_id: runId,
            // A runner's own timestamp is kept when it is sane (not in the future).
            time: Number.isFinite(at) && at <= now ? at : now,
            source: 'runner' as const,
            level: l.level ?? 'info',
            message: `[${runner} clip #${task.seq}] ${l.message.slice(0, MAX_LOG_MESSAGE)}`,
          };
        }),
      )
      .execute();
  }

  private taskView(task: TaskRow, run: RunRow): RunnerTaskView {
    const leaseLive = task.state === 'claimed' && task.lease_id !== null && task.lease_expires_at !== null;
    return {
      id: task.id,
      runId: task.run_id,
      modelId: publicModelId(run.model_id),
      prompt: task.prompt,
      auxiliary: task.auxiliary === null ? {} : (JSON.parse(task.auxiliary) as Record<string, string>),
      dimensions: JSON.parse(task.dimensions) as string[],
      sampleIndex: task.sample_index,
      seed: task.seed,
      attempt: task.attempts,
      maxAttempts: task.max_attempts,
      state: task.state,
      lease:
        leaseLive && task.lease_id !== null && task.lease_expires_at !== null
          ? { id: task.lease_id, expiresAt: iso(task.lease_expires_at), ttlSeconds: this.leaseMs / 1000 }
          : null,
      error: task.error_code === null ? null : { code: task.error_code, detail: task.error_detail ?? '' },
    };
  }
}

/**
 * The task was cancelled with its run, or is still leased in a run that has ended: the runner
 * should stop (a task that failed or finished on its own is not "stopped", its lease just ended).
 */
function isStopped(task: TaskRow, run: RunRow): boolean {
  return task.state === 'cancelled' || (task.state === 'claimed' && isTerminalBenchStatus(run.status));
}

/** Thrown inside the confirm transaction when the task's lease ended meanwhile: rolls it back. */
class LeaseEnded extends Error {
  override readonly name = 'LeaseEnded';
}
