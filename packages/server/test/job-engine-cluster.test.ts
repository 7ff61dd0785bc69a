/**
 * The job engine as a cluster (PostgreSQL only: the embedded queue has one process): two queue
 * instances, each on its own pool and listener connection as two processes would be — a job
 * running in one is aborted by a cancel in the other (NOTIFY, or the next heartbeat when the notice
 * was missed); a periodic duty runs in exactly one of them and moves to the other when its holder
 * dies (several duties starting together take the leadership once); claims side by side never run
 * a job twice.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobQueue } from '../src/ports/job-queue.js';
import { waitFor } from './helpers/core-app.js';
import {
  handler,
  queueHarness,
  silent,
  untilAborted,
  untilState as harnessUntilState,
} from './helpers/job-queue-harness.js';
import type { NormalState, QueueHarness } from './helpers/job-queue-harness.js';

let h: QueueHarness;

beforeEach(async () => {
  h = await queueHarness('postgres');
});

afterEach(async () => {
  await h.close();
});

const untilState = (id: string, state: NormalState, ms = 10_000) => harnessUntilState(h, id, state, ms);

describe('job engine across processes (two queues on two pools)', () => {
  async function twoQueues(options: { leaseMs?: number } = {}): Promise<[JobQueue, JobQueue]> {
    const a = await h.isolatedQueue(options);
    const b = await h.isolatedQueue(options);
    return [a.queue, b.queue];
  }

  it('aborts a job running in another process when its subject is cancelled', async () => {
    const [worker, api] = await twoQueues();
    let aborted = false;
    worker.start(
      untilAborted(() => (aborted = true)),
      silent,
    );
    const id = await api.enqueue('t', { n: 'remote' }, { subject: 'video:9' });
    await untilState(id, 'running');
    const t0 = Date.now();
    expect(await api.cancelBySubject('video:9')).toBe(1);
    // Resolved only once the remote handler stopped; the notice came by NOTIFY, well before a heartbeat.
    expect(aborted).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await h.job(id)).state).toBe('cancelled');
    const leases = await h.opened.db.selectFrom('job_leases').selectAll().execute();
    expect(leases).toEqual([]);
  });

  it('aborts a remote job at its next heartbeat when the notice was missed', async () => {
    const [worker] = await twoQueues({ leaseMs: 600 });
    let aborted = false;
    worker.start(
      untilAborted(() => (aborted = true)),
      silent,
    );
    const id = await worker.enqueue('t', { n: 'remote' }, { subject: 'video:10' });
    await untilState(id, 'running');
    // What cancelBySubject writes, without the NOTIFY.
    await h.opened.db.updateTable('job_leases').set({ cancel_requested: 1 }).execute();
    await waitFor(
      () => Promise.resolve(aborted),
      (x) => x,
      5000,
    );
  });

  it('runs each periodic duty in one process of the cluster, and another takes over when it dies', async () => {
    const a = await h.isolatedQueue();
    const b = await h.isolatedQueue();
    const runs = { a: 0, b: 0 };
    a.queue.every('duty', 50, () => Promise.resolve(void runs.a++), silent);
    b.queue.every('duty', 50, () => Promise.resolve(void runs.b++), silent);
    await new Promise((r) => setTimeout(r, 800));
    // Exactly one of them ran it.
    expect(Math.min(runs.a, runs.b)).toBe(0);
    expect(Math.max(runs.a, runs.b)).toBeGreaterThanOrEqual(5);
    const [leader, other] = runs.a > 0 ? [a, 'b' as const] : [b, 'a' as const];
    await leader.kill();
    await waitFor(
      () => Promise.resolve(runs[other]),
      (n) => n >= 3,
      10_000,
    );
  });

  it('takes the leadership once when several duties start together (one query at a time on the listener)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const { queue } = await h.isolatedQueue();
      const infos: string[] = [];
      const log = { ...silent, info: (a: unknown, b?: string) => void infos.push(b ?? String(a)) };
      queue.start(
        handler(() => Promise.resolve()),
        log,
      );
      const runs = { x: 0, y: 0, z: 0 };
      for (const name of ['x', 'y', 'z'] as const)
        queue.every(name, 50, () => Promise.resolve(void runs[name]++), silent);
      await waitFor(
        () => Promise.resolve(runs),
        (r) => r.x > 0 && r.y > 0 && r.z > 0,
        10_000,
      );
      expect(infos.filter((m) => m.includes('now runs the periodic duties'))).toHaveLength(1);
      expect(warnings.filter((m) => m.includes('already executing a query'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('never runs one job twice when two processes claim side by side', async () => {
    const [a, b] = await twoQueues();
    const seen: string[] = [];
    const hd = handler(async (p) => {
      seen.push(p.n);
      await new Promise((r) => setTimeout(r, 5));
    });
    for (let i = 0; i < 60; i++) await a.enqueue('t', { n: String(i) }, { fairnessKey: `u${i % 3}` });
    a.start(hd, silent);
    b.start(hd, silent);
    await waitFor(
      () => Promise.resolve(seen.length),
      (n) => n >= 60,
      20_000,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.length).toBe(60);
    expect(new Set(seen).size).toBe(60);
    const { rows } = await sql<{ n: number }>`select count(*) as n from job_leases`.execute(h.opened.db);
    expect(Number(rows[0]?.n)).toBe(0);
  });
});
