/**
 * A runner's `complete` queues the clip, enqueues its evaluation and moves the task to `evaluating`
 * in one transaction: when the lease ends while the clip is being verified, none of the three
 * happens (no evaluation job is left behind to be cancelled after the fact); otherwise all three do.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { jobsAbout } from './helpers/job-queue-harness.js';

let server: CoreTestServer;

beforeAll(async () => {
  // No worker: the evaluation job stays in the queue where the test can see it.
  server = await startCoreServer({ env: { VESTA_RUNNER_LEASE_SECONDS: '60' } });
});

afterAll(async () => {
  await server?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = Record<string, any>;

async function call(method: 'GET' | 'POST', url: string, key: string, body?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, text: res.body, json: (): Json => res.json() };
}

/** Registers a runner, creates a one-clip run and claims its task; uploads a real clip for it. */
async function claimedTaskWithUpload(key: string): Promise<{ task: Json; videoId: string }> {
  const runner = (
    await call('POST', '/api/v1/runners', key, { name: 'tx-runner', models: ['vesta-demo'] })
  ).json();
  const run = await call('POST', '/api/v1/bench', key, {
    name: 'tx',
    model_id: 'vesta-demo',
    dimensions: ['subject_consistency'],
    samples_per_prompt: 1,
    prompts_per_dimension: 1,
  });
  expect(run.status, run.text).toBe(201);
  const claimed = await call('POST', `/api/v1/runners/${runner.id}/claim`, key, { waitSeconds: 0 });
  expect(claimed.status, claimed.text).toBe(200);
  const task = claimed.json().task as Json;
  const up = await call('POST', `/api/v1/runner-tasks/${task.id}/upload-url`, key, {
    leaseId: task.lease.id,
    fileName: 'clip.mp4',
    contentType: 'video/mp4',
  });
  expect(up.status, up.text).toBe(201);
  const url = new URL(up.json().uploadUrl as string);
  const put = await server.app.inject({
    method: 'PUT',
    url: `${url.pathname}${url.search}`,
    headers: { 'content-type': 'video/mp4' },
    payload: readFileSync(clip('zeroscope-v2__burning-lamborghini-rainbow.mp4')),
  });
  expect(put.statusCode, put.body).toBe(200);
  return { task, videoId: up.json().videoId as string };
}

const jobsFor = (videoId: string) => jobsAbout(server.deps, `video:${videoId}`);
const videoState = async (videoId: string) =>
  (
    await server.deps.db
      .selectFrom('videos')
      .select('state')
      .where('id', '=', videoId)
      .executeTakeFirstOrThrow()
  ).state;

describe('runner complete', () => {
  it('the lease ends while the clip is verified: 409, no evaluation enqueued, the clip not queued', async () => {
    const key = await server.key();
    const { task, videoId } = await claimedTaskWithUpload(key);
    // The real probe runs; while it does, the lease ends (as the reaper or a cancel would end it).
    const engine = server.deps.engine;
    const probe = engine.probe.bind(engine);
    engine.probe = async (path, signal) => {
      const result = await probe(path, signal);
      await server.deps.db
        .updateTable('bench_tasks')
        .set({ state: 'pending', lease_id: null, lease_expires_at: null })
        .where('id', '=', task.id)
        .execute();
      return result;
    };
    try {
      const done = await call('POST', `/api/v1/runner-tasks/${task.id}/complete`, key, {
        leaseId: task.lease.id,
        videoId,
      });
      expect(done.status, done.text).toBe(409);
      expect(done.json().code).toBe('conflict');
    } finally {
      engine.probe = probe;
    }
    expect(await jobsFor(videoId)).toEqual([]);
    expect(await videoState(videoId)).toBe('uploaded');
    const row = await server.deps.db
      .selectFrom('bench_tasks')
      .select(['state', 'video_id'])
      .where('id', '=', task.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'pending', video_id: null });
  });

  it('the lease holds: the clip is queued, its evaluation enqueued and the task evaluating, together', async () => {
    const key = await server.key();
    const { task, videoId } = await claimedTaskWithUpload(key);
    const done = await call('POST', `/api/v1/runner-tasks/${task.id}/complete`, key, {
      leaseId: task.lease.id,
      videoId,
    });
    expect(done.status, done.text).toBe(200);
    expect(done.json().task.state).toBe('evaluating');
    expect(await jobsFor(videoId)).toHaveLength(1);
    expect(await videoState(videoId)).toBe('queued');
  });
});
