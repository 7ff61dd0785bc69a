/**
 * Section `pickup` of `npm run bench:distributed`: job pickup latency, enqueue → handler start,
 * p50/p99 (targets on PostgreSQL: p50 < 50 ms, p99 < 250 ms), side by side:
 *
 * - the embedded SQLite queue (one process: the enqueue wakes its own worker);
 * - the job engine on PostgreSQL, enqueuer and worker on two queue instances with their own pools
 *   and listener connections (an api process and a worker process; here in one OS process), at
 *   the default timings (fallback poll 1 s), so the wake-up travels by NOTIFY;
 * - pg-boss's own `work()` loop on the same database (polling every 0.5 s, its minimum), what the
 *   engine would pick up at without Vesta's LISTEN/NOTIFY claim;
 *
 * and the takeover time of the job engine: a worker running a job dies (its pool and listener
 * connection cut off) → another worker's handler starts the job, with a 2 s lease.
 *
 * Each job is enqueued while the worker is idle (10–40 ms after the previous one started), one at
 * a time, so the figure is the wake-up path, not queueing behind other jobs. Env:
 * BENCH_PICKUP_JOBS (default 200), BENCH_PICKUP_NATIVE_JOBS (default 60), BENCH_TAKEOVER_TRIALS
 * (default 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { openDatabase, openJobQueue } from '@vesta/server';
import type { JobHandler, JobLogger, JobQueue, OpenedDatabase } from '@vesta/server';
import { BENCH_PG_URL, ms, percentile } from './section.js';
import type { BenchSection } from './section.js';

const JOBS = Number(process.env.BENCH_PICKUP_JOBS ?? 200);
const NATIVE_JOBS = Number(process.env.BENCH_PICKUP_NATIVE_JOBS ?? 60);
const TAKEOVER_TRIALS = Number(process.env.BENCH_TAKEOVER_TRIALS ?? 3);
const TYPE = 'bench-pickup';

const quiet: JobLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => quiet,
};

const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** Handler starts, by payload `i`. */
class Starts {
  private readonly waiting = new Map<string, (t: number) => void>();
  handler(hold?: (signal: AbortSignal) => Promise<void>): Map<string, JobHandler<unknown>> {
    const h: JobHandler<{ i: string }> = {
      parse: (p) => p as { i: string },
      run: async (p, ctx) => {
        this.started(p.i, performance.now());
        if (hold) await hold(ctx.signal);
      },
    };
    return new Map<string, JobHandler<unknown>>([[TYPE, h]]);
  }
  started(i: string, t: number): void {
    this.waiting.get(i)?.(t);
  }
  expect(i: string): Promise<number> {
    return new Promise((resolve) => this.waiting.set(i, resolve));
  }
}

async function latencies(
  n: number,
  enqueue: (i: string) => Promise<unknown>,
  starts: Starts,
): Promise<number[]> {
  const out: number[] = [];
  for (let k = -10; k < n; k++) {
    await sleep(10 + Math.random() * 30);
    const i = String(k);
    const started = starts.expect(i);
    const t0 = performance.now();
    await enqueue(i);
    const t1 = await started;
    if (k >= 0) out.push(t1 - t0); // the first 10 warm up
  }
  return out.sort((a, b) => a - b);
}

interface PgTarget {
  url: string;
  schema: string;
  drop(): Promise<void>;
}

async function pgSchema(name: string): Promise<PgTarget> {
  const schema = `${name}_${process.pid}`;
  const admin = async (q: string): Promise<void> => {
    const c = new pg.Client({ connectionString: BENCH_PG_URL });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await admin(`drop schema if exists ${schema} cascade; create schema ${schema}`);
  const u = new URL(BENCH_PG_URL);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    schema,
    drop: () =>
      admin(
        `drop schema if exists ${schema} cascade; drop schema if exists ${schema}_pgboss cascade; drop schema if exists ${schema}_native cascade`,
      ),
  };
}

async function engine(
  target: PgTarget,
  leaseMs?: number,
): Promise<{ opened: OpenedDatabase; queue: JobQueue }> {
  const opened = await openDatabase({ dataDir: os.tmpdir(), databaseUrl: target.url, poolSize: 4 });
  const queue = await openJobQueue(opened, {
    concurrency: 1,
    databaseUrl: target.url,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
  return { opened, queue };
}

async function sqliteRow(): Promise<number[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-pickup-'));
  const opened = await openDatabase(dir);
  const queue = await openJobQueue(opened, { concurrency: 1, databaseUrl: null });
  const starts = new Starts();
  queue.start(starts.handler(), quiet);
  try {
    return await latencies(
      JOBS,
      (i) => queue.enqueue(TYPE, { i }, { fairnessKey: `u${Number(i) % 4}` }),
      starts,
    );
  } finally {
    await queue.stop(0);
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function engineRow(target: PgTarget): Promise<number[]> {
  const api = await engine(target);
  const worker = await engine(target);
  const starts = new Starts();
  worker.queue.start(starts.handler(), quiet);
  try {
    return await latencies(
      JOBS,
      (i) => api.queue.enqueue(TYPE, { i }, { fairnessKey: `u${Number(i) % 4}` }),
      starts,
    );
  } finally {
    for (const e of [api, worker]) {
      await e.queue.stop(0);
      await e.opened.close();
    }
  }
}

async function nativeRow(target: PgTarget): Promise<number[]> {
  const boss = new PgBoss({ connectionString: target.url, schema: `${target.schema}_native`, max: 4 });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue(TYPE);
  const starts = new Starts();
  await boss.work<{ i: string }>(TYPE, { pollingIntervalSeconds: 0.5, batchSize: 1 }, async (jobs) => {
    const t = performance.now();
    for (const j of jobs) starts.started(j.data.i, t);
    return Promise.resolve();
  });
  try {
    return await latencies(NATIVE_JOBS, (i) => boss.send(TYPE, { i }), starts);
  } finally {
    await boss.stop({ graceful: false, wait: true, close: true });
  }
}

/** Kill → the surviving worker's handler start, per trial (2 s leases). */
async function takeover(target: PgTarget): Promise<number[]> {
  const leaseMs = 2000;
  const out: number[] = [];
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  try {
    for (let k = 0; k < TAKEOVER_TRIALS; k++) {
      const i = `t${k}`;
      const dying = await engine(target, leaseMs);
      const dyingStarts = new Starts();
      // Holds its job until aborted (the process dies under it).
      dying.queue.start(
        dyingStarts.handler(
          (signal) =>
            new Promise<void>((_r, reject) =>
              signal.addEventListener('abort', () => reject(new Error('aborted'))),
            ),
        ),
        quiet,
      );
      const claimed = dyingStarts.expect(i);
      await dying.queue.enqueue(TYPE, { i });
      await claimed;
      // Another worker, idle, then the first one dies: its pool and listener connection go.
      const survivor = await engine(target, leaseMs);
      const starts = new Starts();
      const taken = starts.expect(i);
      survivor.queue.start(starts.handler(), quiet);
      const listener = (dying.queue as unknown as { listenerName: string }).listenerName;
      await dying.opened.close();
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [listener],
      );
      const t0 = performance.now();
      out.push((await taken) - t0);
      await dying.queue.stop(0).catch(() => undefined);
      await survivor.queue.stop(0);
      await survivor.opened.close();
    }
  } finally {
    await admin.end();
  }
  return out.sort((a, b) => a - b);
}

export const pickup: BenchSection = {
  name: 'pickup',
  title: 'Job pickup latency (enqueue → handler start) and takeover of a dead worker’s job',
  async run() {
    const target = await pgSchema('bench_pickup');
    try {
      console.error(`  sqlite queue: ${JOBS} jobs`);
      const sqlite = await sqliteRow();
      console.error(`  job engine (PostgreSQL): ${JOBS} jobs`);
      const eng = await engineRow(target);
      console.error(`  pg-boss work() polling 0.5 s: ${NATIVE_JOBS} jobs`);
      const native = await nativeRow(target);
      console.error(`  takeover: ${TAKEOVER_TRIALS} trials`);
      const take = await takeover(target);
      const row = (name: string, v: number[]) =>
        `| ${name} | ${v.length} | ${ms(percentile(v, 50))} | ${ms(percentile(v, 99))} | ${ms(v[v.length - 1] ?? NaN)} |`;
      return [
        '| queue | jobs | p50 | p99 | max |',
        '| --- | ---: | ---: | ---: | ---: |',
        row('SQLite queue (embedded, one process)', sqlite),
        row('job engine on PostgreSQL (api → worker instance, NOTIFY)', eng),
        row("pg-boss's own work() loop (polling 0.5 s)", native),
        '',
        `Takeover (job engine, 2 s lease): a worker dies mid-job → another worker's handler starts it after ` +
          `${take.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')} (bound: lease + a third of it for the reaper).`,
      ].join('\n');
    } finally {
      await target.drop();
    }
  },
};
