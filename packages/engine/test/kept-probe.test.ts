/**
 * `evaluate` with a kept probe (`EvaluateOptions.probe`, from `Engine.probe` of the same file, as
 * the server keeps it at confirm-upload): the clip is not probed again — the evaluation plans from
 * the kept probe — its limits are checked again, and a file whose size differs from the probe's is
 * probed anew. A real corpus clip on the real decoder.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../src/contract.js';
import type { ClipProbe, Engine } from '../src/contract.js';
import { createEngine } from '../src/engine.js';

const CLIP = path.join(
  fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url)),
  'modelscope-t2v__toad-karate.mp4',
);

let engine: Engine;
let strict: Engine;
let probe: ClipProbe;

beforeAll(async () => {
  engine = createEngine({ threads: 1 });
  strict = createEngine({ threads: 1, limits: { maxFrames: 10 } });
  probe = await engine.probe(CLIP);
});
afterAll(async () => {
  await engine.close();
  await strict.close();
});

describe('evaluate with a kept probe', () => {
  it('Engine.probe names the video stream, so the probe can be handed back', () => {
    expect(typeof probe.streamIndex).toBe('number');
    expect(probe.frameCount).toBeGreaterThan(10);
  });

  it('plans from the kept probe instead of probing the file again', async () => {
    const fresh = await engine.evaluate(CLIP, { dimensions: ['dynamic_degree'] });
    expect(fresh.probe.frameCount).toBe(probe.frameCount);
    // The same file and size, but a probe that says it has fewer frames: the evaluation uses it.
    const kept = { ...probe, frameCount: probe.frameCount - 1 };
    const reused = await engine.evaluate(CLIP, { dimensions: ['dynamic_degree'], probe: kept });
    expect(reused.probe.frameCount).toBe(probe.frameCount - 1);
    expect(reused.scores.map((s) => s.dimension)).toEqual(['dynamic_degree']);
  });

  it('probes anew when the file is not the size the probe saw', async () => {
    const stale = { ...probe, sizeBytes: probe.sizeBytes + 1, frameCount: 3 };
    const result = await engine.evaluate(CLIP, { dimensions: ['dynamic_degree'], probe: stale });
    expect(result.probe.frameCount).toBe(probe.frameCount);
  });

  it("checks the kept probe against this engine's limits", async () => {
    await expect(strict.evaluate(CLIP, { dimensions: ['dynamic_degree'], probe })).rejects.toSatisfy(
      (e: unknown) => e instanceof EngineError && e.code === 'too_many_frames',
    );
  });
});
