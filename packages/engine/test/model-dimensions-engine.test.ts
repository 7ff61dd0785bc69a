/**
 * The engine with a model store: fixture models served from a local model directory (the store's
 * `localDir`, i.e. `VESTA_MODELS_LOCAL_DIR`) give all 16 dimensions for a real clip and its prompt,
 * every score naming its method, model ids, revisions and precision; without models the engine
 * explains which command fetches what and the model-free methods still answer; a store that cannot
 * fetch falls back to the model-free method for default choices only.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIMENSION_IDS } from '../src/contract.js';
import type { AuxiliaryInfo, Engine } from '../src/contract.js';
import { createEngine } from '../src/engine.js';
import { createModelStore } from '../src/models/index.js';
import type { ModelManifestEntry } from '../src/models/manifest.js';
import { CORPUS_DIR } from './helpers/corpus.js';
import { writeFixtureModelDir } from './helpers/model-dir.js';

const clip = join(CORPUS_DIR, 'show-1__blue-tiger-butterflies.mp4');
const prompt = 'A blue tiger in the grass in the sunset, surrounded by butterflies.';
const auxiliary: AuxiliaryInfo = {
  object: 'cat and dog',
  color: 'blue',
  scene: 'forest road',
  appearance_style: 'oil painting',
  action: 'running on treadmill',
  relationship: 'on the left of',
  object_a: 'cat',
  object_b: 'dog',
};
const root = mkdtempSync(join(tmpdir(), 'vesta-model-engine-'));
let manifest: ModelManifestEntry[];

beforeAll(() => {
  manifest = writeFixtureModelDir(join(root, 'local'));
});

const EXPECTED_METHODS: Record<string, string> = {
  subject_consistency: 'vbench',
  background_consistency: 'vbench',
  temporal_flickering: 'vbench',
  motion_smoothness: 'rife',
  dynamic_degree: 'raft',
  aesthetic_quality: 'vbench',
  imaging_quality: 'clip-iqa',
  object_class: 'detr',
  multiple_objects: 'detr',
  human_action: 'clip',
  color: 'detr',
  spatial_relationship: 'detr',
  scene: 'clip',
  appearance_style: 'vbench',
  temporal_style: 'clip',
  overall_consistency: 'clip',
};

describe('engine with fixture models in a local model directory', () => {
  let engine: Engine;
  const pulled = new Set<string>();
  beforeAll(() => {
    const store = createModelStore({
      cacheDir: join(root, 'cache'),
      localDir: join(root, 'local'),
      offline: true,
      manifest,
    });
    engine = createEngine({
      models: store,
      threads: 2,
      inference: { batchSize: 4 },
      onModelProgress: (e) => pulled.add(e.modelId),
    });
  });
  afterAll(() => engine.close());

  it('reports the model-backed methods as available and prefers them', () => {
    for (const d of engine.dimensions()) expect(d.defaultMethod, d.id).toBe(EXPECTED_METHODS[d.id]);
  });

  it('computes all 16 dimensions for a clip and its prompt, with models, revisions and precision', async () => {
    const r = await engine.evaluate(clip, { dimensions: [...DIMENSION_IDS], prompt, auxiliary });
    expect(r.failures).toEqual([]);
    expect(r.scores.map((s) => s.dimension)).toEqual([...DIMENSION_IDS]);
    // First use: every model was copied into the (empty) cache, with progress reported.
    expect([...pulled].sort()).toEqual(manifest.map((m) => m.id).sort());
    for (const s of r.scores) {
      expect(s.method, s.dimension).toBe(EXPECTED_METHODS[s.dimension]);
      expect(Number.isFinite(s.value), s.dimension).toBe(true);
      if (s.dimension === 'temporal_flickering') continue;
      expect(s.models.length, s.dimension).toBeGreaterThan(0);
      for (const m of s.models) {
        expect(m.revision).toBe('f1f7e00000000000000000000000000000000000');
        expect(m.precision).toBe('fp32');
      }
    }
    const byDim = Object.fromEntries(r.scores.map((s) => [s.dimension, s]));
    expect(byDim.object_class!.frames.count).toBe(16);
    expect(byDim.overall_consistency!.frames.count).toBe(8);
    expect(byDim.subject_consistency!.frames.count).toBe(r.probe.frameCount);
    // Prompt alignment (8 uniform frames vs the same prompt) is one formula for both dimensions.
    expect(byDim.temporal_style!.value).toBeCloseTo(byDim.overall_consistency!.value, 10);
  });
});

describe('engine without models', () => {
  it('explains which command fetches what; the model-free methods still answer', async () => {
    const store = createModelStore({
      cacheDir: join(root, 'empty-cache'),
      localDir: null,
      offline: true,
      manifest,
    });
    const engine = createEngine({ models: store, threads: 1 });
    try {
      const subject = engine.dimensions().find((d) => d.id === 'subject_consistency')!;
      expect(subject.defaultMethod).toBe('lite');
      expect(subject.methods.find((m) => m.id === 'vbench')?.unavailableReason).toMatch(
        /vesta models pull dino-vitb16/,
      );
      const r = await engine.evaluate(clip, {
        dimensions: [
          'subject_consistency',
          'temporal_flickering',
          'aesthetic_quality',
          'overall_consistency',
          'object_class',
        ],
        prompt,
        auxiliary,
      });
      expect(r.scores.map((s) => [s.dimension, s.method])).toEqual([
        ['subject_consistency', 'lite'],
        ['temporal_flickering', 'vbench'],
        ['aesthetic_quality', 'lite'],
      ]);
      expect(r.failures.map((f) => [f.dimension, f.code])).toEqual([
        ['overall_consistency', 'model_unavailable'],
        ['object_class', 'model_unavailable'],
      ]);
      expect(r.failures[0]!.detail).toMatch(/vesta models pull clip-vit-b32/);
      expect(r.failures[1]!.detail).toMatch(/vesta models pull detr-resnet-50/);
    } finally {
      await engine.close();
    }
  });

  it('falls back to the model-free method when a default method cannot fetch its model, not when it was chosen', async () => {
    let fetches = 0;
    const refuse = (): Promise<Response> => {
      fetches++;
      return Promise.reject(new Error('network unreachable'));
    };
    const store = createModelStore({
      cacheDir: join(root, 'online-cache'),
      offline: false,
      manifest,
      fetch: refuse,
      retries: 0,
      retryDelayMs: 1,
      // This test is about one engine's fallback; the cross-process memory of unreachable hosts
      // (which would mark every model of that host unavailable) is models-unreachable.test.ts.
      unreachableTtlMs: 0,
    });
    const engine = createEngine({ models: store, threads: 1 });
    try {
      expect(engine.dimensions().find((d) => d.id === 'subject_consistency')!.defaultMethod).toBe('vbench');
      const r = await engine.evaluate(clip, {
        dimensions: ['subject_consistency', 'background_consistency'],
        methods: { background_consistency: 'vbench' },
      });
      expect(r.scores.map((s) => [s.dimension, s.method])).toEqual([['subject_consistency', 'lite']]);
      expect(r.scores[0]!.details).toMatchObject({ fallbackFrom: 'vbench' });
      expect(String(r.scores[0]!.details?.fallbackReason)).toMatch(/dino-vitb16/);
      expect(r.failures.map((f) => [f.dimension, f.code])).toEqual([
        ['background_consistency', 'model_unavailable'],
      ]);
      // A dimension that lacks its auxiliary info fails for that and pulls nothing.
      fetches = 0;
      const bare = await engine.evaluate(clip, { dimensions: ['object_class'] });
      expect(bare.failures.map((f) => f.code)).toEqual(['missing_auxiliary']);
      expect(fetches).toBe(0);
    } finally {
      await engine.close();
    }
  });

  it('remembers a failed pull for a while: later clips neither retry it nor list the method as available', async () => {
    const attempts = (retryFailedPullAfterMs: number) => {
      let fetches = 0;
      const store = createModelStore({
        cacheDir: join(root, `failed-cache-${retryFailedPullAfterMs}`),
        offline: false,
        manifest,
        fetch: () => {
          fetches++;
          return Promise.reject(new Error('network unreachable'));
        },
        retries: 0,
        retryDelayMs: 1,
        // "Retry every time" also turns off the store's cross-process memory of unreachable hosts.
        ...(retryFailedPullAfterMs === 0 ? { unreachableTtlMs: 0 } : {}),
      });
      return {
        engine: createEngine({ models: store, threads: 1, retryFailedPullAfterMs }),
        fetches: () => fetches,
      };
    };
    const remembered = attempts(60_000);
    const retried = attempts(0);
    try {
      for (const { engine } of [remembered, retried]) {
        const r = await engine.evaluate(clip, { dimensions: ['subject_consistency'] });
        expect(r.scores.map((s) => s.method)).toEqual(['lite']);
      }
      const afterFirst = [remembered.fetches(), retried.fetches()];
      expect(afterFirst[0]).toBeGreaterThan(0);
      expect(remembered.engine.dimensions().find((d) => d.id === 'subject_consistency')!.defaultMethod).toBe(
        'lite',
      );
      expect(retried.engine.dimensions().find((d) => d.id === 'subject_consistency')!.defaultMethod).toBe(
        'vbench',
      );

      const again = await remembered.engine.evaluate(clip, {
        dimensions: ['subject_consistency'],
        methods: { subject_consistency: 'vbench' },
      });
      expect(again.failures.map((f) => f.code)).toEqual(['model_unavailable']);
      expect(remembered.fetches()).toBe(afterFirst[0]);

      await retried.engine.evaluate(clip, { dimensions: ['subject_consistency'] });
      expect(retried.fetches()).toBeGreaterThan(afterFirst[1]!);
    } finally {
      await Promise.all([remembered.engine.close(), retried.engine.close()]);
    }
  });
});
