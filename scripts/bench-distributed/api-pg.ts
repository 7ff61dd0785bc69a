/**
 * Section `api-pg` of `npm run bench:distributed`: `GET /api/v1/bench/{id}` requests per second
 * on PostgreSQL against the embedded SQLite file (target: PostgreSQL within 2× of SQLite), side by
 * side. Each server is a `vesta serve` process from the built CLI — role `all` on a fresh SQLite
 * data directory, role `api` on a fresh PostgreSQL schema (BENCH_PG_URL) — holding one Bench run;
 * autocannon (this process) reads it with BENCH_API_CONNECTIONS connections (default 50) for
 * BENCH_API_SECONDS (default 8) per measurement, the two alternated BENCH_API_ROUNDS times
 * (default 3); best round of each. Also reported: the server's CPU time per request (from /proc),
 * which other load on the machine does not inflate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { call, createKey, serve } from './procs.js';
import type { VestaProcess } from './procs.js';
import { freshSchema } from './pg-schema.js';
import type { BenchSection } from './section.js';

const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 3);

interface Target {
  name: string;
  proc: VestaProcess & { base: string };
  key: string;
  runId: string;
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  errors: number;
}

async function prepare(name: string, role: 'all' | 'api', env: Record<string, string>): Promise<Target> {
  const key = await createKey(env, 'bench-api-pg');
  const proc = await serve(role, env);
  await call(proc.base, key, 'POST', '/api/v1/runners', { name: 'bench', models: ['bench-api-pg'] });
  const run = (
    await call(proc.base, key, 'POST', '/api/v1/bench', {
      name: 'bench-api-pg',
      dimensions: ['subject_consistency', 'dynamic_degree'],
      model_id: 'bench-api-pg',
      samples_per_prompt: 1,
      prompts_per_dimension: 2,
    })
  ).json();
  return { name, proc, key, runId: run.id as string };
}

async function measure(t: Target): Promise<Measure> {
  const cpu0 = t.proc.cpuSeconds();
  const r = await autocannon({
    url: `${t.proc.base}/api/v1/bench/${t.runId}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'x-api-key': t.key },
  });
  const cpu = t.proc.cpuSeconds() - cpu0;
  const requests = r.requests.total;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuMsPerRequest: requests > 0 ? (cpu * 1000) / requests : NaN,
    errors: r.errors + r.non2xx,
  };
}

export const apiPg: BenchSection = {
  name: 'api-pg',
  title: `GET /api/v1/bench/{id}: PostgreSQL vs SQLite (${CONNECTIONS} connections, ${SECONDS} s × ${ROUNDS} rounds)`,
  async run() {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-api-pg-'));
    const pgDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-api-pg-'));
    const schema = await freshSchema('bench_api');
    const targets: Target[] = [];
    try {
      targets.push(
        await prepare('SQLite (role all)', 'all', { VESTA_DATA_DIR: dataDir, VESTA_LOG_LEVEL: 'info' }),
      );
      targets.push(
        await prepare('PostgreSQL (role api)', 'api', {
          VESTA_DATA_DIR: pgDir,
          VESTA_DATABASE_URL: schema.url,
          VESTA_LOG_LEVEL: 'info',
        }),
      );
      const results = new Map<string, Measure[]>(targets.map((t) => [t.name, []]));
      for (let r = 0; r < ROUNDS; r++)
        for (const t of targets) {
          const m = await measure(t);
          console.error(`  ${t.name}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99} ms`);
          results.get(t.name)!.push(m);
        }
      const best = (name: string): Measure => results.get(name)!.reduce((a, b) => (b.rps > a.rps ? b : a));
      const [sqlite, postgres] = targets.map((t) => best(t.name)) as [Measure, Measure];
      const lines = [
        '| Database | req/s (best round) | p50 | p99 | server CPU per request | errors |',
        '|---|---|---|---|---|---|',
        ...targets.map((t) => {
          const m = best(t.name);
          return `| ${t.name} | ${m.rps.toFixed(0)} | ${m.p50} ms | ${m.p99} ms | ${m.cpuMsPerRequest.toFixed(2)} ms | ${m.errors} |`;
        }),
        '',
        `SQLite / PostgreSQL: **${(sqlite.rps / postgres.rps).toFixed(2)}×** in requests per second (target: PostgreSQL within 2×); every round: ${targets
          .map(
            (t) =>
              `${t.name} ${results
                .get(t.name)!
                .map((m) => m.rps.toFixed(0))
                .join(', ')}`,
          )
          .join('; ')} req/s.`,
      ];
      return lines.join('\n');
    } finally {
      await Promise.all(targets.map((t) => t.proc.stop()));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(pgDir, { recursive: true, force: true });
      await schema.drop();
    }
  },
};
