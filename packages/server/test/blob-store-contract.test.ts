/**
 * The BlobStore contract: one suite that every adapter passes — the local directory, and S3 on a
 * real S3-compatible server (s3rver from npm, started here; or any endpoint named by
 * VESTA_TEST_S3_ENDPOINT, see helpers/s3.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDirBlobStore } from '../src/adapters/blob-store/local-dir.js';
import { S3BlobStore } from '../src/adapters/blob-store/s3.js';
import { isUpstreamFailure } from '../src/errors.js';
import { BlobChangedError } from '../src/ports/blob-store.js';
import type { BlobStore } from '../src/ports/blob-store.js';
import { loadOrCreateSigningSecret, UploadTokenSigner } from '../src/services/upload-token.js';
import { externalS3, startTestS3 } from './helpers/s3.js';
import type { TestS3 } from './helpers/s3.js';

interface Subject {
  store: BlobStore;
  /** Where the adapter puts temporary copies (none must be left). */
  tempDir: string;
  /** Every object key the store holds. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

async function write(store: BlobStore, key: string, bytes: Buffer): Promise<void> {
  const w = await store.createWrite(key);
  await pipeline(Readable.from([bytes]), w.stream);
  await w.commit();
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const root = mkdtempSync(path.join(os.tmpdir(), 'vesta-blob-contract-'));
const signer = new UploadTokenSigner(loadOrCreateSigningSecret(root));

const adapters: Array<{ name: string; make(): Promise<Subject>; s3?: () => TestS3 }> = [];
adapters.push({
  name: 'local directory',
  async make() {
    const dir = mkdtempSync(path.join(root, 'local-'));
    const store = new LocalDirBlobStore(dir, { signer });
    await store.init();
    const list = (d: string, prefix = ''): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.name === '.partial'
          ? readdirSync(path.join(d, e.name)).map((n) => `.partial/${n}`)
          : e.isDirectory()
            ? list(path.join(d, e.name), `${prefix}${e.name}/`)
            : [`${prefix}${e.name}`],
      );
    return {
      store,
      tempDir: path.join(dir, '.partial'),
      keys: () => Promise.resolve(list(dir).sort()),
      close: () => Promise.resolve(),
    };
  },
});
let s3: TestS3;
adapters.push({
  name: externalS3 ? 'S3 (external endpoint)' : 'S3 (s3rver)',
  s3: () => s3,
  make() {
    const tempDir = mkdtempSync(path.join(root, 's3tmp-'));
    const store = new S3BlobStore({
      bucket: s3.bucket,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: s3.credentials,
      keyPrefix: s3.env.VESTA_S3_KEY_PREFIX ?? '',
      tempDir,
      connectTimeoutSeconds: 1,
      requestTimeoutSeconds: 5,
    });
    return Promise.resolve({
      store,
      tempDir,
      keys: () => s3.keys(),
      close: () => Promise.resolve(store.close()),
    });
  },
});

beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3.close();
  rmSync(root, { recursive: true, force: true });
});

describe.each(adapters)('BlobStore contract: $name', (adapter) => {
  let subject: Subject;
  let store: BlobStore;
  const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));
  beforeAll(async () => {
    subject = await adapter.make();
    store = subject.store;
  });
  afterAll(() => subject.close());

  it('writes, stats, reads whole and by range, reads the head', async () => {
    await write(store, 'videos/a1', bytes);
    const stat = await store.stat('videos/a1');
    expect(stat?.sizeBytes).toBe(bytes.length);
    expect(await readAll(store.read('videos/a1'))).toEqual(bytes);
    expect(await readAll(store.read('videos/a1', { start: 10, end: 19 }))).toEqual(bytes.subarray(10, 20));
    expect(await store.head('videos/a1', 16)).toEqual(bytes.subarray(0, 16));
    await write(store, 'videos/short', Buffer.from('abc'));
    expect(await store.head('videos/short', 16)).toEqual(Buffer.from('abc'));
    // (No head of an empty object: confirm checks the size first, and s3rver never answers a range
    // request on an empty object, where S3 answers 416.)
    await write(store, 'videos/empty', Buffer.alloc(0));
    expect((await store.stat('videos/empty'))?.sizeBytes).toBe(0);
  });

  it('a missing object: stat is null, delete is a no-op', async () => {
    expect(await store.stat('videos/none')).toBeNull();
    await store.delete('videos/none');
  });

  it('an object appears only on commit; an aborted write leaves nothing behind', async () => {
    const before = await subject.keys();
    const w = await store.createWrite('videos/aborted');
    await new Promise<void>((resolve, reject) =>
      w.stream.write(bytes.subarray(0, 1000), (e) => (e ? reject(e) : resolve())),
    );
    expect(await store.stat('videos/aborted')).toBeNull();
    await w.abort();
    await w.abort();
    expect(await store.stat('videos/aborted')).toBeNull();
    expect(await subject.keys()).toEqual(before);
  });

  it('delete removes the object', async () => {
    await write(store, 'videos/gone', bytes.subarray(0, 100));
    expect(await store.stat('videos/gone')).not.toBeNull();
    await store.delete('videos/gone');
    expect(await store.stat('videos/gone')).toBeNull();
    expect((await subject.keys()).includes('videos/gone')).toBe(false);
  });

  it('localFile gives the bytes as a file and leaves no copy after release', async () => {
    const local = await store.localFile('videos/a1');
    expect(readFileSync(local.path)).toEqual(bytes);
    await local.release();
    await local.release();
    expect(readdirSync(subject.tempDir)).toEqual([]);
  });

  it('localFile of the checked version; a changed object is refused and leaves no copy', async () => {
    await write(store, 'videos/v', Buffer.from('first version'));
    const first = await store.stat('videos/v');
    const ok = await store.localFile('videos/v', { version: first?.version ?? null });
    expect(readFileSync(ok.path, 'utf8')).toBe('first version');
    await ok.release();
    await write(store, 'videos/v', Buffer.from('second, other bytes'));
    const second = await store.stat('videos/v');
    if (first?.version == null) {
      // A store whose objects cannot change once uploaded has no versions (the local directory).
      expect(second?.version).toBeNull();
      return;
    }
    expect(second?.version).not.toBe(first.version);
    await expect(store.localFile('videos/v', { version: first.version })).rejects.toBeInstanceOf(
      BlobChangedError,
    );
    expect(readdirSync(subject.tempDir)).toEqual([]);
  });

  it('localFile with an aborted signal fails and leaves no copy', async () => {
    const ac = new AbortController();
    ac.abort(new Error('shutdown'));
    await expect(store.localFile('videos/a1', { signal: ac.signal })).rejects.toThrow();
    expect(readdirSync(subject.tempDir)).toEqual([]);
  });

  it('localFile aborted while it runs fails and leaves no copy', async () => {
    for (let i = 0; i < 5; i++) {
      const ac = new AbortController();
      const pending = store.localFile('videos/a1', { signal: ac.signal });
      ac.abort(new Error('shutdown'));
      const local = await pending.catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      // The local directory hands out the object's own path at once (nothing to abort or clean).
      if (!(local instanceof Error)) {
        expect(store.kind).toBe('local');
        await local.release();
      }
      expect(readdirSync(subject.tempDir)).toEqual([]);
    }
  });

  it('localFile of a missing object fails and leaves no copy', async () => {
    // The local directory hands out the path (the decoder then fails on it); S3 fails to download.
    const local = await store
      .localFile('videos/none')
      .catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    if (!(local instanceof Error)) await local.release();
    expect(readdirSync(subject.tempDir)).toEqual([]);
  });

  it('checkReady passes on a working store', async () => {
    await store.checkReady();
  });

  it('mints an upload URL that accepts exactly the declared type (and size, where bound)', async () => {
    const target = await store.uploadTarget({
      key: 'videos/vid_up',
      videoId: 'vid_up',
      contentType: 'video/mp4',
      maxBytes: 1_000_000,
      sizeBytes: 1000,
      expiresAt: Date.now() + 60_000,
      serviceBase: () => {
        // Only a store whose uploads go through the service's route asks where it is reached.
        if (store.kind !== 'local') throw new Error('an S3 store presigns on its own endpoint');
        return 'http://127.0.0.1:1';
      },
    });
    expect(target.headers['Content-Type']).toBe('video/mp4');
    if (store.kind === 'local') {
      // The service's own PUT route, with a signed single-use token (upload.test.ts drives it).
      expect(target.url).toMatch(/^http:\/\/127\.0\.0\.1:1\/api\/v1\/uploads\/vid_up\?token=/);
      expect(target.maxBytes).toBe(1_000_000);
      return;
    }
    expect(target.maxBytes).toBe(1000);
    expect(target.headers['Content-Length']).toBe('1000');
    const body = bytes.subarray(0, 1000);
    const wrongType = await fetch(target.url, {
      method: 'PUT',
      headers: { 'Content-Type': 'video/webm' },
      body,
    });
    expect(wrongType.status).toBe(403);
    const wrongSize = await fetch(target.url, {
      method: 'PUT',
      headers: { 'Content-Type': 'video/mp4' },
      body: bytes.subarray(0, 999),
    });
    expect(wrongSize.status).toBe(403);
    expect(await store.stat('videos/vid_up')).toBeNull();
    const put = await fetch(target.url, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, body });
    expect(put.status).toBe(200);
    expect((await store.stat('videos/vid_up'))?.sizeBytes).toBe(1000);
    expect(await store.head('videos/vid_up', 1000)).toEqual(body);
  });

  it('a reader that goes away mid-object ends the read at the source (nothing keeps streaming)', async () => {
    const large = Buffer.alloc(32 * 1024 * 1024, 7);
    await write(store, 'videos/large', large);
    const s3server = adapter.s3?.();
    const before = s3server?.requests.length ?? 0;
    const stream = store.read('videos/large');
    const first = await new Promise<Buffer>((resolve, reject) => {
      stream.once('data', resolve);
      stream.once('error', reject);
    });
    expect(first.length).toBeGreaterThan(0);
    // What the HTTP layer does with the read stream of a client that hung up.
    stream.destroy();
    if (s3server && !externalS3) {
      const get = s3server.requests.slice(before).find((r) => r.method === 'GET' && r.key === 'videos/large');
      expect(get).toBeDefined();
      const t0 = Date.now();
      expect(await get!.ended).toBe('cut off');
      expect(Date.now() - t0).toBeLessThan(2000);
    }
    await store.delete('videos/large');
  });

  it('store failures are upstream failures (503), and checkReady reports them', async () => {
    const s3server = adapter.s3?.();
    if (!s3server || externalS3) {
      // The local directory's failure paths: upload-storage-failure.test.ts; an external endpoint
      // cannot be stopped from here.
      return;
    }
    await s3server.stopServer();
    try {
      const errors = await Promise.all([
        store.checkReady().catch((e: unknown) => e),
        store.stat('videos/a1').catch((e: unknown) => e),
        store.head('videos/a1', 4).catch((e: unknown) => e),
        store.delete('videos/a1').catch((e: unknown) => e),
        store.localFile('videos/a1').catch((e: unknown) => e),
        store.createWrite('videos/w').then(async (w) => {
          await pipeline(Readable.from([bytes]), w.stream);
          return w.commit().catch((e: unknown) => e);
        }),
      ]);
      for (const e of errors) expect(isUpstreamFailure(e)).toBe(true);
      expect(readdirSync(subject.tempDir)).toEqual([]);
    } finally {
      await s3server.startServer();
    }
    await store.checkReady();
    expect(await store.stat('videos/w')).toBeNull();
  });
});
