/**
 * `npm run bench:sdk`: the SDK's cost over raw fetch, measured side by side in one run against a
 * real Vesta server (random port, temporary data directory).
 *
 * 1. GET overhead: `vesta.score.getOrCreate()` and `vesta.dimensions.list()` against raw fetch of
 *    the same URL with the same headers (X-API-Key, Accept, X-Service-Source) and JSON parsing,
 *    interleaved call by call; compared by
 *    median and by 10 %-trimmed mean (robust to load spikes on a shared machine).
 * 2. Upload throughput of a 200 MB file: `vesta.score.upload(path)` (timed from the call to the
 *    start of confirm-upload, so it includes its upload-url request and the session lookup) against
 *    a raw streaming `fetch` PUT of the same file to an upload URL minted the same way; one
 *    warm-up each, then alternating pairs, compared by median throughput.
 *
 * Needs a build (`npm run build`). Prints a Markdown table for docs/benchmarks.md.
 */
import { createReadStream, mkdtempSync, openSync, closeSync, writeSync, rmSync, statSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { InvalidVideoError, Vesta } from '@vesta/sdk';
import { startTestServer } from '../packages/sdk/test/support/server.js';

const GET_CALLS = 2000;
const UPLOAD_BYTES = 200 * 1024 * 1024;
const UPLOAD_REPEATS = 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
/** Mean of the middle 80 %: load spikes on a shared machine would otherwise dominate the mean. */
function trimmedMean(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const cut = Math.floor(s.length * 0.1);
  const mid = s.slice(cut, s.length - cut);
  return mid.reduce((a, b) => a + b, 0) / mid.length;
}

async function time(call: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await call();
  return performance.now() - t0;
}

async function timeCalls(n: number, call: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i++) await call();
}

async function main(): Promise<void> {
  const server = await startTestServer(
    { VESTA_UPLOAD_MAX_BYTES: String(512 * 1024 * 1024) },
    { worker: false },
  );
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-sdk-'));
  try {
    const key = await server.newKey();
    const vesta = new Vesta({ apiKey: key, baseUrl: server.baseUrl });
    // The very request the SDK sends (same headers), so that only client-side work differs.
    const headers = { 'X-API-Key': key, Accept: 'application/json', 'X-Service-Source': 'sdk' };
    const rows: string[] = [];

    for (const [label, url, sdkCall] of [
      ['GET /api/v1/score', `${server.baseUrl}/api/v1/score`, () => vesta.score.getOrCreate()],
      ['GET /api/v1/dimensions', `${server.baseUrl}/api/v1/dimensions`, () => vesta.dimensions.list()],
    ] as const) {
      const raw = async (): Promise<unknown> => {
        const res = await fetch(url, { headers });
        if (!res.ok) throw new Error(`raw GET ${res.status}`);
        return res.json();
      };
      await timeCalls(100, raw);
      await timeCalls(100, sdkCall);
      const rawMs: number[] = [];
      const sdkMs: number[] = [];
      for (let i = 0; i < GET_CALLS; i++) {
        // Call by call, alternating which goes first, so that both see the same machine load.
        if (i % 2 === 0) {
          rawMs.push(await time(raw));
          sdkMs.push(await time(sdkCall));
        } else {
          sdkMs.push(await time(sdkCall));
          rawMs.push(await time(raw));
        }
      }
      const overhead = (median(sdkMs) / median(rawMs) - 1) * 100;
      const overheadTrimmed = (trimmedMean(sdkMs) / trimmedMean(rawMs) - 1) * 100;
      const pct = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`;
      rows.push(
        `| ${label}: SDK vs raw fetch (${rawMs.length} calls each, interleaved) | raw median ${median(rawMs).toFixed(3)} ms, trimmed mean ${trimmedMean(rawMs).toFixed(3)} ms · SDK median ${median(sdkMs).toFixed(3)} ms, trimmed mean ${trimmedMean(sdkMs).toFixed(3)} ms | SDK overhead ${pct(overhead)} (median), ${pct(overheadTrimmed)} (trimmed mean); target ≤ 10 % |`,
      );
    }

    const file = path.join(tmp, 'big.mp4');
    const fd = openSync(file, 'w');
    const chunk = Buffer.alloc(4 * 1024 * 1024);
    for (let written = 0; written < UPLOAD_BYTES; written += chunk.length)
      writeSync(fd, randomFillSync(chunk));
    closeSync(fd);
    const size = statSync(file).size;
    const prompt = 'benchmark upload';

    const rawPut = async (): Promise<number> => {
      const session = await vesta.score.getOrCreate();
      const ticket = await vesta.score.createUploadUrl(session.runId, {
        fileName: 'big.mp4',
        contentType: 'video/mp4',
        prompt,
      });
      const t0 = performance.now();
      const body = Readable.toWeb(
        createReadStream(file, { highWaterMark: 1 << 20 }),
      ) as ReadableStream<Uint8Array>;
      const init: RequestInit & { duplex: 'half' } = {
        method: 'PUT',
        headers: { ...ticket.headers, 'Content-Length': String(size) },
        body,
        duplex: 'half',
      };
      const res = await fetch(ticket.uploadUrl, init);
      await res.text();
      if (!res.ok) throw new Error(`raw PUT ${res.status}`);
      return performance.now() - t0;
    };
    let peakRssGrowth = 0;
    const sdkUpload = async (): Promise<number> => {
      // Sample the resident set while the upload runs: a client that buffered the file whole would
      // grow by its size (the in-process server streams to disk, so it adds little).
      const rss0 = process.memoryUsage().rss;
      const sampler = setInterval(() => {
        peakRssGrowth = Math.max(peakRssGrowth, process.memoryUsage().rss - rss0);
      }, 20);
      const t0 = performance.now();
      let t1 = 0;
      const err = await vesta.score
        .upload(file, {
          prompt,
          onProgress: (e) => (e.phase === 'confirm' ? (t1 = performance.now()) : undefined),
        })
        .catch((e: unknown) => e);
      // Random bytes are not a video: confirm-upload refuses them after the bytes arrived.
      clearInterval(sampler);
      if (!(err instanceof InvalidVideoError) || t1 === 0)
        throw new Error(`unexpected upload outcome: ${String(err)}`);
      return t1 - t0;
    };
    const rawTimes: number[] = [];
    const sdkTimes: number[] = [];
    await rawPut();
    await sdkUpload();
    for (let i = 0; i < UPLOAD_REPEATS; i++) {
      if (i % 2 === 0) {
        rawTimes.push(await rawPut());
        sdkTimes.push(await sdkUpload());
      } else {
        sdkTimes.push(await sdkUpload());
        rawTimes.push(await rawPut());
      }
    }
    const mbps = (ms: number): number => size / 1e6 / (ms / 1000);
    const rawBest = mbps(Math.min(...rawTimes));
    const sdkBest = mbps(Math.min(...sdkTimes));
    const rawMed = mbps(median(rawTimes));
    const sdkMed = mbps(median(sdkTimes));
    rows.push(
      `| Upload of a ${(size / 1024 / 1024).toFixed(0)} MiB file (${UPLOAD_REPEATS} each) | raw streaming PUT median ${rawMed.toFixed(0)} MB/s (best ${rawBest.toFixed(0)}) · SDK \`score.upload\` median ${sdkMed.toFixed(0)} MB/s (best ${sdkBest.toFixed(0)}) | SDK at ${((sdkMed / rawMed) * 100).toFixed(0)} % of raw (target ≥ 80 %) |`,
    );
    rows.push(
      `| Memory during the SDK uploads | peak resident-set growth ${(peakRssGrowth / 1024 / 1024).toFixed(0)} MiB (client and in-process server together) | file of ${(size / 1024 / 1024).toFixed(0)} MiB streamed, not buffered |`,
    );

    console.log(
      `\nbench:sdk — ${new Date().toISOString()} — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}\n`,
    );
    console.log('| Measurement | Figures | Result |');
    console.log('|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
