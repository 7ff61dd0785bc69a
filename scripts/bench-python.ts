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
 * Needs a build (`npm run build`) and python3. Prints a Markdown table for docs/benchmarks.md.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { startTestServer } from '../packages/sdk/test/support/server.js';

const GET_CALLS = 1000;
const UPLOAD_BYTES = 200 * 1024 * 1024;
const ROUNDS = 3;
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

async function main(): Promise<void> {
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
    const overhead = get.sdk_median_ms! / get.urllib_median_ms!;
    const share = median(pyRates) / median(tsRates);
    const rows = [
      '| Measure | Python SDK | Baseline | Ratio | Target |',
      '| --- | --- | --- | --- | --- |',
      `| GET /api/v1/score, median of ${GET_CALLS} (vs bare urllib) | ${get.sdk_median_ms!.toFixed(3)} ms | ${get.urllib_median_ms!.toFixed(3)} ms | ${overhead.toFixed(2)}× | ≤ 1.15× |`,
      `| 200 MiB upload, median of ${ROUNDS} (vs TypeScript SDK) | ${median(pyRates).toFixed(0)} MiB/s | ${median(tsRates).toFixed(0)} MiB/s | ${(share * 100).toFixed(0)} % | ≥ 80 % |`,
      `| Client RSS growth during a 200 MiB upload (max of ${ROUNDS}) | ${Math.max(...rss).toFixed(1)} MB | — | — | < 32 MB |`,
    ];
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
