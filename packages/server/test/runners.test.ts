/**
 * The runner protocol and run orchestration on a real server (SQLite file, blob directory, job
 * queue with its worker, the real engine scoring real corpus clips), with a 2-second lease:
 * register, long-poll claim, heartbeat, upload, complete, fail; stale and expired leases; the
 * reaper re-queueing then failing; model and runner_id scoping; cancel during generation; a
 * non-video; delete removing blobs; the CSV equal to the means of the per-clip scores.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { jobsAbout } from './helpers/job-queue-harness.js';

let server: CoreTestServer;

beforeAll(async () => {
  server = await startCoreServer({
    worker: true,
    env: { VESTA_RUNNER_LEASE_SECONDS: '2', VESTA_RUNNER_MAX_ATTEMPTS: '2', VESTA_JOB_CONCURRENCY: '2' },
  });
});

afterAll(async () => {
  await server?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies read in assertions
type Json = Record<string, any>;

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, key: string, body?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, text: res.body, json: (): Json => res.json() };
}

async function register(key: string, models: string[], extra: Json = {}): Promise<Json> {
  const res = await call('POST', '/api/v1/runners', key, { name: 'test-runner', models, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.json();
}

async function createRun(key: string, body: Json): Promise<Json> {
  const res = await call('POST', '/api/v1/bench', key, {
    name: 'runner test',
    dimensions: ['subject_consistency'],
    samples_per_prompt: 1,
    prompts_per_dimension: 1,
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.json();
}

async function claim(key: string, runnerId: string, waitSeconds = 0): Promise<Json | null> {
  const res = await call('POST', `/api/v1/runners/${runnerId}/claim`, key, { waitSeconds });
  if (res.status === 204) return null;
  expect(res.status, res.text).toBe(200);
  return res.json().task as Json;
}

/** upload-url, PUT the bytes, complete: what a runner does with a generated clip. */
async function deliver(key: string, task: Json, bytes: Buffer, contentType = 'video/mp4') {
  const up = await call('POST', `/api/v1/runner-tasks/${task.id}/upload-url`, key, {
    leaseId: task.lease.id,
    fileName: 'clip.mp4',
    contentType,
  });
  expect(up.status, up.text).toBe(201);
  const ticket = up.json();
  const url = new URL(ticket.uploadUrl as string);
  const put = await server.app.inject({
    method: 'PUT',
    url: `${url.pathname}${url.search}`,
    headers: { 'content-type': contentType },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(200);
  return call('POST', `/api/v1/runner-tasks/${task.id}/complete`, key, {
    leaseId: task.lease.id,
    videoId: ticket.videoId,
    logs: [{ level: 'info', message: `rendered seed ${task.seed}` }],
  });
}

const getRun = async (key: string, id: string): Promise<Json> =>
  (await call('GET', `/api/v1/bench/${id}`, key)).json();

const CLIPS = [
  'show-1__panda-selfie.mp4',
  'zeroscope-v2__toad-karate.mp4',
  'show-1__toad-karate.mp4',
  'zeroscope-v2__burning-lamborghini-rainbow.mp4',
];

describe('runners', () => {
  it('registers, lists and reads runners; declares unknown models; deregisters', async () => {
    const key = await server.key();
    const other = await server.key();
    const runner = await register(key, ['vesta-demo', 'fresh-model'], {
      maxConcurrency: 2,
      version: '1.2.3',
    });
    expect(runner).toMatchObject({
      name: 'test-runner',
      models: ['fresh-model', 'vesta-demo'],
      maxConcurrency: 2,
      version: '1.2.3',
      online: true,
    });
    expect(runner.id).toMatch(/^runner_/);
    expect((await call('GET', '/api/v1/runners', key)).json().items.map((r: Json) => r.id)).toEqual([
      runner.id,
    ]);
    expect((await call('GET', `/api/v1/runners/${runner.id}`, key)).json()).toEqual(runner);
    expect((await call('GET', `/api/v1/runners/${runner.id}`, other)).status).toBe(403);
    expect((await call('GET', '/api/v1/runners', other)).json().items).toEqual([]);

    const models = (await call('GET', '/api/v1/models', key)).json().items as Json[];
    const fresh = models.find((m) => m.id === 'fresh-model');
    expect(fresh).toMatchObject({
      name: 'fresh-model',
      online: true,
      runners: [{ id: runner.id, online: true }],
    });
    expect(models.find((m) => m.id === 'vesta-demo')?.name).toMatch(/demo.*not a real model/);
    // A declared model is private: another user sees neither it nor this user's runner.
    const theirs = (await call('GET', '/api/v1/models', other)).json().items as Json[];
    expect(theirs.find((m) => m.id === 'fresh-model')).toBeUndefined();
    expect(theirs.find((m) => m.id === 'vesta-demo')).toMatchObject({ runners: [], online: false });

    const bad = await call('POST', '/api/v1/runners', key, { name: 'x', models: [] });
    expect(bad.status).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
    expect(
      (await call('POST', '/api/v1/runners', key, { name: 'x', models: ['m'], gpu: 1 })).json().code,
    ).toBe('invalid_field');

    expect((await call('DELETE', `/api/v1/runners/${runner.id}`, other)).status).toBe(403);
    expect((await call('DELETE', `/api/v1/runners/${runner.id}`, key)).status).toBe(204);
    expect((await call('GET', `/api/v1/runners/${runner.id}`, key)).status).toBe(404);
  });

  it('serves the prompt suite of a dimension', async () => {
    const key = await server.key();
    const res = await call('GET', '/api/v1/dimensions/background_consistency/prompts', key);
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ dimension: 'background_consistency', clipGroup: 'scene' });
    expect(body.suiteVersion).toMatch(/^vesta-prompts-/);
    expect(body.prompts.length).toBeGreaterThanOrEqual(10);
    expect(body.prompts[0].auxiliary.scene).toBeTruthy();
    const unknown = await call('GET', '/api/v1/dimensions/sharpness/prompts', key);
    expect(unknown.status).toBe(404);
    expect(unknown.json().code).toBe('not_found');
  });
});

describe('a run generated by a runner', () => {
  it('plans, claims, uploads real clips, evaluates once per shared clip and completes; the CSV is the mean of the clips', async () => {
    const key = await server.key();
    const runner = await register(key, ['vesta-demo'], { maxConcurrency: 4 });
    const run = await createRun(key, {
      model_id: 'vesta-demo',
      dimensions: ['imaging_quality', 'subject_consistency', 'motion_smoothness'],
      samples_per_prompt: 2,
    });
    // Two clip groups (subject_consistency + motion_smoothness share clips), 1 prompt × 2 samples each.
    expect(run).toMatchObject({ status: 'queued', samples_per_prompt: 2, prompts_per_dimension: 1 });
    expect(run.progress).toMatchObject({ tasks_total: 4, clips_total: 4, clips_evaluated: 0 });

    const tasks: Json[] = [];
    for (let i = 0; i < 4; i++) {
      const t = await claim(key, runner.id);
      expect(t, `task ${i}`).not.toBeNull();
      tasks.push(t!);
    }
    // A fifth claim finds nothing (and the runner is at its concurrency anyway).
    expect(await claim(key, runner.id)).toBeNull();
    expect((await getRun(key, run.id)).status).toBe('generating');
    const first = tasks[0]!;
    expect(first).toMatchObject({
      runId: run.id,
      modelId: 'vesta-demo',
      attempt: 1,
      maxAttempts: 2,
      state: 'claimed',
      lease: { ttlSeconds: 2 },
    });
    expect(Number.isInteger(first.seed)).toBe(true);
    expect(new Set(tasks.map((t) => `${t.prompt}#${t.sampleIndex}`)).size).toBe(4);
    const shared = tasks.find((t) => t.dimensions.includes('motion_smoothness'))!;
    expect(shared.dimensions).toEqual(['subject_consistency', 'motion_smoothness']);

    const hb = await call('POST', `/api/v1/runner-tasks/${first.id}/heartbeat`, key, {
      leaseId: first.lease.id,
      logs: [{ message: 'warming up', level: 'warn' }],
    });
    expect(hb.status, hb.text).toBe(200);
    expect(hb.json().cancelled).toBe(false);
    expect(Date.parse(hb.json().expiresAt)).toBeGreaterThanOrEqual(Date.parse(first.lease.expiresAt));

    // A runner heartbeats every claimed task while it works (the SDK does so from a timer): the
    // 2 s lease must not run out while the clips are delivered one after another on a slow box.
    const beating = setInterval(() => {
      for (const task of tasks)
        void call('POST', `/api/v1/runner-tasks/${task.id}/heartbeat`, key, { leaseId: task.lease.id });
    }, 400);
    const delivered: string[] = [];
    try {
      for (const [i, task] of tasks.entries()) {
        const done = await deliver(key, task, readFileSync(clip(CLIPS[i]!)));
        expect(done.status, done.text).toBe(200);
        expect(done.json().task).toMatchObject({
          id: task.id,
          state: expect.stringMatching(/evaluating|done/) as unknown,
          lease: null,
        });
        expect(done.json().video).toMatchObject({ prompt: task.prompt, dimensions: task.dimensions });
        delivered.push(done.json().video.videoId as string);
      }
    } finally {
      clearInterval(beating);
    }
    // A retried complete with the same clip answers the same; another lease id is 409.
    const retried = await call('POST', `/api/v1/runner-tasks/${first.id}/complete`, key, {
      leaseId: first.lease.id,
      videoId: delivered[0],
    });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.json().video.videoId).toBe(delivered[0]);
    const stale = await call('POST', `/api/v1/runner-tasks/${first.id}/heartbeat`, key, {
      leaseId: 'lease_other',
    });
    expect(stale.status).toBe(409);
    expect(stale.json().detail).toMatch(/not the current lease/);

    const finished = await waitFor(
      () => getRun(key, run.id),
      (r) => r.status === 'completed' || r.status === 'failed',
      90_000,
    );
    expect(finished.status, JSON.stringify(finished.error)).toBe('completed');
    expect(finished.progress).toMatchObject({
      tasks_total: 4,
      tasks_done: 4,
      tasks_failed: 0,
      clips_evaluated: 4,
    });

    // Each clip was evaluated once, on its own group's dimensions.
    const videos = (await call('GET', `/api/v1/bench/${run.id}/videos?limit=100`, key)).json()
      .items as Json[];
    expect(videos).toHaveLength(4);
    for (const v of videos) {
      expect(v).toMatchObject({ state: 'done', runner_id: runner.id, attempts: 1 });
      expect(v.scores.map((s: Json) => s.dimension).sort()).toEqual([...v.dimensions].sort());
    }
    const jobs = await jobsAbout(
      server.deps,
      videos.map((v) => `video:${v.video_id as string}`),
    );
    expect(jobs).toHaveLength(4);

    // The scorecard: each dimension's score is the mean of its clips' values.
    const csv = await call('GET', `/api/v1/bench/${run.id}/csv`, key);
    const rows = new Map(
      csv.text
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .map((l) => l.split(','))
        .map((r) => [r[0]!, r]),
    );
    for (const dimension of ['subject_consistency', 'motion_smoothness', 'imaging_quality']) {
      const values = videos.flatMap((v) =>
        (v.scores as Json[]).filter((s) => s.dimension === dimension).map((s) => s.value as number),
      );
      expect(values.length, dimension).toBe(2);
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const row = rows.get(dimension)!;
      expect(Number(row[2]), dimension).toBeCloseTo(mean, 5);
      expect(row[4]).toBe('2');
    }
    expect(rows.get('Quality')?.[2]).not.toBe('');

    const logs = (await call('GET', `/api/v1/bench/${run.id}/logs?limit=1000`, key)).json().items as Json[];
    expect(
      logs.some((l) => l.source === 'runner' && l.message.includes('warming up') && l.level === 'warn'),
    ).toBe(true);
    expect(
      logs.some((l) => l.source === 'runner' && l.message.includes(`rendered seed ${first.seed as number}`)),
    ).toBe(true);
    expect(logs.filter((l) => l.source === 'evaluator')).toHaveLength(4);
    expect(logs.at(-1)?.message).toMatch(/evaluating → completed/);

    // Delete removes the run, its clips, their scores and their blobs.
    const blobKeys = await server.deps.db
      .selectFrom('videos')
      .select('blob_key')
      .where('session_id', '=', run.id)
      .execute();
    expect(blobKeys).toHaveLength(4);
    expect((await call('DELETE', `/api/v1/bench/${run.id}`, key)).status).toBe(204);
    for (const b of blobKeys) expect(await server.deps.blobs.stat(b.blob_key)).toBeNull();
    expect(
      await server.deps.db.selectFrom('videos').select('id').where('session_id', '=', run.id).execute(),
    ).toEqual([]);
    expect(
      await server.deps.db.selectFrom('sessions').select('id').where('id', '=', run.id).execute(),
    ).toEqual([]);
  }, 120_000);
});

describe('scoping', () => {
  it('gives a runner only tasks of its own user, of models it serves, and of runs that name it or no runner', async () => {
    const key = await server.key();
    const other = await server.key();
    const demo = await register(key, ['vesta-demo']);
    const elsewhere = await register(key, ['scoping-model']);
    const theirs = await register(other, ['scoping-model']);
    const run = await createRun(key, { model_id: 'scoping-model', runner_id: elsewhere.id });
    // The demo runner does not serve the model; the other user's runner is not this user's.
    expect(await claim(key, demo.id)).toBeNull();
    expect(await claim(other, theirs.id)).toBeNull();
    // A second runner of the same user serving the model is not the one the run names.
    const second = await register(key, ['scoping-model']);
    expect(await claim(key, second.id)).toBeNull();
    // Claiming with another user's runner is 403.
    expect((await call('POST', `/api/v1/runners/${elsewhere.id}/claim`, other, {})).status).toBe(403);
    const task = await claim(key, elsewhere.id);
    expect(task?.runId).toBe(run.id);

    // runner_id must be one of the caller's runners and serve the model.
    const foreign = await call('POST', '/api/v1/bench', key, {
      name: 'x',
      dimensions: ['subject_consistency'],
      model_id: 'scoping-model',
      runner_id: theirs.id,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json()).toMatchObject({ code: 'validation_failed' });
    const wrongModel = await call('POST', '/api/v1/bench', key, {
      name: 'x',
      dimensions: ['subject_consistency'],
      model_id: 'scoping-model',
      runner_id: demo.id,
    });
    expect(wrongModel.json().detail).toMatch(/does not serve model 'scoping-model'/);
    const unknownModel = await call('POST', '/api/v1/bench', key, {
      name: 'x',
      dimensions: ['subject_consistency'],
      model_id: 'no-such-model',
    });
    expect(unknownModel.json()).toMatchObject({ code: 'validation_failed' });
    expect(unknownModel.json().detail).toMatch(/unknown model_id 'no-such-model'/);
    const tooMany = await call('POST', '/api/v1/bench', key, {
      name: 'x',
      dimensions: ['subject_consistency'],
      model_id: 'scoping-model',
      samples_per_prompt: 11,
    });
    expect(tooMany.json().code).toBe('validation_failed');
  });

  it('wakes a long-polling claim as soon as a task becomes available', async () => {
    const key = await server.key();
    const runner = await register(key, ['wake-model']);
    const started = Date.now();
    const pending = claim(key, runner.id, 20);
    await new Promise((r) => setTimeout(r, 300));
    const run = await createRun(key, { model_id: 'wake-model' });
    const task = await pending;
    expect(task?.runId).toBe(run.id);
    expect(Date.now() - started).toBeLessThan(5000);
    // With nothing to do, a short wait ends with 204.
    const t0 = Date.now();
    expect(await claim(key, runner.id, 1)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });
});

describe('leases', () => {
  it('re-queues a task whose lease expired, then fails it after the last attempt; stale leases are 409', async () => {
    const key = await server.key();
    const runner = await register(key, ['lease-model']);
    const run = await createRun(key, { model_id: 'lease-model' });
    const first = (await claim(key, runner.id))!;
    expect(first.attempt).toBe(1);
    // The runner stops heartbeating: the reaper puts the task back after the 2 s lease.
    const again = await waitFor(
      () => claim(key, runner.id),
      (t) => t !== null,
      10_000,
    );
    expect(again).toMatchObject({ id: first.id, attempt: 2, error: { code: 'lease_expired' } });
    expect(again!.lease.id).not.toBe(first.lease.id);
    // The old lease is fenced off everywhere.
    const old = first.lease.id as string;
    const fenced = [
      ['heartbeat', { leaseId: old }],
      ['upload-url', { leaseId: old, fileName: 'a.mp4', contentType: 'video/mp4' }],
      ['complete', { leaseId: old, videoId: 'vid_x' }],
      ['fail', { leaseId: old, error: 'x' }],
    ] as const;
    for (const [op, body] of fenced) {
      const res = await call('POST', `/api/v1/runner-tasks/${first.id}/${op}`, key, body);
      expect(res.status, `${op}: ${res.text}`).toBe(409);
      expect(res.json()).toMatchObject({
        code: 'conflict',
        detail: expect.stringMatching(/not the current lease/),
      });
    }
    // Second (last) attempt expires too: the task fails with the reason, and the run fails.
    const failed = await waitFor(
      () => getRun(key, run.id),
      (r) => r.status === 'failed',
      10_000,
    );
    expect(failed.progress).toMatchObject({ tasks_total: 1, tasks_failed: 1 });
    expect(failed.error.code).toBe('no_scored_clips');
    const videos = (await call('GET', `/api/v1/bench/${run.id}/videos`, key)).json().items as Json[];
    expect(videos[0]).toMatchObject({
      state: 'failed',
      attempts: 2,
      error: { code: 'lease_expired', detail: 'lease expired 2 times (runner stopped heartbeating)' },
    });
    const expired = await call('POST', `/api/v1/runner-tasks/${first.id}/heartbeat`, key, {
      leaseId: again!.lease.id,
    });
    expect(expired.status).toBe(409);
  }, 30_000);

  it('gives a deregistered runner’s task back to the queue without counting the attempt', async () => {
    const key = await server.key();
    const a = await register(key, ['handback-model']);
    const b = await register(key, ['handback-model']);
    await createRun(key, { model_id: 'handback-model' });
    const task = (await claim(key, a.id))!;
    // A claim long-polling while its runner is deregistered ends with 404.
    const waiting = call('POST', `/api/v1/runners/${a.id}/claim`, key, { waitSeconds: 10 });
    await new Promise((r) => setTimeout(r, 200));
    expect((await call('DELETE', `/api/v1/runners/${a.id}`, key)).status).toBe(204);
    const ended = await waiting;
    expect(ended.status).toBe(404);
    const taken = await claim(key, b.id);
    expect(taken).toMatchObject({ id: task.id, attempt: 1 });
  });
});

describe('failures and cancellation', () => {
  it('fails an attempt whose clip is not a video (400 invalid_video) and re-queues it; fail with retryable false fails the task', async () => {
    const key = await server.key();
    const runner = await register(key, ['bad-model']);
    const run = await createRun(key, { model_id: 'bad-model', samples_per_prompt: 2 });
    const task = (await claim(key, runner.id))!;
    const res = await deliver(key, task, Buffer.from('this is not a video at all, just text'));
    expect(res.status).toBe(400);
    expect(res.json().code).toBe('invalid_video');
    const back = (await call('GET', `/api/v1/bench/${run.id}/videos`, key)).json().items as Json[];
    expect(back.find((v) => v.task_id === task.id)).toMatchObject({
      state: 'pending',
      error: { code: 'invalid_video' },
    });
    // The failed attempt's lease is over.
    const late = await call('POST', `/api/v1/runner-tasks/${task.id}/heartbeat`, key, {
      leaseId: task.lease.id,
    });
    expect(late.status).toBe(409);

    // A videoId minted for another task is refused.
    const t1 = (await claim(key, runner.id))!;
    // maxConcurrency 1: the runner holds t1, so the other pending task waits.
    expect(await claim(key, runner.id)).toBeNull();
    const up = await call('POST', `/api/v1/runner-tasks/${t1.id}/upload-url`, key, {
      leaseId: t1.lease.id,
      fileName: 'c.mp4',
      contentType: 'video/mp4',
    });
    const notYet = await call('POST', `/api/v1/runner-tasks/${t1.id}/complete`, key, {
      leaseId: t1.lease.id,
      videoId: up.json().videoId,
    });
    expect(notYet.status).toBe(409);
    expect(notYet.json().detail).toMatch(/not been uploaded/);
    const wrong = await call('POST', `/api/v1/runner-tasks/${t1.id}/complete`, key, {
      leaseId: t1.lease.id,
      videoId: 'vid_not_minted_here',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json().code).toBe('validation_failed');

    const gaveUp = await call('POST', `/api/v1/runner-tasks/${t1.id}/fail`, key, {
      leaseId: t1.lease.id,
      error: 'generator crashed: CUDA out of memory',
      retryable: false,
      logs: [{ level: 'error', message: 'Traceback …' }],
    });
    expect(gaveUp.status, gaveUp.text).toBe(200);
    expect(gaveUp.json().task).toMatchObject({
      state: 'failed',
      lease: null,
      error: { code: 'generation_failed', detail: expect.stringContaining('CUDA out of memory') },
    });
    const logs = (await call('GET', `/api/v1/bench/${run.id}/logs`, key)).json().items as Json[];
    expect(
      logs.some((l) => l.source === 'runner' && l.level === 'error' && l.message.includes('Traceback')),
    ).toBe(true);
  });

  it('cancels during generation: heartbeats say cancelled, uploads and completions are 409, pending tasks are cancelled', async () => {
    const key = await server.key();
    const runner = await register(key, ['cancel-model']);
    const run = await createRun(key, { model_id: 'cancel-model', samples_per_prompt: 3 });
    const task = (await claim(key, runner.id))!;
    const up = await call('POST', `/api/v1/runner-tasks/${task.id}/upload-url`, key, {
      leaseId: task.lease.id,
      fileName: 'c.mp4',
      contentType: 'video/mp4',
    });
    expect(up.status).toBe(201);
    expect((await call('POST', `/api/v1/bench/${run.id}/cancel`, key)).json().status).toBe('cancelled');
    const hb = await call('POST', `/api/v1/runner-tasks/${task.id}/heartbeat`, key, {
      leaseId: task.lease.id,
    });
    expect(hb.status).toBe(200);
    expect(hb.json().cancelled).toBe(true);
    const upload = await call('POST', `/api/v1/runner-tasks/${task.id}/upload-url`, key, {
      leaseId: task.lease.id,
      fileName: 'c.mp4',
      contentType: 'video/mp4',
    });
    expect(upload.status).toBe(409);
    expect(upload.json()).toMatchObject({ code: 'conflict', detail: expect.stringMatching(/cancelled/) });
    const complete = await call('POST', `/api/v1/runner-tasks/${task.id}/complete`, key, {
      leaseId: task.lease.id,
      videoId: up.json().videoId,
    });
    expect(complete.status).toBe(409);
    const failed = await call('POST', `/api/v1/runner-tasks/${task.id}/fail`, key, {
      leaseId: task.lease.id,
      error: 'stopped: run cancelled',
    });
    expect(failed.json().task.state).toBe('cancelled');
    expect(await claim(key, runner.id)).toBeNull();
    const videos = (await call('GET', `/api/v1/bench/${run.id}/videos`, key)).json().items as Json[];
    expect(videos.map((v) => v.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    // Delete also removes clips that were minted but never completed.
    expect((await call('DELETE', `/api/v1/bench/${run.id}`, key)).status).toBe(204);
    expect(
      await server.deps.db.selectFrom('videos').select('id').where('session_id', '=', run.id).execute(),
    ).toEqual([]);
  });
});

describe('cancel during evaluation', () => {
  it('cancels the clip scoring that has not run yet', async () => {
    // No worker: the clip's scoring job stays queued until the cancel.
    const idle = await startCoreServer({ worker: false });
    try {
      const key = await idle.key();
      const inject = async (method: 'POST' | 'GET', url: string, body?: unknown) => {
        const res = await idle.app.inject({
          method,
          url,
          headers: {
            'x-api-key': key,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        return res.json<Json>();
      };
      const runner = await inject('POST', '/api/v1/runners', { name: 'r', models: ['idle-model'] });
      const run = await inject('POST', '/api/v1/bench', {
        name: 'x',
        dimensions: ['subject_consistency'],
        model_id: 'idle-model',
        samples_per_prompt: 1,
        prompts_per_dimension: 1,
      });
      const { task } = await inject('POST', `/api/v1/runners/${runner.id as string}/claim`, {
        waitSeconds: 0,
      });
      const up = await inject('POST', `/api/v1/runner-tasks/${task.id as string}/upload-url`, {
        leaseId: task.lease.id,
        fileName: 'c.mp4',
        contentType: 'video/mp4',
      });
      const url = new URL(up.uploadUrl as string);
      await idle.app.inject({
        method: 'PUT',
        url: `${url.pathname}${url.search}`,
        headers: { 'content-type': 'video/mp4' },
        payload: readFileSync(clip(CLIPS[0]!)),
      });
      const done = await inject('POST', `/api/v1/runner-tasks/${task.id as string}/complete`, {
        leaseId: task.lease.id,
        videoId: up.videoId,
      });
      expect(done.task.state).toBe('evaluating');
      expect((await inject('GET', `/api/v1/bench/${run.id as string}`)).status).toBe('evaluating');
      const job = async () => (await jobsAbout(idle.deps, `video:${up.videoId as string}`))[0]!;
      expect((await job()).state).toBe('queued');
      expect((await inject('POST', `/api/v1/bench/${run.id as string}/cancel`)).status).toBe('cancelled');
      expect((await job()).state).toBe('cancelled');
      const videos = await inject('GET', `/api/v1/bench/${run.id as string}/videos`);
      expect(videos.items[0]).toMatchObject({ state: 'cancelled', video_id: up.videoId });
    } finally {
      await idle.stop();
    }
  });
});

describe('shutdown', () => {
  it('answers a long-polling claim with 204 at once and closes promptly', async () => {
    const own = await startCoreServer({ listen: true, worker: true });
    try {
      const key = await own.key();
      const reg = await fetch(`${own.base}/api/v1/runners`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'closing', models: ['close-model'] }),
      });
      const runner = (await reg.json()) as Json;
      const started = Date.now();
      const pending = fetch(`${own.base}/api/v1/runners/${runner.id as string}/claim`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ waitSeconds: 30 }),
      });
      await new Promise((r) => setTimeout(r, 300));
      const closing = own.close();
      const res = await pending;
      expect(res.status).toBe(204);
      await closing;
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await own.stop();
    }
  }, 20_000);
});
