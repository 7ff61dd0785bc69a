/**
 * `npm run bench:python`: the Python SDK's cost, measured side by side in one run against a real
 * Vesta server (random port, temporary data directory).
 *
 * 1. GET overhead: `client.score.get_or_create()` against a bare `urllib.request` GET of the same
 *    URL with the same headers and JSON parsing, interleaved call by call; compared by median.
 * 2. Upload throughput of a 200 MiB file: the Python SDK's `score.upload(path)` and the TypeScript
 *    SDK's `vesta.score.upload(path)`, each in its own process (the server runs in this one), each timed from the call to the start of confirm-upload,
 *    alternating; compared by median throughput. The Python client's RSS growth is its peak RSS
 *    (VmHWM) minus its RSS before the first upload.
 *
 * 3. Requests/s of `score.get_or_create()`: one sequential `Vesta` against `AsyncVesta` with 16
 *    calls in flight, in one Python process each round; on loopback, and through a TCP proxy (in a
 *    worker thread) that delays every chunk by 5 ms each way (a 10 ms round trip, as to a service on another
 *    machine). Median of the rounds' ratios.
 * 4. 16 concurrent 20 MiB uploads: one `AsyncVesta` (asyncio.gather) against the TypeScript SDK
 *    (Promise.all), each in its own process, alternating; aggregate MiB/s from the calls to the
 *    last confirm-upload's start; compared by median.
 *
 * Needs a build (`npm run build`) and python3. Prints a Markdown table for docs/benchmarks.md and
 * the load average before and after.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { randomFillSync } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { startTestServer } from '../packages/sdk/test/support/server.js';

const GET_CALLS = 1000;
const UPLOAD_BYTES = 200 * 1024 * 1024;
const ROUNDS = 3;
const RPS_CALLS = 800;
const CONCURRENT = 16;
const CONCURRENT_BYTES = 20 * 1024 * 1024;
const LINK_DELAY_MS = 5;
const script = path.resolve(import.meta.dirname, '../python/scripts/bench_client.py');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Runs the Python half without blocking this process's event loop (the server lives here). */
async function python(args: string[]): Promise<Record<string, number>> {
  const { stdout } = await promisify(execFile)('python3', [script, ...args], { encoding: 'utf8' });
  return JSON.parse(stdout) as Record<string, number>;
}

/**
 * The TypeScript SDK's upload, in its own Node process as the Python client is (the server runs in
 * this one): MiB/s from the call to the start of confirm-upload.
 */
async function typescriptUpload(baseUrl: string, key: string, file: string): Promise<number> {
  const code = `
    import { InvalidVideoError, Vesta } from '@vesta/sdk';
    import { statSync } from 'node:fs';
    const [baseUrl, key, file] = process.argv.slice(1);
    const vesta = new Vesta({ apiKey: key, baseUrl });
    await vesta.score.getOrCreate();
    let done = 0;
    const t0 = performance.now();
    await vesta.score
      .upload(file, { prompt: 'bench', onProgress: (e) => { if (e.phase === 'confirm' && !done) done = performance.now(); } })
      .catch((err) => { if (!(err instanceof InvalidVideoError)) throw err; });
    process.stdout.write(String(statSync(file).size / ((done - t0) / 1000) / (1024 * 1024)));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', code, baseUrl, key, file],
    { encoding: 'utf8', cwd: path.resolve(import.meta.dirname, '..') },
  );
  return Number(stdout);
}

/** The TypeScript SDK's `count` concurrent uploads of `file`: aggregate MiB/s to the last confirm. */
async function typescriptConcurrent(
  baseUrl: string,
  key: string,
  file: string,
  count: number,
): Promise<number> {
  const code = `
    import { InvalidVideoError, Vesta } from '@vesta/sdk';
    import { statSync } from 'node:fs';
    const [baseUrl, key, file, count] = process.argv.slice(1);
    const vesta = new Vesta({ apiKey: key, baseUrl });
    await vesta.score.getOrCreate();
    const done = [];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: Number(count) }, () => vesta.score
      .upload(file, { prompt: 'bench', onProgress: (e) => { if (e.phase === 'confirm') done.push(performance.now()); } })
      .catch((err) => { if (!(err instanceof InvalidVideoError)) throw err; })));
    process.stdout.write(String((statSync(file).size * Number(count)) / ((Math.max(...done) - t0) / 1000) / (1024 * 1024)));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', code, baseUrl, key, file, String(count)],
    { encoding: 'utf8', cwd: path.resolve(import.meta.dirname, '..') },
  );
  return Number(stdout);
}

/**
 * A TCP proxy that delays every chunk by `delayMs` in each direction (in order), as a link to a
 * service on another machine would; returns its base URL. It runs in a worker thread: a real
 * link's delay costs the server nothing, and a relay on the server's own event loop (its timers,
 * reads and writes) would take a share of the server's time that no deployment pays.
 */
async function delayProxy(
  target: string,
  delayMs: number,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const { hostname, port } = new URL(target);
  const code = `
    const { connect, createServer } = require('node:net');
    const { parentPort, workerData } = require('node:worker_threads');
    const { host, port, delayMs } = workerData;
    const server = createServer((client) => {
      const upstream = connect(port, host);
      const relay = (from, to) => {
        from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMs));
        from.on('end', () => setTimeout(() => to.end(), delayMs));
        from.on('error', () => to.destroy());
      };
      relay(client, upstream);
      relay(upstream, client);
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
    parentPort.on('message', () => server.close(() => process.exit(0)));
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: { host: hostname, port: Number(port), delayMs },
  });
  const proxyPort = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    baseUrl: `http://127.0.0.1:${proxyPort}`,
    close: async () => {
      worker.postMessage('close');
      await worker.terminate();
    },
  };
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

async function main(): Promise<void> {
  process.stderr.write(`load average before: ${loadAverage()} (${os.cpus().length} cores)\n`);
  const server = await startTestServer(
    { VESTA_UPLOAD_MAX_BYTES: String(512 * 1024 * 1024) },
    { worker: false },
  );
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-python-'));
  try {
    const key = await server.newKey();
    const get = await python([server.baseUrl, key, 'get', String(GET_CALLS)]);

    const file = path.join(tmp, 'big.mp4');
    const fd = openSync(file, 'w');
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < UPLOAD_BYTES / chunk.length; i++) writeSync(fd, randomFillSync(chunk));
    closeSync(fd);

    const tsRates: number[] = [];
    const pyRates: number[] = [];
    const rss: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      tsRates.push(await typescriptUpload(server.baseUrl, key, file));
      const py = await python([server.baseUrl, key, 'upload', file, '1']);
      pyRates.push(py.median_mib_s!);
      rss.push(py.rss_growth_mib!);
    }
    // 3. requests/s, loopback and over a 10 ms round trip.
    const link = await delayProxy(server.baseUrl, LINK_DELAY_MS);
    const rps: Record<'loopback' | 'link', { sync: number[]; async: number[] }> = {
      loopback: { sync: [], async: [] },
      link: { sync: [], async: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url] of [
        ['loopback', server.baseUrl],
        ['link', link.baseUrl],
      ] as const) {
        const calls = name === 'link' ? RPS_CALLS / 2 : RPS_CALLS;
        const r = await python([url, key, 'rps', String(calls)]);
        rps[name].sync.push(r.sync_rps!);
        rps[name].async.push(r.async_rps!);
      }
    }
    await link.close();

    // 4. 16 concurrent 20 MiB uploads, AsyncVesta against the TypeScript SDK.
    const small = path.join(tmp, 'twenty.mp4');
    const sfd = openSync(small, 'w');
    for (let i = 0; i < CONCURRENT_BYTES / chunk.length; i++) writeSync(sfd, randomFillSync(chunk));
    closeSync(sfd);
    const tsConcurrent: number[] = [];
    const pyConcurrent: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      tsConcurrent.push(await typescriptConcurrent(server.baseUrl, key, small, CONCURRENT));
      pyConcurrent.push((await python([server.baseUrl, key, 'aupload', small, String(CONCURRENT)])).mib_s!);
    }

    const overhead = get.sdk_median_ms! / get.urllib_median_ms!;
    const ratio = (r: { sync: number[]; async: number[] }): number =>
      median(r.async.map((a, i) => a / r.sync[i]!));
    const share = median(pyRates) / median(tsRates);
    const rows = [
      '| Measure | Python SDK | Baseline | Ratio | Target |',
      '| --- | --- | --- | --- | --- |',
      `| GET /api/v1/score, median of ${GET_CALLS} (vs bare urllib) | ${get.sdk_median_ms!.toFixed(3)} ms | ${get.urllib_median_ms!.toFixed(3)} ms | ${overhead.toFixed(2)}× | ≤ 1.15× |`,
      `| 200 MiB upload, median of ${ROUNDS} (vs TypeScript SDK) | ${median(pyRates).toFixed(0)} MiB/s | ${median(tsRates).toFixed(0)} MiB/s | ${(share * 100).toFixed(0)} % | ≥ 80 % |`,
      `| Client RSS growth during a 200 MiB upload (max of ${ROUNDS}) | ${Math.max(...rss).toFixed(1)} MB | — | — | < 32 MB |`,
      `| \`score.get_or_create()\` req/s, loopback: AsyncVesta ×${CONCURRENT} in flight vs one sequential Vesta (median of ${ROUNDS}) | ${median(rps.loopback.async).toFixed(0)} req/s | ${median(rps.loopback.sync).toFixed(0)} req/s | ${ratio(rps.loopback).toFixed(2)}× | ≥ 8× |`,
      `| the same over a ${2 * LINK_DELAY_MS} ms round trip (delay proxy) | ${median(rps.link.async).toFixed(0)} req/s | ${median(rps.link.sync).toFixed(0)} req/s | ${ratio(rps.link).toFixed(2)}× | ≥ 8× |`,
      `| ${CONCURRENT} concurrent 20 MiB uploads, aggregate (AsyncVesta vs TypeScript SDK, median of ${ROUNDS}) | ${median(pyConcurrent).toFixed(0)} MiB/s | ${median(tsConcurrent).toFixed(0)} MiB/s | ${((median(pyConcurrent) / median(tsConcurrent)) * 100).toFixed(0)} % | ≥ 80 % |`,
    ];
    process.stdout.write(`${rows.join('\n')}\n`);
    process.stderr.write(`load average after: ${loadAverage()}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
