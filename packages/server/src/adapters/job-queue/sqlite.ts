/**
 * JobQueue on the `jobs` table with an in-process pool. A claim is one atomic UPDATE … RETURNING
 * that shares slots fairly between users (the rule of `EnqueueOptions.fairnessKey`);
 * a running job holds a lease that its heartbeat extends. Leases that run out (the process died)
 * are put back in the queue by the reaper, and jobs cut off by a graceful shutdown are put back at
 * once, so both run again after a restart.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { JobsTable } from '../../db/schema.js';
import type { EnqueueOptions, JobPayload, JobQueue, JobQueueStats } from '../../ports/job-queue.js';
import { abortJob } from './execution.js';
import type { JobLease } from './execution.js';
import { ClaimingJobQueue } from './pump.js';

export interface SqliteJobQueueOptions {
  concurrency: number;
  leaseMs?: number;
  pollMs?: number;
  now?: () => number;
  /**
   * `fair` (default): the fair-share claim. `fifo`: the claim before issue #15 (oldest `run_at`
   * first, whoever's job it is), kept only as the baseline `npm run bench:fairness` measures
   * against side by side.
   */
  claimOrder?: 'fair' | 'fifo';
}

export class SqliteJobQueue extends ClaimingJobQueue<JobsTable> implements JobQueue {
  private readonly workerId = randomUUID();
  private readonly now: () => number;
  private lastClaimedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly options: SqliteJobQueueOptions,
  ) {
    super(options.leaseMs ?? 30_000, options.concurrency, options.pollMs ?? 1000);
    this.now = options.now ?? Date.now;
  }

  async enqueue(type: string, payload: JobPayload, options: EnqueueOptions = {}): Promise<string> {
    const id = randomUUID();
    const t = this.now();
    // The executor is the caller's Kysely transaction on this database.
    await ((options.executor as Db | undefined) ?? this.db)
      .insertInto('jobs')
      .values({
        id,
        type,
        payload: JSON.stringify(payload),
        subject: options.subject ?? null,
        state: 'queued',
        attempts: 0,
        max_attempts: options.maxAttempts ?? this.execution.handlers.get(type)?.maxAttempts ?? 3,
        run_at: options.runAt ?? t,
        lease_until: null,
        locked_by: null,
        last_error: null,
        created_at: t,
        updated_at: t,
        fairness_key: options.fairnessKey ?? '',
        priority: options.lane === 'interactive' ? 0 : 1,
        claimed_at: null,
        seq: (eb) =>
          eb
            .selectFrom('jobs')
            .select(sql<number>`coalesce(max(${sql.ref('seq')}), 0) + 1`.as('next'))
            .$castTo<number>(),
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
    for (const r of this.execution.running.values()) {
      if (r.subject === subject && r.abortReason === null) {
        abortJob(r, 'cancelled');
        stopping.push(r.done);
        count++;
      }
    }
    // Return once the aborted handlers have stopped (they may be reading what the caller deletes next).
    await Promise.allSettled(stopping);
    return count;
  }

  protected async depth(): Promise<JobQueueStats['depth']> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['type', 'state', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy(['type', 'state'])
      .execute();
    return rows.map((r) => ({ type: r.type, state: r.state, count: Number(r.count) }));
  }

  async checkReady(): Promise<void> {
    await this.db.selectFrom('jobs').select('id').limit(1).execute();
  }

  /** Puts running jobs whose lease ran out back in the queue (their process is gone). */
  override async reapExpiredLeases(): Promise<number> {
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
      this.execution.log.warn({ jobs: n }, 'requeued jobs whose lease expired');
      this.wake();
    }
    return n;
  }

  /**
   * Claims the next job by the fair-share rule of `EnqueueOptions.fairnessKey`, in one
   * compare-and-swap statement:
   * - `fair_keys` lists the keys with queued jobs by a loose index scan (one index seek per key,
   *   however long a key's backlog is);
   * - `chosen` keeps the keys with a ready job and takes the one with the fewest jobs running, then
   *   the one served least recently (its latest claim oldest; never served first), then the one
   *   whose next ready job has waited longest, then by key;
   * - the UPDATE takes that key's next job (interactive lane first, then `run_at`, then enqueue
   *   order), only if it is still queued.
   * Every step is an index seek (`jobs_fair_ready`, `jobs_fair_next`, `jobs_fair_served`), so a
   * claim costs O(keys · log jobs), not O(queued jobs). (`+n.run_at` keeps SQLite's planner from
   * range-scanning `jobs_fair_ready` and sorting the key's whole backlog: the next job is read in
   * `jobs_fair_next`'s order instead.)
   */
  protected async claim(): Promise<JobsTable | undefined> {
    const types = [...this.execution.handlers.keys()];
    if (types.length === 0) return undefined;
    if (this.options.claimOrder === 'fifo') return this.claimFifo(types);
    const t = this.now();
    // Strictly increasing within the process, so that "served least recently" has no ties.
    const claimedAt = Math.max(t, this.lastClaimedAt + 1);
    this.lastClaimedAt = claimedAt;
    const typeList = sql.join(types);
    const { rows } = await sql<JobsTable>`
      with recursive fair_keys(k) as (
        select min(fairness_key) from jobs where state = 'queued'
        union all
        select (select min(j.fairness_key) from jobs j where j.state = 'queued' and j.fairness_key > fair_keys.k)
        from fair_keys where fair_keys.k is not null
      ),
      chosen(k) as (
        select fk.k from fair_keys fk
        where fk.k is not null
          and exists (select 1 from jobs r where r.state = 'queued' and r.fairness_key = fk.k
                      and r.run_at <= ${t} and r.type in (${typeList}))
        order by
          (select count(*) from jobs b where b.state = 'running' and b.fairness_key = fk.k),
          coalesce((select max(s.claimed_at) from jobs s where s.fairness_key = fk.k), -1),
          (select min(r.run_at) from jobs r where r.state = 'queued' and r.fairness_key = fk.k
           and r.run_at <= ${t} and r.type in (${typeList})),
          fk.k
        limit 1
      )
      update jobs set
        state = 'running', attempts = attempts + 1, lease_until = ${t + this.leaseMs},
        locked_by = ${this.workerId}, claimed_at = ${claimedAt}, updated_at = ${t}
      where id = (
        select n.id from jobs n
        where n.state = 'queued' and n.fairness_key = (select k from chosen)
          and +n.run_at <= ${t} and n.type in (${typeList})
        order by n.priority, n.run_at, n.seq
        limit 1
      ) and state = 'queued'
      returning *`.execute(this.db);
    return rows[0];
  }

  /** The claim before issue #15: the oldest ready job of any user (the benchmark's baseline). */
  private async claimFifo(types: string[]): Promise<JobsTable | undefined> {
    const t = this.now();
    return this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        attempts: eb('attempts', '+', 1),
        lease_until: t + this.leaseMs,
        locked_by: this.workerId,
        claimed_at: t,
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

  protected launch(job: JobsTable): void {
    const payload = JSON.parse(job.payload) as unknown;
    const lastAttempt = job.attempts >= job.max_attempts;
    this.execution.launch(
      { id: job.id, type: job.type, subject: job.subject, payload, attempt: job.attempts, lastAttempt },
      this.lease(job),
    );
  }

  /** The claimed job's storage: every write fenced on this worker still holding it. */
  private lease(job: JobsTable): JobLease {
    const fenced = async (changes: Parameters<typeof this.write>[1]): Promise<boolean> =>
      this.write(job.id, changes);
    return {
      // One process: nothing else can take or cancel the job (cancel aborts it here directly).
      renew: async () => {
        await this.db
          .updateTable('jobs')
          .set({ lease_until: this.now() + this.leaseMs })
          .where('id', '=', job.id)
          .where('locked_by', '=', this.workerId)
          .execute();
        return 'held';
      },
      succeed: () => fenced({ state: 'succeeded', last_error: null }),
      putBack: () => fenced({ state: 'queued', attempts: job.attempts - 1 }),
      cancel: (message) => fenced({ state: 'cancelled', last_error: message }),
      defer: (delayMs, message) =>
        fenced({
          state: 'queued',
          attempts: job.attempts - 1,
          last_error: message,
          run_at: this.now() + delayMs,
        }),
      retry: async (message) => {
        const delay = Math.min(60_000, 1000 * 2 ** (job.attempts - 1));
        const kept = await fenced({ state: 'queued', last_error: message, run_at: this.now() + delay });
        return { kept, retryInMs: delay };
      },
      fail: (message) => fenced({ state: 'failed', last_error: message }),
    };
  }

  /**
   * Ends this worker's hold on the job with `changes`. Owner fence: a worker whose lease ran out
   * (and whose job another worker has taken over) must not overwrite the new owner's state.
   */
  private async write(
    id: string,
    changes: Pick<JobsTable, 'state'> & Partial<Pick<JobsTable, 'attempts' | 'last_error' | 'run_at'>>,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ ...changes, lease_until: null, locked_by: null, updated_at: this.now() })
      .where('id', '=', id)
      .where('locked_by', '=', this.workerId)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
}
