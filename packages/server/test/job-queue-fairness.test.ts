/**
 * Fair claims of both JobQueue adapters (the harness picks the vitest project's: the SQLite queue
 * on a real file, the job engine on PostgreSQL), by the rule of `EnqueueOptions.fairnessKey`: one user's backlog postpones another user's ready job by at most
 * one job per slot, keys take turns, an interactive job goes before its own user's batch jobs, and
 * a lone user still gets every slot.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobHandler } from '../src/ports/job-queue.js';
import { waitFor } from './helpers/core-app.js';
import { queueHarness, silent } from './helpers/job-queue-harness.js';
import type { QueueHarness } from './helpers/job-queue-harness.js';
import { TEST_DIALECT } from './helpers/test-database.js';

let h: QueueHarness;

beforeEach(async () => {
  h = await queueHarness();
});

afterEach(async () => {
  await h.close();
});

let done = 0;

/** A queue whose handler records the order jobs start in (payload `n`) and holds each `holdMs`. */
async function recordingQueue(concurrency: number, holdMs = 0) {
  const started: string[] = [];
  let running = 0;
  let peak = 0;
  done = 0;
  const q = await h.queue({ concurrency });
  const hd: JobHandler<{ n: string }> = {
    parse: (p) => p as { n: string },
    run: async (p) => {
      started.push(p.n);
      peak = Math.max(peak, ++running);
      await new Promise((r) => setTimeout(r, holdMs));
      running--;
      done++;
    },
  };
  const start = () => q.start(new Map<string, JobHandler<unknown>>([['t', hd]]), silent);
  return { q, started, start, peak: () => peak };
}

const finished = (n: number) =>
  waitFor(
    () => Promise.resolve(done),
    (d) => d >= n,
    30_000,
  );

describe(`fair claims (${TEST_DIALECT === 'postgres' ? 'job engine on PostgreSQL' : 'SQLite queue'})`, () => {
  it("runs B's one job within one claim of A's backlog of 300 (queued before B's)", async () => {
    const { q, started, start } = await recordingQueue(1);
    for (let i = 0; i < 300; i++) await q.enqueue('t', { n: `a${i}` }, { fairnessKey: 'A' });
    await q.enqueue('t', { n: 'b0' }, { fairnessKey: 'B' });
    start();
    await finished(301);
    // A's oldest went first (nobody had been served), then B's, then the rest of A's in order.
    expect(started.slice(0, 3)).toEqual(['a0', 'b0', 'a1']);
    expect(started.filter((n) => n.startsWith('a'))).toEqual(Array.from({ length: 300 }, (_, i) => `a${i}`));
  });

  it("runs B's job enqueued while A's backlog drains after at most one more of A's per slot", async () => {
    const { q, started, start } = await recordingQueue(2, 5);
    start();
    for (let i = 0; i < 200; i++) await q.enqueue('t', { n: `a${i}` }, { fairnessKey: 'A' });
    await finished(20);
    const before = started.length;
    await q.enqueue('t', { n: 'b0' }, { fairnessKey: 'B' });
    await waitFor(
      () => Promise.resolve(started.includes('b0')),
      (x) => x,
      10_000,
    );
    // Both slots may have been refilled with A's jobs between the count and the enqueue: two more.
    expect(started.indexOf('b0') - before).toBeLessThanOrEqual(2);
  });

  it('takes turns between keys: A,A,A,B,B,C queued in that order run A,B,C,A,B,A on one slot', async () => {
    const { q, started, start } = await recordingQueue(1);
    for (const [n, key] of [
      ['a1', 'A'],
      ['a2', 'A'],
      ['a3', 'A'],
      ['b1', 'B'],
      ['b2', 'B'],
      ['c1', 'C'],
    ] as const)
      await q.enqueue('t', { n }, { fairnessKey: key });
    start();
    await finished(6);
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it("runs a user's interactive job before that user's older batch jobs, FIFO within each lane", async () => {
    const { q, started, start } = await recordingQueue(1);
    await q.enqueue('t', { n: 'batch1' }, { fairnessKey: 'A', lane: 'batch' });
    await q.enqueue('t', { n: 'batch2' }, { fairnessKey: 'A' });
    await q.enqueue('t', { n: 'score1' }, { fairnessKey: 'A', lane: 'interactive' });
    await q.enqueue('t', { n: 'score2' }, { fairnessKey: 'A', lane: 'interactive' });
    start();
    await finished(4);
    expect(started).toEqual(['score1', 'score2', 'batch1', 'batch2']);
  });

  it('gives the key with fewer running jobs the next slot, and a lone key every slot', async () => {
    const { q, started, start, peak } = await recordingQueue(3, 30);
    for (let i = 0; i < 6; i++) await q.enqueue('t', { n: `a${i}` }, { fairnessKey: 'A' });
    await q.enqueue('t', { n: 'b0' }, { fairnessKey: 'B' });
    start();
    await finished(7);
    // Three slots: A's first, then B (none running), then A again; the lone key A fills all three.
    expect(started.slice(0, 3)).toEqual(['a0', 'b0', 'a1']);
    expect(peak()).toBe(3);
  });
});
