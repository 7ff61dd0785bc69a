/**
 * The SQLite job queue on a real database file: claims, retries with classification, permanent
 * failure, cancellation, leases that run out, and jobs cut off by shutdown resuming in a new
 * queue (a restart). Also the job catalogue check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteJobQueue } from '../src/adapters/job-queue/sqlite.js';
import { openDatabase } from '../src/db/connection.js';
import { dropTestDatabase, testDatabaseTarget } from './helpers/test-database.js';
import type { OpenedDatabase } from '../src/db/connection.js';
import { buildJobHandlers } from '../src/jobs/catalogue.js';
import { PermanentJobError } from '../src/ports/job-queue.js';
import type { JobHandler } from '../src/ports/job-queue.js';
import { waitFor } from './helpers/core-app.js';

const silent: FastifyBaseLogger = {
  level: 'silent',
  fatal: () => undefined,
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
  silent: () => undefined,
  child: () => silent,
};

let dir: string;
let opened: OpenedDatabase;
const queues: SqliteJobQueue[] = [];

function queue(options: { leaseMs?: number } = {}): SqliteJobQueue {
  const q = new SqliteJobQueue(opened.db, { concurrency: 2, pollMs: 20, ...options });
  queues.push(q);
  return q;
}

function handler(
  run: JobHandler<{ n: string }>['run'],
  extra: Partial<JobHandler<{ n: string }>> = {},
): Map<string, JobHandler<unknown>> {
  const h: JobHandler<{ n: string }> = { parse: (p) => p as { n: string }, run, ...extra };
  return new Map<string, JobHandler<unknown>>([['t', h]]);
}

const startWith = (q: SqliteJobQueue, handlers: Map<string, JobHandler<unknown>>): void =>
  q.start(handlers, silent);

const jobRow = (id: string) =>
  opened.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-queue-'));
  opened = await openDatabase(await testDatabaseTarget(dir));
});

afterEach(async () => {
  for (const q of queues.splice(0)) await q.stop(0);
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase(dir);
});

describe('SqliteJobQueue', () => {
  it('runs a job once with its payload and marks it succeeded', async () => {
    const seen: string[] = [];
    const q = queue();
    startWith(
      q,
      handler((p) => Promise.resolve(void seen.push(p.n))),
    );
    const id = await q.enqueue('t', { n: 'one' });
    await waitFor(
      () => jobRow(id),
      (j) => j.state === 'succeeded',
      5000,
    );
    expect(seen).toEqual(['one']);
    expect((await jobRow(id)).attempts).toBe(1);
  });

  it('retries a failing job with backoff, then succeeds', async () => {
    let calls = 0;
    const q = queue();
    startWith(
      q,
      handler(() => {
        calls++;
        return calls === 1 ? Promise.reject(new Error('transient')) : Promise.resolve();
      }),
    );
    const id = await q.enqueue('t', { n: 'x' });
    await waitFor(
      () => jobRow(id),
      (j) => j.state === 'queued' && j.attempts === 1 && j.last_error === 'transient',
      5000,
    );
    // Skip the backoff wait.
    await opened.db.updateTable('jobs').set({ run_at: 0 }).where('id', '=', id).execute();
    await waitFor(
      () => jobRow(id),
      (j) => j.state === 'succeeded',
      5000,
    );
    expect(calls).toBe(2);
  });

  it('fails at once on a permanent error, and after the last attempt otherwise, calling onFailed once', async () => {
    const failed: string[] = [];
    const q = queue();
    startWith(
      q,
      handler(
        (p) => Promise.reject(p.n === 'perm' ? new PermanentJobError('bad payload') : new Error('always')),
        { onFailed: (p) => Promise.resolve(void failed.push(p.n)) },
      ),
    );
    const perm = await q.enqueue('t', { n: 'perm' });
    await waitFor(
      () => jobRow(perm),
      (j) => j.state === 'failed',
      5000,
    );
    expect((await jobRow(perm)).attempts).toBe(1);
    const last = await q.enqueue('t', { n: 'last' }, { maxAttempts: 1 });
    await waitFor(
      () => jobRow(last),
      (j) => j.state === 'failed',
      5000,
    );
    expect(failed.sort()).toEqual(['last', 'perm']);
  });

  it('cancels queued and running jobs by subject; the running one sees its signal aborted', async () => {
    let aborted = false;
    const q = queue();
    startWith(
      q,
      handler(
        (_p, ctx) =>
          new Promise<void>((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('aborted'));
            });
          }),
      ),
    );
    const running = await q.enqueue('t', { n: 'r' }, { subject: 'video:1' });
    await waitFor(
      () => jobRow(running),
      (j) => j.state === 'running',
      5000,
    );
    const later = await q.enqueue('t', { n: 'q' }, { subject: 'video:1', runAt: Date.now() + 60_000 });
    expect(await q.cancelBySubject('video:1')).toBe(2);
    expect(aborted).toBe(true);
    expect((await jobRow(running)).state).toBe('cancelled');
    expect((await jobRow(later)).state).toBe('cancelled');
  });

  it('puts jobs cut off by shutdown back in the queue, and a restarted queue runs them', async () => {
    const q1 = queue();
    startWith(
      q1,
      handler(
        (_p, ctx) =>
          new Promise<void>((_r, reject) =>
            ctx.signal.addEventListener('abort', () => reject(new Error('cut off'))),
          ),
      ),
    );
    const id = await q1.enqueue('t', { n: 'long' });
    await waitFor(
      () => jobRow(id),
      (j) => j.state === 'running',
      5000,
    );
    await q1.stop(50);
    const after = await jobRow(id);
    expect(after).toMatchObject({ state: 'queued', attempts: 0, lease_until: null });
    // No new claims after stop.
    const idle = await q1.enqueue('t', { n: 'not-claimed' });
    await new Promise((r) => setTimeout(r, 100));
    expect((await jobRow(idle)).state).toBe('queued');

    const done: string[] = [];
    const q2 = queue();
    startWith(
      q2,
      handler((p) => Promise.resolve(void done.push(p.n))),
    );
    await waitFor(
      () => jobRow(id),
      (j) => j.state === 'succeeded',
      5000,
    );
    await waitFor(
      () => jobRow(idle),
      (j) => j.state === 'succeeded',
      5000,
    );
    expect(done.sort()).toEqual(['long', 'not-claimed']);
  });

  it('lets a graceful stop wait for a job that finishes within the grace period', async () => {
    const q = queue();
    startWith(
      q,
      handler(() => new Promise<void>((resolve) => setTimeout(resolve, 150))),
    );
    const id = await q.enqueue('t', { n: 'short' });
    await waitFor(
      () => jobRow(id),
      (j) => j.state === 'running',
      5000,
    );
    await q.stop(5000);
    expect((await jobRow(id)).state).toBe('succeeded');
  });

  it('requeues a job whose lease ran out (its process died)', async () => {
    const t = Date.now();
    await opened.db
      .insertInto('jobs')
      .values({
        id: 'orphan',
        type: 't',
        payload: '{"n":"o"}',
        subject: null,
        state: 'running',
        attempts: 1,
        max_attempts: 3,
        run_at: t,
        lease_until: t - 1000,
        locked_by: 'dead-worker',
        last_error: null,
        created_at: t,
        updated_at: t,
      })
      .execute();
    const ran: string[] = [];
    const q = queue({ leaseMs: 300 });
    startWith(
      q,
      handler((p) => Promise.resolve(void ran.push(p.n))),
    );
    await waitFor(
      () => jobRow('orphan'),
      (j) => j.state === 'succeeded',
      5000,
    );
    expect(ran).toEqual(['o']);
    expect((await jobRow('orphan')).attempts).toBe(2);
  });

  it('drops the outcome of a worker whose job was taken over by another (owner fence)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const q = queue();
    startWith(
      q,
      handler(() => gate),
    );
    const id = await q.enqueue('t', { n: 'fenced' });
    await waitFor(
      () => jobRow(id),
      (j) => j.state === 'running',
      5000,
    );
    // Its lease ran out meanwhile and another worker claimed the job.
    await opened.db.updateTable('jobs').set({ locked_by: 'other-worker' }).where('id', '=', id).execute();
    release();
    await q.stop(1000);
    const row = await jobRow(id);
    expect(row).toMatchObject({ state: 'running', locked_by: 'other-worker' });
  });
});

describe('job catalogue', () => {
  const h: JobHandler<unknown> = { parse: (p) => p, run: () => Promise.resolve() };
  it('needs exactly one handler per job type', () => {
    expect(() => buildJobHandlers([{ type: 'evaluate-video', handler: h }])).not.toThrow();
    expect(() => buildJobHandlers([])).toThrow(/no handler for job type evaluate-video/);
    expect(() =>
      buildJobHandlers([
        { type: 'evaluate-video', handler: h },
        { type: 'evaluate-video', handler: h },
      ]),
    ).toThrow(/two handlers/);
    expect(() =>
      buildJobHandlers([
        { type: 'evaluate-video', handler: h },
        { type: 'nope' as 'evaluate-video', handler: h },
      ]),
    ).toThrow(/unknown job type nope/);
  });
});
