/**
 * `npm run bench:runs`: orchestration overhead of a Bench run served in-process.
 *
 * A real Vesta server (all role, random port, temporary data directory) and
 * `vesta.bench.runWithPipeline` with the built-in DEMO generator (procedural clips, not a model):
 * a two-dimension run of 20 clips (subject_consistency and aesthetic_quality, whose prompt groups
 * differ: 10 prompts each, 1 sample per prompt), the generator called for 2 clips at once, after
 * one warm-up run repeated RUNS times (env BENCH_RUNS_REPEATS, default 3). The server runs with
 * its default configuration (job queue, lease, engine threads).
 *
 * Per run:
 * - total: from the `runWithPipeline` call (runner registration, run creation) until it resolves
 *   with the completed run;
 * - generating: the union of the intervals in which the generator callable ran;
 * - evaluating: the union of the intervals in which the server's engine evaluated a clip (the
 *   engine given to the server is wrapped to record them);
 * - overhead = total − |generating ∪ evaluating|: the time in which neither a clip was being made
 *   nor scored (claims, uploads, verification, queueing, polling). Generation and evaluation
 *   overlap (clip n is scored while clip n+1 is made), so subtracting both sums separately would
 *   understate the overhead; the union is the honest measure. Both sums are printed too.
 *
 * Needs a build (`npm run build`). Prints a Markdown table for docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine, generateDemoClip, type Engine } from '@vesta/engine';
import { loadConfig, startServer } from '@vesta/server';
import { Vesta } from '@vesta/sdk';
import { freePort } from '../packages/sdk/test/support/server.js';

const RUNS = Number(process.env.BENCH_RUNS_REPEATS ?? 3);
// Two dimensions with separate prompt groups, so the run makes 2 × 10 = 20 clips.
const DIMENSIONS = ['subject_consistency', 'aesthetic_quality'];
const CONCURRENCY = 2;
const PROMPTS_PER_DIMENSION = 10;

type Interval = [number, number];

/** Total length of the union of `intervals`. */
function unionLength(intervals: Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const [s, e] of sorted) {
    if (s > end) {
      if (end > start) total += end - start;
      start = s;
      end = e;
    } else end = Math.max(end, e);
  }
  if (end > start) total += end - start;
  return total;
}

const within = (xs: Interval[], from: number, to: number): Interval[] =>
  xs.filter(([s, e]) => s >= from && e <= to);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-runs-'));
  const clips = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-runs-clips-'));
  const evaluations: Interval[] = [];
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig(
    {
      // No model pulls: this machine reaches no model source, and the model-free methods answer.
      VESTA_OFFLINE: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      VESTA_DATA_DIR: dataDir,
      VESTA_PUBLIC_URL: baseUrl,
      VESTA_LOG_LEVEL: 'silent',
    },
    dataDir,
  );
  const timedEngine = (options: Parameters<typeof createEngine>[0]): Engine => {
    const engine = createEngine(options);
    return {
      probe: (p, s) => engine.probe(p, s),
      dimensions: () => engine.dimensions(),
      close: () => engine.close(),
      checkReady: () => engine.checkReady(),
      async evaluate(p, o) {
        const t0 = performance.now();
        try {
          return await engine.evaluate(p, o);
        } finally {
          evaluations.push([t0, performance.now()]);
        }
      },
    };
  };
  const server = await startServer(config, {
    createEngine: timedEngine,
    worker: true,
    queue: { pollMs: 50 },
  });
  try {
    const { key } = await server.deps.services.apiKeys.createKey('bench-runs');
    const vesta = new Vesta({ apiKey: key, baseUrl });
    const rows: string[] = [];
    const percents: number[] = [];
    for (let r = 0; r <= RUNS; r++) {
      const generations: Interval[] = [];
      const t0 = performance.now();
      const run = await vesta.bench.runWithPipeline(
        async ({ prompt, seed, auxiliary, signal, task }) => {
          const g0 = performance.now();
          try {
            const out = path.join(clips, `${task.id}.mp4`);
            await generateDemoClip({ prompt, seed, auxiliary, signal, outPath: out });
            return out;
          } finally {
            generations.push([g0, performance.now()]);
          }
        },
        {
          dimensions: DIMENSIONS,
          runName: `bench:runs ${r}`,
          modelId: 'vesta-demo',
          samplesPerPrompt: 1,
          promptsPerDimension: PROMPTS_PER_DIMENSION,
          concurrency: CONCURRENCY,
        },
      );
      const t1 = performance.now();
      if (run.status !== 'completed') throw new Error(`run ${run.id} ended ${run.status}`);
      const total = t1 - t0;
      const gen = unionLength(generations);
      const evals = within(evaluations, t0, t1);
      const ev = unionLength(evals);
      const busy = unionLength([...generations, ...evals]);
      const overhead = total - busy;
      const pct = (100 * overhead) / total;
      const label = r === 0 ? 'warm-up' : String(r);
      if (r > 0) percents.push(pct);
      rows.push(
        `| ${label} | ${run.progress.tasks_total} | ${(total / 1000).toFixed(2)} | ${(gen / 1000).toFixed(2)} | ${(ev / 1000).toFixed(2)} | ${(busy / 1000).toFixed(2)} | ${(overhead / 1000).toFixed(2)} | ${pct.toFixed(1)} % |`,
      );
      process.stderr.write(`run ${label}: ${rows.at(-1)}\n`);
    }
    percents.sort((a, b) => a - b);
    console.log(
      `Node ${process.version}, ${os.cpus().length} CPU(s), load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log('');
    console.log(
      '| run | clips | total s | generating s | evaluating s | gen ∪ eval s | overhead s | overhead |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const row of rows) console.log(row);
    console.log('');
    console.log(
      `median overhead over ${RUNS} measured runs: ${percents[Math.floor(percents.length / 2)]!.toFixed(1)} %`,
    );
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(clips, { recursive: true, force: true });
  }
}

await main();
