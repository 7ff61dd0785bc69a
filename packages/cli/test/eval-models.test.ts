/**
 * `vesta eval --dimensions all` with the model store: fixture models (the engine's test fixtures,
 * real tensor names) served from a local model directory (`VESTA_MODELS_LOCAL_DIR`) give all 16
 * dimensions for a clip and its prompt; without models the output names the command that fetches
 * them and the model-free methods still answer. Needs the built engine (`npx tsc -b packages/engine`).
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval } from '../src/commands/eval.js';
import type { EvalHost, EvalJson } from '../src/commands/eval.js';
import { writeFixtureModelDir } from '../../engine/test/helpers/model-dir.js';

const corpus = fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url));
const clip = join(corpus, 'show-1__blue-tiger-butterflies.mp4');
const prompt = 'A blue tiger in the grass in the sunset, surrounded by butterflies.';
const auxiliary = JSON.stringify({
  object: 'cat and dog',
  color: 'blue',
  scene: 'forest road',
  appearance_style: 'oil painting',
  action: 'running on treadmill',
  relationship: 'on the left of',
  object_a: 'cat',
  object_b: 'dog',
});
let dir = '';
let manifestFile = '';

function host(env: Record<string, string>): EvalHost & { out: string; err: string } {
  const h = {
    out: '',
    err: '',
    exitCode: 0,
    io: {
      stdout: { write: (s: string) => (h.out += s) },
      stderr: { write: (s: string) => (h.err += s) },
      env,
    },
  };
  return h;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-eval-models-'));
  const manifest = writeFixtureModelDir(join(dir, 'local'));
  manifestFile = join(dir, 'manifest.json');
  await writeFile(manifestFile, JSON.stringify({ models: manifest }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vesta eval with models', () => {
  it('computes all 16 dimensions for a clip and its prompt from a local model directory', async () => {
    const h = host({
      VESTA_MODELS_LOCAL_DIR: join(dir, 'local'),
      VESTA_MODELS_DIR: join(dir, 'cache'),
      VESTA_MODELS_MANIFEST: manifestFile,
      VESTA_OFFLINE: '1',
    });
    const code = await runEval([clip], { dimensions: 'all', prompt, auxiliary, json: true, threads: '2' }, h);
    expect(h.err).toBe('');
    expect(code).toBe(0);
    const doc = JSON.parse(h.out) as EvalJson;
    const r = doc.results[0]!;
    if (!r.ok) throw new Error(r.error.detail);
    expect(r.failures).toEqual([]);
    expect(r.scores).toHaveLength(16);
    const models = new Set(r.scores.flatMap((s) => s.models.map((m) => m.id)));
    expect([...models].sort()).toEqual([
      'clip-vit-b32',
      'clip-vit-l14',
      'detr-resnet-50',
      'dino-vitb16',
      'laion-aesthetic-v1-linear',
      'raft-sintel',
      'rife-v4.9',
    ]);
  });

  it('without models, says which command fetches what; the model-free methods still answer', async () => {
    const h = host({ VESTA_MODELS_DIR: join(dir, 'empty'), VESTA_OFFLINE: '1' });
    const code = await runEval([clip], { dimensions: 'all', prompt, auxiliary, threads: '1' }, h);
    expect(code).toBe(0); // `all` is not an explicit list: unavailable dimensions are reported, not fatal
    expect(h.out).toMatch(/subject_consistency\s+\S+\s+lite/);
    expect(h.out).toMatch(/temporal_flickering\s+\S+\s+vbench/);
    expect(h.out).toMatch(/object_class: not scored \(model_unavailable\).*vesta models pull detr-resnet-50/);
    expect(h.out).toMatch(
      /overall_consistency: not scored \(model_unavailable\).*vesta models pull clip-vit-b32/,
    );
  });

  it('shows a pull on first use (a line per file with its size on a pipe), and nothing under --json', async () => {
    const env = {
      VESTA_MODELS_LOCAL_DIR: join(dir, 'local'),
      VESTA_MODELS_DIR: join(dir, 'pull-cache'),
      VESTA_MODELS_MANIFEST: manifestFile,
      VESTA_OFFLINE: '1',
    };
    const h = host(env);
    expect(await runEval([clip], { dimensions: 'subject_consistency', threads: '1' }, h)).toBe(0);
    expect(h.out).toMatch(/subject_consistency\s+\S+\s+vbench/);
    expect(h.err).toContain('Fetching models on first use (`vesta models pull --all` fetches them ahead)');
    expect(h.err).toMatch(/Fetching dino-vitb16 \S+ \(1\/\d, local\) \d+(\.\d)? (B|KB|MB)\n/);
    expect(h.err).toMatch(/Fetched dino-vitb16 \S+ \d+(\.\d)? (B|KB|MB) in \d+\.\d s\n/);
    // Present now: a second run fetches nothing and says nothing.
    const again = host(env);
    expect(await runEval([clip], { dimensions: 'subject_consistency', threads: '1' }, again)).toBe(0);
    expect(again.err).toBe('');
    const quiet = host({ ...env, VESTA_MODELS_DIR: join(dir, 'pull-cache-json') });
    expect(
      await runEval([clip], { dimensions: 'subject_consistency', threads: '1', json: true }, quiet),
    ).toBe(0);
    expect(quiet.err).toBe('');
  });

  it('skips sources another process found unreachable: no transfer is tried, and it says why', async () => {
    const cache = join(dir, 'remembered');
    await mkdir(cache, { recursive: true });
    const until = Date.now() + 60_000;
    await writeFile(
      join(cache, 'unreachable.json'),
      JSON.stringify({
        version: 1,
        sources: {
          'https://huggingface.co': { until, error: 'fetch failed (ENOTFOUND)' },
          'https://raw.githubusercontent.com': { until, error: 'fetch failed (ENOTFOUND)' },
        },
      }),
    );
    const h = host({ VESTA_MODELS_DIR: cache });
    expect(await runEval([clip], { dimensions: 'subject_consistency', threads: '1' }, h)).toBe(0);
    expect(h.out).toMatch(/subject_consistency\s+\S+\s+lite/);
    expect(h.err).toMatch(
      /^Model sources https:\/\/huggingface\.co, https:\/\/raw\.githubusercontent\.com unreachable moments ago/,
    );
    expect(h.err).not.toContain('Fetching');
    // Nothing was attempted: no model folder, no partial file.
    expect((await readdir(cache)).sort()).toEqual(['unreachable.json']);
  });

  it('rejects an --auxiliary that is not a JSON object of strings', async () => {
    const h = host({ VESTA_OFFLINE: '1', VESTA_MODELS_DIR: join(dir, 'empty') });
    expect(await runEval([clip], { auxiliary: '[1]' }, h)).toBe(2);
    expect(h.err).toMatch(/--auxiliary/);
  });
});
