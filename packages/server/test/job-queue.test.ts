/**
 * The JobQueue contract, one suite for both adapters (the harness picks the adapter of the vitest
 * project: the embedded queue on a SQLite file, the job engine — pg-boss with Vesta's fair claim
 * and leases — on PostgreSQL): claims, retries with back-off, permanent failure with one
 * `onFailed`, cancellation, enqueue inside the caller's transaction, shutdown that puts jobs back,
 * a dead worker's job taken over, the owner fence, periodic duties and stats. The job engine's
 * cluster behaviour (two queue instances on two pools) is in `job-engine-cluster.test.ts`. Also the
 * job catalogue check, and when the scoring job waits for its dependencies instead of failing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildJobHandlers } from '../src/jobs/catalogue.js';
import { evaluateVideoJob } from '../src/jobs/evaluate-video.js';
import type { ClipEvaluationService } from '../src/services/clip-evaluation.service.js';
import { DependencyUnavailableJobError, PermanentJobError } from '../src/ports/job-queue.js';
import type { JobHandler } from '../src/ports/job-queue.js';
import { waitFor } from './helpers/core-app.js';
import {
  handler,
  queueHarness,
  silent,
  untilAborted,
  untilState as harnessUntilState,
} from './helpers/job-queue-harness.js';
import type { NormalState, QueueHarness } from './helpers/job-queue-harness.js';
import { TEST_DIALECT } from './helpers/test-database.js';

let h: QueueHarness;

beforeEach(async () => {
  h = await queueHarness();
});

afterEach(async () => {
  await h.close();
});

const untilState = (id: string, state: NormalState, ms = 10_000) => harnessUntilState(h, id, state, ms);

describe(`JobQueue contract (${TEST_DIALECT === 'postgres' ? 'job engine on PostgreSQL' : 'SQLite queue'})`, () => {
  it('runs a job once with its payload and marks it succeeded', async () => {
    const seen: string[] = [];
    const q = await h.queue();
    q.start(
      handler((p) => Promise.resolve(void seen.push(p.n))),
      silent,
    );
    const id = await q.enqueue('t', { n: 'one' });
    await untilState(id, 'succeeded');
    expect(seen).toEqual(['one']);
    expect((await h.job(id)).attempts).toBe(1);
  });

  it('retries a failing job after a back-off, then succeeds', async () => {
    let calls = 0;
    const q = await h.queue();
    q.start(
      handler(() => {
        calls++;
        return calls === 1 ? Promise.reject(new Error('transient')) : Promise.resolve();
      }),
      silent,
    );
    const id = await q.enqueue('t', { n: 'x' });
    const waiting = await waitFor(
      () => h.job(id),
      (j) => j.state === 'queued' && j.attempts === 1 && j.lastError === 'transient',
      10_000,
    );
    // Backed off: not ready again at once.
    expect(waiting.runAt).toBeGreaterThan(Date.now() + 200);
    await h.readyNow(id);
    await untilState(id, 'succeeded');
    expect(calls).toBe(2);
    expect((await h.job(id)).attempts).toBe(2);
  });

  it('puts a job whose dependency is unavailable back for later, as often as needed, without using up an attempt', async () => {
    let calls = 0;
    const q = await h.queue();
    q.start(
      handler(() => {
        calls++;
        if (calls === 1)
          return Promise.reject(new DependencyUnavailableJobError('the blob store is unavailable', 1500));
        if (calls <= 3) return Promise.reject(new DependencyUnavailableJobError('still unavailable', 100));
        return Promise.resolve();
      }),
      silent,
    );
    // Two attempts at most: three deferrals would have failed it, had they counted.
    const id = await q.enqueue('t', { n: 'x' }, { maxAttempts: 2 });
    const waiting = await waitFor(
      () => h.job(id),
      (j) => j.state === 'queued' && j.lastError === 'the blob store is unavailable',
      10_000,
    );
    expect(waiting.attempts).toBe(0);
    // Not ready again before its delay.
    expect(waiting.runAt).toBeGreaterThan(Date.now() + 500);
    await untilState(id, 'succeeded', 15_000);
    expect(calls).toBe(4);
    expect((await h.job(id)).attempts).toBe(1);
    const runs = (await q.stats()).runs;
    expect(runs.find((r) => r.outcome === 'deferred')).toMatchObject({ type: 't', count: 3 });
    expect(runs.find((r) => r.outcome === 'failed' || r.outcome === 'retried')).toBeUndefined();
  });

  it('fails at once on a permanent error, and after the last attempt otherwise, calling onFailed once', async () => {
    const failed: string[] = [];
    const q = await h.queue();
    q.start(
      handler(
        (p) => Promise.reject(p.n === 'perm' ? new PermanentJobError('bad payload') : new Error('always')),
        { onFailed: (p) => Promise.resolve(void failed.push(p.n)) },
      ),
      silent,
    );
    const perm = await q.enqueue('t', { n: 'perm' });
    await untilState(perm, 'failed');
    expect((await h.job(perm)).attempts).toBe(1);
    const last = await q.enqueue('t', { n: 'last' }, { maxAttempts: 2 });
    await waitFor(
      () => h.job(last),
      (j) => j.state === 'queued' && j.attempts === 1,
      10_000,
    );
    await h.readyNow(last);
    await untilState(last, 'failed');
    expect((await h.job(last)).attempts).toBe(2);
    await new Promise((r) => setTimeout(r, 200));
    expect(failed.sort()).toEqual(['last', 'perm']);
  });

  it('cancels queued and running jobs by subject; the running one sees its signal aborted', async () => {
    let aborted = false;
    const q = await h.queue();
    q.start(
      untilAborted(() => (aborted = true)),
      silent,
    );
    const running = await q.enqueue('t', { n: 'r' }, { subject: 'video:1' });
    await untilState(running, 'running');
    const later = await q.enqueue('t', { n: 'q' }, { subject: 'video:1', runAt: Date.now() + 60_000 });
    const other = await q.enqueue('t', { n: 'o' }, { subject: 'video:2', runAt: Date.now() + 60_000 });
    expect(await q.cancelBySubject('video:1')).toBe(2);
    expect(aborted).toBe(true);
    expect((await h.job(running)).state).toBe('cancelled');
    expect((await h.job(later)).state).toBe('cancelled');
    expect((await h.job(other)).state).toBe('queued');
  });

  it("enqueues inside the caller's transaction: the job exists exactly when the change commits", async () => {
    const ran: string[] = [];
    const q = await h.queue();
    q.start(
      handler((p) => Promise.resolve(void ran.push(p.n))),
      silent,
    );
    await expect(
      h.opened.db.transaction().execute(async (trx) => {
        await q.enqueue('t', { n: 'rolled-back' }, { executor: trx });
        throw new Error('the caller changes its mind');
      }),
    ).rejects.toThrow(/changes its mind/);
    let committed = '';
    await h.opened.db.transaction().execute(async (trx) => {
      committed = await q.enqueue('t', { n: 'committed' }, { executor: trx });
      // Not visible outside the transaction before it commits (SQLite has one connection, which
      // the transaction holds: nothing else reads meanwhile).
      if (TEST_DIALECT === 'postgres') expect(await h.count()).toBe(0);
    });
    await untilState(committed, 'succeeded');
    await new Promise((r) => setTimeout(r, 200));
    expect(ran).toEqual(['committed']);
    expect(await h.count()).toBe(1);
  });

  it('puts jobs cut off by shutdown back in the queue, and a restarted queue runs them', async () => {
    const q1 = await h.queue();
    q1.start(untilAborted(), silent);
    const id = await q1.enqueue('t', { n: 'long' });
    await untilState(id, 'running');
    await q1.stop(50);
    expect(await h.job(id)).toMatchObject({ state: 'queued', attempts: 0 });
    // No new claims after stop.
    const idle = await q1.enqueue('t', { n: 'not-claimed' }).catch(() => null);
    const q2 = await h.queue();
    const idle2 = idle ?? (await q2.enqueue('t', { n: 'not-claimed' }));
    await new Promise((r) => setTimeout(r, 150));
    expect((await h.job(idle2)).state).toBe('queued');

    const done: string[] = [];
    q2.start(
      handler((p) => Promise.resolve(void done.push(p.n))),
      silent,
    );
    await untilState(id, 'succeeded');
    await untilState(idle2, 'succeeded');
    expect(done.sort()).toEqual(['long', 'not-claimed']);
    expect((await h.job(id)).attempts).toBe(1);
  });

  it('lets a graceful stop wait for a job that finishes within the grace period', async () => {
    const q = await h.queue();
    q.start(
      handler(() => new Promise<void>((resolve) => setTimeout(resolve, 150))),
      silent,
    );
    const id = await q.enqueue('t', { n: 'short' });
    await untilState(id, 'running');
    await q.stop(5000);
    expect((await h.job(id)).state).toBe('succeeded');
  });

  it('hands the job of a worker that died (no more heartbeats) to another worker within about one lease', async () => {
    const leaseMs = 600;
    const dead = await h.isolatedQueue({ leaseMs });
    dead.queue.start(untilAborted(), silent);
    const id = await dead.queue.enqueue('t', { n: 'orphan' });
    await untilState(id, 'running');
    const ran: string[] = [];
    const survivor = await h.queue({ leaseMs });
    survivor.start(
      handler((p) => Promise.resolve(void ran.push(p.n))),
      silent,
    );
    const killedAt = Date.now();
    await dead.kill();
    await untilState(id, 'succeeded', 15_000);
    const takeoverMs = Date.now() - killedAt;
    expect(ran).toEqual(['orphan']);
    expect((await h.job(id)).attempts).toBe(2);
    // The lease runs out within `leaseMs` of the last heartbeat; the reaper looks every third of it.
    expect(takeoverMs).toBeLessThan(leaseMs * 2 + 1500);
  });

  it('drops the outcome of a worker whose job was taken over by another (owner fence)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const q = await h.queue();
    q.start(
      handler(() => gate),
      silent,
    );
    const id = await q.enqueue('t', { n: 'fenced' });
    await untilState(id, 'running');
    // Its lease ran out meanwhile and another worker claimed the job.
    await h.stealJob(id);
    release();
    await q.stop(1000);
    expect((await h.job(id)).state).toBe('running');
  });

  it('runs a periodic duty soon after it is added and then every interval, until stop', async () => {
    const q = await h.queue();
    let runs = 0;
    q.every('count', 50, () => Promise.resolve(void runs++), silent);
    await waitFor(
      () => Promise.resolve(runs),
      (n) => n >= 3,
      5000,
    );
    await q.stop(0);
    const after = runs;
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toBe(after);
  });

  it('reports queue depth by type and state, and finished runs by outcome', async () => {
    const q = await h.queue();
    q.start(
      handler((p) => (p.n === 'bad' ? Promise.reject(new PermanentJobError('no')) : Promise.resolve())),
      silent,
    );
    const ok = await q.enqueue('t', { n: 'ok' });
    const bad = await q.enqueue('t', { n: 'bad' });
    await q.enqueue('t', { n: 'later' }, { runAt: Date.now() + 60_000 });
    await untilState(ok, 'succeeded');
    await untilState(bad, 'failed');
    const s = await q.stats();
    const depth = (state: string) =>
      s.depth.filter((d) => d.type === 't' && d.state === state).reduce((n, d) => n + d.count, 0);
    expect(depth(TEST_DIALECT === 'postgres' ? 'completed' : 'succeeded')).toBe(1);
    expect(depth('failed')).toBe(1);
    expect(depth(TEST_DIALECT === 'postgres' ? 'created' : 'queued')).toBe(1);
    expect(s.runs.find((r) => r.outcome === 'succeeded')).toMatchObject({ type: 't', count: 1 });
    expect(s.runs.find((r) => r.outcome === 'failed')).toMatchObject({ type: 't', count: 1 });
    for (const r of s.runs) expect(r.seconds).toBeGreaterThanOrEqual(0);
  });
});

describe('job catalogue', () => {
  const hd: JobHandler<unknown> = { parse: (p) => p, run: () => Promise.resolve() };
  it('needs exactly one handler per job type', () => {
    expect(() => buildJobHandlers([{ type: 'evaluate-video', handler: hd }])).not.toThrow();
    expect(() => buildJobHandlers([])).toThrow(/no handler for job type evaluate-video/);
    expect(() =>
      buildJobHandlers([
        { type: 'evaluate-video', handler: hd },
        { type: 'evaluate-video', handler: hd },
      ]),
    ).toThrow(/two handlers/);
    expect(() =>
      buildJobHandlers([
        { type: 'evaluate-video', handler: hd },
        { type: 'nope' as 'evaluate-video', handler: hd },
      ]),
    ).toThrow(/unknown job type nope/);
  });
});

describe('evaluate-video job and an unavailable dependency', () => {
  const context = { jobId: 'j', attempt: 1, signal: new AbortController().signal, log: silent };
  const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const job = (error: Error, unavailable: boolean) =>
    evaluateVideoJob(
      {
        evaluate: () => Promise.reject(error),
        giveUp: () => Promise.resolve(),
      } as unknown as ClipEvaluationService,
      { dependencyUnavailable: () => Promise.resolve(unavailable) },
    ).handler;

  it('waits (no attempt used) when the clip could not be read because the store is down', async () => {
    const err = await job(down, true)
      .run({ videoId: 'v' }, context)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyUnavailableJobError);
    expect((err as Error).cause).toBe(down);
  });

  it('counts the attempt when the store answers (a failure of this clip) or the error is not one of reaching it', async () => {
    expect(
      await job(down, false)
        .run({ videoId: 'v' }, context)
        .catch((e: unknown) => e),
    ).toBe(down);
    const other = new Error('decoder crashed');
    expect(
      await job(other, true)
        .run({ videoId: 'v' }, context)
        .catch((e: unknown) => e),
    ).toBe(other);
  });
});
