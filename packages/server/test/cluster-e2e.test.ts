/**
 * The distributed topology as an operator runs it, every part a separate OS process started from
 * the built CLI: a PostgreSQL server of the test's own (so that it can be restarted without
 * disturbing other tests), an S3-compatible server (s3rver, or VESTA_TEST_S3_ENDPOINT), 2
 * `vesta serve --role api` and 2 `vesta serve --role worker` sharing them, and
 * `vesta runner start --demo`.
 *
 * - 20 corpus clips uploaded through both APIs (each clip minted on one, confirmed on the other)
 *   are all scored, each exactly once (one score per scheduled dimension, no second job);
 * - `kill -9` of a worker while both workers are busy: its clip is finished by another worker (the
 *   orchestrator starts a replacement, as it would);
 * - `kill -9` of an api process: a client retrying against the other one succeeds (the same
 *   Idempotency-Key replays, the upload URL it had minted still takes the bytes);
 * - a Bench run with the demo runner, which starts while PostgreSQL is down and registers once
 *   it is back, completes with a correct CSV;
 * - the S3 server stopped for a while mid-run (s3rver only): requests that need the bucket and
 *   /readyz answer 503 upstream_unavailable with Retry-After; jobs that cannot read their clip wait
 *   for the store instead of failing; an SDK upload started meanwhile and a refused confirm both
 *   succeed after recovery;
 * - PostgreSQL restarted mid-run: meanwhile requests and /readyz answer 503
 *   upstream_unavailable with Retry-After; after recovery everything completes;
 * - SIGTERM stops the surviving api and worker with exit code 0.
 *
 * Runs in the `postgres` project only (it brings its own PostgreSQL server).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Vesta } from '@vesta/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsvLine } from '../../engine/test/helpers/corpus.js';
import { CORPUS, callApi, freePort } from './helpers/core-app.js';
import type { Json } from './helpers/core-app.js';
import { PgInstance } from './helpers/pg-instance.js';
import { externalS3, startTestS3 } from './helpers/s3.js';
import type { TestS3 } from './helpers/s3.js';

const BIN = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../cli/dist/bin.js');

/** The first 20 clips of the corpus manifest, with their prompts. */
function corpusClips(n: number): Array<{ file: string; prompt: string; contentType: string }> {
  const lines = readFileSync(path.join(CORPUS, 'MANIFEST.csv'), 'utf8').trim().split(/\r?\n/).slice(1);
  return lines
    .map(parseCsvLine)
    .filter((f) => f[5] === 'generated')
    .slice(0, n)
    .map((f) => ({
      file: path.join(CORPUS, f[0]!),
      prompt: f[7]!,
      contentType: f[0]!.endsWith('.gif') ? 'image/gif' : 'video/mp4',
    }));
}

class Proc {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<number | null>;
  constructor(
    readonly name: string,
    args: string[],
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (c: Buffer): void => {
      this.output = (this.output + c.toString()).slice(-20_000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

interface Node extends Proc {
  base: string;
}

let pgServer: PgInstance;
let s3: TestS3;
const t0 = Date.now();
/** Progress on stderr: the phases' times, for whoever reads a slow or failed run. */
const phase = (what: string): void =>
  void process.stderr.write(`[cluster-e2e +${((Date.now() - t0) / 1000).toFixed(1)} s] ${what}\n`);
let dataDir: string;
let key: string;
const procs: Proc[] = [];

async function startNode(name: string, role: 'api' | 'worker'): Promise<Node> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = new Proc(name, ['serve', '--role', role], {
    PORT: String(port),
    HOST: '127.0.0.1',
    VESTA_PUBLIC_URL: base,
    VESTA_DATABASE_URL: pgServer.url(),
    VESTA_DATABASE_POOL_SIZE: '4',
    VESTA_DATA_DIR: dataDir,
    VESTA_OFFLINE: '1',
    VESTA_ENGINE_THREADS: '1',
    VESTA_LOG_LEVEL: 'warn',
    VESTA_SHUTDOWN_GRACE_SECONDS: '5',
    // A killed worker's job is taken over after 10 s instead of 30 (long enough for heartbeats on
    // a loaded machine).
    VESTA_JOB_LEASE_SECONDS: '10',
    AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    ...s3.env,
  });
  procs.push(proc);
  return Object.assign(proc, { base });
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${ms} ms; last ${JSON.stringify(last)?.slice(0, 800)} ${lastError instanceof Error ? lastError.message : ''}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ready = (node: Node): Promise<unknown> =>
  until(
    `${node.name} ready`,
    async () => {
      if (!node.running) throw new Error(`${node.name} exited: ${node.output}`);
      return (await fetch(`${node.base}/readyz`)).status;
    },
    (s) => s === 200,
    60_000,
  );

async function call(
  node: Node,
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return callApi(node.base, key, method, p, body, headers);
}

/** upload-url on `mint`, PUT to the URL it names, confirm on `confirm`: one clip through two APIs. */
async function uploadVia(
  mint: Node,
  confirm: Node,
  runId: string,
  clip: { file: string; prompt: string; contentType: string },
): Promise<string> {
  const up = await call(mint, 'POST', `/api/v1/score/${runId}/videos/upload-url`, {
    fileName: path.basename(clip.file),
    contentType: clip.contentType,
    prompt: clip.prompt,
    sizeBytes: statSync(clip.file).size,
  });
  expect(up.status, up.text).toBe(201);
  const put = await fetch(up.json().uploadUrl as string, {
    method: 'PUT',
    headers: { 'content-type': clip.contentType },
    body: readFileSync(clip.file),
  });
  expect(put.status, await put.clone().text()).toBe(200);
  const done = await call(confirm, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
    videoId: up.json().videoId,
  });
  expect(done.status, done.text).toBeLessThan(300);
  return up.json().videoId as string;
}

let apiA: Node;
let apiB: Node;
let worker1: Node;
let worker2: Node;

/** A worker's count of job runs that ended `outcome` (its /metrics). */
async function jobRuns(node: Node, outcome: string): Promise<number> {
  const text = await (await fetch(`${node.base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('vesta_job_runs_total{') && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/**
 * The S3 server stopped for ~8 s while clips wait to be scored: requests that need the bucket
 * answer 503 upstream_unavailable with Retry-After and /readyz is not ready; the workers' jobs
 * that cannot read their clip wait for the store instead of failing; an SDK upload started during
 * the outage succeeds through its retries, and a confirm refused meanwhile succeeds afterwards.
 * Returns the clips it added.
 */
async function s3Outage(
  runId: string,
  clips: Array<{ file: string; prompt: string; contentType: string }>,
  confirmedId: string,
): Promise<string[]> {
  // Bytes already in the bucket, not yet confirmed (confirm reads the object).
  const pending = clips[1]!;
  const ticket = await call(apiA, 'POST', `/api/v1/score/${runId}/videos/upload-url`, {
    fileName: 'pending.mp4',
    contentType: pending.contentType,
    prompt: pending.prompt,
    sizeBytes: statSync(pending.file).size,
  });
  expect(ticket.status, ticket.text).toBe(201);
  const put = await fetch(ticket.json().uploadUrl as string, {
    method: 'PUT',
    headers: { 'content-type': pending.contentType },
    body: readFileSync(pending.file),
  });
  expect(put.status).toBe(200);
  const pendingId = ticket.json().videoId as string;
  const deferredBefore = (await jobRuns(worker1, 'deferred')) + (await jobRuns(worker2, 'deferred'));

  await s3.stopServer();
  const stoppedAt = Date.now();
  phase('S3 server stopped');
  let sdkUpload: Promise<{ videoId: string; state: string }>;
  try {
    // A client uploading now: the PUT cannot reach the store; the SDK retries it (backoff 0.5, 1,
    // 2, 4, 8 s) until it can.
    const client = new Vesta({ apiKey: key, baseUrl: apiB.base, maxRetries: 6 });
    sdkUpload = client.score.upload(clips[2]!.file, { prompt: clips[2]!.prompt });
    sdkUpload.catch(() => undefined);

    const confirm = await call(apiA, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
      videoId: pendingId,
    });
    expect(confirm.status, confirm.text).toBe(503);
    expect(confirm.json().code).toBe('upstream_unavailable');
    expect(Number(confirm.headers.get('retry-after'))).toBeGreaterThan(0);
    const content = await call(apiB, 'GET', `/api/v1/videos/${confirmedId}/content`);
    expect(content.status, content.text).toBe(503);
    expect(content.json().code).toBe('upstream_unavailable');
    expect(Number(content.headers.get('retry-after'))).toBeGreaterThan(0);
    for (const node of [apiA, worker2]) {
      const r = await fetch(`${node.base}/readyz`);
      expect(r.status).toBe(503);
      const answer = (await r.json()) as Json;
      expect(answer.code).toBe('upstream_unavailable');
      expect(answer.detail).toContain('blobs');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // The workers go on claiming clips they cannot read: each such job is put back to wait for
    // the store (not an attempt used up), and no clip fails.
    await new Promise((r) => setTimeout(r, Math.max(0, 8000 - (Date.now() - stoppedAt))));
    const during = (await call(apiB, 'GET', '/api/v1/score')).json();
    expect((during.videos as Json[]).filter((v) => v.state === 'failed')).toEqual([]);
    await until(
      'a worker job deferred while S3 is down',
      async () => (await jobRuns(worker1, 'deferred')) + (await jobRuns(worker2, 'deferred')),
      (n) => n > deferredBefore,
      20_000,
    );
  } finally {
    await s3.startServer();
  }
  phase(`S3 server back after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`);
  await Promise.all([apiA, apiB, worker1, worker2].map(ready));
  // The confirm refused during the outage succeeds now; so does the SDK's upload, by its retries.
  const confirmed = await call(apiB, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
    videoId: pendingId,
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  const uploaded = await sdkUpload;
  expect(['uploaded', 'queued', 'scoring', 'scored']).toContain(uploaded.state);
  phase('the confirm refused during the outage and the SDK upload started in it both went through');
  return [pendingId, uploaded.videoId];
}

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npm run build)`);
  pgServer = await PgInstance.start();
  s3 = await startTestS3();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-cluster-e2e-'));
  // The operator's first step: a key, made on the host (this also migrates the database).
  const admin = new Proc('admin', ['admin', 'create-key', '--user', 'e2e'], {
    VESTA_DATABASE_URL: pgServer.url(),
    VESTA_DATA_DIR: dataDir,
  });
  expect(await admin.exited, admin.output).toBe(0);
  key = admin.output
    .trim()
    .split(/\s+/)
    .find((w) => w.startsWith('vsk_'))!;
  expect(key).toMatch(/^vsk_/);
  apiA = await startNode('api-a', 'api');
  apiB = await startNode('api-b', 'api');
  worker1 = await startNode('worker-1', 'worker');
  worker2 = await startNode('worker-2', 'worker');
  await Promise.all([apiA, apiB, worker1, worker2].map(ready));
  phase('2 api + 2 worker processes ready');
}, 120_000);

afterAll(async () => {
  // A process that died unexpectedly says why.
  for (const p of procs)
    if (!p.running && p.child.signalCode !== 'SIGKILL' && p.child.exitCode !== 0)
      process.stderr.write(`[cluster-e2e] ${p.name} exited ${p.child.exitCode}:\n${p.output.slice(-3000)}\n`);
  for (const p of procs) if (p.running) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await pgServer?.destroy();
  await s3?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('2 api + 2 worker processes on one PostgreSQL server', () => {
  it('scores every clip exactly once through kill -9 of a worker and of an api process, a Bench run with the demo runner, and a PostgreSQL restart', async () => {
    const clips = corpusClips(20);
    expect(clips).toHaveLength(20);
    const { runId } = (await call(apiA, 'GET', '/api/v1/score')).json() as { runId: string };

    // 20 clips through both APIs: minted on one, confirmed on the other, alternating.
    const videoIds: string[] = [];
    for (const [i, clip] of clips.entries())
      videoIds.push(await uploadVia(i % 2 ? apiB : apiA, i % 2 ? apiA : apiB, runId, clip));
    phase('20 clips uploaded and confirmed');
    const session = async (node: Node = apiB) => (await call(node, 'GET', '/api/v1/score')).json();

    // The S3 server stopped for a while mid-run, while clips wait to be scored.
    if (!externalS3) videoIds.push(...(await s3Outage(runId, clips, videoIds[0]!)));

    // kill -9 of a worker in the middle of a job: once two clips are being scored at once, each
    // worker (concurrency 1) holds one.
    const busy = await until(
      'both workers scoring',
      session,
      (s) => s.videos.filter((v: Json) => v.state === 'scoring').length === 2,
      90_000,
    );
    const inFlight = busy.videos.filter((v: Json) => v.state === 'scoring').map((v: Json) => v.videoId);
    worker1.child.kill('SIGKILL');
    await worker1.exited;
    phase(`worker-1 killed while ${inFlight.length} clips were being scored`);
    // The orchestrator starts a replacement; the killed worker's clip goes to whichever worker
    // claims it once its lease ran out.
    const worker3 = await startNode('worker-3', 'worker');
    await ready(worker3);
    phase('worker-3 (the replacement) ready');

    // kill -9 of an api process: the client's request with an Idempotency-Key was answered by A;
    // A dies; the client retries on B — the same answer, and A's upload URL works on B.
    const idem = { 'idempotency-key': 'e2e-retry-1' };
    const extra = clips[0]!;
    const body = { fileName: 'retry.mp4', contentType: extra.contentType, prompt: extra.prompt };
    const first = await call(apiA, 'POST', `/api/v1/score/${runId}/videos/upload-url`, body, idem);
    expect(first.status, first.text).toBe(201);
    apiA.child.kill('SIGKILL');
    await apiA.exited;
    await expect(fetch(`${apiA.base}/healthz`)).rejects.toThrow();
    const retried = await call(apiB, 'POST', `/api/v1/score/${runId}/videos/upload-url`, body, idem);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.json().videoId).toBe(first.json().videoId);
    // The URL A minted: an S3 presigned PUT (or, with the local store, A's own route, sent to B).
    const onB = (first.json().uploadUrl as string).replace(apiA.base, apiB.base);
    const put = await fetch(onB, {
      method: 'PUT',
      headers: { 'content-type': extra.contentType },
      body: readFileSync(extra.file),
    });
    expect(put.status, await put.clone().text()).toBe(200);
    const confirmed = await call(apiB, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
      videoId: first.json().videoId,
    });
    expect(confirmed.status, confirmed.text).toBeLessThan(300);
    videoIds.push(first.json().videoId as string);
    phase('api-a killed; the client retried on api-b');

    // A Bench run served by the demo runner (against the surviving api process), which starts
    // while PostgreSQL is down (below).
    const created = await call(apiB, 'POST', '/api/v1/bench', {
      name: 'cluster e2e',
      dimensions: ['subject_consistency', 'dynamic_degree'],
      model_id: 'vesta-demo',
      samples_per_prompt: 1,
      prompts_per_dimension: 1,
    });
    expect(created.status, created.text).toBe(201);
    const benchId = created.json().id as string;

    // PostgreSQL restarted mid-run: while it is down, requests and readiness answer 503
    // upstream_unavailable with Retry-After (the processes stay up).
    await pgServer.pause();
    phase('PostgreSQL stopped');
    // The runner registers through the outage: its registration is refused with 503 until the
    // database is back, and it keeps trying.
    const runner = new Proc('runner', ['runner', 'start', '--demo', '--json', '--claim-wait', '2'], {
      VESTA_BASE_URL: apiB.base,
      VESTA_API_KEY: key,
    });
    procs.push(runner);
    try {
      const down = await call(apiB, 'GET', '/api/v1/score');
      expect(down.status, down.text).toBe(503);
      expect(down.json().code).toBe('upstream_unavailable');
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
      for (const node of [apiB, worker2]) {
        const r = await fetch(`${node.base}/readyz`);
        expect(r.status).toBe(503);
        const answer = (await r.json()) as Json;
        expect(answer.code).toBe('upstream_unavailable');
        expect(answer.detail).toContain('database');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      await new Promise((r) => setTimeout(r, 2000));
      expect(apiB.running && worker2.running).toBe(true);
      await until(
        'the runner retrying its registration',
        () => Promise.resolve(runner.output),
        (out) => out.includes('"type":"retrying"') || !runner.running,
        30_000,
      );
      expect(runner.running, runner.output).toBe(true);
    } finally {
      await pgServer.resume();
    }
    await Promise.all([apiB, worker2, worker3].map(ready));
    phase('PostgreSQL back; every process ready again');

    // Everything completes: every clip scored (the killed worker's clips and those whose reads
    // failed while S3 was down among them), and the Bench run.
    let lastLine = '';
    const final = await until(
      'every clip scored',
      session,
      (s) => {
        const states = (s.videos as Json[]).map((v) => v.state as string);
        const counts = Object.fromEntries(
          [...new Set(states)].map((x) => [x, states.filter((y) => y === x).length]),
        );
        const line = `clips: ${JSON.stringify(counts)}`;
        if (line !== lastLine) phase((lastLine = line));
        return states.length === videoIds.length && states.every((x) => x === 'scored' || x === 'failed');
      },
      150_000,
    );
    phase('every clip scored');
    for (const v of final.videos as Json[]) {
      expect(v.state, JSON.stringify(v.error)).toBe('scored');
      // Exactly once: one score per scheduled dimension.
      const dims = (v.scores as Json[]).map((s) => s.dimension as string);
      expect(new Set(dims).size).toBe(dims.length);
      expect([...dims].sort()).toEqual([...(v.dimensions as string[])].sort());
    }
    expect(new Set(final.videos.map((v: Json) => v.videoId))).toEqual(new Set(videoIds));
    for (const id of inFlight) expect(videoIds).toContain(id);

    // One scoring job per clip, each completed: none lost, none enqueued twice (the job engine's
    // table on PostgreSQL, pg-boss's `job` and `archive` where they exist).
    const db = new pg.Client({ connectionString: pgServer.url() });
    await db.connect();
    try {
      const { rows: tables } = await db.query<{ name: string }>(
        `select table_name as name from information_schema.tables
          where table_schema = 'pgboss' and table_name in ('job', 'archive')`,
      );
      expect(tables.map((t) => t.name)).toContain('job');
      const all = tables
        .map((t) => `select data->>'s' as subject, state from pgboss.${t.name}`)
        .join(' union all ');
      const { rows } = await db.query<{ subject: string; n: string; completed: string }>(
        `select subject, count(*) as n, count(*) filter (where state = 'completed') as completed
           from (${all}) j where subject like 'video:%' group by subject`,
      );
      const bySubject = new Map(rows.map((r) => [r.subject, r]));
      for (const id of videoIds) {
        const r = bySubject.get(`video:${id}`);
        expect(r, id).toBeDefined();
        expect([Number(r!.n), Number(r!.completed)], id).toEqual([1, 1]);
      }
    } finally {
      await db.end();
    }

    const run = await until(
      'bench run finished',
      async () => (await call(apiB, 'GET', `/api/v1/bench/${benchId}`)).json(),
      (r) => ['completed', 'failed', 'cancelled'].includes(r.status as string),
      120_000,
    ).catch((e: unknown) => {
      // What the runner said (a registration refused, say) tells why a run never left `queued`.
      const state = runner.running ? 'running' : `exited (${String(runner.child.exitCode)})`;
      throw new Error(`${(e as Error).message}\nrunner ${state}; its output:\n${runner.output.slice(-4000)}`);
    });
    expect(run.status, JSON.stringify(run)).toBe('completed');
    phase('Bench run completed');
    const benchVideos = (await call(apiB, 'GET', `/api/v1/bench/${benchId}/videos?limit=100`)).json()
      .items as Json[];
    const csv = await call(apiB, 'GET', `/api/v1/bench/${benchId}/csv`);
    expect(csv.status).toBe(200);
    const [header, ...lines] = csv.text.trim().split(/\r?\n/);
    expect(header).toBe('dimension,category,score,normalised_score,clips,method,ci95_low,ci95_high,prompts');
    const rows = lines.map((l) => l.split(','));
    for (const dimension of ['subject_consistency', 'dynamic_degree']) {
      const values = benchVideos.flatMap((v) =>
        (v.scores as Json[]).filter((s) => s.dimension === dimension).map((s) => s.value as number),
      );
      expect(values.length).toBeGreaterThan(0);
      const row = rows.find((r) => r[0] === dimension)!;
      expect(Number(row[4])).toBe(values.length);
      expect(Number(row[2])).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 5);
    }

    // SIGTERM: the survivors and the runner stop gracefully.
    for (const p of [runner, apiB, worker2, worker3]) p.child.kill('SIGTERM');
    expect(await apiB.exited, apiB.output).toBe(0);
    expect(await worker2.exited, worker2.output).toBe(0);
    expect(await worker3.exited, worker3.output).toBe(0);
    expect(await runner.exited, runner.output).toBe(0);
  }, 300_000);
});
