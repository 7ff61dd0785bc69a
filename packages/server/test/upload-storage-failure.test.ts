/**
 * An upload PUT whose storage fails in the middle of the body is answered (503
 * upstream_unavailable with Retry-After), not reset; nothing is kept and the URL can be retried.
 * The failure is a real one: the blob write goes to /dev/full, where the kernel answers ENOSPC.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore, BlobWrite } from '../src/ports/blob-store.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;
let runId: string;
const LIMIT = 32 * 1024 * 1024;
const hasDevFull = fs.existsSync('/dev/full');

beforeAll(async () => {
  server = await startCoreServer({ listen: true, env: { VESTA_UPLOAD_MAX_BYTES: String(LIMIT) } });
  key = await server.key();
  runId = (
    (await (await fetch(`${server.base}/api/v1/score`, { headers: { 'x-api-key': key } })).json()) as {
      runId: string;
    }
  ).runId;
});

afterAll(async () => {
  await server?.stop();
});

/** Makes the store's next write land on a full disk (the device's ENOSPC, not a thrown stand-in). */
function nextWriteOnFullDisk(blobs: BlobStore): void {
  const original = blobs.createWrite.bind(blobs);
  blobs.createWrite = async (k: string): Promise<BlobWrite> => {
    blobs.createWrite = original;
    const real = await original(k);
    await real.abort();
    const stream = fs.createWriteStream('/dev/full', { flags: 'w' });
    return { stream, commit: () => Promise.reject(new Error('not reached')), abort: () => Promise.resolve() };
  };
}

describe.runIf(hasDevFull || process.env.CI === 'true')('an upload PUT whose storage fails mid-body', () => {
  it('is answered 503 upstream_unavailable with Retry-After, keeps nothing, and the URL works again', async () => {
    const up = (await (
      await fetch(`${server.base}/api/v1/score/${runId}/videos/upload-url`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'a.mp4', contentType: 'video/mp4', prompt: 'a cat' }),
      })
    ).json()) as { uploadUrl: string; videoId: string };
    nextWriteOnFullDisk(server.deps.blobs);
    // 16 MB in 64 KiB chunks: the storage fails long before the body ends.
    const chunks = Array.from({ length: 256 }, () => Buffer.alloc(64 * 1024, 3));
    const res = await fetch(up.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: Readable.toWeb(Readable.from(chunks)),
      duplex: 'half',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = (await res.json()) as { code: string; detail: string; requestId: string };
    expect(body.code).toBe('upstream_unavailable');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    const row = await server.deps.db
      .selectFrom('videos')
      .select(['state', 'upload_started_at'])
      .where('id', '=', up.videoId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'awaiting_upload', upload_started_at: null });
    const again = await fetch(up.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: new Uint8Array(1000),
    });
    expect(again.status).toBe(200);
  });
});
