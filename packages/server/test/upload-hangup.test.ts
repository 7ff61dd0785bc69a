/**
 * A client that hangs up mid-PUT (a dropped connection, an SDK retrying after it) on the local
 * blob store, on a raw socket: the api process streaming the body notices the closed connection at
 * once, throws the partial bytes away and gives the URL back, so the retry a moment later is
 * accepted (200), the clip is stored once, with its own bytes, and scored once. Both ways a
 * connection ends are tried: a FIN (the client's side closed; Node's parser then reports the body
 * cut short) and a reset. (S3: `s3-flows.test.ts`; two api processes on PostgreSQL, the retry
 * through the other one: `upload-takeover.test.ts`.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { hangUpMidPut, retryPut } from './helpers/hang-up.js';

const CLIP = readFileSync(clip('zeroscope-v2__burning-lamborghini-rainbow.mp4'));
const HEADERS = { 'Content-Type': 'video/mp4' };
let server: CoreTestServer;
let key: string;

beforeAll(async () => {
  server = await startCoreServer({ worker: true, listen: true });
  key = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

const call = (method: string, p: string, body?: unknown) => callApi(server.base, key, method, p, body);
const claimOf = (videoId: string) =>
  server.deps.db
    .selectFrom('videos')
    .select(['state', 'upload_started_at', 'upload_owner'])
    .where('id', '=', videoId)
    .executeTakeFirstOrThrow();
// The readiness probe's transient `.ready-*` file lives there too (it checks the directory uploads write to).
const partialFiles = (): string[] =>
  readdirSync(path.join(server.dataDir, 'blobs', '.partial')).filter((n) => !n.startsWith('.ready-'));

describe.each(['end', 'reset'] as const)('a client that hangs up mid-PUT (%s), local blob store', (how) => {
  it('releases the URL at once: the retry within 1 s is accepted, the clip stored once and scored once, no partial bytes left', async () => {
    const { runId } = (await call('GET', '/api/v1/score')).json() as { runId: string };
    const minted = await call('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'lamborghini.mp4',
      contentType: 'video/mp4',
      prompt: 'a burning lamborghini driving on rainbow',
    });
    expect(minted.status, minted.text).toBe(201);
    const { videoId, uploadUrl } = minted.json() as { videoId: string; uploadUrl: string };

    // Hung up while the server streams the body into its partial file (the claim taken).
    await hangUpMidPut(uploadUrl, HEADERS, CLIP, 1000, how, () =>
      waitFor(
        () => claimOf(videoId),
        (v) => v.upload_started_at !== null,
        10_000,
      ),
    );
    const retry = await retryPut(uploadUrl, HEADERS, CLIP, 1000);
    expect(retry.status, `${retry.text} after ${retry.tookMs} ms`).toBe(200);
    expect(retry.tookMs).toBeLessThan(1000);
    expect(JSON.parse(retry.text)).toEqual({ videoId, state: 'uploaded', sizeBytes: CLIP.length });
    expect(readFileSync(path.join(server.dataDir, 'blobs', 'videos', videoId)).equals(CLIP)).toBe(true);
    expect(partialFiles()).toEqual([]);
    expect(await claimOf(videoId)).toMatchObject({ state: 'uploaded', upload_started_at: null });

    const confirmed = await call('POST', `/api/v1/score/${runId}/videos/confirm-upload`, { videoId });
    expect(confirmed.status, confirmed.text).toBe(200);
    const scored = await waitFor(
      async () =>
        (
          (await call('GET', '/api/v1/score')).json().videos as Array<{ videoId: string; state: string }>
        ).find((v) => v.videoId === videoId),
      (v) => v?.state === 'scored' || v?.state === 'failed',
      60_000,
    );
    expect(scored?.state).toBe('scored');
    const rows = await server.deps.db
      .selectFrom('scores')
      .select(['dimension'])
      .where('video_id', '=', videoId)
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.dimension)).size).toBe(rows.length);
  }, 90_000);

  it('gives the claim back and deletes the partial bytes without any retry: confirm then says the clip was not uploaded', async () => {
    const { runId } = (await call('GET', '/api/v1/score')).json() as { runId: string };
    const minted = await call('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'lamborghini.mp4',
      contentType: 'video/mp4',
      prompt: 'a burning lamborghini driving on rainbow',
    });
    const { videoId, uploadUrl } = minted.json() as { videoId: string; uploadUrl: string };
    await hangUpMidPut(uploadUrl, HEADERS, CLIP, 1000, how, () =>
      waitFor(
        () => claimOf(videoId),
        (v) => v.upload_started_at !== null && partialFiles().length > 0,
        10_000,
      ),
    );
    const t0 = Date.now();
    const released = await waitFor(
      () => claimOf(videoId),
      (v) => v.upload_started_at === null && partialFiles().length === 0,
      5000,
    );
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(released).toEqual({ state: 'awaiting_upload', upload_started_at: null, upload_owner: null });
    const confirm = await call('POST', `/api/v1/score/${runId}/videos/confirm-upload`, { videoId });
    expect(confirm.status).toBe(409);
    expect(confirm.json().detail).toContain('has not been uploaded yet');
  });
});

describe('a client that hangs up while the partial file is being written', () => {
  it('leaves the server up: the file write still in flight when it is thrown away reports nothing unheard', async () => {
    // Megabytes already sent when the client goes: writes of the partial file are in flight when
    // the sink is destroyed, and their ERR_STREAM_DESTROYED once had no listener (the process died).
    const big = Buffer.alloc(48 * 1024 * 1024, 7);
    for (let round = 0; round < 3; round++) {
      const { runId } = (await call('GET', '/api/v1/score')).json() as { runId: string };
      const minted = await call('POST', `/api/v1/score/${runId}/videos/upload-url`, {
        fileName: 'big.mp4',
        contentType: 'video/mp4',
        prompt: 'p',
      });
      const { uploadUrl } = minted.json() as { uploadUrl: string };
      await hangUpMidPut(uploadUrl, HEADERS, big, 40 * 1024 * 1024, 'reset');
    }
    expect((await call('GET', '/api/v1/score')).status).toBe(200);
    await waitFor(
      () => Promise.resolve(partialFiles()),
      (files) => files.length === 0,
      10_000,
    );
  });
});

describe('a request body torn down before the upload reads it', () => {
  it('(the connection closed while the claim was being taken) fails the PUT at once and gives the claim back', async () => {
    const { runId } = (await call('GET', '/api/v1/score')).json() as { runId: string };
    const minted = await call('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'lamborghini.mp4',
      contentType: 'video/mp4',
      prompt: 'a burning lamborghini driving on rainbow',
    });
    const { videoId, uploadUrl } = minted.json() as { videoId: string; uploadUrl: string };
    // What Node hands a handler whose client is already gone: destroyed, never ended, and its
    // 'aborted', 'error' and 'close' events already emitted.
    const body = new Readable({ read() {} });
    body.push(CLIP.subarray(0, 1000));
    body.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    const token = new URL(uploadUrl).searchParams.get('token') ?? '';
    const t0 = Date.now();
    await expect(
      server.deps.services.uploadReceiver.receive(videoId, token, 'video/mp4', CLIP.length, body),
    ).rejects.toThrow('closed the connection');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await claimOf(videoId)).toEqual({
      state: 'awaiting_upload',
      upload_started_at: null,
      upload_owner: null,
    });
    expect(partialFiles()).toEqual([]);
  });
});
