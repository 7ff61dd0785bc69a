/**
 * Section `throughput` of `npm run bench:distributed`: scoring throughput of 2 worker processes
 * against 1 (target ≥ 1.7×), each `vesta serve --role worker` with one engine thread
 * (VESTA_ENGINE_THREADS=1, VESTA_JOB_CONCURRENCY=1), on PostgreSQL (a fresh schema per round) and
 * an S3-compatible store (s3rver in its own process, a key prefix per round; the clips go up
 * through presigned URLs and each worker downloads the clips it scores), or with
 * BENCH_THROUGHPUT_STORE=local a local blob directory shared by the processes.
 *
 * A round: an api process takes BENCH_THROUGHPUT_CLIPS corpus clips (upload-url, PUT, confirm)
 * while no worker runs, so they all wait queued; then the workers start, and the round's time
 * runs from the first clip seen `scoring` to the last one `scored` (polled every 100 ms).
 * Throughput = clips / that time. 1-worker and 2-worker rounds alternate BENCH_THROUGHPUT_ROUNDS
 * times (default 2) so that drifting load on the machine falls on both alike; the best round of
 * each is reported. Workers also report their CPU seconds per clip.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CORPUS, call, createKey, serve } from './procs.js';
import type { VestaProcess } from './procs.js';
import { freshSchema } from './pg-schema.js';
import { BUCKET, startS3rver } from './s3-upload.js';
import type { Store } from './s3-upload.js';
import type { BenchSection } from './section.js';

const CLIPS = Number(process.env.BENCH_THROUGHPUT_CLIPS ?? 12);
const ROUNDS = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 2);
const STORE = process.env.BENCH_THROUGHPUT_STORE ?? 's3';

function corpus(n: number): Array<{ file: string; prompt: string; contentType: string }> {
  const rows = readFileSync(path.join(CORPUS, 'MANIFEST.csv'), 'utf8').trim().split(/\r?\n/).slice(1);
  // file is the first field; the prompt is not needed for scoring speed (one fixed prompt).
  return rows
    .map((r) => r.slice(0, r.indexOf(',')))
    .filter((f) => f.endsWith('.mp4'))
    .slice(0, n)
    .map((f) => ({ file: path.join(CORPUS, f), prompt: 'a benchmark clip', contentType: 'video/mp4' }));
}

interface Round {
  workers: number;
  seconds: number;
  clipsPerMinute: number;
  cpuPerClip: number;
}

async function round(workers: number, store: Store | null, n: number): Promise<Round> {
  const schema = await freshSchema('bench_tp');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-tp-'));
  const env: Record<string, string> = {
    VESTA_DATABASE_URL: schema.url,
    VESTA_DATA_DIR: dataDir,
    VESTA_DATABASE_POOL_SIZE: '4',
    ...(store
      ? {
          ...store.env,
          VESTA_BLOB_STORE: 's3',
          VESTA_S3_BUCKET: BUCKET,
          VESTA_S3_REGION: 'us-east-1',
          VESTA_S3_KEY_PREFIX: `tp-${n}/`,
        }
      : {}),
  };
  const procs: VestaProcess[] = [];
  try {
    const key = await createKey(env, 'bench-throughput');
    const api = await serve('api', env);
    procs.push(api);
    const { runId } = (await call(api.base, key, 'GET', '/api/v1/score')).json() as { runId: string };
    const clips = corpus(CLIPS);
    for (const clip of clips) {
      const up = (
        await call(api.base, key, 'POST', `/api/v1/score/${runId}/videos/upload-url`, {
          fileName: path.basename(clip.file),
          contentType: clip.contentType,
          prompt: clip.prompt,
          sizeBytes: statSync(clip.file).size,
        })
      ).json() as { uploadUrl: string; videoId: string };
      const put = await fetch(up.uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': clip.contentType },
        body: readFileSync(clip.file),
      });
      if (put.status !== 200) throw new Error(`PUT ${put.status}: ${await put.text()}`);
      await call(api.base, key, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
        videoId: up.videoId,
      });
    }
    const started = await Promise.all(
      Array.from({ length: workers }, () => serve('worker', { ...env, VESTA_JOB_CONCURRENCY: '1' })),
    );
    procs.push(...started);
    let first: number | null = null;
    const deadline = Date.now() + 15 * 60_000;
    for (;;) {
      const s = (await call(api.base, key, 'GET', '/api/v1/score')).json() as {
        videos: Array<{ state: string }>;
      };
      const states = s.videos.map((v) => v.state);
      if (first === null && states.some((x) => x !== 'queued')) first = performance.now();
      if (states.includes('failed')) throw new Error('a clip failed to score');
      if (states.length === clips.length && states.every((x) => x === 'scored')) break;
      if (Date.now() > deadline) throw new Error(`not scored in time: ${states.join(',')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - (first ?? performance.now())) / 1000;
    const cpu = started.reduce((a, w) => a + w.cpuSeconds(), 0);
    return {
      workers,
      seconds,
      clipsPerMinute: (clips.length / seconds) * 60,
      cpuPerClip: cpu / clips.length,
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    await schema.drop();
  }
}

export const throughput: BenchSection = {
  name: 'throughput',
  title: `Scoring throughput: 2 worker processes vs 1 (${CLIPS} corpus clips, 1 engine thread each, PostgreSQL and ${STORE === 's3' ? 'an S3-compatible store' : 'a shared blob directory'})`,
  async run() {
    const rounds: Round[] = [];
    const storeDir = STORE === 's3' ? mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-tp-s3-')) : null;
    const store = storeDir ? await startS3rver(storeDir) : null;
    try {
      for (let r = 0; r < ROUNDS; r++)
        for (const workers of [1, 2]) {
          const res = await round(workers, store, rounds.length);
          console.error(
            `  ${workers} worker(s): ${res.seconds.toFixed(1)} s, ${res.clipsPerMinute.toFixed(1)} clips/min`,
          );
          rounds.push(res);
        }
    } finally {
      await store?.stop();
      if (storeDir) rmSync(storeDir, { recursive: true, force: true });
    }
    const best = (w: number): Round =>
      rounds.filter((r) => r.workers === w).reduce((a, b) => (b.clipsPerMinute > a.clipsPerMinute ? b : a));
    const one = best(1);
    const two = best(2);
    const ratio = two.clipsPerMinute / one.clipsPerMinute;
    const lines = [
      '| Workers | Time (best round) | Clips/min | Worker CPU s per clip |',
      '|---|---|---|---|',
      ...[one, two].map(
        (r) =>
          `| ${r.workers} | ${r.seconds.toFixed(1)} s | ${r.clipsPerMinute.toFixed(1)} | ${r.cpuPerClip.toFixed(2)} |`,
      ),
      '',
      `2 workers / 1 worker: **${ratio.toFixed(2)}×** (target ≥ 1.7×; ${ROUNDS} alternating rounds, best of each; every round: ${rounds
        .map((r) => `${r.workers}w ${r.clipsPerMinute.toFixed(1)}`)
        .join(', ')} clips/min).`,
    ];
    return lines.join('\n');
  },
};
