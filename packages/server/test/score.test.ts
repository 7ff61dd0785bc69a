/**
 * The Score workflow end to end on the real engine: session created on first read, upload-url
 * validation, PUT, confirm (verification, idempotence, bad files), scoring by the worker, and
 * reset semantics.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ENGINE_ERROR_CODES } from '@vesta/engine';
import { gifBytes } from '@vesta/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { jobsAbout } from './helpers/job-queue-harness.js';

let server: CoreTestServer;
let key: string;
let other: string;

beforeAll(async () => {
  server = await startCoreServer({ worker: true });
  key = await server.key();
  other = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

const h = (k = key) => ({ 'x-api-key': k });
async function getSession(k = key) {
  const res = await server.app.inject({ method: 'GET', url: '/api/v1/score', headers: h(k) });
  expect(res.statusCode).toBe(200);
  return res.json();
}
async function requestUpload(runId: string, payload: Record<string, unknown>) {
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/score/${runId}/videos/upload-url`,
    headers: h(),
    payload,
  });
}
async function upload(
  runId: string,
  file: string | Buffer,
  contentType = 'video/mp4',
  extra: Record<string, unknown> = {},
) {
  const res = await requestUpload(runId, {
    fileName: typeof file === 'string' ? path.basename(file) : 'bytes.mp4',
    contentType,
    prompt: 'a toad doing karate',
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(201);
  const { videoId, uploadUrl } = res.json();
  const u = new URL(uploadUrl);
  const put = await server.app.inject({
    method: 'PUT',
    url: u.pathname + u.search,
    headers: { 'content-type': contentType },
    payload: typeof file === 'string' ? readFileSync(file) : file,
  });
  expect(put.statusCode, put.body).toBe(200);
  return videoId as string;
}
const confirm = (runId: string, videoId: string) =>
  server.app.inject({
    method: 'POST',
    url: `/api/v1/score/${runId}/videos/confirm-upload`,
    headers: h(),
    payload: { videoId },
  });

describe('Score session', () => {
  it('is created on first read and stays the same until reset', async () => {
    const a = await getSession();
    expect(a).toMatchObject({ kind: 'score', videos: [] });
    expect(typeof a.runId).toBe('string');
    expect((await getSession()).runId).toBe(a.runId);
    expect((await getSession(other)).runId).not.toBe(a.runId);
  });

  it('validates upload-url: fileName, contentType, prompt, auxiliary', async () => {
    const { runId } = await getSession();
    const base = { fileName: 'ok.mp4', contentType: 'video/mp4', prompt: 'a cat' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, fileName: 'dir/clip.mp4' }, 'validation_failed'],
      [{ ...base, fileName: 'dir\\clip.mp4' }, 'validation_failed'],
      [{ ...base, fileName: '../clip.mp4' }, 'validation_failed'],
      [{ ...base, fileName: 'clip..mp4' }, 'validation_failed'],
      [{ ...base, fileName: 'cl\u0000ip.mp4' }, 'validation_failed'],
      [{ ...base, fileName: 'clip\n.mp4' }, 'validation_failed'],
      [{ ...base, fileName: `${'a'.repeat(996)}.mp4` }, 'validation_failed'],
      [{ ...base, fileName: '' }, 'validation_failed'],
      [{ ...base, contentType: 'text/plain' }, 'validation_failed'],
      [{ ...base, contentType: 'application/octet-stream' }, 'validation_failed'],
      [{ ...base, contentType: 'video/x-unknown' }, 'validation_failed'],
      [{ fileName: 'ok.mp4', contentType: 'video/mp4' }, 'validation_failed'],
      [{ ...base, prompt: '   ' }, 'validation_failed'],
      [{ ...base, prompt: 'p'.repeat(2001) }, 'validation_failed'],
      [{ ...base, auxiliary: 'cat' }, 'validation_failed'],
      [{ ...base, auxiliary: { object: 3 } }, 'validation_failed'],
      [{ ...base, auxiliary: { weather: 'rain' } }, 'invalid_field'],
    ];
    for (const [payload, code] of cases) {
      const res = await requestUpload(runId, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json().code, JSON.stringify(payload).slice(0, 80)).toBe(code);
    }
    // Nothing half-written: no video was created by any of them.
    expect((await getSession()).videos).toHaveLength(0);
    for (const ct of [
      'video/webm',
      'video/quicktime',
      'video/x-msvideo',
      'video/x-matroska',
      'image/gif',
      'video/mpeg',
      'VIDEO/MP4',
    ]) {
      expect((await requestUpload(runId, { ...base, contentType: ct })).statusCode, ct).toBe(201);
    }
    const aux = await requestUpload(runId, {
      ...base,
      fileName: 'ü nicode — clip (1).mp4',
      auxiliary: { object: 'toad', action: 'karate' },
    });
    expect(aux.statusCode).toBe(201);
    const stored = (await getSession()).videos.find(
      (v: { videoId: string }) => v.videoId === aux.json().videoId,
    );
    expect(stored).toMatchObject({
      fileName: 'ü nicode — clip (1).mp4',
      auxiliary: { object: 'toad', action: 'karate' },
      state: 'awaiting_upload',
    });
  });

  it('refuses confirm before the upload with 409 conflict, and unknown videos with 404', async () => {
    const { runId } = await getSession();
    const res = await requestUpload(runId, {
      fileName: 'later.mp4',
      contentType: 'video/mp4',
      prompt: 'a cat',
    });
    const c = await confirm(runId, res.json().videoId);
    expect(c.statusCode).toBe(409);
    expect(c.json().code).toBe('conflict');
    const missing = await confirm(runId, 'vid_does_not_exist');
    expect(missing.statusCode).toBe(404);
    // Another user's video named in my session is not found there.
    const theirs = await getSession(other);
    const theirVideo = (
      await server.app.inject({
        method: 'POST',
        url: `/api/v1/score/${theirs.runId}/videos/upload-url`,
        headers: h(other),
        payload: { fileName: 'x.mp4', contentType: 'video/mp4', prompt: 'x' },
      })
    ).json().videoId;
    expect((await confirm(runId, theirVideo)).statusCode).toBe(404);
  });

  it('refuses a file that is not a video: 400 invalid_video, video failed with the code, bytes deleted', async () => {
    const { runId } = await getSession();
    const text = Buffer.from('this is a plain text file, not a clip\n'.repeat(50));
    const videoId = await upload(runId, text);
    const res = await confirm(runId, videoId);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_video');
    expect(res.json().detail).toContain('not_a_video');
    const again = await confirm(runId, videoId);
    expect(again.statusCode).toBe(400);
    const v = (await getSession()).videos.find((x: { videoId: string }) => x.videoId === videoId);
    expect(v).toMatchObject({ state: 'failed', error: { code: 'not_a_video' }, scores: [] });
    expect(existsSync(path.join(server.dataDir, 'blobs', 'videos', videoId))).toBe(false);
    // A GIF declared as MP4 has the wrong magic bytes too.
    const gifAsMp4 = await upload(runId, readFileSync(clip('lavie__panda-selfie.gif')));
    expect((await confirm(runId, gifAsMp4)).json().code).toBe('invalid_video');
  });

  it('scores a real clip end to end; confirm is idempotent; scores carry value, method and frames', async () => {
    const { runId } = await getSession();
    const videoId = await upload(runId, clip('zeroscope-v2__toad-karate.mp4'));
    const c1 = await confirm(runId, videoId);
    expect(c1.statusCode, c1.body).toBe(200);
    expect(['queued', 'scoring', 'scored']).toContain(c1.json().state);
    expect(c1.json().dimensions.length).toBeGreaterThan(0);
    const c2 = await confirm(runId, videoId);
    expect(c2.statusCode).toBe(200);
    expect(c2.json().videoId).toBe(videoId);
    expect(c2.json().confirmedAt).toBe(c1.json().confirmedAt);
    const jobs = await jobsAbout(server.deps, `video:${videoId}`);
    expect(jobs).toHaveLength(1);

    const session = await waitFor(
      getSession,
      (s) => s.videos.find((v: { videoId: string }) => v.videoId === videoId)?.state === 'scored',
      90_000,
    );
    const video = session.videos.find((v: { videoId: string }) => v.videoId === videoId);
    expect(video.error).toBeNull();
    expect(video.scores.length).toBeGreaterThan(0);
    const dims = server.deps.engine.dimensions();
    for (const s of video.scores) {
      const d = dims.find((x) => x.id === s.dimension)!;
      expect(d.workflows).toContain('score');
      expect(video.dimensions).toContain(s.dimension);
      expect(s.value).toBeGreaterThanOrEqual(d.range.min);
      expect(s.value).toBeLessThanOrEqual(d.range.max);
      expect(d.methods.map((m) => m.id)).toContain(s.method);
      expect(typeof s.methodVersion).toBe('string');
      expect(s.frames.count).toBeGreaterThan(0);
      expect(s.frames).toMatchObject({ fps: 6, fpsAssumed: false });
    }
    // The stored scores are exactly what the engine computes for these bytes.
    const direct = await server.deps.engine.evaluate(clip('zeroscope-v2__toad-karate.mp4'), {
      dimensions: video.dimensions,
      prompt: 'a toad doing karate',
    });
    for (const s of direct.scores)
      expect(video.scores.find((x: { dimension: string }) => x.dimension === s.dimension)?.value).toBeCloseTo(
        s.value,
        10,
      );
  });

  it('a GIF whose frames carry no delay: scored at the assumed 10 fps, and every score says so', async () => {
    const { runId } = await getSession();
    const [w, h] = [64, 48];
    const frames = Array.from({ length: 12 }, (_, i) => ({
      pixels: Uint8Array.from({ length: w * h }, (_, k) => (((k % w) + 4 * i) >> 3) % 2),
      delayCs: null,
    }));
    const bytes = gifBytes({
      width: w,
      height: h,
      palette: [
        [20, 20, 20],
        [230, 200, 40],
      ],
      frames,
    });
    const videoId = await upload(runId, bytes, 'image/gif', { fileName: 'no-delays.gif' });
    expect((await confirm(runId, videoId)).statusCode).toBe(200);
    const session = await waitFor(
      getSession,
      (s) => s.videos.find((v: { videoId: string }) => v.videoId === videoId)?.state === 'scored',
      90_000,
    );
    const video = session.videos.find((v: { videoId: string }) => v.videoId === videoId);
    expect(video.scores.length).toBeGreaterThan(0);
    for (const s of video.scores) expect(s.frames).toMatchObject({ fps: 10, fpsAssumed: true });
    const dd = video.scores.find((s: { dimension: string }) => s.dimension === 'dynamic_degree');
    expect(dd?.frames.count).toBe(12);
  });

  it('marks a truncated video failed with an engine error code', async () => {
    const { runId } = await getSession();
    const whole = readFileSync(clip('show-1__toad-karate.mp4'));
    const videoId = await upload(runId, whole.subarray(0, Math.floor(whole.length * 0.4)));
    const res = await confirm(runId, videoId);
    if (res.statusCode === 400) expect(res.json().code).toBe('invalid_video');
    else expect(res.statusCode).toBe(200);
    const s = await waitFor(
      getSession,
      (x) =>
        ['failed', 'scored'].includes(
          x.videos.find((v: { videoId: string }) => v.videoId === videoId)?.state,
        ),
      90_000,
    );
    const v = s.videos.find((x: { videoId: string }) => x.videoId === videoId);
    expect(v.state).toBe('failed');
    expect(ENGINE_ERROR_CODES as readonly string[]).toContain(v.error.code);
  });

  it('reset: new empty session, the old run id answers 409, its videos, jobs and bytes are gone', async () => {
    const old = await getSession();
    const videoId = await upload(old.runId, clip('zeroscope-v2__burning-lamborghini-rainbow.mp4'));
    expect((await confirm(old.runId, videoId)).statusCode).toBe(200);
    const res = await server.app.inject({ method: 'POST', url: '/api/v1/score/reset', headers: h() });
    expect(res.statusCode).toBe(200);
    const fresh = res.json();
    expect(fresh).toMatchObject({ kind: 'score', videos: [] });
    expect(fresh.runId).not.toBe(old.runId);
    expect((await getSession()).runId).toBe(fresh.runId);

    const gone = await requestUpload(old.runId, { fileName: 'a.mp4', contentType: 'video/mp4', prompt: 'x' });
    expect(gone.statusCode).toBe(409);
    expect(gone.json().code).toBe('conflict');
    expect(gone.json().detail).toContain('reset');
    expect((await confirm(old.runId, videoId)).statusCode).toBe(409);
    expect(
      await server.deps.db.selectFrom('videos').select('id').where('session_id', '=', old.runId).execute(),
    ).toEqual([]);
    expect(
      await server.deps.db.selectFrom('scores').select('video_id').where('video_id', '=', videoId).execute(),
    ).toEqual([]);
    const jobs = await jobsAbout(server.deps, `video:${videoId}`);
    expect(jobs.every((j) => j.state !== 'queued' && j.state !== 'running')).toBe(true);
    await waitFor(
      () => Promise.resolve(existsSync(path.join(server.dataDir, 'blobs', 'videos', videoId))),
      (exists) => !exists,
      10_000,
    );
    // Another user's reset does not touch mine.
    await server.app.inject({ method: 'POST', url: '/api/v1/score/reset', headers: h(other) });
    expect((await getSession()).runId).toBe(fresh.runId);
  });
});
