/**
 * Budgets of one clip through the API, on the real engine and worker: the 5.5 KB GIF of 240 frames
 * at 7680x4320 (each frame changes one pixel) is refused at confirm by the decoded-work limit; with
 * that limit raised, the wall-clock budget fails it in the worker, which goes straight on and scores
 * another user's clip.
 */
import { readFileSync } from 'node:fs';
import { hostileGif } from '@vesta/engine/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = any;

async function uploadAndConfirm(
  s: CoreTestServer,
  key: string,
  bytes: Buffer,
  contentType: string,
): Promise<{ runId: string; videoId: string; confirm: { statusCode: number; body: Json } }> {
  const h = { 'x-api-key': key };
  const runId = (await s.app.inject({ method: 'GET', url: '/api/v1/score', headers: h })).json()
    .runId as string;
  const up = await s.app.inject({
    method: 'POST',
    url: `/api/v1/score/${runId}/videos/upload-url`,
    headers: h,
    payload: {
      fileName: contentType === 'image/gif' ? 'a.gif' : 'a.mp4',
      contentType,
      prompt: 'a cat',
    },
  });
  expect(up.statusCode, up.body).toBe(201);
  const { videoId, uploadUrl } = up.json();
  const u = new URL(uploadUrl);
  const put = await s.app.inject({
    method: 'PUT',
    url: u.pathname + u.search,
    headers: { 'content-type': contentType },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(200);
  const confirm = await s.app.inject({
    method: 'POST',
    url: `/api/v1/score/${runId}/videos/confirm-upload`,
    headers: h,
    payload: { videoId },
  });
  return { runId, videoId, confirm: { statusCode: confirm.statusCode, body: confirm.json() } };
}

async function videoOf(s: CoreTestServer, key: string, videoId: string): Promise<Json> {
  const session = (
    await s.app.inject({ method: 'GET', url: '/api/v1/score', headers: { 'x-api-key': key } })
  ).json();
  return (session.videos as Json[]).find((v) => v.videoId === videoId);
}

describe('the 5.5 KB GIF of 240 frames at 7680x4320', () => {
  it('is refused at confirm: 400 invalid_video naming decoded_work_too_large, within 30 s', async () => {
    server = await startCoreServer({ worker: true });
    const key = await server.key();
    const started = Date.now();
    const { confirm } = await uploadAndConfirm(server, key, hostileGif(), 'image/gif');
    expect(confirm.statusCode).toBe(400);
    expect(confirm.body.code).toBe('invalid_video');
    expect(confirm.body.detail).toContain('decoded_work_too_large');
    expect(confirm.body.detail).toContain('VESTA_ENGINE_MAX_DECODED_PIXELS');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('with the work limit raised, fails by its wall-clock budget in the worker, which then scores the next clip', async () => {
    server = await startCoreServer({
      worker: true,
      env: {
        VESTA_ENGINE_MAX_DECODED_PIXELS: String(1e11),
        VESTA_CLIP_BUDGET_BASE_SECONDS: '10',
        VESTA_CLIP_BUDGET_SECONDS_PER_CLIP_SECOND: '1',
      },
    });
    const a = await server.key();
    const b = await server.key();
    const s = server;
    const gif = await uploadAndConfirm(s, a, hostileGif(), 'image/gif');
    expect(gif.confirm.statusCode, JSON.stringify(gif.confirm.body)).toBe(200);
    const started = Date.now();
    const small = await uploadAndConfirm(
      s,
      b,
      readFileSync(clip('zeroscope-v2__burning-lamborghini-rainbow.mp4')),
      'video/mp4',
    );
    expect(small.confirm.statusCode).toBe(200);
    const failed = await waitFor(
      () => videoOf(s, a, gif.videoId),
      (v) => v?.state === 'failed',
      60_000,
    );
    // Budget: 10 s + 1 s per second of its 9.6 s (the small clip gets 10 s + its ~3 s).
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(failed.error.code).toBe('clip_budget_exceeded');
    expect(failed.error.detail).toContain('VESTA_CLIP_BUDGET_BASE_SECONDS');
    const scored = await waitFor(
      () => videoOf(s, b, small.videoId),
      (v) => v?.state === 'scored' || v?.state === 'failed',
      60_000,
    );
    expect(scored.state).toBe('scored');
  });
});
