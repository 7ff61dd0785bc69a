/**
 * The runner protocol, one method per operation: register a runner, long-poll for generation
 * tasks, renew a task's lease, upload its clip and complete or fail it. Most code wants the loop
 * around these (`vesta.createRunner`, `bench.runWithPipeline`, `vesta runner start`); these thin
 * methods are for writing a runner of your own.
 */
import type { HttpClient, RequestOptions } from '../core/http.js';
import type { operations } from '../generated/openapi.generated.js';

type Json<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer T } } ? T : never;
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

/** A registered runner. */
export type RunnerInfo = Json<'getRunner', 200>;
/** Body of `runners.register`. */
export type RunnerRegistration = Body<'registerRunner'>;
/** A claimed generation task with its lease. */
export type ClaimedTask = Json<'claimRunnerTask', 200>['task'];
/** Body of `runners.heartbeat`. */
export type TaskHeartbeat = Body<'heartbeatRunnerTask'>;
/** Answer of `runners.heartbeat`: the new lease expiry, and whether the run was cancelled. */
export type TaskHeartbeatReply = Json<'heartbeatRunnerTask', 200>;
/** Body of `runners.createUploadUrl`. */
export type TaskUploadUrlRequest = Body<'createRunnerTaskUploadUrl'>;
/** Answer of `runners.createUploadUrl`: where and how to PUT the clip. */
export type TaskUploadUrl = Json<'createRunnerTaskUploadUrl', 201>;
/** Body of `runners.complete`. */
export type TaskCompletion = Body<'completeRunnerTask'>;
/** Answer of `runners.complete`: the task (now evaluating) and the accepted clip. */
export type TaskCompletionReply = Json<'completeRunnerTask', 200>;
/** Body of `runners.fail`. */
export type TaskFailure = Body<'failRunnerTask'>;
/** Answer of `runners.fail`: the task, re-queued or failed. */
export type TaskFailureReply = Json<'failRunnerTask', 200>;

const enc = encodeURIComponent;
const runnerPath = (id: string): string => `/api/v1/runners/${enc(id)}`;
const taskPath = (id: string): string => `/api/v1/runner-tasks/${enc(id)}`;

export class RunnersResource {
  constructor(private readonly http: HttpClient) {}

  /**
   * Registers a runner serving `models` (unknown model ids are added). Send an idempotency key
   * through your own retry logic if the call may be repeated.
   * @example
   * const runner = await vesta.runners.register({ name: 'gpu-1', models: ['my-model'] });
   */
  register(body: RunnerRegistration, opts?: RequestOptions): Promise<RunnerInfo> {
    return this.http.json<RunnerInfo>({ method: 'POST', path: '/api/v1/runners', body }, opts);
  }

  /**
   * The caller's runners, oldest first.
   * @example
   * const { items } = await vesta.runners.list();
   */
  list(opts?: RequestOptions): Promise<{ items: RunnerInfo[] }> {
    return this.http.json<{ items: RunnerInfo[] }>({ method: 'GET', path: '/api/v1/runners' }, opts);
  }

  /**
   * One runner of the caller.
   * @example
   * const runner = await vesta.runners.get('runner_123');
   */
  get(id: string, opts?: RequestOptions): Promise<RunnerInfo> {
    return this.http.json<RunnerInfo>({ method: 'GET', path: runnerPath(id) }, opts);
  }

  /**
   * Deregisters a runner; the tasks it holds go back to the queue.
   * @example
   * await vesta.runners.deregister('runner_123');
   */
  async deregister(id: string, opts?: RequestOptions): Promise<void> {
    await this.http.text({ method: 'DELETE', path: runnerPath(id) }, opts);
  }

  /**
   * Long-polls up to `waitSeconds` (0–30, default 20) for a task; `null` when none arrived.
   * @example
   * const task = await vesta.runners.claim('runner_123', { waitSeconds: 30 });
   */
  async claim(
    runnerId: string,
    body: { waitSeconds?: number } = {},
    opts?: RequestOptions,
  ): Promise<ClaimedTask | null> {
    const reply = await this.http.json<{ task: ClaimedTask } | undefined>(
      { method: 'POST', path: `${runnerPath(runnerId)}/claim`, body },
      { timeoutMs: ((body.waitSeconds ?? 20) + 30) * 1000, ...opts },
    );
    return reply?.task ?? null;
  }

  /**
   * Renews a task's lease (and ships log lines); `cancelled: true` means stop.
   * @example
   * const { cancelled } = await vesta.runners.heartbeat(task.id, { leaseId: task.lease.id });
   */
  heartbeat(taskId: string, body: TaskHeartbeat, opts?: RequestOptions): Promise<TaskHeartbeatReply> {
    return this.http.json<TaskHeartbeatReply>(
      { method: 'POST', path: `${taskPath(taskId)}/heartbeat`, body },
      opts,
    );
  }

  /**
   * Mints the upload URL for a task's clip; PUT the bytes there, then `complete`.
   * @example
   * const up = await vesta.runners.createUploadUrl(task.id, { leaseId: task.lease.id, fileName: 'clip.mp4', contentType: 'video/mp4' });
   */
  createUploadUrl(taskId: string, body: TaskUploadUrlRequest, opts?: RequestOptions): Promise<TaskUploadUrl> {
    return this.http.json<TaskUploadUrl>(
      { method: 'POST', path: `${taskPath(taskId)}/upload-url`, body },
      opts,
    );
  }

  /**
   * Completes a task with its uploaded clip (verified, then evaluated).
   * @example
   * await vesta.runners.complete(task.id, { leaseId: task.lease.id, videoId: up.videoId });
   */
  complete(taskId: string, body: TaskCompletion, opts?: RequestOptions): Promise<TaskCompletionReply> {
    return this.http.json<TaskCompletionReply>(
      { method: 'POST', path: `${taskPath(taskId)}/complete`, body },
      opts,
    );
  }

  /**
   * Reports that the clip could not be generated (re-queued while attempts remain unless `retryable: false`).
   * @example
   * await vesta.runners.fail(task.id, { leaseId: task.lease.id, error: 'CUDA out of memory' });
   */
  fail(taskId: string, body: TaskFailure, opts?: RequestOptions): Promise<TaskFailureReply> {
    return this.http.json<TaskFailureReply>({ method: 'POST', path: `${taskPath(taskId)}/fail`, body }, opts);
  }
}
