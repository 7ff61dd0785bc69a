/**
 * `npm run bench:fairness`: fair share of the scoring slot between users (issue #15).
 *
 * A real Vesta server (all role, in-process, temporary data directory, one scoring slot:
 * VESTA_JOB_CONCURRENCY=1, the real engine, model-free methods) and one small real clip (the demo
 * generator's 3 s, 320×192 H.264) sent through the Score flow (upload-url, PUT, confirm) and scored
 * on every Score dimension. User A confirms N clips (default 200, env
 * BENCH_FAIRNESS_CLIPS) back to back; user B confirms one.
 *
 * Phases, each on a fresh server, in one run:
 * 1. A alone, `fifo` (the claim before #15) and `fair`, side by side: T clips each (default 50,
 *    env BENCH_FAIRNESS_THROUGHPUT_CLIPS) split in R rounds (default 5, BENCH_FAIRNESS_ROUNDS) that
 *    alternate which claim goes first, so the shared machine's load drifts over both alike → A's
 *    throughput (clips per second from a round's first claim to its last clip scored, summed).
 * 2. `fifo`, contended: A's F clips (default 10, BENCH_FAIRNESS_FIFO_BACKLOG), then B's one →
 *    B's latency (confirm → scored) behind A's backlog, for contrast.
 * 3. `fair`, contended: B alone first (3 clips one after another, median confirm → scored), then
 *    A's N clips (default 200) and, once they are all queued, B's one → B's latency; the phase
 *    ends when B's clip is scored (A's backlog is not waited for).
 *
 * 4. With BENCH_FAIRNESS_PG_URL (a PostgreSQL database, e.g. postgres://postgres@127.0.0.1:5432/test):
 *    phase 3 again on the distributed mode's job engine (pg-boss with Vesta's fair claim), on a
 *    fresh schema of that database (dropped afterwards).
 *
 * Targets: B's contended latency ≤ 3 × B alone (phases 3 and 4), and A's throughput fair / fifo
 * ≥ 0.95 (phases 2 and 1). Needs a build (`npm run build`). Prints a Markdown table for
 * docs/benchmarks.md.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine, generateDemoClip } from '@vesta/engine';
import { loadConfig, startServer } from '@vesta/server';
import type { RunningServer } from '@vesta/server';
import pg from 'pg';

/** A's backlog that B's clip arrives behind (fair phase). */
const CLIPS = Number(process.env.BENCH_FAIRNESS_CLIPS ?? 200);
/** A's clips in the throughput phases (fifo and fair), which score every one of them. */
const THROUGHPUT_CLIPS = Number(process.env.BENCH_FAIRNESS_THROUGHPUT_CLIPS ?? 50);
/** Rounds the throughput clips are split in, alternating fifo and fair. */
const ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 5);
/** A's backlog that B's clip waits behind with the fifo claim (every clip of it is scored). */
const FIFO_BACKLOG = Number(process.env.BENCH_FAIRNESS_FIFO_BACKLOG ?? 10);
/** A PostgreSQL database for phase 4 (the job engine); the phase is left out without it. */
const PG_URL = process.env.BENCH_FAIRNESS_PG_URL;
let bytes: Buffer;

interface Server {
  server: RunningServer;
  dataDir: string;
  key(name: string): Promise<string>;
  /** Drops the PostgreSQL schema of a job-engine server. */
  dropSchema?: () => Promise<void>;
}

async function adminQuery(url: string, query: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

/** A server with the embedded queue (`fair` or `fifo` claim), or on `pgUrl` with the job engine. */
async function start(claimOrder: 'fair' | 'fifo', pgUrl?: string): Promise<Server> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-fairness-'));
  const env: Record<string, string> = {
    VESTA_OFFLINE: '1',
    HOST: '127.0.0.1',
    PORT: '8080',
    VESTA_DATA_DIR: dataDir,
    VESTA_PUBLIC_URL: 'http://127.0.0.1:8080',
    VESTA_LOG_LEVEL: 'silent',
    VESTA_JOB_CONCURRENCY: '1',
  };
  let dropSchema: (() => Promise<void>) | undefined;
  if (pgUrl !== undefined) {
    const schema = `bench_fair_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    await adminQuery(pgUrl, `create schema ${schema}`);
    const u = new URL(pgUrl);
    u.searchParams.set('options', `-c search_path=${schema}`);
    env.VESTA_DATABASE_URL = u.toString();
    dropSchema = () =>
      adminQuery(
        pgUrl,
        `drop schema if exists ${schema} cascade; drop schema if exists ${schema}_pgboss cascade`,
      );
  }
  const config = loadConfig(env, dataDir);
  const server = await startServer(config, {
    createEngine,
    listen: false,
    worker: true,
    queue: pgUrl === undefined ? { claimOrder, pollMs: 50 } : { pollMs: 50 },
  });
  return {
    server,
    dataDir,
    key: async (name) => (await server.deps.services.apiKeys.createKey(name)).key,
    ...(dropSchema ? { dropSchema } : {}),
  };
}

async function stop(s: Server): Promise<void> {
  await s.server.close();
  await s.dropSchema?.();
  rmSync(s.dataDir, { recursive: true, force: true });
}

/** B alone (median of 3), then B's one clip confirmed behind A's `CLIPS` queued ones. */
async function contended(srv: Server): Promise<{ aloneMs: number; behindMs: number; scoredBeforeB: number }> {
  const keyA = await srv.key('user-a');
  const keyB = await srv.key('user-b');
  const alone: number[] = [];
  for (let i = 0; i < 3; i++) {
    const c = await upload(srv, keyB, i);
    await confirm(srv, keyB, c);
    alone.push(await latency(srv, c.videoId));
  }
  alone.sort((x, y) => x - y);
  const bClip = await upload(srv, keyB, 99);
  await queueA(srv, keyA, CLIPS);
  await confirm(srv, keyB, bClip);
  const behindMs = await latency(srv, bClip.videoId);
  const scoredBeforeB = Number(
    (
      await srv.server.deps.db
        .selectFrom('videos')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('state', '=', 'scored')
        .where('file_name', 'like', 'clip-%')
        .executeTakeFirstOrThrow()
    ).n,
  );
  return { aloneMs: alone[1]!, behindMs, scoredBeforeB };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of the API
type Json = Record<string, any>;

async function call(
  s: Server,
  method: 'GET' | 'POST',
  url: string,
  key: string,
  body?: unknown,
): Promise<Json> {
  const res = await s.server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Uploads one clip to the user's Score session (not confirmed yet); returns its video id. */
async function upload(s: Server, key: string, i: number): Promise<{ runId: string; videoId: string }> {
  const { runId } = await call(s, 'GET', '/api/v1/score', key);
  const ticket = await call(s, 'POST', `/api/v1/score/${runId as string}/videos/upload-url`, key, {
    fileName: `clip-${i}.mp4`,
    contentType: 'video/mp4',
    prompt: 'a red ball bouncing',
  });
  const url = new URL(ticket.uploadUrl as string);
  const res = await s.server.app.inject({
    method: 'PUT',
    url: `${url.pathname}${url.search}`,
    headers: { 'content-type': 'video/mp4' },
    payload: bytes,
  });
  if (res.statusCode !== 200) throw new Error(`PUT: ${res.statusCode} ${res.body}`);
  return { runId: runId as string, videoId: ticket.videoId as string };
}

async function confirm(s: Server, key: string, clip: { runId: string; videoId: string }): Promise<void> {
  await call(s, 'POST', `/api/v1/score/${clip.runId}/videos/confirm-upload`, key, { videoId: clip.videoId });
}

async function scoredAt(s: Server, videoIds: string[]): Promise<number[]> {
  for (;;) {
    const rows = await s.server.deps.db
      .selectFrom('videos')
      .select(['state', 'scored_at'])
      .where('id', 'in', videoIds)
      .execute();
    const failed = rows.find((r) => r.state === 'failed');
    if (failed) throw new Error('a clip failed to score');
    if (rows.length === videoIds.length && rows.every((r) => r.state === 'scored'))
      return rows.map((r) => r.scored_at!);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Scored − confirmed, in ms (both recorded by the server). */
async function latency(s: Server, videoId: string): Promise<number> {
  await scoredAt(s, [videoId]);
  const row = await s.server.deps.db
    .selectFrom('videos')
    .select(['confirmed_at', 'scored_at'])
    .where('id', '=', videoId)
    .executeTakeFirstOrThrow();
  return row.scored_at! - row.confirmed_at!;
}

/** Milliseconds from the first claim of these clips to the last one scored. */
async function scoringWindow(s: Server, videoIds: string[]): Promise<number> {
  const done = await scoredAt(s, videoIds);
  const first = await s.server.deps.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('claimed_at').as('t'))
    .where(
      'subject',
      'in',
      videoIds.map((v) => `video:${v}`),
    )
    .executeTakeFirstOrThrow();
  return Math.max(...done) - Number(first.t);
}

async function queueA(s: Server, keyA: string, n: number): Promise<string[]> {
  const clips = [];
  for (let i = 0; i < n; i++) clips.push(await upload(s, keyA, i));
  for (const c of clips) await confirm(s, keyA, c);
  return clips.map((c) => c.videoId);
}

async function main(): Promise<void> {
  // One small real clip (the demo generator's: 320×192, 8 fps, 24 frames, H.264), so that a full
  // run of 2 × N clips stays within minutes on a shared machine.
  const clipDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-fairness-clip-'));
  const clipPath = path.join(clipDir, 'clip.mp4');
  await generateDemoClip({ prompt: 'a red ball bouncing', seed: 1, outPath: clipPath });
  bytes = readFileSync(clipPath);
  rmSync(clipDir, { recursive: true, force: true });
  const t0 = performance.now();
  console.error(
    `bench:fairness: A's ${THROUGHPUT_CLIPS} clips for throughput, A's ${CLIPS} queued ahead of B's one, one scoring slot`,
  );

  // 1 and 2: A alone, fifo and fair, in alternating rounds (fifo first in odd rounds, fair first in
  // even ones) so that the shared machine's load drifts over both alike.
  const windows = { fifo: { clips: 0, ms: 0 }, fair: { clips: 0, ms: 0 } };
  const perRound = Math.max(1, Math.round(THROUGHPUT_CLIPS / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    const orders: Array<'fifo' | 'fair'> = round % 2 === 0 ? ['fifo', 'fair'] : ['fair', 'fifo'];
    for (const order of orders) {
      const srv = await start(order);
      const key = await srv.key('user-a');
      const ids = await queueA(srv, key, perRound);
      const ms = await scoringWindow(srv, ids);
      windows[order].clips += ids.length;
      windows[order].ms += ms;
      await stop(srv);
    }
    console.error(`  round ${round + 1}/${ROUNDS} done (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const fifoThroughput = windows.fifo.clips / (windows.fifo.ms / 1000);
  const fairThroughput = windows.fair.clips / (windows.fair.ms / 1000);

  // B behind A's backlog with the fifo claim (the problem the fair claim solves).
  const fifo = await start('fifo');
  const fifoA = await fifo.key('user-a');
  const fifoB = await fifo.key('user-b');
  const bClipFifo = await upload(fifo, fifoB, 0);
  await queueA(fifo, fifoA, FIFO_BACKLOG);
  await confirm(fifo, fifoB, bClipFifo);
  const fifoBLatency = await latency(fifo, bClipFifo.videoId);
  await stop(fifo);

  // 3. fair, contended: B alone first, then B behind A's backlog.
  const fair = await start('fair');
  const embedded = await contended(fair);
  await stop(fair);
  const bAloneMs = embedded.aloneMs;
  const fairBLatency = embedded.behindMs;
  const aScoredBeforeB = embedded.scoredBeforeB;

  // 4. the same on the job engine (PostgreSQL), when a database is given.
  let engine: Awaited<ReturnType<typeof contended>> | null = null;
  if (PG_URL !== undefined) {
    const srv = await start('fair', PG_URL);
    try {
      engine = await contended(srv);
    } finally {
      await stop(srv);
    }
  }

  const ratio = fairBLatency / bAloneMs;
  const tput = fairThroughput / fifoThroughput;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`| measure | fifo (before) | fair (after) |`);
  console.log(`|---|---|---|`);
  console.log(
    `| A alone: throughput, ${windows.fifo.clips} + ${windows.fair.clips} clips in ${ROUNDS} alternating rounds | ${fifoThroughput.toFixed(3)} clips/s | ${fairThroughput.toFixed(3)} clips/s (**${tput.toFixed(3)}×**) |`,
  );
  console.log(`| B alone: confirm → scored (median of 3) | — | ${s(bAloneMs)} |`);
  console.log(
    `| B's clip confirmed behind A's queued clips: confirm → scored | behind ${FIFO_BACKLOG}: ${s(fifoBLatency)} (${(fifoBLatency / bAloneMs).toFixed(1)}× alone) | behind ${CLIPS}: ${s(fairBLatency)} (**${ratio.toFixed(2)}× alone**) |`,
  );
  const engineRatio = engine ? engine.behindMs / engine.aloneMs : null;
  if (engine && engineRatio !== null) {
    console.log(``);
    console.log(`| job engine (PostgreSQL, fair claim) | |`);
    console.log(`|---|---|`);
    console.log(`| B alone: confirm → scored (median of 3) | ${s(engine.aloneMs)} |`);
    console.log(
      `| B's clip confirmed behind A's ${CLIPS} queued clips: confirm → scored | ${s(engine.behindMs)} (**${engineRatio.toFixed(2)}× alone**; ${engine.scoredBeforeB} clips scored by then, B's 4 included) |`,
    );
  }
  console.log(``);
  console.log(
    `(clips scored when B's was done in the fair contended phase, B's 4 included: ${aScoredBeforeB}; total ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
  const ok = ratio <= 3 && tput >= 0.95 && (engineRatio === null || engineRatio <= 3);
  console.log(
    ok ? 'targets met (B ≤ 3× alone, A ≥ 0.95× fifo)' : 'TARGETS MISSED (B ≤ 3× alone, A ≥ 0.95× fifo)',
  );
  if (!ok) process.exitCode = 1;
}

await main();
