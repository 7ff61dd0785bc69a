/**
 * `npm run bench:dashboard` — the web dashboard's costs, measured side by side in one run.
 *
 * 1. First-load JavaScript: every script `packages/dashboard/dist/index.html` loads (entry and
 *    modulepreloads), gzipped at level 6 as a reverse proxy would. Target ≤ 250 kB (250 000 bytes).
 * 2. The runs list with 1,000 runs in Chromium (Debian's /usr/bin/chromium via playwright-core):
 *    a real server with 1,000 Bench runs of the signed-in user, created through the API. Measured:
 *    a full load of `/dashboard/bench` (navigation start → the first page of runs in the table and
 *    the total "1000 runs" shown, read as `performance.now()` in the page), with a warm cache as a
 *    returning user has it, and with a cold one; and an in-app visit (Runners → Bench link, data
 *    fetched and rendered). Median of `--loads` each. Target: warm load and visit < 300 ms.
 * 3. The API's hot path: `GET /api/v1/bench/{id}` with an `X-API-Key`, from a server that serves
 *    the dashboard (every route module) vs one without it (the dashboard's files and its account
 *    routes left out), each in its own child process, alternated `--rounds` times over two pairs of
 *    processes started in opposite orders, autocannon with
 *    `--connections` for `--duration` s. Reported: requests/s, p50/p99 and the server's CPU time per
 *    request. Target: with the dashboard ≥ 90 % of the requests/s without it (the two differ only by
 *    routes a key-authenticated request never reaches; the margin is this shared machine's noise).
 *
 * Usage: npm run bench:dashboard -- [--runs 1000] [--loads 7] [--duration 5] [--rounds 3]
 *        [--connections 50] [--json] [--aa]
 * `--aa` starts both servers with the dashboard: the hot-path ratio when nothing differs (the
 * machine's own noise and any bias of the harness).
 * Exit code 0 when every target is met, 1 otherwise.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { chromium } from 'playwright-core';
import { seedBenchRun } from './bench-support/bench-run.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'packages/dashboard/dist');
const CHROMIUM = '/usr/bin/chromium';
const JS_TARGET_BYTES = 250_000;
const RENDER_TARGET_MS = 300;
const HOT_PATH_TARGET = 0.9;

// ---------------------------------------------------------------------------------------------
// Child: one Vesta server, with or without the dashboard, answering `cpu` and `stop`.

type ChildMessage =
  { type: 'ready'; port: number; apiKey: string; benchId: string } | { type: 'cpu'; micros: number };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const a = probe.address();
      probe.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function childVesta(dataDir: string, withDashboard: boolean): Promise<void> {
  const { loadConfig } = await import('../packages/server/src/config.js');
  const { startServer } = await import('../packages/server/src/roles/all.js');
  const { ROUTE_MODULES } = await import('../packages/server/src/http/routes/index.js');
  const { dashboardRoutes } = await import('../packages/server/src/http/dashboard/dashboard.route.js');
  const { accountRoutes } = await import('../packages/server/src/http/routes/accounts/index.js');
  const { createEngine } = await import('@vesta/engine');
  const port = await freePort();
  const config = loadConfig(
    {
      VESTA_OFFLINE: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      VESTA_PUBLIC_URL: `http://127.0.0.1:${port}`,
      VESTA_DATA_DIR: dataDir,
      VESTA_LOG_LEVEL: 'info',
    },
    dataDir,
  );
  const routes = withDashboard
    ? ROUTE_MODULES
    : ROUTE_MODULES.filter((r) => r !== dashboardRoutes && r !== accountRoutes);
  const server = await startServer(config, { createEngine, worker: false, routes });
  const { apiKey, benchId } = await seedBenchRun(server, 'bench-dashboard');
  process.on('message', (m: { type: string }) => {
    if (m.type === 'cpu') {
      const u = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: u.user + u.system } satisfies ChildMessage);
    } else if (m.type === 'stop') void server.close().then(() => process.exit(0));
  });
  process.send?.({ type: 'ready', port, apiKey, benchId } satisfies ChildMessage);
}

// ---------------------------------------------------------------------------------------------
// Parent

interface Args {
  runs: number;
  loads: number;
  duration: number;
  rounds: number;
  connections: number;
  json: boolean;
  /** Both servers with the dashboard: what the hot-path ratio reads when nothing differs. */
  aa: boolean;
}

function parseArgs(argv: string[]): Args {
  const out: Args = { runs: 1000, loads: 7, duration: 5, rounds: 3, connections: 50, json: false, aa: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${a} needs a positive number`);
      return Math.round(v);
    };
    if (a === '--runs') out.runs = next();
    else if (a === '--loads') out.loads = next();
    else if (a === '--duration') out.duration = next();
    else if (a === '--rounds') out.rounds = next();
    else if (a === '--connections') out.connections = next();
    else if (a === '--json') out.json = true;
    else if (a === '--aa') out.aa = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return out;
}

interface Child {
  process: ChildProcess;
  ready: Extract<ChildMessage, { type: 'ready' }>;
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

function startChild(withDashboard: boolean, dataDir: string): Promise<Child> {
  const child = fork(
    fileURLToPath(import.meta.url),
    ['--child', withDashboard ? 'with' : 'without', dataDir],
    {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  const cpu = (): Promise<number> =>
    new Promise((resolve) => {
      const on = (m: ChildMessage): void => {
        if (m.type !== 'cpu') return;
        child.off('message', on);
        resolve(m.micros);
      };
      child.on('message', on);
      child.send({ type: 'cpu' });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.send({ type: 'stop' });
    });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    child.once('message', (m: ChildMessage) => {
      if (m.type === 'ready') resolve({ process: child, ready: m, cpu, stop });
    });
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** 1. The scripts index.html loads on first visit, gzipped. */
function firstLoadJs(): { files: Array<{ file: string; raw: number; gzip: number }>; gzip: number } {
  const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const srcs = [
    ...html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  const files = [...new Set(srcs)].map((src) => {
    const bytes = readFileSync(path.join(DIST, src.replace(/^\/dashboard\//, '')));
    return { file: src, raw: bytes.length, gzip: gzipSync(bytes, { level: 6 }).length };
  });
  return { files, gzip: files.reduce((a, f) => a + f.gzip, 0) };
}

interface RenderResult {
  warmLoadMs: number[];
  coldLoadMs: number[];
  visitMs: number[];
}

/** 2. The runs list with `runs` runs in Chromium. */
async function runsList(args: Args): Promise<RenderResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-dashboard-'));
  const server = await startChild(true, dataDir);
  const base = `http://127.0.0.1:${server.ready.port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/setup`);
    await page.getByLabel('Email').fill('bench@example.com');
    await page.getByLabel(/Password/).fill('a long benchmark password');
    await page.getByRole('button', { name: 'Create admin account' }).click();
    await page.getByRole('heading', { name: 'Bench runs' }).waitFor();
    // The runs are the signed-in user's: made with a key of theirs, through the API.
    const key = await page.evaluate(async () => {
      const { csrfToken } = (await (await fetch('/api/v1/auth/session')).json()) as { csrfToken: string };
      const res = await fetch('/api/v1/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify({ name: 'bench' }),
      });
      return ((await res.json()) as { key: string }).key;
    });
    let made = 0;
    const makeOne = async (): Promise<void> => {
      while (made < args.runs) {
        const n = ++made;
        const res = await fetch(`${base}/api/v1/bench`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            name: `run ${n}`,
            model_id: 'vesta-demo',
            dimensions: ['subject_consistency'],
            samples_per_prompt: 1,
            prompts_per_dimension: 1,
          }),
        });
        if (res.status !== 201) throw new Error(`create run → ${res.status} ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 4 }, makeOne));

    const rendered = `() => document.querySelectorAll('[data-testid="runs-table"] tbody tr').length > 0 && document.body.textContent.includes('${args.runs} runs')`;
    const loadOnce = async (p: typeof page): Promise<number> => {
      await p.goto(`${base}/dashboard/bench`, { waitUntil: 'commit' });
      await p.waitForFunction(rendered, undefined, { polling: 'raf', timeout: 30_000 });
      return p.evaluate(() => performance.now());
    };
    const out: RenderResult = { warmLoadMs: [], coldLoadMs: [], visitMs: [] };
    await loadOnce(page); // warms the cache
    for (let i = 0; i < args.loads; i++) out.warmLoadMs.push(await loadOnce(page));
    // Cold: a fresh context (no HTTP cache), signed in with the same session cookie.
    const cookies = await context.cookies();
    for (let i = 0; i < args.loads; i++) {
      const cold = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await cold.addCookies(cookies);
      const p = await cold.newPage();
      out.coldLoadMs.push(await loadOnce(p));
      await cold.close();
    }
    // An in-app visit: from Runners, follow the Bench link (fetch + render, no page load).
    for (let i = 0; i < args.loads; i++) {
      await page.goto(`${base}/dashboard/runners`);
      await page.getByRole('heading', { name: 'Runners', level: 1 }).waitFor();
      // A page load of Runners leaves no list data in memory: the visit fetches it.
      // A string, not a function: tsx would wrap a function's inner helpers in its own `__name`.
      const ms = await page.evaluate<number>(`(async () => {
        const done = () => document.querySelectorAll('[data-testid="runs-table"] tbody tr').length > 0 &&
          (document.body.textContent || '').includes('${args.runs} runs');
        const link = [...document.querySelectorAll('nav a')].find((a) => a.textContent === 'Bench');
        if (!link) throw new Error('no Bench link');
        const t0 = performance.now();
        link.click();
        await new Promise((resolve) => {
          const tick = () => (done() ? resolve() : requestAnimationFrame(tick));
          tick();
        });
        return performance.now() - t0;
      })()`);
      out.visitMs.push(ms);
    }
    return out;
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface HotResult {
  rps: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number;
  bad: number;
}

/**
 * 3. `GET /api/v1/bench/{id}` with a key, with and without the dashboard. The rounds run on two
 * pairs of child processes started in opposite orders (with → without, then without → with): an
 * A/A run (`--aa`, both with the dashboard) on one pair read the first-started child 8–11 % slower
 * in medians on a quiet machine, a bias of the pair, not of the dashboard.
 */
async function hotPath(args: Args): Promise<{ with: HotResult[]; without: HotResult[] }> {
  const measure = async (c: Child): Promise<HotResult> => {
    const url = `http://127.0.0.1:${c.ready.port}/api/v1/bench/${c.ready.benchId}`;
    const headers = { 'X-API-Key': c.ready.apiKey };
    await autocannon({ url, connections: 10, duration: 1, headers }); // warm-up
    const before = await c.cpu();
    const r = await autocannon({ url, connections: args.connections, duration: args.duration, headers });
    const after = await c.cpu();
    return {
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      cpuMicrosPerRequest: (after - before) / Math.max(1, r.requests.total),
      bad: r.errors + r.timeouts + r.non2xx,
    };
  };
  const out = { with: [] as HotResult[], without: [] as HotResult[] };
  const half = Math.ceil(args.rounds / 2);
  for (const [pair, rounds] of [half, args.rounds - half].entries()) {
    if (rounds === 0) continue;
    const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-dashboard-hot-')));
    let withDash: Child | undefined;
    let without: Child | undefined;
    try {
      if (pair === 0) {
        withDash = await startChild(true, dirs[0]!);
        without = await startChild(args.aa, dirs[1]!);
      } else {
        without = await startChild(args.aa, dirs[1]!);
        withDash = await startChild(true, dirs[0]!);
      }
      // The dashboard really is served by one and absent from the other.
      const page = (c: Child) => fetch(`http://127.0.0.1:${c.ready.port}/dashboard/`).then((r) => r.status);
      if ((await page(withDash)) !== 200 || (await page(without)) !== (args.aa ? 200 : 404))
        throw new Error('the two servers do not differ by the dashboard');
      for (let i = 0; i < rounds; i++) {
        // Alternate which goes first, so drift on the machine falls on both.
        if (i % 2 === pair % 2) {
          out.with.push(await measure(withDash));
          out.without.push(await measure(without));
        } else {
          out.without.push(await measure(without));
          out.with.push(await measure(withDash));
        }
      }
    } finally {
      await withDash?.stop();
      await without?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(path.join(DIST, 'index.html')))
    throw new Error('packages/dashboard/dist is missing: run `npm run build` first');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install -y chromium)`);

  const js = firstLoadJs();
  const render = await runsList(args);
  const hot = await hotPath(args);

  const med = (rs: HotResult[], k: keyof HotResult) => median(rs.map((r) => r[k]));
  const ratio = med(hot.with, 'rps') / med(hot.without, 'rps');
  const verdict = {
    firstLoadJs: js.gzip <= JS_TARGET_BYTES,
    runsListWarmLoad: median(render.warmLoadMs) < RENDER_TARGET_MS,
    runsListVisit: median(render.visitMs) < RENDER_TARGET_MS,
    hotPath:
      ratio >= HOT_PATH_TARGET && hot.with.every((r) => r.bad === 0) && hot.without.every((r) => r.bad === 0),
  };
  const ok = Object.values(verdict).every(Boolean);
  if (args.json) {
    console.log(JSON.stringify({ args, js, render, hot, ratio, verdict, ok }, null, 2));
  } else {
    const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
    const ms = (xs: number[]) =>
      `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
    console.log(`\nbench:dashboard (${os.cpus().length} CPUs, node ${process.version})\n`);
    console.log(`1. First-load JavaScript, gzipped: ${kB(js.gzip)} (target ≤ ${kB(JS_TARGET_BYTES)})`);
    for (const f of js.files) console.log(`   ${f.file}: ${kB(f.raw)} raw, ${kB(f.gzip)} gzip`);
    console.log(
      `\n2. Runs list with ${args.runs} runs in Chromium (${args.loads} each; target < ${RENDER_TARGET_MS} ms)`,
    );
    console.log(`   full load, warm cache: ${ms(render.warmLoadMs)}`);
    console.log(`   full load, cold cache: ${ms(render.coldLoadMs)}`);
    console.log(`   in-app visit (Runners → Bench): ${ms(render.visitMs)}`);
    console.log(
      `\n3. GET /api/v1/bench/{id} with X-API-Key, ${args.connections} connections, ${args.rounds}×${args.duration} s each (medians)`,
    );
    for (const [name, rs] of [
      ['with the dashboard   ', hot.with],
      ['without the dashboard', hot.without],
    ] as const)
      console.log(
        `   ${name}: ${med(rs, 'rps').toFixed(0)} req/s, p50 ${med(rs, 'p50')} ms, p99 ${med(rs, 'p99')} ms, ${med(rs, 'cpuMicrosPerRequest').toFixed(0)} µs CPU/request, ${rs.reduce((a, r) => a + r.bad, 0)} bad`,
      );
    console.log(`   ratio with/without: ${(ratio * 100).toFixed(1)} % (target ≥ ${HOT_PATH_TARGET * 100} %)`);
    console.log(`\n${ok ? 'PASS' : 'FAIL'}: ${JSON.stringify(verdict)}`);
  }
  process.exitCode = ok ? 0 : 1;
}

if (process.argv[2] === '--child') {
  void childVesta(process.argv[4]!, process.argv[3] === 'with').catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    for (const c of running) c.kill('SIGKILL');
    console.error(e);
    process.exit(1);
  });
}
