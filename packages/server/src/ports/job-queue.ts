/**
 * Background jobs. Payloads carry ids only; every job type has exactly one handler (checked when
 * the worker starts); a handler gets an AbortSignal and a job-scoped logger. The port speaks its
 * own types: the shared `Logger` (`ports/logger.ts`) and an opaque `QueueExecutor` (the caller's
 * open transaction, which the adapters understand).
 */
import type { Logger } from './logger.js';

export type { Logger };

/**
 * The caller's open database transaction, passed through to the adapter, which knows what it is
 * (both adapters take the transaction of the services' database layer). Opaque to the port.
 */
export type QueueExecutor = object;

export interface JobContext {
  jobId: string;
  attempt: number;
  signal: AbortSignal;
  log: Logger;
}

/** A job's payload: ids and short strings only (it is stored as JSON). */
export type JobPayload = Record<string, string>;

export interface JobHandler<P> {
  /** Validates a payload read back from storage (throws on anything unexpected). */
  parse(payload: unknown): P;
  run(payload: P, context: JobContext): Promise<void>;
  /** Called once when the job has failed for good (attempts exhausted or a permanent error). */
  onFailed?(payload: P, error: unknown, context: Omit<JobContext, 'signal'>): Promise<void>;
  /** Attempts before the job fails for good (default 3). */
  maxAttempts?: number;
}

/**
 * Which lane a job waits in, within its fairness key: `interactive` (a Score/Rank clip someone is
 * waiting for) is claimed before `batch` (a Bench clip) of the same key. Lanes do not order jobs
 * across keys: fairness between users does that.
 */
export type JobLane = 'interactive' | 'batch';

export interface EnqueueOptions {
  /** What the job concerns (e.g. `video:<id>`), for `cancelBySubject`. */
  subject?: string;
  /**
   * Whose work this is (the user id). Every adapter claims by the same fair-share rule: among the
   * keys with a ready job, the key with the fewest jobs running now, then the key served least
   * recently (its last claim oldest; never served first), then the key whose oldest ready job is
   * oldest; within the chosen key, `interactive` before `batch`, then by `runAt`, then FIFO. It is
   * work-conserving (a lone key gets every slot) and the claim stays one atomic statement.
   * Jobs without a key share the key `''`.
   */
  fairnessKey?: string;
  /** The job's lane within its fairness key (default `batch`). */
  lane?: JobLane;
  runAt?: number;
  maxAttempts?: number;
  /** Enqueue inside this transaction, so that the job exists exactly when the caller's change commits. */
  executor?: QueueExecutor;
}

/** A failure that retrying cannot fix: the job fails at once. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

/**
 * The job could not run because something it shares with every job is unavailable (the blob store
 * or the database unreachable): nothing is wrong with the job itself. It goes back to the queue to
 * run again after `delayMs`, without using up an attempt, for as long as the outage lasts — so an
 * outage fails no job for good.
 */
export class DependencyUnavailableJobError extends Error {
  override readonly name = 'DependencyUnavailableJobError';
  constructor(
    message: string,
    readonly delayMs: number = DEPENDENCY_RETRY_MS,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** How long a job waits for an unavailable dependency before it runs again (the API's Retry-After). */
export const DEPENDENCY_RETRY_MS = 5000;

/** How a job's run ended, as counted by `stats` (`deferred`: put back to wait for a dependency). */
export type JobOutcome = 'succeeded' | 'retried' | 'deferred' | 'failed' | 'cancelled' | 'interrupted';

/** What /metrics shows of the queue. */
export interface JobQueueStats {
  /** Jobs in the queue's storage by type and state (the whole cluster's). */
  depth: Array<{ type: string; state: string; count: number }>;
  /** Runs this process finished since it started, by type and outcome, with their total duration. */
  runs: Array<{ type: string; outcome: JobOutcome; count: number; seconds: number }>;
}

export interface JobQueue {
  enqueue(type: string, payload: JobPayload, options?: EnqueueOptions): Promise<string>;
  /**
   * Cancels queued jobs about `subject` and aborts running ones — in this process or any other
   * sharing the queue — resolving once they stopped.
   */
  cancelBySubject(subject: string): Promise<number>;
  /** Starts claiming jobs with these handlers (one per job type of the catalogue), logging to `log`. */
  start(handlers: ReadonlyMap<string, JobHandler<unknown>>, log: Logger): void;
  /**
   * Runs `duty` every `intervalMs` (and once soon after this call) until `stop`, in one process of
   * the deployment at a time: every process may call it, the queue elects which one runs it (the
   * embedded queue has one process, so it runs there).
   */
  every(name: string, intervalMs: number, duty: () => Promise<void>, log: Logger): void;
  /**
   * Stops claiming, waits up to `graceMs` for running jobs, then aborts the rest and puts them
   * back in the queue so that they run again after restart. Ends the periodic duties.
   */
  stop(graceMs: number): Promise<void>;
  /** Throws when the queue's storage is not usable (for /readyz). */
  checkReady(): Promise<void>;
  /** Queue depth and this process's finished runs (for /metrics). */
  stats(): Promise<JobQueueStats>;
}
