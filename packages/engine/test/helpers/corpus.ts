/** The shared real-clip corpus (`<repo>/../shared/corpus`) and its MANIFEST.csv. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/**
 * `VESTA_CORPUS_DIR`, else `shared/corpus` beside the checkout, else one level further up (a git
 * worktree under `<root>/wt/<name>` sits one level deeper than the main checkout).
 */
function findCorpus(): string {
  if (process.env.VESTA_CORPUS_DIR) return process.env.VESTA_CORPUS_DIR.replace(/\/?$/, '/');
  const beside = fileURLToPath(new URL('../../../../../shared/corpus/', import.meta.url));
  const above = fileURLToPath(new URL('../../../../../../shared/corpus/', import.meta.url));
  return !existsSync(join(beside, 'MANIFEST.csv')) && existsSync(join(above, 'MANIFEST.csv'))
    ? above
    : beside;
}

export const CORPUS_DIR = findCorpus();

export interface CorpusEntry {
  file: string;
  path: string;
  codec: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
  durationSeconds: number;
  bytes: number;
}

/** RFC 4180 fields (quoted fields may hold commas and doubled quotes). */
export function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export function readManifest(): CorpusEntry[] {
  const lines = readFileSync(join(CORPUS_DIR, 'MANIFEST.csv'), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim());
  const header = parseCsvLine(lines[0]!);
  return lines.slice(1).map((line) => {
    const f = parseCsvLine(line);
    // Numeric columns are read from the end: some free-text columns hold stray separators.
    const col = (name: string): number => {
      const i = header.indexOf(name);
      return i <= 0 ? i : f.length - (header.length - i);
    };
    const file = f[col('file')]!;
    return {
      file,
      path: join(CORPUS_DIR, file),
      codec: f[col('codec')]!,
      width: Number(f[col('width')]),
      height: Number(f[col('height')]),
      fps: Number(f[col('fps')]),
      frames: Number(f[col('frames')]),
      durationSeconds: Number(f[col('duration_s')]),
      bytes: Number(f[col('bytes')]),
    };
  });
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}
