/**
 * The seven quality dimensions' values on every corpus clip, kept in
 * `test/fixtures/corpus-quality-scores.json` so that a change meant to be faster (or leaner) but
 * not different is checked value for value (`corpus-quality.test.ts`; `npx tsx
 * scripts/corpus-scores.ts` writes or compares the file outside vitest).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DimensionId, Engine } from '../../src/contract.js';
import { DIMENSION_IDS } from '../../src/contract.js';
import { categoryOf } from '../../src/registry.js';
import { mapLimit, readManifest } from './corpus.js';

/** VBench's quality category: the seven dimensions with a model-free default method. */
export const QUALITY: DimensionId[] = DIMENSION_IDS.filter((id) => categoryOf(id) === 'quality');

export const SCORES_FIXTURE = fileURLToPath(
  new URL('../fixtures/corpus-quality-scores.json', import.meta.url),
);

/** Values are equal when they differ by at most this much. */
export const SCORE_TOLERANCE = 1e-6;

export interface KeptScore {
  method: string;
  methodVersion: string;
  value: number;
  frames: number;
}

/** clip file → dimension → its score; failures as `{ failed: code }`. */
export type CorpusScores = Record<string, Partial<Record<DimensionId, KeptScore | { failed: string }>>>;

/** Scores every corpus clip on the seven (two clips at a time), in manifest order. */
export async function scoreCorpus(engine: Engine): Promise<CorpusScores> {
  const clips = readManifest();
  const results = await mapLimit(clips, 2, (e) => engine.evaluate(e.path, { dimensions: QUALITY }));
  const out: CorpusScores = {};
  clips.forEach((e, i) => {
    const r = results[i]!;
    const row: CorpusScores[string] = {};
    for (const d of QUALITY) {
      const s = r.scores.find((x) => x.dimension === d);
      const f = r.failures.find((x) => x.dimension === d);
      row[d] = s
        ? { method: s.method, methodVersion: s.methodVersion, value: s.value, frames: s.frames.count }
        : { failed: f?.code ?? 'missing' };
    }
    out[e.file] = row;
  });
  return out;
}

export function readKeptScores(): CorpusScores {
  return JSON.parse(readFileSync(SCORES_FIXTURE, 'utf8')) as CorpusScores;
}

/**
 * Differences between kept and current scores: a value further apart than the tolerance, another
 * method version, frame count or outcome. An empty list means "the same scores".
 */
export function compareScores(kept: CorpusScores, now: CorpusScores, tolerance = SCORE_TOLERANCE): string[] {
  const out: string[] = [];
  for (const file of new Set([...Object.keys(kept), ...Object.keys(now)])) {
    for (const d of QUALITY) {
      const a = kept[file]?.[d];
      const b = now[file]?.[d];
      const where = `${file} ${d}`;
      if (!a || !b) out.push(`${where}: ${a ? 'no longer scored' : 'not kept'}`);
      else if ('failed' in a || 'failed' in b) {
        if (JSON.stringify(a) !== JSON.stringify(b))
          out.push(`${where}: ${JSON.stringify(a)} then, ${JSON.stringify(b)} now`);
      } else if (a.method !== b.method || a.methodVersion !== b.methodVersion)
        out.push(
          `${where}: kept for ${a.method} ${a.methodVersion}, now ${b.method} ${b.methodVersion} (rewrite the file with scripts/corpus-scores.ts --write)`,
        );
      else if (a.frames !== b.frames) out.push(`${where}: ${a.frames} frames then, ${b.frames} now`);
      else if (!(Math.abs(a.value - b.value) <= tolerance))
        out.push(`${where}: ${a.value} then, ${b.value} now (${(b.value - a.value).toExponential(2)})`);
    }
  }
  return out;
}

/** Largest |difference| per dimension between two sets of scores (for the script's report). */
export function largestDifferences(
  kept: CorpusScores,
  now: CorpusScores,
): Partial<Record<DimensionId, number>> {
  const out: Partial<Record<DimensionId, number>> = {};
  for (const [file, row] of Object.entries(now)) {
    for (const d of QUALITY) {
      const a = kept[file]?.[d];
      const b = row[d];
      if (!a || !b || 'failed' in a || 'failed' in b) continue;
      out[d] = Math.max(out[d] ?? 0, Math.abs(a.value - b.value));
    }
  }
  return out;
}
