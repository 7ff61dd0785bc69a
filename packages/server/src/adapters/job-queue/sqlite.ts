/**
 * JobQueue on the `jobs` table with an in-process pool. A claim is one atomic UPDATE … RETURNING;
 * a running job holds a lease that its heartbeat extends. Leases that run out (the process died)
 * are put back in the queue by the reaper, and jobs cut off by a graceful shutdown are put back at
 * once, so both run again after a restart.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/connection.js';
import type { JobsTable } from '../../db/schema.js';
import type { EnqueueOptions, JobHandler, JobQueue } from '../../ports/job-queue.js';
import { PermanentJobError } from '../../ports/job-queue.js';

export interface SqliteJobQueueOptions {
  concurrency: number;
  leaseMs?: number;
  pollMs?: number;
  now?: () => number;
}

interface Running {
  id: string;
  subject: string | null;
  controller: AbortController;
  /** Why the job was aborted, when it was. */
  abortReason: 'shutdown' | 'cancelled' | null;
  done: Promise<void>;
}

export class SqliteJobQueue implements JobQueue {
  private readonly workerId = randomUUID();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly running = new Map<string, Running>();
  private handlers: ReadonlyMap<string, JobHandler<unknown>> = new Map();
  private started = false;
  private stopping = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private reapTimer: NodeJS.Timeout | null = null;
  private pumping = false;
  /** The worker's logger, given at start (nothing is logged before). */
  private log: FastifyBaseLogger | null = null;
  private pumpAgain = false;

  constructor(
    private readonly db: Db,
    private readonly options: SqliteJobQueueOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  async enqueue(
    type: string,
    payload: Record<string, string>,
    options: EnqueueOptions = {},
  ): Promise<string> {
    const id = randomUUID();
    const t = this.now();
    await (options.executor ?? this.db)
      .insertInto('jobs')
      .values({
        id,
        type,
        payload: JSON.stringify(payload),
        subject: options.subject ?? null,
        state: 'queued',
        attempts: 0,
        max_attempts: options.maxAttempts ?? this.handlers.get(type)?.maxAttempts ?? 3,
        run_at: options.runAt ?? t,
        lease_until: null,
        locked_by: null,
        last_error: null,
        created_at: t,
        updated_at: t,
        fairness_key: options.fairnessKey ?? '',
        lane: options.lane ?? 'batch',
        claimed_at: null,
      })
      .execute();
    this.wake();
    return id;
  }

  async cancelBySubject(subject: string): Promise<number> {
    const t = this.now();
    const res = await this.db
      .updateTable('jobs')
      .set({ state: 'cancelled', updated_at: t, lease_until: null })
      .where('subject', '=', subject)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    let count = Number(res.numUpdatedRows);
    const stopping: Array<Promise<void>> = [];
    for (const r of this.running.values()) {
      if (r.subject === subject && r.abortReason === null) {
        r.abortReason = 'cancelled';
        r.controller.abort(new Error('job cancelled'));
        stopping.push(r.done);
        count++;
      }
    }
    // Return once the aborted handlers have stopped (they may be reading what the caller deletes next).
    await Promise.allSettled(stopping);
    return count;
  }

  start(handlers: ReadonlyMap<string, JobHandler<unknown>>, log: FastifyBaseLogger): void {
    if (this.started) throw new Error('job queue already started');
    this.started = true;
    this.handlers = handlers;
    this.log = log;
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.reapTimer = setInterval(
      () =>
        void this.reapExpiredLeases().catch((e: unknown) =>
          this.logger().error({ err: e }, 'lease reaper failed'),
        ),
      Math.max(this.leaseMs / 3, 50),
    );
    void this.reapExpiredLeases()
      .catch((e: unknown) => this.logger().error({ err: e }, 'lease reaper failed'))
      .then(() => this.wake());
  }

  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.reapTimer) clearInterval(this.reapTimer);
    const all = () => Promise.allSettled([...this.running.values()].map((r) => r.done));
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    for (const r of this.running.values()) {
      if (r.abortReason === null) {
        r.abortReason = 'shutdown';
        r.controller.abort(new Error('shutting down'));
      }
    }
    await all();
  }

  async checkReady(): Promise<void> {
    await this.db.selectFrom('jobs').select('id').limit(1).execute();
  }

  private logger(): FastifyBaseLogger {
    if (!this.log) throw new Error('job queue not started');
    return this.log;
  }

  /** Puts running jobs whose lease ran out back in the queue (their process is gone). */
  async reapExpiredLeases(): Promise<number> {
    const t = this.now();
    const res = await this.db
      .updateTable('jobs')
      .set({ state: 'queued', lease_until: null, locked_by: null, updated_at: t })
      .where('state', '=', 'running')
      .where('lease_until', '<', t)
      .where((eb) => eb.or([eb('locked_by', 'is', null), eb('locked_by', '!=', this.workerId)]))
      .executeTakeFirst();
    const n = Number(res.numUpdatedRows);
    if (n > 0) {
      this.logger().warn({ jobs: n }, 'requeued jobs whose lease expired');
      this.wake();
    }
    return n;
  }

  private wake(): void {
    if (!this.started || this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch((e: unknown) => this.logger().error({ err: e }, 'job claim failed'))
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.wake();
        }
      });
  }

  private async pump(): Promise<void> {
    while (!this.stopping && this.running.size < this.options.concurrency) {
      const job = await this.claim();
      if (!job) return;
      this.launch(job);
    }
  }

  private async claim(): Promise<JobsTable | undefined> {
    const types = [...this.handlers.keys()];
    if (types.length === 0) return undefined;
    const t = this.now();
    return this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        attempts: eb('attempts', '+', 1),
        lease_until: t + this.leaseMs,
        locked_by: this.workerId,
        updated_at: t,
      }))
      .where(
        'id',
        '=',
        this.db
          .selectFrom('jobs')
          .select('id')
          .where('state', '=', 'queued')
          .where('run_at', '<=', t)
          .where('type', 'in', types)
          .orderBy('run_at')
          .orderBy('created_at')
          .limit(1),
      )
      .where('state', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
  }

  private launch(job: JobsTable): void {
    const controller = new AbortController();
    const entry: Running = {
      id: job.id,
      subject: job.subject,
      controller,
      abortReason: null,
      done: Promise.resolve(),
    };
    this.running.set(job.id, entry);
    entry.done = this.execute(job, entry)
      .catch((e: unknown) => this.logger().error({ err: e, jobId: job.id }, 'job bookkeeping failed'))
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
  }

  private async execute(job: JobsTable, entry: Running): Promise<void> {
    const handler = this.handlers.get(job.type);
    const log = this.logger().child({ jobId: job.id, jobType: job.type, attempt: job.attempts });
    const heartbeat = setInterval(
      () => {
        void this.db
          .updateTable('jobs')
          .set({ lease_until: this.now() + this.leaseMs })
          .where('id', '=', job.id)
          .where('locked_by', '=', this.workerId)
          .execute()
          .catch((e: unknown) => log.error({ err: e }, 'lease heartbeat failed'));
      },
      Math.max(this.leaseMs / 3, 20),
    );
    let payload: unknown;
    try {
      if (!handler) throw new PermanentJobError(`no handler for job type ${job.type}`);
      payload = handler.parse(JSON.parse(job.payload));
      log.debug('job started');
      await handler.run(payload, {
        jobId: job.id,
        attempt: job.attempts,
        signal: entry.controller.signal,
        log,
      });
      clearInterval(heartbeat);
      await this.finish(job.id, 'succeeded', null);
      log.debug('job succeeded');
    } catch (error) {
      clearInterval(heartbeat);
      const message = error instanceof Error ? error.message : String(error);
      if (entry.abortReason === 'shutdown') {
        // Cut off by shutdown: back to the queue, and the attempt does not count.
        await this.db
          .updateTable('jobs')
          .set((eb) => ({
            state: 'queued',
            attempts: eb('attempts', '-', 1),
            lease_until: null,
            locked_by: null,
            updated_at: this.now(),
          }))
          .where('id', '=', job.id)
          .execute();
        log.info('job cut off by shutdown; it resumes after restart');
        return;
      }
      if (entry.abortReason === 'cancelled') {
        await this.finish(job.id, 'cancelled', message);
        log.info('job cancelled');
        return;
      }
      const permanent = error instanceof PermanentJobError || job.attempts >= job.max_attempts;
      if (permanent) {
        await this.finish(job.id, 'failed', message);
        log.error({ err: error }, 'job failed');
        if (handler?.onFailed && payload !== undefined)
          await handler.onFailed(payload, error, { jobId: job.id, attempt: job.attempts, log });
        return;
      }
      const delay = Math.min(60_000, 1000 * 2 ** (job.attempts - 1));
      await this.db
        .updateTable('jobs')
        .set({
          state: 'queued',
          lease_until: null,
          locked_by: null,
          last_error: message,
          run_at: this.now() + delay,
          updated_at: this.now(),
        })
        .where('id', '=', job.id)
        .execute();
      log.warn({ err: error, retryInMs: delay }, 'job failed; will retry');
    }
  }

  private async finish(
    id: string,
    state: 'succeeded' | 'failed' | 'cancelled',
    lastError: string | null,
  ): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ state, lease_until: null, locked_by: null, last_error: lastError, updated_at: this.now() })
      .where('id', '=', id)
      .execute();
  }
}
