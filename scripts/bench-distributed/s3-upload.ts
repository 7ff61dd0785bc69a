/**
 * Section `s3-upload` of `npm run bench:distributed`: a 200 MB clip uploaded straight to an
 * S3-compatible store through the presigned URL the API hands out (target: ≥ 60 % of the
 * throughput of a plain file copy), side by side with that copy, in one run.
 *
 * - The store: s3rver (the tests' S3-compatible server, from npm) in its own OS process, its
 *   objects on this machine's disk. It is the only S3 server this machine can run; its own cost
 *   (an MD5 of every byte for the ETag, a metadata file) is part of the figure.
 * - The API: `vesta serve --role all` from the built CLI with VESTA_BLOB_STORE=s3; the upload URL
 *   is minted by POST /api/v1/score/{id}/videos/upload-url with sizeBytes, then the bytes go with
 *   one streaming PUT from this process (Node's fetch, a file stream body: what the TypeScript SDK
 *   does in Node), never through the API.
 * - The copy: the same file read and written through user space with 1 MiB buffers on the same
 *   disk (`stream.pipeline`), plus `fs.copyFile` (which may copy inside the kernel) for reference.
 *
 * The two are alternated BENCH_S3_ROUNDS times (default 3); the median of each is reported.
 * BENCH_S3_UPLOAD_MB sets the size (default 200).
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { call, createKey, serve } from './procs.js';
import type { BenchSection } from './section.js';

const MB = Number(process.env.BENCH_S3_UPLOAD_MB ?? 200);
const ROUNDS = Number(process.env.BENCH_S3_ROUNDS ?? 3);
const BUCKET = 'vesta-bench';

/** s3rver in a child process; resolves with its endpoint. */
async function startS3rver(dir: string): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const script = `
    import S3rver from 's3rver';
    const server = new S3rver({ port: 0, address: '127.0.0.1', directory: ${JSON.stringify(dir)}, silent: true,
      configureBuckets: [{ name: ${JSON.stringify(BUCKET)} }] });
    const { port } = await server.run();
    process.stdout.write(String(port) + '\\n');
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.resolve(import.meta.dirname, '../../packages/server'),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim()));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code})`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** An HTTP endpoint in a child process that reads every byte of a PUT and throws it away. */
async function startSink(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const script = `
    import http from 'node:http';
    const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end()); });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the sink exited (${code})`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

export const s3Upload: BenchSection = {
  name: 's3-upload',
  title: `Upload of a ${MB} MB clip straight to S3 through the presigned URL vs a plain file copy`,
  async run() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-s3-'));
    const s3 = await startS3rver(path.join(dir, 's3'));
    const sink = await startSink();
    let vesta: Awaited<ReturnType<typeof serve>> | null = null;
    try {
      const file = path.join(dir, 'clip.mp4');
      const out = createWriteStream(file);
      for (let i = 0; i < MB; i++)
        if (!out.write(randomBytes(1024 * 1024))) await new Promise((r) => out.once('drain', r));
      await new Promise<void>((resolve, reject) =>
        out.end((e?: Error | null) => (e ? reject(e) : resolve())),
      );
      const size = statSync(file).size;

      const env = {
        VESTA_DATA_DIR: path.join(dir, 'data'),
        VESTA_BLOB_STORE: 's3',
        VESTA_S3_ENDPOINT: s3.endpoint,
        VESTA_S3_BUCKET: BUCKET,
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
      };
      const key = await createKey(env, 'bench-s3-upload');
      vesta = await serve('all', env);
      const { runId } = (await call(vesta.base, key, 'GET', '/api/v1/score')).json() as { runId: string };

      const put = async (url: string, contentType: string): Promise<void> => {
        const res = await fetch(url, {
          method: 'PUT',
          headers: { 'Content-Type': contentType, 'Content-Length': String(size) },
          body: Readable.toWeb(createReadStream(file, { highWaterMark: 1024 * 1024 })) as ReadableStream,
          duplex: 'half',
        });
        if (res.status !== 200) throw new Error(`PUT answered ${res.status}: ${await res.text()}`);
      };
      const upload = async (): Promise<void> => {
        const ticket = (
          await call(vesta!.base, key, 'POST', `/api/v1/score/${runId}/videos/upload-url`, {
            fileName: 'clip.mp4',
            contentType: 'video/mp4',
            prompt: 'bench',
            sizeBytes: size,
          })
        ).json() as { uploadUrl: string; headers: Record<string, string> };
        if (!ticket.uploadUrl.startsWith(s3.endpoint)) throw new Error('the upload URL is not the bucket’s');
        await put(ticket.uploadUrl, ticket.headers['Content-Type'] ?? 'video/mp4');
      };
      const discard = (): Promise<void> => put(`${sink.endpoint}/clip`, 'video/mp4');
      const copy = async (): Promise<void> => {
        await pipeline(
          createReadStream(file, { highWaterMark: 1024 * 1024 }),
          createWriteStream(path.join(dir, 'copy.mp4'), { highWaterMark: 1024 * 1024 }),
        );
      };
      const copyFile = async (): Promise<void> => {
        await fsp.copyFile(file, path.join(dir, 'copyfile.mp4'));
      };

      const up: number[] = [];
      const cp: number[] = [];
      const cf: number[] = [];
      const dc: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        cp.push(await timed(copy));
        up.push(await timed(upload));
        dc.push(await timed(discard));
        cf.push(await timed(copyFile));
        await fsp.rm(path.join(dir, 'copy.mp4'), { force: true });
        await fsp.rm(path.join(dir, 'copyfile.mp4'), { force: true });
      }
      const mbps = (s: number): string => `${(size / 1024 / 1024 / s).toFixed(0)} MB/s`;
      const upS = median(up);
      const cpS = median(cp);
      const cfS = median(cf);
      const dcS = median(dc);
      return [
        `${MB} MB of random bytes, median of ${ROUNDS} alternated rounds; s3rver in its own process on this disk.`,
        '',
        '| transfer | time | throughput | vs the copy |',
        '| --- | --: | --: | --: |',
        `| file copy through user space (1 MiB buffers) | ${cpS.toFixed(2)} s | ${mbps(cpS)} | 100 % |`,
        `| presigned PUT straight to S3 (URL from upload-url) | ${upS.toFixed(2)} s | ${mbps(upS)} | ${((cpS / upS) * 100).toFixed(0)} % |`,
        `| the same PUT to an endpoint that discards the bytes (no store) | ${dcS.toFixed(2)} s | ${mbps(dcS)} | ${((cpS / dcS) * 100).toFixed(0)} % |`,
        `| fs.copyFile (for reference; may copy inside the kernel) | ${cfS.toFixed(2)} s | ${mbps(cfS)} | ${((cpS / cfS) * 100).toFixed(0)} % |`,
        '',
        `Target: the presigned upload at ≥ 60 % of the copy's throughput — ${cpS / upS >= 0.6 ? 'met' : 'NOT met'} (${((cpS / upS) * 100).toFixed(0)} %).`,
      ].join('\n');
    } finally {
      await vesta?.stop();
      await s3.stop();
      await sink.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
