// A real Vesta server for the Python tests (the `all` role: SQLite, local blobs, in-process queue,
// the real engine) on a fresh data directory and a free port. Prints one JSON line
// { baseUrl, keys: [...] } and serves until its stdin closes. Needs `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
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
const config = loadConfig(
  {
    VESTA_OFFLINE: '1',
    PORT: String(port),
    HOST: '127.0.0.1',
    VESTA_DATA_DIR: dataDir,
    VESTA_PUBLIC_URL: baseUrl,
    VESTA_LOG_LEVEL: 'silent',
    .../** @type {Record<string, string>} */ (JSON.parse(process.argv[2] ?? '{}')),
  },
  dataDir,
);
const server = await startServer(config, { createEngine, worker: true, queue: { pollMs: 50 } });
const keys = [];
for (let i = 0; i < Number(process.env.VESTA_TEST_KEYS ?? 3); i++)
  keys.push((await server.deps.services.apiKeys.createKey(`py-user-${process.pid}-${i}`)).key);
process.stdout.write(`${JSON.stringify({ baseUrl, keys })}\n`);

let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.stdin.on('end', () => void stop());
process.stdin.on('close', () => void stop());
process.stdin.resume();
process.on('SIGTERM', () => void stop());
