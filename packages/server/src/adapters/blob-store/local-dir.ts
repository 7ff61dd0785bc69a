/**
 * BlobStore on a local directory. Writes go to `<root>/.partial/<random>` and are renamed into
 * place on commit, so a reader never sees half an object. Upload URLs point at the service's own
 * `PUT /api/v1/uploads/{videoId}` route with a signed single-use token (`UploadTicketSigner`).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type {
  BlobStat,
  BlobStore,
  BlobWrite,
  LocalBlob,
  UploadGrant,
  UploadTarget,
  UploadTicketSigner,
} from '../../ports/blob-store.js';

export interface LocalUploadRoute {
  signer: UploadTicketSigner;
}

const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;

export class LocalDirBlobStore implements BlobStore {
  readonly kind = 'local';
  private readonly partialDir: string;
  /** Folders known to exist: a commit creates its object's folder once, not on every write. */
  private readonly madeDirs = new Set<string>();

  /** `upload`: how upload URLs are minted (absent: this store hands out none, e.g. in tests). */
  constructor(
    private readonly root: string,
    private readonly upload?: LocalUploadRoute,
  ) {
    this.partialDir = path.join(root, '.partial');
  }

  uploadTarget(grant: UploadGrant): Promise<UploadTarget> {
    if (!this.upload) return Promise.reject(new Error('this blob store was built without an upload route'));
    const token = this.upload.signer.sign({
      videoId: grant.videoId,
      contentType: grant.contentType,
      maxBytes: grant.maxBytes,
      expiresAt: grant.expiresAt,
    });
    return Promise.resolve({
      url: `${grant.serviceBase()}/api/v1/uploads/${grant.videoId}?token=${encodeURIComponent(token)}`,
      headers: { 'Content-Type': grant.contentType },
      maxBytes: grant.maxBytes,
    });
  }

  /** Uploads go through the service's own route: no origin of its own. */
  directUploadOrigin(): Promise<string | null> {
    return Promise.resolve(null);
  }

  /**
   * Creates the directory tree; call once at start, before any write. Partial files left by a
   * process that died mid-upload are deleted: all of them where this process is the only one
   * writing here (no write can be in flight yet), or with `keepRecentMs` (several api processes on
   * one shared directory) only those untouched for that long, so that another process's upload
   * in flight keeps its file.
   */
  async init(options: { keepRecentMs?: number } = {}): Promise<void> {
    if (options.keepRecentMs === undefined) {
      await fsp.rm(this.partialDir, { recursive: true, force: true });
    } else {
      const before = Date.now() - options.keepRecentMs;
      const names = await fsp.readdir(this.partialDir).catch(() => [] as string[]);
      for (const name of names) {
        const file = path.join(this.partialDir, name);
        const stat = await fsp.stat(file).catch(() => null);
        if (stat && stat.mtimeMs < before) await fsp.rm(file, { recursive: true, force: true });
      }
    }
    await fsp.mkdir(this.partialDir, { recursive: true });
  }

  private pathOf(key: string): string {
    if (!KEY.test(key) || key.split('/').some((p) => p === '..' || p === '.'))
      throw new RangeError(`invalid blob key "${key}"`);
    return path.join(this.root, key);
  }

  async createWrite(key: string): Promise<BlobWrite> {
    const finalPath = this.pathOf(key);
    // Checked on every write although init() made it: a broken store fails here, before any byte
    // of the request is read, and is answered with 503. A write stream's own open error would
    // arrive mid-body, where the pipeline tears the request down instead.
    await fsp.mkdir(this.partialDir, { recursive: true });
    const partial = path.join(this.partialDir, randomUUID());
    // Large writes: fewer thread-pool round trips per clip (memory stays bounded by this mark).
    const stream = fs.createWriteStream(partial, { flags: 'wx', highWaterMark: 1024 * 1024 });
    let done = false;
    return {
      stream,
      commit: async () => {
        const dir = path.dirname(finalPath);
        if (!this.madeDirs.has(dir)) {
          await fsp.mkdir(dir, { recursive: true });
          this.madeDirs.add(dir);
        }
        await fsp.rename(partial, finalPath);
        done = true;
      },
      abort: async () => {
        if (done) return;
        done = true;
        // The file is opened asynchronously: remove it only once the stream has closed, or an open
        // still in flight (a body torn down at once) creates it after the removal and it stays.
        if (!stream.closed) {
          const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
          stream.destroy();
          await closed;
        }
        await fsp.rm(partial, { force: true });
      },
    };
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const s = await fsp.stat(this.pathOf(key));
      return s.isFile() ? { sizeBytes: s.size, version: null } : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return fs.createReadStream(this.pathOf(key), range);
  }

  async head(key: string, length: number): Promise<Buffer> {
    const handle = await fsp.open(this.pathOf(key), 'r');
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buf, 0, length, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /** The object's own file: nothing is copied, so there is nothing to clean up. */
  localFile(key: string, options: { signal?: AbortSignal } = {}): Promise<LocalBlob> {
    if (options.signal?.aborted) return Promise.reject(abortReason(options.signal));
    return Promise.resolve({ path: this.pathOf(key), release: () => Promise.resolve() });
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async checkReady(): Promise<void> {
    const probe = path.join(this.partialDir, `.ready-${randomUUID()}`);
    await fsp.writeFile(probe, '');
    await fsp.rm(probe, { force: true });
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
