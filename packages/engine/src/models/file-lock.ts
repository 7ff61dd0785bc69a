/**
 * A cross-process lock file: created with O_EXCL, holding `{pid, host, createdAt}`, its mtime
 * refreshed as a heartbeat. A lock is stale when its heartbeat is older than `staleMs`, or when it
 * belongs to a process on this host that no longer exists; a stale lock is removed and retried.
 */
import { hostname } from 'node:os';
import { mkdir, open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FileLockOptions {
  staleMs: number;
  timeoutMs: number;
  pollMs: number;
  signal?: AbortSignal;
  /** Called once when the lock is busy and the caller starts waiting. */
  onWait?: (holder: LockHolder | null) => void;
}

export interface LockHolder {
  pid: number;
  host: string;
  createdAt: string;
}

export interface HeldLock {
  release(): Promise<void>;
}

export class LockTimeoutError extends Error {
  constructor(
    readonly path: string,
    readonly holder: LockHolder | null,
  ) {
    super(
      `lock ${path} is held${holder ? ` by pid ${holder.pid} on ${holder.host} since ${holder.createdAt}` : ''}`,
    );
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(path: string): Promise<LockHolder | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return { pid: parsed.pid, host: parsed.host, createdAt: String(parsed.createdAt ?? '') };
    }
    return null;
  } catch {
    return null;
  }
}

async function isStale(path: string, staleMs: number): Promise<boolean> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(path)).mtimeMs;
  } catch {
    return false; // gone already: the next create attempt decides
  }
  if (Date.now() - mtimeMs > staleMs) return true;
  const holder = await readHolder(path);
  // A holder that wrote nothing yet is still being created: not stale unless old.
  if (!holder) return false;
  return holder.host === hostname() && holder.pid !== process.pid && !processAlive(holder.pid);
}

/** Acquires the lock at `path`, waiting (polling) while another live holder has it. */
export async function acquireFileLock(path: string, options: FileLockOptions): Promise<HeldLock> {
  await mkdir(dirname(path), { recursive: true });
  const deadline = Date.now() + options.timeoutMs;
  let waited = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const handle = await open(path, 'wx');
      const holder: LockHolder = { pid: process.pid, host: hostname(), createdAt: new Date().toISOString() };
      await handle.writeFile(JSON.stringify(holder));
      await handle.close();
      return startHeartbeat(path, options.staleMs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await isStale(path, options.staleMs)) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (!waited) {
      waited = true;
      options.onWait?.(await readHolder(path));
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(path, await readHolder(path));
    await sleep(options.pollMs, undefined, options.signal ? { signal: options.signal } : undefined);
  }
}

function startHeartbeat(path: string, staleMs: number): HeldLock {
  const beat = setInterval(
    () => {
      const now = new Date();
      utimes(path, now, now).catch(() => undefined);
    },
    Math.max(50, Math.floor(staleMs / 3)),
  );
  beat.unref();
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(beat);
      await unlink(path).catch(() => undefined);
    },
  };
}
