/**
 * JobQueue of the distributed mode: pg-boss on PostgreSQL, with Vesta's fair claim and leases on
 * top (see "Job engine" in docs/architecture.md).
 *
 * pg-boss owns the jobs: its schema (`<schema>_pgboss`, or `pgboss` beside `public`), one queue per
 * job type, `send` (inside the caller's transaction through its `db` option), retries with
 * exponential back-off (`fail` decides retry or failed from `retry_count`/`retry_limit`),
 * completion, cancellation states, archiving and retention (its supervisor).
 *
 * Vesta adds what pg-boss 10 lacks:
 * - the **fair claim** (pg-boss fetches one queue by priority then age; the port's rule crosses
 *   users): one statement over pg-boss's job table that picks the fairness key with the fewest
 *   leases, then the one served least recently (`job_fair_served`), then the oldest ready job; takes
 *   that key's next job `FOR UPDATE SKIP LOCKED` (interactive lane first: pg-boss `priority`), marks
 *   it active as pg-boss's own fetch does, and writes its lease;
 * - **heartbeat leases** (`job_leases`; pg-boss 10 expires an active job only a fixed time after it
 *   started, which a scoring job of unknown length cannot use): a worker extends its lease every
 *   third of it; a lease that ran out (the process died, its pool is gone) is deleted and its job
 *   put back, so another worker takes it over within about one lease. Deleting the lease row is the
 *   owner fence of every outcome;
 * - **cross-process cancellation**: the canceller marks the jobs cancelled in pg-boss and their
 *   leases `cancel_requested`, then NOTIFYs; the worker running one aborts it at once (or at its
 *   next heartbeat if the notice was missed), and the canceller waits until the leases are gone;
 * - **wake-ups by LISTEN/NOTIFY** (pg-boss polls at 0.5 s at best): an enqueue notifies in the
 *   caller's transaction, so idle workers claim as soon as it commits; a poll every `pollMs` is the
 *   fallback and picks up delayed jobs;
 * - **one leader per cluster** for periodic duties: the process holding a session advisory lock on
 *   its listener connection runs them; when it dies the lock goes with its connection and another
 *   process takes over at its next tick.
 */
import { randomUUID } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Db } from '../../db/connection.js';
import type { EnqueueOptions, JobPayload, JobQueue, JobQueueStats } from '../../ports/job-queue.js';
import { abortJob } from './execution.js';
import type { ClaimedJobRun, JobLease } from './execution.js';
import { ClaimingJobQueue } from './pump.js';

export interface PgBossJobQueueOptions {
  /** The PostgreSQL URL (pg-boss and the listener connection open their own connections). */
  connectionString: string;
  concurrency: number;
  /** How long a running job's lease lasts without a heartbeat (default 30 s). */
  leaseMs?: number;
  /** Fallback poll for ready jobs when no notice came (default 1 s). */
  pollMs?: number;
  /** pg-boss's maintenance interval in seconds (archiving, retention; default 60). */
  maintenanceIntervalSeconds?: number;
}

/** What a job row's `data` holds: the payload and Vesta's fields. */
interface StoredJob {
  /** payload */
  p: JobPayload;
  /** fairness key */
  k: string;
  /** subject */
  s: string | null;
}

/** A claimed job: its row's fields, and what the execution needs (selected so by the claim). */
interface ClaimedJob extends ClaimedJobRun {
  name: string;
  data: StoredJob;
  retry_count: number;
  retry_limit: number;
}

/** pg-boss runs its statements through this, so that they join the caller's transaction. */
function bossDb(executor: Db): PgBoss.Db {
  return {
    executeSql: async (text: string, values: unknown[]) => {
      const result = await executor.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows };
    },
  };
}

/** The database clock in epoch milliseconds (leases use one clock, whatever the machines'). */
const NOW_MS = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** The longest pg-boss allows (< 24 h); leases, not pg-boss's expiry, bound a job's run. */
const PGBOSS_EXPIRE_SECONDS = 23 * 3600;

export class PgBossJobQueue extends ClaimingJobQueue<ClaimedJob> implements JobQueue {
  private readonly workerId = randomUUID();
  /** The listener connection's application_name (tests cut it off to play a dead process). */
  readonly listenerName = `vesta-jobs-${this.workerId.slice(0, 8)}`;
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;
  private listener: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private leader = false;
  private leaderCheck: Promise<boolean> | null = null;

  private constructor(
    private readonly db: Db,
    private readonly boss: PgBoss,
    /** The schema of pg-boss's tables. */
    readonly bossSchema: string,
    /** The NOTIFY channel of this deployment (one per schema). */
    private readonly channel: string,
    private readonly lockKey: string,
    private readonly options: PgBossJobQueueOptions,
  ) {
    super(options.leaseMs ?? 30_000, options.concurrency, options.pollMs ?? 1000);
  }

  /** Starts pg-boss (creating or migrating its schema) and the listener connection. */
  static async open(db: Db, options: PgBossJobQueueOptions): Promise<PgBossJobQueue> {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    const schema = rows[0]?.schema ?? 'public';
    const bossSchema = schema === 'public' ? 'pgboss' : `${schema}_pgboss`;
    const boss = new PgBoss({
      connectionString: options.connectionString,
      schema: bossSchema,
      // pg-boss's own pool serves only its start (schema migration) and its supervisor: sends,
      // completions and failures run on Vesta's pool or the caller's transaction.
      max: 2,
      application_name: 'vesta-job-engine',
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 60,
    });
    let bossError: unknown = null;
    boss.on('error', (e: unknown) => (bossError = e));
    await boss.start();
    const queue = new PgBossJobQueue(
      db,
      boss,
      bossSchema,
      `vesta_jobs_${schema}`,
      `vesta:duties:${schema}`,
      options,
    );
    boss.removeAllListeners('error');
    boss.on('error', (e: unknown) => queue.log?.error({ err: e }, 'pg-boss reported an error'));
    if (bossError) queue.log?.warn({ err: bossError }, 'pg-boss reported an error while starting');
    try {
      await queue.createIndexes();
      await queue.connectListener();
    } catch (e) {
      await boss.stop({ graceful: false, wait: true, close: true }).catch(() => undefined);
      throw e;
    }
    return queue;
  }

  private job(): RawBuilder<unknown> {
    return sql.id(this.bossSchema, 'job');
  }

  /** Indexes for Vesta's reads of pg-boss's table (the fair claim, cancel by subject). */
  private async createIndexes(): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`vesta:job-indexes:${this.bossSchema}`}))`.execute(
        trx,
      );
      // The fair claim's index seeks: keys with queued jobs (a loose index scan), each key's next
      // job in claim order, and each key's oldest job.
      await sql`create index if not exists vesta_job_key_next on ${this.job()}
        ((data->>'k'), priority desc, created_on, id) where state < 'active'`.execute(trx);
      await sql`create index if not exists vesta_job_key_age on ${this.job()}
        ((data->>'k'), created_on) where state < 'active'`.execute(trx);
      await sql`create index if not exists vesta_job_subject on ${this.job()} ((data->>'s'))
        where state < 'completed'`.execute(trx);
    });
  }

  // ---- listener connection: wake-ups, cancellation notices, leadership -------------------------

  private async connectListener(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: this.listenerName,
    });
    client.on('error', () => this.listenerLost(client));
    client.on('end', () => this.listenerLost(client));
    client.on('notification', (n) => this.onNotice(n.payload ?? ''));
    await client.connect();
    await client.query(`listen ${client.escapeIdentifier(this.channel)}`);
    this.listener = client;
  }

  private listenerLost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = null;
    // The session advisory lock went with the connection.
    this.leader = false;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.log?.warn('job engine lost its listener connection; reconnecting');
    const retry = (): void => {
      this.reconnectTimer = null;
      if (this.closed) return;
      this.connectListener()
        .then(() => this.wake())
        .catch(() => {
          this.reconnectTimer = setTimeout(retry, 1000);
          this.reconnectTimer.unref();
        });
    };
    this.reconnectTimer = setTimeout(retry, 250);
    this.reconnectTimer.unref();
  }

  private onNotice(payload: string): void {
    if (payload.startsWith('c:')) {
      const subject = payload.slice(2);
      for (const r of this.execution.running.values()) if (r.subject === subject) abortJob(r, 'cancelled');
      return;
    }
    this.wake();
  }

  /**
   * Whether this process runs the periodic duties now (it holds the cluster's advisory lock). The
   * duties' timers ask at once; they share one query, since a pg client runs one query at a time
   * (a second one issued meanwhile is deprecated by node-postgres and refused in its next major).
   */
  protected override runsDuties(): Promise<boolean> {
    if (this.leader && this.listener && !this.closed) return Promise.resolve(true);
    if (!this.leaderCheck) {
      this.leaderCheck = this.tryLead().finally(() => {
        this.leaderCheck = null;
      });
    }
    return this.leaderCheck;
  }

  private async tryLead(): Promise<boolean> {
    const client = this.listener;
    if (!client || this.closed) return false;
    if (this.leader) return true;
    const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [
      this.lockKey,
    ]);
    this.leader = rows[0]?.ok === true && this.listener === client;
    if (this.leader) this.log?.info({ workerId: this.workerId }, 'this process now runs the periodic duties');
    return this.leader;
  }

  // ---- the port ---------------------------------------------------------------------------------

  /**
   * Creates the pg-boss queue of a job type once. pg-boss's `create_queue` deadlocks when two
   * processes create the same queue at once (an api and a worker starting together), so the
   * creation runs here under a transaction-scoped advisory lock, calling the same function
   * `createQueue` does.
   */
  private ensureQueue(type: string): Promise<void> {
    let p = this.queues.get(type);
    if (!p) {
      p = this.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext(${`vesta:job-queues:${this.bossSchema}`}))`.execute(
          trx,
        );
        const fn = sql.id(this.bossSchema, 'create_queue');
        await sql`select ${fn}(${type}, ${JSON.stringify({ policy: 'standard' })}::json)`.execute(trx);
      });
      p.catch(() => this.queues.delete(type));
      this.queues.set(type, p);
    }
    return p;
  }

  async enqueue(type: string, payload: JobPayload, options: EnqueueOptions = {}): Promise<string> {
    await this.ensureQueue(type);
    // The executor is the caller's Kysely transaction on this database.
    const executor = (options.executor as Db | undefined) ?? this.db;
    const id = randomUUID();
    const maxAttempts = options.maxAttempts ?? this.execution.handlers.get(type)?.maxAttempts ?? 3;
    const data: StoredJob = { p: payload, k: options.fairnessKey ?? '', s: options.subject ?? null };
    await this.boss.send(type, data, {
      id,
      db: bossDb(executor),
      priority: options.lane === 'interactive' ? 1 : 0,
      retryLimit: Math.max(0, maxAttempts - 1),
      retryDelay: 1,
      retryBackoff: true,
      expireInSeconds: PGBOSS_EXPIRE_SECONDS,
      ...(options.runAt === undefined ? {} : { startAfter: new Date(options.runAt) }),
    });
    // Delivered when the caller's transaction commits (not at all if it rolls back).
    await sql`select pg_notify(${this.channel}, 'w')`.execute(executor);
    return id;
  }

  async cancelBySubject(subject: string): Promise<number> {
    // First the jobs (queued and running: nothing can claim them after this), then the leases of
    // those that run, so that a claim racing this is seen by one step or the other.
    const cancelled = await sql<{ id: string }>`
      update ${this.job()} set state = 'cancelled', completed_on = now()
      where data->>'s' = ${subject} and state < 'completed'
      returning id`.execute(this.db);
    const leases = await this.db
      .updateTable('job_leases')
      .set({ cancel_requested: 1 })
      .where('subject', '=', subject)
      .returning('job_id')
      .execute();
    for (const r of this.execution.running.values()) if (r.subject === subject) abortJob(r, 'cancelled');
    if (leases.length > 0) {
      await sql`select pg_notify(${this.channel}, ${`c:${subject}`})`.execute(this.db);
      // Return once the aborted handlers stopped (they may read what the caller deletes next),
      // wherever they run. A worker that died holds its lease until it runs out.
      const deadline = Date.now() + 2 * this.leaseMs + 5000;
      while (Date.now() < deadline) {
        const left = await this.db
          .selectFrom('job_leases')
          .select('job_id')
          .where('subject', '=', subject)
          .limit(1)
          .execute();
        if (left.length === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return cancelled.rows.length;
  }

  /** The pg-boss queue of each job type this process runs. */
  protected override async prepare(types: string[]): Promise<void> {
    await Promise.all(types.map((t) => this.ensureQueue(t)));
  }

  override async stop(graceMs: number): Promise<void> {
    if (this.closed) return;
    await super.stop(graceMs);
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.listener;
    this.listener = null;
    this.leader = false;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
    await this.boss.stop({ graceful: false, wait: true, close: true }).catch(() => undefined);
  }

  async checkReady(): Promise<void> {
    await sql`select 1 from ${this.job()} limit 1`.execute(this.db);
    if (!this.listener && !this.closed) throw new Error('the job engine has no listener connection');
  }

  protected async depth(): Promise<JobQueueStats['depth']> {
    const { rows } = await sql<{ type: string; state: string; count: number }>`
      select name as type, state::text as state, count(*) as count from ${this.job()}
      group by name, state`.execute(this.db);
    return rows.map((r) => ({ type: r.type, state: r.state, count: Number(r.count) }));
  }

  /**
   * Puts back running jobs whose lease ran out (their process died or lost the database): the
   * lease row goes, and the job, if still active, is ready again at once. Leases of jobs that were
   * cancelled meanwhile just go. Returns how many jobs were put back.
   */
  override async reapExpiredLeases(): Promise<number> {
    const { rows } = await sql<{ id: string }>`
      with dead as (
        delete from job_leases where lease_until < ${NOW_MS} and worker_id <> ${this.workerId}
        returning job_id, queue
      )
      update ${this.job()} j set state = 'retry', start_after = now()
      from dead where j.name = dead.queue and j.id = dead.job_id::uuid and j.state = 'active'
      returning j.id`.execute(this.db);
    if (rows.length > 0) {
      this.log?.warn({ jobs: rows.length }, 'requeued jobs whose lease expired');
      this.wake();
    }
    return rows.length;
  }

  // ---- claiming and running ---------------------------------------------------------------------

  /**
   * The fair claim (the rule of `EnqueueOptions.fairnessKey`) in one statement over pg-boss's job
   * table: the keys with queued jobs by a loose index scan (one seek per key, however long a
   * backlog); of those with a ready job, the key with the fewest leases, then served least recently,
   * then with the oldest ready job (index seeks in `vesta_job_key_age`); that key's next job
   * (interactive first, then oldest: `vesta_job_key_next`) locked with SKIP LOCKED. (The type and
   * readiness tests are written as expressions so that the planner, before the table has
   * statistics, does not pick pg-boss's (name, start_after) index and read every queued job for
   * each key, as `+n.run_at` does in the SQLite queue.) The job is marked active as pg-boss's fetch
   * marks it (`retry_count` grows on a re-run); its lease is written and its key's service time
   * noted. Concurrent claims in other processes skip the rows
   * this one locks, so a job is never claimed twice.
   */
  protected async claim(): Promise<ClaimedJob | undefined> {
    const types = [...this.execution.handlers.keys()];
    if (types.length === 0) return undefined;
    const job = this.job();
    const { rows } = await sql<ClaimedJob>`
      with recursive keys(k) as (
        select min(data->>'k') from ${job} where state < 'active'
        union all
        select (select min(q.data->>'k') from ${job} q where q.state < 'active' and q.data->>'k' > keys.k)
        from keys where keys.k is not null
      ),
      ready as materialized (
        select keys.k, (select r.created_on from ${job} r
          where r.state < 'active' and r.data->>'k' = keys.k
            and (r.start_after + interval '0 s') < now() and (r.name || '') = any(${types}::text[])
          order by r.data->>'k', r.created_on limit 1) as oldest
        from keys where keys.k is not null
      ),
      chosen as (
        select r.k from ready r where r.oldest is not null
        order by
          (select count(*) from job_leases l where l.fairness_key = r.k),
          coalesce((select s.served_at from job_fair_served s where s.fairness_key = r.k), -1),
          r.oldest,
          r.k
        limit 1
      ),
      next as (
        select j.name, j.id from ${job} j
        where j.state < 'active' and j.data->>'k' = (select k from chosen)
          and (j.name || '') = any(${types}::text[]) and (j.start_after + interval '0 s') < now()
        order by j.data->>'k', j.priority desc, j.created_on, j.id
        limit 1
        for update skip locked
      ),
      claimed as (
        update ${job} j set
          state = 'active',
          started_on = now(),
          retry_count = case when j.started_on is not null then j.retry_count + 1 else j.retry_count end
        from next where j.name = next.name and j.id = next.id
        returning j.id, j.name, j.data, j.retry_count, j.retry_limit
      ),
      lease as (
        insert into job_leases (job_id, queue, fairness_key, subject, worker_id, lease_until, started_at, cancel_requested)
        select c.id::text, c.name, c.data->>'k', c.data->>'s', ${this.workerId}, ${NOW_MS} + ${this.leaseMs}, ${NOW_MS}, 0
        from claimed c
        on conflict (job_id) do update set worker_id = excluded.worker_id, lease_until = excluded.lease_until,
          started_at = excluded.started_at, cancel_requested = 0, subject = excluded.subject
        returning job_id
      ),
      served as (
        insert into job_fair_served (fairness_key, served_at)
        select c.data->>'k', (extract(epoch from clock_timestamp()) * 1000000)::bigint from claimed c
        on conflict (fairness_key) do update set served_at = excluded.served_at
        returning fairness_key
      )
      select c.id::text as id, c.name, c.data, c.retry_count, c.retry_limit,
        c.name as type, c.data->>'s' as subject, c.data->'p' as payload,
        c.retry_count + 1 as attempt, c.retry_count >= c.retry_limit as "lastAttempt",
        (select count(*) from lease) + (select count(*) from served) as written
      from claimed c`.execute(this.db);
    return rows[0];
  }

  protected launch(job: ClaimedJob): void {
    this.execution.launch(job, this.lease(job));
  }

  /** Claimed while stopping: hand it straight back. */
  protected override claimedWhileStopping(job: ClaimedJob): Promise<boolean> {
    return this.putBack(job);
  }

  /** The claimed job's storage: its lease row (`job_leases`) fences every write. */
  private lease(job: ClaimedJob): JobLease {
    return {
      renew: async () => {
        const { rows } = await sql<{ cancel_requested: number }>`
          update job_leases set lease_until = ${NOW_MS} + ${this.leaseMs}
          where job_id = ${job.id} and worker_id = ${this.workerId}
          returning cancel_requested`.execute(this.db);
        if (rows.length === 0) return 'lost';
        return Number(rows[0]?.cancel_requested) === 1 ? 'cancelled' : 'held';
      },
      succeed: () => this.settle(job, (trx) => this.boss.complete(job.name, job.id, {}, { db: bossDb(trx) })),
      putBack: () => this.putBack(job),
      // The canceller already marked it cancelled in pg-boss; the lease goes.
      cancel: () => this.settle(job, () => Promise.resolve()),
      defer: (delayMs, message) => this.defer(job, delayMs, message),
      // pg-boss waits its own retry delay.
      retry: async (message) => ({ kept: await this.fail(job, message, false) }),
      fail: (message) => this.fail(job, message, true),
    };
  }

  /** Runs `write` in a transaction only while this worker still owns the job (deletes its lease). */
  private async settle(job: ClaimedJob, write: (trx: Db) => Promise<void>): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx
        .deleteFrom('job_leases')
        .where('job_id', '=', job.id)
        .where('worker_id', '=', this.workerId)
        .executeTakeFirst();
      if (Number(owned.numDeletedRows) === 0) return false;
      await write(trx);
      return true;
    });
  }

  /** Back to the queue without counting the attempt (shutdown). */
  private async putBack(job: ClaimedJob): Promise<boolean> {
    return this.settle(job, async (trx) => {
      await sql`update ${this.job()} set state = 'created', started_on = null, start_after = now()
        where name = ${job.name} and id = ${job.id}::uuid and state = 'active'`.execute(trx);
    });
  }

  /** Back to the queue after `delayMs` without counting the attempt (a dependency is down). */
  private async defer(job: ClaimedJob, delayMs: number, message: string): Promise<boolean> {
    return this.settle(job, async (trx) => {
      await sql`update ${this.job()} set state = 'created', started_on = null,
          start_after = now() + ${delayMs} * interval '1 millisecond',
          output = jsonb_build_object('message', ${message}::text)
        where name = ${job.name} and id = ${job.id}::uuid and state = 'active'`.execute(trx);
    });
  }

  /** A failed attempt: pg-boss retries it unless `final` (its retries are then used up). */
  private async fail(job: ClaimedJob, message: string, final: boolean): Promise<boolean> {
    return this.settle(job, async (trx) => {
      if (final)
        await sql`update ${this.job()} set retry_limit = retry_count
          where name = ${job.name} and id = ${job.id}::uuid`.execute(trx);
      await this.boss.fail(job.name, job.id, { message }, { db: bossDb(trx) });
    });
  }
}
