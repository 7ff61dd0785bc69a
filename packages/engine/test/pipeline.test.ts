import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/contract.js';
import { createEngine } from '../src/engine.js';
import { planEvaluation } from '../src/pipeline/plan.js';
import type { EvaluationPlan, PlannedRun } from '../src/pipeline/plan.js';
import { outputsSharingModels } from '../src/pipeline/evaluate.js';
import { uniformIndices } from '../src/decode/sampling.js';
import { encodeFrames, scenes } from './helpers/synth.js';
import type { SynthClip } from './helpers/synth.js';
import * as testCatalog from './helpers/test-catalog.js';

const catalog = { module: new URL('./helpers/test-catalog.ts', import.meta.url), exports: testCatalog };
let dir = '';
let engine: Engine;
let clip: SynthClip;
let flicker: SynthClip;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-pipeline-'));
  engine = createEngine({ threads: 2, catalog });
  clip = await encodeFrames(
    join(dir, 'pan.mp4'),
    { width: 96, height: 64, frames: 20, fps: 10 },
    scenes.movingPattern(0.5),
  );
  flicker = await encodeFrames(
    join(dir, 'flicker.mp4'),
    { width: 96, height: 64, frames: 20, fps: 10 },
    scenes.flicker(1),
  );
});
afterAll(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

describe('planning', () => {
  it('shares one output between equal frame requests', async () => {
    const probe = await engine.probe(clip.path);
    const plan = planEvaluation(
      probe,
      {
        dimensions: ['subject_consistency', 'temporal_flickering', 'dynamic_degree', 'object_class'],
        auxiliary: { object: 'cat' },
      },
      testCatalog,
      {},
    );
    expect(plan.failures).toEqual([]);
    expect(plan.outputs.map((o) => o.sampling.kind)).toEqual(['all', 'every', 'uniform']);
    expect(plan.runs.map((r) => r.output)).toEqual([0, 0, 1, 2]);
  });

  it('rejects unknown dimensions with unknown_dimension', async () => {
    await expect(engine.evaluate(clip.path, { dimensions: ['sharpness' as never] })).rejects.toMatchObject({
      code: 'unknown_dimension',
    });
  });
});

describe('evaluate', () => {
  it('scores every requested dimension in workers and reports method, frames and timing', async () => {
    const result = await engine.evaluate(clip.path, {
      dimensions: [
        'subject_consistency',
        'temporal_flickering',
        'dynamic_degree',
        'object_class',
        'overall_consistency',
      ],
      auxiliary: { object: 'cat' },
      prompt: 'a pan over a texture',
    });
    expect(result.failures).toEqual([]);
    expect(result.scores.map((s) => s.dimension)).toEqual([
      'subject_consistency',
      'temporal_flickering',
      'dynamic_degree',
      'object_class',
      'overall_consistency',
    ]);
    const by = Object.fromEntries(result.scores.map((s) => [s.dimension, s]));
    expect(by.subject_consistency).toMatchObject({
      method: 'test-mean-luma',
      methodVersion: '1',
      models: [],
    });
    expect(by.subject_consistency!.frames).toMatchObject({
      count: 20,
      width: 32,
      height: 21,
      sampling: { kind: 'all' },
    });
    expect(by.subject_consistency!.frames.indices).toEqual([...Array(20).keys()]);
    expect(by.subject_consistency!.value).toBeGreaterThan(0.2);
    expect(by.subject_consistency!.value).toBeLessThan(0.8);
    expect(by.dynamic_degree!.value).toBe(0.5);
    expect(by.dynamic_degree!.details).toEqual({ sizeOk: true });
    expect(by.dynamic_degree!.frames).toMatchObject({
      width: 96,
      height: 64,
      indices: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18],
    });
    // 20 frames, 16 uniform samples: VBench's middle sampler.
    expect(by.object_class!.frames.indices).toEqual(uniformIndices(16, 20));
    expect(by.object_class!.details).toEqual({ object: 'cat' });
    expect(by.overall_consistency!.details).toEqual({ promptLength: 20 });
    expect(result.probe).toMatchObject({ width: 96, height: 64, frameCount: 20 });
    expect(result.decodeMs).toBeGreaterThan(0);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(result.decodeMs);
    for (const s of result.scores) expect(s.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('computes a real pixel statistic: a flickering clip scores lower on the MAE method than a smooth pan', async () => {
    const [smooth, flick] = await Promise.all([
      engine.evaluate(clip.path, { dimensions: ['temporal_flickering'] }),
      engine.evaluate(flicker.path, { dimensions: ['temporal_flickering'] }),
    ]);
    expect(flick.scores[0]!.value).toBeLessThan(smooth.scores[0]!.value - 0.1);
  });

  it('pads uniform sampling of a short clip by repeating the last frame, as VBench does', async () => {
    const short = await encodeFrames(
      join(dir, 'short.mp4'),
      { width: 32, height: 32, frames: 5, fps: 8 },
      scenes.static(),
    );
    const result = await engine.evaluate(short.path, {
      dimensions: ['object_class'],
      auxiliary: { object: 'x' },
    });
    expect(result.scores[0]!.frames.indices).toEqual([0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
  });

  it('records a failing dimension without losing the others', async () => {
    const result = await engine.evaluate(clip.path, {
      dimensions: [
        'motion_smoothness',
        'subject_consistency',
        'color',
        'object_class',
        'overall_consistency',
      ],
    });
    expect(result.scores.map((s) => s.dimension)).toEqual(['subject_consistency']);
    expect(result.failures).toEqual([
      {
        dimension: 'motion_smoothness',
        code: 'decode_failed',
        detail: expect.stringContaining('synthetic failure on frame 3'),
      },
      { dimension: 'color', code: 'method_unavailable', detail: expect.any(String) },
      { dimension: 'object_class', code: 'missing_auxiliary', detail: expect.stringContaining('object') },
      { dimension: 'overall_consistency', code: 'missing_prompt', detail: expect.any(String) },
    ]);
  });

  it('reports model_unavailable when a forced method needs a missing model', async () => {
    const result = await engine.evaluate(clip.path, { dimensions: ['color'], methods: { color: 'vbench' } });
    expect(result.failures).toEqual([
      { dimension: 'color', code: 'model_unavailable', detail: 'model test-model is not installed' },
    ]);
  });

  it('passes a method error code through (too_few_frames on a single-frame clip)', async () => {
    const one = await encodeFrames(
      join(dir, 'one.mp4'),
      { width: 32, height: 32, frames: 1, fps: 8 },
      scenes.static(),
    );
    const result = await engine.evaluate(one.path, {
      dimensions: ['temporal_flickering', 'subject_consistency'],
    });
    expect(result.failures).toMatchObject([{ dimension: 'temporal_flickering', code: 'too_few_frames' }]);
    expect(result.scores.map((s) => s.dimension)).toEqual(['subject_consistency']);
  });

  it('keeps the main thread responsive while methods run', async () => {
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 10);
    // test-slow burns 40 ms of CPU per frame: 20 frames = 800 ms of work, all in the worker.
    const result = await engine.evaluate(clip.path, { dimensions: ['aesthetic_quality'] });
    clearInterval(timer);
    expect(result.scores[0]!.elapsedMs).toBeGreaterThan(700);
    expect(maxGap).toBeLessThan(300);
  });

  it('aborts: kills the decode, rejects with aborted, and the engine keeps working', async () => {
    const ac = new AbortController();
    const pending = engine.evaluate(clip.path, { dimensions: ['aesthetic_quality'], signal: ac.signal });
    setTimeout(() => ac.abort(), 150);
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    const after = await engine.evaluate(clip.path, { dimensions: ['subject_consistency'] });
    expect(after.scores).toHaveLength(1);
  });

  it('does not pile up abort listeners while waiting on a slow worker', async () => {
    const ac = new AbortController();
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const r = await engine.evaluate(clip.path, { dimensions: ['aesthetic_quality'], signal: ac.signal });
      expect(r.scores).toHaveLength(1);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('rejects in-flight evaluations with aborted when the engine is closed', async () => {
    const own = createEngine({ threads: 1, catalog });
    const pending = own.evaluate(clip.path, { dimensions: ['aesthetic_quality'] });
    // Attach the expectation first: the promise rejects while close() runs.
    const rejected = expect(pending).rejects.toMatchObject({ code: 'aborted' });
    await new Promise((r) => setTimeout(r, 300));
    await own.close();
    await rejected;
  });

  it('lists the catalog dimensions', () => {
    expect(engine.dimensions().map((d) => d.id)).toContain('subject_consistency');
  });
});

describe('sharding outputs over workers', () => {
  it('keeps the outputs whose runs share a model together, and leaves model-free ones apart', () => {
    const method = (models?: string[]) => (models ? { models } : {}) as unknown as PlannedRun['method'];
    const run = (output: number, models?: string[]) =>
      ({
        run: output,
        dimension: 'subject_consistency',
        method: method(models),
        request: {},
        output,
      }) as unknown as PlannedRun;
    const plan = {
      outputs: [0, 1, 2, 3, 4].map((id) => ({ id })),
      // 0 and 3 read CLIP B/32; 3 and 4 read DINO as well, so 0, 3 and 4 go together; 1 and 2 use no model.
      runs: [run(0, ['clip-b32']), run(1), run(2), run(3, ['clip-b32', 'dino']), run(4, ['dino'])],
      failures: [],
    } as unknown as EvaluationPlan;
    const groups = outputsSharingModels(plan)
      .map((g) => [...g].sort())
      .sort((a, b) => a[0]! - b[0]!);
    expect(groups).toEqual([[0, 3, 4], [1], [2]]);
  });
});
