/**
 * Failure memory of the model store: `<cacheDir>/unreachable.json` remembers, for a short time,
 * the model sources (by origin, e.g. `https://huggingface.co`) that could not be reached — a DNS
 * failure, a refused or timed-out connection after the retries. Every process that uses the same
 * cache reads it, so a second `vesta eval` on a machine without network does not wait for the
 * unreachable host again: while the memory holds, those sources are skipped and models that only
 * they could provide read as unavailable (the model-free methods answer). A transfer that
 * succeeds from an origin forgets it; an explicit `vesta models pull` always tries again.
 *
 * The file is a hint, not a lock: it is replaced atomically (write + rename), and when two
 * processes write at once the last one wins, which at worst costs one more attempt.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const UNREACHABLE_FILE_NAME = 'unreachable.json';

/** Default time a failure is remembered (5 minutes). */
export const DEFAULT_UNREACHABLE_TTL_MS = 5 * 60_000;

interface Remembered {
  /** Epoch ms after which the origin is tried again. */
  until: number;
  /** Why (the last error message), for `vesta models list` and error messages. */
  error: string;
}

interface UnreachableData {
  version: 1;
  sources: Record<string, Remembered>;
}

/** The origin a source URL is remembered under (the URL itself when it does not parse). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

export class UnreachableMemory {
  readonly path: string;
  private cache: { data: UnreachableData; readAt: number } | null = null;

  constructor(
    cacheDir: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(cacheDir, UNREACHABLE_FILE_NAME);
  }

  private load(): UnreachableData {
    // Re-read at most every 250 ms: availability checks ask many times in a row.
    const t = this.now();
    if (this.cache && t - this.cache.readAt < 250) return this.cache.data;
    let data: UnreachableData = { version: 1, sources: {} };
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<UnreachableData>;
      if (parsed && typeof parsed.sources === 'object' && parsed.sources !== null)
        data = { version: 1, sources: parsed.sources };
    } catch {
      // Absent or unreadable: nothing remembered.
    }
    this.cache = { data, readAt: t };
    return data;
  }

  /** The remembered failure of `url`'s origin, while it holds. */
  recall(url: string): Remembered | undefined {
    if (this.ttlMs <= 0) return undefined;
    const hit = this.load().sources[originOf(url)];
    return hit !== undefined && hit.until > this.now() ? hit : undefined;
  }

  /** Every origin remembered as unreachable now, soonest expiry first. */
  list(): Array<{ origin: string; until: number; error: string }> {
    if (this.ttlMs <= 0) return [];
    const t = this.now();
    return Object.entries(this.load().sources)
      .filter(([, r]) => r.until > t)
      .map(([origin, r]) => ({ origin, until: r.until, error: r.error }))
      .sort((a, b) => a.until - b.until);
  }

  async remember(url: string, error: string): Promise<void> {
    if (this.ttlMs <= 0) return;
    await this.write((sources) => {
      sources[originOf(url)] = { until: this.now() + this.ttlMs, error: error.slice(0, 500) };
    });
  }

  async forget(url: string): Promise<void> {
    if (this.load().sources[originOf(url)] === undefined) return;
    await this.write((sources) => {
      delete sources[originOf(url)];
    });
  }

  private async write(change: (sources: Record<string, Remembered>) => void): Promise<void> {
    this.cache = null;
    const data = this.load();
    const t = this.now();
    const sources: Record<string, Remembered> = {};
    for (const [origin, r] of Object.entries(data.sources)) if (r.until > t) sources[origin] = r;
    change(sources);
    const tmp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await mkdir(join(this.path, '..'), { recursive: true });
      await writeFile(tmp, `${JSON.stringify({ version: 1, sources }, null, 2)}\n`);
      await rename(tmp, this.path);
    } catch {
      // A cache that cannot be written loses only the hint.
    }
    this.cache = { data: { version: 1, sources }, readAt: this.now() };
  }
}
