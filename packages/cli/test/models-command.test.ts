// `vesta models list | pull | verify | rm` as a user runs them: the built executable in a child
// process, pulling fixture models (written by the engine's ONNX writer) from a local mirror.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/test/helpers/model-server.js';
import { fixtureModels, serveAll, sha256 } from '../../engine/test/helpers/fixture-manifest.js';
import { MODEL_MANIFEST } from '@vesta/engine';
import { PullProgress } from '../src/output/progress.js';
import { makeStyle } from '../src/output/style.js';

const bin = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/bin.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const fx = fixtureModels();
let server: ModelServer;
let tmp: string;
let env: Record<string, string | undefined>;

function vesta(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  server = await startModelServer();
  serveAll(server, fx.files);
  tmp = mkdtempSync(path.join(tmpdir(), 'vesta-models-cli-'));
  const manifest = path.join(tmp, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ models: fx.manifest }));
  env = {
    PATH: process.env.PATH,
    NO_COLOR: '1',
    VESTA_MODELS_DIR: path.join(tmp, 'cache'),
    VESTA_MODELS_MANIFEST: manifest,
    // The mirror has the hub's layout; the real hub is never reached from the tests.
    VESTA_MODELS_MIRROR: server.url,
  };
});

afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('vesta models (spawned CLI)', () => {
  it('pull --json downloads a model and prints where its files are', async () => {
    const run = await vesta(['models', 'pull', 'tiny-clip', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      models: Array<{ id: string; fetched: boolean; precision: string; files: Record<string, string> }>;
    };
    expect(out.models).toHaveLength(1);
    expect(out.models[0]).toMatchObject({ id: 'tiny-clip', fetched: true, precision: 'fp32' });
    expect(sha256(readFileSync(out.models[0]!.files.vision!))).toBe(sha256(fx.clipVision.bytes));
    expect(server.requests.filter((r) => r.path.endsWith('/onnx/vision_model.onnx'))).toHaveLength(1);
  });

  it('status --json lists the store, built-in models included', async () => {
    const run = await vesta(['models', 'list', '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      cacheDir: string;
      models: Array<{ id: string; installed: boolean; dimensions: string[]; bytesOnDisk: number }>;
    };
    expect(out.cacheDir).toBe(env.VESTA_MODELS_DIR);
    const byId = new Map(out.models.map((m) => [m.id, m]));
    expect(byId.get('tiny-clip')).toMatchObject({ installed: true, dimensions: ['background_consistency'] });
    expect(byId.get('tiny-clip')!.bytesOnDisk).toBeGreaterThan(0);
    expect(byId.get('clip-vit-b32')).toMatchObject({ installed: false });
  });

  it('human pull output on a pipe: one line per file, no colour codes, a present model is not fetched again', async () => {
    const run = await vesta(['models', 'pull', 'tiny-clip', '--precision', 'fp16']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Fetching tiny-clip onnx/vision_model_fp16.onnx (1/2, mirror)');
    expect(run.stderr).toContain('pulled tiny-clip (fp16,');
    expect(run.stderr).not.toContain('\u001b[');
    const again = await vesta(['models', 'pull', 'tiny-clip']);
    expect(again.stderr).toContain('present tiny-clip (fp32,');
    expect(again.stderr).not.toContain('Fetching');
  });

  it('verify --json: ok, then exit 1 and the corrupt file deleted', async () => {
    const ok = await vesta(['models', 'verify', 'tiny-clip', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true });

    const status = JSON.parse((await vesta(['models', 'pull', 'tiny-clip', '--json'])).stdout) as {
      models: Array<{ files: Record<string, string> }>;
    };
    const text = status.models[0]!.files.text!;
    const bytes = readFileSync(text);
    bytes[5] = bytes[5]! ^ 0xff;
    writeFileSync(text, bytes);
    const bad = await vesta(['models', 'verify', 'tiny-clip', '--json']);
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.stdout) as {
      ok: boolean;
      models: Array<{ files: Array<{ path: string; state: string }> }>;
    };
    expect(report.ok).toBe(false);
    expect(report.models[0]!.files.find((f) => f.path === 'onnx/text_model.onnx')!.state).toBe(
      'checksum_mismatch',
    );
  });

  it('offline: a missing model fails with model_unavailable naming the fixing command', async () => {
    const rm = await vesta(['models', 'rm', 'tiny-clip', '--json']);
    expect(rm.code).toBe(0);
    expect(JSON.parse(rm.stdout)).toMatchObject({ removed: [{ id: 'tiny-clip' }] });
    const requestsBefore = server.requests.length;
    const run = await vesta(['models', 'pull', 'tiny-clip', '--offline', '--json']);
    expect(run.code).toBe(1);
    const err = JSON.parse(run.stderr) as { error: { code: string; reason: string; detail: string } };
    expect(err.error).toMatchObject({ code: 'model_unavailable', reason: 'offline' });
    expect(err.error.detail).toContain('vesta models pull tiny-clip');
    expect(server.requests.length).toBe(requestsBefore);
  });

  it('two processes pulling one model at once download it once (the other waits on the lock)', async () => {
    await vesta(['models', 'rm', 'tiny-clip']);
    const visionGets = () => server.requests.filter((r) => r.path.endsWith('/onnx/vision_model.onnx')).length;
    const before = visionGets();
    server.delayMs = 60; // ~0.5 s for the vision file: long enough for the two pulls to overlap
    try {
      const [a, b] = await Promise.all([
        vesta(['models', 'pull', 'tiny-clip', '--json']),
        vesta(['models', 'pull', 'tiny-clip', '--json']),
      ]);
      expect([a.code, b.code]).toEqual([0, 0]);
      expect(visionGets()).toBe(before + 1);
      const fetched = [a, b].map(
        (r) => (JSON.parse(r.stdout) as { models: Array<{ fetched: boolean }> }).models[0]!.fetched,
      );
      expect(fetched.sort()).toEqual([false, true]);
    } finally {
      server.delayMs = 0;
    }
  });

  it('pull --all fetches every model of the manifest ahead, saying what and how much first', async () => {
    // A manifest where every built-in id is a copy of the tiny CLIP fixture (pinned revision), so
    // that --all pulls only from the local mirror.
    const tiny = fx.manifest.find((m) => m.id === 'tiny-clip')!;
    const all = [tiny, ...MODEL_MANIFEST.map((m) => ({ ...tiny, id: m.id, dimensions: [...m.dimensions] }))];
    const manifest = path.join(tmp, 'all.json');
    writeFileSync(manifest, JSON.stringify({ models: all }));
    const cache = path.join(tmp, 'all-cache');
    const extra = { VESTA_MODELS_MANIFEST: manifest, VESTA_MODELS_DIR: cache };
    const run = await vesta(['models', 'pull', '--all'], extra);
    expect(run.code, run.stderr).toBe(0);
    const plan = /To fetch: (\d+) model\(s\), (\d+) file\(s\), (.+)\n/.exec(run.stderr);
    expect(plan, run.stderr).not.toBeNull();
    expect(Number(plan![1])).toBe(all.length);
    for (const m of all) expect(run.stderr).toContain(`pulled ${m.id} (fp32,`);
    expect(run.stderr).toMatch(
      /Fetched clip-vit-b32 onnx\/vision_model\.onnx \d+(\.\d)? (B|KB) in \d+\.\d s/,
    );
    expect(server.requests.some((r) => r.path.includes('/vesta-test/tiny-clip/'))).toBe(true);
    const listed = JSON.parse((await vesta(['models', 'list', '--json'], extra)).stdout) as {
      models: Array<{ id: string; installed: boolean }>;
    };
    expect(listed.models.every((m) => m.installed)).toBe(true);
    const again = await vesta(['models', 'pull', '--all'], extra);
    expect(again.stderr).toContain(`Nothing to fetch: ${all.length} model(s) already installed`);
    const both = await vesta(['models', 'pull', 'tiny-clip', '--all', '--json'], extra);
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stderr)).toMatchObject({ error: { code: 'usage' } });
  });

  it('list reports the sources remembered as unreachable', async () => {
    const cache = path.join(tmp, 'remembered-cache');
    mkdirSync(cache, { recursive: true });
    const until = Date.now() + 60_000;
    writeFileSync(
      path.join(cache, 'unreachable.json'),
      JSON.stringify({
        version: 1,
        sources: { 'http://127.0.0.1:9': { until, error: 'connect ECONNREFUSED' } },
      }),
    );
    const json = await vesta(['models', 'list', '--json'], { VESTA_MODELS_DIR: cache });
    expect((JSON.parse(json.stdout) as { unreachable: unknown }).unreachable).toEqual([
      { origin: 'http://127.0.0.1:9', until, error: 'connect ECONNREFUSED' },
    ]);
    const human = await vesta(['models', 'list'], { VESTA_MODELS_DIR: cache });
    expect(human.stdout).toContain('unreachable moments ago, skipped until');
    expect(human.stdout).toContain('http://127.0.0.1:9 (connect ECONNREFUSED)');
  });

  it('usage errors: an unknown model exits 2; an invalid manifest file is reported', async () => {
    const unknown = await vesta(['models', 'pull', 'no-such-model', '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toMatchObject({
      error: { code: 'model_unavailable', reason: 'unknown_model' },
    });
    const badManifest = path.join(tmp, 'bad.json');
    writeFileSync(
      badManifest,
      JSON.stringify({ models: [{ id: 'x', source: { host: 'huggingface', repo: 'a/b' } }] }),
    );
    const bad = await vesta(['models', 'status', '--json'], { VESTA_MODELS_MANIFEST: badManifest });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: { code: 'invalid_manifest' } });
  });
});

describe('pull progress on a terminal', () => {
  it('redraws one bar per file with sizes, rate and ETA, and keeps a finished file on its line', () => {
    let out = '';
    let t = 0;
    const tty = { isTTY: true, columns: 120, write: (s: string) => (out += s) };
    const progress = new PullProgress(tty, makeStyle(false), () => t);
    const event = {
      modelId: 'dino-vitb16',
      file: 'onnx/model.onnx',
      fileIndex: 0,
      fileCount: 2,
      source: 'hub',
    };
    progress.onProgress({ ...event, receivedBytes: 0, totalBytes: 100 * 2 ** 20 });
    t = 2000;
    progress.onProgress({ ...event, receivedBytes: 25 * 2 ** 20, totalBytes: 100 * 2 ** 20 });
    expect(out).toContain(
      `\r\u001b[2Kdino-vitb16 onnx/model.onnx (1/2, hub) [${'#'.repeat(8)}${'-'.repeat(22)}]  25% 25.0 MB/100.0 MB 12.5 MB/s ETA 6s`,
    );
    t = 2050; // within 100 ms of the last redraw: not drawn again
    const before = out;
    progress.onProgress({ ...event, receivedBytes: 26 * 2 ** 20, totalBytes: 100 * 2 ** 20 });
    expect(out).toBe(before);
    t = 8000;
    progress.onProgress({ ...event, receivedBytes: 100 * 2 ** 20, totalBytes: 100 * 2 ** 20 });
    expect(out).toMatch(/100% 100\.0 MB\/100\.0 MB \S+ MB\/s done$/);
    t = 8100;
    progress.onProgress({ ...event, file: 'config.json', fileIndex: 1, receivedBytes: 10, totalBytes: 10 });
    expect(out).toContain('done\n\r\u001b[2Kdino-vitb16 config.json (2/2, hub)');
    progress.end();
    expect(out.endsWith('\n')).toBe(true);
  });
});
