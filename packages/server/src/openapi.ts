/**
 * The OpenAPI 3.1 document, generated from the route schemas by building the real app on a
 * throw-away data directory (no listener, no worker). `npm run openapi` writes it to
 * `openapi/openapi.json`; a test fails when the committed file and the served document differ.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from './config.js';
import { startServer } from './roles/all.js';

export async function buildOpenApiDocument(): Promise<unknown> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-openapi-'));
  try {
    const config = loadConfig(
      { VESTA_DATA_DIR: dataDir, VESTA_LOG_LEVEL: 'silent', VESTA_ENGINE_THREADS: '1' },
      dataDir,
    );
    const server = await startServer(config, { listen: false, worker: false });
    try {
      return server.app.swagger();
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The document as committed: stable key order as generated, two-space indent, final newline. */
export function formatOpenApiDocument(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
