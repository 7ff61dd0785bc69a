/**
 * A Bench run's notices follow the models installed now (issue #24 item 6, kept cheap for #21):
 * the server answers method availability from what its model store last saw installed while the
 * store's lock file is unchanged, so a model pulled or removed the normal way — `vesta models
 * pull/rm`, i.e. another model store on the same models folder (another process in real
 * use) — must show in the very next GET /bench/{id}, GET /bench and GET /dimensions, with no wait.
 *
 * The model is clip-vit-b32 as a tiny stand-in (a manifest entry with the real id and file layout,
 * small files of known sha256, served from a local model folder): availability reads the store,
 * not the weights, and nothing here scores with it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelStore, modelStoreOptionsFromEnv } from '@vesta/engine';
import type { ModelStore } from '@vesta/engine';
import { seedRun } from './helpers/bench-seed.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer, Json } from './helpers/core-app.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'vesta-notice-models-'));
const REPO = 'Xenova/clip-vit-base-patch32';
const FILES: Array<{ role: string; path: string; precision: 'fp32' | null }> = [
  { role: 'vision', path: 'onnx/vision_model.onnx', precision: 'fp32' },
  { role: 'text', path: 'onnx/text_model.onnx', precision: 'fp32' },
  { role: 'tokenizer', path: 'tokenizer.json', precision: null },
  { role: 'tokenizer_config', path: 'tokenizer_config.json', precision: null },
  { role: 'preprocessor', path: 'preprocessor_config.json', precision: null },
  { role: 'config', path: 'config.json', precision: null },
];

/** The stand-in's files in a local model folder (`<dir>/<repo>/<path>`) and its manifest file. */
function standIn(): { localDir: string; manifest: string } {
  const localDir = path.join(root, 'local');
  const files = FILES.map((f, i) => {
    const bytes = Buffer.from(`stand-in ${f.path} ${i}\n`);
    const file = path.join(localDir, REPO, f.path);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    return { ...f, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
  const manifest = path.join(root, 'manifest.json');
  writeFileSync(
    manifest,
    JSON.stringify({
      models: [
        {
          id: 'clip-vit-b32',
          source: { host: 'huggingface', repo: REPO },
          revision: '4c1807b705b1d015fb032789cc4d221b23025a6f',
          precisions: ['fp32'],
          files,
        },
      ],
    }),
  );
  return { localDir, manifest };
}

let server: CoreTestServer;
let key: string;
/** What `vesta models pull/rm` opens: a store of its own on the server's models folder. */
let cli: ModelStore;

beforeAll(async () => {
  const { localDir, manifest } = standIn();
  const env = { VESTA_MODELS_DIR: path.join(root, 'models'), VESTA_MODELS_MANIFEST: manifest };
  // The server has no local model folder: the model is available only once installed.
  server = await startCoreServer({ env });
  cli = createModelStore(
    modelStoreOptionsFromEnv({ ...env, VESTA_OFFLINE: '1', VESTA_MODELS_LOCAL_DIR: localDir }),
  );
  const created = await server.deps.services.apiKeys.createKey(`notice-models-${process.pid}`);
  key = created.key;
  await server.deps.bench.models.upsert({ id: 'notice-model', name: 'Notice model', description: 'test' });
  const clips = [0, 1].map((p) => ({
    prompt: `p${p}`,
    group: 'subject_consistency',
    sample: 0,
    scores: { subject_consistency: 0.9 + p / 100 },
  }));
  for (const [id, status] of [
    ['notice_done', 'completed'],
    ['notice_live', 'generating'],
  ] as const) {
    await seedRun(server, { id, userId: created.userId, model: 'notice-model', status, clips });
    // Asked for overall_consistency too (it reads the prompt; CLIP scores it): none scored.
    await server.deps.db
      .updateTable('bench_runs')
      .set({ dimensions: JSON.stringify(['subject_consistency', 'overall_consistency']) })
      .where('id', '=', id)
      .execute();
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function get(url: string): Promise<Json> {
  const res = await server.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Json>();
}

/** What each read says about overall_consistency and the prompt now. */
async function notices() {
  const done = await get('/api/v1/bench/notice_done');
  const live = await get('/api/v1/bench/notice_live');
  const listed = ((await get('/api/v1/bench')).items as Json[]).find((r) => r.id === 'notice_done')!;
  const dims = (await get('/api/v1/dimensions')).items as Json[];
  const unscored = (r: Json) => (r.unscored_dimensions as Json[]).map((u) => `${u.dimension}:${u.code}`);
  return {
    done: { prompt: (done.prompt_notice as Json | null)?.code ?? null, unscored: unscored(done) },
    live: { prompt: (live.prompt_notice as Json | null)?.code ?? null, unscored: unscored(live) },
    listed: { prompt: (listed.prompt_notice as Json | null)?.code ?? null, unscored: unscored(listed) },
    method: dims.find((d) => d.id === 'overall_consistency')!.defaultMethod as string | null,
  };
}

const MISSING = { prompt: 'prompt_not_read', unscored: ['overall_consistency:model_unavailable'] };
const INSTALLED = { prompt: null, unscored: [] };

describe('run notices after a model is installed or removed the normal way', () => {
  it('the next reads say so, each time, with no wait', async () => {
    expect(await notices()).toEqual({ done: MISSING, live: MISSING, listed: MISSING, method: null });
    // Read again: the answers kept for this state of the models folder are the same.
    expect(await notices()).toEqual({ done: MISSING, live: MISSING, listed: MISSING, method: null });

    await cli.ensure('clip-vit-b32'); // vesta models pull clip-vit-b32
    expect(await notices()).toEqual({ done: INSTALLED, live: INSTALLED, listed: INSTALLED, method: 'clip' });

    await cli.remove('clip-vit-b32'); // vesta models rm clip-vit-b32
    expect(await notices()).toEqual({ done: MISSING, live: MISSING, listed: MISSING, method: null });

    await cli.ensure('clip-vit-b32');
    expect((await notices()).done).toEqual(INSTALLED);
  });
});
