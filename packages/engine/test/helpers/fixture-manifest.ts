/**
 * A test manifest whose models are tiny ONNX files written by the ONNX writer, and a helper that
 * registers those files on a `ModelServer` (hub layout) or lays them out in a local directory.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseManifestEntry } from '../../src/models/manifest-file.js';
import type { ModelManifestEntry } from '../../src/models/manifest.js';
import { tinyClipText, tinyClipVision, tinyDino, tinyLinearHead } from '../../src/testing/index.js';
import { hubPath, type ModelServer } from './model-server.js';

export const CLIP_REVISION = '0f3c9e6d2b1a8f7e6d5c4b3a29180f7e6d5c4b3a';
export const DINO_COMMIT = '9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a39281706';
export const HEAD_REVISION = '1234567890abcdef1234567890abcdef12345678';

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export interface FixtureFile {
  repo: string;
  /** Revision segment in URLs (`main` when the manifest leaves it unpinned). */
  ref: string;
  path: string;
  bytes: Uint8Array;
  commit?: string;
  host: 'huggingface' | 'github';
}

export function fixtureModels() {
  const clipVision = tinyClipVision();
  const clipVisionFp16 = tinyClipVision({ seed: 77 });
  const clipText = tinyClipText();
  const clipTextFp16 = tinyClipText({ seed: 78 });
  const dino = tinyDino();
  const head = tinyLinearHead({ inDim: 4 });
  const tokenizer = new TextEncoder().encode(
    JSON.stringify({ version: '1.0', model: { type: 'BPE', vocab: {} } }),
  );
  const preprocessor = new TextEncoder().encode(
    JSON.stringify({ size: { height: 224, width: 224 }, image_mean: [0.485, 0.456, 0.406] }),
  );

  const files: FixtureFile[] = [
    {
      host: 'huggingface',
      repo: 'vesta-test/tiny-clip',
      ref: CLIP_REVISION,
      path: 'onnx/vision_model.onnx',
      bytes: clipVision.bytes,
    },
    {
      host: 'huggingface',
      repo: 'vesta-test/tiny-clip',
      ref: CLIP_REVISION,
      path: 'onnx/vision_model_fp16.onnx',
      bytes: clipVisionFp16.bytes,
    },
    {
      host: 'huggingface',
      repo: 'vesta-test/tiny-clip',
      ref: CLIP_REVISION,
      path: 'onnx/text_model.onnx',
      bytes: clipText.bytes,
    },
    {
      host: 'huggingface',
      repo: 'vesta-test/tiny-clip',
      ref: CLIP_REVISION,
      path: 'onnx/text_model_fp16.onnx',
      bytes: clipTextFp16.bytes,
    },
    {
      host: 'huggingface',
      repo: 'vesta-test/tiny-clip',
      ref: CLIP_REVISION,
      path: 'tokenizer.json',
      bytes: tokenizer,
    },
    {
      host: 'huggingface',
      repo: 'vesta-test/tiny-dino',
      ref: 'main',
      path: 'onnx/model.onnx',
      bytes: dino.bytes,
      commit: DINO_COMMIT,
    },
    {
      host: 'huggingface',
      repo: 'vesta-test/tiny-dino',
      ref: 'main',
      path: 'preprocessor_config.json',
      bytes: preprocessor,
      commit: DINO_COMMIT,
    },
    { host: 'github', repo: 'vesta-test/heads', ref: HEAD_REVISION, path: 'head.onnx', bytes: head.bytes },
  ];

  const manifest: ModelManifestEntry[] = [
    parseManifestEntry({
      id: 'tiny-clip',
      description: 'tiny CLIP fixture',
      source: { host: 'huggingface', repo: 'vesta-test/tiny-clip' },
      revision: CLIP_REVISION,
      licence: 'MIT',
      dimensions: ['background_consistency'],
      precisions: ['fp32', 'fp16'],
      files: [
        {
          role: 'vision',
          path: 'onnx/vision_model.onnx',
          precision: 'fp32',
          size: clipVision.bytes.length,
          sha256: sha256(clipVision.bytes),
        },
        {
          role: 'vision',
          path: 'onnx/vision_model_fp16.onnx',
          precision: 'fp16',
          size: null,
          sha256: sha256(clipVisionFp16.bytes),
        },
        {
          role: 'text',
          path: 'onnx/text_model.onnx',
          precision: 'fp32',
          size: null,
          sha256: sha256(clipText.bytes),
        },
        {
          role: 'text',
          path: 'onnx/text_model_fp16.onnx',
          precision: 'fp16',
          size: null,
          sha256: sha256(clipTextFp16.bytes),
        },
        // Not pinned in the manifest: pinned on first use.
        { role: 'tokenizer', path: 'tokenizer.json', precision: null, size: null, sha256: null },
      ],
    }),
    parseManifestEntry({
      id: 'tiny-dino',
      description: 'tiny DINO fixture, revision pinned on first use',
      source: { host: 'huggingface', repo: 'vesta-test/tiny-dino' },
      revision: null,
      licence: 'Apache-2.0',
      dimensions: ['subject_consistency'],
      precisions: ['fp32'],
      files: [
        { role: 'model', path: 'onnx/model.onnx', precision: 'fp32', size: null, sha256: null },
        { role: 'preprocessor', path: 'preprocessor_config.json', precision: null, size: null, sha256: null },
      ],
    }),
    parseManifestEntry({
      id: 'tiny-head',
      description: 'tiny linear head on a GitHub-style raw host',
      source: { host: 'github', repo: 'vesta-test/heads' },
      revision: HEAD_REVISION,
      licence: 'MIT',
      dimensions: ['aesthetic_quality'],
      precisions: ['fp32'],
      files: [
        {
          role: 'head',
          path: 'head.onnx',
          precision: null,
          size: head.bytes.length,
          sha256: sha256(head.bytes),
        },
      ],
    }),
  ];

  return { manifest, files, clipVision, clipVisionFp16, clipText, dino, head, tokenizer };
}

/** URL path of a fixture file on the server: hub layout, or `/raw/<repo>/<ref>/<path>` for GitHub. */
export function servedPath(file: FixtureFile): string {
  return file.host === 'github'
    ? `/raw/${file.repo}/${file.ref}/${file.path}`
    : hubPath(file.repo, file.ref, file.path);
}

export function serveAll(server: ModelServer, files: readonly FixtureFile[]): void {
  for (const f of files) server.serve(servedPath(f), f.bytes, f.commit ? { commit: f.commit } : {});
}

/** Lays the files out as `<dir>/<repo>/<path>` (the store's local-directory layout). */
export function writeLocalDir(dir: string, files: readonly FixtureFile[]): void {
  for (const f of files) {
    const path = join(dir, f.repo, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.bytes);
  }
}
