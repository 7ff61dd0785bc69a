/**
 * Section `api-pg` of `npm run bench:distributed`: `GET /api/v1/bench/{id}` requests per second
 * on PostgreSQL against the embedded SQLite file (target: PostgreSQL within 2× of SQLite), side by
 * side. Each server is a `vesta serve` process from the built CLI — role `all` on a fresh SQLite
 * data directory, role `api` on a fresh PostgreSQL schema (BENCH_PG_URL) — holding one Bench run;
 * autocannon (this process) reads it with BENCH_API_CONNECTIONS connections (default 50) for
 * BENCH_API_SECONDS (default 8) per measurement, the servers alternated BENCH_API_ROUNDS times
 * (default 3); best round of each, and the medians. Also reported, from /proc: the Vesta process's
 * CPU time per request, and on PostgreSQL that of the server backends serving its pool (found by
 * the pool's application_name). Other load inflates these less than it does requests per second,
 * but not nothing: a process that serves fewer requests per wake-up spends more per request.
 *
 * BENCH_API_BASELINE_BIN=/path/to/other/packages/cli/dist/bin.js adds a third server: the same
 * PostgreSQL role `api` from another build (e.g. the commit before a change), in the same rounds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { BIN, call, createKey, serve } from './procs.js';
import type { VestaProcess } from './procs.js';
import { freshSchema } from './pg-schema.js';
import type { BenchSchema } from './pg-schema.js';
import { BENCH_PG_URL } from './section.js';
import type { BenchSection } from './section.js';

const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 3);
const BASELINE_BIN = process.env.BENCH_API_BASELINE_BIN ?? '';

interface Target {
  name: string;
  proc: VestaProcess & { base: string };
  key: string;
  runId: string;
  /** The application_name of its PostgreSQL connections (none on SQLite). */
  pgApplication: string | null;
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  /** PostgreSQL backends' CPU per request (NaN on SQLite). */
  pgCpuMsPerRequest: number;
  errors: number;
}

/** CPU seconds (user + system) of a process, from /proc; 0 when it is gone or unreadable. */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds so far of each backend whose application_name is `app` (same machine only). */
async function backendCpu(app: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where application_name = $1',
      [app],
    );
    return new Map(rows.map((r) => [r.pid, cpuOf(r.pid)]));
  } finally {
    await client.end();
  }
}

async function prepare(
  name: string,
  role: 'all' | 'api',
  env: Record<string, string>,
  pgApplication: string | null,
  bin: string = BIN,
): Promise<Target> {
  const key = await createKey(env, 'bench-api-pg', bin);
  const proc = await serve(role, env, bin);
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
  return { name, proc, key, runId: run.id as string, pgApplication };
}

async function measure(t: Target): Promise<Measure> {
  const pg0 = t.pgApplication ? await backendCpu(t.pgApplication) : null;
  const cpu0 = t.proc.cpuSeconds();
  const r = await autocannon({
    url: `${t.proc.base}/api/v1/bench/${t.runId}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'x-api-key': t.key },
  });
  const cpu = t.proc.cpuSeconds() - cpu0;
  let pgCpu = NaN;
  if (pg0 && t.pgApplication) {
    const pg1 = await backendCpu(t.pgApplication);
    pgCpu = [...pg1].reduce((sum, [pid, s]) => sum + s - (pg0.get(pid) ?? 0), 0);
  }
  const requests = r.requests.total;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuMsPerRequest: requests > 0 ? (cpu * 1000) / requests : NaN,
    pgCpuMsPerRequest: requests > 0 ? (pgCpu * 1000) / requests : NaN,
    errors: r.errors + r.non2xx,
  };
}

/** A fresh schema's URL with its connections named `app` (to find their backends). */
function named(schema: BenchSchema, app: string): string {
  const u = new URL(schema.url);
  u.searchParams.set('application_name', app);
  return u.toString();
}

const msOrDash = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(3)} ms` : '—');

export const apiPg: BenchSection = {
  name: 'api-pg',
  title: `GET /api/v1/bench/{id}: PostgreSQL vs SQLite (${CONNECTIONS} connections, ${SECONDS} s × ${ROUNDS} rounds)`,
  async run() {
    const dirs = [0, 1, 2].map(() => mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-api-pg-')));
    const schemas: BenchSchema[] = [];
    const targets: Target[] = [];
    try {
      targets.push(
        await prepare(
          'SQLite (role all)',
          'all',
          { VESTA_DATA_DIR: dirs[0]!, VESTA_LOG_LEVEL: 'info' },
          null,
        ),
      );
      const pgTarget = async (name: string, app: string, dir: string, bin?: string): Promise<Target> => {
        const schema = await freshSchema('bench_api');
        schemas.push(schema);
        return prepare(
          name,
          'api',
          { VESTA_DATA_DIR: dir, VESTA_DATABASE_URL: named(schema, app), VESTA_LOG_LEVEL: 'info' },
          app,
          bin,
        );
      };
      targets.push(await pgTarget('PostgreSQL (role api)', `bench-api-pg-${process.pid}`, dirs[1]!));
      if (BASELINE_BIN)
        targets.push(
          await pgTarget(
            'PostgreSQL (role api), baseline build',
            `bench-api-pg-base-${process.pid}`,
            dirs[2]!,
            path.resolve(BASELINE_BIN),
          ),
        );
      const results = new Map<string, Measure[]>(targets.map((t) => [t.name, []]));
      for (let r = 0; r < ROUNDS; r++)
        for (const t of targets) {
          const m = await measure(t);
          console.error(
            `  ${t.name}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99} ms, CPU/request ${msOrDash(m.cpuMsPerRequest)} + PostgreSQL ${msOrDash(m.pgCpuMsPerRequest)}`,
          );
          results.get(t.name)!.push(m);
        }
      const best = (name: string): Measure => results.get(name)!.reduce((a, b) => (b.rps > a.rps ? b : a));
      const median = (name: string, of: (m: Measure) => number): number => {
        const xs = results
          .get(name)!
          .map(of)
          .sort((a, b) => a - b);
        return xs[Math.floor(xs.length / 2)]!;
      };
      const [sqlite, postgres] = targets.map((t) => best(t.name)) as [Measure, Measure];
      const lines = [
        '| Server | req/s (best round) | p50 | p99 | Vesta CPU per request | PostgreSQL backends CPU per request | errors |',
        '|---|---|---|---|---|---|---|',
        ...targets.map((t) => {
          const m = best(t.name);
          return `| ${t.name} | ${m.rps.toFixed(0)} | ${m.p50} ms | ${m.p99} ms | ${msOrDash(m.cpuMsPerRequest)} | ${msOrDash(m.pgCpuMsPerRequest)} | ${m.errors} |`;
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
      const [sqliteName, pgName] = [targets[0]!.name, targets[1]!.name];
      lines.push(
        '',
        `Medians of the rounds: SQLite ${median(sqliteName, (m) => m.rps).toFixed(0)}, PostgreSQL ${median(pgName, (m) => m.rps).toFixed(0)} req/s ` +
          `(**${(median(sqliteName, (m) => m.rps) / median(pgName, (m) => m.rps)).toFixed(2)}×**); Vesta CPU per request ` +
          `${msOrDash(median(sqliteName, (m) => m.cpuMsPerRequest))} vs ${msOrDash(median(pgName, (m) => m.cpuMsPerRequest))}.`,
      );
      if (BASELINE_BIN) {
        const baseName = targets[2]!.name;
        const base = best(baseName);
        lines.push(
          '',
          `This build / baseline build on PostgreSQL: ${(postgres.rps / base.rps).toFixed(2)}× the requests per second ` +
            `(medians ${(median(pgName, (m) => m.rps) / median(baseName, (m) => m.rps)).toFixed(2)}×); ` +
            `Vesta CPU per request ${msOrDash(median(pgName, (m) => m.cpuMsPerRequest))} vs ${msOrDash(median(baseName, (m) => m.cpuMsPerRequest))}, ` +
            `PostgreSQL backends ${msOrDash(median(pgName, (m) => m.pgCpuMsPerRequest))} vs ${msOrDash(median(baseName, (m) => m.pgCpuMsPerRequest))} (medians).`,
        );
      }
      return lines.join('\n');
    } finally {
      await Promise.all(targets.map((t) => t.proc.stop()));
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      for (const s of schemas) await s.drop();
    }
  },
};
