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
 * each is reported. Workers also report their CPU seconds per clip, and each round the share of
 * the machine's CPU that was busy while it scored (every process: a ratio near the number of
 * cores over what one worker keeps busy is the machine's ceiling, not the workers'). With
 * BENCH_THROUGHPUT_PIN=1 each worker runs on a CPU of its own (see PIN below).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CORPUS, call, createKey, machineCpu, serve } from './procs.js';
import type { VestaProcess } from './procs.js';
import { freshSchema } from './pg-schema.js';
import { BUCKET, startS3rver } from './s3-upload.js';
import type { Store } from './s3-upload.js';
import type { BenchSection } from './section.js';

const CLIPS = Number(process.env.BENCH_THROUGHPUT_CLIPS ?? 12);
const ROUNDS = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 2);
const STORE = process.env.BENCH_THROUGHPUT_STORE ?? 's3';
/**
 * BENCH_THROUGHPUT_PIN=1: worker i runs on CPU i only (taskset; its FFmpeg decoders inherit it),
 * so one worker cannot borrow a second core the way it does unpinned, while the api process,
 * PostgreSQL and the store float. On a machine with few cores this is "a core per worker", as
 * workers on machines of their own have; unpinned, the ratio is capped by the machine's cores.
 */
const PIN = process.env.BENCH_THROUGHPUT_PIN === '1';

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
  /** Share of the machine's CPU time that was busy (every process) while the clips were scored. */
  machineBusy: number;
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
      Array.from({ length: workers }, (_, i) =>
        serve(
          'worker',
          { ...env, VESTA_JOB_CONCURRENCY: '1' },
          undefined,
          PIN ? i % os.cpus().length : undefined,
        ),
      ),
    );
    procs.push(...started);
    let first: number | null = null;
    let cpuAtFirst = machineCpu();
    const deadline = Date.now() + 15 * 60_000;
    for (;;) {
      const s = (await call(api.base, key, 'GET', '/api/v1/score')).json() as {
        videos: Array<{ state: string }>;
      };
      const states = s.videos.map((v) => v.state);
      if (first === null && states.some((x) => x !== 'queued')) {
        first = performance.now();
        cpuAtFirst = machineCpu();
      }
      if (states.includes('failed')) throw new Error('a clip failed to score');
      if (states.length === clips.length && states.every((x) => x === 'scored')) break;
      if (Date.now() > deadline) throw new Error(`not scored in time: ${states.join(',')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - (first ?? performance.now())) / 1000;
    const cpuNow = machineCpu();
    const cpu = started.reduce((a, w) => a + w.cpuSeconds(), 0);
    return {
      workers,
      seconds,
      clipsPerMinute: (clips.length / seconds) * 60,
      cpuPerClip: cpu / clips.length,
      machineBusy: (cpuNow.busy - cpuAtFirst.busy) / Math.max(1, cpuNow.total - cpuAtFirst.total),
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    await schema.drop();
  }
}

export const throughput: BenchSection = {
  name: 'throughput',
  title: `Scoring throughput: 2 worker processes vs 1 (${CLIPS} corpus clips, 1 engine thread each${PIN ? ', each worker pinned to a CPU of its own' : ''}, PostgreSQL and ${STORE === 's3' ? 'an S3-compatible store' : 'a shared blob directory'})`,
  async run() {
    const rounds: Round[] = [];
    const storeDir = STORE === 's3' ? mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-tp-s3-')) : null;
    const store = storeDir ? await startS3rver(storeDir) : null;
    try {
      for (let r = 0; r < ROUNDS; r++)
        for (const workers of [1, 2]) {
          const res = await round(workers, store, rounds.length);
          console.error(
            `  ${workers} worker(s): ${res.seconds.toFixed(1)} s, ${res.clipsPerMinute.toFixed(1)} clips/min, machine ${(100 * res.machineBusy).toFixed(0)} % busy`,
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
      `| Workers | Time (best round) | Clips/min | Worker CPU s per clip | Machine busy (${os.cpus().length} CPUs) |`,
      '|---|---|---|---|---|',
      ...[one, two].map(
        (r) =>
          `| ${r.workers} | ${r.seconds.toFixed(1)} s | ${r.clipsPerMinute.toFixed(1)} | ${r.cpuPerClip.toFixed(2)} | ${(100 * r.machineBusy).toFixed(0)} % |`,
      ),
      '',
      `2 workers / 1 worker: **${ratio.toFixed(2)}×** (target ≥ 1.7×; ${ROUNDS} alternating rounds, best of each; every round: ${rounds
        .map(
          (r) => `${r.workers}w ${r.clipsPerMinute.toFixed(1)} (${(100 * r.machineBusy).toFixed(0)} % busy)`,
        )
        .join(', ')} clips/min).`,
    ];
    return lines.join('\n');
  },
};
