// The `vesta` executable as a user runs it: a spawned process against the real server, its
// `--json` output parsed, its exit codes checked.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConnectionError, VideoGoneError } from '@vesta/sdk';
import { describeError } from '../src/context.js';
import { corpusClip, freePort, startTestServer, type TestServer } from '../../sdk/test/support/server.js';

const bin = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/bin.js');
const clip = corpusClip('zeroscope-v2__toad-karate.mp4');
const prompt = 'Toad practicing karate.';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function finish(child: ChildProcess, onStderr?: (text: string) => void): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    onStderr?.(stderr);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

let server: TestServer;
let key: string;
let tmp: string;
const env = (): Record<string, string> => ({ VESTA_API_KEY: key, VESTA_BASE_URL: server.baseUrl });
const vesta = (args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<Run> =>
  finish(start(args, { ...env(), ...extraEnv }));

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build first (npm run build)`);
  server = await startTestServer();
  key = await server.newKey();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-cli-e2e-'));
});
afterAll(async () => {
  await server?.stop();
});

describe('vesta CLI against the real server', () => {
  it('lists dimensions and models as JSON', async () => {
    const dims = await vesta(['dimensions', 'list', '--json']);
    expect(dims.code).toBe(0);
    expect((JSON.parse(dims.stdout) as { items: unknown[] }).items).toHaveLength(16);
    const models = await vesta(['bench', 'models', '--json']);
    expect(models.code).toBe(0);
    expect(JSON.parse(models.stdout)).toHaveProperty('items');
  });

  it('uploads with --wait and prints the scored video; session and reset follow', async () => {
    const up = await vesta(['score', 'upload', clip, '--prompt', prompt, '--wait', '--json']);
    expect(up.code, up.stderr).toBe(0);
    const result = JSON.parse(up.stdout) as {
      runId: string;
      videoId: string;
      state: string;
      video: { scores: unknown[] };
    };
    expect(result.state).toBe('scored');
    expect(result.video.scores.length).toBeGreaterThan(0);
    // The stored clip comes back byte for byte; as JSON without -o it is refused (binary).
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'vesta-cli-dl-')), 'clip.mp4');
    const dl = await vesta(['videos', 'download', result.videoId, '-o', out, '--json']);
    expect(dl.code, dl.stderr).toBe(0);
    expect(JSON.parse(dl.stdout)).toMatchObject({
      videoId: result.videoId,
      file: out,
      contentType: 'video/mp4',
    });
    expect(readFileSync(out).equals(readFileSync(clip))).toBe(true);
    const noFile = await vesta(['videos', 'download', result.videoId, '--json']);
    expect(noFile.code).toBe(2);
    expect(JSON.parse(noFile.stderr)).toMatchObject({ error: { code: 'output_required' } });
    const missing = await vesta(['videos', 'download', 'vid_missing', '-o', out, '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { status: 404 } });
    const human = await vesta(['score', 'get'], { NO_COLOR: '1' });
    expect(human.stdout).toContain(result.runId);
    expect(human.stdout).not.toContain('\u001b[');
    const reset = JSON.parse((await vesta(['score', 'reset', '--json'])).stdout) as {
      runId: string;
      videos: unknown[];
    };
    expect(reset.runId).not.toBe(result.runId);
    expect(reset.videos).toEqual([]);
  });

  it('ranks and shows the leaderboard', async () => {
    expect((await vesta(['rank', 'upload', clip, '--prompt', prompt, '--wait', '--json'])).code).toBe(0);
    const board = await vesta(['rank', 'current', '--json']);
    expect(board.code).toBe(0);
    expect((JSON.parse(board.stdout) as { entries: unknown[] }).entries).toHaveLength(1);
    // #24 item 6: this server has no CLIP model, so the ranking reads nothing of the prompt: said.
    expect(JSON.parse(board.stdout)).toMatchObject({ promptNotice: { code: 'prompt_not_read' } });
    const human = await vesta(['rank', 'current'], { NO_COLOR: '1' });
    expect(human.stdout).toContain(
      'Note: this ranking does not read the prompt: temporal_style and overall_consistency need the model clip-vit-b32 — `vesta models pull clip-vit-b32`',
    );
    const mismatch = await vesta(['rank', 'upload', clip, '--prompt', 'another prompt', '--json']);
    expect(mismatch.code).toBe(1);
    expect(JSON.parse(mismatch.stderr)).toMatchObject({
      error: { code: 'RANK_PROMPT_MISMATCH', status: 400 },
    });
  });

  it('removes one candidate (vesta rank remove) and says not_found for it a second time', async () => {
    const up = await vesta(['rank', 'upload', clip, '--json']);
    expect(up.code, up.stderr).toBe(0);
    const { videoId } = JSON.parse(up.stdout) as { videoId: string };
    const removed = await vesta(['rank', 'remove', videoId, '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ videoId, removed: true });
    const board = JSON.parse((await vesta(['rank', 'current', '--json'])).stdout) as {
      entries: Array<{ videoId: string }>;
    };
    expect(board.entries.map((e) => e.videoId)).not.toContain(videoId);
    const again = await vesta(['rank', 'remove', videoId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not_found');
  });

  it('drives a Bench run through create, list, get, videos, logs, csv, cancel and delete', async () => {
    await server.addModel('cli-model');
    const created = await vesta([
      'bench',
      'create',
      '--name',
      'cli run',
      '--dimensions',
      'aesthetic_quality,subject_consistency',
      '--model-id',
      'cli-model',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const run = JSON.parse(created.stdout) as {
      id: string;
      status: string;
      dimensions: string[];
      progress: { tasks_total: number };
    };
    expect(run.status).toBe('queued');
    const list = JSON.parse((await vesta(['bench', 'list', '--all', '--json'])).stdout) as {
      items: { id: string }[];
      hasMore: boolean;
    };
    expect(list.items.map((r) => r.id)).toContain(run.id);
    expect(JSON.parse((await vesta(['bench', 'get', run.id, '--json'])).stdout)).toMatchObject({
      id: run.id,
      // #24 item 6: this server has no CLIP model, so the run's scores will read no prompt: said.
      prompt_notice: { code: 'prompt_not_read', command: 'vesta models pull clip-vit-b32' },
      unscored_dimensions: [],
    });
    const shown = await vesta(['bench', 'get', run.id], { NO_COLOR: '1' });
    expect(shown.stdout).toContain(
      "Note: this run's scores do not read the prompts: none of its dimensions reads them; temporal_style and overall_consistency would, and need the model clip-vit-b32 — `vesta models pull clip-vit-b32`",
    );
    // The run's clips are planned at creation and wait for a runner.
    const videos = JSON.parse((await vesta(['bench', 'videos', run.id, '--json'])).stdout) as {
      items: { state: string }[];
      page: number;
      total: number;
    };
    expect(videos).toMatchObject({ page: 1, total: run.progress.tasks_total });
    expect(videos.items.every((v) => v.state === 'pending')).toBe(true);
    const logs = JSON.parse((await vesta(['bench', 'logs', run.id, '--json'])).stdout) as {
      items: { message: string }[];
    };
    expect(logs.items[0]!.message).toContain('run created');
    const csvFile = path.join(tmp, 'scorecard.csv');
    const csv = await vesta(['bench', 'csv', run.id, '-o', csvFile, '--json']);
    expect(csv.code).toBe(0);
    expect(JSON.parse(csv.stdout)).toMatchObject({ id: run.id, file: csvFile });
    expect(readFileSync(csvFile, 'utf8')).toContain('aesthetic_quality');
    const early = await vesta(['bench', 'delete', run.id, '--json']);
    expect(early.code).toBe(1);
    expect(JSON.parse(early.stderr)).toMatchObject({ error: { code: 'conflict', status: 409 } });
    expect(JSON.parse((await vesta(['bench', 'cancel', run.id, '--json'])).stdout)).toMatchObject({
      status: 'cancelled',
    });
    expect(JSON.parse((await vesta(['bench', 'delete', run.id, '--json'])).stdout)).toEqual({
      id: run.id,
      deleted: true,
    });
    const human = await vesta(['bench', 'list'], { NO_COLOR: '1' });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('STATUS');
  });

  it('names the variable when no key is set (default and --api-key-env)', async () => {
    const none = await vesta(['score', 'get', '--json'], { VESTA_API_KEY: undefined });
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stderr)).toMatchObject({ error: { code: 'missing_api_key' } });
    expect(none.stderr).toContain('vesta admin create-key --user NAME');
    expect(none.stderr).toContain('VESTA_API_KEY');
    const named = await vesta(['--api-key-env', 'MY_VESTA_KEY', 'score', 'get'], {
      VESTA_API_KEY: undefined,
    });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('MY_VESTA_KEY');
    const viaOther = await vesta(['score', 'get', '--api-key-env', 'MY_VESTA_KEY', '--json'], {
      VESTA_API_KEY: undefined,
      MY_VESTA_KEY: key,
    });
    expect(viaOther.code).toBe(0);
    expect(viaOther.stdout + viaOther.stderr).not.toContain(key);
  });

  it('reports an unreachable server with its address after retrying', async () => {
    const port = await freePort();
    const run = await vesta(['bench', 'models', '--json', '--base-url', `http://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stderr) as { error: { code: string; detail: string } };
    expect(body.error.code).toBe('connection_failed');
    expect(body.error.detail).toContain(`127.0.0.1:${port}`);
    expect(body.error.detail).toContain('3 attempts');
  });

  it('tells an unreachable service from an unreachable blob store the upload goes to', () => {
    const base = 'http://localhost:8080';
    const store = describeError(
      new ApiConnectionError('http://minio:9000/vesta/videos/vid_1', 3, new Error('connect ECONNREFUSED')),
      undefined,
      base,
    ).body.error.detail;
    expect(store).toContain('blob store');
    expect(store).not.toContain('--base-url');
    const service = describeError(
      new ApiConnectionError(`${base}/api/v1/score`, 3, new Error('connect ECONNREFUSED')),
      undefined,
      base,
    ).body.error.detail;
    expect(service).toContain('Set --base-url or VESTA_BASE_URL');
  });

  it('refuses an empty prompt locally as a usage error (exit 2), creating nothing on the server (#24 item 9)', async () => {
    const before = JSON.parse((await vesta(['score', 'get', '--json'])).stdout) as { videos: unknown[] };
    for (const [kind, p] of [
      ['score', ''],
      ['score', '   '],
      ['rank', ''],
    ] as const) {
      const run = await vesta([kind, 'upload', clip, '--prompt', p, '--json']);
      expect(run.code, `${kind} ${JSON.stringify(p)}: ${run.stderr}`).toBe(2);
      expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: 'invalid_argument' } });
      expect(JSON.parse(run.stderr).error.detail).toContain('prompt must not be empty');
    }
    const after = JSON.parse((await vesta(['score', 'get', '--json'])).stdout) as { videos: unknown[] };
    expect(after.videos).toHaveLength(before.videos.length);
    // A wait ended by a reset elsewhere is a failure (exit 1) that names the clip.
    const gone = describeError(new VideoGoneError('vid_1', 'score_a', 'score_b'), undefined);
    expect(gone.exitCode).toBe(1);
    expect(gone.body.error).toMatchObject({ code: 'video_gone', videoId: 'vid_1' });
  });

  it('refuses a missing file, a non-video file and an unknown dimension with clear codes', async () => {
    const missing = await vesta([
      'score',
      'upload',
      path.join(tmp, 'missing.mp4'),
      '--prompt',
      'x',
      '--json',
    ]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: 'file_unreadable' } });

    const fake = path.join(tmp, 'fake.mp4');
    writeFileSync(fake, 'not a video at all\n'.repeat(200));
    const notVideo = await vesta(['score', 'upload', fake, '--prompt', 'x', '--json']);
    expect(notVideo.code).toBe(1);
    expect(JSON.parse(notVideo.stderr)).toMatchObject({ error: { code: 'invalid_video', status: 400 } });
    const human = await vesta(['score', 'upload', fake, '--prompt', 'x'], { NO_COLOR: '1' });
    expect(human.stderr).toContain('invalid_video');

    const dim = await vesta([
      'bench',
      'create',
      '--name',
      'n',
      '--dimensions',
      'warp_speed',
      '--model-id',
      'm',
      '--json',
    ]);
    expect(dim.code).toBe(1);
    const err = JSON.parse(dim.stderr) as { error: { code: string; detail: string } };
    expect(err.error.code).toBe('validation_failed');
    expect(err.error.detail).toContain('warp_speed');
  });

  it('returns usage errors as exit 2 (JSON with --json) and api-keys point to the dashboard', async () => {
    const usage = await vesta(['bench', 'create', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toMatchObject({ error: { code: 'usage' } });
    const keys = await vesta(['api-keys', 'create', '--json']);
    expect(keys.code).not.toBe(0);
    expect(JSON.parse(keys.stderr)).toMatchObject({
      error: { code: 'dashboard_only', url: `${server.baseUrl}/dashboard/api-keys` },
    });
    const revoke = await vesta(['api-keys', 'revoke']);
    expect(revoke.code).not.toBe(0);
    expect(revoke.stderr).toContain(`${server.baseUrl}/dashboard/api-keys`);
    // Until the dashboard exists, the message names what works today.
    expect(revoke.stderr).toContain('vesta admin revoke-key PREFIX');
    const notFound = await vesta(['bench', 'get', 'bench_nope', '--json']);
    expect(notFound.code).toBe(1);
    expect(JSON.parse(notFound.stderr)).toMatchObject({ error: { code: 'not_found', status: 404 } });
  });

  it('shows help with examples for every command', async () => {
    const root = await vesta(['--help']);
    expect(root.code).toBe(0);
    expect(root.stdout).toContain('Examples:');
    for (const words of [
      ['score', 'upload'],
      ['rank', 'current'],
      ['bench', 'create'],
      ['bench', 'csv'],
      ['dimensions', 'list'],
      ['api-keys', 'create'],
    ]) {
      const help = await vesta([...words, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain('--json');
    }
    for (const name of ['score', 'rank', 'bench', 'dimensions', 'models', 'api-keys']) {
      const help = await vesta([name, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Examples:');
    }
  });
});

describe('Ctrl-C and the --wait deadline (server without a worker)', () => {
  let idle: TestServer;
  let stall: Server;
  let stallUrl: string;
  let onHeldPut: (() => void) | undefined;

  beforeAll(async () => {
    // A server without a worker: a confirmed clip stays queued, so --wait is reliably waiting.
    // Its public URL is a proxy that forwards everything but never reads an upload body, so an
    // upload is reliably in flight.
    const proxyPort = await freePort();
    stallUrl = `http://127.0.0.1:${proxyPort}`;
    idle = await startTestServer({ VESTA_PUBLIC_URL: stallUrl }, { worker: false });
    const target = new URL(idle.baseUrl);
    stall = createServer((req, res) => {
      if (req.method === 'PUT' && Number(req.headers['content-length'] ?? 0) > 32 * 1024 * 1024) {
        onHeldPut?.(); // hold big uploads forever
        return;
      }
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((r) => stall.listen(proxyPort, '127.0.0.1', r));
  });
  afterAll(async () => {
    stall?.closeAllConnections();
    await new Promise<void>((r) => (stall ? stall.close(() => r()) : r()));
    await idle?.stop();
  });

  async function interruptWhen(args: string[], marker: RegExp): Promise<Run> {
    const k = await idle.newKey();
    const child = start(args, { VESTA_API_KEY: k, VESTA_BASE_URL: stallUrl });
    let sent = false;
    return finish(child, (stderr) => {
      if (!sent && marker.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
  }

  it('during an upload exits 130 (human and --json)', async () => {
    const big = path.join(tmp, 'big.mp4');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 64 * 1024 * 1024);
    closeSync(fd);
    const run = await interruptWhen(['score', 'upload', big, '--prompt', 'x'], /Uploading/);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('interrupted');

    // With --json no progress is printed: interrupt once the held PUT reaches the proxy.
    const child = start(['score', 'upload', big, '--prompt', 'x', '--json'], {
      VESTA_API_KEY: await idle.newKey(),
      VESTA_BASE_URL: stallUrl,
    });
    onHeldPut = () => child.kill('SIGINT');
    const json = await finish(child);
    onHeldPut = undefined;
    expect(json.code).toBe(130);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'interrupted' } });
    expect(json.stdout).toBe('');
  });

  it('--wait gives up at --timeout with wait_timeout (exit 1)', async () => {
    const run = await finish(
      start(['score', 'upload', clip, '--prompt', prompt, '--wait', '--timeout', '1', '--json'], {
        VESTA_API_KEY: await idle.newKey(),
        VESTA_BASE_URL: stallUrl,
      }),
    );
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toMatchObject({
      error: { code: 'wait_timeout', videoId: expect.stringMatching(/^vid_/) },
    });
  });

  it('during --wait exits 130', async () => {
    const run = await interruptWhen(['score', 'upload', clip, '--prompt', prompt, '--wait'], /queued/);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('interrupted');
  });
});
