/**
 * Section `s3-upload` of `npm run bench:distributed`: a 200 MB clip uploaded straight to an
 * S3-compatible store through the presigned URL the API hands out (target: ≥ 60 % of the
 * throughput of a plain file copy), side by side with that copy, in one run.
 *
 * - The store: s3rver (the tests' S3-compatible server, from npm) in its own OS process, its
 *   objects on this machine's disk, its CPU time per upload read from /proc (its own cost: an MD5
 *   of every byte for the ETag, the object written in socket-sized pieces through Koa). Or any
 *   S3-compatible endpoint: BENCH_S3_ENDPOINT (its bucket BENCH_S3_BUCKET, default vesta-bench,
 *   must exist; BENCH_S3_REGION, default us-east-1; credentials from AWS_ACCESS_KEY_ID and
 *   AWS_SECRET_ACCESS_KEY), the objects under a prefix of this run's, deleted afterwards.
 * - The API: `vesta serve --role all` from the built CLI with VESTA_BLOB_STORE=s3; the upload URL
 *   is minted by POST /api/v1/score/{id}/videos/upload-url with sizeBytes, then the bytes go with
 *   one streaming PUT from this process, never through the API: the TypeScript SDK's own Node PUT
 *   (packages/sdk/dist: node:http, the file read by the SDK's preparePath), and the SDK's fetch
 *   PUT (what it used before, and still uses with a custom `fetch`) beside it.
 * - The transfer alone: the same two PUTs to an HTTP endpoint (another process) that discards
 *   the bytes.
 * - The copy: the same file read and written through user space with 1 MiB buffers on the same
 *   disk (`stream.pipeline`), plus `fs.copyFile` (which may copy inside the kernel) for reference.
 *
 * Everything alternates BENCH_S3_ROUNDS times (default 5); medians are reported, with this
 * process's CPU time per PUT (the client's cost). BENCH_S3_UPLOAD_MB sets the size (default 200).
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { call, createKey, serve } from './procs.js';
import type { BenchSection } from './section.js';

const MB = Number(process.env.BENCH_S3_UPLOAD_MB ?? 200);
const ROUNDS = Number(process.env.BENCH_S3_ROUNDS ?? 5);
const EXTERNAL = process.env.BENCH_S3_ENDPOINT ?? '';
export const BUCKET = process.env.BENCH_S3_BUCKET ?? 'vesta-bench';
const REGION = process.env.BENCH_S3_REGION ?? 'us-east-1';

export interface Store {
  endpoint: string;
  /** The store's process, when this run started it (s3rver). */
  pid: number | null;
  /** Environment for `vesta serve` (credentials included). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** A child process that prints its port on its first line and exits when its stdin ends. */
async function portChild(
  script: string,
  cwd?: string,
): Promise<{ endpoint: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the child process exited (${code})`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** s3rver in a child process, with the bucket BENCH_S3_BUCKET (default vesta-bench). */
export async function startS3rver(dir: string): Promise<Store> {
  const child = await portChild(
    `
    import S3rver from 's3rver';
    const server = new S3rver({ port: 0, address: '127.0.0.1', directory: ${JSON.stringify(dir)}, silent: true,
      configureBuckets: [{ name: ${JSON.stringify(BUCKET)} }] });
    const { port } = await server.run();
    process.stdout.write(String(port) + '\\n');
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));`,
    path.resolve(import.meta.dirname, '../../packages/server'),
  );
  return {
    endpoint: child.endpoint,
    pid: child.pid,
    env: { VESTA_S3_ENDPOINT: child.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
    stop: () => child.stop(),
  };
}

/** BENCH_S3_ENDPOINT: objects under a prefix of this run's, deleted at the end. */
function externalStore(): Store {
  const prefix = `bench-s3-upload-${randomUUID().slice(0, 8)}/`;
  const credentials = {
    accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
  };
  return {
    endpoint: EXTERNAL,
    pid: null,
    env: {
      VESTA_S3_ENDPOINT: EXTERNAL,
      VESTA_S3_REGION: REGION,
      VESTA_S3_KEY_PREFIX: prefix,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    async stop() {
      const { DeleteObjectsCommand, ListObjectsV2Command, S3Client } = await import('@aws-sdk/client-s3');
      const client = new S3Client({ endpoint: EXTERNAL, region: REGION, forcePathStyle: true, credentials });
      try {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
        const keys = (listed.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        if (keys.length > 0)
          await client.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys } }));
      } finally {
        client.destroy();
      }
    },
  };
}

/** An HTTP endpoint in a child process that reads every byte of a PUT and throws it away. */
function startSink(): ReturnType<typeof portChild> {
  return portChild(`
    import http from 'node:http';
    const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end()); });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));`);
}

const SDK_DIST = path.resolve(import.meta.dirname, '../../packages/sdk/dist');

/**
 * The client: a Node process of its own that loads nothing but the built SDK (as a user's script
 * or the CLI would), so that the harness's heap (tsx, the other sections' libraries) does not
 * weigh on its garbage collector. It runs one step per line of JSON on stdin and answers with the
 * wall time and its own CPU time: a file copy, or one PUT as the SDK sends it (its file source,
 * its headers, its progress callback) through the SDK's node:http PUT or its fetch PUT.
 */
const CLIENT = `
import { createReadStream, createWriteStream } from 'node:fs';
import fsp from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
const sdk = (p) => import(new URL(p, ${JSON.stringify(pathToFileURL(SDK_DIST + '/').href)}).href);
const { globalFetch } = await sdk('core/http.js');
const { preparePath } = await sdk('node/platform.js');
const { putWithNodeHttp } = await sdk('node/put-http.js');
const { putWithFetch } = await sdk('uploads/put.js');
const steps = {
  copy: (c) => pipeline(createReadStream(c.file, { highWaterMark: 1 << 20 }), createWriteStream(c.to, { highWaterMark: 1 << 20 })),
  copyFile: (c) => fsp.copyFile(c.file, c.to),
  put: async (c) => (c.with === 'http' ? putWithNodeHttp : putWithFetch)({
    fetch: globalFetch, url: c.url, method: 'PUT', headers: c.headers, upload: await preparePath(c.file, {}),
    onBytes: () => undefined, signal: undefined, stallTimeoutMs: 60000, setContentLength: true }),
};
process.stdout.write('ready\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const c = JSON.parse(line);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    await steps[c.op](c);
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(JSON.stringify({ seconds: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 }) + '\\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e && e.stack || e) }) + '\\n');
  }
}`;

interface Client {
  run(step: Record<string, unknown>): Promise<{ seconds: number; cpu: number }>;
  stop(): Promise<void>;
}

async function startClient(): Promise<Client> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--input-type=module', '-e', CLIENT],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error(`the client process ended: ${stderr}`);
    return line.value;
  };
  if ((await next()) !== 'ready') throw new Error(`the client process did not start: ${stderr}`);
  return {
    async run(step) {
      child.stdin.write(JSON.stringify(step) + '\n');
      const answer = JSON.parse(await next()) as { seconds: number; cpu: number; error?: string };
      if (answer.error) throw new Error(`client step ${String(step.op)} failed: ${answer.error}`);
      return answer;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** CPU seconds (user + system) of a process, from /proc. */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const s3Upload: BenchSection = {
  name: 's3-upload',
  title: `Upload of a ${MB} MB clip straight to S3 through the presigned URL vs a plain file copy`,
  async run() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-s3-'));
    const store = EXTERNAL ? externalStore() : await startS3rver(path.join(dir, 's3'));
    const sink = await startSink();
    let vesta: Awaited<ReturnType<typeof serve>> | null = null;
    let client: Client | null = null;
    try {
      const file = path.join(dir, 'clip.mp4');
      const out = createWriteStream(file);
      for (let i = 0; i < MB; i++)
        if (!out.write(randomBytes(1024 * 1024)))
          await new Promise<void>((r) => out.once('drain', () => r()));
      await new Promise<void>((resolve, reject) =>
        out.end((e?: Error | null) => (e ? reject(e) : resolve())),
      );
      const size = statSync(file).size;

      const env = {
        VESTA_DATA_DIR: path.join(dir, 'data'),
        VESTA_BLOB_STORE: 's3',
        VESTA_S3_BUCKET: BUCKET,
        ...store.env,
      };
      const key = await createKey(env, 'bench-s3-upload');
      vesta = await serve('all', env);
      const { runId } = (await call(vesta.base, key, 'GET', '/api/v1/score')).json() as { runId: string };
      client = await startClient();
      const c = client;

      const toStore = (via: 'http' | 'fetch') => async (): Promise<{ seconds: number; cpu: number }> => {
        const ticket = (
          await call(vesta!.base, key, 'POST', `/api/v1/score/${runId}/videos/upload-url`, {
            fileName: 'clip.mp4',
            contentType: 'video/mp4',
            prompt: 'bench',
            sizeBytes: size,
          })
        ).json() as { uploadUrl: string; headers: Record<string, string> };
        if (!ticket.uploadUrl.startsWith(store.endpoint))
          throw new Error('the upload URL is not the bucket’s');
        const { 'Content-Length': _length, ...headers } = ticket.headers;
        return c.run({
          op: 'put',
          with: via,
          file,
          url: ticket.uploadUrl,
          headers: { ...headers, 'Content-Type': headers['Content-Type'] ?? 'video/mp4' },
        });
      };
      const toSink = (via: 'http' | 'fetch') => () =>
        c.run({
          op: 'put',
          with: via,
          file,
          url: `${sink.endpoint}/clip`,
          headers: { 'Content-Type': 'video/mp4' },
        });
      const copy = () => c.run({ op: 'copy', file, to: path.join(dir, 'copy.mp4') });
      const copyFile = () => c.run({ op: 'copyFile', file, to: path.join(dir, 'copyfile.mp4') });

      const steps: Array<{
        id: string;
        label: string;
        fn: () => Promise<{ seconds: number; cpu: number }>;
        storeCpu?: boolean;
      }> = [
        { id: 'copy', label: 'file copy through user space (1 MiB buffers)', fn: copy },
        {
          id: 'sdk-store',
          label: 'SDK PUT (node:http) straight to the store, URL from upload-url',
          fn: toStore('http'),
          storeCpu: true,
        },
        {
          id: 'fetch-store',
          label: 'the SDK’s fetch PUT (before; still with a custom fetch), same URL kind',
          fn: toStore('fetch'),
          storeCpu: true,
        },
        {
          id: 'sdk-sink',
          label: 'SDK PUT (node:http) to an endpoint that discards the bytes',
          fn: toSink('http'),
        },
        {
          id: 'fetch-sink',
          label: 'the SDK’s fetch PUT to the discarding endpoint',
          fn: toSink('fetch'),
        },
        { id: 'copyfile', label: 'fs.copyFile (for reference; may copy inside the kernel)', fn: copyFile },
      ];
      const seconds = new Map<string, number[]>(steps.map((s) => [s.id, []]));
      const clientCpu = new Map<string, number[]>(steps.map((s) => [s.id, []]));
      const storeCpu = new Map<string, number[]>(steps.map((s) => [s.id, []]));
      for (let r = 0; r < ROUNDS; r++) {
        for (const step of steps) {
          const s0 = step.storeCpu && store.pid !== null ? cpuOf(store.pid) : 0;
          const m = await step.fn();
          seconds.get(step.id)!.push(m.seconds);
          clientCpu.get(step.id)!.push(m.cpu);
          if (step.storeCpu && store.pid !== null) storeCpu.get(step.id)!.push(cpuOf(store.pid) - s0);
        }
        rmSync(path.join(dir, 'copy.mp4'), { force: true });
        rmSync(path.join(dir, 'copyfile.mp4'), { force: true });
        console.error(
          `  round ${r + 1}: ${steps.map((s) => `${s.id} ${(MB / seconds.get(s.id)!.at(-1)!).toFixed(0)} MB/s`).join(', ')}`,
        );
      }
      const med = (id: string, m: Map<string, number[]> = seconds): number => median(m.get(id)!);
      const cp = med('copy');
      const pct = (id: string): string => `${((cp / med(id)) * 100).toFixed(0)} %`;
      const rows = steps.map((s) => {
        const t = med(s.id);
        return `| ${s.label} | ${t.toFixed(2)} s | ${(MB / t).toFixed(0)} MB/s | ${pct(s.id)} | ${med(s.id, clientCpu).toFixed(2)} s |`;
      });
      const lines = [
        `${MB} MB of random bytes, median of ${ROUNDS} alternated rounds; the store: ${EXTERNAL ? `${EXTERNAL} (BENCH_S3_ENDPOINT)` : 's3rver in its own process on this disk'}.`,
        '',
        '| transfer | time | throughput | vs the copy | client CPU per upload |',
        '| --- | --: | --: | --: | --: |',
        ...rows,
        '',
      ];
      if (store.pid !== null) {
        const ingest = median([...storeCpu.get('sdk-store')!, ...storeCpu.get('fetch-store')!]);
        lines.push(
          `s3rver's own CPU per upload: ${ingest.toFixed(2)} s (median), so with a core to itself it ingests at most ${(MB / ingest).toFixed(0)} MB/s — ${((cp / (MB / (MB / ingest))) * 100).toFixed(0)} % of the copy.`,
          '',
        );
      }
      lines.push(
        `Target: the presigned upload at ≥ 60 % of the copy's throughput — ${cp / med('sdk-store') >= 0.6 ? 'met' : 'NOT met'} (${pct('sdk-store')}; the transfer alone: ${pct('sdk-sink')}).`,
      );
      return lines.join('\n');
    } finally {
      await client?.stop();
      await vesta?.stop();
      await store.stop();
      await sink.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
