/**
 * A real Vesta server for the core tests: role `all` on a fresh data directory (SQLite file,
 * local blob directory, SQLite job queue), the real engine, logs captured, optionally listening on
 * a random port with its public URL set to that port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { createEngine } from '@vesta/engine';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/roles/all.js';
import type { RunningServer, StartOptions } from '../../src/roles/all.js';
import { dropTestDatabase, testDatabaseEnv } from './test-database.js';

/** The shared corpus of real clips (never copied into the repo). */
export const CORPUS = fileURLToPath(new URL('../../../../../shared/corpus/', import.meta.url));
export const clip = (name: string): string => path.join(CORPUS, name);

export interface CoreTestServer extends RunningServer {
  dataDir: string;
  /** Every log line the server wrote. */
  logs: string[];
  /** Base URL when listening. */
  base: string;
  /** A new API key for a new user (or the named one). */
  key(userName?: string): Promise<string>;
  stop(): Promise<void>;
}

let users = 0;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const a = probe.address();
      probe.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

export interface CoreTestOptions extends Partial<Omit<StartOptions, 'createEngine'>> {
  env?: Record<string, string>;
  /** Reuse a data directory (restart tests). */
  dataDir?: string;
}

export async function startCoreServer(options: CoreTestOptions = {}): Promise<CoreTestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'vesta-core-test-'));
  const listen = options.listen ?? false;
  const port = listen ? await freePort() : 8080;
  const config = loadConfig(
    {
      // No model pulls: this machine reaches no model source, and the model-free methods answer.
      VESTA_OFFLINE: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      VESTA_DATA_DIR: dataDir,
      VESTA_LOG_LEVEL: 'info',
      VESTA_PUBLIC_URL: `http://127.0.0.1:${port}`,
      VESTA_ENGINE_THREADS: '1',
      VESTA_SHUTDOWN_GRACE_SECONDS: '5',
      ...(await testDatabaseEnv(dataDir)),
      ...options.env,
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
  const { env: _env, dataDir: _d, ...start } = options;
  const server = await startServer(config, {
    createEngine,
    logStream,
    listen,
    worker: false,
    queue: { pollMs: 50, ...options.queue },
    ...start,
  });
  return {
    ...server,
    dataDir,
    logs,
    base: `http://127.0.0.1:${port}`,
    async key(userName?: string) {
      return (await server.deps.services.apiKeys.createKey(userName ?? `core-user-${process.pid}-${++users}`))
        .key;
    },
    async stop() {
      await server.close();
      if (!options.dataDir) {
        rmSync(dataDir, { recursive: true, force: true });
        await dropTestDatabase(dataDir);
      }
    },
  };
}

/** Polls `read` until `done` holds (or fails after `timeoutMs`). */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end)
      throw new Error(
        `condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(v).slice(0, 500)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies read in assertions
export type Json = Record<string, any>;

/** One API call to a server process at `base` with an API key: status, headers and the body (text, or parsed). */
export async function callApi(
  base: string,
  key: string,
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => Json }> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: {
      'x-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: (): Json => JSON.parse(text) as Json };
}
