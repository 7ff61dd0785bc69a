/**
 * One execution of a claimed job, shared by every job-queue adapter: the handler runs under a
 * lease kept alive by a heartbeat, and its outcome — succeeded, cut off by shutdown, cancelled,
 * deferred while a dependency is down, retried, or failed for good (then `onFailed`) — is decided
 * here, once. An adapter keeps only claiming, leasing and storage: it hands over the claimed job
 * and a `JobLease` whose methods write each outcome with its own fence (false: the lease was lost
 * to another worker meanwhile, and the outcome is dropped).
 */
import type { JobHandler, JobOutcome, Logger } from '../../ports/job-queue.js';
import { DependencyUnavailableJobError, PermanentJobError } from '../../ports/job-queue.js';
import { RunStats } from './run-stats.js';

/** A job running in this process. */
export interface RunningJob {
  id: string;
  subject: string | null;
  controller: AbortController;
  /** Why the job was aborted: shutdown, cancellation, or its lease was lost to another worker. */
  abortReason: 'shutdown' | 'cancelled' | 'lost' | null;
  done: Promise<void>;
}

/** A claimed job, as the adapter read it. */
export interface ClaimedJobRun {
  id: string;
  type: string;
  subject: string | null;
  /** The payload as stored (parsed by the handler). */
  payload: unknown;
  /** 1 for the first attempt. */
  attempt: number;
  /** No retry is left after this attempt. */
  lastAttempt: boolean;
}

/** How an adapter stores each outcome of the job it claimed. Every write is fenced on the lease. */
export interface JobLease {
  /** Renews the lease: `held`, `cancelled` (someone asked to cancel the job) or `lost`. */
  renew(): Promise<'held' | 'cancelled' | 'lost'>;
  succeed(): Promise<boolean>;
  /** Back to the queue without counting the attempt (shutdown). */
  putBack(): Promise<boolean>;
  /** The job was cancelled (its lease ends). */
  cancel(message: string): Promise<boolean>;
  /** Back to the queue after `delayMs` without counting the attempt (a dependency is down). */
  defer(delayMs: number, message: string): Promise<boolean>;
  /** Another attempt later; `retryInMs` when the adapter chooses the delay. */
  retry(message: string): Promise<{ kept: boolean; retryInMs?: number }>;
  /** Failed for good. */
  fail(message: string): Promise<boolean>;
}

export interface JobExecutionContext {
  handlers: ReadonlyMap<string, JobHandler<unknown>>;
  running: Map<string, RunningJob>;
  runStats: RunStats;
  log: Logger;
  leaseMs: number;
  /** Called once the job left `running` (the adapter claims the next one). */
  onDone: () => void;
}

/**
 * The jobs one process runs for its queue adapter: their handlers (given at start), the jobs
 * running now and how past runs ended. The adapter claims each job and hands it here with its
 * lease (`launch`); `onDone` tells the adapter that a slot is free.
 */
export class JobExecution implements JobExecutionContext {
  handlers: ReadonlyMap<string, JobHandler<unknown>> = new Map();
  readonly running = new Map<string, RunningJob>();
  readonly runStats = new RunStats();
  private logger: Logger | null = null;

  constructor(
    readonly leaseMs: number,
    readonly onDone: () => void,
  ) {}

  get log(): Logger {
    if (!this.logger) throw new Error('job queue not started');
    return this.logger;
  }

  start(handlers: ReadonlyMap<string, JobHandler<unknown>>, log: Logger): void {
    this.handlers = handlers;
    this.logger = log;
  }

  /** True while fewer than `concurrency` jobs run here. */
  hasFreeSlot(concurrency: number): boolean {
    return this.running.size < concurrency;
  }

  launch(job: ClaimedJobRun, lease: JobLease): void {
    launchJob(this, job, lease);
  }
}

/** Aborts a running job once, remembering why. */
export function abortJob(entry: RunningJob, reason: 'shutdown' | 'cancelled' | 'lost'): void {
  if (entry.abortReason !== null) return;
  entry.abortReason = reason;
  entry.controller.abort(new Error(reason === 'shutdown' ? 'shutting down' : `job ${reason}`));
}

/** Starts executing a claimed job in the background, tracked in `context.running`. */
export function launchJob(context: JobExecutionContext, job: ClaimedJobRun, lease: JobLease): void {
  const entry: RunningJob = {
    id: job.id,
    subject: job.subject,
    controller: new AbortController(),
    abortReason: null,
    done: Promise.resolve(),
  };
  context.running.set(job.id, entry);
  entry.done = executeJob(context, job, lease, entry)
    .catch((e: unknown) => context.log.error({ err: e, jobId: job.id }, 'job bookkeeping failed'))
    .finally(() => {
      context.running.delete(job.id);
      context.onDone();
    });
}

async function executeJob(
  context: JobExecutionContext,
  job: ClaimedJobRun,
  lease: JobLease,
  entry: RunningJob,
): Promise<void> {
  const handler = context.handlers.get(job.type);
  const log = context.log.child({ jobId: job.id, jobType: job.type, attempt: job.attempt });
  const heartbeat = setInterval(
    () => {
      lease
        .renew()
        .then((state) => {
          if (state !== 'held') abortJob(entry, state);
        })
        .catch((e: unknown) => log.error({ err: e }, 'lease heartbeat failed'));
    },
    Math.max(context.leaseMs / 3, 20),
  );
  const startedAt = performance.now();
  const record = (outcome: JobOutcome): void =>
    context.runStats.record(job.type, outcome, (performance.now() - startedAt) / 1000);
  const dropped = (): void =>
    log.warn({ jobId: job.id }, 'job outcome dropped: its lease was lost to another worker');
  let payload: unknown;
  try {
    if (!handler) throw new PermanentJobError(`no handler for job type ${job.type}`);
    payload = handler.parse(job.payload);
    log.debug('job started');
    await handler.run(payload, { jobId: job.id, attempt: job.attempt, signal: entry.controller.signal, log });
    clearInterval(heartbeat);
    if (!(await lease.succeed())) return dropped();
    record('succeeded');
    log.debug('job succeeded');
  } catch (error) {
    clearInterval(heartbeat);
    const message = error instanceof Error ? error.message : String(error);
    if (entry.abortReason === 'lost') return dropped();
    if (entry.abortReason === 'shutdown') {
      if (!(await lease.putBack())) return dropped();
      record('interrupted');
      log.info('job cut off by shutdown; it resumes after restart');
      return;
    }
    if (entry.abortReason === 'cancelled') {
      if (!(await lease.cancel(message))) dropped();
      record('cancelled');
      log.info('job cancelled');
      return;
    }
    if (error instanceof DependencyUnavailableJobError) {
      if (!(await lease.defer(error.delayMs, message))) return dropped();
      record('deferred');
      log.warn({ err: error, retryInMs: error.delayMs }, 'job waits for a dependency; it runs again later');
      return;
    }
    if (!(error instanceof PermanentJobError) && !job.lastAttempt) {
      const retried = await lease.retry(message);
      if (!retried.kept) return dropped();
      record('retried');
      log.warn(
        { err: error, ...(retried.retryInMs === undefined ? {} : { retryInMs: retried.retryInMs }) },
        'job failed; will retry',
      );
      return;
    }
    if (!(await lease.fail(message))) return dropped();
    record('failed');
    log.error({ err: error }, 'job failed');
    if (handler?.onFailed && payload !== undefined)
      await handler.onFailed(payload, error, { jobId: job.id, attempt: job.attempt, log });
  }
}
