/**
 * `npm run bench:api` — API performance, measured side by side in one run on this machine.
 *
 * 1. GET throughput: a bare Fastify hello-world route vs the authenticated
 *    `GET /api/v1/bench/{id}` of the real Vesta server (SQLite file, API-key auth, request log
 *    line, metrics, response schema). autocannon with 100 connections, `--duration` seconds per
 *    measurement, the two alternated `--rounds` times; each server runs in its own child process,
 *    autocannon in this one. Reported: requests/s, p50/p99 latency, and the server's CPU time per
 *    request (from `process.cpuUsage`, which other load on the machine does not inflate).
 *    Target: Vesta ≥ 50 % of hello-world requests/s.
 * 2. Upload streaming: a `PUT` of a `--mb` MB file to a Score upload URL vs a plain streamed
 *    file copy (read stream → write stream) of the same bytes, best of `--rounds`. The server
 *    child samples its RSS every 5 ms during the PUT.
 *    Targets: peak RSS growth < 64 MB; PUT throughput ≥ 60 % of the copy's.
 *
 * Usage: npm run bench:api -- [--duration 10] [--rounds 3] [--mb 200] [--json]
 *        [--log-level info]   (the server's VESTA_LOG_LEVEL; `silent` measures the cost of request logs)
 *        [--only get|put]     (one part only, e.g. while working on it; the verdict needs both)
 * Exit code 0 when every target is met, 1 otherwise.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { seedBenchRun } from './bench-support/bench-run.js';

// ---------------------------------------------------------------------------------------------
// Child processes: each sends `ready`, then answers `cpu` and `rss-start`/`rss-stop`, until `stop`.

type ChildMessage =
  | { type: 'ready'; port: number; apiKey?: string; benchId?: string }
  | { type: 'cpu'; micros: number; system: number }
  | { type: 'rss'; baseline: number; peak: number };

function serveControl(stop: () => Promise<void>): void {
  let baseline = 0;
  let peak = 0;
  let sampler: NodeJS.Timeout | null = null;
  process.on('message', (m: { type: string }) => {
    if (m.type === 'cpu') {
      const u = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: u.user + u.system, system: u.system } satisfies ChildMessage);
    } else if (m.type === 'rss-start') {
      global.gc?.();
      // memoryUsage.rss() reads only the resident set: sampling costs the server almost nothing
      // (process.memoryUsage() walks the heap spaces and cost ~20 ms of CPU per PUT).
      baseline = process.memoryUsage.rss();
      peak = baseline;
      sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
    } else if (m.type === 'rss-stop') {
      if (sampler) clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage.rss());
      process.send?.({ type: 'rss', baseline, peak } satisfies ChildMessage);
    } else if (m.type === 'stop') {
      void stop().then(() => process.exit(0));
    }
  });
}

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

async function childHello(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/hello', () => ({ hello: 'world' }));
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  serveControl(() => app.close());
  process.send?.({ type: 'ready', port } satisfies ChildMessage);
}

async function childVesta(dataDir: string, uploadMaxBytes: number, logLevel: string): Promise<void> {
  const { loadConfig } = await import('../packages/server/src/config.js');
  const { startServer } = await import('../packages/server/src/roles/all.js');
  const { createEngine } = await import('@vesta/engine');
  // Upload URLs are minted under the public URL, so the port is chosen before the start.
  const port = await freePort();
  const config = loadConfig(
    {
      // No model pulls: this machine reaches no model source, and the model-free methods answer.
      VESTA_OFFLINE: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      VESTA_PUBLIC_URL: `http://127.0.0.1:${port}`,
      VESTA_DATA_DIR: dataDir,
      VESTA_UPLOAD_MAX_BYTES: String(uploadMaxBytes),
      VESTA_LOG_LEVEL: logLevel,
    },
    dataDir,
  );
  // Production logging: one JSON line per request to stdout, which the parent points at /dev/null.
  // The API role's work only: no job is enqueued during the benchmark, so the worker stays off.
  const server = await startServer(config, { createEngine, worker: false });
  const { apiKey, benchId } = await seedBenchRun(server, 'bench-api');
  serveControl(() => server.close());
  process.send?.({ type: 'ready', port, apiKey, benchId } satisfies ChildMessage);
}

// ---------------------------------------------------------------------------------------------
// Parent

interface Args {
  duration: number;
  rounds: number;
  mb: number;
  json: boolean;
  logLevel: string;
  only: 'get' | 'put' | null;
}

function parseArgs(argv: string[]): Args {
  const out: Args = { duration: 10, rounds: 3, mb: 200, json: false, logLevel: 'info', only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${a} needs a positive number`);
      return v;
    };
    if (a === '--duration') out.duration = next();
    else if (a === '--rounds') out.rounds = Math.max(1, Math.round(next()));
    else if (a === '--mb') out.mb = next();
    else if (a === '--json') out.json = true;
    else if (a === '--log-level') out.logLevel = String(argv[++i]);
    else if (a === '--only') {
      const part = argv[++i];
      if (part !== 'get' && part !== 'put') throw new Error('--only takes get or put');
      out.only = part;
    } else throw new Error(`unknown argument ${a}`);
  }
  return out;
}

interface Child {
  process: ChildProcess;
  ready: Extract<ChildMessage, { type: 'ready' }>;
  ask<T extends ChildMessage['type']>(type: string, reply: T): Promise<Extract<ChildMessage, { type: T }>>;
}

/** Children still running: killed if the benchmark fails, so that it never hangs on them. */
const running = new Set<ChildProcess>();

function startChild(kind: 'hello' | 'vesta', extra: string[] = []): Promise<Child> {
  const child = fork(fileURLToPath(import.meta.url), ['--child', kind, ...extra], {
    execArgv: [...process.execArgv, '--expose-gc'],
    // The server's stdout (its request log) goes to /dev/null; errors still reach the terminal.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const ask = <T extends ChildMessage['type']>(
    type: string,
    reply: T,
  ): Promise<Extract<ChildMessage, { type: T }>> =>
    new Promise((resolve) => {
      const onMessage = (m: ChildMessage): void => {
        if (m.type === reply) {
          child.off('message', onMessage);
          resolve(m as Extract<ChildMessage, { type: T }>);
        }
      };
      child.on('message', onMessage);
      child.send({ type });
    });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
    child.once('message', (m: ChildMessage) => {
      if (m.type === 'ready') resolve({ process: child, ready: m, ask });
    });
  });
}

async function stopChild(child: Child): Promise<void> {
  child.process.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    child.process.once('exit', () => resolve());
    child.process.send({ type: 'stop' });
  });
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU time (user + system) per answered request, in microseconds. */
  cpuMicrosPerRequest: number;
  bad: number;
}

async function load(
  server: Child,
  url: string,
  duration: number,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  const before = (await server.ask('cpu', 'cpu')).micros;
  const r = await autocannon({ url, connections: 100, duration, headers });
  const after = (await server.ask('cpu', 'cpu')).micros;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuMicrosPerRequest: (after - before) / Math.max(1, r.requests.total),
    bad: r.errors + r.timeouts + r.non2xx,
  };
}

async function jsonCall(
  base: string,
  method: string,
  route: string,
  apiKey: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function putFile(url: string, file: string, contentType: string): Promise<void> {
  const size = statSync(file).size;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'PUT', headers: { 'Content-Type': contentType, 'Content-Length': size } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300)
            reject(new Error(`PUT → ${res.statusCode} ${Buffer.concat(chunks).toString()}`));
          else resolve();
        });
      },
    );
    req.on('error', reject);
    // 1 MiB file reads, as the SDK's upload does (fewer, larger socket writes from the client).
    createReadStream(file, { highWaterMark: 1024 * 1024 })
      .on('error', reject)
      .pipe(req);
  });
}

async function writeRandomFile(file: string, bytes: number): Promise<void> {
  const chunk = 1024 * 1024;
  const out = createWriteStream(file);
  for (let written = 0; written < bytes; written += chunk) {
    if (!out.write(randomBytes(Math.min(chunk, bytes - written)))) {
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
}

async function seconds(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const best = (rs: LoadResult[]): LoadResult => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface GetSummary {
  hello: LoadResult;
  vesta: LoadResult;
  healthz: LoadResult;
  ratio: number;
  cpuRatio: number;
  bad: number;
  rounds: { hello: LoadResult[]; vesta: LoadResult[]; healthz: LoadResult[] };
}

async function measureGet(
  args: Args,
  hello: Child,
  vesta: Child,
  log: (s: string) => void,
): Promise<GetSummary> {
  const vestaBase = `http://127.0.0.1:${vesta.ready.port}`;
  const apiKey = vesta.ready.apiKey ?? '';
  const benchUrl = `${vestaBase}/api/v1/bench/${vesta.ready.benchId ?? ''}`;
  const helloUrl = `http://127.0.0.1:${hello.ready.port}/hello`;

  // Warm both up (JIT, SQLite page cache), then alternate measurements.
  await load(hello, helloUrl, 2);
  await load(vesta, benchUrl, 2, { 'X-API-Key': apiKey });
  const helloRuns: LoadResult[] = [];
  const vestaRuns: LoadResult[] = [];
  // Reference: Vesta's /healthz runs the same hooks (request id, CORS, metrics, request log)
  // without authentication or a query, which splits the cost between framework and route.
  const healthRuns: LoadResult[] = [];
  for (let round = 0; round < args.rounds; round++) {
    helloRuns.push(await load(hello, helloUrl, args.duration));
    vestaRuns.push(await load(vesta, benchUrl, args.duration, { 'X-API-Key': apiKey }));
    healthRuns.push(await load(vesta, `${vestaBase}/healthz`, args.duration));
  }
  const h = best(helloRuns);
  const v = best(vestaRuns);
  const ratio = v.rps / h.rps;
  const cpuRatio =
    median(helloRuns.map((r) => r.cpuMicrosPerRequest)) / median(vestaRuns.map((r) => r.cpuMicrosPerRequest));
  const bad = vestaRuns.reduce((s, r) => s + r.bad, 0);
  log('');
  log(`GET throughput (autocannon, 100 connections, ${args.duration} s × ${args.rounds} rounds, best round)`);
  log(
    `  hello-world      ${fmt(h.rps)} req/s  p50 ${fmt(h.p50, 1)} ms  p99 ${fmt(h.p99, 1)} ms  server CPU ${fmt(median(helloRuns.map((r) => r.cpuMicrosPerRequest)))} µs/req`,
  );
  log(
    `  GET bench/{id}   ${fmt(v.rps)} req/s  p50 ${fmt(v.p50, 1)} ms  p99 ${fmt(v.p99, 1)} ms  server CPU ${fmt(median(vestaRuns.map((r) => r.cpuMicrosPerRequest)))} µs/req  (non-2xx/errors: ${bad})`,
  );
  const hz = best(healthRuns);
  log(
    `  /healthz (ref.)  ${fmt(hz.rps)} req/s  p50 ${fmt(hz.p50, 1)} ms  p99 ${fmt(hz.p99, 1)} ms  server CPU ${fmt(median(healthRuns.map((r) => r.cpuMicrosPerRequest)))} µs/req  (Vesta's hooks, no auth, no query)`,
  );
  log(
    `  per round        ${helloRuns.map((r, i) => `${fmt(r.rps)}/${fmt(vestaRuns[i]!.rps)}`).join(', ')} req/s`,
  );
  log(
    `  ratio            ${fmt(ratio * 100, 1)} % of hello-world req/s (target ≥ 50 %); ${fmt(cpuRatio * 100, 1)} % by server CPU per request`,
  );
  return {
    hello: h,
    vesta: v,
    healthz: hz,
    ratio,
    cpuRatio,
    bad,
    rounds: { hello: helloRuns, vesta: vestaRuns, healthz: healthRuns },
  };
}

interface PutSummary {
  megabytes: number;
  copySeconds: number;
  putSeconds: number;
  ratio: number;
  rssGrowthMb: number;
  serverCpuSeconds: number;
  serverSystemCpuSeconds: number;
  clientCpuSeconds: number;
}

async function measurePut(
  args: Args,
  vesta: Child,
  work: string,
  log: (s: string) => void,
): Promise<PutSummary> {
  const vestaBase = `http://127.0.0.1:${vesta.ready.port}`;
  const apiKey = vesta.ready.apiKey ?? '';
  const bytes = Math.round(args.mb * 1024 * 1024);
  const source = path.join(work, 'clip.bin');
  await writeRandomFile(source, bytes);
  const copies: number[] = [];
  const puts: number[] = [];
  const putServerCpu: number[] = [];
  const putServerSystem: number[] = [];
  const putClientCpu: number[] = [];
  let rssGrowth = 0;
  let rssBaseline = 0;
  for (let round = 0; round < args.rounds; round++) {
    // The comparator: a plain streamed copy of the same file with Node's default stream settings
    // (64 KiB reads, 16 KiB write-buffer mark), read stream → write stream as the server does.
    const target = path.join(work, 'copy.bin');
    copies.push(await seconds(() => pipeline(createReadStream(source), createWriteStream(target))));
    rmSync(target);
    const session = await jsonCall(vestaBase, 'GET', '/api/v1/score', apiKey);
    const upload = await jsonCall(
      vestaBase,
      'POST',
      `/api/v1/score/${String(session.runId)}/videos/upload-url`,
      apiKey,
      {
        fileName: `bench-${round}.mp4`,
        contentType: 'video/mp4',
        prompt: 'bench:api upload',
      },
    );
    vesta.process.send({ type: 'rss-start' });
    const cpuBefore = await vesta.ask('cpu', 'cpu');
    const selfBefore = process.cpuUsage();
    puts.push(await seconds(() => putFile(String(upload.uploadUrl), source, 'video/mp4')));
    const selfCpu = process.cpuUsage(selfBefore);
    const cpuAfter = await vesta.ask('cpu', 'cpu');
    putServerCpu.push((cpuAfter.micros - cpuBefore.micros) / 1e6);
    putServerSystem.push((cpuAfter.system - cpuBefore.system) / 1e6);
    putClientCpu.push((selfCpu.user + selfCpu.system) / 1e6);
    const rss = await vesta.ask('rss-stop', 'rss');
    rssGrowth = Math.max(rssGrowth, rss.peak - rss.baseline);
    rssBaseline = rss.baseline;
    // Like the copy's target, the uploaded object does not outlive its round: otherwise each
    // round's PUT meets the page-cache writeback of the previous rounds' clips and the copy does not.
    await jsonCall(vestaBase, 'POST', '/api/v1/score/reset', apiKey);
  }
  const copySeconds = Math.min(...copies);
  const putSeconds = Math.min(...puts);
  const growthMb = rssGrowth / (1024 * 1024);
  const mbps = (s: number): number => bytes / (1024 * 1024) / s;
  const ratio = copySeconds / putSeconds;
  log('');
  log(`PUT of a ${fmt(args.mb)} MB clip (best of ${args.rounds})`);
  log(`  plain stream copy   ${fmt(mbps(copySeconds))} MB/s (${fmt(copySeconds, 2)} s)`);
  log(`  PUT to upload URL   ${fmt(mbps(putSeconds))} MB/s (${fmt(putSeconds, 2)} s)`);
  log(
    `  per round           copy ${copies.map((c) => fmt(c, 2)).join(', ')} s; PUT ${puts.map((p) => fmt(p, 2)).join(', ')} s`,
  );
  log(
    `  CPU during the PUT  server ${fmt(median(putServerCpu), 2)} s (of it in the kernel ${fmt(median(putServerSystem), 2)} s), client ${fmt(median(putClientCpu), 2)} s (median)`,
  );
  log(`  ratio               ${fmt(ratio * 100, 1)} %  (target ≥ 60 %)`);
  log(
    `  server peak RSS     +${fmt(growthMb, 1)} MB over ${fmt(rssBaseline / (1024 * 1024), 1)} MB  (target < 64 MB)`,
  );
  return {
    megabytes: args.mb,
    copySeconds,
    putSeconds,
    ratio,
    rssGrowthMb: growthMb,
    serverCpuSeconds: median(putServerCpu),
    serverSystemCpuSeconds: median(putServerSystem),
    clientCpuSeconds: median(putClientCpu),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const work = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-api-'));
  const log = (s: string): void => {
    if (!args.json) console.log(s);
  };
  const machine = `${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
  try {
    log(`vesta bench:api — ${machine}, ${new Date().toISOString()}`);
    const vesta = await startChild('vesta', [
      path.join(work, 'data'),
      String(Math.ceil((args.mb + 16) * 1024 * 1024)),
      args.logLevel,
    ]);
    if (args.logLevel !== 'info')
      log(`EXPERIMENT: server log level ${args.logLevel} (production default: info).`);
    let get: GetSummary | null = null;
    if (args.only !== 'put') {
      const hello = await startChild('hello');
      get = await measureGet(args, hello, vesta, log);
      await stopChild(hello);
    }
    const upload = args.only === 'get' ? null : await measurePut(args, vesta, work, log);
    await stopChild(vesta);

    const pass = {
      get: get === null ? null : get.ratio >= 0.5 && get.bad === 0,
      uploadThroughput: upload === null ? null : upload.ratio >= 0.6,
      uploadMemory: upload === null ? null : upload.rssGrowthMb < 64,
    };
    const summary = { machine, logLevel: args.logLevel, get, upload, pass };
    const verdicts = Object.values(pass).filter((p) => p !== null);
    const allMet = verdicts.every((p) => p) && args.only === null;
    const word = (p: boolean | null): string => (p === null ? 'not measured' : p ? 'met' : 'missed');
    if (args.json) console.log(JSON.stringify(summary, null, 2));
    else
      log(
        `\n${allMet ? 'PASS' : 'FAIL'}: GET ${word(pass.get)}, upload throughput ${word(pass.uploadThroughput)}, upload memory ${word(pass.uploadMemory)}`,
      );
    process.exitCode = allMet ? 0 : 1;
  } finally {
    for (const child of running) child.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  const kind = process.argv[childAt + 1];
  const start =
    kind === 'hello'
      ? childHello()
      : childVesta(
          process.argv[childAt + 2] ?? '',
          Number(process.argv[childAt + 3]),
          process.argv[childAt + 4] ?? 'info',
        );
  start.catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
