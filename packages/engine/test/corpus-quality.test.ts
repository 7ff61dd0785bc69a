/**
 * The seven quality dimensions (this build's default methods) on every corpus clip: every value
 * finite and inside its dimension's range, and equal (within 1e-6) to the kept values of
 * `fixtures/corpus-quality-scores.json`, so that work on speed or memory cannot move a score
 * unnoticed. The slowest engine test (the real clips hold up to 800 frames); two clips at a time,
 * one per worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/contract.js';
import { createEngine } from '../src/engine.js';
import { compareScores, QUALITY, readKeptScores, scoreCorpus } from './helpers/corpus-scores.js';

let engine: Engine;

beforeAll(() => {
  engine = createEngine({ threads: 2 });
});
afterAll(async () => {
  await engine.close();
});

describe('corpus × quality dimensions', () => {
  it('every quality dimension has a default method in this build', () => {
    const dims = engine.dimensions().filter((d) => QUALITY.includes(d.id));
    expect(dims.map((d) => [d.id, d.defaultMethod !== null])).toEqual(QUALITY.map((id) => [id, true]));
  });

  it(
    'scores each clip on all seven: finite values inside each range, the kept values to 1e-6',
    { timeout: 300_000 },
    async () => {
      const ranges = new Map(engine.dimensions().map((d) => [d.id, d.range]));
      const scores = await scoreCorpus(engine);
      const problems: string[] = [];
      for (const [file, row] of Object.entries(scores)) {
        for (const d of QUALITY) {
          const s = row[d]!;
          if ('failed' in s) {
            problems.push(`${file}: ${d} failed (${s.failed})`);
            continue;
          }
          const range = ranges.get(d)!;
          if (!Number.isFinite(s.value) || s.value < range.min || s.value > range.max)
            problems.push(`${file}: ${d} = ${s.value} outside [${range.min}, ${range.max}]`);
          if (s.frames === 0) problems.push(`${file}: ${d} used no frames`);
        }
      }
      expect(problems).toEqual([]);
      expect(compareScores(readKeptScores(), scores)).toEqual([]);
    },
  );
});
