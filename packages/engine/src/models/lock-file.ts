/**
 * `<cache>/models.lock.json`: what the store pinned and installed.
 *
 * - Trust on first use: a revision, size or sha256 that the manifest leaves `null` is recorded here
 *   on the first successful pull; later pulls and `verify` check against it.
 * - Installed files: their size and mtime when their sha256 was last checked, so that `ensure` can
 *   skip re-hashing a file nobody touched (a changed size or mtime triggers a re-hash).
 *
 * Writes are read-modify-write under a short cross-process lock, then an atomic rename.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { acquireFileLock } from './file-lock.js';

export const LOCK_FILE_NAME = 'models.lock.json';

export interface LockedFile {
  size: number;
  sha256: string;
  /** Set while the file is installed: mtime (ms) when its hash was last checked. */
  verifiedMtimeMs?: number;
}

export interface LockedModel {
  /** The commit the files came from (`null`: the source did not say). */
  revision: string | null;
  /** Keyed by repository path. */
  files: Record<string, LockedFile>;
  pulledAt?: string;
}

export interface LockFileData {
  version: 1;
  models: Record<string, LockedModel>;
}

function empty(): LockFileData {
  return { version: 1, models: {} };
}

function parse(text: string): LockFileData {
  const data = JSON.parse(text) as Partial<LockFileData>;
  if (data.version !== 1 || typeof data.models !== 'object' || data.models === null) return empty();
  return { version: 1, models: data.models };
}

export class ModelLockFile {
  readonly path: string;

  constructor(
    private readonly cacheDir: string,
    private readonly lockTiming: { staleMs: number; timeoutMs: number; pollMs: number },
  ) {
    this.path = join(cacheDir, LOCK_FILE_NAME);
  }

  async read(): Promise<LockFileData> {
    try {
      return parse(await readFile(this.path, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty();
      if (err instanceof SyntaxError) return empty();
      throw err;
    }
  }

  readSync(): LockFileData {
    try {
      return parse(readFileSync(this.path, 'utf8'));
    } catch {
      return empty();
    }
  }

  /** Applies `change` to the current contents under the cross-process lock and writes atomically. */
  async update(change: (data: LockFileData) => void): Promise<LockFileData> {
    await mkdir(this.cacheDir, { recursive: true });
    const held = await acquireFileLock(join(this.cacheDir, '.locks', `${LOCK_FILE_NAME}.lock`), {
      staleMs: this.lockTiming.staleMs,
      timeoutMs: Math.min(this.lockTiming.timeoutMs, 60_000),
      pollMs: Math.min(this.lockTiming.pollMs, 50),
    });
    try {
      const data = await this.read();
      change(data);
      const tmp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(tmp, `${JSON.stringify(data, null, 2)}\n`);
      await rename(tmp, this.path);
      return data;
    } finally {
      await held.release();
    }
  }
}
