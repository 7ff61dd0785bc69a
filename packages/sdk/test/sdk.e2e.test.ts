// The SDK against the real Vesta server (random port, temporary data directory, real engine).
import { writeFileSync, mkdtempSync, chmodSync, createReadStream, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ForbiddenError,
  InvalidVideoError,
  NotFoundError,
  RankPromptMismatchError,
  RateLimitedError,
  RequestAbortedError,
  UnauthorizedError,
  UploadSourceError,
  ValidationFailedError,
  Vesta,
  VideoGoneError,
  type UploadProgressEvent,
} from '../src/index.js';
import { corpusClip, freePort, startTestServer, type TestServer } from './support/server.js';

const clipA = corpusClip('zeroscope-v2__toad-karate.mp4');
const clipB = corpusClip('show-1__toad-karate.mp4');
const toadPrompt = 'Toad practicing karate.';

let server: TestServer;
let vesta: Vesta;
let tmp: string;

beforeAll(async () => {
  server = await startTestServer();
  vesta = new Vesta({ apiKey: await server.newKey(), baseUrl: server.baseUrl });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-sdk-e2e-'));
});
afterAll(async () => {
  await server?.stop();
});

describe('SDK against the real server', () => {
  it('lists the dimensions and models', async () => {
    const dims = await vesta.dimensions.list();
    expect(dims.items.length).toBe(16);
    expect(dims.items.map((d) => d.id)).toContain('subject_consistency');
    const models = await vesta.models.list();
    expect(Array.isArray(models.items)).toBe(true);
  });

  it('uploads a clip by path, reports progress, waits and returns its scores', async () => {
    const events: UploadProgressEvent[] = [];
    const result = await vesta.score.upload(clipA, {
      prompt: toadPrompt,
      wait: true,
      onProgress: (e) => events.push(e),
    });
    expect(result.state).toBe('scored');
    expect(result.video?.scores.length).toBeGreaterThan(0);
    for (const s of result.video!.scores) expect(Number.isFinite(s.value)).toBe(true);
    const uploads = events.filter((e) => e.phase === 'upload');
    const last = uploads[uploads.length - 1];
    expect(last).toMatchObject({ loaded: statSync(clipA).size, total: statSync(clipA).size });
    expect(events.some((e) => e.phase === 'confirm')).toBe(true);
    expect(events.filter((e) => e.phase === 'wait').map((e) => (e as { state: string }).state)).toContain(
      'scored',
    );
    const session = await vesta.score.getOrCreate();
    expect(session.runId).toBe(result.runId);
    expect(session.videos.find((v) => v.videoId === result.videoId)?.state).toBe('scored');
  });

  it('ends a wait at once when the session is reset elsewhere (VideoGoneError)', async () => {
    // #24 item 9: the wait polled until its deadline (15 minutes) after a reset.
    const client = new Vesta({ apiKey: await server.newKey(), baseUrl: server.baseUrl });
    let reset: Promise<{ runId: string }> | undefined;
    const started = Date.now();
    const err = await client.score
      .upload(clipA, {
        prompt: toadPrompt,
        wait: true,
        pollIntervalMs: 50,
        onProgress: (e) => {
          // The first poll saw the clip confirmed, not yet scored: the session is reset.
          if (e.phase === 'wait' && !reset) reset = client.score.reset();
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VideoGoneError);
    const now = await reset!;
    expect(err).toMatchObject({ code: 'video_gone', currentRunId: now.runId });
    expect((err as VideoGoneError).runId).not.toBe(now.runId);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('uploads from a Node stream and from a Blob', async () => {
    const size = statSync(clipA).size;
    const fromStream = await vesta.score.upload(createReadStream(clipA), {
      prompt: toadPrompt,
      fileName: 'stream.mp4',
      size,
    });
    expect(['uploaded', 'queued', 'scoring', 'scored']).toContain(fromStream.state);
    const blob = new Blob([await import('node:fs/promises').then((fs) => fs.readFile(clipA))], {
      type: 'video/mp4',
    });
    const fromBlob = await vesta.score.upload(blob, { prompt: toadPrompt, fileName: 'blob.mp4' });
    expect(fromBlob.videoId).not.toBe(fromStream.videoId);
  });

  it('refuses a missing or unreadable file before creating anything on the server', async () => {
    const before = (await vesta.score.getOrCreate()).videos.length;
    await expect(vesta.score.upload(path.join(tmp, 'nope.mp4'), { prompt: 'x' })).rejects.toThrow(
      UploadSourceError,
    );
    await expect(vesta.score.upload(path.join(tmp, 'nope.mp4'), { prompt: 'x' })).rejects.toThrow(
      /File not found/,
    );
    if (process.getuid?.() !== 0) {
      const locked = path.join(tmp, 'locked.mp4');
      writeFileSync(locked, 'x');
      chmodSync(locked, 0o000);
      await expect(vesta.score.upload(locked, { prompt: 'x' })).rejects.toThrow(/not readable/);
    }
    expect((await vesta.score.getOrCreate()).videos.length).toBe(before);
  });

  it("surfaces the server's code for a file that is not a video", async () => {
    const fake = path.join(tmp, 'notes.mp4');
    writeFileSync(fake, 'these are notes, not a video\n'.repeat(100));
    const err = await vesta.score.upload(fake, { prompt: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidVideoError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_video' });
    expect((err as InvalidVideoError).requestId).toBeTruthy();
  });

  it('ranks candidates for one prompt and refuses another prompt', async () => {
    await vesta.rank.reset();
    await vesta.rank.upload(clipA, { prompt: toadPrompt, wait: true });
    await vesta.rank.upload(clipB, { wait: true });
    const err = await vesta.rank.upload(clipA, { prompt: 'A different prompt.' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RankPromptMismatchError);
    const board = await vesta.rank.getRanked();
    expect(board.entries).toHaveLength(2);
    expect((await vesta.rank.getRanked(board.runId)).entries.map((e) => e.videoId)).toEqual(
      board.entries.map((e) => e.videoId),
    );
    expect(board.entries[0]!.rank).toBe(1);
    expect(board.prompt).toBe(toadPrompt);
  });

  it('removes one Rank candidate and one Score clip (#24 item 7); a second remove is NotFoundError', async () => {
    const board = await vesta.rank.getRanked();
    expect(board.entries.length).toBeGreaterThanOrEqual(2);
    const [top, ...rest] = board.entries;
    await vesta.rank.removeVideo(top!.videoId);
    const after = await vesta.rank.getRanked();
    expect(after.runId).toBe(board.runId);
    expect(after.entries.map((e) => e.videoId)).toEqual(rest.map((e) => e.videoId));
    expect(after.entries[0]!.rank).toBe(1);
    await expect(vesta.rank.removeVideo(top!.videoId, { runId: board.runId })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const score = await vesta.score.getOrCreate();
    const victim = score.videos[0]!.videoId;
    await vesta.score.removeVideo(victim);
    expect((await vesta.score.getOrCreate()).videos.map((v) => v.videoId)).not.toContain(victim);
    // Another user naming this run id is refused with ForbiddenError.
    const other = new Vesta({ apiKey: await server.newKey(), baseUrl: server.baseUrl });
    await expect(other.score.removeVideo(victim, { runId: score.runId })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
  });

  it('reports an unknown dimension and an unknown run with typed errors', async () => {
    const err = await vesta.bench
      .create({ name: 'x', modelId: 'm', dimensions: ['not_a_dimension'] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect((err as ValidationFailedError).detail).toContain('not_a_dimension');
    await expect(vesta.bench.get('bench_missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('creates, reads, cancels and deletes a Bench run', async () => {
    await server.addModel('sdk-model');
    const run = await vesta.bench.create({
      name: 'sdk e2e',
      modelId: 'sdk-model',
      dimensions: ['aesthetic_quality', 'subject_consistency'],
    });
    expect(run).toMatchObject({ name: 'sdk e2e', model_id: 'sdk-model', runner_id: null, status: 'queued' });
    expect((await vesta.bench.get(run.id)).id).toBe(run.id);
    const listed: string[] = [];
    for await (const r of vesta.bench.list({ limit: 1 })) listed.push(r.id);
    expect(listed).toContain(run.id);
    expect((await vesta.bench.listPage({ page: 1, limit: 1 })).total).toBe(listed.length);
    // The run's clips are planned at creation (prompts × 5 samples) and wait for a runner.
    const planned = await vesta.bench.videos(run.id);
    expect(planned.total).toBe(run.progress.tasks_total);
    expect(planned.items.every((v) => v.state === 'pending' && v.video_id === null)).toBe(true);
    const logs = await vesta.bench.logs(run.id);
    expect(logs.items[0]?.message).toContain('run created');
    const csv = await vesta.bench.csv(run.id);
    expect(csv.split('\r\n')[0]).toContain('dimension');
    expect(csv).toContain('aesthetic_quality');
    expect((await vesta.bench.cancel(run.id)).status).toBe('cancelled');
    await vesta.bench.delete(run.id);
    await expect(vesta.bench.get(run.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rejects a wrong key with 401 and a request id', async () => {
    const bad = new Vesta({ apiKey: 'vsk_wrong', baseUrl: server.baseUrl });
    const err = await bad.dimensions.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect((err as UnauthorizedError).requestId).toBeTruthy();
  });

  it('aborts an upload in flight', async () => {
    const controller = new AbortController();
    const upload = vesta.score.upload(clipB, {
      prompt: toadPrompt,
      wait: true,
      signal: controller.signal,
      onProgress: (e) => {
        if (e.phase === 'confirm') controller.abort();
      },
    });
    await expect(upload).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it('names the address when the server cannot be reached', async () => {
    const port = await freePort();
    const offline = new Vesta({
      apiKey: 'k',
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 1,
      backoff: { initialDelayMs: 10, maxDelayMs: 10 },
    });
    const err = await offline.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
  });
});

describe('SDK against a server with rate limits on', () => {
  it('gets 429 rate_limited, waits the Retry-After it was sent, then succeeds', async () => {
    // One request per 3 s per key: the second call is refused once, then served after the wait.
    const limited = await startTestServer({ VESTA_RATE_LIMIT_PER_KEY: '1/3' }, { worker: false });
    try {
      const seen: { status: number; retryAfter: string | null; at: number }[] = [];
      const client = new Vesta({
        apiKey: await limited.newKey(),
        baseUrl: limited.baseUrl,
        maxRetries: 2,
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
          return res;
        },
      });
      expect((await client.dimensions.list()).items.length).toBe(16);
      const second = await client.dimensions.list();
      expect(second.items.length).toBe(16);
      expect(seen.map((s) => s.status)).toEqual([200, 429, 200]);
      const hinted = Number(seen[1]!.retryAfter);
      expect(hinted).toBeGreaterThanOrEqual(1);
      // It waited what the server asked (not its own 0.5 s backoff).
      expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(hinted * 1000 - 50);

      // With no retries left, the refusal surfaces as the typed error with its code.
      const impatient = new Vesta({
        apiKey: await limited.newKey(),
        baseUrl: limited.baseUrl,
        maxRetries: 0,
      });
      await impatient.dimensions.list();
      const err = await impatient.dimensions.list().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RateLimitedError);
      expect((err as RateLimitedError).code).toBe('rate_limited');
    } finally {
      await limited.stop();
    }
  });
});
