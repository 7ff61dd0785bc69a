/**
 * `npm run bench:compare`: what the statistics of issue #21 cost on the server.
 *
 * A real Vesta server (all role, SQLite in a temporary data directory, requests by `app.inject`,
 * so the times are the server's own: routing, auth, the database reads, the resampling and the
 * serialisation, without a network). Two completed runs of one prompt suite version are written
 * into its database, each 1,000 clips over the whole suite (every clip group of the 16 dimensions,
 * 200 prompts × 5 samples, ~1,450 scores), with values that differ by prompt.
 *
 * 1. `GET /api/v1/bench/compare?runs=A,B` (paired, 10,000 bootstrap replicates and 10,000 sign-flip
 *    patterns, 16 dimensions + Quality, Semantic, Total, per-prompt deltas): p50 / p90 of
 *    BENCH_COMPARE_REPEATS calls (default 30) after 3 warm-ups, each computed (the service's kept
 *    comparisons cleared first), and of the same call right after (served from the kept
 *    comparison of two ended runs). Target: p50 ≤ 200 ms (computed).
 * 2. `GET /api/v1/bench/{id}` of a completed run, whose scorecard with intervals is stored on the
 *    run (what the run page reads), against the same request for its twin whose stored scorecard
 *    has no interval fields (below) and for a run in `generating` whose scorecard is null — interleaved in rounds (BENCH_COMPARE_GETS per round, default 2,000;
 *    5 rounds): p50 of each, the process CPU per request (`process.cpuUsage` around each round's
 *    batch, median of the rounds), and the ratios. Target: the intervals add ≤ 10 %.
 *
 *    What the ratio measures. The target is what the *intervals* add. A run stored in the
 *    pre-interval layout cannot be seeded (a stored scorecard of another `SCORECARD_VERSION` is
 *    recomputed, with intervals, on the first read), so a twin of the completed run is seeded and,
 *    once its scorecard is stored, that scorecard's per-row interval fields (`ci95_low`,
 *    `ci95_high`, `prompts`) are removed in place, in the current layout: the server serves it as
 *    it is, and the twin's answer is the completed run's less those fields (checked). Completed ÷
 *    twin is the measure; completed ÷ generating (the whole scorecard and a terminal run's
 *    notices) is printed too, as an upper bound, with the interval fields' share of the bytes. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CLIP_GROUPS, createEngine } from '@vesta/engine';
import { loadConfig, startServer } from '@vesta/server';
import { seedRun } from '../packages/server/test/helpers/bench-seed.js';
import type { SeedClip } from '../packages/server/test/helpers/bench-seed.js';
import { suiteClips } from './bench-support/suite-clips.js';

const REPEATS = Number(process.env.BENCH_COMPARE_REPEATS ?? 30);
const GETS = Number(process.env.BENCH_COMPARE_GETS ?? 2000);
const ROUNDS = 5;
const PROMPTS = 200;
const SAMPLES = 5;

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
const load = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** 1,000 clips over every clip group (PROMPTS × SAMPLES); a run's `shift` moves every score. */
const clips = (shift: number): SeedClip[] => suiteClips(CLIP_GROUPS, shift, PROMPTS, SAMPLES);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-compare-'));
  const config = loadConfig(
    { VESTA_OFFLINE: '1', VESTA_DATA_DIR: dataDir, VESTA_LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' },
    dataDir,
  );
  const server = await startServer(config, { createEngine, listen: false, worker: false });
  try {
    const { userId, key } = await server.deps.services.apiKeys.createKey('bench-compare');
    await server.deps.bench.models.upsert({
      id: 'bench-model',
      name: 'Bench model',
      description: 'benchmark',
    });
    const seedStart = performance.now();
    await seedRun(server, { id: 'bench_compare_a', userId, model: 'bench-model', clips: clips(0) });
    await seedRun(server, { id: 'bench_compare_b', userId, model: 'bench-model', clips: clips(-0.004) });
    // A's twin, whose stored scorecard loses its interval fields below (section 2).
    await seedRun(server, { id: 'bench_compare_bare', userId, model: 'bench-model', clips: clips(0) });
    await seedRun(server, {
      id: 'bench_compare_live',
      userId,
      model: 'bench-model',
      status: 'generating',
      clips: clips(0),
    });
    console.log(
      `seeded 4 runs (A, B, A's twin, a live one) × ${clips(0).length} clips in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );
    const get = async (url: string): Promise<{ ms: number; bytes: number }> => {
      const t = performance.now();
      const res = await server.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      const ms = performance.now() - t;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return { ms, bytes: res.body.length };
    };
    console.log(`load average before: ${load()}`);

    // 1. The comparison: computed (the kept comparisons forgotten before each call), then as
    // the dashboard meets it again (both runs have ended, so the computed one is kept).
    const compareUrl = '/api/v1/bench/compare?runs=bench_compare_a,bench_compare_b';
    const comparisons = server.deps.bench.comparisons;
    for (let i = 0; i < 3; i++) {
      comparisons.clearCache();
      await get(compareUrl);
    }
    const compareTimes: number[] = [];
    const keptTimes: number[] = [];
    let compareBytes = 0;
    for (let i = 0; i < REPEATS; i++) {
      comparisons.clearCache();
      const r = await get(compareUrl);
      compareTimes.push(r.ms);
      compareBytes = r.bytes;
      keptTimes.push((await get(compareUrl)).ms);
    }

    // 2. GET /bench/{id}: the stored scorecard against none, interleaved.
    await get('/api/v1/bench/bench_compare_a'); // stores the scorecard on first read if missing
    await get('/api/v1/bench/bench_compare_bare');
    // The twin's stored scorecard without the per-row interval fields (ci95_low, ci95_high, the
    // prompts count), in the current layout, so the server reads it as it is and its answer is
    // A's less those fields; its updated_at moves by 1 ms so the parsed card kept for it is dropped.
    const twin = await server.deps.db
      .selectFrom('bench_runs')
      .select(['scorecard', 'updated_at'])
      .where('id', '=', 'bench_compare_bare')
      .executeTakeFirstOrThrow();
    const stored = JSON.parse(twin.scorecard!) as {
      card: { dimensions: Record<string, unknown>[]; aggregates: Record<string, unknown>[] };
    };
    for (const row of [...stored.card.dimensions, ...stored.card.aggregates])
      for (const field of ['ci95Low', 'ci95High', 'prompts']) delete row[field];
    await server.deps.db
      .updateTable('bench_runs')
      .set({ scorecard: JSON.stringify(stored), updated_at: Number(twin.updated_at) + 1 })
      .where('id', '=', 'bench_compare_bare')
      .execute();
    const withCard: number[] = [];
    const without: number[] = [];
    const bare: number[] = [];
    const cpu = { withCard: [] as number[], without: [] as number[], bare: [] as number[] };
    let bytes = { withCard: 0, without: 0, bare: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [url, into, which] of [
        ['/api/v1/bench/bench_compare_a', withCard, 'withCard'],
        ['/api/v1/bench/bench_compare_bare', bare, 'bare'],
        ['/api/v1/bench/bench_compare_live', without, 'without'],
      ] as const) {
        for (let i = 0; i < 200; i++) await get(url);
        const c0 = process.cpuUsage();
        for (let i = 0; i < GETS; i++) {
          const r = await get(url);
          into.push(r.ms);
          bytes = { ...bytes, [which]: r.bytes };
        }
        const c = process.cpuUsage(c0);
        cpu[which].push((c.user + c.system) / GETS);
      }
    }
    // The interval fields' share of the completed answer (see the header).
    const completed = await server.app.inject({
      method: 'GET',
      url: '/api/v1/bench/bench_compare_a',
      headers: { 'x-api-key': key },
    });
    const run = JSON.parse(completed.body) as {
      scorecard: Record<string, unknown> & {
        dimensions: Array<Record<string, unknown>>;
        aggregates: Array<Record<string, unknown>>;
      };
    };
    const { level: _l, resamples: _r, interval_method: _m, ...card } = run.scorecard;
    const noIntervals = ({ prompts: _p, ci95_low: _lo, ci95_high: _hi, ...rest }: Record<string, unknown>) =>
      rest;
    const withoutIntervals = JSON.stringify({
      ...run,
      scorecard: {
        ...card,
        dimensions: run.scorecard.dimensions.map(noIntervals),
        aggregates: run.scorecard.aggregates.map(noIntervals),
      },
    }).length;
    // The twin's answer is A's less the interval fields (not a recomputed card with them).
    const twinBody = (
      await server.app.inject({
        method: 'GET',
        url: '/api/v1/bench/bench_compare_bare',
        headers: { 'x-api-key': key },
      })
    ).body;
    if (twinBody.includes('"ci95_low"') || twinBody.includes('"prompts"'))
      throw new Error(`the twin run's answer still carries intervals (${twinBody.length} bytes)`);
    console.log(`load average after: ${load()}`);
    const p50c = percentile(compareTimes, 0.5);
    const p50a = percentile(withCard, 0.5);
    const p50b = percentile(without, 0.5);
    console.log('');
    console.log('| measure | p50 | p90 | body |');
    console.log('| --- | --- | --- | --- |');
    console.log(
      `| compare 2 × 1,000 clips (paired, 10,000 resamples, 16 dimensions), computed | ${p50c.toFixed(1)} ms | ${percentile(compareTimes, 0.9).toFixed(1)} ms | ${(compareBytes / 1024).toFixed(0)} kB |`,
    );
    console.log(
      `| the same again (both runs ended: the computed comparison is kept) | ${percentile(keptTimes, 0.5).toFixed(1)} ms | ${percentile(keptTimes, 0.9).toFixed(1)} ms | ${(compareBytes / 1024).toFixed(0)} kB |`,
    );
    console.log(
      `| GET /bench/{id}, completed, stored scorecard | ${(p50a * 1000).toFixed(0)} µs | ${(percentile(withCard, 0.9) * 1000).toFixed(0)} µs | ${(bytes.withCard / 1024).toFixed(1)} kB |`,
    );
    console.log(
      `| GET /bench/{id}, completed, the same scorecard without its interval fields | ${(percentile(bare, 0.5) * 1000).toFixed(0)} µs | ${(percentile(bare, 0.9) * 1000).toFixed(0)} µs | ${(bytes.bare / 1024).toFixed(1)} kB |`,
    );
    console.log(
      `| GET /bench/{id}, generating, no scorecard | ${(p50b * 1000).toFixed(0)} µs | ${(percentile(without, 0.9) * 1000).toFixed(0)} µs | ${(bytes.without / 1024).toFixed(1)} kB |`,
    );
    const cpuA = percentile(cpu.withCard, 0.5);
    const cpuB = percentile(cpu.without, 0.5);
    const p50bare = percentile(bare, 0.5);
    const cpuBare = percentile(cpu.bare, 0.5);
    console.log(
      `| GET /bench/{id}, process CPU per request: completed / without intervals / generating | ${cpuA.toFixed(0)} µs | ${cpuBare.toFixed(0)} µs | ${cpuB.toFixed(0)} µs |`,
    );
    console.log(
      `\nGET /bench/{id} with the intervals: ${((p50a / p50bare) * 100).toFixed(1)} % of the same run's read without them (p50), CPU ${((cpuA / cpuBare) * 100).toFixed(1)} % (target ≤ 110 %)`,
    );
    console.log(
      `GET /bench/{id} with the scorecard: ${((p50a / p50b) * 100).toFixed(1)} % of a live run's read without one (p50), CPU ${((cpuA / cpuB) * 100).toFixed(1)} % (the whole scorecard: an upper bound)`,
    );
    console.log(
      `the interval fields: ${completed.body.length - withoutIntervals} of the completed answer's ${completed.body.length} bytes (${(((completed.body.length - withoutIntervals) / completed.body.length) * 100).toFixed(1)} %)`,
    );
    console.log(`compare p50 ${p50c.toFixed(1)} ms (target ≤ 200 ms)`);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
