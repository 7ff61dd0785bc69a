import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ManifestError,
  MODEL_MANIFEST,
  filesFor,
  mergeManifest,
  modelStoreOptionsFromEnv,
  modelsCacheDir,
  parseManifestEntry,
  readManifestFile,
} from '../src/models/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'vesta-manifest-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('built-in model manifest', () => {
  it('every entry passes validation (safe paths, hex pins, one file per role and precision)', () => {
    for (const entry of MODEL_MANIFEST) expect(parseManifestEntry(entry)).toEqual(entry);
    expect(new Set(MODEL_MANIFEST.map((m) => m.id)).size).toBe(MODEL_MANIFEST.length);
  });

  it('covers the model-backed dimensions of issue #6', () => {
    const covered = new Set(MODEL_MANIFEST.flatMap((m) => m.dimensions));
    for (const d of [
      'subject_consistency',
      'background_consistency',
      'appearance_style',
      'aesthetic_quality',
      'imaging_quality',
      'dynamic_degree',
      'motion_smoothness',
      'overall_consistency',
      'temporal_style',
      'object_class',
      'multiple_objects',
      'color',
      'spatial_relationship',
      'scene',
      'human_action',
    ]) {
      expect(covered.has(d as never), d).toBe(true);
    }
  });

  it('uses transformers.js file suffixes per precision', () => {
    const clip = MODEL_MANIFEST.find((m) => m.id === 'clip-vit-b32')!;
    expect(filesFor(clip, 'fp32').map((f) => f.path)).toContain('onnx/vision_model.onnx');
    expect(filesFor(clip, 'fp16').map((f) => f.path)).toContain('onnx/vision_model_fp16.onnx');
    expect(filesFor(clip, 'q8').map((f) => f.path)).toContain('onnx/vision_model_quantized.onnx');
    expect(filesFor(clip, 'q8').map((f) => f.path)).not.toContain('onnx/vision_model.onnx');
  });
});

describe('manifest files (VESTA_MODELS_MANIFEST)', () => {
  const good = {
    id: 'my-model',
    source: { host: 'huggingface', repo: 'me/my-model' },
    revision: null,
    precisions: ['fp32'],
    files: [{ role: 'model', path: 'onnx/model.onnx', precision: 'fp32', size: 10, sha256: null }],
  };

  it('reads extra entries and merges them over the built-in manifest', () => {
    const file = join(tmp, 'm.json');
    writeFileSync(file, JSON.stringify({ models: [good] }));
    const merged = mergeManifest(readManifestFile(file));
    expect(merged.map((m) => m.id)).toContain('my-model');
    expect(merged.length).toBe(MODEL_MANIFEST.length + 1);
    const opts = modelStoreOptionsFromEnv({ VESTA_MODELS_MANIFEST: file, VESTA_MODELS_DIR: tmp });
    expect(opts.manifest?.some((m) => m.id === 'my-model')).toBe(true);
    expect(opts.cacheDir).toBe(tmp);
  });

  it.each([
    [{ ...good, id: 'Bad Id' }, /id must match/],
    [{ ...good, source: { host: 'ftp', repo: 'a/b' } }, /source.host/],
    [{ ...good, revision: 'main' }, /40-hex commit/],
    [{ ...good, files: [{ ...good.files[0], path: '../../etc/passwd' }] }, /must be relative/],
    [{ ...good, files: [{ ...good.files[0], path: '/abs' }] }, /must be relative/],
    [{ ...good, files: [{ ...good.files[0], sha256: 'ABC' }] }, /sha256/],
    [{ ...good, files: [{ ...good.files[0], precision: 'fp16' }] }, /not in the model's precisions/],
    [{ ...good, precisions: ['fp32', 'q8'] }, /role model has 0 files for precision q8/],
  ])('rejects an invalid entry %#', (raw, message) => {
    expect(() => parseManifestEntry(raw)).toThrow(ManifestError);
    expect(() => parseManifestEntry(raw)).toThrow(message);
  });

  it('rejects unreadable or malformed files with ManifestError', () => {
    expect(() => readManifestFile(join(tmp, 'missing.json'))).toThrow(ManifestError);
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '{"models": 3}');
    expect(() => readManifestFile(bad)).toThrow(/expected/);
  });
});

describe('cache directory', () => {
  it('VESTA_MODELS_DIR, else XDG_CACHE_HOME/vesta/models, else ~/.cache/vesta/models', () => {
    expect(modelsCacheDir({ VESTA_MODELS_DIR: '/srv/m' })).toBe('/srv/m');
    expect(modelsCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/vesta/models');
    expect(modelsCacheDir({})).toMatch(/\.cache\/vesta\/models$/);
  });
});
