// The runner loop and bench.runWithPipeline against the real server (short leases), with clips
// from the built-in DEMO generator.
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoClip } from '@vesta/engine';
import { ValidationFailedError, Vesta, type BenchVideo, type RunnerEvent } from '../src/index.js';
import { startCutProxy } from './support/cut-proxy.js';
import { startTestServer, type TestServer } from './support/server.js';

let server: TestServer;
let vesta: Vesta;
let tmp: string;

beforeAll(async () => {
  server = await startTestServer({ VESTA_RUNNER_LEASE_SECONDS: '2', VESTA_RUNNER_MAX_ATTEMPTS: '2' });
  vesta = new Vesta({ apiKey: await server.newKey(), baseUrl: server.baseUrl });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-runner-sdk-'));
});
afterAll(async () => {
  await server?.stop();
});

const small = { samplesPerPrompt: 1, promptsPerDimension: 2, pollIntervalMs: 200 } as const;

async function demo(
  prompt: string,
  seed: number,
  auxiliary: Record<string, string> | null,
  signal: AbortSignal,
) {
  const out = path.join(tmp, `${seed}-${Math.abs(prompt.length)}-${Date.now()}.mp4`);
  return generateDemoClip({ prompt, seed, auxiliary, outPath: out, signal });
}

/** Parses the scorecard CSV (no quoted commas in these rows). */
function parseCsv(text: string): Array<Record<string, string>> {
  const [header, ...lines] = text.trim().split(/\r?\n/);
  const cols = header!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v])));
}

async function allVideos(id: string): Promise<BenchVideo[]> {
  const out: BenchVideo[] = [];
  for await (const v of vesta.bench.allVideos(id, { limit: 100 })) out.push(v);
  return out;
}

describe('bench.runWithPipeline', () => {
  it('runs a two-dimension Bench run with an in-process generator; the CSV matches the per-clip scores', async () => {
    const progress: string[] = [];
    const events: RunnerEvent[] = [];
    const run = await vesta.bench.runWithPipeline(
      async ({ prompt, seed, auxiliary, signal, sampleIndex, log }) => {
        expect(sampleIndex).toBe(0);
        const clip = await demo(prompt, seed, auxiliary, signal);
        log(`rendered ${clip.bytes} bytes`);
        // Paths, Buffers and Blobs are all accepted.
        if (seed % 3 === 0) return readFileSync(clip.path);
        if (seed % 3 === 1) return new Blob([readFileSync(clip.path)], { type: 'video/mp4' });
        return clip.path;
      },
      {
        dimensions: ['subject_consistency', 'dynamic_degree'],
        runName: 'pipeline run',
        modelId: 'vesta-demo',
        concurrency: 2,
        onProgress: (r) => progress.push(r.status),
        onRunnerEvent: (e) => events.push(e),
        ...small,
      },
    );
    expect(run.status).toBe('completed');
    expect(run.progress.tasks_total).toBeGreaterThan(0);
    expect(run.progress.tasks_done).toBe(run.progress.tasks_total);
    expect(run.runner.completed).toBe(run.progress.tasks_total);
    expect(progress[0]).toBe('queued');
    expect(progress).toContain('completed');
    expect(events.filter((e) => e.type === 'claimed').length).toBe(run.progress.tasks_total);

    const videos = await allVideos(run.id);
    expect(videos).toHaveLength(run.progress.tasks_total);
    const rows = parseCsv(await vesta.bench.csv(run.id));
    for (const dimension of ['subject_consistency', 'dynamic_degree']) {
      const values = videos.flatMap((v) =>
        v.scores.filter((s) => s.dimension === dimension).map((s) => s.value),
      );
      expect(values.length).toBeGreaterThan(0);
      const row = rows.find((r) => r.dimension === dimension)!;
      expect(Number(row.clips)).toBe(values.length);
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      expect(Number(row.score)).toBeCloseTo(mean, 5);
    }
    expect(rows.map((r) => r.dimension)).toEqual(
      expect.arrayContaining(['subject_consistency', 'dynamic_degree', 'Quality', 'Semantic', 'Total']),
    );
    const logs = [];
    for await (const l of vesta.bench.allLogs(run.id)) logs.push(l);
    expect(logs.some((l) => l.source === 'runner' && l.message.includes('rendered'))).toBe(true);
  });

  it('stops the generator when the run is cancelled and resolves with the cancelled run', async () => {
    let sawAbort = false;
    let runId: string | undefined;
    const run = await vesta.bench.runWithPipeline(
      ({ signal }) =>
        new Promise<string>((_, reject) => {
          // A generator that only ends when told to: cancel the run from outside meanwhile.
          signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(new Error('stopped'));
          });
          if (runId) void vesta.bench.cancel(runId);
        }),
      {
        dimensions: ['dynamic_degree'],
        runName: 'cancelled pipeline',
        modelId: 'vesta-demo',
        onProgress: (r) => (runId = r.id),
        ...small,
      },
    );
    expect(run.status).toBe('cancelled');
    expect(sawAbort).toBe(true);
    // The runner learns of the cancel from a heartbeat, or is stopped by the pipeline first.
    expect(run.runner.cancelled + run.runner.handedBack).toBe(1);
    const [task] = await allVideos(run.id);
    expect(task!.state).toBe('cancelled');
  });

  it('fails the attempts of a generator that returns something that is not a video', async () => {
    const events: RunnerEvent[] = [];
    const run = await vesta.bench.runWithPipeline(
      () => new TextEncoder().encode('this is not a video at all'),
      {
        dimensions: ['dynamic_degree'],
        runName: 'garbage pipeline',
        modelId: 'vesta-demo',
        onRunnerEvent: (e) => events.push(e),
        ...small,
      },
    );
    expect(run.status).toBe('failed');
    const rejected = events.filter((e) => e.type === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected[0]).toMatchObject({ code: 'invalid_video' });
    const videos = await allVideos(run.id);
    expect(videos.every((v) => v.state === 'failed')).toBe(true);
    expect(videos[0]!.attempts).toBe(2);
  });

  it('fails the attempts of a generator that throws, with its message in the run log', async () => {
    const run = await vesta.bench.runWithPipeline(
      () => {
        throw new Error('out of GPU memory');
      },
      { dimensions: ['dynamic_degree'], runName: 'throwing pipeline', modelId: 'vesta-demo', ...small },
    );
    expect(run.status).toBe('failed');
    expect(run.runner.failed).toBeGreaterThanOrEqual(2);
    const videos = await allVideos(run.id);
    expect(videos[0]!.error?.detail).toContain('out of GPU memory');
  });

  it('polls again while the api cannot be reached, and resolves once it is back', async () => {
    // The api goes away for 1 s at the run's first progress report (an api process restarting):
    // the polls fail past the client's retries, wait as the runner's claims do, and go on. (Cut at
    // `evaluating`, a one-clip run could finish between two polls and never see the outage.)
    const proxy = await startCutProxy(server.baseUrl);
    const client = new Vesta({
      apiKey: await server.newKey(),
      baseUrl: proxy.baseUrl,
      backoff: { initialDelayMs: 20, maxDelayMs: 40 },
    });
    const events: RunnerEvent[] = [];
    let outage: Promise<void> | undefined;
    try {
      const run = await client.bench.runWithPipeline(
        async ({ prompt, seed, auxiliary, signal }) => (await demo(prompt, seed, auxiliary, signal)).path,
        {
          dimensions: ['dynamic_degree'],
          runName: 'api outage',
          modelId: 'vesta-demo',
          onRunnerEvent: (e) => events.push(e),
          onProgress: () => {
            if (outage) return;
            outage = proxy.cut().then(() => new Promise((resolve) => setTimeout(resolve, 1_000)));
            outage = outage.then(() => proxy.restore());
          },
          ...small,
          promptsPerDimension: 1,
        },
      );
      expect(outage).toBeDefined();
      expect(run.status).toBe('completed');
      const polls = events.filter((e) => e.type === 'retrying' && e.operation === 'poll');
      expect(polls.length).toBeGreaterThan(0);
      expect(polls[0]).toMatchObject({ error: expect.stringContaining(`Could not reach ${proxy.baseUrl}/`) });
    } finally {
      await outage;
      await proxy.stop();
    }
  });

  it('repeats a completion whose answer was lost with the same body: completed once, its log lines kept', async () => {
    // The first `complete` reaches the server and is applied, but its answer never arrives (the
    // connection drops): the retry, under the same Idempotency-Key, must send the same body, so
    // the server replays the first answer instead of refusing a different body.
    let lost = 0;
    const losingFetch: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = String(input instanceof Request ? input.url : input);
      if (init?.method === 'POST' && url.endsWith('/complete') && lost === 0) {
        lost++;
        await res.arrayBuffer();
        throw new TypeError('fetch failed: the connection was reset after the request was sent');
      }
      return res;
    };
    const client = new Vesta({
      apiKey: await server.newKey(),
      baseUrl: server.baseUrl,
      fetch: losingFetch,
      // No retries in the client: the lost answer reaches the runner loop's own retry.
      maxRetries: 0,
      backoff: { initialDelayMs: 20, maxDelayMs: 40 },
    });
    const events: RunnerEvent[] = [];
    const run = await client.bench.runWithPipeline(
      async ({ prompt, seed, auxiliary, signal, log }) => {
        log('rendered the one clip of this run');
        return (await demo(prompt, seed, auxiliary, signal)).path;
      },
      {
        dimensions: ['dynamic_degree'],
        runName: 'lost completion answer',
        modelId: 'vesta-demo',
        onRunnerEvent: (e) => events.push(e),
        ...small,
        promptsPerDimension: 1,
      },
    );
    expect(lost).toBe(1);
    expect(run.status).toBe('completed');
    expect(events.filter((e) => e.type === 'lease_lost')).toEqual([]);
    expect(events.filter((e) => e.type === 'completed')).toHaveLength(1);
    const logs = (await client.bench.logs(run.id, { limit: 1000 })).items.map((l) => l.message);
    expect(logs.filter((m) => m.includes('rendered the one clip of this run'))).toHaveLength(1);
  });

  it('throws a programming error of the first call here: the task handed back, the run cancelled, the runner gone', async () => {
    let calls = 0;
    const client = new Vesta({ apiKey: await server.newKey(), baseUrl: server.baseUrl });
    const thrown = await client.bench
      .runWithPipeline(
        (input) => {
          calls++;
          // A mistake in the code (what Python calls an AttributeError), not a failed clip.
          return (input as unknown as { pipe: { render(): string } }).pipe.render();
        },
        { dimensions: ['dynamic_degree'], runName: 'broken pipeline', modelId: 'vesta-demo', ...small },
      )
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as TypeError).stack).toContain('runner.e2e.test.ts');
    expect(calls).toBe(1);
    const [run] = (await client.bench.listPage()).items;
    expect(run).toMatchObject({ name: 'broken pipeline', status: 'cancelled' });
    const logs = (await client.bench.logs(run!.id, { limit: 1000 })).items.map((l) => l.message).join(' | ');
    expect(logs).toContain(
      "TypeError: Cannot read properties of undefined (reading 'render') (the pipeline's first call)",
    );
    expect((await client.runners.list()).items).toEqual([]);
  });

  it('fails the clip, as before, on an error that is not a programming error or not on the first call', async () => {
    const { isProgrammingError } = await import('../src/runner/pipeline.js');
    expect(isProgrammingError(new TypeError('x is not a function'))).toBe(true);
    expect(isProgrammingError(new ReferenceError('x is not defined'))).toBe(true);
    expect(isProgrammingError(Object.assign(new Error('no module'), { code: 'ERR_MODULE_NOT_FOUND' }))).toBe(
      true,
    );
    // fetch's network failure is a TypeError with a cause: a failed clip, not a mistake.
    expect(isProgrammingError(new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') }))).toBe(
      false,
    );
    expect(isProgrammingError(new RangeError('out of GPU memory'))).toBe(false);
  });

  it('rejects an unknown dimension before anything is generated', async () => {
    let calls = 0;
    await expect(
      vesta.bench.runWithPipeline(
        () => {
          calls++;
          return 'x.mp4';
        },
        { dimensions: ['no_such_dimension'], runName: 'bad', modelId: 'vesta-demo', ...small },
      ),
    ).rejects.toBeInstanceOf(ValidationFailedError);
    expect(calls).toBe(0);
  });
});

describe('createRunner', () => {
  it('hands an in-flight task back when stopped; another runner then completes the run', async () => {
    const events: RunnerEvent[] = [];
    const slow = vesta.createRunner({
      name: 'slow',
      models: ['vesta-demo'],
      claimWaitSeconds: 1,
      onLog: (e) => events.push(e),
      generate: ({ signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
    });
    await slow.ready;
    const run = await vesta.bench.create({
      name: 'hand back',
      modelId: 'vesta-demo',
      dimensions: ['dynamic_degree'],
      samplesPerPrompt: 1,
      promptsPerDimension: 1,
    });
    while (!events.some((e) => e.type === 'claimed')) await new Promise((r) => setTimeout(r, 50));
    const summary = await slow.stop({ graceMs: 100 });
    expect(summary.handedBack).toBe(1);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['registered', 'claimed', 'stopping', 'handed_back', 'stopped']),
    );

    const fast = vesta.createRunner({
      name: 'fast',
      models: ['vesta-demo'],
      claimWaitSeconds: 1,
      generate: async ({ prompt, seed, auxiliary, signal }) =>
        (await demo(prompt, seed, auxiliary, signal)).path,
    });
    let current = await vesta.bench.get(run.id);
    while (!['completed', 'failed', 'cancelled'].includes(current.status)) {
      await new Promise((r) => setTimeout(r, 200));
      current = await vesta.bench.get(run.id);
    }
    const fastSummary = await fast.stop({ graceMs: 0 });
    expect(current.status).toBe('completed');
    expect(fastSummary.completed).toBe(1);
    const [task] = await allVideos(run.id);
    expect(task!.attempts).toBe(2);
  });

  it('drops a task whose lease expired (a stale lease is refused) while another runner completes it', async () => {
    const events: RunnerEvent[] = [];
    let release: (() => void) | undefined;
    // Heartbeats far apart: the 2 s lease expires while this runner is still generating.
    const stale = vesta.createRunner({
      name: 'stale',
      models: ['vesta-demo'],
      claimWaitSeconds: 1,
      heartbeatIntervalMs: 60_000,
      onLog: (e) => events.push(e),
      generate: async ({ prompt, seed, auxiliary, signal }) => {
        const clip = await demo(prompt, seed, auxiliary, signal);
        await new Promise<void>((resolve) => (release = resolve));
        return clip.path;
      },
    });
    await stale.ready;
    const run = await vesta.bench.create({
      name: 'stale lease',
      modelId: 'vesta-demo',
      dimensions: ['dynamic_degree'],
      samplesPerPrompt: 1,
      promptsPerDimension: 1,
    });
    while (!release) await new Promise((r) => setTimeout(r, 50));
    const fresh = vesta.createRunner({
      name: 'fresh',
      models: ['vesta-demo'],
      claimWaitSeconds: 1,
      generate: async ({ prompt, seed, auxiliary, signal }) =>
        (await demo(prompt, seed, auxiliary, signal)).path,
    });
    let current = await vesta.bench.get(run.id);
    while (!['completed', 'failed', 'cancelled'].includes(current.status)) {
      await new Promise((r) => setTimeout(r, 200));
      current = await vesta.bench.get(run.id);
    }
    expect(current.status).toBe('completed');
    release();
    while (!events.some((e) => e.type === 'lease_lost')) await new Promise((r) => setTimeout(r, 50));
    const [staleSummary, freshSummary] = await Promise.all([
      stale.stop({ graceMs: 0 }),
      fresh.stop({ graceMs: 0 }),
    ]);
    expect(staleSummary).toMatchObject({ leaseLost: 1, completed: 0 });
    expect(freshSummary.completed).toBe(1);
    const [task] = await allVideos(run.id);
    expect(task).toMatchObject({ state: 'done', attempts: 2 });
  });
});
