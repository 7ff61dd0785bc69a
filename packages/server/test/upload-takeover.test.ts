/**
 * An upload PUT cut off by `kill -9` of its api process (issue 12, several api processes on one
 * PostgreSQL database, local blob store on a shared volume). Each process holds a session-level
 * advisory lock; the upload's claim names its process. Three `vesta serve --role api` OS processes
 * (A, B, C, from the built CLI) and an in-process worker share one schema and one data directory:
 *
 * - a client that hangs up mid-PUT through A while A lives: A lets go of the upload at once, so
 *   the retry through B within 1 s is accepted (no takeover involved), no partial file is left, and
 *   the clip is scored once;
 * - a PUT streaming through A when A is killed: the PUT retried through B succeeds at once (no
 *   409 until some sweep), the clip is stored once (the object is the clip's bytes) and scored once;
 * - a live slow PUT through B is never taken over: a retry through C gets 409, the worker's
 *   dead-claim release leaves it alone, a fourth api process starting on the shared data directory
 *   keeps its partial file (only stale ones are removed there), and B's PUT completes;
 * - the workers' periodic duty releases the claim of a killed process nobody retried.
 *
 * On SQLite (one process owns the file) nothing changes: claims name no process and a claimed
 * upload answers 409 until the process restarts.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@vesta/engine';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startRole } from '../src/roles/all.js';
import type { RunningServer } from '../src/roles/all.js';
import { callApi, clip, freePort, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer, Json } from './helpers/core-app.js';
import { hangUpMidPut, retryPut } from './helpers/hang-up.js';
import { TEST_DIALECT, dropTestDatabase, testDatabaseUrl } from './helpers/test-database.js';

const BIN = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../cli/dist/bin.js');
const CLIP = clip('show-1__toad-karate.mp4');

interface Api {
  name: string;
  base: string;
  child: ChildProcess;
  output: string;
  exited: Promise<unknown>;
}

/** A PUT whose body is sent in parts: the first `sent` bytes now, the rest on `finish()`. */
function slowPut(url: string, body: Buffer, sent: number) {
  const req = http.request(url, {
    method: 'PUT',
    headers: { 'content-type': 'video/mp4', 'content-length': String(body.length) },
  });
  const response = new Promise<{ status: number; text: string }>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (e) => resolve({ status: -1, text: e.message }));
  });
  req.write(body.subarray(0, sent));
  return { response, finish: () => req.end(body.subarray(sent)) };
}

if (TEST_DIALECT === 'sqlite')
  describe('upload claims on the embedded SQLite file', () => {
    let server: CoreTestServer;
    beforeAll(async () => {
      server = await startCoreServer({ listen: true });
    });
    afterAll(() => server?.stop());

    it('name no process, and a claimed upload answers 409 (one process owns the file: released at its next start)', async () => {
      const key = await server.key();
      const h = { 'x-api-key': key, 'content-type': 'application/json' };
      const run = (await (await fetch(`${server.base}/api/v1/score`, { headers: h })).json()) as Json;
      const minted = (await (
        await fetch(`${server.base}/api/v1/score/${run.runId}/videos/upload-url`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify({
            fileName: 'a.mp4',
            contentType: 'video/mp4',
            prompt: 'a toad doing karate',
          }),
        })
      ).json()) as Json;
      const bytes = readFileSync(CLIP);
      const put = slowPut(minted.uploadUrl as string, bytes, 4096);
      const { db } = server.deps;
      const claimed = await waitFor(
        () =>
          db
            .selectFrom('videos')
            .select(['upload_started_at', 'upload_owner'])
            .where('id', '=', minted.videoId as string)
            .executeTakeFirstOrThrow(),
        (v) => v.upload_started_at !== null,
        10_000,
      );
      expect(claimed.upload_owner).toBeNull();
      expect(await server.deps.services.uploadReceiver.releaseDeadClaims()).toBe(0);
      const second = await fetch(minted.uploadUrl as string, {
        method: 'PUT',
        headers: { 'content-type': 'video/mp4' },
        body: bytes,
      });
      expect(second.status).toBe(409);
      put.finish();
      const done = await put.response;
      expect(done.status, done.text).toBe(200);
      expect((JSON.parse(done.text) as Json).sizeBytes).toBe(bytes.length);
    });
  });

if (TEST_DIALECT === 'postgres')
  describe('an upload whose api process was killed mid-body, on PostgreSQL', () => {
    const key0 = mkdtempSync(path.join(os.tmpdir(), 'vesta-takeover-key-'));
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-takeover-'));
    const apis: Api[] = [];
    let url: string;
    let worker: RunningServer;
    let key: string;
    let client: pg.Client;

    const spawnApi = async (name: string): Promise<Api> => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const child = spawn(process.execPath, [BIN, 'serve', '--role', 'api'], {
        env: {
          PATH: process.env.PATH ?? '',
          PORT: String(port),
          HOST: '127.0.0.1',
          VESTA_PUBLIC_URL: base,
          VESTA_DATABASE_URL: url,
          VESTA_DATABASE_POOL_SIZE: '4',
          VESTA_DATA_DIR: dataDir,
          VESTA_OFFLINE: '1',
          VESTA_ENGINE_THREADS: '1',
          VESTA_LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const api: Api = {
        name,
        base,
        child,
        output: '',
        exited: new Promise((resolve) => child.on('exit', resolve)),
      };
      const keep = (c: Buffer): void => void (api.output = (api.output + c.toString()).slice(-10_000));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      apis.push(api);
      return api;
    };
    const ready = (api: Api) =>
      waitFor(
        async () => {
          if (api.child.exitCode !== null) throw new Error(`${api.name} exited: ${api.output}`);
          return (await fetch(`${api.base}/readyz`).catch(() => null))?.status ?? 0;
        },
        (s) => s === 200,
        60_000,
      );
    const call = (api: Api, method: string, p: string, body?: unknown) =>
      callApi(api.base, key, method, p, body);
    const claim = async (videoId: string) =>
      (
        await client.query<{ upload_started_at: string | null; upload_owner: string | null; state: string }>(
          'select state, upload_started_at, upload_owner from videos where id = $1',
          [videoId],
        )
      ).rows[0]!;
    const mint = async (api: Api, runId: string) => {
      const r = await call(api, 'POST', `/api/v1/score/${runId}/videos/upload-url`, {
        fileName: 'toad.mp4',
        contentType: 'video/mp4',
        prompt: 'a toad doing karate',
      });
      expect(r.status, r.text).toBe(201);
      return r.json() as { videoId: string; uploadUrl: string };
    };
    const kill9 = async (api: Api) => {
      api.child.kill('SIGKILL');
      await api.exited;
    };

    beforeAll(async () => {
      if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npm run build)`);
      url = (await testDatabaseUrl(key0))!;
      // The worker migrates the schema first, then the api processes start on it.
      const config = loadConfig({
        VESTA_OFFLINE: '1',
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        VESTA_ROLE: 'worker',
        VESTA_DATABASE_URL: url,
        VESTA_DATABASE_POOL_SIZE: '4',
        VESTA_DATA_DIR: dataDir,
        VESTA_ENGINE_THREADS: '1',
        VESTA_LOG_LEVEL: 'warn',
      });
      worker = await startRole(config, { createEngine, queue: { pollMs: 50 } });
      key = (await worker.deps.services.apiKeys.createKey('takeover')).key;
      client = new pg.Client({ connectionString: url });
      await client.connect();
      for (const name of ['api-a', 'api-b', 'api-c']) await spawnApi(name);
      await Promise.all(apis.map(ready));
    }, 120_000);

    afterAll(async () => {
      for (const api of apis)
        if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
      await Promise.all(apis.map((a) => a.exited));
      await client?.end();
      await worker?.close();
      await dropTestDatabase(key0);
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(key0, { recursive: true, force: true });
    });

    it('a client that hangs up mid-PUT through A (alive): the retry through B within 1 s is accepted, no partial bytes left, scored once', async () => {
      const [a, b] = [apis[0]!, apis[1]!];
      const bytes = readFileSync(CLIP);
      const { runId } = (await call(a, 'GET', '/api/v1/score')).json() as { runId: string };
      for (const how of ['end', 'reset'] as const) {
        const minted = await mint(a, runId);
        await hangUpMidPut(minted.uploadUrl, { 'Content-Type': 'video/mp4' }, bytes, 1000, how, () =>
          waitFor(
            () => claim(minted.videoId),
            (v) => v.upload_started_at !== null,
            10_000,
          ),
        );
        // A let go of it at once (not the takeover of a dead process: A is alive).
        const retry = await retryPut(
          minted.uploadUrl.replace(a.base, b.base),
          { 'Content-Type': 'video/mp4' },
          bytes,
          1000,
        );
        expect(retry.status, `${how}: ${retry.text} after ${retry.tookMs} ms`).toBe(200);
        expect(retry.tookMs).toBeLessThan(1000);
        expect(a.child.exitCode).toBeNull();
        expect(readFileSync(path.join(dataDir, 'blobs', 'videos', minted.videoId)).equals(bytes)).toBe(true);
        // Not the readiness probe's transient `.ready-*` file: it checks the directory uploads write to.
        expect(
          readdirSync(path.join(dataDir, 'blobs', '.partial')).filter((n) => !n.startsWith('.ready-')),
        ).toEqual([]);
        const confirmed = await call(b, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
          videoId: minted.videoId,
        });
        expect(confirmed.status, confirmed.text).toBeLessThan(300);
      }
      const scored = await waitFor(
        async () => (await call(b, 'GET', '/api/v1/score')).json(),
        (s) => (s.videos as Json[]).every((v) => v.state === 'scored' || v.state === 'failed'),
        120_000,
      );
      expect((scored.videos as Json[]).map((v) => v.state)).toEqual(['scored', 'scored']);
      const { rows } = await client.query<{ video_id: string; dimension: string; n: string }>(
        'select video_id, dimension, count(*)::text as n from scores where video_id = any($1) group by video_id, dimension',
        [(scored.videos as Json[]).map((v) => v.videoId as string)],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.n, r.dimension).toBe('1');
      // The next test starts from an empty session.
      expect((await call(a, 'POST', '/api/v1/score/reset')).status).toBe(200);
    }, 180_000);

    it('a PUT retried through B right after kill -9 of A mid-body succeeds; the clip is stored once and scored once', async () => {
      const [a, b] = [apis[0]!, apis[1]!];
      const bytes = readFileSync(CLIP);
      const { runId } = (await call(a, 'GET', '/api/v1/score')).json() as { runId: string };
      const minted = await mint(a, runId);
      const cut = slowPut(minted.uploadUrl, bytes, Math.floor(bytes.length / 2));
      const claimed = await waitFor(
        () => claim(minted.videoId),
        (v) => v.upload_started_at !== null,
        10_000,
      );
      expect(claimed.upload_owner).toMatch(/^[0-9]+$/);

      await kill9(a);
      expect((await cut.response).status).toBe(-1);
      const onB = minted.uploadUrl.replace(a.base, b.base);
      const t0 = Date.now();
      let put;
      for (;;) {
        const res = await fetch(onB, {
          method: 'PUT',
          headers: { 'content-type': 'video/mp4' },
          body: bytes,
        });
        put = { status: res.status, text: await res.text() };
        if (put.status !== 409 || Date.now() - t0 > 10_000) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const tookMs = Date.now() - t0;
      process.stderr.write(`[upload-takeover] retried PUT through B accepted after ${tookMs} ms\n`);
      expect(put.status, put.text).toBe(200);
      expect(tookMs).toBeLessThan(5000);
      expect(JSON.parse(put.text)).toMatchObject({
        videoId: minted.videoId,
        state: 'uploaded',
        sizeBytes: bytes.length,
      });
      // Stored once: one row, the clip's own bytes as its object, the claim cleared.
      const row = await claim(minted.videoId);
      expect(row).toMatchObject({ state: 'uploaded', upload_started_at: null, upload_owner: null });
      expect(readFileSync(path.join(dataDir, 'blobs', 'videos', minted.videoId)).equals(bytes)).toBe(true);

      const confirmed = await call(b, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
        videoId: minted.videoId,
      });
      expect(confirmed.status, confirmed.text).toBeLessThan(300);
      const scored = await waitFor(
        async () => (await call(b, 'GET', '/api/v1/score')).json(),
        (s) => (s.videos as Json[]).every((v) => v.state === 'scored' || v.state === 'failed'),
        120_000,
      );
      expect(scored.videos).toHaveLength(1);
      expect(scored.videos[0].state).toBe('scored');
      // Scored once: one score per dimension.
      const { rows } = await client.query<{ dimension: string; n: string }>(
        'select dimension, count(*)::text as n from scores where video_id = $1 group by dimension',
        [minted.videoId],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.n, r.dimension).toBe('1');
    }, 180_000);

    it('a live slow PUT through B is never taken over: a retry through C gets 409, the release duty leaves it, a process starting meanwhile keeps its partial file, and B completes it', async () => {
      const [b, c] = [apis[1]!, apis[2]!];
      const bytes = readFileSync(CLIP);
      const { runId } = (await call(b, 'GET', '/api/v1/score')).json() as { runId: string };
      const minted = await mint(b, runId);
      const slow = slowPut(minted.uploadUrl, bytes, 4096);
      const claimed = await waitFor(
        () => claim(minted.videoId),
        (v) => v.upload_started_at !== null,
        10_000,
      );
      const onC = minted.uploadUrl.replace(b.base, c.base);
      for (let i = 0; i < 3; i++) {
        const res = await fetch(onC, {
          method: 'PUT',
          headers: { 'content-type': 'video/mp4' },
          body: bytes,
        });
        const text = await res.text();
        expect(res.status, text).toBe(409);
        expect(text).toContain('in progress');
        expect(await worker.deps.services.uploadReceiver.releaseDeadClaims()).toBe(0);
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(await claim(minted.videoId)).toMatchObject({
        upload_owner: claimed.upload_owner,
        state: 'awaiting_upload',
      });
      // A process starting on the shared data directory meanwhile (A's replacement) leaves the
      // partial file of B's upload in flight alone.
      const d = await spawnApi('api-d');
      await ready(d);
      slow.finish();
      const done = await slow.response;
      expect(done.status, done.text).toBe(200);
      expect(JSON.parse(done.text)).toMatchObject({ sizeBytes: bytes.length });
      expect(readFileSync(path.join(dataDir, 'blobs', 'videos', minted.videoId)).equals(bytes)).toBe(true);
    }, 60_000);

    it("the workers' periodic duty releases the claim of a killed process that nobody retried", async () => {
      const c = apis[2]!;
      const bytes = readFileSync(CLIP);
      const { runId } = (await call(c, 'GET', '/api/v1/score')).json() as { runId: string };
      const minted = await mint(c, runId);
      const cut = slowPut(minted.uploadUrl, bytes, 4096);
      await waitFor(
        () => claim(minted.videoId),
        (v) => v.upload_started_at !== null,
        10_000,
      );
      await kill9(c);
      await cut.response;
      // (What the expired-upload sweep runs every few minutes, called here at once.)
      const released = await waitFor(
        async () => {
          await worker.deps.services.uploadReceiver.releaseDeadClaims();
          return claim(minted.videoId);
        },
        (v) => v.upload_started_at === null,
        5000,
      );
      expect(released).toMatchObject({
        state: 'awaiting_upload',
        upload_started_at: null,
        upload_owner: null,
      });
    }, 60_000);
  });
