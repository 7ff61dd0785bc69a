/**
 * GET /api/v1/videos/{videoId}/content: a stored clip's bytes for its owner, whole or one byte
 * range (206 with Content-Range; 416 past the end), through the BlobStore port; another user's clip
 * answers exactly as a missing id; a clip not yet confirmed is 409. Real server, real corpus clip,
 * and the SDK's `videos.content` over HTTP — on both blob stores: the local directory and S3 (an
 * s3rver with SigV4 checks, or VESTA_TEST_S3_ENDPOINT).
 */
import { readFileSync } from 'node:fs';
import { Vesta, NotFoundError, RangeNotSatisfiableError } from '@vesta/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { externalS3, startTestS3 } from './helpers/s3.js';
import type { TestS3 } from './helpers/s3.js';

const bytes = readFileSync(clip('show-1__panda-selfie.mp4'));

describe.each(['local', 's3'] as const)('GET /api/v1/videos/{videoId}/content (%s blob store)', (store) => {
  let s3: TestS3 | undefined;
  let server: CoreTestServer;
  let keyA: string;
  let keyB: string;
  let videoId: string;
  let unconfirmedId: string;

  async function get(url: string, key: string, headers: Record<string, string> = {}) {
    return server.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });
  }

  async function mint(
    key: string,
    fileName: string,
  ): Promise<{ videoId: string; uploadUrl: string; headers: Record<string, string>; runId: string }> {
    const runId = (await get('/api/v1/score', key)).json<{ runId: string }>().runId;
    const ticket = await server.app.inject({
      method: 'POST',
      url: `/api/v1/score/${runId}/videos/upload-url`,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ fileName, contentType: 'video/mp4', prompt: 'a panda taking a selfie' }),
    });
    expect(ticket.statusCode, ticket.body).toBe(201);
    return {
      ...ticket.json<{ videoId: string; uploadUrl: string; headers: Record<string, string> }>(),
      runId,
    };
  }

  beforeAll(async () => {
    if (store === 's3') s3 = await startTestS3();
    server = await startCoreServer({ listen: true, ...(s3 ? { env: s3.env } : {}) });
    expect(server.deps.blobs.kind).toBe(store);
    keyA = await server.key();
    keyB = await server.key();
    const t = await mint(keyA, 'panda.mp4');
    videoId = t.videoId;
    // Over HTTP, to wherever the store takes uploads (this server, or S3 with a presigned URL).
    const put = await fetch(t.uploadUrl, { method: 'PUT', headers: t.headers, body: bytes });
    expect(put.status, await put.text()).toBe(200);
    const confirm = await server.app.inject({
      method: 'POST',
      url: `/api/v1/score/${t.runId}/videos/confirm-upload`,
      headers: { 'x-api-key': keyA, 'content-type': 'application/json' },
      payload: JSON.stringify({ videoId }),
    });
    expect(confirm.statusCode, confirm.body).toBe(200);
    unconfirmedId = (await mint(keyA, 'later.mp4')).videoId;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await s3?.close();
  });

  const path = () => `/api/v1/videos/${videoId}/content`;

  it('sends the whole clip with its media type and Accept-Ranges', async () => {
    const r = await get(path(), keyA);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('video/mp4');
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(r.headers['content-length']).toBe(String(bytes.length));
    expect(r.headers['cache-control']).toBe('private, max-age=300');
    expect(r.rawPayload.equals(bytes)).toBe(true);
  });

  it('answers single byte ranges with 206 and Content-Range: closed, open-ended, suffix, clamped', async () => {
    const size = bytes.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=1000-', 1000, size - 1],
      ['bytes=-500', size - 500, size - 1],
      [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
      // s3rver reads an end of 0 as "no end" (`end || Infinity`): checked on the local store and
      // on a real S3 endpoint (VESTA_TEST_S3_ENDPOINT), not on s3rver.
      ...(store === 's3' && !externalS3 ? [] : ([[`bytes=0-0`, 0, 0]] as Array<[string, number, number]>)),
    ];
    for (const [range, start, end] of cases) {
      const r = await get(path(), keyA, { range });
      expect(r.statusCode, range).toBe(206);
      expect(r.headers['content-range'], range).toBe(`bytes ${start}-${end}/${size}`);
      expect(r.headers['content-length'], range).toBe(String(end - start + 1));
      expect(r.headers['content-type']).toBe('video/mp4');
      expect(r.rawPayload.equals(bytes.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it('is 416 range_not_satisfiable with Content-Range */size for a range past the end', async () => {
    for (const range of [
      `bytes=${bytes.length}-`,
      `bytes=${bytes.length + 5}-${bytes.length + 9}`,
      'bytes=-0',
    ]) {
      const r = await get(path(), keyA, { range });
      expect(r.statusCode, range).toBe(416);
      expect(r.headers['content-range']).toBe(`bytes */${bytes.length}`);
      expect(r.json()).toMatchObject({ code: 'range_not_satisfiable' });
    }
  });

  it('ignores a Range it does not serve (several ranges, another unit, malformed): the whole clip', async () => {
    for (const range of ['bytes=0-9,20-29', 'items=0-1', 'bytes=abc', 'bytes=9-1']) {
      const r = await get(path(), keyA, { range });
      expect(r.statusCode, range).toBe(200);
      expect(r.rawPayload.length, range).toBe(bytes.length);
    }
  });

  it("another user's clip answers exactly as a missing id (404); an unconfirmed clip is 409; no key is 401", async () => {
    const missing = 'a0000000-0000-4000-8000-000000000000';
    const theirs = await get(path(), keyB, { range: 'bytes=0-9' });
    const none = await get(`/api/v1/videos/${missing}/content`, keyB, { range: 'bytes=0-9' });
    expect(theirs.statusCode).toBe(404);
    expect(none.statusCode).toBe(404);
    const strip = (r: typeof theirs, id: string) => {
      const { requestId: _r, ...body } = r.json<Record<string, string>>();
      const { date: _d, 'x-request-id': _x, 'content-length': _l, ...headers } = r.headers;
      return JSON.stringify({ body, headers }).replaceAll(id, 'ID');
    };
    expect(strip(theirs, videoId)).toBe(strip(none, missing));
    expect(JSON.stringify(theirs.headers)).not.toContain('video/mp4');

    const early = await get(`/api/v1/videos/${unconfirmedId}/content`, keyA);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'conflict' });
    const anonymous = await server.app.inject({ method: 'GET', url: path() });
    expect(anonymous.statusCode).toBe(401);
  });

  it('the SDK reads the clip whole and by range, and maps 404 and 416 to their errors', async () => {
    const vesta = new Vesta({ apiKey: keyA, baseUrl: server.base, maxRetries: 0 });
    const whole = await vesta.videos.content(videoId);
    expect(whole.contentType).toBe('video/mp4');
    expect(whole.range).toBeNull();
    expect(whole.totalBytes).toBe(bytes.length);
    expect(Buffer.from(whole.bytes).equals(bytes)).toBe(true);
    const part = await vesta.videos.content(videoId, { range: { start: 10, end: 1033 } });
    expect(part.range).toEqual({ start: 10, end: 1033 });
    expect(part.totalBytes).toBe(bytes.length);
    expect(Buffer.from(part.bytes).equals(bytes.subarray(10, 1034))).toBe(true);
    expect(vesta.videos.contentUrl(videoId)).toBe(`${server.base}/api/v1/videos/${videoId}/content`);
    await expect(vesta.videos.content(videoId, { range: { start: bytes.length } })).rejects.toBeInstanceOf(
      RangeNotSatisfiableError,
    );
    const other = new Vesta({ apiKey: keyB, baseUrl: server.base, maxRetries: 0 });
    await expect(other.videos.content(videoId)).rejects.toBeInstanceOf(NotFoundError);
  });
});
