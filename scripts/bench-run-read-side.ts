/**
 * The run page's reads side by side for two builds in one process (`npx tsx
 * scripts/bench-run-read-side.ts` with TREES=<tree>,<tree>: two checkouts, e.g. a worktree of main
 * and this one, both built with `npx tsc -b packages/engine packages/server`).
 *
 * Each tree's own server and engine (its `dist`) start in this process with an SQLite data
 * directory of their own and the same seeded runs as `bench:compare`: a completed run of 1,000
 * clips (its scorecard stored), one in `generating`, and copies of the completed run for a runs
 * page of LIST_RUNS (20). The answers are checked byte-identical across the trees (timestamps
 * masked); then ROUNDS rounds (6) alternate the trees, each round N requests (1,000) of
 * `GET /bench/{id}` completed and generating and N/5 of `GET /bench?limit=20`: p50 wall per
 * request and process CPU per request (`process.cpuUsage` around each batch, median of rounds).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { suiteClips } from './bench-support/suite-clips.js';

if (!process.env.TREES) {
  console.error('usage: TREES=<tree>,<tree> npx tsx scripts/bench-run-read-side.ts (each tree built)');
  process.exit(2);
}
const TREES = process.env.TREES.split(',');
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const N = Number(process.env.N ?? 1000);
const LIST_RUNS = Number(process.env.LIST_RUNS ?? 20);

async function open(tree: string) {
  const server_ = await import(`${tree}/packages/server/dist/index.js`);
  const engine_ = await import(`${tree}/packages/engine/dist/index.js`);
  const seed = await import(`${tree}/packages/server/test/helpers/bench-seed.ts`);
  const { CLIP_GROUPS } = engine_;
  const clips = (shift: number) => suiteClips(CLIP_GROUPS, shift);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-run-read-side-'));
  const config = server_.loadConfig(
    { VESTA_OFFLINE: '1', VESTA_DATA_DIR: dataDir, VESTA_LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' },
    dataDir,
  );
  const server = await server_.startServer(config, {
    createEngine: engine_.createEngine,
    listen: false,
    worker: false,
  });
  const { userId, key } = await server.deps.services.apiKeys.createKey('side');
  await server.deps.bench.models.upsert({ id: 'bench-model', name: 'Bench model', description: 'benchmark' });
  await seed.seedRun(server, { id: 'run_a', userId, model: 'bench-model', clips: clips(0) });
  await seed.seedRun(server, {
    id: 'run_live',
    userId,
    model: 'bench-model',
    status: 'generating',
    clips: clips(0),
  });
  const get = async (url: string) => {
    const res = await server.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return res.body as string;
  };
  await get('/api/v1/bench/run_a'); // stores the scorecard
  // Copies of the completed run (its stored scorecard included) for a full runs page.
  const row = await server.deps.db
    .selectFrom('bench_runs')
    .selectAll()
    .where('id', '=', 'run_a')
    .executeTakeFirstOrThrow();
  for (let i = 0; i < LIST_RUNS - 2; i++)
    await server.deps.db
      .insertInto('bench_runs')
      .values({ ...row, id: `run_copy_${i}`, created_at: row.created_at - 1 - i })
      .execute();
  return { tree, server, get, dataDir };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const servers = [];
for (const t of TREES) servers.push(await open(t));
const urls = {
  completed: '/api/v1/bench/run_a',
  generating: '/api/v1/bench/run_live',
  list: '/api/v1/bench?limit=20',
} as const;
// Answers must be byte-identical across builds.
for (const [name, url] of Object.entries(urls)) {
  const bodies = (await Promise.all(servers.map((s) => s.get(url)))).map((b) =>
    b.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T'),
  );
  console.log(
    `${name}: ${bodies[0]!.length} bytes, identical across builds: ${bodies.every((b) => b === bodies[0])}`,
  );
}
const res: Record<string, Record<string, { wall: number[]; cpu: number[] }>> = {};
console.log(
  `load before: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
for (let round = 0; round < ROUNDS; round++)
  for (const s of round % 2 === 0 ? servers : [...servers].reverse())
    for (const [name, url] of Object.entries(urls)) {
      const n = name === 'list' ? Math.ceil(N / 5) : N;
      for (let i = 0; i < 50; i++) await s.get(url);
      const wall: number[] = [];
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await s.get(url);
        wall.push((performance.now() - t) * 1000);
      }
      const c = process.cpuUsage(c0);
      const r = ((res[s.tree] ??= {})[name] ??= { wall: [], cpu: [] });
      r.wall.push(...wall);
      r.cpu.push((c.user + c.system) / n);
    }
console.log(
  `load after: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log('| build | request | p50 wall | CPU / request (median of rounds) |');
console.log('| --- | --- | --- | --- |');
for (const s of servers)
  for (const name of Object.keys(urls)) {
    const r = res[s.tree]![name]!;
    console.log(
      `| ${path.basename(s.tree)} | ${name} | ${pct(r.wall, 0.5).toFixed(0)} µs | ${pct(r.cpu, 0.5).toFixed(0)} µs |`,
    );
  }
for (const s of servers) {
  const r = res[s.tree]!;
  console.log(
    `${path.basename(s.tree)}: completed ÷ generating p50 ${((100 * pct(r.completed!.wall, 0.5)) / pct(r.generating!.wall, 0.5)).toFixed(1)} %, CPU ${((100 * pct(r.completed!.cpu, 0.5)) / pct(r.generating!.cpu, 0.5)).toFixed(1)} %`,
  );
}
for (const s of servers) await s.server.close();
for (const s of servers) rmSync(s.dataDir, { recursive: true, force: true });
