import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/contract.js';
import { defaultFfmpegPath, defaultFfprobePath } from '../src/decode/binaries.js';
import { createDecoder } from '../src/decode/decoder.js';
import type { Decoder } from '../src/decode/decoder.js';
import { resolveLimits } from '../src/decode/limits.js';
import { createEngine } from '../src/engine.js';
import { mapLimit, readManifest } from './helpers/corpus.js';
import * as testCatalog from './helpers/test-catalog.js';

const manifest = readManifest();
let decoder: Decoder;
let engine: Engine;

beforeAll(() => {
  decoder = createDecoder({
    ffmpegPath: defaultFfmpegPath(),
    ffprobePath: defaultFfprobePath(),
    limits: resolveLimits({}),
  });
  engine = createEngine({
    threads: 2,
    catalog: { module: new URL('./helpers/test-catalog.ts', import.meta.url), exports: testCatalog },
  });
});
afterAll(async () => {
  await engine.close();
});

describe('corpus', () => {
  it('holds the 40 clips of MANIFEST.csv', () => {
    expect(manifest).toHaveLength(40);
  });

  it('probes every clip in agreement with MANIFEST.csv', async () => {
    const probes = await mapLimit(manifest, 2, (e) => decoder.probe(e.path));
    const mismatches: string[] = [];
    probes.forEach((p, i) => {
      const e = manifest[i]!;
      const bad = (what: string, got: unknown, want: unknown): void => {
        mismatches.push(`${e.file}: ${what} ${String(got)} != ${String(want)}`);
      };
      if (p.codec !== e.codec) bad('codec', p.codec, e.codec);
      if (p.width !== e.width || p.height !== e.height)
        bad('size', `${p.width}x${p.height}`, `${e.width}x${e.height}`);
      // GIF frame delays are whole centiseconds, so GIF rates agree less closely.
      if (Math.abs(p.fps - e.fps) > (e.codec === 'gif' ? 0.06 : 0.01) * e.fps) bad('fps', p.fps, e.fps);
      if (p.frameCount !== e.frames) bad('frames', p.frameCount, e.frames);
      if (!p.frameCountExact) bad('frameCountExact', false, true);
      if (Math.abs(p.durationSeconds - e.durationSeconds) > Math.max(0.15, 0.05 * e.durationSeconds))
        bad('duration', p.durationSeconds, e.durationSeconds);
      if (p.sizeBytes !== e.bytes) bad('bytes', p.sizeBytes, e.bytes);
    });
    expect(mismatches).toEqual([]);
  });

  it('decodes every frame of every clip, in order, at reduced size', async () => {
    const results = await mapLimit(manifest, 2, async (e) => {
      const p = await decoder.probe(e.path);
      let n = 0;
      let inOrder = true;
      for await (const g of decoder.frames(e.path, p, [
        { sampling: { kind: 'all' }, maxSide: 48, channels: 1 },
      ])) {
        inOrder &&= g.index === n;
        n++;
      }
      return { file: e.file, frames: n, expected: p.frameCount, inOrder };
    });
    expect(results.filter((r) => r.frames !== r.expected || !r.inOrder)).toEqual([]);
  });

  it('evaluates corpus clips through the worker pipeline (one per container/codec)', async () => {
    const picks = ['.gif', '.avi', 'sky-timelapse', 'portrait', 'show-1__panda-selfie'].map((k) =>
      manifest.find((e) => e.file.includes(k))!,
    );
    const results = await mapLimit(picks, 2, (e) =>
      engine.evaluate(e.path, {
        dimensions: ['subject_consistency', 'temporal_flickering', 'object_class'],
        auxiliary: { object: 'thing' },
      }),
    );
    for (const r of results) {
      expect(r.failures).toEqual([]);
      for (const s of r.scores) {
        expect(Number.isFinite(s.value)).toBe(true);
        expect(s.value).toBeGreaterThanOrEqual(0);
        expect(s.value).toBeLessThanOrEqual(1);
      }
    }
  });
});
