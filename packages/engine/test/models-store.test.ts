// The model store on its real code paths: HTTP downloads from a local server that serves fixture
// models written by the ONNX writer, the filesystem cache, the lock file and the pull locks.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { EngineError } from '../src/contract.js';
import {
  FsModelStore,
  ModelStoreError,
  LOCK_FILE_NAME,
  modelStoreOptionsFromEnv,
} from '../src/models/index.js';
import type { ModelStoreOptions, LockFileData, ModelProgressEvent } from '../src/models/index.js';
import { seededWeights } from '../src/testing/index.js';
import { startModelServer, type ModelServer } from './helpers/model-server.js';
import {
  CLIP_REVISION,
  DINO_COMMIT,
  fixtureModels,
  serveAll,
  servedPath,
  sha256,
  writeLocalDir,
} from './helpers/fixture-manifest.js';

const fx = fixtureModels();
const path = (repo: string, file: string): string =>
  servedPath(fx.files.find((f) => f.repo === repo && f.path === file)!);
const CLIP_VISION = path('vesta-test/tiny-clip', 'onnx/vision_model.onnx');
const CLIP_TEXT = path('vesta-test/tiny-clip', 'onnx/text_model.onnx');
const CLIP_TOKENIZER = path('vesta-test/tiny-clip', 'tokenizer.json');
const DINO_MODEL = path('vesta-test/tiny-dino', 'onnx/model.onnx');

let server: ModelServer;
let root: string;
let cacheDir: string;

function store(overrides: Partial<ModelStoreOptions> = {}): FsModelStore {
  return new FsModelStore({
    cacheDir,
    manifest: fx.manifest,
    hubUrl: server.url,
    githubRawUrl: `${server.url}/raw`,
    retries: 0,
    retryDelayMs: 1,
    lockPollMs: 20,
    ...overrides,
  });
}

function readLock(): LockFileData {
  return JSON.parse(readFileSync(join(cacheDir, LOCK_FILE_NAME), 'utf8')) as LockFileData;
}

async function rejection(p: Promise<unknown>): Promise<ModelStoreError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelStoreError);
  return err as ModelStoreError;
}

beforeAll(async () => {
  server = await startModelServer();
  root = mkdtempSync(join(tmpdir(), 'vesta-models-'));
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
let n = 0;
beforeEach(() => {
  cacheDir = join(root, `cache-${n++}`);
  server.requests.length = 0;
  server.rangeSupport = true;
  server.delayMs = 0;
  serveAll(server, fx.files);
  for (const f of fx.files) {
    server.corrupt(servedPath(f), false);
    server.status(servedPath(f), null);
  }
});
afterEach(() => {
  server.delayMs = 0;
});

describe('model store: pull and load', () => {
  it('downloads every file of a model, verifies it, and the model loads in onnxruntime', async () => {
    const events: ModelProgressEvent[] = [];
    const installed = await store().ensure('tiny-clip', { onProgress: (e) => events.push(e) });
    expect(installed.fetched).toBe(true);
    expect(installed.revision).toBe(CLIP_REVISION);
    expect(installed.ref).toEqual({ id: 'tiny-clip', revision: CLIP_REVISION, precision: 'fp32' });
    expect(Object.keys(installed.files).sort()).toEqual(['text', 'tokenizer', 'vision']);
    expect(sha256(readFileSync(installed.files.vision!))).toBe(sha256(fx.clipVision.bytes));
    // Requests asked for the pinned revision, never a branch.
    expect(server.gets(CLIP_VISION)).toHaveLength(1);
    expect(server.requests.every((r) => r.path.includes(`/resolve/${CLIP_REVISION}/`))).toBe(true);
    // No fp16 file was fetched for an fp32 ensure.
    expect(server.requests.some((r) => r.path.includes('_fp16'))).toBe(false);
    // Progress reached each file's full size.
    const last = events.filter((e) => e.file === 'onnx/vision_model.onnx').at(-1)!;
    expect(last).toMatchObject({
      receivedBytes: fx.clipVision.bytes.length,
      totalBytes: fx.clipVision.bytes.length,
      source: 'hub',
    });

    const session = await ort.InferenceSession.create(installed.files.vision!);
    const x = { data: seededWeights(3, 3 * 64 * 64, 1), dims: [1, 3, 64, 64] };
    const out = await session.run({ pixel_values: new ort.Tensor('float32', x.data, x.dims) });
    const ref = fx.clipVision.reference(x).image_embeds.data;
    const got = out.image_embeds!.data as Float32Array;
    for (let i = 0; i < ref.length; i++) expect(Math.abs(got[i]! - ref[i]!)).toBeLessThanOrEqual(1e-5);
    await session.release();

    // The tokenizer had no sha256 in the manifest: it is pinned on first use.
    const lock = readLock();
    expect(lock.models['tiny-clip']!.files['tokenizer.json']!.sha256).toBe(sha256(fx.tokenizer));
    expect(existsSync(`${installed.files.vision!}.partial`)).toBe(false);
  });

  it('reuses the cache: a second ensure, even from a new store instance, makes no HTTP request', async () => {
    await store().ensure('tiny-clip');
    const before = server.requests.length;
    const again = await store().ensure('tiny-clip');
    expect(again.fetched).toBe(false);
    expect(server.requests.length).toBe(before);
    expect(store().isInstalledSync('tiny-clip')).toBe(true);
    expect(store().isInstalledSync('tiny-clip', 'fp16')).toBe(false);
  });

  it('fetches a precision variant on its own (fp16 suffix files + shared files)', async () => {
    const fp16 = await store().ensure('tiny-clip', { precision: 'fp16' });
    expect(fp16.files.vision).toMatch(/vision_model_fp16\.onnx$/);
    expect(sha256(readFileSync(fp16.files.vision!))).toBe(sha256(fx.clipVisionFp16.bytes));
    expect(server.gets(CLIP_VISION)).toHaveLength(0);
    await expect(store().ensure('tiny-dino', { precision: 'q8' })).rejects.toMatchObject({
      code: 'model_unavailable',
      reason: 'unknown_precision',
    });
    await expect(store().ensure('no-such-model')).rejects.toMatchObject({ reason: 'unknown_model' });
  });

  it('pins an unpinned revision from X-Repo-Commit and uses it for the remaining files', async () => {
    // The hub answers `main` with the commit; a real hub also serves /resolve/<commit>/.
    for (const f of fx.files.filter((x) => x.repo === 'vesta-test/tiny-dino')) {
      server.serve(`/${f.repo}/resolve/${DINO_COMMIT}/${f.path}`, f.bytes, { commit: DINO_COMMIT });
    }
    const installed = await store().ensure('tiny-dino');
    expect(installed.revision).toBe(DINO_COMMIT);
    const dinoPaths = server.requests.filter((r) => r.path.includes('tiny-dino')).map((r) => r.path);
    expect(dinoPaths[0]).toContain('/resolve/main/');
    expect(dinoPaths[1]).toContain(`/resolve/${DINO_COMMIT}/`);
    expect(readLock().models['tiny-dino']).toMatchObject({ revision: DINO_COMMIT });
    expect((await store().list()).find((m) => m.id === 'tiny-dino')).toMatchObject({
      installed: true,
      revision: DINO_COMMIT,
      revisionPinnedBy: 'lock',
    });
  });

  it('downloads from a GitHub-style raw host', async () => {
    const head = await store().ensure('tiny-head');
    expect(sha256(readFileSync(head.files.head!))).toBe(sha256(fx.head.bytes));
    expect(server.requests[0]!.path).toBe(`/raw/vesta-test/heads/${head.revision}/head.onnx`);
  });
});

describe('model store: integrity', () => {
  it('rejects a file whose sha256 does not match: not renamed into place, partial deleted, stable error', async () => {
    server.corrupt(CLIP_VISION);
    const err = await rejection(store().ensure('tiny-clip'));
    expect(err.code).toBe('model_unavailable');
    expect(err.reason).toBe('checksum_mismatch');
    expect(err.message).toContain('onnx/vision_model.onnx');
    const final = join(cacheDir, 'tiny-clip', 'onnx', 'vision_model.onnx');
    expect(existsSync(final)).toBe(false);
    expect(existsSync(`${final}.partial`)).toBe(false);
    expect(store().isInstalledSync('tiny-clip')).toBe(false);
  });

  it('rejects a trust-on-first-use file that changes at the source after it was pinned', async () => {
    await store().ensure('tiny-clip');
    await store().remove('tiny-clip'); // files gone, pins kept
    // Same length, different bytes: only the hash can tell.
    const tampered = Uint8Array.from(fx.tokenizer);
    tampered[2] = tampered[2] === 0x61 ? 0x62 : 0x61;
    server.serve(CLIP_TOKENIZER, tampered);
    const err = await rejection(store().ensure('tiny-clip'));
    expect(err.reason).toBe('checksum_mismatch');
    expect(err.message).toContain('tokenizer.json');
    // --unpin forgets the pin, so the new bytes are accepted and pinned.
    await store().remove('tiny-clip', { unpin: true });
    await store().ensure('tiny-clip');
    expect(readLock().models['tiny-clip']!.files['tokenizer.json']!.sha256).toBe(sha256(tampered));
  });

  it('re-hashes a file that changed on disk and never loads it: ensure re-fetches, verify deletes', async () => {
    const installed = await store().ensure('tiny-clip');
    const vision = installed.files.vision!;
    const bytes = readFileSync(vision);
    bytes[100] = bytes[100]! ^ 0xff; // same size, new mtime
    writeFileSync(vision, bytes);
    const requestsBefore = server.gets(CLIP_VISION).length;
    await store().ensure('tiny-clip');
    expect(server.gets(CLIP_VISION).length).toBe(requestsBefore + 1);
    expect(sha256(readFileSync(vision))).toBe(sha256(fx.clipVision.bytes));

    // verify: a corrupted text model is found and deleted; the rest is ok.
    const text = installed.files.text!;
    const t = readFileSync(text);
    t[10] = t[10]! ^ 0x01;
    writeFileSync(text, t);
    const [report] = await store().verify(['tiny-clip']);
    expect(report!.ok).toBe(false);
    const byPath = Object.fromEntries(report!.files.map((f) => [f.path, f.state]));
    expect(byPath).toMatchObject({
      'onnx/vision_model.onnx': 'ok',
      'onnx/text_model.onnx': 'checksum_mismatch',
      'tokenizer.json': 'ok',
      'onnx/vision_model_fp16.onnx': 'absent',
    });
    expect(existsSync(text)).toBe(false);
    expect(store().isInstalledSync('tiny-clip')).toBe(false);
  });

  it('a truncated file in the cache (wrong size) is not installed', async () => {
    const installed = await store().ensure('tiny-clip');
    writeFileSync(installed.files.vision!, readFileSync(installed.files.vision!).subarray(0, 1000));
    expect(store().isInstalledSync('tiny-clip')).toBe(false);
    expect((await store().list()).find((m) => m.id === 'tiny-clip')!.installed).toBe(false);
  });
});

describe('model store: interrupted transfers', () => {
  it('keeps the partial file after a truncated transfer and resumes it with a Range request', async () => {
    server.truncate(CLIP_VISION, 40_000);
    const err = await rejection(store().ensure('tiny-clip'));
    expect(err.reason).toBe('download_failed');
    expect(err.message).toContain('vesta models pull tiny-clip');
    const partial = join(cacheDir, 'tiny-clip', 'onnx', 'vision_model.onnx.partial');
    expect(statSync(partial).size).toBe(40_000);
    expect(existsSync(join(cacheDir, 'tiny-clip', 'onnx', 'vision_model.onnx'))).toBe(false);

    const installed = await store().ensure('tiny-clip');
    const gets = server.gets(CLIP_VISION);
    expect(gets.at(-1)!.range).toBe('bytes=40000-');
    expect(sha256(readFileSync(installed.files.vision!))).toBe(sha256(fx.clipVision.bytes));
    expect(existsSync(partial)).toBe(false);
  });

  it('retries by itself, resuming from where the connection dropped', async () => {
    expect(fx.clipText.bytes.length).toBeGreaterThan(1000);
    server.truncate(CLIP_TEXT, 1000);
    const installed = await store({ retries: 2 }).ensure('tiny-clip');
    const gets = server.gets(CLIP_TEXT);
    expect(gets.map((g) => g.range)).toEqual([null, 'bytes=1000-']);
    expect(sha256(readFileSync(installed.files.text!))).toBe(sha256(fx.clipText.bytes));
  });

  it('restarts from byte 0 when the source ignores Range', async () => {
    server.truncate(CLIP_VISION, 30_000);
    await rejection(store().ensure('tiny-clip'));
    server.rangeSupport = false;
    const installed = await store().ensure('tiny-clip');
    expect(sha256(readFileSync(installed.files.vision!))).toBe(sha256(fx.clipVision.bytes));
  });

  it('a stalled transfer fails after the idle timeout, keeping what arrived for a resumed pull', async () => {
    server.delayMs = 400; // one 16 KiB chunk, then silence longer than the idle timeout
    const err = await rejection(store({ idleTimeoutMs: 100 }).ensure('tiny-clip'));
    expect(err.reason).toBe('download_failed');
    expect(err.message).toContain('no data for 100 ms');
    server.delayMs = 0;
    const have = statSync(join(cacheDir, 'tiny-clip', 'onnx', 'vision_model.onnx.partial')).size;
    expect(have).toBeGreaterThan(0);
    await store().ensure('tiny-clip');
    expect(server.gets(CLIP_VISION).at(-1)!.range).toBe(`bytes=${have}-`);
  });

  it('an abort stops the pull with `aborted` and keeps the partial file', async () => {
    server.delayMs = 20;
    const controller = new AbortController();
    const pending = store().ensure('tiny-clip', {
      signal: controller.signal,
      onProgress: (e) => {
        if (e.receivedBytes > 30_000) controller.abort();
      },
    });
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    expect(statSync(join(cacheDir, 'tiny-clip', 'onnx', 'vision_model.onnx.partial')).size).toBeGreaterThan(
      30_000,
    );
  });
});

describe('model store: offline mode, mirror and local directory', () => {
  it('offline: a missing model is a model_unavailable error naming the command, with no request', async () => {
    const offline = store(
      modelStoreOptionsFromEnv(
        { VESTA_OFFLINE: '1' },
        { cacheDir, manifest: fx.manifest, hubUrl: server.url },
      ),
    );
    expect(offline.offline).toBe(true);
    const err = await rejection(offline.ensure('tiny-clip'));
    expect(err.code).toBe('model_unavailable');
    expect(err.reason).toBe('offline');
    expect(err.message).toContain('vesta models pull tiny-clip');
    expect(server.requests).toHaveLength(0);
    expect(offline.isAvailableSync('tiny-clip')).toBe(false);
    expect(store().isAvailableSync('tiny-clip')).toBe(true);
    // Installed models keep working offline.
    await store().ensure('tiny-clip');
    const count = server.requests.length;
    await expect(offline.ensure('tiny-clip')).resolves.toMatchObject({ fetched: false });
    expect(server.requests.length).toBe(count);
  });

  it('uses the mirror (hub layout) before the hub', async () => {
    const mirror = await startModelServer();
    try {
      for (const f of fx.files) mirror.serve(servedPath(f), f.bytes, f.commit ? { commit: f.commit } : {});
      const installed = await store({ mirrorUrl: `${mirror.url}/` }).ensure('tiny-clip');
      expect(installed.fetched).toBe(true);
      expect(mirror.gets(CLIP_VISION)).toHaveLength(1);
      expect(server.requests).toHaveLength(0);
    } finally {
      await mirror.close();
    }
  });

  it('falls back from a mirror that lacks a file to the hub', async () => {
    const mirror = await startModelServer();
    try {
      await store({ mirrorUrl: mirror.url }).ensure('tiny-head');
      expect(mirror.requests).toHaveLength(1);
      expect(server.requests).toHaveLength(1);
    } finally {
      await mirror.close();
    }
  });

  it('installs from a local directory, even offline, verifying the hashes', async () => {
    const local = join(root, `local-${n}`);
    writeLocalDir(local, fx.files);
    const offline = store({ offline: true, localDir: local });
    expect(offline.isAvailableSync('tiny-clip')).toBe(true);
    const installed = await offline.ensure('tiny-clip');
    expect(sha256(readFileSync(installed.files.vision!))).toBe(sha256(fx.clipVision.bytes));
    expect(server.requests).toHaveLength(0);

    // A corrupt local copy is rejected like a corrupt download.
    writeFileSync(join(local, 'vesta-test/tiny-clip', 'onnx/text_model_fp16.onnx'), new Uint8Array(10));
    await expect(offline.ensure('tiny-clip', { precision: 'fp16' })).rejects.toMatchObject({
      reason: 'checksum_mismatch',
    });
  });

  it('reports a file no source has as not_found', async () => {
    server.status(CLIP_TOKENIZER, 404);
    await expect(store().ensure('tiny-clip')).rejects.toMatchObject({ reason: 'not_found' });
  });
});

describe('model store: concurrency', () => {
  it('coalesces concurrent ensures of one model in a process: one download per file', async () => {
    server.delayMs = 2;
    const s = store();
    const results = await Promise.all([s.ensure('tiny-clip'), s.ensure('tiny-clip'), s.ensure('tiny-clip')]);
    expect(new Set(results.map((r) => r.files.vision)).size).toBe(1);
    expect(server.gets(CLIP_VISION)).toHaveLength(1);
    expect(server.gets(CLIP_TEXT)).toHaveLength(1);
  });

  it('two stores on one cache (as two processes) download once: the pull lock makes one wait', async () => {
    server.delayMs = 2;
    let waited = 0;
    // Either store may take the lock first; exactly one of the two must wait for the other.
    const [a, b] = await Promise.all([
      store().ensure('tiny-dino', { onWaitForOtherProcess: () => waited++ }),
      store().ensure('tiny-dino', { onWaitForOtherProcess: () => waited++ }),
    ]);
    expect(a.files.model).toBe(b.files.model);
    expect(server.gets(DINO_MODEL)).toHaveLength(1);
    expect(waited).toBe(1);
    expect(existsSync(join(cacheDir, '.locks', 'tiny-dino.lock'))).toBe(false);
  });

  it('breaks a stale lock left by a dead process', async () => {
    mkdirSync(join(cacheDir, '.locks'), { recursive: true });
    // A pid far above any live one on this host.
    writeFileSync(
      join(cacheDir, '.locks', 'tiny-head.lock'),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), createdAt: new Date().toISOString() }),
    );
    await expect(store().ensure('tiny-head')).resolves.toMatchObject({ fetched: true });
  });

  it('gives up waiting for a live lock after lockTimeoutMs with lock_timeout', async () => {
    mkdirSync(join(cacheDir, '.locks'), { recursive: true });
    writeFileSync(
      join(cacheDir, '.locks', 'tiny-head.lock'),
      JSON.stringify({ pid: process.ppid, host: hostname(), createdAt: new Date().toISOString() }),
    );
    const err = await rejection(store({ lockTimeoutMs: 150 }).ensure('tiny-head'));
    expect(err.reason).toBe('lock_timeout');
  });
});

describe('model store: list and remove', () => {
  it('lists installed state, sizes and dimensions; rm deletes the files', async () => {
    const s = store();
    let list = await s.list();
    expect(list.map((m) => m.id)).toEqual(['tiny-clip', 'tiny-dino', 'tiny-head']);
    expect(list.every((m) => !m.installed && m.bytesOnDisk === 0)).toBe(true);
    await s.ensure('tiny-clip');
    list = await s.list();
    const clip = list.find((m) => m.id === 'tiny-clip')!;
    expect(clip).toMatchObject({
      installed: true,
      revision: CLIP_REVISION,
      revisionPinnedBy: 'manifest',
      dimensions: ['background_consistency'],
    });
    expect(clip.precisions).toEqual([
      { precision: 'fp32', installed: true },
      { precision: 'fp16', installed: false },
    ]);
    expect(clip.bytesOnDisk).toBe(
      fx.clipVision.bytes.length + fx.clipText.bytes.length + fx.tokenizer.length,
    );
    expect(clip.files.find((f) => f.path === 'tokenizer.json')).toMatchObject({
      pinnedBy: 'lock',
      present: true,
    });

    const removed = await s.remove('tiny-clip');
    expect(removed.removedBytes).toBe(clip.bytesOnDisk);
    expect(existsSync(join(cacheDir, 'tiny-clip'))).toBe(false);
    expect((await s.list()).find((m) => m.id === 'tiny-clip')!.installed).toBe(false);
    await expect(s.remove('nope')).rejects.toBeInstanceOf(EngineError);
  });
});

describe('model store: availability checker', () => {
  it('keeps installed answers while the lock file is unchanged; a write by any store on the cache shows at once', async () => {
    // The server's store (offline, no local directory: a model is available only once installed)
    // and another store on the same cache, as `vesta models pull/rm/verify` in another process.
    const serving = store({ offline: true });
    const cli = store();
    const available = (): boolean => {
      const answer = serving.availabilityChecker()('tiny-clip', 'fp32');
      expect(answer).toBe(serving.isAvailableSync('tiny-clip', 'fp32'));
      return answer;
    };
    expect(available()).toBe(false);
    const installed = await cli.ensure('tiny-clip');
    expect(available()).toBe(true);
    await cli.remove('tiny-clip');
    expect(available()).toBe(false);
    await cli.ensure('tiny-clip');
    expect(available()).toBe(true);

    // verify deletes a corrupt file.
    const text = readFileSync(installed.files.text!);
    text[10] = text[10]! ^ 0x01;
    writeFileSync(installed.files.text!, text);
    expect((await cli.verify(['tiny-clip']))[0]!.ok).toBe(false);
    expect(available()).toBe(false);
    await cli.ensure('tiny-clip');
    expect(available()).toBe(true);

    // ensure deletes a file that no longer matches its hash; its re-fetch fails: the deletion shows.
    const vision = readFileSync(installed.files.vision!);
    vision[100] = vision[100]! ^ 0xff; // same size: still reads as installed until a store looks
    writeFileSync(installed.files.vision!, vision);
    expect(available()).toBe(true);
    server.status(CLIP_VISION, 404);
    await expect(cli.ensure('tiny-clip')).rejects.toBeInstanceOf(ModelStoreError);
    expect(existsSync(installed.files.vision!)).toBe(false);
    expect(available()).toBe(false);
  });
});
