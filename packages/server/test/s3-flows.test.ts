/**
 * Score and Rank with the S3 blob store (VESTA_BLOB_STORE=s3) on a real S3-compatible server
 * (s3rver from npm with SigV4 checked, or VESTA_TEST_S3_ENDPOINT), on SQLite and on PostgreSQL
 * (the vitest `postgres` project): presigned PUTs straight to the bucket, confirm checks the object
 * (HEAD, ranged GET, probe) and keeps the probe, the evaluation downloads it once into a temporary
 * file that is always removed, resets delete the objects, and an unreachable store is 503
 * `upstream_unavailable` with Retry-After, with nothing half-written.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemoClip } from '@vesta/engine';
import type { EvaluateOptions } from '@vesta/engine';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { Vesta } from '@vesta/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { hangUpMidPut, retryPut } from './helpers/hang-up.js';
import { externalS3, startTestS3 } from './helpers/s3.js';
import type { TestS3 } from './helpers/s3.js';

let s3: TestS3;
let server: CoreTestServer;
let key: string;
/** This process's temporary directory: the S3 store's decoder copies go here (TMPDIR). */
let tmp: string;
const evaluations: EvaluateOptions[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-s3-flows-'));
  process.env.TMPDIR = tmp;
  s3 = await startTestS3();
  // VESTA_PUBLIC_URL unset: presigned URLs stay on the bucket's endpoint whatever the request's Host.
  server = await startCoreServer({ worker: true, listen: true, env: { ...s3.env, VESTA_PUBLIC_URL: '' } });
  // Watches what the worker hands the real engine (the engine itself is untouched).
  const engine = server.deps.engine;
  const evaluate = engine.evaluate.bind(engine);
  engine.evaluate = (file, options) => {
    evaluations.push(options);
    return evaluate(file, options);
  };
  key = await server.key();
});

afterAll(async () => {
  await server?.stop();
  await s3?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const copies = (): string[] => readdirSync(tmp).filter((n) => n.startsWith('vesta-blob-'));

async function api(method: string, url: string, body?: unknown, k = key): Promise<Response> {
  return fetch(`${server.base}${url}`, {
    method,
    headers: { 'x-api-key': k, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function session(
  kind: 'score' | 'rank',
): Promise<{ runId: string; videos: Array<Record<string, unknown>> }> {
  const res = await api('GET', `/api/v1/${kind}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { runId: string; videos: Array<Record<string, unknown>> };
}

/** upload-url (with the size), then the presigned PUT straight to the bucket. */
async function put(
  kind: 'score' | 'rank',
  runId: string,
  bytes: Buffer,
  extra: Record<string, unknown> = {},
): Promise<{ videoId: string; uploadUrl: string; headers: Record<string, string> }> {
  const res = await api('POST', `/api/v1/${kind}/${runId}/videos/upload-url`, {
    fileName: 'clip.mp4',
    contentType: 'video/mp4',
    sizeBytes: bytes.length,
    ...extra,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const ticket = (await res.json()) as {
    videoId: string;
    uploadUrl: string;
    headers: Record<string, string>;
  };
  const putRes = await fetch(ticket.uploadUrl, {
    method: 'PUT',
    headers: { 'Content-Type': ticket.headers['Content-Type'] ?? '' },
    body: bytes,
  });
  expect(putRes.status, await putRes.text()).toBe(200);
  return ticket;
}

const confirm = (kind: 'score' | 'rank', runId: string, videoId: string): Promise<Response> =>
  api('POST', `/api/v1/${kind}/${runId}/videos/confirm-upload`, { videoId });

const videoOf = async (kind: 'score' | 'rank', videoId: string) =>
  (await session(kind)).videos.find((v) => v.videoId === videoId);

describe('Score with the S3 blob store', () => {
  it('uploads straight to the bucket, checks once, keeps the probe, downloads once to score', async () => {
    const { runId } = await session('score');
    const bytes = readFileSync(clip('modelscope-t2v__toad-karate.mp4'));
    const ticket = await put('score', runId, bytes, { prompt: 'a toad doing karate' });
    // The URL is the bucket's, presigned, with the type and the size signed.
    expect(ticket.uploadUrl.startsWith(`${s3.endpoint}/`)).toBe(true);
    expect(new URL(ticket.uploadUrl).searchParams.get('X-Amz-SignedHeaders')).toBe(
      'content-length;content-type;host',
    );
    expect(ticket.headers).toEqual({ 'Content-Type': 'video/mp4', 'Content-Length': String(bytes.length) });
    const key = `videos/${ticket.videoId}`;
    expect(await s3.keys()).toContain(key);

    const before = s3.requests.length;
    const res = await confirm('score', runId, ticket.videoId);
    expect(res.status, await res.clone().text()).toBe(200);
    // Accepted for scoring: the answer reads the clip after the confirm, and this server's own
    // worker may already have taken it up (a loaded machine saw `scoring` there).
    expect(['queued', 'scoring', 'scored']).toContain(((await res.json()) as { state: string }).state);
    const scored = await waitFor(
      () => videoOf('score', ticket.videoId),
      (v) => v?.state === 'scored' || v?.state === 'failed',
      120_000,
    );
    expect(scored?.state).toBe('scored');
    expect(scored?.sizeBytes).toBe(bytes.length);
    const gets = s3.requests.slice(before).filter((r) => r.key === key && r.method === 'GET');
    // Confirm: one ranged GET (magic bytes) and one download (probe); the evaluation: one download.
    expect(gets.filter((r) => r.range !== undefined)).toHaveLength(1);
    expect(gets.filter((r) => r.range === undefined)).toHaveLength(2);
    expect(s3.requests.slice(before).filter((r) => r.key === key && r.method === 'HEAD')).toHaveLength(1);

    // The evaluation was handed the probe confirm took (the engine did not probe again).
    const row = await server.deps.db
      .selectFrom('videos')
      .select(['probe', 'blob_version'])
      .where('id', '=', ticket.videoId)
      .executeTakeFirstOrThrow();
    const stored = JSON.parse(row.probe ?? 'null') as { streamIndex: number; sizeBytes: number };
    expect(stored.sizeBytes).toBe(bytes.length);
    expect(typeof stored.streamIndex).toBe('number');
    expect(row.blob_version).toMatch(/^"[0-9a-f]+"$/);
    expect(evaluations.at(-1)?.probe).toEqual(stored);
    // The decoder's copy is gone.
    expect(copies()).toEqual([]);
  });

  it("mints on the bucket's endpoint whatever the request's Host; the dashboard page may send there", async () => {
    const { runId } = await session('score');
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/score/${runId}/videos/upload-url`,
      // A name this server would mint no link of its own under: the bucket's URL needs none.
      headers: { host: 'elsewhere.example', 'x-api-key': key },
      payload: { fileName: 'clip.mp4', contentType: 'video/mp4', prompt: 'a snail', sizeBytes: 1000 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const origin = new URL(res.json<{ uploadUrl: string }>().uploadUrl).origin;
    expect(origin).toBe(new URL(s3.endpoint).origin);
    const page = await server.app.inject({ method: 'GET', url: '/dashboard/score' });
    expect(page.headers['content-security-policy']).toContain(`connect-src 'self' ${origin};`);
  });

  it('refuses a PUT of another type or size (the store checks the signature); confirm before any PUT is 409', async () => {
    const { runId } = await session('score');
    const bytes = readFileSync(clip('modelscope-t2v__snail-macro.mp4'));
    const res = await api('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'clip.mp4',
      contentType: 'video/mp4',
      sizeBytes: bytes.length,
      prompt: 'a snail',
    });
    const ticket = (await res.json()) as { videoId: string; uploadUrl: string };
    expect((await confirm('score', runId, ticket.videoId)).status).toBe(409);
    const wrongType = await fetch(ticket.uploadUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'video/webm' },
      body: bytes,
    });
    expect(wrongType.status).toBe(403);
    const wrongSize = await fetch(ticket.uploadUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'video/mp4' },
      body: bytes.subarray(1),
    });
    expect(wrongSize.status).toBe(403);
    expect(await s3.keys()).not.toContain(`videos/${ticket.videoId}`);
    expect((await confirm('score', runId, ticket.videoId)).status).toBe(409);
    // A size over the limit is refused before any URL is minted.
    const tooLarge = await api('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'clip.mp4',
      contentType: 'video/mp4',
      sizeBytes: 64 * 1024 * 1024 * 1024,
      prompt: 'x',
    });
    expect(tooLarge.status).toBe(413);
  });

  it('a presigned PUT cut off mid-body holds nothing: the retry within 1 s is accepted, the object is the whole clip, scored once', async () => {
    // The bucket answers the PUT itself: the service claims nothing while it streams, so there is
    // no claim to give back; what matters is that the retried PUT replaces what the store kept.
    for (const how of ['end', 'reset'] as const) {
      const { runId } = await session('score');
      const bytes = readFileSync(clip('zeroscope-v2__burning-lamborghini-rainbow.mp4'));
      const res = await api('POST', `/api/v1/score/${runId}/videos/upload-url`, {
        fileName: 'clip.mp4',
        contentType: 'video/mp4',
        sizeBytes: bytes.length,
        prompt: 'a burning lamborghini driving on rainbow',
      });
      const ticket = (await res.json()) as {
        videoId: string;
        uploadUrl: string;
        headers: Record<string, string>;
      };
      await hangUpMidPut(
        ticket.uploadUrl,
        { 'Content-Type': 'video/mp4' },
        bytes,
        1000,
        how,
        () => new Promise((r) => setTimeout(r, 100)),
      );
      const retry = await retryPut(ticket.uploadUrl, { 'Content-Type': 'video/mp4' }, bytes, 1000);
      expect(retry.status, retry.text).toBe(200);
      expect(retry.tookMs).toBeLessThan(1000);
      const head = await s3.client.send(
        new HeadObjectCommand({
          Bucket: s3.bucket,
          Key: `${s3.env.VESTA_S3_KEY_PREFIX}videos/${ticket.videoId}`,
        }),
      );
      expect(head.ContentLength).toBe(bytes.length);
      const confirmed = await confirm('score', runId, ticket.videoId);
      expect(confirmed.status, await confirmed.clone().text()).toBe(200);
      const v = await waitFor(
        () => videoOf('score', ticket.videoId),
        (x) => x?.state === 'scored' || x?.state === 'failed',
        120_000,
      );
      expect(v?.state).toBe('scored');
      const rows = await server.deps.db
        .selectFrom('scores')
        .select('dimension')
        .where('video_id', '=', ticket.videoId)
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.dimension)).size).toBe(rows.length);
    }
    expect(copies()).toEqual([]);
  });

  it('a non-video is invalid_video at confirm and its object is deleted', async () => {
    const { runId } = await session('score');
    const ticket = await put('score', runId, Buffer.from('this is not a video at all'), { prompt: 'x' });
    const res = await confirm('score', runId, ticket.videoId);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_video');
    expect(await s3.keys()).not.toContain(`videos/${ticket.videoId}`);
    expect(copies()).toEqual([]);
  });

  it('an object replaced after confirm is never scored with the kept probe; the copy is removed', async () => {
    const { runId } = await session('score');
    // Keep the worker from starting on it before the object is replaced.
    const bytes = readFileSync(clip('modelscope-t2v__panda-waterfall-sign.mp4'));
    const res = await api('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'clip.mp4',
      contentType: 'video/mp4',
      sizeBytes: bytes.length,
      prompt: 'a panda',
    });
    const ticket = (await res.json()) as { videoId: string; uploadUrl: string };
    const send = (body: Buffer) =>
      fetch(ticket.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, body });
    expect((await send(bytes)).status).toBe(200);
    // Confirm's two steps: the clip is verified as it is now, then the same URL (still valid)
    // replaces the object before the evaluation is queued.
    const intake = server.deps.services.intake;
    const video = await server.deps.repos.uploads.inSession(ticket.videoId, runId);
    if (!video) throw new Error('the video is not in its session');
    const verdict = await intake.verify(video);
    if (verdict.kind !== 'verified') throw new Error(`the clip was not verified: ${verdict.kind}`);
    const other = Buffer.from(bytes);
    other[other.length - 1] = (other[other.length - 1]! + 1) % 256;
    expect((await send(other)).status).toBe(200);
    await server.deps.repos.transaction((tx) =>
      intake.queueEvaluation(tx, video, verdict, {
        workflow: 'score',
        lane: 'interactive',
      }),
    );
    const v = await waitFor(
      () => videoOf('score', ticket.videoId),
      (x) => x?.state === 'scored' || x?.state === 'failed',
      120_000,
    );
    expect(v?.state).toBe('failed');
    expect((v?.error as { detail: string }).detail).toContain('replaced after it was confirmed');
    expect(copies()).toEqual([]);
  });

  it('reset deletes the objects; an evaluation cut off by the reset leaves no copy', async () => {
    const old = await session('score');
    const ticket = await put('score', old.runId, readFileSync(clip('real__sam2-dog-walk.mp4')), {
      prompt: 'a dog walking',
    });
    expect((await confirm('score', old.runId, ticket.videoId)).status).toBe(200);
    await waitFor(
      () => videoOf('score', ticket.videoId),
      (v) => v?.state !== 'queued',
      60_000,
    );
    const res = await api('POST', '/api/v1/score/reset');
    expect(res.status).toBe(200);
    expect(await s3.keys()).not.toContain(`videos/${ticket.videoId}`);
    await waitFor(
      () => Promise.resolve(copies()),
      (c) => c.length === 0,
      20_000,
    );
  });

  it('expired URLs: an object that arrived makes its video uploaded (confirmable), one that did not is removed', async () => {
    const { runId } = await session('score');
    const bytes = readFileSync(clip('modelscope-t2v__toad-karate.mp4'));
    const arrived = await put('score', runId, bytes, { prompt: 'a toad doing karate' });
    const never = (await (
      await api('POST', `/api/v1/score/${runId}/videos/upload-url`, {
        fileName: 'never.mp4',
        contentType: 'video/mp4',
        prompt: 'x',
      })
    ).json()) as { videoId: string };
    const removed = await server.deps.services.uploads.sweepExpiredUploads(Date.now() + 3600_000);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await videoOf('score', never.videoId)).toBeUndefined();
    expect((await videoOf('score', arrived.videoId))?.state).toBe('uploaded');
    const res = await confirm('score', runId, arrived.videoId);
    expect(res.status, await res.clone().text()).toBe(200);
    await waitFor(
      () => videoOf('score', arrived.videoId),
      (v) => v?.state === 'scored' || v?.state === 'failed',
      120_000,
    );
  });

  it('an unreachable store: 503 upstream_unavailable with Retry-After, /readyz not ready; all goes on after recovery', async () => {
    if (externalS3) return; // an external endpoint cannot be stopped from here
    const { runId } = await session('score');
    const bytes = readFileSync(clip('modelscope-t2v__toad-karate.mp4'));
    const ticket = await put('score', runId, bytes, { prompt: 'a toad doing karate' });
    await s3.stopServer();
    try {
      const res = await confirm('score', runId, ticket.videoId);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await res.json()) as { code: string }).code).toBe('upstream_unavailable');
      const ready = await fetch(`${server.base}/readyz`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toContain('blobs');
      // Nothing half-written: the clip is still waiting to be confirmed.
      const row = await server.deps.db
        .selectFrom('videos')
        .select(['state', 'probe'])
        .where('id', '=', ticket.videoId)
        .executeTakeFirstOrThrow();
      expect(row.probe).toBeNull();
      expect(['awaiting_upload', 'uploaded']).toContain(row.state);
    } finally {
      await s3.startServer();
    }
    expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
    const res = await confirm('score', runId, ticket.videoId);
    expect(res.status, await res.clone().text()).toBe(200);
    const v = await waitFor(
      () => videoOf('score', ticket.videoId),
      (x) => x?.state === 'scored' || x?.state === 'failed',
      120_000,
    );
    expect(v?.state).toBe('scored');
    expect(copies()).toEqual([]);
  });
});

describe('Removing a clip with the S3 blob store', () => {
  it('the store unreachable: 503 upstream_unavailable with Retry-After and nothing removed; the retry after recovery removes it', async () => {
    if (externalS3) return; // an external endpoint cannot be stopped from here
    const { runId } = await session('score');
    const bytes = readFileSync(clip('zeroscope-v2__toad-karate.mp4'));
    const ticket = await put('score', runId, bytes, { prompt: 'a toad doing karate' });
    expect((await confirm('score', runId, ticket.videoId)).status).toBe(200);
    const scored = await waitFor(
      () => videoOf('score', ticket.videoId),
      (v) => v?.state === 'scored' || v?.state === 'failed',
      120_000,
    );
    expect(scored?.state).toBe('scored');
    const objectKey = `videos/${ticket.videoId}`;
    const scoreRows = () =>
      server.deps.db
        .selectFrom('scores')
        .select('dimension')
        .where('video_id', '=', ticket.videoId)
        .execute();
    const scoresBefore = (await scoreRows()).length;
    expect(scoresBefore).toBeGreaterThan(0);

    await s3.stopServer();
    try {
      const res = await api('DELETE', `/api/v1/score/${runId}/videos/${ticket.videoId}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('upstream_unavailable');
      // Nothing removed: the clip is still listed, scored, with its scores.
      expect((await videoOf('score', ticket.videoId))?.state).toBe('scored');
      expect((await scoreRows()).length).toBe(scoresBefore);
    } finally {
      await s3.startServer();
    }
    // Its bytes are still in the bucket; the retry removes the clip, its scores and its bytes.
    expect(await s3.keys()).toContain(objectKey);
    const again = await api('DELETE', `/api/v1/score/${runId}/videos/${ticket.videoId}`);
    expect(again.status, await again.clone().text()).toBe(204);
    expect(await videoOf('score', ticket.videoId)).toBeUndefined();
    expect(await scoreRows()).toEqual([]);
    expect(await s3.keys()).not.toContain(objectKey);
  });
  it('a clip still being scored keeps its scoring when the store cannot delete it (503), and is scored after recovery', async () => {
    if (externalS3) return; // an external endpoint cannot be stopped from here
    const { runId } = await session('score');
    const bytes = readFileSync(clip('show-1__toad-karate.mp4'));
    const ticket = await put('score', runId, bytes, { prompt: 'a toad doing karate' });
    expect((await confirm('score', runId, ticket.videoId)).status).toBe(200);
    await s3.stopServer();
    try {
      const res = await api('DELETE', `/api/v1/score/${runId}/videos/${ticket.videoId}`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { code: string }).code).toBe('upstream_unavailable');
    } finally {
      await s3.startServer();
    }
    // The refused removal changed nothing: its evaluation was not cancelled, so the clip settles
    // (a removal that cancelled the job first left it queued or scoring for good).
    const settled = await waitFor(
      () => videoOf('score', ticket.videoId),
      (v) => v?.state === 'scored' || v?.state === 'failed',
      45_000,
    );
    expect(settled?.state).toBe('scored');
  });
});

describe('Rank with the S3 blob store', () => {
  it('ranks clips uploaded straight to the bucket', async () => {
    const { runId } = await session('rank');
    const prompt = 'a blue tiger among butterflies';
    const ids: string[] = [];
    for (const [i, name] of [
      'zeroscope-v2__blue-tiger-butterflies.mp4',
      'modelscope-t2v__blue-tiger-butterflies.mp4',
    ].entries()) {
      const t = await put('rank', runId, readFileSync(clip(name)), i === 0 ? { prompt } : {});
      expect((await confirm('rank', runId, t.videoId)).status).toBe(200);
      ids.push(t.videoId);
    }
    await waitFor(
      () => session('rank'),
      (s) => ids.every((id) => s.videos.find((v) => v.videoId === id)?.state === 'scored'),
      120_000,
    );
    const board = (await (await api('GET', `/api/v1/rank/${runId}/ranked`)).json()) as {
      entries: Array<{ rank: number; videoId: string }>;
    };
    expect(board.entries.map((e) => e.rank)).toEqual([1, 2]);
    expect(new Set(board.entries.map((e) => e.videoId))).toEqual(new Set(ids));
    expect(copies()).toEqual([]);
  });
});

describe('Bench with the S3 blob store', () => {
  it('a run with the demo generator completes; every clip went to the bucket and was scored', async () => {
    const vesta = new Vesta({ apiKey: key, baseUrl: server.base });
    const run = await vesta.bench.runWithPipeline(
      async ({ prompt, seed, auxiliary, signal }) =>
        (
          await generateDemoClip({
            prompt,
            seed,
            auxiliary,
            outPath: path.join(tmp, `demo-${seed}-${Date.now()}.mp4`),
            signal,
          })
        ).path,
      {
        dimensions: ['dynamic_degree'],
        runName: 'S3 bench',
        modelId: 'vesta-demo',
        samplesPerPrompt: 1,
        promptsPerDimension: 2,
        pollIntervalMs: 200,
      },
    );
    expect(run.status).toBe('completed');
    const videos = [];
    for await (const v of vesta.bench.allVideos(run.id, { limit: 100 })) videos.push(v);
    expect(videos).toHaveLength(run.progress.tasks_total);
    const keys = await s3.keys();
    for (const v of videos) {
      expect(keys).toContain(`videos/${v.video_id}`);
      expect(v.scores.length).toBeGreaterThan(0);
    }
    const csv = await vesta.bench.csv(run.id);
    expect(csv).toContain('dynamic_degree');
    expect(copies()).toEqual([]);
  });
});

describe('a bucket that does not exist', () => {
  it('the service starts, but says at start, in /readyz and in its log which bucket is missing and what to do', async () => {
    const missing = await startCoreServer({
      listen: true,
      env: { ...s3.env, VESTA_S3_BUCKET: 'vesta-no-such-bucket' },
    });
    try {
      const cause = `bucket "vesta-no-such-bucket" at ${s3.endpoint} does not exist: create it`;
      // As it reads inside a JSON log line.
      const logged = JSON.stringify(cause).slice(1, -1);
      const started = await waitFor(
        () => Promise.resolve(missing.logs.join('')),
        (logs) => logs.includes('not ready at start'),
        10_000,
      );
      expect(started).toContain(`not ready at start: blobs unavailable: ${logged}`);
      const ready = await fetch(`${missing.base}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { code: string; detail: string };
      expect(body.code).toBe('upstream_unavailable');
      expect(body.detail).toContain(`blobs unavailable (${cause}`);
      expect(missing.logs.join('')).toContain(`"msg":"not ready: blobs unavailable: ${logged}`);
    } finally {
      await missing.stop();
    }
  });
});
