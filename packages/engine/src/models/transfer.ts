/**
 * Moving bytes into `<file>.partial`, hashing as they stream (never buffering a whole file):
 * - `downloadToPartial`: HTTP GET with `Range: bytes=<have>-` when a partial file exists, so an
 *   interrupted transfer continues where it stopped; the bytes already on disk are re-hashed first.
 * - `copyToPartial`: from a local file.
 * - `hashFile`: sha256 of a file on disk.
 * The caller checks size and sha256 and only then renames the partial file into place.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import type { FetchFn } from './config.js';

export interface TransferResult {
  size: number;
  sha256: string;
  /** The hub's `X-Repo-Commit` header, when present. */
  commit: string | null;
}

export type BytesListener = (received: number, total: number | null) => void;

/** Why a transfer failed; `retryable` failures keep the partial file for a resumed attempt. */
export class TransferError extends Error {
  constructor(
    readonly kind: 'not_found' | 'http' | 'network' | 'truncated' | 'size_mismatch',
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  /** True when the request got no response at all (the host could not be reached). */
  unreachable = false;
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function hashInto(hash: Hash, path: string, signal?: AbortSignal): Promise<void> {
  const stream = createReadStream(path, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) hash.update(chunk as Buffer);
}

export async function hashFile(
  path: string,
  signal?: AbortSignal,
): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  await hashInto(hash, path, signal);
  return { sha256: hash.digest('hex'), size: await fileSize(path) };
}

/** Parses Content-Range: `bytes 100-199/1000` gives start 100, total 1000; the unsatisfied form gives start null. */
function parseContentRange(value: string | null): { start: number | null; total: number | null } | null {
  if (!value) return null;
  const m = /^bytes\s+(?:(\d+)-\d+|\*)\/(\d+|\*)$/i.exec(value.trim());
  if (!m) return null;
  return { start: m[1] !== undefined ? Number(m[1]) : null, total: m[2] === '*' ? null : Number(m[2]) };
}

async function appendStream(
  partial: string,
  flags: 'a' | 'w',
  body: ReadableStream<Uint8Array>,
  hash: Hash,
  start: number,
  total: number | null,
  onBytes: BytesListener | undefined,
  signal: AbortSignal | undefined,
): Promise<number> {
  const handle = await open(partial, flags);
  let received = start;
  try {
    const reader = body.getReader();
    try {
      for (;;) {
        signal?.throwIfAborted();
        const { done, value } = await reader.read();
        if (done) break;
        hash.update(value);
        await handle.write(value);
        received += value.byteLength;
        onBytes?.(received, total);
      }
    } finally {
      reader.releaseLock();
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return received;
}

export interface DownloadOptions {
  fetch: FetchFn;
  /** Abort the attempt (retryable) when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  /** Expected total size, when pinned (rejects a different Content-Length up front). */
  expectedSize: number | null;
  signal?: AbortSignal;
  onBytes?: BytesListener;
}

/**
 * GETs `url` into `partial`, resuming from the bytes already there. A stalled connection (no
 * byte for `idleTimeoutMs`) fails the attempt as retryable; the caller's `signal` aborts it.
 */
export async function downloadToPartial(
  url: string,
  partial: string,
  options: DownloadOptions,
): Promise<TransferResult> {
  const idle = new AbortController();
  const idleMs = options.idleTimeoutMs ?? 60_000;
  let timer = setTimeout(() => idle.abort(), idleMs);
  const poke = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  const signal = options.signal ? AbortSignal.any([options.signal, idle.signal]) : idle.signal;
  try {
    return await downloadAttempt(url, partial, {
      ...options,
      signal,
      onBytes: (received, total) => {
        poke();
        options.onBytes?.(received, total);
      },
    });
  } catch (err) {
    if (idle.signal.aborted && !options.signal?.aborted) {
      throw new TransferError('network', `GET ${url}: no data for ${idleMs} ms`, true, { cause: err });
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function downloadAttempt(
  url: string,
  partial: string,
  options: DownloadOptions,
): Promise<TransferResult> {
  const { signal } = options;
  let offset = await fileSize(partial);
  if (options.expectedSize !== null && offset > options.expectedSize) {
    await rm(partial, { force: true });
    offset = 0;
  }
  const hash = createHash('sha256');
  if (offset > 0) await hashInto(hash, partial, signal);

  let response: Response;
  try {
    response = await options.fetch(url, {
      headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
      redirect: 'follow',
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    signal?.throwIfAborted();
    // No response at all (DNS failure, refused or timed-out connection): the host is unreachable.
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    const why = `${(err as Error).message}${typeof code === 'string' ? ` (${code})` : ''}`;
    // A name that does not resolve (ENOTFOUND) will not resolve a second later either: retrying
    // it only makes an offline first run wait. A temporary resolver failure is EAI_AGAIN.
    const e = new TransferError('network', `GET ${url}: ${why}`, code !== 'ENOTFOUND', { cause: err });
    e.unreachable = true;
    throw e;
  }
  const commit = response.headers.get('x-repo-commit');

  if (response.status === 404) {
    await response.body?.cancel();
    throw new TransferError('not_found', `GET ${url}: 404 Not Found`, false);
  }
  if (response.status === 416 && offset > 0) {
    // The partial file may already hold every byte (the previous attempt died after the last chunk).
    const range = parseContentRange(response.headers.get('content-range'));
    await response.body?.cancel();
    if (range?.total === offset) return { size: offset, sha256: hash.digest('hex'), commit };
    await rm(partial, { force: true });
    throw new TransferError('http', `GET ${url}: 416 (partial file did not match); restarting`, true);
  }
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel();
    const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
    throw new TransferError('http', `GET ${url}: HTTP ${response.status}`, retryable);
  }
  if (!response.body) throw new TransferError('network', `GET ${url}: empty response body`, true);

  let flags: 'a' | 'w' = 'a';
  let start = offset;
  let total: number | null = null;
  const length = response.headers.get('content-length');
  if (response.status === 206) {
    const range = parseContentRange(response.headers.get('content-range'));
    if (!range || range.start !== offset) {
      await response.body.cancel();
      await rm(partial, { force: true });
      throw new TransferError('http', `GET ${url}: unexpected Content-Range; restarting`, true);
    }
    total = range.total;
  } else {
    // 200: the whole file (the server ignored or was not sent a Range header).
    flags = 'w';
    start = 0;
    total = length !== null ? Number(length) : null;
  }
  // A fresh hash when the file restarts from byte 0; otherwise continue over the partial's bytes.
  const streamHash = flags === 'w' ? createHash('sha256') : hash;
  if (options.expectedSize !== null && total !== null && total !== options.expectedSize) {
    await response.body.cancel();
    if (flags === 'w') await rm(partial, { force: true });
    throw new TransferError(
      'size_mismatch',
      `GET ${url}: the source has ${total} bytes, the pinned size is ${options.expectedSize}`,
      false,
    );
  }

  let received: number;
  try {
    received = await appendStream(
      partial,
      flags,
      response.body,
      streamHash,
      start,
      total,
      options.onBytes,
      signal,
    );
  } catch (err) {
    signal?.throwIfAborted();
    throw new TransferError('network', `GET ${url}: transfer interrupted (${(err as Error).message})`, true, {
      cause: err,
    });
  }
  if (total !== null && received < total) {
    throw new TransferError(
      'truncated',
      `GET ${url}: connection closed after ${received} of ${total} bytes`,
      true,
    );
  }
  return { size: received, sha256: streamHash.digest('hex'), commit };
}

/** Copies a local file into `partial` (fresh), hashing as it goes. */
export async function copyToPartial(
  source: string,
  partial: string,
  onBytes?: BytesListener,
  signal?: AbortSignal,
): Promise<TransferResult> {
  const total = await fileSize(source);
  const hash = createHash('sha256');
  const handle = await open(partial, 'w');
  let received = 0;
  try {
    const stream = createReadStream(source, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) });
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      hash.update(bytes);
      await handle.write(bytes);
      received += bytes.length;
      onBytes?.(received, total);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { size: received, sha256: hash.digest('hex'), commit: null };
}
