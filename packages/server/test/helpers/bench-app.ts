/**
 * A real Vesta server for the Bench, Discovery and docs-site tests: the `all` role on a fresh
 * data directory (SQLite file, local blob directory, job queue), the real engine, optionally
 * listening on a random port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createEngine } from '@vesta/engine';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/roles/all.js';
import type { RunningServer } from '../../src/roles/all.js';
import { dropTestDatabase, testDatabaseEnv } from './test-database.js';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** Log lines the server wrote. */
  logs: string[];
  /** A new API key of a new (or the named) user. */
  key(userName?: string): Promise<{ key: string; userId: string }>;
  stop(): Promise<void>;
}

let users = 0;

export async function startTestServer(
  options: { listen?: boolean; worker?: boolean; port?: number } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-test-'));
  const port = options.port ?? 0;
  const config = loadConfig(
    {
      // No model pulls: this machine reaches no model source, and the model-free methods answer.
      VESTA_OFFLINE: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      VESTA_DATA_DIR: dataDir,
      VESTA_LOG_LEVEL: 'info',
      ...(await testDatabaseEnv(dataDir)),
      ...(options.port ? { VESTA_PUBLIC_URL: `http://127.0.0.1:${options.port}` } : {}),
    },
    dataDir,
  );
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const server = await startServer(config, {
    createEngine,
    logStream,
    listen: options.listen ?? false,
    worker: options.worker ?? false,
    queue: { pollMs: 50 },
  });
  return {
    ...server,
    dataDir,
    logs,
    async key(userName?: string) {
      const created = await server.deps.services.apiKeys.createKey(
        userName ?? `bench-user-${process.pid}-${++users}`,
      );
      return { key: created.key, userId: created.userId };
    },
    async stop() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestDatabase(dataDir);
    },
  };
}

/** A free TCP port on 127.0.0.1 (for servers whose public URL must be known before they start). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const a = probe.address();
      probe.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}
