/**
 * The runner loop: registers a runner, long-polls for tasks (up to `concurrency` at once),
 * heartbeats each task's lease while its clip is generated (stopping the generator when the run is
 * cancelled or the lease is lost), uploads the clip through the task's upload flow, then completes
 * or fails the task with the log lines gathered meanwhile. Transient errors are retried; a stop
 * finishes in-flight tasks within a grace period and hands the rest back (failed, retryable).
 *
 * No Node built-ins: it runs in browsers too (clips as Blob/bytes/streams there).
 */
import { sleep } from '../core/abort.js';
import { backoffDelay } from '../core/backoff.js';
import { ApiError, RequestAbortedError, VestaError, isTransient } from '../core/errors.js';
import { errorText, retryTransient } from './retry.js';
import { isClipWrapper, uploadTaskClip, type ClipUploadDeps } from './upload.js';
import type {
  ClipOutput,
  GenerateContext,
  GenerateFn,
  RegisteredRunner,
  RunnerEvent,
  RunnerLogLevel,
  RunnerLogLine,
  RunnerSummary,
  RunnerTask,
  StopReason,
} from './types.js';

export const DEFAULT_CLAIM_WAIT_SECONDS = 20;
export const DEFAULT_STOP_GRACE_MS = 30_000;
/**
 * How long a generated clip is sent again while its upload cannot reach the storage (the task's
 * lease is held meanwhile); after that the attempt fails as any other.
 */
export const UPLOAD_RETRY_WINDOW_MS = 10 * 60_000;
/**
 * Waits between claims (and `runWithPipeline`'s polls) that could not reach the service: 0.5 s
 * doubling up to 30 s, with jitter.
 */
export const CLAIM_BACKOFF = { initialDelayMs: 500, maxDelayMs: 30_000 };

/** Log lines kept per task between two shipments; older ones are dropped (and counted). */
const MAX_PENDING_LOGS = 1_000;
/** Lines sent in one heartbeat, completion or failure. */
const LOGS_PER_CALL = 100;
const MAX_LOG_CHARS = 2_000;

/** Thrown by a generator to fail the attempt with a message; `retryable: false` fails the task for good. */
export class GenerationError extends VestaError {
  readonly retryable: boolean;
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super('generation_failed', message, { cause: options.cause });
    this.retryable = options.retryable ?? true;
  }
}

/** The reason a task's generation was stopped, as the error its abort signal carries. */
export class TaskStoppedError extends VestaError {
  constructor(readonly reason: StopReason) {
    super(`task_${reason}`, `generation stopped: ${reason}`);
  }
}

export interface RunnerOptions {
  /** A label shown in runner listings. */
  name: string;
  /** Model ids this runner serves. */
  models: string[];
  /** Makes one clip per task. */
  generate: GenerateFn;
  /** Tasks generated at once (default 1). */
  concurrency?: number;
  /** Aborting it stops the runner gracefully (see `stopGraceMs`). */
  signal?: AbortSignal;
  /** Progress and log events. Exceptions thrown here are ignored. */
  onLog?: (event: RunnerEvent) => void;
  /** Heartbeat period; default a third of the lease's TTL. */
  heartbeatIntervalMs?: number;
  /** Long-poll wait of one claim, 0–30 s (default 20). */
  claimWaitSeconds?: number;
  /** How long in-flight tasks may finish after a stop through `signal` (default 30 s). */
  stopGraceMs?: number;
  /** Reported to the server at registration. */
  version?: string;
  /** Deregister the runner when the loop ends (default false). */
  deregisterOnStop?: boolean;
}

export interface StopOptions {
  /** How long in-flight tasks may still finish (default 30 s); 0 hands them back at once. */
  graceMs?: number;
  /**
   * Also abort the claim in flight instead of letting it end (at most `claimWaitSeconds`). A task
   * the server leased in that moment then waits for its lease to expire.
   */
  abandonClaim?: boolean;
}

export interface Runner {
  /** Resolves once the runner is registered. */
  readonly ready: Promise<RegisteredRunner>;
  /** Resolves when the loop has stopped (rejects on an error it cannot get past, e.g. a revoked key). */
  readonly done: Promise<RunnerSummary>;
  /** The runner id, once registered. */
  readonly id: string | undefined;
  /** Tasks being generated or uploaded now. */
  readonly inFlight: number;
  /** The counts so far (final once `done` resolves). */
  readonly summary: RunnerSummary;
  /**
   * Stops claiming; in-flight tasks get `graceMs` (default 30 s) to finish, then are handed back.
   * Calling it again with `graceMs: 0` hands them back at once; `abandonClaim` stops waiting for
   * the claim in flight.
   */
  stop(options?: StopOptions): Promise<RunnerSummary>;
}

interface ActiveTask {
  task: RunnerTask;
  stop(reason: StopReason): void;
  finished: Promise<void>;
}

export function startRunner(deps: ClipUploadDeps, options: RunnerOptions): Runner {
  return new RunnerLoop(deps, options);
}

class RunnerLoop implements Runner {
  readonly ready: Promise<RegisteredRunner>;
  readonly done: Promise<RunnerSummary>;
  private runnerId: string | undefined;
  private stopping = false;
  private graceMs = DEFAULT_STOP_GRACE_MS;
  private readonly claimAbort = new AbortController();
  private readonly stopWaits = new AbortController();
  private stoppedAt = 0;
  private readonly active = new Map<string, ActiveTask>();
  private wake: (() => void) | undefined;
  private readonly counts: RunnerSummary = {
    runnerId: undefined,
    completed: 0,
    failed: 0,
    cancelled: 0,
    leaseLost: 0,
    handedBack: 0,
  };
  private readonly concurrency: number;
  private readonly claimWait: number;
  private resolveReady!: (r: RegisteredRunner) => void;
  private rejectReady!: (err: unknown) => void;

  constructor(
    private readonly deps: ClipUploadDeps,
    private readonly options: RunnerOptions,
  ) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(`concurrency must be a whole number of at least 1 (got ${concurrency})`);
    const wait = options.claimWaitSeconds ?? DEFAULT_CLAIM_WAIT_SECONDS;
    if (!(wait >= 0 && wait <= 30)) throw new RangeError(`claimWaitSeconds must be 0–30 (got ${wait})`);
    this.concurrency = concurrency;
    this.claimWait = wait;
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    const signal = options.signal;
    if (signal) {
      const onAbort = (): void => void this.stop({ graceMs: options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    this.done = this.run();
    this.done.catch(() => undefined);
  }

  get id(): string | undefined {
    return this.runnerId;
  }

  get inFlight(): number {
    return this.active.size;
  }

  get summary(): RunnerSummary {
    return { ...this.counts };
  }

  stop(options: StopOptions = {}): Promise<RunnerSummary> {
    if (!this.stopping) {
      this.stopping = true;
      this.stoppedAt = Date.now();
      this.graceMs = Math.max(0, options.graceMs ?? DEFAULT_STOP_GRACE_MS);
      // Only a pending registration or a retry wait is aborted; a claim in flight ends by itself.
      this.stopWaits.abort(new Error('runner stopping'));
      this.wake?.();
    } else if (options.graceMs === 0) {
      // A later, immediate stop: hand back what is still running now.
      this.graceMs = 0;
      for (const a of this.active.values()) a.stop('stopping');
    }
    if (options.abandonClaim) this.claimAbort.abort(new Error('runner stopping now'));
    return this.done;
  }

  private emit(event: RunnerEvent): void {
    try {
      this.options.onLog?.(event);
    } catch {
      // A listener's error must not break the loop.
    }
  }

  private async run(): Promise<RunnerSummary> {
    let fatal: Error | undefined;
    try {
      const registered = await this.register();
      if (registered) await this.claimLoop(registered.id);
    } catch (err) {
      fatal = err instanceof Error ? err : new Error(String(err));
      this.stopping = true;
      this.graceMs = 0;
    }
    await this.drain();
    if (this.runnerId !== undefined && this.options.deregisterOnStop) {
      await this.deps.api.deregister(this.runnerId).catch(() => undefined);
    }
    const summary = { ...this.counts };
    this.emit({ type: 'stopped', summary });
    if (fatal !== undefined) throw fatal;
    return summary;
  }

  private async register(): Promise<RegisteredRunner | undefined> {
    try {
      const body = {
        name: this.options.name,
        models: this.options.models,
        maxConcurrency: this.concurrency,
        ...(this.options.version !== undefined ? { version: this.options.version } : {}),
      };
      const registered = await retryTransient(
        (idempotencyKey) => this.deps.api.register(body, { idempotencyKey, signal: this.stopWaits.signal }),
        {
          signal: this.stopWaits.signal,
          onRetry: (err, delayMs) => this.retrying('register', err, delayMs),
        },
      );
      this.runnerId = registered.id;
      this.counts.runnerId = registered.id;
      this.emit({
        type: 'registered',
        runnerId: registered.id,
        name: registered.name,
        models: registered.models,
      });
      this.resolveReady(registered);
      return registered;
    } catch (err) {
      if (this.stopping && (err instanceof RequestAbortedError || isTransient(err))) {
        const aborted = new RequestAbortedError(err);
        this.rejectReady(aborted);
        return undefined;
      }
      this.rejectReady(err);
      throw err;
    }
  }

  private retrying(operation: string, err: unknown, delayMs: number): void {
    this.emit({ type: 'retrying', operation, error: errorText(err), delayMs });
  }

  private async claimLoop(runnerId: string): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      if (this.active.size >= this.concurrency) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      let task: RunnerTask | null;
      try {
        task = await this.deps.api.claim(
          runnerId,
          { waitSeconds: this.claimWait },
          // A stop lets the long-poll end on its own (at most `claimWaitSeconds`): aborting it could
          // lose a task the server has just leased to this runner until the lease expires.
          { signal: this.claimAbort.signal, timeoutMs: (this.claimWait + 30) * 1000, maxRetries: 0 },
        );
        failures = 0;
      } catch (err) {
        if (this.stopping) return;
        if (!isTransient(err)) throw err;
        const delay = backoffDelay(Math.min(failures, 6), CLAIM_BACKOFF);
        failures++;
        this.retrying('claim', err, delay);
        await sleep(delay, this.stopWaits.signal).catch(() => undefined);
        continue;
      }
      if (task) {
        this.start(task);
        // Claimed while stopping: hand it back at once.
        if (this.stopping) this.active.get(task.id)?.stop('stopping');
      }
    }
  }

  private start(task: RunnerTask): void {
    const controller = new AbortController();
    let reason: StopReason | undefined;
    const stop = (r: StopReason): void => {
      if (reason !== undefined) return;
      reason = r;
      controller.abort(new TaskStoppedError(r));
    };
    const entry: ActiveTask = {
      task,
      stop,
      finished: this.handle(task, controller.signal, () => reason, stop).finally(() => {
        this.active.delete(task.id);
        this.wake?.();
      }),
    };
    this.active.set(task.id, entry);
  }

  /** Waits for in-flight tasks: `graceMs` to finish, then they are stopped and handed back. */
  private async drain(): Promise<void> {
    if (this.active.size === 0) return;
    this.emit({ type: 'stopping', inFlight: this.active.size, graceMs: this.graceMs });
    const all = (): Promise<unknown> => Promise.allSettled([...this.active.values()].map((a) => a.finished));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const left = Math.max(0, (this.stoppedAt || Date.now()) + this.graceMs - Date.now());
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, left)));
    await Promise.race([all(), grace]);
    clearTimeout(timer);
    for (const a of this.active.values()) a.stop('stopping');
    await all();
  }

  private async handle(
    task: RunnerTask,
    signal: AbortSignal,
    stopReason: () => StopReason | undefined,
    stop: (r: StopReason) => void,
  ): Promise<void> {
    const started = Date.now();
    const leaseId = task.lease.id;
    let leaseExpiry = Date.parse(task.lease.expiresAt) || Date.now() + task.lease.ttlSeconds * 1000;
    const pending: RunnerLogLine[] = [];
    let dropped = 0;
    const takeLogs = (): RunnerLogLine[] | undefined => {
      const lines = pending.splice(0, LOGS_PER_CALL);
      if (dropped > 0 && pending.length === 0) {
        lines.push({
          at: new Date().toISOString(),
          level: 'warn',
          message: `${dropped} log line(s) dropped`,
        });
        dropped = 0;
      }
      return lines.length > 0 ? lines : undefined;
    };
    const log = (message: string, level: RunnerLogLevel = 'info'): void => {
      const text = message.length > MAX_LOG_CHARS ? `${message.slice(0, MAX_LOG_CHARS)}…` : message;
      if (pending.length >= MAX_PENDING_LOGS) {
        pending.shift();
        dropped++;
      }
      pending.push({ at: new Date().toISOString(), level, message: text });
      this.emit({ type: 'log', taskId: task.id, level, message: text });
    };
    this.emit({
      type: 'claimed',
      taskId: task.id,
      runId: task.runId,
      prompt: task.prompt,
      seed: task.seed,
      sampleIndex: task.sampleIndex,
      attempt: task.attempt,
    });

    // Heartbeats: renew the lease, ship logs, learn of a cancel.
    const heartbeatStop = new AbortController();
    const interval = Math.max(
      100,
      this.options.heartbeatIntervalMs ?? Math.floor((task.lease.ttlSeconds * 1000) / 3),
    );
    const heartbeats = (async () => {
      for (;;) {
        try {
          await sleep(interval, heartbeatStop.signal);
        } catch {
          return;
        }
        const logs = takeLogs();
        try {
          const reply = await this.deps.api.heartbeat(
            task.id,
            { leaseId, ...(logs ? { logs } : {}) },
            // Not aborted when the task ends: an aborted request can leave the server a dangling
            // connection; the task's end waits for this short call instead.
            { timeoutMs: Math.max(interval, 5_000), maxRetries: 1 },
          );
          leaseExpiry = Date.parse(reply.expiresAt) || leaseExpiry;
          if (reply.cancelled) {
            stop('cancelled');
            return;
          }
        } catch (err) {
          if (heartbeatStop.signal.aborted) return;
          if (logs) pending.unshift(...logs);
          if (!isTransient(err)) {
            // 409: the lease was taken over (expired and re-queued), 404/403: the task is gone.
            stop('lease_lost');
            return;
          }
          this.retrying('heartbeat', err, interval);
          if (Date.now() >= leaseExpiry) {
            stop('lease_lost');
            return;
          }
        }
      }
    })();

    const report = async (fn: (key: string) => Promise<unknown>, operation: string): Promise<void> => {
      await retryTransient(fn, {
        deadline: leaseExpiry,
        onRetry: (err, delayMs) => this.retrying(operation, err, delayMs),
      });
    };

    let output: ClipOutput | undefined;
    let phase: 'generate' | 'upload' | 'complete' = 'generate';
    try {
      output = await this.generate(task, signal, log);
      const early = stopReason();
      if (early !== undefined) throw new TaskStoppedError(early);
      phase = 'upload';
      const clip = output;
      let told = false;
      // The storage unreachable (the blob store down: no connection, a timeout, 5xx): the clip is
      // kept and sent again with growing waits while the heartbeats hold the lease, so an outage
      // of the store costs no attempt of the task and no second generation. A one-shot stream
      // cannot be sent twice (its retry fails as before).
      const uploaded = await retryTransient(() => uploadTaskClip(this.deps, task, leaseId, clip, signal), {
        signal,
        deadline: Date.now() + UPLOAD_RETRY_WINDOW_MS,
        onRetry: (err, delayMs) => {
          this.retrying('upload', err, delayMs);
          if (!told) log(`the upload failed (${errorText(err)}); sending the clip again`, 'warn');
          told = true;
        },
      });
      this.emit({ type: 'uploaded', taskId: task.id, videoId: uploaded.videoId, bytes: uploaded.bytes });
      heartbeatStop.abort();
      await heartbeats;
      // A stop after the upload still completes: the clip is there, completing is one call.
      const late = stopReason();
      if (late === 'cancelled' || late === 'lease_lost') throw new TaskStoppedError(late);
      phase = 'complete';
      // One body for every try: a retry after a lost answer must repeat the request exactly, or
      // its Idempotency-Key would meet a different body (409 idempotency_mismatch) and the log
      // lines taken by the first try would be lost.
      const completion = { leaseId, videoId: uploaded.videoId, ...withLogs(takeLogs()) };
      await report((key) => this.deps.api.complete(task.id, completion, { idempotencyKey: key }), 'complete');
      this.counts.completed++;
      this.emit({
        type: 'completed',
        taskId: task.id,
        runId: task.runId,
        videoId: uploaded.videoId,
        ms: Date.now() - started,
      });
    } catch (err) {
      heartbeatStop.abort();
      await heartbeats;
      await this.settleFailure(task, err, stopReason(), takeLogs, report, phase);
    } finally {
      if (output !== undefined && isClipWrapper(output) && output.cleanup) {
        try {
          await output.cleanup();
        } catch {
          // Cleaning temporary files is best effort.
        }
      }
    }
  }

  /** Runs the generator; a cancel or lost lease ends the wait even if the generator ignores its signal. */
  private generate(
    task: RunnerTask,
    signal: AbortSignal,
    log: (message: string, level?: RunnerLogLevel) => void,
  ): Promise<ClipOutput> {
    const ctx: GenerateContext = {
      task,
      prompt: task.prompt,
      seed: task.seed,
      sampleIndex: task.sampleIndex,
      auxiliary: task.auxiliary,
      dimensions: task.dimensions,
      signal,
      log,
    };
    const generated = Promise.resolve().then(() => this.options.generate(ctx));
    generated.catch(() => undefined);
    const stopped = (): TaskStoppedError =>
      signal.reason instanceof TaskStoppedError ? signal.reason : new TaskStoppedError('stopping');
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(stopped());
      else signal.addEventListener('abort', () => reject(stopped()), { once: true });
    });
    aborted.catch(() => undefined);
    return Promise.race([generated, aborted]);
  }

  private async settleFailure(
    task: RunnerTask,
    err: unknown,
    reason: StopReason | undefined,
    takeLogs: () => RunnerLogLine[] | undefined,
    report: (fn: (key: string) => Promise<unknown>, operation: string) => Promise<void>,
    phase: 'generate' | 'upload' | 'complete',
  ): Promise<void> {
    const fail = (error: string, retryable: boolean): Promise<void> => {
      // One body for every try (see the completion above).
      const failure = { leaseId: task.lease.id, error, retryable, ...withLogs(takeLogs()) };
      return report((key) => this.deps.api.fail(task.id, failure, { idempotencyKey: key }), 'fail');
    };
    const ignoreGone = (e: unknown): void => {
      if (!(e instanceof ApiError) || ![404, 409].includes(e.status)) throw e;
    };
    try {
      if (reason === 'cancelled') {
        this.counts.cancelled++;
        this.emit({ type: 'cancelled', taskId: task.id, runId: task.runId });
        await fail('the run was cancelled; generation stopped', false).catch(ignoreGone);
        return;
      }
      if (reason === 'lease_lost') {
        this.counts.leaseLost++;
        this.emit({ type: 'lease_lost', taskId: task.id, runId: task.runId });
        return;
      }
      if (reason === 'stopping') {
        this.counts.handedBack++;
        this.emit({ type: 'handed_back', taskId: task.id, runId: task.runId });
        await fail('the runner stopped before the clip was finished; handed back', true).catch(ignoreGone);
        return;
      }
      if (err instanceof ApiError && err.status === 409) {
        // The run was cancelled or the lease ended while uploading: one heartbeat tells which.
        const cancelled = await this.deps.api
          .heartbeat(task.id, { leaseId: task.lease.id }, { maxRetries: 1 })
          .then((r) => r.cancelled)
          .catch(() => false);
        if (cancelled) {
          this.counts.cancelled++;
          this.emit({ type: 'cancelled', taskId: task.id, runId: task.runId });
        } else {
          this.counts.leaseLost++;
          this.emit({ type: 'lease_lost', taskId: task.id, runId: task.runId });
        }
        return;
      }
      if (err instanceof ApiError && err.status < 500) {
        // The server refused the clip or the call: invalid_video (the attempt is already failed
        // server-side), a stale lease or a cancelled run (409), a file type it does not take.
        this.counts.failed++;
        this.emit({
          type: 'rejected',
          taskId: task.id,
          runId: task.runId,
          code: err.code,
          detail: err.detail,
        });
        // At `complete`, invalid_video has already failed the attempt server-side.
        if (phase === 'complete' && err.code === 'invalid_video') return;
        await fail(`the server refused the clip: ${errorText(err)}`, true).catch(ignoreGone);
        return;
      }
      const retryable = err instanceof GenerationError ? err.retryable : true;
      const message = errorText(err);
      this.counts.failed++;
      this.emit({ type: 'failed', taskId: task.id, runId: task.runId, error: message, retryable });
      await fail(message, retryable).catch(ignoreGone);
    } catch (reportErr) {
      // The failure could not be reported (the server is unreachable until the lease expired):
      // the lease expires and the server re-queues the task.
      this.retrying('fail', reportErr, 0);
    }
  }
}

function withLogs(logs: RunnerLogLine[] | undefined): { logs?: RunnerLogLine[] } {
  return logs ? { logs } : {};
}
