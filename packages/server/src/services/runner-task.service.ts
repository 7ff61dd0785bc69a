/**
 * The runner protocol for a leased task: registered runners (`runner.service.ts`) generate a Bench
 * run's clips; a claim (`runner-claim.service.ts`) gives one a task with a lease (`lease.id` is the
 * fencing token; TTL from the server's config).
 *
 * - Heartbeats renew the lease and say when the run was cancelled; upload-url mints an
 *   upload for the clip (the Score/Rank upload flow), complete verifies it as confirm-upload does
 *   and enqueues its evaluation on the run's dimensions of its clip group; fail gives it back.
 * - A lease that is not renewed expires: the reaper puts the task back in the queue until it has
 *   used `max_attempts` attempts, then fails it. A stale, expired or unknown lease is 409.
 */
import { isTerminalBenchStatus } from '../domain/bench-state.js';
import type {
  CompletedTaskView,
  HeartbeatView,
  RunnerLogLine,
  RunnerTaskView,
} from '../domain/views/runners.js';
import type { UploadUrlInput, UploadUrlView } from '../domain/views/score-rank.js';
import { evaluationJob } from '../jobs/catalogue.js';
import type { JobQueue } from '../ports/job-queue.js';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { BenchRunRecord, BenchTaskRecord, Repositories, SessionRecord } from '../repositories/index.js';
import type { BenchProgressService } from './bench-progress.service.js';
import type { RunnerService } from './runner.service.js';
import { runnerLogRows, taskView } from './runner-task-view.js';
import type { ClipIntakeService } from './clip-intake.service.js';
import type { TaskNotifier } from './task-notifier.js';
import type { UploadService } from './upload.service.js';
import type { VideoService } from './video.service.js';
import { ownRow } from './ownership.js';

export interface RunnerTaskServiceDeps {
  repos: Repositories;
  runners: RunnerService;
  progress: BenchProgressService;
  uploads: UploadService;
  intake: ClipIntakeService;
  /** The queue the clip's evaluation is enqueued on. */
  jobs: JobQueue;
  videos: VideoService;
  notifier: TaskNotifier;
  leaseSeconds: number;
  now?: () => number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class RunnerTaskService {
  private readonly leaseMs: number;
  private readonly now: () => number;

  constructor(private readonly deps: RunnerTaskServiceDeps) {
    this.leaseMs = deps.leaseSeconds * 1000;
    this.now = deps.now ?? Date.now;
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
    if (!(await this.deps.repos.benchTasks.renewLease(task.id, leaseId, expiresAt, this.now())))
      throw await this.leaseLost(task.id, leaseId);
    await this.deps.runners.touch(task.runner_id);
    return { expiresAt: iso(expiresAt), cancelled: false };
  }

  /** Mints an upload for the task's clip (the Score/Rank upload flow: PUT to `uploadUrl`). */
  async createUploadUrl(
    userId: string,
    taskId: string,
    leaseId: string,
    input: { fileName: string; contentType: string; sizeBytes?: number },
    serviceBase: () => string,
  ): Promise<UploadUrlView> {
    const { task, run } = await this.leased(userId, taskId, leaseId);
    const holder = await this.holder(run);
    const auxiliary =
      task.auxiliary === null ? undefined : (JSON.parse(task.auxiliary) as UploadUrlInput['auxiliary']);
    const ticket = await this.deps.uploads.createUploadUrl(
      holder,
      {
        fileName: input.fileName,
        contentType: input.contentType,
        prompt: task.prompt,
        ...(auxiliary === undefined ? {} : { auxiliary }),
        ...(input.sizeBytes === undefined ? {} : { sizeBytes: input.sizeBytes }),
      },
      serviceBase,
    );
    await this.deps.repos.benchTasks.recordMinted(ticket.videoId, task.id, this.now());
    await this.deps.runners.touch(task.runner_id);
    return ticket;
  }

  /**
   * Accepts the uploaded clip: verified as confirm-upload does (a non-video is 400 invalid_video
   * and fails this attempt), then one transaction moves the task to `evaluating` and queues the
   * clip's evaluation on the run's dimensions of the task's clip group — both, or (the lease ended
   * while the clip was verified: 409) neither.
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
    const video = await this.deps.repos.benchLifecycle.mintedClip(videoId, task.id);
    if (!video)
      throw validationFailed(
        `videoId ${videoId} was not minted for task ${task.id}; upload the clip with POST /api/v1/runner-tasks/${task.id}/upload-url`,
      );
    let verdict;
    try {
      verdict = await this.deps.intake.verify(video);
      if (verdict.kind === 'refused') throw await this.deps.intake.refuse(video, verdict);
    } catch (e) {
      if (e instanceof AppError && e.code === 'invalid_video')
        await this.failAttempt(task, leaseId, 'invalid_video', e.detail, true);
      throw e;
    }
    const dimensions = JSON.parse(task.dimensions) as string[];
    const t = this.now();
    // One transaction in the run's repository: the task delivered (a compare-and-set on the lease)
    // with its clip confirmed, the clip's evaluation enqueued, the log line, and the run moved on
    // (the last clip delivered: `evaluating`).
    await this.deps.repos.transaction(async (tx) => {
      const delivery = await tx.benchLifecycle.deliver({
        taskId: task.id,
        leaseId,
        videoId,
        at: t,
        // (A clip confirmed before — by an older server's complete that failed after confirming —
        // has its evaluation queued already.)
        clip:
          verdict.kind === 'verified'
            ? {
                arrived: verdict.arrived,
                confirmed: {
                  probe: JSON.stringify(verdict.probe),
                  blob_version: verdict.version,
                  dimensions: JSON.stringify(dimensions),
                  confirmed_at: t,
                },
              }
            : null,
      });
      if (!delivery.delivered)
        throw conflict(`task ${task.id} is ${delivery.state ?? 'gone'}; lease ${leaseId} has ended`);
      await tx.benchLifecycle.appendLog({
        run_id: run.id,
        time: t,
        source: 'server',
        level: 'info',
        message: `clip #${task.seq} (${task.prompt_id ?? 'prompt'}, sample ${task.sample_index}) uploaded as ${videoId}; evaluating ${dimensions.join(', ')}`,
      });
      // A delivery never ends the run (its clip is still to be evaluated).
      await tx.benchLifecycle.advance(run.id, t);
      if (delivery.queued) await this.deps.jobs.enqueue(...evaluationJob(video, 'batch', tx.queueExecutor));
    });
    await this.deps.runners.touch(task.runner_id);
    this.deps.notifier.notify();
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
    if (isStopped(task, run)) return { task: taskView(await this.taskRow(task.id), run, this.leaseMs) };
    await this.failAttempt(task, leaseId, 'generation_failed', error, retryable);
    return { task: taskView(await this.taskRow(task.id), run, this.leaseMs) };
  }

  /**
   * Ends the current attempt: back to `pending` when `retryable` and attempts remain, else
   * `failed` with the reason. Compare-and-set on the lease; 409 when it was lost meanwhile.
   */
  private async failAttempt(
    task: BenchTaskRecord,
    leaseId: string,
    code: string,
    detail: string,
    retryable: boolean,
  ): Promise<void> {
    const again = retryable && task.attempts < task.max_attempts;
    const reason = `${detail} (attempt ${task.attempts} of ${task.max_attempts})`;
    const moved = await this.deps.repos.benchTasks.endAttempt(task.id, leaseId, {
      state: again ? 'pending' : 'failed',
      lease_id: again ? null : leaseId,
      error_code: code,
      error_detail: reason,
      updated_at: this.now(),
    });
    if (!moved) throw await this.leaseLost(task.id, leaseId);
    await this.deps.progress.appendLog(
      task.run_id,
      'server',
      again ? 'warn' : 'error',
      `clip #${task.seq} failed (${code}): ${reason}; ${again ? 'back in the queue' : retryable ? 'no attempts left' : 'not retryable'}`,
    );
    this.deps.notifier.notify();
    if (!again) await this.deps.progress.advance(task.run_id);
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
  ): Promise<{ task: BenchTaskRecord; run: BenchRunRecord }> {
    const { task, run } = ownRow(await this.deps.repos.benchLifecycle.ownedTaskWithRun(taskId, userId), {
      none: () => notFound('runner task'),
      other: () => forbidden('this task belongs to another user'),
    });
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
    const now = await this.deps.repos.benchTasks.stateOf(taskId);
    return conflict(`task ${taskId} is ${now ?? 'gone'}; lease ${leaseId} has ended`);
  }

  private async taskRow(taskId: string): Promise<BenchTaskRecord> {
    const task = await this.deps.repos.benchTasks.byId(taskId);
    if (!task) throw notFound('runner task');
    return task;
  }

  /** The run's holder: the row of `sessions` its clips hang off (created with the run). */
  private async holder(run: BenchRunRecord): Promise<SessionRecord> {
    const holder = await this.deps.repos.sessions.holderOfRun(run.id);
    if (!holder) throw conflict(`run ${run.id} has no clip store; it was created before runners existed`);
    return holder;
  }

  private async completed(
    task: BenchTaskRecord,
    run: BenchRunRecord,
    videoId: string,
  ): Promise<CompletedTaskView> {
    const video = await this.deps.videos.viewOf(videoId);
    if (!video) throw notFound(`video ${videoId}`);
    return { task: taskView(await this.taskRow(task.id), run, this.leaseMs), video };
  }

  private async appendRunnerLogs(
    runId: string,
    task: BenchTaskRecord,
    logs: readonly RunnerLogLine[],
  ): Promise<void> {
    if (logs.length === 0) return;
    await this.deps.repos.benchLifecycle.appendLogs(runnerLogRows(runId, task, logs, this.now()));
  }
}

/**
 * The task was cancelled with its run, or is still leased in a run that has ended: the runner
 * should stop (a task that failed or finished on its own is not "stopped", its lease just ended).
 */
function isStopped(task: BenchTaskRecord, run: BenchRunRecord): boolean {
  return task.state === 'cancelled' || (task.state === 'claimed' && isTerminalBenchStatus(run.status));
}
