// A real Vesta server for the Python tests (the `all` role: SQLite, local blobs, in-process queue,
// the real engine) on a fresh data directory and a free port. Prints one JSON line
// { baseUrl, keys: [...] } and serves until its stdin closes; lines on stdin stop and start its S3
// server (see `control` below). Needs `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { URL } from 'node:url';
import process from 'node:process';
import { createEngine } from '@vesta/engine';
import { loadConfig, startServer } from '@vesta/server';

/** @type {number} */
const port = await new Promise((resolve, reject) => {
  const probe = createServer();
  probe.once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const a = probe.address();
    probe.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
  });
});
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-py-test-'));
const baseUrl = `http://127.0.0.1:${port}`;
/** @type {Record<string, string>} */
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- this script's own argument
const env = JSON.parse(process.argv[2] ?? '{}');
const { VESTA_TEST_S3: withS3, ...extraEnv } = env;
// VESTA_TEST_S3=1: the blob store is S3 on the server tests' S3-compatible server (s3rver with
// SigV4 checked, or VESTA_TEST_S3_ENDPOINT), loaded through tsx from its TypeScript source.
/** @typedef {{ env: Record<string, string>; endpoint: string; stopServer(): Promise<void>; startServer(): Promise<void>; close(): Promise<void> }} TestS3 */
/** @type {TestS3 | null} */
let s3 = null;
if (withS3 === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  const helper = new URL('../../../packages/server/test/helpers/s3.ts', import.meta.url).href;
  /** @type {{ startTestS3(): Promise<TestS3> }} */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- a TypeScript module loaded by URL
  const loaded = await import(helper);
  s3 = await loaded.startTestS3();
}
const config = loadConfig(
  {
    VESTA_OFFLINE: '1',
    PORT: String(port),
    HOST: '127.0.0.1',
    VESTA_DATA_DIR: dataDir,
    VESTA_PUBLIC_URL: baseUrl,
    VESTA_LOG_LEVEL: 'silent',
    ...(s3 ? s3.env : {}),
    ...extraEnv,
  },
  dataDir,
);
const server = await startServer(config, { createEngine, worker: true, queue: { pollMs: 50 } });
const keys = [];
for (let i = 0; i < Number(process.env.VESTA_TEST_KEYS ?? 3); i++)
  keys.push((await server.deps.services.apiKeys.createKey(`py-user-${process.pid}-${i}`)).key);
process.stdout.write(`${JSON.stringify({ baseUrl, keys, ...(s3 ? { s3Endpoint: s3.endpoint } : {}) })}\n`);

let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await server.close();
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.stdin.on('end', () => void stop());
process.stdin.on('close', () => void stop());
// A line on stdin drives the S3 server for outage tests: `s3 stop` stops it (its port refuses
// connections), `s3 start` starts it again on the same port; one JSON line on stdout answers each.
/** @param {string} line */
const control = async (line) => {
  try {
    if (!s3) throw new Error('no S3 server (start with {"VESTA_TEST_S3": "1"})');
    if (line === 's3 stop') await s3.stopServer();
    else if (line === 's3 start') await s3.startServer();
    else throw new Error(`unknown command ${JSON.stringify(line)}`);
    process.stdout.write(`${JSON.stringify({ ok: line })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
  }
};
let pending = '';
let queue = Promise.resolve();
process.stdin.setEncoding('utf8');
process.stdin.on('data', (/** @type {string} */ chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
    const line = pending.slice(0, nl).trim();
    pending = pending.slice(nl + 1);
    if (line) queue = queue.then(() => control(line));
  }
});
process.on('SIGTERM', () => void stop());
