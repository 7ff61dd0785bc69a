/**
 * A real Vesta server for the SDK and CLI tests and the SDK benchmark: the `all` role on a fresh
 * temporary data directory (SQLite file, local blobs, in-process queue, real engine), listening on
 * a random free port of 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@vesta/engine';
import { loadConfig, startServer } from '@vesta/server';

export interface TestServer {
  baseUrl: string;
  dataDir: string;
  /** A new API key of a new user. */
  newKey(): Promise<string>;
  /**
   * Adds a model to the catalogue, as an operator would (runners declare models over the API
   * only from the next release, so there is no API operation for it yet).
   */
  addModel(id: string): Promise<void>;
  stop(): Promise<void>;
}

/** The shared corpus of real clips (never copied into the repository). */
export const corpusDir = path.resolve(
  fileURLToPath(new URL('.', import.meta.url)),
  '../../../../../shared/corpus',
);
export const corpusClip = (name: string): string => path.join(corpusDir, name);

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

let users = 0;

export async function startTestServer(
  env: Record<string, string> = {},
  options: { worker?: boolean } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-sdk-test-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig(
    {
      // No model pulls: this machine reaches no model source, and the model-free methods answer.
      VESTA_OFFLINE: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      VESTA_DATA_DIR: dataDir,
      VESTA_PUBLIC_URL: baseUrl,
      VESTA_LOG_LEVEL: 'silent',
      ...env,
    },
    dataDir,
  );
  const server = await startServer(config, {
    createEngine,
    worker: options.worker ?? true,
    queue: { pollMs: 50 },
  });
  return {
    baseUrl,
    dataDir,
    async newKey() {
      const created = await server.deps.services.apiKeys.createKey(`sdk-user-${process.pid}-${++users}`);
      return created.key;
    },
    async addModel(id: string) {
      await server.deps.db
        .insertInto('models')
        .values({ id, public_id: id, name: id, description: `test model ${id}`, created_at: Date.now() })
        .execute();
    },
    async stop() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
