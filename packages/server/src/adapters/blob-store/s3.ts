/**
 * BlobStore on an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …) through `@aws-sdk/client-s3`.
 *
 * - Upload URLs are presigned `PUT`s straight to the bucket: the clip's bytes never pass through
 *   the API. The object's Content-Type, and its Content-Length when the client declared a size,
 *   are signed headers, so a `PUT` with another type or size is refused by the store itself.
 * - `createWrite` (the local upload route, used where bytes do come through the service) spools to
 *   a temporary file and puts the object on commit: a failed write leaves nothing in the bucket.
 * - `localFile` streams the object into a temporary file for the decoder; the file is removed on
 *   release, and at once when the download fails or is aborted.
 * - Failures of the store (unreachable, timing out, 5xx, refused credentials) are rethrown as
 *   `BlobStoreUnavailableError` (code `BLOB_STORE_UNAVAILABLE`), which the API answers with 503
 *   `upstream_unavailable`; a missing object is `null` / `NoSuchKey` as the port says.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { BlobChangedError } from '../../ports/blob-store.js';
import type {
  BlobStat,
  BlobStore,
  BlobWrite,
  LocalBlob,
  UploadGrant,
  UploadTarget,
} from '../../ports/blob-store.js';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Region the requests are signed for (`us-east-1` for most S3-compatible servers). */
  region: string;
  /** Endpoint URL of an S3-compatible server; null: AWS S3 of the region. */
  endpoint: string | null;
  /** Path-style URLs (`endpoint/bucket/key`) instead of virtual-host style (`bucket.endpoint/key`). */
  forcePathStyle: boolean;
  /** Explicit credentials; absent: the standard AWS chain (environment, profile, web identity, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Prefix of every key (e.g. `vesta/`), so one bucket can hold other data too. */
  keyPrefix?: string;
  /** Where temporary copies for the decoder go (default: the OS temp directory). */
  tempDir?: string;
  /** Seconds to wait for a connection / for a response (defaults 5 and 60). */
  connectTimeoutSeconds?: number;
  requestTimeoutSeconds?: number;
}

/** The store could not be reached or refused to work; answered 503 `upstream_unavailable`. */
export class BlobStoreUnavailableError extends Error {
  override readonly name = 'BlobStoreUnavailableError';
  readonly code = 'BLOB_STORE_UNAVAILABLE';
}

const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;
/** Temporary copies are named so that a crashed worker's leftovers can be recognised. */
export const S3_TEMP_PREFIX = 'vesta-blob-';

export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly tempDir: string;
  private readonly endpoint: string | null;
  private readonly region: string;
  private uploadOrigin: Promise<string> | undefined;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.endpoint = options.endpoint;
    this.region = options.region;
    this.prefix = options.keyPrefix ?? '';
    this.tempDir = options.tempDir ?? os.tmpdir();
    const config: S3ClientConfig = {
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      // Checksums only where S3 requires them: the default CRC32 headers would be bound into
      // presigned URLs (a plain PUT of the file would then fail) and some S3-compatible servers
      // reject them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: {
        connectionTimeout: (options.connectTimeoutSeconds ?? 5) * 1000,
        requestTimeout: (options.requestTimeoutSeconds ?? 60) * 1000,
      },
    };
    if (options.endpoint !== null) config.endpoint = options.endpoint;
    if (options.credentials) config.credentials = options.credentials;
    this.client = new S3Client(config);
  }

  private keyOf(key: string): string {
    if (!KEY.test(key) || key.split('/').some((p) => p === '..' || p === '.'))
      throw new RangeError(`invalid blob key "${key}"`);
    return this.prefix + key;
  }

  async uploadTarget(grant: UploadGrant): Promise<UploadTarget> {
    const expiresIn = Math.max(1, Math.min(7 * 24 * 3600, Math.ceil((grant.expiresAt - Date.now()) / 1000)));
    const sized = grant.sizeBytes !== null;
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.keyOf(grant.key),
      ContentType: grant.contentType,
      ...(sized ? { ContentLength: grant.sizeBytes ?? 0 } : {}),
    });
    // Signing is local (no request), but credentials may come from a provider that asks the network.
    const url = await this.call('presign an upload URL', () =>
      getSignedUrl(this.client, command, {
        expiresIn,
        signableHeaders: new Set(sized ? ['content-type', 'content-length'] : ['content-type']),
      }),
    );
    const headers: Record<string, string> = { 'Content-Type': grant.contentType };
    if (sized) headers['Content-Length'] = String(grant.sizeBytes);
    return { url, headers, maxBytes: grant.sizeBytes ?? grant.maxBytes };
  }

  /** The origin presigned URLs point at (the bucket's endpoint), read off a presigned URL once. */
  directUploadOrigin(): Promise<string | null> {
    this.uploadOrigin ??= this.call('presign an upload URL', () =>
      getSignedUrl(
        this.client,
        new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf('videos/origin-probe') }),
        { expiresIn: 60 },
      ),
    ).then(
      (url) => new URL(url).origin,
      (e: unknown) => {
        // Asked again next time (credentials may come from a provider that was not reachable).
        this.uploadOrigin = undefined;
        throw e;
      },
    );
    return this.uploadOrigin;
  }

  async createWrite(key: string): Promise<BlobWrite> {
    const objectKey = this.keyOf(key);
    const dir = await fsp.mkdtemp(path.join(this.tempDir, S3_TEMP_PREFIX));
    const file = path.join(dir, 'upload');
    const stream = fs.createWriteStream(file, { flags: 'wx', highWaterMark: 1024 * 1024 });
    let done = false;
    const cleanup = (): Promise<void> => fsp.rm(dir, { recursive: true, force: true });
    return {
      stream,
      commit: async () => {
        try {
          const { size } = await fsp.stat(file);
          await this.call('write the object', () =>
            this.client.send(
              new PutObjectCommand({
                Bucket: this.bucket,
                Key: objectKey,
                Body: fs.createReadStream(file, { highWaterMark: 1024 * 1024 }),
                ContentLength: size,
              }),
            ),
          );
          done = true;
        } finally {
          await cleanup();
        }
      },
      abort: async () => {
        if (done) return;
        done = true;
        stream.destroy();
        await cleanup();
      },
    };
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const head = await this.call('read the object', () =>
        this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })),
      );
      return { sizeBytes: head.ContentLength ?? 0, version: head.ETag ?? null };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    const out = new PassThrough();
    // A reader that goes away before the end (a client that hung up mid-download) ends the request
    // to the store too; otherwise its answer would sit unread on a socket of the client's pool.
    const cutOff = new AbortController();
    out.once('close', () => {
      if (!out.readableEnded) cutOff.abort();
    });
    this.call('read the object', () =>
      this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.keyOf(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
        { abortSignal: cutOff.signal },
      ),
    ).then(
      (res) => {
        const body = res.Body as Readable;
        if (out.destroyed) {
          body.destroy();
          return;
        }
        out.once('close', () => body.destroy());
        body.on('error', (e) => out.destroy(unavailable('read the object', e)));
        body.pipe(out);
      },
      (e: unknown) => out.destroy(e instanceof Error ? e : new Error(String(e))),
    );
    return out;
  }

  async head(key: string, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    try {
      const res = await this.call('read the object', () =>
        this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), Range: `bytes=0-${length - 1}` }),
        ),
      );
      const bytes = Buffer.from(
        await (res.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
      );
      return bytes.subarray(0, length);
    } catch (e) {
      // An empty object has no byte 0: S3 answers 416 to any range.
      if (statusOf(e) === 416) return Buffer.alloc(0);
      throw e;
    }
  }

  async localFile(
    key: string,
    options: { signal?: AbortSignal; version?: string | null } = {},
  ): Promise<LocalBlob> {
    const { signal, version } = options;
    signal?.throwIfAborted();
    const dir = await fsp.mkdtemp(path.join(this.tempDir, S3_TEMP_PREFIX));
    const file = path.join(dir, 'object');
    const release = (): Promise<void> => fsp.rm(dir, { recursive: true, force: true });
    try {
      const res = await this.call('read the object', () =>
        this.client.send(
          new GetObjectCommand({
            Bucket: this.bucket,
            Key: this.keyOf(key),
            ...(version ? { IfMatch: version } : {}),
          }),
          signal ? { abortSignal: signal } : {},
        ),
      );
      // Not every S3-compatible server honours If-Match: the answer's ETag is checked as well.
      if (version && res.ETag !== undefined && res.ETag !== version) {
        (res.Body as Readable).destroy();
        throw new BlobChangedError(`object ${key} changed since it was checked`);
      }
      try {
        await pipeline(
          res.Body as Readable,
          fs.createWriteStream(file, { flags: 'wx', highWaterMark: 1024 * 1024 }),
          signal ? { signal } : {},
        );
      } catch (e) {
        if (signal?.aborted) throw e;
        throw unavailable('download the object', e);
      }
      return { path: file, release };
    } catch (e) {
      await release();
      if (statusOf(e) === 412)
        throw new BlobChangedError(`object ${key} changed since it was checked`, { cause: e });
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.call('delete the object', () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })),
    );
  }

  /**
   * `HeadBucket`. A bucket that does not exist, or that the credentials may not use, is named with
   * the cause (S3 answers both with an empty body, which the SDK reports as `NotFound: UnknownError`).
   */
  async checkReady(): Promise<void> {
    const where = `bucket "${this.bucket}" at ${this.endpoint ?? `AWS S3 (${this.region})`}`;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (e) {
      if (e instanceof Error && e.name === 'AbortError') throw e;
      const status = statusOf(e);
      if (status === 404 || isNotFound(e))
        throw new BlobStoreUnavailableError(
          `${where} does not exist: create it (Vesta does not create buckets), or set VESTA_S3_BUCKET to an existing one`,
          { cause: e },
        );
      if (status === 403 || status === 401)
        throw new BlobStoreUnavailableError(
          `${where} refused access (HTTP ${status}): check the credentials (the standard AWS chain) and the bucket's policy`,
          { cause: e },
        );
      throw unavailable(`reach ${where}`, e);
    }
  }

  close(): void {
    this.client.destroy();
  }

  /**
   * Runs one S3 request; a failure of the store becomes `BlobStoreUnavailableError`. 404 (no such
   * object), 412 (changed) and 416 (empty range) are answers about the object and pass unchanged;
   * so does an abort by the caller.
   */
  private async call<T>(what: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (e) {
      const status = statusOf(e);
      if (status === 404 || status === 412 || status === 416) throw e;
      if (e instanceof Error && e.name === 'AbortError') throw e;
      throw unavailable(what, e);
    }
  }
}

function unavailable(what: string, cause: unknown): BlobStoreUnavailableError {
  const status = statusOf(cause);
  const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return new BlobStoreUnavailableError(
    `the object store could not ${what}${status === undefined ? '' : ` (HTTP ${status})`}: ${reason}`,
    { cause },
  );
}

function statusOf(e: unknown): number | undefined {
  const meta = (e as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata;
  return meta?.httpStatusCode;
}

function isNotFound(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  return statusOf(e) === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/** Removes temporary copies a killed worker left behind (call at start, before any download). */
export async function removeStaleTempCopies(
  tempDir: string = os.tmpdir(),
  olderThanMs = 24 * 3600_000,
): Promise<number> {
  let removed = 0;
  const now = Date.now();
  for (const name of await fsp.readdir(tempDir).catch(() => [] as string[])) {
    if (!name.startsWith(S3_TEMP_PREFIX)) continue;
    const full = path.join(tempDir, name);
    const st = await fsp.stat(full).catch(() => null);
    if (st && now - st.mtimeMs > olderThanMs) {
      await fsp.rm(full, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
