/**
 * Graceful shutdown and restart: an in-flight upload finishes while the server closes; a scoring
 * job cut off by shutdown is put back in the queue and completes after a restart on the same data
 * directory.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import { jobsAbout } from './helpers/job-queue-harness.js';
import { TEST_DIALECT } from './helpers/test-database.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('restart after a crash', () => {
  it('frees upload URLs that were streaming and deletes partial files', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-crash-'));
    dirs.push(dataDir);
    const first = await startCoreServer({ dataDir });
    const key = await first.key('crash-user');
    const h = { 'x-api-key': key };
    const { runId } = (await first.app.inject({ method: 'GET', url: '/api/v1/score', headers: h })).json();
    const up = (
      await first.app.inject({
        method: 'POST',
        url: `/api/v1/score/${runId}/videos/upload-url`,
        headers: h,
        payload: { fileName: 'c.mp4', contentType: 'video/mp4', prompt: 'x' },
      })
    ).json();
    // As a process that died mid-PUT leaves them: the claim on the row, a partial file on disk.
    await first.deps.db
      .updateTable('videos')
      .set({ upload_started_at: Date.now() })
      .where('id', '=', up.videoId)
      .execute();
    const u = new URL(up.uploadUrl);
    const blocked = await first.app.inject({
      method: 'PUT',
      url: u.pathname + u.search,
      headers: { 'content-type': 'video/mp4' },
      payload: Buffer.alloc(100, 1),
    });
    expect(blocked.statusCode).toBe(409);
    const partial = path.join(dataDir, 'blobs', '.partial');
    writeFileSync(path.join(partial, 'left-over'), Buffer.alloc(1000));
    if (TEST_DIALECT === 'postgres') {
      // With PostgreSQL other api processes may share the directory: a partial file goes once it
      // is an hour old, one written to recently (another process's upload in flight) stays.
      const old = (Date.now() - 2 * 3600_000) / 1000;
      utimesSync(path.join(partial, 'left-over'), old, old);
      writeFileSync(path.join(partial, 'in-flight'), Buffer.alloc(10));
    }
    await first.close();

    const second = await startCoreServer({ dataDir });
    try {
      // A readiness probe of the new process may be writing its transient `.ready-*` file there.
      const uploads = readdirSync(partial).filter((n) => !n.startsWith('.ready-'));
      expect(uploads).toEqual(TEST_DIALECT === 'postgres' ? ['in-flight'] : []);
      const put = await second.app.inject({
        method: 'PUT',
        url: u.pathname + u.search,
        headers: { 'content-type': 'video/mp4' },
        payload: Buffer.alloc(100, 1),
      });
      expect(put.statusCode).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight upload finish, then refuses new connections', async () => {
    const server = await startCoreServer({ listen: true });
    const key = await server.key();
    const session = (await (
      await fetch(`${server.base}/api/v1/score`, { headers: { 'x-api-key': key } })
    ).json()) as { runId: string };
    const up = (await (
      await fetch(`${server.base}/api/v1/score/${session.runId}/videos/upload-url`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'slow.mp4', contentType: 'video/mp4', prompt: 'slow' }),
      })
    ).json()) as { uploadUrl: string; headers: Record<string, string> };
    const bytes = readFileSync(clip('show-1__panda-selfie.mp4'));
    let closing: Promise<void> | undefined;
    async function* slowly() {
      for (let i = 0; i < 10; i++) {
        yield bytes.subarray((i * bytes.length) / 10, ((i + 1) * bytes.length) / 10);
        // Close the server while the body is still arriving.
        if (i === 2) closing = server.close();
        await new Promise((r) => setTimeout(r, 30));
      }
    }
    const init = {
      method: 'PUT',
      headers: up.headers,
      body: Readable.toWeb(Readable.from(slowly())),
      duplex: 'half',
    };
    const res = await fetch(up.uploadUrl, init as unknown as RequestInit);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { sizeBytes: number }).sizeBytes).toBe(bytes.length);
    await closing;
    await expect(fetch(`${server.base}/healthz`)).rejects.toThrow();
    rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('puts a scoring job cut off by shutdown back in the queue; it completes after restart', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-restart-'));
    dirs.push(dataDir);
    const first = await startCoreServer({
      dataDir,
      worker: true,
      env: { VESTA_SHUTDOWN_GRACE_SECONDS: '0' },
    });
    const key = await first.key('restart-user');
    const h = { 'x-api-key': key };
    const { runId } = (await first.app.inject({ method: 'GET', url: '/api/v1/score', headers: h })).json();
    const up = (
      await first.app.inject({
        method: 'POST',
        url: `/api/v1/score/${runId}/videos/upload-url`,
        headers: h,
        payload: { fileName: 'r.mp4', contentType: 'video/mp4', prompt: 'a sunset' },
      })
    ).json();
    const u = new URL(up.uploadUrl);
    expect(
      (
        await first.app.inject({
          method: 'PUT',
          url: u.pathname + u.search,
          headers: { 'content-type': 'video/mp4' },
          payload: readFileSync(clip('real__sam2-coffee-pour.mp4')),
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await first.app.inject({
          method: 'POST',
          url: `/api/v1/score/${runId}/videos/confirm-upload`,
          headers: h,
          payload: { videoId: up.videoId },
        })
      ).statusCode,
    ).toBe(200);
    const state = () =>
      first.deps.db
        .selectFrom('videos')
        .select('state')
        .where('id', '=', up.videoId)
        .executeTakeFirstOrThrow();
    await waitFor(state, (v) => v.state === 'scoring', 30_000);
    await first.close();

    const second = await startCoreServer({ dataDir, worker: false });
    const [job] = await jobsAbout(second.deps, `video:${up.videoId}`);
    expect(job).toMatchObject({ state: 'queued', attempts: 0 });
    expect(
      (
        await second.deps.db
          .selectFrom('videos')
          .select('state')
          .where('id', '=', up.videoId)
          .executeTakeFirstOrThrow()
      ).state,
    ).toBe('queued');
    await second.close();

    const third = await startCoreServer({ dataDir, worker: true });
    try {
      const session = await waitFor(
        async () => (await third.app.inject({ method: 'GET', url: '/api/v1/score', headers: h })).json(),
        (s) => s.videos[0]?.state === 'scored',
        120_000,
      );
      expect(session.runId).toBe(runId);
      expect(session.videos[0].scores.length).toBeGreaterThan(0);
    } finally {
      await third.close();
    }
  });
});
