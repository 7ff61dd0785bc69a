/**
 * The upload PUT on a real listening server: the body streams to the blob store; Content-Type,
 * size limit, token expiry, single use and signature are enforced; a failed PUT leaves nothing
 * behind and the URL can be retried until it expires.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Repositories } from '../src/repositories/index.js';
import { loadUploadSigningSecret, UploadTokenSigner } from '../src/services/upload-token.js';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

const LIMIT = 64 * 1024;
let server: CoreTestServer;
let key: string;
let runId: string;

beforeAll(async () => {
  server = await startCoreServer({ listen: true, env: { VESTA_UPLOAD_MAX_BYTES: String(LIMIT) } });
  key = await server.key();
  runId = (await api('GET', '/api/v1/score')).body.runId;
});

afterAll(async () => {
  await server?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = any;

async function api(
  method: string,
  url: string,
  payload?: unknown,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${server.base}${url}`, {
    method,
    headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function newUpload(
  contentType = 'video/mp4',
): Promise<{ videoId: string; uploadUrl: string; headers: Record<string, string> }> {
  const res = await api('POST', `/api/v1/score/${runId}/videos/upload-url`, {
    fileName: 'small.mp4',
    contentType,
    prompt: 'a toad doing karate',
  });
  expect(res.status).toBe(201);
  return res.body;
}

type Body = NonNullable<RequestInit['body']>;

function put(
  url: string,
  body: Buffer | Uint8Array | Readable,
  headers: Record<string, string>,
): Promise<Response> {
  if (body instanceof Readable) {
    const init = { method: 'PUT', headers, body: Readable.toWeb(body) as unknown as Body, duplex: 'half' };
    return fetch(url, init as RequestInit);
  }
  return fetch(url, { method: 'PUT', headers, body: new Uint8Array(body) });
}

const json = async (res: Response): Promise<Json> => res.json();

/** Files under the blob directory (the partial-write area included). */
function blobFiles(): string[] {
  const root = path.join(server.dataDir, 'blobs');
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else out.push(path.relative(root, path.join(d, e.name)));
    }
  };
  walk(root);
  return out;
}

const SMALL_CLIP = clip('zeroscope-v2__burning-lamborghini-rainbow.mp4');

describe('PUT upload URL', () => {
  it('returns what the client needs and streams the clip to the blob store', async () => {
    const up = await newUpload();
    expect(up.uploadUrl.startsWith(`${server.base}/api/v1/uploads/${up.videoId}?token=`)).toBe(true);
    expect(up).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, maxBytes: LIMIT });
    expect(Date.parse((up as unknown as { expiresAt: string }).expiresAt)).toBeGreaterThan(Date.now());
    const bytes = readFileSync(SMALL_CLIP).subarray(0, 40_000);
    // Sent in small chunks, chunked transfer encoding (no Content-Length).
    const chunks = Array.from({ length: Math.ceil(bytes.length / 4096) }, (_, i) =>
      bytes.subarray(i * 4096, (i + 1) * 4096),
    );
    const res = await put(up.uploadUrl, Readable.from(chunks), up.headers);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ videoId: up.videoId, state: 'uploaded', sizeBytes: bytes.length });
    expect(readFileSync(path.join(server.dataDir, 'blobs', 'videos', up.videoId)).equals(bytes)).toBe(true);
    const again = await put(up.uploadUrl, bytes, up.headers);
    expect(again.status).toBe(409);
    expect((await json(again)).code).toBe('conflict');
  });

  it('refuses another Content-Type with 415, then accepts the declared one on the same URL', async () => {
    const up = await newUpload();
    const wrong = await put(up.uploadUrl, Buffer.alloc(100, 1), { 'Content-Type': 'video/webm' });
    expect(wrong.status).toBe(415);
    expect((await json(wrong)).code).toBe('unsupported_media_type');
    const none = await fetch(up.uploadUrl, { method: 'PUT', body: new Uint8Array(10) });
    expect(none.status).toBe(415);
    const right = await put(up.uploadUrl, Buffer.alloc(100, 1), {
      'Content-Type': 'video/mp4; charset=binary',
    });
    expect(right.status).toBe(200);
  });

  it('refuses a body over the limit with 413 and keeps nothing, with or without Content-Length', async () => {
    const before = blobFiles();
    const up = await newUpload();
    const declared = await put(up.uploadUrl, Buffer.alloc(LIMIT + 1, 7), up.headers);
    expect(declared.status).toBe(413);
    expect((await json(declared)).code).toBe('payload_too_large');
    const chunked = await put(
      up.uploadUrl,
      Readable.from([Buffer.alloc(LIMIT / 2, 1), Buffer.alloc(LIMIT / 2, 2), Buffer.alloc(10, 3)]),
      up.headers,
    );
    expect(chunked.status).toBe(413);
    expect(blobFiles()).toEqual(before);
    const row = await server.deps.db
      .selectFrom('videos')
      .select(['state', 'upload_started_at'])
      .where('id', '=', up.videoId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'awaiting_upload', upload_started_at: null });
    // Exactly the limit is fine.
    const exact = await put(up.uploadUrl, Buffer.alloc(LIMIT, 5), up.headers);
    expect(exact.status).toBe(200);
  });

  it('refuses an empty body with 400 validation_failed', async () => {
    const up = await newUpload();
    const res = await put(up.uploadUrl, new Uint8Array(0), up.headers);
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('validation_failed');
    expect(existsSync(path.join(server.dataDir, 'blobs', 'videos', up.videoId))).toBe(false);
  });

  it("refuses a missing or tampered token (401), an expired one (403) and another video's (401)", async () => {
    const up = await newUpload();
    const url = new URL(up.uploadUrl);
    const token = url.searchParams.get('token')!;
    const withToken = (t: string | null) => {
      const u = new URL(up.uploadUrl);
      if (t === null) u.searchParams.delete('token');
      else u.searchParams.set('token', t);
      return u.toString();
    };
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const t of [null, '', 'garbage', flip(token, token.length - 3), flip(token, 5), `${token}x`]) {
      const res = await put(withToken(t), Buffer.alloc(10, 1), up.headers);
      expect(res.status, String(t)).toBe(401);
      expect((await json(res)).code).toBe('unauthorized');
    }
    const other = await newUpload();
    const otherToken = new URL(other.uploadUrl).searchParams.get('token')!;
    expect((await put(withToken(otherToken), Buffer.alloc(10, 1), up.headers)).status).toBe(401);

    // A correctly signed token whose expiry has passed.
    const signer = new UploadTokenSigner(
      await loadUploadSigningSecret(server.deps.config, new Repositories(server.deps.db)),
    );
    const expired = signer.sign({
      videoId: up.videoId,
      contentType: 'video/mp4',
      maxBytes: LIMIT,
      expiresAt: Date.now() - 1000,
    });
    const res = await put(withToken(expired), Buffer.alloc(10, 1), up.headers);
    expect(res.status).toBe(403);
    expect((await json(res)).code).toBe('forbidden');
    // Nothing was stored by any of these.
    expect(existsSync(path.join(server.dataDir, 'blobs', 'videos', up.videoId))).toBe(false);
  });

  it('needs no X-API-Key: the token is the credential', async () => {
    const up = await newUpload();
    const res = await fetch(up.uploadUrl, {
      method: 'PUT',
      headers: up.headers,
      body: new Uint8Array(readFileSync(SMALL_CLIP).subarray(0, 1000)),
    });
    expect(res.status).toBe(200);
  });

  it('removes videos whose URL expired unused; keeps uploaded ones and one whose PUT is streaming', async () => {
    const unused = await newUpload();
    const uploaded = await newUpload();
    expect(
      (await put(uploaded.uploadUrl, readFileSync(SMALL_CLIP).subarray(0, 1000), uploaded.headers)).status,
    ).toBe(200);
    // A PUT that has sent its first bytes and waits for the rest.
    const streaming = await newUpload();
    const body = new Readable({ read() {} });
    body.push(readFileSync(SMALL_CLIP).subarray(0, 2000));
    const pending = put(streaming.uploadUrl, body, streaming.headers);
    const videoState = async (id: string): Promise<string | undefined> =>
      ((await api('GET', '/api/v1/score')).body.videos as Array<{ videoId: string; state: string }>).find(
        (v) => v.videoId === id,
      )?.state;
    // The PUT is always finished, so that a failed check cannot leave the server's close waiting.
    let ended = false;
    const end = (): void => {
      if (!ended) body.push(null);
      ended = true;
    };
    onTestFinished(end);
    await waitFor(
      () =>
        server.deps.db
          .selectFrom('videos')
          .select('upload_started_at')
          .where('id', '=', streaming.videoId)
          .executeTakeFirstOrThrow(),
      (v) => v.upload_started_at !== null,
      10_000,
    );

    // Before expiry nothing goes; after it, only the unused one.
    expect(await server.deps.services.uploads.sweepExpiredUploads()).toBe(0);
    const afterExpiry = Date.now() + 900_000 + 60_000;
    // The other tests of this file left unused URLs too.
    expect(await server.deps.services.uploads.sweepExpiredUploads(afterExpiry)).toBeGreaterThanOrEqual(1);
    expect(await videoState(unused.videoId)).toBeUndefined();
    expect(await videoState(uploaded.videoId)).toBe('uploaded');
    expect(await videoState(streaming.videoId)).toBe('awaiting_upload');
    // Its URL now names no video.
    const late = await put(unused.uploadUrl, readFileSync(SMALL_CLIP).subarray(0, 1000), unused.headers);
    expect(late.status).toBe(404);
    expect((await json(late)).code).toBe('not_found');

    end();
    expect((await pending).status).toBe(200);
    expect(await videoState(streaming.videoId)).toBe('uploaded');
  });

  it("keeps a clip whose bytes were stored but not recorded (its PUT's process stopped): the sweep makes it uploaded", async () => {
    const up = await newUpload();
    // What a PUT leaves when its process stops between storing the object and recording it.
    const bytes = readFileSync(SMALL_CLIP).subarray(0, 1500);
    const write = await server.deps.blobs.createWrite(`videos/${up.videoId}`);
    write.stream.end(bytes);
    await new Promise((resolve) => write.stream.once('finish', resolve));
    await write.commit();

    await server.deps.services.uploads.sweepExpiredUploads(Date.now() + 900_000 + 60_000);
    const row = await server.deps.db
      .selectFrom('videos')
      .select(['state', 'size_bytes'])
      .where('id', '=', up.videoId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'uploaded', size_bytes: bytes.length });
  });
});
