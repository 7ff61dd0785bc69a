/**
 * Two API processes on one database (on PostgreSQL: one schema shared by servers with different
 * data directories; on SQLite: one data directory): an upload URL minted by one is accepted by
 * the other, because the signing secret lives with the database (PostgreSQL) or in the shared
 * data directory (SQLite), not in one process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { TEST_DIALECT, dropTestDatabase, testDatabaseUrl } from './helpers/test-database.js';

const shared = mkdtempSync(path.join(os.tmpdir(), 'vesta-shared-db-'));
const other = mkdtempSync(path.join(os.tmpdir(), 'vesta-shared-db-other-'));
let a: CoreTestServer;
let b: CoreTestServer;

beforeAll(async () => {
  a = await startCoreServer({ dataDir: shared, listen: true });
  const url = await testDatabaseUrl(shared);
  // PostgreSQL: another machine (its own data directory) on the same database.
  b =
    TEST_DIALECT === 'postgres' && url !== null
      ? await startCoreServer({ dataDir: other, listen: true, env: { VESTA_DATABASE_URL: url } })
      : await startCoreServer({ dataDir: shared, listen: true });
});

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  rmSync(shared, { recursive: true, force: true });
  rmSync(other, { recursive: true, force: true });
  await dropTestDatabase(shared);
});

describe(`two API processes on one database (${TEST_DIALECT})`, () => {
  it('accept each other’s upload URLs', async () => {
    const key = await a.key();
    const session = (await (
      await fetch(`${a.base}/api/v1/score`, { headers: { 'x-api-key': key } })
    ).json()) as {
      runId: string;
    };
    const minted = (await (
      await fetch(`${a.base}/api/v1/score/${session.runId}/videos/upload-url`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'a.mp4', contentType: 'video/mp4', prompt: 'a cat' }),
      })
    ).json()) as { uploadUrl: string; videoId: string };
    const onB = minted.uploadUrl.replace(a.base, b.base);
    expect(onB.startsWith(b.base)).toBe(true);
    // A forged token is refused by B (so B checks signatures at all).
    const forged = await fetch(onB.replace(/token=[^&]+/, 'token=AAAA.BBBB'), {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: new Uint8Array(10),
    });
    expect(forged.status).toBe(401);
    const put = await fetch(onB, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: readFileSync(clip('cogvideox-2b__suv-dirt-road.mp4')),
    });
    expect(put.status, await put.clone().text()).toBe(200);
  });
});
