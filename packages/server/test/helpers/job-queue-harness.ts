/**
 * One harness per JobQueue adapter, so that the contract suite (`job-queue.test.ts`) and the
 * fairness suite run the same tests against both: the embedded queue on a SQLite file (project
 * `sqlite`) and the job engine — pg-boss with Vesta's claim and leases — on PostgreSQL (project
 * `postgres`). The harness reads a job's state in the adapter's own storage, normalised to
 * queued / running / succeeded / failed / cancelled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { PgBossJobQueue } from '../../src/adapters/job-queue/pg-boss.js';
import { SqliteJobQueue } from '../../src/adapters/job-queue/sqlite.js';
import { openDatabase } from '../../src/db/connection.js';
import type { Db, OpenedDatabase } from '../../src/db/connection.js';
import type { JobHandler, JobQueue, Logger } from '../../src/ports/job-queue.js';
import { waitFor } from './core-app.js';
import { TEST_DIALECT, dropTestDatabase, testDatabaseTarget } from './test-database.js';

export const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

export type NormalState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface JobView {
  state: NormalState;
  /** Runs started and counted (a run cut off by shutdown does not count). */
  attempts: number;
  lastError: string | null;
  /** When it may run next (epoch ms). */
  runAt: number;
}

export interface QueueOptions {
  concurrency?: number;
  leaseMs?: number;
  pollMs?: number;
}

export interface QueueHarness {
  /** `sqlite queue` or `job engine`. */
  name: string;
  /** The database the queues share (the test's own file or schema). */
  opened: OpenedDatabase;
  /** A queue on the shared connection. */
  queue(options?: QueueOptions): Promise<JobQueue>;
  /** A queue on a connection of its own (a second process); `kill` cuts that connection off. */
  isolatedQueue(options?: QueueOptions): Promise<{ queue: JobQueue; kill: () => Promise<void> }>;
  job(id: string): Promise<JobView>;
  /** All jobs' count, in any state. */
  count(): Promise<number>;
  /** Makes a job that waits for a retry ready now. */
  readyNow(id: string): Promise<void>;
  /** Another worker takes the running job over (as after its lease ran out). */
  stealJob(id: string): Promise<void>;
  /** Closes every queue and connection and removes the database. */
  close(): Promise<void>;
}

function defaults(o: QueueOptions): Required<QueueOptions> {
  return { concurrency: o.concurrency ?? 2, leaseMs: o.leaseMs ?? 30_000, pollMs: o.pollMs ?? 20 };
}

async function sqliteHarness(dir: string): Promise<QueueHarness> {
  const opened = await openDatabase(dir);
  const queues: JobQueue[] = [];
  const extra: OpenedDatabase[] = [];
  const make = (db: Db, o: QueueOptions): JobQueue => {
    const q = new SqliteJobQueue(db, defaults(o));
    queues.push(q);
    return q;
  };
  const row = (id: string) =>
    opened.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return {
    name: 'sqlite queue',
    opened,
    queue: (o = {}) => Promise.resolve(make(opened.db, o)),
    async isolatedQueue(o = {}) {
      const own = await openDatabase(dir);
      extra.push(own);
      return { queue: make(own.db, o), kill: () => own.close() };
    },
    async job(id) {
      const r = await row(id);
      return { state: r.state, attempts: r.attempts, lastError: r.last_error, runAt: r.run_at };
    },
    async count() {
      const r = await opened.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async readyNow(id) {
      await opened.db.updateTable('jobs').set({ run_at: 0 }).where('id', '=', id).execute();
    },
    async stealJob(id) {
      await opened.db.updateTable('jobs').set({ locked_by: 'other-worker' }).where('id', '=', id).execute();
    },
    async close() {
      for (const q of queues.splice(0)) await q.stop(0);
      for (const o of extra.splice(0)) await o.close().catch(() => undefined);
      await opened.close();
    },
  };
}

const BOSS_STATE: Record<string, NormalState> = {
  created: 'queued',
  retry: 'queued',
  active: 'running',
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

async function engineHarness(dir: string): Promise<QueueHarness> {
  const target = await testDatabaseTarget(dir, 'postgres');
  const url = target.databaseUrl as string;
  const opened = await openDatabase(target);
  const queues: JobQueue[] = [];
  const extra: OpenedDatabase[] = [];
  let bossSchema = '';
  const make = async (db: Db, o: QueueOptions): Promise<PgBossJobQueue> => {
    const q = await PgBossJobQueue.open(db, {
      connectionString: url,
      ...defaults(o),
      pollMs: o.pollMs ?? 100,
    });
    bossSchema = q.bossSchema;
    queues.push(q);
    return q;
  };
  const jobTable = () => sql.id(bossSchema, 'job');
  return {
    name: 'job engine',
    opened,
    queue: (o = {}) => make(opened.db, o),
    async isolatedQueue(o = {}) {
      const own = await openDatabase({ ...target, poolSize: 3 });
      extra.push(own);
      const queue = await make(own.db, o);
      // A process that dies: its pool (heartbeats, outcomes) and its listener connection go.
      const kill = async (): Promise<void> => {
        await own.close();
        await sql`select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = ${queue.listenerName}`.execute(opened.db);
      };
      return { queue, kill };
    },
    async job(id) {
      const { rows } = await sql<{
        state: string;
        retry_count: number;
        started_on: Date | null;
        output: { message?: string } | null;
        start_after: Date;
      }>`select state::text as state, retry_count, started_on, output, start_after
         from ${jobTable()} where id = ${id}::uuid`.execute(opened.db);
      const r = rows[0];
      if (!r) throw new Error(`no job ${id}`);
      return {
        state: BOSS_STATE[r.state] ?? 'queued',
        attempts: r.retry_count + (r.started_on ? 1 : 0),
        lastError: r.output?.message ?? null,
        runAt: r.start_after.getTime(),
      };
    },
    async count() {
      if (!bossSchema) return 0;
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${jobTable()}`.execute(opened.db);
      return Number(rows[0]?.n);
    },
    async readyNow(id) {
      await sql`update ${jobTable()} set start_after = now() - interval '1 second' where id = ${id}::uuid`.execute(
        opened.db,
      );
    },
    async stealJob(id) {
      await opened.db
        .updateTable('job_leases')
        .set({ worker_id: 'other-worker' })
        .where('job_id', '=', id)
        .execute();
    },
    async close() {
      for (const q of queues.splice(0)) await q.stop(0);
      for (const o of extra.splice(0)) await o.close().catch(() => undefined);
      await opened.close();
      // Drops pg-boss's schema too.
      await dropTestDatabase(dir, 'postgres');
    },
  };
}

/** The harness of the adapter this vitest project tests (SQLite queue, or the job engine). */
export async function queueHarness(
  dialect: typeof TEST_DIALECT = TEST_DIALECT,
): Promise<QueueHarness & { dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-queue-'));
  const h = dialect === 'postgres' ? await engineHarness(dir) : await sqliteHarness(dir);
  return {
    ...h,
    dir,
    async close() {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The jobs about these subjects in a running server's queue, whichever adapter it has, with
 * normalised states (what tests of the services read instead of a table).
 */
export async function jobsAbout(
  deps: { db: Db; jobs: JobQueue },
  subjects: string | readonly string[],
): Promise<Array<{ id: string; subject: string | null; state: NormalState; attempts: number }>> {
  const list = typeof subjects === 'string' ? [subjects] : [...subjects];
  if (list.length === 0) return [];
  if (deps.jobs instanceof PgBossJobQueue) {
    const { rows } = await sql<{
      id: string;
      subject: string | null;
      state: string;
      retry_count: number;
      started_on: Date | null;
    }>`
      select id::text as id, data->>'s' as subject, state::text as state, retry_count, started_on
      from ${sql.id(deps.jobs.bossSchema, 'job')} where data->>'s' = any(${list}::text[])`.execute(deps.db);
    return rows.map((r) => ({
      id: r.id,
      subject: r.subject,
      state: BOSS_STATE[r.state] ?? 'queued',
      attempts: r.retry_count + (r.started_on ? 1 : 0),
    }));
  }
  const rows = await deps.db
    .selectFrom('jobs')
    .select(['id', 'subject', 'state', 'attempts'])
    .where('subject', 'in', list)
    .execute();
  return rows;
}

/** Handlers for the one job type `t` of the queue tests. */
export function handler(
  run: JobHandler<{ n: string }>['run'],
  extra: Partial<JobHandler<{ n: string }>> = {},
): Map<string, JobHandler<unknown>> {
  const hd: JobHandler<{ n: string }> = { parse: (p) => p as { n: string }, run, ...extra };
  return new Map<string, JobHandler<unknown>>([['t', hd]]);
}

/** Waits until the harness reads the job in `state`. */
export const untilState = (h: QueueHarness, id: string, state: NormalState, ms = 10_000): Promise<JobView> =>
  waitFor(
    () => h.job(id),
    (j) => j.state === state,
    ms,
  );

/** A handler that runs until its signal aborts. */
export const untilAborted = (onAbort?: () => void): Map<string, JobHandler<unknown>> =>
  handler(
    (_p, ctx) =>
      new Promise<void>((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => {
          onAbort?.();
          reject(new Error('aborted'));
        }),
      ),
  );
