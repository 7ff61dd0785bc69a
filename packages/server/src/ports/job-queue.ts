/**
 * Background jobs. Payloads carry ids only; every job type has exactly one handler (checked when
 * the worker starts); a handler gets an AbortSignal and a job-scoped logger.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connection.js';

export interface JobContext {
  jobId: string;
  attempt: number;
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

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
  executor?: Db;
}

/** A failure that retrying cannot fix: the job fails at once. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

export interface JobQueue {
  enqueue(type: string, payload: Record<string, string>, options?: EnqueueOptions): Promise<string>;
  /** Cancels queued jobs about `subject` and aborts running ones, resolving once they stopped. */
  cancelBySubject(subject: string): Promise<number>;
  /** Starts claiming jobs with these handlers (one per job type of the catalogue), logging to `log`. */
  start(handlers: ReadonlyMap<string, JobHandler<unknown>>, log: FastifyBaseLogger): void;
  /**
   * Stops claiming, waits up to `graceMs` for running jobs, then aborts the rest and puts them
   * back in the queue so that they run again after restart.
   */
  stop(graceMs: number): Promise<void>;
  /** Throws when the queue's storage is not usable (for /readyz). */
  checkReady(): Promise<void>;
}
