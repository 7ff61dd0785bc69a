/**
 * The seven quality dimensions (this build's default methods) on every corpus clip: every value
 * finite and inside its dimension's range. The slowest engine test (the real clips hold up to
 * 800 frames); two clips at a time, one per worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DimensionId, Engine } from '../src/contract.js';
import { createEngine } from '../src/engine.js';
import { mapLimit, readManifest } from './helpers/corpus.js';

const QUALITY: DimensionId[] = [
  'subject_consistency',
  'background_consistency',
  'temporal_flickering',
  'motion_smoothness',
  'dynamic_degree',
  'aesthetic_quality',
  'imaging_quality',
];
const clips = readManifest();
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
    'scores each clip on all seven, with finite values inside each range',
    { timeout: 300_000 },
    async () => {
      const ranges = new Map(engine.dimensions().map((d) => [d.id, d.range]));
      const problems: string[] = [];
      await mapLimit(clips, 2, async (e) => {
        const r = await engine.evaluate(e.path, { dimensions: QUALITY });
        for (const f of r.failures)
          problems.push(`${e.file}: ${f.dimension} failed (${f.code}): ${f.detail}`);
        for (const s of r.scores) {
          const range = ranges.get(s.dimension)!;
          if (!Number.isFinite(s.value) || s.value < range.min || s.value > range.max) {
            problems.push(`${e.file}: ${s.dimension} = ${s.value} outside [${range.min}, ${range.max}]`);
          }
          if (s.frames.count === 0) problems.push(`${e.file}: ${s.dimension} used no frames`);
        }
        if (r.scores.length !== QUALITY.length) problems.push(`${e.file}: ${r.scores.length} scores`);
      });
      expect(problems).toEqual([]);
    },
  );
});
